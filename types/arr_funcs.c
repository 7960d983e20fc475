/*
 * arr_funcs.c — array comparison operators (= <> < > <= >=, btarraycmp,
 * array_larger/smaller, hash_array), containment (@> <@ &&), and the
 * shape functions array_length/lower/upper/ndims/dims and cardinality.
 * Also the polymorphic-argument helpers shared by the area's functions.
 */
#include "arr_int.h"

#include <stdio.h>

ty_oid arr_fc_elem(const ty_fcinfo *fc, int i)
{
	ty_oid e = fc->argtypes ? ty_array_elem_of(fc->argtypes[i]) : 0;
	if (e)
		return e;
	if (!fc->args[i].null)
		return ty_array_elemtype(fc->args[i]);
	e = ty_array_elem_of(fc->rettype);
	if (e)
		return e;
	for (int j = 0; j < fc->nargs; j++) {
		if (fc->argtypes && (e = ty_array_elem_of(fc->argtypes[j])) != 0)
			return e;
		if (j != i && !fc->args[j].null && fc->argtypes &&
		    (fc->argtypes[j] == TY_ANYARRAY || fc->argtypes[j] == TY_ANYCOMPATIBLEARRAY))
			return ty_array_elemtype(fc->args[j]);
	}
	ty_error(UTIL_E_INDETERMINATE_DATATYPE, "could not determine polymorphic type");
}

const ty_type *arr_eq_type(ty_oid elem)
{
	const ty_type *t = arr_elem_type(elem);
	if (!t->cmp) {
		util_buf n = UTIL_BUF_INIT;
		ty_format_type(elem, TY_TYPMOD_NONE, &n);
		char name[128];
		snprintf(name, sizeof name, "%s", n.data ? n.data : "???");
		util_buf_free(&n);
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "could not identify an equality operator for type %s",
			 name);
	}
	return t;
}

bool arr_not_distinct(const ty_type *t, ty_datum a, ty_datum b)
{
	if (a.null || b.null)
		return a.null && b.null;
	return t->cmp(a, b) == 0;
}

/* ---------------------------------------------------------------- comparison */

static ty_datum f_array_eq(ty_fcinfo *fc)
{
	return ty_bool(arr_eq(fc->args[0], fc->args[1]));
}
static ty_datum f_array_ne(ty_fcinfo *fc)
{
	return ty_bool(!arr_eq(fc->args[0], fc->args[1]));
}
static ty_datum f_array_lt(ty_fcinfo *fc)
{
	return ty_bool(arr_cmp(fc->args[0], fc->args[1]) < 0);
}
static ty_datum f_array_gt(ty_fcinfo *fc)
{
	return ty_bool(arr_cmp(fc->args[0], fc->args[1]) > 0);
}
static ty_datum f_array_le(ty_fcinfo *fc)
{
	return ty_bool(arr_cmp(fc->args[0], fc->args[1]) <= 0);
}
static ty_datum f_array_ge(ty_fcinfo *fc)
{
	return ty_bool(arr_cmp(fc->args[0], fc->args[1]) >= 0);
}
static ty_datum f_btarraycmp(ty_fcinfo *fc)
{
	return ty_int(arr_cmp(fc->args[0], fc->args[1]));
}
static ty_datum f_array_larger(ty_fcinfo *fc)
{
	return arr_cmp(fc->args[0], fc->args[1]) > 0 ? fc->args[0] : fc->args[1];
}
static ty_datum f_array_smaller(ty_fcinfo *fc)
{
	return arr_cmp(fc->args[0], fc->args[1]) < 0 ? fc->args[0] : fc->args[1];
}
static ty_datum f_hash_array(ty_fcinfo *fc)
{
	return ty_int((int32_t)(uint32_t)arr_hash(fc->args[0]));
}

