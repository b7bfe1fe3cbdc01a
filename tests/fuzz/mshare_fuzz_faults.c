// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer with fault injection (harness.fuzz_faults=PERCENT, `make fuzz
 * FAULTS=1`): before that share of its ops, drawn from a stream of the
 * seed's own (the ops' picks are those of the run without faults until
 * an injected failure changes the model), the op's first agent call is
 * armed with /proc/thread-self/fail-nth = N, N from 1 to FZ_FAULT_MAX_N:
 * the agent's Nth slab or page allocation inside the call fails, between
 * the kernel log markers of tests/fail_nth.c, where the log checks accept
 * the injection's own lines (harness/kmsg_patterns.c, the sweep's list).
 *
 * The model knows what a failed allocation may do: the call fails with
 * ENOMEM (fork: EAGAIN too) or succeeds as if nothing happened; any other
 * answer fails the run.  A call that failed may still have done part of
 * its work (a file created before its open failed, a MAP_FIXED mapping
 * that took the old one with it): the model re-reads what it cannot know
 * from the kernel - the names and directories by stat() (regions by
 * inode number), the process's mappings from /proc/PID/maps - and the
 * debugfs check after the op holds the kernel to the result.
 *
 * Ops not armed: spawn (the test forks, not an agent), exit and kill
 * (nothing returns), futex-wait (it would sleep armed), futex-wake (a
 * failed wake leaves sleepers the model counts as woken), touch-many and
 * kill-busy (several agents at once), gup, madvise and mlock (a failure
 * part way through a range leaves words or flags the model cannot re-read
 * cheaply), procfs (the test reads, not an agent), mprotect and
 * move-file (a region's protection or layout changed part way, over
 * several of the region's vmas, is not in any file the model could
 * re-read but <debugfs>/mshare/layout, and their checks in other
 * processes assume the change was made whole).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "mshare_fuzz.h"

/* fail-nth from 1 to this: a fork has ~90 allocations, most calls < 20. */
#define FZ_FAULT_MAX_N	32

static bool armable(unsigned int kind)
{
	switch (kind) {
	case K_CREATE: case K_OPEN: case K_CLOSE: case K_INFO: case K_MKDIR:
	case K_RMDIR: case K_UNLINK: case K_LINK: case K_RENAME: case K_MMAP:
	case K_ANON: case K_MUNMAP: case K_MREMAP:
	case K_READ: case K_WRITE: case K_TOUCH: case K_FORK: case K_MSYNC:
		return true;
	default:
		return false;
	}
}

void fz_faults_init(struct fz_faults *f, unsigned int percent,
		    unsigned long seed)
{
	memset(f, 0, sizeof(*f));
	f->percent = percent;
	f->rng = seed ^ 0xfa17fa17fa17fa17ULL;
}

void fz_faults_pick(struct fz_run *run, unsigned int kind)
{
	struct fz_faults *f = &run->faults;

	f->kind = kind;
	f->arm_n = 0;
	f->armed = f->injected = f->op_injected = false;
	f->failed_err = 0;
	if (!f->percent || !armable(kind) ||
	    fz_below(&f->rng, 100) >= f->percent)
		return;
	f->arm_n = 1 + fz_below(&f->rng, FZ_FAULT_MAX_N);
}

void fz_faults_arm(struct fz_run *run, struct fz_cmd *c)
{
	struct fz_faults *f = &run->faults;

	if (f->arm_n <= 0 || f->armed)
		return;
	c->fail_nth = f->arm_n;
	c->fail_op = run->no;
	f->armed = true;
	fz_log_result("fail-nth %d", f->arm_n);
}

void fz_faults_reply(struct fz_run *run, const struct fz_reply *r)
{
	struct fz_faults *f = &run->faults;

	f->injected = r->injected;
	f->op_injected |= !!r->injected;
}

bool fz_faults_explain(struct fz_run *run, int want, int got)
{
	struct fz_faults *f = &run->faults;

	if (!f->injected ||
	    !(got == ENOMEM || (got == EAGAIN && f->kind == K_FORK)))
		return false;
	f->failed_err = got;
	fz_log_result("%s (want %s): the injected failure",
		      mshare_errname(got), mshare_errname(want));
	return true;
}

unsigned long fz_path_ino(int path)
{
	char buf[FZ_PATH_MAX];
	struct stat st;

	fz_path(buf, sizeof(buf), path);
	return stat(buf, &st) ? 0 : st.st_ino;
}

static int region_of_ino(const struct fz_model *m, unsigned long ino)
{
	int i;

	for (i = 0; i < FZ_MAX_REGIONS; i++)
		if (m->region[i].live && m->region[i].ino == ino)
			return i;
	return -1;
}

/*
 * The names and directories as the kernel has them.  A region a failed
 * create left behind is a new one; after a rename, a region under a name
 * it did not have is named after it, as debugfs names it.
 */
static bool resync_names(struct fz_run *run, bool renamed, bool *changed)
{
	struct fz_model *m = &run->m;
	int before[FZ_PATHS], path, d, r;
	char buf[FZ_PATH_MAX];
	unsigned long ino;
	bool there;

	for (d = 1; d < FZ_DIRS; d++) {
		fz_dir_path(buf, sizeof(buf), d);
		there = !access(buf, F_OK);
		*changed |= there != m->dir_exists[d];
		m->dir_exists[d] = there;
	}
	memcpy(before, m->path_region, sizeof(before));
	for (path = 0; path < FZ_PATHS; path++) {
		ino = fz_path_ino(path);
		r = ino ? region_of_ino(m, ino) : -1;
		if (ino && r < 0) {
			r = fz_model_new_region(m, path, &run->rng);
			if (r < 0) {
				fz_fail(run, -1, -1, "after an injected failure: %s is a region the model has no room for",
					fz_path_short(path));
				return false;
			}
			m->region[r].ino = ino;
			fz_log_result("%s is R%d", fz_path_short(path),
				      m->region[r].id);
		}
		m->path_region[path] = r;
		if (r == before[path])
			continue;
		*changed = true;
		if (renamed && r >= 0)
			snprintf(m->region[r].name, FZ_NAME_MAX, "fz%d",
				 path % FZ_NAMES);
	}
	for (r = 0; r < FZ_MAX_REGIONS; r++) {
		m->region[r].nlink = 0;
		for (path = 0; path < FZ_PATHS; path++)
			m->region[r].nlink += m->path_region[path] == r;
	}
	return true;
}

/* Which slots of @pid have anything mapped, from /proc/PID/maps. */
static bool kernel_slots(pid_t pid, bool *mapped)
{
	unsigned long start, end, lo, hi;
	char path[64], line[512];
	FILE *f;
	int s;

	memset(mapped, 0, FZ_SLOTS * sizeof(*mapped));
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx", &start, &end) != 2)
			continue;
		for (s = 0; s < FZ_SLOTS; s++) {
			lo = FZ_ADDR(s);
			hi = lo + mshare_unit();
			mapped[s] |= start < hi && end > lo;
		}
	}
	fclose(f);
	return true;
}

/*
 * @p's mappings as the kernel has them: one the failed call took away
 * goes from the model too.  One the model does not know of cannot be
 * modelled: the run fails.
 */
static bool resync_slots(struct fz_run *run, struct fz_proc *p,
			 bool *changed)
{
	bool mapped[FZ_SLOTS];
	int s;

	if (!p || !p->live)
		return true;
	if (!kernel_slots(p->agent.pid, mapped)) {
		fz_fail(run, p->id, -1, "cannot read P%d's maps", p->id);
		return false;
	}
	for (s = 0; s < FZ_SLOTS; s++) {
		if (mapped[s] == (p->slot[s].kind != FZ_EMPTY))
			continue;
		if (mapped[s]) {
			fz_fail(run, p->id, -1, "after an injected failure, P%d has a mapping at %d the model does not",
				p->id, s);
			return false;
		}
		fz_model_set_slot_empty(p, s);
		fz_log_result("slot %d unmapped", s);
		*changed = true;
	}
	return true;
}

bool fz_faults_end(struct fz_run *run, unsigned int kind, struct fz_proc *p,
		   bool ok)
{
	struct fz_faults *f = &run->faults;
	struct fz_fault_count *n = &f->count[kind];
	bool armed = f->armed, changed = false;
	int err = f->failed_err;

	f->arm_n = 0;
	f->armed = f->injected = false;
	f->failed_err = 0;
	if (run->failed || (!ok && !err))
		return false;
	if (!armed)
		return true;
	n->armed++;
	if (!f->op_injected)
		return true;
	n->injected++;
	if (!err) {
		n->as_model++;
		return true;
	}
	if (!resync_names(run, kind == K_RENAME, &changed) ||
	    !resync_slots(run, p, &changed))
		return false;
	fz_model_collect(&run->m);
	if (changed) {
		n->reconciled++;
		fz_log_result("part of it happened: model re-read");
		/* Rare, and what the model had to learn: say what it was. */
		printf("mshare_fuzz: faults: partly done: %s\n",
		       fz_log_line(run->no) ?: "?");
	} else {
		n->unchanged++;
		fz_log_result("nothing changed");
	}
	return true;
}

void fz_faults_print(const struct fz_run *run)
{
	const struct fz_faults *f = &run->faults;
	struct fz_fault_count sum = { 0 };
	const struct fz_fault_count *n;
	unsigned int k;

	if (!f->percent)
		return;
	for (k = 0; k < fz_kinds(); k++) {
		n = &f->count[k];
		sum.armed += n->armed;
		sum.injected += n->injected;
		sum.as_model += n->as_model;
		sum.unchanged += n->unchanged;
		sum.reconciled += n->reconciled;
	}
	printf("mshare_fuzz: faults: %lu of %u ops armed (%u%% of the armable kinds, fail-nth 1..%d), %lu failures injected\n",
	       sum.armed, run->no, f->percent, FZ_FAULT_MAX_N, sum.injected);
	printf("mshare_fuzz: faults: %-10s %7s %8s %9s %14s %16s\n", "op", "armed",
	       "injected", "as-model", "failed,nothing", "failed,partly");
	for (k = 0; k < fz_kinds(); k++) {
		n = &f->count[k];
		if (!n->armed)
			continue;
		printf("mshare_fuzz: faults: %-10s %7lu %8lu %9lu %14lu %16lu\n",
		       fz_kind_name(k), n->armed, n->injected, n->as_model,
		       n->unchanged, n->reconciled);
	}
	printf("mshare_fuzz: faults: %-10s %7lu %8lu %9lu %14lu %16lu\n", "all",
	       sum.armed, sum.injected, sum.as_model, sum.unchanged,
	       sum.reconciled);
}
