/*
 * catalog_funcs_priv.c — privilege inquiry: has_table_privilege and the
 * other has_*_privilege functions, pg_has_role, and the ACL helpers the
 * catalog views use. Privileges come from the catalog's ACLs; an object
 * without an ACL has PostgreSQL's defaults (the owner holds everything;
 * PUBLIC may connect to databases, use the public and system schemas,
 * execute functions and use types and languages). Superusers pass every
 * check.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "array.h"
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

static bool is_superuser(cat_snap *cs, cat_oid user)
{
	const cat_obj *o = cat_get(cs, user);
	return o && o->kind == CAT_ROLE && o->role.superuser;
}

/* Membership through inheriting roles, depth-bounded against cycles. */
static bool member_of(cat_snap *cs, cat_oid user, cat_oid role, int depth)
{
	if (user == role)
		return true;
	if (depth > 16)
		return false;
	const cat_obj *o = cat_get(cs, user);
	if (!o || o->kind != CAT_ROLE)
		return false;
	for (int i = 0; i < o->role.nmembers_of; i++)
		if (member_of(cs, o->role.member_of[i], role, depth + 1))
			return true;
	return false;
}

bool sql_priv_has_role(cat_snap *cs, cat_oid user, cat_oid role)
{
	if (is_superuser(cs, user))
		return true;
	/* Everyone is a member of pg_database_owner in the databases they own;
	 * the public schema is owned by it. */
	return member_of(cs, user, role, 0);
}

static const cat_acl *default_acl(cat_oid owner, uint32_t all, uint32_t public_privs, int *n)
{
	cat_acl *a = ty_alloc(sizeof(cat_acl) * 2);
	int k = 0;
	if (public_privs)
		a[k++] = (cat_acl){0, owner, public_privs, 0};
	a[k++] = (cat_acl){owner, owner, all, 0};
	*n = k;
	return a;
}

#define TABLE_ALL                                                                                            \
	(CAT_PRIV_INSERT | CAT_PRIV_SELECT | CAT_PRIV_UPDATE | CAT_PRIV_DELETE | CAT_PRIV_TRUNCATE |         \
	 CAT_PRIV_REFERENCES | CAT_PRIV_TRIGGER)
#define SEQUENCE_ALL (CAT_PRIV_USAGE | CAT_PRIV_SELECT | CAT_PRIV_UPDATE)

const cat_acl *sql_priv_rel_acl(const cat_obj *rel, int *n)
{
	if (rel->rel.nacl) {
		*n = rel->rel.nacl;
		return rel->rel.acl;
	}
	return default_acl(rel->rel.owner,
			   rel->rel.relkind == CAT_RELKIND_SEQUENCE ? SEQUENCE_ALL : TABLE_ALL, 0, n);
}

/* Privileges user holds through an ACL (PUBLIC entries and roles it is a
 * member of included). */
static uint32_t acl_privs(cat_snap *cs, cat_oid user, const cat_acl *acl, int n, bool grant_option)
{
	uint32_t p = 0;
	for (int i = 0; i < n; i++)
		if (acl[i].grantee == 0 || member_of(cs, user, acl[i].grantee, 0))
			p |= grant_option ? acl[i].grant_option : acl[i].privs;
	return p;
}

static bool rel_has(cat_snap *cs, cat_oid user, const cat_obj *rel, uint32_t want, bool grant_option)
{
	if (is_superuser(cs, user) || member_of(cs, user, rel->rel.owner, 0))
		return true;
	int n;
	const cat_acl *acl = sql_priv_rel_acl(rel, &n);
	return (acl_privs(cs, user, acl, n, grant_option) & want) != 0;
}

bool sql_priv_rel_any(sql_session *s, cat_snap *cs, cat_oid user, const cat_obj *rel)
{
	(void)s;
	return rel_has(cs, user, rel, TABLE_ALL | SEQUENCE_ALL, false);
}

/* ---- privilege strings ---- */

typedef struct priv_name {
	const char *name;
	uint32_t bit;
} priv_name;

