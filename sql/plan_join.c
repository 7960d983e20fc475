/*
 * plan_join.c — the order in which a query's FROM items are joined.
 *
 * The FROM list and its explicit INNER JOINs are flattened into units (a
 * base relation, or an outer join kept whole: only inner joins reorder
 * freely, so a LEFT/RIGHT/FULL JOIN is one unit with its sides in the order
 * written, as PostgreSQL keeps them absent its outer-join identities). The
 * units are joined left-deep in the order of least estimated cost:
 * dynamic programming over subsets up to join_collapse_limit units, greedy
 * beyond (PostgreSQL's join_collapse_limit / GEQO split, with a simpler
 * search past the limit). join_collapse_limit = 1 keeps the written order.
 *
 * Estimates: a unit's rows are its plan's estimate (statistics of its key
 * range, a third per other condition); an equality between columns of two
 * units keeps 1/max(n_distinct) of the pairs (ANALYZE's distinct counts; a
 * single-column primary key is unique; 200 distinct values otherwise, as
 * PostgreSQL assumes), any other condition a third. A join costs, besides
 * its output rows: a key lookup per outer row when the next unit is a table
 * read whole with an equality on its primary key's or an index's leading
 * column and few outer rows (plan_index.c makes that a lookup join), else
 * reading the unit and hashing it, else (no equality) a nested loop.
 *
 * Only the order changes, never the result. The new order is taken only
 * when it is clearly cheaper than the written one, so plans of queries over
 * tables without statistics (all estimated alike) keep their shape.
 */
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

#define JO_MAX_UNITS   64
#define JO_DP_MAX      12    /* subsets kept by the exhaustive search: 2^12 */
#define JO_LOOKUP_COST 4.0   /* one key seek against reading one row */
#define JO_DEFAULT_ND  200.0 /* PostgreSQL's DEFAULT_NUM_DISTINCT */
#define JO_TAKE_RATIO  0.7   /* the chosen order must beat the written one by this */

/* ---------------------------------------------------------------- units */

static void flatten(sql_jnode *j, sql_jnode **units, int *nu, sql_expr ***on, int *non, bool *ok)
{
	if (j->is_join && j->jointype == SQL_JOIN_INNER) {
		flatten(j->left, units, nu, on, non, ok);
		flatten(j->right, units, nu, on, non, ok);
		sql_expr **c;
		int nc = sql_conjuncts(j->quals, &c);
		sql_expr **grown = ty_alloc(sizeof(sql_expr *) * (size_t)(*non + nc + 1));
		if (*non)
			memcpy(grown, *on, sizeof(sql_expr *) * (size_t)*non);
		for (int i = 0; i < nc; i++) {
			if (sql_expr_volatile(c[i]))
				*ok = false;
			grown[(*non)++] = c[i];
		}
		*on = grown;
		return;
	}
	if (*nu >= JO_MAX_UNITS) {
		*ok = false;
		return;
	}
	units[(*nu)++] = j;
}

static int collapse_limit(sql_planner *pl)
{
	const char *v = pl->ax->s ? sql_guc_get(pl->ax->s, "join_collapse_limit") : NULL;
	int n = v ? atoi(v) : 8;
	return n < 1 ? 1 : n;
}

int sql_join_units(sql_planner *pl, sql_query *q, sql_jnode **roots, int nroots, sql_expr ***quals,
		   int *nquals, sql_jnode ***units_out)
{
	if (nroots == 0 || collapse_limit(pl) <= 1)
		return 0;
	/* Only queries over analyzed tables: without statistics every table
	 * looks alike and the written order stands anyway. LATERAL items and
	 * function scans (implicitly lateral) keep the written order. */
	bool stats = false;
	for (int i = 0; i < q->nrtes; i++) {
		sql_rte *r = q->rtes[i];
		if (r->kind == SQL_RTE_FUNCTION || (r->kind == SQL_RTE_SUBQUERY && r->lateral))
			return 0;
		if (r->kind == SQL_RTE_TABLE && r->rel && r->rel->rel.stats_rows)
			stats = true;
	}
	if (!stats)
		return 0;
	/* A volatile condition is evaluated as often as the written order
	 * says (random() in a join condition). */
	for (int i = 0; i < *nquals; i++)
		if (sql_expr_volatile((*quals)[i]))
			return 0;
	sql_jnode **units = ty_alloc(sizeof(sql_jnode *) * JO_MAX_UNITS);
	int nu = 0, non = 0;
	sql_expr **on = NULL;
	bool ok = true;
	for (int i = 0; i < nroots && ok; i++)
		flatten(roots[i], units, &nu, &on, &non, &ok);
	if (!ok || nu < 2)
		return 0;
	/* Inner joins' ON conditions are WHERE conditions. */
	sql_expr **all = ty_alloc(sizeof(sql_expr *) * (size_t)(*nquals + non + 1));
	if (*nquals)
		memcpy(all, *quals, sizeof(sql_expr *) * (size_t)*nquals);
	if (non)
		memcpy(all + *nquals, on, sizeof(sql_expr *) * (size_t)non);
	*quals = all;
	*nquals += non;
	*units_out = units;
	return nu;
}

