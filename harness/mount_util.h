/* SPDX-License-Identifier: GPL-2.0 */
/* mkdir -p and "mount unless already mounted". */
#ifndef HARNESS_MOUNT_UTIL_H
#define HARNESS_MOUNT_UTIL_H

#include <stdbool.h>

int harness_mkdir_p(const char *path);
int harness_mount(const char *source, const char *target, const char *type,
		  const char *data);
bool harness_is_dir(const char *path);

#endif
