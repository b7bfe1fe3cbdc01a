// SPDX-License-Identifier: GPL-2.0
/*
 * mlock() of a region locks the region, as mlock() of a MAP_SHARED memfd
 * mapping (the control) locks the shmem pages it maps: while any sharer
 * holds a locked mapping of the region, every page of the region is
 * PG_mlocked, the pages resident at the mlock() and the pages any sharer
 * faults in later; munlock(), munmap() or exit of the last locker unlocks
 * them, as execve() of the last locker does (the old mm goes as at exit;
 * the program exec'd is /init itself, as in mshare_exec).  Each locker's
 * VmLck counts its locked mapping, and its
 * RLIMIT_MEMLOCK is charged for it, as for shmem (mm-patches 0068).
 *
 * Where a region differs, a case of its own says how:
 * - a sharer's mapping of a region is one piece (munmap() and mremap() of
 *   a part are refused): mlock() and munlock() of a part of it are EINVAL,
 *   where a memfd mapping locks the part (partial_lock);
 * - a region is PGDIR_SIZE or more of address space: mlock() and
 *   mlockall(MCL_CURRENT) lock what is resident and what is faulted in
 *   later, as MLOCK_ONFAULT does, and populate nothing (populate_region).
 *   The memfd controls are mapped small, so that their mlock() populates
 *   only the pages the test writes and a few more.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "mshare_util.h"
#include "shm_target.h"

#define MLOCK_ADDR(slot)	MSHARE_ADDR(202 + (slot))
#define CHILD_TIMEOUT		30
#define NPAGES			16
/* Away from offset 0, which shm_target_setup() wrote */
#define RANGE_OFF		(2 * PT_SPAN)
/* A memfd control: the range, one page after it, and a little more */
#define CONTROL_SIZE		(RANGE_OFF + 2 * NPAGES * PAGE)
#define KPF_MLOCKED		33	/* include/uapi/linux/kernel-page-flags.h */
#define NOBODY			65534
/* Below the control's size: neither kind of mapping may be locked */
#define SMALL_MEMLOCK		(NPAGES * PAGE)

enum lock_call {
	LOCK_MLOCK,
	LOCK_MLOCK_ONFAULT,	/* mlock2(MLOCK_ONFAULT) */
	LOCK_MLOCKALL,		/* mlockall(MCL_CURRENT) */
	LOCK_MAP_LOCKED,	/* mmap(MAP_LOCKED) */
};

enum unlock_call {
	UNLOCK_MUNLOCK,
	UNLOCK_MUNLOCKALL,
	UNLOCK_MUNMAP,
	UNLOCK_EXIT,
	UNLOCK_EXECVE,
};

#define MAX_LOCKERS	2

struct mlock_case {
	struct shm_target target;
	enum lock_call lock;
	enum unlock_call unlock;
	int nr_lockers;
	struct locker {
		struct mlock_case *c;
		struct harness_paused_child child;
		struct mshare_report *report;
	} lockers[MAX_LOCKERS];
	/* For a checker: it wants this many of the range's pages locked */
	struct mshare_report *report;
	long want_locked;
};

static unsigned long *range_of(void *p)
{
	return (unsigned long *)((char *)p + RANGE_OFF);
}

/* PG_mlocked pages of the @n from @p (absent ones not counted), or -1 */
static long count_mlocked(const void *p, long n)
{
	return harness_pages_with_kpageflag((uintptr_t)p, n, KPF_MLOCKED);
}

static void fill(unsigned long *range, long n)
{
	long i;

	for (i = 0; i < n; i++)
		range[i * PAGE / sizeof(long)] = i + 1;
}

/* Pages of the @n from @range that do not hold what fill() wrote */
static long count_wrong(const unsigned long *range, long n)
{
	long i, wrong = 0;

	for (i = 0; i < n; i++)
		wrong += range[i * PAGE / sizeof(long)] != (unsigned long)i + 1;
	return wrong;
}

