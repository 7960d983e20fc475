/*
 * catalog_funcs.c — the catalog information functions psql, pg_dump and
 * drivers call: pg_get_userbyid, pg_*_is_visible, pg_encoding_to_char,
 * obj_description / col_description / shobj_description, pg_get_expr,
 * pg_get_constraintdef, pg_get_indexdef, pg_get_viewdef, pg_get_ruledef,
 * pg_get_function_*, pg_get_serial_sequence, to_reg*, the partitioning
 * and publication helpers (Strata has neither), relation sizes and
 * pg_size_pretty. Registers them, the privilege functions
 * (catalog_funcs_priv.c), the types' support functions
 * (catalog_funcs_typeio.c) and the catalog-only types (types/cat_*.c).
 */
#include <stdio.h>
#include <string.h>

#include "array.h"
#include "numeric.h"
#include "sysview.h"

static sql_session *sess(void)
{
	sql_session *s = sql_current_session();
	if (!s)
		ty_error(UTIL_E_INTERNAL_ERROR, "no session");
	return s;
}

static cat_snap *snap(sql_session *s)
{
	if (!s->cat)
		s->cat = cat_current(s->e->cat);
	return s->cat;
}

static ty_datum text_result(const char *s)
{
	return s ? ty_text(s) : ty_null();
}

static const cat_obj *rel_by_oid(cat_snap *cs, cat_oid oid)
{
	const cat_obj *o = cat_get(cs, oid);
	return o && o->kind == CAT_REL ? o : NULL;
}

/* ---- names and visibility ---- */

static ty_datum f_get_userbyid(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const char *n = sql_role_name(snap(s), (cat_oid)fc->args[0].i);
	if (!n) {
		char buf[48];
		snprintf(buf, sizeof buf, "unknown (OID=%u)", (unsigned)fc->args[0].i);
		return ty_text(buf);
	}
	return ty_text(n);
}

static ty_datum f_table_is_visible(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_oid oid = (cat_oid)fc->args[0].i;
	const cat_obj *o = rel_by_oid(snap(s), oid);
	if (o)
		return ty_bool(sql_rel_visible(s, snap(s), o));
	sql_index_desc d;
	if (sql_index_by_oid(snap(s), oid, &d) && d.table) {
		/* A synthesized index is visible when its schema is searched and
		 * no schema before it holds a relation of the same name. */
		cat_oid path[32];
		int n = sql_search_path(s, snap(s), path, 32);
		for (int i = 0; i < n; i++) {
			if (path[i] == d.table->rel.schema)
				return ty_bool(true);
			if (cat_rel_by_name(snap(s), path[i], d.name))
				return ty_bool(false);
		}
		return ty_bool(false);
	}
	const sql_sysview *v = sql_sysview_by_oid(oid);
	if (v) {
		if (!strcmp(v->schema, "pg_catalog"))
			return ty_bool(!sql_lookup_rel_name(s, snap(s), NULL, v->name));
		cat_oid path[32];
		int n = sql_search_path(s, snap(s), path, 32);
		for (int i = 0; i < n; i++)
			if (path[i] == CAT_OID_INFORMATION_SCHEMA)
				return ty_bool(true);
		return ty_bool(false);
	}
	return ty_null();
}

/* Built-in objects live in pg_catalog, which is always searched. */
static ty_datum f_type_is_visible(ty_fcinfo *fc)
{
	return ty_type_get((ty_oid)fc->args[0].i) ? ty_bool(true) : ty_null();
}

static ty_datum f_function_is_visible(ty_fcinfo *fc)
{
	ty_oid o = (ty_oid)fc->args[0].i;
	return ty_func_by_oid(o) || ty_agg_by_oid(o) ? ty_bool(true) : ty_null();
}

static ty_datum f_builtin_is_visible(ty_fcinfo *fc)
{
	(void)fc;
	return ty_bool(true);
}

static ty_datum f_encoding_to_char(ty_fcinfo *fc)
{
	int e = (int)fc->args[0].i;
	return ty_text(e == 6 ? "UTF8" : e == 0 ? "SQL_ASCII" : "");
}

static ty_datum f_char_to_encoding(ty_fcinfo *fc)
{
	char *n = ty_cstring(fc->args[0]);
	if (!strcasecmp(n, "UTF8") || !strcasecmp(n, "UTF-8") || !strcasecmp(n, "unicode"))
		return ty_int(6);
	if (!strcasecmp(n, "SQL_ASCII"))
		return ty_int(0);
	return ty_int(-1);
}

