// SPDX-License-Identifier: GPL-2.0
/*
 * Duties of the harness as /init in the UML guest: mount the pseudo
 * filesystems, make sure there is a console, report the verdict through
 * /proc/exitcode (UML's exit status) and power off.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>

#include "compiler.h"
#include "init_duties.h"
#include "mount_util.h"

#define RESULTS_MNT	"/results"
#define MSHAREFS_DIR	"/sys/fs/mshare"

struct init_mount {
	const char *source;
	const char *target;
	const char *type;
	/* Absent filesystems are normal for these: note, do not complain. */
	bool optional;
};

static const struct init_mount init_mounts[] = {
	{ "sysfs", "/sys", "sysfs", false },
	{ "devtmpfs", "/dev", "devtmpfs", false },
	{ "debugfs", "/sys/kernel/debug", "debugfs", true },
};

static void mount_one(const struct init_mount *m)
{
	int ret = harness_mount(m->source, m->target, m->type, NULL);

	if (!ret)
		return;
	if (ret == -ENODEV && m->optional)
		printf("harness: %s not available\n", m->type);
	else
		printf("harness: %s on %s not mounted: %s\n", m->type,
		       m->target, strerror(-ret));
}

/* Only where the kernel created the directory, i.e. mshare is built in. */
static void mount_msharefs(void)
{
	int ret;

	if (!harness_is_dir(MSHAREFS_DIR)) {
		printf("harness: %s absent, msharefs not mounted\n",
		       MSHAREFS_DIR);
		return;
	}
	ret = harness_mount("msharefs", MSHAREFS_DIR, "msharefs", NULL);
	if (ret == -ENODEV)
		printf("harness: msharefs not available in this kernel\n");
	else if (ret)
		printf("harness: msharefs mount failed: %s\n", strerror(-ret));
	else
		printf("harness: msharefs mounted on %s\n", MSHAREFS_DIR);
}

/*
 * Without /dev/console in the initramfs the kernel starts us with no
 * stdio at all; devtmpfs provides one.
 */
static void ensure_console(void)
{
	int fd;

	if (fcntl(STDOUT_FILENO, F_GETFD) >= 0)
		return;
	fd = open("/dev/console", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

void init_prepare(void)
{
	size_t i;

	/* proc first: /proc/exitcode must say "failed" until we know. */
	if (harness_mount("proc", "/proc", "proc", NULL))
		printf("harness: cannot mount /proc\n");
	init_set_exitcode(1);
	for (i = 0; i < ARRAY_SIZE(init_mounts); i++)
		mount_one(&init_mounts[i]);
	ensure_console();
	mount_msharefs();
}

/* UML exits with the number in /proc/exitcode when it powers off. */
void init_set_exitcode(int code)
{
	char buf[16];
	int fd, len;

	fd = open("/proc/exitcode", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("harness: /proc/exitcode: %s\n", strerror(errno));
		return;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", code);
	if (write(fd, buf, len) != len)
		printf("harness: writing /proc/exitcode: %s\n",
		       strerror(errno));
	close(fd);
}

/* The results directory is a host directory, reached through hostfs. */
int init_mount_results(const char *host_dir, const char **mnt)
{
	int ret = harness_mount("none", RESULTS_MNT, "hostfs", host_dir);

	if (ret) {
		printf("harness: hostfs mount of %s failed: %s\n", host_dir,
		       strerror(-ret));
		return ret;
	}
	*mnt = RESULTS_MNT;
	return 0;
}

void init_unmount_results(void)
{
	if (umount(RESULTS_MNT))
		printf("harness: umount %s: %s\n", RESULTS_MNT,
		       strerror(errno));
}

void init_power_off(int code)
{
	init_set_exitcode(code);
	sync();
	reboot(RB_POWER_OFF);
	/* Returning from init panics the kernel: still a non-zero exit. */
	printf("harness: power off failed: %s\n", strerror(errno));
	_exit(code ? code : 1);
}
