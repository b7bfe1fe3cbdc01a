/* SPDX-License-Identifier: GPL-2.0 */
/* What /init (pid 1) must do that a host process must not. */
#ifndef HARNESS_INIT_DUTIES_H
#define HARNESS_INIT_DUTIES_H

#include "compiler.h"

void init_prepare(void);
void init_set_exitcode(int code);
int init_mount_results(const char *host_dir, const char **mnt);
void init_unmount_results(void);
void init_power_off(int code) __noreturn;

#endif
