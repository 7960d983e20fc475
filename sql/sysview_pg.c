/*
 * sysview_pg.c — the core pg_catalog relations generated from Strata's
 * catalog and type registry: pg_namespace, pg_class, pg_attribute,
 * pg_type, pg_database, pg_authid, pg_roles, pg_user, pg_shadow, pg_group,
 * pg_auth_members, pg_tablespace. Column sets and values follow
 * PostgreSQL 15 for the same objects.
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

#define T   TY_TEXT
#define N   TY_NAME
#define O   TY_OID
#define B   TY_BOOL
#define I2  TY_INT2
#define I4  TY_INT4
#define I8  TY_INT8
#define F4  TY_FLOAT4
#define C   TY_CHAR
#define TS  TY_TIMESTAMPTZ
#define ACL TY_ACLITEM_ARRAY
#define TA  TY_TEXT_ARRAY
#define NT  TY_PG_NODE_TREE

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
	cat_oid *fk_tables; /* pg_class: tables with or referenced by a foreign key */
	int nfk;
} gen_ctx;

static int collect_fk(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	for (int i = 0; i < o->rel.ncons; i++) {
		if (o->rel.cons[i].type != 'f')
			continue;
		cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(g->nfk + 2));
		if (g->nfk)
			memcpy(n, g->fk_tables, sizeof(cat_oid) * (size_t)g->nfk);
		n[g->nfk++] = o->oid;
		n[g->nfk++] = o->rel.cons[i].ref_table;
		g->fk_tables = n;
	}
	return 0;
}

static bool fk_member(gen_ctx *g, cat_oid table)
{
	for (int i = 0; i < g->nfk; i++)
		if (g->fk_tables[i] == table)
			return true;
	return false;
}

/* The generated catalogs' ACL: the owner has all, everyone may read. */
static ty_datum catalog_acl(cat_snap *cs)
{
	cat_acl a[2] = {{CAT_OID_POSTGRES_ROLE, CAT_OID_POSTGRES_ROLE, 0x7f, 0},
			{0, CAT_OID_POSTGRES_ROLE, CAT_PRIV_SELECT, 0}};
	return sql_d_acl(cs, 2, a);
}

/* The built-in schemas' ACL: owner UC, PUBLIC U. */
static ty_datum builtin_schema_acl(cat_snap *cs, cat_oid owner)
{
	cat_acl a[2] = {{owner, owner, CAT_PRIV_USAGE | CAT_PRIV_CREATE, 0}, {0, owner, CAT_PRIV_USAGE, 0}};
	return sql_d_acl(cs, 2, a);
}

/* ---- pg_namespace ---- */

static const sql_syscol ns_cols[] = {{"oid", O}, {"nspname", N}, {"nspowner", O}, {"nspacl", ACL}};

static int ns_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	ty_datum acl = sql_d_acl(g->cs, o->schema.nacl, o->schema.acl);
	if (acl.null && (o->oid == CAT_OID_PG_CATALOG || o->oid == CAT_OID_INFORMATION_SCHEMA ||
			 !strcmp(o->schema.name, "public"))) {
		/* Built-in schemas carry explicit ACLs in PostgreSQL: owner UC, PUBLIC U. */
		acl = builtin_schema_acl(g->cs, o->schema.owner);
	}
	ty_datum v[4] = {sql_d_oid(o->oid), sql_d_name(o->schema.name), sql_d_oid(o->schema.owner), acl};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_namespace(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	/* pg_toast exists in every PostgreSQL database. */
	ty_datum t[4] = {sql_d_oid(CAT_OID_PG_TOAST), sql_d_name("pg_toast"),
			 sql_d_oid(CAT_OID_POSTGRES_ROLE), ty_null()};
	sql_sysrows_add(out, t);
	cat_foreach(cs, CAT_SCHEMA, s->db_oid, ns_row, &g);
}

/* ---- pg_class ---- */

