/* hba_test.c — unit tests for host-based authentication rules: file syntax, errors with line
 * numbers, and first-match selection by connection type, database, user and address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "pgw_int.h"

static struct sockaddr_storage addr(const char *s)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
	} else {
		assert_int_equal(inet_pton(AF_INET6, s, &a6->sin6_addr), 1);
		a6->sin6_family = AF_INET6;
	}
	return ss;
}

static pgw_auth_method match(const pgw_hba *h, bool local, const char *ip, bool ssl, const char *user,
			     const char *db, int *line)
{
	struct sockaddr_storage ss = addr(ip ? ip : "0.0.0.0");
	pgw_hba_client c = {
	    .local = local, .addr = (struct sockaddr *)&ss, .ssl = ssl, .user = user, .database = db};
	return pgw_hba_match(h, &c, line);
}

static const char rules[] = "# comment line\n"
			    "\n"
			    "local   all        all                      peer\n"
			    "hostssl secure     all      0.0.0.0/0        scram-sha-256\n"
			    "hostnossl secure   all      0.0.0.0/0        reject\n"
			    "host    sameuser   all      10.0.0.0/8       md5   # trailing comment\n"
			    "host    \"all\"      alice,bob 10.0.0.0/8      password\n"
			    "host    db1,db2    all      192.168.1.0 255.255.255.0 trust\n"
			    "host    all        all      ::1/128          trust\n"
			    "host    all        all      fe80::/10        md5\n"
			    "host    all        \"Carol\"  all              password\n"
			    "host    all        all      127.0.0.1/32     trust\n";

static void test_match(void **state)
{
	(void)state;
	pgw_hba *h;
	util_err e;
	assert_int_equal(pgw_hba_parse(rules, "t", &h, &e), 0);
	int line;
	assert_int_equal(match(h, true, NULL, false, "x", "y", &line), PGW_AUTH_PEER);
	assert_int_equal(line, 3);
	assert_int_equal(match(h, false, "1.2.3.4", true, "x", "secure", &line), PGW_AUTH_SCRAM);
	assert_int_equal(line, 4);
	assert_int_equal(match(h, false, "1.2.3.4", false, "x", "secure", &line), PGW_AUTH_REJECT);
	assert_int_equal(line, 5);
	assert_int_equal(match(h, false, "10.1.2.3", false, "bob", "bob", &line), PGW_AUTH_MD5);
	/* "all" quoted is a database named all */
	assert_int_equal(match(h, false, "10.1.2.3", false, "bob", "all", &line), PGW_AUTH_PASSWORD);
	assert_int_equal(line, 7);
	assert_int_equal(match(h, false, "10.1.2.3", false, "bob", "other", &line), PGW_AUTH_NO_MATCH);
	assert_int_equal(line, 0);
	assert_int_equal(match(h, false, "192.168.1.77", false, "z", "db2", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "192.168.2.77", false, "z", "db2", &line), PGW_AUTH_NO_MATCH);
	assert_int_equal(match(h, false, "::1", false, "z", "q", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "fe80::1", false, "z", "q", &line), PGW_AUTH_MD5);
	assert_int_equal(match(h, false, "8.8.8.8", false, "Carol", "q", &line), PGW_AUTH_PASSWORD);
	assert_int_equal(match(h, false, "8.8.8.8", false, "carol", "q", &line), PGW_AUTH_NO_MATCH);
	assert_int_equal(match(h, false, "127.0.0.1", true, "u", "q", &line), PGW_AUTH_TRUST);
	assert_int_equal(line, 12);
	/* an IPv4-mapped IPv6 client matches IPv4 rules */
	assert_int_equal(match(h, false, "::ffff:127.0.0.1", false, "u", "q", &line), PGW_AUTH_TRUST);
	pgw_hba_free(h);
}

static void test_default(void **state)
{
	(void)state;
	pgw_hba *h = pgw_hba_default();
	int line;
	assert_int_equal(match(h, true, NULL, false, "u", "d", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "127.0.0.1", false, "u", "d", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "127.3.0.1", false, "u", "d", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "::1", false, "u", "d", &line), PGW_AUTH_TRUST);
	assert_int_equal(match(h, false, "10.0.0.1", false, "u", "d", &line), PGW_AUTH_SCRAM);
	assert_int_equal(match(h, false, "2001:db8::1", false, "u", "d", &line), PGW_AUTH_SCRAM);
	pgw_hba_free(h);
}

static void test_errors(void **state)
{
	(void)state;
	struct {
		const char *text;
		const char *msg;
	} bad[] = {
	    {"hots all all all trust\n", "t:1: invalid connection type \"hots\""},
	    {"\nhost all all\n", "t:2: end-of-line before IP address specification"},
	    {"host all all 1.2.3.4/33 trust\n", "t:1: invalid CIDR mask in address \"1.2.3.4/33\""},
	    {"host all all example.com trust\n",
	     "t:1: invalid IP address \"example.com\" (host names are not supported)"},
	    {"host all all 1.2.3.4 trust\n", "t:1: end-of-line before netmask specification"},
	    {"host all all 1.2.3.4 bogus md5\n", "t:1: invalid IP mask \"bogus\""},
	    {"host all all all ident\n", "t:1: invalid or unsupported authentication method \"ident\""},
	    {"host all all all peer\n", "t:1: peer authentication is only supported on local sockets"},
	    {"host all all all md5 clientcert=verify-full\n",
	     "t:1: authentication option \"clientcert=verify-full\" is not supported"},
	    {"host all +admins all md5\n", "t:1: role membership (+role) is not supported"},
	    {"host \"unterminated all all md5\n", "t:1: unterminated quoted string"},
	    {"local all all\n", "t:1: end-of-line before authentication method"},
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++) {
		pgw_hba *h = NULL;
		util_err e;
		assert_int_equal(pgw_hba_parse(bad[i].text, "t", &h, &e), -1);
		assert_null(h);
		assert_string_equal(util_errcode_sqlstate(e.code), "F0000");
		assert_string_equal(e.message, bad[i].msg);
	}
}

static void test_lists_with_spaces(void **state)
{
	(void)state;
	pgw_hba *h;
	util_err e;
	assert_int_equal(pgw_hba_parse("host a, b  x,y 0.0.0.0/0 md5\n", "t", &h, &e), 0);
	int line;
	assert_int_equal(match(h, false, "1.1.1.1", false, "y", "b", &line), PGW_AUTH_MD5);
	assert_int_equal(match(h, false, "1.1.1.1", false, "z", "b", &line), PGW_AUTH_NO_MATCH);
	pgw_hba_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_match),
	    cmocka_unit_test(test_default),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_lists_with_spaces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
