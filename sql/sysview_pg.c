/*
 * sysview_pg.c — the core pg_catalog relations generated from Strata's
 * catalog and type registry: pg_namespace, pg_class, pg_attribute,
 * pg_type, pg_database, pg_roles/pg_user/pg_authid, pg_settings,
 * pg_tables. Column sets follow PostgreSQL 15.
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

#define T TY_TEXT
#define N TY_NAME
#define O TY_OID
#define B TY_BOOL
#define I2 TY_INT2
#define I4 TY_INT4
#define I8 TY_INT8
#define F4 TY_FLOAT4
#define C TY_CHAR

static int gen_count(void *arg, const cat_obj *o)
{
	(void)o;
	(*(int *)arg)++;
	return 0;
}

/* ---- pg_namespace ---- */

static const sql_syscol ns_cols[] = {{"oid", O}, {"nspname", N}, {"nspowner", O}, {"nspacl", TY_TEXT_ARRAY}};

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

static int ns_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	ty_datum v[4] = {sql_d_oid(o->oid), sql_d_name(o->schema.name), sql_d_oid(o->schema.owner), ty_null()};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_namespace(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	/* pg_toast exists in every PostgreSQL database. */
	ty_datum t[4] = {sql_d_oid(CAT_OID_PG_TOAST), sql_d_name("pg_toast"), sql_d_oid(CAT_OID_POSTGRES_ROLE), ty_null()};
	sql_sysrows_add(out, t);
	cat_foreach(cs, CAT_SCHEMA, s->db_oid, ns_row, &g);
}

/* ---- pg_class ---- */

static const sql_syscol class_cols[] = {
	{"oid", O},	       {"relname", N},	      {"relnamespace", O},  {"reltype", O},	  {"reloftype", O},
	{"relowner", O},       {"relam", O},	      {"relfilenode", O},   {"reltablespace", O}, {"relpages", I4},
	{"reltuples", F4},     {"relallvisible", I4}, {"reltoastrelid", O}, {"relhasindex", B},	  {"relisshared", B},
	{"relpersistence", C}, {"relkind", C},	      {"relnatts", I2},	    {"relchecks", I2},	  {"relhasrules", B},
	{"relhastriggers", B}, {"relhassubclass", B}, {"relrowsecurity", B}, {"relforcerowsecurity", B},
	{"relispopulated", B}, {"relreplident", C},   {"relispartition", B}, {"relrewrite", O},	  {"relfrozenxid", TY_XID},
	{"relminmxid", TY_XID}, {"relacl", TY_TEXT_ARRAY}, {"reloptions", TY_TEXT_ARRAY}, {"relpartbound", TY_PG_NODE_TREE},
};

ty_datum sql_reloptions_array(const cat_rel *r);

