// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect() of a region: "changing the protection of memory within that
 * region with mprotect() will affect all processes sharing the area".
 *
 * One sharer (an agent) changes the protection of a few pages of the
 * region; the others, whether they had those pages mapped already (a live
 * agent) or fault them in afterwards (a new process), follow the new
 * protection, and follow it back.  The control is a MAP_SHARED memfd
 * mapping: there mprotect() changes the caller's mapping only, and the
 * others go on writing - the documented difference.
 *
 * Rules pinned down here (docs/regions.md, "mprotect() and mremap() of a
 * region"):
 * - what a sharer may do is its own vma's protection and the region's
 *   there, together: a sharer that mapped read-only never writes because
 *   another made the region writable;
 * - only a sharer that opened the region's file for writing changes the
 *   region (EACCES otherwise), so a read-only sharer cannot PROT_NONE it
 *   for everyone;
 * - PROT_EXEC stays refused: msharefs is noexec (EACCES);
 * - page lookups (GUP) follow the region too; FOLL_FORCE (/proc/PID/mem)
 *   reads where the region gives no access, as it does in any mapping.
 *
 * In the faithful port mprotect() of a part split the caller's vma and
 * changed the PTEs that existed; the region's vma kept its protection, so
 * pages faulted in later were writable again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "mshare_util.h"
#include "shm_target.h"

#define MPROTECT_ADDR(slot)	MSHARE_ADDR(120 + (slot))
#define WIDENED_ADDR(slot)	MSHARE_ADDR(192 + (slot))
#define CHILD_TIMEOUT		30
#define LAYOUT_PATH		"/sys/kernel/debug/mshare/layout"

/* The pages a test changes: 4 of them from page 8, in the first 2 MiB */
#define CHANGED_OFF		(8 * PAGE)
#define CHANGED_PAGES		4
/* A page in the middle of them, and one after them */
#define INSIDE_OFF		(CHANGED_OFF + 2 * PAGE)
#define OUTSIDE_OFF		(CHANGED_OFF + CHANGED_PAGES * PAGE)

/* What the region and the memfd control each give for one step */
struct mprotect_want {
	long region;
	long memfd;
};

struct mprotect_case {
	struct shm_target target;
	struct mshare_report *report;
	/* for the probing child */
	int prot;		/* its mapping's */
	unsigned long off;	/* where it reads or writes */
	bool write;
};

static long want(const struct mprotect_case *c, struct mprotect_want w)
{
	return c->target.kind == SHM_REGION ? w.region : w.memfd;
}

/* A new process maps the memory with c->prot and reads or writes c->off */
static int probing_child(void *arg)
{
	struct mprotect_case *c = arg;
	volatile unsigned long *w;
	char *p;

	p = shm_target_map(&c->target, c->prot);
	if (!p)
		return 100;
	w = (unsigned long *)(p + c->off);
	if (c->write)
		*w = c->off + 1;
	else
		(void)*w;
	return 0;
}

/*
 * How a new process's access ends: SHM_CHILD_EXIT (it worked), SIGSEGV,
 * or SHM_CHILD_EXIT + 100 if it could not map.
 */
static long probe(struct mprotect_case *c, int prot, unsigned long off,
		  bool write)
{
	struct harness_child_result res;

	c->prot = prot;
	c->off = off;
	c->write = write;
	if (harness_run_child_timeout(probing_child, c, CHILD_TIMEOUT, &res))
		return -1;
	return shm_child_outcome(&res);
}

/*
 * How an agent's command ends: its reply, or, when the agent died doing
 * it, the signal that killed it (the agent is then reaped).
 */
static long agent_outcome(struct mshare_agent *a, char cmd, unsigned long arg)
{
	struct harness_child_result res;
	int reply = mshare_agent_do(a, cmd, arg);

	if (reply >= 0)
		return SHM_CHILD_EXIT + reply;
	close(a->cmd_fd);
	close(a->reply_fd);
	if (harness_wait_child(a->pid, &res))
		return -1;
	a->pid = 0;
	return shm_child_outcome(&res);
}

/*
 * The vmas <debugfs>/mshare/layout lists for region @name (its indented
 * lines after "name=@name"), or -1.
 */
static int layout_vmas(const char *name)
{
	static char text[16384];
	char head[128];
	const char *p;
	int n = 0;

	if (harness_read_file(LAYOUT_PATH, text, sizeof(text)) < 0)
		return -1;
	snprintf(head, sizeof(head), "name=%s\n", name);
	p = strstr(text, head);
	if (!p)
		return -1;
	for (p += strlen(head); !strncmp(p, "  ", 2); n++)
		p = strchr(p, '\n') + 1;
	return n;
}

#define OK		SHM_CHILD_EXIT
#define SEGV		SIGSEGV
#define PROT_RW		(PROT_READ | PROT_WRITE)

/*
 * A sharer makes 4 pages read-only: a live sharer that had one of them
 * mapped writable and a new process both get SIGSEGV writing there, and
 * write next to them; back to read-write, and everyone writes again.
 */
static void run_read_only_part(struct mprotect_case *c)
{
	const struct mprotect_want segv_on_region = { SEGV, OK };
	struct mshare_agent changer, live;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&changer, &c->target, 1),
			      0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&live, &c->target, 2),
			      0);
	/* Mapped writable in the live sharer before the change */
	MSHARE_ASSERT_EQ(mshare_agent_do(&live, AGENT_WRITE, CHANGED_OFF), 0);

	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(CHANGED_OFF, CHANGED_PAGES,
					    PROT_READ)), 0);
	/* Never faulted before the change: the seed's blind spot */
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, INSIDE_OFF, true),
			 want(c, segv_on_region));
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, INSIDE_OFF, false), OK);
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, OUTSIDE_OFF, true), OK);
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, 0, true), OK);
	MSHARE_ASSERT_EQ(agent_outcome(&live, AGENT_CHECK, CHANGED_OFF), OK);
	MSHARE_ASSERT_EQ(agent_outcome(&live, AGENT_WRITE, OUTSIDE_OFF), OK);

	/* The region's vma split in three; the window stays one */
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(layout_vmas(c->target.name), 3);

	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(CHANGED_OFF, CHANGED_PAGES,
					    PROT_RW)), 0);
	/* and merges again */
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(layout_vmas(c->target.name), 1);
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, INSIDE_OFF, true), OK);
	MSHARE_ASSERT_EQ(agent_outcome(&changer, AGENT_WRITE, CHANGED_OFF),
			 OK);

	/* Read-only again: the live sharer, mapped writable, gets SIGSEGV */
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(CHANGED_OFF, CHANGED_PAGES,
					    PROT_READ)), 0);
	MSHARE_ASSERT_EQ(agent_outcome(&live, AGENT_WRITE, CHANGED_OFF),
			 want(c, segv_on_region));
	/* And the changer itself, on either kind */
	MSHARE_ASSERT_EQ(agent_outcome(&changer, AGENT_WRITE, CHANGED_OFF),
			 SEGV);

	if (live.pid)
		CU_ASSERT_EQUAL(mshare_agent_stop(&live), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * PROT_NONE on a part: nobody reads it, and page lookups follow: a
 * process_vm_readv() of it fails, a FOLL_FORCE read (/proc/PID/mem, as a
 * debugger reads) works, as in a PROT_NONE mapping of the reader's own.
 */
struct gup_probe {
	struct mprotect_case *c;
	int pipe_fd;		/* the child writes its pid, then waits */
	int test_fd;		/* the test's end, closed in the child */
};

static int mapped_and_waiting(void *arg)
{
	struct gup_probe *g = arg;
	pid_t pid = getpid();
	char byte;

	close(g->test_fd);
	if (!shm_target_map(&g->c->target, PROT_RW))
		return 100;
	if (write(g->pipe_fd, &pid, sizeof(pid)) != sizeof(pid))
		return 101;
	/* Until the test closes its end */
	while (read(g->pipe_fd, &byte, 1) > 0)
		;
	return 0;
}

/* Bytes process_vm_readv() read of @pid at @addr, or -errno */
static long vm_read(pid_t pid, unsigned long addr)
{
	unsigned long word;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote = { (void *)addr, sizeof(word) };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	return n < 0 ? -errno : n;
}

/* Bytes pread() of /proc/@pid/mem read at @addr, or -errno */
static long mem_read(pid_t pid, unsigned long addr)
{
	unsigned long word;
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &word, sizeof(word), addr);
	n = n < 0 ? -errno : n;
	close(fd);
	return n;
}

