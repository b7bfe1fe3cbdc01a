// SPDX-License-Identifier: GPL-2.0
/*
 * No stale translation on another CPU.  A reader on one CPU reads a region
 * page, so that CPU's TLB holds the translation, and waits; on another CPU
 * a writer changes the page for every sharer.  Once the writer's call
 * returned, the reader must never read through the old translation.
 *
 * The region's PTEs live in the region's mm, which never runs on any CPU:
 * the translations cached are the sharers', and only
 * mshare_flush_sharers() (the region's MMU notifier) flushes them, by IPI
 * to the CPUs that run a sharer.  ./linux has one CPU and mirrors page
 * tables into host processes, so these cases need the x86_64 target
 * (make run ARCH=x86_64, two CPUs or more); they skip with one CPU.
 *
 * Each case runs ROUNDS times on a fresh page, with a MAP_SHARED memfd as
 * the control where the operation has one:
 *  - zero_page: the reader reads a page nobody wrote (its read fault maps
 *    the zero page into the region), then the writer writes it, which
 *    replaces the zero page with a page of the region's own: the reader
 *    must read the value written, not zeros;
 *  - pageout: MADV_PAGEOUT of the page through the writer's mapping, swap
 *    on (a region's pages go to swap for every sharer; MADV_DONTNEED keeps
 *    them), then the writer writes a new value, which swaps the page in
 *    again: the reader must read that value, not the old page's.  The
 *    memfd's counterpart is fallocate(PUNCH_HOLE) (MADV_PAGEOUT leaves a
 *    page two processes map).  The page freed is the first the writer's
 *    CPU hands out again (its per-cpu list is last in, first out): had the
 *    new page been that one, a stale translation would read the right
 *    value by chance, so the writer takes it first for a private page of
 *    its own.  A region's page is not freed there, though: it waits in
 *    the swap cache for its write to finish, and the writer's write maps
 *    it again, so a stale translation still reaches the right page.  This
 *    case passes without the sharers' flush (planted: zero_page and
 *    protect_none fail); it checks the swap path across CPUs;
 *  - protect_none: mprotect(PROT_NONE) of the page through the writer's
 *    mapping, which changes the region for every sharer: the reader's next
 *    read must fault.  A memfd has no counterpart (mprotect is one
 *    process's).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_util.h"
#include "swap_disk.h"

#define TLB_SLOT	165
#define ROUNDS		10
/* How long the reader waits, its translation cached, before the writer acts. */
#define SPIN_US		20000
#define OLD_VALUE	0x01d01d01d01dUL
#define NEW_VALUE	0x0e1e0e1e0e1eUL
#define SCRATCH_VALUE	0x5c5c5c5c5c5cUL
#define WRITER_CPU	0
#define READER_CPU	1
#define CHILD_TIMEOUT	60

enum tlb_op { OP_ZERO_PAGE, OP_PAGEOUT, OP_PROTECT_NONE };

/* Shared by the writer and the reader it forks. */
struct tlb_round {
	int ready;		/* the reader has read the page */
	int done;		/* the writer's call returned (and it wrote) */
	int faulted;		/* the reader's read after done faulted */
	unsigned long seen;	/* what that read found, if it did not */
};

struct tlb_case {
	enum tlb_op op;
	bool region;		/* else the memfd control */
	const char *name;	/* of the region file */
	struct mshare_report *report;
	struct tlb_round *round;
	unsigned long *page;	/* this round's page */
	unsigned long *scratch;	/* the writer's private page */
	int memfd;
};

static sigjmp_buf read_fault_jmp;

static void on_read_fault(int sig)
{
	(void)sig;
	siglongjmp(read_fault_jmp, 1);
}

/*
 * Reads *p; true if the read faulted (SIGSEGV), else *val is the word.  No
 * system call (the signal mask is not saved: the handler runs with
 * SA_NODEFER), so the reader's loop never enters the kernel.
 */
static bool read_faults(const volatile unsigned long *p, unsigned long *val)
{
	if (sigsetjmp(read_fault_jmp, 0))
		return true;
	*val = *p;
	return false;
}

/*
 * The reader: read the page once, so that this CPU's TLB holds its
 * translation, then spin on the round's flag alone until the writer is
 * done (no system call, no other page: the entry stays cached), then read
 * the page again.  Not the page in the loop: with the flush working, the
 * reader would fault it straight back in during the writer's call, and
 * MADV_PAGEOUT would find it mapped again and write nothing.
 */