/* Map the target, locked by @lock's own means for MAP_LOCKED */
static void *map_for(const struct shm_target *t, enum lock_call lock)
{
	char path[256];
	void *p;
	int fd;

	if (lock != LOCK_MAP_LOCKED)
		return shm_target_map(t, PROT_READ | PROT_WRITE);
	if (t->kind == SHM_MEMFD) {
		fd = dup(t->memfd);
	} else {
		mshare_path(path, sizeof(path), t->name);
		fd = open(path, O_RDWR | O_CLOEXEC);
	}
	if (fd < 0)
		return NULL;
	p = mmap((void *)t->addr, shm_target_len(t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED | MAP_LOCKED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int do_lock(void *p, unsigned long len, enum lock_call lock)
{
	switch (lock) {
	case LOCK_MLOCK:
		return mlock(p, len);
	case LOCK_MLOCK_ONFAULT:
		return mlock2(p, len, MLOCK_ONFAULT);
	case LOCK_MLOCKALL:
		return mlockall(MCL_CURRENT);
	case LOCK_MAP_LOCKED:
		return 0;	/* map_for() did */
	}
	return -1;
}

static int do_unlock(void *p, unsigned long len, enum unlock_call unlock)
{
	switch (unlock) {
	case UNLOCK_MUNLOCK:
		return munlock(p, len);
	case UNLOCK_MUNLOCKALL:
		return munlockall();
	case UNLOCK_MUNMAP:
		return munmap(p, len);
	case UNLOCK_EXIT:
	case UNLOCK_EXECVE:	/* exec_list() */
		return 0;
	}
	return -1;
}

/*
 * Let go by execve(): the harness as a plain program (`/init --list`,
 * output to /dev/null) exits 0 in the new mm.  Every step is done before
 * the exec, which returns only if it failed.
 */
static int exec_list(struct mshare_report *r)
{
	char *const argv[] = { "/init", "--list", NULL };
	char *const envp[] = { NULL };
	int null = open("/dev/null", O_WRONLY);

	if (null < 0 || dup2(null, 1) < 0)
		return mshare_report_fail(r, errno);
	mshare_report_done(r);
	execve(argv[0], argv, envp);
	mshare_report_step(r, "execve");
	return mshare_report_fail(r, errno);
}

/*
 * A locker: write the range, lock the whole mapping, see the range locked
 * and counted in VmLck, pause while the test looks, then let go.
 */
static int locker(void *arg)
{
	struct locker *l = arg;
	struct mlock_case *c = l->c;
	struct mshare_report *r = l->report;
	unsigned long len = shm_target_len(&c->target);
	void *p;

	mshare_report_step(r, "map");
	p = map_for(&c->target, c->lock);
	if (!p)
		return mshare_report_fail(r, errno);
	fill(range_of(p), NPAGES);
	mshare_report_step(r, "lock");
	if (do_lock(p, len, c->lock))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "range PG_mlocked");
	if (count_mlocked(range_of(p), NPAGES) != NPAGES)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "VmLck");
	if (harness_proc_status_kb("VmLck") < (long)(len / 1024))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "pause");
	if (harness_child_pause(&l->child))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "unlock");
	if (do_unlock(p, len, c->unlock))
		return mshare_report_fail(r, errno);
	if (c->unlock == UNLOCK_EXECVE)
		return exec_list(r);
	return mshare_report_done(r);
}

/*
 * Is a page that a sharer which locks nothing faults in while the memory
 * is locked, locked?  In a region, yes: the region's vma maps it, for
 * every sharer.  In a memfd, only if the locker's mapping maps it too:
 * the locker's mlock() populated its mapping, mlock2(MLOCK_ONFAULT) did
 * not, and the locker does not touch the page.
 */
static bool new_pages_locked(const struct mlock_case *c)
{
	return c->target.kind == SHM_REGION || c->lock != LOCK_MLOCK_ONFAULT;
}

/*
 * Another sharer, which locks nothing: the range is locked or not, as
 * the test wants, and a page it writes after the range as
 * new_pages_locked() says.
 */
