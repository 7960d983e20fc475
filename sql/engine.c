/*
 * engine.c — the SQL engine shared by all sessions: opens the store and the
 * catalog, answers role and database lookups for authentication, keeps the
 * registry of live sessions (CancelRequest, pg_stat_activity).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sql_index.h"
#include "sql_int.h"

#define SEQ_KV_TABLE "sys.sequences"

void sql_engine_opts_default(sql_engine_opts *o)
{
	memset(o, 0, sizeof *o);
	o->data_dir = "./strata-data";
	o->max_connections = 200;
	o->work_mem = 4u << 20;
	o->block_cache_bytes = 256u << 20;
	o->sync_commit = true;
	o->history_retention_s = 3600;
	o->log_min_duration_ms = -1;
}

static int kv_err(util_err *err, kv_status st, const char *what)
{
	util_errcode code = st == KV_NO_SPACE	 ? UTIL_E_DISK_FULL
			    : st == KV_CORRUPTION ? UTIL_E_DATA_CORRUPTED
			    : st == KV_IO_ERROR	  ? UTIL_E_IO_ERROR
						  : UTIL_E_INTERNAL_ERROR;
	return util_err_set(err, code, "%s: %s", what, kv_errmsg()[0] ? kv_errmsg() : kv_status_name(st));
}

int sql_engine_open(const sql_engine_opts *o, sql_engine **out, util_err *err)
{
	ty_init();
	sql_builtins_init();
	sql_sysviews_init();
	sql_engine *e = util_xcalloc(1, sizeof *e);
	e->opts = *o;
	snprintf(e->data_dir, sizeof e->data_dir, "%s", o->data_dir);
	e->opts.data_dir = e->data_dir;
	pthread_mutex_init(&e->sessions_mu, NULL);
	pthread_mutex_init(&e->locks_mu, NULL);
	pthread_cond_init(&e->locks_cv, NULL);
	pthread_mutex_init(&e->serial_mu, NULL);
	atomic_init(&e->next_pid, 1000 + (int)(util_now_us() % 20000));
	/* Tests: two servers whose sessions get the same ids
	 * (tests/etcd/temp_sweep.py: temporary schema names). */
	const char *faults = getenv("STRATA_TEST_FAULTS"), *first = getenv("STRATA_TEST_FIRST_PID");
	if (faults && !strcmp(faults, "1") && first && atoi(first) > 0)
		atomic_store(&e->next_pid, atoi(first));
	e->start_time_us = util_now_us();

	if (util_mkdir_p(e->data_dir, err) != 0)
		goto fail;
	if (sql_ops_lock_data_dir(e, err) != 0) /* before anything opens the store */
		goto fail;
	char path[1200];
	snprintf(path, sizeof path, "%s/store", e->data_dir);
	kv_store_opts ko;
	kv_store_opts_default(&ko);
	ko.create_if_missing = true;
	ko.durability = o->sync_commit ? KV_SYNC_COMMIT : KV_SYNC_PERIODIC;
	if (o->block_cache_bytes)
		ko.block_cache_bytes = o->block_cache_bytes;
	if (o->memstore_flush_bytes)
		ko.memstore_flush_bytes = o->memstore_flush_bytes;
	if (o->wal_segment_bytes)
		ko.wal_segment_bytes = o->wal_segment_bytes;
	ko.fs = o->fs;
	/* --store etcd://...: the cells live in that cluster; data_dir keeps
	 * only this server's local files (lock, logs). */
	kv_status st = kv_store_open(o->store_uri ? o->store_uri : path, &ko, &e->kv);
	if (st != KV_OK) {
		kv_err(err, st, "could not open the store");
		goto fail;
	}
	/* Other servers may share an etcd store. */
	if (cat_open_shared(e->kv, o->store_uri != NULL, &e->cat, err) != 0)
		goto fail;
	/* Temporary objects of sessions a crash ended (on a shared store only
	 * those of servers whose lease is gone, by the temp sweeper below: the
	 * others' may be live, docs/scale-out.md). */
	if (!o->store_uri && sql_temp_cleanup_orphans(e->cat, e->kv, err) != 0)
		goto fail;
	st = kv_table_open(e->kv, SEQ_KV_TABLE, &e->seq_tbl);
	if (st == KV_NOT_FOUND) {
		kv_family_opts fam;
		kv_family_opts_default(&fam, SQL_FAMILY);
		st = kv_table_create(e->kv, SEQ_KV_TABLE, &fam, 1);
		/* (KV_EXISTS: another server sharing the store created it first) */
		if (st == KV_OK || st == KV_EXISTS)
			st = kv_table_open(e->kv, SEQ_KV_TABLE, &e->seq_tbl);
	}
	if (st != KV_OK) {
		kv_err(err, st, "could not open sequences");
		goto fail;
	}
	if (sql_ops_engine_open(e, err) != 0)
		goto fail;
	sql_index_engine_open(e);
	/* Also on a shared store: catalog commits conflict per object there, so
	 * the background ANALYZE's row-count update only meets DDL on its own
	 * table (docs/scale-out.md, "Several servers"). */
	e->autoanalyze = sql_autoanalyze_start(e);
	e->temp_sweeper = sql_temp_sweeper_start(e);
	*out = e;
	return 0;
