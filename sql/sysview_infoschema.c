/*
 * sysview_infoschema.c — information_schema, generated from the catalog
 * with PostgreSQL 15's column sets and rules (the SQL-standard type names
 * of information_schema.columns, NOT NULL columns listed as CHECK
 * constraints, privileges expanded from ACLs with the owner's defaults).
 * PostgreSQL types these columns with domains (sql_identifier,
 * cardinal_number, character_data, yes_or_no, time_stamp); clients see
 * the domains' base types on the wire, which is what Strata declares.
 * Objects are listed when the current user may see them, as PostgreSQL
 * does (superusers see everything).
 */
#include <stdio.h>
#include <string.h>

#include "sysview.h"

#define OID_APPLICABLE_ROLES 13236
static const sql_syscol is_applicable_roles_cols[] = {
    {"grantee", TY_NAME}, {"role_name", TY_NAME}, {"is_grantable", TY_VARCHAR}};
#define OID_ATTRIBUTES 13245
static const sql_syscol is_attributes_cols[] = {{"udt_catalog", TY_NAME},
						{"udt_schema", TY_NAME},
						{"udt_name", TY_NAME},
						{"attribute_name", TY_NAME},
						{"ordinal_position", TY_INT4},
						{"attribute_default", TY_VARCHAR},
						{"is_nullable", TY_VARCHAR},
						{"data_type", TY_VARCHAR},
						{"character_maximum_length", TY_INT4},
						{"character_octet_length", TY_INT4},
						{"character_set_catalog", TY_NAME},
						{"character_set_schema", TY_NAME},
						{"character_set_name", TY_NAME},
						{"collation_catalog", TY_NAME},
						{"collation_schema", TY_NAME},
						{"collation_name", TY_NAME},
						{"numeric_precision", TY_INT4},
						{"numeric_precision_radix", TY_INT4},
						{"numeric_scale", TY_INT4},
						{"datetime_precision", TY_INT4},
						{"interval_type", TY_VARCHAR},
						{"interval_precision", TY_INT4},
						{"attribute_udt_catalog", TY_NAME},
						{"attribute_udt_schema", TY_NAME},
						{"attribute_udt_name", TY_NAME},
						{"scope_catalog", TY_NAME},
						{"scope_schema", TY_NAME},
						{"scope_name", TY_NAME},
						{"maximum_cardinality", TY_INT4},
						{"dtd_identifier", TY_NAME},
						{"is_derived_reference_attribute", TY_VARCHAR}};
#define OID_CHARACTER_SETS 13250
static const sql_syscol is_character_sets_cols[] = {{"character_set_catalog", TY_NAME},
						    {"character_set_schema", TY_NAME},
						    {"character_set_name", TY_NAME},
						    {"character_repertoire", TY_NAME},
						    {"form_of_use", TY_NAME},
						    {"default_collate_catalog", TY_NAME},
						    {"default_collate_schema", TY_NAME},
						    {"default_collate_name", TY_NAME}};
#define OID_CHECK_CONSTRAINTS 13260
static const sql_syscol is_check_constraints_cols[] = {{"constraint_catalog", TY_NAME},
						       {"constraint_schema", TY_NAME},
						       {"constraint_name", TY_NAME},
						       {"check_clause", TY_VARCHAR}};
#define OID_COLLATIONS 13265
static const sql_syscol is_collations_cols[] = {{"collation_catalog", TY_NAME},
						{"collation_schema", TY_NAME},
						{"collation_name", TY_NAME},
						{"pad_attribute", TY_VARCHAR}};
#define OID_COLUMNS 13295
static const sql_syscol is_columns_cols[] = {{"table_catalog", TY_NAME},
					     {"table_schema", TY_NAME},
					     {"table_name", TY_NAME},
					     {"column_name", TY_NAME},
					     {"ordinal_position", TY_INT4},
					     {"column_default", TY_VARCHAR},
					     {"is_nullable", TY_VARCHAR},
					     {"data_type", TY_VARCHAR},
					     {"character_maximum_length", TY_INT4},
					     {"character_octet_length", TY_INT4},
					     {"numeric_precision", TY_INT4},
					     {"numeric_precision_radix", TY_INT4},
					     {"numeric_scale", TY_INT4},
					     {"datetime_precision", TY_INT4},
					     {"interval_type", TY_VARCHAR},
					     {"interval_precision", TY_INT4},
					     {"character_set_catalog", TY_NAME},
					     {"character_set_schema", TY_NAME},
					     {"character_set_name", TY_NAME},
					     {"collation_catalog", TY_NAME},
					     {"collation_schema", TY_NAME},
					     {"collation_name", TY_NAME},
					     {"domain_catalog", TY_NAME},
					     {"domain_schema", TY_NAME},
					     {"domain_name", TY_NAME},
					     {"udt_catalog", TY_NAME},
					     {"udt_schema", TY_NAME},
					     {"udt_name", TY_NAME},
					     {"scope_catalog", TY_NAME},
					     {"scope_schema", TY_NAME},
					     {"scope_name", TY_NAME},
					     {"maximum_cardinality", TY_INT4},
					     {"dtd_identifier", TY_NAME},
					     {"is_self_referencing", TY_VARCHAR},
					     {"is_identity", TY_VARCHAR},
					     {"identity_generation", TY_VARCHAR},
					     {"identity_start", TY_VARCHAR},
					     {"identity_increment", TY_VARCHAR},
					     {"identity_maximum", TY_VARCHAR},
					     {"identity_minimum", TY_VARCHAR},
					     {"identity_cycle", TY_VARCHAR},
					     {"is_generated", TY_VARCHAR},
					     {"generation_expression", TY_VARCHAR},
					     {"is_updatable", TY_VARCHAR}};
#define OID_CONSTRAINT_COLUMN_USAGE 13300
static const sql_syscol is_constraint_column_usage_cols[] = {
    {"table_catalog", TY_NAME},  {"table_schema", TY_NAME},       {"table_name", TY_NAME},
    {"column_name", TY_NAME},    {"constraint_catalog", TY_NAME}, {"constraint_schema", TY_NAME},
    {"constraint_name", TY_NAME}};
#define OID_CONSTRAINT_TABLE_USAGE 13305
static const sql_syscol is_constraint_table_usage_cols[] = {
    {"table_catalog", TY_NAME},      {"table_schema", TY_NAME},      {"table_name", TY_NAME},
    {"constraint_catalog", TY_NAME}, {"constraint_schema", TY_NAME}, {"constraint_name", TY_NAME}};
