// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's operations.  Each one picks its process and arguments with
 * the run's random generator, works out from the model what the fixed
 * kernel must answer, has an agent do it, compares, and on success
 * applies it to the model.  The picks depend only on the seed and the
 * model, so a seed replays the same sequence as long as the kernel gives
 * the expected answers - up to the first op where it does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_fuzz.h"

/* Time for a process to die once killed or told to exit. */
#define REAP_TIMEOUT_MS	10000
/* A touch of an anonymous GiB would cost 4 MiB per process and slot. */
#define ANON_TOUCH_LEN	(128UL << 20)

uint64_t fz_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int fz_below(uint64_t *state, unsigned int n)
{
	return n ? fz_rand(state) % n : 0;
}

bool fz_chance(uint64_t *state, unsigned int percent)
{
	return fz_below(state, 100) < percent;
}

/* The value op @no writes at sample @i: never 0, what fresh memory reads. */
unsigned long fz_op_value(unsigned int no, unsigned int i)
{
	uint64_t s = ((uint64_t)no << 8) | i;

	return fz_rand(&s) | 1;
}

static const char *err_name(int err, char *buf, size_t size)
{
	snprintf(buf, size, "%s", mshare_errname(err));
	return buf;
}

void fz_fail(struct fz_run *run, int proc, int region, const char *fmt, ...)
{
	va_list ap;

	if (run->failed)
		return;
	run->failed = true;
	run->fail_proc = proc;
	run->fail_region = region;
	va_start(ap, fmt);
	vsnprintf(run->why, sizeof(run->why), fmt, ap);
	va_end(ap);
	fz_log_result("FAILED: %s", run->why);
}

/* R<id> of model region @i, or -1. */
int fz_rid(const struct fz_run *run, int i)
{
	return i >= 0 ? run->m.region[i].id : -1;
}

/* Number the op and log it: "P3 mmap fz2 (R4) at 103 rw". */
void fz_start_op(struct fz_run *run, unsigned int kind, struct fz_proc *p,
		 int region, int region2, const char *fmt, ...)
{
	char text[160];
	va_list ap;

	run->no++;
	run->kind_count[kind]++;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fz_log_op(run->no, p ? p->id : -1, fz_rid(run, region),
		  fz_rid(run, region2), "P%d %s %s", p ? p->id : 0,
		  fz_kind_name(kind), text);
}

/* Where a hung process is: its state and its kernel stack. */
static void print_hung(pid_t pid)
{
	static const char *const files[] = { "wchan", "syscall", "stack" };
	char path[64], text[2048];
	const char *state;
	unsigned int i;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (harness_read_file(path, text, sizeof(text)) >= 0) {
		state = strstr(text, "State:");
		if (state)
			printf("mshare_fuzz: pid %d %.*s\n", pid,
			       (int)strcspn(state, "\n"), state);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, files[i]);
		if (harness_read_file(path, text, sizeof(text)) >= 0)
			printf("mshare_fuzz: pid %d %s: %s\n", pid, files[i],
			       text);
	}
}

/* How a process that stopped answering ended, or that it hangs. */
void fz_agent_lost(struct fz_run *run, struct fz_proc *p, int region,
		   int ret)
{
	int wstatus = 0;

	if (ret == -ETIMEDOUT) {
		print_hung(p->agent.pid);
		fz_fail(run, p->id, fz_rid(run, region),
			"P%d (pid %d) gave no answer in %d s: hung in the kernel?",
			p->id, p->agent.pid, FZ_REPLY_TIMEOUT_MS / 1000);
		return;
	}
	if (fz_agent_reap(&p->agent, REAP_TIMEOUT_MS, &wstatus))
		fz_fail(run, p->id, fz_rid(run, region),
			"P%d (pid %d) closed its socket but did not end",
			p->id, p->agent.pid);
	else if (WIFSIGNALED(wstatus))
		fz_fail(run, p->id, fz_rid(run, region),
			"P%d died of signal %d (%s)", p->id,
			WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
	else
		fz_fail(run, p->id, fz_rid(run, region),
			"P%d exited with %d instead of answering", p->id,
			WEXITSTATUS(wstatus));
	p->live = false;
}

bool fz_call(struct fz_run *run, struct fz_proc *p, int region,
	     const struct fz_cmd *c, struct fz_reply *r)
{
	struct fz_cmd armed = *c;
	int ret;

	fz_faults_arm(run, &armed);
	ret = fz_agent_call(&p->agent, &armed, r, FZ_REPLY_TIMEOUT_MS);
	if (ret)
		fz_agent_lost(run, p, region, ret);
	else
		fz_faults_reply(run, r);
	return !ret;
}

/* The call's error against the model's; 0 means success. */
bool fz_expect_err(struct fz_run *run, struct fz_proc *p, int region,
		   int want, const struct fz_reply *r)
{
	int got = r->ret < 0 ? (int)-r->ret : 0;
	char w[32], g[32];

	if (got == want) {
		fz_log_result("%s", err_name(want, w, sizeof(w)));
		return true;
	}
	if (fz_faults_explain(run, want, got))
		return false;
	fz_fail(run, p->id, fz_rid(run, region), "want %s, got %s%s",
		err_name(want, w, sizeof(w)), err_name(got, g, sizeof(g)),
		r->stage == FZS_OPEN ? " (from open)" : "");
	return false;
}

/* ---- picking ---- */

bool fz_proc_idle(const struct fz_proc *p)
{
	return p->live && !p->wait.on;
}

struct fz_proc *fz_pick_proc(struct fz_run *run)
{
	int live[FZ_MAX_PROCS], n = 0, i;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		if (fz_proc_idle(&run->m.proc[i]))
			live[n++] = i;
	return n ? &run->m.proc[live[fz_below(&run->rng, n)]] : NULL;
}

bool fz_slot_mapped(const struct fz_slot *s)
{
	return s->kind != FZ_EMPTY;
}

bool fz_slot_region(const struct fz_slot *s)
{
	return s->kind == FZ_REGION;
}

bool fz_slot_writable(const struct fz_slot *s)
{
	return s->kind == FZ_ANON || (s->kind == FZ_REGION && s->writable);
}

bool fz_slot_free(const struct fz_slot *s)
{
	return s->kind == FZ_EMPTY;
}

/* A slot that passes @ok, or -1. */
int fz_pick_slot_if(struct fz_run *run, const struct fz_proc *p,
		    fz_slot_filter ok)
{
	int slots[FZ_SLOTS], n = 0, s;

	for (s = 0; s < FZ_SLOTS; s++)
		if (ok(&p->slot[s]))
			slots[n++] = s;
	return n ? slots[fz_below(&run->rng, n)] : -1;
}

/* With @percent chance one that passes @ok (if any), else any slot. */
int fz_pick_slot(struct fz_run *run, const struct fz_proc *p,
		 fz_slot_filter ok, unsigned int percent)
{
	int s = -1;

	if (fz_chance(&run->rng, percent))
		s = fz_pick_slot_if(run, p, ok);
	return s >= 0 ? s : (int)fz_below(&run->rng, FZ_SLOTS);
}

/*
 * A path: with @percent chance one that has a region (if any), else any,
 * in the root more often than in a directory.
 */
static int pick_path(struct fz_run *run, unsigned int percent)
{
	int paths[FZ_PATHS], n = 0, i;

	if (fz_chance(&run->rng, percent)) {
		for (i = 0; i < FZ_PATHS; i++)
			if (run->m.path_region[i] >= 0)
				paths[n++] = i;
		if (n)
			return paths[fz_below(&run->rng, n)];
	}
	if (fz_chance(&run->rng, 50))
		return fz_below(&run->rng, FZ_NAMES);
	return fz_below(&run->rng, FZ_PATHS);
}

int fz_pick_open_fd(struct fz_run *run, const struct fz_proc *p)
{
	int fds[FZ_FDS], n = 0, f;

	for (f = 0; f < FZ_FDS; f++)
		if (p->fd[f].open)
			fds[n++] = f;
	return n ? fds[fz_below(&run->rng, n)] : -1;
}

static int free_fd(const struct fz_proc *p)
{
	int f;

	for (f = 0; f < FZ_FDS; f++)
		if (!p->fd[f].open)
			return f;
	return -1;
}

/* ENOENT if the directory of @path is missing, else 0. */
static int dir_err(const struct fz_run *run, int path)
{
	return run->m.dir_exists[fz_path_dir(path)] ? 0 : ENOENT;
}

/* ---- names: create, open, close, info, mkdir, rmdir, unlink, link, rename */

static bool do_close(struct fz_run *run, struct fz_proc *p, int f)
{
	struct fz_cmd c = { .op = FZC_CLOSE, .fd = p->fd[f].agent_fd };
	int region = p->fd[f].region;
	struct fz_reply r;

	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, 0, &r))
		return false;
	p->fd[f].open = false;
	fz_model_collect(&run->m);
	return true;
}

