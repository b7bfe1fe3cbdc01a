// SPDX-License-Identifier: GPL-2.0
/*
 * mshare-uml test harness.
 *
 * Built twice from the same sources: as the static /init of the UML
 * guest (pid 1: mounts, kernel log watch, verdict in /proc/exitcode,
 * power off) and as a dynamic host program (exit status is the verdict).
 *
 * Exit status / verdict: 0 pass, 1 test or log failure, 2 usage error.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/Basic.h>

#include "console_classify.h"
#include "init_duties.h"
#include "kmemleak_scan.h"
#include "kmsg_watch.h"
#include "options.h"
#include "requirements.h"
#include "results_junit.h"
#include "results_ktap.h"
#include "results_xml.h"
#include "run_results.h"
#include "selection.h"
#include "shard.h"
#include "suite_registry.h"
#include "test_times.h"
#include "test_util.h"

#define EXIT_PASS	0
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define CMDLINE_MAX	4096
/* How many tests the end of the run names with their times. */
#define SLOWEST_TESTS	10

static struct harness_options opts;
static struct selection sel;
/* harness.skip=: the suites a runner leaves out of its run */
static struct selection skip;
static bool registry_ready;

/* Frees everything; also run in forked test children before _exit(). */
static void release_state(bool in_child)
{
	kmsg_watch_stop(in_child);
	if (registry_ready && in_child)
		harness_free_cunit_in_child();
	else if (registry_ready)
		CU_cleanup_registry();
	registry_ready = false;
	selection_free(&sel);
	selection_free(&skip);
	options_free(&opts);
	test_times_free();
}

const struct harness_options *harness_options(void)
{
	return &opts;
}

static void release_child_state(void)
{
	release_state(true);
}

/*
 * As init, harness.x=y parameters come from /proc/cmdline (the kernel keeps
 * words with a '.' from init) and selection words from argv.
 */
static int parse_options(int argc, char **argv)
{
	static char cmdline[CMDLINE_MAX];

	if (!harness_is_init())
		return options_from_argv(&opts, argc, argv);
	if (harness_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0) {
		printf("harness: cannot read /proc/cmdline\n");
		return -1;
	}
	if (options_from_cmdline(&opts, cmdline))
		return -1;
	if (opts.classify_console) {
		printf("harness: classify-console is for the host\n");
		return -1;
	}
	return options_add_words(&opts, argc - 1, argv + 1);
}

/*
 * The host's kernel log is not ours: watch it only when asked.  As init the
 * watch is the point of the run, so a log that cannot be read fails it.
 * Returns true if the watch is required and could not start.
 */
static bool start_kmsg_watch(void)
{
	const char *path = opts.kmsg_file ? opts.kmsg_file : "/dev/kmsg";
	int ret;

	if (!opts.kmsg_file && !harness_is_init() && !opts.watch_kmsg) {
		printf("harness: kernel log watch off on the host (--watch-kmsg)\n");
		return false;
	}
	ret = kmsg_watch_start(path, !opts.kmsg_file);
	if (!ret)
		return false;
	printf("harness: kernel log watch off: %s: %s\n", path, strerror(-ret));
	return harness_is_init();
}

static int write_files(const char *dir, const struct run_end *end)
{
	struct run_results r;
	int ret = results_xml_write(dir, end->final_log_bad);

	if (run_results_collect(&r, end))
		return -1;
	ret |= results_ktap_write(dir, &r);
	ret |= results_junit_write(dir, &r);
	run_results_free(&r);
	return ret;
}

static int write_results(const struct run_end *end)
{
	const char *dir = opts.results;
	int ret;

	if (harness_is_init()) {
		ret = init_mount_results(opts.results, &dir);
		if (ret)
			return ret;
	}
	ret = write_files(dir, end);
	if (harness_is_init())
		init_unmount_results();
	return ret;
}

