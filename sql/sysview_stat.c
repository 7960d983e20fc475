/*
 * sysview_stat.c — monitoring views (docs/operations.md, "Monitoring"); the
 * counters behind pg_stat_activity's wait events and pg_stat_*_tables
 * (sysview_pgviews.c) come from ops_stats.c:
 *   pg_stat_statements    per normalized statement: calls, rows, times
 *   strata_progress       long operations under way (backup, compaction)
 *   strata_tables         per table: storage options (policies) and size
 *   strata_kv_tables      every kv table of the store with its size
 *   strata_files          sorted files of every kv table
 *   strata_compactions    flush/compaction counters and activity per kv table
 *   strata_cache          block cache: size, hits, misses, hit ratio
 *   strata_wal            write-ahead log: bytes, syncs, commits
 *   strata_metrics        every store counter as (name, value) rows
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"
#include "ops.h"
#include "sysview.h"

#define T  TY_TEXT
#define N  TY_NAME
#define O  TY_OID
#define I4 TY_INT4
#define I8 TY_INT8
#define F8 TY_FLOAT8
#define B  TY_BOOL
#define TS TY_TIMESTAMPTZ

static ty_datum tstz_us(int64_t unix_us)
{
	return unix_us ? ty_int(ty_ts_from_unix_us(unix_us)) : ty_null();
}

/* ---------------------------------------------------------------- pg_stat_statements */

static const sql_syscol statements_cols[] = {
    {"userid", O},
    {"dbid", O},
    {"toplevel", B},
    {"queryid", I8},
    {"query", T},
    {"calls", I8},
    {"total_exec_time", F8},
    {"min_exec_time", F8},
    {"max_exec_time", F8},
    {"mean_exec_time", F8},
    {"stddev_exec_time", F8},
    {"rows", I8},
};

static void gen_statements(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	struct sql_ops *o = s->e->ops;
	pthread_mutex_lock(&o->mu);
	size_t pos = 0;
	void *vp;
	while (util_map_next(&o->stmts, &pos, NULL, NULL, &vp)) {
		sql_stmt_stat *st = vp;
		bool visible = s->superuser || st->userid == s->user_oid;
		double mean = st->calls ? st->total_ms / (double)st->calls : 0;
		double var = st->calls ? st->sum_sq_ms / (double)st->calls - mean * mean : 0;
		ty_datum v[12] = {
		    sql_d_oid(st->userid),
		    sql_d_oid(st->dbid),
		    ty_bool(true),
		    visible ? ty_int((int64_t)st->queryid) : ty_null(),
		    ty_text(visible ? st->query : "<insufficient privilege>"),
		    ty_int((int64_t)st->calls),
		    ty_float(st->total_ms),
		    ty_float(st->min_ms),
		    ty_float(st->max_ms),
		    ty_float(mean),
		    ty_float(var > 0 ? sqrt(var) : 0),
		    ty_int((int64_t)st->rows),
		};
		sql_sysrows_add(out, v);
	}
	pthread_mutex_unlock(&o->mu);
}

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

static const char *schema_name(cat_snap *cs, cat_oid oid)
{
	const cat_obj *o = cat_get(cs, oid);
	return o && o->kind == CAT_SCHEMA ? o->schema.name : "?";
}

/* ---------------------------------------------------------------- strata_progress */

static const sql_syscol progress_cols[] = {
    {"pid", I4},   {"operation", T}, {"relation", T}, {"phase", T},    {"done", I8},
    {"total", I8}, {"bytes", I8},    {"started", TS}, {"seconds", F8},
};

static void gen_progress(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	struct sql_ops *o = s->e->ops;
	int64_t now = util_now_us();
	pthread_mutex_lock(&o->mu);
	for (sql_progress *p = o->progress; p; p = p->next) {
		ty_datum v[9] = {
		    ty_int(p->pid),
		    ty_text(p->op),
		    p->relation[0] ? ty_text(p->relation) : ty_null(),
		    ty_text(p->phase),
		    ty_int((int64_t)p->done),
		    ty_int((int64_t)p->total),
		    ty_int((int64_t)p->bytes),
		    tstz_us(p->start_us),
		    ty_float((double)(now - p->start_us) / 1e6),
		};
		sql_sysrows_add(out, v);
	}
	pthread_mutex_unlock(&o->mu);
}

/* ---------------------------------------------------------------- strata_tables */

