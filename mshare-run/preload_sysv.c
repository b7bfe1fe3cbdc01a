// SPDX-License-Identifier: GPL-2.0
/*
 * SysV shared memory in regions, as libhugetlbfs's HUGETLB_SHM puts it in
 * huge pages.  A segment of at least the minimum size is a real segment
 * of one page, the anchor, and a region named after the segment's id:
 *
 * - the anchor keeps what SysV gives that a file cannot: the key, the
 *   id, permissions, IPC_RMID, and shm_nattch (every shmat() attaches
 *   the anchor beside the region, so the kernel counts attaches through
 *   fork, exit and execve as it always does);
 * - its first bytes say it is an anchor and how big the segment is;
 * - the region, <dir>/mshare-run.sysv.<id>, holds the memory; its first
 *   shmat() fixes its start, so that every process attaches it there.
 *
 * IPC_RMID unlinks the region's file: attached processes keep the memory
 * until they detach, as with a removed segment.  A segment removed by a
 * process without the library (ipcrm) leaves the file until the next
 * segment with its id is made, which unlinks it first.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#define ANCHOR_MAGIC	0x4d53524e53595356ULL	/* "MSRNSYSV" */

struct anchor {
	uint64_t magic;
	uint64_t size;		/* the segment's size as shmget() was asked */
};

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

static int real_shmget(key_t key, size_t size, int flg)
{
	return syscall(SYS_shmget, key, size, flg);
}

static void *real_shmat(int id, const void *addr, int flg)
{
	return (void *)syscall(SYS_shmat, id, addr, flg);
}

static int real_shmdt(const void *addr)
{
	return syscall(SYS_shmdt, addr);
}

static int real_shmctl(int id, int cmd, struct shmid_ds *buf)
{
	return syscall(SYS_shmctl, id, cmd, buf);
}

static void region_path(char *buf, size_t size, int id)
{
	snprintf(buf, size, "%s/mshare-run.sysv.%d", preload_config.dir, id);
}

static bool sysv_active(void)
{
	preload_config_load();
	return preload_config.active && preload_config.sysv;
}

/* Attach segment @id's anchor; NULL when @id is not an anchor. */
static struct anchor *attach_anchor(int id)
{
	struct shmid_ds ds;
	struct anchor *a;

	if (real_shmctl(id, IPC_STAT, &ds) || ds.shm_segsz != (size_t)page_size())
		return NULL;
	a = real_shmat(id, NULL, SHM_RDONLY);
	if (a == (void *)-1)
		return NULL;
	if (__atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) != ANCHOR_MAGIC) {
		real_shmdt(a);
		return NULL;
	}
	return a;
}

/* The size of segment @id when it is an anchor, else 0. */
static uint64_t anchor_size(int id)
{
	struct anchor *a = attach_anchor(id);
	uint64_t size;

	if (!a)
		return 0;
	size = a->size;
	real_shmdt(a);
	return size;
}

/* A claimer sets the size, then the magic: wait for the magic a while. */
static bool anchor_marked(struct anchor *a)
{
	for (int i = 0; i < 1000; i++) {
		if (__atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) == ANCHOR_MAGIC)
			return true;
		sched_yield();
	}
	return false;
}

/*
 * Make segment @id, just got for @size bytes, an anchor: the process
 * that finds it blank claims it.  1 when it is an anchor, 0 when it is
 * a segment of someone else's (made without the library), or -errno.
 */
