/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The swap disk the runner attaches to every boot (harness_swap_disk()):
 * the suites that swap turn it on in their init and off in their
 * cleanup, so that no other test runs with swap.
 */
#ifndef TESTS_SWAP_DISK_H
#define TESTS_SWAP_DISK_H

/* A suite's .requires: NULL, or why there is no swap disk to use */
const char *swap_disk_required(void);
/* A suite's .init and .cleanup: swapon and swapoff of the swap disk */
int swap_disk_on(void);
int swap_disk_off(void);
/* Pages written to swap since boot (pswpout, per-cpu counts folded in) */
long swap_pages_written(void);

#endif
