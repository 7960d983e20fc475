/*
 * exec_index.c — index scans: key ranges over the index evaluated at run
 * time (IN lists expand to several ranges, forward or backward), each
 * entry judged against its data row read at the statement's snapshot (the
 * read protocol of index/: the row exists, yields the same key, its indexed
 * cells are not newer), stale entries skipped and repaired, covering
 * indexes answering from verified entries alone (index-only), and the
 * transaction's own pending rows merged in index order. Output rows are the
 * table's columns in attnum order plus the row key, as a table scan's.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "sql_index.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

typedef struct ixrange {
	uint8_t *start;
	size_t start_len;
	uint8_t *stop; /* NULL = to the end of the index */
	size_t stop_len;
} ixrange;

/* A pending row of this transaction, with its entry key. */
typedef struct pend {
	uint8_t *key;
	size_t klen;
	ty_datum *row;
} pend;

typedef struct ixscan_state {
	const sql_ixscan *xs;
	const sql_ix *x;
	idx_def def; /* x->def with the opened storage */
	const cat_rel *rel;
	kv_table *data, *index;
	sql_rowmap map;
	kv_column *cols; /* data cells to read: needed ∪ the index's */
	int ncols;
	bool *decode; /* columns to decode */
	ixrange *ranges;
	int nranges, cur;
	kv_iter *it;
	util_arena *arena;     /* ranges, pending rows (scan lifetime) */
	util_arena *get_arena; /* one data row */
	pend *pend;
	int npend, ppos;
	bool has_writes;
	int64_t remaining; /* LIMIT + OFFSET still to produce, -1 = no limit */
	kv_batch *repairs;
	bool repair_verify; /* the snapshot is recent enough to mark entries verified */
	bool no_repair;     /* a read of the past (strata.read_as_of) */
	util_buf k, v;
	/* Entries read ahead, their rows fetched in key order with one data
	 * iterator (cheaper than a point read per row). */
	struct qentry *q;
	int nq, qpos, qcap;
	util_arena *qarena; /* entries and rows of the queue; reset per fill */
	bool exhausted;     /* no more index entries */
	kv_cell *cells;     /* one row's cells while fetching */
	size_t ncells, capcells;
} ixscan_state;

typedef struct qentry {
	idx_entry e; /* slices point into qarena */
	bool fetch;  /* needs its data row */
	bool exists;
	kv_ts rts;
	ty_datum *row; /* table columns + key (qarena) */
} qentry;

/* (A short name for the many comparisons below.) */
static inline int kcmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	return util_bytes_cmp(a, an, b, bn);
}

/* The smallest key greater than every key starting with k (NULL if none). */
static uint8_t *key_succ(const uint8_t *k, size_t n, size_t *out_len)
{
	size_t i = n;
	while (i > 0 && k[i - 1] == 0xff)
		i--;
	if (i == 0)
		return NULL;
	uint8_t *s = ty_alloc(i);
	memcpy(s, k, i);
	s[i - 1]++;
	*out_len = i;
	return s;
}

static uint8_t *dup(const void *p, size_t n)
{
	uint8_t *d = ty_alloc(n ? n : 1);
	if (n)
		memcpy(d, p, n);
	return d;
}

/* ---------------------------------------------------------------- ranges */

static void add_range(ixscan_state *st, const uint8_t *start, size_t sl, const uint8_t *stop, size_t stl,
		      int *cap)
{
	if (stop && kcmp(start, sl, stop, stl) >= 0)
		return;
	if (st->nranges == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		ixrange *n = ty_alloc(sizeof(ixrange) * (size_t)*cap);
		if (st->nranges)
			memcpy(n, st->ranges, sizeof(ixrange) * (size_t)st->nranges);
		st->ranges = n;
	}
	st->ranges[st->nranges++] = (ixrange){dup(start, sl), sl, stop ? dup(stop, stl) : NULL, stl};
}

/* Values of the equality prefix: per column its alternatives (IN lists);
 * false when no row can match (a NULL, an empty list). */
