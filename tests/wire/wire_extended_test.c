/* wire_extended_test.c — the extended query protocol: prepared statements, Describe, binary
 * parameters and results, pipelines (libpq pipeline mode), row limits with PortalSuspended,
 * skip-to-Sync after errors, Flush, Close and empty queries (the last ones over raw sockets,
 * message for message as PostgreSQL 15 answers). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_test.h"

static void test_prepared(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	Oid types[1] = {23};
	PGresult *r = PQprepare(c, "wire_s1", "select $1::int + 1", 1, types);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "prepare: %s", PQresultErrorMessage(r));
	PQclear(r);
	const char *vals[1] = {"41"};
	r = PQexecPrepared(c, "wire_s1", 1, vals, NULL, NULL, 0);
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "42") == 0, "%s %s",
	      PQresultErrorMessage(r), PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	/* binary parameter and binary result */
	uint32_t be = htonl(99);
	const char *bvals[1] = {(const char *)&be};
	int lens[1] = {4}, fmts[1] = {1};
	r = PQexecPrepared(c, "wire_s1", 1, bvals, lens, fmts, 1);
	if (PQresultStatus(r) == PGRES_TUPLES_OK) {
		CHECK(PQfformat(r, 0) == 1 && PQgetlength(r, 0, 0) == 4, "format %d length %d",
		      PQfformat(r, 0), PQgetlength(r, 0, 0));
		uint32_t v;
		memcpy(&v, PQgetvalue(r, 0, 0), 4);
		CHECK(ntohl(v) == 100, "binary result %u", ntohl(v));
	} else {
		CHECK(false, "binary: %s", PQresultErrorMessage(r));
	}
	PQclear(r);
	/* a name in use */
	r = PQprepare(c, "wire_s1", "select 1", 0, NULL);
	CHECK(strcmp(wt_sqlstate(r), "42P05") == 0, "duplicate: %s", wt_sqlstate(r));
	PQclear(r);
	/* the session is still fine after the error (Sync ended it) */
	r = PQexecPrepared(c, "wire_s1", 1, vals, NULL, NULL, 0);
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK, "%s", PQresultErrorMessage(r));
	PQclear(r);
	r = PQexecPrepared(c, "wire_nope", 0, NULL, NULL, NULL, 0);
	CHECK(strcmp(wt_sqlstate(r), "26000") == 0, "unknown statement: %s", wt_sqlstate(r));
	PQclear(r);
	PQfinish(c);
}