static ty_datum f_encoding_max_length(ty_fcinfo *fc)
{
	return ty_int(fc->args[0].i == 6 ? 4 : 1);
}

/* ---- comments ---- */

/* The catalog a description's classoid names. */
static cat_oid class_oid_of(ty_datum name)
{
	char *n = ty_cstring(name);
	const sql_sysview *v = sql_sysview_find("pg_catalog", n);
	return v ? v->oid : 0;
}

static const char *comment_of(cat_snap *cs, cat_oid oid, cat_oid classoid, int sub)
{
	const cat_obj *o = cat_get(cs, oid);
	if (o) {
		switch (o->kind) {
		case CAT_REL:
			if (classoid && classoid != CAT_OID_PG_CLASS)
				return NULL;
			if (sub > 0) {
				const cat_column *c = cat_column_by_attnum(&o->rel, sub);
				return c && !c->dropped ? c->comment : NULL;
			}
			return o->rel.comment;
		case CAT_SCHEMA:
			return !classoid || classoid == CAT_OID_PG_NAMESPACE ? o->schema.comment : NULL;
		case CAT_ROLE:
			return !classoid || classoid == CAT_OID_PG_AUTHID ? o->role.comment : NULL;
		case CAT_DATABASE:
			return !classoid || classoid == CAT_OID_PG_DATABASE ? o->db.comment : NULL;
		}
		return NULL;
	}
	return NULL; /* constraint comments: see f_obj_description2 */
}

typedef struct con_find {
	cat_oid oid;
	const cat_obj *table;
	const cat_constraint *con;
} con_find;

static int find_con(void *arg, const cat_obj *o)
{
	con_find *f = arg;
	for (int i = 0; i < o->rel.ncons; i++)
		if (o->rel.cons[i].oid == f->oid) {
			f->table = o;
			f->con = &o->rel.cons[i];
			return 1;
		}
	return 0;
}

static bool constraint_by_oid(sql_session *s, cat_oid oid, con_find *f)
{
	f->oid = oid;
	f->table = NULL;
	f->con = NULL;
	cat_foreach(snap(s), CAT_REL, s->db_oid, find_con, f);
	return f->con != NULL;
}

static ty_datum f_obj_description2(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_oid oid = (cat_oid)fc->args[0].i, cls = class_oid_of(fc->args[1]);
	const char *c = comment_of(snap(s), oid, cls, 0);
	if (!c && cls == CAT_OID_PG_CONSTRAINT) {
		con_find f;
		if (constraint_by_oid(s, oid, &f))
			c = f.con->comment;
	}
	/* Shared objects' comments are not in pg_description. */
	const cat_obj *o = cat_get(snap(s), oid);
	if (o && (o->kind == CAT_ROLE || o->kind == CAT_DATABASE))
		return ty_null();
	return text_result(c);
}

static ty_datum f_obj_description1(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = cat_get(snap(s), (cat_oid)fc->args[0].i);
	if (o && (o->kind == CAT_ROLE || o->kind == CAT_DATABASE))
		return ty_null();
	return text_result(comment_of(snap(s), (cat_oid)fc->args[0].i, 0, 0));
}

static ty_datum f_shobj_description(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = cat_get(snap(s), (cat_oid)fc->args[0].i);
	if (!o || (o->kind != CAT_ROLE && o->kind != CAT_DATABASE))
		return ty_null();
	return text_result(comment_of(snap(s), o->oid, class_oid_of(fc->args[1]), 0));
}

static ty_datum f_col_description(ty_fcinfo *fc)
{
	sql_session *s = sess();
	return text_result(comment_of(snap(s), (cat_oid)fc->args[0].i, CAT_OID_PG_CLASS, (int)fc->args[1].i));
}

/* ---- definitions ---- */

