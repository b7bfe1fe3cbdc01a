// SPDX-License-Identifier: GPL-2.0
/*
 * mshare-run (mshare-run/), as a user runs it: each test runs the
 * launcher on mshare-run-probe (mshare-run/probe.c) with the host's root
 * as root, so that the dynamic linker preloads libmshare-run.so as it
 * would into a database, and checks the exit status, and that nothing of
 * the launcher's is left in msharefs or in the kernel's region list once
 * the program and its children are gone.
 *
 * The plan: one RUN_CASE a case, what mshare-run is told, what the probe does
 * and wants (see probe.c's comment), and the exit status wanted.  The
 * launcher's build directory comes from mshare_run.dir= on the kernel
 * command line (uml/run-linux.sh, uml/run-qemu.sh).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "host_root.h"
#include "mshare_util.h"
#include "run_program.h"

#define MAX_WORDS	12
#define RUN_TIMEOUT	60
/* Names the launcher's library gives its region files. */
#define REGION_PREFIX	"mshare-run."
#define HOST_MSHAREFS	HARNESS_HOST_ROOT MSHARE_DIR
#define HOST_REGIONS	HARNESS_HOST_ROOT MSHARE_REGIONS

struct run_case {
	const char *name;
	const char *options[4];		/* the launcher's */
	const char *probe[5];		/* the probe's arguments */
	const char *command;		/* instead of the probe: a path under the build dir */
	int status;			/* exit status wanted */
};

static void run_case(const struct run_case *c);

/* A case: its row of the plan and the CUnit test that runs it. */
#define RUN_CASE(id, ...)						\
	static const struct run_case id##_case = { .name = #id, __VA_ARGS__ }; \
	static void id(void) { run_case(&id##_case); }

RUN_CASE(anon_taken, { NULL }, { "anon", "4M", "region" })
RUN_CASE(anon_partial_munmap_refused, { NULL },
	 { "anon", "4M", "region", "partial-unmap" })
RUN_CASE(anon_below_min_size_left, { "--min-size=8M" }, { "anon", "4M", "plain" })
RUN_CASE(anon_exec_left, { NULL }, { "anon", "4M", "plain", "exec" })
RUN_CASE(anon_exec_strict_fails, { "--strict" },
	 { "anon", "4M", "fails-EPERM", "exec" })
RUN_CASE(anon_fixed_unaligned_left, { NULL },
	 { "anon", "4M", "plain", "fixed-unaligned" })
RUN_CASE(anon_fixed_unaligned_strict_fails, { "--strict" },
	 { "anon", "4M", "fails-EINVAL", "fixed-unaligned" })
RUN_CASE(anon_map_locked_taken, { NULL }, { "anon", "4M", "region", "locked" })
RUN_CASE(anon_mlock_taken, { NULL }, { "anon", "4M", "region", "mlock" })
RUN_CASE(anon_dry_run_takes_nothing, { "--dry-run" }, { "anon", "4M", "plain" })
RUN_CASE(anon_other_executable_left, { "--only=postgres" },
	 { "anon", "4M", "plain" })
RUN_CASE(anon_creator_exits_first, { NULL }, { "creator-exits", "4M" })
RUN_CASE(anon_sharer_killed, { NULL }, { "killed", "4M" })
RUN_CASE(sysv_taken, { NULL }, { "sysv", "4M", "region" })
RUN_CASE(sysv_removed_while_attached, { NULL }, { "sysv-removed", "4M" })
RUN_CASE(sysv_below_min_size_left, { "--min-size=8M" }, { "sysv", "4M", "plain" })
RUN_CASE(sysv_off_left, { "--no-sysv" }, { "sysv", "4M", "plain" })
RUN_CASE(no_msharefs_left, { "--dir=/tmp" }, { "anon", "4M", "plain" })
RUN_CASE(no_msharefs_strict_refused, { "--strict", "--dir=/tmp" },
	 { "anon", "4M", "plain" }, .status = 125)
RUN_CASE(bad_size_refused, { "--min-size=2X" }, { "anon", "4M", "plain" },
	 .status = 125)
/* The static harness itself: nothing to preload into. */
RUN_CASE(static_binary_refused, { NULL }, { NULL }, "../harness/init", 126)

static char build_dir[PATH_MAX / 2];	/* the launcher's, on the host */

static const char *requires_run(void)
{
	if (!harness_is_init())
		return "needs to run as init (the host's root is mounted for it)";
	if (harness_kernel_param("mshare_run.dir", build_dir, sizeof(build_dir)) ||
	    build_dir[0] != '/')
		return "no mshare_run.dir=/abs/path on the kernel command line (uml/run-linux.sh gives it)";
	return NULL;
}

static int run_init(void)
{
	return harness_host_root_mount();
}

static int run_cleanup(void)
{
	return harness_host_root_unmount();
}

/*
 * Region files of the launcher's in msharefs, and their names in @names;
 * removed when @remove, so that a failed case does not fail the next.
 */
static int files_left(char *names, size_t size, bool remove)
{
	DIR *d = opendir(HOST_MSHAREFS);
	struct dirent *e;
	int n = 0;

	names[0] = '\0';
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, REGION_PREFIX, strlen(REGION_PREFIX)))
			continue;
		n++;
		strncat(names, e->d_name, size - strlen(names) - 2);
		strcat(names, " ");
		if (remove)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Regions of the launcher's the kernel still lists.  The last unmap frees
 * the pages at once, the region's mm goes from a work item: allow it a
 * second.
 */
static int regions_left(char *lines, size_t size)
{
	int n = 0;

	for (int tries = 0; tries < 20; tries++) {
		char text[4096], *line, *save = NULL;

		n = 0;
		lines[0] = '\0';
		if (harness_read_file(HOST_REGIONS, text, sizeof(text)) < 0)
			return -1;
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "name=" REGION_PREFIX, 5 + strlen(REGION_PREFIX)))
				continue;
			n++;
			strncat(lines, line, size - strlen(lines) - 2);
			strcat(lines, ";");
		}
		if (!n)
			break;
		usleep(50 * 1000);
	}
	return n;
}