static bool eval_eq(sql_exec *ex, const sql_ixrange *r, ty_datum **alts, int *nalts)
{
	for (int i = 0; i < r->nfix; i++) {
		const sql_expr *e = r->eq[i];
		ty_datum d = sql_eval(ex, e, NULL);
		const ty_type *t = ty_type_get(e->type);
		if (d.null)
			return false;
		if (t && t->category == 'A') {
			int n;
			ty_datum *els = ty_array_deconstruct(d, &n);
			int k = 0;
			alts[i] = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
			for (int x = 0; x < n; x++)
				if (!els[x].null)
					alts[i][k++] = els[x];
			if (k == 0)
				return false;
			nalts[i] = k;
		} else {
			alts[i] = ty_alloc(sizeof(ty_datum));
			alts[i][0] = d;
			nalts[i] = 1;
		}
	}
	return true;
}

/* The one-byte marker every value (or every NULL) of a key column starts
 * with (types.h: TY_KEY_*, inverted for DESC). */
static uint8_t marker(const ty_keycol *kc, bool null)
{
	uint8_t m =
	    null ? (kc->nulls_first != kc->desc ? TY_KEY_NULL_FIRST : TY_KEY_NULL_LAST) : TY_KEY_VALUE;
	return kc->desc ? (uint8_t)~m : m;
}

static void build_ranges(sql_op *op, ixscan_state *st)
{
	const sql_ixscan *xs = st->xs;
	const sql_ix *x = st->x;
	int cap = 0;
	st->nranges = 0;
	if (xs->nranges == 0) {
		add_range(st, (const uint8_t *)"", 0, NULL, 0, &cap);
		return;
	}
	for (int ri = 0; ri < xs->nranges; ri++) {
		const sql_ixrange *r = &xs->ranges[ri];
		ty_datum *alts[33];
		int nalts[33];
		if (r->nfix > 32 || !eval_eq(op->ex, r, alts, nalts))
			continue;
		ty_datum lo = ty_null(), hi = ty_null();
		if (r->lo) {
			lo = sql_eval(op->ex, r->lo, NULL);
			if (lo.null)
				continue;
		}
		if (r->hi) {
			hi = sql_eval(op->ex, r->hi, NULL);
			if (hi.null)
				continue;
		}
		int idx[33] = {0};
		for (;;) {
			util_buf pre = UTIL_BUF_INIT;
			for (int i = 0; i < r->nfix; i++)
				ty_key_encode(&x->keys[i], alts[i][idx[i]], &pre);
			const ty_keycol *kc = r->nfix < x->nkeys ? &x->keys[r->nfix] : NULL;
			util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
			util_buf_append(&a, pre.data, pre.len);
			if (kc && (r->nulls || r->lo || r->hi)) {
				/* The region of the column's NULLs, or of its values. */
				util_buf_put_u8(&a, marker(kc, r->nulls == 1));
				size_t sl;
				uint8_t *stop = key_succ((const uint8_t *)a.data, a.len, &sl);
				util_buf_append(&b, stop, sl);
				if (r->nulls != 1) {
					for (int side = 0; side < 2; side++) {
						bool is_lo = side == 0;
						if (is_lo ? !r->lo : !r->hi)
							continue;
						util_buf kb = UTIL_BUF_INIT;
						util_buf_append(&kb, pre.data, pre.len);
						ty_key_encode(kc, is_lo ? lo : hi, &kb);
						bool incl = is_lo ? r->lo_incl : r->hi_incl;
						/* A lower bound on a DESC column limits keys from above. */
						bool start_side = is_lo != kc->desc;
						const uint8_t *bound = (const uint8_t *)kb.data;
						size_t bl = kb.len;
						size_t succ_len = 0;
						uint8_t *succ = key_succ(bound, bl, &succ_len);
						if (start_side) {
							const uint8_t *s = incl ? bound : succ;
							size_t sl2 = incl ? bl : succ_len;
							if (s && kcmp(s, sl2, (const uint8_t *)a.data,
								      a.len) > 0) {
								util_buf_reset(&a);
								util_buf_append(&a, s, sl2);
							}
						} else {
							const uint8_t *s = incl ? succ : bound;
							size_t sl2 = incl ? succ_len : bl;
							if (s && kcmp(s, sl2, (const uint8_t *)b.data,
								      b.len) < 0) {
								util_buf_reset(&b);
								util_buf_append(&b, s, sl2);
							}
						}
						util_buf_free(&kb);
					}
				}
				add_range(st, (const uint8_t *)a.data, a.len, (const uint8_t *)b.data, b.len,
					  &cap);
			} else {
				size_t sl = 0;
				uint8_t *stop =
				    pre.len ? key_succ((const uint8_t *)pre.data, pre.len, &sl) : NULL;
				add_range(st, (const uint8_t *)(pre.data ? pre.data : ""), pre.len, stop, sl,
					  &cap);
			}
			util_buf_free(&a);
			util_buf_free(&b);
			util_buf_free(&pre);
			int d = r->nfix - 1;
			while (d >= 0 && ++idx[d] >= nalts[d])
				idx[d--] = 0;
			if (d < 0)
				break;
		}
	}
	/* Key order, duplicates dropped (IN lists may repeat a value). */
	for (int i = 1; i < st->nranges; i++)
		for (int j = i; j > 0 && kcmp(st->ranges[j].start, st->ranges[j].start_len,
					      st->ranges[j - 1].start, st->ranges[j - 1].start_len) < 0;
		     j--) {
			ixrange t = st->ranges[j];
			st->ranges[j] = st->ranges[j - 1];
			st->ranges[j - 1] = t;
		}
	int k = 0;
	for (int i = 0; i < st->nranges; i++) {
		if (k && !kcmp(st->ranges[k - 1].start, st->ranges[k - 1].start_len, st->ranges[i].start,
			       st->ranges[i].start_len))
			continue;
		st->ranges[k++] = st->ranges[i];
	}
	st->nranges = k;
}