static const sql_syscol class_cols[] = {
    {"oid", O},
    {"relname", N},
    {"relnamespace", O},
    {"reltype", O},
    {"reloftype", O},
    {"relowner", O},
    {"relam", O},
    {"relfilenode", O},
    {"reltablespace", O},
    {"relpages", I4},
    {"reltuples", F4},
    {"relallvisible", I4},
    {"reltoastrelid", O},
    {"relhasindex", B},
    {"relisshared", B},
    {"relpersistence", C},
    {"relkind", C},
    {"relnatts", I2},
    {"relchecks", I2},
    {"relhasrules", B},
    {"relhastriggers", B},
    {"relhassubclass", B},
    {"relrowsecurity", B},
    {"relforcerowsecurity", B},
    {"relispopulated", B},
    {"relreplident", C},
    {"relispartition", B},
    {"relrewrite", O},
    {"relfrozenxid", TY_XID},
    {"relminmxid", TY_XID},
    {"relacl", ACL},
    {"reloptions", TA},
    {"relpartbound", NT},
};
#define CLASS_NCOLS 33

ty_datum sql_reloptions_array(const cat_rel *r);

static void class_defaults(ty_datum *v)
{
	for (int k = 0; k < CLASS_NCOLS; k++)
		v[k] = ty_null();
	v[3] = v[4] = v[6] = v[7] = v[8] = v[12] = v[27] = sql_d_oid(0);
	v[5] = sql_d_oid(CAT_OID_POSTGRES_ROLE);
	v[9] = v[11] = sql_d_int(0);
	v[10] = sql_d_float(-1);
	v[13] = v[14] = v[19] = v[20] = v[21] = v[22] = v[23] = v[26] = sql_d_bool(false);
	v[24] = sql_d_bool(true);
	v[15] = sql_d_char('p');
	v[18] = sql_d_int(0);
	v[25] = sql_d_char('n');
	v[28] = v[29] = sql_d_int(0);
}

static void index_class_row(gen_ctx *g, const sql_index_desc *d)
{
	ty_datum v[CLASS_NCOLS];
	class_defaults(v);
	v[0] = sql_d_oid(d->oid);
	v[1] = sql_d_name(d->name);
	v[2] = sql_d_oid(d->table ? d->table->rel.schema : CAT_OID_PUBLIC);
	v[5] = sql_d_oid(d->index   ? d->index->rel.owner
			 : d->table ? d->table->rel.owner
				    : CAT_OID_POSTGRES_ROLE);
	v[6] = sql_d_oid(403);
	v[7] = sql_d_oid(d->oid);
	v[9] = sql_d_int(1);
	v[10] = sql_d_float(0);
	v[16] = sql_d_char(CAT_RELKIND_INDEX);
	v[17] = sql_d_int(d->info.nkeys + d->info.ninclude);
	if (d->index) {
		v[30] = sql_d_acl(g->cs, d->index->rel.nacl, d->index->rel.acl);
		v[31] = sql_reloptions_array(&d->index->rel);
	}
	sql_sysrows_add(g->out, v);
}

static int class_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind == CAT_RELKIND_INDEX) {
		sql_index_desc d;
		if (sql_index_by_oid(g->cs, o->oid, &d))
			index_class_row(g, &d);
		return 0;
	}
	int natts = 0, nchecks = 0;
	for (int i = 0; i < r->ncols; i++)
		natts += !r->cols[i].dropped;
	for (int i = 0; i < r->ncons; i++)
		nchecks += r->cons[i].type == 'c';
	bool table = r->relkind == CAT_RELKIND_TABLE;
	int nidx = 0;
	sql_index_desc *idx = table ? sql_table_indexes(g->cs, o, &nidx) : NULL;
	ty_datum v[CLASS_NCOLS];
	class_defaults(v);
	v[0] = sql_d_oid(o->oid);
	v[1] = sql_d_name(r->name);
	v[2] = sql_d_oid(r->schema);
	v[5] = sql_d_oid(r->owner);
	v[6] = sql_d_oid(table ? 2 : 0);
	v[7] = sql_d_oid(r->relkind == CAT_RELKIND_VIEW ? 0 : o->oid);
	v[9] = sql_d_int(r->relkind == CAT_RELKIND_SEQUENCE ? 1 : 0);
	v[10] = sql_d_float(r->relkind == CAT_RELKIND_SEQUENCE ? 1
			    : r->stats_rows                    ? (double)r->stats_rows
							       : -1);
	v[13] = sql_d_bool(nidx > 0);
	v[16] = sql_d_char(r->relkind);
	v[17] = sql_d_int(r->relkind == CAT_RELKIND_SEQUENCE ? 3 : natts);
	v[18] = sql_d_int(nchecks);
	v[19] = sql_d_bool(r->relkind == CAT_RELKIND_VIEW);
	/* PostgreSQL enforces foreign keys with (internal, unlisted) triggers
	 * on both tables; psql and pg_dump look for foreign keys only where
	 * relhastriggers is set. */
	v[20] = sql_d_bool(table && fk_member(g, o->oid));
	v[25] = sql_d_char(table ? 'd' : 'n');
	/* Tables report a frozen xid and multixact as PostgreSQL's do. */
	v[28] = sql_d_int(table ? 716 : 0);
	v[29] = sql_d_int(table ? 1 : 0);
	v[30] = sql_d_acl(g->cs, r->nacl, r->acl);
	v[31] = sql_reloptions_array(r);
	sql_sysrows_add(g->out, v);
	for (int i = 0; i < nidx; i++)
		if (!idx[i].index)
			index_class_row(g, &idx[i]);
	return 0;
}

