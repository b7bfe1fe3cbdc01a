// SPDX-License-Identifier: GPL-2.0
/*
 * What the /proc walkers and counters of a sharer say about region pages,
 * against a memfd mapping: a documented difference, pinned down here.
 *
 * One process writes NPAGES pages and exits; another maps the memory and
 * reads one page.  With a memfd, the reader's smaps counts the one page it
 * mapped, and its VmRSS (RssShmem) grows by it.  With a region, the
 * reader's page tables are the region's: once its PGD entry leads there,
 * smaps walks the region's PTEs and shows every page present in the
 * region, and VmRSS (RssShmem) grows by as much (patch 0069; before it,
 * not at all: the region's pages are counted in the region's mm, which
 * has no task).  In every sharer, VmRSS is smaps_rollup's Rss (pss_case
 * below).  A region's page counts as mapped
 * by as many processes as map the region (patch 0067): the reader alone
 * maps it here, so Private_*, Pss = Rss; pss_case below has 2 and 8.
 * pagemap, walking the same tables, shows them present.
 * mincore() says resident for both: the region's PTEs, the memfd's page
 * cache; for a region also in a sharer that has not touched it yet, whose
 * PGD entry does not lead to the region's tables (patch 0066).
 *
 * The count of mappers holds when the memory's name goes while it is
 * mapped (the region's file unlinked, the memfd closed): patch 0071.
 *
 * The accessed bit, after clear_refs and MADV_COLD: see ref_case below.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "mshare_util.h"
#include "shm_target.h"

#define PROC_ADDR(slot)	MSHARE_ADDR(66 + (slot))
/* Slots 66-69 are taken; the cases added since have 196-201 */
#define UNTOUCHED_ADDR(slot)	MSHARE_ADDR(196 + (slot))
#define PSS_ADDR(slot)		MSHARE_ADDR(198 + (slot))
#define PSS_NAMELESS_ADDR(slot)	MSHARE_ADDR(226 + (slot))
#define PSS_MAX_SHARERS		8
#ifndef PM_MMAP_EXCLUSIVE
#define PM_MMAP_EXCLUSIVE	(1ULL << 56)
#endif
#define CHILD_TIMEOUT	30
#define NPAGES		64
#define RANGE_OFF	(2 * PT_SPAN)
#define SMAPS_MAX	65536

/* The counts of one smaps entry a test compares, in kB */
struct smaps_counts {
	long rss_kb, pss_kb, private_kb, shared_kb;
};

/* What the reader saw, in memory it shares with the test */
struct reader_view {
	struct smaps_counts smaps;
	long vmrss_growth_kb;
	long pagemap_present;	/* of the NPAGES pages the writer wrote */
	long mincore_resident;	/* of the same pages */
};

struct proc_case {
	struct shm_target target;
	struct reader_view *view;
	struct reader_view want;
};

static int writer(void *arg)
{
	const struct shm_target *t = arg;
	unsigned long *p = shm_target_map(t, PROT_READ | PROT_WRITE);
	unsigned long i;

	if (!p)
		return 1;
	for (i = 0; i < NPAGES; i++)
		p[(RANGE_OFF + i * PAGE) / sizeof(long)] = i + 1;
	return 0;
}

static long smaps_field(const char *entry, const char *field)
{
	long kb;

	return harness_kb_field_parse(entry, field, &kb) ? -1 : kb;
}

/* The counts of a smaps entry (mshare_smaps_entry()) */
static struct smaps_counts smaps_counts(const char *entry)
{
	return (struct smaps_counts) {
		.rss_kb = smaps_field(entry, "Rss"),
		.pss_kb = smaps_field(entry, "Pss"),
		.private_kb = smaps_field(entry, "Private_Clean") +
			      smaps_field(entry, "Private_Dirty"),
		.shared_kb = smaps_field(entry, "Shared_Clean") +
			     smaps_field(entry, "Shared_Dirty"),
	};
}

static long mincore_resident(unsigned long addr)
{
	return harness_mincore_resident(addr + RANGE_OFF, NPAGES);
}