#define OID_DOMAIN_CONSTRAINTS 13310
static const sql_syscol is_domain_constraints_cols[] = {
    {"constraint_catalog", TY_NAME}, {"constraint_schema", TY_NAME},    {"constraint_name", TY_NAME},
    {"domain_catalog", TY_NAME},     {"domain_schema", TY_NAME},        {"domain_name", TY_NAME},
    {"is_deferrable", TY_VARCHAR},   {"initially_deferred", TY_VARCHAR}};
#define OID_DOMAINS 13320
static const sql_syscol is_domains_cols[] = {{"domain_catalog", TY_NAME},
					     {"domain_schema", TY_NAME},
					     {"domain_name", TY_NAME},
					     {"data_type", TY_VARCHAR},
					     {"character_maximum_length", TY_INT4},
					     {"character_octet_length", TY_INT4},
					     {"character_set_catalog", TY_NAME},
					     {"character_set_schema", TY_NAME},
					     {"character_set_name", TY_NAME},
					     {"collation_catalog", TY_NAME},
					     {"collation_schema", TY_NAME},
					     {"collation_name", TY_NAME},
					     {"numeric_precision", TY_INT4},
					     {"numeric_precision_radix", TY_INT4},
					     {"numeric_scale", TY_INT4},
					     {"datetime_precision", TY_INT4},
					     {"interval_type", TY_VARCHAR},
					     {"interval_precision", TY_INT4},
					     {"domain_default", TY_VARCHAR},
					     {"udt_catalog", TY_NAME},
					     {"udt_schema", TY_NAME},
					     {"udt_name", TY_NAME},
					     {"scope_catalog", TY_NAME},
					     {"scope_schema", TY_NAME},
					     {"scope_name", TY_NAME},
					     {"maximum_cardinality", TY_INT4},
					     {"dtd_identifier", TY_NAME}};
#define OID_ENABLED_ROLES 13325
static const sql_syscol is_enabled_roles_cols[] = {{"role_name", TY_NAME}};
#define OID_INFORMATION_SCHEMA_CATALOG_NAME 13227
static const sql_syscol is_information_schema_catalog_name_cols[] = {{"catalog_name", TY_NAME}};
#define OID_KEY_COLUMN_USAGE 13329
static const sql_syscol is_key_column_usage_cols[] = {{"constraint_catalog", TY_NAME},
						      {"constraint_schema", TY_NAME},
						      {"constraint_name", TY_NAME},
						      {"table_catalog", TY_NAME},
						      {"table_schema", TY_NAME},
						      {"table_name", TY_NAME},
						      {"column_name", TY_NAME},
						      {"ordinal_position", TY_INT4},
						      {"position_in_unique_constraint", TY_INT4}};
#define OID_REFERENTIAL_CONSTRAINTS 13339
static const sql_syscol is_referential_constraints_cols[] = {{"constraint_catalog", TY_NAME},
							     {"constraint_schema", TY_NAME},
							     {"constraint_name", TY_NAME},
							     {"unique_constraint_catalog", TY_NAME},
							     {"unique_constraint_schema", TY_NAME},
							     {"unique_constraint_name", TY_NAME},
							     {"match_option", TY_VARCHAR},
							     {"update_rule", TY_VARCHAR},
							     {"delete_rule", TY_VARCHAR}};
#define OID_ROLE_TABLE_GRANTS 13421
static const sql_syscol is_role_table_grants_cols[] = {
    {"grantor", TY_NAME},         {"grantee", TY_NAME},          {"table_catalog", TY_NAME},
    {"table_schema", TY_NAME},    {"table_name", TY_NAME},       {"privilege_type", TY_VARCHAR},
    {"is_grantable", TY_VARCHAR}, {"with_hierarchy", TY_VARCHAR}};
#define OID_SCHEMATA 13382
static const sql_syscol is_schemata_cols[] = {{"catalog_name", TY_NAME},
					      {"schema_name", TY_NAME},
					      {"schema_owner", TY_NAME},
					      {"default_character_set_catalog", TY_NAME},
					      {"default_character_set_schema", TY_NAME},
					      {"default_character_set_name", TY_NAME},
					      {"sql_path", TY_VARCHAR}};
#define OID_SEQUENCES 13386
static const sql_syscol is_sequences_cols[] = {
    {"sequence_catalog", TY_NAME}, {"sequence_schema", TY_NAME},   {"sequence_name", TY_NAME},
    {"data_type", TY_VARCHAR},     {"numeric_precision", TY_INT4}, {"numeric_precision_radix", TY_INT4},
    {"numeric_scale", TY_INT4},    {"start_value", TY_VARCHAR},    {"minimum_value", TY_VARCHAR},
    {"maximum_value", TY_VARCHAR}, {"increment", TY_VARCHAR},      {"cycle_option", TY_VARCHAR}};
#define OID_TABLE_CONSTRAINTS 13411
static const sql_syscol is_table_constraints_cols[] = {
    {"constraint_catalog", TY_NAME}, {"constraint_schema", TY_NAME}, {"constraint_name", TY_NAME},
    {"table_catalog", TY_NAME},      {"table_schema", TY_NAME},      {"table_name", TY_NAME},
    {"constraint_type", TY_VARCHAR}, {"is_deferrable", TY_VARCHAR},  {"initially_deferred", TY_VARCHAR},
    {"enforced", TY_VARCHAR},        {"nulls_distinct", TY_VARCHAR}};
#define OID_TABLE_PRIVILEGES 13416
static const sql_syscol is_table_privileges_cols[] = {
    {"grantor", TY_NAME},         {"grantee", TY_NAME},          {"table_catalog", TY_NAME},
    {"table_schema", TY_NAME},    {"table_name", TY_NAME},       {"privilege_type", TY_VARCHAR},
    {"is_grantable", TY_VARCHAR}, {"with_hierarchy", TY_VARCHAR}};
#define OID_TABLES 13425
static const sql_syscol is_tables_cols[] = {{"table_catalog", TY_NAME},
					    {"table_schema", TY_NAME},
					    {"table_name", TY_NAME},
					    {"table_type", TY_VARCHAR},
					    {"self_referencing_column_name", TY_NAME},
					    {"reference_generation", TY_VARCHAR},
					    {"user_defined_type_catalog", TY_NAME},
					    {"user_defined_type_schema", TY_NAME},
					    {"user_defined_type_name", TY_NAME},
					    {"is_insertable_into", TY_VARCHAR},
					    {"is_typed", TY_VARCHAR},
					    {"commit_action", TY_VARCHAR}};
