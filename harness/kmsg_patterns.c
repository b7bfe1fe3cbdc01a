// SPDX-License-Identifier: GPL-2.0
/*
 * The table of kernel log patterns that fail a test, and the matcher.
 */
#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "compiler.h"
#include "kmsg_patterns.h"

struct bad_pattern {
	const char *text;
	/* Optional second substring that must also be present. */
	const char *also;
	/* What kind of report it starts, for people and scripts. */
	const char *kind;
};

/*
 * Case-sensitive substrings of the message text.  Each one is the first
 * line of a kernel report we never want to see in a test run: BUG/WARN
 * splats, sanitizers, oopses and panics, refcount saturation, lockdep,
 * RCU-lockdep, the hung task detector and kmemleak.  Matching the first
 * line is enough; the watcher prints the lines that follow as context.
 * The specific ones come first: "WARNING: possible circular locking" is
 * of kind lockdep, "BUG: KASAN: ..." of kind KASAN.
 */
static const struct bad_pattern bad_patterns[] = {
	{ "KASAN", NULL, "KASAN" },
	{ "UBSAN", NULL, "UBSAN" },
	{ "possible circular locking", NULL, "lockdep" },
	{ "possible recursive locking", NULL, "lockdep" },
	{ "inconsistent lock state", NULL, "lockdep" },
	{ "suspicious RCU usage", NULL, "RCU" },
	{ "refcount_t:", NULL, "refcount" },
	{ "INFO: task", NULL, "hung task" },
	{ "kmemleak:", "unreferenced", "kmemleak" },
	/* page_poison=1: a freed page written to (check_poison_mem()). */
	{ "pagealloc: memory corruption", NULL, "page poison" },
	{ "pagealloc: single bit error", NULL, "page poison" },
	{ "general protection", NULL, "general protection" },
	{ "Oops", NULL, "Oops" },
	{ "Kernel panic", NULL, "panic" },
	{ "BUG:", NULL, "BUG" },
	{ "WARNING:", NULL, "WARNING" },
};

/*
 * fail_dump()'s first line (its "name failslab, interval ..." line
 * follows and matches nothing): a report outside a window the
 * fault-injection sweep armed (KMSG_INJECT_ARMED .. KMSG_INJECT_DISARMED),
 * expected inside one.
 */
static const struct bad_pattern injection_patterns[] = {
	{ "FAULT_INJECTION: forcing a failure", NULL, "fault injection" },
};

/*
 * What a failed allocation prints: the allocators' reports and the page
 * fault handler's note when a fault's page table allocation failed.  The
 * kernel's answer to memory it does not have, not a defect (mshare_oom
 * exhausts memory on purpose): never a report; counted as the injection's
 * own lines inside an armed window.
 */
static const char *const allocation_failure_lines[] = {
	"page allocation failure:",
	"SLUB: Unable to allocate memory",
	"Huh VM_FAULT_OOM leaked out",
};

/*
 * /dev/kmsg records look like "prio,seq,usec,flags[,caller=T1];text".
 * Skip the header so a pattern can never match something in it.  The
 * header has no spaces; lines without one (fake log files) are all text.
 */
const char *kmsg_record_text(const char *record)
{
	const char *p = record;

	if (!isdigit((unsigned char)*p))
		return record;
	while (*p && *p != ';' && !isspace((unsigned char)*p))
		p++;
	return *p == ';' ? p + 1 : record;
}

static const char *match(const struct bad_pattern *bp, size_t count,
			 const char *text)
{
	const struct bad_pattern *end = bp + count;

	for (; bp < end; bp++) {
		if (!strstr(text, bp->text))
			continue;
		if (bp->also && !strstr(text, bp->also))
			continue;
		return bp->kind;
	}
	return NULL;
}

const char *kmsg_text_report_kind(const char *text)
{
	const char *kind = match(bad_patterns, ARRAY_SIZE(bad_patterns), text);

	return kind ? kind : match(injection_patterns,
				   ARRAY_SIZE(injection_patterns), text);
}

static bool is_allocation_failure(const char *text)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(allocation_failure_lines); i++)
		if (strstr(text, allocation_failure_lines[i]))
			return true;
	return false;
}

const char *kmsg_scan_text(struct kmsg_scan *scan, const char *text)
{
	const char *kind;

	if (!strncmp(text, KMSG_INJECT_ARMED, strlen(KMSG_INJECT_ARMED))) {
		scan->armed = true;
		return NULL;
	}
	if (!strncmp(text, KMSG_INJECT_DISARMED,
		     strlen(KMSG_INJECT_DISARMED))) {
		scan->armed = false;
		return NULL;
	}
	kind = match(bad_patterns, ARRAY_SIZE(bad_patterns), text);
	if (kind)
		return kind;
	kind = match(injection_patterns, ARRAY_SIZE(injection_patterns), text);
	if (scan->armed && (kind || is_allocation_failure(text))) {
		scan->expected++;
		return NULL;
	}
	return kind;
}

bool kmsg_record_is_bad(const char *record)
{
	return kmsg_text_report_kind(kmsg_record_text(record)) != NULL;
}
