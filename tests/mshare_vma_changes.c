// SPDX-License-Identifier: GPL-2.0
/*
 * A process's vma of a region maps the region's page tables whole, so it
 * cannot be split or moved: munmap() of a part and mremap() of it fail
 * with EINVAL, and the region stays as it was for every process.
 * (mprotect() changes the region itself, for every sharer, without
 * splitting the vma: mshare_mprotect.c.)
 *
 * In the faithful port these calls succeeded.  A split copied the vma
 * without a region reference (refcount_t underflow when the parts went),
 * a partial munmap() removed the vma part while leaving the pages
 * reachable, and mremap() moved the region's PTEs out of the shared page
 * tables into the caller's own, or grew the vma beyond the region.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define CHANGE_ADDR(slot)	MSHARE_ADDR(24 + (slot))
/* A free unit for mremap() to move to, away from every test's region. */
#define MOVE_TARGET		MSHARE_ADDR(39)
#define CHILD_TIMEOUT		30

struct vma_change {
	const char *name;	/* region name, and what the child does */
	unsigned long slot;
	int (*change)(char *p);	/* 0, or -1 and errno */
};

static int munmap_one_page(char *p)
{
	return munmap(p + 16 * PAGE, PAGE);
}

static int munmap_first_half(char *p)
{
	return munmap(p, mshare_unit() / 2);
}

static int mremap_grow(char *p)
{
	unsigned long unit = mshare_unit();

	return mremap(p, unit, 2 * unit, 0) == MAP_FAILED ? -1 : 0;
}

static int mremap_shrink(char *p)
{
	unsigned long unit = mshare_unit();

	return mremap(p, unit, unit / 2, 0) == MAP_FAILED ? -1 : 0;
}

static int mremap_move(char *p)
{
	void *q = mremap(p, mshare_unit(), mshare_unit(),
			 MREMAP_MAYMOVE | MREMAP_FIXED, (void *)MOVE_TARGET);

	return q == MAP_FAILED ? -1 : 0;
}

struct change_run {
	const struct vma_change *c;
	struct mshare_report *report;
};

/*
 * Map the region, try the change, and stop: the change is expected to
 * fail.  If it succeeds, touch the region afterwards as a user would.
 */
static int changing_child(void *arg)
{
	struct change_run *run = arg;
	struct mshare_report *r = run->report;
	struct mshare_region_info info;
	char path[256];
	char *p;
	int fd;

	mshare_report_step(r, "open and map");
	mshare_path(path, sizeof(path), run->c->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r, errno);
	if (mshare_read_info(fd, &info) || !info.start)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return mshare_report_fail(r, errno);

	mshare_report_step(r, run->c->name);
	if (run->c->change(p))
		return mshare_report_fail(r, errno);

	mshare_report_step(r, "read the region after the change");
	if (*(volatile unsigned long *)p != mshare_pattern(0, 5))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_change(const struct vma_change *c)
{
	unsigned long addr = CHANGE_ADDR(c->slot);
	struct harness_child_result res;
	struct mshare_agent creator, other;
	struct change_run run = { .c = c };
	int fd;

	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	fd = mshare_create(c->name);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, c->name, addr, 5),
			      0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 16 * PAGE), 0);

	CU_ASSERT_EQUAL(harness_run_child_timeout(changing_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, c->name, EINVAL);

	/* The child is gone: file + creator; the data is whole for both. */
	CU_ASSERT_EQUAL(mshare_dbg_refcount(c->name), 2);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 16 * PAGE), 0);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&other, c->name, addr, 5), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_MAP_FOLLOW, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_CHECK, 16 * PAGE), 0);

	CU_ASSERT_EQUAL(mshare_agent_stop(&other), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_dbg_refcount(c->name), 1);
	CU_ASSERT_EQUAL(mshare_unlink(c->name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(c->name));
	mshare_report_free(run.report);
}

#define VMA_CHANGE_TEST(fn, n)						\
static void test_##fn(void)						\
{									\
	static const struct vma_change c = {				\
		.name = #fn, .slot = (n), .change = fn,			\
	};								\
	run_change(&c);							\
}

VMA_CHANGE_TEST(munmap_one_page, 2)
VMA_CHANGE_TEST(munmap_first_half, 3)
VMA_CHANGE_TEST(mremap_grow, 4)
VMA_CHANGE_TEST(mremap_shrink, 6)
VMA_CHANGE_TEST(mremap_move, 8)

static const struct harness_test mshare_vma_changes_tests[] = {
	{ "munmap_one_page", test_munmap_one_page },
	{ "munmap_first_half", test_munmap_first_half },
	{ "mremap_grow", test_mremap_grow },
	{ "mremap_shrink", test_mremap_shrink },
	{ "mremap_move", test_mremap_move },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_vma_changes_suite, .name = "mshare_vma_changes",
	      .tests = mshare_vma_changes_tests,
	      .requires = harness_requires_msharefs);
