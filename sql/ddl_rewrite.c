/*
 * ddl_rewrite.c — the data pass of ALTER TABLE: every row of a table
 * (committed rows merged with the transaction's own writes) is read once,
 * its new values computed (new column defaults, USING casts), NOT NULL and
 * CHECK constraints verified, and then either
 *   - written into a NEW STORAGE under the new row key (ADD/DROP PRIMARY
 *     KEY, a key column's type change, key_order): the rows are streamed
 *     in batches straight into the new kv table, at the transaction's read
 *     timestamp so the transaction itself sees them. The new storage is
 *     private until the catalog change that names it commits; an abort
 *     drops it, a crash leaves an unreferenced kv table that cat_open
 *     drops. So the table is either all old or all new, never a mix, and
 *     the transaction's row buffer never holds the table.
 *   - or, without a key change, written into the existing rows as cells of
 *     the new columns only (ADD COLUMN ... DEFAULT, type changes of
 *     non-key columns) through the transaction's buffer; nothing else of
 *     the row is rewritten.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ddl_int.h"
#include "plan_int.h"

/* While keys ascend, the rows go into one batch (it spills sorted runs
 * past the store's spill size), committed as sorted files: no memstore
 * insert, no log record per cell, and one file per family in the end.
 * Once a key arrives out of order, the uniqueness lookups must see what
 * came before: batches of this size through the memstore from then on. */
#define REWRITE_BATCH_BYTES (4u << 20)

/* An old table of at most this many cells (in files, in its memstore by
 * ~64 bytes each, and the transaction's own rows by 8 cells each) is
 * rewritten through the memstore and the log, not into a sorted file: a
 * file costs the new storage three fsyncs (file, directory, manifest edit)
 * before the commit's own, milliseconds each, for a few blocks of rows
 * (pgbench's branches and tellers). The log records need no fsync of their
 * own: the commit's fsync of the log follows them. */
#define REWRITE_SMALL_CELLS 4096u

sql_exec *sql_rewrite_exec(sql_session *s, sql_pstate *ps)
{
	sql_planned *pl = ty_alloc0(sizeof *pl);
	pl->ncache = ps->ncache;
	pl->nexec_params = ps->nexec_params;
	return sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
}

/* The table's row as Vars of RTE 1: every column, then the row key. */
static sql_tlist *row_tlist(const cat_rel *r)
{
	sql_tlist *tl = sql_tl_new();
	for (int c = 0; c <= r->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, c < r->ncols ? r->cols[c].type : TY_BYTEA, -1);
		v->typmod = c < r->ncols ? r->cols[c].typmod : -1;
		v->var.rte = 1;
		v->var.col = c;
		sql_tl_add(tl, v);
	}
	return tl;
}

sql_expr *sql_rewrite_row_expr(sql_session *s, const cat_obj *rel, pnode *expr, const char *text,
			       sql_expr_ctx ctx, sql_pstate *ps, ty_oid target, int32_t typmod,
			       bool *cannot_coerce)
{
	cat_snap *cs = sql_ddl_snap(s);
	sql_pstate *saved_text_ps = ps;
	const char *saved_text = ps->text;
	ps->text = text ? text : "";
	ps->no_params = true;
	sql_actx ax = {s, cs, ty_get_arena(), ps};
	sql_query *q = sql_new_query(&ax, SQL_CMD_SELECT, NULL);
	sql_jnode *jn;
	int rte = sql_add_table_rte(&ax, q, rel, NULL, &jn);
	sql_add_namespace(q, rte, true, true);
	sql_expr *e = sql_transform_expr(&ax, q, expr, ctx);
	if (target) {
		if (e->type != target && e->type != TY_UNKNOWN &&
		    !sql_can_coerce(e->type, target, SQL_COERCE_ASSIGNMENT)) {
			*cannot_coerce = true;
			ps->text = saved_text;
			return NULL;
		}
		e = sql_coerce(&ax, e, target, typmod, SQL_COERCE_ASSIGNMENT, -1);
	}
	sql_planned top;
	memset(&top, 0, sizeof top);
	sql_planner pl = {&ax, &top, NULL, q, 0};
	e = sql_plan_prep(&pl, e);
	e = sql_set_refs(&pl, e, row_tlist(&rel->rel));
	saved_text_ps->text = saved_text;
	return e;
}

sql_expr *sql_rewrite_check_expr(sql_session *s, const cat_obj *rel, const char *check_sql, sql_pstate *ps)
{
	util_err perr;
	PgQuery__ParseResult *pr = sql_parse_text(check_sql, &perr);
	if (!pr)
		ty_throw(&perr);
	sql_expr *e;
	TY_TRY(tc)
	{
		pnode *val = pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val;
		bool cannot = false;
		e = sql_rewrite_row_expr(s, rel, val, check_sql, SQL_EXPR_CHECK, ps, TY_BOOL, -1, &cannot);
		if (cannot)
			ty_error(UTIL_E_DATATYPE_MISMATCH, "argument of CHECK must be type boolean");
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_err()->position = 0; /* it would point into the stored text, not the statement */
		ty_errthrow();
	}
	TY_END(tc);
	pg_query__parse_result__free_unpacked(pr, NULL);
	return e;
}

