/*
 * plan.c — analyzed queries to physical plans: the join tree (WHERE
 * conjuncts pushed down, equi-joins as hash joins), aggregation with
 * grouping sets, windows, HAVING, projection with set-returning functions,
 * DISTINCT [ON], ORDER BY (top-N with LIMIT), LIMIT/OFFSET, set operations,
 * CTEs, sublinks (cached when uncorrelated, parameterised when correlated)
 * and the INSERT/UPDATE/DELETE node. Vars become input slots here.
 */
#include <stdio.h>
#include <string.h>

#include "plan_int.h"

/* ---------------------------------------------------------------- target lists */

sql_tlist *sql_tl_new(void) { return ty_alloc0(sizeof(sql_tlist)); }

void sql_tl_add(sql_tlist *tl, sql_expr *e)
{
	sql_expr **n = ty_alloc(sizeof(sql_expr *) * (size_t)(tl->n + 1));
	if (tl->n)
		memcpy(n, tl->items, sizeof(sql_expr *) * (size_t)tl->n);
	n[tl->n] = e;
	tl->items = n;
	tl->n++;
}

sql_tlist *sql_tl_concat(const sql_tlist *a, const sql_tlist *b)
{
	sql_tlist *t = sql_tl_new();
	for (int i = 0; i < a->n; i++)
		sql_tl_add(t, a->items[i]);
	for (int i = 0; i < b->n; i++)
		sql_tl_add(t, b->items[i]);
	return t;
}

static sql_expr *slot(int i, const sql_expr *like)
{
	sql_expr *s = sql_expr_new(SQL_E_SLOT, like->type, like->location);
	s->typmod = like->typmod;
	s->slot = i;
	return s;
}

static int tl_find(const sql_tlist *tl, const sql_expr *e)
{
	if (e->kind == SQL_E_VAR) {
		if (e->var.levelsup)
			return -1;
		for (int i = 0; i < tl->n; i++) {
			const sql_expr *t = tl->items[i];
			if (t && t->kind == SQL_E_VAR && t->var.levelsup == 0 && t->var.rte == e->var.rte && t->var.col == e->var.col)
				return i;
		}
		return -1;
	}
	if (e->kind == SQL_E_CONST || e->kind == SQL_E_PARAM || e->kind == SQL_E_EXECPARAM)
		return -1;
	for (int i = 0; i < tl->n; i++)
		if (tl->items[i] && tl->items[i]->kind != SQL_E_VAR && sql_expr_equal(tl->items[i], e))
			return i;
	return -1;
}

static sql_expr *refs(sql_planner *pl, sql_expr *e, const sql_tlist *tl)
{
	if (!e)
		return NULL;
	int i = tl_find(tl, e);
	if (i >= 0)
		return slot(i, e);
	switch (e->kind) {
	case SQL_E_VAR:
		if (e->var.levelsup == 0) {
			sql_rte *r = pl->q->rtes[e->var.rte - 1];
			ty_error(UTIL_E_INTERNAL_ERROR, "variable %s.%s not found in plan input", r->alias,
				 e->var.col < r->ncols && r->colnames[e->var.col] ? r->colnames[e->var.col] : "?");
		}
		ty_error(UTIL_E_INTERNAL_ERROR, "unresolved outer reference");
	case SQL_E_AGG:
		ty_error(UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed here");
	case SQL_E_WINDOW:
		ty_error(UTIL_E_WINDOWING_ERROR, "window functions are not allowed here");
	case SQL_E_CONST:
	case SQL_E_PARAM:
	case SQL_E_EXECPARAM:
	case SQL_E_SLOT:
	case SQL_E_SESSION:
	case SQL_E_CASETEST:
	case SQL_E_DEFAULT:
		return e;
	case SQL_E_GROUPING:
		ty_error(UTIL_E_GROUPING_ERROR, "GROUPING must be used with GROUP BY");
	default:
		break;
	}
	sql_expr *c = ty_alloc(sizeof *c);
	*c = *e;
	switch (e->kind) {
	case SQL_E_CAST:
		c->cast.arg = refs(pl, e->cast.arg, tl);
		break;
	case SQL_E_SUBLINK:
		c->sub.testexpr = refs(pl, e->sub.testexpr, tl);
		if (e->sub.nparams) {
			c->sub.param_vals = ty_alloc(sizeof(sql_expr *) * (size_t)e->sub.nparams);
			for (int k = 0; k < e->sub.nparams; k++)
				c->sub.param_vals[k] = refs(pl, e->sub.param_vals[k], tl);
		}
		break;
	case SQL_E_FIELD:
		c->field.arg = refs(pl, e->field.arg, tl);
		break;
	default:
		if (e->f.nargs) {
			c->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)e->f.nargs);
			for (int k = 0; k < e->f.nargs; k++)
				c->f.args[k] = refs(pl, e->f.args[k], tl);
		}
		break;
	}
	return c;
}

sql_expr *sql_set_refs(sql_planner *pl, sql_expr *e, const sql_tlist *tl) { return refs(pl, e, tl); }

/* ---------------------------------------------------------------- helpers */

sql_plan *sql_plan_new(sql_plan_kind kind, int ncols)
{
	sql_plan *p = ty_alloc0(sizeof *p);
	p->kind = kind;
	p->ncols = ncols;
	p->types = ty_alloc0(sizeof(ty_oid) * (size_t)(ncols ? ncols : 1));
	p->typmods = ty_alloc0(sizeof(int32_t) * (size_t)(ncols ? ncols : 1));
	p->rows = 1000;
	return p;
}

sql_plan *sql_new_node(sql_planner *pl, sql_plan_kind kind, const sql_tlist *tl)
{
	sql_plan *p = sql_plan_new(kind, tl ? tl->n : 0);
	p->id = pl->top->nnodes++;
	for (int i = 0; tl && i < tl->n; i++) {
		p->types[i] = tl->items[i] ? tl->items[i]->type : TY_INT8;
		p->typmods[i] = tl->items[i] ? tl->items[i]->typmod : -1;
	}
	return p;
}

int sql_conjuncts(sql_expr *e, sql_expr ***out)
{
	if (!e) {
		*out = NULL;
		return 0;
	}
	if (e->kind != SQL_E_AND) {
		*out = ty_alloc(sizeof(sql_expr *));
		(*out)[0] = e;
		return 1;
	}
	sql_expr **acc = NULL;
	int n = 0;
	for (int i = 0; i < e->f.nargs; i++) {
		sql_expr **sub;
		int k = sql_conjuncts(e->f.args[i], &sub);
		sql_expr **na = ty_alloc(sizeof(sql_expr *) * (size_t)(n + k + 1));
		if (n)
			memcpy(na, acc, sizeof(sql_expr *) * (size_t)n);
		memcpy(na + n, sub, sizeof(sql_expr *) * (size_t)k);
		acc = na;
		n += k;
	}
	*out = acc;
	return n;
}

sql_expr *sql_make_and(sql_expr **list, int n)
{
	if (n == 0)
		return NULL;
	if (n == 1)
		return list[0];
	sql_expr *e = sql_expr_new(SQL_E_AND, TY_BOOL, -1);
	e->f.nargs = n;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)n);
	memcpy(e->f.args, list, sizeof(sql_expr *) * (size_t)n);
	return e;
}

typedef struct rte_walk {
	bool *rtes;
	int n;
	bool other; /* references sublinks/volatile (cannot move freely) */
} rte_walk;

static bool rte_walker(sql_expr *e, void *arg)
{
	rte_walk *w = arg;
	if (e->kind == SQL_E_VAR && e->var.levelsup == 0 && e->var.rte >= 1 && e->var.rte <= w->n)
		w->rtes[e->var.rte - 1] = true;
	if (e->kind == SQL_E_SUBLINK) {
		/* Params of a correlated sublink are Vars of this level. */
		for (int i = 0; i < e->sub.nparams; i++)
			sql_expr_walk(e->sub.param_vals[i], rte_walker, arg);
	}
	return false;
}

void sql_expr_rtes(sql_expr *e, bool *rtes, int nrtes)
{
	rte_walk w = {rtes, nrtes, false};
	sql_expr_walk(e, rte_walker, &w);
}

/* ---------------------------------------------------------------- sublinks */

typedef struct outer_ctx {
	sql_planner *pl;
	int depth;     /* nesting depth inside the subquery being prepared */
	int *params;
	sql_expr **vals;
	int n, cap;
} outer_ctx;

static void replace_outer_in_query(outer_ctx *oc, sql_query *q);

static int outer_param(outer_ctx *oc, sql_expr *v)
{
	/* v references the planner's query (levelsup == depth + 1): a Var, or
	 * an aggregate of that query. */
	sql_expr *local = sql_expr_copy(v);
	if (local->kind == SQL_E_VAR)
		local->var.levelsup = 0;
	else
		local->agglevelsup = 0;
	for (int i = 0; i < oc->n; i++)
		if (sql_expr_equal(oc->vals[i], local))
			return oc->params[i];
	if (oc->n == oc->cap) {
		oc->cap = oc->cap ? oc->cap * 2 : 8;
		int *np = ty_alloc(sizeof(int) * (size_t)oc->cap);
		sql_expr **nv = ty_alloc(sizeof(sql_expr *) * (size_t)oc->cap);
		if (oc->n) {
			memcpy(np, oc->params, sizeof(int) * (size_t)oc->n);
			memcpy(nv, oc->vals, sizeof(sql_expr *) * (size_t)oc->n);
		}
		oc->params = np;
		oc->vals = nv;
	}
	oc->params[oc->n] = oc->pl->ax->ps->nexec_params++;
	oc->vals[oc->n] = local;
	return oc->params[oc->n++];
}

static sql_expr *outer_mutator(sql_expr *e, void *arg)
{
	outer_ctx *oc = arg;
	if ((e->kind == SQL_E_VAR && e->var.levelsup == oc->depth + 1) ||
	    (e->kind == SQL_E_AGG && e->agglevelsup == oc->depth + 1)) {
		sql_expr *p = sql_expr_new(SQL_E_EXECPARAM, e->type, e->location);
		p->typmod = e->typmod;
		p->param = outer_param(oc, e);
		return p;
	}
	if (e->kind == SQL_E_SUBLINK && e->sub.query) {
		oc->depth++;
		replace_outer_in_query(oc, e->sub.query);
		oc->depth--;
	}
	return e;
}

