// SPDX-License-Identifier: GPL-2.0
/*
 * Aging through the rmap, as reclaim does it: idle page tracking
 * (/sys/kernel/mm/page_idle/bitmap) makes every PTE that maps a page old
 * through the page's rmap and marks the page idle; an access afterwards
 * makes a PTE young, and the page reads back as not idle.  Reclaim's
 * folio_referenced() takes the same walk to tell the pages in use from
 * the others.
 *
 * A memfd page's rmap leads to the process's own PTE.  A region page's
 * leads to the region's mm, whose PTE every sharer uses through its PGD
 * entry: the sharer's access must make that PTE young again, or a page in
 * use looks idle (and reclaim would take it).  On UML the sharer's host
 * mapping of the page must go for its next access to fault at all.
 *
 * Whether A's own access after the marking sets the bit is the CPU's
 * business where a translation it cached survives the marking: x86 does
 * not flush the TLB when the accessed bit is cleared (see
 * ptep_clear_flush_young()), and an access that hits the TLB sets
 * nothing, on a memfd as on a region.  There A's stages are printed, not
 * checked, and B, a process that never had the pages (so every access of
 * its is a walk of the page tables), reads them: for a region it walks
 * the region's page tables, and must make the region's PTEs young.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
#define IDLE_PAGES	32
#define IDLE_OFF	(4 * PT_SPAN)
/*
 * Faulted after the test's pages: a new folio waits in a per-CPU batch
 * (up to 31) before it is on an LRU list, and idle page tracking sees LRU
 * folios only.  The filler pushes the test's pages out of the batch.
 */
#define FILLER_PAGES	64
#define CHILD_TIMEOUT	30

enum {
	IDLE_MARKED,		/* marked idle, nothing accessed since */
	IDLE_A_READ,		/* marked idle, then A reads every page */
	IDLE_A_WRITE,		/* marked idle, then A writes every page */
	IDLE_B_READ,		/* marked idle, then B (a new process) reads */
	IDLE_STAGES,
};

static const char *const idle_stage_name[IDLE_STAGES] = {
	"marked idle", "then A reads", "then A writes", "then B reads",
};

struct idle_case {
	struct shm_target target;
	struct mshare_report *report;
	long *idle;		/* pages idle per stage, shared with the test */
};

static const char *requires_idle_bitmap(void)
{
	const char *why = harness_requires_msharefs();

	if (why)
		return why;
	if (access(IDLE_BITMAP, R_OK | W_OK))
		return IDLE_BITMAP " is not there (CONFIG_IDLE_PAGE_TRACKING)";
	return NULL;
}

static volatile unsigned long *page_word(volatile unsigned long *p, int i)
{
	return &p[(IDLE_OFF + (unsigned long)i * PAGE) / sizeof(long)];
}

static void touch_pages(volatile unsigned long *p, bool write)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < IDLE_PAGES; i++) {
		if (write)
			*page_word(p, i) = i + 1;
		else
			sum += *page_word(p, i);
	}
	(void)sum;
}

/*
 * B: a process that maps the memory anew and reads every test page.  0,
 * or nonzero if it could not.
 */
static int new_process_reads(const struct shm_target *t)
{
	struct harness_child_result res;
	volatile unsigned long *p;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		p = shm_target_map(t, PROT_READ);
		if (!p)
			_exit(1);
		touch_pages(p, false);
		_exit(0);
	}
	if (harness_wait_child_timeout(pid, CHILD_TIMEOUT, &res))
		return -1;
	return res.exited && !res.status ? 0 : -1;
}

/* The PFN of every test page, from our pagemap; -1 if one is missing. */
static int read_pfns(volatile unsigned long *p, uint64_t *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t entry;
	int i, ret = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < IDLE_PAGES && !ret; i++) {
		if (harness_pagemap_entry(fd, (uintptr_t)page_word(p, i),
					  &entry) ||
		    !(entry & PM_PRESENT) || !(entry & PM_PFN_MASK))
			ret = -1;
		pfn[i] = entry & PM_PFN_MASK;
	}
	close(fd);
	return ret;
}

/*
 * Mark every test page idle: one bitmap word per page, its bit alone.
 * 0, errno, or MSHARE_ERR_VALUE for a short write.
 */
static int mark_idle(int bitmap, const uint64_t *pfn)
{
	uint64_t word;
	ssize_t n;
	int i;

	for (i = 0; i < IDLE_PAGES; i++) {
		word = 1ULL << (pfn[i] % 64);
		n = pwrite(bitmap, &word, sizeof(word),
			   pfn[i] / 64 * sizeof(word));
		if (n != sizeof(word))
			return n < 0 ? errno : MSHARE_ERR_VALUE;
	}
	return 0;
}

/* How many test pages read back idle; -1 on a read error. */
static long count_idle(int bitmap, const uint64_t *pfn)
{
	uint64_t word;
	long idle = 0;
	int i;

	for (i = 0; i < IDLE_PAGES; i++) {
		if (pread(bitmap, &word, sizeof(word),
			  pfn[i] / 64 * sizeof(word)) != sizeof(word))
			return -1;
		idle += !!(word & (1ULL << (pfn[i] % 64)));
	}
	return idle;
}

