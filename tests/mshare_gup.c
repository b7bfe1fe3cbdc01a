// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel page lookups (get_user_pages()) through a process that maps a
 * region, against a memfd mapping.
 *
 * A kernel page lookup (/proc/PID/mem, process_vm_readv,
 * the populate of MADV_POPULATE_READ) on behalf of a process that maps a
 * region read-only or PROT_NONE must not widen what the process itself
 * may do: after the lookup, its store (read-only) or load (PROT_NONE)
 * gets SIGSEGV, as on a MAP_SHARED memfd mapping.
 *
 * The lookup is the first access of the process to the region: its
 * fault, handled by handle_mm_fault() and not UML's page fault handler,
 * links the region's PGD entry into the process's PGD.  UML then has to
 * know that entry is the region's, or it replays the region's PTEs, with
 * the region's protection, into the process's host mappings: that
 * happens for a range of the process's that UML was asked to sync, which
 * a PTE change in the region is (every sharer's range is flushed).  So,
 * between the lookup and the access, another process writes a page of
 * the region that it read first (the zero page is replaced), and the
 * access is to that page.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "mshare_util.h"
#include "shm_target.h"

#define GUP_ADDR(slot)	MSHARE_ADDR(86 + (slot))
#define CHILD_TIMEOUT	30

/* A kernel page lookup of the word at @p, in the calling process */
typedef int (*gup_fn)(unsigned long *p);

struct gup_case {
	struct shm_target target;
	gup_fn lookup;
	int prot;		/* of the sharer's mapping */
	struct mshare_report *report;
};

/* access_remote_vm(), FOLL_FORCE */
static int lookup_proc_mem(unsigned long *p)
{
	unsigned long word;
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, &word, sizeof(word), (off_t)(unsigned long)p);
	close(fd);
	if (n < 0)
		return -errno;
	return n == sizeof(word) ? 0 : -EIO;
}

/* get_user_pages_remote() of our own mm */
static int lookup_process_vm_readv(unsigned long *p)
{
	unsigned long word;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { p, sizeof(word) };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return n == sizeof(word) ? 0 : -EIO;
}

/* faultin_page_range() */
static int lookup_populate_read(unsigned long *p)
{
	return madvise(p, PAGE, MADV_POPULATE_READ) ? -errno : 0;
}

/* The word another sharer reads, then writes, then we access */
#define CHANGED_WORD	(3 * PT_SPAN / sizeof(long))

/*
 * In a child of the sharer, with a read-write mapping of its own: read
 * the word (the zero page is mapped), then write it (a new page replaces
 * it: the PTE changes, and every sharer's range is flushed).
 */
static int change_page(const struct shm_target *t)
{
	volatile unsigned long *p = shm_target_map(t, PROT_READ |
						   PROT_WRITE);

	if (!p || p[CHANGED_WORD])
		return 1;
	p[CHANGED_WORD] = 3;
	return 0;
}

/* 0, or the errno or MSHARE_ERR_VALUE the child's step failed with */
static int another_sharer_changes_page(const struct shm_target *t)
{
	struct harness_child_result res;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(change_page(t));
	if (harness_wait_child_timeout(pid, CHILD_TIMEOUT, &res))
		return errno;
	return res.exited && !res.status ? 0 : MSHARE_ERR_VALUE;
}

/*
 * Map, let the kernel look the page up, let another sharer change a page
 * of the region, then do what the mapping does not allow there: a store
 * through PROT_READ, a load through PROT_NONE.  The child is to die of
 * SIGSEGV at the last step.
 */
static int gup_sharer(void *arg)
{
	struct gup_case *c = arg;
	struct mshare_report *r = c->report;
	volatile unsigned long *p;
	int err;

	p = shm_target_map_step(&c->target, c->prot, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "kernel page lookup");
	err = c->lookup((unsigned long *)p);
	if (err)
		return mshare_report_fail(r, -err);
	mshare_report_step(r, "another sharer changes a page");
	err = another_sharer_changes_page(&c->target);
	if (err)
		return mshare_report_fail(r, err);
	if (c->prot & PROT_READ) {
		mshare_report_step(r, "store through PROT_READ");
		p[CHANGED_WORD] = 2;
	} else {
		mshare_report_step(r, "load through PROT_NONE");
		if (p[CHANGED_WORD] == 3)
			return mshare_report_fail(r, MSHARE_ERR_VALUE);
	}
	return mshare_report_done(r);
}

