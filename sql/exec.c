/*
 * exec.c — the executor framework: per-execution state for a planned
 * statement, building operator nodes from plan nodes (once per plan id),
 * demand-pull iteration over batches with EXPLAIN ANALYZE accounting,
 * rescans and cleanup.
 */
#include <string.h>

#include "ops.h"
#include "sql_int.h"

sql_batch *sql_batch_new(util_arena *a, int ncols, int cap)
{
	sql_batch *b = util_arena_zalloc(a, sizeof *b);
	if (!b)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	b->ncols = ncols;
	b->cap = cap;
	b->vals = util_arena_alloc(a, sizeof(ty_datum) * (size_t)(ncols ? ncols : 1) * (size_t)cap);
	if (!b->vals)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	b->arena = util_arena_new(32 * 1024, 0);
	return b;
}

static sql_exec *exec_new(sql_session *s, sql_planned *pl, util_arena *arena, ty_datum *params, int nparams,
			  bool check)
{
	sql_exec *ex = util_arena_zalloc(arena, sizeof *ex);
	if (!ex)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	ex->s = s;
	ex->pl = pl;
	ex->arena = arena;
	ex->txn = s->txn;
	ex->read_ts = s->txn ? sql_txn_read_ts(s->txn) : kv_read_point(s->e->kv);
	ex->cat = s->cat;
	if (check && pl->query && s->cat)
		sql_priv_check_query(s, s->cat, pl->query);
	ex->params = params;
	ex->nparams = nparams;
	ex->exec_params = util_arena_zalloc(arena, sizeof(ty_datum) * (size_t)(pl->nexec_params + 1));
	ex->cache = util_arena_zalloc(arena, sizeof(sql_cache_slot) * (size_t)(pl->ncache + 1));
	ex->ops = util_arena_zalloc(arena, sizeof(sql_op *) * (size_t)(pl->nnodes + 1));
	ex->cte_ops = util_arena_zalloc(arena, sizeof(sql_op *) * (size_t)(pl->nctes + 1));
	ex->ctes = util_arena_zalloc(arena, sizeof(struct sql_ctestore *) * (size_t)(pl->nctes + 1));
	if (!ex->exec_params || !ex->cache || !ex->ops || !ex->cte_ops || !ex->ctes)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return ex;
}

sql_exec *sql_exec_new(sql_session *s, sql_planned *pl, util_arena *arena, ty_datum *params, int nparams)
{
	return exec_new(s, pl, arena, params, nparams, true);
}

void sql_exec_check_cached(sql_session *s, struct sql_cached_plan *cp)
{
	sql_planned *pl = cp->planned;
	if (pl->query && s->cat) {
		/* The outcome depends on the catalog (privileges, roles, the
		 * session's temporary schema) and the current user only. A DDL
		 * transaction changes its snapshot in place: no memo there. */
		bool memo = cp->cat == s->cat && !(s->txn && s->txn->ddl);
		if (memo && cp->priv_ok && cp->priv_user == s->user_oid) {
			sql_priv_lock_rels(s, s->cat, cp->priv_rels, cp->priv_nrels);
		} else {
			cat_oid *rels;
			int n = sql_priv_check_rels(s, s->cat, pl->query, &rels);
			cat_oid *keep = memo && n
					    ? util_arena_memdup(cp->arena, rels, sizeof(cat_oid) * (size_t)n)
					    : NULL;
			if (memo && (keep || !n)) {
				cp->priv_rels = keep;
				cp->priv_nrels = n;
				cp->priv_user = s->user_oid;
				cp->priv_ok = true;
			}
			sql_priv_lock_rels(s, s->cat, rels, n);
		}
	}
}

sql_exec *sql_exec_new_cached(sql_session *s, struct sql_cached_plan *cp, util_arena *arena, ty_datum *params,
			      int nparams)
{
	sql_exec_check_cached(s, cp);
	return exec_new(s, cp->planned, arena, params, nparams, false);
}

