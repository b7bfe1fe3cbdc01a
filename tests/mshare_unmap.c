// SPDX-License-Identifier: GPL-2.0
/*
 * What a process has at a region's address after it unmapped the region,
 * or after it unlinked the region's file.
 *
 * The faithful port left a process's PGD entries pointing at the region's
 * page tables after munmap() and exit: an anonymous mapping made later at
 * the same address walked into the region's tables (on UML the process
 * then faulted for ever), and after the region was freed the entries
 * pointed into freed page tables.  Its unlink() called vm_munmap() of the
 * region's range in the address space of whichever process unlinked,
 * taking away that process's own mapping there, region or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define REUSE_ADDR		MSHARE_ADDR(33)
#define REUSE_FREED_ADDR	MSHARE_ADDR(34)
#define UNLINK_OTHER_ADDR	MSHARE_ADDR(35)
#define UNLINK_MAPPER_ADDR	MSHARE_ADDR(36)
#define CHILD_TIMEOUT		20
#define ANON_LEN		(2UL << 20)
#define ANON_VALUE		0x0123456789abcdefUL

struct unmap_run {
	const char *name;
	struct mshare_report *report;
};

static volatile unsigned long *map_region(const char *name,
					  struct mshare_report *r)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	mshare_report_step(r, "open and map the region");
	mshare_path(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		mshare_report_fail(r, errno);
		return NULL;
	}
	if (mshare_read_info(fd, &info) || !info.start) {
		mshare_report_fail(r, MSHARE_ERR_VALUE);
		close(fd);
		return NULL;
	}
	p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		mshare_report_fail(r, errno);
		return NULL;
	}
	return p;
}

/* Anonymous memory of our own at @addr: zeros, then what we write. */
static int map_anon_and_check(void *addr, struct mshare_report *r)
{
	volatile unsigned long *q;

	mshare_report_step(r, "mmap anonymous memory there");
	q = mmap(addr, ANON_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (q == MAP_FAILED)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read zeros from the new mapping");
	if (q[0] != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "write to the new mapping");
	q[0] = ANON_VALUE;
	if (q[0] != ANON_VALUE)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return 0;
}

/* Map, read (the first fault links the PGD entry), unmap, map anon there. */
static int reuse_child(void *arg)
{
	struct unmap_run *run = arg;
	struct mshare_report *r = run->report;
	volatile unsigned long *p = map_region(run->name, r);

	if (!p)
		return 1;
	mshare_report_step(r, "read the region");
	if (p[0] != mshare_pattern(0, 3))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "munmap the region");
	if (munmap((void *)p, mshare_unit()))
		return mshare_report_fail(r, errno);
	if (map_anon_and_check((void *)p, r))
		return 1;
	return mshare_report_done(r);
}

static int start_creator(struct mshare_agent *a, const char *name,
			 unsigned long addr)
{
	int fd = mshare_create(name);

	if (fd < 0)
		return fd;
	close(fd);
	if (mshare_agent_start(a, name, addr, 3) ||
	    mshare_agent_do(a, AGENT_MAP_CREATE, mshare_unit()) ||
	    mshare_agent_do(a, AGENT_WRITE, 0))
		return -1;
	return 0;
}

/*
 * The region lives on in its creator; a process that unmapped it gets
 * fresh memory at the same address, and the region does not see it.
 */
static void test_anon_after_unmap_is_fresh(void)
{
	struct unmap_run run = { .name = "unmap_reuse" };
	struct harness_child_result res;
	struct mshare_agent creator;

	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	CU_ASSERT_EQUAL_FATAL(start_creator(&creator, run.name, REUSE_ADDR),
			      0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reuse_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, NULL, 0);
	/* The anonymous write did not land in the region's page. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink(run.name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(run.name));
	mshare_report_free(run.report);
}

/* Unmap, wait until the region (and its page tables) are freed, reuse. */
static int reuse_after_free_child(void *arg)
{
	struct unmap_run *run = arg;
	struct mshare_report *r = run->report;
	volatile unsigned long *p = map_region(run->name, r);

	if (!p)
		return 1;
	mshare_report_step(r, "write the region");
	p[0] = mshare_pattern(0, 3);
	mshare_report_step(r, "unlink and munmap the region");
	if (mshare_unlink(run->name) || munmap((void *)p, mshare_unit()))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "wait for the region to be freed");
	if (!mshare_dbg_wait_gone(run->name))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	if (map_anon_and_check((void *)p, r))
		return 1;
	return mshare_report_done(r);
}

