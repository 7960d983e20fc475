/*
 * analyze_func.c — PostgreSQL's type-resolution rules: implicit and
 * assignment coercion (can_coerce_type / coerce_type), common types for
 * UNION/CASE/COALESCE (select_common_type), and operator and function
 * overload resolution (func_select_candidate, with polymorphic types).
 */
#include <stdio.h>
#include <string.h>

#include "sql_int.h"

static const char *tname(ty_oid t)
{
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(t, -1, &b);
	char *s = ty_strdup(b.data ? b.data : "?");
	util_buf_free(&b);
	return s;
}

static char category(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty ? ty->category : 'U';
}

static bool preferred(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty && ty->preferred;
}

static bool is_array(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty && ty->elem && ty->category == 'A';
}

static ty_oid elem_of(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty ? ty->elem : 0;
}

static ty_oid array_of(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty ? ty->array : 0;
}

static bool is_poly(ty_oid t)
{
	return t == TY_ANYELEMENT || t == TY_ANYARRAY || t == TY_ANYNONARRAY || t == TY_ANYCOMPATIBLE ||
	       t == TY_ANYCOMPATIBLEARRAY || t == TY_ANYCOMPATIBLENONARRAY || t == TY_ANYENUM;
}

bool sql_can_coerce(ty_oid from, ty_oid to, sql_coerce_ctx ctx)
{
	if (from == to || to == TY_ANY)
		return true;
	if (from == TY_UNKNOWN)
		return true;
	if (to == TY_ANYELEMENT || to == TY_ANYCOMPATIBLE)
		return true;
	if (to == TY_ANYARRAY || to == TY_ANYCOMPATIBLEARRAY)
		return is_array(from);
	if (to == TY_ANYNONARRAY || to == TY_ANYCOMPATIBLENONARRAY)
		return !is_array(from);
	if (to == TY_RECORD)
		return from == TY_RECORD || category(from) == 'C';
	const ty_cast *c = ty_cast_lookup(from, to);
	if (c) {
		if (c->context == 'i')
			return true;
		if (c->context == 'a')
			return ctx >= SQL_COERCE_ASSIGNMENT;
		return ctx >= SQL_COERCE_EXPLICIT;
	}
	if (is_array(from) && is_array(to))
		return sql_can_coerce(elem_of(from), elem_of(to), ctx);
	/* Automatic I/O conversion: to string types in assignment context, from
	 * string types (and between anything) only explicitly. */
	if (category(to) == 'S' && ctx >= SQL_COERCE_ASSIGNMENT)
		return true;
	if (category(from) == 'S' && ctx >= SQL_COERCE_EXPLICIT)
		return true;
	if (ctx >= SQL_COERCE_EXPLICIT && (to == TY_TEXT || from == TY_TEXT))
		return true;
	return false;
}

/* A literal: convert now, so that errors point at the literal. */
static sql_expr *literal_to(sql_actx *ax, const sql_expr *lit, ty_oid to, int32_t typmod, sql_coerce_ctx ctx)
{
	sql_expr *c = sql_expr_new(SQL_E_CONST, to, lit->location);
	c->typmod = typmod;
	if (lit->c.null) {
		c->c = ty_null();
		return c;
	}
	const ty_type *t = ty_type_get(to);
	bool later = typmod >= 0 && to != TY_INTERVAL && t && t->typmod_apply;
	TY_TRY(tc)
	{
		/* As PostgreSQL's coerce_type: input without the typmod (interval
		 * excepted), then the length coercion of the cast's context, so
		 * that 'abc'::varchar(2) truncates while an assignment fails. */
		c->c = ty_input(to, lit->c.p, lit->c.len, later ? -1 : typmod);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (!ty_err()->position && ax && c->location >= 0)
			ty_err()->position = sql_errposition(ax->ps->text, c->location);
		ty_errthrow();
	}
	TY_END(tc);
	/* (PostgreSQL reports length errors without a position: they happen
	 * when the constant is folded.) */
	if (later && !c->c.null)
		c->c = t->typmod_apply(c->c, typmod, ctx == SQL_COERCE_EXPLICIT);
	return c;
}

