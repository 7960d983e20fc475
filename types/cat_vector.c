/*
 * cat_vector.c — the types only the system catalogs use, so that the
 * generated pg_catalog relations carry PostgreSQL's exact column types:
 *   int2vector (22), oidvector (30): pg_index.indkey, pg_proc.proargtypes;
 *     one-dimensional arrays with lower bound 0, written "1 2 3";
 *   aclitem (1033): relacl, nspacl ... ("postgres=arwdDxt/postgres");
 *   pg_node_tree (194): adbin, conbin, indexprs ... (Strata keeps the
 *     expression's SQL text there; pg_get_expr() prints it);
 *   pg_lsn (3220): pg_subscription.subskiplsn.
 * Registered by the SQL layer at startup (ty_catalog_types_register), with
 * their array types.
 */
#include <stdio.h>

#include "cat_types.h"

#include <stdlib.h>

/* ---------------------------------------------------------------- vectors */

/* Parses "1 2 3" into an array of elem with lower bound 0. */
static ty_datum vector_in(ty_oid elem, const char *s, size_t len)
{
	int cap = 8, n = 0;
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)cap);
	size_t i = 0;
	for (;;) {
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
			i++;
		if (i >= len)
			break;
		size_t start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			i++;
		if (n == cap) {
			ty_datum *nv = ty_alloc(sizeof(ty_datum) * (size_t)cap * 2);
			memcpy(nv, vals, sizeof(ty_datum) * (size_t)n);
			vals = nv;
			cap *= 2;
		}
		vals[n++] = ty_input(elem, s + start, i - start, TY_TYPMOD_NONE);
	}
	int lb = 0;
	return ty_array_build(elem, n ? 1 : 0, &n, &lb, vals);
}

static void vector_out(ty_datum v, util_buf *out)
{
	ty_array_iter it;
	ty_datum e;
	ty_oid elem = ty_array_elemtype(v);
	bool first = true;
	ty_array_iter_init(&it, v);
	while (ty_array_iter_next(&it, &e)) {
		if (!first)
			util_buf_putc(out, ' ');
		first = false;
		ty_output(elem, e, out);
	}
}

/* Binary input: an array message that must be one-dimensional without
 * NULLs, as PostgreSQL's int2vectorrecv/oidvectorrecv require. */
static ty_datum vector_recv(ty_oid elem, const uint8_t *p, size_t len)
{
	ty_datum a = arr_recv(elem, p, len, TY_TYPMOD_NONE);
	if (ty_array_ndim(a) > 1 || ty_array_hasnulls(a) ||
	    (ty_array_ndim(a) == 1 && ty_array_lbound(a, 0) != 0))
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid %s data",
			 elem == TY_INT2 ? "int2vector" : "oidvector");
	return a;
}

static ty_datum int2vector_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return vector_in(TY_INT2, s, len);
}

static ty_datum oidvector_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return vector_in(TY_OID, s, len);
}

static ty_datum int2vector_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	return vector_recv(TY_INT2, p, len);
}

static ty_datum oidvector_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	return vector_recv(TY_OID, p, len);
}

ty_datum ty_int2vector_from(int n, const int16_t *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = ty_int(vals[i]);
	int lb = 0;
	return ty_array_build(TY_INT2, n ? 1 : 0, &n, &lb, d);
}

ty_datum ty_oidvector_from(int n, const ty_oid *vals)
{
	ty_datum *d = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		d[i] = ty_int(vals[i]);
	int lb = 0;
	return ty_array_build(TY_OID, n ? 1 : 0, &n, &lb, d);
}

/* ---------------------------------------------------------------- text-like */

/* pg_node_tree values come only from the catalog, as in PostgreSQL. */
static ty_datum node_tree_in(const char *s, size_t len, int32_t typmod)
{
	(void)s;
	(void)len;
	(void)typmod;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot accept a value of type pg_node_tree");
}

static ty_datum node_tree_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)p;
	(void)len;
	(void)typmod;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot accept a value of type pg_node_tree");
}

/* aclitem and pg_node_tree keep their text form; I/O is text's. */
static ty_type int2vector_type = {
    .oid = TY_INT2VECTOR,
    .name = "int2vector",
    .len = -1,
    .category = 'A',
    .typtype = 'b',
    .align = 'i',
    .elem = TY_INT2,
    .array = 1006,
    .in = int2vector_in,
    .out = vector_out,
    .recv = int2vector_recv,
    .send = arr_send,
    .cmp = arr_cmp,
    .hash = arr_hash,
    .input_name = "int2vectorin",
    .output_name = "int2vectorout",
};

