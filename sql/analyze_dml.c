/*
 * analyze_dml.c — INSERT (VALUES, SELECT, DEFAULT VALUES, column lists,
 * defaults and identity columns, ON CONFLICT), UPDATE (SET, FROM) and DELETE
 * (USING), with RETURNING, into analyzed queries for the planner.
 */
#include <stdio.h>
#include <string.h>

#include "sql_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

static const cat_obj *target_rel(sql_actx *ax, PgQuery__RangeVar *rv, const char *verb)
{
	const cat_obj *rel;
	TY_TRY(tc)
	{
		rel = sql_lookup_rel(ax->s, ax->cat, rv, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->position < 0)
			ty_err()->position = sql_errposition(ax->ps->text, -1 - ty_err()->position);
		ty_errthrow();
	}
	TY_END(tc);
	if (rel->rel.relkind == CAT_RELKIND_VIEW)
		return rel; /* the caller makes it a view target */
	if (rel->rel.relkind == CAT_RELKIND_SEQUENCE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "cannot change sequence \"%s\"", rel->rel.name);
	if (rel->rel.relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "cannot %s relation \"%s\"", verb, rel->rel.name);
	if (rel->rel.schema == CAT_OID_PG_CATALOG || rel->rel.schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for table %s", rel->rel.name);
	return rel;
}

/* The DEFAULT of a column as an expression (NULL constant when none). */
sql_expr *sql_column_default(sql_actx *ax, const cat_rel *r, int col)
{
	const cat_column *c = &r->cols[col];
	if (!c->default_sql)
		return sql_expr_const(c->type, c->typmod, ty_null(), -1);
	util_err perr;
	PgQuery__ParseResult *pr = sql_parse_text(c->default_sql, &perr);
	if (!pr)
		ty_error(UTIL_E_DATA_CORRUPTED, "default of column \"%s\" is not valid SQL: %s", c->name, perr.message);
	/* "SELECT <expr>" is how defaults are stored. */
	pnode *stmt = pr->n_stmts ? pr->stmts[0]->stmt : NULL;
	if (!stmt || stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT || stmt->select_stmt->n_target_list != 1) {
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_error(UTIL_E_DATA_CORRUPTED, "default of column \"%s\" is malformed", c->name);
	}
	sql_pstate *saved = ax->ps;
	sql_pstate dps = *saved;
	dps.text = c->default_sql;
	ax->ps = &dps;
	sql_query *dq = sql_new_query(ax, SQL_CMD_SELECT, NULL);
	sql_expr *e;
	TY_TRY(tc)
	{
		e = sql_transform_expr(ax, dq, stmt->select_stmt->target_list[0]->res_target->val, SQL_EXPR_DEFAULT);
		e = sql_coerce(ax, e, c->type, c->typmod, SQL_COERCE_ASSIGNMENT, -1);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ax->ps = saved;
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	saved->ncache = dps.ncache;
	saved->nexec_params = dps.nexec_params;
	ax->ps = saved;
	pg_query__parse_result__free_unpacked(pr, NULL);
	return e;
}

static int column_index(sql_actx *ax, const cat_rel *r, const char *name, int location)
{
	const cat_column *c = cat_column_by_name(r, name);
	if (!c)
		sql_error_at(ax, location, UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name,
			     r->name);
	return c->attnum - 1;
}

/* A target column by name: of the table, or through an updatable view to
 * its base column. */
static int target_column(sql_actx *ax, const cat_rel *r, const sql_view_target *vt, const char *name, int location,
			 const char *verb)
{
	if (!vt)
		return column_index(ax, r, name, location);
	for (int i = 0; i < vt->ncols; i++) {
		if (!vt->colnames[i] || strcmp(vt->colnames[i], name))
			continue;
		if (!vt->attnums[i]) {
			util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot %s column \"%s\" of view \"%s\"", verb,
						  name, vt->view->rel.name);
			util_err_detail(e, "View columns that are not columns of their base relation are not updatable.");
			(void)location; /* (PostgreSQL reports it from the rewriter: no position) */
			ty_errthrow();
		}
		return vt->attnums[i] - 1;
	}
	sql_error_at(ax, location, UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name,
		     vt->view->rel.name);
}

/* An assigned value coerced to its column (PostgreSQL's
 * transformAssignedExpr: 42804 with a hint when no assignment cast exists). */
static sql_expr *assign_coerce(sql_actx *ax, sql_expr *e, const cat_column *c, int location)
{
	if (e->type != c->type && e->type != TY_UNKNOWN && !sql_can_coerce(e->type, c->type, SQL_COERCE_ASSIGNMENT)) {
		util_buf ct = UTIL_BUF_INIT, et = UTIL_BUF_INIT;
		ty_format_type(c->type, -1, &ct);
		ty_format_type(e->type, -1, &et);
		util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "column \"%s\" is of type %s but expression is of type %s",
					   c->name, ct.data, et.data);
		util_buf_free(&ct);
		util_buf_free(&et);
		util_err_hint(er, "You will need to rewrite or cast the expression.");
		er->position = sql_errposition(ax->ps->text, e->location >= 0 ? e->location : location);
		ty_errthrow();
	}
	return sql_coerce(ax, e, c->type, c->typmod, SQL_COERCE_ASSIGNMENT, e->location >= 0 ? e->location : location);
}