/*
 * mincore() in a process that maps the memory and has touched none of it:
 * NPAGES written by another process, then NPAGES nobody wrote.  A region's
 * sharer reaches the region's page tables through its PGD entry only from
 * its first fault there; mincore() answers from the region's tables
 * anyway, as a memfd's answers from the page cache whoever faulted.
 */
struct untouched_case {
	struct shm_target target;
	long *resident;		/* [0] written pages, [1] the others */
};

static int untouched_reader(void *arg)
{
	struct untouched_case *c = arg;

	if (!shm_target_map(&c->target, PROT_READ))
		return 1;
	c->resident[0] = mincore_resident(c->target.addr);
	c->resident[1] = mincore_resident(c->target.addr + NPAGES * PAGE);
	return 0;
}

static void run_untouched_case(struct untouched_case *c)
{
	struct harness_child_result res;

	c->resident = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->resident != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(writer, &c->target,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(untouched_reader, c,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	printf("    %s untouched reader: mincore resident %ld of %d written, %ld of %d not written\n",
	       shm_kind_name(c->target.kind), c->resident[0], NPAGES,
	       c->resident[1], NPAGES);
	MSHARE_ASSERT_EQ(c->resident[0], NPAGES);
	MSHARE_ASSERT_EQ(c->resident[1], 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->resident, PAGE);
}

SHM_TEST_PAIR(struct untouched_case, mincore_before_first_touch,
	      run_untouched_case, UNTOUCHED_ADDR(0), UNTOUCHED_ADDR(1))

static int reader(void *arg)
{
	struct proc_case *c = arg;
	struct reader_view *v = c->view;
	volatile unsigned long *p;
	char *buf = malloc(SMAPS_MAX);
	const char *entry;
	long before;

	p = shm_target_map(&c->target, PROT_READ);
	if (!p || !buf)
		return 1;
	/* The first read faults the reading code in: not what we measure */
	harness_proc_status_kb("VmRSS");
	before = harness_proc_status_kb("VmRSS");
	if (p[0] != 1)
		return 2;
	v->vmrss_growth_kb = harness_proc_status_kb("VmRSS") - before;
	entry = mshare_smaps_entry(buf, SMAPS_MAX, c->target.addr);
	if (!entry)
		return 3;
	v->smaps = smaps_counts(entry);
	v->pagemap_present = harness_pagemap_present(c->target.addr + RANGE_OFF,
						     NPAGES);
	v->mincore_resident = mincore_resident(c->target.addr);
	free(buf);
	return 0;
}

static void run_proc_case(struct proc_case *c)
{
	struct harness_child_result res;
	struct reader_view *v;

	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(v != MAP_FAILED);
	c->view = v;
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(writer, &c->target,
						 CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(reader, c, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_EQ(shm_child_outcome(&res), SHM_CHILD_EXIT + 0);
	printf("    %s reader: smaps Rss %ld Pss %ld Private %ld Shared %ld kB, VmRSS +%ld kB, pagemap present %ld, mincore resident %ld of %d\n",
	       shm_kind_name(c->target.kind), v->smaps.rss_kb, v->smaps.pss_kb,
	       v->smaps.private_kb, v->smaps.shared_kb, v->vmrss_growth_kb,
	       v->pagemap_present, v->mincore_resident, NPAGES);
	MSHARE_ASSERT_EQ(v->smaps.rss_kb, c->want.smaps.rss_kb);
	MSHARE_ASSERT_EQ(v->smaps.pss_kb, c->want.smaps.pss_kb);
	MSHARE_ASSERT_EQ(v->smaps.private_kb, c->want.smaps.private_kb);
	MSHARE_ASSERT_EQ(v->smaps.shared_kb, c->want.smaps.shared_kb);
	MSHARE_ASSERT_EQ(v->vmrss_growth_kb, c->want.vmrss_growth_kb);
	MSHARE_ASSERT_EQ(v->pagemap_present, c->want.pagemap_present);
	MSHARE_ASSERT_EQ(v->mincore_resident, c->want.mincore_resident);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(v, sizeof(*v));
}

/*
 * Several processes map the memory at once, each writes the NPAGES pages
 * and reads the first, then each reads its smaps entry and its pagemap
 * while all of them still map it.  Every page is mapped by all of them,
 * directly (memfd) or through the region's one mapping (region): in each,
 * every page is Shared_*, none is PM_MMAP_EXCLUSIVE, and the Pss of all
 * of them adds up to the resident size, NPAGES + 1 pages, within the kB
 * each smaps rounds down.  Before patch 0067, every sharer of a region
 * had every page Private_Dirty with Pss = Rss, and exclusive.  Each
 * sharer's VmRSS is its smaps_rollup Rss, and its RssShmem holds the
 * memory; before patch 0069, a region's sharer left the region out of
 * both.  /proc/PID/stat's rss (get_mm_rss(), which the OOM killer's
 * badness counts too) still leaves a region out (compared on one CPU,
 * where its counters are exact).
 */
struct pss_view {
	struct smaps_counts smaps;
	long exclusive;		/* PM_MMAP_EXCLUSIVE, of the NPAGES pages */
	long rollup_rss_kb;	/* smaps_rollup's Rss, read just before... */
	long vmrss_kb;		/* ...status's VmRSS */
	long rssshmem_kb;
	long stat_rss_kb;	/* /proc/PID/stat's rss, get_mm_rss() */
	int err;		/* the step that failed, 0 if none */
};

struct pss_sync {
	int written, measured;
	int name_gone;		/* set once the test let the name go */
	struct pss_view view[PSS_MAX_SHARERS];
};

struct pss_case {
	struct shm_target target;
	int sharers;
	/* The test lets the name go once every sharer has written */
	bool drop_name;
	struct pss_sync *sync;
};

/* Wait until @count, which every sharer increments once, reaches @n */
static long pagemap_exclusive(unsigned long addr)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	uint64_t entry;
	long i, n = 0;

	if (fd < 0)
		return -1;
	for (i = 0; i < NPAGES; i++) {
		if (harness_pagemap_entry(fd, addr + i * PAGE, &entry)) {
			n = -1;
			break;
		}
		n += !!(entry & PM_MMAP_EXCLUSIVE);
	}
	close(fd);
	return n;
}

/* /proc/self/stat's rss (field 24, in pages) in kB, or -1 */
static long stat_rss_kb(void)
{
	static char stat[1024];
	const char *after_comm;
	long rss;

	if (harness_read_file("/proc/self/stat", stat, sizeof(stat)) < 0)
		return -1;
	after_comm = strrchr(stat, ')');
	/* state, then fields 4-23, then rss */
	if (!after_comm || sscanf(after_comm + 2,
				  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u %*u %ld",
				  &rss) != 1)
		return -1;
	return KB(rss);
}

/*
 * smaps_rollup's Rss, then status's VmRSS and RssShmem and stat's rss,
 * with nothing mapped or touched in between: 0, or -1
 */
static int read_rss(struct pss_view *v)
{
	static char rollup[4096];

	/* Fault in what the reads write to first: not what we measure */
	memset(rollup, 0, sizeof(rollup));
	harness_proc_status_kb("VmRSS");
	if (harness_read_file("/proc/self/smaps_rollup", rollup,
			      sizeof(rollup)) < 0 ||
	    harness_kb_field_parse(rollup, "Rss", &v->rollup_rss_kb))
		return -1;
	v->vmrss_kb = harness_proc_status_kb("VmRSS");
	v->rssshmem_kb = harness_proc_status_kb("RssShmem");
	v->stat_rss_kb = stat_rss_kb();
	return v->vmrss_kb < 0 || v->rssshmem_kb < 0 || v->stat_rss_kb < 0 ?
	       -1 : 0;
}

static int pss_sharer(struct pss_case *c, struct pss_view *v)
{
	volatile unsigned long *p;
	char *buf = malloc(SMAPS_MAX);
	const char *entry;
	unsigned long i;

	p = shm_target_map(&c->target, PROT_READ | PROT_WRITE);
	if (!p || !buf)
		return 1;
	for (i = 0; i < NPAGES; i++)
		p[(RANGE_OFF + i * PAGE) / sizeof(long)] = i + 1;
	if (p[0] != 1)
		return 2;
	if (!mshare_barrier(&c->sync->written, c->sharers, CHILD_TIMEOUT))
		return 3;
	if (c->drop_name &&
	    !mshare_wait_count(&c->sync->name_gone, 1, CHILD_TIMEOUT))
		return 4;
	entry = mshare_smaps_entry(buf, SMAPS_MAX, c->target.addr);
	if (!entry)
		return 5;
	v->smaps = smaps_counts(entry);
	v->exclusive = pagemap_exclusive(c->target.addr + RANGE_OFF);
	if (read_rss(v))
		return 6;
	/* Nobody unmaps before every sharer has looked */
	if (!mshare_barrier(&c->sync->measured, c->sharers, CHILD_TIMEOUT))
		return 7;
	free(buf);
	return 0;
}

/*
 * Once every sharer has written its pages: the region's last name
 * unlinked, or the test's descriptor of the memfd closed.  The sharers'
 * mappings keep the memory, and the region's file, whose reference the
 * count of mappers leaves out until the inode goes.
 */
static void drop_name(struct pss_case *c)
{
	CU_ASSERT(mshare_wait_count(&c->sync->written, c->sharers,
				    CHILD_TIMEOUT));
	if (c->target.kind == SHM_REGION)
		MSHARE_ASSERT_EQ(mshare_unlink(c->target.name), 0);
	else
		MSHARE_ASSERT_EQ(close(c->target.memfd), 0);
	__atomic_store_n(&c->sync->name_gone, 1, __ATOMIC_SEQ_CST);
}

static void run_pss_case(struct pss_case *c)
{
	struct pss_sync *sync;
	pid_t pids[PSS_MAX_SHARERS];
	long resident_kb = KB(NPAGES + 1), sum_pss = 0;
	int i, status;

	sync = mmap(NULL, sizeof(*sync), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(sync != MAP_FAILED);
	c->sync = sync;
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	for (i = 0; i < c->sharers; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			alarm(CHILD_TIMEOUT);
			_exit(pss_sharer(c, &sync->view[i]));
		}
		CU_ASSERT(pids[i] > 0);
	}
	if (c->drop_name)
		drop_name(c);
	for (i = 0; i < c->sharers; i++) {
		if (pids[i] <= 0)
			continue;
		MSHARE_ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
		/* A sharer's exit status: 0, or the step that failed */
		MSHARE_ASSERT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) :
				 128 + WTERMSIG(status), 0);
	}
	for (i = 0; i < c->sharers; i++) {
		struct pss_view *v = &sync->view[i];

		printf("    %s sharer %d of %d: smaps Rss %ld Pss %ld Private %ld Shared %ld kB, pagemap exclusive %ld of %d; smaps_rollup Rss %ld kB, VmRSS %ld kB, RssShmem %ld kB\n",
		       shm_kind_name(c->target.kind), i + 1, c->sharers,
		       v->smaps.rss_kb, v->smaps.pss_kb, v->smaps.private_kb, v->smaps.shared_kb,
		       v->exclusive, NPAGES, v->rollup_rss_kb, v->vmrss_kb,
		       v->rssshmem_kb);
		MSHARE_ASSERT_EQ(v->smaps.rss_kb, resident_kb);
		MSHARE_ASSERT_EQ(v->smaps.shared_kb, resident_kb);
		MSHARE_ASSERT_EQ(v->smaps.private_kb, 0);
		MSHARE_ASSERT_EQ(v->exclusive, 0);
		MSHARE_ASSERT_EQ(v->vmrss_kb, v->rollup_rss_kb);
		/* The memory, and the page of @sync the sharer wrote */
		CU_ASSERT(v->rssshmem_kb >= resident_kb);
		/*
		 * get_mm_rss(): the mm's own counters, without the region.
		 * It reads them as last folded, up to a batch of pages a CPU
		 * behind status's sums: exact on one CPU only.
		 */
		if (sysconf(_SC_NPROCESSORS_ONLN) == 1)
			MSHARE_ASSERT_EQ(v->stat_rss_kb, v->vmrss_kb -
					 (c->target.kind == SHM_REGION ?
					  resident_kb : 0));
		sum_pss += v->smaps.pss_kb;
	}
	/* Nameless, the region went with its last sharer */
	if (c->target.kind == SHM_REGION && !c->drop_name) {
		struct mshare_dbg dbg;

		/* What the region holds: the setup's page and NPAGES */
		MSHARE_ASSERT_EQ(mshare_dbg_find(c->target.name, &dbg), 0);
		MSHARE_ASSERT_EQ(KB((long)dbg.rss_pages), resident_kb);
	}
	printf("    %s: sum of Pss over %d sharers %ld kB, resident %ld kB\n",
	       shm_kind_name(c->target.kind), c->sharers, sum_pss,
	       resident_kb);
	/* Each smaps rounds its Pss down to a kB: within a page a process */
	CU_ASSERT(sum_pss <= resident_kb);
	CU_ASSERT(sum_pss >= resident_kb - c->sharers * KB(1));
	if (!c->drop_name) {
		CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	} else if (c->target.kind == SHM_REGION) {
		CU_ASSERT(mshare_dbg_wait_gone(c->target.name));
	}
	munmap(sync, sizeof(*sync));
}

static void run_pss_2(struct pss_case *c)
{
	c->sharers = 2;
	run_pss_case(c);
}

static void run_pss_8(struct pss_case *c)
{
	c->sharers = 8;
	run_pss_case(c);
}

SHM_TEST_PAIR(struct pss_case, pss_sum_2_sharers, run_pss_2,
	      PSS_ADDR(0), PSS_ADDR(1))
SHM_TEST_PAIR(struct pss_case, pss_sum_8_sharers, run_pss_8,
	      PSS_ADDR(2), PSS_ADDR(3))

static void run_pss_2_nameless(struct pss_case *c)
{
	c->drop_name = true;
	run_pss_2(c);
}

SHM_TEST_PAIR(struct pss_case, pss_sum_2_sharers_nameless,
	      run_pss_2_nameless, PSS_NAMELESS_ADDR(0), PSS_NAMELESS_ADDR(1))

/*
 * Accessed-bit tracking: after clear_refs (1: every page of every vma old)
 * or MADV_COLD, a page counts as Referenced in smaps again only once it is
 * accessed.  Reclaim ages pages by the same bit.  What one sharer (A)
 * sees after accesses of its own and of another sharer (B): with a
 * memfd, A's smaps walks A's own PTEs, so only A's accesses count; with a
 * region, A walks the region's PTEs, which B's accesses set too.
 * clear_refs does not flush the TLB: where an access through a cached
 * translation sets no accessed bit (x86), A's own accesses after it are
 * printed, not checked (mshare_old_pte_access_faults()); B, forked after
 * the clear, walks the page tables, and MADV_COLD flushes.
 */
#define REF_PAGES	32
#define REF_OFF		(4 * PT_SPAN)

enum {
	REF_FRESH,		/* after A faulted every page in */
	REF_CLEARED,		/* then clear_refs */
	REF_A_READ,		/* clear_refs, A reads every page */
	REF_B_READ,		/* clear_refs, B (forked) reads every page */
	REF_B_WRITE,		/* clear_refs, B writes every page */
	REF_A_WRITE,		/* clear_refs, A writes every page */
	REF_COLD,		/* MADV_COLD of A's mapping */
	REF_COLD_A_READ,	/* then A reads every page */
	REF_STAGES,
};

static const char *const ref_stage_name[REF_STAGES] = {
	"fresh", "cleared", "A reads", "B reads", "B writes", "A writes",
	"MADV_COLD", "MADV_COLD, A reads",
};

struct ref_case {
	struct shm_target target;
	struct mshare_report *report;
	long *referenced;	/* kB per stage, shared with the test */
	long want[REF_STAGES];
};

static long referenced_kb(unsigned long addr, char *buf)
{
	const char *entry = mshare_smaps_entry(buf, SMAPS_MAX, addr);

	return entry ? smaps_field(entry, "Referenced") : -1;
}

static int clear_refs(const char *how)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, how, strlen(how)) == (ssize_t)strlen(how) ? 0 : -1;
	close(fd);
	return ret;
}

