/*
 * plan_int.h — private to the planner files (plan*.c): the planner state,
 * target lists describing what each plan node outputs, and reference
 * resolution (Vars and computed expressions to input slots).
 */
#ifndef STRATA_PLAN_INT_H
#define STRATA_PLAN_INT_H

#include "sql_int.h"

/* What a plan node outputs: one expression per output slot, in the terms
 * of the query being planned (Vars, group expressions, aggregates ...). */
typedef struct sql_tlist {
	int n;
	sql_expr **items;
} sql_tlist;

typedef struct sql_planner {
	sql_actx *ax;
	sql_planned *top;
	struct sql_planner *parent; /* planner of the enclosing query */
	sql_query *q;
	int next_id;
	bool ordered_by_scan;       /* an index scan already returns q's ORDER BY (plan_index.c) */
} sql_planner;

sql_tlist *sql_tl_new(void);
void sql_tl_add(sql_tlist *tl, sql_expr *e);
sql_tlist *sql_tl_concat(const sql_tlist *a, const sql_tlist *b);
/* Rewrites e in terms of the slots of tl; outer references (levelsup > 0)
 * must already be EXECPARAMs. Throws if a Var is not available. */
sql_expr *sql_set_refs(sql_planner *pl, sql_expr *e, const sql_tlist *tl);
/* Plans the sublinks inside e (subqueries, their params). */
sql_expr *sql_plan_sublinks(sql_planner *pl, sql_expr *e);
sql_plan *sql_new_node(sql_planner *pl, sql_plan_kind kind, const sql_tlist *tl);
/* Splits an AND tree into conjuncts. */
int sql_conjuncts(sql_expr *e, sql_expr ***out);
sql_expr *sql_make_and(sql_expr **list, int n);
/* Which RTEs an expression references at level 0 (bit set per rte index). */
void sql_expr_rtes(sql_expr *e, bool *rtes, int nrtes);

/* Sublinks planned and executor cache slots assigned. */
sql_expr *sql_plan_prep(sql_planner *pl, sql_expr *e);

/* Constant folding (plan_fold.c): immutable calls over constants computed,
 * strict calls with a NULL constant argument NULL, boolean/CASE/COALESCE
 * simplification. Returns a new tree (e is not modified). */
sql_expr *sql_fold_expr(sql_planner *pl, sql_expr *e);
/* A qual that can never pass: constant false or NULL. */
bool sql_const_false(const sql_expr *e);
/* Adds `col = value` conjuncts implied by equated columns (plan_scan.c). */
void sql_derive_equalities(sql_planner *pl, sql_query *q, sql_expr ***quals, int *nquals);

/* Orders a node's conditions as PostgreSQL evaluates (and EXPLAIN prints)
 * them: for a scan (scan = true) equalities of equivalence classes last,
 * then stably by estimated cost (plan_qualorder.c). In place. */
void sql_order_quals(sql_expr **quals, int n, bool scan);

/* Join order (plan_join.c). sql_join_units: the units FROM items (roots:
 * the FROM list, or one inner join below an outer join) flatten into (base
 * items and outer joins; inner joins' ON conditions appended to *quals), or
 * 0 when the written order stands (fewer than 2 units, no statistics,
 * LATERAL or function items, volatile conditions, join_collapse_limit 1).
 * *units_out is allocated from the current arena. sql_join_order: fills
 * order[n] with the unit indexes in the order to join them left-deep;
 * plans[u] are the planned units, sets[u] their RTEs, quals the conditions
 * left to place; rows[k] gets the estimated rows of the first k+1 units
 * joined. */
int sql_join_units(sql_planner *pl, sql_query *q, sql_jnode **roots, int nroots, sql_expr ***quals,
		   int *nquals, sql_jnode ***units_out);
void sql_join_order(sql_planner *pl, int n, sql_plan **plans, bool **sets, sql_expr **quals, int nquals,
		    int *order, double *rows);

/* Table scans with key ranges (plan_scan.c). */
sql_plan *sql_plan_table_scan(sql_planner *pl, int rte, sql_expr **quals, int nquals, sql_tlist **tl_out);
/* Index scans (plan_index.c): NULL when no index beats the table scan. */
sql_plan *sql_plan_index_path(sql_planner *pl, int rte, sql_expr **quals, int nquals, sql_tlist **tl_out);
/* MIN/MAX of an indexed expression: the aggregate's input as the first and
 * last index entries, or NULL. */
sql_plan *sql_plan_minmax(sql_planner *pl, sql_query *q, sql_expr **quals, int nquals, sql_tlist **tl_out);
/* A nested loop that looks each outer row up in the right table by its
 * primary key or an index (few outer rows, a big right table), or NULL. */
sql_plan *sql_plan_lookup_join(sql_planner *pl, sql_jointype type, sql_plan *lp, sql_tlist *ltl, const bool *lset,
			       sql_plan *rp, sql_tlist *rtl, const bool *rset, sql_expr **jq, int njq,
			       sql_tlist **tl_out);

#endif
