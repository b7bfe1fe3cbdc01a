// SPDX-License-Identifier: GPL-2.0
/*
 * A region's protection is its creator's: the first mmap() of a region
 * makes the region's own vma with that mmap()'s protection, and every
 * fault of every sharer is handled in that vma.  A sharer may map the
 * region with that much access or less, never more.
 *
 * The port let a read-write mapping of a read-only region succeed, and a
 * write through it then faulted forever: each fault mapped the page
 * read-only in the region's vma and the retried write faulted again.  So
 * the mapping and the write run in a child with a timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

/* Slots 70-71 are this file's. */
#define RO_REGION_ADDR	MSHARE_ADDR(70)
#define RO_READER_ADDR	MSHARE_ADDR(71)

#define RW		(PROT_READ | PROT_WRITE)
/* A child still running after this is stuck, spinning in faults here. */
#define CHILD_SECONDS	10

/* What a child maps, with which access, and what it does then. */
struct prot_map {
	const char *path;
	unsigned long addr;
	int open_flags;
	int prot;
	bool write;		/* write a word after mapping; else read one */
	struct mshare_report *rep;
};

/* Child: open and map the region, then read or write its first word. */
static int prot_map_child(void *arg)
{
	const struct prot_map *m = arg;
	volatile unsigned long *word;
	void *p;
	int fd;

	mshare_report_step(m->rep, "open");
	fd = open(m->path, m->open_flags | O_CLOEXEC);
	if (fd < 0)
		return mshare_report_fail(m->rep, errno);
	mshare_report_step(m->rep, "mmap");
	p = mmap((void *)m->addr, mshare_unit(), m->prot,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return mshare_report_fail(m->rep, errno);
	word = p;
	if (m->write) {
		mshare_report_step(m->rep, "write");
		*word = mshare_pattern(0, 1);
	} else {
		mshare_report_step(m->rep, "read");
		if (*word != 0)
			return mshare_report_fail(m->rep, MSHARE_ERR_VALUE);
	}
	mshare_report_step(m->rep, "munmap");
	if (munmap(p, mshare_unit()))
		return mshare_report_fail(m->rep, errno);
	return mshare_report_done(m->rep);
}

/* Run @m in a child and check it stopped at @want_step with @want_err. */
static void expect_map(const struct prot_map *m, const char *want_step,
		       int want_err)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(harness_run_child_timeout(prot_map_child,
						       (void *)m, CHILD_SECONDS,
						       &res),
			      0);
	MSHARE_ASSERT_CHILD(&res, m->rep, want_step, want_err);
}

/*
 * Create region @name at @addr from a child that maps it read-only and
 * reads a word (the zero page), so that the region's vma is read-only.
 */
static void read_only_region(const char *name, char *path, size_t size,
			     unsigned long addr, struct mshare_report *rep)
{
	struct prot_map creator = {
		.path = path, .addr = addr, .open_flags = O_RDWR,
		.prot = PROT_READ, .rep = rep,
	};
	int fd;

	mshare_path(path, size, name);
	MSHARE_ASSERT_ERRNO(fd = open(path, O_RDWR | O_CREAT | O_EXCL |
				      O_CLOEXEC, 0600), 0);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	expect_map(&creator, NULL, 0);
}

static void region_gone(const char *name)
{
	MSHARE_ASSERT_ERRNO(mshare_unlink(name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(name));
}

/*
 * A read-write mapping of a read-only region is refused as a read-write
 * mapping of a read-only file is: EACCES, though the file is open
 * read-write.  Had it been made, the write after it would spin.
 */
static void test_rw_map_of_read_only_region(void)
{
	struct mshare_report *rep = mshare_report_new();
	char path[256];
	struct prot_map writer = {
		.path = path, .addr = RO_REGION_ADDR, .open_flags = O_RDWR,
		.prot = RW, .write = true, .rep = rep,
	};
	struct mshare_dbg dbg;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	read_only_region("prot_ro", path, sizeof(path), RO_REGION_ADDR, rep);
	expect_map(&writer, "mmap", EACCES);
	/* The refused mapping took no reference: the file's alone is left. */
	MSHARE_ASSERT_EQ(mshare_dbg_find("prot_ro", &dbg), 0);
	MSHARE_ASSERT_EQ(dbg.refcount, 1);
	region_gone("prot_ro");
	mshare_report_free(rep);
}

/* As much access as the region has is fine: a read-only mapping reads. */
static void test_ro_map_of_read_only_region(void)
{
	struct mshare_report *rep = mshare_report_new();
	char path[256];
	struct prot_map reader = {
		.path = path, .addr = RO_READER_ADDR, .open_flags = O_RDWR,
		.prot = PROT_READ, .rep = rep,
	};

	CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
	read_only_region("prot_ro_reader", path, sizeof(path), RO_READER_ADDR,
			 rep);
	expect_map(&reader, NULL, 0);
	region_gone("prot_ro_reader");
	mshare_report_free(rep);
}

static const struct harness_test mshare_protection_tests[] = {
	{ "rw_map_of_read_only_region", test_rw_map_of_read_only_region },
	{ "ro_map_of_read_only_region", test_ro_map_of_read_only_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_protection_suite, .name = "mshare_protection",
	      .tests = mshare_protection_tests,
	      .requires = harness_requires_msharefs);