/* Read (or write) one word in every page of the range */
static void touch_range(volatile unsigned long *p, bool write)
{
	unsigned long i, sum = 0;

	for (i = 0; i < REF_PAGES; i++) {
		volatile unsigned long *w = &p[(REF_OFF + i * PAGE) /
					       sizeof(long)];

		if (write)
			*w = i + 1;
		else
			sum += *w;
	}
	(void)sum;
}

/* A forked sharer accesses the range through its own mapping */
static int sharer_b(volatile unsigned long *p, bool write)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		touch_range(p, write);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

static int ref_child(void *arg)
{
	struct ref_case *c = arg;
	struct mshare_report *r = c->report;
	unsigned long addr = c->target.addr;
	volatile unsigned long *p;
	char *buf = malloc(SMAPS_MAX);
	long *ref = c->referenced;

	if (!buf)
		return mshare_report_fail(r, ENOMEM);
	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, r, "map");
	if (!p)
		return 1;
	mshare_report_step(r, "fault in");
	touch_range(p, true);
	ref[REF_FRESH] = referenced_kb(addr, buf);

	mshare_report_step(r, "clear_refs 1");
	if (clear_refs("1"))
		return mshare_report_fail(r, errno);
	ref[REF_CLEARED] = referenced_kb(addr, buf);
	touch_range(p, false);
	ref[REF_A_READ] = referenced_kb(addr, buf);

	mshare_report_step(r, "B reads");
	if (clear_refs("1") || sharer_b(p, false))
		return mshare_report_fail(r, errno);
	ref[REF_B_READ] = referenced_kb(addr, buf);
	mshare_report_step(r, "B writes");
	if (clear_refs("1") || sharer_b(p, true))
		return mshare_report_fail(r, errno);
	ref[REF_B_WRITE] = referenced_kb(addr, buf);
	mshare_report_step(r, "A writes");
	if (clear_refs("1"))
		return mshare_report_fail(r, errno);
	touch_range(p, true);
	ref[REF_A_WRITE] = referenced_kb(addr, buf);

	mshare_report_step(r, "MADV_COLD");
	if (madvise((void *)addr, mshare_unit(), MADV_COLD))
		return mshare_report_fail(r, errno);
	ref[REF_COLD] = referenced_kb(addr, buf);
	touch_range(p, false);
	ref[REF_COLD_A_READ] = referenced_kb(addr, buf);

	/*
	 * 4 clears soft-dirty bits; UML has none (no CONFIG_MEM_SOFT_DIRTY),
	 * so it only takes the walk.  2 and 3: anonymous, file pages only.
	 */
	mshare_report_step(r, "clear_refs 2, 3, 4");
	if (clear_refs("2") || clear_refs("3") || clear_refs("4"))
		return mshare_report_fail(r, errno);
	mshare_report_step(r, "data");
	for (unsigned long i = 0; i < REF_PAGES; i++)
		if (p[(REF_OFF + i * PAGE) / sizeof(long)] != i + 1)
			return mshare_report_fail(r, MSHARE_ERR_VALUE);
	free(buf);
	return mshare_report_done(r);
}