static int checker(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *range;
	void *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	range = range_of(p);
	mshare_report_step(r, "read the range");
	if (count_wrong(range, NPAGES))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "range PG_mlocked");
	if (count_mlocked(range, NPAGES) != c->want_locked)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "a new page PG_mlocked");
	fill(range + NPAGES * PAGE / sizeof(long), 1);
	if (count_mlocked(range + NPAGES * PAGE / sizeof(long), 1) !=
	    (c->want_locked && new_pages_locked(c)))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "VmLck");
	if (harness_proc_status_kb("VmLck") != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void check_from_another_sharer(struct mlock_case *c, long want_locked)
{
	struct harness_child_result res;

	c->want_locked = want_locked;
	CU_ASSERT_EQUAL(harness_run_child_timeout(checker, c, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
}

/*
 * The region's locked mappings, as debugfs counts them: a kernel before
 * 0068 (the seed's) has no such count, and is judged by its pages alone.
 */
static void check_lockers(const struct mlock_case *c, int want)
{
	struct mshare_dbg dbg;

	if (c->target.kind != SHM_REGION)
		return;
	CU_ASSERT_EQUAL_FATAL(mshare_dbg_find(c->target.name, &dbg), 0);
	if (dbg.lockers >= 0)
		MSHARE_ASSERT_EQ(dbg.lockers, want);
}

/*
 * The memfd control runs on one CPU, its lockers and checkers with it
 * (mshare_pin_to_cpu()).  shmem counts a page's lockers in mlock_count,
 * which the kernel lets undercount: a page still in another CPU's LRU
 * batch when it is mlocked enters the LRU with mlock_count 0, and the
 * first munlock then clears PG_mlocked while a second locker holds it,
 * "reclaim will fix it if not" (mm/mlock.c, __munlock_folio()).  On one
 * CPU the count is exact, and two_lockers_memfd can say what shmem keeps.
 * A region counts its lockers itself and runs on every CPU.
 */
static void case_begin(struct mlock_case *c)
{
	int i;

	if (c->target.kind == SHM_MEMFD) {
		c->target.memfd_size = CONTROL_SIZE;
		CU_ASSERT_EQUAL_FATAL(mshare_pin_to_cpu(0), 0);
	}
	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	for (i = 0; i < c->nr_lockers; i++) {
		c->lockers[i].c = c;
		c->lockers[i].report = mshare_report_new();
		CU_ASSERT_PTR_NOT_NULL_FATAL(c->lockers[i].report);
	}
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
}

static void case_end(struct mlock_case *c)
{
	int i;

	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	for (i = 0; i < c->nr_lockers; i++)
		mshare_report_free(c->lockers[i].report);
	mshare_report_free(c->report);
	if (c->target.kind == SHM_MEMFD)
		CU_ASSERT_EQUAL(mshare_unpin(), 0);
}

static void start_locker(struct locker *l)
{
	CU_ASSERT_EQUAL_FATAL(harness_start_paused_child(&l->child, locker, l),
			      0);
}

static void release_locker(struct locker *l)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL(harness_release_paused_child(&l->child, CHILD_TIMEOUT,
						     &res), 0);
	MSHARE_ASSERT_CHILD(&res, l->report, NULL, 0);
}

/*
 * One locker, or two: each lock is seen by a sharer that locks nothing,
 * and the pages stay locked until the last locker lets go.
 */
static void run_lock_case(struct mlock_case *c)
{
	int i;

	case_begin(c);
	for (i = 0; i < c->nr_lockers; i++) {
		start_locker(&c->lockers[i]);
		check_lockers(c, i + 1);
		check_from_another_sharer(c, NPAGES);
	}
	for (i = 0; i < c->nr_lockers; i++) {
		release_locker(&c->lockers[i]);
		check_lockers(c, c->nr_lockers - i - 1);
		check_from_another_sharer(c, i + 1 < c->nr_lockers ? NPAGES : 0);
	}
	case_end(c);
}

#define LOCK_PAIR(test, lock_call, unlock_call, lockers, slot)		\
static void test##_region(void)						\
{									\
	struct mlock_case c = {						\
		.target = { .kind = SHM_REGION, .name = #test "_region",\
			    .addr = MLOCK_ADDR(slot) },			\
		.lock = lock_call, .unlock = unlock_call,		\
		.nr_lockers = lockers,					\
	};								\
	run_lock_case(&c);						\
}									\
static void test##_memfd(void)						\
{									\
	struct mlock_case c = {						\
		.target = { .kind = SHM_MEMFD, .name = #test "_memfd",	\
			    .addr = MLOCK_ADDR((slot) + 1) },		\
		.lock = lock_call, .unlock = unlock_call,		\
		.nr_lockers = lockers,					\
	};								\
	run_lock_case(&c);						\
}

LOCK_PAIR(mlock_munlock, LOCK_MLOCK, UNLOCK_MUNLOCK, 1, 0)
LOCK_PAIR(onfault_munmap, LOCK_MLOCK_ONFAULT, UNLOCK_MUNMAP, 1, 2)
LOCK_PAIR(mlockall_munlockall, LOCK_MLOCKALL, UNLOCK_MUNLOCKALL, 1, 4)
LOCK_PAIR(map_locked_exit, LOCK_MAP_LOCKED, UNLOCK_EXIT, 1, 6)
LOCK_PAIR(two_lockers, LOCK_MLOCK, UNLOCK_EXIT, 2, 8)
LOCK_PAIR(mlock_execve, LOCK_MLOCK, UNLOCK_EXECVE, 1, 22)

/*
 * mlock() of a part: a memfd mapping locks the part; a region's mapping
 * is one piece, and the call is refused as munmap() of a part is.
 */
static int partial_locker(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	int want_err = c->target.kind == SHM_REGION ? EINVAL : 0;
	unsigned long *range;
	void *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	range = range_of(p);
	fill(range, NPAGES);
	mshare_report_step(r, "mlock of a part");
	if ((mlock(range, NPAGES * PAGE) ? errno : 0) != want_err)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "range PG_mlocked");
	if (count_mlocked(range, NPAGES) != (want_err ? 0 : NPAGES))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "VmLck");
	if (harness_proc_status_kb("VmLck") !=
	    (want_err ? 0 : (long)(NPAGES * PAGE / 1024)))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "lock all, munlock a part");
	if (mlock(p, shm_target_len(&c->target)) ||
	    (munlock(range, NPAGES * PAGE) ? errno : 0) != want_err)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "range after munlock");
	if (count_mlocked(range, NPAGES) != (want_err ? NPAGES : 0))
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