static int reader(void *arg)
{
	struct tlb_case *c = arg;
	struct tlb_round *r = c->round;
	struct sigaction sa = { .sa_handler = on_read_fault,
				.sa_flags = SA_NODEFER };
	unsigned long val;

	if (mshare_pin_to_cpu(READER_CPU) || sigaction(SIGSEGV, &sa, NULL))
		return 2;
	if (read_faults(c->page, &val))
		return 3;
	__atomic_store_n(&r->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
		;
	r->faulted = read_faults(c->page, &r->seen);
	return 0;
}

/*
 * The operation that takes the page away from every sharer, before the
 * writer writes the new value; 0 or -errno.
 */
static int change_page(struct tlb_case *c, unsigned long off)
{
	long swapped;

	switch (c->op) {
	case OP_PROTECT_NONE:
		return mprotect(c->page, PAGE, PROT_NONE) ? -errno : 0;
	case OP_PAGEOUT:
		if (!c->region)
			return fallocate(c->memfd, FALLOC_FL_PUNCH_HOLE |
					 FALLOC_FL_KEEP_SIZE, off, PAGE) ?
			       -errno : 0;
		/*
		 * Nothing written to swap: the case would prove nothing.
		 * (Not whether the page is present: the reader may have
		 * faulted it back in already, as it should.)
		 */
		swapped = harness_vmstat("pswpout");
		if (madvise(c->page, PAGE, MADV_PAGEOUT))
			return -errno;
		return harness_vmstat("pswpout") > swapped ? 0 : -EAGAIN;
	default:
		return 0;
	}
}

/*
 * After a page-out: fault a new private page in, the page just freed,
 * before the region (or memfd) gets its new page.
 */
static void take_freed_page(struct tlb_case *c)
{
	madvise(c->scratch, PAGE, MADV_DONTNEED);
	*(volatile unsigned long *)c->scratch = SCRATCH_VALUE;
}

/* What the reader must have seen once the writer was done. */
static bool reader_saw_change(const struct tlb_case *c)
{
	if (c->op == OP_PROTECT_NONE)
		return c->round->faulted;
	return !c->round->faulted && c->round->seen == NEW_VALUE;
}

static const char *const op_names[] = {
	[OP_ZERO_PAGE] = "write over the zero page",
	[OP_PAGEOUT] = "page out",
	[OP_PROTECT_NONE] = "mprotect(PROT_NONE)",
};

static int one_round(struct tlb_case *c, unsigned long base, int i)
{
	unsigned long off = (unsigned long)i * PT_SPAN + 3 * PAGE;
	struct harness_child_result res;
	pid_t pid;
	int err;

	memset(c->round, 0, sizeof(*c->round));
	c->page = (unsigned long *)(base + off);
	if (c->op != OP_ZERO_PAGE) {
		mshare_report_step(c->report, "write the old value");
		*c->page = OLD_VALUE;
	}
	mshare_report_step(c->report, "start the reader");
	pid = harness_start_child(reader, c);
	if (pid < 0)
		return mshare_report_fail(c->report, -pid);
	while (!__atomic_load_n(&c->round->ready, __ATOMIC_ACQUIRE))
		;
	usleep(SPIN_US);
	mshare_report_step(c->report, op_names[c->op]);
	err = change_page(c, off);
	if (!err && c->op == OP_PAGEOUT)
		take_freed_page(c);
	if (!err && c->op != OP_PROTECT_NONE)
		*c->page = NEW_VALUE;
	__atomic_store_n(&c->round->done, 1, __ATOMIC_RELEASE);
	mshare_report_step(c->report, "wait for the reader");
	if (harness_wait_child_timeout(pid, CHILD_TIMEOUT, &res) ||
	    !res.exited || res.status)
		return mshare_report_fail(c->report, MSHARE_ERR_VALUE);
	if (err)
		return mshare_report_fail(c->report, -err);
	if (!reader_saw_change(c)) {
		printf("\n    %s round %d: after the call returned on CPU %d, the reader on CPU %d %s %#lx (old %#lx, new %#lx, the writer's private page %#lx)\n",
		       c->region ? "region" : "memfd", i, WRITER_CPU,
		       READER_CPU, c->round->faulted ? "faulted, not reading" :
		       "read", c->round->seen,
		       c->op == OP_ZERO_PAGE ? 0 : OLD_VALUE,
		       c->op == OP_PROTECT_NONE ? OLD_VALUE : NEW_VALUE,
		       SCRATCH_VALUE);
		mshare_report_step(c->report, "the reader saw the change");
		return mshare_report_fail(c->report, MSHARE_ERR_VALUE);
	}
	if (c->op == OP_PROTECT_NONE &&
	    mprotect(c->page, PAGE, PROT_READ | PROT_WRITE))
		return mshare_report_fail(c->report, errno);
	return 0;
}

/* Map the region (or memfd) at the slot's address; its base, or 0. */
static unsigned long map_target(struct tlb_case *c)
{
	unsigned long addr = MSHARE_ADDR(TLB_SLOT), size = mshare_unit();
	int fd;
	void *p;

	if (c->region) {
		fd = mshare_create(c->name);
		if (fd < 0)
			return 0;
	} else {
		fd = memfd_create("tlb_control", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, ROUNDS * PT_SPAN))
			return 0;
		size = ROUNDS * PT_SPAN;
	}
	p = mmap((void *)addr, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (c->region)
		close(fd);
	else
		c->memfd = fd;
	return p == (void *)addr ? addr : 0;
}

/* The writer, in an mm that never ran anywhere but WRITER_CPU. */
static int writer(void *arg)
{
	struct tlb_case *c = arg;
	unsigned long base;
	int i, ret;

	mshare_report_step(c->report, "map");
	base = map_target(c);
	c->scratch = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!base || c->scratch == MAP_FAILED)
		return mshare_report_fail(c->report, errno);
	for (i = 0; i < ROUNDS; i++) {
		ret = one_round(c, base, i);
		if (ret)
			return ret;
	}
	return mshare_report_done(c->report);
}

