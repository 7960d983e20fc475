/*
 * sysview_pgviews.c — PostgreSQL's system views over the catalog and the
 * running server: pg_tables, pg_views, pg_indexes, pg_sequences,
 * pg_settings, pg_stat_activity (the engine's live sessions), pg_locks
 * (the row lock manager), pg_stat_user_tables and friends, pg_stat_database,
 * pg_prepared_statements. Counters Strata does not keep read 0 / NULL.
 */
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "ops.h"
#include "sysview.h"

#define T  TY_TEXT
#define N  TY_NAME
#define O  TY_OID
#define B  TY_BOOL
#define I2 TY_INT2
#define I4 TY_INT4
#define I8 TY_INT8
#define F8 TY_FLOAT8
#define TS TY_TIMESTAMPTZ

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

static const char *schema_of(gen_ctx *g, const cat_obj *o)
{
	return sql_schema_name(g->cs, o->rel.schema);
}
static const char *owner_of(gen_ctx *g, const cat_obj *o)
{
	return sql_role_name(g->cs, o->rel.owner);
}

/* ---- pg_tables ---- */

static const sql_syscol tables_cols[] = {{"schemaname", N},  {"tablename", N},  {"tableowner", N},
					 {"tablespace", N},  {"hasindexes", B}, {"hasrules", B},
					 {"hastriggers", B}, {"rowsecurity", B}};

typedef struct tables_ctx {
	gen_ctx g;
	const cat_obj **fk; /* tables with or referenced by a foreign key */
	int nfk;
} tables_ctx;

static int note_fk(void *arg, const cat_obj *o)
{
	tables_ctx *t = arg;
	for (int i = 0; i < o->rel.ncons; i++)
		if (o->rel.cons[i].type == 'f') {
			const cat_obj **n = ty_alloc(sizeof(cat_obj *) * (size_t)(t->nfk + 2));
			if (t->nfk)
				memcpy(n, t->fk, sizeof(cat_obj *) * (size_t)t->nfk);
			n[t->nfk++] = o;
			n[t->nfk++] = cat_get(t->g.cs, o->rel.cons[i].ref_table);
			t->fk = n;
		}
	return 0;
}

static int table_row(void *arg, const cat_obj *o)
{
	tables_ctx *t = arg;
	gen_ctx *g = &t->g;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	int nidx;
	sql_table_indexes(g->cs, o, &nidx);
	bool triggers = false; /* foreign keys count as triggers, as in PostgreSQL */
	for (int i = 0; i < t->nfk && !triggers; i++)
		triggers = t->fk[i] == o;
	ty_datum v[8] = {sql_d_name(schema_of(g, o)), sql_d_name(o->rel.name),
			 sql_d_name(owner_of(g, o)),  ty_null(),
			 sql_d_bool(nidx > 0),        sql_d_bool(false),
			 sql_d_bool(triggers),        sql_d_bool(false)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	tables_ctx t = {{s, cs, out}, NULL, 0};
	cat_foreach(cs, CAT_REL, s->db_oid, note_fk, &t);
	cat_foreach(cs, CAT_REL, s->db_oid, table_row, &t);
}

/* ---- pg_views ---- */

static const sql_syscol views_cols[] = {
    {"schemaname", N}, {"viewname", N}, {"viewowner", N}, {"definition", T}};

static int view_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW)
		return 0;
	ty_datum v[4] = {sql_d_name(schema_of(g, o)), sql_d_name(o->rel.name), sql_d_name(owner_of(g, o)),
			 sql_d_text(sql_deparse_view_text(g->s, g->cs, o, false))};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_views(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, view_row, &g);
	/* The system views are views too. */
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *sv = sql_sysview_nth(i);
		if (sv->relkind != 'v')
			continue;
		ty_datum v[4] = {sql_d_name(sv->schema), sql_d_name(sv->name), sql_d_name("postgres"),
				 ty_null()};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_indexes ---- */

static const sql_syscol indexes_cols[] = {
    {"schemaname", N}, {"tablename", N}, {"indexname", N}, {"tablespace", N}, {"indexdef", T}};

