// SPDX-License-Identifier: GPL-2.0
/*
 * Another mapping put over a sharer's mapping of a region, against a
 * memfd mapping: mmap(MAP_FIXED) and mremap(MREMAP_MAYMOVE | MREMAP_FIXED)
 * of private anonymous memory onto all of it replace the sharer's mapping,
 * as they replace any mapping; the region stays, whole, for its other
 * sharers.  Onto a part, mmap(MAP_FIXED) would split the region's vma,
 * which never splits: EINVAL; mremap() of anonymous memory onto a part is
 * EINVAL as well (a part of a region becomes a shared file's only:
 * mshare_mremap_file.c).  The memfd mapping takes either over a part.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define REPLACE_ADDR(slot)	MSHARE_ADDR(220 + (slot))
#define CHILD_TIMEOUT		30
#define MARK			0x5a5a5a5aUL

enum replace_how { BY_MMAP, BY_MREMAP };

struct replace_case {
	struct shm_target target;
	enum replace_how how;
	struct mshare_report *report;
};

/*
 * Private anonymous memory of @len at @at (MAP_FIXED) or moved there
 * from where the kernel put it, holding MARK in its first word: the
 * address it ends at, or MAP_FAILED (errno).  The memory to move is
 * asked for just above @at: a hint there lets the kernel place a whole
 * unit of 5-level paging (256 TiB), which finds no room below the 128 TiB
 * where mmap() without a hint stays.
 */
static void *put_anon(enum replace_how how, void *at, unsigned long len)
{
	unsigned long *src;
	void *got;

	if (how == BY_MMAP) {
		got = mmap(at, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			   MAP_FIXED, -1, 0);
		if (got != MAP_FAILED)
			*(unsigned long *)got = MARK;
		return got;
	}
	src = mmap((char *)at + len, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (src == MAP_FAILED)
		return MAP_FAILED;
	*src = MARK;
	got = mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, at);
	if (got == MAP_FAILED)
		munmap(src, len);
	return got;
}

/*
 * Map the memory, put anonymous memory over a page of it (refused for a
 * region), then over all of it: the sharer reads the anonymous memory.
 */
static int replacing_sharer(void *arg)
{
	struct replace_case *c = arg;
	struct mshare_report *r = c->report;
	int want_err = c->target.kind == SHM_REGION ? EINVAL : 0;
	unsigned long len = shm_target_len(&c->target);
	volatile unsigned long *p;
	void *got;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "over one page");
	got = put_anon(c->how, (void *)(p + PAGE / sizeof(long)), PAGE);
	if ((got == MAP_FAILED ? errno : 0) != want_err)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "the memory after that");
	if (p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "over all of it");
	got = put_anon(c->how, (void *)p, len);
	if (got == MAP_FAILED)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read the anonymous memory");
	if (got != (void *)p || p[0] != MARK)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* Another sharer, later: the memory as the setup wrote it */
static int later_sharer(void *arg)
{
	struct replace_case *c = arg;
	struct mshare_report *r = c->report;
	volatile unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "read the setup's word");
	if (p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_child(struct replace_case *c, int (*fn)(void *))
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL(harness_run_child_timeout(fn, c, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
}

static void run_replace_case(struct replace_case *c)
{
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	run_child(c, replacing_sharer);
	/* The file's reference alone: the replaced mapping let go */
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(mshare_dbg_refcount(c->target.name), 1);
	run_child(c, later_sharer);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

static void run_by_mmap(struct replace_case *c)
{
	c->how = BY_MMAP;
	run_replace_case(c);
}

static void run_by_mremap(struct replace_case *c)
{
	c->how = BY_MREMAP;
	run_replace_case(c);
}

SHM_TEST_PAIR(struct replace_case, mmap_fixed_over, run_by_mmap,
	      REPLACE_ADDR(0), REPLACE_ADDR(1))
SHM_TEST_PAIR(struct replace_case, mremap_fixed_over, run_by_mremap,
	      REPLACE_ADDR(2), REPLACE_ADDR(3))

static const struct harness_test mshare_replace_tests[] = {
	{ "mmap_fixed_over_region", mmap_fixed_over_region },
	{ "mmap_fixed_over_memfd", mmap_fixed_over_memfd },
	{ "mremap_fixed_over_region", mremap_fixed_over_region },
	{ "mremap_fixed_over_memfd", mremap_fixed_over_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_replace_suite, .name = "mshare_replace",
	      .tests = mshare_replace_tests,
	      .requires = harness_requires_msharefs);