sql_expr *sql_rewrite_default_expr(sql_session *s, const cat_obj *rel, int col, sql_pstate *ps)
{
	sql_actx ax = {s, sql_ddl_snap(s), ty_get_arena(), ps};
	ps->no_params = true;
	sql_expr *e;
	TY_TRY(tc)
	{
		e = sql_column_default(&ax, &rel->rel, col);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_err()->position = 0; /* it would point into the stored text, not the statement */
		ty_errthrow();
	}
	TY_END(tc);
	sql_query *q = sql_new_query(&ax, SQL_CMD_SELECT, NULL);
	sql_planned top;
	memset(&top, 0, sizeof top);
	sql_planner pl = {&ax, &top, NULL, q, 0};
	e = sql_plan_prep(&pl, e);
	return sql_set_refs(&pl, e, row_tlist(&rel->rel));
}

/* ---------------------------------------------------------------- the pass */

typedef struct rk_cell {
	int col;           /* column index (the same in the old and new table) */
	const uint8_t *v;  /* its value in the old storage's block, or NULL: ... */
	uint32_t off, len; /* ... at off in rk_row.bytes (copied by rk_leave) */
	uint8_t qual[2];   /* its qualifier: the column id, the same in the new table */
} rk_cell;

typedef struct rk_row {
	const sql_rowmap *map; /* the old table's column ids */
	const bool *use;       /* per column: its cell matters (a column of the new row) */
	int *at;               /* per column: its cell in cells[], or -1 */
	rk_cell *cells;
	int n, cap;
	int held;       /* cells[held..n) point into the old storage's block */
	util_buf bytes; /* values copied out of a block the scan left (rk_leave) */
	bool exists;
	kv_put_cell *put; /* the new row's cells (sentinel first), cap + 1 of them */
} rk_row;

typedef struct rw_state {
	sql_session *s;
	sql_rewrite *rw;
	const cat_rel *oldr, *newr;
	kv_table *dst; /* new storage */
	kv_table *src; /* old storage (backfill writes) */
	kv_batch *batch;
	sql_rowput row; /* the new row's cells */
	kv_ts ts;
	util_buf key;
	uint8_t *maxkey; /* greatest key written so far (uniqueness shortcut) */
	size_t maxkey_len, maxkey_cap;
	util_map batch_keys; /* keys in the current batch (once out of order) */
	bool unordered;      /* a key came below an earlier one */
	bool small;          /* a small old table: through the memstore (REWRITE_SMALL_CELLS) */
	util_arena *get_arena;
	const char *pk_name;
	/* re-key by cells */
	kv_iter *it;      /* over the old storage */
	rk_row rk;        /* the row being read */
	util_arena *keya; /* the new key's decoded values */
	uint64_t rows;    /* rows written by this pass */
	/* A half of a re-key on two threads (rekey_halves) is strict: at a key
	 * not above the last one or a NOT NULL column without a cell it stops
	 * with bail set, and the serial pass reports what is wrong. */
	bool strict, bail;
	util_buf first; /* a strict pass's first key */
} rw_state;

static UTIL_NORETURN void null_values(const cat_rel *r, const cat_column *c, cat_snap *cs)
{
	util_err *e = ty_errstart(UTIL_E_NOT_NULL_VIOLATION,
				  "column \"%s\" of relation \"%s\" contains null values", c->name, r->name);
	const char *sn = sql_schema_name(cs, r->schema);
	if (sn)
		util_err_field(e->schema, sn);
	util_err_field(e->table, r->name);
	util_err_field(e->column, c->name);
	ty_errthrow();
}

static UTIL_NORETURN void duplicated(rw_state *st, const ty_datum *vals)
{
	const cat_rel *r = st->newr;
	util_buf cols = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	sql_row_key_describe(r, vals, &cols, &v);
	util_err *e = ty_errstart(UTIL_E_UNIQUE_VIOLATION, "could not create unique index \"%s\"",
				  st->pk_name ? st->pk_name : "?");
	util_err_detail(e, "Key (%s)=(%s) is duplicated.", cols.data, v.data);
	const char *sn = sql_schema_name(sql_ddl_snap(st->s), r->schema);
	if (sn)
		util_err_field(e->schema, sn);
	util_err_field(e->table, r->name);
	if (st->pk_name)
		util_err_field(e->constraint, st->pk_name);
	util_buf_free(&cols);
	util_buf_free(&v);
	ty_errthrow();
}

static void flush_batch(rw_state *st)
{
	if (!st->batch || kv_batch_count(st->batch) == 0)
		return;
	/* Ascending keys: the batch holds one sorted run, committed as a
	 * sorted file (no memstore insert, no log record per cell). */
	kv_write_opts wo = {.no_sync = true, .ts = 0, .ingest = !st->unordered && !st->small};
	kv_status ks = kv_commit(st->s->e->kv, st->batch, &wo, NULL);
	if (ks != KV_OK)
		sql_kv_error(ks, "writing a table");
	kv_batch_clear(st->batch);
	util_map_free(&st->batch_keys);
	memset(&st->batch_keys, 0, sizeof st->batch_keys);
}

