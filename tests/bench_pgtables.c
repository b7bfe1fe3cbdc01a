// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark, explicit only (harness.run=bench, or `make bench`): the page
 * tables of N processes attached to one region (1 GiB of it touched, all
 * of it on UML), mshare versus what a user has today, a 1 GiB MAP_SHARED
 * memfd (shmem), for N = 1, 2, 4, ... 512.
 *
 * For each N and each kind: fork N agents and let each run its command
 * loop once, so that its own page tables (text, stack, the /proc buffers)
 * are in place; read PageTables ("before"); attach all N and touch one
 * page per 2 MiB of the GiB, which materialises every PTE page; keep them
 * all attached and read PageTables again ("after"); then release them.
 * after - before is what attaching cost.  The "full" test touches every
 * page of 128 MiB for N = 1, 2: the figure per 2 MiB is the same, since
 * one touched page already needs the whole PTE page of its 2 MiB.
 *
 * Progress and results go to the console; "bench-csv: " lines are the raw
 * data, which uml/bench.sh extracts.  Only sanity is asserted (the agents
 * attached, touched and exited); speed lives in the printed figures.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "mshare_util.h"

#define BENCH_REGION	"bench"
#define BENCH_ADDR	MSHARE_ADDR(8)
#define BENCH_MAX_N	512
/*
 * What each process touches: a whole region on UML, the first GiB of one
 * on x86-64, and the size of the memfd; the figures stay comparable.
 */
#define BENCH_LEN	(1UL << 30)
/*
 * Not the whole GiB: UML maps every guest page into the host process with
 * an mmap of its own, and pages that are not neighbours in UML's memory
 * take a host VMA each; a memfd of 262144 pages ran into the host's
 * vm.max_map_count (65530) and the agent died.  32768 pages stay below.
 */
#define FULL_LEN	(128UL << 20)
#define FULL_MAX_N	2
#define CSV		"bench-csv: "
/* A memfd sharer's tables for BENCH_LEN: 512 PTE pages and one PMD page. */
#define BENCH_PT_KB	((BENCH_LEN / PT_SPAN + 1) * (PAGE / 1024))
/* Left free beyond the page tables: the agents, the kernel, slack. */
#define MEM_MARGIN_KB	(128L << 10)
#define SETTLE_POLL_US	10000
#define SETTLE_POLLS	1000

enum bench_kind { BENCH_MSHARE, BENCH_MEMFD };

struct bench_run {
	enum bench_kind kind;
	bool full;		/* every page of len, else one per 2 MiB */
	int n;
	unsigned long len;	/* bytes touched in each process */
	/* Results, kB unless noted. */
	long pt_idle;		/* before the agents were forked */
	long pt_before;		/* agents up, nothing attached */
	long pt_after;		/* all attached and touched */
	long pt_released;	/* agents gone, region or memfd freed */
	long vmpte_sum;		/* growth of the agents' own VmPTE */
	long vmpte_max;
	long region_pt;		/* mshare: the region's tables (debugfs) */
	long faults;		/* pgfault events while attaching */
	double ms;		/* attach + touch, all N */
	long free_after;
	/* Sanity. */
	int started;
	int bad_replies;
	int bad_stops;
	bool region_gone;
};

static struct mshare_agent agents[BENCH_MAX_N];
static long vmpte_before[BENCH_MAX_N];

static const char *kind_name(enum bench_kind kind)
{
	return kind == BENCH_MSHARE ? "mshare" : "memfd";
}

static long page_tables_kb(void)
{
	harness_vm_stat_refresh();
	return harness_meminfo_kb("PageTables");
}

static unsigned long pages_per_proc(const struct bench_run *r)
{
	return r->len / (r->full ? PAGE : PT_SPAN);
}

/*
 * The parent keeps two pipe ends per agent, and every agent inherits the
 * ends of the agents forked before it: 512 agents need more than the
 * default 1024 descriptors.
 */
static int bench_init(void)
{
	struct rlimit rl = { .rlim_cur = 4 * BENCH_MAX_N + 64,
			     .rlim_max = 4 * BENCH_MAX_N + 64 };

	return setrlimit(RLIMIT_NOFILE, &rl) ? -1 : 0;
}

/*
 * Fork the agents and run each one's loop once (a touch of 0 bytes): the
 * page tables of its text, stack and /proc buffers then exist before
 * "before" is read, and only the region's show up in after - before.
 */
