// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for test bodies.
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "test_util.h"

/* /proc/meminfo is about 1.5 kB; leave room for kernels that add fields. */
#define PROC_TEXT_MAX	16384

static void (*child_release)(void);

/* main() sets this so a child frees the harness state before leaving. */
void harness_set_child_release(void (*release)(void))
{
	child_release = release;
}

/*
 * _exit(), not exit(): the child must not flush stdio buffers or run
 * atexit handlers that belong to the parent.  Freeing first keeps
 * valgrind's leak check of the child clean.
 */
void harness_child_exit(int status)
{
	harness_child_release();
	_exit(status);
}

/* For a child that ends by a signal: valgrind still checks it for leaks. */
void harness_child_release(void)
{
	if (child_release)
		child_release();
	child_release = NULL;
}

pid_t harness_start_child(int (*fn)(void *arg), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		harness_child_exit(fn(arg));
	return pid;
}

int harness_wait_child(pid_t pid, struct harness_child_result *res)
{
	int wstatus;

	memset(res, 0, sizeof(*res));
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			return -errno;
	res->exited = WIFEXITED(wstatus);
	res->status = res->exited ? WEXITSTATUS(wstatus) : 0;
	res->signaled = WIFSIGNALED(wstatus);
	res->signo = res->signaled ? WTERMSIG(wstatus) : 0;
	return 0;
}

int harness_run_child(int (*fn)(void *arg), void *arg,
		      struct harness_child_result *res)
{
	pid_t pid;

	memset(res, 0, sizeof(*res));
	pid = harness_start_child(fn, arg);
	if (pid < 0)
		return pid;
	return harness_wait_child(pid, res);
}

/* Reap @pid if it has ended, for up to @ms milliseconds; 1 if reaped. */
static int reap_within(pid_t pid, unsigned int ms, int *wstatus)
{
	unsigned int waited;
	pid_t got;

	for (waited = 0;; waited += 10) {
		got = waitpid(pid, wstatus, WNOHANG);
		if (got == pid)
			return 1;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (waited >= ms)
			return 0;
		usleep(10000);
	}
}

int harness_wait_child_timeout(pid_t pid, unsigned int seconds,
			       struct harness_child_result *res)
{
	int wstatus = 0, ret;

	memset(res, 0, sizeof(*res));
	ret = reap_within(pid, seconds * 1000U, &wstatus);
	if (!ret) {
		res->timed_out = true;
		kill(pid, SIGKILL);
		ret = reap_within(pid, 1000, &wstatus);
	}
	if (ret < 0)
		return ret;
	if (!ret)
		return 0;	/* unkillable: left behind, see the header */
	res->exited = WIFEXITED(wstatus);
	res->status = res->exited ? WEXITSTATUS(wstatus) : 0;
	res->signaled = WIFSIGNALED(wstatus);
	res->signo = res->signaled ? WTERMSIG(wstatus) : 0;
	return 0;
}

int harness_start_paused_child(struct harness_paused_child *pc,
			       int (*fn)(void *arg), void *arg)
{
	struct harness_child_result res;
	char byte;
	ssize_t n;
	int err;

	if (pipe2(pc->ready, O_CLOEXEC))
		return -errno;
	if (pipe2(pc->go, O_CLOEXEC)) {
		close(pc->ready[0]);
		close(pc->ready[1]);
		return -errno;
	}
	pc->pid = harness_start_child(fn, arg);
	/* The child's ends only: a child that ends ends the read */
	close(pc->ready[1]);
	close(pc->go[0]);
	n = pc->pid < 0 ? 0 : read(pc->ready[0], &byte, 1);
	if (n == 1)
		return 0;
	err = n < 0 ? -errno : pc->pid < 0 ? pc->pid : -EPIPE;
	close(pc->ready[0]);
	close(pc->go[1]);
	if (pc->pid > 0)
		harness_wait_child(pc->pid, &res);
	return err;
}

int harness_child_pause(struct harness_paused_child *pc)
{
	char byte = 0;

	if (write(pc->ready[1], &byte, 1) != 1 || read(pc->go[0], &byte, 1) != 1)
		return -1;
	return 0;
}

int harness_release_paused_child(struct harness_paused_child *pc,
				 unsigned int seconds,
				 struct harness_child_result *res)
{
	char byte = 0;
	int ret;

	ret = write(pc->go[1], &byte, 1) == 1 ? 0 : -errno;
	if (!ret)
		ret = harness_wait_child_timeout(pc->pid, seconds, res);
	close(pc->ready[0]);
	close(pc->go[1]);
	return ret;
}

int harness_run_child_timeout(int (*fn)(void *arg), void *arg,
			      unsigned int seconds,
			      struct harness_child_result *res)
{
	pid_t pid;

	memset(res, 0, sizeof(*res));
	pid = harness_start_child(fn, arg);
	if (pid < 0)
		return pid;
	return harness_wait_child_timeout(pid, seconds, res);
}

int harness_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n == (ssize_t)len ? 0 : (n < 0 ? n : -EIO);
}

/* Read a small file whole, NUL-terminated; returns its length or -errno. */
ssize_t harness_read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int err = 0;
	ssize_t n;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return err ? -err : (ssize_t)len;
}

/*
 * Find "Field:   1234 kB" at the start of a line of /proc/meminfo or
 * /proc/PID/status text.  Returns 0 and the value, or -ENOENT.
 */
