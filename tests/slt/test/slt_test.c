/* slt_test.c — unit tests of the sqllogictest runner's parser, value formatting, sorting,
 * hashing, directory grouping and created-object tracking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "slt_exec.h"

static const char script[] = "hash-threshold 8\r\n"
			     "\r\n"
			     "statement ok\r\n"
			     "CREATE TABLE tab0(col0 INTEGER, col1 INTEGER, col2 INTEGER)\r\n"
			     "\r\n"
			     "# a comment\n"
			     "skipif postgresql # PostgreSQL requires AS\n"
			     "query I rowsort\n"
			     "SELECT 1 col1\n"
			     "----\n"
			     "1\n"
			     "\n"
			     "onlyif mysql\n"
			     "query I rowsort label-7\n"
			     "SELECT 9 DIV 2\n"
			     "----\n"
			     "4\n"
			     "\n"
			     "query III rowsort label-8\n"
			     "SELECT *\n"
			     "  FROM tab0\n"
			     "----\n"
			     "9 values hashing to 8ad40ad40eb1e471572580fddc8d2aaf\n"
			     "\n"
			     "query IT nosort\n"
			     "SELECT x, y FROM t1 WHERE x=2\n"
			     "----\n"
			     "\n"
			     "statement error\n"
			     "SELECT nope\n"
			     "\n"
			     "query T\n"
			     "SELECT 'no results checked'\n"
			     "\n"
			     "onlyif postgresql\n"
			     "halt\n";

static void test_parse(void **state)
{
	(void)state;
	slt_script s;
	char err[256];
	assert_int_equal(slt_script_parse(&s, "t.test", script, "postgresql", err, sizeof err), 0);
	assert_int_equal(s.n_recs, 9);
	assert_int_equal(s.recs[0].kind, SLT_HASH_THRESHOLD);
	assert_int_equal(s.recs[0].threshold, 8);
	assert_int_equal(s.recs[1].kind, SLT_STATEMENT_OK);
	assert_string_equal(s.recs[1].sql, "CREATE TABLE tab0(col0 INTEGER, col1 INTEGER, col2 INTEGER)");
	assert_int_equal(s.recs[1].line, 3);
	assert_true(s.recs[2].skip); /* skipif postgresql */
	assert_true(s.recs[3].skip); /* onlyif mysql */
	assert_string_equal(s.recs[3].label, "label-7");
	const slt_record *q = &s.recs[4];
	assert_false(q->skip);
	assert_int_equal(q->kind, SLT_QUERY);
	assert_string_equal(q->types, "III");
	assert_int_equal(q->sort, SLT_ROWSORT);
	assert_string_equal(q->label, "label-8");
	assert_string_equal(q->sql, "SELECT *\n  FROM tab0");
	assert_true(q->has_expected);
	assert_int_equal(q->n_expected, 1);
	assert_true(slt_is_hash_line(q->expected[0]));
	/* Empty expected result. */
	assert_true(s.recs[5].has_expected);
	assert_int_equal(s.recs[5].n_expected, 0);
	assert_int_equal(s.recs[5].sort, SLT_NOSORT);
	assert_int_equal(s.recs[6].kind, SLT_STATEMENT_ERROR);
	/* No "----": result not checked. */
	assert_false(s.recs[7].has_expected);
	assert_int_equal(s.recs[8].kind, SLT_HALT);
	assert_false(s.recs[8].skip);
	slt_script_free(&s);

	/* The same script for another engine flips the conditions. */
	assert_int_equal(slt_script_parse(&s, "t.test", script, "mysql", err, sizeof err), 0);
	assert_false(s.recs[2].skip);
	assert_false(s.recs[3].skip);
	assert_true(s.recs[8].skip);
	slt_script_free(&s);
}

static void test_parse_errors(void **state)
{
	(void)state;
	slt_script s;
	char err[256];
	assert_int_equal(slt_script_parse(&s, "t.test", "query X\nSELECT 1\n", "postgresql", err, sizeof err),
			 -1);
	assert_non_null(strstr(err, "t.test:1"));
	assert_int_equal(
	    slt_script_parse(&s, "t.test", "\nstatement maybe\nSELECT 1\n", "postgresql", err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "t.test:2"));
	assert_int_equal(slt_script_parse(&s, "t.test", "bogus\n", "postgresql", err, sizeof err), -1);
	assert_int_equal(slt_script_parse(&s, "t.test", "hash-threshold x\n", "postgresql", err, sizeof err),
			 -1);
	assert_int_equal(slt_script_parse(&s, "t.test", "statement ok\n\n", "postgresql", err, sizeof err),
			 -1);
	assert_int_equal(slt_script_parse(&s, "t.test", "skipif\nhalt\n", "postgresql", err, sizeof err), -1);
}

static void check_fmt(char type, const char *raw, bool is_bool, const char *want)
{
	char *got = slt_format_value(type, raw, is_bool);
	assert_string_equal(got, want);
	free(got);
}

static void test_format(void **state)
{
	(void)state;
	check_fmt('I', NULL, false, "NULL");
	check_fmt('T', NULL, false, "NULL");
	check_fmt('R', NULL, false, "NULL");
	check_fmt('I', "42", false, "42");
	check_fmt('I', "-7", false, "-7");
	check_fmt('I', "9223372036854775807", false, "9223372036854775807");
	/* Reals and numerics read as integers truncate toward zero. */
	check_fmt('I', "45.6666666666666667", false, "45");
	check_fmt('I', "-2.9", false, "-2");
	check_fmt('I', "1e3", false, "1000");
	check_fmt('I', "abc", false, "0");
	check_fmt('I', "t", true, "1");
	check_fmt('I', "f", true, "0");
	check_fmt('R', "81.46", false, "81.460");
	check_fmt('R', "2", false, "2.000");
	check_fmt('R', "-0.0005", false, "-0.001");
	check_fmt('T', "", false, "(empty)");
	check_fmt('T', "insert or replace", false, "insert or replace");
	check_fmt('T', "a\tb\xc3\xa9", false, "a@b@@");
	check_fmt('T', "12", false, "12");
}

