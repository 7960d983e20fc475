/*
 * point.c — kv_get's point-read path: the cells of one row from each source
 * that may hold it (memstores, then each family's files newest first, skipped
 * by row range, ingest timestamp and bloom filter), one seek per source,
 * merged in key order and run through the same visibility rules as a scan
 * (scan.c's matcher: read timestamp, duplicates, delete markers, column
 * selection, time range, TTL/min versions, max versions). No merging
 * iterator, no scan object, no per-call allocation but the sources'.
 *
 * Reads the scan path must serve (filters, raw reads, the etcd backend,
 * rows too big for the stack buffer) return false from point_get and
 * kv_get falls back to a one-row scan. point_test.c checks both paths give
 * the same cells.
 */
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "kv_int.h"
#include "mem.h"
#include "sst.h"

#define PT_BYTES 16384 /* key and value bytes of the row's cells, all versions */
#define PT_CELLS 256
#define PT_DFV   32

typedef struct pt_ent {
	uint32_t koff, klen, voff, vlen;
	uint16_t src; /* newer sources have lower numbers */
	bool trunc;   /* its source's older cells of the column were dropped */
	bool marks;   /* ... and they were the empty qualifier's, markers included */
} pt_ent;

typedef struct pt_buf {
	uint8_t bytes[PT_BYTES];
	size_t used;
	pt_ent ents[PT_CELLS];
	int n;
	int nsrc;
	bool overflow;
	uint8_t *keybuf; /* sorted files' key buffer (sst_with_iter) */
	size_t keycap;
	/* What collect() needs to drop a column's older versions: the read's
	 * timestamp, its max_ts (0: none) and how many puts a column shows. */
	kv_ts read_ts, max_ts;
	int keep;
	uint64_t steps; /* source cells looked at by the last read (tests) */
} pt_buf;

typedef struct pt_sel {
	const char *fam;
	size_t flen;
	const kv_column *cols; /* the read options' entries for this family */
	int ncols;
	bool all; /* some entry asks for every qualifier */
} pt_sel;

/* One buffer per thread (about 21 KiB), freed when the thread ends. */
static util_tls_slot buf_slot;

static void buf_free(void *p)
{
	pt_buf *b = p;
	free(b->keybuf);
	free(b);
}

/* NULL when no buffer can be kept for the thread: kv_get takes the scan
 * path then. */
static pt_buf *get_buf(void)
{
	pt_buf *b = util_tls_get(&buf_slot);
	if (!b) {
		b = calloc(1, sizeof(*b));
		if (b && !util_tls_set(&buf_slot, b, buf_free)) {
			free(b);
			b = NULL;
		}
	}
	return b;
}

static int ent_cmp(const pt_buf *b, const pt_ent *x, const pt_ent *y)
{
	int c = ikey_cmp(b->bytes + x->koff, x->klen, b->bytes + y->koff, y->klen);
	return c ? c : (int)x->src - (int)y->src;
}

/* Steps the source past the rest of the column whose key (without suffix)
 * is col[0..clen): a few steps, then a seek to the column's last possible
 * key. The seek key is built in the buffer's free space (not kept). */
static void skip_column(pt_buf *b, kv_src *s, const uint8_t *col, size_t clen)
{
	for (int i = 0; i < 4; i++) {
		src_next(s);
		if (!s->valid || s->klen != clen + IKEY_SUFFIX || memcmp(s->key, col, clen))
			return;
	}
	if (PT_BYTES - b->used >= clen + IKEY_SUFFIX) {
		uint8_t *k = b->bytes + b->used;
		memmove(k, col, clen);
		memset(k + clen, 0xff, IKEY_SUFFIX); /* ts 0, the last type */
		src_seek(s, k, clen + IKEY_SUFFIX);
	}
	while (s->valid && s->klen == clen + IKEY_SUFFIX && !memcmp(s->key, col, clen))
		src_next(s);
}

