/*
 * ops_admin.c — administration functions:
 *   pg_cancel_backend(pid), pg_terminate_backend(pid [, timeout])
 *   strata_flush(regclass), strata_compact(regclass [, major])
 *   strata_checksum(regclass), strata_kv_checksum(kv table name)
 *   strata_read_point(), pg_stat_statements_reset()
 * and the registration of every ops function (ops_backup.c has its own).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

static sql_session *sess(void)
{
	sql_session *s = sql_current_session();
	if (!s)
		ty_error(UTIL_E_INTERNAL_ERROR, "no session");
	return s;
}

static void must_be_superuser(sql_session *s, const char *what)
{
	if (!s->superuser)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to %s", what);
}

/* ---------------------------------------------------------------- backends */

typedef enum { SIG_CANCEL, SIG_TERMINATE } sig_kind;

/* Finds pid and signals it. 1 = done, 0 = no such backend (WARNING, as
 * PostgreSQL). Throws 42501 when the caller may not signal it. */
static int signal_backend(sql_session *s, int32_t pid, sig_kind kind)
{
	sql_engine *e = s->e;
	int found = 0;
	bool denied = false, super_target = false;
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions && !found; i++) {
		sql_session *t = e->sessions[i];
		if (t->pid != pid)
			continue;
		found = 1;
		if (t->superuser && !s->superuser) {
			denied = super_target = true;
			break;
		}
		if (!s->superuser && t->user_oid != s->user_oid) {
			denied = true;
			break;
		}
		if (kind == SIG_TERMINATE)
			atomic_store(&t->terminate, true);
		atomic_store(&t->cancel, true);
		/* A session waiting for client input is woken (it stays
		 * registered, so its connection is alive, while we hold the
		 * sessions lock); a running one ends its statement with FATAL,
		 * or sees the flag before it waits again. */
		if (kind == SIG_TERMINATE && t != s && t->client.wake) {
			pthread_mutex_lock(&t->mu);
			bool idle = !strncmp(t->state_desc, "idle", 4);
			pthread_mutex_unlock(&t->mu);
			if (idle)
				t->client.wake(t->client.arg);
		}
	}
	pthread_mutex_unlock(&e->sessions_mu);
	if (denied) {
		util_err *er = ty_errstart(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to %s",
					   kind == SIG_CANCEL ? "cancel query" : "terminate process");
		if (super_target)
			util_err_detail(er,
					"Only roles with the SUPERUSER attribute may %s of roles with the "
					"SUPERUSER attribute.",
					kind == SIG_CANCEL ? "cancel queries" : "terminate processes");
		else
			util_err_detail(
			    er, "Only roles with privileges of the role whose %s is being %s may %s it.",
			    kind == SIG_CANCEL ? "query" : "process",
			    kind == SIG_CANCEL ? "canceled" : "terminated",
			    kind == SIG_CANCEL ? "cancel" : "terminate");
		ty_errthrow();
	}
	if (!found) {
		sql_warning(s, UTIL_E_WARNING, "PID %d is not a PostgreSQL backend process", (int)pid);
		return 0;
	}
	pthread_cond_broadcast(&e->locks_cv); /* a session waiting for a row lock */
	return 1;
}

static bool backend_alive(sql_engine *e, int32_t pid)
{
	bool alive = false;
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions && !alive; i++)
		alive = e->sessions[i]->pid == pid;
	pthread_mutex_unlock(&e->sessions_mu);
	return alive;
}

static ty_datum f_cancel_backend(ty_fcinfo *fc)
{
	return ty_bool(signal_backend(sess(), (int32_t)fc->args[0].i, SIG_CANCEL) == 1);
}

static ty_datum f_terminate_backend(ty_fcinfo *fc)
{
	sql_session *s = sess();
	int32_t pid = (int32_t)fc->args[0].i;
	int64_t timeout = fc->nargs > 1 ? fc->args[1].i : 0;
	if (timeout < 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "\"timeout\" must not be negative");
	if (signal_backend(s, pid, SIG_TERMINATE) != 1)
		return ty_bool(false);
	if (!timeout || pid == s->pid)
		return ty_bool(true);
	int64_t deadline = util_mono_us() + timeout * 1000;
	while (backend_alive(s->e, pid)) {
		if (util_mono_us() >= deadline) {
			sql_warning(s, UTIL_E_WARNING,
				    "backend with PID %d did not terminate within %lld milliseconds",
				    (int)pid, (long long)timeout);
			return ty_bool(false);
		}
		ty_check_interrupts();
		util_sleep_us(5000);
	}
	return ty_bool(true);
}

