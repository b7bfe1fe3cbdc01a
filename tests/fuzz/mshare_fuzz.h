/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mshare lifecycle fuzzer: several processes ("agents") driven through
 * random, seeded sequences of msharefs and memory operations, each result
 * checked against a model of what the fixed kernel does.
 *
 *   mshare_fuzz.c        the suite, the run loop, the end of a run
 *   mshare_fuzz_ops.c    one function per operation: pick, do, check, apply
 *   mshare_fuzz_mm.c     the operations of the rest of mm on regions: futex,
 *                        GUP, madvise, mlock, msync, /proc reads
 *   mshare_fuzz_region.c the operations that change a region for every
 *                        sharer: mprotect, a file moved in with mremap
 *   mshare_fuzz_model.c  the model: regions, names, processes, debugfs view
 *   mshare_fuzz_proc.c   the agent processes and the protocol to drive them
 *   mshare_fuzz_log.c    the numbered op log, and the kernel log reader
 *   mshare_fuzz_faults.c fault injection: which ops are armed, what an
 *                        injected failure changed, the counts
 */
#ifndef TESTS_MSHARE_FUZZ_H
#define TESTS_MSHARE_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mshare_util.h"

#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Region addresses: MSHARE_ADDR(100 + slot), away from the other tests. */
#define FZ_SLOT_BASE	100
#define FZ_SLOTS	16
#define FZ_ADDR(slot)	MSHARE_ADDR(FZ_SLOT_BASE + (slot))
/* Words checked per region or anonymous mapping, each in its own 2 MiB. */
#define FZ_SAMPLES	16
#define FZ_MAX_PROCS	8
#define FZ_FDS		4
/* File names fz0..fz5, in the root and in the directories fzd1, fzd2. */
#define FZ_NAMES	6
#define FZ_DIRS		3
#define FZ_PATHS	(FZ_NAMES * FZ_DIRS)
#define FZ_MAX_REGIONS	40
#define FZ_PATH_MAX	48
/* Pages of a region that files were moved into, at most */
#define FZ_FILE_PAGES	8
#define FZ_NAME_MAX	16
/*
 * The word of each 2 MiB span that a touch writes, one lane per process
 * touching at the same time: the last words of a page, never sample words.
 */
#define FZ_LANES		3
#define FZ_TOUCH_WORD(lane)	(PAGE - sizeof(long) * (1 + (lane)))
#define FZ_SAMPLE_WORDS		(PAGE / sizeof(long) - FZ_LANES)
/* An agent that takes longer than this to answer is hung. */
#define FZ_REPLY_TIMEOUT_MS	20000

/* ---- agents (mshare_fuzz_proc.c) ---- */

enum fz_cmd_op {
	FZC_OPEN,	/* open(path, flags, 0600) */
	FZC_CLOSE,	/* close(fd) */
	FZC_INFO,	/* read(fd, struct mshare_region_info) */
	FZC_MMAP,	/* open(path) unless fd >= 0; mmap(); close */
	FZC_ANON,	/* anonymous mmap, then read the sample words */
	FZC_MUNMAP,
	FZC_MPROTECT,
	FZC_MREMAP,	/* mremap(addr, len, arg, flags, arg2) */
	FZC_READ,	/* read words at addr + offs[i] */
	FZC_WRITE,	/* write vals[i] at addr + offs[i] */
	FZC_TOUCH,	/* a word in every 2 MiB of len (lane: off), read back */
	FZC_UNLINK,
	FZC_LINK,	/* link(path, path2) */
	FZC_RENAME,	/* renameat2(path, path2, flags) */
	FZC_MKDIR,
	FZC_RMDIR,
	FZC_FUTEX,	/* futex(addr, flags, arg, arg2 ms) */
	FZC_GUP,	/* enum fz_gup_how of words in process arg */
	FZC_MADVISE,	/* madvise(arg2, len, arg), then FZC_READ */
	FZC_MLOCK,	/* enum fz_lock_how (addr, len), then VmLck */
	FZC_MSYNC,	/* arg: fz_sync_how; msync(arg2, len, flags); READ */
	FZC_MOVE_FILE,	/* map path's first page shared, mremap it to addr */
	FZC_FORK,	/* fork; the child talks over the socket passed along */
	FZC_EXIT,	/* _exit(0), no reply */
};

