// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the mshare tests.  See mshare_util.h.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_util.h"

#define REGIONS_TEXT_MAX	16384
/* UML's PGDIR_SIZE: the unit when there is no mshare_info to read */
#define UNIT_FALLBACK		(1UL << 30)
/* Slot 0 is the first unit at or above this */
#define SLOT_BASE		(64UL << 30)

/* What mshare_info says, if it is a power of two; else 0. */
static unsigned long read_unit(void)
{
	char text[32], *end;
	unsigned long unit;

	if (harness_read_file(MSHARE_DIR "/mshare_info", text,
			      sizeof(text)) <= 0)
		return 0;
	errno = 0;
	unit = strtoul(text, &end, 10);
	if (errno || end == text || *end != '\n' || !unit ||
	    (unit & (unit - 1)))
		return 0;
	return unit;
}

unsigned long mshare_unit(void)
{
	/* Cached only once read: msharefs may be mounted after a first call. */
	static unsigned long unit;

	if (!unit)
		unit = read_unit();
	return unit ? unit : UNIT_FALLBACK;
}

unsigned long mshare_slot_addr(unsigned int slot)
{
	unsigned long unit = mshare_unit();

	return ((SLOT_BASE + unit - 1) / unit + slot) * unit;
}

void mshare_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", MSHARE_DIR, name);
}

/* Create (or truncate-open) the file of a region: an fd, or -errno. */
int mshare_create(const char *name)
{
	char path[256];
	int fd;

	mshare_path(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

int mshare_read_info(int fd, struct mshare_region_info *info)
{
	ssize_t n = read(fd, info, sizeof(*info));

	if (n < 0)
		return -errno;
	return n == sizeof(*info) ? 0 : -EIO;
}

int mshare_unlink(const char *name)
{
	char path[256];

	mshare_path(path, sizeof(path), name);
	return unlink(path) ? -errno : 0;
}

int mshare_dbg_find(const char *name, struct mshare_dbg *dbg)
{
	static char text[REGIONS_TEXT_MAX];
	char want[300];
	const char *line;
	ssize_t len;

	len = harness_read_file(MSHARE_REGIONS, text, sizeof(text));
	if (len < 0)
		return len;
	snprintf(want, sizeof(want), "name=%s ", name);
	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, want, strlen(want)))
			continue;
		memset(dbg, 0, sizeof(*dbg));
		dbg->lockers = -1;
		if (sscanf(line + strlen(want),
			   "start=%lx size=%lx refcount=%u deleted=%d pgtables_bytes=%lu rss_pages=%lu lockers=%d",
			   &dbg->start, &dbg->size, &dbg->refcount,
			   &dbg->deleted, &dbg->pgtables_bytes,
			   &dbg->rss_pages, &dbg->lockers) < 6)
			return -EINVAL;
		return 0;
	}
	return -ENOENT;
}

long mshare_dbg_refcount(const char *name)
{
	struct mshare_dbg dbg;

	if (mshare_dbg_find(name, &dbg))
		return -1;
	return dbg.refcount;
}

bool mshare_dbg_wait_gone(const char *name)
{
	struct mshare_dbg dbg;
	int i;

	for (i = 0; i < 200; i++) {
		if (mshare_dbg_find(name, &dbg) == -ENOENT)
			return true;
		usleep(10000);
	}
	return false;
}

const char *mshare_smaps_entry(char *buf, size_t size, unsigned long addr)
{
	char head[32];
	char *entry, *next;

	if (harness_read_file("/proc/self/smaps", buf, size) < 0)
		return NULL;
	snprintf(head, sizeof(head), "%lx-", addr);
	entry = strstr(buf, head);
	if (!entry)
		return NULL;
	/* The next entry starts with a hex range on a line of its own */
	for (next = strchr(entry, '\n'); next; next = strchr(next + 1, '\n'))
		if (next[1] && strchr("0123456789abcdef", next[1]) &&
		    strchr(next + 1, '-') < strchr(next + 1, ' ')) {
			next[1] = '\0';
			break;
		}
	return entry;
}

