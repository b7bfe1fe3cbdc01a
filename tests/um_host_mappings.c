// SPDX-License-Identifier: GPL-2.0
/*
 * UML maps every guest page into the host process of its mm with an
 * mmap() of its own, and the host merges two such mappings only when the
 * pages are neighbours in UML's physical memory.  MADV_POPULATE_READ of
 * 512 MiB of private anonymous memory (MAP_NORESERVE) puts the zero page
 * at all 131072 PTEs: 131072 host mappings of one page, twice the host's
 * vm.max_map_count (65530 by default), so that the process meets the
 * limit again after UML dropped its mappings once.  The process must live on and read
 * zeroes everywhere, as on any other architecture: UML drops the host
 * mappings of a process that the host refuses more of, and maps pages
 * again as they fault.
 *
 * The control: a MAP_SHARED memfd, whose populate allocates shmem pages:
 * 1 GiB, or half of MemAvailable if that is less (340 MiB or so with the
 * default mem=768M, still more pages than vm.max_map_count).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>

#include "harness.h"
#include "requirements.h"

#define PAGE		4096UL
/*
 * 131072 pages: twice the host's default vm.max_map_count.  The time
 * grows faster than the size (every drop maps the pages again as they
 * fault): 1 GiB took 42-77 s, where the second limit is met all the same.
 */
#define ANON_LEN	(512UL << 20)
/* The memfd control: 1 GiB, or half of MemAvailable */
#define MEMFD_LEN	(1UL << 30)
#define CHILD_TIMEOUT	300

/* Child exit codes: the step that went wrong */
enum {
	CHILD_OK = 0,
	CHILD_MAP = 2,
	CHILD_POPULATE = 3,
	CHILD_NOT_ZERO = 4,
	CHILD_WRITE = 5,
};

struct populate_case {
	const char *kind;
	size_t size;
	bool memfd;
};

/*
 * Populate, read a word of every page, then write one page in 64 (a
 * written page replaces the zero page) and read those back
 */
static int populating_child(void *arg)
{
	const struct populate_case *c = arg;
	unsigned long i, words = c->size / sizeof(long);
	unsigned long step = PAGE / sizeof(long);
	volatile unsigned long *p;

	p = harness_map_rw(c->size, c->memfd ? "um_host_mappings" : NULL);
	if (p == MAP_FAILED)
		return CHILD_MAP;
	if (madvise((void *)p, c->size, MADV_POPULATE_READ))
		return CHILD_POPULATE;
	for (i = 0; i < words; i += step)
		if (p[i])
			return CHILD_NOT_ZERO;
	for (i = 0; i < words; i += 64 * step)
		p[i] = i + 1;
	for (i = 0; i < words; i += 64 * step)
		if (p[i] != i + 1 || p[i + step])
			return CHILD_WRITE;
	return CHILD_OK;
}

/* Memory that a process holds (the populating child's, and ours) */
static long in_use_kb(void)
{
	return harness_meminfo_kb("Shmem") + harness_meminfo_kb("AnonPages") +
	       harness_meminfo_kb("PageTables");
}

static void run_populate_case(struct populate_case *c)
{
	struct harness_child_result res;
	double t0;
	long before, after;

	before = in_use_kb();
	t0 = harness_now_s();
	CU_ASSERT_EQUAL(harness_run_child_timeout(populating_child, c,
						 CHILD_TIMEOUT, &res), 0);
	printf("    %s, %lu MiB: child %s %d after %.1f s\n", c->kind,
	       c->size >> 20, res.exited ? "exited" : "killed by signal",
	       res.exited ? res.status : res.signo, harness_now_s() - t0);
	CU_ASSERT_FALSE(res.timed_out);
	CU_ASSERT_FALSE(res.signaled);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, CHILD_OK);

	/* What the child had went with it: its pages and page tables */
	after = in_use_kb();
	printf("    Shmem + AnonPages + PageTables: %ld kB before, %ld kB after\n",
	       before, after);
	CU_ASSERT(after < before + 1024);
}

static void populate_read_private_anon(void)
{
	struct populate_case c = {
		.kind = "MAP_PRIVATE|MAP_ANONYMOUS", .size = ANON_LEN,
	};

	run_populate_case(&c);
}

static void populate_read_memfd(void)
{
	struct populate_case c = {
		.kind = "MAP_SHARED memfd", .size = MEMFD_LEN, .memfd = true,
	};
	long half_kb = harness_meminfo_kb("MemAvailable") / 2;

	CU_ASSERT_FATAL(half_kb > 0);
	if (c.size > (size_t)half_kb << 10)
		c.size = ((size_t)half_kb << 10) & ~((1UL << 20) - 1);
	run_populate_case(&c);
}

static const struct harness_test um_host_mappings_tests[] = {
	{ "populate_read_private_anon", populate_read_private_anon },
	{ "populate_read_memfd", populate_read_memfd },
	{ NULL, NULL },
};

/*
 * UML's own defect: on the host the populate meets no UML, and the
 * memory figures it compares are the whole host's, which other processes
 * move (the valgrind stage failed on them).
 */
static const char *requires_uml_init(void)
{
	if (harness_requires_uml())
		return "UML's own: the host process's mappings of guest pages";
	return harness_requires_init();
}

HARNESS_SUITE(um_host_mappings_suite, .name = "um_host_mappings",
	      .tests = um_host_mappings_tests,
	      .requires = requires_uml_init);
