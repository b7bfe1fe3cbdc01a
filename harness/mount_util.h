/* SPDX-License-Identifier: GPL-2.0 */
/* mkdir -p and "mount unless already mounted". */
#ifndef HARNESS_MOUNT_UTIL_H
#define HARNESS_MOUNT_UTIL_H

#include <stdbool.h>

int harness_mkdir_p(const char *path);
int harness_mount(const char *source, const char *target, const char *type,
		  const char *data);
bool harness_is_dir(const char *path);
/*
 * Mount the host's folder @host_dir on @target: through hostfs under UML,
 * else the folder qemu exports over virtio-9p with mount tag @tag
 * (uml/run-qemu.sh).  0 or -errno; *how names the file system tried last.
 */
int harness_mount_host(const char *host_dir, const char *tag,
		       const char *target, const char **how);

#endif