static sql_expr *rewrite(outer_ctx *oc, sql_expr *e) { return e ? sql_expr_mutate(e, outer_mutator, oc) : NULL; }

static void rewrite_list(outer_ctx *oc, sql_expr **l, int n)
{
	for (int i = 0; i < n; i++)
		l[i] = rewrite(oc, l[i]);
}

static void replace_outer_in_jnode(outer_ctx *oc, sql_jnode *j)
{
	if (!j)
		return;
	j->quals = rewrite(oc, j->quals);
	if (j->is_join) {
		replace_outer_in_jnode(oc, j->left);
		replace_outer_in_jnode(oc, j->right);
	}
}

static void replace_outer_in_setop(outer_ctx *oc, sql_setop *s)
{
	if (s->is_leaf)
		replace_outer_in_query(oc, s->leaf);
	else {
		replace_outer_in_setop(oc, s->left);
		replace_outer_in_setop(oc, s->right);
	}
}

/* Replaces, in q and everything nested, Vars that reference the planner's
 * query by EXECPARAMs (PostgreSQL's PARAM_EXEC for correlated subplans). */
static void replace_outer_in_query(outer_ctx *oc, sql_query *q)
{
	for (int i = 0; i < q->ntargets; i++)
		q->targets[i].expr = rewrite(oc, q->targets[i].expr);
	q->where = rewrite(oc, q->where);
	q->having = rewrite(oc, q->having);
	rewrite_list(oc, q->group, q->ngroup);
	for (int i = 0; i < q->nsort; i++)
		q->sort[i].expr = rewrite(oc, q->sort[i].expr);
	rewrite_list(oc, q->distinct_on, q->ndistinct_on);
	q->limit = rewrite(oc, q->limit);
	q->offset = rewrite(oc, q->offset);
	for (int i = 0; i < q->naggs; i++) {
		rewrite_list(oc, q->aggs[i].args, q->aggs[i].nargs);
		q->aggs[i].filter = rewrite(oc, q->aggs[i].filter);
		rewrite_list(oc, q->aggs[i].direct, q->aggs[i].ndirect);
		for (int k = 0; k < q->aggs[i].norder; k++)
			q->aggs[i].order[k].expr = rewrite(oc, q->aggs[i].order[k].expr);
	}
	for (int i = 0; i < q->nwins; i++)
		rewrite_list(oc, q->wins[i].args, q->wins[i].nargs);
	for (int i = 0; i < q->nwinclauses; i++) {
		rewrite_list(oc, q->winclauses[i].part, q->winclauses[i].npart);
		for (int k = 0; k < q->winclauses[i].norder; k++)
			q->winclauses[i].order[k].expr = rewrite(oc, q->winclauses[i].order[k].expr);
	}
	for (int i = 0; i < q->nfrom; i++)
		replace_outer_in_jnode(oc, q->from[i]);
	for (int i = 0; i < q->nrtes; i++) {
		sql_rte *r = q->rtes[i];
		if (r->kind == SQL_RTE_SUBQUERY && r->subquery) {
			oc->depth++;
			replace_outer_in_query(oc, r->subquery);
			oc->depth--;
		} else if (r->kind == SQL_RTE_FUNCTION) {
			rewrite_list(oc, r->funcs, r->nfuncs);
		} else if (r->kind == SQL_RTE_VALUES) {
			for (int k = 0; k < r->nrows; k++)
				rewrite_list(oc, r->rows[k], r->ncols);
		} else if (r->kind == SQL_RTE_JOIN) {
			rewrite_list(oc, r->joinvars, r->ncols);
		}
	}
	if (q->setop)
		replace_outer_in_setop(oc, q->setop);
}

static sql_plan *plan_query(sql_planner *pl, sql_query *q, sql_tlist **tl_out);

/* Does a query (or anything nested in it) read executor parameters set
 * outside it? Checked before it is planned, when the only parameters in
 * it are outer references. */
typedef struct execparam_ctx {
	sql_cte **seen; /* CTEs walked already: queries share their WITH lists, and a
			 * recursive CTE's term names the CTE itself */
	int nseen;
} execparam_ctx;

static bool query_has_execparam_in(execparam_ctx *ec, sql_query *q);

static bool execparam_walker(sql_expr *e, void *arg)
{
	if (e->kind == SQL_E_EXECPARAM)
		return true;
	return e->kind == SQL_E_SUBLINK && e->sub.query && query_has_execparam_in(arg, e->sub.query);
}

typedef struct execparam_root_arg {
	execparam_ctx *ec;
	bool found;
} execparam_root_arg;

static void execparam_root(sql_expr **e, void *arg)
{
	execparam_root_arg *ra = arg;
	if (!ra->found)
		ra->found = sql_expr_walk(*e, execparam_walker, ra->ec);
}

static bool setop_has_execparam(execparam_ctx *ec, sql_setop *s)
{
	if (s->is_leaf)
		return query_has_execparam_in(ec, s->leaf);
	return setop_has_execparam(ec, s->left) || setop_has_execparam(ec, s->right);
}

static bool query_has_execparam_in(execparam_ctx *ec, sql_query *q)
{
	execparam_root_arg ra = {ec, false};
	sql_query_exprs(q, execparam_root, &ra);
	bool found = ra.found;
	for (int i = 0; i < q->nrtes && !found; i++)
		if (q->rtes[i]->kind == SQL_RTE_SUBQUERY && q->rtes[i]->subquery)
			found = query_has_execparam_in(ec, q->rtes[i]->subquery);
	for (int i = 0; i < q->nctes && !found; i++) {
		sql_cte *c = q->ctes[i];
		bool seen = false;
		for (int k = 0; k < ec->nseen && !seen; k++)
			seen = ec->seen[k] == c;
		if (seen)
			continue;
		sql_cte **ns = ty_alloc(sizeof(sql_cte *) * (size_t)(ec->nseen + 1));
		if (ec->nseen)
			memcpy(ns, ec->seen, sizeof(sql_cte *) * (size_t)ec->nseen);
		ns[ec->nseen++] = c;
		ec->seen = ns;
		found = (c->query && query_has_execparam_in(ec, c->query)) ||
			(c->nonrec && query_has_execparam_in(ec, c->nonrec)) ||
			(c->rec && query_has_execparam_in(ec, c->rec));
	}
	if (!found && q->setop)
		found = setop_has_execparam(ec, q->setop);
	return found;
}

static bool query_has_execparam(sql_query *q)
{
	execparam_ctx ec = {NULL, 0};
	return query_has_execparam_in(&ec, q);
}

/* The type whose hash and comparison serve l = r, or NULL: the operand
 * types themselves, or for the integer types (int2/int4/int8 all compare and
 * hash their values as int64, like PostgreSQL's integer_ops family) int8. */
static const ty_type *hash_key_type(ty_oid l, ty_oid r)
{
	if (l != r) {
		bool li = l == TY_INT2 || l == TY_INT4 || l == TY_INT8, ri = r == TY_INT2 || r == TY_INT4 || r == TY_INT8;
		if (!li || !ri)
			return NULL;
		l = TY_INT8;
	}
	const ty_type *t = ty_type_get(l);
	return t && t->hash && t->cmp ? t : NULL;
}

static sql_expr *sublink_mutator(sql_expr *e, void *arg)
{
	sql_planner *pl = arg;
	if (e->kind != SQL_E_SUBLINK || e->sub.plan)
		return e;
	outer_ctx oc = {pl, 0, NULL, NULL, 0, 0};
	replace_outer_in_query(&oc, e->sub.query);
	/* Parameters of enclosing queries (references two or more levels up,
	 * LATERAL parameters) also make the result vary: not cacheable. */
	bool external = oc.n > 0 || query_has_execparam(e->sub.query);
	sql_planner sub = {pl->ax, pl->top, pl, e->sub.query, 0};
	sql_tlist *tl;
	e->sub.plan = plan_query(&sub, e->sub.query, &tl);
	e->sub.params = oc.params;
	e->sub.param_vals = oc.vals;
	e->sub.nparams = oc.n;
	e->sub.correlated = external;
	/* x = ANY (uncorrelated subquery) of one hashable column: a hash set
	 * built once (PostgreSQL's hashed SubPlan), instead of a scan per row. */
	if (!external && e->sub.kind == SQL_SUB_ANY && e->sub.ncmp == 1 && e->sub.testexpr &&
	    e->sub.testexpr->f.nargs == 1) {
		ty_oid t = e->sub.testexpr->f.args[0]->type, st = e->sub.plan->types[0];
		if (hash_key_type(t, st) && e->sub.cmp[0] == sql_find_cmp_op("=", t, st))
			e->sub.hashed = true;
	}
	e->sub.cache = pl->ax->ps->ncache++;
	return e;
}

sql_expr *sql_plan_sublinks(sql_planner *pl, sql_expr *e)
{
	if (!e)
		return NULL;
	/* Function call sites get executor cache slots too. */
	return sql_expr_mutate(e, sublink_mutator, pl);
}

/* Gives every function call a cache slot (regex, parsed formats ...). */
static sql_expr *cache_mutator(sql_expr *e, void *arg)
{
	sql_planner *pl = arg;
	if (e->kind == SQL_E_FUNC || e->kind == SQL_E_SRF || e->kind == SQL_E_ANYARRAY)
		e->f.cache = pl->ax->ps->ncache++;
	return e;
}

static sql_expr *prep(sql_planner *pl, sql_expr *e)
{
	if (!e)
		return NULL;
	e = sql_fold_expr(pl, e);
	e = sql_plan_sublinks(pl, e);
	return sql_expr_mutate(e, cache_mutator, pl);
}

/* ---------------------------------------------------------------- FROM items */

/* LATERAL references of a FROM subtree that its own joins cannot supply:
 * executor parameters and their values (Vars of other RTEs at level 0),
 * set by a parameterised nested loop whose left side has those RTEs. */
typedef struct lateral_refs {
	int n;
	int *params;
	sql_expr **vals;
} lateral_refs;

