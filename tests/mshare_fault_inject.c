// SPDX-License-Identifier: GPL-2.0
/*
 * Fault-injection sweep of the mshare entry points.
 *
 * For each entry point, the operation runs in a child with
 * /proc/thread-self/fail-nth set to 1, 2, 3, ...: the Nth allocation the
 * child makes (failslab, fail_page_alloc; GFP_KERNEL ones too, order 0
 * too) fails, until an attempt completes before its Nth allocation.  Each
 * attempt must succeed or fail with the operation's errno for a failed
 * allocation, and leave the region consistent: its debugfs refcount and
 * name, its data, and a later mapping that works.  The child writes
 * KMSG_INJECT_ARMED / KMSG_INJECT_DISARMED to /dev/kmsg around the armed
 * part, so the log watch accepts the injection's own lines there and only
 * there.  kmemleak's scan at the end of the run finds what an error path
 * leaked; a region left listed fails nothing_left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "fail_nth.h"
#include "kmsg_patterns.h"
#include "mshare_util.h"
#include "test_util.h"

#define FI_MAX_N	400
#define FI_TAG		7

/* What one attempt did, written by the child, read by the test. */
struct fi_attempt {
	int err;		/* the operation's errno, 0 if it succeeded */
	int injected;		/* fail-nth read back 0: the Nth call failed */
	int n;
	char bad[96];		/* what the child found wrong, "" if nothing */
};

struct fi_entry;

struct fi_row {
	const char *name;
	int points;		/* fault points on the path, -1: never completed */
	int injected;
	int ok;			/* attempts with an injection that succeeded */
	int enomem;
	int other;		/* other errnos: fail the test */
	int inconsistent;
};

struct fi_entry {
	const char *name;
	const char *region;
	/* Its region at MSHARE_ADDR(slot): an address, not a constant */
	unsigned int slot;
	/* Before the sweep and after it (parent). */
	int (*setup)(const struct fi_entry *e);
	void (*teardown)(const struct fi_entry *e);
	/* The attempt, in a child: unarmed preparation, armed op, checks. */
	int (*attempt)(const struct fi_entry *e, struct fi_attempt *a);
	/* After each attempt (parent): "" if consistent, else what is not. */
	void (*check)(const struct fi_entry *e, const struct fi_attempt *a,
		      char *bad, size_t size);
	/* The errno besides ENOMEM the operation may fail with, or 0. */
	int also_errno;
	/*
	 * If set, only allocations with this function on their stack count
	 * (the stack-trace filter's require range): the allocations of the
	 * debug stack (kmemleak, stack depot, debug objects) come and go
	 * between attempts and shift fail-nth's count, so that a plain sweep
	 * can step over one of mshare's own allocations.
	 */
	const char *only_under;
};

static struct fi_row rows[20];
static unsigned int nrows;
static struct fi_attempt *shared;
static struct mshare_agent creator;

static const char *fi_requires(void)
{
	const char *why = harness_requires_msharefs();

	if (why)
		return why;
	why = fail_nth_requires();
	if (why)
		return why;
	return harness_requires_kmsg_watch();
}

static int fi_suite_init(void)
{
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -1;
	return fail_nth_knobs(true) ? -1 : 0;
}

static int fi_suite_cleanup(void)
{
	munmap(shared, sizeof(*shared));
	return fail_nth_knobs(false) ? -1 : 0;
}

/* ---- helpers ---- */

static void bad(struct fi_attempt *a, const char *what, long got)
{
	if (!a->bad[0])
		snprintf(a->bad, sizeof(a->bad), "%s (got %ld)", what, got);
}

static void path_of(char *buf, size_t size, const char *name)
{
	mshare_path(buf, size, name);
}

static bool exists(const char *name)
{
	char path[256];

	path_of(path, sizeof(path), name);
	return access(path, F_OK) == 0;
}

