/*
 * arr_manip.c — functions that build new arrays from old ones, with
 * PostgreSQL 15's bounds handling and errors: array_append/prepend/cat and
 * the || operators, array_position(s), array_remove, array_replace,
 * array_fill and trim_array.
 */
#include "arr_int.h"

#include <limits.h>
#include <stdio.h>

typedef struct shape {
	int nd;
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
} shape;

static shape shape_of(ty_datum a)
{
	shape s;
	s.nd = ty_array_ndim(a);
	for (int i = 0; i < s.nd; i++) {
		s.dims[i] = ty_array_dim(a, i);
		s.lbs[i] = ty_array_lbound(a, i);
	}
	return s;
}

/* Copies a non-array argument so it outlives nothing but the call. */
static ty_datum elem_arg(ty_fcinfo *fc, int i, ty_oid elem)
{
	return fc->args[i].null ? ty_null() : ty_datum_copy(fc->args[i], arr_elem_type(elem)->byval);
}

static ty_datum push(ty_fcinfo *fc, int ai, int ei, bool append)
{
	ty_oid elem = arr_fc_elem(fc, ai);
	ty_datum a = fc->args[ai];
	ty_datum e = elem_arg(fc, ei, elem);
	if (a.null || ty_array_ndim(a) == 0)
		return ty_array_from_list(elem, 1, &e);
	if (ty_array_ndim(a) != 1)
		ty_error(UTIL_E_DATA_EXCEPTION, "argument must be empty or one-dimensional array");
	shape s = shape_of(a);
	int64_t edge = append ? (int64_t)s.lbs[0] + s.dims[0] : (int64_t)s.lbs[0] - 1;
	if (edge > INT_MAX || edge < INT_MIN)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "integer out of range");
	int n;
	ty_datum *v = ty_array_deconstruct(a, &n);
	ty_datum *w = ty_alloc(sizeof *w * (size_t)(n + 1));
	if (append) {
		memcpy(w, v, sizeof *w * (size_t)n);
		w[n] = e;
	} else {
		w[0] = e;
		memcpy(w + 1, v, sizeof *w * (size_t)n);
	}
	s.dims[0]++;
	return ty_array_build(elem, 1, s.dims, s.lbs, w);
}

static ty_datum f_array_append(ty_fcinfo *fc)
{
	return push(fc, 0, 1, true);
}
static ty_datum f_array_prepend(ty_fcinfo *fc)
{
	return push(fc, 1, 0, false);
}

static UTIL_NORETURN void incompatible(const char *detail, ...) UTIL_PRINTF(1, 2);
static void incompatible(const char *detail, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, detail);
	vsnprintf(buf, sizeof buf, detail, ap);
	va_end(ap);
	util_err *e = ty_errstart(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "cannot concatenate incompatible arrays");
	util_err_detail(e, "%s", buf);
	ty_errthrow();
}

static ty_datum f_array_cat(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0], b = fc->args[1];
	if (a.null && b.null)
		return ty_null();
	if (a.null)
		return b;
	if (b.null)
		return a;
	ty_oid ea = ty_array_elemtype(a), eb = ty_array_elemtype(b);
	if (ea != eb) {
		util_buf x = UTIL_BUF_INIT, y = UTIL_BUF_INIT;
		ty_format_type(ea, TY_TYPMOD_NONE, &x);
		ty_format_type(eb, TY_TYPMOD_NONE, &y);
		char bx[128], by[128];
		snprintf(bx, sizeof bx, "%s", x.data);
		snprintf(by, sizeof by, "%s", y.data);
		util_buf_free(&x);
		util_buf_free(&y);
		util_err *e = ty_errstart(UTIL_E_DATATYPE_MISMATCH, "cannot concatenate incompatible arrays");
		util_err_detail(
		    e, "Arrays with element types %s and %s are not compatible for concatenation.", bx, by);
		ty_errthrow();
	}
	shape s1 = shape_of(a), s2 = shape_of(b);
	if (s1.nd == 0)
		return b;
	if (s2.nd == 0)
		return a;
	if (s1.nd != s2.nd && s1.nd != s2.nd - 1 && s1.nd != s2.nd + 1)
		incompatible("Arrays of %d and %d dimensions are not compatible for concatenation.", s1.nd,
			     s2.nd);
	shape r;
	if (s1.nd == s2.nd) {
		for (int i = 1; i < s1.nd; i++)
			if (s1.dims[i] != s2.dims[i] || s1.lbs[i] != s2.lbs[i])
				incompatible(
				    "Arrays with differing element dimensions are not compatible for "
				    "concatenation.");
		r = s1;
		r.dims[0] = s1.dims[0] + s2.dims[0];
	} else if (s1.nd == s2.nd - 1) {
		/* a is one element of b's first dimension, prepended. */
		for (int i = 0; i < s1.nd; i++)
			if (s1.dims[i] != s2.dims[i + 1] || s1.lbs[i] != s2.lbs[i + 1])
				incompatible(
				    "Arrays with differing dimensions are not compatible for concatenation.");
		r = s2;
		r.dims[0] = s2.dims[0] + 1;
	} else {
		for (int i = 0; i < s2.nd; i++)
			if (s2.dims[i] != s1.dims[i + 1] || s2.lbs[i] != s1.lbs[i + 1])
				incompatible(
				    "Arrays with differing dimensions are not compatible for concatenation.");
		r = s1;
		r.dims[0] = s1.dims[0] + 1;
	}
	int na, nb;
	ty_datum *va = ty_array_deconstruct(a, &na);
	ty_datum *vb = ty_array_deconstruct(b, &nb);
	ty_datum *w = ty_alloc(sizeof *w * (size_t)(na + nb));
	memcpy(w, va, sizeof *w * (size_t)na);
	memcpy(w + na, vb, sizeof *w * (size_t)nb);
	return ty_array_build(ea, r.nd, r.dims, r.lbs, w);
}

