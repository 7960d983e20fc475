/*
 * plan_qualorder.c — the order in which a node's conditions are evaluated
 * (and EXPLAIN prints them), as PostgreSQL chooses it: equalities that
 * PostgreSQL turns into equivalence classes (column = constant, column =
 * column of the same relation) come after the other conditions of a scan,
 * and then all are sorted, stably, by their estimated per-row cost
 * (cost_qual_eval: one unit per operator or function call, half a unit per
 * element of an = ANY array, a correlated subquery far more). Cheap and
 * selective tests first; and "Filter: ((s <> 'x'::text) AND (g = 1))"
 * reads as in PostgreSQL.
 */
#include <string.h>

#include "array.h"
#include "plan_int.h"

enum { SUBPLAN_COST = 1000 };

typedef struct outer_check {
	int depth;
	bool found;
} outer_check;

static bool query_refs_outer(sql_query *q, int depth);

static bool outer_walk(sql_expr *e, void *arg)
{
	outer_check *oc = arg;
	if (e->kind == SQL_E_VAR && e->var.levelsup > oc->depth)
		oc->found = true;
	if (e->kind == SQL_E_SUBLINK && e->sub.query && query_refs_outer(e->sub.query, oc->depth + 1))
		oc->found = true;
	return oc->found;
}

static void outer_root(sql_expr **e, void *arg)
{
	outer_check *oc = arg;
	if (*e && !oc->found)
		sql_expr_walk(*e, outer_walk, oc);
}

/* Does q (depth levels below the condition's query) read a column of an
 * enclosing query level? */
static bool query_refs_outer(sql_query *q, int depth)
{
	outer_check oc = {depth, false};
	sql_query_exprs(q, outer_root, &oc);
	for (int i = 0; i < q->nrtes && !oc.found; i++)
		if (q->rtes[i]->subquery && query_refs_outer(q->rtes[i]->subquery, depth + 1))
			oc.found = true;
	return oc.found;
}

static double array_length(const sql_expr *a)
{
	if (a && a->kind == SQL_E_ARRAY)
		return a->f.nargs;
	if (a && a->kind == SQL_E_CONST && !a->c.null)
		return ty_array_nitems(a->c);
	return 10; /* PostgreSQL's guess for an array it cannot see */
}

static double cost(const sql_expr *e)
{
	if (!e)
		return 0;
	double c = 0;
	switch (e->kind) {
	case SQL_E_FUNC:
	case SQL_E_NULLIF:
	case SQL_E_DISTINCT:
	case SQL_E_GREATEST:
	case SQL_E_LEAST:
		c = 1;
		break;
	case SQL_E_CAST:
		c = e->cast.method == SQL_CAST_RELABEL ? 0 : e->cast.method == SQL_CAST_IO ? 2 : 1;
		return c + cost(e->cast.arg);
	case SQL_E_ANYARRAY:
		c = 0.5 * array_length(e->f.nargs > 1 ? e->f.args[1] : NULL);
		break;
	case SQL_E_ROWCMP:
		c = e->f.nargs / 2;
		break;
	case SQL_E_SUBLINK: {
		/* Uncorrelated: an InitPlan run once (its value a parameter), or a
		 * hashed set probed with one comparison; correlated: the whole
		 * subquery per row. */
		bool correlated = e->sub.query && query_refs_outer(e->sub.query, 0);
		if (correlated)
			c = SUBPLAN_COST;
		else if (e->sub.kind == SQL_SUB_ANY || e->sub.kind == SQL_SUB_ALL ||
			 e->sub.kind == SQL_SUB_ROWCMP)
			c = 1;
		return c + cost(e->sub.testexpr);
	}
	default:
		break;
	}
	switch (e->kind) {
	case SQL_E_FUNC:
	case SQL_E_AND:
	case SQL_E_OR:
	case SQL_E_NOT:
	case SQL_E_CASE:
	case SQL_E_COALESCE:
	case SQL_E_NULLIF:
	case SQL_E_GREATEST:
	case SQL_E_LEAST:
	case SQL_E_NULLTEST:
	case SQL_E_BOOLTEST:
	case SQL_E_DISTINCT:
	case SQL_E_ARRAY:
	case SQL_E_ROW:
	case SQL_E_ANYARRAY:
	case SQL_E_ROWCMP:
	case SQL_E_SUBSCRIPT:
		for (int i = 0; i < e->f.nargs; i++)
			c += cost(e->f.args[i]);
		break;
	case SQL_E_FIELD:
		c += cost(e->field.arg);
		break;
	default:
		break;
	}
	return c;
}

static bool has_var(sql_expr *e, void *arg)
{
	(void)arg;
	return (e->kind == SQL_E_VAR && e->var.levelsup == 0) || e->kind == SQL_E_SLOT;
}

/* Volatile calls (sql_expr_volatile also counts every subquery). */
static bool volatile_call(sql_expr *e, void *arg)
{
	(void)arg;
	return (e->kind == SQL_E_FUNC && e->f.fn && e->f.fn->volatility == TY_VOLATILE) ||
	       e->kind == SQL_E_SRF;
}

/* A subquery other than an uncorrelated scalar one (an InitPlan, whose
 * value is a parameter: as constant as a literal to PostgreSQL). */
static bool has_subplan(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_SUBLINK &&
	       (e->sub.kind != SQL_SUB_EXPR || !e->sub.query || query_refs_outer(e->sub.query, 0));
}

/* column = constant or column = column: an equality on an ordered type
 * (one with a btree comparison), nothing volatile, a column on one side. */
static bool equivalence(sql_expr *e)
{
	if (e->kind != SQL_E_FUNC || e->f.nargs != 2 || !e->f.opname || strcmp(e->f.opname, "=") != 0 ||
	    sql_expr_walk(e, volatile_call, NULL))
		return false;
	const ty_type *a = ty_type_get(e->f.argtypes[0]), *b = ty_type_get(e->f.argtypes[1]);
	if (!a || !b || !a->cmp || !b->cmp || a->category == 'A' || b->category == 'A')
		return false;
	if (sql_expr_walk(e, has_subplan, NULL))
		return false;
	return sql_expr_walk(e->f.args[0], has_var, NULL) || sql_expr_walk(e->f.args[1], has_var, NULL);
}

void sql_order_quals(sql_expr **quals, int n, bool scan)
{
	if (n < 2)
		return;
	sql_expr **tmp = ty_alloc(sizeof(sql_expr *) * (size_t)n);
	double *costs = ty_alloc(sizeof(double) * (size_t)n);
	int k = 0;
	bool *eq = ty_alloc0(sizeof(bool) * (size_t)n);
	for (int i = 0; i < n; i++)
		eq[i] = scan && equivalence(quals[i]);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (eq[i] == (pass == 1))
				tmp[k++] = quals[i];
	for (int i = 0; i < n; i++)
		costs[i] = cost(tmp[i]);
	/* Insertion sort: stable, and the lists are short. */
	for (int i = 1; i < n; i++) {
		sql_expr *e = tmp[i];
		double c = costs[i];
		int j = i;
		while (j > 0 && costs[j - 1] > c) {
			tmp[j] = tmp[j - 1];
			costs[j] = costs[j - 1];
			j--;
		}
		tmp[j] = e;
		costs[j] = c;
	}
	memcpy(quals, tmp, sizeof(sql_expr *) * (size_t)n);
}
