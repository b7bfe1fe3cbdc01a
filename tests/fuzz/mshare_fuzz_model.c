// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's model of the fixed kernel: which regions exist, under which
 * names, what each process has mapped at each slot and which descriptors
 * it holds, and the sample words of every region and anonymous mapping.
 *
 * The lifetime rule it encodes: a region lives while it has a name, an
 * open descriptor or a mapping; its debugfs refcount is then 1 (the
 * file's) plus one per vma that maps it, in any process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mshare_fuzz.h"

#define DBG_TEXT_MAX	16384
#define DBG_POLL_US	10000
#define DBG_POLLS	200

static const char *const dir_names[FZ_DIRS] = { "", "fzd1", "fzd2" };

unsigned long fz_anon_off(unsigned int i)
{
	return i * (mshare_unit() / FZ_SAMPLES) + (i % 7) * PT_SPAN + i * PAGE +
	       (i % 5) * sizeof(long);
}

void fz_model_init(struct fz_model *m)
{
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < FZ_PATHS; i++)
		m->path_region[i] = -1;
	m->dir_exists[0] = true;
	m->next_proc_id = 1;
	m->next_region_id = 1;
}

int fz_path_dir(int path)
{
	return path / FZ_NAMES;
}

void fz_dir_path(char *buf, size_t size, int dir)
{
	snprintf(buf, size, "%s/%s", MSHARE_DIR, dir_names[dir]);
}

void fz_path(char *buf, size_t size, int path)
{
	int dir = fz_path_dir(path);

	snprintf(buf, size, "%s/%s%sfz%d", MSHARE_DIR, dir_names[dir],
		 dir ? "/" : "", path % FZ_NAMES);
}

const char *fz_path_short(int path)
{
	static char buf[FZ_DIRS][FZ_NAMES][FZ_NAME_MAX];
	int dir = fz_path_dir(path);
	char *b = buf[dir][path % FZ_NAMES];

	if (!b[0])
		snprintf(b, FZ_NAME_MAX, "%s%sfz%d", dir_names[dir],
			 dir ? "/" : "", path % FZ_NAMES);
	return b;
}

int fz_model_live_procs(const struct fz_model *m)
{
	int i, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		n += m->proc[i].live;
	return n;
}

int fz_model_live_regions(const struct fz_model *m)
{
	int i, n = 0;

	for (i = 0; i < FZ_MAX_REGIONS; i++)
		n += m->region[i].live;
	return n;
}

int fz_model_free_proc(const struct fz_model *m)
{
	int i;

	for (i = 0; i < FZ_MAX_PROCS; i++)
		if (!m->proc[i].live)
			return i;
	return -1;
}

/*
 * Sample word i lies in the i-th sixteenth of the unit (64 MiB on UML), in
 * one of the first 32 PTE pages of it, at a page and word of its own: 16
 * page tables, 16 pages.
 */
static void pick_offsets(struct fz_region *r, uint64_t *rng)
{
	unsigned int i;

	for (i = 0; i < FZ_SAMPLES; i++)
		r->offs[i] = i * (mshare_unit() / FZ_SAMPLES) +
			     fz_below(rng, 32) * PT_SPAN +
			     fz_below(rng, PT_SPAN / PAGE) * PAGE +
			     fz_below(rng, FZ_SAMPLE_WORDS) * sizeof(long);
}

int fz_model_new_region(struct fz_model *m, int path, uint64_t *rng)
{
	struct fz_region *r;
	int i;

	for (i = 0; i < FZ_MAX_REGIONS; i++)
		if (!m->region[i].live)
			break;
	if (i == FZ_MAX_REGIONS)
		return -1;
	r = &m->region[i];
	memset(r, 0, sizeof(*r));
	r->live = true;
	r->id = m->next_region_id++;
	r->seq = m->next_seq++;
	snprintf(r->name, sizeof(r->name), "fz%d", path % FZ_NAMES);
	r->nlink = 1;
	r->slot = -1;
	pick_offsets(r, rng);
	m->path_region[path] = i;
	return i;
}

int fz_model_vmas(const struct fz_model *m, int region)
{
	int i, s, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		if (!m->proc[i].live)
			continue;
		for (s = 0; s < FZ_SLOTS; s++)
			n += m->proc[i].slot[s].kind == FZ_REGION &&
			     m->proc[i].slot[s].region == region;
	}
	return n;
}

int fz_model_fds(const struct fz_model *m, int region)
{
	int i, f, n = 0;

	for (i = 0; i < FZ_MAX_PROCS; i++) {
		if (!m->proc[i].live)
			continue;
		for (f = 0; f < FZ_FDS; f++)
			n += m->proc[i].fd[f].open &&
			     m->proc[i].fd[f].region == region;
	}
	return n;
}

bool fz_model_dir_empty(const struct fz_model *m, int dir)
{
	int n;

	for (n = 0; n < FZ_NAMES; n++)
		if (m->path_region[dir * FZ_NAMES + n] >= 0)
			return false;
	return true;
}

