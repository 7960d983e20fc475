/*
 * arr_cmp.c — array ordering (PostgreSQL's btree array_cmp: element-wise
 * with NULLs greatest, then item count, ndim, dims and lower bounds),
 * hashing consistent with it, the order-preserving key encoding, and typmod
 * application to every element.
 */
#include "arr_int.h"

static const ty_type *cmp_elem(ty_datum a, ty_datum b)
{
	ty_oid ea = ty_array_elemtype(a), eb = ty_array_elemtype(b);
	if (ea != eb)
		ty_error(UTIL_E_DATATYPE_MISMATCH, "cannot compare arrays of different element types");
	const ty_type *t = arr_elem_type(ea);
	if (!t->cmp) {
		util_buf n = UTIL_BUF_INIT;
		ty_format_type(ea, TY_TYPMOD_NONE, &n);
		util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION,
					  "could not identify a comparison function for type %s", n.data);
		(void)e;
		util_buf_free(&n);
		ty_errthrow();
	}
	return t;
}

int arr_cmp(ty_datum a, ty_datum b)
{
	const ty_type *t = cmp_elem(a, b);
	ty_array_iter ia, ib;
	ty_array_iter_init(&ia, a);
	ty_array_iter_init(&ib, b);
	ty_datum x, y;
	while (ty_array_iter_next(&ia, &x) && ty_array_iter_next(&ib, &y)) {
		if (x.null || y.null) {
			if (x.null != y.null)
				return x.null ? 1 : -1;
			continue;
		}
		int c = t->cmp(x, y);
		if (c)
			return c < 0 ? -1 : 1;
	}
	int na = ty_array_nitems(a), nb = ty_array_nitems(b);
	if (na != nb)
		return na < nb ? -1 : 1;
	int da = ty_array_ndim(a), db = ty_array_ndim(b);
	if (da != db)
		return da < db ? -1 : 1;
	for (int i = 0; i < da; i++) {
		int x1 = ty_array_dim(a, i), y1 = ty_array_dim(b, i);
		if (x1 != y1)
			return x1 < y1 ? -1 : 1;
	}
	for (int i = 0; i < da; i++) {
		int x1 = ty_array_lbound(a, i), y1 = ty_array_lbound(b, i);
		if (x1 != y1)
			return x1 < y1 ? -1 : 1;
	}
	return 0;
}

bool arr_eq(ty_datum a, ty_datum b)
{
	/* Cheap rejections first: shapes must be identical. */
	if (ty_array_elemtype(a) != ty_array_elemtype(b))
		ty_error(UTIL_E_DATATYPE_MISMATCH, "cannot compare arrays of different element types");
	int nd = ty_array_ndim(a);
	if (nd != ty_array_ndim(b))
		return false;
	for (int i = 0; i < nd; i++)
		if (ty_array_dim(a, i) != ty_array_dim(b, i) ||
		    ty_array_lbound(a, i) != ty_array_lbound(b, i))
			return false;
	return arr_cmp(a, b) == 0;
}

uint64_t arr_hash(ty_datum a)
{
	ty_oid elem = ty_array_elemtype(a);
	const ty_type *t = arr_elem_type(elem);
	if (!t->hash) {
		util_buf n = UTIL_BUF_INIT;
		ty_format_type(elem, TY_TYPMOD_NONE, &n);
		util_err *e = ty_errstart(UTIL_E_UNDEFINED_FUNCTION,
					  "could not identify a hash function for type %s", n.data);
		(void)e;
		util_buf_free(&n);
		ty_errthrow();
	}
	uint64_t h = 1;
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum e;
	while (ty_array_iter_next(&it, &e))
		h = h * 31 + (e.null ? 0 : t->hash(e));
	return util_hash_mix(h);
}

/*
 * Key encoding: per element 0x02 + the element's key bytes, or 0x03 for a
 * NULL element (NULLs sort last), then 0x01 (shorter arrays with an equal
 * prefix sort first), then ndim (1 byte) and each dim and lower bound as
 * big-endian int32 with the sign bit flipped.
 */
void arr_keyenc(ty_datum v, util_buf *out)
{
	const ty_type *t = arr_elem_type(ty_array_elemtype(v));
	if (!t->keyenc)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "type %s[] cannot be used in a key", t->name);
	ty_array_iter it;
	ty_array_iter_init(&it, v);
	ty_datum e;
	while (ty_array_iter_next(&it, &e)) {
		if (e.null) {
			util_buf_put_u8(out, 0x03);
		} else {
			util_buf_put_u8(out, 0x02);
			t->keyenc(e, out);
		}
	}
	util_buf_put_u8(out, 0x01);
	int nd = ty_array_ndim(v);
	util_buf_put_u8(out, (uint8_t)nd);
	for (int i = 0; i < nd; i++)
		util_buf_put_be32(out, (uint32_t)ty_array_dim(v, i) ^ 0x80000000u);
	for (int i = 0; i < nd; i++)
		util_buf_put_be32(out, (uint32_t)ty_array_lbound(v, i) ^ 0x80000000u);
}

size_t arr_keydec(ty_oid elem, const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	const ty_type *t = arr_elem_type(elem);
	if (!t->keydec)
		return 0;
	const uint8_t *q = p;
	int cap = 16, n = 0;
	ty_datum *vals = ty_alloc(sizeof *vals * (size_t)cap);
	for (;;) {
		if (q >= end)
			return 0;
		uint8_t m = *q++;
		if (m == 0x01)
			break;
		if (n == cap) {
			ty_datum *nv = ty_alloc(sizeof *nv * (size_t)cap * 2);
			memcpy(nv, vals, sizeof *vals * (size_t)n);
			vals = nv;
			cap *= 2;
		}
		if (m == 0x03) {
			vals[n++] = ty_null();
		} else if (m == 0x02) {
			size_t k = t->keydec(q, end, &vals[n]);
			if (k == 0)
				return 0;
			vals[n].null = false;
			n++;
			q += k;
		} else {
			return 0;
		}
	}
	if (q >= end)
		return 0;
	int nd = *q++;
	if (nd > TY_ARRAY_MAXDIM || end - q < 8 * nd)
		return 0;
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	int64_t prod = nd ? 1 : 0;
	for (int i = 0; i < nd; i++) {
		dims[i] = (int32_t)(util_get_be32(q + 4 * i) ^ 0x80000000u);
		lbs[i] = (int32_t)(util_get_be32(q + 4 * (nd + i)) ^ 0x80000000u);
		if (dims[i] <= 0)
			return 0;
		prod *= dims[i];
		if (prod > n)
			return 0;
	}
	if (prod != n)
		return 0;
	q += 8 * nd;
	*out = ty_array_build(elem, nd, dims, lbs, vals);
	return (size_t)(q - p);
}

ty_datum arr_typmod_apply(ty_datum v, int32_t typmod, bool explicit_cast)
{
	ty_oid elem = ty_array_elemtype(v);
	const ty_type *t = arr_elem_type(elem);
	if (typmod < 0 || !t->typmod_apply || ty_array_nitems(v) == 0)
		return v;
	int n, nd = ty_array_ndim(v);
	ty_datum *vals = ty_array_deconstruct(v, &n);
	for (int i = 0; i < n; i++)
		if (!vals[i].null)
			vals[i] = t->typmod_apply(vals[i], typmod, explicit_cast);
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	for (int i = 0; i < nd; i++) {
		dims[i] = ty_array_dim(v, i);
		lbs[i] = ty_array_lbound(v, i);
	}
	return ty_array_build(elem, nd, dims, lbs, vals);
}
