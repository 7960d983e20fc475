/*
 * plan_scan.c — table scans: which columns are read, and which WHERE
 * conjuncts on a primary-key prefix become key ranges (=, IN, <, <=, >, >=
 * and BETWEEN). Bounds stay expressions so that parameters of prepared
 * statements become bounds at execution time; the remaining conjuncts run
 * as a filter inside the scan, before rows are built.
 */
#include <string.h>

#include "plan_int.h"

static bool int_family(ty_oid t) { return t == TY_INT2 || t == TY_INT4 || t == TY_INT8; }

/* A value usable as a key bound: no Vars of this query level, no volatile
 * functions, no sublinks. */
static bool var_walker(sql_expr *e, void *arg)
{
	(void)arg;
	return (e->kind == SQL_E_VAR && e->var.levelsup == 0) || e->kind == SQL_E_SUBLINK || e->kind == SQL_E_AGG ||
	       e->kind == SQL_E_WINDOW || e->kind == SQL_E_SRF ||
	       (e->kind == SQL_E_FUNC && e->f.fn->volatility == TY_VOLATILE);
}

static bool is_bound_value(sql_expr *e) { return !sql_expr_walk(e, var_walker, NULL); }

/* Which key column (0-based position in the key) a Var of this RTE is. */
static int key_pos(const cat_rel *r, int rte, sql_expr *e)
{
	if (e->kind != SQL_E_VAR || e->var.levelsup || e->var.rte != rte)
		return -1;
	for (int i = 0; i < r->npk; i++)
		if (r->pk[i] == e->var.col + 1)
			return i;
	return -1;
}

/* The comparison types a key bound can use: same type, or integers of any
 * width (they share one key encoding). */
static bool comparable(ty_oid col, ty_oid val) { return col == val || (int_family(col) && int_family(val)); }

typedef struct colcons {
	sql_expr *eq;          /* = value */
	sql_expr *in;          /* = ANY(array) */
	sql_expr *like;        /* LIKE pattern (not consumed: it stays a filter) */
	sql_expr *lo, *hi;
	bool lo_incl, hi_incl;
	int used[8];           /* conjunct indexes consumed */
	int nused;
	int eq_qi;             /* 1 + the conjunct of eq or in (0: none) */
} colcons;

static void use(colcons *c, int qi)
{
	if (c->nused < 8)
		c->used[c->nused++] = qi;
}

/* `key = v1 OR key = v2 ...` on one key column, all values of the
 * column's type: the array of the values (an IN list), else NULL. */
static sql_expr *or_as_in(const cat_rel *r, int rte, sql_expr *q, int *kp_out)
{
	if (q->kind != SQL_E_OR || q->f.nargs < 2)
		return NULL;
	int kp = -1;
	sql_expr **vals = ty_alloc(sizeof(sql_expr *) * (size_t)q->f.nargs);
	for (int i = 0; i < q->f.nargs; i++) {
		sql_expr *a = q->f.args[i];
		if (a->kind != SQL_E_FUNC || a->f.nargs != 2 || !a->f.opname || strcmp(a->f.opname, "="))
			return NULL;
		sql_expr *k = a->f.args[0], *v = a->f.args[1];
		int p = key_pos(r, rte, k);
		if (p < 0) {
			k = a->f.args[1];
			v = a->f.args[0];
			p = key_pos(r, rte, k);
		}
		if (p < 0 || (kp >= 0 && p != kp) || v->type != k->type || !is_bound_value(v))
			return NULL;
		kp = p;
		vals[i] = v;
	}
	const ty_type *t = ty_type_get(q->f.args[0]->f.args[0]->type);
	if (!t || !t->array)
		return NULL;
	sql_expr *arr = sql_expr_new(SQL_E_ARRAY, t->array, -1);
	arr->f.nargs = q->f.nargs;
	arr->f.args = vals;
	*kp_out = kp;
	return arr;
}

/* `key LIKE pattern` on a text key column: the pattern, else NULL. */
static sql_expr *like_pattern(const cat_rel *r, int rte, sql_expr *q, int *kp_out)
{
	if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname || strcmp(q->f.opname, "~~"))
		return NULL;
	sql_expr *k = q->f.args[0];
	if (k->kind == SQL_E_CAST && k->cast.arg && k->cast.arg->type == TY_VARCHAR && k->type == TY_TEXT)
		k = k->cast.arg; /* varchar is read as text: same bytes, same key encoding */
	int kp = key_pos(r, rte, k);
	if (kp < 0 || (k->type != TY_TEXT && k->type != TY_VARCHAR) || (r->pk_desc && r->pk_desc[kp]) ||
	    q->f.args[1]->type != TY_TEXT || !is_bound_value(q->f.args[1]))
		return NULL;
	*kp_out = kp;
	return q->f.args[1];
}

