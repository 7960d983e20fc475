/* wire_plancache_test.c — cached plans and the catalog: the unnamed statement Parsed again with
 * the same text (PQexecParams, as drivers and pgbench -M extended do) must see DDL made between
 * two Parses on the same session and on another one, and a search_path change; a named prepared
 * statement whose result shape changes with ALTER TABLE fails as in PostgreSQL 15 ("cached plan
 * must not change result type", 0A000, until the shape is back); privileges are checked again
 * after GRANT/REVOKE and SET ROLE although the plan's check is remembered; BEGIN / COMMIT /
 * ROLLBACK Parsed again and again (cached as well) still open and end blocks. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_test.h"

/* Runs text as an unnamed Parse/Bind/Execute with one text parameter. */
static PGresult *xp(PGconn *c, const char *text, const char *param)
{
	const char *vals[1] = {param};
	return PQexecParams(c, text, param ? 1 : 0, NULL, param ? vals : NULL, NULL, NULL, 0);
}

static void ok(PGconn *c, const char *sql)
{
	PGresult *r = PQexec(c, sql);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql,
	      PQresultErrorMessage(r));
	PQclear(r);
}

static void test_ddl_same_session(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	ok(c, "create table pc_t1 (a int primary key, b text)");
	ok(c, "insert into pc_t1 values (1, 'one'), (2, 'two')");
	const char *q = "select * from pc_t1 where a = $1";
	for (int i = 0; i < 3; i++) { /* cached after the first */
		PGresult *r = xp(c, q, "2");
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 2 && PQntuples(r) == 1 &&
			  !strcmp(PQgetvalue(r, 0, 1), "two"),
		      "before: %s", PQresultErrorMessage(r));
		PQclear(r);
	}
	ok(c, "alter table pc_t1 add column c int default 7");
	PGresult *r = xp(c, q, "2");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 3 && !strcmp(PQgetvalue(r, 0, 2), "7"),
	      "after ADD COLUMN: %s, %d fields", PQresultErrorMessage(r), PQnfields(r));
	PQclear(r);
	ok(c, "alter table pc_t1 drop column b");
	r = xp(c, q, "2");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 2 && !strcmp(PQfname(r, 1), "c"),
	      "after DROP COLUMN: %s", PQresultErrorMessage(r));
	PQclear(r);
	/* Dropped and made again with another key type: the parameter's
	 * type follows (text now). */
	ok(c, "drop table pc_t1");
	r = xp(c, q, "2");
	CHECK(strcmp(wt_sqlstate(r), "42P01") == 0, "dropped: %s", wt_sqlstate(r));
	PQclear(r);
	ok(c, "create table pc_t1 (a text primary key, z int)");
	ok(c, "insert into pc_t1 values ('x', 5)");
	r = xp(c, q, "x");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQftype(r, 0) == 25 &&
		  !strcmp(PQgetvalue(r, 0, 1), "5"),
	      "recreated: %s", PQresultErrorMessage(r));
	PQclear(r);
	/* DDL inside a transaction block, between two Parses of the text,
	 * then rolled back. */
	ok(c, "begin");
	ok(c, "alter table pc_t1 add column w int default 9");
	r = xp(c, q, "x");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 3, "in block: %s %d",
	      PQresultErrorMessage(r), PQnfields(r));
	PQclear(r);
	ok(c, "rollback");
	r = xp(c, q, "x");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 2, "after rollback: %s %d",
	      PQresultErrorMessage(r), PQnfields(r));
	PQclear(r);
	ok(c, "drop table pc_t1");
	PQfinish(c);
}