/* Builds the coercion of e (already analyzed) to `to`; throws if impossible. */
sql_expr *sql_coerce(sql_actx *ax, sql_expr *e, ty_oid to, int32_t typmod, sql_coerce_ctx ctx, int location)
{
	ty_oid from = e->type;
	if (to == TY_ANY || is_poly(to))
		return e;
	if (from == to) {
		if (typmod >= 0 && typmod != e->typmod) {
			const ty_type *t = ty_type_get(to);
			if (t && t->typmod_apply) {
				if (e->kind == SQL_E_CONST) {
					sql_expr *c = sql_expr_copy(e);
					c->c = c->c.null ? c->c : t->typmod_apply(c->c, typmod, ctx == SQL_COERCE_EXPLICIT);
					c->typmod = typmod;
					return c;
				}
				sql_expr *n = sql_expr_new(SQL_E_CAST, to, location);
				n->typmod = typmod;
				n->cast.arg = e;
				n->cast.method = SQL_CAST_TYPMOD;
				n->cast.src_type = from;
				n->cast.explicit_cast = ctx == SQL_COERCE_EXPLICIT;
				return n;
			}
		}
		return e;
	}
	if (from == TY_UNKNOWN && e->kind == SQL_E_CONST)
		return literal_to(ax, e, to, typmod, ctx);
	if (from == TY_UNKNOWN && e->kind == SQL_E_PARAM && ax) {
		/* A parameter of unknown type takes the type it is used as. */
		int i = e->param - 1;
		if (i < ax->ps->nparams && ax->ps->param_types[i] == TY_UNKNOWN) {
			ax->ps->param_types[i] = to;
			sql_expr *p = sql_expr_copy(e);
			p->type = to;
			if (typmod >= 0)
				return sql_coerce(ax, p, to, typmod, ctx, location);
			return p;
		}
	}
	if (!sql_can_coerce(from, to, ctx)) {
		if (ax)
			sql_error_at(ax, location, UTIL_E_CANNOT_COERCE, "cannot cast type %s to %s", tname(from), tname(to));
		ty_error(UTIL_E_CANNOT_COERCE, "cannot cast type %s to %s", tname(from), tname(to));
	}
	sql_expr *n = sql_expr_new(SQL_E_CAST, to, location);
	n->typmod = typmod;
	n->cast.arg = e;
	n->cast.src_type = from;
	n->cast.explicit_cast = ctx == SQL_COERCE_EXPLICIT;
	const ty_cast *c = ty_cast_lookup(from, to);
	if (c) {
		n->cast.method = c->method == 'b' ? SQL_CAST_RELABEL : c->method == 'f' ? SQL_CAST_FUNC : SQL_CAST_IO;
		if (c->method == 'f') {
			int cur = 0;
			const ty_func *f;
			while ((f = ty_func_lookup(c->func, &cur)))
				if (f->nargs >= 1 && f->args[0] == from)
					break;
			if (!f)
				ty_error(UTIL_E_UNDEFINED_FUNCTION, "cast function %s(%s) is missing", c->func, tname(from));
			n->cast.fn = f;
		}
	} else if (is_array(from) && is_array(to)) {
		n->cast.method = SQL_CAST_ARRAY;
		n->cast.elem_src = elem_of(from);
		n->cast.elem_dst = elem_of(to);
	} else if (from == TY_UNKNOWN) {
		n->cast.method = SQL_CAST_IO;
	} else {
		n->cast.method = SQL_CAST_IO;
	}
	/* Fold casts of constants now (immutable conversions). */
	if (e->kind == SQL_E_CONST && n->cast.method != SQL_CAST_IO) {
		sql_expr *k = sql_expr_new(SQL_E_CONST, to, e->location);
		k->typmod = typmod;
		k->c = ty_cast_value(e->c, from, to, typmod, ctx == SQL_COERCE_EXPLICIT);
		return k;
	}
	return n;
}

