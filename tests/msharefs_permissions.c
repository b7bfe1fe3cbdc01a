// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open, map, create, unlink and rename what in msharefs: the file
 * and directory modes apply as in any filesystem, and the root directory
 * is sticky like /tmp.  The harness runs as root; the other user is a
 * child that switched to uid and gid 1000.  Children report the step they
 * reached and its errno through a struct mshare_report.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "mshare_util.h"

/* Slots 60-64 are this file's. */
#define PRIVATE_ADDR	MSHARE_ADDR(60)
#define READABLE_ADDR	MSHARE_ADDR(61)
#define WRFAULT_ADDR	MSHARE_ADDR(62)
#define HIDDEN_ADDR	MSHARE_ADDR(63)
#define OWN_ADDR	MSHARE_ADDR(64)

#define USER_ID		1000
#define ROOT_ID		0
#define RW		(PROT_READ | PROT_WRITE)
/* A child still running after this is stuck. */
#define CHILD_SECONDS	10
/* Where creators write, and what: mshare_pattern(DATA_OFF, DATA_TAG). */
#define DATA_OFF	(mshare_unit() / 2)
#define DATA_TAG	5

/* What a child does, and as whom.  Unused fields stay 0. */
struct as_user {
	uid_t uid;		/* and gid */
	int (*op)(const struct as_user *u);
	const char *path;
	const char *path2;	/* rename() target */
	int open_flags;
	int prot;		/* of the mmap() */
	mode_t mode;		/* of a file it creates */
	mode_t umask;
	unsigned long addr;	/* of the region */
	struct mshare_report *rep;
};

/* MSHARE_ASSERT_EQ() for modes, which read best in octal. */
#define ASSERT_MODE(got, want)	assert_mode((got), (want), #got, __LINE__, \
					    __func__)

static void assert_mode(unsigned int got, unsigned int want, const char *what,
			unsigned int line, const char *func)
{
	char cond[160];

	snprintf(cond, sizeof(cond), "%s: want %#o, got %#o", what, want, got);
	CU_assertImplementation(got == want, line, cond, __FILE__, func,
				CU_FALSE);
}

static int step_fail(const struct as_user *u)
{
	return mshare_report_fail(u->rep, errno);
}

/* No supplementary groups, uid and gid u->uid: root's capabilities go. */
static int become(const struct as_user *u)
{
	mshare_report_step(u->rep, "setuid");
	if (setgroups(0, NULL) || setresgid(u->uid, u->uid, u->uid) ||
	    setresuid(u->uid, u->uid, u->uid))
		return step_fail(u);
	return 0;
}

static int as_user_child(void *arg)
{
	const struct as_user *u = arg;

	if (become(u))
		return 1;
	return u->op(u);
}

/*
 * Run @u in a child and assert where it stopped: at @step with errno
 * @err, or, when @step is NULL, after doing everything.  A macro, so
 * that CUnit reports the line of the test.
 */
#define EXPECT_AS(u, step, err)						\
	do {								\
		struct harness_child_result res_;			\
									\
		CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(		\
			as_user_child, (u), CHILD_SECONDS, &res_), 0);	\
		mshare_assert_child(&res_, (u)->rep, (step), (err),	\
				    __LINE__, __FILE__, __func__);	\
	} while (0)

/* Create the region: map one unit at u->addr and write the data. */
static int op_create_map(const struct as_user *u)
{
	char *p;
	int fd;

	umask(u->umask);
	mshare_report_step(u->rep, "create");
	fd = open(u->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, u->mode);
	if (fd < 0)
		return step_fail(u);
	mshare_report_step(u->rep, "mmap");
	p = mmap((void *)u->addr, mshare_unit(), RW, MAP_SHARED | MAP_FIXED, fd,
		 0);
	if (p == MAP_FAILED)
		return step_fail(u);
	*(volatile unsigned long *)(p + DATA_OFF) =
		mshare_pattern(DATA_OFF, DATA_TAG);
	mshare_report_step(u->rep, "munmap");
	if (munmap(p, mshare_unit()))
		return step_fail(u);
	close(fd);
	return mshare_report_done(u->rep);
}

/*
 * Map the region where its struct mshare_info says, with u->open_flags
 * and u->prot, and see the creator's data; with PROT_WRITE, write it
 * again too.
 */
