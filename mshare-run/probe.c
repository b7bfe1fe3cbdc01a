// SPDX-License-Identifier: GPL-2.0
/*
 * mshare-run-probe: what tests/mshare_run.c runs under mshare-run, one
 * scenario an invocation, as a program of the user's would be: it uses
 * shared memory through libc alone and checks what it got.
 *
 *   probe anon SIZE WANT [exec|fixed-unaligned|locked|mlock|partial-unmap]
 *   probe sysv SIZE WANT
 *   probe sysv-removed SIZE      (IPC_RMID while attached)
 *   probe sysv-join ID VALUE     (run by "sysv" through execv)
 *   probe creator-exits SIZE     (the creator exits, its child still reads)
 *   probe killed SIZE            (a sharer killed with SIGKILL)
 *
 * WANT is "region" (the memory is a region mshare-run made), "plain"
 * (the kernel's own shared memory) or "fails-ERRNO" (the call fails so).
 * Exit 0 when everything was as wanted; each failure prints what was
 * wanted and what was found.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "size.h"

static const char *self;
static int failures;

#define check(cond, ...) do {						\
	if (!(cond)) {							\
		printf("probe: FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__);					\
		putchar('\n');						\
		failures++;						\
	}								\
} while (0)

/* A SIZE argument, as the launcher's options spell sizes */
static unsigned long parse_size(const char *text)
{
	unsigned long bytes;

	if (!mshare_run_parse_size(text, &bytes)) {
		fprintf(stderr, "probe: bad size %s\n", text);
		exit(2);
	}
	return bytes;
}

/* The /proc/self/maps line's path for @addr, "" for none, NULL unmapped. */
static const char *backing(unsigned long addr, char *path, size_t size)
{
	unsigned long start, end;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	const char *found = NULL;

	while (f && fgets(line, sizeof(line), f)) {
		int off = 0;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &start, &end, &off) < 2)
			continue;
		if (addr >= start && addr < end) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, size, "%s", off ? line + off : "");
			found = path;
			break;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* The memory at @addr is what @want says: a region of mshare-run's or not. */
static void check_kind(void *addr, const char *want, const char *prefix)
{
	char path[512];
	const char *got = backing((unsigned long)addr, path, sizeof(path));
	int region = got && strstr(got, prefix) != NULL;

	check(got, "nothing mapped at %p", addr);
	if (!strcmp(want, "region"))
		check(region, "want a region %s*, found %s", prefix, got ? got : "-");
	else
		check(!region, "want plain shared memory, found %s", got ? got : "-");
	printf("probe: %p is %s\n", addr, got ? got : "-");
}

/* A child sees what the parent wrote and the parent sees its reply. */
static void check_shared_with_child(volatile unsigned long *mem, unsigned long len)
{
	unsigned long last = len / sizeof(*mem) - 1;
	int status;
	pid_t pid;

	mem[0] = 0x1234;
	mem[last] = 0x5678;
	pid = fork();
	if (!pid)
		_exit(mem[0] == 0x1234 && mem[last] == 0x5678 &&
		      (mem[0] = 0xabcd) ? 0 : 1);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), "child did not read what was written");
	check(mem[0] == 0xabcd, "child's write not seen: %#lx", mem[0]);
}

static int want_errno(const char *want)
{
	static const struct { const char *name; int err; } errs[] = {
		{ "fails-EINVAL", EINVAL }, { "fails-EPERM", EPERM },
		{ "fails-ENODEV", ENODEV },
	};

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++)
		if (!strcmp(want, errs[i].name))
			return errs[i].err;
	return 0;
}

