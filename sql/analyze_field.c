/*
 * analyze_field.c — field selection on records whose layout is known when
 * the query is analyzed: (f(x)).name for functions with OUT columns
 * (information_schema._pg_expandarray, jsonb_each ...), also through a
 * subquery column that holds such a call ((sub.keys).x, as pgjdbc's
 * DatabaseMetaData queries write it). Records of other origins keep
 * PostgreSQL's 0A000 from the caller. Also subscripts on name, which
 * PostgreSQL treats as a fixed-length "char" array.
 */
#include <string.h>

#include "array.h"
#include "sql_int.h"

/* An OUT column's type with polymorphic types resolved from the call's
 * first argument (anyelement: its element type; anyarray: itself). */
static ty_oid out_type(const sql_expr *call, ty_oid t)
{
	ty_oid a0 = call->f.nargs > 0 && call->f.argtypes ? call->f.argtypes[0] : 0;
	if (t == TY_ANYELEMENT || t == TY_ANYCOMPATIBLE)
		return ty_array_elem_of(a0) ? ty_array_elem_of(a0) : (a0 ? a0 : TY_TEXT);
	if (t == TY_ANYARRAY || t == TY_ANYCOMPATIBLEARRAY)
		return a0 ? a0 : TY_TEXT_ARRAY;
	return t;
}

/* The function call that produces the record e, or NULL. */
static const sql_expr *record_source(sql_query *q, const sql_expr *e)
{
	for (int depth = 0; e && depth < 32; depth++) {
		if ((e->kind == SQL_E_FUNC || e->kind == SQL_E_SRF) && e->f.fn && e->f.fn->nout > 0)
			return e;
		if (e->kind != SQL_E_VAR)
			return NULL;
		sql_query *owner = q;
		for (int i = 0; owner && i < e->var.levelsup; i++)
			owner = owner->parent;
		if (!owner || e->var.rte < 1 || e->var.rte > owner->nrtes)
			return NULL;
		const sql_rte *r = owner->rtes[e->var.rte - 1];
		if (r->kind != SQL_RTE_SUBQUERY || !r->subquery || r->subquery->setop)
			return NULL;
		/* RTE columns are the subquery's non-junk targets in order. */
		int col = 0;
		const sql_expr *next = NULL;
		for (int i = 0; i < r->subquery->ntargets; i++) {
			if (r->subquery->targets[i].junk)
				continue;
			if (col++ == e->var.col) {
				next = r->subquery->targets[i].expr;
				break;
			}
		}
		q = r->subquery;
		e = next;
	}
	return NULL;
}

sql_expr *sql_record_field(sql_query *q, sql_expr *e, const char *name)
{
	const sql_expr *src = record_source(q, e);
	if (!src)
		return NULL;
	const ty_func *f = src->f.fn;
	for (int i = 0; i < f->nout; i++) {
		if (!f->outnames || strcmp(f->outnames[i], name))
			continue;
		sql_expr *fe = sql_expr_new(SQL_E_FIELD, out_type(src, f->outtypes[i]), e->location);
		fe->field.arg = e;
		fe->field.field = i;
		return fe;
	}
	return NULL;
}

sql_expr *sql_name_subscript(sql_actx *ax, sql_expr *name, sql_expr *index)
{
	/* substr(name::text, index + 1, 1)::"char" */
	sql_expr *args[3];
	args[0] = sql_coerce(ax, name, TY_TEXT, -1, SQL_COERCE_IMPLICIT, name->location);
	args[1] =
	    sql_make_op(ax, "+", sql_coerce(ax, index, TY_INT4, -1, SQL_COERCE_ASSIGNMENT, index->location),
			sql_expr_const(TY_INT4, -1, ty_int(1), -1), index->location);
	args[2] = sql_expr_const(TY_INT4, -1, ty_int(1), -1);
	sql_expr *sub = sql_make_func(ax, "substr", args, 3, name->location, false);
	return sql_coerce(ax, sub, TY_CHAR, -1, SQL_COERCE_EXPLICIT, name->location);
}
