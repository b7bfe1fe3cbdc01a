// SPDX-License-Identifier: GPL-2.0
/*
 * Every sharer sees a PTE change made through another: when a page of the
 * region is replaced, the translations the sharers cached from the old PTE
 * must go.
 *
 * The case that needs nothing unusual: sharers read a page nobody wrote
 * (their read faults map the zero page), then one writes it, and the write
 * fault replaces the zero page with a new page.  The faithful port flushed
 * only the region's own mm, which never runs: the readers kept reading
 * zeros (on UML, from the host mapping of the zero page) while the data
 * sat in the new page.
 */
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"

#define COHERENCE_ADDR	MSHARE_ADDR(23)
#define NREADERS	3
#define TAG		9

static void test_readers_see_write_after_zero_page(void)
{
	struct mshare_agent writer, readers[NREADERS];
	unsigned long off = 5 * PT_SPAN + 3 * PAGE;
	int fd = mshare_create("coh_zero");
	int i;

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&writer, "coh_zero",
						 COHERENCE_ADDR, TAG), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&writer, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	for (i = 0; i < NREADERS; i++) {
		CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&readers[i],
							 "coh_zero",
							 COHERENCE_ADDR, TAG),
				      0);
		CU_ASSERT_EQUAL(mshare_agent_do(&readers[i], AGENT_MAP_FOLLOW,
						0), 0);
		/* Nobody wrote it: the pattern is not there (zeros are). */
		CU_ASSERT_EQUAL(mshare_agent_do(&readers[i], AGENT_CHECK, off),
				AGENT_ERR_CHECK);
	}

	CU_ASSERT_EQUAL(mshare_agent_do(&writer, AGENT_WRITE, off), 0);
	for (i = 0; i < NREADERS; i++)
		CU_ASSERT_EQUAL(mshare_agent_do(&readers[i], AGENT_CHECK, off),
				0);

	for (i = 0; i < NREADERS; i++)
		CU_ASSERT_EQUAL(mshare_agent_stop(&readers[i]), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&writer), 0);
	CU_ASSERT_EQUAL(mshare_unlink("coh_zero"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("coh_zero"));
}

/* The same with the writer a sharer that did not create the region. */
static void test_creator_sees_write_after_zero_page(void)
{
	struct mshare_agent creator, writer;
	unsigned long off = 7 * PAGE;
	int fd = mshare_create("coh_creator");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&creator, "coh_creator",
						 COHERENCE_ADDR, TAG), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_MAP_CREATE,
					mshare_unit()), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, off),
			AGENT_ERR_CHECK);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&writer, "coh_creator",
						 COHERENCE_ADDR, TAG), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&writer, AGENT_MAP_FOLLOW, 0), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&writer, AGENT_WRITE, off), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&creator, AGENT_CHECK, off), 0);

	CU_ASSERT_EQUAL(mshare_agent_stop(&writer), 0);
	CU_ASSERT_EQUAL(mshare_agent_stop(&creator), 0);
	CU_ASSERT_EQUAL(mshare_unlink("coh_creator"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("coh_creator"));
}

/* Untouched anonymous memory of a new process: all zeros, or -1. */
static int fresh_anon_is_zero(void *arg)
{
	const unsigned long *p;
	unsigned long i;

	(void)arg;
	p = mmap(NULL, 16 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0);
	if (p == MAP_FAILED)
		return 2;
	for (i = 0; i < 16 * PAGE / sizeof(long); i++)
		if (p[i])
			return 1;
	return 0;
}

/*
 * A write to a region page that a read fault mapped to the zero page must
 * get a page of its own.  The faithful port made the region's vma with the
 * creator's shared, writable page protection while turning it into a
 * private anonymous vma: the zero page was mapped writable and the write
 * went into the zero page itself, which every process in the system reads
 * for untouched anonymous memory.
 */
static void test_zero_page_stays_zero(void)
{
	struct harness_child_result res;
	struct mshare_agent a;
	unsigned long off = 11 * PAGE;
	int fd = mshare_create("coh_zero_page");

	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(mshare_agent_start(&a, "coh_zero_page",
						 COHERENCE_ADDR, TAG), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&a, AGENT_MAP_CREATE, mshare_unit()),
			0);
	/* Read first: the zero page is mapped; then write the same page. */
	CU_ASSERT_EQUAL(mshare_agent_do(&a, AGENT_CHECK, off), AGENT_ERR_CHECK);
	CU_ASSERT_EQUAL(mshare_agent_do(&a, AGENT_WRITE, off), 0);
	CU_ASSERT_EQUAL(mshare_agent_do(&a, AGENT_CHECK, off), 0);

	CU_ASSERT_EQUAL(harness_run_child_timeout(fresh_anon_is_zero, NULL, 20,
						  &res), 0);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, 0);
	if (res.exited && res.status == 1)
		printf("\n    a new process's untouched memory is not zero\n");

	CU_ASSERT_EQUAL(mshare_agent_stop(&a), 0);
	CU_ASSERT_EQUAL(mshare_unlink("coh_zero_page"), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone("coh_zero_page"));
}

static const struct harness_test mshare_coherence_tests[] = {
	{ "zero_page_stays_zero", test_zero_page_stays_zero },
	{ "readers_see_write_after_zero_page",
	  test_readers_see_write_after_zero_page },
	{ "creator_sees_write_after_zero_page",
	  test_creator_sees_write_after_zero_page },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_coherence_suite, .name = "mshare_coherence",
	      .tests = mshare_coherence_tests,
	      .requires = harness_requires_msharefs);