static void *map_anon(unsigned long len, const char *how)
{
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED | MAP_ANONYMOUS;
	void *addr = NULL;

	if (how && !strcmp(how, "exec"))
		prot |= PROT_EXEC;
	if (how && !strcmp(how, "locked"))
		flags |= MAP_LOCKED;
	if (how && !strcmp(how, "fixed-unaligned")) {
		/* A free range, one page past whatever alignment it had. */
		addr = mmap(NULL, len + 2 * 4096, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		addr = (char *)addr + 4096;
		flags |= MAP_FIXED;
	}
	return mmap(addr, len, prot, flags, -1, 0);
}

/* VmLck of this process in kB, or -1 */
static long vmlck_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * Locked memory, by MAP_LOCKED ("locked") or by mlock() of what was asked
 * ("mlock"): VmLck counts at least @len; a part cannot be unlocked (a
 * region is locked whole); munlock() of @len unlocks it all.
 */
static void check_locking(void *mem, unsigned long len, const char *how)
{
	if (!strcmp(how, "mlock"))
		check(!mlock(mem, len), "mlock(%p, %lu): %s", mem, len,
		      strerror(errno));
	check(vmlck_kb() >= (long)(len >> 10), "VmLck %ld kB, want %lu at least",
	      vmlck_kb(), len >> 10);
	check(munlock(mem, 4096) == -1 && errno == EINVAL,
	      "munlock of one page of a locked region: want EINVAL, got %d", errno);
	check(!munlock(mem, len), "munlock(%p, %lu): %s", mem, len, strerror(errno));
	check(vmlck_kb() == 0, "VmLck %ld kB after munlock, want 0", vmlck_kb());
}

static void scenario_anon(unsigned long len, const char *want, const char *how)
{
	int err = want_errno(want);
	void *mem = map_anon(len, how);

	if (err) {
		check(mem == MAP_FAILED && errno == err, "want errno %d, got %p/%d",
		      err, mem, errno);
		return;
	}
	check(mem != MAP_FAILED, "mmap: %s", strerror(errno));
	if (mem == MAP_FAILED)
		return;
	check_kind(mem, want, "/mshare-run.");
	check_shared_with_child(mem, len);
	if (how && (!strcmp(how, "locked") || !strcmp(how, "mlock")))
		check_locking(mem, len, how);
	if (how && !strcmp(how, "partial-unmap")) {
		check(munmap(mem, 4096) == -1 && errno == EINVAL,
		      "munmap of one page of a region: want EINVAL, got %d", errno);
		check(*(volatile unsigned long *)mem == 0xabcd,
		      "the region is not intact after a refused munmap");
	}
	check(!munmap(mem, len), "munmap(%p, %lu): %s", mem, len, strerror(errno));
	{
		char path[512];

		check(!backing((unsigned long)mem, path, sizeof(path)),
		      "still mapped after munmap: %s", path);
	}
}

static int nattch(int id, unsigned long *segsz)
{
	struct shmid_ds ds;

	if (shmctl(id, IPC_STAT, &ds))
		return -1;
	*segsz = ds.shm_segsz;
	return ds.shm_nattch;
}

/* A new IPC_PRIVATE segment of @len bytes, attached; NULL on failure. */
static volatile unsigned long *private_segment(unsigned long len, int *id)
{
	void *mem;

	*id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
	check(*id >= 0, "shmget: %s", strerror(errno));
	if (*id < 0)
		return NULL;
	mem = shmat(*id, NULL, 0);
	check(mem != (void *)-1, "shmat: %s", strerror(errno));
	return mem == (void *)-1 ? NULL : mem;
}

static void scenario_sysv(unsigned long len, const char *want)
{
	unsigned long segsz = 0;
	char idtext[16];
	volatile unsigned long *mem;
	int id, status;
	pid_t pid;

	mem = private_segment(len, &id);
	if (!mem)
		return;
	check_kind((void *)mem, want, "/mshare-run.sysv.");
	check(nattch(id, &segsz) == 1 && segsz == len,
	      "IPC_STAT: want 1 attach of %lu bytes, got %d of %lu", len,
	      nattch(id, &segsz), segsz);
	check_shared_with_child(mem, len);
	/* Another program attaches it by id, as a server's client would. */
	snprintf(idtext, sizeof(idtext), "%d", id);
	mem[1] = 0x42;
	pid = fork();
	if (!pid) {
		execl(self, self, "sysv-join", idtext, "66", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), "sysv-join failed: status %#x", status);
	check(mem[1] == 0x43, "sysv-join's write not seen: %#lx", mem[1]);
	check(nattch(id, &segsz) == 1, "after the other exited: %d attaches", nattch(id, &segsz));
	check(!shmdt((void *)mem), "shmdt: %s", strerror(errno));
	check(nattch(id, &segsz) == 0, "after shmdt: %d attaches", nattch(id, &segsz));
	check(!shmctl(id, IPC_RMID, NULL), "IPC_RMID: %s", strerror(errno));
}

/*
 * IPC_RMID while attached: the segment's name goes (its region's file
 * with it), its memory stays for those attached, fork included, until
 * the last detach.
 */
static void scenario_sysv_removed(unsigned long len)
{
	volatile unsigned long *mem;
	char path[64];
	int id, status;
	pid_t pid;

	mem = private_segment(len, &id);
	if (!mem)
		return;
	mem[0] = 0x1d;
	check(!shmctl(id, IPC_RMID, NULL), "IPC_RMID: %s", strerror(errno));
	snprintf(path, sizeof(path), "/sys/fs/mshare/mshare-run.sysv.%d", id);
	check(access(path, F_OK) && errno == ENOENT, "%s still there after IPC_RMID", path);
	pid = fork();
	if (!pid)
		_exit(mem[0] == 0x1d && (mem[0] = 0x2d) ? 0 : 1);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), "child of a removed segment: %#x", status);
	check(mem[0] == 0x2d, "the child's write to the removed segment not seen: %#lx", mem[0]);
	check(!shmdt((void *)mem), "shmdt: %s", strerror(errno));
}