struct fz_cmd {
	int op;
	int flags;
	int prot;
	int fd;
	unsigned long addr;
	unsigned long len;
	unsigned long arg;
	unsigned long arg2;
	unsigned long off;
	unsigned int n;
	unsigned long offs[FZ_SAMPLES];
	unsigned long vals[FZ_SAMPLES];
	char path[FZ_PATH_MAX];
	char path2[FZ_PATH_MAX];
	/* > 0: the agent arms fail-nth with it around the command */
	int fail_nth;
	unsigned int fail_op;	/* the op's number, for the log markers */
};

/* How FZC_GUP reaches the words of another process. */
enum fz_gup_how {
	FZG_READV,	/* process_vm_readv() */
	FZG_WRITEV,	/* process_vm_writev() */
	FZG_MEM_READ,	/* pread() of /proc/PID/mem: FOLL_FORCE */
	FZG_MEM_WRITE,	/* pwrite() of /proc/PID/mem */
	FZG_NR
};

enum fz_lock_how {
	FZL_MLOCK,
	FZL_MLOCK_ONFAULT,	/* mlock2(MLOCK_ONFAULT) */
	FZL_MUNLOCK,
	FZL_MLOCKALL,		/* mlockall(MCL_CURRENT | MCL_ONFAULT) */
	FZL_MUNLOCKALL,
	FZL_NR
};

/* FZC_MSYNC: arg says which call. */
enum fz_sync_how { FZY_MSYNC, FZY_FSYNC, FZY_FDATASYNC, FZY_NR };

/* Which step of a command failed. */
enum fz_stage { FZS_CALL, FZS_OPEN };

struct fz_reply {
	long ret;		/* the call's result, or -errno */
	int stage;		/* enum fz_stage of a failure */
	int fault_at;		/* the access that faulted (SIGSEGV/SIGBUS), or -1 */
	int signo;		/* its signal */
	unsigned long bad_words;	/* FZC_TOUCH: words that read back wrong */
	long vmlck_kb;		/* FZC_MLOCK: VmLck after the call, or -1 */
	unsigned long vals[FZ_SAMPLES];
	struct mshare_region_info info;
	int injected;		/* armed, and the fail_nth-th allocation came */
};

struct fz_agent {
	pid_t pid;
	int sock;		/* SOCK_SEQPACKET: one command, one reply */
};

int fz_agent_spawn(struct fz_agent *a);
/* @parent forks; its child becomes @child, a child of the caller too. */
int fz_agent_fork(struct fz_agent *parent, struct fz_agent *child,
		  const struct fz_cmd *c, struct fz_reply *r, int timeout_ms);
/* 0, -ETIMEDOUT (no reply in time), or -EPIPE (the agent is gone). */
int fz_agent_call(struct fz_agent *a, const struct fz_cmd *c,
		  struct fz_reply *r, int timeout_ms);
int fz_agent_send(struct fz_agent *a, const struct fz_cmd *c);
/* The reply to a command sent: 0, -ETIMEDOUT or -EPIPE. */
int fz_agent_recv(struct fz_agent *a, struct fz_reply *r, int timeout_ms);
/*
 * Reap the agent within @timeout_ms: 0 and its wait status, or -ETIMEDOUT
 * (it is left behind: a task asleep on a lock the kernel left held does
 * not die of SIGKILL).  The socket is closed either way.
 */
int fz_agent_reap(struct fz_agent *a, int timeout_ms, int *wstatus);
int fz_agent_exit(struct fz_agent *a, int timeout_ms, int *wstatus);
int fz_agent_kill(struct fz_agent *a, int timeout_ms, int *wstatus);

/* ---- the model (mshare_fuzz_model.c) ---- */

enum fz_slot_kind { FZ_EMPTY, FZ_REGION, FZ_ANON };

/* The vma flags madvise() sets that the model follows (smaps mnemonic). */
#define FZ_VM_RAND	0x1	/* MADV_RANDOM: "rr" */
#define FZ_VM_SEQ	0x2	/* MADV_SEQUENTIAL: "sr" */
#define FZ_VM_DONTCOPY	0x4	/* MADV_DONTFORK: "dc", fork leaves it out */
#define FZ_VM_DONTDUMP	0x8	/* MADV_DONTDUMP: "dd" */