sql_expr *sql_coerce_bool(sql_actx *ax, sql_expr *e, const char *what)
{
	if (e->type == TY_BOOL)
		return e;
	if (e->type == TY_UNKNOWN)
		return sql_coerce(ax, e, TY_BOOL, -1, SQL_COERCE_ASSIGNMENT, e->location);
	sql_error_at(ax, e->location, UTIL_E_DATATYPE_MISMATCH, "argument of %s must be type %s, not type %s", what,
		     "boolean", tname(e->type));
}

ty_oid sql_common_type(sql_expr **exprs, int n, const char *context, int *locations)
{
	ty_oid ptype = TY_UNKNOWN;
	int pi = -1;
	for (int i = 0; i < n; i++)
		if (exprs[i]->type != TY_UNKNOWN) {
			ptype = exprs[i]->type;
			pi = i;
			break;
		}
	if (pi < 0)
		return TY_TEXT;
	char pcat = category(ptype);
	bool ppref = preferred(ptype);
	for (int i = pi + 1; i < n; i++) {
		ty_oid nt = exprs[i]->type;
		if (nt == TY_UNKNOWN || nt == ptype)
			continue;
		char ncat = category(nt);
		if (ncat != pcat) {
			util_err *e = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "%s types %s and %s cannot be matched", context,
						  tname(ptype), tname(nt));
			(void)e;
			if (locations)
				ty_err()->position = locations[i];
			ty_errthrow();
		}
		if (!ppref && sql_can_coerce(ptype, nt, SQL_COERCE_IMPLICIT) &&
		    !sql_can_coerce(nt, ptype, SQL_COERCE_IMPLICIT)) {
			ptype = nt;
			ppref = preferred(nt);
		}
	}
	return ptype;
}

/* ---------------------------------------------------------------- overload resolution */

typedef struct cand {
	const void *item;   /* ty_func or ty_operator */
	ty_oid args[TY_FUNC_MAX_ARGS + 32];
	int nargs;
	bool variadic_expanded;
} cand;

/* Resolves polymorphic declared types against actual ones; false on
 * inconsistency. Fills the resolved element/array types. */
static bool resolve_poly(const ty_oid *decl, const ty_oid *actual, int n, ty_oid *elem_out, ty_oid *compat_out)
{
	ty_oid elem = 0;
	ty_oid compat = 0;
	sql_expr *cexprs[64];
	int nc = 0;
	for (int i = 0; i < n; i++) {
		ty_oid d = decl[i], a = actual[i];
		if (a == TY_UNKNOWN)
			continue;
		ty_oid e = 0;
		if (d == TY_ANYELEMENT || d == TY_ANYNONARRAY || d == TY_ANYENUM)
			e = a;
		else if (d == TY_ANYARRAY)
			e = elem_of(a);
		else if (d == TY_ANYCOMPATIBLE || d == TY_ANYCOMPATIBLENONARRAY || d == TY_ANYCOMPATIBLEARRAY) {
			ty_oid x = d == TY_ANYCOMPATIBLEARRAY ? elem_of(a) : a;
			if (!x || (d == TY_ANYCOMPATIBLENONARRAY && elem_of(a)))
				return false; /* not an array / an array where none may be */
			if (nc < 64) {
				sql_expr *ex = ty_alloc0(sizeof *ex);
				ex->type = x;
				cexprs[nc++] = ex;
			}
			continue;
		} else
			continue;
		if (!e)
			return false;
		if (elem && elem != e)
			return false;
		elem = e;
	}
	if (nc) {
		/* Arguments without a common type make this candidate unusable
		 * (PostgreSQL rejects it rather than failing the call). */
		volatile ty_oid ct = 0;
		TY_TRY(tc)
		{
			ct = sql_common_type(cexprs, nc, "argument", NULL);
		}
		TY_CATCH(tc)
		{
			ct = 0;
		}
		TY_END(tc);
		if (!ct)
			return false;
		compat = ct;
	}
	*elem_out = elem;
	*compat_out = compat;
	return true;
}