static int indexes_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	int n;
	sql_index_desc *d = sql_table_indexes(g->cs, o, &n);
	for (int i = 0; i < n; i++) {
		ty_datum v[5] = {sql_d_name(schema_of(g, o)), sql_d_name(o->rel.name), sql_d_name(d[i].name),
				 ty_null(), sql_d_text(sql_indexdef_text(g->s, g->cs, &d[i], 0, false))};
		sql_sysrows_add(g->out, v);
	}
	return 0;
}

static void gen_indexes(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, indexes_rows, &g);
}

/* ---- pg_sequences ---- */

static const sql_syscol sequences_cols[] = {
    {"schemaname", N},   {"sequencename", N}, {"sequenceowner", N}, {"data_type", TY_REGTYPE},
    {"start_value", I8}, {"min_value", I8},   {"max_value", I8},    {"increment_by", I8},
    {"cycle", B},        {"cache_size", I8},  {"last_value", I8},
};

static int sequences_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_sequence_info *q = o->rel.seq;
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE || !q)
		return 0;
	int64_t last, logc;
	bool called;
	sql_seq_peek(g->s, o->oid, &last, &logc, &called);
	ty_datum v[11] = {sql_d_name(schema_of(g, o)),
			  sql_d_name(o->rel.name),
			  sql_d_name(owner_of(g, o)),
			  sql_d_oid(q->type),
			  sql_d_int(q->start),
			  sql_d_int(q->min),
			  sql_d_int(q->max),
			  sql_d_int(q->increment),
			  sql_d_bool(q->cycle),
			  sql_d_int(q->cache),
			  called ? sql_d_int(last) : ty_null()};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_sequences(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, sequences_row, &g);
}

/* ---- pg_settings ---- */

static const sql_syscol settings_cols[] = {
    {"name", T},        {"setting", T},         {"unit", T},
    {"category", T},    {"short_desc", T},      {"extra_desc", T},
    {"context", T},     {"vartype", T},         {"source", T},
    {"min_val", T},     {"max_val", T},         {"enumvals", TY_TEXT_ARRAY},
    {"boot_val", T},    {"reset_val", T},       {"sourcefile", T},
    {"sourceline", I4}, {"pending_restart", B},
};

