/*
 * num_keys_test.c — order-preserving key encoding of the numeric area's
 * types (docs/key-encoding.md): fixed test vectors, and property tests
 * over random values: memcmp order of encodings equals ty_compare order
 * (ASC, DESC, NULLS FIRST/LAST, composite keys), decoding returns a value
 * equal to the original and consumes exactly the bytes written, and
 * int2/int4/int8 encode equal values identically.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "types.h"

static util_arena *arena;

static int setup(void **state)
{
	(void)state;
	ty_init();
	arena = util_arena_new(1 << 20, 0);
	ty_set_arena(arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ty_set_arena(NULL);
	util_arena_destroy(arena);
	return 0;
}

static char *hex(const util_buf *b)
{
	char *s = ty_alloc(b->len * 2 + 1);
	for (size_t i = 0; i < b->len; i++)
		sprintf(s + 2 * i, "%02x", (uint8_t)b->data[i]);
	s[b->len * 2] = 0;
	return s;
}

static char *enc_hex(ty_oid t, const char *text, bool desc, bool nulls_first)
{
	ty_keycol col = {t, desc, nulls_first};
	util_buf b = UTIL_BUF_INIT;
	ty_datum v = text ? ty_input(t, text, strlen(text), -1) : ty_null();
	ty_key_encode(&col, v, &b);
	char *s = hex(&b);
	util_buf_free(&b);
	return s;
}

/* The test vectors of docs/key-encoding.md (value marker 02 included). */
static const struct {
	ty_oid type;
	const char *text; /* NULL = SQL NULL */
	bool desc, nulls_first;
	const char *hex;
} vectors[] = {
    {TY_INT4, "0", false, false, "028000000000000000"},
    {TY_INT4, "1", false, false, "028000000000000001"},
    {TY_INT4, "-1", false, false, "027fffffffffffffff"},
    {TY_INT2, "1", false, false, "028000000000000001"},
    {TY_INT8, "1", false, false, "028000000000000001"},
    {TY_INT8, "-9223372036854775808", false, false, "020000000000000000"},
    {TY_INT8, "9223372036854775807", false, false, "02ffffffffffffffff"},
    {TY_INT4, "1", true, false, "fd7ffffffffffffffe"},
    {TY_INT4, NULL, false, false, "03"},
    {TY_INT4, NULL, false, true, "01"},
    {TY_INT4, NULL, true, false, "fe"},
    {TY_INT4, NULL, true, true, "fc"},
    {TY_BOOL, "f", false, false, "0200"},
    {TY_BOOL, "t", false, false, "0201"},
    {TY_OID, "4294967295", false, false, "02ffffffff"},
    {TY_OID, "1", false, false, "0200000001"},
    {TY_FLOAT8, "0", false, false, "028000000000000000"},
    {TY_FLOAT8, "-0", false, false, "028000000000000000"},
    {TY_FLOAT8, "1", false, false, "02bff0000000000000"},
    {TY_FLOAT8, "-1", false, false, "02400fffffffffffff"},
    {TY_FLOAT8, "Infinity", false, false, "02fff0000000000000"},
    {TY_FLOAT8, "-Infinity", false, false, "02000fffffffffffff"},
    {TY_FLOAT8, "NaN", false, false, "02fff8000000000000"},
    {TY_FLOAT4, "1", false, false, "02bff0000000000000"},
    {TY_FLOAT4, "0.5", false, false, "02bfe0000000000000"},
    {TY_NUMERIC, "0", false, false, "0203"},
    {TY_NUMERIC, "0.000", false, false, "0203"},
    {TY_NUMERIC, "1", false, false,
     "020480000002"
     "0000"},
    {TY_NUMERIC, "1.00", false, false,
     "020480000002"
     "0000"},
    {TY_NUMERIC, "12345.678", false, false, "020480010002092a1a7d0000"},
    {TY_NUMERIC, "0.001", false, false, "02047fff000b0000"},
    {TY_NUMERIC, "-1", false, false, "02027ffffffdffff"},
    {TY_NUMERIC, "-12345.678", false, false, "02027ffefffdf6d5e582ffff"},
    {TY_NUMERIC, "NaN", false, false, "0206"},
    {TY_NUMERIC, "Infinity", false, false, "0205"},
    {TY_NUMERIC, "-Infinity", false, false, "0201"},
    {TY_NUMERIC, "1", true, false, "fdfb7ffffffdffff"},
};