static void run_prot_none_part(struct mprotect_case *c)
{
	const struct mprotect_want segv_on_region = { SEGV, OK };
	const struct mprotect_want efault_on_region = { -EFAULT, 8 };
	struct mshare_agent changer;
	struct gup_probe g = { .c = c };
	struct harness_child_result res;
	int fds[2];
	pid_t pid;
	unsigned long at = c->target.addr + INSIDE_OFF;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&changer, &c->target, 1),
			      0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_WRITE, INSIDE_OFF),
			 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(CHANGED_OFF, CHANGED_PAGES,
					    PROT_NONE)), 0);
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, INSIDE_OFF, false),
			 want(c, segv_on_region));
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, OUTSIDE_OFF, false), OK);

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
	g.pipe_fd = fds[1];
	g.test_fd = fds[0];
	CU_ASSERT_FATAL(harness_start_child(mapped_and_waiting, &g) > 0);
	close(fds[1]);
	if (read(fds[0], &pid, sizeof(pid)) == sizeof(pid)) {
		MSHARE_ASSERT_EQ(vm_read(pid, at), want(c, efault_on_region));
		MSHARE_ASSERT_EQ(mem_read(pid, at), 8);
		MSHARE_ASSERT_EQ(vm_read(pid, c->target.addr + OUTSIDE_OFF), 8);
	} else {
		CU_FAIL("the mapping child did not start");
	}
	close(fds[0]);
	CU_ASSERT_EQUAL(harness_wait_child(pid, &res), 0);

	CU_ASSERT_EQUAL(mshare_agent_stop(&changer), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * A child's calls, one errno each (0 for success), in memory it shares
 * with the test: the test asserts each with its name in the message.
 */
enum {
	CALL_MPROTECT_RW,
	CALL_MPROTECT_NONE,
	CALL_MPROTECT_EXEC,
	CALL_WRITE_OWN,		/* a store, through its own mapping */
	CALL_VM_WRITEV,
	CALL_MEM_PWRITE,
	CALL_POPULATE_WRITE,
	CALL_READ_INTO,
	CALL_NR
};

struct call_results {
	int err[CALL_NR];
};

static struct call_results *call_results_new(void)
{
	struct call_results *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return NULL;
	memset(r->err, 0xff, sizeof(r->err));	/* -1: not reached */
	return r;
}

static int call_err(long ret)
{
	return ret < 0 ? errno : 0;
}

/* The memory's fd, opened read-only, the way a read-only sharer has it */
static int open_read_only(const struct shm_target *t)
{
	char path[256];

	if (t->kind == SHM_REGION)
		mshare_path(path, sizeof(path), t->name);
	else
		snprintf(path, sizeof(path), "/proc/self/fd/%d", t->memfd);
	return open(path, O_RDONLY | O_CLOEXEC);
}

struct rules_run {
	struct mprotect_case *c;
	struct call_results *res;
};

/* Opened read-only: may it change the protection? */
static int read_only_file_child(void *arg)
{
	struct rules_run *run = arg;
	const struct shm_target *t = &run->c->target;
	int *err = run->res->err;
	char *p;
	int fd;

	fd = open_read_only(t);
	if (fd < 0)
		return 100;
	p = mmap((void *)t->addr, mshare_unit(), PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 101;
	err[CALL_MPROTECT_RW] = call_err(mprotect(p + CHANGED_OFF, PAGE,
						  PROT_READ | PROT_WRITE));
	err[CALL_MPROTECT_NONE] = call_err(mprotect(p + CHANGED_OFF, PAGE,
						    PROT_NONE));
	return 0;
}

/* Opened read-write: exec stays refused, PROT_READ|PROT_WRITE is fine */
static int read_write_file_child(void *arg)
{
	struct rules_run *run = arg;
	int *err = run->res->err;
	char *p;

	p = shm_target_map(&run->c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 100;
	err[CALL_MPROTECT_EXEC] = call_err(mprotect(p + CHANGED_OFF, PAGE,
						    PROT_READ | PROT_EXEC));
	err[CALL_MPROTECT_RW] = call_err(mprotect(p + CHANGED_OFF, PAGE,
						  PROT_READ | PROT_WRITE));
	return 0;
}

static void run_child_calls(struct mprotect_case *c, int (*fn)(void *arg),
			    struct call_results **resp)
{
	struct rules_run run = { .c = c };
	struct harness_child_result res;

	run.res = call_results_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.res);
	CU_ASSERT_EQUAL(harness_run_child_timeout(fn, &run, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), OK);
	*resp = run.res;
}

#define ASSERT_CALL(res, call, want_err)				\
	mshare_assert_errno((res)->err[call], (want_err), #call,	\
			    __LINE__, __FILE__, __func__)

/*
 * Opened read-only: no change of the region's protection at all, not
 * even PROT_NONE, which would take it from every sharer; the memfd
 * control may PROT_NONE its own mapping.  PROT_EXEC: msharefs is
 * noexec; a memfd is not.
 */
static void run_rules(struct mprotect_case *c)
{
	const struct mprotect_want none = { EACCES, 0 };
	const struct mprotect_want exec = { EACCES, 0 };
	struct call_results *res;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	run_child_calls(c, read_only_file_child, &res);
	ASSERT_CALL(res, CALL_MPROTECT_RW, EACCES);
	ASSERT_CALL(res, CALL_MPROTECT_NONE, want(c, none));
	munmap(res, sizeof(*res));

	run_child_calls(c, read_write_file_child, &res);
	ASSERT_CALL(res, CALL_MPROTECT_EXEC, want(c, exec));
	ASSERT_CALL(res, CALL_MPROTECT_RW, 0);
	munmap(res, sizeof(*res));
	/* Nothing changed for the next process */
	MSHARE_ASSERT_EQ(probe(c, PROT_RW, CHANGED_OFF, true), OK);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * Page lookups that write, in a sharer mapped read-write, to pages the
 * region made read-only: process_vm_writev() and read() into them fail
 * with EFAULT, a FOLL_FORCE write to /proc/self/mem with EIO, and
 * MADV_POPULATE_WRITE with EINVAL, as for a read-only mapping of the
 * process's own.  On the memfd control they all work.
 */
static int gup_writing_child(void *arg)
{
	struct rules_run *run = arg;
	int *err = run->res->err;
	unsigned long word = 7;
	struct iovec local = { &word, sizeof(word) };
	struct iovec remote;
	int fd, pipe_fds[2];
	char *p, *at;

	p = shm_target_map(&run->c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 100;
	at = p + INSIDE_OFF;
	remote.iov_base = at;
	remote.iov_len = sizeof(word);
	err[CALL_VM_WRITEV] = call_err(process_vm_writev(getpid(), &local, 1,
							  &remote, 1, 0));
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 101;
	err[CALL_MEM_PWRITE] = call_err(pwrite(fd, &word, sizeof(word),
					       (unsigned long)at));
	close(fd);
	err[CALL_POPULATE_WRITE] = call_err(madvise(p + CHANGED_OFF,
						    CHANGED_PAGES * PAGE,
						    MADV_POPULATE_WRITE));
	if (pipe2(pipe_fds, O_CLOEXEC))
		return 102;
	if (write(pipe_fds[1], &word, sizeof(word)) != sizeof(word))
		return 103;
	err[CALL_READ_INTO] = call_err(read(pipe_fds[0], at, sizeof(word)));
	close(pipe_fds[0]);
	close(pipe_fds[1]);
	return 0;
}

static void run_gup_writes(struct mprotect_case *c)
{
	const struct mprotect_want efault = { EFAULT, 0 };
	const struct mprotect_want eio = { EIO, 0 };
	const struct mprotect_want einval = { EINVAL, 0 };
	struct mshare_agent changer;
	struct call_results *res;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&changer, &c->target, 1),
			      0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(CHANGED_OFF, CHANGED_PAGES,
					    PROT_READ)), 0);
	run_child_calls(c, gup_writing_child, &res);
	ASSERT_CALL(res, CALL_VM_WRITEV, want(c, efault));
	ASSERT_CALL(res, CALL_MEM_PWRITE, want(c, eio));
	ASSERT_CALL(res, CALL_POPULATE_WRITE, want(c, einval));
	ASSERT_CALL(res, CALL_READ_INTO, want(c, efault));
	munmap(res, sizeof(*res));
	CU_ASSERT_EQUAL(mshare_agent_stop(&changer), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * A sharer that mapped read-only never writes because another made the
 * region writable; its own mprotect() widens its mapping, which stays
 * one vma: then it writes wherever the region lets it.  The memfd's
 * mprotect() of a part changes that part only.
 */
/* Mapped without PROT_WRITE, from a file opened for writing */
static char *map_read_only_of_writable(const struct shm_target *t)
{
	char path[256];
	void *p;
	int fd = t->memfd;

	if (t->kind == SHM_REGION) {
		mshare_path(path, sizeof(path), t->name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return NULL;
	}
	p = mmap((void *)t->addr, mshare_unit(), PROT_READ,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (t->kind == SHM_REGION)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int mapped_read_only_child(void *arg)
{
	struct rules_run *run = arg;
	int *err = run->res->err;
	char *p;

	p = map_read_only_of_writable(&run->c->target);
	if (!p)
		return 100;
	err[CALL_MPROTECT_RW] = call_err(mprotect(p + CHANGED_OFF, PAGE,
						  PROT_READ | PROT_WRITE));
	*(volatile char *)(p + CHANGED_OFF) = 1;
	/* The region: allowed; the memfd: SIGSEGV */
	*(volatile char *)(p + OUTSIDE_OFF) = 1;
	return 0;
}

static int mapped_read_only_writer(void *arg)
{
	struct mprotect_case *c = arg;
	char *p = map_read_only_of_writable(&c->target);

	if (!p)
		return 100;
	*(volatile char *)p = 1;
	return 0;
}

static void run_mapped_read_only(struct mprotect_case *c)
{
	const struct mprotect_want outside = { OK, SEGV };
	struct harness_child_result res;
	struct rules_run run = { .c = c };
	struct mshare_agent changer;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL_FATAL(shm_target_start_agent(&changer, &c->target, 1),
			      0);
	/*
	 * The whole mapping read-only and read-write again: nothing is
	 * charged to the commit limit for it (which a GiB would already
	 * exceed here)
	 */
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(0UL, AGENT_MPROTECT_TO_END,
					    PROT_READ)), 0);
	MSHARE_ASSERT_EQ(mshare_agent_do(&changer, AGENT_MPROTECT,
			 AGENT_MPROTECT_ARG(0UL, AGENT_MPROTECT_TO_END,
					    PROT_READ | PROT_WRITE)), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mapped_read_only_writer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SEGV);

	run.res = call_results_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(run.res);
	CU_ASSERT_EQUAL(harness_run_child_timeout(mapped_read_only_child, &run,
						 CHILD_TIMEOUT, &res), 0);
	ASSERT_CALL(run.res, CALL_MPROTECT_RW, 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), want(c, outside));
	munmap(run.res, sizeof(*run.res));
	CU_ASSERT_EQUAL(mshare_agent_stop(&changer), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

/*
 * A sharer that mapped the memory read-only, from a file opened for
 * writing, and read it, then makes its mapping writable: its store goes
 * through.  On x86 its PGD entry, linked while it could only read, has no
 * _PAGE_RW: the write fault must link it again with the new access, or
 * the sharer faults on the same store for ever (the child's timeout).
 */
static int widened_sharer(void *arg)
{
	struct mprotect_case *c = arg;
	char *p = map_read_only_of_writable(&c->target);

	if (!p)
		return 100;
	(void)*(volatile char *)(p + INSIDE_OFF);
	if (mprotect(p, mshare_unit(), PROT_READ | PROT_WRITE))
		return 101;
	*(volatile char *)(p + INSIDE_OFF) = 1;
	return 0;
}

static void run_widened_sharer(struct mprotect_case *c)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(widened_sharer, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), OK);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
}

SHM_TEST_PAIR(struct mprotect_case, read_only_part, run_read_only_part,
	      MPROTECT_ADDR(0), MPROTECT_ADDR(1))
SHM_TEST_PAIR(struct mprotect_case, prot_none_part, run_prot_none_part,
	      MPROTECT_ADDR(2), MPROTECT_ADDR(3))
SHM_TEST_PAIR(struct mprotect_case, rules, run_rules,
	      MPROTECT_ADDR(4), MPROTECT_ADDR(5))
SHM_TEST_PAIR(struct mprotect_case, gup_writes, run_gup_writes,
	      MPROTECT_ADDR(6), MPROTECT_ADDR(7))
SHM_TEST_PAIR(struct mprotect_case, mapped_read_only, run_mapped_read_only,
	      MPROTECT_ADDR(8), MPROTECT_ADDR(9))
SHM_TEST_PAIR(struct mprotect_case, widened_sharer, run_widened_sharer,
	      WIDENED_ADDR(0), WIDENED_ADDR(1))

static const struct harness_test mshare_mprotect_tests[] = {
	{ "read_only_part_region", read_only_part_region },
	{ "read_only_part_memfd", read_only_part_memfd },
	{ "prot_none_part_region", prot_none_part_region },
	{ "prot_none_part_memfd", prot_none_part_memfd },
	{ "rules_region", rules_region },
	{ "rules_memfd", rules_memfd },
	{ "gup_writes_region", gup_writes_region },
	{ "gup_writes_memfd", gup_writes_memfd },
	{ "mapped_read_only_region", mapped_read_only_region },
	{ "mapped_read_only_memfd", mapped_read_only_memfd },
	{ "widened_sharer_region", widened_sharer_region },
	{ "widened_sharer_memfd", widened_sharer_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_mprotect_suite, .name = "mshare_mprotect",
	      .tests = mshare_mprotect_tests,
	      .requires = harness_requires_msharefs);
