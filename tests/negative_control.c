// SPDX-License-Identifier: GPL-2.0
/*
 * Negative control: proves the kernel log watch works.  LKDTM makes the
 * kernel print a WARNING; the body asserts nothing false, so only the
 * log watch can fail this test - and it must.  Explicit only, since it
 * fails by design: run it as harness.run=negative_control and expect
 * verdict FAIL with a KMSG| WARNING line under this test.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define LKDTM_DIRECT	"/sys/kernel/debug/provoke-crash/DIRECT"

static const char *requires_lkdtm(void)
{
	if (access(LKDTM_DIRECT, W_OK))
		return LKDTM_DIRECT " missing (CONFIG_LKDTM, debugfs)";
	/* Without the watch this test would pass and prove nothing. */
	return harness_requires_kmsg_watch();
}

static void test_lkdtm_warning(void)
{
	static const char cmd[] = "WARNING\n";
	ssize_t len = strlen(cmd);
	int fd;

	fd = open(LKDTM_DIRECT, O_WRONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(write(fd, cmd, len) == len);
	close(fd);
}

static const struct harness_test negative_tests[] = {
	{ "lkdtm_warning", test_lkdtm_warning },
	{ NULL, NULL },
};

HARNESS_SUITE(negative_suite,
	      .name = "negative_control",
	      .tests = negative_tests,
	      .requires = requires_lkdtm,
	      .explicit_only = true);
