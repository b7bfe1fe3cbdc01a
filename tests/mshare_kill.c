// SPDX-License-Identifier: GPL-2.0
/*
 * A sharer killed (SIGKILL) in the middle of a fault, again and again,
 * while another sharer keeps using the memory: in MADV_POPULATE_WRITE of
 * a large range, in a loop that touches every page, and (mshare_kill_swap)
 * while it faults pages back from swap.  Afterwards every page holds what
 * was written to it or zero, the other sharer never saw a wrong word, the
 * region's reference count is back to what the living hold, and the
 * kernel log is clean (the harness checks it after every test).  The same
 * rounds run on a MAP_SHARED memfd, the control.
 *
 * The kill comes at a pseudo-random delay after the victim has mapped
 * the memory (a fixed seed per test: the same delays on every run); the
 * delays span the time a round's faults take, so that some victims die
 * early in their faults, some late, and some finish first.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_util.h"
#include "shm_target.h"
#include "swap_disk.h"

#define KILL_ADDR(slot)	MSHARE_ADDR(110 + (slot))
#define CHILD_TIMEOUT	60
#define ROUNDS		24
/* Each swap round squeezes memory first: a second or so on UML */
#define SWAP_ROUNDS	8
/*
 * Each round's victim faults a range of its own, 8 MiB (4 page tables),
 * that no process has touched: in a region, pages another victim faulted
 * are present for every sharer, and MADV_POPULATE_WRITE of them faults
 * nothing.
 */
#define VICTIM_OFF	(8 * PT_SPAN)
#define VICTIM_PAGES	2048
#define ROUND_OFF(round)	(VICTIM_OFF + (round) * VICTIM_PAGES * PAGE)
/* The living sharer's range */
#define USER_OFF	(2 * PT_SPAN)
#define USER_PAGES	16
#define VICTIM_TAG	7
/* The swap rounds: 8 MiB paged out, then faulted back by the victim */
#define SWAP_PAGES	2048
#define HOG_MARGIN_KB	(4 * 1024)
/* The squeeze takes memory a step at a time, until this is left cached */
#define HOG_STEP_KB	1024
#define SWAP_CACHED_LEFT_KB	((long)(SWAP_PAGES * (PAGE / 1024) / 4))

enum victim_kind { VICTIM_POPULATE, VICTIM_TOUCH, VICTIM_SWAP_IN };

struct kill_shared {
	struct mshare_report report;	/* the checks after the rounds */
	int victim_mapped;
	int user_stop;
	long user_rounds;		/* the living sharer's passes */
	long user_wrong;		/* words it read back wrong */
	long victims_killed;
	long victims_finished;
	long rounds_part_done;		/* touch: pages written, not all */
};

struct kill_case {
	struct shm_target target;
	enum victim_kind victim;
	struct kill_shared *sh;
	unsigned long max_delay_us;
	unsigned int seed;
	int round;
};

static unsigned long *word(unsigned long *p, unsigned long off,
			   unsigned long page)
{
	return &p[(off + page * PAGE) / sizeof(long)];
}

/* Keeps writing and reading back its own pages until told to stop */
static int living_sharer(void *arg)
{
	struct kill_case *c = arg;
	struct kill_shared *sh = c->sh;
	volatile unsigned long *p;
	unsigned long i;
	long pass;

	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p)
		return 1;
	for (pass = 1; !__atomic_load_n(&sh->user_stop, __ATOMIC_SEQ_CST);
	     pass++) {
		for (i = 0; i < USER_PAGES; i++)
			*word((unsigned long *)p, USER_OFF, i) =
				mshare_pattern(i, pass & 0xff);
		for (i = 0; i < USER_PAGES; i++)
			if (*word((unsigned long *)p, USER_OFF, i) !=
			    mshare_pattern(i, pass & 0xff))
				sh->user_wrong++;
		sh->user_rounds = pass;
		sched_yield();
	}
	return 0;
}

static int victim(void *arg)
{
	struct kill_case *c = arg;
	unsigned long *p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	unsigned long off = ROUND_OFF(c->round);
	volatile unsigned long sum = 0;
	unsigned long i;

	if (!p)
		return 1;
	__atomic_store_n(&c->sh->victim_mapped, 1, __ATOMIC_SEQ_CST);
	switch (c->victim) {
	case VICTIM_POPULATE:
		if (madvise(word(p, off, 0), VICTIM_PAGES * PAGE,
			    MADV_POPULATE_WRITE))
			return 2;
		break;
	case VICTIM_TOUCH:
		for (i = 0; i < VICTIM_PAGES; i++)
			*word(p, off, i) = mshare_pattern(i, VICTIM_TAG);
		break;
	case VICTIM_SWAP_IN:
		/* Reads, and writes of what is there, fault pages back */
		for (i = 0; i < SWAP_PAGES; i++) {
			if (i & 1)
				*word(p, VICTIM_OFF, i) =
					mshare_pattern(i, VICTIM_TAG);
			else
				sum += *word(p, VICTIM_OFF, i);
		}
		break;
	}
	return 0;
}

