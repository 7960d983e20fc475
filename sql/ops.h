/*
 * ops.h — private to sql/: operations support (the ops_*.c files and
 * sysview_stat.c) and the hooks the rest of sql/ calls into it:
 *
 *   ops_engine.c      engine-wide state: data-directory lock, statistics,
 *                     progress of long operations; startup and shutdown
 *   ops_policy.c      table policies: reloptions -> kv family options
 *   ops_timetravel.c  strata.read_as_of: reads as of a past timestamp
 *   ops_backup.c      strata_backup() and the offline restore
 *   ops_admin.c       flush/compact/checksum functions, cancel/terminate
 *   ops_stats.c       statement statistics, table counters, slow-query log
 *   sysview_stat.c    pg_stat_activity, pg_stat_statements,
 *                     pg_stat_user_tables, strata_* views
 *
 * Every hook is cheap when its feature is off and never throws unless it
 * says so. User documentation: docs/operations.md.
 */
#ifndef STRATA_SQL_OPS_H
#define STRATA_SQL_OPS_H

#include "sql_int.h"

/* ---------------------------------------------------------------- engine state */

/* Statistics of one normalized statement (pg_stat_statements). */
typedef struct sql_stmt_stat {
	uint64_t queryid;
	cat_oid userid, dbid;
	char *query; /* normalized text (heap) */
	uint64_t calls, rows;
	double total_ms, min_ms, max_ms, sum_sq_ms;
} sql_stmt_stat;

typedef struct sql_progress sql_progress;

/* Per-relation counters (pg_stat_user_tables), atomics: many sessions. */
typedef struct sql_table_stat {
	atomic_uint_fast64_t seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_del;
	atomic_uint_fast64_t flushes, compactions; /* triggered through SQL */
	_Atomic int64_t last_seq_scan_us, last_flush_us, last_compaction_us;
} sql_table_stat;

struct sql_progress {
	struct sql_ops *ops;
	int32_t pid;
	char op[32];
	char relation[128];
	char phase[64];
	uint64_t done, total, bytes;
	int64_t start_us, last_log_us;
	bool quiet, logged;
	struct sql_progress *next;
};

struct sql_ops {
	int lock_fd;            /* flock()ed <data_dir>/strata.pid */
	pthread_mutex_t mu;     /* everything below */
	util_map stmts;         /* queryid -> sql_stmt_stat* */
	util_map tables;        /* relation oid -> sql_table_stat* */
	sql_progress *progress; /* running long operations */
	/* How many: a statement's end reads it without mu to skip the list
	 * when empty (reading progress there was a data race under TSan). */
	atomic_int nprogress;
	int64_t stats_reset_us;
	atomic_uint_fast64_t xact_commit, xact_rollback;
};

#define SQL_OPS_MAX_STATEMENTS 5000 /* pg_stat_statements.max */

/* The counters of a relation (created on first use; never NULL). */
sql_table_stat *sql_ops_table_stat(sql_engine *e, cat_oid rel);
/* Registration of the ops functions and views (once per process). */
void sql_ops_register_functions(void);
void sql_sysviews_stat_init(void);

/* ---------------------------------------------------------------- engine hooks */

/* sql_engine_open, before the store is opened: creates the ops state and
 * locks the data directory (a second server or an offline tool on it would
 * corrupt the store). Returns -1 with err (55006 when it is in use). */
int sql_ops_lock_data_dir(sql_engine *e, util_err *err);
/* sql_engine_open, once the store and catalog are open: applies table
 * policies to the store, registers the ops functions and views. */
int sql_ops_engine_open(sql_engine *e, util_err *err);
/* sql_engine_close, before the store closes. Safe on a partly opened engine. */
void sql_ops_engine_close(sql_engine *e);
/* sql_session_open, after the default settings: applies server-wide
 * session defaults (log_min_duration_statement). */
void sql_ops_session_open(sql_session *s);

/* ---------------------------------------------------------------- policies */

/* The kv family options a relation's storage should have (family `name`):
 * its reloptions (an index: its table's) over the server's defaults. */
void sql_policy_family_opts(sql_engine *e, cat_snap *cs, const cat_obj *rel, const char *name,
			    kv_family_opts *out);
/* After a DDL commit published a new catalog snapshot: brings the kv family
 * options of relations that changed since `before` (NULL = all) in line,
 * and gives the store's own tables the default retention. */
void sql_policy_sync(sql_engine *e, cat_snap *before);

/* ---------------------------------------------------------------- time travel */

/* GUC hooks of strata.read_as_of (guc.c). */
int sql_asof_check(sql_session *s, const char *in, util_buf *out, util_err *err);
void sql_asof_assign(sql_session *s, const char *val);
/* sql_txn_stmt_begin: the read timestamp of the statement (the session's
 * as-of timestamp when set, which also makes the transaction read-only). */
void sql_asof_stmt_begin(sql_txn *t);
/* A scan of rel starts: refuses (72000) an as-of read older than the
 * table's retention window. Counts the scan. May throw. */
void sql_ops_scan_open(sql_exec *ex, const cat_obj *rel);

/* ---------------------------------------------------------------- statistics */

/* GUC hook of log_min_duration_statement. */
void sql_ops_assign_log_min_duration(sql_session *s, const char *val);
/* sql_stmt_run, after a statement ran (err = NULL when it succeeded). */
void sql_ops_stmt_done(sql_session *s, const char *text, const sql_complete *c, int64_t start_us,
		       const util_err *err);
/* sql_exec_close: per-table counters from a finished execution. */
void sql_ops_exec_done(sql_exec *ex);
/* Row-lock waits (txn_lock.c): what pg_stat_activity shows while waiting. */
void sql_ops_set_wait(sql_session *s, const char *type, const char *event);
/* pg_stat_activity (sysview_pgviews.c): the wait event of session o in
 * state `state` (static strings, or NULL for none). */
void sql_ops_wait_event(sql_session *o, const char *state, const char **type, const char **event);
/* pg_stat_*_tables (sysview_pgviews.c): a table's counters since start. */
typedef struct sql_table_counters {
	int64_t seq_scan, seq_tup_read, idx_scan, idx_tup_fetch, n_tup_ins, n_tup_upd, n_tup_del;
} sql_table_counters;
void sql_ops_table_counters(sql_engine *e, cat_oid rel, sql_table_counters *out);

/* Progress of long operations (strata_progress view, the log). */
/* Starts reporting an operation of this session ("backup", "copy from",
 * ...); relation may be NULL. quiet: log only once it has run for 10 s
 * (else it logs its start and end). Caller ends it with
 * sql_progress_end(); what a statement leaves open ends with it. */
sql_progress *sql_progress_begin(sql_session *s, const char *op, const char *relation, bool quiet);
void sql_progress_update(sql_progress *p, const char *phase, uint64_t done, uint64_t total, uint64_t bytes);
void sql_progress_end(sql_progress *p);
void sql_progress_end_session(sql_engine *e, int32_t pid);

/* ---------------------------------------------------------------- backups */


/* ---------------------------------------------------------------- admin */

/* pg_terminate_backend: true once another session asked this one to end. */
bool sql_ops_terminating(sql_session *s);

#endif /* STRATA_SQL_OPS_H */