static void run_ref_case(struct ref_case *c)
{
	struct harness_child_result res;
	int i;

	c->report = mshare_report_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->report);
	c->referenced = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->referenced != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
	CU_ASSERT_EQUAL(harness_run_child_timeout(ref_child, c, CHILD_TIMEOUT,
						 &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	printf("    %s: smaps Referenced (kB):", shm_kind_name(c->target.kind));
	for (i = 0; i < REF_STAGES; i++)
		printf(" %s %ld;", ref_stage_name[i], c->referenced[i]);
	printf("\n");
	MSHARE_ASSERT_STAGES(c->referenced, c->want, ref_stage_name,
			     REF_STAGES, 1UL << REF_A_READ | 1UL << REF_A_WRITE);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->referenced, PAGE);
	mshare_report_free(c->report);
}

/* Every page of the region: the setup's word at 0, and NPAGES */
static void reader_view_region(void)
{
	struct proc_case c = {
		.target = { .kind = SHM_REGION, .name = "proc_region",
			    .addr = PROC_ADDR(0) },
		.want = {
			.smaps = {
				.rss_kb = KB(NPAGES + 1), .pss_kb = KB(NPAGES + 1),
				.private_kb = KB(NPAGES + 1), .shared_kb = 0,
			},
			.vmrss_growth_kb = KB(NPAGES + 1),
			.pagemap_present = NPAGES, .mincore_resident = NPAGES,
		},
	};

	run_proc_case(&c);
}

