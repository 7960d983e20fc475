/*
 * eval.c — the expression interpreter: evaluates a planned expression
 * (Vars already turned into input slots) against one input row, with SQL's
 * three-valued logic, strict functions, casts, CASE, arrays, rows,
 * ANY/ALL, row comparisons and sublinks (cached when uncorrelated).
 * Results are allocated in the current arena (the consumer's batch).
 */
#include <string.h>

#include "array.h"
#include "sql_int.h"

static ty_datum eval(sql_exec *ex, const sql_expr *e, const ty_datum *row);

/* The CASE test value and ANY/ALL element (SQL_E_CASETEST). */
static _Thread_local ty_datum casetest;

/* f(a, VARIADIC arr) for a VARIADIC "any" function: arr's elements are
 * passed as separate arguments of the array's element type. */
static ty_datum call_variadic_any(sql_exec *ex, const sql_expr *e, ty_datum *args, int n)
{
	ty_datum arr = args[n - 1];
	/* VARIADIC NULL: PostgreSQL's concat, concat_ws, num_nulls and the
	 * json builders return NULL; format() takes it as no arguments. */
	if (arr.null && strcmp(e->f.fn->name, "format") != 0)
		return ty_null();
	int ne = 0;
	ty_datum *els = arr.null ? NULL : ty_array_deconstruct(arr, &ne);
	if (arr.null)
		ne = 0;
	int total = n - 1 + ne;
	ty_datum *all = ty_alloc(sizeof(ty_datum) * (size_t)(total ? total : 1));
	ty_oid *types = ty_alloc(sizeof(ty_oid) * (size_t)(total ? total : 1));
	memcpy(all, args, sizeof(ty_datum) * (size_t)(n - 1));
	memcpy(types, e->f.argtypes, sizeof(ty_oid) * (size_t)(n - 1));
	ty_oid et = ty_array_elem_of(e->f.argtypes[n - 1]);
	for (int i = 0; i < ne; i++) {
		all[n - 1 + i] = els[i];
		types[n - 1 + i] = et;
	}
	sql_cache_slot *cs = &ex->cache[e->f.cache];
	ty_fcinfo fc = {.nargs = total,
			.args = all,
			.argtypes = types,
			.rettype = e->type,
			.rettypmod = e->typmod,
			.cache = &cs->fn_cache,
			.cache_arena = ex->arena,
			.exec = ex};
	return e->f.fn->fn(&fc);
}

/* An argument: columns and constants without the evaluator's dispatch. */
static inline ty_datum arg_value(sql_exec *ex, const sql_expr *a, const ty_datum *row)
{
	if (a->kind == SQL_E_SLOT)
		return row[a->slot];
	if (a->kind == SQL_E_CONST)
		return a->c;
	return eval(ex, a, row);
}

/* call_func for two arguments (operators: the common case per row). */
static ty_datum call_func2(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	const ty_func *f = e->f.fn;
	ty_datum args[2];
	args[0] = arg_value(ex, e->f.args[0], row);
	if (args[0].null && f->strict)
		return ty_null();
	args[1] = arg_value(ex, e->f.args[1], row);
	if (args[1].null && f->strict)
		return ty_null();
	ty_fcinfo fc = {.nargs = 2,
			.args = args,
			.argtypes = e->f.argtypes,
			.rettype = e->type,
			.rettypmod = e->typmod,
			.cache = &ex->cache[e->f.cache].fn_cache,
			.cache_arena = ex->arena,
			.exec = ex};
	return f->fn(&fc);
}

static ty_datum call_func(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	const ty_func *f = e->f.fn;
	int n = e->f.nargs;
	if (n == 2 && !e->f.all)
		return call_func2(ex, e, row);
	ty_datum argbuf[16];
	ty_datum *args = n <= 16 ? argbuf : ty_alloc(sizeof(ty_datum) * (size_t)n);
	for (int i = 0; i < n; i++) {
		args[i] = eval(ex, e->f.args[i], row);
		if (args[i].null && f->strict)
			return ty_null();
	}
	if (e->f.all)
		return call_variadic_any(ex, e, args, n);
	sql_cache_slot *cs = &ex->cache[e->f.cache];
	ty_fcinfo fc = {.nargs = n,
			.args = args,
			.argtypes = e->f.argtypes,
			.rettype = e->type,
			.rettypmod = e->typmod,
			.cache = &cs->fn_cache,
			.cache_arena = ex->arena,
			.exec = ex};
	return f->fn(&fc);
}