static void lat_add(lateral_refs *lr, int param, sql_expr *val)
{
	int *np = ty_alloc(sizeof(int) * (size_t)(lr->n + 1));
	sql_expr **nv = ty_alloc(sizeof(sql_expr *) * (size_t)(lr->n + 1));
	if (lr->n) {
		memcpy(np, lr->params, sizeof(int) * (size_t)lr->n);
		memcpy(nv, lr->vals, sizeof(sql_expr *) * (size_t)lr->n);
	}
	np[lr->n] = param;
	nv[lr->n] = val;
	lr->params = np;
	lr->vals = nv;
	lr->n++;
}

static sql_plan *plan_jnode(sql_planner *pl, sql_jnode *j, sql_expr ***quals, int *nquals, sql_tlist **tl_out,
			    lateral_refs *lr);
static sql_plan *plan_side(sql_planner *pl, sql_jnode *j, bool where_ok, sql_expr ***quals, int *nquals, sql_expr **on,
			   int non, sql_tlist **tl_out, lateral_refs *lr, sql_expr ***jq, int *njq);
static sql_plan *plan_units(sql_planner *pl, sql_jnode **items, int nitems, bool reorder, sql_expr ***qualsp,
			    int *nqualsp, sql_tlist **tl_out, lateral_refs *lrp);

/* Which RTE indexes a join tree node covers. */
static void jnode_rtes(sql_query *q, sql_jnode *j, bool *set)
{
	if (!j->is_join) {
		set[j->rte - 1] = true;
		return;
	}
	jnode_rtes(q, j->left, set);
	jnode_rtes(q, j->right, set);
	set[j->rte - 1] = true;
}

static bool covered(const bool *need, const bool *have, int n)
{
	for (int i = 0; i < n; i++)
		if (need[i] && !have[i])
			return false;
	return true;
}

static bool any(const bool *s, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i])
			return true;
	return false;
}

/* Takes the quals evaluable with the RTEs in `have` out of the list. */
static int take_quals(sql_planner *pl, sql_expr ***quals, int *nquals, const bool *have, sql_expr ***out)
{
	int n = pl->q->nrtes;
	sql_expr **taken = ty_alloc(sizeof(sql_expr *) * (size_t)(*nquals ? *nquals : 1));
	int k = 0, rest = 0;
	for (int i = 0; i < *nquals; i++) {
		bool *need = ty_alloc0(sizeof(bool) * (size_t)(n ? n : 1));
		sql_expr_rtes((*quals)[i], need, n);
		if (covered(need, have, n))
			taken[k++] = (*quals)[i];
		else
			(*quals)[rest++] = (*quals)[i];
	}
	*nquals = rest;
	*out = taken;
	return k;
}

static sql_plan *plan_values(sql_planner *pl, int rte, sql_tlist **tl_out)
{
	sql_rte *r = pl->q->rtes[rte - 1];
	sql_tlist *tl = sql_tl_new();
	for (int c = 0; c < r->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, r->coltypes[c], -1);
		v->typmod = r->coltypmods[c];
		v->var.rte = rte;
		v->var.col = c;
		sql_tl_add(tl, v);
	}
	sql_plan *p = sql_new_node(pl, SQL_P_VALUES, tl);
	p->values.nrows = r->nrows;
	p->values.rows = ty_alloc(sizeof(sql_expr **) * (size_t)(r->nrows ? r->nrows : 1));
	sql_tlist *empty = sql_tl_new();
	for (int i = 0; i < r->nrows; i++) {
		p->values.rows[i] = ty_alloc(sizeof(sql_expr *) * (size_t)(r->ncols ? r->ncols : 1));
		for (int c = 0; c < r->ncols; c++)
			p->values.rows[i][c] = sql_set_refs(pl, prep(pl, r->rows[i][c]), empty);
	}
	p->rows = r->nrows;
	*tl_out = tl;
	return p;
}

static sql_tlist *rte_tlist(sql_planner *pl, int rte)
{
	sql_rte *r = pl->q->rtes[rte - 1];
	sql_tlist *tl = sql_tl_new();
	for (int c = 0; c < r->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, r->coltypes[c], -1);
		v->typmod = r->coltypmods[c];
		v->var.rte = rte;
		v->var.col = c;
		sql_tl_add(tl, v);
	}
	return tl;
}

static sql_plan *plan_cte_scan(sql_planner *pl, int rte, sql_tlist **tl_out);

/* Function RTEs: arguments referencing other FROM items (functions are
 * implicitly LATERAL) become executor parameters. */
typedef struct func_lateral {
	sql_planner *pl;
	int self;
	lateral_refs *lr;
} func_lateral;

static sql_expr *func_lateral_mutator(sql_expr *e, void *arg)
{
	func_lateral *fl = arg;
	if (e->kind != SQL_E_VAR || e->var.levelsup != 0 || e->var.rte == fl->self)
		return e;
	for (int i = 0; i < fl->lr->n; i++)
		if (sql_expr_equal(fl->lr->vals[i], e)) {
			sql_expr *p = sql_expr_new(SQL_E_EXECPARAM, e->type, e->location);
			p->typmod = e->typmod;
			p->param = fl->lr->params[i];
			return p;
		}
	int id = fl->pl->ax->ps->nexec_params++;
	lat_add(fl->lr, id, sql_expr_copy(e));
	sql_expr *p = sql_expr_new(SQL_E_EXECPARAM, e->type, e->location);
	p->typmod = e->typmod;
	p->param = id;
	return p;
}

static sql_plan *plan_leaf(sql_planner *pl, int rte, sql_expr ***quals, int *nquals, sql_tlist **tl_out,
			   lateral_refs *lr)
{
	sql_query *q = pl->q;
	sql_rte *r = q->rtes[rte - 1];
	if (r->kind == SQL_RTE_SUBQUERY && r->lateral) {
		/* References to the query's other FROM items (one level up from
		 * inside the subquery) become parameters of this RTE. */
		outer_ctx oc = {pl, 0, NULL, NULL, 0, 0};
		replace_outer_in_query(&oc, r->subquery);
		for (int i = 0; i < oc.n; i++)
			lat_add(lr, oc.params[i], oc.vals[i]);
	} else if (r->kind == SQL_RTE_FUNCTION) {
		func_lateral fl = {pl, rte, lr};
		for (int i = 0; i < r->nfuncs; i++)
			r->funcs[i] = sql_expr_mutate(r->funcs[i], func_lateral_mutator, &fl);
	}
	bool *have = ty_alloc0(sizeof(bool) * (size_t)q->nrtes);
	have[rte - 1] = true;
	sql_expr **mine;
	int nmine = take_quals(pl, quals, nquals, have, &mine);
	sql_order_quals(mine, nmine, true);
	sql_plan *p;
	sql_tlist *tl;
	switch (r->kind) {
	case SQL_RTE_TABLE: {
		sql_plan *sp = sql_plan_table_scan(pl, rte, mine, nmine, tl_out);
		if (sp->kind == SQL_P_SCAN || sp->kind == SQL_P_INDEXSCAN)
			sp->scan.alias = r->alias;
		return sp;
	}
	case SQL_RTE_VALUES:
		p = plan_values(pl, rte, &tl);
		break;
	case SQL_RTE_SUBQUERY: {
		sql_planner sub = {pl->ax, pl->top, pl, r->subquery, 0};
		sql_tlist *stl;
		p = plan_query(&sub, r->subquery, &stl);
		/* The subquery's output slots are this RTE's columns. */
		tl = rte_tlist(pl, rte);
		break;
	}
	case SQL_RTE_FUNCTION: {
		tl = rte_tlist(pl, rte);
		p = sql_new_node(pl, SQL_P_FUNCSCAN, tl);
		p->func.nfuncs = r->nfuncs;
		p->func.funcs = ty_alloc(sizeof(sql_expr *) * (size_t)r->nfuncs);
		sql_tlist *empty = sql_tl_new();
		for (int i = 0; i < r->nfuncs; i++)
			p->func.funcs[i] = sql_set_refs(pl, prep(pl, r->funcs[i]), empty);
		p->func.ordinality = r->ordinality;
		p->func.alias = r->alias;
		p->func.colnames = r->colnames;
		break;
	}
	case SQL_RTE_CTE:
		p = plan_cte_scan(pl, rte, &tl);
		break;
	case SQL_RTE_SYSTEM:
		tl = rte_tlist(pl, rte);
		p = sql_new_node(pl, SQL_P_SYSSCAN, tl);
		p->scan.sysview = r->sysview;
		p->scan.rel = r->rel;
		break;
	default:
		ty_error(UTIL_E_INTERNAL_ERROR, "unexpected range table entry kind %d", r->kind);
	}
	if (nmine) {
		for (int i = 0; i < nmine; i++)
			mine[i] = sql_set_refs(pl, prep(pl, mine[i]), tl);
		sql_plan *f = sql_new_node(pl, SQL_P_FILTER, tl);
		f->left = p;
		f->qual = sql_make_and(mine, nmine);
		f->rows = p->rows / 3 + 1;
		p = f;
	}
	*tl_out = tl;
	return p;
}

/* Splits join quals into hash keys (l = r, one side each) and the rest. */
static void hash_keys(sql_planner *pl, sql_expr **quals, int n, const bool *lset, const bool *rset, sql_plan *j,
		      const sql_tlist *ltl, const sql_tlist *rtl, sql_expr ***rest, int *nrest)
{
	int nr = pl->q->nrtes;
	j->join.lkeys = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
	j->join.rkeys = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
	j->join.keytypes = ty_alloc(sizeof(ty_type *) * (size_t)(n ? n : 1));
	*rest = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
	*nrest = 0;
	for (int i = 0; i < n; i++) {
		sql_expr *e = quals[i];
		bool ok = e->kind == SQL_E_FUNC && e->f.nargs == 2 && e->f.opname && !strcmp(e->f.opname, "=") &&
			  !sql_expr_volatile(e);
		const ty_type *t = ok ? hash_key_type(e->f.argtypes[0], e->f.argtypes[1]) : NULL;
		ok = ok && t;
		if (ok) {
			bool *a = ty_alloc0(sizeof(bool) * (size_t)nr), *b = ty_alloc0(sizeof(bool) * (size_t)nr);
			sql_expr_rtes(e->f.args[0], a, nr);
			sql_expr_rtes(e->f.args[1], b, nr);
			sql_expr *l = NULL, *r = NULL;
			if (any(a, nr) && any(b, nr) && covered(a, lset, nr) && covered(b, rset, nr)) {
				l = e->f.args[0];
				r = e->f.args[1];
			} else if (any(a, nr) && any(b, nr) && covered(a, rset, nr) && covered(b, lset, nr)) {
				l = e->f.args[1];
				r = e->f.args[0];
			}
			if (l) {
				int k = j->join.nkeys++;
				j->join.lkeys[k] = sql_set_refs(pl, prep(pl, l), ltl);
				j->join.rkeys[k] = sql_set_refs(pl, prep(pl, r), rtl);
				j->join.keytypes[k] = t;
				continue;
			}
		}
		(*rest)[(*nrest)++] = e;
	}
}

