// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own mm selftests (tools/testing/selftests/mm), run inside
 * UML with the kernel log watch on.  Explicit only: `make selftests`
 * (uml/selftests.sh) builds them static and boots with
 * harness.run=mm_selftests and mm_selftests.dir=/abs/host/dir, the host
 * directory that holds the binaries (mounted with hostfs).
 *
 * One CUnit test per binary, so that a kernel splat is charged to the
 * binary that was running.  Each binary runs in a process group of its own,
 * with /tmp as its working directory, under a timeout; its output (KTAP)
 * is copied to the console line by line as "MMST <name>| <line>", between
 * "MMST <name>: begin" and "MMST <name>: end <status>" markers, which
 * uml/selftests/results.py parses into per-case results.  The test fails
 * only when the binary could not be run: how its cases came out is judged
 * on the host, against the base kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "harness.h"
#include "mount_util.h"
#include "options.h"

#define MMST_PARAM	"mm_selftests.dir="
#define MMST_MNT	"/mm_selftests"
#define MMST_CWD	"/tmp"
#define MMST_LINE_MAX	4096
#define CMDLINE_MAX	4096
#define NOBODY		65534

struct mm_selftest {
	const char *file;	/* the binary, in mm_selftests.dir */
	unsigned int timeout;	/* seconds */
	uid_t uid;		/* 0, or NOBODY for tests that refuse root */
};

/*
 * The selftests that run, in this order, each as a test of this suite
 * named after its binary.  What is left out, and why, is in README.md
 * ("mm selftests").  None takes arguments in run_vmtests.sh; on-fault-limit
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

static char host_dir[CMDLINE_MAX];
/* Filled from mm_selftests[] before main(), see fill_tests(). */
static struct harness_test mm_selftests_tests[ARRAY_SIZE(mm_selftests) + 1];

/* The host directory from mm_selftests.dir= on the kernel command line. */
static const char *requires_selftests_dir(void)
{
	static char cmdline[CMDLINE_MAX];
	char *p, *end;

	if (!harness_is_init())
		return "needs to run as init in UML";
	if (harness_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return "cannot read /proc/cmdline";
	for (p = cmdline; (p = strstr(p, MMST_PARAM)); p++) {
		if (p == cmdline || p[-1] == ' ')
			break;
	}
	if (!p)
		return "no " MMST_PARAM " on the kernel command line (make selftests)";
	p += strlen(MMST_PARAM);
	end = p + strcspn(p, " \t\n");
	snprintf(host_dir, sizeof(host_dir), "%.*s", (int)(end - p), p);
	if (host_dir[0] != '/')
		return MMST_PARAM " wants an absolute host path";
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

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child: its own process group, output into the pipe, then exec. */
static void __noreturn exec_selftest(const struct mm_selftest *t, int out)
{
	char path[MMST_LINE_MAX];
	char *argv[] = { path, NULL };

	setpgid(0, 0);
	snprintf(path, sizeof(path), "%s/%s", MMST_MNT, t->file);
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0 ||
	    chdir(MMST_CWD))
		_exit(126);
	if (t->uid && (setgid(t->uid) || setuid(t->uid)))
		_exit(126);
	execv(path, argv);
	dprintf(STDERR_FILENO, "exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

/* Copy complete lines of @buf to the console; return what is left over. */
static size_t print_lines(const char *name, char *buf, size_t len, bool flush)
{
	char *start = buf, *nl;
	size_t rest;

	while ((nl = memchr(start, '\n', len - (start - buf)))) {
		printf("MMST %s| %.*s\n", name, (int)(nl - start), start);
		start = nl + 1;
	}
	rest = len - (start - buf);
	if (flush && rest) {
		printf("MMST %s| %.*s\n", name, (int)rest, start);
		rest = 0;
	}
	memmove(buf, start, rest);
	return rest;
}

/*
 * Copy the child's output until end of file or the deadline.  Returns
 * false on timeout.  A full line buffer is printed as a line.
 */
static bool copy_output(const char *name, int in, double deadline)
{
	static char buf[MMST_LINE_MAX];
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	int ms;

	for (;;) {
		ms = (int)((deadline - now_seconds()) * 1000);
		if (ms <= 0)
			break;
		if (poll(&pfd, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!pfd.revents)
			continue;
		n = read(in, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			print_lines(name, buf, len, true);
			return true;
		}
		len = print_lines(name, buf, len + n, len + n == sizeof(buf));
	}
	print_lines(name, buf, len, true);
	return false;
}

static void report_status(const char *name, int status, bool timed_out,
			  unsigned int timeout, double seconds)
{
	if (timed_out)
		printf("MMST %s: end timeout %u s\n", name, timeout);
	else if (WIFEXITED(status))
		printf("MMST %s: end exit %d, %.1f s\n", name,
		       WEXITSTATUS(status), seconds);
	else if (WIFSIGNALED(status))
		printf("MMST %s: end signal %d (%s), %.1f s\n", name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)), seconds);
	else
		printf("MMST %s: end status 0x%x, %.1f s\n", name, status,
		       seconds);
}

static void run_selftest(const struct mm_selftest *t)
{
	char path[MMST_LINE_MAX];
	double start = now_seconds();
	bool timed_out;
	int fds[2], status = 0;
	pid_t pid;

	printf("\nMMST %s: begin\n", t->file);
	snprintf(path, sizeof(path), "%s/%s", MMST_MNT, t->file);
	if (access(path, X_OK)) {
		printf("MMST %s: end not built\n", t->file);
		CU_FAIL("selftest binary not built (see make selftests' build log)");
		return;
	}
	CU_ASSERT_FATAL(!pipe2(fds, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_selftest(t, fds[1]);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		CU_FAIL_FATAL("fork");
	}
	/* Both sides, so that no kill can miss the group. */
	setpgid(pid, pid);
	timed_out = !copy_output(t->file, fds[0], start + t->timeout);
	/* Whatever the selftest left running in its group goes too. */
	kill(-pid, SIGKILL);
	close(fds[0]);
	CU_ASSERT(waitpid(pid, &status, 0) == pid);
	report_status(t->file, status, timed_out, t->timeout,
		      now_seconds() - start);
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
