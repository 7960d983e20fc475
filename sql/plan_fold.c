/*
 * plan_fold.c — constant folding, as PostgreSQL's eval_const_expressions
 * does it before planning: immutable functions and operators over
 * constants are computed once, a strict function with a NULL constant
 * argument is NULL without evaluating the others, AND/OR/NOT/CASE/COALESCE
 * and NULL tests over constants are simplified (a CASE arm whose condition
 * is constant false is dropped unevaluated). Errors raised while folding
 * are the statement's errors, as in PostgreSQL (SELECT 1/0 WHERE false).
 */
#include <string.h>

#include "plan_int.h"

static sql_expr *fold(sql_planner *pl, sql_expr *e);

static bool is_const(const sql_expr *e) { return e && e->kind == SQL_E_CONST; }
static bool const_null(const sql_expr *e) { return is_const(e) && e->c.null; }
static bool const_true(const sql_expr *e) { return is_const(e) && !e->c.null && e->c.i; }
static bool const_false(const sql_expr *e) { return is_const(e) && !e->c.null && !e->c.i; }

static sql_expr *null_of(const sql_expr *like)
{
	sql_expr *c = sql_expr_const(like->type, like->typmod, ty_null(), like->location);
	return c;
}

static sql_expr *bool_const(bool v, int location) { return sql_expr_const(TY_BOOL, -1, ty_bool(v), location); }

/* Evaluates an expression whose inputs are all constants. */
static sql_expr *compute(sql_planner *pl, sql_expr *e)
{
	ty_datum v;
	if (e->kind == SQL_E_FUNC) {
		/* Called directly with a private cache slot (cache slots of the
		 * plan are not assigned yet). */
		int n = e->f.nargs;
		ty_datum *args = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++)
			args[i] = e->f.args[i]->c;
		void *cache = NULL;
		ty_fcinfo fc = {.nargs = n,
				.args = args,
				.argtypes = e->f.argtypes,
				.rettype = e->type,
				.rettypmod = e->typmod,
				.cache = &cache,
				.cache_arena = ty_get_arena()};
		v = e->f.fn->fn(&fc);
	} else {
		sql_planned dummy = {0};
		sql_exec *ex = sql_exec_new(pl->ax->s, &dummy, ty_get_arena(), NULL, 0);
		v = sql_eval(ex, e, NULL);
	}
	const ty_type *t = ty_type_get(e->type);
	sql_expr *c = sql_expr_const(e->type, e->typmod, ty_datum_copy(v, t ? t->byval : true), e->location);
	return c;
}

static bool all_const(sql_expr **args, int n)
{
	for (int i = 0; i < n; i++)
		if (args[i] && !is_const(args[i]))
			return false;
	return true;
}

static sql_expr *fold_bool(sql_expr *e)
{
	bool is_and = e->kind == SQL_E_AND;
	int k = 0;
	bool saw_null = false;
	for (int i = 0; i < e->f.nargs; i++) {
		sql_expr *a = e->f.args[i];
		if (is_and ? const_false(a) : const_true(a))
			return bool_const(!is_and, e->location);
		if (is_and ? const_true(a) : const_false(a))
			continue;
		if (const_null(a)) {
			/* NULL AND x: NULL unless x is false; keep one NULL. */
			if (saw_null)
				continue;
			saw_null = true;
		}
		e->f.args[k++] = a;
	}
	if (k == 0)
		return bool_const(is_and, e->location);
	if (k == 1)
		return e->f.args[0];
	e->f.nargs = k;
	return e;
}

/* Replaces this CASE's test placeholders by its constant test value (a
 * nested CASE with its own test value keeps its placeholders). */
static sql_expr *subst_casetest(sql_expr *e, const sql_expr *value)
{
	if (!e)
		return NULL;
	if (e->kind == SQL_E_CASETEST)
		return sql_expr_copy(value);
	if (e->kind == SQL_E_CASE && e->f.negate) {
		sql_expr *c = sql_expr_copy(e);
		c->f.args[0] = subst_casetest(e->f.args[0], value);
		return c;
	}
	if (e->kind == SQL_E_CAST) {
		sql_expr *c = sql_expr_copy(e);
		c->cast.arg = subst_casetest(e->cast.arg, value);
		return c;
	}
	if (e->kind == SQL_E_CONST || e->kind == SQL_E_VAR || e->kind == SQL_E_SUBLINK || e->kind == SQL_E_FIELD ||
	    e->kind == SQL_E_PARAM || e->kind == SQL_E_EXECPARAM || e->kind == SQL_E_SLOT || e->kind == SQL_E_AGG ||
	    e->kind == SQL_E_WINDOW || e->kind == SQL_E_GROUPING || e->kind == SQL_E_SESSION || e->kind == SQL_E_DEFAULT)
		return e;
	sql_expr *c = sql_expr_copy(e);
	for (int i = 0; i < c->f.nargs; i++)
		c->f.args[i] = subst_casetest(c->f.args[i], value);
	return c;
}

/* CASE: conditions first; arms with a constant false/NULL condition go
 * away without their results being folded (1/0 in a dead arm is no error).
 * A constant test value is substituted into the WHEN comparisons. */