/* Records one conjunct if it constrains a key column; returns true if taken. */
static bool take(const cat_rel *r, int rte, sql_expr *q, int qi, colcons *cc)
{
	int okp;
	sql_expr *ors = or_as_in(r, rte, q, &okp);
	if (ors) {
		if (cc[okp].eq || cc[okp].in)
			return false;
		cc[okp].in = ors;
		cc[okp].eq_qi = qi + 1;
		use(&cc[okp], qi);
		return true;
	}
	sql_expr *pat = like_pattern(r, rte, q, &okp);
	if (pat) {
		if (!cc[okp].like)
			cc[okp].like = pat;
		return false;
	}
	if (q->kind == SQL_E_ANYARRAY && !q->f.all && q->f.opname && !strcmp(q->f.opname, "=")) {
		int kp = key_pos(r, rte, q->f.args[0]);
		if (kp < 0 || !is_bound_value(q->f.args[1]))
			return false;
		const ty_type *at = ty_type_get(q->f.args[1]->type);
		if (!at || !comparable(q->f.args[0]->type, at->elem))
			return false;
		if (cc[kp].eq || cc[kp].in)
			return false;
		cc[kp].in = q->f.args[1];
		cc[kp].eq_qi = qi + 1;
		use(&cc[kp], qi);
		return true;
	}
	if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname)
		return false;
	const char *op = q->f.opname;
	sql_expr *a = q->f.args[0], *b = q->f.args[1];
	int kp = key_pos(r, rte, a);
	bool flipped = false;
	if (kp < 0) {
		kp = key_pos(r, rte, b);
		if (kp < 0)
			return false;
		sql_expr *t = a;
		a = b;
		b = t;
		flipped = true;
	}
	if (!is_bound_value(b) || !comparable(a->type, b->type))
		return false;
	char o[3] = {0};
	strncpy(o, op, 2);
	if (flipped) {
		if (!strcmp(o, "<"))
			strcpy(o, ">");
		else if (!strcmp(o, ">"))
			strcpy(o, "<");
		else if (!strcmp(o, "<="))
			strcpy(o, ">=");
		else if (!strcmp(o, ">="))
			strcpy(o, "<=");
	}
	colcons *c = &cc[kp];
	if (!strcmp(o, "=")) {
		if (c->eq || c->in)
			return false;
		c->eq = b;
		c->eq_qi = qi + 1;
	} else if (!strcmp(o, ">") || !strcmp(o, ">=")) {
		if (c->lo)
			return false;
		c->lo = b;
		c->lo_incl = o[1] == '=';
	} else if (!strcmp(o, "<") || !strcmp(o, "<=")) {
		if (c->hi)
			return false;
		c->hi = b;
		c->hi_incl = o[1] == '=';
	} else {
		return false;
	}
	use(c, qi);
	return true;
}

/* A constant bound (no parameters, no functions of the row): its value. */
static bool const_value(sql_expr *e, ty_datum *out)
{
	if (!e || e->kind != SQL_E_CONST)
		return false;
	*out = e->c;
	return !e->c.null;
}

/* The fraction of the table's rows a key range keeps: per equality-fixed
 * column 1/n_distinct (times the IN list's length), for a range on the
 * next column the histogram's share between the bounds. Without
 * statistics: a tenth per fixed column, a third for a range. */
static double range_selectivity(sql_session *s, const cat_obj *rel, const colcons *cc, int nfix, bool range_col)
{
	const cat_rel *r = &rel->rel;
	double sel = 1;
	for (int i = 0; i < nfix; i++) {
		double nd = rel->rel.stats_rows ? sql_stats_ndistinct(s, rel, r->pk[i]) : -1;
		double k = 1;
		if (cc[i].in && cc[i].in->kind == SQL_E_ARRAY)
			k = cc[i].in->f.nargs;
		sel *= nd > 0 ? (k / nd < 1 ? k / nd : 1) : 0.1;
	}
	if (range_col) {
		const colcons *c = &cc[nfix];
		ty_datum lo, hi;
		double f = 1.0 / 3;
		if (rel->rel.stats_rows) {
			double a = c->lo && const_value(c->lo, &lo) ? sql_stats_fraction_below(s, rel, r->pk[nfix], lo, !c->lo_incl)
								     : (c->lo ? -1 : 0);
			double b = c->hi && const_value(c->hi, &hi) ? sql_stats_fraction_below(s, rel, r->pk[nfix], hi, c->hi_incl)
								     : (c->hi ? -1 : 1);
			/* Fixed columns correlate with the range column; the
			 * histogram is over the whole table, so it gives the share
			 * of the range within each fixed prefix. */
			if (a >= 0 && b >= 0)
				f = b - a > 0.0001 ? b - a : 0.0001;
		}
		sel *= f;
	}
	return sel;
}