static void run_gup_case(struct gup_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(gup_sharer, c, CHILD_TIMEOUT,
						 &res), 0);
	/* The lookup went through; the access after it did not. */
	CU_ASSERT_STRING_EQUAL(c->report->step, c->prot & PROT_READ ?
			       "store through PROT_READ" :
			       "load through PROT_NONE");
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SIGSEGV);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

#define GUP_TEST(fn, k, slot, lookup_fn, map_prot)			\
static void fn(void)							\
{									\
	struct gup_case c = {						\
		.target = { .kind = k, .name = #fn,			\
			    .addr = GUP_ADDR(slot) },		\
		.lookup = lookup_fn,					\
		.prot = map_prot,					\
	};								\
	run_gup_case(&c);						\
}

GUP_TEST(ro_store_after_proc_mem_region, SHM_REGION, 0, lookup_proc_mem,
	 PROT_READ)
GUP_TEST(ro_store_after_proc_mem_memfd, SHM_MEMFD, 1, lookup_proc_mem,
	 PROT_READ)
GUP_TEST(ro_store_after_process_vm_readv_region, SHM_REGION, 2,
	 lookup_process_vm_readv, PROT_READ)
GUP_TEST(ro_store_after_process_vm_readv_memfd, SHM_MEMFD, 3,
	 lookup_process_vm_readv, PROT_READ)
GUP_TEST(ro_store_after_populate_read_region, SHM_REGION, 4,
	 lookup_populate_read, PROT_READ)
GUP_TEST(ro_store_after_populate_read_memfd, SHM_MEMFD, 5,
	 lookup_populate_read, PROT_READ)
GUP_TEST(none_load_after_proc_mem_region, SHM_REGION, 6, lookup_proc_mem,
	 PROT_NONE)
GUP_TEST(none_load_after_proc_mem_memfd, SHM_MEMFD, 7, lookup_proc_mem,
	 PROT_NONE)

/*
 * Lookups that move data, by a process that maps the memory read-write
 * (or read-only, where the write must be refused), checked by another
 * process that maps it: the pages the kernel reaches through a sharer are
 * the region's.
 */
#define MOVED_WORD	(5 * PT_SPAN / sizeof(long))
#define MOVED_VALUE	0x5eedUL

/* process_vm_writev() of our own mm into the mapping: 0 or -errno */
static int write_process_vm_writev(unsigned long *p)
{
	unsigned long word = MOVED_VALUE;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { &p[MOVED_WORD], sizeof(word) };
	ssize_t n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return n == sizeof(word) ? 0 : -EIO;
}

/* /proc/self/mem write (FOLL_FORCE): 0 or -errno */
static int write_proc_mem(unsigned long *p)
{
	unsigned long word = MOVED_VALUE;
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pwrite(fd, &word, sizeof(word),
		   (off_t)(unsigned long)&p[MOVED_WORD]);
	close(fd);
	if (n < 0)
		return -errno;
	return n == sizeof(word) ? 0 : -EIO;
}

/* vmsplice() the word into a pipe and read it back: 0 or -errno */
static int vmsplice_round_trip(unsigned long *p)
{
	struct iovec iov = { &p[MOVED_WORD], sizeof(long) };
	unsigned long word = 0;
	int fds[2], err = 0;

	p[MOVED_WORD] = MOVED_VALUE;
	if (pipe(fds))
		return -errno;
	if (vmsplice(fds[1], &iov, 1, 0) != sizeof(long) ||
	    read(fds[0], &word, sizeof(word)) != sizeof(word))
		err = -errno;
	else if (word != MOVED_VALUE)
		err = -EIO;
	close(fds[0]);
	close(fds[1]);
	return err;
}

struct move_case {
	struct shm_target target;
	gup_fn move;
	int prot;
	int want_err;		/* of the move, as a positive errno */
	struct mshare_report *report;
};

static int moving_sharer(void *arg)
{
	struct move_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long *p;
	int err;

	p = shm_target_map_step(&c->target, c->prot, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "move data");
	err = c->move(p);
	if (err)
		return mshare_report_fail(r, -err);
	return mshare_report_done(r);
}