static int class_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	int natts = 0, nchecks = 0;
	for (int i = 0; i < r->ncols; i++)
		natts += !r->cols[i].dropped;
	for (int i = 0; i < r->ncons; i++)
		nchecks += r->cons[i].type == 'c';
	if (r->relkind == CAT_RELKIND_INDEX && r->index)
		natts = r->index->nkeys + r->index->ninclude;
	ty_datum v[33];
	int k = 0;
	v[k++] = sql_d_oid(o->oid);
	v[k++] = sql_d_name(r->name);
	v[k++] = sql_d_oid(r->schema);
	v[k++] = sql_d_oid(0);
	v[k++] = sql_d_oid(0);
	v[k++] = sql_d_oid(r->owner);
	v[k++] = sql_d_oid(r->relkind == CAT_RELKIND_INDEX ? 403 : r->relkind == CAT_RELKIND_TABLE ? 2 : 0);
	v[k++] = sql_d_oid(r->relkind == CAT_RELKIND_VIEW ? 0 : o->oid);
	v[k++] = sql_d_oid(0);
	v[k++] = sql_d_int(0);
	v[k++] = ty_float(r->stats_rows ? (double)r->stats_rows : -1);
	v[k++] = sql_d_int(0);
	v[k++] = sql_d_oid(0);
	v[k++] = sql_d_bool(r->nindexes > 0);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_char('p');
	v[k++] = sql_d_char(r->relkind);
	v[k++] = sql_d_int(natts);
	v[k++] = sql_d_int(nchecks);
	v[k++] = sql_d_bool(r->relkind == CAT_RELKIND_VIEW);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_bool(true);
	v[k++] = sql_d_char(r->relkind == CAT_RELKIND_TABLE ? 'd' : 'n');
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_oid(0);
	v[k++] = sql_d_int(r->relkind == CAT_RELKIND_TABLE ? 726 : 0);
	v[k++] = sql_d_int(r->relkind == CAT_RELKIND_TABLE ? 1 : 0);
	v[k++] = ty_null();
	v[k++] = sql_reloptions_array(r);
	v[k++] = ty_null();
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_class(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, class_row, &g);
	/* The generated catalogs are relations too. */
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *v = sql_sysview_nth(i);
		if (!v->oid)
			continue;
		ty_datum d[33];
		for (int k = 0; k < 33; k++)
			d[k] = ty_null();
		d[0] = sql_d_oid(v->oid);
		d[1] = sql_d_name(v->name);
		d[2] = sql_d_oid(!strcmp(v->schema, "pg_catalog") ? CAT_OID_PG_CATALOG : CAT_OID_INFORMATION_SCHEMA);
		d[3] = d[4] = d[7] = d[8] = d[12] = d[27] = sql_d_oid(0);
		d[5] = sql_d_oid(CAT_OID_POSTGRES_ROLE);
		d[6] = sql_d_oid(2);
		d[9] = d[11] = sql_d_int(0);
		d[10] = ty_float(-1);
		d[13] = d[14] = d[19] = d[20] = d[21] = d[22] = d[23] = d[26] = sql_d_bool(false);
		d[24] = sql_d_bool(true);
		d[15] = sql_d_char('p');
		d[16] = sql_d_char('r');
		d[17] = sql_d_int(v->ncols);
		d[18] = sql_d_int(0);
		d[25] = sql_d_char('n');
		d[28] = d[29] = sql_d_int(0);
		sql_sysrows_add(out, d);
	}
}

/* ---- pg_attribute ---- */

static const sql_syscol att_cols[] = {
	{"attrelid", O},     {"attname", N},	   {"atttypid", O},	    {"attstattarget", I4}, {"attlen", I2},
	{"attnum", I2},	     {"attndims", I4},	   {"attcacheoff", I4},	    {"atttypmod", I4},	   {"attbyval", B},
	{"attalign", C},     {"attstorage", C},	   {"attcompression", C},   {"attnotnull", B},	   {"atthasdef", B},
	{"atthasmissing", B}, {"attidentity", C},  {"attgenerated", C},	    {"attisdropped", B},   {"attislocal", B},
	{"attinhcount", I4}, {"attcollation", O},  {"attacl", TY_TEXT_ARRAY}, {"attoptions", TY_TEXT_ARRAY},
	{"attfdwoptions", TY_TEXT_ARRAY}, {"attmissingval", TY_TEXT_ARRAY},
};

