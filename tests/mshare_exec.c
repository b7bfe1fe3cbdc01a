// SPDX-License-Identifier: GPL-2.0
/*
 * execve() of a process that maps a region: the old mm goes as at exit
 * (the region's vma is closed, its PGD entries cleared, the reference
 * dropped) while the process lives on in a new mm that has no region;
 * the region and its data stay for the others, as a memfd's do.
 *
 * The program exec'd is /init itself, which, when it is not PID 1, is
 * the harness as a plain program: `--list` prints the suites and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define EXEC_ADDR(slot)	MSHARE_ADDR(18 + (slot))
#define CHILD_TIMEOUT	30
#define EXEC_WORD	(3 * PT_SPAN / sizeof(long))
#define EXEC_VALUE	0xe8ecUL

struct exec_case {
	struct shm_target target;
};

static int execing_sharer(void *arg)
{
	const struct shm_target *t = arg;
	char *const argv[] = { "/init", "--list", NULL };
	char *const envp[] = { NULL };
	unsigned long *p = shm_target_map(t, PROT_READ | PROT_WRITE);
	int null = open("/dev/null", O_WRONLY);

	if (!p || null < 0 || dup2(null, 1) < 0)
		return 1;
	p[EXEC_WORD] = EXEC_VALUE;
	execve(argv[0], argv, envp);
	return 2;
}

static int reading_sharer(void *arg)
{
	unsigned long *p = shm_target_map(arg, PROT_READ);

	if (!p)
		return 1;
	return p[EXEC_WORD] == EXEC_VALUE && p[0] == 1 ? 0 : 2;
}

static void run_exec_case(struct exec_case *c)
{
	struct shm_target *t = &c->target;
	struct harness_child_result res;

	CU_ASSERT_EQUAL_FATAL(shm_target_setup(t), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(execing_sharer, t,
						 CHILD_TIMEOUT, &res), 0);
	/* The exec'd program ran and exited 0 */
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	/* The exec gave the mapping's reference back: the file's is left */
	if (t->kind == SHM_REGION)
		MSHARE_ASSERT_EQ(mshare_dbg_refcount(t->name), 1);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reading_sharer, t,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(shm_target_teardown(t), 0);
}

SHM_TEST_PAIR(struct exec_case, exec_after_write, run_exec_case,
	      EXEC_ADDR(0), EXEC_ADDR(1))

static const struct harness_test mshare_exec_tests[] = {
	{ "exec_after_write_region", exec_after_write_region },
	{ "exec_after_write_memfd", exec_after_write_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_exec_suite, .name = "mshare_exec",
	      .tests = mshare_exec_tests,
	      .requires = harness_requires_msharefs);