static void gen_class(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out, NULL, 0};
	cat_foreach(cs, CAT_REL, s->db_oid, collect_fk, &g);
	cat_foreach(cs, CAT_REL, s->db_oid, class_row, &g);
	/* The generated catalogs are relations too. */
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *sv = sql_sysview_nth(i);
		if (!sv->oid)
			continue;
		ty_datum v[CLASS_NCOLS];
		class_defaults(v);
		v[0] = sql_d_oid(sv->oid);
		v[1] = sql_d_name(sv->name);
		v[2] = sql_d_oid(!strcmp(sv->schema, "pg_catalog") ? CAT_OID_PG_CATALOG
								   : CAT_OID_INFORMATION_SCHEMA);
		v[6] = sql_d_oid(sv->relkind == 'r' ? 2 : 0);
		v[7] = sql_d_oid(sv->relkind == 'r' ? sv->oid : 0);
		v[16] = sql_d_char(sv->relkind);
		v[17] = sql_d_int(sv->ncols);
		v[19] = sql_d_bool(sv->relkind == 'v');
		v[25] = sql_d_char(sv->relkind == 'r' ? 'd' : 'n');
		v[30] = catalog_acl(cs);
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_attribute ---- */

static const sql_syscol att_cols[] = {
    {"attrelid", O},       {"attname", N},
    {"atttypid", O},       {"attstattarget", I4},
    {"attlen", I2},        {"attnum", I2},
    {"attndims", I4},      {"attcacheoff", I4},
    {"atttypmod", I4},     {"attbyval", B},
    {"attalign", C},       {"attstorage", C},
    {"attcompression", C}, {"attnotnull", B},
    {"atthasdef", B},      {"atthasmissing", B},
    {"attidentity", C},    {"attgenerated", C},
    {"attisdropped", B},   {"attislocal", B},
    {"attinhcount", I4},   {"attcollation", O},
    {"attacl", ACL},       {"attoptions", TA},
    {"attfdwoptions", TA}, {"attmissingval", TY_ANYARRAY},
};

/* pg_type.typstorage for a type. */
char sql_type_storage(ty_oid type)
{
	const ty_type *t = ty_type_get(type);
	if (!t || t->len != -1 || type == TY_INT2VECTOR || type == TY_OIDVECTOR || type == TY_ACLITEM)
		return 'p';
	if (type == TY_NUMERIC || type == TY_INET)
		return 'm';
	return 'x';
}

typedef struct att_spec {
	cat_oid rel;
	const char *name;
	ty_oid type;
	int32_t typmod;
	int attnum;
	bool notnull, hasdef, dropped;
	char identity, generated;
} att_spec;

