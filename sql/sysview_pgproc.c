/*
 * sysview_pgproc.c — pg_catalog relations generated from the type
 * registry (types.h): pg_proc (functions and aggregates), pg_aggregate,
 * pg_operator, pg_cast, and the access-method side of the catalog:
 * pg_am, pg_opclass, pg_opfamily, pg_language, pg_collation. Oids are
 * PostgreSQL's (the registry carries them); pg_cast rows, which have none
 * in the registry, are numbered in registration order from 10000.
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

#define T  TY_TEXT
#define N  TY_NAME
#define O  TY_OID
#define B  TY_BOOL
#define I2 TY_INT2
#define I4 TY_INT4
#define F4 TY_FLOAT4
#define C  TY_CHAR
#define RP TY_REGPROC
#define NT TY_PG_NODE_TREE

#define LANG_INTERNAL 12
#define AM_HEAP       2
#define AM_BTREE      403

/* ---- pg_proc ---- */

static const sql_syscol proc_cols[] = {
    {"oid", O},
    {"proname", N},
    {"pronamespace", O},
    {"proowner", O},
    {"prolang", O},
    {"procost", F4},
    {"prorows", F4},
    {"provariadic", O},
    {"prosupport", RP},
    {"prokind", C},
    {"prosecdef", B},
    {"proleakproof", B},
    {"proisstrict", B},
    {"proretset", B},
    {"provolatile", C},
    {"proparallel", C},
    {"pronargs", I2},
    {"pronargdefaults", I2},
    {"prorettype", O},
    {"proargtypes", TY_OIDVECTOR},
    {"proallargtypes", TY_OID_ARRAY},
    {"proargmodes", TY_CHAR_ARRAY},
    {"proargnames", TY_TEXT_ARRAY},
    {"proargdefaults", NT},
    {"protrftypes", TY_OID_ARRAY},
    {"prosrc", T},
    {"probin", T},
    {"prosqlbody", NT},
    {"proconfig", TY_TEXT_ARRAY},
    {"proacl", TY_ACLITEM_ARRAY},
};
#define PROC_NCOLS 30

typedef struct proc_spec {
	ty_oid oid;
	const char *name;
	char kind;
	bool strict, retset;
	char volatility;
	int nargs, nargdefaults;
	const ty_oid *args;
	ty_oid ret, variadic;
	int nout;
	const ty_oid *outtypes;
	const char *const *outnames;
	const char *prosrc;
} proc_spec;

static void proc_row(sql_sysrows *out, const proc_spec *p)
{
	ty_datum v[PROC_NCOLS];
	for (int k = 0; k < PROC_NCOLS; k++)
		v[k] = ty_null();
	v[0] = sql_d_oid(p->oid);
	v[1] = sql_d_name(p->name);
	v[2] = sql_d_oid(CAT_OID_PG_CATALOG);
	v[3] = sql_d_oid(CAT_OID_POSTGRES_ROLE);
	v[4] = sql_d_oid(LANG_INTERNAL);
	v[5] = sql_d_float(1);
	v[6] = sql_d_float(p->retset ? 1000 : 0);
	v[7] = sql_d_oid(p->variadic);
	v[8] = sql_d_oid(0);
	v[9] = sql_d_char(p->kind);
	v[10] = v[11] = sql_d_bool(false);
	v[12] = sql_d_bool(p->strict);
	v[13] = sql_d_bool(p->retset);
	v[14] = sql_d_char(p->volatility ? p->volatility : 'i');
	v[15] = sql_d_char('s');
	v[16] = sql_d_int(p->nargs);
	v[17] = sql_d_int(p->nargdefaults);
	v[18] = sql_d_oid(p->ret);
	v[19] = ty_oidvector_from(p->nargs, p->args);
	if (p->nout) {
		int n = p->nargs + p->nout;
		ty_oid *all = ty_alloc(sizeof(ty_oid) * (size_t)n);
		char *modes = ty_alloc((size_t)n);
		const char **names = ty_alloc(sizeof(char *) * (size_t)n);
		for (int i = 0; i < p->nargs; i++) {
			all[i] = p->args[i];
			modes[i] = p->variadic && i == p->nargs - 1 ? 'v' : 'i';
			names[i] = "";
		}
		for (int i = 0; i < p->nout; i++) {
			all[p->nargs + i] = p->outtypes[i];
			modes[p->nargs + i] = 'o';
			names[p->nargs + i] = p->outnames ? p->outnames[i] : "";
		}
		v[20] = sql_d_oid_array(n, all);
		v[21] = sql_d_char_array(n, modes);
		v[22] = sql_d_text_array(n, names);
	}
	v[25] = sql_d_text(p->prosrc ? p->prosrc : p->name);
	sql_sysrows_add(out, v);
}

