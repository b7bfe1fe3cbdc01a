// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own mm selftests (tools/testing/selftests/mm), run inside
 * UML with the kernel log watch on.  Explicit only: `make selftests`
 * (uml/selftests.sh) builds them static and boots with
 * harness.run=mm_selftests and mm_selftests.dir=/abs/host/dir, the host
 * directory that holds the binaries (mounted with hostfs).
 *
 * One CUnit test per binary, so that a kernel splat is charged to the
 * binary that was running.  Each binary runs through harness_run_program()
 * (run_program.h), with /tmp as its working directory, under a timeout;
 * its output (KTAP) is on the console as "MMST <name>| <line>", between
 * "MMST <name>: begin" and "MMST <name>: end <status>" markers, which
 * uml/selftests/results.py parses into per-case results.  The test fails
 * only when the binary could not be run: how its cases came out is judged
 * on the host, against the base kernel.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "harness.h"
#include "mount_util.h"
#include "run_program.h"

#define MMST_PARAM	"mm_selftests.dir"
#define MMST_MNT	"/mm_selftests"
#define MMST_CWD	"/tmp"
#define NOBODY		65534

struct mm_selftest {
	const char *file;	/* the binary, in mm_selftests.dir */
	unsigned int timeout;	/* seconds */
	uid_t uid;		/* 0, or NOBODY for tests that refuse root */
};

/*
 * The selftests that run, in this order, each as a test of this suite
 * named after its binary.  What is left out, and why, is in
 * docs/selftests.md.  None takes arguments in run_vmtests.sh; on-fault-limit
 * runs there as nobody.
 */
static const struct mm_selftest mm_selftests[] = {
	{ .file = "cow",		.timeout = 600 },
	{ .file = "madv_populate",	.timeout = 120 },
	{ .file = "map_fixed_noreplace",	.timeout = 60 },
	{ .file = "map_populate",	.timeout = 60 },
	{ .file = "mdwe_test",		.timeout = 60 },
	{ .file = "mkdirty",		.timeout = 120 },
	{ .file = "mlock2-tests",	.timeout = 120 },
	{ .file = "mlock-random-test",	.timeout = 300 },
	{ .file = "mrelease_test",	.timeout = 120 },
	{ .file = "mremap_dontunmap",	.timeout = 120 },
	{ .file = "mremap_test",	.timeout = 600 },
	{ .file = "mseal_test",		.timeout = 120 },
	{ .file = "seal_elf",		.timeout = 60 },
	{ .file = "on-fault-limit",	.timeout = 60, .uid = NOBODY },
	{ .file = "droppable",		.timeout = 120 },
	{ .file = "virtual_address_range",	.timeout = 300 },
};

static char host_dir[PATH_MAX];
/* Filled from mm_selftests[] before main(), see fill_tests(). */
static struct harness_test mm_selftests_tests[ARRAY_SIZE(mm_selftests) + 1];

/* The host directory from mm_selftests.dir= on the kernel command line. */
static const char *requires_selftests_dir(void)
{
	if (!harness_is_init())
		return "needs to run as init in UML";
	if (harness_kernel_param(MMST_PARAM, host_dir, sizeof(host_dir)))
		return "no " MMST_PARAM "= on the kernel command line (make selftests)";
	if (host_dir[0] != '/')
		return MMST_PARAM "= wants an absolute host path";
	return harness_requires_kmsg_watch();
}

/* The plan: every binary of the table, in the order they run. */
static int mmst_init(void)
{
	const struct harness_test *t;
	int ret;

	printf("\nMMST plan:");
	for (t = mm_selftests_tests; t->name; t++)
		printf(" %s", t->name);
	printf("\n");
	ret = harness_mount("none", MMST_MNT, "hostfs", host_dir);
	if (ret) {
		printf("MMST: hostfs mount of %s failed: %s\n", host_dir,
		       strerror(-ret));
		return ret;
	}
	/* tmpfile() wants /tmp, and cow's tests fallocate() there. */
	ret = harness_mount("tmpfs", MMST_CWD, "tmpfs", "mode=1777");
	if (ret) {
		printf("MMST: tmpfs on %s: %s\n", MMST_CWD, strerror(-ret));
		umount(MMST_MNT);
	}
	return ret;
}

static int mmst_cleanup(void)
{
	int ret = 0;

	if (umount(MMST_CWD)) {
		printf("MMST: umount %s: %s\n", MMST_CWD, strerror(errno));
		ret = -1;
	}
	if (umount(MMST_MNT)) {
		printf("MMST: umount %s: %s\n", MMST_MNT, strerror(errno));
		ret = -1;
	}
	return ret;
}

static void run_selftest(const struct mm_selftest *t)
{
	char path[PATH_MAX];
	char *argv[] = { path, NULL };
	struct harness_program prog = {
		.tag = "MMST", .name = t->file, .argv = argv, .cwd = MMST_CWD,
		.uid = t->uid, .timeout = t->timeout,
	};
	struct harness_program_result res;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", MMST_MNT, t->file);
	ret = harness_run_program(&prog, &res);
	if (ret == -ENOENT || ret == -EACCES) {
		CU_FAIL("selftest binary not built (see make selftests' build log)");
		return;
	}
	CU_ASSERT_EQUAL(ret, 0);
}

/* Every test of the suite: the selftest named like the running test. */
static void test_selftest(void)
{
	const char *name = CU_get_current_test()->pName;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mm_selftests); i++) {
		if (!strcmp(mm_selftests[i].file, name)) {
			run_selftest(&mm_selftests[i]);
			return;
		}
	}
	CU_FAIL("no such selftest in the table");
}

/*
 * The registry reads the tests in main(), after every constructor: the
 * table is the one list of what runs.
 */
static void __attribute__((constructor)) fill_tests(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mm_selftests); i++) {
		mm_selftests_tests[i].name = mm_selftests[i].file;
		mm_selftests_tests[i].func = test_selftest;
	}
}

HARNESS_SUITE(mm_selftests_suite,
	      .name = "mm_selftests",
	      .tests = mm_selftests_tests,
	      .init = mmst_init,
	      .cleanup = mmst_cleanup,
	      .requires = requires_selftests_dir,
	      .explicit_only = true);