static sql_plan *make_join(sql_planner *pl, sql_jointype type, sql_plan *lp, sql_tlist *ltl, const bool *lset,
			   sql_plan *rp, sql_tlist *rtl, const bool *rset, sql_expr **jq, int njq, sql_tlist **tl_out,
			   lateral_refs *llr, lateral_refs *rlr, lateral_refs *out)
{
	/* Index lookup join (plan_index.c); its right side is a base table,
	 * with no LATERAL references of its own. */
	*out = *llr;
	sql_plan *lj = sql_plan_lookup_join(pl, type, lp, ltl, lset, rp, rtl, rset, jq, njq, tl_out);
	if (lj)
		return lj;
	sql_tlist *tl = sql_tl_concat(ltl, rtl);
	sql_plan *j = sql_new_node(pl, SQL_P_HASHJOIN, tl);
	j->join.type = type;
	j->left = lp;
	j->right = rp;
	/* LATERAL: the right side's parameters that the left side supplies
	 * make this a parameterised nested loop (right side rescanned per left
	 * row); the others wait for a join further up. */
	lateral_refs mine = {0};
	*out = *llr;
	int nr = pl->q->nrtes;
	for (int i = 0; i < rlr->n; i++) {
		bool *need = ty_alloc0(sizeof(bool) * (size_t)(nr ? nr : 1));
		sql_expr_rtes(rlr->vals[i], need, nr);
		if (covered(need, lset, nr))
			lat_add(&mine, rlr->params[i], rlr->vals[i]);
		else
			lat_add(out, rlr->params[i], rlr->vals[i]);
	}
	sql_expr **rest;
	int nrest;
	if (mine.n) {
		if (type == SQL_JOIN_RIGHT || type == SQL_JOIN_FULL)
			ty_error(UTIL_E_INVALID_COLUMN_REFERENCE,
				 "invalid reference to FROM-clause entry for table in a RIGHT or FULL JOIN with LATERAL");
		j->kind = SQL_P_NESTLOOP;
		j->join.nparams = mine.n;
		j->join.params = mine.params;
		j->join.param_vals = ty_alloc(sizeof(sql_expr *) * (size_t)mine.n);
		for (int i = 0; i < mine.n; i++)
			j->join.param_vals[i] = sql_set_refs(pl, mine.vals[i], ltl);
		rest = jq;
		nrest = njq;
	} else {
		hash_keys(pl, jq, njq, lset, rset, j, ltl, rtl, &rest, &nrest);
		if (j->join.nkeys == 0)
			j->kind = SQL_P_NESTLOOP;
	}
	sql_order_quals(rest, nrest, false);
	for (int i = 0; i < nrest; i++)
		rest[i] = sql_set_refs(pl, prep(pl, rest[i]), tl);
	j->join.joinqual = sql_make_and(rest, nrest);
	double lr = lp->rows, rr = rp->rows;
	j->rows = j->join.nkeys ? (lr > rr ? lr : rr) : lr * rr / (nrest ? 3 : 1);
	*tl_out = tl;
	return j;
}

static sql_plan *plan_jnode(sql_planner *pl, sql_jnode *j, sql_expr ***quals, int *nquals, sql_tlist **tl_out,
			    lateral_refs *lr)
{
	sql_query *q = pl->q;
	int n = q->nrtes;
	if (!j->is_join)
		return plan_leaf(pl, j->rte, quals, nquals, tl_out, lr);
	if (j->jointype == SQL_JOIN_INNER) {
		/* Inner joins (below an outer join) in the order of least cost. */
		sql_jnode **units;
		int nunits = sql_join_units(pl, q, &j, 1, quals, nquals, &units);
		if (nunits)
			return plan_units(pl, units, nunits, true, quals, nquals, tl_out, lr);
	}
	bool *lset = ty_alloc0(sizeof(bool) * (size_t)n), *rset = ty_alloc0(sizeof(bool) * (size_t)n);
	jnode_rtes(q, j->left, lset);
	jnode_rtes(q, j->right, rset);
	sql_tlist *ltl, *rtl;
	sql_plan *lp, *rp;
	/* WHERE quals go below inner joins only; outer joins keep their sides'
	 * quals above (a qual on the nullable side must see the NULLs). */
	bool inner = j->jointype == SQL_JOIN_INNER;
	bool left_ok = inner || j->jointype == SQL_JOIN_LEFT;
	bool right_ok = inner || j->jointype == SQL_JOIN_RIGHT;
	/* ON conditions over one side only filter that side before the join when
	 * it is the nullable side (or the join is inner): a row they reject
	 * could not have matched anyway. */
	sql_expr **jq;
	int njq = sql_conjuncts(j->quals, &jq);
	sql_expr **on_l = ty_alloc(sizeof(sql_expr *) * (size_t)(njq + 1));
	sql_expr **on_r = ty_alloc(sizeof(sql_expr *) * (size_t)(njq + 1));
	int non_l = 0, non_r = 0, nkeep = 0;
	for (int i = 0; i < njq; i++) {
		bool *need = ty_alloc0(sizeof(bool) * (size_t)n);
		sql_expr_rtes(jq[i], need, n);
		bool vol = sql_expr_volatile(jq[i]);
		if (any(need, n) && !vol && covered(need, lset, n) && (inner || j->jointype == SQL_JOIN_RIGHT))
			on_l[non_l++] = jq[i];
		else if (any(need, n) && !vol && covered(need, rset, n) && (inner || j->jointype == SQL_JOIN_LEFT))
			on_r[non_r++] = jq[i];
		else
			jq[nkeep++] = jq[i];
	}
	njq = nkeep;
	lateral_refs llr = {0}, rlr = {0};
	lp = plan_side(pl, j->left, left_ok, quals, nquals, on_l, non_l, &ltl, &llr, &jq, &njq);
	rp = plan_side(pl, j->right, right_ok, quals, nquals, on_r, non_r, &rtl, &rlr, &jq, &njq);
	/* The join's own condition, plus (inner joins) WHERE quals over both sides. */
	if (inner) {
		bool *both = ty_alloc0(sizeof(bool) * (size_t)n);
		for (int i = 0; i < n; i++)
			both[i] = lset[i] || rset[i];
		sql_expr **more;
		int nmore = take_quals(pl, quals, nquals, both, &more);
		sql_expr **all = ty_alloc(sizeof(sql_expr *) * (size_t)(njq + nmore + 1));
		if (njq)
			memcpy(all, jq, sizeof(sql_expr *) * (size_t)njq);
		if (nmore)
			memcpy(all + njq, more, sizeof(sql_expr *) * (size_t)nmore);
		jq = all;
		njq += nmore;
	}
	sql_jointype jt = j->jointype;
	/* RIGHT JOIN runs as a LEFT JOIN with the sides swapped back in the row. */
	sql_tlist *tl;
	sql_plan *p = make_join(pl, jt, lp, ltl, lset, rp, rtl, rset, jq, njq, &tl, &llr, &rlr, lr);
	/* The join RTE's own columns are expressions over the children. */
	*tl_out = tl;
	return p;
}

/* Plans one side of a join with the WHERE quals it may take (*quals,
 * when where_ok) and the ON quals pushed to it; what it leaves of the WHERE
 * quals goes back to *quals, what it leaves of the ON quals to the join's
 * own conditions (*jq). */
static sql_plan *plan_side(sql_planner *pl, sql_jnode *j, bool where_ok, sql_expr ***quals, int *nquals, sql_expr **on,
			   int non, sql_tlist **tl_out, lateral_refs *lr, sql_expr ***jq, int *njq)
{
	int nw = where_ok ? *nquals : 0;
	int nall = nw + non;
	sql_expr **all = ty_alloc(sizeof(sql_expr *) * (size_t)(nall + 1));
	if (nw)
		memcpy(all, *quals, sizeof(sql_expr *) * (size_t)nw);
	if (non)
		memcpy(all + nw, on, sizeof(sql_expr *) * (size_t)non);
	sql_plan *p = plan_jnode(pl, j, &all, &nall, tl_out, lr);
	if (!where_ok && !non)
		return p;
	/* Split the leftovers back by origin. */
	sql_expr **wleft = ty_alloc(sizeof(sql_expr *) * (size_t)(nall + 1));
	sql_expr **nj = ty_alloc(sizeof(sql_expr *) * (size_t)(*njq + nall + 1));
	int nwl = 0, nnj = *njq;
	if (*njq)
		memcpy(nj, *jq, sizeof(sql_expr *) * (size_t)*njq);
	for (int i = 0; i < nall; i++) {
		bool from_on = false;
		for (int k = 0; k < non && !from_on; k++)
			from_on = on[k] == all[i];
		if (from_on)
			nj[nnj++] = all[i];
		else
			wleft[nwl++] = all[i];
	}
	if (where_ok) {
		*quals = wleft;
		*nquals = nwl;
	}
	*jq = nj;
	*njq = nnj;
	return p;
}

/* Joins FROM items left-deep, each planned with the quals of the pool it
 * can take, the join conditions taken as soon as both sides are there: in
 * the order written, or (reorder) in the order sql_join_order chooses. */
