/*
 * exec_point.c — a cached plan that reads one row by its whole primary key
 * and returns some of its columns (`SELECT abalance FROM pgbench_accounts
 * WHERE aid = $1`) run without the executor: the key encoded from the
 * parameters, one kv_get, the cells decoded straight into the output
 * columns. The executor path (exec_scan.c: scan_open, the key-range build,
 * a scan operator and a projection with their batches and arenas) cost
 * about 5,500 more instructions per execution, a fifth of a pgbench -S
 * transaction.
 *
 * Only plans whose result cannot differ from the executor's qualify: a
 * projection of plain columns over a point scan with no other condition,
 * no locking clause, no LIMIT, of an ordinary table (not interleaved, not
 * salted), key values that are parameters or constants of the key
 * column's own type. Executions inside a transaction with writes of its
 * own (merged by the scan), with DDL (its catalog changes in place) or
 * under strata.read_as_of take the executor path.
 */
#include <stdatomic.h>
#include <string.h>

#include "ops.h"
#include "sql_int.h"

struct sql_point {
	const cat_obj *rel; /* of the plan's catalog snapshot (cp->cat) */
	cat_oid reloid;
	int nkey;
	ty_keycol *keycols;
	const sql_expr **keyvals; /* SQL_E_PARAM or SQL_E_CONST, one per key column */
	sql_rowmap map;
	const bool *needed; /* the scan's needed columns */
	bool key_needed;    /* some needed column is decoded from the key */
	int nout;
	int *slots; /* output column -> table column */
	/* pg_stat_user_tables' entry (NULL without ops); entries live as long
	 * as the engine; looking one up takes the mutex all sessions share. */
	sql_table_stat *stat;
};

static bool plain_value(const sql_expr *e, ty_oid type)
{
	if (!e || e->type != type)
		return false;
	return e->kind == SQL_E_PARAM || e->kind == SQL_E_CONST;
}

/* The point read of cp's plan, or NULL if the plan is not one. */
static sql_point *build(sql_engine *eng, sql_cached_plan *cp)
{
	const sql_planned *pl = cp->planned;
	if (pl->cmd != SQL_CMD_SELECT || !pl->returns_rows || pl->nctes || pl->nexec_params ||
	    pl->lock_strength || !pl->plan)
		return NULL;
	const sql_plan *pj = pl->plan;
	if (pj->kind != SQL_P_PROJECT || pj->qual || !pj->left || pj->right || pj->ncols != pl->desc.ncols)
		return NULL;
	const sql_plan *sc = pj->left;
	if (sc->kind != SQL_P_SCAN || sc->qual || sc->left || sc->right || sc->scan.nranges != 1 ||
	    !sc->scan.npoint || sc->scan.reverse || sc->scan.limit || sc->scan.count_only ||
	    sc->scan.parallel || sc->scan.lock_strength || sc->scan.sysview || sc->scan.index_oid ||
	    sc->scan.slice || !sc->scan.needed)
		return NULL;
	const cat_obj *o = cat_get(cp->cat, sc->scan.reloid);
	if (!o)
		return NULL;
	const cat_rel *r = &o->rel;
	if (!r->npk || r->ilv_depth || r->ilv_nchildren || r->salt_buckets || !r->storage[0])
		return NULL;
	const sql_keyrange *kr = &sc->scan.ranges[0];
	if (kr->nfix != r->npk || kr->lo.ncols != r->npk || kr->hi.ncols != r->npk || kr->like ||
	    kr->is_null_range)
		return NULL;
	/* Wide rows read a column list in the scan (scan_open): same cells as
	 * reading the row whole, but keep to the narrow rows measured here. */
	int total = 0;
	for (int c = 0; c < r->ncols; c++)
		total += !r->cols[c].dropped;
	if (total >= 32)
		return NULL;
	util_arena *a = cp->arena;
	sql_point *pt = util_arena_zalloc(a, sizeof *pt);
	pt->keycols = util_arena_zalloc(a, sizeof(ty_keycol) * (size_t)r->npk);
	pt->keyvals = util_arena_zalloc(a, sizeof(sql_expr *) * (size_t)r->npk);
	pt->slots = util_arena_zalloc(a, sizeof(int) * (size_t)(pj->ncols ? pj->ncols : 1));
	if (!pt->keycols || !pt->keyvals || !pt->slots)
		return NULL;
	for (int i = 0; i < r->npk; i++) {
		const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
		const ty_type *t = c ? ty_type_get(c->type) : NULL;
		/* An array-typed value of a fixed column is an IN list (exec_scan.c). */
		if (!t || t->category == 'A' || !plain_value(kr->lo.vals[i], c->type) ||
		    kr->lo.vals[i] != kr->hi.vals[i])
			return NULL;
		pt->keycols[i] = (ty_keycol){c->type, r->pk_desc ? r->pk_desc[i] : false, false};
		pt->keyvals[i] = kr->lo.vals[i];
		if (sc->scan.needed[r->pk[i] - 1])
			pt->key_needed = true;
	}
	for (int i = 0; i < pj->ncols; i++) {
		const sql_expr *e = pj->project.exprs[i];
		if (!e || e->kind != SQL_E_SLOT || e->slot < 0 || e->slot >= r->ncols ||
		    !sc->scan.needed[e->slot])
			return NULL;
		pt->slots[i] = e->slot;
	}
	pt->nout = pj->ncols;
	pt->rel = o;
	pt->reloid = sc->scan.reloid;
	pt->needed = sc->scan.needed;
	pt->nkey = r->npk;
	sql_rowmap_build(r, a, &pt->map);
	pt->stat = eng->ops ? sql_ops_table_stat(eng, pt->reloid) : NULL;
	return pt;
}

