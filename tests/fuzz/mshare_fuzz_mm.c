// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's operations of the rest of mm on regions, and their model.
 * What the fixed kernel does (patches 0042 to 0046):
 *
 * - a shared futex in a region is keyed by the region and the offset in
 *   it: a FUTEX_WAKE through any mapping of the region wakes exactly the
 *   waiters on that word, whichever process they are in; a read-only
 *   sharer may wait.  A waiter sleeps across other ops (exit, kill,
 *   unlink, unmap and fork of the others) until a wake or its SIGKILL;
 * - a kernel page lookup (process_vm_readv/writev, /proc/PID/mem) never
 *   gives more than the mapping allows: a write through a read-only
 *   mapping is EFAULT (EIO from /proc/PID/mem, whose FOLL_FORCE does not
 *   break into a shared mapping);
 * - madvise() keeps a region's data; an advice that changes a vma flag on
 *   a part of a region's vma is EINVAL (the vma never splits), on all of
 *   it works; MADV_DONTFORK leaves the mapping out of a child;
 * - mlock() and mlockall() lock a whole region (VmLck counts it, smaps
 *   says "lo") until munlock(); mlock() of a part is EINVAL (the vma never
 *   splits);
 * - msync(), fsync() and fdatasync() of a region return 0.
 *
 * Anonymous slots take the advice and the lookups too, with upstream's
 * answers, beside the region's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>

#include "mount_util.h"
#include "mshare_fuzz.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

/* A sleeper's FUTEX_WAIT timeout: far longer than it is let sleep. */
#define SLEEP_TIMEOUT_MS	15000
/* Ops a sleeper may sleep through before the run wakes it. */
#define SLEEP_MAX_OPS		40
/* Sleepers at most: the others keep the run going. */
#define MAX_SLEEPERS		(FZ_MAX_PROCS - 3)
/* Time to be seen asleep in the futex, and to answer once woken. */
#define SLEEP_READY_MS		5000
#define WAKE_REPLY_MS		5000
/* The FUTEX_WAIT that must time out. */
#define SHORT_WAIT_MS		2
/* MADV_POPULATE_* allocate what they populate: never a whole region. */
#define POPULATE_PAGES		64
#define SMAPS_MAX		(128 << 10)
#define SMAPS_VMAS		256

/* ---- futexes ---- */

static int sleepers(const struct fz_model *m)
{
	int i, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		n += m->proc[i].live && m->proc[i].wait.on;
	return n;
}

/* The futex word: sample @k of the slot. */
static unsigned long futex_addr(const struct fz_run *run,
				const struct fz_slot *s, int slot,
				unsigned int k)
{
	unsigned long offs[FZ_SAMPLES];

	fz_slot_offsets(run, s, offs);
	return FZ_ADDR(slot) + offs[k];
}

/* What FUTEX_WAIT compares: the low 32 bits of the word. */
static unsigned int futex_val(const struct fz_run *run,
			      const struct fz_slot *s, unsigned int k)
{
	return s->kind == FZ_REGION ? run->m.region[s->region].vals[k] : 0;
}

static bool read_proc_file(pid_t pid, const char *name, char *buf,
			   size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return harness_read_file(path, buf, size) >= 0;
}

/* The state letter of /proc/PID/stat, or '?'. */
static char proc_state(pid_t pid)
{
	char text[512], *paren;

	if (!read_proc_file(pid, "stat", text, sizeof(text)))
		return '?';
	paren = strrchr(text, ')');
	return paren && paren[1] == ' ' ? paren[2] : '?';
}

/*
 * Sent FUTEX_WAIT: wait until its process sleeps in the futex, so that
 * what happens next finds it queued.  The send woke it from its wait for
 * a command; the next interruptible sleep ('S') on the way is the
 * futex's, which sets it under the lock a wake takes (UML has no wchan
 * to tell).  An answer instead means the futex did not wait.
 */
static bool fell_asleep(struct fz_run *run, struct fz_proc *p, int region)
{
	struct pollfd pfd = { .fd = p->agent.sock, .events = POLLIN };
	char state = '?';
	struct fz_reply r;
	int waited, ret;

	for (waited = 0; waited < SLEEP_READY_MS; waited++) {
		if (poll(&pfd, 1, 0) > 0) {
			ret = fz_agent_recv(&p->agent, &r, 0);
			if (ret) {
				fz_agent_lost(run, p, region, ret);
				return false;
			}
			fz_fail(run, p->id, fz_rid(run, region),
				"FUTEX_WAIT on the value the word holds: want it asleep, got %s at once",
				mshare_errname(r.ret < 0 ? -r.ret : 0));
			return false;
		}
		state = proc_state(p->agent.pid);
		if (state == 'S')
			return true;
		usleep(1000);
	}
	fz_fail(run, p->id, fz_rid(run, region),
		"P%d not asleep in FUTEX_WAIT after %d s (state %c)", p->id,
		SLEEP_READY_MS / 1000, state);
	return false;
}

/* A sleeper whose word @p can reach (maps its region), or -1. */
static int reachable_sleeper(struct fz_run *run, const struct fz_proc *p)
{
	int who[FZ_MAX_PROCS], n = 0, i;
	const struct fz_wait *w;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		w = &run->m.proc[i].wait;
		if (run->m.proc[i].live && w->on &&
		    p->slot[w->slot].kind == FZ_REGION &&
		    p->slot[w->slot].region == w->region)
			who[n++] = i;
	}
	return n ? who[fz_below(&run->rng, n)] : -1;
}

enum wait_how { FW_SLEEP, FW_CHANGED, FW_TIMEOUT, FW_NR };

static const char *const wait_how_name[FW_NR] = {
	"sleep", "changed word", "short timeout",
};

static int wait_err(const struct fz_slot *s, enum wait_how how)
{
	if (s->kind == FZ_EMPTY)
		return EFAULT;
	return how == FW_CHANGED ? EAGAIN : how == FW_TIMEOUT ? ETIMEDOUT : 0;
}

/*
 * FUTEX_WAIT on a sample word of a region: asleep until a wake (the
 * value the model says the word holds), EAGAIN at once (another value)
 * or ETIMEDOUT (a short timeout); EFAULT where nothing is mapped.  A
 * futex in anonymous memory is keyed by the page it finds: not modelled.
 */
/* Any word of a slot; often one another process sleeps on already. */
static int pick_wait_word(struct fz_run *run, struct fz_proc *p,
			  enum wait_how how, unsigned int *k)
{
	int slot = fz_pick_slot(run, p, fz_slot_region, 90);
	int w = fz_chance(&run->rng, 60) ? reachable_sleeper(run, p) : -1;