/* ---------------------------------------------------------------- estimates */

typedef uint64_t jo_set;

typedef struct jo_qual {
	jo_set units; /* the units it references */
	double sel;
	int lookup_unit[2]; /* units whose leading key column it equates, else -1 */
	jo_set other[2];    /* ... with an expression over these units */
} jo_qual;

typedef struct jo_ctx {
	sql_planner *pl;
	int n;
	double *rows;  /* per unit: estimated output rows */
	double *read;  /* per unit: rows read to produce them */
	double *table; /* per unit: the table's rows when a lookup could replace its scan, else 0 */
	jo_qual *qs;
	int nq;
} jo_ctx;

static const cat_rel *var_table(sql_query *q, const sql_expr *e)
{
	if (!e || e->kind != SQL_E_VAR || e->var.levelsup != 0 || e->var.rte < 1 || e->var.rte > q->nrtes)
		return NULL;
	sql_rte *r = q->rtes[e->var.rte - 1];
	return r->kind == SQL_RTE_TABLE && r->rel ? &r->rel->rel : NULL;
}

/* Distinct values of a column (a Var of a base table). */
static double ndistinct(sql_planner *pl, const sql_expr *e)
{
	sql_query *q = pl->q;
	const cat_rel *rel = var_table(q, e);
	if (!rel)
		return JO_DEFAULT_ND;
	const cat_obj *o = q->rtes[e->var.rte - 1]->rel;
	double trows = rel->stats_rows ? (double)rel->stats_rows : 1000;
	if (rel->npk == 1 && rel->pk[0] == e->var.col + 1)
		return trows;
	double nd = pl->ax->s ? sql_stats_ndistinct(pl->ax->s, o, e->var.col + 1) : -1;
	if (nd <= 0)
		nd = JO_DEFAULT_ND < trows ? JO_DEFAULT_ND : trows;
	return nd < 1 ? 1 : nd;
}

/* Whether a table column leads its primary key or one of its indexes. */
static bool leading_key(sql_planner *pl, const cat_rel *rel, int attnum)
{
	if (rel->npk > 0 && rel->pk[0] == attnum)
		return true;
	for (int x = 0; x < rel->nindexes; x++) {
		const cat_obj *ixo = cat_get(pl->ax->cat, rel->indexes[x]);
		if (ixo && ixo->rel.index && !ixo->rel.index->predicate_sql &&
		    ixo->rel.index->state == CAT_INDEX_PUBLIC && ixo->rel.index->nkeys > 0 &&
		    ixo->rel.index->keys[0].attnum == attnum)
			return true;
	}
	return false;
}

static jo_set expr_units(jo_ctx *c, bool **sets, sql_expr *e)
{
	int nr = c->pl->q->nrtes;
	bool *need = ty_alloc0(sizeof(bool) * (size_t)(nr ? nr : 1));
	sql_expr_rtes(e, need, nr);
	jo_set s = 0;
	for (int u = 0; u < c->n; u++)
		for (int i = 0; i < nr; i++)
			if (need[i] && sets[u][i]) {
				s |= (jo_set)1 << u;
				break;
			}
	return s;
}

static int unit_of_rte(jo_ctx *c, bool **sets, int rte)
{
	for (int u = 0; u < c->n; u++)
		if (sets[u][rte - 1])
			return u;
	return -1;
}