/* open(path, flags): keep the descriptor as p->fd[f] if f >= 0. */
static bool do_open(struct fz_run *run, struct fz_proc *p, int path,
		    int flags, int f)
{
	struct fz_cmd c = { .op = FZC_OPEN, .flags = flags };
	int region = run->m.path_region[path];
	bool creat = flags & O_CREAT;
	struct fz_reply r;
	int want = 0;

	if (dir_err(run, path))
		want = ENOENT;
	else if (region >= 0 && creat && (flags & O_EXCL))
		want = EEXIST;
	else if (region < 0 && !creat)
		want = ENOENT;
	fz_path(c.path, sizeof(c.path), path);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, want, &r))
		return false;
	if (want)
		return true;
	if (region < 0) {
		region = fz_model_new_region(&run->m, path, &run->rng);
		if (region >= 0)
			run->m.region[region].ino = fz_path_ino(path);
		fz_log_result("R%d", fz_rid(run, region));
	}
	if (f < 0) {
		c.op = FZC_CLOSE;
		c.fd = r.ret;
		return fz_call(run, p, region, &c, &r) &&
		       fz_expect_err(run, p, region, 0, &r);
	}
	p->fd[f].open = true;
	p->fd[f].region = region;
	p->fd[f].writable = (flags & O_ACCMODE) == O_RDWR;
	p->fd[f].agent_fd = r.ret;
	fz_log_result("fd %ld", r.ret);
	return true;
}

static bool op_create(struct fz_run *run, struct fz_proc *p)
{
	int path = pick_path(run, 30);
	int flags = O_RDWR | O_CREAT | O_CLOEXEC;
	int f = fz_chance(&run->rng, 50) ? free_fd(p) : -1;

	if (fz_chance(&run->rng, 30))
		flags |= O_EXCL;
	/* No room in the model for one more region: open an old one. */
	if (run->m.path_region[path] < 0 &&
	    fz_model_live_regions(&run->m) >= FZ_MAX_REGIONS)
		return true;
	fz_start_op(run, K_CREATE, p, run->m.path_region[path], -1, "%s%s%s",
		    fz_path_short(path), flags & O_EXCL ? " excl" : "",
		    f >= 0 ? " keep fd" : "");
	return do_open(run, p, path, flags, f);
}

static bool op_open(struct fz_run *run, struct fz_proc *p)
{
	int path = pick_path(run, 85);
	bool rw = fz_chance(&run->rng, 75);
	int f = free_fd(p);

	if (f < 0)
		return true;
	fz_start_op(run, K_OPEN, p, run->m.path_region[path], -1, "%s %s",
		    fz_path_short(path), rw ? "rw" : "ro");
	return do_open(run, p, path, (rw ? O_RDWR : O_RDONLY) | O_CLOEXEC, f);
}

static bool op_close(struct fz_run *run, struct fz_proc *p)
{
	int f = fz_pick_open_fd(run, p);

	if (f < 0)
		return true;
	fz_start_op(run, K_CLOSE, p, p->fd[f].region, -1, "fd %d (R%d)",
		    p->fd[f].agent_fd, fz_rid(run, p->fd[f].region));
	return do_close(run, p, f);
}

/* read() of a region file: where and how big the region is. */
static bool op_info(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_INFO };
	const struct fz_region *reg;
	int f = fz_pick_open_fd(run, p);
	unsigned long start, size;
	struct fz_reply r;

	if (f < 0)
		return true;
	reg = &run->m.region[p->fd[f].region];
	start = reg->slot < 0 ? 0 : FZ_ADDR(reg->slot);
	size = reg->slot < 0 ? 0 : mshare_unit();
	fz_start_op(run, K_INFO, p, p->fd[f].region, -1, "fd %d (R%d)",
		    p->fd[f].agent_fd, reg->id);
	c.fd = p->fd[f].agent_fd;
	if (!fz_call(run, p, p->fd[f].region, &c, &r))
		return false;
	if (r.ret != sizeof(r.info) || r.info.start != start ||
	    r.info.size != size) {
		fz_fail(run, p->id, reg->id,
			"want 16 bytes: start %#lx size %#lx, got %ld: start %#lx size %#lx",
			start, size, r.ret, r.info.start, r.info.size);
		return false;
	}
	fz_log_result("start %#lx size %#lx", start, size);
	return true;
}

static bool op_mkdir(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MKDIR };
	int dir = 1 + fz_below(&run->rng, FZ_DIRS - 1);
	struct fz_reply r;

	fz_start_op(run, K_MKDIR, p, -1, -1, "fzd%d", dir);
	fz_dir_path(c.path, sizeof(c.path), dir);
	if (!fz_call(run, p, -1, &c, &r) ||
	    !fz_expect_err(run, p, -1, run->m.dir_exists[dir] ? EEXIST : 0, &r))
		return false;
	run->m.dir_exists[dir] = true;
	return true;
}