static void start_agents(struct bench_run *r, int memfd)
{
	int i, ret;

	for (i = 0; i < r->n; i++) {
		if (r->kind == BENCH_MSHARE)
			ret = mshare_agent_start(&agents[i], BENCH_REGION,
						 BENCH_ADDR, i);
		else
			ret = mshare_agent_start_memfd(&agents[i], memfd,
						       BENCH_ADDR, i);
		if (ret)
			break;
		r->started++;
		if (mshare_agent_do(&agents[i], AGENT_TOUCH, 0))
			r->bad_replies++;
	}
}

/*
 * All agents attach and touch at once; the mshare creator maps first,
 * because its mmap sets the region's size that the others read.
 */
static void attach_and_touch(struct bench_run *r)
{
	char touch = r->full ? AGENT_FILL : AGENT_TOUCH;
	long faults0 = harness_vmstat("pgfault");
	double t0 = harness_now_s();
	int i, first = 0;

	if (r->kind == BENCH_MSHARE) {
		if (mshare_agent_do(&agents[0], AGENT_MAP_CREATE,
				   mshare_unit()))
			r->bad_replies++;
		mshare_agent_send(&agents[0], touch, r->len);
		first = 1;
	}
	for (i = first; i < r->n; i++) {
		mshare_agent_send(&agents[i], r->kind == BENCH_MSHARE ?
				  AGENT_MAP_FOLLOW : AGENT_MAP_MEMFD,
				  BENCH_LEN);
		mshare_agent_send(&agents[i], touch, r->len);
	}
	for (i = 0; i < r->n; i++) {
		if (i >= first && mshare_agent_reply(&agents[i]))
			r->bad_replies++;
		if (mshare_agent_reply(&agents[i]))
			r->bad_replies++;
	}
	r->ms = (harness_now_s() - t0) * 1e3;
	r->faults = harness_vmstat("pgfault") - faults0;
}

static void read_vmpte(const struct bench_run *r, long *kb)
{
	int i;

	for (i = 0; i < r->n; i++)
		kb[i] = harness_pid_status_kb(agents[i].pid, "VmPTE");
}

static void measure_after(struct bench_run *r)
{
	struct mshare_dbg dbg;
	long kb, delta;
	int i;

	r->pt_after = page_tables_kb();
	r->free_after = mshare_free_kb();
	r->region_pt = -1;
	if (r->kind == BENCH_MSHARE && !mshare_dbg_find(BENCH_REGION, &dbg))
		r->region_pt = dbg.pgtables_bytes / 1024;
	for (i = 0; i < r->n; i++) {
		kb = harness_pid_status_kb(agents[i].pid, "VmPTE");
		delta = kb - vmpte_before[i];
		r->vmpte_sum += delta;
		if (delta > r->vmpte_max)
			r->vmpte_max = delta;
	}
}

/*
 * A region's mm is torn down by a work item (mmput_async()) after it has
 * left the debugfs list: wait, up to 10 s, until its page tables are
 * freed, so they do not land in the next run's "before".
 */
static long settle_page_tables(long target)
{
	long kb = page_tables_kb();
	int i;

	for (i = 0; i < SETTLE_POLLS && kb > target; i++) {
		usleep(SETTLE_POLL_US);
		kb = page_tables_kb();
	}
	return kb;
}

static void release(struct bench_run *r, int memfd)
{
	int i;

	for (i = 0; i < r->started; i++)
		if (mshare_agent_stop(&agents[i]))
			r->bad_stops++;
	r->region_gone = true;
	if (r->kind == BENCH_MSHARE) {
		r->region_gone = !mshare_unlink(BENCH_REGION) &&
				 mshare_dbg_wait_gone(BENCH_REGION);
	} else {
		close(memfd);
	}
	r->pt_released = settle_page_tables(r->pt_idle);
}

