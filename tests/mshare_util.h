/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mshare tests: msharefs files, the debugfs view of
 * regions, and "agents" - child processes that map a region and act on it
 * on command, so a test can interleave what several processes do.
 */
#ifndef TESTS_MSHARE_UTIL_H
#define TESTS_MSHARE_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "harness.h"

#define MSHARE_DIR	"/sys/fs/mshare"
#define MSHARE_REGIONS	"/sys/kernel/debug/mshare/regions"
#define PAGE		4096UL
/* 4 KiB pages: one PTE page maps 2 MiB (UML and x86-64 alike). */
#define PT_SPAN		(2UL << 20)

/*
 * The granularity of a region's address and size: PGDIR_SIZE, which the
 * kernel reports in mshare_info: 1 GiB on UML (3-level tables), 512 GiB
 * on x86-64 (4-level).  Read once, when first readable.  Without msharefs
 * (the host build, where the mshare suites skip) it is UML's 1 GiB, so
 * that an address computed before a skip is still a region's.
 */
unsigned long mshare_unit(void);

/*
 * How much of a region a test touches, fills or checks when it goes over
 * "all of it": the whole region on UML, the first GiB of x86-64's 512, so
 * that a test does the same work and uses the same memory on both.
 */
#define MSHARE_TOUCH_LEN	(1UL << 30)

/* What read() of an msharefs file returns (struct mshare_info). */
struct mshare_region_info {
	unsigned long start;
	unsigned long size;
};

/* One line of <debugfs>/mshare/regions. */
struct mshare_dbg {
	unsigned long start;
	unsigned long size;
	unsigned int refcount;
	int deleted;
	unsigned long pgtables_bytes;
	unsigned long rss_pages;
	int lockers;		/* locked mappings; -1 before mm-patches 0068 */
};

/*
 * Every test uses its own slot: one unit at its own unit-aligned address,
 * from the first unit at or above 64 GiB (above the binary, its heap and
 * anything small).  On UML that is 64 GiB + slot GiB, as it always was; on
 * x86-64 512 GiB + slot * 512 GiB, which keeps slot 231 (the last used,
 * by mshare_thp) below 117 TiB, far from the stack and mmap base under
 * 128 TiB.  With 5-level paging a unit is 256 TiB: slot 0 at 256 TiB,
 * above where mmap() without a hint places anything, and slot 231 at
 * 58 PiB, below the end of user space at 64 PiB.
 */
#define MSHARE_ADDR(slot)	mshare_slot_addr(slot)
unsigned long mshare_slot_addr(unsigned int slot);

void mshare_path(char *buf, size_t size, const char *name);

/*
 * Does an access through a translation the CPU may have cached set the
 * accessed bit of a PTE made old since (clear_refs, idle page tracking,
 * neither of which flushes the TLB)?  On UML it does: an old PTE is
 * mapped into the host process with no access (0006 of the series), so
 * the access faults.  On x86 a TLB hit sets nothing.
 */
bool mshare_old_pte_access_faults(void);

/*
 * The stages of an accessed-bit test: what each counted (@got) against
 * what it should (@want), by @names.  The stages in @own_mask (bit i for
 * stage i) are a process's own accesses after the bit was cleared: they
 * are checked only where mshare_old_pte_access_faults(), else named as
 * not checked.
 */
#define MSHARE_ASSERT_STAGES(got, want, names, n, own_mask)		\
	mshare_assert_stages((got), (want), (names), (n), (own_mask),	\
			     __LINE__, __FILE__, __func__)
void mshare_assert_stages(const long *got, const long *want,
			  const char *const *names, int n,
			  unsigned long own_mask, unsigned int line,
			  const char *file, const char *func);
int mshare_create(const char *name);
int mshare_read_info(int fd, struct mshare_region_info *info);
int mshare_unlink(const char *name);
/* 0 and the entry, -ENOENT if no live region has that name, or -errno. */
int mshare_dbg_find(const char *name, struct mshare_dbg *dbg);
/* Refcount of the region, -1 if not listed. */
long mshare_dbg_refcount(const char *name);
/* Wait up to ~2 s for the region to leave the list; true if it did. */
bool mshare_dbg_wait_gone(const char *name);

