/*
 * index_ilv.c — secondary indexes on interleaved child tables
 * (docs/entity-groups.md, docs/indexes.md). A child's rows live under
 * qualifier prefixes of its root's kv rows, so the index/ protocols that
 * walk data kv rows (backfill, checker) cannot see them; this file walks a
 * child's rows instead — each row's cells presented as a plain row
 * (sql_ilv_plain_cells) to the same row model — for the build of a child
 * index (the table held exclusively: no concurrent writer to catch up
 * with) and for strata_verify_index().
 */
#include <stdlib.h>
#include <string.h>

#include "sql_index.h"
#include "sql_int.h"

/* Calls fn for every row of child table r at ts, with the row's own
 * cells in plain form; fn returns false to stop. */
typedef bool (*row_fn)(void *arg, kv_row *row);

static kv_status each_row(kv_table *data, const cat_rel *r, kv_ts ts, row_fn fn, void *arg)
{
	uint16_t tag = (uint16_t)r->ilv_path[1];
	uint8_t pre[3] = {SQL_ILV_SEP, (uint8_t)(tag >> 8), (uint8_t)tag};
	kv_filter *f = kv_filter_column_prefix(pre, sizeof pre);
	kv_column fam = {SQL_ILV_FAMILY, NULL, 0};
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = ts;
	so.read.columns = &fam;
	so.read.ncolumns = 1;
	so.read.filter = f;
	so.read.no_cache = true;
	kv_iter *it = kv_scan(data, &so);
	util_arena *a = util_arena_new(16 * 1024, 0);
	util_buf key = UTIL_BUF_INIT; /* the current row's key: kv row ++ prefix */
	kv_cell *cells = NULL;
	size_t n = 0, cap = 0, rowlen = 0, plen = 0;
	kv_status st = kv_iter_status(it);
	bool go = true;
	for (; go && st == KV_OK; kv_iter_next(it)) {
		bool valid = kv_iter_valid(it);
		const kv_cell *c = valid ? kv_iter_cell(it) : NULL;
		size_t p = c ? sql_ilv_row_prefix(r, c->qualifier.data, c->qualifier.len) : 0;
		if (c && !p)
			continue; /* a deeper table's or another child's cell */
		bool same = c && n && c->row.len == rowlen && !memcmp(c->row.data, key.data, rowlen) &&
			    p == plen && !memcmp(c->qualifier.data, key.data + rowlen, plen);
		if (n && !same) {
			uint8_t *k = util_arena_memdup_nz(a, key.data, key.len);
			kv_row row = {cells, n};
			sql_ilv_plain_cells(k, key.len, plen, &row);
			if (row.n)
				go = fn(arg, &row);
			n = 0;
			util_arena_reset(a);
		}
		if (!c)
			break;
		if (!n) {
			util_buf_reset(&key);
			util_buf_append(&key, c->row.data, c->row.len);
			util_buf_append(&key, c->qualifier.data, p);
			rowlen = c->row.len;
			plen = p;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			cells = util_xrealloc(cells, sizeof *cells * cap);
		}
		kv_cell *d = &cells[n++];
		*d = *c;
		d->qualifier.data = util_arena_memdup_nz(a, c->qualifier.data, c->qualifier.len);
		d->value.data = util_arena_memdup_nz(a, c->value.data, c->value.len);
		st = kv_iter_status(it);
	}
	if (st == KV_OK)
		st = kv_iter_status(it);
	kv_iter_close(it);
	kv_filter_free(f);
	free(cells);
	util_buf_free(&key);
	util_arena_destroy(a);
	return st;
}

/* ---------------------------------------------------------------- build */

typedef struct bf_entry {
	size_t key_off, key_len, val_off, val_len, dkey_off, dkey_len, values_len;
	kv_ts ts;
	bool unique;
} bf_entry;

typedef struct bf_ctx {
	const idx_def *d;
	const idx_rowmodel *m;
	util_buf bytes;
	bf_entry *e;
	size_t n, cap;
	uint64_t rows;
	util_buf key, val;
} bf_ctx;

static size_t put(bf_ctx *b, const void *p, size_t n)
{
	size_t off = b->bytes.len;
	util_buf_append(&b->bytes, p, n);
	return off;
}

