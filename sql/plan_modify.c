/*
 * plan_modify.c — the INSERT/UPDATE/DELETE plan node: the input (source
 * rows, or the target rows selected by WHERE/FROM/USING), the new value of
 * every column (defaults included), CHECK constraints, ON CONFLICT and
 * RETURNING, all resolved to input slots.
 */
#include <string.h>

#include "plan_int.h"

sql_plan *sql_plan_select_internal(sql_planner *pl, sql_query *q, sql_tlist **tl_out);
sql_plan *sql_plan_from_internal(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals, sql_tlist **tl_out);

/* The target table's row (all columns + key) as Vars of rte. */
static sql_tlist *row_tlist(const cat_rel *r, int rte)
{
	sql_tlist *tl = sql_tl_new();
	for (int c = 0; c <= r->ncols; c++) {
		sql_expr *v = sql_expr_new(SQL_E_VAR, c < r->ncols ? r->cols[c].type : TY_BYTEA, -1);
		v->typmod = c < r->ncols ? r->cols[c].typmod : -1;
		v->var.rte = rte;
		v->var.col = c;
		sql_tl_add(tl, v);
	}
	return tl;
}

/* CHECK constraints of the table, as expressions over its row. */
static void plan_checks(sql_planner *pl, sql_query *q, sql_plan *m, const cat_obj *rel)
{
	const cat_rel *r = &rel->rel;
	int n = 0;
	for (int i = 0; i < r->ncons; i++)
		n += r->cons[i].type == 'c';
	if (!n)
		return;
	m->modify.checks = ty_alloc(sizeof(sql_expr *) * (size_t)n);
	m->modify.check_names = ty_alloc(sizeof(char *) * (size_t)n);
	sql_tlist *rowtl = row_tlist(r, q->result_rte);
	sql_actx *ax = pl->ax;
	for (int i = 0; i < r->ncons; i++) {
		const cat_constraint *c = &r->cons[i];
		if (c->type != 'c')
			continue;
		util_err perr;
		PgQuery__ParseResult *pr = sql_parse_text(c->check_sql, &perr);
		if (!pr)
			ty_error(UTIL_E_DATA_CORRUPTED, "check constraint \"%s\" is not valid SQL", c->name);
		sql_pstate *saved = ax->ps;
		sql_pstate cps = *saved;
		cps.text = c->check_sql;
		ax->ps = &cps;
		sql_query *cq = sql_new_query(ax, SQL_CMD_SELECT, NULL);
		cq->rtes = q->rtes;
		cq->nrtes = q->nrtes;
		sql_add_namespace(cq, q->result_rte, true, true);
		sql_expr *e;
		TY_TRY(tc)
		{
			e = sql_transform_expr(ax, cq, pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val,
					       SQL_EXPR_CHECK);
			e = sql_coerce_bool(ax, e, "CHECK");
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			ax->ps = saved;
			pg_query__parse_result__free_unpacked(pr, NULL);
			ty_errthrow();
		}
		TY_END(tc);
		saved->ncache = cps.ncache;
		ax->ps = saved;
		pg_query__parse_result__free_unpacked(pr, NULL);
		sql_query *saved_q = pl->q;
		pl->q = cq;
		m->modify.checks[m->modify.nchecks] = sql_set_refs(pl, sql_plan_prep(pl, e), rowtl);
		pl->q = saved_q;
		m->modify.check_names[m->modify.nchecks++] = c->name;
	}
}

static bool has_sublink(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_SUBLINK;
}

/* The WHERE conjuncts that a newer version of a target row can be
 * rechecked against on its own (PostgreSQL's EvalPlanQual, simplified):
 * those referencing only the target table and no subqueries. Copies, so
 * planning them does not disturb the scan's. */
static sql_expr *epq_quals(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals)
{
	sql_expr **keep = ty_alloc(sizeof(sql_expr *) * (size_t)(nquals ? nquals : 1));
	int n = 0;
	bool *rtes = ty_alloc(sizeof(bool) * (size_t)(q->nrtes ? q->nrtes : 1));
	for (int i = 0; i < nquals; i++) {
		memset(rtes, 0, sizeof(bool) * (size_t)q->nrtes);
		sql_expr_rtes(quals[i], rtes, q->nrtes);
		bool only_target = true;
		for (int k = 0; k < q->nrtes; k++)
			if (rtes[k] && k != q->result_rte - 1)
				only_target = false;
		if (only_target && !sql_expr_walk(quals[i], has_sublink, NULL))
			keep[n++] = sql_expr_copy(quals[i]);
	}
	(void)pl;
	if (n == 0)
		return NULL;
	return n == 1 ? keep[0] : sql_make_and(keep, n);
}