#define OID_TRIGGERS 13440
static const sql_syscol is_triggers_cols[] = {{"trigger_catalog", TY_NAME},
					      {"trigger_schema", TY_NAME},
					      {"trigger_name", TY_NAME},
					      {"event_manipulation", TY_VARCHAR},
					      {"event_object_catalog", TY_NAME},
					      {"event_object_schema", TY_NAME},
					      {"event_object_table", TY_NAME},
					      {"action_order", TY_INT4},
					      {"action_condition", TY_VARCHAR},
					      {"action_statement", TY_VARCHAR},
					      {"action_orientation", TY_VARCHAR},
					      {"action_timing", TY_VARCHAR},
					      {"action_reference_old_table", TY_NAME},
					      {"action_reference_new_table", TY_NAME},
					      {"action_reference_old_row", TY_NAME},
					      {"action_reference_new_row", TY_NAME},
					      {"created", TY_TIMESTAMPTZ}};
#define OID_USER_DEFINED_TYPES 13463
static const sql_syscol is_user_defined_types_cols[] = {{"user_defined_type_catalog", TY_NAME},
							{"user_defined_type_schema", TY_NAME},
							{"user_defined_type_name", TY_NAME},
							{"user_defined_type_category", TY_VARCHAR},
							{"is_instantiable", TY_VARCHAR},
							{"is_final", TY_VARCHAR},
							{"ordering_form", TY_VARCHAR},
							{"ordering_category", TY_VARCHAR},
							{"ordering_routine_catalog", TY_NAME},
							{"ordering_routine_schema", TY_NAME},
							{"ordering_routine_name", TY_NAME},
							{"reference_type", TY_VARCHAR},
							{"data_type", TY_VARCHAR},
							{"character_maximum_length", TY_INT4},
							{"character_octet_length", TY_INT4},
							{"character_set_catalog", TY_NAME},
							{"character_set_schema", TY_NAME},
							{"character_set_name", TY_NAME},
							{"collation_catalog", TY_NAME},
							{"collation_schema", TY_NAME},
							{"collation_name", TY_NAME},
							{"numeric_precision", TY_INT4},
							{"numeric_precision_radix", TY_INT4},
							{"numeric_scale", TY_INT4},
							{"datetime_precision", TY_INT4},
							{"interval_type", TY_VARCHAR},
							{"interval_precision", TY_INT4},
							{"source_dtd_identifier", TY_NAME},
							{"ref_dtd_identifier", TY_NAME}};
#define OID_VIEW_TABLE_USAGE 13478
static const sql_syscol is_view_table_usage_cols[] = {{"view_catalog", TY_NAME}, {"view_schema", TY_NAME},
						      {"view_name", TY_NAME},    {"table_catalog", TY_NAME},
						      {"table_schema", TY_NAME}, {"table_name", TY_NAME}};
#define OID_VIEWS 13483
static const sql_syscol is_views_cols[] = {{"table_catalog", TY_NAME},
					   {"table_schema", TY_NAME},
					   {"table_name", TY_NAME},
					   {"view_definition", TY_VARCHAR},
					   {"check_option", TY_VARCHAR},
					   {"is_updatable", TY_VARCHAR},
					   {"is_insertable_into", TY_VARCHAR},
					   {"is_trigger_updatable", TY_VARCHAR},
					   {"is_trigger_deletable", TY_VARCHAR},
					   {"is_trigger_insertable_into", TY_VARCHAR}};

typedef struct gen_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} gen_ctx;

static ty_datum yes_no(bool b)
{
	return sql_d_text(b ? "YES" : "NO");
}
static ty_datum db_name(gen_ctx *g)
{
	return sql_d_name(g->s->database);
}
static const char *schema_of(gen_ctx *g, const cat_obj *o)
{
	return sql_schema_name(g->cs, o->rel.schema);
}

/* Whether the current user may see a relation (owns it or holds any
 * privilege on it, or on one of its columns). */
static bool rel_visible(gen_ctx *g, const cat_obj *o)
{
	return sql_priv_rel_any(g->s, g->cs, g->s->user_oid, o);
}

/* ---- information_schema_catalog_name ---- */

static void gen_catalog_name(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	sql_sysrow r;
	sql_sysrow_init(&r, out);
	sql_sysrow_set(&r, "catalog_name", db_name(&g));
	sql_sysrow_emit(&r, out);
}

/* ---- schemata ---- */

static int schemata_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (!sql_priv_has_role(g->cs, g->s->user_oid, o->schema.owner))
		return 0;
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "catalog_name", db_name(g));
	sql_sysrow_set(&r, "schema_name", sql_d_name(o->schema.name));
	sql_sysrow_set(&r, "schema_owner", sql_d_name(sql_role_name(g->cs, o->schema.owner)));
	sql_sysrow_emit(&r, g->out);
	return 0;
}

static void gen_schemata(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	sql_sysrow r;
	if (sql_priv_has_role(cs, s->user_oid, CAT_OID_POSTGRES_ROLE)) {
		sql_sysrow_init(&r, out);
		sql_sysrow_set(&r, "catalog_name", db_name(&g));
		sql_sysrow_set(&r, "schema_name", sql_d_name("pg_toast"));
		sql_sysrow_set(&r, "schema_owner", sql_d_name(sql_role_name(cs, CAT_OID_POSTGRES_ROLE)));
		sql_sysrow_emit(&r, out);
	}
	cat_foreach(cs, CAT_SCHEMA, s->db_oid, schemata_row, &g);
}

/* ---- tables ---- */

/* Whether a view is automatically updatable (one table, no aggregation). */
static bool view_updatable(gen_ctx *g, const cat_obj *o)
{
	cat_oid *rels;
	int n = sql_view_referenced_rels(g->s, g->cs, o, &rels);
	return n == 1 && sql_view_simple(g->s, g->cs, o);
}

static void table_row_emit(gen_ctx *g, const char *schema, const char *name, const char *type,
			   bool insertable)
{
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "table_catalog", db_name(g));
	sql_sysrow_set(&r, "table_schema", sql_d_name(schema));
	sql_sysrow_set(&r, "table_name", sql_d_name(name));
	sql_sysrow_set(&r, "table_type", sql_d_text(type));
	sql_sysrow_set(&r, "is_insertable_into", yes_no(insertable));
	sql_sysrow_set(&r, "is_typed", yes_no(false));
	sql_sysrow_emit(&r, g->out);
}