static void test_ddl_other_session(fixture_server *fx)
{
	PGconn *a = wt_connect(fx, NULL), *b = wt_connect(fx, NULL);
	if (!a || !b) {
		PQfinish(a);
		PQfinish(b);
		return;
	}
	ok(b, "create table pc_t2 (id int primary key, v int)");
	ok(b, "insert into pc_t2 select g, g * 10 from generate_series(1, 20) g");
	const char *q = "select * from pc_t2 where id = $1";
	for (int i = 0; i < 3; i++) {
		PGresult *r = xp(a, q, "3");
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 2 &&
			  !strcmp(PQgetvalue(r, 0, 1), "30"),
		      "%s", PQresultErrorMessage(r));
		PQclear(r);
	}
	ok(b, "alter table pc_t2 add column w text default 'new'");
	PGresult *r = xp(a, q, "3");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) == 3 &&
		  !strcmp(PQgetvalue(r, 0, 2), "new"),
	      "other session's ADD COLUMN: %s %d", PQresultErrorMessage(r), PQnfields(r));
	PQclear(r);
	/* An index made by the other session is used (same rows either way). */
	ok(b, "create index pc_t2_v on pc_t2 (v)");
	r = xp(a, "select id from pc_t2 where v = $1", "70");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "7"),
	      "%s", PQresultErrorMessage(r));
	PQclear(r);
	ok(b, "drop table pc_t2");
	r = xp(a, q, "3");
	CHECK(strcmp(wt_sqlstate(r), "42P01") == 0, "other session's DROP: %s", wt_sqlstate(r));
	PQclear(r);
	PQfinish(a);
	PQfinish(b);
}

static void test_search_path(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	ok(c, "create schema pc_s1");
	ok(c, "create schema pc_s2");
	ok(c, "create table pc_s1.pc_sp (k int, v text)");
	ok(c, "create table pc_s2.pc_sp (k int, v text)");
	ok(c, "insert into pc_s1.pc_sp values (1, 'first')");
	ok(c, "insert into pc_s2.pc_sp values (1, 'second')");
	const char *q = "select v from pc_sp where k = $1";
	const char *want[4] = {"first", "second", "first", "second"};
	for (int i = 0; i < 4; i++) {
		ok(c, i % 2 ? "set search_path = pc_s2" : "set search_path = pc_s1");
		for (int j = 0; j < 2; j++) {
			PGresult *r = xp(c, q, "1");
			CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 &&
				  !strcmp(PQgetvalue(r, 0, 0), want[i]),
			      "search_path %d: %s %s", i, PQresultErrorMessage(r),
			      PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
			PQclear(r);
		}
	}
	ok(c, "reset search_path");
	ok(c, "drop schema pc_s1 cascade");
	ok(c, "drop schema pc_s2 cascade");
	PQfinish(c);
}

static void expect_shape_error(PGconn *c, const char *name, const char *what)
{
	const char *vals[1] = {"1"};
	PGresult *r = PQexecPrepared(c, name, 1, vals, NULL, NULL, 0);
	CHECK(strcmp(wt_sqlstate(r), "0A000") == 0 &&
		  strstr(PQresultErrorMessage(r), "cached plan must not change result type"),
	      "%s: %s %s", what, wt_sqlstate(r), PQresultErrorMessage(r));
	PQclear(r);
}

static int exec_named(PGconn *c, const char *name, int *nfields)
{
	const char *vals[1] = {"1"};
	PGresult *r = PQexecPrepared(c, name, 1, vals, NULL, NULL, 0);
	int ok = PQresultStatus(r) == PGRES_TUPLES_OK;
	CHECK(ok, "%s: %s", name, PQresultErrorMessage(r));
	*nfields = PQnfields(r);
	PQclear(r);
	return ok;
}

