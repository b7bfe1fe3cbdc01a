/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a program as a test runs one: in a process group of its own, under a
 * timeout, its output copied to the console line by line between markers:
 *
 *   TAG NAME: begin
 *   TAG NAME| a line of its output
 *   TAG NAME: end exit 0, 1.2 s   (or: end signal 9 (Killed), ...,
 *                                   end timeout 600 s, end not built)
 *
 * so that a reader of the console (uml/selftests/results.py) finds each
 * program's output, and the kernel log watch charges a kernel report to
 * the test that ran it.  Whatever the program leaves running in its group
 * is killed when it ends.
 */
#ifndef HARNESS_RUN_PROGRAM_H
#define HARNESS_RUN_PROGRAM_H

#include <stdbool.h>
#include <sys/types.h>

struct harness_program {
	const char *tag;	/* console prefix, e.g. "MMST" */
	const char *name;	/* the program's name on the console */
	char *const *argv;	/* argv[0] is the path to exec */
	const char *root;	/* chroot() there first, or NULL */
	const char *cwd;	/* working directory (inside root) */
	uid_t uid;		/* 0, or run as this uid and gid */
	unsigned int timeout;	/* seconds */
};

struct harness_program_result {
	bool ran;		/* forked, and argv[0] was executable */
	bool timed_out;
	int status;		/* waitpid()'s, when ran */
};

/* 0, or -errno when the program could not be started at all. */
int harness_run_program(const struct harness_program *prog,
			struct harness_program_result *res);

/* The program ran, was not killed by the timeout and exited 0. */
bool harness_program_passed(const struct harness_program_result *res);

#endif
