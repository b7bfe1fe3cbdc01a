/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory cgroups for the tests that say who pays for a region's pages
 * (mshare_accounting, mshare_accounting_swap): a cgroup2 mount at
 * CGROUP_ROOT with the memory controller handed to its children, where
 * each test makes its own cgroups, so that memory.current starts at 0.
 * A cgroup is named by its path under CGROUP_ROOT.
 */
#ifndef TESTS_MEMCG_UTIL_H
#define TESTS_MEMCG_UTIL_H

#include <sys/types.h>

#define CGROUP_ROOT	"/sys/fs/cgroup"


/* Write @text to @cg's @file (memory.max, cgroup.procs): 0 or -errno */
int cg_write(const char *cg, const char *file, const char *text);
/* A number from @cg's @file (memory.current), or -1 */
long cg_read_long(const char *cg, const char *file);
/* "@key value" from a flat keyed file (memory.stat, memory.events), or -1 */
long cg_read_key(const char *cg, const char *file, const char *key);
/* mkdir and rmdir of @cg; cg_remove() says why it failed, and skips "" */
int cg_make(const char *cg);
void cg_remove(const char *cg);
/* Move @pid into @cg (cgroup v2: its charges stay where they are) */
int cg_move(const char *cg, pid_t pid);
/* In a child: move itself into @cg */
int cg_enter(const char *cg);

/*
 * A suite's .requires: msharefs, and the memory controller, which it
 * mounts (cgroup2, once per boot) and enables for CGROUP_ROOT's children.
 * NULL, or why the suite cannot run.
 */
const char *memcg_required(void);
/* memcg_required(), and the runner's swap disk for reclaim to write to */
const char *memcg_and_swap_required(void);

#endif