static void att_add(gen_ctx *g, cat_oid rel, const char *name, ty_oid type, int32_t typmod, int attnum, bool notnull,
		    bool hasdef, char identity, bool dropped)
{
	const ty_type *t = ty_type_get(type);
	ty_datum v[26];
	int k = 0;
	char dname[CAT_NAME_MAX];
	if (dropped)
		snprintf(dname, sizeof dname, "........pg.dropped.%d........", attnum);
	v[k++] = sql_d_oid(rel);
	v[k++] = sql_d_name(dropped ? dname : name);
	v[k++] = sql_d_oid(dropped ? 0 : type);
	v[k++] = sql_d_int(-1);
	v[k++] = sql_d_int(t ? t->len : -1);
	v[k++] = sql_d_int(attnum);
	v[k++] = sql_d_int(t && t->category == 'A' ? 1 : 0);
	v[k++] = sql_d_int(-1);
	v[k++] = sql_d_int(typmod);
	v[k++] = sql_d_bool(t && t->byval);
	v[k++] = sql_d_char(t ? t->align : 'i');
	v[k++] = sql_d_char(t && t->len == -1 ? 'x' : 'p');
	v[k++] = sql_d_char('\0');
	v[k++] = sql_d_bool(notnull);
	v[k++] = sql_d_bool(hasdef);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_char(identity);
	v[k++] = sql_d_char('\0');
	v[k++] = sql_d_bool(dropped);
	v[k++] = sql_d_bool(true);
	v[k++] = sql_d_int(0);
	v[k++] = sql_d_oid(t && t->category == 'S' ? 950 : 0);
	v[k++] = ty_null();
	v[k++] = ty_null();
	v[k++] = ty_null();
	v[k++] = ty_null();
	sql_sysrows_add(g->out, v);
}

static int att_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind == CAT_RELKIND_INDEX && r->index) {
		const cat_obj *t = cat_get(g->cs, r->index->table);
		for (int i = 0; i < r->index->nkeys; i++) {
			const cat_index_col *ic = &r->index->keys[i];
			const cat_column *c = ic->attnum && t ? cat_column_by_attnum(&t->rel, ic->attnum) : NULL;
			att_add(g, o->oid, c ? c->name : "expr", c ? c->type : TY_TEXT, c ? c->typmod : -1, i + 1, false, false,
				'\0', false);
		}
		return 0;
	}
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		att_add(g, o->oid, c->name, c->type, c->typmod, c->attnum, c->notnull, c->default_sql != NULL && !c->identity,
			c->identity, c->dropped);
	}
	return 0;
}

static void gen_attribute(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, att_rows, &g);
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *v = sql_sysview_nth(i);
		if (!v->oid)
			continue;
		for (int c = 0; c < v->ncols; c++)
			att_add(&g, v->oid, v->cols[c].name, v->cols[c].type, -1, c + 1, false, false, '\0', false);
	}
}

/* ---- pg_type ---- */

static const sql_syscol type_cols[] = {
	{"oid", O},	      {"typname", N},	    {"typnamespace", O},  {"typowner", O},	{"typlen", I2},
	{"typbyval", B},      {"typtype", C},	    {"typcategory", C},	  {"typispreferred", B}, {"typisdefined", B},
	{"typdelim", C},      {"typrelid", O},	    {"typsubscript", TY_REGPROC}, {"typelem", O}, {"typarray", O},
	{"typinput", TY_REGPROC}, {"typoutput", TY_REGPROC}, {"typreceive", TY_REGPROC}, {"typsend", TY_REGPROC},
	{"typmodin", TY_REGPROC}, {"typmodout", TY_REGPROC}, {"typanalyze", TY_REGPROC}, {"typalign", C},
	{"typstorage", C},    {"typnotnull", B},    {"typbasetype", O},	  {"typtypmod", I4},	{"typndims", I4},
	{"typcollation", O},  {"typdefaultbin", TY_PG_NODE_TREE}, {"typdefault", T}, {"typacl", TY_TEXT_ARRAY},
};

static ty_oid proc_by_name(const char *name)
{
	if (!name)
		return 0;
	int cur = 0;
	const ty_func *f = ty_func_lookup(name, &cur);
	return f ? ty_func_oid(f) : 0;
}

