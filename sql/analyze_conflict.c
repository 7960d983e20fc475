/*
 * analyze_conflict.c — INSERT's ON CONFLICT clause: which unique index or
 * constraint arbitrates (PostgreSQL's transformOnConflictArbiter and the
 * planner's infer_arbiter_indexes, with their errors), and the DO UPDATE
 * part (EXCLUDED, SET list, WHERE).
 */
#include <string.h>

#include "plan_int.h"
#include "sql_index.h"
#include "sql_int.h"

/* The inference specification, analyzed: plain columns and expressions. */
typedef struct infer_spec {
	int n;
	int16_t *attnums; /* per element: attnum, or 0 for an expression */
	sql_expr **exprs; /* per element: the expression over the target */
	bool collated;    /* an element names a collation PostgreSQL would compare */
	sql_expr **quals; /* the WHERE's conjuncts (partial indexes) */
	int nquals;
} infer_spec;

static bool has_attnum(const int16_t *a, int n, int16_t attnum)
{
	for (int i = 0; i < n; i++)
		if (a[i] == attnum)
			return true;
	return false;
}

/* Do the plain columns of the spec and of an index (keys) form the same
 * set? Duplicates on either side do not count, as in PostgreSQL. */
static bool same_column_set(const infer_spec *sp, const int16_t *keys, int nkeys)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->attnums[i] && !has_attnum(keys, nkeys, sp->attnums[i]))
			return false;
	for (int k = 0; k < nkeys; k++)
		if (keys[k] && !has_attnum(sp->attnums, sp->n, keys[k]))
			return false;
	return true;
}

/* Does a compiled unique index match the spec: the same columns, the same
 * expressions, and (partial index) a predicate the WHERE implies? */
static bool index_matches(const infer_spec *sp, const sql_ix *x, int rte)
{
	if (!same_column_set(sp, x->key_attnum, x->nkeys))
		return false;
	/* Every expression of the spec is a key expression of the index ... */
	for (int i = 0; i < sp->n; i++) {
		if (sp->attnums[i])
			continue;
		bool found = false;
		for (int k = 0; k < x->nkeys && !found; k++)
			found = !x->key_attnum[k] && sql_expr_equal(sp->exprs[i], sql_ix_key_expr(x, k, rte));
		if (!found)
			return false;
	}
	/* ... and every key expression is in the spec. */
	for (int k = 0; k < x->nkeys; k++) {
		if (x->key_attnum[k])
			continue;
		sql_expr *ke = sql_ix_key_expr(x, k, rte);
		bool found = false;
		for (int i = 0; i < sp->n && !found; i++)
			found = !sp->attnums[i] && sql_expr_equal(sp->exprs[i], ke);
		if (!found)
			return false;
	}
	return sql_ix_predicate_implied(x, rte, sp->quals, sp->nquals);
}

/* The constraint enforced by an index object, or NULL. */
static const cat_constraint *constraint_of_index(const cat_rel *r, cat_oid index)
{
	for (int c = 0; c < r->ncons; c++)
		if ((r->cons[c].type == 'p' || r->cons[c].type == 'u') && r->cons[c].index_oid == index)
			return &r->cons[c];
	return NULL;
}

static const cat_constraint *primary_key(const cat_rel *r)
{
	for (int c = 0; c < r->ncons; c++)
		if (r->cons[c].type == 'p')
			return &r->cons[c];
	return NULL;
}

/* A column of the target by name: of the table, or (through a view) the
 * view's column as its base column or, when computed, its expression. */
static void spec_column(sql_actx *ax, sql_query *q, const cat_rel *r, const sql_view_target *vt,
			const char *name, int location, int16_t *attnum, sql_expr **expr)
{
	if (vt) {
		for (int i = 0; i < vt->ncols; i++) {
			if (!vt->colnames[i] || strcmp(vt->colnames[i], name) != 0)
				continue;
			*attnum = vt->attnums[i];
			*expr = sql_expr_copy(q->rtes[vt->view_rte - 1]->joinvars[i]);
			return;
		}
	} else {
		const cat_column *c = cat_column_by_name(r, name);
		if (c && !c->dropped) {
			*attnum = c->attnum;
			*expr = sql_make_var(q, q->result_rte, c->attnum - 1, 0, location);
			return;
		}
	}
	/* PostgreSQL makes a column reference located at the inference
	 * clause. */
	sql_error_at(ax, location, UTIL_E_UNDEFINED_COLUMN, "column \"%s\" does not exist", name);
}