static ty_datum f_get_expr(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_oid relid = (cat_oid)fc->args[1].i;
	bool pretty = fc->nargs > 2 && fc->args[2].i;
	char *text = ty_cstring(fc->args[0]);
	const cat_obj *rel = relid ? rel_by_oid(snap(s), relid) : NULL;
	if (relid && !rel)
		ty_error(UTIL_E_UNDEFINED_TABLE, "could not open relation with OID %u", relid);
	int attnum, used = 0;
	if (rel && sscanf(text, "{DEFAULT %d} %n", &attnum, &used) == 1 && used > 0) {
		const cat_column *c = cat_column_by_attnum(&rel->rel, attnum);
		if (c && sql_column_has_default(c))
			return ty_text(
			    sql_deparse_default_text(s, snap(s), rel, (int)(c - rel->rel.cols), pretty));
		text += used;
	}
	return ty_text(sql_deparse_expr_text(s, snap(s), rel, text, pretty));
}

static ty_datum f_get_constraintdef(ty_fcinfo *fc)
{
	sql_session *s = sess();
	con_find f;
	if (!constraint_by_oid(s, (cat_oid)fc->args[0].i, &f))
		return ty_null();
	return ty_text(sql_constraintdef_text(s, snap(s), f.table, f.con, fc->nargs > 1 && fc->args[1].i));
}

static ty_datum f_get_indexdef(ty_fcinfo *fc)
{
	sql_session *s = sess();
	sql_index_desc d;
	if (!sql_index_by_oid(snap(s), (cat_oid)fc->args[0].i, &d))
		return ty_null();
	int col = fc->nargs > 1 ? (int)fc->args[1].i : 0;
	bool pretty = fc->nargs > 2 && fc->args[2].i;
	if (col < 0 || col > d.info.nkeys + d.info.ninclude)
		return ty_text("");
	return ty_text(sql_indexdef_text(s, snap(s), &d, col, pretty));
}

static const cat_obj *view_arg(sql_session *s, ty_fcinfo *fc)
{
	cat_oid oid;
	if (fc->argtypes[0] == TY_TEXT) {
		char *n = ty_cstring(fc->args[0]);
		oid = (cat_oid)ty_input(TY_REGCLASS, n, strlen(n), -1).i;
	} else {
		oid = (cat_oid)fc->args[0].i;
	}
	const cat_obj *o = rel_by_oid(snap(s), oid);
	return o && o->rel.relkind == CAT_RELKIND_VIEW ? o : NULL;
}

static ty_datum f_get_viewdef(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *v = view_arg(s, fc);
	if (!v)
		return ty_null();
	/* The second argument is "pretty" (bool) or a wrap column (int4, implies pretty). */
	bool pretty = fc->nargs > 1 && fc->args[1].i != 0;
	return ty_text(sql_deparse_view_text(s, snap(s), v, pretty));
}

static ty_datum f_get_ruledef(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_oid rel;
	int slot;
	if (!sql_derived_oid_parts((cat_oid)fc->args[0].i, &rel, &slot) || slot != SQL_DOID_RULE)
		return ty_null();
	const cat_obj *v = rel_by_oid(snap(s), rel);
	if (!v || v->rel.relkind != CAT_RELKIND_VIEW)
		return ty_null();
	bool pretty = fc->nargs > 1 && fc->args[1].i;
	util_buf b = UTIL_BUF_INIT;
	util_buf_puts(&b, "CREATE RULE \"_RETURN\" AS\n    ON SELECT TO ");
	sql_quote_identifier(sql_schema_name(snap(s), v->rel.schema), &b);
	util_buf_putc(&b, '.');
	sql_quote_identifier(v->rel.name, &b);
	util_buf_puts(&b, " DO INSTEAD ");
	util_buf_puts(&b, sql_deparse_view_text(s, snap(s), v, pretty));
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}

/* No triggers, statistics objects or partitions exist in Strata. */
static ty_datum f_null(ty_fcinfo *fc)
{
	(void)fc;
	return ty_null();
}

void sql_function_arguments(const ty_func *f, bool identity, util_buf *b);
void sql_function_result(const ty_func *f, util_buf *b);

