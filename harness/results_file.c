// SPDX-License-Identifier: GPL-2.0
/*
 * One results file: open, write, check that every byte got there.  A
 * results directory on hostfs can fill up or go away; a file that is not
 * whole must fail the verdict, not be read as a shorter run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "results_file.h"

int results_file_write(const char *dir, const char *name, const char *format,
		       void (*write)(FILE *f, const void *arg),
		       const void *arg)
{
	char path[PATH_MAX];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	if (!f) {
		ret = -errno;
		printf("harness: cannot write %s: %s\n", path, strerror(errno));
		return ret;
	}
	write(f, arg);
	if (ferror(f) | fclose(f)) {
		printf("harness: error writing %s\n", path);
		return -EIO;
	}
	printf("harness: %s results written to %s\n", format, path);
	return 0;
}

void xml_put_escaped(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			/* Control characters are not valid XML 1.0. */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
}
