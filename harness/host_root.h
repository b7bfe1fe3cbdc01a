/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's root directory inside the guest, as a program built on the
 * host needs it: hostfs on UML, the 9p export of uml/run-qemu.sh
 * --host-root under qemu, mounted on HARNESS_HOST_ROOT with the guest's
 * own /proc, /sys (msharefs, debugfs, cgroup2), /dev and a tmpfs
 * /dev/shm over it.  A program run with harness_program.root =
 * HARNESS_HOST_ROOT finds its libraries and files where they are on the
 * host.  Used by the suites that run host programs (user_program,
 * mshare_run).
 */
#ifndef HARNESS_HOST_ROOT_H
#define HARNESS_HOST_ROOT_H

#define HARNESS_HOST_ROOT	"/host"

/* 0, or -errno after printing what could not be mounted. */
int harness_host_root_mount(void);
/* 0, or -1 after printing what could not be unmounted. */
int harness_host_root_unmount(void);

#endif
