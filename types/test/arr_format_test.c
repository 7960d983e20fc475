/* arr_format_test.c — the array datum format and array.h helpers: build and
 * deconstruct, iteration over misaligned copies, validation of corrupt
 * bytes, binary receive errors, element-wise coercion, ANY/ALL with SQL's
 * three-valued logic, and a randomized property test that the key encoding
 * sorts exactly like the btree comparison and decodes to an equal value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "array.h"

static util_arena *arena;

static int setup(void **state)
{
	(void)state;
	util_arena_reset(arena);
	ty_set_arena(arena);
	return 0;
}

static ty_datum in(ty_oid t, const char *s)
{
	return ty_input(t, s, strlen(s), TY_TYPMOD_NONE);
}

static const char *out(ty_oid t, ty_datum d)
{
	return ty_output_cstring(t, d);
}

static void test_build_deconstruct(void **state)
{
	(void)state;
	ty_datum e[6] = {ty_int(1), ty_null(), ty_int(3), ty_int(4), ty_int(5), ty_null()};
	int dims[2] = {2, 3}, lbs[2] = {0, 5};
	ty_datum a = ty_array_build(TY_INT4, 2, dims, lbs, e);
	assert_string_equal(out(TY_INT4_ARRAY, a), "[0:1][5:7]={{1,NULL,3},{4,5,NULL}}");
	assert_int_equal(ty_array_ndim(a), 2);
	assert_int_equal(ty_array_nitems(a), 6);
	assert_int_equal(ty_array_lbound(a, 1), 5);
	assert_true(ty_array_hasnulls(a));
	ty_array_validate(a);
	int n;
	ty_datum *v = ty_array_deconstruct(a, &n);
	assert_int_equal(n, 6);
	assert_true(v[1].null && v[5].null);
	assert_int_equal(v[3].i, 4);
	ty_datum empty = ty_array_from_list(TY_TEXT, 0, NULL);
	assert_int_equal(ty_array_ndim(empty), 0);
	assert_string_equal(out(TY_TEXT_ARRAY, empty), "{}");
	assert_int_equal(ty_array_type_of(TY_INT4), TY_INT4_ARRAY);
	assert_int_equal(ty_array_elem_of(TY_TEXT_ARRAY), TY_TEXT);
	assert_int_equal(ty_array_elem_of(TY_INT4), 0);
}

static void test_misaligned_iteration(void **state)
{
	(void)state;
	ty_datum a = in(TY_INTERVAL_ARRAY, "{\"1 day\",NULL,\"2 hours\"}");
	/* The same bytes at an odd address: elements must come out aligned. */
	char *buf = ty_alloc(a.len + 1);
	memcpy(buf + 1, a.p, a.len);
	ty_datum b = ty_bytes(buf + 1, a.len);
	ty_array_iter it;
	ty_array_iter_init(&it, b);
	ty_datum e;
	int k = 0;
	while (ty_array_iter_next(&it, &e)) {
		if (!e.null)
			assert_int_equal((uintptr_t)e.p % 8, 0);
		k++;
	}
	assert_int_equal(k, 3);
	assert_string_equal(out(TY_INTERVAL_ARRAY, b), "{\"1 day\",NULL,02:00:00}");
}

static void validate_body(void *arg)
{
	ty_array_validate(*(ty_datum *)arg);
}

static void output_body(void *arg)
{
	(void)out(TY_TEXT_ARRAY, *(ty_datum *)arg);
}

static void test_validate_corrupt(void **state)
{
	(void)state;
	ty_datum good = in(TY_TEXT_ARRAY, "{{abc,NULL},{\"\",xyz}}");
	util_err e;
	assert_int_equal(ty_protect(validate_body, &good, &e), 0);
	/* Every truncation and many single-byte corruptions are rejected or
	 * accepted without reading out of bounds (ASan checks the latter). */
	srand(7);
	for (uint32_t len = 0; len < good.len; len++) {
		uint8_t *p = ty_alloc(len ? len : 1);
		memcpy(p, good.p, len);
		ty_datum d = ty_bytes(p, len);
		assert_int_equal(ty_protect(validate_body, &d, &e), -1);
		assert_string_equal(util_errcode_sqlstate(e.code), "22P03");
	}
	for (int i = 0; i < 2000; i++) {
		uint8_t *p = ty_alloc(good.len);
		memcpy(p, good.p, good.len);
		p[rand() % good.len] = (uint8_t)rand();
		ty_datum d = ty_bytes(p, good.len);
		if (ty_protect(validate_body, &d, &e) == 0)
			assert_int_equal(ty_protect(output_body, &d, &e), 0);
	}
}

typedef struct recv_case {
	const char *hex, *sqlstate, *message;
} recv_case;

static void recv_body(void *arg)
{
	const recv_case *c = arg;
	size_t n = strlen(c->hex) / 2;
	uint8_t *b = ty_alloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		unsigned x;
		sscanf(c->hex + 2 * i, "%2x", &x);
		b[i] = (uint8_t)x;
	}
	ty_type_get(TY_INT4_ARRAY)->recv(b, n, TY_TYPMOD_NONE);
}