const sql_point *sql_point_of(sql_session *s, sql_cached_plan *cp)
{
	if (cp->point_state == 0) {
		cp->point = build(s->e, cp);
		cp->point_state = cp->point ? 1 : -1;
	}
	if (cp->point_state < 0)
		return NULL;
	sql_txn *t = s->txn;
	if (!t || t->nwrites || t->ddl || s->as_of_ts || cp->cat != s->cat)
		return NULL;
	return cp->point;
}

ty_datum *sql_point_read(sql_session *s, const sql_point *pt, const ty_datum *params, int nparams)
{
	ty_check_interrupts();
	const cat_rel *r = &pt->rel->rel;
	sql_txn *t = s->txn;
	/* The key; a NULL value matches nothing (as a key range would). */
	util_buf *kb = &s->rowbuf; /* free until the row is formatted */
	util_buf_reset(kb);
	for (int i = 0; i < pt->nkey; i++) {
		const sql_expr *e = pt->keyvals[i];
		ty_datum v;
		if (e->kind == SQL_E_CONST) {
			v = e->c;
		} else {
			if (e->param < 1 || e->param > nparams)
				ty_error(UTIL_E_UNDEFINED_PARAMETER, "there is no parameter $%d", e->param);
			v = params[e->param - 1];
		}
		if (v.null)
			return NULL;
		ty_key_encode(&pt->keycols[i], v, kb);
	}
	size_t klen = kb->len;
	uint8_t *key = ty_alloc(klen ? klen : 1);
	memcpy(key, kb->data, klen);
	sql_txn_note_read(t, r->storage, key, klen, NULL, 0, true);
	kv_table *kv;
	kv_status st = kv_table_open(s->e->kv, r->storage, &kv);
	if (st != KV_OK)
		sql_kv_error(st, "opening a table");
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = sql_txn_read_ts(t);
	kv_row row;
	st = kv_get(kv, key, klen, &ro, ty_get_arena(), &row);
	kv_table_close(kv);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading a row");
	bool exists = false;
	ty_datum *vals = NULL;
	if (st == KV_OK && row.n) {
		vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		exists = sql_row_decode_cells(r, &pt->map, row.cells, row.n, pt->needed, vals);
		if (exists && pt->key_needed)
			sql_key_decode_needed(r, key, klen, pt->needed, vals);
	}
	/* pg_stat_user_tables: one index scan, as the scan operator counts it. */
	if (pt->stat) {
		atomic_fetch_add(&pt->stat->idx_scan, 1);
		if (exists)
			atomic_fetch_add(&pt->stat->idx_tup_fetch, 1);
	}
	if (!exists)
		return NULL;
	ty_datum *out = ty_alloc(sizeof(ty_datum) * (size_t)(pt->nout ? pt->nout : 1));
	for (int i = 0; i < pt->nout; i++)
		out[i] = vals[pt->slots[i]];
	return out;
}
