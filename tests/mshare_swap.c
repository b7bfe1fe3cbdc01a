// SPDX-License-Identifier: GPL-2.0
/*
 * Region pages on swap: paged out by MADV_PAGEOUT through one sharer, then
 * read and written by another, which faults them back in through the
 * region's page tables; compared with a MAP_SHARED memfd, whose shmem
 * pages go to the same swap device.
 *
 * The swap area is the runner's swap disk (harness_swap_disk()), made
 * with mkswap on the host for every boot; the suite turns it on and off
 * itself, so that no other test runs with swap.  swapoff() at the end brings back what is
 * still out, through the region's mm as through any other.
 *
 * The page-out can also come from another process, as a reclaim daemon's
 * does: process_madvise(MADV_PAGEOUT) on a sharer's pidfd, over the range
 * at the sharer's address, while the sharer waits.
 *
 * What two sharers' smaps say of the pages out on swap: each sharer's
 * Swap is all of them; a region's swap entry counts, as its present
 * pages do (patch 0067), as mapped by every process that maps the region,
 * so that each sharer's SwapPss is its share and the SwapPss of all adds
 * up to the swap the region holds (patch 0072).  shmem's pages out on
 * swap are in no one's SwapPss: 0 for the memfd.
 */
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "mshare_util.h"
#include "shm_target.h"
#include "swap_disk.h"

#define SWAP_ADDR(slot)	MSHARE_ADDR(82 + (slot))
#define REMOTE_ADDR(slot)	MSHARE_ADDR(190 + (slot))
#define SWAP_PSS_ADDR(slot)	MSHARE_ADDR(228 + (slot))
#define SWAP_PSS_SHARERS	2
#define SMAPS_MAX	65536
#define CHILD_TIMEOUT	60
#define NPAGES		512
#define RANGE_OFF	(4 * PT_SPAN)

/* Swap and SwapPss of a sharer's smaps entry of the memory, in kB */
struct swap_view {
	long swap_kb, swap_pss_kb;
};

/* What the children saw, in memory shared with the test */
struct swap_counts {
	long swapped_out;	/* pages the page-out wrote to swap */
	long present_after;	/* remote case: the sharer's pages after it */
	/* swap_pss case: sharers that mapped it, that read their smaps */
	int mapped, measured;
	bool paged_out;		/* and the page-out done */
	struct swap_view view[SWAP_PSS_SHARERS];
};

struct swap_case {
	struct shm_target target;
	struct mshare_report *report;
	struct swap_counts *counts;
	struct harness_paused_child sharer;	/* remote case */
};

static unsigned long *range_of(unsigned long *p)
{
	return p + RANGE_OFF / sizeof(long);
}

static void fill(unsigned long *range, int tag)
{
	unsigned long i;

	for (i = 0; i < NPAGES; i++)
		range[i * PAGE / sizeof(long)] = mshare_pattern(i, tag);
}

/* The number of pages that do not hold pattern(i, tag) */
static unsigned long count_wrong(const unsigned long *range, int tag)
{
	unsigned long i, wrong = 0;

	for (i = 0; i < NPAGES; i++)
		wrong += range[i * PAGE / sizeof(long)] != mshare_pattern(i, tag);
	return wrong;
}

/* Write the range, page it out, and measure the swap it took */
static int paging_out_sharer(void *arg)
{
	struct swap_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	long before;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "map and write");
	if (!p)
		return 1;
	fill(range_of(p), 1);
	before = swap_pages_written();
	mshare_report_step(r, "MADV_PAGEOUT");
	if (madvise(range_of(p), NPAGES * PAGE, MADV_PAGEOUT))
		return mshare_report_fail(r, errno);
	c->counts->swapped_out = swap_pages_written() - before;
	return mshare_report_done(r);
}

/* Another process: read what went out, then write over it */
static int swapping_in_sharer(void *arg)
{
	struct swap_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "map");
	if (!p)
		return 1;
	mshare_report_step(r, "read the swapped pages");
	if (count_wrong(range_of(p), 1))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "write them");
	fill(range_of(p), 2);
	return mshare_report_done(r);
}

