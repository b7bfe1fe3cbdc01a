// SPDX-License-Identifier: GPL-2.0
/*
 * Times each test from its suite's per-test setup to the start of its
 * teardown: the test function alone, not the kernel log check after it.
 * CUnit's Basic interface owns the test start and complete handlers, so
 * the per-test setup and teardown are where the harness can hook in.
 * The times are kept in the order the tests ran, and are rounded to
 * milliseconds once, so that a suite's time is the sum of its cases'
 * times as the results files print them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "test_times.h"

struct test_time {
	CU_pSuite suite;
	CU_pTest test;
	unsigned long msec;
};

static struct test_time *times;
static size_t count;
static struct timespec start;

void test_times_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &start);
}

static unsigned long msec_since(const struct timespec *t)
{
	struct timespec now;
	long long ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (now.tv_sec - t->tv_sec) * 1000000000LL +
	     (now.tv_nsec - t->tv_nsec);
	return (ns + 500000) / 1000000;
}

void test_times_stop(void)
{
	unsigned long msec = msec_since(&start);
	struct test_time *t;

	t = realloc(times, (count + 1) * sizeof(*t));
	if (!t) {
		/* The test's verdict stands; only its time is lost. */
		printf("harness: out of memory: no time for this test\n");
		return;
	}
	times = t;
	times[count++] = (struct test_time){ .suite = CU_get_current_suite(),
					     .test = CU_get_current_test(),
					     .msec = msec };
}

unsigned long test_times_msec(CU_pTest test)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (times[i].test == test)
			return times[i].msec;
	return 0;
}

/* Slower first; of equal times, the one that ran first. */
static int slower_first(const void *a, const void *b)
{
	const struct test_time *x = *(const struct test_time **)a;
	const struct test_time *y = *(const struct test_time **)b;

	if (x->msec != y->msec)
		return x->msec < y->msec ? 1 : -1;
	return x < y ? -1 : x > y;
}

void test_times_print_slowest(unsigned int n)
{
	const struct test_time **sorted;
	size_t i;

	if (!count)
		return;
	sorted = malloc(count * sizeof(*sorted));
	if (!sorted)
		return;
	for (i = 0; i < count; i++)
		sorted[i] = &times[i];
	qsort(sorted, count, sizeof(*sorted), slower_first);
	if (n > count)
		n = count;
	printf("harness: slowest %u of %zu tests:\n", n, count);
	for (i = 0; i < n; i++)
		printf("harness: %4lu.%03lu s  %s/%s\n",
		       MSEC_ARGS(sorted[i]->msec), sorted[i]->suite->pName,
		       sorted[i]->test->pName);
	free(sorted);
}

void test_times_free(void)
{
	free(times);
	times = NULL;
	count = 0;
}
