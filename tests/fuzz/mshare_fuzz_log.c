// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's op log: one line per op, numbered, with the process and the
 * regions it involved, what was expected and what came.  It is printed
 * when a run fails, so that the failing sequence can be read (and rerun
 * from the seed).  And the kernel log, read after every op through the
 * harness's watch, so that a splat is tied to the op that caused it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmsg_watch.h"
#include "mshare_fuzz.h"

#define LINE_MAX_LEN	200
/* Longer runs keep the last ops only: they are rerun from the seed. */
#define LOG_MAX_OPS	(1U << 18)
#define PRINT_ALL_MAX	3000
#define PRINT_LAST	200

struct log_op {
	unsigned int no;
	int proc;
	int region;
	int region2;
	char line[LINE_MAX_LEN];
};

static struct log_op *ops;
static unsigned int nops;	/* ever logged */
static unsigned int cap;

void fz_log_init(void)
{
	nops = 0;
}

void fz_log_free(void)
{
	free(ops);
	ops = NULL;
	cap = 0;
	nops = 0;
}

static struct log_op *slot_of(unsigned int i)
{
	return &ops[i % LOG_MAX_OPS];
}

static bool grow(void)
{
	struct log_op *more;
	unsigned int want;

	if (nops < cap || cap == LOG_MAX_OPS)
		return true;
	want = cap ? cap * 2 : 4096;
	more = realloc(ops, want * sizeof(*ops));
	if (!more)
		return false;
	ops = more;
	cap = want;
	return true;
}

void fz_log_op(unsigned int no, int proc, int region, int region2,
	       const char *fmt, ...)
{
	struct log_op *op;
	va_list ap;
	int len;

	if (!grow())
		return;
	op = slot_of(nops++);
	op->no = no;
	op->proc = proc;
	op->region = region;
	op->region2 = region2;
	len = snprintf(op->line, sizeof(op->line), "#%u ", no);
	va_start(ap, fmt);
	vsnprintf(op->line + len, sizeof(op->line) - len, fmt, ap);
	va_end(ap);
}

void fz_log_result(const char *fmt, ...)
{
	struct log_op *op;
	va_list ap;
	size_t len;

	if (!nops)
		return;
	op = slot_of(nops - 1);
	len = strlen(op->line);
	len += snprintf(op->line + len, sizeof(op->line) - len, " -> ");
	if (len >= sizeof(op->line))
		return;
	va_start(ap, fmt);
	vsnprintf(op->line + len, sizeof(op->line) - len, fmt, ap);
	va_end(ap);
}

unsigned int fz_log_count(void)
{
	return nops;
}

const char *fz_log_line(unsigned int no)
{
	unsigned int first = nops > LOG_MAX_OPS ? nops - LOG_MAX_OPS : 0;
	unsigned int i;

	/* Ops are logged in order, but some numbers log no line (skips). */
	for (i = nops; i-- > first;)
		if (slot_of(i)->no == no)
			return slot_of(i)->line;
		else if (slot_of(i)->no < no)
			break;
	return NULL;
}

static bool involves(const struct log_op *op, int proc, int region)
{
	return (proc >= 0 && op->proc == proc) ||
	       (region >= 0 && (op->region == region ||
				op->region2 == region));
}

void fz_log_print(int proc, int region)
{
	unsigned int first = nops > LOG_MAX_OPS ? nops - LOG_MAX_OPS : 0;
	unsigned int i, shown = 0, all = nops - first;
	bool everything = all <= PRINT_ALL_MAX;
	const struct log_op *op;

	if (everything) {
		printf("mshare_fuzz: the sequence, %u ops:\n", nops);
	} else {
		printf("mshare_fuzz: the sequence has %u ops; shown: those of P%d or R%d, and the last %u\n",
		       nops, proc, region, PRINT_LAST);
		if (first)
			printf("mshare_fuzz: (ops before #%u are no longer kept)\n",
			       slot_of(first)->no);
	}
	for (i = first; i < nops; i++) {
		op = slot_of(i);
		if (everything || nops - i <= PRINT_LAST ||
		    involves(op, proc, region)) {
			printf("  %s\n", op->line);
			shown++;
		}
	}
	if (!everything)
		printf("mshare_fuzz: %u of %u ops shown\n", shown, nops);
}

/*
 * The kernel log is the harness's watch's (harness/kmsg_watch.c), read
 * after every op: one reader and one scan, so that the injections' lines
 * are judged by the windows of harness/kmsg_patterns.c alone.
 */
static unsigned int expected_before;

int fz_kmsg_open(void)
{
	char first[256];

	if (!kmsg_watch_active())
		return -ENODEV;
	/* What came before the run is not the run's ops'. */
	if (kmsg_watch_poll(first, sizeof(first)))
		printf("mshare_fuzz: bad kernel log records before the run, first: %s\n",
		       first);
	expected_before = kmsg_watch_expected();
	return 0;
}

void fz_kmsg_close(void)
{
}

unsigned int fz_kmsg_expected(void)
{
	return kmsg_watch_expected() - expected_before;
}

unsigned int fz_kmsg_check(char *first, size_t size)
{
	return kmsg_watch_poll(first, size);
}