static sql_plan *plan_units(sql_planner *pl, sql_jnode **items, int nitems, bool reorder, sql_expr ***qualsp,
			    int *nqualsp, sql_tlist **tl_out, lateral_refs *lrp)
{
	sql_query *q = pl->q;
	int n = q->nrtes;
	sql_expr **quals = *qualsp;
	int nquals = *nqualsp;
	sql_tlist *tl;
	lateral_refs lr = {0};
	sql_plan **uplans = NULL;
	sql_tlist **utls = NULL;
	lateral_refs *ulrs = NULL;
	int *order = NULL;
	double *jrows = NULL;
	if (reorder) {
		uplans = ty_alloc(sizeof(sql_plan *) * (size_t)nitems);
		utls = ty_alloc(sizeof(sql_tlist *) * (size_t)nitems);
		ulrs = ty_alloc0(sizeof(lateral_refs) * (size_t)nitems);
		bool **usets = ty_alloc(sizeof(bool *) * (size_t)nitems);
		order = ty_alloc(sizeof(int) * (size_t)nitems);
		for (int i = 0; i < nitems; i++) {
			uplans[i] = plan_jnode(pl, items[i], &quals, &nquals, &utls[i], &ulrs[i]);
			usets[i] = ty_alloc0(sizeof(bool) * (size_t)n);
			jnode_rtes(q, items[i], usets[i]);
		}
		jrows = ty_alloc(sizeof(double) * (size_t)nitems);
		sql_join_order(pl, nitems, uplans, usets, quals, nquals, order, jrows);
	}
	int first = order ? order[0] : 0;
	sql_plan *p = uplans ? uplans[first] : plan_jnode(pl, items[0], &quals, &nquals, &tl, &lr);
	if (uplans) {
		tl = utls[first];
		lr = ulrs[first];
	}
	bool *have = ty_alloc0(sizeof(bool) * (size_t)(n ? n : 1));
	jnode_rtes(q, items[first], have);
	for (int k = 1; k < nitems; k++) {
		int i = order ? order[k] : k;
		sql_tlist *rtl;
		bool *rset = ty_alloc0(sizeof(bool) * (size_t)n);
		jnode_rtes(q, items[i], rset);
		lateral_refs rlr = {0}, out;
		sql_plan *rp;
		if (uplans) {
			rp = uplans[i];
			rtl = utls[i];
			rlr = ulrs[i];
		} else {
			rp = plan_jnode(pl, items[i], &quals, &nquals, &rtl, &rlr);
		}
		bool *both = ty_alloc0(sizeof(bool) * (size_t)n);
		for (int x = 0; x < n; x++)
			both[x] = have[x] || rset[x];
		sql_expr **jq;
		int njq = take_quals(pl, &quals, &nquals, both, &jq);
		p = make_join(pl, SQL_JOIN_INNER, p, tl, have, rp, rtl, rset, jq, njq, &tl, &lr, &rlr, &out);
		if (jrows) /* the join order's estimate (distinct counts) */
			p->rows = jrows[k];
		lr = out;
		have = both;
	}
	*qualsp = quals;
	*nqualsp = nquals;
	*tl_out = tl;
	*lrp = lr;
	return p;
}

/* Cross-joins the FROM list items, then applies the remaining quals. */
static sql_plan *plan_from(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals, sql_tlist **tl_out)
{
	if (q->nfrom == 0) {
		sql_tlist *tl = sql_tl_new();
		sql_plan *p = sql_new_node(pl, SQL_P_RESULT, tl);
		p->result.exprs = NULL;
		p->rows = 1;
		if (nquals) {
			sql_expr **qs = ty_alloc(sizeof(sql_expr *) * (size_t)nquals);
			for (int i = 0; i < nquals; i++)
				qs[i] = sql_set_refs(pl, prep(pl, quals[i]), tl);
			p->result.onetime = sql_make_and(qs, nquals);
		}
		*tl_out = tl;
		return p;
	}
	/* A qual that folded to false/NULL gates the whole FROM clause: the
	 * scans never run (PostgreSQL's one-time filter). */
	sql_expr *gate = NULL;
	for (int i = 0; i < nquals; i++)
		if (sql_const_false(quals[i])) {
			gate = quals[i];
			quals[i--] = quals[--nquals];
		}
	sql_tlist *tl;
	sql_derive_equalities(pl, q, &quals, &nquals);
	lateral_refs lr = {0};
	/* Inner joins in the order of least estimated cost (plan_join.c), else
	 * as written. */
	sql_jnode **items = q->from;
	int nunits = sql_join_units(pl, q, q->from, q->nfrom, &quals, &nquals, &items);
	sql_plan *p =
	    plan_units(pl, items, nunits ? nunits : q->nfrom, nunits > 0, &quals, &nquals, &tl, &lr);
	if (lr.n)
		ty_error(UTIL_E_INTERNAL_ERROR, "LATERAL reference that no join supplies");
	if (gate) {
		sql_plan *g = sql_new_node(pl, SQL_P_FILTER, tl);
		g->left = p;
		g->qual = gate;
		g->rows = 0;
		p = g;
	}
	if (nquals) {
		/* Quals that reference no RTE (constants) or remain. */
		sql_expr **qs = ty_alloc(sizeof(sql_expr *) * (size_t)nquals);
		for (int i = 0; i < nquals; i++)
			qs[i] = sql_set_refs(pl, prep(pl, quals[i]), tl);
		sql_plan *f = sql_new_node(pl, SQL_P_FILTER, tl);
		f->left = p;
		f->qual = sql_make_and(qs, nquals);
		f->rows = p->rows / 3 + 1;
		p = f;
	}
	*tl_out = tl;
	return p;
}

/* ---------------------------------------------------------------- CTEs */

sql_plan *sql_plan_modify(sql_planner *pl, sql_query *q, sql_tlist **tl_out);

static sql_planner *cte_owner(sql_planner *pl, sql_cte *c)
{
	for (sql_planner *p = pl; p; p = p->parent)
		for (int i = 0; i < p->q->nctes; i++)
			if (p->q->ctes[i] == c)
				return p;
	return pl;
}

static void plan_cte(sql_planner *pl, sql_cte *c)
{
	sql_planned *top = pl->top;
	if (c->id < top->nctes && top->cte_plans[c->id])
		return;
	if (c->id >= top->nctes) {
		int n = c->id + 1;
		sql_plan **np = ty_alloc0(sizeof(sql_plan *) * (size_t)n);
		sql_cte **nc = ty_alloc0(sizeof(sql_cte *) * (size_t)n);
		if (top->nctes) {
			memcpy(np, top->cte_plans, sizeof(sql_plan *) * (size_t)top->nctes);
			memcpy(nc, top->ctes, sizeof(sql_cte *) * (size_t)top->nctes);
		}
		top->cte_plans = np;
		top->ctes = nc;
		top->nctes = n;
	}
	top->ctes[c->id] = c;
	sql_planner *owner = cte_owner(pl, c);
	if (c->dml) {
		sql_planner sub = {pl->ax, top, NULL, c->query, 0};
		sql_tlist *tl;
		top->cte_plans[c->id] = sql_plan_new(SQL_P_RESULT, 0);
		top->cte_plans[c->id] = sql_plan_modify(&sub, c->query, &tl);
		top->read_only = false;
		return;
	}
	if (!c->recursive) {
		sql_planner sub = {pl->ax, top, owner, c->query, 0};
		sql_tlist *tl;
		/* Mark as in progress to stop self-reference loops. */
		top->cte_plans[c->id] = sql_plan_new(SQL_P_RESULT, 0);
		top->cte_plans[c->id] = plan_query(&sub, c->query, &tl);
		return;
	}
	sql_plan *rec = sql_plan_new(SQL_P_RECURSIVE, c->ncols);
	rec->id = top->nnodes++;
	for (int i = 0; i < c->ncols; i++) {
		rec->types[i] = c->coltypes[i];
		rec->typmods[i] = c->coltypmods[i];
	}
	rec->cte.cte = c->id;
	rec->setop.all = c->union_all;
	top->cte_plans[c->id] = rec;
	sql_planner s1 = {pl->ax, top, owner, c->nonrec, 0};
	sql_tlist *tl;
	rec->left = plan_query(&s1, c->nonrec, &tl);
	sql_planner s2 = {pl->ax, top, owner, c->rec, 0};
	rec->right = plan_query(&s2, c->rec, &tl);
}

static sql_plan *plan_cte_scan(sql_planner *pl, int rte, sql_tlist **tl_out)
{
	sql_rte *r = pl->q->rtes[rte - 1];
	sql_cte *c = r->cte;
	sql_tlist *tl = rte_tlist(pl, rte);
	bool self = c->recursive && pl->top->cte_plans && c->id < pl->top->nctes && pl->top->cte_plans[c->id] &&
		    pl->top->cte_plans[c->id]->kind == SQL_P_RECURSIVE && !pl->top->cte_plans[c->id]->right;
	if (!self)
		plan_cte(pl, c);
	sql_plan *p = sql_new_node(pl, self ? SQL_P_WORKTABLE : SQL_P_CTESCAN, tl);
	p->cte.cte = c->id;
	p->cte.alias = r->alias[0] ? r->alias : NULL;
	*tl_out = tl;
	return p;
}

/* ---------------------------------------------------------------- aggregation */

typedef struct extra_vars {
	sql_query *q;
	sql_expr **vars;
	int n;
	int depth; /* sublink nesting while collecting outer references */
} extra_vars;

static sql_visit collect_ungrouped(sql_expr *e, void *arg);

static void collect_root(sql_expr **e, void *arg) { sql_expr_visit(*e, collect_ungrouped, arg); }

static void collect_subquery(extra_vars *ev, sql_query *sq)
{
	ev->depth++;
	sql_query_exprs(sq, collect_root, ev);
	for (int i = 0; i < sq->nrtes; i++)
		if (sq->rtes[i]->kind == SQL_RTE_SUBQUERY && sq->rtes[i]->subquery)
			collect_subquery(ev, sq->rtes[i]->subquery);
	ev->depth--;
}

/* Vars the aggregate node must pass through although not grouped (columns
 * functionally dependent on a grouped primary key), also when a subquery
 * references them. */
static sql_visit collect_ungrouped(sql_expr *e, void *arg)
{
	extra_vars *ev = arg;
	sql_query *q = ev->q;
	if (ev->depth == 0) {
		for (int i = 0; i < q->ngroup; i++)
			if (sql_expr_equal(q->group[i], e))
				return SQL_VISIT_SKIP;
		if (e->kind == SQL_E_AGG || e->kind == SQL_E_WINDOW || e->kind == SQL_E_GROUPING)
			return SQL_VISIT_SKIP;
	}
	if (e->kind == SQL_E_VAR && e->var.levelsup == ev->depth) {
		sql_expr *v = sql_expr_copy(e);
		v->var.levelsup = 0;
		for (int i = 0; i < q->ngroup; i++)
			if (sql_expr_equal(q->group[i], v))
				return SQL_VISIT_CONTINUE;
		for (int i = 0; i < ev->n; i++)
			if (sql_expr_equal(ev->vars[i], v))
				return SQL_VISIT_CONTINUE;
		sql_expr **nv = ty_alloc(sizeof(sql_expr *) * (size_t)(ev->n + 1));
		if (ev->n)
			memcpy(nv, ev->vars, sizeof(sql_expr *) * (size_t)ev->n);
		nv[ev->n++] = v;
		ev->vars = nv;
	}
	if (e->kind == SQL_E_SUBLINK && e->sub.query && !e->sub.plan)
		collect_subquery(ev, e->sub.query);
	return SQL_VISIT_CONTINUE;
}

