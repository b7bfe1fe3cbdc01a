// SPDX-License-Identifier: GPL-2.0
/*
 * A sharer over its memory cgroup's memory.max with swap on, against a
 * MAP_SHARED memfd at the same address: the cgroup's reclaim writes the
 * pages past the limit to swap instead of killing the sharer, and every
 * page reads back as it was written.
 *
 * Without swap (mshare_accounting/sharer_memory_max_*) the cgroup's OOM
 * killer stops such a sharer.  Here the same limit has swap to reclaim
 * to: the swap disk of the runner, which the suite turns on and off
 * itself (tests/swap_disk.c), so that no other test runs with swap.  A
 * region's pages are anonymous pages of the region's mm, charged to the
 * faulting sharer's cgroup (mm-patches 0054); reclaim finds them on that
 * cgroup's LRU and unmaps them through the region's mm.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "memcg_util.h"
#include "mshare_util.h"
#include "shm_target.h"
#include "swap_disk.h"

#define SWAPACCT_ADDR(slot)	MSHARE_ADDR(170 + (slot))
#define CHILD_TIMEOUT		60
#define MIB			(1UL << 20)
/* The cgroup's memory.max, and what its sharer writes: 32 MiB must go out */
#define LIMIT_BYTES		(16 * MIB)
#define FILL_BYTES		(48 * MIB)

/* What the sharer read back, in memory shared with the test */
struct readback {
	unsigned long wrong;		/* pages that held the wrong word */
	unsigned long first_wrong;	/* the offset of the first, if any */
};

struct swap_acct_case {
	struct shm_target target;
	struct mshare_report *report;
	char cg[64];
	struct readback *readback;
};

/*
 * Into the limited cgroup, map, write one word per page over FILL_BYTES,
 * then read every page back: the first pages written are the ones the
 * cgroup's reclaim sent to swap, so the reads fault them back in (and send
 * others out).
 */
static int overfilling_sharer(void *arg)
{
	struct swap_acct_case *c = arg;
	struct mshare_report *r = c->report;
	struct readback *rb = c->readback;
	unsigned long *p, off;

	mshare_report_step(r, "enter the cgroup");
	if (cg_enter(c->cg))
		return mshare_report_fail(r, errno);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "fill");
	for (off = PAGE; off < PAGE + FILL_BYTES; off += PAGE)
		p[off / sizeof(long)] = mshare_pattern(off, 1);
	mshare_report_step(r, "read back");
	for (off = PAGE; off < PAGE + FILL_BYTES; off += PAGE) {
		if (p[off / sizeof(long)] == mshare_pattern(off, 1))
			continue;
		if (!rb->wrong++)
			rb->first_wrong = off;
	}
	if (rb->wrong)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/*
 * memory.max LIMIT_BYTES, memory.swap.max unlimited, and a sharer that
 * writes FILL_BYTES and reads them back.  For a memfd, shmem's pages go to
 * swap: the sharer survives with its data, nothing is OOM-killed,
 * memory.current never passed the limit (memory.peak), and what is not in
 * memory is in swap (memory.swap.current).  A region must do the same.
 */
static void run_memory_max_with_swap(struct swap_acct_case *c)
{
	struct harness_child_result res;
	long current, peak, swapped, kills, max_events, anon, shmem;
	long pswpout, ms;
	double start;
	char limit[32];

	snprintf(c->cg, sizeof(c->cg), "acctswap_%s", c->target.name);
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	c->readback = mmap(NULL, sizeof(*c->readback), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->readback != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(cg_make(c->cg), 0);
	snprintf(limit, sizeof(limit), "%lu", LIMIT_BYTES);
	CU_ASSERT_EQUAL_FATAL(cg_write(c->cg, "memory.max", limit), 0);
	CU_ASSERT_EQUAL_FATAL(cg_write(c->cg, "memory.swap.max", "max"), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);

	harness_vm_stat_refresh();
	pswpout = harness_vmstat("pswpout");
	start = harness_now_s();
	CU_ASSERT_EQUAL(harness_run_child_timeout(overfilling_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	ms = (harness_now_s() - start) * 1e3;
	harness_vm_stat_refresh();
	pswpout = harness_vmstat("pswpout") - pswpout;
	current = cg_read_long(c->cg, "memory.current");
	peak = cg_read_long(c->cg, "memory.peak");
	swapped = cg_read_long(c->cg, "memory.swap.current");
	kills = cg_read_key(c->cg, "memory.events", "oom_kill");
	max_events = cg_read_key(c->cg, "memory.events", "max");
	anon = cg_read_key(c->cg, "memory.stat", "anon");
	shmem = cg_read_key(c->cg, "memory.stat", "shmem");
	printf("    %s: sharer ended with %ld (want %d: exit 0) at step '%s', %lu of %lu pages wrong (first at +%#lx); memory.current %ld kB (anon %ld kB, shmem %ld kB), memory.peak %ld kB, memory.swap.current %ld kB for %lu kB written under memory.max %lu kB; events max %ld, oom_kill %ld; pswpout %ld; %ld ms\n",
	       shm_kind_name(c->target.kind), shm_child_outcome(&res),
	       SHM_CHILD_EXIT, c->report->step, c->readback->wrong,
	       FILL_BYTES / PAGE, c->readback->first_wrong, current >> 10,
	       anon >> 10, shmem >> 10, peak >> 10, swapped >> 10,
	       FILL_BYTES >> 10, LIMIT_BYTES >> 10, max_events, kills,
	       pswpout, ms);
	/* It survived, and every page read back what it wrote */
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	MSHARE_ASSERT_EQ(c->readback->wrong, 0);
	MSHARE_ASSERT_EQ(kills, 0);
	/* The limit held all along, and reclaim is what held it */
	CU_ASSERT(peak > 0 && peak <= (long)LIMIT_BYTES);
	CU_ASSERT(current > 0 && current <= (long)LIMIT_BYTES);
	CU_ASSERT(max_events > 0);
	/* The pages stay (the file keeps them): those not in memory are in swap */
	CU_ASSERT(swapped > 0);
	CU_ASSERT(current + swapped >= (long)FILL_BYTES);

	start = harness_now_s();
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	printf("    %s: freed in %.0f ms\n", shm_kind_name(c->target.kind),
	       (harness_now_s() - start) * 1e3);
	cg_remove(c->cg);
	munmap(c->readback, sizeof(*c->readback));
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct swap_acct_case, memory_max_with_swap,
	      run_memory_max_with_swap, SWAPACCT_ADDR(0), SWAPACCT_ADDR(1))

static const struct harness_test mshare_accounting_swap_tests[] = {
	{ "memory_max_with_swap_region", memory_max_with_swap_region },
	{ "memory_max_with_swap_memfd", memory_max_with_swap_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_accounting_swap_suite, .name = "mshare_accounting_swap",
	      .tests = mshare_accounting_swap_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = memcg_and_swap_required);