static int fill_and_page_out(void *arg)
{
	struct kill_case *c = arg;
	unsigned long *p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	unsigned long i;

	if (!p)
		return 1;
	for (i = 0; i < SWAP_PAGES; i++)
		*word(p, VICTIM_OFF, i) = mshare_pattern(i, VICTIM_TAG);
	return madvise(word(p, VICTIM_OFF, 0), SWAP_PAGES * PAGE,
		       MADV_PAGEOUT) ? 2 : 0;
}

/*
 * MADV_PAGEOUT writes the pages to swap but leaves them in the swap
 * cache, where a fault finds them without reading the disk.  Take free
 * memory a step at a time, for a moment: reclaim frees the clean swap
 * cache first, and the victim's faults read the disk.  Stop once most of
 * it is gone: taking nearly all free memory at once pushed reclaim past
 * the swap cache into the hog's own pages, faster than UML's swap disk
 * took them, and the OOM killer killed the hog (1 run of make test).
 */
static int squeeze(void *arg)
{
	long kb = mshare_free_kb() - HOG_MARGIN_KB, done, step;
	char *hog;

	(void)arg;
	if (kb <= 0)
		return 0;
	hog = mmap(NULL, kb * 1024, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hog == MAP_FAILED)
		return 1;
	for (done = 0; done < kb; done += step) {
		if (harness_meminfo_kb("SwapCached") <= SWAP_CACHED_LEFT_KB)
			break;
		step = kb - done < HOG_STEP_KB ? kb - done : HOG_STEP_KB;
		if (madvise(hog + done * 1024, step * 1024,
			    MADV_POPULATE_WRITE))
			return 2;
	}
	return 0;
}

/* Every victim page holds the victims' pattern, or zero if none wrote it */
static int checker(void *arg)
{
	struct kill_case *c = arg;
	struct mshare_report *r = &c->sh->report;
	unsigned long *p, i, v, pages;
	int round, rounds;

	p = shm_target_map_step(&c->target, PROT_READ, r, "map read-only");
	if (!p)
		return 1;
	mshare_report_step(r, "the victims' pages");
	pages = c->victim == VICTIM_SWAP_IN ? SWAP_PAGES : VICTIM_PAGES;
	rounds = c->victim == VICTIM_SWAP_IN ? 1 : ROUNDS;
	for (round = 0; round < rounds; round++) {
		unsigned long written = 0;

		for (i = 0; i < pages; i++) {
			v = *word(p, ROUND_OFF(round), i);
			if (v != mshare_pattern(i, VICTIM_TAG) &&
			    (v || c->victim == VICTIM_SWAP_IN))
				return mshare_report_fail(r, MSHARE_ERR_VALUE);
			written += !!v;
		}
		c->sh->rounds_part_done += written && written < pages;
	}
	mshare_report_step(r, "the setup's word");
	if (p[0] != 1)
		return mshare_report_fail(r, MSHARE_ERR_VALUE);
	return mshare_report_done(r);
}

