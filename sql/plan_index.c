/*
 * plan_index.c — choosing index scans: conjuncts on an index prefix
 * (=, IN, <, <=, >, >=, BETWEEN, IS [NOT] NULL; on key columns or index
 * expressions) become key ranges; a partial index is a candidate only when
 * the WHERE clause implies its predicate; ORDER BY matching the index
 * order (forward or backward) drops the sort and LIMIT stops the scan;
 * MIN/MAX of an indexed column read the first and last entry; covering
 * indexes answer from their entries (index-only). A rough cost model
 * (rows from ANALYZE, fixed selectivities) compares the candidates with
 * the primary-key scan and the full scan.
 */
#include <stdio.h>
#include <string.h>

#include "plan_int.h"
#include "sql_index.h"

#define SEL_EQ    0.01
#define SEL_RANGE 0.1
#define SEL_NULL  0.01

static bool int_family(ty_oid t)
{
	return t == TY_INT2 || t == TY_INT4 || t == TY_INT8;
}

/* A bound value: nothing of this query level, nothing volatile. */
static bool var_walker(sql_expr *e, void *arg)
{
	(void)arg;
	return (e->kind == SQL_E_VAR && e->var.levelsup == 0) || e->kind == SQL_E_SUBLINK ||
	       e->kind == SQL_E_AGG || e->kind == SQL_E_WINDOW || e->kind == SQL_E_SRF ||
	       (e->kind == SQL_E_FUNC && e->f.fn && e->f.fn->volatility == TY_VOLATILE);
}

static bool is_bound_value(sql_expr *e)
{
	return !sql_expr_walk(e, var_walker, NULL);
}

/* Values of type val can bound a key of type key: same type, integers of
 * any width, or types sharing one lossless key encoding (text, varchar). */
static bool comparable(ty_oid key, ty_oid val)
{
	if (key == val || (int_family(key) && int_family(val)))
		return true;
	const ty_type *a = ty_type_get(key), *b = ty_type_get(val);
	return a && b && a->keyenc && a->keyenc == b->keyenc && !a->key_lossy && !b->key_lossy;
}

/* ---------------------------------------------------------------- index keys as expressions */

static sql_expr *renumber(sql_expr *e, void *arg)
{
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0)
		e->var.rte = *(int *)arg;
	return e;
}

/* Key i of x as an expression over RTE rte. */
static sql_expr *key_expr(const sql_ix *x, int i, int rte)
{
	if (x->key_attnum[i]) {
		const cat_column *c = cat_column_by_attnum(&x->table->rel, x->key_attnum[i]);
		sql_expr *v = sql_expr_new(SQL_E_VAR, c->type, -1);
		v->typmod = c->typmod;
		v->var.rte = rte;
		v->var.col = x->key_attnum[i] - 1;
		return v;
	}
	return sql_expr_mutate(sql_expr_copy(x->key_var[i]), renumber, &rte);
}

/* ---------------------------------------------------------------- conjuncts on keys */

typedef struct colcons {
	sql_expr *eq, *in;
	sql_expr *lo, *hi;
	bool lo_incl, hi_incl;
	int nulls; /* 1 IS NULL, 2 IS NOT NULL */
	/* The conjunct (index + 1) each bound came from: only those the
	 * range applies are left out of the recheck. */
	int q_eq, q_lo, q_hi, q_null;
} colcons;

static int which_key(sql_expr **keys, int nkeys, sql_expr *e)
{
	for (int i = 0; i < nkeys; i++)
		if (sql_expr_equal(keys[i], e))
			return i;
	return -1;
}

static const char *flip(const char *o)
{
	if (!strcmp(o, "<"))
		return ">";
	if (!strcmp(o, ">"))
		return "<";
	if (!strcmp(o, "<="))
		return ">=";
	if (!strcmp(o, ">="))
		return "<=";
	return o;
}

/* Records conjunct q if it constrains a key. */
static void take(sql_expr **keys, int nkeys, sql_expr *q, int qi, colcons *cc)
{
	if (q->kind == SQL_E_NULLTEST && q->f.nargs == 1) {
		int k = which_key(keys, nkeys, q->f.args[0]);
		if (k < 0 || cc[k].nulls)
			return;
		cc[k].nulls = q->f.negate ? 2 : 1;
		cc[k].q_null = qi + 1;
		return;
	}
	if (q->kind == SQL_E_ANYARRAY && !q->f.all && q->f.opname && !strcmp(q->f.opname, "=")) {
		int k = which_key(keys, nkeys, q->f.args[0]);
		if (k < 0 || !is_bound_value(q->f.args[1]))
			return;
		const ty_type *at = ty_type_get(q->f.args[1]->type);
		if (!at || !comparable(keys[k]->type, at->elem) || cc[k].eq || cc[k].in)
			return;
		cc[k].in = q->f.args[1];
		cc[k].q_eq = qi + 1;
		return;
	}
	if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname)
		return;
	sql_expr *a = q->f.args[0], *b = q->f.args[1];
	const char *op = q->f.opname;
	int k = which_key(keys, nkeys, a);
	if (k < 0) {
		k = which_key(keys, nkeys, b);
		if (k < 0)
			return;
		sql_expr *t = a;
		a = b;
		b = t;
		op = flip(op);
	}
	if (!is_bound_value(b) || !comparable(a->type, b->type))
		return;
	colcons *c = &cc[k];
	if (!strcmp(op, "=")) {
		if (c->eq || c->in)
			return;
		c->eq = b;
		c->q_eq = qi + 1;
	} else if (!strcmp(op, ">") || !strcmp(op, ">=")) {
		if (c->lo)
			return;
		c->lo = b;
		c->lo_incl = op[1] == '=';
		c->q_lo = qi + 1;
	} else if (!strcmp(op, "<") || !strcmp(op, "<=")) {
		if (c->hi)
			return;
		c->hi = b;
		c->hi_incl = op[1] == '=';
		c->q_hi = qi + 1;
	}
}

