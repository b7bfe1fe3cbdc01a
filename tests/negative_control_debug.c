// SPDX-License-Identifier: GPL-2.0
/*
 * Negative controls of the debug stack: each test makes the kernel print
 * one kind of report and asserts nothing false, so only the log watch can
 * fail it - and it must.  Explicit only: `make test` runs them and wants
 * both FAILED, by a UBSAN report and by a fault injection nobody armed.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define LKDTM_DIRECT	"/sys/kernel/debug/provoke-crash/DIRECT"
#define FAILSLAB_GFP	"/sys/kernel/debug/failslab/ignore-gfp-wait"

static const char *requires_debug(void)
{
	if (access(LKDTM_DIRECT, W_OK))
		return LKDTM_DIRECT " missing (CONFIG_LKDTM, debugfs)";
	if (access(FAILSLAB_GFP, W_OK) ||
	    access("/proc/thread-self/fail-nth", W_OK))
		return "no failslab or fail-nth (CONFIG_FAILSLAB, FAULT_INJECTION_DEBUG_FS)";
	return harness_requires_kmsg_watch();
}

static void write_str(const char *path, const char *s)
{
	ssize_t len = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, s, len) == len);
	close(fd);
}

/* "UBSAN: array-index-out-of-bounds in drivers/misc/lkdtm/bugs.c" */
static void test_ubsan_array_bounds(void)
{
	write_str(LKDTM_DIRECT, "ARRAY_BOUNDS\n");
}

/* fail-nth without the sweep's markers: "FAULT_INJECTION: forcing ..." */
static void test_unarmed_injection(void)
{
	int fd;

	write_str(FAILSLAB_GFP, "N");
	fd = open("/proc/thread-self/fail-nth", O_WRONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, "1", 1) == 1);
	/* The next allocation of this task fails: the file of open(). */
	close(open("/", O_RDONLY | O_CLOEXEC));
	CU_ASSERT(write(fd, "0", 1) == 1);
	close(fd);
	write_str(FAILSLAB_GFP, "Y");
}

static const struct harness_test negative_debug_tests[] = {
	{ "ubsan_array_bounds", test_ubsan_array_bounds },
	{ "unarmed_injection", test_unarmed_injection },
	{ NULL, NULL },
};

HARNESS_SUITE(negative_debug_suite,
	      .name = "negative_control_debug",
	      .tests = negative_debug_tests,
	      .requires = requires_debug,
	      .explicit_only = true);