static void test_prepared_after_alter(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL), *o = wt_connect(fx, NULL);
	if (!c || !o) {
		PQfinish(c);
		PQfinish(o);
		return;
	}
	ok(c, "create table pc_t3 (a int primary key, b text)");
	ok(c, "insert into pc_t3 values (1, 'x')");
	PQclear(PQprepare(c, "pc_star", "select * from pc_t3 where a = $1", 0, NULL));
	PQclear(PQprepare(c, "pc_ab", "select a, b from pc_t3 where a = $1", 0, NULL));
	int nf = 0;
	exec_named(c, "pc_star", &nf);
	CHECK(nf == 2, "fields %d", nf);
	/* A column added (by another session): * changes shape, a, b does not. */
	ok(o, "alter table pc_t3 add column c int default 7");
	expect_shape_error(c, "pc_star", "after ADD COLUMN");
	expect_shape_error(c, "pc_star", "again"); /* stays invalid */
	if (exec_named(c, "pc_ab", &nf))
		CHECK(nf == 2, "pc_ab fields %d", nf);
	/* The shape back as it was: the statement works again. */
	ok(o, "alter table pc_t3 drop column c");
	if (exec_named(c, "pc_star", &nf))
		CHECK(nf == 2, "fields after DROP COLUMN %d", nf);
	/* A column's type changed: its result type changes. */
	ok(c, "alter table pc_t3 alter column b type varchar(10)");
	expect_shape_error(c, "pc_ab", "after ALTER COLUMN TYPE");
	/* Describe revalidates too. */
	PGresult *r = PQdescribePrepared(c, "pc_ab");
	CHECK(strcmp(wt_sqlstate(r), "0A000") == 0, "describe: %s", wt_sqlstate(r));
	PQclear(r);
	/* SQL-level PREPARE / EXECUTE follow the same rule. */
	ok(c, "prepare pc_sql as select * from pc_t3");
	ok(c, "execute pc_sql");
	ok(c, "alter table pc_t3 rename column b to bb");
	wt_exec_error(c, "execute pc_sql", "0A000");
	/* A new Parse of the same text is a new statement with the new shape. */
	r = xp(c, "select * from pc_t3 where a = $1", "1");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && !strcmp(PQfname(r, 1), "bb"), "%s",
	      PQresultErrorMessage(r));
	PQclear(r);
	ok(c, "deallocate pc_sql");
	ok(c, "drop table pc_t3");
	PQfinish(c);
	PQfinish(o);
}

static void test_privileges(fixture_server *fx)
{
	PGconn *su = wt_connect(fx, NULL);
	if (!su)
		return;
	ok(su, "create role pc_user login");
	ok(su, "create table pc_t4 (a int primary key, b int)");
	ok(su, "insert into pc_t4 values (1, 10)");
	ok(su, "grant select on pc_t4 to pc_user");
	PGconn *u = wt_connect(fx, "user=pc_user dbname=postgres");
	if (!u) {
		PQfinish(su);
		return;
	}
	const char *q = "select b from pc_t4 where a = $1";
	PQclear(PQprepare(u, "pc_p", q, 0, NULL));
	int nf;
	for (int i = 0; i < 3; i++) {
		PGresult *r = xp(u, q, "1");
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && !strcmp(PQgetvalue(r, 0, 0), "10"), "%s",
		      PQresultErrorMessage(r));
		PQclear(r);
		exec_named(u, "pc_p", &nf);
	}
	ok(su, "revoke select on pc_t4 from pc_user");
	PGresult *r = xp(u, q, "1");
	CHECK(strcmp(wt_sqlstate(r), "42501") == 0, "unnamed after REVOKE: %s", wt_sqlstate(r));
	PQclear(r);
	const char *vals[1] = {"1"};
	r = PQexecPrepared(u, "pc_p", 1, vals, NULL, NULL, 0);
	CHECK(strcmp(wt_sqlstate(r), "42501") == 0, "named after REVOKE: %s", wt_sqlstate(r));
	PQclear(r);
	ok(su, "grant select on pc_t4 to pc_user");
	exec_named(u, "pc_p", &nf);
	/* The same statement, the same catalog, another role. */
	ok(su, "revoke select on pc_t4 from pc_user");
	PQclear(PQprepare(su, "pc_su", q, 0, NULL));
	exec_named(su, "pc_su", &nf);
	exec_named(su, "pc_su", &nf);
	ok(su, "set role pc_user");
	r = PQexecPrepared(su, "pc_su", 1, vals, NULL, NULL, 0);
	CHECK(strcmp(wt_sqlstate(r), "42501") == 0, "after SET ROLE: %s", wt_sqlstate(r));
	PQclear(r);
	ok(su, "reset role");
	exec_named(su, "pc_su", &nf);
	PQfinish(u);
	ok(su, "drop table pc_t4");
	ok(su, "drop role pc_user");
	PQfinish(su);
}

