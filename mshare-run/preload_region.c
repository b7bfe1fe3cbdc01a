// SPDX-License-Identifier: GPL-2.0
/*
 * Regions made for the program, and the table of those this process maps.
 *
 * A region's first mapping fixes its start and size, both multiples of
 * msharefs's unit (PGDIR_SIZE: 1 GiB on UML, 512 GiB on x86-64); every
 * later mapping must be at that start and of that size.  A free start is
 * found the way a loader places a library that needs alignment: reserve
 * a unit more than the region with an inaccessible mapping, put the
 * region over the aligned part with MAP_FIXED (atomic: no other thread
 * can take the range in between), and give back the rest.
 *
 * Where: every process that attaches a SysV segment maps its region at
 * the start the first one chose, so that start must be free in processes
 * that have not been born yet.  The kernel places mappings, libraries
 * included, top-down from just under the stack, and a PIE executable and
 * its heap sit at about two thirds of the address space on x86-64; an
 * eighth of the way up from 0 is far from both in any process.  The
 * reservation asks for that address as a hint: taken when free, else the
 * kernel's own choice.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* As <linux/mman.h> of the series has it: read() of a region file. */
struct region_info {
	unsigned long start;
	unsigned long size;
};

#define MAX_MAPPINGS 64

static struct preload_mapping mappings[MAX_MAPPINGS];
static int mappings_lock;

void *real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int real_munmap(void *addr, size_t len)
{
	return syscall(SYS_munmap, addr, len);
}

unsigned long preload_round_up(unsigned long len)
{
	unsigned long unit = preload_config.unit;

	if (len > ULONG_MAX - unit)
		return 0;
	return (len + unit - 1) & ~(unit - 1);
}

static void lock(void)
{
	while (__atomic_exchange_n(&mappings_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void unlock(void)
{
	__atomic_store_n(&mappings_lock, 0, __ATOMIC_RELEASE);
}

bool preload_track(const struct preload_mapping *m)
{
	bool done = false;

	lock();
	for (int i = 0; i < MAX_MAPPINGS && !done; i++) {
		if (!mappings[i].size) {
			mappings[i] = *m;
			done = true;
		}
	}
	unlock();
	return done;
}

/* Copy out the mapping at @addr, and forget it if @remove */
static bool find(unsigned long addr, struct preload_mapping *m, bool remove)
{
	bool found = false;

	lock();
	for (int i = 0; i < MAX_MAPPINGS && !found; i++) {
		if (mappings[i].size && mappings[i].addr == addr) {
			*m = mappings[i];
			if (remove)
				mappings[i].size = 0;
			found = true;
		}
	}
	unlock();
	return found;
}

bool preload_untrack(unsigned long addr, struct preload_mapping *m)
{
	return find(addr, m, true);
}

bool preload_lookup(unsigned long addr, struct preload_mapping *m)
{
	return find(addr, m, false);
}

bool preload_covers_asked(const struct preload_mapping *m, size_t len)
{
	unsigned long page = sysconf(_SC_PAGESIZE);

	return (len + page - 1) / page >= (m->asked + page - 1) / page &&
	       len <= m->size;
}

/* The start the region at @fd has, 0 when nobody has mapped it yet. */
static long region_start(int fd, unsigned long size)
{
	struct region_info info;
	ssize_t n = pread(fd, &info, sizeof(info), 0);

	if (n < 0)
		return -errno;
	if (n != sizeof(info) || !info.size)
		return 0;
	if (info.size != size)
		return -EINVAL;	/* made by someone who asked another size */
	return info.start;
}

/* An eighth of the way up to the stack, on a unit boundary. */
static unsigned long quiet_address(void)
{
	unsigned long unit = preload_config.unit;
	uintptr_t stack = (uintptr_t)__builtin_frame_address(0);

	return (stack / 8 + unit - 1) & ~(unit - 1);
}

static long map_at_free_start(int fd, int prot, unsigned long size)
{
	unsigned long unit = preload_config.unit, start;
	void *hole, *got;

	hole = real_mmap((void *)quiet_address(), size + unit, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (hole == MAP_FAILED)
		return -errno;
	start = ((uintptr_t)hole + unit - 1) & ~(unit - 1);
	got = real_mmap((void *)start, size, prot, MAP_SHARED | MAP_FIXED, fd, 0);
	if (got == MAP_FAILED) {
		long err = -errno;

		real_munmap(hole, size + unit);
		return err;
	}
	if (start > (uintptr_t)hole)
		real_munmap(hole, start - (uintptr_t)hole);
	if ((uintptr_t)hole + unit > start)
		real_munmap((void *)(start + size),
			    (uintptr_t)hole + unit - start);
	return start;
}

long preload_region_map(const char *path, int create, int prot,
			unsigned long addr, int fixed, unsigned long size)
{
	int flags = (prot & PROT_WRITE) ? O_RDWR : O_RDONLY;
	long start;
	void *got;
	int fd;

	fd = open(path, flags | O_CLOEXEC | create, 0600);
	if (fd < 0)
		return -errno;
	start = region_start(fd, size);
	if (start < 0 || (start && addr && (unsigned long)start != addr)) {
		close(fd);
		return start < 0 ? start : -EINVAL;
	}
	if (start)
		addr = start;
	if (addr) {
		got = real_mmap((void *)addr, size, prot,
				MAP_SHARED | (fixed ? fixed : MAP_FIXED_NOREPLACE),
				fd, 0);
		start = got == MAP_FAILED ? -errno : (long)got;
	} else {
		start = map_at_free_start(fd, prot, size);
	}
	close(fd);
	return start;
}
