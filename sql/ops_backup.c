/*
 * ops_backup.c — backups from SQL and the offline restore:
 *   strata_backup(dir [, incremental_from [, as_of]])  a consistent backup
 *       of the whole store into a new server-side directory, while the
 *       server keeps serving (kv_backup; format in docs/backup-format.md)
 *   strata_backup_info(dir [, verify])                 what a backup holds
 *   sql_restore_backup()                               `strata restore`
 *
 * Indexes being built write entries with old timestamps, which an
 * incremental backup (cells newer than the parent) would miss: their
 * storages are copied whole, and so are those that were still being built
 * at the parent backup (listed in its strata.info).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "datetime.h"
#include "ops.h"

#define INFO_FILE "strata.info"

static const ty_oid backup_types[] = {TY_TEXT,        TY_TEXT, TY_TIMESTAMPTZ, TY_INT8, TY_TIMESTAMPTZ,
				      TY_TIMESTAMPTZ, TY_INT8, TY_INT8,        TY_INT8};
static const char *const backup_cols[] = {"backup_id",    "kind",   "backup_time", "backup_ts", "since",
					  "history_from", "tables", "cells",       "bytes"};

static ty_datum unix_tstz(kv_ts us)
{
	return ty_int(ty_ts_from_unix_us((int64_t)us));
}

static ty_datum info_row(const kv_backup_info *bi)
{
	ty_record *r = ty_alloc(sizeof *r);
	r->n = 9;
	r->types = backup_types;
	r->names = backup_cols;
	r->vals = ty_alloc(sizeof(ty_datum) * 9);
	r->vals[0] = ty_text(bi->id);
	r->vals[1] = ty_text(bi->incremental ? "incremental" : "full");
	r->vals[2] = unix_tstz(bi->ts);
	r->vals[3] = ty_int((int64_t)bi->ts);
	r->vals[4] = bi->incremental ? unix_tstz(bi->since) : ty_null();
	r->vals[5] = unix_tstz(bi->history_from);
	r->vals[6] = ty_int((int64_t)bi->tables);
	r->vals[7] = ty_int((int64_t)bi->cells);
	r->vals[8] = ty_int((int64_t)bi->bytes);
	return ty_bytes(r, sizeof *r);
}

static char *text_arg(const ty_fcinfo *fc, int i)
{
	if (i >= fc->nargs || fc->args[i].null)
		return NULL;
	return ty_strndup(fc->args[i].p, fc->args[i].len);
}

static void must_be_absolute(const char *what, const char *path)
{
	if (!path || path[0] != '/')
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s must be an absolute path on the server", what);
}

/* ---------------------------------------------------------------- index storages being built */

typedef struct building {
	util_map names; /* storage -> (void *)1 */
} building;

static int note_building(void *arg, const cat_obj *o)
{
	building *b = arg;
	if (o->kind == CAT_REL && o->rel.relkind == CAT_RELKIND_INDEX && o->rel.index &&
	    o->rel.index->state != CAT_INDEX_PUBLIC && o->rel.storage[0])
		util_map_puts(&b->names, o->rel.storage, (void *)1);
	return 0;
}

/* Storages listed in the parent's strata.info ("building NAME" lines). */
static void read_parent_building(const char *parent, building *b)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", parent, INFO_FILE);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "building ", 9))
			util_map_puts(&b->names, line + 9, (void *)1);
	}
	fclose(f);
}

static void write_info(const char *dir, building *now)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, INFO_FILE);
	FILE *f = fopen(path, "w");
	if (!f) {
		util_warn("could not write %s: %s", path, strerror(errno));
		return;
	}
	fprintf(f, "strata %s\n", STRATA_VERSION);
	size_t pos = 0;
	const void *k;
	size_t kl;
	while (util_map_next(&now->names, &pos, &k, &kl, NULL))
		fprintf(f, "building %.*s\n", (int)kl, (const char *)k);
	fclose(f);
}

/* ---------------------------------------------------------------- strata_backup() */