sql_plan *sql_plan_modify(sql_planner *pl, sql_query *q, sql_tlist **tl_out)
{
	sql_rte *trte = q->rtes[q->result_rte - 1];
	const cat_obj *rel = trte->rel;
	const cat_rel *r = &rel->rel;
	sql_tlist *in_tl;
	sql_plan *in;
	sql_expr *epq = NULL;
	if (q->cmd == SQL_CMD_INSERT) {
		if (q->source) {
			sql_planner sub = {pl->ax, pl->top, NULL, q->source, 0};
			in = sql_plan_select_internal(&sub, q->source, &in_tl);
		} else {
			in_tl = sql_tl_new();
			in = sql_new_node(pl, SQL_P_RESULT, in_tl);
			in->rows = 1;
		}
	} else {
		/* UPDATE/DELETE read every column of the target (new row, indexes,
		 * constraints need them). */
		for (int c = 0; c < trte->ncols; c++)
			trte->used[c] = true;
		sql_expr **quals;
		int nquals = sql_conjuncts(q->where, &quals);
		epq = epq_quals(pl, q, quals, nquals);
		in = sql_plan_from_internal(pl, q, quals, nquals, &in_tl);
	}
	sql_plan *m = sql_plan_new(SQL_P_MODIFY, 0);
	m->id = pl->top->nnodes++;
	m->left = in;
	m->modify.cmd = q->cmd;
	m->modify.rel = rel;
	m->modify.reloid = rel->oid;
	m->modify.nnew = r->ncols;
	m->modify.new_vals = ty_alloc0(sizeof(sql_expr *) * (size_t)(r->ncols ? r->ncols : 1));
	sql_tlist *empty = sql_tl_new();
	if (q->cmd == SQL_CMD_INSERT) {
		for (int c = 0; c < r->ncols; c++) {
			if (r->cols[c].dropped) {
				m->modify.new_vals[c] = sql_expr_const(r->cols[c].type, -1, ty_null(), -1);
				continue;
			}
			int k = -1;
			for (int i = 0; i < q->ninsert_cols; i++)
				if (q->insert_cols[i] == c + 1)
					k = i;
			if (k >= 0) {
				sql_expr *s = sql_expr_new(SQL_E_SLOT, r->cols[c].type, -1);
				s->typmod = r->cols[c].typmod;
				s->slot = k;
				m->modify.new_vals[c] = s;
			} else {
				m->modify.new_vals[c] = sql_set_refs(pl, sql_plan_prep(pl, sql_column_default(pl->ax, r, c)), empty);
			}
		}
	} else {
		m->modify.old_slots = ty_alloc(sizeof(int) * (size_t)(r->ncols ? r->ncols : 1));
		sql_tlist *rowtl = row_tlist(r, q->result_rte);
		for (int c = 0; c < r->ncols; c++) {
			sql_expr *old = sql_set_refs(pl, rowtl->items[c], in_tl);
			m->modify.old_slots[c] = old->slot;
			m->modify.new_vals[c] = old;
		}
		m->modify.key_slot = sql_set_refs(pl, rowtl->items[r->ncols], in_tl)->slot;
		if (epq)
			m->modify.epq_qual = sql_set_refs(pl, sql_plan_prep(pl, epq), rowtl);
		for (int i = 0; i < q->nset; i++) {
			int c = q->set_cols[i] - 1;
			m->modify.new_vals[c] = sql_set_refs(pl, sql_plan_prep(pl, q->set_exprs[i]), in_tl);
			for (int k = 0; k < r->npk; k++)
				if (r->pk[k] == c + 1)
					m->modify.pk_changes = true;
		}
	}
	if (q->cmd != SQL_CMD_DELETE)
		plan_checks(pl, q, m, rel);
	/* Through views WITH CHECK OPTION: their conditions, over the new row. */
	if (q->cmd != SQL_CMD_DELETE && q->nview_checks) {
		sql_tlist *rowtl = row_tlist(r, q->result_rte);
		m->modify.vchecks = ty_alloc(sizeof(sql_expr *) * (size_t)q->nview_checks);
		for (int i = 0; i < q->nview_checks; i++)
			m->modify.vchecks[i] =
			    sql_set_refs(pl, sql_plan_prep(pl, sql_expr_copy(q->view_checks[i])), rowtl);
		m->modify.vcheck_names = q->view_check_names;
		m->modify.nvchecks = q->nview_checks;
	}
	/* ON CONFLICT: expressions over (existing row) ++ (excluded row). */
	if (q->onconflict) {
		sql_onconflict *oc = q->onconflict;
		m->modify.oc = oc;
		if (oc->do_update) {
			sql_tlist *both = sql_tl_concat(row_tlist(r, q->result_rte), row_tlist(r, oc->excluded_rte));
			m->modify.oc_set = ty_alloc(sizeof(sql_expr *) * (size_t)(oc->nset ? oc->nset : 1));
			for (int i = 0; i < oc->nset; i++)
				m->modify.oc_set[i] = sql_set_refs(pl, sql_plan_prep(pl, oc->set_exprs[i]), both);
			m->modify.oc_where = sql_set_refs(pl, sql_plan_prep(pl, oc->where), both);
		}
	}
	/* RETURNING: (the row written or deleted, with its key) ++ input. */
	sql_tlist *rtl = sql_tl_concat(row_tlist(r, q->result_rte), q->cmd == SQL_CMD_INSERT ? sql_tl_new() : in_tl);
	sql_tlist *out = sql_tl_new();
	if (q->nreturning) {
		m->modify.nreturning = q->nreturning;
		m->modify.returning = ty_alloc(sizeof(sql_expr *) * (size_t)q->nreturning);
		for (int i = 0; i < q->nreturning; i++) {
			m->modify.returning[i] = sql_set_refs(pl, sql_plan_prep(pl, q->returning[i].expr), rtl);
			sql_tl_add(out, q->returning[i].expr);
		}
	}
	m->ncols = out->n;
	m->types = ty_alloc(sizeof(ty_oid) * (size_t)(out->n ? out->n : 1));
	m->typmods = ty_alloc(sizeof(int32_t) * (size_t)(out->n ? out->n : 1));
	for (int i = 0; i < out->n; i++) {
		m->types[i] = out->items[i]->type;
		m->typmods[i] = out->items[i]->typmod;
	}
	m->rows = in->rows;
	*tl_out = out;
	return m;
}