/* ---------------------------------------------------------------- partial indexes */

static bool strict_on(sql_expr *q, sql_expr *x)
{
	if ((q->kind == SQL_E_FUNC && q->f.fn && q->f.fn->strict) || q->kind == SQL_E_ANYARRAY)
		for (int i = 0; i < q->f.nargs; i++)
			if (sql_expr_equal(q->f.args[i], x))
				return true;
	return q->kind == SQL_E_NULLTEST && q->f.negate && sql_expr_equal(q->f.args[0], x);
}

/* Does a comparison "x qop qc" imply "x pop pc" (constants of one type)? */
static bool range_implies(const char *qop, ty_datum qc, const char *pop, ty_datum pc, ty_oid type)
{
	int c = ty_compare(type, qc, pc); /* qc vs pc */
	bool ge = !strcmp(pop, ">="), gt = !strcmp(pop, ">"), le = !strcmp(pop, "<="), lt = !strcmp(pop, "<");
	bool ne = !strcmp(pop, "<>"), eq = !strcmp(pop, "=");
	if (!strcmp(qop, "=")) {
		return (eq && c == 0) || (ne && c != 0) || (gt && c > 0) || (ge && c >= 0) || (lt && c < 0) ||
		       (le && c <= 0);
	}
	if (!strcmp(qop, ">") || !strcmp(qop, ">="))
		return (gt && (c > 0 || (c == 0 && qop[1] == 0))) || (ge && c >= 0) ||
		       (ne && (c > 0 || (c == 0 && !qop[1])));
	if (!strcmp(qop, "<") || !strcmp(qop, "<="))
		return (lt && (c < 0 || (c == 0 && qop[1] == 0))) || (le && c <= 0) ||
		       (ne && (c < 0 || (c == 0 && !qop[1])));
	return false;
}

/* x op const, normalised with x on the left. */
static bool as_cmp(sql_expr *q, sql_expr **x, const char **op, sql_expr **c)
{
	if (q->kind != SQL_E_FUNC || q->f.nargs != 2 || !q->f.opname)
		return false;
	if (q->f.args[1]->kind == SQL_E_CONST && q->f.args[0]->kind != SQL_E_CONST) {
		*x = q->f.args[0];
		*op = q->f.opname;
		*c = q->f.args[1];
		return true;
	}
	if (q->f.args[0]->kind == SQL_E_CONST && q->f.args[1]->kind != SQL_E_CONST) {
		*x = q->f.args[1];
		*op = flip(q->f.opname);
		*c = q->f.args[0];
		return true;
	}
	return false;
}

static bool implied(sql_expr *p, sql_expr **quals, int nquals)
{
	for (int i = 0; i < nquals; i++) {
		sql_expr *q = quals[i];
		if (sql_expr_equal(q, p))
			return true;
		if (p->kind == SQL_E_NULLTEST && p->f.negate && strict_on(q, p->f.args[0]))
			return true;
		sql_expr *px, *pc, *qx, *qc;
		const char *pop, *qop;
		if (as_cmp(p, &px, &pop, &pc) && as_cmp(q, &qx, &qop, &qc) && sql_expr_equal(px, qx) &&
		    pc->type == qc->type && !pc->c.null && !qc->c.null && ty_type_get(pc->type) &&
		    ty_type_get(pc->type)->cmp && range_implies(qop, qc->c, pop, pc->c, pc->type))
			return true;
	}
	return false;
}

static bool predicate_implied(const sql_ix *x, int rte, sql_expr **quals, int nquals)
{
	if (!x->pred_var)
		return true;
	sql_expr *p = sql_expr_mutate(sql_expr_copy(x->pred_var), renumber, &rte);
	sql_expr **conj;
	int n = sql_conjuncts(p, &conj);
	for (int i = 0; i < n; i++)
		if (!implied(conj[i], quals, nquals))
			return false;
	return true;
}

/* ---------------------------------------------------------------- candidates */

typedef struct cand {
	sql_ix *x;
	const cat_obj *obj;
	colcons *cc;
	int nfix;
	bool range; /* lo/hi/null test on key nfix */
	double rows, cost;
	bool ordered; /* provides the query's ORDER BY */
	bool reverse;
	bool index_only;
} cand;

/* The ORDER BY of a single-table query this scan could provide. */
static bool order_wanted(sql_planner *pl, int rte)
{
	sql_query *q = pl->q;
	return q->nsort > 0 && q->nfrom == 1 && !q->from[0]->is_join && q->from[0]->rte == rte &&
	       !q->has_aggs && q->ngroup == 0 && q->nwins == 0 && !q->distinct && q->ndistinct_on == 0 &&
	       !q->setop && !q->has_srf && !q->limit_ties;
}

