/* wire_copy_test.c — the COPY sub-protocol through libpq: COPY FROM STDIN (CopyInResponse,
 * CopyData, CopyDone), CopyFail, a data error that loads nothing, COPY TO STDOUT, big copies in
 * both directions, and COPY started from the extended protocol (libpq sends Sync before the
 * data, which the server must ignore during COPY). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_test.h"

static long count_rows(PGconn *c)
{
	PGresult *r = wt_exec(c, "select count(*) from wire_copy", PGRES_TUPLES_OK);
	long n = r ? atol(PQgetvalue(r, 0, 0)) : -1;
	PQclear(r);
	return n;
}

/* COPY FROM STDIN with the data in chunks; returns the final result. */
static PGresult *copy_in(PGconn *c, const char *sql, const char *const *chunks, int n, const char *fail)
{
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		CHECK(false, "%s: %s %s", sql, PQresStatus(PQresultStatus(r)), PQresultErrorMessage(r));
		return r;
	}
	CHECK(PQnfields(r) == 1 && PQbinaryTuples(r) == 0, "CopyInResponse: %d columns", PQnfields(r));
	PQclear(r);
	for (int i = 0; i < n; i++)
		CHECK(PQputCopyData(c, chunks[i], (int)strlen(chunks[i])) == 1, "%s", PQerrorMessage(c));
	CHECK(PQputCopyEnd(c, fail) == 1, "%s", PQerrorMessage(c));
	r = PQgetResult(c);
	PGresult *extra = PQgetResult(c);
	CHECK(extra == NULL, "more than one result");
	PQclear(extra);
	return r;
}

static PGconn *setup(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return NULL;
	PQclear(PQexec(c, "drop table if exists wire_copy"));
	PQclear(wt_exec(c, "create table wire_copy (a int)", PGRES_COMMAND_OK));
	return c;
}

static void test_copy_in_out(fixture_server *fx)
{
	PGconn *c = setup(fx);
	if (!c)
		return;
	/* rows split across CopyData messages at odd places */
	const char *chunks[] = {"1\n2", "\n3\n", "4\n"};
	PGresult *r = copy_in(c, "copy wire_copy from stdin", chunks, 3, NULL);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COPY 4") == 0, "%s %s",
	      PQcmdStatus(r), PQresultErrorMessage(r));
	PQclear(r);
	CHECK(count_rows(c) == 4, "rows %ld", count_rows(c));
	r = PQexec(c, "copy wire_copy to stdout");
	CHECK(PQresultStatus(r) == PGRES_COPY_OUT, "%s", PQresultErrorMessage(r));
	PQclear(r);
	char got[256] = "";
	char *line;
	int n;
	while ((n = PQgetCopyData(c, &line, 0)) > 0) {
		strncat(got, line, sizeof got - strlen(got) - 1);
		PQfreemem(line);
	}
	CHECK(n == -1, "PQgetCopyData %d", n);
	r = PQgetResult(c);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COPY 4") == 0, "%s",
	      PQcmdStatus(r));
	PQclear(r);
	CHECK(strcmp(got, "1\n2\n3\n4\n") == 0, "copied out \"%s\"", got);
	PQclear(PQexec(c, "drop table wire_copy"));
	PQfinish(c);
}

static void test_copy_fail(fixture_server *fx)
{
	PGconn *c = setup(fx);
	if (!c)
		return;
	const char *chunks[] = {"1\n2\n"};
	PGresult *r = copy_in(c, "copy wire_copy from stdin", chunks, 1, "client gave up");
	CHECK(strcmp(wt_sqlstate(r), "57014") == 0, "CopyFail: %s %s", wt_sqlstate(r),
	      PQresultErrorMessage(r));
	const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	CHECK(m && strcmp(m, "COPY from stdin failed: client gave up") == 0, "%s", m ? m : "");
	PQclear(r);
	CHECK(count_rows(c) == 0, "rows after CopyFail %ld", count_rows(c));
	/* a bad row: the error names the line, and nothing is loaded */
	const char *bad[] = {"1\n", "x\n", "3\n"};
	r = copy_in(c, "copy wire_copy from stdin", bad, 3, NULL);
	CHECK(strcmp(wt_sqlstate(r), "22P02") == 0, "bad row: %s %s", wt_sqlstate(r),
	      PQresultErrorMessage(r));
	const char *ctx = PQresultErrorField(r, PG_DIAG_CONTEXT);
	CHECK(ctx && strstr(ctx, "line 2"), "context %s", ctx ? ctx : "(none)");
	PQclear(r);
	CHECK(count_rows(c) == 0, "rows after a failed COPY %ld", count_rows(c));
	PQclear(PQexec(c, "drop table wire_copy"));
	PQfinish(c);
}

