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
};

/*
 * Case-sensitive substrings of the message text.  Each one is the first
 * line of a kernel report we never want to see in a test run: BUG/WARN
 * splats, sanitizers, oopses and panics, refcount saturation, lockdep,
 * RCU-lockdep, the hung task detector and kmemleak.  Matching the first
 * line is enough; the watcher prints the lines that follow as context.
 */
static const struct bad_pattern bad_patterns[] = {
	{ "BUG:", NULL },
	{ "WARNING:", NULL },
	{ "KASAN", NULL },
	{ "UBSAN", NULL },
	{ "Oops", NULL },
	{ "Kernel panic", NULL },
	{ "refcount_t:", NULL },
	{ "general protection", NULL },
	{ "possible circular locking", NULL },
	{ "possible recursive locking", NULL },
	{ "inconsistent lock state", NULL },
	{ "suspicious RCU usage", NULL },
	{ "INFO: task", NULL },
	{ "kmemleak:", "unreferenced" },
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

bool kmsg_record_is_bad(const char *record)
{
	const char *text = kmsg_record_text(record);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_patterns); i++) {
		const struct bad_pattern *bp = &bad_patterns[i];

		if (!strstr(text, bp->text))
			continue;
		if (bp->also && !strstr(text, bp->also))
			continue;
		return true;
	}
	return false;
}