static ty_type oidvector_type = {
    .oid = TY_OIDVECTOR,
    .name = "oidvector",
    .len = -1,
    .category = 'A',
    .typtype = 'b',
    .align = 'i',
    .elem = TY_OID,
    .array = 1013,
    .in = oidvector_in,
    .out = vector_out,
    .recv = oidvector_recv,
    .send = arr_send,
    .cmp = arr_cmp,
    .hash = arr_hash,
    .input_name = "oidvectorin",
    .output_name = "oidvectorout",
};

static ty_type aclitem_type = {
    .oid = TY_ACLITEM,
    .name = "aclitem",
    .len = -1,
    .category = 'U',
    .typtype = 'b',
    .align = 'i',
    .array = 1034,
    .input_name = "aclitemin",
    .output_name = "aclitemout",
};

static ty_type node_tree_type = {
    .oid = TY_PG_NODE_TREE,
    .name = "pg_node_tree",
    .len = -1,
    .category = 'Z',
    .typtype = 'b',
    .align = 'i',
    .input_name = "pg_node_tree_in",
    .output_name = "pg_node_tree_out",
};

/* ---------------------------------------------------------------- pg_lsn */

/* A WAL position "hi/lo" (hex): 64 bits by value. Strata has no PostgreSQL
 * WAL; the type exists for catalog columns (pg_subscription.subskiplsn). */
static ty_datum lsn_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	char buf[40];
	unsigned long long hi, lo;
	int used = 0;
	if (len >= sizeof buf)
		goto bad;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (sscanf(buf, "%8llX/%8llX%n", &hi, &lo, &used) != 2 || (size_t)used != len)
		goto bad;
	return ty_int((int64_t)((hi << 32) | lo));
bad:
	ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type pg_lsn: \"%.*s\"",
		 (int)len, s);
}

static void lsn_out(ty_datum v, util_buf *out)
{
	uint64_t x = (uint64_t)v.i;
	util_buf_printf(out, "%X/%X", (unsigned)(x >> 32), (unsigned)x);
}

static int lsn_cmp(ty_datum a, ty_datum b)
{
	uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
	return x < y ? -1 : x > y;
}

static ty_type lsn_type = {
    .oid = TY_PG_LSN,
    .name = "pg_lsn",
    .len = 8,
    .byval = true,
    .category = 'U',
    .typtype = 'b',
    .align = 'd',
    .array = 3221,
    .in = lsn_in,
    .out = lsn_out,
    .cmp = lsn_cmp,
    .input_name = "pg_lsn_in",
    .output_name = "pg_lsn_out",
};

/* pg_node_tree -> text is binary coercible and implicit in PostgreSQL. */
static const ty_cast casts[] = {
    {TY_PG_NODE_TREE, TY_TEXT, NULL, 'i', 'b'},
    {TY_ACLITEM, TY_TEXT, NULL, 'e', 'i'},
};

void ty_catalog_types_register(void)
{
	const ty_type *text = ty_type_get(TY_TEXT);
	if (ty_type_get(TY_INT2VECTOR))
		return; /* already registered */
	aclitem_type.in = text->in;
	node_tree_type.in = node_tree_in;
	aclitem_type.out = node_tree_type.out = text->out;
	node_tree_type.recv = node_tree_recv;
	node_tree_type.send = text->send;
	aclitem_type.cmp = text->cmp;
	aclitem_type.hash = text->hash;
	ty_type_register(&int2vector_type);
	ty_type_register(&oidvector_type);
	ty_type_register(&aclitem_type);
	ty_type_register(&node_tree_type);
	arr_register_array_of(TY_INT2VECTOR);
	arr_register_array_of(TY_OIDVECTOR);
	arr_register_array_of(TY_ACLITEM);
	if (!ty_type_get(TY_PG_LSN)) {
		ty_type_register(&lsn_type);
		arr_register_array_of(TY_PG_LSN);
	}
	ty_cast_register(casts, (int)UTIL_ARRAY_LEN(casts));
	ty_register_inet();
}