/* An interleaved child read without its root's key fixed: equalities on
 * its key columns after the root's, then one range, bound each kv row's
 * slice of the child's cells (exec_scan.c). The conditions stay filters. */
static sql_keyrange *child_slice(sql_planner *pl, const cat_rel *rel, const colcons *cc)
{
	int from = rel->ilv_path[0], nfix = 0;
	while (from + nfix < rel->npk && cc[from + nfix].eq)
		nfix++;
	int rc = from + nfix;
	bool range = rc < rel->npk && (cc[rc].lo || cc[rc].hi);
	if (!nfix && !range)
		return NULL;
	sql_tlist *empty = sql_tl_new();
	sql_keyrange *kr = ty_alloc0(sizeof *kr);
	kr->nfix = nfix;
	kr->lo.ncols = kr->hi.ncols = nfix;
	kr->lo.vals = ty_alloc0(sizeof(sql_expr *) * (size_t)(nfix + 1));
	kr->hi.vals = ty_alloc0(sizeof(sql_expr *) * (size_t)(nfix + 1));
	for (int i = 0; i < nfix; i++)
		kr->lo.vals[i] = kr->hi.vals[i] =
		    sql_set_refs(pl, sql_plan_prep(pl, sql_expr_copy(cc[from + i].eq)), empty);
	kr->lo.inclusive = kr->hi.inclusive = true;
	if (range && cc[rc].lo) {
		kr->lo.vals[nfix] = sql_set_refs(pl, sql_plan_prep(pl, sql_expr_copy(cc[rc].lo)), empty);
		kr->lo.ncols = nfix + 1;
		kr->lo.inclusive = cc[rc].lo_incl;
	}
	if (range && cc[rc].hi) {
		kr->hi.vals[nfix] = sql_set_refs(pl, sql_plan_prep(pl, sql_expr_copy(cc[rc].hi)), empty);
		kr->hi.ncols = nfix + 1;
		kr->hi.inclusive = cc[rc].hi_incl;
	}
	return kr;
}