static int tables_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	char k = o->rel.relkind;
	if ((k != CAT_RELKIND_TABLE && k != CAT_RELKIND_VIEW) || !rel_visible(g, o))
		return 0;
	table_row_emit(g, schema_of(g, o), o->rel.name, k == CAT_RELKIND_TABLE ? "BASE TABLE" : "VIEW",
		       k == CAT_RELKIND_TABLE || view_updatable(g, o));
	return 0;
}

static void gen_tables(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, tables_row, &g);
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *v = sql_sysview_nth(i);
		table_row_emit(&g, v->schema, v->name, v->relkind == 'r' ? "BASE TABLE" : "VIEW", false);
	}
}

/* ---- columns ---- */

/* PostgreSQL's information_schema._pg_* helpers, by type and typmod. */
static ty_datum char_max_length(ty_oid t, int32_t tm)
{
	if ((t == TY_BPCHAR || t == TY_VARCHAR) && tm >= 0)
		return sql_d_int(tm - 4);
	if ((t == TY_BIT || t == TY_VARBIT) && tm >= 0)
		return sql_d_int(tm);
	return ty_null();
}

static ty_datum char_octet_length(ty_oid t, int32_t tm)
{
	if (t != TY_TEXT && t != TY_BPCHAR && t != TY_VARCHAR)
		return ty_null();
	if (tm < 0)
		return sql_d_int(1073741824);
	return sql_d_int((int64_t)(tm - 4) * 4); /* UTF8: up to 4 bytes per character */
}

static ty_datum numeric_precision(ty_oid t, int32_t tm)
{
	switch (t) {
	case TY_INT2:
		return sql_d_int(16);
	case TY_INT4:
		return sql_d_int(32);
	case TY_INT8:
		return sql_d_int(64);
	case TY_FLOAT4:
		return sql_d_int(24);
	case TY_FLOAT8:
		return sql_d_int(53);
	case TY_NUMERIC:
		return tm >= 0 ? sql_d_int(((tm - 4) >> 16) & 0xffff) : ty_null();
	default:
		return ty_null();
	}
}

static ty_datum numeric_radix(ty_oid t)
{
	switch (t) {
	case TY_INT2:
	case TY_INT4:
	case TY_INT8:
	case TY_FLOAT4:
	case TY_FLOAT8:
		return sql_d_int(2);
	case TY_NUMERIC:
		return sql_d_int(10);
	default:
		return ty_null();
	}
}

static ty_datum numeric_scale(ty_oid t, int32_t tm)
{
	switch (t) {
	case TY_INT2:
	case TY_INT4:
	case TY_INT8:
		return sql_d_int(0);
	case TY_NUMERIC:
		return tm >= 0 ? sql_d_int((tm - 4) & 0xffff) : ty_null();
	default:
		return ty_null();
	}
}

static ty_datum datetime_precision(ty_oid t, int32_t tm)
{
	switch (t) {
	case TY_DATE:
		return sql_d_int(0);
	case TY_TIME:
	case TY_TIMETZ:
	case TY_TIMESTAMP:
	case TY_TIMESTAMPTZ:
		return sql_d_int(tm < 0 ? 6 : tm);
	case TY_INTERVAL:
		return sql_d_int(tm < 0 || (tm & 0xffff) == 0xffff ? 6 : tm & 0xffff);
	default:
		return ty_null();
	}
}

/* interval_type: PostgreSQL's _pg_interval_type, the fields part of
 * format_type ("interval day to second(1)" -> "DAY TO SECOND(1)"). */
static ty_datum interval_type(ty_oid t, int32_t tm)
{
	if (t != TY_INTERVAL || tm < 0)
		return ty_null();
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(t, tm, &b);
	const char *p = b.data ? b.data + strlen("interval") : "";
	while (*p == '(' || *p == ')' || (*p >= '0' && *p <= '9'))
		p++;
	ty_datum d = ty_null();
	if (*p == ' ') {
		char *u = ty_strdup(p + 1);
		for (char *c = u; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		d = sql_d_text(u);
	}
	util_buf_free(&b);
	return d;
}

/* data_type: the SQL name for pg_catalog types, ARRAY for arrays. */
static ty_datum data_type_name(ty_oid type)
{
	const ty_type *t = ty_type_get(type);
	if (t && t->elem && t->len == -1)
		return sql_d_text("ARRAY");
	if (type == TY_BPCHAR)
		return sql_d_text("character"); /* format_type(oid, NULL), as PostgreSQL's view calls it */
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(type, -1, &b);
	ty_datum d = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return d;
}

typedef struct col_spec {
	const char *schema, *table;
	const char *name;
	int attnum;
	ty_oid type;
	int32_t typmod;
	bool notnull;
	const char *def;
	char identity, generated;
	const cat_sequence_info *idseq;
	bool updatable;
} col_spec;

static void column_row(gen_ctx *g, const col_spec *c)
{
	sql_sysrow r;
	char dtd[16];
	snprintf(dtd, sizeof dtd, "%d", c->attnum);
	const ty_type *t = ty_type_get(c->type);
	cat_oid coll = sql_type_collation(c->type);
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "table_catalog", db_name(g));
	sql_sysrow_set(&r, "table_schema", sql_d_name(c->schema));
	sql_sysrow_set(&r, "table_name", sql_d_name(c->table));
	sql_sysrow_set(&r, "column_name", sql_d_name(c->name));
	sql_sysrow_set(&r, "ordinal_position", sql_d_int(c->attnum));
	sql_sysrow_set(&r, "column_default", sql_d_text(c->def));
	sql_sysrow_set(&r, "is_nullable", yes_no(!c->notnull));
	sql_sysrow_set(&r, "data_type", data_type_name(c->type));
	sql_sysrow_set(&r, "character_maximum_length", char_max_length(c->type, c->typmod));
	sql_sysrow_set(&r, "character_octet_length", char_octet_length(c->type, c->typmod));
	sql_sysrow_set(&r, "numeric_precision", numeric_precision(c->type, c->typmod));
	sql_sysrow_set(&r, "numeric_precision_radix", numeric_radix(c->type));
	sql_sysrow_set(&r, "numeric_scale", numeric_scale(c->type, c->typmod));
	sql_sysrow_set(&r, "datetime_precision", datetime_precision(c->type, c->typmod));
	sql_sysrow_set(&r, "interval_type", interval_type(c->type, c->typmod));
	(void)coll;
	sql_sysrow_set(&r, "udt_catalog", db_name(g));
	sql_sysrow_set(&r, "udt_schema", sql_d_name("pg_catalog"));
	sql_sysrow_set(&r, "udt_name", sql_d_name(t ? t->name : NULL));
	sql_sysrow_set(&r, "dtd_identifier", sql_d_name(dtd));
	sql_sysrow_set(&r, "is_self_referencing", yes_no(false));
	sql_sysrow_set(&r, "is_identity", yes_no(c->identity != 0));
	if (c->identity) {
		char buf[32];
		sql_sysrow_set(&r, "identity_generation",
			       sql_d_text(c->identity == 'a' ? "ALWAYS" : "BY DEFAULT"));
		if (c->idseq) {
			snprintf(buf, sizeof buf, "%lld", (long long)c->idseq->start);
			sql_sysrow_set(&r, "identity_start", sql_d_text(buf));
			snprintf(buf, sizeof buf, "%lld", (long long)c->idseq->increment);
			sql_sysrow_set(&r, "identity_increment", sql_d_text(buf));
			snprintf(buf, sizeof buf, "%lld", (long long)c->idseq->max);
			sql_sysrow_set(&r, "identity_maximum", sql_d_text(buf));
			snprintf(buf, sizeof buf, "%lld", (long long)c->idseq->min);
			sql_sysrow_set(&r, "identity_minimum", sql_d_text(buf));
			sql_sysrow_set(&r, "identity_cycle", yes_no(c->idseq->cycle));
		}
	} else {
		sql_sysrow_set(&r, "identity_cycle", yes_no(false));
	}
	sql_sysrow_set(&r, "is_generated", sql_d_text(c->generated ? "ALWAYS" : "NEVER"));
	if (c->generated)
		sql_sysrow_set(&r, "generation_expression", sql_d_text(c->def));
	sql_sysrow_set(&r, "is_updatable", yes_no(c->updatable));
	sql_sysrow_emit(&r, g->out);
}