fail:
	sql_engine_close(e);
	return -1;
}

void sql_engine_close(sql_engine *e)
{
	if (!e)
		return;
	sql_temp_sweeper_stop(e->temp_sweeper);
	sql_autoanalyze_stop(e->autoanalyze);
	sql_ops_engine_close(e);
	sql_index_engine_close(e);
	if (e->seq_tbl)
		kv_table_close(e->seq_tbl);
	cat_close(e->cat);
	if (e->kv)
		kv_store_close(e->kv);
	free(e->sessions);
	sql_txn_locks_free(e);
	pthread_mutex_destroy(&e->sessions_mu);
	pthread_mutex_destroy(&e->locks_mu);
	pthread_cond_destroy(&e->locks_cv);
	pthread_mutex_destroy(&e->serial_mu);
	free(e);
}

int sql_role_lookup(sql_engine *e, const char *role, sql_role_info *out, util_err *err)
{
	(void)err;
	memset(out, 0, sizeof *out);
	cat_snap *cs = cat_current(e->cat);
	const cat_obj *o = cat_role_by_name(cs, role);
	if (o) {
		out->exists = true;
		out->can_login = o->role.login;
		out->superuser = o->role.superuser;
		snprintf(out->password, sizeof out->password, "%s", o->role.password ? o->role.password : "");
		out->valid_until = o->role.valid_until;
	}
	cat_snap_release(cs);
	return 0;
}

bool sql_database_exists(sql_engine *e, const char *db)
{
	cat_snap *cs = cat_current(e->cat);
	bool ok = cat_database_by_name(cs, db) != NULL;
	cat_snap_release(cs);
	return ok;
}

void sql_engine_add_session(sql_engine *e, sql_session *s)
{
	pthread_mutex_lock(&e->sessions_mu);
	if (e->nsessions == e->sessions_cap) {
		e->sessions_cap = e->sessions_cap ? e->sessions_cap * 2 : 64;
		e->sessions = util_xrealloc(e->sessions, sizeof *e->sessions * (size_t)e->sessions_cap);
	}
	e->sessions[e->nsessions++] = s;
	pthread_mutex_unlock(&e->sessions_mu);
}

void sql_engine_remove_session(sql_engine *e, sql_session *s)
{
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions; i++)
		if (e->sessions[i] == s) {
			e->sessions[i] = e->sessions[--e->nsessions];
			break;
		}
	pthread_mutex_unlock(&e->sessions_mu);
}

int sql_cancel(sql_engine *e, int32_t pid, int32_t secret)
{
	int rc = -1;
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions; i++) {
		sql_session *s = e->sessions[i];
		if (s->pid == pid && s->secret == secret) {
			atomic_store(&s->cancel, true);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&e->sessions_mu);
	if (rc == 0)
		pthread_cond_broadcast(&e->locks_cv); /* wake a session waiting for a lock */
	return rc;
}

UTIL_NORETURN void sql_kv_error(kv_status st, const char *what)
{
	switch (st) {
	case KV_NO_SPACE:
		ty_error(UTIL_E_DISK_FULL, "could not write to the store: %s", kv_errmsg());
	case KV_CORRUPTION:
		ty_error(UTIL_E_DATA_CORRUPTED, "data corruption detected while %s: %s", what, kv_errmsg());
	case KV_IO_ERROR:
		ty_error(UTIL_E_IO_ERROR, "I/O error while %s: %s", what, kv_errmsg());
	case KV_READ_ONLY:
		ty_error(UTIL_E_IO_ERROR, "the store refuses writes after a failed fsync; restart the server to recover");
	case KV_NO_MEMORY:
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory while %s", what);
	case KV_CONFLICT:
		ty_error(UTIL_E_T_R_SERIALIZATION_FAILURE, "could not serialize access due to concurrent update");
	case KV_CHECK_FAILED: /* a condition of the commit: another transaction changed it first */
		ty_error(UTIL_E_T_R_SERIALIZATION_FAILURE,
			 "could not serialize access due to a concurrent change while %s", what);
	case KV_NOT_FOUND:
		/* A storage the statement's catalog names is gone: on a shared
		 * store another server dropped or rewrote the relation after this
		 * statement read the catalog (DDL there does not wait for other
		 * servers' statements); retrying sees the new catalog. */
		if (!strncmp(what, "opening ", 8))
			ty_error(UTIL_E_T_R_SERIALIZATION_FAILURE,
				 "could not serialize access: %s: the relation was dropped or rewritten by a "
				 "concurrent transaction (%s)",
				 what, kv_errmsg());
		ty_error(UTIL_E_INTERNAL_ERROR, "%s: %s (%s)", what, kv_status_name(st), kv_errmsg());
	case KV_TOO_LARGE:
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "%s: %s", what, kv_errmsg());
	case KV_NOT_SUPPORTED:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s: %s", what, kv_errmsg());
	default:
		ty_error(UTIL_E_INTERNAL_ERROR, "%s: %s (%s)", what, kv_status_name(st), kv_errmsg());
	}
}