static ty_datum do_cast(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	ty_datum v = eval(ex, e->cast.arg, row);
	if (v.null)
		return v;
	const ty_type *t;
	switch (e->cast.method) {
	case SQL_CAST_RELABEL:
	case SQL_CAST_TYPMOD:
		t = ty_type_get(e->type);
		if (e->typmod >= 0 && t && t->typmod_apply)
			v = t->typmod_apply(v, e->typmod, e->cast.explicit_cast);
		return v;
	case SQL_CAST_FUNC: {
		ty_oid at = e->cast.src_type;
		void *cache = NULL;
		ty_fcinfo fc = {.nargs = 1, .args = &v, .argtypes = &at, .rettype = e->type, .rettypmod = -1,
				.cache = &cache, .cache_arena = ex->arena, .exec = ex};
		v = e->cast.fn->fn(&fc);
		t = ty_type_get(e->type);
		if (!v.null && e->typmod >= 0 && t && t->typmod_apply)
			v = t->typmod_apply(v, e->typmod, e->cast.explicit_cast);
		return v;
	}
	case SQL_CAST_ARRAY:
		return ty_array_coerce(v, e->type, e->typmod, e->cast.explicit_cast);
	case SQL_CAST_IO:
	default:
		return ty_cast_value(v, e->cast.src_type, e->type, e->typmod, e->cast.explicit_cast);
	}
}

static bool is_true(ty_datum d) { return !d.null && d.i; }

static ty_datum eval_bool(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	bool any_null = false;
	if (e->kind == SQL_E_AND) {
		for (int i = 0; i < e->f.nargs; i++) {
			ty_datum d = eval(ex, e->f.args[i], row);
			if (d.null)
				any_null = true;
			else if (!d.i)
				return ty_bool(false);
		}
		return any_null ? ty_null() : ty_bool(true);
	}
	if (e->kind == SQL_E_OR) {
		for (int i = 0; i < e->f.nargs; i++) {
			ty_datum d = eval(ex, e->f.args[i], row);
			if (d.null)
				any_null = true;
			else if (d.i)
				return ty_bool(true);
		}
		return any_null ? ty_null() : ty_bool(false);
	}
	ty_datum d = eval(ex, e->f.args[0], row);
	return d.null ? d : ty_bool(!d.i);
}

static ty_datum eval_case(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	int k = 0;
	ty_datum saved = casetest;
	if (e->f.negate) /* has a test value */
		casetest = eval(ex, e->f.args[k++], row);
	int n = e->f.nargs;
	for (; k + 1 < n; k += 2) {
		ty_datum c = eval(ex, e->f.args[k], row);
		if (is_true(c)) {
			ty_datum r = eval(ex, e->f.args[k + 1], row);
			casetest = saved;
			return r;
		}
	}
	ty_datum r = eval(ex, e->f.args[n - 1], row);
	casetest = saved;
	return r;
}

static bool row_all_null(const ty_datum *d)
{
	const ty_record *r = d->p;
	for (int i = 0; i < r->n; i++)
		if (!r->vals[i].null)
			return false;
	return true;
}

static bool row_any_null(const ty_datum *d)
{
	const ty_record *r = d->p;
	for (int i = 0; i < r->n; i++)
		if (r->vals[i].null)
			return true;
	return false;
}

/* Calls a two-argument boolean function (equality) directly. */
static ty_datum call2(sql_exec *ex, const ty_func *f, const ty_oid *types, ty_datum a, ty_datum b)
{
	if (f->strict && (a.null || b.null))
		return ty_null();
	ty_datum args[2] = {a, b};
	void *cache = NULL;
	ty_fcinfo fc = {.nargs = 2, .args = args, .argtypes = types, .rettype = TY_BOOL, .rettypmod = -1,
			.cache = &cache, .cache_arena = ex->arena, .exec = ex};
	return f->fn(&fc);
}

