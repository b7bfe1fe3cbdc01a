// SPDX-License-Identifier: GPL-2.0
/*
 * Mount helpers for the init flavour.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "mount_util.h"

bool harness_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Returns 0 or -errno; existing directories are fine. */
int harness_mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char saved;
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		saved = *p;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = saved;
		if (!saved)
			return 0;
	}
}

/* Is something mounted on @path: is it on another device than its parent? */
static bool is_mount_point(const char *path)
{
	char parent[PATH_MAX];
	struct stat st, parent_st;

	if (snprintf(parent, sizeof(parent), "%s/..", path) >=
	    (int)sizeof(parent))
		return false;
	return !stat(path, &st) && !stat(parent, &parent_st) &&
	       st.st_dev != parent_st.st_dev;
}

/*
 * Create the mount point and mount, unless something is mounted there
 * already: a tmpfs mounts again over itself, and the files the caller made
 * in the first one would be hidden.  EBUSY means it is mounted too (e.g.
 * the kernel mounted devtmpfs itself), which is what we wanted.
 */
int harness_mount(const char *source, const char *target, const char *type,
		  const char *data)
{
	int ret = harness_mkdir_p(target);

	if (ret) {
		printf("harness: mkdir %s: %s\n", target, strerror(-ret));
		return ret;
	}
	if (is_mount_point(target))
		return 0;
	if (mount(source, target, type, 0, data) && errno != EBUSY)
		return -errno;
	return 0;
}

int harness_mount_host(const char *host_dir, const char *tag,
		       const char *target, const char **how)
{
	int ret;

	*how = "hostfs";
	ret = harness_mount("none", target, *how, host_dir);
	if (ret != -ENODEV)
		return ret;
	*how = "9p";
	return harness_mount(tag, target, *how,
			     "trans=virtio,version=9p2000.L");
}