	*k = fz_below(&run->rng, FZ_SAMPLES);
	if (w < 0 || how != FW_SLEEP)
		return slot;
	*k = run->m.proc[w].wait.sample;
	return run->m.proc[w].wait.slot;
}

bool fz_op_futex_wait(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_FUTEX, .flags = FUTEX_WAIT };
	enum wait_how how = fz_chance(&run->rng, 60) ? FW_SLEEP :
			    1 + fz_below(&run->rng, FW_NR - 1);
	unsigned int k;
	int slot = pick_wait_word(run, p, how, &k);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	struct fz_reply r;
	char what[32];

	if (s->kind == FZ_ANON)
		return true;
	if (how == FW_SLEEP && (s->kind == FZ_EMPTY ||
				sleepers(&run->m) >= MAX_SLEEPERS))
		how = FW_TIMEOUT;
	c.addr = futex_addr(run, s, slot, k);
	c.arg = futex_val(run, s, k) ^ (how == FW_CHANGED);
	c.arg2 = how == FW_SLEEP ? SLEEP_TIMEOUT_MS : SHORT_WAIT_MS;
	fz_start_op(run, K_FUTEX_WAIT, p, region, -1, "at %d (%s) sample %u, %s",
		    slot, fz_slot_what(run, s, what, sizeof(what)), k,
		    wait_how_name[how]);
	if (how != FW_SLEEP)
		return fz_call(run, p, region, &c, &r) &&
		       fz_expect_err(run, p, region, wait_err(s, how), &r);
	if (fz_agent_send(&p->agent, &c)) {
		fz_agent_lost(run, p, region, -EPIPE);
		return false;
	}
	if (!fell_asleep(run, p, region))
		return false;
	p->wait = (struct fz_wait){ .on = true, .region = region,
				    .slot = slot, .sample = k,
				    .since = run->no };
	fz_log_result("asleep");
	return true;
}

/* The sleepers a wake of sample @k of @region reaches, by process index. */
static int sleepers_on(const struct fz_model *m, int region, unsigned int k,
		       int *who)
{
	const struct fz_wait *w;
	int i, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		w = &m->proc[i].wait;
		if (m->proc[i].live && w->on && w->region == region &&
		    w->sample == k)
			who[n++] = i;
	}
	return n;
}

/* Each woken sleeper answers 0: it was woken, not timed out. */
static bool collect_woken(struct fz_run *run, const int *who, int n)
{
	struct fz_proc *w;
	struct fz_reply r;
	int i, ret;

	for (i = 0; i < n; i++) {
		w = &run->m.proc[who[i]];
		ret = fz_agent_recv(&w->agent, &r, WAKE_REPLY_MS);
		if (ret == -ETIMEDOUT) {
			fz_fail(run, w->id, fz_rid(run, w->wait.region),
				"P%d, asleep on R%d sample %u since op #%u, not woken by the wake",
				w->id, fz_rid(run, w->wait.region),
				w->wait.sample, w->wait.since);
			return false;
		}
		if (ret) {
			fz_agent_lost(run, w, w->wait.region, ret);
			return false;
		}
		w->wait.on = false;
		if (r.ret) {
			fz_fail(run, w->id, fz_rid(run, w->wait.region),
				"P%d's FUTEX_WAIT: want 0 (woken), got %s",
				w->id, mshare_errname(-r.ret));
			return false;
		}
	}
	return true;
}

/*
 * FUTEX_WAKE of every waiter at sample @k of @slot in @p: those asleep on
 * that word of the region there, in any process; none in anonymous
 * memory; EFAULT where nothing is mapped.
 */
static bool do_wake(struct fz_run *run, struct fz_proc *p, int slot,
		    unsigned int k)
{
	struct fz_cmd c = { .op = FZC_FUTEX, .flags = FUTEX_WAKE,
			    .arg = INT_MAX };
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	int who[FZ_MAX_PROCS], n = 0;
	struct fz_reply r;

	if (region >= 0)
		n = sleepers_on(&run->m, region, k, who);
	c.addr = futex_addr(run, s, slot, k);
	if (!fz_call(run, p, region, &c, &r))
		return false;
	if (s->kind == FZ_EMPTY)
		return fz_expect_err(run, p, region, EFAULT, &r);
	if (r.ret != n) {
		fz_fail(run, p->id, fz_rid(run, region),
			"FUTEX_WAKE of sample %u: want %d woken, got %ld", k, n,
			r.ret);
		return false;
	}
	if (!collect_woken(run, who, n))
		return false;
	fz_log_result("woke %d", n);
	return true;
}

/* Mostly an idle process that can wake a sleeper, if there is one. */
static struct fz_proc *pick_waker(struct fz_run *run, struct fz_proc *p)
{
	struct fz_proc *who[FZ_MAX_PROCS];
	int i, n = 0;

	if (!fz_chance(&run->rng, 80))
		return p;
	for (i = 0; i < FZ_MAX_PROCS; i++)
		if (fz_proc_idle(&run->m.proc[i]) &&
		    reachable_sleeper(run, &run->m.proc[i]) >= 0)
			who[n++] = &run->m.proc[i];
	return n ? who[fz_below(&run->rng, n)] : p;
}

/*
 * FUTEX_WAKE, mostly of a sleeper's word by a process that maps its
 * region, else of any word of a slot: it must wake no one else.
 */
bool fz_op_futex_wake(struct fz_run *run, struct fz_proc *p)
{
	int w, slot;
	unsigned int k;
	struct fz_slot *s;
	char what[32];

	p = pick_waker(run, p);
	w = fz_chance(&run->rng, 90) ? reachable_sleeper(run, p) : -1;
	k = fz_below(&run->rng, FZ_SAMPLES);
	slot = fz_pick_slot(run, p, fz_slot_region, 80);

	if (w >= 0) {
		slot = run->m.proc[w].wait.slot;
		k = run->m.proc[w].wait.sample;
	}
	s = &p->slot[slot];
	if (s->kind == FZ_ANON)
		return true;
	fz_start_op(run, K_FUTEX_WAKE, p, s->kind == FZ_REGION ? s->region : -1,
		    -1, "at %d (%s) sample %u%s", slot,
		    fz_slot_what(run, s, what, sizeof(what)), k,
		    w >= 0 ? ", a sleeper's" : "");
	return do_wake(run, p, slot, k);
}

/* An idle process that maps @w's region, to wake it; or NULL. */
static struct fz_proc *waker_for(struct fz_run *run, const struct fz_wait *w)
{
	struct fz_proc *who[FZ_MAX_PROCS], *q;
	int i, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		q = &run->m.proc[i];
		if (fz_proc_idle(q) && q->slot[w->slot].kind == FZ_REGION &&
		    q->slot[w->slot].region == w->region)
			who[n++] = q;
	}
	return n ? who[fz_below(&run->rng, n)] : NULL;
}

