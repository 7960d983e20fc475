/*
 * slt_exec.c — talks to the server under test through libpq for the
 * sqllogictest runner: connecting, running one SQL string with a client-side
 * timeout (cancel, then drop the connection if the server does not stop), and
 * remembering which tables and views a script created so they can be dropped
 * when the script ends.
 */
#include <ctype.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slt_exec.h"

double slt_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void quiet_notices(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

PGconn *slt_connect(const char *conninfo, char *err, size_t errlen)
{
	PGconn *c = PQconnectdb(conninfo);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		snprintf(err, errlen, "%s", PQerrorMessage(c));
		size_t n = strlen(err);
		while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
			err[--n] = '\0';
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet_notices, NULL);
	return c;
}

/* Waits until the connection has a complete result or `deadline` passes. */
static bool wait_ready(PGconn *c, double deadline)
{
	while (PQisBusy(c)) {
		double left = deadline - slt_now();
		if (left <= 0)
			return false;
		struct pollfd pfd = {.fd = PQsocket(c), .events = POLLIN};
		int ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
		int rc = poll(&pfd, 1, ms);
		if (rc < 0)
			continue;
		if (rc > 0 && !PQconsumeInput(c))
			return true; /* connection trouble: PQgetResult reports it */
	}
	return true;
}

static void copy_error(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg && *msg ? msg : "unknown error");
	size_t n = strlen(err);
	while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = '\0';
}

slt_exec_status slt_exec(PGconn *c, const char *sql, double timeout, PGresult **out, char *err, size_t errlen)
{
	*out = NULL;
	err[0] = '\0';
	if (!PQsendQuery(c, sql)) {
		copy_error(err, errlen, PQerrorMessage(c));
		return PQstatus(c) == CONNECTION_BAD ? SLT_EXEC_LOST : SLT_EXEC_ERROR;
	}
	double deadline = slt_now() + timeout;
	PGresult *last = NULL;
	slt_exec_status st = SLT_EXEC_OK;
	for (;;) {
		if (!wait_ready(c, deadline)) {
			/* Ask the server to stop; if it does not within 2 s, give up on
			 * the connection (the caller reconnects). */
			PGcancel *cn = PQgetCancel(c);
			char ebuf[256];
			if (cn) {
				PQcancel(cn, ebuf, sizeof ebuf);
				PQfreeCancel(cn);
			}
			snprintf(err, errlen, "timed out after %.0f s", timeout);
			if (last)
				PQclear(last);
			if (!wait_ready(c, slt_now() + 2.0))
				return SLT_EXEC_TIMEOUT_DEAD;
			PGresult *r;
			while ((r = PQgetResult(c)) != NULL)
				PQclear(r);
			return SLT_EXEC_TIMEOUT;
		}
		PGresult *r = PQgetResult(c);
		if (!r)
			break;
		ExecStatusType rs = PQresultStatus(r);
		if (rs == PGRES_FATAL_ERROR || rs == PGRES_BAD_RESPONSE || rs == PGRES_NONFATAL_ERROR) {
			if (st == SLT_EXEC_OK) {
				const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
				char msg[1024];
				copy_error(msg, sizeof msg, PQresultErrorMessage(r));
				snprintf(err, errlen, "%s%s%s", code ? code : "", code ? " " : "", msg);
				st = SLT_EXEC_ERROR;
			}
			PQclear(r);
			continue;
		}
		if (rs == PGRES_COPY_IN || rs == PGRES_COPY_OUT || rs == PGRES_COPY_BOTH) {
			PQclear(r);
			copy_error(err, errlen, "COPY is not supported by the runner");
			return SLT_EXEC_LOST;
		}
		if (last)
			PQclear(last);
		last = r;
	}
	if (PQstatus(c) == CONNECTION_BAD) {
		if (last)
			PQclear(last);
		if (!err[0])
			copy_error(err, errlen, PQerrorMessage(c));
		return SLT_EXEC_LOST;
	}
	if (st != SLT_EXEC_OK) {
		if (last)
			PQclear(last);
		return st;
	}
	if (!last) {
		copy_error(err, errlen, "no result");
		return SLT_EXEC_ERROR;
	}
	*out = last;
	return SLT_EXEC_OK;
}

/* ------------------------------------------------ created-object tracking */

static const char *skip_space(const char *p)
{
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
		} else {
			return p;
		}
	}
}

/* Matches keyword `kw` (case-insensitive, whole word) and advances past it. */
static bool keyword(const char **pp, const char *kw)
{
	const char *p = skip_space(*pp);
	size_t n = strlen(kw);
	if (strncasecmp(p, kw, n) != 0)
		return false;
	char next = p[n];
	if (isalnum((unsigned char)next) || next == '_' || next == '$')
		return false;
	*pp = p + n;
	return true;
}