static void scenario_sysv_join(int id, unsigned long value)
{
	volatile unsigned long *mem = shmat(id, NULL, 0);
	unsigned long segsz;

	check(mem != (void *)-1, "shmat(%d) from another program: %s", id, strerror(errno));
	if (mem == (void *)-1)
		return;
	check(mem[1] == value, "want %#lx, read %#lx", value, mem[1]);
	check(nattch(id, &segsz) == 2, "want 2 attaches, got %d", nattch(id, &segsz));
	mem[1] = value + 1;
	check(!shmdt((void *)mem), "shmdt: %s", strerror(errno));
}

/* The creator exits without unmapping; its child still has the memory. */
static void scenario_creator_exits(unsigned long len)
{
	int pipefd[2], status;
	pid_t creator;
	char ok = 0;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	check(!pipe(pipefd), "pipe");
	creator = fork();
	if (!creator) {
		volatile unsigned long *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
						   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (mem == MAP_FAILED)
			_exit(1);
		mem[0] = 77;
		if (!fork()) {
			usleep(200 * 1000);	/* past the creator's exit */
			ok = mem[0] == 77;
			mem[len / sizeof(*mem) - 1] = 1;
			_exit(write(pipefd[1], &ok, 1) == 1 ? 0 : 1);
		}
		_exit(0);
	}
	close(pipefd[1]);
	check(read(pipefd[0], &ok, 1) == 1 && ok, "the creator's child lost the memory");
	while (wait(&status) > 0)
		check(WIFEXITED(status) && !WEXITSTATUS(status), "a child failed: %#x", status);
}

static void scenario_killed(unsigned long len)
{
	int pipefd[2], status;
	pid_t pid;
	char c;

	check(!pipe(pipefd), "pipe");
	pid = fork();
	if (!pid) {
		char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (mem != MAP_FAILED)
			memset(mem, 1, len);
		(void)!write(pipefd[1], "x", 1);
		pause();
		_exit(0);
	}
	check(read(pipefd[0], &c, 1) == 1, "the child never mapped");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(WIFSIGNALED(status), "the child was not killed: %#x", status);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	self = argv[0];
	if (!strcmp(what, "anon") && argc >= 4)
		scenario_anon(parse_size(argv[2]), argv[3], argc > 4 ? argv[4] : NULL);
	else if (!strcmp(what, "sysv") && argc == 4)
		scenario_sysv(parse_size(argv[2]), argv[3]);
	else if (!strcmp(what, "sysv-removed") && argc == 3)
		scenario_sysv_removed(parse_size(argv[2]));
	else if (!strcmp(what, "sysv-join") && argc == 4)
		scenario_sysv_join(atoi(argv[2]), strtoul(argv[3], NULL, 0));
	else if (!strcmp(what, "creator-exits") && argc == 3)
		scenario_creator_exits(parse_size(argv[2]));
	else if (!strcmp(what, "killed") && argc == 3)
		scenario_killed(parse_size(argv[2]));
	else {
		fprintf(stderr, "usage: see the comment at the top of probe.c\n");
		return 2;
	}
	printf("probe: %s: %d failures\n", what, failures);
	return failures ? 1 : 0;
}