/* Appends the source's cells of the row (it is positioned on the first).
 *
 * A hot row has many versions of a column in one source (the memstore holds
 * every update until a flush); copying them all made a point read grow with
 * the updates. Versions come newest first, so once the source has given
 * b->keep puts the read could show (ts <= read_ts, under max_ts), its older
 * cells of the column are dropped and the source seeks past the column:
 * with a non-empty qualifier all of them (a delete marker there only hides
 * cells older than itself), in the empty-qualifier column too, its family
 * delete markers included. Those markers hide only cells older than the
 * last kept put; visible() gives the read to the scan path should it show
 * such a cell of the family (a packed row's updates pile up versions of
 * its sentinel alone, so their reads stay here: walking them one by one
 * made TPC-B-like updates of packed rows grow with every update). The last
 * kept put is marked; visible() also checks the column needs nothing past
 * it and otherwise gives the read to the scan path (a marker in another
 * source may hide a kept put). */
static kv_status collect(pt_buf *b, kv_src *s, const uint8_t *row, size_t rlen)
{
	int src = b->nsrc++;
	size_t first = (size_t)b->n;
	const uint8_t *col = NULL; /* the current column's key, in b->bytes */
	size_t clen = 0;
	int puts = 0;  /* puts counted in the current column */
	int last = -1; /* the entry of the last counted put */
	while (s->valid) {
		b->steps++;
		if (!ikey_valid(s->key, s->klen))
			return kv_fail(KV_CORRUPTION, "malformed key in a point read");
		if (ikey_row_cmp(s->key, row, rlen) != 0)
			break;
		bool same = col && s->klen == clen + IKEY_SUFFIX && !memcmp(s->key, col, clen);
		uint8_t type = (uint8_t)~s->key[s->klen - 1];
		if (same && puts >= b->keep) {
			b->ents[last].trunc = true;
			b->ents[last].marks =
			    s->key[2 + ikey_rowlen(s->key)] + 3 + ikey_rowlen(s->key) == clen;
			skip_column(b, s, col, clen);
			col = NULL;
			continue;
		}
		if (b->n == PT_CELLS || PT_BYTES - b->used < s->klen + s->vlen) {
			b->overflow = true;
			return KV_OK;
		}
		pt_ent *e = &b->ents[b->n++];
		e->koff = (uint32_t)b->used;
		e->klen = (uint32_t)s->klen;
		memcpy(b->bytes + b->used, s->key, s->klen);
		if (!same) {
			col = b->bytes + b->used;
			clen = s->klen - IKEY_SUFFIX;
			puts = 0;
		}
		b->used += s->klen;
		e->voff = (uint32_t)b->used;
		e->vlen = (uint32_t)s->vlen;
		if (s->vlen)
			memcpy(b->bytes + b->used, s->val, s->vlen);
		b->used += s->vlen;
		e->src = (uint16_t)src;
		e->trunc = e->marks = false;
		if (type == KV_PUT) {
			kv_ts ts = ikey_ts(s->key, s->klen);
			if (ts <= b->read_ts && (!b->max_ts || ts < b->max_ts)) {
				puts++;
				last = b->n - 1;
			}
		}
		src_next(s);
	}
	if (s->status)
		return s->status;
	/* Insert this source's (sorted) run into the sorted entries before it:
	 * rows have few cells, so insertion is cheapest. The first source's
	 * run is the whole, already sorted. */
	for (size_t i = first ? first : (size_t)b->n; i < (size_t)b->n; i++) {
		pt_ent e = b->ents[i];
		size_t j = i;
		while (j > 0 && ent_cmp(b, &b->ents[j - 1], &e) > 0) {
			b->ents[j] = b->ents[j - 1];
			j--;
		}
		b->ents[j] = e;
	}
	return KV_OK;
}

static kv_status read_src(pt_buf *b, kv_src *s, const uint8_t *seek, size_t seeklen, const uint8_t *row,
			  size_t rlen)
{
	if (!s)
		return kv_fail(KV_NO_MEMORY, "out of memory in a point read");
	src_seek(s, seek, seeklen);
	kv_status st = collect(b, s, row, rlen);
	src_close(s);
	return st;
}

