/* json_parse_test.c — robustness of the JSON parser and jsonb format:
 * random mutations of valid documents never crash (ASan/UBSan build) and
 * json/jsonb agree (whatever jsonb accepts, json accepts); accepted jsonb
 * values round-trip through text output byte-identically; nesting deeper
 * than the limit fails with 54001 instead of exhausting the stack, and
 * deep-but-allowed values print, compare and hash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json_int.h"

static util_arena *arena;

typedef struct parse_run {
	const char *s;
	size_t n;
	ty_oid type;
	ty_datum out;
} parse_run;

static void parse_body(void *arg)
{
	parse_run *r = arg;
	r->out = ty_input(r->type, r->s, r->n, TY_TYPMOD_NONE);
}

static int try_parse(ty_oid type, const char *s, size_t n, ty_datum *out, util_err *e)
{
	parse_run r = {s, n, type, ty_null()};
	int rc = ty_protect(parse_body, &r, e);
	*out = r.out;
	return rc;
}

static const char *seeds[] = {
    "{\"a\":1,\"b\":[1,2,{\"c\":\"x\\u00e9\\n\"}],\"d\":null,\"e\":true,\"f\":-1.5e3}",
    "[[[]],{},\"\\ud83d\\ude00\",0.000,1e-5,\"\\\\\\\"\"]",
    "  {\"k\" : [ false , null , 12345678901234567890 ] }  ",
    "\"just a string\"",
};

static void test_mutations(void **state)
{
	(void)state;
	srand(1234);
	static const char alphabet[] = "{}[]:,\"\\ u0123456789abcdefeE+-.tnrul\x01\x80\xff";
	char buf[256];
	for (int round = 0; round < 20000; round++) {
		util_arena_reset(arena);
		const char *seed = seeds[round % 4];
		size_t n = strlen(seed);
		memcpy(buf, seed, n);
		int muts = 1 + rand() % 3;
		for (int m = 0; m < muts; m++) {
			size_t at = (size_t)rand() % n;
			switch (rand() % 3) {
			case 0:
				buf[at] = alphabet[rand() % (sizeof alphabet - 1)];
				break;
			case 1:
				if (n > 1) {
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
				}
				break;
			default:
				if (n < sizeof buf - 1) {
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = alphabet[rand() % (sizeof alphabet - 1)];
					n++;
				}
			}
		}
		ty_datum j, jb;
		util_err e;
		int rj = try_parse(TY_JSON, buf, n, &j, &e);
		if (rj != 0)
			assert_true(strcmp(util_errcode_sqlstate(e.code), "22P02") == 0);
		int rb = try_parse(TY_JSONB, buf, n, &jb, &e);
		if (rb != 0) {
			const char *st = util_errcode_sqlstate(e.code);
			assert_true(strcmp(st, "22P02") == 0 || strcmp(st, "22P05") == 0 ||
				    strcmp(st, "22003") == 0);
			continue;
		}
		assert_int_equal(rj, 0);
		/* jsonb text output reads back to the same bytes. */
		char *txt = ty_output_cstring(TY_JSONB, jb);
		ty_datum again;
		assert_int_equal(try_parse(TY_JSONB, txt, strlen(txt), &again, &e), 0);
		assert_int_equal(again.len, jb.len);
		assert_memory_equal(again.p, jb.p, jb.len);
		assert_int_equal(ty_compare(TY_JSONB, again, jb), 0);
	}
}

static char *nested(int depth, char open, char close)
{
	char *s = ty_alloc((size_t)depth * 2 + 1);
	memset(s, open, (size_t)depth);
	memset(s + depth, close, (size_t)depth);
	s[2 * depth] = '\0';
	return s;
}

