/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything a test file in tests/ needs: CUnit, suite registration, suite
 * requirements and the test helpers.
 */
#ifndef HARNESS_H
#define HARNESS_H

#include <CUnit/CUnit.h>

#include "requirements.h"
#include "suite_registry.h"
#include "test_util.h"

#endif