static int op_map(const struct as_user *u)
{
	struct mshare_region_info info;
	char *p;
	int fd;

	mshare_report_step(u->rep, "open");
	fd = open(u->path, u->open_flags | O_CLOEXEC);
	if (fd < 0)
		return step_fail(u);
	mshare_report_step(u->rep, "read");
	if (read(fd, &info, sizeof(info)) < 0)
		return step_fail(u);
	mshare_report_step(u->rep, "info");
	if (info.start != u->addr || info.size != mshare_unit())
		return mshare_report_fail(u->rep, MSHARE_ERR_VALUE);
	mshare_report_step(u->rep, "mmap");
	p = mmap((void *)u->addr, mshare_unit(), u->prot,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return step_fail(u);
	mshare_report_step(u->rep, "data");
	if (*(volatile unsigned long *)(p + DATA_OFF) !=
	    mshare_pattern(DATA_OFF, DATA_TAG))
		return mshare_report_fail(u->rep, MSHARE_ERR_VALUE);
	if (u->prot & PROT_WRITE) {
		mshare_report_step(u->rep, "write");
		*(volatile unsigned long *)(p + DATA_OFF) =
			mshare_pattern(DATA_OFF, DATA_TAG);
	}
	mshare_report_step(u->rep, "munmap");
	if (munmap(p, mshare_unit()))
		return step_fail(u);
	close(fd);
	return mshare_report_done(u->rep);
}

/* Map it read-only and write to it anyway: SIGSEGV, at step "write". */
static int op_write_read_only(const struct as_user *u)
{
	char *p;
	int fd;

	mshare_report_step(u->rep, "open");
	fd = open(u->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return step_fail(u);
	mshare_report_step(u->rep, "mmap");
	p = mmap((void *)u->addr, mshare_unit(), PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return step_fail(u);
	mshare_report_step(u->rep, "write");
	*(volatile unsigned long *)(p + DATA_OFF) = 0;
	return mshare_report_done(u->rep);
}

static int op_opendir(const struct as_user *u)
{
	int fd;

	mshare_report_step(u->rep, "opendir");
	fd = open(u->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return step_fail(u);
	close(fd);
	return mshare_report_done(u->rep);
}

static int op_create(const struct as_user *u)
{
	int fd;

	umask(u->umask);
	mshare_report_step(u->rep, "create");
	fd = open(u->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, u->mode);
	if (fd < 0)
		return step_fail(u);
	close(fd);
	return mshare_report_done(u->rep);
}

static int op_unlink(const struct as_user *u)
{
	mshare_report_step(u->rep, "unlink");
	if (unlink(u->path))
		return step_fail(u);
	return mshare_report_done(u->rep);
}

static int op_rename(const struct as_user *u)
{
	mshare_report_step(u->rep, "rename");
	if (rename(u->path, u->path2))
		return step_fail(u);
	return mshare_report_done(u->rep);
}

/*
 * Root creates the region at @path with exactly @mode (chmod: no umask),
 * and if @addr is not 0 maps it there from a child that writes the data.
 */
static void root_region(const char *path, mode_t mode, unsigned long addr,
			struct mshare_report *rep)
{
	struct as_user root = {
		.uid = ROOT_ID, .op = op_create_map, .path = path,
		.mode = 0600, .addr = addr, .rep = rep,
	};
	int fd;

	if (addr) {
		EXPECT_AS(&root, NULL, 0);
	} else {
		MSHARE_ASSERT_ERRNO(fd = open(path, O_RDWR | O_CREAT | O_EXCL |
					      O_CLOEXEC, 0600), 0);
		if (fd >= 0)
			close(fd);
	}
	MSHARE_ASSERT_ERRNO(chmod(path, mode), 0);
}

/* Unlink @path as root, and see region @name freed. */
static void root_unlink(const char *path, const char *name)
{
	MSHARE_ASSERT_ERRNO(unlink(path), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(name));
}

/* 0600 owned by root: uid 1000 can open it in no way, so not map it. */
static void test_private_region_closed_to_others(void)
{
	const char *path = MSHARE_DIR "/perm_private";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_map, .path = path,
		.open_flags = O_RDONLY, .prot = PROT_READ,
		.addr = PRIVATE_ADDR, .rep = rep,
	};
	struct as_user root = user;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	root_region(path, 0600, PRIVATE_ADDR, rep);
	EXPECT_AS(&user, "open", EACCES);
	user.open_flags = O_RDWR;
	user.prot = RW;
	EXPECT_AS(&user, "open", EACCES);
	/* The owner still can: the region is fine, the mode refused. */
	root.uid = ROOT_ID;
	root.open_flags = O_RDWR;
	root.prot = RW;
	EXPECT_AS(&root, NULL, 0);
	root_unlink(path, "perm_private");
	mshare_report_free(rep);
}

/* 0644: uid 1000 maps it to read, and sees root's data; not to write. */
static void test_readable_region_read_only(void)
{
	const char *path = MSHARE_DIR "/perm_readable";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_map, .path = path,
		.open_flags = O_RDONLY, .prot = PROT_READ,
		.addr = READABLE_ADDR, .rep = rep,
	};

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	root_region(path, 0644, READABLE_ADDR, rep);
	EXPECT_AS(&user, NULL, 0);
	user.open_flags = O_RDWR;
	user.prot = RW;
	EXPECT_AS(&user, "open", EACCES);
	/* Write access cannot come through mmap() either. */
	user.open_flags = O_RDONLY;
	EXPECT_AS(&user, "mmap", EACCES);
	root_unlink(path, "perm_readable");
	mshare_report_free(rep);
}

/*
 * The page tables are shared with root's writable mapping: a write
 * through uid 1000's read-only mapping must still fault, and change
 * nothing.
 */
static void test_readable_region_write_faults(void)
{
	const char *path = MSHARE_DIR "/perm_wrfault";
	struct harness_child_result res;
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_write_read_only, .path = path,
		.addr = WRFAULT_ADDR, .rep = rep,
	};
	struct as_user root = {
		.uid = ROOT_ID, .op = op_map, .path = path,
		.open_flags = O_RDONLY, .prot = PROT_READ,
		.addr = WRFAULT_ADDR, .rep = rep,
	};

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	root_region(path, 0644, WRFAULT_ADDR, rep);
	CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(as_user_child, &user,
						       CHILD_SECONDS, &res),
			      0);
	if (!res.signaled || res.signo != SIGSEGV)
		printf("\n    child: want SIGSEGV in write, got exit %d signal %d in '%s' (%s)%s\n",
		       res.exited ? res.status : -1, res.signo, rep->step,
		       mshare_errname(rep->err),
		       res.timed_out ? ", timed out" : "");
	CU_ASSERT_TRUE(res.signaled && res.signo == SIGSEGV &&
		       !res.timed_out);
	CU_ASSERT_STRING_EQUAL(rep->step, "write");
	/* The data is still root's. */
	EXPECT_AS(&root, NULL, 0);
	root_unlink(path, "perm_wrfault");
	mshare_report_free(rep);
}