static ty_datum eval_rowcmp(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	const char *op = e->f.opname;
	int npairs = e->f.nargs / 2;
	for (int i = 0; i < npairs; i++) {
		ty_datum a = eval(ex, e->f.args[2 * i], row);
		ty_datum b = eval(ex, e->f.args[2 * i + 1], row);
		if (a.null || b.null)
			return ty_null();
		int c = ty_compare(e->f.args[2 * i]->type, a, b);
		if (e->f.args[2 * i]->type != e->f.args[2 * i + 1]->type) {
			/* Mixed types (int4 vs int8): compare via the wider one. */
			ty_datum bb = ty_cast_value(b, e->f.args[2 * i + 1]->type, e->f.args[2 * i]->type, -1, false);
			c = ty_compare(e->f.args[2 * i]->type, a, bb);
		}
		if (c != 0) {
			if (!strcmp(op, "<") || !strcmp(op, "<="))
				return ty_bool(c < 0);
			return ty_bool(c > 0);
		}
	}
	return ty_bool(!strcmp(op, "<=") || !strcmp(op, ">="));
}

/* a[i][j] / a[lo:hi][...] (PostgreSQL 15 semantics: a NULL subscript gives
 * NULL, subscripts out of range give NULL / clip the slice). */
static ty_datum eval_subscript(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	ty_datum a = eval(ex, e->f.args[0], row);
	if (a.null)
		return a;
	int n = e->f.booltest;
	int lower[TY_ARRAY_MAXDIM], upper[TY_ARRAY_MAXDIM];
	bool has_lower[TY_ARRAY_MAXDIM], has_upper[TY_ARRAY_MAXDIM];
	for (int i = 0; i < n; i++) {
		const sql_expr *le = e->f.args[1 + 2 * i], *he = e->f.args[2 + 2 * i];
		has_lower[i] = le != NULL;
		has_upper[i] = he != NULL;
		lower[i] = upper[i] = 0;
		if (le) {
			ty_datum d = eval(ex, le, row);
			if (d.null)
				return ty_null();
			lower[i] = (int)d.i;
		}
		if (he) {
			ty_datum d = eval(ex, he, row);
			if (d.null)
				return ty_null();
			upper[i] = (int)d.i;
		}
	}
	if (!e->f.all)
		return ty_array_get_element(a, n, lower);
	return ty_array_get_slice(a, n, lower, has_lower, upper, has_upper);
}

/* a[lo:hi] := src for a one-dimensional array (PostgreSQL's array_set_slice):
 * the array grows (NULL-filled) to cover the slice, src supplies the
 * elements in order and must have enough of them. */
static ty_datum set_slice_1d(ty_datum a, ty_oid et, bool has_lo, int lo, bool has_hi, int hi, ty_datum src)
{
	int na = 0, lb = 1;
	ty_datum *els = NULL;
	if (!a.null && ty_array_ndim(a) > 0) {
		if (ty_array_ndim(a) != 1)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "slice assignment to multi-dimensional arrays is not supported");
		lb = ty_array_lbound(a, 0);
		els = ty_array_deconstruct(a, &na);
	} else if (!has_lo || !has_hi) {
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "array slice subscript must provide both boundaries");
	}
	if (!has_lo)
		lo = lb;
	if (!has_hi)
		hi = lb + na - 1;
	if (hi < lo)
		return a.null ? ty_array_empty(et) : a;
	int ns = 0;
	ty_datum *sv = src.null ? NULL : ty_array_deconstruct(src, &ns);
	int need = hi - lo + 1;
	if (ns < need)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "source array too small");
	int newlb = na ? (lo < lb ? lo : lb) : lo;
	int newub = na ? (hi > lb + na - 1 ? hi : lb + na - 1) : hi;
	if (na && (lo > lb + na || hi < lb - 1))
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "array subscript out of range");
	int cnt = newub - newlb + 1;
	ty_datum *out = ty_alloc(sizeof(ty_datum) * (size_t)cnt);
	for (int i = 0; i < cnt; i++) {
		int idx = newlb + i;
		if (idx >= lo && idx <= hi)
			out[i] = sv[idx - lo];
		else if (idx >= lb && idx < lb + na)
			out[i] = els[idx - lb];
		else
			out[i] = ty_null();
	}
	int dims[1] = {cnt}, lbs[1] = {newlb};
	return ty_array_build(et, 1, dims, lbs, out);
}

