// SPDX-License-Identifier: GPL-2.0
/* Memory cgroups for the accounting tests: see memcg_util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "harness.h"
#include "memcg_util.h"
#include "mount_util.h"
#include "swap_disk.h"

int cg_write(const char *cg, const char *file, const char *text)
{
	char path[192];

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/%s", cg, file);
	return harness_write_file(path, text);
}

long cg_read_long(const char *cg, const char *file)
{
	char path[192], buf[64];

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/%s", cg, file);
	if (harness_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

long cg_read_key(const char *cg, const char *file, const char *key)
{
	char path[192], buf[8192];
	size_t len = strlen(key);
	char *line;

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/%s", cg, file);
	if (harness_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, len) && line[len] == ' ')
			return strtol(line + len + 1, NULL, 10);
	}
	return -1;
}

int cg_make(const char *cg)
{
	char path[192];

	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", cg);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

void cg_remove(const char *cg)
{
	char path[192];

	if (!cg[0])
		return;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", cg);
	if (rmdir(path))
		printf("    rmdir %s: %s\n", path, strerror(errno));
}

int cg_move(const char *cg, pid_t pid)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", (int)pid);
	return cg_write(cg, "cgroup.procs", text);
}

int cg_enter(const char *cg)
{
	return cg_move(cg, 0);
}

const char *memcg_required(void)
{
	char buf[256];

	if (harness_requires_msharefs())
		return harness_requires_msharefs();
	/* mount() again would stack a second cgroup2 mount on the first */
	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    harness_mount("cgroup2", CGROUP_ROOT, "cgroup2", NULL))
		return "cannot mount cgroup2 at " CGROUP_ROOT;
	if (harness_read_file(CGROUP_ROOT "/cgroup.controllers", buf,
			      sizeof(buf)) <= 0 || !strstr(buf, "memory"))
		return "no memory controller (CONFIG_MEMCG is off)";
	if (harness_write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory"))
		return "cannot enable +memory in " CGROUP_ROOT;
	return NULL;
}

const char *memcg_and_swap_required(void)
{
	const char *why = swap_disk_required();

	return why ? why : memcg_required();
}
