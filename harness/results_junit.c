// SPDX-License-Identifier: GPL-2.0
/*
 * The results as JUnit XML, the format CI systems read: testsuites,
 * a testsuite per suite, a testcase per case, with failure (the first
 * message as its message, all of them as its text) or skipped (the
 * reason).  Each has its time in seconds: a case's own (0 when it ran no
 * test), a suite's and the whole run's the sum of their cases'.
 * uml/junit.xsd is the schema `make test` checks it against.
 */
#include <stdio.h>

#include "results_file.h"
#include "results_junit.h"
#include "run_results.h"
#include "test_times.h"

struct failure_text {
	FILE *f;
	bool first;
};

static void put_first_message(const char *msg, void *arg)
{
	struct failure_text *t = arg;

	if (!t->first)
		return;
	t->first = false;
	xml_put_escaped(t->f, msg);
}

static void put_message_line(const char *msg, void *arg)
{
	struct failure_text *t = arg;

	xml_put_escaped(t->f, msg);
	fputc('\n', t->f);
}

static void put_failure(FILE *f, const struct result_case *c)
{
	struct failure_text t = { .f = f, .first = true };

	fprintf(f, "      <failure type=\"failure\" message=\"");
	result_case_messages(c, put_first_message, &t);
	fprintf(f, "\">");
	result_case_messages(c, put_message_line, &t);
	fprintf(f, "</failure>\n");
}

static void put_case(FILE *f, const struct result_suite *rs,
		     const struct result_case *c)
{
	fprintf(f, "    <testcase classname=\"");
	xml_put_escaped(f, rs->name);
	fprintf(f, "\" name=\"");
	xml_put_escaped(f, c->name);
	fprintf(f, "\" time=\"" MSEC_FMT, MSEC_ARGS(c->msec));
	if (c->status == RESULT_PASS) {
		fprintf(f, "\"/>\n");
		return;
	}
	fprintf(f, "\">\n");
	if (c->status == RESULT_FAIL) {
		put_failure(f, c);
	} else {
		fprintf(f, "      <skipped message=\"");
		xml_put_escaped(f, c->why);
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "    </testcase>\n");
}

static void put_suite(FILE *f, const struct result_suite *rs)
{
	unsigned int skipped = 0;
	size_t i;

	for (i = 0; i < rs->count; i++)
		skipped += rs->cases[i].status == RESULT_SKIP;
	fprintf(f, "  <testsuite name=\"");
	xml_put_escaped(f, rs->name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"" MSEC_FMT "\">\n",
		rs->count, rs->failed, skipped, MSEC_ARGS(rs->msec));
	for (i = 0; i < rs->count; i++)
		put_case(f, rs, &rs->cases[i]);
	fprintf(f, "  </testsuite>\n");
}

static void write_junit(FILE *f, const void *arg)
{
	const struct run_results *r = arg;
	size_t i;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"mshare-uml\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"" MSEC_FMT "\">\n",
		r->passed + r->failed + r->skipped, r->failed, r->skipped,
		MSEC_ARGS(r->msec));
	for (i = 0; i < r->count; i++)
		put_suite(f, &r->suites[i]);
	fprintf(f, "</testsuites>\n");
}

int results_junit_write(const char *dir, const struct run_results *r)
{
	return results_file_write(dir, RESULTS_JUNIT_NAME, "JUnit",
				  write_junit, r);
}