static bool collect_grouping(sql_expr *e, void *arg)
{
	sql_plan *a = arg;
	if (e->kind != SQL_E_GROUPING)
		return false;
	for (int i = 0; i < a->agg.ngrouping; i++)
		if (a->agg.grouping[i] == e)
			return true;
	sql_expr **n = ty_alloc(sizeof(sql_expr *) * (size_t)(a->agg.ngrouping + 1));
	if (a->agg.ngrouping)
		memcpy(n, a->agg.grouping, sizeof(sql_expr *) * (size_t)a->agg.ngrouping);
	n[a->agg.ngrouping++] = e;
	a->agg.grouping = n;
	return true;
}

static sql_plan *plan_agg(sql_planner *pl, sql_query *q, sql_plan *in, sql_tlist *itl, sql_tlist **tl_out)
{
	/* Columns functionally dependent on a grouped primary key ride along
	 * as extra group keys. */
	extra_vars ev = {q, NULL, 0, 0};
	for (int i = 0; i < q->ntargets; i++)
		sql_expr_visit(q->targets[i].expr, collect_ungrouped, &ev);
	sql_expr_visit(q->having, collect_ungrouped, &ev);
	for (int i = 0; i < q->nsort; i++)
		sql_expr_visit(q->sort[i].expr, collect_ungrouped, &ev);
	for (int w = 0; w < q->nwinclauses; w++) {
		for (int i = 0; i < q->winclauses[w].npart; i++)
			sql_expr_visit(q->winclauses[w].part[i], collect_ungrouped, &ev);
		for (int i = 0; i < q->winclauses[w].norder; i++)
			sql_expr_visit(q->winclauses[w].order[i].expr, collect_ungrouped, &ev);
	}
	for (int i = 0; i < q->nwins; i++)
		for (int k = 0; k < q->wins[i].nargs; k++)
			sql_expr_visit(q->wins[i].args[k], collect_ungrouped, &ev);
	int ngroup = q->ngroup + ev.n;
	sql_tlist *tl = sql_tl_new();
	sql_plan *a = sql_plan_new(SQL_P_AGG, 0);
	a->id = pl->top->nnodes++;
	a->left = in;
	a->agg.ngroup = ngroup;
	a->agg.group = ty_alloc(sizeof(sql_expr *) * (size_t)(ngroup ? ngroup : 1));
	for (int i = 0; i < q->ngroup; i++) {
		a->agg.group[i] = sql_set_refs(pl, prep(pl, q->group[i]), itl);
		sql_tl_add(tl, q->group[i]);
	}
	for (int i = 0; i < ev.n; i++) {
		a->agg.group[q->ngroup + i] = sql_set_refs(pl, ev.vars[i], itl);
		sql_tl_add(tl, ev.vars[i]);
	}
	a->agg.naggs = q->naggs;
	a->agg.aggs = ty_alloc(sizeof(sql_aggref) * (size_t)(q->naggs ? q->naggs : 1));
	for (int i = 0; i < q->naggs; i++) {
		sql_aggref ar = q->aggs[i];
		ar.args = ty_alloc(sizeof(sql_expr *) * (size_t)(ar.nargs ? ar.nargs : 1));
		for (int k = 0; k < ar.nargs; k++)
			ar.args[k] = sql_set_refs(pl, prep(pl, q->aggs[i].args[k]), itl);
		ar.filter = sql_set_refs(pl, prep(pl, ar.filter), itl);
		if (ar.norder) {
			ar.order = ty_alloc(sizeof(sql_sortkey) * (size_t)ar.norder);
			for (int k = 0; k < ar.norder; k++) {
				ar.order[k] = q->aggs[i].order[k];
				ar.order[k].expr = sql_set_refs(pl, prep(pl, q->aggs[i].order[k].expr), itl);
			}
		}
		if (ar.ndirect) {
			ar.direct = ty_alloc(sizeof(sql_expr *) * (size_t)ar.ndirect);
			for (int k = 0; k < ar.ndirect; k++)
				ar.direct[k] = sql_set_refs(pl, prep(pl, q->aggs[i].direct[k]), itl);
		}
		a->agg.aggs[i] = ar;
		sql_expr *ae = sql_expr_new(SQL_E_AGG, ar.rettype, -1);
		ae->agg = i;
		sql_tl_add(tl, ae);
	}
	/* GROUPING(...) calls become outputs of the aggregate node. */
	for (int i = 0; i < q->ntargets; i++)
		sql_expr_walk(q->targets[i].expr, collect_grouping, a);
	sql_expr_walk(q->having, collect_grouping, a);
	for (int i = 0; i < q->nsort; i++)
		sql_expr_walk(q->sort[i].expr, collect_grouping, a);
	for (int i = 0; i < a->agg.ngrouping; i++)
		sql_tl_add(tl, a->agg.grouping[i]);
	a->agg.hashed = ngroup > 0;
	a->agg.ngsets = q->ngsets;
	a->agg.gsets = q->gsets;
	a->agg.gset_len = q->gset_len;
	/* GROUPING(...) values come out of the aggregate node too. */
	a->ncols = tl->n;
	a->types = ty_alloc(sizeof(ty_oid) * (size_t)(tl->n ? tl->n : 1));
	a->typmods = ty_alloc(sizeof(int32_t) * (size_t)(tl->n ? tl->n : 1));
	for (int i = 0; i < tl->n; i++) {
		a->types[i] = tl->items[i]->type;
		a->typmods[i] = tl->items[i]->typmod;
	}
	a->rows = ngroup ? in->rows / 10 + 1 : 1;
	*tl_out = tl;
	return a;
}

/* ---------------------------------------------------------------- windows */

static sql_plan *plan_windows(sql_planner *pl, sql_query *q, sql_plan *in, sql_tlist *itl, sql_tlist **tl_out)
{
	sql_plan *p = in;
	sql_tlist *tl = itl;
	for (int w = 0; w < q->nwinclauses; w++) {
		sql_window_clause *wc = &q->winclauses[w];
		int nf = 0;
		for (int i = 0; i < q->nwins; i++)
			nf += q->wins[i].winclause == w;
		if (!nf)
			continue;
		/* Sort by partition then order keys. */
		int nk = wc->npart + wc->norder;
		if (nk) {
			sql_plan *s = sql_new_node(pl, SQL_P_SORT, tl);
			s->left = p;
			s->sort.nkeys = nk;
			s->sort.keys = ty_alloc0(sizeof(sql_sortkey) * (size_t)nk);
			for (int i = 0; i < wc->npart; i++) {
				s->sort.keys[i].expr = sql_set_refs(pl, prep(pl, wc->part[i]), tl);
				s->sort.keys[i].type = ty_type_get(wc->part[i]->type);
			}
			for (int i = 0; i < wc->norder; i++) {
				s->sort.keys[wc->npart + i] = wc->order[i];
				s->sort.keys[wc->npart + i].expr = sql_set_refs(pl, prep(pl, wc->order[i].expr), tl);
			}
			s->rows = p->rows;
			p = s;
		}
		sql_tlist *ntl = sql_tl_new();
		for (int i = 0; i < tl->n; i++)
			sql_tl_add(ntl, tl->items[i]);
		sql_plan *wp = sql_plan_new(SQL_P_WINDOW, 0);
		wp->id = pl->top->nnodes++;
		wp->left = p;
		wp->window.clause = ty_alloc(sizeof(sql_window_clause));
		*wp->window.clause = *wc;
		wp->window.part = ty_alloc(sizeof(sql_expr *) * (size_t)(wc->npart ? wc->npart : 1));
		for (int i = 0; i < wc->npart; i++)
			wp->window.part[i] = sql_set_refs(pl, prep(pl, wc->part[i]), tl);
		wp->window.order = ty_alloc(sizeof(sql_sortkey) * (size_t)(wc->norder ? wc->norder : 1));
		for (int i = 0; i < wc->norder; i++) {
			wp->window.order[i] = wc->order[i];
			wp->window.order[i].expr = sql_set_refs(pl, prep(pl, wc->order[i].expr), tl);
		}
		wp->window.clause->start_offset = sql_set_refs(pl, prep(pl, wc->start_offset), tl);
		wp->window.clause->end_offset = sql_set_refs(pl, prep(pl, wc->end_offset), tl);
		wp->window.nfuncs = nf;
		wp->window.funcs = ty_alloc(sizeof(sql_winref) * (size_t)nf);
		int k = 0;
		for (int i = 0; i < q->nwins; i++) {
			if (q->wins[i].winclause != w)
				continue;
			sql_winref wr = q->wins[i];
			wr.args = ty_alloc(sizeof(sql_expr *) * (size_t)(wr.nargs ? wr.nargs : 1));
			for (int x = 0; x < wr.nargs; x++)
				wr.args[x] = sql_set_refs(pl, prep(pl, q->wins[i].args[x]), tl);
			wr.filter = sql_set_refs(pl, prep(pl, wr.filter), tl);
			wp->window.funcs[k++] = wr;
			sql_expr *we = sql_expr_new(SQL_E_WINDOW, wr.rettype, -1);
			we->win = i;
			sql_tl_add(ntl, we);
		}
		wp->ncols = ntl->n;
		wp->types = ty_alloc(sizeof(ty_oid) * (size_t)ntl->n);
		wp->typmods = ty_alloc(sizeof(int32_t) * (size_t)ntl->n);
		for (int i = 0; i < ntl->n; i++) {
			wp->types[i] = ntl->items[i]->type;
			wp->typmods[i] = ntl->items[i]->typmod;
		}
		wp->rows = p->rows;
		p = wp;
		tl = ntl;
	}
	*tl_out = tl;
	return p;
}