static void analyze_spec(sql_actx *ax, sql_query *q, const cat_rel *r, const sql_view_target *vt,
			 PgQuery__InferClause *ic, infer_spec *sp)
{
	sp->n = (int)ic->n_index_elems;
	sp->attnums = ty_alloc0(sizeof(int16_t) * (size_t)(sp->n ? sp->n : 1));
	sp->exprs = ty_alloc0(sizeof(sql_expr *) * (size_t)(sp->n ? sp->n : 1));
	for (int i = 0; i < sp->n; i++) {
		PgQuery__IndexElem *ie = ic->index_elems[i]->index_elem;
		if (ie->ordering != PG_QUERY__SORT_BY_DIR__SORTBY_DEFAULT)
			sql_error_at(ax, ic->location, UTIL_E_INVALID_COLUMN_REFERENCE,
				     "ASC/DESC is not allowed in ON CONFLICT clause");
		if (ie->nulls_ordering != PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_DEFAULT)
			sql_error_at(ax, ic->location, UTIL_E_INVALID_COLUMN_REFERENCE,
				     "NULLS FIRST/LAST is not allowed in ON CONFLICT clause");
		if (ie->name && *ie->name) {
			spec_column(ax, q, r, vt, ie->name, ic->location, &sp->attnums[i], &sp->exprs[i]);
		} else {
			sql_expr_ctx saved = q->cur_ctx;
			q->cur_ctx = SQL_EXPR_INDEX;
			sp->exprs[i] = sql_transform_expr(ax, q, ie->expr, SQL_EXPR_INDEX);
			q->cur_ctx = saved;
			if (sp->exprs[i]->kind == SQL_E_VAR && sp->exprs[i]->var.levelsup == 0 &&
			    sp->exprs[i]->var.rte == q->result_rte)
				sp->attnums[i] = (int16_t)(sp->exprs[i]->var.col + 1);
		}
		/* Strata's indexes carry no collation: one named explicitly
		 * never matches, as PostgreSQL's default collation would not. */
		for (size_t k = 0; k < ie->n_collation; k++) {
			pnode *cn = ie->collation[k];
			if (cn->node_case == PG_QUERY__NODE__NODE_STRING &&
			    strcmp(cn->string->sval, "default") != 0)
				sp->collated = true;
		}
	}
	if (ic->where_clause) {
		/* Not coerced to boolean: PostgreSQL only looks for an index
		 * predicate it implies. */
		sql_expr_ctx saved = q->cur_ctx;
		q->cur_ctx = SQL_EXPR_INDEX_PRED;
		sql_expr *w = sql_transform_expr(ax, q, ic->where_clause, SQL_EXPR_INDEX_PRED);
		q->cur_ctx = saved;
		sp->nquals = sql_conjuncts(w, &sp->quals);
	}
}

/* ON CONFLICT ON CONSTRAINT name. */
static void arbiter_by_name(const cat_rel *r, const char *conname, sql_onconflict *o)
{
	const cat_constraint *c = cat_constraint_by_name(r, conname);
	if (!c)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist",
			 conname, r->name);
	if (c->type != 'p' && c->type != 'u') {
		/* PostgreSQL's planner reports it: when the statement runs. */
		o->infer_errcode = UTIL_E_WRONG_OBJECT_TYPE;
		o->infer_error = "constraint in ON CONFLICT clause has no associated index";
		return;
	}
	o->narbiter = c->ncols;
	o->arbiter = c->cols;
	o->arbiter_index = c->type == 'p' ? 0 : c->index_oid;
	o->arbiter_deferrable = c->deferrable;
	o->arbiter_name = c->name;
}

/* ON CONFLICT (cols or expressions) [WHERE ...]: the primary key or a
 * unique index that matches (PostgreSQL arbitrates on every match; the
 * primary key is preferred here, which decides the same conflicts). */
