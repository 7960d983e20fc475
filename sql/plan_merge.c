/*
 * plan_merge.c — turns hash joins into merge joins when both inputs already
 * come in the order of the join keys: rows of a table are clustered by its
 * primary key, so a join on the leading primary-key columns of two tables
 * (t1.id = t2.id, or a prefix of a composite key) can stream both scans side
 * by side instead of building a hash table of one of them. The merge join
 * holds only the right rows of one key value in memory.
 *
 * Runs on the finished plan, after plan_order.c (whose entity-group join
 * takes precedence). Only plain forward scans qualify: no reverse or
 * multi-range scans, no descending key columns, no interleaved
 * tables, and key types whose comparison is the key encoding's order.
 */
#include <string.h>

#include "plan_int.h"

/* Follows nodes that keep their input's order (filters, projections of
 * plain slots, inner/left merge joins on their left side) from p down to a
 * table scan; *slot becomes the scan's output slot. Returns the scan or NULL. */
static sql_plan *ordered_scan(sql_plan *p, int *slot)
{
	for (;;) {
		switch (p->kind) {
		case SQL_P_SCAN:
			return p;
		case SQL_P_FILTER:
			p = p->left;
			break;
		case SQL_P_PROJECT: {
			const sql_expr *e = p->project.exprs[*slot];
			if (!e || e->kind != SQL_E_SLOT)
				return NULL;
			*slot = e->slot;
			p = p->left;
			break;
		}
		case SQL_P_MERGEJOIN:
			/* Output follows the left input; NULL-extended left rows
			 * (RIGHT/FULL) would break it. */
			if (p->join.type != SQL_JOIN_INNER && p->join.type != SQL_JOIN_LEFT)
				return NULL;
			if (*slot >= p->left->ncols)
				return NULL;
			p = p->left;
			break;
		default:
			return NULL;
		}
	}
}

/* Can this scan's rows be relied on to come in primary-key order? */
static bool scan_ordered(const sql_plan *s)
{
	const cat_rel *r = &s->scan.rel->rel;
	return r->npk > 0 && !s->scan.reverse && s->scan.nranges <= 1 && !s->scan.count_only &&
	       r->ilv_depth == 0; /* salted: the bucket scans are merged in key order (exec_salt.c) */
}

/* Key position of table column col in the primary key, or -1. */
static int pk_pos(const cat_rel *r, int col)
{
	for (int i = 0; i < r->npk; i++)
		if (r->pk[i] == col + 1)
			return i;
	return -1;
}

/* Key columns whose values the join's comparison orders like their key
 * encoding: the column's type compares with the key type's function (int4
 * and int8 share theirs); char(n) compares without trailing blanks, its
 * encoding with them. */
static bool type_ok(const ty_type *t, const cat_rel *r, int col)
{
	const ty_type *ct = ty_type_get(r->cols[col].type);
	return t && t->cmp && ct && ct->cmp == t->cmp && ct->oid != TY_BPCHAR;
}

/* One side of a key: the scan below and the key column's position in its
 * primary key, or false. */
static bool key_side(sql_plan *input, const sql_expr *key, const ty_type *t, sql_plan **scan, int *pos)
{
	if (!key || key->kind != SQL_E_SLOT)
		return false;
	int slot = key->slot;
	sql_plan *s = ordered_scan(input, &slot);
	if (!s || !scan_ordered(s))
		return false;
	const cat_rel *r = &s->scan.rel->rel;
	if (slot >= r->ncols || !type_ok(t, r, slot))
		return false;
	int kp = pk_pos(r, slot);
	if (kp < 0 || (r->pk_desc && r->pk_desc[kp]))
		return false;
	*scan = s;
	*pos = kp;
	return true;
}

/* The primary-key positions fixed by the scan's single key range (an
 * equality prefix): such columns order nothing, the next one leads. */
