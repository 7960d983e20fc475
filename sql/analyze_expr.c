/*
 * analyze_expr.c — raw expressions to typed expressions: column references
 * against the FROM namespace (and outer queries), literals, operators and
 * the special A_Expr forms (IN, BETWEEN, LIKE, IS DISTINCT FROM, ANY/ALL),
 * boolean logic, CASE/COALESCE/NULLIF/GREATEST, casts, sublinks, arrays,
 * rows, SQL value functions, function calls, aggregates and windows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "sql_int.h"

static sql_expr *xform(sql_actx *ax, sql_query *q, pnode *n);

/* ---------------------------------------------------------------- errors */

int sql_errposition(const char *text, int location)
{
	if (!text || location < 0)
		return 0;
	/* Character (not byte) position, 1-based, as PostgreSQL reports it. */
	int chars = 0;
	for (int i = 0; i < location && text[i]; i++)
		if (((unsigned char)text[i] & 0xc0) != 0x80)
			chars++;
	return chars + 1;
}

int sql_raw_location(pnode *n)
{
	if (!n)
		return -1;
	const ProtobufCMessageDescriptor *d = n->base.descriptor;
	const char *base = (const char *)n;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) || *(const uint32_t *)(base + f->quantifier_offset) != f->id)
			continue;
		const ProtobufCMessage *m = *(ProtobufCMessage *const *)(base + f->offset);
		if (!m || f->type != PROTOBUF_C_TYPE_MESSAGE)
			return -1;
		const ProtobufCFieldDescriptor *lf = protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "location");
		if (!lf || lf->type != PROTOBUF_C_TYPE_INT32)
			return -1;
		return *(const int32_t *)((const char *)m + lf->offset);
	}
	return -1;
}

void sql_error_at(sql_actx *ax, int location, util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_err *e = ty_err();
	util_err_vset(e, code, fmt, ap);
	va_end(ap);
	e->position = ax ? sql_errposition(ax->ps->text, location) : 0;
	ty_errthrow();
}

/* ---------------------------------------------------------------- nodes */

sql_expr *sql_expr_new(sql_expr_kind kind, ty_oid type, int location)
{
	sql_expr *e = ty_alloc0(sizeof *e);
	e->kind = kind;
	e->type = type;
	e->typmod = -1;
	e->location = location;
	return e;
}

sql_expr *sql_expr_const(ty_oid type, int32_t typmod, ty_datum v, int location)
{
	sql_expr *e = sql_expr_new(SQL_E_CONST, type, location);
	e->typmod = typmod;
	e->c = v;
	return e;
}

static sql_expr **copy_list(sql_expr **l, int n)
{
	if (!l)
		return NULL;
	sql_expr **r = ty_alloc(sizeof *r * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		r[i] = sql_expr_copy(l[i]);
	return r;
}

sql_expr *sql_expr_copy(const sql_expr *e)
{
	if (!e)
		return NULL;
	sql_expr *c = ty_alloc(sizeof *c);
	*c = *e;
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
	case SQL_E_SRF:
	case SQL_E_ASSIGN:
	case SQL_E_SUBSCRIPT:
		c->f.args = copy_list(e->f.args, e->f.nargs);
		break;
	case SQL_E_CAST:
		c->cast.arg = sql_expr_copy(e->cast.arg);
		break;
	case SQL_E_SUBLINK:
		c->sub.testexpr = sql_expr_copy(e->sub.testexpr);
		break;
	case SQL_E_FIELD:
		c->field.arg = sql_expr_copy(e->field.arg);
		break;
	default:
		break;
	}
	return c;
}

static bool datum_same(ty_oid type, ty_datum a, ty_datum b)
{
	if (a.null || b.null)
		return a.null && b.null;
	const ty_type *t = ty_type_get(type);
	if (t && t->byval)
		return a.i == b.i;
	return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

bool sql_expr_equal(const sql_expr *a, const sql_expr *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind || a->type != b->type)
		return false;
	switch (a->kind) {
	case SQL_E_CONST:
		return a->typmod == b->typmod && datum_same(a->type, a->c, b->c);
	case SQL_E_PARAM:
	case SQL_E_EXECPARAM:
		return a->param == b->param;
	case SQL_E_VAR:
		return a->var.rte == b->var.rte && a->var.col == b->var.col && a->var.levelsup == b->var.levelsup;
	case SQL_E_SLOT:
		return a->slot == b->slot;
	case SQL_E_CAST:
		return a->typmod == b->typmod && a->cast.method == b->cast.method && sql_expr_equal(a->cast.arg, b->cast.arg);
	case SQL_E_AGG:
		return a->agg == b->agg && a->agglevelsup == b->agglevelsup;
	case SQL_E_WINDOW:
		return a->win == b->win;
	case SQL_E_SESSION:
		return a->sv == b->sv;
	case SQL_E_SUBLINK:
		return a->sub.query == b->sub.query;
	case SQL_E_FIELD:
		return a->field.field == b->field.field && sql_expr_equal(a->field.arg, b->field.arg);
	case SQL_E_GROUPING:
		if (a->grouping.nargs != b->grouping.nargs)
			return false;
		for (int i = 0; i < a->grouping.nargs; i++)
			if (!sql_expr_equal(a->grouping.args[i], b->grouping.args[i]))
				return false;
		return true;
	case SQL_E_DEFAULT:
	case SQL_E_CASETEST:
		return false;
	default:
		if (a->f.fn != b->f.fn || a->f.nargs != b->f.nargs || a->f.negate != b->f.negate ||
		    a->f.booltest != b->f.booltest || a->f.all != b->f.all)
			return false;
		for (int i = 0; i < a->f.nargs; i++)
			if (!sql_expr_equal(a->f.args[i], b->f.args[i]))
				return false;
		return true;
	}
}

bool sql_expr_visit(sql_expr *e, sql_visit (*fn)(sql_expr *e, void *arg), void *arg)
{
	if (!e)
		return false;
	sql_visit v = fn(e, arg);
	if (v == SQL_VISIT_STOP)
		return true;
	if (v == SQL_VISIT_SKIP)
		return false;
	switch (e->kind) {
	case SQL_E_CAST:
		return sql_expr_visit(e->cast.arg, fn, arg);
	case SQL_E_SUBLINK:
		if (sql_expr_visit(e->sub.testexpr, fn, arg))
			return true;
		for (int i = 0; i < e->sub.nparams; i++)
			if (e->sub.param_vals && sql_expr_visit(e->sub.param_vals[i], fn, arg))
				return true;
		return false;
	case SQL_E_FIELD:
		return sql_expr_visit(e->field.arg, fn, arg);
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
		return false;
	default:
		for (int i = 0; i < e->f.nargs; i++)
			if (sql_expr_visit(e->f.args[i], fn, arg))
				return true;
		return false;
	}
}

/* sql_expr_walk is sql_expr_visit with a callback that only stops. */
typedef struct walk_fn {
	bool (*fn)(sql_expr *e, void *arg);
	void *arg;
} walk_fn;

static sql_visit walk_step(sql_expr *e, void *arg)
{
	const walk_fn *w = arg;
	return w->fn(e, w->arg) ? SQL_VISIT_STOP : SQL_VISIT_CONTINUE;
}

bool sql_expr_walk(sql_expr *e, bool (*fn)(sql_expr *e, void *arg), void *arg)
{
	walk_fn w = {fn, arg};
	return sql_expr_visit(e, walk_step, &w);
}

sql_expr *sql_expr_mutate(sql_expr *e, sql_expr *(*fn)(sql_expr *e, void *arg), void *arg)
{
	if (!e)
		return NULL;
	sql_expr *c = ty_alloc(sizeof *c);
	*c = *e;
	switch (e->kind) {
	case SQL_E_CAST:
		c->cast.arg = sql_expr_mutate(e->cast.arg, fn, arg);
		break;
	case SQL_E_SUBLINK:
		c->sub.testexpr = sql_expr_mutate(e->sub.testexpr, fn, arg);
		if (e->sub.param_vals) {
			c->sub.param_vals = ty_alloc(sizeof(sql_expr *) * (size_t)(e->sub.nparams ? e->sub.nparams : 1));
			for (int i = 0; i < e->sub.nparams; i++)
				c->sub.param_vals[i] = sql_expr_mutate(e->sub.param_vals[i], fn, arg);
		}
		break;
	case SQL_E_FIELD:
		c->field.arg = sql_expr_mutate(e->field.arg, fn, arg);
		break;
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
		break;
	default:
		if (e->f.nargs) {
			c->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)e->f.nargs);
			for (int i = 0; i < e->f.nargs; i++)
				c->f.args[i] = sql_expr_mutate(e->f.args[i], fn, arg);
		}
		break;
	}
	return fn(c, arg);
}

bool sql_expr_is_const(const sql_expr *e) { return e && e->kind == SQL_E_CONST; }

static bool volatile_walker(sql_expr *e, void *arg)
{
	(void)arg;
	if (e->kind == SQL_E_FUNC && e->f.fn && e->f.fn->volatility == TY_VOLATILE)
		return true;
	if (e->kind == SQL_E_SUBLINK || e->kind == SQL_E_SRF)
		return true;
	return false;
}

bool sql_expr_volatile(const sql_expr *e) { return sql_expr_walk((sql_expr *)e, volatile_walker, NULL); }

/* ---------------------------------------------------------------- names */

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

const char *sql_last_name(PgQuery__Node **names, size_t n) { return n ? str_of(names[n - 1]) : ""; }

/* Increments levelsup of Vars (for join alias expressions used from a
 * deeper query level). */
static sql_expr *bump_levels(sql_expr *e, void *arg)
{
	if (e->kind == SQL_E_VAR)
		e->var.levelsup += *(int *)arg;
	return e;
}

static void mark_used(sql_query *q, int rte, int col)
{
	sql_rte *r = q->rtes[rte - 1];
	if (r->used && col >= 0 && col < r->ncols)
		r->used[col] = true;
}

/* ---------------------------------------------------------------- missing columns */

/* PostgreSQL's hint for a column that does not exist (errorMissingColumn,
 * searchRangeTableForCol): the range tables of this query and its parents,
 * join entries skipped, are searched for the closest column by Levenshtein
 * distance (insert, delete, substitute 1 each; a qualifier that does not
 * match an entry's name adds its distance to the entry's columns; at most 3,
 * and at most half of the name's length). An exact match under the right
 * name is a column that exists but is out of scope; two equally close
 * matches are both named, more are none. */
enum { FUZZY_MAX = 3 };

typedef struct fuzzy {
	int distance;
	const sql_rte *rfirst, *rsecond;
	int first, second; /* column indexes, -1: none */
} fuzzy;

static int levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row = ty_alloc(sizeof(int) * (lb + 1));
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

static void fuzzy_update(fuzzy *f, int penalty, const sql_rte *r, const char *actual, const char *match, int col)
{
	if (penalty > f->distance || !actual[0])
		return;
	int d = levenshtein(actual, match);
	if (d > (int)strlen(match) / 2)
		return;
	d += penalty;
	if (d < f->distance) {
		f->distance = d;
		f->rfirst = r;
		f->first = col;
		f->rsecond = NULL;
		f->second = -1;
	} else if (d == f->distance) {
		if (f->second >= 0) {
			/* Three equally close: none is suggested, and only closer
			 * ones may be from now on. */
			f->rfirst = f->rsecond = NULL;
			f->first = f->second = -1;
			f->distance = d - 1;
		} else if (f->first >= 0) {
			f->rsecond = r;
			f->second = col;
		} else if (f->distance <= FUZZY_MAX) {
			f->rfirst = r;
			f->first = col;
		}
	}
}

/* Offers one query level's columns to the fuzzy match; true when one is
 * exactly col in the relation named rel (or any, when rel is NULL). */
static bool fuzzy_level(fuzzy *f, const sql_query *q, const char *rel, const char *col)
{
	for (int i = 0; i < q->nrtes; i++) {
		const sql_rte *r = q->rtes[i];
		if (r->kind == SQL_RTE_JOIN)
			continue;
		int penalty = rel ? levenshtein(rel, r->alias) : 0;
		bool exact = false;
		for (int c = 0; c < r->ncols; c++) {
			if (!r->colnames[c])
				continue;
			if (!strcmp(r->colnames[c], col))
				exact = true;
			fuzzy_update(f, penalty, r, r->colnames[c], col, c);
		}
		if (exact && penalty == 0) {
			f->rfirst = r;
			f->first = -1;
			f->rsecond = NULL;
			return true;
		}
	}
	return false;
}