/* ---------------------------------------------------------------- set operations */

static sql_plan *plan_setop(sql_planner *pl, sql_setop *s)
{
	if (s->is_leaf) {
		sql_planner sub = {pl->ax, pl->top, pl->parent, s->leaf, 0};
		sql_tlist *tl;
		return plan_query(&sub, s->leaf, &tl);
	}
	sql_plan *l = plan_setop(pl, s->left), *r = plan_setop(pl, s->right);
	sql_plan *p;
	if (s->op == SQL_SETOP_UNION) {
		p = sql_plan_new(SQL_P_APPEND, s->ncols);
		p->id = pl->top->nnodes++;
		p->append.nchildren = 2;
		p->append.children = ty_alloc(sizeof(sql_plan *) * 2);
		p->append.children[0] = l;
		p->append.children[1] = r;
		p->rows = l->rows + r->rows;
		if (!s->all) {
			sql_plan *u = sql_plan_new(SQL_P_UNIQUE, s->ncols);
			u->id = pl->top->nnodes++;
			u->left = p;
			u->unique.hashed = true;
			u->rows = p->rows;
			memcpy(p->types, s->types, sizeof(ty_oid) * (size_t)s->ncols);
			memcpy(p->typmods, s->typmods, sizeof(int32_t) * (size_t)s->ncols);
			p = u;
		}
	} else {
		p = sql_plan_new(SQL_P_SETOP, s->ncols);
		p->id = pl->top->nnodes++;
		p->left = l;
		p->right = r;
		p->setop.op = s->op;
		p->setop.all = s->all;
		p->rows = l->rows;
	}
	memcpy(p->types, s->types, sizeof(ty_oid) * (size_t)s->ncols);
	memcpy(p->typmods, s->typmods, sizeof(int32_t) * (size_t)s->ncols);
	return p;
}

/* ---------------------------------------------------------------- SELECT */

/* ---------------------------------------------------------------- SRFs in target lists */

typedef struct srf_collect {
	const sql_tlist *avail; /* what the input already computes */
	sql_expr **found;
	int n;
	bool pending;           /* an SRF not computed yet was seen */
} srf_collect;

static bool srf_inner_pending(sql_expr *e, void *arg)
{
	const sql_tlist *avail = arg;
	return e->kind == SQL_E_SRF && tl_find(avail, e) < 0;
}

/* SRF calls not yet computed whose arguments need no other pending SRF. */
static sql_visit srf_collector(sql_expr *e, void *arg)
{
	srf_collect *sc = arg;
	if (e->kind != SQL_E_SRF || tl_find(sc->avail, e) >= 0)
		return e->kind == SQL_E_SRF ? SQL_VISIT_SKIP : SQL_VISIT_CONTINUE;
	sc->pending = true;
	bool inner = false;
	for (int i = 0; i < e->f.nargs && !inner; i++)
		inner = sql_expr_walk(e->f.args[i], srf_inner_pending, (void *)sc->avail);
	if (inner)
		return SQL_VISIT_CONTINUE;
	for (int i = 0; i < sc->n; i++)
		if (sql_expr_equal(sc->found[i], e))
			return SQL_VISIT_SKIP;
	sql_expr **nf = ty_alloc(sizeof(sql_expr *) * (size_t)(sc->n + 1));
	if (sc->n)
		memcpy(nf, sc->found, sizeof(sql_expr *) * (size_t)sc->n);
	nf[sc->n++] = e;
	sc->found = nf;
	return SQL_VISIT_SKIP;
}

/* PostgreSQL's ProjectSet: each level passes its input through and adds
 * the SRF calls of that level, which advance in lockstep per input row;
 * the projection above computes the expressions around them. */
static sql_plan *plan_project_set(sql_planner *pl, sql_query *q, sql_plan *p, sql_tlist **tlp)
{
	sql_tlist *tl = *tlp;
	for (;;) {
		srf_collect sc = {tl, NULL, 0, false};
		for (int i = 0; i < q->ntargets; i++)
			sql_expr_visit(q->targets[i].expr, srf_collector, &sc);
		if (!sc.n)
			break;
		sql_tlist *ntl = sql_tl_new();
		for (int i = 0; i < tl->n; i++)
			sql_tl_add(ntl, tl->items[i]);
		for (int i = 0; i < sc.n; i++)
			sql_tl_add(ntl, sc.found[i]);
		sql_plan *ps = sql_new_node(pl, SQL_P_PROJECTSET, ntl);
		ps->left = p;
		ps->project.exprs = ty_alloc(sizeof(sql_expr *) * (size_t)ntl->n);
		for (int i = 0; i < tl->n; i++)
			ps->project.exprs[i] = slot(i, tl->items[i] ? tl->items[i] : sql_expr_new(SQL_E_CONST, TY_INT8, -1));
		for (int i = 0; i < sc.n; i++)
			ps->project.exprs[tl->n + i] = sql_set_refs(pl, prep(pl, sc.found[i]), tl);
		ps->rows = p->rows * 10;
		p = ps;
		tl = ntl;
	}
	*tlp = tl;
	return p;
}

static sql_plan *plan_limit(sql_planner *pl, sql_query *q, sql_plan *p, const sql_tlist *tl)
{
	if (!q->limit && !q->offset)
		return p;
	sql_plan *l = sql_new_node(pl, SQL_P_LIMIT, tl);
	l->left = p;
	sql_tlist *empty = sql_tl_new();
	l->limit.limit = sql_set_refs(pl, prep(pl, q->limit), empty);
	l->limit.offset = sql_set_refs(pl, prep(pl, q->offset), empty);
	l->limit.ties = q->limit_ties;
	if (q->limit_ties) {
		l->limit.nsort = q->nsort;
		l->limit.sort = ty_alloc(sizeof(sql_sortkey) * (size_t)(q->nsort ? q->nsort : 1));
		for (int i = 0; i < q->nsort; i++) {
			l->limit.sort[i] = q->sort[i];
			l->limit.sort[i].expr = sql_set_refs(pl, q->sort[i].expr, tl);
		}
	}
	l->rows = p->rows;
	return l;
}

/* Folds every expression of the query the same way, so that expressions
 * matched by equality (GROUP BY, ORDER BY, SRFs) still match. */
static void fold_root(sql_expr **e, void *arg) { *e = sql_fold_expr(arg, *e); }

static bool agg_or_sublink(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_AGG || e->kind == SQL_E_SUBLINK || e->kind == SQL_E_WINDOW || e->kind == SQL_E_GROUPING ||
	       (e->kind == SQL_E_FUNC && e->f.fn->volatility == TY_VOLATILE);
}

/* PostgreSQL's HAVING-to-WHERE transfer: a HAVING conjunct without
 * aggregates, subqueries or volatile calls filters rows before grouping
 * (with GROUP BY it moves; without, it is a variable-free condition that
 * is copied to WHERE to gate the scans and kept to decide the one row). */
static void move_having(sql_query *q)
{
	if (!q->having || q->ngsets)
		return;
	sql_expr **conj;
	int n = sql_conjuncts(q->having, &conj);
	sql_expr **keep = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
	sql_expr **move = ty_alloc(sizeof(sql_expr *) * (size_t)(n + 1));
	int nk = 0, nm = 0;
	for (int i = 0; i < n; i++) {
		if (sql_expr_walk(conj[i], agg_or_sublink, NULL)) {
			keep[nk++] = conj[i];
			continue;
		}
		move[nm++] = conj[i];
		if (!q->ngroup)
			keep[nk++] = conj[i];
	}
	if (!nm)
		return;
	if (q->where)
		move[nm++] = q->where;
	q->where = sql_make_and(move, nm);
	q->having = sql_make_and(keep, nk);
}

/* Projection of q's target list over p, whose output *tl describes (then
 * the targets). */
static sql_plan *project_targets(sql_planner *pl, sql_query *q, sql_plan *p, sql_tlist **tl)
{
	sql_tlist *ttl = sql_tl_new();
	sql_expr **exprs = ty_alloc(sizeof(sql_expr *) * (size_t)(q->ntargets ? q->ntargets : 1));
	for (int i = 0; i < q->ntargets; i++) {
		exprs[i] = sql_set_refs(pl, prep(pl, q->targets[i].expr), *tl);
		sql_tl_add(ttl, q->targets[i].expr);
	}
	sql_plan *pr = sql_new_node(pl, SQL_P_PROJECT, ttl);
	pr->left = p;
	pr->project.exprs = exprs;
	pr->rows = p->rows;
	*tl = ttl;
	return pr;
}

/* Plans a SELECT; *tl_out describes the output (all targets, junk included
 * until the final projection drops them at the top level). */