/* BEGIN / COMMIT / ROLLBACK through the unnamed statement, again and again
 * (they are cached too): each still opens and ends a block. */
static void test_transaction_statements(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	ok(c, "create table pc_t5 (a int primary key)");
	for (int i = 0; i < 4; i++) {
		PGresult *r = xp(c, "begin", NULL);
		CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && PQtransactionStatus(c) == PQTRANS_INTRANS,
		      "begin %d: %s", i, PQresultErrorMessage(r));
		PQclear(r);
		char v[16];
		snprintf(v, sizeof v, "%d", i);
		r = xp(c, "insert into pc_t5 values ($1)", v);
		CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
		PQclear(r);
		r = xp(c, i % 2 ? "rollback" : "commit", NULL);
		CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && PQtransactionStatus(c) == PQTRANS_IDLE &&
			  !strcmp(PQcmdStatus(r), i % 2 ? "ROLLBACK" : "COMMIT"),
		      "end %d: %s %s", i, PQresultErrorMessage(r), PQcmdStatus(r));
		PQclear(r);
	}
	/* A failed block: COMMIT ends it as a ROLLBACK. */
	PQclear(xp(c, "begin", NULL));
	PGresult *r = xp(c, "insert into pc_t5 values ($1)", "0");
	CHECK(strcmp(wt_sqlstate(r), "23505") == 0, "%s", wt_sqlstate(r));
	PQclear(r);
	r = xp(c, "commit", NULL);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && !strcmp(PQcmdStatus(r), "ROLLBACK") &&
		  PQtransactionStatus(c) == PQTRANS_IDLE,
	      "%s %s", PQresultErrorMessage(r), PQcmdStatus(r));
	PQclear(r);
	r = PQexec(c, "select count(*) from pc_t5");
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && !strcmp(PQgetvalue(r, 0, 0), "2"), "rows %s",
	      PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	ok(c, "drop table pc_t5");
	PQfinish(c);
}

/* Runs the named statement "pt" with a binary int4 parameter (NULL: a
 * NULL one) and binary results when binary is set. */
static PGresult *pt_exec(PGconn *c, const int *key, int binary)
{
	uint32_t be = 0;
	if (key)
		be = htonl((uint32_t)*key);
	const char *vals[1] = {key ? (const char *)&be : NULL};
	int lens[1] = {4}, fmts[1] = {1};
	return PQexecPrepared(c, "pt", 1, vals, lens, fmts, binary);
}

/* A primary-key point select by a named statement runs without the
 * executor (sql/exec_point.c): binary parameters and results, a NULL
 * parameter, a missing row, another session's commit, the transaction's
 * own writes, an index made and dropped between executions. */
