// SPDX-License-Identifier: GPL-2.0
/*
 * mmap() and munmap() in place of libc's: a MAP_SHARED|MAP_ANONYMOUS
 * mapping of at least the minimum size becomes a region of its own, the
 * rest goes to the kernel as asked.
 *
 * The region's file is unlinked as soon as it is mapped: shared anonymous
 * memory has no name, lives while some process maps it and goes with the
 * last unmap, and so does an unlinked region.  fork() hands the mapping
 * on as it does the anonymous one, and a program killed with SIGKILL
 * leaves nothing behind in msharefs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

enum verdict { TAKE, LEAVE, FAIL };

struct request {
	unsigned long addr, len;
	int prot, flags;
	const char *why;	/* why it is left or fails */
	int err;		/* the errno a strict run fails it with */
};

/*
 * What the program asked for is shared anonymous memory; decide.  Size
 * and executable are the user's choice and never fail a strict run;
 * everything else is a mapping the user wanted in a region.
 */
static enum verdict judge(struct request *r)
{
	const struct preload_config *c = &preload_config;
	int fixed = r->flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);

	if (r->len < c->min_size) {
		r->why = "smaller than the minimum size";
		return LEAVE;
	}
	if (!c->unit)
		r->why = "msharefs is not mounted at the directory", r->err = ENODEV;
	else if (r->prot & PROT_EXEC)
		r->why = "PROT_EXEC (msharefs is noexec)", r->err = EPERM;
	else if (r->flags & MAP_HUGETLB)
		r->why = "MAP_HUGETLB (a region's pages are not hugetlb pages)", r->err = EINVAL;
	else if (r->flags & MAP_GROWSDOWN)
		r->why = "MAP_GROWSDOWN", r->err = EINVAL;
	else if (fixed && (r->addr & (c->unit - 1)))
		r->why = "a fixed address that is not a multiple of the unit", r->err = EINVAL;
	else if (!preload_round_up(r->len))
		r->why = "too large", r->err = ENOMEM;
	else
		return TAKE;
	return c->strict ? FAIL : LEAVE;
}

/*
 * MAP_LOCKED: lock the whole region, as the kernel locks a mapping made
 * with it, and fail as mmap() fails then: EPERM if this process may not
 * lock memory at all, EAGAIN if RLIMIT_MEMLOCK is too small for the
 * region (a unit or more, not only the length asked).
 */
static int lock_region(unsigned long start, unsigned long size)
{
	if (!syscall(SYS_mlock, start, size))
		return 0;
	preload_log(0, "MAP_LOCKED: cannot lock the region at %#lx (%lu bytes): %s",
		    start, size, strerror(errno));
	if (errno == ENOMEM)
		errno = EAGAIN;
	return -1;
}

static void *take(const struct request *r)
{
	static unsigned int seq;
	unsigned long size = preload_round_up(r->len);
	int fixed = r->flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	struct preload_mapping m = { .asked = r->len, .size = size, .shmid = -1 };
	char path[sizeof(preload_config.dir) + 64];
	long start;

	snprintf(path, sizeof(path), "%s/mshare-run.%d.%u", preload_config.dir,
		 getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	start = preload_region_map(path, O_CREAT | O_EXCL, r->prot, fixed ? r->addr : 0,
				   fixed & MAP_FIXED, size);
	if (start != -EEXIST)	/* else the name is someone else's */
		unlink(path);
	if (start < 0) {
		preload_log(0, "%s %lu bytes of shared anonymous memory: cannot make region %s: %s",
			    preload_config.strict ? "failed" : "left", r->len,
			    path, strerror(-start));
		errno = -start;
		return MAP_FAILED;
	}
	if ((r->flags & MAP_LOCKED) && lock_region(start, size)) {
		real_munmap((void *)start, size);
		return MAP_FAILED;
	}
	m.addr = start;
	if (!preload_track(&m))
		preload_log(0, "more regions than the library tracks: munmap() of the one at %#lx will fail",
			    (unsigned long)start);
	if (r->flags & MAP_POPULATE)
		madvise((void *)start, r->len, (r->prot & PROT_WRITE) ?
			MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	preload_log(1, "took %lu bytes of shared anonymous memory at %#lx: region %s of %lu bytes, unlinked",
		    r->len, (unsigned long)start, path, size);
	return (void *)start;
}

PRELOAD_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct request r = {
		.addr = (unsigned long)addr, .len = len, .prot = prot, .flags = flags,
	};
	void *got;

	preload_config_load();
	if (!preload_config.active || (flags & MAP_TYPE) != MAP_SHARED ||
	    !(flags & MAP_ANONYMOUS))
		return real_mmap(addr, len, prot, flags, fd, off);

	switch (judge(&r)) {
	case TAKE:
		if (preload_config.dry_run) {
			preload_log(1, "would take %lu bytes of shared anonymous memory (dry run)", len);
			break;
		}
		got = take(&r);
		if (got != MAP_FAILED || preload_config.strict)
			return got;
		break;
	case FAIL:
		preload_log(0, "failed %lu bytes of shared anonymous memory: %s (strict)",
			    len, r.why);
		errno = r.err;
		return MAP_FAILED;
	case LEAVE:
		preload_log(1, "left %lu bytes of shared anonymous memory: %s", len, r.why);
		break;
	}
	return real_mmap(addr, len, prot, flags, fd, off);
}

PRELOAD_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/*
 * The program unmaps what it asked for; the region is bigger (a whole
 * number of units), so unmap all of it.  Part of a region cannot be
 * unmapped: the kernel's EINVAL is the program's answer.
 */
PRELOAD_EXPORT int munmap(void *addr, size_t len)
{
	struct preload_mapping m;
	int ret;

	if (!preload_untrack((unsigned long)addr, &m))
		return real_munmap(addr, len);
	if (m.shmid >= 0 || !preload_covers_asked(&m, len)) {
		preload_log(0, "munmap(%p, %zu) of part of the region mapped there: the kernel refuses it",
			    addr, len);
		preload_track(&m);
		return real_munmap(addr, len);
	}
	ret = real_munmap(addr, m.size);
	if (ret)
		preload_track(&m);
	else
		preload_log(2, "unmapped the region at %p (%lu bytes)", addr, m.size);
	return ret;
}