/* True if k is above every key written so far (and then the new maximum).
 * Keys mostly arrive in increasing order (the new key often follows the
 * insertion order): such a key needs no uniqueness lookup. */
static bool ascending(rw_state *st, const uint8_t *k, size_t kl)
{
	if (st->maxkey_len && util_bytes_cmp(k, kl, st->maxkey, st->maxkey_len) <= 0)
		return false;
	if (!st->maxkey_len && st->strict)
		util_buf_append(&st->first, k, kl);
	if (kl > st->maxkey_cap) {
		st->maxkey_cap = kl * 2;
		st->maxkey = util_xrealloc(st->maxkey, st->maxkey_cap);
	}
	memcpy(st->maxkey, k, kl);
	st->maxkey_len = kl;
	return true;
}

/* True if the key (not ascending) was already written by this rewrite. */
static bool seen_key(rw_state *st, const uint8_t *k, size_t kl)
{
	if (util_map_get(&st->batch_keys, k, kl))
		return true;
	if (!st->get_arena)
		st->get_arena = util_arena_new(4096, 0);
	util_arena_reset(st->get_arena);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	kv_column sentinel = {SQL_FAMILY, "", 0};
	ro.columns = &sentinel;
	ro.ncolumns = 1;
	kv_row row;
	kv_status ks = kv_get(st->dst, k, kl, &ro, st->get_arena, &row);
	if (ks != KV_OK && ks != KV_NOT_FOUND)
		sql_kv_error(ks, "reading a row");
	return ks == KV_OK && row.n > 0;
}

/* Starts a row of the new storage: its key (from vals' key columns) into
 * st->key, the uniqueness check, the batch, the sentinel. The caller adds
 * the row's cells to st->row (ascending column ids) and ends with end_row. */
static void begin_row(rw_state *st, const ty_datum *vals)
{
	util_buf_reset(&st->key);
	sql_row_key(st->newr, vals, &st->key);
	const uint8_t *k = (const uint8_t *)st->key.data;
	size_t kl = st->key.len;
	if (!ascending(st, k, kl)) {
		if (st->strict) {
			st->bail = true;
			return;
		}
		if (!st->unordered) {
			/* What came so far goes in sorted; the rest through the
			 * memstore, where the lookups below find it. */
			flush_batch(st);
			st->unordered = true;
		}
		if (st->rw->check_unique_key && seen_key(st, k, kl))
			duplicated(st, vals);
	}
	if (!st->batch)
		st->batch = kv_batch_new();
	if (!st->unordered && !st->small && kv_batch_count(st->batch) == 0)
		kv_batch_sorted(st->batch); /* ascending: cells go straight to a sorted file */
	/* Cells in key order (the sentinel's empty qualifier first): a batch
	 * of ascending rows is then one sorted run and needs no sort. */
	st->row.packed = st->newr->packed;
	sql_rowput_begin(&st->row);
}

/* end_row after the row's cells went into the batch. */
static void row_put(rw_state *st)
{
	const uint8_t *k = (const uint8_t *)st->key.data;
	size_t kl = st->key.len;
	if (st->rw->check_unique_key && st->unordered)
		util_map_put(&st->batch_keys, k, kl, (void *)1);
	if ((st->unordered || st->small) && kv_batch_byte_size(st->batch) >= REWRITE_BATCH_BYTES)
		flush_batch(st);
	else if (st->s->e->opts.store_uri && kv_batch_count(st->batch) >= SQL_SHARED_BATCH_CELLS)
		flush_batch(st); /* a shared store: bounded transactions */
}

static void end_row(rw_state *st)
{
	sql_rowput_write(&st->row, st->batch, st->dst, (const uint8_t *)st->key.data, st->key.len, st->ts);
	row_put(st);
}

static void write_new_row(rw_state *st, const ty_datum *vals)
{
	const cat_rel *r = st->newr;
	begin_row(st, vals);
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (c->dropped || vals[i].null || !sql_column_in_cells(r, c))
			continue;
		sql_rowput_encode(&st->row, c->col_id, c->type, vals[i]);
	}
	end_row(st);
}

