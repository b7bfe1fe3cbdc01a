/* SPDX-License-Identifier: GPL-2.0 */
/* Which kernel log records mean the kernel is unhappy. */
#ifndef HARNESS_KMSG_PATTERNS_H
#define HARNESS_KMSG_PATTERNS_H

#include <stdbool.h>

const char *kmsg_record_text(const char *record);
bool kmsg_record_is_bad(const char *record);
/* The kind of report a message text starts ("WARNING", "lockdep"...), or NULL. */
const char *kmsg_text_report_kind(const char *text);

/*
 * The fault-injection sweep writes these records to /dev/kmsg around each
 * armed injection: between them, the lines an injected allocation failure
 * prints are expected; anywhere else they are reports like any other.
 */
#define KMSG_INJECT_ARMED	"mshare-uml: fault injection armed"
#define KMSG_INJECT_DISARMED	"mshare-uml: fault injection disarmed"

/* The state of a reader of the log, record after record. */
struct kmsg_scan {
	bool armed;		/* inside an armed window */
	unsigned int expected;	/* injection lines met inside one */
};

/*
 * kmsg_text_report_kind() for the next record of a log: NULL for the
 * lines of an injection inside an armed window, and for the markers.
 */
const char *kmsg_scan_text(struct kmsg_scan *scan, const char *text);

#endif