static ty_oid subst_poly(ty_oid d, ty_oid elem, ty_oid compat)
{
	switch (d) {
	case TY_ANYELEMENT:
	case TY_ANYNONARRAY:
	case TY_ANYENUM:
		return elem ? elem : TY_TEXT;
	case TY_ANYARRAY:
		return elem ? array_of(elem) : TY_TEXT_ARRAY;
	case TY_ANYCOMPATIBLE:
	case TY_ANYCOMPATIBLENONARRAY:
		return compat ? compat : TY_TEXT;
	case TY_ANYCOMPATIBLEARRAY:
		return compat ? array_of(compat) : TY_TEXT_ARRAY;
	default:
		return d;
	}
}

static bool cand_coercible(const cand *c, const ty_oid *actual, int n)
{
	for (int i = 0; i < n; i++)
		if (!sql_can_coerce(actual[i], c->args[i], SQL_COERCE_IMPLICIT))
			return false;
	ty_oid e, k;
	return resolve_poly(c->args, actual, n, &e, &k);
}

/* PostgreSQL's func_select_candidate heuristics; returns the index of the
 * winner, -1 if none, -2 if ambiguous. */
static int select_candidate(cand *cs, int ncand, const ty_oid *actual, int n)
{
	int keep[1024];
	int nk = 0;
	for (int i = 0; i < ncand && nk < 1024; i++)
		keep[nk++] = i;
	if (nk == 1)
		return keep[0];
	/* 1: most exact matches on known inputs. */
	int best = -1, nb = 0, tmp[1024];
	for (int k = 0; k < nk; k++) {
		int m = 0;
		for (int i = 0; i < n; i++)
			if (actual[i] != TY_UNKNOWN && cs[keep[k]].args[i] == actual[i])
				m++;
		if (m > best) {
			best = m;
			nb = 0;
		}
		if (m == best)
			tmp[nb++] = keep[k];
	}
	memcpy(keep, tmp, sizeof(int) * (size_t)nb);
	nk = nb;
	if (nk == 1)
		return keep[0];
	/* 2: most preferred types at known positions (same category as input). */
	best = -1;
	nb = 0;
	for (int k = 0; k < nk; k++) {
		int m = 0;
		for (int i = 0; i < n; i++) {
			if (actual[i] == TY_UNKNOWN)
				continue;
			ty_oid t = cs[keep[k]].args[i];
			if (t == actual[i] || (preferred(t) && category(t) == category(actual[i])))
				m++;
		}
		if (m > best) {
			best = m;
			nb = 0;
		}
		if (m == best)
			tmp[nb++] = keep[k];
	}
	memcpy(keep, tmp, sizeof(int) * (size_t)nb);
	nk = nb;
	if (nk == 1)
		return keep[0];
	/* 3: unknown inputs: prefer the string category when any candidate
	 * accepts it there, else the one category all candidates agree on. */
	bool any_unknown = false;
	for (int i = 0; i < n; i++) {
		if (actual[i] != TY_UNKNOWN)
			continue;
		any_unknown = true;
		char cat = 0;
		bool conflict = false, have_string = false;
		for (int k = 0; k < nk; k++) {
			char c = category(cs[keep[k]].args[i]);
			if (c == 'S')
				have_string = true;
			if (!cat)
				cat = c;
			else if (c != cat)
				conflict = true;
		}
		if (have_string)
			cat = 'S';
		else if (conflict)
			continue;
		nb = 0;
		bool any_pref = false;
		for (int k = 0; k < nk; k++)
			if (category(cs[keep[k]].args[i]) == cat)
				any_pref |= preferred(cs[keep[k]].args[i]);
		for (int k = 0; k < nk; k++) {
			ty_oid t = cs[keep[k]].args[i];
			if (category(t) != cat)
				continue;
			if (any_pref && !preferred(t))
				continue;
			tmp[nb++] = keep[k];
		}
		if (nb) {
			memcpy(keep, tmp, sizeof(int) * (size_t)nb);
			nk = nb;
		}
	}
	if (nk == 1)
		return keep[0];
	/* 4: if the known inputs share one type, assume the unknowns have it too. */
	if (any_unknown) {
		ty_oid known = 0;
		bool same = true;
		for (int i = 0; i < n; i++)
			if (actual[i] != TY_UNKNOWN) {
				if (known && known != actual[i])
					same = false;
				known = actual[i];
			}
		if (known && same) {
			ty_oid as[TY_FUNC_MAX_ARGS + 32];
			for (int i = 0; i < n; i++)
				as[i] = actual[i] == TY_UNKNOWN ? known : actual[i];
			nb = 0;
			for (int k = 0; k < nk; k++)
				if (cand_coercible(&cs[keep[k]], as, n))
					tmp[nb++] = keep[k];
			if (nb == 1)
				return tmp[0];
		}
	}
	return -2;
}