/* What a process has at FZ_ADDR(slot), a whole unit each. */
struct fz_slot {
	enum fz_slot_kind kind;
	int region;		/* FZ_REGION: index in model.region[] */
	bool writable;
	bool maywrite;		/* FZ_REGION: from a file opened read-write */
	unsigned int vmflags;	/* FZ_VM_* */
	unsigned long anon[FZ_SAMPLES];	/* FZ_ANON: the sample words */
};

/*
 * A process asleep in FUTEX_WAIT on a sample word of a region: it takes
 * no command until a FUTEX_WAKE of that word, in any process that maps
 * the region, or SIGKILL.
 */
struct fz_wait {
	bool on;
	int region;
	int slot;
	unsigned int sample;
	unsigned int since;	/* the op that put it to sleep */
};

struct fz_fd {
	bool open;
	int region;
	bool writable;
	int agent_fd;		/* the descriptor's number in the agent */
};

struct fz_proc {
	bool live;
	int id;			/* P<id> in the log */
	struct fz_agent agent;
	struct fz_slot slot[FZ_SLOTS];
	struct fz_fd fd[FZ_FDS];
	struct fz_wait wait;
};

struct fz_region {
	bool live;		/* not freed yet: in the debugfs list */
	int id;			/* R<id> in the log */
	unsigned long seq;	/* creation order, the order debugfs lists */
	char name[FZ_NAME_MAX];	/* the name debugfs shows */
	int nlink;
	unsigned long ino;	/* its inode number: names re-read by stat() */
	int slot;		/* where it was first mapped, -1 before */
	bool writable;		/* its first mapping was: the region's vma is */
	unsigned long offs[FZ_SAMPLES];
	unsigned long vals[FZ_SAMPLES];
	/* Pages a file was moved into (mremap): a file's part for good */
	unsigned long file_pages[FZ_FILE_PAGES];
	unsigned int nr_file_pages;
};

struct fz_model {
	struct fz_proc proc[FZ_MAX_PROCS];
	struct fz_region region[FZ_MAX_REGIONS];
	int path_region[FZ_PATHS];	/* -1: no file there */
	bool dir_exists[FZ_DIRS];	/* [0] is the root */
	int next_proc_id;
	int next_region_id;
	unsigned long next_seq;
};

/* The offset of anonymous sample word i in a slot. */
unsigned long fz_anon_off(unsigned int i);

void fz_model_init(struct fz_model *m);
void fz_path(char *buf, size_t size, int path);
void fz_dir_path(char *buf, size_t size, int dir);
const char *fz_path_short(int path);	/* "fzd1/fz3", for the log */
int fz_path_dir(int path);
int fz_model_live_procs(const struct fz_model *m);
int fz_model_live_regions(const struct fz_model *m);
/* A free process entry, or -1. */
int fz_model_free_proc(const struct fz_model *m);
/* A new region named after @path; -1 if the table is full. */
int fz_model_new_region(struct fz_model *m, int path, uint64_t *rng);
int fz_model_vmas(const struct fz_model *m, int region);
int fz_model_fds(const struct fz_model *m, int region);
bool fz_model_dir_empty(const struct fz_model *m, int dir);
/* Forget regions with no name, no fd and no mapping left: freed. */
void fz_model_collect(struct fz_model *m);
void fz_model_set_slot_empty(struct fz_proc *p, int slot);
/*
 * Compare <debugfs>/mshare/regions (lines named fz*) with the model, for
 * up to ~2 s while they differ (a freed region may leave the list a little
 * after the call that freed it).  true if they match; else @why says how
 * they differ.
 */
bool fz_model_check_debugfs(const struct fz_model *m, char *why,
			    size_t size);

/* ---- the op log and the kernel log (mshare_fuzz_log.c) ---- */

void fz_log_init(void);
void fz_log_free(void);
/* Start op @no: what it is.  Tags say which process/regions it touches. */
void fz_log_op(unsigned int no, int proc, int region, int region2,
	       const char *fmt, ...) __printf(5, 6);
/* Append to the current op's line: its result. */
void fz_log_result(const char *fmt, ...) __printf(1, 2);
unsigned int fz_log_count(void);
/* The line of op @no, if it is still kept. */
const char *fz_log_line(unsigned int no);
/*
 * Print the sequence: every op if there are few, else those of @proc or
 * @region (-1: none) and the last ones.
 */
void fz_log_print(int proc, int region);

int fz_kmsg_open(void);
void fz_kmsg_close(void);
/*
 * Read new kernel log records: the first bad one in @first, or 0 found.
 * An injection's own lines are not bad inside an armed window
 * (kmsg_scan_text()), and are bad anywhere else.
 */