/* Whether the index order gives ORDER BY (forward, or with *reverse
 * backward): sort keys follow the index keys (those fixed by = may be
 * skipped), then the primary key, which ends every non-unique entry key. */
static bool gives_order(sql_planner *pl, int rte, const sql_ix *x, sql_expr **keys, const colcons *cc,
			int nfix, bool *reverse)
{
	sql_query *q = pl->q;
	const cat_rel *rel = &x->table->rel;
	int k = 0, pkpos = 0;
	int dir = 0; /* 1 forward, -1 backward */
	for (int i = 0; i < q->nsort; i++) {
		const sql_sortkey *sk = &q->sort[i];
		int at = which_key(keys, x->nkeys, sk->expr);
		if (at >= 0 && at < nfix && cc[at].eq)
			continue;
		while (k < x->nkeys && k < nfix && cc[k].eq && k != at)
			k++;
		int d;
		if (k < x->nkeys) {
			if (at != k)
				return false;
			const ty_keycol *kc = &x->keys[k];
			if (sk->desc == kc->desc && sk->nulls_first == kc->nulls_first)
				d = 1;
			else if (sk->desc != kc->desc && sk->nulls_first != kc->nulls_first)
				d = -1;
			else
				return false;
			k++;
		} else {
			/* The primary key after the indexed values (not NULL);
			 * a salted key orders by its bucket first. */
			if (x->def.unique || pkpos >= rel->npk || rel->salt_buckets)
				return false;
			const sql_expr *e = sk->expr;
			if (e->kind != SQL_E_VAR || e->var.levelsup || e->var.rte != rte ||
			    e->var.col != rel->pk[pkpos] - 1)
				return false;
			bool pkdesc = rel->pk_desc ? rel->pk_desc[pkpos] : false;
			d = sk->desc == pkdesc ? 1 : -1;
			pkpos++;
		}
		if (dir && d != dir)
			return false;
		dir = d;
	}
	*reverse = dir < 0;
	return true;
}

static bool covers(const sql_ix *x, const sql_rte *r)
{
	const cat_rel *rel = &x->table->rel;
	bool *have = ty_alloc0(sizeof(bool) * (size_t)(rel->ncols + 1));
	for (int i = 0; i < x->nkeys; i++) {
		if (!x->key_attnum[i])
			continue;
		const ty_type *t = ty_type_get(x->keys[i].type);
		if (t && !t->key_lossy)
			have[x->key_attnum[i] - 1] = true;
	}
	for (int i = 0; i < x->info->ninclude; i++)
		have[x->info->include[i] - 1] = true;
	for (int i = 0; i < rel->npk; i++) {
		const cat_column *c = cat_column_by_attnum(rel, rel->pk[i]);
		const ty_type *t = ty_type_get(c->type);
		if (t && !t->key_lossy)
			have[rel->pk[i] - 1] = true;
	}
	for (int c = 0; c < rel->ncols; c++)
		if (!rel->cols[c].dropped && (!r->used || r->used[c]) && !have[c])
			return false;
	return true;
}

static bool guc_on(sql_session *s, const char *name)
{
	const char *v = sql_guc_get(s, name);
	return !v || strcmp(v, "off") != 0;
}

/* Rows of the table (ANALYZE), or a guess. */
static double table_rows(const cat_rel *r)
{
	return r->stats_rows ? (double)r->stats_rows : 1000;
}

/* A constant bound's value (not a parameter or an expression). */
static bool const_value(const sql_expr *e, ty_datum *out)
{
	if (!e || e->kind != SQL_E_CONST || e->c.null)
		return false;
	*out = e->c;
	return true;
}

/* The fraction of rows an equality prefix of nfix columns and a range on
 * the next keeps. With statistics (ANALYZE) on plain columns: 1/n_distinct
 * per fixed column (times an IN list's length) and the histogram's share
 * between the range's bounds, as plan_scan.c estimates key ranges; else
 * fixed guesses. attnum[i]: the column of key i, 0 for an expression. */
static double selectivity(sql_session *s, const cat_obj *rel, const int16_t *attnum, const colcons *cc,
			  int nfix, bool range)
{
	bool stats = s && rel->rel.stats_rows;
	double sel = 1;
	for (int i = 0; i < nfix; i++) {
		double nd = stats && attnum[i] ? sql_stats_ndistinct(s, rel, attnum[i]) : -1;
		double k = 1;
		if (cc[i].in && cc[i].in->kind == SQL_E_ARRAY)
			k = cc[i].in->f.nargs;
		else if (cc[i].in)
			k = 5;
		sel *= nd > 0 ? (k / nd < 1 ? k / nd : 1) : SEL_EQ * k;
	}
	if (range) {
		const colcons *c = &cc[nfix];
		double f = c->nulls == 1                       ? SEL_NULL
			   : c->nulls == 2 && !c->lo && !c->hi ? 0.9
			   : (c->lo && c->hi)                  ? SEL_RANGE / 2
							       : SEL_RANGE;
		ty_datum lo, hi;
		if (stats && attnum[nfix] && c->nulls != 1 && (c->lo || c->hi)) {
			double a = !c->lo ? 0
				   : const_value(c->lo, &lo)
				       ? sql_stats_fraction_below(s, rel, attnum[nfix], lo, !c->lo_incl)
				       : -1;
			double b = !c->hi ? 1
				   : const_value(c->hi, &hi)
				       ? sql_stats_fraction_below(s, rel, attnum[nfix], hi, c->hi_incl)
				       : -1;
			if (a >= 0 && b >= 0)
				f = b - a > 0.0001 ? b - a : 0.0001;
		}
		sel *= f;
	}
	return sel;
}