typedef struct pt_row {
	pt_buf *b;
	const uint8_t *row;
	size_t rlen;
} pt_row;

static kv_status collect_cb(void *arg, kv_src *s)
{
	pt_row *r = arg;
	if (s->status)
		return s->status;
	return collect(r->b, s, r->row, r->rlen);
}

static const pt_sel *find_sel(const pt_sel *sel, int nsel, const uint8_t *fam, size_t flen)
{
	for (int i = 0; i < nsel; i++)
		if (sel[i].flen == flen && !memcmp(sel[i].fam, fam, flen))
			return &sel[i];
	return NULL;
}

static bool qual_selected(const pt_sel *s, const uint8_t *q, size_t ql)
{
	if (s->all)
		return true;
	for (int i = 0; i < s->ncols; i++)
		if (s->cols[i].qlen == ql && (!ql || !memcmp(s->cols[i].qualifier, q, ql)))
			return true;
	return false;
}

/* The visible cells among the merged entries, copied into arena. The rules
 * and their order are scan.c's match()/enter_column() for a read without a
 * filter; seeks there are skips here (the entries are all in memory). */
static kv_status visible(const pt_buf *b, const kv_sv *sv, const kv_read_opts *ro, const pt_sel *sel,
			 int nsel, kv_ts read_ts, util_arena *arena, kv_row *out)
{
	int max_versions = ro->max_versions > 0 ? ro->max_versions : 1;
	int64_t now_us = 0; /* read once a family with a TTL needs it */
	const uint8_t *fam = NULL;
	size_t flen = 0;
	bool fam_skip = false;
	const kv_family_opts *fo = NULL;
	const pt_sel *fsel = NULL;
	bool has_df = false;
	kv_ts df_ts = 0;
	kv_ts dfv[PT_DFV];
	int ndfv = 0;
	kv_ts marks_ts = 0; /* the family's markers older than this were dropped */
	const uint8_t *colkey = NULL;
	size_t collen = 0;
	bool col_done = false, col_selected = true, has_dc = false, has_del = false, have_last = false;
	kv_ts dc_ts = 0, del_ts = 0, last_ts = 0;
	uint8_t last_type = 0;
	int versions = 0;
	size_t cap = 0;
	bool pend = false; /* the entry before was a source's last kept put */

	for (int i = 0; i <= b->n; i++) {
		/* Past a source's last kept put of a column, the column must be
		 * complete: its dropped older cells would have shown otherwise. */
		if (pend && !col_done &&
		    versions < (max_versions < fo->max_versions ? max_versions : fo->max_versions))
			return KV_BUSY;
		pend = false;
		if (i == b->n)
			break;
		const pt_ent *e = &b->ents[i];
		const uint8_t *k = b->bytes + e->koff;
		ikey_parts p;
		ikey_split(k, e->klen, &p);
		bool same_col = colkey && collen + IKEY_SUFFIX == e->klen && !memcmp(colkey, k, collen);
		if (!same_col) {
			bool fam_changed = !fam || flen != p.flen || memcmp(fam, p.fam, p.flen);
			if (fam_changed) {
				fam = p.fam;
				flen = p.flen;
				has_df = false;
				ndfv = 0;
				marks_ts = 0;
				fo = sv_family(sv, p.fam, p.flen);
				fsel = NULL;
				fam_skip = !fo || (nsel && !(fsel = find_sel(sel, nsel, p.fam, p.flen)));
			}
			if (fam_skip)
				continue; /* the rest of the family */
			colkey = k;
			collen = e->klen - IKEY_SUFFIX;
			col_done = false;
			has_dc = has_del = have_last = false;
			versions = 0;
			col_selected = !fsel || qual_selected(fsel, p.qual, p.qlen);
			/* A column not selected is skipped, except the empty
			 * qualifier's, whose family markers are read. */
			if (!col_selected && p.qlen)
				col_done = true;
		} else if (fam_skip) {
			continue;
		}
		pend = e->trunc;
		if (e->marks && p.ts > marks_ts)
			marks_ts = p.ts;
		if (col_done && (p.qlen || p.type == KV_PUT))
			continue;
		/* match() */
		if (p.ts > read_ts)
			continue;
		if (have_last && p.ts == last_ts && p.type == last_type)
			continue; /* an older copy of the same cell */
		have_last = true;
		last_ts = p.ts;
		last_type = p.type;
		bool next_col = false;
		switch (p.type) {
		case KV_DELETE_FAMILY:
			if (!has_df) {
				has_df = true;
				df_ts = p.ts;
			}
			continue;
		case KV_DELETE_FAMILY_VERSION:
			if (ndfv == PT_DFV)
				return KV_BUSY; /* too many: let the scan path answer */
			dfv[ndfv++] = p.ts;
			continue;
		case KV_DELETE_COLUMN:
			if (!has_dc) {
				has_dc = true;
				dc_ts = p.ts;
			}
			continue;
		case KV_DELETE:
			has_del = true;
			del_ts = p.ts;
			continue;
		case KV_PUT:
			break;
		default:
			continue;
		}
		if (!col_selected)
			next_col = p.qlen != 0;
		else if ((has_df && p.ts <= df_ts) || (has_dc && p.ts <= dc_ts))
			next_col = true;
		else if (has_del && del_ts == p.ts)
			continue;
		else {
			bool dv = false;
			for (int j = 0; j < ndfv && !dv; j++)
				dv = dfv[j] == p.ts;
			if (dv || (ro->max_ts && p.ts >= ro->max_ts))
				continue;
			if (p.ts < ro->min_ts)
				next_col = true;
			else if (fo->ttl_seconds > 0 &&
				 (int64_t)p.ts < (now_us ? now_us : (now_us = util_now_us())) -
						     fo->ttl_seconds * 1000000 &&
				 versions >= fo->min_versions)
				next_col = true;
			else if (versions >= max_versions || versions >= fo->max_versions)
				next_col = true;
		}
		if (next_col) {
			col_done = true;
			continue;
		}
		if (!col_selected)
			continue;
		if (p.ts < marks_ts)
			return KV_BUSY; /* a dropped family marker may hide it */
		versions++;
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			kv_cell *nc = util_arena_alloc(arena, ncap * sizeof(kv_cell));
			if (!nc)
				return kv_fail(KV_NO_MEMORY, "kv_get: arena budget exceeded");
			if (out->n)
				memcpy(nc, out->cells, out->n * sizeof(kv_cell));
			out->cells = nc;
			cap = ncap;
		}
		kv_cell *d = &out->cells[out->n];
		d->row.len = p.rlen;
		d->family.len = p.flen;
		d->qualifier.len = p.qlen;
		d->value.len = e->vlen;
		d->ts = p.ts;
		d->type = p.type;
		/* One copy of the key's bytes serves row, family and qualifier;
		 * the value follows it in the same allocation. */
		uint8_t *kc = util_arena_alloc(arena, e->klen + e->vlen + 1);
		if (!kc)
			return kv_fail(KV_NO_MEMORY, "kv_get: arena budget exceeded");
		memcpy(kc, k, e->klen);
		if (e->vlen)
			memcpy(kc + e->klen, b->bytes + e->voff, e->vlen);
		kc[e->klen + e->vlen] = 0;
		d->value.data = kc + e->klen;
		d->row.data = kc + (p.row - k);
		d->family.data = kc + (p.fam - k);
		d->qualifier.data = kc + (p.qual - k);
		out->n++;
	}
	return KV_OK;
}

