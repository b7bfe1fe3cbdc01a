// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the harness's own parsers: test selection, the kernel log
 * pattern matcher, the console classifier and the /proc kB field reader.
 * Runs on the host too.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "harness.h"
#include "console_classify.h"
#include "kmsg_patterns.h"
#include "options.h"
#include "selection.h"
#include "shard.h"

/* selection_validate() of @spec, which must parse */
static int validate_spec(const char *spec)
{
	struct selection sel;
	int ret;

	CU_ASSERT_EQUAL_FATAL(selection_parse(spec, &sel), 0);
	ret = selection_validate(&sel, false);
	selection_free(&sel);
	return ret;
}

static void test_selection_suite_only(void)
{
	struct selection sel;

	CU_ASSERT_EQUAL_FATAL(selection_parse("harness", &sel), 0);
	CU_ASSERT_EQUAL(sel.count, 1);
	CU_ASSERT_STRING_EQUAL(sel.items[0].suite, "harness");
	CU_ASSERT_PTR_NULL(sel.items[0].test);
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	selection_free(&sel);
}

static void test_selection_suite_test(void)
{
	struct harness_suite *self = harness_find_suite("harness");
	struct selection sel;

	CU_ASSERT_PTR_NOT_NULL_FATAL(self);
	CU_ASSERT_EQUAL_FATAL(selection_parse("harness/selection_suite_test",
					      &sel), 0);
	CU_ASSERT_STRING_EQUAL(sel.items[0].test, "selection_suite_test");
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	CU_ASSERT_TRUE(selection_wants_test(&sel, self,
					    "selection_suite_test"));
	CU_ASSERT_FALSE(selection_wants_test(&sel, self,
					     "selection_suite_only"));
	selection_free(&sel);
}

static void test_selection_multiple(void)
{
	struct harness_suite *self = harness_find_suite("harness");
	struct selection sel;

	CU_ASSERT_PTR_NOT_NULL_FATAL(self);
	CU_ASSERT_EQUAL_FATAL(selection_parse("harness/kmsg_matcher,harness",
					      &sel), 0);
	CU_ASSERT_EQUAL(sel.count, 2);
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	/* A whole-suite item wins over a single-test item. */
	CU_ASSERT_TRUE(selection_wants_test(&sel, self, "meminfo_parser"));
	selection_free(&sel);
}

static void test_selection_unknown(void)
{
	CU_ASSERT_NOT_EQUAL(validate_spec("harness,nosuch"), 0);
	CU_ASSERT_NOT_EQUAL(validate_spec("harness/nosuchtest"), 0);
}

static void test_selection_syntax(void)
{
	static const char *const bad[] = { "", "a,,b", "a/", "/b", "a/b/c",
					   "a," };
	struct selection sel;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CU_ASSERT_NOT_EQUAL(selection_parse(bad[i], &sel), 0);
		CU_ASSERT_EQUAL(sel.count, 0);
	}
}

/* "-SEL" leaves out what it matches, of the others' selection or of all */
static void test_selection_exclusion(void)
{
	struct harness_suite *self = harness_find_suite("harness");
	struct selection sel;

	CU_ASSERT_PTR_NOT_NULL_FATAL(self);
	CU_ASSERT_EQUAL_FATAL(selection_parse("-harness/selection_*", &sel),
			      0);
	CU_ASSERT_TRUE(sel.items[0].exclude);
	CU_ASSERT_STRING_EQUAL(sel.items[0].suite, "harness");
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	CU_ASSERT_TRUE(selection_wants_test(&sel, self, "kmsg_matcher"));
	CU_ASSERT_FALSE(selection_wants_test(&sel, self, "selection_globs"));
	selection_free(&sel);
	CU_ASSERT_EQUAL_FATAL(selection_parse("harness/kmsg_*,-harness/*_matcher",
					      &sel), 0);
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	CU_ASSERT_FALSE(selection_wants_test(&sel, self, "kmsg_matcher"));
	CU_ASSERT_FALSE(selection_wants_test(&sel, self, "run_child"));
	selection_free(&sel);
	/* An exclusion of nothing is a typo; one of everything runs nothing */
	CU_ASSERT_NOT_EQUAL(validate_spec("-nosuch"), 0);
	CU_ASSERT_NOT_EQUAL(validate_spec("harness,-harness"), 0);
	/* The boot log's check, which every run has, may be named alone */
	CU_ASSERT_EQUAL(validate_spec("kernel_log/boot_log_clean"), 0);
}