static const priv_name database_privs[] = {
    {"CREATE", CAT_PRIV_CREATE},
    {"CONNECT", CAT_PRIV_CONNECT},
    {"TEMPORARY", CAT_PRIV_TEMP},
    {"TEMP", CAT_PRIV_TEMP},
    {NULL, 0},
};
static const priv_name execute_privs[] = {{"EXECUTE", CAT_PRIV_USAGE}, {NULL, 0}};
static const priv_name usage_privs[] = {{"USAGE", CAT_PRIV_USAGE}, {NULL, 0}};
static const priv_name tablespace_privs[] = {{"CREATE", CAT_PRIV_CREATE}, {NULL, 0}};

/* Parses "SELECT, INSERT WITH GRANT OPTION" into bits (22023 for unknown
 * names, as PostgreSQL). *grant set when any item asks WITH GRANT OPTION. */
static uint32_t parse_privs(ty_datum text, const priv_name *names, bool *grant)
{
	char *s = ty_cstring(text);
	uint32_t bits = 0;
	*grant = false;
	for (char *item = strtok(s, ","); item; item = strtok(NULL, ",")) {
		while (isspace((unsigned char)*item))
			item++;
		char *end = item + strlen(item);
		while (end > item && isspace((unsigned char)end[-1]))
			*--end = '\0';
		char *w = strcasestr(item, " WITH GRANT OPTION");
		if (w) {
			*w = '\0';
			*grant = true;
			end = w;
			while (end > item && isspace((unsigned char)end[-1]))
				*--end = '\0';
		}
		const priv_name *p;
		for (p = names; p->name; p++)
			if (!strcasecmp(item, p->name))
				break;
		if (!p->name)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized privilege type: \"%s\"", item);
		bits |= p->bit;
	}
	return bits;
}

/* ---- argument resolution ---- */

static cat_oid role_arg(cat_snap *cs, ty_datum d, ty_oid type)
{
	if (type == TY_OID || type == TY_REGROLE)
		return (cat_oid)d.i;
	char *n = ty_cstring(d);
	if (!strcasecmp(n, "public"))
		return 0;
	const cat_obj *o = cat_role_by_name(cs, n);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", n);
	return o->oid;
}

/* A relation named by text (regclass input rules) or oid; NULL for an
 * oid that does not exist (the functions then return NULL). */

/* Splits the user / object / privilege arguments of the 2- and 3-argument
 * forms. */
typedef struct priv_args {
	cat_oid user;
	ty_datum obj;
	ty_oid objtype;
	ty_datum priv;
	ty_datum extra; /* has_column_privilege: the column */
	ty_oid extratype;
} priv_args;

static void split_args(ty_fcinfo *fc, cat_snap *cs, sql_session *s, int nobj, priv_args *a)
{
	int k = 0;
	if (fc->nargs == nobj + 2) {
		a->user = role_arg(cs, fc->args[0], fc->argtypes[0]);
		k = 1;
	} else {
		a->user = s->user_oid;
	}
	a->obj = fc->args[k];
	a->objtype = fc->argtypes[k];
	if (nobj == 2) {
		a->extra = fc->args[k + 1];
		a->extratype = fc->argtypes[k + 1];
	}
	a->priv = fc->args[k + nobj];
}

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_has_table_privilege(ty_fcinfo *fc) { return sql_acl_fn_table(fc); }

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_has_sequence_privilege(ty_fcinfo *fc) { return sql_acl_fn_sequence(fc); }

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_has_column_privilege(ty_fcinfo *fc) { return sql_acl_fn_column(fc); }

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_has_any_column_privilege(ty_fcinfo *fc) { return sql_acl_fn_any_column(fc); }

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_has_schema_privilege(ty_fcinfo *fc) { return sql_acl_fn_schema(fc); }

static ty_datum f_has_database_privilege(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_snap *cs = snap(s);
	priv_args a;
	split_args(fc, cs, s, 1, &a);
	bool grant;
	uint32_t want = parse_privs(a.priv, database_privs, &grant);
	const cat_obj *o;
	if (a.objtype == TY_OID) {
		o = cat_get(cs, (cat_oid)a.obj.i);
		if (!o || o->kind != CAT_DATABASE)
			return ty_null();
	} else {
		char *n = ty_cstring(a.obj);
		o = cat_database_by_name(cs, n);
		if (!o)
			ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", n);
	}
	if (is_superuser(cs, a.user) || member_of(cs, a.user, o->db.owner, 0))
		return ty_bool(true);
	return ty_bool(!grant && (want & ~(CAT_PRIV_CONNECT | CAT_PRIV_TEMP)) == 0);
}

