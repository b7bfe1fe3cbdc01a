// SPDX-License-Identifier: GPL-2.0
/*
 * mlock() and a region: a documented difference from a memfd mapping.
 *
 * A region's pages are mapped by the region's own vma and shared by every
 * process that maps it; one sharer's mlock() can neither lock them for
 * the others nor undo what it locked when it unmaps or exits.  So, as for
 * other memory the kernel cannot lock (VM_IO, DAX, VM_DROPPABLE), mlock(),
 * mlock2(), mlockall() and MCL_FUTURE succeed on a region without locking
 * it: no page is PG_mlocked, VmLck does not count it.  On a memfd mapping
 * the same calls lock the pages.  A region created under MCL_FUTURE is
 * not locked either, for any sharer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define MLOCK_ADDR(slot)	MSHARE_ADDR(77 + (slot))
#define CHILD_TIMEOUT		30
#define NPAGES			16
/* Away from offset 0, which shm_target_setup() wrote */
#define RANGE_OFF		(2 * PT_SPAN)
#define KPF_MLOCKED		33	/* include/uapi/linux/kernel-page-flags.h */

struct mlock_case {
	struct shm_target target;
	struct mshare_report *report;
	/* What the sharer is to see after mlock() of the written range */
	long want_mlocked_pages;
	long want_vmlck_kb;
};

/* How many of @n pages at @p are PG_mlocked (pagemap, kpageflags), or -1 */
static long count_mlocked(const void *p, long n)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	uint64_t ent, flags;
	long i, count = -1;

	if (pm < 0 || kf < 0)
		goto out;
	count = 0;
	for (i = 0; i < n; i++) {
		if (harness_pagemap_entry(pm, (uintptr_t)p + i * PAGE, &ent) ||
		    !(ent & PM_PRESENT) ||
		    pread(kf, &flags, sizeof(flags),
			  (ent & PM_PFN_MASK) * sizeof(flags)) != sizeof(flags)) {
			count = -1;
			break;
		}
		count += !!(flags & (1ULL << KPF_MLOCKED));
	}
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return count;
}

static void fill(unsigned long *p, long n)
{
	long i;

	for (i = 0; i < n; i++)
		p[i * PAGE / sizeof(long)] = i + 1;
}

/* Map the memory and write the range: the range, or NULL (reported) */
static unsigned long *map_and_fill(struct mlock_case *c)
{
	unsigned long *p = shm_target_map_step(&c->target,
					       PROT_READ | PROT_WRITE,
					       c->report, "map and write");
	unsigned long *range;

	if (!p)
		return NULL;
	range = p + RANGE_OFF / sizeof(long);
	fill(range, NPAGES);
	return range;
}

/* Write the range, mlock() it, and look at what got locked */
static int locking_sharer(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *range = map_and_fill(c);

	if (!range)
		return 1;
	mshare_report_step(r, "mlock");
	if (mlock(range, NPAGES * PAGE))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "pages PG_mlocked");
	if (count_mlocked(range, NPAGES) != c->want_mlocked_pages)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "VmLck");
	if (harness_proc_status_kb("VmLck") != c->want_vmlck_kb)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "munlock");
	if (munlock(range, NPAGES * PAGE))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "pages PG_mlocked after munlock");
	if (count_mlocked(range, NPAGES) != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_mlock_case(struct mlock_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(locking_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

/* The difference: a region is not locked, a memfd mapping is. */
static void mlock_region_not_locked(void)
{
	struct mlock_case c = {
		.target = { .kind = SHM_REGION, .name = "mlock_region",
			    .addr = MLOCK_ADDR(0) },
		.want_mlocked_pages = 0,
		.want_vmlck_kb = 0,
	};

	run_mlock_case(&c);
}

static void mlock_memfd_locked(void)
{
	struct mlock_case c = {
		.target = { .kind = SHM_MEMFD, .name = "mlock_memfd",
			    .addr = MLOCK_ADDR(1) },
		.want_mlocked_pages = NPAGES,
		.want_vmlck_kb = NPAGES * PAGE / 1024,
	};

	run_mlock_case(&c);
}

/* The creator maps the region under MCL_FUTURE, then gives it up. */
static int mcl_future_creator(void *arg)
{
	const struct shm_target *t = arg;
	unsigned long *p;

	if (mlockall(MCL_FUTURE))
		return 1;
	p = shm_target_map(t, PROT_READ | PROT_WRITE);
	if (!p)
		return 2;
	p[0] = 1;
	return munlockall() ? 3 : 0;
}

/* Another sharer's new pages: not locked */
static int later_sharer(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *range = map_and_fill(c);

	if (!range)
		return 1;
	mshare_report_step(r, "pages PG_mlocked");
	if (count_mlocked(range, NPAGES) != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void mcl_future_creator_region(void)
{
	struct mlock_case c = {
		.target = { .kind = SHM_REGION, .name = "mlock_future",
			    .addr = MLOCK_ADDR(2) },
	};
	struct harness_child_result res;
	int fd;

	c.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.report);
	fd = mshare_create(c.target.name);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mcl_future_creator,
						 &c.target, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(later_sharer, &c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c.report, NULL, 0);
	CU_ASSERT_EQUAL(mshare_unlink(c.target.name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(c.target.name));
	mshare_report_free(c.report);
}

/*
 * mlockall(MCL_CURRENT) of a process that maps a region, and a mapping
 * with MAP_POPULATE: neither populates the region, which is never locked.
 * A populate of the sharer's vma faulted in the whole region: the zero
 * page at every address, a PTE table per 2 MiB (2 MiB of tables on UML;
 * 1 GiB of them for a 512 GiB region on x86-64, where the child never
 * got to the end).  No memfd control: a memfd mapping would be locked,
 * a unit of it, which the test kernel's memory does not hold.
 */
static int populating_sharer(void *arg)
{
	const struct shm_target *t = arg;
	char path[256];
	int fd;

	if (!shm_target_map(t, PROT_READ | PROT_WRITE) ||
	    mlockall(MCL_CURRENT) || munlockall())
		return 1;
	mshare_path(path, sizeof(path), t->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || mmap((void *)t->addr, mshare_unit(),
			   PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0) ==
		      MAP_FAILED)
		return 2;
	return 0;
}

static void populate_region(void)
{
	struct shm_target t = { .kind = SHM_REGION, .name = "mlock_populate",
				.addr = MLOCK_ADDR(3) };
	struct harness_child_result res;
	struct mshare_dbg before, after;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&t), 0);
	CU_ASSERT_EQUAL_FATAL(mshare_dbg_find(t.name, &before), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(populating_sharer, &t,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL_FATAL(mshare_dbg_find(t.name, &after), 0);
	printf("\n    region: %lu kB page tables before, %lu kB after\n",
	       before.pgtables_bytes / 1024, after.pgtables_bytes / 1024);
	MSHARE_ASSERT_EQ(after.pgtables_bytes, before.pgtables_bytes);
	CU_ASSERT_EQUAL(shm_target_teardown(&t), 0);
}

static const struct harness_test mshare_mlock_tests[] = {
	{ "mlock_region_not_locked", mlock_region_not_locked },
	{ "mlock_memfd_locked", mlock_memfd_locked },
	{ "mcl_future_creator_region", mcl_future_creator_region },
	{ "populate_region", populate_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_mlock_suite, .name = "mshare_mlock",
	      .tests = mshare_mlock_tests,
	      .requires = harness_requires_msharefs);