/* UPDATE ... SET a[i] = v / a[lo:hi] = arr. */
static ty_datum eval_assign(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	ty_datum a = eval(ex, e->f.args[0], row);
	ty_datum v = eval(ex, e->f.args[1], row);
	int n = e->f.booltest;
	int lower[TY_ARRAY_MAXDIM], upper[TY_ARRAY_MAXDIM];
	bool has_lower[TY_ARRAY_MAXDIM], has_upper[TY_ARRAY_MAXDIM];
	for (int i = 0; i < n; i++) {
		const sql_expr *le = e->f.args[2 + 2 * i], *he = e->f.args[3 + 2 * i];
		has_lower[i] = le != NULL;
		has_upper[i] = he != NULL;
		lower[i] = upper[i] = 0;
		ty_datum d;
		if (le && (d = eval(ex, le, row)).null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "array subscript in assignment must not be null");
		if (le)
			lower[i] = (int)d.i;
		if (he && (d = eval(ex, he, row)).null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "array subscript in assignment must not be null");
		if (he)
			upper[i] = (int)d.i;
	}
	ty_oid et = ty_array_elem_of(e->type);
	if (!e->f.all)
		return ty_array_set_element(a, et, n, lower, v);
	if (n != 1)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "slice assignment to multi-dimensional arrays is not supported");
	return set_slice_1d(a, et, has_lower[0], lower[0], has_upper[0], upper[0], v);
}

static ty_datum eval_array(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	int n = e->f.nargs;
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		vals[i] = eval(ex, e->f.args[i], row);
	const ty_type *at = ty_type_get(e->type);
	ty_oid et = at ? at->elem : TY_TEXT;
	if (!e->f.negate)
		return n ? ty_array_from_list(et, n, vals) : ty_array_empty(et);
	/* ARRAY[ARRAY[..], ARRAY[..]]: stack sub-arrays into one more dimension. */
	if (n == 0)
		return ty_array_empty(et);
	int subdims[6] = {0}, sublb[6] = {0}, subnd = -1;
	int total = 0;
	ty_datum *all = NULL;
	for (int i = 0; i < n; i++) {
		if (vals[i].null)
			ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "multidimensional arrays must have array expressions with matching dimensions");
		int nd = ty_array_ndim(vals[i]);
		if (subnd < 0) {
			subnd = nd;
			for (int d = 0; d < nd && d < 5; d++) {
				subdims[d] = ty_array_dim(vals[i], d);
				sublb[d] = ty_array_lbound(vals[i], d);
			}
		} else if (nd != subnd) {
			ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "multidimensional arrays must have array expressions with matching dimensions");
		} else {
			for (int d = 0; d < nd && d < 5; d++)
				if (ty_array_dim(vals[i], d) != subdims[d])
					ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR,
						 "multidimensional arrays must have array expressions with matching dimensions");
		}
		int cnt;
		ty_datum *els = ty_array_deconstruct(vals[i], &cnt);
		ty_datum *na = ty_alloc(sizeof(ty_datum) * (size_t)(total + cnt + 1));
		if (total)
			memcpy(na, all, sizeof(ty_datum) * (size_t)total);
		memcpy(na + total, els, sizeof(ty_datum) * (size_t)cnt);
		all = na;
		total += cnt;
	}
	if (subnd <= 0)
		return ty_array_empty(et);
	if (subnd >= 6)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "number of array dimensions exceeds the maximum allowed (6)");
	int dims[6], lbs[6];
	dims[0] = n;
	lbs[0] = 1;
	for (int d = 0; d < subnd; d++) {
		dims[d + 1] = subdims[d];
		lbs[d + 1] = sublb[d];
	}
	return ty_array_build(et, subnd + 1, dims, lbs, all);
}

static ty_datum eval_session(sql_exec *ex, const sql_expr *e)
{
	sql_session *s = ex->s;
	switch (e->sv) {
	case SQL_SV_CURRENT_USER:
		return ty_text(s->user);
	case SQL_SV_SESSION_USER:
		return ty_text(s->session_user[0] ? s->session_user : s->user);
	case SQL_SV_CURRENT_CATALOG:
		return ty_text(s->database);
	case SQL_SV_CURRENT_SCHEMA: {
		const char *name = sql_current_schema_name(s);
		return name ? ty_text(name) : ty_null();
	}
	}
	return ty_null();
}

