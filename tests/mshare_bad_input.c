// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to msharefs and to mmap() of its files.  Each test makes one
 * mistake, checks the errno, and checks that the mistake left nothing
 * behind: no reference, no half-made region, no lock held.  An mmap() of
 * a region that failed used to return with the region's mmap_lock held,
 * and the next read() or mmap() of that region hung; so the bad mmap()
 * and what follows it run in children with a timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mshare_util.h"

/* Slots 40-59 and 65-69 are this file's. */
#define MSTART_ADDR	MSHARE_ADDR(40)
#define MLEN_ADDR	MSHARE_ADDR(41)
#define MHALF_ADDR	MSHARE_ADDR(42)
#define MZERO_ADDR	MSHARE_ADDR(43)
#define NOFIX_ADDR	MSHARE_ADDR(44)
#define NOFIX_OLD_ADDR	MSHARE_ADDR(45)
#define OSTART_ADDR	MSHARE_ADDR(46)	/* and the unit after it */
#define OSIZE_ADDR	MSHARE_ADDR(48)	/* and the unit after it */
#define PRIVATE_ADDR	MSHARE_ADDR(50)
#define OFFSET_ADDR	MSHARE_ADDR(51)
#define EXEC_ADDR	MSHARE_ADDR(52)
#define RDONLY_ADDR	MSHARE_ADDR(53)
#define WRONLY_ADDR	MSHARE_ADDR(54)
#define CREXIT_ADDR	MSHARE_ADDR(55)
#define MKNOD_ADDR	MSHARE_ADDR(56)
#define SMALLER_ADDR	MSHARE_ADDR(57)	/* and the unit after it */
#define EOF_ADDR	MSHARE_ADDR(59)
#define MPAGE_ADDR	MSHARE_ADDR(65)

/*
 * Where mmap() without a hint places a mapping on x86-64: below 128 TiB
 * (DEFAULT_MAP_WINDOW), with 5-level paging too.  A region of 5-level
 * paging (256 TiB) does not fit there.
 */
#define MAP_WINDOW	(1UL << 47)
#define RW		(PROT_READ | PROT_WRITE)
#define FIXED_SHARED	(MAP_FIXED | MAP_SHARED)
/* A child still running after this is stuck, on a lock as a rule. */
#define CHILD_SECONDS	10
/* The tag of the data creators write. */
#define DATA_TAG	3

/* A region file of a test, and what its children report through. */
struct region {
	const char *name;
	char path[256];
	unsigned long addr;	/* where it is mapped, or is to be */
	unsigned long size;	/* 0 until a creator mapped it */
	struct mshare_report *rep;
};

/* The bad mmap() of a test, in a region file set up as described. */
struct bad_mmap {
	const char *region;
	unsigned long at;	/* the region's right address */
	unsigned long size;	/* 0: a new file; else mapped at @at first */
	int open_flags;
	unsigned long addr;	/* the mmap(): 0 for no address */
	unsigned long len;
	int prot;
	int flags;
	off_t offset;
	int want;		/* its errno */
};

struct bad_run {
	const struct bad_mmap *bad;
	struct region *r;
};

/* Two places far apart in the region: the start and the middle. */
static unsigned long data_off(const struct region *r, int i)
{
	return i ? r->size / 2 : 0;
}

