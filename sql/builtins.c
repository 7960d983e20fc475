/*
 * builtins.c — functions and types that need the session or the catalog:
 * the reg* types (regclass, regtype, regproc, regnamespace, regrole) whose
 * I/O looks names up, sequence functions, and session information
 * functions (current_schema, version, current_setting, pg_backend_pid ...).
 * They find the session through sql_current_session().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "ty_strings.h"
#include "sql_int.h"

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

static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* Splits "schema.name" with PostgreSQL's identifier rules (quotes,
 * case folding). */
static void split_name(const char *s, size_t n, char *schema, char *name)
{
	char parts[3][CAT_NAME_MAX];
	int np = 0;
	size_t i = 0;
	while (i <= n && np < 3) {
		char *out = parts[np];
		size_t k = 0;
		if (i < n && s[i] == '"') {
			i++;
			while (i < n) {
				if (s[i] == '"') {
					if (i + 1 < n && s[i + 1] == '"') {
						if (k < CAT_NAME_MAX - 1)
							out[k++] = '"';
						i += 2;
						continue;
					}
					i++;
					break;
				}
				if (k < CAT_NAME_MAX - 1)
					out[k++] = s[i];
				i++;
			}
		} else {
			while (i < n && s[i] != '.') {
				char c = s[i++];
				if (c >= 'A' && c <= 'Z')
					c = (char)(c - 'A' + 'a');
				if (c != ' ' && k < CAT_NAME_MAX - 1)
					out[k++] = c;
			}
		}
		out[k] = '\0';
		np++;
		if (i < n && s[i] == '.')
			i++;
		else
			break;
	}
	schema[0] = '\0';
	if (np >= 2) {
		snprintf(schema, CAT_NAME_MAX, "%s", parts[np - 2]);
		snprintf(name, CAT_NAME_MAX, "%s", parts[np - 1]);
	} else {
		snprintf(name, CAT_NAME_MAX, "%s", parts[0]);
	}
}

/* Whether a relation is visible by its unqualified name (search path). */
bool sql_rel_visible(sql_session *s, cat_snap *cs, const cat_obj *o)
{
	const cat_obj *found = sql_lookup_rel_name(s, cs, NULL, o->rel.name);
	return found == o;
}

/* PostgreSQL's quote_identifier(): one keyword list for the whole server
 * (types/str_format.c), so every keyword that is not unreserved is quoted. */
void sql_quote_ident(const char *n, util_buf *out)
{
	ty_quote_ident(n, strlen(n), out);
}

/* ---- regclass ---- */

static ty_datum regclass_in(const char *str, size_t len, int32_t typmod)
{
	(void)typmod;
	if (all_digits(str, len))
		return ty_int(strtoul(ty_strndup(str, len), NULL, 10));
	sql_session *s = sess();
	char schema[CAT_NAME_MAX], name[CAT_NAME_MAX];
	split_name(str, len, schema, name);
	cat_snap *cs = snap(s);
	if (*schema && !sql_lookup_schema(s, cs, schema))
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", schema);
	const cat_obj *o = sql_lookup_rel_name(s, cs, *schema ? schema : NULL, name);
	if (!o) {
		const struct sql_sysview *sv = sql_sysview_find(*schema ? schema : "pg_catalog", name);
		if (sv)
			return ty_int(sql_sysview_oid(sv));
		cat_oid ix = sql_synth_index_by_name(s, cs, *schema ? schema : NULL, name);
		if (ix)
			return ty_int(ix);
		if (*schema)
			ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s.%s\" does not exist", schema, name);
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
	}
	return ty_int(o->oid);
}

static void regclass_out(ty_datum v, util_buf *out)
{
	sql_session *s = sql_current_session();
	cat_oid oid = (cat_oid)v.i;
	const cat_obj *o = s ? cat_get(snap(s), oid) : NULL;
	if (o && o->kind == CAT_REL) {
		if (!sql_rel_visible(s, snap(s), o)) {
			sql_quote_ident(sql_schema_name(snap(s), o->rel.schema), out);
			util_buf_putc(out, '.');
		}
		sql_quote_ident(o->rel.name, out);
		return;
	}
	if (s && sql_synth_index_out(s, snap(s), oid, out))
		return;
	const char *sv = sql_sysview_name_by_oid(oid);
	if (sv) {
		if (sql_sysview_schema_by_oid(oid) && strcmp(sql_sysview_schema_by_oid(oid), "pg_catalog")) {
			util_buf_puts(out, sql_sysview_schema_by_oid(oid));
			util_buf_putc(out, '.');
		}
		util_buf_puts(out, sv);
		return;
	}
	util_buf_printf(out, "%u", oid);
}

/* ---- regtype ---- */

