/* SPDX-License-Identifier: GPL-2.0 */
/* JUnit XML results file, for CI systems. */
#ifndef HARNESS_RESULTS_JUNIT_H
#define HARNESS_RESULTS_JUNIT_H

#include "run_results.h"

#define RESULTS_JUNIT_NAME	"mshare-uml-junit.xml"

int results_junit_write(const char *dir, const struct run_results *r);

#endif
