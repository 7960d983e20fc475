/* wire_basic_test.c — startup and the simple query protocol through libpq: ParameterStatus,
 * BackendKeyData, results, several statements per Query, empty queries, error and notice
 * fields, transaction status, ParameterStatus after SET, big results and big queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire_test.h"

static void test_startup_params(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, "user=postgres application_name=wire_basic");
	if (!c)
		return;
	CHECK(PQprotocolVersion(c) == 3, "protocol %d", PQprotocolVersion(c));
	CHECK(PQbackendPID(c) != 0, "no BackendKeyData");
	const char *v = PQparameterStatus(c, "server_version");
	CHECK(v && strncmp(v, "15.", 3) == 0, "server_version %s", v ? v : "(none)");
	CHECK(PQserverVersion(c) >= 150000 && PQserverVersion(c) < 160000, "%d", PQserverVersion(c));
	struct {
		const char *name, *value;
	} want[] = {
	    {"server_encoding", "UTF8"},
	    {"client_encoding", "UTF8"},
	    {"DateStyle", "ISO, MDY"},
	    {"IntervalStyle", "postgres"},
	    {"integer_datetimes", "on"},
	    {"standard_conforming_strings", "on"},
	    {"application_name", "wire_basic"},
	    {"is_superuser", "on"},
	    {"session_authorization", "postgres"},
	    {"default_transaction_read_only", "off"},
	    {"in_hot_standby", "off"},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		v = PQparameterStatus(c, want[i].name);
		CHECK(v && strcmp(v, want[i].value) == 0, "%s = %s, want %s", want[i].name, v ? v : "(none)",
		      want[i].value);
	}
	CHECK(PQparameterStatus(c, "TimeZone") != NULL, "no TimeZone");
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQfinish(c);
}

/* Startup settings the server refuses are reported after AuthenticationOk,
 * as FATAL, as PostgreSQL does. */
static void test_bad_startup_settings(fixture_server *fx)
{
	const char *cases[][4] = {
	    {"foo", "bar", "42704", "unrecognized configuration parameter \"foo\""},
	    {"options", "-c statement_timeout", "42601", "-c statement_timeout requires a value"},
	    {"options", "-x", "42601", "invalid command-line argument for server process: -x"},
	};
	for (int i = 0; i < 3; i++) {
		raw_conn r;
		if (!raw_open(&r, fx->host, fx->port)) {
			CHECK(false, "connect");
			return;
		}
		raw_buf b;
		rb_reset(&b);
		rb_i32(&b, 196608);
		rb_str(&b, "user");
		rb_str(&b, "postgres");
		rb_str(&b, cases[i][0]);
		rb_str(&b, cases[i][1]);
		rb_i8(&b, 0);
		raw_send_msg(&r, 0, b.data, b.len);
		char st[8];
		const char *t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "R E EOF") == 0 && strcmp(st, cases[i][2]) == 0, "%s=%s: %s (%s)",
		      cases[i][0], cases[i][1], t, st);
		CHECK(strcmp(r.err_msg, cases[i][3]) == 0, "%s", r.err_msg);
		raw_close(&r);
	}
	/* startup settings that are fine take effect */
	PGconn *c = wt_connect(fx, "user=postgres options='-c application_name=from_options'");
	const char *v = c ? PQparameterStatus(c, "application_name") : NULL;
	CHECK(v && strcmp(v, "from_options") == 0, "application_name %s", v ? v : "");
	PQfinish(c);
}

