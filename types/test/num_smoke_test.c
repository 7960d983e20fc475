/* num_smoke_test.c — registration smoke test of the numeric area: each
 * type is registered with I/O, and a few operators/casts resolve and run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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

static const char *roundtrip(ty_oid t, const char *s)
{
	return ty_output_cstring(t, ty_input(t, s, strlen(s), -1));
}

static void test_types(void **state)
{
	(void)state;
	assert_string_equal(roundtrip(TY_BOOL, " YES "), "t");
	assert_string_equal(roundtrip(TY_INT2, "-32768"), "-32768");
	assert_string_equal(roundtrip(TY_INT4, " +12 "), "12");
	assert_string_equal(roundtrip(TY_INT8, "-9223372036854775808"), "-9223372036854775808");
	assert_string_equal(roundtrip(TY_FLOAT8, "0.1"), "0.1");
	assert_string_equal(roundtrip(TY_FLOAT4, "1e6"), "1e+06");
	assert_string_equal(roundtrip(TY_OID, "-1"), "4294967295");
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(TY_INT4, -1, &b);
	assert_string_equal(b.data, "integer");
	util_buf_free(&b);
}

static void test_operator(void **state)
{
	(void)state;
	int cur = 0;
	const ty_operator *op;
	const ty_func *f = NULL;
	while ((op = ty_operator_lookup("+", &cur)))
		if (op->left == TY_INT4 && op->right == TY_INT8)
			f = ty_operator_func(op);
	assert_non_null(f);
	assert_string_equal(f->name, "int48pl");
	ty_datum a[2] = {ty_int(2147483647), ty_int(1)};
	ty_oid t[2] = {TY_INT4, TY_INT8};
	assert_int_equal(ty_call("int48pl", 2, t, a).i, 2147483648LL);
	util_err e;
	ty_oid t4[2] = {TY_INT4, TY_INT4};
	TY_TRY(c)
	{
		ty_call("int4pl", 2, t4, a);
	}
	TY_CATCH(c)
	{
		e = *ty_err();
	}
	TY_END(c);
	assert_string_equal(util_errcode_sqlstate(e.code), "22003");
	assert_string_equal(e.message, "integer out of range");
}

static void test_cast(void **state)
{
	(void)state;
	const ty_cast *c = ty_cast_lookup(TY_INT8, TY_INT4);
	assert_non_null(c);
	assert_int_equal(c->context, 'a');
	assert_int_equal(ty_cast_value(ty_int(5), TY_INT8, TY_INT4, -1, false).i, 5);
	assert_true(ty_cast_value(ty_float(2.5), TY_FLOAT8, TY_INT4, -1, true).i == 2);
	assert_int_equal(ty_cast_lookup(TY_INT4, TY_INT8)->context, 'i');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_operator),
	    cmocka_unit_test(test_cast),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