/*
 * A sleeper's turn is over: a process that maps the region wakes it;
 * with none left (its region may have no name either), SIGKILL.
 */
static bool end_sleep(struct fz_run *run, struct fz_proc *p, const char *why)
{
	struct fz_proc *q = waker_for(run, &p->wait);
	char dbg[300];

	if (q) {
		fz_start_op(run, K_FUTEX_WAKE, q, p->wait.region, -1,
			    "at %d sample %u (P%d %s)", p->wait.slot,
			    p->wait.sample, p->id, why);
		return do_wake(run, q, p->wait.slot, p->wait.sample);
	}
	fz_start_op(run, K_KILL, p, p->wait.region, -1,
		    "(pid %d, asleep, %s, no one to wake it)", p->agent.pid,
		    why);
	if (!fz_do_kill(run, p))
		return false;
	if (!fz_model_check_debugfs(&run->m, dbg, sizeof(dbg))) {
		fz_fail(run, p->id, -1, "%s", dbg);
		return false;
	}
	return true;
}

/* A sleeper that answered before any wake the model knows of. */
static bool still_asleep(struct fz_run *run, struct fz_proc *p)
{
	struct pollfd pfd = { .fd = p->agent.sock, .events = POLLIN };
	struct fz_reply r;
	int ret;

	if (poll(&pfd, 1, 0) <= 0)
		return true;
	ret = fz_agent_recv(&p->agent, &r, 0);
	if (ret) {
		fz_agent_lost(run, p, p->wait.region, ret);
		return false;
	}
	fz_fail(run, p->id, fz_rid(run, p->wait.region),
		"P%d, asleep on R%d sample %u since op #%u, woke by itself: %s",
		p->id, fz_rid(run, p->wait.region), p->wait.sample,
		p->wait.since, mshare_errname(r.ret < 0 ? -r.ret : 0));
	return false;
}

bool fz_check_sleepers(struct fz_run *run)
{
	struct fz_proc *p;
	int i;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		p = &run->m.proc[i];
		if (p->live && p->wait.on && !still_asleep(run, p))
			return false;
	}
	for (i = 0; i < FZ_MAX_PROCS; i++) {
		p = &run->m.proc[i];
		if (p->live && p->wait.on &&
		    run->no - p->wait.since >= SLEEP_MAX_OPS &&
		    !end_sleep(run, p, "overdue"))
			return false;
	}
	return true;
}

bool fz_wake_all(struct fz_run *run)
{
	struct fz_proc *p;
	int i;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		p = &run->m.proc[i];
		if (p->live && p->wait.on && !end_sleep(run, p, "end of run"))
			return false;
	}
	return true;
}

/* ---- kernel page lookups of another process ---- */

static const char *const gup_name[FZG_NR] = {
	"process_vm_readv", "process_vm_writev", "/proc/PID/mem read",
	"/proc/PID/mem write",
};

/* Any live process, asleep or not: its mapping is looked up. */
static struct fz_proc *pick_target(struct fz_run *run)
{
	int live[FZ_MAX_PROCS], n = 0, i;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		if (run->m.proc[i].live)
			live[n++] = i;
	return &run->m.proc[live[fz_below(&run->rng, n)]];
}

/* No more than the mapping allows; /proc/PID/mem says EIO for all. */
static int gup_err(const struct fz_slot *s, enum fz_gup_how how)
{
	bool write = how == FZG_WRITEV || how == FZG_MEM_WRITE;
	bool mem = how == FZG_MEM_READ || how == FZG_MEM_WRITE;

	if (s->kind == FZ_EMPTY || (write && !fz_slot_writable(s)))
		return mem ? EIO : EFAULT;
	return 0;
}

/*
 * @p reads or writes sample words of @q's slot with the kernel's page
 * lookup: the values the model has, or the error of the protection.
 */
bool fz_op_gup(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_GUP };
	struct fz_proc *q = pick_target(run);
	enum fz_gup_how how = fz_below(&run->rng, FZG_NR);
	int slot = fz_pick_slot(run, q, fz_slot_mapped, 85);
	struct fz_slot *s = &q->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	bool write = how == FZG_WRITEV || how == FZG_MEM_WRITE;
	unsigned int sample[FZ_SAMPLES], i;
	unsigned long offs[FZ_SAMPLES], *vals;
	int want = gup_err(s, how);
	struct fz_reply r;
	char what[32];

	c.flags = how;
	c.arg = q->agent.pid;
	c.addr = FZ_ADDR(slot);
	c.n = fz_pick_samples(run, sample, 20);
	fz_slot_offsets(run, s, offs);
	fz_start_op(run, K_GUP, p, region, -1, "%s of P%d at %d (%s) %u words",
		    gup_name[how], q->id, slot,
		    fz_slot_what(run, s, what, sizeof(what)), c.n);
	for (i = 0; i < c.n; i++) {
		c.offs[i] = offs[sample[i]];
		c.vals[i] = fz_op_value(run->no, sample[i]);
	}
	if (!fz_call(run, p, region, &c, &r))
		return false;
	if (want || r.ret < 0)
		return fz_expect_err(run, p, region, want, &r);
	if (r.ret != (long)(c.n * sizeof(long))) {
		fz_fail(run, p->id, fz_rid(run, region),
			"%s: want %zu bytes, got %ld", gup_name[how],
			c.n * sizeof(long), r.ret);
		return false;
	}
	vals = fz_slot_values(run, s);
	if (!write)
		return fz_expect_values(run, p, region, &c, &r, vals, sample);
	for (i = 0; i < c.n; i++)
		vals[sample[i]] = c.vals[i];
	fz_log_result("ok");
	return true;
}

/* ---- madvise ---- */

struct advice {
	const char *name;
	int advice;
	bool valid;		/* this kernel takes it (no KSM, no THP) */
	unsigned int set, clear;	/* FZ_VM_* */
	int region_err;		/* on a region, part or all */
	bool anon;		/* modelled on anonymous memory */
	bool zeroes_anon;	/* MADV_DONTNEED */
	bool populate;		/* a few pages, never a GiB */
	bool thp;		/* transparent huge page advice */
};

#define ADV(a, ...)	{ .name = #a, .advice = a, .valid = true, __VA_ARGS__ }
#define ADV_INVALID(a)	{ .name = #a, .advice = a, .anon = true }
#define ADV_THP(a)	{ .name = #a, .advice = a, .anon = true, .thp = true }

