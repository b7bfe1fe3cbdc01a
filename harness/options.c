// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing.  The host flavour takes --options; under UML the kernel
 * does not pass unknown "x.y=" parameters to init, so they are read back
 * from /proc/cmdline as harness.NAME[=VALUE].  Words without '=' or '.'
 * the kernel does pass on, as init's argv: those, and the host's
 * non-option arguments, are selection items like harness.run's (the way
 * kunit.py takes a positional filter_glob).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum {
	OPT_RUN = 256,
	OPT_SKIP,
	OPT_RESULTS,
	OPT_LIST,
	OPT_LIST_TESTS,
	OPT_SHARD,
	OPT_WATCH_KMSG,
	OPT_KMSG_FILE,
	OPT_FUZZ_SEED,
	OPT_FUZZ_SECONDS,
	OPT_FUZZ_FAULTS,
	OPT_HELP,
	OPT_CLASSIFY_CONSOLE,
};

static const struct option long_options[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "skip", required_argument, NULL, OPT_SKIP },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "list_tests", no_argument, NULL, OPT_LIST_TESTS },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "watch-kmsg", no_argument, NULL, OPT_WATCH_KMSG },
	{ "kmsg-file", required_argument, NULL, OPT_KMSG_FILE },
	{ "fuzz_seed", required_argument, NULL, OPT_FUZZ_SEED },
	{ "fuzz_seconds", required_argument, NULL, OPT_FUZZ_SECONDS },
	{ "fuzz_faults", required_argument, NULL, OPT_FUZZ_FAULTS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "classify-console", required_argument, NULL, OPT_CLASSIFY_CONSOLE },
	{ NULL, 0, NULL, 0 },
};

void options_usage(const char *prog)
{
	printf("usage: %s [--run SEL[,SEL...]] [--skip SUITE[,SUITE...]] [--results DIR]\n"
	       "       [--list] [--list_tests] [--shard K/N] [--watch-kmsg]\n"
	       "       [--fuzz_seed N] [--fuzz_seconds N] [--fuzz_faults N] [SEL...]\n"
	       "       %s --classify-console FILE\n"
	       "Under UML (./linux ARGS): harness.run=SEL[,SEL...] harness.results=/host/dir\n"
	       "  harness.skip=SUITE[,SUITE...] (left out, reported as skipped; patterns too)\n"
	       "  harness.list harness.help harness.fuzz_seed=N harness.fuzz_seconds=N\n"
	       "  harness.shard=K/N (the K-th of N parts of the selected tests: test i when\n"
	       "  i mod N = K-1) harness.list_tests (the tests the run would run, one a line)\n"
	       "  harness.fuzz_faults=PERCENT (fail-nth on that share of the fuzzer's ops) [SEL...]\n"
	       "SEL: suite or suite/test, fnmatch patterns ('mshare_*', 'mshare_fork/child_*'),\n"
	       "  in harness.run= or as words of their own; quote them for the shell.  A name or\n"
	       "  pattern that selects nothing is an error (exit 2).  Patterns leave out the\n"
	       "  explicit-only suites (harness.list): name those in full.  -SEL leaves out\n"
	       "  what SEL matches, of the other items' tests or of the whole run\n"
	       "  (harness.run=-mshare_kill_swap; after -- on the host).\n"
	       "  As ./linux words: the kernel keeps words with a '.' (write suite/test, not\n"
	       "  suite.test), makes words with '=' environment, and takes its own parameters\n"
	       "  (e.g. 'debug', 'quiet'; init= and rdinit= drop the words before them).\n"
	       "--classify-console FILE: the first kernel reports of a console log, with\n"
	       "  their kind (exit 1), or 'clean' (exit 0).\n",
	       prog, prog);
}

/* A whole decimal number, nothing else: "3x" or "" is an error. */
static int set_number(unsigned long *dst, const char *value)
{
	char *end;

	errno = 0;
	*dst = strtoul(value, &end, 10);
	if (errno || end == value || *end || *value == '-') {
		printf("harness: '%s' is not a number\n", value);
		return -EINVAL;
	}
	return 0;
}