static UTIL_NORETURN void missing_column(sql_actx *ax, sql_query *q0, const char *rel, const char *col, int location)
{
	fuzzy f = {FUZZY_MAX + 1, NULL, NULL, -1, -1};
	bool seen_hint = false;
	for (sql_query *q = q0; q; q = q->parent) {
		seen_hint |= q == ax->hint_query;
		if (fuzzy_level(&f, q, rel, col))
			goto done;
	}
	/* An INSERT's target, invisible to its VALUES/SELECT. */
	if (ax->hint_query && !seen_hint)
		(void)fuzzy_level(&f, ax->hint_query, rel, col);
done:;
	util_err *e = rel ? ty_errstart(UTIL_E_UNDEFINED_COLUMN, "column %s.%s does not exist", rel, col)
			  : ty_errstart(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" does not exist", col);
	e->position = sql_errposition(ax->ps->text, location);
	if (f.rfirst && f.rsecond)
		util_err_hint(e, "Perhaps you meant to reference the column \"%s.%s\" or the column \"%s.%s\".", f.rfirst->alias,
			      f.rfirst->colnames[f.first], f.rsecond->alias, f.rsecond->colnames[f.second]);
	else if (f.rfirst && f.first >= 0)
		util_err_hint(e, "Perhaps you meant to reference the column \"%s.%s\".", f.rfirst->alias,
			      f.rfirst->colnames[f.first]);
	else if (f.rfirst)
		util_err_hint(e, "There is a column named \"%s\" in table \"%s\", but it cannot be referenced from this part of the query.",
			      col, f.rfirst->alias);
	ty_errthrow();
}

/* A LATERAL reference to the left side of a RIGHT or FULL join (whose
 * items are marked while its right side is analyzed) is an error. */
static void check_lateral_ref(sql_actx *ax, const sql_query *q, const sql_nsitem *it, int location)
{
	if (it->lateral_ok)
		return;
	util_err *e = ty_errstart(UTIL_E_INVALID_COLUMN_REFERENCE, "invalid reference to FROM-clause entry for table \"%s\"",
				  q->rtes[it->rte - 1]->alias);
	util_err_detail(e, "The combining JOIN type must be INNER or LEFT for a LATERAL reference.");
	e->position = sql_errposition(ax->ps->text, location);
	ty_errthrow();
}

static sql_expr *make_var(sql_query *q, int rte, int col, int levelsup, int location)
{
	sql_rte *r = q->rtes[rte - 1];
	if (r->kind == SQL_RTE_JOIN) {
		sql_expr *e = sql_expr_copy(r->joinvars[col]);
		if (levelsup)
			e = sql_expr_mutate(e, bump_levels, &levelsup);
		return e;
	}
	sql_expr *e = sql_expr_new(SQL_E_VAR, r->coltypes[col], location);
	e->typmod = r->coltypmods ? r->coltypmods[col] : -1;
	e->var.rte = rte;
	e->var.col = col;
	e->var.levelsup = levelsup;
	mark_used(q, rte, col);
	return e;
}

sql_expr *sql_make_var(sql_query *q, int rte, int col, int levelsup, int location)
{
	return make_var(q, rte, col, levelsup, location);
}

/* Whole-row reference to an RTE: a ROW() of its columns. */
/* The oid a relation's tableoid system column holds (0: not a relation).
 * Generated catalogs report the catalog's own oid, as pg_dump expects. */
static cat_oid rte_tableoid(const sql_rte *r)
{
	if (r->kind == SQL_RTE_TABLE && r->rel)
		return r->rel->oid;
	if (r->kind == SQL_RTE_SYSTEM && r->sysview)
		return sql_sysview_oid(r->sysview);
	return 0;
}

static sql_expr *whole_row(sql_query *q, int rte, int levelsup, int location)
{
	sql_rte *r = q->rtes[rte - 1];
	sql_expr *e = sql_expr_new(SQL_E_ROW, TY_RECORD, location);
	e->f.nargs = r->ncols;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)(r->ncols ? r->ncols : 1));
	for (int i = 0; i < r->ncols; i++)
		e->f.args[i] = make_var(q, rte, i, levelsup, location);
	return e;
}

static int find_col(sql_rte *r, const char *name)
{
	for (int i = 0; i < r->ncols; i++)
		if (r->colnames[i] && strcmp(r->colnames[i], name) == 0)
			return i;
	return -1;
}

/* find_col for a reference: a name that appears twice in one RTE (a join's
 * columns) is ambiguous. */
static int find_ref_col(sql_actx *ax, sql_rte *r, const char *name, int location)
{
	int c = find_col(r, name);
	if (c < 0)
		return c;
	for (int i = c + 1; i < r->ncols; i++)
		if (r->colnames[i] && strcmp(r->colnames[i], name) == 0)
			sql_error_at(ax, location, UTIL_E_AMBIGUOUS_COLUMN, "column reference \"%s\" is ambiguous", name);
	return c;
}

/* Does the RTE match a qualifier (alias, or schema.table for tables)? */
static bool rte_matches(sql_actx *ax, sql_rte *r, const char *schema, const char *name)
{
	if (strcmp(r->alias, name) != 0)
		return false;
	if (!schema)
		return true;
	if (r->kind != SQL_RTE_TABLE || r->has_alias)
		return false;
	const char *sn = sql_schema_name(ax->cat, r->rel->rel.schema);
	return sn && strcmp(sn, schema) == 0;
}

static sql_expr *resolve_column(sql_actx *ax, sql_query *q0, PgQuery__ColumnRef *cr)
{
	int nf = (int)cr->n_fields;
	const char *f[4] = {0};
	bool star = false;
	for (int i = 0; i < nf && i < 4; i++) {
		if (cr->fields[i]->node_case == PG_QUERY__NODE__NODE_A_STAR)
			star = true;
		else
			f[i] = str_of(cr->fields[i]);
	}
	if (star && nf == 1)
		sql_error_at(ax, cr->location, UTIL_E_SYNTAX_ERROR, "could not expand * here");
	const char *schema = NULL, *rel = NULL, *col = NULL;
	if (nf == 1)
		col = f[0];
	else if (nf == 2) {
		rel = f[0];
		col = f[1];
	} else if (nf == 3) {
		schema = f[0];
		rel = f[1];
		col = f[2];
	} else {
		sql_error_at(ax, cr->location, UTIL_E_SYNTAX_ERROR, "improper qualified name (too many dotted names)");
	}
	int levelsup = 0;
	for (sql_query *q = q0; q; q = q->parent, levelsup++) {
		if (!rel) {
			int found_rte = -1, found_col = -1;
			const sql_nsitem *found_it = NULL;
			for (int i = 0; i < q->nns; i++) {
				sql_nsitem *it = &q->ns[i];
				if (!it->cols_visible)
					continue;
				int c = find_ref_col(ax, q->rtes[it->rte - 1], col, cr->location);
				if (c < 0)
					continue;
				if (found_rte >= 0)
					sql_error_at(ax, cr->location, UTIL_E_AMBIGUOUS_COLUMN, "column reference \"%s\" is ambiguous",
						     col);
				found_rte = it->rte;
				found_col = c;
				found_it = it;
			}
			if (found_rte >= 0) {
				check_lateral_ref(ax, q, found_it, cr->location);
				return make_var(q, found_rte, found_col, levelsup, cr->location);
			}
			/* The system column tableoid of the only relation in scope. */
			if (!strcmp(col, "tableoid")) {
				cat_oid only = 0;
				int nrel = 0;
				for (int i = 0; i < q->nns; i++)
					if (q->ns[i].cols_visible && rte_tableoid(q->rtes[q->ns[i].rte - 1])) {
						only = rte_tableoid(q->rtes[q->ns[i].rte - 1]);
						nrel++;
					}
				if (nrel == 1)
					return sql_expr_const(TY_OID, -1, ty_int(only), cr->location);
			}
			/* A bare relation name: whole-row reference. */
			for (int i = 0; i < q->nns; i++) {
				sql_nsitem *it = &q->ns[i];
				if (it->rel_visible && strcmp(q->rtes[it->rte - 1]->alias, col) == 0) {
					check_lateral_ref(ax, q, it, cr->location);
					return whole_row(q, it->rte, levelsup, cr->location);
				}
			}
		} else {
			int found = -1;
			for (int i = 0; i < q->nns; i++) {
				sql_nsitem *it = &q->ns[i];
				if (!it->rel_visible || !rte_matches(ax, q->rtes[it->rte - 1], schema, rel))
					continue;
				if (found >= 0)
					sql_error_at(ax, cr->location, UTIL_E_AMBIGUOUS_ALIAS, "table reference \"%s\" is ambiguous",
						     rel);
				found = it->rte;
				check_lateral_ref(ax, q, it, cr->location);
			}
			if (found >= 0) {
				if (star)
					return whole_row(q, found, levelsup, cr->location);
				int c = find_ref_col(ax, q->rtes[found - 1], col, cr->location);
				if (c < 0 && !strcmp(col, "tableoid") && rte_tableoid(q->rtes[found - 1]))
					return sql_expr_const(TY_OID, -1, ty_int(rte_tableoid(q->rtes[found - 1])), cr->location);
				if (c < 0)
					missing_column(ax, q0, rel, col, cr->location);
				return make_var(q, found, c, levelsup, cr->location);
			}
		}
	}
	if (rel) {
		/* PostgreSQL distinguishes an entry that exists but is not visible
		 * here (errorMissingRTE). */
		for (sql_query *q = q0; q; q = q->parent)
			for (int i = 0; i < q->nrtes; i++) {
				sql_rte *r = q->rtes[i];
				/* (a join's RTE has no name, a view target's has) */
				bool by_alias = (r->kind != SQL_RTE_JOIN || r->rel) && strcmp(r->alias, rel) == 0;
				bool by_name = r->kind == SQL_RTE_TABLE && r->has_alias && r->rel && strcmp(r->rel->rel.name, rel) == 0;
				if (!by_alias && !by_name)
					continue;
				util_err *e = ty_errstart(UTIL_E_UNDEFINED_TABLE,
							  "invalid reference to FROM-clause entry for table \"%s\"", rel);
				e->position = sql_errposition(ax->ps->text, cr->location);
				if (by_alias)
					util_err_hint(e, "There is an entry for table \"%s\", but it cannot be referenced from this part of the query.",
						      rel);
				else
					util_err_hint(e, "Perhaps you meant to reference the table alias \"%s\".", r->alias);
				ty_errthrow();
			}
		sql_error_at(ax, cr->location, UTIL_E_UNDEFINED_TABLE, "missing FROM-clause entry for table \"%s\"", rel);
	}
	missing_column(ax, q0, NULL, col, cr->location);
}

/* ---------------------------------------------------------------- literals */

static sql_expr *make_const(sql_actx *ax, PgQuery__AConst *c)
{
	(void)ax;
	if (c->isnull)
		return sql_expr_const(TY_UNKNOWN, -1, ty_null(), c->location);
	switch (c->val_case) {
	case PG_QUERY__A__CONST__VAL_IVAL:
		return sql_expr_const(TY_INT4, -1, ty_int(c->ival->ival), c->location);
	case PG_QUERY__A__CONST__VAL_FVAL: {
		const char *s = c->fval->fval;
		/* Integer literals too large for int4 arrive as "Float": int8 if they fit. */
		bool digits = *s != 0;
		for (const char *p = s; *p; p++)
			if (!((*p >= '0' && *p <= '9') || (p == s && *p == '-')))
				digits = false;
		if (digits && strlen(s) <= 19) {
			errno = 0;
			char *end;
			long long v = strtoll(s, &end, 10);
			if (!errno && !*end)
				return sql_expr_const(TY_INT8, -1, ty_int(v), c->location);
		}
		return sql_expr_const(TY_NUMERIC, -1, ty_input(TY_NUMERIC, s, strlen(s), -1), c->location);
	}
	case PG_QUERY__A__CONST__VAL_BOOLVAL:
		return sql_expr_const(TY_BOOL, -1, ty_bool(c->boolval->boolval), c->location);
	case PG_QUERY__A__CONST__VAL_SVAL:
		return sql_expr_const(TY_UNKNOWN, -1, ty_text(c->sval->sval), c->location);
	case PG_QUERY__A__CONST__VAL_BSVAL: {
		const ty_type *bt = ty_type_get(TY_BIT);
		const char *s = c->bsval->bsval;
		if (!bt)
			sql_error_at(ax, c->location, UTIL_E_FEATURE_NOT_SUPPORTED, "bit string literals are not supported");
		return sql_expr_const(TY_BIT, -1, ty_input(TY_BIT, s + 1, strlen(s + 1), -1), c->location);
	}
	default:
		return sql_expr_const(TY_UNKNOWN, -1, ty_null(), c->location);
	}
}

/* ---------------------------------------------------------------- helpers */

static sql_expr *make_bool(sql_expr_kind kind, sql_expr *a, sql_expr *b, int location)
{
	sql_expr *e = sql_expr_new(kind, TY_BOOL, location);
	e->f.nargs = b ? 2 : 1;
	e->f.args = ty_alloc(sizeof(sql_expr *) * 2);
	e->f.args[0] = a;
	if (b)
		e->f.args[1] = b;
	return e;
}

static const char *op_name(PgQuery__AExpr *a) { return sql_last_name(a->name, a->n_name); }

