// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's processes.  An agent runs one command at a time from a
 * SOCK_SEQPACKET socket and answers each; an access that faults
 * (SIGSEGV, SIGBUS) is caught and answered as such, so a process survives
 * a write to a read-only mapping or a read of an unmapped address.
 *
 * fork() happens inside an agent, which is the point (the child inherits
 * the region mappings), but with CLONE_PARENT: every agent is a child of
 * the test, which can then reap and kill them all alike.  The test passes
 * the new agent its socket with the command (SCM_RIGHTS).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "fail_nth.h"
#include "mshare_fuzz.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT	1
#endif

static sigjmp_buf fault_env;
static volatile sig_atomic_t fault_armed;

static void on_fault(int sig)
{
	if (!fault_armed)
		_exit(128 + sig);
	fault_armed = 0;
	siglongjmp(fault_env, sig);
}

static void catch_faults(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* Read or write the words of @c; r->fault_at is the one that faulted. */
static void access_words(const struct fz_cmd *c, struct fz_reply *r,
			 bool write)
{
	volatile unsigned int i = 0;
	volatile unsigned long *w;
	int sig;

	r->fault_at = -1;
	sig = sigsetjmp(fault_env, 1);
	if (sig) {
		r->fault_at = i;
		r->signo = sig;
		return;
	}
	fault_armed = 1;
	for (; i < c->n; i++) {
		w = (volatile unsigned long *)(c->addr + c->offs[i]);
		if (write)
			*w = c->vals[i];
		else
			r->vals[i] = *w;
	}
	fault_armed = 0;
}

/* One word in every 2 MiB span, then read them all back. */
static void touch_spans(const struct fz_cmd *c, struct fz_reply *r)
{
	volatile unsigned long span = 0;
	volatile unsigned long *w;
	unsigned long off;
	int sig;

	r->fault_at = -1;
	sig = sigsetjmp(fault_env, 1);
	if (sig) {
		r->fault_at = span;
		r->signo = sig;
		return;
	}
	fault_armed = 1;
	for (; span < c->len / PT_SPAN; span++) {
		off = span * PT_SPAN + FZ_TOUCH_WORD(c->off);
		w = (volatile unsigned long *)(c->addr + off);
		*w = c->arg ^ off;
	}
	fault_armed = 0;
	for (off = FZ_TOUCH_WORD(c->off); off < c->len; off += PT_SPAN) {
		w = (volatile unsigned long *)(c->addr + off);
		if (*w != (c->arg ^ off))
			r->bad_words++;
	}
}

static long ret_or_errno(long ret)
{
	return ret < 0 ? -errno : ret;
}

static void do_mmap(const struct fz_cmd *c, struct fz_reply *r)
{
	int fd = c->fd;
	void *p;

	if (fd < 0) {
		fd = open(c->path, c->flags | O_CLOEXEC);
		if (fd < 0) {
			r->ret = -errno;
			r->stage = FZS_OPEN;
			return;
		}
	}
	p = mmap((void *)c->addr, c->len, c->prot, c->arg, fd, c->off);
	r->ret = p == MAP_FAILED ? -errno : 0;
	if (c->fd < 0)
		close(fd);
}

/*
 * A file's first page, mapped shared, moved with mremap() to c->addr; the
 * mapping is dropped again if the move fails.
 */
static void do_move_file(const struct fz_cmd *c, struct fz_reply *r)
{
	int fd = open(c->path, O_RDWR | O_CLOEXEC);
	void *f;

	if (fd < 0) {
		r->ret = -errno;
		r->stage = FZS_OPEN;
		return;
	}
	f = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (f == MAP_FAILED) {
		r->ret = -errno;
		r->stage = FZS_OPEN;
		return;
	}
	if (mremap(f, PAGE, PAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)c->addr) == MAP_FAILED) {
		r->ret = -errno;
		munmap(f, PAGE);
		return;
	}
	r->ret = 0;
}