static ty_datum f_function_text(ty_fcinfo *fc, int what)
{
	ty_oid oid = (ty_oid)fc->args[0].i;
	const ty_func *f = ty_func_by_oid(oid);
	ty_func tmp;
	if (!f) {
		const ty_agg *a = ty_agg_by_oid(oid);
		if (!a)
			return ty_null();
		memset(&tmp, 0, sizeof tmp);
		tmp.name = a->name;
		tmp.nargs = a->nargs;
		memcpy(tmp.args, a->args, sizeof tmp.args);
		tmp.ret = a->ret;
		f = &tmp;
	}
	util_buf b = UTIL_BUF_INIT;
	if (what == 0)
		sql_function_result(f, &b);
	else
		sql_function_arguments(f, what == 2, &b);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

static ty_datum f_function_result(ty_fcinfo *fc)
{
	return f_function_text(fc, 0);
}
static ty_datum f_function_arguments(ty_fcinfo *fc)
{
	return f_function_text(fc, 1);
}
static ty_datum f_function_identity_arguments(ty_fcinfo *fc)
{
	return f_function_text(fc, 2);
}

static ty_datum f_get_serial_sequence(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_snap *cs = snap(s);
	char *tn = ty_cstring(fc->args[0]);
	const cat_obj *t = rel_by_oid(cs, (cat_oid)ty_input(TY_REGCLASS, tn, strlen(tn), -1).i);
	if (!t)
		return ty_null();
	char *cn = ty_cstring(fc->args[1]);
	const cat_column *c = cat_column_by_name(&t->rel, cn);
	if (!c || c->dropped)
		ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", cn,
			 t->rel.name);
	/* The sequence the column's default draws from, owned by the column
	 * (serial and identity columns). */
	const cat_obj *found = NULL;
	cat_oid *seqs;
	int n = sql_default_sequences(s, cs, t, (int)(c - t->rel.cols), &seqs);
	for (int i = 0; i < n && !found; i++) {
		const cat_obj *q = rel_by_oid(cs, seqs[i]);
		if (q && q->rel.seq && q->rel.seq->owned_by_table == t->oid &&
		    q->rel.seq->owned_by_col == c->attnum)
			found = q;
	}
	if (!found)
		return ty_null();
	util_buf b = UTIL_BUF_INIT;
	sql_quote_identifier(sql_schema_name(cs, found->rel.schema), &b);
	util_buf_putc(&b, '.');
	sql_quote_identifier(found->rel.name, &b);
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}

/* ---- to_reg*: NULL instead of an error ---- */

typedef struct toreg_args {
	ty_oid type;
	const char *name;
	ty_oid result;
} toreg_args;

static void toreg_fn(void *arg)
{
	toreg_args *a = arg;
	a->result = (ty_oid)ty_input(a->type, a->name, strlen(a->name), -1).i;
}

static ty_datum to_reg(ty_fcinfo *fc, ty_oid type)
{
	toreg_args a = {type, ty_cstring(fc->args[0]), 0};
	util_err err;
	if (ty_protect(toreg_fn, &a, &err) != 0 || !a.result)
		return ty_null();
	return ty_int(a.result);
}

static ty_datum f_to_regclass(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGCLASS);
}
static ty_datum f_to_regtype(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGTYPE);
}
static ty_datum f_to_regproc(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGPROC);
}
static ty_datum f_to_regprocedure(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGPROCEDURE);
}
static ty_datum f_to_regnamespace(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGNAMESPACE);
}
static ty_datum f_to_regrole(ty_fcinfo *fc)
{
	return to_reg(fc, TY_REGROLE);
}

/* ---- partitions and publications (neither exists in Strata) ---- */

static ty_datum f_partition_ancestors(ty_fcinfo *fc)
{
	fc->srf_done = true; /* a table that is not a partition has no ancestors */
	return ty_null();
}

static ty_datum f_relation_is_publishable(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = rel_by_oid(snap(s), (cat_oid)fc->args[0].i);
	return ty_bool(o && o->rel.relkind == CAT_RELKIND_TABLE && o->rel.schema != CAT_OID_PG_CATALOG &&
		       o->rel.schema != CAT_OID_INFORMATION_SCHEMA);
}

/* ---- information_schema._pg_expandarray(anyarray) -> (x anyelement, n int) ---- */

typedef struct expand_state {
	ty_datum *elems;
	int n, pos;
	ty_oid types[2];
} expand_state;

static const char *const expand_names[] = {"x", "n"};
static const ty_oid expand_types[] = {TY_ANYELEMENT, TY_INT4};

