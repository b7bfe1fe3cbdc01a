/* SPDX-License-Identifier: GPL-2.0 */
/* Harness options, from argv (host) or /proc/cmdline (UML init). */
#ifndef HARNESS_OPTIONS_H
#define HARNESS_OPTIONS_H

#include <stdbool.h>

#include "shard.h"

struct harness_options {
	bool list;
	bool help;
	/* Host only: the host's kernel log is not ours, so opt in. */
	bool watch_kmsg;
	/* Comma-separated selection (suite or suite/test), NULL = all. */
	char *run;
	/* Suites to leave out (a runner's list), comma-separated; or NULL. */
	char *skip;
	/* Positional selection words, joined by commas; NULL if none. */
	char *words;
	/* harness.shard=K/N: this boot's part of the selection. */
	struct shard shard;
	/* Print the tests the selection (and shard) would run, run none. */
	bool list_tests;
	/* Directory for the results files (a host path under UML). */
	char *results;
	/* Test hook: read "kernel log" records from this file. */
	char *kmsg_file;
	/* The mshare_fuzz suite: its seed (if set) and how long it runs. */
	bool fuzz_seed_set;
	unsigned long fuzz_seed;
	unsigned long fuzz_seconds;	/* 0: the suite's default */
	/* Percent of its ops the fuzzer arms with fail-nth (0: none). */
	unsigned long fuzz_faults;
	/* Host only: classify this console log instead of running tests. */
	char *classify_console;
};

int options_from_argv(struct harness_options *opts, int argc, char **argv);
int options_from_cmdline(struct harness_options *opts, const char *cmdline);
int options_add_words(struct harness_options *opts, int count, char **words);
void options_usage(const char *prog);
void options_free(struct harness_options *opts);
/* The options the harness runs with, for tests that take parameters. */
const struct harness_options *harness_options(void);

#endif
