/*
 * index_write.c — index maintenance on the write path.
 *
 * Statement time: unique keys. A row about to take a unique key locks the
 * key (lock manager, "table" = the index oid), then looks at the committed
 * entry holding it — validated against its data row and this
 * transaction's own changes — and at the keys this transaction's own rows
 * claimed; a live holder is a 23505 with PostgreSQL's message. A row that
 * leaves a unique key locks it too, so a concurrent insert of that key
 * waits for this transaction as in PostgreSQL. What the check saw becomes
 * the commit's checkAndMutate condition on the key.
 *
 * Commit time: for every written row of a table with indexes (the indexes
 * of the newest catalog, read under the commit gate so that a concurrent
 * CREATE INDEX never misses a commit), the old entry (from the committed
 * row) and the new entry (from the row as written) give a put and/or a
 * delete. Any write to a column an index depends on rewrites its entry at
 * the commit timestamp, even to the same value.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_index.h"
#include "txn_vset.h"

/* ---------------------------------------------------------------- per-transaction state */

typedef struct cached_set {
	cat_snap *cs; /* catalog the set was compiled for (not referenced) */
	util_arena *arena;
	sql_ixset *set; /* NULL: no index */
} cached_set;

typedef struct claim {
	uint8_t *pk; /* the row of this transaction holding the key */
	size_t pklen;
	bool bulk;       /* written by COPY's bulk path (no pending row) */
	bool seen;       /* the committed state was looked at ... */
	uint8_t *expect; /* ... and held this entry value (NULL: absent) */
	size_t elen;
} claim;

typedef struct pending_build {
	cat_oid index;
	kv_ts from;
	uint64_t gen; /* the table's write generation when the backfill started */
} pending_build;

/* The values COPY blocks in a transaction block claimed in one index,
 * locked for other transactions as a key set (txn_vset.h). */
typedef struct block_claims {
	sql_vset set;
	sql_keyset *ks;
} block_claims;

struct sql_txn_ix {
	util_arena *arena;
	pending_build *builds; /* CREATE INDEX / REINDEX in this transaction */
	int nbuilds;
	util_map sets;    /* table oid -> cached_set* */
	util_map claims;  /* index oid ++ values -> claim* (statements, autocommit COPY) */
	util_map blocks;  /* index oid -> block_claims* (COPY in a transaction block) */
	util_map bulk_ix; /* table oid -> (void *)(1 + number of indexes maintained by bulk rows) */
};

static sql_txn_ix *txn_ix(sql_txn *t)
{
	if (!t->ix) {
		t->ix = util_xcalloc(1, sizeof *t->ix);
		t->ix->arena = util_arena_new(16 * 1024, 0);
	}
	return t->ix;
}

void sql_txn_ix_free(sql_txn_ix *tx)
{
	if (!tx)
		return;
	size_t pos = 0;
	void *v;
	while (util_map_next(&tx->sets, &pos, NULL, NULL, &v)) {
		cached_set *c = v;
		sql_ixset_close(c->set);
		util_arena_destroy(c->arena);
	}
	util_map_free(&tx->sets);
	util_map_free(&tx->claims);
	/* (After the commit is applied: a waiter for a value then sees the row.) */
	pos = 0;
	while (util_map_next(&tx->blocks, &pos, NULL, NULL, &v)) {
		block_claims *b = v;
		sql_keyset_free(b->ks);
		sql_vset_free(&b->set);
		free(b);
	}
	util_map_free(&tx->blocks);
	util_map_free(&tx->bulk_ix);
	free(tx->builds);
	util_arena_destroy(tx->arena);
	free(tx);
}

/* The table's indexes compiled for catalog cs, cached per transaction. */
static sql_ixset *table_set(sql_session *s, cat_snap *cs, const cat_obj *rel)
{
	if (rel->rel.nindexes == 0)
		return NULL;
	sql_txn_ix *tx = txn_ix(s->txn);
	cached_set *c = util_map_get_u64(&tx->sets, rel->oid);
	if (c && c->cs == cs)
		return c->set;
	if (!c) {
		c = util_arena_zalloc(tx->arena, sizeof *c);
		UTIL_ASSERT(c, "index cache");
		util_map_put_u64(&tx->sets, rel->oid, c);
	} else {
		sql_ixset_close(c->set);
		util_arena_destroy(c->arena);
	}
	c->cs = cs;
	c->set = NULL;
	c->arena = util_arena_new(8 * 1024, 0);
	c->set = sql_ixset_open(s, cs, cat_get(cs, rel->oid) ? cat_get(cs, rel->oid) : rel, c->arena);
	return c->set;
}

static claim *find_claim(sql_txn_ix *tx, cat_oid ix, const void *values, size_t vlen, bool create)
{
	if (!create && !util_map_count(&tx->claims))
		return NULL; /* (a COPY in a block claims in its value sets: no key to build per row) */
	util_buf k = UTIL_BUF_INIT;
	util_buf_put_be32(&k, ix);
	util_buf_append(&k, values, vlen);
	claim *c = util_map_get(&tx->claims, k.data, k.len);
	if (!c && create) {
		c = util_arena_zalloc(tx->arena, sizeof *c);
		UTIL_ASSERT(c, "claim");
		util_map_put(&tx->claims, k.data, k.len, c);
	}
	util_buf_free(&k);
	return c;
}

static block_claims *blocks_of(sql_txn *t, cat_oid index, bool create)
{
	sql_txn_ix *tx = txn_ix(t);
	block_claims *b = util_map_get_u64(&tx->blocks, index);
	if (!b && create) {
		b = util_xcalloc(1, sizeof *b);
		b->ks = sql_keyset_new_values(t, index, &b->set);
		util_map_put_u64(&tx->blocks, index, b);
	}
	return b;
}

/* The newest claim of the values by a COPY block, or NULL. */
static const sql_vclaim *block_claim(sql_txn_ix *tx, cat_oid index, const void *values, size_t vlen)
{
	if (!util_map_count(&tx->blocks))
		return NULL;
	block_claims *b = util_map_get_u64(&tx->blocks, index);
	return b ? sql_vset_find(&b->set, values, vlen) : NULL;
}

