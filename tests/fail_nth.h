/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection with /proc/thread-self/fail-nth, shared by the sweep
 * (mshare_fault_inject) and the fuzzer (mshare_fuzz with faults): the
 * debugfs knobs that make every allocation count, and the arming of one
 * operation between the kernel log markers the log watch knows.
 */
#ifndef TESTS_FAIL_NTH_H
#define TESTS_FAIL_NTH_H

#include <stdbool.h>

#define FAIL_NTH_DIR_SLAB	"/sys/kernel/debug/failslab"
#define FAIL_NTH_DIR_PAGE	"/sys/kernel/debug/fail_page_alloc"

/* NULL if the kernel can inject failures with fail-nth, else why not. */
const char *fail_nth_requires(void);
/*
 * on: every allocation counts for fail-nth (also those that may sleep and
 * of order 0); probability stays 0, so only fail-nth fails anything, and
 * only in the task that armed it.  off: the kernel's defaults.
 */
int fail_nth_knobs(bool on);
/* Count only allocations under kernel function @fn (NULL: all again). */
int fail_nth_only_under(const char *fn);
/* Write "@marker @name n=@n" to /dev/kmsg. */
void fail_nth_mark(const char *marker, const char *name, int n);
/*
 * Fail the calling thread's @n-th allocation from now on, inside an armed
 * window of the kernel log named @name; 0 or -errno.
 */
int fail_nth_arm(const char *name, int n);
/* Disarm and close the window; true if the @n-th allocation came. */
bool fail_nth_disarm(const char *name, int n);
/* In a child forked while armed: drop the parent's fail-nth file. */
void fail_nth_forget(void);

#endif