static void att_add(gen_ctx *g, const att_spec *a)
{
	const ty_type *t = ty_type_get(a->type);
	ty_datum v[26];
	char dname[CAT_NAME_MAX];
	if (a->dropped)
		snprintf(dname, sizeof dname, "........pg.dropped.%d........", a->attnum);
	int k = 0;
	v[k++] = sql_d_oid(a->rel);
	v[k++] = sql_d_name(a->dropped ? dname : a->name);
	v[k++] = sql_d_oid(a->dropped ? 0 : a->type);
	v[k++] = sql_d_int(-1);
	v[k++] = sql_d_int(t ? t->len : -1);
	v[k++] = sql_d_int(a->attnum);
	v[k++] =
	    sql_d_int(t && t->category == 'A' && a->type != TY_INT2VECTOR && a->type != TY_OIDVECTOR ? 1 : 0);
	v[k++] = sql_d_int(-1);
	v[k++] = sql_d_int(a->typmod);
	v[k++] = sql_d_bool(t && t->byval);
	v[k++] = sql_d_char(t && t->align ? t->align : 'i');
	v[k++] = sql_d_char(sql_type_storage(a->type));
	v[k++] = sql_d_char('\0');
	v[k++] = sql_d_bool(a->notnull);
	v[k++] = sql_d_bool(a->hasdef);
	v[k++] = sql_d_bool(false);
	v[k++] = sql_d_char(a->identity);
	v[k++] = sql_d_char(a->generated);
	v[k++] = sql_d_bool(a->dropped);
	v[k++] = sql_d_bool(true);
	v[k++] = sql_d_int(0);
	v[k++] = sql_d_oid(a->dropped ? 0 : sql_type_collation(a->type));
	v[k++] = ty_null();
	v[k++] = ty_null();
	v[k++] = ty_null();
	v[k++] = ty_null();
	sql_sysrows_add(g->out, v);
}

/* PostgreSQL's FigureIndexColname: a function call's name, else "expr". */
static void expr_colname(const char *sql, char *out, size_t size)
{
	snprintf(out, size, "expr");
	util_err err;
	PgQuery__ParseResult *pr = sql ? sql_parse_text(sql, &err) : NULL;
	if (pr && pr->n_stmts == 1 && pr->stmts[0]->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
	    pr->stmts[0]->stmt->select_stmt->n_target_list == 1) {
		pnode *v = pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val;
		if (v && v->node_case == PG_QUERY__NODE__NODE_FUNC_CALL && v->func_call->n_funcname) {
			pnode *last = v->func_call->funcname[v->func_call->n_funcname - 1];
			if (last->node_case == PG_QUERY__NODE__NODE_STRING)
				snprintf(out, size, "%s", last->string->sval);
		}
	}
	if (pr)
		pg_query__parse_result__free_unpacked(pr, NULL);
}

/* Index columns: the table's column, or for expressions the function's
 * name or "expr" (typed by analyzing them); a name already used by an
 * earlier column of the index gets a number, as PostgreSQL's
 * ChooseIndexColumnNames does ("expr", "expr1", ...). */
static void index_atts(gen_ctx *g, const sql_index_desc *d)
{
	int n = d->info.nkeys + d->info.ninclude;
	char(*names)[CAT_NAME_MAX] = ty_alloc(sizeof *names * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++) {
		int attnum = i < d->info.nkeys ? d->info.keys[i].attnum : d->info.include[i - d->info.nkeys];
		const cat_column *c =
		    attnum && d->table ? cat_column_by_attnum(&d->table->rel, attnum) : NULL;
		char base[CAT_NAME_MAX];
		if (c)
			snprintf(base, sizeof base, "%s", c->name);
		else
			expr_colname(i < d->info.nkeys ? d->info.keys[i].expr_sql : NULL, base, sizeof base);
		snprintf(names[i], sizeof names[i], "%s", base);
		for (int k = 1;; k++) {
			bool dup = false;
			for (int j = 0; j < i && !dup; j++)
				dup = !strcmp(names[j], names[i]);
			if (!dup)
				break;
			snprintf(names[i], sizeof names[i], "%.50s%d", base, k);
		}
		att_spec a = {d->oid, names[i], c ? c->type : TY_TEXT, c ? c->typmod : -1, i + 1};
		if (!c && i < d->info.nkeys && d->info.keys[i].expr_sql && d->table)
			a.type =
			    sql_index_expr_type(g->s, g->cs, d->table, d->info.keys[i].expr_sql, &a.typmod);
		att_add(g, &a);
	}
}

