/*
 * sysview_pgempty.c — pg_catalog relations for features Strata does not
 * have (row security policies, triggers, extended statistics, publications,
 * extensions, foreign data, partitioning, inheritance, text search,
 * enums and ranges, subscriptions, per-column statistics ...). They exist with
 * PostgreSQL 15's exact columns so that client queries joining them run;
 * they are always empty because no such objects can exist in Strata.
 * Column lists were taken from a PostgreSQL 15 catalog.
 */
#include "sysview.h"

static void gen_empty(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	(void)s;
	(void)cs;
	(void)out;
}

static const sql_syscol pg_amop_cols[] = {
    {"oid", TY_OID},           {"amopfamily", TY_OID},    {"amoplefttype", TY_OID},
    {"amoprighttype", TY_OID}, {"amopstrategy", TY_INT2}, {"amoppurpose", TY_CHAR},
    {"amopopr", TY_OID},       {"amopmethod", TY_OID},    {"amopsortfamily", TY_OID}};
static const sql_syscol pg_amproc_cols[] = {
    {"oid", TY_OID},        {"amprocfamily", TY_OID}, {"amproclefttype", TY_OID}, {"amprocrighttype", TY_OID},
    {"amprocnum", TY_INT2}, {"amproc", TY_REGPROC}};
static const sql_syscol pg_available_extensions_cols[] = {
    {"name", TY_NAME}, {"default_version", TY_TEXT}, {"installed_version", TY_TEXT}, {"comment", TY_TEXT}};
static const sql_syscol pg_conversion_cols[] = {
    {"oid", TY_OID},         {"conname", TY_NAME},        {"connamespace", TY_OID},
    {"conowner", TY_OID},    {"conforencoding", TY_INT4}, {"contoencoding", TY_INT4},
    {"conproc", TY_REGPROC}, {"condefault", TY_BOOL}};
static const sql_syscol pg_db_role_setting_cols[] = {
    {"setdatabase", TY_OID}, {"setrole", TY_OID}, {"setconfig", TY_TEXT_ARRAY}};
static const sql_syscol pg_default_acl_cols[] = {{"oid", TY_OID},
						 {"defaclrole", TY_OID},
						 {"defaclnamespace", TY_OID},
						 {"defaclobjtype", TY_CHAR},
						 {"defaclacl", TY_ACLITEM_ARRAY}};
static const sql_syscol pg_enum_cols[] = {
    {"oid", TY_OID}, {"enumtypid", TY_OID}, {"enumsortorder", TY_FLOAT4}, {"enumlabel", TY_NAME}};
static const sql_syscol pg_event_trigger_cols[] = {
    {"oid", TY_OID},     {"evtname", TY_NAME},    {"evtevent", TY_NAME},     {"evtowner", TY_OID},
    {"evtfoid", TY_OID}, {"evtenabled", TY_CHAR}, {"evttags", TY_TEXT_ARRAY}};
static const sql_syscol pg_extension_cols[] = {{"oid", TY_OID},
					       {"extname", TY_NAME},
					       {"extowner", TY_OID},
					       {"extnamespace", TY_OID},
					       {"extrelocatable", TY_BOOL},
					       {"extversion", TY_TEXT},
					       {"extconfig", TY_OID_ARRAY},
					       {"extcondition", TY_TEXT_ARRAY}};
static const sql_syscol pg_foreign_data_wrapper_cols[] = {{"oid", TY_OID},
							  {"fdwname", TY_NAME},
							  {"fdwowner", TY_OID},
							  {"fdwhandler", TY_OID},
							  {"fdwvalidator", TY_OID},
							  {"fdwacl", TY_ACLITEM_ARRAY},
							  {"fdwoptions", TY_TEXT_ARRAY}};
static const sql_syscol pg_foreign_server_cols[] = {{"oid", TY_OID},
						    {"srvname", TY_NAME},
						    {"srvowner", TY_OID},
						    {"srvfdw", TY_OID},
						    {"srvtype", TY_TEXT},
						    {"srvversion", TY_TEXT},
						    {"srvacl", TY_ACLITEM_ARRAY},
						    {"srvoptions", TY_TEXT_ARRAY}};
static const sql_syscol pg_foreign_table_cols[] = {
    {"ftrelid", TY_OID}, {"ftserver", TY_OID}, {"ftoptions", TY_TEXT_ARRAY}};
static const sql_syscol pg_inherits_cols[] = {
    {"inhrelid", TY_OID}, {"inhparent", TY_OID}, {"inhseqno", TY_INT4}, {"inhdetachpending", TY_BOOL}};