/* Functions, types, languages, foreign data, tablespaces: the built-in
 * objects Strata has are usable by everyone. */
static ty_datum public_usage(ty_fcinfo *fc, const priv_name *names,
			     bool (*exists)(sql_session *, ty_datum, ty_oid))
{
	sql_session *s = sess();
	cat_snap *cs = snap(s);
	priv_args a;
	split_args(fc, cs, s, 1, &a);
	bool grant;
	parse_privs(a.priv, names, &grant);
	if (!exists(s, a.obj, a.objtype))
		return ty_null();
	return ty_bool(is_superuser(cs, a.user) || !grant);
}

static bool func_exists(sql_session *s, ty_datum d, ty_oid type)
{
	(void)s;
	if (type == TY_OID)
		return ty_func_by_oid((ty_oid)d.i) || ty_agg_by_oid((ty_oid)d.i);
	char *n = ty_cstring(d);
	return ty_input(TY_REGPROCEDURE, n, strlen(n), -1).i != 0;
}

static bool type_exists(sql_session *s, ty_datum d, ty_oid type)
{
	(void)s;
	if (type == TY_OID)
		return ty_type_get((ty_oid)d.i) != NULL;
	char *n = ty_cstring(d);
	return ty_type_get((ty_oid)ty_input(TY_REGTYPE, n, strlen(n), -1).i) != NULL;
}

static bool lang_exists(sql_session *s, ty_datum d, ty_oid type)
{
	(void)s;
	if (type == TY_OID)
		return d.i == 12 || d.i == 13 || d.i == 14;
	char *n = ty_cstring(d);
	if (strcmp(n, "internal") && strcmp(n, "c") && strcmp(n, "sql"))
		ty_error(UTIL_E_UNDEFINED_OBJECT, "language \"%s\" does not exist", n);
	return true;
}

static bool tablespace_exists(sql_session *s, ty_datum d, ty_oid type)
{
	(void)s;
	if (type == TY_OID)
		return d.i == 1663 || d.i == 1664;
	char *n = ty_cstring(d);
	if (strcmp(n, "pg_default") && strcmp(n, "pg_global"))
		ty_error(UTIL_E_UNDEFINED_OBJECT, "tablespace \"%s\" does not exist", n);
	return true;
}

static ty_datum f_has_function_privilege(ty_fcinfo *fc)
{
	return public_usage(fc, execute_privs, func_exists);
}
static ty_datum f_has_type_privilege(ty_fcinfo *fc)
{
	return public_usage(fc, usage_privs, type_exists);
}
static ty_datum f_has_language_privilege(ty_fcinfo *fc)
{
	return public_usage(fc, usage_privs, lang_exists);
}
static ty_datum f_has_tablespace_privilege(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_snap *cs = snap(s);
	priv_args a;
	split_args(fc, cs, s, 1, &a);
	bool grant;
	parse_privs(a.priv, tablespace_privs, &grant);
	if (!tablespace_exists(s, a.obj, a.objtype))
		return ty_null();
	return ty_bool(is_superuser(cs, a.user));
}

/* The ACL model (column privileges, INHERIT, admin option) lives in
 * privilege.c. */
static ty_datum f_pg_has_role(ty_fcinfo *fc) { return sql_acl_fn_pg_has_role(fc); }

/* acldefault(objtype, owner): PostgreSQL's built-in privileges of an
 * object kind, as aclitem[] (pg_dump compares ACLs against them). */