/* Child: map the new region at r->addr, r->size long, and write to it. */
static int creator_child(void *arg)
{
	struct region *r = arg;
	char *p;
	int fd, i;

	mshare_report_step(r->rep, "open");
	fd = open(r->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r->rep, errno);
	mshare_report_step(r->rep, "mmap");
	p = mmap((void *)r->addr, r->size, RW, FIXED_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return mshare_report_fail(r->rep, errno);
	for (i = 0; i < 2; i++)
		*(volatile unsigned long *)(p + data_off(r, i)) =
			mshare_pattern(data_off(r, i), DATA_TAG);
	mshare_report_step(r->rep, "munmap");
	if (munmap(p, r->size))
		return mshare_report_fail(r->rep, errno);
	return mshare_report_done(r->rep);
}

/* Is what creator_child() wrote there? */
static bool data_there(const struct region *r, const char *p)
{
	int i;

	for (i = 0; i < 2; i++)
		if (*(volatile unsigned long *)(p + data_off(r, i)) !=
		    mshare_pattern(data_off(r, i), DATA_TAG))
			return false;
	return true;
}

/*
 * Child: use the region the right way, as the next process would: read
 * its struct mshare_info, map it there (creating it if it is new), see
 * the creator's data.  Hangs if the region's mmap_lock was left held.
 */
static int follower_child(void *arg)
{
	struct region *r = arg;
	struct mshare_region_info info;
	unsigned long size = r->size ? r->size : mshare_unit();
	char *p;
	int fd;

	mshare_report_step(r->rep, "open");
	fd = open(r->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(r->rep, errno);
	mshare_report_step(r->rep, "read");
	if (read(fd, &info, sizeof(info)) < 0)
		return mshare_report_fail(r->rep, errno);
	mshare_report_step(r->rep, "info");
	if (info.start != (r->size ? r->addr : 0) || info.size != r->size)
		return mshare_report_fail(r->rep, MSHARE_ERR_VALUE);
	mshare_report_step(r->rep, "mmap");
	p = mmap((void *)r->addr, size, RW, FIXED_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return mshare_report_fail(r->rep, errno);
	mshare_report_step(r->rep, "data");
	if (r->size && !data_there(r, p))
		return mshare_report_fail(r->rep, MSHARE_ERR_VALUE);
	mshare_report_step(r->rep, "munmap");
	if (munmap(p, size))
		return mshare_report_fail(r->rep, errno);
	return mshare_report_done(r->rep);
}

/* Child: the bad mmap().  Should it work, it is undone. */
static int bad_mmap_child(void *arg)
{
	struct bad_run *run = arg;
	const struct bad_mmap *bad = run->bad;
	struct mshare_report *rep = run->r->rep;
	void *p;
	int fd;

	mshare_report_step(rep, "open");
	fd = open(run->r->path, bad->open_flags | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(rep, errno);
	mshare_report_step(rep, "mmap");
	p = mmap((void *)bad->addr, bad->len, bad->prot, bad->flags, fd,
		 bad->offset);
	if (p == MAP_FAILED)
		return mshare_report_fail(rep, errno);
	munmap(p, bad->len);
	return mshare_report_done(rep);
}

/*
 * Create the file of region @name, and when @size is not 0 map it (size
 * bytes at @addr) from a child that writes to it and exits.  Returns
 * false if that failed; the file, if made, is to be unlinked all the same.
 */
static bool region_new(struct region *r, const char *name, unsigned long addr,
		       unsigned long size)
{
	struct harness_child_result res;
	int fd;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->addr = addr;
	mshare_path(r->path, sizeof(r->path), name);
	r->rep = mshare_report_new();
	if (!r->rep)
		return false;
	/* O_EXCL: a region left over by an earlier test is not new */
	MSHARE_ASSERT_ERRNO(fd = open(r->path, O_RDWR | O_CREAT | O_EXCL |
				      O_CLOEXEC, 0600), 0);
	if (fd < 0)
		return false;
	close(fd);
	if (!size)
		return true;
	r->size = size;
	if (harness_run_child_timeout(creator_child, r, CHILD_SECONDS, &res))
		return false;
	MSHARE_ASSERT_CHILD(&res, r->rep, NULL, 0);
	return res.exited && !res.status;
}

/*
 * Unlink the region and see it freed.  Not when a child of the test got
 * stuck: the region's lock is then held for good and unlink() would hang
 * the run instead of failing the one test.
 */
static void region_end(struct region *r, bool stuck)
{
	if (!stuck && r->name) {
		MSHARE_ASSERT_ERRNO(mshare_unlink(r->name), 0);
		CU_ASSERT_TRUE(mshare_dbg_wait_gone(r->name));
	}
	mshare_report_free(r->rep);
}

/* The file's reference only, and the range its creator gave, if any. */
static void assert_untouched(const struct region *r)
{
	struct mshare_dbg dbg;

	MSHARE_ASSERT_EQ(mshare_dbg_find(r->name, &dbg), 0);
	MSHARE_ASSERT_EQ(dbg.refcount, 1);
	MSHARE_ASSERT_EQ(dbg.deleted, 0);
	MSHARE_ASSERT_EQ(dbg.start, r->size ? r->addr : 0);
	MSHARE_ASSERT_EQ(dbg.size, r->size);
}

/*
 * The bad mmap() fails with bad->want and leaves the region as it was:
 * no reference taken, nothing set up, its lock free for the next process,
 * which reads the struct mshare_info and maps the region right.
 */
static void run_bad_mmap(const struct bad_mmap *bad)
{
	struct harness_child_result res;
	struct region r;
	struct bad_run run = { .bad = bad, .r = &r };
	bool stuck = false;

	if (!region_new(&r, bad->region, bad->at, bad->size)) {
		CU_FAIL("region set-up failed");
		region_end(&r, false);
		return;
	}
	CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(bad_mmap_child, &run,
						       CHILD_SECONDS, &res),
			      0);
	MSHARE_ASSERT_CHILD(&res, r.rep, "mmap", bad->want);
	stuck |= res.timed_out;
	if (!stuck)
		assert_untouched(&r);

	CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(follower_child, &r,
						       CHILD_SECONDS, &res),
			      0);
	MSHARE_ASSERT_CHILD(&res, r.rep, NULL, 0);
	stuck |= res.timed_out;
	region_end(&r, stuck);
}

/* Page aligned, not unit aligned: no PGD entry holds it whole. */
static void test_mmap_misaligned_start(void)
{
	const struct bad_mmap bad = {
		.region = "bad_mstart", .at = MSTART_ADDR,
		.open_flags = O_RDWR, .addr = MSTART_ADDR + PT_SPAN,
		.len = mshare_unit(), .prot = RW, .flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* Not even page aligned: refused by mmap() itself, before msharefs. */
static void test_mmap_start_not_page_aligned(void)
{
	const struct bad_mmap bad = {
		.region = "bad_mpage",
		.at = MPAGE_ADDR,
		.open_flags = O_RDWR,
		.addr = MPAGE_ADDR + 1,
		.len = mshare_unit(),
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* Not a page multiple: mmap() rounds it up to a unit + 4 KiB. */
static void test_mmap_misaligned_length(void)
{
	const struct bad_mmap bad = {
		.region = "bad_mlen",
		.at = MLEN_ADDR,
		.open_flags = O_RDWR,
		.addr = MLEN_ADDR,
		.len = mshare_unit() + 1,
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

static void test_mmap_length_not_gib_multiple(void)
{
	const struct bad_mmap bad = {
		.region = "bad_mhalf",
		.at = MHALF_ADDR,
		.open_flags = O_RDWR,
		.addr = MHALF_ADDR,
		.len = mshare_unit() / 2,
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

static void test_mmap_zero_length(void)
{
	const struct bad_mmap bad = {
		.region = "bad_mzero", .at = MZERO_ADDR,
		.open_flags = O_RDWR, .addr = MZERO_ADDR, .len = 0,
		.prot = RW, .flags = FIXED_SHARED, .want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/*
 * No address: the kernel's choice is not unit aligned (EINVAL), or, with
 * 5-level paging, there is no room for a unit below MAP_WINDOW (ENOMEM,
 * from mmap() before msharefs sees the call).
 */
static int not_fixed_errno(void)
{
	return mshare_unit() < MAP_WINDOW ? EINVAL : ENOMEM;
}

static void test_mmap_not_fixed(void)
{
	const struct bad_mmap bad = {
		.region = "bad_nofix", .at = NOFIX_ADDR,
		.open_flags = O_RDWR, .addr = 0, .len = mshare_unit(),
		.prot = RW, .flags = MAP_SHARED, .want = not_fixed_errno(),
	};

	run_bad_mmap(&bad);
}

/* The same, of a region that is mapped elsewhere already. */
static void test_mmap_not_fixed_existing(void)
{
	const struct bad_mmap bad = {
		.region = "bad_nofix_old",
		.at = NOFIX_OLD_ADDR,
		.size = mshare_unit(),
		.open_flags = O_RDWR,
		.addr = 0,
		.len = mshare_unit(),
		.prot = RW,
		.flags = MAP_SHARED,
		.want = not_fixed_errno(),
	};

	run_bad_mmap(&bad);
}

/* A second "creator": right size, another unit-aligned address. */
static void test_mmap_other_start(void)
{
	const struct bad_mmap bad = {
		.region = "bad_ostart",
		.at = OSTART_ADDR,
		.size = mshare_unit(),
		.open_flags = O_RDWR,
		.addr = OSTART_ADDR + mshare_unit(),
		.len = mshare_unit(),
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* A second "creator": right address, twice the size. */
static void test_mmap_other_size(void)
{
	const struct bad_mmap bad = {
		.region = "bad_osize",
		.at = OSIZE_ADDR,
		.size = mshare_unit(),
		.open_flags = O_RDWR,
		.addr = OSIZE_ADDR,
		.len = 2 * mshare_unit(),
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* Right address, half of a two-unit region. */
static void test_mmap_smaller_size(void)
{
	const struct bad_mmap bad = {
		.region = "bad_smaller",
		.at = SMALLER_ADDR,
		.size = 2 * mshare_unit(),
		.open_flags = O_RDWR,
		.addr = SMALLER_ADDR,
		.len = mshare_unit(),
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/*
 * Copy on write cannot be made of page tables that others share.
 * PROT_READ: a writable private region is charged against overcommit first,
 * and fails there (ENOMEM) before msharefs sees it.
 */
static void test_mmap_private(void)
{
	const struct bad_mmap bad = {
		.region = "bad_private",
		.at = PRIVATE_ADDR,
		.open_flags = O_RDWR,
		.addr = PRIVATE_ADDR,
		.len = mshare_unit(),
		.prot = PROT_READ,
		.flags = MAP_FIXED | MAP_PRIVATE,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* Every process maps the region from its start. */
static void test_mmap_offset(void)
{
	const struct bad_mmap bad = {
		.region = "bad_offset", .at = OFFSET_ADDR,
		.open_flags = O_RDWR, .addr = OFFSET_ADDR, .len = mshare_unit(),
		.prot = RW, .flags = FIXED_SHARED, .offset = PAGE,
		.want = EINVAL,
	};

	run_bad_mmap(&bad);
}

/* msharefs is noexec: shared PTEs would make it everybody's exec. */
static void test_mmap_prot_exec(void)
{
	const struct bad_mmap bad = {
		.region = "bad_exec", .at = EXEC_ADDR,
		.open_flags = O_RDWR, .addr = EXEC_ADDR, .len = mshare_unit(),
		.prot = PROT_READ | PROT_EXEC, .flags = FIXED_SHARED,
		.want = EPERM,
	};

	run_bad_mmap(&bad);
}

static void test_mmap_rdonly_fd_prot_write(void)
{
	const struct bad_mmap bad = {
		.region = "bad_rdonly",
		.at = RDONLY_ADDR,
		.open_flags = O_RDONLY,
		.addr = RDONLY_ADDR,
		.len = mshare_unit(),
		.prot = RW,
		.flags = FIXED_SHARED,
		.want = EACCES,
	};

	run_bad_mmap(&bad);
}

/* Every mapping can be read: a write-only fd maps nothing. */
static void test_mmap_wronly_fd(void)
{
	const struct bad_mmap bad = {
		.region = "bad_wronly",
		.at = WRONLY_ADDR,
		.open_flags = O_WRONLY,
		.addr = WRONLY_ADDR,
		.len = mshare_unit(),
		.prot = PROT_WRITE,
		.flags = FIXED_SHARED,
		.want = EACCES,
	};

	run_bad_mmap(&bad);
}

/* mmap() one page of @fd anywhere, and unmap it again if that worked. */
static int map_page(int fd)
{
	void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -1;
	munmap(p, PAGE);
	return 0;
}

static void test_mmap_info_file(void)
{
	int fd = open(MSHARE_DIR "/mshare_info", O_RDONLY | O_CLOEXEC);

	MSHARE_ASSERT_ERRNO(fd, 0);
	if (fd < 0)
		return;
	MSHARE_ASSERT_ERRNO(map_page(fd), ENODEV);
	close(fd);
}

static void test_mmap_directory(void)
{
	int fd;

	MSHARE_ASSERT_ERRNO(mkdir(MSHARE_DIR "/bad_mdir", 0700), 0);
	fd = open(MSHARE_DIR "/bad_mdir", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	MSHARE_ASSERT_ERRNO(fd, 0);
	if (fd >= 0) {
		MSHARE_ASSERT_ERRNO(map_page(fd), ENODEV);
		close(fd);
	}
	MSHARE_ASSERT_ERRNO(rmdir(MSHARE_DIR "/bad_mdir"), 0);
}

/* The next process to come still maps it, and sees the creator's data. */
static void test_map_after_creator_exit(void)
{
	struct harness_child_result res;
	struct region r;
	bool stuck = false;

	if (region_new(&r, "bad_crexit", CREXIT_ADDR, mshare_unit())) {
		MSHARE_ASSERT_EQ(mshare_dbg_refcount(r.name), 1);
		CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(follower_child,
							       &r,
							       CHILD_SECONDS,
							       &res), 0);
		MSHARE_ASSERT_CHILD(&res, r.rep, NULL, 0);
		stuck = res.timed_out;
		if (!stuck)
			MSHARE_ASSERT_EQ(mshare_dbg_refcount(r.name), 1);
	} else {
		CU_FAIL("region set-up failed");
	}
	region_end(&r, stuck);
}

/* Open a new region file for a test that needs only an fd, or -1. */
static int region_fd(const char *name)
{
	char path[256];
	int fd;

	mshare_path(path, sizeof(path), name);
	MSHARE_ASSERT_ERRNO(fd = open(path, O_RDWR | O_CREAT | O_EXCL |
				      O_CLOEXEC, 0600), 0);
	return fd;
}

static void region_fd_end(const char *name, int fd)
{
	if (fd >= 0)
		close(fd);
	MSHARE_ASSERT_ERRNO(mshare_unlink(name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(name));
}

/* The struct mshare_info whole, or nothing. */
static void test_read_short_buffer(void)
{
	struct mshare_region_info info;
	int fd = region_fd("bad_rshort");

	if (fd >= 0)
		MSHARE_ASSERT_ERRNO(read(fd, &info, sizeof(info) - 1), EINVAL);
	region_fd_end("bad_rshort", fd);
}

static void test_read_at_offset(void)
{
	struct mshare_region_info info;
	int fd = region_fd("bad_roff");

	if (fd >= 0)
		MSHARE_ASSERT_ERRNO(pread(fd, &info, sizeof(info), 8), EINVAL);
	region_fd_end("bad_roff", fd);
}

/* As cat reads: the struct, then end of file (the port gave it forever). */
static void test_read_eof_second_read(void)
{
	struct mshare_region_info info[4];
	struct region r;
	int fd;

	if (!region_new(&r, "bad_reof", EOF_ADDR, mshare_unit())) {
		CU_FAIL("region set-up failed");
		region_end(&r, false);
		return;
	}
	fd = open(r.path, O_RDONLY | O_CLOEXEC);
	MSHARE_ASSERT_ERRNO(fd, 0);
	if (fd >= 0) {
		memset(info, 0, sizeof(info));
		MSHARE_ASSERT_EQ(read(fd, info, sizeof(info)), sizeof(info[0]));
		MSHARE_ASSERT_EQ(info[0].start, EOF_ADDR);
		MSHARE_ASSERT_EQ(info[0].size, mshare_unit());
		MSHARE_ASSERT_EQ(read(fd, info, sizeof(info)), 0);
		MSHARE_ASSERT_EQ(pread(fd, info, sizeof(info), sizeof(info[0])),
				 0);
		/* From the start again: the struct again. */
		MSHARE_ASSERT_EQ(pread(fd, info, sizeof(info), 0),
				 sizeof(info[0]));
		/* Rewound, read(2) gives it again; 0 bytes read nothing. */
		MSHARE_ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
		MSHARE_ASSERT_EQ(read(fd, info, 0), 0);
		MSHARE_ASSERT_EQ(read(fd, info, sizeof(info)), sizeof(info[0]));
		close(fd);
	}
	region_end(&r, false);
}

static void test_write_region(void)
{
	struct mshare_region_info info = { MSHARE_ADDR(1), mshare_unit() };
	int fd = region_fd("bad_write");

	if (fd >= 0)
		MSHARE_ASSERT_ERRNO(write(fd, &info, sizeof(info)), EINVAL);
	region_fd_end("bad_write", fd);
}

/* The size is the first mmap()'s; to 0, the size it has, works. */
static void test_truncate_region(void)
{
	int fd = region_fd("bad_trunc");

	if (fd >= 0) {
		MSHARE_ASSERT_ERRNO(ftruncate(fd, mshare_unit()), EINVAL);
		MSHARE_ASSERT_ERRNO(truncate(MSHARE_DIR "/bad_trunc", PAGE),
				    EINVAL);
		MSHARE_ASSERT_ERRNO(ftruncate(fd, 0), 0);
	}
	region_fd_end("bad_trunc", fd);
}

/*
 * msharefs has no fallocate(): EOPNOTSUPP wherever it is asked, at the
 * region's last page too (512 GiB in on x86-64) and above 2 GiB, where
 * vfs_fallocate() answered EFBIG while the superblock kept the default
 * s_maxbytes of a filesystem without large files.
 */
static void test_fallocate_region(void)
{
	const off_t offsets[] = { 0, mshare_unit() - PAGE, 4L << 30 };
	int fd = region_fd("bad_falloc");
	unsigned int i;

	for (i = 0; fd >= 0 && i < ARRAY_SIZE(offsets); i++) {
		errno = 0;
		if (fallocate(fd, 0, offsets[i], PAGE) == 0 ||
		    errno != EOPNOTSUPP) {
			printf("    fallocate at %#llx: %s (want EOPNOTSUPP)\n",
			       (unsigned long long)offsets[i], strerror(errno));
			CU_FAIL("fallocate of a region file: not EOPNOTSUPP");
		}
	}
	region_fd_end("bad_falloc", fd);
}

static void test_unlink_twice(void)
{
	int fd = region_fd("bad_unlink2");

	if (fd >= 0)
		close(fd);
	MSHARE_ASSERT_ERRNO(mshare_unlink("bad_unlink2"), 0);
	MSHARE_ASSERT_ERRNO(unlink(MSHARE_DIR "/bad_unlink2"), ENOENT);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("bad_unlink2"));
}

static void test_open_after_unlink(void)
{
	int fd = region_fd("bad_reopen");

	if (fd >= 0)
		close(fd);
	MSHARE_ASSERT_ERRNO(mshare_unlink("bad_reopen"), 0);
	MSHARE_ASSERT_ERRNO(fd = open(MSHARE_DIR "/bad_reopen",
				      O_RDWR | O_CLOEXEC), ENOENT);
	if (fd >= 0)
		close(fd);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("bad_reopen"));
}

static void test_rmdir_non_empty(void)
{
	int fd;

	MSHARE_ASSERT_ERRNO(mkdir(MSHARE_DIR "/bad_fulldir", 0700), 0);
	fd = region_fd("bad_fulldir/bad_fullreg");
	if (fd >= 0)
		close(fd);
	MSHARE_ASSERT_ERRNO(rmdir(MSHARE_DIR "/bad_fulldir"), ENOTEMPTY);
	MSHARE_ASSERT_ERRNO(mshare_unlink("bad_fulldir/bad_fullreg"), 0);
	MSHARE_ASSERT_ERRNO(rmdir(MSHARE_DIR "/bad_fulldir"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("bad_fullreg"));
}

/* The inode number of an msharefs file, or 0. */
static ino_t ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* Each name keeps its own region (the port leaked the one replaced). */
static void test_rename_over_region(void)
{
	const char *a = MSHARE_DIR "/bad_ren_a", *b = MSHARE_DIR "/bad_ren_b";
	struct mshare_dbg dbg;
	ino_t ino_a, ino_b;
	int fd_a = region_fd("bad_ren_a"), fd_b = region_fd("bad_ren_b");

	ino_a = ino_of(a);
	ino_b = ino_of(b);
	MSHARE_ASSERT_ERRNO(rename(a, b), EEXIST);
	MSHARE_ASSERT_EQ(ino_of(a), ino_a);
	MSHARE_ASSERT_EQ(ino_of(b), ino_b);
	MSHARE_ASSERT_EQ(mshare_dbg_find("bad_ren_a", &dbg), 0);
	MSHARE_ASSERT_EQ(mshare_dbg_find("bad_ren_b", &dbg), 0);
	region_fd_end("bad_ren_a", fd_a);
	region_fd_end("bad_ren_b", fd_b);
}

/* NAME_MAX + 1 bytes of @c, NUL-terminated. */
static void long_name(char name[NAME_MAX + 2], char c)
{
	memset(name, c, NAME_MAX + 1);
	name[NAME_MAX + 1] = '\0';
}

/* 256 bytes fail; 255 make a region (its name fits in debugfs too). */
static void test_create_name_too_long(void)
{
	char name[NAME_MAX + 2], path[512];
	struct mshare_dbg dbg;
	int fd;

	long_name(name, 'c');
	snprintf(path, sizeof(path), "%s/%s", MSHARE_DIR, name);
	MSHARE_ASSERT_ERRNO(fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC,
				      0600), ENAMETOOLONG);
	if (fd >= 0)
		close(fd);

	name[NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "%s/%s", MSHARE_DIR, name);
	MSHARE_ASSERT_ERRNO(fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC,
				      0600), 0);
	if (fd < 0)
		return;
	close(fd);
	MSHARE_ASSERT_EQ(mshare_dbg_find(name, &dbg), 0);
	MSHARE_ASSERT_ERRNO(unlink(path), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(name));
}

static void test_mkdir_name_too_long(void)
{
	char name[NAME_MAX + 2], path[512];
	int ret;

	long_name(name, 'd');
	snprintf(path, sizeof(path), "%s/%s", MSHARE_DIR, name);
	MSHARE_ASSERT_ERRNO(ret = mkdir(path, 0700), ENAMETOOLONG);
	if (!ret)
		rmdir(path);
}

static void test_rename_name_too_long(void)
{
	const char *from = MSHARE_DIR "/bad_rnlong";
	char name[NAME_MAX + 2], path[512];
	int fd = region_fd("bad_rnlong");
	int ret;

	long_name(name, 'r');
	snprintf(path, sizeof(path), "%s/%s", MSHARE_DIR, name);
	MSHARE_ASSERT_ERRNO(ret = rename(from, path), ENAMETOOLONG);
	if (!ret)
		rename(path, from);
	region_fd_end("bad_rnlong", fd);
}

/* Only regions and directories: nothing would be behind the others. */
static void assert_mknod_refused(const char *name, mode_t type, dev_t dev)
{
	char path[256];
	struct stat st;
	int ret;

	mshare_path(path, sizeof(path), name);
	MSHARE_ASSERT_ERRNO(ret = mknod(path, type | 0600, dev), EPERM);
	MSHARE_ASSERT_ERRNO(lstat(path, &st), ENOENT);
	if (!ret)
		unlink(path);
}

static void test_mknod_fifo(void)
{
	assert_mknod_refused("bad_fifo", S_IFIFO, 0);
}

static void test_mknod_char_device(void)
{
	assert_mknod_refused("bad_chr", S_IFCHR, makedev(1, 3));
}

static void test_mknod_block_device(void)
{
	assert_mknod_refused("bad_blk", S_IFBLK, makedev(7, 0));
}

static void test_mknod_socket(void)
{
	assert_mknod_refused("bad_sock", S_IFSOCK, 0);
}

static void test_symlink(void)
{
	const char *path = MSHARE_DIR "/bad_symlink";
	struct stat st;
	int ret;

	MSHARE_ASSERT_ERRNO(ret = symlink("mshare_info", path), EPERM);
	MSHARE_ASSERT_ERRNO(lstat(path, &st), ENOENT);
	if (!ret)
		unlink(path);
}

/* A regular file is the one type mknod() makes: a region, as by open(). */
static void test_mknod_regular_is_region(void)
{
	struct harness_child_result res;
	struct region r;
	bool stuck = false;

	memset(&r, 0, sizeof(r));
	r.name = "bad_mknod_reg";
	r.addr = MKNOD_ADDR;
	mshare_path(r.path, sizeof(r.path), r.name);
	r.rep = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.rep);
	MSHARE_ASSERT_ERRNO(mknod(r.path, S_IFREG | 0600, 0), 0);
	MSHARE_ASSERT_EQ(mshare_dbg_refcount(r.name), 1);
	CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(follower_child, &r,
						       CHILD_SECONDS, &res),
			      0);
	MSHARE_ASSERT_CHILD(&res, r.rep, NULL, 0);
	stuck = res.timed_out;
	region_end(&r, stuck);
}

/* mshare_info is part of the filesystem: it stays, under its name. */
static void test_unlink_info(void)
{
	struct stat st;

	MSHARE_ASSERT_ERRNO(unlink(MSHARE_DIR "/mshare_info"), EPERM);
	MSHARE_ASSERT_ERRNO(stat(MSHARE_DIR "/mshare_info", &st), 0);
}

static void test_rename_info(void)
{
	const char *to = MSHARE_DIR "/bad_info_moved";
	struct stat st;
	int ret;

	MSHARE_ASSERT_ERRNO(ret = rename(MSHARE_DIR "/mshare_info", to),
			    EPERM);
	if (!ret)
		rename(to, MSHARE_DIR "/mshare_info");
	MSHARE_ASSERT_ERRNO(stat(MSHARE_DIR "/mshare_info", &st), 0);
	MSHARE_ASSERT_ERRNO(stat(to, &st), ENOENT);
}

/* Renaming a region over it would remove it as much as unlink. */
static void test_rename_over_info(void)
{
	char buf[64], info[32];
	int fd = region_fd("bad_over_info");

	/* What mshare_info said before: the unit, in decimal, and a newline. */
	snprintf(info, sizeof(info), "%lu\n", mshare_unit());
	MSHARE_ASSERT_ERRNO(rename(MSHARE_DIR "/bad_over_info",
				   MSHARE_DIR "/mshare_info"), EPERM);
	MSHARE_ASSERT_EQ(harness_read_file(MSHARE_DIR "/mshare_info", buf,
					   sizeof(buf)),
			 strlen(info));
	region_fd_end("bad_over_info", fd);
}

static const struct harness_test mshare_bad_input_tests[] = {
	{ "mmap_misaligned_start", test_mmap_misaligned_start },
	{ "mmap_start_not_page_aligned", test_mmap_start_not_page_aligned },
	{ "mmap_misaligned_length", test_mmap_misaligned_length },
	{ "mmap_length_not_gib_multiple", test_mmap_length_not_gib_multiple },
	{ "mmap_zero_length", test_mmap_zero_length },
	{ "mmap_not_fixed", test_mmap_not_fixed },
	{ "mmap_not_fixed_existing", test_mmap_not_fixed_existing },
	{ "mmap_other_start", test_mmap_other_start },
	{ "mmap_other_size", test_mmap_other_size },
	{ "mmap_smaller_size", test_mmap_smaller_size },
	{ "mmap_private", test_mmap_private },
	{ "mmap_offset", test_mmap_offset },
	{ "mmap_prot_exec", test_mmap_prot_exec },
	{ "mmap_rdonly_fd_prot_write", test_mmap_rdonly_fd_prot_write },
	{ "mmap_wronly_fd", test_mmap_wronly_fd },
	{ "mmap_info_file", test_mmap_info_file },
	{ "mmap_directory", test_mmap_directory },
	{ "map_after_creator_exit", test_map_after_creator_exit },
	{ "read_short_buffer", test_read_short_buffer },
	{ "read_at_offset", test_read_at_offset },
	{ "read_eof_second_read", test_read_eof_second_read },
	{ "write_region", test_write_region },
	{ "truncate_region", test_truncate_region },
	{ "fallocate_region", test_fallocate_region },
	{ "unlink_twice", test_unlink_twice },
	{ "open_after_unlink", test_open_after_unlink },
	{ "rmdir_non_empty", test_rmdir_non_empty },
	{ "rename_over_region", test_rename_over_region },
	{ "create_name_too_long", test_create_name_too_long },
	{ "mkdir_name_too_long", test_mkdir_name_too_long },
	{ "rename_name_too_long", test_rename_name_too_long },
	{ "mknod_fifo", test_mknod_fifo },
	{ "mknod_char_device", test_mknod_char_device },
	{ "mknod_block_device", test_mknod_block_device },
	{ "mknod_socket", test_mknod_socket },
	{ "symlink", test_symlink },
	{ "mknod_regular_is_region", test_mknod_regular_is_region },
	{ "unlink_info", test_unlink_info },
	{ "rename_info", test_rename_info },
	{ "rename_over_info", test_rename_over_info },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_bad_input_suite, .name = "mshare_bad_input",
	      .tests = mshare_bad_input_tests,
	      .requires = harness_requires_msharefs);