static const sql_syscol pg_largeobject_metadata_cols[] = {
    {"oid", TY_OID}, {"lomowner", TY_OID}, {"lomacl", TY_ACLITEM_ARRAY}};
static const sql_syscol pg_matviews_cols[] = {
    {"schemaname", TY_NAME}, {"matviewname", TY_NAME}, {"matviewowner", TY_NAME}, {"tablespace", TY_NAME},
    {"hasindexes", TY_BOOL}, {"ispopulated", TY_BOOL}, {"definition", TY_TEXT}};
static const sql_syscol pg_parameter_acl_cols[] = {
    {"oid", TY_OID}, {"parname", TY_TEXT}, {"paracl", TY_ACLITEM_ARRAY}};
static const sql_syscol pg_partitioned_table_cols[] = {
    {"partrelid", TY_OID},           {"partstrat", TY_CHAR},        {"partnatts", TY_INT2},
    {"partdefid", TY_OID},           {"partattrs", TY_INT2VECTOR},  {"partclass", TY_OIDVECTOR},
    {"partcollation", TY_OIDVECTOR}, {"partexprs", TY_PG_NODE_TREE}};
static const sql_syscol pg_policies_cols[] = {
    {"schemaname", TY_NAME},  {"tablename", TY_NAME}, {"policyname", TY_NAME}, {"permissive", TY_TEXT},
    {"roles", TY_NAME_ARRAY}, {"cmd", TY_TEXT},       {"qual", TY_TEXT},       {"with_check", TY_TEXT}};
static const sql_syscol pg_policy_cols[] = {{"oid", TY_OID},
					    {"polname", TY_NAME},
					    {"polrelid", TY_OID},
					    {"polcmd", TY_CHAR},
					    {"polpermissive", TY_BOOL},
					    {"polroles", TY_OID_ARRAY},
					    {"polqual", TY_PG_NODE_TREE},
					    {"polwithcheck", TY_PG_NODE_TREE}};
static const sql_syscol pg_prepared_xacts_cols[] = {{"transaction", TY_XID},
						    {"gid", TY_TEXT},
						    {"prepared", TY_TIMESTAMPTZ},
						    {"owner", TY_NAME},
						    {"database", TY_NAME}};
static const sql_syscol pg_publication_cols[] = {
    {"oid", TY_OID},           {"pubname", TY_NAME},     {"pubowner", TY_OID},
    {"puballtables", TY_BOOL}, {"pubinsert", TY_BOOL},   {"pubupdate", TY_BOOL},
    {"pubdelete", TY_BOOL},    {"pubtruncate", TY_BOOL}, {"pubviaroot", TY_BOOL}};
static const sql_syscol pg_publication_namespace_cols[] = {
    {"oid", TY_OID}, {"pnpubid", TY_OID}, {"pnnspid", TY_OID}};
static const sql_syscol pg_publication_rel_cols[] = {{"oid", TY_OID},
						     {"prpubid", TY_OID},
						     {"prrelid", TY_OID},
						     {"prqual", TY_PG_NODE_TREE},
						     {"prattrs", TY_INT2VECTOR}};
static const sql_syscol pg_publication_tables_cols[] = {{"pubname", TY_NAME},
							{"schemaname", TY_NAME},
							{"tablename", TY_NAME},
							{"attnames", TY_NAME_ARRAY},
							{"rowfilter", TY_TEXT}};
static const sql_syscol pg_range_cols[] = {
    {"rngtypid", TY_OID},  {"rngsubtype", TY_OID},       {"rngmultitypid", TY_OID}, {"rngcollation", TY_OID},
    {"rngsubopc", TY_OID}, {"rngcanonical", TY_REGPROC}, {"rngsubdiff", TY_REGPROC}};
static const sql_syscol pg_seclabel_cols[] = {{"objoid", TY_OID},
					      {"classoid", TY_OID},
					      {"objsubid", TY_INT4},
					      {"provider", TY_TEXT},
					      {"label", TY_TEXT}};
static const sql_syscol pg_shseclabel_cols[] = {
    {"objoid", TY_OID}, {"classoid", TY_OID}, {"provider", TY_TEXT}, {"label", TY_TEXT}};
static const sql_syscol pg_shdepend_cols[] = {
    {"dbid", TY_OID},       {"classid", TY_OID},  {"objid", TY_OID},   {"objsubid", TY_INT4},
    {"refclassid", TY_OID}, {"refobjid", TY_OID}, {"deptype", TY_CHAR}};