static void one_row(rw_state *st, const ty_datum *old, ty_datum *newv)
{
	sql_rewrite *rw = st->rw;
	const cat_rel *oldr = st->oldr, *newr = st->newr;
	for (int c = 0; c < newr->ncols; c++) {
		if (rw->exprs && rw->exprs[c])
			newv[c] = sql_eval(rw->ex, rw->exprs[c], old);
		else if (c < oldr->ncols && !newr->cols[c].dropped)
			newv[c] = old[c];
		else
			newv[c] = ty_null();
	}
	newv[newr->ncols] = old[oldr->ncols];
	if (rw->check_notnull)
		for (int c = 0; c < newr->ncols; c++)
			if (rw->check_notnull[c] && newv[c].null)
				null_values(newr, &newr->cols[c], sql_ddl_snap(st->s));
	for (int i = 0; i < rw->nchecks; i++) {
		ty_datum d = sql_eval(rw->ex, rw->checks[i], newv);
		if (!d.null && !d.i) {
			util_err *e =
			    ty_errstart(UTIL_E_CHECK_VIOLATION,
					"check constraint \"%s\" of relation \"%s\" is violated by some row",
					rw->check_names[i], newr->name);
			const char *sn = sql_schema_name(sql_ddl_snap(st->s), newr->schema);
			if (sn)
				util_err_field(e->schema, sn);
			util_err_field(e->table, newr->name);
			util_err_field(e->constraint, rw->check_names[i]);
			ty_errthrow();
		}
	}
	if (rw->new_storage) {
		write_new_row(st, newv);
	} else if (rw->backfill) {
		ty_datum key = old[oldr->ncols];
		sql_txn_put_row(st->s->txn, rw->new_rel, st->src, key.p, key.len, newv, rw->backfill, false,
				true);
	}
}

static void rw_cleanup(rw_state *st)
{
	if (st->batch)
		kv_batch_free(st->batch);
	st->batch = NULL;
	if (st->dst)
		kv_table_close(st->dst);
	st->dst = NULL;
	if (st->src)
		kv_table_close(st->src);
	st->src = NULL;
	util_buf_free(&st->key);
	sql_rowput_free(&st->row);
	free(st->maxkey);
	st->maxkey = NULL;
	util_map_free(&st->batch_keys);
	util_arena_destroy(st->get_arena);
	st->get_arena = NULL;
	if (st->it)
		kv_iter_close(st->it);
	st->it = NULL;
	free(st->rk.cells);
	st->rk.cells = NULL;
	free(st->rk.put);
	st->rk.put = NULL;
	util_buf_free(&st->rk.bytes);
	util_arena_destroy(st->keya);
	st->keya = NULL;
	util_buf_free(&st->first);
}

/* ---------------------------------------------------------------- re-key by cells */

/* ADD PRIMARY KEY on a table without one changes only the row key: each
 * value cell is, byte for byte, the same under the new key (docs/row-format.md).
 * Such a rewrite reads the old rows' cells straight from the store, decodes
 * only the new key's columns (and looks for the NOT NULL ones) and copies
 * the other cells' bytes under the new key: no executor, no decoding and
 * encoding of values. Same rows in the same order as the executor's scan,
 * so the same first violation is reported. */

/* True when the rewrite only re-keys rows of a table without a primary
 * key into the same columns, with the same types and column ids. */
static bool rekey_by_cells_ok(sql_session *s, const sql_rewrite *rw)
{
	const cat_rel *o = &rw->old_rel->rel, *n = &rw->new_rel->rel;
	if (!rw->new_storage || rw->nchecks || o->npk || !n->npk || o->ilv_depth || o->ilv_nchildren ||
	    n->ilv_depth || n->ncols < o->ncols)
		return false;
	for (int c = 0; c < n->ncols; c++) {
		if (rw->exprs && rw->exprs[c])
			return false;
		if (c >= o->ncols || o->cols[c].dropped || n->cols[c].dropped)
			continue;
		if (o->cols[c].col_id != n->cols[c].col_id || o->cols[c].type != n->cols[c].type ||
		    o->cols[c].typmod != n->cols[c].typmod)
			return false;
	}
	/* The transaction's own writes to the table are merged only by the
	 * executor's scan. */
	int nw = 0;
	sql_txn_table_writes(s->txn, rw->old_rel->oid, ty_get_arena(), &nw);
	return nw == 0;
}

/* One stored column value of the row being read (a cell's or a packed one). */
static void rk_col(void *arg, uint16_t id, const uint8_t *v, size_t vl)
{
	rk_row *rr = arg;
	if (id >= rr->map->ncolids || rr->map->idx[id] < 0)
		return; /* a dropped column */
	int col = rr->map->idx[id];
	if (!rr->use[col])
		return;
	if (rr->n == rr->cap) {
		rr->cap = rr->cap ? 2 * rr->cap : 16;
		rr->cells = util_xrealloc(rr->cells, sizeof *rr->cells * (size_t)rr->cap);
		rr->put = util_xrealloc(rr->put, sizeof *rr->put * (size_t)(rr->cap + 1));
	}
	rr->at[col] = rr->n;
	rk_cell *cl = &rr->cells[rr->n++];
	*cl = (rk_cell){col, vl ? v : (const uint8_t *)"", 0, (uint32_t)vl, {0, 0}};
	sql_colid_qual(id, cl->qual);
}

/* The scan is about to leave the block the row's held values point into
 * (kv_iter_row_hold): they are copied (a row rarely crosses a block). A
 * packed row's values point into its sentinel's value, held the same way. */
static void rk_leave(void *arg)
{
	rk_row *rr = arg;
	for (int i = rr->held; i < rr->n; i++) {
		rk_cell *cl = &rr->cells[i];
		cl->off = (uint32_t)rr->bytes.len;
		util_buf_append(&rr->bytes, cl->v, cl->len);
		cl->v = NULL;
	}
	rr->held = rr->n;
}