/* Estimated cost of the primary-key scan these quals allow. */
static double pk_cost(sql_session *s, const cat_obj *relo, int rte, sql_expr **quals, int nquals)
{
	const cat_rel *rel = &relo->rel;
	double base = table_rows(rel);
	if (rel->npk == 0)
		return base;
	sql_expr **keys = ty_alloc(sizeof(sql_expr *) * (size_t)rel->npk);
	for (int i = 0; i < rel->npk; i++) {
		const cat_column *c = cat_column_by_attnum(rel, rel->pk[i]);
		keys[i] = sql_expr_new(SQL_E_VAR, c->type, -1);
		keys[i]->var.rte = rte;
		keys[i]->var.col = rel->pk[i] - 1;
	}
	colcons *cc = ty_alloc0(sizeof(colcons) * (size_t)rel->npk);
	for (int i = 0; i < nquals; i++)
		take(keys, rel->npk, quals[i], i, cc);
	int nfix = 0;
	while (nfix < rel->npk && (cc[nfix].eq || cc[nfix].in))
		nfix++;
	if (nfix == rel->npk)
		return 1;
	return base *
	       selectivity(s, relo, rel->pk, cc, nfix, nfix < rel->npk && (cc[nfix].lo || cc[nfix].hi));
}

static cand *consider(sql_planner *pl, int rte, const cat_obj *ixo, sql_expr **quals, int nquals)
{
	sql_session *s = pl->ax->s;
	sql_rte *r = pl->q->rtes[rte - 1];
	const cat_rel *rel = &r->rel->rel;
	sql_ix *x = sql_ix_compile(s, pl->ax->cat, ixo, pl->ax->ps);
	if (!predicate_implied(x, rte, quals, nquals))
		return NULL;
	sql_expr **keys = ty_alloc(sizeof(sql_expr *) * (size_t)(x->nkeys + 1));
	for (int i = 0; i < x->nkeys; i++)
		keys[i] = key_expr(x, i, rte);
	colcons *cc = ty_alloc0(sizeof(colcons) * (size_t)(x->nkeys + 1));
	for (int i = 0; i < nquals; i++)
		take(keys, x->nkeys, quals[i], i, cc);
	cand *c = ty_alloc0(sizeof *c);
	c->x = x;
	c->obj = ixo;
	c->cc = cc;
	while (c->nfix < x->nkeys && (cc[c->nfix].eq || cc[c->nfix].in) && !cc[c->nfix].nulls)
		c->nfix++;
	c->range = c->nfix < x->nkeys && (cc[c->nfix].lo || cc[c->nfix].hi || cc[c->nfix].nulls);
	double base = table_rows(rel);
	bool all_eq = c->nfix == x->nkeys;
	for (int i = 0; i < c->nfix; i++)
		all_eq &= cc[i].eq != NULL;
	double sel = selectivity(s, r->rel, x->key_attnum, cc, c->nfix, c->range);
	if (x->pred_var)
		sel *= 0.5;
	c->rows = all_eq && x->def.unique ? 1 : base * sel;
	if (c->rows < 1)
		c->rows = 1;
	/* Not on an interleaved child: a cascading parent delete removes its
	 * rows without their entries, which only reading the row tells. */
	c->index_only =
	    !r->lock_strength && !r->rel->rel.ilv_depth && covers(x, r) && guc_on(s, "enable_indexonlyscan");
	c->cost = c->rows * (c->index_only ? 1.2 : 3.0) + 1;
	if (order_wanted(pl, rte))
		c->ordered = gives_order(pl, rte, x, keys, cc, c->nfix, &c->reverse);
	return c;
}

/* ---------------------------------------------------------------- the plan node */