static void test_vectors(void **state)
{
	(void)state;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(vectors); i++) {
		char *got =
		    enc_hex(vectors[i].type, vectors[i].text, vectors[i].desc, vectors[i].nulls_first);
		if (strcmp(got, vectors[i].hex) != 0)
			fail_msg("vector %zu (%s): got %s want %s", i,
				 vectors[i].text ? vectors[i].text : "NULL", got, vectors[i].hex);
	}
}

/* ---------------------------------------------------------------- random values */

static uint64_t rng_state = 0x9e3779b97f4a7c15;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static ty_datum random_value(ty_oid t)
{
	char buf[128];
	switch (t) {
	case TY_BOOL:
		return ty_bool(rnd() & 1);
	case TY_INT2:
		return ty_int((int16_t)rnd());
	case TY_INT4:
		return ty_int((int32_t)(rnd() % 7 == 0 ? (int32_t)(rnd() % 5) - 2 : (int32_t)rnd()));
	case TY_INT8: {
		static const int64_t edge[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
		if (rnd() % 6 == 0)
			return ty_int(edge[rnd() % 5]);
		return ty_int((int64_t)(rnd() >> (rnd() % 64)) * (rnd() & 1 ? 1 : -1));
	}
	case TY_OID:
		return ty_int((int32_t)rnd());
	case TY_FLOAT8:
	case TY_FLOAT4: {
		static const double edge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN,
					      1.0, -1.0, 4.9e-324, -4.9e-324};
		double d;
		if (rnd() % 5 == 0) {
			d = edge[rnd() % 9];
		} else {
			uint64_t u = rnd();
			memcpy(&d, &u, 8);
		}
		if (t == TY_FLOAT4)
			d = (float)d;
		return ty_float(d);
	}
	case TY_NUMERIC: {
		int k = (int)(rnd() % 20);
		if (k == 0)
			return ty_numeric_parse("NaN", 3, -1);
		if (k == 1)
			return ty_numeric_parse("Infinity", 8, -1);
		if (k == 2)
			return ty_numeric_parse("-Infinity", 9, -1);
		int n = 0;
		if (rnd() & 1)
			buf[n++] = '-';
		int ip = (int)(rnd() % 25), fp = (int)(rnd() % 25);
		buf[n++] = (char)('0' + rnd() % 10);
		for (int i = 0; i < ip; i++)
			buf[n++] = (char)('0' + (rnd() % 3 ? rnd() % 10 : 0));
		if (fp) {
			buf[n++] = '.';
			for (int i = 0; i < fp; i++)
				buf[n++] = (char)('0' + (rnd() % 3 ? rnd() % 10 : 0));
		}
		n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d", (int)(rnd() % 80) - 40);
		return ty_numeric_parse(buf, (size_t)n, -1);
	}
	}
	fail_msg("no generator for type %u", t);
	return ty_null();
}

static int sgn(int x)
{
	return (x > 0) - (x < 0);
}

/* memcmp with the shorter-is-smaller rule of byte strings. */
static int bytes_cmp(const util_buf *a, const util_buf *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->data, b->data, n);
	if (c)
		return sgn(c);
	return (a->len > b->len) - (a->len < b->len);
}

static const ty_oid key_types[] = {TY_BOOL, TY_INT2,   TY_INT4,   TY_INT8,
				   TY_OID,  TY_FLOAT4, TY_FLOAT8, TY_NUMERIC};

/* The order a key column must have: DESC reverses values only; NULLs go
 * last unless nulls_first, whatever the direction. */
