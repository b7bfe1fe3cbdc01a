// SPDX-License-Identifier: GPL-2.0
/*
 * How long a region lives when its names and open files come and go: as
 * long as it has a name, an open file or a mapping, like any file.
 *
 * The faithful port dropped the file's reference to the region in unlink():
 * a descriptor kept open across unlink(), or a second name made by link(),
 * then reached the freed region (use-after-free, which KASAN reports).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define OPEN_FD_ADDR	MSHARE_ADDR(37)
#define LINK_ADDR	MSHARE_ADDR(38)
#define UNNAMED_ADDR	MSHARE_ADDR(72)

/* Map @fd's region at @addr as its creator, write and read a word. */
static int create_through(int fd, unsigned long addr)
{
	volatile unsigned long *p;

	p = mmap((void *)addr, mshare_unit(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	p[0] = mshare_pattern(0, 6);
	if (p[0] != mshare_pattern(0, 6))
		return -EIO;
	return munmap((void *)p, mshare_unit()) ? -errno : 0;
}

/* An open descriptor reads and maps the region after its name is gone. */
static void test_open_fd_outlives_unlink(void)
{
	struct mshare_region_info info;
	struct mshare_dbg dbg;
	int fd = mshare_create("lt_open_fd");

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(mshare_unlink("lt_open_fd"), 0);
	/* Named nowhere, still there: the descriptor holds it. */
	CU_ASSERT_EQUAL(mshare_dbg_find("lt_open_fd", &dbg), 0);
	CU_ASSERT_EQUAL(dbg.deleted, 1);

	CU_ASSERT_EQUAL(mshare_read_info(fd, &info), 0);
	CU_ASSERT_EQUAL(info.start, 0);
	CU_ASSERT_EQUAL(create_through(fd, OPEN_FD_ADDR), 0);
	CU_ASSERT_EQUAL(pread(fd, &info, sizeof(info), 0), sizeof(info));
	CU_ASSERT_EQUAL(info.start, OPEN_FD_ADDR);
	CU_ASSERT_EQUAL(info.size, mshare_unit());

	close(fd);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("lt_open_fd"));
}

/*
 * The first mapping of a region, made through a descriptor after its name
 * is gone, does not give it a name back: debugfs still shows it deleted.
 * The port cleared "deleted" in the creator's mmap().
 */
static void test_unlinked_stays_unlinked_when_mapped(void)
{
	struct mshare_dbg dbg;
	int fd = mshare_create("lt_unnamed");

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(mshare_unlink("lt_unnamed"), 0);
	CU_ASSERT_EQUAL(create_through(fd, UNNAMED_ADDR), 0);
	MSHARE_ASSERT_EQ(mshare_dbg_find("lt_unnamed", &dbg), 0);
	MSHARE_ASSERT_EQ(dbg.deleted, 1);
	MSHARE_ASSERT_EQ(dbg.start, UNNAMED_ADDR);

	close(fd);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("lt_unnamed"));
}

/* A second name keeps the region when the first is unlinked. */
static void test_hard_link_keeps_region(void)
{
	struct mshare_region_info info;
	char a[256], b[256];
	int fd = mshare_create("lt_link_a");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	mshare_path(a, sizeof(a), "lt_link_a");
	mshare_path(b, sizeof(b), "lt_link_b");
	CU_ASSERT_EQUAL_FATAL(link(a, b), 0);
	CU_ASSERT_EQUAL(mshare_unlink("lt_link_a"), 0);

	fd = open(b, O_RDWR | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(mshare_read_info(fd, &info), 0);
	CU_ASSERT_EQUAL(info.start, 0);
	CU_ASSERT_EQUAL(create_through(fd, LINK_ADDR), 0);
	close(fd);

	CU_ASSERT_EQUAL(mshare_unlink("lt_link_b"), 0);
	/* debugfs names a region by its first name */
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("lt_link_a"));
}

/* Unlinked and never mapped: freed when the last descriptor closes. */
static void test_freed_at_last_close(void)
{
	int fd = mshare_create("lt_last_close");
	int fd2;
	char path[256];

	CU_ASSERT_FATAL(fd >= 0);
	mshare_path(path, sizeof(path), "lt_last_close");
	fd2 = open(path, O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd2 >= 0);
	CU_ASSERT_EQUAL(mshare_unlink("lt_last_close"), 0);
	close(fd);
	CU_ASSERT_EQUAL(mshare_dbg_refcount("lt_last_close"), 1);
	close(fd2);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("lt_last_close"));
}

static const struct harness_test msharefs_lifetime_tests[] = {
	{ "open_fd_outlives_unlink", test_open_fd_outlives_unlink },
	{ "unlinked_stays_unlinked_when_mapped",
	  test_unlinked_stays_unlinked_when_mapped },
	{ "hard_link_keeps_region", test_hard_link_keeps_region },
	{ "freed_at_last_close", test_freed_at_last_close },
	{ NULL, NULL },
};

HARNESS_SUITE(msharefs_lifetime_suite, .name = "msharefs_lifetime",
	      .tests = msharefs_lifetime_tests,
	      .requires = harness_requires_msharefs);