static void test_describe(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	PGresult *r = PQprepare(c, "wire_d1", "select $1::int + 1", 0, NULL);
	PQclear(r);
	r = PQdescribePrepared(c, "wire_d1");
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(PQnparams(r) == 1 && PQparamtype(r, 0) == 23, "params %d type %u", PQnparams(r),
	      PQnparams(r) ? PQparamtype(r, 0) : 0);
	CHECK(PQnfields(r) == 1 && PQftype(r, 0) == 23, "fields %d", PQnfields(r));
	PQclear(r);
	/* a statement without rows: NoData */
	PQclear(PQprepare(c, "wire_d2", "begin", 0, NULL));
	r = PQdescribePrepared(c, "wire_d2");
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && PQnfields(r) == 0 && PQnparams(r) == 0, "%s",
	      PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

static void test_exec_params(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	const char *vals[1] = {"x\xc3\xa9"};
	PGresult *r = PQexecParams(c, "select $1::text", 1, NULL, vals, NULL, NULL, 0);
	CHECK(PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "x\xc3\xa9") == 0, "%s",
	      PQresultErrorMessage(r));
	PQclear(r);
	/* invalid UTF-8 in a text parameter */
	const char *bad[1] = {"\xff"};
	r = PQexecParams(c, "select $1::text", 1, NULL, bad, NULL, NULL, 0);
	CHECK(strcmp(wt_sqlstate(r), "22021") == 0, "bad param: %s %s", wt_sqlstate(r),
	      PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
}

static void test_pipeline(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	CHECK(PQenterPipelineMode(c) == 1, "%s", PQerrorMessage(c));
	const char *v1[1] = {"1"}, *v2[1] = {"2"};
	PQsendQueryParams(c, "select $1::int + 1", 1, NULL, v1, NULL, NULL, 0);
	PQsendQueryParams(c, "select 1/0", 0, NULL, NULL, NULL, NULL, 0);
	PQsendQueryParams(c, "select $1::int + 1", 1, NULL, v2, NULL, NULL, 0);
	PQpipelineSync(c);
	PQsendQueryParams(c, "select $1::int + 1", 1, NULL, v2, NULL, NULL, 0);
	PQpipelineSync(c);
	/* results: ok, error, aborted, sync, ok, sync */
	ExecStatusType want[] = {PGRES_TUPLES_OK,     PGRES_FATAL_ERROR, PGRES_PIPELINE_ABORTED,
				 PGRES_PIPELINE_SYNC, PGRES_TUPLES_OK,   PGRES_PIPELINE_SYNC};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		PGresult *r = PQgetResult(c);
		if (!r) /* end of one query's results */
			r = PQgetResult(c);
		CHECK(r && PQresultStatus(r) == want[i], "result %zu: %s, want %s (%s)", i,
		      r ? PQresStatus(PQresultStatus(r)) : "none", PQresStatus(want[i]),
		      r ? PQresultErrorMessage(r) : "");
		if (r && i == 0 && PQresultStatus(r) == PGRES_TUPLES_OK)
			CHECK(strcmp(PQgetvalue(r, 0, 0), "2") == 0, "%s", PQgetvalue(r, 0, 0));
		if (r && i == 4 && PQresultStatus(r) == PGRES_TUPLES_OK)
			CHECK(strcmp(PQgetvalue(r, 0, 0), "3") == 0, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	CHECK(PQexitPipelineMode(c) == 1, "%s", PQerrorMessage(c));
	/* many queries in one pipeline */
	PQenterPipelineMode(c);
	for (int i = 0; i < 500; i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", i);
		const char *v[1] = {num};
		PQsendQueryParams(c, "select $1::int + 1", 1, NULL, v, NULL, NULL, 0);
	}
	PQpipelineSync(c);
	int ok = 0;
	for (int i = 0; i < 500; i++) {
		PGresult *r = PQgetResult(c);
		if (r && PQresultStatus(r) == PGRES_TUPLES_OK && atoi(PQgetvalue(r, 0, 0)) == i + 1)
			ok++;
		PQclear(r);
		PQclear(PQgetResult(c)); /* the NULL after each query */
	}
	PGresult *s = PQgetResult(c);
	CHECK(s && PQresultStatus(s) == PGRES_PIPELINE_SYNC, "no sync");
	PQclear(s);
	CHECK(ok == 500, "%d of 500 pipelined results", ok);
	PQexitPipelineMode(c);
	PQfinish(c);
}

/* ---- raw protocol ---- */

static void parse(raw_conn *r, const char *name, const char *q)
{
	raw_buf b;
	rb_reset(&b);
	rb_str(&b, name);
	rb_str(&b, q);
	rb_i16(&b, 0);
	raw_send_msg(r, 'P', b.data, b.len);
}

static void bind_msg(raw_conn *r, const char *portal, const char *stmt)
{
	raw_buf b;
	rb_reset(&b);
	rb_str(&b, portal);
	rb_str(&b, stmt);
	rb_i16(&b, 0);
	rb_i16(&b, 0);
	rb_i16(&b, 0);
	raw_send_msg(r, 'B', b.data, b.len);
}

static void execute(raw_conn *r, const char *portal, int maxrows)
{
	raw_buf b;
	rb_reset(&b);
	rb_str(&b, portal);
	rb_i32(&b, maxrows);
	raw_send_msg(r, 'E', b.data, b.len);
}

static void describe(raw_conn *r, char kind, const char *name)
{
	raw_buf b;
	rb_reset(&b);
	rb_i8(&b, kind);
	rb_str(&b, name);
	raw_send_msg(r, 'D', b.data, b.len);
}

static void close_msg(raw_conn *r, char kind, const char *name)
{
	raw_buf b;
	rb_reset(&b);
	rb_i8(&b, kind);
	rb_str(&b, name);
	raw_send_msg(r, 'C', b.data, b.len);
}

static void sync_msg(raw_conn *r)
{
	raw_send_msg(r, 'S', NULL, 0);
}

#define TRACE(r, want)                                                                                       \
	do {                                                                                                 \
		char st_[8];                                                                                 \
		const char *got_ = raw_trace(r, 10000, st_);                                                 \
		CHECK(strcmp(got_, want) == 0, "got \"%s\", want \"%s\" (%s)", got_, want, st_);             \
	} while (0)

/* The exchange pgjdbc has with fetchSize=2 (reference trace extra/pgjdbc_fetchsize.log). */
static void test_portal_suspended(fixture_server *fx)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	parse(&r, "S_2", "BEGIN");
	bind_msg(&r, "", "S_2");
	execute(&r, "", 0);
	parse(&r, "S_3", "select generate_series(1,5)");
	bind_msg(&r, "C_4", "S_3");
	describe(&r, 'P', "C_4");
	execute(&r, "C_4", 2);
	sync_msg(&r);
	TRACE(&r, "1 2 C 1 2 T D D s Z");
	CHECK(r.blen == 1 && r.body[0] == 'T', "status %c", r.blen ? r.body[0] : '?');
	execute(&r, "C_4", 2);
	sync_msg(&r);
	TRACE(&r, "D D s Z");
	execute(&r, "C_4", 2);
	sync_msg(&r);
	TRACE(&r, "D C Z");
	close_msg(&r, 'P', "C_4");
	parse(&r, "S_5", "COMMIT");
	bind_msg(&r, "", "S_5");
	execute(&r, "", 1);
	sync_msg(&r);
	TRACE(&r, "3 1 2 C Z");
	CHECK(r.blen == 1 && r.body[0] == 'I', "status %c", r.blen ? r.body[0] : '?');
	raw_close(&r);
}

static void test_skip_to_sync(fixture_server *fx)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	/* an error in Parse: Bind, Describe, Execute are skipped until Sync */
	parse(&r, "", "selec 1");
	bind_msg(&r, "", "");
	describe(&r, 'P', "");
	execute(&r, "", 0);
	sync_msg(&r);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(st, "42601") == 0, "%s (%s)", t, st);
	/* and a Query in the skipped stretch is skipped too */
	parse(&r, "", "select 1/(select 0)"); /* fails in Execute, not at plan time */
	bind_msg(&r, "", "");
	execute(&r, "", 0);
	raw_send_msg(&r, 'Q', "select 1", 9);
	parse(&r, "", "select 2");
	sync_msg(&r);
	t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "1 2 E Z") == 0 && strcmp(st, "22012") == 0, "%s (%s)", t, st);
	/* afterwards all is normal; Execute without Describe sends no RowDescription */
	parse(&r, "", "select 2");
	bind_msg(&r, "", "");
	execute(&r, "", 0);
	sync_msg(&r);
	TRACE(&r, "1 2 D C Z");
	raw_close(&r);
}