int mshare_pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int mshare_unpin(void)
{
	long cpu, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < cpus && cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

bool mshare_wait_count(int *count, int n, int timeout_s)
{
	/* A deadline, not a count of sleeps: under TCG a sleep overruns */
	double deadline = harness_now_s() + timeout_s;

	do {
		if (__atomic_load_n(count, __ATOMIC_SEQ_CST) >= n)
			return true;
		usleep(1000);
	} while (harness_now_s() < deadline);
	return __atomic_load_n(count, __ATOMIC_SEQ_CST) >= n;
}

bool mshare_barrier(int *count, int n, int timeout_s)
{
	__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	return mshare_wait_count(count, n, timeout_s);
}

long mshare_free_kb(void)
{
	static char text[65536];
	long pages = 0, kb;
	const char *p;

	harness_vm_stat_refresh();
	kb = harness_meminfo_kb("MemFree");
	if (kb < 0 || harness_read_file("/proc/zoneinfo", text,
					sizeof(text)) < 0)
		return -1;
	for (p = strstr(text, "count:"); p; p = strstr(p + 1, "count:"))
		pages += strtol(p + strlen("count:"), NULL, 10);
	return kb + pages * (PAGE / 1024);
}

static int agent_map(struct mshare_agent *a, char how, unsigned long arg)
{
	struct mshare_region_info info;
	char path[256];
	int prot = PROT_READ | PROT_WRITE;
	void *p;
	int fd;

	mshare_path(path, sizeof(path), a->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return AGENT_ERR_OPEN;
	if (how == AGENT_MAP_CREATE) {
		a->size = arg;
	} else {
		if (mshare_read_info(fd, &info)) {
			close(fd);
			return AGENT_ERR_READ;
		}
		if (info.start != a->addr || !info.size) {
			close(fd);
			return AGENT_ERR_INFO;
		}
		a->size = info.size;
		if (how == AGENT_MAP_RDONLY)
			prot = PROT_READ;
	}
	p = mmap((void *)a->addr, a->size, prot, MAP_SHARED | MAP_FIXED, fd,
		 0);
	/* The mapping holds the file; an open fd must not outlive unlink. */
	close(fd);
	return p == (void *)a->addr ? 0 : AGENT_ERR_MMAP;
}

static int agent_touch(struct mshare_agent *a, unsigned long len)
{
	long pt0, pt1, pte0, pte1;
	unsigned long off, at;

	harness_vm_stat_refresh();
	pt0 = harness_meminfo_kb("PageTables");
	pte0 = harness_proc_status_kb("VmPTE");
	for (off = 0; off < len; off += PT_SPAN) {
		at = off + a->tag * sizeof(long);
		*(volatile unsigned long *)(a->addr + at) =
			mshare_pattern(at, a->tag);
	}
	harness_vm_stat_refresh();
	pt1 = harness_meminfo_kb("PageTables");
	pte1 = harness_proc_status_kb("VmPTE");
	if (pt0 < 0 || pt1 < 0 || pte0 < 0 || pte1 < 0)
		return AGENT_ERR_READ;
	a->pt_delta = pt1 - pt0;
	a->vmpte_delta = pte1 - pte0;
	return 0;
}

static int agent_check_span(struct mshare_agent *a, unsigned long len,
			    unsigned long ntags)
{
	unsigned long off, at, tag;

	for (off = 0; off < len; off += PT_SPAN) {
		for (tag = 0; tag < ntags; tag++) {
			at = off + tag * sizeof(long);
			if (*(volatile unsigned long *)(a->addr + at) !=
			    mshare_pattern(at, tag))
				return AGENT_ERR_CHECK;
		}
	}
	return 0;
}

static int agent_mprotect(struct mshare_agent *a, unsigned long off,
			  unsigned long npages, int prot)
{
	unsigned long len = npages == AGENT_MPROTECT_TO_END ? a->size - off :
			    npages * PAGE;

	return mprotect((void *)(a->addr + off), len, prot) ? errno : 0;
}

/*
 * An agent shares every private page with the test process that forked
 * it, until one of them writes the page: then the writer gets a copy, a
 * new anonymous page, while the other keeps the old one.  The test's own
 * writes (its stack, the buffers of its /proc readers) would so add to
 * AnonPages while the agents live.  mlock() faults a writable private
 * mapping in for writing, which gives the agent its own copy of every
 * such page at once; the test's pages are then its own again, and its
 * writes copy nothing.
 */
static int agent_own_pages(void)
{
	if (mlockall(MCL_CURRENT))
		return AGENT_ERR_MLOCK;
	return munlockall() ? AGENT_ERR_MLOCK : 0;
}

static int agent_cmd(struct mshare_agent *a, char cmd, unsigned long arg)
{
	volatile unsigned long *w;
	unsigned long i;

	switch (cmd) {
	case AGENT_MAP_CREATE:
	case AGENT_MAP_FOLLOW:
	case AGENT_MAP_RDONLY:
		return agent_map(a, cmd, arg);
	case AGENT_WRITE:
		w = (unsigned long *)(a->addr + arg);
		*w = mshare_pattern(arg, a->tag);
		return 0;
	case AGENT_CHECK:
		w = (unsigned long *)(a->addr + arg);
		return *w == mshare_pattern(arg, a->tag) ? 0 : AGENT_ERR_CHECK;
	case AGENT_CHECK_ALL:
		for (i = 0; i < arg; i++) {
			w = (unsigned long *)(a->addr + i * sizeof(long));
			if (*w != mshare_pattern(i * sizeof(long), i))
				return AGENT_ERR_CHECK;
		}
		return 0;
	case AGENT_MAP_MEMFD:
		a->size = arg;
		w = mmap((void *)a->addr, a->size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, a->memfd_fd, 0);
		return w == (void *)a->addr ? 0 : AGENT_ERR_MMAP;
	case AGENT_FILL:
		for (i = 0; i < arg; i += PAGE)
			*(volatile unsigned long *)(a->addr + i) = i + 1;
		return 0;
	case AGENT_TOUCH:
		return agent_touch(a, arg);
	case AGENT_CHECK_SPAN:
		return agent_check_span(a, arg & ((1UL << 40) - 1), arg >> 40);
	case AGENT_PT_DELTA:
		return a->pt_delta;
	case AGENT_VMPTE_DELTA:
		return a->vmpte_delta;
	case AGENT_UNMAP:
		return munmap((void *)a->addr, a->size) ? AGENT_ERR_MUNMAP : 0;
	case AGENT_OWN_PAGES:
		return agent_own_pages();
	case AGENT_MPROTECT:
		return agent_mprotect(a, AGENT_MPROTECT_OFF(arg), arg >> 40,
				      arg & (PAGE - 1));
	}
	return AGENT_ERR_PROTO;
}

struct agent_msg {
	char cmd;
	unsigned long arg;
};

static int agent_main(void *arg)
{
	struct mshare_agent *a = arg;
	struct agent_msg msg;
	int reply;

	for (;;) {
		if (read(a->cmd_fd, &msg, sizeof(msg)) != sizeof(msg))
			return AGENT_ERR_PROTO;
		if (msg.cmd == AGENT_EXIT)
			return 0;
		reply = agent_cmd(a, msg.cmd, msg.arg);
		if (write(a->reply_fd, &reply, sizeof(reply)) != sizeof(reply))
			return AGENT_ERR_PROTO;
	}
}

/* Fork the agent described by *a (copied by the child at fork). */
static int agent_spawn(struct mshare_agent *a)
{
	int cmd[2], reply[2];
	pid_t pid;

	if (pipe2(cmd, O_CLOEXEC))
		return -errno;
	if (pipe2(reply, O_CLOEXEC)) {
		close(cmd[0]);
		close(cmd[1]);
		return -errno;
	}
	/* The child's view: read commands, write replies. */
	a->cmd_fd = cmd[0];
	a->reply_fd = reply[1];
	pid = harness_start_child(agent_main, a);
	close(cmd[0]);
	close(reply[1]);
	if (pid < 0) {
		close(cmd[1]);
		close(reply[0]);
		return pid;
	}
	a->pid = pid;
	a->cmd_fd = cmd[1];
	a->reply_fd = reply[0];
	return 0;
}

int mshare_agent_start(struct mshare_agent *a, const char *name,
		       unsigned long addr, int tag)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->addr = addr;
	a->tag = tag;
	a->memfd_fd = -1;
	return agent_spawn(a);
}

int mshare_agent_start_memfd(struct mshare_agent *a, int memfd_fd,
			     unsigned long addr, int tag)
{
	memset(a, 0, sizeof(*a));
	a->name = "memfd";
	a->addr = addr;
	a->tag = tag;
	a->memfd_fd = memfd_fd;
	return agent_spawn(a);
}

int mshare_agent_send(struct mshare_agent *a, char cmd, unsigned long arg)
{
	struct agent_msg msg = { .cmd = cmd, .arg = arg };

	return write(a->cmd_fd, &msg, sizeof(msg)) == sizeof(msg) ? 0 : -1;
}

int mshare_agent_reply(struct mshare_agent *a)
{
	int reply;

	if (read(a->reply_fd, &reply, sizeof(reply)) != sizeof(reply))
		return -1;
	return reply;
}

int mshare_agent_do(struct mshare_agent *a, char cmd, unsigned long arg)
{
	if (mshare_agent_send(a, cmd, arg))
		return -1;
	return mshare_agent_reply(a);
}

int mshare_agent_stop(struct mshare_agent *a)
{
	struct harness_child_result res;
	int ret = -1;

	if (!a->pid)
		return -1;
	mshare_agent_send(a, AGENT_EXIT, 0);
	close(a->cmd_fd);
	close(a->reply_fd);
	if (!harness_wait_child(a->pid, &res) && res.exited)
		ret = res.status;
	a->pid = 0;
	return ret;
}

const char *mshare_errname(int err)
{
	static char unknown[32];
	const char *name;

	if (!err)
		return "success";
	if (err == MSHARE_ERR_VALUE)
		return "wrong value";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(unknown, sizeof(unknown), "errno %d", err);
	return unknown;
}

void mshare_assert_errno(int got, int want, const char *what,
			 unsigned int line, const char *file, const char *func)
{
	char cond[256];
	int len;

	/* mshare_errname() may return its static buffer: one call a time */
	len = snprintf(cond, sizeof(cond), "%s: want %s", what,
		       mshare_errname(want));
	snprintf(cond + len, sizeof(cond) - len, ", got %s",
		 mshare_errname(got));
	/* CUnit keeps a copy of the condition text */
	CU_assertImplementation(got == want, line, cond, file, func, CU_FALSE);
}

void mshare_assert_eq(long got, long want, const char *what,
		      unsigned int line, const char *file, const char *func)
{
	char cond[256];

	snprintf(cond, sizeof(cond), "%s: want %ld, got %ld", what, want, got);
	CU_assertImplementation(got == want, line, cond, file, func, CU_FALSE);
}

struct mshare_report *mshare_report_new(void)
{
	struct mshare_report *r;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	return r;
}

void mshare_report_free(struct mshare_report *r)
{
	if (r)
		munmap(r, sizeof(*r));
}

void mshare_report_step(struct mshare_report *r, const char *step)
{
	snprintf(r->step, sizeof(r->step), "%s", step);
	r->err = 0;
}

int mshare_report_fail(struct mshare_report *r, int err)
{
	r->err = err ? err : MSHARE_ERR_VALUE;
	return 1;
}

int mshare_report_done(struct mshare_report *r)
{
	r->step[0] = '\0';
	r->err = 0;
	return 0;
}

/* What the child did, as a condition: "mmap: EINVAL", "every step". */
static int report_text(char *buf, size_t size,
		       const struct harness_child_result *res,
		       const struct mshare_report *r)
{
	if (res->timed_out && !res->signaled)
		return snprintf(buf, size,
				"timed out in %s, SIGKILL did not end it",
				r->step);
	if (res->timed_out)
		return snprintf(buf, size, "timed out in %s", r->step);
	if (res->signaled)
		return snprintf(buf, size, "signal %d in %s", res->signo,
				r->step);
	if (!res->exited)
		return snprintf(buf, size, "not reaped in %s", r->step);
	if (res->status == 0 && !r->step[0])
		return snprintf(buf, size, "every step done");
	if (res->status == 1 && r->step[0])
		return snprintf(buf, size, "%s: %s", r->step,
				mshare_errname(r->err));
	return snprintf(buf, size, "exit %d in %s", res->status, r->step);
}

void mshare_assert_child(const struct harness_child_result *res,
			 const struct mshare_report *r, const char *want_step,
			 int want_err, unsigned int line, const char *file,
			 const char *func)
{
	bool ok;
	char cond[256];
	int len;

	if (want_step) {
		len = snprintf(cond, sizeof(cond), "child: want %s: %s, got ",
			       want_step, mshare_errname(want_err));
		ok = res->exited && res->status == 1 &&
		     !strcmp(r->step, want_step) && r->err == want_err;
	} else {
		len = snprintf(cond, sizeof(cond),
			       "child: want every step done, got ");
		ok = res->exited && res->status == 0 && !r->step[0];
	}
	report_text(cond + len, sizeof(cond) - len, res, r);
	CU_assertImplementation(ok, line, cond, file, func, CU_FALSE);
}

bool mshare_old_pte_access_faults(void)
{
	return !harness_requires_uml();
}

void mshare_assert_stages(const long *got, const long *want,
			  const char *const *names, int n,
			  unsigned long own_mask, unsigned int line,
			  const char *file, const char *func)
{
	bool check_own = mshare_old_pte_access_faults();
	int i;

	if (!check_own)
		printf("    not checked (the CPU may have cached the translations):");
	for (i = 0; i < n; i++) {
		if (!check_own && (own_mask & (1UL << i)))
			printf(" %s;", names[i]);
		else
			mshare_assert_eq(got[i], want[i], names[i], line,
					 file, func);
	}
	if (!check_own)
		printf("\n");
}