static ty_datum regtype_in(const char *str, size_t len, int32_t typmod)
{
	(void)typmod;
	if (all_digits(str, len))
		return ty_int(strtoul(ty_strndup(str, len), NULL, 10));
	/* Parse as a type name through the SQL grammar: "SELECT NULL::<name>". */
	char *q = ty_alloc(len + 32);
	snprintf(q, len + 32, "SELECT NULL::%.*s", (int)len, str);
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(q, &err);
	if (!pr)
		ty_error(UTIL_E_SYNTAX_ERROR, "invalid type name \"%.*s\"", (int)len, str);
	ty_oid t;
	int32_t tm;
	pnode *val = pr->stmts[0]->stmt->select_stmt->target_list[0]->res_target->val;
	TY_TRY(tc)
	{
		sql_typename(NULL, val->type_cast->type_name, &t, &tm);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	pg_query__parse_result__free_unpacked(pr, NULL);
	return ty_int(t);
}

static void regtype_out(ty_datum v, util_buf *out)
{
	if (ty_type_get((ty_oid)v.i))
		ty_format_type((ty_oid)v.i, -1, out);
	else
		util_buf_printf(out, "%u", (unsigned)v.i);
}

/* ---- regproc / regprocedure / regoper / regoperator (catalog_funcs_reg.c) ---- */

ty_oid sql_regproc_in(const char *s, size_t n, bool signature);
bool sql_regproc_out(ty_oid oid, bool signature, util_buf *out);
ty_oid sql_regoper_in(const char *s, size_t n, bool signature);
bool sql_regoper_out(ty_oid oid, bool signature, util_buf *out);

/* ---- regnamespace / regrole ---- */

static ty_datum regnamespace_in(const char *str, size_t len, int32_t typmod)
{
	(void)typmod;
	if (all_digits(str, len))
		return ty_int(strtoul(ty_strndup(str, len), NULL, 10));
	char schema[CAT_NAME_MAX], name[CAT_NAME_MAX];
	split_name(str, len, schema, name);
	sql_session *s = sess();
	const cat_obj *o = sql_lookup_schema(s, snap(s), name);
	if (!o)
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", name);
	return ty_int(o->oid);
}

static void regnamespace_out(ty_datum v, util_buf *out)
{
	sql_session *s = sql_current_session();
	const char *n = s ? sql_schema_name(snap(s), (cat_oid)v.i) : NULL;
	if (n)
		sql_quote_ident(n, out);
	else
		util_buf_printf(out, "%u", (unsigned)v.i);
}

static ty_datum regrole_in(const char *str, size_t len, int32_t typmod)
{
	(void)typmod;
	if (all_digits(str, len))
		return ty_int(strtoul(ty_strndup(str, len), NULL, 10));
	char schema[CAT_NAME_MAX], name[CAT_NAME_MAX];
	split_name(str, len, schema, name);
	sql_session *s = sess();
	cat_oid oid = sql_role_oid(snap(s), name);
	if (!oid)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
	return ty_int(oid);
}

static void regrole_out(ty_datum v, util_buf *out)
{
	sql_session *s = sql_current_session();
	const char *n = s ? sql_role_name(snap(s), (cat_oid)v.i) : NULL;
	if (n)
		sql_quote_ident(n, out);
	else
		util_buf_printf(out, "%u", (unsigned)v.i);
}

/* The resolver types/ calls for the reg* types' text I/O. */
static bool reg_in(ty_oid regtype, const char *name, ty_oid *oid)
{
	size_t n = strlen(name);
	ty_datum d;
	switch (regtype) {
	case TY_REGCLASS: d = regclass_in(name, n, -1); break;
	case TY_REGTYPE: d = regtype_in(name, n, -1); break;
	case TY_REGPROC:
	case TY_REGPROCEDURE:
		d = all_digits(name, n) ? ty_int(strtoul(name, NULL, 10)) : ty_int(sql_regproc_in(name, n, regtype == TY_REGPROCEDURE));
		break;
	case TY_REGOPER:
	case TY_REGOPERATOR:
		d = all_digits(name, n) ? ty_int(strtoul(name, NULL, 10)) : ty_int(sql_regoper_in(name, n, regtype == TY_REGOPERATOR));
		break;
	case TY_REGNAMESPACE: d = regnamespace_in(name, n, -1); break;
	case TY_REGROLE: d = regrole_in(name, n, -1); break;
	default: return false;
	}
	*oid = (ty_oid)d.i;
	return true;
}

static bool reg_out(ty_oid regtype, ty_oid oid, util_buf *out)
{
	ty_datum d = ty_int(oid);
	switch (regtype) {
	case TY_REGCLASS: regclass_out(d, out); return true;
	case TY_REGTYPE: regtype_out(d, out); return true;
	case TY_REGPROC:
	case TY_REGPROCEDURE:
		if (!sql_regproc_out(oid, regtype == TY_REGPROCEDURE, out))
			util_buf_printf(out, "%u", (unsigned)oid);
		return true;
	case TY_REGOPER:
	case TY_REGOPERATOR:
		if (!sql_regoper_out(oid, regtype == TY_REGOPERATOR, out))
			util_buf_printf(out, "%u", (unsigned)oid);
		return true;
	case TY_REGNAMESPACE: regnamespace_out(d, out); return true;
	case TY_REGROLE: regrole_out(d, out); return true;
	default: return false;
	}
}

static const ty_reg_resolver resolver = {reg_in, reg_out};

/* ---- functions ---- */

static cat_oid arg_oid(ty_fcinfo *fc, int i) { return (cat_oid)fc->args[i].i; }

static ty_datum f_nextval(ty_fcinfo *fc) { return ty_int(sql_nextval(sess(), arg_oid(fc, 0))); }
static ty_datum f_currval(ty_fcinfo *fc) { return ty_int(sql_currval(sess(), arg_oid(fc, 0))); }
static ty_datum f_lastval(ty_fcinfo *fc)
{
	(void)fc;
	return ty_int(sql_lastval(sess()));
}
static ty_datum f_setval(ty_fcinfo *fc)
{
	bool called = fc->nargs < 3 || fc->args[2].i;
	return ty_int(sql_setval(sess(), arg_oid(fc, 0), fc->args[1].i, called));
}

static ty_datum f_current_schema(ty_fcinfo *fc)
{
	(void)fc;
	const char *n = sql_current_schema_name(sess());
	return n ? ty_text(n) : ty_null();
}

static ty_datum f_current_schemas(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_oid path[32];
	int n = sql_search_path(s, snap(s), path, 32);
	ty_datum vals[32];
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (path[i] == CAT_OID_PG_CATALOG && !fc->args[0].i && !strstr(s->search_path, "pg_catalog"))
			continue;
		vals[k++] = ty_text(sql_schema_name(snap(s), path[i]));
	}
	return sql_make_name_array(vals, k);
}

