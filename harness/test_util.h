/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for test bodies: child processes, /proc readers. */
#ifndef HARNESS_TEST_UTIL_H
#define HARNESS_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "compiler.h"

struct harness_child_result {
	bool exited;
	int status;		/* exit status, when exited */
	bool signaled;
	int signo;		/* terminating signal, when signaled */
	bool timed_out;		/* killed by harness_wait_child_timeout() */
};

/*
 * Run fn(arg) in a forked child and wait for it.  The child must not use
 * CU_ASSERT (its failures would be recorded in the child's copy and
 * lost); it reports through its return value, which becomes its exit
 * status.  Returns 0, or -errno if fork/wait failed.
 */
int harness_run_child(int (*fn)(void *arg), void *arg,
		      struct harness_child_result *res);
/*
 * The same in two steps, for children that must run at the same time:
 * harness_start_child() returns the child's pid (or -errno) without
 * waiting, harness_wait_child() waits for it (0 or -errno).
 */
pid_t harness_start_child(int (*fn)(void *arg), void *arg);
int harness_wait_child(pid_t pid, struct harness_child_result *res);
/*
 * Wait at most @seconds for the child; if it is still running then, kill
 * it (SIGKILL) and set res->timed_out.  For tests whose failure mode is a
 * hang (a lock left held, a fault that never resolves): the test fails
 * instead of the whole run stopping at the boot timeout.  A task asleep in
 * down_read()/down_write() does not die of SIGKILL: such a child is given
 * a second to die, then left behind (res->exited and res->signaled both
 * false).  0, or -errno if fork or wait failed.
 */
int harness_wait_child_timeout(pid_t pid, unsigned int seconds,
			       struct harness_child_result *res);
int harness_run_child_timeout(int (*fn)(void *arg), void *arg,
			      unsigned int seconds,
			      struct harness_child_result *res);
/*
 * A child that stops where it likes until the test lets it go on, for a
 * test that acts on a process while it is there (its pid to another
 * syscall, its memory from outside).  harness_start_paused_child() starts
 * fn(arg) and returns once fn has called harness_child_pause(@pc), or has
 * ended; harness_release_paused_child() lets it go on and waits for it at
 * most @seconds, as harness_wait_child_timeout().  fn finds @pc through
 * its arg.  0, or -errno (-EPIPE: the child ended before it paused, and
 * has been waited for).
 */
struct harness_paused_child {
	pid_t pid;
	int ready[2];		/* the child writes a byte when it pauses */
	int go[2];		/* and reads one to go on */
};

int harness_start_paused_child(struct harness_paused_child *pc,
			       int (*fn)(void *arg), void *arg);
/* In the child: 0 once the test let it go on, -1 if the test is gone */
int harness_child_pause(struct harness_paused_child *pc);
int harness_release_paused_child(struct harness_paused_child *pc,
				 unsigned int seconds,
				 struct harness_child_result *res);
void harness_child_exit(int status) __noreturn;
void harness_child_release(void);
void harness_set_child_release(void (*release)(void));

/* Seconds on CLOCK_MONOTONIC, for deadlines and durations. */
double harness_now_s(void);

ssize_t harness_read_file(const char *path, char *buf, size_t size);
/* Write @text to an existing file (a /proc or /sys knob): 0 or -errno. */
int harness_write_file(const char *path, const char *text);
int harness_kb_field_parse(const char *text, const char *field, long *kb);
long harness_meminfo_kb(const char *field);
long harness_proc_status_kb(const char *field);
long harness_pid_status_kb(pid_t pid, const char *field);
long harness_vmstat(const char *field);

/*
 * /proc/PID/pagemap: one 64-bit entry a page of the address space
 * (Documentation/admin-guide/mm/pagemap.rst).
 */
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_SWAP		(1ULL << 62)
#define PM_PRESENT	(1ULL << 63)
/* The entry of @addr from the open pagemap @fd: 0, or -1 (errno) */
int harness_pagemap_entry(int fd, uintptr_t addr, uint64_t *entry);
/* How many of the @pages pages from @addr are present in our memory, or -1 */
long harness_pagemap_present(uintptr_t addr, long pages);
/*
 * How many of them are present with the page flag @kpf set in
 * /proc/kpageflags (KPF_*, include/uapi/linux/kernel-page-flags.h), or -1.
 */
long harness_pages_with_kpageflag(uintptr_t addr, long pages, int kpf);
/* How many of the @pages pages from @addr mincore() calls resident, or -1 */
long harness_mincore_resident(uintptr_t addr, long pages);

void *harness_map_rw(size_t size, const char *memfd_name);
/* A MAP_SHARED memfd of @size, read-write at @addr (NULL: anywhere). */
void *harness_map_memfd(void *addr, size_t size, const char *name);
void harness_vm_stat_refresh(void);
/*
 * The value of the kernel parameter @name ("suite.key") on /proc/cmdline,
 * a word of its own: the kernel keeps such parameters from init.  0, or
 * -ENOENT when it is not there, -ENAMETOOLONG when it does not fit.
 */
int harness_kernel_param(const char *name, char *buf, size_t size);

#endif
