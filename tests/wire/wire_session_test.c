/* wire_session_test.c — session lifetime: CancelRequest (right and wrong key), statement_timeout,
 * idle_in_transaction_session_timeout and idle_session_timeout (FATAL 25P03 / 57P05), and a
 * server shutdown that ends idle, busy and COPY-receiving sessions with FATAL 57P01 (idle reads
 * wait in recv(), ended by shutdown(SHUT_RD)). */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire_test.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_cancel(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	double t0 = now_s();
	CHECK(PQsendQuery(c, "select pg_sleep(30)"), "%s", PQerrorMessage(c));
	usleep(300 * 1000);
	PGcancel *k = PQgetCancel(c);
	char err[256];
	CHECK(PQcancel(k, err, sizeof err) == 1, "PQcancel: %s", err);
	PQfreeCancel(k);
	PGresult *r = PQgetResult(c);
	CHECK(strcmp(wt_sqlstate(r), "57014") == 0, "%s %s", wt_sqlstate(r), PQresultErrorMessage(r));
	const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	CHECK(m && strcmp(m, "canceling statement due to user request") == 0, "%s", m ? m : "");
	PQclear(r);
	while ((r = PQgetResult(c)))
		PQclear(r);
	CHECK(now_s() - t0 < 20, "cancel took %.1f s", now_s() - t0);
	r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
	PQclear(r);
	PQfinish(c);
}

static void test_cancel_wrong_key(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	CHECK(PQsendQuery(c, "select pg_sleep(1)"), "%s", PQerrorMessage(c));
	usleep(200 * 1000);
	raw_conn r;
	if (raw_open(&r, fx->host, fx->port)) {
		raw_buf b;
		rb_reset(&b);
		rb_i32(&b, 80877102);
		rb_i32(&b, PQbackendPID(c));
		rb_i32(&b, 12345); /* not the secret */
		raw_send_msg(&r, 0, b.data, b.len);
		CHECK(strcmp(raw_trace(&r, 5000, NULL), "EOF") == 0, "cancel connection not closed");
		raw_close(&r);
	}
	PGresult *res = PQgetResult(c);
	CHECK(PQresultStatus(res) == PGRES_TUPLES_OK, "the query was cancelled: %s",
	      PQresultErrorMessage(res));
	PQclear(res);
	while ((res = PQgetResult(c)))
		PQclear(res);
	PQfinish(c);
}

static void test_statement_timeout(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	if (!c)
		return;
	PQclear(wt_exec(c, "set statement_timeout = '200ms'", PGRES_COMMAND_OK));
	PGresult *r = PQexec(c, "select pg_sleep(10)");
	CHECK(strcmp(wt_sqlstate(r), "57014") == 0, "%s", PQresultErrorMessage(r));
	const char *m = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	CHECK(m && strcmp(m, "canceling statement due to statement timeout") == 0, "%s", m ? m : "");
	PQclear(r);
	PQfinish(c);
}

/* A raw session that runs `set`, optionally `begin`, then waits for the
 * server to end it. */
static void idle_case(fixture_server *fx, const char *set, bool in_txn, const char *state, const char *msg)
{
	raw_conn r;
	if (!raw_login(&r, fx->host, fx->port, "postgres")) {
		CHECK(false, "login");
		return;
	}
	raw_send_msg(&r, 'Q', set, strlen(set) + 1);
	CHECK(strcmp(raw_trace(&r, 5000, NULL), "C Z") == 0, "%s", set);
	if (in_txn) {
		raw_send_msg(&r, 'Q', "begin", 6);
		CHECK(strcmp(raw_trace(&r, 5000, NULL), "C Z") == 0, "begin");
	}
	double t0 = now_s();
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	double waited = now_s() - t0;
	CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, state) == 0, "%s (%s)", t, st);
	CHECK(strcmp(r.err_msg, msg) == 0, "%s", r.err_msg);
	CHECK(waited > 0.2 && waited < 8, "ended after %.2f s", waited);
	raw_close(&r);
}

static void test_idle_in_transaction_timeout(fixture_server *fx)
{
	idle_case(fx, "set idle_in_transaction_session_timeout = '300ms'", true, "25P03",
		  "terminating connection due to idle-in-transaction timeout");
}

static void test_idle_session_timeout(fixture_server *fx)
{
	idle_case(fx, "set idle_session_timeout = '300ms'", false, "57P05",
		  "terminating connection due to idle-session timeout");
}

static void test_shutdown(fixture_server *shared)
{
	(void)shared;
	fixture_server fx;
	if (fixture_init(&fx, "wire_shutdown") != 0 || fixture_start(&fx, NULL) != 0) {
		CHECK(false, "could not start a second server");
		fixture_stop(&fx, true);
		return;
	}
	raw_conn idle, busy, copy;
	bool ok = raw_login(&idle, fx.host, fx.port, "postgres") &&
		  raw_login(&busy, fx.host, fx.port, "postgres") &&
		  raw_login(&copy, fx.host, fx.port, "postgres");
	CHECK(ok, "login");
	const char *mk = "create table shut_copy(a int)", *cp = "copy shut_copy from stdin";
	ok = ok && raw_send_msg(&copy, 'Q', mk, strlen(mk) + 1) && raw_until_ready(&copy, 10000) &&
	     raw_send_msg(&copy, 'Q', cp, strlen(cp) + 1) && raw_read(&copy, 10000) == 1 && copy.type == 'G';
	CHECK(ok, "COPY FROM STDIN started");
	if (ok) {
		raw_send_msg(&busy, 'Q', "select pg_sleep(60)", 20);
		usleep(300 * 1000);
		double t0 = now_s();
		/* SIGINT: PostgreSQL's fast shutdown (strata treats SIGTERM alike) */
		kill(fx.pid, SIGINT);
		char st[8];
		const char *t = raw_trace(&idle, 10000, st);
		CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "57P01") == 0, "idle session: %s (%s)", t, st);
		CHECK(strcmp(idle.err_msg, "terminating connection due to administrator command") == 0, "%s",
		      idle.err_msg);
		t = raw_trace(&busy, 10000, st);
		CHECK(strstr(t, "E") && strstr(t, "EOF") && strcmp(st, "57P01") == 0, "busy session: %s (%s)",
		      t, st);
		/* Waiting for COPY data: no poll() on the stop pipe there either. */
		t = raw_trace(&copy, 10000, st);
		CHECK(strstr(t, "E") && strstr(t, "EOF") && strcmp(st, "57P01") == 0,
		      "session in COPY FROM STDIN: %s (%s)", t, st);
		CHECK(now_s() - t0 < 10, "shutdown took %.1f s", now_s() - t0);
	}
	raw_close(&idle);
	raw_close(&busy);
	raw_close(&copy);
	CHECK(fixture_stop(&fx, wt_case_failures() > 0) == 0, "the server did not exit cleanly (%s)",
	      fx.kept);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"cancel", test_cancel},
	    {"cancel_wrong_key", test_cancel_wrong_key},
	    {"statement_timeout", test_statement_timeout},
	    {"idle_in_transaction_timeout", test_idle_in_transaction_timeout},
	    {"idle_session_timeout", test_idle_session_timeout},
	    {"shutdown", test_shutdown},
	};
	return wt_main(argc, argv, "wire_session", NULL, cases, sizeof cases / sizeof cases[0]);
}
