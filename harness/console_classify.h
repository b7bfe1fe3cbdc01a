/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel reports in a console log file (host-harness --classify-console). */
#ifndef HARNESS_CONSOLE_CLASSIFY_H
#define HARNESS_CONSOLE_CLASSIFY_H

/* Exit statuses of --classify-console. */
#define CONSOLE_CLEAN		0
#define CONSOLE_REPORTS		1
#define CONSOLE_UNREADABLE	2

#include <stdio.h>

/*
 * Prints to OUT "KIND<TAB>line" for each of the first kernel report lines
 * of the console log at PATH (at most 10, each once), or "clean".
 */
int console_classify(const char *path, FILE *out);

#endif