typedef struct backup_ctx {
	sql_session *s;
	sql_progress *p;
	building full; /* storages to copy whole */
	char table[256];
	uint64_t tables_done, tables_total, bytes_done, bytes_table;
	uint64_t max_rate;	/* bytes per second, 0: unlimited (strata.backup_max_rate) */
	uint64_t started_us;
} backup_ctx;

static bool stopped(sql_session *s)
{
	return atomic_load(&s->cancel) || (s->deadline_us && util_mono_us() >= s->deadline_us);
}

/* Keeps a backup under strata.backup_max_rate, so that copying a large
 * store does not starve the foreground of disk bandwidth: sleeps until the
 * bytes copied so far are due, in short slices that notice a cancel. */
static void throttle(backup_ctx *c, uint64_t total)
{
	if (!c->max_rate)
		return;
	uint64_t due = c->started_us + total * 1000000 / c->max_rate;
	for (uint64_t now = util_mono_us(); now < due && !stopped(c->s); now = util_mono_us()) {
		uint64_t us = due - now < 20000 ? due - now : 20000;
		struct timespec ts = {0, (long)us * 1000};
		nanosleep(&ts, NULL);
	}
}

static bool force_full(void *arg, const char *table)
{
	backup_ctx *c = arg;
	return util_map_gets(&c->full.names, table) != NULL;
}

/* Runs inside kv_backup: must not throw; a cancel stops the backup. */
static bool on_progress(void *arg, const char *table, uint64_t cells, uint64_t bytes)
{
	backup_ctx *c = arg;
	if (strcmp(c->table, table)) {
		snprintf(c->table, sizeof c->table, "%s", table);
		c->tables_done++;
		c->bytes_done += c->bytes_table;
		c->bytes_table = 0;
	}
	c->bytes_table = bytes;
	(void)cells;
	char phase[300];
	snprintf(phase, sizeof phase, "copying %s", table);
	sql_progress_update(c->p, phase, c->tables_done, c->tables_total, c->bytes_done + c->bytes_table);
	throttle(c, c->bytes_done + c->bytes_table);
	return !stopped(c->s);
}

static int count_table(void *arg, const char *name)
{
	(void)name;
	(*(uint64_t *)arg)++;
	return 0;
}

