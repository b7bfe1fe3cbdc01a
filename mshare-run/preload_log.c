// SPDX-License-Identifier: GPL-2.0
/*
 * One line per event on the program's stderr, written whole with one
 * write() so that lines of several processes do not interleave:
 *   mshare-run[PID]: took 134217728 bytes at 0x4000000000: /sys/fs/mshare/...
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "preload.h"

void preload_log(int level, const char *fmt, ...)
{
	char line[512];
	int saved = errno, len;
	va_list ap;

	if (level > preload_config.verbose)
		return;
	len = snprintf(line, sizeof(line), "mshare-run[%d]: ", getpid());
	va_start(ap, fmt);
	len += vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	va_end(ap);
	if (len > (int)sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* A lost line has nowhere to be reported. */
	(void)!write(STDERR_FILENO, line, len);
	errno = saved;
}
