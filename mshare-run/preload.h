/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmshare-run.so's parts: its settings (preload_config.c), its log
 * (preload_log.c), making and tracking regions (preload_region.c), and
 * the calls it stands in for (preload_mmap.c, preload_mlock.c,
 * preload_sysv.c).  Every
 * real call goes through syscall(): the library never looks itself up
 * with dlsym(), so it cannot recurse into itself or into a half-started
 * dynamic linker.
 */
#ifndef MSHARE_RUN_PRELOAD_H
#define MSHARE_RUN_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The calls the library stands in for; everything else stays hidden. */
#define PRELOAD_EXPORT __attribute__((visibility("default")))

struct preload_config {
	bool active;		/* settings valid and this executable chosen */
	bool strict;
	bool dry_run;
	bool sysv;
	int verbose;
	unsigned long min_size;
	unsigned long unit;	/* msharefs's mshare_info: alignment and size unit */
	char dir[256];
};

extern struct preload_config preload_config;

void preload_config_load(void);

void preload_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One mapping the library made a region for, in this process. */
struct preload_mapping {
	unsigned long addr;	/* the region's start, as the program got it */
	unsigned long asked;	/* the length the program asked for */
	unsigned long size;	/* the region's size: asked rounded up to a unit */
	void *anchor;		/* SysV: the real segment attached beside it */
	int shmid;		/* SysV: its id, or -1 */
};

/*
 * Map the region at @path (opened with @create: 0, O_CREAT or
 * O_CREAT | O_EXCL) with @prot: at @addr when
 * it is not 0 (unit-aligned; @fixed is MAP_FIXED to replace what is
 * there, else nothing there may be replaced), else at the start the
 * region already has, else at a free unit-aligned address.  Returns the
 * address, or -errno.
 */
long preload_region_map(const char *path, int create, int prot,
			unsigned long addr, int fixed, unsigned long size);

bool preload_track(const struct preload_mapping *m);
/* Remove and return the mapping starting at @addr, if there is one. */
bool preload_untrack(unsigned long addr, struct preload_mapping *m);
/* Return the mapping starting at @addr, if there is one, and keep it. */
bool preload_lookup(unsigned long addr, struct preload_mapping *m);
/*
 * Does a call from @m's start over @len bytes cover all the program asked
 * for (in whole pages) and nothing beyond the region?  Such a call acts on
 * the whole region; the kernel refuses a part of one (EINVAL).
 */
bool preload_covers_asked(const struct preload_mapping *m, size_t len);

unsigned long preload_round_up(unsigned long len);

/* The kernel's calls, without the library in the way. */
void *real_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off);
int real_munmap(void *addr, size_t len);

#endif