static int att_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *r = &o->rel;
	if (r->relkind == CAT_RELKIND_INDEX) {
		sql_index_desc d;
		if (sql_index_by_oid(g->cs, o->oid, &d))
			index_atts(g, &d);
		return 0;
	}
	if (r->relkind == CAT_RELKIND_SEQUENCE) {
		static const struct {
			const char *name;
			ty_oid type;
		} seqatts[] = {{"last_value", TY_INT8}, {"log_cnt", TY_INT8}, {"is_called", TY_BOOL}};
		for (int i = 0; i < 3; i++) {
			att_spec a = {o->oid, seqatts[i].name, seqatts[i].type, -1, i + 1, true};
			att_add(g, &a);
		}
		return 0;
	}
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		att_spec a = {o->oid,
			      c->name,
			      c->type,
			      c->typmod,
			      c->attnum,
			      c->notnull,
			      sql_column_has_default(c),
			      c->dropped,
			      c->identity,
			      c->generated};
		att_add(g, &a);
	}
	if (r->relkind == CAT_RELKIND_TABLE) {
		int nidx;
		sql_index_desc *idx = sql_table_indexes(g->cs, o, &nidx);
		for (int i = 0; i < nidx; i++)
			if (!idx[i].index)
				index_atts(g, &idx[i]);
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
		for (int c = 0; c < v->ncols; c++) {
			att_spec a = {v->oid, v->cols[c].name, v->cols[c].type, -1, c + 1};
			att_add(&g, &a);
		}
	}
}

/* ---- pg_type ---- */

static const sql_syscol type_cols[] = {
    {"oid", O},
    {"typname", N},
    {"typnamespace", O},
    {"typowner", O},
    {"typlen", I2},
    {"typbyval", B},
    {"typtype", C},
    {"typcategory", C},
    {"typispreferred", B},
    {"typisdefined", B},
    {"typdelim", C},
    {"typrelid", O},
    {"typsubscript", TY_REGPROC},
    {"typelem", O},
    {"typarray", O},
    {"typinput", TY_REGPROC},
    {"typoutput", TY_REGPROC},
    {"typreceive", TY_REGPROC},
    {"typsend", TY_REGPROC},
    {"typmodin", TY_REGPROC},
    {"typmodout", TY_REGPROC},
    {"typanalyze", TY_REGPROC},
    {"typalign", C},
    {"typstorage", C},
    {"typnotnull", B},
    {"typbasetype", O},
    {"typtypmod", I4},
    {"typndims", I4},
    {"typcollation", O},
    {"typdefaultbin", NT},
    {"typdefault", T},
    {"typacl", ACL},
};