static void test_select(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	PGresult *r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
	if (r) {
		CHECK(PQntuples(r) == 1 && PQnfields(r) == 1, "shape %dx%d", PQntuples(r), PQnfields(r));
		CHECK(strcmp(PQfname(r, 0), "?column?") == 0, "name %s", PQfname(r, 0));
		CHECK(PQftype(r, 0) == 23, "type %u", PQftype(r, 0));
		CHECK(strcmp(PQgetvalue(r, 0, 0), "1") == 0, "value %s", PQgetvalue(r, 0, 0));
		CHECK(strcmp(PQcmdStatus(r), "SELECT 1") == 0, "tag %s", PQcmdStatus(r));
		PQclear(r);
	}
	r = wt_exec(c, "select 'h\xc3\xa9llo \xe2\x98\x83'", PGRES_TUPLES_OK);
	if (r) {
		CHECK(strcmp(PQgetvalue(r, 0, 0), "h\xc3\xa9llo \xe2\x98\x83") == 0, "%s",
		      PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	PQfinish(c);
}

static void test_several_statements(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	CHECK(PQsendQuery(c, "select 1; select 'two'; select 3"), "%s", PQerrorMessage(c));
	const char *want[] = {"1", "two", "3"};
	int n = 0;
	PGresult *r;
	while ((r = PQgetResult(c))) {
		CHECK(PQresultStatus(r) == PGRES_TUPLES_OK, "%s", PQresultErrorMessage(r));
		if (n < 3 && PQresultStatus(r) == PGRES_TUPLES_OK)
			CHECK(strcmp(PQgetvalue(r, 0, 0), want[n]) == 0, "result %d = %s", n,
			      PQgetvalue(r, 0, 0));
		n++;
		PQclear(r);
	}
	CHECK(n == 3, "%d results", n);
	/* an error stops the rest of the string (a syntax error anywhere stops all
	 * of it: the whole string is parsed first) */
	CHECK(PQsendQuery(c, "select 1; select 1/0; select 3"), "%s", PQerrorMessage(c));
	n = 0;
	int errors = 0;
	while ((r = PQgetResult(c))) {
		if (PQresultStatus(r) == PGRES_FATAL_ERROR) {
			errors++;
			CHECK(strcmp(wt_sqlstate(r), "22012") == 0, "%s", wt_sqlstate(r));
		}
		n++;
		PQclear(r);
	}
	CHECK(n == 2 && errors == 1, "%d results, %d errors", n, errors);
	PGresult *one = PQexec(c, "select 1; selec 2; select 3");
	CHECK(PQresultStatus(one) == PGRES_FATAL_ERROR && strcmp(wt_sqlstate(one), "42601") == 0, "%s",
	      PQresultErrorMessage(one));
	PQclear(one);
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "status %d", PQtransactionStatus(c));
	PQfinish(c);
}

static void test_empty_query(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	const char *qs[] = {"", "   ", ";", "-- only a comment"};
	for (size_t i = 0; c && i < sizeof qs / sizeof qs[0]; i++) {
		PGresult *r = PQexec(c, qs[i]);
		CHECK(PQresultStatus(r) == PGRES_EMPTY_QUERY, "'%s': %s", qs[i],
		      PQresStatus(PQresultStatus(r)));
		PQclear(r);
	}
	PQfinish(c);
}

static void test_error_fields(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	PGresult *r = PQexec(c, "selec 1");
	CHECK(PQresultStatus(r) == PGRES_FATAL_ERROR, "%s", PQresStatus(PQresultStatus(r)));
	const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY);
	const char *sevnl = PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	const char *pos = PQresultErrorField(r, PG_DIAG_STATEMENT_POSITION);
	CHECK(sev && strcmp(sev, "ERROR") == 0, "S %s", sev ? sev : "");
	CHECK(sevnl && strcmp(sevnl, "ERROR") == 0, "V %s", sevnl ? sevnl : "");
	CHECK(strcmp(wt_sqlstate(r), "42601") == 0, "C %s", wt_sqlstate(r));
	CHECK(msg && strcmp(msg, "syntax error at or near \"selec\"") == 0, "M %s", msg ? msg : "");
	CHECK(pos && strcmp(pos, "1") == 0, "P %s", pos ? pos : "");
	PQclear(r);
	/* invalid UTF-8 in the query text: 22021, and the session lives on */
	wt_exec_error(c, "select '\xc3\x28'", "22021");
	r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
	PQclear(r);
	PQfinish(c);
}