static void run_case(const struct run_case *c)
{
	char launcher[PATH_MAX], target[PATH_MAX], left[1024];
	char *argv[MAX_WORDS + 1];
	struct harness_program_result res;
	struct harness_program prog = {
		.tag = "mshare_run", .name = c->name, .argv = argv,
		.root = HARNESS_HOST_ROOT, .cwd = "/", .timeout = RUN_TIMEOUT,
	};
	int argc = 0;

	snprintf(launcher, sizeof(launcher), "%s/mshare-run", build_dir);
	snprintf(target, sizeof(target), "%s/%s", build_dir,
		 c->command ? c->command : "mshare-run-probe");
	argv[argc++] = launcher;
	for (int i = 0; i < 4 && c->options[i]; i++)
		argv[argc++] = (char *)c->options[i];
	argv[argc++] = "--";
	argv[argc++] = target;
	for (int i = 0; i < 5 && c->probe[i]; i++)
		argv[argc++] = (char *)c->probe[i];
	argv[argc] = NULL;

	CU_ASSERT_EQUAL_FATAL(harness_run_program(&prog, &res), 0);
	CU_ASSERT_TRUE(res.ran);
	CU_ASSERT_FALSE(res.timed_out);
	if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != c->status)
		printf("    %s: want exit status %d, got wait status %#x\n",
		       c->name, c->status, res.status);
	CU_ASSERT_TRUE(WIFEXITED(res.status) && WEXITSTATUS(res.status) == c->status);

	if (files_left(left, sizeof(left), false))
		printf("    %s: left in msharefs: %s\n", c->name, left);
	CU_ASSERT_EQUAL(files_left(left, sizeof(left), true), 0);
	if (regions_left(left, sizeof(left)))
		printf("    %s: regions the kernel still has: %s\n", c->name, left);
	CU_ASSERT_EQUAL(regions_left(left, sizeof(left)), 0);
}

static const struct harness_test run_tests[] = {
#define RUN_ENTRY(id) { #id, id }
	RUN_ENTRY(anon_taken),
	RUN_ENTRY(anon_partial_munmap_refused),
	RUN_ENTRY(anon_below_min_size_left),
	RUN_ENTRY(anon_exec_left),
	RUN_ENTRY(anon_exec_strict_fails),
	RUN_ENTRY(anon_fixed_unaligned_left),
	RUN_ENTRY(anon_fixed_unaligned_strict_fails),
	RUN_ENTRY(anon_map_locked_taken),
	RUN_ENTRY(anon_mlock_taken),
	RUN_ENTRY(anon_dry_run_takes_nothing),
	RUN_ENTRY(anon_other_executable_left),
	RUN_ENTRY(anon_creator_exits_first),
	RUN_ENTRY(anon_sharer_killed),
	RUN_ENTRY(sysv_taken),
	RUN_ENTRY(sysv_removed_while_attached),
	RUN_ENTRY(sysv_below_min_size_left),
	RUN_ENTRY(sysv_off_left),
	RUN_ENTRY(no_msharefs_left),
	RUN_ENTRY(no_msharefs_strict_refused),
	RUN_ENTRY(bad_size_refused),
	RUN_ENTRY(static_binary_refused),
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_run_suite, .name = "mshare_run",
	      .tests = run_tests,
	      .init = run_init,
	      .cleanup = run_cleanup,
	      .requires = requires_run);
