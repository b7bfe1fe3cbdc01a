// SPDX-License-Identifier: GPL-2.0
/*
 * mlock(), mlock2() and munlock() in place of libc's.  A region is locked
 * whole: the kernel refuses to lock or unlock a part of one (EINVAL, as
 * for munmap() of a part), and the region is bigger than what the program
 * asked for.  So a call from a region's start over all the program asked
 * locks or unlocks the whole region, as a database locking its shared
 * memory expects; any other call goes to the kernel as asked.
 * RLIMIT_MEMLOCK is charged for the whole region.  mlockall() and
 * munlockall() need nothing: they lock every mapping whole.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

/* @len, or the region's size for a call over all the program asked */
static size_t lock_length(const char *call, const void *addr, size_t len)
{
	struct preload_mapping m;

	if (!preload_lookup((uintptr_t)addr, &m) || !preload_covers_asked(&m, len))
		return len;
	preload_log(2, "%s(%p, %zu): the whole region, %lu bytes", call, addr,
		    len, m.size);
	return m.size;
}

PRELOAD_EXPORT int mlock(const void *addr, size_t len)
{
	return syscall(SYS_mlock, addr, lock_length("mlock", addr, len));
}

PRELOAD_EXPORT int mlock2(const void *addr, size_t len, unsigned int flags)
{
	return syscall(SYS_mlock2, addr, lock_length("mlock2", addr, len), flags);
}

PRELOAD_EXPORT int munlock(const void *addr, size_t len)
{
	return syscall(SYS_munlock, addr, lock_length("munlock", addr, len));
}