/*
 * The table of tests/mshare_madvise.c, as the model applies it.  MADV_FREE
 * and MADV_WIPEONFORK of anonymous memory are left out: what FREE keeps
 * depends on reclaim, WIPEONFORK is one more flag a child would see.
 */
static const struct advice advices[] = {
	ADV(MADV_NORMAL, .clear = FZ_VM_RAND | FZ_VM_SEQ, .anon = true),
	ADV(MADV_RANDOM, .set = FZ_VM_RAND, .clear = FZ_VM_SEQ, .anon = true),
	ADV(MADV_SEQUENTIAL, .set = FZ_VM_SEQ, .clear = FZ_VM_RAND,
	    .anon = true),
	ADV(MADV_WILLNEED, .anon = true),
	ADV(MADV_DONTNEED, .anon = true, .zeroes_anon = true),
	ADV(MADV_FREE, .region_err = EINVAL),
	ADV(MADV_REMOVE, .region_err = EOPNOTSUPP),
	ADV(MADV_DONTFORK, .set = FZ_VM_DONTCOPY, .anon = true),
	ADV(MADV_DOFORK, .clear = FZ_VM_DONTCOPY, .anon = true),
	ADV(MADV_WIPEONFORK, .region_err = EINVAL),
	ADV(MADV_KEEPONFORK, .anon = true),
	ADV(MADV_DONTDUMP, .set = FZ_VM_DONTDUMP, .anon = true),
	ADV(MADV_DODUMP, .clear = FZ_VM_DONTDUMP, .anon = true),
	ADV_INVALID(MADV_MERGEABLE),
	ADV_INVALID(MADV_UNMERGEABLE),
	ADV_THP(MADV_HUGEPAGE),
	ADV_THP(MADV_NOHUGEPAGE),
	ADV_THP(MADV_COLLAPSE),
	ADV(MADV_COLD, .anon = true),
	ADV(MADV_PAGEOUT, .anon = true),
	ADV(MADV_POPULATE_READ, .anon = true, .populate = true),
	ADV(MADV_POPULATE_WRITE, .anon = true, .populate = true),
};

enum range_how { RG_WHOLE, RG_PAGE, RG_SPAN, RG_HALF, RG_NR };

static const char *const range_name[RG_NR] = {
	"all", "a page", "2 MiB", "second half",
};

struct range {
	enum range_how how;
	unsigned long addr, len;
};

/*
 * All of a slot, or a part of it around sample @k: its page, its 2 MiB,
 * or the second half of it.  @max_len bounds a part (populate).
 */
static void pick_range(struct fz_run *run, const struct fz_slot *s, int slot,
		       unsigned int k, unsigned long max_len, struct range *rg)
{
	unsigned long offs[FZ_SAMPLES];

	fz_slot_offsets(run, s, offs);
	rg->how = fz_below(&run->rng, RG_NR);
	rg->addr = FZ_ADDR(slot);
	rg->len = mshare_unit();
	if (rg->how == RG_PAGE) {
		rg->addr += offs[k] & ~(PAGE - 1);
		rg->len = PAGE;
	} else if (rg->how == RG_SPAN) {
		rg->addr += offs[k] & ~(PT_SPAN - 1);
		rg->len = PT_SPAN;
	} else if (rg->how == RG_HALF) {
		rg->addr += mshare_unit() / 2;
		rg->len = mshare_unit() / 2;
	}
	if (rg->len > max_len) {
		rg->how = RG_PAGE;
		rg->addr = (FZ_ADDR(slot) + offs[k]) & ~(PAGE - 1);
		rg->len = max_len;
		/*
		 * Within the slot: from the page of a sample in the unit's
		 * last max_len bytes, max_len would reach into the next slot
		 * (an mlock() there fails with ENOMEM if nothing is mapped).
		 */
		if (rg->addr + rg->len > FZ_ADDR(slot) + mshare_unit())
			rg->addr = FZ_ADDR(slot) + mshare_unit() - rg->len;
	}
}

static void whole_range(int slot, struct range *rg)
{
	rg->how = RG_WHOLE;
	rg->addr = FZ_ADDR(slot);
	rg->len = mshare_unit();
}

/* After the call, the agent reads every sample word of the slot. */
static void read_all_words(const struct fz_run *run, const struct fz_slot *s,
			   int slot, struct fz_cmd *c, unsigned int *all)
{
	unsigned int i;

	c->addr = FZ_ADDR(slot);
	c->n = s->kind == FZ_EMPTY ? 0 : FZ_SAMPLES;
	fz_slot_offsets(run, s, c->offs);
	for (i = 0; i < FZ_SAMPLES; i++)
		all[i] = i;
}

/* The errno of @a on @s, and the vma flags it leaves in @flags. */
static int advice_err(const struct advice *a, const struct fz_slot *s,
		      const struct range *rg, unsigned int *flags)
{
	*flags = (s->vmflags & ~a->clear) | a->set;
	if (!a->valid)
		return EINVAL;
	if (s->kind == FZ_EMPTY)
		return ENOMEM;
	/* Only a mapping that may write can punch a hole. */
	if (s->kind == FZ_REGION && a->advice == MADV_REMOVE && !s->maywrite)
		return EACCES;
	if (s->kind == FZ_REGION && a->region_err)
		return a->region_err;
	/* A lookup for writing through a read-only mapping: incompatible. */
	if (a->advice == MADV_POPULATE_WRITE && !fz_slot_writable(s))
		return EINVAL;
	/* A flag on part of a region's vma would split it. */
	if (s->kind == FZ_REGION && rg->how != RG_WHOLE &&
	    *flags != s->vmflags)
		return EINVAL;
	return 0;
}

static const struct advice *advice_of(int advice)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(advices); i++)
		if (advices[i].advice == advice)
			break;
	return &advices[i];
}

/*
 * A random advice the model follows on @s; MADV_DONTFORK (and DOFORK) a
 * good part of the time, so that forks meet it.
 */
/*
 * The model knows THP advice only as the invalid advice it is without
 * CONFIG_TRANSPARENT_HUGEPAGE (./linux).  With THP (the x86_64 target) it
 * has no model of what they do yet: they are not drawn there, and the
 * fuzzer says so once.
 */
static bool thp_unmodelled(void)
{
	static int thp = -1;

	if (thp < 0) {
		thp = harness_kernel_has_thp();
		if (thp)
			printf("mshare_fuzz: THP advice not drawn: this kernel has THP, the model does not\n");
	}
	return thp;
}