static void test_big_copy(fixture_server *fx)
{
	PGconn *c = setup(fx);
	if (!c)
		return;
	PGresult *r = PQexec(c, "copy wire_copy from stdin");
	CHECK(PQresultStatus(r) == PGRES_COPY_IN, "%s", PQresultErrorMessage(r));
	PQclear(r);
	char buf[8192];
	size_t o = 0;
	int rows = 200000;
	for (int i = 1; i <= rows; i++) {
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%d\n", i);
		if (o > sizeof buf - 16 || i == rows) {
			CHECK(PQputCopyData(c, buf, (int)o) == 1, "%s", PQerrorMessage(c));
			o = 0;
		}
	}
	PQputCopyEnd(c, NULL);
	r = PQgetResult(c);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COPY 200000") == 0, "%s %s",
	      PQcmdStatus(r), PQresultErrorMessage(r));
	PQclear(r);
	PQclear(PQgetResult(c));
	r = PQexec(c, "copy wire_copy to stdout");
	PQclear(r);
	long n = 0, sum = 0;
	char *line;
	int len;
	while ((len = PQgetCopyData(c, &line, 0)) > 0) {
		n++;
		sum += atol(line);
		PQfreemem(line);
	}
	r = PQgetResult(c);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	PQclear(r);
	CHECK(n == rows && sum == (long)rows * (rows + 1) / 2, "copied out %ld rows, sum %ld", n, sum);
	PQclear(PQexec(c, "drop table wire_copy"));
	PQfinish(c);
}

static void test_copy_extended(fixture_server *fx)
{
	PGconn *c = setup(fx);
	if (!c)
		return;
	/* PQexecParams runs COPY through Parse/Bind/Execute/Sync */
	PGresult *r = PQexecParams(c, "copy wire_copy from stdin", 0, NULL, NULL, NULL, NULL, 0);
	CHECK(PQresultStatus(r) == PGRES_COPY_IN, "%s", PQresultErrorMessage(r));
	PQclear(r);
	PQputCopyData(c, "7\n8\n", 4);
	PQputCopyEnd(c, NULL);
	r = PQgetResult(c);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdStatus(r), "COPY 2") == 0, "%s %s",
	      PQcmdStatus(r), PQresultErrorMessage(r));
	PQclear(r);
	PQclear(PQgetResult(c));
	CHECK(count_rows(c) == 2, "rows %ld", count_rows(c));
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQclear(PQexec(c, "drop table wire_copy"));
	PQfinish(c);
}

static void test_copy_protocol_violation(fixture_server *fx)
{
	/* A Query in the middle of COPY data: an error for the COPY, then the
	 * connection ends (message boundaries can no longer be trusted). */
	PGconn *c = setup(fx);
	if (!c)
		return;
	PQfinish(c);
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	const char q[] = "copy wire_copy from stdin";
	raw_send_msg(&r, 'Q', q, sizeof q);
	CHECK(raw_read(&r, 10000) == 1 && r.type == 'G', "no CopyInResponse (%c)", r.type);
	raw_send_msg(&r, 'd', "1\n", 2);
	raw_send_msg(&r, 'Q', "select 1", 9);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strncmp(t, "E E", 3) == 0 && strcmp(st, "08P01") == 0, "%s (%s)", t, st);
	CHECK(strcmp(r.err_msg, "unexpected message type 0x51 during COPY from stdin") == 0, "%s", r.err_msg);
	raw_close(&r);
	c = wt_connect(fx, NULL);
	CHECK(c && count_rows(c) == 0, "rows %ld", c ? count_rows(c) : -1);
	PQclear(PQexec(c, "drop table wire_copy"));
	PQfinish(c);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"copy_in_out", test_copy_in_out},
	    {"copy_fail", test_copy_fail},
	    {"big_copy", test_big_copy},
	    {"copy_extended", test_copy_extended},
	    {"copy_protocol_violation", test_copy_protocol_violation},
	};
	return wt_main(argc, argv, "wire_copy", NULL, cases, sizeof cases / sizeof cases[0]);
}