/*
 * PostgreSQL's array_contain_compare: with matchall, every non-NULL element
 * of a must equal some element of b (a NULL in a fails); without, some
 * element of a must equal some element of b. NULLs never match.
 */
static bool contain_compare(ty_datum a, ty_datum b, bool matchall)
{
	if (ty_array_elemtype(a) != ty_array_elemtype(b))
		ty_error(UTIL_E_DATATYPE_MISMATCH, "cannot compare arrays of different element types");
	const ty_type *t = arr_eq_type(ty_array_elemtype(a));
	int nb;
	ty_datum *bv = ty_array_deconstruct(b, &nb);
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum x;
	while (ty_array_iter_next(&it, &x)) {
		if (x.null) {
			if (matchall)
				return false;
			continue;
		}
		bool found = false;
		for (int j = 0; j < nb && !found; j++)
			found = !bv[j].null && t->cmp(x, bv[j]) == 0;
		if (found && !matchall)
			return true;
		if (!found && matchall)
			return false;
	}
	return matchall;
}

static ty_datum f_arraycontains(ty_fcinfo *fc)
{
	return ty_bool(contain_compare(fc->args[1], fc->args[0], true));
}
static ty_datum f_arraycontained(ty_fcinfo *fc)
{
	return ty_bool(contain_compare(fc->args[0], fc->args[1], true));
}
static ty_datum f_arrayoverlap(ty_fcinfo *fc)
{
	return ty_bool(contain_compare(fc->args[0], fc->args[1], false));
}

/* ---------------------------------------------------------------- shape */

static bool dim_ok(ty_datum a, int64_t d)
{
	return d >= 1 && d <= ty_array_ndim(a);
}

static ty_datum f_array_length(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0];
	int64_t d = fc->args[1].i;
	return dim_ok(a, d) ? ty_int(ty_array_dim(a, (int)d - 1)) : ty_null();
}

static ty_datum f_array_lower(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0];
	int64_t d = fc->args[1].i;
	return dim_ok(a, d) ? ty_int(ty_array_lbound(a, (int)d - 1)) : ty_null();
}

static ty_datum f_array_upper(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0];
	int64_t d = fc->args[1].i;
	if (!dim_ok(a, d))
		return ty_null();
	return ty_int((int32_t)((int64_t)ty_array_lbound(a, (int)d - 1) + ty_array_dim(a, (int)d - 1) - 1));
}

static ty_datum f_array_ndims(ty_fcinfo *fc)
{
	int nd = ty_array_ndim(fc->args[0]);
	return nd ? ty_int(nd) : ty_null();
}

static ty_datum f_array_dims(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0];
	int nd = ty_array_ndim(a);
	if (nd == 0)
		return ty_null();
	char buf[TY_ARRAY_MAXDIM * 26 + 1];
	size_t o = 0;
	for (int i = 0; i < nd; i++) {
		int lb = ty_array_lbound(a, i);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "[%d:%d]", lb,
				      (int)((int64_t)lb + ty_array_dim(a, i) - 1));
	}
	return ty_textn(buf, o);
}

static ty_datum f_cardinality(ty_fcinfo *fc)
{
	return ty_int(ty_array_nitems(fc->args[0]));
}

/* array_in(cstring, oid, int4) / array_out(anyarray): the I/O functions
 * as pg_proc entries. */
static ty_datum f_array_in(ty_fcinfo *fc)
{
	return arr_in((ty_oid)fc->args[1].i, fc->args[0].p, fc->args[0].len, (int32_t)fc->args[2].i);
}

static ty_datum f_array_out(ty_fcinfo *fc)
{
	util_buf b = UTIL_BUF_INIT;
	volatile ty_datum r = ty_null();
	TY_TRY(c)
	{
		arr_out(fc->args[0], &b);
		r = ty_textn(b.data ? b.data : "", b.len);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	util_buf_free(&b);
	return r;
}

#define AA                                                                                                   \
	{                                                                                                    \
		TY_ANYARRAY, TY_ANYARRAY                                                                     \
	}
#define F(nm, oid_, na, ret_, fn_, src, ...)                                                                 \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = true, .kind = 'f', .prosrc = src, .oid = oid_          \
	}