static void test_selection_globs(void)
{
	struct harness_suite *self = harness_find_suite("harness");
	struct selection sel;

	CU_ASSERT_PTR_NOT_NULL_FATAL(self);
	CU_ASSERT_EQUAL_FATAL(selection_parse("harness/selection_*", &sel), 0);
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	CU_ASSERT_TRUE(selection_wants_test(&sel, self, "selection_globs"));
	CU_ASSERT_FALSE(selection_wants_test(&sel, self, "kmsg_matcher"));
	selection_free(&sel);
	CU_ASSERT_EQUAL_FATAL(selection_parse("harn?ss,*/kmsg_*", &sel), 0);
	CU_ASSERT_EQUAL(selection_validate(&sel, false), 0);
	CU_ASSERT_TRUE(selection_wants_test(&sel, self, "run_child"));
	selection_free(&sel);
	/* A pattern that matches nothing is an error, as a typo is. */
	CU_ASSERT_NOT_EQUAL(validate_spec("harness/zz*"), 0);
	CU_ASSERT_NOT_EQUAL(validate_spec("nosuch*"), 0);
}

static void test_selection_explicit_only(void)
{
	static const struct harness_test fake_tests[] = {
		{ "t", NULL },
		{ NULL, NULL },
	};
	struct harness_suite fake = { .name = "fake", .tests = fake_tests,
				      .explicit_only = true };
	struct selection none = { 0 };
	struct selection sel;

	CU_ASSERT_FALSE(selection_wants_suite(&none, &fake));
	CU_ASSERT_EQUAL_FATAL(selection_parse("fake", &sel), 0);
	CU_ASSERT_TRUE(selection_wants_suite(&sel, &fake));
	selection_free(&sel);
	CU_ASSERT_EQUAL_FATAL(selection_parse("fake/*", &sel), 0);
	CU_ASSERT_TRUE(selection_wants_test(&sel, &fake, "t"));
	selection_free(&sel);
	/* A wildcard never pulls in an explicit-only suite. */
	CU_ASSERT_EQUAL_FATAL(selection_parse("fa*", &sel), 0);
	CU_ASSERT_FALSE(selection_wants_suite(&sel, &fake));
	selection_free(&sel);
}

/* N parts take every test once; a malformed K/N is refused. */
static void test_shard_parts(void)
{
	static const char *const bad[] = { "", "1", "0/2", "3/2", "1/0",
					   "1/-2", "+1/2", " 1/2", "1/2x",
					   "1//2", NULL };
	const char *const *b;
	struct shard parts[3];
	unsigned int i, k, takers;

	for (k = 0; k < 3; k++) {
		char spec[8];

		snprintf(spec, sizeof(spec), "%u/3", k + 1);
		CU_ASSERT_EQUAL_FATAL(shard_parse(&parts[k], spec), 0);
	}
	for (i = 0; i < 10; i++) {
		for (takers = 0, k = 0; k < 3; k++)
			takers += shard_takes(&parts[k], i);
		CU_ASSERT_EQUAL(takers, 1);
	}
	CU_ASSERT_TRUE(shard_takes(&parts[1], 4));
	CU_ASSERT_TRUE(shard_takes(&(struct shard){ 0 }, 4));
	for (b = bad; *b; b++)
		CU_ASSERT_NOT_EQUAL(shard_parse(&parts[0], *b), 0);
}

/* kunit.py's "suite.test" never reaches init: it must not be ignored. */
static void test_selection_dotted(void)
{
	CU_ASSERT_NOT_EQUAL(selection_check_dotted(
		"mem=768M harness.list harness/x baseline.page_tables_grow"), 0);
	CU_ASSERT_NOT_EQUAL(selection_check_dotted("mshare_*.child"), 0);
	CU_ASSERT_EQUAL(selection_check_dotted(
		"harness.run=harness kasan.fault=report printk.time x.y"), 0);
}

static void test_options_positional(void)
{
	char *argv[] = { "host-harness", "harness/sel*", "--list",
			 "baseline", NULL };
	struct harness_options o;

	CU_ASSERT_EQUAL_FATAL(options_from_argv(&o, 4, argv), 0);
	CU_ASSERT_TRUE(o.list);
	CU_ASSERT_STRING_EQUAL(o.words, "harness/sel*,baseline");
	options_free(&o);
}