typedef struct seq_find {
	cat_oid table;
	int attnum;
	const cat_sequence_info *found;
} seq_find;

static int find_owned_seq(void *arg, const cat_obj *o)
{
	seq_find *f = arg;
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table == f->table &&
	    o->rel.seq->owned_by_col == f->attnum) {
		f->found = o->rel.seq;
		return 1;
	}
	return 0;
}

static int columns_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_rel *rl = &o->rel;
	if ((rl->relkind != CAT_RELKIND_TABLE && rl->relkind != CAT_RELKIND_VIEW) || !rel_visible(g, o))
		return 0;
	bool upd = rl->relkind == CAT_RELKIND_TABLE || view_updatable(g, o);
	for (int i = 0; i < rl->ncols; i++) {
		const cat_column *c = &rl->cols[i];
		if (c->dropped)
			continue;
		col_spec cs = {schema_of(g, o), rl->name, c->name,     c->attnum,    c->type, c->typmod,
			       c->notnull,      NULL,     c->identity, c->generated, NULL,    upd};
		if (sql_column_has_default(c))
			cs.def = sql_deparse_default_text(g->s, g->cs, o, i, false);
		if (c->identity) {
			seq_find f = {o->oid, c->attnum, NULL};
			cat_foreach(g->cs, CAT_REL, o->database, find_owned_seq, &f);
			cs.idseq = f.found;
		}
		column_row(g, &cs);
	}
	return 0;
}

static void gen_columns(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, columns_rows, &g);
	for (int i = 0; i < sql_sysview_count(); i++) {
		const sql_sysview *v = sql_sysview_nth(i);
		for (int c = 0; c < v->ncols; c++) {
			col_spec sp = {v->schema,
				       v->name,
				       v->cols[c].name,
				       c + 1,
				       v->cols[c].type,
				       -1,
				       false,
				       NULL,
				       0,
				       0,
				       NULL,
				       false};
			column_row(&g, &sp);
		}
	}
}

/* ---- views ---- */

static int views_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW || !rel_visible(g, o))
		return 0;
	bool upd = view_updatable(g, o);
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "table_catalog", db_name(g));
	sql_sysrow_set(&r, "table_schema", sql_d_name(schema_of(g, o)));
	sql_sysrow_set(&r, "table_name", sql_d_name(o->rel.name));
	if (sql_priv_has_role(g->cs, g->s->user_oid, o->rel.owner))
		sql_sysrow_set(&r, "view_definition",
			       sql_d_text(sql_deparse_view_text(g->s, g->cs, o, false)));
	char opt = sql_view_check_option(o);
	sql_sysrow_set(&r, "check_option",
		       sql_d_text(opt == 'c'   ? "CASCADED"
				  : opt == 'l' ? "LOCAL"
					       : "NONE"));
	sql_sysrow_set(&r, "is_updatable", yes_no(upd));
	sql_sysrow_set(&r, "is_insertable_into", yes_no(upd));
	sql_sysrow_set(&r, "is_trigger_updatable", yes_no(false));
	sql_sysrow_set(&r, "is_trigger_deletable", yes_no(false));
	sql_sysrow_set(&r, "is_trigger_insertable_into", yes_no(false));
	sql_sysrow_emit(&r, g->out);
	return 0;
}

static void gen_views(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, views_row, &g);
}

/* ---- constraints ---- */

/* A constraint of a table as information_schema reports it: catalog
 * constraints plus one CHECK per NOT NULL column. */
typedef void (*con_fn)(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *notnull);

typedef struct con_walk {
	gen_ctx *g;
	con_fn fn;
} con_walk;

static int con_visit(void *arg, const cat_obj *o)
{
	con_walk *w = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE || !rel_visible(w->g, o))
		return 0;
	for (int i = 0; i < o->rel.ncons; i++)
		if (o->rel.cons[i].type != 'n')
			w->fn(w->g, o, &o->rel.cons[i], NULL);
	for (int i = 0; i < o->rel.ncols; i++)
		if (o->rel.cols[i].notnull && !o->rel.cols[i].dropped)
			w->fn(w->g, o, NULL, &o->rel.cols[i]);
	return 0;
}

static void each_constraint(gen_ctx *g, con_fn fn)
{
	con_walk w = {g, fn};
	cat_foreach(g->cs, CAT_REL, g->s->db_oid, con_visit, &w);
}

