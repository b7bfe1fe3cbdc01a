// SPDX-License-Identifier: GPL-2.0
/*
 * Splits the selected tests into N parts as GoogleTest's
 * GTEST_TOTAL_SHARDS/GTEST_SHARD_INDEX do: the selected tests are numbered
 * in the order they run, and test i goes to part (i mod N) + 1.  By test,
 * not by suite: the slow tests come in pairs (a region case and its memfd
 * control, side by side in a suite), and numbering by test puts the two in
 * different parts.  The numbering depends on the selection alone, never on
 * the disks or the CPU a boot has, so every part agrees on it; a suite that
 * a requirement skips is skipped in each part that has tests of it.
 *
 * The always-run suites (the boot log's check) are not numbered: every
 * part checks its own boot.  A suite left with no test of this part is
 * made inactive, so it neither runs its init nor shows up in the results.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "suite_registry.h"

int shard_parse(struct shard *shard, const char *spec)
{
	unsigned int index, count;
	int used = 0;

	/* Digits and one '/': sscanf() alone would take "+1/ 2" or "1/-2". */
	if (spec[strspn(spec, "0123456789/")] ||
	    sscanf(spec, "%u/%u%n", &index, &count, &used) != 2 ||
	    spec[used] || !index || index > count) {
		printf("harness: shard '%s': want K/N, the K-th of N parts with 1 <= K <= N (e.g. 1/2)\n",
		       spec);
		return -EINVAL;
	}
	shard->index = index;
	shard->count = count;
	return 0;
}

bool shard_takes(const struct shard *shard, unsigned int i)
{
	return !shard->count || i % shard->count == shard->index - 1;
}

static CU_pTest cu_test_of(const struct harness_suite *s,
			   const struct harness_test *t)
{
	return CU_get_test_by_name(t->name, s->cu_suite);
}

void shard_apply(const struct shard *shard, bool verbose)
{
	const struct harness_test *t;
	struct harness_suite *s;
	unsigned int i = 0, kept = 0;
	bool any;
	CU_pTest cu;

	if (!shard->count)
		return;
	for (s = harness_suites(); s; s = s->next) {
		if (s->always_run || !s->cu_suite->fActive)
			continue;
		any = false;
		for (t = s->tests; t->name; t++) {
			cu = cu_test_of(s, t);
			if (!cu->fActive)
				continue;
			if (shard_takes(shard, i++)) {
				any = true;
				kept++;
				continue;
			}
			CU_set_test_active(cu, CU_FALSE);
		}
		if (!any)
			CU_set_suite_active(s->cu_suite, CU_FALSE);
	}
	if (verbose)
		printf("harness: shard %u/%u: %u of the %u selected tests (test i when i mod %u = %u)\n",
		       shard->index, shard->count, kept, i, shard->count,
		       shard->index - 1);
}

void shard_print_plan(void)
{
	const struct harness_test *t;
	struct harness_suite *s;

	for (s = harness_suites(); s; s = s->next) {
		if (!s->cu_suite->fActive)
			continue;
		for (t = s->tests; t->name; t++)
			if (cu_test_of(s, t)->fActive)
				printf("%s/%s\n", s->name, t->name);
	}
}
