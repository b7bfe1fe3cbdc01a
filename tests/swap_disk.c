// SPDX-License-Identifier: GPL-2.0
/* The swap disk of the runner: see swap_disk.h. */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/swap.h>

#include "harness.h"
#include "swap_disk.h"
#include "test_disks.h"

const char *swap_disk_required(void)
{
	static char why_not[128];
	const char *why = harness_requires_msharefs();
	struct stat st;

	if (why)
		return why;
	if (stat(harness_swap_disk(), &st) || !S_ISBLK(st.st_mode)) {
		snprintf(why_not, sizeof(why_not),
			 "%s is not there: boot through the runner (make run), which attaches a swap disk",
			 harness_swap_disk());
		return why_not;
	}
	return NULL;
}

int swap_disk_on(void)
{
	return swapon(harness_swap_disk(), 0) ? -1 : 0;
}

int swap_disk_off(void)
{
	return swapoff(harness_swap_disk()) ? -1 : 0;
}

long swap_pages_written(void)
{
	harness_vm_stat_refresh();
	return harness_vmstat("pswpout");
}
