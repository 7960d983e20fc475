/*
 * arr_format.c — the array datum format (array.h): header accessors,
 * building arrays from datums, iteration, deconstruction and validation of
 * untrusted bytes.
 */
#include "arr_int.h"

#include <limits.h>

const ty_type *arr_elem_type(ty_oid elem)
{
	const ty_type *t = ty_type_get(elem);
	if (!t)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "cache lookup failed for type %u", elem);
	return t;
}

unsigned arr_align_of(char typalign)
{
	switch (typalign) {
	case 's':
		return 2;
	case 'i':
		return 4;
	case 'd':
		return 8;
	default:
		return 1;
	}
}

static unsigned log2_align(unsigned a)
{
	return a == 8 ? 3 : a == 4 ? 2 : a == 2 ? 1 : 0;
}

static const uint8_t *bytes(ty_datum a)
{
	return a.p;
}

int ty_array_ndim(ty_datum a)
{
	return a.len >= 8 ? bytes(a)[0] : 0;
}
ty_oid ty_array_elemtype(ty_datum a)
{
	return arr_get_u32(bytes(a) + 4);
}
int ty_array_dim(ty_datum a, int i)
{
	return arr_get_i32(bytes(a) + 8 + 4 * (size_t)i);
}
int ty_array_lbound(ty_datum a, int i)
{
	return arr_get_i32(bytes(a) + 8 + 4 * (size_t)(ty_array_ndim(a) + i));
}
bool ty_array_hasnulls(ty_datum a)
{
	return (bytes(a)[1] & TY_ARRAY_HASNULLS) != 0;
}

int ty_array_nitems(ty_datum a)
{
	int nd = ty_array_ndim(a);
	if (nd == 0)
		return 0;
	int64_t n = 1;
	for (int i = 0; i < nd; i++)
		n *= ty_array_dim(a, i);
	return (int)n;
}

int arr_nitems_checked(int ndim, const int *dims)
{
	if (ndim <= 0)
		return 0;
	int64_t n = 1;
	for (int i = 0; i < ndim; i++) {
		if (dims[i] < 0)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "array size exceeds the maximum allowed (%d)",
				 TY_ARRAY_MAXITEMS);
		n *= dims[i];
		if (n > TY_ARRAY_MAXITEMS)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "array size exceeds the maximum allowed (%d)",
				 TY_ARRAY_MAXITEMS);
	}
	return (int)n;
}

void arr_check_bounds(int ndim, const int *dims, const int *lbs)
{
	for (int i = 0; i < ndim; i++) {
		/* PostgreSQL requires lower bound + length to fit in an int. */
		int64_t end = (int64_t)lbs[i] + dims[i];
		if (end > INT_MAX || end < INT_MIN)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "array lower bound is too large: %d", lbs[i]);
	}
}

static size_t pad_to(size_t off, unsigned align)
{
	return (off + align - 1) & ~(size_t)(align - 1);
}

ty_datum ty_array_empty(ty_oid elemtype)
{
	const ty_type *t = arr_elem_type(elemtype);
	uint8_t *p = ty_alloc0(8);
	p[1] = (uint8_t)((t->byval ? TY_ARRAY_BYVAL : 0) | (log2_align(arr_align_of(t->align)) << 2));
	arr_put_u32(p + 4, elemtype);
	return ty_bytes(p, 8);
}

ty_datum ty_array_build(ty_oid elemtype, int ndim, const int *dims, const int *lbs, const ty_datum *elems)
{
	if (ndim > TY_ARRAY_MAXDIM)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
			 "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim,
			 TY_ARRAY_MAXDIM);
	int n = arr_nitems_checked(ndim, dims);
	if (n == 0)
		return ty_array_empty(elemtype);
	int ones[TY_ARRAY_MAXDIM] = {1, 1, 1, 1, 1, 1};
	if (!lbs)
		lbs = ones;
	arr_check_bounds(ndim, dims, lbs);
	const ty_type *t = arr_elem_type(elemtype);
	unsigned align = arr_align_of(t->align);
	bool hasnulls = false;
	size_t size = arr_hdr_size(ndim);
	for (int i = 0; i < n; i++)
		if (elems[i].null)
			hasnulls = true;
	if (hasnulls)
		size += ((size_t)n + 7) / 8;
	for (int i = 0; i < n; i++) {
		if (elems[i].null)
			continue;
		if (t->byval)
			size += 8;
		else
			size = pad_to(size + 4, align) + elems[i].len;
		if (size > UINT32_MAX / 2)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "array size exceeds the maximum allowed (%d)",
				 TY_ARRAY_MAXITEMS);
	}
	uint8_t *p = ty_alloc0(size);
	p[0] = (uint8_t)ndim;
	p[1] = (uint8_t)((hasnulls ? TY_ARRAY_HASNULLS : 0) | (t->byval ? TY_ARRAY_BYVAL : 0) |
			 (log2_align(align) << 2));
	arr_put_u32(p + 4, elemtype);
	for (int i = 0; i < ndim; i++) {
		arr_put_u32(p + 8 + 4 * i, (uint32_t)dims[i]);
		arr_put_u32(p + 8 + 4 * (ndim + i), (uint32_t)lbs[i]);
	}
	size_t off = arr_hdr_size(ndim);
	uint8_t *nulls = p + off;
	if (hasnulls)
		off += ((size_t)n + 7) / 8;
	for (int i = 0; i < n; i++) {
		if (elems[i].null) {
			nulls[i / 8] |= (uint8_t)(1u << (i % 8));
			continue;
		}
		if (t->byval) {
			uint64_t v;
			memcpy(&v, &elems[i].i, 8);
			for (int k = 0; k < 8; k++)
				p[off + k] = (uint8_t)(v >> (8 * k));
			off += 8;
		} else {
			arr_put_u32(p + off, elems[i].len);
			off = pad_to(off + 4, align);
			if (elems[i].len)
				memcpy(p + off, elems[i].p, elems[i].len);
			off += elems[i].len;
		}
	}
	UTIL_DASSERT(off == size, "array build size %zu != %zu", off, size);
	return ty_bytes(p, size);
}