/* SET col[i][j] = v / col[lo:hi] = arr: the new column value is the old
 * one with the subscripts assigned. */
static sql_expr *subscript_assign(sql_actx *ax, sql_query *q, const cat_rel *r, int col, PgQuery__ResTarget *rt,
				  sql_expr *val)
{
	const cat_column *c = &r->cols[col];
	const ty_type *t = ty_type_get(c->type);
	for (size_t i = 0; i < rt->n_indirection; i++)
		if (rt->indirection[i]->node_case != PG_QUERY__NODE__NODE_A_INDICES)
			sql_error_at(ax, rt->location, UTIL_E_FEATURE_NOT_SUPPORTED, "assignment to a field of a column is not supported");
	if (!t || !t->elem || t->category != 'A') {
		util_buf b = UTIL_BUF_INIT;
		ty_format_type(c->type, -1, &b);
		util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
					   "cannot subscript type %s because it does not support subscripting", b.data);
		util_buf_free(&b);
		er->position = sql_errposition(ax->ps->text, rt->location);
		ty_errthrow();
	}
	int n = (int)rt->n_indirection;
	bool slice = false;
	for (int i = 0; i < n; i++)
		slice |= rt->indirection[i]->a_indices->is_slice;
	sql_expr *e = sql_expr_new(SQL_E_ASSIGN, c->type, rt->location);
	e->typmod = c->typmod;
	e->f.nargs = 2 + 2 * n;
	e->f.args = ty_alloc0(sizeof(sql_expr *) * (size_t)e->f.nargs);
	e->f.args[0] = sql_make_var(q, q->result_rte, col, 0, rt->location);
	ty_oid vt = slice ? c->type : t->elem;
	if (val->type != vt && val->type != TY_UNKNOWN && !sql_can_coerce(val->type, vt, SQL_COERCE_ASSIGNMENT)) {
		util_buf ct = UTIL_BUF_INIT, et = UTIL_BUF_INIT;
		ty_format_type(vt, -1, &ct);
		ty_format_type(val->type, -1, &et);
		util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "subscripted assignment to \"%s\" requires type %s but expression is of type %s",
					   c->name, ct.data, et.data);
		util_buf_free(&ct);
		util_buf_free(&et);
		util_err_hint(er, "You will need to rewrite or cast the expression.");
		er->position = sql_errposition(ax->ps->text, val->location);
		ty_errthrow();
	}
	e->f.args[1] = sql_coerce(ax, val, vt, -1, SQL_COERCE_ASSIGNMENT, val->location);
	e->f.booltest = n;
	e->f.all = slice;
	for (int i = 0; i < n; i++) {
		PgQuery__AIndices *ai = rt->indirection[i]->a_indices;
		pnode *lo = ai->is_slice ? ai->lidx : NULL, *hi = ai->is_slice ? ai->uidx : ai->uidx ? ai->uidx : ai->lidx;
		sql_expr *le = lo ? sql_coerce(ax, sql_transform_expr(ax, q, lo, SQL_EXPR_UPDATE_SET), TY_INT4, -1, SQL_COERCE_ASSIGNMENT, -1)
				  : NULL;
		sql_expr *he = hi ? sql_coerce(ax, sql_transform_expr(ax, q, hi, SQL_EXPR_UPDATE_SET), TY_INT4, -1, SQL_COERCE_ASSIGNMENT, -1)
				  : NULL;
		if (!slice) {
			e->f.args[2 + 2 * i] = he;
		} else {
			e->f.args[2 + 2 * i] = ai->is_slice ? le : sql_expr_const(TY_INT4, -1, ty_int(1), -1);
			e->f.args[3 + 2 * i] = he;
		}
	}
	return e;
}