/* ---------------------------------------------------------------- store maintenance */

static const cat_obj *storage_rel(sql_session *s, ty_oid oid)
{
	if (!s->cat)
		s->cat = cat_current(s->e->cat);
	const cat_obj *o = cat_get(s->cat, (cat_oid)oid);
	if (!o || o->kind != CAT_REL)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", (unsigned)oid);
	if (!o->rel.storage[0])
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" has no storage", o->rel.name);
	return o;
}

static kv_table *open_storage(sql_session *s, const char *storage)
{
	kv_table *t;
	kv_status st = kv_table_open(s->e->kv, storage, &t);
	if (st == KV_NOT_FOUND)
		ty_error(UTIL_E_UNDEFINED_TABLE, "kv table \"%s\" does not exist", storage);
	if (st != KV_OK)
		sql_kv_error(st, "opening a table");
	return t;
}

static ty_datum f_flush(ty_fcinfo *fc)
{
	sql_session *s = sess();
	must_be_superuser(s, "flush a table");
	const cat_obj *o = storage_rel(s, (ty_oid)fc->args[0].i);
	kv_table *t = open_storage(s, o->rel.storage);
	kv_status st = kv_table_flush(t);
	kv_table_close(t);
	if (st != KV_OK)
		sql_kv_error(st, "flushing a table");
	sql_table_stat *ts = sql_ops_table_stat(s->e, o->oid);
	atomic_fetch_add(&ts->flushes, 1);
	atomic_store(&ts->last_flush_us, util_now_us());
	return ty_bool(true);
}

static ty_datum f_compact(ty_fcinfo *fc)
{
	sql_session *s = sess();
	must_be_superuser(s, "compact a table");
	const cat_obj *o = storage_rel(s, (ty_oid)fc->args[0].i);
	bool major = fc->nargs > 1 ? fc->args[1].i != 0 : true;
	kv_table *t = open_storage(s, o->rel.storage);
	sql_progress *p =
	    sql_progress_begin(s, major ? "major compaction" : "compaction", o->rel.name, false);
	kv_status st = kv_table_compact(t, major);
	kv_table_close(t);
	sql_progress_end(p);
	if (st != KV_OK)
		sql_kv_error(st, "compacting a table");
	sql_table_stat *ts = sql_ops_table_stat(s->e, o->oid);
	atomic_fetch_add(&ts->compactions, 1);
	atomic_store(&ts->last_compaction_us, util_now_us());
	return ty_bool(true);
}

static const ty_oid checksum_types[] = {TY_INT8, TY_TEXT};
static const char *const checksum_cols[] = {"cells", "checksum"};

/* A digest of the visible cells (row, family, qualifier, timestamp, value)
 * of kv table `storage` at the statement's read timestamp; with own set,
 * only the cells of that table's rows (entity groups share a kv table). */
static ty_datum checksum_storage(ty_fcinfo *fc, const char *storage, const cat_rel *own)
{
	sql_session *s = sess();
	sql_exec *ex = fc->exec;
	kv_table *t = open_storage(s, storage);
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = ex ? ex->read_ts : (s->txn ? sql_txn_read_ts(s->txn) : kv_read_point(s->e->kv));
	so.read.no_cache = true;
	kv_column fam = {own && own->ilv_depth ? SQL_ILV_FAMILY : SQL_FAMILY, NULL, 0};
	if (own) {
		so.read.columns = &fam;
		so.read.ncolumns = 1;
	}
	kv_iter *it = kv_scan(t, &so);
	uint64_t h = 0x5354524154414b56ull, n = 0;
	util_buf b = UTIL_BUF_INIT;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		if (own && own->ilv_depth &&
		    !sql_ilv_own_cell(own, (const uint8_t *)c->qualifier.data, c->qualifier.len))
			continue;
		util_buf_reset(&b);
		util_buf_put_varint(&b, c->row.len);
		util_buf_append(&b, c->row.data, c->row.len);
		util_buf_put_varint(&b, c->family.len);
		util_buf_append(&b, c->family.data, c->family.len);
		util_buf_put_varint(&b, c->qualifier.len);
		util_buf_append(&b, c->qualifier.data, c->qualifier.len);
		util_buf_put_be64(&b, c->ts);
		util_buf_append(&b, c->value.data, c->value.len);
		h = util_hash64(b.data, b.len, h);
		if ((++n & 1023) == 0)
			ty_check_interrupts();
	}
	util_buf_free(&b);
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	kv_table_close(t);
	if (st != KV_OK)
		sql_kv_error(st, "reading a table");
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
	ty_record *r = ty_alloc(sizeof *r);
	r->n = 2;
	r->types = checksum_types;
	r->names = checksum_cols;
	r->vals = ty_alloc(sizeof(ty_datum) * 2);
	r->vals[0] = ty_int((int64_t)n);
	r->vals[1] = ty_text(hex);
	return ty_bytes(r, sizeof *r);
}

