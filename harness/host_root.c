// SPDX-License-Identifier: GPL-2.0
/* The host's root with the guest's file systems over it: host_root.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#include "harness.h"
#include "host_root.h"
#include "mount_util.h"

#define ROOT HARNESS_HOST_ROOT
/* The tag uml/run-qemu.sh --host-root gives the host's / over 9p. */
#define HOST_ROOT_9P_TAG	"hostroot"

/* Mounted over the host's root in this order, unmounted in reverse. */
static const struct guest_mount {
	const char *source, *target, *type, *data;
} guest_mounts[] = {
	{ "proc", ROOT "/proc", "proc", NULL },
	{ "sysfs", ROOT "/sys", "sysfs", NULL },
	{ "msharefs", ROOT "/sys/fs/mshare", "msharefs", NULL },
	{ "debugfs", ROOT "/sys/kernel/debug", "debugfs", NULL },
	{ "cgroup2", ROOT "/sys/fs/cgroup", "cgroup2", NULL },
	{ "devtmpfs", ROOT "/dev", "devtmpfs", NULL },
	{ "tmpfs", ROOT "/dev/shm", "tmpfs", "mode=1777" },
};

static int mounted;	/* entries of guest_mounts[] mounted, ROOT aside */

int harness_host_root_unmount(void)
{
	int ret = 0;

	while (mounted > 0) {
		const struct guest_mount *m = &guest_mounts[--mounted];

		if (umount2(m->target, MNT_DETACH)) {
			printf("host_root: umount %s: %s\n", m->target,
			       strerror(errno));
			ret = -1;
		}
	}
	if (umount2(ROOT, MNT_DETACH)) {
		printf("host_root: umount %s: %s\n", ROOT, strerror(errno));
		ret = -1;
	}
	return ret;
}

int harness_host_root_mount(void)
{
	const struct guest_mount *m;
	const char *how;
	int ret;

	ret = harness_mount_host("/", HOST_ROOT_9P_TAG, ROOT, &how);
	if (ret) {
		printf("host_root: %s mount of / on %s: %s\n", how, ROOT,
		       strerror(-ret));
		return ret;
	}
	for (mounted = 0; mounted < (int)ARRAY_SIZE(guest_mounts); mounted++) {
		m = &guest_mounts[mounted];
		ret = harness_mount(m->source, m->target, m->type, m->data);
		if (ret) {
			printf("host_root: mount %s on %s: %s\n", m->type,
			       m->target, strerror(-ret));
			harness_host_root_unmount();
			return ret;
		}
	}
	return 0;
}