/* Later options win, as on a command line; free what they replace. */
static int set_string(char **dst, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return -ENOMEM;
	free(*dst);
	*dst = copy;
	return 0;
}

static int apply_option(struct harness_options *opts, int opt,
			const char *arg)
{
	switch (opt) {
	case OPT_RUN:
		return set_string(&opts->run, arg);
	case OPT_SKIP:
		return set_string(&opts->skip, arg);
	case OPT_RESULTS:
		return set_string(&opts->results, arg);
	case OPT_KMSG_FILE:
		return set_string(&opts->kmsg_file, arg);
	case OPT_CLASSIFY_CONSOLE:
		return set_string(&opts->classify_console, arg);
	case OPT_FUZZ_SEED:
		opts->fuzz_seed_set = true;
		return set_number(&opts->fuzz_seed, arg);
	case OPT_FUZZ_SECONDS:
		return set_number(&opts->fuzz_seconds, arg);
	case OPT_FUZZ_FAULTS:
		return set_number(&opts->fuzz_faults, arg);
	case OPT_SHARD:
		return shard_parse(&opts->shard, arg);
	case OPT_LIST:
		opts->list = true;
		return 0;
	case OPT_LIST_TESTS:
		opts->list_tests = true;
		return 0;
	case OPT_WATCH_KMSG:
		opts->watch_kmsg = true;
		return 0;
	case OPT_HELP:
		opts->help = true;
		return 0;
	}
	return -EINVAL;
}

int options_from_argv(struct harness_options *opts, int argc, char **argv)
{
	int opt, ret;

	memset(opts, 0, sizeof(*opts));
	/* 0, not 1: getopt_long() starts afresh, also on a second call. */
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		if (opt == 'h')
			opt = OPT_HELP;
		ret = apply_option(opts, opt, optarg);
		if (ret)
			return ret;
	}
	return options_add_words(opts, argc - optind, argv + optind);
}

/* Positional words join into one "SEL,SEL" string, like harness.run's. */
int options_add_words(struct harness_options *opts, int count, char **words)
{
	size_t len = 1;
	char *joined, *end;
	int i;

	if (count <= 0)
		return 0;
	for (i = 0; i < count; i++)
		len += strlen(words[i]) + 1;
	joined = malloc(len);
	if (!joined)
		return -ENOMEM;
	end = joined;
	for (i = 0; i < count; i++)
		end = stpcpy(stpcpy(end, i ? "," : ""), words[i]);
	free(opts->words);
	opts->words = joined;
	return 0;
}

/* One "harness.NAME[=VALUE]" word of the kernel command line. */
static int apply_cmdline_word(struct harness_options *opts, const char *word)
{
	const char *name = word + strlen("harness.");
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *o;

	for (o = long_options; o->name; o++) {
		if (strlen(o->name) != len || strncmp(o->name, name, len))
			continue;
		if ((o->has_arg == required_argument) != !!eq)
			break;
		return apply_option(opts, o->val, eq ? eq + 1 : NULL);
	}
	/* A typo must not silently run something else. */
	printf("harness: bad kernel parameter '%s'\n", word);
	return -EINVAL;
}

int options_from_cmdline(struct harness_options *opts, const char *cmdline)
{
	char *copy, *word, *save = NULL;
	int ret = 0;

	memset(opts, 0, sizeof(*opts));
	copy = strdup(cmdline);
	if (!copy)
		return -ENOMEM;
	for (word = strtok_r(copy, " \t\n", &save); word && !ret;
	     word = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(word, "harness.", strlen("harness.")))
			ret = apply_cmdline_word(opts, word);
	}
	free(copy);
	return ret;
}

void options_free(struct harness_options *opts)
{
	free(opts->run);
	free(opts->skip);
	free(opts->results);
	free(opts->kmsg_file);
	free(opts->words);
	free(opts->classify_console);
	memset(opts, 0, sizeof(*opts));
}