static ty_datum f_pg_expandarray(ty_fcinfo *fc)
{
	expand_state *st = fc->srf_state;
	if (fc->srf_first || !st) {
		st = util_arena_zalloc(fc->cache_arena, sizeof *st);
		util_arena *old = ty_set_arena(fc->cache_arena);
		st->elems = ty_array_deconstruct(fc->args[0], &st->n);
		ty_set_arena(old);
		st->types[0] = ty_array_elemtype(fc->args[0]);
		st->types[1] = TY_INT4;
		fc->srf_state = st;
	}
	if (st->pos >= st->n) {
		fc->srf_done = true;
		return ty_null();
	}
	ty_record *r = ty_alloc(sizeof *r);
	r->n = 2;
	r->types = st->types;
	r->names = expand_names;
	r->vals = ty_alloc(sizeof(ty_datum) * 2);
	r->vals[0] = st->elems[st->pos];
	r->vals[1] = ty_int(st->pos + 1);
	st->pos++;
	return ty_bytes(r, sizeof *r);
}

/* ---- pg_options_to_table(text[]) -> (option_name text, option_value text) ---- */

static const char *const option_names[] = {"option_name", "option_value"};
static const ty_oid option_types[] = {TY_TEXT, TY_TEXT};

static ty_datum f_options_to_table(ty_fcinfo *fc)
{
	expand_state *st = fc->srf_state;
	if (fc->srf_first || !st) {
		st = util_arena_zalloc(fc->cache_arena, sizeof *st);
		util_arena *old = ty_set_arena(fc->cache_arena);
		st->elems = ty_array_deconstruct(fc->args[0], &st->n);
		ty_set_arena(old);
		st->types[0] = st->types[1] = TY_TEXT;
		fc->srf_state = st;
	}
	while (st->pos < st->n && st->elems[st->pos].null)
		st->pos++;
	if (st->pos >= st->n) {
		fc->srf_done = true;
		return ty_null();
	}
	/* "name=value"; an option without '=' has a NULL value. */
	ty_datum e = st->elems[st->pos++];
	const char *p = e.p, *eqs = memchr(p, '=', e.len);
	ty_record *r = ty_alloc(sizeof *r);
	r->n = 2;
	r->types = option_types;
	r->names = option_names;
	r->vals = ty_alloc(sizeof(ty_datum) * 2);
	r->vals[0] = ty_textn(p, eqs ? (size_t)(eqs - p) : e.len);
	r->vals[1] = eqs ? ty_textn(eqs + 1, e.len - (size_t)(eqs + 1 - p)) : ty_null();
	return ty_bytes(r, sizeof *r);
}

/* ---- sizes ---- */

/* Bytes the store holds for a relation (memstore + files); 0 for views and
 * synthesized indexes, which have no storage of their own. */
static int64_t storage_bytes(sql_session *s, const cat_obj *o)
{
	if (!o || !o->rel.storage[0])
		return 0;
	kv_table *t;
	if (kv_table_open(s->e->kv, o->rel.storage, &t) != KV_OK)
		return 0;
	kv_table_stats st;
	int64_t n = kv_table_get_stats(t, &st) == KV_OK ? (int64_t)(st.memstore_bytes + st.file_bytes) : 0;
	kv_table_close(t);
	return n;
}

static ty_datum size_of(ty_fcinfo *fc, bool with_indexes, bool only_indexes)
{
	sql_session *s = sess();
	const cat_obj *o = rel_by_oid(snap(s), (cat_oid)fc->args[0].i);
	if (!o) {
		sql_index_desc d;
		if (sql_index_by_oid(snap(s), (cat_oid)fc->args[0].i, &d))
			return ty_int(0);
		return ty_null();
	}
	int64_t n = only_indexes ? 0 : storage_bytes(s, o);
	if ((with_indexes || only_indexes) && o->rel.relkind == CAT_RELKIND_TABLE)
		for (int i = 0; i < o->rel.nindexes; i++)
			n += storage_bytes(s, rel_by_oid(snap(s), o->rel.indexes[i]));
	return ty_int(n);
}

static ty_datum f_relation_size(ty_fcinfo *fc)
{
	if (fc->nargs > 1) {
		char *fork = ty_cstring(fc->args[1]);
		if (strcmp(fork, "main") && strcmp(fork, "fsm") && strcmp(fork, "vm") && strcmp(fork, "init"))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid fork name");
		if (strcmp(fork, "main"))
			return ty_int(0);
	}
	return size_of(fc, false, false);
}
static ty_datum f_table_size(ty_fcinfo *fc)
{
	return size_of(fc, false, false);
}
static ty_datum f_total_relation_size(ty_fcinfo *fc)
{
	return size_of(fc, true, false);
}
static ty_datum f_indexes_size(ty_fcinfo *fc)
{
	return size_of(fc, false, true);
}

