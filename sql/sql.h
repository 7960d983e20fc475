/*
 * sql.h — the SQL engine as the wire protocol sees it: an engine per
 * server, a session per connection, statements prepared and executed into
 * a destination that receives rows already formatted for the client.
 *
 * The wire layer (wire/) speaks the PostgreSQL protocol and calls only
 * this header; it never sees types, plans or the store. Everything here
 * reports errors in a util_err (SQLSTATE + fields) owned by the caller.
 *
 * Threads: one thread drives a session at a time; sql_session_cancel()
 * may be called from any thread. The engine is shared by all sessions.
 */
#ifndef STRATA_SQL_H
#define STRATA_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct sql_engine sql_engine;
typedef struct sql_session sql_session;
typedef struct sql_stmt sql_stmt;     /* a prepared statement (Parse) */
typedef struct sql_portal sql_portal; /* a bound statement (Bind) */

/* ---------------------------------------------------------------- engine */

typedef struct sql_engine_opts {
	const char *data_dir;    /* holds the store; created on first start */
	const char *store_uri;   /* NULL = embedded store in data_dir */
	int max_connections;     /* reported by SHOW max_connections */
	size_t work_mem;         /* default per-operator memory budget, bytes */
	size_t block_cache_bytes;
	bool sync_commit;        /* fsync before acknowledging commits (default true) */
	/* Versions younger than this stay readable (time travel, incremental
	 * backups) unless a table's retention option says otherwise. */
	int64_t history_retention_s; /* default 3600 */
	int log_min_duration_ms;     /* default of log_min_duration_statement (-1 = off) */
	/* Test knobs (0/NULL = the store's defaults): small memstores and log
	 * segments make crash tests go through flushes, compactions and segment
	 * switches; fs runs the store on another file system (kvstore/kv_fault.h
	 * in fault-injection tests), borrowed, must outlive the engine. */
	size_t memstore_flush_bytes;
	size_t wal_segment_bytes;
	struct kv_fs *fs;
} sql_engine_opts;

void sql_engine_opts_default(sql_engine_opts *o);
/* Opens the store and catalog; on first start bootstraps role "postgres"
 * (superuser) and database "postgres". */
int sql_engine_open(const sql_engine_opts *o, sql_engine **out, util_err *err);
void sql_engine_close(sql_engine *e);

/* What authentication needs to know about a role. */
typedef struct sql_role_info {
	bool exists;
	bool can_login;
	bool superuser;
	/* "SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>", "md5<hex>", or "" */
	char password[256];
	int64_t valid_until; /* µs since Unix epoch, 0 = forever */
} sql_role_info;

int sql_role_lookup(sql_engine *e, const char *role, sql_role_info *out, util_err *err);
bool sql_database_exists(sql_engine *e, const char *db);

/* ---------------------------------------------------------------- client callbacks */

typedef enum sql_copy_format { SQL_COPY_TEXT = 0, SQL_COPY_CSV, SQL_COPY_BINARY } sql_copy_format;

/* Callbacks from the engine to the connection. All run on the session's thread. */
typedef struct sql_client {
	void *arg;
	/* NoticeResponse (severity NOTICE/WARNING/INFO...). */
	void (*notice)(void *arg, const util_err *n);
	/* ParameterStatus for a reportable setting that changed. */
	void (*parameter_status)(void *arg, const char *name, const char *value);
	/* COPY FROM STDIN: send CopyInResponse, then the engine pulls data. */
	int (*copy_in_begin)(void *arg, sql_copy_format fmt, int ncols);
	/* Next CopyData payload: returns 1 with data and len set (valid until the
	 * next call), 0 at CopyDone, -1 on CopyFail or a broken connection (err
	 * filled: 57014 for CopyFail with the client's message). */
	int (*copy_in_read)(void *arg, const uint8_t **data, size_t *len, util_err *err);
	/* COPY TO STDOUT: CopyOutResponse, CopyData..., CopyDone. */
	int (*copy_out_begin)(void *arg, sql_copy_format fmt, int ncols);
	int (*copy_out_data)(void *arg, const void *data, size_t len);
	int (*copy_out_end)(void *arg);
	/* pg_terminate_backend: called from ANOTHER thread to interrupt the
	 * connection's wait for client input (e.g. shut the socket's read
	 * side). The wire then ends the connection with FATAL 57P01 when
	 * sql_session_terminating() says so. May be NULL. */
	void (*wake)(void *arg);
} sql_client;

/* ---------------------------------------------------------------- results */

typedef struct sql_column {
	const char *name;
	uint32_t table_oid; /* 0 if not a plain table column */
	int16_t attnum;     /* 0 if not a plain table column */
	uint32_t type_oid;
	int16_t type_len;
	int32_t typmod;
	int16_t format;     /* 0 text, 1 binary */
} sql_column;

typedef struct sql_rowdesc {
	int ncols;
	const sql_column *cols;
} sql_rowdesc;

/* Where rows go (PostgreSQL's DestReceiver). */
typedef struct sql_dest {
	void *arg;
	/* RowDescription. Called once per result set before rows; not called
	 * for statements that return no rows. For Execute, the wire decides
	 * whether to send it (Describe already did). */
	int (*startup)(void *arg, const sql_rowdesc *desc);
	/* One DataRow: `data` is the message body after the Int16 column count:
	 * for each column an Int32 length (-1 = NULL) and the bytes, already in
	 * the column's format. Valid only during the call. Non-zero return stops
	 * the statement (broken connection). */
	int (*row)(void *arg, const uint8_t *data, size_t len, int ncols);
} sql_dest;

