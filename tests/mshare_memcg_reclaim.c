// SPDX-License-Identifier: GPL-2.0
/*
 * Which pages a memory cgroup's own reclaim takes: those not used lately.
 * A sharer in a cgroup writes HOT_PAGES, then COLD_PAGES, makes the cold
 * ones old (MADV_COLD clears their accessed bits), and asks its cgroup to
 * reclaim half as much as the cold pages hold (memory.reclaim).  The hot
 * pages are the oldest on the LRU, the first that reclaim looks at; their
 * PTEs are young, so folio_referenced() keeps them (activates them) and
 * reclaim goes on to the cold pages.  For a memfd the PTEs are the
 * sharer's own.  A region's are the region's mm's, an mm that no task
 * owns (mm-patches 0054): cgroup reclaim must count its references too,
 * or every region page looks unused and the hot ones go to swap first.
 *
 * Swap is on (the runner's swap disk, tests/swap_disk.c): reclaim of
 * anonymous and shmem pages writes them there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "memcg_util.h"
#include "mshare_util.h"
#include "shm_target.h"
#include "swap_disk.h"

#define RECLAIM_ADDR(slot)	MSHARE_ADDR(180 + (slot))
#define CHILD_TIMEOUT		60
#define HOT_PAGES		256
#define COLD_PAGES		4096
/*
 * A sixteenth of the cold pages.  Reclaim takes more than it is asked to:
 * the pages it writes to swap count once the write is done, and while the
 * swap disk is slow it goes on writing (3.7 MiB went for 2 MiB asked on
 * 2026-12-05; 4.1 MiB for 1 MiB, all 1024 cold pages of the time and 37
 * hot ones, with make test's boots side by side on 2026-12-07).  It must
 * not take all of the cold pages: a reclaim that has to age the hot pages
 * too is no test of which it takes first.
 */
#define RECLAIM_BYTES		(COLD_PAGES / 16 * PAGE)
/* The hot pages start at the second page (shm_target_setup() wrote the first) */
#define HOT_OFF			PAGE
#define COLD_OFF		(HOT_OFF + HOT_PAGES * PAGE)

/* What the sharer saw, in memory shared with the test */
struct reclaim_counts {
	long hot_resident;	/* hot pages in memory after the reclaim */
	long cold_resident;	/* cold pages in memory after the reclaim */
};

struct reclaim_case {
	struct shm_target target;
	struct mshare_report *report;
	char cg[64];
	struct reclaim_counts *counts;
};

static void write_pages(volatile unsigned long *p, unsigned long off,
			long pages)
{
	long i;

	for (i = 0; i < pages; i++)
		p[(off + i * PAGE) / sizeof(long)] = mshare_pattern(off, i + 1);
}

static int reclaiming_sharer(void *arg)
{
	struct reclaim_case *c = arg;
	struct mshare_report *r = c->report;
	struct reclaim_counts *n = c->counts;
	volatile unsigned long *p;
	char bytes[32];

	mshare_report_step(r, "enter the cgroup");
	if (cg_enter(c->cg))
		return mshare_report_fail(r, errno);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "write hot, then cold");
	write_pages(p, HOT_OFF, HOT_PAGES);
	write_pages(p, COLD_OFF, COLD_PAGES);
	mshare_report_step(r, "MADV_COLD the cold pages");
	if (madvise((void *)p + COLD_OFF, COLD_PAGES * PAGE, MADV_COLD))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "memory.reclaim");
	snprintf(bytes, sizeof(bytes), "%lu", RECLAIM_BYTES);
	if (cg_write(c->cg, "memory.reclaim", bytes))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "pagemap");
	n->hot_resident = harness_pagemap_present((uintptr_t)p + HOT_OFF,
						  HOT_PAGES);
	n->cold_resident = harness_pagemap_present((uintptr_t)p + COLD_OFF,
						   COLD_PAGES);
	if (n->hot_resident < 0 || n->cold_resident < 0)
		return mshare_report_fail(r, errno);
	return mshare_report_done(r);
}

/*
 * Every hot page stays, and what reclaim took came from the cold ones:
 * the same for a memfd and a region.
 */
static void run_reclaim_case(struct reclaim_case *c)
{
	struct harness_child_result res;

	snprintf(c->cg, sizeof(c->cg), "reclaim_%s", c->target.name);
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	c->counts = mmap(NULL, sizeof(*c->counts), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->counts != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(cg_make(c->cg), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reclaiming_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	printf("\n    %s: after memory.reclaim of %lu kB: %ld of %d hot pages in memory, %ld of %d cold\n",
	       shm_kind_name(c->target.kind), RECLAIM_BYTES >> 10,
	       c->counts->hot_resident, HOT_PAGES, c->counts->cold_resident,
	       COLD_PAGES);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	MSHARE_ASSERT_EQ(c->counts->hot_resident, HOT_PAGES);
	/* Reclaim did reclaim: what was asked, at least, of the cold pages */
	CU_ASSERT(c->counts->cold_resident <=
		  COLD_PAGES - (long)(RECLAIM_BYTES / PAGE));
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	cg_remove(c->cg);
	munmap(c->counts, sizeof(*c->counts));
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct reclaim_case, hot_pages_kept, run_reclaim_case,
	      RECLAIM_ADDR(0), RECLAIM_ADDR(1))

static const struct harness_test mshare_memcg_reclaim_tests[] = {
	{ "hot_pages_kept_region", hot_pages_kept_region },
	{ "hot_pages_kept_memfd", hot_pages_kept_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_memcg_reclaim_suite, .name = "mshare_memcg_reclaim",
	      .tests = mshare_memcg_reclaim_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = memcg_and_swap_required);