static const sql_syscol strata_tables_cols[] = {
    {"schemaname", N},
    {"relname", N},
    {"relkind", T},
    {"kv_table", T},
    {"family", T},
    {"versions", I4},
    {"min_versions", I4},
    {"ttl", I8},
    {"keep_deleted_cells", B},
    {"compression", T},
    {"bloom_filter", T},
    {"block_size", I4},
    {"retention", I8},
    {"memstore_bytes", I8},
    {"files", I8},
    {"file_bytes", I8},
    {"entries", I8},
    {"flushes", I8},
    {"compactions", I8},
};

static const char *bloom_name(kv_bloom b)
{
	return b == KV_BLOOM_NONE ? "none" : b == KV_BLOOM_ROWCOL ? "rowcol" : "row";
}

static int strata_table_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (!r->storage[0])
		return 0;
	kv_family_opts fo[16];
	int n = 0;
	if (kv_table_families(g->s->e->kv, r->storage, fo, 16, &n) != KV_OK)
		return 0;
	kv_table_stats ts;
	memset(&ts, 0, sizeof ts);
	kv_table *t;
	if (kv_table_open(g->s->e->kv, r->storage, &t) == KV_OK) {
		kv_table_get_stats(t, &ts);
		kv_table_close(t);
	}
	for (int i = 0; i < n && i < 16; i++) {
		char comp[16];
		if (fo[i].compression_level)
			snprintf(comp, sizeof comp, "zstd:%d", fo[i].compression_level);
		else
			snprintf(comp, sizeof comp, "none");
		char kind[2] = {r->relkind, 0};
		ty_datum v[19] = {
		    sql_d_name(schema_name(g->cs, r->schema)),
		    sql_d_name(r->name),
		    ty_text(kind),
		    ty_text(r->storage),
		    ty_text(fo[i].name),
		    ty_int(fo[i].max_versions),
		    ty_int(fo[i].min_versions),
		    ty_int(fo[i].ttl_seconds),
		    ty_bool(fo[i].keep_deleted_cells),
		    ty_text(comp),
		    ty_text(bloom_name(fo[i].bloom)),
		    ty_int(fo[i].block_size),
		    ty_int(fo[i].retention_seconds),
		    ty_int((int64_t)ts.memstore_bytes),
		    ty_int((int64_t)ts.file_count),
		    ty_int((int64_t)ts.file_bytes),
		    ty_int((int64_t)ts.entries),
		    ty_int((int64_t)ts.flushes),
		    ty_int((int64_t)ts.compactions),
		};
		sql_sysrows_add(g->out, v);
	}
	return 0;
}

static void gen_strata_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, strata_table_row, &g);
}

/* ---------------------------------------------------------------- kv-level views */

typedef struct kv_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
	util_map owner; /* storage -> cat_obj* */
	int which;      /* 0 kv_tables, 1 files, 2 compactions */
} kv_ctx;

static int note_owner(void *arg, const cat_obj *o)
{
	kv_ctx *c = arg;
	if (o->kind == CAT_REL && o->rel.storage[0])
		util_map_puts(&c->owner, o->rel.storage, (void *)o);
	return 0;
}

static ty_datum owner_name(kv_ctx *c, const char *storage)
{
	const cat_obj *o = util_map_gets(&c->owner, storage);
	if (!o)
		return ty_null();
	char *b = ty_alloc(2 * CAT_NAME_MAX + 2);
	snprintf(b, 2 * CAT_NAME_MAX + 2, "%s.%s", schema_name(c->cs, o->rel.schema), o->rel.name);
	return ty_text(b);
}

static const sql_syscol kv_tables_cols[] = {
    {"kv_table", T},    {"relation", T}, {"families", I4}, {"memstore_bytes", I8}, {"files", I8},
    {"file_bytes", I8}, {"entries", I8}, {"flushes", I8},  {"compactions", I8},
};

static const sql_syscol files_cols[] = {
    {"kv_table", T}, {"relation", T}, {"family", T},    {"file", I8},     {"size", I8},
    {"entries", I8}, {"deletes", I8}, {"min_time", TS}, {"max_time", TS},
};

static const sql_syscol compactions_cols[] = {
    {"kv_table", T},       {"relation", T},    {"flushes", I8},          {"compactions", I8},
    {"flush_queued", B},   {"compacting", B},  {"frozen_memstores", I4}, {"files", I8},
    {"flushed_up_to", TS}, {"last_flush", TS}, {"last_compaction", TS},
};