static bool in_ranges(const ixscan_state *st, const uint8_t *k, size_t n)
{
	for (int i = 0; i < st->nranges; i++) {
		const ixrange *r = &st->ranges[i];
		if (kcmp(k, n, r->start, r->start_len) >= 0 &&
		    (!r->stop || kcmp(k, n, r->stop, r->stop_len) < 0))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- rows */

/* Reads and decodes the data row pk at the snapshot into row; false if
 * it does not exist. *rts gets the newest timestamp of the index's cells. */
static bool fetch_row(sql_op *op, ixscan_state *st, const uint8_t *pk, size_t pklen, ty_datum *row,
		      kv_ts *rts)
{
	util_arena_reset(st->get_arena);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = op->ex->read_ts;
	ro.columns = st->ncols ? st->cols : NULL;
	ro.ncolumns = st->ncols;
	kv_row kr;
	kv_status s = sql_row_get_plain(st->data, st->rel, pk, pklen, &ro, st->get_arena, &kr);
	if (s != KV_OK && s != KV_NOT_FOUND)
		sql_kv_error(s, "reading a row");
	if (s == KV_NOT_FOUND || kr.n == 0)
		return false;
	if (!sql_row_decode(st->rel, &st->map, kr.cells, kr.n, st->decode, row))
		return false;
	row[st->rel->ncols] = ty_bytes(dup(pk, pklen), pklen);
	*rts = sql_ix_row_ts(st->x, kr.cells, kr.n);
	return true;
}

/* Builds a row from a verified entry alone (index-only scans). */
static bool row_from_entry(ixscan_state *st, const idx_entry *e, ty_datum *row)
{
	const cat_rel *r = st->rel;
	const sql_ix *x = st->x;
	for (int c = 0; c < r->ncols; c++)
		row[c] = ty_null();
	const uint8_t *p = e->key.data, *end = e->key.data + e->values_len;
	for (int i = 0; i < x->nkeys; i++) {
		ty_datum d;
		size_t n = ty_key_decode(&x->keys[i], p, end, &d);
		if (n == 0)
			return false;
		p += n;
		if (x->key_attnum[i])
			row[x->key_attnum[i] - 1] = d;
	}
	if (x->info->ninclude && !sql_ix_payload_decode(x, e->payload.data, e->payload.len, row))
		return false;
	if (r->npk)
		sql_key_decode(r, e->pk.data, e->pk.len, row);
	row[r->ncols] = ty_bytes(dup(e->pk.data, e->pk.len), e->pk.len);
	return true;
}

static void lock_row(sql_op *op, ixscan_state *st, const ty_datum *row)
{
	const sql_plan *p = op->plan;
	if (!p->scan.lock_strength || !op->ex->txn)
		return;
	ty_datum key = row[st->rel->ncols];
	sql_txn_lock_row(op->ex->txn, p->scan.reloid, key.p, key.len, p->scan.lock_strength,
			 p->scan.lock_wait, NULL);
	/* Shared store: the commit checks the row unchanged since the
	 * statement's snapshot (the version this scan read). */
	if (!sql_txn_lookup(op->ex->txn, p->scan.reloid, key.p, key.len, false))
		sql_txn_note_lock(op->ex->txn, st->data, p->scan.reloid, key.p, key.len,
				  p->scan.lock_strength, op->ex->txn->stmt_ts);
}

/* The transaction's own rows in range, with their entry keys, in index
 * order (descending for a backward scan). */
static int cmp_pend(const void *a, const void *b, void *arg)
{
	const pend *x = a, *y = b;
	int c = kcmp(x->key, x->klen, y->key, y->klen);
	return *(bool *)arg ? -c : c;
}

static void load_pending(sql_op *op, ixscan_state *st)
{
	const sql_plan *p = op->plan;
	int n = 0;
	sql_wrow **ws = sql_txn_table_writes(op->ex->txn, p->scan.reloid, st->arena, &n);
	if (n == 0)
		return;
	st->has_writes = true;
	const cat_rel *r = st->rel;
	st->pend = ty_alloc(sizeof(pend) * (size_t)n);
	for (int i = 0; i < n; i++) {
		sql_wrow *w = ws[i];
		if (!w->present)
			continue;
		ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		if (w->inserted) {
			for (int c = 0; c < r->ncols; c++)
				row[c] = c < w->ncols ? w->cols[c] : ty_null();
			row[r->ncols] = ty_bytes(dup(w->key, w->keylen), w->keylen);
		} else {
			kv_ts rts;
			if (!fetch_row(op, st, w->key, w->keylen, row, &rts))
				continue;
			/* decode only read some columns; the pending row needs all
			 * the scan reads, which fetch_row decoded. */
			for (int c = 0; c < r->ncols && c < w->ncols; c++)
				if (w->set[c])
					row[c] = w->cols[c];
		}
		util_buf_reset(&st->k);
		if (!sql_ix_entry(op->ex, st->x, row, &st->k, NULL, NULL, NULL))
			continue;
		if (!in_ranges(st, (const uint8_t *)st->k.data, st->k.len))
			continue;
		st->pend[st->npend++] = (pend){dup(st->k.data, st->k.len), st->k.len, row};
	}
	bool rev = p->scan.reverse;
	qsort_r(st->pend, (size_t)st->npend, sizeof(pend), cmp_pend, &rev);
}

/* ---------------------------------------------------------------- operator */

static void open_iter(sql_op *op, ixscan_state *st)
{
	const ixrange *r = &st->ranges[op->plan->scan.reverse ? st->nranges - 1 - st->cur : st->cur];
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = op->ex->read_ts;
	so.start = r->start;
	so.start_len = r->start_len;
	so.stop = r->stop;
	so.stop_len = r->stop ? r->stop_len : 0;
	so.reverse = op->plan->scan.reverse;
	st->it = kv_scan(st->index, &so);
	if (kv_iter_status(st->it) != KV_OK)
		sql_kv_error(kv_iter_status(st->it), "scanning an index");
}

static void ixscan_open(sql_op *op)
{
	ixscan_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	st->xs = p->scan.ixscan;
	st->x = st->xs->ix;
	const cat_obj *o = cat_get(ex->cat, p->scan.reloid);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", p->scan.reloid);
	st->rel = &o->rel;
	if (ex->read_ts < st->xs->valid_from)
		ty_error(
		    UTIL_E_T_R_SERIALIZATION_FAILURE,
		    "could not serialize access: index \"%s\" was built after this transaction's snapshot",
		    st->xs->index_name);
	kv_status s = kv_table_open(ex->s->e->kv, o->rel.storage, &st->data);
	if (s == KV_OK)
		s = kv_table_open(ex->s->e->kv, st->xs->index_storage, &st->index);
	if (s != KV_OK)
		sql_kv_error(s, "opening an index");
	st->def = st->x->def;
	st->def.kv = st->index;
	util_arena *old = ty_set_arena(ex->arena);
	sql_rowmap_build(st->rel, ex->arena, &st->map);
	/* Cells to read: the sentinel, needed columns, the index's columns. */
	const cat_rel *r = st->rel;
	st->decode = ty_alloc0(sizeof(bool) * (size_t)(r->ncols + 1));
	st->cols = ty_alloc(sizeof(kv_column) * (size_t)(r->ncols + 1));
	st->cols[st->ncols++] = (kv_column){SQL_FAMILY, "", 0};
	for (int c = 0; c < r->ncols; c++) {
		const cat_column *col = &r->cols[c];
		st->decode[c] = p->scan.needed[c] || st->x->deps[c];
		if (col->dropped || !st->decode[c] || !sql_column_in_cells(r, col))
			continue;
		uint8_t *q = ty_alloc(2);
		sql_colid_qual(col->col_id, q);
		st->cols[st->ncols++] = (kv_column){SQL_FAMILY, q, 2};
	}
	/* Whole rows unless the column list skips most cells of wide rows
	 * (as exec_scan.c decides). */
	int total = 0;
	for (int c = 0; c < r->ncols; c++)
		total += !r->cols[c].dropped && sql_column_in_cells(r, &r->cols[c]);
	if (!(total >= 32 && st->ncols * 8 <= total))
		st->ncols = 0;
	st->arena = util_arena_new(4096, 0);
	st->get_arena = util_arena_new(4096, 0);
	ty_set_arena(st->arena);
	build_ranges(op, st);
	st->remaining = -1;
	if (st->xs->limit) {
		ty_datum l = sql_eval(ex, st->xs->limit, NULL);
		if (!l.null && l.i >= 0)
			st->remaining = l.i;
	}
	if (ex->txn)
		load_pending(op, st);
	ty_set_arena(old);
	kv_ts now = kv_read_point(ex->s->e->kv);
	st->repair_verify = !st->x->def.unique && ex->read_ts + 10 * 1000000ull >= now;
	/* Repairs rewrite cells at their own, older timestamps: a time-travel
	 * read must leave the history it reads as it was (a restore compared
	 * with the source as of a moment, the next read of that moment). */
	st->no_repair = ex->s->as_of_ts != 0;
	st->cur = 0;
}

/* Commits the repairs learnt so far (best effort: a conflict means the
 * rows changed, and the next reader judges again). */
static void flush_repairs(sql_op *op, ixscan_state *st)
{
	if (!st->repairs || kv_batch_count(st->repairs) == 0)
		return;
	(void)kv_commit_if(op->ex->s->e->kv, st->repairs, op->ex->read_ts, NULL, NULL);
	kv_batch_clear(st->repairs);
}

static void repair(ixscan_state *st, const idx_entry *e, idx_verdict v, kv_ts rts, bool has)
{
	if (st->no_repair || (v == IDX_EXACT && (e->flags & IDX_F_VERIFIED)))
		return;
	if (v != IDX_STALE && (!st->repair_verify || !has))
		return;
	if (!st->repairs)
		st->repairs = kv_batch_new();
	/* The data row's kv row: an interleaved child's is its group's. */
	if (idx_repair(st->repairs, &st->def, e, v, st->v.data, st->v.len, rts) && v != IDX_STALE)
		kv_batch_check_row(st->repairs, st->data, e->pk.data,
				   sql_ilv_rowlen(st->rel, e->pk.data, e->pk.len));
}

/* Emits pending rows ordered before `key` (all when key is NULL). */
static void emit_pending(sql_op *op, ixscan_state *st, sql_batch *b, const uint8_t *key, size_t klen)
{
	bool rev = op->plan->scan.reverse;
	int ncols = st->rel->ncols + 1;
	while (st->ppos < st->npend && b->n < b->cap && st->remaining != 0) {
		pend *pd = &st->pend[st->ppos];
		if (key) {
			int c = kcmp(pd->key, pd->klen, key, klen);
			if (rev ? c < 0 : c > 0)
				return;
		}
		st->ppos++;
		ty_datum *row = sql_batch_row(b, b->n);
		memcpy(row, pd->row, sizeof(ty_datum) * (size_t)ncols);
		if (sql_eval_qual(op->ex, op->plan->qual, row)) {
			lock_row(op, st, row);
			b->n++;
			if (st->remaining > 0)
				st->remaining--;
		}
	}
}

static int cmp_qpk(const void *a, const void *b, void *arg)
{
	const qentry *q = arg;
	const qentry *x = &q[*(const int *)a], *y = &q[*(const int *)b];
	return kcmp(x->e.pk.data, x->e.pk.len, y->e.pk.data, y->e.pk.len);
}

/* Decodes the row the data iterator is on (its cells) into qe->row. */
static void take_row(ixscan_state *st, kv_iter *it, qentry *qe)
{
	const cat_rel *r = st->rel;
	st->ncells = 0;
	while (kv_iter_valid(it)) {
		const kv_cell *c = kv_iter_cell(it);
		if (kcmp(c->row.data, c->row.len, qe->e.pk.data, qe->e.pk.len) != 0)
			break;
		if (st->ncells == st->capcells) {
			st->capcells = st->capcells ? st->capcells * 2 : 16;
			st->cells = util_xrealloc(st->cells, sizeof(kv_cell) * st->capcells);
		}
		kv_cell *d = &st->cells[st->ncells++];
		*d = *c;
		d->row = qe->e.pk;
		d->qualifier.data = dup(c->qualifier.data, c->qualifier.len);
		d->value.data = dup(c->value.data, c->value.len);
		kv_iter_next(it);
	}
	qe->exists = st->ncells && sql_row_decode(r, &st->map, st->cells, st->ncells, st->decode, qe->row);
	if (qe->exists) {
		qe->row[r->ncols] = ty_bytes(qe->e.pk.data, qe->e.pk.len);
		qe->rts = sql_ix_row_ts(st->x, st->cells, st->ncells);
	}
}

/* Reads up to want entries ahead and fetches their rows in key order. */
static void fill_queue(sql_op *op, ixscan_state *st, int want)
{
	const sql_plan *p = op->plan;
	const cat_rel *r = st->rel;
	util_arena_reset(st->qarena);
	util_arena *old = ty_set_arena(st->qarena);
	st->nq = st->qpos = 0;
	if (st->qcap < want) {
		st->qcap = want;
		st->q = util_xrealloc(st->q, sizeof(qentry) * (size_t)want);
	}
	int nfetch = 0;
	while (st->nq < want) {
		if (st->cur >= st->nranges) {
			st->exhausted = true;
			break;
		}
		if (!st->it)
			open_iter(op, st);
		if (!kv_iter_valid(st->it)) {
			if (kv_iter_status(st->it) != KV_OK)
				sql_kv_error(kv_iter_status(st->it), "scanning an index");
			kv_iter_close(st->it);
			st->it = NULL;
			st->cur++;
			continue;
		}
		const kv_cell *c = kv_iter_cell(st->it);
		kv_cell copy = *c;
		copy.row.data = dup(c->row.data, c->row.len);
		copy.value.data = dup(c->value.data, c->value.len);
		kv_iter_next(st->it);
		qentry *qe = &st->q[st->nq];
		memset(qe, 0, sizeof *qe);
		if (!idx_entry_parse(&st->def, &copy, &qe->e) || qe->e.guard)
			continue;
		st->nq++;
		qe->fetch = !(p->scan.index_only && (qe->e.flags & IDX_F_VERIFIED));
		nfetch += qe->fetch;
	}
	if (nfetch && r->ilv_depth) {
		/* Interleaved child rows: one point read each (their keys are not
		 * kv rows for a shared data iterator). */
		for (int i = 0; i < st->nq; i++) {
			qentry *qe = &st->q[i];
			if (!qe->fetch)
				continue;
			qe->row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
			kv_read_opts ro;
			memset(&ro, 0, sizeof ro);
			ro.read_ts = op->ex->read_ts;
			kv_row kr;
			kv_status ks =
			    sql_row_get_plain(st->data, r, qe->e.pk.data, qe->e.pk.len, &ro, st->qarena, &kr);
			if (ks != KV_OK && ks != KV_NOT_FOUND)
				sql_kv_error(ks, "reading a row");
			qe->exists = ks == KV_OK && kr.n &&
				     sql_row_decode(r, &st->map, kr.cells, kr.n, st->decode, qe->row);
			if (qe->exists) {
				qe->row[r->ncols] = ty_bytes(qe->e.pk.data, qe->e.pk.len);
				qe->rts = sql_ix_row_ts(st->x, kr.cells, kr.n);
			}
		}
	} else if (nfetch) {
		int *order = ty_alloc(sizeof(int) * (size_t)nfetch);
		int k = 0;
		for (int i = 0; i < st->nq; i++)
			if (st->q[i].fetch) {
				order[k++] = i;
				st->q[i].row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
			}
		qsort_r(order, (size_t)nfetch, sizeof(int), cmp_qpk, st->q);
		kv_scan_opts so;
		memset(&so, 0, sizeof so);
		so.read.read_ts = op->ex->read_ts;
		so.read.columns = st->ncols ? st->cols : NULL;
		so.read.ncolumns = st->ncols;
		so.start = st->q[order[0]].e.pk.data;
		so.start_len = st->q[order[0]].e.pk.len;
		kv_iter *it = kv_scan(st->data, &so);
		for (int i = 0; i < nfetch && kv_iter_status(it) == KV_OK; i++) {
			qentry *qe = &st->q[order[i]];
			if (i && !kcmp(qe->e.pk.data, qe->e.pk.len, st->q[order[i - 1]].e.pk.data,
				       st->q[order[i - 1]].e.pk.len)) {
				/* Two entries of one row (a stale one among them). */
				qentry *prev = &st->q[order[i - 1]];
				qe->exists = prev->exists;
				qe->rts = prev->rts;
				memcpy(qe->row, prev->row, sizeof(ty_datum) * (size_t)(r->ncols + 1));
				continue;
			}
			kv_iter_seek_row(it, qe->e.pk.data, qe->e.pk.len);
			take_row(st, it, qe);
		}
		kv_status ist = kv_iter_status(it);
		kv_iter_close(it);
		if (ist != KV_OK)
			sql_kv_error(ist, "reading rows");
	}
	ty_set_arena(old);
}

/* Copies a queued row into the output batch (the queue arena is reset by
 * the next fill). */
static void copy_row(const cat_rel *r, ty_datum *dst, const ty_datum *src)
{
	for (int c = 0; c <= r->ncols; c++) {
		const ty_type *t = c < r->ncols ? ty_type_get(r->cols[c].type) : NULL;
		dst[c] = ty_datum_copy(src[c], c < r->ncols ? (t ? t->byval : true) : false);
	}
}

static sql_batch *ixscan_next(sql_op *op)
{
	ixscan_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_batch *b = sql_op_begin_batch(op);
	const cat_rel *r = st->rel;
	if (!st->qarena)
		st->qarena = util_arena_new(32 * 1024, 0);
	while (b->n < b->cap && st->remaining != 0) {
		if (st->qpos >= st->nq) {
			if (st->exhausted) {
				emit_pending(op, st, b, NULL, 0);
				break;
			}
			int want = 64;
			if (st->remaining > 0 && st->remaining < want)
				want = (int)st->remaining;
			fill_queue(op, st, want);
			ty_set_arena(b->arena);
			continue;
		}
		qentry *qe = &st->q[st->qpos];
		idx_entry *e = &qe->e;
		if (st->has_writes) {
			emit_pending(op, st, b, e->key.data, e->key.len);
			if (b->n >= b->cap || st->remaining == 0)
				break;
		}
		st->qpos++;
		/* Rows this transaction changed come from the pending list. */
		if (st->has_writes &&
		    sql_txn_lookup(op->ex->txn, p->scan.reloid, e->pk.data, e->pk.len, true))
			continue;
		ty_datum *row = sql_batch_row(b, b->n);
		bool member;
		if (!qe->fetch) {
			member = row_from_entry(st, e, row);
		} else {
			util_buf_reset(&st->k);
			util_buf_reset(&st->v);
			bool has =
			    qe->exists && sql_ix_entry(op->ex, st->x, qe->row, &st->k, &st->v, NULL, NULL);
			idx_verdict v = idx_judge(e, has, st->k.data, st->k.len, qe->rts);
			member = idx_verdict_member(v);
			repair(st, e, v, qe->rts, has);
			if (member)
				copy_row(r, row, qe->row);
		}
		if (member && sql_eval_qual(op->ex, p->qual, row)) {
			lock_row(op, st, row);
			b->n++;
			if (st->remaining > 0)
				st->remaining--;
		}
		ty_check_interrupts();
	}
	flush_repairs(op, st);
	return b;
}

static void ixscan_close(sql_op *op)
{
	ixscan_state *st = op->state;
	if (st->it)
		kv_iter_close(st->it);
	st->it = NULL;
	if (st->repairs) {
		flush_repairs(op, st);
		kv_batch_free(st->repairs);
		st->repairs = NULL;
	}
	if (st->data)
		kv_table_close(st->data);
	if (st->index)
		kv_table_close(st->index);
	st->data = st->index = NULL;
	util_arena_destroy(st->arena);
	util_arena_destroy(st->get_arena);
	st->arena = st->get_arena = NULL;
	util_buf_free(&st->k);
	util_buf_free(&st->v);
	util_arena_destroy(st->qarena);
	st->qarena = NULL;
	free(st->q);
	st->q = NULL;
	st->nq = st->qpos = st->qcap = 0;
	free(st->cells);
	st->cells = NULL;
	st->capcells = 0;
}

static void ixscan_rescan(sql_op *op)
{
	ixscan_state *st = op->state;
	ixscan_close(op);
	memset(st, 0, sizeof *st);
	op->opened = false;
}

sql_op *sql_op_indexscan(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(ixscan_state));
	op->open = ixscan_open;
	op->next = ixscan_next;
	op->close = ixscan_close;
	op->rescan = ixscan_rescan;
	return op;
}

/* ---------------------------------------------------------------- lookup joins */

/* A nested loop whose inner side is a table or index scan keyed by
 * parameters set from each outer row (plan_index.c): per outer row, set
 * the parameters, rescan the inner side, emit the matches (and, for a LEFT
 * join, the row with NULLs when there are none). Inner rows are copied
 * into the output batch: the inner batch is reset when it moves on. */
typedef struct lookup_state {
	sql_batch *in;
	int pos;
	bool active; /* the current outer row's lookup is under way */
	bool matched;
	sql_batch *inner;
	int ipos;
	ty_datum *combo;
} lookup_state;

static void copy_right(const sql_plan *rp, ty_datum *dst, const ty_datum *src)
{
	for (int c = 0; c < rp->ncols; c++) {
		const ty_type *t = ty_type_get(rp->types[c]);
		dst[c] = ty_datum_copy(src[c], t ? t->byval : true);
	}
}

static sql_batch *lookup_next(sql_op *op)
{
	lookup_state *st = op->state;
	const sql_plan *p = op->plan;
	int ln = p->left->ncols, rn = p->right->ncols;
	sql_batch *b = sql_op_begin_batch(op);
	util_arena *mine = b->arena;
	if (!st->combo)
		st->combo = util_arena_alloc(op->ex->arena, sizeof(ty_datum) * (size_t)(ln + rn + 1));
	while (b->n < b->cap) {
		if (!st->in || st->pos >= st->in->n) {
			if (b->n)
				return b; /* emitted rows point into the current outer batch */
			st->in = sql_op_next(op->left);
			st->pos = 0;
			st->active = false;
			ty_set_arena(mine);
			if (st->in->n == 0)
				return b;
		}
		ty_datum *l = sql_batch_row(st->in, st->pos);
		if (!st->active) {
			for (int i = 0; i < p->join.nparams; i++)
				op->ex->exec_params[p->join.params[i]] =
				    sql_eval(op->ex, p->join.param_vals[i], l);
			sql_op_rescan(op->right);
			st->active = true;
			st->matched = false;
			st->inner = NULL;
			st->ipos = 0;
		}
		if (!st->inner || st->ipos >= st->inner->n) {
			st->inner = sql_op_next(op->right);
			st->ipos = 0;
			ty_set_arena(mine);
			if (st->inner->n == 0) {
				if (!st->matched && p->join.type == SQL_JOIN_LEFT) {
					ty_datum *out = sql_batch_row(b, b->n++);
					memcpy(out, l, sizeof(ty_datum) * (size_t)ln);
					for (int c = 0; c < rn; c++)
						out[ln + c] = ty_null();
				}
				st->pos++;
				st->active = false;
				continue;
			}
		}
		ty_datum *r = sql_batch_row(st->inner, st->ipos++);
		if (p->join.joinqual) {
			memcpy(st->combo, l, sizeof(ty_datum) * (size_t)ln);
			memcpy(st->combo + ln, r, sizeof(ty_datum) * (size_t)rn);
			if (!sql_eval_qual(op->ex, p->join.joinqual, st->combo))
				continue;
		}
		st->matched = true;
		ty_datum *out = sql_batch_row(b, b->n++);
		memcpy(out, l, sizeof(ty_datum) * (size_t)ln);
		copy_right(p->right, out + ln, r);
		if (p->qual && !sql_eval_qual(op->ex, p->qual, out))
			b->n--;
	}
	return b;
}

static void lookup_rescan(sql_op *op)
{
	lookup_state *st = op->state;
	memset(st, 0, sizeof *st);
	sql_op_rescan(op->left);
}

sql_op *sql_op_lookupjoin(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(lookup_state));
	op->next = lookup_next;
	op->rescan = lookup_rescan;
	return op;
}