/* PostgreSQL names NOT NULL checks "<nsp oid>_<table oid>_<attnum>_not_null". */
static const char *notnull_name(const cat_obj *t, const cat_column *c)
{
	char *n = ty_alloc(64);
	snprintf(n, 64, "%u_%u_%d_not_null", t->rel.schema, t->oid, c->attnum);
	return n;
}

static void con_names(gen_ctx *g, sql_sysrow *r, const cat_obj *t, const char *name)
{
	sql_sysrow_set(r, "constraint_catalog", db_name(g));
	sql_sysrow_set(r, "constraint_schema", sql_d_name(schema_of(g, t)));
	sql_sysrow_set(r, "constraint_name", sql_d_name(name));
}

static void table_names(gen_ctx *g, sql_sysrow *r, const cat_obj *t)
{
	sql_sysrow_set(r, "table_catalog", db_name(g));
	sql_sysrow_set(r, "table_schema", sql_d_name(t ? schema_of(g, t) : NULL));
	sql_sysrow_set(r, "table_name", sql_d_name(t ? t->rel.name : NULL));
}

static void table_constraint_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	con_names(g, &r, t, c ? c->name : notnull_name(t, nn));
	table_names(g, &r, t);
	const char *type = !c               ? "CHECK"
			   : c->type == 'p' ? "PRIMARY KEY"
			   : c->type == 'u' ? "UNIQUE"
			   : c->type == 'f' ? "FOREIGN KEY"
					    : "CHECK";
	sql_sysrow_set(&r, "constraint_type", sql_d_text(type));
	sql_sysrow_set(&r, "is_deferrable", yes_no(c && c->deferrable));
	sql_sysrow_set(&r, "initially_deferred", yes_no(c && c->deferred));
	sql_sysrow_set(&r, "enforced", yes_no(true));
	if (c && c->type == 'u') {
		int n;
		sql_index_desc *d = sql_table_indexes(g->cs, t, &n);
		bool nnd = false;
		for (int i = 0; i < n; i++)
			if (d[i].con == c)
				nnd = d[i].info.nulls_not_distinct;
		sql_sysrow_set(&r, "nulls_distinct", yes_no(!nnd));
	}
	sql_sysrow_emit(&r, g->out);
}

static void gen_table_constraints(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, table_constraint_row);
}

static void check_constraint_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	if (c && c->type != 'c')
		return;
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	con_names(g, &r, t, c ? c->name : notnull_name(t, nn));
	if (c) {
		/* PostgreSQL: substring(pg_get_constraintdef(oid) from 7). */
		const char *def = sql_constraintdef_text(g->s, g->cs, t, c, false);
		sql_sysrow_set(&r, "check_clause", sql_d_text(strlen(def) > 6 ? def + 6 : def));
	} else {
		util_buf b = UTIL_BUF_INIT;
		sql_quote_identifier(nn->name, &b);
		util_buf_puts(&b, " IS NOT NULL");
		sql_sysrow_set(&r, "check_clause", ty_textn(b.data, b.len));
		util_buf_free(&b);
	}
	sql_sysrow_emit(&r, g->out);
}

static void gen_check_constraints(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, check_constraint_row);
}

static void key_usage_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	(void)nn;
	if (!c || (c->type != 'p' && c->type != 'u' && c->type != 'f'))
		return;
	const cat_obj *ref = c->type == 'f' ? cat_get(g->cs, c->ref_table) : NULL;
	/* A foreign key column's position within the referenced unique key. */
	const cat_constraint *uk = NULL;
	if (ref)
		for (int i = 0; i < ref->rel.ncons && !uk; i++) {
			const cat_constraint *k = &ref->rel.cons[i];
			if ((k->type == 'p' || k->type == 'u') && k->ncols == c->ncols) {
				bool same = true;
				for (int a = 0; a < c->ncols && same; a++) {
					bool found = false;
					for (int b = 0; b < k->ncols; b++)
						found |= k->cols[b] == c->ref_cols[a];
					same = found;
				}
				if (same)
					uk = k;
			}
		}
	for (int i = 0; i < c->ncols; i++) {
		const cat_column *col = cat_column_by_attnum(&t->rel, c->cols[i]);
		sql_sysrow r;
		sql_sysrow_init(&r, g->out);
		con_names(g, &r, t, c->name);
		table_names(g, &r, t);
		sql_sysrow_set(&r, "column_name", sql_d_name(col ? col->name : NULL));
		sql_sysrow_set(&r, "ordinal_position", sql_d_int(i + 1));
		if (uk)
			for (int b = 0; b < uk->ncols; b++)
				if (uk->cols[b] == c->ref_cols[i])
					sql_sysrow_set(&r, "position_in_unique_constraint", sql_d_int(b + 1));
		sql_sysrow_emit(&r, g->out);
	}
}

static void gen_key_column_usage(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, key_usage_row);
}

static const char *fk_rule(char a)
{
	switch (a) {
	case CAT_FK_RESTRICT:
		return "RESTRICT";
	case CAT_FK_CASCADE:
		return "CASCADE";
	case CAT_FK_SET_NULL:
		return "SET NULL";
	case CAT_FK_SET_DEFAULT:
		return "SET DEFAULT";
	default:
		return "NO ACTION";
	}
}

static void ref_constraint_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	(void)nn;
	if (!c || c->type != 'f')
		return;
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	con_names(g, &r, t, c->name);
	cat_oid ix = sql_fk_index_oid(g->cs, c);
	sql_index_desc d;
	if (ix && sql_index_by_oid(g->cs, ix, &d) && d.con && d.table) {
		sql_sysrow_set(&r, "unique_constraint_catalog", db_name(g));
		sql_sysrow_set(&r, "unique_constraint_schema", sql_d_name(schema_of(g, d.table)));
		sql_sysrow_set(&r, "unique_constraint_name", sql_d_name(d.con->name));
	}
	sql_sysrow_set(&r, "match_option",
		       sql_d_text(c->match == 'f'   ? "FULL"
				  : c->match == 'p' ? "PARTIAL"
						    : "NONE"));
	sql_sysrow_set(&r, "update_rule", sql_d_text(fk_rule(c->on_update)));
	sql_sysrow_set(&r, "delete_rule", sql_d_text(fk_rule(c->on_delete)));
	sql_sysrow_emit(&r, g->out);
}

static void gen_referential_constraints(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, ref_constraint_row);
}

static void ccu_emit(gen_ctx *g, const cat_obj *table, const char *col, const cat_obj *owner,
		     const char *name)
{
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	table_names(g, &r, table);
	sql_sysrow_set(&r, "column_name", sql_d_name(col));
	con_names(g, &r, owner, name);
	sql_sysrow_emit(&r, g->out);
}

