/*
 * catalog_funcs.c — the catalog information functions psql and drivers
 * call: pg_get_userbyid, pg_table_is_visible, pg_encoding_to_char,
 * obj_description, col_description, shobj_description, pg_get_expr.
 */
#include <stdio.h>
#include <string.h>

#include "sql_int.h"

static sql_session *sess(void) { return sql_current_session(); }

static cat_snap *snap(sql_session *s)
{
	if (!s->cat)
		s->cat = cat_current(s->e->cat);
	return s->cat;
}

static ty_datum f_get_userbyid(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = cat_get(snap(s), (cat_oid)fc->args[0].i);
	if (!o || o->kind != CAT_ROLE) {
		char buf[48];
		snprintf(buf, sizeof buf, "unknown (OID=%u)", (unsigned)fc->args[0].i);
		return ty_text(buf);
	}
	return ty_text(o->role.name);
}

static ty_datum f_table_is_visible(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const cat_obj *o = cat_get(snap(s), (cat_oid)fc->args[0].i);
	if (!o || o->kind != CAT_REL)
		return sql_sysview_name_by_oid((cat_oid)fc->args[0].i) ? ty_bool(true) : ty_null();
	return ty_bool(sql_rel_visible(s, snap(s), o));
}

static ty_datum f_encoding_to_char(ty_fcinfo *fc)
{
	int e = (int)fc->args[0].i;
	return ty_text(e == 6 ? "UTF8" : e == 0 ? "SQL_ASCII" : "");
}

static const char *rel_comment(const cat_obj *o, int sub)
{
	if (!o)
		return NULL;
	switch (o->kind) {
	case CAT_REL:
		if (sub > 0) {
			const cat_column *c = cat_column_by_attnum(&o->rel, sub);
			return c ? c->comment : NULL;
		}
		return o->rel.comment;
	case CAT_SCHEMA: return o->schema.comment;
	case CAT_ROLE: return o->role.comment;
	case CAT_DATABASE: return o->db.comment;
	}
	return NULL;
}

static ty_datum f_obj_description(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const char *c = rel_comment(cat_get(snap(s), (cat_oid)fc->args[0].i), 0);
	return c ? ty_text(c) : ty_null();
}

static ty_datum f_col_description(ty_fcinfo *fc)
{
	sql_session *s = sess();
	const char *c = rel_comment(cat_get(snap(s), (cat_oid)fc->args[0].i), (int)fc->args[1].i);
	return c ? ty_text(c) : ty_null();
}

static ty_datum f_get_expr(ty_fcinfo *fc)
{
	/* Stored expressions are "SELECT <expr>"; show the expression. */
	const char *p = fc->args[0].p;
	size_t n = fc->args[0].len;
	if (n >= 7 && !strncmp(p, "SELECT ", 7))
		return ty_textn(p + 7, n - 7);
	return ty_textn(p, n);
}

static const ty_func funcs[] = {
	{.name = "pg_get_userbyid", .nargs = 1, .args = {TY_OID}, .ret = TY_NAME, .fn = f_get_userbyid, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pg_get_userbyid", .oid = 1642},
	{.name = "pg_table_is_visible", .nargs = 1, .args = {TY_OID}, .ret = TY_BOOL, .fn = f_table_is_visible, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pg_table_is_visible", .oid = 2079},
	{.name = "pg_encoding_to_char", .nargs = 1, .args = {TY_INT4}, .ret = TY_NAME, .fn = f_encoding_to_char, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "PG_encoding_to_char", .oid = 1597},
	{.name = "obj_description", .nargs = 2, .args = {TY_OID, TY_NAME}, .ret = TY_TEXT, .fn = f_obj_description, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "obj_description", .oid = 1215},
	{.name = "obj_description", .nargs = 1, .args = {TY_OID}, .ret = TY_TEXT, .fn = f_obj_description, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "obj_description", .oid = 1216},
	{.name = "shobj_description", .nargs = 2, .args = {TY_OID, TY_NAME}, .ret = TY_TEXT, .fn = f_obj_description, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "shobj_description", .oid = 1993},
	{.name = "col_description", .nargs = 2, .args = {TY_OID, TY_INT4}, .ret = TY_TEXT, .fn = f_col_description, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "col_description", .oid = 1218},
	{.name = "pg_get_expr", .nargs = 2, .args = {TY_PG_NODE_TREE, TY_OID}, .ret = TY_TEXT, .fn = f_get_expr, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pg_get_expr", .oid = 1716},
	{.name = "pg_get_expr", .nargs = 3, .args = {TY_PG_NODE_TREE, TY_OID, TY_BOOL}, .ret = TY_TEXT, .fn = f_get_expr, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pg_get_expr_ext", .oid = 2509},
};

void sql_register_catalog_functions(void) { ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs)); }
