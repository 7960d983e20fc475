/*
 * check.c — the index checker behind strata_verify_index(): at one
 * snapshot, every data row's expected entry is looked up in the index
 * (missing / mismatched: other timestamp or value, idx_check_entry), then
 * every entry of the index is judged against its data row (stale). Entries
 * newer than their row with the right key and value are fine (see judge.c).
 */
#include <stdlib.h>
#include <string.h>

#include "idx.h"

typedef struct rowbuf {
	kv_cell *cells;
	size_t n, cap;
	util_arena *a;
} rowbuf;

static void rb_add(rowbuf *r, const kv_cell *x, kv_slice row)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->cells = util_xrealloc(r->cells, sizeof *r->cells * r->cap);
	}
	kv_cell *d = &r->cells[r->n++];
	*d = *x;
	d->row = row;
	d->family.data = util_arena_memdup_nz(r->a, x->family.data, x->family.len);
	d->qualifier.data = util_arena_memdup_nz(r->a, x->qualifier.data, x->qualifier.len);
	d->value.data = util_arena_memdup_nz(r->a, x->value.data, x->value.len);
}

idx_problem idx_check_entry(const idx_def *d, const kv_cell *c, kv_slice data_key, kv_slice val, kv_ts row_ts,
			    idx_check_problem *out)
{
	memset(out, 0, sizeof *out);
	out->entry_key = c->row;
	out->data_key = data_key;
	out->entry_ts = c->ts;
	out->row_ts = row_ts;
	idx_entry e;
	if (!idx_entry_parse(d, c, &e))
		out->why = "malformed entry";
	else if (e.guard)
		out->why = "a guard at the entry key";
	else if (e.pk.len != data_key.len || memcmp(e.pk.data, data_key.data, data_key.len) != 0)
		out->why = "another row's key";
	else if (e.ts < row_ts)
		out->why = "entry older than the row";
	out->verified = (e.flags & IDX_F_VERIFIED) != 0;
	if (out->why)
		return out->kind = IDX_MISMATCH;
	/* Flags (verified) aside. */
	if (val.len >= 1 && e.value.len == val.len &&
	    memcmp(e.value.data + 1, val.data + 1, val.len - 1) == 0)
		return 0;
	if (!out->verified && e.ts > row_ts) {
		out->why = "unverified payload newer than the row (an interrupted split commit)";
		return out->kind = IDX_STALE_ENTRY;
	}
	out->why = "another payload";
	return out->kind = IDX_MISMATCH;
}

static void report(idx_check_fn fn, void *arg, idx_problem kind, kv_slice ek, kv_slice dk, const char *why,
		   const idx_entry *e, kv_ts row_ts)
{
	if (!fn)
		return;
	idx_check_problem p = {
	    kind, ek, dk, why, e ? e->ts : 0, row_ts, e && (e->flags & IDX_F_VERIFIED) != 0};
	fn(arg, &p);
}

kv_status idx_check(kv_table *data, const idx_def *d, const idx_rowmodel *m, kv_ts read_ts,
		    idx_check_report *r, idx_check_fn fn, void *arg)
{
	memset(r, 0, sizeof *r);
	if (!read_ts)
		read_ts = kv_read_point(kv_table_store(data));
	rowbuf rb = {NULL, 0, 0, util_arena_new(16 * 1024, 0)};
	util_arena *ga = util_arena_new(4096, 0);
	util_buf key = UTIL_BUF_INIT, val = UTIL_BUF_INIT;
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = read_ts;

	/* 1: data rows -> their entries. */
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = read_ts;
	so.read.columns = m->columns;
	so.read.ncolumns = m->ncolumns;
	so.read.no_cache = true;
	kv_iter *it = kv_scan(data, &so);
	kv_status st = kv_iter_status(it);
	while (st == KV_OK && kv_iter_valid(it)) {
		rb.n = 0;
		util_arena_reset(rb.a);
		const kv_cell *first = kv_iter_cell(it);
		kv_slice row = {util_arena_memdup_nz(rb.a, first->row.data, first->row.len), first->row.len};
		while (kv_iter_valid(it) && kv_slice_cmp(kv_iter_cell(it)->row, row) == 0) {
			rb_add(&rb, kv_iter_cell(it), row);
			kv_iter_next(it);
		}
		st = kv_iter_status(it);
		util_buf_reset(&key);
		util_buf_reset(&val);
		kv_ts rts = 0;
		if (!m->entry(m->arg, rb.cells, rb.n, &key, &val, &rts))
			continue;
		r->rows++;
		util_arena_reset(ga);
		kv_row er;
		kv_status gs = kv_get(d->kv, key.data, key.len, &ro, ga, &er);
		if (gs != KV_OK && gs != KV_NOT_FOUND) {
			st = gs;
			break;
		}
		kv_slice ek = {(const uint8_t *)key.data, key.len};
		if (gs == KV_NOT_FOUND || er.n == 0) {
			r->missing++;
			report(fn, arg, IDX_MISSING, ek, row, NULL, NULL, rts);
			continue;
		}
		idx_check_problem p;
		idx_problem k = idx_check_entry(d, &er.cells[0], row,
						(kv_slice){(const uint8_t *)val.data, val.len}, rts, &p);
		r->mismatched += k == IDX_MISMATCH;
		r->stale += k == IDX_STALE_ENTRY;
		if (k && fn)
			fn(arg, &p);
	}
	kv_iter_close(it);
	if (st != KV_OK)
		goto out;

	/* 2: entries -> their rows. */
	memset(&so, 0, sizeof so);
	so.read.read_ts = read_ts;
	so.read.no_cache = true;
	it = kv_scan(d->kv, &so);
	st = kv_iter_status(it);
	kv_read_opts dro = ro;
	dro.columns = m->columns;
	dro.ncolumns = m->ncolumns;
	for (; st == KV_OK && kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		idx_entry e;
		bool ok = idx_entry_parse(d, c, &e);
		if (ok && e.guard)
			continue; /* unique guards are not entries */
		r->entries++;
		if (!ok) {
			r->stale++;
			report(fn, arg, IDX_STALE_ENTRY, c->row, (kv_slice){NULL, 0}, "malformed entry", NULL,
			       0);
			continue;
		}
		util_arena_reset(ga);
		kv_row dr;
		kv_status gs = kv_get(data, e.pk.data, e.pk.len, &dro, ga, &dr);
		if (gs != KV_OK && gs != KV_NOT_FOUND) {
			st = gs;
			break;
		}
		util_buf_reset(&key);
		util_buf_reset(&val);
		kv_ts rts = 0;
		bool has =
		    m->entry(m->arg, gs == KV_OK ? dr.cells : NULL, gs == KV_OK ? dr.n : 0, &key, &val, &rts);
		if (idx_judge(&e, has, key.data, key.len, rts) == IDX_STALE) {
			r->stale++;
			report(fn, arg, IDX_STALE_ENTRY, c->row, e.pk,
			       gs != KV_OK ? "no data row"
			       : has       ? "the row yields another key"
					   : "the row yields no entry (deleted, or outside the predicate)",
			       &e, has ? rts : 0);
		}
		st = kv_iter_status(it);
	}
	if (st == KV_OK)
		st = kv_iter_status(it);
	kv_iter_close(it);
out:
	free(rb.cells);
	util_arena_destroy(rb.a);
	util_arena_destroy(ga);
	util_buf_free(&key);
	util_buf_free(&val);
	return st;
}