/* A 0700 directory of root's hides its regions, open as they may be. */
static void test_private_dir_hides_regions(void)
{
	const char *dir = MSHARE_DIR "/perm_dir";
	const char *path = MSHARE_DIR "/perm_dir/perm_hidden";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_map, .path = path,
		.open_flags = O_RDONLY, .prot = PROT_READ,
		.addr = HIDDEN_ADDR, .rep = rep,
	};
	struct as_user root = user;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	MSHARE_ASSERT_ERRNO(mkdir(dir, 0700), 0);
	MSHARE_ASSERT_ERRNO(chmod(dir, 0700), 0);
	root_region(path, 0666, HIDDEN_ADDR, rep);
	EXPECT_AS(&user, "open", EACCES);
	user.op = op_opendir;
	user.path = dir;
	EXPECT_AS(&user, "opendir", EACCES);
	root.uid = ROOT_ID;
	root.open_flags = O_RDWR;
	root.prot = RW;
	EXPECT_AS(&root, NULL, 0);
	root_unlink(path, "perm_hidden");
	MSHARE_ASSERT_ERRNO(rmdir(dir), 0);
	mshare_report_free(rep);
}

/*
 * uid 1000 creates and maps a region of its own: it owns the file, whose
 * mode is the one asked for minus the umask; root maps it; its owner may
 * unlink it from the sticky directory.
 */
static void test_user_creates_own_region(void)
{
	const char *path = MSHARE_DIR "/perm_own";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_create_map, .path = path,
		.mode = 0666, .umask = 027, .addr = OWN_ADDR, .rep = rep,
	};
	struct as_user root = {
		.uid = ROOT_ID, .op = op_map, .path = path,
		.open_flags = O_RDWR, .prot = RW, .addr = OWN_ADDR,
		.rep = rep,
	};
	struct stat st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	EXPECT_AS(&user, NULL, 0);
	MSHARE_ASSERT_ERRNO(stat(path, &st), 0);
	MSHARE_ASSERT_EQ(st.st_uid, USER_ID);
	MSHARE_ASSERT_EQ(st.st_gid, USER_ID);
	ASSERT_MODE(st.st_mode, S_IFREG | 0640);
	EXPECT_AS(&root, NULL, 0);
	user.op = op_unlink;
	EXPECT_AS(&user, NULL, 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("perm_own"));
	mshare_report_free(rep);
}