static void gen_proc(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_func *f = ty_func_nth(i);
		if (!f)
			break;
		proc_spec p = {ty_func_oid(f), f->name,         f->kind ? f->kind : 'f',
			       f->strict,      f->retset,       f->volatility,
			       f->nargs,       f->nargdefaults, f->args,
			       f->ret,         f->variadic,     f->nout,
			       f->outtypes,    f->outnames,     f->prosrc};
		if (p.kind == 'a' && ty_agg_by_oid(p.oid))
			continue; /* listed from the aggregate below */
		proc_row(out, &p);
	}
	for (int i = 0;; i++) {
		const ty_agg *a = ty_agg_nth(i);
		if (!a)
			break;
		proc_spec p = {a->oid,  a->name, 'a', false, false, TY_IMMUTABLE, a->nargs,         0,
			       a->args, a->ret,  0,   0,     NULL,  NULL,         "aggregate_dummy"};
		proc_row(out, &p);
	}
}

/* ---- pg_aggregate ---- */

static const sql_syscol agg_cols[] = {
    {"aggfnoid", RP},      {"aggkind", C},         {"aggnumdirectargs", I2}, {"aggtransfn", RP},
    {"aggfinalfn", RP},    {"aggcombinefn", RP},   {"aggserialfn", RP},      {"aggdeserialfn", RP},
    {"aggmtransfn", RP},   {"aggminvtransfn", RP}, {"aggmfinalfn", RP},      {"aggfinalextra", B},
    {"aggmfinalextra", B}, {"aggfinalmodify", C},  {"aggmfinalmodify", C},   {"aggsortop", O},
    {"aggtranstype", O},   {"aggtransspace", I4},  {"aggmtranstype", O},     {"aggmtransspace", I4},
    {"agginitval", T},     {"aggminitval", T},
};

