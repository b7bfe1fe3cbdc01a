/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How test files declare their CUnit suites.
 *
 * Every test file in tests/ describes its suite in a static struct
 * harness_suite and registers it with HARNESS_SUITE().  The macro adds a
 * constructor, so adding a test file needs no edit of a central list: the
 * Makefile picks up the file and the constructor links it in.
 */
#ifndef HARNESS_SUITE_REGISTRY_H
#define HARNESS_SUITE_REGISTRY_H

#include <stdbool.h>
#include <CUnit/CUnit.h>

struct harness_test {
	const char *name;
	CU_TestFunc func;
};

/*
 * A requirement check returns NULL when the suite can run here, or a
 * short human-readable reason why it cannot (the suite is then reported
 * as skipped, never as passed).
 */
typedef const char *(*harness_requires_fn)(void);

struct harness_suite {
	const char *name;
	/* Array terminated by an entry whose name is NULL. */
	const struct harness_test *tests;
	CU_InitializeFunc init;
	CU_CleanupFunc cleanup;
	harness_requires_fn requires;
	/* Runs only when named in the selection (e.g. negative controls). */
	bool explicit_only;
	/* Harness duty: placed first, runs whatever the selection says. */
	bool always_run;
	/*
	 * Seconds a boot should allow for one test of this suite, when that
	 * is more than a runner's default (uml/seed-compare.sh gives a test
	 * 60 s); 0 for the default.  harness.list prints it, as a
	 * kselftest directory's settings file gives its timeout.
	 */
	unsigned int test_timeout;
	/* Filled in by the registry. */
	struct harness_suite *next;
	CU_pSuite cu_suite;
	/* Set when a selected suite is skipped: what .requires returned. */
	const char *skip_reason;
};

#define HARNESS_SUITE(var, ...)						\
	static struct harness_suite var = { __VA_ARGS__ };		\
	static void __attribute__((constructor)) var##_register(void)	\
	{								\
		harness_register_suite(&var);				\
	}

void harness_register_suite(struct harness_suite *suite);
struct harness_suite *harness_suites(void);
struct harness_suite *harness_find_suite(const char *name);
const struct harness_test *harness_find_test(const struct harness_suite *s,
					     const char *name);
int harness_register_with_cunit(void);
void harness_print_suite_list(void);
void harness_print_suite_names(void);
void harness_free_cunit_in_child(void);

#endif
