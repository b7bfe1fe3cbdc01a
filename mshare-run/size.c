// SPDX-License-Identifier: GPL-2.0
/* Sizes as the launcher's options and the variables spell them. */
#include <errno.h>
#include <stdlib.h>

#include "size.h"

bool mshare_run_parse_size(const char *text, unsigned long *bytes)
{
	unsigned long value, shift = 0;
	char *end;

	if (*text < '0' || *text > '9')
		return false;
	errno = 0;
	value = strtoul(text, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (*end || (value << shift) >> shift != value)
		return false;
	*bytes = value << shift;
	return true;
}