/* A case of one child, @fn, that leaves nothing locked */
static void run_one_child_case(struct mlock_case *c, int (*fn)(void *))
{
	struct harness_child_result res;

	case_begin(c);
	CU_ASSERT_EQUAL(harness_run_child_timeout(fn, c, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	check_lockers(c, 0);
	case_end(c);
}

static void run_partial_case(struct mlock_case *c)
{
	run_one_child_case(c, partial_locker);
}

SHM_TEST_PAIR(struct mlock_case, partial_lock, run_partial_case,
	      MLOCK_ADDR(10), MLOCK_ADDR(11))

/*
 * RLIMIT_MEMLOCK is charged for the whole mapping, as for shmem: a
 * process without CAP_IPC_LOCK may not lock more than its limit.
 */
static int limited_locker(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	struct rlimit small = { SMALL_MEMLOCK, SMALL_MEMLOCK };
	void *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "limit, setuid");
	if (setrlimit(RLIMIT_MEMLOCK, &small) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "mlock over the limit");
	if (!mlock(p, shm_target_len(&c->target)) || errno != ENOMEM)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "VmLck");
	if (harness_proc_status_kb("VmLck") != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_limit_case(struct mlock_case *c)
{
	run_one_child_case(c, limited_locker);
}

SHM_TEST_PAIR(struct mlock_case, memlock_limit, run_limit_case,
	      MLOCK_ADDR(12), MLOCK_ADDR(13))

/*
 * The creator maps the region under MCL_FUTURE: the region is locked as
 * by any locker, then unlocked by its munlockall(), for every sharer.
 */
static int mcl_future_creator(void *arg)
{
	struct mlock_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;

	mshare_report_step(r, "mlockall(MCL_FUTURE)");
	if (mlockall(MCL_FUTURE))
		return mshare_report_fail(r, errno);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r,
				"create");
	if (!p)
		return 1;
	fill(range_of(p), NPAGES);
	mshare_report_step(r, "range PG_mlocked");
	if (count_mlocked(range_of(p), NPAGES) != NPAGES)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	mshare_report_step(r, "munlockall");
	if (munlockall())
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "range after munlockall");
	if (count_mlocked(range_of(p), NPAGES) != 0)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void mcl_future_creator_region(void)
{
	struct mlock_case c = {
		.target = { .kind = SHM_REGION, .name = "mlock_future",
			    .addr = MLOCK_ADDR(14) },
	};
	struct harness_child_result res;
	int fd;

	c.report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c.report);
	fd = mshare_create(c.target.name);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mcl_future_creator, &c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c.report, NULL, 0);
	check_lockers(&c, 0);
	check_from_another_sharer(&c, 0);
	CU_ASSERT_EQUAL(mshare_unlink(c.target.name), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(c.target.name));
	mshare_report_free(c.report);
}

