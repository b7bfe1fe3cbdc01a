// SPDX-License-Identifier: GPL-2.0
/*
 * The list of suites that test files registered, and its hand-over to the
 * CUnit registry.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg_watch.h"
#include "suite_registry.h"
#include "test_times.h"

static struct harness_suite *suite_head;

/*
 * Called from constructors, before main().  Keep link order (it is the
 * order the Makefile lists files in, so stable), except that harness
 * duties go first: the boot log check must be the first reported test.
 */
void harness_register_suite(struct harness_suite *suite)
{
	struct harness_suite **pos = &suite_head;

	if (suite->always_run) {
		while (*pos && (*pos)->always_run)
			pos = &(*pos)->next;
	} else {
		while (*pos)
			pos = &(*pos)->next;
	}
	suite->next = *pos;
	*pos = suite;
}

struct harness_suite *harness_suites(void)
{
	return suite_head;
}

struct harness_suite *harness_find_suite(const char *name)
{
	struct harness_suite *s;

	for (s = suite_head; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

const struct harness_test *harness_find_test(const struct harness_suite *s,
					     const char *name)
{
	const struct harness_test *t;

	for (t = s->tests; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* The CPUs the harness may run on, as it started */
static cpu_set_t harness_cpus;

/*
 * The test's time ends before the kernel log check, which is the
 * harness's work, not the test's.  The check is what lets a kernel
 * warning fail the test that was running when it appeared.  A test that
 * pins itself to one CPU (mshare_pin_to_cpu()) and stops at a fatal
 * assertion never reaches its own unpin: the next test gets every CPU
 * back all the same.
 */
static void test_teardown(void)
{
	test_times_stop();
	if (sched_setaffinity(0, sizeof(harness_cpus), &harness_cpus))
		printf("harness: cannot restore the CPU affinity: %m\n");
	kmsg_watch_test_teardown();
}

static int register_one(struct harness_suite *s)
{
	const struct harness_test *t;

	s->cu_suite = CU_add_suite_with_setup_and_teardown(s->name, s->init,
							   s->cleanup,
							   test_times_start,
							   test_teardown);
	if (!s->cu_suite)
		return -1;
	for (t = s->tests; t->name; t++)
		if (!CU_add_test(s->cu_suite, t->name, t->func))
			return -1;
	return 0;
}

int harness_register_with_cunit(void)
{
	struct harness_suite *s;

	if (sched_getaffinity(0, sizeof(harness_cpus), &harness_cpus)) {
		printf("harness: cannot read the CPU affinity: %m\n");
		return -1;
	}

	for (s = suite_head; s; s = s->next) {
		if (register_one(s)) {
			printf("harness: cannot register suite %s: %s\n",
			       s->name, CU_get_error_msg());
			return -1;
		}
	}
	return 0;
}

void harness_print_suite_list(void)
{
	const struct harness_suite *s;
	const struct harness_test *t;

	for (s = suite_head; s; s = s->next) {
		printf("%s%s%s", s->name,
		       s->explicit_only ? " (explicit only)" : "",
		       s->always_run ? " (always runs)" : "");
		if (s->test_timeout)
			printf(" (timeout %u s a test)", s->test_timeout);
		printf("\n");
		for (t = s->tests; t->name; t++)
			printf("  %s/%s\n", s->name, t->name);
	}
}

void harness_print_suite_names(void)
{
	const struct harness_suite *s;

	printf("harness: valid suites:");
	for (s = suite_head; s; s = s->next)
		printf(" %s", s->name);
	printf("\n");
}

static void free_failure_list(void)
{
	CU_pFailureRecord rec = CU_get_failure_list();
	CU_pFailureRecord next;

	for (; rec; rec = next) {
		next = rec->pNext;
		free(rec->strFileName);
		free(rec->strCondition);
		free(rec);
	}
}

/*
 * For a forked test child about to _exit(): CU_cleanup_registry() refuses
 * (asserts) while a test runs, but valgrind checks the child for leaks
 * too.  So free CUnit 2.1-3's registry by hand, through its public
 * structures; everything in it comes from malloc().  Never call this in
 * the parent: CUnit keeps pointers to all of it.
 */
void harness_free_cunit_in_child(void)
{
	CU_pTestRegistry reg = CU_get_registry();
	CU_pSuite suite, next_suite;
	CU_pTest test, next_test;

	free_failure_list();
	if (!reg)
		return;
	for (suite = reg->pSuite; suite; suite = next_suite) {
		next_suite = suite->pNext;
		for (test = suite->pTest; test; test = next_test) {
			next_test = test->pNext;
			free(test->pName);
			free(test);
		}
		free(suite->pName);
		free(suite);
	}
	free(reg);
}
