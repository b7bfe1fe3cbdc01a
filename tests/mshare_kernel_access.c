// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel reaching a region on a process's behalf: copy_to_user() and
 * copy_from_user() on region memory (read(2)/write(2) of a pipe), another
 * process's memory through process_vm_readv(2) (get_user_pages() on the
 * region's vma), and the /proc walkers of a process that maps a region
 * (smaps, pagemap), which walk its page tables into the region's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "mshare_util.h"

#define KACCESS_ADDR	MSHARE_ADDR(80)
#define TAG		4
#define CHILD_TIMEOUT	30

struct kaccess_run {
	struct mshare_report *report;
	pid_t creator;
};

static unsigned long *map_region(struct mshare_report *r)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	mshare_report_step(r, "open and map");
	mshare_path(path, sizeof(path), "kaccess");
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		mshare_report_fail(r, errno);
		return NULL;
	}
	if (mshare_read_info(fd, &info) || info.start != KACCESS_ADDR) {
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

/*
 * Through a pipe: the kernel reads the creator's word from the region
 * (never touched by us: the first access is the kernel's) and writes it
 * to a page of the region nobody touched.
 */
static int pipe_through_region(struct mshare_report *r, unsigned long *p)
{
	unsigned long *dst = p + 3 * PT_SPAN / sizeof(long);
	int fds[2];

	mshare_report_step(r, "pipe");
	if (pipe(fds))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "write(2) from the region");
	if (write(fds[1], p, sizeof(long)) != sizeof(long))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "read(2) into the region");
	if (read(fds[0], dst, sizeof(long)) != sizeof(long))
		return mshare_report_fail(r, errno);
	close(fds[0]);
	close(fds[1]);
	mshare_report_step(r, "what went through the pipe");
	if (*dst != mshare_pattern(0, TAG))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return 0;
}

/* The creator's word, read from the creator's address space. */
static int read_other_process(struct mshare_report *r, pid_t pid)
{
	unsigned long word = 0;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { (void *)KACCESS_ADDR, sizeof(word) };

	mshare_report_step(r, "process_vm_readv of the creator");
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(word))
		return mshare_report_fail(r, errno);
	if (word != mshare_pattern(0, TAG))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return 0;
}

/* Read a /proc file of ours to the end; the content is not checked. */
static int read_whole(struct mshare_report *r, const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd;

	mshare_report_step(r, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r, errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	close(fd);
	return n < 0 ? mshare_report_fail(r, errno) : 0;
}

/* pagemap of the region's first page: present, since we touched it. */
static int pagemap_present(struct mshare_report *r)
{
	long present;

	mshare_report_step(r, "pagemap entry of the region");
	present = harness_pagemap_present(KACCESS_ADDR, 1);
	if (present < 0)
		return mshare_report_fail(r, errno);
	if (!present)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return 0;
}

static int kaccess_child(void *arg)
{
	struct kaccess_run *run = arg;
	struct mshare_report *r = run->report;
	unsigned long *p = map_region(r);

	if (!p)
		return 1;
	if (pipe_through_region(r, p) || read_other_process(r, run->creator))
		return 1;
	if (read_whole(r, "/proc/self/smaps") ||
	    read_whole(r, "/proc/self/smaps_rollup") || pagemap_present(r))
		return 1;
	return mshare_report_done(r);
}

static void test_kernel_reaches_region(void)
{
	struct kaccess_run run;
	struct harness_child_result res;
	struct mshare_agent creator;
	int fd = mshare_create("kaccess");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	run.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.report);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "kaccess",
						 KACCESS_ADDR, TAG), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	run.creator = creator.pid;

	CU_ASSERT_EQUAL(harness_run_child_timeout(kaccess_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, run.report, NULL, 0);
	/* What the kernel wrote for the child is the creator's to see. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);

	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("kaccess"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("kaccess"));
	mshare_report_free(run.report);
}

static const struct harness_test mshare_kernel_access_tests[] = {
	{ "kernel_reaches_region", test_kernel_reaches_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_kernel_access_suite, .name = "mshare_kernel_access",
	      .tests = mshare_kernel_access_tests,
	      .requires = harness_requires_msharefs);