static sql_plan *make_scan(sql_planner *pl, int rte, cand *c, sql_expr **quals, int nquals, bool reverse,
			   sql_expr *limit, int nulls_col, sql_tlist **tl_out)
{
	sql_query *q = pl->q;
	sql_rte *r = q->rtes[rte - 1];
	const cat_rel *rel = &r->rel->rel;
	sql_ix *x = c->x;
	sql_tlist *tl = sql_tl_new();
	for (int col = 0; col <= rel->ncols; col++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, col < rel->ncols ? rel->cols[col].type : TY_BYTEA, -1);
		v->typmod = col < rel->ncols ? rel->cols[col].typmod : -1;
		v->var.rte = rte;
		v->var.col = col;
		sql_tl_add(tl, v);
	}
	sql_plan *p = sql_new_node(pl, SQL_P_INDEXSCAN, tl);
	p->scan.rel = r->rel;
	p->scan.reloid = r->rel->oid;
	memcpy(p->scan.storage, rel->storage, sizeof p->scan.storage);
	p->scan.needed = ty_alloc0(sizeof(bool) * (size_t)(rel->ncols + 1));
	for (int col = 0; col < rel->ncols; col++)
		p->scan.needed[col] = r->used ? r->used[col] : true;
	p->scan.needed[rel->ncols] = true;
	p->scan.lock_strength = r->lock_strength;
	p->scan.lock_wait = r->lock_wait;
	p->scan.reverse = reverse;
	p->scan.index_oid = c->obj->oid;
	p->scan.index_only = c->index_only;
	sql_ixscan *xs = ty_alloc0(sizeof *xs);
	xs->ix = x;
	snprintf(xs->index_storage, sizeof xs->index_storage, "%s", c->obj->rel.storage);
	snprintf(xs->index_name, sizeof xs->index_name, "%s", c->obj->rel.name);
	xs->index_only = c->index_only;
	xs->valid_from = x->info->valid_from;
	sql_tlist *empty = sql_tl_new();
	bool *consumed = ty_alloc0(sizeof(bool) * (size_t)(nquals + 1));
	sql_ixrange *ir = ty_alloc0(sizeof *ir);
	ir->nfix = c->nfix;
	ir->eq = ty_alloc0(sizeof(sql_expr *) * (size_t)(c->nfix + 1));
	for (int i = 0; i < c->nfix; i++) {
		colcons *k = &c->cc[i];
		ir->eq[i] = sql_set_refs(pl, sql_plan_prep(pl, k->eq ? k->eq : k->in), empty);
		consumed[k->q_eq - 1] = true;
	}
	if (c->range) {
		colcons *k = &c->cc[c->nfix];
		ir->nulls = k->nulls;
		if (k->nulls != 1) {
			ir->lo = k->lo ? sql_set_refs(pl, sql_plan_prep(pl, k->lo), empty) : NULL;
			ir->hi = k->hi ? sql_set_refs(pl, sql_plan_prep(pl, k->hi), empty) : NULL;
			ir->lo_incl = k->lo_incl;
			ir->hi_incl = k->hi_incl;
			if (k->q_lo)
				consumed[k->q_lo - 1] = true;
			if (k->q_hi)
				consumed[k->q_hi - 1] = true;
		}
		if (k->q_null)
			consumed[k->q_null - 1] = true;
	} else if (nulls_col >= 0 && c->nfix == nulls_col) {
		ir->nulls = 2; /* MIN/MAX: non-NULL values only */
	}
	xs->nranges = ir->nfix || ir->nulls || ir->lo || ir->hi ? 1 : 0;
	xs->ranges = ir;
	xs->limit = limit;
	sql_expr **rest = ty_alloc(sizeof(sql_expr *) * (size_t)(nquals + 1));
	xs->conds = ty_alloc(sizeof(sql_expr *) * (size_t)(nquals + 1));
	int nrest = 0;
	for (int i = 0; i < nquals; i++) {
		sql_expr *e = sql_set_refs(pl, sql_plan_prep(pl, quals[i]), tl);
		if (consumed[i])
			xs->conds[xs->nconds++] = e;
		else
			rest[nrest++] = e;
	}
	p->qual = sql_make_and(rest, nrest);
	p->scan.ixscan = xs;
	p->rows = c->rows;
	p->cost = c->cost;
	*tl_out = tl;
	return p;
}

/* LIMIT + OFFSET as one expression (rows the scan must produce). */
static sql_expr *scan_limit(sql_planner *pl)
{
	sql_query *q = pl->q;
	if (!q->limit)
		return NULL;
	sql_tlist *empty = sql_tl_new();
	sql_expr *l = sql_set_refs(pl, sql_plan_prep(pl, q->limit), empty);
	if (!q->offset)
		return l;
	sql_expr *o = sql_set_refs(pl, sql_plan_prep(pl, q->offset), empty);
	sql_actx *ax = pl->ax;
	sql_expr *sum = sql_make_op(ax, "+", sql_coerce(ax, l, TY_INT8, -1, SQL_COERCE_IMPLICIT, -1),
				    sql_coerce(ax, o, TY_INT8, -1, SQL_COERCE_IMPLICIT, -1), -1);
	return sql_plan_prep(pl, sum);
}

/* Whether ORDER BY follows the primary key (after key columns fixed by
 * equality), which a table scan provides. */
static bool pk_gives_order(sql_planner *pl, int rte, sql_expr **quals, int nquals)
{
	sql_query *q = pl->q;
	const cat_rel *rel = &q->rtes[rte - 1]->rel->rel;
	if (rel->npk == 0)
		return false;
	sql_expr **keys = ty_alloc(sizeof(sql_expr *) * (size_t)rel->npk);
	for (int i = 0; i < rel->npk; i++) {
		const cat_column *c = cat_column_by_attnum(rel, rel->pk[i]);
		keys[i] = sql_expr_new(SQL_E_VAR, c->type, -1);
		keys[i]->var.rte = rte;
		keys[i]->var.col = rel->pk[i] - 1;
	}
	colcons *cc = ty_alloc0(sizeof(colcons) * (size_t)rel->npk);
	for (int i = 0; i < nquals; i++)
		take(keys, rel->npk, quals[i], i, cc);
	int k = 0;
	for (int i = 0; i < q->nsort; i++) {
		int at = which_key(keys, rel->npk, q->sort[i].expr);
		if (at < 0)
			return false;
		if (cc[at].eq)
			continue;
		while (k < rel->npk && cc[k].eq && k != at)
			k++;
		if (at != k)
			return false;
		k++;
	}
	return true;
}