/* ---------------------------------------------------------------- sessions */

typedef struct sql_startup {
	const char *user;
	const char *database;
	/* Other startup parameters (application_name, client_encoding,
	 * DateStyle, TimeZone, options "-c a=b" already split...). */
	int nparams;
	const char *const *names;
	const char *const *values;
} sql_startup;

/* Opens a session for an authenticated user; errors such as an unknown
 * database or bad startup settings come back in err (FATAL). */
int sql_session_open(sql_engine *e, const sql_startup *st, const sql_client *cl, sql_session **out,
		     util_err *err);
void sql_session_close(sql_session *s);

/* The reportable settings to send as ParameterStatus after authentication:
 * calls fn for each (server_version, client_encoding, DateStyle, ...). */
void sql_session_report_params(sql_session *s, void (*fn)(void *arg, const char *name, const char *value),
			       void *arg);
/* Backend pid and secret for BackendKeyData / CancelRequest. */
int32_t sql_session_pid(sql_session *s);
int32_t sql_session_secret(sql_session *s);
/* Finds a session by pid and secret and requests cancellation of its
 * running statement (57014). Safe from any thread. Returns 0 if found. */
int sql_cancel(sql_engine *e, int32_t pid, int32_t secret);
/* True once pg_terminate_backend() asked this session to end (the wire
 * then closes the connection with FATAL 57P01). Safe from any thread. */
bool sql_session_terminating(sql_session *s);
/* Transaction status for ReadyForQuery: 'I', 'T' or 'E'. */
char sql_session_txn_status(sql_session *s);
/* Session timeouts the wire enforces while idle (ms, 0 = none). */
int64_t sql_session_idle_in_txn_timeout(sql_session *s);
int64_t sql_session_idle_timeout(sql_session *s);

/* Completion of one statement: the CommandComplete tag. */
typedef struct sql_complete {
	char tag[64];         /* "SELECT 3", "INSERT 0 1", "BEGIN" ... */
	bool suspended;       /* Execute stopped at its row limit (PortalSuspended) */
	bool empty;           /* empty query (EmptyQueryResponse) */
} sql_complete;

/*
 * Simple query protocol: runs every statement of `query` in order with
 * PostgreSQL's implicit transaction rules. For each statement: optional
 * dest->startup, rows, then `done` with the tag. On an error the remaining
 * statements are skipped and the error returned (-1); statements completed
 * before it have already been reported through done().
 */
int sql_simple_query(sql_session *s, const char *query, sql_dest *dest,
		     void (*done)(void *arg, const sql_complete *c), void *done_arg, util_err *err);

/* ---- extended query protocol ---- */

/* Parse: name "" = the unnamed statement (replaced by the next Parse).
 * param_types may be NULL/0 entries = infer. */
int sql_parse(sql_session *s, const char *name, const char *query, int nparams, const uint32_t *param_types,
	      util_err *err);
/* Describe statement: parameter types and the row description (ncols = 0 and
 * *returns_rows = false for NoData). Result formats are all text here. */
int sql_describe_stmt(sql_session *s, const char *name, int *nparams, const uint32_t **param_types,
		      sql_rowdesc *desc, bool *returns_rows, util_err *err);

typedef struct sql_bind_params {
	int nformats;            /* 0: all text, 1: one for all, else per param */
	const int16_t *formats;
	int nparams;
	const uint8_t *const *values; /* NULL pointer = SQL NULL */
	const int32_t *lengths;
	int nresult_formats;     /* 0: all text, 1: one for all, else per column */
	const int16_t *result_formats;
} sql_bind_params;

int sql_bind(sql_session *s, const char *portal, const char *stmt, const sql_bind_params *p, util_err *err);
int sql_describe_portal(sql_session *s, const char *portal, sql_rowdesc *desc, bool *returns_rows,
			util_err *err);
/* Execute: max_rows 0 = all. Rows go to dest (startup is not called). */
int sql_execute(sql_session *s, const char *portal, int64_t max_rows, sql_dest *dest, sql_complete *c,
		util_err *err);
int sql_close_stmt(sql_session *s, const char *name);
int sql_close_portal(sql_session *s, const char *name);
/* Sync: ends the implicit transaction of an extended-protocol batch
 * (commits it, or rolls it back after an error). */
int sql_sync(sql_session *s, util_err *err);
/* The wire reports that an error ended an extended batch: mark the implicit
 * transaction failed so Sync rolls it back. */
void sql_extended_error(sql_session *s);

/* FunctionCall (fastpath): calls the function whose pg_proc oid is fn with
 * the arguments of p (result_formats[0]: the result's format). The result
 * comes as one single-column row to dest->row (startup is not called). The
 * caller then ends the call as Sync does (sql_extended_error first after an
 * error). */
int sql_fastpath_call(sql_session *s, uint32_t fn, const sql_bind_params *p, sql_dest *dest, util_err *err);

/* ---------------------------------------------------------------- offline administration */

/* `strata restore`: restores the backup in backup_dir (with its chain of
 * incremental parents) into the new data directory data_dir (must not
 * exist or be empty), as of as_of (NULL = the backup's timestamp; else a
 * timestamptz literal, read in UTC, or microseconds since the Unix
 * epoch). Prints progress lines to stderr when verbose. */
int sql_restore_backup(const char *backup_dir, const char *data_dir, const char *as_of, bool verbose,
		       util_err *err);

#endif /* STRATA_SQL_H */