ty_datum ty_array_from_list(ty_oid elemtype, int n, const ty_datum *elems)
{
	int dims[1] = {n};
	return ty_array_build(elemtype, n ? 1 : 0, dims, NULL, elems);
}

void ty_array_iter_init(ty_array_iter *it, ty_datum a)
{
	const uint8_t *p = a.p;
	int nd = p[0];
	it->base = p;
	it->n = ty_array_nitems(a);
	it->i = 0;
	it->byval = (p[1] & TY_ARRAY_BYVAL) != 0;
	it->align = 1u << ((p[1] >> 2) & 3);
	size_t off = arr_hdr_size(nd);
	it->nulls = NULL;
	if (p[1] & TY_ARRAY_HASNULLS) {
		it->nulls = p + off;
		off += ((size_t)it->n + 7) / 8;
	}
	it->p = p + off;
}

bool ty_array_iter_next(ty_array_iter *it, ty_datum *out)
{
	if (it->i >= it->n)
		return false;
	int i = it->i++;
	if (it->nulls && (it->nulls[i / 8] >> (i % 8)) & 1) {
		*out = ty_null();
		return true;
	}
	if (it->byval) {
		uint64_t v = 0;
		for (int k = 0; k < 8; k++)
			v |= (uint64_t)it->p[k] << (8 * k);
		ty_datum d = ty_int(0);
		memcpy(&d.i, &v, 8);
		*out = d;
		it->p += 8;
		return true;
	}
	uint32_t len = arr_get_u32(it->p);
	size_t off = pad_to((size_t)(it->p - it->base) + 4, it->align);
	const uint8_t *data = it->base + off;
	it->p = data + len;
	if (((uintptr_t)data & (it->align - 1)) != 0) {
		/* The array itself is misaligned: copy so the element is aligned. */
		void *copy = ty_alloc(len ? len : 1);
		memcpy(copy, data, len);
		data = copy;
	}
	*out = ty_bytes(data, len);
	return true;
}

ty_datum *ty_array_deconstruct(ty_datum a, int *n)
{
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum *v = ty_alloc(sizeof *v * (size_t)(it.n ? it.n : 1));
	int k = 0;
	while (ty_array_iter_next(&it, &v[k]))
		k++;
	*n = k;
	return v;
}

static UTIL_NORETURN void corrupt(void)
{
	ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "malformed array datum");
}

void ty_array_validate(ty_datum a)
{
	const uint8_t *p = a.p;
	if (a.len < 8)
		corrupt();
	int nd = p[0];
	if (nd > TY_ARRAY_MAXDIM || (p[1] & 0xf0) || a.len < arr_hdr_size(nd))
		corrupt();
	/* The element type must exist and agree with the layout flags. */
	const ty_type *et = ty_type_get(ty_array_elemtype(a));
	if (!et || et->byval != ((p[1] & TY_ARRAY_BYVAL) != 0) ||
	    log2_align(arr_align_of(et->align)) != (unsigned)((p[1] >> 2) & 3))
		corrupt();
	int64_t n = nd ? 1 : 0;
	for (int i = 0; i < nd; i++) {
		int32_t d = ty_array_dim(a, i);
		if (d <= 0)
			corrupt();
		n *= d;
		if (n > TY_ARRAY_MAXITEMS)
			corrupt();
		if ((int64_t)ty_array_lbound(a, i) + d > INT_MAX)
			corrupt();
	}
	size_t off = arr_hdr_size(nd);
	const uint8_t *nulls = NULL;
	if (p[1] & TY_ARRAY_HASNULLS) {
		nulls = p + off;
		off += ((size_t)n + 7) / 8;
		if (off > a.len)
			corrupt();
	}
	unsigned align = 1u << ((p[1] >> 2) & 3);
	for (int64_t i = 0; i < n; i++) {
		if (nulls && (nulls[i / 8] >> (i % 8)) & 1)
			continue;
		if (p[1] & TY_ARRAY_BYVAL) {
			off += 8;
		} else {
			if (off + 4 > a.len)
				corrupt();
			uint32_t len = arr_get_u32(p + off);
			off = pad_to(off + 4, align);
			if (len > a.len || off + len > a.len)
				corrupt();
			off += len;
		}
		if (off > a.len)
			corrupt();
	}
	if (off != a.len)
		corrupt();
}