static void gen_type(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_type *t = ty_type_nth(i);
		if (!t)
			break;
		ty_datum v[32];
		int k = 0;
		v[k++] = sql_d_oid(t->oid);
		v[k++] = sql_d_name(t->category == 'A' && t->elem && ty_type_get(t->elem) ? NULL : t->name);
		if (v[1].null) {
			char n[CAT_NAME_MAX];
			snprintf(n, sizeof n, "_%s", ty_type_get(t->elem)->name);
			v[1] = sql_d_name(n);
		}
		v[k++] = sql_d_oid(CAT_OID_PG_CATALOG);
		v[k++] = sql_d_oid(CAT_OID_POSTGRES_ROLE);
		v[k++] = sql_d_int(t->len);
		v[k++] = sql_d_bool(t->byval);
		v[k++] = sql_d_char(t->typtype ? t->typtype : 'b');
		v[k++] = sql_d_char(t->category);
		v[k++] = sql_d_bool(t->preferred);
		v[k++] = sql_d_bool(true);
		v[k++] = sql_d_char(',');
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_oid(t->category == 'A' ? proc_by_name("array_subscript_handler") : 0);
		v[k++] = sql_d_oid(t->elem);
		v[k++] = sql_d_oid(t->array);
		v[k++] = sql_d_oid(proc_by_name(t->input_name));
		v[k++] = sql_d_oid(proc_by_name(t->output_name));
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_char(t->align ? t->align : 'i');
		v[k++] = sql_d_char(t->len == -1 ? 'x' : 'p');
		v[k++] = sql_d_bool(false);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_int(-1);
		v[k++] = sql_d_int(0);
		v[k++] = sql_d_oid(t->category == 'S' ? 100 : 0);
		v[k++] = ty_null();
		v[k++] = ty_null();
		v[k++] = ty_null();
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_database ---- */

static const sql_syscol db_cols[] = {
	{"oid", O},	       {"datname", N},	    {"datdba", O},	 {"encoding", I4},	  {"datlocprovider", C},
	{"datistemplate", B}, {"datallowconn", B}, {"datconnlimit", I4}, {"datfrozenxid", TY_XID}, {"datminmxid", TY_XID},
	{"dattablespace", O}, {"datcollate", T},   {"datctype", T},	 {"daticulocale", T},	  {"datcollversion", T},
	{"datacl", TY_TEXT_ARRAY},
};

static int db_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_database *d = &o->db;
	ty_datum v[16] = {sql_d_oid(o->oid),
			  sql_d_name(d->name),
			  sql_d_oid(d->owner),
			  sql_d_int(6),
			  sql_d_char('c'),
			  sql_d_bool(!strcmp(d->name, "template0") || !strcmp(d->name, "template1")),
			  sql_d_bool(d->allow_connections),
			  sql_d_int(d->conn_limit),
			  sql_d_int(716),
			  sql_d_int(1),
			  sql_d_oid(1663),
			  sql_d_text("C"),
			  sql_d_text("C"),
			  ty_null(),
			  ty_null(),
			  ty_null()};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_database(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_DATABASE, 0, db_row, &g);
}

/* ---- roles ---- */

static const sql_syscol roles_cols[] = {
	{"rolname", N},	      {"rolsuper", B},	    {"rolinherit", B},	 {"rolcreaterole", B}, {"rolcreatedb", B},
	{"rolcanlogin", B},   {"rolreplication", B}, {"rolconnlimit", I4}, {"rolpassword", T},	 {"rolvaliduntil", TY_TIMESTAMPTZ},
	{"rolbypassrls", B},  {"rolconfig", TY_TEXT_ARRAY}, {"oid", O},
};

static int role_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_role *r = &o->role;
	ty_datum v[13] = {sql_d_name(r->name),
			  sql_d_bool(r->superuser),
			  sql_d_bool(r->inherit),
			  sql_d_bool(r->createrole),
			  sql_d_bool(r->createdb),
			  sql_d_bool(r->login),
			  sql_d_bool(r->replication),
			  sql_d_int(r->conn_limit),
			  sql_d_text("********"),
			  r->valid_until ? ty_int(r->valid_until - 946684800000000LL) : ty_null(),
			  sql_d_bool(r->bypassrls),
			  ty_null(),
			  sql_d_oid(o->oid)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_roles(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_ROLE, 0, role_row, &g);
}

