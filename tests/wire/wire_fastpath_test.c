/* wire_fastpath_test.c — the FunctionCall message (fastpath): libpq's PQfn with binary
 * arguments and results (text, int4, NULL), text-format arguments and results from the raw
 * client, PostgreSQL's errors (unknown oid 42883, wrong argument count 08P01, the function's own
 * error, 25P02 in a failed block) and the transaction rules (a call inside BEGIN stays in it; an
 * error outside a block leaves the session idle and usable). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_test.h"

/* PostgreSQL's pg_proc oids (Strata's registry carries the same). */
#define F_QUOTE_IDENT 1282
#define F_LENGTH_TEXT 1317
#define F_ABS_INT4    1397
#define F_MD5_TEXT    2311

/* The oid names the function it should, in pg_proc. */
static void check_oid(PGconn *c, int oid, const char *name)
{
	char q[128];
	snprintf(q, sizeof q, "select proname from pg_proc where oid = %d", oid);
	PGresult *r = wt_exec(c, q, PGRES_TUPLES_OK);
	if (r)
		CHECK(PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), name) == 0, "oid %d: %s", oid,
		      PQntuples(r) ? PQgetvalue(r, 0, 0) : "(none)");
	PQclear(r);
}

static void test_pqfn_binary(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	check_oid(c, F_QUOTE_IDENT, "quote_ident");
	check_oid(c, F_LENGTH_TEXT, "length");
	check_oid(c, F_ABS_INT4, "abs");
	check_oid(c, F_MD5_TEXT, "md5");

	/* text in, text out */
	char buf[128];
	int len = 0;
	PQArgBlock a = {.len = 11, .isint = 0, .u.ptr = (int *)"hello world"};
	PGresult *r = PQfn(c, F_QUOTE_IDENT, (int *)buf, &len, 0, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(len == 13 && memcmp(buf, "\"hello world\"", 13) == 0, "len %d", len);
	PQclear(r);

	/* text in, int4 out */
	int out = 0;
	a = (PQArgBlock){.len = 11, .isint = 0, .u.ptr = (int *)"hello world"};
	r = PQfn(c, F_LENGTH_TEXT, &out, &len, 1, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(len == 4 && out == 11, "len %d out %d", len, out);
	PQclear(r);

	/* int4 in, int4 out */
	a = (PQArgBlock){.len = 4, .isint = 1, .u.integer = -42};
	r = PQfn(c, F_ABS_INT4, &out, &len, 1, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(out == 42, "out %d", out);
	PQclear(r);

	/* a NULL argument of a strict function: a NULL result */
	a = (PQArgBlock){.len = -1, .isint = 0, .u.ptr = NULL};
	len = 0;
	r = PQfn(c, F_MD5_TEXT, (int *)buf, &len, 0, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(len == -1, "len %d", len);
	PQclear(r);

	a = (PQArgBlock){.len = 3, .isint = 0, .u.ptr = (int *)"abc"};
	r = PQfn(c, F_MD5_TEXT, (int *)buf, &len, 0, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK, "%s", PQresultErrorMessage(r));
	CHECK(len == 32 && memcmp(buf, "900150983cd24fb0d6963f7d28e17f72", 32) == 0, "len %d", len);
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQfinish(c);
}

static void test_pqfn_errors(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	char buf[64];
	int len = 0;
	PQArgBlock a = {.len = 1, .isint = 0, .u.ptr = (int *)"x"};
	PGresult *r = PQfn(c, 999999, (int *)buf, &len, 0, &a, 1);
	CHECK(strcmp(wt_sqlstate(r), "42883") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	CHECK(m && strcmp(m, "function with OID 999999 does not exist") == 0, "%s", m ? m : "");
	PQclear(r);

	PQArgBlock two[2] = {a, a};
	r = PQfn(c, F_QUOTE_IDENT, (int *)buf, &len, 0, two, 2);
	CHECK(strcmp(wt_sqlstate(r), "08P01") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	CHECK(m && strcmp(m, "function call message contains 2 arguments but function requires 1") == 0, "%s",
	      m ? m : "");
	PQclear(r);

	/* the function's own error */
	int out;
	a = (PQArgBlock){.len = 4, .isint = 1, .u.integer = (int)0x80000000};
	r = PQfn(c, F_ABS_INT4, &out, &len, 1, &a, 1);
	CHECK(strcmp(wt_sqlstate(r), "22003") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQclear(wt_exec(c, "select 1", PGRES_TUPLES_OK));

	/* inside a block: the call belongs to it; an error fails it */
	PQclear(wt_exec(c, "begin", PGRES_COMMAND_OK));
	a = (PQArgBlock){.len = 4, .isint = 1, .u.integer = -7};
	r = PQfn(c, F_ABS_INT4, &out, &len, 1, &a, 1);
	CHECK(PQresultStatus(r) == PGRES_COMMAND_OK && out == 7, "%s", PQresultErrorMessage(r));
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_INTRANS, "status %d", PQtransactionStatus(c));
	a = (PQArgBlock){.len = 4, .isint = 1, .u.integer = (int)0x80000000};
	r = PQfn(c, F_ABS_INT4, &out, &len, 1, &a, 1);
	CHECK(strcmp(wt_sqlstate(r), "22003") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_INERROR, "status %d", PQtransactionStatus(c));
	a = (PQArgBlock){.len = 4, .isint = 1, .u.integer = -7};
	r = PQfn(c, F_ABS_INT4, &out, &len, 1, &a, 1);
	CHECK(strcmp(wt_sqlstate(r), "25P02") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	PQclear(r);
	PQclear(wt_exec(c, "rollback", PGRES_COMMAND_OK));
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQfinish(c);
}

/* Text-format arguments and result, which libpq's PQfn never sends. */
static void test_text_format(fixture_server *fx)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login failed");
		return;
	}
	raw_buf b;
	rb_reset(&b);
	rb_i32(&b, F_ABS_INT4);
	rb_i16(&b, 1);
	rb_i16(&b, 0); /* all arguments text */
	rb_i16(&b, 1);
	rb_i32(&b, 3);
	rb_bytes(&b, "-15", 3);
	rb_i16(&b, 0); /* text result */
	raw_send_msg(&r, 'F', b.data, b.len);
	CHECK(raw_read(&r, 5000) == 1 && r.type == 'V', "type %c", r.type);
	if (r.type == 'V') {
		uint32_t n = 0;
		if (r.blen >= 4)
			memcpy(&n, r.body, 4);
		CHECK(r.blen == 6 && ntohl(n) == 2 && memcmp(r.body + 4, "15", 2) == 0, "blen %zu", r.blen);
	}
	CHECK(raw_read(&r, 5000) == 1 && r.type == 'Z', "type %c", r.type);

	/* a bad text argument: 22P02, then ReadyForQuery */
	rb_reset(&b);
	rb_i32(&b, F_ABS_INT4);
	rb_i16(&b, 0);
	rb_i16(&b, 1);
	rb_i32(&b, 3);
	rb_bytes(&b, "abc", 3);
	rb_i16(&b, 0);
	raw_send_msg(&r, 'F', b.data, b.len);
	char state[6] = "";
	const char *t = raw_trace(&r, 5000, state);
	CHECK(strcmp(t, "E Z") == 0, "%s", t);
	CHECK(strcmp(state, "22P02") == 0, "%s %s", state, r.err_msg);

	/* mismatched format count */
	rb_reset(&b);
	rb_i32(&b, F_ABS_INT4);
	rb_i16(&b, 2);
	rb_i16(&b, 0);
	rb_i16(&b, 0);
	rb_i16(&b, 1);
	rb_i32(&b, 1);
	rb_bytes(&b, "1", 1);
	rb_i16(&b, 0);
	raw_send_msg(&r, 'F', b.data, b.len);
	t = raw_trace(&r, 5000, state);
	CHECK(strcmp(t, "E Z") == 0, "%s", t);
	CHECK(strcmp(state, "08P01") == 0, "%s %s", state, r.err_msg);
	CHECK(strcmp(r.err_msg, "function call message contains 2 argument formats but 1 arguments") == 0,
	      "%s", r.err_msg);
	raw_close(&r);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"pqfn_binary", test_pqfn_binary},
	    {"pqfn_errors", test_pqfn_errors},
	    {"text_format", test_text_format},
	};
	return wt_main(argc, argv, "wire_fastpath", NULL, cases, sizeof cases / sizeof cases[0]);
}