static void test_anon_after_region_freed_is_fresh(void)
{
	struct unmap_run run = { .name = "unmap_freed" };
	struct harness_child_result res;
	struct mshare_agent creator;

	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	CU_ASSERT_EQUAL_FATAL(start_creator(&creator, run.name,
					    REUSE_FREED_ADDR), 0);
	/* The child is to be the last user. */
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reuse_after_free_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, NULL, 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(run.name));
	mshare_report_free(run.report);
}

/*
 * A process that has its own anonymous memory at the region's address,
 * and never mapped the region, unlinks the region: its memory stays.
 */
static int unlink_other_child(void *arg)
{
	struct unmap_run *run = arg;
	struct mshare_report *r = run->report;
	volatile unsigned long *q;

	if (map_anon_and_check((void *)UNLINK_OTHER_ADDR, r))
		return 1;
	q = (volatile unsigned long *)UNLINK_OTHER_ADDR;
	mshare_report_step(r, "unlink the region");
	if (mshare_unlink(run->name))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read own memory after the unlink");
	if (q[0] != ANON_VALUE)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void test_unlink_leaves_unlinker_memory(void)
{
	struct unmap_run run = { .name = "unmap_unlink_other" };
	struct harness_child_result res;
	struct mshare_agent creator;

	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	CU_ASSERT_EQUAL_FATAL(start_creator(&creator, run.name,
					    UNLINK_OTHER_ADDR), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(unlink_other_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, NULL, 0);
	/* Unlinked, still mapped by the creator: file + creator, deleted. */
	CU_ASSERT_EQUAL(mshare_dbg_refcount(run.name), 2);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(run.name));
	mshare_report_free(run.report);
}

/* A process unlinks the region it maps and goes on using it. */
static int unlink_mapper_child(void *arg)
{
	struct unmap_run *run = arg;
	struct mshare_report *r = run->report;
	volatile unsigned long *p = map_region(run->name, r);

	if (!p)
		return 1;
	mshare_report_step(r, "unlink the region");
	if (mshare_unlink(run->name))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read the region after the unlink");
	if (p[0] != mshare_pattern(0, 3))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "write the region after the unlink");
	p[PAGE / sizeof(long)] = mshare_pattern(PAGE, 3);
	return mshare_report_done(r);
}

static void test_unlink_leaves_mapping(void)
{
	struct unmap_run run = { .name = "unmap_unlink_mapper" };
	struct harness_child_result res;
	struct mshare_agent creator;

	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	CU_ASSERT_EQUAL_FATAL(start_creator(&creator, run.name,
					    UNLINK_MAPPER_ADDR), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(unlink_mapper_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, NULL, 0);
	/* What the child wrote after the unlink is in the region. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, PAGE), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(run.name));
	mshare_report_free(run.report);
}

static const struct harness_test mshare_unmap_tests[] = {
	{ "anon_after_unmap_is_fresh", test_anon_after_unmap_is_fresh },
	{ "anon_after_region_freed_is_fresh",
	  test_anon_after_region_freed_is_fresh },
	{ "unlink_leaves_unlinker_memory",
	  test_unlink_leaves_unlinker_memory },
	{ "unlink_leaves_mapping", test_unlink_leaves_mapping },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_unmap_suite, .name = "mshare_unmap",
	      .tests = mshare_unmap_tests,
	      .requires = harness_requires_msharefs);