/*
 * The entry of /proc/self/smaps of the vma that starts at @addr: the file
 * read into @buf, the entry cut off before the next one.  NULL if there is
 * none or the file cannot be read.
 */
const char *mshare_smaps_entry(char *buf, size_t size, unsigned long addr);

/*
 * Run the calling process, and the children it forks from then on, on
 * @cpu only: 0 or -errno.  A test that pages out (MADV_PAGEOUT) memory
 * faulted in by another process, or by itself before a migration, puts
 * them on one CPU: a new page waits in its CPU's LRU batch until that is
 * drained, and MADV_PAGEOUT drains only the CPU it runs on, so on several
 * CPUs it may find pages it cannot isolate.  mlock() too drains only its
 * own CPU: a shmem page mlocked from another CPU than the one that made it
 * undercounts its lockers (mshare_mlock).
 */
int mshare_pin_to_cpu(int cpu);
/* Back to every CPU that is online: 0 or -errno. */
int mshare_unpin(void);

/*
 * Processes that a test forks meet through a counter in memory they share
 * (MAP_SHARED).  mshare_wait_count() waits until *@count reaches @n, for
 * @timeout_s seconds at most: true if it did.  mshare_barrier() counts the
 * caller in first.  Bounded, so that a process that died before it counted
 * itself in fails the test instead of hanging it until the harness kills
 * the suite.
 */
bool mshare_wait_count(int *count, int n, int timeout_s);
bool mshare_barrier(int *count, int n, int timeout_s);

/*
 * Free memory in kB including the pages on the per-cpu free lists, which
 * MemFree leaves out (they hold megabytes here), or -1.
 */
long mshare_free_kb(void);

/* @pages pages in kB, as /proc counts them */
#define KB(pages)	((pages) * (long)PAGE / 1024)

/* The value agents write at an offset, and check for. */
static inline unsigned long mshare_pattern(unsigned long off, int tag)
{
	return (off * 2654435761UL) ^ ((unsigned long)tag << 56) ^ 0x5aUL;
}

/* Agent commands: arg is an offset into the region unless noted. */
enum {
	AGENT_MAP_CREATE = 'M',	/* open, mmap RW at addr (size: arg) */
	AGENT_MAP_FOLLOW = 'F',	/* open, read info, mmap RW there */
	AGENT_MAP_RDONLY = 'R',	/* open, read info, mmap read-only there */
	AGENT_WRITE = 'W',	/* store mshare_pattern(arg, tag) at arg */
	AGENT_CHECK = 'C',	/* is mshare_pattern(arg, tag) at arg? */
	AGENT_CHECK_ALL = 'A',	/* pattern of every tag 0..arg-1 at slot tag */
	AGENT_UNMAP = 'U',	/* munmap the mapping */
	AGENT_MAP_MEMFD = 'D',	/* mmap memfd_fd MAP_SHARED at addr (size: arg) */
	AGENT_FILL = 'L',	/* write one word per page over arg bytes */
	AGENT_TOUCH = 'T',	/* write one word per 2 MiB over arg bytes */
	AGENT_CHECK_SPAN = 'S',	/* what AGENT_TOUCH of tags 0..arg>>40 wrote */
	AGENT_PT_DELTA = 'P',	/* PageTables kB growth during the last touch */
	AGENT_VMPTE_DELTA = 'V',	/* VmPTE kB growth during the last touch */
	AGENT_MPROTECT = 'p',	/* AGENT_MPROTECT_ARG(); replies errno or 0 */
	AGENT_OWN_PAGES = 'O',	/* own copies of our pages (before a map) */
	AGENT_EXIT = 'X',
};

/*
 * AGENT_MPROTECT: give @npages pages from offset @off protection @prot;
 * AGENT_MPROTECT_TO_END pages: the rest of the mapping (a whole region of
 * x86-64 is 2^27 pages, more than the 24 bits above the offset hold).
 */
#define AGENT_MPROTECT_TO_END	0UL
#define AGENT_MPROTECT_ARG(off, npages, prot)				\
	((off) | ((unsigned long)(npages) << 40) | (unsigned long)(prot))
#define AGENT_MPROTECT_OFF(arg)	((arg) & ((1UL << 40) - 1) & ~(PAGE - 1))