static void gen_type(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_type *t = ty_type_nth(i);
		if (!t)
			break;
		sql_type_procs pr;
		sql_type_procs_of(t->oid, &pr);
		ty_datum v[32];
		int k = 0;
		v[k++] = sql_d_oid(t->oid);
		v[k++] = sql_d_name(t->name);
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
		v[k++] = sql_d_oid(pr.subscript);
		v[k++] = sql_d_oid(t->elem);
		v[k++] = sql_d_oid(t->array && ty_type_get(t->array) ? t->array : 0);
		v[k++] = sql_d_oid(pr.input);
		v[k++] = sql_d_oid(pr.output);
		v[k++] = sql_d_oid(pr.receive);
		v[k++] = sql_d_oid(pr.send);
		v[k++] = sql_d_oid(pr.modin);
		v[k++] = sql_d_oid(pr.modout);
		v[k++] = sql_d_oid(pr.analyze);
		v[k++] = sql_d_char(t->align ? t->align : 'i');
		v[k++] = sql_d_char(sql_type_storage(t->oid));
		v[k++] = sql_d_bool(false);
		v[k++] = sql_d_oid(0);
		v[k++] = sql_d_int(-1);
		v[k++] = sql_d_int(0);
		v[k++] = sql_d_oid(sql_type_collation(t->oid));
		v[k++] = ty_null();
		v[k++] = ty_null();
		v[k++] = ty_null();
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_database ---- */

static const sql_syscol db_cols[] = {
    {"oid", O},
    {"datname", N},
    {"datdba", O},
    {"encoding", I4},
    {"datlocprovider", C},
    {"datistemplate", B},
    {"datallowconn", B},
    {"datconnlimit", I4},
    {"datfrozenxid", TY_XID},
    {"datminmxid", TY_XID},
    {"dattablespace", O},
    {"datcollate", T},
    {"datctype", T},
    {"daticulocale", T},
    {"datcollversion", T},
    {"datacl", ACL},
};

static int db_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_database *d = &o->db;
	bool tmpl = !strcmp(d->name, "template0") || !strcmp(d->name, "template1");
	ty_datum acl = ty_null();
	if (!strcmp(d->name, "template0") || !strcmp(d->name, "template1")) {
		/* PostgreSQL's template databases: PUBLIC may connect, the owner may do all. */
		cat_acl a[2] = {{0, d->owner, CAT_PRIV_CONNECT, 0},
				{d->owner, d->owner, CAT_PRIV_CREATE | CAT_PRIV_TEMP | CAT_PRIV_CONNECT, 0}};
		acl = sql_d_acl(g->cs, 2, a);
	}
	ty_datum v[16] = {sql_d_oid(o->oid),
			  sql_d_name(d->name),
			  sql_d_oid(d->owner),
			  sql_d_int(6),
			  sql_d_char('c'),
			  sql_d_bool(tmpl),
			  sql_d_bool(d->allow_connections),
			  sql_d_int(d->conn_limit),
			  sql_d_int(716),
			  sql_d_int(1),
			  sql_d_oid(1663),
			  sql_d_text("C"),
			  sql_d_text("C"),
			  ty_null(),
			  ty_null(),
			  acl};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_database(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_DATABASE, 0, db_row, &g);
}

/* ---- roles: pg_authid, pg_roles, pg_user, pg_shadow, pg_group, pg_auth_members ---- */

static const sql_syscol authid_cols[] = {
    {"oid", O},           {"rolname", N},       {"rolsuper", B},    {"rolinherit", B},
    {"rolcreaterole", B}, {"rolcreatedb", B},   {"rolcanlogin", B}, {"rolreplication", B},
    {"rolbypassrls", B},  {"rolconnlimit", I4}, {"rolpassword", T}, {"rolvaliduntil", TS},
};

static const sql_syscol roles_cols[] = {
    {"rolname", N},     {"rolsuper", B},       {"rolinherit", B},     {"rolcreaterole", B},
    {"rolcreatedb", B}, {"rolcanlogin", B},    {"rolreplication", B}, {"rolconnlimit", I4},
    {"rolpassword", T}, {"rolvaliduntil", TS}, {"rolbypassrls", B},   {"rolconfig", TA},
    {"oid", O},
};

static const sql_syscol user_cols[] = {
    {"usename", N},      {"usesysid", O}, {"usecreatedb", B}, {"usesuper", B},   {"userepl", B},
    {"usebypassrls", B}, {"passwd", T},   {"valuntil", TS},   {"useconfig", TA},
};

static const sql_syscol group_cols[] = {{"groname", N}, {"grosysid", O}, {"grolist", TY_OID_ARRAY}};

static const sql_syscol authmem_cols[] = {{"roleid", O}, {"member", O}, {"grantor", O}, {"admin_option", B}};

/* A role as the generators see it: a catalog role or a predefined one. */
typedef struct role_info {
	cat_oid oid;
	const char *name;
	bool super, inherit, createrole, createdb, login, replication, bypassrls;
	int connlimit;
	const char *password;
	int64_t valid_until;
} role_info;

typedef void (*role_fn)(gen_ctx *g, const role_info *r);

typedef struct role_walk {
	gen_ctx *g;
	role_fn fn;
} role_walk;

static int role_visit(void *arg, const cat_obj *o)
{
	role_walk *w = arg;
	const cat_role *r = &o->role;
	role_info ri = {o->oid,   r->name,        r->superuser, r->inherit,    r->createrole, r->createdb,
			r->login, r->replication, r->bypassrls, r->conn_limit, r->password,   r->valid_until};
	w->fn(w->g, &ri);
	return 0;
}