static ty_datum f_current_database(ty_fcinfo *fc)
{
	(void)fc;
	return ty_text(sess()->database);
}

static ty_datum f_version(ty_fcinfo *fc)
{
	(void)fc;
	char buf[256];
	snprintf(buf, sizeof buf, "PostgreSQL %s (Strata %s) on x86_64-pc-linux-gnu, compiled by gcc, 64-bit",
		 STRATA_PG_VERSION, STRATA_VERSION);
	return ty_text(buf);
}

static ty_datum f_backend_pid(ty_fcinfo *fc)
{
	(void)fc;
	return ty_int(sess()->pid);
}

static ty_datum f_export_snapshot(ty_fcinfo *fc)
{
	(void)fc;
	sql_session *s = sess();
	if (!s->txn)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "cannot export a snapshot outside a transaction");
	return ty_text(sql_txn_export_snapshot(s->txn));
}

static ty_datum f_current_setting(ty_fcinfo *fc)
{
	sql_session *s = sess();
	char *name = ty_cstring(fc->args[0]);
	bool missing_ok = fc->nargs > 1 && !fc->args[1].null && fc->args[1].i;
	util_buf b = UTIL_BUF_INIT;
	util_err err;
	bool found;
	sql_guc_show(s, name, &b, &err, &found);
	if (!found) {
		util_buf_free(&b);
		if (missing_ok)
			return ty_null();
		ty_throw(&err);
	}
	ty_datum r = ty_text(b.data ? b.data : "");
	util_buf_free(&b);
	return r;
}

static ty_datum f_set_config(ty_fcinfo *fc)
{
	sql_session *s = sess();
	if (fc->args[0].null)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "SET requires parameter name");
	char *name = ty_cstring(fc->args[0]);
	char *val = fc->args[1].null ? NULL : ty_cstring(fc->args[1]);
	util_err err;
	if (sql_guc_set(s, name, val, !fc->args[2].null && fc->args[2].i, &err) != 0)
		ty_throw(&err);
	util_buf b = UTIL_BUF_INIT;
	bool found;
	sql_guc_show(s, name, &b, &err, &found);
	ty_datum r = ty_text(b.data ? b.data : "");
	util_buf_free(&b);
	return r;
}

static ty_datum f_pg_typeof(ty_fcinfo *fc) { return ty_int(fc->argtypes[0] == TY_UNKNOWN ? TY_UNKNOWN : fc->argtypes[0]); }

static ty_datum f_format_type(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_null();
	util_buf b = UTIL_BUF_INIT;
	int32_t tm = fc->args[1].null ? -1 : (int32_t)fc->args[1].i;
	if (!ty_type_get((ty_oid)fc->args[0].i))
		util_buf_puts(&b, "???");
	else if (fc->args[1].null && fc->args[0].i == TY_BPCHAR)
		util_buf_puts(&b, "character"); /* typmod -1 given spells "bpchar", as in PostgreSQL */
	else
		ty_format_type((ty_oid)fc->args[0].i, tm, &b);
	ty_datum r = ty_text(b.data);
	util_buf_free(&b);
	return r;
}

