// SPDX-License-Identifier: GPL-2.0
/*
 * Builds struct run_results from the CUnit registry and failure list once
 * the tests have run.  A suite is in it if the selection wanted it: run
 * (its selected tests), skipped (each selected test skipped, with the
 * reason) or failed in its init (one failed case "suite_init", since
 * CUnit ran none of its tests and counts the suite once).  A failed
 * cleanup adds a failed case "suite_cleanup".  The failures of the end of
 * the run (struct run_end) are the cases of a last suite, end_of_run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_results.h"
#include "suite_registry.h"
#include "test_times.h"

#define MESSAGE_MAX	2048

static bool has_suite_failure(CU_pSuite suite, CU_FailureType type)
{
	CU_pFailureRecord f;

	for (f = CU_get_failure_list(); f; f = f->pNext)
		if (f->pSuite == suite && !f->pTest && f->type == type)
			return true;
	return false;
}

static bool has_test_failure(CU_pTest test)
{
	CU_pFailureRecord f;

	for (f = CU_get_failure_list(); f; f = f->pNext)
		if (f->pTest == test)
			return true;
	return false;
}

static struct result_case *add_case(struct result_suite *rs,
				    const char *name,
				    enum result_status status,
				    const char *why)
{
	struct result_case *c;

	c = realloc(rs->cases, (rs->count + 1) * sizeof(*c));
	if (!c)
		return NULL;
	rs->cases = c;
	c += rs->count++;
	*c = (struct result_case){ .name = name, .status = status,
				   .why = why };
	rs->failed += status == RESULT_FAIL;
	return c;
}

static int add_tests(struct result_suite *rs, const struct harness_suite *s)
{
	struct result_case *c;
	CU_pTest test;

	for (test = s->cu_suite->pTest; test; test = test->pNext) {
		if (!test->fActive)
			continue;
		if (s->skip_reason)
			c = add_case(rs, test->pName, RESULT_SKIP,
				     s->skip_reason);
		else
			c = add_case(rs, test->pName,
				     has_test_failure(test) ?
				     RESULT_FAIL : RESULT_PASS, NULL);
		if (!c)
			return -ENOMEM;
		c->test = test;
		c->msec = test_times_msec(test);
	}
	return 0;
}

static int add_cases(struct result_suite *rs, const struct harness_suite *s)
{
	if (has_suite_failure(s->cu_suite, CUF_SuiteInitFailed))
		return add_case(rs, "suite_init", RESULT_FAIL,
				"suite initialization failed") ? 0 : -ENOMEM;
	if (add_tests(rs, s))
		return -ENOMEM;
	if (has_suite_failure(s->cu_suite, CUF_SuiteCleanupFailed) &&
	    !add_case(rs, "suite_cleanup", RESULT_FAIL,
		      "suite cleanup failed"))
		return -ENOMEM;
	return 0;
}

static struct result_suite *add_suite(struct run_results *r,
				      const char *name)
{
	struct result_suite *rs;

	rs = realloc(r->suites, (r->count + 1) * sizeof(*rs));
	if (!rs)
		return NULL;
	r->suites = rs;
	rs += r->count++;
	*rs = (struct result_suite){ .name = name };
	return rs;
}

static int add_end_cases(struct result_suite *rs, const struct run_end *end)
{
	static char log_why[64];

	snprintf(log_why, sizeof(log_why),
		 "%u bad kernel log record(s) after the last test",
		 end->final_log_bad);
	if (end->final_log_bad &&
	    !add_case(rs, "kernel_log_after_last_test", RESULT_FAIL, log_why))
		return -ENOMEM;
	if (end->watch_failed &&
	    !add_case(rs, "kernel_log_watch", RESULT_FAIL,
		      "the kernel log watch could not start"))
		return -ENOMEM;
	if (end->leaks &&
	    !add_case(rs, "kmemleak", RESULT_FAIL,
		      "kmemleak reported unreferenced objects, or its scan failed (see the console)"))
		return -ENOMEM;
	return 0;
}

static void count(struct run_results *r)
{
	struct result_suite *rs;
	struct result_case *c;

	for (rs = r->suites; rs < r->suites + r->count; rs++) {
		for (c = rs->cases; c < rs->cases + rs->count; c++) {
			r->passed += c->status == RESULT_PASS;
			r->failed += c->status == RESULT_FAIL;
			r->skipped += c->status == RESULT_SKIP;
			rs->msec += c->msec;
		}
		r->msec += rs->msec;
	}
}

static int collect(struct run_results *r, const struct run_end *end)
{
	const struct harness_suite *s;
	struct result_suite *rs;

	for (s = harness_suites(); s; s = s->next) {
		if (!s->cu_suite->fActive && !s->skip_reason)
			continue;
		rs = add_suite(r, s->name);
		if (!rs)
			return -ENOMEM;
		rs->skip_reason = s->skip_reason;
		if (add_cases(rs, s))
			return -ENOMEM;
	}
	if (!end->final_log_bad && !end->watch_failed && !end->leaks)
		return 0;
	rs = add_suite(r, RESULTS_END_SUITE);
	return rs ? add_end_cases(rs, end) : -ENOMEM;
}

int run_results_collect(struct run_results *r, const struct run_end *end)
{
	int ret;

	memset(r, 0, sizeof(*r));
	ret = collect(r, end);
	if (ret) {
		printf("harness: cannot collect the results: %s\n",
		       strerror(-ret));
		run_results_free(r);
		return ret;
	}
	count(r);
	return 0;
}

void run_results_free(struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		free(r->suites[i].cases);
	free(r->suites);
	memset(r, 0, sizeof(*r));
}

void result_case_messages(const struct result_case *c,
			  void (*fn)(const char *msg, void *arg), void *arg)
{
	char msg[MESSAGE_MAX];
	CU_pFailureRecord f;

	if (c->status != RESULT_FAIL)
		return;
	if (!c->test) {
		fn(c->why, arg);
		return;
	}
	for (f = CU_get_failure_list(); f; f = f->pNext) {
		if (f->pTest != c->test)
			continue;
		snprintf(msg, sizeof(msg), "%s:%u: %s", f->strFileName,
			 f->uiLineNumber, f->strCondition);
		fn(msg, arg);
	}
}