static bool do_rmdir(struct fz_run *run, struct fz_proc *p, int dir)
{
	struct fz_cmd c = { .op = FZC_RMDIR };
	struct fz_reply r;
	int want = 0;

	if (!run->m.dir_exists[dir])
		want = ENOENT;
	else if (!fz_model_dir_empty(&run->m, dir))
		want = ENOTEMPTY;
	fz_dir_path(c.path, sizeof(c.path), dir);
	if (!fz_call(run, p, -1, &c, &r) ||
	    !fz_expect_err(run, p, -1, want, &r))
		return false;
	if (!want)
		run->m.dir_exists[dir] = false;
	return true;
}

static bool op_rmdir(struct fz_run *run, struct fz_proc *p)
{
	int dir = 1 + fz_below(&run->rng, FZ_DIRS - 1);

	fz_start_op(run, K_RMDIR, p, -1, -1, "fzd%d", dir);
	return do_rmdir(run, p, dir);
}

static bool do_unlink(struct fz_run *run, struct fz_proc *p, int path)
{
	struct fz_cmd c = { .op = FZC_UNLINK };
	int region = run->m.path_region[path];
	struct fz_reply r;

	fz_path(c.path, sizeof(c.path), path);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, region < 0 ? ENOENT : 0, &r))
		return false;
	if (region < 0)
		return true;
	run->m.path_region[path] = -1;
	run->m.region[region].nlink--;
	fz_model_collect(&run->m);
	return true;
}

static bool op_unlink(struct fz_run *run, struct fz_proc *p)
{
	int path = pick_path(run, 85);

	fz_start_op(run, K_UNLINK, p, run->m.path_region[path], -1, "%s",
		    fz_path_short(path));
	return do_unlink(run, p, path);
}

static bool op_link(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_LINK };
	int from = pick_path(run, 85), to = pick_path(run, 20);
	int region = run->m.path_region[from];
	struct fz_reply r;
	int want = 0;

	if (region < 0 || dir_err(run, to))
		want = ENOENT;
	else if (run->m.path_region[to] >= 0)
		want = EEXIST;
	fz_start_op(run, K_LINK, p, region, run->m.path_region[to], "%s %s",
		    fz_path_short(from), fz_path_short(to));
	fz_path(c.path, sizeof(c.path), from);
	fz_path(c.path2, sizeof(c.path2), to);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, want, &r))
		return false;
	if (!want) {
		run->m.path_region[to] = region;
		run->m.region[region].nlink++;
	}
	return true;
}

/*
 * rename(2) on msharefs: onto another region -> EEXIST (the fixed kernel
 * refuses to drop a region by name); between two names of one region ->
 * nothing happens; RENAME_EXCHANGE swaps.  The debugfs name follows.
 */
static int rename_err(const struct fz_run *run, int from, int to, int flags)
{
	int a = run->m.path_region[from], b = run->m.path_region[to];

	if (dir_err(run, from) || dir_err(run, to) || a < 0)
		return ENOENT;
	if ((flags & RENAME_NOREPLACE) && b >= 0)
		return EEXIST;
	if ((flags & RENAME_EXCHANGE) && b < 0)
		return ENOENT;
	if (a == b)
		return 0;
	if (!(flags & RENAME_EXCHANGE) && b >= 0)
		return EEXIST;
	return 0;
}

static void rename_apply(struct fz_run *run, int from, int to, int flags)
{
	struct fz_model *m = &run->m;
	int a = m->path_region[from], b = m->path_region[to];

	if (a == b)
		return;
	m->path_region[to] = a;
	snprintf(m->region[a].name, FZ_NAME_MAX, "fz%d", to % FZ_NAMES);
	m->path_region[from] = -1;
	if (flags & RENAME_EXCHANGE) {
		m->path_region[from] = b;
		snprintf(m->region[b].name, FZ_NAME_MAX, "fz%d",
			 from % FZ_NAMES);
	}
}

static bool op_rename(struct fz_run *run, struct fz_proc *p)
{
	static const int flag_choice[] = {
		0, 0, 0, RENAME_NOREPLACE, RENAME_EXCHANGE,
	};
	struct fz_cmd c = { .op = FZC_RENAME };
	int from = pick_path(run, 85), to = pick_path(run, 40);
	int flags = flag_choice[fz_below(&run->rng, 5)];
	int region = run->m.path_region[from];
	struct fz_reply r;
	int want = rename_err(run, from, to, flags);

	fz_start_op(run, K_RENAME, p, region, run->m.path_region[to], "%s %s%s",
		    fz_path_short(from), fz_path_short(to),
		    flags == RENAME_NOREPLACE ? " noreplace" :
		    flags == RENAME_EXCHANGE ? " exchange" : "");
	c.flags = flags;
	fz_path(c.path, sizeof(c.path), from);
	fz_path(c.path2, sizeof(c.path2), to);
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, want, &r))
		return false;
	if (!want)
		rename_apply(run, from, to, flags);
	return true;
}

/* ---- mappings ---- */

/* What a process's slot had before a MAP_FIXED mapping replaced it. */
static void slot_replace(struct fz_run *run, struct fz_proc *p, int slot)
{
	fz_model_set_slot_empty(p, slot);
	fz_model_collect(&run->m);
}

enum mmap_how {
	MM_GOOD,
	MM_PRIVATE,	/* MAP_PRIVATE -> EINVAL */
	MM_EXEC,	/* PROT_EXEC -> EPERM, msharefs is noexec */
	MM_OFFSET,	/* a non-zero offset -> EINVAL */
	MM_WRONG_SLOT,	/* not where the region is -> EINVAL */
	MM_HALF,	/* half a unit -> EINVAL */
	MM_RO_FILE_RW,	/* read-write mapping of a read-only file: EACCES */
	MM_NR
};

static const char *const mmap_how_name[MM_NR] = {
	"", " private", " exec", " offset", " wrong-slot", " half",
	" ro-file-rw",
};

struct mmap_args {
	int path;		/* -1: through p->fd[fd] */
	int fd;
	int region;		/* -1: no such file */
	int slot;
	bool writable;
	enum mmap_how how;
};

/*
 * A bad mapping goes where the process has nothing, so that MAP_FIXED
 * failing cannot take an old mapping with it (Linux may unmap the old
 * range before the filesystem refuses).  Returns false if no such slot.
 */
static bool pick_bad_mmap(struct fz_run *run, const struct fz_proc *p,
			  struct mmap_args *a, bool file_writable)
{
	const struct fz_region *reg = &run->m.region[a->region];
	int free_slot = fz_pick_slot_if(run, p, fz_slot_free);

