// SPDX-License-Identifier: GPL-2.0
/*
 * Transparent huge pages and a region: a region's memory stays in 4 KiB
 * pages whatever THP's settings, a sharer's advice and khugepaged do,
 * while a MAP_SHARED memfd under the same settings gets huge pages, which
 * shows that the settings are in effect.
 *
 * Why none: a region's pages are private anonymous memory of the region's
 * mm, in a vma the series marks VM_NOHUGEPAGE (from the seed on).  A
 * sharer's MADV_HUGEPAGE over its whole mapping succeeds and sets the flag
 * on the sharer's vma only, which faults never use (they move to the
 * region's vma); khugepaged never scans the region's mm, which no fault
 * or madvise registers; MADV_COLLAPSE is EINVAL (mshare_madvise).  A huge
 * page there would be mapped by a PMD in the page tables every sharer
 * walks, and khugepaged's collapse flushes only the TLBs of the mm it
 * collapses in, the region's, which runs on no CPU.
 *
 * The pages are told apart by /proc/kpageflags (KPF_THP) of the PFNs that
 * pagemap gives: exact for this range, whatever else the machine maps in
 * huge pages meanwhile.
 *
 * khugepaged passes only over the mms on its list, and a region puts none
 * there: the collapse case maps a private anonymous control beside the
 * region, whose MADV_HUGEPAGE puts the process on the list, and which
 * khugepaged collapses: the proof that it passed over the process.
 *
 * The x86_64 target's own: UML has no THP.
 */
#include <errno.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mshare_util.h"
#include "shm_target.h"

#define THP_ADDR(slot)		MSHARE_ADDR(230 + (slot))
#define PMD_LEN			(2UL << 20)	/* x86-64's PMD_SIZE */
/* The range looked at: PMD-aligned, clear of the setup's page at 0 */
#define RANGE_OFF		(2 * PMD_LEN)
#define RANGE_LEN		(2 * PMD_LEN)
#define RANGE_PAGES		(RANGE_LEN / PAGE)
/* The memfd: small, so that khugepaged scans it in a moment */
#define MEMFD_LEN		(8 * PMD_LEN)
#define CHILD_TIMEOUT		120
/* khugepaged's full passes over its mms that the collapse case waits */
#define KHUGEPAGED_PASSES	3
#define KPF_THP			22	/* include/uapi/linux/kernel-page-flags.h */
#define THP_SYSFS		"/sys/kernel/mm/transparent_hugepage/"
#define KNOB_MAX		64

/*
 * The settings the suite changes, saved by its init and put back by its
 * cleanup.  The three policies read as "always [madvise] never": the
 * word in brackets is the setting.
 */
enum thp_knob {
	KNOB_ENABLED, KNOB_SHMEM_ENABLED, KNOB_DEFRAG,
	KNOB_SCAN_SLEEP, KNOB_ALLOC_SLEEP, KNOB_PAGES_TO_SCAN, KNOBS
};

static const char *const knob_file[KNOBS] = {
	[KNOB_ENABLED] = "enabled",
	[KNOB_SHMEM_ENABLED] = "shmem_enabled",
	[KNOB_DEFRAG] = "defrag",
	[KNOB_SCAN_SLEEP] = "khugepaged/scan_sleep_millisecs",
	[KNOB_ALLOC_SLEEP] = "khugepaged/alloc_sleep_millisecs",
	[KNOB_PAGES_TO_SCAN] = "khugepaged/pages_to_scan",
};

static char saved[KNOBS][KNOB_MAX];

static int knob_path(char *path, size_t size, const char *file)
{
	return snprintf(path, size, THP_SYSFS "%s", file) < (int)size ? 0 : -1;
}

/* The setting of @file into @value: the word in brackets, or the line */
static int knob_read(const char *file, char *value)
{
	char path[128], buf[KNOB_MAX];
	char *start, *end;
	ssize_t len;

	if (knob_path(path, sizeof(path), file))
		return -1;
	len = harness_read_file(path, buf, sizeof(buf));
	if (len <= 0)
		return -1;
	start = strchr(buf, '[');
	start = start ? start + 1 : buf;
	end = strpbrk(start, "]\n");
	if (end)
		*end = '\0';
	snprintf(value, KNOB_MAX, "%s", start);
	return 0;
}