static const struct advice *pick_advice(struct fz_run *run,
					const struct fz_slot *s)
{
	const struct advice *a;

	if (fz_chance(&run->rng, 30))
		return advice_of(fz_chance(&run->rng, 65) ? MADV_DONTFORK :
				 MADV_DOFORK);
	do {
		a = &advices[fz_below(&run->rng, ARRAY_SIZE(advices))];
	} while ((s->kind == FZ_ANON && !a->anon) ||
		 (a->thp && thp_unmodelled()));
	return a;
}

/* MADV_DONTNEED of anonymous memory: what it drops reads 0 again. */
static void drop_anon(struct fz_slot *s, const struct range *rg, int slot)
{
	unsigned long at;
	unsigned int i;

	for (i = 0; i < FZ_SAMPLES; i++) {
		at = FZ_ADDR(slot) + fz_anon_off(i);
		if (at >= rg->addr && at < rg->addr + rg->len)
			s->anon[i] = 0;
	}
}

/*
 * madvise() of all or part of a slot, then a read of every sample word:
 * the answer of the table, and the data kept (or, of anonymous memory,
 * dropped by MADV_DONTNEED).
 */
bool fz_op_madvise(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MADVISE };
	int slot = fz_pick_slot(run, p, fz_slot_region, 80);
	struct fz_slot *s = &p->slot[slot];
	const struct advice *a = pick_advice(run, s);
	int region = s->kind == FZ_REGION ? s->region : -1;
	unsigned int k = fz_below(&run->rng, FZ_SAMPLES);
	static unsigned int all[FZ_SAMPLES];
	unsigned int flags;
	struct fz_reply r;
	struct range rg;
	char what[32];
	int want;

	pick_range(run, s, slot, k,
		   a->populate ? POPULATE_PAGES * PAGE : mshare_unit(), &rg);
	/*
	 * The model keeps flags per slot: anonymous ones change whole; a
	 * region's, mostly whole, since a part is refused.
	 */
	if ((a->set || a->clear) &&
	    (s->kind == FZ_ANON || fz_chance(&run->rng, 50)))
		whole_range(slot, &rg);
	want = advice_err(a, s, &rg, &flags);
	c.arg = a->advice;
	c.arg2 = rg.addr;
	c.len = rg.len;
	read_all_words(run, s, slot, &c, all);
	fz_start_op(run, K_MADVISE, p, region, -1, "%s at %d (%s) %s",
		    a->name, slot, fz_slot_what(run, s, what, sizeof(what)),
		    range_name[rg.how]);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, want, &r))
		return false;
	if (!want) {
		s->vmflags = flags;
		if (s->kind == FZ_ANON && a->zeroes_anon)
			drop_anon(s, &rg, slot);
	}
	return !c.n ||
	       fz_expect_values(run, p, region, &c, &r, fz_slot_values(run, s),
				all);
}

/* ---- /proc/PID/smaps and pagemap ---- */

struct smaps_vma {
	unsigned long start, end;
	char perms[8];
	unsigned long size_kb;
	unsigned long rss_kb, pss_kb;
	unsigned long shared_kb, private_kb;	/* _Clean plus _Dirty */
	char flags[160];	/* the VmFlags mnemonics, space separated */
};

/* The kB lines of a vma that the model reads, and where each adds up. */
static const struct {
	const char *key;
	size_t field;
} smaps_kb_lines[] = {
	{ "Size:", offsetof(struct smaps_vma, size_kb) },
	{ "Rss:", offsetof(struct smaps_vma, rss_kb) },
	{ "Pss:", offsetof(struct smaps_vma, pss_kb) },
	{ "Shared_Clean:", offsetof(struct smaps_vma, shared_kb) },
	{ "Shared_Dirty:", offsetof(struct smaps_vma, shared_kb) },
	{ "Private_Clean:", offsetof(struct smaps_vma, private_kb) },
	{ "Private_Dirty:", offsetof(struct smaps_vma, private_kb) },
};

/* A kB line of smaps_kb_lines[] added to @v: 1; another line: 0; -1. */
static int parse_kb_line(const char *line, struct smaps_vma *v)
{
	unsigned long kb;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smaps_kb_lines); i++) {
		size_t len = strlen(smaps_kb_lines[i].key);

		if (strncmp(line, smaps_kb_lines[i].key, len))
			continue;
		if (sscanf(line + len, "%lu kB", &kb) != 1)
			return -1;
		*(unsigned long *)((char *)v + smaps_kb_lines[i].field) += kb;
		return 1;
	}
	return 0;
}

/* One vma per header line, with its kB lines and VmFlags; count or -1. */
static int parse_smaps(const char *text, struct smaps_vma *v, int max)
{
	const char *line, *next;
	unsigned long a, b;
	char perms[8];
	int n = -1;

	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			next++;
		if (sscanf(line, "%lx-%lx %7s", &a, &b, perms) == 3) {
			if (++n == max)
				return -1;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].start = a;
			v[n].end = b;
			snprintf(v[n].perms, sizeof(v[n].perms), "%s", perms);
		} else if (n >= 0 && !strncmp(line, "VmFlags:", 8)) {
			snprintf(v[n].flags, sizeof(v[n].flags), " %.*s ",
				 (int)strcspn(line + 8, "\n"), line + 8);
		} else if (n >= 0 && parse_kb_line(line, &v[n]) < 0) {
			return -1;
		}
	}
	return n + 1;
}

static bool has_flag(const struct smaps_vma *v, const char *mn)
{
	char word[8];

	snprintf(word, sizeof(word), " %s ", mn);
	return strstr(v->flags, word);
}

static const struct {
	unsigned int bit;
	const char *mnemonic;
} vm_mnemonics[] = {
	{ FZ_VM_RAND, "rr" },
	{ FZ_VM_SEQ, "sr" },
	{ FZ_VM_DONTCOPY, "dc" },
	{ FZ_VM_DONTDUMP, "dd" },
};

/*
 * The vma of a slot against the model: exactly the unit for a region
 * (shared, writable as mapped), at least it for anonymous memory; the
 * madvise flags; "lo" only while @locked (mlockall).  A message in @why,
 * or "".
 */
static void check_vma(const struct fz_slot *s, const struct smaps_vma *v,
		      unsigned long addr, bool locked, char *why, size_t size)
{
	bool region = s->kind == FZ_REGION;
	unsigned int i;

	why[0] = '\0';
	if (region && (v->start != addr || v->end != addr + mshare_unit()))
		snprintf(why, size, "region vma %#lx-%#lx, want the unit",
			 v->start, v->end);
	else if (v->size_kb != (v->end - v->start) >> 10)
		snprintf(why, size, "Size %lu kB", v->size_kb);
	else if (strcmp(v->perms, !region ? "rw-p" : s->writable ? "rw-s" :
			"r--s"))
		snprintf(why, size, "perms %s", v->perms);
	else if (has_flag(v, "lo") != locked)
		snprintf(why, size, "VmFlags%s: want \"lo\" %s", v->flags,
			 locked ? "set" : "clear");
	for (i = 0; !why[0] && i < ARRAY_SIZE(vm_mnemonics); i++)
		if (has_flag(v, vm_mnemonics[i].mnemonic) !=
		    !!(s->vmflags & vm_mnemonics[i].bit))
			snprintf(why, size, "VmFlags%s: want \"%s\" %s",
				 v->flags, vm_mnemonics[i].mnemonic,
				 s->vmflags & vm_mnemonics[i].bit ? "set" :
				 "clear");
}