/* Like /tmp: everyone may create, only owners may remove. */
static void test_root_dir_sticky(void)
{
	struct stat st;

	MSHARE_ASSERT_ERRNO(stat(MSHARE_DIR, &st), 0);
	CU_ASSERT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_MODE(st.st_mode & 07777, 01777);
	MSHARE_ASSERT_EQ(st.st_uid, ROOT_ID);
}

/*
 * Unlink whichever of these regions are there and see them freed.  Some
 * are there only if the test failed: a kernel without the sticky bit let
 * uid 1000 move root's region.
 */
static void remove_regions(const char *const names[])
{
	char path[256];

	for (; *names; names++) {
		mshare_path(path, sizeof(path), *names);
		if (!access(path, F_OK))
			MSHARE_ASSERT_ERRNO(unlink(path), 0);
		CU_ASSERT_TRUE(mshare_dbg_wait_gone(*names));
	}
}

/* Even a region anybody may write: the directory's sticky bit decides. */
static void test_sticky_unlink_others_region(void)
{
	static const char *const names[] = { "perm_sticky_u", NULL };
	const char *path = MSHARE_DIR "/perm_sticky_u";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_unlink, .path = path, .rep = rep,
	};
	struct stat st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	root_region(path, 0666, 0, rep);
	EXPECT_AS(&user, "unlink", EPERM);
	MSHARE_ASSERT_ERRNO(stat(path, &st), 0);
	remove_regions(names);
	mshare_report_free(rep);
}

/*
 * Neither away from its name, nor by putting one's own region over it;
 * one's own region still renames.
 */
static void test_sticky_rename_others_region(void)
{
	static const char *const names[] = {
		"perm_sticky_r", "perm_sticky_moved", "perm_sticky_mine",
		"perm_sticky_mine2", NULL
	};
	const char *path = MSHARE_DIR "/perm_sticky_r";
	const char *moved = MSHARE_DIR "/perm_sticky_moved";
	const char *mine = MSHARE_DIR "/perm_sticky_mine";
	const char *mine2 = MSHARE_DIR "/perm_sticky_mine2";
	struct mshare_report *rep = mshare_report_new();
	struct as_user user = {
		.uid = USER_ID, .op = op_rename, .path = path, .path2 = moved,
		.rep = rep,
	};
	struct stat st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	root_region(path, 0666, 0, rep);
	EXPECT_AS(&user, "rename", EPERM);

	user.op = op_create;
	user.path = mine;
	user.mode = 0600;
	EXPECT_AS(&user, NULL, 0);
	user.op = op_rename;
	user.path2 = path;
	EXPECT_AS(&user, "rename", EPERM);
	user.path2 = mine2;
	EXPECT_AS(&user, NULL, 0);

	MSHARE_ASSERT_ERRNO(stat(path, &st), 0);
	MSHARE_ASSERT_EQ(st.st_uid, ROOT_ID);
	MSHARE_ASSERT_ERRNO(stat(moved, &st), ENOENT);
	MSHARE_ASSERT_ERRNO(stat(mine2, &st), 0);
	MSHARE_ASSERT_EQ(st.st_uid, USER_ID);
	remove_regions(names);
	mshare_report_free(rep);
}

static const struct harness_test msharefs_permissions_tests[] = {
	{ "private_region_closed_to_others",
	  test_private_region_closed_to_others },
	{ "readable_region_read_only", test_readable_region_read_only },
	{ "readable_region_write_faults", test_readable_region_write_faults },
	{ "private_dir_hides_regions", test_private_dir_hides_regions },
	{ "user_creates_own_region", test_user_creates_own_region },
	{ "root_dir_sticky", test_root_dir_sticky },
	{ "sticky_unlink_others_region", test_sticky_unlink_others_region },
	{ "sticky_rename_others_region", test_sticky_rename_others_region },
	{ NULL, NULL },
};

HARNESS_SUITE(msharefs_permissions_suite, .name = "msharefs_permissions",
	      .tests = msharefs_permissions_tests,
	      .requires = harness_requires_msharefs);
