/*
 * exec_copy.c — copies of datums that outlive the batch they came in
 * (sort buffers, hash tables, aggregate states, materialised rows).
 *
 * ty_datum_copy copies a by-reference value's bytes, which is enough for
 * every type whose value is one flat block. Records are not: a ty_record
 * points at its field array, field types and names, and by-reference
 * fields point further; arrays of records hold ty_record structs that
 * point outside the array. A shallow copy of those keeps pointers into
 * memory the producing operator reuses for its next batch (ROW values read
 * back after a sort showed other rows' fields), so they are copied deeply.
 */
#include <string.h>

#include "sql_int.h"

#include "array.h"

static bool is_record_type(ty_oid type, const ty_type *t)
{
	return type == TY_RECORD || (t && t->typtype == 'c');
}

static ty_datum copy_record(ty_datum d)
{
	const ty_record *src = d.p;
	ty_record *r = ty_alloc(sizeof *r);
	int n = src->n;
	r->n = n;
	ty_oid *types = ty_alloc(sizeof(ty_oid) * (size_t)(n ? n : 1));
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	if (n && src->types)
		memcpy(types, src->types, sizeof(ty_oid) * (size_t)n);
	for (int i = 0; i < n; i++)
		vals[i] = src->types ? sql_datum_copy(src->vals[i], src->types[i]) : src->vals[i];
	r->types = src->types ? types : NULL;
	r->vals = vals;
	r->names = NULL;
	if (src->names) {
		const char **names = ty_alloc(sizeof(char *) * (size_t)(n ? n : 1));
		for (int i = 0; i < n; i++)
			names[i] = src->names[i] ? ty_strdup(src->names[i]) : NULL;
		r->names = names;
	}
	return ty_bytes(r, sizeof *r);
}

static ty_datum copy_record_array(ty_datum d, ty_oid elem)
{
	int ndim = ty_array_ndim(d);
	if (ndim == 0)
		return ty_datum_copy(d, false);
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	for (int i = 0; i < ndim && i < TY_ARRAY_MAXDIM; i++) {
		dims[i] = ty_array_dim(d, i);
		lbs[i] = ty_array_lbound(d, i);
	}
	int n;
	ty_datum *elems = ty_array_deconstruct(d, &n);
	for (int i = 0; i < n; i++)
		elems[i] = sql_datum_copy(elems[i], elem);
	return ty_array_build(elem, ndim, dims, lbs, elems);
}

ty_datum sql_datum_copy(ty_datum d, ty_oid type)
{
	const ty_type *t = ty_type_get(type);
	if (d.null || !d.p || (t && t->byval))
		return d;
	if (is_record_type(type, t))
		return copy_record(d);
	if (t && t->category == 'A') {
		ty_oid elem = ty_array_elem_of(type);
		const ty_type *et = ty_type_get(elem);
		if (elem && is_record_type(elem, et))
			return copy_record_array(d, elem);
	}
	return ty_datum_copy(d, t ? t->byval : true);
}
