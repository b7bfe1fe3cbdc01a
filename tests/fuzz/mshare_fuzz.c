// SPDX-License-Identifier: GPL-2.0
/*
 * mshare lifecycle fuzzer, explicit only: harness.run=mshare_fuzz, or
 * `make fuzz [SECONDS=n] [SEED=n]`.  Up to 8 processes go through random
 * sequences of create, open, close, mkdir, rmdir, link, rename, unlink of
 * region files, mmap (good and bad), anonymous mmap, munmap (whole and
 * part), mprotect, mremap, reads, writes and touches of every page table,
 * fork, exit and kill (also in the middle of a touch).  Every result, every
 * word read and the debugfs list of regions are checked against a model
 * of the fixed kernel, and the kernel log after every op.  At the end every
 * process exits and every name goes, and the list must be empty, and
 * Committed_AS must be back where it started: every page a region
 * committed (its mm counted it) uncommitted, whichever way it went.
 *
 * One test, one seed: harness.fuzz_seed=N (default: from the clock) and
 * harness.fuzz_seconds=N (default 30) on the kernel command line.  The
 * seed is printed first; on a failure the seed, the op that failed (want,
 * got) and the sequence of ops before it.  The same seed gives the same
 * sequence up to the first op the kernel answers differently.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fail_nth.h"
#include "mshare_fuzz.h"
#include "options.h"

#define FZ_DEFAULT_SECONDS	30
#define FZ_SETTLE_US		500000
/*
 * What Committed_AS may have grown by when every agent and region is gone
 * and the op log is freed: the harness's own heap and stack.
 */
#define FZ_COMMIT_SLACK_KB	1024

static struct fz_run run;

static unsigned long clock_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	/* Decimal and short enough to type back in. */
	return (ts.tv_sec * 1000003UL + ts.tv_nsec / 1000) % 1000000000UL;
}

/* A splat in the kernel log, tied to the op just done. */
static bool kmsg_clean(struct fz_run *r)
{
	char first[256];
	unsigned int bad = fz_kmsg_check(first, sizeof(first));

	if (!bad)
		return true;
	fz_fail(r, -1, -1, "kernel log, %u bad record(s) at or before op #%u, first: %s",
		bad, r->no, first);
	return false;
}

/* Committed_AS back where it was before the first op */
static void commit_back(struct fz_run *r, long start_kb)
{
	long end_kb = harness_meminfo_kb("Committed_AS");

	printf("mshare_fuzz: Committed_AS %ld kB before the first op, %ld kB after the last region\n",
	       start_kb, end_kb);
	if (start_kb < 0 || end_kb < 0 ||
	    end_kb - start_kb > FZ_COMMIT_SLACK_KB)
		fz_fail(r, -1, -1, "Committed_AS %ld kB after the run, %ld kB before: more than %d kB left committed",
			end_kb, start_kb, FZ_COMMIT_SLACK_KB);
}

static void print_counts(const struct fz_run *r, double secs)
{
	unsigned int k;

	printf("mshare_fuzz: %u ops in %.1f s: %.0f ops/s;", r->no, secs,
	       secs > 0 ? r->no / secs : 0);
	for (k = 0; k < fz_kinds(); k++)
		printf(" %s %lu", fz_kind_name(k), r->kind_count[k]);
	printf("\n");
	printf("mshare_fuzz: Pss summed over a region's sharers %lu times, %lu of them over 2 or more\n",
	       r->pss_sums, r->pss_sums_shared);
}

static void report_failure(const struct fz_run *r, unsigned long seed,
			   unsigned long seconds)
{
	unsigned int faults = r->faults.percent;
	char cond[700], with[64] = "", make_with[64] = "";

	if (faults) {
		snprintf(with, sizeof(with), " harness.fuzz_faults=%u", faults);
		snprintf(make_with, sizeof(make_with),
			 " FAULTS=1 FAULT_PERCENT=%u", faults);
	}
	printf("\nmshare_fuzz: FAILED at op #%u, seed %lu: %s\n", r->no, seed,
	       r->why);
	fz_log_print(r->fail_proc, r->fail_region);
	printf("mshare_fuzz: FAILED at op #%u: %s\n", r->no, r->why);
	printf("mshare_fuzz: rerun: harness.run=mshare_fuzz harness.fuzz_seed=%lu harness.fuzz_seconds=%lu%s (make fuzz SEED=%lu SECONDS=%lu%s)\n",
	       seed, seconds, with, seed, seconds, make_with);
	snprintf(cond, sizeof(cond), "mshare_fuzz seed %lu, op #%u: %s", seed,
		 r->no, r->why);
	CU_assertImplementation(CU_FALSE, __LINE__, cond, __FILE__, __func__,
				CU_FALSE);
}