static ty_datum f_backup(ty_fcinfo *fc)
{
	sql_session *s = sql_current_session();
	if (!s->superuser)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to take a backup");
	char *dir = text_arg(fc, 0), *parent = text_arg(fc, 1);
	must_be_absolute("the backup directory", dir);
	if (parent)
		must_be_absolute("the parent backup directory", parent);
	kv_backup_opts o;
	memset(&o, 0, sizeof o);
	if (fc->nargs > 2 && !fc->args[2].null)
		o.as_of = (kv_ts)ty_ts_to_unix_us(fc->args[2].i);
	o.parent = parent;
	backup_ctx c;
	memset(&c, 0, sizeof c);
	c.s = s;
	c.max_rate = strtoull(sql_guc_get(s, "strata.backup_max_rate"), NULL, 10) * 1024;
	c.started_us = util_mono_us();
	cat_snap *cs = cat_current(s->e->cat);
	cat_foreach(cs, CAT_REL, 0, note_building, &c.full);
	cat_snap_release(cs);
	building now = {UTIL_MAP_INIT};
	size_t pos = 0;
	const void *k;
	size_t kl;
	while (util_map_next(&c.full.names, &pos, &k, &kl, NULL)) {
		char n[256];
		snprintf(n, sizeof n, "%.*s", (int)kl, (const char *)k);
		util_map_puts(&now.names, n, (void *)1);
	}
	if (parent)
		read_parent_building(parent, &c.full);
	kv_table_list(s->e->kv, count_table, &c.tables_total);
	o.force_full = force_full;
	o.progress = on_progress;
	o.arg = &c;
	cat_snap *now_cs = cat_current(s->e->cat);
	sql_policy_sync(s->e, now_cs); /* kv tables created since by other modules: default retention */
	cat_snap_release(now_cs);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		ty_error(UTIL_E_IO_ERROR, "could not create directory \"%s\": %s", dir, strerror(errno));
	c.p = sql_progress_begin(s, parent ? "incremental backup" : "backup", NULL, false);
	kv_backup_info bi;
	/* DDL goes on: the backup copies the kv tables of its point, dropped
	 * since or not (kvstore/backup.c). */
	kv_status st = kv_backup(s->e->kv, dir, &o, &bi);
	if (st == KV_OK)
		write_info(dir, &now);
	sql_progress_update(c.p, "done", c.tables_done, c.tables_total,
			    st == KV_OK ? bi.bytes : c.bytes_done);
	sql_progress_end(c.p);
	util_map_free(&c.full.names);
	util_map_free(&now.names);
	if (st == KV_BUSY)
		sql_check_interrupts(s);
	switch (st) {
	case KV_OK:
		break;
	case KV_INVALID:
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "backup failed: %s", kv_errmsg());
	case KV_EXISTS:
		ty_error(UTIL_E_DUPLICATE_FILE, "backup failed: %s", kv_errmsg());
	case KV_NOT_FOUND:
		ty_error(UTIL_E_UNDEFINED_FILE, "backup failed: %s", kv_errmsg());
	case KV_CORRUPTION:
		ty_error(UTIL_E_DATA_CORRUPTED, "backup failed: %s", kv_errmsg());
	default:
		sql_kv_error(st, "taking a backup");
	}
	util_info("[%d] backup %s (%s) as of %llu: %llu tables, %llu cells, %llu bytes in %s", (int)s->pid,
		  bi.id, bi.incremental ? "incremental" : "full", (unsigned long long)bi.ts,
		  (unsigned long long)bi.tables, (unsigned long long)bi.cells, (unsigned long long)bi.bytes,
		  dir);
	return info_row(&bi);
}

static ty_datum f_backup_info(ty_fcinfo *fc)
{
	sql_session *s = sql_current_session();
	if (!s->superuser)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to read backups");
	char *dir = text_arg(fc, 0);
	must_be_absolute("the backup directory", dir);
	bool verify = fc->nargs > 1 && !fc->args[1].null && fc->args[1].i;
	kv_backup_info bi;
	kv_status st = kv_backup_inspect(dir, verify, NULL, &bi);
	if (st == KV_NOT_FOUND)
		ty_error(UTIL_E_UNDEFINED_FILE, "no backup in \"%s\": %s", dir, kv_errmsg());
	if (st == KV_CORRUPTION)
		ty_error(UTIL_E_DATA_CORRUPTED, "backup in \"%s\" is damaged: %s", dir, kv_errmsg());
	if (st != KV_OK)
		sql_kv_error(st, "reading a backup");
	return info_row(&bi);
}

static const ty_func funcs[] = {
    {.name = "strata_backup",
     .nargs = 3,
     .args = {TY_TEXT, TY_TEXT, TY_TIMESTAMPTZ},
     .ret = TY_RECORD,
     .fn = f_backup,
     .volatility = TY_VOLATILE,
     .strict = false,
     .kind = 'f',
     .prosrc = "strata_backup",
     .nargdefaults = 2,
     .nout = 9,
     .outtypes = backup_types,
     .outnames = backup_cols},
    {.name = "strata_backup_info",
     .nargs = 2,
     .args = {TY_TEXT, TY_BOOL},
     .ret = TY_RECORD,
     .fn = f_backup_info,
     .volatility = TY_VOLATILE,
     .strict = false,
     .kind = 'f',
     .prosrc = "strata_backup_info",
     .nargdefaults = 1,
     .nout = 9,
     .outtypes = backup_types,
     .outnames = backup_cols},
};

void sql_ops_register_backup_functions(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}

/* ---------------------------------------------------------------- offline restore */

