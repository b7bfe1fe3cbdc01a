// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing.  The host flavour takes --options; under UML the kernel
 * does not pass unknown "x.y=" parameters to init, so they are read back
 * from /proc/cmdline as harness.NAME[=VALUE].
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

enum {
	OPT_RUN = 256,
	OPT_RESULTS,
	OPT_LIST,
	OPT_WATCH_KMSG,
	OPT_KMSG_FILE,
	OPT_FUZZ_SEED,
	OPT_FUZZ_SECONDS,
	OPT_HELP,
};

static const struct option long_options[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "watch-kmsg", no_argument, NULL, OPT_WATCH_KMSG },
	{ "kmsg-file", required_argument, NULL, OPT_KMSG_FILE },
	{ "fuzz_seed", required_argument, NULL, OPT_FUZZ_SEED },
	{ "fuzz_seconds", required_argument, NULL, OPT_FUZZ_SECONDS },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void options_usage(const char *prog)
{
	printf("usage: %s [--run SEL[,SEL...]] [--results DIR] [--list] [--watch-kmsg]\n"
	       "       [--fuzz_seed N] [--fuzz_seconds N]\n"
	       "  SEL is a suite name or suite/test; unknown names are an error.\n"
	       "  Under UML: harness.run=SEL[,SEL] harness.results=/host/dir harness.list\n"
	       "  harness.fuzz_seed=N harness.fuzz_seconds=N (suite mshare_fuzz)\n",
	       prog);
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
	case OPT_RESULTS:
		return set_string(&opts->results, arg);
	case OPT_KMSG_FILE:
		return set_string(&opts->kmsg_file, arg);
	case OPT_FUZZ_SEED:
		opts->fuzz_seed_set = true;
		return set_number(&opts->fuzz_seed, arg);
	case OPT_FUZZ_SECONDS:
		return set_number(&opts->fuzz_seconds, arg);
	case OPT_LIST:
		opts->list = true;
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
	while ((opt = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
		if (opt == 'h')
			opt = OPT_HELP;
		ret = apply_option(opts, opt, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc) {
		printf("harness: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
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
	free(opts->results);
	free(opts->kmsg_file);
	memset(opts, 0, sizeof(*opts));
}
