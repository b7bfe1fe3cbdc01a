// SPDX-License-Identifier: GPL-2.0
/*
 * Suite requirements: common checks, and marking suites whose
 * requirement is unmet as inactive so CUnit reports them as not run
 * (never as passed), with one line saying why.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "kmsg_watch.h"
#include "mount_util.h"
#include "requirements.h"
#include "suite_registry.h"
#include "test_util.h"

#define MOUNTS_TEXT_MAX	16384

/* pid 1 means we are /init in the UML guest, not a host process. */
bool harness_is_init(void)
{
	return getpid() == 1;
}

const char *harness_requires_init(void)
{
	return harness_is_init() ? NULL : "needs to run as init in UML";
}

const char *harness_requires_kmsg_watch(void)
{
	return kmsg_watch_active() ? NULL : "kernel log watch is off";
}

const char *harness_requires_msharefs(void)
{
	static char mounts[MOUNTS_TEXT_MAX];

	if (harness_read_file("/proc/mounts", mounts, sizeof(mounts)) < 0)
		return "cannot read /proc/mounts";
	if (!strstr(mounts, " /sys/fs/mshare msharefs "))
		return "msharefs is not mounted at /sys/fs/mshare";
	return NULL;
}

/*
 * The kernel is UML's: what its /proc/cpuinfo says of every CPU (uname -m
 * is the host's "x86_64" there too).  A host process or a guest under
 * qemu has a real vendor there.
 */
const char *harness_requires_uml(void)
{
	char text[4096];

	if (harness_read_file("/proc/cpuinfo", text, sizeof(text)) < 0)
		return "cannot read /proc/cpuinfo";
	if (!strstr(text, "vendor_id\t: User Mode Linux\n"))
		return "the kernel is not User-Mode Linux";
	return NULL;
}

/* CONFIG_TRANSPARENT_HUGEPAGE: the x86_64 target's kernel, not ./linux */
bool harness_kernel_has_thp(void)
{
	return harness_is_dir("/sys/kernel/mm/transparent_hugepage");
}

void requirements_apply(void)
{
	struct harness_suite *s;
	const char *why;

	for (s = harness_suites(); s; s = s->next) {
		/* Only suites the selection wants are worth a line. */
		if (!s->requires || !s->cu_suite->fActive)
			continue;
		why = s->requires();
		if (!why)
			continue;
		printf("harness: skipping suite %s: %s\n", s->name, why);
		s->skip_reason = why;
		CU_set_suite_active(s->cu_suite, CU_FALSE);
	}
}

/* The selected tests of skipped suites: neither passed nor failed. */
unsigned int requirements_skipped_tests(void)
{
	const struct harness_suite *s;
	unsigned int n = 0;
	CU_pTest test;

	for (s = harness_suites(); s; s = s->next) {
		if (!s->skip_reason)
			continue;
		for (test = s->cu_suite->pTest; test; test = test->pNext)
			n += test->fActive;
	}
	return n;
}
