// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel log watch.
 *
 * Records are read from /dev/kmsg (one record per read()), or, as a host
 * test hook, from a plain file with one record per line.  Anything that
 * matches a bad pattern is printed on the console and fails the test that
 * was running when it was read: the check runs as CUnit's per-test
 * teardown, and an assertion failed there is charged to that test (also
 * after a CU_ASSERT_FATAL, checked with CUnit 2.1-3).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <CUnit/CUnit.h>

#include "kmsg_patterns.h"
#include "kmsg_watch.h"

/* Lockdep and WARN reports span many records: show what follows. */
#define KMSG_CONTEXT_RECORDS	12
#define KMSG_RECORD_MAX		8192
#define KMSG_CONDITION_MAX	160

static int kmsg_fd = -1;
static FILE *fake_log;
static char *fake_path;
static unsigned int boot_bad;
/* Reset after each test: a window a test left armed ends with it. */
static struct kmsg_scan scan;

struct drain_result {
	unsigned int bad;
	char first[KMSG_CONDITION_MAX];
};

/* What kmsg_watch_poll() read during the running test, for its teardown. */
static struct drain_result polled;

static ssize_t read_kmsg_record(char *buf, size_t size)
{
	ssize_t n;

	for (;;) {
		n = read(kmsg_fd, buf, size - 1);
		if (n >= 0)
			break;
		if (errno == EAGAIN)
			return 0;
		if (errno == EPIPE) {
			/* The ring buffer wrapped under us: say so, go on. */
			printf("harness: kmsg: records were overwritten before they could be read\n");
			continue;
		}
		if (errno == EINTR)
			continue;
		printf("harness: kmsg: read failed: %s\n", strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	return n;
}

static ssize_t read_fake_record(char *buf, size_t size)
{
	if (!fgets(buf, size, fake_log)) {
		/* Forget EOF so lines appended later are still seen. */
		clearerr(fake_log);
		return 0;
	}
	return strlen(buf);
}

static ssize_t read_record(char *buf, size_t size)
{
	ssize_t n = fake_log ? read_fake_record(buf, size) :
			       read_kmsg_record(buf, size);
	char *nl;

	/* Only the first line: /dev/kmsg appends " KEY=value" lines. */
	if (n > 0) {
		nl = strchr(buf, '\n');
		if (nl)
			*nl = '\0';
	}
	return n;
}

static void note_bad(struct drain_result *res, const char *text,
		     bool *printed)
{
	if (!*printed) {
		/* CUnit left the "Test: x ..." line open. */
		printf("\n");
		*printed = true;
	}
	printf("  KMSG| %s\n", text);
	if (!res->bad++)
		snprintf(res->first, sizeof(res->first), "%s", text);
}

/* Read every record not read yet; print bad ones and their context. */
static void drain(struct drain_result *res)
{
	static char buf[KMSG_RECORD_MAX];
	unsigned int context = 0;
	bool printed = false;
	const char *text;

	memset(res, 0, sizeof(*res));
	if (!kmsg_watch_active())
		return;
	while (read_record(buf, sizeof(buf)) > 0) {
		text = kmsg_record_text(buf);
		if (kmsg_scan_text(&scan, text)) {
			note_bad(res, text, &printed);
			context = KMSG_CONTEXT_RECORDS;
		} else if (context) {
			printf("  KMSG  %s\n", text);
			context--;
		}
	}
}

static int open_source(const char *path, bool is_kmsg)
{
	if (is_kmsg) {
		kmsg_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		return kmsg_fd < 0 ? -errno : 0;
	}
	fake_log = fopen(path, "re");
	if (!fake_log)
		return -errno;
	fake_path = strdup(path);
	if (!fake_path) {
		kmsg_watch_stop(false);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Open the log and check everything logged before us (the boot): the
 * result is reported by the kernel_log/boot_log_clean test.  Reading it
 * all leaves the position at the end, as lseek(SEEK_END) would.
 */
int kmsg_watch_start(const char *path, bool is_kmsg)
{
	struct drain_result res;
	int ret;

	ret = open_source(path, is_kmsg);
	if (ret)
		return ret;
	printf("harness: watching kernel log %s\n", path);
	drain(&res);
	boot_bad = res.bad;
	if (boot_bad)
		printf("harness: %u bad record(s) in the log before the tests\n",
		       boot_bad);
	return 0;
}

bool kmsg_watch_active(void)
{
	return kmsg_fd >= 0 || fake_log;
}

unsigned int kmsg_watch_boot_bad(void)
{
	return boot_bad;
}

/* For the harness self-test only: lets it append fake records. */
const char *kmsg_watch_fake_path(void)
{
	return fake_path;
}

unsigned int kmsg_watch_poll(char *first, size_t size)
{
	struct drain_result res;

	drain(&res);
	if (!res.bad)
		return 0;
	if (!polled.bad)
		memcpy(polled.first, res.first, sizeof(polled.first));
	polled.bad += res.bad;
	snprintf(first, size, "%s", res.first);
	return res.bad;
}

unsigned int kmsg_watch_expected(void)
{
	return scan.expected;
}

void kmsg_watch_test_teardown(void)
{
	struct drain_result res;
	char cond[KMSG_CONDITION_MAX + 64];

	drain(&res);
	scan.armed = false;
	if (polled.bad) {
		/* The test's first bad record came through a poll. */
		memcpy(res.first, polled.first, sizeof(res.first));
		res.bad += polled.bad;
		memset(&polled, 0, sizeof(polled));
	}
	if (!res.bad)
		return;
	snprintf(cond, sizeof(cond), "kernel log: %u bad record(s), first: %s",
		 res.bad, res.first);
	/* Not fatal: a longjmp from a teardown would rerun the teardown. */
	CU_assertImplementation(CU_FALSE, __LINE__, cond, __FILE__, "",
				CU_FALSE);
}

/* After the run: anything bad now fails the verdict. */
unsigned int kmsg_watch_final_check(void)
{
	struct drain_result res;

	drain(&res);
	if (res.bad)
		printf("harness: %u bad kernel log record(s) after the last test\n",
		       res.bad);
	return res.bad;
}

/*
 * In a forked child the file offset is shared with the parent: close the
 * descriptor before fclose() so stdio cannot move the parent's position.
 */
void kmsg_watch_stop(bool in_child)
{
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	kmsg_fd = -1;
	if (fake_log && in_child)
		close(fileno(fake_log));
	if (fake_log)
		fclose(fake_log);
	fake_log = NULL;
	free(fake_path);
	fake_path = NULL;
}