static sql_expr *fold_case(sql_planner *pl, sql_expr *e)
{
	int k = 0;
	bool has_test = e->f.negate;
	if (has_test) {
		sql_expr *tv = fold(pl, e->f.args[0]);
		if (is_const(tv)) {
			/* CASE const WHEN ... : an ordinary searched CASE. */
			sql_expr *c = sql_expr_copy(e);
			c->f.negate = false;
			c->f.nargs = e->f.nargs - 1;
			c->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)c->f.nargs);
			for (int i = 1; i < e->f.nargs; i++)
				c->f.args[i - 1] = (i % 2 == 1 && i < e->f.nargs - 1) ? subst_casetest(e->f.args[i], tv) : e->f.args[i];
			return fold_case(pl, c);
		}
		e->f.args[k++] = tv;
	}
	int first = has_test ? 1 : 0;
	int narms = (e->f.nargs - first - 1) / 2;
	sql_expr *def = e->f.args[e->f.nargs - 1];
	for (int a = 0; a < narms; a++) {
		sql_expr *cond = e->f.args[first + 2 * a], *res = e->f.args[first + 2 * a + 1];
		/* With a test value the condition compares CASETEST: not foldable. */
		if (!has_test)
			cond = fold(pl, cond);
		if (!has_test && (const_false(cond) || const_null(cond)))
			continue;
		if (!has_test && const_true(cond) && k == first) {
			/* The first live arm always applies. */
			return fold(pl, res);
		}
		if (!has_test && const_true(cond)) {
			def = res; /* later arms are dead */
			break;
		}
		e->f.args[k++] = cond;
		e->f.args[k++] = fold(pl, res);
	}
	if (k == first)
		return fold(pl, def);
	e->f.args[k++] = fold(pl, def);
	e->f.nargs = k;
	return e;
}

static sql_expr *fold(sql_planner *pl, sql_expr *e)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case SQL_E_CONST:
	case SQL_E_PARAM:
	case SQL_E_EXECPARAM:
	case SQL_E_VAR:
	case SQL_E_SLOT:
	case SQL_E_AGG:
	case SQL_E_WINDOW:
	case SQL_E_GROUPING:
	case SQL_E_SESSION:
	case SQL_E_DEFAULT:
	case SQL_E_CASETEST:
	case SQL_E_SUBLINK:
		return e;
	default:
		break;
	}
	sql_expr *c = ty_alloc(sizeof *c);
	*c = *e;
	e = c;
	if (e->kind == SQL_E_CASE)
		return fold_case(pl, e);
	if (e->kind == SQL_E_COALESCE) {
		/* Arguments after a non-NULL constant are never reached: not folded. */
		sql_expr **na = ty_alloc(sizeof(sql_expr *) * (size_t)(e->f.nargs ? e->f.nargs : 1));
		int k = 0;
		for (int i = 0; i < e->f.nargs; i++) {
			sql_expr *a = fold(pl, e->f.args[i]);
			if (const_null(a))
				continue;
			na[k++] = a;
			if (is_const(a))
				break;
		}
		if (k == 0)
			return null_of(e);
		if (k == 1 && na[0]->type == e->type)
			return na[0];
		e->f.args = na;
		e->f.nargs = k;
		return e;
	}
	if (e->kind == SQL_E_CAST) {
		e->cast.arg = fold(pl, e->cast.arg);
		if (const_null(e->cast.arg))
			return null_of(e);
		/* I/O casts may depend on settings (DateStyle): left to run time. */
		if (is_const(e->cast.arg) && e->cast.method != SQL_CAST_IO)
			return compute(pl, e);
		return e;
	}
	if (e->kind == SQL_E_FIELD) {
		e->field.arg = fold(pl, e->field.arg);
		return e;
	}
	if (e->f.nargs) {
		sql_expr **na = ty_alloc(sizeof(sql_expr *) * (size_t)e->f.nargs);
		for (int i = 0; i < e->f.nargs; i++)
			na[i] = fold(pl, e->f.args[i]);
		e->f.args = na;
	}
	switch (e->kind) {
	case SQL_E_FUNC:
		if (e->f.fn->retset || e->f.all)
			return e;
		if (e->f.fn->strict)
			for (int i = 0; i < e->f.nargs; i++)
				if (const_null(e->f.args[i]))
					return null_of(e);
		if (e->f.fn->volatility == TY_IMMUTABLE && all_const(e->f.args, e->f.nargs))
			return compute(pl, e);
		return e;
	case SQL_E_AND:
	case SQL_E_OR:
		return fold_bool(e);
	case SQL_E_NOT:
		if (const_null(e->f.args[0]))
			return e->f.args[0];
		if (is_const(e->f.args[0]))
			return bool_const(!e->f.args[0]->c.i, e->location);
		return e;
	case SQL_E_NULLTEST:
		/* A ROW's null test looks at its fields: left to run time. */
		if (is_const(e->f.args[0]))
			return bool_const(e->f.args[0]->c.null != e->f.negate, e->location);
		return e;
	case SQL_E_ANYARRAY:
		if (e->f.fn->volatility == TY_IMMUTABLE && all_const(e->f.args, e->f.nargs))
			return compute(pl, e);
		return e;
	case SQL_E_BOOLTEST:
	case SQL_E_DISTINCT:
	case SQL_E_NULLIF:
	case SQL_E_GREATEST:
	case SQL_E_LEAST:
	case SQL_E_ARRAY:
		/* Operators of these are immutable comparisons and constructors. */
		if (all_const(e->f.args, e->f.nargs) && (!e->f.fn || e->f.fn->volatility == TY_IMMUTABLE))
			return compute(pl, e);
		return e;
	default:
		return e;
	}
}

sql_expr *sql_fold_expr(sql_planner *pl, sql_expr *e) { return fold(pl, e); }

bool sql_const_false(const sql_expr *e) { return const_false(e) || const_null(e); }
