/*
 * json_cmp.c — jsonb's btree ordering and hashing, as PostgreSQL's
 * compareJsonbContainers: Object > Array > Boolean > Number > String > Null;
 * objects by pair count, then key/value pairs in storage order; arrays by
 * element count, then elements in order; a top-level scalar is a
 * one-element "raw scalar" array that sorts before a real one-element array
 * (and after an empty one). Strings compare bytewise (C collation), numbers
 * numerically.
 */
#include "json_int.h"

/* The jbv type of an entry (containers: array or object). */
static int jbv_type(jbe e)
{
	switch (e.type) {
	case JE_STRING:
		return JV_STRING;
	case JE_NUMBER:
		return JV_NUMBER;
	case JE_TRUE:
	case JE_FALSE:
		return JV_BOOL;
	case JE_NULL:
		return JV_NULL;
	default:
		return jbc_is_object(jbe_container(e)) ? JV_OBJECT : JV_ARRAY;
	}
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, UTIL_MIN(al, bl));
	if (c)
		return c < 0 ? -1 : 1;
	return al == bl ? 0 : al < bl ? -1 : 1;
}

static int cmp_scalar(jbe a, jbe b)
{
	switch (a.type) {
	case JE_STRING:
		return cmp_bytes(a.p, a.len, b.p, b.len);
	case JE_NUMBER:
		return json_number_cmp((const char *)a.p, a.len, (const char *)b.p, b.len);
	case JE_TRUE:
	case JE_FALSE:
		return a.type == b.type ? 0 : a.type == JE_TRUE ? 1 : -1;
	default:
		return 0;
	}
}

static int cmp_entry(jbe a, jbe b, int depth);

static int cmp_container(jbc a, jbc b, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	bool ao = jbc_is_object(a), bo = jbc_is_object(b);
	if (ao != bo)
		return ao ? 1 : -1;
	uint32_t na = jbc_count(a), nb = jbc_count(b);
	int res = 0;
	if (!ao && jbc_is_scalar(a) != jbc_is_scalar(b))
		res = jbc_is_scalar(a) ? -1 : 1;
	if (na != nb)
		res = na > nb ? 1 : -1;
	if (res)
		return res;
	uint32_t m = ao ? 2 * na : na;
	if (ao) {
		/* Pairs in order: key 0, value 0, key 1, ... */
		for (uint32_t i = 0; i < na; i++) {
			int c = cmp_entry(jbc_child(a, i), jbc_child(b, i), depth);
			if (c)
				return c;
			c = cmp_entry(jbc_child(a, na + i), jbc_child(b, na + i), depth);
			if (c)
				return c;
		}
		return 0;
	}
	for (uint32_t i = 0; i < m; i++) {
		int c = cmp_entry(jbc_child(a, i), jbc_child(b, i), depth);
		if (c)
			return c;
	}
	return 0;
}

static int cmp_entry(jbe a, jbe b, int depth)
{
	int ta = jbv_type(a), tb = jbv_type(b);
	if (ta != tb)
		return ta > tb ? 1 : -1;
	if (a.type == JE_CONTAINER)
		return cmp_container(jbe_container(a), jbe_container(b), depth + 1);
	return cmp_scalar(a, b);
}

int jsonb_cmp_datum(ty_datum a, ty_datum b)
{
	return cmp_container(jb_root(a), jb_root(b), 0);
}

static uint64_t hash_entry(jbe e, int depth);

static uint64_t hash_container(jbc c, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	uint32_t n = jbc_count(c);
	uint32_t m = jbc_is_object(c) ? 2 * n : n;
	uint64_t h = util_hash_mix(((uint64_t)(jbc_header(c) & ~JB_COUNT_MASK) << 32) | n);
	for (uint32_t i = 0; i < m; i++)
		h = util_hash_mix(h * 31 + hash_entry(jbc_child(c, i), depth + 1));
	return h;
}

static uint64_t hash_entry(jbe e, int depth)
{
	switch (e.type) {
	case JE_STRING:
		return util_hash64(e.p, e.len, 0x51);
	case JE_NUMBER:
		return json_number_hash((const char *)e.p, e.len);
	case JE_CONTAINER:
		return hash_container(jbe_container(e), depth);
	default:
		return (uint64_t)e.type * 0x9e3779b97f4a7c15ull;
	}
}

uint64_t jsonb_hash_datum(ty_datum a)
{
	return hash_container(jb_root(a), 0);
}
