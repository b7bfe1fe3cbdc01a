/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One test, two kinds of shared memory: an mshare region, and the control
 * a user has today, a MAP_SHARED memfd (shmem) mapping at the same
 * address.  A test that compares a region with shmem runs the same steps
 * on both targets; what differs is only how a process maps the memory.
 */
#ifndef TESTS_SHM_TARGET_H
#define TESTS_SHM_TARGET_H

#include "harness.h"
#include "mshare_util.h"

enum shm_kind {
	SHM_REGION,
	SHM_MEMFD,
};

struct shm_target {
	enum shm_kind kind;
	const char *name;	/* of the region's file, or of the memfd */
	unsigned long addr;	/* where every process maps its unit */
	int memfd;		/* SHM_MEMFD: inherited by children */
	/*
	 * SHM_MEMFD: the file's and the mapping's size if not the whole
	 * unit, for a test whose kernel path walks every page of the
	 * mapping (a core dump: 134 million pages of 512 GiB on x86-64).
	 */
	unsigned long memfd_size;
};

/*
 * The two tests of a comparison: TEST_region() and TEST_memfd() run
 * RUN(&c) on a TYPE c whose .target is a region at ADDR_REGION or a memfd
 * at ADDR_MEMFD (TYPE: a test file's case struct, with .target first).
 */
#define SHM_TEST_PAIR(type, test, run, addr_region, addr_memfd)	\
static void test##_region(void)						\
{									\
	type c = { .target = { .kind = SHM_REGION,			\
			       .name = #test "_region",			\
			       .addr = (addr_region) } };		\
	run(&c);							\
}									\
static void test##_memfd(void)						\
{									\
	type c = { .target = { .kind = SHM_MEMFD,			\
			       .name = #test "_memfd",			\
			       .addr = (addr_memfd) } };		\
	run(&c);							\
}

/* "region" or "memfd", for messages */
const char *shm_kind_name(enum shm_kind kind);

/*
 * In the test: make the memory, one unit (mshare_unit(): a region's size,
 * and the memfd's unless memfd_size says), with a word written at offset 0
 * (a dirty page).  A region is created by a child that maps it read-write
 * and exits; the region's file keeps it.  0, or -errno.
 */
int shm_target_setup(struct shm_target *t);

/* The length of the memory, of the file and of each mapping */
unsigned long shm_target_len(const struct shm_target *t);

/*
 * In a child: map the unit at t->addr, MAP_SHARED, with @prot; a region's
 * file is opened read-only unless @prot has PROT_WRITE.  NULL and errno
 * set on failure.
 */
void *shm_target_map(const struct shm_target *t, int prot);

/*
 * shm_target_map() in a child that reports its steps: @step is recorded
 * first, and a failure is reported with its errno.  NULL on failure.
 */
void *shm_target_map_step(const struct shm_target *t, int prot,
			  struct mshare_report *r, const char *step);

/*
 * In the test: an agent (mshare_util.h) with the memory mapped read-write
 * at t->addr, the region's whole or the memfd's unit.  0, or what failed.
 */
int shm_target_start_agent(struct mshare_agent *a,
			   const struct shm_target *t, int tag);

/* In the test: unlink the region and wait until it is gone, or close. */
int shm_target_teardown(struct shm_target *t);

/*
 * How a child ended, as one number for MSHARE_ASSERT_EQ(): the signal
 * that killed it, SHM_CHILD_EXIT + its exit status, or SHM_CHILD_TIMEOUT.
 */
#define SHM_CHILD_EXIT		1000
#define SHM_CHILD_TIMEOUT	2000
long shm_child_outcome(const struct harness_child_result *res);

#endif