/*
 * mlockall(MCL_CURRENT) of a process that maps a region, and a mapping
 * with MAP_POPULATE: neither populates the region (a region locks what
 * is resident and what is faulted in later).  A populate of the sharer's
 * vma faulted in the whole region: the zero page at every address, a PTE
 * table per 2 MiB (2 MiB of tables on UML; 1 GiB of them for a 512 GiB
 * region on x86-64, where the child never got to the end).  No memfd
 * control: a memfd mapping of a unit would be populated, which the test
 * kernel's memory does not hold.
 */
static int populating_sharer(void *arg)
{
	const struct shm_target *t = arg;
	char path[256];
	int fd;

	if (!shm_target_map(t, PROT_READ | PROT_WRITE) ||
	    mlockall(MCL_CURRENT) || munlockall())
		return 1;
	mshare_path(path, sizeof(path), t->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || mmap((void *)t->addr, mshare_unit(),
			   PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0) ==
		      MAP_FAILED)
		return 2;
	return 0;
}

static void populate_region(void)
{
	struct shm_target t = { .kind = SHM_REGION, .name = "mlock_populate",
				.addr = MLOCK_ADDR(15) };
	struct harness_child_result res;
	struct mshare_dbg before, after;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&t), 0);
	CU_ASSERT_EQUAL_FATAL(mshare_dbg_find(t.name, &before), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(populating_sharer, &t,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL_FATAL(mshare_dbg_find(t.name, &after), 0);
	printf("\n    region: %lu kB page tables before, %lu kB after\n",
	       before.pgtables_bytes / 1024, after.pgtables_bytes / 1024);
	MSHARE_ASSERT_EQ(after.pgtables_bytes, before.pgtables_bytes);
	CU_ASSERT_EQUAL(shm_target_teardown(&t), 0);
}

static const struct harness_test mshare_mlock_tests[] = {
	{ "mlock_munlock_region", mlock_munlock_region },
	{ "mlock_munlock_memfd", mlock_munlock_memfd },
	{ "onfault_munmap_region", onfault_munmap_region },
	{ "onfault_munmap_memfd", onfault_munmap_memfd },
	{ "mlockall_munlockall_region", mlockall_munlockall_region },
	{ "mlockall_munlockall_memfd", mlockall_munlockall_memfd },
	{ "map_locked_exit_region", map_locked_exit_region },
	{ "map_locked_exit_memfd", map_locked_exit_memfd },
	{ "two_lockers_region", two_lockers_region },
	{ "two_lockers_memfd", two_lockers_memfd },
	{ "mlock_execve_region", mlock_execve_region },
	{ "mlock_execve_memfd", mlock_execve_memfd },
	{ "partial_lock_region", partial_lock_region },
	{ "partial_lock_memfd", partial_lock_memfd },
	{ "memlock_limit_region", memlock_limit_region },
	{ "memlock_limit_memfd", memlock_limit_memfd },
	{ "mcl_future_creator_region", mcl_future_creator_region },
	{ "populate_region", populate_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_mlock_suite, .name = "mshare_mlock",
	      .tests = mshare_mlock_tests,
	      .requires = harness_requires_msharefs);