static void run_child_ok(int (*fn)(void *), struct kill_case *c)
{
	struct harness_child_result res;

	CU_ASSERT_EQUAL(harness_run_child_timeout(fn, c, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
}

/* One round: start a victim, kill it after a delay, reap it */
static void kill_round(struct kill_case *c)
{
	struct kill_shared *sh = c->sh;
	struct harness_child_result res;
	unsigned long delay;
	pid_t pid;
	int i;

	if (c->victim == VICTIM_SWAP_IN) {
		run_child_ok(fill_and_page_out, c);
		run_child_ok(squeeze, c);
	}
	__atomic_store_n(&sh->victim_mapped, 0, __ATOMIC_SEQ_CST);
	pid = harness_start_child(victim, c);
	CU_ASSERT_FATAL(pid > 0);
	for (i = 0; i < 10000 && !__atomic_load_n(&sh->victim_mapped,
						  __ATOMIC_SEQ_CST); i++)
		usleep(100);
	delay = rand_r(&c->seed) % (c->max_delay_us + 1);
	usleep(delay);
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(harness_wait_child_timeout(pid, CHILD_TIMEOUT, &res),
			0);
	if (res.signaled && res.signo == SIGKILL)
		sh->victims_killed++;
	else if (res.exited && !res.status)
		sh->victims_finished++;
	else
		MSHARE_ASSERT_EQ(shm_child_outcome(&res), SIGKILL);
	/* The living sharer's mapping and the file hold the region */
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(mshare_dbg_refcount(c->target.name), 2);
}

static void run_kill_case(struct kill_case *c)
{
	struct harness_child_result res;
	long pswpin;
	pid_t user;
	int rounds;

	c->sh = mmap(NULL, sizeof(*c->sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->sh != MAP_FAILED);
	c->seed = 12 + c->victim;
	c->max_delay_us = c->victim == VICTIM_SWAP_IN ? 100000 : 20000;
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	user = harness_start_child(living_sharer, c);
	CU_ASSERT_FATAL(user > 0);
	harness_vm_stat_refresh();
	pswpin = harness_vmstat("pswpin");
	rounds = c->victim == VICTIM_SWAP_IN ? SWAP_ROUNDS : ROUNDS;
	for (c->round = 0; c->round < rounds; c->round++)
		kill_round(c);
	harness_vm_stat_refresh();
	pswpin = harness_vmstat("pswpin") - pswpin;
	__atomic_store_n(&c->sh->user_stop, 1, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(harness_wait_child_timeout(user, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	printf("    %s: %d rounds, %ld victims killed, %ld finished first; the living sharer made %ld passes\n",
	       shm_kind_name(c->target.kind), rounds, c->sh->victims_killed,
	       c->sh->victims_finished, c->sh->user_rounds);
	MSHARE_ASSERT_EQ(c->sh->user_wrong, 0);
	/* Killed at random points: most of them must be, or it tests nothing */
	CU_ASSERT(c->sh->victims_killed >= rounds / 2);
	CU_ASSERT_EQUAL(harness_run_child_timeout(checker, c, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_CHILD(&res, &c->sh->report, NULL, 0);
	if (c->victim == VICTIM_SWAP_IN) {
		/* The victims did fault pages back from swap */
		printf("    %s: %ld pages read back from swap\n",
		       shm_kind_name(c->target.kind), pswpin);
		CU_ASSERT(pswpin > 0);
	}
	if (c->victim == VICTIM_TOUCH) {
		/* Where the kills fell: in the middle of a round's faults */
		printf("    %s: %ld rounds killed part way through the range\n",
		       shm_kind_name(c->target.kind),
		       c->sh->rounds_part_done);
		CU_ASSERT(c->sh->rounds_part_done > 0);
	}
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(mshare_dbg_refcount(c->target.name), 1);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->sh, sizeof(*c->sh));
}

static void run_populate(struct kill_case *c)
{
	c->victim = VICTIM_POPULATE;
	run_kill_case(c);
}

static void run_touch(struct kill_case *c)
{
	c->victim = VICTIM_TOUCH;
	run_kill_case(c);
}

static void run_swap_in(struct kill_case *c)
{
	c->victim = VICTIM_SWAP_IN;
	run_kill_case(c);
}

SHM_TEST_PAIR(struct kill_case, killed_in_populate_write, run_populate,
	      KILL_ADDR(0), KILL_ADDR(1))
SHM_TEST_PAIR(struct kill_case, killed_in_touch_loop, run_touch,
	      KILL_ADDR(2), KILL_ADDR(3))
SHM_TEST_PAIR(struct kill_case, killed_in_swap_in, run_swap_in,
	      KILL_ADDR(4), KILL_ADDR(5))

static const struct harness_test mshare_kill_tests[] = {
	{ "killed_in_populate_write_region", killed_in_populate_write_region },
	{ "killed_in_populate_write_memfd", killed_in_populate_write_memfd },
	{ "killed_in_touch_loop_region", killed_in_touch_loop_region },
	{ "killed_in_touch_loop_memfd", killed_in_touch_loop_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_kill_suite, .name = "mshare_kill",
	      .tests = mshare_kill_tests,
	      .requires = harness_requires_msharefs);

static const struct harness_test mshare_kill_swap_tests[] = {
	{ "killed_in_swap_in_region", killed_in_swap_in_region },
	{ "killed_in_swap_in_memfd", killed_in_swap_in_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_kill_swap_suite, .name = "mshare_kill_swap",
	      .tests = mshare_kill_swap_tests, .init = swap_disk_on,
	      .cleanup = swap_disk_off,
	      .requires = swap_disk_required);