static void gen_settings(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	static const char *types[] = {"bool", "integer", "real", "string", "enum"};
	for (int i = 0; i < sql_guc_count(); i++) {
		const sql_guc *gu = sql_guc_nth(i);
		const char *val = sql_guc_get(s, gu->name);
		char mn[32] = "", mx[32] = "";
		bool num = gu->type == GUC_INT || gu->type == GUC_REAL;
		if (num) {
			snprintf(mn, sizeof mn, "%lld", (long long)gu->min);
			snprintf(mx, sizeof mx, "%lld", (long long)gu->max);
		}
		ty_datum enums = ty_null();
		if (gu->type == GUC_ENUM && gu->enums) {
			int n = 0;
			while (gu->enums[n])
				n++;
			enums = sql_d_text_array(n, gu->enums);
		}
		ty_datum v[17] = {
		    sql_d_text(gu->name),
		    sql_d_text(val ? val : ""),
		    sql_d_text(gu->unit),
		    sql_d_text(gu->category),
		    sql_d_text(gu->desc),
		    ty_null(),
		    sql_d_text(gu->readonly ? "internal" : "user"),
		    sql_d_text(types[gu->type]),
		    sql_d_text(val && gu->boot && strcmp(val, gu->boot) ? "session" : "default"),
		    num ? sql_d_text(mn) : ty_null(),
		    num ? sql_d_text(mx) : ty_null(),
		    enums,
		    sql_d_text(gu->boot),
		    sql_d_text(gu->boot),
		    ty_null(),
		    ty_null(),
		    sql_d_bool(false)};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_stat_activity ---- */

static const sql_syscol activity_cols[] = {
    {"datid", O},
    {"datname", N},
    {"pid", I4},
    {"leader_pid", I4},
    {"usesysid", O},
    {"usename", N},
    {"application_name", T},
    {"client_addr", TY_INET},
    {"client_hostname", T},
    {"client_port", I4},
    {"backend_start", TS},
    {"xact_start", TS},
    {"query_start", TS},
    {"state_change", TS},
    {"wait_event_type", T},
    {"wait_event", T},
    {"state", T},
    {"backend_xid", TY_XID},
    {"backend_xmin", TY_XID},
    {"query_id", I8},
    {"query", T},
    {"backend_type", T},
};

static void gen_activity(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	sql_engine *e = s->e;
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions; i++) {
		sql_session *o = e->sessions[i];
		pthread_mutex_lock(&o->mu);
		bool in_txn = o->txn_state != SQL_TXN_IDLE || o == s;
		const char *wtype, *wevent; /* row-lock and client waits (ops_stats.c) */
		sql_ops_wait_event(o, o->state_desc, &wtype, &wevent);
		ty_datum v[22] = {sql_d_oid(o->db_oid),
				  sql_d_name(o->database),
				  sql_d_int(o->pid),
				  ty_null(),
				  sql_d_oid(o->user_oid),
				  sql_d_name(o->user),
				  sql_d_text(o->application_name),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  sql_d_timestamptz_us(o->backend_start_us),
				  in_txn ? sql_d_timestamptz_us(o->xact_start_us) : ty_null(),
				  sql_d_timestamptz_us(o->query_start_us),
				  sql_d_timestamptz_us(o->query_start_us),
				  sql_d_text(wtype),
				  sql_d_text(wevent),
				  sql_d_text(o->state_desc),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  sql_d_text(o->current_query ? o->current_query : ""),
				  sql_d_text("client backend")};
		pthread_mutex_unlock(&o->mu);
		sql_sysrows_add(out, v);
	}
	pthread_mutex_unlock(&e->sessions_mu);
}

/* ---- pg_locks ---- */

static const sql_syscol locks_cols[] = {
    {"locktype", T}, {"database", O},   {"relation", O},           {"page", I4},
    {"tuple", I2},   {"virtualxid", T}, {"transactionid", TY_XID}, {"classid", O},
    {"objid", O},    {"objsubid", I2},  {"virtualtransaction", T}, {"pid", I4},
    {"mode", T},     {"granted", B},    {"fastpath", B},           {"waitstart", TS},
};

typedef struct locks_ctx {
	sql_sysrows *out;
	cat_oid db;
} locks_ctx;

static void lock_row(void *arg, const sql_lock_row *r)
{
	locks_ctx *l = arg;
	char vt[32];
	snprintf(vt, sizeof vt, "%d/1", r->pid);
	bool rel = r->relation != 0;
	ty_datum v[16] = {sql_d_text(r->locktype),
			  rel ? sql_d_oid(l->db) : ty_null(),
			  rel ? sql_d_oid(r->relation) : ty_null(),
			  ty_null(),
			  ty_null(),
			  ty_null(),
			  rel ? ty_null() : ty_int((int64_t)r->xid),
			  ty_null(),
			  ty_null(),
			  ty_null(),
			  sql_d_text(vt),
			  sql_d_int(r->pid),
			  sql_d_text(r->mode),
			  sql_d_bool(r->granted),
			  sql_d_bool(false),
			  ty_null()};
	sql_sysrows_add(l->out, v);
}

static void gen_locks(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	sql_engine *e = s->e;
	/* Every session in a transaction holds its virtual transaction id. */
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions; i++) {
		sql_session *o = e->sessions[i];
		if (o->txn_state == SQL_TXN_IDLE && o != s)
			continue;
		char vx[32];
		snprintf(vx, sizeof vx, "%d/1", o->pid);
		ty_datum v[16] = {sql_d_text("virtualxid"),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  sql_d_text(vx),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  ty_null(),
				  sql_d_text(vx),
				  sql_d_int(o->pid),
				  sql_d_text("ExclusiveLock"),
				  sql_d_bool(true),
				  sql_d_bool(true),
				  ty_null()};
		sql_sysrows_add(out, v);
	}
	pthread_mutex_unlock(&e->sessions_mu);
	locks_ctx l = {out, s->db_oid};
	sql_locks_report(e, lock_row, &l);
}

