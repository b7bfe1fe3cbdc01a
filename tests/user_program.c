// SPDX-License-Identifier: GPL-2.0
/*
 * Your own program inside ./linux, as a test: `make prog PROG=path
 * [ARGS='a b']` (uml/run-program.sh) boots with harness.run=user_program
 * and
 *
 *   user_program.argv=/abs/host/path,ARG,...  the program and its arguments
 *   user_program.cwd=/abs/host/dir            its working directory
 *   user_program.timeout=SECONDS              default 600
 *
 * The program runs as root with the host's root directory (hostfs, or
 * virtio-9p under qemu: make prog ARCH=x86_64) as its root, so that a
 * program built on the host finds its shared libraries and its files where
 * they are, with the guest's own file systems over it:
 * /proc, /sys with msharefs on /sys/fs/mshare, debugfs and cgroup2,
 * /dev (devtmpfs: the swap disk, swapped on for it, and the scratch disk,
 * as test_disks.h names them), and a tmpfs on /dev/shm.  /tmp stays the
 * host's: a checkout, a program or a working directory there must be
 * found.  What the program writes outside those goes to the host's
 * files, as the user running ./linux.
 *
 * The test passes when the program exits 0 before the timeout; the kernel
 * log watch fails it on a kernel report while it ran, as for any test.
 * Its output is on the console as "user_program NAME| LINE".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "host_root.h"
#include "run_program.h"
#include "swap_disk.h"
#include "test_disks.h"

#define MAX_ARGS	64
#define DEFAULT_TIMEOUT	600

static char argv_param[PATH_MAX * 2];
static char cwd[PATH_MAX];
static char *argv[MAX_ARGS + 1];
static unsigned int timeout = DEFAULT_TIMEOUT;

/* Split user_program.argv= at its commas into argv[]. */
static const char *parse_argv(void)
{
	char *save = NULL, *word;
	int argc = 0;

	for (word = strtok_r(argv_param, ",", &save); word;
	     word = strtok_r(NULL, ",", &save)) {
		if (argc == MAX_ARGS)
			return "user_program.argv= has more than 64 words";
		argv[argc++] = word;
	}
	argv[argc] = NULL;
	if (!argc || argv[0][0] != '/')
		return "user_program.argv= wants the program's absolute host path first";
	return NULL;
}

static const char *parse_timeout(void)
{
	char text[32], *end;
	unsigned long secs;

	if (harness_kernel_param("user_program.timeout", text, sizeof(text)))
		return NULL;
	errno = 0;
	secs = strtoul(text, &end, 10);
	if (errno || *end || !secs || secs > 86400)
		return "user_program.timeout= wants whole seconds, 1 to 86400";
	timeout = secs;
	return NULL;
}

static const char *requires_program(void)
{
	const char *why = swap_disk_required();

	if (why)
		return why;
	if (!harness_is_init())
		return "needs to run as init in UML";
	if (harness_kernel_param("user_program.argv", argv_param,
				 sizeof(argv_param)))
		return "no user_program.argv= on the kernel command line (make prog PROG=...)";
	if (harness_kernel_param("user_program.cwd", cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	why = parse_argv();
	if (!why)
		why = parse_timeout();
	if (!why && cwd[0] != '/')
		why = "user_program.cwd= wants an absolute host path";
	return why ? why : harness_requires_kmsg_watch();
}

static int program_init(void)
{
	int ret = harness_host_root_mount();

	if (ret)
		return ret;
	if (swap_disk_on()) {
		printf("user_program: swapon %s: %s\n", harness_swap_disk(),
		       strerror(errno));
		harness_host_root_unmount();
		return -1;
	}
	return 0;
}

static int program_cleanup(void)
{
	int ret = swap_disk_off();

	if (ret)
		printf("user_program: swapoff %s: %s\n", harness_swap_disk(),
		       strerror(errno));
	return harness_host_root_unmount() ? -1 : ret;
}

static void test_run(void)
{
	const char *name = strrchr(argv[0], '/') + 1;
	struct harness_program prog = {
		.tag = "user_program", .name = *name ? name : argv[0],
		.argv = argv, .root = HARNESS_HOST_ROOT, .cwd = cwd, .timeout = timeout,
	};
	struct harness_program_result res;
	int ret = harness_run_program(&prog, &res);

	if (ret)
		printf("    cannot run %s: %s\n", argv[0], strerror(-ret));
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_FALSE(res.timed_out);
	CU_ASSERT_TRUE(harness_program_passed(&res));
}

static const struct harness_test user_program_tests[] = {
	{ "run", test_run },
	{ NULL, NULL },
};

HARNESS_SUITE(user_program_suite, .name = "user_program",
	      .tests = user_program_tests,
	      .init = program_init,
	      .cleanup = program_cleanup,
	      .requires = requires_program,
	      .explicit_only = true);
