/* startup_test.c — unit tests for startup-packet parsing: protocol versions, parameters,
 * "options" switches, special request codes and malformed layouts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pgw_int.h"

/* Builds a packet body: version then NUL-separated strings (pairs), with
 * the final terminator. */
static size_t body(uint8_t *out, uint32_t version, const char *const *kv, int n, bool terminate)
{
	util_put_be32(out, version);
	size_t o = 4;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(kv[i]) + 1;
		memcpy(out + o, kv[i], l);
		o += l;
	}
	if (terminate)
		out[o++] = 0;
	return o;
}

static void test_basic(void **state)
{
	(void)state;
	const char *kv[] = {"user", "alice",           "database", "db1", "application_name",
			    "psql", "client_encoding", "UTF8"};
	uint8_t b[512];
	size_t n = body(b, PGW_PROTO(3, 0), kv, 8, true);
	pgw_startup s;
	util_err e;
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
	assert_int_equal(s.kind, PGW_SP_STARTUP);
	assert_string_equal(s.user, "alice");
	assert_string_equal(s.database, "db1");
	assert_int_equal(s.nparams, 2);
	assert_string_equal(s.names[0], "application_name");
	assert_string_equal(s.values[0], "psql");
	assert_string_equal(s.names[1], "client_encoding");
	assert_int_equal(s.nunknown, 0);
	assert_false(s.options_bad);
	pgw_startup_free(&s);
}

static void test_database_defaults_to_user_and_truncation(void **state)
{
	(void)state;
	char longname[100];
	memset(longname, 'u', 99);
	longname[99] = 0;
	const char *kv[] = {"user", longname};
	uint8_t b[512];
	size_t n = body(b, PGW_PROTO(3, 0), kv, 2, true);
	pgw_startup s;
	util_err e;
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
	assert_int_equal(strlen(s.user), 63);
	assert_string_equal(s.database, s.user);
	pgw_startup_free(&s);
}

static void test_options(void **state)
{
	(void)state;
	const char *kv[] = {"user", "u", "options",
			    "-c search_path=a\\ b --work-mem=64kB  -cstatement_timeout=5s -c geqo=off"};
	uint8_t b[512];
	size_t n = body(b, PGW_PROTO(3, 0), kv, 4, true);
	pgw_startup s;
	util_err e;
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
	assert_false(s.options_bad);
	assert_int_equal(s.nparams, 4);
	assert_string_equal(s.names[0], "search_path");
	assert_string_equal(s.values[0], "a b");
	assert_string_equal(s.names[1], "work_mem");
	assert_string_equal(s.values[1], "64kB");
	assert_string_equal(s.names[2], "statement_timeout");
	assert_string_equal(s.names[3], "geqo");
	pgw_startup_free(&s);

	/* Bad switches are kept for after authentication, as PostgreSQL. */
	const char *bad[][2] = {{"-x", "invalid command-line argument for server process: -x"},
				{"-c statement_timeout", "-c statement_timeout requires a value"},
				{"--foo", "--foo requires a value"}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++) {
		const char *kv2[] = {"user", "u", "options", bad[i][0]};
		n = body(b, PGW_PROTO(3, 0), kv2, 4, true);
		assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
		assert_true(s.options_bad);
		assert_string_equal(util_errcode_sqlstate(s.options_err.code), "42601");
		assert_string_equal(s.options_err.message, bad[i][1]);
		pgw_startup_free(&s);
	}
}

static void test_versions(void **state)
{
	(void)state;
	const char *kv[] = {"user", "u", "_pq_.foo", "1"};
	uint8_t b[512];
	size_t n = body(b, PGW_PROTO(3, 1), kv, 4, true);
	pgw_startup s;
	util_err e;
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
	assert_int_equal(s.nunknown, 1);
	assert_string_equal(s.unknown[0], "_pq_.foo");
	assert_int_equal(s.nparams, 0);
	pgw_startup_free(&s);

	n = body(b, PGW_PROTO(2, 0), kv, 2, true);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	assert_string_equal(util_errcode_sqlstate(e.code), "0A000");
	assert_string_equal(e.message, "unsupported frontend protocol 2.0: server supports 3.0 to 3.0");
	n = body(b, PGW_PROTO(4, 0), kv, 2, true);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	assert_string_equal(e.message, "unsupported frontend protocol 4.0: server supports 3.0 to 3.0");
}

static void test_special_codes(void **state)
{
	(void)state;
	uint8_t b[16];
	pgw_startup s;
	util_err e;
	util_put_be32(b, PGW_SSL_CODE);
	assert_int_equal(pgw_startup_parse(b, 4, &s, &e), 0);
	assert_int_equal(s.kind, PGW_SP_SSL);
	util_put_be32(b, PGW_GSSENC_CODE);
	assert_int_equal(pgw_startup_parse(b, 4, &s, &e), 0);
	assert_int_equal(s.kind, PGW_SP_GSSENC);
	util_put_be32(b, PGW_CANCEL_CODE);
	util_put_be32(b + 4, 1234);
	util_put_be32(b + 8, 0xdeadbeef);
	assert_int_equal(pgw_startup_parse(b, 12, &s, &e), 0);
	assert_int_equal(s.kind, PGW_SP_CANCEL);
	assert_int_equal(s.cancel_pid, 1234);
	assert_int_equal((uint32_t)s.cancel_key, 0xdeadbeef);
	assert_int_equal(pgw_startup_parse(b, 8, &s, &e), -1);
	pgw_startup_free(&s);
}

static void test_malformed(void **state)
{
	(void)state;
	uint8_t b[512];
	pgw_startup s;
	util_err e;
	/* no terminator */
	const char *kv[] = {"user", "u"};
	size_t n = body(b, PGW_PROTO(3, 0), kv, 2, false);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	assert_string_equal(util_errcode_sqlstate(e.code), "08P01");
	assert_string_equal(e.message, "invalid startup packet layout: expected terminator as last byte");
	/* a name without a value */
	const char *kv2[] = {"user", "u", "lonely"};
	n = body(b, PGW_PROTO(3, 0), kv2, 3, false);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	/* garbage after the terminator */
	n = body(b, PGW_PROTO(3, 0), kv, 2, true);
	b[n++] = 'x';
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	/* no user */
	const char *kv3[] = {"database", "d"};
	n = body(b, PGW_PROTO(3, 0), kv3, 2, true);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	assert_string_equal(util_errcode_sqlstate(e.code), "28000");
	assert_string_equal(e.message, "no PostgreSQL user name specified in startup packet");
	/* replication is refused */
	const char *kv4[] = {"user", "u", "replication", "true"};
	n = body(b, PGW_PROTO(3, 0), kv4, 4, true);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), -1);
	pgw_startup_free(&s);
	const char *kv5[] = {"user", "u", "replication", "off"};
	n = body(b, PGW_PROTO(3, 0), kv5, 4, true);
	assert_int_equal(pgw_startup_parse(b, n, &s, &e), 0);
	pgw_startup_free(&s);
	/* too short */
	assert_int_equal(pgw_startup_parse(b, 2, &s, &e), -1);
	pgw_startup_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),
	    cmocka_unit_test(test_database_defaults_to_user_and_truncation),
	    cmocka_unit_test(test_options),
	    cmocka_unit_test(test_versions),
	    cmocka_unit_test(test_special_codes),
	    cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