/* x op ANY/ALL (array) */
static sql_expr *make_anyarray(sql_actx *ax, const char *opname, sql_expr *l, sql_expr *arr, bool all, int location)
{
	if (arr->type == TY_UNKNOWN && arr->kind == SQL_E_CONST) {
		/* '{1,2}' literal: the array type of the left side. */
		ty_oid at = ty_type_get(l->type) ? ty_type_get(l->type)->array : 0;
		if (l->type == TY_UNKNOWN)
			at = TY_TEXT_ARRAY;
		if (!at)
			sql_error_at(ax, location, UTIL_E_UNDEFINED_FUNCTION, "could not find array type for data type %u", l->type);
		arr = sql_coerce(ax, arr, at, -1, SQL_COERCE_IMPLICIT, arr->location);
	}
	const ty_type *at = ty_type_get(arr->type);
	if (!at || !at->elem || at->category != 'A')
		sql_error_at(ax, location, UTIL_E_WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires array on right side");
	sql_expr *elem = sql_expr_new(SQL_E_CASETEST, at->elem, location);
	sql_expr *cmp = sql_make_op(ax, opname, l, elem, location);
	if (cmp->type != TY_BOOL)
		sql_error_at(ax, location, UTIL_E_WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires operator to yield boolean");
	/* If the element side was coerced, coerce the array to match. */
	sql_expr *lhs = cmp->f.args[0];
	ty_oid want_elem = cmp->f.argtypes[1];
	if (want_elem != at->elem) {
		const ty_type *wt = ty_type_get(want_elem);
		if (!wt || !wt->array)
			sql_error_at(ax, location, UTIL_E_UNDEFINED_FUNCTION, "could not find array type for data type %u",
				     want_elem);
		arr = sql_coerce(ax, arr, wt->array, -1, SQL_COERCE_IMPLICIT, arr->location);
	}
	sql_expr *e = sql_expr_new(SQL_E_ANYARRAY, TY_BOOL, location);
	e->f.fn = cmp->f.fn;
	e->f.nargs = 2;
	e->f.args = ty_alloc(sizeof(sql_expr *) * 2);
	e->f.args[0] = lhs;
	e->f.args[1] = arr;
	e->f.argtypes = cmp->f.argtypes;
	e->f.all = all;
	e->f.opname = cmp->f.opname; /* arena copy */
	return e;
}

static sql_expr *xform_cmp_side(sql_actx *ax, sql_query *q, pnode *n);
static void row_unknowns_to_text(sql_actx *ax, sql_expr *e);

static bool has_var(sql_expr *e, void *arg)
{
	(void)arg;
	return e->kind == SQL_E_VAR;
}

/* x IN (a, b, ...) as PostgreSQL's transformAExprIn: items without Vars,
 * when there are several of them with a common type, become one
 * x = ANY(ARRAY[...]); the rest (and Var items) are an OR chain of x = item
 * (AND of <> for NOT IN). */
static sql_expr *transform_in(sql_actx *ax, sql_query *q, PgQuery__AExpr *a)
{
	const char *op = op_name(a);
	bool notin = strcmp(op, "<>") == 0;
	sql_expr *l = xform_cmp_side(ax, q, a->lexpr);
	PgQuery__List *lst = a->rexpr->list;
	int n = (int)lst->n_items;
	sql_expr **items = ty_alloc(sizeof(sql_expr *) * (size_t)(n + 1));
	bool rows = l->kind == SQL_E_ROW;
	for (int i = 0; i < n; i++)
		items[i] = rows ? xform_cmp_side(ax, q, lst->items[i]) : xform(ax, q, lst->items[i]);
	sql_expr **nonvars = ty_alloc(sizeof(sql_expr *) * (size_t)(n + 1));
	sql_expr **rest = ty_alloc(sizeof(sql_expr *) * (size_t)(n + 1));
	int nnv = 0, nrest = 0;
	for (int i = 0; i < n; i++) {
		if (!rows && items[i]->kind != SQL_E_ROW && !sql_expr_walk(items[i], has_var, NULL))
			nonvars[nnv++] = items[i];
		else
			rest[nrest++] = items[i];
	}
	sql_expr *acc = NULL;
	if (nnv > 1) {
		nonvars[nnv] = l;
		volatile bool ok = true;
		volatile ty_oid common = TY_UNKNOWN;
		TY_TRY(tc)
		{
			common = sql_common_type(nonvars, nnv + 1, "IN", NULL);
		}
		TY_CATCH(tc)
		{
			ok = false;
		}
		TY_END(tc);
		const ty_type *ct = ty_type_get(common);
		if (ok && ct && ct->array) {
			bool all_ok = true;
			for (int i = 0; i <= nnv && all_ok; i++)
				all_ok = sql_can_coerce(nonvars[i]->type, common, SQL_COERCE_IMPLICIT);
			if (all_ok) {
				sql_expr *arr = sql_expr_new(SQL_E_ARRAY, ct->array, a->location);
				arr->f.nargs = nnv;
				arr->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)nnv);
				for (int i = 0; i < nnv; i++)
					arr->f.args[i] = sql_coerce(ax, nonvars[i], common, -1, SQL_COERCE_IMPLICIT, nonvars[i]->location);
				sql_expr *lc = sql_coerce(ax, sql_expr_copy(l), common, -1, SQL_COERCE_IMPLICIT, l->location);
				acc = make_anyarray(ax, notin ? "<>" : "=", lc, arr, notin, a->location);
				nnv = 0;
			}
		}
	}
	for (int i = 0; i < nnv; i++)
		rest[nrest++] = nonvars[i];
	if (rows)
		for (int i = 0; i < n; i++)
			rest[i] = items[i];
	for (int i = 0; i < nrest; i++) {
		sql_expr *cmp;
		if (rows && rest[i]->kind == SQL_E_ROW) {
			sql_expr *ra = l, *rb = rest[i];
			if (ra->f.nargs != rb->f.nargs)
				sql_error_at(ax, a->location, UTIL_E_SYNTAX_ERROR, "unequal number of entries in row expressions");
			sql_expr *r = NULL;
			for (int k = 0; k < ra->f.nargs; k++) {
				sql_expr *c = sql_make_op(ax, notin ? "<>" : "=", sql_expr_copy(ra->f.args[k]), rb->f.args[k], a->location);
				r = r ? make_bool(notin ? SQL_E_OR : SQL_E_AND, r, c, a->location) : c;
			}
			cmp = r;
		} else {
			if (rows)
				row_unknowns_to_text(ax, l);
			cmp = sql_make_op(ax, notin ? "<>" : "=", sql_expr_copy(l), rest[i], a->location);
		}
		acc = acc ? make_bool(notin ? SQL_E_AND : SQL_E_OR, acc, cmp, a->location) : cmp;
	}
	return acc;
}

/* A row constructor whose unknown literals keep their type (a comparison
 * resolves them against the other side, as in PostgreSQL). */
static sql_expr *xform_cmp_side(sql_actx *ax, sql_query *q, pnode *n)
{
	if (!n || n->node_case != PG_QUERY__NODE__NODE_ROW_EXPR)
		return xform(ax, q, n);
	PgQuery__RowExpr *r = n->row_expr;
	sql_expr *e = sql_expr_new(SQL_E_ROW, TY_RECORD, r->location);
	e->f.nargs = (int)r->n_args;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (r->n_args ? r->n_args : 1));
	for (size_t i = 0; i < r->n_args; i++)
		e->f.args[i] = xform(ax, q, r->args[i]);
	return e;
}

/* What a row constructor gets outside comparisons: unknown literals as text. */
static void row_unknowns_to_text(sql_actx *ax, sql_expr *e)
{
	for (int i = 0; i < e->f.nargs; i++)
		if (e->f.args[i]->type == TY_UNKNOWN)
			e->f.args[i] = sql_coerce(ax, e->f.args[i], TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
}

static int rowcmp_type(const char *op)
{
	if (!strcmp(op, "<"))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_LT;
	if (!strcmp(op, "<="))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_LE;
	if (!strcmp(op, "="))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_EQ;
	if (!strcmp(op, ">="))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_GE;
	if (!strcmp(op, ">"))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_GT;
	if (!strcmp(op, "<>"))
		return PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_NE;
	return 0;
}

/* (a, b) op (SELECT x, y): a row-comparison sublink over at most one row;
 * each column pair is brought to a common type and compared by its
 * ordering (PostgreSQL's ROWCOMPARE_SUBLINK). */
static sql_expr *transform_row_sublink(sql_actx *ax, sql_query *q, sql_expr *l, PgQuery__SubLink *sl, const char *op,
				       int location)
{
	int rt = rowcmp_type(op);
	if (!rt)
		sql_error_at(ax, location, UTIL_E_FEATURE_NOT_SUPPORTED, "row comparison operator %s is not supported", op);
	sql_query *sq = sql_analyze_select(ax, sl->subselect->select_stmt, q, q->ctes, q->nctes);
	int n = l->f.nargs;
	if (sq->nret != n)
		sql_error_at(ax, sl->location, UTIL_E_SYNTAX_ERROR,
			     n < sq->nret ? "subquery has too many columns" : "subquery has too few columns");
	sql_expr *e = sql_expr_new(SQL_E_SUBLINK, TY_BOOL, location);
	e->sub.query = sq;
	e->sub.kind = SQL_SUB_ROWCMP;
	e->sub.rowcmp_op = rt;
	for (int i = 0, k = 0; i < sq->ntargets; i++) {
		sql_target *t = &sq->targets[i];
		if (t->junk)
			continue;
		sql_expr *pair[2] = {l->f.args[k], t->expr};
		ty_oid ct = sql_common_type(pair, 2, "row comparison", NULL);
		const ty_type *ty = ty_type_get(ct);
		if (!ty || !ty->cmp)
			sql_error_at(ax, location, UTIL_E_UNDEFINED_FUNCTION, "could not identify a comparison function for type %s",
				     ty ? ty->name : "?");
		l->f.args[k] = sql_coerce(ax, l->f.args[k], ct, -1, SQL_COERCE_IMPLICIT, l->f.args[k]->location);
		t->expr = sql_coerce(ax, t->expr, ct, -1, SQL_COERCE_IMPLICIT, t->expr->location);
		k++;
	}
	e->sub.testexpr = l;
	return e;
}

static sql_expr *transform_aexpr(sql_actx *ax, sql_query *q, PgQuery__AExpr *a)
{
	switch (a->kind) {
	case PG_QUERY__A__EXPR__KIND__AEXPR_OP: {
		const char *op = op_name(a);
		sql_expr *l = a->lexpr ? xform_cmp_side(ax, q, a->lexpr) : NULL;
		if (l && l->kind == SQL_E_ROW && a->rexpr->node_case == PG_QUERY__NODE__NODE_SUB_LINK &&
		    a->rexpr->sub_link->sub_link_type == PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK)
			return transform_row_sublink(ax, q, l, a->rexpr->sub_link, op, a->location);
		sql_expr *r = xform_cmp_side(ax, q, a->rexpr);
		if (l && l->kind == SQL_E_ROW && r->kind != SQL_E_ROW)
			row_unknowns_to_text(ax, l);
		if (r->kind == SQL_E_ROW && (!l || l->kind != SQL_E_ROW))
			row_unknowns_to_text(ax, r);
		/* Row comparisons: (a, b) = (c, d). */
		if (l && l->kind == SQL_E_ROW && r->kind == SQL_E_ROW) {
			if (l->f.nargs != r->f.nargs)
				sql_error_at(ax, a->location, UTIL_E_SYNTAX_ERROR, "unequal number of entries in row expressions");
			bool eq = !strcmp(op, "="), ne = !strcmp(op, "<>");
			if (eq || ne) {
				sql_expr *acc = NULL;
				for (int i = 0; i < l->f.nargs; i++) {
					sql_expr *c = sql_make_op(ax, op, l->f.args[i], r->f.args[i], a->location);
					acc = acc ? make_bool(eq ? SQL_E_AND : SQL_E_OR, acc, c, a->location) : c;
				}
				return acc;
			}
			sql_expr *e = sql_expr_new(SQL_E_ROWCMP, TY_BOOL, a->location);
			e->f.nargs = l->f.nargs * 2;
			e->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)e->f.nargs);
			e->f.opname = ty_strdup(op);
			for (int i = 0; i < l->f.nargs; i++) {
				sql_expr *c = sql_make_op(ax, op, l->f.args[i], r->f.args[i], a->location);
				e->f.args[2 * i] = c->f.args[0];
				e->f.args[2 * i + 1] = c->f.args[1];
			}
			return e;
		}
		return sql_make_op(ax, op, l, r, a->location);
	}
	case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY:
	case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL: {
		sql_expr *l = xform(ax, q, a->lexpr);
		sql_expr *r = xform(ax, q, a->rexpr);
		return make_anyarray(ax, op_name(a), l, r, a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL, a->location);
	}
	case PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT:
	case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT: {
		sql_expr *l = xform(ax, q, a->lexpr);
		sql_expr *r = xform(ax, q, a->rexpr);
		if (l->kind == SQL_E_ROW && r->kind == SQL_E_ROW) {
			/* Row-wise: distinct if any column is distinct. */
			sql_expr *acc = NULL;
			for (int i = 0; i < l->f.nargs && i < r->f.nargs; i++) {
				sql_expr *eq = sql_make_op(ax, "=", l->f.args[i], r->f.args[i], a->location);
				sql_expr *d = sql_expr_new(SQL_E_DISTINCT, TY_BOOL, a->location);
				*d = *eq;
				d->kind = SQL_E_DISTINCT;
				d->type = TY_BOOL;
				acc = acc ? make_bool(SQL_E_OR, acc, d, a->location) : d;
			}
			if (a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT)
				acc = make_bool(SQL_E_NOT, acc, NULL, a->location);
			return acc;
		}
		sql_expr *eq = sql_make_op(ax, "=", l, r, a->location);
		sql_expr *d = sql_expr_new(SQL_E_DISTINCT, TY_BOOL, a->location);
		d->f = eq->f;
		d->f.negate = a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT;
		return d;
	}
	case PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF: {
		sql_expr *l = xform(ax, q, a->lexpr);
		sql_expr *r = xform(ax, q, a->rexpr);
		sql_expr *eq = sql_make_op(ax, "=", l, r, a->location);
		sql_expr *e = sql_expr_new(SQL_E_NULLIF, eq->f.args[0]->type, a->location);
		e->typmod = eq->f.args[0]->typmod;
		e->f = eq->f;
		if (e->type == TY_UNKNOWN) {
			e->f.args[0] = sql_coerce(ax, e->f.args[0], TY_TEXT, -1, SQL_COERCE_IMPLICIT, a->location);
			e->type = TY_TEXT;
		}
		return e;
	}
	case PG_QUERY__A__EXPR__KIND__AEXPR_IN:
		return transform_in(ax, q, a);
	case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE:
	case PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE:
	case PG_QUERY__A__EXPR__KIND__AEXPR_SIMILAR: {
		sql_expr *l = xform(ax, q, a->lexpr);
		sql_expr *r = xform(ax, q, a->rexpr);
		return sql_make_op(ax, op_name(a), l, r, a->location);
	}
	case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
	case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
	case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
	case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM: {
		PgQuery__List *lst = a->rexpr->list;
		sql_expr *x = xform(ax, q, a->lexpr);
		sql_expr *lo = xform(ax, q, lst->items[0]);
		sql_expr *hi = xform(ax, q, lst->items[1]);
		bool neg = a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN ||
			   a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
		bool sym = a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM ||
			   a->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
		sql_expr *r;
		if (!neg)
			r = make_bool(SQL_E_AND, sql_make_op(ax, ">=", x, lo, a->location),
				      sql_make_op(ax, "<=", sql_expr_copy(x), hi, a->location), a->location);
		else
			r = make_bool(SQL_E_OR, sql_make_op(ax, "<", x, lo, a->location),
				      sql_make_op(ax, ">", sql_expr_copy(x), hi, a->location), a->location);
		if (sym) {
			sql_expr *x2 = sql_expr_copy(x);
			sql_expr *r2;
			if (!neg)
				r2 = make_bool(SQL_E_AND, sql_make_op(ax, ">=", x2, sql_expr_copy(hi), a->location),
					       sql_make_op(ax, "<=", sql_expr_copy(x2), sql_expr_copy(lo), a->location),
					       a->location);
			else
				r2 = make_bool(SQL_E_OR, sql_make_op(ax, "<", x2, sql_expr_copy(hi), a->location),
					       sql_make_op(ax, ">", sql_expr_copy(x2), sql_expr_copy(lo), a->location),
					       a->location);
			r = make_bool(neg ? SQL_E_AND : SQL_E_OR, r, r2, a->location);
		}
		return r;
	}
	default:
		sql_error_at(ax, a->location, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported expression");
	}
}

