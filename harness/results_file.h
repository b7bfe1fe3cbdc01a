/* SPDX-License-Identifier: GPL-2.0 */
/* Writing one results file, and the XML escaping the XML writers share. */
#ifndef HARNESS_RESULTS_FILE_H
#define HARNESS_RESULTS_FILE_H

#include <stdio.h>

/*
 * Writes DIR/NAME through WRITE(f, arg) and says so on the console as
 * "harness: FORMAT results written to PATH" (scripts find the files from
 * that line).  Returns 0, or a negative errno after saying what failed.
 */
int results_file_write(const char *dir, const char *name, const char *format,
		       void (*write)(FILE *f, const void *arg),
		       const void *arg);

/* Text for XML content or a quoted attribute; control characters -> '?'. */
void xml_put_escaped(FILE *f, const char *s);

#endif