static void test_lifecycle(void)
{
	const struct harness_options *o = harness_options();
	unsigned long seed, seconds, faults;
	const char *why;
	double start, end;
	long committed_kb;
	int ret;

	seed = o && o->fuzz_seed_set ? o->fuzz_seed : clock_seed();
	seconds = o && o->fuzz_seconds ? o->fuzz_seconds : FZ_DEFAULT_SECONDS;
	faults = o ? o->fuzz_faults : 0;
	printf("\nmshare_fuzz: seed %lu (%s), %lu s\n", seed,
	       o && o->fuzz_seed_set ? "harness.fuzz_seed" : "from the clock",
	       seconds);
	if (faults > 100)
		CU_FAIL_FATAL("mshare_fuzz: harness.fuzz_faults is a percentage");
	if (faults) {
		why = fail_nth_requires();
		if (why) {
			printf("mshare_fuzz: fault injection: %s\n", why);
			CU_FAIL_FATAL("mshare_fuzz: no fault injection in this kernel");
		}
		if (fail_nth_knobs(true))
			CU_FAIL_FATAL("mshare_fuzz: cannot set the fault injection knobs");
		printf("mshare_fuzz: fault injection: fail-nth on %lu%% of the armable ops (harness.fuzz_faults)\n",
		       faults);
	}
	ret = fz_kmsg_open();
	if (ret) {
		printf("mshare_fuzz: /dev/kmsg: %s\n", strerror(-ret));
		CU_FAIL_FATAL("mshare_fuzz: cannot read /dev/kmsg");
	}
	memset(&run, 0, sizeof(run));
	fz_model_init(&run.m);
	run.rng = seed;
	fz_faults_init(&run.faults, faults, seed);
	run.fail_proc = run.fail_region = -1;
	fz_log_init();

	committed_kb = harness_meminfo_kb("Committed_AS");
	start = harness_now_s();
	end = start + seconds;
	while (harness_now_s() < end && fz_do_op(&run) && kmsg_clean(&run))
		;
	if (!run.failed && fz_finish(&run)) {
		/*
		 * A region's mm is torn down by a work item after it leaves
		 * the list (mmput_async()): give that time to log, so that
		 * what it logs is this test's.
		 */
		usleep(FZ_SETTLE_US);
		if (kmsg_clean(&run)) {
			/* Its records are committed memory too (malloc) */
			fz_log_free();
			commit_back(&run, committed_kb);
		}
	}
	print_counts(&run, harness_now_s() - start);
	fz_faults_print(&run);
	if (faults) {
		printf("mshare_fuzz: faults: %u lines of the injections in the kernel log, all inside armed windows\n",
		       fz_kmsg_expected());
		if (fail_nth_knobs(false))
			CU_FAIL("mshare_fuzz: cannot reset the fault injection knobs");
	}
	if (run.failed) {
		report_failure(&run, seed, seconds);
		fz_abandon(&run);
	} else {
		printf("mshare_fuzz: seed %lu passed: every result as the model said, every process gone, no region left\n",
		       seed);
	}
	fz_kmsg_close();
	fz_log_free();
}

static const struct harness_test mshare_fuzz_tests[] = {
	{ "lifecycle", test_lifecycle },
	{ NULL, NULL },
};

/* Explicit only: it runs for as long as it is told, and varies by seed. */
HARNESS_SUITE(mshare_fuzz_suite, .name = "mshare_fuzz",
	      .tests = mshare_fuzz_tests,
	      .requires = harness_requires_msharefs,
	      .explicit_only = true);