	a->how = 1 + fz_below(&run->rng, MM_NR - 1);
	if (a->how == MM_WRONG_SLOT && reg->slot < 0)
		a->how = MM_HALF;
	if (a->how == MM_RO_FILE_RW && file_writable)
		a->how = MM_PRIVATE;
	a->slot = reg->slot >= 0 && a->how != MM_WRONG_SLOT ? reg->slot :
		  free_slot;
	if (a->how == MM_WRONG_SLOT && a->slot == reg->slot)
		return false;
	/*
	 * A read-write shared mapping of a read-only file fails with EACCES
	 * first; a writable private GiB is charged to overcommit (ENOMEM)
	 * before msharefs sees it.
	 */
	a->writable = file_writable && a->how != MM_PRIVATE &&
		      (a->how != MM_EXEC || fz_chance(&run->rng, 50));
	return a->slot >= 0 && p->slot[a->slot].kind == FZ_EMPTY;
}

static bool pick_mmap(struct fz_run *run, struct fz_proc *p,
		      struct mmap_args *a)
{
	bool file_writable = true;
	const struct fz_region *reg;
	int f = fz_pick_open_fd(run, p);

	memset(a, 0, sizeof(*a));
	a->path = -1;
	a->fd = -1;
	if (f >= 0 && fz_chance(&run->rng, 40)) {
		a->fd = f;
		a->region = p->fd[f].region;
		file_writable = p->fd[f].writable;
	} else {
		a->path = pick_path(run, 90);
		a->region = run->m.path_region[a->path];
		/* Opened read-write unless the bad case wants otherwise. */
		file_writable = !fz_chance(&run->rng, 10);
	}
	a->how = MM_GOOD;
	a->writable = file_writable && fz_chance(&run->rng, 85);
	a->slot = -1;
	if (a->region < 0) {
		a->slot = fz_below(&run->rng, FZ_SLOTS);
		return true;
	}
	if (fz_chance(&run->rng, 30) && pick_bad_mmap(run, p, a,
						      file_writable))
		return true;
	a->how = MM_GOOD;
	a->writable = file_writable && fz_chance(&run->rng, 85);
	reg = &run->m.region[a->region];
	a->slot = reg->slot >= 0 ? reg->slot : (int)fz_below(&run->rng,
							     FZ_SLOTS);
	return true;
}

static int mmap_err(const struct fz_run *run, const struct mmap_args *a)
{
	if (a->region < 0)
		return ENOENT;	/* from open */
	switch (a->how) {
	case MM_GOOD:
		/* No more access than the region's vma, its first mapping's */
		if (a->writable && run->m.region[a->region].slot >= 0 &&
		    !run->m.region[a->region].writable)
			return EACCES;
		return 0;
	case MM_EXEC:
		return EPERM;
	case MM_RO_FILE_RW:
		return EACCES;
	default:
		return EINVAL;
	}
}

static void mmap_cmd(const struct fz_run *run, const struct fz_proc *p,
		     const struct mmap_args *a, struct fz_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->op = FZC_MMAP;
	c->fd = a->fd >= 0 ? p->fd[a->fd].agent_fd : -1;
	if (a->path >= 0) {
		fz_path(c->path, sizeof(c->path), a->path);
		c->flags = a->writable || a->how == MM_EXEC ? O_RDWR :
							      O_RDONLY;
		if (a->how == MM_RO_FILE_RW)
			c->flags = O_RDONLY;
	}
	c->addr = FZ_ADDR(a->slot);
	c->len = a->how == MM_HALF ? mshare_unit() / 2 : mshare_unit();
	c->prot = PROT_READ | (a->writable || a->how == MM_RO_FILE_RW ?
			       PROT_WRITE : 0);
	if (a->how == MM_EXEC)
		c->prot |= PROT_EXEC;
	c->arg = (a->how == MM_PRIVATE ? MAP_PRIVATE : MAP_SHARED) |
		 MAP_FIXED;
	c->off = a->how == MM_OFFSET ? PAGE : 0;
	(void)run;
}

static bool op_mmap(struct fz_run *run, struct fz_proc *p)
{
	struct mmap_args a;
	struct fz_reply r;
	struct fz_cmd c;
	struct fz_slot *s;
	int want;

	if (!pick_mmap(run, p, &a))
		return true;
	mmap_cmd(run, p, &a, &c);
	want = mmap_err(run, &a);
	if (a.path >= 0)
		fz_start_op(run, K_MMAP, p, a.region, -1,
			    "%s (R%d) at %d %s%s", fz_path_short(a.path),
			    fz_rid(run, a.region), a.slot,
			    c.prot & PROT_WRITE ? "rw" : "ro",
			    mmap_how_name[a.how]);
	else
		fz_start_op(run, K_MMAP, p, a.region, -1,
			    "fd %d (R%d) at %d %s%s", c.fd,
			    fz_rid(run, a.region), a.slot,
			    c.prot & PROT_WRITE ? "rw" : "ro",
			    mmap_how_name[a.how]);
	if (!fz_call(run, p, a.region, &c, &r) ||
	    !fz_expect_err(run, p, a.region, want, &r))
		return false;
	/*
	 * A good mmap() refused by msharefs (a read-write one of a
	 * read-only region) comes after MAP_FIXED unmapped what was there.
	 */
	if (want && a.how == MM_GOOD && a.region >= 0)
		slot_replace(run, p, a.slot);
	if (want)
		return true;
	slot_replace(run, p, a.slot);
	s = &p->slot[a.slot];
	s->kind = FZ_REGION;
	s->region = a.region;
	s->writable = a.writable;
	s->maywrite = a.fd >= 0 ? p->fd[a.fd].writable :
		      (c.flags & O_ACCMODE) == O_RDWR;
	if (run->m.region[a.region].slot < 0) {
		run->m.region[a.region].slot = a.slot;
		run->m.region[a.region].writable = a.writable;
	}
	return true;
}

/* The sample words of what a slot holds (anonymous ones if nothing). */
void fz_slot_offsets(const struct fz_run *run, const struct fz_slot *s,
		     unsigned long *offs)
{
	unsigned int i;

	for (i = 0; i < FZ_SAMPLES; i++)
		offs[i] = s->kind == FZ_REGION ?
			  run->m.region[s->region].offs[i] : fz_anon_off(i);
}

unsigned long *fz_slot_values(struct fz_run *run, struct fz_slot *s)
{
	return s->kind == FZ_REGION ? run->m.region[s->region].vals : s->anon;
}

/*
 * Which op wrote @val, and at which sample: a word read back wrong often
 * holds what another op wrote elsewhere, which says where it came from.
 */
static void whose_value(const struct fz_run *run, unsigned long val,
			char *buf, size_t size)
{
	const char *line;
	unsigned int no, i;

	buf[0] = '\0';
	for (no = run->no; no > 0; no--)
		for (i = 0; i < FZ_SAMPLES; i++) {
			if (fz_op_value(no, i) != val)
				continue;
			line = fz_log_line(no);
			snprintf(buf, size, " (the value of sample %u of op #%u%s%s)",
				 i, no, line ? ": " : "", line ? line : "");
			return;
		}
}

