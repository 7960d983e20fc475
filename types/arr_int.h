/*
 * arr_int.h — private to the arrays area (types/arr_*.c): little-endian
 * field access for the array datum format (array.h), element type lookups
 * and the entry points shared between the area's files.
 */
#ifndef STRATA_ARR_INT_H
#define STRATA_ARR_INT_H

#include "array.h"
#include "types_int.h"

#include <string.h>

static inline uint32_t arr_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline int32_t arr_get_i32(const uint8_t *p)
{
	return (int32_t)arr_get_u32(p);
}
static inline void arr_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Header size before the null bitmap. */
static inline size_t arr_hdr_size(int ndim)
{
	return 8 + 8 * (size_t)ndim;
}

/* The element type, or a 42704-style error when it is not registered. */
const ty_type *arr_elem_type(ty_oid elem);
/* Payload alignment (1, 2, 4, 8) for a pg_type.typalign code. */
unsigned arr_align_of(char typalign);

/* Text and binary I/O (arr_io.c); elem is the array's element type. */
ty_datum arr_in(ty_oid elem, const char *s, size_t len, int32_t typmod);
void arr_out(ty_datum v, util_buf *out);
ty_datum arr_recv(ty_oid elem, const uint8_t *p, size_t len, int32_t typmod);
void arr_send(ty_datum v, util_buf *out);

/* Ordering, hashing, key encoding (arr_cmp.c). */
int arr_cmp(ty_datum a, ty_datum b);
uint64_t arr_hash(ty_datum a);
bool arr_eq(ty_datum a, ty_datum b);
void arr_keyenc(ty_datum v, util_buf *out);
size_t arr_keydec(ty_oid elem, const uint8_t *p, const uint8_t *end, ty_datum *out);
ty_datum arr_typmod_apply(ty_datum v, int32_t typmod, bool explicit_cast);

/* Polymorphic arguments: the element type of array argument i, from the
 * resolved argument types, the value itself or the result type. */
ty_oid arr_fc_elem(const ty_fcinfo *fc, int i);
/* The element type, checked to have an equality (cmp) function (42883). */
const ty_type *arr_eq_type(ty_oid elem);
/* IS NOT DISTINCT FROM on elements of type t. */
bool arr_not_distinct(const ty_type *t, ty_datum a, ty_datum b);

/* Set-returning functions keep state between calls in fc->cache_arena:
 * runs fn(arg) with that arena current (restored on error as well). */
void arr_with_cache_arena(ty_fcinfo *fc, void (*fn)(void *), void *arg);

/* Registration pieces (one per file). */
void arr_register_types(void);
void arr_register_funcs(void);
void arr_register_manip(void);
void arr_register_text(void);
void arr_register_srfs(void);
void arr_register_aggs(void);
/* Registers the array type over elem if PostgreSQL has one (json area
 * calls it for json/jsonb, which register after arrays). */
void arr_register_array_of(ty_oid elem);

/* 1-based item count with PostgreSQL's overflow checks (54000). */
int arr_nitems_checked(int ndim, const int *dims);
void arr_check_bounds(int ndim, const int *dims, const int *lbs);

#endif /* STRATA_ARR_INT_H */