static int knob_write(enum thp_knob knob, const char *value)
{
	char path[128];

	if (knob_path(path, sizeof(path), knob_file[knob]))
		return -1;
	return harness_write_file(path, value);
}

static int thp_save(void)
{
	int k;

	for (k = 0; k < KNOBS; k++)
		if (knob_read(knob_file[k], saved[k]))
			return -1;
	return 0;
}

static int thp_restore(void)
{
	int k, err = 0;

	for (k = 0; k < KNOBS; k++)
		err |= knob_write(k, saved[k]);
	return err;
}

/* Every policy at "always": the most THP there can be */
static void thp_all_always(void)
{
	CU_ASSERT_EQUAL(knob_write(KNOB_ENABLED, "always"), 0);
	CU_ASSERT_EQUAL(knob_write(KNOB_SHMEM_ENABLED, "always"), 0);
	CU_ASSERT_EQUAL(knob_write(KNOB_DEFRAG, "always"), 0);
}

static long khugepaged_full_scans(void)
{
	char value[KNOB_MAX];

	return knob_read("khugepaged/full_scans", value) ? -1 :
	       strtol(value, NULL, 10);
}

/* What a case saw, in memory shared with the test */
struct thp_counts {
	long thp_pages;		/* pages of the range in a huge page */
	/* collapse case: of the process's private anonymous control */
	long control_thp_pages;
	long wrong;		/* pages of the range that read back wrong */
	long smaps_anon_huge_kb, smaps_shmem_pmd_kb;
	long passes;		/* khugepaged's full passes waited */
	int collapse_may_start;	/* collapse case: settings in place */
	int written;		/* collapse case: the range is written */
};

struct thp_case {
	struct shm_target target;
	struct mshare_report *report;
	struct thp_counts *counts;
};

static void write_range(unsigned long *range)
{
	unsigned long i;

	for (i = 0; i < RANGE_PAGES; i++)
		range[i * PAGE / sizeof(long)] = mshare_pattern(i, 1);
}

static long count_wrong(const unsigned long *range)
{
	unsigned long i;
	long wrong = 0;

	for (i = 0; i < RANGE_PAGES; i++)
		wrong += range[i * PAGE / sizeof(long)] != mshare_pattern(i, 1);
	return wrong;
}

/*
 * Read the range back and count its pages in huge pages, and the
 * mapping's PMD-mapped memory by smaps.  0, or a reason to fail.
 */
static int look_at_range(struct thp_case *c, unsigned long *p)
{
	static char buf[65536];
	unsigned long *range = p + RANGE_OFF / sizeof(long);
	const char *entry;

	mshare_report_step(c->report, "read the range back");
	c->counts->wrong = count_wrong(range);
	mshare_report_step(c->report, "kpageflags of the range");
	c->counts->thp_pages = harness_pages_with_kpageflag((uintptr_t)range,
							    RANGE_PAGES,
							    KPF_THP);
	if (c->counts->thp_pages < 0)
		return mshare_report_fail(c->report, errno);
	mshare_report_step(c->report, "smaps");
	entry = mshare_smaps_entry(buf, sizeof(buf), c->target.addr);
	if (!entry ||
	    harness_kb_field_parse(entry, "AnonHugePages",
				   &c->counts->smaps_anon_huge_kb) ||
	    harness_kb_field_parse(entry, "ShmemPmdMapped",
				   &c->counts->smaps_shmem_pmd_kb))
		return mshare_report_fail(c->report, MSHARE_ERR_VALUE);
	return 0;
}

/*
 * With every policy at "always": map the memory, advise MADV_HUGEPAGE
 * over the whole mapping, write the range, look at it.
 */