static const sql_syscol pg_statistic_cols[] = {{"starelid", TY_OID},
					       {"staattnum", TY_INT2},
					       {"stainherit", TY_BOOL},
					       {"stanullfrac", TY_FLOAT4},
					       {"stawidth", TY_INT4},
					       {"stadistinct", TY_FLOAT4},
					       {"stakind1", TY_INT2},
					       {"stakind2", TY_INT2},
					       {"stakind3", TY_INT2},
					       {"stakind4", TY_INT2},
					       {"stakind5", TY_INT2},
					       {"staop1", TY_OID},
					       {"staop2", TY_OID},
					       {"staop3", TY_OID},
					       {"staop4", TY_OID},
					       {"staop5", TY_OID},
					       {"stacoll1", TY_OID},
					       {"stacoll2", TY_OID},
					       {"stacoll3", TY_OID},
					       {"stacoll4", TY_OID},
					       {"stacoll5", TY_OID},
					       {"stanumbers1", TY_FLOAT4_ARRAY},
					       {"stanumbers2", TY_FLOAT4_ARRAY},
					       {"stanumbers3", TY_FLOAT4_ARRAY},
					       {"stanumbers4", TY_FLOAT4_ARRAY},
					       {"stanumbers5", TY_FLOAT4_ARRAY},
					       {"stavalues1", TY_ANYARRAY},
					       {"stavalues2", TY_ANYARRAY},
					       {"stavalues3", TY_ANYARRAY},
					       {"stavalues4", TY_ANYARRAY},
					       {"stavalues5", TY_ANYARRAY}};
static const sql_syscol pg_statistic_ext_cols[] = {{"oid", TY_OID},
						   {"stxrelid", TY_OID},
						   {"stxname", TY_NAME},
						   {"stxnamespace", TY_OID},
						   {"stxowner", TY_OID},
						   {"stxstattarget", TY_INT4},
						   {"stxkeys", TY_INT2VECTOR},
						   {"stxkind", TY_CHAR_ARRAY},
						   {"stxexprs", TY_PG_NODE_TREE}};
static const sql_syscol pg_stats_cols[] = {{"schemaname", TY_NAME},
					   {"tablename", TY_NAME},
					   {"attname", TY_NAME},
					   {"inherited", TY_BOOL},
					   {"null_frac", TY_FLOAT4},
					   {"avg_width", TY_INT4},
					   {"n_distinct", TY_FLOAT4},
					   {"most_common_vals", TY_ANYARRAY},
					   {"most_common_freqs", TY_FLOAT4_ARRAY},
					   {"histogram_bounds", TY_ANYARRAY},
					   {"correlation", TY_FLOAT4},
					   {"most_common_elems", TY_ANYARRAY},
					   {"most_common_elem_freqs", TY_FLOAT4_ARRAY},
					   {"elem_count_histogram", TY_FLOAT4_ARRAY}};
static const sql_syscol pg_transform_cols[] = {{"oid", TY_OID},
					       {"trftype", TY_OID},
					       {"trflang", TY_OID},
					       {"trffromsql", TY_REGPROC},
					       {"trftosql", TY_REGPROC}};
static const sql_syscol pg_trigger_cols[] = {{"oid", TY_OID},
					     {"tgrelid", TY_OID},
					     {"tgparentid", TY_OID},
					     {"tgname", TY_NAME},
					     {"tgfoid", TY_OID},
					     {"tgtype", TY_INT2},
					     {"tgenabled", TY_CHAR},
					     {"tgisinternal", TY_BOOL},
					     {"tgconstrrelid", TY_OID},
					     {"tgconstrindid", TY_OID},
					     {"tgconstraint", TY_OID},
					     {"tgdeferrable", TY_BOOL},
					     {"tginitdeferred", TY_BOOL},
					     {"tgnargs", TY_INT2},
					     {"tgattr", TY_INT2VECTOR},
					     {"tgargs", TY_BYTEA},
					     {"tgqual", TY_PG_NODE_TREE},
					     {"tgoldtable", TY_NAME},
					     {"tgnewtable", TY_NAME}};
static const sql_syscol pg_ts_config_cols[] = {{"oid", TY_OID},
					       {"cfgname", TY_NAME},
					       {"cfgnamespace", TY_OID},
					       {"cfgowner", TY_OID},
					       {"cfgparser", TY_OID}};
static const sql_syscol pg_ts_dict_cols[] = {{"oid", TY_OID},           {"dictname", TY_NAME},
					     {"dictnamespace", TY_OID}, {"dictowner", TY_OID},
					     {"dicttemplate", TY_OID},  {"dictinitoption", TY_TEXT}};
