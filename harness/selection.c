// SPDX-License-Identifier: GPL-2.0
/*
 * Test selection: parse "SEL[,SEL...]", check every name exists, and turn
 * the result into CUnit active/inactive flags (CUnit is told not to count
 * inactive suites and tests as failures).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "selection.h"

static int parse_item(char *word, struct selection_item *item)
{
	char *slash = strchr(word, '/');

	if (slash) {
		*slash = '\0';
		if (!slash[1] || strchr(slash + 1, '/'))
			return -EINVAL;
	}
	if (!*word)
		return -EINVAL;
	item->suite = strdup(word);
	item->test = slash ? strdup(slash + 1) : NULL;
	if (!item->suite || (slash && !item->test))
		return -ENOMEM;
	return 0;
}

/* Empty items ("a,,b", "a/", "/b") are syntax errors, not "everything". */
int selection_parse(const char *spec, struct selection *sel)
{
	char *copy, *word, *rest;
	size_t max = 1;
	const char *p;
	int ret = 0;

	memset(sel, 0, sizeof(*sel));
	for (p = spec; *p; p++)
		max += *p == ',';
	copy = strdup(spec);
	sel->items = calloc(max, sizeof(*sel->items));
	if (!copy || !sel->items) {
		free(copy);
		selection_free(sel);
		return -ENOMEM;
	}
	rest = copy;
	while (!ret && (word = strsep(&rest, ",")))
		ret = parse_item(word, &sel->items[sel->count++]);
	free(copy);
	if (ret)
		selection_free(sel);
	return ret;
}

static void print_tests(const struct harness_suite *s)
{
	const struct harness_test *t;

	printf("harness: tests in %s:", s->name);
	for (t = s->tests; t->name; t++)
		printf(" %s", t->name);
	printf("\n");
}

/* Every name must exist: a typo must not turn into "ran nothing, passed". */
int selection_validate(const struct selection *sel, bool verbose)
{
	const struct selection_item *it;
	const struct harness_suite *s;
	int ret = 0;

	for (it = sel->items; it < sel->items + sel->count; it++) {
		s = harness_find_suite(it->suite);
		if (!s) {
			if (verbose)
				printf("harness: unknown suite '%s'\n",
				       it->suite);
			ret = -ENOENT;
		} else if (it->test && !harness_find_test(s, it->test)) {
			if (verbose) {
				printf("harness: unknown test '%s/%s'\n",
				       it->suite, it->test);
				print_tests(s);
			}
			ret = -ENOENT;
		}
	}
	if (ret && verbose)
		harness_print_suite_names();
	return ret;
}

bool selection_wants_suite(const struct selection *sel,
			   const struct harness_suite *suite)
{
	size_t i;

	if (suite->always_run)
		return true;
	if (!sel->count)
		return !suite->explicit_only;
	for (i = 0; i < sel->count; i++)
		if (!strcmp(sel->items[i].suite, suite->name))
			return true;
	return false;
}

bool selection_wants_test(const struct selection *sel,
			  const struct harness_suite *suite, const char *test)
{
	const struct selection_item *it;
	bool named = false;

	if (!selection_wants_suite(sel, suite))
		return false;
	if (!sel->count || suite->always_run)
		return true;
	for (it = sel->items; it < sel->items + sel->count; it++) {
		if (strcmp(it->suite, suite->name))
			continue;
		if (!it->test || !strcmp(it->test, test))
			return true;
		named = true;
	}
	return !named;
}

void selection_apply(const struct selection *sel)
{
	const struct harness_test *t;
	struct harness_suite *s;
	CU_pTest cu_test;

	CU_set_fail_on_inactive(CU_FALSE);
	for (s = harness_suites(); s; s = s->next) {
		CU_set_suite_active(s->cu_suite,
				    selection_wants_suite(sel, s) ?
				    CU_TRUE : CU_FALSE);
		for (t = s->tests; t->name; t++) {
			cu_test = CU_get_test_by_name(t->name, s->cu_suite);
			CU_set_test_active(cu_test,
					   selection_wants_test(sel, s, t->name) ?
					   CU_TRUE : CU_FALSE);
		}
	}
}

void selection_free(struct selection *sel)
{
	size_t i;

	for (i = 0; i < sel->count; i++) {
		free(sel->items[i].suite);
		free(sel->items[i].test);
	}
	free(sel->items);
	memset(sel, 0, sizeof(*sel));
}