/* The region file, or a memfd of 1 GiB: an fd, or -1. */
static int open_target(const struct bench_run *r)
{
	int fd;

	if (r->kind == BENCH_MSHARE) {
		fd = mshare_create(BENCH_REGION);
		if (fd >= 0)
			close(fd);
		return fd < 0 ? -1 : 0;
	}
	fd = memfd_create("bench", MFD_CLOEXEC);
	if (fd >= 0 && ftruncate(fd, BENCH_LEN)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void print_run(const struct bench_run *r)
{
	long pt = r->pt_after - r->pt_before;
	double secs = r->ms / 1e3;

	printf("\nbench: %-6s N=%-3d %-6s PageTables +%ld kB (%.1f kB/process), VmPTE max +%ld kB, %ld faults in %.1f s (%.0f/s)\n",
	       kind_name(r->kind), r->n, r->full ? "full" : "sparse", pt,
	       (double)pt / r->n, r->vmpte_max, r->faults, secs,
	       secs > 0 ? r->faults / secs : 0);
	printf(CSV "%s,%s,%d,%lu,%lu,%ld,%ld,%ld,%ld,%ld,%.2f,%ld,%ld,%ld,%ld,%.0f,%.0f,%ld\n",
	       kind_name(r->kind), r->full ? "full" : "sparse", r->n,
	       r->len / 1024, pages_per_proc(r), r->pt_idle, r->pt_before,
	       r->pt_after, r->pt_released, pt, (double)pt / r->n,
	       r->vmpte_sum, r->vmpte_max, r->region_pt, r->faults, r->ms,
	       secs > 0 ? r->faults / secs : 0, r->free_after);
}

static void print_csv_header(void)
{
	printf("\n" CSV "kind,touch,n,len_kb,pages_per_proc,pt_idle_kb,pt_before_kb,pt_after_kb,pt_released_kb,pt_kb,pt_per_proc_kb,vmpte_sum_kb,vmpte_max_kb,region_pt_kb,faults,ms,faults_per_s,free_after_kb\n");
}

/* One measurement; false if something failed (already asserted). */
static bool bench_one(enum bench_kind kind, bool full, int n,
		      unsigned long len)
{
	struct bench_run r = { .kind = kind, .full = full, .n = n,
			       .len = len };
	int fd;

	r.pt_idle = page_tables_kb();
	fd = open_target(&r);
	CU_ASSERT_FATAL(fd >= 0);
	start_agents(&r, fd);
	if (r.started == n) {
		read_vmpte(&r, vmpte_before);
		r.pt_before = page_tables_kb();
		attach_and_touch(&r);
		measure_after(&r);
	}
	release(&r, fd);
	CU_ASSERT_EQUAL(r.started, n);
	CU_ASSERT_EQUAL(r.bad_replies, 0);
	CU_ASSERT_EQUAL(r.bad_stops, 0);
	CU_ASSERT_TRUE(r.region_gone);
	if (r.started != n || r.bad_replies || r.bad_stops || !r.region_gone)
		return false;
	print_run(&r);
	return true;
}

/*
 * The memfd run at N needs N * BENCH_PT_KB of page tables: say so rather
 * than let the OOM killer pick an agent.
 */
static bool memory_fits(int n)
{
	long avail = harness_meminfo_kb("MemAvailable");
	long need = n * (long)BENCH_PT_KB + MEM_MARGIN_KB;

	if (avail >= need)
		return true;
	printf("\nbench: N=%d needs ~%ld kB free for the memfd run, MemAvailable is %ld kB: boot with a larger mem=\n",
	       n, need, avail);
	return false;
}

static void test_sparse(void)
{
	int n;

	printf("\nbench: MemTotal %ld kB; 1 GiB each, one page per 2 MiB touched, N = 1..%d\n",
	       harness_meminfo_kb("MemTotal"), BENCH_MAX_N);
	print_csv_header();
	for (n = 1; n <= BENCH_MAX_N; n *= 2) {
		CU_ASSERT_FATAL(memory_fits(n));
		if (!bench_one(BENCH_MSHARE, false, n, BENCH_LEN) ||
		    !bench_one(BENCH_MEMFD, false, n, BENCH_LEN))
			return;
	}
}

static void test_full(void)
{
	int n;

	printf("\nbench: every page of %lu MiB touched, N = 1..%d\n",
	       FULL_LEN >> 20, FULL_MAX_N);
	print_csv_header();
	for (n = 1; n <= FULL_MAX_N; n *= 2)
		if (!bench_one(BENCH_MSHARE, true, n, FULL_LEN) ||
		    !bench_one(BENCH_MEMFD, true, n, FULL_LEN))
			return;
}

static const struct harness_test bench_tests[] = {
	{ "sparse", test_sparse },
	{ "full", test_full },
	{ NULL, NULL },
};

HARNESS_SUITE(bench_suite, .name = "bench", .tests = bench_tests,
	      .init = bench_init, .requires = harness_requires_msharefs,
	      .explicit_only = true);