static const sql_syscol pg_ts_parser_cols[] = {{"oid", TY_OID},
					       {"prsname", TY_NAME},
					       {"prsnamespace", TY_OID},
					       {"prsstart", TY_REGPROC},
					       {"prstoken", TY_REGPROC},
					       {"prsend", TY_REGPROC},
					       {"prsheadline", TY_REGPROC},
					       {"prslextype", TY_REGPROC}};
static const sql_syscol pg_ts_template_cols[] = {{"oid", TY_OID},
						 {"tmplname", TY_NAME},
						 {"tmplnamespace", TY_OID},
						 {"tmplinit", TY_REGPROC},
						 {"tmpllexize", TY_REGPROC}};
static const sql_syscol pg_user_mapping_cols[] = {
    {"oid", TY_OID}, {"umuser", TY_OID}, {"umserver", TY_OID}, {"umoptions", TY_TEXT_ARRAY}};
static const sql_syscol pg_subscription_cols[] = {{"oid", TY_OID},
						  {"subdbid", TY_OID},
						  {"subskiplsn", TY_PG_LSN},
						  {"subname", TY_NAME},
						  {"subowner", TY_OID},
						  {"subenabled", TY_BOOL},
						  {"subbinary", TY_BOOL},
						  {"substream", TY_BOOL},
						  {"subtwophasestate", TY_CHAR},
						  {"subdisableonerr", TY_BOOL},
						  {"subconninfo", TY_TEXT},
						  {"subslotname", TY_NAME},
						  {"subsynccommit", TY_TEXT},
						  {"subpublications", TY_TEXT_ARRAY}};

static const sql_syscol pg_seclabels_cols[] = {
    {"objoid", TY_OID},       {"classoid", TY_OID}, {"objsubid", TY_INT4}, {"objtype", TY_TEXT},
    {"objnamespace", TY_OID}, {"objname", TY_TEXT}, {"provider", TY_TEXT}, {"label", TY_TEXT}};

static const sql_sysview empty_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_seclabels", 12099, 'v', pg_seclabels_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_subscription", 6100, 'r', pg_subscription_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_amop", 2602, 'r', pg_amop_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_amproc", 2603, 'r', pg_amproc_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_available_extensions", 12081, 'v', pg_available_extensions_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_conversion", 2607, 'r', pg_conversion_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_db_role_setting", 2964, 'r', pg_db_role_setting_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_default_acl", 826, 'r', pg_default_acl_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_enum", 3501, 'r', pg_enum_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_event_trigger", 3466, 'r', pg_event_trigger_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_extension", 3079, 'r', pg_extension_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_foreign_data_wrapper", 2328, 'r', pg_foreign_data_wrapper_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_foreign_server", 1417, 'r', pg_foreign_server_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_foreign_table", 3118, 'r', pg_foreign_table_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_inherits", 2611, 'r', pg_inherits_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_largeobject_metadata", 2995, 'r', pg_largeobject_metadata_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_matviews", 12038, 'v', pg_matviews_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_parameter_acl", 6243, 'r', pg_parameter_acl_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_partitioned_table", 3350, 'r', pg_partitioned_table_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_policies", 12018, 'v', pg_policies_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_policy", 3256, 'r', pg_policy_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_prepared_xacts", 12090, 'v', pg_prepared_xacts_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_publication", 6104, 'r', pg_publication_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_publication_namespace", 6237, 'r', pg_publication_namespace_cols,
		gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_publication_rel", 6106, 'r', pg_publication_rel_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_publication_tables", 12068, 'v', pg_publication_tables_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_range", 3541, 'r', pg_range_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_seclabel", 3596, 'r', pg_seclabel_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_shdepend", 1214, 'r', pg_shdepend_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_shseclabel", 3592, 'r', pg_shseclabel_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_statistic", 2619, 'r', pg_statistic_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_statistic_ext", 3381, 'r', pg_statistic_ext_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_stats", 12053, 'v', pg_stats_cols, sql_stats_pg_stats),
    SQL_SYSVIEW("pg_catalog", "pg_transform", 3576, 'r', pg_transform_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_trigger", 2620, 'r', pg_trigger_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_ts_config", 3602, 'r', pg_ts_config_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_ts_dict", 3600, 'r', pg_ts_dict_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_ts_parser", 3601, 'r', pg_ts_parser_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_ts_template", 3764, 'r', pg_ts_template_cols, gen_empty),
    SQL_SYSVIEW("pg_catalog", "pg_user_mapping", 1418, 'r', pg_user_mapping_cols, gen_empty),
};

void sql_sysviews_empty_init(void)
{
	sql_sysview_register(empty_views, (int)UTIL_ARRAY_LEN(empty_views));
}