static ty_datum f_txid_current(ty_fcinfo *fc)
{
	(void)fc;
	sql_session *s = sess();
	sql_stmt_ensure_txn(s);
	/* A stable id for the transaction: its snapshot timestamp. */
	return ty_int((int64_t)(s->txn->snapshot_ts & 0x7fffffffffffLL));
}

static ty_datum f_inet_client(ty_fcinfo *fc)
{
	(void)fc;
	return ty_null();
}

static const ty_func sql_funcs[] = {
	{.name = "nextval", .nargs = 1, .args = {TY_REGCLASS}, .ret = TY_INT8, .fn = f_nextval, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "nextval_oid", .oid = 1574},
	{.name = "currval", .nargs = 1, .args = {TY_REGCLASS}, .ret = TY_INT8, .fn = f_currval, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "currval_oid", .oid = 1575},
	{.name = "setval", .nargs = 2, .args = {TY_REGCLASS, TY_INT8}, .ret = TY_INT8, .fn = f_setval, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "setval_oid", .oid = 1576},
	{.name = "setval", .nargs = 3, .args = {TY_REGCLASS, TY_INT8, TY_BOOL}, .ret = TY_INT8, .fn = f_setval, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "setval3_oid", .oid = 1765},
	{.name = "lastval", .nargs = 0, .ret = TY_INT8, .fn = f_lastval, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "lastval", .oid = 2559},
	{.name = "current_schema", .nargs = 0, .ret = TY_NAME, .fn = f_current_schema, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "current_schema", .oid = 1402},
	{.name = "current_schemas", .nargs = 1, .args = {TY_BOOL}, .ret = TY_NAME_ARRAY, .fn = f_current_schemas, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "current_schemas", .oid = 1403},
	{.name = "current_database", .nargs = 0, .ret = TY_NAME, .fn = f_current_database, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "current_database", .oid = 861},
	{.name = "version", .nargs = 0, .ret = TY_TEXT, .fn = f_version, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pgsql_version", .oid = 89},
	{.name = "pg_export_snapshot", .nargs = 0, .ret = TY_TEXT, .fn = f_export_snapshot, .volatility = TY_VOLATILE, .strict = true, .kind = 'f', .prosrc = "pg_export_snapshot", .oid = 3809},
	{.name = "pg_backend_pid", .nargs = 0, .ret = TY_INT4, .fn = f_backend_pid, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "pg_backend_pid", .oid = 2026},
	{.name = "current_setting", .nargs = 1, .args = {TY_TEXT}, .ret = TY_TEXT, .fn = f_current_setting, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "show_config_by_name", .oid = 2077},
	{.name = "current_setting", .nargs = 2, .args = {TY_TEXT, TY_BOOL}, .ret = TY_TEXT, .fn = f_current_setting, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "show_config_by_name_missing_ok", .oid = 3294},
	{.name = "set_config", .nargs = 3, .args = {TY_TEXT, TY_TEXT, TY_BOOL}, .ret = TY_TEXT, .fn = f_set_config, .volatility = TY_VOLATILE, .strict = false, .kind = 'f', .prosrc = "set_config_by_name", .oid = 2078},
	{.name = "pg_typeof", .nargs = 1, .args = {TY_ANY}, .ret = TY_REGTYPE, .fn = f_pg_typeof, .volatility = TY_STABLE, .strict = false, .kind = 'f', .prosrc = "pg_typeof", .oid = 1619},
	{.name = "format_type", .nargs = 2, .args = {TY_OID, TY_INT4}, .ret = TY_TEXT, .fn = f_format_type, .volatility = TY_STABLE, .strict = false, .kind = 'f', .prosrc = "format_type", .oid = 1081},
	{.name = "txid_current", .nargs = 0, .ret = TY_INT8, .fn = f_txid_current, .volatility = TY_STABLE, .strict = true, .kind = 'f', .prosrc = "txid_current", .oid = 2943},
	{.name = "inet_client_addr", .nargs = 0, .ret = TY_TEXT, .fn = f_inet_client, .volatility = TY_STABLE, .strict = false, .kind = 'f', .prosrc = "inet_client_addr", .oid = 2196},
};


static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init(void)
{
	ty_set_reg_resolver(&resolver);
	ty_func_register(sql_funcs, (int)UTIL_ARRAY_LEN(sql_funcs));
	sql_register_catalog_functions();
	sql_register_ordered_aggs();
	sql_register_extra_funcs();
}

void sql_builtins_init(void) { pthread_once(&once, init); }
