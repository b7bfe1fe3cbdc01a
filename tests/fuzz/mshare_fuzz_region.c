// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's ops that change a region for every process that shares it
 * (docs/regions.md, "mprotect() and mremap() of a region"):
 *
 * - mprotect: a process makes all of a region, or the page of one of its
 *   sample words, read-only or PROT_NONE; another process that maps the
 *   region (or the same one) then reads or writes that word and must get
 *   what the new protection says; the first process gives the region its
 *   protection back, which widens its own mapping if it had asked for
 *   less.  A process that opened the region's file read-only gets EACCES.
 * - move-file: a process moves the first page of a tmpfs file, mapped
 *   shared, with mremap() onto a page of a region that holds no sample or
 *   touch word; another process that maps the region reads the file's
 *   word there and writes one that the file then holds; the file's name
 *   goes, and the region keeps its page.  Onto a page that is a file's
 *   already: EINVAL; from a read-only sharer: EACCES.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mount_util.h"
#include "mshare_fuzz.h"

#define FILE_DIR	"/run/mshare-fuzz"

/* A process, @p or another, that maps @region and takes commands, or NULL */
static struct fz_proc *pick_sharer(struct fz_run *run, int region)
{
	int slot = run->m.region[region].slot, who[FZ_MAX_PROCS], n = 0, i;
	struct fz_proc *q;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		q = &run->m.proc[i];
		if (fz_proc_idle(q) && q->slot[slot].kind == FZ_REGION &&
		    q->slot[slot].region == region)
			who[n++] = i;
	}
	return n ? &run->m.proc[who[fz_below(&run->rng, n)]] : NULL;
}

/* Read or write the word at @off of @q's mapping of the region: reply */
static bool access_word(struct fz_run *run, struct fz_proc *q, int region,
			unsigned long off, bool write, unsigned long val,
			struct fz_reply *r)
{
	struct fz_cmd c = { .op = write ? FZC_WRITE : FZC_READ, .n = 1 };

	c.addr = FZ_ADDR(run->m.region[region].slot);
	c.offs[0] = off;
	c.vals[0] = val;
	return fz_call(run, q, region, &c, r);
}

static bool expect_signal(struct fz_run *run, struct fz_proc *q, int region,
			  unsigned long off, const struct fz_reply *r)
{
	if (r->fault_at == 0 && r->signo == SIGSEGV) {
		fz_log_result("P%d: SIGSEGV", q->id);
		return true;
	}
	fz_fail(run, q->id, fz_rid(run, region),
		"want SIGSEGV at offset %#lx, got %s", off,
		r->fault_at >= 0 ? strsignal(r->signo) : "no fault");
	return false;
}

static bool expect_word(struct fz_run *run, struct fz_proc *q, int region,
			unsigned long off, unsigned long want,
			const struct fz_reply *r)
{
	if (r->fault_at < 0 && r->vals[0] == want) {
		fz_log_result("P%d: %#lx", q->id, want);
		return true;
	}
	if (r->fault_at >= 0)
		fz_fail(run, q->id, fz_rid(run, region),
			"offset %#lx: want %#lx, got %s", off, want,
			strsignal(r->signo));
	else
		fz_fail(run, q->id, fz_rid(run, region),
			"offset %#lx: want %#lx, got %#lx", off, want,
			r->vals[0]);
	return false;
}

static bool do_mprotect(struct fz_run *run, struct fz_proc *p, int region,
			unsigned long addr, unsigned long len, int prot,
			int want)
{
	struct fz_cmd c = { .op = FZC_MPROTECT, .addr = addr, .len = len,
			    .prot = prot };
	struct fz_reply r;

	return fz_call(run, p, region, &c, &r) &&
	       fz_expect_err(run, p, region, want, &r);
}

/*
 * While the region is read-only or PROT_NONE there: a process that maps
 * it reads or writes sample @k, and gets SIGSEGV, or the model's word.
 */
static bool check_changed(struct fz_run *run, int region, unsigned int k,
			  int prot)
{
	struct fz_region *reg = &run->m.region[region];
	struct fz_proc *q = pick_sharer(run, region);
	bool write;
	struct fz_reply r;

	if (!q)
		return true;
	write = q->slot[reg->slot].writable && fz_chance(&run->rng, 50);
	if (!access_word(run, q, region, reg->offs[k], write,
			 fz_op_value(run->no, k), &r))
		return false;
	if (write || prot == PROT_NONE)
		return expect_signal(run, q, region, reg->offs[k], &r);
	return expect_word(run, q, region, reg->offs[k], reg->vals[k], &r);
}

bool fz_op_mprotect(struct fz_run *run, struct fz_proc *p)
{
	int slot = fz_pick_slot(run, p, fz_slot_region, 90);
	struct fz_slot *s = &p->slot[slot];
	unsigned int k = fz_below(&run->rng, FZ_SAMPLES);
	bool part = fz_chance(&run->rng, 50);
	int prot = fz_chance(&run->rng, 50) ? PROT_READ : PROT_NONE;
	unsigned long addr = FZ_ADDR(slot), len = mshare_unit();
	struct fz_region *reg;
	int region, back;

	if (s->kind == FZ_ANON)
		return true;
	if (s->kind == FZ_EMPTY) {
		fz_start_op(run, K_MPROTECT, p, -1, -1, "at %d (nothing)",
			    slot);
		return do_mprotect(run, p, -1, addr, len, prot, ENOMEM);
	}
	region = s->region;
	reg = &run->m.region[region];
	if (part) {
		addr += reg->offs[k] & ~(PAGE - 1);
		len = PAGE;
	}
	fz_start_op(run, K_MPROTECT, p, region, -1, "at %d %s%s, sample %u",
		    slot, prot ? "ro" : "none", part ? " its page" : "", k);
	/* Only a process that may write the region changes it */
	if (!s->maywrite)
		return do_mprotect(run, p, region, addr, len, prot, EACCES);
	if (!do_mprotect(run, p, region, addr, len, prot, 0) ||
	    !check_changed(run, region, k, prot))
		return false;

	/* Back as it was; a read-write region widens p's own mapping */
	back = PROT_READ | (reg->writable ? PROT_WRITE : 0);
	if (!do_mprotect(run, p, region, addr, len, back, 0))
		return false;
	if (reg->writable)
		s->writable = true;
	return true;
}