static bool usable_index(sql_planner *pl, const cat_obj *ixo)
{
	if (!ixo || !ixo->rel.index || ixo->rel.index->primary || ixo->rel.index->state != CAT_INDEX_PUBLIC ||
	    !ixo->rel.storage[0])
		return false;
	sql_session *s = pl->ax->s;
	kv_ts snap = s->txn ? sql_txn_read_ts(s->txn) : kv_read_point(s->e->kv);
	return ixo->rel.index->valid_from <= snap;
}

sql_plan *sql_plan_index_path(sql_planner *pl, int rte, sql_expr **quals, int nquals, sql_tlist **tl_out)
{
	sql_query *q = pl->q;
	sql_rte *r = q->rtes[rte - 1];
	const cat_rel *rel = &r->rel->rel;
	sql_session *s = pl->ax->s;
	if (rel->nindexes == 0 || !s || !guc_on(s, "enable_indexscan"))
		return NULL;
	double base = table_rows(rel);
	double best_cost = pk_cost(s, r->rel, rte, quals, nquals);
	if (best_cost > base)
		best_cost = base;
	if (!guc_on(s, "enable_seqscan"))
		best_cost *= 1e6;
	/* ORDER BY the primary key is the table scan's own order (plan_order.c). */
	bool want_order = order_wanted(pl, rte) && q->limit && !pk_gives_order(pl, rte, quals, nquals);
	cand *best = NULL;
	for (int i = 0; i < rel->nindexes; i++) {
		const cat_obj *ixo = cat_get(pl->ax->cat, rel->indexes[i]);
		if (!usable_index(pl, ixo))
			continue;
		cand *c = consider(pl, rte, ixo, quals, nquals);
		if (!c)
			continue;
		bool filters = c->nfix > 0 || c->range;
		double cost = c->cost;
		if (want_order && c->ordered)
			cost = (filters ? c->cost : base) / 100; /* the LIMIT stops it early */
		else if (!filters)
			continue;
		if (cost < best_cost) {
			best_cost = cost;
			best = c;
		}
	}
	if (!best)
		return NULL;
	bool ordered = best->ordered && order_wanted(pl, rte);
	sql_plan *p = make_scan(pl, rte, best, quals, nquals, ordered && best->reverse,
				ordered ? scan_limit(pl) : NULL, -1, tl_out);
	if (ordered)
		pl->ordered_by_scan = true;
	return p;
}

/* ---------------------------------------------------------------- MIN / MAX */

sql_plan *sql_plan_minmax(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals, sql_tlist **tl_out)
{
	if (!q->has_aggs || q->ngroup || q->ngsets || q->nwins || q->nfrom != 1 || q->from[0]->is_join ||
	    q->setop || q->has_srf || q->naggs == 0)
		return NULL;
	int rte = q->from[0]->rte;
	sql_rte *r = q->rtes[rte - 1];
	if (r->kind != SQL_RTE_TABLE || r->rel->rel.nindexes == 0 || r->lock_strength)
		return NULL;
	sql_session *s = pl->ax->s;
	if (!s || !guc_on(s, "enable_indexscan"))
		return NULL;
	/* Every aggregate is MIN or MAX of one and the same expression. */
	sql_expr *arg = NULL;
	for (int i = 0; i < q->naggs; i++) {
		const sql_aggref *a = &q->aggs[i];
		if ((a->kind != SQL_AGG_MIN && a->kind != SQL_AGG_MAX) || a->nargs != 1 || a->distinct ||
		    a->filter || a->norder)
			return NULL;
		if (arg && !sql_expr_equal(arg, a->args[0]))
			return NULL;
		arg = a->args[0];
	}
	/* Quals must all be about this table. */
	for (int i = 0; i < nquals; i++) {
		bool *need = ty_alloc0(sizeof(bool) * (size_t)q->nrtes);
		sql_expr_rtes(quals[i], need, q->nrtes);
		for (int k = 0; k < q->nrtes; k++)
			if (need[k] && k != rte - 1)
				return NULL;
	}
	const cat_rel *rel = &r->rel->rel;
	cand *best = NULL;
	for (int i = 0; i < rel->nindexes; i++) {
		const cat_obj *ixo = cat_get(pl->ax->cat, rel->indexes[i]);
		if (!usable_index(pl, ixo))
			continue;
		cand *c = consider(pl, rte, ixo, quals, nquals);
		if (!c || c->nfix >= c->x->nkeys)
			continue;
		sql_expr *k = key_expr(c->x, c->nfix, rte);
		if (!sql_expr_equal(k, arg))
			continue;
		/* Only IS NOT NULL / ranges on the aggregated key itself. */
		if (c->range && c->cc[c->nfix].nulls == 1)
			continue;
		if (!best || c->nfix > best->nfix)
			best = c;
	}
	if (!best)
		return NULL;
	/* Append(first entry, last entry): MIN and MAX over the two rows are
	 * MIN and MAX over all. */
	sql_plan *app = NULL;
	sql_tlist *tl = NULL;
	sql_plan *kids[2];
	for (int dir = 0; dir < 2; dir++) {
		sql_tlist *stl;
		sql_expr *one = sql_expr_const(TY_INT8, -1, ty_int(1), -1);
		sql_plan *sc = make_scan(pl, rte, best, quals, nquals, dir == 1, one, best->nfix, &stl);
		sql_plan *lim = sql_new_node(pl, SQL_P_LIMIT, stl);
		lim->left = sc;
		lim->limit.limit = one;
		lim->rows = 1;
		kids[dir] = lim;
		tl = stl;
	}
	app = sql_new_node(pl, SQL_P_APPEND, tl);
	app->append.nchildren = 2;
	app->append.children = ty_alloc(sizeof(sql_plan *) * 2);
	app->append.children[0] = kids[0];
	app->append.children[1] = kids[1];
	app->rows = 2;
	*tl_out = tl;
	return app;
}