/* Every role: the catalog's, then PostgreSQL's predefined ones. */
static void each_role(gen_ctx *g, role_fn fn)
{
	role_walk w = {g, fn};
	cat_foreach(g->cs, CAT_ROLE, 0, role_visit, &w);
	for (int i = 0; i < sql_builtin_role_count(); i++) {
		const sql_builtin_role *b = sql_builtin_role_nth(i);
		role_info ri = {b->oid, b->name, false, true, false, false, false, false, false, -1, NULL, 0};
		fn(g, &ri);
	}
}

static ty_datum valid_until(const role_info *r)
{
	return sql_d_timestamptz_us(r->valid_until);
}

static void authid_row(gen_ctx *g, const role_info *r)
{
	ty_datum v[12] = {sql_d_oid(r->oid),       sql_d_name(r->name),        sql_d_bool(r->super),
			  sql_d_bool(r->inherit),  sql_d_bool(r->createrole),  sql_d_bool(r->createdb),
			  sql_d_bool(r->login),    sql_d_bool(r->replication), sql_d_bool(r->bypassrls),
			  sql_d_int(r->connlimit), sql_d_text(r->password),    valid_until(r)};
	sql_sysrows_add(g->out, v);
}

static void roles_row(gen_ctx *g, const role_info *r)
{
	ty_datum v[13] = {sql_d_name(r->name),        sql_d_bool(r->super),
			  sql_d_bool(r->inherit),     sql_d_bool(r->createrole),
			  sql_d_bool(r->createdb),    sql_d_bool(r->login),
			  sql_d_bool(r->replication), sql_d_int(r->connlimit),
			  sql_d_text("********"),     valid_until(r),
			  sql_d_bool(r->bypassrls),   ty_null(),
			  sql_d_oid(r->oid)};
	sql_sysrows_add(g->out, v);
}

static void user_row(gen_ctx *g, const role_info *r)
{
	if (!r->login)
		return;
	ty_datum v[9] = {sql_d_name(r->name),
			 sql_d_oid(r->oid),
			 sql_d_bool(r->createdb),
			 sql_d_bool(r->super),
			 sql_d_bool(r->replication),
			 sql_d_bool(r->bypassrls),
			 sql_d_text("********"),
			 valid_until(r),
			 ty_null()};
	sql_sysrows_add(g->out, v);
}

static void shadow_row(gen_ctx *g, const role_info *r)
{
	if (!r->login)
		return;
	ty_datum v[9] = {sql_d_name(r->name),
			 sql_d_oid(r->oid),
			 sql_d_bool(r->createdb),
			 sql_d_bool(r->super),
			 sql_d_bool(r->replication),
			 sql_d_bool(r->bypassrls),
			 sql_d_text(r->password),
			 valid_until(r),
			 ty_null()};
	sql_sysrows_add(g->out, v);
}

static void gen_authid(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_role(&g, authid_row);
}

static void gen_roles(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_role(&g, roles_row);
}

static void gen_user(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_role(&g, user_row);
}

static void gen_shadow(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_role(&g, shadow_row);
}

/* Memberships: pg_auth_members rows and, per group, its members. */
typedef struct member_ctx {
	gen_ctx *g;
	cat_oid group; /* pg_group: collect members of this role */
	cat_oid *members;
	int n, cap;
} member_ctx;

static int member_rows(void *arg, const cat_obj *o)
{
	member_ctx *m = arg;
	for (int i = 0; i < o->role.nmembers_of; i++) {
		if (m->group) {
			if (o->role.member_of[i] != m->group)
				continue;
			if (m->n == m->cap) {
				m->cap = m->cap ? m->cap * 2 : 8;
				cat_oid *nv = ty_alloc(sizeof(cat_oid) * (size_t)m->cap);
				if (m->n)
					memcpy(nv, m->members, sizeof(cat_oid) * (size_t)m->n);
				m->members = nv;
			}
			m->members[m->n++] = o->oid;
			continue;
		}
		ty_datum v[4] = {sql_d_oid(o->role.member_of[i]), sql_d_oid(o->oid),
				 sql_d_oid(CAT_OID_POSTGRES_ROLE), sql_d_bool(false)};
		sql_sysrows_add(m->g->out, v);
	}
	return 0;
}