/* ---- a file moved into a region ---- */

/* Does @off's page hold a sample word, a touch word, or a file's page? */
static bool page_taken(const struct fz_region *reg, unsigned long off)
{
	unsigned int i;

	if (off % PT_SPAN < PAGE)
		return true;	/* FZ_TOUCH_WORD() of each 2 MiB */
	for (i = 0; i < FZ_SAMPLES; i++)
		if ((reg->offs[i] & ~(PAGE - 1)) == off)
			return true;
	return false;
}

static bool file_page(const struct fz_region *reg, unsigned long off)
{
	unsigned int i;

	for (i = 0; i < reg->nr_file_pages; i++)
		if (reg->file_pages[i] == off)
			return true;
	return false;
}

/* A page for a file: a new one, or (1 in 4) one that is a file's already */
static unsigned long pick_file_page(struct fz_run *run,
				    const struct fz_region *reg)
{
	unsigned long off;

	if (reg->nr_file_pages && fz_chance(&run->rng, 25))
		return reg->file_pages[fz_below(&run->rng,
						reg->nr_file_pages)];
	do
		off = fz_below(&run->rng, mshare_unit() / PAGE) * PAGE;
	while (page_taken(reg, off));
	return off;
}

/* A one-page file on tmpfs holding @val in its first word: 0 or -errno */
static int make_file(const char *path, unsigned long val)
{
	int fd, ret;

	ret = harness_mount("tmpfs", FILE_DIR, "tmpfs", "mode=1777");
	if (ret)
		return ret;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = pwrite(fd, &val, sizeof(val), 0) == sizeof(val) &&
	      !ftruncate(fd, PAGE) ? 0 : -EIO;
	close(fd);
	return ret;
}

static long file_word(const char *path)
{
	unsigned long val;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &val, sizeof(val), 0);
	close(fd);
	return n == sizeof(val) ? (long)val : -1;
}

/*
 * After the move: another sharer reads the file's word through the
 * region, writes one, and the file holds it.
 */
static bool check_moved(struct fz_run *run, int region, unsigned long off,
			const char *path, unsigned long val)
{
	struct fz_proc *q = pick_sharer(run, region);
	struct fz_reply r;
	unsigned long val2 = fz_op_value(run->no, FZ_SAMPLES + 1);
	long got;

	if (!q)
		return true;
	if (!access_word(run, q, region, off, false, 0, &r) ||
	    !expect_word(run, q, region, off, val, &r))
		return false;
	if (!q->slot[run->m.region[region].slot].writable ||
	    !run->m.region[region].writable)
		return true;
	if (!access_word(run, q, region, off, true, val2, &r))
		return false;
	got = file_word(path);
	if (r.fault_at >= 0 || got != (long)val2) {
		fz_fail(run, q->id, fz_rid(run, region),
			"write through the region at %#lx: want %#lx in the file, got %#lx%s",
			off, val2, got, r.fault_at >= 0 ? " (faulted)" : "");
		return false;
	}
	fz_log_result("file holds P%d's write", q->id);
	return true;
}

bool fz_op_move_file(struct fz_run *run, struct fz_proc *p)
{
	struct fz_cmd c = { .op = FZC_MOVE_FILE };
	int slot = fz_pick_slot_if(run, p, fz_slot_region);
	struct fz_region *reg;
	unsigned long off, val;
	struct fz_reply r;
	int region, want;

	if (slot < 0)
		return true;
	region = p->slot[slot].region;
	reg = &run->m.region[region];
	if (reg->nr_file_pages == FZ_FILE_PAGES)
		return true;
	off = pick_file_page(run, reg);
	/* Named after the op, which fz_start_op() numbers next */
	snprintf(c.path, sizeof(c.path), FILE_DIR "/f%u", run->no + 1);
	c.addr = FZ_ADDR(slot) + off;
	fz_start_op(run, K_MOVE_FILE, p, region, -1,
		    "%s to %d + %#lx%s", c.path, slot, off,
		    file_page(reg, off) ? " (a file's already)" : "");
	val = fz_op_value(run->no, FZ_SAMPLES);
	if (make_file(c.path, val)) {
		fz_fail(run, p->id, fz_rid(run, region),
			"cannot make %s on tmpfs", c.path);
		return false;
	}
	want = !p->slot[slot].maywrite ? EACCES :
	       file_page(reg, off) ? EINVAL : 0;
	if (!fz_call(run, p, region, &c, &r) ||
	    !fz_expect_err(run, p, region, want, &r))
		return false;
	if (!want) {
		reg->file_pages[reg->nr_file_pages++] = off;
		if (!check_moved(run, region, off, c.path, val))
			return false;
	}
	/* The region keeps the file's page without its name */
	unlink(c.path);
	return true;
}