uint64_t point_last_steps(void)
{
	pt_buf *b = util_tls_get(&buf_slot);
	return b ? b->steps : 0;
}

bool point_get(kv_table *t, const void *row, size_t rlen, const kv_read_opts *ro, util_arena *arena,
	       kv_row *out, kv_status *status)
{
	static const kv_read_opts none;
	if (!ro)
		ro = &none;
	if (ro->filter || ro->raw || t->s->etcd || rlen > IKEY_ROW_MAX || ro->ncolumns > 16)
		return false;
	if (atomic_load(&t->dropped))
		return false; /* the scan reports it */
	pt_sel sel[16];
	int nsel = 0;
	for (int i = 0; i < (ro->columns ? ro->ncolumns : 0); i++) {
		const kv_column *c = &ro->columns[i];
		if (!c->family || strlen(c->family) > IKEY_FAM_MAX)
			return false; /* the scan reports it */
		pt_sel *s = (pt_sel *)find_sel(sel, nsel, (const uint8_t *)c->family, strlen(c->family));
		if (!s) {
			s = &sel[nsel++];
			*s = (pt_sel){.fam = c->family, .flen = strlen(c->family), .cols = c};
		}
		if (!c->qualifier)
			s->all = true;
		else if (s->cols + s->ncols != c)
			return false; /* a family's qualifiers not listed together */
		s->ncols = (int)(c - s->cols) + 1;
	}

	kv_ts rp = (kv_ts)atomic_load(&t->s->read_point);
	kv_ts read_ts = (ro->read_ts == 0 || ro->read_ts == KV_TS_MAX) ? rp : ro->read_ts;
	if (read_ts > rp)
		read_ts = rp;

	pt_buf *b = get_buf();
	if (!b)
		return false;
	b->used = 0;
	b->n = 0;
	b->nsrc = 0;
	b->overflow = false;
	b->steps = 0;
	b->read_ts = read_ts;
	b->max_ts = ro->max_ts;
	b->keep = ro->max_versions > 0 ? ro->max_versions : 1;
	uint8_t seek[IKEY_ROW_MAX + 2 + 3 + IKEY_SUFFIX];
	size_t seeklen = ikey_row_first(seek, row, rlen);

	svl_ref svr;
	kv_sv *sv = svl_get(t, &svr);
	kv_status st = KV_OK;
	if (mem_count(sv->mem) && mem_may_have_row(sv->mem, row, rlen))
		st = read_src(b, mem_iter_new(sv->mem, rp), seek, seeklen, row, rlen);
	for (int i = 0; i < sv->nimm && !st && !b->overflow; i++)
		if (mem_count(sv->imm[i]) && mem_may_have_row(sv->imm[i], row, rlen))
			st = read_src(b, mem_iter_new(sv->imm[i], rp), seek, seeklen, row, rlen);
	for (int i = 0; i < sv->v->nfam && !st && !b->overflow; i++) {
		kv_fileset *fs = &sv->v->fams[i];
		if ((nsel && !find_sel(sel, nsel, (const uint8_t *)fs->family, strlen(fs->family))) ||
		    !sv_family(sv, (const uint8_t *)fs->family, strlen(fs->family)))
			continue;
		for (int j = 0; j < fs->n && !st && !b->overflow; j++) {
			kv_sfile *f = fs->files[j];
			if (f->m.max_ts < ro->min_ts || f->ingest_ts > rp ||
			    ikey_row_cmp(f->m.largest, row, rlen) < 0 ||
			    ikey_row_cmp(f->m.smallest, row, rlen) > 0)
				continue;
			sst_reader *r;
			bool unref;
			if ((st = svl_reader(&svr, f, &r, &unref)))
				break;
			if (sst_may_have_row(r, row, rlen)) {
				pt_row pr = {b, row, rlen};
				st = sst_with_iter(r, !ro->no_cache, seek, seeklen, &b->keybuf, &b->keycap,
						   collect_cb, &pr);
			}
			if (unref)
				sst_unref(r);
		}
	}
	if (!st && b->overflow) {
		svl_put(&svr);
		return false;
	}
	if (!st) {
		st = visible(b, sv, ro, sel, nsel, read_ts, arena, out);
		if (st == KV_BUSY) { /* too many markers, or a dropped version needed */
			svl_put(&svr);
			out->cells = NULL;
			out->n = 0;
			return false;
		}
	}
	svl_put(&svr);
	if (st) {
		out->cells = NULL;
		out->n = 0;
	}
	*status = st;
	return true;
}