static void test_sort_and_hash(void **state)
{
	(void)state;
	/* SQLite's own vector: tab0 = (83,0,38),(26,0,79),(43,81,24), rowsort. */
	const char *rows[] = {"83", "0", "38", "26", "0", "79", "43", "81", "24"};
	slt_result r = {.n_rows = 3, .n_cols = 3};
	r.vals = calloc(9, sizeof(char *));
	for (int i = 0; i < 9; i++)
		r.vals[i] = strdup(rows[i]);
	slt_result_sort(&r, SLT_ROWSORT);
	assert_string_equal(r.vals[0], "26");
	assert_string_equal(r.vals[2], "79");
	assert_string_equal(r.vals[6], "83");
	char h[80];
	slt_result_hash(&r, h);
	assert_string_equal(h, "9 values hashing to 8ad40ad40eb1e471572580fddc8d2aaf");
	assert_true(slt_is_hash_line(h));
	/* valuesort orders every value on its own, as strings. */
	slt_result_sort(&r, SLT_VALUESORT);
	assert_string_equal(r.vals[0], "0");
	assert_string_equal(r.vals[1], "0");
	assert_string_equal(r.vals[2], "24");
	assert_string_equal(r.vals[8], "83");
	slt_result_free(&r);

	slt_result empty = {.n_rows = 0, .n_cols = 2};
	slt_result_hash(&empty, h);
	assert_string_equal(h, "0 values hashing to d41d8cd98f00b204e9800998ecf8427e");
	assert_false(slt_is_hash_line("9 values hashing to 8ad40ad4"));
	assert_false(slt_is_hash_line("x values hashing to 8ad40ad40eb1e471572580fddc8d2aaf"));
}

static void test_group(void **state)
{
	(void)state;
	char g[256];
	slt_group_of("index/between/1/slt_good_0.test", g, sizeof g);
	assert_string_equal(g, "index/between");
	slt_group_of("index/view/10/slt_good_3.test", g, sizeof g);
	assert_string_equal(g, "index/view");
	slt_group_of("evidence/in1.test", g, sizeof g);
	assert_string_equal(g, "evidence");
	slt_group_of("x.test", g, sizeof g);
	assert_string_equal(g, ".");
	slt_group_of("10/x.test", g, sizeof g);
	assert_string_equal(g, "10");
}

static void test_track(void **state)
{
	(void)state;
	slt_objects o = {0};
	slt_track(&o, "CREATE TABLE tab0(col0 INTEGER)");
	slt_track(&o, "create temp table \"Mixed\" (x int)");
	slt_track(&o, "CREATE VIEW view_1 AS SELECT 1");
	slt_track(&o, "CREATE OR REPLACE VIEW view_1 AS SELECT 2");
	slt_track(&o, "CREATE TABLE IF NOT EXISTS s.T2 (x int)");
	slt_track(&o, "CREATE INDEX i1 ON tab0(col0)");
	slt_track(&o, "INSERT INTO tab0 VALUES(1)");
	assert_int_equal(o.n, 4);
	assert_string_equal(o.objs[0].name, "tab0");
	assert_string_equal(o.objs[1].name, "\"Mixed\"");
	assert_int_equal(o.objs[2].kind, 'V');
	assert_string_equal(o.objs[3].name, "s.t2");
	slt_track(&o, "DROP TABLE IF EXISTS tab0, s.t2");
	slt_track(&o, "DROP VIEW view_1");
	assert_int_equal(o.n, 1);
	assert_string_equal(o.objs[0].name, "\"Mixed\"");
	slt_objects_free(&o);
}

static void test_thresholds(void **state)
{
	(void)state;
	char path[] = "/tmp/slt_thr_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("# comment\nindex/in 99.5\n* 10 # default\n", f);
	fclose(f);
	slt_report rep;
	memset(&rep, 0, sizeof rep);
	char err[256];
	assert_int_equal(slt_report_load_thresholds(&rep, path, err, sizeof err), 0);
	assert_true(slt_threshold_for(&rep, "index/in") == 99.5);
	assert_true(slt_threshold_for(&rep, "evidence") == 10);
	slt_dir_stats *d = slt_report_dir(&rep, "index/in");
	d->passed = 995;
	d->failed = 5;
	d = slt_report_dir(&rep, "evidence");
	d->passed = 1;
	d->failed = 99;
	FILE *devnull = fopen("/dev/null", "w");
	assert_int_equal(slt_report_print(&rep, devnull), 1);
	fclose(devnull);
	slt_report_free(&rep);
	f = fopen(path, "w");
	fputs("index/in lots\n", f);
	fclose(f);
	memset(&rep, 0, sizeof rep);
	assert_int_equal(slt_report_load_thresholds(&rep, path, err, sizeof err), -1);
	remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),      cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_format),     cmocka_unit_test(test_sort_and_hash),
	    cmocka_unit_test(test_group),      cmocka_unit_test(test_track),
	    cmocka_unit_test(test_thresholds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