static ty_datum eval(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	sql_check_stack_depth();
	switch (e->kind) {
	case SQL_E_CONST:
		return e->c;
	case SQL_E_SLOT:
		return row[e->slot];
	case SQL_E_PARAM:
		if (e->param < 1 || e->param > ex->nparams)
			ty_error(UTIL_E_UNDEFINED_PARAMETER, "there is no parameter $%d", e->param);
		return ex->params[e->param - 1];
	case SQL_E_EXECPARAM:
		return ex->exec_params[e->param];
	case SQL_E_FUNC:
		return call_func(ex, e, row);
	case SQL_E_AND:
	case SQL_E_OR:
	case SQL_E_NOT:
		return eval_bool(ex, e, row);
	case SQL_E_CASE:
		return eval_case(ex, e, row);
	case SQL_E_CASETEST:
		return casetest;
	case SQL_E_COALESCE:
		for (int i = 0; i < e->f.nargs; i++) {
			ty_datum d = eval(ex, e->f.args[i], row);
			if (!d.null)
				return d;
		}
		return ty_null();
	case SQL_E_NULLIF: {
		ty_datum a = eval(ex, e->f.args[0], row);
		ty_datum b = eval(ex, e->f.args[1], row);
		if (a.null || b.null)
			return a;
		ty_datum eq = call2(ex, e->f.fn, e->f.argtypes, a, b);
		return is_true(eq) ? ty_null() : a;
	}
	case SQL_E_GREATEST:
	case SQL_E_LEAST: {
		ty_datum best = ty_null();
		for (int i = 0; i < e->f.nargs; i++) {
			ty_datum d = eval(ex, e->f.args[i], row);
			if (d.null)
				continue;
			if (best.null) {
				best = d;
				continue;
			}
			int c = ty_compare(e->type, d, best);
			if ((e->kind == SQL_E_GREATEST && c > 0) || (e->kind == SQL_E_LEAST && c < 0))
				best = d;
		}
		return best;
	}
	case SQL_E_NULLTEST: {
		ty_datum d = eval(ex, e->f.args[0], row);
		bool isnull;
		if (!d.null && e->f.args[0]->type == TY_RECORD)
			isnull = e->f.negate ? !row_any_null(&d) : row_all_null(&d);
		else
			isnull = d.null;
		if (!d.null && e->f.args[0]->type == TY_RECORD && e->f.negate)
			return ty_bool(isnull);
		return ty_bool(e->f.negate ? !isnull : isnull);
	}
	case SQL_E_BOOLTEST: {
		ty_datum d = eval(ex, e->f.args[0], row);
		switch (e->f.booltest) {
		case PG_QUERY__BOOL_TEST_TYPE__IS_TRUE: return ty_bool(!d.null && d.i);
		case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_TRUE: return ty_bool(d.null || !d.i);
		case PG_QUERY__BOOL_TEST_TYPE__IS_FALSE: return ty_bool(!d.null && !d.i);
		case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_FALSE: return ty_bool(d.null || d.i);
		case PG_QUERY__BOOL_TEST_TYPE__IS_UNKNOWN: return ty_bool(d.null);
		default: return ty_bool(!d.null);
		}
	}
	case SQL_E_DISTINCT: {
		ty_datum a = eval(ex, e->f.args[0], row);
		ty_datum b = eval(ex, e->f.args[1], row);
		bool distinct;
		if (a.null || b.null)
			distinct = a.null != b.null;
		else
			distinct = !is_true(call2(ex, e->f.fn, e->f.argtypes, a, b));
		return ty_bool(e->f.negate ? !distinct : distinct);
	}
	case SQL_E_CAST:
		return do_cast(ex, e, row);
	case SQL_E_SUBLINK:
		return sql_eval_sublink(ex, e, row);
	case SQL_E_ARRAY:
		return eval_array(ex, e, row);
	case SQL_E_ROW: {
		ty_record *r = ty_alloc(sizeof *r);
		r->n = e->f.nargs;
		ty_oid *types = ty_alloc(sizeof(ty_oid) * (size_t)(r->n ? r->n : 1));
		r->vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->n ? r->n : 1));
		for (int i = 0; i < r->n; i++) {
			types[i] = e->f.args[i]->type;
			r->vals[i] = eval(ex, e->f.args[i], row);
		}
		r->types = types;
		r->names = NULL;
		return ty_bytes(r, sizeof *r);
	}
	case SQL_E_ANYARRAY: {
		ty_datum l = eval(ex, e->f.args[0], row);
		ty_datum a = eval(ex, e->f.args[1], row);
		if (a.null)
			return ty_null();
		return ty_array_scalar_op(e->f.fn, l, e->f.argtypes[0], a, !e->f.all);
	}
	case SQL_E_ROWCMP:
		return eval_rowcmp(ex, e, row);
	case SQL_E_SUBSCRIPT:
		return eval_subscript(ex, e, row);
	case SQL_E_ASSIGN:
		return eval_assign(ex, e, row);
	case SQL_E_SESSION:
		return eval_session(ex, e);
	case SQL_E_FIELD: {
		ty_datum r = eval(ex, e->field.arg, row);
		if (r.null)
			return r;
		const ty_record *rec = r.p;
		return e->field.field < rec->n ? rec->vals[e->field.field] : ty_null();
	}
	case SQL_E_SRF:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "set-valued function called in context that cannot accept a set");
	case SQL_E_VAR:
		ty_error(UTIL_E_INTERNAL_ERROR, "unplanned variable reference");
	case SQL_E_AGG:
		ty_error(UTIL_E_GROUPING_ERROR, "aggregate function calls cannot be evaluated here");
	case SQL_E_WINDOW:
		ty_error(UTIL_E_WINDOWING_ERROR, "window function calls cannot be evaluated here");
	case SQL_E_GROUPING:
		ty_error(UTIL_E_GROUPING_ERROR, "GROUPING must be used with GROUP BY");
	case SQL_E_DEFAULT:
		ty_error(UTIL_E_SYNTAX_ERROR, "DEFAULT is not allowed in this context");
	}
	ty_error(UTIL_E_INTERNAL_ERROR, "unknown expression kind %d", e->kind);
}

