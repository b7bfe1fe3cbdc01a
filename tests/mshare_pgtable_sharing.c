// SPDX-License-Identifier: GPL-2.0
/*
 * The point of mshare: processes mapping a region share its page tables.
 * 16 processes map the same region at the same address, each writes one
 * word per 2 MiB (so each write needs a PTE page of its own), and all see
 * each other's words.  PageTables in /proc/meminfo grows by the region's
 * tables once, for the first process; the same pattern on a MAP_SHARED
 * memfd costs every process its own PTE pages.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define NPROC		16
#define SPAN_LEN	(64UL << 20)
#define SPAN_PT_KB	((SPAN_LEN / PT_SPAN) * (PAGE / 1024))
#define SHARE_ADDR	MSHARE_ADDR(2)
#define MEMFD_ADDR	MSHARE_ADDR(3)
/* A sharer's touch may allocate nothing; allow one unrelated page. */
#define SHARER_SLACK_KB	4

struct pt_figures {
	long pt[NPROC];
	long vmpte[NPROC];
	int touch[NPROC];
	int check[NPROC];
	int stop[NPROC];
	int map[NPROC];
};

/* Map in every agent, then touch one at a time, then check in all. */
static void run_agents(struct mshare_agent *agents, struct pt_figures *f,
		       bool memfd)
{
	int i;

	for (i = 0; i < NPROC; i++) {
		char how = memfd ? AGENT_MAP_MEMFD :
			   i ? AGENT_MAP_FOLLOW : AGENT_MAP_CREATE;

		f->map[i] = mshare_agent_do(&agents[i], how, memfd ? SPAN_LEN :
					    mshare_unit());
	}
	for (i = 0; i < NPROC; i++) {
		f->touch[i] = mshare_agent_do(&agents[i], AGENT_TOUCH,
					      SPAN_LEN);
		f->pt[i] = mshare_agent_do(&agents[i], AGENT_PT_DELTA, 0);
		f->vmpte[i] = mshare_agent_do(&agents[i], AGENT_VMPTE_DELTA, 0);
	}
	for (i = 0; i < NPROC; i++)
		f->check[i] = mshare_agent_do(&agents[i], AGENT_CHECK_SPAN,
					      SPAN_LEN |
					      ((unsigned long)NPROC << 40));
}

static void assert_agents_ok(const struct pt_figures *f)
{
	int i;

	for (i = 0; i < NPROC; i++) {
		CU_ASSERT_EQUAL(f->map[i], 0);
		CU_ASSERT_EQUAL(f->touch[i], 0);
		CU_ASSERT_EQUAL(f->check[i], 0);
		CU_ASSERT_EQUAL(f->stop[i], 0);
	}
}

static void test_mshare_shares_page_tables(void)
{
	struct mshare_agent agents[NPROC];
	struct pt_figures f;
	struct mshare_dbg dbg;
	long others = 0, max_other = 0, vmpte_others = 0;
	int i, fd, started = 0;

	memset(&f, 0, sizeof(f));
	fd = mshare_create("pt_share");
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	for (i = 0; i < NPROC; i++) {
		if (mshare_agent_start(&agents[i], "pt_share", SHARE_ADDR, i))
			break;
		started++;
	}
	CU_ASSERT_EQUAL(started, NPROC);
	if (started == NPROC)
		run_agents(agents, &f, false);
	CU_ASSERT_EQUAL(mshare_dbg_find("pt_share", &dbg), 0);
	for (i = 0; i < started; i++)
		f.stop[i] = mshare_agent_stop(&agents[i]);
	CU_ASSERT_EQUAL(mshare_unlink("pt_share"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("pt_share"));
	CU_ASSERT_EQUAL_FATAL(started, NPROC);
	assert_agents_ok(&f);

	for (i = 1; i < NPROC; i++) {
		others += f.pt[i];
		vmpte_others += f.vmpte[i];
		if (f.pt[i] > max_other)
			max_other = f.pt[i];
		CU_ASSERT(f.pt[i] <= SHARER_SLACK_KB);
		CU_ASSERT_EQUAL(f.vmpte[i], 0);
	}
	printf("\n    mshare: PageTables +%ld kB for the first process, +%ld kB for the %d others together (max +%ld kB each), their VmPTE +%ld kB; region page tables %lu kB\n",
	       f.pt[0], others, NPROC - 1, max_other, vmpte_others,
	       dbg.pgtables_bytes / 1024);
	/* The first touch builds the region's tables, in the region's mm. */
	CU_ASSERT(f.pt[0] >= (long)SPAN_PT_KB);
	CU_ASSERT_EQUAL(f.vmpte[0], 0);
	CU_ASSERT(dbg.pgtables_bytes >= SPAN_PT_KB * 1024);
}

static void test_memfd_does_not(void)
{
	struct mshare_agent agents[NPROC];
	struct pt_figures f;
	long total = 0, min_each = -1;
	int i, fd, started = 0;

	memset(&f, 0, sizeof(f));
	fd = memfd_create("pt_memfd", 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, SPAN_LEN), 0);
	for (i = 0; i < NPROC; i++) {
		if (mshare_agent_start_memfd(&agents[i], fd, MEMFD_ADDR, i))
			break;
		started++;
	}
	close(fd);
	CU_ASSERT_EQUAL(started, NPROC);
	if (started == NPROC)
		run_agents(agents, &f, true);
	for (i = 0; i < started; i++)
		f.stop[i] = mshare_agent_stop(&agents[i]);
	CU_ASSERT_EQUAL_FATAL(started, NPROC);
	assert_agents_ok(&f);

	for (i = 0; i < NPROC; i++) {
		total += f.pt[i];
		if (min_each < 0 || f.pt[i] < min_each)
			min_each = f.pt[i];
		CU_ASSERT(f.pt[i] >= (long)SPAN_PT_KB);
		CU_ASSERT(f.vmpte[i] >= (long)SPAN_PT_KB);
	}
	printf("\n    memfd: PageTables +%ld kB for %d processes together (min +%ld kB each, want >= +%lu)\n",
	       total, NPROC, min_each, SPAN_PT_KB);
}

static const struct harness_test mshare_pgtable_tests[] = {
	{ "mshare_shares_page_tables", test_mshare_shares_page_tables },
	{ "memfd_does_not", test_memfd_does_not },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_pgtable_suite, .name = "mshare_pgtable_sharing",
	      .tests = mshare_pgtable_tests,
	      .requires = harness_requires_msharefs);
