/*
 * str_keys_test.c — key encodings of the string-area types: fixed vectors
 * (the ones in docs/key-encoding-strings.md) and property tests on random
 * values: memcmp order of encodings equals the type's comparison order (ASC
 * and DESC, NULLS FIRST/LAST), decoding gives back an equal value, and
 * encodings are self-delimiting (a decoder finds the end inside a longer
 * key).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"

static util_arena *arena;

static int setup(void **state)
{
	(void)state;
	ty_init();
	arena = util_arena_new(1 << 16, 0);
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

static uint64_t rng = 0x243f6a8885a308d3ULL;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

/* Random values biased towards the interesting bytes (0x00, 0x01, 0xff,
 * space) and shared prefixes. */
static ty_datum random_value(ty_oid type)
{
	static const uint8_t alphabet[] = {0x00, 0x01, 0xff, ' ', 'a', 'b', 0xfe, 0x02};
	if (type == TY_CHAR)
		return ty_int(rnd() % 256);
	if (type == TY_UUID) {
		uint8_t *p = ty_alloc(16);
		for (int i = 0; i < 16; i++)
			p[i] = alphabet[rnd() % 8];
		return ty_bytes(p, 16);
	}
	size_t n = rnd() % 7;
	uint8_t *p = ty_alloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		uint8_t c = alphabet[rnd() % 8];
		/* text-like types hold valid UTF-8 without NUL: keep ASCII */
		if (type != TY_BYTEA && (c == 0 || c >= 0x80))
			c = (uint8_t)('c' + c % 3);
		p[i] = c;
	}
	return ty_bytes(p, n);
}

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

static void encode(const ty_keycol *col, ty_datum v, util_buf *b)
{
	util_buf_reset(b);
	ty_key_encode(col, v, b);
}

static int bufcmp(const util_buf *a, const util_buf *b)
{
	int c = memcmp(a->data, b->data, UTIL_MIN(a->len, b->len));
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static void check_type(ty_oid type)
{
	util_buf ea = UTIL_BUF_INIT, eb = UTIL_BUF_INIT;
	for (int mode = 0; mode < 4; mode++) {
		ty_keycol col = {type, mode & 1, (mode & 2) != 0};
		for (int iter = 0; iter < 3000; iter++) {
			ty_datum a = (rnd() % 10 == 0) ? ty_null() : random_value(type);
			ty_datum b = (rnd() % 10 == 0) ? ty_null() : random_value(type);
			encode(&col, a, &ea);
			encode(&col, b, &eb);
			int want;
			if (a.null || b.null)
				want = a.null == b.null ? 0 : (a.null != col.nulls_first) ? 1 : -1;
			else
				want = sign(ty_compare(type, a, b));
			if (col.desc && !(a.null || b.null))
				want = -want;
			assert_int_equal(sign(bufcmp(&ea, &eb)), want);

			/* decode a from a key that continues with b's encoding */
			size_t alen = ea.len;
			util_buf_append(&ea, eb.data, eb.len);
			ty_datum d;
			size_t used = ty_key_decode(&col, (const uint8_t *)ea.data,
						    (const uint8_t *)ea.data + ea.len, &d);
			assert_int_equal(used, alen);
			assert_int_equal(
			    ty_key_skip(&col, (const uint8_t *)ea.data, (const uint8_t *)ea.data + ea.len),
			    alen);
			assert_int_equal(d.null, a.null);
			if (!a.null)
				assert_int_equal(ty_compare(type, a, d), 0);
			/* a truncated key is malformed, never a crash */
			if (alen > 1 && !a.null)
				assert_int_equal(ty_key_decode(&col, (const uint8_t *)ea.data,
							       (const uint8_t *)ea.data + alen - 1, &d),
						 0);
		}
		util_arena_reset(arena);
	}
	util_buf_free(&ea);
	util_buf_free(&eb);
}

static void test_text(void **state)
{
	(void)state;
	check_type(TY_TEXT);
	check_type(TY_VARCHAR);
	check_type(TY_NAME);
}

static void test_bpchar(void **state)
{
	(void)state;
	check_type(TY_BPCHAR);
}

static void test_bytea(void **state)
{
	(void)state;
	check_type(TY_BYTEA);
}

static void test_char(void **state)
{
	(void)state;
	check_type(TY_CHAR);
}

static void test_uuid(void **state)
{
	(void)state;
	check_type(TY_UUID);
}

static void expect_key(ty_oid type, ty_datum v, bool desc, const char *hex)
{
	ty_keycol col = {type, desc, false};
	util_buf b = UTIL_BUF_INIT;
	ty_key_encode(&col, v, &b);
	char got[256] = "";
	for (size_t i = 0; i < b.len && i < 100; i++)
		sprintf(got + 2 * i, "%02x", (uint8_t)b.data[i]);
	assert_string_equal(got, hex);
	util_buf_free(&b);
}

/* The vectors documented in docs/key-encoding-strings.md. */
static void test_vectors(void **state)
{
	(void)state;
	expect_key(TY_TEXT, ty_text(""), false, "020001");
	expect_key(TY_TEXT, ty_text("ab"), false, "0261620001");
	expect_key(TY_TEXT, ty_text("ab"), true, "fd9e9dfffe");
	expect_key(TY_BYTEA, ty_bytes("a\0b", 3), false, "026100ff620001");
	expect_key(TY_BYTEA, ty_bytes("\0", 1), false, "0200ff0001");
	expect_key(TY_BPCHAR, ty_text("ab   "), false, "0261620001");
	expect_key(TY_NAME, ty_text("pg"), false, "0270670001");
	expect_key(TY_CHAR, ty_int(0xff), false, "02ff");
	expect_key(TY_TEXT, ty_null(), false, "03");
	const char *u = "00112233-4455-6677-8899-aabbccddeeff";
	expect_key(TY_UUID, ty_input(TY_UUID, u, strlen(u), -1), false, "0200112233445566778899aabbccddeeff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors), cmocka_unit_test(test_text), cmocka_unit_test(test_bpchar),
	    cmocka_unit_test(test_bytea),   cmocka_unit_test(test_char), cmocka_unit_test(test_uuid),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