static char notice_buf[1024];
static void on_notice(void *arg, const PGresult *r)
{
	(void)arg;
	snprintf(notice_buf, sizeof notice_buf, "%s|%s|%s",
		 PQresultErrorField(r, PG_DIAG_SEVERITY_NONLOCALIZED),
		 PQresultErrorField(r, PG_DIAG_SQLSTATE), PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
}

static void test_notice(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	PQsetNoticeReceiver(c, on_notice, NULL);
	notice_buf[0] = '\0';
	PGresult *r = wt_exec(c, "drop table if exists wire_no_such_table", PGRES_COMMAND_OK);
	if (r)
		CHECK(strcmp(PQcmdStatus(r), "DROP TABLE") == 0, "tag %s", PQcmdStatus(r));
	PQclear(r);
	CHECK(strcmp(notice_buf, "NOTICE|00000|table \"wire_no_such_table\" does not exist, skipping") == 0,
	      "%s", notice_buf);
	PQfinish(c);
}

static void test_transaction_status(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	PQclear(wt_exec(c, "begin", PGRES_COMMAND_OK));
	CHECK(PQtransactionStatus(c) == PQTRANS_INTRANS, "after BEGIN: %d", PQtransactionStatus(c));
	wt_exec_error(c, "selec", "42601");
	CHECK(PQtransactionStatus(c) == PQTRANS_INERROR, "after error: %d", PQtransactionStatus(c));
	wt_exec_error(c, "select 1", "25P02");
	PGresult *r = wt_exec(c, "rollback", PGRES_COMMAND_OK);
	if (r)
		CHECK(strcmp(PQcmdStatus(r), "ROLLBACK") == 0, "tag %s", PQcmdStatus(r));
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "after ROLLBACK: %d", PQtransactionStatus(c));
	/* BEGIN then an error in the same Query string leaves the block failed */
	PQclear(PQexec(c, "begin; select 1/0"));
	CHECK(PQtransactionStatus(c) == PQTRANS_INERROR, "after 'begin; select 1/0': %d",
	      PQtransactionStatus(c));
	r = wt_exec(c, "commit", PGRES_COMMAND_OK);
	if (r)
		CHECK(strcmp(PQcmdStatus(r), "ROLLBACK") == 0, "COMMIT of a failed block says %s",
		      PQcmdStatus(r));
	PQclear(r);
	CHECK(PQtransactionStatus(c) == PQTRANS_IDLE, "%d", PQtransactionStatus(c));
	PQfinish(c);
}

static void test_parameter_status_on_set(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, "user=postgres application_name=before");
	if (!c)
		return;
	PQclear(wt_exec(c, "set application_name = 'after'", PGRES_COMMAND_OK));
	const char *v = PQparameterStatus(c, "application_name");
	CHECK(v && strcmp(v, "after") == 0, "application_name %s", v ? v : "");
	PGresult *r = wt_exec(c, "show application_name", PGRES_TUPLES_OK);
	if (r)
		CHECK(strcmp(PQgetvalue(r, 0, 0), "after") == 0, "SHOW %s", PQgetvalue(r, 0, 0));
	PQclear(r);
	/* a SET undone by ROLLBACK is reported back */
	PQclear(wt_exec(c, "begin", PGRES_COMMAND_OK));
	PQclear(wt_exec(c, "set application_name = 'inside'", PGRES_COMMAND_OK));
	v = PQparameterStatus(c, "application_name");
	CHECK(v && strcmp(v, "inside") == 0, "in transaction: %s", v ? v : "");
	PQclear(wt_exec(c, "rollback", PGRES_COMMAND_OK));
	v = PQparameterStatus(c, "application_name");
	CHECK(v && strcmp(v, "after") == 0, "after rollback: %s", v ? v : "");
	PQfinish(c);
}

static void test_big_result(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	PGresult *r = wt_exec(c, "select generate_series(1,100000)", PGRES_TUPLES_OK);
	if (r) {
		CHECK(PQntuples(r) == 100000, "%d rows", PQntuples(r));
		long sum = 0;
		for (int i = 0; i < PQntuples(r); i++)
			sum += atol(PQgetvalue(r, i, 0));
		CHECK(sum == 100000L * 100001 / 2, "sum %ld", sum);
		CHECK(strcmp(PQcmdStatus(r), "SELECT 100000") == 0, "tag %s", PQcmdStatus(r));
		PQclear(r);
	}
	PQfinish(c);
}

static void test_big_query(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	size_t n = 4u << 20;
	char *q = malloc(n + 32);
	strcpy(q, "select 7 --");
	memset(q + 11, 'x', n);
	q[11 + n] = '\0';
	PGresult *r = wt_exec(c, q, PGRES_TUPLES_OK);
	if (r)
		CHECK(strcmp(PQgetvalue(r, 0, 0), "7") == 0, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	free(q);
	PQfinish(c);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"startup_params", test_startup_params},
	    {"bad_startup_settings", test_bad_startup_settings},
	    {"select", test_select},
	    {"several_statements", test_several_statements},
	    {"empty_query", test_empty_query},
	    {"error_fields", test_error_fields},
	    {"notice", test_notice},
	    {"transaction_status", test_transaction_status},
	    {"parameter_status_on_set", test_parameter_status_on_set},
	    {"big_result", test_big_result},
	    {"big_query", test_big_query},
	};
	return wt_main(argc, argv, "wire_basic", NULL, cases, sizeof cases / sizeof cases[0]);
}
