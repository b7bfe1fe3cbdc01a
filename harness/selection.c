// SPDX-License-Identifier: GPL-2.0
/*
 * Test selection: parse "SEL[,SEL...]" (from harness.run= and from the
 * positional words of the command line), check that every item selects
 * something, and turn the result into CUnit active/inactive flags (CUnit
 * is told not to count inactive suites and tests as failures).
 *
 * Both parts of "suite/test" are fnmatch(3) patterns.  A suite part with
 * no wildcard is a name and can select an explicit-only suite; a wildcard
 * never does: `mshare_*` must not pull in a 30 s fuzzer or an OOM test.
 * "-suite[/test]" leaves out what it matches from what the other items
 * select, or from the whole run when they are all exclusions: make test
 * runs the suites that fill all of memory in a boot with less of it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "selection.h"

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int parse_item(char *word, struct selection_item *item)
{
	char *slash;

	item->exclude = *word == '-';
	word += item->exclude;
	slash = strchr(word, '/');

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

static int grow(struct selection *sel, size_t more)
{
	struct selection_item *items;

	items = realloc(sel->items, (sel->count + more) * sizeof(*items));
	if (!items)
		return -ENOMEM;
	memset(items + sel->count, 0, more * sizeof(*items));
	sel->items = items;
	return 0;
}

/* Empty items ("a,,b", "a/", "/b") are syntax errors, not "everything". */
int selection_add(struct selection *sel, const char *spec)
{
	char *copy, *word, *rest;
	size_t max = 1;
	const char *p;
	int ret;

	for (p = spec; *p; p++)
		max += *p == ',';
	copy = strdup(spec);
	ret = copy ? grow(sel, max) : -ENOMEM;
	rest = copy;
	while (!ret && (word = strsep(&rest, ",")))
		ret = parse_item(word, &sel->items[sel->count++]);
	free(copy);
	return ret;
}

int selection_parse(const char *spec, struct selection *sel)
{
	int ret;

	memset(sel, 0, sizeof(*sel));
	ret = selection_add(sel, spec);
	if (ret)
		selection_free(sel);
	return ret;
}

static bool item_wants_suite(const struct selection_item *it,
			     const struct harness_suite *suite)
{
	if (!is_pattern(it->suite))
		return !strcmp(it->suite, suite->name);
	return !suite->explicit_only && !fnmatch(it->suite, suite->name, 0);
}

static bool item_wants_test(const struct selection_item *it,
			    const struct harness_suite *suite,
			    const char *test)
{
	return item_wants_suite(it, suite) &&
	       (!it->test || !fnmatch(it->test, test, 0));
}

/* How many tests of the registry the item selects. */
static unsigned int item_test_count(const struct selection_item *it)
{
	const struct harness_suite *s;
	const struct harness_test *t;
	unsigned int n = 0;

	for (s = harness_suites(); s; s = s->next)
		for (t = s->tests; t->name; t++)
			n += item_wants_test(it, s, t->name);
	return n;
}

static void print_tests(const struct harness_suite *s)
{
	const struct harness_test *t;

	printf("harness: tests in %s:", s->name);
	for (t = s->tests; t->name; t++)
		printf(" %s", t->name);
	printf("\n");
}

/* Why the item selects nothing, and the names that would have worked. */
static void explain_item(const struct selection_item *it)
{
	const struct harness_suite *s;
	bool suite_found = false;

	for (s = harness_suites(); s; s = s->next) {
		if (!item_wants_suite(it, s))
			continue;
		suite_found = true;
		print_tests(s);
	}
	if (suite_found && it->test)
		printf("harness: no test of the suites above matches '%s/%s'\n",
		       it->suite, it->test);
	else if (suite_found)
		printf("harness: the suites above have no test that '%s' may run\n",
		       it->suite);
	else if (is_pattern(it->suite))
		printf("harness: no suite matches '%s' (explicit-only suites must be named in full)\n",
		       it->suite);
	else
		printf("harness: unknown suite '%s'\n", it->suite);
}

static bool has_exclusion(const struct selection *sel);
static bool exclusions_leave_any(const struct selection *sel);

/* Every item must select a test: a typo must not become "ran nothing". */
int selection_validate(const struct selection *sel, bool verbose)
{
	const struct selection_item *it;
	int ret = 0;

	for (it = sel->items; it < sel->items + sel->count; it++) {
		if (item_test_count(it))
			continue;
		if (verbose)
			explain_item(it);
		ret = -ENOENT;
	}
	if (ret && verbose)
		harness_print_suite_names();
	if (!ret && has_exclusion(sel) && !exclusions_leave_any(sel)) {
		if (verbose)
			printf("harness: the exclusions leave no test to run\n");
		ret = -ENOENT;
	}
	return ret;
}