static void test_options_cmdline(void)
{
	struct harness_options o;

	CU_ASSERT_EQUAL_FATAL(options_from_cmdline(&o,
		"console=tty0 mem=256M harness.run=baseline,harness/x "
		"harness.list harness.results=/tmp/r\n"), 0);
	CU_ASSERT_STRING_EQUAL(o.run, "baseline,harness/x");
	CU_ASSERT_STRING_EQUAL(o.results, "/tmp/r");
	CU_ASSERT_TRUE(o.list);
	options_free(&o);
	/* Typos and missing values must not be ignored. */
	CU_ASSERT_NOT_EQUAL(options_from_cmdline(&o, "harness.rnu=x"), 0);
	options_free(&o);
	CU_ASSERT_NOT_EQUAL(options_from_cmdline(&o, "harness.run"), 0);
	options_free(&o);
	CU_ASSERT_EQUAL_FATAL(options_from_cmdline(&o,
		"harness.fuzz_seed=0 harness.fuzz_seconds=30"), 0);
	CU_ASSERT_TRUE(o.fuzz_seed_set);
	CU_ASSERT_EQUAL(o.fuzz_seed, 0);
	CU_ASSERT_EQUAL(o.fuzz_seconds, 30);
	options_free(&o);
	CU_ASSERT_NOT_EQUAL(options_from_cmdline(&o, "harness.fuzz_seed=12x"), 0);
	options_free(&o);
	CU_ASSERT_NOT_EQUAL(options_from_cmdline(&o, "harness.fuzz_seconds=-1"), 0);
	options_free(&o);
}

static void test_kmsg_matcher(void)
{
	CU_ASSERT_TRUE(kmsg_record_is_bad(
		"4,123,456,-;WARNING: CPU: 0 PID: 1 at mm/mshare.c:10 f+0x1/0x2"));
	CU_ASSERT_TRUE(kmsg_record_is_bad("1,2,3,-;BUG: unable to handle page fault"));
	CU_ASSERT_TRUE(kmsg_record_is_bad(
		"4,9,9,-,caller=T1;WARNING: possible circular locking dependency detected"));
	CU_ASSERT_TRUE(kmsg_record_is_bad(
		"3,5,5,-;kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak) unreferenced"));
	CU_ASSERT_FALSE(kmsg_record_is_bad("6,1,2,-;mshare: hello"));
	CU_ASSERT_FALSE(kmsg_record_is_bad("6,7,8,-;kmemleak: Kernel memory leak detector initialized"));
	/* The header is not text: "BUG:" there must not count. */
	CU_ASSERT_STRING_EQUAL(kmsg_record_text("6,1,2,-;x BUG"), "x BUG");
	CU_ASSERT_STRING_EQUAL(kmsg_record_text("plain line"), "plain line");
	/* The specific kind wins over the BUG:/WARNING: line it is on. */
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"WARNING: possible circular locking dependency detected"),
		"lockdep");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"BUG: KASAN: slab-use-after-free in f+0x1/0x2"), "KASAN");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"WARNING: CPU: 0 PID: 1 at mm/mshare.c:10"), "WARNING");
	CU_ASSERT_PTR_NULL(kmsg_text_report_kind("mshare: hello"));
	/* The debug stack's first lines, as 6.12 prints them. */
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"pagealloc: memory corruption"), "page poison");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"UBSAN: shift-out-of-bounds in mm/mshare.c:10:5"), "UBSAN");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"BUG: Bad page state in process init  pfn:1234"), "BUG");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"BUG: Bad rss-counter state mm:0000 type:MM_ANONPAGES val:1 Comm:init Pid:1"),
		"BUG");
	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(
		"BUG: sleeping function called from invalid context at mm/x.c:1"),
		"BUG");
}

/*
 * Injection lines are reports, except between the sweep's markers; a real
 * report inside the window still is one.
 */
static void test_kmsg_injection_window(void)
{
	struct kmsg_scan scan = { 0 };
	const char *inject = "FAULT_INJECTION: forcing a failure.";

	CU_ASSERT_STRING_EQUAL(kmsg_text_report_kind(inject), "fault injection");
	CU_ASSERT_TRUE(kmsg_record_is_bad("5,1,2,-;FAULT_INJECTION: forcing a failure."));
	CU_ASSERT_STRING_EQUAL(kmsg_scan_text(&scan, inject), "fault injection");
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan, KMSG_INJECT_ARMED " create n=3"));
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan, inject));
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan,
		"init: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL)"));
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan,
		"Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying PF"));
	CU_ASSERT_STRING_EQUAL(kmsg_scan_text(&scan,
		"WARNING: CPU: 0 PID: 1 at mm/mshare.c:10"), "WARNING");
	CU_ASSERT_EQUAL(scan.expected, 3);
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan, KMSG_INJECT_DISARMED));
	CU_ASSERT_STRING_EQUAL(kmsg_scan_text(&scan, inject), "fault injection");
	/* A real allocation failure is no report (mshare_oom provokes one). */
	CU_ASSERT_PTR_NULL(kmsg_scan_text(&scan,
		"SLUB: Unable to allocate memory on node -1, gfp=0xcc0"));
	CU_ASSERT_PTR_NULL(kmsg_text_report_kind(
		"init: page allocation failure: order:0, mode:0x140cca"));
}

