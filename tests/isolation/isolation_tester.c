/*
 * isolation_tester.c — runs an isolation spec (iso_spec.h) against a
 * PostgreSQL-protocol server, in the manner of PostgreSQL's
 * src/test/isolation/isolationtester: one connection per session plus a
 * control connection for the spec's setup and teardown, the steps of each
 * permutation sent in order with libpq's asynchronous API, and a transcript
 * on stdout that tests/isolation/run.sh diffs with PostgreSQL 15's.
 *
 * A step counts as waiting when it has not completed within --wait-ms
 * milliseconds and the server's pg_locks shows its session waiting for a lock
 * (a lock not granted); a step past the threshold that waits for no lock is
 * only slow (a loaded machine) and is waited for. Asking pg_locks, as
 * PostgreSQL's tester asks its own server, keeps a slow step from being
 * reported as blocked; the threshold keeps the question off the fast path.
 * The same rule runs on Strata and on PostgreSQL, so transcripts compare.
 *
 * Transcript, as PostgreSQL's: "Parsed test spec with N sessions",
 * "starting permutation: a b ...", "step NAME: SQL" when a step completes at
 * once, "step NAME: SQL <waiting ...>" and later "step NAME: <... completed>",
 * result sets as PQprint prints them, errors as "ERROR:  SQLSTATE: message"
 * (PostgreSQL's tester omits the SQLSTATE; here it is part of the behaviour
 * under test), notices as "SESSION: NOTICE:  SQLSTATE: message" after the step
 * that raised them.
 */
#include <errno.h>
#include <getopt.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include "iso_spec.h"

typedef struct options {
	const char *host, *port, *user, *dbname;
	int wait_ms;         /* a step still running after this long is "waiting" */
	int step_timeout_s;  /* a step still running after this long is cancelled */
	const char *appname; /* prefix of application_name */
} options;

/* One connection: the control connection (index 0) or a session's. */
typedef struct conn_state {
	PGconn *conn;
	const char *name;
	iso_step *active; /* sent, not yet reported complete */
	PGresult **results;
	int nresults;
	bool lost;
	char *notices; /* buffered, printed after the next event of this connection */
	size_t nlen, ncap;
} conn_state;

static options opt = {.wait_ms = 500, .step_timeout_s = 60, .appname = "isolation"};
static conn_state *conns;
static int nconns;

/* Steps reported "<waiting ...>" and not yet completed, in launch order. */
static conn_state **waiting;
static int nwaiting;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *fmt, const char *a, const char *b)
{
	printf(fmt, a, b);
	fflush(stdout);
	exit(1);
}

static void notice_append(conn_state *c, const char *s)
{
	size_t n = strlen(s);
	if (c->nlen + n + 1 > c->ncap) {
		c->ncap = (c->nlen + n + 1) * 2;
		c->notices = realloc(c->notices, c->ncap);
		if (!c->notices) {
			fprintf(stderr, "isolation: out of memory\n");
			exit(2);
		}
	}
	memcpy(c->notices + c->nlen, s, n + 1);
	c->nlen += n;
}

static void notice_receiver(void *arg, const PGresult *r)
{
	conn_state *c = arg;
	const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY);
	const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	char line[4096];
	if (sev && msg)
		snprintf(line, sizeof line, "%s: %s:  %s%s%s\n", c->name, sev, code ? code : "",
			 code ? ": " : "", msg);
	else
		snprintf(line, sizeof line, "%s: %s", c->name, PQresultErrorMessage(r));
	notice_append(c, line);
}

static void flush_notices(conn_state *c)
{
	if (c->nlen) {
		fputs(c->notices, stdout);
		c->nlen = 0;
		c->notices[0] = '\0';
	}
}

static void print_result(const PGresult *r)
{
	switch (PQresultStatus(r)) {
	case PGRES_COMMAND_OK:
	case PGRES_EMPTY_QUERY:
		break;
	case PGRES_TUPLES_OK: {
		PQprintOpt po = {0};
		po.header = 1;
		po.align = 1;
		po.fieldSep = "|";
		PQprint(stdout, r, &po);
		break;
	}
	case PGRES_FATAL_ERROR:
	case PGRES_NONFATAL_ERROR: {
		const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY);
		const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
		if (sev && msg)
			printf("%s:  %s%s%s\n", sev, code ? code : "", code ? ": " : "", msg);
		else
			printf("%s", PQresultErrorMessage(r));
		break;
	}
	default:
		printf("unexpected result status: %s\n", PQresStatus(PQresultStatus(r)));
	}
}