bool sql_index_has_unique(sql_session *s, const cat_obj *rel)
{
	if (!rel->rel.nindexes)
		return false;
	for (int i = 0; i < rel->rel.nindexes; i++) {
		const cat_obj *ix = cat_get(s->cat, rel->rel.indexes[i]);
		if (ix && ix->rel.index && ix->rel.index->unique && !ix->rel.index->primary)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- rows */

/* The committed row (newest version) into out (ncols + key); false if none. */
static bool read_committed(sql_session *s, kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen,
			   ty_datum *out, util_arena *scratch)
{
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	kv_row row;
	kv_status st = sql_row_get_plain(kv, r, key, klen, &ro, scratch, &row);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading a row");
	if (st == KV_NOT_FOUND || row.n == 0)
		return false;
	sql_rowmap map;
	sql_rowmap_build(r, scratch, &map);
	if (!sql_row_decode(r, &map, row.cells, row.n, NULL, out))
		return false;
	uint8_t *k = ty_alloc(klen ? klen : 1);
	memcpy(k, key, klen);
	out[r->ncols] = ty_bytes(k, klen);
	(void)s;
	return true;
}

/* The row this transaction's pending write makes of a table row (in the
 * current arena); false when it is deleted. */
static bool pending_row(sql_session *s, const cat_obj *rel, kv_table *kv, sql_wrow *w, ty_datum *out,
			util_arena *scratch)
{
	const cat_rel *r = &rel->rel;
	if (!w->present)
		return false;
	if (!w->inserted) {
		if (!read_committed(s, kv, r, w->key, w->keylen, out, scratch))
			return false;
		for (int c = 0; c < r->ncols && c < w->ncols; c++)
			if (w->set[c])
				out[c] = w->cols[c];
	} else {
		for (int c = 0; c < r->ncols; c++)
			out[c] = c < w->ncols ? w->cols[c] : ty_null();
	}
	out[r->ncols] = ty_bytes(w->key, w->keylen);
	return true;
}

/* Does the row with key pk (as this transaction sees its newest state)
 * hold unique key `values` in index x? */
static bool row_holds(sql_session *s, const cat_obj *rel, kv_table *kv, sql_exec *ev, const sql_ix *x,
		      const uint8_t *pk, size_t pklen, const void *values, size_t vlen, util_arena *scratch)
{
	const cat_rel *r = &rel->rel;
	ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	sql_wrow *w = sql_txn_lookup(s->txn, rel->oid, pk, pklen, false);
	bool live =
	    w ? pending_row(s, rel, kv, w, row, scratch) : read_committed(s, kv, r, pk, pklen, row, scratch);
	if (!live)
		return false;
	util_buf k = UTIL_BUF_INIT;
	size_t vl = 0;
	bool uq = false;
	bool has = sql_ix_entry(ev, x, row, &k, NULL, &vl, &uq);
	bool holds = has && uq && vl == vlen && memcmp(k.data, values, vlen) == 0;
	util_buf_free(&k);
	return holds;
}

/* The committed state of a unique value: the rows whose entries carry it
 * (validated: a live holder is returned in *holder, in the current arena)
 * and the guard (*guard / *glen, in arena; NULL if absent). */
static void committed_holder(sql_session *s, const cat_obj *rel, kv_table *dkv, sql_exec *ev, const sql_ix *x,
			     const uint8_t *values, size_t vlen, ty_datum own_pk, uint8_t **holder,
			     size_t *holder_len, uint8_t **guard, size_t *glen, util_arena *arena)
{
	*holder = NULL;
	*guard = NULL;
	*glen = 0;
	util_arena *scratch = util_arena_new(4096, 0);
	util_buf stop = UTIL_BUF_INIT;
	util_buf_append(&stop, values, vlen);
	/* [values, successor of values): the guard, then every entry. */
	size_t n = vlen;
	while (n > 0 && (uint8_t)stop.data[n - 1] == 0xff)
		n--;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = KV_TS_MAX;
	so.start = values;
	so.start_len = vlen;
	if (n > 0) {
		stop.data[n - 1]++;
		so.stop = stop.data;
		so.stop_len = n;
	}
	kv_iter *it = kv_scan(x->def.kv, &so);
	for (; kv_iter_valid(it) && !*holder; kv_iter_next(it)) {
		idx_entry e;
		if (!idx_entry_parse(&x->def, kv_iter_cell(it), &e) || e.values_len != vlen)
			continue;
		if (e.guard) {
			*guard = util_arena_memdup(arena, e.value.data, e.value.len);
			*glen = e.value.len;
			continue;
		}
		if (e.pk.len == own_pk.len && !memcmp(e.pk.data, own_pk.p, own_pk.len))
			continue;
		util_arena_reset(scratch);
		if (row_holds(s, rel, dkv, ev, x, e.pk.data, e.pk.len, values, vlen, scratch)) {
			*holder = ty_alloc(e.pk.len ? e.pk.len : 1);
			memcpy(*holder, e.pk.data, e.pk.len);
			*holder_len = e.pk.len;
		}
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	util_buf_free(&stop);
	util_arena_destroy(scratch);
	if (st != KV_OK)
		sql_kv_error(st, "reading an index");
}

static UTIL_NORETURN void unique_violation(sql_exec *ev, const sql_ix *x, const ty_datum *row)
{
	util_buf d = UTIL_BUF_INIT;
	sql_ix_describe_row(ev, x, row, &d);
	const char *name = x->obj->rel.name;
	util_err *e = ty_errstart(UTIL_E_UNIQUE_VIOLATION,
				  "duplicate key value violates unique constraint \"%s\"", name);
	util_err_detail(e, "Key %s already exists.", d.data);
	sql_session *s = sql_current_session();
	const char *schema = s && s->cat ? sql_schema_name(s->cat, x->table->rel.schema) : NULL;
	if (schema)
		util_err_field(e->schema, schema);
	util_err_field(e->table, x->table->rel.name);
	util_err_field(e->constraint, name);
	util_buf_free(&d);
	ty_errthrow();
}

bool sql_index_unique_check(sql_session *s, const cat_obj *rel, const ty_datum *row, const ty_datum *old_row,
			    cat_oid arbiter, bool any_arbiter, ty_datum *conflict_key,
			    cat_oid *conflict_index)
{
	sql_txn *t = s->txn;
	sql_ixset *set = table_set(s, s->cat, rel);
	if (!set)
		return true;
	sql_txn_ix *tx = txn_ix(t);
	const cat_rel *r = &rel->rel;
	ty_datum pk = row[r->ncols];
	util_buf k = UTIL_BUF_INIT, ok = UTIL_BUF_INIT;
	kv_table *dkv = NULL;
	kv_status os = kv_table_open(s->e->kv, r->storage, &dkv);
	if (os != KV_OK)
		sql_kv_error(os, "opening a table");
	util_arena *scratch = util_arena_new(4096, 0);
	bool result = true;
	TY_TRY(tc)
	{
		/* The arbiter first, as PostgreSQL checks it before inserting:
		 * its conflict wins over another index's. */
		for (int j = 0; j < 2 * set->n && result; j++) {
			int i = j % set->n;
			const sql_ix *x = set->ix[i];
			if (!x->def.unique || (j < set->n) != (arbiter && x->obj->oid == arbiter))
				continue;
			sql_exec *ev = set->ev[i];
			util_buf_reset(&k);
			size_t vl = 0;
			bool uq = false;
			if (!sql_ix_entry(ev, x, row, &k, NULL, &vl, &uq) || !uq)
				continue; /* outside the predicate, or a NULL: no conflict possible */
			if (old_row) {
				util_buf_reset(&ok);
				size_t ovl = 0;
				bool ouq = false;
				if (sql_ix_entry(ev, x, old_row, &ok, NULL, &ovl, &ouq) && ouq && ovl == vl &&
				    !memcmp(ok.data, k.data, vl) && old_row[r->ncols].len == pk.len &&
				    !memcmp(old_row[r->ncols].p, pk.p, pk.len))
					continue; /* the row keeps its own key */
			}
			sql_txn_lock_row(t, x->obj->oid, (const uint8_t *)k.data, vl,
					 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
					 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
			uint8_t *holder = NULL;
			size_t holder_len = 0;
			/* This transaction's own rows first. */
			claim *c = find_claim(tx, x->obj->oid, k.data, vl, true);
			if (c->pk && !(c->pklen == pk.len && !memcmp(c->pk, pk.p, pk.len))) {
				util_arena_reset(scratch);
				if (c->bulk ||
				    row_holds(s, rel, dkv, ev, x, c->pk, c->pklen, k.data, vl, scratch))
					holder = c->pk, holder_len = c->pklen;
			}
			/* (A COPY block's claim: validated the same way.) */
			const sql_vclaim *bc = holder ? NULL : block_claim(tx, x->obj->oid, k.data, vl);
			if (bc && !(bc->pklen == pk.len && !memcmp(bc->pk, pk.p, pk.len))) {
				util_arena_reset(scratch);
				if (row_holds(s, rel, dkv, ev, x, bc->pk, bc->pklen, k.data, vl, scratch))
					holder = (uint8_t *)bc->pk, holder_len = bc->pklen;
			}
			/* Then the committed rows (as this transaction changed them). */
			if (!holder) {
				uint8_t *guard;
				size_t glen;
				committed_holder(s, rel, dkv, ev, x, (const uint8_t *)k.data, vl, pk, &holder,
						 &holder_len, &guard, &glen, tx->arena);
				if (!c->seen && bc) { /* what the block's check saw first */
					c->seen = true;
					c->expect = (uint8_t *)bc->expect;
					c->elen = bc->elen;
				}
				if (!c->seen) {
					c->seen = true;
					c->expect = guard;
					c->elen = glen;
				}
			}
			if (holder) {
				if (conflict_key && (any_arbiter || arbiter == x->obj->oid)) {
					uint8_t *hk = ty_alloc(holder_len ? holder_len : 1);
					memcpy(hk, holder, holder_len);
					*conflict_key = ty_bytes(hk, holder_len);
					if (conflict_index)
						*conflict_index = x->obj->oid;
					result = false;
					break;
				}
				unique_violation(ev, x, row);
			}
			c->pk = util_arena_memdup_nz(tx->arena, pk.p, pk.len);
			c->pklen = pk.len;
			c->bulk = false;
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_buf_free(&k);
		util_buf_free(&ok);
		util_arena_destroy(scratch);
		kv_table_close(dkv);
		ty_errthrow();
	}
	TY_END(tc);
	util_buf_free(&k);
	util_buf_free(&ok);
	util_arena_destroy(scratch);
	kv_table_close(dkv);
	return result;
}

/* ---------------------------------------------------------------- COPY's sorted flush */

typedef struct uval {
	const uint8_t *v; /* the row's encoded unique values */
	size_t vl;
	size_t row; /* index into rows */
	int64_t line;
} uval;

static int uval_cmp(const void *pa, const void *pb)
{
	const uval *a = pa, *b = pb;
	int c = util_bytes_cmp(a->v, a->vl, b->v, b->vl);
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

/* -1, 0, 1: the kv row before, starting with, or after values v. */
static int row_vs_values(const kv_slice *row, const uint8_t *v, size_t vl)
{
	size_t n = row->len < vl ? row->len : vl;
	int c = memcmp(row->data, v, n);
	if (c)
		return c < 0 ? -1 : 1;
	return row->len < vl ? -1 : 0;
}

void sql_index_unique_check_rows(sql_session *s, const cat_obj *rel, ty_datum *const *rows,
				 const int64_t *lines, size_t n, int64_t before_line, sql_uq_mode mode)
{
	bool claim_keys = mode != SQL_UQ_REPORT, in_block = mode == SQL_UQ_CLAIM_BLOCK;
	sql_ixset *set = table_set(s, s->cat, rel);
	if (!set || !n)
		return;
	sql_txn *t = s->txn;
	sql_txn_ix *tx = txn_ix(t);
	const cat_rel *r = &rel->rel;
	kv_table *dkv = NULL;
	kv_status os = kv_table_open(s->e->kv, r->storage, &dkv);
	if (os != KV_OK)
		sql_kv_error(os, "opening a table");
	util_arena *vals = util_arena_new(1 << 20, 0);
	uval *e = util_xmalloc(n * sizeof *e);
	util_buf k = UTIL_BUF_INIT;
	kv_iter *volatile it = NULL;
	util_arena *volatile scratch = NULL; /* row_holds() of this transaction's claims */
	sql_vclaim *volatile nc = in_block ? util_xmalloc(n * sizeof *nc) : NULL; /* the block's claims */
	kv_slice *volatile keys = in_block ? util_xmalloc(n * sizeof *keys) : NULL;
	if (in_block)
		t->claim_gen++;
	/* The violation at the lowest line below before_line. */
	int64_t best_line = before_line;
	const sql_ix *best_x = NULL;
	sql_exec *best_ev = NULL;
	const ty_datum *best_row = NULL;
#define CANDIDATE(u)                                                                                         \
	do {                                                                                                 \
		if ((u)->line < best_line) {                                                                 \
			best_line = (u)->line;                                                               \
			best_x = x;                                                                          \
			best_ev = ev;                                                                        \
			best_row = rows[(u)->row];                                                           \
		}                                                                                            \
	} while (0)
	TY_TRY(tc)
	{
		for (int i = 0; i < set->n; i++) {
			const sql_ix *x = set->ix[i];
			sql_exec *ev = set->ev[i];
			if (!x->def.unique)
				continue;
			size_t m = 0;
			for (size_t j = 0; j < n; j++) {
				util_buf_reset(&k);
				size_t vl = 0;
				bool uq = false;
				if (!sql_ix_entry(ev, x, rows[j], &k, NULL, &vl, &uq) || !uq)
					continue; /* outside the predicate, or a NULL */
				uint8_t *v = util_arena_alloc(vals, vl ? vl : 1);
				if (!v)
					ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
				memcpy(v, k.data, vl);
				e[m++] = (uval){v, vl, j, lines[j]};
			}
			if (!m)
				continue;
			qsort(e, m, sizeof *e, uval_cmp);
			/* As the row-by-row check: each key locked (a concurrent
			 * inserter makes us wait, then its entry is seen), in key
			 * order. In a transaction block the block's values at once,
			 * as a key set (txn_lock.c), unless another transaction holds
			 * one of them: then each as the row-by-row check does. */
			size_t nk = 0;
			block_claims *bcs = in_block ? blocks_of(t, x->obj->oid, true) : NULL;
			for (size_t j = 0; claim_keys && j < m; j++)
				if (!j || e[j].vl != e[j - 1].vl || memcmp(e[j].v, e[j - 1].v, e[j].vl)) {
					if (in_block)
						keys[nk++] = (kv_slice){e[j].v, e[j].vl};
					else
						sql_txn_lock_row(
						    t, x->obj->oid, e[j].v, e[j].vl,
						    PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
						    PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
				}
			if (in_block && !sql_keyset_lock_block(bcs->ks, keys, nk))
				for (size_t j = 0; j < nk; j++)
					sql_txn_lock_row(t, x->obj->oid, keys[j].data, keys[j].len,
							 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
							 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
			size_t nnc = 0;
			/* One scan of the index over the flush's values finds which
			 * of them have committed cells at all; only those are looked
			 * at (validated) as the row-by-row check does. */
			kv_scan_opts so;
			memset(&so, 0, sizeof so);
			so.read.read_ts = KV_TS_MAX;
			so.start = e[0].v;
			so.start_len = e[0].vl;
			it = kv_scan(x->def.kv, &so);
			for (size_t p = 0; p < m;) {
				const uval *g = &e[p];
				size_t q = p + 1;
				while (q < m && e[q].vl == g->vl && !memcmp(e[q].v, g->v, g->vl))
					q++;
				if (q > p + 1)
					CANDIDATE(&e[p + 1]); /* a second row of this load with the values */
				ty_datum pk = rows[g->row][r->ncols];
				claim *c = find_claim(tx, x->obj->oid, g->v, g->vl, claim_keys && !in_block);
				bool own = false; /* a row of this transaction holds the values */
				if (c && c->pk && !(c->pklen == pk.len && !memcmp(c->pk, pk.p, pk.len))) {
					/* An earlier flush of this load (bulk), or a row this
					 * transaction wrote (in a block: validated, it may have
					 * been deleted, changed or undone by ROLLBACK TO). */
					if (!scratch)
						scratch = util_arena_new(4096, 0);
					util_arena_reset(scratch);
					own = c->bulk || row_holds(s, rel, dkv, ev, x, c->pk, c->pklen, g->v,
								   g->vl, scratch);
				}
				/* An earlier block's claim: validated the same way. */
				const sql_vclaim *bc = bcs ? sql_vset_find(&bcs->set, g->v, g->vl)
							   : block_claim(tx, x->obj->oid, g->v, g->vl);
				if (!own && bc && !(bc->pklen == pk.len && !memcmp(bc->pk, pk.p, pk.len))) {
					if (!scratch)
						scratch = util_arena_new(4096, 0);
					util_arena_reset(scratch);
					own = row_holds(s, rel, dkv, ev, x, bc->pk, bc->pklen, g->v, g->vl,
							scratch);
				}
				/* What the commit requires of the guard: what the first
				 * check of the values saw. */
				const uint8_t *expect = NULL;
				size_t elen = 0;
				bool seen = false;
				if (c && c->seen)
					expect = c->expect, elen = c->elen, seen = true;
				else if (bc)
					expect = bc->expect, elen = bc->elen, seen = true;
				if (own) {
					CANDIDATE(g);
				} else {
					bool stored = false;
					for (int steps = 0; kv_iter_valid(it); steps++) {
						int d = row_vs_values(&kv_iter_cell(it)->row, g->v, g->vl);
						if (d >= 0) {
							stored = d == 0;
							break;
						}
						if (steps < 8)
							kv_iter_next(it);
						else
							kv_iter_seek_row(it, g->v, g->vl);
					}
					uint8_t *guard = NULL, *holder = NULL;
					size_t glen = 0, holder_len = 0;
					if (stored) {
						committed_holder(s, rel, dkv, ev, x, g->v, g->vl, pk, &holder,
								 &holder_len, &guard, &glen, tx->arena);
						if (holder)
							CANDIDATE(g);
					}
					if (c && !c->seen && !in_block) {
						c->seen = true; /* the commit requires the guard unchanged */
						c->expect = guard;
						c->elen = glen;
					}
					if (!seen)
						expect = guard, elen = glen;
				}
				if (c && !in_block) {
					c->pk = util_arena_memdup_nz(tx->arena, pk.p, pk.len);
					c->pklen = pk.len;
					c->bulk = false; /* sql_index_bulk_row marks it */
				}
				if (in_block)
					nc[nnc++] = (sql_vclaim){.v = g->v,
								 .pk = (const uint8_t *)pk.p,
								 .expect = expect,
								 .vl = (uint32_t)g->vl,
								 .pklen = (uint32_t)pk.len,
								 .elen = (uint32_t)elen,
								 .gen = t->claim_gen};
				p = q;
			}
			if (in_block) {
				sql_vset_keep(&bcs->set, nc, nnc); /* (may throw: outside the lock) */
				sql_keyset_write_lock(bcs->ks);
				sql_vset_add(&bcs->set, nc, nnc);
				sql_keyset_write_unlock(bcs->ks);
			}
			kv_status st = kv_iter_status(it);
			kv_iter_close(it);
			it = NULL;
			if (st != KV_OK)
				sql_kv_error(st, "reading an index");
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (it)
			kv_iter_close(it);
		util_buf_free(&k);
		free(e);
		free(nc);
		free(keys);
		util_arena_destroy(vals);
		util_arena_destroy(scratch);
		kv_table_close(dkv);
		ty_errthrow();
	}
	TY_END(tc);
#undef CANDIDATE
	free(nc);
	free(keys);
	util_arena_destroy(scratch);
	util_buf_free(&k);
	free(e);
	util_arena_destroy(vals);
	kv_table_close(dkv);
	if (!best_x)
		return;
	TY_TRY(tv)
	{
		unique_violation(best_ev, best_x, best_row);
	}
	TY_CATCH(tv)
	{
		TY_END(tv);
		util_err_context(ty_err(), "COPY %s, line %lld", r->name, (long long)best_line);
		ty_errthrow();
	}
	TY_END(tv);
}

void sql_index_unique_release(sql_session *s, const cat_obj *rel, const ty_datum *old_row,
			      const ty_datum *new_row)
{
	sql_ixset *set = table_set(s, s->cat, rel);
	if (!set || !old_row)
		return;
	util_buf k = UTIL_BUF_INIT, nk = UTIL_BUF_INIT;
	for (int i = 0; i < set->n; i++) {
		const sql_ix *x = set->ix[i];
		if (!x->def.unique)
			continue;
		util_buf_reset(&k);
		size_t vl = 0, nvl = 0;
		bool uq = false, nuq = false;
		if (!sql_ix_entry(set->ev[i], x, old_row, &k, NULL, &vl, &uq) || !uq)
			continue;
		if (new_row) {
			util_buf_reset(&nk);
			if (sql_ix_entry(set->ev[i], x, new_row, &nk, NULL, &nvl, &nuq) && nuq && nvl == vl &&
			    !memcmp(nk.data, k.data, vl))
				continue;
		}
		sql_txn_lock_row(s->txn, x->obj->oid, (const uint8_t *)k.data, vl,
				 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
				 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	}
	util_buf_free(&k);
	util_buf_free(&nk);
}

void sql_index_pending_build(sql_txn *t, cat_oid index, cat_oid table, kv_ts from, uint64_t gen)
{
	(void)table;
	sql_txn_ix *tx = txn_ix(t);
	tx->builds = util_xrealloc(tx->builds, sizeof *tx->builds * (size_t)(tx->nbuilds + 1));
	tx->builds[tx->nbuilds++] = (pending_build){index, from, gen};
}

void sql_index_commit_done(sql_txn *t)
{
	sql_engine *e = t->s->e;
	size_t pos = 0;
	const void *key;
	size_t klen;
	void *v;
	while (util_map_next(&t->tables, &pos, &key, &klen, &v)) {
		uint64_t oid = 0;
		memcpy(&oid, key, sizeof oid < klen ? sizeof oid : klen);
		sql_index_note_write(e, (cat_oid)oid);
	}
	if (t->ix) {
		pos = 0;
		while (util_map_next(&t->ix->bulk_ix, &pos, &key, &klen, &v)) {
			uint64_t oid = 0;
			memcpy(&oid, key, sizeof oid < klen ? sizeof oid : klen);
			sql_index_note_write(e, (cat_oid)oid);
		}
	}
}

/* ---------------------------------------------------------------- commit */

struct sql_ixcommit {
	sql_txn *t;
	sql_session *s;
	cat_snap *cs; /* newest catalog (reference held when owned) */
	bool own_cs;
	util_arena *arena;
	util_arena *scratch;
	util_map tables; /* table oid -> table_maint* */
	idx_writer *w;
	util_buf k1, v1, k2, v2;
	util_err *fail; /* a unique key taken by a writer that did not lock it (a
			 * util_err is 4 KB: allocated when one is, not per commit) */
	bool failed;
	bool exclusive;      /* holds the gate exclusively (catch-up of builds) */
	kv_batch *b;         /* the commit batch (catch-up entries go straight in) */
	kv_table **extra_kv; /* index handles the catch-up batch refers to */
	int nextra;
};

typedef struct table_maint {
	const cat_obj *rel;
	sql_ixset *set;
	kv_table *data;
} table_maint;

/* The error to fill in for the first taken unique key. */
static util_err *new_fail(sql_ixcommit *ic)
{
	ic->fail = util_xcalloc(1, sizeof *ic->fail);
	ic->failed = true;
	return ic->fail;
}

static table_maint *maint_for(sql_ixcommit *ic, cat_oid table)
{
	table_maint *m = util_map_get_u64(&ic->tables, table);
	if (m)
		return m;
	util_arena *old = ty_set_arena(ic->arena);
	m = ty_alloc0(sizeof *m);
	m->rel = cat_get(ic->cs, table);
	if (m->rel && m->rel->rel.nindexes) {
		m->set = sql_ixset_open(ic->s, ic->cs, m->rel, ic->arena);
		if (m->set && kv_table_open(ic->s->e->kv, m->rel->rel.storage, &m->data) != KV_OK)
			m->data = NULL;
	}
	ty_set_arena(old);
	util_map_put_u64(&ic->tables, table, m);
	return m;
}

/* sql_kv_error's "what" for a storage gone from under a build: 40001. */
#define BUILD_GONE "opening the storage of an index build"

/* Rows of the index's table with a cell written after `from` (by other
 * transactions, while the build ran): their entries as of now. */
static void catch_up_one(sql_ixcommit *ic, const pending_build *pb)
{
	sql_session *s = ic->s;
	cat_txn *ct = ic->t->ddl;
	const cat_obj *ixo = cat_get(ic->cs, pb->index);
	if (!ixo || !ixo->rel.index || !ct)
		return; /* dropped again in this transaction */
	const cat_obj *table = cat_get(ic->cs, ixo->rel.index->table);
	if (!table)
		return;
	kv_ts now = kv_read_point(s->e->kv);
	util_arena *old = ty_set_arena(ic->arena);
	sql_ix *x = sql_ix_compile(s, ic->cs, ixo, NULL);
	sql_exec *ev = sql_ix_evaluator(s, x, ic->arena);
	kv_table *data = NULL, *ikv = NULL;
	kv_status os = kv_table_open(s->e->kv, table->rel.storage, &data);
	if (os == KV_OK)
		os = kv_table_open(s->e->kv, ixo->rel.storage, &ikv);
	if (os != KV_OK) {
		if (data)
			kv_table_close(data);
		ty_set_arena(old);
		/* On a shared store another server's DROP TABLE or rewrite
		 * (TRUNCATE, ALTER) may have committed and dropped the table's
		 * storage since this transaction read its catalog: 40001, as the
		 * commit's catalog check would give. */
		sql_kv_error(os, BUILD_GONE);
	}
	x->def.kv = ikv;
	/* Nobody wrote the table since the backfill started: nothing to do. */
	bool quiet = sql_index_table_gen(s->e, table->oid) == pb->gen;
	/* An interleaved child's build holds the table exclusively (ddl_index.c):
	 * nobody else wrote it, and its kv rows are not its rows. */
	if (table->rel.ilv_depth)
		quiet = true;
	/* Rows with a cell (delete markers included) written after the
	 * backfill's start: other transactions changed them meanwhile. */
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = now;
	so.read.min_ts = pb->from + 1;
	so.read.raw = true;
	kv_iter *it = quiet ? NULL : kv_scan(data, &so);
	util_map changed = UTIL_MAP_INIT; /* row key -> its entry key now (util_buf*), or (void *)1 if none */
	util_buf last = UTIL_BUF_INIT, k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = now;
	ro.columns = x->read_cols;
	ro.ncolumns = x->nread_cols;
	const cat_rel *r = &table->rel;
	sql_rowmap map;
	sql_rowmap_build(r, ic->arena, &map);
	kv_status ist = KV_OK;
	for (; it && kv_iter_valid(it); kv_iter_next_row(it)) {
		const kv_cell *c = kv_iter_cell(it);
		util_buf_reset(&last);
		util_buf_append(&last, c->row.data, c->row.len);
		if (util_map_get(&changed, last.data, last.len))
			continue;
		util_map_put(&changed, last.data, last.len, (void *)1);
		util_arena_reset(ic->scratch);
		ty_set_arena(ic->scratch);
		kv_row row;
		kv_status st = kv_get(data, last.data, last.len, &ro, ic->scratch, &row);
		if (st != KV_OK) {
			ist = st; /* a row skipped would have no entry */
			break;
		}
		ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		if (row.n == 0 || !sql_row_decode(r, &map, row.cells, row.n, x->deps, vals))
			continue;
		vals[r->ncols] = ty_bytes(last.data, last.len);
		util_buf_reset(&k);
		util_buf_reset(&v);
		size_t vl = 0;
		bool uq = false;
		if (!sql_ix_entry(ev, x, vals, &k, &v, &vl, &uq))
			continue;
		util_buf *keep = util_arena_zalloc(ic->arena, sizeof *keep);
		util_buf_append(keep, k.data, k.len);
		util_map_put(&changed, last.data, last.len, keep);
		kv_ts rts = sql_ix_row_ts(x, row.cells, row.n);
		if (uq) {
			uint8_t *holder, *guard;
			size_t hl, gl;
			committed_holder(s, table, data, ev, x, (const uint8_t *)k.data, vl, vals[r->ncols],
					 &holder, &hl, &guard, &gl, ic->scratch);
			if (holder && !ic->failed) {
				util_buf d = UTIL_BUF_INIT;
				sql_ix_describe_key(x, (const uint8_t *)k.data, vl, &d);
				util_err *f = new_fail(ic);
				util_err_set(f, UTIL_E_UNIQUE_VIOLATION,
					     "could not create unique index \"%s\"", ixo->rel.name);
				util_err_detail(f, "Key %s is duplicated.", d.data);
				util_buf_free(&d);
			}
			util_buf g = UTIL_BUF_INIT;
			idx_make_guard_value(last.data, last.len, &g);
			kv_batch_put(ic->b, ikv, k.data, vl, IDX_FAMILY, "", 0, rts, g.data, g.len);
			util_buf_free(&g);
		}
		v.data[0] |= IDX_F_VERIFIED;
		kv_batch_put(ic->b, ikv, k.data, k.len, IDX_FAMILY, "", 0, rts, v.data, v.len);
	}
	if (it && ist == KV_OK)
		ist = kv_iter_status(it);
	if (it)
		kv_iter_close(it);
	/* The backfill may have written entries of those rows as they were
	 * then: mask every entry of a changed row other than its entry now
	 * (one pass over the index, only when rows changed). */
	if (ist == KV_OK && util_map_count(&changed)) {
		memset(&so, 0, sizeof so);
		so.read.read_ts = now;
		so.read.no_cache = true;
		it = kv_scan(ikv, &so);
		for (; kv_iter_valid(it); kv_iter_next(it)) {
			util_arena_reset(ic->scratch);
			ty_set_arena(ic->scratch);
			idx_entry e;
			if (!idx_entry_parse(&x->def, kv_iter_cell(it), &e) || e.guard)
				continue;
			void *now_key = util_map_get(&changed, e.pk.data, e.pk.len);
			if (!now_key)
				continue;
			const util_buf *nk = now_key == (void *)1 ? NULL : now_key;
			if (nk && nk->len == e.key.len && !memcmp(nk->data, e.key.data, e.key.len))
				continue;
			kv_batch_delete(ic->b, ikv, e.key.data, e.key.len, IDX_FAMILY, "", 0, e.ts,
					KV_DELETE_COLUMN);
		}
		ist = kv_iter_status(it);
		kv_iter_close(it);
	}
	size_t mpos = 0;
	void *mv;
	while (util_map_next(&changed, &mpos, NULL, NULL, &mv))
		if (mv != (void *)1)
			util_buf_free(mv);
	util_map_free(&changed);
	util_buf_free(&last);
	util_buf_free(&k);
	util_buf_free(&v);
	kv_table_close(data);
	ty_set_arena(old);
	/* The writer keeps the index handle for the commit. */
	ic->extra_kv = util_xrealloc(ic->extra_kv, sizeof(kv_table *) * (size_t)(ic->nextra + 1));
	ic->extra_kv[ic->nextra++] = ikv;
	/* Reads of a storage dropped after it was opened: as above. */
	if (ist != KV_OK)
		sql_kv_error(ist, ist == KV_NOT_FOUND ? BUILD_GONE : "catching up an index build");
	/* Readers whose snapshot is older than this must not use the index. */
	cat_obj *n = cat_obj_copy(ixo);
	n->rel.index->valid_from = now;
	cat_txn_put(ct, n);
	ic->cs = cat_txn_snap(ct);
}

static void catch_up(sql_ixcommit *ic)
{
	sql_txn_ix *tx = ic->t->ix;
	for (int i = 0; i < tx->nbuilds; i++)
		catch_up_one(ic, &tx->builds[i]);
}

sql_ixcommit *sql_index_commit_begin(sql_txn *t, kv_batch *b)
{
	sql_session *s = t->s;
	sql_engine *e = s->e;
	sql_index_gate_shared(e);
	cat_snap *cs;
	bool own = false;
	if (t->ddl) {
		cs = cat_txn_snap(t->ddl);
	} else {
		cs = cat_current(e->cat);
		own = true;
	}
	/* Any written table with an index? */
	bool any = false;
	size_t pos = 0;
	const void *key;
	size_t klen;
	void *v;
	while (!any && util_map_next(&t->tables, &pos, &key, &klen, &v)) {
		(void)v;
		uint64_t oid = 0;
		(void)klen;
		memcpy(&oid, key, sizeof oid < klen ? sizeof oid : klen);
		const cat_obj *o = cat_get(cs, (cat_oid)oid);
		any = o && o->rel.nindexes > 0;
	}
	/* Bulk rows must have been written with the indexes that exist now. */
	if (t->ix) {
		pos = 0;
		while (util_map_next(&t->ix->bulk_ix, &pos, &key, &klen, &v)) {
			uint64_t oid = 0;
			memcpy(&oid, key, sizeof oid < klen ? sizeof oid : klen);
			const cat_obj *o = cat_get(cs, (cat_oid)oid);
			int n = o ? o->rel.nindexes : 0;
			if ((uintptr_t)v - 1 != (uintptr_t)n) {
				if (own)
					cat_snap_release(cs);
				sql_index_gate_release(e);
				ty_error(
				    UTIL_E_T_R_SERIALIZATION_FAILURE,
				    "could not serialize access due to concurrent index definition change");
			}
		}
	}
	bool builds = t->ix && t->ix->nbuilds > 0;
	if (!any && !builds) {
		if (own)
			cat_snap_release(cs);
		sql_index_gate_release(e);
		return NULL;
	}
	/* The COPY blocks' claims in one array per index: the rows' lookups
	 * below search one. */
	if (t->ix) {
		pos = 0;
		while (util_map_next(&t->ix->blocks, &pos, NULL, NULL, &v)) {
			block_claims *bc = v;
			sql_keyset_write_lock(bc->ks);
			sql_vset_compact(&bc->set);
			sql_keyset_write_unlock(bc->ks);
		}
	}
	sql_ixcommit *ic = util_xcalloc(1, sizeof *ic);
	ic->t = t;
	ic->s = s;
	ic->cs = cs;
	ic->own_cs = own;
	ic->arena = util_arena_new(16 * 1024, 0);
	ic->scratch = util_arena_new(16 * 1024, 0);
	ic->w = idx_writer_new();
	ic->b = b;
	if (builds) {
		/* No commit may run while the builds catch up and the new
		 * indexes are published. */
		sql_index_gate_release(e);
		sql_index_gate_exclusive(e);
		ic->exclusive = true;
		TY_TRY(tc)
		{
			catch_up(ic);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			sql_index_commit_end(ic);
			ty_errthrow();
		}
		TY_END(tc);
	}
	return ic;
}

/* The unique condition of a put: what the statement-time check saw, or
 * (for a key no statement checked, e.g. an index that appeared meanwhile)
 * a check now. */
static void unique_require(sql_ixcommit *ic, table_maint *m, int i, const uint8_t *values, size_t vlen,
			   const ty_datum *row)
{
	const sql_ix *x = m->set->ix[i];
	claim *c = ic->t->ix ? find_claim(ic->t->ix, x->obj->oid, values, vlen, false) : NULL;
	if (c && c->seen) {
		idx_writer_require(ic->w, &x->def, values, vlen, c->expect, c->elen);
		return;
	}
	const sql_vclaim *bc = ic->t->ix ? block_claim(ic->t->ix, x->obj->oid, values, vlen) : NULL;
	if (bc) {
		idx_writer_require(ic->w, &x->def, values, vlen, bc->expect, bc->elen);
		return;
	}
	ty_datum pk = row[m->rel->rel.ncols];
	uint8_t *holder, *guard;
	size_t hl, gl;
	committed_holder(ic->s, m->rel, m->data, m->set->ev[i], x, values, vlen, pk, &holder, &hl, &guard,
			 &gl, ic->scratch);
	if (holder && !ic->failed) {
		util_buf d = UTIL_BUF_INIT;
		sql_ix_describe_key(x, values, vlen, &d);
		util_err *f = new_fail(ic);
		util_err_set(f, UTIL_E_UNIQUE_VIOLATION,
			     "duplicate key value violates unique constraint \"%s\"", x->obj->rel.name);
		util_err_detail(f, "Key %s already exists.", d.data);
		util_buf_free(&d);
	}
	idx_writer_require(ic->w, &x->def, values, vlen, guard, gl);
}

void sql_index_commit_row(sql_ixcommit *ic, sql_wrow *w)
{
	if (!ic || w->dead)
		return;
	table_maint *m = maint_for(ic, w->table);
	if (!m->set || !m->data)
		return;
	const cat_rel *r = &m->rel->rel;
	util_arena_reset(ic->scratch);
	util_arena *old = ty_set_arena(ic->scratch);
	ty_datum *orow = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	ty_datum *nrow = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	bool had_old = w->deleted || (w->present && !w->inserted);
	bool has_old = had_old && read_committed(ic->s, m->data, r, w->key, w->keylen, orow, ic->scratch);
	bool has_new = false;
	if (w->present) {
		if (w->inserted) {
			for (int c = 0; c < r->ncols; c++)
				nrow[c] = c < w->ncols ? w->cols[c] : ty_null();
			has_new = true;
		} else if (has_old) {
			memcpy(nrow, orow, sizeof(ty_datum) * (size_t)(r->ncols + 1));
			for (int c = 0; c < r->ncols && c < w->ncols; c++)
				if (w->set[c])
					nrow[c] = w->cols[c];
			has_new = true;
		}
		nrow[r->ncols] = ty_bytes(w->key, w->keylen);
	}
	for (int i = 0; i < m->set->n; i++) {
		const sql_ix *x = m->set->ix[i];
		/* A packed row's update rewrites its sentinel, the timestamp its
		 * entries are judged by (sql_ix_row_ts): rewrite them too. */
		bool written = !w->present || w->inserted || r->packed;
		for (int c = 0; !written && c < r->ncols && c < w->ncols; c++)
			written = w->set[c] && x->deps[c];
		if (!written)
			continue;
		sql_exec *ev = m->set->ev[i];
		util_buf_reset(&ic->k1);
		util_buf_reset(&ic->v1);
		util_buf_reset(&ic->k2);
		util_buf_reset(&ic->v2);
		size_t nvl = 0, ovl = 0;
		bool nuq = false, ouq = false;
		bool new_e = has_new && sql_ix_entry(ev, x, nrow, &ic->k1, &ic->v1, &nvl, &nuq);
		bool old_e = has_old && sql_ix_entry(ev, x, orow, &ic->k2, &ic->v2, &ovl, &ouq);
		if (new_e) {
			idx_writer_put(ic->w, &x->def, ic->k1.data, ic->k1.len, ic->v1.data, ic->v1.len);
			if (nuq) {
				idx_writer_guard(ic->w, &x->def, ic->k1.data, nvl, w->key, w->keylen, true);
				unique_require(ic, m, i, (const uint8_t *)ic->k1.data, nvl, nrow);
			}
		}
		bool same_key =
		    new_e && ic->k1.len == ic->k2.len && !memcmp(ic->k1.data, ic->k2.data, ic->k1.len);
		if (old_e && !same_key)
			idx_writer_delete(ic->w, &x->def, ic->k2.data, ic->k2.len, ic->v2.data, ic->v2.len);
		bool same_values = new_e && nuq && nvl == ovl && !memcmp(ic->k1.data, ic->k2.data, nvl);
		if (old_e && ouq && !same_values)
			idx_writer_guard(ic->w, &x->def, ic->k2.data, ovl, w->key, w->keylen, false);
	}
	ty_set_arena(old);
}

kv_status sql_index_commit_finish(sql_ixcommit *ic, kv_batch *b, bool commit_if, kv_ts snapshot)
{
	kv_store *kv = ic->s->e->kv;
	if (ic->failed) {
		util_err *e = ty_errstart(ic->fail->code, "%s", ic->fail->message);
		util_err_detail(e, "%s", ic->fail->detail);
		ty_errthrow();
	}
	if (idx_writer_count(ic->w) && sql_index_split_mode(ic->s)) {
		idx_split_opts o = {commit_if ? snapshot : 0, NULL, NULL};
		o.fault = (void (*)(void *, idx_split_step))sql_index_fault;
		o.fault_arg = ic->s;
		return idx_commit_split(ic->w, kv, b, &o, NULL);
	}
	idx_writer_to_batch(ic->w, b);
	return commit_if ? kv_commit_if(kv, b, snapshot, NULL, NULL) : kv_commit(kv, b, NULL, NULL);
}

void sql_index_commit_end(sql_ixcommit *ic)
{
	if (!ic)
		return;
	size_t pos = 0;
	void *v;
	while (util_map_next(&ic->tables, &pos, NULL, NULL, &v)) {
		table_maint *m = v;
		sql_ixset_close(m->set);
		if (m->data)
			kv_table_close(m->data);
	}
	util_map_free(&ic->tables);
	for (int i = 0; i < ic->nextra; i++)
		kv_table_close(ic->extra_kv[i]);
	free(ic->extra_kv);
	if (ic->own_cs)
		cat_snap_release(ic->cs);
	idx_writer_free(ic->w);
	free(ic->fail);
	util_buf_free(&ic->k1);
	util_buf_free(&ic->v1);
	util_buf_free(&ic->k2);
	util_buf_free(&ic->v2);
	util_arena_destroy(ic->arena);
	util_arena_destroy(ic->scratch);
	sql_index_gate_release(ic->s->e);
	free(ic);
}

/* ---------------------------------------------------------------- COPY */

void sql_index_bulk_row(sql_txn *t, const cat_obj *rel, const uint8_t *key, size_t klen, const ty_datum *vals)
{
	sql_session *s = t->s;
	sql_ixset *set = table_set(s, s->cat, rel);
	sql_txn_ix *tx = txn_ix(t);
	util_map_put_u64(&tx->bulk_ix, rel->oid, (void *)(uintptr_t)(1 + rel->rel.nindexes));
	if (!set)
		return;
	const cat_rel *r = &rel->rel;
	ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	memcpy(row, vals, sizeof(ty_datum) * (size_t)r->ncols);
	row[r->ncols] = ty_bytes(key, klen);
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	for (int i = 0; i < set->n; i++) {
		const sql_ix *x = set->ix[i];
		util_buf_reset(&k);
		util_buf_reset(&v);
		size_t vl = 0;
		bool uq = false;
		if (!sql_ix_entry(set->ev[i], x, row, &k, &v, &vl, &uq))
			continue;
		v.data[0] |= IDX_F_VERIFIED;
		kv_batch_put(t->bulk, x->def.kv, k.data, k.len, IDX_FAMILY, "", 0, KV_TS_LATEST, v.data,
			     v.len);
		if (uq) {
			util_buf g = UTIL_BUF_INIT;
			idx_make_guard_value(key, klen, &g);
			kv_batch_put(t->bulk, x->def.kv, k.data, vl, IDX_FAMILY, "", 0, KV_TS_LATEST, g.data,
				     g.len);
			util_buf_free(&g);
			claim *c = find_claim(tx, x->obj->oid, k.data, vl, false);
			if (c && c->seen)
				kv_batch_require(t->bulk, x->def.kv, k.data, vl, IDX_FAMILY, "", 0,
						 c->expect ? KV_CMP_EQ : KV_CMP_ABSENT, c->expect, c->elen);
			if (c)
				c->bulk = true;
		}
	}
	util_buf_free(&k);
	util_buf_free(&v);
}

/* One index entry of COPY's sorted flush, its key and value copied. */
typedef struct bent {
	const uint8_t *k; /* the entry's key; k[0, vl) the unique values */
	size_t kl, vl;
	const uint8_t *v;
	size_t vlen;
	bool uq;
	size_t row;
} bent;

static int bent_cmp(const void *pa, const void *pb)
{
	const bent *a = pa, *b = pb;
	return util_bytes_cmp(a->k, a->kl, b->k, b->kl);
}

void sql_index_bulk_rows(sql_txn *t, const cat_obj *rel, ty_datum *const *rows, size_t n)
{
	sql_session *s = t->s;
	sql_ixset *set = table_set(s, s->cat, rel);
	sql_txn_ix *tx = txn_ix(t);
	util_map_put_u64(&tx->bulk_ix, rel->oid, (void *)(uintptr_t)(1 + rel->rel.nindexes));
	if (!set || !n)
		return;
	const cat_rel *r = &rel->rel;
	util_arena *a = util_arena_new(4u << 20, 0);
	bent *e = util_xmalloc(n * sizeof *e);
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT, g = UTIL_BUF_INIT;
	TY_TRY(tc)
	{
		for (int i = 0; i < set->n; i++) {
			const sql_ix *x = set->ix[i];
			size_t m = 0;
			for (size_t j = 0; j < n; j++) {
				util_buf_reset(&k);
				util_buf_reset(&v);
				size_t vl = 0;
				bool uq = false;
				if (!sql_ix_entry(set->ev[i], x, rows[j], &k, &v, &vl, &uq))
					continue;
				v.data[0] |= IDX_F_VERIFIED;
				uint8_t *kc = util_arena_alloc(a, k.len + v.len + 1);
				if (!kc)
					ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
				memcpy(kc, k.data, k.len);
				memcpy(kc + k.len, v.data, v.len);
				e[m++] = (bent){kc, k.len, vl, kc + k.len, v.len, uq, j};
			}
			qsort(e, m, sizeof *e, bent_cmp);
			for (size_t j = 0; j < m; j++) {
				const bent *b = &e[j];
				if (b->uq) {
					/* The guard (the values alone) sorts just before its entry. */
					ty_datum pk = rows[b->row][r->ncols];
					util_buf_reset(&g);
					idx_make_guard_value(pk.p, pk.len, &g);
					kv_batch_put(t->bulk, x->def.kv, b->k, b->vl, IDX_FAMILY, "", 0,
						     KV_TS_LATEST, g.data, g.len);
					claim *c = find_claim(tx, x->obj->oid, b->k, b->vl, false);
					if (c && c->seen)
						kv_batch_require(t->bulk, x->def.kv, b->k, b->vl, IDX_FAMILY,
								 "", 0, c->expect ? KV_CMP_EQ : KV_CMP_ABSENT,
								 c->expect, c->elen);
					if (c)
						c->bulk = true;
				}
				kv_batch_put(t->bulk, x->def.kv, b->k, b->kl, IDX_FAMILY, "", 0, KV_TS_LATEST,
					     b->v, b->vlen);
			}
			util_arena_reset(a);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_buf_free(&k);
		util_buf_free(&v);
		util_buf_free(&g);
		free(e);
		util_arena_destroy(a);
		ty_errthrow();
	}
	TY_END(tc);
	util_buf_free(&k);
	util_buf_free(&v);
	util_buf_free(&g);
	free(e);
	util_arena_destroy(a);
}
