// SPDX-License-Identifier: GPL-2.0
/*
 * O_DIRECT between a block device and region memory: the device reads
 * from and writes into region pages pinned through a sharer's mapping
 * (pin_user_pages() via the region's page tables), as for a memfd.  A
 * write from the region reaches the disk; a read into pages nobody
 * touched (the first access is the device's) is seen by another sharer.
 * A read into memory that the sharer maps read-only is refused (EFAULT)
 * and leaves the memory as it was, though another sharer's writes made
 * the pages' PTEs writable: the pin is GUP-fast's, which asks no vma and
 * walks the region's page tables through the sharer's PGD entry.
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
#define RO_OFF		(4 * PT_SPAN)	/* written, then mapped read-only */
#define RO_TAG		2

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

/*
 * Another process maps the memory read-only and finds the pattern of
 * @tag at @off: 0, or 1 with the report saying where it failed.
 */
static int sharer_finds(struct dio_case *c, unsigned long off, int tag,
			const char *step)
{
	struct mshare_report *r = c->report;
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map read-only");
	if (!p)
		return 1;
	mshare_report_step(r, step);
	if (!holds_pattern(at(p, off), tag))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* Another process sees what the device wrote into the memory */
static int reading_sharer(void *arg)
{
	return sharer_finds(arg, DST_OFF, 1, "what the disk read into it");
}

/* One process of a case's plan, and where it is to fail (NULL: nowhere) */
struct dio_sharer {
	int (*fn)(void *arg);
	const char *fails_at;
	int err;
};

/* The processes of @plan, one after another, on a memory made for them */
static void run_plan(struct dio_case *c, const struct dio_sharer *plan,
		     size_t n)
{
	struct harness_child_result res;
	size_t i;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(harness_run_child_timeout(plan[i].fn, c,
							 CHILD_TIMEOUT, &res),
				0);
		MSHARE_ASSERT_CHILD(&res, c->report, plan[i].fails_at,
				    plan[i].err);
	}
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

static void run_dio_case(struct dio_case *c)
{
	static const struct dio_sharer plan[] = {
		{ .fn = direct_io_sharer }, { .fn = reading_sharer },
	};

	run_plan(c, plan, ARRAY_SIZE(plan));
}

SHM_TEST_PAIR(struct dio_case, direct_io, run_dio_case,
	      DIO_ADDR(0), DIO_ADDR(1))

/* Another process writes the pages at RO_OFF: their PTEs are writable */
static int writing_sharer(void *arg)
{
	struct dio_case *c = arg;
	unsigned long *p, i;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE,
				c->report, "map and write");
	if (!p)
		return 1;
	for (i = 0; i < LEN / sizeof(long); i++)
		at(p, RO_OFF)[i] = mshare_pattern(i, RO_TAG);
	return mshare_report_done(c->report);
}

/*
 * Read the pages (our page tables lead to them), then ask the disk to
 * read into them: EFAULT is the answer.
 */
static int read_only_sharer(void *arg)
{
	struct dio_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	int fd;

	p = shm_target_map_step(&c->target, PROT_READ, r,
				"map read-only and read");
	if (!p)
		return 1;
	if (!holds_pattern(at(p, RO_OFF), RO_TAG))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "open O_DIRECT");
	fd = open(harness_scratch_disk(), O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "O_DIRECT read into PROT_READ");
	if (pread(fd, at(p, RO_OFF), LEN, 0) < 0)
		return mshare_report_fail(r, errno);
	return mshare_report_done(r);
}

/* ... and the pages keep what the other process wrote */
static int checking_sharer(void *arg)
{
	return sharer_finds(arg, RO_OFF, RO_TAG,
			    "the memory holds what was written");
}

static void run_read_only_case(struct dio_case *c)
{
	static const struct dio_sharer plan[] = {
		{ .fn = writing_sharer },
		{ .fn = read_only_sharer,
		  .fails_at = "O_DIRECT read into PROT_READ", .err = EFAULT },
		{ .fn = checking_sharer },
	};

	run_plan(c, plan, ARRAY_SIZE(plan));
}

SHM_TEST_PAIR(struct dio_case, read_only_direct_read, run_read_only_case,
	      DIO_ADDR(0), DIO_ADDR(1))

static const struct harness_test mshare_direct_io_tests[] = {
	{ "direct_io_region", direct_io_region },
	{ "direct_io_memfd", direct_io_memfd },
	{ "read_only_direct_read_region", read_only_direct_read_region },
	{ "read_only_direct_read_memfd", read_only_direct_read_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_direct_io_suite, .name = "mshare_direct_io",
	      .tests = mshare_direct_io_tests,
	      .requires = requires_scratch_disk);