/* Map the region as a follower at its address: the address or NULL. */
static unsigned long *follow(const char *name, int *err)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || mshare_read_info(fd, &info)) {
		*err = errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	*err = p == MAP_FAILED ? errno : 0;
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* A region, mapped by the creator agent, with the pattern at offset 0. */
static int region_up(const struct fi_entry *e)
{
	int fd = mshare_create(e->region);

	if (fd < 0)
		return fd;
	close(fd);
	if (mshare_agent_start(&creator, e->region, MSHARE_ADDR(e->slot),
			       FI_TAG) ||
	    mshare_agent_do(&creator, AGENT_MAP_CREATE, mshare_unit()) ||
	    mshare_agent_do(&creator, AGENT_WRITE, 0))
		return -EIO;
	return 0;
}

static void region_down(const struct fi_entry *e)
{
	if (creator.pid > 0)
		MSHARE_ASSERT_EQ(mshare_agent_stop(&creator), 0);
	memset(&creator, 0, sizeof(creator));
	if (exists(e->region))
		MSHARE_ASSERT_ERRNO(mshare_unlink(e->region), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(e->region));
}

/* The region's refcount and deleted flag are @ref and @deleted. */
static void want_dbg(const char *name, unsigned int ref, int deleted,
		     char *buf, size_t size)
{
	struct mshare_dbg dbg;
	int ret = mshare_dbg_find(name, &dbg);

	if (ret)
		snprintf(buf, size, "%s not listed in debugfs (%d)", name, ret);
	else if (dbg.refcount != ref || dbg.deleted != deleted)
		snprintf(buf, size, "%s: refcount=%u deleted=%d, want %u %d",
			 name, dbg.refcount, dbg.deleted, ref, deleted);
}

/*
 * A later mapping works: a new process maps the region and finds the
 * creator's word, writes its own and the creator sees it.
 */
static void later_mapping_works(const struct fi_entry *e, char *buf,
				size_t size)
{
	struct mshare_agent f;
	int ret;

	if (buf[0])
		return;
	if (mshare_agent_start(&f, e->region, MSHARE_ADDR(e->slot), FI_TAG)) {
		snprintf(buf, size, "cannot start a follower");
		return;
	}
	ret = mshare_agent_do(&f, AGENT_MAP_FOLLOW, 0);
	if (!ret)
		ret = mshare_agent_do(&f, AGENT_CHECK, 0);
	if (!ret)
		ret = mshare_agent_do(&f, AGENT_WRITE, PAGE);
	if (!ret)
		ret = mshare_agent_do(&creator, AGENT_CHECK, PAGE);
	if (ret)
		snprintf(buf, size, "a later mapping fails (agent reply %d)",
			 ret);
	mshare_agent_stop(&f);
}

/* ---- entry points ---- */

/* create a region file */
static int create_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	char path[256];
	int fd;

	path_of(path, sizeof(path), e->region);
	fail_nth_arm(e->name, a->n);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	a->err = fd < 0 ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	if (fd >= 0)
		close(fd);
	return 0;
}

static void create_check(const struct fi_entry *e, const struct fi_attempt *a,
			 char *buf, size_t size)
{
	struct mshare_dbg dbg;

	if (!exists(e->region)) {
		if (!a->err)
			snprintf(buf, size, "open(O_CREAT) succeeded, no file");
		else if (mshare_dbg_find(e->region, &dbg) != -ENOENT)
			snprintf(buf, size, "no file, but listed in debugfs");
		return;
	}
	/* Created (open may still fail after ->create). */
	want_dbg(e->region, 1, 0, buf, size);
	if (!buf[0] &&
	    (mshare_agent_start(&creator, e->region, MSHARE_ADDR(e->slot),
				FI_TAG) ||
	     mshare_agent_do(&creator, AGENT_MAP_CREATE, mshare_unit()) ||
	     mshare_agent_do(&creator, AGENT_WRITE, 0)))
		snprintf(buf, size, "the new region cannot be mapped");
	later_mapping_works(e, buf, size);
	region_down(e);
}

/* mkdir */
static int mkdir_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	char path[256];
	int ret;

	path_of(path, sizeof(path), e->region);
	fail_nth_arm(e->name, a->n);
	ret = mkdir(path, 0700);
	a->err = ret ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	return 0;
}

