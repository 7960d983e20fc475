/* wire_fastpath_test.c — the FunctionCall message (fastpath): libpq's PQfn with binary
 * arguments and results (text, int4, NULL), text-format arguments and results from the raw
 * client, PostgreSQL's errors (unknown oid 42883, wrong argument count 08P01, the function's own
 * error, 25P02 in a failed block), the transaction rules (a call inside BEGIN stays in it; an
 * error outside a block leaves the session idle and usable) and polymorphic arguments (refused as
 * PostgreSQL's input functions refuse them; NULL into a strict function gives NULL). */
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
#define F_NUM_NULLS   438  /* ("any"), not strict */
#define F_ARRAY_LEN   2176 /* array_length(anyarray, int4), strict */
#define F_TO_JSON     3176 /* to_json(anyelement), strict */

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

/* One FunctionCall from the raw client with text (fmt 0) or binary (1) arguments, NULL where
 * args[i] is NULL; returns the trace ("V Z", "E Z") with the error's SQLSTATE in state and a
 * NULL result noted in *null. */
static const char *raw_fcall(raw_conn *r, int fn, int16_t fmt, int n, const char *const *args,
			     const int *lens, char state[6], bool *null)
{
	raw_buf b;
	rb_reset(&b);
	rb_i32(&b, fn);
	rb_i16(&b, 1);
	rb_i16(&b, fmt);
	rb_i16(&b, (int16_t)n);
	for (int i = 0; i < n; i++) {
		rb_i32(&b, args[i] ? lens[i] : -1);
		if (args[i])
			rb_bytes(&b, args[i], (size_t)lens[i]);
	}
	rb_i16(&b, 0);
	raw_send_msg(r, 'F', b.data, b.len);
	*null = false;
	state[0] = 0;
	if (raw_read(r, 5000) != 1)
		return "(no reply)";
	if (r->type == 'V') {
		*null = r->blen == 4 && memcmp(r->body, "\xff\xff\xff\xff", 4) == 0;
		return raw_read(r, 5000) == 1 && r->type == 'Z' ? "V Z" : "V ?";
	}
	if (r->type != 'E')
		return "?";
	snprintf(state, 6, "%s", raw_field(r, 'C'));
	snprintf(r->err_msg, sizeof r->err_msg, "%s", raw_field(r, 'M'));
	return raw_read(r, 5000) == 1 && r->type == 'Z' ? "E Z" : "E ?";
}

/* Polymorphic arguments: PostgreSQL's fastpath reads each argument with its declared type's input
 * function, which anyarray, anyelement ... refuse (0A000), or finds none for binary (42883; the
 * arrays' receive functions refuse as their input does; no receive function fails a NULL too).
 * NULL reads fine, every other argument is read (its errors stand: an int4 argument with a byte
 * too many is 22P03), and a strict function is then not called: NULL. Strata refuses a non-strict function with a NULL polymorphic
 * argument (0A000; PostgreSQL calls it with no types to go by). */
static void test_polymorphic(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	check_oid(c, F_NUM_NULLS, "num_nulls");
	check_oid(c, F_ARRAY_LEN, "array_length");
	check_oid(c, F_TO_JSON, "to_json");
	PQfinish(c);
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login failed");
		return;
	}
	char state[6];
	bool null;
	const char *arr[] = {"{1,2,3}", "1"};
	const int arrl[] = {7, 1};
	const char *t = raw_fcall(&r, F_ARRAY_LEN, 0, 2, arr, arrl, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "0A000") == 0, "%s %s", t, state);
	CHECK(strcmp(r.err_msg, "cannot accept a value of type anyarray") == 0, "%s", r.err_msg);
	const char *bin[] = {"\0\0\0\1"};
	const int binl[] = {4};
	t = raw_fcall(&r, F_TO_JSON, 1, 1, bin, binl, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "42883") == 0, "%s %s", t, state);
	CHECK(strcmp(r.err_msg, "no binary input function available for type anyelement") == 0, "%s",
	      r.err_msg);
	t = raw_fcall(&r, F_ARRAY_LEN, 1, 1, bin, binl, state, &null); /* (count checked first) */
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "08P01") == 0, "%s %s", t, state);
	const char *binarr[] = {"x", "\0\0\0\1"};
	const int binarrl[] = {1, 4};
	t = raw_fcall(&r, F_ARRAY_LEN, 1, 2, binarr, binarrl, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "0A000") == 0, "%s %s", t, state);
	const char *nul[] = {NULL, "1"};
	const int null_l[] = {0, 1};
	t = raw_fcall(&r, F_ARRAY_LEN, 0, 2, nul, null_l, state, &null);
	CHECK(strcmp(t, "V Z") == 0 && null, "%s %s null %d", t, state, null);
	t = raw_fcall(&r, F_TO_JSON, 0, 1, nul, null_l, state, &null);
	CHECK(strcmp(t, "V Z") == 0 && null, "%s %s null %d", t, state, null);
	/* Every argument is read before the strict function's NULL: a bad one after the NULL
	 * polymorphic one fails in its input function, and binary anyelement has no receive
	 * function even for a NULL. */
	const char *nulbad[] = {NULL, "abc"};
	const int nulbadl[] = {0, 3};
	t = raw_fcall(&r, F_ARRAY_LEN, 0, 2, nulbad, nulbadl, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "22P02") == 0, "%s %s", t, state);
	CHECK(strcmp(r.err_msg, "invalid input syntax for type integer: \"abc\"") == 0, "%s", r.err_msg);
	t = raw_fcall(&r, F_TO_JSON, 1, 1, nul, null_l, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "42883") == 0, "%s %s", t, state);
	CHECK(strcmp(r.err_msg, "no binary input function available for type anyelement") == 0, "%s",
	      r.err_msg);
	const char *nulbin[] = {NULL, "\0\0\0\1"};
	const int nulbinl[] = {0, 4};
	t = raw_fcall(&r, F_ARRAY_LEN, 1, 2, nulbin, nulbinl, state, &null); /* anyarray_recv */
	CHECK(strcmp(t, "V Z") == 0 && null, "%s %s null %d", t, state, null);
	const char *nullong[] = {NULL, "\0\0\0\1\0"};
	const int nullongl[] = {0, 5};
	t = raw_fcall(&r, F_ARRAY_LEN, 1, 2, nullong, nullongl, state, &null);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "22P03") == 0, "%s %s", t, state);
	CHECK(strcmp(r.err_msg, "incorrect binary data format in function argument 2") == 0, "%s", r.err_msg);
	t = raw_fcall(&r, F_NUM_NULLS, 0, 1, nul, null_l, state, &null);
	if (strstr(fx->bin, "pg_as_strata")) /* the deliberate difference: PostgreSQL answers 1 */
		CHECK(strcmp(t, "V Z") == 0 && !null, "%s %s", t, state);
	else
		CHECK(strcmp(t, "E Z") == 0 && strcmp(state, "0A000") == 0, "%s %s", t, state);
	/* the session goes on */
	const char *neg[] = {"-15"};
	const int negl[] = {3};
	t = raw_fcall(&r, F_ABS_INT4, 0, 1, neg, negl, state, &null);
	CHECK(strcmp(t, "V Z") == 0 && !null, "%s %s", t, state);
	raw_close(&r);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"pqfn_binary", test_pqfn_binary},
	    {"pqfn_errors", test_pqfn_errors},
	    {"text_format", test_text_format},
	    {"polymorphic", test_polymorphic},
	};
	return wt_main(argc, argv, "wire_fastpath", NULL, cases, sizeof cases / sizeof cases[0]);
}
