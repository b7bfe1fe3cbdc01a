/* SPDX-License-Identifier: GPL-2.0 */
/* KTAP results file, for kunit.py parse. */
#ifndef HARNESS_RESULTS_KTAP_H
#define HARNESS_RESULTS_KTAP_H

#include "run_results.h"

#define RESULTS_KTAP_NAME	"mshare-uml.ktap"

int results_ktap_write(const char *dir, const struct run_results *r);

#endif
