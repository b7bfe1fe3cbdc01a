// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak scan at the end of a run.
 *
 * The test kernel has CONFIG_DEBUG_KMEMLEAK without the automatic scan, so
 * that a report cannot land in the middle of an unrelated test.  After the
 * last test the harness scans twice itself and prints every unreferenced
 * object kmemleak reports; any one fails the verdict.
 *
 * Twice, because one scan reports nothing new: kmemleak_scan() takes an
 * unreferenced object whose checksum changed since the last scan for one
 * still being written and scans it as referenced (update_checksum() in
 * mm/kmemleak.c), and before its first scan every object's checksum is
 * 0.  With one scan, a struct mshare_data leaked on an error path of
 * msharefs_fill_mm() on purpose went unreported (2026-12-04).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kmemleak_scan.h"
#include "test_util.h"

#define KMEMLEAK_PATH "/sys/kernel/debug/kmemleak"

/*
 * kmemleak does not report objects younger than 5 s (MSECS_MIN_AGE in
 * mm/kmemleak.c): wait that long after the last test, or its leaks are
 * missed.
 */
#define KMEMLEAK_MIN_AGE_S 6

static int kmemleak_command(const char *cmd)
{
	int fd = open(KMEMLEAK_PATH, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Print the report; returns the number of unreferenced objects in it. */
static int kmemleak_print_report(void)
{
	FILE *report = fopen(KMEMLEAK_PATH, "re");
	char line[512];
	int objects = 0;

	if (!report)
		return -errno;
	while (fgets(line, sizeof(line), report)) {
		if (strstr(line, "unreferenced object"))
			objects++;
		printf("  KMEMLEAK| %s", line);
	}
	fclose(report);
	return objects;
}

/*
 * kmemleak=off on the kernel command line: a boot that checks something
 * else than leaks (a negative control, a selection) and spares itself
 * kmemleak's cost and its 5 s wait.  The kernel then refuses a scan.
 */
static bool kmemleak_turned_off(void)
{
	char cmdline[4096];

	return harness_read_file("/proc/cmdline", cmdline,
				 sizeof(cmdline)) >= 0 &&
	       (strstr(cmdline, " kmemleak=off") ||
		!strncmp(cmdline, "kmemleak=off", strlen("kmemleak=off")));
}

/*
 * Returns the number of unreferenced objects kmemleak reports, 0 when
 * kmemleak is not available (the host build, or a kernel without it).
 */
int kmemleak_final_scan(void)
{
	int ret;

	if (access(KMEMLEAK_PATH, W_OK))
		return 0;
	if (kmemleak_turned_off()) {
		printf("harness: kmemleak: off (kmemleak=off), no scan\n");
		return 0;
	}
	printf("harness: kmemleak: waiting %d s so recent objects are scanned too\n",
	       KMEMLEAK_MIN_AGE_S);
	sleep(KMEMLEAK_MIN_AGE_S);
	ret = kmemleak_command("scan");
	if (!ret)
		ret = kmemleak_command("scan");
	if (!ret)
		ret = kmemleak_print_report();
	if (ret < 0) {
		printf("harness: kmemleak: scan failed: %s\n", strerror(-ret));
		return 1;
	}
	printf("harness: kmemleak: %d unreferenced objects\n", ret);
	return ret;
}