sql_plan *sql_plan_table_scan(sql_planner *pl, int rte, sql_expr **quals, int nquals, sql_tlist **tl_out)
{
	/* A secondary index, when one beats the key-range scan (plan_index.c). */
	sql_plan *ip = sql_plan_index_path(pl, rte, quals, nquals, tl_out);
	if (ip)
		return ip;
	sql_query *q = pl->q;
	sql_rte *r = q->rtes[rte - 1];
	const cat_rel *rel = &r->rel->rel;
	/* Output: every column (attnum order) plus the row key. */
	sql_tlist *tl = sql_tl_new();
	for (int c = 0; c <= rel->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, c < rel->ncols ? rel->cols[c].type : TY_BYTEA, -1);
		v->typmod = c < rel->ncols ? rel->cols[c].typmod : -1;
		v->var.rte = rte;
		v->var.col = c;
		sql_tl_add(tl, v);
	}
	sql_plan *p = sql_new_node(pl, SQL_P_SCAN, tl);
	p->scan.rel = r->rel;
	p->scan.reloid = r->rel->oid;
	memcpy(p->scan.storage, rel->storage, sizeof p->scan.storage);
	p->scan.needed = ty_alloc0(sizeof(bool) * (size_t)(rel->ncols + 1));
	for (int c = 0; c < rel->ncols; c++)
		p->scan.needed[c] = r->used ? r->used[c] : true;
	p->scan.needed[rel->ncols] = true;
	p->scan.lock_strength = r->lock_strength;
	p->scan.lock_wait = r->lock_wait;

	/* Key ranges from conjuncts on a key prefix. An interleaved child's
	 * columns past its root's key bound a range only once the root's key
	 * is fixed (the range is then within one kv row: exec_scan.c). */
	int npk = rel->npk;
	bool *consumed = ty_alloc0(sizeof(bool) * (size_t)(nquals ? nquals : 1));
	double range_sel = 1;
	if (npk > 0) {
		colcons *cc = ty_alloc0(sizeof(colcons) * (size_t)npk);
		for (int i = 0; i < nquals; i++)
			take(rel, rte, quals[i], i, cc);
		/* Use the prefix of equalities, then one range column. */
		int nfix = 0;
		while (nfix < npk && (cc[nfix].eq || cc[nfix].in))
			nfix++;
		if (rel->ilv_depth && nfix < rel->ilv_path[0]) {
			npk = rel->ilv_path[0];
			p->scan.slice = child_slice(pl, rel, cc);
		}
		bool range_col = nfix < npk && (cc[nfix].lo || cc[nfix].hi);
		bool like_col = nfix < npk && !range_col && cc[nfix].like;
		if (nfix > 0 || range_col || like_col) {
			sql_tlist *empty = sql_tl_new();
			/* IN lists multiply into several ranges (expanded at run time). */
			sql_keyrange *kr = ty_alloc0(sizeof *kr);
			kr->nfix = nfix;
			kr->lo.ncols = kr->hi.ncols = nfix;
			kr->lo.vals = ty_alloc0(sizeof(sql_expr *) * (size_t)(nfix + 1));
			kr->hi.vals = ty_alloc0(sizeof(sql_expr *) * (size_t)(nfix + 1));
			for (int i = 0; i < nfix; i++) {
				sql_expr *v = cc[i].eq ? cc[i].eq : cc[i].in;
				kr->lo.vals[i] = kr->hi.vals[i] = sql_set_refs(pl, sql_plan_prep(pl, v), empty);
				/* Only the equality: other bounds on a fixed column
				 * (a = 6 AND a < 5) stay filters. */
				consumed[cc[i].eq_qi - 1] = true;
			}
			kr->lo.inclusive = kr->hi.inclusive = true;
			kr->lo.infinite = kr->hi.infinite = false;
			if (range_col) {
				colcons *c = &cc[nfix];
				if (c->lo) {
					kr->lo.vals[nfix] = sql_set_refs(pl, sql_plan_prep(pl, c->lo), empty);
					kr->lo.ncols = nfix + 1;
					kr->lo.inclusive = c->lo_incl;
				}
				if (c->hi) {
					kr->hi.vals[nfix] = sql_set_refs(pl, sql_plan_prep(pl, c->hi), empty);
					kr->hi.ncols = nfix + 1;
					kr->hi.inclusive = c->hi_incl;
				}
				for (int k = 0; k < c->nused; k++)
					consumed[c->used[k]] = true;
			}
			if (like_col)
				kr->like = sql_set_refs(pl, sql_plan_prep(pl, sql_expr_copy(cc[nfix].like)), empty);
			range_sel = range_selectivity(pl->ax->s, r->rel, cc, nfix, range_col);
			p->scan.nranges = 1;
			p->scan.ranges = kr;
			p->scan.npoint = nfix == rel->npk ? rel->npk : 0;
		}
	}
	/* The rest filters inside the scan. */
	sql_expr **rest = ty_alloc(sizeof(sql_expr *) * (size_t)(nquals ? nquals : 1));
	int nrest = 0;
	for (int i = 0; i < nquals; i++)
		if (!consumed[i])
			rest[nrest++] = sql_set_refs(pl, sql_plan_prep(pl, quals[i]), tl);
	p->qual = sql_make_and(rest, nrest);
	/* Estimates: the row count ANALYZE found (1000 if never analyzed),
	 * the key range's selectivity from the statistics, a third per other
	 * condition (no statistics on them yet). */
	double rows = rel->stats_rows ? (double)rel->stats_rows : 1000;
	if (p->scan.nranges)
		rows = p->scan.npoint ? 1 : rows * range_sel;
	for (int i = 0; i < nrest; i++)
		rows /= 3;
	p->rows = rows < 1 ? 1 : rows;
	*tl_out = tl;
	return p;
}

/* ---------------------------------------------------------------- derived equalities */

/* Equivalence classes of columns equated by the query's conditions, so that
 * `o.id = 777 AND l.order_id = o.id` also gives `l.order_id = 777`, which
 * makes a key range of the scan of l (PostgreSQL's equivalence classes do
 * the same). Only conditions that hold for every result row count: WHERE
 * conjuncts and ON conditions of inner joins reached through inner joins. */
typedef struct eq_var {
	int rte, col;
	ty_oid type;
	int parent; /* union-find */
	sql_expr *var;
} eq_var;

typedef struct eq_ctx {
	eq_var v[64];
	int n;
} eq_ctx;