/* ---------------------------------------------------------------- special forms */

static sql_expr *transform_bool(sql_actx *ax, sql_query *q, PgQuery__BoolExpr *b)
{
	sql_expr_kind k = b->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? SQL_E_AND
			  : b->boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? SQL_E_OR
									   : SQL_E_NOT;
	const char *what = k == SQL_E_AND ? "AND" : k == SQL_E_OR ? "OR" : "NOT";
	sql_expr *e = sql_expr_new(k, TY_BOOL, b->location);
	e->f.nargs = (int)b->n_args;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (b->n_args ? b->n_args : 1));
	for (size_t i = 0; i < b->n_args; i++)
		e->f.args[i] = sql_coerce_bool(ax, xform(ax, q, b->args[i]), what);
	return e;
}

static sql_expr *transform_case(sql_actx *ax, sql_query *q, PgQuery__CaseExpr *c)
{
	sql_expr *arg = c->arg ? xform(ax, q, c->arg) : NULL;
	int nw = (int)c->n_args;
	sql_expr **results = ty_alloc(sizeof(sql_expr *) * (size_t)(nw + 1));
	sql_expr **conds = ty_alloc(sizeof(sql_expr *) * (size_t)(nw ? nw : 1));
	int *locs = ty_alloc(sizeof(int) * (size_t)(nw + 1));
	for (int i = 0; i < nw; i++) {
		PgQuery__CaseWhen *w = c->args[i]->case_when;
		sql_expr *cond;
		if (arg) {
			sql_expr *test = sql_expr_new(SQL_E_CASETEST, arg->type, w->location);
			test->typmod = arg->typmod;
			cond = sql_make_op(ax, "=", test, xform(ax, q, w->expr), w->location);
		} else {
			cond = sql_coerce_bool(ax, xform(ax, q, w->expr), "CASE/WHEN");
		}
		conds[i] = cond;
		results[i] = xform(ax, q, w->result);
		locs[i] = sql_errposition(ax->ps->text, results[i]->location);
	}
	sql_expr *def = c->defresult ? xform(ax, q, c->defresult) : sql_expr_const(TY_UNKNOWN, -1, ty_null(), -1);
	results[nw] = def;
	locs[nw] = sql_errposition(ax->ps->text, def->location);
	/* PostgreSQL resolves the default result first. */
	sql_expr **order = ty_alloc(sizeof(sql_expr *) * (size_t)(nw + 1));
	order[0] = def;
	for (int i = 0; i < nw; i++)
		order[i + 1] = results[i];
	ty_oid rt = sql_common_type(order, nw + 1, "CASE", NULL);
	sql_expr *e = sql_expr_new(SQL_E_CASE, rt, c->location);
	e->f.nargs = (arg ? 1 : 0) + 2 * nw + 1;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)e->f.nargs);
	int k = 0;
	if (arg)
		e->f.args[k++] = arg;
	e->f.negate = arg != NULL; /* has a test value */
	for (int i = 0; i < nw; i++) {
		e->f.args[k++] = conds[i];
		e->f.args[k++] = sql_coerce(ax, results[i], rt, -1, SQL_COERCE_IMPLICIT, results[i]->location);
	}
	e->f.args[k++] = sql_coerce(ax, def, rt, -1, SQL_COERCE_IMPLICIT, def->location);
	/* The results' typmod when they all agree (PostgreSQL's exprTypmod). */
	e->typmod = e->f.args[k - 1]->typmod;
	for (int i = 0; i < nw; i++)
		if (e->f.args[(arg ? 1 : 0) + 2 * i + 1]->typmod != e->typmod)
			e->typmod = -1;
	return e;
}

static sql_expr *transform_varargs(sql_actx *ax, sql_query *q, sql_expr_kind kind, PgQuery__Node **args, size_t n,
				   const char *what, int location)
{
	sql_expr **xs = ty_alloc(sizeof(sql_expr *) * (n ? n : 1));
	for (size_t i = 0; i < n; i++)
		xs[i] = xform(ax, q, args[i]);
	ty_oid t = sql_common_type(xs, (int)n, what, NULL);
	sql_expr *e = sql_expr_new(kind, t, location);
	e->f.nargs = (int)n;
	e->f.args = xs;
	int32_t tm = -2;
	for (size_t i = 0; i < n; i++) {
		xs[i] = sql_coerce(ax, xs[i], t, -1, SQL_COERCE_IMPLICIT, xs[i]->location);
		tm = tm == -2 ? xs[i]->typmod : tm == xs[i]->typmod ? tm : -1;
	}
	e->typmod = tm < -1 ? -1 : tm;
	if (kind == SQL_E_GREATEST || kind == SQL_E_LEAST) {
		const ty_type *ty = ty_type_get(t);
		if (!ty || !ty->cmp)
			sql_error_at(ax, location, UTIL_E_UNDEFINED_FUNCTION, "could not identify a comparison function for type %s",
				     ty ? ty->name : "?");
	}
	return e;
}

static sql_expr *transform_typecast(sql_actx *ax, sql_query *q, PgQuery__TypeCast *tc)
{
	ty_oid t;
	int32_t tm;
	sql_typename(ax, tc->type_name, &t, &tm);
	/* ARRAY[...]::type[] coerces elements individually (PostgreSQL). */
	sql_expr *arg = xform(ax, q, tc->arg);
	int loc = tc->location;
	return sql_coerce(ax, arg, t, tm, SQL_COERCE_EXPLICIT, loc);
}

static sql_expr *transform_array(sql_actx *ax, sql_query *q, PgQuery__AArrayExpr *a, ty_oid want, int32_t want_typmod)
{
	int n = (int)a->n_elements;
	sql_expr **xs = ty_alloc(sizeof(sql_expr *) * (size_t)(n ? n : 1));
	bool nested = false;
	for (int i = 0; i < n; i++) {
		pnode *el = a->elements[i];
		if (el->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR) {
			const ty_type *wt = want ? ty_type_get(want) : NULL;
			xs[i] = transform_array(ax, q, el->a_array_expr, wt ? want : 0, want_typmod);
			nested = true;
		} else {
			xs[i] = xform(ax, q, el);
		}
	}
	ty_oid et;
	if (want) {
		const ty_type *wt = ty_type_get(want);
		et = wt && wt->elem ? wt->elem : TY_TEXT;
	} else if (n == 0) {
		sql_error_at(ax, a->location, UTIL_E_INDETERMINATE_DATATYPE, "cannot determine type of empty array");
	} else {
		et = sql_common_type(xs, n, "ARRAY", NULL);
	}
	if (nested) {
		const ty_type *t = ty_type_get(et);
		if (t && t->elem && t->category == 'A')
			et = t->elem;
	}
	const ty_type *ety = ty_type_get(et);
	ty_oid at = ety ? (ety->category == 'A' ? et : ety->array) : 0;
	if (!at)
		sql_error_at(ax, a->location, UTIL_E_UNDEFINED_OBJECT, "could not find array type for data type %s",
			     ety ? ety->name : "?");
	sql_expr *e = sql_expr_new(SQL_E_ARRAY, at, a->location);
	e->f.nargs = n;
	e->f.args = xs;
	e->f.negate = nested; /* elements are arrays: build a multi-dimensional array */
	/* ARRAY[...]::type[] casts the elements explicitly, with the type's
	 * typmod (PostgreSQL: ARRAY['abc']::varchar(2)[] is {ab}). */
	for (int i = 0; i < n; i++)
		xs[i] = sql_coerce(ax, xs[i], nested ? at : et, want ? want_typmod : -1,
				   want ? SQL_COERCE_EXPLICIT : SQL_COERCE_IMPLICIT, xs[i]->location);
	/* The elements' typmod when they all agree (PostgreSQL's exprTypmod). */
	e->typmod = n ? xs[0]->typmod : -1;
	for (int i = 1; i < n; i++)
		if (xs[i]->typmod != e->typmod)
			e->typmod = -1;
	if (e->typmod < -1)
		e->typmod = -1;
	return e;
}