static int kv_view_row(void *arg, const char *name)
{
	kv_ctx *c = arg;
	kv_table *t;
	if (kv_table_open(c->s->e->kv, name, &t) != KV_OK)
		return 0;
	kv_table_stats ts;
	kv_table_get_stats(t, &ts);
	if (c->which == 0) {
		kv_family_opts fo[16];
		int n = 0;
		kv_table_families(c->s->e->kv, name, fo, 16, &n);
		ty_datum v[9] = {ty_text(name),
				 owner_name(c, name),
				 ty_int(n),
				 ty_int((int64_t)ts.memstore_bytes),
				 ty_int((int64_t)ts.file_count),
				 ty_int((int64_t)ts.file_bytes),
				 ty_int((int64_t)ts.entries),
				 ty_int((int64_t)ts.flushes),
				 ty_int((int64_t)ts.compactions)};
		sql_sysrows_add(c->out, v);
	} else if (c->which == 1) {
		kv_file_info *fi;
		int n = 0;
		if (kv_table_files(t, &fi, &n) == KV_OK) {
			for (int i = 0; i < n; i++) {
				ty_datum v[9] = {ty_text(name),
						 owner_name(c, name),
						 ty_text(fi[i].family),
						 ty_int((int64_t)fi[i].number),
						 ty_int((int64_t)fi[i].size),
						 ty_int((int64_t)fi[i].entries),
						 ty_int((int64_t)fi[i].deletes),
						 tstz_us((int64_t)fi[i].min_ts),
						 tstz_us((int64_t)fi[i].max_ts)};
				sql_sysrows_add(c->out, v);
			}
			free(fi);
		}
	} else {
		kv_table_activity a;
		kv_table_get_activity(t, &a);
		const cat_obj *o = util_map_gets(&c->owner, name);
		sql_table_stat *st = o ? sql_ops_table_stat(c->s->e, o->oid) : NULL;
		ty_datum v[11] = {ty_text(name),
				  owner_name(c, name),
				  ty_int((int64_t)ts.flushes),
				  ty_int((int64_t)ts.compactions),
				  ty_bool(a.flush_queued),
				  ty_bool(a.compacting),
				  ty_int(a.frozen_memstores),
				  ty_int((int64_t)ts.file_count),
				  tstz_us((int64_t)a.flushed_ts),
				  st ? tstz_us(atomic_load(&st->last_flush_us)) : ty_null(),
				  st ? tstz_us(atomic_load(&st->last_compaction_us)) : ty_null()};
		sql_sysrows_add(c->out, v);
	}
	kv_table_close(t);
	return 0;
}

static void gen_kv(sql_session *s, cat_snap *cs, sql_sysrows *out, int which)
{
	kv_ctx c = {s, cs, out, UTIL_MAP_INIT, which};
	cat_foreach(cs, CAT_REL, 0, note_owner, &c);
	kv_table_list(s->e->kv, kv_view_row, &c);
	util_map_free(&c.owner);
}

static void gen_kv_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_kv(s, cs, out, 0);
}
static void gen_files(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_kv(s, cs, out, 1);
}
static void gen_compactions(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_kv(s, cs, out, 2);
}

/* ---------------------------------------------------------------- store counters */

static const sql_syscol cache_cols[] = {
    {"capacity_bytes", I8}, {"used_bytes", I8}, {"hits", I8}, {"misses", I8}, {"hit_ratio", F8},
};

static void gen_cache(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	kv_store_stats st;
	kv_store_get_stats(s->e->kv, &st);
	uint64_t total = st.cache_hits + st.cache_misses;
	ty_datum v[5] = {ty_int((int64_t)s->e->opts.block_cache_bytes), ty_int((int64_t)st.cache_bytes),
			 ty_int((int64_t)st.cache_hits), ty_int((int64_t)st.cache_misses),
			 total ? ty_float((double)st.cache_hits / (double)total) : ty_null()};
	sql_sysrows_add(out, v);
}

static const sql_syscol wal_cols[] = {
    {"commits", I8},    {"wal_bytes", I8},  {"wal_syncs", I8},
    {"sync_commit", B}, {"read_point", I8}, {"read_point_time", TS},
};

static void gen_wal(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	kv_store_stats st;
	kv_store_get_stats(s->e->kv, &st);
	ty_datum v[6] = {ty_int((int64_t)st.commits),    ty_int((int64_t)st.wal_bytes),
			 ty_int((int64_t)st.wal_syncs),  ty_bool(s->e->opts.sync_commit),
			 ty_int((int64_t)st.read_point), tstz_us((int64_t)st.read_point)};
	sql_sysrows_add(out, v);
}