static void test_point_read(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL), *c2 = wt_connect(fx, NULL);
	if (!c || !c2) {
		PQfinish(c);
		PQfinish(c2);
		return;
	}
	ok(c, "create table pc_pt (a int primary key, b bigint, t text)");
	ok(c, "insert into pc_pt values (1, 10, 'one'), (2, NULL, 'two')");
	PGresult *r = PQprepare(c, "pt", "select b, t, a from pc_pt where a = $1", 1, NULL);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "prepare: %s", PQresultErrorMessage(r));
	PQclear(r);
	for (int round = 0; round < 6; round++) {
		int one = 1, two = 2, three = 3;
		if (round == 2)
			ok(c2, "update pc_pt set b = 11 where a = 1");
		if (round == 3)
			ok(c, "create index pc_pt_t on pc_pt (t)");
		if (round == 4)
			ok(c, "drop index pc_pt_t");
		if (round == 5)
			ok(c, "alter table pc_pt add column z int default 5");
		const char *want_b = round >= 2 ? "11" : "10";
		r = pt_exec(c, &one, 0);
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQnfields(r) == 3 &&
			  !strcmp(PQgetvalue(r, 0, 0), want_b) && !strcmp(PQgetvalue(r, 0, 1), "one") &&
			  !strcmp(PQgetvalue(r, 0, 2), "1") && !strcmp(PQcmdStatus(r), "SELECT 1"),
		      "round %d text: %s %s", round, PQresultErrorMessage(r), PQcmdStatus(r));
		PQclear(r);
		r = pt_exec(c, &two, 1);
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQgetisnull(r, 0, 0) &&
			  PQfformat(r, 2) == 1 && PQgetlength(r, 0, 2) == 4 &&
			  ntohl(*(const uint32_t *)PQgetvalue(r, 0, 2)) == 2 && !strcmp(PQgetvalue(r, 0, 1), "two"),
		      "round %d binary: %s", round, PQresultErrorMessage(r));
		PQclear(r);
		r = pt_exec(c, &three, 0);
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0 && !strcmp(PQcmdStatus(r), "SELECT 0"),
		      "round %d missing: %s %s", round, PQresultErrorMessage(r), PQcmdStatus(r));
		PQclear(r);
		r = pt_exec(c, NULL, 0);
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0, "round %d NULL: %s", round,
		      PQresultErrorMessage(r));
		PQclear(r);
	}
	/* Own writes: seen inside the block, gone after ROLLBACK. */
	ok(c, "begin");
	ok(c, "update pc_pt set t = 'uno' where a = 1");
	ok(c, "insert into pc_pt values (3, 30, 'three')");
	int one = 1, three = 3;
	r = pt_exec(c, &one, 0);
	CHECK(PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 1), "uno"), "own update: %s", PQresultErrorMessage(r));
	PQclear(r);
	r = pt_exec(c, &three, 0);
	CHECK(PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "30"), "own insert: %s", PQresultErrorMessage(r));
	PQclear(r);
	ok(c, "rollback");
	r = pt_exec(c, &three, 0);
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0, "after rollback: %s",
	      PQresultErrorMessage(r));
	PQclear(r);
	/* A REPEATABLE READ block keeps its snapshot across another session's commit. */
	ok(c, "begin isolation level repeatable read");
	r = pt_exec(c, &one, 0);
	PQclear(r);
	ok(c2, "update pc_pt set b = 12 where a = 1");
	r = pt_exec(c, &one, 0);
	CHECK(PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "11"), "repeatable read: %s %s",
	      PQresultErrorMessage(r), PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	ok(c, "commit");
	r = pt_exec(c, &one, 0);
	CHECK(PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "12"), "after commit: %s", PQresultErrorMessage(r));
	PQclear(r);
	ok(c, "drop table pc_pt");
	r = pt_exec(c, &one, 0);
	CHECK(strcmp(wt_sqlstate(r), "42P01") == 0, "dropped: %s", wt_sqlstate(r));
	PQclear(r);
	PQfinish(c2);
	PQfinish(c);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"ddl_same_session", test_ddl_same_session},
	    {"ddl_other_session", test_ddl_other_session},
	    {"search_path", test_search_path},
	    {"prepared_after_alter", test_prepared_after_alter},
	    {"privileges", test_privileges},
	    {"transaction_statements", test_transaction_statements},
	    {"point_read", test_point_read},
	};
	return wt_main(argc, argv, "wire_plancache", NULL, cases, sizeof cases / sizeof cases[0]);
}