ty_datum sql_eval(sql_exec *ex, const sql_expr *e, const ty_datum *row) { return eval(ex, e, row); }

bool sql_eval_qual(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	if (!e)
		return true;
	ty_datum d = eval(ex, e, row);
	return !d.null && d.i;
}

/* ---------------------------------------------------------------- sublinks */

/* Compares the test row with a subquery row for ANY/ALL: true, false or NULL. */
static ty_datum sub_compare(sql_exec *ex, const sql_expr *e, ty_datum test, const ty_datum *srow)
{
	const ty_record *tr = test.p;
	bool any_null = false;
	for (int i = 0; i < e->sub.ncmp; i++) {
		ty_oid types[2] = {e->sub.testexpr->f.args[i]->type, e->sub.plan->types[i]};
		ty_datum r = call2(ex, e->sub.cmp[i], types, tr->vals[i], srow[i]);
		if (r.null)
			any_null = true;
		else if (!r.i)
			return ty_bool(false);
	}
	return any_null ? ty_null() : ty_bool(true);
}

/* (a, b) op (SELECT x, y) against the subquery's row (PostgreSQL's
 * RowCompareExpr: the first unequal pair decides; NULL if a pair up to
 * there has a NULL). Column pairs have one type each (the analyzer
 * coerced them). */
static ty_datum sub_rowcmp(const sql_expr *e, ty_datum test, const ty_datum *srow)
{
	const ty_record *tr = test.p;
	int rt = e->sub.rowcmp_op;
	bool eq = rt == PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_EQ, ne = rt == PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_NE;
	bool any_null = false;
	for (int i = 0; i < tr->n; i++) {
		ty_datum a = tr->vals[i], b = srow[i];
		if (a.null || b.null) {
			if (!eq && !ne)
				return ty_null();
			any_null = true;
			continue;
		}
		int c = ty_compare(e->sub.testexpr->f.args[i]->type, a, b);
		if (c == 0)
			continue;
		switch (rt) {
		case PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_EQ: return ty_bool(false);
		case PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_NE: return ty_bool(true);
		case PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_LT:
		case PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_LE: return ty_bool(c < 0);
		default: return ty_bool(c > 0);
		}
	}
	if (any_null)
		return ty_null();
	return ty_bool(rt != PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_NE && rt != PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_LT &&
		       rt != PG_QUERY__ROW_COMPARE_TYPE__ROWCOMPARE_GT);
}

