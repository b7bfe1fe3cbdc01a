/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner's two disks, attached in this order to every boot: the swap
 * disk (made by mkswap on the host) and the scratch disk (zeroes).  UML's
 * ubd driver names them /dev/ubda and /dev/ubdb; under qemu they are
 * virtio-blk, /dev/vda and /dev/vdb.
 */
#ifndef TESTS_TEST_DISKS_H
#define TESTS_TEST_DISKS_H

const char *harness_swap_disk(void);
const char *harness_scratch_disk(void);

#endif