unsigned int fz_kmsg_check(char *first, size_t size);
/* The injections' lines met inside armed windows so far. */
unsigned int fz_kmsg_expected(void);

/* ---- fault injection (mshare_fuzz_faults.c) ---- */

/* How the armed ops of one kind ended. */
struct fz_fault_count {
	unsigned long armed;	/* fail-nth set before the op's syscalls */
	unsigned long injected;	/* the Nth allocation came and failed */
	unsigned long as_model;	/* injected, answered as without it */
	unsigned long unchanged;	/* failed, nothing changed */
	unsigned long reconciled;	/* failed, part of it happened */
};

struct fz_faults {
	unsigned int percent;	/* of the ops armed; 0: no injection */
	unsigned int kind;	/* the op's */
	uint64_t rng;		/* its own stream: the ops' picks stay */
	int arm_n;		/* for the op's first agent call, or 0 */
	bool armed;		/* this op's call went armed */
	bool injected;		/* the last reply's allocation failed */
	bool op_injected;	/* this op's armed call's did */
	int failed_err;		/* the errno the injection turned it into */
	struct fz_fault_count count[32];
};

struct fz_run;
struct fz_proc;

void fz_faults_init(struct fz_faults *f, unsigned int percent,
		    unsigned long seed);
/* Before op @kind: maybe arm its first agent call. */
void fz_faults_pick(struct fz_run *run, unsigned int kind);
/* In fz_call(): arm @c if the op is armed and not yet. */
void fz_faults_arm(struct fz_run *run, struct fz_cmd *c);
void fz_faults_reply(struct fz_run *run, const struct fz_reply *r);
/*
 * fz_expect_err(): @got instead of @want; true if an injected failure
 * explains it (the op then ends there, and fz_faults_end() reconciles).
 */
bool fz_faults_explain(struct fz_run *run, int want, int got);
/*
 * After the op (@ok: what it returned): count it; after a failure an
 * injection explained, re-read
 * from the kernel what the model cannot know (names, @p's mappings).
 * false if the kernel's state is one the model cannot hold.
 */
bool fz_faults_end(struct fz_run *run, unsigned int kind, struct fz_proc *p,
		   bool ok);
void fz_faults_print(const struct fz_run *run);
/* A region's inode number, 0 if @path has none. */
unsigned long fz_path_ino(int path);

/* ---- a run (mshare_fuzz.c, mshare_fuzz_ops.c) ---- */

struct fz_run {
	struct fz_model m;
	uint64_t rng;
	unsigned int no;		/* the current op's number */
	bool failed;
	char why[512];			/* what failed: want, got */
	int fail_proc;			/* P id, or -1 */
	int fail_region;		/* R id, or -1 */
	unsigned long kind_count[32];
	/* check_pss_sum()s with a sharer that sees the region, with two */
	unsigned long pss_sums, pss_sums_shared;
	struct fz_faults faults;
};

uint64_t fz_rand(uint64_t *state);
/* Uniform in [0, n). */
unsigned int fz_below(uint64_t *state, unsigned int n);
bool fz_chance(uint64_t *state, unsigned int percent);

/* ---- shared by the ops (mshare_fuzz_ops.c, mshare_fuzz_mm.c) ---- */

/* The value op @no writes at sample @i: never 0, what fresh memory reads. */
unsigned long fz_op_value(unsigned int no, unsigned int i);
/* R<id> of model region @i, or -1. */
int fz_rid(const struct fz_run *run, int i);
/* Number the op and log it: "P3 mmap fz2 (R4) at 103 rw". */
void fz_start_op(struct fz_run *run, unsigned int kind, struct fz_proc *p,
		 int region, int region2, const char *fmt, ...) __printf(6, 7);
/* How a process that stopped answering ended, or that it hangs. */
void fz_agent_lost(struct fz_run *run, struct fz_proc *p, int region,
		   int ret);
bool fz_call(struct fz_run *run, struct fz_proc *p, int region,
	     const struct fz_cmd *c, struct fz_reply *r);
/* The call's error against the model's; 0 means success. */
bool fz_expect_err(struct fz_run *run, struct fz_proc *p, int region,
		   int want, const struct fz_reply *r);
/* A live process that takes commands (not asleep in a futex), or NULL. */
struct fz_proc *fz_pick_proc(struct fz_run *run);
bool fz_proc_idle(const struct fz_proc *p);