static sql_expr *transform_sqlvalue(sql_actx *ax, sql_query *q, PgQuery__SQLValueFunction *sv)
{
	(void)q;
	int loc = sv->location;
	sql_expr *now;
	switch (sv->op) {
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE:
		now = sql_make_func(ax, "now", NULL, 0, loc, false);
		return sql_coerce(ax, now, TY_DATE, -1, SQL_COERCE_EXPLICIT, loc);
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIME_N:
		now = sql_make_func(ax, "now", NULL, 0, loc, false);
		return sql_coerce(ax, now, TY_TIMETZ, sv->typmod, SQL_COERCE_EXPLICIT, loc);
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N:
		now = sql_make_func(ax, "now", NULL, 0, loc, false);
		return sv->typmod >= 0 ? sql_coerce(ax, now, TY_TIMESTAMPTZ, sv->typmod, SQL_COERCE_EXPLICIT, loc) : now;
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIME_N:
		now = sql_make_func(ax, "now", NULL, 0, loc, false);
		return sql_coerce(ax, now, TY_TIME, sv->typmod, SQL_COERCE_EXPLICIT, loc);
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N:
		now = sql_make_func(ax, "now", NULL, 0, loc, false);
		return sql_coerce(ax, now, TY_TIMESTAMP, sv->typmod, SQL_COERCE_EXPLICIT, loc);
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER:
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: {
		sql_expr *e = sql_expr_new(SQL_E_SESSION, TY_NAME, loc);
		e->sv = SQL_SV_CURRENT_USER;
		return e;
	}
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: {
		sql_expr *e = sql_expr_new(SQL_E_SESSION, TY_NAME, loc);
		e->sv = SQL_SV_SESSION_USER;
		return e;
	}
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: {
		sql_expr *e = sql_expr_new(SQL_E_SESSION, TY_NAME, loc);
		e->sv = SQL_SV_CURRENT_CATALOG;
		return e;
	}
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: {
		sql_expr *e = sql_expr_new(SQL_E_SESSION, TY_NAME, loc);
		e->sv = SQL_SV_CURRENT_SCHEMA;
		return e;
	}
	default:
		sql_error_at(ax, loc, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported SQL value function");
	}
}

static sql_expr *transform_nulltest(sql_actx *ax, sql_query *q, PgQuery__NullTest *nt)
{
	sql_expr *arg = xform(ax, q, nt->arg);
	sql_expr *e = sql_expr_new(SQL_E_NULLTEST, TY_BOOL, nt->location);
	e->f.nargs = 1;
	e->f.args = ty_alloc(sizeof(sql_expr *));
	e->f.args[0] = arg;
	e->f.negate = nt->nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NOT_NULL;
	return e;
}

static sql_expr *transform_booltest(sql_actx *ax, sql_query *q, PgQuery__BooleanTest *bt)
{
	static const char *names[] = {"", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE", "IS UNKNOWN",
				      "IS NOT UNKNOWN"};
	sql_expr *arg = sql_coerce_bool(ax, xform(ax, q, bt->arg), names[bt->booltesttype]);
	sql_expr *e = sql_expr_new(SQL_E_BOOLTEST, TY_BOOL, bt->location);
	e->f.nargs = 1;
	e->f.args = ty_alloc(sizeof(sql_expr *));
	e->f.args[0] = arg;
	e->f.booltest = bt->booltesttype;
	return e;
}

/* Array subscripts of one indirection run (a[i][j:k]) into one SUBSCRIPT
 * node: with any slice every subscript is a slice and the result is an
 * array, else the element. */
static sql_expr *make_subscript(sql_actx *ax, sql_query *q, sql_expr *arr, PgQuery__Node **ind, size_t n)
{
	const ty_type *t = ty_type_get(arr->type);
	if (arr->type == TY_UNKNOWN)
		sql_error_at(ax, arr->location, UTIL_E_DATATYPE_MISMATCH, "cannot subscript type unknown");
	if (!t || !t->elem || t->category != 'A')
		sql_error_at(ax, arr->location, UTIL_E_DATATYPE_MISMATCH,
			     "cannot subscript type %s because it does not support subscripting", t ? t->name : "?");
	if (n > TY_ARRAY_MAXDIM) {
		util_err *e = ty_errstart(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "number of array dimensions (%d) exceeds the maximum allowed (%d)",
					  (int)n, TY_ARRAY_MAXDIM);
		e->position = sql_errposition(ax->ps->text, arr->location);
		ty_errthrow();
	}
	bool slice = false;
	for (size_t i = 0; i < n; i++)
		slice |= ind[i]->a_indices->is_slice;
	sql_expr *s = sql_expr_new(SQL_E_SUBSCRIPT, slice ? arr->type : t->elem, arr->location);
	s->typmod = arr->typmod; /* the element's too (PostgreSQL's reftypmod) */
	s->f.nargs = 1 + 2 * (int)n;
	s->f.args = ty_alloc0(sizeof(sql_expr *) * (size_t)s->f.nargs);
	s->f.args[0] = arr;
	s->f.booltest = (int)n;
	s->f.all = slice;
	for (size_t i = 0; i < n; i++) {
		PgQuery__AIndices *ai = ind[i]->a_indices;
		pnode *lo = ai->is_slice ? ai->lidx : NULL, *hi = ai->is_slice ? ai->uidx : ai->uidx ? ai->uidx : ai->lidx;
		if (!ai->is_slice) {
			/* a[i] in a slice run means a[1:i] */
			lo = NULL;
		}
		sql_expr *le = NULL, *he = NULL;
		if (lo) {
			le = xform(ax, q, lo);
			if (!sql_can_coerce(le->type, TY_INT4, SQL_COERCE_ASSIGNMENT))
				sql_error_at(ax, le->location, UTIL_E_DATATYPE_MISMATCH, "array subscript must have type integer");
			le = sql_coerce(ax, le, TY_INT4, -1, SQL_COERCE_ASSIGNMENT, le->location);
		}
		if (hi) {
			he = xform(ax, q, hi);
			if (!sql_can_coerce(he->type, TY_INT4, SQL_COERCE_ASSIGNMENT))
				sql_error_at(ax, he->location, UTIL_E_DATATYPE_MISMATCH, "array subscript must have type integer");
			he = sql_coerce(ax, he, TY_INT4, -1, SQL_COERCE_ASSIGNMENT, he->location);
		}
		if (!slice) {
			s->f.args[1 + 2 * i] = he; /* the index */
		} else {
			if (!ai->is_slice)
				le = sql_expr_const(TY_INT4, -1, ty_int(1), -1);
			s->f.args[1 + 2 * i] = le;
			s->f.args[2 + 2 * i] = he;
		}
	}
	return s;
}

/* A record's field by name (ROW(...).f1, (rec).col). */
static sql_expr *make_field(sql_actx *ax, sql_expr *e, const char *fname)
{
	int nf = 0, idx = -1;
	if (e->kind == SQL_E_ROW) {
		nf = e->f.nargs;
		if (!strncmp(fname, "f", 1)) {
			char *end;
			long k = strtol(fname + 1, &end, 10);
			if (!*end && k >= 1 && k <= nf)
				idx = (int)k - 1;
		}
		if (idx >= 0) {
			sql_expr *x = e->f.args[idx];
			return x->type == TY_UNKNOWN ? sql_coerce(ax, x, TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1) : x;
		}
	}
	if (e->type == TY_RECORD || e->kind == SQL_E_ROW)
		sql_error_at(ax, e->location, UTIL_E_UNDEFINED_COLUMN, "could not identify column \"%s\" in record data type",
			     fname);
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(e->type, -1, &b);
	util_err *er = ty_errstart(UTIL_E_UNDEFINED_COLUMN, "column notation .%s applied to type %s, which is not a composite type",
				   fname, b.data ? b.data : "?");
	util_buf_free(&b);
	er->position = sql_errposition(ax->ps->text, e->location);
	ty_errthrow();
}

static sql_expr *transform_indirection(sql_actx *ax, sql_query *q, PgQuery__AIndirection *ind)
{
	sql_expr *e = xform(ax, q, ind->arg);
	size_t i = 0;
	while (i < ind->n_indirection) {
		pnode *n = ind->indirection[i];
		if (n->node_case == PG_QUERY__NODE__NODE_A_INDICES) {
			if (e->type == TY_NAME && !n->a_indices->is_slice && n->a_indices->uidx) {
				/* name is a fixed-length "char" array: name[0] is its first byte. */
				e = sql_name_subscript(ax, e, xform(ax, q, n->a_indices->uidx));
				i++;
				continue;
			}
			size_t k = i;
			while (k < ind->n_indirection && ind->indirection[k]->node_case == PG_QUERY__NODE__NODE_A_INDICES)
				k++;
			e = make_subscript(ax, q, e, ind->indirection + i, k - i);
			i = k;
		} else if (n->node_case == PG_QUERY__NODE__NODE_STRING) {
			sql_expr *fe = sql_record_field(q, e, n->string->sval);
			e = fe ? fe : make_field(ax, e, n->string->sval);
			i++;
		} else {
			sql_error_at(ax, e->location, UTIL_E_FEATURE_NOT_SUPPORTED, "row expansion via \"*\" is not supported here");
		}
	}
	return e;
}

/* ---------------------------------------------------------------- sublinks */

static sql_expr *transform_sublink(sql_actx *ax, sql_query *q, PgQuery__SubLink *sl)
{
	pnode *sub = sl->subselect;
	if (sub->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
		sql_error_at(ax, sl->location, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported subquery");
	sql_query *sq = sql_analyze_select(ax, sub->select_stmt, q, q->ctes, q->nctes);
	sql_expr *e = sql_expr_new(SQL_E_SUBLINK, TY_BOOL, sl->location);
	e->sub.query = sq;
	switch (sl->sub_link_type) {
	case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK:
		e->sub.kind = SQL_SUB_EXISTS;
		return e;
	case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK:
		if (sq->nret != 1)
			sql_error_at(ax, sl->location, UTIL_E_SYNTAX_ERROR, "subquery must return only one column");
		e->sub.kind = SQL_SUB_EXPR;
		e->type = sq->targets[0].expr->type;
		e->typmod = sq->targets[0].expr->typmod;
		if (e->type == TY_UNKNOWN)
			e->type = TY_TEXT;
		return e;
	case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK: {
		if (sq->nret != 1)
			sql_error_at(ax, sl->location, UTIL_E_SYNTAX_ERROR, "subquery must return only one column");
		e->sub.kind = SQL_SUB_ARRAY;
		ty_oid et = sq->targets[0].expr->type == TY_UNKNOWN ? TY_TEXT : sq->targets[0].expr->type;
		const ty_type *t = ty_type_get(et);
		if (!t || !t->array)
			sql_error_at(ax, sl->location, UTIL_E_UNDEFINED_OBJECT, "could not find array type for data type %s",
				     t ? t->name : "?");
		e->type = t->array;
		e->typmod = sq->targets[0].expr->typmod; /* PostgreSQL's exprTypmod: the column's */
		return e;
	}
	case PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK:
	case PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK: {
		e->sub.kind = sl->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK ? SQL_SUB_ANY : SQL_SUB_ALL;
		const char *op = sl->n_oper_name ? sql_last_name(sl->oper_name, sl->n_oper_name) : "=";
		sql_expr *l = xform(ax, q, sl->testexpr);
		int nl = l->kind == SQL_E_ROW ? l->f.nargs : 1;
		if (nl != sq->nret)
			sql_error_at(ax, sl->location, UTIL_E_SYNTAX_ERROR,
				     nl < sq->nret ? "subquery has too many columns" : "subquery has too few columns");
		e->sub.ncmp = nl;
		e->sub.cmp = ty_alloc(sizeof(ty_func *) * (size_t)nl);
		sql_expr *test = sql_expr_new(SQL_E_ROW, TY_RECORD, l->location);
		test->f.nargs = nl;
		test->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)nl);
		for (int i = 0; i < nl; i++) {
			sql_expr *li = l->kind == SQL_E_ROW ? l->f.args[i] : l;
			sql_expr *ri = sql_expr_new(SQL_E_CASETEST, sq->targets[i].expr->type, sl->location);
			if (ri->type == TY_UNKNOWN)
				ri->type = TY_TEXT;
			sql_expr *cmp = sql_make_op(ax, op, li, ri, sl->location);
			if (cmp->type != TY_BOOL)
				sql_error_at(ax, sl->location, UTIL_E_DATATYPE_MISMATCH, "operator %s must return type boolean, not type %u",
					     op, cmp->type);
			e->sub.cmp[i] = cmp->f.fn;
			test->f.args[i] = cmp->f.args[0];
			/* Coerce the subquery's column if the operator wants another type. */
			if (cmp->f.argtypes[1] != ri->type) {
				sql_target *t = &sq->targets[i];
				t->expr = sql_coerce(ax, t->expr, cmp->f.argtypes[1], -1, SQL_COERCE_IMPLICIT, t->expr->location);
			}
		}
		e->sub.testexpr = test;
		return e;
	}
	default:
		sql_error_at(ax, sl->location, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported subquery type");
	}
}

/* ---------------------------------------------------------------- functions, aggregates, windows */

static bool is_generic_agg(const char *name, int nargs, bool star)
{
	if (star)
		return !strcmp(name, "count");
	return nargs == 1 && (!strcmp(name, "count") || !strcmp(name, "min") || !strcmp(name, "max"));
}

static bool agg_exists(const char *name)
{
	int cur = 0;
	if (!strcmp(name, "count") || !strcmp(name, "min") || !strcmp(name, "max"))
		return true;
	return ty_agg_lookup(name, &cur) != NULL;
}

static const char *ctx_name(sql_expr_ctx c)
{
	switch (c) {
	case SQL_EXPR_WHERE: return "WHERE";
	case SQL_EXPR_JOIN_ON: return "JOIN conditions";
	case SQL_EXPR_GROUP: return "GROUP BY";
	case SQL_EXPR_LIMIT: return "LIMIT";
	case SQL_EXPR_OFFSET: return "OFFSET";
	case SQL_EXPR_VALUES: return "VALUES";
	case SQL_EXPR_INSERT_VALUES: return "VALUES";
	case SQL_EXPR_UPDATE_SET: return "UPDATE";
	case SQL_EXPR_RETURNING: return "RETURNING";
	case SQL_EXPR_DEFAULT: return "DEFAULT expressions";
	case SQL_EXPR_CHECK: return "check constraints";
	case SQL_EXPR_FROM_FUNCTION: return "functions in FROM";
	case SQL_EXPR_INDEX: return "index expressions";
	case SQL_EXPR_CALL: return "CALL arguments";
	case SQL_EXPR_FILTER: return "FILTER";
	case SQL_EXPR_INDEX_PRED: return "index predicates";
	default: return NULL;
	}
}

/* Resolves an aggregate by name and argument types. */
static void resolve_agg(sql_actx *ax, sql_aggref *ar, const char *name, int location)
{
	ty_oid actual[TY_FUNC_MAX_ARGS];
	int n = ar->nargs;
	for (int i = 0; i < n; i++)
		actual[i] = ar->args[i]->type;
	if (is_generic_agg(name, n, ar->star)) {
		if (ar->star) {
			ar->kind = SQL_AGG_COUNT_STAR;
			ar->rettype = TY_INT8;
		} else if (!strcmp(name, "count")) {
			ar->kind = SQL_AGG_COUNT;
			ar->rettype = TY_INT8;
			if (actual[0] == TY_UNKNOWN)
				ar->args[0] = sql_coerce(ax, ar->args[0], TY_TEXT, -1, SQL_COERCE_IMPLICIT, location);
		} else {
			ar->kind = !strcmp(name, "min") ? SQL_AGG_MIN : SQL_AGG_MAX;
			/* PostgreSQL has min/max(text) for varchar and name. */
			if (actual[0] == TY_UNKNOWN || actual[0] == TY_VARCHAR || actual[0] == TY_NAME)
				ar->args[0] = sql_coerce(ax, ar->args[0], TY_TEXT, -1, SQL_COERCE_IMPLICIT, location);
			const ty_type *t = ty_type_get(ar->args[0]->type);
			if (!t || !t->cmp) {
				util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name,
							  t ? t->name : "?");
				util_err_hint(e, "No function matches the given name and argument types. You might need to add explicit type casts.");
				e->position = sql_errposition(ax->ps->text, location);
				ty_errthrow();
			}
			ar->rettype = ar->args[0]->type;
		}
		ar->argtypes = ty_alloc(sizeof(ty_oid) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++)
			ar->argtypes[i] = ar->args[i]->type;
		return;
	}
	/* Overload resolution over registered aggregates, reusing the
	 * function machinery on a synthetic candidate list. */
	const ty_agg *best = NULL, *a;
	int cur = 0, nmatch = -1;
	bool ambiguous = false;
	while ((a = ty_agg_lookup(name, &cur))) {
		if (a->ordered_set || a->nargs != n)
			continue;
		bool ok = true;
		int exact = 0;
		for (int i = 0; i < n && ok; i++) {
			ty_oid d = a->args[i];
			ok = sql_can_coerce(actual[i], d, SQL_COERCE_IMPLICIT);
			exact += d == actual[i];
			if (actual[i] != TY_UNKNOWN && d != actual[i] && ty_type_get(d) && ty_type_get(d)->preferred)
				exact = exact; /* preferred types break ties below */
		}
		if (!ok)
			continue;
		if (exact > nmatch) {
			best = a;
			nmatch = exact;
			ambiguous = false;
		} else if (exact == nmatch) {
			/* Prefer the candidate whose types are preferred in their category. */
			int pa = 0, pb = 0;
			for (int i = 0; i < n; i++) {
				const ty_type *ta = ty_type_get(a->args[i]);
				const ty_type *tb = ty_type_get(best->args[i]);
				pa += ta && ta->preferred;
				pb += tb && tb->preferred;
			}
			if (pa > pb)
				best = a;
			else if (pa == pb)
				ambiguous = true;
		}
	}
	if (!best || ambiguous) {
		/* An ordered-set aggregate called with all its arguments but no
		 * WITHIN GROUP. */
		cur = 0;
		while (!best && (a = ty_agg_lookup(name, &cur))) {
			if (!a->ordered_set || a->nargs != n)
				continue;
			bool ok = true;
			for (int i = 0; i < n && ok; i++)
				ok = sql_can_coerce(actual[i], a->args[i], SQL_COERCE_IMPLICIT);
			if (ok)
				sql_error_at(ax, location, UTIL_E_WRONG_OBJECT_TYPE,
					     "WITHIN GROUP is required for ordered-set aggregate %s", name);
		}
		util_buf b = UTIL_BUF_INIT;
		for (int i = 0; i < n; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			ty_format_type(actual[i], -1, &b);
		}
		util_err *e = ty_errstart(ambiguous ? UTIL_E_AMBIGUOUS_FUNCTION : UTIL_E_UNDEFINED_FUNCTION,
					  ambiguous ? "function %s(%s) is not unique" : "function %s(%s) does not exist", name,
					  b.data ? b.data : "");
		util_buf_free(&b);
		util_err_hint(e, ambiguous ? "Could not choose a best candidate function. You might need to add explicit type casts."
					   : "No function matches the given name and argument types. You might need to add explicit type casts.");
		e->position = sql_errposition(ax->ps->text, location);
		ty_errthrow();
	}
	ar->agg = best;
	ar->kind = SQL_AGG_GENERIC;
	ar->argtypes = ty_alloc(sizeof(ty_oid) * (size_t)(n ? n : 1));
	ty_oid elem = 0;
	for (int i = 0; i < n; i++) {
		ty_oid d = best->args[i];
		if (d == TY_ANYELEMENT || d == TY_ANYNONARRAY || d == TY_ANYCOMPATIBLE || d == TY_ANY) {
			if (ar->args[i]->type == TY_UNKNOWN)
				ar->args[i] = sql_coerce(ax, ar->args[i], TY_TEXT, -1, SQL_COERCE_IMPLICIT, location);
			elem = ar->args[i]->type;
		} else if (d == TY_ANYARRAY || d == TY_ANYCOMPATIBLEARRAY) {
			elem = ty_type_get(ar->args[i]->type) ? ty_type_get(ar->args[i]->type)->elem : 0;
		} else {
			ar->args[i] = sql_coerce(ax, ar->args[i], d, -1, SQL_COERCE_IMPLICIT, location);
		}
		ar->argtypes[i] = ar->args[i]->type;
	}
	ar->rettype = best->ret;
	if (best->ret == TY_ANYELEMENT || best->ret == TY_ANYCOMPATIBLE)
		ar->rettype = elem ? elem : TY_TEXT;
	else if (best->ret == TY_ANYARRAY || best->ret == TY_ANYCOMPATIBLEARRAY) {
		const ty_type *et = ty_type_get(elem);
		ar->rettype = et && et->category == 'A' ? elem : et && et->array ? et->array : TY_TEXT_ARRAY;
	}
}

static void add_sortby(sql_actx *ax, sql_query *q, PgQuery__Node **items, size_t n, sql_sortkey **out, int *nout);

/* Picks the ordered-set aggregate whose direct and aggregated arguments
 * the call's coerce to, most exact matches first. */
static void resolve_ordered_set(sql_actx *ax, sql_aggref *ar, const char *name, int location)
{
	const ty_agg *a, *best = NULL;
	int cur = 0, best_score = -1;
	bool ambiguous = false;
	while ((a = ty_agg_lookup(name, &cur))) {
		if (!a->ordered_set || a->ndirect != ar->ndirect || a->nargs - a->ndirect != ar->nargs)
			continue;
		bool ok = true;
		int score = 0;
		for (int i = 0; i < ar->ndirect && ok; i++) {
			ok = sql_can_coerce(ar->direct[i]->type, a->args[i], SQL_COERCE_IMPLICIT);
			score += ar->direct[i]->type == a->args[i];
		}
		for (int i = 0; i < ar->nargs && ok; i++) {
			ty_oid d = a->args[a->ndirect + i];
			ok = sql_can_coerce(ar->args[i]->type, d, SQL_COERCE_IMPLICIT);
			score += ar->args[i]->type == d;
		}
		if (!ok)
			continue;
		if (score > best_score) {
			best = a;
			best_score = score;
			ambiguous = false;
		} else if (score == best_score) {
			ambiguous = true;
		}
	}
	if (!best || ambiguous) {
		util_buf b = UTIL_BUF_INIT;
		for (int i = 0; i < ar->ndirect + ar->nargs; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			ty_format_type(i < ar->ndirect ? ar->direct[i]->type : ar->args[i - ar->ndirect]->type, -1, &b);
		}
		bool some = agg_exists(name);
		util_err *e;
		if (!some)
			e = ty_errstart(UTIL_E_WRONG_OBJECT_TYPE, "WITHIN GROUP specified, but %s is not an aggregate function", name);
		else {
			e = ty_errstart(ambiguous ? UTIL_E_AMBIGUOUS_FUNCTION : UTIL_E_UNDEFINED_FUNCTION,
					ambiguous ? "function %s(%s) is not unique" : "function %s(%s) does not exist", name,
					b.data ? b.data : "");
			util_err_hint(e, ambiguous ? "Could not choose a best candidate function. You might need to add explicit type casts."
						   : "No function matches the given name and argument types. You might need to add explicit type casts.");
		}
		util_buf_free(&b);
		e->position = sql_errposition(ax->ps->text, location);
		ty_errthrow();
	}
	for (int i = 0; i < ar->ndirect; i++)
		ar->direct[i] = sql_coerce(ax, ar->direct[i], best->args[i], -1, SQL_COERCE_IMPLICIT, ar->direct[i]->location);
	ar->agg = best;
	ar->kind = SQL_AGG_GENERIC;
	ar->argtypes = ty_alloc(sizeof(ty_oid) * (size_t)(ar->nargs ? ar->nargs : 1));
	for (int i = 0; i < ar->nargs; i++) {
		ty_oid d = best->args[best->ndirect + i];
		if (ar->args[i]->type == TY_UNKNOWN)
			ar->args[i] = sql_coerce(ax, ar->args[i], TY_TEXT, -1, SQL_COERCE_IMPLICIT, location);
		if (d != TY_ANYELEMENT && d != TY_ANY && d != ar->args[i]->type)
			ar->args[i] = sql_coerce(ax, ar->args[i], d, -1, SQL_COERCE_IMPLICIT, location);
		ar->order[i].expr = ar->args[i];
		ar->order[i].type = ty_type_get(ar->args[i]->type);
		ar->argtypes[i] = ar->args[i]->type;
	}
	ty_oid elem = ar->nargs ? ar->argtypes[0] : TY_TEXT;
	ar->rettype = best->ret == TY_ANYELEMENT ? elem : best->ret == TY_ANYARRAY ? ty_type_get(elem)->array : best->ret;
}

static sql_expr *transform_window_call(sql_actx *ax, sql_query *q, PgQuery__FuncCall *fc, const char *name,
				       sql_expr **args, int nargs);
static bool is_window_only(const char *name);

static bool min_level_walker(sql_expr *e, void *arg)
{
	int *lv = arg;
	if (e->kind == SQL_E_VAR && (*lv < 0 || e->var.levelsup < *lv))
		*lv = e->var.levelsup;
	return false;
}

/* The query level an aggregate belongs to: the lowest levelsup of the Vars
 * in its arguments, FILTER and ORDER BY (0 without Vars). */
static int agg_level(const sql_aggref *ar)
{
	int lv = -1;
	for (int i = 0; i < ar->nargs; i++)
		sql_expr_walk(ar->args[i], min_level_walker, &lv);
	for (int i = 0; i < ar->norder; i++)
		sql_expr_walk(ar->order[i].expr, min_level_walker, &lv);
	sql_expr_walk(ar->filter, min_level_walker, &lv);
	return lv < 0 ? 0 : lv;
}

static sql_expr *shift_level_mutator(sql_expr *e, void *arg)
{
	if (e->kind == SQL_E_VAR)
		e->var.levelsup -= *(int *)arg;
	return e;
}

static void shift_agg_levels(sql_aggref *ar, int level)
{
	for (int i = 0; i < ar->nargs; i++)
		ar->args[i] = sql_expr_mutate(ar->args[i], shift_level_mutator, &level);
	for (int i = 0; i < ar->norder; i++)
		ar->order[i].expr = sql_expr_mutate(ar->order[i].expr, shift_level_mutator, &level);
	for (int i = 0; i < ar->ndirect; i++)
		ar->direct[i] = sql_expr_mutate(ar->direct[i], shift_level_mutator, &level);
	if (ar->filter)
		ar->filter = sql_expr_mutate(ar->filter, shift_level_mutator, &level);
}

/* Parameter names (and defaults, as SQL literals) of the built-in
 * functions people call with named arguments (f(x => 1)); the type modules
 * register signatures without names. */
static const struct {
	const char *name;
	int n;
	const char *params[8];
	const char *defaults[8]; /* NULL: no default */
} param_names[] = {
	{"make_interval", 7, {"years", "months", "weeks", "days", "hours", "mins", "secs"}, {"0", "0", "0", "0", "0", "0", "0.0"}},
	{"make_timestamp", 6, {"year", "month", "mday", "hour", "min", "sec"}, {NULL}},
	{"make_timestamptz", 7, {"year", "month", "mday", "hour", "min", "sec", "timezone"}, {NULL}},
	{"make_date", 3, {"year", "month", "day"}, {NULL}},
	{"make_time", 3, {"hour", "min", "sec"}, {NULL}},
	{"jsonb_set", 4, {"jsonb_in", "path", "replacement", "create_if_missing"}, {NULL, NULL, NULL, "true"}},
	{"jsonb_insert", 4, {"jsonb_in", "path", "replacement", "insert_after"}, {NULL, NULL, NULL, "false"}},
	{"jsonb_set_lax", 5, {"jsonb_in", "path", "replacement", "create_if_missing", "null_value_treatment"},
	 {NULL, NULL, NULL, "true", "use_json_null"}},
	{"generate_series", 3, {"start", "stop", "step"}, {NULL}},
	{"date_bin", 3, {"stride", "source", "origin"}, {NULL}},
};

/* Reorders named arguments into positions (defaults fill the gaps). */
static sql_expr **named_args(sql_actx *ax, PgQuery__FuncCall *fc, const char *name, sql_expr **args, int *nargs)
{
	int n = *nargs, npos = 0;
	while (npos < n && fc->args[npos]->node_case != PG_QUERY__NODE__NODE_NAMED_ARG_EXPR)
		npos++;
	int t = -1;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(param_names) && t < 0; i++)
		if (!strcmp(param_names[i].name, name))
			t = (int)i;
	sql_expr *slots[8] = {0};
	bool ok = t >= 0 && n <= param_names[t].n;
	for (int i = 0; i < npos && ok; i++)
		slots[i] = args[i];
	for (int i = npos; i < n && ok; i++) {
		PgQuery__NamedArgExpr *na = fc->args[i]->named_arg_expr;
		int k = -1;
		for (int j = 0; j < param_names[t].n; j++)
			if (!strcmp(param_names[t].params[j], na->name))
				k = j;
		if (k >= 0 && slots[k])
			sql_error_at(ax, na->location, UTIL_E_SYNTAX_ERROR, "argument name \"%s\" used more than once", na->name);
		ok = k >= npos;
		if (ok)
			slots[k] = args[i];
	}
	int last = -1;
	for (int j = 0; ok && j < param_names[t].n; j++)
		if (slots[j])
			last = j;
	for (int j = 0; ok && j <= last; j++)
		if (!slots[j]) {
			const char *d = param_names[t].defaults[j];
			ok = d != NULL;
			if (ok) {
				sql_expr *c = sql_expr_const(TY_UNKNOWN, -1, ty_text(d), -1);
				slots[j] = c;
			}
		}
	if (!ok) {
		util_buf b = UTIL_BUF_INIT;
		for (int i = 0; i < n; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			if (i >= npos)
				util_buf_printf(&b, "%s => ", fc->args[i]->named_arg_expr->name);
			ty_format_type(args[i]->type, -1, &b);
		}
		util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name, b.data ? b.data : "");
		util_buf_free(&b);
		util_err_hint(e, "No function matches the given name and argument types. You might need to add explicit type casts.");
		e->position = sql_errposition(ax->ps->text, fc->location);
		ty_errthrow();
	}
	sql_expr **out = ty_alloc(sizeof(sql_expr *) * (size_t)(last + 1 ? last + 1 : 1));
	for (int j = 0; j <= last; j++)
		out[j] = slots[j];
	*nargs = last + 1;
	return out;
}