static inline const uint8_t *rk_value(const rk_row *rr, const rk_cell *cl)
{
	return cl->v ? cl->v : (const uint8_t *)rr->bytes.data + cl->off;
}

static void rk_cell_fn(void *arg, const kv_cell *c)
{
	rk_row *rr = arg;
	if (c->family.len != 1 || c->family.data[0] != SQL_FAMILY[0])
		return;
	if (c->qualifier.len == 0) {
		rr->exists = true;
		if (c->value.len) /* a packed row (rowpack.c): its values as cells */
			sql_packed_each(&c->value, rk_col, rr);
		return;
	}
	if (c->qualifier.len != 2)
		return;
	rk_col(rr, (uint16_t)((c->qualifier.data[0] << 8) | c->qualifier.data[1]), c->value.data,
	       c->value.len);
}

/* Writes the row collected in rr under its new key; vals holds NULLs
 * except in the key columns. */
static void rk_write(rw_state *st, rk_row *rr, ty_datum *vals, const bool *keep)
{
	const cat_rel *nr = st->newr;
	const bool *nn = st->rw->check_notnull;
	if (nn)
		for (int c = 0; c < nr->ncols; c++)
			if (nn[c] && rr->at[c] < 0) {
				if (st->strict) {
					st->bail = true;
					return;
				}
				null_values(nr, &nr->cols[c], sql_ddl_snap(st->s));
			}
	for (int i = 0; i < nr->npk; i++) {
		int c = nr->pk[i] - 1;
		const rk_cell *cl = rr->at[c] < 0 ? NULL : &rr->cells[rr->at[c]];
		vals[c] =
		    cl ? sql_value_decode_t(rr->map->types[c], nr->cols[c].type, rk_value(rr, cl), cl->len)
		       : ty_null();
	}
	begin_row(st, vals);
	if (st->bail)
		return;
	if (nr->packed) { /* one cell: the values packed through st->row */
		for (int i = 0; i < rr->n; i++) {
			const rk_cell *cl = &rr->cells[i];
			if (keep[cl->col])
				sql_rowput_raw(&st->row, util_get_be16(cl->qual), rk_value(rr, cl), cl->len);
		}
		end_row(st);
		return;
	}
	/* The cells straight into the batch (the old cells' qualifiers are the
	 * new ones: same column ids), not through st->row. */
	if (!rr->put)
		rr->put = util_xmalloc(sizeof *rr->put * (size_t)(rr->cap + 1));
	kv_put_cell *put = rr->put;
	size_t n = 0;
	put[n++] = (kv_put_cell){"", 0, "", 0};
	for (int i = 0; i < rr->n; i++) {
		const rk_cell *cl = &rr->cells[i];
		if (keep[cl->col])
			put[n++] = (kv_put_cell){cl->qual, 2,
						 cl->len ? rk_value(rr, cl) : (const uint8_t *)"", cl->len};
	}
	kv_batch_put_row(st->batch, st->dst, st->key.data, st->key.len, SQL_FAMILY, st->ts, put, n);
	row_put(st);
}

/* What every pass of one re-key shares, read only. */
typedef struct rk_plan {
	sql_rowmap map; /* the old table's column ids */
	bool *use;      /* per column: its cell matters */
	bool *keep;     /* per column: its cell goes into the new row */
} rk_plan;

static void rk_plan_build(rw_state *st, rk_plan *pl)
{
	const cat_rel *o = st->oldr, *nr = st->newr;
	sql_rowmap_build(o, ty_get_arena(), &pl->map);
	pl->use = ty_alloc0(sizeof(bool) * (size_t)nr->ncols);
	pl->keep = ty_alloc0(sizeof(bool) * (size_t)nr->ncols);
	for (int c = 0; c < nr->ncols; c++) {
		pl->use[c] = c < o->ncols && !o->cols[c].dropped && !nr->cols[c].dropped;
		pl->keep[c] = pl->use[c] && sql_column_in_cells(nr, &nr->cols[c]);
	}
}

/* Re-keys the old rows of [start, stop) (NULL: unbounded) into st's batch,
 * at st->ts; throws like the executor's pass. halt (a strict pass's, else
 * NULL) stops it, with bail set, when the other half bailed or failed;
 * interrupts are checked when st is the session's own. */