/* ---- pg_settings ---- */

static const sql_syscol settings_cols[] = {
	{"name", T},	  {"setting", T},    {"unit", T},	  {"category", T},  {"short_desc", T},	  {"extra_desc", T},
	{"context", T},	  {"vartype", T},    {"source", T},	  {"min_val", T},   {"max_val", T},	  {"enumvals", TY_TEXT_ARRAY},
	{"boot_val", T},  {"reset_val", T},  {"sourcefile", T},	  {"sourceline", I4}, {"pending_restart", B},
};

static void gen_settings(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	static const char *types[] = {"bool", "integer", "real", "string", "enum"};
	for (int i = 0; i < sql_guc_count(); i++) {
		const sql_guc *gu = sql_guc_nth(i);
		const char *val = sql_guc_get(s, gu->name);
		char mn[32] = "", mx[32] = "";
		if (gu->type == GUC_INT || gu->type == GUC_REAL) {
			snprintf(mn, sizeof mn, "%lld", (long long)gu->min);
			snprintf(mx, sizeof mx, "%lld", (long long)gu->max);
		}
		ty_datum v[17] = {sql_d_text(gu->name),
				  sql_d_text(val ? val : ""),
				  sql_d_text(gu->unit),
				  sql_d_text(gu->category),
				  sql_d_text(gu->desc),
				  ty_null(),
				  sql_d_text(gu->readonly ? "internal" : "user"),
				  sql_d_text(types[gu->type]),
				  sql_d_text("default"),
				  gu->type == GUC_INT || gu->type == GUC_REAL ? sql_d_text(mn) : ty_null(),
				  gu->type == GUC_INT || gu->type == GUC_REAL ? sql_d_text(mx) : ty_null(),
				  ty_null(),
				  sql_d_text(gu->boot),
				  sql_d_text(gu->boot),
				  ty_null(),
				  ty_null(),
				  sql_d_bool(false)};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_tables ---- */

static const sql_syscol tables_cols[] = {{"schemaname", N}, {"tablename", N}, {"tableowner", N}, {"tablespace", N},
					 {"hasindexes", B}, {"hasrules", B},  {"hastriggers", B}, {"rowsecurity", B}};

static int table_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	const cat_obj *owner = cat_get(g->cs, o->rel.owner);
	ty_datum v[8] = {sql_d_name(sql_schema_name(g->cs, o->rel.schema)),
			 sql_d_name(o->rel.name),
			 sql_d_name(owner ? owner->role.name : NULL),
			 ty_null(),
			 sql_d_bool(o->rel.nindexes > 0),
			 sql_d_bool(false),
			 sql_d_bool(false),
			 sql_d_bool(false)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, table_row, &g);
}

#define V(schema, name, oid, cols, gen) {schema, name, oid, (int)UTIL_ARRAY_LEN(cols), cols, gen}

static const sql_sysview core_views[] = {
	V("pg_catalog", "pg_namespace", 2615, ns_cols, gen_namespace),
	V("pg_catalog", "pg_class", 1259, class_cols, gen_class),
	V("pg_catalog", "pg_attribute", 1249, att_cols, gen_attribute),
	V("pg_catalog", "pg_type", 1247, type_cols, gen_type),
	V("pg_catalog", "pg_database", 1262, db_cols, gen_database),
	V("pg_catalog", "pg_roles", 12001, roles_cols, gen_roles),
	V("pg_catalog", "pg_settings", 12002, settings_cols, gen_settings),
	V("pg_catalog", "pg_tables", 12003, tables_cols, gen_tables),
};

static pthread_once_t views_once = PTHREAD_ONCE_INIT;

static void core_init(void)
{
	sql_sysview_register(core_views, (int)UTIL_ARRAY_LEN(core_views));
	(void)gen_count;
}

void sql_sysviews_core_init(void) { pthread_once(&views_once, core_init); }
