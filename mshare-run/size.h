/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MSHARE_RUN_SIZE_H
#define MSHARE_RUN_SIZE_H

#include <stdbool.h>

/* "4096", "64K", "2M", "1G": false unless all of text is one such size. */
bool mshare_run_parse_size(const char *text, unsigned long *bytes);

#endif