/* Words read back: the first that differs from the model, or a fault. */
bool fz_expect_values(struct fz_run *run, struct fz_proc *p, int region,
		      const struct fz_cmd *c, const struct fz_reply *r,
		      const unsigned long *want_by_sample,
		      const unsigned int *sample)
{
	char whose[240];
	unsigned int i, k;

	if (r->fault_at >= 0) {
		k = sample[r->fault_at];
		fz_fail(run, p->id, fz_rid(run, region),
			"sample %u at %#lx: want %#lx, got signal %d (%s)", k,
			c->addr + c->offs[r->fault_at], want_by_sample[k],
			r->signo, strsignal(r->signo));
		return false;
	}
	for (i = 0; i < c->n; i++) {
		k = sample[i];
		if (r->vals[i] == want_by_sample[k])
			continue;
		whose_value(run, r->vals[i], whose, sizeof(whose));
		fz_fail(run, p->id, fz_rid(run, region),
			"sample %u at %#lx: want %#lx, got %#lx%s", k,
			c->addr + c->offs[i], want_by_sample[k], r->vals[i],
			whose);
		return false;
	}
	fz_log_result("%u words ok", c->n);
	return true;
}

/* An access that must fault at once: nothing mapped, or read-only. */
static bool expect_fault(struct fz_run *run, struct fz_proc *p, int region,
			 const struct fz_cmd *c, const struct fz_reply *r)
{
	if (r->fault_at == 0 && r->signo == SIGSEGV) {
		fz_log_result("SIGSEGV");
		return true;
	}
	if (r->fault_at >= 0)
		fz_fail(run, p->id, fz_rid(run, region),
			"want SIGSEGV at %#lx, got signal %d at access %d",
			c->addr + c->offs[0], r->signo, r->fault_at);
	else
		fz_fail(run, p->id, fz_rid(run, region),
			"want SIGSEGV at %#lx, got no fault", c->addr + c->offs[0]);
	return false;
}

static bool op_anon(struct fz_run *run, struct fz_proc *p)
{
	static const unsigned long zeros[FZ_SAMPLES];
	static unsigned int all[FZ_SAMPLES];
	struct fz_cmd c = {
		.op = FZC_ANON, .n = FZ_SAMPLES, .len = mshare_unit(),
	};
	int slot = fz_pick_slot(run, p, fz_slot_free, 30);
	struct fz_reply r;
	unsigned int i;

	for (i = 0; i < FZ_SAMPLES; i++) {
		all[i] = i;
		c.offs[i] = fz_anon_off(i);
	}
	c.addr = FZ_ADDR(slot);
	fz_start_op(run, K_ANON, p, -1, -1, "at %d (had %s)", slot,
		    p->slot[slot].kind == FZ_EMPTY ? "nothing" :
		    p->slot[slot].kind == FZ_ANON ? "anon" : "a region");
	if (!fz_call(run, p, -1, &c, &r) || !fz_expect_err(run, p, -1, 0, &r) ||
	    !fz_expect_values(run, p, -1, &c, &r, zeros, all))
		return false;
	slot_replace(run, p, slot);
	p->slot[slot].kind = FZ_ANON;
	return true;
}

enum munmap_how { UN_WHOLE, UN_TWO, UN_PAGE, UN_HALF };

static bool op_munmap(struct fz_run *run, struct fz_proc *p)
{
	static const char *const how_name[] = {
		"", " two slots", " 2 MiB of it", " second half",
	};
	struct fz_cmd c = { .op = FZC_MUNMAP, .len = mshare_unit() };
	int slot = fz_pick_slot(run, p, fz_slot_mapped, 80);
	enum munmap_how how = fz_below(&run->rng, 4);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	struct fz_reply r;

	if (how == UN_TWO && slot == FZ_SLOTS - 1)
		how = UN_WHOLE;
	if (how >= UN_PAGE && s->kind != FZ_REGION)
		how = UN_WHOLE;
	c.addr = FZ_ADDR(slot);
	if (how == UN_TWO)
		c.len = 2 * mshare_unit();
	if (how == UN_PAGE) {
		c.addr += PT_SPAN *
			  fz_below(&run->rng, mshare_unit() / PT_SPAN);
		c.len = PT_SPAN;
	}
	if (how == UN_HALF) {
		c.addr += mshare_unit() / 2;
		c.len = mshare_unit() / 2;
	}
	fz_start_op(run, K_MUNMAP, p, region, how == UN_TWO &&
		    p->slot[slot + 1].kind == FZ_REGION ?
		    p->slot[slot + 1].region : -1, "at %d%s", slot,
		    how_name[how]);
	/* A part of a region's vma cannot go: it is the region's tables. */
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, how >= UN_PAGE ? EINVAL : 0, &r))
		return false;
	if (how >= UN_PAGE)
		return true;
	slot_replace(run, p, slot);
	if (how == UN_TWO)
		slot_replace(run, p, slot + 1);
	return true;
}

static bool op_mremap(struct fz_run *run, struct fz_proc *p)
{
	static const char *const how_name[] = { "", "grow", "shrink" };
	struct fz_cmd c = { .op = FZC_MREMAP, .len = mshare_unit() };
	int slot = fz_pick_slot_if(run, p, fz_slot_region);
	unsigned int how = fz_below(&run->rng, 3);
	int to = fz_pick_slot_if(run, p, fz_slot_free);
	struct fz_reply r;
	int region;

	if (slot < 0)
		return true;
	region = p->slot[slot].region;
	c.addr = FZ_ADDR(slot);
	if (how == 0 && to < 0)
		how = 1;
	if (how == 0) {
		c.arg = mshare_unit();
		c.flags = MREMAP_MAYMOVE | MREMAP_FIXED;
		c.arg2 = FZ_ADDR(to);
	} else if (how == 1) {
		c.arg = 2 * mshare_unit();
		c.flags = fz_chance(&run->rng, 50) ? MREMAP_MAYMOVE : 0;
	} else {
		c.arg = mshare_unit() / 2;
	}
	if (how == 0)
		fz_start_op(run, K_MREMAP, p, region, -1, "at %d move to %d",
			    slot, to);
	else
		fz_start_op(run, K_MREMAP, p, region, -1, "at %d %s", slot,
			    how_name[how]);
	return fz_call(run, p, region, &c, &r) &&
	       fz_expect_err(run, p, region, EINVAL, &r);
}

/* ---- data ---- */

/* @n distinct samples, or all of them. */
unsigned int fz_pick_samples(struct fz_run *run, unsigned int *sample,
			     unsigned int all_percent)
{
	unsigned int n, i, j, k;
	bool dup;

	if (fz_chance(&run->rng, all_percent)) {
		for (i = 0; i < FZ_SAMPLES; i++)
			sample[i] = i;
		return FZ_SAMPLES;
	}
	n = 1 + fz_below(&run->rng, 4);
	for (i = 0; i < n;) {
		k = fz_below(&run->rng, FZ_SAMPLES);
		for (dup = false, j = 0; j < i; j++)
			dup |= sample[j] == k;
		if (!dup)
			sample[i++] = k;
	}
	return n;
}