sql_op *sql_exec_node(sql_exec *ex, const sql_plan *p)
{
	if (p->id < ex->pl->nnodes && ex->ops[p->id])
		return ex->ops[p->id];
	sql_op *op;
	switch (p->kind) {
	case SQL_P_RESULT: op = sql_op_result(ex, p); break;
	case SQL_P_VALUES: op = sql_op_values(ex, p); break;
	case SQL_P_SCAN: op = sql_op_scan(ex, p); break;
	case SQL_P_INDEXSCAN: op = sql_op_indexscan(ex, p); break;
	case SQL_P_GROUPJOIN: op = sql_op_groupjoin(ex, p); break;
	case SQL_P_SYSSCAN: op = sql_op_sysscan(ex, p); break;
	case SQL_P_FUNCSCAN: op = sql_op_funcscan(ex, p); break;
	case SQL_P_FILTER: op = sql_op_filter(ex, p); break;
	case SQL_P_PROJECT: op = sql_op_project(ex, p); break;
	case SQL_P_PROJECTSET: op = sql_op_projectset(ex, p); break;
	case SQL_P_NESTLOOP: op = p->join.nparams ? sql_op_lookupjoin(ex, p) : sql_op_nestloop(ex, p); break;
	case SQL_P_HASHJOIN: op = sql_op_hashjoin(ex, p); break;
	case SQL_P_MERGEJOIN: op = sql_op_mergejoin(ex, p); break;
	case SQL_P_AGG: op = sql_op_agg(ex, p); break;
	case SQL_P_SORT: op = sql_op_sort(ex, p); break;
	case SQL_P_LIMIT: op = sql_op_limit(ex, p); break;
	case SQL_P_UNIQUE: op = sql_op_unique(ex, p); break;
	case SQL_P_SETOP: op = sql_op_setop(ex, p); break;
	case SQL_P_APPEND: op = sql_op_append(ex, p); break;
	case SQL_P_WINDOW: op = sql_op_window(ex, p); break;
	case SQL_P_MODIFY: op = sql_op_modify(ex, p); break;
	case SQL_P_CTESCAN:
	case SQL_P_WORKTABLE: op = sql_op_ctescan(ex, p); break;
	case SQL_P_RECURSIVE: op = sql_op_recursive(ex, p); break;
	case SQL_P_CTEPREP: op = sql_op_cteprep(ex, p); break;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "plan node %d is not supported", p->kind);
	}
	op->plan = p;
	op->ex = ex;
	if (!op->out)
		op->out = sql_batch_new(ex->arena, p->ncols, SQL_BATCH_ROWS);
	if (p->id < ex->pl->nnodes)
		ex->ops[p->id] = op;
	if (p->left && !op->left)
		op->left = sql_exec_node(ex, p->left);
	if (p->right && !op->right && p->kind != SQL_P_RECURSIVE)
		op->right = sql_exec_node(ex, p->right);
	return op;
}

sql_batch *sql_op_next(sql_op *op)
{
	util_arena *caller = ty_get_arena();
	if (!op->opened) {
		op->opened = true;
		op->loops++;
		if (op->open)
			op->open(op);
	}
	int64_t t0 = op->ex->analyze ? util_mono_us() : 0;
	sql_batch *b;
	if (op->done) {
		op->out->n = 0;
		b = op->out;
	} else {
		b = op->next(op);
		if (b->n == 0)
			op->done = true;
	}
	if (op->ex->analyze)
		op->time_us += util_mono_us() - t0;
	op->rows_out += (uint64_t)b->n;
	ty_set_arena(caller);
	return b;
}

void sql_op_rescan(sql_op *op)
{
	op->done = false;
	op->loops++;
	if (op->rescan)
		op->rescan(op);
	else {
		if (op->left)
			sql_op_rescan(op->left);
		if (op->right)
			sql_op_rescan(op->right);
	}
}

static void close_op(sql_op *op)
{
	if (op->close)
		op->close(op);
	op->close = NULL;
	if (op->out && op->out->arena) {
		util_arena_destroy(op->out->arena);
		op->out->arena = NULL;
	}
}

void sql_exec_close(sql_exec *ex)
{
	if (!ex)
		return;
	sql_ops_exec_done(ex);
	for (int i = 0; i < ex->pl->nnodes; i++)
		if (ex->ops[i])
			close_op(ex->ops[i]);
	for (int i = 0; i < ex->pl->nctes; i++)
		if (ex->cte_ops[i])
			close_op(ex->cte_ops[i]);
	sql_exec_free_ctes(ex);
}

/* Starts filling an op's output batch: resets its arena and makes it current. */
sql_batch *sql_op_begin_batch(sql_op *op)
{
	sql_batch *b = op->out;
	util_arena_reset(b->arena);
	b->n = 0;
	ty_set_arena(b->arena);
	ty_check_interrupts();
	return b;
}