static ty_datum f_checksum(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = storage_rel(s, (ty_oid)fc->args[0].i);
	if (!s->superuser && o->rel.owner != s->user_oid)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of table %s", o->rel.name);
	if (fc->exec)
		sql_ops_scan_open(fc->exec, o); /* as-of reads: the retention check */
	bool own = fc->nargs > 1 && fc->args[1].i != 0;
	return checksum_storage(fc, o->rel.storage, own ? &o->rel : NULL);
}

static ty_datum f_kv_checksum(ty_fcinfo *fc)
{
	sql_session *s = sess();
	must_be_superuser(s, "read kv tables");
	char name[256];
	snprintf(name, sizeof name, "%.*s", (int)UTIL_MIN(fc->args[0].len, sizeof name - 1),
		 (const char *)fc->args[0].p);
	return checksum_storage(fc, name, NULL);
}

static ty_datum f_read_point(ty_fcinfo *fc)
{
	(void)fc;
	return ty_int((int64_t)kv_read_point(sess()->e->kv));
}

static ty_datum f_stat_statements_reset(ty_fcinfo *fc)
{
	(void)fc;
	sql_session *s = sess();
	must_be_superuser(s, "reset statement statistics");
	struct sql_ops *o = s->e->ops;
	pthread_mutex_lock(&o->mu);
	size_t pos = 0;
	void *v;
	while (util_map_next(&o->stmts, &pos, NULL, NULL, &v)) {
		free(((sql_stmt_stat *)v)->query);
		free(v);
	}
	util_map_free(&o->stmts);
	o->stats_reset_us = util_now_us();
	pthread_mutex_unlock(&o->mu);
	return ty_null();
}

static const ty_func funcs[] = {
    {.name = "pg_cancel_backend",
     .nargs = 1,
     .args = {TY_INT4},
     .ret = TY_BOOL,
     .fn = f_cancel_backend,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "pg_cancel_backend",
     .oid = 2171},
    {.name = "pg_terminate_backend",
     .nargs = 2,
     .args = {TY_INT4, TY_INT8},
     .ret = TY_BOOL,
     .fn = f_terminate_backend,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "pg_terminate_backend",
     .oid = 2096,
     .nargdefaults = 1},
    {.name = "strata_flush",
     .nargs = 1,
     .args = {TY_REGCLASS},
     .ret = TY_BOOL,
     .fn = f_flush,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "strata_flush"},
    {.name = "strata_compact",
     .nargs = 2,
     .args = {TY_REGCLASS, TY_BOOL},
     .ret = TY_BOOL,
     .fn = f_compact,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "strata_compact",
     .nargdefaults = 1},
    {.name = "strata_checksum",
     .nargs = 2,
     .args = {TY_REGCLASS, TY_BOOL},
     .nargdefaults = 1,
     .ret = TY_RECORD,
     .fn = f_checksum,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "strata_checksum",
     .nout = 2,
     .outtypes = checksum_types,
     .outnames = checksum_cols},
    {.name = "strata_kv_checksum",
     .nargs = 1,
     .args = {TY_TEXT},
     .ret = TY_RECORD,
     .fn = f_kv_checksum,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "strata_kv_checksum",
     .nout = 2,
     .outtypes = checksum_types,
     .outnames = checksum_cols},
    {.name = "strata_read_point",
     .nargs = 0,
     .ret = TY_INT8,
     .fn = f_read_point,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "strata_read_point"},
    {.name = "pg_stat_statements_reset",
     .nargs = 0,
     .ret = TY_VOID,
     .fn = f_stat_statements_reset,
     .volatility = TY_VOLATILE,
     .strict = false,
     .kind = 'f',
     .prosrc = "pg_stat_statements_reset"},
};

void sql_ops_register_backup_functions(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void register_all(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	sql_ops_register_backup_functions();
}

void sql_ops_register_functions(void)
{
	pthread_once(&once, register_all);
}
