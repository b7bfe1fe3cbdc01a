// SPDX-License-Identifier: GPL-2.0
/* The runner's disks: see test_disks.h. */
#include <stdbool.h>
#include <unistd.h>

#include "test_disks.h"

/* UML's first disk is ubd0; a kernel without it is under qemu. */
static bool disks_are_ubd(void)
{
	return access("/sys/block/ubda", F_OK) == 0;
}

const char *harness_swap_disk(void)
{
	return disks_are_ubd() ? "/dev/ubda" : "/dev/vda";
}

const char *harness_scratch_disk(void)
{
	return disks_are_ubd() ? "/dev/ubdb" : "/dev/vdb";
}