/* Runs setup or teardown SQL synchronously, as PostgreSQL's tester does:
 * only the last result counts. Returns false (message printed) on error. */
static bool exec_sql(conn_state *c, const char *sql, const char *what)
{
	PGresult *r = PQexec(c->conn, sql);
	bool ok = true;
	if (PQresultStatus(r) == PGRES_TUPLES_OK) {
		print_result(r);
	} else if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_EMPTY_QUERY) {
		printf("%s failed: %s", what, PQerrorMessage(c->conn));
		ok = false;
	}
	PQclear(r);
	flush_notices(c);
	if (PQstatus(c->conn) != CONNECTION_OK)
		die("%s: connection to server lost%s\n", what, "");
	return ok;
}

/* Collects the results that are ready without blocking; true once the
 * active query has completed (or the connection is gone). */
static bool drain(conn_state *c)
{
	if (!PQconsumeInput(c->conn)) {
		c->lost = true;
		return true;
	}
	while (!PQisBusy(c->conn)) {
		PGresult *r = PQgetResult(c->conn);
		if (!r)
			return true;
		c->results = realloc(c->results, sizeof *c->results * (size_t)(c->nresults + 1));
		if (!c->results) {
			fprintf(stderr, "isolation: out of memory\n");
			exit(2);
		}
		c->results[c->nresults++] = r;
	}
	return false;
}

/* Waits for C's active step until it completes (true) or the monotonic
 * time DEADLINE passes (false); a DEADLINE in the past just drains. */
static bool wait_conn(conn_state *c, int64_t deadline)
{
	for (;;) {
		if (drain(c))
			return true;
		int64_t left = deadline - now_us();
		if (left <= 0)
			return false;
		if (left > 100000)
			left = 100000;
		fd_set rf;
		FD_ZERO(&rf);
		int fd = PQsocket(c->conn);
		if (fd < 0) {
			c->lost = true;
			return true;
		}
		FD_SET(fd, &rf);
		struct timeval tv = {.tv_sec = 0, .tv_usec = (long)left};
		if (select(fd + 1, &rf, NULL, NULL, &tv) < 0 && errno != EINTR) {
			perror("isolation: select");
			exit(2);
		}
	}
}

/* Does the server show C's session waiting for a lock? Asked on the idle
 * control connection; an error counts as blocked (the time rule alone). */
static bool blocked(conn_state *c)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT 1 FROM pg_catalog.pg_locks WHERE pid = %d AND NOT granted LIMIT 1",
		 PQbackendPID(c->conn));
	PGresult *r = PQexec(conns[0].conn, sql);
	bool b = PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) > 0;
	PQclear(r);
	return b;
}

/* C's step is past the wait threshold: waits until it completes (true) or
 * the server shows it waiting for a lock (false). A slow step that waits for
 * no lock is waited for, up to the step timeout. */
static bool settle(conn_state *c)
{
	int64_t start = now_us();
	while (!blocked(c)) {
		if (wait_conn(c, now_us() + (int64_t)opt.wait_ms * 1000))
			return true;
		if (now_us() - start > (int64_t)opt.step_timeout_s * 1000000)
			return false;
	}
	return false;
}

/* Prints a completed step (its SQL, or "<... completed>" after a wait) and
 * its results, and forgets it. */
static void report_complete(conn_state *c, bool after_wait)
{
	iso_step *st = c->active;
	if (after_wait)
		printf("step %s: <... completed>\n", st->name);
	else
		printf("step %s: %s\n", st->name, st->sql);
	for (int i = 0; i < c->nresults; i++) {
		print_result(c->results[i]);
		PQclear(c->results[i]);
	}
	c->nresults = 0;
	flush_notices(c);
	c->active = NULL;
	if (c->lost)
		die("FATAL:  connection to server lost in step %s: %s", st->name, PQerrorMessage(c->conn));
	fflush(stdout);
}

static void unwait(conn_state *c)
{
	for (int i = 0; i < nwaiting; i++)
		if (waiting[i] == c) {
			memmove(waiting + i, waiting + i + 1, sizeof *waiting * (size_t)(nwaiting - i - 1));
			nwaiting--;
			return;
		}
}

/* Reports every waiting step (other than EXCEPT) that completes by DEADLINE,
 * in launch order; with SETTLE_THEM, one that no longer waits for a lock by then
 * (released, still catching up on a loaded machine) is waited for. */
