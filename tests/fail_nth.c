// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection with /proc/thread-self/fail-nth: see fail_nth.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fail_nth.h"
#include "kmsg_patterns.h"

static int fail_nth_fd = -1;

const char *fail_nth_requires(void)
{
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    access(FAIL_NTH_DIR_SLAB, F_OK) || access(FAIL_NTH_DIR_PAGE, F_OK))
		return "kernel without FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and their debugfs";
	return NULL;
}

void fail_nth_mark(const char *marker, const char *name, int n)
{
	char line[128];
	int fd, len;

	len = snprintf(line, sizeof(line), "%s %s n=%d\n", marker, name, n);
	/* A new open each time: /dev/kmsg rate-limits writes per open. */
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, line, len) != len)
		printf("harness: fail-nth: /dev/kmsg: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
}

int fail_nth_arm(const char *name, int n)
{
	char buf[16];
	int len;

	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fail_nth_fd < 0)
		return -errno;
	fail_nth_mark(KMSG_INJECT_ARMED, name, n);
	len = snprintf(buf, sizeof(buf), "%d", n);
	if (write(fail_nth_fd, buf, len) != len)
		return -errno;
	return 0;
}

bool fail_nth_disarm(const char *name, int n)
{
	char buf[16] = "";
	bool injected;

	injected = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) > 0 &&
		   strtol(buf, NULL, 10) == 0;
	if (write(fail_nth_fd, "0", 1) != 1)
		injected = true;
	close(fail_nth_fd);
	fail_nth_fd = -1;
	fail_nth_mark(KMSG_INJECT_DISARMED, name, n);
	return injected;
}

void fail_nth_forget(void)
{
	if (fail_nth_fd >= 0)
		close(fail_nth_fd);
	fail_nth_fd = -1;
}

static int write_knob(const char *dir, const char *knob, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int fail_nth_knobs(bool on)
{
	int ret = 0;

	/* The message, not a stack dump: dumps overflow the log buffer. */
	ret |= write_knob(FAIL_NTH_DIR_SLAB, "verbose", on ? "1" : "2");
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "verbose", on ? "1" : "2");
	ret |= write_knob(FAIL_NTH_DIR_SLAB, "ignore-gfp-wait", on ? "N" : "Y");
	ret |= write_knob(FAIL_NTH_DIR_SLAB, "task-filter", on ? "Y" : "N");
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "ignore-gfp-wait", on ? "N" : "Y");
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "ignore-gfp-highmem", on ? "N" : "Y");
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "min-order", on ? "0" : "1");
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "task-filter", on ? "Y" : "N");
	return ret;
}

/* [start, end) of kernel function @name from /proc/kallsyms, or -errno. */
static int kallsyms_range(const char *name, unsigned long *start,
			  unsigned long *end)
{
	unsigned long addr, next = ~0UL;
	char line[256], sym[128], type;
	FILE *f;

	*start = 0;
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			*start = addr;
	rewind(f);
	while (*start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx", &addr) == 1 && addr > *start &&
		    addr < next)
			next = addr;
	fclose(f);
	if (!*start || next == ~0UL)
		return -ENOENT;
	*end = next;
	return 0;
}

int fail_nth_only_under(const char *fn)
{
	unsigned long start = 0, end = ~0UL;
	char lo[32], hi[32];
	int ret = 0;

	if (fn) {
		ret = kallsyms_range(fn, &start, &end);
		if (ret)
			return ret;
	}
	snprintf(lo, sizeof(lo), "%#lx", start);
	snprintf(hi, sizeof(hi), "%#lx", end);
	ret |= write_knob(FAIL_NTH_DIR_SLAB, "require-start", lo);
	ret |= write_knob(FAIL_NTH_DIR_SLAB, "require-end", hi);
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "require-start", lo);
	ret |= write_knob(FAIL_NTH_DIR_PAGE, "require-end", hi);
	return ret;
}
