/*
 * str_agg_test.c — string_agg(text, text), string_agg(bytea, bytea) and
 * min/max over text and bpchar, driven the way the executor drives
 * aggregates (init, step per row, final), with PostgreSQL's NULL rules:
 * NULL values are skipped, a NULL delimiter counts as empty, no non-NULL
 * value gives NULL. Expected values checked against PostgreSQL 15:
 *   select string_agg(v, d) from (values ('a', ','), (null, ';'), ('b', null), ('c', '-')) t(v, d)
 *   -> 'ab-c'
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "types.h"

static const ty_agg *find_agg(const char *name, ty_oid arg)
{
	int cur = 0;
	const ty_agg *a;
	while ((a = ty_agg_lookup(name, &cur)))
		if (a->args[0] == arg)
			return a;
	return NULL;
}

/* Runs agg over rows of (value, delimiter); NULL pointers are NULLs. */
static ty_datum run(const ty_agg *a, ty_oid type, const char *const (*rows)[2], int n)
{
	char state[256];
	assert_true(a->state_size <= sizeof state);
	memset(state, 0, a->state_size);
	ty_oid types[2] = {type, type};
	ty_fcinfo fc = {.nargs = a->nargs, .argtypes = types, .rettype = a->ret};
	a->init(state, &fc);
	for (int i = 0; i < n; i++) {
		ty_datum args[2];
		for (int k = 0; k < 2; k++)
			args[k] = rows[i][k] ? ty_text(rows[i][k]) : ty_null();
		fc.args = args;
		if (a->strict && args[0].null)
			continue;
		a->step(state, &fc);
	}
	return a->final(state, &fc);
}

static void expect(ty_datum d, const char *want)
{
	if (!want) {
		assert_true(d.null);
		return;
	}
	assert_false(d.null);
	assert_int_equal(d.len, strlen(want));
	assert_memory_equal(d.p, want, d.len);
}

static void test_aggs(void **state)
{
	(void)state;
	ty_init();
	util_arena *ar = util_arena_new(4096, 0);
	ty_set_arena(ar);
	const ty_agg *sa = find_agg("string_agg", TY_TEXT), *sb = find_agg("string_agg", TY_BYTEA);
	assert_non_null(sa);
	assert_non_null(sb);
	static const char *const rows[][2] = {{"a", ","}, {NULL, ";"}, {"b", NULL}, {"c", "-"}};
	expect(run(sa, TY_TEXT, rows, 4), "ab-c");
	expect(run(sb, TY_BYTEA, rows, 4), "ab-c");
	static const char *const nulls[][2] = {{NULL, ","}, {NULL, ","}};
	expect(run(sa, TY_TEXT, nulls, 2), NULL);
	expect(run(sa, TY_TEXT, rows, 0), NULL);
	static const char *const one[][2] = {{"", ","}};
	expect(run(sa, TY_TEXT, one, 1), "");
	/* many rows: the buffer grows */
	static const char *const many[][2] = {{"xyz", ", "}};
	char state2[256];
	memset(state2, 0, sizeof state2);
	ty_oid types[2] = {TY_TEXT, TY_TEXT};
	ty_fcinfo fc = {.nargs = 2, .argtypes = types};
	sa->init(state2, &fc);
	for (int i = 0; i < 10000; i++) {
		ty_datum args[2] = {ty_text(many[0][0]), ty_text(many[0][1])};
		fc.args = args;
		sa->step(state2, &fc);
	}
	assert_int_equal(sa->final(state2, &fc).len, 10000 * 3 + 9999 * 2);

	static const char *const words[][2] = {{"pear", NULL}, {NULL, NULL}, {"apple", NULL}, {"zoo", NULL}};
	expect(run(find_agg("max", TY_TEXT), TY_TEXT, words, 4), "zoo");
	expect(run(find_agg("min", TY_TEXT), TY_TEXT, words, 4), "apple");
	static const char *const padded[][2] = {{"b  ", NULL}, {"a", NULL}};
	expect(run(find_agg("max", TY_BPCHAR), TY_BPCHAR, padded, 2), "b  ");
	expect(run(find_agg("min", TY_BPCHAR), TY_BPCHAR, padded, 2), "a");
	expect(run(find_agg("max", TY_TEXT), TY_TEXT, nulls, 2), NULL);
	ty_set_arena(NULL);
	util_arena_destroy(ar);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aggs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