static int report_verdict(const struct run_end *end, bool results_failed)
{
	CU_pRunSummary sum = CU_get_run_summary();
	unsigned int passed = sum->nTestsRun - sum->nTestsFailed;
	/* Suite init/cleanup failures and a dirty log count as failed. */
	unsigned int failed = sum->nTestsFailed + sum->nSuitesFailed +
			      (end->final_log_bad ? 1 : 0) +
			      (results_failed ? 1 : 0) +
			      (end->watch_failed ? 1 : 0) +
			      (end->leaks ? 1 : 0);

	printf("\nharness: %u passed, %u failed, %u skipped\n", passed, failed,
	       requirements_skipped_tests());
	test_times_print_slowest(SLOWEST_TESTS);
	printf("harness: verdict %s\n", failed ? "FAIL" : "PASS");
	return failed ? EXIT_FAIL : EXIT_PASS;
}

static int run_selected(void)
{
	struct run_end end = { 0 };
	bool results_failed = false;

	selection_apply(&sel);
	shard_apply(&opts.shard, !opts.list_tests);
	if (opts.list_tests) {
		shard_print_plan();
		return EXIT_PASS;
	}
	end.watch_failed = start_kmsg_watch();
	requirements_apply();
	selection_skip_suites(&skip, "left out of this run (harness.skip)");
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS)
		printf("harness: CUnit: %s\n", CU_get_error_msg());
	end.leaks = harness_is_init() ? kmemleak_final_scan() : 0;
	end.final_log_bad = kmsg_watch_final_check();
	if (opts.results)
		results_failed = write_results(&end) != 0;
	return report_verdict(&end, results_failed);
}

/* harness.run= and the positional words: one selection. */
static int parse_selection_items(void)
{
	static char cmdline[CMDLINE_MAX];
	int ret = 0;

	memset(&sel, 0, sizeof(sel));
	if (opts.run)
		ret = selection_add(&sel, opts.run);
	if (!ret && opts.words)
		ret = selection_add(&sel, opts.words);
	if (ret)
		printf("harness: bad selection '%s%s%s' (want suite or suite/test, comma-separated)\n",
		       opts.run ?: "", opts.run && opts.words ? "," : "",
		       opts.words ?: "");
	if (!ret && harness_is_init() &&
	    harness_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) >= 0)
		ret = selection_check_dotted(cmdline);
	return ret;
}

/* harness.skip=: suites only, each a name or pattern that matches one */
static int parse_skip(void)
{
	int ret;

	memset(&skip, 0, sizeof(skip));
	if (!opts.skip)
		return 0;
	ret = selection_add(&skip, opts.skip);
	if (ret)
		printf("harness: bad harness.skip '%s' (want suites, comma-separated)\n",
		       opts.skip);
	if (!ret)
		ret = selection_check_suites_only(&skip);
	if (!ret)
		ret = selection_validate(&skip, true);
	return ret;
}

/* Unknown names are an error: run nothing rather than less. */
static int parse_selection(void)
{
	int ret = parse_selection_items();

	if (!ret)
		ret = selection_validate(&sel, true);
	if (!ret)
		ret = parse_skip();
	if (ret)
		printf("harness: verdict FAIL (bad selection, nothing run)\n");
	return ret;
}

static int run_harness(int argc, char **argv)
{
	if (parse_options(argc, argv)) {
		options_usage(argv[0]);
		return EXIT_USAGE;
	}
	if (opts.help) {
		options_usage(argv[0]);
		return EXIT_PASS;
	}
	if (opts.classify_console)
		return console_classify(opts.classify_console, stdout);
	if (CU_initialize_registry() != CUE_SUCCESS) {
		printf("harness: CUnit: %s\n", CU_get_error_msg());
		return EXIT_FAIL;
	}
	registry_ready = true;
	if (harness_register_with_cunit())
		return EXIT_FAIL;
	harness_set_child_release(release_child_state);
	if (opts.list) {
		harness_print_suite_list();
		return EXIT_PASS;
	}
	if (parse_selection())
		return EXIT_USAGE;
	return run_selected();
}

int main(int argc, char **argv)
{
	int code;

	/* Unbuffered: nothing may be lost when pid 1 powers off or dies. */
	setvbuf(stdout, NULL, _IONBF, 0);
	if (harness_is_init())
		init_prepare();
	code = run_harness(argc, argv);
	release_state(false);
	if (harness_is_init())
		init_power_off(code);
	return code;
}
