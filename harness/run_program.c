// SPDX-License-Identifier: GPL-2.0
/* Run a program with its output on the console: see run_program.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "compiler.h"
#include "run_program.h"
#include "test_util.h"

/* A longer line is printed in pieces of this size. */
#define LINE_MAX_BYTES	4096

/* The child: its own process group, output into the pipe, then exec. */
static void __noreturn exec_program(const struct harness_program *prog,
				    int out)
{
	setpgid(0, 0);
	if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
		_exit(126);
	if (prog->root && chroot(prog->root)) {
		dprintf(STDERR_FILENO, "chroot %s: %s\n", prog->root,
			strerror(errno));
		_exit(126);
	}
	if (chdir(prog->cwd)) {
		dprintf(STDERR_FILENO, "chdir %s: %s\n", prog->cwd,
			strerror(errno));
		_exit(126);
	}
	if (prog->uid && (setgid(prog->uid) || setuid(prog->uid)))
		_exit(126);
	execv(prog->argv[0], prog->argv);
	dprintf(STDERR_FILENO, "exec %s: %s\n", prog->argv[0], strerror(errno));
	_exit(127);
}

/* Copy complete lines of @buf to the console; return what is left over. */
static size_t print_lines(const struct harness_program *prog, char *buf,
			  size_t len, bool flush)
{
	char *start = buf, *nl;
	size_t rest;

	while ((nl = memchr(start, '\n', len - (start - buf)))) {
		printf("%s %s| %.*s\n", prog->tag, prog->name,
		       (int)(nl - start), start);
		start = nl + 1;
	}
	rest = len - (start - buf);
	if (flush && rest) {
		printf("%s %s| %.*s\n", prog->tag, prog->name, (int)rest,
		       start);
		rest = 0;
	}
	memmove(buf, start, rest);
	return rest;
}

/*
 * Copy the child's output until end of file or the deadline.  Returns
 * false on timeout.  A full line buffer is printed as a line.
 */
static bool copy_output(const struct harness_program *prog, int in,
			double deadline)
{
	static char buf[LINE_MAX_BYTES];
	struct pollfd pfd = { .fd = in, .events = POLLIN };
	size_t len = 0;
	ssize_t n;
	int ms;

	for (;;) {
		ms = (int)((deadline - harness_now_s()) * 1000);
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
			print_lines(prog, buf, len, true);
			return true;
		}
		len = print_lines(prog, buf, len + n, len + n == sizeof(buf));
	}
	print_lines(prog, buf, len, true);
	return false;
}

static void report_end(const struct harness_program *prog,
		       const struct harness_program_result *res,
		       double seconds)
{
	const char *tag = prog->tag, *name = prog->name;
	int status = res->status;

	if (res->timed_out)
		printf("%s %s: end timeout %u s\n", tag, name, prog->timeout);
	else if (WIFEXITED(status))
		printf("%s %s: end exit %d, %.1f s\n", tag, name,
		       WEXITSTATUS(status), seconds);
	else if (WIFSIGNALED(status))
		printf("%s %s: end signal %d (%s), %.1f s\n", tag, name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)), seconds);
	else
		printf("%s %s: end status 0x%x, %.1f s\n", tag, name, status,
		       seconds);
}

/* Is argv[0] there to run, seen from inside prog->root? */
static bool executable(const struct harness_program *prog)
{
	char path[PATH_MAX];
	const char *file = prog->argv[0];

	if (prog->root) {
		snprintf(path, sizeof(path), "%s/%s", prog->root, file);
		file = path;
	}
	return !access(file, X_OK);
}

int harness_run_program(const struct harness_program *prog,
			struct harness_program_result *res)
{
	double start = harness_now_s();
	int fds[2], err;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	printf("\n%s %s: begin\n", prog->tag, prog->name);
	if (!executable(prog)) {
		err = errno;
		printf("%s %s: end not built (%s: %s)\n", prog->tag, prog->name,
		       prog->argv[0], strerror(err));
		return -err;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_program(prog, fds[1]);
	err = errno;
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -err;
	}
	res->ran = true;
	/* Both sides, so that no kill can miss the group. */
	setpgid(pid, pid);
	res->timed_out = !copy_output(prog, fds[0], start + prog->timeout);
	/* Whatever the program left running in its group goes too. */
	kill(-pid, SIGKILL);
	close(fds[0]);
	while (waitpid(pid, &res->status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	report_end(prog, res, harness_now_s() - start);
	return 0;
}

bool harness_program_passed(const struct harness_program_result *res)
{
	return res->ran && !res->timed_out && WIFEXITED(res->status) &&
	       WEXITSTATUS(res->status) == 0;
}