/* array_position(s): 1-D only; IS NOT DISTINCT FROM; subscripts in the
 * array's own bounds. */
static ty_datum positions(ty_fcinfo *fc, bool all)
{
	ty_datum a = fc->args[0];
	if (a.null)
		return ty_null();
	int nd = ty_array_ndim(a);
	if (nd > 1)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "searching for elements in multidimensional arrays is not "
			 "supported");
	ty_oid elem = ty_array_elemtype(a);
	int lb = nd ? ty_array_lbound(a, 0) : 1;
	int64_t start = lb;
	if (!all && fc->nargs == 3) {
		if (fc->args[2].null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "initial position must not be null");
		start = fc->args[2].i;
	}
	int n;
	ty_datum *v = ty_array_deconstruct(a, &n);
	ty_datum x = fc->args[1];
	const ty_type *t = x.null ? arr_elem_type(elem) : arr_eq_type(elem);
	ty_datum *found = all ? ty_alloc(sizeof *found * (size_t)(n ? n : 1)) : NULL;
	int nf = 0;
	for (int i = 0; i < n; i++) {
		int64_t sub = (int64_t)lb + i;
		if (sub < start)
			continue;
		if (arr_not_distinct(t, v[i], x)) {
			if (!all)
				return ty_int(sub);
			found[nf++] = ty_int(sub);
		}
	}
	if (!all)
		return ty_null();
	return ty_array_from_list(TY_INT4, nf, found);
}

static ty_datum f_array_position(ty_fcinfo *fc)
{
	return positions(fc, false);
}
static ty_datum f_array_positions(ty_fcinfo *fc)
{
	return positions(fc, true);
}

/* array_remove / array_replace (PostgreSQL's array_replace_internal). */
static ty_datum replace(ty_fcinfo *fc, bool remove)
{
	ty_datum a = fc->args[0];
	if (a.null)
		return ty_null();
	shape s = shape_of(a);
	if (remove && s.nd > 1)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "removing elements from multidimensional arrays is not "
			 "supported");
	ty_oid elem = ty_array_elemtype(a);
	ty_datum x = fc->args[1];
	ty_datum rep = remove ? ty_null() : elem_arg(fc, 2, elem);
	if (s.nd == 0)
		return a;
	const ty_type *t = x.null ? arr_elem_type(elem) : arr_eq_type(elem);
	int n, k = 0;
	ty_datum *v = ty_array_deconstruct(a, &n);
	bool changed = false;
	for (int i = 0; i < n; i++) {
		if (arr_not_distinct(t, v[i], x)) {
			changed = true;
			if (!remove)
				v[k++] = rep;
		} else {
			v[k++] = v[i];
		}
	}
	if (!changed)
		return a;
	if (k == 0)
		return ty_array_empty(elem);
	if (remove)
		s.dims[0] = k;
	return ty_array_build(elem, s.nd, s.dims, s.lbs, v);
}

static ty_datum f_array_remove(ty_fcinfo *fc)
{
	return replace(fc, true);
}
static ty_datum f_array_replace(ty_fcinfo *fc)
{
	return replace(fc, false);
}

/* Reads array_fill's int[] dimension or bound argument. */
static int read_dims(ty_datum a, int *out)
{
	int nd = ty_array_ndim(a);
	if (nd > 1) {
		util_err *e = ty_errstart(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "wrong number of array subscripts");
		util_err_detail(e, "Dimension array must be one dimensional.");
		ty_errthrow();
	}
	int n = ty_array_nitems(a);
	if (n > TY_ARRAY_MAXDIM)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
			 "number of array dimensions (%d) exceeds the maximum allowed (%d)", n,
			 TY_ARRAY_MAXDIM);
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum e;
	int i = 0;
	while (ty_array_iter_next(&it, &e)) {
		if (e.null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "dimension values cannot be null");
		out[i++] = (int)e.i;
	}
	return n;
}

