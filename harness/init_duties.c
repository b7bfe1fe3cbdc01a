// SPDX-License-Identifier: GPL-2.0
/*
 * Duties of the harness as /init in the guest: mount the pseudo
 * filesystems, make sure there is a console, report the verdict and power
 * off.  The verdict leaves ./linux through /proc/exitcode (UML's exit
 * status) and qemu through its isa-debug-exit port (uml/run-qemu.sh); the
 * results folder is the host's, through hostfs or virtio-9p.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>

#include "compiler.h"
#include "init_duties.h"
#include "mount_util.h"

#define RESULTS_MNT	"/results"
/* The tag uml/run-qemu.sh gives the results folder it exports over 9p. */
#define RESULTS_9P_TAG	"results"
#define MSHAREFS_DIR	"/sys/fs/mshare"
/* qemu's -device isa-debug-exit,iobase=0xf4: a write of v exits 2v + 1. */
#define DEBUG_EXIT_PORT	0xf4

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

/*
 * UML exits with the number in /proc/exitcode when it powers off; other
 * kernels have no such file (the code leaves through init_power_off()).
 */
void init_set_exitcode(int code)
{
	char buf[16];
	int fd, len;

	fd = open("/proc/exitcode", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			printf("harness: /proc/exitcode: %s\n",
			       strerror(errno));
		return;
	}
	len = snprintf(buf, sizeof(buf), "%d\n", code);
	if (write(fd, buf, len) != len)
		printf("harness: writing /proc/exitcode: %s\n",
		       strerror(errno));
	close(fd);
}

/*
 * The results directory is a host directory: hostfs on UML, and where the
 * kernel has no hostfs, the folder qemu exports over virtio-9p.
 */
int init_mount_results(const char *host_dir, const char **mnt)
{
	const char *how;
	int ret = harness_mount_host(host_dir, RESULTS_9P_TAG, RESULTS_MNT,
				     &how);

	if (ret) {
		printf("harness: %s mount of %s failed: %s\n", how, host_dir,
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

/*
 * Under qemu with isa-debug-exit, a write to its port ends qemu with the
 * code.  Elsewhere (UML, which has no ioperm(), or no such device) nothing
 * happens and the caller powers off.
 */
static void exit_through_debug_port(int code)
{
	if (ioperm(DEBUG_EXIT_PORT, 1, 1))
		return;
	outb(code, DEBUG_EXIT_PORT);
}

/*
 * The console's last lines (the counts, the slowest tests, the verdict)
 * are still in the tty's buffer when write() returns; a serial console
 * sends them from its interrupt handler.  qemu ends at the debug port
 * write, so without the drain the verdict could be lost: a CI run saw
 * "harness: 130 passed, 0 failed, 19 skipped" as the console's last line
 * and run-qemu.sh, finding no verdict, failed the boot (2026-12-07).
 */
void init_power_off(int code)
{
	init_set_exitcode(code);
	sync();
	tcdrain(STDOUT_FILENO);
	exit_through_debug_port(code);
	reboot(RB_POWER_OFF);
	/* Returning from init panics the kernel: still a non-zero exit. */
	printf("harness: power off failed: %s\n", strerror(errno));
	_exit(code ? code : 1);
}