static sql_expr *transform_func(sql_actx *ax, sql_query *q, PgQuery__FuncCall *fc)
{
	const char *name = sql_last_name(fc->funcname, fc->n_funcname);
	const char *schema = fc->n_funcname > 1 ? str_of(fc->funcname[0]) : NULL;
	if (schema && strcmp(schema, "pg_catalog") != 0 && strcmp(schema, "information_schema") != 0 &&
	    !sql_lookup_schema(ax->s, ax->cat, schema))
		sql_error_at(ax, fc->location, UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
	int nargs = (int)fc->n_args;
	bool is_agg = agg_exists(name) && (fc->agg_star || nargs > 0 || fc->agg_within_group);
	if (fc->over)
		return transform_window_call(ax, q, fc, name, NULL, nargs);
	if (is_window_only(name))
		sql_error_at(ax, fc->location, UTIL_E_WRONG_OBJECT_TYPE, "window function %s requires an OVER clause", name);
	if (is_agg || fc->agg_star || fc->agg_distinct || fc->n_agg_order || fc->agg_filter) {
		int location = fc->location;
		if (!agg_exists(name)) {
			const char *what = fc->agg_within_group ? "WITHIN GROUP"
					   : fc->agg_star	  ? "*"
					   : fc->agg_distinct	  ? "DISTINCT"
					   : fc->n_agg_order	  ? "ORDER BY"
								  : "FILTER";
			sql_error_at(ax, location, UTIL_E_WRONG_OBJECT_TYPE, "%s specified, but %s is not an aggregate function",
				     what, name);
		}
		if (q->agg_depth > 0)
			sql_error_at(ax, location, UTIL_E_GROUPING_ERROR, "aggregate function calls cannot be nested");
		q->agg_depth++;
		sql_aggref ar;
		memset(&ar, 0, sizeof ar);
		ar.star = fc->agg_star;
		ar.distinct = fc->agg_distinct;
		if (fc->agg_within_group) {
			/* Ordered-set aggregate: direct args + WITHIN GROUP (ORDER BY x). */
			ar.ndirect = nargs;
			ar.direct = ty_alloc(sizeof(sql_expr *) * (size_t)(nargs ? nargs : 1));
			for (int i = 0; i < nargs; i++)
				ar.direct[i] = xform(ax, q, fc->args[i]);
			add_sortby(ax, q, fc->agg_order, fc->n_agg_order, &ar.order, &ar.norder);
			ar.nargs = ar.norder;
			ar.args = ty_alloc(sizeof(sql_expr *) * (size_t)(ar.nargs ? ar.nargs : 1));
			for (int i = 0; i < ar.norder; i++)
				ar.args[i] = ar.order[i].expr;
			resolve_ordered_set(ax, &ar, name, location);
		} else {
			ar.nargs = nargs;
			ar.args = ty_alloc(sizeof(sql_expr *) * (size_t)(nargs ? nargs : 1));
			for (int i = 0; i < nargs; i++)
				ar.args[i] = xform(ax, q, fc->args[i]);
			if (fc->n_agg_order)
				add_sortby(ax, q, fc->agg_order, fc->n_agg_order, &ar.order, &ar.norder);
			resolve_agg(ax, &ar, name, location);
		}
		q->agg_depth--;
		if (fc->agg_filter) {
			sql_expr_ctx saved = q->cur_ctx;
			q->cur_ctx = SQL_EXPR_FILTER;
			ar.filter = sql_coerce_bool(ax, xform(ax, q, fc->agg_filter), "FILTER");
			q->cur_ctx = saved;
		}
		/* The aggregate belongs to the query level of its arguments' Vars
		 * (max(t.x) inside a subquery of t's query aggregates over t). */
		int level = agg_level(&ar);
		sql_query *oq = q;
		for (int l = 0; l < level && oq->parent; l++)
			oq = oq->parent;
		if (level)
			shift_agg_levels(&ar, level);
		const char *cn = ctx_name(oq->cur_ctx);
		if (cn)
			sql_error_at(ax, location, UTIL_E_GROUPING_ERROR, "aggregate functions are not allowed in %s", cn);
		int idx = oq->naggs++;
		sql_aggref *na = ty_alloc(sizeof(sql_aggref) * (size_t)oq->naggs);
		if (idx)
			memcpy(na, oq->aggs, sizeof(sql_aggref) * (size_t)idx);
		na[idx] = ar;
		oq->aggs = na;
		oq->has_aggs = true;
		sql_expr *e = sql_expr_new(SQL_E_AGG, ar.rettype, location);
		e->agg = idx;
		e->agglevelsup = level;
		return e;
	}
	sql_expr **args = ty_alloc(sizeof(sql_expr *) * (size_t)(nargs ? nargs : 1));
	bool named = false;
	for (int i = 0; i < nargs; i++) {
		pnode *an = fc->args[i];
		if (an->node_case == PG_QUERY__NODE__NODE_NAMED_ARG_EXPR) {
			args[i] = xform(ax, q, an->named_arg_expr->arg);
			named = true;
		} else {
			args[i] = xform(ax, q, an);
		}
	}
	if (named)
		args = named_args(ax, fc, name, args, &nargs);
	sql_expr *e = sql_make_func(ax, name, args, nargs, fc->location, fc->func_variadic);
	if (e->f.fn->retset) {
		if (q->cur_ctx != SQL_EXPR_SELECT && q->cur_ctx != SQL_EXPR_FROM_FUNCTION)
			sql_error_at(ax, fc->location, UTIL_E_FEATURE_NOT_SUPPORTED,
				     "set-returning functions are not allowed in %s", ctx_name(q->cur_ctx) ? ctx_name(q->cur_ctx) : "this context");
		if (q->cur_ctx == SQL_EXPR_SELECT) {
			e->kind = SQL_E_SRF;
			q->has_srf = true;
		}
	}
	return e;
}

/* ---------------------------------------------------------------- dispatch */

static sql_expr *xform(sql_actx *ax, sql_query *q, pnode *n)
{
	if (!n)
		return sql_expr_const(TY_UNKNOWN, -1, ty_null(), -1);
	ty_check_interrupts();
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_COLUMN_REF:
		if (q->cur_ctx == SQL_EXPR_DEFAULT)
			sql_error_at(ax, n->column_ref->location, UTIL_E_FEATURE_NOT_SUPPORTED,
				     "cannot use column reference in DEFAULT expression");
		return resolve_column(ax, q, n->column_ref);
	case PG_QUERY__NODE__NODE_PARAM_REF: {
		int num = n->param_ref->number;
		/* Beyond what Parse can declare (65535) PostgreSQL still numbers
		 * the parameter and then fails on the first one without a type
		 * (42P18, sql_prepared_check_types); the bound keeps the type
		 * array small. */
		sql_pstate *ps = ax->ps;
		if (num <= 0 || num > SQL_MAX_PARAM_NUMBER || ps->no_params)
			sql_error_at(ax, n->param_ref->location, UTIL_E_UNDEFINED_PARAMETER, "there is no parameter $%d", num);
		if (num > ps->nparams) {
			if (num > ps->params_cap) {
				int cap = num * 2;
				ty_oid *nt = util_arena_alloc(ax->arena, sizeof(ty_oid) * (size_t)cap);
				if (!nt)
					ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
				if (ps->nparams)
					memcpy(nt, ps->param_types, sizeof(ty_oid) * (size_t)ps->nparams);
				ps->param_types = nt;
				ps->params_cap = cap;
			}
			for (int i = ps->nparams; i < num; i++)
				ps->param_types[i] = 0; /* not referenced (yet) */
			ps->nparams = num;
		}
		if (ps->param_types[num - 1] == 0)
			ps->param_types[num - 1] = TY_UNKNOWN; /* referenced, type still open */
		sql_expr *e = sql_expr_new(SQL_E_PARAM, ps->param_types[num - 1], n->param_ref->location);
		e->param = num;
		return e;
	}
	case PG_QUERY__NODE__NODE_A_CONST:
		return make_const(ax, n->a_const);
	case PG_QUERY__NODE__NODE_A_EXPR:
		return transform_aexpr(ax, q, n->a_expr);
	case PG_QUERY__NODE__NODE_BOOL_EXPR:
		return transform_bool(ax, q, n->bool_expr);
	case PG_QUERY__NODE__NODE_FUNC_CALL:
		return transform_func(ax, q, n->func_call);
	case PG_QUERY__NODE__NODE_TYPE_CAST:
		if (n->type_cast->arg->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR) {
			ty_oid t;
			int32_t tm;
			sql_typename(ax, n->type_cast->type_name, &t, &tm);
			const ty_type *ty = ty_type_get(t);
			if (ty && ty->category == 'A')
				return transform_array(ax, q, n->type_cast->arg->a_array_expr, t, tm);
		}
		return transform_typecast(ax, q, n->type_cast);
	case PG_QUERY__NODE__NODE_NULL_TEST:
		return transform_nulltest(ax, q, n->null_test);
	case PG_QUERY__NODE__NODE_BOOLEAN_TEST:
		return transform_booltest(ax, q, n->boolean_test);
	case PG_QUERY__NODE__NODE_CASE_EXPR:
		return transform_case(ax, q, n->case_expr);
	case PG_QUERY__NODE__NODE_COALESCE_EXPR:
		return transform_varargs(ax, q, SQL_E_COALESCE, n->coalesce_expr->args, n->coalesce_expr->n_args,
					 "COALESCE", n->coalesce_expr->location);
	case PG_QUERY__NODE__NODE_MIN_MAX_EXPR:
		return transform_varargs(ax, q,
					 n->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? SQL_E_GREATEST : SQL_E_LEAST,
					 n->min_max_expr->args, n->min_max_expr->n_args,
					 n->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "GREATEST" : "LEAST",
					 n->min_max_expr->location);
	case PG_QUERY__NODE__NODE_SUB_LINK:
		if (q->cur_ctx == SQL_EXPR_CHECK || q->cur_ctx == SQL_EXPR_DEFAULT || q->cur_ctx == SQL_EXPR_INDEX_PRED)
			sql_error_at(ax, n->sub_link->location, UTIL_E_FEATURE_NOT_SUPPORTED, "cannot use subquery in %s",
				     q->cur_ctx == SQL_EXPR_CHECK     ? "check constraint"
				     : q->cur_ctx == SQL_EXPR_DEFAULT ? "DEFAULT expression"
								      : "index predicate");
		return transform_sublink(ax, q, n->sub_link);
	case PG_QUERY__NODE__NODE_A_ARRAY_EXPR:
		return transform_array(ax, q, n->a_array_expr, 0, -1);
	case PG_QUERY__NODE__NODE_ROW_EXPR: {
		PgQuery__RowExpr *r = n->row_expr;
		sql_expr *e = sql_expr_new(SQL_E_ROW, TY_RECORD, r->location);
		e->f.nargs = (int)r->n_args;
		e->f.args = ty_alloc(sizeof(sql_expr *) * (r->n_args ? r->n_args : 1));
		for (size_t i = 0; i < r->n_args; i++) {
			e->f.args[i] = xform(ax, q, r->args[i]);
			if (e->f.args[i]->type == TY_UNKNOWN)
				e->f.args[i] = sql_coerce(ax, e->f.args[i], TY_TEXT, -1, SQL_COERCE_IMPLICIT, -1);
		}
		return e;
	}
	case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
		return transform_sqlvalue(ax, q, n->sqlvalue_function);
	case PG_QUERY__NODE__NODE_A_INDIRECTION:
		return transform_indirection(ax, q, n->a_indirection);
	case PG_QUERY__NODE__NODE_COLLATE_CLAUSE: {
		PgQuery__CollateClause *cc = n->collate_clause;
		const char *coll = sql_last_name(cc->collname, cc->n_collname);
		sql_expr *e = xform(ax, q, cc->arg);
		if (strcmp(coll, "C") && strcmp(coll, "POSIX") && strcmp(coll, "default") && strcmp(coll, "ucs_basic") &&
		    strcmp(coll, "C.UTF-8") && strcmp(coll, "C.utf8"))
			sql_error_at(ax, cc->location, UTIL_E_UNDEFINED_OBJECT, "collation \"%s\" for encoding \"UTF8\" does not exist",
				     coll);
		const ty_type *t = ty_type_get(e->type);
		if (e->type != TY_UNKNOWN && (!t || t->category != 'S'))
			sql_error_at(ax, cc->location, UTIL_E_DATATYPE_MISMATCH, "collations are not supported by type %s",
				     t ? t->name : "?");
		return e;
	}
	case PG_QUERY__NODE__NODE_SET_TO_DEFAULT: {
		if (q->cur_ctx != SQL_EXPR_INSERT_VALUES && q->cur_ctx != SQL_EXPR_UPDATE_SET)
			sql_error_at(ax, n->set_to_default->location, UTIL_E_SYNTAX_ERROR, "DEFAULT is not allowed in this context");
		return sql_expr_new(SQL_E_DEFAULT, TY_UNKNOWN, n->set_to_default->location);
	}
	case PG_QUERY__NODE__NODE_GROUPING_FUNC: {
		PgQuery__GroupingFunc *g = n->grouping_func;
		sql_expr *e = sql_expr_new(SQL_E_GROUPING, TY_INT4, g->location);
		e->grouping.nargs = (int)g->n_args;
		e->grouping.refs = ty_alloc0(sizeof(int) * (g->n_args ? g->n_args : 1));
		/* Matched against GROUP BY by the analyzer once grouping is known. */
		e->grouping.args = ty_alloc(sizeof(sql_expr *) * (g->n_args ? g->n_args : 1));
		for (size_t i = 0; i < g->n_args; i++)
			e->grouping.args[i] = xform(ax, q, g->args[i]);
		q->has_aggs = true;
		return e;
	}
	case PG_QUERY__NODE__NODE_NAMED_ARG_EXPR:
		return xform(ax, q, n->named_arg_expr->arg);
	default:
		sql_error_at(ax, -1, UTIL_E_FEATURE_NOT_SUPPORTED, "unsupported expression (node %d)", (int)n->node_case);
	}
}