static const char *arglist(const ty_oid *a, int n)
{
	util_buf b = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(&b, ", ");
		ty_format_type(a[i], -1, &b);
	}
	char *s = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return s;
}

/* Coerces arguments to the chosen signature (polymorphics resolved). */
static void coerce_args(sql_actx *ax, sql_expr **args, int n, const ty_oid *decl, ty_oid *resolved)
{
	ty_oid actual[TY_FUNC_MAX_ARGS + 32] = {0};
	for (int i = 0; i < n; i++)
		actual[i] = args[i]->type;
	ty_oid elem = 0, compat = 0;
	resolve_poly(decl, actual, n, &elem, &compat);
	for (int i = 0; i < n; i++) {
		ty_oid t = decl[i] == TY_ANY ? (actual[i] == TY_UNKNOWN ? TY_TEXT : actual[i])
						  : subst_poly(decl[i], elem, compat);
		if (t != args[i]->type)
			args[i] = sql_coerce(ax, args[i], t, -1, SQL_COERCE_IMPLICIT, args[i]->location);
		resolved[i] = args[i]->type;
	}
}

static ty_oid resolve_ret(ty_oid ret, const ty_oid *decl, const ty_oid *resolved, int n)
{
	if (!is_poly(ret))
		return ret;
	ty_oid elem = 0, compat = 0;
	resolve_poly(decl, resolved, n, &elem, &compat);
	return subst_poly(ret, elem, compat);
}

const ty_func *sql_find_cmp_op(const char *opname, ty_oid left, ty_oid right)
{
	int cur = 0;
	const ty_operator *op;
	while ((op = ty_operator_lookup(opname, &cur)))
		if (op->left == left && op->right == right)
			return ty_operator_func(op);
	return NULL;
}