static void rk_pass(rw_state *st, const rk_plan *pl, kv_slice start, kv_slice stop, atomic_bool *halt,
		    bool own)
{
	rk_row *rr = &st->rk;
	const cat_rel *nr = st->newr;
	rr->at = ty_alloc(sizeof(int) * (size_t)nr->ncols);
	for (int c = 0; c < nr->ncols; c++)
		rr->at[c] = -1;
	rr->map = &pl->map;
	rr->use = pl->use;
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(nr->ncols + 1));
	for (int c = 0; c <= nr->ncols; c++)
		vals[c] = ty_null();
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = st->ts;
	so.read.no_cache = true; /* the old storage goes away with the commit */
	so.start = start.data;
	so.start_len = start.len;
	so.stop = stop.data;
	so.stop_len = stop.len;
	st->it = kv_scan(st->src, &so);
	util_arena *saved = ty_get_arena();
	util_arena *keya = st->keya = util_arena_new(4096, 0);
	uint64_t n = 0;
	while (kv_iter_valid(st->it) && !st->bail) {
		rr->exists = false;
		kv_iter_row_hold(st->it, rk_cell_fn, rk_leave, rr);
		if (rr->exists) {
			ty_set_arena(keya);
			rk_write(st, rr, vals, pl->keep);
			ty_set_arena(saved);
			st->rows += !st->bail;
		}
		for (int i = 0; i < rr->n; i++)
			rr->at[rr->cells[i].col] = -1;
		rr->n = rr->held = 0;
		util_buf_reset(&rr->bytes);
		if ((++n & 1023) == 0) {
			util_arena_reset(keya);
			if (halt && atomic_load(halt))
				st->bail = true;
			if (own)
				sql_check_interrupts(st->s);
		}
	}
	kv_status ks = kv_iter_status(st->it);
	if (ks != KV_OK)
		sql_kv_error(ks, "scanning a table");
}

/* ---------------------------------------------------------------- two halves on two threads */

/* A re-key of a table of at least this many blocks in its sorted files
 * runs as two halves (a thread's start is then noise). */
#define RK_HALVES_MIN_BLOCKS 64

typedef struct rk_half {
	rw_state st; /* its own scan, batch, row and keys; the tables borrowed */
	const rk_plan *pl;
	kv_slice start;
	atomic_bool *halt;
	const ty_settings *tys;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done; /* under mu */
} rk_half;

/* Ends st's streamed run here and now: its last blocks, filter, index
 * and footer are written by this thread, not by the commit on the
 * connection thread after it (the helper's file finishes while the
 * connection thread finishes its own). Moving the runs into a new batch
 * is what closes the stream; the commit takes them from there. */
static void rk_finish_stream(rw_state *st)
{
	if (!st->batch)
		return;
	kv_batch *b = kv_batch_new();
	if (kv_batch_take_runs(b, st->batch) != KV_OK) {
		kv_batch_free(b);
		st->bail = true; /* the serial pass meets a lasting failure again */
		return;
	}
	kv_batch_free(st->batch);
	st->batch = b;
}

static void *rk_half_main(void *arg)
{
	rk_half *h = arg;
	ty_set_settings(h->tys);
	util_arena *a = util_arena_new(4096, 0);
	ty_set_arena(a);
	TY_TRY(t)
	{
		rk_pass(&h->st, h->pl, h->start, (kv_slice){NULL, 0}, h->halt, false);
		if (!h->st.bail)
			rk_finish_stream(&h->st);
	}
	TY_CATCH(t)
	{
		TY_END(t);
		h->st.bail = true; /* the serial pass meets it again and reports it */
	}
	TY_END(t);
	if (h->st.bail)
		atomic_store(h->halt, true);
	ty_set_arena(NULL);
	util_arena_destroy(a);
	pthread_mutex_lock(&h->mu);
	h->done = true;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* Waits for the helper's half, checking the session's interrupts (a cancel
 * throws; the caller stops the helper). */
static void rk_wait(rk_half *h, sql_session *s)
{
	pthread_mutex_lock(&h->mu);
	while (!h->done) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&h->cv, &h->mu, &ts);
		if (!h->done) {
			pthread_mutex_unlock(&h->mu);
			sql_check_interrupts(s);
			pthread_mutex_lock(&h->mu);
		}
	}
	pthread_mutex_unlock(&h->mu);
}

/* The old table's middle row key (in the statement's arena), or false when
 * the table is too small to be worth a second thread, or so large that its
 * blocks' keys pass the budget (they are all copied to pick the points). */
static bool rk_middle(rw_state *st, kv_slice *mid)
{
	kv_slice pts[RK_HALVES_MIN_BLOCKS];
	int n = 0;
	util_arena *a = util_arena_new(64 * 1024, 32u << 20);
	bool ok = kv_split_points(st->src, NULL, 0, NULL, 0, RK_HALVES_MIN_BLOCKS, a, pts, &n) == KV_OK &&
		  n >= RK_HALVES_MIN_BLOCKS - 1;
	if (ok) {
		uint8_t *k = ty_alloc(pts[n / 2].len + 1);
		memcpy(k, pts[n / 2].data, pts[n / 2].len);
		*mid = (kv_slice){k, pts[n / 2].len};
	}
	util_arena_destroy(a);
	return ok;
}

/* Undoes a pass that wrote nothing committed (its batch's files go). */
static void rk_reset(rw_state *st)
{
	kv_batch_free(st->batch);
	st->batch = NULL;
	if (st->it)
		kv_iter_close(st->it);
	st->it = NULL;
	st->maxkey_len = 0;
	st->rows = 0;
	st->strict = st->bail = false;
	util_buf_reset(&st->first);
	util_buf_reset(&st->rk.bytes);
	st->rk.n = st->rk.held = 0;
	util_arena_destroy(st->keya);
	st->keya = NULL;
}

