/*
 * plan_order.c — rewrites a finished plan so that the order of the store
 * does the work (rows are clustered by primary key):
 *   - a Sort whose keys follow the primary key of the table scanned below
 *     it (after key columns fixed by equality) is dropped, and the scan runs
 *     forward or in reverse;
 *   - a Limit over such a scan is pushed into the scan, which then reads
 *     only that many rows;
 *   - a plain aggregate of only MIN/MAX of the first key column not fixed
 *     by equality reads the first and/or last row of the range: its input
 *     becomes Append(Limit 1 (scan), Limit 1 (reverse scan)).
 * It runs after planning because it only needs the plan's shape, and so
 * that it applies to every query and subquery alike.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

/* Follows pass-through nodes (projections of plain slots, filters) from
 * p down to a table scan; *slot is translated to the scan's output slot.
 * Returns the scan or NULL. */
static sql_plan *scan_below(sql_plan *p, int *slot)
{
	for (;;) {
		switch (p->kind) {
		case SQL_P_SCAN:
			return p;
		case SQL_P_PROJECT: {
			const sql_expr *e = p->project.exprs[*slot];
			if (!e || e->kind != SQL_E_SLOT)
				return NULL;
			*slot = e->slot;
			p = p->left;
			break;
		}
		case SQL_P_FILTER:
			p = p->left;
			break;
		default:
			return NULL;
		}
	}
}

/* Like scan_below, but only checks the path exists (for LIMIT). */
static sql_plan *scan_path(sql_plan *p)
{
	while (p->kind == SQL_P_PROJECT)
		p = p->left;
	return p->kind == SQL_P_SCAN ? p : NULL;
}

/* Position of table column col (0-based) in the primary key, or -1. */
static int pk_pos(const cat_rel *r, int col)
{
	for (int i = 0; i < r->npk; i++)
		if (r->pk[i] == col + 1)
			return i;
	return -1;
}

/* Number of leading key columns fixed to a single value by equality (an IN
 * list fixes nothing: its ranges interleave values of the next column). */
static int fixed_prefix(const sql_plan *scan)
{
	if (scan->scan.nranges != 1)
		return 0;
	const sql_keyrange *kr = &scan->scan.ranges[0];
	int n = 0;
	while (n < kr->nfix) {
		const ty_type *t = ty_type_get(kr->lo.vals[n]->type);
		if (t && t->category == 'A')
			break;
		n++;
	}
	return n;
}

static bool is_fixed(const sql_plan *scan, int pos)
{
	return pos >= 0 && pos < fixed_prefix(scan);
}

/* Can the scan deliver rows in the order of these sort keys? Sets
 * *reverse. Only tables with a primary key, scanned without an index. */
static bool order_matches(sql_plan *sort_input, const sql_sortkey *keys, int nkeys, sql_plan **scan_out,
			  bool *reverse)
{
	sql_plan *scan = NULL;
	int pos = 0, dir = 0; /* 1 forward, -1 reverse */
	for (int i = 0; i < nkeys; i++) {
		if (!keys[i].expr || keys[i].expr->kind != SQL_E_SLOT)
			return false;
		int slot = keys[i].expr->slot;
		sql_plan *s = scan_below(sort_input, &slot);
		if (!s || (scan && s != scan))
			return false;
		scan = s;
		const cat_rel *r = &scan->scan.rel->rel;
		if (r->npk == 0 || slot >= r->ncols)
			return false;
		int kp = pk_pos(r, slot);
		if (kp < 0)
			return false;
		/* A key column fixed to one value orders nothing. */
		if (is_fixed(scan, kp))
			continue;
		while (pos < kp && is_fixed(scan, pos))
			pos++;
		if (kp != pos)
			return false;
		/* The sort key must use the type's default order, which is the
		 * key encoding's order. */
		const ty_type *ct = ty_type_get(r->cols[slot].type);
		if (!keys[i].type || !ct || keys[i].type != ct)
			return false;
		bool key_desc = r->pk_desc ? r->pk_desc[kp] : false;
		int d = keys[i].desc == key_desc ? 1 : -1;
		if (dir && d != dir)
			return false;
		dir = d;
		pos++;
		if (pos == r->npk)
			break; /* the key is unique: later sort keys cannot matter */
	}
	if (!scan || scan->scan.lock_strength)
		return false;
	/* Interleaved rows come forward only (several rows per kv row). */
	if (dir < 0 && scan->scan.rel->rel.ilv_depth)
		return false;
	*scan_out = scan;
	*reverse = dir < 0;
	return true;
}

