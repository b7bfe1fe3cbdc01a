// SPDX-License-Identifier: GPL-2.0
/*
 * File-backed memory in a region, the article's pattern: "it is possible
 * to use mremap() to dump that initial mapping and substitute file-backed
 * memory afterward".  One sharer maps a tmpfs file MAP_SHARED and moves
 * the mapping with mremap(MREMAP_MAYMOVE | MREMAP_FIXED) onto addresses
 * inside the region; that part of the region is then the file's, for
 * every sharer: another process, mapped before the move, reads the file
 * there and its writes reach the file; the anonymous memory the file
 * replaced is freed; truncating the file gives SIGBUS there; the region
 * keeps the file after its last name and descriptor are gone.
 *
 * The control, a MAP_SHARED memfd: the move replaces a part of the
 * mover's own mapping only, and the others go on seeing the memfd.
 *
 * Refused (EINVAL unless noted): a source that is not one shared mapping
 * of a regular file (private, anonymous), a size change, MREMAP_DONTUNMAP,
 * a target past the end of the region or over a part that is a file's
 * already; a sharer that opened the region read-only, and a file opened
 * read-only onto a writable part (EACCES).  The part keeps the region's
 * protection there: mprotect() changes a region, a move does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mount_util.h"
#include "mshare_util.h"
#include "shm_target.h"

#define MREMAP_ADDR(slot)	MSHARE_ADDR(130 + (slot))
#define CHILD_TIMEOUT		30
#define FILE_DIR		"/run/mshare-mremap"
#define LAYOUT_PATH		"/sys/kernel/debug/mshare/layout"

/* The file: 16 pages, moved to page 32 of the region */
#define FILE_PAGES		16
#define FILE_LEN		(FILE_PAGES * PAGE)
#define FILE_OFF		(32 * PAGE)
/* The agents' tag whose pattern the file holds, by region offset */
#define FILE_TAG		9

struct mremap_case {
	struct shm_target target;
	char file[128];
};

static long want(const struct mremap_case *c, long region, long memfd)
{
	return c->target.kind == SHM_REGION ? region : memfd;
}

