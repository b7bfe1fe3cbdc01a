// SPDX-License-Identifier: GPL-2.0
/*
 * O_DIRECT between a block device and region memory: the device reads
 * from and writes into region pages pinned through a sharer's mapping
 * (pin_user_pages() via the region's page tables), as for a memfd.  A
 * write from the region reaches the disk; a read into pages nobody
 * touched (the first access is the device's) is seen by another sharer.
 *
 * The disk is the scratch disk of zeroes the runner makes for every boot
 * (harness_scratch_disk()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mshare_util.h"
#include "shm_target.h"
#include "test_disks.h"

#define DIO_ADDR(slot)	MSHARE_ADDR(84 + (slot))
#define CHILD_TIMEOUT	30
#define NPAGES		16
#define LEN		(NPAGES * PAGE)
#define SRC_OFF		(2 * PT_SPAN)	/* written by us, then to disk */
#define DST_OFF		(6 * PT_SPAN)	/* untouched until the disk reads */

struct dio_case {
	struct shm_target target;
	struct mshare_report *report;
};

static const char *requires_scratch_disk(void)
{
	static char why_not[128];
	const char *why = harness_requires_msharefs();
	struct stat st;

	if (why)
		return why;
	if (stat(harness_scratch_disk(), &st) || !S_ISBLK(st.st_mode)) {
		snprintf(why_not, sizeof(why_not),
			 "%s is not there: boot through the runner (make run), which attaches a scratch disk",
			 harness_scratch_disk());
		return why_not;
	}
	return NULL;
}

static unsigned long *at(unsigned long *p, unsigned long off)
{
	return p + off / sizeof(long);
}

static bool holds_pattern(const unsigned long *words, int tag)
{
	unsigned long i;

	for (i = 0; i < LEN / sizeof(long); i++)
		if (words[i] != mshare_pattern(i, tag))
			return false;
	return true;
}

/* What the disk holds, read back through the page cache */
static bool disk_holds_pattern(int tag)
{
	unsigned long *buf = malloc(LEN);
	int fd = open(harness_scratch_disk(), O_RDONLY | O_CLOEXEC);
	bool ok = false;

	if (buf && fd >= 0 && pread(fd, buf, LEN, 0) == LEN)
		ok = holds_pattern(buf, tag);
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok;
}

static int direct_io_sharer(void *arg)
{
	struct dio_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p, i;
	int fd;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				 "map and write");
	if (!p)
		return 1;
	for (i = 0; i < LEN / sizeof(long); i++)
		at(p, SRC_OFF)[i] = mshare_pattern(i, 1);
	mshare_report_step(r, "open O_DIRECT");
	fd = open(harness_scratch_disk(), O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "O_DIRECT write from memory");
	if (pwrite(fd, at(p, SRC_OFF), LEN, 0) != LEN)
		return mshare_report_fail(r, errno ? errno : MSHARE_ERR_VALUE);
	mshare_report_step(r, "O_DIRECT read into memory");
	if (pread(fd, at(p, DST_OFF), LEN, 0) != LEN)
		return mshare_report_fail(r, errno ? errno : MSHARE_ERR_VALUE);
	close(fd);
	mshare_report_step(r, "the disk holds what we wrote");
	if (!disk_holds_pattern(1))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* Another process sees what the device wrote into the memory */
static int reading_sharer(void *arg)
{
	struct dio_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map read-only");
	if (!p)
		return 1;
	mshare_report_step(r, "what the disk read into it");
	if (!holds_pattern(at(p, DST_OFF), 1))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_dio_case(struct dio_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(direct_io_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reading_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct dio_case, direct_io, run_dio_case,
	      DIO_ADDR(0), DIO_ADDR(1))

static const struct harness_test mshare_direct_io_tests[] = {
	{ "direct_io_region", direct_io_region },
	{ "direct_io_memfd", direct_io_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_direct_io_suite, .name = "mshare_direct_io",
	      .tests = mshare_direct_io_tests,
	      .requires = requires_scratch_disk);
