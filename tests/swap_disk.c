// SPDX-License-Identifier: GPL-2.0
/* The swap disk of the runner: see swap_disk.h. */
#include <sys/stat.h>
#include <sys/swap.h>

#include "harness.h"
#include "swap_disk.h"

const char *swap_disk_required(void)
{
	struct stat st;
	const char *why = harness_requires_msharefs();

	if (why)
		return why;
	if (stat(SWAP_DISK, &st) || !S_ISBLK(st.st_mode))
		return SWAP_DISK " is not there: boot through uml/run-linux.sh (make run), which attaches a swap disk";
	return NULL;
}

int swap_disk_on(void)
{
	return swapon(SWAP_DISK, 0) ? -1 : 0;
}

int swap_disk_off(void)
{
	return swapoff(SWAP_DISK) ? -1 : 0;
}