static bool collect(void *arg, kv_row *row)
{
	bf_ctx *b = arg;
	b->rows++;
	util_buf_reset(&b->key);
	util_buf_reset(&b->val);
	kv_ts rts = 0;
	if (!b->m->entry(b->m->arg, row->cells, row->n, &b->key, &b->val, &rts))
		return true;
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		b->e = util_xrealloc(b->e, sizeof *b->e * b->cap);
	}
	bf_entry *e = &b->e[b->n++];
	const kv_slice dk = row->cells[0].row;
	e->key_len = b->key.len;
	e->key_off = put(b, b->key.data, b->key.len);
	e->val_len = b->val.len;
	e->val_off = put(b, b->val.data, b->val.len);
	e->dkey_len = dk.len;
	e->dkey_off = put(b, dk.data, dk.len);
	e->values_len = b->key.len >= dk.len ? b->key.len - dk.len : 0;
	e->ts = rts;
	e->unique =
	    b->d->unique && (b->d->nulls_not_distinct ||
			     !idx_values_have_null(b->d, (const uint8_t *)b->key.data, e->values_len));
	return true;
}

static int cmp_entries(const void *x, const void *y, void *arg)
{
	const uint8_t *base = arg;
	const bf_entry *a = x, *b = y;
	return kv_slice_cmp((kv_slice){base + a->key_off, a->key_len},
			    (kv_slice){base + b->key_off, b->key_len});
}

kv_status sql_ilv_index_backfill(kv_table *data, const cat_rel *r, const idx_def *d, const idx_rowmodel *m,
				 uint64_t *rows, util_err *err)
{
	bf_ctx b;
	memset(&b, 0, sizeof b);
	b.d = d;
	b.m = m;
	kv_store *s = kv_table_store(data);
	kv_status st = each_row(data, r, kv_read_point(s), collect, &b);
	kv_batch *batch = kv_batch_new();
	util_buf gv = UTIL_BUF_INIT;
	const uint8_t *base = (const uint8_t *)b.bytes.data;
	if (st != KV_OK)
		goto out;
	/* In key order: duplicates of a unique index become neighbours. */
	if (b.n > 1)
		qsort_r(b.e, b.n, sizeof *b.e, cmp_entries, (void *)base);
	for (size_t i = 1; d->unique && i < b.n; i++) {
		const bf_entry *x = &b.e[i - 1], *y = &b.e[i];
		if (x->unique && y->unique && x->values_len == y->values_len &&
		    !memcmp(base + x->key_off, base + y->key_off, x->values_len)) {
			util_buf t = UTIL_BUF_INIT;
			if (m->describe)
				m->describe(m->arg, base + x->key_off, x->values_len, &t);
			util_err_detail(err, "Key %s is duplicated.", t.data ? t.data : "(?)");
			util_buf_free(&t);
			st = KV_CHECK_FAILED;
			goto out;
		}
	}
	kv_write_opts wo;
	memset(&wo, 0, sizeof wo);
	wo.no_sync = true; /* the commit publishing the index syncs the log */
	for (size_t i = 0; i < b.n; i++) {
		const bf_entry *e = &b.e[i];
		uint8_t *v = (uint8_t *)b.bytes.data + e->val_off;
		/* Right: nobody writes the table while its build runs. */
		v[0] |= IDX_F_VERIFIED;
		kv_batch_put(batch, d->kv, base + e->key_off, e->key_len, IDX_FAMILY, "", 0, e->ts, v,
			     e->val_len);
		if (e->unique) {
			util_buf_reset(&gv);
			idx_make_guard_value(base + e->dkey_off, e->dkey_len, &gv);
			kv_batch_put(batch, d->kv, base + e->key_off, e->values_len, IDX_FAMILY, "", 0, e->ts,
				     gv.data, gv.len);
		}
		if (kv_batch_count(batch) >= 20000 || i + 1 == b.n) {
			st = kv_commit(s, batch, &wo, NULL);
			kv_batch_clear(batch);
			if (st != KV_OK)
				goto out;
		}
	}
out:
	if (rows)
		*rows = b.rows;
	kv_batch_free(batch);
	util_buf_free(&gv);
	util_buf_free(&b.bytes);
	util_buf_free(&b.key);
	util_buf_free(&b.val);
	free(b.e);
	return st;
}

/* ---------------------------------------------------------------- checker */

typedef struct ck_ctx {
	const idx_def *d;
	const idx_rowmodel *m;
	kv_ts ts;
	idx_check_report *r;
	idx_check_fn fn;
	void *arg;
	util_buf key, val;
	util_arena *ga;
	kv_status st;
} ck_ctx;