void fz_model_collect(struct fz_model *m)
{
	struct fz_region *r;
	int i;

	for (i = 0; i < FZ_MAX_REGIONS; i++) {
		r = &m->region[i];
		if (r->live && !r->nlink && !fz_model_fds(m, i) &&
		    !fz_model_vmas(m, i))
			r->live = false;
	}
}

void fz_model_set_slot_empty(struct fz_proc *p, int slot)
{
	memset(&p->slot[slot], 0, sizeof(p->slot[slot]));
	p->slot[slot].kind = FZ_EMPTY;
}

/* What debugfs says of a region; only the fields the model predicts. */
struct dbg_line {
	char name[FZ_NAME_MAX];
	unsigned long start;
	unsigned long size;
	unsigned int refcount;
	int deleted;
};

/* The fz* lines of the debugfs list, in its order; count or -1. */
static int read_dbg(struct dbg_line *lines, int max)
{
	static char text[DBG_TEXT_MAX];
	const char *line;
	int n = 0;

	if (harness_read_file(MSHARE_REGIONS, text, sizeof(text)) < 0)
		return -1;
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		if (!strncmp(line, "name=fz", 7)) {
			if (n == max)
				return -1;
			if (sscanf(line,
				   "name=%15s start=%lx size=%lx refcount=%u deleted=%d",
				   lines[n].name, &lines[n].start,
				   &lines[n].size, &lines[n].refcount,
				   &lines[n].deleted) != 5)
				return -1;
			n++;
		}
		if (!strchr(line, '\n'))
			break;
	}
	return n;
}

/* The lines the model predicts, in creation order. */
static int model_dbg(const struct fz_model *m, struct dbg_line *lines,
		     int *ids)
{
	const struct fz_region *r, *best;
	unsigned long after = 0;
	int i, n = 0;
	bool first = true;

	for (;;) {
		best = NULL;
		for (i = 0; i < FZ_MAX_REGIONS; i++) {
			r = &m->region[i];
			if (r->live && (first || r->seq > after) &&
			    (!best || r->seq < best->seq))
				best = r;
		}
		if (!best)
			return n;
		first = false;
		after = best->seq;
		i = best - m->region;
		snprintf(lines[n].name, sizeof(lines[n].name), "%s",
			 best->name);
		lines[n].start = best->slot < 0 ? 0 : FZ_ADDR(best->slot);
		lines[n].size = best->slot < 0 ? 0 : mshare_unit();
		lines[n].refcount = 1 + fz_model_vmas(m, i);
		lines[n].deleted = !best->nlink;
		ids[n++] = best->id;
	}
}

static bool same_line(const struct dbg_line *a, const struct dbg_line *b)
{
	return !strcmp(a->name, b->name) && a->start == b->start &&
	       a->size == b->size && a->refcount == b->refcount &&
	       a->deleted == b->deleted;
}

static int print_line(char *buf, size_t size, const struct dbg_line *l)
{
	return snprintf(buf, size, "%s start=%#lx refcount=%u deleted=%d",
			l->name, l->start, l->refcount, l->deleted);
}

/* The first difference, with the region's id. */
static void describe(char *why, size_t size, const struct dbg_line *want,
		     const int *ids, int nwant, const struct dbg_line *got,
		     int ngot)
{
	int i, len;

	for (i = 0; i < nwant && i < ngot; i++)
		if (!same_line(&want[i], &got[i]))
			break;
	if (i == nwant && i == ngot) {
		snprintf(why, size, "debugfs matches");
		return;
	}
	len = snprintf(why, size, "debugfs line %d of %d fz* lines (model: %d): want ",
		       i + 1, ngot, nwant);
	if (i < nwant) {
		len += snprintf(why + len, size - len, "R%d ", ids[i]);
		len += print_line(why + len, size - len, &want[i]);
	} else {
		len += snprintf(why + len, size - len, "no more regions");
	}
	len += snprintf(why + len, size - len, ", got ");
	if (i < ngot)
		print_line(why + len, size - len, &got[i]);
	else
		snprintf(why + len, size - len, "no more lines");
}

bool fz_model_check_debugfs(const struct fz_model *m, char *why,
			    size_t size)
{
	static struct dbg_line want[FZ_MAX_REGIONS], got[FZ_MAX_REGIONS + 8];
	int ids[FZ_MAX_REGIONS];
	int nwant, ngot = -1, i, poll;

	nwant = model_dbg(m, want, ids);
	for (poll = 0; poll < DBG_POLLS; poll++) {
		ngot = read_dbg(got, FZ_MAX_REGIONS + 8);
		if (ngot == nwant) {
			for (i = 0; i < ngot; i++)
				if (!same_line(&want[i], &got[i]))
					break;
			if (i == ngot)
				return true;
		}
		usleep(DBG_POLL_US);
	}
	if (ngot < 0) {
		snprintf(why, size, "cannot read or parse %s", MSHARE_REGIONS);
		return false;
	}
	describe(why, size, want, ids, nwant, got, ngot);
	return false;
}