/* What the selection's own items take, before its exclusions. */
static bool included(const struct selection *sel,
		     const struct harness_suite *suite, const char *test)
{
	bool any_include = false;
	size_t i;

	for (i = 0; i < sel->count; i++) {
		if (sel->items[i].exclude)
			continue;
		if (item_wants_test(&sel->items[i], suite, test))
			return true;
		any_include = true;
	}
	return !any_include && !suite->explicit_only;
}

static bool excluded(const struct selection *sel,
		     const struct harness_suite *suite, const char *test)
{
	size_t i;

	for (i = 0; i < sel->count; i++)
		if (sel->items[i].exclude &&
		    item_wants_test(&sel->items[i], suite, test))
			return true;
	return false;
}

bool selection_wants_test(const struct selection *sel,
			  const struct harness_suite *suite, const char *test)
{
	return suite->always_run ||
	       (included(sel, suite, test) && !excluded(sel, suite, test));
}

/*
 * A suite is wanted for a test of it, not for its name alone: when the
 * test pattern is child_*, a suite without child_ tests neither runs its
 * init nor shows up, empty, in the results.
 */
bool selection_wants_suite(const struct selection *sel,
			   const struct harness_suite *suite)
{
	const struct harness_test *t;

	if (suite->always_run)
		return true;
	for (t = suite->tests; t->name; t++)
		if (selection_wants_test(sel, suite, t->name))
			return true;
	return false;
}

static bool has_exclusion(const struct selection *sel)
{
	size_t i;

	for (i = 0; i < sel->count; i++)
		if (sel->items[i].exclude)
			return true;
	return false;
}

/*
 * Whether a test is left once the exclusions are applied: the items'
 * own choice, whether or not its suite is one that always runs (a
 * selection may name kernel_log/boot_log_clean alone).
 */
static bool exclusions_leave_any(const struct selection *sel)
{
	const struct harness_suite *s;
	const struct harness_test *t;

	for (s = harness_suites(); s; s = s->next)
		for (t = s->tests; t->name; t++)
			if (included(sel, s, t->name) &&
			    !excluded(sel, s, t->name))
				return true;
	return false;
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

/* harness.skip= names suites: -EINVAL for an item with a test part. */
int selection_check_suites_only(const struct selection *sel)
{
	size_t i;

	for (i = 0; i < sel->count; i++) {
		if (sel->items[i].test) {
			printf("harness: '%s/%s': harness.skip takes suites, not tests\n",
			       sel->items[i].suite, sel->items[i].test);
			return -EINVAL;
		}
		if (sel->items[i].exclude) {
			printf("harness: '-%s': harness.skip takes suites to leave out, not exclusions\n",
			       sel->items[i].suite);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Leave the selected suites that @skip names out of the run: they are
 * reported as skipped, with @why, as a suite whose requirement is not
 * met is.
 */
void selection_skip_suites(const struct selection *skip, const char *why)
{
	struct harness_suite *s;

	if (!skip->count)
		return;
	for (s = harness_suites(); s; s = s->next) {
		if (!s->cu_suite->fActive || s->skip_reason || s->always_run ||
		    !selection_wants_suite(skip, s))
			continue;
		printf("harness: skipping suite %s: %s\n", s->name, why);
		s->skip_reason = why;
		CU_set_suite_active(s->cu_suite, CU_FALSE);
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

/*
 * "suite.test" is kunit.py's spelling, but the kernel takes a word with a
 * '.' for a module parameter and keeps it from init: it would be ignored.
 * Such a word of /proc/cmdline whose part before the '.' names or matches
 * a suite is an error instead.
 */
int selection_check_dotted(const char *cmdline)
{
	const struct harness_suite *s;
	char *copy, *word, *dot, *save = NULL;
	int ret = 0;

	copy = strdup(cmdline);
	if (!copy)
		return -ENOMEM;
	for (word = strtok_r(copy, " \t\n", &save); word;
	     word = strtok_r(NULL, " \t\n", &save)) {
		dot = strchr(word, '.');
		if (!dot || strchr(word, '=') ||
		    !strncmp(word, "harness.", strlen("harness.")))
			continue;
		*dot = '\0';
		for (s = harness_suites(); s; s = s->next)
			if (!fnmatch(word, s->name, 0))
				break;
		if (!s)
			continue;
		printf("harness: '%s.%s' does not reach the harness (the kernel keeps words with a '.' for modules): write %s/%s\n",
		       word, dot + 1, word, dot + 1);
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}
