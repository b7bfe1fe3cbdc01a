// SPDX-License-Identifier: GPL-2.0
/*
 * Classify a console log (what ./linux printed) with the kernel log
 * patterns of kmsg_patterns.c, so that scripts reading consoles of boots
 * that died before the harness's verdict need no copy of the patterns.
 * The console holds the kernel's own records ("[    1.234567] text"), the
 * harness's copies of them ("  KMSG| text") and harness output; a record
 * shown both ways is reported once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "console_classify.h"
#include "kmsg_patterns.h"

#define LINE_MAX_LEN	4096
#define REPORTS_MAX	10

/*
 * Lines that echo, not report: what the user typed (the boot script's
 * command line, the kernel's copies of it), and the harness's own lines
 * ("harness: kmemleak: 0 unreferenced objects") and summaries of records
 * the console already showed ("kernel log: 1 bad record(s), first:
 * WARNING: ..." in CUnit's failure list and the fuzzer's).
 */
static const char *const echo_lines[] = {
	"run-linux: ",
	"Kernel command line: ",
	"Unknown kernel command line parameters",
	"harness: ",
	" bad record(s)",
};

/* Where the text after "[  seconds.micros] " at P starts, or NULL. */
static char *after_timestamp(char *p)
{
	size_t n;

	p += 1 + strspn(p + 1, " ");
	n = strspn(p, "0123456789");
	if (!n || p[n] != '.')
		return NULL;
	p += n + 1;
	n = strspn(p, "0123456789");
	if (!n || p[n] != ']' || p[n + 1] != ' ')
		return NULL;
	return p + n + 2;
}

/* The text of a line: no timestamp, no "  KMSG| " prefix, no CR/LF. */
static char *line_text(char *line)
{
	char *p, *after, *text = line;

	line[strcspn(line, "\r\n")] = '\0';
	/* The last timestamp: output of two writers can share a line. */
	for (p = strchr(line, '['); p; p = strchr(p + 1, '[')) {
		after = after_timestamp(p);
		if (after)
			text = after;
	}
	p = text + strspn(text, " ");
	if (!strncmp(p, "KMSG| ", strlen("KMSG| ")))
		text = p + strlen("KMSG| ");
	return text;
}

static bool is_echo(const char *text)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(echo_lines); i++)
		if (strstr(text, echo_lines[i]))
			return true;
	return false;
}

static bool seen_before(char seen[][LINE_MAX_LEN], int count,
			const char *text)
{
	int i;

	for (i = 0; i < count; i++)
		if (!strcmp(seen[i], text))
			return true;
	return false;
}

int console_classify(const char *path, FILE *out)
{
	static char seen[REPORTS_MAX][LINE_MAX_LEN];
	struct kmsg_scan scan = { 0 };
	char line[LINE_MAX_LEN];
	const char *kind;
	int count = 0;
	char *text;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		fprintf(out, "harness: cannot read %s: %s\n", path,
			strerror(errno));
		return CONSOLE_UNREADABLE;
	}
	while (count < REPORTS_MAX && fgets(line, sizeof(line), f)) {
		text = line_text(line);
		kind = kmsg_scan_text(&scan, text);
		if (!kind || is_echo(text) || seen_before(seen, count, text))
			continue;
		snprintf(seen[count++], LINE_MAX_LEN, "%s", text);
		fprintf(out, "%s\t%s\n", kind, text);
	}
	fclose(f);
	if (!count)
		fprintf(out, "clean\n");
	return count ? CONSOLE_REPORTS : CONSOLE_CLEAN;
}
