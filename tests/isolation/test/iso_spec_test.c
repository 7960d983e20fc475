/* iso_spec_test.c — unit tests of the isolation spec parser: PostgreSQL's
 * layout and the braced session layout, quoted names, comments, SQL block
 * trimming, permutations, and the errors for malformed specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "iso_spec.h"

static void test_pg_layout(void **state)
{
	(void)state;
	const char *text = "# comment\n"
			   "setup { CREATE TABLE t (id int); }\n"
			   "setup\n{\n  INSERT INTO t VALUES (1);\n}\n"
			   "teardown { DROP TABLE t; }\n"
			   "session s1\n"
			   "setup { BEGIN; }\n"
			   "step s1a { SELECT * FROM t; }   # trailing comment\n"
			   "step \"s1 b\" { COMMIT; }\n"
			   "teardown { ROLLBACK; }\n"
			   "session \"s\"\"2\"\n"
			   "step s2a { UPDATE t SET id = 2; }\n"
			   "permutation s1a s2a \"s1 b\"\n"
			   "permutation s2a\n  s1a \"s1 b\"\n";
	char err[256];
	iso_spec *s = iso_spec_parse(text, err, sizeof err);
	assert_non_null(s);
	assert_int_equal(s->nsetups, 2);
	assert_string_equal(s->setups[0], "CREATE TABLE t (id int);");
	assert_string_equal(s->setups[1], "INSERT INTO t VALUES (1);");
	assert_string_equal(s->teardown, "DROP TABLE t;");
	assert_int_equal(s->nsessions, 2);
	assert_string_equal(s->sessions[0]->name, "s1");
	assert_string_equal(s->sessions[0]->setup, "BEGIN;");
	assert_string_equal(s->sessions[0]->teardown, "ROLLBACK;");
	assert_int_equal(s->sessions[0]->nsteps, 2);
	assert_string_equal(s->sessions[0]->steps[1]->name, "s1 b");
	assert_string_equal(s->sessions[1]->name, "s\"2");
	assert_null(s->sessions[1]->setup);
	assert_int_equal(s->sessions[1]->steps[0]->session, 1);
	assert_int_equal(s->nperms, 2);
	assert_int_equal(s->perms[0]->nsteps, 3);
	assert_string_equal(s->perms[0]->steps[1]->name, "s2a");
	assert_string_equal(s->perms[1]->steps[0]->name, "s2a");
	assert_string_equal(s->perms[1]->steps[2]->name, "s1 b");
	iso_spec_free(s);
}

static void test_braced_sessions(void **state)
{
	(void)state;
	const char *text = "setup { CREATE TABLE t (id int) }\n"
			   "session s1 {\n"
			   "  setup { SET lock_timeout = '1s' }\n"
			   "  step s1a { SELECT 1 }\n"
			   "  step s1b {\n    UPDATE t\n    SET id = 3;\n  }\n"
			   "}\n"
			   "session s2 { step s2a { SELECT 2 } teardown { COMMIT } }\n";
	char err[256];
	iso_spec *s = iso_spec_parse(text, err, sizeof err);
	assert_non_null(s);
	assert_int_equal(s->nsessions, 2);
	assert_string_equal(s->sessions[0]->setup, "SET lock_timeout = '1s'");
	assert_string_equal(s->sessions[0]->steps[1]->sql, "UPDATE t\n    SET id = 3;");
	assert_string_equal(s->sessions[1]->teardown, "COMMIT");
	assert_int_equal(s->nperms, 0);
	iso_spec_free(s);
}

static void expect_error(const char *text, const char *msg)
{
	char err[256];
	iso_spec *s = iso_spec_parse(text, err, sizeof err);
	assert_null(s);
	if (!strstr(err, msg))
		fail_msg("error \"%s\" does not contain \"%s\"", err, msg);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("setup { SELECT 1 }\n", "line 2: expected a session");
	expect_error("session s1\nstep a { SELECT 1 }\nstep a { SELECT 2 }\n",
		     "line 3: duplicate step name \"a\"");
	expect_error("session s1\nstep a { SELECT 1 }\nsession s1 step b { SELECT 1 }",
		     "duplicate session name");
	expect_error("session s1\nstep a { SELECT 1 }\npermutation a b\n",
		     "line 3: permutation names unknown step \"b\"");
	expect_error("session s1\nstep a { SELECT 1 \n", "line 2: unterminated SQL block");
	expect_error("session s1\nstep a SELECT 1", "expected { SQL }");
	expect_error("session s1\n", "session \"s1\" has no steps");
	expect_error("session s1 { step a { SELECT 1 }\n", "expected } to close session");
	expect_error("session s1\nstep a { SELECT 1 }\npermutation a(b)\n", "blocker annotations");
	expect_error("session s1\nstep a { SELECT 1 }\npermutation\n", "empty permutation");
	expect_error("session s1\nstep \"a { SELECT 1 }\n", "unterminated quoted step name");
	expect_error("session step\n", "found keyword \"step\"");
	expect_error("session s1\nstep a { SELECT 1 }\nbogus\n", "line 3: unexpected text \"bogus");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pg_layout),
	    cmocka_unit_test(test_braced_sessions),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
