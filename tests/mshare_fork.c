// SPDX-License-Identifier: GPL-2.0
/*
 * fork() of a process that maps a region: the child inherits the vma, so
 * it must hold a region reference of its own.  The faithful port had no
 * vm_ops->open, so the child's copy took none while its exit dropped one:
 * the count ran one short per fork, and the region was freed under its
 * other users or the count underflowed ("refcount_t: underflow").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_util.h"

#define FORK_ADDR	MSHARE_ADDR(20)
#define FORK_EXIT_ADDR	MSHARE_ADDR(21)
#define CHILD_TIMEOUT	30

struct fork_case {
	const char *name;
	struct mshare_report *report;
	/* Refcount the forking child expects once its own child is gone. */
	long refcount_after_grandchild;
	/* Unmap in the parent before the grandchild reads: it holds on. */
	bool parent_unmaps_first;
};

/* Map the region where read() of its file says, read-write. */
static unsigned long *map_region(const char *name, struct mshare_report *r)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	mshare_report_step(r, "open");
	mshare_path(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		mshare_report_fail(r, errno);
		return NULL;
	}
	mshare_report_step(r, "read info");
	if (mshare_read_info(fd, &info) || !info.start) {
		mshare_report_fail(r, MSHARE_ERR_VALUE);
		close(fd);
		return NULL;
	}
	mshare_report_step(r, "mmap");
	p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		mshare_report_fail(r, errno);
		return NULL;
	}
	return p;
}

/* In the grandchild: the creator's data is there, and ours goes in. */
static int grandchild_main(unsigned long *p)
{
	if (p[0] != mshare_pattern(0, 1))
		return 2;
	p[PAGE / sizeof(long)] = mshare_pattern(PAGE, 2);
	return 0;
}

static int fork_and_wait(struct fork_case *c, unsigned long *p)
{
	struct mshare_report *r = c->report;
	int wstatus;
	pid_t pid;

	mshare_report_step(r, "fork");
	pid = fork();
	if (pid < 0)
		return mshare_report_fail(r, errno);
	if (pid == 0) {
		if (c->parent_unmaps_first)
			usleep(200000);	/* let the parent unmap first */
		_exit(grandchild_main(p));
	}
	if (c->parent_unmaps_first) {
		mshare_report_step(r, "munmap before the child reads");
		if (munmap(p, mshare_unit()))
			return mshare_report_fail(r, errno);
	}
	mshare_report_step(r, "wait for the forked child");
	if (waitpid(pid, &wstatus, 0) != pid)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "forked child saw and wrote the data");
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return 0;
}

/*
 * Map the region, fork, let the forked child check and write, then check
 * what it wrote and that its exit gave back only its own reference.
 */
static int forking_child(void *arg)
{
	struct fork_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p = map_region(c->name, r);

	if (!p)
		return 1;
	if (fork_and_wait(c, p))
		return 1;
	if (!c->parent_unmaps_first) {
		mshare_report_step(r, "read what the forked child wrote");
		if (p[PAGE / sizeof(long)] != mshare_pattern(PAGE, 2))
			return mshare_report_fail(r, MSHARE_ERR_VALUE);
	}
	mshare_report_step(r, "refcount after the forked child exited");
	if (mshare_dbg_refcount(c->name) != c->refcount_after_grandchild)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* A creator agent maps the region and writes pattern(0, 1) at offset 0. */
static int start_creator(struct mshare_agent *a, const char *name,
			 unsigned long addr)
{
	int fd = mshare_create(name);

	if (fd < 0)
		return fd;
	close(fd);
	if (mshare_agent_start(a, name, addr, 1))
		return -1;
	if (mshare_agent_do(a, AGENT_MAP_CREATE, mshare_unit()) ||
	    mshare_agent_do(a, AGENT_WRITE, 0))
		return -1;
	return 0;
}

static void run_fork_case(struct fork_case *c, unsigned long addr)
{
	struct harness_child_result res;
	struct mshare_agent creator;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(start_creator(&creator, c->name, addr), 0);
	/* file + creator */
	CU_ASSERT_EQUAL(mshare_dbg_refcount(c->name), 2);

	CU_ASSERT_EQUAL(harness_run_child_timeout(forking_child, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);

	/* Both children gone: file + creator again, and the data is whole. */
	CU_ASSERT_EQUAL(mshare_dbg_refcount(c->name), 2);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_dbg_refcount(c->name), 1);
	CU_ASSERT_EQUAL(mshare_unlink(c->name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(c->name));
	mshare_report_free(c->report);
}

/* The forked child shares the data and holds its own reference. */
static void test_child_inherits_mapping(void)
{
	struct fork_case c = {
		.name = "fork_inherit",
		/* file + creator + the forking child */
		.refcount_after_grandchild = 3,
	};

	run_fork_case(&c, FORK_ADDR);
}

/*
 * The parent unmaps while the forked child still has the region: the
 * child's reference keeps it, and the child reads and writes it.
 */
static void test_child_outlives_parent_mapping(void)
{
	struct fork_case c = {
		.name = "fork_outlive",
		/* file + creator: the forking child unmapped */
		.refcount_after_grandchild = 2,
		.parent_unmaps_first = true,
	};

	run_fork_case(&c, FORK_EXIT_ADDR);
}

static const struct harness_test mshare_fork_tests[] = {
	{ "child_inherits_mapping", test_child_inherits_mapping },
	{ "child_outlives_parent_mapping", test_child_outlives_parent_mapping },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_fork_suite, .name = "mshare_fork",
	      .tests = mshare_fork_tests,
	      .requires = harness_requires_msharefs);
