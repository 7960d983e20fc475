/* core_test.c — the types core: error throw/catch, arena budget, registry, record output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "types.h"

static void throws_22012(void *arg)
{
	(void)arg;
	ty_error(UTIL_E_DIVISION_BY_ZERO, "division by zero");
}

static void nothing(void *arg)
{
	*(int *)arg = 42;
}

static void test_protect(void **state)
{
	(void)state;
	util_err e;
	util_err_clear(&e);
	assert_int_equal(ty_protect(throws_22012, NULL, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "22012");
	assert_string_equal(e.message, "division by zero");
	int x = 0;
	assert_int_equal(ty_protect(nothing, &x, &e), 0);
	assert_int_equal(x, 42);
}

static void test_nested_try(void **state)
{
	(void)state;
	volatile int inner = 0, outer = 0;
	TY_TRY(o)
	{
		TY_TRY(i)
		{
			ty_error(UTIL_E_SYNTAX_ERROR, "inner");
		}
		TY_CATCH(i)
		{
			inner = 1;
		}
		TY_END(i);
		ty_error(UTIL_E_SYNTAX_ERROR, "outer");
	}
	TY_CATCH(o)
	{
		outer = 1;
		assert_string_equal(ty_err()->message, "outer");
	}
	TY_END(o);
	assert_int_equal(inner, 1);
	assert_int_equal(outer, 1);
}

static void alloc_forever(void *arg)
{
	(void)arg;
	for (;;)
		ty_alloc(1 << 16);
}

static void test_budget(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(4096, 1 << 20);
	util_arena *old = ty_set_arena(a);
	util_err e;
	assert_int_equal(ty_protect(alloc_forever, NULL, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "53200");
	ty_set_arena(old);
	util_arena_destroy(a);
}

static void test_registry(void **state)
{
	(void)state;
	ty_init();
	const ty_type *t = ty_type_get(TY_UNKNOWN);
	assert_non_null(t);
	assert_string_equal(t->name, "unknown");
	assert_ptr_equal(ty_type_by_name("unknown"), t);
	assert_null(ty_type_get(999999));
	util_arena *a = util_arena_new(4096, 0);
	ty_set_arena(a);
	ty_datum d = ty_input(TY_UNKNOWN, "hello", 5, -1);
	assert_string_equal(ty_output_cstring(TY_UNKNOWN, d), "hello");
	ty_oid types[2] = {TY_UNKNOWN, TY_UNKNOWN};
	ty_datum vals[2] = {ty_text("a b"), ty_null()};
	ty_record r = {2, types, NULL, vals};
	assert_string_equal(ty_output_cstring(TY_RECORD, ty_bytes(&r, sizeof r)), "(\"a b\",)");
	ty_set_arena(NULL);
	util_arena_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_protect),
	    cmocka_unit_test(test_nested_try),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_registry),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
