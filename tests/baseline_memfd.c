// SPDX-License-Identifier: GPL-2.0
/*
 * Baseline without mshare: MAP_SHARED memfd memory seen across fork, and
 * the /proc/meminfo figures the mshare tests will compare against.
 * Sizes are small on purpose: a page fault in UML costs ~200us.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "harness.h"

#define PAGE		4096UL
#define TOUCH_PAGES	256
#define PT_MAP_SIZE	(64UL << 20)
/* 3-level tables, 4 KiB pages: one PTE page maps 2 MiB. */
#define PT_SPAN		(2UL << 20)
#define PT_MIN_GROWTH_KB \
	((PT_MAP_SIZE / PT_SPAN) * (PAGE / 1024))

/* Child exit codes: what went wrong, for the parent's assertion. */
enum {
	CHILD_OK = 0,
	CHILD_SAW_WRONG = 1,
	CHILD_SETUP = 2,
	CHILD_PT_SHORT = 3,
	CHILD_VMPTE_SHORT = 4,
};

static unsigned char *map_memfd(size_t size)
{
	return harness_map_memfd(NULL, size, "baseline");
}

/*
 * The same, but 2 MiB aligned: an unaligned mapping shares its first and
 * last page-table page with its neighbours, which may already exist, and
 * then the growth measured is short by a page or two.
 */
static unsigned char *map_memfd_aligned(size_t size)
{
	unsigned long start;
	void *resv;

	resv = mmap(NULL, size + PT_SPAN, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (resv == MAP_FAILED)
		return MAP_FAILED;
	start = ((unsigned long)resv + PT_SPAN - 1) & ~(PT_SPAN - 1);
	return harness_map_memfd((void *)start, size, "baseline");
}

static int child_check_and_reply(void *arg)
{
	unsigned char *buf = arg;

	if (buf[0] != 0x11 || buf[PAGE - 1] != 0x11)
		return CHILD_SAW_WRONG;
	buf[1] = 0x22;
	return CHILD_OK;
}

static void test_shared_write_roundtrip(void)
{
	struct harness_child_result res;
	unsigned char *buf = map_memfd(PAGE);

	CU_ASSERT_FATAL(buf != MAP_FAILED);
	memset(buf, 0x11, PAGE);
	CU_ASSERT_EQUAL(harness_run_child(child_check_and_reply, buf, &res),
			0);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, CHILD_OK);
	CU_ASSERT_EQUAL(buf[1], 0x22);
	CU_ASSERT_EQUAL(buf[2], 0x11);
	munmap(buf, PAGE);
}

static int child_touch_pages(void *arg)
{
	unsigned char *buf = arg;
	size_t i;

	for (i = 0; i < TOUCH_PAGES; i++)
		buf[i * PAGE] = (unsigned char)(i + 1);
	return CHILD_OK;
}

static void test_child_touches_pages(void)
{
	struct harness_child_result res;
	unsigned char *buf = map_memfd(TOUCH_PAGES * PAGE);
	size_t i, wrong = 0;

	CU_ASSERT_FATAL(buf != MAP_FAILED);
	CU_ASSERT_EQUAL(harness_run_child(child_touch_pages, buf, &res), 0);
	CU_ASSERT_TRUE(res.exited && res.status == CHILD_OK);
	for (i = 0; i < TOUCH_PAGES; i++)
		wrong += buf[i * PAGE] != (unsigned char)(i + 1);
	CU_ASSERT_EQUAL(wrong, 0);
	munmap(buf, TOUCH_PAGES * PAGE);
}

static void test_meminfo_plausible(void)
{
	long total = harness_meminfo_kb("MemTotal");
	long free_kb = harness_meminfo_kb("MemFree");
	long pt = harness_meminfo_kb("PageTables");

	printf("\n    MemTotal %ld kB, MemFree %ld kB, PageTables %ld kB\n",
	       total, free_kb, pt);
	CU_ASSERT(total > 0);
	CU_ASSERT(free_kb > 0);
	CU_ASSERT(free_kb < total);
	/* pid 1 and this process have page tables. */
	CU_ASSERT(pt > 0);
}

/*
 * Measured in the child while it holds the mapping: the figure is what
 * one process pays in page tables for a sparse shared mapping, i.e. what
 * mshare is meant to save.  VmPTE is this process only and must always
 * grow; PageTables is system-wide, so it is only held to the same bar as
 * init in UML, where nothing else runs (a busy host adds noise).
 */
static int child_measure_page_tables(void *arg)
{
	unsigned char *buf = map_memfd_aligned(PT_MAP_SIZE);
	long before, after, pte_before, pte_after;
	size_t off;

	(void)arg;
	if (buf == MAP_FAILED)
		return CHILD_SETUP;
	harness_vm_stat_refresh();
	before = harness_meminfo_kb("PageTables");
	pte_before = harness_proc_status_kb("VmPTE");
	for (off = 0; off < PT_MAP_SIZE; off += PT_SPAN)
		buf[off] = 1;
	harness_vm_stat_refresh();
	after = harness_meminfo_kb("PageTables");
	pte_after = harness_proc_status_kb("VmPTE");
	printf("\n    PageTables %ld -> %ld kB (+%ld), VmPTE %ld -> %ld kB (+%ld), want +%lu\n",
	       before, after, after - before, pte_before, pte_after,
	       pte_after - pte_before, PT_MIN_GROWTH_KB);
	if (before < 0 || after < 0 || pte_before < 0 || pte_after < 0)
		return CHILD_SETUP;
	if (pte_after - pte_before < (long)PT_MIN_GROWTH_KB)
		return CHILD_VMPTE_SHORT;
	if (harness_is_init() && after - before < (long)PT_MIN_GROWTH_KB)
		return CHILD_PT_SHORT;
	return CHILD_OK;
}

static void test_page_tables_grow(void)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(harness_run_child(child_measure_page_tables,
						NULL, &res), 0);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_NOT_EQUAL(res.status, CHILD_SETUP);
	CU_ASSERT_NOT_EQUAL(res.status, CHILD_VMPTE_SHORT);
	CU_ASSERT_NOT_EQUAL(res.status, CHILD_PT_SHORT);
	CU_ASSERT_EQUAL(res.status, CHILD_OK);
}

static const struct harness_test baseline_tests[] = {
	{ "shared_write_roundtrip", test_shared_write_roundtrip },
	{ "child_touches_pages", test_child_touches_pages },
	{ "meminfo_plausible", test_meminfo_plausible },
	{ "page_tables_grow", test_page_tables_grow },
	{ NULL, NULL },
};

HARNESS_SUITE(baseline_suite, .name = "baseline", .tests = baseline_tests);