/* Replies: 0 ok, or one of these. */
enum {
	AGENT_ERR_OPEN = 10,
	AGENT_ERR_READ,
	AGENT_ERR_INFO,
	AGENT_ERR_MMAP,
	AGENT_ERR_MUNMAP,
	AGENT_ERR_CHECK,
	AGENT_ERR_PROTO,
	AGENT_ERR_MLOCK,
};

struct mshare_agent {
	pid_t pid;
	int cmd_fd;		/* parent writes commands */
	int reply_fd;		/* parent reads replies */
	/* For the child: */
	const char *name;
	unsigned long addr;	/* where it maps (creator) */
	unsigned long size;
	int tag;
	int memfd_fd;		/* for AGENT_MAP_MEMFD */
	long pt_delta;
	long vmpte_delta;
};

int mshare_agent_start(struct mshare_agent *a, const char *name,
		       unsigned long addr, int tag);
int mshare_agent_start_memfd(struct mshare_agent *a, int memfd_fd,
			     unsigned long addr, int tag);
/* Send a command without waiting for the reply. */
int mshare_agent_send(struct mshare_agent *a, char cmd, unsigned long arg);
/* The reply to the oldest command sent, or -1 if the agent is gone. */
int mshare_agent_reply(struct mshare_agent *a);
int mshare_agent_do(struct mshare_agent *a, char cmd, unsigned long arg);
/* Tell it to exit and wait; returns its exit status, or -1. */
int mshare_agent_stop(struct mshare_agent *a);

/*
 * Assert that @call failed (returned a negative value) with errno @want,
 * or succeeded if @want is 0.  CUnit prints only the condition of a failed
 * assertion, so the condition says what came instead:
 * "unlink(path): want ENOENT, got EPERM".
 */
#define MSHARE_ASSERT_ERRNO(call, want)					\
	mshare_assert_errno((call) < 0 ? errno : 0, (want), #call,	\
			    __LINE__, __FILE__, __func__)
void mshare_assert_errno(int got, int want, const char *what,
			 unsigned int line, const char *file,
			 const char *func);

/*
 * CU_ASSERT_EQUAL() for numbers, with both in the condition CUnit prints:
 * "read(fd, buf, 64): want 16, got 0".
 */
#define MSHARE_ASSERT_EQ(got, want)					\
	mshare_assert_eq((long)(got), (long)(want), #got, __LINE__,	\
			 __FILE__, __func__)
void mshare_assert_eq(long got, long want, const char *what,
		      unsigned int line, const char *file, const char *func);

/* "EINVAL", "success" for 0, "wrong value" for MSHARE_ERR_VALUE. */
const char *mshare_errname(int err);

/*
 * What a child did, in memory it shares with the test: the step it is at,
 * so that a child killed at a timeout shows where it hung, and the errno
 * that step failed with.  An exit status holds 8 bits and no step name.
 */
struct mshare_report {
	char step[32];
	int err;		/* of the failed step; 0 while none failed */
};

/* A step that found a wrong value (data, struct mshare_info, stat). */
#define MSHARE_ERR_VALUE	(-1)

/* Shared with children forked later; NULL if mmap failed. */
struct mshare_report *mshare_report_new(void);
void mshare_report_free(struct mshare_report *r);
/* Child side: about to do @step. */
void mshare_report_step(struct mshare_report *r, const char *step);
/* Child side: the current step failed with @err; returns 1 to exit with. */
int mshare_report_fail(struct mshare_report *r, int err);
/* Child side: every step succeeded; returns 0 to exit with. */
int mshare_report_done(struct mshare_report *r);

/*
 * Assert that the child failed at step @want_step with errno @want_err,
 * or, if @want_step is NULL, that it did every step.  A timeout or a
 * signal fails, naming the step the child was at.
 */
#define MSHARE_ASSERT_CHILD(res, r, want_step, want_err)		\
	mshare_assert_child((res), (r), (want_step), (want_err),	\
			    __LINE__, __FILE__, __func__)
void mshare_assert_child(const struct harness_child_result *res,
			 const struct mshare_report *r, const char *want_step,
			 int want_err, unsigned int line, const char *file,
			 const char *func);

#endif