static bool bound_expr(const sql_expr *e)
{
	return !e || e->kind == SQL_E_CONST || e->kind == SQL_E_PARAM;
}

static sql_expr *int8_const(int64_t v)
{
	return sql_expr_const(TY_INT8, -1, ty_int(v), -1);
}

static sql_plan *limit1(sql_planned *pd, sql_plan *scan, bool reverse)
{
	sql_plan *s = sql_plan_new(SQL_P_SCAN, 0);
	*s = *scan;
	s->id = pd->nnodes++;
	s->scan.reverse = reverse;
	s->scan.ordered = true;
	s->scan.limit = int8_const(1);
	s->scan.limit_offset = NULL;
	sql_plan *l = sql_plan_new(SQL_P_LIMIT, 0);
	*l = (sql_plan){0};
	l->kind = SQL_P_LIMIT;
	l->id = pd->nnodes++;
	l->ncols = s->ncols;
	l->types = s->types;
	l->typmods = s->typmods;
	l->left = s;
	l->limit.limit = int8_const(1);
	l->rows = 1;
	return l;
}

/* MIN/MAX of the first free key column: read the range's first and/or
 * last row instead of all of it. */
static void minmax(sql_planned *pd, sql_plan *agg)
{
	const sql_agg_plan *a = &agg->agg;
	if (a->ngroup || a->ngsets || a->naggs == 0 || agg->left->kind != SQL_P_SCAN)
		return;
	sql_plan *scan = agg->left;
	const cat_rel *r = &scan->scan.rel->rel;
	if (r->npk == 0 || r->ilv_depth || scan->scan.lock_strength || scan->scan.limit)
		return;
	int col = -1;
	bool want_min = false, want_max = false;
	for (int i = 0; i < a->naggs; i++) {
		const sql_aggref *ar = &a->aggs[i];
		if ((ar->kind != SQL_AGG_MIN && ar->kind != SQL_AGG_MAX) || ar->nargs != 1 || ar->filter ||
		    ar->norder || !ar->args[0] || ar->args[0]->kind != SQL_E_SLOT)
			return;
		int c = ar->args[0]->slot;
		if (c >= r->ncols || (col >= 0 && c != col))
			return;
		col = c;
		const ty_type *ct = ty_type_get(r->cols[c].type);
		if (!ct || ty_type_get(ar->args[0]->type) != ct)
			return;
		if (ar->kind == SQL_AGG_MIN)
			want_min = true;
		else
			want_max = true;
	}
	int kp = pk_pos(r, col);
	if (kp < 0 || kp != fixed_prefix(scan))
		return;
	bool desc = r->pk_desc ? r->pk_desc[kp] : false;
	/* In key order the first row has the smallest value unless DESC. */
	bool need_first = desc ? want_max : want_min, need_last = desc ? want_min : want_max;
	sql_plan *ap = sql_plan_new(SQL_P_APPEND, 0);
	ap->id = pd->nnodes++;
	ap->ncols = scan->ncols;
	ap->types = scan->types;
	ap->typmods = scan->typmods;
	ap->append.children = ty_alloc(sizeof(sql_plan *) * 2);
	if (need_first)
		ap->append.children[ap->append.nchildren++] = limit1(pd, scan, false);
	if (need_last)
		ap->append.children[ap->append.nchildren++] = limit1(pd, scan, true);
	ap->rows = ap->append.nchildren;
	agg->left = ap;
}

/* An inner hash join of a root table and a table interleaved in it, on
 * the whole parent key: both come from the same kv rows, so one read of
 * each group serves the join (docs/entity-groups.md). */