/* The one page the reader mapped */
static void reader_view_memfd(void)
{
	struct proc_case c = {
		.target = { .kind = SHM_MEMFD, .name = "proc_memfd",
			    .addr = PROC_ADDR(1) },
		.want = {
			.smaps = {
				.rss_kb = KB(1), .pss_kb = KB(1),
				.private_kb = KB(1), .shared_kb = 0,
			},
			.vmrss_growth_kb = KB(1), .pagemap_present = 0,
			/* in the page cache, mapped or not */
			.mincore_resident = NPAGES,
		},
	};

	run_proc_case(&c);
}

/*
 * The region's vma holds the setup's page too (a region's smaps shows
 * every page of the region): it is young until the first clear_refs.
 */
static void referenced_after_clear_refs_region(void)
{
	struct ref_case c = {
		.target = { .kind = SHM_REGION, .name = "refs_region",
			    .addr = PROC_ADDR(2) },
		.want = {
			[REF_FRESH] = KB(REF_PAGES + 1),
			[REF_A_READ] = KB(REF_PAGES),
			[REF_B_READ] = KB(REF_PAGES),
			[REF_B_WRITE] = KB(REF_PAGES),
			[REF_A_WRITE] = KB(REF_PAGES),
			[REF_COLD_A_READ] = KB(REF_PAGES),
		},
	};

	run_ref_case(&c);
}

