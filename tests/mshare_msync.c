// SPDX-License-Identifier: GPL-2.0
/*
 * msync(MS_SYNC) of a region's mapping, and fsync()/fdatasync() of its
 * file, succeed as on a MAP_SHARED memfd: there is nothing behind either
 * to write back, and a program that syncs its shared memory as it would
 * a file mapping must not stop there.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define MSYNC_ADDR(slot)	MSHARE_ADDR(14 + (slot))
#define CHILD_TIMEOUT		30

struct msync_case {
	struct shm_target target;
	struct mshare_report *report;
};

/* The fd that the mapping came from: the region's file, or the memfd */
static int target_fd(const struct shm_target *t)
{
	char path[256];

	if (t->kind == SHM_MEMFD)
		return dup(t->memfd);
	mshare_path(path, sizeof(path), t->name);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int syncing_sharer(void *arg)
{
	struct msync_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	int fd;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "map and write");
	if (!p)
		return 1;
	p[PAGE / sizeof(long)] = 2;
	mshare_report_step(r, "msync(MS_SYNC) of a page");
	if (msync(p + PAGE / sizeof(long), PAGE, MS_SYNC))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "msync(MS_ASYNC|MS_INVALIDATE)");
	if (msync(p, mshare_unit(), MS_ASYNC | MS_INVALIDATE))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "open");
	fd = target_fd(&c->target);
	if (fd < 0)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "fsync");
	if (fsync(fd))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "fdatasync");
	if (fdatasync(fd))
		return mshare_report_fail(r, errno);
	close(fd);
	mshare_report_step(r, "data after the syncs");
	if (p[0] != 1 || p[PAGE / sizeof(long)] != 2)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_msync_case(struct msync_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(syncing_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct msync_case, msync_and_fsync, run_msync_case,
	      MSYNC_ADDR(0), MSYNC_ADDR(1))

static const struct harness_test mshare_msync_tests[] = {
	{ "msync_and_fsync_region", msync_and_fsync_region },
	{ "msync_and_fsync_memfd", msync_and_fsync_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_msync_suite, .name = "mshare_msync",
	      .tests = mshare_msync_tests,
	      .requires = harness_requires_msharefs);