/* A tmpfs file holding mshare_pattern(FILE_OFF + off, FILE_TAG) */
static int make_file(struct mremap_case *c)
{
	unsigned long off, word;
	int fd, ret;

	ret = harness_mount("tmpfs", FILE_DIR, "tmpfs", "mode=1777");
	if (ret)
		return ret;
	snprintf(c->file, sizeof(c->file), FILE_DIR "/%s", c->target.name);
	fd = open(c->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	for (off = 0; off < FILE_LEN; off += PAGE) {
		word = mshare_pattern(FILE_OFF + off, FILE_TAG);
		if (pwrite(fd, &word, sizeof(word), off) != sizeof(word)) {
			close(fd);
			return -EIO;
		}
	}
	close(fd);
	return 0;
}

/* The word of the file at @off, or -1 */
static long file_word(const struct mremap_case *c, unsigned long off)
{
	unsigned long word;
	int fd = open(c->file, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &word, sizeof(word), off);
	close(fd);
	return n == sizeof(word) ? (long)word : -1;
}

static int set_file_word(const struct mremap_case *c, unsigned long off,
			 unsigned long word)
{
	int fd = open(c->file, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pwrite(fd, &word, sizeof(word), off);
	close(fd);
	return n == sizeof(word) ? 0 : -EIO;
}

/*
 * The mover: map the file and the memory, move the file's mapping onto
 * FILE_OFF, read it there, and check that the old mapping went.
 */
static int moving_child(void *arg)
{
	struct mremap_case *c = arg;
	char *p, *f, *moved;
	int fd;

	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 100;
	fd = open(c->file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 101;
	f = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED)
		return 102;
	moved = mremap(f, FILE_LEN, FILE_LEN, MREMAP_MAYMOVE | MREMAP_FIXED,
		       p + FILE_OFF);
	/* Not read here: the test counts the region's pages before that */
	if (moved != p + FILE_OFF)
		return 103;
	/* Nothing mapped where the file was */
	if (msync(f, PAGE, MS_ASYNC) == 0 || errno != ENOMEM)
		return 105;
	return 0;
}

static long rss_pages(const struct mremap_case *c)
{
	struct mshare_dbg dbg;

	if (mshare_dbg_find(c->target.name, &dbg))
		return -1;
	return dbg.rss_pages;
}

/* Does the layout list the file at FILE_OFF of the region? */
static bool layout_has_file(const struct mremap_case *c)
{
	static char text[16384];
	char line[512];

	if (harness_read_file(LAYOUT_PATH, text, sizeof(text)) < 0)
		return false;
	snprintf(line, sizeof(line), "  %#lx-%#lx rw- file %s pgoff=0x0\n",
		 c->target.addr + FILE_OFF, c->target.addr + FILE_OFF +
		 FILE_LEN, c->file);
	return strstr(text, line);
}

static void run_file_into(struct mremap_case *c)
{
	struct mshare_agent other;
	struct harness_child_result res;
	unsigned long written = FILE_OFF + 3 * PAGE;
	long rss = 0;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	MSHARE_ASSERT_EQ(make_file(c), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&other, &c->target, FILE_TAG),
			      0);
	/* Anonymous memory where the file goes: 16 pages */
	MSHARE_ASSERT_EQ(mshare_agent_do(&other, AGENT_FILL, FILE_OFF +
					 FILE_LEN), 0);
	if (c->target.kind == SHM_REGION)
		rss = rss_pages(c);

	CU_ASSERT_EQUAL(harness_run_child_timeout(moving_child, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT);
	/* The 16 anonymous pages the file replaced are freed */
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(rss - rss_pages(c), FILE_PAGES);

	/* The other sharer, mapped before the move, reads the file */
	MSHARE_ASSERT_EQ(mshare_agent_do(&other, AGENT_CHECK, FILE_OFF),
			 want(c, 0, AGENT_ERR_CHECK));
	/* and writes it: the word is cleared in the file first */
	MSHARE_ASSERT_EQ(set_file_word(c, written - FILE_OFF, 0), 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&other, AGENT_WRITE, written), 0);
	MSHARE_ASSERT_EQ(file_word(c, written - FILE_OFF),
			 want(c, mshare_pattern(written, FILE_TAG), 0));
	/* The 16 anonymous pages the file replaced were freed */
	if (c->target.kind == SHM_REGION)
		CU_ASSERT_TRUE(layout_has_file(c));

	/* The region keeps the file without a name or a descriptor */
	MSHARE_ASSERT_EQ(unlink(c->file), 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&other, AGENT_CHECK, written), 0);

	CU_ASSERT_EQUAL(mshare_agent_stop(&other), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/* Reads @c's memory at FILE_OFF in a new process: how it ends */
static int reading_child(void *arg)
{
	struct mremap_case *c = arg;
	char *p = shm_target_map(&c->target, PROT_READ);

	if (!p)
		return 100;
	return *(volatile unsigned long *)(p + FILE_OFF) ==
	       mshare_pattern(FILE_OFF, FILE_TAG) ? 0 : 101;
}

static long read_in_new_process(struct mremap_case *c)
{
	struct harness_child_result res;

	if (harness_run_child_timeout(reading_child, c, CHILD_TIMEOUT, &res))
		return -1;
	return shm_child_outcome(&res);
}

/* Truncating the file: SIGBUS in every sharer, as for a file mapping */
static void run_truncate(struct mremap_case *c)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	MSHARE_ASSERT_EQ(make_file(c), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(moving_child, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT);
	MSHARE_ASSERT_EQ(read_in_new_process(c),
			 want(c, SHM_CHILD_EXIT, SHM_CHILD_EXIT + 101));
	MSHARE_ASSERT_EQ(truncate(c->file, 0), 0);
	MSHARE_ASSERT_EQ(read_in_new_process(c),
			 want(c, SIGBUS, SHM_CHILD_EXIT + 101));
	MSHARE_ASSERT_EQ(unlink(c->file), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

SHM_TEST_PAIR(struct mremap_case, file_into, run_file_into,
	      MREMAP_ADDR(0), MREMAP_ADDR(1))
SHM_TEST_PAIR(struct mremap_case, truncate, run_truncate,
	      MREMAP_ADDR(2), MREMAP_ADDR(3))

/* The refusals, each in the mover's process: errno of each mremap() */
enum {
	MOVE_PRIVATE,
	MOVE_ANON,
	MOVE_GROW,
	MOVE_DONTUNMAP,
	MOVE_PAST_END,
	MOVE_ONTO_FILE,
	MOVE_RDONLY_SHARER,
	MOVE_RDONLY_FILE,
	MOVE_NR
};

static const char *const move_names[MOVE_NR] = {
	"private file mapping", "anonymous mapping", "size change",
	"MREMAP_DONTUNMAP", "past the region's end", "onto a file's part",
	"from a read-only sharer", "a read-only file onto a writable part",
};

struct refusal_run {
	struct mremap_case *c;
	int *err;		/* MOVE_NR, shared with the test */
};

static int move_err(void *from, unsigned long len, unsigned long new_len,
		    int flags, void *to)
{
	void *q = mremap(from, len, new_len, flags, to);

	if (q == MAP_FAILED)
		return errno;
	return q == to ? 0 : -1;
}

static void *map_file(const char *path, int flags)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	void *f;

	if (fd < 0)
		return MAP_FAILED;
	f = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE, flags, fd, 0);
	close(fd);
	return f;
}

static int refusing_child(void *arg)
{
	const int fixed = MREMAP_MAYMOVE | MREMAP_FIXED;
	struct refusal_run *run = arg;
	struct mremap_case *c = run->c;
	char *p, *f, *anon, *end, *ro;
	int *err = run->err, ro_fd;

	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 100;
	end = p + mshare_unit();
	f = map_file(c->file, MAP_PRIVATE);
	err[MOVE_PRIVATE] = move_err(f, FILE_LEN, FILE_LEN, fixed,
				     p + FILE_OFF);
	anon = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	err[MOVE_ANON] = move_err(anon, FILE_LEN, FILE_LEN, fixed,
				  p + FILE_OFF);
	f = map_file(c->file, MAP_SHARED);
	err[MOVE_GROW] = move_err(f, FILE_LEN, 2 * FILE_LEN, fixed,
				  p + FILE_OFF);
	err[MOVE_DONTUNMAP] = move_err(f, FILE_LEN, FILE_LEN,
				       fixed | MREMAP_DONTUNMAP, p + FILE_OFF);
	err[MOVE_PAST_END] = move_err(f, FILE_LEN, FILE_LEN, fixed,
				      end - FILE_LEN / 2);
	if (move_err(f, FILE_LEN, FILE_LEN, fixed, p + FILE_OFF))
		return 101;
	f = map_file(c->file, MAP_SHARED);
	err[MOVE_ONTO_FILE] = move_err(f, FILE_LEN, FILE_LEN, fixed,
				       p + FILE_OFF + PAGE);
	ro_fd = open(c->file, O_RDONLY | O_CLOEXEC);
	if (ro_fd < 0)
		return 104;
	ro = mmap(NULL, FILE_LEN, PROT_READ, MAP_SHARED, ro_fd, 0);
	close(ro_fd);
	err[MOVE_RDONLY_FILE] = move_err(ro, FILE_LEN, FILE_LEN, fixed,
					 p + 2 * FILE_OFF);
	if (munmap(p, mshare_unit()))
		return 102;
	p = shm_target_map(&c->target, PROT_READ);
	if (!p)
		return 103;
	err[MOVE_RDONLY_SHARER] = move_err(f, FILE_LEN, FILE_LEN, fixed,
					   p + 2 * FILE_OFF);
	return 0;
}

static void refusals_region(void)
{
	static const int want_err[MOVE_NR] = {
		EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EINVAL, EACCES, EACCES,
	};
	struct mremap_case c = { .target = { .kind = SHM_REGION,
					     .name = "refusals_region",
					     .addr = MREMAP_ADDR(4) } };
	struct refusal_run run = { .c = &c };
	struct harness_child_result res;
	int i;

	run.err = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(run.err != MAP_FAILED);
	memset(run.err, 0xff, MOVE_NR * sizeof(int));
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c.target), 0);
	MSHARE_ASSERT_EQ(make_file(&c), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(refusing_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT);
	for (i = 0; i < MOVE_NR; i++)
		mshare_assert_errno(run.err[i], want_err[i], move_names[i],
				    __LINE__, __FILE__, __func__);
	MSHARE_ASSERT_EQ(unlink(c.file), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c.target), 0);
	munmap(run.err, PAGE);
}

static const struct harness_test mshare_mremap_file_tests[] = {
	{ "file_into_region", file_into_region },
	{ "file_into_memfd", file_into_memfd },
	{ "truncate_region", truncate_region },
	{ "truncate_memfd", truncate_memfd },
	{ "refusals_region", refusals_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_mremap_file_suite, .name = "mshare_mremap_file",
	      .tests = mshare_mremap_file_tests,
	      .requires = harness_requires_msharefs);