static void test_recv_errors(void **state)
{
	(void)state;
	/* Messages as PostgreSQL's array_recv reports them. */
	static const recv_case cases[] = {
	    {"ffffffff0000000000000017", "22P03", "invalid number of dimensions: -1"},
	    {"000000070000000000000017", "54000",
	     "number of array dimensions (7) exceeds the maximum allowed (6)"},
	    {"000000010000000200000017", "22P03", "invalid array flags"},
	    {"000000010000000000000014", "42804",
	     "binary data has array element type 20 (bigint) instead of expected 23 (integer)"},
	    {"00000001000000000000001700000002", "08P01", "insufficient data left in message"},
	    {"000000010000000000000017000000010000000100000008", "22P03",
	     "insufficient data left in message"},
	    {"000000010000000000000017ffffffff00000001", "54000",
	     "array size exceeds the maximum allowed (134217727)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		util_err e;
		assert_int_equal(ty_protect(recv_body, (void *)&cases[i], &e), -1);
		assert_string_equal(util_errcode_sqlstate(e.code), cases[i].sqlstate);
		assert_string_equal(e.message, cases[i].message);
	}
}

typedef struct coerce_case {
	ty_oid from;
	const char *value;
	ty_oid to;
	int32_t typmod;
} coerce_case;

static void coerce_body(void *arg)
{
	coerce_case *c = arg;
	ty_datum r = ty_array_coerce(in(c->from, c->value), c->to, c->typmod, true);
	c->value = out(c->to, r);
}

static void test_coerce(void **state)
{
	(void)state;
	coerce_case c = {TY_TEXT_ARRAY, "[2:3]={1, 2 }", TY_INT4_ARRAY, TY_TYPMOD_NONE};
	util_err e;
	assert_int_equal(ty_protect(coerce_body, &c, &e), 0);
	assert_string_equal(c.value, "[2:3]={1,2}");
	coerce_case bad = {TY_TEXT_ARRAY, "{1,x}", TY_INT4_ARRAY, TY_TYPMOD_NONE};
	assert_int_equal(ty_protect(coerce_body, &bad, &e), -1);
	assert_string_equal(e.message, "invalid input syntax for type integer: \"x\"");
	/* numeric(5,1)[]: the typmod applies to every element. */
	coerce_case num = {TY_INT4_ARRAY, "{1,NULL,3}", TY_NUMERIC_ARRAY, (5 << 16 | 1) + 4};
	assert_int_equal(ty_protect(coerce_body, &num, &e), 0);
	assert_string_equal(num.value, "{1.0,NULL,3.0}");
}

typedef struct cast_case {
	const char *value;
	ty_oid from, to;
	int32_t typmod;
	bool explicit_cast;
	const char *result;
} cast_case;

static void cast_body(void *arg)
{
	cast_case *c = arg;
	c->result =
	    out(c->to, ty_cast_value(in(c->from, c->value), c->from, c->to, c->typmod, c->explicit_cast));
}

/* Through ty_cast_value: element-wise casts, and the array typmod applied
 * to each element. PostgreSQL 15: '{abcd}'::varchar(3)[] = {abc} (explicit
 * cast truncates), inserting array['abcd'] into a varchar(3)[] column fails
 * with "value too long for type character varying(3)", '{1.234}'::
 * numeric(4,2)[] = {1.23}. */
static void test_cast_value(void **state)
{
	(void)state;
	util_err e;
	cast_case c1 = {"{abcd}", TY_VARCHAR_ARRAY, TY_VARCHAR_ARRAY, 3 + 4, true, NULL};
	assert_int_equal(ty_protect(cast_body, &c1, &e), 0);
	assert_string_equal(c1.result, "{abc}");
	cast_case c2 = {"{abcd}", TY_TEXT_ARRAY, TY_VARCHAR_ARRAY, 3 + 4, false, NULL};
	assert_int_equal(ty_protect(cast_body, &c2, &e), -1);
	assert_string_equal(e.message, "value too long for type character varying(3)");
	cast_case c3 = {"{1.234}", TY_NUMERIC_ARRAY, TY_NUMERIC_ARRAY, (4 << 16 | 2) + 4, true, NULL};
	assert_int_equal(ty_protect(cast_body, &c3, &e), 0);
	assert_string_equal(c3.result, "{1.23}");
	cast_case c4 = {"{1,2}", TY_INT4_ARRAY, TY_TEXT_ARRAY, TY_TYPMOD_NONE, true, NULL};
	assert_int_equal(ty_protect(cast_body, &c4, &e), 0);
	assert_string_equal(c4.result, "{1,2}");
	cast_case c5 = {"{1.5,2.5}", TY_NUMERIC_ARRAY, TY_INT4_ARRAY, TY_TYPMOD_NONE, true, NULL};
	assert_int_equal(ty_protect(cast_body, &c5, &e), 0);
	assert_string_equal(c5.result, "{2,3}");
}

static ty_datum any_all(const char *x, const char *arr, bool use_or)
{
	int cur = 0;
	const ty_func *f = ty_func_lookup("int4eq", &cur);
	assert_non_null(f);
	ty_datum s = x ? in(TY_INT4, x) : ty_null();
	ty_datum a = arr ? in(TY_INT4_ARRAY, arr) : ty_null();
	return ty_array_scalar_op(f, s, TY_INT4, a, use_or);
}

static const char *tv(ty_datum d)
{
	return d.null ? "null" : d.i ? "true" : "false";
}

static void test_any_all(void **state)
{
	(void)state;
	/* Expected values are SQL's (and PostgreSQL's) three-valued results. */
	assert_string_equal(tv(any_all("1", "{1,2}", true)), "true");
	assert_string_equal(tv(any_all("3", "{1,2}", true)), "false");
	assert_string_equal(tv(any_all("3", "{1,NULL}", true)), "null");
	assert_string_equal(tv(any_all("1", "{1,NULL}", true)), "true");
	assert_string_equal(tv(any_all(NULL, "{1}", true)), "null");
	assert_string_equal(tv(any_all(NULL, "{}", true)), "false");
	assert_string_equal(tv(any_all("1", NULL, true)), "null");
	assert_string_equal(tv(any_all("1", "{1,1}", false)), "true");
	assert_string_equal(tv(any_all("1", "{1,2}", false)), "false");
	assert_string_equal(tv(any_all("1", "{1,NULL}", false)), "null");
	assert_string_equal(tv(any_all("1", "{2,NULL}", false)), "false");
	assert_string_equal(tv(any_all(NULL, "{}", false)), "true");
}

/* Random int4[] / text[] values: memcmp order of keys == ty_compare. */
static ty_datum random_array(ty_oid elem)
{
	int nd = rand() % 3;
	int dims[2] = {1 + rand() % 3, 1 + rand() % 2}, lbs[2] = {rand() % 3 - 1, 1};
	int n = nd == 0 ? 0 : nd == 1 ? dims[0] : dims[0] * dims[1];
	ty_datum *v = ty_alloc(sizeof *v * 8);
	for (int i = 0; i < n; i++) {
		if (rand() % 6 == 0) {
			v[i] = ty_null();
		} else if (elem == TY_INT4) {
			v[i] = ty_int(rand() % 5 - 2);
		} else {
			static const char *words[] = {"", "a", "ab", "b", "a\x01", "\xc3\xa9"};
			v[i] = ty_text(words[rand() % 6]);
		}
	}
	return ty_array_build(elem, nd, dims, lbs, v);
}

static void test_key_property(void **state)
{
	(void)state;
	srand(42);
	ty_oid elems[2] = {TY_INT4, TY_TEXT};
	for (int round = 0; round < 4000; round++) {
		ty_oid et = elems[round % 2], at = ty_array_type_of(et);
		ty_datum a = random_array(et), b = random_array(et);
		const ty_type *t = ty_type_get(at);
		util_buf ka = UTIL_BUF_INIT, kb = UTIL_BUF_INIT;
		t->keyenc(a, &ka);
		t->keyenc(b, &kb);
		size_t m = ka.len < kb.len ? ka.len : kb.len;
		int kc = memcmp(ka.data, kb.data, m);
		kc = kc ? (kc < 0 ? -1 : 1) : (ka.len < kb.len ? -1 : ka.len > kb.len);
		int c = ty_compare(at, a, b);
		c = c < 0 ? -1 : c > 0;
		if (kc != c)
			fail_msg("key order %d != compare %d for %s vs %s", kc, c, out(at, a), out(at, b));
		if (c == 0 && t->hash(a) != t->hash(b))
			fail_msg("equal arrays hash differently: %s", out(at, a));
		ty_datum d;
		size_t used = t->keydec((const uint8_t *)ka.data, (const uint8_t *)ka.data + ka.len, &d);
		assert_int_equal(used, ka.len);
		assert_string_equal(out(at, d), out(at, a));
		util_buf_free(&ka);
		util_buf_free(&kb);
		if (round % 256 == 0)
			util_arena_reset(arena);
	}
}

int main(void)
{
	ty_init();
	arena = util_arena_new(1 << 16, 0);
	ty_set_arena(arena);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_build_deconstruct, setup),
	    cmocka_unit_test_setup(test_misaligned_iteration, setup),
	    cmocka_unit_test_setup(test_validate_corrupt, setup),
	    cmocka_unit_test_setup(test_recv_errors, setup),
	    cmocka_unit_test_setup(test_coerce, setup),
	    cmocka_unit_test_setup(test_cast_value, setup),
	    cmocka_unit_test_setup(test_any_all, setup),
	    cmocka_unit_test_setup(test_key_property, setup),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	util_arena_destroy(arena);
	return rc;
}
