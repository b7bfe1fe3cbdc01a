// SPDX-License-Identifier: GPL-2.0
/*
 * Swap on a disk under memory pressure: a process writes more memory
 * than there is (private anonymous memory, or a MAP_SHARED memfd: shmem
 * pages go to the same swap), so that reclaim must write to the swap disk
 * to make room, then reads every page back.  The writes to the swap disk
 * (harness_swap_disk()) are what frees memory, so the block layer and the
 * disk's driver (UML's ubd, qemu's virtio-blk) must get them out with no
 * memory to spare.
 *
 * The pressure runs in a child under a timeout: a livelock fails the test
 * instead of hanging the run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "harness.h"
#include "swap_disk.h"

#define PAGE		4096UL
/*
 * The child writes pages until this much has gone to swap (pswpout): a
 * quarter of SwapFree (the swap disk is 256 MiB by default, SWAP_MB of
 * uml/run-linux.sh; the pages read back keep their swap slots, and those
 * evicted while they are read need new ones), or as many MiB as the
 * kernel command line's um_swap_pressure_mb=N says (an environment
 * variable of init).  Sizes from MemAvailable or MemTotal were no good:
 * after um_host_mappings the same size swapped nothing in one boot and
 * filled the swap disk in another.
 */
#define OVER_ENV	"um_swap_pressure_mb"
#define CHILD_TIMEOUT	180
/*
 * A case took 66-69 s on an AMD EPYC host (2026-12-05), more than a
 * runner's default for one test: what a boot should allow is the child's
 * timeout, after which the case fails, and the rest of the case.
 */
#define TEST_TIMEOUT	(CHILD_TIMEOUT + 30)

/* Child exit codes: the step that went wrong */
enum {
	CHILD_OK = 0,
	CHILD_MAP = 2,
	CHILD_WRONG = 3,
};

struct pressure_case {
	const char *kind;
	bool memfd;
	/* The mapping: MemTotal and all of SwapFree */
	size_t size;
	/* Pages to see swapped out before the writes stop */
	long swap_pages;
	/* Pages written, in memory shared with the child */
	unsigned long *written;
};

static unsigned long pattern(unsigned long i)
{
	return i * 0x9e3779b97f4a7c15UL + 1;
}

/*
 * Write a word of every page until c->swap_pages went to swap, then read
 * them all back, last first: the pages written last are still in memory,
 * and those read are the ones to make room for the first, which went to
 * swap.  In the order written, each page read back would evict one that
 * is read soon after, and every page would go to swap once more.
 */
static int pressing_child(void *arg)
{
	const struct pressure_case *c = arg;
	unsigned long i, pages = c->size / PAGE;
	long out_start = harness_vmstat("pswpout");
	volatile unsigned long *p;

	p = harness_map_rw(c->size, c->memfd ? "um_swap_pressure" : NULL);
	if (p == MAP_FAILED)
		return CHILD_MAP;
	for (i = 0; i < pages; i++) {
		p[i * PAGE / sizeof(long)] = pattern(i);
		if (i % 256 == 255 &&
		    harness_vmstat("pswpout") - out_start >= c->swap_pages)
			break;
	}
	pages = i < pages ? i + 1 : pages;
	*c->written = pages;
	for (i = pages; i-- > 0; )
		if (p[i * PAGE / sizeof(long)] != pattern(i))
			return CHILD_WRONG;
	return CHILD_OK;
}

static long pages_swapped_out(void)
{
	harness_vm_stat_refresh();
	return harness_vmstat("pswpout");
}

static void run_pressure_case(struct pressure_case *c)
{
	struct harness_child_result res;
	long total_kb, swap_kb, over_kb, out_before;
	double t0;

	total_kb = harness_meminfo_kb("MemTotal");
	swap_kb = harness_meminfo_kb("SwapFree");
	over_kb = swap_kb / 4;
	if (getenv(OVER_ENV))
		over_kb = atol(getenv(OVER_ENV)) << 10;
	CU_ASSERT_FATAL(total_kb > 0 && over_kb > 0);
	c->size = (size_t)(total_kb + swap_kb) << 10;
	c->swap_pages = over_kb / (PAGE >> 10);
	c->written = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->written != MAP_FAILED);
	*c->written = 0;
	out_before = pages_swapped_out();
	t0 = harness_now_s();
	CU_ASSERT_EQUAL(harness_run_child_timeout(pressing_child, c,
						 CHILD_TIMEOUT, &res), 0);
	printf("    %s: %lu MiB written (MemTotal %ld MiB): ", c->kind,
	       *c->written * PAGE >> 20, total_kb >> 10);
	printf("%s %d after %.1f s, %ld pages swapped out\n",
	       res.timed_out ? "timed out, killed" :
	       res.exited ? "exited" : "killed by signal",
	       res.exited ? res.status : res.signo, harness_now_s() - t0,
	       pages_swapped_out() - out_before);
	CU_ASSERT_FALSE(res.timed_out);
	CU_ASSERT_TRUE(res.exited);
	CU_ASSERT_EQUAL(res.status, CHILD_OK);
	CU_ASSERT(pages_swapped_out() - out_before >= c->swap_pages);
	munmap(c->written, sizeof(long));
}

static void beyond_free_memory_private_anon(void)
{
	struct pressure_case c = { .kind = "MAP_PRIVATE|MAP_ANONYMOUS" };

	run_pressure_case(&c);
}

static void beyond_free_memory_memfd(void)
{
	struct pressure_case c = { .kind = "MAP_SHARED memfd", .memfd = true };

	run_pressure_case(&c);
}

static const struct harness_test um_swap_pressure_tests[] = {
	{ "beyond_free_memory_private_anon", beyond_free_memory_private_anon },
	{ "beyond_free_memory_memfd", beyond_free_memory_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(um_swap_pressure_suite, .name = "um_swap_pressure",
	      .tests = um_swap_pressure_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = swap_disk_required,
	      .test_timeout = TEST_TIMEOUT);