static void mkdir_check(const struct fi_entry *e, const struct fi_attempt *a,
			char *buf, size_t size)
{
	char path[256], inner[300];
	int fd;

	path_of(path, sizeof(path), e->region);
	if (access(path, F_OK)) {
		if (!a->err)
			snprintf(buf, size, "mkdir succeeded, no directory");
		return;
	}
	snprintf(inner, sizeof(inner), "%s/r", e->region);
	fd = mshare_create(inner);
	if (fd < 0)
		snprintf(buf, size, "no region in the new directory: %s",
			 mshare_errname(-fd));
	else
		close(fd);
	if (fd >= 0)
		MSHARE_ASSERT_ERRNO(mshare_unlink(inner), 0);
	MSHARE_ASSERT_ERRNO(rmdir(path), 0);
}

/* the creator's mmap: the first mapping sets the region up */
static int creator_setup(const struct fi_entry *e)
{
	int fd = mshare_create(e->region);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static int creator_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	char path[256];
	void *p;
	int fd;

	path_of(path, sizeof(path), e->region);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		bad(a, "open", errno);
		return 0;
	}
	fail_nth_arm(e->name, a->n);
	p = mmap((void *)MSHARE_ADDR(e->slot), mshare_unit(),
		 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd,
		 0);
	a->err = p == MAP_FAILED ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	*(volatile unsigned long *)p = mshare_pattern(0, FI_TAG);
	if (mshare_dbg_refcount(e->region) != 2)
		bad(a, "refcount while mapped, want 2",
		    mshare_dbg_refcount(e->region));
	munmap(p, mshare_unit());
	return 0;
}

/*
 * After each attempt the region must be as the file left it, or mapped
 * once and unmapped: refcount 1; then a creator maps it (again), and a
 * follower sees the creator's word.  Each attempt gets a new region.
 */
static void creator_check(const struct fi_entry *e, const struct fi_attempt *a,
			  char *buf, size_t size)
{
	want_dbg(e->region, 1, 0, buf, size);
	if (!buf[0] &&
	    (mshare_agent_start(&creator, e->region, MSHARE_ADDR(e->slot),
				FI_TAG) ||
	     mshare_agent_do(&creator, AGENT_MAP_CREATE, mshare_unit()) ||
	     mshare_agent_do(&creator, AGENT_WRITE, 0)))
		snprintf(buf, size, "after %s, the region cannot be mapped",
			 a->err ? mshare_errname(a->err) : "success");
	later_mapping_works(e, buf, size);
	region_down(e);
	if (creator_setup(e))
		snprintf(buf, size, "cannot create the next region");
}

static void unlink_teardown(const struct fi_entry *e)
{
	region_down(e);
}

/* a follower's mmap */
static int follower_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	struct mshare_region_info info;
	char path[256];
	void *p;
	int fd;

	path_of(path, sizeof(path), e->region);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || mshare_read_info(fd, &info)) {
		bad(a, "open and read", errno);
		return 0;
	}
	fail_nth_arm(e->name, a->n);
	p = mmap((void *)info.start, info.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	a->err = p == MAP_FAILED ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	close(fd);
	if (p == MAP_FAILED)
		return 0;
	if (*(volatile unsigned long *)p != mshare_pattern(0, FI_TAG))
		bad(a, "the creator's word", *(volatile long *)p);
	if (mshare_dbg_refcount(e->region) != 3)
		bad(a, "refcount while mapped, want 3",
		    mshare_dbg_refcount(e->region));
	munmap(p, info.size);
	return 0;
}

/* file + creator */
static void mapped_check(const struct fi_entry *e, const struct fi_attempt *a,
			 char *buf, size_t size)
{
	(void)a;
	want_dbg(e->region, 2, 0, buf, size);
	later_mapping_works(e, buf, size);
}

/* the first fault of a sharer: the region's page tables are allocated */
static int fault_setup(const struct fi_entry *e)
{
	int fd = mshare_create(e->region);

	if (fd < 0)
		return fd;
	close(fd);
	/* Mapped, never touched. */
	if (mshare_agent_start(&creator, e->region, MSHARE_ADDR(e->slot),
			       FI_TAG) ||
	    mshare_agent_do(&creator, AGENT_MAP_CREATE, mshare_unit()))
		return -EIO;
	return 0;
}

static int fault_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	volatile unsigned long *p;
	int err;

	p = follow(e->region, &err);
	if (!p) {
		bad(a, "follow", err);
		return 0;
	}
	fail_nth_arm(e->name, a->n);
	*p = mshare_pattern(0, FI_TAG);
	a->err = 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	if (*p != mshare_pattern(0, FI_TAG))
		bad(a, "the word written", *p);
	munmap((void *)p, mshare_unit());
	return 0;
}