static const sql_syscol metrics_cols[] = {{"name", T}, {"value", F8}, {"description", T}};

typedef struct totals {
	sql_session *s;
	uint64_t tables, files, file_bytes, flushes, compactions;
} totals;

static int add_totals(void *arg, const char *name)
{
	totals *t = arg;
	kv_table *kt;
	if (kv_table_open(t->s->e->kv, name, &kt) != KV_OK)
		return 0;
	kv_table_stats ts;
	kv_table_get_stats(kt, &ts);
	kv_table_close(kt);
	t->tables++;
	t->files += ts.file_count;
	t->file_bytes += ts.file_bytes;
	t->flushes += ts.flushes;
	t->compactions += ts.compactions;
	return 0;
}

static void metric(sql_sysrows *out, const char *name, double v, const char *help)
{
	ty_datum d[3] = {ty_text(name), ty_float(v), ty_text(help)};
	sql_sysrows_add(out, d);
}

static void gen_metrics(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	kv_store_stats st;
	kv_store_get_stats(s->e->kv, &st);
	totals t = {s, 0, 0, 0, 0, 0};
	kv_table_list(s->e->kv, add_totals, &t);
	pthread_mutex_lock(&s->e->sessions_mu);
	int sessions = s->e->nsessions;
	pthread_mutex_unlock(&s->e->sessions_mu);
	metric(out, "strata_commits_total", (double)st.commits, "batches committed to the store");
	metric(out, "strata_wal_bytes_total", (double)st.wal_bytes, "bytes written to the write-ahead log");
	metric(out, "strata_wal_syncs_total", (double)st.wal_syncs, "fsyncs of the write-ahead log");
	metric(out, "strata_cache_hits_total", (double)st.cache_hits, "block cache hits");
	metric(out, "strata_cache_misses_total", (double)st.cache_misses, "block cache misses");
	metric(out, "strata_cache_bytes", (double)st.cache_bytes, "bytes in the block cache");
	metric(out, "strata_memstore_bytes", (double)st.memstore_bytes, "bytes in memstores");
	metric(out, "strata_write_stalls_total", (double)st.stalls, "writes that waited for flushes");
	metric(out, "strata_flushes_total", (double)t.flushes, "memstore flushes since start");
	metric(out, "strata_compactions_total", (double)t.compactions, "compactions since start");
	metric(out, "strata_kv_tables", (double)t.tables, "kv tables in the store");
	metric(out, "strata_files", (double)t.files, "sorted files");
	metric(out, "strata_file_bytes", (double)t.file_bytes, "bytes in sorted files");
	metric(out, "strata_sessions", (double)sessions, "open sessions");
	metric(out, "strata_read_point", (double)st.read_point,
	       "newest complete commit timestamp (µs since 1970)");
	metric(out, "strata_uptime_seconds", (double)(util_now_us() - s->e->start_time_us) / 1e6,
	       "seconds since the server started");
}

/* OIDs from 8500: unassigned in PostgreSQL 15 (8000-9999 is its range for
 * development) and below Strata's first user oid. */
static const sql_sysview stat_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_stat_statements", 8500, 'v', statements_cols, gen_statements),
    SQL_SYSVIEW("pg_catalog", "strata_progress", 8501, 'v', progress_cols, gen_progress),
    SQL_SYSVIEW("pg_catalog", "strata_tables", 8502, 'v', strata_tables_cols, gen_strata_tables),
    SQL_SYSVIEW("pg_catalog", "strata_kv_tables", 8503, 'v', kv_tables_cols, gen_kv_tables),
    SQL_SYSVIEW("pg_catalog", "strata_files", 8504, 'v', files_cols, gen_files),
    SQL_SYSVIEW("pg_catalog", "strata_compactions", 8505, 'v', compactions_cols, gen_compactions),
    SQL_SYSVIEW("pg_catalog", "strata_cache", 8506, 'v', cache_cols, gen_cache),
    SQL_SYSVIEW("pg_catalog", "strata_wal", 8507, 'v', wal_cols, gen_wal),
    SQL_SYSVIEW("pg_catalog", "strata_metrics", 8508, 'v', metrics_cols, gen_metrics),
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	sql_sysview_register(stat_views, (int)UTIL_ARRAY_LEN(stat_views));
}

void sql_sysviews_stat_init(void)
{
	pthread_once(&once, init);
}