static void check_waiting(conn_state *except, int64_t deadline, bool settle_them)
{
	for (int i = 0; i < nwaiting;) {
		conn_state *c = waiting[i];
		if (c != except && (wait_conn(c, deadline) || (settle_them && settle(c)))) {
			report_complete(c, true);
			unwait(c);
		} else {
			i++;
		}
	}
}

/* C's step has run for longer than --step-timeout: cancel it so the
 * transcript shows the hang instead of the suite hanging. */
static void cancel_step(conn_state *c)
{
	printf("isolation: step %s still running after %d s; canceling it\n", c->active->name,
	       opt.step_timeout_s);
	char buf[256];
	PGcancel *cn = PQgetCancel(c->conn);
	if (!cn || !PQcancel(cn, buf, sizeof buf))
		printf("isolation: could not send cancel: %s\n", cn ? buf : "no cancel handle");
	PQfreeCancel(cn);
	if (!wait_conn(c, now_us() + 10 * 1000000))
		die("isolation: step %s ignored the cancel request; giving up%s\n", c->active->name, "");
}

/* Waits until C's active step completes, reporting other waiting steps that
 * complete meanwhile. */
static void finish_step(conn_state *c)
{
	int64_t start = now_us();
	for (;;) {
		if (wait_conn(c, now_us() + (int64_t)opt.wait_ms * 1000)) {
			report_complete(c, true);
			unwait(c);
			return;
		}
		check_waiting(c, 0, false);
		if (now_us() - start > (int64_t)opt.step_timeout_s * 1000000) {
			cancel_step(c);
			report_complete(c, true);
			unwait(c);
			return;
		}
	}
}

static void run_permutation(iso_spec *spec, iso_step **steps, int n)
{
	printf("\nstarting permutation:");
	for (int i = 0; i < n; i++)
		printf(" %s", steps[i]->name);
	printf("\n");

	for (int i = 0; i < spec->nsetups; i++)
		if (!exec_sql(&conns[0], spec->setups[i], "setup"))
			exit(1);
	for (int i = 0; i < spec->nsessions; i++)
		if (spec->sessions[i]->setup && !exec_sql(&conns[i + 1], spec->sessions[i]->setup, "setup"))
			exit(1);

	for (int i = 0; i < n; i++) {
		iso_step *st = steps[i];
		conn_state *c = &conns[st->session + 1];
		/* Its session still waits on an earlier step: that has to finish first. */
		if (c->active)
			finish_step(c);
		if (!PQsendQuery(c->conn, st->sql))
			die("failed to send query for step %s: %s", st->name, PQerrorMessage(c->conn));
		c->active = st;
		if (wait_conn(c, now_us() + (int64_t)opt.wait_ms * 1000) || settle(c)) {
			report_complete(c, false);
			/* Give steps it may have unblocked the same time to finish. */
			check_waiting(NULL, now_us() + (int64_t)opt.wait_ms * 1000, true);
		} else {
			printf("step %s: %s <waiting ...>\n", st->name, st->sql);
			flush_notices(c);
			fflush(stdout);
			/* A blocked step released nothing: only collect what finished meanwhile. */
			check_waiting(NULL, 0, false);
			waiting = realloc(waiting, sizeof *waiting * (size_t)(nwaiting + 1));
			if (!waiting) {
				fprintf(stderr, "isolation: out of memory\n");
				exit(2);
			}
			waiting[nwaiting++] = c;
		}
	}
	while (nwaiting > 0)
		finish_step(waiting[0]);

	for (int i = 0; i < spec->nsessions; i++)
		if (spec->sessions[i]->teardown)
			exec_sql(&conns[i + 1], spec->sessions[i]->teardown, "teardown");
	if (spec->teardown)
		exec_sql(&conns[0], spec->teardown, "teardown");
	fflush(stdout);
}

/* Every interleaving of the sessions' steps, each session's in its order,
 * enumerated as PostgreSQL's tester does. */
static void run_all_permutations(iso_spec *spec, int *piles, iso_step **steps, int n)
{
	bool found = false;
	for (int i = 0; i < spec->nsessions; i++) {
		iso_session *s = spec->sessions[i];
		if (piles[i] < s->nsteps) {
			steps[n] = s->steps[piles[i]];
			piles[i]++;
			run_all_permutations(spec, piles, steps, n + 1);
			piles[i]--;
			found = true;
		}
	}
	if (!found)
		run_permutation(spec, steps, n);
}