static int key_order(ty_oid t, ty_datum a, ty_datum b, const ty_keycol *col)
{
	if (a.null || b.null) {
		int w = ty_compare(t, a, b); /* NULLs last */
		return col->nulls_first ? -w : w;
	}
	int w = ty_compare(t, a, b);
	return col->desc ? -w : w;
}

static void check_pair(ty_oid t, ty_datum a, ty_datum b, const ty_keycol *col)
{
	util_buf ea = UTIL_BUF_INIT, eb = UTIL_BUF_INIT;
	ty_key_encode(col, a, &ea);
	ty_key_encode(col, b, &eb);
	int want = key_order(t, a, b, col);
	int got = bytes_cmp(&ea, &eb);
	if (sgn(want) != got)
		fail_msg("type %u desc=%d nf=%d: cmp %d but key order %d (%s vs %s)", t, col->desc,
			 col->nulls_first, want, got, a.null ? "NULL" : ty_output_cstring(t, a),
			 b.null ? "NULL" : ty_output_cstring(t, b));
	/* decode: same value back, exactly the bytes written */
	ty_datum d;
	size_t used = ty_key_decode(col, (const uint8_t *)ea.data, (const uint8_t *)ea.data + ea.len, &d);
	if (used != ea.len)
		fail_msg("type %u: decode consumed %zu of %zu bytes", t, used, ea.len);
	if (d.null != a.null || (!a.null && ty_compare(t, a, d) != 0))
		fail_msg("type %u: decode gave a different value", t);
	if (!a.null && !ty_type_get(t)->key_lossy && t != TY_NUMERIC && d.i != a.i)
		fail_msg("type %u: lossless decode changed the datum", t);
	util_buf_free(&ea);
	util_buf_free(&eb);
}

static void test_order_and_roundtrip(void **state)
{
	(void)state;
	for (size_t ti = 0; ti < UTIL_ARRAY_LEN(key_types); ti++) {
		ty_oid t = key_types[ti];
		for (int i = 0; i < 4000; i++) {
			ty_datum a = rnd() % 10 == 0 ? ty_null() : random_value(t);
			ty_datum b =
			    rnd() % 10 == 0 ? ty_null() : (rnd() % 8 == 0 && !a.null ? a : random_value(t));
			ty_keycol col = {t, (rnd() & 1) != 0, (rnd() & 1) != 0};
			check_pair(t, a, b, &col);
			util_arena_reset(arena);
		}
	}
}

/* Equal numerics with different display scales encode identically. */
static void test_numeric_scale_insensitive(void **state)
{
	(void)state;
	ty_keycol col = {TY_NUMERIC, false, false};
	const char *pairs[][2] = {{"1.0", "1.00"}, {"0", "0.0000"}, {"-12.5", "-12.500"}, {"1e3", "1000.0"}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(pairs); i++) {
		util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
		ty_key_encode(&col, ty_numeric_parse(pairs[i][0], strlen(pairs[i][0]), -1), &a);
		ty_key_encode(&col, ty_numeric_parse(pairs[i][1], strlen(pairs[i][1]), -1), &b);
		assert_int_equal(bytes_cmp(&a, &b), 0);
		util_buf_free(&a);
		util_buf_free(&b);
	}
}

/* int2, int4 and int8 share one encoding, so keys compare across them. */
static void test_integer_cross_type(void **state)
{
	(void)state;
	for (int i = 0; i < 2000; i++) {
		int16_t v = (int16_t)rnd();
		util_buf b2 = UTIL_BUF_INIT, b4 = UTIL_BUF_INIT, b8 = UTIL_BUF_INIT;
		ty_keycol c2 = {TY_INT2, false, false}, c4 = {TY_INT4, false, false},
			  c8 = {TY_INT8, false, false};
		ty_key_encode(&c2, ty_int(v), &b2);
		ty_key_encode(&c4, ty_int(v), &b4);
		ty_key_encode(&c8, ty_int(v), &b8);
		assert_int_equal(bytes_cmp(&b2, &b4), 0);
		assert_int_equal(bytes_cmp(&b4, &b8), 0);
		util_buf_free(&b2);
		util_buf_free(&b4);
		util_buf_free(&b8);
	}
	/* an int8 key outside int4's range does not decode as int4 */
	util_buf b = UTIL_BUF_INIT;
	ty_keycol c8 = {TY_INT8, false, false}, c4 = {TY_INT4, false, false};
	ty_key_encode(&c8, ty_int(INT64_C(1) << 40), &b);
	ty_datum d;
	assert_int_equal(ty_key_decode(&c4, (const uint8_t *)b.data, (const uint8_t *)b.data + b.len, &d), 0);
	util_buf_free(&b);
}