static int idle_child(void *arg)
{
	struct idle_case *c = arg;
	struct mshare_report *r = c->report;
	uint64_t pfn[IDLE_PAGES];
	volatile unsigned long *p;
	volatile char *filler;
	int bitmap, err, i;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "fault in");
	touch_pages(p, true);
	filler = mmap(NULL, FILLER_PAGES * PAGE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (filler == MAP_FAILED)
		return mshare_report_fail(r, errno);
	for (i = 0; i < FILLER_PAGES; i++)
		filler[i * PAGE] = 1;
	mshare_report_step(r, "pagemap");
	if (read_pfns(p, pfn))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "open bitmap");
	bitmap = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	if (bitmap < 0)
		return mshare_report_fail(r, errno);

	mshare_report_step(r, "mark idle");
	err = mark_idle(bitmap, pfn);
	if (err)
		return mshare_report_fail(r, err);
	c->idle[IDLE_MARKED] = count_idle(bitmap, pfn);
	mshare_report_step(r, "mark idle, A reads");
	err = mark_idle(bitmap, pfn);
	if (err)
		return mshare_report_fail(r, err);
	touch_pages(p, false);
	c->idle[IDLE_A_READ] = count_idle(bitmap, pfn);
	mshare_report_step(r, "mark idle, A writes");
	err = mark_idle(bitmap, pfn);
	if (err)
		return mshare_report_fail(r, err);
	touch_pages(p, true);
	c->idle[IDLE_A_WRITE] = count_idle(bitmap, pfn);
	mshare_report_step(r, "mark idle, B reads");
	err = mark_idle(bitmap, pfn);
	if (err)
		return mshare_report_fail(r, err);
	if (new_process_reads(&c->target))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	c->idle[IDLE_B_READ] = count_idle(bitmap, pfn);
	close(bitmap);
	return mshare_report_done(r);
}

static void run_idle_case(struct idle_case *c)
{
	static const long want[IDLE_STAGES] = {
		[IDLE_MARKED] = IDLE_PAGES,
		[IDLE_A_READ] = 0,
		[IDLE_A_WRITE] = 0,
		[IDLE_B_READ] = 0,
	};
	struct harness_child_result res;
	int i;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	c->idle = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->idle != MAP_FAILED);
	for (i = 0; i < IDLE_STAGES; i++)
		c->idle[i] = -1;
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(idle_child, c, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	printf("\n    %s: idle pages of %d:", shm_kind_name(c->target.kind),
	       IDLE_PAGES);
	for (i = 0; i < IDLE_STAGES; i++)
		printf(" %s %ld;", idle_stage_name[i], c->idle[i]);
	printf("\n");
	MSHARE_ASSERT_STAGES(c->idle, want, idle_stage_name, IDLE_STAGES,
			     1UL << IDLE_A_READ | 1UL << IDLE_A_WRITE);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->idle, PAGE);
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct idle_case, accessed_after_idle, run_idle_case,
	      MSHARE_ADDR(15), MSHARE_ADDR(16))

/*
 * The end of the last zone, from /proc/zoneinfo: each populated zone
 * prints "spanned N" and later "start_pfn: S".  -1 if there is none.
 */
static long zones_end_pfn(void)
{
	static char text[65536];
	long spanned = 0, start, end = -1;
	char *line, *save;

	if (harness_read_file("/proc/zoneinfo", text, sizeof(text)) < 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " spanned %ld", &spanned) == 1)
			continue;
		if (sscanf(line, " start_pfn: %ld", &start) == 1 && spanned &&
		    start + spanned > end) {
			end = start + spanned;
			spanned = 0;
		}
	}
	return end;
}

/*
 * The bitmap has a bit for every PFN below the end of memory, one 64-bit
 * word for 64 PFNs.  Where memory does not end on a multiple of 64 pages
 * (x86 under qemu: the firmware keeps the top of RAM), the last word
 * covers its pages part way, and must read and write as any other word:
 * otherwise a read of it is an early end of file, a write of it returns
 * 0 without marking anything, and the pages in it can never be tracked.
 */
static void bitmap_covers_every_pfn(void)
{
	long end_pfn = zones_end_pfn();
	uint64_t words[512], zero = 0;
	off_t size = 0, want;
	ssize_t n;
	int fd;

	CU_ASSERT_FATAL(end_pfn > 0);
	want = (end_pfn + 63) / 64 * sizeof(uint64_t);
	fd = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	while ((n = pread(fd, words, sizeof(words), size)) > 0)
		size += n;
	printf("\n    memory ends at PFN %#lx (%ld past a word); bitmap read: %lld bytes, want %lld\n",
	       end_pfn, end_pfn % 64, (long long)size, (long long)want);
	MSHARE_ASSERT_EQ(n, 0);
	MSHARE_ASSERT_EQ(size, want);
	/* A word of zeroes marks nothing idle. */
	MSHARE_ASSERT_EQ(pwrite(fd, &zero, sizeof(zero), want - sizeof(zero)),
			 sizeof(zero));
	MSHARE_ASSERT_ERRNO(pwrite(fd, &zero, sizeof(zero), want), ENXIO);
	close(fd);
}

static const struct harness_test mshare_idle_page_tests[] = {
	{ "bitmap_covers_every_pfn", bitmap_covers_every_pfn },
	{ "accessed_after_idle_region", accessed_after_idle_region },
	{ "accessed_after_idle_memfd", accessed_after_idle_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_idle_page_suite, .name = "mshare_idle_page",
	      .tests = mshare_idle_page_tests,
	      .requires = requires_idle_bitmap);
