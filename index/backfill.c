/*
 * backfill.c — copies the entries of existing rows into a new index while
 * writers already maintain it (write-only state). Chunks of rows are read
 * at a fresh snapshot S and their entries written at each row's own
 * timestamp with kv_commit_if(S) on the chunk's data rows: a row changed
 * after S makes the chunk retry, so entries come out verified. A writer's
 * newer entry shadows a backfilled one, a writer's removal (a delete marker
 * at a newer timestamp) hides it, so the order of the two does not matter.
 * Rerunning a chunk writes the same cells: the backfill is idempotent and
 * resumes from the last data key it reported. Builds that writers do not
 * maintain yet (caught_up_later) of non-unique indexes go to bulk.c.
 */
#include <stdlib.h>
#include <string.h>

#include "idx_int.h"

#define DEFAULT_CHUNK 2000
#define MAX_TRIES     3

typedef struct bf_entry {
	size_t key_off, key_len; /* in chunk.bytes */
	size_t values_len;       /* the encoded values at the key's start */
	bool unique;             /* takes part in uniqueness (has a guard) */
	size_t val_off, val_len;
	size_t dkey_off, dkey_len; /* data row key */
	kv_ts ts;
} bf_entry;

typedef struct chunk {
	util_buf bytes;
	bf_entry *e;
	size_t n, cap;
	uint64_t rows;       /* data rows read (with or without entry) */
	util_buf last;       /* last data key read */
	const uint8_t *base; /* bytes.data once the chunk is complete */
} chunk;

static void chunk_reset(chunk *c)
{
	util_buf_reset(&c->bytes);
	util_buf_reset(&c->last);
	c->n = 0;
	c->rows = 0;
}

static size_t put_bytes(chunk *c, const void *p, size_t n)
{
	size_t off = c->bytes.len;
	util_buf_append(&c->bytes, p, n);
	return off;
}

/* Reads up to max rows after `after` at ts into c; false at the end. */
static kv_status read_chunk(kv_table *data, const idx_def *d, const idx_rowmodel *m, const void *after,
			    size_t after_len, kv_ts ts, uint32_t max, chunk *c)
{
	chunk_reset(c);
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = ts;
	so.read.columns = m->columns;
	so.read.ncolumns = m->ncolumns;
	so.read.no_cache = true;
	so.start = after;
	so.start_len = after_len;
	so.start_exclusive = after != NULL;
	so.limit = max;
	kv_iter *it = kv_scan(data, &so);
	kv_cell *cells = NULL;
	size_t ncells = 0, capcells = 0;
	util_arena *a = util_arena_new(16 * 1024, 0);
	util_buf key = UTIL_BUF_INIT, val = UTIL_BUF_INIT;
	kv_status st = kv_iter_status(it);
	while (st == KV_OK && kv_iter_valid(it)) {
		/* One row: copy its cells (the iterator's are valid one step). */
		ncells = 0;
		util_arena_reset(a);
		const kv_cell *first = kv_iter_cell(it);
		kv_slice row = {util_arena_memdup_nz(a, first->row.data, first->row.len), first->row.len};
		for (;;) {
			const kv_cell *x = kv_iter_cell(it);
			if (!idx_model_wants(m, x)) {
				kv_iter_next(it);
				if (!kv_iter_valid(it) || kv_slice_cmp(kv_iter_cell(it)->row, row) != 0)
					break;
				continue;
			}
			if (ncells == capcells) {
				capcells = capcells ? capcells * 2 : 16;
				cells = util_xrealloc(cells, sizeof *cells * capcells);
			}
			kv_cell *cp = &cells[ncells++];
			*cp = *x;
			cp->row = row;
			cp->family.data = util_arena_memdup_nz(a, x->family.data, x->family.len);
			cp->qualifier.data = util_arena_memdup_nz(a, x->qualifier.data, x->qualifier.len);
			cp->value.data = util_arena_memdup_nz(a, x->value.data, x->value.len);
			kv_iter_next(it);
			if (!kv_iter_valid(it) || kv_slice_cmp(kv_iter_cell(it)->row, row) != 0)
				break;
		}
		c->rows++;
		util_buf_reset(&c->last);
		util_buf_append(&c->last, row.data, row.len);
		util_buf_reset(&key);
		util_buf_reset(&val);
		kv_ts rts = 0;
		if (m->entry(m->arg, cells, ncells, &key, &val, &rts)) {
			if (c->n == c->cap) {
				c->cap = c->cap ? c->cap * 2 : 256;
				c->e = util_xrealloc(c->e, sizeof *c->e * c->cap);
			}
			bf_entry *e = &c->e[c->n++];
			e->key_len = key.len;
			e->key_off = put_bytes(c, key.data, key.len);
			e->val_len = val.len;
			e->val_off = put_bytes(c, val.data, val.len);
			e->dkey_len = row.len;
			e->dkey_off = put_bytes(c, row.data, row.len);
			e->ts = rts;
			e->values_len = key.len >= row.len ? key.len - row.len : 0;
			e->unique =
			    d->unique && (d->nulls_not_distinct ||
					  !idx_values_have_null(d, (const uint8_t *)key.data, e->values_len));
		}
		st = kv_iter_status(it);
	}
	if (st == KV_OK)
		st = kv_iter_status(it);
	kv_iter_close(it);
	free(cells);
	util_buf_free(&key);
	util_buf_free(&val);
	util_arena_destroy(a);
	c->base = (const uint8_t *)c->bytes.data;
	return st;
}

