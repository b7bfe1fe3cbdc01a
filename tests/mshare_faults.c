// SPDX-License-Identifier: GPL-2.0
/*
 * Page faults in a shared region: whoever touches a page first, every
 * process sees the same page; racing first touches make one page; an
 * address with no vma behind it in the region, and a write through a
 * read-only mapping, get SIGSEGV.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define FIRST_ADDR	MSHARE_ADDR(4)
#define RACE_ADDR	MSHARE_ADDR(5)
#define NOVMA_ADDR	MSHARE_ADDR(6)	/* and the unit after it */
#define RDONLY_ADDR	MSHARE_ADDR(8)
#define NRACE		12
#define FAR_OFF		(100UL << 20)

/* Exit codes of the SIGSEGV children when no signal came. */
enum {
	SEGV_CHILD_NO_SIGNAL = 90,
	SEGV_CHILD_SETUP,
	SEGV_CHILD_READ_WRONG,
};

static void test_non_creator_first_touch(void)
{
	struct mshare_agent creator, other;
	int fd = mshare_create("flt_first");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "flt_first",
						 FIRST_ADDR, 3), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&other, "flt_first",
						 FIRST_ADDR, 3), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_MAP_FOLLOW, 0), 0);
	/* Nobody touched the region yet: the other one builds its tables. */
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_WRITE, FAR_OFF), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, FAR_OFF), 0);
	/* And the other way round, on a page of a table that exists. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE,
					FAR_OFF + PAGE), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&other, AGENT_CHECK, FAR_OFF + PAGE),
			0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&other), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("flt_first"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("flt_first"));
}

/*
 * Page-table levels under a PGD entry, each of 512 entries: a region is
 * one PGD entry's span.  2 (PMD, PTE) on UML's 3 levels, 3 (PUD too) on
 * x86-64's 4, 4 (P4D too) on its 5.
 */
static unsigned int levels_below_pgd(void)
{
	return (__builtin_ctzl(mshare_unit()) - __builtin_ctzl(PAGE)) / 9;
}

/*
 * Of those, the levels whose tables an mm counts in its pgtables_bytes:
 * PUD, PMD and PTE tables (mm_inc_nr_puds(), mm_inc_nr_pmds(),
 * mm_inc_nr_ptes()); no counter exists for P4D tables.
 */
static unsigned int counted_levels_below_pgd(void)
{
	return levels_below_pgd() < 3 ? levels_below_pgd() : 3;
}

static void test_concurrent_first_touch(void)
{
	struct mshare_agent creator, racers[NRACE];
	struct mshare_dbg before, after;
	int i, started = 0, fd = mshare_create("flt_race");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "flt_race",
						 RACE_ADDR, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	for (i = 0; i < NRACE; i++) {
		if (mshare_agent_start(&racers[i], "flt_race", RACE_ADDR, i))
			break;
		started++;
		CU_ASSERT_EQUAL(mshare_agent_do(&racers[i], AGENT_MAP_FOLLOW,
						0), 0);
	}
	CU_ASSERT_EQUAL(started, NRACE);
	CU_ASSERT_EQUAL(mshare_dbg_find("flt_race", &before), 0);
	/* All blocked on their pipes: release them together. */
	for (i = 0; i < started; i++)
		mshare_agent_send(&racers[i], AGENT_WRITE, i * sizeof(long));
	for (i = 0; i < started; i++)
		CU_ASSERT_EQUAL(mshare_agent_reply(&racers[i]), 0);
	CU_ASSERT_EQUAL(mshare_dbg_find("flt_race", &after), 0);
	printf("\n    region: %lu pages, %lu kB page tables before; %lu pages, %lu kB after %d racing first touches\n",
	       before.rss_pages, before.pgtables_bytes / 1024,
	       after.rss_pages, after.pgtables_bytes / 1024, started);
	CU_ASSERT_EQUAL(before.rss_pages, 0);
	CU_ASSERT_EQUAL(after.rss_pages, 1);
	/* One table of each level below the region's PGD entry, once. */
	CU_ASSERT_EQUAL(after.pgtables_bytes - before.pgtables_bytes,
			counted_levels_below_pgd() * PAGE);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK_ALL, started),
			0);
	for (i = 0; i < started; i++)
		CU_ASSERT_EQUAL(mshare_agent_stop(&racers[i]), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("flt_race"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("flt_race"));
}