/* The creator sees the word; then a new, untouched region. */
static void fault_check(const struct fi_entry *e, const struct fi_attempt *a,
			char *buf, size_t size)
{
	mapped_check(e, a, buf, size);
	region_down(e);
	if (fault_setup(e))
		snprintf(buf, size, "cannot set up the next region");
}

/* fork of a sharer */
static int fork_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	volatile unsigned long *p;
	int err, status;
	pid_t pid;

	p = follow(e->region, &err);
	if (!p) {
		bad(a, "follow", err);
		return 0;
	}
	fflush(NULL);
	fail_nth_arm(e->name, a->n);
	pid = fork();
	if (pid == 0)
		_exit(*p == mshare_pattern(0, FI_TAG) ? 0 : 1);
	a->err = pid < 0 ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	if (pid > 0 && (waitpid(pid, &status, 0) != pid ||
			!WIFEXITED(status) || WEXITSTATUS(status)))
		bad(a, "the child reads the word", status);
	if (mshare_dbg_refcount(e->region) != 3)
		bad(a, "refcount after fork, want 3",
		    mshare_dbg_refcount(e->region));
	munmap((void *)p, mshare_unit());
	return 0;
}

/* unlink: each attempt on a new, mapped region */
static int unlink_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	char path[256];
	int ret;

	path_of(path, sizeof(path), e->region);
	fail_nth_arm(e->name, a->n);
	ret = unlink(path);
	a->err = ret ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	return 0;
}

static void unlink_check(const struct fi_entry *e, const struct fi_attempt *a,
			 char *buf, size_t size)
{
	bool there = exists(e->region);

	if (there == !a->err) {
		snprintf(buf, size, "unlink %s, the file %s",
			 a->err ? "failed" : "succeeded",
			 there ? "is there" : "is gone");
		return;
	}
	/* Unlinked: listed as deleted while the creator maps it. */
	want_dbg(e->region, 2, !there, buf, size);
	if (!buf[0] && mshare_agent_do(&creator, AGENT_CHECK, 0))
		snprintf(buf, size, "the creator lost its word");
	if (there)
		later_mapping_works(e, buf, size);
	region_down(e);
	if (region_up(e))
		snprintf(buf, size, "cannot set up the next region");
}

/* rename and link: of a region file, to a second name */
static int rename_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	char from[256], to[300];
	int ret;

	path_of(from, sizeof(from), e->region);
	snprintf(to, sizeof(to), "%s.new", from);
	fail_nth_arm(e->name, a->n);
	ret = strcmp(e->name, "link") ? rename(from, to) : link(from, to);
	a->err = ret ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	return 0;
}

static void rename_check(const struct fi_entry *e, const struct fi_attempt *a,
			 char *buf, size_t size)
{
	bool is_link = !strcmp(e->name, "link");
	char newname[128];
	bool old, new;

	snprintf(newname, sizeof(newname), "%s.new", e->region);
	old = exists(e->region);
	new = exists(newname);
	if (new != !a->err || old != (a->err || is_link)) {
		snprintf(buf, size, "%s %s: old name %s, new name %s",
			 e->name, a->err ? "failed" : "succeeded",
			 old ? "there" : "gone", new ? "there" : "gone");
		return;
	}
	/* debugfs names a region by the last name it was given. */
	want_dbg(!a->err && !is_link ? newname : e->region, 2, 0, buf, size);
	if (!a->err && is_link)
		MSHARE_ASSERT_ERRNO(mshare_unlink(newname), 0);
	if (!a->err && !is_link) {
		char from[256], to[256];

		path_of(from, sizeof(from), newname);
		path_of(to, sizeof(to), e->region);
		MSHARE_ASSERT_ERRNO(rename(from, to), 0);
	}
	mapped_check(e, a, buf, size);
}