sql_expr *sql_transform_expr(sql_actx *ax, sql_query *q, pnode *n, sql_expr_ctx ctx)
{
	sql_check_stack_depth();
	sql_expr_ctx saved = q->cur_ctx;
	q->cur_ctx = ctx;
	sql_expr *e = xform(ax, q, n);
	q->cur_ctx = saved;
	return e;
}

/* ---------------------------------------------------------------- ORDER BY inside aggregates, windows */

static void add_sortby(sql_actx *ax, sql_query *q, PgQuery__Node **items, size_t n, sql_sortkey **out, int *nout)
{
	sql_sortkey *keys = ty_alloc0(sizeof(sql_sortkey) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		PgQuery__SortBy *sb = items[i]->sort_by;
		sql_expr *e = xform(ax, q, sb->node);
		if (e->type == TY_UNKNOWN)
			e = sql_coerce(ax, e, TY_TEXT, -1, SQL_COERCE_IMPLICIT, e->location);
		keys[i].expr = e;
		keys[i].desc = sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
		if (sb->sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) {
			const char *op = sql_last_name(sb->use_op, sb->n_use_op);
			keys[i].desc = op[0] == '>';
		}
		keys[i].nulls_first = sb->sortby_nulls == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST ||
				      (sb->sortby_nulls != PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST && keys[i].desc);
		keys[i].type = ty_type_get(e->type);
		keys[i].target = -1;
		if (!keys[i].type || !keys[i].type->cmp)
			sql_error_at(ax, sb->location, UTIL_E_UNDEFINED_FUNCTION,
				     "could not identify an ordering operator for type %s",
				     keys[i].type ? keys[i].type->name : "?");
	}
	*out = keys;
	*nout = (int)n;
}

