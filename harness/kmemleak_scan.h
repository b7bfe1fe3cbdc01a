/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemleak scan at the end of a run: unreferenced kernel objects fail it.
 */
#ifndef HARNESS_KMEMLEAK_SCAN_H
#define HARNESS_KMEMLEAK_SCAN_H

int kmemleak_final_scan(void);

#endif