static ty_datum f_array_fill(ty_fcinfo *fc)
{
	if (fc->args[1].null || (fc->nargs == 3 && fc->args[2].null))
		ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "dimension array or low bound array cannot be null");
	ty_oid elem = fc->argtypes ? fc->argtypes[0] : 0;
	if (!elem || elem == TY_ANYELEMENT)
		elem = ty_array_elem_of(fc->rettype);
	if (!elem)
		ty_error(UTIL_E_INDETERMINATE_DATATYPE, "could not determine polymorphic type");
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM] = {1, 1, 1, 1, 1, 1};
	int nd = read_dims(fc->args[1], dims);
	if (fc->nargs == 3) {
		int nl = read_dims(fc->args[2], lbs);
		if (nl != nd) {
			util_err *e =
			    ty_errstart(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "wrong number of array subscripts");
			util_err_detail(e, "Low bound array has different size than dimensions array.");
			ty_errthrow();
		}
	}
	int n = arr_nitems_checked(nd, dims);
	arr_check_bounds(nd, dims, lbs);
	if (n == 0)
		return ty_array_empty(elem);
	ty_datum v = elem_arg(fc, 0, elem);
	ty_datum *w = ty_alloc(sizeof *w * (size_t)n);
	for (int i = 0; i < n; i++)
		w[i] = v;
	return ty_array_build(elem, nd, dims, lbs, w);
}

static ty_datum f_trim_array(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0];
	shape s = shape_of(a);
	int len = s.nd ? s.dims[0] : 0;
	int64_t n = fc->args[1].i;
	if (n < 0 || n > len)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "number of elements to trim must be between 0 and %d",
			 len);
	ty_oid elem = ty_array_elemtype(a);
	if (s.nd == 0 || n == len)
		return ty_array_empty(elem);
	int total, keep = (int)(len - n);
	ty_datum *v = ty_array_deconstruct(a, &total);
	/* Row-major order: the first `keep` slices of the first dimension are
	 * the first elements; build reads only as many as the new dims hold. */
	(void)total;
	s.dims[0] = keep;
	for (int i = 0; i < s.nd; i++)
		s.lbs[i] = 1;
	return ty_array_build(elem, s.nd, s.dims, s.lbs, v);
}

#define F(nm, oid_, na, ret_, fn_, strict_, src, ...)                                                        \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = strict_, .kind = 'f', .prosrc = src, .oid = oid_       \
	}

#define CA TY_ANYCOMPATIBLEARRAY
#define CE TY_ANYCOMPATIBLE

static const ty_func funcs[] = {
    F("array_append", 378, 2, CA, f_array_append, false, "array_append", {CA, CE}),
    F("array_prepend", 379, 2, CA, f_array_prepend, false, "array_prepend", {CE, CA}),
    F("array_cat", 383, 2, CA, f_array_cat, false, "array_cat", {CA, CA}),
    F("array_position", 3277, 2, TY_INT4, f_array_position, false, "array_position", {CA, CE}),
    F("array_position", 3278, 3, TY_INT4, f_array_position, false, "array_position_start", {CA, CE, TY_INT4}),
    F("array_positions", 3279, 2, TY_INT4_ARRAY, f_array_positions, false, "array_positions", {CA, CE}),
    F("array_remove", 3167, 2, CA, f_array_remove, false, "array_remove", {CA, CE}),
    F("array_replace", 3168, 3, CA, f_array_replace, false, "array_replace", {CA, CE, CE}),
    F("array_fill", 1193, 2, TY_ANYARRAY, f_array_fill, false, "array_fill", {TY_ANYELEMENT, TY_INT4_ARRAY}),
    F("array_fill", 1286, 3, TY_ANYARRAY, f_array_fill, false, "array_fill_with_lower_bounds",
      {TY_ANYELEMENT, TY_INT4_ARRAY, TY_INT4_ARRAY}),
    F("trim_array", 6172, 2, TY_ANYARRAY, f_trim_array, true, "trim_array", {TY_ANYARRAY, TY_INT4}),
};

static const ty_operator ops[] = {
    {"||", CA, CE, CA, "array_append", NULL, NULL, 349},
    {"||", CE, CA, CA, "array_prepend", NULL, NULL, 374},
    {"||", CA, CA, CA, "array_cat", NULL, NULL, 375},
};

void arr_register_manip(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	ty_operator_register(ops, (int)UTIL_ARRAY_LEN(ops));
}
