/*
 * litcache_test.c — the literal cache's lexer (sql/litcache.c): which texts
 * share a shape, which integer constants it finds, and which texts it
 * refuses (left to the parser). Hits and results are checked end to end by
 * tests/regress/sql/litcache.sql against PostgreSQL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../sql_int.h"

typedef struct scanned {
	bool ok;
	int n;
	size_t len;
	char key[8192];
} scanned;

static scanned scan(sql_session *s, const char *q)
{
	scanned r;
	memset(&r, 0, sizeof r);
	sql_litq *lq = sql_litcache_scan(s, q);
	if (!lq)
		return r;
	r.ok = true;
	const char *k = sql_litcache_key(lq, &r.len, &r.n);
	assert_true(r.len <= sizeof r.key);
	memcpy(r.key, k, r.len);
	return r;
}

static bool same(scanned a, scanned b)
{
	return a.ok && b.ok && a.len == b.len && !memcmp(a.key, b.key, a.len);
}

static int setup(void **state)
{
	sql_session *s = calloc(1, sizeof *s);
	s->stmt_arena = util_arena_new(4096, 0);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	sql_session *s = *state;
	util_arena_destroy(s->stmt_arena);
	free(s);
	return 0;
}

static void test_same_shape(void **state)
{
	sql_session *s = *state;
	scanned a = scan(s, "SELECT abalance FROM pgbench_accounts WHERE aid = 1;");
	scanned b = scan(s, "SELECT abalance FROM pgbench_accounts WHERE aid = 987654;");
	scanned c = scan(s, "SELECT abalance FROM pgbench_accounts WHERE aid = 2147483647;");
	assert_true(a.ok);
	assert_int_equal(a.n, 1);
	assert_true(same(a, b));
	assert_true(same(a, c));
	/* Leading zeros: still one int4 constant. */
	assert_true(same(a, scan(s, "SELECT abalance FROM pgbench_accounts WHERE aid = 007;")));
	/* Different text around the constant: another shape. */
	assert_false(same(a, scan(s, "SELECT abalance FROM pgbench_accounts WHERE bid = 1;")));
	assert_false(same(a, scan(s, "SELECT abalance FROM pgbench_accounts WHERE aid = -1;")));
}

static void test_classes(void **state)
{
	sql_session *s = *state;
	/* int4 and int8 constants are different tokens to PostgreSQL's grammar. */
	scanned i4 = scan(s, "SELECT 1 FROM t WHERE b = 2147483647");
	scanned i8 = scan(s, "SELECT 1 FROM t WHERE b = 2147483648");
	scanned i8b = scan(s, "SELECT 1 FROM t WHERE b = 9223372036854775807");
	assert_true(i4.ok && i8.ok);
	assert_int_equal(i4.n, 2);
	assert_false(same(i4, i8));
	assert_true(same(i8, i8b));
	/* Beyond int8 (numeric) is left to the parser. */
	assert_false(scan(s, "SELECT 1 FROM t WHERE b = 9223372036854775808").ok);
	assert_false(scan(s, "SELECT 1 FROM t WHERE b = 123456789012345678901").ok);
}

static void test_not_constants(void **state)
{
	sql_session *s = *state;
	/* Digits in identifiers, strings, quoted identifiers and comments are text. */
	scanned a = scan(s, "SELECT t1.c2 FROM t1 WHERE c2 = 'x5' -- 7\n AND \"c 9\" = 3 /* 4 /* 5 */ 6 */ "
			    "AND x = 'it''s 8'");
	assert_true(a.ok);
	assert_int_equal(a.n, 1);
	scanned b = scan(s, "SELECT t1.c2 FROM t1 WHERE c2 = 'x5' -- 7\n AND \"c 9\" = 4 /* 4 /* 5 */ 6 */ "
			    "AND x = 'it''s 8'");
	assert_true(same(a, b));
	assert_false(same(a, scan(s, "SELECT t1.c2 FROM t1 WHERE c2 = 'x6' -- 7\n AND \"c 9\" = 3 /* 4 /* 5 "
				     "*/ 6 */ AND x = 'it''s 8'")));
	/* Nothing to parameterise: not for this cache. */
	assert_false(scan(s, "SELECT * FROM t1").ok);
	assert_false(scan(s, "SELECT 'a1' FROM t2").ok);
}

static void test_refused(void **state)
{
	sql_session *s = *state;
	const char *refused[] = {
	    "SELECT 1 FROM t WHERE a = 1.5",       /* decimal */
	    "SELECT 1 FROM t WHERE a = .5",        /* decimal */
	    "SELECT 1 FROM t WHERE a = 1e5",       /* exponent */
	    "SELECT 1 FROM t WHERE a = 123abc",    /* PostgreSQL 15 splits it; leave that to the parser */
	    "SELECT 1 FROM t WHERE a = $1",        /* a parameter in a simple query is the parser's error */
	    "SELECT $$x$$ FROM t WHERE a = 1",     /* dollar quoting */
	    "SELECT E'\\n' FROM t WHERE a = 1",    /* backslashes depend on settings */
	    "SELECT 'open FROM t WHERE a = 1",     /* unterminated string */
	    "SELECT \"open FROM t WHERE a = 1",    /* unterminated identifier */
	    "SELECT 1 /* open FROM t WHERE a = 1", /* unterminated comment */
	    "SELECT '\x01' FROM t WHERE a = 1",    /* the shape's own mark byte */
	};
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		if (scan(s, refused[i]).ok)
			fail_msg("scanned, should be refused: %s", refused[i]);
	}
	char big[SQL_LITCACHE_TEXT_MAX + 64];
	memset(big, ' ', sizeof big);
	memcpy(big, "SELECT 1", 8);
	big[sizeof big - 1] = 0;
	assert_false(scan(s, big).ok);
}

static void test_context(void **state)
{
	sql_session *s = *state;
	scanned a = scan(s, "SELECT v FROM t WHERE id = 1");
	s->guc_gen++; /* any SET: search_path, role ... */
	scanned b = scan(s, "SELECT v FROM t WHERE id = 1");
	assert_true(a.ok && b.ok);
	assert_false(same(a, b));
	s->txn_state = SQL_TXN_FAILED;
	assert_false(scan(s, "SELECT v FROM t WHERE id = 1").ok);
	s->txn_state = SQL_TXN_IDLE;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_same_shape, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_classes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_constants, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_context, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