/* Open the region and map it where read() says, with prot. */
static void *map_follow(const char *name, int prot)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	mshare_path(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	if (mshare_read_info(fd, &info) || !info.start) {
		close(fd);
		return MAP_FAILED;
	}
	p = mmap((void *)info.start, info.size, prot, MAP_SHARED | MAP_FIXED,
		 fd, 0);
	close(fd);
	return p;
}

/*
 * A region's vma in the region's mm is as large as the creator's mapping.
 * The faithful port let a later mapping grow past it with mremap(), and a
 * fault there found no vma in the region's mm (find_shared_vma() returned
 * none: SIGSEGV).  mremap() of a region is refused now (EINVAL, see
 * mshare_vma_changes); the unit after the region is not mapped at all, and
 * a touch there is a plain SIGSEGV.
 */
static int child_touch_beyond_region(void *arg)
{
	unsigned char *p = map_follow(arg, PROT_READ | PROT_WRITE);

	if (p == MAP_FAILED)
		return SEGV_CHILD_SETUP;
	/* Inside the region: fine. */
	p[PAGE] = 1;
	if (mremap(p, mshare_unit(), 2 * mshare_unit(), 0) != MAP_FAILED ||
	    errno != EINVAL)
		return SEGV_CHILD_SETUP;
	p[mshare_unit() + PAGE] = 1;
	return SEGV_CHILD_NO_SIGNAL;
}

static void test_no_vma_sigsegv(void)
{
	struct harness_child_result res;
	struct mshare_agent creator;
	int fd = mshare_create("flt_novma");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "flt_novma",
						 NOVMA_ADDR, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL(harness_run_child(child_touch_beyond_region,
					  "flt_novma", &res), 0);
	CU_ASSERT_FALSE(res.exited);
	CU_ASSERT_TRUE(res.signaled);
	CU_ASSERT_EQUAL(res.signo, SIGSEGV);
	if (res.exited)
		printf("\n    child exited with %d instead of SIGSEGV\n",
		       res.status);
	/* The region is still fine for its creator. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_dbg_refcount("flt_novma"), 2);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("flt_novma"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("flt_novma"));
}

/* Read a page another process wrote, then write it. */
static int child_read_then_write(void *arg)
{
	volatile unsigned long *p = map_follow(arg, PROT_READ);

	if (p == MAP_FAILED)
		return SEGV_CHILD_SETUP;
	if (*p != mshare_pattern(0, 7))
		return SEGV_CHILD_READ_WRONG;
	*p = 0;
	return SEGV_CHILD_NO_SIGNAL;
}

/* Write first, to a page another process wrote (its PTE is writable). */
static int child_write_first(void *arg)
{
	volatile unsigned long *p = map_follow(arg, PROT_READ);

	if (p == MAP_FAILED)
		return SEGV_CHILD_SETUP;
	p[PAGE / sizeof(long)] = 0;
	return SEGV_CHILD_NO_SIGNAL;
}

static void test_readonly_write_sigsegv(void)
{
	struct harness_child_result res;
	struct mshare_agent creator;
	int fd = mshare_create("flt_rdonly");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "flt_rdonly",
						 RDONLY_ADDR, 7), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_WRITE, PAGE), 0);

	CU_ASSERT_EQUAL(harness_run_child(child_read_then_write,
					  "flt_rdonly", &res), 0);
	CU_ASSERT_TRUE(res.signaled && res.signo == SIGSEGV);
	if (res.exited)
		printf("\n    read-then-write child exited with %d\n",
		       res.status);
	CU_ASSERT_EQUAL(harness_run_child(child_write_first, "flt_rdonly",
					  &res), 0);
	CU_ASSERT_TRUE(res.signaled && res.signo == SIGSEGV);
	if (res.exited)
		printf("\n    write-first child exited with %d\n", res.status);

	/* Nothing was written. */
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, PAGE), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("flt_rdonly"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("flt_rdonly"));
}

static const struct harness_test mshare_faults_tests[] = {
	{ "non_creator_first_touch", test_non_creator_first_touch },
	{ "concurrent_first_touch", test_concurrent_first_touch },
	{ "no_vma_sigsegv", test_no_vma_sigsegv },
	{ "readonly_write_sigsegv", test_readonly_write_sigsegv },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_faults_suite, .name = "mshare_faults",
	      .tests = mshare_faults_tests,
	      .requires = harness_requires_msharefs);