typedef struct restore_ctx {
	bool verbose;
	char table[256];
	int64_t last_us;
} restore_ctx;

static bool on_restore_progress(void *arg, const char *table, uint64_t cells, uint64_t bytes)
{
	restore_ctx *c = arg;
	(void)bytes;
	int64_t now = util_mono_us();
	if (c->verbose && (strcmp(c->table, table) || now - c->last_us > 5000000)) {
		snprintf(c->table, sizeof c->table, "%s", table);
		c->last_us = now;
		fprintf(stderr, "strata restore: %s: %llu cells\n", table, (unsigned long long)cells);
	}
	return true;
}

typedef struct parse_ts {
	const char *in;
	int64_t unix_us;
} parse_ts;

static void parse_ts_fn(void *arg)
{
	parse_ts *p = arg;
	p->unix_us = ty_ts_to_unix_us(ty_dt_parse_timestamptz(p->in));
}

static bool dir_empty_or_absent(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return errno == ENOENT;
	char probe[4200];
	snprintf(probe, sizeof probe, "%s/store", path);
	return access(probe, F_OK) != 0 && rmdir(path) == 0; /* rmdir succeeds only when empty */
}

int sql_restore_backup(const char *backup_dir, const char *data_dir, const char *as_of, bool verbose,
		       util_err *err)
{
	kv_restore_opts o;
	memset(&o, 0, sizeof o);
	restore_ctx rc = {verbose, "", 0};
	o.progress = on_restore_progress;
	o.arg = &rc;
	if (as_of && *as_of) {
		bool digits = true;
		for (const char *p = as_of; *p; p++)
			digits = digits && isdigit((unsigned char)*p);
		if (digits) {
			o.as_of = (kv_ts)strtoull(as_of, NULL, 10);
		} else {
			ty_init();
			util_arena *a = util_arena_new(4096, 0);
			ty_settings set;
			ty_settings_default(&set);
			ty_set_settings(&set);
			util_arena *old = ty_set_arena(a);
			parse_ts p = {as_of, 0};
			util_err perr;
			int bad = ty_protect(parse_ts_fn, &p, &perr);
			ty_set_arena(old);
			util_arena_destroy(a);
			if (bad)
				return util_err_set(err, UTIL_E_INVALID_DATETIME_FORMAT,
						    "invalid restore point \"%s\": %s", as_of, perr.message);
			o.as_of = (kv_ts)p.unix_us;
		}
	}
	/* An etcd URI (strata restore --store etcd://...): kv_restore restores
	 * into that prefix, which must hold no kv table. */
	bool etcd = !strncmp(data_dir, "etcd://", 7) || !strncmp(data_dir, "etcds://", 8);
	if (!etcd && !dir_empty_or_absent(data_dir))
		return util_err_set(err, UTIL_E_DUPLICATE_FILE,
				    "data directory \"%s\" exists and is not empty", data_dir);
	if (!etcd && util_mkdir_p(data_dir, err) != 0)
		return -1;
	char store[4200];
	snprintf(store, sizeof store, etcd ? "%s" : "%s/store", data_dir);
	kv_backup_info bi;
	kv_status st = kv_restore(backup_dir, store, &o, &bi);
	if (st != KV_OK) {
		util_errcode code = st == KV_CORRUPTION  ? UTIL_E_DATA_CORRUPTED
				    : st == KV_EXISTS    ? UTIL_E_DUPLICATE_FILE
				    : st == KV_NOT_FOUND ? UTIL_E_UNDEFINED_FILE
				    : st == KV_INVALID   ? UTIL_E_INVALID_PARAMETER_VALUE
							 : UTIL_E_IO_ERROR;
		util_err_set(err, code, "restore failed: %s", kv_errmsg());
		if (!etcd)
			rmdir(data_dir); /* only if we left it empty */
		return -1;
	}
	if (verbose)
		fprintf(stderr, "strata restore: restored backup %s as of %llu into %s\n", bi.id,
			(unsigned long long)bi.ts, data_dir);
	return 0;
}
