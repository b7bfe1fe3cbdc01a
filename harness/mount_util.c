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

/*
 * Create the mount point and mount.  EBUSY means it is already mounted
 * (e.g. the kernel mounted devtmpfs itself), which is what we wanted.
 */
int harness_mount(const char *source, const char *target, const char *type,
		  const char *data)
{
	int ret = harness_mkdir_p(target);

	if (ret) {
		printf("harness: mkdir %s: %s\n", target, strerror(-ret));
		return ret;
	}
	if (mount(source, target, type, 0, data) && errno != EBUSY)
		return -errno;
	return 0;
}
