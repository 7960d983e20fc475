/*
 * slt_exec.h — the runner's libpq side (slt_exec.c): connecting, running SQL
 * with a timeout, and tracking the tables and views a script creates so the
 * runner can drop them when the script ends.
 */
#ifndef STRATA_SLT_EXEC_H
#define STRATA_SLT_EXEC_H

#include <libpq-fe.h>

#include "slt.h"

/* Monotonic clock in seconds. */
double slt_now(void);

/* Connects with a libpq conninfo string; NULL and a message in `err` on
 * failure. Notices are discarded. Caller closes with PQfinish(). */
PGconn *slt_connect(const char *conninfo, char *err, size_t errlen);

typedef enum slt_exec_status {
	SLT_EXEC_OK,           /* *out holds the last result; caller PQclear()s it */
	SLT_EXEC_ERROR,        /* the server reported an error ("SQLSTATE message" in err) */
	SLT_EXEC_TIMEOUT,      /* cancelled after `timeout`; connection still usable */
	SLT_EXEC_TIMEOUT_DEAD, /* timed out and the server did not stop; reconnect */
	SLT_EXEC_LOST,         /* the connection is gone */
} slt_exec_status;

/* Runs `sql` with the simple query protocol, waiting at most `timeout`
 * seconds. */
slt_exec_status slt_exec(PGconn *c, const char *sql, double timeout, PGresult **out, char *err,
			 size_t errlen);

/* Tables ('T') and views ('V') created by a script, in creation order. */
typedef struct slt_objects {
	struct {
		char kind;
		char name[200];
	} * objs;
	int n, cap;
} slt_objects;

/* Notes a successfully executed statement: CREATE [OR REPLACE] [TEMP] TABLE|VIEW
 * adds its name, DROP TABLE|VIEW removes the names. Other SQL is ignored. */
void slt_track(slt_objects *o, const char *sql);

/* Drops every tracked object (views first, newest first) with plain DROP
 * TABLE / DROP VIEW and forgets them. Returns the number of DROPs that failed;
 * the first failure is described in `err`. */
int slt_drop_tracked(PGconn *c, slt_objects *o, double timeout, char *err, size_t errlen);

void slt_objects_free(slt_objects *o);

#endif