static bool check_row(void *arg, kv_row *row)
{
	ck_ctx *c = arg;
	util_buf_reset(&c->key);
	util_buf_reset(&c->val);
	kv_ts rts = 0;
	if (!c->m->entry(c->m->arg, row->cells, row->n, &c->key, &c->val, &rts))
		return true;
	c->r->rows++;
	kv_slice dk = row->cells[0].row;
	util_arena_reset(c->ga);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = c->ts;
	kv_row er;
	kv_status gs = kv_get(c->d->kv, c->key.data, c->key.len, &ro, c->ga, &er);
	if (gs != KV_OK && gs != KV_NOT_FOUND) {
		c->st = gs;
		return false;
	}
	kv_slice ek = {(const uint8_t *)c->key.data, c->key.len};
	idx_check_problem p = {IDX_MISSING, ek, dk, NULL, 0, rts, false};
	idx_problem k = IDX_MISSING;
	if (gs == KV_NOT_FOUND || er.n == 0)
		c->r->missing++;
	else
		k = idx_check_entry(c->d, &er.cells[0], dk,
				    (kv_slice){(const uint8_t *)c->val.data, c->val.len}, rts, &p);
	c->r->mismatched += k == IDX_MISMATCH;
	c->r->stale += k == IDX_STALE_ENTRY;
	if (k && c->fn)
		c->fn(c->arg, &p);
	return true;
}

kv_status sql_ilv_index_check(kv_table *data, const cat_rel *r, const idx_def *d, const idx_rowmodel *m,
			      kv_ts ts, idx_check_report *rep, idx_check_fn fn, void *arg)
{
	memset(rep, 0, sizeof *rep);
	if (!ts)
		ts = kv_read_point(kv_table_store(data));
	ck_ctx c;
	memset(&c, 0, sizeof c);
	c.d = d;
	c.m = m;
	c.ts = ts;
	c.r = rep;
	c.fn = fn;
	c.arg = arg;
	c.ga = util_arena_new(4096, 0);
	/* 1: rows -> their entries. */
	kv_status st = each_row(data, r, ts, check_row, &c);
	if (st == KV_OK)
		st = c.st;
	/* 2: entries -> their rows. */
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = ts;
	so.read.no_cache = true;
	kv_iter *it = st == KV_OK ? kv_scan(d->kv, &so) : NULL;
	if (it)
		st = kv_iter_status(it);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = ts;
	for (; it && st == KV_OK && kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *cell = kv_iter_cell(it);
		idx_entry e;
		util_arena_reset(c.ga);
		util_arena *old = ty_set_arena(c.ga);
		bool ok = idx_entry_parse(d, cell, &e);
		ty_set_arena(old);
		if (ok && e.guard)
			continue;
		rep->entries++;
		if (!ok) {
			rep->stale++;
			idx_check_problem p = {IDX_STALE_ENTRY, cell->row, {NULL, 0}, "malformed entry",
					       cell->ts,        0,         false};
			if (fn)
				fn(arg, &p);
			continue;
		}
		kv_row dr;
		kv_status gs = sql_row_get_plain(data, r, e.pk.data, e.pk.len, &ro, c.ga, &dr);
		if (gs != KV_OK && gs != KV_NOT_FOUND) {
			st = gs;
			break;
		}
		util_buf_reset(&c.key);
		util_buf_reset(&c.val);
		kv_ts rts = 0;
		bool has = gs == KV_OK && dr.n && m->entry(m->arg, dr.cells, dr.n, &c.key, &c.val, &rts);
		if (idx_judge(&e, has, c.key.data, c.key.len, rts) == IDX_STALE) {
			rep->stale++;
			idx_check_problem p = {IDX_STALE_ENTRY,
					       cell->row,
					       e.pk,
					       has ? "the row yields another key" : "no row yields it",
					       e.ts,
					       has ? rts : 0,
					       (e.flags & IDX_F_VERIFIED) != 0};
			if (fn)
				fn(arg, &p);
		}
		st = kv_iter_status(it);
	}
	if (it) {
		if (st == KV_OK)
			st = kv_iter_status(it);
		kv_iter_close(it);
	}
	util_arena_destroy(c.ga);
	util_buf_free(&c.key);
	util_buf_free(&c.val);
	return st;
}