static void test_flush_close_empty(fixture_server *fx)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	/* Flush delivers what is pending without a Sync */
	parse(&r, "wire_f", "select 1");
	raw_send_msg(&r, 'H', NULL, 0);
	CHECK(raw_read(&r, 10000) == 1 && r.type == '1', "no ParseComplete after Flush (%c)", r.type);
	/* Describe statement: ParameterDescription then RowDescription */
	describe(&r, 'S', "wire_f");
	sync_msg(&r);
	TRACE(&r, "t T Z");
	/* Close a statement and a portal (even one that does not exist) */
	close_msg(&r, 'S', "wire_f");
	close_msg(&r, 'P', "no_such_portal");
	sync_msg(&r);
	TRACE(&r, "3 3 Z");
	/* the closed statement is gone */
	bind_msg(&r, "", "wire_f");
	sync_msg(&r);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(st, "26000") == 0, "%s (%s)", t, st);
	/* an empty query string: EmptyQueryResponse, and NoData for Describe */
	parse(&r, "", "");
	bind_msg(&r, "", "");
	describe(&r, 'P', "");
	execute(&r, "", 0);
	sync_msg(&r);
	TRACE(&r, "1 2 n I Z");
	raw_close(&r);
}

static void test_bind_errors(fixture_server *fx)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	/* parameter count mismatch */
	parse(&r, "wire_b", "select $1::int + 1");
	bind_msg(&r, "", "wire_b");
	sync_msg(&r);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "1 E Z") == 0 && strcmp(st, "08P01") == 0, "%s (%s)", t, st);
	CHECK(strcmp(r.err_msg,
		     "bind message supplies 0 parameters, but prepared statement \"wire_b\" requires 1") == 0,
	      "%s", r.err_msg);
	/* two parameter formats for one parameter */
	raw_buf b;
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "wire_b");
	rb_i16(&b, 2);
	rb_i16(&b, 0);
	rb_i16(&b, 0);
	rb_i16(&b, 1);
	rb_i32(&b, 1);
	rb_bytes(&b, "5", 1);
	rb_i16(&b, 0);
	raw_send_msg(&r, 'B', b.data, b.len);
	sync_msg(&r);
	t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(st, "08P01") == 0, "%s (%s)", t, st);
	/* a binary int4 with a byte too many: PostgreSQL's Bind names the parameter */
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "wire_b");
	rb_i16(&b, 1);
	rb_i16(&b, 1);
	rb_i16(&b, 1);
	rb_i32(&b, 5);
	rb_bytes(&b, "\0\0\0\1\0", 5);
	rb_i16(&b, 0);
	raw_send_msg(&r, 'B', b.data, b.len);
	sync_msg(&r);
	t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(st, "22P03") == 0, "%s (%s)", t, st);
	CHECK(strcmp(r.err_msg, "incorrect binary data format in bind parameter 1") == 0, "%s", r.err_msg);
	raw_close(&r);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"prepared", test_prepared},
	    {"describe", test_describe},
	    {"exec_params", test_exec_params},
	    {"pipeline", test_pipeline},
	    {"portal_suspended", test_portal_suspended},
	    {"skip_to_sync", test_skip_to_sync},
	    {"flush_close_empty", test_flush_close_empty},
	    {"bind_errors", test_bind_errors},
	};
	return wt_main(argc, argv, "wire_extended", NULL, cases, sizeof cases / sizeof cases[0]);
}
