/* wire_load_test.c — concurrency: 200 sessions open at once running queries, max_connections
 * (53300 beyond it, a freed slot is reusable), clients that stall or stop reading never block
 * the others, and connection churn. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire_test.h"

#define SESSIONS 200

static const char *const *server_args(fixture_server *fx)
{
	(void)fx;
	static const char *args[] = {"--max-connections", "250", NULL};
	return args;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

typedef struct worker {
	fixture_server *fx;
	pthread_barrier_t *all_open;
	int id, ok;
	char err[256];
} worker;

static void *session(void *arg)
{
	worker *w = arg;
	char ci[512], extra[64];
	snprintf(extra, sizeof extra, "user=postgres application_name=w%d", w->id);
	PGconn *c = PQconnectdb(fixture_conninfo(w->fx, extra, ci, sizeof ci));
	bool up = PQstatus(c) == CONNECTION_OK;
	if (!up)
		snprintf(w->err, sizeof w->err, "%s", PQerrorMessage(c));
	/* everyone holds a session before anyone starts querying */
	pthread_barrier_wait(w->all_open);
	for (int i = 0; up && i < 20; i++) {
		char num[16];
		snprintf(num, sizeof num, "%d", w->id * 100 + i);
		const char *v[1] = {num};
		PGresult *r = PQexecParams(c, "select $1::int + 1", 1, NULL, v, NULL, NULL, 0);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && atoi(PQgetvalue(r, 0, 0)) == w->id * 100 + i + 1)
			w->ok++;
		else
			snprintf(w->err, sizeof w->err, "%s", PQresultErrorMessage(r));
		PQclear(r);
	}
	PQfinish(c);
	return NULL;
}

static void test_many_sessions(fixture_server *fx)
{
	static worker w[SESSIONS];
	pthread_t th[SESSIONS];
	pthread_barrier_t b;
	pthread_barrier_init(&b, NULL, SESSIONS);
	for (int i = 0; i < SESSIONS; i++) {
		w[i] = (worker){.fx = fx, .all_open = &b, .id = i};
		pthread_create(&th[i], NULL, session, &w[i]);
	}
	int ok = 0;
	for (int i = 0; i < SESSIONS; i++) {
		pthread_join(th[i], NULL);
		ok += w[i].ok;
		if (w[i].ok != 20)
			CHECK(false, "session %d: %d of 20 (%s)", i, w[i].ok, w[i].err);
	}
	pthread_barrier_destroy(&b);
	CHECK(ok == SESSIONS * 20, "%d of %d queries", ok, SESSIONS * 20);
}

static void test_max_connections(fixture_server *shared)
{
	(void)shared;
	fixture_server fx;
	const char *args[] = {"--max-connections", "5", NULL};
	if (fixture_init(&fx, "wire_maxconn") != 0 || fixture_start(&fx, args) != 0) {
		CHECK(false, "could not start a server with max_connections 5");
		fixture_stop(&fx, true);
		return;
	}
	PGconn *c[5];
	for (int i = 0; i < 5; i++)
		c[i] = wt_connect(&fx, NULL);
	const char *m = wt_connect_fail(&fx, "user=postgres");
	CHECK(strstr(m, "sorry, too many clients already"), "%s", m);
	raw_conn r;
	if (raw_open(&r, fx.host, fx.port) && raw_send_startup(&r, "postgres", "postgres")) {
		char st[8];
		const char *t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "53300") == 0, "%s (%s)", t, st);
	}
	raw_close(&r);
	/* a cancel request still gets through when all slots are taken */
	CHECK(PQsendQuery(c[0], "select pg_sleep(30)"), "send");
	usleep(200 * 1000);
	PGcancel *k = PQgetCancel(c[0]);
	char err[256];
	CHECK(PQcancel(k, err, sizeof err) == 1, "cancel: %s", err);
	PQfreeCancel(k);
	PGresult *res = PQgetResult(c[0]);
	CHECK(strcmp(wt_sqlstate(res), "57014") == 0, "cancel at max_connections: %s",
	      PQresultErrorMessage(res));
	PQclear(res);
	while ((res = PQgetResult(c[0])))
		PQclear(res);
	/* a freed slot can be taken again */
	PQfinish(c[4]);
	c[4] = NULL;
	for (int tries = 0; tries < 50 && !c[4]; tries++) {
		char ci[512];
		PGconn *x = PQconnectdb(fixture_conninfo(&fx, "user=postgres", ci, sizeof ci));
		if (PQstatus(x) == CONNECTION_OK)
			c[4] = x;
		else
			PQfinish(x), usleep(50 * 1000);
	}
	CHECK(c[4] != NULL, "slot not freed");
	for (int i = 0; i < 5; i++)
		PQfinish(c[i]);
	CHECK(fixture_stop(&fx, wt_case_failures() > 0) == 0, "server did not exit cleanly (%s)", fx.kept);
}

static void test_stalled_clients(fixture_server *fx)
{
	raw_conn silent, half_startup, half_msg, no_reader;
	bool ok = raw_open(&silent, fx->host, fx->port);
	ok = ok && raw_open(&half_startup, fx->host, fx->port) &&
	     raw_send(&half_startup, "\0\0\0\x30\0\3\0\0us", 10);
	ok = ok && raw_login(&half_msg, fx->host, fx->port, "postgres") &&
	     raw_send(&half_msg, "Q\0\0\0\x20sel", 8);
	/* asks for a big result and never reads it: the server's writes block */
	ok = ok && raw_login(&no_reader, fx->host, fx->port, "postgres");
	const char q[] = "select generate_series(1,3000000)";
	ok = ok && raw_send_msg(&no_reader, 'Q', q, sizeof q);
	CHECK(ok, "could not set up the stalled clients");
	usleep(300 * 1000);
	double t0 = now_s();
	for (int i = 0; i < 20; i++) {
		PGconn *c = wt_connect(fx, NULL);
		PGresult *r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
		PQclear(r);
		PQfinish(c);
	}
	double took = now_s() - t0;
	CHECK(took < 10, "20 sessions took %.1f s next to stalled clients", took);
	raw_close(&silent);
	raw_close(&half_startup);
	raw_close(&half_msg);
	raw_close(&no_reader);
}

static void test_churn(fixture_server *fx)
{
	int ok = 0;
	for (int i = 0; i < 300; i++) {
		char ci[512];
		PGconn *c = PQconnectdb(fixture_conninfo(fx, "user=postgres", ci, sizeof ci));
		if (PQstatus(c) == CONNECTION_OK) {
			PGresult *r = PQexec(c, "select 1");
			if (PQresultStatus(r) == PGRES_TUPLES_OK)
				ok++;
			PQclear(r);
		}
		PQfinish(c);
	}
	CHECK(ok == 300, "%d of 300", ok);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"many_sessions", test_many_sessions},
	    {"max_connections", test_max_connections},
	    {"stalled_clients", test_stalled_clients},
	    {"churn", test_churn},
	};
	return wt_main(argc, argv, "wire_load", server_args, cases, sizeof cases / sizeof cases[0]);
}