static void column_usage_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	if (!c) {
		ccu_emit(g, t, nn->name, t, notnull_name(t, nn));
		return;
	}
	if (c->type == 'c') {
		int16_t *cols;
		int n = sql_check_columns(g->s, g->cs, t, c->check_sql, &cols);
		for (int i = 0; i < n; i++) {
			const cat_column *col = cat_column_by_attnum(&t->rel, cols[i]);
			if (col)
				ccu_emit(g, t, col->name, t, c->name);
		}
		return;
	}
	const cat_obj *src = c->type == 'f' ? cat_get(g->cs, c->ref_table) : t;
	const int16_t *cols = c->type == 'f' ? c->ref_cols : c->cols;
	if (!src)
		return;
	for (int i = 0; i < c->ncols; i++) {
		const cat_column *col = cat_column_by_attnum(&src->rel, cols[i]);
		if (col)
			ccu_emit(g, src, col->name, t, c->name);
	}
}

static void gen_constraint_column_usage(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, column_usage_row);
}

static void table_usage_row(gen_ctx *g, const cat_obj *t, const cat_constraint *c, const cat_column *nn)
{
	if (!c) {
		(void)nn;
		return; /* PostgreSQL lists only catalog constraints here */
	}
	const cat_obj *src = c->type == 'f' ? cat_get(g->cs, c->ref_table) : t;
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	table_names(g, &r, src);
	con_names(g, &r, t, c->name);
	sql_sysrow_emit(&r, g->out);
}

static void gen_constraint_table_usage(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	each_constraint(&g, table_usage_row);
}

/* ---- sequences ---- */

static int sequences_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	const cat_sequence_info *q = o->rel.seq;
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE || !q || !rel_visible(g, o))
		return 0;
	char buf[32];
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "sequence_catalog", db_name(g));
	sql_sysrow_set(&r, "sequence_schema", sql_d_name(schema_of(g, o)));
	sql_sysrow_set(&r, "sequence_name", sql_d_name(o->rel.name));
	sql_sysrow_set(&r, "data_type", data_type_name(q->type));
	sql_sysrow_set(&r, "numeric_precision", numeric_precision(q->type, -1));
	sql_sysrow_set(&r, "numeric_precision_radix", sql_d_int(2));
	sql_sysrow_set(&r, "numeric_scale", sql_d_int(0));
	snprintf(buf, sizeof buf, "%lld", (long long)q->start);
	sql_sysrow_set(&r, "start_value", sql_d_text(buf));
	snprintf(buf, sizeof buf, "%lld", (long long)q->min);
	sql_sysrow_set(&r, "minimum_value", sql_d_text(buf));
	snprintf(buf, sizeof buf, "%lld", (long long)q->max);
	sql_sysrow_set(&r, "maximum_value", sql_d_text(buf));
	snprintf(buf, sizeof buf, "%lld", (long long)q->increment);
	sql_sysrow_set(&r, "increment", sql_d_text(buf));
	sql_sysrow_set(&r, "cycle_option", yes_no(q->cycle));
	sql_sysrow_emit(&r, g->out);
	return 0;
}

static void gen_sequences(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, sequences_row, &g);
}

/* ---- privileges ---- */

static const struct {
	uint32_t bit;
	const char *name;
} table_privs[] = {
    {CAT_PRIV_INSERT, "INSERT"},   {CAT_PRIV_SELECT, "SELECT"},     {CAT_PRIV_UPDATE, "UPDATE"},
    {CAT_PRIV_DELETE, "DELETE"},   {CAT_PRIV_TRUNCATE, "TRUNCATE"}, {CAT_PRIV_REFERENCES, "REFERENCES"},
    {CAT_PRIV_TRIGGER, "TRIGGER"},
};

static int privilege_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	char k = o->rel.relkind;
	if (k != CAT_RELKIND_TABLE && k != CAT_RELKIND_VIEW)
		return 0;
	int nacl;
	const cat_acl *acl = sql_priv_rel_acl(o, &nacl);
	for (int i = 0; i < nacl; i++) {
		const char *grantee = acl[i].grantee ? sql_role_name(g->cs, acl[i].grantee) : "PUBLIC";
		bool mine = sql_priv_has_role(g->cs, g->s->user_oid, acl[i].grantor) || !acl[i].grantee ||
			    sql_priv_has_role(g->cs, g->s->user_oid, acl[i].grantee);
		if (!mine)
			continue;
		for (size_t p = 0; p < UTIL_ARRAY_LEN(table_privs); p++) {
			if (!(acl[i].privs & table_privs[p].bit))
				continue;
			sql_sysrow r;
			sql_sysrow_init(&r, g->out);
			sql_sysrow_set(&r, "grantor", sql_d_name(sql_role_name(g->cs, acl[i].grantor)));
			sql_sysrow_set(&r, "grantee", sql_d_name(grantee));
			table_names(g, &r, o);
			sql_sysrow_set(&r, "privilege_type", sql_d_text(table_privs[p].name));
			bool grantable =
			    (acl[i].grant_option & table_privs[p].bit) || acl[i].grantee == o->rel.owner;
			sql_sysrow_set(&r, "is_grantable", yes_no(grantable));
			sql_sysrow_set(&r, "with_hierarchy", yes_no(table_privs[p].bit == CAT_PRIV_SELECT));
			sql_sysrow_emit(&r, g->out);
		}
	}
	return 0;
}

static void gen_table_privileges(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, privilege_rows, &g);
}

/* ---- roles ---- */

static int enabled_role_row(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (!sql_priv_has_role(g->cs, g->s->user_oid, o->oid))
		return 0;
	sql_sysrow r;
	sql_sysrow_init(&r, g->out);
	sql_sysrow_set(&r, "role_name", sql_d_name(o->role.name));
	sql_sysrow_emit(&r, g->out);
	return 0;
}

static void gen_enabled_roles(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_ROLE, 0, enabled_role_row, &g);
}

static int applicable_role_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (!sql_priv_has_role(g->cs, g->s->user_oid, o->oid))
		return 0;
	for (int i = 0; i < o->role.nmembers_of; i++) {
		sql_sysrow r;
		sql_sysrow_init(&r, g->out);
		sql_sysrow_set(&r, "grantee", sql_d_name(o->role.name));
		sql_sysrow_set(&r, "role_name", sql_d_name(sql_role_name(g->cs, o->role.member_of[i])));
		sql_sysrow_set(&r, "is_grantable", yes_no(false));
		sql_sysrow_emit(&r, g->out);
	}
	return 0;
}