static ty_datum f_acldefault(ty_fcinfo *fc)
{
	sql_session *s = sess();
	cat_snap *cs = snap(s);
	char kind = (char)fc->args[0].i;
	cat_oid owner = (cat_oid)fc->args[1].i;
	const char *own, *pub = NULL;
	switch (kind) {
	case 'c':
		own = NULL;
		break; /* columns: nothing by default */
	case 'r':
		own = "arwdDxt";
		break;
	case 's':
		own = "rwU";
		break;
	case 'd':
		own = "CTc", pub = "Tc";
		break;
	case 'f':
		own = "X", pub = "X";
		break;
	case 'l':
		own = "U", pub = "U";
		break;
	case 'L':
		own = "rw";
		break;
	case 'n':
		own = "UC";
		break;
	case 't':
		own = "C";
		break;
	case 'F':
	case 'S':
		own = "U";
		break;
	case 'T':
		own = "U", pub = "U";
		break;
	case 'p':
		own = NULL;
		break;
	default:
		ty_error(UTIL_E_INTERNAL_ERROR, "unrecognized object type abbreviation: %c", kind);
	}
	util_buf b = UTIL_BUF_INIT;
	ty_datum items[2];
	int n = 0;
	const char *oname = sql_role_name(cs, owner);
	if (pub) {
		util_buf_reset(&b);
		util_buf_printf(&b, "=%s/", pub);
		if (oname)
			sql_quote_identifier(oname, &b);
		else
			util_buf_printf(&b, "%u", owner);
		items[n++] = ty_textn(b.data, b.len);
	}
	if (own) {
		util_buf_reset(&b);
		if (oname)
			sql_quote_identifier(oname, &b);
		else
			util_buf_printf(&b, "%u", owner);
		util_buf_printf(&b, "=%s/", own);
		if (oname)
			sql_quote_identifier(oname, &b);
		else
			util_buf_printf(&b, "%u", owner);
		items[n++] = ty_textn(b.data, b.len);
	}
	util_buf_free(&b);
	return ty_array_from_list(TY_ACLITEM, n, items);
}

/* Each function comes in the (object, privilege) form and the
 * (user, object, privilege) forms with names and oids. */
#define PRIV3(fname, fnp, textt, objt, o1, o2, o3, o4, o5, o6)                                               \
	{.name = fname,                                                                                      \
	 .nargs = 3,                                                                                         \
	 .args = {TY_NAME, textt, TY_TEXT},                                                                  \
	 .ret = TY_BOOL,                                                                                     \
	 .fn = fnp,                                                                                          \
	 .volatility = TY_STABLE,                                                                            \
	 .strict = true,                                                                                     \
	 .kind = 'f',                                                                                        \
	 .oid = o1},                                                                                         \
	    {.name = fname,                                                                                  \
	     .nargs = 3,                                                                                     \
	     .args = {TY_NAME, objt, TY_TEXT},                                                               \
	     .ret = TY_BOOL,                                                                                 \
	     .fn = fnp,                                                                                      \
	     .volatility = TY_STABLE,                                                                        \
	     .strict = true,                                                                                 \
	     .kind = 'f',                                                                                    \
	     .oid = o2},                                                                                     \
	    {.name = fname,                                                                                  \
	     .nargs = 3,                                                                                     \
	     .args = {TY_OID, textt, TY_TEXT},                                                               \
	     .ret = TY_BOOL,                                                                                 \
	     .fn = fnp,                                                                                      \
	     .volatility = TY_STABLE,                                                                        \
	     .strict = true,                                                                                 \
	     .kind = 'f',                                                                                    \
	     .oid = o3},                                                                                     \
	    {.name = fname,                                                                                  \
	     .nargs = 3,                                                                                     \
	     .args = {TY_OID, objt, TY_TEXT},                                                                \
	     .ret = TY_BOOL,                                                                                 \
	     .fn = fnp,                                                                                      \
	     .volatility = TY_STABLE,                                                                        \
	     .strict = true,                                                                                 \
	     .kind = 'f',                                                                                    \
	     .oid = o4},                                                                                     \
	    {.name = fname,                                                                                  \
	     .nargs = 2,                                                                                     \
	     .args = {textt, TY_TEXT},                                                                       \
	     .ret = TY_BOOL,                                                                                 \
	     .fn = fnp,                                                                                      \
	     .volatility = TY_STABLE,                                                                        \
	     .strict = true,                                                                                 \
	     .kind = 'f',                                                                                    \
	     .oid = o5},                                                                                     \
	{                                                                                                    \
		.name = fname, .nargs = 2, .args = {objt, TY_TEXT}, .ret = TY_BOOL, .fn = fnp,               \
		.volatility = TY_STABLE, .strict = true, .kind = 'f', .oid = o6                              \
	}