/* Another process: the word is there, or (a refused move) is not */
static int checking_sharer(void *arg)
{
	const struct move_case *c = arg;
	unsigned long *p = shm_target_map(&c->target, PROT_READ);

	if (!p)
		return 2;
	return (p[MOVED_WORD] == MOVED_VALUE) == !c->want_err ? 0 : 1;
}

static void run_move_case(struct move_case *c)
{
	struct harness_child_result res;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(moving_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, c->want_err ? "move data" : NULL,
			    c->want_err);
	CU_ASSERT_EQUAL(harness_run_child_timeout(checking_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	mshare_report_free(c->report);
}

#define MOVE_TEST(fn, k, slot, move_fn, map_prot, err)			\
static void fn(void)							\
{									\
	struct move_case c = {						\
		.target = { .kind = k, .name = #fn,			\
			    .addr = GUP_ADDR(slot) },			\
		.move = move_fn,					\
		.prot = map_prot,					\
		.want_err = err,					\
	};								\
	run_move_case(&c);						\
}

#define RW	(PROT_READ | PROT_WRITE)
MOVE_TEST(process_vm_writev_region, SHM_REGION, 0, write_process_vm_writev,
	  RW, 0)
MOVE_TEST(process_vm_writev_memfd, SHM_MEMFD, 1, write_process_vm_writev,
	  RW, 0)
MOVE_TEST(proc_mem_write_region, SHM_REGION, 2, write_proc_mem, RW, 0)
MOVE_TEST(proc_mem_write_memfd, SHM_MEMFD, 3, write_proc_mem, RW, 0)
/* FOLL_FORCE writes only through a private (COW) mapping */
MOVE_TEST(ro_proc_mem_write_region, SHM_REGION, 4, write_proc_mem,
	  PROT_READ, EIO)
MOVE_TEST(ro_proc_mem_write_memfd, SHM_MEMFD, 5, write_proc_mem,
	  PROT_READ, EIO)
MOVE_TEST(ro_process_vm_writev_region, SHM_REGION, 6,
	  write_process_vm_writev, PROT_READ, EFAULT)
MOVE_TEST(ro_process_vm_writev_memfd, SHM_MEMFD, 7,
	  write_process_vm_writev, PROT_READ, EFAULT)
MOVE_TEST(vmsplice_region, SHM_REGION, 0, vmsplice_round_trip, RW, 0)
MOVE_TEST(vmsplice_memfd, SHM_MEMFD, 1, vmsplice_round_trip, RW, 0)

static const struct harness_test mshare_gup_tests[] = {
	{ "ro_store_after_proc_mem_region", ro_store_after_proc_mem_region },
	{ "ro_store_after_proc_mem_memfd", ro_store_after_proc_mem_memfd },
	{ "ro_store_after_process_vm_readv_region",
	  ro_store_after_process_vm_readv_region },
	{ "ro_store_after_process_vm_readv_memfd",
	  ro_store_after_process_vm_readv_memfd },
	{ "ro_store_after_populate_read_region",
	  ro_store_after_populate_read_region },
	{ "ro_store_after_populate_read_memfd",
	  ro_store_after_populate_read_memfd },
	{ "none_load_after_proc_mem_region", none_load_after_proc_mem_region },
	{ "none_load_after_proc_mem_memfd", none_load_after_proc_mem_memfd },
	{ "process_vm_writev_region", process_vm_writev_region },
	{ "process_vm_writev_memfd", process_vm_writev_memfd },
	{ "proc_mem_write_region", proc_mem_write_region },
	{ "proc_mem_write_memfd", proc_mem_write_memfd },
	{ "ro_proc_mem_write_region", ro_proc_mem_write_region },
	{ "ro_proc_mem_write_memfd", ro_proc_mem_write_memfd },
	{ "ro_process_vm_writev_region", ro_process_vm_writev_region },
	{ "ro_process_vm_writev_memfd", ro_process_vm_writev_memfd },
	{ "vmsplice_region", vmsplice_region },
	{ "vmsplice_memfd", vmsplice_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_gup_suite, .name = "mshare_gup",
	      .tests = mshare_gup_tests,
	      .requires = harness_requires_msharefs);