/* The re-key as two key ranges of the old table read, re-keyed and streamed
 * into sorted files on two threads (this one and a helper), committed as one
 * large commit: both halves' new keys must ascend and the second's start
 * above the first's end, which is the case the serial pass streams too (new
 * keys in the old rows' order, as pgbench's accounts). Anything else (a key
 * out of order, a duplicate, a NULL key column, an error in the helper)
 * drops both halves' files and returns false: the serial pass then runs
 * from the start and reports the first violation in row order as before. */
static bool rekey_halves(rw_state *st, const rk_plan *pl)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || st->s->e->opts.store_uri || st->small)
		return false;
	kv_slice mid;
	if (!rk_middle(st, &mid))
		return false;
	atomic_bool halt;
	atomic_init(&halt, false);
	rk_half h;
	memset(&h, 0, sizeof h);
	h.st.s = st->s;
	h.st.rw = st->rw;
	h.st.oldr = st->oldr;
	h.st.newr = st->newr;
	h.st.dst = st->dst;
	h.st.src = st->src;
	h.st.ts = st->ts;
	h.st.pk_name = st->pk_name;
	h.st.strict = true;
	h.pl = pl;
	h.start = mid;
	h.halt = &halt;
	h.tys = ty_get_settings();
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.cv, NULL);
	pthread_t th;
	if (pthread_create(&th, NULL, rk_half_main, &h) != 0) {
		pthread_cond_destroy(&h.cv);
		pthread_mutex_destroy(&h.mu);
		return false;
	}
	st->strict = true;
	util_arena *saved = ty_get_arena();
	bool failed = false;
	util_err err;
	TY_TRY(tc)
	{
		rk_pass(st, pl, (kv_slice){NULL, 0}, mid, &halt, true);
		if (st->bail)
			atomic_store(&halt, true);
		rk_wait(&h, st->s);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(saved);
		failed = true;
		memcpy(&err, ty_err(), sizeof err);
	}
	TY_END(tc);
	if (failed || st->bail)
		atomic_store(&halt, true);
	pthread_join(th, NULL);
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
	bool ok = !failed && !st->bail && !h.st.bail;
	if (ok && st->maxkey_len && h.st.first.len)
		ok = util_bytes_cmp(st->maxkey, st->maxkey_len, (const uint8_t *)h.st.first.data,
				    h.st.first.len) < 0;
	if (ok && h.st.batch) {
		if (!st->batch) {
			st->batch = h.st.batch;
			h.st.batch = NULL;
		} else {
			/* A failure leaves both halves' files to rk_reset; the serial
			 * pass meets a lasting one again. */
			ok = kv_batch_take_runs(st->batch, h.st.batch) == KV_OK;
		}
	}
	st->rows += h.st.rows;
	h.st.src = h.st.dst = NULL; /* borrowed */
	rw_cleanup(&h.st);
	if (failed)
		ty_throw(&err);
	if (!ok) {
		rk_reset(st);
		return false;
	}
	st->strict = false;
	return true;
}

/* The pass of rekey_by_cells_ok rewrites: throws like the executor's. */
static void rekey_by_cells(rw_state *st)
{
	rk_plan pl;
	rk_plan_build(st, &pl);
	kv_status ks = kv_table_open(st->s->e->kv, st->oldr->storage, &st->src);
	if (ks != KV_OK)
		sql_kv_error(ks, "opening a table");
	sql_txn_note_read(st->s->txn, st->oldr->storage, NULL, 0, NULL, 0, false);
	if (!rekey_halves(st, &pl))
		rk_pass(st, &pl, (kv_slice){NULL, 0}, (kv_slice){NULL, 0}, NULL, true);
	st->rw->rows += st->rows;
	flush_batch(st);
}

/* True when the old table is small enough to be rewritten through the
 * memstore (REWRITE_SMALL_CELLS). Not on a shared store: its batches
 * commit as they are. */
static bool small_table(sql_session *s, const cat_obj *old)
{
	int nw = 0;
	sql_txn_table_writes(s->txn, old->oid, ty_get_arena(), &nw);
	if (s->e->opts.store_uri || (uint64_t)nw * 8 > REWRITE_SMALL_CELLS)
		return false;
	kv_table *t;
	if (kv_table_open(s->e->kv, old->rel.storage, &t) != KV_OK)
		return false; /* the pass reports it */
	kv_table_stats ts;
	bool small = kv_table_get_stats(t, &ts) == KV_OK &&
		     ts.entries + ts.memstore_bytes / 64 + (uint64_t)nw * 8 <= REWRITE_SMALL_CELLS;
	kv_table_close(t);
	return small;
}

/* The rows (own pending writes included) now live in the new storage;
 * the old one goes when the transaction commits. */
static void rekeyed(sql_txn *t, const cat_obj *old)
{
	sql_txn_table_reshape(t, old->oid, 0, true);
	sql_txn_drop_storage_after_commit(t, old->rel.storage);
}