static int claim_anchor(int id, size_t size, bool *fresh)
{
	char path[sizeof(preload_config.dir) + 64];
	uint64_t blank = 0;
	struct shmid_ds ds;
	struct anchor *a;
	int ret = 1;

	if (real_shmctl(id, IPC_STAT, &ds))
		return -errno;
	if (ds.shm_segsz != (size_t)page_size())
		return 0;
	a = real_shmat(id, NULL, 0);
	if (a == (void *)-1)
		return -errno;
	*fresh = __atomic_compare_exchange_n(&a->size, &blank, size, false,
					     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	if (*fresh) {
		region_path(path, sizeof(path), id);
		unlink(path);	/* of an earlier segment with this id */
		__atomic_store_n(&a->magic, ANCHOR_MAGIC, __ATOMIC_RELEASE);
	} else if (!anchor_marked(a)) {
		ret = 0;
	} else if (size > a->size) {
		ret = -EINVAL;	/* what shmget() says to a size too big */
	}
	real_shmdt(a);
	return ret;
}

PRELOAD_EXPORT int shmget(key_t key, size_t size, int flg)
{
	bool fresh;
	int id, ret;

	if (!sysv_active() || !size)
		return real_shmget(key, size, flg);
	if (size < preload_config.min_size) {
		preload_log(1, "left SysV segment of %zu bytes: smaller than the minimum size", size);
		return real_shmget(key, size, flg);
	}
	if (!preload_config.unit || (flg & SHM_HUGETLB)) {
		const char *why = preload_config.unit ? "SHM_HUGETLB" :
			"msharefs is not mounted at the directory";

		preload_log(preload_config.strict ? 0 : 1, "%s SysV segment of %zu bytes: %s",
			    preload_config.strict ? "failed" : "left", size, why);
		if (preload_config.strict) {
			errno = preload_config.unit ? EINVAL : ENODEV;
			return -1;
		}
		return real_shmget(key, size, flg);
	}
	if (preload_config.dry_run) {
		preload_log(1, "would take SysV segment of %zu bytes (dry run)", size);
		return real_shmget(key, size, flg);
	}
	id = real_shmget(key, page_size(), flg);
	if (id < 0)
		return id;
	ret = claim_anchor(id, size, &fresh);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	if (!ret)	/* not ours: let the kernel answer for it */
		return real_shmget(key, size, flg);
	if (fresh)
		preload_log(1, "took SysV segment %d (key %#x, %zu bytes): a region at its first shmat()",
			    id, (unsigned int)key, size);
	return id;
}

static void *attach_region(int id, struct anchor *a, const void *addr, int flg)
{
	int prot = (flg & SHM_RDONLY) ? PROT_READ : PROT_READ | PROT_WRITE;
	struct preload_mapping m = { .anchor = a, .shmid = id };
	char path[sizeof(preload_config.dir) + 64];
	unsigned long want = (unsigned long)addr;
	long start;

	if (flg & SHM_RND)
		want &= ~(SHMLBA - 1UL);
	m.asked = a->size;
	m.size = preload_round_up(a->size);
	if (want & (preload_config.unit - 1) || (flg & SHM_EXEC)) {
		preload_log(0, "failed shmat() of SysV segment %d: %s", id,
			    (flg & SHM_EXEC) ? "SHM_EXEC (msharefs is noexec)" :
			    "an address that is not a multiple of the unit");
		errno = EINVAL;
		return (void *)-1;
	}
	region_path(path, sizeof(path), id);
	start = preload_region_map(path, O_CREAT, prot, want,
				   (flg & SHM_REMAP) ? MAP_FIXED : 0, m.size);
	if (start < 0) {
		preload_log(0, "failed shmat() of SysV segment %d: region %s: %s",
			    id, path, strerror(-start));
		errno = -start;
		return (void *)-1;
	}
	m.addr = start;
	if (!preload_track(&m))
		preload_log(0, "more regions than the library tracks: shmdt() at %#lx will fail",
			    (unsigned long)start);
	preload_log(1, "attached SysV segment %d (%lu bytes) at %#lx: region %s of %lu bytes",
		    id, m.asked, (unsigned long)start, path, m.size);
	return (void *)start;
}

PRELOAD_EXPORT void *shmat(int id, const void *addr, int flg)
{
	struct anchor *a;
	void *got;

	if (!sysv_active())
		return real_shmat(id, addr, flg);
	a = attach_anchor(id);
	if (!a)
		return real_shmat(id, addr, flg);
	got = attach_region(id, a, addr, flg);
	if (got == (void *)-1) {
		int err = errno;

		real_shmdt(a);
		errno = err;
	}
	return got;
}

PRELOAD_EXPORT int shmdt(const void *addr)
{
	struct preload_mapping m;

	if (!preload_untrack((unsigned long)addr, &m))
		return real_shmdt(addr);
	if (m.shmid < 0) {	/* a mapping, not a segment: as the kernel says */
		preload_track(&m);
		return real_shmdt(addr);
	}
	if (real_munmap((void *)m.addr, m.size)) {
		int err = errno;

		preload_track(&m);
		errno = err;
		return -1;
	}
	real_shmdt(m.anchor);
	preload_log(2, "detached SysV segment %d at %p", m.shmid, addr);
	return 0;
}

PRELOAD_EXPORT int shmctl(int id, int cmd, struct shmid_ds *buf)
{
	char path[sizeof(preload_config.dir) + 64];
	uint64_t size;
	int ret;

	if (!sysv_active())
		return real_shmctl(id, cmd, buf);
	switch (cmd) {
	case IPC_RMID:
		size = anchor_size(id);
		ret = real_shmctl(id, cmd, buf);
		if (!ret && size) {
			region_path(path, sizeof(path), id);
			unlink(path);
			preload_log(2, "removed SysV segment %d: unlinked %s", id, path);
		}
		return ret;
	case IPC_STAT:
	case SHM_STAT:
	case SHM_STAT_ANY:
		ret = real_shmctl(id, cmd, buf);
		/* The size asked for, not the anchor's page. */
		if (ret >= 0) {
			size = anchor_size(cmd == IPC_STAT ? id : ret);
			if (size)
				buf->shm_segsz = size;
		}
		return ret;
	default:
		return real_shmctl(id, cmd, buf);
	}
}
