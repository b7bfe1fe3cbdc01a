// SPDX-License-Identifier: GPL-2.0
/*
 * The first reported test: was the kernel log clean before the tests
 * started?  A warning during boot must fail the run, and this gives it a
 * test to be charged to.  It runs whatever the selection says.
 */
#include <stdio.h>

#include "harness.h"
#include "kmsg_watch.h"

static void test_boot_log_clean(void)
{
	unsigned int bad = kmsg_watch_boot_bad();
	char cond[96];

	if (!bad) {
		CU_PASS("boot log clean");
		return;
	}
	snprintf(cond, sizeof(cond),
		 "kernel log before the tests: %u bad record(s), see KMSG| lines at start",
		 bad);
	CU_assertImplementation(CU_FALSE, __LINE__, cond, __FILE__, "",
				CU_FALSE);
}

static const struct harness_test boot_log_tests[] = {
	{ "boot_log_clean", test_boot_log_clean },
	{ NULL, NULL },
};

HARNESS_SUITE(boot_log_suite,
	      .name = "kernel_log",
	      .tests = boot_log_tests,
	      .requires = harness_requires_kmsg_watch,
	      .always_run = true);