/* ---- statistics views ---- */

static const sql_syscol stat_tables_cols[] = {
    {"relid", O},
    {"schemaname", N},
    {"relname", N},
    {"seq_scan", I8},
    {"seq_tup_read", I8},
    {"idx_scan", I8},
    {"idx_tup_fetch", I8},
    {"n_tup_ins", I8},
    {"n_tup_upd", I8},
    {"n_tup_del", I8},
    {"n_tup_hot_upd", I8},
    {"n_live_tup", I8},
    {"n_dead_tup", I8},
    {"n_mod_since_analyze", I8},
    {"n_ins_since_vacuum", I8},
    {"last_vacuum", TS},
    {"last_autovacuum", TS},
    {"last_analyze", TS},
    {"last_autoanalyze", TS},
    {"vacuum_count", I8},
    {"autovacuum_count", I8},
    {"analyze_count", I8},
    {"autoanalyze_count", I8},
};

typedef struct stat_ctx {
	gen_ctx *g;
	int which; /* 0 all, 1 user, 2 sys */
} stat_ctx;

static bool system_schema(cat_oid schema)
{
	return schema == CAT_OID_PG_CATALOG || schema == CAT_OID_INFORMATION_SCHEMA;
}

static int stat_table_row(void *arg, const cat_obj *o)
{
	stat_ctx *sc = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	bool sys = system_schema(o->rel.schema);
	if ((sc->which == 1 && sys) || (sc->which == 2 && !sys))
		return 0;
	ty_datum v[23];
	v[0] = sql_d_oid(o->oid);
	v[1] = sql_d_name(schema_of(sc->g, o));
	v[2] = sql_d_name(o->rel.name);
	for (int k = 3; k < 23; k++)
		v[k] = k >= 15 && k <= 18 ? ty_null() : sql_d_int(0);
	sql_table_counters tc; /* since the server started (ops_stats.c) */
	sql_ops_table_counters(sc->g->s->e, o->oid, &tc);
	v[3] = sql_d_int(tc.seq_scan);
	v[4] = sql_d_int(tc.seq_tup_read);
	v[5] = sql_d_int(tc.idx_scan); /* primary-key range scans and index scans */
	v[6] = sql_d_int(tc.idx_tup_fetch);
	int nidx;
	sql_table_indexes(sc->g->cs, o, &nidx);
	if (!nidx && !tc.idx_scan)
		v[5] = v[6] = ty_null(); /* NULL without indexes, as PostgreSQL */
	v[7] = sql_d_int(tc.n_tup_ins);
	v[8] = sql_d_int(tc.n_tup_upd);
	v[9] = sql_d_int(tc.n_tup_del);
	int64_t live = o->rel.stats_rows ? (int64_t)o->rel.stats_rows : tc.n_tup_ins - tc.n_tup_del;
	v[11] = sql_d_int(live > 0 ? live : 0);
	v[13] = sql_d_int(tc.n_tup_ins + tc.n_tup_upd + tc.n_tup_del); /* n_mod_since_analyze */
	v[14] = sql_d_int(tc.n_tup_ins);                             /* n_ins_since_vacuum */
	sql_sysrows_add(sc->g->out, v);
	return 0;
}

static void gen_stat_tables(sql_session *s, cat_snap *cs, sql_sysrows *out, int which)
{
	gen_ctx g = {s, cs, out};
	stat_ctx sc = {&g, which};
	cat_foreach(cs, CAT_REL, s->db_oid, stat_table_row, &sc);
}

static void gen_stat_all_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_stat_tables(s, cs, out, 0);
}
static void gen_stat_user_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_stat_tables(s, cs, out, 1);
}
static void gen_stat_sys_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_stat_tables(s, cs, out, 2);
}

static const sql_syscol statio_tables_cols[] = {
    {"relid", O},           {"schemaname", N},      {"relname", N},        {"heap_blks_read", I8},
    {"heap_blks_hit", I8},  {"idx_blks_read", I8},  {"idx_blks_hit", I8},  {"toast_blks_read", I8},
    {"toast_blks_hit", I8}, {"tidx_blks_read", I8}, {"tidx_blks_hit", I8},
};