/*
 * B's accesses set B's own PTEs' bits, which A's smaps does not walk; but
 * B, a new process, faults its PTEs in first, and shmem's fault marks the
 * folio accessed (PG_referenced), which smaps counts for every mapper.
 */
static void referenced_after_clear_refs_memfd(void)
{
	struct ref_case c = {
		.target = { .kind = SHM_MEMFD, .name = "refs_memfd",
			    .addr = PROC_ADDR(3) },
		.want = {
			[REF_FRESH] = KB(REF_PAGES),
			[REF_A_READ] = KB(REF_PAGES),
			[REF_B_READ] = KB(REF_PAGES),
			[REF_B_WRITE] = KB(REF_PAGES),
			[REF_A_WRITE] = KB(REF_PAGES),
			[REF_COLD_A_READ] = KB(REF_PAGES),
		},
	};

	run_ref_case(&c);
}

static const struct harness_test mshare_proc_tests[] = {
	{ "reader_view_region", reader_view_region },
	{ "reader_view_memfd", reader_view_memfd },
	{ "mincore_before_first_touch_region",
	  mincore_before_first_touch_region },
	{ "mincore_before_first_touch_memfd",
	  mincore_before_first_touch_memfd },
	{ "pss_sum_2_sharers_region", pss_sum_2_sharers_region },
	{ "pss_sum_2_sharers_memfd", pss_sum_2_sharers_memfd },
	{ "pss_sum_8_sharers_region", pss_sum_8_sharers_region },
	{ "pss_sum_8_sharers_memfd", pss_sum_8_sharers_memfd },
	{ "pss_sum_2_sharers_nameless_region",
	  pss_sum_2_sharers_nameless_region },
	{ "pss_sum_2_sharers_nameless_memfd",
	  pss_sum_2_sharers_nameless_memfd },
	{ "referenced_after_clear_refs_region",
	  referenced_after_clear_refs_region },
	{ "referenced_after_clear_refs_memfd",
	  referenced_after_clear_refs_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_proc_suite, .name = "mshare_proc",
	      .tests = mshare_proc_tests,
	      .requires = harness_requires_msharefs);