typedef struct dbsize {
	sql_session *s;
	int64_t n;
} dbsize;

static int add_rel_size(void *arg, const cat_obj *o)
{
	dbsize *d = arg;
	if (o->rel.relkind == CAT_RELKIND_TABLE || o->rel.relkind == CAT_RELKIND_INDEX)
		d->n += storage_bytes(d->s, o);
	return 0;
}

static ty_datum f_database_size(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *db;
	if (fc->argtypes[0] == TY_OID) {
		db = cat_get(snap(s), (cat_oid)fc->args[0].i);
		if (!db || db->kind != CAT_DATABASE)
			return ty_null();
	} else {
		char *n = ty_cstring(fc->args[0]);
		db = cat_database_by_name(snap(s), n);
		if (!db)
			ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", n);
	}
	dbsize d = {s, 0};
	cat_foreach(snap(s), CAT_REL, db->oid, add_rel_size, &d);
	return ty_int(d.n);
}

/* PostgreSQL's pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, PB
 * with half rounding, each unit used below 20480 of it. */
static void size_pretty(int64_t size, util_buf *out)
{
	static const struct {
		const char *name;
		int64_t limit;
		bool round;
		int bits;
	} units[] = {{"bytes", 10 * 1024, false, 0},  {"kB", 20 * 1024 - 1, true, 10},
		     {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
		     {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(units); i++) {
		int64_t a = size < 0 ? -size : size;
		if (i + 1 == UTIL_ARRAY_LEN(units) || a < units[i].limit) {
			if (units[i].round)
				size = (size + (size < 0 ? -1 : 1)) / 2;
			util_buf_printf(out, "%lld %s", (long long)size, units[i].name);
			return;
		}
		int bits = units[i + 1].bits - units[i].bits - (units[i + 1].round ? 1 : 0) +
			   (units[i].round ? 1 : 0);
		size /= (int64_t)1 << bits;
	}
}

static ty_datum f_size_pretty(ty_fcinfo *fc)
{
	int64_t v;
	if (fc->argtypes[0] == TY_NUMERIC) {
		ty_datum i8 = ty_cast_value(fc->args[0], TY_NUMERIC, TY_INT8, -1, true);
		v = i8.i;
	} else {
		v = fc->args[0].i;
	}
	util_buf b = UTIL_BUF_INIT;
	size_pretty(v, &b);
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}

/* ---- server state ---- */

static ty_datum f_false(ty_fcinfo *fc)
{
	(void)fc;
	return ty_bool(false);
}

static ty_datum f_postmaster_start_time(ty_fcinfo *fc)
{
	(void)fc;
	return sql_d_timestamptz_us(sess()->e->start_time_us);
}

/* The session's temporary schema (0: none yet), as PostgreSQL's. */
static ty_datum f_my_temp_schema(ty_fcinfo *fc)
{
	(void)fc;
	sql_session *s = sess();
	cat_snap *cs = s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : snap(s);
	return ty_int((int64_t)sql_temp_schema_oid(s, cs));
}

/* Another session's temporary schema (on this or another server)? */
static ty_datum f_is_other_temp_schema(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_snap *cs = s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : snap(s);
	cat_oid oid = (cat_oid)fc->args[0].i;
	return ty_bool(sql_temp_schema_is_temp(cs, oid) && oid != sql_temp_schema_oid(s, cs));
}

static ty_datum f_tablespace_location(ty_fcinfo *fc)
{
	(void)fc;
	return ty_text("");
}

#define F(nm, o, rt, fnp, vol, ...)                                                                          \
	{                                                                                                    \
		.name = nm, .nargs = (int)(sizeof((ty_oid[]){__VA_ARGS__}) / sizeof(ty_oid)),                \
		.args = {__VA_ARGS__}, .ret = rt, .fn = fnp, .volatility = vol, .strict = true, .kind = 'f', \
		.prosrc = nm, .oid = o                                                                       \
	}
#define F0(nm, o, rt, fnp, vol)                                                                              \
	{                                                                                                    \
		.name = nm, .nargs = 0, .ret = rt, .fn = fnp, .volatility = vol, .strict = true,             \
		.kind = 'f', .prosrc = nm, .oid = o                                                          \
	}

#define S  TY_STABLE
#define V  TY_VOLATILE
#define I  TY_IMMUTABLE
#define NT TY_PG_NODE_TREE

static const ty_func funcs[] = {
    F("pg_get_userbyid", 1642, TY_NAME, f_get_userbyid, S, TY_OID),
    F("pg_table_is_visible", 2079, TY_BOOL, f_table_is_visible, S, TY_OID),
    F0("pg_my_temp_schema", 2854, TY_OID, f_my_temp_schema, S),
    F("pg_is_other_temp_schema", 2855, TY_BOOL, f_is_other_temp_schema, S, TY_OID),
    F("pg_type_is_visible", 2080, TY_BOOL, f_type_is_visible, S, TY_OID),
    F("pg_function_is_visible", 2081, TY_BOOL, f_function_is_visible, S, TY_OID),
    F("pg_operator_is_visible", 2082, TY_BOOL, f_builtin_is_visible, S, TY_OID),
    F("pg_opclass_is_visible", 2083, TY_BOOL, f_builtin_is_visible, S, TY_OID),
    F("pg_conversion_is_visible", 2093, TY_BOOL, f_builtin_is_visible, S, TY_OID),
    F("pg_opfamily_is_visible", 3829, TY_BOOL, f_builtin_is_visible, S, TY_OID),
    F("pg_collation_is_visible", 3815, TY_BOOL, f_builtin_is_visible, S, TY_OID),
    F("pg_statistics_obj_is_visible", 3403, TY_BOOL, f_null, S, TY_OID),
    F("pg_encoding_to_char", 1597, TY_NAME, f_encoding_to_char, S, TY_INT4),
    F("pg_char_to_encoding", 1264, TY_INT4, f_char_to_encoding, S, TY_NAME),
    F("pg_encoding_max_length", 2319, TY_INT4, f_encoding_max_length, I, TY_INT4),
    F("obj_description", 1215, TY_TEXT, f_obj_description2, S, TY_OID, TY_NAME),
    F("obj_description", 1216, TY_TEXT, f_obj_description1, S, TY_OID),
    F("shobj_description", 1993, TY_TEXT, f_shobj_description, S, TY_OID, TY_NAME),
    F("col_description", 1218, TY_TEXT, f_col_description, S, TY_OID, TY_INT4),
    F("pg_get_expr", 1716, TY_TEXT, f_get_expr, S, NT, TY_OID),
    F("pg_get_expr", 2509, TY_TEXT, f_get_expr, S, NT, TY_OID, TY_BOOL),
    F("pg_get_constraintdef", 1387, TY_TEXT, f_get_constraintdef, S, TY_OID),
    F("pg_get_constraintdef", 2508, TY_TEXT, f_get_constraintdef, S, TY_OID, TY_BOOL),
    F("pg_get_indexdef", 1643, TY_TEXT, f_get_indexdef, S, TY_OID),
    F("pg_get_indexdef", 2507, TY_TEXT, f_get_indexdef, S, TY_OID, TY_INT4, TY_BOOL),
    F("pg_get_viewdef", 1641, TY_TEXT, f_get_viewdef, S, TY_OID),
    F("pg_get_viewdef", 2506, TY_TEXT, f_get_viewdef, S, TY_OID, TY_BOOL),
    F("pg_get_viewdef", 3159, TY_TEXT, f_get_viewdef, S, TY_OID, TY_INT4),
    F("pg_get_viewdef", 1640, TY_TEXT, f_get_viewdef, S, TY_TEXT),
    F("pg_get_viewdef", 2505, TY_TEXT, f_get_viewdef, S, TY_TEXT, TY_BOOL),
    F("pg_get_ruledef", 1573, TY_TEXT, f_get_ruledef, S, TY_OID),
    F("pg_get_ruledef", 2504, TY_TEXT, f_get_ruledef, S, TY_OID, TY_BOOL),
    F("pg_get_triggerdef", 1662, TY_TEXT, f_null, S, TY_OID),
    F("pg_get_triggerdef", 2730, TY_TEXT, f_null, S, TY_OID, TY_BOOL),
    F("pg_get_statisticsobjdef", 3415, TY_TEXT, f_null, S, TY_OID),
    F("pg_get_statisticsobjdef_columns", 6174, TY_TEXT, f_null, S, TY_OID),
    F("pg_get_partkeydef", 3352, TY_TEXT, f_null, S, TY_OID),
    F("pg_get_partition_constraintdef", 3408, TY_TEXT, f_null, S, TY_OID),
    F("pg_get_function_result", 2165, TY_TEXT, f_function_result, S, TY_OID),
    F("pg_get_function_arguments", 2162, TY_TEXT, f_function_arguments, S, TY_OID),
    F("pg_get_function_identity_arguments", 2232, TY_TEXT, f_function_identity_arguments, S, TY_OID),
    F("pg_get_serial_sequence", 1665, TY_TEXT, f_get_serial_sequence, S, TY_TEXT, TY_TEXT),
    F("to_regclass", 3495, TY_REGCLASS, f_to_regclass, S, TY_TEXT),
    F("to_regtype", 3493, TY_REGTYPE, f_to_regtype, S, TY_TEXT),
    F("to_regproc", 3494, TY_REGPROC, f_to_regproc, S, TY_TEXT),
    F("to_regprocedure", 3479, TY_REGPROCEDURE, f_to_regprocedure, S, TY_TEXT),
    F("to_regnamespace", 4086, TY_REGNAMESPACE, f_to_regnamespace, S, TY_TEXT),
    F("to_regrole", 4093, TY_REGROLE, f_to_regrole, S, TY_TEXT),
    {.name = "pg_partition_ancestors",
     .nargs = 1,
     .args = {TY_REGCLASS},
     .ret = TY_REGCLASS,
     .fn = f_partition_ancestors,
     .volatility = V,
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "pg_partition_ancestors",
     .oid = 3425},
    F("pg_partition_root", 3424, TY_REGCLASS, f_null, V, TY_REGCLASS),
    {.name = "pg_options_to_table",
     .nargs = 1,
     .args = {TY_TEXT_ARRAY},
     .ret = TY_RECORD,
     .fn = f_options_to_table,
     .volatility = S,
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "pg_options_to_table",
     .oid = 2289,
     .nout = 2,
     .outtypes = option_types,
     .outnames = option_names},
    /* information_schema._pg_expandarray (pgjdbc's DatabaseMetaData uses it). */
    {.name = "_pg_expandarray",
     .nargs = 1,
     .args = {TY_ANYARRAY},
     .ret = TY_RECORD,
     .fn = f_pg_expandarray,
     .volatility = I,
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "_pg_expandarray",
     .nout = 2,
     .outtypes = expand_types,
     .outnames = expand_names},
    F("pg_relation_is_publishable", 6121, TY_BOOL, f_relation_is_publishable, S, TY_REGCLASS),
    F("pg_relation_size", 2325, TY_INT8, f_relation_size, V, TY_REGCLASS),
    F("pg_relation_size", 2332, TY_INT8, f_relation_size, V, TY_REGCLASS, TY_TEXT),
    F("pg_table_size", 2997, TY_INT8, f_table_size, V, TY_REGCLASS),
    F("pg_total_relation_size", 2286, TY_INT8, f_total_relation_size, V, TY_REGCLASS),
    F("pg_indexes_size", 2998, TY_INT8, f_indexes_size, V, TY_REGCLASS),
    F("pg_database_size", 2324, TY_INT8, f_database_size, V, TY_OID),
    F("pg_database_size", 2168, TY_INT8, f_database_size, V, TY_NAME),
    F("pg_size_pretty", 2288, TY_TEXT, f_size_pretty, I, TY_INT8),
    F("pg_size_pretty", 3166, TY_TEXT, f_size_pretty, I, TY_NUMERIC),
    F0("pg_is_in_recovery", 3810, TY_BOOL, f_false, V),
    F0("pg_postmaster_start_time", 2560, TY_TIMESTAMPTZ, f_postmaster_start_time, S),
    F0("pg_conf_load_time", 2034, TY_TIMESTAMPTZ, f_postmaster_start_time, S),
    F("pg_tablespace_location", 3778, TY_TEXT, f_tablespace_location, S, TY_OID),
};

void sql_register_privilege_functions(void);
void sql_register_typeio_functions(void);

void sql_register_catalog_functions(void)
{
	ty_catalog_types_register();
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	sql_register_privilege_functions();
	sql_register_typeio_functions();
}