static sql_plan *plan_query(sql_planner *pl, sql_query *q, sql_tlist **tl_out)
{
	ty_check_interrupts();
	sql_tlist *tl;
	sql_plan *p;
	bool setop_project = false;
	/* CTEs defined here are planned on first reference. */
	if (q->setop) {
		p = plan_setop(pl, q->setop);
		tl = sql_tl_new();
		/* Output of the setop node = the Vars of the "*SELECT*" RTE. */
		bool plain = true;
		for (int i = 0; i < q->ntargets; i++)
			plain &= q->targets[i].expr->kind == SQL_E_VAR;
		int sel = 0;
		for (int i = 0; i < q->nrtes && !sel; i++)
			if (!strcmp(q->rtes[i]->alias, "*SELECT*"))
				sel = i + 1;
		if (plain || !sel) {
			for (int i = 0; i < q->ntargets; i++)
				sql_tl_add(tl, q->targets[i].expr);
		} else {
			/* Targets changed since analysis (INSERT ... SELECT ... UNION
			 * coerces them to the columns): ORDER BY and LIMIT work on
			 * those Vars, then a projection computes the targets. */
			for (int c = 0; c < q->setop->ncols; c++) {
				sql_expr *v = sql_expr_new(SQL_E_VAR, q->setop->types[c], -1);
				v->typmod = q->setop->typmods[c];
				v->var.rte = sel;
				v->var.col = c;
				sql_tl_add(tl, v);
			}
			setop_project = true;
		}
	} else {
		sql_query_exprs(q, fold_root, pl);
		move_having(q);
		sql_expr **quals;
		int nquals = sql_conjuncts(q->where, &quals);
		/* MIN/MAX through an index's first and last entry (plan_index.c). */
		p = sql_plan_minmax(pl, q, quals, nquals, &tl);
		if (!p)
			p = plan_from(pl, q, quals, nquals, &tl);
		if (q->has_aggs || q->ngroup)
			p = plan_agg(pl, q, p, tl, &tl);
		if (q->having) {
			sql_plan *f = sql_new_node(pl, SQL_P_FILTER, tl);
			f->left = p;
			f->qual = sql_set_refs(pl, prep(pl, q->having), tl);
			p = f;
		}
		if (q->nwins)
			p = plan_windows(pl, q, p, tl, &tl);
		/* Set-returning functions in the target list: ProjectSet nodes
		 * below the projection, one per nesting level of SRF calls. */
		if (q->has_srf)
			p = plan_project_set(pl, q, p, &tl);
		p = project_targets(pl, q, p, &tl);
	}
	/* DISTINCT */
	if (q->distinct && q->ndistinct_on == 0) {
		if (q->nsort) {
			/* Sort by ORDER BY then the other output columns; drop adjacent dups. */
			int nk = q->nsort;
			sql_sortkey *keys = ty_alloc0(sizeof(sql_sortkey) * (size_t)(q->nsort + q->ntargets));
			for (int i = 0; i < q->nsort; i++) {
				keys[i] = q->sort[i];
				keys[i].expr = sql_set_refs(pl, q->sort[i].expr, tl);
			}
			for (int i = 0; i < q->ntargets; i++) {
				if (q->targets[i].junk)
					continue;
				bool in = false;
				for (int k = 0; k < q->nsort; k++)
					in |= q->sort[k].target == i;
				if (in)
					continue;
				keys[nk].expr = slot(i, q->targets[i].expr);
				keys[nk].type = ty_type_get(q->targets[i].expr->type);
				keys[nk].target = i;
				nk++;
			}
			sql_plan *s = sql_new_node(pl, SQL_P_SORT, tl);
			s->left = p;
			s->sort.nkeys = nk;
			s->sort.keys = keys;
			p = s;
			sql_plan *u = sql_new_node(pl, SQL_P_UNIQUE, tl);
			u->left = p;
			u->unique.hashed = false;
			u->unique.nkeys = q->nret; /* non-junk columns come first */
			p = u;
			p = plan_limit(pl, q, p, tl);
		} else {
			sql_plan *u = sql_new_node(pl, SQL_P_UNIQUE, tl);
			u->left = p;
			u->unique.hashed = true;
			u->unique.nkeys = q->nret;
			p = plan_limit(pl, q, u, tl);
		}
	} else {
		if (q->ndistinct_on) {
			/* Sort by the DISTINCT ON keys (then ORDER BY); keep the first row. */
			int nk = 0;
			sql_sortkey *keys = ty_alloc0(sizeof(sql_sortkey) * (size_t)(q->ndistinct_on + q->nsort));
			for (int i = 0; i < q->nsort; i++) {
				keys[nk] = q->sort[i];
				keys[nk++].expr = sql_set_refs(pl, q->sort[i].expr, tl);
			}
			for (int i = 0; i < q->ndistinct_on; i++) {
				bool in = false;
				for (int k = 0; k < q->nsort; k++)
					in |= sql_expr_equal(q->sort[k].expr, q->distinct_on[i]);
				if (in)
					continue;
				keys[nk].expr = sql_set_refs(pl, q->distinct_on[i], tl);
				keys[nk].type = ty_type_get(q->distinct_on[i]->type);
				nk++;
			}
			sql_plan *s = sql_new_node(pl, SQL_P_SORT, tl);
			s->left = p;
			s->sort.nkeys = nk;
			s->sort.keys = keys;
			p = s;
			sql_plan *u = sql_new_node(pl, SQL_P_UNIQUE, tl);
			u->left = p;
			u->unique.nkeys = q->ndistinct_on;
			u->unique.keys = ty_alloc(sizeof(sql_expr *) * (size_t)q->ndistinct_on);
			for (int i = 0; i < q->ndistinct_on; i++)
				u->unique.keys[i] = sql_set_refs(pl, q->distinct_on[i], tl);
			p = u;
		} else if (q->nsort && !pl->ordered_by_scan) {
			sql_plan *s = sql_new_node(pl, SQL_P_SORT, tl);
			s->left = p;
			s->sort.nkeys = q->nsort;
			s->sort.keys = ty_alloc(sizeof(sql_sortkey) * (size_t)q->nsort);
			for (int i = 0; i < q->nsort; i++) {
				s->sort.keys[i] = q->sort[i];
				s->sort.keys[i].expr = sql_set_refs(pl, q->sort[i].expr, tl);
			}
			/* Top-N: LIMIT + OFFSET bounds the sort. */
			if (q->limit && !q->limit_ties) {
				sql_tlist *empty = sql_tl_new();
				s->sort.limit = sql_set_refs(pl, prep(pl, q->limit), empty);
				s->sort.offset = sql_set_refs(pl, prep(pl, q->offset), empty);
			}
			s->rows = p->rows;
			p = s;
		}
		p = plan_limit(pl, q, p, tl);
	}
	if (setop_project)
		p = project_targets(pl, q, p, &tl);
	/* LOCKING (SELECT ... FOR UPDATE) happens in the scans. */
	*tl_out = tl;
	return p;
}

/* ---------------------------------------------------------------- DML */

sql_plan *sql_plan_modify(sql_planner *pl, sql_query *q, sql_tlist **tl_out);

/* The statement's data-modifying CTEs run before anything else reads. */
static sql_plan *plan_dml_ctes(sql_planner *pl, sql_query *q, sql_plan *p)
{
	int n = 0;
	for (int i = 0; i < q->nctes; i++)
		n += q->ctes[i]->dml;
	if (!n)
		return p;
	sql_plan *w = sql_plan_new(SQL_P_CTEPREP, p->ncols);
	w->id = pl->top->nnodes++;
	memcpy(w->types, p->types, sizeof(ty_oid) * (size_t)p->ncols);
	memcpy(w->typmods, p->typmods, sizeof(int32_t) * (size_t)p->ncols);
	w->left = p;
	w->rows = p->rows;
	w->cte.prep = ty_alloc(sizeof(int) * (size_t)n);
	for (int i = 0; i < q->nctes; i++)
		if (q->ctes[i]->dml) {
			plan_cte(pl, q->ctes[i]);
			w->cte.prep[w->cte.nprep++] = q->ctes[i]->id;
		}
	return w;
}

sql_planned *sql_plan_query(sql_actx *ax, sql_query *q)
{
	sql_planned *pd = ty_alloc0(sizeof *pd);
	sql_planner pl = {ax, pd, NULL, q, 0};
	sql_tlist *tl;
	sql_plan *p;
	pd->cmd = q->cmd;
	if (q->cmd == SQL_CMD_SELECT)
		p = plan_query(&pl, q, &tl);
	else
		p = sql_plan_modify(&pl, q, &tl);
	p = plan_dml_ctes(&pl, q, p);
	/* Final projection: drop junk columns. */
	bool junk = false;
	for (int i = 0; i < q->ntargets; i++)
		junk |= q->targets[i].junk;
	if (junk && q->cmd == SQL_CMD_SELECT) {
		sql_tlist *out = sql_tl_new();
		sql_expr **exprs = ty_alloc(sizeof(sql_expr *) * (size_t)(q->nret ? q->nret : 1));
		int k = 0;
		for (int i = 0; i < q->ntargets; i++) {
			if (q->targets[i].junk)
				continue;
			exprs[k++] = slot(i, q->targets[i].expr);
			sql_tl_add(out, q->targets[i].expr);
		}
		sql_plan *pr = sql_new_node(&pl, SQL_P_PROJECT, out);
		pr->left = p;
		pr->project.exprs = exprs;
		pr->rows = p->rows;
		p = pr;
	}
	pd->plan = p;
	sql_plan_use_key_order(pd, &pd->plan);
	sql_plan_merge_joins(pd, &pd->plan);
	pd->nexec_params = ax->ps->nexec_params;
	pd->ncache = ax->ps->ncache;
	pd->returns_rows = q->cmd == SQL_CMD_SELECT || q->nreturning > 0;
	int nret = q->cmd == SQL_CMD_SELECT ? q->nret : q->nreturning;
	pd->cols = ty_alloc0(sizeof(sql_column) * (size_t)(nret ? nret : 1));
	int k = 0;
	for (int i = 0; i < q->ntargets; i++) {
		sql_target *t = &q->targets[i];
		if (t->junk)
			continue;
		sql_column *c = &pd->cols[k++];
		c->name = t->name;
		c->table_oid = t->src_table;
		c->attnum = t->src_attnum;
		c->type_oid = t->expr->type;
		const ty_type *ty = ty_type_get(t->expr->type);
		c->type_len = ty ? ty->len : -1;
		c->typmod = t->expr->typmod;
		c->format = 0;
	}
	pd->desc.ncols = k;
	pd->desc.cols = pd->cols;
	if (q->cmd == SQL_CMD_SELECT && p->ncols != k) {
		/* Keep the declared output types for the formatter. */
		sql_plan *pr = p;
		(void)pr;
	}
	bool dml_ctes = false;
	for (int i = 0; i < q->nctes; i++)
		dml_ctes |= q->ctes[i]->dml;
	pd->read_only = q->cmd == SQL_CMD_SELECT && !q->for_update && !dml_ctes;
	pd->query = q;
	pd->lock_strength = q->for_update ? q->lock_strength : 0;
	return pd;
}

sql_plan *sql_plan_subquery(sql_actx *ax, sql_planned *top, sql_query *q)
{
	sql_planner pl = {ax, top, NULL, q, 0};
	sql_tlist *tl;
	sql_plan *p = plan_query(&pl, q, &tl);
	sql_plan_use_key_order(top, &p);
	sql_plan_merge_joins(top, &p);
	return p;
}

/* Exposed to plan_modify.c. */
sql_plan *sql_plan_select_internal(sql_planner *pl, sql_query *q, sql_tlist **tl_out) { return plan_query(pl, q, tl_out); }
sql_plan *sql_plan_from_internal(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals, sql_tlist **tl_out)
{
	return plan_from(pl, q, quals, nquals, tl_out);
}
sql_expr *sql_plan_prep(sql_planner *pl, sql_expr *e) { return prep(pl, e); }
