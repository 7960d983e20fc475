/*
 * arr_coerce.c — array helpers for the SQL layer (array.h): the array type
 * of an element type and back, element-wise casts between array types
 * (text[]::int[]), and ScalarArrayOpExpr evaluation for `x op ANY/ALL
 * (array)` with SQL's three-valued logic.
 */
#include "arr_int.h"

ty_oid ty_array_elem_of(ty_oid arraytype)
{
	const ty_type *t = ty_type_get(arraytype);
	return t && t->category == 'A' && t->len == -1 ? t->elem : 0;
}

ty_datum ty_array_coerce(ty_datum a, ty_oid target_array_type, int32_t typmod, bool explicit_cast)
{
	if (a.null)
		return a;
	ty_oid te = ty_array_elem_of(target_array_type);
	if (!te)
		ty_error(UTIL_E_DATATYPE_MISMATCH, "target type is not an array");
	ty_oid se = ty_array_elemtype(a);
	int n, nd = ty_array_ndim(a);
	ty_datum *vals = ty_array_deconstruct(a, &n);
	for (int i = 0; i < n; i++)
		if (!vals[i].null)
			vals[i] = ty_cast_value(vals[i], se, te, typmod, explicit_cast);
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	for (int i = 0; i < nd; i++) {
		dims[i] = ty_array_dim(a, i);
		lbs[i] = ty_array_lbound(a, i);
	}
	return ty_array_build(te, nd, dims, lbs, vals);
}

ty_datum ty_array_scalar_op(const ty_func *f, ty_datum scalar, ty_oid scalar_type, ty_datum array,
			    bool use_or)
{
	if (array.null)
		return ty_null();
	int n = ty_array_nitems(array);
	if (n == 0)
		return ty_bool(!use_or);
	if (scalar.null && f->strict)
		return ty_null();
	ty_oid argtypes[2] = {scalar_type, ty_array_elemtype(array)};
	void *cache = NULL;
	bool saw_null = false;
	ty_array_iter it;
	ty_array_iter_init(&it, array);
	ty_datum e;
	while (ty_array_iter_next(&it, &e)) {
		ty_datum r;
		if (e.null && f->strict) {
			r = ty_null();
		} else {
			ty_datum args[2] = {scalar, e};
			ty_fcinfo fc = {.nargs = 2,
					.args = args,
					.argtypes = argtypes,
					.rettype = f->ret,
					.rettypmod = TY_TYPMOD_NONE,
					.cache = &cache,
					.cache_arena = ty_get_arena()};
			r = f->fn(&fc);
		}
		if (r.null) {
			saw_null = true;
		} else if (use_or && r.i) {
			return ty_bool(true);
		} else if (!use_or && !r.i) {
			return ty_bool(false);
		}
	}
	return saw_null ? ty_null() : ty_bool(!use_or);
}
