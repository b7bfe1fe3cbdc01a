/* SPDX-License-Identifier: GPL-2.0 */
/* Which kernel log records mean the kernel is unhappy. */
#ifndef HARNESS_KMSG_PATTERNS_H
#define HARNESS_KMSG_PATTERNS_H

#include <stdbool.h>

const char *kmsg_record_text(const char *record);
bool kmsg_record_is_bad(const char *record);
/* The kind of report a message text starts ("WARNING", "lockdep"...), or NULL. */
const char *kmsg_text_report_kind(const char *text);

#endif