/* A third: the second's writes, and the first word of the setup */
static int checking_sharer(void *arg)
{
	struct swap_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map read-only");
	if (!p)
		return 1;
	mshare_report_step(r, "read the second sharer's data");
	if (count_wrong(range_of(p), 2) || p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/*
 * Write the range and wait while another process pages it out; then
 * count what is still present (pagemap), and read it back.
 */
static int remotely_paged_sharer(void *arg)
{
	struct swap_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	long present;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "map and write");
	if (!p)
		return 1;
	fill(range_of(p), 1);
	mshare_report_step(r, "wait for the page-out");
	if (harness_child_pause(&c->sharer))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "pagemap after the page-out");
	present = harness_pagemap_present((uintptr_t)range_of(p), NPAGES);
	c->counts->present_after = present;
	if (present < 0)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read the swapped pages");
	if (count_wrong(range_of(p), 1))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* MADV_PAGEOUT of the range at @addr in @pid's memory: bytes done or -errno */
static long page_out_remotely(pid_t pid, unsigned long addr)
{
	struct iovec range = { (void *)addr, NPAGES * PAGE };
	int pidfd = pidfd_open(pid, 0);
	long done;

	if (pidfd < 0)
		return -errno;
	done = syscall(SYS_process_madvise, pidfd, &range, 1, MADV_PAGEOUT, 0);
	if (done < 0)
		done = -errno;
	close(pidfd);
	return done;
}

/* Add one to @count, then wait until every sharer has */
/*
 * Sharer @i of the swap_pss case: map the memory; the first writes the
 * range, the other reads only the setup's page (from then on its page
 * tables lead to a region's); both wait for the page-out of the range,
 * then read their smaps entry, and unmap only once both have: a region's
 * share is by the processes that map it.  0, or the step that failed.
 */
static int swap_pss_sharer(struct swap_case *c, int i)
{
	static char buf[SMAPS_MAX];
	struct swap_view *v = &c->counts->view[i];
	const char *entry;
	unsigned long *p;

	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 1;
	if (!i)
		fill(range_of(p), 1);
	else if (p[0] != 1)
		return 2;
	__atomic_add_fetch(&c->counts->mapped, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&c->counts->paged_out, __ATOMIC_SEQ_CST))
		usleep(1000);
	entry = mshare_smaps_entry(buf, sizeof(buf), c->target.addr);
	if (!entry || harness_kb_field_parse(entry, "Swap", &v->swap_kb) ||
	    harness_kb_field_parse(entry, "SwapPss", &v->swap_pss_kb))
		return 3;
	if (!mshare_barrier(&c->counts->measured, SWAP_PSS_SHARERS,
			    CHILD_TIMEOUT))
		return 4;
	return 0;
}

static void run_in_child(int (*fn)(void *), struct swap_case *c)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL(harness_run_child_timeout(fn, c, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
}

/*
 * The test and its children on one CPU (mshare_pin_to_cpu()): every page
 * a sharer writes is in the LRU batch the page-out drains.
 */
static void case_begin(struct swap_case *c)
{
	CU_ASSERT_EQUAL(mshare_pin_to_cpu(0), 0);
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	c->counts = mmap(NULL, sizeof(*c->counts), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->counts != MAP_FAILED);
	c->counts->present_after = -1;
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
}

static void case_end(struct swap_case *c)
{
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->counts, sizeof(*c->counts));
	mshare_report_free(c->report);
	CU_ASSERT_EQUAL(mshare_unpin(), 0);
}

static void run_swap_case(struct swap_case *c)
{
	case_begin(c);
	run_in_child(paging_out_sharer, c);
	printf("    %s: MADV_PAGEOUT of %d pages wrote %ld to swap\n",
	       shm_kind_name(c->target.kind), NPAGES, c->counts->swapped_out);
	/* Every page went out (pswpout counts the writes to the device) */
	MSHARE_ASSERT_EQ(c->counts->swapped_out, NPAGES);
	run_in_child(swapping_in_sharer, c);
	run_in_child(checking_sharer, c);
	case_end(c);
}

SHM_TEST_PAIR(struct swap_case, pageout_then_other_sharers, run_swap_case,
	      SWAP_ADDR(0), SWAP_ADDR(1))