/* Two-column keys: byte order is the lexicographic order of the columns,
 * and the columns decode back one after the other. */
static void test_composite(void **state)
{
	(void)state;
	for (int i = 0; i < 5000; i++) {
		ty_oid t1 = key_types[rnd() % UTIL_ARRAY_LEN(key_types)];
		ty_oid t2 = key_types[rnd() % UTIL_ARRAY_LEN(key_types)];
		ty_keycol c1 = {t1, (rnd() & 1) != 0, (rnd() & 1) != 0},
			  c2 = {t2, (rnd() & 1) != 0, (rnd() & 1) != 0};
		ty_datum a1 = rnd() % 8 == 0 ? ty_null() : random_value(t1);
		ty_datum b1 = rnd() % 3 == 0 ? a1 : random_value(t1);
		ty_datum a2 = rnd() % 8 == 0 ? ty_null() : random_value(t2);
		ty_datum b2 = random_value(t2);
		util_buf ka = UTIL_BUF_INIT, kb = UTIL_BUF_INIT;
		ty_key_encode(&c1, a1, &ka);
		ty_key_encode(&c2, a2, &ka);
		ty_key_encode(&c1, b1, &kb);
		ty_key_encode(&c2, b2, &kb);
		int w = key_order(t1, a1, b1, &c1);
		if (w == 0)
			w = key_order(t2, a2, b2, &c2);
		assert_int_equal(sgn(w), bytes_cmp(&ka, &kb));
		const uint8_t *p = (const uint8_t *)ka.data, *end = p + ka.len;
		ty_datum d1, d2;
		size_t n1 = ty_key_decode(&c1, p, end, &d1);
		assert_true(n1 > 0);
		size_t n2 = ty_key_decode(&c2, p + n1, end, &d2);
		assert_int_equal(n1 + n2, ka.len);
		assert_int_equal(ty_compare(t1, a1, d1), 0);
		assert_int_equal(ty_compare(t2, a2, d2), 0);
		assert_int_equal(ty_key_skip(&c1, p, end), n1);
		util_buf_free(&ka);
		util_buf_free(&kb);
		util_arena_reset(arena);
	}
}

/* Truncated or corrupt keys are rejected (0), never read past the end. */
static void test_malformed(void **state)
{
	(void)state;
	for (size_t ti = 0; ti < UTIL_ARRAY_LEN(key_types); ti++) {
		ty_oid t = key_types[ti];
		for (int i = 0; i < 300; i++) {
			ty_keycol col = {t, (rnd() & 1) != 0, false};
			util_buf b = UTIL_BUF_INIT;
			ty_key_encode(&col, random_value(t), &b);
			for (size_t cut = 0; cut < b.len; cut++) {
				uint8_t *copy = malloc(cut ? cut : 1);
				memcpy(copy, b.data, cut);
				ty_datum d;
				size_t n = ty_key_decode(&col, copy, copy + cut, &d);
				assert_true(n <= cut);
				free(copy);
			}
			util_buf_free(&b);
			util_arena_reset(arena);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_order_and_roundtrip),
	    cmocka_unit_test(test_numeric_scale_insensitive),
	    cmocka_unit_test(test_integer_cross_type),
	    cmocka_unit_test(test_composite),
	    cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
