/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results of a run as one list of suites and cases, built from the
 * CUnit registry after the run, for the KTAP and JUnit writers: both say
 * the same thing, and the same as the harness's counts.
 */
#ifndef HARNESS_RUN_RESULTS_H
#define HARNESS_RUN_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <CUnit/CUnit.h>

enum result_status {
	RESULT_PASS,
	RESULT_FAIL,
	RESULT_SKIP,
};

struct result_case {
	const char *name;
	enum result_status status;
	/* Why it was skipped, or failed when it is no CUnit test. */
	const char *why;
	/* The CUnit test whose failure records say why it failed, or NULL. */
	CU_pTest test;
	/* Its wall time; 0 for a case that ran no test (skipped, ...). */
	unsigned long msec;
};

struct result_suite {
	const char *name;
	/* Set when the whole suite was skipped (an unmet requirement). */
	const char *skip_reason;
	struct result_case *cases;
	size_t count;
	unsigned int failed;
	/* The sum of its cases' times. */
	unsigned long msec;
};

/* What the end of the run found outside any test; each one fails it. */
struct run_end {
	unsigned int final_log_bad;
	bool watch_failed;
	int leaks;
};

struct run_results {
	struct result_suite *suites;
	size_t count;
	unsigned int passed;
	unsigned int failed;
	unsigned int skipped;
	/* The sum of all cases' times. */
	unsigned long msec;
};

/* The suite that holds the failures of struct run_end. */
#define RESULTS_END_SUITE	"end_of_run"

int run_results_collect(struct run_results *r, const struct run_end *end);
void run_results_free(struct run_results *r);
/* Calls FN with each line saying why a failed case failed. */
void result_case_messages(const struct result_case *c,
			  void (*fn)(const char *msg, void *arg), void *arg);

#endif