static void do_anon(const struct fz_cmd *c, struct fz_reply *r)
{
	void *p = mmap((void *)c->addr, c->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		       -1, 0);

	r->ret = p == MAP_FAILED ? -errno : 0;
	if (!r->ret)
		access_words(c, r, false);
}

static void do_info(const struct fz_cmd *c, struct fz_reply *r)
{
	ssize_t n = pread(c->fd, &r->info, sizeof(r->info), 0);

	r->ret = n < 0 ? -errno : n;
}

/* A shared (not FUTEX_PRIVATE_FLAG) futex: keyed by what the page is. */
static void do_futex(const struct fz_cmd *c, struct fz_reply *r)
{
	struct timespec ts = {
		.tv_sec = c->arg2 / 1000,
		.tv_nsec = (c->arg2 % 1000) * 1000000,
	};

	r->ret = ret_or_errno(syscall(SYS_futex, (void *)c->addr, c->flags,
				      (unsigned int)c->arg,
				      c->flags == FUTEX_WAIT ? &ts : NULL,
				      NULL, 0));
}

/* Words of process c->arg through process_vm_readv/writev. */
static long gup_vm(const struct fz_cmd *c, struct fz_reply *r, bool write)
{
	struct iovec local[FZ_SAMPLES], remote[FZ_SAMPLES];
	unsigned int i;
	ssize_t n;

	for (i = 0; i < c->n; i++) {
		local[i].iov_base = write ? (void *)&c->vals[i] : &r->vals[i];
		local[i].iov_len = sizeof(long);
		remote[i].iov_base = (void *)(c->addr + c->offs[i]);
		remote[i].iov_len = sizeof(long);
	}
	if (write)
		n = process_vm_writev(c->arg, local, c->n, remote, c->n, 0);
	else
		n = process_vm_readv(c->arg, local, c->n, remote, c->n, 0);
	return ret_or_errno(n);
}

/* Words of process c->arg through /proc/PID/mem; stops at an error. */
static long gup_mem(const struct fz_cmd *c, struct fz_reply *r, bool write)
{
	char path[32];
	long done = 0;
	unsigned int i;
	ssize_t n;
	off_t at;
	int fd;

	snprintf(path, sizeof(path), "/proc/%lu/mem", c->arg);
	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < c->n; i++, done += n) {
		at = (off_t)(c->addr + c->offs[i]);
		if (write)
			n = pwrite(fd, &c->vals[i], sizeof(long), at);
		else
			n = pread(fd, &r->vals[i], sizeof(long), at);
		if (n != sizeof(long)) {
			done = n < 0 ? -errno : -EIO;
			break;
		}
	}
	close(fd);
	return done;
}

static void do_gup(const struct fz_cmd *c, struct fz_reply *r)
{
	switch (c->flags) {
	case FZG_READV:
		r->ret = gup_vm(c, r, false);
		break;
	case FZG_WRITEV:
		r->ret = gup_vm(c, r, true);
		break;
	case FZG_MEM_READ:
		r->ret = gup_mem(c, r, false);
		break;
	default:
		r->ret = gup_mem(c, r, true);
	}
}

/* The advice, then the sample words: what it kept. */
static void do_madvise(const struct fz_cmd *c, struct fz_reply *r)
{
	r->ret = ret_or_errno(madvise((void *)c->arg2, c->len, c->arg));
	access_words(c, r, false);
}

static long lock_call(const struct fz_cmd *c)
{
	void *addr = (void *)c->addr;

	switch (c->flags) {
	case FZL_MLOCK:
		return mlock(addr, c->len);
	case FZL_MLOCK_ONFAULT:
		return syscall(SYS_mlock2, addr, c->len, MLOCK_ONFAULT);
	case FZL_MUNLOCK:
		return munlock(addr, c->len);
	case FZL_MLOCKALL:
		return mlockall(MCL_CURRENT | MCL_ONFAULT);
	default:
		return munlockall();
	}
}

/* The call, then VmLck: what this process has locked. */
static void do_mlock(const struct fz_cmd *c, struct fz_reply *r)
{
	r->ret = ret_or_errno(lock_call(c));
	r->vmlck_kb = harness_proc_status_kb("VmLck");
}