static int statio_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE || system_schema(o->rel.schema))
		return 0;
	ty_datum v[11] = {sql_d_oid(o->oid),
			  sql_d_name(schema_of(g, o)),
			  sql_d_name(o->rel.name),
			  sql_d_int(0),
			  sql_d_int(0),
			  ty_null(),
			  ty_null(),
			  ty_null(),
			  ty_null(),
			  ty_null(),
			  ty_null()};
	int nidx;
	sql_table_indexes(g->cs, o, &nidx);
	if (nidx)
		v[5] = v[6] = sql_d_int(0);
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_statio_user_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, statio_row, &g);
}

static const sql_syscol stat_indexes_cols[] = {{"relid", O},         {"indexrelid", O},    {"schemaname", N},
					       {"relname", N},       {"indexrelname", N},  {"idx_scan", I8},
					       {"idx_tup_read", I8}, {"idx_tup_fetch", I8}};

static int stat_index_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	int n;
	sql_index_desc *d = sql_table_indexes(g->cs, o, &n);
	for (int i = 0; i < n; i++) {
		ty_datum v[8] = {sql_d_oid(o->oid),
				 sql_d_oid(d[i].oid),
				 sql_d_name(schema_of(g, o)),
				 sql_d_name(o->rel.name),
				 sql_d_name(d[i].name),
				 sql_d_int(0),
				 sql_d_int(0),
				 sql_d_int(0)};
		sql_sysrows_add(g->out, v);
	}
	return 0;
}

static void gen_stat_indexes(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, stat_index_rows, &g);
}

static const sql_syscol stat_db_cols[] = {
    {"datid", O},
    {"datname", N},
    {"numbackends", I4},
    {"xact_commit", I8},
    {"xact_rollback", I8},
    {"blks_read", I8},
    {"blks_hit", I8},
    {"tup_returned", I8},
    {"tup_fetched", I8},
    {"tup_inserted", I8},
    {"tup_updated", I8},
    {"tup_deleted", I8},
    {"conflicts", I8},
    {"temp_files", I8},
    {"temp_bytes", I8},
    {"deadlocks", I8},
    {"checksum_failures", I8},
    {"checksum_last_failure", TS},
    {"blk_read_time", F8},
    {"blk_write_time", F8},
    {"session_time", F8},
    {"active_time", F8},
    {"idle_in_transaction_time", F8},
    {"sessions", I8},
    {"sessions_abandoned", I8},
    {"sessions_fatal", I8},
    {"sessions_killed", I8},
    {"stats_reset", TS},
};

typedef struct db_ctx {
	gen_ctx *g;
	sql_engine *e;
} db_ctx;

static int stat_db_row(void *arg, const cat_obj *o)
{
	db_ctx *d = arg;
	int backends = 0;
	pthread_mutex_lock(&d->e->sessions_mu);
	for (int i = 0; i < d->e->nsessions; i++)
		backends += d->e->sessions[i]->db_oid == o->oid;
	pthread_mutex_unlock(&d->e->sessions_mu);
	ty_datum v[28];
	v[0] = sql_d_oid(o->oid);
	v[1] = sql_d_name(o->db.name);
	v[2] = sql_d_int(backends);
	for (int k = 3; k < 28; k++)
		v[k] = k >= 18 && k <= 22 ? sql_d_float(0) : sql_d_int(0);
	v[16] = v[17] = v[27] = ty_null();
	sql_sysrows_add(d->g->out, v);
	return 0;
}

static void gen_stat_database(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	db_ctx d = {&g, s->e};
	cat_foreach(cs, CAT_DATABASE, 0, stat_db_row, &d);
}

/* ---- pg_prepared_statements, pg_cursors: this session's ---- */

static const sql_syscol prepared_cols[] = {
    {"name", T},     {"statement", T},      {"prepare_time", TS}, {"parameter_types", TY_REGTYPE_ARRAY},
    {"from_sql", B}, {"generic_plans", I8}, {"custom_plans", I8}};