static sql_expr *and2(sql_expr *a, sql_expr *b)
{
	sql_expr *e = sql_expr_new(SQL_E_AND, TY_BOOL, -1);
	e->f.nargs = 2;
	e->f.args = ty_alloc(sizeof(sql_expr *) * 2);
	e->f.args[0] = a;
	e->f.args[1] = b;
	return e;
}

static void add_returning(sql_actx *ax, sql_query *q, PgQuery__Node **list, size_t n)
{
	if (!n)
		return;
	sql_query tmp = *q;
	tmp.targets = NULL;
	tmp.ntargets = tmp.nret = 0;
	sql_transform_targets(ax, &tmp, list, n, SQL_EXPR_RETURNING);
	for (int i = 0; i < tmp.ntargets; i++)
		if (tmp.targets[i].expr->type == TY_UNKNOWN)
			tmp.targets[i].expr = sql_coerce(ax, tmp.targets[i].expr, TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
	q->returning = tmp.targets;
	q->nreturning = tmp.ntargets;
	q->naggs = tmp.naggs;
	q->aggs = tmp.aggs;
	q->nrtes = tmp.nrtes;
	q->rtes = tmp.rtes;
	if (tmp.has_aggs)
		sql_error_at(ax, -1, UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed in RETURNING");
	/* RETURNING rows are the statement's result. */
	q->targets = tmp.targets;
	q->ntargets = tmp.ntargets;
	q->nret = tmp.nret;
}

static void check_identity(sql_actx *ax, const cat_rel *r, int col, bool overriding, int location)
{
	(void)ax;
	(void)location;
	if (r->cols[col].identity == 'a' && !overriding) {
		util_err *e = ty_errstart(UTIL_E_GENERATED_ALWAYS, "cannot insert a non-DEFAULT value into column \"%s\"",
					  r->cols[col].name);
		util_err_detail(e, "Column \"%s\" is an identity column defined as GENERATED ALWAYS.", r->cols[col].name);
		util_err_hint(e, "Use OVERRIDING SYSTEM VALUE to override.");
		ty_errthrow(); /* PostgreSQL reports no position here */
	}
	if (r->cols[col].generated == 's') {
		util_err *e = ty_errstart(UTIL_E_GENERATED_ALWAYS, "cannot insert a non-DEFAULT value into column \"%s\"",
					  r->cols[col].name);
		util_err_detail(e, "Column \"%s\" is a generated column.", r->cols[col].name);
		ty_errthrow();
	}
}

sql_query *sql_analyze_insert(sql_actx *ax, PgQuery__InsertStmt *st)
{
	sql_query *q = sql_new_query(ax, SQL_CMD_INSERT, NULL);
	if (st->with_clause)
		sql_transform_with(ax, q, st->with_clause);
	const cat_obj *rel = target_rel(ax, st->relation, "insert into");
	sql_jnode *j;
	const char *alias = st->relation->alias ? st->relation->alias->aliasname : NULL;
	sql_view_target vtb, *vt = NULL;
	if (rel->rel.relkind == CAT_RELKIND_VIEW) {
		vt = &vtb;
		q->result_rte = sql_add_view_target(ax, q, rel, alias, "insert into", vt);
		q->nview_inner = vt->ninner;
		q->view_inner = vt->inner;
		rel = vt->base;
		q->nview_checks = vt->nchecks;
		q->view_checks = vt->checks;
		q->view_check_names = vt->check_names;
		q->nns = 0; /* the VALUES/SELECT do not see the target */
	} else {
		q->result_rte = sql_add_table_rte(ax, q, rel, alias, &j);
	}
	const cat_rel *r = &rel->rel;
	q->overriding_system = st->override == PG_QUERY__OVERRIDING_KIND__OVERRIDING_SYSTEM_VALUE;
	/* Target columns. */
	int ncols = (int)st->n_cols;
	int16_t *cols;
	if (ncols) {
		cols = ty_alloc(sizeof(int16_t) * (size_t)ncols);
		for (int i = 0; i < ncols; i++) {
			PgQuery__ResTarget *rt = st->cols[i]->res_target;
			if (rt->n_indirection)
				sql_error_at(ax, rt->location, UTIL_E_FEATURE_NOT_SUPPORTED, "assignment to subscripts or fields is not supported");
			int c = target_column(ax, r, vt, rt->name, rt->location, "insert into");
			for (int k = 0; k < i; k++)
				if (cols[k] == c + 1)
					sql_error_at(ax, rt->location, UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once",
						     rt->name);
			cols[i] = (int16_t)(c + 1);
		}
	} else if (vt) {
		/* The view's columns in order; a computed one cannot take a value. */
		cols = ty_alloc(sizeof(int16_t) * (size_t)(vt->ncols ? vt->ncols : 1));
		for (int i = 0; i < vt->ncols; i++)
			cols[ncols++] = (int16_t)(vt->attnums[i] ? vt->attnums[i] : -1 - i);
	} else {
		cols = ty_alloc(sizeof(int16_t) * (size_t)(r->ncols ? r->ncols : 1));
		for (int i = 0; i < r->ncols; i++)
			if (!r->cols[i].dropped)
				cols[ncols++] = (int16_t)(i + 1);
	}
	pnode *src = st->select_stmt;
	struct sql_query *saved_hint = ax->hint_query;
	ax->hint_query = q;
	if (!src) {
		/* DEFAULT VALUES */
		q->ninsert_cols = 0;
		q->insert_cols = NULL;
	} else if (src->select_stmt->n_values_lists && src->select_stmt->op == PG_QUERY__SET_OPERATION__SETOP_NONE &&
		   !src->select_stmt->n_sort_clause && !src->select_stmt->limit_count) {
		/* VALUES: coerce each value to its column, DEFAULT allowed. */
		PgQuery__SelectStmt *vs = src->select_stmt;
		sql_query *vq = sql_new_query(ax, SQL_CMD_SELECT, NULL);
		vq->ctes = q->ctes;
		vq->nctes = q->nctes;
		int nrows = (int)vs->n_values_lists;
		sql_expr ***rows = ty_alloc(sizeof(sql_expr **) * (size_t)nrows);
		int width = -1;
		for (int rr = 0; rr < nrows; rr++) {
			PgQuery__List *l = vs->values_lists[rr]->list;
			int n = (int)l->n_items;
			if (width >= 0 && n != width)
				sql_error_at(ax, n ? sql_raw_location(l->items[0]) : -1, UTIL_E_SYNTAX_ERROR,
					     "VALUES lists must all be the same length");
			width = n;
			if (n > ncols)
				sql_error_at(ax, sql_raw_location(l->items[ncols]), UTIL_E_SYNTAX_ERROR,
					     "INSERT has more expressions than target columns");
			if (n < ncols && st->n_cols)
				sql_error_at(ax, st->cols[n]->res_target->location, UTIL_E_SYNTAX_ERROR,
					     "INSERT has more target columns than expressions");
			rows[rr] = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
			for (int c = 0; c < n; c++) {
				if (cols[c] < 0) /* a computed view column */
					(void)target_column(ax, r, vt, vt->colnames[-1 - cols[c]], sql_raw_location(l->items[c]), "insert into");
				int col = cols[c] - 1;
				sql_expr *e = sql_transform_expr(ax, vq, l->items[c], SQL_EXPR_INSERT_VALUES);
				if (e->kind == SQL_E_DEFAULT) {
					e = sql_column_default(ax, r, col);
				} else {
					check_identity(ax, r, col, q->overriding_system, e->location);
					e = assign_coerce(ax, e, &r->cols[col], e->location);
				}
				rows[rr][c] = e;
			}
		}
		ncols = width;
		if (vq->has_aggs)
			sql_error_at(ax, -1, UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed in VALUES");
		sql_rte *rt = ty_alloc0(sizeof *rt);
		rt->kind = SQL_RTE_VALUES;
		snprintf(rt->alias, sizeof rt->alias, "*VALUES*");
		rt->ncols = ncols;
		rt->colnames = ty_alloc0(sizeof(char *) * (size_t)(ncols ? ncols : 1));
		rt->coltypes = ty_alloc0(sizeof(ty_oid) * (size_t)(ncols ? ncols : 1));
		rt->coltypmods = ty_alloc0(sizeof(int32_t) * (size_t)(ncols ? ncols : 1));
		rt->used = ty_alloc0(sizeof(bool) * (size_t)(ncols ? ncols : 1));
		for (int c = 0; c < ncols; c++) {
			rt->colnames[c] = "column";
			rt->coltypes[c] = r->cols[cols[c] - 1].type;
			rt->coltypmods[c] = r->cols[cols[c] - 1].typmod;
		}
		rt->rows = rows;
		rt->nrows = nrows;
		vq->rtes = ty_alloc(sizeof(sql_rte *));
		vq->rtes[0] = rt;
		vq->nrtes = 1;
		vq->from = ty_alloc(sizeof(sql_jnode *));
		vq->from[0] = ty_alloc0(sizeof(sql_jnode));
		vq->from[0]->rte = 1;
		vq->nfrom = 1;
		vq->is_values = true;
		for (int c = 0; c < ncols; c++) {
			sql_expr *v = sql_expr_new(SQL_E_VAR, rt->coltypes[c], -1);
			v->typmod = rt->coltypmods[c];
			v->var.rte = 1;
			v->var.col = c;
			sql_add_query_target(vq, v, "column", false);
		}
		q->source = vq;
		q->ninsert_cols = ncols;
		q->insert_cols = cols;
	} else {
		sql_query *sq = sql_analyze_select(ax, src->select_stmt, NULL, q->ctes, q->nctes);
		if (sq->nret > ncols)
			sql_error_at(ax, sq->targets[ncols].expr->location, UTIL_E_SYNTAX_ERROR,
				     "INSERT has more expressions than target columns");
		if (sq->nret < ncols && st->n_cols)
			sql_error_at(ax, st->cols[sq->nret]->res_target->location, UTIL_E_SYNTAX_ERROR,
				     "INSERT has more target columns than expressions");
		ncols = sq->nret;
		for (int i = 0, k = 0; i < sq->ntargets; i++) {
			sql_target *t = &sq->targets[i];
			if (t->junk)
				continue;
			if (cols[k] < 0)
				(void)target_column(ax, r, vt, vt->colnames[-1 - cols[k]], t->expr->location, "insert into");
			int col = cols[k++] - 1;
			check_identity(ax, r, col, q->overriding_system, t->expr->location);
			t->expr = assign_coerce(ax, t->expr, &r->cols[col], t->expr->location);
		}
		q->source = sq;
		q->ninsert_cols = ncols;
		q->insert_cols = cols;
	}
	ax->hint_query = saved_hint;
	/* RETURNING and ON CONFLICT see the target table by its name (through
	 * a view: the view's columns). */
	sql_add_namespace(q, vt ? vt->view_rte : q->result_rte, true, true);
	if (st->on_conflict_clause)
		sql_transform_onconflict(ax, q, rel, vt, st->on_conflict_clause);
	add_returning(ax, q, st->returning_list, st->n_returning_list);
	return q;
}

/* SET (a, b) = (SELECT x, y ...): a sublink giving the subquery's one row
 * as a record; each column takes its field. */
static sql_expr *multi_assign_source(sql_actx *ax, sql_query *q, PgQuery__SubLink *sl, int ncolumns)
{
	sql_query *sq = sql_analyze_select(ax, sl->subselect->select_stmt, q, q->ctes, q->nctes);
	if (sq->nret != ncolumns)
		sql_error_at(ax, sl->location, UTIL_E_SYNTAX_ERROR, "number of columns does not match number of values");
	for (int i = 0; i < sq->ntargets; i++)
		if (!sq->targets[i].junk && sq->targets[i].expr->type == TY_UNKNOWN)
			sq->targets[i].expr = sql_coerce(ax, sq->targets[i].expr, TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
	sql_expr *e = sql_expr_new(SQL_E_SUBLINK, TY_RECORD, sl->location);
	e->sub.query = sq;
	e->sub.kind = SQL_SUB_MULTIEXPR;
	return e;
}

/* The SET list of UPDATE and ON CONFLICT DO UPDATE (PostgreSQL's
 * transformUpdateTargetList, with multiple-column items): fills cols
 * (attnums) and exprs (coerced to the columns), each with room for n, and
 * returns how many. */
int sql_analyze_set_list(sql_actx *ax, sql_query *q, const cat_rel *r, const sql_view_target *vt, PgQuery__Node **list,
			 size_t n, int16_t *cols, sql_expr **exprs, const char *verb)
{
	int nset = 0;
	sql_expr *multi = NULL; /* SET (a, b) = (SELECT ...): the row-valued sublink */
	for (size_t i = 0; i < n; i++) {
		PgQuery__ResTarget *rt = list[i]->res_target;
		int col = target_column(ax, r, vt, rt->name, rt->location, verb);
		sql_expr *e;
		if (rt->val->node_case == PG_QUERY__NODE__NODE_MULTI_ASSIGN_REF) {
			PgQuery__MultiAssignRef *ma = rt->val->multi_assign_ref;
			pnode *source = ma->source;
			if (ma->colno == 1)
				multi = NULL;
			if (source && source->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
				if ((int)source->row_expr->n_args != ma->ncolumns)
					sql_error_at(ax, source->row_expr->location, UTIL_E_SYNTAX_ERROR,
						     "number of columns does not match number of values");
				e = sql_transform_expr(ax, q, source->row_expr->args[ma->colno - 1], SQL_EXPR_UPDATE_SET);
			} else {
				if (!multi) {
					if (!source || source->node_case != PG_QUERY__NODE__NODE_SUB_LINK)
						sql_error_at(ax, source ? sql_raw_location(source) : rt->location, UTIL_E_FEATURE_NOT_SUPPORTED,
							     "source for a multiple-column UPDATE item must be a sub-SELECT or ROW() expression");
					multi = multi_assign_source(ax, q, source->sub_link, ma->ncolumns);
				}
				e = sql_expr_new(SQL_E_FIELD, TY_UNKNOWN, rt->location);
				e->field.arg = multi;
				e->field.field = ma->colno - 1;
				const sql_target *mt = NULL;
				for (int t = 0, k = 0; t < multi->sub.query->ntargets && !mt; t++)
					if (!multi->sub.query->targets[t].junk && k++ == ma->colno - 1)
						mt = &multi->sub.query->targets[t];
				e->type = mt->expr->type;
				e->typmod = mt->expr->typmod;
			}
		} else {
			e = sql_transform_expr(ax, q, rt->val, SQL_EXPR_UPDATE_SET);
		}
		if (rt->n_indirection) {
			if (e->kind == SQL_E_DEFAULT)
				sql_error_at(ax, e->location, UTIL_E_FEATURE_NOT_SUPPORTED, "DEFAULT in a subscripted assignment is not supported");
			/* a[1] = x, a[2] = y: each assignment applies to the result of the previous */
			for (int k = 0; k < nset; k++)
				if (cols[k] == col + 1)
					sql_error_at(ax, rt->location, UTIL_E_DUPLICATE_COLUMN, "multiple assignments to same column \"%s\"",
						     rt->name);
			e = subscript_assign(ax, q, r, col, rt, e);
		}
		if (e->kind == SQL_E_DEFAULT) {
			e = sql_column_default(ax, r, col);
		} else {
			if (r->cols[col].identity == 'a') {
				util_err *er = ty_errstart(UTIL_E_GENERATED_ALWAYS, "column \"%s\" can only be updated to DEFAULT",
							   r->cols[col].name);
				util_err_detail(er, "Column \"%s\" is an identity column defined as GENERATED ALWAYS.", r->cols[col].name);
				ty_errthrow(); /* PostgreSQL's rewriter reports it: no position */
			}
			e = assign_coerce(ax, e, &r->cols[col], rt->location);
		}
		if (q->has_aggs)
			sql_error_at(ax, rt->location, UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed in UPDATE");
		cols[nset] = (int16_t)(col + 1);
		exprs[nset++] = e;
	}
	/* As PostgreSQL's rewriter: after analysis, 42601 without a position. */
	for (int i = 1; i < nset; i++)
		for (int k = 0; k < i; k++)
			if (cols[k] == cols[i] && !list[i]->res_target->n_indirection)
				ty_error(UTIL_E_SYNTAX_ERROR, "multiple assignments to same column \"%s\"",
					 list[i]->res_target->name);
	return nset;
}

/* UPDATE's and DELETE's target (a table, or an automatically updatable
 * view: then *vt points at vtb and the view's base table is returned),
 * their FROM or USING items and WHERE (and the view's condition) into q. */
static const cat_obj *target_from_where(sql_actx *ax, sql_query *q, PgQuery__RangeVar *relation,
					const char *verb, PgQuery__Node **from, size_t nfrom,
					PgQuery__Node *where, sql_view_target *vtb, sql_view_target **vt)
{
	const cat_obj *rel = target_rel(ax, relation, verb);
	sql_jnode *j;
	const char *alias = relation->alias ? relation->alias->aliasname : NULL;
	*vt = NULL;
	if (rel->rel.relkind == CAT_RELKIND_VIEW) {
		*vt = vtb;
		q->result_rte = sql_add_view_target(ax, q, rel, alias, verb, vtb);
		q->nview_inner = vtb->ninner;
		q->view_inner = vtb->inner;
		rel = vtb->base;
		j = q->from[0];
	} else {
		q->result_rte = sql_add_table_rte(ax, q, rel, alias, &j);
		sql_add_namespace(q, q->result_rte, true, true);
	}
	q->from = ty_alloc(sizeof(sql_jnode *) * (nfrom + 1));
	q->nfrom = 0;
	q->from[q->nfrom++] = j;
	for (size_t i = 0; i < nfrom; i++) {
		sql_jnode *fj;
		sql_add_from_item(ax, q, from[i], &fj);
		q->from[q->nfrom++] = fj;
	}
	if (where)
		q->where = sql_coerce_bool(ax, sql_transform_expr(ax, q, where, SQL_EXPR_WHERE), "WHERE");
	if (*vt && vtb->where)
		q->where = q->where ? and2(vtb->where, q->where) : vtb->where;
	return rel;
}

sql_query *sql_analyze_update(sql_actx *ax, PgQuery__UpdateStmt *st)
{
	sql_query *q = sql_new_query(ax, SQL_CMD_UPDATE, NULL);
	if (st->with_clause)
		sql_transform_with(ax, q, st->with_clause);
	sql_view_target vtb, *vt;
	const cat_obj *rel = target_from_where(ax, q, st->relation, "update", st->from_clause,
					       st->n_from_clause, st->where_clause, &vtb, &vt);
	if (vt) { /* WITH CHECK OPTION: UPDATE only (DELETE adds no row) */
		q->nview_checks = vt->nchecks;
		q->view_checks = vt->checks;
		q->view_check_names = vt->check_names;
	}
	const cat_rel *r = &rel->rel;
	/* SET */
	q->set_cols = ty_alloc(sizeof(int16_t) * (st->n_target_list ? st->n_target_list : 1));
	q->set_exprs = ty_alloc(sizeof(sql_expr *) * (st->n_target_list ? st->n_target_list : 1));
	int nset = sql_analyze_set_list(ax, q, r, vt, st->target_list, st->n_target_list, q->set_cols, q->set_exprs,
					"update");
	q->nset = nset;
	add_returning(ax, q, st->returning_list, st->n_returning_list);
	return q;
}

sql_query *sql_analyze_delete(sql_actx *ax, PgQuery__DeleteStmt *st)
{
	sql_query *q = sql_new_query(ax, SQL_CMD_DELETE, NULL);
	if (st->with_clause)
		sql_transform_with(ax, q, st->with_clause);
	sql_view_target vtb, *vt;
	(void)target_from_where(ax, q, st->relation, "delete from", st->using_clause, st->n_using_clause,
				st->where_clause, &vtb, &vt);
	if (q->has_aggs)
		sql_error_at(ax, -1, UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed in WHERE");
	add_returning(ax, q, st->returning_list, st->n_returning_list);
	(void)str_of;
	return q;
}