/* The vma that covers @addr, or NULL; one overlapping [addr, +unit) too. */
static const struct smaps_vma *vma_at(const struct smaps_vma *v, int n,
				      unsigned long addr, bool *overlap)
{
	int i;

	*overlap = false;
	for (i = 0; i < n; i++) {
		if (v[i].start <= addr && addr < v[i].end)
			return &v[i];
		*overlap |= v[i].start < addr + mshare_unit() &&
			    v[i].end > addr;
	}
	return NULL;
}

/* /proc/PID/smaps of @q against its slots; false after fz_fail(). */
/* /proc/PID/smaps of @q into @v: the vmas, or -1 after fz_fail(). */
static int read_smaps(struct fz_run *run, struct fz_proc *q,
		      struct smaps_vma *v)
{
	static char text[SMAPS_MAX];
	int n = -1;

	if (read_proc_file(q->agent.pid, "smaps", text, sizeof(text)) &&
	    strlen(text) < sizeof(text) - 1)
		n = parse_smaps(text, v, SMAPS_VMAS);
	if (n < 0)
		fz_fail(run, q->id, -1, "cannot read or parse /proc/%d/smaps",
			q->agent.pid);
	return n;
}

static bool check_smaps(struct fz_run *run, struct fz_proc *q, bool locked)
{
	static struct smaps_vma v[SMAPS_VMAS];
	const struct smaps_vma *at;
	char why[300];
	bool overlap;
	int n, slot;

	n = read_smaps(run, q, v);
	if (n < 0)
		return false;
	for (slot = 0; slot < FZ_SLOTS; slot++) {
		const struct fz_slot *s = &q->slot[slot];

		at = vma_at(v, n, FZ_ADDR(slot), &overlap);
		if (s->kind == FZ_EMPTY && !at && !overlap)
			continue;
		if (s->kind == FZ_EMPTY)
			snprintf(why, sizeof(why), "a vma where nothing is");
		else if (!at)
			snprintf(why, sizeof(why), "no vma");
		else
			check_vma(s, at, FZ_ADDR(slot), locked, why,
				  sizeof(why));
		if (why[0]) {
			fz_fail(run, q->id, fz_rid(run, s->kind == FZ_REGION ?
						   s->region : -1),
				"smaps of P%d at %d (%s): %s", q->id, slot,
				s->kind == FZ_EMPTY ? "nothing" :
				s->kind == FZ_ANON ? "anon" : "region", why);
			return false;
		}
	}
	return true;
}

/* One pagemap entry: read whole, never present and swapped at once. */
static bool entry_ok(int fd, const struct fz_slot *s, unsigned long addr,
		     uint64_t *ent)
{
	*ent = 0;
	if (harness_pagemap_entry(fd, addr, ent))
		return false;
	if ((*ent & (PM_PRESENT | PM_SWAP)) == (PM_PRESENT | PM_SWAP))
		return false;
	/* Nothing mapped: nothing there. */
	return s->kind != FZ_EMPTY || !*ent;
}

/* /proc/PID/pagemap at every sample word of @q. */
static bool check_pagemap(struct fz_run *run, struct fz_proc *q)
{
	unsigned long offs[FZ_SAMPLES];
	unsigned int slot, i;
	uint64_t ent;
	char path[48];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", q->agent.pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fz_fail(run, q->id, -1, "%s: %s", path, strerror(errno));
		return false;
	}
	for (slot = 0; slot < FZ_SLOTS; slot++) {
		fz_slot_offsets(run, &q->slot[slot], offs);
		for (i = 0; i < FZ_SAMPLES; i++) {
			if (entry_ok(fd, &q->slot[slot],
				     FZ_ADDR(slot) + offs[i], &ent))
				continue;
			close(fd);
			fz_fail(run, q->id, -1,
				"%s at %u, sample %u: bad entry %#llx", path,
				slot, i, (unsigned long long)ent);
			return false;
		}
	}
	close(fd);
	return true;
}

/*
 * One sharer's smaps of a region mapped by @mappers processes (patch
 * 0067): its pages count as mapped @mappers times, so Pss is Rss divided
 * by @mappers (less what the kB figure rounds off: up to 1 kB), and they
 * are Shared_* when several processes map the region, Private_* when one
 * does.  A message in @why, or "".
 */
static void check_sharer_pss(const struct smaps_vma *v, int mappers,
			     char *why, size_t size)
{
	bool shared = mappers > 1;

	why[0] = '\0';
	if (v->pss_kb * mappers > v->rss_kb ||
	    v->rss_kb - v->pss_kb * mappers > (unsigned long)mappers)
		snprintf(why, size, "Pss %lu kB of Rss %lu kB, want Rss / %d",
			 v->pss_kb, v->rss_kb, mappers);
	else if ((shared ? v->shared_kb : v->private_kb) != v->rss_kb ||
		 (shared ? v->private_kb : v->shared_kb))
		snprintf(why, size,
			 "Shared %lu kB, Private %lu kB of Rss %lu kB, want all %s (%d process%s map%s it)",
			 v->shared_kb, v->private_kb, v->rss_kb,
			 shared ? "Shared" : "Private", mappers,
			 shared ? "es" : "", shared ? "" : "s");
}

/* The sum of Pss of one region over its sharers. */
struct pss_sum {
	int mappers;		/* processes that map it, as the model says */
	int seen;		/* those whose smaps show its pages */
	unsigned long rss_kb;	/* what each of those shows: its resident size */
	unsigned long pss_kb;	/* their Pss of it, added up */
};

/*
 * Add up the Pss of @region over the processes that map it, checking
 * each; the pages of a sharer whose page tables do not lead to the
 * region's yet (no fault there since it mapped the region) are not in its
 * smaps: not seen.  false after fz_fail(); -EAGAIN in @again when two
 * sharers saw a different resident size (reclaim between the reads).
 */