static void group_join(sql_planned *pd, sql_plan **pp)
{
	sql_plan *j = *pp;
	if (j->join.type != SQL_JOIN_INNER || j->left->kind != SQL_P_SCAN || j->right->kind != SQL_P_SCAN)
		return;
	sql_plan *par = j->left, *kid = j->right;
	bool parent_left = true;
	if (kid->scan.rel->rel.interleave_parent != par->scan.reloid) {
		sql_plan *t = par;
		par = kid;
		kid = t;
		parent_left = false;
	}
	const cat_rel *pr = &par->scan.rel->rel, *cr = &kid->scan.rel->rel;
	if (cr->interleave_parent != par->scan.reloid || pr->ilv_depth != 0 || cr->ilv_depth != 1 ||
	    pr->npk == 0)
		return;
	if (par->scan.lock_strength || kid->scan.lock_strength || par->scan.reverse || kid->scan.reverse ||
	    par->scan.limit || kid->scan.limit || kid->scan.nranges > 1 || j->join.nkeys != pr->npk)
		return;
	/* Every hash key pairs a parent key column with the same child key column. */
	for (int i = 0; i < pr->npk; i++) {
		bool found = false;
		for (int k = 0; k < j->join.nkeys && !found; k++) {
			const sql_expr *pk = parent_left ? j->join.lkeys[k] : j->join.rkeys[k];
			const sql_expr *ck = parent_left ? j->join.rkeys[k] : j->join.lkeys[k];
			found = pk->kind == SQL_E_SLOT && ck->kind == SQL_E_SLOT &&
				pk->slot == pr->pk[i] - 1 && ck->slot == cr->pk[i] - 1;
		}
		if (!found)
			return;
	}
	sql_plan *g = sql_plan_new(SQL_P_GROUPJOIN, 0);
	g->id = pd->nnodes++;
	g->ncols = j->ncols;
	g->types = j->types;
	g->typmods = j->typmods;
	g->rows = j->rows;
	g->group.join = j;
	g->group.parent = par;
	g->group.child = kid;
	g->group.parent_left = parent_left;
	*pp = g;
}

static void walk(sql_planned *pd, sql_plan **pp);

static void walk_children(sql_planned *pd, sql_plan *p)
{
	if (p->left)
		walk(pd, &p->left);
	if (p->right)
		walk(pd, &p->right);
	if (p->kind == SQL_P_APPEND)
		for (int i = 0; i < p->append.nchildren; i++)
			walk(pd, &p->append.children[i]);
}