/* ---------------------------------------------------------------- lookup joins */

/* One equi-join conjunct: an expression over the left side = a column of
 * the right table. */
typedef struct eqpair {
	sql_expr *left;
	int col;  /* 0-based column of the right table */
	int qual; /* index into jq */
} eqpair;

static bool rtes_within(sql_planner *pl, sql_expr *e, const bool *set)
{
	int n = pl->q->nrtes;
	bool *need = ty_alloc0(sizeof(bool) * (size_t)(n ? n : 1));
	sql_expr_rtes(e, need, n);
	bool any_rte = false;
	for (int i = 0; i < n; i++) {
		if (need[i] && !set[i])
			return false;
		any_rte |= need[i];
	}
	return any_rte;
}

static sql_expr *execparam(sql_planner *pl, ty_oid type, int32_t typmod, int *id)
{
	sql_expr *e = sql_expr_new(SQL_E_EXECPARAM, type, -1);
	e->typmod = typmod;
	*id = pl->ax->ps->nexec_params++;
	e->param = *id;
	return e;
}

/* Whether a hash join keeping `rows` rows of table o (ncols datums each)
 * would pass its memory (2 x work_mem, exec_join.c) and spill. Per row it
 * keeps the datums, the by-reference bytes (ANALYZE's average widths, 8
 * when not known), the row header and its slot in the row array (three
 * times over while the array doubles in the arena) and two bucket
 * pointers: 88 bytes. */
static bool hash_spills(sql_session *s, const cat_obj *o, int ncols, double rows)
{
	double width = 0;
	for (int i = 0; i < o->rel.ncols; i++) {
		const cat_column *c = &o->rel.cols[i];
		if (c->dropped)
			continue;
		int w = sql_stats_avg_width(s, o, c->attnum);
		width += w >= 0 ? w : 8;
	}
	double per_row = (double)ncols * sizeof(ty_datum) + 88 + width;
	size_t wm = s->work_mem ? s->work_mem : (size_t)4 << 20;
	return rows * per_row > 2.0 * (double)wm;
}