static void describe_qual(jo_ctx *c, bool **sets, sql_expr *e, jo_qual *out)
{
	out->units = expr_units(c, sets, e);
	out->sel = 1.0 / 3;
	out->lookup_unit[0] = out->lookup_unit[1] = -1;
	out->other[0] = out->other[1] = 0;
	if (e->kind != SQL_E_FUNC || e->f.nargs != 2 || !e->f.opname || strcmp(e->f.opname, "=") != 0)
		return;
	sql_expr *a = e->f.args[0], *b = e->f.args[1];
	jo_set sa = expr_units(c, sets, a), sb = expr_units(c, sets, b);
	if (!sa || !sb || (sa & sb))
		return;
	double na = ndistinct(c->pl, a), nb = ndistinct(c->pl, b);
	out->sel = 1.0 / (na > nb ? na : nb);
	for (int side = 0; side < 2; side++) {
		sql_expr *k = side ? b : a;
		const cat_rel *rel = var_table(c->pl->q, k);
		if (!rel)
			continue;
		int u = unit_of_rte(c, sets, k->var.rte);
		if (u >= 0 && c->table[u] > 0 && leading_key(c->pl, rel, k->var.col + 1)) {
			out->lookup_unit[side] = u;
			out->other[side] = side ? sa : sb;
		}
	}
}

static double set_rows(jo_ctx *c, jo_set s)
{
	double r = 1;
	for (int u = 0; u < c->n; u++)
		if (s & ((jo_set)1 << u))
			r *= c->rows[u];
	for (int i = 0; i < c->nq; i++)
		if (c->qs[i].units && (c->qs[i].units & ~s) == 0)
			r *= c->qs[i].sel;
	return r < 1 ? 1 : r;
}

/* Cost of joining unit u to the units of s (which produce rows_s rows). */
static double join_cost(jo_ctx *c, jo_set s, double rows_s, int u)
{
	jo_set ub = (jo_set)1 << u;
	bool linked = false, lookup = false;
	for (int i = 0; i < c->nq; i++) {
		jo_qual *q = &c->qs[i];
		if (!(q->units & ub) || (q->units & ~(s | ub)) || q->units == ub)
			continue;
		linked = true;
		for (int k = 0; k < 2; k++)
			if (q->lookup_unit[k] == u && q->other[k] && (q->other[k] & ~s) == 0 &&
			    rows_s * 4 <= c->table[u])
				lookup = true;
	}
	double out = set_rows(c, s | ub);
	if (lookup)
		return rows_s * JO_LOOKUP_COST + out;
	if (linked)
		return rows_s + c->read[u] + c->rows[u] + out;
	return rows_s * c->rows[u] + c->read[u] + out;
}

static bool linked_to(jo_ctx *c, jo_set s, int u)
{
	jo_set ub = (jo_set)1 << u;
	for (int i = 0; i < c->nq; i++)
		if ((c->qs[i].units & ub) && (c->qs[i].units & s) && !(c->qs[i].units & ~(s | ub)))
			return true;
	return false;
}

static double order_cost(jo_ctx *c, const int *order)
{
	jo_set s = (jo_set)1 << order[0];
	double cost = c->read[order[0]];
	for (int k = 1; k < c->n; k++) {
		cost += join_cost(c, s, set_rows(c, s), order[k]);
		s |= (jo_set)1 << order[k];
	}
	return cost;
}

/* Exhaustive left-deep search over subsets. */
static void dp_order(jo_ctx *c, int *order)
{
	int n = c->n;
	size_t nsets = (size_t)1 << n;
	double *best = ty_alloc(sizeof(double) * nsets);
	int8_t *last = ty_alloc(sizeof(int8_t) * nsets);
	for (size_t s = 0; s < nsets; s++) {
		best[s] = -1;
		last[s] = -1;
	}
	for (int u = 0; u < n; u++) {
		best[(size_t)1 << u] = c->read[u];
		last[(size_t)1 << u] = (int8_t)u;
	}
	for (size_t s = 1; s < nsets; s++) {
		if (!(s & (s - 1)))
			continue;
		/* Cross products only when nothing in s links. */
		bool any_link = false;
		for (int u = 0; u < n && !any_link; u++)
			if ((s & ((size_t)1 << u)) && best[s & ~((size_t)1 << u)] >= 0 &&
			    linked_to(c, (jo_set)(s & ~((size_t)1 << u)), u))
				any_link = true;
		for (int u = 0; u < n; u++) {
			size_t ub = (size_t)1 << u;
			if (!(s & ub))
				continue;
			size_t rest = s & ~ub;
			if (best[rest] < 0 || (any_link && !linked_to(c, (jo_set)rest, u)))
				continue;
			double cost = best[rest] + join_cost(c, (jo_set)rest, set_rows(c, (jo_set)rest), u);
			if (best[s] < 0 || cost < best[s]) {
				best[s] = cost;
				last[s] = (int8_t)u;
			}
		}
	}
	size_t s = nsets - 1;
	for (int k = n - 1; k >= 0; k--) {
		order[k] = last[s];
		s &= ~((size_t)1 << last[s]);
	}
}

