// SPDX-License-Identifier: GPL-2.0
/*
 * The library's settings, read once per process from the variables of
 * settings.h.  A variable that does not parse makes the library take
 * nothing in this process, and says so: a mistyped size must not move
 * memory the user did not mean to move.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"
#include "settings.h"
#include "size.h"

struct preload_config preload_config;

static bool flag(enum mshare_run_setting_id id, bool *out)
{
	const char *value = mshare_run_setting(id);

	if (strcmp(value, "0") && strcmp(value, "1")) {
		preload_log(0, "%s=%s: want 0 or 1; taking nothing",
			    mshare_run_settings[id].env, value);
		return false;
	}
	*out = value[0] == '1';
	return true;
}

/* The basename of this process's executable is one of @list's names. */
static bool executable_chosen(const char *list)
{
	char exe[PATH_MAX], *base;
	size_t len;
	ssize_t n;

	if (!*list)
		return true;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	len = strlen(base);
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == len && !strncmp(p, base, len))
			return true;
	}
	return false;
}

/* msharefs's unit from <dir>/mshare_info, or 0 when it is not there. */
static unsigned long read_unit(const char *dir)
{
	char path[PATH_MAX], text[32], *end;
	unsigned long unit;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/mshare_info", dir) >= sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	unit = strtoul(text, &end, 10);
	if (end == text || *end != '\n' || !unit || (unit & (unit - 1)))
		return 0;
	return unit;
}

static bool load(struct preload_config *c)
{
	const char *verbose = mshare_run_setting(SETTING_VERBOSE), *dir;

	if (!verbose[0] || strspn(verbose, "0123456789") != strlen(verbose)) {
		preload_log(0, "%s=%s: want a level 0-2; taking nothing",
			    mshare_run_settings[SETTING_VERBOSE].env, verbose);
		return false;
	}
	c->verbose = atoi(verbose);
	if (!mshare_run_parse_size(mshare_run_setting(SETTING_MIN_SIZE), &c->min_size)) {
		preload_log(0, "%s=%s: not a size (BYTES, or with K, M or G); taking nothing",
			    mshare_run_settings[SETTING_MIN_SIZE].env,
			    mshare_run_setting(SETTING_MIN_SIZE));
		return false;
	}
	if (!flag(SETTING_STRICT, &c->strict) ||
	    !flag(SETTING_DRY_RUN, &c->dry_run) ||
	    !flag(SETTING_SYSV, &c->sysv))
		return false;
	dir = mshare_run_setting(SETTING_DIR);
	if (strlen(dir) >= sizeof(c->dir) - 64) {
		preload_log(0, "%s: path too long; taking nothing",
			    mshare_run_settings[SETTING_DIR].env);
		return false;
	}
	strcpy(c->dir, dir);
	if (!executable_chosen(mshare_run_setting(SETTING_EXECUTABLES)))
		return false;
	c->unit = read_unit(dir);
	if (!c->unit)
		preload_log(c->strict ? 0 : 1,
			    "%s/mshare_info: not readable (is msharefs mounted there?): no mapping can be taken",
			    dir);
	return true;
}

/*
 * Loaded before main() by the constructor, or by the first call that
 * needs it when another library's constructor maps memory earlier.
 */
void preload_config_load(void)
{
	static int state;	/* 0 not yet, 1 loading, 2 loaded */

	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2)
		return;
	if (__atomic_exchange_n(&state, 1, __ATOMIC_ACQ_REL) != 0)
		return;		/* a call made while loading: left alone */
	preload_config.verbose = 1;
	preload_config.active = load(&preload_config);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void preload_init(void)
{
	preload_config_load();
}
