// SPDX-License-Identifier: GPL-2.0
/* The runner's disks: see test_disks.h. */
#include <stdbool.h>
#include <unistd.h>

#include "test_disks.h"

/*
 * UML's disks are ubd, qemu's virtio.  By the kernel, not by the disks
 * found: ./linux booted without the runner's disks must name the ubd
 * disk it lacks.  Only UML has /proc/exitcode (arch/um/kernel/exitcode.c).
 */
static bool disks_are_ubd(void)
{
	return access("/proc/exitcode", F_OK) == 0;
}

const char *harness_swap_disk(void)
{
	return disks_are_ubd() ? "/dev/ubda" : "/dev/vda";
}

const char *harness_scratch_disk(void)
{
	return disks_are_ubd() ? "/dev/ubdb" : "/dev/vdb";
}
