// SPDX-License-Identifier: GPL-2.0
/*
 * The results as KTAP version 1 (Documentation/dev-tools/ktap.rst), the
 * format of the kernel's own tests, so that `kunit.py parse` reads them:
 * one subtest level per suite, as KUnit prints them; before a case's
 * result line, where kunit.py takes them for that case's log, diagnostic
 * lines: a failed case's messages, then every case's time ("# duration:
 * S.SSS s", 0 when it ran no test); skipped cases (and suites) with
 * "# SKIP reason".
 */
#include <stdio.h>

#include "results_file.h"
#include "results_ktap.h"
#include "run_results.h"
#include "test_times.h"

#define INDENT	"    "

struct diag {
	FILE *f;
	const char *name;
};

/* A message is one diagnostic line, even if it had several. */
static void put_diagnostic(const char *msg, void *arg)
{
	const struct diag *d = arg;

	fprintf(d->f, INDENT "# %s: ", d->name);
	for (; *msg; msg++)
		fputc((unsigned char)*msg < 0x20 ? ' ' : *msg, d->f);
	fputc('\n', d->f);
}

static void put_case(FILE *f, const struct result_case *c, size_t n)
{
	struct diag d = { .f = f, .name = c->name };

	result_case_messages(c, put_diagnostic, &d);
	fprintf(f, INDENT "# duration: " MSEC_FMT " s\n", MSEC_ARGS(c->msec));
	fprintf(f, INDENT "%s %zu %s", c->status == RESULT_FAIL ?
		"not ok" : "ok", n, c->name);
	if (c->status == RESULT_SKIP)
		fprintf(f, " # SKIP %s", c->why);
	fputc('\n', f);
}

static void put_suite(FILE *f, const struct result_suite *rs, size_t n)
{
	size_t i;

	fprintf(f, INDENT "KTAP version 1\n"
		   INDENT "# Subtest: %s\n"
		   INDENT "1..%zu\n", rs->name, rs->count);
	for (i = 0; i < rs->count; i++)
		put_case(f, &rs->cases[i], i + 1);
	fprintf(f, "%s %zu %s", rs->failed ? "not ok" : "ok", n, rs->name);
	if (rs->skip_reason)
		fprintf(f, " # SKIP %s", rs->skip_reason);
	fputc('\n', f);
}

static void write_ktap(FILE *f, const void *arg)
{
	const struct run_results *r = arg;
	size_t i;

	fprintf(f, "KTAP version 1\n1..%zu\n", r->count);
	for (i = 0; i < r->count; i++)
		put_suite(f, &r->suites[i], i + 1);
	fprintf(f, "# Totals: pass:%u fail:%u skip:%u total:%u\n",
		r->passed, r->failed, r->skipped,
		r->passed + r->failed + r->skipped);
}

int results_ktap_write(const char *dir, const struct run_results *r)
{
	return results_file_write(dir, RESULTS_KTAP_NAME, "KTAP", write_ktap,
				  r);
}