static int faulting_sharer(void *arg)
{
	struct thp_case *c = arg;
	unsigned long *p;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, c->report,
				"map");
	if (!p)
		return 1;
	mshare_report_step(c->report, "MADV_HUGEPAGE");
	if (madvise(p, shm_target_len(&c->target), MADV_HUGEPAGE))
		return mshare_report_fail(c->report, errno);
	mshare_report_step(c->report, "write the range");
	write_range(p + RANGE_OFF / sizeof(long));
	return look_at_range(c, p) ?: mshare_report_done(c->report);
}

/*
 * The control of the collapse case: RANGE_LEN of private anonymous
 * memory, PMD-aligned, in the process that maps the region or memfd.
 * Its MADV_HUGEPAGE puts the process's mm on khugepaged's list (nothing
 * about a region does), so that khugepaged passes over the process, and
 * its collapse shows that it did.  NULL on failure.
 */
static unsigned long *map_anon_control(void)
{
	char *p = mmap(NULL, RANGE_LEN + PMD_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	return (unsigned long *)(((uintptr_t)p + PMD_LEN - 1) & ~(PMD_LEN - 1));
}

/* Until khugepaged has passed over its list KHUGEPAGED_PASSES times */
static int wait_for_khugepaged(struct thp_case *c)
{
	double deadline = harness_now_s() + CHILD_TIMEOUT / 2;
	long scans = khugepaged_full_scans();

	mshare_report_step(c->report, "wait for khugepaged's passes");
	while (scans >= 0 &&
	       khugepaged_full_scans() < scans + KHUGEPAGED_PASSES &&
	       harness_now_s() < deadline)
		usleep(10000);
	c->counts->passes = khugepaged_full_scans() - scans;
	if (scans < 0 || c->counts->passes < KHUGEPAGED_PASSES)
		return mshare_report_fail(c->report, ETIMEDOUT);
	return 0;
}

/*
 * Write the range, and the control, while THP is off, so in 4 KiB pages;
 * once the test has turned every policy to "always" and khugepaged to
 * scan at once, advise MADV_HUGEPAGE over both (a memfd's mm goes on
 * khugepaged's list too), touch a page in another PMD (a region's fault
 * there would put the region's mm on the list if its vma allowed THP),
 * wait for khugepaged's passes, look again.
 */
static int collapse_waiting_sharer(void *arg)
{
	struct thp_case *c = arg;
	struct thp_counts *n = c->counts;
	unsigned long *p, *control;

	p = shm_target_map_step(&c->target, PROT_READ | PROT_WRITE, c->report,
				"map");
	if (!p)
		return 1;
	mshare_report_step(c->report, "map the anonymous control");
	control = map_anon_control();
	if (!control)
		return mshare_report_fail(c->report, errno);
	mshare_report_step(c->report, "write the range in small pages");
	write_range(p + RANGE_OFF / sizeof(long));
	write_range(control);
	__atomic_store_n(&n->written, 1, __ATOMIC_SEQ_CST);
	mshare_report_step(c->report, "wait for the settings");
	if (!mshare_wait_count(&n->collapse_may_start, 1, CHILD_TIMEOUT))
		return mshare_report_fail(c->report, ETIMEDOUT);
	mshare_report_step(c->report, "MADV_HUGEPAGE");
	if (madvise(p, shm_target_len(&c->target), MADV_HUGEPAGE) ||
	    madvise(control, RANGE_LEN, MADV_HUGEPAGE))
		return mshare_report_fail(c->report, errno);
	p[(RANGE_OFF + RANGE_LEN) / sizeof(long)] = 1;
	if (wait_for_khugepaged(c))
		return 1;
	mshare_report_step(c->report, "kpageflags of the control");
	n->control_thp_pages = count_wrong(control) ? -1 :
		harness_pages_with_kpageflag((uintptr_t)control, RANGE_PAGES,
					     KPF_THP);
	return look_at_range(c, p) ?: mshare_report_done(c->report);
}

static void case_begin(struct thp_case *c)
{
	if (c->target.kind == SHM_MEMFD)
		c->target.memfd_size = MEMFD_LEN;
	c->report = mshare_report_new();
	c->counts = mmap(NULL, sizeof(*c->counts), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(c->report && c->counts != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(shm_target_setup(&c->target), 0);
}

/*
 * What a case must see: a region none of the range in huge pages, the
 * memfd all of it; the data right in both.
 */
static void case_end(struct thp_case *c, const char *what)
{
	bool region = c->target.kind == SHM_REGION;
	struct thp_counts *n = c->counts;

	printf("    %s %s: %ld of %lu pages in huge pages, %ld read back wrong; smaps AnonHugePages %ld kB, ShmemPmdMapped %ld kB\n",
	       shm_kind_name(c->target.kind), what, n->thp_pages, RANGE_PAGES,
	       n->wrong, n->smaps_anon_huge_kb, n->smaps_shmem_pmd_kb);
	MSHARE_ASSERT_EQ(n->wrong, 0);
	MSHARE_ASSERT_EQ(n->thp_pages, region ? 0 : (long)RANGE_PAGES);
	MSHARE_ASSERT_EQ(n->smaps_anon_huge_kb, 0);
	CU_ASSERT_EQUAL(thp_restore(), 0);
	CU_ASSERT_EQUAL(shm_target_teardown(&c->target), 0);
	munmap(c->counts, sizeof(*c->counts));
	mshare_report_free(c->report);
}

static void run_fault_case(struct thp_case *c)
{
	struct harness_child_result res;

	thp_all_always();
	case_begin(c);
	CU_ASSERT_EQUAL(harness_run_child_timeout(faulting_sharer, c,
						  CHILD_TIMEOUT, &res), 0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	case_end(c, "faulted with every THP policy at always");
}

static void run_collapse_case(struct thp_case *c)
{
	struct harness_child_result res;
	pid_t pid;

	CU_ASSERT_EQUAL(knob_write(KNOB_ENABLED, "never"), 0);
	CU_ASSERT_EQUAL(knob_write(KNOB_SHMEM_ENABLED, "never"), 0);
	case_begin(c);
	pid = harness_start_child(collapse_waiting_sharer, c);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT(mshare_wait_count(&c->counts->written, 1, CHILD_TIMEOUT));
	thp_all_always();
	CU_ASSERT_EQUAL(knob_write(KNOB_SCAN_SLEEP, "10"), 0);
	CU_ASSERT_EQUAL(knob_write(KNOB_ALLOC_SLEEP, "10"), 0);
	CU_ASSERT_EQUAL(knob_write(KNOB_PAGES_TO_SCAN, "65536"), 0);
	__atomic_store_n(&c->counts->collapse_may_start, 1, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(harness_wait_child_timeout(pid, CHILD_TIMEOUT, &res),
			0);
	MSHARE_ASSERT_CHILD(&res, c->report, NULL, 0);
	printf("    khugepaged made %ld full passes; the anonymous control: %ld of %lu pages in huge pages\n",
	       c->counts->passes, c->counts->control_thp_pages, RANGE_PAGES);
	MSHARE_ASSERT_EQ(c->counts->control_thp_pages, RANGE_PAGES);
	case_end(c, "written in small pages, then khugepaged");
}

SHM_TEST_PAIR(struct thp_case, fault_always, run_fault_case, THP_ADDR(0),
	      THP_ADDR(0))
SHM_TEST_PAIR(struct thp_case, khugepaged, run_collapse_case, THP_ADDR(1),
	      THP_ADDR(1))

static int thp_suite_init(void)
{
	return thp_save();
}

static int thp_suite_cleanup(void)
{
	return thp_restore();
}

static const char *requires_thp_and_msharefs(void)
{
	if (!harness_kernel_has_thp())
		return "needs THP, which UML has not (make run ARCH=x86_64)";
	return harness_requires_msharefs();
}

static const struct harness_test mshare_thp_tests[] = {
	{ "fault_always_region", fault_always_region },
	{ "fault_always_memfd", fault_always_memfd },
	{ "khugepaged_region", khugepaged_region },
	{ "khugepaged_memfd", khugepaged_memfd },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_thp_suite, .name = "mshare_thp",
	      .tests = mshare_thp_tests, .init = thp_suite_init,
	      .cleanup = thp_suite_cleanup,
	      .requires = requires_thp_and_msharefs);