static int fixed_prefix(const sql_plan *scan)
{
	if (scan->scan.nranges != 1)
		return 0;
	const sql_keyrange *kr = &scan->scan.ranges[0];
	int n = 0;
	while (n < kr->nfix) {
		const ty_type *t = ty_type_get(kr->lo.vals[n]->type);
		if (t && t->category == 'A')
			break;
		n++;
	}
	return n;
}

static void try_merge(sql_plan *j)
{
	if (j->join.nkeys == 0 || j->join.nparams ||
	    (j->join.type != SQL_JOIN_INNER && j->join.type != SQL_JOIN_LEFT &&
	     j->join.type != SQL_JOIN_RIGHT && j->join.type != SQL_JOIN_FULL))
		return;
	int n = j->join.nkeys;
	int *order = ty_alloc(sizeof(int) * (size_t)n);
	bool *used = ty_alloc0(sizeof(bool) * (size_t)n);
	sql_plan *ls = NULL, *rs = NULL;
	int lnext = -1, rnext = -1, m = 0;
	/* Pick keys in primary-key order: the k-th merge key must be the next
	 * key column of both scans. */
	for (;;) {
		int found = -1;
		for (int k = 0; k < n && found < 0; k++) {
			if (used[k])
				continue;
			sql_plan *a, *b;
			int ap, bp;
			if (!key_side(j->left, j->join.lkeys[k], j->join.keytypes[k], &a, &ap) ||
			    !key_side(j->right, j->join.rkeys[k], j->join.keytypes[k], &b, &bp))
				continue;
			if (!ls) {
				if (ap != fixed_prefix(a) || bp != fixed_prefix(b))
					continue;
			} else if (a != ls || b != rs || ap != lnext || bp != rnext) {
				continue;
			}
			ls = a;
			rs = b;
			lnext = ap + 1;
			rnext = bp + 1;
			found = k;
		}
		if (found < 0)
			break;
		used[found] = true;
		order[m++] = found;
	}
	if (m == 0 || ls == rs)
		return;
	/* Merge keys first (in key order), the other equality keys after. */
	sql_expr **lk = ty_alloc(sizeof(sql_expr *) * (size_t)n),
		 **rk = ty_alloc(sizeof(sql_expr *) * (size_t)n);
	const ty_type **kt = ty_alloc(sizeof(ty_type *) * (size_t)n);
	int k = 0;
	for (int i = 0; i < m; i++) {
		lk[k] = j->join.lkeys[order[i]];
		rk[k] = j->join.rkeys[order[i]];
		kt[k++] = j->join.keytypes[order[i]];
	}
	for (int i = 0; i < n; i++)
		if (!used[i]) {
			lk[k] = j->join.lkeys[i];
			rk[k] = j->join.rkeys[i];
			kt[k++] = j->join.keytypes[i];
		}
	j->join.lkeys = lk;
	j->join.rkeys = rk;
	j->join.keytypes = kt;
	j->join.nmerge = m;
	j->kind = SQL_P_MERGEJOIN;
	/* Both scans must now deliver key order: not sliced among parallel
	 * workers (plan_order.c), shown as primary-key index scans. */
	ls->scan.ordered = rs->scan.ordered = true;
	ls->scan.parallel = rs->scan.parallel = 0;
}

static void walk(sql_plan *p)
{
	if (!p)
		return;
	walk(p->left);
	walk(p->right);
	if (p->kind == SQL_P_APPEND)
		for (int i = 0; i < p->append.nchildren; i++)
			walk(p->append.children[i]);
	if (p->kind == SQL_P_HASHJOIN)
		try_merge(p);
}

void sql_plan_merge_joins(sql_planned *pd, sql_plan **root)
{
	(void)pd;
	sql_session *s = sql_current_session();
	const char *on = s ? sql_guc_get(s, "enable_mergejoin") : NULL;
	if (on && strcmp(on, "on"))
		return; /* SET enable_mergejoin = off */
	if (root && *root)
		walk(*root);
}
