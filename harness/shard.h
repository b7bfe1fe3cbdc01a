/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.shard=K/N: the K-th of N parts of the selected tests, so that N
 * boots (side by side, or on N CI runners) run the selection once between
 * them and uml/merge-results.py puts their results files back together.
 */
#ifndef HARNESS_SHARD_H
#define HARNESS_SHARD_H

#include <stdbool.h>

struct shard {
	unsigned int index;	/* 1..count; 0 when the run is not sharded */
	unsigned int count;
};

int shard_parse(struct shard *shard, const char *spec);
/* Does this part run the selection's test @i (counted from 0)? */
bool shard_takes(const struct shard *shard, unsigned int i);
/*
 * After selection_apply(): leave the other parts' tests inactive; @verbose
 * prints what this part runs.
 */
void shard_apply(const struct shard *shard, bool verbose);
/* The active tests, "suite/test" a line: what a run would run. */
void shard_print_plan(void);

#endif
