// SPDX-License-Identifier: GPL-2.0
/*
 * Who pays for a region's pages: memory cgroups and overcommit accounting,
 * against a MAP_SHARED memfd at the same address.
 *
 * A region's pages are anonymous pages of the region's own mm, which no
 * task runs; a memfd's are shmem pages, charged to the memory cgroup of the
 * process whose fault allocated them.  A region charges the same cgroup,
 * the faulting sharer's, and its limit stops the sharer the same way.  A
 * sharer moved to another cgroup leaves its charge behind, as cgroup v2
 * moves none, and its later faults are charged where it is now.
 * Overcommit accounting is the same too: shmem commits a memfd's pages as
 * they are allocated, a region each page its mm counts (Committed_AS), both
 * until the page is freed, and a fault past vm.overcommit_memory=2's limit
 * is SIGBUS.
 *
 * Each test makes its own cgroups under a cgroup2 mount at /sys/fs/cgroup,
 * so that memory.current starts at 0, and removes them at the end
 * (memcg_util.h).  A limit with swap to reclaim to: mshare_accounting_swap.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "memcg_util.h"
#include "mshare_util.h"
#include "shm_target.h"

#define ACCT_ADDR(slot)		MSHARE_ADDR(150 + (slot))
#define CHILD_TIMEOUT		60
#define MIB			(1UL << 20)
/* What a sharer faults in: far above what a process's own kernel memory is */
#define FILL_BYTES		(16 * MIB)
/* The limit of the memory.max tests, and what their sharer tries to fill */
#define LIMIT_BYTES		(8 * MIB)
#define LIMIT_FILL_BYTES	(64 * MIB)
/* Committed_AS: what the sharer fills; the headroom of overcommit_memory=2 */
#define COMMIT_FILL_BYTES	(64 * MIB)
#define COMMIT_HEADROOM_KB	(48 * 1024L)
#define COMMIT_OVER_BYTES	(96 * MIB)

struct acct_case {
	struct shm_target target;
	struct mshare_report *report;
	/* The cgroup the sharer runs in, and the creator's (creator_exits) */
	char cg[64];
	char creator_cg[64];
	unsigned long off;	/* where the sharer starts writing */
	unsigned long bytes;	/* how much it writes, one word per page */
	bool check;		/* read back instead of writing */
	/*
	 * A second cgroup (remote_write: the writer's; moved_sharer: the one
	 * the sharer moves to) and a child that pauses (start_paused_child())
	 */
	char other_cg[64];
	struct harness_paused_child holder;
};

/*
 * Write one word per page over [off, off + bytes) of the mapping at @p, or
 * check that each holds what such a write left: false on a wrong word.
 */
static bool fill_pages(unsigned long *p, unsigned long off,
		       unsigned long bytes, bool check)
{
	unsigned long end = off + bytes;

	for (; off < end; off += PAGE) {
		unsigned long *w = p + off / sizeof(long);

		if (!check)
			*w = mshare_pattern(off, 1);
		else if (*w != mshare_pattern(off, 1))
			return false;
	}
	return true;
}

/*
 * The sharer: into its cgroup, map, and write one word per page over
 * [off, off + bytes) (or check what an earlier sharer wrote there).
 */
static int filling_sharer(void *arg)
{
	struct acct_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	mshare_report_step(r, "enter the cgroup");
	if (c->cg[0] && cg_enter(c->cg))
		return mshare_report_fail(r, errno);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, c->check ? "check the pages" : "fill");
	if (!fill_pages(p, c->off, c->bytes, c->check))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_sharer(struct acct_case *c, struct harness_child_result *res)
{
	CU_ASSERT_EQUAL(harness_run_child_timeout(filling_sharer, c,
						 CHILD_TIMEOUT, res), 0);
}

/* The case's cgroup name, "acct_<test>", and the cgroup itself */
static void case_begin(struct acct_case *c, const char *cg)
{
	snprintf(c->cg, sizeof(c->cg), "acct_%s", cg);
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(cg_make(c->cg), 0);
}

/* The rest of case_end(), once the target is gone */
static void case_release(struct acct_case *c)
{
	cg_remove(c->cg);
	cg_remove(c->creator_cg);
	mshare_report_free(c->report);
}

static void case_end(struct acct_case *c)
{
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	case_release(c);
}

/*
 * A sharer in cgroup A faults FILL_BYTES of pages in: A's memory.current
 * grows by that much, as for a memfd.  The region's file was made by the
 * harness (PID 1, in the root cgroup), which never exits: the region's mm
 * names it as its owner, and before the fix every page a sharer faulted in
 * was charged to the root cgroup, out of reach of A's limits.  memory.stat
 * tells the two apart: a region's pages are anon, a memfd's shmem.
 */