const char *fz_slot_what(const struct fz_run *run,
			 const struct fz_slot *s, char *buf, size_t size)
{
	if (s->kind == FZ_EMPTY)
		return "nothing";
	if (s->kind == FZ_ANON)
		return "anon";
	snprintf(buf, size, "R%d %s", fz_rid(run, s->region),
		 s->writable ? "rw" : "ro");
	return buf;
}

static bool op_read(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_READ };
	int slot = fz_pick_slot(run, p, fz_slot_mapped, 90);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	unsigned long offs[FZ_SAMPLES];
	unsigned int sample[FZ_SAMPLES], i;
	struct fz_reply r;
	char what[32];

	c.n = fz_pick_samples(run, sample, 40);
	fz_slot_offsets(run, s, offs);
	c.addr = FZ_ADDR(slot);
	for (i = 0; i < c.n; i++)
		c.offs[i] = offs[sample[i]];
	fz_start_op(run, K_READ, p, region, -1, "at %d (%s) %u words", slot,
		    fz_slot_what(run, s, what, sizeof(what)), c.n);
	if (!fz_call(run, p, region, &c, &r))
		return false;
	if (s->kind == FZ_EMPTY)
		return expect_fault(run, p, region, &c, &r);
	return fz_expect_values(run, p, region, &c, &r, fz_slot_values(run, s),
				sample);
}

static bool op_write(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_WRITE };
	int slot = fz_pick_slot(run, p, fz_slot_writable, 90);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	unsigned long offs[FZ_SAMPLES], *vals;
	unsigned int sample[FZ_SAMPLES], i;
	struct fz_reply r;
	char what[32];

	c.n = fz_pick_samples(run, sample, 10);
	fz_slot_offsets(run, s, offs);
	c.addr = FZ_ADDR(slot);
	fz_start_op(run, K_WRITE, p, region, -1, "at %d (%s) %u words", slot,
		    fz_slot_what(run, s, what, sizeof(what)), c.n);
	for (i = 0; i < c.n; i++) {
		c.offs[i] = offs[sample[i]];
		c.vals[i] = fz_op_value(run->no, sample[i]);
	}
	if (!fz_call(run, p, region, &c, &r))
		return false;
	if (!fz_slot_writable(s))
		return expect_fault(run, p, region, &c, &r);
	if (r.fault_at >= 0) {
		fz_fail(run, p->id, fz_rid(run, region),
			"write of sample %u at %#lx: signal %d (%s)",
			sample[r.fault_at], c.addr + c.offs[r.fault_at],
			r.signo, strsignal(r.signo));
		return false;
	}
	vals = fz_slot_values(run, s);
	for (i = 0; i < c.n; i++)
		vals[sample[i]] = c.vals[i];
	fz_log_result("ok");
	return true;
}

/*
 * A word in every 2 MiB: every page table of the first MSHARE_TOUCH_LEN
 * (all of UML's region), then read back.
 */
static bool op_touch(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_TOUCH, .len = MSHARE_TOUCH_LEN };
	int slot = fz_pick_slot(run, p, fz_slot_writable, 90);
	struct fz_slot *s = &p->slot[slot];
	int region = s->kind == FZ_REGION ? s->region : -1;
	struct fz_reply r;
	char what[32];

	c.addr = FZ_ADDR(slot);
	if (s->kind == FZ_ANON)
		c.len = ANON_TOUCH_LEN;
	fz_start_op(run, K_TOUCH, p, region, -1, "at %d (%s) %lu MiB", slot,
		    fz_slot_what(run, s, what, sizeof(what)), c.len >> 20);
	c.arg = fz_op_value(run->no, FZ_SAMPLES);
	c.offs[0] = FZ_TOUCH_WORD(0);
	if (!fz_call(run, p, region, &c, &r))
		return false;
	if (!fz_slot_writable(s))
		return expect_fault(run, p, region, &c, &r);
	if (r.fault_at >= 0 || r.bad_words) {
		fz_fail(run, p->id, fz_rid(run, region),
			"touch: signal %d at 2 MiB span %d, %lu words read back wrong",
			r.signo, r.fault_at, r.bad_words);
		return false;
	}
	fz_log_result("ok");
	return true;
}

static bool slot_region_rw(const struct fz_slot *s)
{
	return s->kind == FZ_REGION && s->writable;
}

/* Up to FZ_LANES live processes that map @region read-write, @p first. */
static int region_writers(struct fz_run *run, struct fz_proc *p, int region,
			  struct fz_proc **who)
{
	int slot = run->m.region[region].slot;
	int first = fz_below(&run->rng, FZ_MAX_PROCS), n = 1, i;
	struct fz_proc *q;

	who[0] = p;
	for (i = 0; i < FZ_MAX_PROCS && n < FZ_LANES; i++) {
		q = &run->m.proc[(first + i) % FZ_MAX_PROCS];
		if (q != p && fz_proc_idle(q) &&
		    q->slot[slot].kind == FZ_REGION &&
		    q->slot[slot].region == region && q->slot[slot].writable)
			who[n++] = q;
	}
	return n;
}

/*
 * Processes touch every 2 MiB of one region at the same time, each in a
 * lane of its own: their faults race on the region's page tables (the
 * first touch of a PTE page, of a page).  Each reads its lane back.
 */
static bool op_touch_many(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_TOUCH, .len = MSHARE_TOUCH_LEN };
	int slot = fz_pick_slot_if(run, p, slot_region_rw);
	struct fz_proc *who[FZ_LANES];
	int region, n, lane, ret;
	struct fz_reply r;

	if (slot < 0)
		return true;
	region = p->slot[slot].region;
	n = region_writers(run, p, region, who);
	if (n < 2)
		return true;
	if (n > 2)
		fz_start_op(run, K_TOUCH_MANY, p, region, -1,
			    "at %d (R%d) with P%d and P%d", slot,
			    fz_rid(run, region), who[1]->id, who[2]->id);
	else
		fz_start_op(run, K_TOUCH_MANY, p, region, -1,
			    "at %d (R%d) with P%d", slot, fz_rid(run, region),
			    who[1]->id);
	c.addr = FZ_ADDR(slot);
	for (lane = 0; lane < n; lane++) {
		c.off = lane;
		c.arg = fz_op_value(run->no, FZ_SAMPLES + lane);
		if (fz_agent_send(&who[lane]->agent, &c)) {
			fz_agent_lost(run, who[lane], region, -EPIPE);
			return false;
		}
	}
	for (lane = 0; lane < n; lane++) {
		ret = fz_agent_recv(&who[lane]->agent, &r, FZ_REPLY_TIMEOUT_MS);
		if (ret) {
			fz_agent_lost(run, who[lane], region, ret);
			return false;
		}
		if (r.fault_at >= 0 || r.bad_words) {
			fz_fail(run, who[lane]->id, fz_rid(run, region),
				"P%d, lane %d: signal %d at 2 MiB span %d, %lu words read back wrong",
				who[lane]->id, lane, r.signo, r.fault_at,
				r.bad_words);
			return false;
		}
	}
	fz_log_result("ok");
	return true;
}