static void do_msync(const struct fz_cmd *c, struct fz_reply *r)
{
	switch (c->arg) {
	case FZY_FSYNC:
		r->ret = ret_or_errno(fsync(c->fd));
		break;
	case FZY_FDATASYNC:
		r->ret = ret_or_errno(fdatasync(c->fd));
		break;
	default:
		r->ret = ret_or_errno(msync((void *)c->arg2, c->len,
					    c->flags));
	}
	access_words(c, r, false);
}

static void do_cmd(const struct fz_cmd *c, struct fz_reply *r)
{
	switch (c->op) {
	case FZC_OPEN:
		r->ret = ret_or_errno(open(c->path, c->flags, 0600));
		break;
	case FZC_CLOSE:
		r->ret = ret_or_errno(close(c->fd));
		break;
	case FZC_INFO:
		do_info(c, r);
		break;
	case FZC_MMAP:
		do_mmap(c, r);
		break;
	case FZC_ANON:
		do_anon(c, r);
		break;
	case FZC_MUNMAP:
		r->ret = ret_or_errno(munmap((void *)c->addr, c->len));
		break;
	case FZC_MPROTECT:
		r->ret = ret_or_errno(mprotect((void *)c->addr, c->len,
					       c->prot));
		break;
	case FZC_MOVE_FILE:
		do_move_file(c, r);
		break;
	case FZC_MREMAP:
		r->ret = mremap((void *)c->addr, c->len, c->arg, c->flags,
				(void *)c->arg2) == MAP_FAILED ? -errno : 0;
		break;
	case FZC_READ:
		access_words(c, r, false);
		break;
	case FZC_WRITE:
		access_words(c, r, true);
		break;
	case FZC_TOUCH:
		touch_spans(c, r);
		break;
	case FZC_UNLINK:
		r->ret = ret_or_errno(unlink(c->path));
		break;
	case FZC_LINK:
		r->ret = ret_or_errno(link(c->path, c->path2));
		break;
	case FZC_RENAME:
		r->ret = ret_or_errno(renameat2(AT_FDCWD, c->path, AT_FDCWD,
						c->path2, c->flags));
		break;
	case FZC_MKDIR:
		r->ret = ret_or_errno(mkdir(c->path, 0700));
		break;
	case FZC_RMDIR:
		r->ret = ret_or_errno(rmdir(c->path));
		break;
	case FZC_FUTEX:
		do_futex(c, r);
		break;
	case FZC_GUP:
		do_gup(c, r);
		break;
	case FZC_MADVISE:
		do_madvise(c, r);
		break;
	case FZC_MLOCK:
		do_mlock(c, r);
		break;
	case FZC_MSYNC:
		do_msync(c, r);
		break;
	default:
		r->ret = -EPROTO;	/* the test and the agent disagree */
	}
}

/* A command, and the descriptor passed along with FZC_FORK. */
static ssize_t recv_cmd(int sock, struct fz_cmd *c, int *passed)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = c, .iov_len = sizeof(*c) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*passed = -1;
	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	cm = CMSG_FIRSTHDR(&msg);
	if (n > 0 && cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(passed, CMSG_DATA(cm), sizeof(int));
	return n;
}

/*
 * fork() with the test as the parent.  No glibc fork handlers run: the
 * agent has one thread and uses no locks the child could inherit held.
 */
static pid_t fork_sibling(void)
{
	return syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0);
}

