// SPDX-License-Identifier: GPL-2.0
/*
 * Running out of memory in a region: a process fills a region larger than
 * memory.  The pages are charged to the region's mm, which has no task,
 * so the OOM killer cannot free them by killing their owner; it kills the
 * process that faults (its only candidate besides init), and because the
 * region was unlinked, that process's mapping was its last reference: the
 * region goes with it and the memory comes back.  No panic, no BUG.  The
 * control: a MAP_SHARED memfd whose descriptor is closed, filled the same
 * way (its pages are the victim's RssShmem).
 *
 * Both leave a window upstream's OOM killer does not see: exit_mmap()
 * sets MMF_OOM_SKIP once the victim's page tables are unmapped, but the
 * memory comes back only with the last fput() of the file, from the
 * victim's exit_task_work() (shmem_evict_inode(), mshare_evict_inode()).
 * An allocation in between that fails finds no victim left, and with no
 * other killable process, panics: seen once in 24 boots of the region
 * case (kthreadd forking a worker), none in 30 boots of both.
 *
 * Explicit-only: it needs a boot with little memory (uml/test.sh boots
 * mem=192M for it), and with the default memory it would take minutes.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define OOM_ADDR	MSHARE_ADDR(22)
#define OOM_TIMEOUT	300
/* Memory that must be free again afterwards: most of what was free. */
#define OOM_FREE_BACK_PCT	80

struct oom_case {
	struct mshare_report *r;
	bool memfd;		/* the control: a MAP_SHARED memfd */
};

/*
 * The memory, mapped at OOM_ADDR with no name or descriptor left: our
 * mapping is its last reference.  NULL after mshare_report_fail().
 */
static volatile char *map_nameless(struct oom_case *c)
{
	void *p;
	int fd;

	mshare_report_step(c->r, "create and map");
	fd = c->memfd ? memfd_create("oom_memfd", MFD_CLOEXEC) :
			mshare_create("oom_region");
	if (fd < 0) {
		mshare_report_fail(c->r, c->memfd ? errno : -fd);
		return NULL;
	}
	if (c->memfd && ftruncate(fd, mshare_unit())) {
		mshare_report_fail(c->r, errno);
		close(fd);
		return NULL;
	}
	p = mmap((void *)OOM_ADDR, mshare_unit(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		mshare_report_fail(c->r, errno);
		return NULL;
	}
	mshare_report_step(c->r, "unlink");
	if (!c->memfd && mshare_unlink("oom_region")) {
		mshare_report_fail(c->r, errno);
		return NULL;
	}
	return p;
}

/* Fill the memory page by page; only the OOM killer should stop us. */
static int filling_child(void *arg)
{
	struct oom_case *c = arg;
	struct mshare_report *r = c->r;
	volatile char *p = map_nameless(c);
	unsigned long off;

	if (!p)
		return 1;

	/*
	 * The whole region: on UML a GiB, more than the boot's memory; on
	 * x86-64 512 GiB, but the OOM kill comes at the memory's size all
	 * the same, so no more is touched than there is.
	 */
	mshare_report_step(r, "fill the region (want an OOM kill)");
	for (off = 0; off < mshare_unit(); off += PAGE)
		p[off] = 1;
	/* All of it fitted: the boot had too much memory for this test. */
	return mshare_report_fail(r, MSHARE_ERR_VALUE);
}

static void run_oom_case(struct oom_case *c)
{
	struct harness_child_result res;
	struct mshare_report *r = c->r = mshare_report_new();
	long kills_before, free_before, free_after = -1;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	kills_before = harness_vmstat("oom_kill");
	free_before = mshare_free_kb();
	printf("\n    free before: %ld kB\n", free_before);

	CU_ASSERT_EQUAL(harness_run_child_timeout(filling_child, c, OOM_TIMEOUT,
						 &res), 0);
	CU_ASSERT_FALSE(res.timed_out);
	CU_ASSERT_TRUE(res.signaled);
	CU_ASSERT_EQUAL(res.signo, SIGKILL);
	if (!res.signaled)
		printf("    child: exit %d in step \"%s\" (%s)\n", res.status,
		       r->step, mshare_errname(r->err));
	CU_ASSERT(harness_vmstat("oom_kill") > kills_before);

	/*
	 * The region's pages were freed with its last mapping, before the
	 * victim's exit completed (patch 0056): the OOM killer, which counts
	 * an exited victim's memory as free, was right to.
	 */
	if (!c->memfd)
		CU_ASSERT_TRUE(mshare_dbg_wait_gone("oom_region"));
	for (i = 0; i < 500; i++) {
		free_after = mshare_free_kb();
		if (free_after >= free_before * OOM_FREE_BACK_PCT / 100)
			break;
		usleep(10000);
	}
	printf("    free after: %ld kB; oom_kill %ld -> %ld\n", free_after,
	       kills_before, harness_vmstat("oom_kill"));
	CU_ASSERT(free_after >= free_before * OOM_FREE_BACK_PCT / 100);
	mshare_report_free(r);
}

static void test_region_fill_ends_in_oom_kill(void)
{
	struct oom_case c = { .memfd = false };

	run_oom_case(&c);
}

static void test_memfd_fill_ends_in_oom_kill(void)
{
	struct oom_case c = { .memfd = true };

	run_oom_case(&c);
}

static const struct harness_test mshare_oom_tests[] = {
	{ "region_fill_ends_in_oom_kill", test_region_fill_ends_in_oom_kill },
	{ "memfd_fill_ends_in_oom_kill", test_memfd_fill_ends_in_oom_kill },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_oom_suite, .name = "mshare_oom",
	      .tests = mshare_oom_tests,
	      .requires = harness_requires_msharefs,
	      .explicit_only = true);