/*
 * Pin, then fork the writer: its mm is born on WRITER_CPU and never loaded
 * on READER_CPU.  x86 sends a flush of the writer's own mm to every CPU
 * that ever loaded it, and on a CPU where another mm is loaded by now that
 * flush can drop the same addresses of that mm too: the reader's stale
 * entry would go by chance, not because the region's sharers were flushed.
 */
static int pinned_writer(void *arg)
{
	struct tlb_case *c = arg;
	struct harness_child_result res;
	int ret;

	mshare_report_step(c->report, "pin to the writer's CPU");
	ret = mshare_pin_to_cpu(WRITER_CPU);
	if (ret)
		return mshare_report_fail(c->report, -ret);
	if (harness_run_child_timeout(writer, c, 2 * CHILD_TIMEOUT, &res))
		return mshare_report_fail(c->report, ECHILD);
	return res.exited ? res.status : mshare_report_fail(c->report, EINTR);
}

static void run_case(enum tlb_op op, bool region, const char *name)
{
	struct tlb_case c = { .op = op, .region = region, .name = name,
			      .memfd = -1 };
	struct harness_child_result res;

	c.report = mshare_report_new();
	c.round = mmap(NULL, sizeof(*c.round), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c.report && c.round != MAP_FAILED);
	CU_ASSERT_EQUAL(harness_run_child_timeout(pinned_writer, &c,
						  3 * CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c.report, NULL, 0);
	if (region) {
		CU_ASSERT_EQUAL(mshare_unlink(name), 0);
		CU_ASSERT_TRUE(mshare_dbg_wait_gone(name));
	}
	munmap(c.round, sizeof(*c.round));
	mshare_report_free(c.report);
}

static void test_zero_page_region(void)
{
	run_case(OP_ZERO_PAGE, true, "tlb_zero");
}

static void test_zero_page_memfd(void)
{
	run_case(OP_ZERO_PAGE, false, NULL);
}

static void test_pageout_region(void)
{
	run_case(OP_PAGEOUT, true, "tlb_pageout");
}

static void test_pageout_memfd(void)
{
	run_case(OP_PAGEOUT, false, NULL);
}

static void test_protect_none_region(void)
{
	run_case(OP_PROTECT_NONE, true, "tlb_prot");
}

static const char *requires_two_cpus_swap_and_msharefs(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return "needs two CPUs or more (./linux has one: make run ARCH=x86_64)";
	return swap_disk_required() ?: harness_requires_msharefs();
}

static const struct harness_test mshare_smp_tlb_tests[] = {
	{ "zero_page_region", test_zero_page_region },
	{ "zero_page_memfd", test_zero_page_memfd },
	{ "pageout_region", test_pageout_region },
	{ "pageout_memfd", test_pageout_memfd },
	{ "protect_none_region", test_protect_none_region },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_smp_tlb_suite, .name = "mshare_smp_tlb",
	      .tests = mshare_smp_tlb_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = requires_two_cpus_swap_and_msharefs);