static void gen_aggregate(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_agg *a = ty_agg_nth(i);
		if (!a)
			break;
		ty_datum v[22];
		for (int k = 0; k < 22; k++)
			v[k] = ty_null();
		v[0] = sql_d_oid(a->oid);
		v[1] = sql_d_char(a->ordered_set ? 'o' : 'n');
		v[2] = sql_d_int(a->ndirect);
		for (int k = 3; k <= 10; k++)
			v[k] = sql_d_oid(0);
		v[11] = v[12] = sql_d_bool(false);
		v[13] = v[14] = sql_d_char('r');
		v[15] = sql_d_oid(0);
		v[16] = sql_d_oid(TY_INTERNAL);
		v[17] = sql_d_int((int64_t)a->state_size);
		v[18] = sql_d_oid(0);
		v[19] = sql_d_int(0);
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_operator ---- */

static const sql_syscol oper_cols[] = {
    {"oid", O},         {"oprname", N},    {"oprnamespace", O}, {"oprowner", O}, {"oprkind", C},
    {"oprcanmerge", B}, {"oprcanhash", B}, {"oprleft", O},      {"oprright", O}, {"oprresult", O},
    {"oprcom", O},      {"oprnegate", O},  {"oprcode", RP},     {"oprrest", RP}, {"oprjoin", RP},
};

/* The operator named name on (l, r), or 0. */
static cat_oid oper_oid(const char *name, ty_oid l, ty_oid r)
{
	if (!name)
		return 0;
	int cur = 0;
	const ty_operator *op;
	while ((op = ty_operator_lookup(name, &cur)))
		if (op->left == l && op->right == r)
			return op->oid;
	return 0;
}

static void gen_operator(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_operator *op = ty_operator_nth(i);
		if (!op)
			break;
		const ty_func *f = ty_operator_func(op);
		bool eq = !strcmp(op->name, "=");
		const ty_type *lt = ty_type_get(op->left);
		ty_datum v[15] = {sql_d_oid(op->oid),
				  sql_d_name(op->name),
				  sql_d_oid(CAT_OID_PG_CATALOG),
				  sql_d_oid(CAT_OID_POSTGRES_ROLE),
				  sql_d_char(op->left ? 'b' : 'l'),
				  sql_d_bool(eq && op->left == op->right && lt && lt->cmp),
				  sql_d_bool(eq && op->left == op->right && lt && lt->hash),
				  sql_d_oid(op->left),
				  sql_d_oid(op->right),
				  sql_d_oid(op->result),
				  sql_d_oid(oper_oid(op->commutator, op->right, op->left)),
				  sql_d_oid(oper_oid(op->negator, op->left, op->right)),
				  sql_d_oid(f ? ty_func_oid(f) : 0),
				  sql_d_oid(0),
				  sql_d_oid(0)};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_cast ---- */

static const sql_syscol cast_cols[] = {{"oid", O},      {"castsource", O},  {"casttarget", O},
				       {"castfunc", O}, {"castcontext", C}, {"castmethod", C}};

static cat_oid cast_func_oid(const ty_cast *c)
{
	if (!c->func || c->method != 'f')
		return 0;
	int cur = 0;
	const ty_func *f, *any = NULL;
	while ((f = ty_func_lookup(c->func, &cur))) {
		if (f->nargs < 1)
			continue;
		if (f->args[0] == c->source)
			return ty_func_oid(f);
		if (!any)
			any = f;
	}
	return any ? ty_func_oid(any) : 0;
}

#define CAST_OID_BASE 10000

static void gen_cast(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (int i = 0;; i++) {
		const ty_cast *c = ty_cast_nth(i);
		if (!c)
			break;
		if (ty_cast_lookup(c->source, c->target) != c)
			continue; /* registered again later: the later entry is the one used */
		ty_datum v[6] = {
		    sql_d_oid(CAST_OID_BASE + (cat_oid)i), sql_d_oid(c->source),   sql_d_oid(c->target),
		    sql_d_oid(cast_func_oid(c)),           sql_d_char(c->context), sql_d_char(c->method)};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_am, pg_opclass, pg_opfamily ---- */

static const sql_syscol am_cols[] = {{"oid", O}, {"amname", N}, {"amhandler", RP}, {"amtype", C}};

static void gen_am(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	/* Strata stores tables its own way and has btree-ordered indexes: the
	 * two access methods PostgreSQL would report for them. */
	ty_datum heap[4] = {sql_d_oid(AM_HEAP), sql_d_name("heap"), sql_d_oid(3), sql_d_char('t')};
	ty_datum btree[4] = {sql_d_oid(AM_BTREE), sql_d_name("btree"), sql_d_oid(330), sql_d_char('i')};
	sql_sysrows_add(out, heap);
	sql_sysrows_add(out, btree);
}

/* PostgreSQL 15's default btree operator classes and their families. */
static const struct {
	cat_oid oid;
	const char *name;
	cat_oid family;
	ty_oid type;
} opclasses[] = {
    {1978, "int4_ops", 1976, TY_INT4},
    {1979, "int2_ops", 1976, TY_INT2},
    {1981, "oid_ops", 1989, TY_OID},
    {3122, "date_ops", 434, TY_DATE},
    {3123, "float8_ops", 1970, TY_FLOAT8},
    {3124, "int8_ops", 1976, TY_INT8},
    {3125, "numeric_ops", 1988, TY_NUMERIC},
    {3126, "text_ops", 1994, TY_TEXT},
    {3127, "timestamptz_ops", 434, TY_TIMESTAMPTZ},
    {3128, "timestamp_ops", 434, TY_TIMESTAMP},
    {10000, "array_ops", 397, TY_ANYARRAY},
    {10002, "bit_ops", 423, TY_BIT},
    {10003, "bool_ops", 424, TY_BOOL},
    {10004, "bpchar_ops", 426, TY_BPCHAR},
    {10006, "bytea_ops", 428, TY_BYTEA},
    {10007, "char_ops", 429, TY_CHAR},
    {10012, "float4_ops", 1970, TY_FLOAT4},
    {10015, "inet_ops", 1974, TY_INET},
    {10022, "interval_ops", 1982, TY_INTERVAL},
    {10028, "name_ops", 1994, TY_NAME},
    {10032, "oidvector_ops", 1991, TY_OIDVECTOR},
    {10038, "time_ops", 1996, TY_TIME},
    {10041, "timetz_ops", 2000, TY_TIMETZ},
    {10043, "varbit_ops", 2002, TY_VARBIT},
    {10047, "money_ops", 2099, TY_MONEY},
    {10050, "tid_ops", 2789, TY_TID},
    {10053, "xid8_ops", 5067, TY_XID8},
    {10065, "uuid_ops", 2968, TY_UUID},
    {10067, "pg_lsn_ops", 3253, TY_PG_LSN},
    {10069, "enum_ops", 3522, TY_ANYENUM},
    {10088, "jsonb_ops", 4033, TY_JSONB},
};

static const struct {
	cat_oid oid;
	const char *name;
} opfamilies[] = {
    {397, "array_ops"},    {423, "bit_ops"},        {424, "bool_ops"},      {426, "bpchar_ops"},
    {428, "bytea_ops"},    {429, "char_ops"},       {434, "datetime_ops"},  {1970, "float_ops"},
    {1974, "network_ops"}, {1976, "integer_ops"},   {1982, "interval_ops"}, {1988, "numeric_ops"},
    {1989, "oid_ops"},     {1991, "oidvector_ops"}, {1994, "text_ops"},     {1996, "time_ops"},
    {2000, "timetz_ops"},  {2002, "varbit_ops"},    {2099, "money_ops"},    {2789, "tid_ops"},
    {2968, "uuid_ops"},    {3253, "pg_lsn_ops"},    {3522, "enum_ops"},     {4033, "jsonb_ops"},
    {5067, "xid8_ops"},
};

cat_oid sql_default_opclass(ty_oid type)
{
	if (type == TY_VARCHAR)
		type = TY_TEXT; /* varchar uses text_ops */
	for (size_t i = 0; i < UTIL_ARRAY_LEN(opclasses); i++)
		if (opclasses[i].type == type)
			return opclasses[i].oid;
	const ty_type *t = ty_type_get(type);
	if (t && t->category == 'A' && type != TY_INT2VECTOR && type != TY_OIDVECTOR)
		return 10000; /* array_ops */
	return 0;
}

const char *sql_opclass_name(cat_oid oid)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(opclasses); i++)
		if (opclasses[i].oid == oid)
			return opclasses[i].name;
	return NULL;
}

static const sql_syscol opclass_cols[] = {{"oid", O},          {"opcmethod", O},  {"opcname", N},
					  {"opcnamespace", O}, {"opcowner", O},   {"opcfamily", O},
					  {"opcintype", O},    {"opcdefault", B}, {"opckeytype", O}};

static void gen_opclass(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(opclasses); i++) {
		if (!ty_type_get(opclasses[i].type))
			continue;
		ty_datum v[9] = {sql_d_oid(opclasses[i].oid),
				 sql_d_oid(AM_BTREE),
				 sql_d_name(opclasses[i].name),
				 sql_d_oid(CAT_OID_PG_CATALOG),
				 sql_d_oid(CAT_OID_POSTGRES_ROLE),
				 sql_d_oid(opclasses[i].family),
				 sql_d_oid(opclasses[i].type),
				 sql_d_bool(true),
				 sql_d_oid(0)};
		sql_sysrows_add(out, v);
	}
}

static const sql_syscol opfamily_cols[] = {
    {"oid", O}, {"opfmethod", O}, {"opfname", N}, {"opfnamespace", O}, {"opfowner", O}};

static void gen_opfamily(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(opfamilies); i++) {
		ty_datum v[5] = {sql_d_oid(opfamilies[i].oid), sql_d_oid(AM_BTREE),
				 sql_d_name(opfamilies[i].name), sql_d_oid(CAT_OID_PG_CATALOG),
				 sql_d_oid(CAT_OID_POSTGRES_ROLE)};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_language ---- */

static const sql_syscol lang_cols[] = {{"oid", O},       {"lanname", N},      {"lanowner", O},
				       {"lanispl", B},   {"lanpltrusted", B}, {"lanplcallfoid", O},
				       {"laninline", O}, {"lanvalidator", O}, {"lanacl", TY_ACLITEM_ARRAY}};

static void gen_language(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	static const struct {
		cat_oid oid;
		const char *name;
		bool trusted;
		cat_oid validator;
	} langs[] = {{12, "internal", false, 2246}, {13, "c", false, 2247}, {14, "sql", true, 2248}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(langs); i++) {
		ty_datum v[9] = {sql_d_oid(langs[i].oid),
				 sql_d_name(langs[i].name),
				 sql_d_oid(CAT_OID_POSTGRES_ROLE),
				 sql_d_bool(false),
				 sql_d_bool(langs[i].trusted),
				 sql_d_oid(0),
				 sql_d_oid(0),
				 sql_d_oid(langs[i].validator),
				 ty_null()};
		sql_sysrows_add(out, v);
	}
}

/* ---- pg_collation ---- */

static const sql_syscol coll_cols[] = {{"oid", O},           {"collname", N},     {"collnamespace", O},
				       {"collowner", O},     {"collprovider", C}, {"collisdeterministic", B},
				       {"collencoding", I4}, {"collcollate", T},  {"collctype", T},
				       {"colliculocale", T}, {"collversion", T}};

static void gen_collation(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	static const struct {
		cat_oid oid;
		const char *name;
		char provider;
		const char *locale;
	} colls[] = {{100, "default", 'd', NULL}, {950, "C", 'c', "C"}, {951, "POSIX", 'c', "POSIX"}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(colls); i++) {
		ty_datum v[11] = {sql_d_oid(colls[i].oid),
				  sql_d_name(colls[i].name),
				  sql_d_oid(CAT_OID_PG_CATALOG),
				  sql_d_oid(CAT_OID_POSTGRES_ROLE),
				  sql_d_char(colls[i].provider),
				  sql_d_bool(true),
				  sql_d_int(-1),
				  sql_d_text(colls[i].locale),
				  sql_d_text(colls[i].locale),
				  ty_null(),
				  ty_null()};
		sql_sysrows_add(out, v);
	}
}

static const sql_sysview proc_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_proc", 1255, 'r', proc_cols, gen_proc),
    SQL_SYSVIEW("pg_catalog", "pg_aggregate", 2600, 'r', agg_cols, gen_aggregate),
    SQL_SYSVIEW("pg_catalog", "pg_operator", 2617, 'r', oper_cols, gen_operator),
    SQL_SYSVIEW("pg_catalog", "pg_cast", 2605, 'r', cast_cols, gen_cast),
    SQL_SYSVIEW("pg_catalog", "pg_am", 2601, 'r', am_cols, gen_am),
    SQL_SYSVIEW("pg_catalog", "pg_opclass", 2616, 'r', opclass_cols, gen_opclass),
    SQL_SYSVIEW("pg_catalog", "pg_opfamily", 2753, 'r', opfamily_cols, gen_opfamily),
    SQL_SYSVIEW("pg_catalog", "pg_language", 2612, 'r', lang_cols, gen_language),
    SQL_SYSVIEW("pg_catalog", "pg_collation", 3456, 'r', coll_cols, gen_collation),
};

void sql_sysviews_proc_init(void)
{
	sql_sysview_register(proc_views, (int)UTIL_ARRAY_LEN(proc_views));
}