static void gen_applicable_roles(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_ROLE, 0, applicable_role_rows, &g);
}

/* ---- character sets, collations ---- */

static void gen_character_sets(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	sql_sysrow r;
	sql_sysrow_init(&r, out);
	sql_sysrow_set(&r, "character_set_name", sql_d_name("UTF8"));
	sql_sysrow_set(&r, "character_repertoire", sql_d_name("UCS"));
	sql_sysrow_set(&r, "form_of_use", sql_d_name("UTF8"));
	sql_sysrow_set(&r, "default_collate_catalog", sql_d_name(s->database));
	sql_sysrow_set(&r, "default_collate_schema", sql_d_name("pg_catalog"));
	sql_sysrow_set(&r, "default_collate_name", sql_d_name("C"));
	sql_sysrow_emit(&r, out);
}

static void gen_collations(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)cs;
	static const char *const names[] = {"C", "POSIX"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++) {
		sql_sysrow r;
		sql_sysrow_init(&r, out);
		sql_sysrow_set(&r, "collation_catalog", sql_d_name(s->database));
		sql_sysrow_set(&r, "collation_schema", sql_d_name("pg_catalog"));
		sql_sysrow_set(&r, "collation_name", sql_d_name(names[i]));
		sql_sysrow_set(&r, "pad_attribute", sql_d_text("NO PAD"));
		sql_sysrow_emit(&r, out);
	}
}

/* ---- view_table_usage ---- */

static int view_usage_rows(void *arg, const cat_obj *o)
{
	gen_ctx *g = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW || !sql_priv_has_role(g->cs, g->s->user_oid, o->rel.owner))
		return 0;
	cat_oid *rels;
	int n = sql_view_referenced_rels(g->s, g->cs, o, &rels);
	for (int i = 0; i < n; i++) {
		const cat_obj *t = cat_get(g->cs, rels[i]);
		if (!t)
			continue;
		sql_sysrow r;
		sql_sysrow_init(&r, g->out);
		sql_sysrow_set(&r, "view_catalog", db_name(g));
		sql_sysrow_set(&r, "view_schema", sql_d_name(schema_of(g, o)));
		sql_sysrow_set(&r, "view_name", sql_d_name(o->rel.name));
		table_names(g, &r, t);
		sql_sysrow_emit(&r, g->out);
	}
	return 0;
}

static void gen_view_table_usage(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	gen_ctx g = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, view_usage_rows, &g);
}

/* Objects Strata cannot have (domains, triggers, composite types). */
static void gen_none(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	(void)out;
}

#define IS(name, cols, gen)                 SQL_SYSVIEW("information_schema", #name, OID_##name, 'v', cols, gen)
#define OID_information_schema_catalog_name OID_INFORMATION_SCHEMA_CATALOG_NAME
#define OID_schemata                        OID_SCHEMATA
#define OID_tables                          OID_TABLES
#define OID_columns                         OID_COLUMNS
#define OID_views                           OID_VIEWS
#define OID_table_constraints               OID_TABLE_CONSTRAINTS
#define OID_check_constraints               OID_CHECK_CONSTRAINTS
#define OID_key_column_usage                OID_KEY_COLUMN_USAGE
#define OID_referential_constraints         OID_REFERENTIAL_CONSTRAINTS
#define OID_constraint_column_usage         OID_CONSTRAINT_COLUMN_USAGE
#define OID_constraint_table_usage          OID_CONSTRAINT_TABLE_USAGE
#define OID_sequences                       OID_SEQUENCES
#define OID_table_privileges                OID_TABLE_PRIVILEGES
#define OID_role_table_grants               OID_ROLE_TABLE_GRANTS
#define OID_enabled_roles                   OID_ENABLED_ROLES
#define OID_applicable_roles                OID_APPLICABLE_ROLES
#define OID_character_sets                  OID_CHARACTER_SETS
#define OID_collations                      OID_COLLATIONS
#define OID_view_table_usage                OID_VIEW_TABLE_USAGE
#define OID_domains                         OID_DOMAINS
#define OID_domain_constraints              OID_DOMAIN_CONSTRAINTS
#define OID_triggers                        OID_TRIGGERS
#define OID_attributes                      OID_ATTRIBUTES
#define OID_user_defined_types              OID_USER_DEFINED_TYPES

static const sql_sysview is_views[] = {
    IS(information_schema_catalog_name, is_information_schema_catalog_name_cols, gen_catalog_name),
    IS(schemata, is_schemata_cols, gen_schemata),
    IS(tables, is_tables_cols, gen_tables),
    IS(columns, is_columns_cols, gen_columns),
    IS(views, is_views_cols, gen_views),
    IS(table_constraints, is_table_constraints_cols, gen_table_constraints),
    IS(check_constraints, is_check_constraints_cols, gen_check_constraints),
    IS(key_column_usage, is_key_column_usage_cols, gen_key_column_usage),
    IS(referential_constraints, is_referential_constraints_cols, gen_referential_constraints),
    IS(constraint_column_usage, is_constraint_column_usage_cols, gen_constraint_column_usage),
    IS(constraint_table_usage, is_constraint_table_usage_cols, gen_constraint_table_usage),
    IS(sequences, is_sequences_cols, gen_sequences),
    IS(table_privileges, is_table_privileges_cols, gen_table_privileges),
    IS(role_table_grants, is_role_table_grants_cols, gen_table_privileges),
    IS(enabled_roles, is_enabled_roles_cols, gen_enabled_roles),
    IS(applicable_roles, is_applicable_roles_cols, gen_applicable_roles),
    IS(character_sets, is_character_sets_cols, gen_character_sets),
    IS(collations, is_collations_cols, gen_collations),
    IS(view_table_usage, is_view_table_usage_cols, gen_view_table_usage),
    IS(domains, is_domains_cols, gen_none),
    IS(domain_constraints, is_domain_constraints_cols, gen_none),
    IS(triggers, is_triggers_cols, gen_none),
    IS(attributes, is_attributes_cols, gen_none),
    IS(user_defined_types, is_user_defined_types_cols, gen_none),
};

void sql_sysviews_infoschema_init(void)
{
	sql_sysview_register(is_views, (int)UTIL_ARRAY_LEN(is_views));
}