/* A hashed SubPlan's values (open addressing) and whether a NULL came. */
typedef struct sub_hashset {
	ty_datum *slots;
	uint8_t *used;
	size_t cap, n;
	bool has_null;
	size_t held;
} sub_hashset;

static void hs_insert(sub_hashset *hs, const ty_type *t, ty_datum v, util_arena *a)
{
	if ((hs->n + 1) * 2 > hs->cap) {
		size_t cap = hs->cap ? hs->cap * 2 : 64;
		ty_datum *ns = util_arena_zalloc(a, sizeof(ty_datum) * cap);
		uint8_t *nu = util_arena_zalloc(a, cap);
		if (!ns || !nu)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		for (size_t i = 0; i < hs->cap; i++) {
			if (!hs->used[i])
				continue;
			size_t j = t->hash(hs->slots[i]) & (cap - 1);
			while (nu[j])
				j = (j + 1) & (cap - 1);
			ns[j] = hs->slots[i];
			nu[j] = 1;
		}
		hs->slots = ns;
		hs->used = nu;
		hs->cap = cap;
	}
	size_t j = t->hash(v) & (hs->cap - 1);
	while (hs->used[j]) {
		if (t->cmp(hs->slots[j], v) == 0)
			return;
		j = (j + 1) & (hs->cap - 1);
	}
	util_arena *old = ty_set_arena(a);
	hs->slots[j] = ty_datum_copy(v, t->byval);
	ty_set_arena(old);
	hs->used[j] = 1;
	hs->n++;
}

static bool hs_contains(const sub_hashset *hs, const ty_type *t, ty_datum v)
{
	if (!hs->cap)
		return false;
	for (size_t j = t->hash(v) & (hs->cap - 1); hs->used[j]; j = (j + 1) & (hs->cap - 1))
		if (t->cmp(hs->slots[j], v) == 0)
			return true;
	return false;
}

/* x = ANY (SELECT y) with the set built once: true if x is in it; else
 * NULL if x is NULL (and the set not empty) or the set has a NULL. */
static ty_datum eval_hashed_sublink(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	sql_cache_slot *cs = &ex->cache[e->sub.cache];
	const ty_type *t = ty_type_get(e->sub.plan->types[0]);
	sub_hashset *hs = cs->fn_cache;
	if (!hs) {
		hs = util_arena_zalloc(ex->arena, sizeof *hs);
		util_arena *caller = ty_get_arena();
		sql_op *op = sql_exec_node(ex, e->sub.plan);
		if (op->opened)
			sql_op_rescan(op);
		for (;;) {
			sql_batch *b = sql_op_next(op);
			if (b->n == 0)
				break;
			for (int i = 0; i < b->n; i++) {
				ty_datum v = sql_batch_row(b, i)[0];
				if (v.null)
					hs->has_null = true;
				else
					hs_insert(hs, t, v, ex->arena);
			}
			sql_exec_account(ex, &hs->held, hs->cap * (sizeof(ty_datum) + 1));
		}
		ty_set_arena(caller);
		cs->fn_cache = hs;
	}
	const ty_record *tr = eval(ex, e->sub.testexpr, row).p;
	ty_datum x = tr->vals[0];
	if (!hs->n && !hs->has_null)
		return ty_bool(false);
	if (x.null)
		return ty_null();
	if (hs_contains(hs, t, x))
		return ty_bool(true);
	return hs->has_null ? ty_null() : ty_bool(false);
}