static void run_charge_sharer(struct acct_case *c)
{
	struct harness_child_result res;
	long current, anon, shmem;

	case_begin(c, c->target.name);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	c->off = PAGE;
	c->bytes = FILL_BYTES;
	run_sharer(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	current = cg_read_long(c->cg, "memory.current");
	anon = cg_read_key(c->cg, "memory.stat", "anon");
	shmem = cg_read_key(c->cg, "memory.stat", "shmem");
	printf("    %s: memory.current %ld kB (anon %ld kB, shmem %ld kB) for %lu kB faulted in\n",
	       shm_kind_name(c->target.kind), current >> 10, anon >> 10,
	       shmem >> 10, FILL_BYTES >> 10);
	CU_ASSERT(current >= (long)FILL_BYTES);
	if (c->target.kind == SHM_REGION) {
		CU_ASSERT(anon >= (long)FILL_BYTES / 2);
	} else {
		CU_ASSERT(shmem >= (long)FILL_BYTES / 2);
	}
	case_end(c);
}

SHM_TEST_PAIR(struct acct_case, charge_sharer, run_charge_sharer,
	      ACCT_ADDR(0), ACCT_ADDR(1))

/*
 * The creator, in cgroup C: makes the region's file itself (a memfd's
 * control: it has the memfd the harness made), maps it, writes a page and
 * exits.
 */
static int exiting_creator(void *arg)
{
	struct acct_case *c = arg;
	unsigned long *p;
	int fd;

	if (cg_enter(c->creator_cg))
		return 1;
	if (c->target.kind == SHM_REGION) {
		fd = mshare_create(c->target.name);
		if (fd < 0)
			return 2;
		close(fd);
	}
	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 3;
	p[0] = 1;
	return 0;
}

/*
 * The region's mm is made by the process that creates the region's file,
 * and mm_alloc() names that task the mm's owner, the task whose memory
 * cgroup the mm's pages are charged to.  Nothing changes the owner when
 * that task exits (mm_update_next_owner() looks after the exiting task's
 * own mm only), so a sharer's fault after the creator is gone charged its
 * page through a freed task_struct: KASAN's use-after-free in
 * mem_cgroup_from_task(), or the charge went to whatever cgroup the stale
 * pointer led to.  The pages the sharer faults in must be charged to its
 * own cgroup A, not to the creator's C.
 */
static void run_creator_exits_first(struct acct_case *c)
{
	struct harness_child_result res;
	long current_a, current_c;

	case_begin(c, c->target.name);
	snprintf(c->creator_cg, sizeof(c->creator_cg), "acct_%s_creator",
		 c->target.name);
	CU_ASSERT_EQUAL_FATAL(cg_make(c->creator_cg), 0);
	if (c->target.kind == SHM_MEMFD)
		CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(exiting_creator, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT);
	c->off = PAGE;
	c->bytes = FILL_BYTES;
	run_sharer(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	current_a = cg_read_long(c->cg, "memory.current");
	current_c = cg_read_long(c->creator_cg, "memory.current");
	printf("    %s: memory.current of the sharer's cgroup %ld kB, of the exited creator's %ld kB\n",
	       shm_kind_name(c->target.kind), current_a >> 10,
	       current_c >> 10);
	CU_ASSERT(current_a >= (long)FILL_BYTES);
	CU_ASSERT(current_c < (long)FILL_BYTES / 2);
	case_end(c);
}

SHM_TEST_PAIR(struct acct_case, creator_exits_first, run_creator_exits_first,
	      ACCT_ADDR(2), ACCT_ADDR(3))

/* remote_write: maps the memory in cgroup A, then waits to be told to exit */
static int holding_sharer(void *arg)
{
	struct acct_case *c = arg;

	if (cg_enter(c->cg) ||
	    !shm_target_map(&c->target, PROT_READ | PROT_WRITE))
		return 1;
	return harness_child_pause(&c->holder) ? 2 : 0;
}

/*
 * remote_write: from cgroup B, process_vm_writev() one page at a time
 * over FILL_BYTES of the holder's mapping, from a single page of its own.
 */
static int remote_writer(void *arg)
{
	struct acct_case *c = arg;
	static char page[PAGE] __attribute__((aligned(PAGE)));
	struct iovec local = { page, PAGE }, remote[256];
	unsigned long off = PAGE;
	ssize_t n;
	int i;

	if (cg_enter(c->other_cg))
		return 1;
	memset(page, 0x5a, sizeof(page));
	while (off < PAGE + FILL_BYTES) {
		for (i = 0; i < 256; i++, off += PAGE) {
			remote[i].iov_base = (void *)(c->target.addr + off);
			remote[i].iov_len = PAGE;
		}
		for (i = 0; i < 256; i++) {
			n = process_vm_writev(c->holder.pid, &local, 1,
					      &remote[i], 1, 0);
			if (n != PAGE)
				return 2;
		}
	}
	return 0;
}

/*
 * Make the case's second cgroup, acct_<target>_@role, and the memory, and
 * start @fn in a child; return when it has paused (harness_child_pause()).
 */
static void start_paused_child(struct acct_case *c, const char *role,
			       int (*fn)(void *))
{
	snprintf(c->other_cg, sizeof(c->other_cg), "acct_%s_%s",
		 c->target.name, role);
	CU_ASSERT_EQUAL_FATAL(cg_make(c->other_cg), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL_FATAL(harness_start_paused_child(&c->holder, fn, c), 0);
}

/* Let the paused child go on, and wait for it to end. */
static void release_paused_child(struct acct_case *c,
				 struct harness_child_result *res)
{
	CU_ASSERT_EQUAL(harness_release_paused_child(&c->holder, CHILD_TIMEOUT,
						     res), 0);
}

/*
 * A process in cgroup B writes into the mapping of a sharer in cgroup A
 * (process_vm_writev(), a remote fault): the pages are charged to A, the
 * cgroup of the mm the fault is in, as shmem charges the faulting vma's
 * mm, not the writer's.
 */
static void run_remote_write(struct acct_case *c)
{
	struct harness_child_result res, hres;
	long current_a, current_b;

	case_begin(c, c->target.name);
	start_paused_child(c, "writer", holding_sharer);
	CU_ASSERT_EQUAL(harness_run_child_timeout(remote_writer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT);
	current_a = cg_read_long(c->cg, "memory.current");
	current_b = cg_read_long(c->other_cg, "memory.current");
	release_paused_child(c, &hres);
	MSHARE_ASSERT_EQ(shm_child_outcome(&hres), SHM_CHILD_EXIT);
	printf("    %s: memory.current of the mapping's cgroup %ld kB, of the writer's %ld kB\n",
	       shm_kind_name(c->target.kind), current_a >> 10,
	       current_b >> 10);
	CU_ASSERT(current_a >= (long)FILL_BYTES);
	CU_ASSERT(current_b < (long)FILL_BYTES / 2);
	case_end(c);
	cg_remove(c->other_cg);
}

SHM_TEST_PAIR(struct acct_case, remote_write, run_remote_write,
	      ACCT_ADDR(12), ACCT_ADDR(13))

/*
 * moved_sharer: in cgroup A, fault in FILL_BYTES; say so and wait while the
 * test moves this process to cgroup B; then fault in the next FILL_BYTES
 * and check both ranges.
 */
static int moving_sharer(void *arg)
{
	struct acct_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	mshare_report_step(r, "enter the first cgroup");
	if (cg_enter(c->cg))
		return mshare_report_fail(r, errno);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "fill before the move");
	fill_pages(p, PAGE, FILL_BYTES, false);
	mshare_report_step(r, "wait for the move");
	if (harness_child_pause(&c->holder))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "fill after the move");
	fill_pages(p, PAGE + FILL_BYTES, FILL_BYTES, false);
	mshare_report_step(r, "check both ranges");
	if (!fill_pages(p, PAGE, 2 * FILL_BYTES, true))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/*
 * A sharer faults FILL_BYTES in from cgroup A, is moved to cgroup B (its
 * pid written to B's cgroup.procs, as a service manager moves a process),
 * and faults FILL_BYTES more.  cgroup v2 moves no charges: what A was
 * charged stays in A, and only the faults after the move are charged to
 * B.  For a memfd that is shmem's rule (the faulting process's cgroup at
 * the time of the fault); for a region, handle_mm_fault() looks the
 * sharer's cgroup up at each fault, so it must see the move at once.
 */
static void run_moved_sharer(struct acct_case *c)
{
	struct harness_child_result res;
	long a_moved, b_moved, a_end, b_end, anon, shmem;

	case_begin(c, c->target.name);
	start_paused_child(c, "moved", moving_sharer);
	a_moved = cg_read_long(c->cg, "memory.current");
	CU_ASSERT_EQUAL(cg_move(c->other_cg, c->holder.pid), 0);
	b_moved = cg_read_long(c->other_cg, "memory.current");
	release_paused_child(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	a_end = cg_read_long(c->cg, "memory.current");
	b_end = cg_read_long(c->other_cg, "memory.current");
	anon = cg_read_key(c->other_cg, "memory.stat", "anon");
	shmem = cg_read_key(c->other_cg, "memory.stat", "shmem");
	printf("    %s: %lu kB faulted in before the move and %lu kB after; memory.current of the first cgroup %ld kB at the move, %ld kB at the end; of the second %ld kB at the move, %ld kB at the end (anon %ld kB, shmem %ld kB)\n",
	       shm_kind_name(c->target.kind), FILL_BYTES >> 10,
	       FILL_BYTES >> 10, a_moved >> 10, a_end >> 10, b_moved >> 10,
	       b_end >> 10, anon >> 10, shmem >> 10);
	/* The first faults were A's, and the move took none of it to B */
	CU_ASSERT(a_moved >= (long)FILL_BYTES);
	CU_ASSERT(b_moved < (long)FILL_BYTES / 2);
	/* The charge stays in A; the later faults are B's, and only they */
	CU_ASSERT(a_end >= (long)FILL_BYTES);
	CU_ASSERT(a_end - a_moved < (long)FILL_BYTES / 2);
	CU_ASSERT(b_end >= (long)FILL_BYTES);
	CU_ASSERT(b_end < (long)FILL_BYTES * 3 / 2);
	if (c->target.kind == SHM_REGION) {
		CU_ASSERT(anon >= (long)FILL_BYTES / 2);
	} else {
		CU_ASSERT(shmem >= (long)FILL_BYTES / 2);
	}
	case_end(c);
	cg_remove(c->other_cg);
}

SHM_TEST_PAIR(struct acct_case, moved_sharer, run_moved_sharer,
	      ACCT_ADDR(14), ACCT_ADDR(15))

/*
 * A sharer whose cgroup's memory.max is LIMIT_BYTES writes
 * LIMIT_FILL_BYTES: with no swap to reclaim to, the cgroup's OOM killer
 * kills it (SIGKILL), for a region as for a memfd, and memory.current
 * never passed the limit.
 */
static void run_sharer_memory_max(struct acct_case *c)
{
	struct harness_child_result res;
	char limit[32];
	long current, kills;

	case_begin(c, c->target.name);
	snprintf(limit, sizeof(limit), "%lu", LIMIT_BYTES);
	CU_ASSERT_EQUAL_FATAL(cg_write(c->cg, "memory.max", limit), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	c->off = PAGE;
	c->bytes = LIMIT_FILL_BYTES;
	run_sharer(c, &res);
	current = cg_read_long(c->cg, "memory.current");
	kills = cg_read_key(c->cg, "memory.events", "oom_kill");
	printf("    %s: sharer ended with %ld (want %d: SIGKILL), at step '%s'; memory.current %ld kB, oom_kill %ld\n",
	       shm_kind_name(c->target.kind), shm_child_outcome(&res), SIGKILL,
	       c->report->step, current >> 10, kills);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SIGKILL);
	CU_ASSERT_STRING_EQUAL(c->report->step, "fill");
	MSHARE_ASSERT_EQ(kills, 1);
	CU_ASSERT(current <= (long)LIMIT_BYTES);
	case_end(c);
}

SHM_TEST_PAIR(struct acct_case, sharer_memory_max, run_sharer_memory_max,
	      ACCT_ADDR(4), ACCT_ADDR(5))

/*
 * Committed_AS after a sharer wrote COMMIT_FILL_BYTES and exited, the
 * pages still in place, and again once the region or memfd is gone: a
 * memfd (VM_NORESERVE, as every memfd is) commits each page shmem
 * allocates, until it is freed.  So does a region, each page its mm
 * counts.  Before the fix it committed nothing: its pages belong to a
 * private vma of the region's mm that is not VM_ACCOUNT, and the sharers'
 * mappings are shared ones, which are not accounted either.
 */
static void run_committed_as(struct acct_case *c)
{
	struct harness_child_result res;
	long before, after, gone;

	case_begin(c, c->target.name);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	c->off = PAGE;
	c->bytes = COMMIT_FILL_BYTES;
	before = harness_meminfo_kb("Committed_AS");
	run_sharer(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	after = harness_meminfo_kb("Committed_AS");
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	gone = harness_meminfo_kb("Committed_AS");
	printf("    %s: Committed_AS %ld -> %ld kB after %lu kB written, %ld kB once it is gone\n",
	       shm_kind_name(c->target.kind), before, after,
	       COMMIT_FILL_BYTES >> 10, gone);
	CU_ASSERT(after - before >= (long)(COMMIT_FILL_BYTES >> 10) * 9 / 10);
	CU_ASSERT(gone - before < (long)(COMMIT_FILL_BYTES >> 10) / 4);
	case_release(c);
}

SHM_TEST_PAIR(struct acct_case, committed_as, run_committed_as,
	      ACCT_ADDR(6), ACCT_ADDR(7))

static long read_sysctl(const char *path)
{
	char buf[32];

	if (harness_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static int write_sysctl(const char *path, long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", value);
	return harness_write_file(path, buf);
}

/*
 * vm.overcommit_memory=2 with CommitLimit COMMIT_HEADROOM_KB above what is
 * committed now, and a sharer that writes COMMIT_OVER_BYTES: its fault
 * past the limit gets SIGBUS, as the page cannot be committed.  Before the
 * fix a region's sharer wrote it all.
 */
static void run_overcommit_never(struct acct_case *c)
{
	const char *mode = "/proc/sys/vm/overcommit_memory";
	const char *ratio = "/proc/sys/vm/overcommit_ratio";
	const char *kbytes = "/proc/sys/vm/overcommit_kbytes";
	struct harness_child_result res;
	long old_mode, old_ratio, limit;

	case_begin(c, c->target.name);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	c->off = PAGE;
	c->bytes = COMMIT_OVER_BYTES;
	old_mode = read_sysctl(mode);
	old_ratio = read_sysctl(ratio);
	CU_ASSERT_FATAL(old_mode >= 0 && old_ratio >= 0);
	limit = harness_meminfo_kb("Committed_AS") + COMMIT_HEADROOM_KB;
	CU_ASSERT_EQUAL(write_sysctl(kbytes, limit), 0);
	CU_ASSERT_EQUAL(write_sysctl(mode, 2), 0);
	run_sharer(c, &res);
	/* Back first: the harness forks every later test's children */
	CU_ASSERT_EQUAL(write_sysctl(mode, old_mode), 0);
	CU_ASSERT_EQUAL(write_sysctl(ratio, old_ratio), 0);
	printf("    %s: CommitLimit %ld kB; the sharer ended with %ld at step '%s'\n",
	       shm_kind_name(c->target.kind), limit, shm_child_outcome(&res),
	       c->report->step);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SIGBUS);
	CU_ASSERT_STRING_EQUAL(c->report->step, "fill");
	case_end(c);
}

SHM_TEST_PAIR(struct acct_case, overcommit_never, run_overcommit_never,
	      ACCT_ADDR(8), ACCT_ADDR(9))

/*
 * echo 3 > drop_caches between a sharer that writes and one that reads:
 * the data stays.  A memfd's pages are dirty shmem pages, which dropping
 * clean caches leaves; a region's are anonymous pages of its mm.
 */
static void run_drop_caches(struct acct_case *c)
{
	struct harness_child_result res;

	case_begin(c, c->target.name);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	c->off = PAGE;
	c->bytes = FILL_BYTES;
	run_sharer(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	sync();
	CU_ASSERT_EQUAL(harness_write_file("/proc/sys/vm/drop_caches", "3"), 0);
	c->check = true;
	run_sharer(c, &res);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	case_end(c);
}

SHM_TEST_PAIR(struct acct_case, drop_caches, run_drop_caches,
	      ACCT_ADDR(10), ACCT_ADDR(11))

static const struct harness_test mshare_accounting_tests[] = {
	{ "charge_sharer_region", charge_sharer_region },
	{ "charge_sharer_memfd", charge_sharer_memfd },
	{ "creator_exits_first_region", creator_exits_first_region },
	{ "creator_exits_first_memfd", creator_exits_first_memfd },
	{ "remote_write_region", remote_write_region },
	{ "remote_write_memfd", remote_write_memfd },
	{ "moved_sharer_region", moved_sharer_region },
	{ "moved_sharer_memfd", moved_sharer_memfd },
	{ "sharer_memory_max_region", sharer_memory_max_region },
	{ "sharer_memory_max_memfd", sharer_memory_max_memfd },
	{ "committed_as_region", committed_as_region },
	{ "committed_as_memfd", committed_as_memfd },
	{ "overcommit_never_region", overcommit_never_region },
	{ "overcommit_never_memfd", overcommit_never_memfd },
	{ "drop_caches_region", drop_caches_region },
	{ "drop_caches_memfd", drop_caches_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_accounting_suite, .name = "mshare_accounting",
	      .tests = mshare_accounting_tests,
	      .requires = memcg_required);