/* munmap of a sharer's whole mapping */
static int munmap_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	volatile unsigned long *p;
	int err, ret;

	p = follow(e->region, &err);
	if (!p) {
		bad(a, "follow", err);
		return 0;
	}
	fail_nth_arm(e->name, a->n);
	ret = munmap((void *)p, mshare_unit());
	a->err = ret ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	if (ret) {
		if (*p != mshare_pattern(0, FI_TAG))
			bad(a, "the word after a failed munmap", *p);
		munmap((void *)p, mshare_unit());
	}
	if (mshare_dbg_refcount(e->region) != 2)
		bad(a, "refcount after munmap, want 2",
		    mshare_dbg_refcount(e->region));
	return 0;
}

/* exit of a sharer: armed by the child, disarmed by the test */
static int exit_child(void *arg)
{
	const struct fi_entry *e = arg;
	int err;

	if (!follow(e->region, &err))
		return 2;
	if (fail_nth_arm(e->name, shared->n))
		return 3;
	return 0;
}

static int exit_run(const struct fi_entry *e, struct fi_attempt *a)
{
	char path[64], buf[16] = "";
	siginfo_t si;
	pid_t pid;
	int fd, status;

	pid = harness_start_child(exit_child, (void *)e);
	if (pid < 0)
		return pid;
	/* The zombie keeps its fail-nth until it is reaped. */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fail-nth", pid, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	a->injected = fd >= 0 && read(fd, buf, sizeof(buf) - 1) > 0 &&
		      strtol(buf, NULL, 10) == 0;
	if (fd < 0)
		bad(a, "the zombie's fail-nth", errno);
	else
		close(fd);
	waitpid(pid, &status, 0);
	fail_nth_mark(KMSG_INJECT_DISARMED, e->name, a->n);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		bad(a, "the child before exit", status);
	return 0;
}

/* read of <debugfs>/mshare/regions: open and read */
static int debugfs_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	static char text[16384];
	char want[128];
	ssize_t n = -1;
	int fd;

	/*
	 * Fault the buffer in first: a failed page allocation under
	 * copy_to_user() is EFAULT or a short read, the mm's answer, not
	 * debugfs's.
	 */
	memset(text, 0, sizeof(text));
	fail_nth_arm(e->name, a->n);
	fd = open(MSHARE_REGIONS, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		n = read(fd, text, sizeof(text) - 1);
	a->err = fd < 0 || n < 0 ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return 0;
	text[n] = '\0';
	snprintf(want, sizeof(want), "name=%s start=%#lx size=%#lx refcount=2",
		 e->region, MSHARE_ADDR(e->slot), mshare_unit());
	if (!strstr(text, want))
		bad(a, "the region's line", n);
	return 0;
}

/*
 * mount of msharefs: a new instance (get_tree_nodev(): a superblock of
 * its own each time) at a directory of the root filesystem.  A mount
 * that succeeded must hold a region that works, and unmount again.
 */
#define FI_MNT	"/fi_msharefs"