ty_datum sql_eval_sublink(sql_exec *ex, const sql_expr *e, const ty_datum *row)
{
	if (e->sub.hashed)
		return eval_hashed_sublink(ex, e, row);
	sql_cache_slot *cs = &ex->cache[e->sub.cache];
	bool cacheable = !e->sub.correlated && e->sub.kind != SQL_SUB_ANY && e->sub.kind != SQL_SUB_ALL &&
			 e->sub.kind != SQL_SUB_ROWCMP;
	if (cacheable && cs->valid)
		return cs->value;
	for (int i = 0; i < e->sub.nparams; i++)
		ex->exec_params[e->sub.params[i]] = eval(ex, e->sub.param_vals[i], row);
	ty_datum test = ty_null();
	if (e->sub.testexpr)
		test = eval(ex, e->sub.testexpr, row);
	/* Runs the subplan from the start (state is rebuilt per evaluation). */
	util_arena *caller = ty_get_arena();
	sql_op *op = sql_exec_node(ex, e->sub.plan);
	if (op->opened)
		sql_op_rescan(op);
	ty_datum result = ty_null();
	bool done = false, any_null = false;
	int nrows = 0;
	ty_datum *arr = NULL;
	int narr = 0, arrcap = 0;
	while (!done) {
		sql_batch *b = sql_op_next(op);
		if (b->n == 0)
			break;
		for (int i = 0; i < b->n && !done; i++) {
			ty_datum *r = sql_batch_row(b, i);
			switch (e->sub.kind) {
			case SQL_SUB_EXISTS:
				result = ty_bool(true);
				done = true;
				break;
			case SQL_SUB_EXPR:
				if (++nrows > 1)
					ty_error(UTIL_E_CARDINALITY_VIOLATION, "more than one row returned by a subquery used as an expression");
				ty_set_arena(caller);
				result = sql_datum_copy(r[0], e->type);
				break;
			case SQL_SUB_ARRAY:
				if (narr == arrcap) {
					arrcap = arrcap ? arrcap * 2 : 16;
					ty_set_arena(caller);
					ty_datum *na = ty_alloc(sizeof(ty_datum) * (size_t)arrcap);
					if (narr)
						memcpy(na, arr, sizeof(ty_datum) * (size_t)narr);
					arr = na;
				}
				ty_set_arena(caller);
				arr[narr++] = sql_datum_copy(r[0], e->sub.plan->types[0]);
				break;
			case SQL_SUB_MULTIEXPR: {
				if (++nrows > 1)
					ty_error(UTIL_E_CARDINALITY_VIOLATION, "more than one row returned by a subquery used as an expression");
				ty_set_arena(caller);
				const sql_plan *sp = e->sub.plan;
				ty_record *rec = ty_alloc(sizeof *rec);
				rec->n = e->sub.query->nret; /* (junk ORDER BY columns follow) */
				rec->vals = ty_alloc(sizeof(ty_datum) * (size_t)(rec->n ? rec->n : 1));
				rec->types = sp->types;
				rec->names = NULL;
				for (int c = 0; c < rec->n; c++) {
					rec->vals[c] = sql_datum_copy(r[c], sp->types[c]);
				}
				result = ty_bytes(rec, sizeof *rec);
				break;
			}
			case SQL_SUB_ROWCMP:
				if (++nrows > 1)
					ty_error(UTIL_E_CARDINALITY_VIOLATION, "more than one row returned by a subquery used as an expression");
				ty_set_arena(caller);
				result = sub_rowcmp(e, test, r);
				break;
			case SQL_SUB_ANY:
			case SQL_SUB_ALL: {
				ty_set_arena(caller);
				ty_datum c = test.null ? ty_null() : sub_compare(ex, e, test, r);
				if (e->sub.kind == SQL_SUB_ANY && is_true(c)) {
					result = ty_bool(true);
					done = true;
				} else if (e->sub.kind == SQL_SUB_ALL && !c.null && !c.i) {
					result = ty_bool(false);
					done = true;
				} else if (c.null) {
					any_null = true;
				}
				nrows++;
				break;
			}
			default:
				break;
			}
		}
	}
	ty_set_arena(caller);
	if (!done) {
		switch (e->sub.kind) {
		case SQL_SUB_EXISTS: result = ty_bool(false); break;
		case SQL_SUB_ANY: result = any_null ? ty_null() : ty_bool(false); break;
		case SQL_SUB_ALL: result = any_null ? ty_null() : ty_bool(true); break;
		case SQL_SUB_ARRAY: {
			const ty_type *at = ty_type_get(e->type);
			result = narr ? ty_array_from_list(at->elem, narr, arr) : ty_array_empty(at->elem);
			break;
		}
		default: break;
		}
	}
	if (cacheable) {
		util_arena *old = ty_set_arena(ex->arena);
		cs->value = sql_datum_copy(result, e->type);
		ty_set_arena(old);
		cs->valid = true;
	}
	return result;
}
