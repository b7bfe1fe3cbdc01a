// SPDX-License-Identifier: GPL-2.0
/*
 * Races of sharers under preemption (CONFIG_PREEMPT: on UML's one CPU the
 * timer preempts a task anywhere outside a preempt-disabled section, also
 * in the middle of a fault or an mmap).  Stress tests: fixed rounds or a
 * fixed time, the iteration counts printed; the checks are the region's
 * data, its refcount afterwards, and no region left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "test_util.h"

#define FF_ROUNDS	12
#define FF_AGENTS	5
#define FF_LEN		(64 * PT_SPAN)
#define CHURN_CHILDREN	3
#define CHURN_SECONDS	3

/* Iteration counts and errors of the children, shared with the test. */
struct race_counts {
	long iterations[CHURN_CHILDREN + 1];
	long mapped[CHURN_CHILDREN + 1];
	int err[CHURN_CHILDREN + 1];
	char what[CHURN_CHILDREN + 1][48];
};

static struct race_counts *counts;

static int races_init(void)
{
	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return counts == MAP_FAILED ? -1 : 0;
}

static int races_cleanup(void)
{
	return munmap(counts, sizeof(*counts));
}

static void child_failed(int i, const char *what, int err)
{
	if (counts->err[i])
		return;
	counts->err[i] = err ? err : MSHARE_ERR_VALUE;
	snprintf(counts->what[i], sizeof(counts->what[i]), "%s", what);
}

/*
 * FF_AGENTS sharers of a new, untouched region write one word per 2 MiB
 * over the same 128 MiB at once: they fault the same missing page tables
 * of the region at the same time.  Every word must be there after.
 */
static void test_concurrent_first_faults(void)
{
	struct mshare_agent a[FF_AGENTS];
	unsigned int round, i;
	long faults = 0;
	int fd, ret;

	for (round = 0; round < FF_ROUNDS; round++) {
		fd = mshare_create("race_ff");
		MSHARE_ASSERT_EQ(fd >= 0, 1);
		if (fd < 0)
			return;
		close(fd);
		for (i = 0; i < FF_AGENTS; i++) {
			MSHARE_ASSERT_EQ(mshare_agent_start(&a[i], "race_ff",
					 MSHARE_ADDR(140), i), 0);
			MSHARE_ASSERT_EQ(mshare_agent_do(&a[i], i ?
					 AGENT_MAP_FOLLOW : AGENT_MAP_CREATE,
					 mshare_unit()), 0);
		}
		for (i = 0; i < FF_AGENTS; i++)
			mshare_agent_send(&a[i], AGENT_TOUCH, FF_LEN);
		for (i = 0; i < FF_AGENTS; i++)
			MSHARE_ASSERT_EQ(mshare_agent_reply(&a[i]), 0);
		faults += FF_AGENTS * (FF_LEN / PT_SPAN);
		for (i = 0; i < FF_AGENTS; i++) {
			ret = mshare_agent_do(&a[i], AGENT_CHECK_SPAN,
					      FF_LEN | (FF_AGENTS * 1UL << 40));
			MSHARE_ASSERT_EQ(ret, 0);
		}
		MSHARE_ASSERT_EQ(mshare_dbg_refcount("race_ff"), 1 + FF_AGENTS);
		for (i = 0; i < FF_AGENTS; i++)
			MSHARE_ASSERT_EQ(mshare_agent_stop(&a[i]), 0);
		MSHARE_ASSERT_ERRNO(mshare_unlink("race_ff"), 0);
		CU_ASSERT_TRUE(mshare_dbg_wait_gone("race_ff"));
	}
	printf("\nharness: races concurrent_first_faults: %u rounds, %d sharers, %ld first writes per 2 MiB\n",
	       round, FF_AGENTS, faults);
}

/* Map, check the creator's word, write one's own, unmap; for a while. */
static int churn_child(void *arg)
{
	int i = (int)(long)arg;
	unsigned long off = (unsigned long)(i + 1) * PT_SPAN;
	struct mshare_region_info info;
	double end = harness_now_s() + CHURN_SECONDS;
	volatile unsigned long *p;
	char path[256];
	int fd;

	mshare_path(path, sizeof(path), "race_churn");
	while (harness_now_s() < end) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 || mshare_read_info(fd, &info)) {
			child_failed(i, "open", errno);
			return 1;
		}
		p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			child_failed(i, "mmap", errno);
			return 1;
		}
		if (p[0] != mshare_pattern(0, 0)) {
			child_failed(i, "the creator's word", 0);
			return 1;
		}
		p[off / sizeof(long)] = mshare_pattern(off, i + 1);
		if (munmap((void *)p, info.size)) {
			child_failed(i, "munmap", errno);
			return 1;
		}
		counts->iterations[i]++;
	}
	return 0;
}

/*
 * CHURN_CHILDREN processes map and unmap a region over and over while
 * its creator keeps it mapped: the refcount must come back to 2 and each
 * child's last word be there.
 */