static bool add_up_pss(struct fz_run *run, int region, struct pss_sum *sum,
		       bool *again)
{
	static struct smaps_vma v[SMAPS_VMAS];
	const struct smaps_vma *at;
	char why[200];
	bool overlap;
	int i, slot, n;

	*sum = (struct pss_sum){ .mappers = fz_model_vmas(&run->m, region) };
	*again = false;
	for (i = 0; i < FZ_MAX_PROCS; i++) {
		struct fz_proc *q = &run->m.proc[i];

		for (slot = 0; q->live && slot < FZ_SLOTS; slot++) {
			if (q->slot[slot].kind != FZ_REGION ||
			    q->slot[slot].region != region)
				continue;
			n = read_smaps(run, q, v);
			if (n < 0)
				return false;
			at = vma_at(v, n, FZ_ADDR(slot), &overlap);
			if (!at) {
				fz_fail(run, q->id, fz_rid(run, region),
					"smaps of P%d at %d: no vma", q->id,
					slot);
				return false;
			}
			if (!at->rss_kb)
				continue;
			check_sharer_pss(at, sum->mappers, why, sizeof(why));
			if (why[0]) {
				fz_fail(run, q->id, fz_rid(run, region),
					"smaps of P%d at %d: %s", q->id, slot,
					why);
				return false;
			}
			if (sum->seen++ && at->rss_kb != sum->rss_kb)
				*again = true;
			sum->rss_kb = at->rss_kb;
			sum->pss_kb += at->pss_kb;
		}
	}
	return true;
}

/* Reads of every sharer's smaps that may see reclaim between them. */
#define PSS_SUM_TRIES	3

/*
 * The sum of a region's Pss over its sharers is its resident size, less
 * the shares of the sharers that do not see its pages yet and what the kB
 * figures round off (up to 1 kB a sharer).  A region with a file moved in
 * is left out: those pages have mappings of their own besides it.
 */
static bool check_pss_sum(struct fz_run *run, int region)
{
	unsigned long want;
	struct pss_sum sum;
	bool again = true;
	int tries;

	if (run->m.region[region].nr_file_pages)
		return true;
	for (tries = 0; again && tries < PSS_SUM_TRIES; tries++)
		if (!add_up_pss(run, region, &sum, &again))
			return false;
	want = sum.rss_kb * sum.seen;
	if (!again && !sum.seen)
		return true;
	if (!again && sum.pss_kb * sum.mappers <= want &&
	    want - sum.pss_kb * sum.mappers <=
	    (unsigned long)(sum.mappers * sum.seen)) {
		run->pss_sums++;
		run->pss_sums_shared += sum.seen > 1;
		return true;
	}
	fz_fail(run, -1, fz_rid(run, region),
		"sum of Pss over %d of its %d sharers %lu kB, resident %lu kB%s",
		sum.seen, sum.mappers, sum.pss_kb, sum.rss_kb,
		again ? " (the sharers' Rss differ)" : "");
	return false;
}

/* The Pss sum of every region @q maps. */
static bool check_pss_sums(struct fz_run *run, struct fz_proc *q)
{
	int slot;

	for (slot = 0; slot < FZ_SLOTS; slot++)
		if (q->slot[slot].kind == FZ_REGION &&
		    !check_pss_sum(run, q->slot[slot].region))
			return false;
	return true;
}

/*
 * smaps and pagemap of a process (asleep or not), maybe while another
 * touches a region: its faults change the page tables being walked.
 * When none does, the sum of Pss of each region it maps, over every
 * process that maps it.
 */
bool fz_op_procfs(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_TOUCH, .len = MSHARE_TOUCH_LEN };
	struct fz_proc *q = pick_target(run);
	int slot = fz_chance(&run->rng, 50) ?
		   fz_pick_slot_if(run, p, fz_slot_writable) : -1;
	struct fz_reply r;
	int ret;

	fz_start_op(run, K_PROCFS, p, -1, -1, "smaps, pagemap of P%d%s%s", q->id,
		    slot >= 0 ? " while touching " : "",
		    slot >= 0 ? (p->slot[slot].kind == FZ_ANON ? "anon" :
				 "a region") : "");
	if (slot >= 0) {
		c.addr = FZ_ADDR(slot);
		if (p->slot[slot].kind == FZ_ANON)
			c.len = 128UL << 20;
		c.off = 0;
		c.arg = fz_op_value(run->no, FZ_SAMPLES);
		if (fz_agent_send(&p->agent, &c)) {
			fz_agent_lost(run, p, -1, -EPIPE);
			return false;
		}
	}
	if (!check_smaps(run, q, false) || !check_pagemap(run, q))
		return false;
	if (slot < 0) {
		if (!check_pss_sums(run, q))
			return false;
		fz_log_result("ok");
		return true;
	}
	ret = fz_agent_recv(&p->agent, &r, FZ_REPLY_TIMEOUT_MS);
	if (ret) {
		fz_agent_lost(run, p, -1, ret);
		return false;
	}
	if (r.fault_at >= 0 || r.bad_words) {
		fz_fail(run, p->id, -1,
			"touch: signal %d at 2 MiB span %d, %lu words read back wrong",
			r.signo, r.fault_at, r.bad_words);
		return false;
	}
	fz_log_result("ok");
	return true;
}

/* ---- mlock, msync ---- */

static const char *const lock_name[FZL_NR] = {
	"mlock", "mlock2 onfault", "munlock", "mlockall", "munlockall",
};

/* VmLck after the call: @want_kb (the agent locks nothing else) */
static bool expect_vmlck(struct fz_run *run, struct fz_proc *p, int region,
			 const struct fz_reply *r, long want_kb)
{
	if (r->vmlck_kb == want_kb)
		return true;
	fz_fail(run, p->id, fz_rid(run, region), "VmLck %ld kB, want %ld",
		r->vmlck_kb, want_kb);
	return false;
}

static bool expect_unlocked(struct fz_run *run, struct fz_proc *p,
			    int region, const struct fz_reply *r)
{
	return expect_vmlck(run, p, region, r, 0);
}

/*
 * mlockall(MCL_CURRENT | MCL_ONFAULT): anonymous memory and regions are
 * locked (and so "lo" in smaps; on fault, so no GiB is allocated); then
 * munlockall() leaves nothing locked.
 */
static bool lock_all(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MLOCK, .flags = FZL_MLOCKALL };
	struct fz_reply r;

	fz_start_op(run, K_MLOCK, p, -1, -1, "mlockall, smaps, munlockall");
	if (!fz_call(run, p, -1, &c, &r) || !fz_expect_err(run, p, -1, 0, &r) ||
	    !check_smaps(run, p, true))
		return false;
	c.flags = FZL_MUNLOCKALL;
	return fz_call(run, p, -1, &c, &r) &&
	       fz_expect_err(run, p, -1, 0, &r) &&
	       expect_unlocked(run, p, -1, &r);
}