static void gen_prepared(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	size_t pos = 0;
	const void *key;
	size_t klen;
	void *v;
	while (util_map_next(&s->prepared, &pos, &key, &klen, &v)) {
		const sql_prepared *p = v;
		if (!p->name || !*p->name)
			continue; /* the unnamed statement is not listed */
		ty_datum *types = ty_alloc(sizeof(ty_datum) * (size_t)(p->nparams ? p->nparams : 1));
		for (int i = 0; i < p->nparams; i++)
			types[i] = sql_d_oid(p->param_types[i]);
		ty_datum r[7] = {sql_d_text(p->name),
				 sql_d_text(p->text),
				 sql_d_timestamptz_us(p->prepare_time_us),
				 ty_array_from_list(TY_REGTYPE, p->nparams, types),
				 sql_d_bool(p->from_sql),
				 sql_d_int(0),
				 sql_d_int(0)};
		sql_sysrows_add(out, r);
	}
}

static const sql_syscol cursors_cols[] = {{"name", T},      {"statement", T},     {"is_holdable", B},
					  {"is_binary", B}, {"is_scrollable", B}, {"creation_time", TS}};

static void gen_cursors(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	size_t pos = 0;
	const void *key;
	size_t klen;
	void *v;
	while (util_map_next(&s->portals, &pos, &key, &klen, &v)) {
		const sql_portal_s *po = v;
		if (!po->is_cursor || !po->name)
			continue;
		ty_datum r[6] = {
		    sql_d_text(po->name),     sql_d_text(po->stmt ? po->stmt->text : NULL),
		    sql_d_bool(po->holdable), sql_d_bool(po->formats != NULL),
		    sql_d_bool(po->scroll),   sql_d_timestamptz_us(po->stmt ? po->stmt->prepare_time_us : 0)};
		sql_sysrows_add(out, r);
	}
}

static const sql_sysview views_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_prepared_statements", 12095, 'v', prepared_cols, gen_prepared),
    SQL_SYSVIEW("pg_catalog", "pg_cursors", 12077, 'v', cursors_cols, gen_cursors),
    SQL_SYSVIEW("pg_catalog", "pg_tables", 12033, 'v', tables_cols, gen_tables),
    SQL_SYSVIEW("pg_catalog", "pg_views", 12028, 'v', views_cols, gen_views),
    SQL_SYSVIEW("pg_catalog", "pg_indexes", 12043, 'v', indexes_cols, gen_indexes),
    SQL_SYSVIEW("pg_catalog", "pg_sequences", 12048, 'v', sequences_cols, gen_sequences),
    SQL_SYSVIEW("pg_catalog", "pg_settings", 12104, 'v', settings_cols, gen_settings),
    SQL_SYSVIEW("pg_catalog", "pg_stat_activity", 12222, 'v', activity_cols, gen_activity),
    SQL_SYSVIEW("pg_catalog", "pg_locks", 12073, 'v', locks_cols, gen_locks),
    SQL_SYSVIEW("pg_catalog", "pg_stat_all_tables", 12142, 'v', stat_tables_cols, gen_stat_all_tables),
    SQL_SYSVIEW("pg_catalog", "pg_stat_sys_tables", 12152, 'v', stat_tables_cols, gen_stat_sys_tables),
    SQL_SYSVIEW("pg_catalog", "pg_stat_user_tables", 12161, 'v', stat_tables_cols, gen_stat_user_tables),
    SQL_SYSVIEW("pg_catalog", "pg_statio_user_tables", 12179, 'v', statio_tables_cols,
		gen_statio_user_tables),
    SQL_SYSVIEW("pg_catalog", "pg_stat_all_indexes", 12183, 'v', stat_indexes_cols, gen_stat_indexes),
    SQL_SYSVIEW("pg_catalog", "pg_stat_user_indexes", 12192, 'v', stat_indexes_cols, gen_stat_indexes),
    SQL_SYSVIEW("pg_catalog", "pg_stat_database", 12266, 'v', stat_db_cols, gen_stat_database),
};

void sql_sysviews_views_init(void)
{
	sql_sysview_register(views_views, (int)UTIL_ARRAY_LEN(views_views));
}