static const ty_func funcs[] = {
    F("array_eq", 744, 2, TY_BOOL, f_array_eq, "array_eq", AA),
    F("array_ne", 390, 2, TY_BOOL, f_array_ne, "array_ne", AA),
    F("array_lt", 391, 2, TY_BOOL, f_array_lt, "array_lt", AA),
    F("array_gt", 392, 2, TY_BOOL, f_array_gt, "array_gt", AA),
    F("array_le", 393, 2, TY_BOOL, f_array_le, "array_le", AA),
    F("array_ge", 396, 2, TY_BOOL, f_array_ge, "array_ge", AA),
    F("btarraycmp", 382, 2, TY_INT4, f_btarraycmp, "btarraycmp", AA),
    F("array_larger", 515, 2, TY_ANYARRAY, f_array_larger, "array_larger", AA),
    F("array_smaller", 516, 2, TY_ANYARRAY, f_array_smaller, "array_smaller", AA),
    F("hash_array", 626, 1, TY_INT4, f_hash_array, "hash_array", {TY_ANYARRAY}),
    F("arraycontains", 2748, 2, TY_BOOL, f_arraycontains, "arraycontains", AA),
    F("arraycontained", 2749, 2, TY_BOOL, f_arraycontained, "arraycontained", AA),
    F("arrayoverlap", 2747, 2, TY_BOOL, f_arrayoverlap, "arrayoverlap", AA),
    F("array_length", 2176, 2, TY_INT4, f_array_length, "array_length", {TY_ANYARRAY, TY_INT4}),
    F("array_lower", 2091, 2, TY_INT4, f_array_lower, "array_lower", {TY_ANYARRAY, TY_INT4}),
    F("array_upper", 2092, 2, TY_INT4, f_array_upper, "array_upper", {TY_ANYARRAY, TY_INT4}),
    F("array_ndims", 748, 1, TY_INT4, f_array_ndims, "array_ndims", {TY_ANYARRAY}),
    F("array_dims", 747, 1, TY_TEXT, f_array_dims, "array_dims", {TY_ANYARRAY}),
    F("cardinality", 3179, 1, TY_INT4, f_cardinality, "array_cardinality", {TY_ANYARRAY}),
    {.name = "array_in",
     .nargs = 3,
     .args = {TY_CSTRING, TY_OID, TY_INT4},
     .ret = TY_ANYARRAY,
     .fn = f_array_in,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "array_in",
     .oid = 750},
    {.name = "array_out",
     .nargs = 1,
     .args = {TY_ANYARRAY},
     .ret = TY_CSTRING,
     .fn = f_array_out,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "array_out",
     .oid = 751},
};

#define OP(nm, oid_, l, r, res, fn_, com, neg)                                                               \
	{                                                                                                    \
		nm, l, r, res, fn_, com, neg, oid_                                                           \
	}

static const ty_operator ops[] = {
    OP("=", 1070, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_eq", "=", "<>"),
    OP("<>", 1071, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_ne", "<>", "="),
    OP("<", 1072, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_lt", ">", ">="),
    OP(">", 1073, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_gt", "<", "<="),
    OP("<=", 1074, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_le", ">=", ">"),
    OP(">=", 1075, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "array_ge", "<=", "<"),
    OP("&&", 2750, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "arrayoverlap", "&&", NULL),
    OP("@>", 2751, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "arraycontains", "<@", NULL),
    OP("<@", 2752, TY_ANYARRAY, TY_ANYARRAY, TY_BOOL, "arraycontained", "@>", NULL),
};

void arr_register_funcs(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	ty_operator_register(ops, (int)UTIL_ARRAY_LEN(ops));
}