static void test_depth(void **state)
{
	(void)state;
	util_arena_reset(arena);
	util_err e;
	ty_datum d;
	char *deep = nested(JSON_MAX_DEPTH + 1, '[', ']');
	assert_int_equal(try_parse(TY_JSON, deep, strlen(deep), &d, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "54001");
	assert_int_equal(try_parse(TY_JSONB, deep, strlen(deep), &d, &e), -1);
	assert_string_equal(e.message, "stack depth limit exceeded");
	char *ok = nested(JSON_MAX_DEPTH - 1, '[', ']');
	ty_datum a, b;
	assert_int_equal(try_parse(TY_JSONB, ok, strlen(ok), &a, &e), 0);
	assert_int_equal(try_parse(TY_JSONB, ok, strlen(ok), &b, &e), 0);
	assert_int_equal(ty_compare(TY_JSONB, a, b), 0);
	assert_int_equal(ty_type_get(TY_JSONB)->hash(a), ty_type_get(TY_JSONB)->hash(b));
	assert_string_equal(ty_output_cstring(TY_JSONB, a), ok);
}

/* Random small JSON documents as text. */
static void random_json(util_buf *b, int depth)
{
	static const char *scalars[] = {"null",         "true",      "false", "0",     "-0.0",   "1",
					"1.0",          "-1",        "2.5",   "-2.50", "10",     "1e2",
					"0.001",        "-1000",     "\"\"",  "\"a\"", "\"ab\"", "\"b\"",
					"\"\\u0000x\"", "\"\u00e9\""};
	int r = rand() % (depth > 2 ? 1 : 4);
	if (r == 0 || r == 1) {
		util_buf_puts(b, scalars[rand() % (int)(sizeof scalars / sizeof scalars[0])]);
	} else if (r == 2) {
		int n = rand() % 3;
		util_buf_putc(b, '[');
		for (int i = 0; i < n; i++) {
			if (i)
				util_buf_putc(b, ',');
			random_json(b, depth + 1);
		}
		util_buf_putc(b, ']');
	} else {
		static const char *keys[] = {"\"a\"", "\"b\"", "\"aa\"", "\"\""};
		int n = rand() % 3;
		util_buf_putc(b, '{');
		for (int i = 0; i < n; i++) {
			if (i)
				util_buf_putc(b, ',');
			util_buf_puts(b, keys[rand() % 4]);
			util_buf_putc(b, ':');
			random_json(b, depth + 1);
		}
		util_buf_putc(b, '}');
	}
}

/* memcmp order of jsonb keys == jsonb btree order; keys decode to an equal value. */
static void test_key_property(void **state)
{
	(void)state;
	srand(99);
	const ty_type *t = ty_type_get(TY_JSONB);
	for (int round = 0; round < 5000; round++) {
		util_arena_reset(arena);
		util_buf x = UTIL_BUF_INIT, y = UTIL_BUF_INIT;
		random_json(&x, 0);
		random_json(&y, 0);
		ty_datum a, b;
		util_err e;
		int ra = try_parse(TY_JSONB, x.data, x.len, &a, &e);
		int rb = try_parse(TY_JSONB, y.data, y.len, &b, &e);
		if (ra || rb) {
			/* Only \u0000 is rejected; it is in the pool on purpose. */
			assert_string_equal(util_errcode_sqlstate(e.code), "22P05");
			util_buf_free(&x);
			util_buf_free(&y);
			continue;
		}
		util_buf ka = UTIL_BUF_INIT, kb = UTIL_BUF_INIT;
		t->keyenc(a, &ka);
		t->keyenc(b, &kb);
		size_t m = ka.len < kb.len ? ka.len : kb.len;
		int kc = memcmp(ka.data, kb.data, m);
		kc = kc ? (kc < 0 ? -1 : 1) : (ka.len < kb.len ? -1 : ka.len > kb.len);
		int c = ty_compare(TY_JSONB, a, b);
		c = c < 0 ? -1 : c > 0;
		if (kc != c)
			fail_msg("key order %d != compare %d: %s vs %s", kc, c, x.data, y.data);
		ty_datum d;
		size_t used = t->keydec((const uint8_t *)ka.data, (const uint8_t *)ka.data + ka.len, &d);
		assert_int_equal(used, ka.len);
		assert_int_equal(ty_compare(TY_JSONB, d, a), 0);
		util_buf_free(&ka);
		util_buf_free(&kb);
		util_buf_free(&x);
		util_buf_free(&y);
	}
}

int main(void)
{
	ty_init();
	arena = util_arena_new(1 << 16, 0);
	ty_set_arena(arena);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_key_property),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	util_arena_destroy(arena);
	return rc;
}