static int mount_setup(const struct fi_entry *e)
{
	(void)e;
	if (mkdir(FI_MNT, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static void mount_teardown(const struct fi_entry *e)
{
	(void)e;
	MSHARE_ASSERT_ERRNO(rmdir(FI_MNT), 0);
}

static int mount_attempt(const struct fi_entry *e, struct fi_attempt *a)
{
	int ret;

	fail_nth_arm(e->name, a->n);
	ret = mount("msharefs", FI_MNT, "msharefs", 0, NULL);
	a->err = ret ? errno : 0;
	a->injected = fail_nth_disarm(e->name, a->n);
	return 0;
}

/* A region in the new instance: create, map, write, read, unlink. */
static void mount_region_works(const struct fi_entry *e, char *buf,
			       size_t size)
{
	char path[256];
	volatile unsigned long *p;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", FI_MNT, e->region);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(buf, size, "no region in the new mount: %s",
			 mshare_errname(errno));
		return;
	}
	p = mmap((void *)MSHARE_ADDR(e->slot), mshare_unit(),
		 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd,
		 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(buf, size, "the new mount's region cannot be mapped: %s",
			 mshare_errname(errno));
	} else {
		*p = mshare_pattern(0, FI_TAG);
		if (*p != mshare_pattern(0, FI_TAG) ||
		    mshare_dbg_refcount(e->region) != 2)
			snprintf(buf, size, "the new mount's region: word %#lx, refcount %ld",
				 *p, mshare_dbg_refcount(e->region));
		munmap((void *)p, mshare_unit());
	}
	MSHARE_ASSERT_ERRNO(unlink(path), 0);
	CU_ASSERT_TRUE(mshare_dbg_wait_gone(e->region));
}

static void mount_check(const struct fi_entry *e, const struct fi_attempt *a,
			char *buf, size_t size)
{
	bool mounted = access(FI_MNT "/mshare_info", F_OK) == 0;

	if (mounted == !!a->err)
		snprintf(buf, size, "mount %s, msharefs %s there",
			 a->err ? "failed" : "succeeded",
			 mounted ? "is" : "is not");
	if (!mounted)
		return;
	mount_region_works(e, buf, size);
	if (umount(FI_MNT) && !buf[0])
		snprintf(buf, size, "umount: %s", mshare_errname(errno));
}

static const struct fi_entry entries[] = {
	{ "create", "fi_create", 120, NULL, NULL,
	  create_attempt, create_check, 0, NULL },
	{ "mkdir", "fi_mkdir", 0, NULL, NULL, mkdir_attempt, mkdir_check, 0, NULL },
	{ "creator_mmap", "fi_creator", 121, creator_setup,
	  unlink_teardown, creator_attempt, creator_check, 0, NULL },
	{ "follower_mmap", "fi_follower", 122, region_up,
	  region_down, follower_attempt, mapped_check, 0, NULL },
	{ "first_fault", "fi_fault", 123, fault_setup,
	  region_down, fault_attempt, fault_check, 0, NULL },
	{ "fork", "fi_fork", 124, region_up, region_down,
	  fork_attempt, mapped_check, EAGAIN, NULL },
	{ "unlink", "fi_unlink", 125, region_up, region_down,
	  unlink_attempt, unlink_check, 0, NULL },
	{ "rename", "fi_rename", 126, region_up, region_down,
	  rename_attempt, rename_check, 0, NULL },
	{ "link", "fi_link", 127, region_up, region_down,
	  rename_attempt, rename_check, 0, NULL },
	{ "munmap", "fi_munmap", 128, region_up, region_down,
	  munmap_attempt, mapped_check, 0, NULL },
	{ "exit", "fi_exit", 129, region_up, region_down,
	  NULL, mapped_check, 0, NULL },
	{ "debugfs_read", "fi_debugfs", 130, region_up,
	  region_down, debugfs_attempt, NULL, 0, NULL },
	/* The same, failing only allocations made under mm/mshare.c. */
	{ "create", "fi_create", 120, NULL, NULL,
	  create_attempt, create_check, 0, "msharefs_mknod" },
	{ "creator_mmap", "fi_creator", 121, creator_setup,
	  unlink_teardown, creator_attempt, creator_check, 0,
	  "msharefs_mmap" },
	{ "mount", "fi_mount", 131, mount_setup, mount_teardown,
	  mount_attempt, mount_check, 0, NULL },
	{ "mount", "fi_mount", 131, mount_setup, mount_teardown,
	  mount_attempt, mount_check, 0, "msharefs_fill_super" },
};

static int attempt_child(void *arg)
{
	const struct fi_entry *e = arg;

	return e->attempt(e, shared);
}

static void print_row(const struct fi_row *r)
{
	printf("harness: fault-inject %-14s points %4d injected %4d  ok %4d  ENOMEM %4d  other %d  inconsistent %d\n",
	       r->name, r->points, r->injected, r->ok, r->enomem, r->other,
	       r->inconsistent);
}

static void sweep(const struct fi_entry *e)
{
	struct harness_child_result res;
	struct fi_row *r = &rows[nrows++];
	char why[160];
	int n, ret;

	memset(r, 0, sizeof(*r));
	r->name = e->only_under ? e->only_under : e->name;
	r->points = -1;
	if (e->only_under) {
		ret = fail_nth_only_under(e->only_under);
		MSHARE_ASSERT_EQ(ret, 0);
		if (ret)
			return;
	}
	if (e->setup) {
		ret = e->setup(e);
		MSHARE_ASSERT_EQ(ret, 0);
		if (ret)
			return;
	}
	for (n = 1; n <= FI_MAX_N; n++) {
		memset(shared, 0, sizeof(*shared));
		shared->n = n;
		if (e->attempt) {
			ret = harness_run_child_timeout(attempt_child,
							(void *)e, 30, &res);
			if (!ret && !(res.exited && res.status == 0))
				bad(shared, "the attempt's child died",
				    res.signaled ? res.signo : res.status);
		} else {
			ret = exit_run(e, shared);
		}
		if (ret) {
			MSHARE_ASSERT_EQ(ret, 0);
			break;
		}
		why[0] = '\0';
		if (shared->bad[0])
			snprintf(why, sizeof(why), "%s", shared->bad);
		else if (e->check)
			e->check(e, shared, why, sizeof(why));
		if (shared->err && shared->err != ENOMEM &&
		    shared->err != e->also_errno) {
			r->other++;
			printf("harness: fault-inject %s n=%d: %s\n", e->name,
			       n, mshare_errname(shared->err));
		} else if (shared->err) {
			r->enomem++;
		} else if (shared->injected) {
			r->ok++;
		}
		if (why[0]) {
			r->inconsistent++;
			printf("harness: fault-inject %s n=%d (%s, %s): %s\n",
			       e->name, n, shared->injected ? "injected" :
			       "not injected", mshare_errname(shared->err),
			       why);
		}
		if (!shared->injected) {
			r->points = n - 1;
			break;
		}
		r->injected++;
	}
	if (e->teardown)
		e->teardown(e);
	if (e->only_under)
		MSHARE_ASSERT_EQ(fail_nth_only_under(NULL), 0);
	print_row(r);
	CU_ASSERT_TRUE(r->points >= 0);
	MSHARE_ASSERT_EQ(r->other, 0);
	MSHARE_ASSERT_EQ(r->inconsistent, 0);
}

#define FI_TEST(fn, i)				\
static void fn(void)				\
{						\
	sweep(&entries[i]);			\
}

FI_TEST(test_create, 0)
FI_TEST(test_mkdir, 1)
FI_TEST(test_creator_mmap, 2)
FI_TEST(test_follower_mmap, 3)
FI_TEST(test_first_fault, 4)
FI_TEST(test_fork, 5)
FI_TEST(test_unlink, 6)
FI_TEST(test_rename, 7)
FI_TEST(test_link, 8)
FI_TEST(test_munmap, 9)
FI_TEST(test_exit, 10)
FI_TEST(test_debugfs_read, 11)
FI_TEST(test_create_in_mshare, 12)
FI_TEST(test_creator_mmap_in_mshare, 13)
FI_TEST(test_mount, 14)
FI_TEST(test_mount_in_mshare, 15)

/* The table, and no region of the sweep left behind. */
static void test_table(void)
{
	static const char *const names[] = {
		"fi_create", "fi_creator", "fi_follower", "fi_fault",
		"fi_fork", "fi_unlink", "fi_rename", "fi_rename.new",
		"fi_link", "fi_link.new", "fi_munmap", "fi_exit",
		"fi_debugfs", "fi_mount",
	};
	struct mshare_dbg dbg;
	unsigned int i;

	printf("\nharness: fault-inject: entry point, fault points on its path, failures injected, outcomes\n");
	for (i = 0; i < nrows; i++)
		print_row(&rows[i]);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		MSHARE_ASSERT_EQ(mshare_dbg_find(names[i], &dbg), -ENOENT);
}

static const struct harness_test fault_inject_tests[] = {
	{ "create", test_create },
	{ "mkdir", test_mkdir },
	{ "creator_mmap", test_creator_mmap },
	{ "follower_mmap", test_follower_mmap },
	{ "first_fault", test_first_fault },
	{ "fork", test_fork },
	{ "unlink", test_unlink },
	{ "rename", test_rename },
	{ "link", test_link },
	{ "munmap", test_munmap },
	{ "exit", test_exit },
	{ "debugfs_read", test_debugfs_read },
	{ "create_in_mshare", test_create_in_mshare },
	{ "creator_mmap_in_mshare", test_creator_mmap_in_mshare },
	{ "mount", test_mount },
	{ "mount_in_mshare", test_mount_in_mshare },
	{ "nothing_left", test_table },
	{ NULL, NULL },
};

HARNESS_SUITE(mshare_fault_inject_suite, .name = "mshare_fault_inject",
	      .tests = fault_inject_tests, .requires = fi_requires,
	      .init = fi_suite_init, .cleanup = fi_suite_cleanup);
