// SPDX-License-Identifier: GPL-2.0
/*
 * Negative self-test of the kernel log watch, for the host: with
 * --kmsg-file PATH the watch reads PATH instead of /dev/kmsg, and these
 * tests append a fake WARNING to it.  Every test here except
 * clean_after_dirty MUST be reported as failed by the harness, and the
 * warning the suite cleanup logs must fail the verdict through the final
 * log read (when this is the last suite run).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "kmsg_watch.h"

static const char fake_warning[] =
	"4,900,900,-;WARNING: CPU: 0 PID: 1 at tests/fake.c:1 fake+0x0/0x1\n"
	"4,901,901,-;Modules linked in:\n"
	"4,902,902,-;Call Trace:\n";

static const char *requires_fake_log(void)
{
	return kmsg_watch_fake_path() ? NULL : "needs --kmsg-file PATH";
}

static int append_fake_warning(void)
{
	ssize_t len = strlen(fake_warning);
	int fd, ok;

	fd = open(kmsg_watch_fake_path(), O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, fake_warning, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

static void test_warning_fails_test(void)
{
	CU_ASSERT_EQUAL(append_fake_warning(), 0);
}

static void test_warning_after_fatal(void)
{
	CU_ASSERT_EQUAL(append_fake_warning(), 0);
	CU_ASSERT_FATAL(1 == 2);
}

static void test_clean_after_dirty(void)
{
	CU_PASS("nothing logged");
}

/* Logged after the last test: only the final log read can catch it. */
static int cleanup_logs_warning(void)
{
	return append_fake_warning() ? -1 : 0;
}

static const struct harness_test watch_tests[] = {
	{ "warning_fails_test", test_warning_fails_test },
	{ "warning_after_fatal", test_warning_after_fatal },
	{ "clean_after_dirty", test_clean_after_dirty },
	{ NULL, NULL },
};

HARNESS_SUITE(watch_suite,
	      .name = "harness_watch",
	      .tests = watch_tests,
	      .cleanup = cleanup_logs_warning,
	      .requires = requires_fake_log,
	      .explicit_only = true);