/* By entry key (values first: duplicates of a unique index become
 * neighbours). */
static int cmp_values(const void *a, const void *b, void *arg)
{
	const chunk *c = arg;
	const bf_entry *x = a, *y = b;
	kv_slice ks = {c->base + x->key_off, x->key_len}, ys = {c->base + y->key_off, y->key_len};
	return kv_slice_cmp(ks, ys);
}

static void describe(const idx_def *d, const idx_rowmodel *m, const uint8_t *key, size_t klen, util_err *err)
{
	if (!err)
		return;
	size_t *off = util_xmalloc(sizeof(size_t) * (size_t)(d->nkeys + 1));
	util_buf b = UTIL_BUF_INIT;
	if (m->describe && idx_split_values(d, key, klen, off))
		m->describe(m->arg, key, off[d->nkeys], &b);
	else
		util_buf_puts(&b, "(?)");
	util_err_detail(err, "Key %s is duplicated.", b.data);
	util_buf_free(&b);
	free(off);
}

/* A unique value may already be held (by a writer's guard for the same
 * row, by another live row, or by a stale guard). */
static kv_status check_unique(kv_table *data, const idx_def *d, const idx_rowmodel *m, const chunk *c,
			      const bf_entry *e, util_err *err)
{
	util_arena *a = util_arena_new(4096, 0);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	kv_row row;
	const uint8_t *values = c->base + e->key_off;
	kv_status st = kv_get(d->kv, values, e->values_len, &ro, a, &row);
	if (st == KV_NOT_FOUND || (st == KV_OK && row.n == 0)) {
		st = KV_OK;
		goto out;
	}
	if (st != KV_OK)
		goto out;
	idx_entry g;
	if (!idx_entry_parse(d, &row.cells[0], &g) || !g.guard ||
	    (g.pk.len == e->dkey_len && memcmp(g.pk.data, c->base + e->dkey_off, e->dkey_len) == 0))
		goto out;
	/* Another row: a duplicate if that row really has these values. */
	kv_row other;
	ro.columns = m->columns;
	ro.ncolumns = m->ncolumns;
	st = kv_get(data, g.pk.data, g.pk.len, &ro, a, &other);
	if (st != KV_OK && st != KV_NOT_FOUND)
		goto out;
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	kv_ts ots = 0;
	bool has =
	    m->entry(m->arg, st == KV_OK ? other.cells : NULL, st == KV_OK ? other.n : 0, &k, &v, &ots);
	bool dup = has && k.len >= e->values_len && memcmp(k.data, values, e->values_len) == 0 &&
		   k.len - e->values_len == g.pk.len;
	util_buf_free(&k);
	util_buf_free(&v);
	st = KV_OK;
	if (dup) {
		describe(d, m, values, e->values_len, err);
		st = KV_CHECK_FAILED;
	}
out:
	util_arena_destroy(a);
	return st;
}

