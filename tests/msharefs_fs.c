// SPDX-License-Identifier: GPL-2.0
/*
 * msharefs as a filesystem: mount point, mshare_info, and the file and
 * directory operations that do not map anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "mshare_util.h"

#define MSHARE_MAGIC	0x4d534852

static void test_mounted(void)
{
	struct statfs sfs;

	CU_ASSERT_EQUAL_FATAL(statfs(MSHARE_DIR, &sfs), 0);
	CU_ASSERT_EQUAL(sfs.f_type, MSHARE_MAGIC);
}

/*
 * Does the CPU have LA57, so that x86-64 pages with 5 levels?  Its flag
 * in /proc/cpuinfo ("flags : ... la57 ...").
 */
static bool cpu_has_la57(void)
{
	static char buf[65536];
	ssize_t len = harness_read_file("/proc/cpuinfo", buf, sizeof(buf));
	const char *flag = len > 0 ? buf : NULL;

	while (flag && (flag = strstr(flag, " la57"))) {
		flag += strlen(" la57");
		if (*flag == ' ' || *flag == '\n')
			return true;
	}
	return false;
}

/*
 * PGDIR_SIZE in decimal, known here apart from what mshare_unit() reads
 * from the same file: UML's 3-level tables map 1 GiB a PGD entry, x86-64's
 * 4-level ones 512 GiB, its 5-level ones 256 TiB.
 */
static void test_info_value(void)
{
	const char *want = !harness_requires_uml() ? "1073741824\n" :
			   cpu_has_la57() ? "281474976710656\n" :
					    "549755813888\n";
	char buf[64];
	ssize_t len;

	len = harness_read_file(MSHARE_DIR "/mshare_info", buf, sizeof(buf));
	CU_ASSERT_FATAL(len > 0);
	printf("\n    mshare_info: %s", buf);
	CU_ASSERT_STRING_EQUAL(buf, want);
	CU_ASSERT_EQUAL(len, (ssize_t)strlen(want));
}

static void test_info_read_only(void)
{
	struct stat st;
	int fd;

	CU_ASSERT_EQUAL_FATAL(stat(MSHARE_DIR "/mshare_info", &st), 0);
	CU_ASSERT_TRUE(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0444);
	/* Root bypasses the mode; there is no write operation either. */
	fd = open(MSHARE_DIR "/mshare_info", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		CU_ASSERT_EQUAL(write(fd, "1", 1), -1);
		close(fd);
	}
}

static void test_create_and_unlink(void)
{
	char path[256];
	struct stat st;
	int fd;

	mshare_path(path, sizeof(path), "fs_create");
	fd = mshare_create("fs_create");
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_TRUE(S_ISREG(st.st_mode));
	CU_ASSERT_EQUAL(mshare_unlink("fs_create"), 0);
	CU_ASSERT_EQUAL(stat(path, &st), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	CU_ASSERT_EQUAL(mshare_unlink("fs_create"), -ENOENT);
}

static void test_new_file_reads_zero(void)
{
	struct mshare_region_info info = { 1, 1 };
	int fd = mshare_create("fs_zero");

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(mshare_read_info(fd, &info), 0);
	CU_ASSERT_EQUAL(info.start, 0);
	CU_ASSERT_EQUAL(info.size, 0);
	close(fd);
	CU_ASSERT_EQUAL(mshare_unlink("fs_zero"), 0);
}

static void test_mkdir_rmdir(void)
{
	struct stat st;
	int fd;

	CU_ASSERT_EQUAL_FATAL(mkdir(MSHARE_DIR "/fs_dir", 0755), 0);
	CU_ASSERT_EQUAL(stat(MSHARE_DIR "/fs_dir", &st), 0);
	CU_ASSERT_TRUE(S_ISDIR(st.st_mode));
	fd = open(MSHARE_DIR "/fs_dir/inner", O_RDWR | O_CREAT | O_CLOEXEC,
		  0600);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
	/* Not empty. */
	CU_ASSERT_EQUAL(rmdir(MSHARE_DIR "/fs_dir"), -1);
	CU_ASSERT_EQUAL(errno, ENOTEMPTY);
	CU_ASSERT_EQUAL(unlink(MSHARE_DIR "/fs_dir/inner"), 0);
	CU_ASSERT_EQUAL(rmdir(MSHARE_DIR "/fs_dir"), 0);
	CU_ASSERT_EQUAL(stat(MSHARE_DIR "/fs_dir", &st), -1);
}

static void test_rename(void)
{
	struct mshare_dbg dbg;
	struct stat st;
	int fd = mshare_create("fs_old");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(rename(MSHARE_DIR "/fs_old", MSHARE_DIR "/fs_new"), 0);
	CU_ASSERT_EQUAL(stat(MSHARE_DIR "/fs_old", &st), -1);
	CU_ASSERT_EQUAL(stat(MSHARE_DIR "/fs_new", &st), 0);
	/* The debugfs view follows the name. */
	CU_ASSERT_EQUAL(mshare_dbg_find("fs_new", &dbg), 0);
	CU_ASSERT_EQUAL(mshare_dbg_find("fs_old", &dbg), -ENOENT);
	CU_ASSERT_EQUAL(mshare_unlink("fs_new"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("fs_new"));
}

static const struct harness_test msharefs_fs_tests[] = {
	{ "mounted", test_mounted },
	{ "info_value", test_info_value },
	{ "info_read_only", test_info_read_only },
	{ "create_and_unlink", test_create_and_unlink },
	{ "new_file_reads_zero", test_new_file_reads_zero },
	{ "mkdir_rmdir", test_mkdir_rmdir },
	{ "rename", test_rename },
	{ NULL, NULL },
};

HARNESS_SUITE(msharefs_fs_suite, .name = "msharefs_fs",
	      .tests = msharefs_fs_tests,
	      .requires = harness_requires_msharefs);