sql_expr *sql_make_op(sql_actx *ax, const char *opname, sql_expr *l, sql_expr *r, int location)
{
	int n = l ? 2 : 1;
	ty_oid actual[2] = {0, 0};
	if (l) {
		actual[0] = l->type;
		actual[1] = r->type;
	} else {
		actual[0] = r->type;
	}
	cand cs[256];
	int ncand = 0;
	int cur = 0;
	const ty_operator *op;
	const ty_operator *exact = NULL;
	while ((op = ty_operator_lookup(opname, &cur))) {
		if ((op->left != 0) != (l != NULL))
			continue;
		cand c = {.item = op, .nargs = n};
		if (l) {
			c.args[0] = op->left;
			c.args[1] = op->right;
		} else {
			c.args[0] = op->right;
		}
		bool ex = true;
		for (int i = 0; i < n; i++)
			ex &= c.args[i] == actual[i];
		if (ex)
			exact = op;
		/* binary_oper_exact: one unknown side takes the other's type. */
		if (!exact && l && ((actual[0] == TY_UNKNOWN && actual[1] != TY_UNKNOWN && c.args[0] == actual[1] &&
				     c.args[1] == actual[1]) ||
				    (actual[1] == TY_UNKNOWN && actual[0] != TY_UNKNOWN && c.args[0] == actual[0] &&
				     c.args[1] == actual[0])))
			exact = op;
		if (cand_coercible(&c, actual, n) && ncand < 256)
			cs[ncand++] = c;
	}
	const ty_operator *chosen = exact;
	if (!chosen) {
		int w = ncand == 0 ? -1 : select_candidate(cs, ncand, actual, n);
		if (w == -2) {
			util_err *e = ty_errstart(UTIL_E_AMBIGUOUS_FUNCTION, l ? "operator is not unique: %s %s %s" : "operator is not unique: %s %s",
						  l ? tname(actual[0]) : opname, l ? opname : tname(actual[0]),
						  l ? tname(actual[1]) : "");
			util_err_hint(e, "Could not choose a best candidate operator. You might need to add explicit type casts.");
			e->position = sql_errposition(ax->ps->text, location);
			ty_errthrow();
		}
		if (w < 0) {
			util_err *e;
			if (l)
				e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "operator does not exist: %s %s %s", tname(actual[0]),
						opname, tname(actual[1]));
			else
				e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "operator does not exist: %s %s", opname,
						tname(actual[0]));
			util_err_hint(e, "No operator matches the given name and argument types. You might need to add explicit type casts.");
			e->position = sql_errposition(ax->ps->text, location);
			ty_errthrow();
		}
		chosen = cs[w].item;
	}
	const ty_func *f = ty_operator_func(chosen);
	if (!f)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "operator %s has no implementation function %s", opname, chosen->func);
	sql_expr *e = sql_expr_new(SQL_E_FUNC, chosen->result, location);
	e->f.fn = f;
	e->f.nargs = n;
	e->f.args = ty_alloc(sizeof(sql_expr *) * 2);
	if (l) {
		e->f.args[0] = l;
		e->f.args[1] = r;
	} else {
		e->f.args[0] = r;
	}
	e->f.argtypes = ty_alloc(sizeof(ty_oid) * 2);
	ty_oid decl[2];
	for (int i = 0; i < n; i++)
		decl[i] = f->args[i];
	coerce_args(ax, e->f.args, n, decl, e->f.argtypes);
	e->type = resolve_ret(chosen->result, decl, e->f.argtypes, n);
	/* a copy: the spelling may live in a parse tree that is freed after
	 * analysis (a view's body), while plans read it (plan_scan.c) */
	e->f.opname = opname ? ty_strdup(opname) : NULL;
	return e;
}