/*
 * Classify TEXT as a console log, through a memfd's /proc path; what it
 * prints goes to OUT, not to the console, which scripts classify too.
 */
static int classify_text(const char *text, char *out, size_t size)
{
	char path[64];
	FILE *f;
	int fd, ret = -1;

	fd = memfd_create("console", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	f = fmemopen(out, size, "w");
	if (f && write(fd, text, strlen(text)) == (ssize_t)strlen(text)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ret = console_classify(path, f);
	}
	if (f)
		fclose(f);
	close(fd);
	return ret;
}

static void test_console_classify(void)
{
	char out[512];

	CU_ASSERT_EQUAL(classify_text(
		"run-linux: ./linux harness.run=x BUG:\r\n"
		"[    0.000000] Kernel command line: WARNING: x\r\n"
		"[    1.500000] mshare: hello\r\n"
		"  1. k.c:1  - kernel log: 1 bad record(s), first: WARNING: x\r\n"
		"harness: kmemleak: 0 unreferenced objects\r\n"
		"harness: verdict PASS\r\n", out, sizeof(out)), CONSOLE_CLEAN);
	CU_ASSERT_STRING_EQUAL(out, "clean\n");
	/* The record and the harness's copy of it: one report. */
	CU_ASSERT_EQUAL(classify_text(
		"[    2.000000] ------------[ cut here ]------------\r\n"
		"[    2.000001] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f\r\n"
		"  KMSG| WARNING: CPU: 0 PID: 1 at mm/x.c:1 f\r\n"
		"[    2.000002] BUG: KASAN: slab-use-after-free in g\r\n",
		out, sizeof(out)), CONSOLE_REPORTS);
	CU_ASSERT_STRING_EQUAL(out,
		"WARNING\tWARNING: CPU: 0 PID: 1 at mm/x.c:1 f\n"
		"KASAN\tBUG: KASAN: slab-use-after-free in g\n");
	CU_ASSERT_EQUAL(console_classify("/nonexistent/console.log", stdout),
			CONSOLE_UNREADABLE);
}

static void test_meminfo_parser(void)
{
	static const char sample[] =
		"MemTotal:         250000 kB\n"
		"MemFree:          123456 kB\n"
		"PageTables:          784 kB\n"
		"SecPageTables:         0 kB\n";
	long kb = -1;

	CU_ASSERT_EQUAL(harness_kb_field_parse(sample, "MemFree", &kb), 0);
	CU_ASSERT_EQUAL(kb, 123456);
	CU_ASSERT_EQUAL(harness_kb_field_parse(sample, "PageTables", &kb), 0);
	CU_ASSERT_EQUAL(kb, 784);
	/* Whole field names only: "Tables" is not "PageTables". */
	CU_ASSERT_NOT_EQUAL(harness_kb_field_parse(sample, "Tables", &kb), 0);
	CU_ASSERT_NOT_EQUAL(harness_kb_field_parse(sample, "Nope", &kb), 0);
}

static int child_exits_7(void *arg)
{
	(void)arg;
	return 7;
}

static int child_killed(void *arg)
{
	(void)arg;
	/* Valgrind checks even a killed child for leaks. */
	harness_child_release();
	raise(SIGKILL);
	return 0;
}

static void test_run_child(void)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(harness_run_child(child_exits_7, NULL, &res), 0);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, 7);
	CU_ASSERT_EQUAL_FATAL(harness_run_child(child_killed, NULL, &res), 0);
	CU_ASSERT_TRUE(res.signaled);
	CU_ASSERT_EQUAL(res.signo, SIGKILL);
}

static const struct harness_test harness_tests[] = {
	{ "selection_suite_only", test_selection_suite_only },
	{ "selection_suite_test", test_selection_suite_test },
	{ "selection_multiple", test_selection_multiple },
	{ "selection_unknown", test_selection_unknown },
	{ "selection_syntax", test_selection_syntax },
	{ "selection_globs", test_selection_globs },
	{ "selection_exclusion", test_selection_exclusion },
	{ "selection_explicit_only", test_selection_explicit_only },
	{ "selection_dotted", test_selection_dotted },
	{ "shard_parts", test_shard_parts },
	{ "options_cmdline", test_options_cmdline },
	{ "options_positional", test_options_positional },
	{ "kmsg_matcher", test_kmsg_matcher },
	{ "kmsg_injection_window", test_kmsg_injection_window },
	{ "console_classify", test_console_classify },
	{ "meminfo_parser", test_meminfo_parser },
	{ "run_child", test_run_child },
	{ NULL, NULL },
};

HARNESS_SUITE(harness_suite, .name = "harness", .tests = harness_tests);
