/*
 * array.h — SQL arrays (PostgreSQL's anyarray): the datum format, building
 * and taking apart array values, element iteration, element-wise coercion
 * between array types, and the ANY/ALL (ScalarArrayOpExpr) helper the SQL
 * layer uses for `x op ANY(array)`.
 *
 * Datum format (ty_datum.p/.len, self-contained bytes, little-endian):
 *
 *   off 0   u8   ndim            0 (empty array) .. TY_ARRAY_MAXDIM
 *   off 1   u8   flags           bit 0: has NULL elements (a null bitmap follows)
 *                                bit 1: elements are by value (8 bytes each)
 *                                bits 2-3: log2 of the element payload alignment
 *   off 2   u16  reserved, 0
 *   off 4   u32  element type oid
 *   off 8   i32  dims[ndim]       number of elements per dimension (> 0)
 *           i32  lbounds[ndim]    lower bound per dimension
 *           u8   nulls[(n+7)/8]   only with flag bit 0: bit i (LSB first) set
 *                                 = element i is NULL
 *           elements, in row-major order (last subscript varies fastest),
 *           NULL elements take no space:
 *             by value:  8 bytes, the datum's int64 (or double) bit pattern
 *             by ref:    u32 byte length, padding up to the payload alignment
 *                        (relative to offset 0), then the bytes
 *
 * n = product of dims (0 when ndim = 0). An empty array always has ndim 0,
 * as in PostgreSQL. Elements by reference are aligned (1/2/4/8 bytes after
 * the element type's pg_type.typalign) so that iteration can hand out
 * pointers into the array when the array itself is 8-byte aligned (arena
 * memory always is); otherwise the iterator copies them to the current
 * arena.
 */
#ifndef STRATA_ARRAY_H
#define STRATA_ARRAY_H

#include "types.h"

#define TY_ARRAY_MAXDIM 6
/* PostgreSQL's MaxArraySize: MaxAllocSize / sizeof(Datum). */
#define TY_ARRAY_MAXITEMS 134217727

#define TY_ARRAY_HASNULLS 0x01
#define TY_ARRAY_BYVAL    0x02

/* Header accessors. REQUIRES: a is a non-NULL array datum. */
int ty_array_ndim(ty_datum a);
ty_oid ty_array_elemtype(ty_datum a);
int ty_array_dim(ty_datum a, int i);    /* i in [0, ndim) */
int ty_array_lbound(ty_datum a, int i); /* i in [0, ndim) */
int ty_array_nitems(ty_datum a);
bool ty_array_hasnulls(ty_datum a);

/* Checks that bytes from an untrusted source form a valid array datum
 * (sizes, dims, element lengths); throws 22P03 otherwise. */
void ty_array_validate(ty_datum a);

/*
 * Iteration over the elements in storage order. Pointers in the yielded
 * datums are valid as long as the array bytes (or, when copied, the
 * current arena).
 *   ty_array_iter it; ty_datum e;
 *   ty_array_iter_init(&it, a);
 *   while (ty_array_iter_next(&it, &e)) ...
 */
typedef struct ty_array_iter {
	const uint8_t *base, *p, *nulls;
	int i, n;
	bool byval;
	unsigned align;
} ty_array_iter;

void ty_array_iter_init(ty_array_iter *it, ty_datum a);
bool ty_array_iter_next(ty_array_iter *it, ty_datum *out);

/* All elements (NULLs as ty_null()) in the current arena; *n = count. */
ty_datum *ty_array_deconstruct(ty_datum a, int *n);

/*
 * Builds an array of elemtype from elems[0 .. product(dims)) in the
 * current arena. ndim 0 (or any dim 0) gives the empty array. lbs may be
 * NULL (all 1). Element bytes are copied. Throws 54000 for too many
 * dimensions or elements and 2202E-family errors as PostgreSQL.
 */
ty_datum ty_array_build(ty_oid elemtype, int ndim, const int *dims, const int *lbs, const ty_datum *elems);
/* A one-dimensional array with lower bound 1 (n = 0: empty array). */
ty_datum ty_array_from_list(ty_oid elemtype, int n, const ty_datum *elems);
/* The empty array of elemtype. */
ty_datum ty_array_empty(ty_oid elemtype);

/* The array type whose elements are elemtype (0 if none), and the element
 * type of an array type (0 if not an array type). */
ty_oid ty_array_type_of(ty_oid elemtype);
ty_oid ty_array_elem_of(ty_oid arraytype);

/*
 * Subscripting (PostgreSQL 15 semantics). ty_array_get_element: a[s1]..[sn],
 * NULL when n differs from the array's dimensions or a subscript is out
 * of range. ty_array_get_slice: a[lo:hi]..., bounds clipped to the array
 * (has_lower/has_upper false = omitted bound), dimensions past n taken
 * whole, result lower bounds 1, empty array when nothing is selected.
 * ty_array_set_element: a[s1]..[sn] := v; a NULL or empty array becomes a
 * one-element array at the subscripts, a one-dimensional array grows (with
 * NULLs in any gap), otherwise 2202E "wrong number of array subscripts" /
 * "array subscript out of range". Results in the current arena.
 */
ty_datum ty_array_get_element(ty_datum a, int n, const int *subs);
ty_datum ty_array_get_slice(ty_datum a, int n, const int *lower, const bool *has_lower, const int *upper,
			    const bool *has_upper);
ty_datum ty_array_set_element(ty_datum a, ty_oid elemtype, int n, const int *subs, ty_datum v);

/*
 * Element-wise cast of an array to another array type (text[]::int[],
 * int[]::numeric(10,2)[]): each non-NULL element goes through
 * ty_cast_value(elem, source elem, target elem, typmod, explicit_cast).
 * Dimensions and bounds are kept.
 */
ty_datum ty_array_coerce(ty_datum a, ty_oid target_array_type, int32_t typmod, bool explicit_cast);

/*
 * ScalarArrayOpExpr: `scalar op ANY(array)` (use_or) or `op ALL(array)`,
 * with op's function f called as f(scalar, element) (argument types
 * scalar_type and the array's element type). SQL three-valued logic as
 * PostgreSQL: an empty array gives false for ANY and true for ALL (even for
 * a NULL scalar); otherwise a NULL scalar or NULL comparisons make the
 * result NULL unless decided by a true (ANY) / false (ALL). A NULL array
 * gives NULL.
 */
ty_datum ty_array_scalar_op(const ty_func *f, ty_datum scalar, ty_oid scalar_type, ty_datum array,
			    bool use_or);

#endif /* STRATA_ARRAY_H */