/* Past the limit: start from the cheapest unit, then add the unit whose
 * join costs least, preferring units linked to what is joined. */
static void greedy_order(jo_ctx *c, int *order)
{
	int first = 0;
	for (int u = 1; u < c->n; u++)
		if (c->rows[u] < c->rows[first])
			first = u;
	order[0] = first;
	jo_set s = (jo_set)1 << first;
	for (int k = 1; k < c->n; k++) {
		double rows_s = set_rows(c, s);
		int pick = -1;
		bool pick_linked = false;
		double pick_cost = 0;
		for (int u = 0; u < c->n; u++) {
			if (s & ((jo_set)1 << u))
				continue;
			bool l = linked_to(c, s, u);
			double cost = join_cost(c, s, rows_s, u);
			if (pick < 0 || (l && !pick_linked) || (l == pick_linked && cost < pick_cost)) {
				pick = u;
				pick_linked = l;
				pick_cost = cost;
			}
		}
		order[k] = pick;
		s |= (jo_set)1 << pick;
	}
}

void sql_join_order(sql_planner *pl, int n, sql_plan **plans, bool **sets, sql_expr **quals, int nquals,
		    int *order, double *rows)
{
	for (int i = 0; i < n; i++) {
		order[i] = i;
		rows[i] = plans[i]->rows;
	}
	if (n < 2)
		return;
	sql_query *q = pl->q;
	jo_ctx c = {pl, n, NULL, NULL, NULL, NULL, 0};
	c.rows = ty_alloc(sizeof(double) * (size_t)n);
	c.read = ty_alloc(sizeof(double) * (size_t)n);
	c.table = ty_alloc0(sizeof(double) * (size_t)n);
	for (int u = 0; u < n; u++) {
		sql_plan *p = plans[u];
		c.rows[u] = p->rows > 1 ? p->rows : 1;
		c.read[u] = c.rows[u];
		if (p->kind == SQL_P_SCAN) {
			const cat_rel *rel = NULL;
			for (int i = 0; i < q->nrtes; i++)
				if (sets[u][i] && q->rtes[i]->kind == SQL_RTE_TABLE && q->rtes[i]->rel)
					rel = &q->rtes[i]->rel->rel;
			double trows = rel && rel->stats_rows ? (double)rel->stats_rows : 1000;
			/* A scan reads its key range; a scan with no range reads the
			 * table (and could become key lookups). */
			if (!p->scan.nranges) {
				c.read[u] = trows;
				if (!p->scan.lock_strength)
					c.table[u] = trows;
			}
		}
	}
	c.qs = ty_alloc(sizeof(jo_qual) * (size_t)(nquals ? nquals : 1));
	for (int i = 0; i < nquals; i++)
		describe_qual(&c, sets, quals[i], &c.qs[c.nq++]);
	int *best = ty_alloc(sizeof(int) * (size_t)n);
	if (n <= collapse_limit(pl) && n <= JO_DP_MAX)
		dp_order(&c, best);
	else
		greedy_order(&c, best);
	double written = order_cost(&c, order), chosen = order_cost(&c, best);
	if (chosen < written * JO_TAKE_RATIO)
		memcpy(order, best, sizeof(int) * (size_t)n);
	jo_set set = 0;
	for (int k = 0; k < n; k++) {
		set |= (jo_set)1 << order[k];
		rows[k] = set_rows(&c, set);
	}
}