static void infer_arbiter(sql_actx *ax, sql_query *q, const cat_obj *rel, const sql_view_target *vt,
			  PgQuery__InferClause *ic, sql_onconflict *o)
{
	const cat_rel *r = &rel->rel;
	infer_spec sp = {0};
	analyze_spec(ax, q, r, vt, ic, &sp);
	bool found = false;
	const cat_constraint *pk = primary_key(r);
	if (!sp.collated && pk && same_column_set(&sp, pk->cols, pk->ncols)) {
		bool plain = true;
		for (int i = 0; i < sp.n; i++)
			plain &= sp.attnums[i] != 0;
		if (plain) {
			found = true;
			o->arbiter_index = 0;
			o->arbiter_deferrable = pk->deferrable;
			o->arbiter_name = pk->name;
		}
	}
	for (int i = 0; i < r->nindexes && !found && !sp.collated; i++) {
		const cat_obj *ixo = cat_get(ax->cat, r->indexes[i]);
		if (!ixo || !ixo->rel.index || !ixo->rel.index->unique || ixo->rel.index->primary ||
		    ixo->rel.index->state != CAT_INDEX_PUBLIC)
			continue;
		sql_ix *x = sql_ix_compile(ax->s, ax->cat, ixo, ax->ps);
		if (!index_matches(&sp, x, q->result_rte))
			continue;
		found = true;
		const cat_constraint *c = constraint_of_index(r, ixo->oid);
		o->arbiter_index = ixo->oid;
		o->arbiter_deferrable = c && c->deferrable;
		o->arbiter_name = c ? c->name : ixo->rel.name;
	}
	if (!found) {
		/* PostgreSQL's planner reports it: when the statement runs (a
		 * PREPARE succeeds, errors of the rest of the statement come
		 * first). */
		o->infer_errcode = UTIL_E_INVALID_COLUMN_REFERENCE;
		o->infer_error =
		    "there is no unique or exclusion constraint matching the ON CONFLICT specification";
	}
	o->narbiter = sp.n;
	o->arbiter = sp.attnums;
}

/* EXCLUDED through a view: the view's columns over a second, hidden copy
 * of the base table (the proposed row). Returns the copy's RTE; *view_rte
 * the RTE visible as "excluded". */
static int excluded_view(sql_actx *ax, sql_query *q, const sql_view_target *vt, int *view_rte)
{
	sql_jnode **from = q->from;
	int nfrom = q->nfrom;
	sql_view_target xv;
	int ex = sql_add_view_target(ax, q, vt->view, "excluded", "insert into", &xv);
	q->from = from; /* (sql_add_view_target makes the base the FROM) */
	q->nfrom = nfrom;
	*view_rte = xv.view_rte;
	return ex;
}

void sql_transform_onconflict(sql_actx *ax, sql_query *q, const cat_obj *rel, const sql_view_target *vt,
			      PgQuery__OnConflictClause *oc)
{
	const cat_rel *r = &rel->rel;
	sql_onconflict *o = ty_alloc0(sizeof *o);
	o->do_update = oc->action == PG_QUERY__ON_CONFLICT_ACTION__ONCONFLICT_UPDATE;
	if (!oc->infer && o->do_update) {
		util_err *e =
		    ty_errstart(UTIL_E_SYNTAX_ERROR,
				"ON CONFLICT DO UPDATE requires inference specification or constraint name");
		util_err_hint(e, "For example, ON CONFLICT (column_name).");
		e->position = sql_errposition(ax->ps->text, oc->location);
		ty_errthrow();
	}
	if (oc->infer && oc->infer->conname && *oc->infer->conname)
		arbiter_by_name(r, oc->infer->conname, o);
	else if (oc->infer)
		infer_arbiter(ax, q, rel, vt, oc->infer, o);
	if (o->do_update) {
		/* EXCLUDED: the proposed row, visible by name beside the target. */
		int ex, visible;
		if (vt) {
			ex = excluded_view(ax, q, vt, &visible);
		} else {
			sql_jnode *j;
			ex = visible = sql_add_table_rte(ax, q, rel, "excluded", &j);
			sql_add_namespace(q, ex, true, false);
		}
		for (int i = 0; i < q->nns; i++) /* by name only: unqualified names are the target's */
			if (q->ns[i].rte == visible)
				q->ns[i].cols_visible = false;
		o->excluded_rte = ex;
		size_t n = oc->n_target_list ? oc->n_target_list : 1;
		o->set_cols = ty_alloc(sizeof(int16_t) * n);
		o->set_exprs = ty_alloc(sizeof(sql_expr *) * n);
		o->nset = sql_analyze_set_list(ax, q, r, vt, oc->target_list, oc->n_target_list, o->set_cols,
					       o->set_exprs, "insert into");
		if (oc->where_clause)
			o->where = sql_coerce_bool(
			    ax, sql_transform_expr(ax, q, oc->where_clause, SQL_EXPR_WHERE), "WHERE");
		/* EXCLUDED is visible to DO UPDATE only (RETURNING: 42P01). */
		for (int i = 0; i < q->nns; i++)
			if (q->ns[i].rte == visible)
				q->ns[i].rel_visible = q->ns[i].cols_visible = false;
	}
	q->onconflict = o;
}