#define COLPRIV(a0, a1, a2, o)                                                                               \
	{                                                                                                    \
		.name = "has_column_privilege", .nargs = 4, .args = {a0, a1, a2, TY_TEXT}, .ret = TY_BOOL,   \
		.fn = f_has_column_privilege, .volatility = TY_STABLE, .strict = true, .kind = 'f', .oid = o \
	}
#define COLPRIV2(a1, a2, o)                                                                                  \
	{                                                                                                    \
		.name = "has_column_privilege", .nargs = 3, .args = {a1, a2, TY_TEXT}, .ret = TY_BOOL,       \
		.fn = f_has_column_privilege, .volatility = TY_STABLE, .strict = true, .kind = 'f', .oid = o \
	}

static const ty_func funcs[] = {
    {.name = "acldefault",
     .nargs = 2,
     .args = {TY_CHAR, TY_OID},
     .ret = TY_ACLITEM_ARRAY,
     .fn = f_acldefault,
     .volatility = TY_IMMUTABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "acldefault_sql",
     .oid = 3943},
    PRIV3("has_table_privilege", f_has_table_privilege, TY_TEXT, TY_OID, 1922, 1923, 1924, 1925, 1926, 1927),
    PRIV3("has_sequence_privilege", f_has_sequence_privilege, TY_TEXT, TY_OID, 2181, 2182, 2183, 2184, 2185,
	  2186),
    PRIV3("has_any_column_privilege", f_has_any_column_privilege, TY_TEXT, TY_OID, 3024, 3025, 3026, 3027,
	  3028, 3029),
    PRIV3("has_database_privilege", f_has_database_privilege, TY_TEXT, TY_OID, 2250, 2251, 2252, 2253, 2254,
	  2255),
    PRIV3("has_function_privilege", f_has_function_privilege, TY_TEXT, TY_OID, 2256, 2257, 2258, 2259, 2260,
	  2261),
    PRIV3("has_language_privilege", f_has_language_privilege, TY_TEXT, TY_OID, 2262, 2263, 2264, 2265, 2266,
	  2267),
    PRIV3("has_schema_privilege", f_has_schema_privilege, TY_TEXT, TY_OID, 2268, 2269, 2270, 2271, 2272,
	  2273),
    PRIV3("has_tablespace_privilege", f_has_tablespace_privilege, TY_TEXT, TY_OID, 2390, 2391, 2392, 2393,
	  2394, 2395),
    PRIV3("has_type_privilege", f_has_type_privilege, TY_TEXT, TY_OID, 3138, 3139, 3140, 3141, 3142, 3143),
    PRIV3("pg_has_role", f_pg_has_role, TY_NAME, TY_OID, 2705, 2706, 2707, 2708, 2709, 2710),
    COLPRIV(TY_NAME, TY_TEXT, TY_TEXT, 3012),
    COLPRIV(TY_NAME, TY_TEXT, TY_INT2, 3013),
    COLPRIV(TY_NAME, TY_OID, TY_TEXT, 3014),
    COLPRIV(TY_NAME, TY_OID, TY_INT2, 3015),
    COLPRIV(TY_OID, TY_TEXT, TY_TEXT, 3016),
    COLPRIV(TY_OID, TY_TEXT, TY_INT2, 3017),
    COLPRIV(TY_OID, TY_OID, TY_TEXT, 3018),
    COLPRIV(TY_OID, TY_OID, TY_INT2, 3019),
    COLPRIV2(TY_TEXT, TY_TEXT, 3020),
    COLPRIV2(TY_TEXT, TY_INT2, 3021),
    COLPRIV2(TY_OID, TY_TEXT, 3022),
    COLPRIV2(TY_OID, TY_INT2, 3023),
};

void sql_register_privilege_functions(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