typedef bool (*fz_slot_filter)(const struct fz_slot *s);
bool fz_slot_mapped(const struct fz_slot *s);
bool fz_slot_region(const struct fz_slot *s);
bool fz_slot_writable(const struct fz_slot *s);
bool fz_slot_free(const struct fz_slot *s);
/* A slot that passes @ok, or -1. */
int fz_pick_slot_if(struct fz_run *run, const struct fz_proc *p,
		    fz_slot_filter ok);
/* With @percent chance one that passes @ok (if any), else any slot. */
int fz_pick_slot(struct fz_run *run, const struct fz_proc *p,
		 fz_slot_filter ok, unsigned int percent);
int fz_pick_open_fd(struct fz_run *run, const struct fz_proc *p);
/* @n distinct samples, or all of them. */
unsigned int fz_pick_samples(struct fz_run *run, unsigned int *sample,
			     unsigned int all_percent);
/* The sample words of what a slot holds (anonymous ones if nothing). */
void fz_slot_offsets(const struct fz_run *run, const struct fz_slot *s,
		     unsigned long *offs);
unsigned long *fz_slot_values(struct fz_run *run, struct fz_slot *s);
const char *fz_slot_what(const struct fz_run *run, const struct fz_slot *s,
			 char *buf, size_t size);
/* Words read back: the first that differs from the model, or a fault. */
bool fz_expect_values(struct fz_run *run, struct fz_proc *p, int region,
		      const struct fz_cmd *c, const struct fz_reply *r,
		      const unsigned long *want_by_sample,
		      const unsigned int *sample);
bool fz_do_kill(struct fz_run *run, struct fz_proc *p);

/* The kinds of op; the table in mshare_fuzz_ops.c. */
enum fz_kind {
	K_CREATE, K_OPEN, K_CLOSE, K_INFO, K_MKDIR, K_RMDIR, K_UNLINK,
	K_LINK, K_RENAME, K_MMAP, K_ANON, K_MUNMAP, K_MPROTECT, K_MREMAP,
	K_READ, K_WRITE, K_TOUCH, K_TOUCH_MANY, K_SPAWN, K_FORK, K_EXIT,
	K_KILL, K_KILL_BUSY, K_FUTEX_WAIT, K_FUTEX_WAKE, K_GUP, K_MADVISE,
	K_MLOCK, K_MSYNC, K_PROCFS, K_MOVE_FILE, K_NR
};

/* ---- the ops of the rest of mm (mshare_fuzz_mm.c) ---- */

bool fz_op_futex_wait(struct fz_run *run, struct fz_proc *p);
bool fz_op_futex_wake(struct fz_run *run, struct fz_proc *p);
bool fz_op_gup(struct fz_run *run, struct fz_proc *p);
bool fz_op_madvise(struct fz_run *run, struct fz_proc *p);
bool fz_op_mlock(struct fz_run *run, struct fz_proc *p);
bool fz_op_msync(struct fz_run *run, struct fz_proc *p);
bool fz_op_procfs(struct fz_run *run, struct fz_proc *p);

/* ---- the ops that change a region for every sharer (mshare_fuzz_region.c) ---- */

bool fz_op_mprotect(struct fz_run *run, struct fz_proc *p);
bool fz_op_move_file(struct fz_run *run, struct fz_proc *p);
/*
 * Before each op: a sleeper that answered was woken by no one the model
 * knows of; one asleep for too long is woken (or killed).  false once the
 * run failed.
 */
bool fz_check_sleepers(struct fz_run *run);
/* Wake or kill every sleeper: the end of a run. */
bool fz_wake_all(struct fz_run *run);
/* fork(): what the child gets of a slot (MADV_DONTFORK: nothing). */
void fz_fork_slots(struct fz_proc *child, const struct fz_proc *parent);

/* Do one random op; false once the run failed. */
bool fz_do_op(struct fz_run *run);
const char *fz_kind_name(unsigned int kind);
unsigned int fz_kinds(void);
/* The end of a run: every process exits, every name goes. */
bool fz_finish(struct fz_run *run);
/* After a failure: kill what is left, remove names, without hanging. */
void fz_abandon(struct fz_run *run);
void fz_fail(struct fz_run *run, int proc, int region, const char *fmt, ...)
	__printf(4, 5);

#endif
