/* cat_types_test.c — the catalog-only types (types/cat_*.c): int2vector and
 * oidvector text/binary I/O and subscripting base, inet I/O, ordering, binary
 * form and functions, pg_node_tree input refusal. Expected values were checked
 * against PostgreSQL 15. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "array.h"
#include "types.h"

static util_arena *arena;

static int setup(void **state)
{
	(void)state;
	ty_init();
	ty_catalog_types_register();
	arena = util_arena_new(1 << 16, 0);
	ty_set_arena(arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	util_arena_destroy(arena);
	return 0;
}

static char *out(ty_oid type, ty_datum d)
{
	return ty_output_cstring(type, d);
}

static ty_datum in(ty_oid type, const char *s)
{
	return ty_input(type, s, strlen(s), -1);
}

static void test_int2vector(void **state)
{
	(void)state;
	ty_datum v = in(TY_INT2VECTOR, "1 2  3");
	assert_string_equal(out(TY_INT2VECTOR, v), "1 2 3");
	assert_int_equal(ty_array_lbound(v, 0), 0);
	assert_int_equal(ty_array_nitems(v), 3);
	int sub = 0;
	assert_int_equal(ty_array_get_element(v, 1, &sub).i, 1);
	int16_t vals[2] = {4, -2};
	assert_string_equal(out(TY_INT2VECTOR, ty_int2vector_from(2, vals)), "4 -2");
	assert_string_equal(out(TY_OIDVECTOR, in(TY_OIDVECTOR, "")), "");
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(TY_INT2VECTOR, -1, &b);
	assert_string_equal(b.data, "int2vector");
	util_buf_reset(&b);
	ty_format_type(TY_OIDVECTOR, -1, &b);
	assert_string_equal(b.data, "oidvector");
	util_buf_free(&b);
	/* Binary form is the array's; it reads back only as a 0-based vector. */
	const ty_type *t = ty_type_get(TY_OIDVECTOR);
	ty_oid oids[2] = {23, 25};
	ty_datum ov = ty_oidvector_from(2, oids);
	util_buf w = UTIL_BUF_INIT;
	t->send(ov, &w);
	ty_datum back = t->recv((const uint8_t *)w.data, w.len, -1);
	assert_string_equal(out(TY_OIDVECTOR, back), "23 25");
	util_buf_free(&w);
}

static void bad_inet(void *arg)
{
	in(TY_INET, arg);
}

static void test_inet(void **state)
{
	(void)state;
	assert_string_equal(out(TY_INET, in(TY_INET, "192.168.1.5")), "192.168.1.5");
	assert_string_equal(out(TY_INET, in(TY_INET, "10.0.0.0/8")), "10.0.0.0/8");
	assert_string_equal(out(TY_INET, in(TY_INET, "::1")), "::1");
	assert_string_equal(out(TY_INET, in(TY_INET, "2001:db8::1/64")), "2001:db8::1/64");
	util_err e;
	assert_int_equal(ty_protect(bad_inet, "300.1.1.1", &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "22P02");
	assert_string_equal(e.message, "invalid input syntax for type inet: \"300.1.1.1\"");
	assert_true(ty_compare(TY_INET, in(TY_INET, "10.0.0.0/8"), in(TY_INET, "10.0.0.1")) < 0);
	assert_true(ty_compare(TY_INET, in(TY_INET, "255.255.255.255"), in(TY_INET, "::")) < 0);
	assert_int_equal(ty_compare(TY_INET, in(TY_INET, "10.1.2.3/32"), in(TY_INET, "10.1.2.3")), 0);
	ty_oid arg[1] = {TY_INET};
	ty_datum a[1] = {in(TY_INET, "10.1.2.3")};
	assert_string_equal(ty_cstring(ty_call("text", 1, arg, a)), "10.1.2.3/32");
	a[0] = in(TY_INET, "10.0.0.0/8");
	assert_string_equal(ty_cstring(ty_call("host", 1, arg, a)), "10.0.0.0");
	assert_int_equal(ty_call("masklen", 1, arg, a).i, 8);
	a[0] = in(TY_INET, "::1");
	assert_int_equal(ty_call("family", 1, arg, a).i, 6);
	util_buf w = UTIL_BUF_INIT;
	ty_type_get(TY_INET)->send(in(TY_INET, "127.0.0.1"), &w);
	assert_int_equal(w.len, 8);
	assert_memory_equal(w.data, "\x02\x20\x00\x04\x7f\x00\x00\x01", 8);
	util_buf_free(&w);
}

static void node_tree_input(void *arg)
{
	(void)arg;
	in(TY_PG_NODE_TREE, "{VAR}");
}

static void test_node_tree(void **state)
{
	(void)state;
	util_err e;
	assert_int_equal(ty_protect(node_tree_input, NULL, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "0A000");
	assert_string_equal(e.message, "cannot accept a value of type pg_node_tree");
	assert_non_null(ty_cast_lookup(TY_PG_NODE_TREE, TY_TEXT));
	assert_non_null(ty_type_get(TY_ACLITEM_ARRAY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_int2vector),
	    cmocka_unit_test(test_inet),
	    cmocka_unit_test(test_node_tree),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