int harness_kb_field_parse(const char *text, const char *field, long *kb)
{
	size_t len = strlen(field);
	const char *line = text;
	char *end;
	long val;

	while (line && *line) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			val = strtol(line + len + 1, &end, 10);
			if (end != line + len + 1 && !strncmp(end, " kB", 3)) {
				*kb = val;
				return 0;
			}
			return -EINVAL;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

static long proc_kb(const char *path, const char *field)
{
	static char text[PROC_TEXT_MAX];
	long kb;

	if (harness_read_file(path, text, sizeof(text)) < 0)
		return -1;
	if (harness_kb_field_parse(text, field, &kb))
		return -1;
	return kb;
}

/* A /proc/meminfo field in kB, or -1. */
double harness_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

long harness_meminfo_kb(const char *field)
{
	return proc_kb("/proc/meminfo", field);
}

/* A /proc/self/status field in kB (e.g. "VmPTE"), or -1. */
long harness_proc_status_kb(const char *field)
{
	return proc_kb("/proc/self/status", field);
}

/* The same for another process, e.g. a child that is still running. */
long harness_pid_status_kb(pid_t pid, const char *field)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	return proc_kb(path, field);
}

int harness_pagemap_entry(int fd, uintptr_t addr, uint64_t *entry)
{
	off_t off = addr / sysconf(_SC_PAGESIZE) * sizeof(*entry);
	ssize_t n = pread(fd, entry, sizeof(*entry), off);

	if (n == sizeof(*entry))
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

long harness_pagemap_present(uintptr_t addr, long pages)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	long page = sysconf(_SC_PAGESIZE), i, present = 0;
	uint64_t entry;

	if (fd < 0)
		return -1;
	for (i = 0; i < pages; i++) {
		if (harness_pagemap_entry(fd, addr + i * page, &entry)) {
			present = -1;
			break;
		}
		present += !!(entry & PM_PRESENT);
	}
	close(fd);
	return present;
}

long harness_pages_with_kpageflag(uintptr_t addr, long pages, int kpf)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	long page = sysconf(_SC_PAGESIZE), i, count = -1;
	uint64_t entry, flags;

	if (pm < 0 || kf < 0)
		goto out;
	for (count = 0, i = 0; i < pages; i++) {
		if (harness_pagemap_entry(pm, addr + i * page, &entry)) {
			count = -1;
			break;
		}
		if (!(entry & PM_PRESENT))
			continue;
		if (pread(kf, &flags, sizeof(flags),
			  (entry & PM_PFN_MASK) * sizeof(flags)) !=
		    sizeof(flags)) {
			count = -1;
			break;
		}
		count += !!(flags & (1ULL << kpf));
	}
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return count;
}

long harness_mincore_resident(uintptr_t addr, long pages)
{
	long page = sysconf(_SC_PAGESIZE), i, resident = 0;
	unsigned char *vec = malloc(pages);

	if (!vec || mincore((void *)addr, pages * page, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < pages; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

/* A /proc/vmstat counter ("pgfault 1234" lines, no unit), or -1. */
long harness_vmstat(const char *field)
{
	static char text[PROC_TEXT_MAX];
	size_t len = strlen(field);
	const char *line;
	char *end;
	long val;

	if (harness_read_file("/proc/vmstat", text, sizeof(text)) < 0)
		return -1;
	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, field, len) || line[len] != ' ')
			continue;
		val = strtol(line + len + 1, &end, 10);
		return end == line + len + 1 ? -1 : val;
	}
	return -1;
}

/*
 * On SMP kernels /proc/meminfo lags behind by the per-cpu counter deltas
 * (up to hundreds of pages on a big host), enough to hide a 32-page
 * change.  Folding them first makes it exact.  Best effort: needs root,
 * and !SMP kernels (UML) have no stat_refresh and no lag.
 */
void harness_vm_stat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	/* On failure the figures are just less exact: nothing to do. */
	if (write(fd, "1", 1) != 1)
		errno = 0;
	close(fd);
}

/*
 * A read-write mapping of size bytes: private anonymous memory (with no
 * commit charge) when memfd_name is NULL, else a MAP_SHARED memfd of that
 * name.  MAP_FAILED on failure, with errno set.
 */
void *harness_map_rw(size_t size, const char *memfd_name)
{
	if (!memfd_name)
		return mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return harness_map_memfd(NULL, size, memfd_name);
}

void *harness_map_memfd(void *addr, size_t size, const char *name)
{
	int flags = MAP_SHARED | (addr ? MAP_FIXED : 0);
	void *p;
	int fd;

	fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	if (ftruncate(fd, size)) {
		close(fd);
		return MAP_FAILED;
	}
	p = mmap(addr, size, PROT_READ | PROT_WRITE, flags, fd, 0);
	/* The mapping keeps the file alive. */
	close(fd);
	return p;
}

int harness_kernel_param(const char *name, char *buf, size_t size)
{
	static char cmdline[4096];
	size_t name_len = strlen(name), len;
	const char *p;
	ssize_t ret;

	ret = harness_read_file("/proc/cmdline", cmdline, sizeof(cmdline));
	if (ret < 0)
		return ret;
	for (p = cmdline; (p = strstr(p, name)); p++) {
		if ((p == cmdline || p[-1] == ' ') && p[name_len] == '=')
			break;
	}
	if (!p)
		return -ENOENT;
	p += name_len + 1;
	len = strcspn(p, " \t\n");
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return 0;
}
