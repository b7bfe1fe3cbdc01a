/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mshare-run can be told, in one table: each launcher option is one
 * environment variable that libmshare-run.so reads in every process it is
 * loaded into (and that the launcher passes on to the program's children
 * with LD_PRELOAD), as hugectl's options are HUGETLB_* variables for
 * libhugetlbfs.  Setting the variables by hand and preloading the library
 * does the same as the launcher.
 */
#ifndef MSHARE_RUN_SETTINGS_H
#define MSHARE_RUN_SETTINGS_H

#include <stdbool.h>
#include <stdlib.h>

enum mshare_run_setting_id {
	SETTING_MIN_SIZE,
	SETTING_EXECUTABLES,
	SETTING_STRICT,
	SETTING_VERBOSE,
	SETTING_DRY_RUN,
	SETTING_SYSV,
	SETTING_DIR,
	SETTING_COUNT
};

struct mshare_run_setting {
	const char *option;	/* long option, without "--" */
	const char *env;	/* the variable it sets */
	const char *arg;	/* what its value is, or NULL for a flag */
	const char *set;	/* the value a flag sets */
	const char *dflt;	/* value when the variable is unset */
	const char *help;
};

static const struct mshare_run_setting mshare_run_settings[SETTING_COUNT] = {
	[SETTING_MIN_SIZE] = {
		"min-size", "MSHARE_RUN_MIN_SIZE", "BYTES[K|M|G]", NULL, "2M",
		"take mappings and segments of at least this size" },
	[SETTING_EXECUTABLES] = {
		"only", "MSHARE_RUN_EXECUTABLES", "NAME[,NAME...]", NULL, "",
		"take memory only in these executables (basenames; default: all)" },
	[SETTING_STRICT] = {
		"strict", "MSHARE_RUN_STRICT", NULL, "1", "0",
		"fail a mapping that cannot go into a region instead of leaving it" },
	[SETTING_VERBOSE] = {
		"verbose", "MSHARE_RUN_VERBOSE", "LEVEL", NULL, "1",
		"0: errors only; 1: each mapping taken or left; 2: and each unmap, lock" },
	[SETTING_DRY_RUN] = {
		"dry-run", "MSHARE_RUN_DRY_RUN", NULL, "1", "0",
		"log what would be taken, take nothing" },
	[SETTING_SYSV] = {
		"no-sysv", "MSHARE_RUN_SYSV", NULL, "0", "1",
		"leave SysV shm segments alone (sets the variable to 0)" },
	[SETTING_DIR] = {
		"dir", "MSHARE_RUN_DIR", "PATH", NULL, "/sys/fs/mshare",
		"where msharefs is mounted" },
};

/* A setting's value: its variable's, else its default. */
static inline const char *mshare_run_setting(enum mshare_run_setting_id id)
{
	const char *value = getenv(mshare_run_settings[id].env);

	return value ? value : mshare_run_settings[id].dflt;
}

/* The library the launcher preloads, next to the launcher itself. */
#define MSHARE_RUN_LIBRARY	"libmshare-run.so"

#endif