static void gen_auth_members(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	member_ctx m = {&g, 0, NULL, 0, 0};
	cat_foreach(cs, CAT_ROLE, 0, member_rows, &m);
}

static int group_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->role.login)
		return 0;
	member_ctx m = {g, o->oid, NULL, 0, 0};
	cat_foreach(g->cs, CAT_ROLE, 0, member_rows, &m);
	ty_datum v[3] = {sql_d_name(o->role.name), sql_d_oid(o->oid), sql_d_oid_array(m.n, m.members)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_group(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_ROLE, 0, group_row, &g);
}

/* ---- pg_tablespace ---- */

static const sql_syscol tablespace_cols[] = {
    {"oid", O}, {"spcname", N}, {"spcowner", O}, {"spcacl", ACL}, {"spcoptions", TA}};

static void gen_tablespace(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	ty_datum d[5] = {sql_d_oid(1663), sql_d_name("pg_default"), sql_d_oid(CAT_OID_POSTGRES_ROLE),
			 ty_null(), ty_null()};
	sql_sysrows_add(out, d);
	ty_datum g[5] = {sql_d_oid(1664), sql_d_name("pg_global"), sql_d_oid(CAT_OID_POSTGRES_ROLE),
			 ty_null(), ty_null()};
	sql_sysrows_add(out, g);
}

/* ---- pg_init_privs: the built-in objects' initial privileges ---- */

static const sql_syscol init_privs_cols[] = {
    {"objoid", O}, {"classoid", O}, {"objsubid", I4}, {"privtype", C}, {"initprivs", ACL}};

static int init_privs_schema(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->oid != CAT_OID_PG_CATALOG && o->oid != CAT_OID_INFORMATION_SCHEMA &&
	    strcmp(o->schema.name, "public"))
		return 0;
	ty_datum v[5] = {sql_d_oid(o->oid), sql_d_oid(CAT_OID_PG_NAMESPACE), sql_d_int(0), sql_d_char('i'),
			 builtin_schema_acl(g->cs, o->schema.owner)};
	sql_sysrows_add(g->out, v);
	return 0;
}

static void gen_init_privs(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_SCHEMA, s->db_oid, init_privs_schema, &g);
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *sv = sql_sysview_nth(i);
		ty_datum v[5] = {sql_d_oid(sv->oid), sql_d_oid(CAT_OID_PG_CLASS), sql_d_int(0),
				 sql_d_char('i'), catalog_acl(cs)};
		sql_sysrows_add(out, v);
	}
}

static const sql_sysview core_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_init_privs", 3394, 'r', init_privs_cols, gen_init_privs),
    SQL_SYSVIEW("pg_catalog", "pg_namespace", 2615, 'r', ns_cols, gen_namespace),
    SQL_SYSVIEW("pg_catalog", "pg_class", 1259, 'r', class_cols, gen_class),
    SQL_SYSVIEW("pg_catalog", "pg_attribute", 1249, 'r', att_cols, gen_attribute),
    SQL_SYSVIEW("pg_catalog", "pg_type", 1247, 'r', type_cols, gen_type),
    SQL_SYSVIEW("pg_catalog", "pg_database", 1262, 'r', db_cols, gen_database),
    SQL_SYSVIEW("pg_catalog", "pg_authid", 1260, 'r', authid_cols, gen_authid),
    SQL_SYSVIEW("pg_catalog", "pg_auth_members", 1261, 'r', authmem_cols, gen_auth_members),
    SQL_SYSVIEW("pg_catalog", "pg_tablespace", 1213, 'r', tablespace_cols, gen_tablespace),
    SQL_SYSVIEW("pg_catalog", "pg_roles", 12000, 'v', roles_cols, gen_roles),
    SQL_SYSVIEW("pg_catalog", "pg_shadow", 12005, 'v', user_cols, gen_shadow),
    SQL_SYSVIEW("pg_catalog", "pg_group", 12010, 'v', group_cols, gen_group),
    SQL_SYSVIEW("pg_catalog", "pg_user", 12014, 'v', user_cols, gen_user),
};

void sql_sysviews_core_init(void)
{
	sql_sysview_register(core_views, (int)UTIL_ARRAY_LEN(core_views));
}
