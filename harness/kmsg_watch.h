/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log watch: fails the running test when the kernel logs a splat.
 */
#ifndef HARNESS_KMSG_WATCH_H
#define HARNESS_KMSG_WATCH_H

#include <stdbool.h>

int kmsg_watch_start(const char *path, bool is_kmsg);
bool kmsg_watch_active(void);
unsigned int kmsg_watch_boot_bad(void);
const char *kmsg_watch_fake_path(void);
void kmsg_watch_test_teardown(void);
unsigned int kmsg_watch_final_check(void);
void kmsg_watch_stop(bool in_child);

#endif