/* ---- processes ---- */

static struct fz_proc *new_proc(struct fz_run *run)
{
	int i = fz_model_free_proc(&run->m);
	struct fz_proc *q;

	if (i < 0)
		return NULL;
	q = &run->m.proc[i];
	memset(q, 0, sizeof(*q));
	q->id = run->m.next_proc_id++;
	return q;
}

static bool op_spawn(struct fz_run *run, struct fz_proc *p)
{
	struct fz_proc *q = new_proc(run);
	int ret;

	(void)p;
	if (!q)
		return true;
	fz_start_op(run, K_SPAWN, NULL, -1, -1, "P%d", q->id);
	ret = fz_agent_spawn(&q->agent);
	if (ret) {
		fz_fail(run, q->id, -1, "fork of a new agent: %s",
			strerror(-ret));
		return false;
	}
	q->live = true;
	fz_log_result("pid %d", q->agent.pid);
	return true;
}

/* The child inherits every mapping and descriptor, and sees the same. */
static bool op_fork(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_FORK };
	struct fz_proc *q = new_proc(run);
	struct fz_reply r;
	int ret;

	if (!q)
		return true;
	fz_start_op(run, K_FORK, p, -1, -1, "-> P%d", q->id);
	fz_faults_arm(run, &c);
	ret = fz_agent_fork(&p->agent, &q->agent, &c, &r, FZ_REPLY_TIMEOUT_MS);
	if (ret) {
		fz_agent_lost(run, p, -1, ret);
		return false;
	}
	fz_faults_reply(run, &r);
	/* fork's answer to a failed allocation may be EAGAIN too */
	if (r.ret <= 0 && fz_faults_explain(run, 0, (int)-r.ret))
		return false;
	if (r.ret <= 0) {
		fz_fail(run, p->id, -1, "fork: %s", strerror(-r.ret));
		return false;
	}
	fz_fork_slots(q, p);
	memcpy(q->fd, p->fd, sizeof(q->fd));
	q->live = true;
	fz_log_result("pid %d", q->agent.pid);
	return true;
}

/* Gone: its mappings and descriptors with it. */
static void proc_gone(struct fz_run *run, struct fz_proc *p)
{
	p->live = false;
	fz_model_collect(&run->m);
}

static bool do_exit(struct fz_run *run, struct fz_proc *p)
{
	int wstatus = 0;

	if (fz_agent_exit(&p->agent, REAP_TIMEOUT_MS, &wstatus)) {
		fz_fail(run, p->id, -1, "P%d (pid %d) did not exit within %d s",
			p->id, p->agent.pid, REAP_TIMEOUT_MS / 1000);
		return false;
	}
	proc_gone(run, p);
	if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)) {
		fz_fail(run, p->id, -1, "want exit status 0, got wait status %#x",
			wstatus);
		return false;
	}
	fz_log_result("exited");
	return true;
}

static bool op_exit(struct fz_run *run, struct fz_proc *p)
{
	fz_start_op(run, K_EXIT, p, -1, -1, "(pid %d)", p->agent.pid);
	return do_exit(run, p);
}

bool fz_do_kill(struct fz_run *run, struct fz_proc *p)
{
	int wstatus = 0;

	if (fz_agent_kill(&p->agent, REAP_TIMEOUT_MS, &wstatus)) {
		fz_fail(run, p->id, -1,
			"P%d (pid %d) still there %d s after SIGKILL: stuck in the kernel",
			p->id, p->agent.pid, REAP_TIMEOUT_MS / 1000);
		return false;
	}
	proc_gone(run, p);
	if (!WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGKILL) {
		fz_fail(run, p->id, -1, "want death by SIGKILL, got wait status %#x",
			wstatus);
		return false;
	}
	fz_log_result("killed");
	return true;
}

static bool op_kill(struct fz_run *run, struct fz_proc *p)
{
	fz_start_op(run, K_KILL, p, -1, -1, "(pid %d)", p->agent.pid);
	return fz_do_kill(run, p);
}

/*
 * SIGKILL while it touches a region: the kill lands in a fault or between
 * two.  Touch words are no sample words, so the model does not care how
 * far it got.
 */
static bool op_kill_busy(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_TOUCH, .len = MSHARE_TOUCH_LEN };
	int slot = fz_pick_slot_if(run, p, fz_slot_writable);
	unsigned int delay_us = fz_below(&run->rng, 20000);

	if (slot < 0)
		return true;
	if (p->slot[slot].kind == FZ_ANON)
		c.len = ANON_TOUCH_LEN;
	c.addr = FZ_ADDR(slot);
	c.arg = fz_op_value(run->no + 1, FZ_SAMPLES);
	fz_start_op(run, K_KILL_BUSY, p, p->slot[slot].kind == FZ_REGION ?
		    p->slot[slot].region : -1, -1, "touching %d, after %u us",
		    slot, delay_us);
	if (fz_agent_send(&p->agent, &c)) {
		fz_agent_lost(run, p, -1, -EPIPE);
		return false;
	}
	usleep(delay_us);
	return fz_do_kill(run, p);
}

/* ---- the table ---- */

struct kind_def {
	const char *name;
	unsigned int weight;
	bool (*fn)(struct fz_run *run, struct fz_proc *p);
	bool needs_proc;
};

static const struct kind_def kinds[K_NR] = {
	[K_CREATE] = { "create", 5, op_create, true },
	[K_OPEN] = { "open", 3, op_open, true },
	[K_CLOSE] = { "close", 3, op_close, true },
	[K_INFO] = { "info", 2, op_info, true },
	[K_MKDIR] = { "mkdir", 1, op_mkdir, true },
	[K_RMDIR] = { "rmdir", 1, op_rmdir, true },
	[K_UNLINK] = { "unlink", 4, op_unlink, true },
	[K_LINK] = { "link", 1, op_link, true },
	[K_RENAME] = { "rename", 3, op_rename, true },
	[K_MMAP] = { "mmap", 12, op_mmap, true },
	[K_ANON] = { "anon", 2, op_anon, true },
	[K_MUNMAP] = { "munmap", 5, op_munmap, true },
	[K_MPROTECT] = { "mprotect", 3, fz_op_mprotect, true },
	[K_MOVE_FILE] = { "move-file", 2, fz_op_move_file, true },
	[K_MREMAP] = { "mremap", 2, op_mremap, true },
	[K_READ] = { "read", 20, op_read, true },
	[K_WRITE] = { "write", 18, op_write, true },
	[K_TOUCH] = { "touch", 2, op_touch, true },
	[K_TOUCH_MANY] = { "touch-many", 2, op_touch_many, true },
	[K_SPAWN] = { "spawn", 2, op_spawn, false },
	[K_FORK] = { "fork", 3, op_fork, true },
	[K_EXIT] = { "exit", 2, op_exit, true },
	[K_KILL] = { "kill", 2, op_kill, true },
	[K_KILL_BUSY] = { "kill-busy", 1, op_kill_busy, true },
	[K_FUTEX_WAIT] = { "futex-wait", 4, fz_op_futex_wait, true },
	[K_FUTEX_WAKE] = { "futex-wake", 3, fz_op_futex_wake, true },
	[K_GUP] = { "gup", 4, fz_op_gup, true },
	[K_MADVISE] = { "madvise", 4, fz_op_madvise, true },
	[K_MLOCK] = { "mlock", 2, fz_op_mlock, true },
	[K_MSYNC] = { "msync", 2, fz_op_msync, true },
	[K_PROCFS] = { "procfs", 1, fz_op_procfs, true },
};

