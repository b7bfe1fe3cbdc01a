/* SPDX-License-Identifier: GPL-2.0 */
/* The few kernel-isms the harness uses, for kernel-style code. */
#ifndef HARNESS_COMPILER_H
#define HARNESS_COMPILER_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __noreturn	__attribute__((__noreturn__))

#endif