sql_expr *sql_make_func(sql_actx *ax, const char *name, sql_expr **args, int nargs, int location, bool variadic_call)
{
	ty_oid actual[TY_FUNC_MAX_ARGS + 32];
	if (nargs > TY_FUNC_MAX_ARGS + 32)
		sql_error_at(ax, location, UTIL_E_TOO_MANY_ARGUMENTS, "cannot pass more than %d arguments to a function",
			     TY_FUNC_MAX_ARGS + 32);
	for (int i = 0; i < nargs; i++)
		actual[i] = args[i]->type;
	cand *cs = ty_alloc(sizeof(cand) * 256);
	int ncand = 0;
	int cur = 0;
	const ty_func *f, *exact = NULL;
	bool name_exists = false;
	while ((f = ty_func_lookup(name, &cur))) {
		name_exists = true;
		if (f->kind != 'f')
			continue;
		cand c = {.item = f, .nargs = nargs};
		if (f->variadic && !variadic_call) {
			/* VARIADIC: expand the last parameter over the remaining args
			 * (at least one: PostgreSQL never matches it with none). */
			if (nargs < f->nargs)
				continue;
			for (int i = 0; i < nargs; i++)
				c.args[i] = i < f->nargs - 1 ? f->args[i] : (f->variadic == TY_ANY ? TY_ANY : f->variadic);
			c.variadic_expanded = true;
		} else {
			int min = f->nargs - f->nargdefaults;
			if (nargs < min || nargs > f->nargs)
				continue;
			for (int i = 0; i < nargs; i++)
				c.args[i] = f->args[i];
		}
		bool ex = true;
		for (int i = 0; i < nargs; i++)
			ex &= c.args[i] == actual[i] || c.args[i] == TY_ANY;
		if (ex && !exact && !c.variadic_expanded)
			exact = f;
		/* The same signature registered twice (by two type modules) is one
		 * function, not an ambiguity. */
		bool dup = false;
		for (int k = 0; k < ncand && !dup; k++)
			dup = cs[k].nargs == c.nargs && cs[k].variadic_expanded == c.variadic_expanded &&
			      ((const ty_func *)cs[k].item)->nargs == f->nargs &&
			      !memcmp(cs[k].args, c.args, sizeof(ty_oid) * (size_t)nargs);
		if (!dup && cand_coercible(&c, actual, nargs) && ncand < 256)
			cs[ncand++] = c;
	}
	int w = -1;
	if (exact) {
		for (int i = 0; i < ncand; i++)
			if (cs[i].item == exact && !cs[i].variadic_expanded)
				w = i;
	}
	if (w < 0)
		w = ncand == 0 ? -1 : select_candidate(cs, ncand, actual, nargs);
	if (w == -2) {
		util_err *e = ty_errstart(UTIL_E_AMBIGUOUS_FUNCTION, "function %s(%s) is not unique", name,
					  arglist(actual, nargs));
		util_err_hint(e, "Could not choose a best candidate function. You might need to add explicit type casts.");
		e->position = sql_errposition(ax->ps->text, location);
		ty_errthrow();
	}
	if (w < 0) {
		util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name,
					  arglist(actual, nargs));
		util_err_hint(e, "No function matches the given name and argument types. You might need to add explicit type casts.");
		(void)name_exists;
		e->position = sql_errposition(ax->ps->text, location);
		ty_errthrow();
	}
	f = cs[w].item;
	sql_expr *e = sql_expr_new(SQL_E_FUNC, f->ret, location);
	e->f.fn = f;
	e->f.nargs = nargs;
	e->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)(nargs ? nargs : 1));
	if (nargs) /* args may be NULL for a call without arguments */
		memcpy(e->f.args, args, sizeof(sql_expr *) * (size_t)nargs);
	e->f.argtypes = ty_alloc(sizeof(ty_oid) * (size_t)(nargs ? nargs : 1));
	if (variadic_call && f->variadic == TY_ANY) {
		/* f(..., VARIADIC arr) of a VARIADIC "any" function: the array's
		 * elements become the arguments when it runs. */
		sql_expr *last = args[nargs - 1];
		const ty_type *lt = ty_type_get(last->type);
		if (!lt || !lt->elem || lt->category != 'A') /* an unknown literal too, as PostgreSQL */
			sql_error_at(ax, last->location, UTIL_E_DATATYPE_MISMATCH, "VARIADIC argument must be an array");
		e->f.all = true;
	}
	coerce_args(ax, e->f.args, nargs, cs[w].args, e->f.argtypes);
	if (cs[w].variadic_expanded && f->variadic != TY_ANY) {
		/* A typed VARIADIC parameter receives its arguments as one array. */
		int first = f->nargs - 1, nv = nargs - first;
		ty_oid et = e->f.argtypes[first];
		const ty_type *ety = ty_type_get(et);
		sql_expr *arr = sql_expr_new(SQL_E_ARRAY, ety && ety->array ? ety->array : TY_TEXT_ARRAY, e->f.args[first]->location);
		arr->f.nargs = nv;
		arr->f.args = ty_alloc(sizeof(sql_expr *) * (size_t)nv);
		memcpy(arr->f.args, e->f.args + first, sizeof(sql_expr *) * (size_t)nv);
		e->f.args[first] = arr;
		e->f.argtypes[first] = arr->type;
		e->f.nargs = f->nargs;
		e->type = resolve_ret(f->ret, cs[w].args, e->f.argtypes, first);
		if (f->ret == TY_RECORD && f->nout)
			e->type = TY_RECORD;
		return e;
	}
	/* pg_typeof('x') reports the literal's type, unknown. */
	if (nargs == 1 && actual[0] == TY_UNKNOWN && !strcmp(f->name, "pg_typeof"))
		e->f.argtypes[0] = TY_UNKNOWN;
	e->type = resolve_ret(f->ret, cs[w].args, e->f.argtypes, nargs);
	if (f->ret == TY_RECORD && f->nout)
		e->type = TY_RECORD;
	return e;
}