static void test_map_unmap_churn(void)
{
	struct harness_child_result res;
	struct mshare_agent creator;
	pid_t pid[CHURN_CHILDREN];
	long total = 0;
	int fd, i;

	memset(counts, 0, sizeof(*counts));
	fd = mshare_create("race_churn");
	MSHARE_ASSERT_EQ(fd >= 0, 1);
	if (fd < 0)
		return;
	close(fd);
	MSHARE_ASSERT_EQ(mshare_agent_start(&creator, "race_churn",
					    MSHARE_ADDR(141), 0), 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	for (i = 0; i < CHURN_CHILDREN; i++)
		pid[i] = harness_start_child(churn_child, (void *)(long)i);
	for (i = 0; i < CHURN_CHILDREN; i++) {
		if (pid[i] < 0 ||
		    harness_wait_child_timeout(pid[i], 60, &res)) {
			CU_FAIL("churn child");
			continue;
		}
		if (counts->err[i])
			printf("harness: races churn child %d: %s: %s\n", i,
			       counts->what[i],
			       mshare_errname(counts->err[i]));
		CU_ASSERT_TRUE(res.exited && res.status == 0);
		total += counts->iterations[i];
	}
	MSHARE_ASSERT_EQ(mshare_dbg_refcount("race_churn"), 2);
	/* Each child's last word, read by a new sharer of its tag. */
	for (i = 0; i < CHURN_CHILDREN && counts->iterations[i]; i++) {
		unsigned long off = (unsigned long)(i + 1) * PT_SPAN;
		struct mshare_agent check;

		MSHARE_ASSERT_EQ(mshare_agent_start(&check, "race_churn",
						    MSHARE_ADDR(141), i + 1), 0);
		MSHARE_ASSERT_EQ(mshare_agent_do(&check, AGENT_MAP_FOLLOW, 0), 0);
		MSHARE_ASSERT_EQ(mshare_agent_do(&check, AGENT_CHECK, off), 0);
		MSHARE_ASSERT_EQ(mshare_agent_stop(&check), 0);
	}
	MSHARE_ASSERT_EQ(mshare_agent_stop(&creator), 0);
	MSHARE_ASSERT_ERRNO(mshare_unlink("race_churn"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("race_churn"));
	printf("\nharness: races map_unmap_churn: %d processes, %ld map+write+unmap in %d s\n",
	       CHURN_CHILDREN, total, CHURN_SECONDS);
	CU_ASSERT_TRUE(total > 0);
}

/* Create, map as creator, write, unmap, unlink; for a while. */
static int lifecycle_child(void *arg)
{
	double end = harness_now_s() + CHURN_SECONDS;
	char path[256];
	void *p;
	int fd;

	(void)arg;
	mshare_path(path, sizeof(path), "race_ul");
	while (harness_now_s() < end) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0) {
			child_failed(0, "create", errno);
			return 1;
		}
		p = mmap((void *)MSHARE_ADDR(142), mshare_unit(),
			 PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			child_failed(0, "mmap", errno);
			return 1;
		}
		*(volatile unsigned long *)p = mshare_pattern(0, 0);
		if (munmap(p, mshare_unit()) || unlink(path)) {
			child_failed(0, "munmap/unlink", errno);
			return 1;
		}
		counts->iterations[0]++;
	}
	return 0;
}

/* Open the name whenever it is there and map what it names. */
static int opener_child(void *arg)
{
	double end = harness_now_s() + CHURN_SECONDS;
	struct mshare_region_info info;
	volatile unsigned long *p;
	unsigned long v;
	char path[256];
	int fd;

	(void)arg;
	mshare_path(path, sizeof(path), "race_ul");
	while (harness_now_s() < end) {
		counts->iterations[1]++;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT) {
				child_failed(1, "open", errno);
				return 1;
			}
			continue;
		}
		if (mshare_read_info(fd, &info) || !info.start) {
			close(fd);	/* not mapped yet */
			continue;
		}
		p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		close(fd);
		if (p == MAP_FAILED) {
			child_failed(1, "mmap", errno);
			return 1;
		}
		v = *p;
		munmap((void *)p, info.size);
		if (v && v != mshare_pattern(0, 0)) {
			child_failed(1, "the word", 0);
			return 1;
		}
		counts->mapped[1]++;
	}
	return 0;
}

/*
 * One process creates, maps, unmaps and unlinks a region over and over;
 * another opens the name whenever it exists and maps the region: an open
 * file keeps a region alive after its unlink, and no region is left.
 */
static void test_unlink_vs_open_map(void)
{
	struct harness_child_result res;
	pid_t a, b;

	memset(counts, 0, sizeof(*counts));
	a = harness_start_child(lifecycle_child, NULL);
	b = harness_start_child(opener_child, NULL);
	CU_ASSERT_TRUE(a > 0 && b > 0);
	if (a > 0) {
		CU_ASSERT_EQUAL(harness_wait_child_timeout(a, 60, &res), 0);
		CU_ASSERT_TRUE(res.exited && res.status == 0);
	}
	if (b > 0) {
		CU_ASSERT_EQUAL(harness_wait_child_timeout(b, 60, &res), 0);
		CU_ASSERT_TRUE(res.exited && res.status == 0);
	}
	if (counts->err[0] || counts->err[1])
		printf("harness: races unlink_vs_open_map: %s %s / %s %s\n",
		       counts->what[0], mshare_errname(counts->err[0]),
		       counts->what[1], mshare_errname(counts->err[1]));
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("race_ul"));
	printf("\nharness: races unlink_vs_open_map: %ld create+map+unmap+unlink, %ld opens, %ld of them mapped, in %d s\n",
	       counts->iterations[0], counts->iterations[1],
	       counts->mapped[1], CHURN_SECONDS);
	CU_ASSERT_TRUE(counts->iterations[0] > 0);
}

static const struct harness_test races_tests[] = {
	{ "concurrent_first_faults", test_concurrent_first_faults },
	{ "map_unmap_churn", test_map_unmap_churn },
	{ "unlink_vs_open_map", test_unlink_vs_open_map },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_races_suite, .name = "mshare_races",
	      .tests = races_tests, .requires = harness_requires_msharefs,
	      .init = races_init, .cleanup = races_cleanup);