kv_status idx_backfill(kv_table *data, const idx_def *d, const idx_rowmodel *m, const idx_backfill_opts *o,
		       uint64_t *rows_done, util_err *err)
{
	if (o && o->caught_up_later && !d->unique)
		return idx_bulk_build(data, d, m, o, rows_done, err);
	kv_store *s = kv_table_store(data);
	uint32_t max = o && o->chunk_rows ? o->chunk_rows : DEFAULT_CHUNK;
	util_buf after = UTIL_BUF_INIT;
	bool have_after = false;
	if (o && o->resume) {
		util_buf_append(&after, o->resume, o->resume_len);
		have_after = true;
	}
	chunk c;
	memset(&c, 0, sizeof c);
	uint64_t done = rows_done ? *rows_done : 0;
	kv_status st = KV_OK;
	kv_batch *b = kv_batch_new();
	bool later = o && o->caught_up_later; /* of a unique index (bulk.c does the others) */
	for (;;) {
		int tries = 0;
		for (;;) {
			tries++;
			kv_ts snap = kv_read_point(s);
			st = read_chunk(data, d, m, have_after ? after.data : NULL,
					have_after ? after.len : 0, snap, max, &c);
			if (st != KV_OK || c.rows == 0)
				goto done;
			kv_batch_clear(b);
			/* In key order: the store's memstore takes sorted runs faster
			 * (its skiplist walks stay in cache) and duplicates of a unique
			 * index become neighbours. */
			if (c.n > 1)
				qsort_r(c.e, c.n, sizeof *c.e, cmp_values, &c);
			if (d->unique && c.n > 1) {
				for (size_t i = 1; i < c.n; i++) {
					const bf_entry *x = &c.e[i - 1], *y = &c.e[i];
					if (x->unique && y->unique && x->values_len == y->values_len &&
					    !memcmp(c.base + x->key_off, c.base + y->key_off,
						    x->values_len)) {
						describe(d, m, c.base + x->key_off, x->values_len, err);
						st = KV_CHECK_FAILED;
						goto done;
					}
				}
			}
			util_buf gv = UTIL_BUF_INIT;
			for (size_t i = 0; i < c.n; i++) {
				const bf_entry *e = &c.e[i];
				uint8_t *v = (uint8_t *)c.bytes.data + e->val_off;
				v[0] = (uint8_t)(tries <= MAX_TRIES ? v[0] | IDX_F_VERIFIED
								    : v[0] & ~IDX_F_VERIFIED);
				kv_batch_put(b, d->kv, c.base + e->key_off, e->key_len, IDX_FAMILY, "", 0,
					     e->ts, v, e->val_len);
				if (!later)
					kv_batch_check_row(b, data, c.base + e->dkey_off, e->dkey_len);
				if (e->unique) {
					st = check_unique(data, d, m, &c, e, err);
					if (st != KV_OK) {
						util_buf_free(&gv);
						goto done;
					}
					util_buf_reset(&gv);
					idx_make_guard_value(c.base + e->dkey_off, e->dkey_len, &gv);
					kv_batch_put(b, d->kv, c.base + e->key_off, e->values_len, IDX_FAMILY,
						     "", 0, e->ts, gv.data, gv.len);
				}
			}
			util_buf_free(&gv);
			kv_write_opts wo;
			memset(&wo, 0, sizeof wo);
			wo.no_sync = o && o->no_sync;
			if (later)
				st = kv_batch_count(b) ? kv_commit(s, b, &wo, NULL) : KV_OK;
			else if (tries <= MAX_TRIES)
				st = kv_batch_count(b) ? kv_commit_if(s, b, snap, &wo, NULL) : KV_OK;
			else
				st = kv_batch_count(b) ? kv_commit(s, b, &wo, NULL) : KV_OK;
			if (st == KV_CONFLICT)
				continue;
			if (st != KV_OK)
				goto done;
			break;
		}
		done += c.rows;
		util_buf_reset(&after);
		util_buf_append(&after, c.last.data, c.last.len);
		have_after = true;
		if (rows_done)
			*rows_done = done;
		if (o && o->progress && o->progress(o->progress_arg, done, after.data, after.len) != 0) {
			st = KV_BUSY;
			goto done;
		}
		if (c.rows < max)
			break;
	}
done:
	if (st != KV_OK && st != KV_CHECK_FAILED && st != KV_BUSY && err && !util_err_isset(err))
		util_err_set(err, UTIL_E_IO_ERROR, "index backfill: %s", kv_errmsg());
	kv_batch_free(b);
	free(c.e);
	util_buf_free(&c.bytes);
	util_buf_free(&c.last);
	util_buf_free(&after);
	return st;
}