/* Reads a possibly qualified, possibly quoted name; unquoted parts fold to
 * lower case as PostgreSQL does. False if there is none. */
static bool read_name(const char **pp, char *out, size_t outlen)
{
	const char *p = skip_space(*pp);
	size_t n = 0;
	for (;;) {
		if (*p == '"') {
			if (n + 1 < outlen)
				out[n++] = '"';
			p++;
			while (*p) {
				if (p[0] == '"' && p[1] == '"') {
					if (n + 2 < outlen) {
						out[n++] = '"';
						out[n++] = '"';
					}
					p += 2;
					continue;
				}
				if (*p == '"')
					break;
				if (n + 1 < outlen)
					out[n++] = *p;
				p++;
			}
			if (*p != '"')
				return false;
			if (n + 1 < outlen)
				out[n++] = '"';
			p++;
		} else if (isalpha((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80) {
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$' ||
			       (unsigned char)*p >= 0x80) {
				if (n + 1 < outlen)
					out[n++] = (char)tolower((unsigned char)*p);
				p++;
			}
		} else {
			return false;
		}
		if (*p != '.')
			break;
		if (n + 1 < outlen)
			out[n++] = '.';
		p++;
	}
	out[n] = '\0';
	*pp = p;
	return n > 0;
}

static void track_add(slt_objects *o, char kind, const char *name)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? o->cap * 2 : 16;
		o->objs = realloc(o->objs, (size_t)o->cap * sizeof(o->objs[0]));
		if (!o->objs) {
			fprintf(stderr, "slt: out of memory\n");
			exit(2);
		}
	}
	o->objs[o->n].kind = kind;
	snprintf(o->objs[o->n].name, sizeof o->objs[0].name, "%s", name);
	o->n++;
}

static void track_remove(slt_objects *o, char kind, const char *name)
{
	for (int i = o->n - 1; i >= 0; i--) {
		if (o->objs[i].kind == kind && strcmp(o->objs[i].name, name) == 0) {
			memmove(&o->objs[i], &o->objs[i + 1], (size_t)(o->n - i - 1) * sizeof(o->objs[0]));
			o->n--;
			return;
		}
	}
}

void slt_track(slt_objects *o, const char *sql)
{
	const char *p = sql;
	char name[sizeof o->objs[0].name];
	if (keyword(&p, "create")) {
		if (keyword(&p, "or"))
			if (!keyword(&p, "replace"))
				return;
		if (!keyword(&p, "temporary"))
			keyword(&p, "temp");
		keyword(&p, "unlogged");
		keyword(&p, "recursive");
		char kind;
		if (keyword(&p, "table"))
			kind = 'T';
		else if (keyword(&p, "view"))
			kind = 'V';
		else
			return;
		const char *save = p;
		if (!(keyword(&p, "if") && keyword(&p, "not") && keyword(&p, "exists")))
			p = save;
		if (read_name(&p, name, sizeof name)) {
			track_remove(o, kind, name);
			track_add(o, kind, name);
		}
	} else if (keyword(&p, "drop")) {
		char kind;
		if (keyword(&p, "table"))
			kind = 'T';
		else if (keyword(&p, "view"))
			kind = 'V';
		else
			return;
		const char *save = p;
		if (!(keyword(&p, "if") && keyword(&p, "exists")))
			p = save;
		while (read_name(&p, name, sizeof name)) {
			track_remove(o, kind, name);
			p = skip_space(p);
			if (*p != ',')
				break;
			p++;
		}
	}
}

int slt_drop_tracked(PGconn *c, slt_objects *o, double timeout, char *err, size_t errlen)
{
	int failures = 0;
	err[0] = '\0';
	/* Views first (they depend on tables), each kind newest first. */
	for (int pass = 0; pass < 2; pass++) {
		char kind = pass == 0 ? 'V' : 'T';
		for (int i = o->n - 1; i >= 0; i--) {
			if (o->objs[i].kind != kind)
				continue;
			char sql[sizeof o->objs[0].name + 32];
			snprintf(sql, sizeof sql, "DROP %s %s", kind == 'V' ? "VIEW" : "TABLE",
				 o->objs[i].name);
			PGresult *r = NULL;
			char e[512];
			slt_exec_status st = slt_exec(c, sql, timeout, &r, e, sizeof e);
			if (r)
				PQclear(r);
			if (st != SLT_EXEC_OK) {
				if (!failures)
					snprintf(err, errlen, "%s: %s", sql, e);
				failures++;
				if (st == SLT_EXEC_LOST || st == SLT_EXEC_TIMEOUT_DEAD)
					return failures;
			}
		}
	}
	o->n = 0;
	return failures;
}

void slt_objects_free(slt_objects *o)
{
	free(o->objs);
	memset(o, 0, sizeof *o);
}
