/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel log watch: fails the running test when the kernel logs a splat.
 */
#ifndef HARNESS_KMSG_WATCH_H
#define HARNESS_KMSG_WATCH_H

#include <stdbool.h>
#include <stddef.h>

int kmsg_watch_start(const char *path, bool is_kmsg);
bool kmsg_watch_active(void);
unsigned int kmsg_watch_boot_bad(void);
const char *kmsg_watch_fake_path(void);
/*
 * For a long test (the fuzzer): read the log now, so that a report is
 * tied to what just happened and the ring buffer never wraps under an
 * armed window.  Bad records found: their count, the first in @first;
 * they fail the running test at its teardown like the others.
 */
unsigned int kmsg_watch_poll(char *first, size_t size);
/* The injections' own lines met inside armed windows so far. */
unsigned int kmsg_watch_expected(void);
void kmsg_watch_test_teardown(void);
unsigned int kmsg_watch_final_check(void);
void kmsg_watch_stop(bool in_child);

#endif