static int eq_find(eq_ctx *c, int i)
{
	while (c->v[i].parent != i)
		i = c->v[i].parent = c->v[c->v[i].parent].parent;
	return i;
}

static int eq_var_index(eq_ctx *c, sql_expr *e)
{
	if (e->kind != SQL_E_VAR || e->var.levelsup)
		return -1;
	for (int i = 0; i < c->n; i++)
		if (c->v[i].rte == e->var.rte && c->v[i].col == e->var.col)
			return i;
	if (c->n == 64)
		return -1;
	c->v[c->n] = (eq_var){e->var.rte, e->var.col, e->type, c->n, e};
	return c->n++;
}

/* `a = b` with the type's equality on two columns of the same type. */
static void eq_collect(eq_ctx *c, sql_expr *q)
{
	if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname || strcmp(q->f.opname, "="))
		return;
	sql_expr *a = q->f.args[0], *b = q->f.args[1];
	if (a->kind != SQL_E_VAR || b->kind != SQL_E_VAR || a->type != b->type || a->var.levelsup || b->var.levelsup)
		return;
	int i = eq_var_index(c, a), k = eq_var_index(c, b);
	if (i < 0 || k < 0)
		return;
	c->v[eq_find(c, i)].parent = eq_find(c, k);
}

static void eq_walk_joins(eq_ctx *c, sql_jnode *j)
{
	if (!j || !j->is_join || j->jointype != SQL_JOIN_INNER)
		return;
	sql_expr **jq;
	int n = sql_conjuncts(j->quals, &jq);
	for (int i = 0; i < n; i++)
		eq_collect(c, jq[i]);
	eq_walk_joins(c, j->left);
	eq_walk_joins(c, j->right);
}

/* Is there already `var = something bound` for this column? */
static bool has_bound_eq(sql_expr **quals, int n, const eq_var *v)
{
	for (int i = 0; i < n; i++) {
		sql_expr *q = quals[i];
		if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname || strcmp(q->f.opname, "="))
			continue;
		for (int s = 0; s < 2; s++) {
			sql_expr *a = q->f.args[s], *b = q->f.args[1 - s];
			if (a->kind == SQL_E_VAR && !a->var.levelsup && a->var.rte == v->rte && a->var.col == v->col &&
			    is_bound_value(b))
				return true;
		}
	}
	return false;
}

void sql_derive_equalities(sql_planner *pl, sql_query *q, sql_expr ***quals, int *nquals)
{
	eq_ctx c;
	c.n = 0;
	for (int i = 0; i < *nquals; i++)
		eq_collect(&c, (*quals)[i]);
	for (int i = 0; i < q->nfrom; i++)
		eq_walk_joins(&c, q->from[i]);
	if (c.n == 0)
		return;
	/* Constants bound to a column of a class carry over to its other columns. */
	int n0 = *nquals;
	sql_expr **out = NULL;
	int nout = 0;
	for (int i = 0; i < n0; i++) {
		sql_expr *qq = (*quals)[i];
		if (qq->kind != SQL_E_FUNC || qq->f.nargs != 2 || !qq->f.opname || strcmp(qq->f.opname, "="))
			continue;
		for (int s = 0; s < 2; s++) {
			sql_expr *a = qq->f.args[s], *b = qq->f.args[1 - s];
			if (a->kind != SQL_E_VAR || a->var.levelsup || !is_bound_value(b) || b->type != a->type)
				continue;
			int vi = -1;
			for (int k = 0; k < c.n; k++)
				if (c.v[k].rte == a->var.rte && c.v[k].col == a->var.col)
					vi = k;
			if (vi < 0)
				continue;
			int root = eq_find(&c, vi);
			for (int k = 0; k < c.n; k++) {
				if (k == vi || eq_find(&c, k) != root || c.v[k].type != a->type)
					continue;
				if (has_bound_eq(*quals, n0, &c.v[k]) || (out && has_bound_eq(out, nout, &c.v[k])))
					continue;
				if (!out)
					out = ty_alloc(sizeof(sql_expr *) * (size_t)(c.n + 1));
				if (nout < c.n)
					out[nout++] = sql_make_op(pl->ax, "=", sql_expr_copy(c.v[k].var), sql_expr_copy(b), -1);
			}
		}
	}
	if (!nout)
		return;
	sql_expr **all = ty_alloc(sizeof(sql_expr *) * (size_t)(n0 + nout));
	memcpy(all, *quals, sizeof(sql_expr *) * (size_t)n0);
	memcpy(all + n0, out, sizeof(sql_expr *) * (size_t)nout);
	*quals = all;
	*nquals = n0 + nout;
}
