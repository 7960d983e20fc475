/*
 * arr_subscript.c — array subscripting for the SQL layer (array.h):
 * a[i][j] (element fetch), a[lo:hi] (slices) and a[i] := v (element
 * assignment), with PostgreSQL 15's rules: out-of-range fetches give NULL,
 * slices clip to the array and start at 1, one-dimensional assignment
 * extends the array with NULLs, and its errors.
 */
#include "arr_int.h"

#include <limits.h>

typedef struct shape {
	int nd, n;
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
} shape;

static shape shape_of(ty_datum a)
{
	shape s;
	s.nd = ty_array_ndim(a);
	s.n = ty_array_nitems(a);
	for (int i = 0; i < s.nd; i++) {
		s.dims[i] = ty_array_dim(a, i);
		s.lbs[i] = ty_array_lbound(a, i);
	}
	return s;
}

/* Row-major offset of in-range subscripts. */
static int64_t offset_of(const shape *s, const int *subs)
{
	int64_t off = 0;
	for (int i = 0; i < s->nd; i++)
		off = off * s->dims[i] + ((int64_t)subs[i] - s->lbs[i]);
	return off;
}

ty_datum ty_array_get_element(ty_datum a, int n, const int *subs)
{
	if (a.null)
		return ty_null();
	shape s = shape_of(a);
	if (s.nd == 0 || n != s.nd)
		return ty_null();
	for (int i = 0; i < n; i++)
		if (subs[i] < s.lbs[i] || (int64_t)subs[i] > (int64_t)s.lbs[i] + s.dims[i] - 1)
			return ty_null();
	int64_t off = offset_of(&s, subs);
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum e = ty_null();
	for (int64_t i = 0; i <= off; i++)
		ty_array_iter_next(&it, &e);
	return e;
}

ty_datum ty_array_get_slice(ty_datum a, int n, const int *lower, const bool *has_lower, const int *upper,
			    const bool *has_upper)
{
	if (a.null)
		return ty_null();
	shape s = shape_of(a);
	ty_oid elem = ty_array_elemtype(a);
	if (s.nd == 0 || n > s.nd)
		return ty_array_empty(elem);
	int lo[TY_ARRAY_MAXDIM], hi[TY_ARRAY_MAXDIM], dims[TY_ARRAY_MAXDIM];
	for (int i = 0; i < s.nd; i++) {
		int64_t ub = (int64_t)s.lbs[i] + s.dims[i] - 1;
		int64_t l = s.lbs[i], h = ub;
		if (i < n && has_lower[i] && lower[i] > l)
			l = lower[i];
		if (i < n && has_upper[i] && upper[i] < h)
			h = upper[i];
		if (l > h)
			return ty_array_empty(elem);
		lo[i] = (int)l;
		hi[i] = (int)h;
		dims[i] = (int)(h - l + 1);
	}
	int total = arr_nitems_checked(s.nd, dims);
	int cnt;
	ty_datum *all = ty_array_deconstruct(a, &cnt);
	ty_datum *out = ty_alloc(sizeof *out * (size_t)total);
	int idx[TY_ARRAY_MAXDIM];
	memcpy(idx, lo, sizeof lo);
	for (int k = 0; k < total; k++) {
		out[k] = all[offset_of(&s, idx)];
		for (int i = s.nd - 1; i >= 0; i--) {
			if (++idx[i] <= hi[i])
				break;
			idx[i] = lo[i];
		}
	}
	return ty_array_build(elem, s.nd, dims, NULL, out);
}

static UTIL_NORETURN void out_of_range(void)
{
	ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "array subscript out of range");
}

ty_datum ty_array_set_element(ty_datum a, ty_oid elemtype, int n, const int *subs, ty_datum v)
{
	if (n <= 0 || n > TY_ARRAY_MAXDIM)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "wrong number of array subscripts");
	v = v.null ? v : ty_datum_copy(v, arr_elem_type(elemtype)->byval);
	shape s = a.null ? (shape){0} : shape_of(a);
	if (s.nd == 0) {
		/* An empty (or NULL) array becomes a one-element array at subs. */
		int dims[TY_ARRAY_MAXDIM] = {1, 1, 1, 1, 1, 1};
		return ty_array_build(elemtype, n, dims, subs, &v);
	}
	if (n != s.nd)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "wrong number of array subscripts");
	int cnt;
	ty_datum *all = ty_array_deconstruct(a, &cnt);
	if (s.nd == 1) {
		int64_t lb = s.lbs[0], ub = lb + s.dims[0] - 1, sub = subs[0];
		int64_t nlb = sub < lb ? sub : lb, nub = sub > ub ? sub : ub;
		if (nub - nlb + 1 > TY_ARRAY_MAXITEMS || nub >= INT_MAX)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "array size exceeds the maximum allowed (%d)",
				 TY_ARRAY_MAXITEMS);
		int len = (int)(nub - nlb + 1);
		ty_datum *w = ty_alloc(sizeof *w * (size_t)len);
		for (int i = 0; i < len; i++)
			w[i] = ty_null();
		memcpy(w + (lb - nlb), all, sizeof *w * (size_t)cnt);
		w[sub - nlb] = v;
		int lbs[1] = {(int)nlb};
		return ty_array_build(elemtype, 1, &len, lbs, w);
	}
	for (int i = 0; i < n; i++)
		if (subs[i] < s.lbs[i] || (int64_t)subs[i] > (int64_t)s.lbs[i] + s.dims[i] - 1)
			out_of_range();
	all[offset_of(&s, subs)] = v;
	return ty_array_build(elemtype, s.nd, s.dims, s.lbs, all);
}