static void walk(sql_planned *pd, sql_plan **pp)
{
	sql_plan *p = *pp;
	walk_children(pd, p);
	switch (p->kind) {
	case SQL_P_SORT: {
		sql_plan *scan;
		bool reverse;
		if (p->sort.nkeys > 0 &&
		    order_matches(p->left, p->sort.keys, p->sort.nkeys, &scan, &reverse) &&
		    !scan->scan.reverse) {
			scan->scan.reverse = reverse;
			scan->scan.ordered = true;
			*pp = p->left; /* the scan already delivers this order */
		}
		break;
	}
	case SQL_P_LIMIT: {
		sql_plan *scan = scan_path(p->left);
		if (scan && !p->limit.ties && p->limit.limit && bound_expr(p->limit.limit) &&
		    bound_expr(p->limit.offset) && !scan->scan.limit && !scan->scan.lock_strength) {
			scan->scan.limit = p->limit.limit;
			scan->scan.limit_offset = p->limit.offset;
			scan->scan.ordered = true;
		}
		break;
	}
	case SQL_P_AGG:
		minmax(pd, p);
		break;
	case SQL_P_HASHJOIN:
		group_join(pd, pp);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------------- parallel scans */

#define PARALLEL_MIN_ROWS 50000

static bool unsafe_in_worker(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_SUBLINK || e->kind == SQL_E_EXECPARAM || e->kind == SQL_E_SRF ||
	       (e->kind == SQL_E_FUNC && e->f.fn && e->f.fn->volatility == TY_VOLATILE);
}

/* Rows a salted range scan reads at most under its pushed-down LIMIT
 * (each bucket's scan stops there), or -1 when not known at plan time. */
static double salted_limit_rows(const sql_plan *p)
{
	if (!p->scan.limit)
		return p->rows;
	const sql_expr *e[2] = {p->scan.limit, p->scan.limit_offset};
	double n = 0;
	for (int i = 0; i < 2; i++) {
		if (!e[i])
			continue;
		if (e[i]->kind != SQL_E_CONST || e[i]->c.null)
			return -1;
		n += (double)e[i]->c.i;
	}
	n *= p->scan.rel->rel.salt_buckets;
	return n < p->rows ? n : p->rows;
}

/* Big scans run on worker threads (exec_scan.c): each scans a slice of the
 * range and evaluates the scan's filter on its rows. Only where nothing
 * depends on key order or on this statement's state, except for key
 * ranges of salted tables: their buckets are read by the workers and
 * merged in key order (exec_salt.c) when the order matters. */
static void plan_parallel(sql_plan *p, int workers)
{
	if (!p)
		return;
	plan_parallel(p->left, workers);
	plan_parallel(p->right, workers);
	if (p->kind == SQL_P_APPEND)
		for (int i = 0; i < p->append.nchildren; i++)
			plan_parallel(p->append.children[i], workers);
	if (p->kind != SQL_P_SCAN || p->scan.lock_strength || p->scan.npoint || p->rows < PARALLEL_MIN_ROWS ||
	    p->scan.rel->rel.ilv_depth)
		return;
	if (p->scan.rel->rel.salt_buckets && p->scan.nranges) {
		if (salted_limit_rows(p) < PARALLEL_MIN_ROWS)
			return;
	} else if (sql_scan_needs_order(p) || p->scan.nranges > 1) {
		return;
	}
	if (p->qual && sql_expr_walk(p->qual, unsafe_in_worker, NULL))
		return;
	p->scan.parallel = workers;
}

/* Groups beyond this estimate are aggregated by the operator alone (it can
 * spill; the workers' merged groups could not). */
#define PARTIAL_MAX_GROUPS 100000

static bool partial_ok(const sql_aggref *ar)
{
	if (ar->distinct || ar->norder || ar->ndirect)
		return false;
	for (int i = 0; i < ar->nargs; i++)
		if (ar->argtypes[i] == TY_RECORD || ar->argtypes[i] >= 16384 ||
		    sql_expr_walk(ar->args[i], unsafe_in_worker, NULL))
			return false;
	if (ar->filter && sql_expr_walk(ar->filter, unsafe_in_worker, NULL))
		return false;
	switch (ar->kind) {
	case SQL_AGG_COUNT_STAR:
	case SQL_AGG_COUNT:
	case SQL_AGG_MIN:
	case SQL_AGG_MAX:
		return true;
	default:
		return ar->agg && ar->agg->combine && !ar->agg->ordered_set;
	}
}

/* An aggregate right above a parallel scan aggregates in the workers:
 * each folds its slice into groups of its own and merges them at the end
 * with the aggregates' combine functions (exec_agg.c). */
static void plan_partial(sql_plan *p)
{
	if (!p)
		return;
	plan_partial(p->left);
	plan_partial(p->right);
	if (p->kind == SQL_P_APPEND)
		for (int i = 0; i < p->append.nchildren; i++)
			plan_partial(p->append.children[i]);
	/* (A salted range merged in key order hands its rows up.) */
	if (p->kind != SQL_P_AGG || !p->left || p->left->kind != SQL_P_SCAN || !p->left->scan.parallel ||
	    sql_scan_needs_order(p->left) || p->agg.ngsets ||
	    (p->agg.ngroup && (!p->agg.hashed || p->rows > PARTIAL_MAX_GROUPS)))
		return;
	for (int k = 0; k < p->agg.ngroup; k++)
		if (sql_expr_walk(p->agg.group[k], unsafe_in_worker, NULL))
			return;
	for (int i = 0; i < p->agg.naggs; i++)
		if (!partial_ok(&p->agg.aggs[i]))
			return;
	p->agg.partial = true;
}

void sql_plan_use_key_order(sql_planned *pd, sql_plan **root)
{
	if (!*root)
		return;
	walk(pd, root);
	sql_session *s = sql_current_session();
	const char *w = s ? sql_guc_get(s, "max_parallel_workers_per_gather") : NULL;
	int workers = w ? atoi(w) : 0;
	if (workers > 8)
		workers = 8;
	if (workers > 0 && pd->cmd == SQL_CMD_SELECT) {
		plan_parallel(*root, workers);
		/* Opt-in (SET strata.partial_aggregation = on): on the shared
		 * 2-core machine the workers, busy without a pause, were scheduled
		 * far less than workers that hand rows over (docs/performance.md). */
		const char *pa = s ? sql_guc_get(s, "strata.partial_aggregation") : NULL;
		if (pa && !strcmp(pa, "on"))
			plan_partial(*root);
	}
}