void sql_rewrite_run(sql_session *s, sql_rewrite *rw)
{
	sql_txn *t = s->txn;
	const cat_obj *old = rw->old_rel;
	cat_rel *nr = &rw->new_rel->rel;
	rw_state st;
	memset(&st, 0, sizeof st);
	st.s = s;
	st.rw = rw;
	st.oldr = &old->rel;
	st.newr = nr;
	for (int i = 0; i < nr->ncons; i++)
		if (nr->cons[i].type == 'p')
			st.pk_name = nr->cons[i].name;
	/* READ COMMITTED reads what is committed now (PostgreSQL holds an
	 * exclusive lock instead); REPEATABLE READ its snapshot. The new rows are
	 * stamped with that timestamp so the transaction sees them. */
	st.ts = t->iso == SQL_READ_COMMITTED ? kv_read_point(s->e->kv) : t->snapshot_ts;
	if (t->iso == SQL_READ_COMMITTED)
		t->stmt_ts = st.ts;
	if (rw->new_storage) {
		if (old->rel.ilv_depth || old->rel.ilv_nchildren)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "changing the row key of interleaved table \"%s\" is not supported",
				 old->rel.name);
		/* Secondary indexes point at the old row keys: the caller rebuilds
		 * them (sql_ddl_reindex_after_rekey) once the new shape is in the
		 * transaction's catalog. */
		sql_ddl_create_next_storage_like(s, t, &old->rel, 'r', old->oid, nr->storage,
						 sizeof nr->storage);
		kv_status ks = kv_table_open(s->e->kv, nr->storage, &st.dst);
		if (ks != KV_OK)
			sql_kv_error(ks, "opening a table");
		st.small = small_table(s, old);
	} else if (rw->backfill) {
		kv_status ks = kv_table_open(s->e->kv, old->rel.storage, &st.src);
		if (ks != KV_OK)
			sql_kv_error(ks, "opening a table");
		sql_txn_table_reshape(t, old->oid, nr->ncols, false);
	}
	if (rekey_by_cells_ok(s, rw)) {
		util_arena *saved = ty_get_arena();
		TY_TRY(tc)
		{
			rekey_by_cells(&st);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			ty_set_arena(saved);
			util_err err;
			memcpy(&err, ty_err(), sizeof err);
			rw_cleanup(&st);
			ty_throw(&err);
		}
		TY_END(tc);
		rw_cleanup(&st);
		rekeyed(t, old);
		return;
	}
	/* A scan of the old table as the executor does it (own writes merged). */
	sql_plan *p = sql_plan_new(SQL_P_SCAN, old->rel.ncols + 1);
	p->id = 0;
	p->types = ty_alloc(sizeof(ty_oid) * (size_t)(old->rel.ncols + 1));
	p->typmods = ty_alloc(sizeof(int32_t) * (size_t)(old->rel.ncols + 1));
	for (int c = 0; c < old->rel.ncols; c++) {
		p->types[c] = old->rel.cols[c].type;
		p->typmods[c] = old->rel.cols[c].typmod;
	}
	p->types[old->rel.ncols] = TY_BYTEA;
	p->typmods[old->rel.ncols] = -1;
	p->scan.rel = old;
	p->scan.reloid = old->oid;
	snprintf(p->scan.storage, sizeof p->scan.storage, "%s", old->rel.storage);
	p->scan.needed = ty_alloc(sizeof(bool) * (size_t)(old->rel.ncols + 1));
	for (int c = 0; c <= old->rel.ncols; c++)
		p->scan.needed[c] = true;
	sql_planned *pl = ty_alloc0(sizeof *pl);
	pl->plan = p;
	pl->nnodes = 1;
	sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
	ex->cat = sql_ddl_snap(s);
	ex->read_ts = st.ts;
	util_arena *saved = ty_get_arena();
	util_arena *rowa = util_arena_new(64 * 1024, 0);
	TY_TRY(tc)
	{
		sql_op *root = sql_exec_node(ex, p);
		ty_datum *newv = ty_alloc(sizeof(ty_datum) * (size_t)(nr->ncols + 1));
		for (;;) {
			sql_batch *b = sql_op_next(root);
			if (b->n == 0)
				break;
			util_arena_reset(rowa);
			ty_set_arena(rowa);
			if (rw->ex && rw->ex->eval_arena)
				util_arena_reset(rw->ex->eval_arena);
			for (int i = 0; i < b->n; i++) {
				one_row(&st, sql_batch_row(b, i), newv);
				rw->rows++;
			}
			ty_set_arena(saved);
			sql_check_interrupts(s);
		}
		flush_batch(&st);
		sql_exec_close(ex);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(saved);
		util_err err;
		memcpy(&err, ty_err(), sizeof err);
		util_err ignore;
		ty_protect((void (*)(void *))sql_exec_close, ex, &ignore);
		rw_cleanup(&st);
		util_arena_destroy(rowa);
		ty_throw(&err);
	}
	TY_END(tc);
	ty_set_arena(saved);
	util_arena_destroy(rowa);
	rw_cleanup(&st);
	if (rw->new_storage)
		rekeyed(t, old);
}