void sql_add_sortby(sql_actx *ax, sql_query *q, PgQuery__Node **items, size_t n, sql_sortkey **out, int *nout)
{
	add_sortby(ax, q, items, n, out, nout);
}

/* Window functions: the name is a window function (row_number ...) or an
 * aggregate; the OVER clause becomes (or reuses) a window clause. */
static const struct {
	const char *name;
	int minargs, maxargs;
	ty_oid ret; /* 0 = type of the first argument */
} winfuncs[] = {
	{"row_number", 0, 0, TY_INT8},   {"rank", 0, 0, TY_INT8},	   {"dense_rank", 0, 0, TY_INT8},
	{"percent_rank", 0, 0, TY_FLOAT8}, {"cume_dist", 0, 0, TY_FLOAT8}, {"ntile", 1, 1, TY_INT4},
	{"lag", 1, 3, 0},		 {"lead", 1, 3, 0},		   {"first_value", 1, 1, 0},
	{"last_value", 1, 1, 0},	 {"nth_value", 2, 2, 0},
};

static bool is_window_only(const char *name)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(winfuncs); i++)
		if (!strcmp(winfuncs[i].name, name))
			return true;
	return false;
}

static sql_expr *transform_window_call(sql_actx *ax, sql_query *q, PgQuery__FuncCall *fc, const char *name,
				       sql_expr **unused, int nargs)
{
	(void)unused;
	int location = fc->location;
	if (q->cur_ctx != SQL_EXPR_SELECT && q->cur_ctx != SQL_EXPR_ORDER)
		sql_error_at(ax, location, UTIL_E_WINDOWING_ERROR, "window functions are not allowed in %s",
			     ctx_name(q->cur_ctx) ? ctx_name(q->cur_ctx) : q->cur_ctx == SQL_EXPR_HAVING ? "HAVING" : "this context");
	if (q->agg_depth)
		sql_error_at(ax, location, UTIL_E_GROUPING_ERROR, "aggregate function calls cannot contain window function calls");
	if (q->in_window)
		sql_error_at(ax, location, UTIL_E_WINDOWING_ERROR, "window function calls cannot be nested");
	q->in_window = true;
	sql_winref w;
	memset(&w, 0, sizeof w);
	w.name = ty_strdup(name);
	w.star = fc->agg_star;
	w.nargs = nargs;
	w.args = ty_alloc(sizeof(sql_expr *) * (size_t)(nargs ? nargs : 1));
	for (int i = 0; i < nargs; i++)
		w.args[i] = xform(ax, q, fc->args[i]);
	q->in_window = false;
	if (fc->agg_distinct)
		sql_error_at(ax, location, UTIL_E_FEATURE_NOT_SUPPORTED, "DISTINCT is not implemented for window functions");
	bool found = false;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(winfuncs); i++) {
		if (strcmp(winfuncs[i].name, name) != 0)
			continue;
		if (nargs < winfuncs[i].minargs || nargs > winfuncs[i].maxargs)
			continue;
		found = true;
		w.rettype = winfuncs[i].ret;
		if (!w.rettype) {
			if (w.args[0]->type == TY_UNKNOWN)
				w.args[0] = sql_coerce(ax, w.args[0], TY_TEXT, -1, SQL_COERCE_IMPLICIT, location);
			w.rettype = w.args[0]->type;
		}
		if (!strcmp(name, "ntile"))
			w.args[0] = sql_coerce(ax, w.args[0], TY_INT4, -1, SQL_COERCE_IMPLICIT, location);
		if (!strcmp(name, "nth_value"))
			w.args[1] = sql_coerce(ax, w.args[1], TY_INT4, -1, SQL_COERCE_IMPLICIT, location);
		if ((!strcmp(name, "lag") || !strcmp(name, "lead")) && nargs >= 2)
			w.args[1] = sql_coerce(ax, w.args[1], TY_INT4, -1, SQL_COERCE_IMPLICIT, location);
		if ((!strcmp(name, "lag") || !strcmp(name, "lead")) && nargs == 3) {
			sql_expr *two[2] = {w.args[0], w.args[2]};
			ty_oid ct = sql_common_type(two, 2, "lag/lead", NULL);
			w.args[0] = sql_coerce(ax, w.args[0], ct, -1, SQL_COERCE_IMPLICIT, location);
			w.args[2] = sql_coerce(ax, w.args[2], ct, -1, SQL_COERCE_IMPLICIT, location);
			w.rettype = ct;
		}
		break;
	}
	if (!found) {
		if (!agg_exists(name)) {
			util_buf b = UTIL_BUF_INIT;
			for (int i = 0; i < nargs; i++) {
				if (i)
					util_buf_puts(&b, ", ");
				ty_format_type(w.args[i]->type, -1, &b);
			}
			util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name,
						  b.data ? b.data : "");
			util_buf_free(&b);
			util_err_hint(e, "No function matches the given name and argument types. You might need to add explicit type casts.");
			e->position = sql_errposition(ax->ps->text, location);
			ty_errthrow();
		}
		sql_aggref ar;
		memset(&ar, 0, sizeof ar);
		ar.nargs = nargs;
		ar.args = w.args;
		ar.star = fc->agg_star;
		resolve_agg(ax, &ar, name, location);
		w.agg = ar.agg;
		w.aggkind = ar.kind;
		w.argtypes = ar.argtypes;
		w.args = ar.args;
		w.rettype = ar.rettype;
		if (fc->agg_filter)
			w.filter = sql_coerce_bool(ax, xform(ax, q, fc->agg_filter), "FILTER");
	} else {
		w.argtypes = ty_alloc(sizeof(ty_oid) * (size_t)(nargs ? nargs : 1));
		for (int i = 0; i < nargs; i++)
			w.argtypes[i] = w.args[i]->type;
	}
	w.winclause = sql_window_clause_for(ax, q, fc->over);
	int idx = q->nwins++;
	sql_winref *nw = ty_alloc(sizeof(sql_winref) * (size_t)q->nwins);
	if (idx)
		memcpy(nw, q->wins, sizeof(sql_winref) * (size_t)idx);
	nw[idx] = w;
	q->wins = nw;
	sql_expr *e = sql_expr_new(SQL_E_WINDOW, w.rettype, location);
	e->win = idx;
	return e;
}
