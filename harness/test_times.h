/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wall time (CLOCK_MONOTONIC) of each test CUnit ran, for the results
 * files and the slowest tests at the end of the run.
 */
#ifndef HARNESS_TEST_TIMES_H
#define HARNESS_TEST_TIMES_H

#include <CUnit/CUnit.h>

/* printf() of a time in milliseconds as seconds, "S.SSS" */
#define MSEC_FMT		"%lu.%03lu"
#define MSEC_ARGS(msec)		(msec) / 1000, (msec) % 1000

/* Every suite's per-test setup, and the start of its teardown. */
void test_times_start(void);
void test_times_stop(void);
/* What TEST took, in milliseconds; 0 if it did not run. */
unsigned long test_times_msec(CU_pTest test);
/* Up to N tests, the slowest first, one "harness: " line each. */
void test_times_print_slowest(unsigned int n);
void test_times_free(void);

#endif