static void connect_all(iso_spec *spec, const char *specname)
{
	nconns = spec->nsessions + 1;
	conns = calloc((size_t)nconns, sizeof *conns);
	if (!conns)
		exit(2);
	for (int i = 0; i < nconns; i++) {
		conn_state *c = &conns[i];
		c->name = i == 0 ? "control connection" : spec->sessions[i - 1]->name;
		char app[128];
		snprintf(app, sizeof app, "%s/%s/%s", opt.appname, specname, i == 0 ? "control" : c->name);
		const char *keys[] = {"host", "port", "user", "dbname", "application_name", "connect_timeout",
				      NULL};
		const char *vals[] = {opt.host, opt.port, opt.user, opt.dbname, app, "10", NULL};
		c->conn = PQconnectdbParams(keys, vals, 1);
		if (PQstatus(c->conn) != CONNECTION_OK) {
			fprintf(stderr, "isolation: connection for %s failed: %s", c->name,
				PQerrorMessage(c->conn));
			exit(1);
		}
		PQsetNoticeReceiver(c->conn, notice_receiver, c);
	}
}

static void usage(FILE *f)
{
	fprintf(f, "usage: isolation_tester [options] SPECFILE\n"
		   "  -h, --host HOST          server host (default: libpq's)\n"
		   "  -p, --port PORT          server port\n"
		   "  -U, --user USER          user (default postgres)\n"
		   "  -d, --dbname DB          database (default postgres)\n"
		   "  -w, --wait-ms MS         a step still running after MS ms whose session waits for\n"
		   "                           a lock (pg_locks) is waiting (default 500,\n"
		   "                           or $ISOLATION_WAIT_MS)\n"
		   "  -t, --step-timeout SEC   cancel a step still running after SEC s (default 60)\n"
		   "Prints the transcript on stdout; exits 1 on setup or connection failures.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"host", required_argument, NULL, 'h'},    {"port", required_argument, NULL, 'p'},
	    {"user", required_argument, NULL, 'U'},    {"dbname", required_argument, NULL, 'd'},
	    {"wait-ms", required_argument, NULL, 'w'}, {"step-timeout", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'H'},          {NULL, 0, NULL, 0},
	};
	opt.user = "postgres";
	opt.dbname = "postgres";
	if (getenv("ISOLATION_WAIT_MS"))
		opt.wait_ms = atoi(getenv("ISOLATION_WAIT_MS"));
	int ch;
	while ((ch = getopt_long(argc, argv, "h:p:U:d:w:t:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'h':
			opt.host = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'U':
			opt.user = optarg;
			break;
		case 'd':
			opt.dbname = optarg;
			break;
		case 'w':
			opt.wait_ms = atoi(optarg);
			break;
		case 't':
			opt.step_timeout_s = atoi(optarg);
			break;
		case 'H':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || opt.wait_ms <= 0 || opt.step_timeout_s <= 0) {
		usage(stderr);
		return 2;
	}
	const char *path = argv[optind];
	char err[1024];
	iso_spec *spec = iso_spec_load(path, err, sizeof err);
	if (!spec) {
		fprintf(stderr, "isolation: %s\n", err);
		return 1;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char specname[64];
	snprintf(specname, sizeof specname, "%.*s", (int)strcspn(base, "."), base);

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	printf("Parsed test spec with %d sessions\n", spec->nsessions);
	connect_all(spec, specname);
	if (spec->nperms > 0) {
		for (int i = 0; i < spec->nperms; i++)
			run_permutation(spec, spec->perms[i]->steps, spec->perms[i]->nsteps);
	} else {
		int total = 0;
		for (int i = 0; i < spec->nsessions; i++)
			total += spec->sessions[i]->nsteps;
		int *piles = calloc((size_t)spec->nsessions, sizeof *piles);
		iso_step **steps = calloc((size_t)total, sizeof *steps);
		if (!piles || !steps)
			return 2;
		run_all_permutations(spec, piles, steps, 0);
		free(piles);
		free(steps);
	}
	for (int i = 0; i < nconns; i++) {
		PQfinish(conns[i].conn);
		free(conns[i].results);
		free(conns[i].notices);
	}
	free(conns);
	free(waiting);
	iso_spec_free(spec);
	fflush(stdout);
	return 0;
}
