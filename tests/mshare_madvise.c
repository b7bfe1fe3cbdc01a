// SPDX-License-Identifier: GPL-2.0
/*
 * madvise() on a region, compared with a MAP_SHARED memfd mapping.
 *
 * Every advice 6.12 takes, on one page and on the whole of a mapping:
 * what it returns, and whether the data written before it is still there
 * after it.  The region answers as the memfd does, or the difference is
 * in the table below with its reason (and in docs/regions.md's matrix).
 *
 * MADV_DONTFORK: the child does not get the region, and its own memory at
 * the region's addresses is ordinary memory, as after a memfd mapping
 * marked so.  UML records which PGD entries of an mm lead to a region's
 * page tables; a child that started with its parent's record never got
 * its own memory there into its host process, and faulted for ever.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25	/* 6.1; newer than glibc 2.36's headers */
#endif

#define MADV_ADDR(slot)	MSHARE_ADDR(73 + (slot))
#define CHILD_TIMEOUT	30
#define FORK_TIMEOUT	10

struct madvise_case {
	struct shm_target target;
	struct mshare_report *report;
};

/* The child of fork(): its own anonymous page where the region was */
static int own_memory_there(unsigned long addr)
{
	volatile unsigned long *q;

	q = mmap((void *)addr, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (q == MAP_FAILED)
		return 2;	/* the region (or the memfd) came along */
	q[0] = 42;
	return q[0] == 42 ? 0 : 3;
}

static int dontfork_parent(void *arg)
{
	struct madvise_case *c = arg;
	struct mshare_report *r = c->report;
	struct harness_child_result res;
	unsigned long *p;
	pid_t pid;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	/* Our PGD entry leads to the region's tables from now on. */
	mshare_report_step(r, "our mapping before the fork");
	if (p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "MADV_DONTFORK");
	if (madvise(p, mshare_unit(), MADV_DONTFORK))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "fork");
	pid = fork();
	if (pid < 0)
		return mshare_report_fail(r, errno);
	if (pid == 0)
		_exit(own_memory_there(c->target.addr));
	mshare_report_step(r, "child uses its own page there");
	if (harness_wait_child_timeout(pid, FORK_TIMEOUT, &res))
		return mshare_report_fail(r, errno);
	if (res.timed_out)
		return mshare_report_fail(r, ETIMEDOUT);
	if (!res.exited || res.status)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "our mapping after the fork");
	if (p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_dontfork_case(struct madvise_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(dontfork_parent, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

SHM_TEST_PAIR(struct madvise_case, dontfork_then_fork, run_dontfork_case,
	      MADV_ADDR(0), MADV_ADDR(1))

/* What one advice does to a mapping */
struct advice_outcome {
	int err_page;		/* errno of madvise() of one page, 0 */
	int err_all;		/* of the whole mapping */
	bool data_kept;		/* the word written before is still there */
};

struct advice_row {
	const char *name;
	int advice;
	struct advice_outcome region, memfd;
	/* On a kernel with THP (the x86_64 target), if it differs there */
	bool thp_differs;
	struct advice_outcome thp_region, thp_memfd;
	/*
	 * The populates allocate what they populate: a shmem read fault
	 * allocates a page too, and a GiB does not fit in the test
	 * kernel's memory.  They get the first POPULATE_LEN bytes instead
	 * of the whole mapping.
	 */
	bool allocates;
};

#define POPULATE_LEN	(64 * PAGE)

#define KEPT	true
#define ZEROED	false
/*
 * Where the two columns differ:
 * - an advice that sets a flag on the vma (MADV_RANDOM, MADV_SEQUENTIAL,
 *   MADV_DONTFORK, MADV_DONTDUMP) on a part of a region's vma would
 *   split it, and a region's vma is all or nothing: EINVAL, as for
 *   mprotect of a part.  On the whole vma it works.
 * - MADV_REMOVE punches a hole in the file behind a shared mapping;
 *   msharefs has no fallocate: EOPNOTSUPP, and the data stays.
 */
/* An advice, how it does on a region, and on a memfd mapping */
/*
 * An advice; on a region: errno of one page, of all, data kept; the same
 * on a memfd mapping.
 */
#define ADVICE(adv, r_page, r_all, r_data, m_page, m_all, m_data)	\
	{ .name = #adv, .advice = adv,					\
	  .region = { r_page, r_all, r_data },				\
	  .memfd = { m_page, m_all, m_data } }
#define ADVICE_ALLOCATES(adv, r_page, r_all, r_data, m_page, m_all,	\
			 m_data)					\
	{ .name = #adv, .advice = adv,					\
	  .region = { r_page, r_all, r_data },				\
	  .memfd = { m_page, m_all, m_data }, .allocates = true }

/*
 * MADV_HUGEPAGE and MADV_NOHUGEPAGE: invalid without THP (./linux); with
 * it a flag on the vma, refused on a part of a region's vma as
 * MADV_RANDOM is.
 */
#define ADVICE_THP_FLAG(adv)						\
	{ .name = #adv, .advice = adv,					\
	  .region = { EINVAL, EINVAL, KEPT },				\
	  .memfd = { EINVAL, EINVAL, KEPT },				\
	  .thp_differs = true,						\
	  .thp_region = { EINVAL, 0, KEPT },				\
	  .thp_memfd = { 0, 0, KEPT } }

static const struct advice_row advice_table[] = {
	ADVICE(MADV_NORMAL, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_RANDOM, EINVAL, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_SEQUENTIAL, EINVAL, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_WILLNEED, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_DONTNEED, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_FREE, EINVAL, EINVAL, KEPT,
	       EINVAL, EINVAL, KEPT),
	ADVICE(MADV_REMOVE, EOPNOTSUPP, EOPNOTSUPP, KEPT,
	       0, 0, ZEROED),
	ADVICE(MADV_DONTFORK, EINVAL, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_DOFORK, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_WIPEONFORK, EINVAL, EINVAL, KEPT,
	       EINVAL, EINVAL, KEPT),
	ADVICE(MADV_KEEPONFORK, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_DONTDUMP, EINVAL, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_DODUMP, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_MERGEABLE, EINVAL, EINVAL, KEPT,
	       EINVAL, EINVAL, KEPT),
	ADVICE(MADV_UNMERGEABLE, EINVAL, EINVAL, KEPT,
	       EINVAL, EINVAL, KEPT),
	ADVICE_THP_FLAG(MADV_HUGEPAGE),
	ADVICE_THP_FLAG(MADV_NOHUGEPAGE),
	/* EINVAL with THP too (measured on the x86_64 target) */
	ADVICE(MADV_COLLAPSE, EINVAL, EINVAL, KEPT,
	       EINVAL, EINVAL, KEPT),
	ADVICE(MADV_COLD, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE(MADV_PAGEOUT, 0, 0, KEPT,
	       0, 0, KEPT),
	ADVICE_ALLOCATES(MADV_POPULATE_READ, 0, 0, KEPT,
			 0, 0, KEPT),
	ADVICE_ALLOCATES(MADV_POPULATE_WRITE, 0, 0, KEPT,
			 0, 0, KEPT),
};

#define ADVICE_WORD	(PAGE / sizeof(long))
#define ADVICE_VALUE	0xad71ce5UL

struct advice_run {
	struct shm_target target;
	const struct advice_row *row;
	struct advice_outcome *got;	/* in memory shared with the child */
};

static int advising_sharer(void *arg)
{
	struct advice_run *a = arg;
	unsigned long *p = shm_target_map(&a->target, PROT_READ | PROT_WRITE);
	unsigned long len;

	if (!p)
		return 1;
	p[ADVICE_WORD] = ADVICE_VALUE;
	a->got->err_page = madvise(p + ADVICE_WORD, PAGE, a->row->advice) ?
			   errno : 0;
	len = a->row->allocates ? POPULATE_LEN : mshare_unit();
	a->got->err_all = madvise(p, len, a->row->advice) ? errno : 0;
	a->got->data_kept = p[ADVICE_WORD] == ADVICE_VALUE;
	return 0;
}

static void check_outcome(const char *advice, const char *kind,
			  const struct advice_outcome *got,
			  const struct advice_outcome *want)
{
	char what[96];

	snprintf(what, sizeof(what), "%s of one page of a %s", advice, kind);
	mshare_assert_errno(got->err_page, want->err_page, what, __LINE__,
			    __FILE__, __func__);
	snprintf(what, sizeof(what), "%s of a whole %s", advice, kind);
	mshare_assert_errno(got->err_all, want->err_all, what, __LINE__,
			    __FILE__, __func__);
	snprintf(what, sizeof(what), "data after %s of a %s: %s", advice,
		 kind, got->data_kept ? "kept, want zeroed" :
		 "zeroed, want kept");
	CU_assertImplementation(got->data_kept == want->data_kept, __LINE__,
				what, __FILE__, __func__, CU_FALSE);
}

/* One advice on one target, in a child of its own */
static void advise_one(const struct shm_target *t,
		       const struct advice_row *row, struct advice_outcome *got)
{
	struct advice_run a = { *t, row, got };
	struct harness_child_result res;

	memset(got, 0, sizeof(*got));
	CU_ASSERT_EQUAL(harness_run_child_timeout(advising_sharer, &a,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
}

static const char *outcome_text(const struct advice_outcome *o, char *buf,
				size_t size)
{
	snprintf(buf, size, "%s/%s/%s", mshare_errname(o->err_page),
		 mshare_errname(o->err_all), o->data_kept ? "kept" : "zeroed");
	return buf;
}

static void advice_matrix(void)
{
	struct shm_target region = { .kind = SHM_REGION, .name = "advice_region",
				     .addr = MADV_ADDR(2) };
	struct shm_target memfd = { .kind = SHM_MEMFD, .name = "advice_memfd",
				     .addr = MADV_ADDR(3) };
	struct advice_outcome *got;
	char rbuf[64], mbuf[64];
	size_t i;

	got = mmap(NULL, 2 * sizeof(*got), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(got != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&region), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&memfd), 0);
	printf("    %-20s %-28s %s\n", "advice (page/all/data)", "region",
	       "memfd");
	for (i = 0; i < ARRAY_SIZE(advice_table); i++) {
		const struct advice_row *row = &advice_table[i];

		advise_one(&region, row, &got[0]);
		advise_one(&memfd, row, &got[1]);
		printf("    %-20s %-28s %s\n", row->name,
		       outcome_text(&got[0], rbuf, sizeof(rbuf)),
		       outcome_text(&got[1], mbuf, sizeof(mbuf)));
		if (row->thp_differs && harness_kernel_has_thp()) {
			check_outcome(row->name, "region", &got[0],
				      &row->thp_region);
			check_outcome(row->name, "memfd", &got[1],
				      &row->thp_memfd);
		} else {
			check_outcome(row->name, "region", &got[0],
				      &row->region);
			check_outcome(row->name, "memfd", &got[1],
				      &row->memfd);
		}
	}
	CU_ASSERT_EQUAL(shm_target_teardown(&region), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&memfd), 0);
	munmap(got, 2 * sizeof(*got));
}

static const struct harness_test mshare_madvise_tests[] = {
	{ "advice_matrix", advice_matrix },
	{ "dontfork_then_fork_region", dontfork_then_fork_region },
	{ "dontfork_then_fork_memfd", dontfork_then_fork_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_madvise_suite, .name = "mshare_madvise",
	      .tests = mshare_madvise_tests,
	      .requires = harness_requires_msharefs);