static int agent_main(void *arg)
{
	int sock = *(int *)arg;
	struct fz_reply r;
	struct fz_cmd c;
	char name[48];
	int passed;
	pid_t pid;

	catch_faults();
	for (;;) {
		if (recv_cmd(sock, &c, &passed) != sizeof(c))
			return 1;
		if (c.op == FZC_EXIT)
			return 0;
		memset(&r, 0, sizeof(r));
		r.fault_at = -1;
		snprintf(name, sizeof(name), "mshare_fuzz op #%u", c.fail_op);
		if (c.fail_nth > 0 && fail_nth_arm(name, c.fail_nth))
			r.ret = -EPROTO;	/* cannot arm: say so */
		else if (c.op == FZC_FORK) {
			pid = fork_sibling();
			if (pid == 0) {
				/* copy_process() left the child unarmed */
				fail_nth_forget();
				close(sock);
				sock = passed;
				continue;	/* the parent answers */
			}
			r.ret = pid < 0 ? -errno : pid;
			if (c.fail_nth > 0)
				r.injected = fail_nth_disarm(name, c.fail_nth);
			close(passed);
		} else {
			do_cmd(&c, &r);
			if (c.fail_nth > 0)
				r.injected = fail_nth_disarm(name, c.fail_nth);
		}
		if (send(sock, &r, sizeof(r), MSG_NOSIGNAL) != sizeof(r))
			return 1;
	}
}

/*
 * The agent keeps its socket and stdio; the descriptors it inherited from
 * the test (other agents' sockets, the kernel log) would keep those open.
 */
static int agent_start(void *arg)
{
	int sock = *(int *)arg;

	if (close_range(3, sock - 1, 0) || close_range(sock + 1, ~0U, 0))
		return 1;
	return agent_main(arg);
}

int fz_agent_spawn(struct fz_agent *a)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = harness_start_child(agent_start, &sv[1]);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return pid;
	}
	a->pid = pid;
	a->sock = sv[0];
	return 0;
}

static int send_with_fd(struct fz_agent *a, const struct fz_cmd *c, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)c, .iov_len = sizeof(*c) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	n = sendmsg(a->sock, &msg, MSG_NOSIGNAL);
	return n == sizeof(*c) ? 0 : -EPIPE;
}

int fz_agent_send(struct fz_agent *a, const struct fz_cmd *c)
{
	return send_with_fd(a, c, -1);
}

int fz_agent_recv(struct fz_agent *a, struct fz_reply *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = a->sock, .events = POLLIN };
	ssize_t n;
	int ret;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret == 0)
		return -ETIMEDOUT;
	do {
		n = recv(a->sock, r, sizeof(*r), 0);
	} while (n < 0 && errno == EINTR);
	return n == sizeof(*r) ? 0 : -EPIPE;
}

int fz_agent_call(struct fz_agent *a, const struct fz_cmd *c,
		  struct fz_reply *r, int timeout_ms)
{
	if (fz_agent_send(a, c))
		return -EPIPE;
	return fz_agent_recv(a, r, timeout_ms);
}

int fz_agent_fork(struct fz_agent *parent, struct fz_agent *child,
		  const struct fz_cmd *c, struct fz_reply *r, int timeout_ms)
{
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	ret = send_with_fd(parent, c, sv[1]);
	close(sv[1]);
	if (!ret)
		ret = fz_agent_recv(parent, r, timeout_ms);
	if (ret || r->ret <= 0) {
		close(sv[0]);
		return ret;
	}
	child->pid = r->ret;
	child->sock = sv[0];
	return 0;
}

int fz_agent_reap(struct fz_agent *a, int timeout_ms, int *wstatus)
{
	int waited;
	pid_t got;

	if (a->sock >= 0)
		close(a->sock);
	a->sock = -1;
	for (waited = 0;; waited += 5) {
		got = waitpid(a->pid, wstatus, WNOHANG);
		if (got == a->pid || (got < 0 && errno != EINTR))
			break;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		usleep(5000);
	}
	a->pid = 0;
	return got < 0 ? -ECHILD : 0;
}

int fz_agent_exit(struct fz_agent *a, int timeout_ms, int *wstatus)
{
	struct fz_cmd c = { .op = FZC_EXIT };

	fz_agent_send(a, &c);
	return fz_agent_reap(a, timeout_ms, wstatus);
}

int fz_agent_kill(struct fz_agent *a, int timeout_ms, int *wstatus)
{
	kill(a->pid, SIGKILL);
	return fz_agent_reap(a, timeout_ms, wstatus);
}