/*
 * mlockall() populated a whole region until 0064 of the series: not one
 * larger than what a test touches (x86-64's 512 GiB), only UML's GiB.
 * The draws stay as they were, so that a seed replays the same run.
 */
static bool whole_lock_fits(void)
{
	return mshare_unit() <= MSHARE_TOUCH_LEN;
}

static int regions_mapped(const struct fz_proc *p)
{
	int slot, n = 0;

	for (slot = 0; slot < FZ_SLOTS; slot++)
		n += p->slot[slot].kind == FZ_REGION;
	return n;
}

/*
 * mlock() or mlock2() of a whole region locks it (VmLck counts the unit)
 * until the munlock() that follows at once; of a part, EINVAL, as the
 * region's vma never splits.  munlock() of an unlocked region, all or
 * part, changes nothing: 0.  ENOMEM where nothing is mapped.  Anonymous
 * memory would be locked and populated for real: left out.  mlock() and
 * mlockall() populated a region (zero pages, up to 1 s a GiB) until 0064:
 * a GiB (at most: MSHARE_TOUCH_LEN) or half of one is locked rarely,
 * mlockall() by a process with one region rarely (and only on UML), with
 * more never.  The draws stay as they were, so that a seed replays.
 */
bool fz_op_mlock(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MLOCK };
	enum fz_lock_how how = fz_below(&run->rng, FZL_NR);
	int slot = fz_pick_slot(run, p, fz_slot_region, 85);
	unsigned int k = fz_below(&run->rng, FZ_SAMPLES);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	struct fz_reply r;
	struct range rg;
	char what[32];

	if ((how == FZL_MLOCKALL || how == FZL_MUNLOCKALL) &&
	    (!regions_mapped(p) ||
	     (regions_mapped(p) == 1 && whole_lock_fits() &&
	      fz_chance(&run->rng, 10))))
		return lock_all(run, p);
	if (how == FZL_MLOCKALL || how == FZL_MUNLOCKALL)
		how = FZL_MUNLOCK;
	if (s->kind == FZ_ANON)
		return true;
	pick_range(run, s, slot, k, how == FZL_MUNLOCK ||
		   fz_chance(&run->rng, 5) ? MSHARE_TOUCH_LEN : PT_SPAN, &rg);
	c.flags = how;
	c.addr = rg.addr;
	c.len = rg.len;
	fz_start_op(run, K_MLOCK, p, region, -1, "%s at %d (%s) %s",
		    lock_name[how], slot,
		    fz_slot_what(run, s, what, sizeof(what)),
		    range_name[rg.how]);
	if (s->kind == FZ_EMPTY || how == FZL_MUNLOCK)
		return fz_call(run, p, region, &c, &r) &&
		       fz_expect_err(run, p, region,
				     s->kind == FZ_EMPTY ? ENOMEM : 0, &r) &&
		       expect_unlocked(run, p, region, &r);
	if (rg.len != mshare_unit())
		return fz_call(run, p, region, &c, &r) &&
		       fz_expect_err(run, p, region, EINVAL, &r) &&
		       expect_unlocked(run, p, region, &r);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, 0, &r) ||
	    !expect_vmlck(run, p, region, &r, mshare_unit() >> 10))
		return false;
	c.flags = FZL_MUNLOCK;
	return fz_call(run, p, region, &c, &r) &&
	       fz_expect_err(run, p, region, 0, &r) &&
	       expect_unlocked(run, p, region, &r);
}

static const struct {
	int flags;
	const char *name;
} msync_flags[] = {
	{ MS_SYNC, "sync" },
	{ MS_ASYNC, "async" },
	{ MS_SYNC | MS_INVALIDATE, "sync|invalidate" },
	{ MS_INVALIDATE, "invalidate" },
	{ MS_SYNC | MS_ASYNC, "sync|async" },	/* EINVAL */
};

static int msync_err(const struct fz_slot *s, int flags)
{
	if ((flags & MS_SYNC) && (flags & MS_ASYNC))
		return EINVAL;
	return s->kind == FZ_EMPTY ? ENOMEM : 0;
}

/* fsync() or fdatasync() of a region file: 0. */
static bool sync_fd(struct fz_run *run, struct fz_proc *p, int f)
{
	struct fz_cmd c = { .op = FZC_MSYNC };
	int region = p->fd[f].region;
	struct fz_reply r;

	c.arg = fz_chance(&run->rng, 50) ? FZY_FSYNC : FZY_FDATASYNC;
	c.fd = p->fd[f].agent_fd;
	fz_start_op(run, K_MSYNC, p, region, -1, "%s fd %d (R%d)",
		    c.arg == FZY_FSYNC ? "fsync" : "fdatasync", c.fd,
		    fz_rid(run, region));
	return fz_call(run, p, region, &c, &r) &&
	       fz_expect_err(run, p, region, 0, &r);
}

/* msync() of all or part of a slot: 0, and the data as it was. */
bool fz_op_msync(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MSYNC, .arg = FZY_MSYNC };
	int f = fz_chance(&run->rng, 25) ? fz_pick_open_fd(run, p) : -1;
	int slot = fz_pick_slot(run, p, fz_slot_mapped, 85);
	unsigned int k = fz_below(&run->rng, FZ_SAMPLES);
	unsigned int how = fz_below(&run->rng, ARRAY_SIZE(msync_flags));
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	static unsigned int all[FZ_SAMPLES];
	struct fz_reply r;
	struct range rg;
	char what[32];

	if (f >= 0)
		return sync_fd(run, p, f);
	pick_range(run, s, slot, k, mshare_unit(), &rg);
	c.flags = msync_flags[how].flags;
	c.arg2 = rg.addr;
	c.len = rg.len;
	read_all_words(run, s, slot, &c, all);
	fz_start_op(run, K_MSYNC, p, region, -1, "%s at %d (%s) %s",
		    msync_flags[how].name, slot,
		    fz_slot_what(run, s, what, sizeof(what)),
		    range_name[rg.how]);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, msync_err(s, c.flags), &r))
		return false;
	return !c.n ||
	       fz_expect_values(run, p, region, &c, &r, fz_slot_values(run, s),
				all);
}

/* ---- fork ---- */

void fz_fork_slots(struct fz_proc *child, const struct fz_proc *parent)
{
	int slot;

	memcpy(child->slot, parent->slot, sizeof(child->slot));
	for (slot = 0; slot < FZ_SLOTS; slot++)
		if (child->slot[slot].vmflags & FZ_VM_DONTCOPY)
			fz_model_set_slot_empty(child, slot);
}