const char *fz_kind_name(unsigned int kind)
{
	return kind < K_NR ? kinds[kind].name : "?";
}

unsigned int fz_kinds(void)
{
	return K_NR;
}

static unsigned int pick_kind(struct fz_run *run)
{
	unsigned int total = 0, k, x;

	for (k = 0; k < K_NR; k++)
		total += kinds[k].weight;
	x = fz_below(&run->rng, total);
	for (k = 0; x >= kinds[k].weight; k++)
		x -= kinds[k].weight;
	return k;
}

/* A process asleep in a futex, if there is one, else @p. */
static struct fz_proc *pick_sleeper(struct fz_run *run, struct fz_proc *p)
{
	int sleepers[FZ_MAX_PROCS], n = 0, i;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		if (run->m.proc[i].live && run->m.proc[i].wait.on)
			sleepers[n++] = i;
	return n ? &run->m.proc[sleepers[fz_below(&run->rng, n)]] : p;
}

/* Ops that change what debugfs shows. */
static bool changes_regions(unsigned int kind)
{
	switch (kind) {
	case K_READ: case K_WRITE: case K_TOUCH: case K_TOUCH_MANY:
	case K_INFO: case K_FUTEX_WAIT: case K_FUTEX_WAKE: case K_GUP:
	case K_MADVISE: case K_MLOCK: case K_MSYNC: case K_PROCFS:
		return false;
	default:
		return true;
	}
}

bool fz_do_op(struct fz_run *run)
{
	unsigned int kind, before;
	struct fz_proc *p;
	char why[300];
	bool ok;

	if (!fz_check_sleepers(run))
		return false;
	kind = pick_kind(run);
	before = run->no;
	p = fz_pick_proc(run);

	/*
	 * Always someone to act; rarely the last one to go.  Few regions or
	 * nothing mapped: make some, rather than fault on empty slots.
	 */
	if (!p)
		kind = K_SPAWN;
	else if (fz_model_live_regions(&run->m) < 2 && fz_chance(&run->rng, 30))
		kind = K_CREATE;
	else if ((kind == K_READ || kind == K_WRITE || kind == K_TOUCH) &&
		 fz_pick_slot_if(run, p, fz_slot_mapped) < 0 &&
		 fz_chance(&run->rng, 70))
		kind = K_MMAP;
	else if ((kind == K_EXIT || kind == K_KILL || kind == K_KILL_BUSY) &&
		 fz_model_live_procs(&run->m) == 1 && fz_chance(&run->rng, 80))
		kind = K_FORK;
	else if (kind == K_KILL && fz_chance(&run->rng, 40))
		p = pick_sleeper(run, p);
	fz_faults_pick(run, kind);
	ok = kinds[kind].fn(run, p);
	if (!fz_faults_end(run, kind, p, ok))
		return false;
	if (run->no == before || !changes_regions(kind))
		return true;
	if (!fz_model_check_debugfs(&run->m, why, sizeof(why))) {
		fz_fail(run, p ? p->id : -1, -1, "%s", why);
		return false;
	}
	return true;
}

/* ---- the end ---- */

bool fz_finish(struct fz_run *run)
{
	struct fz_proc *p;
	char why[300];
	int i;

	if (!fz_wake_all(run))
		return false;
	for (i = 0; i < FZ_MAX_PROCS; i++) {
		p = &run->m.proc[i];
		if (!p->live)
			continue;
		fz_start_op(run, K_EXIT, p, -1, -1, "(end of run)");
		if (!do_exit(run, p))
			return false;
	}
	if (!fz_model_check_debugfs(&run->m, why, sizeof(why))) {
		fz_fail(run, -1, -1, "after every process exited: %s", why);
		return false;
	}
	/* A last process removes every name and directory. */
	if (!op_spawn(run, NULL))
		return false;
	p = fz_pick_proc(run);
	for (i = 0; i < FZ_PATHS; i++) {
		if (run->m.path_region[i] < 0)
			continue;
		fz_start_op(run, K_UNLINK, p, run->m.path_region[i], -1,
			    "%s (end of run)", fz_path_short(i));
		if (!do_unlink(run, p, i))
			return false;
	}
	for (i = 1; i < FZ_DIRS; i++) {
		if (!run->m.dir_exists[i])
			continue;
		fz_start_op(run, K_RMDIR, p, -1, -1, "fzd%d (end of run)", i);
		if (!do_rmdir(run, p, i))
			return false;
	}
	fz_start_op(run, K_EXIT, p, -1, -1, "(end of run)");
	if (!do_exit(run, p))
		return false;
	if (fz_model_live_regions(&run->m)) {
		fz_fail(run, -1, -1, "model: %d regions left at the end",
			fz_model_live_regions(&run->m));
		return false;
	}
	if (!fz_model_check_debugfs(&run->m, why, sizeof(why))) {
		fz_fail(run, -1, -1, "at the end, nothing left: %s", why);
		return false;
	}
	return true;
}

/* Remove every name and directory; in a child, since it may hang. */
static int remove_names(void *arg)
{
	char path[FZ_PATH_MAX];
	int i;

	(void)arg;
	for (i = 0; i < FZ_PATHS; i++) {
		fz_path(path, sizeof(path), i);
		unlink(path);
	}
	for (i = 1; i < FZ_DIRS; i++) {
		fz_dir_path(path, sizeof(path), i);
		rmdir(path);
	}
	return 0;
}

void fz_abandon(struct fz_run *run)
{
	struct harness_child_result res;
	struct fz_proc *p;
	int i, wstatus;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		p = &run->m.proc[i];
		if (p->agent.pid > 0 &&
		    fz_agent_kill(&p->agent, 2000, &wstatus))
			printf("mshare_fuzz: P%d (pid %d) does not die: left behind\n",
			       p->id, p->agent.pid);
		p->live = false;
	}
	harness_run_child_timeout(remove_names, NULL, 10, &res);
	if (res.timed_out)
		printf("mshare_fuzz: removing the names hung: left behind\n");
}