static void run_remote_case(struct swap_case *c)
{
	struct harness_child_result res;
	long before, done;

	case_begin(c);
	CU_ASSERT_EQUAL_FATAL(harness_start_paused_child(&c->sharer,
							 remotely_paged_sharer,
							 c), 0);
	before = swap_pages_written();
	done = page_out_remotely(c->sharer.pid, c->target.addr + RANGE_OFF);
	c->counts->swapped_out = swap_pages_written() - before;
	CU_ASSERT_EQUAL(harness_release_paused_child(&c->sharer, CHILD_TIMEOUT,
						     &res), 0);
	printf("    %s: process_madvise(MADV_PAGEOUT) of %d pages of another process: %s, %ld written to swap; %ld present after it\n",
	       shm_kind_name(c->target.kind), NPAGES,
	       done < 0 ? mshare_errname(-done) : "done",
	       c->counts->swapped_out, c->counts->present_after);
	MSHARE_ASSERT_EQ(done, (long)(NPAGES * PAGE));
	MSHARE_ASSERT_EQ(c->counts->swapped_out, NPAGES);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	MSHARE_ASSERT_EQ(c->counts->present_after, 0);
	case_end(c);
}

SHM_TEST_PAIR(struct swap_case, process_madvise_pageout, run_remote_case,
	      REMOTE_ADDR(0), REMOTE_ADDR(1))

static void run_swap_pss_case(struct swap_case *c)
{
	long done = -1, before, sum_pss = 0, want_pss;
	pid_t pids[SWAP_PSS_SHARERS];
	int i, status;

	case_begin(c);
	for (i = 0; i < SWAP_PSS_SHARERS; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			alarm(CHILD_TIMEOUT);
			_exit(swap_pss_sharer(c, i));
		}
		CU_ASSERT(pids[i] > 0);
	}
	if (pids[0] > 0 &&
	    mshare_wait_count(&c->counts->mapped, SWAP_PSS_SHARERS,
			      CHILD_TIMEOUT)) {
		before = swap_pages_written();
		done = page_out_remotely(pids[0], c->target.addr + RANGE_OFF);
		c->counts->swapped_out = swap_pages_written() - before;
	}
	__atomic_store_n(&c->counts->paged_out, true, __ATOMIC_SEQ_CST);
	for (i = 0; i < SWAP_PSS_SHARERS; i++) {
		if (pids[i] <= 0)
			continue;
		MSHARE_ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		/* A sharer's exit status: 0, or the step that failed */
		MSHARE_ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) :
				 128 + WTERMSIG(status), 0);
	}
	printf("    %s: %d of %d pages written to swap by the page-out\n",
	       shm_kind_name(c->target.kind), (int)c->counts->swapped_out,
	       NPAGES);
	MSHARE_ASSERT_EQ(done, (long)(NPAGES * PAGE));
	MSHARE_ASSERT_EQ(c->counts->swapped_out, NPAGES);
	/* A region's share of each sharer; shmem's swap is no one's */
	want_pss = c->target.kind == SHM_REGION ?
		   KB(NPAGES) / SWAP_PSS_SHARERS : 0;
	for (i = 0; i < SWAP_PSS_SHARERS; i++) {
		const struct swap_view *v = &c->counts->view[i];

		printf("    %s sharer %d of %d: smaps Swap %ld kB, SwapPss %ld kB\n",
		       shm_kind_name(c->target.kind), i + 1, SWAP_PSS_SHARERS,
		       v->swap_kb, v->swap_pss_kb);
		MSHARE_ASSERT_EQ(v->swap_kb, KB(NPAGES));
		MSHARE_ASSERT_EQ(v->swap_pss_kb, want_pss);
		sum_pss += v->swap_pss_kb;
	}
	printf("    %s: sum of SwapPss %ld kB, %ld kB on swap\n",
	       shm_kind_name(c->target.kind), sum_pss, KB(NPAGES));
	case_end(c);
}

SHM_TEST_PAIR(struct swap_case, swap_pss_2_sharers, run_swap_pss_case,
	      SWAP_PSS_ADDR(0), SWAP_PSS_ADDR(1))

static const struct harness_test mshare_swap_tests[] = {
	{ "pageout_then_other_sharers_region",
	  pageout_then_other_sharers_region },
	{ "pageout_then_other_sharers_memfd",
	  pageout_then_other_sharers_memfd },
	{ "process_madvise_pageout_region", process_madvise_pageout_region },
	{ "process_madvise_pageout_memfd", process_madvise_pageout_memfd },
	{ "swap_pss_2_sharers_region", swap_pss_2_sharers_region },
	{ "swap_pss_2_sharers_memfd", swap_pss_2_sharers_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_swap_suite, .name = "mshare_swap",
	      .tests = mshare_swap_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = swap_disk_required);
