/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ready-made "requires" checks for suites.  Each returns NULL when met,
 * else the reason the suite is skipped.
 */
#ifndef HARNESS_REQUIREMENTS_H
#define HARNESS_REQUIREMENTS_H

#include <stdbool.h>

bool harness_is_init(void);
bool harness_kernel_has_thp(void);
const char *harness_requires_init(void);
const char *harness_requires_kmsg_watch(void);
const char *harness_requires_msharefs(void);
const char *harness_requires_uml(void);
void requirements_apply(void);
unsigned int requirements_skipped_tests(void);

#endif
