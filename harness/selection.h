/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which suites and tests to run: "suite" or "suite/test", comma-separated;
 * both parts are fnmatch(3) patterns.  An item that starts with '-'
 * leaves out what it matches (GoogleTest's negative patterns): alone, of
 * the whole run.
 */
#ifndef HARNESS_SELECTION_H
#define HARNESS_SELECTION_H

#include <stdbool.h>
#include <stddef.h>

#include "suite_registry.h"

struct selection_item {
	char *suite;
	/* NULL selects the whole suite. */
	char *test;
	/* "-suite[/test]": what the item matches is left out */
	bool exclude;
};

struct selection {
	struct selection_item *items;
	size_t count;
};

int selection_parse(const char *spec, struct selection *sel);
/* More items onto a parsed (or zeroed) selection. */
int selection_add(struct selection *sel, const char *spec);
int selection_validate(const struct selection *sel, bool verbose);
bool selection_wants_suite(const struct selection *sel,
			   const struct harness_suite *suite);
bool selection_wants_test(const struct selection *sel,
			  const struct harness_suite *suite,
			  const char *test);
void selection_apply(const struct selection *sel);
int selection_check_suites_only(const struct selection *sel);
void selection_skip_suites(const struct selection *skip, const char *why);
void selection_free(struct selection *sel);
int selection_check_dotted(const char *cmdline);

#endif