sql_plan *sql_plan_lookup_join(sql_planner *pl, sql_jointype type, sql_plan *lp, sql_tlist *ltl,
			       const bool *lset, sql_plan *rp, sql_tlist *rtl, const bool *rset,
			       sql_expr **jq, int njq, sql_tlist **tl_out)
{
	sql_query *q = pl->q;
	sql_session *s = pl->ax->s;
	if ((type != SQL_JOIN_INNER && type != SQL_JOIN_LEFT) || !s || rp->kind != SQL_P_SCAN ||
	    rp->scan.nranges || rp->scan.lock_strength || !guc_on(s, "enable_nestloop"))
		return NULL;
	/* The right side is one base table. */
	int rte = 0;
	for (int i = 0; i < q->nrtes; i++)
		if (rset[i]) {
			if (rte)
				return NULL;
			rte = i + 1;
		}
	if (!rte || q->rtes[rte - 1]->kind != SQL_RTE_TABLE || rp->scan.reloid != q->rtes[rte - 1]->rel->oid)
		return NULL;
	const cat_rel *rel = &q->rtes[rte - 1]->rel->rel;
	/* Few outer rows against a big table: one lookup each beats reading it.
	 * A table whose hash table would pass the hash join's memory is read,
	 * written to files and read back: a lookup per outer row wins up to
	 * as many outer rows as the table has. */
	double inner_rows = table_rows(rel);
	double lookup_rows = hash_spills(s, q->rtes[rte - 1]->rel, rp->ncols, inner_rows) ? 1 : 4;
	if (lp->rows * lookup_rows > inner_rows)
		return NULL;
	eqpair *pairs = ty_alloc(sizeof(eqpair) * (size_t)(njq + 1));
	int npairs = 0;
	for (int i = 0; i < njq; i++) {
		sql_expr *e = jq[i];
		if (e->kind != SQL_E_FUNC || e->f.nargs != 2 || !e->f.opname ||
		    strcmp(e->f.opname, "=") != 0 || sql_expr_volatile(e))
			continue;
		for (int side = 0; side < 2; side++) {
			sql_expr *r = e->f.args[side], *l = e->f.args[1 - side];
			if (r->kind == SQL_E_VAR && r->var.levelsup == 0 && r->var.rte == rte &&
			    rtes_within(pl, l, lset) && comparable(r->type, l->type)) {
				pairs[npairs++] = (eqpair){l, r->var.col, i};
				break;
			}
		}
	}
	if (!npairs)
		return NULL;
	/* The primary key, or an index, with leading columns among the pairs. */
	int best_n = 0;
	const cat_obj *best_ix = NULL;
	int *order = ty_alloc(sizeof(int) * (size_t)(npairs + 33)); /* pair per key column */
	int *tmp = ty_alloc(sizeof(int) * (size_t)(npairs + 33));
	for (int k = 0; k < rel->npk; k++) {
		int found = -1;
		for (int i = 0; i < npairs && found < 0; i++)
			if (pairs[i].col == rel->pk[k] - 1)
				found = i;
		if (found < 0)
			break;
		order[best_n++] = found;
	}
	bool use_pk = best_n > 0;
	if (best_n < rel->npk || !use_pk) {
		for (int x = 0; x < rel->nindexes; x++) {
			const cat_obj *ixo = cat_get(pl->ax->cat, rel->indexes[x]);
			if (!usable_index(pl, ixo) || ixo->rel.index->predicate_sql)
				continue;
			int n = 0;
			for (int k = 0; k < ixo->rel.index->nkeys && k < 32; k++) {
				int found = -1;
				for (int i = 0; i < npairs && found < 0; i++)
					if (ixo->rel.index->keys[k].attnum == pairs[i].col + 1)
						found = i;
				if (found < 0)
					break;
				tmp[n++] = found;
			}
			if (n > best_n || (n == best_n && n > 0 && use_pk && best_n < rel->npk &&
					   ixo->rel.index->unique && n == ixo->rel.index->nkeys)) {
				best_n = n;
				best_ix = ixo;
				use_pk = false;
				memcpy(order, tmp, sizeof(int) * (size_t)n);
			}
		}
	}
	if (!best_n)
		return NULL;
	/* Parameters: the left expressions, set from each outer row. */
	int *params = ty_alloc(sizeof(int) * (size_t)best_n);
	sql_expr **pvals = ty_alloc(sizeof(sql_expr *) * (size_t)best_n);
	sql_expr **pexprs = ty_alloc(sizeof(sql_expr *) * (size_t)best_n);
	bool *consumed = ty_alloc0(sizeof(bool) * (size_t)(njq + 1));
	for (int k = 0; k < best_n; k++) {
		eqpair *pr = &pairs[order[k]];
		pexprs[k] = execparam(pl, pr->left->type, pr->left->typmod, &params[k]);
		pvals[k] = sql_set_refs(pl, sql_plan_prep(pl, pr->left), ltl);
		consumed[pr->qual] = true;
	}
	sql_plan *inner;
	double per_lookup;
	if (use_pk) {
		inner = sql_plan_new(SQL_P_SCAN, rp->ncols);
		*inner = *rp;
		inner->id = pl->top->nnodes++;
		sql_keyrange *kr = ty_alloc0(sizeof *kr);
		kr->nfix = best_n;
		kr->lo.ncols = kr->hi.ncols = best_n;
		kr->lo.vals = kr->hi.vals = pexprs;
		kr->lo.inclusive = kr->hi.inclusive = true;
		inner->scan.nranges = 1;
		inner->scan.ranges = kr;
		inner->scan.npoint = best_n == rel->npk ? rel->npk : 0;
		per_lookup = best_n == rel->npk ? 1 : inner_rows * SEL_EQ;
	} else {
		sql_ix *x = sql_ix_compile(s, pl->ax->cat, best_ix, pl->ax->ps);
		inner = sql_plan_new(SQL_P_INDEXSCAN, rp->ncols);
		*inner = *rp;
		inner->kind = SQL_P_INDEXSCAN;
		inner->id = pl->top->nnodes++;
		inner->scan.index_oid = best_ix->oid;
		inner->scan.index_only = false;
		sql_ixscan *xs = ty_alloc0(sizeof *xs);
		xs->ix = x;
		snprintf(xs->index_storage, sizeof xs->index_storage, "%s", best_ix->rel.storage);
		snprintf(xs->index_name, sizeof xs->index_name, "%s", best_ix->rel.name);
		xs->valid_from = x->info->valid_from;
		sql_ixrange *ir = ty_alloc0(sizeof *ir);
		ir->nfix = best_n;
		ir->eq = pexprs;
		xs->nranges = 1;
		xs->ranges = ir;
		inner->scan.ixscan = xs;
		per_lookup = best_n == x->nkeys && x->def.unique ? 1 : inner_rows * SEL_EQ;
	}
	inner->rows = per_lookup < 1 ? 1 : per_lookup;
	sql_tlist *tl = sql_tl_concat(ltl, rtl);
	sql_plan *j = sql_new_node(pl, SQL_P_NESTLOOP, tl);
	j->join.type = type;
	j->left = lp;
	j->right = inner;
	j->join.nparams = best_n;
	j->join.params = params;
	j->join.param_vals = pvals;
	sql_expr **rest = ty_alloc(sizeof(sql_expr *) * (size_t)(njq + 1));
	int nrest = 0;
	for (int i = 0; i < njq; i++)
		if (!consumed[i])
			rest[nrest++] = sql_set_refs(pl, sql_plan_prep(pl, jq[i]), tl);
	j->join.joinqual = sql_make_and(rest, nrest);
	j->rows = lp->rows * inner->rows;
	*tl_out = tl;
	return j;
}

sql_expr *sql_ix_key_expr(const sql_ix *x, int i, int rte) { return key_expr(x, i, rte); }

bool sql_ix_predicate_implied(const sql_ix *x, int rte, sql_expr **quals, int nquals)
{
	return predicate_implied(x, rte, quals, nquals);
}
