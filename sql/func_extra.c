/*
 * func_extra.c — built-in functions of PostgreSQL's catalog that need the
 * query engine's view of arguments (VARIADIC "any", polymorphic arrays)
 * and that the type modules do not provide: num_nulls, num_nonnulls,
 * width_bucket(anycompatible, anycompatiblearray).
 */
#include <string.h>

#include "array.h"
#include "sql_int.h"

/* num_nulls(VARIADIC "any") / num_nonnulls: the executor expands an explicit
 * VARIADIC array into the arguments, so counting them is all. */
static ty_datum f_num_nulls(ty_fcinfo *fc)
{
	int64_t n = 0;
	for (int i = 0; i < fc->nargs; i++)
		n += fc->args[i].null;
	return ty_int(n);
}

static ty_datum f_num_nonnulls(ty_fcinfo *fc)
{
	int64_t n = 0;
	for (int i = 0; i < fc->nargs; i++)
		n += !fc->args[i].null;
	return ty_int(n);
}

/* width_bucket(operand, thresholds): how many thresholds (sorted
 * ascending) are <= operand, by bisection. */
static ty_datum f_width_bucket_array(ty_fcinfo *fc)
{
	ty_datum arr = fc->args[1];
	if (ty_array_ndim(arr) > 1)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "thresholds must be one-dimensional array");
	if (ty_array_hasnulls(arr))
		ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "thresholds array must not contain NULLs");
	int n;
	ty_datum *th = ty_array_deconstruct(arr, &n);
	ty_oid type = fc->argtypes[0];
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (ty_compare(type, fc->args[0], th[mid]) >= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ty_int(lo);
}

static const ty_func extra_funcs[] = {
	{.name = "num_nulls", .nargs = 1, .args = {TY_ANY}, .ret = TY_INT4, .fn = f_num_nulls, .volatility = TY_IMMUTABLE,
	 .strict = false, .kind = 'f', .variadic = TY_ANY, .prosrc = "pg_num_nulls", .oid = 438},
	{.name = "num_nonnulls", .nargs = 1, .args = {TY_ANY}, .ret = TY_INT4, .fn = f_num_nonnulls,
	 .volatility = TY_IMMUTABLE, .strict = false, .kind = 'f', .variadic = TY_ANY, .prosrc = "pg_num_nonnulls",
	 .oid = 440},
	{.name = "width_bucket", .nargs = 2, .args = {TY_ANYCOMPATIBLE, TY_ANYCOMPATIBLEARRAY}, .ret = TY_INT4,
	 .fn = f_width_bucket_array, .volatility = TY_IMMUTABLE, .strict = true, .kind = 'f',
	 .prosrc = "width_bucket_array", .oid = 3218},
};

void sql_register_extra_funcs(void) { ty_func_register(extra_funcs, (int)UTIL_ARRAY_LEN(extra_funcs)); }
