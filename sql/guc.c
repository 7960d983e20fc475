/*
 * guc.c — session settings (PostgreSQL's GUCs): the table of settings
 * Strata knows, their defaults and checks, per-session values with SET /
 * SET LOCAL / RESET semantics, and ParameterStatus reporting.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sql_int.h"

struct sql_guc_value {
	char *value;      /* current (heap) */
	char *reset;      /* value RESET returns to (startup packet or default) */
	bool changed;     /* reported when different from what the client saw */
};

/* ---- checks and assign hooks ---- */

static int check_datestyle(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	(void)s;
	const char *style = NULL, *order = NULL;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", in);
	char *save = NULL;
	for (char *tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (!util_strcasecmp(tok, "ISO"))
			style = "ISO";
		else if (!util_strcasecmp(tok, "SQL"))
			style = "SQL";
		else if (!util_strcasecmp(tok, "POSTGRES"))
			style = "Postgres";
		else if (!util_strcasecmp(tok, "GERMAN")) {
			style = "German";
			if (!order)
				order = "DMY";
		} else if (!util_strcasecmp(tok, "YMD"))
			order = "YMD";
		else if (!util_strcasecmp(tok, "DMY") || !util_strcasecmp(tok, "EURO") ||
			 !util_strcasecmp(tok, "EUROPEAN"))
			order = "DMY";
		else if (!util_strcasecmp(tok, "MDY") || !util_strcasecmp(tok, "US") ||
			 !util_strcasecmp(tok, "NONEURO") || !util_strcasecmp(tok, "NONEUROPEAN"))
			order = "MDY";
		else if (!util_strcasecmp(tok, "DEFAULT")) {
			style = "ISO";
			order = "MDY";
		} else {
			util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for parameter \"DateStyle\": \"%s\"",
				     in);
			util_err_detail(err, "Unrecognized key word: \"%s\".", tok);
			return -1;
		}
	}
	const char *cur = sql_guc_get(s, "DateStyle");
	char cs[32] = "ISO", co[32] = "MDY";
	if (cur)
		sscanf(cur, "%31[^,], %31s", cs, co);
	util_buf_printf(out, "%s, %s", style ? style : cs, order ? order : co);
	return 0;
}

static void assign_datestyle(sql_session *s, const char *v)
{
	if (!strncmp(v, "ISO", 3))
		s->tys.datestyle = TY_DATES_ISO;
	else if (!strncmp(v, "SQL", 3))
		s->tys.datestyle = TY_DATES_SQL;
	else if (!strncmp(v, "Postgres", 8))
		s->tys.datestyle = TY_DATES_POSTGRES;
	else
		s->tys.datestyle = TY_DATES_GERMAN;
	const char *o = strchr(v, ',');
	o = o ? o + 2 : "MDY";
	s->tys.dateorder = !strcmp(o, "DMY") ? TY_ORDER_DMY : !strcmp(o, "YMD") ? TY_ORDER_YMD : TY_ORDER_MDY;
}

static int check_timezone(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	(void)s;
	const ty_timezone *tz = ty_timezone_load(in);
	if (!tz)
		return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for parameter \"TimeZone\": \"%s\"",
				    in);
	util_buf_puts(out, ty_timezone_name(tz));
	return 0;
}

static void assign_timezone(sql_session *s, const char *v) { s->tys.timezone = ty_timezone_load(v); }

static int check_encoding(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	(void)s;
	char norm[32];
	size_t j = 0;
	for (size_t i = 0; in[i] && j < sizeof norm - 1; i++)
		if (isalnum((unsigned char)in[i]))
			norm[j++] = (char)toupper((unsigned char)in[i]);
	norm[j] = '\0';
	if (!strcmp(norm, "UTF8") || !strcmp(norm, "UNICODE")) {
		util_buf_puts(out, "UTF8");
		return 0;
	}
	if (!strcmp(norm, "SQLASCII")) {
		util_buf_puts(out, "SQL_ASCII");
		return 0;
	}
	util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED, "conversion between %s and UTF8 is not supported", in);
	return -1;
}

static void assign_efd(sql_session *s, const char *v) { s->tys.extra_float_digits = atoi(v); }
static void assign_bytea(sql_session *s, const char *v) { s->tys.bytea_output_escape = !strcmp(v, "escape"); }
static void assign_scs(sql_session *s, const char *v) { s->tys.standard_conforming_strings = !strcmp(v, "on"); }
static void assign_search_path(sql_session *s, const char *v) { snprintf(s->search_path, sizeof s->search_path, "%s", v); }
static void assign_stmt_timeout(sql_session *s, const char *v) { s->statement_timeout_ms = atoll(v); }
static void assign_lock_timeout(sql_session *s, const char *v) { s->lock_timeout_ms = atoll(v); }
static void assign_idle_txn_timeout(sql_session *s, const char *v) { s->idle_in_txn_timeout_ms = atoll(v); }
static void assign_idle_timeout(sql_session *s, const char *v) { s->idle_timeout_ms = atoll(v); }
static void assign_work_mem(sql_session *s, const char *v) { s->work_mem = (size_t)atoll(v) * 1024; }
static void assign_app_name(sql_session *s, const char *v)
{
	snprintf(s->application_name, sizeof s->application_name, "%s", v);
}
static void assign_intervalstyle(sql_session *s, const char *v)
{
	s->tys.intervalstyle = !strcmp(v, "postgres_verbose") ? TY_INTERVAL_POSTGRES_VERBOSE
			       : !strcmp(v, "sql_standard")    ? TY_INTERVAL_SQL_STANDARD
			       : !strcmp(v, "iso_8601")	       ? TY_INTERVAL_ISO_8601
							       : TY_INTERVAL_POSTGRES;
}
static void assign_default_iso(sql_session *s, const char *v)
{
	s->default_isolation = !strcmp(v, "repeatable read") ? SQL_REPEATABLE_READ
			       : !strcmp(v, "serializable")   ? SQL_SERIALIZABLE
							      : SQL_READ_COMMITTED;
}
static void assign_default_ro(sql_session *s, const char *v) { s->default_read_only = !strcmp(v, "on"); }

/* SET ROLE / SET SESSION AUTHORIZATION (privilege.c decides). */
int sql_priv_check_role_setting(sql_session *s, const char *name, bool session_auth, util_err *err);
void sql_priv_assign_role_setting(sql_session *s, const char *name, bool session_auth);
static int check_role(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	if (sql_priv_check_role_setting(s, in, false, err) != 0)
		return -1;
	util_buf_puts(out, util_strcasecmp(in, "none") ? in : "none");
	return 0;
}
static void assign_role(sql_session *s, const char *v) { sql_priv_assign_role_setting(s, v, false); }
static int check_session_auth(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	if (sql_priv_check_role_setting(s, in, true, err) != 0)
		return -1;
	util_buf_puts(out, in);
	return 0;
}
static void assign_session_auth(sql_session *s, const char *v) { sql_priv_assign_role_setting(s, v, true); }

static const char *const iso_levels[] = {"serializable", "repeatable read", "read committed", "read uncommitted",
					 NULL};
static const char *const interval_styles[] = {"postgres", "postgres_verbose", "sql_standard", "iso_8601", NULL};
static const char *const bytea_outputs[] = {"hex", "escape", NULL};
static const char *const password_encryptions[] = {"scram-sha-256", "md5", NULL};
static const char *const msg_levels[] = {"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice",
					 "warning", "error", "info", NULL};
static const char *const xmloptions[] = {"content", "document", NULL};
static const char *const backslash_quotes[] = {"safe_encoding", "on", "off", NULL};
static const char *const plan_cache_modes[] = {"auto", "force_generic_plan", "force_custom_plan", NULL};
static const char *const row_formats[] = {"default", "cells", "packed", NULL};
static const char *const sync_commits[] = {"local", "remote_write", "remote_apply", "on", "off", NULL};

#define G(name, type, boot, unit, report, ro, cat, desc) {name, type, boot, unit, report, ro, cat, desc, NULL, 0, 0, NULL, NULL}

/* The settings Strata knows, sorted by name (case-insensitively) as SHOW ALL lists them. */
static const sql_guc gucs[] = {
	{"application_name", GUC_STRING, "", NULL, true, false, "Reporting and Logging / What to Log",
	 "Sets the application name to be reported in statistics and logs.", NULL, 0, 0, NULL, assign_app_name},
	{"array_nulls", GUC_BOOL, "on", NULL, false, false, "Version and Platform Compatibility",
	 "Enable input of NULL elements in arrays.", NULL, 0, 0, NULL, NULL},
	{"backslash_quote", GUC_ENUM, "safe_encoding", NULL, false, false, "Version and Platform Compatibility",
	 "Sets whether \"\\'\" is allowed in string literals.", backslash_quotes, 0, 0, NULL, NULL},
	G("block_size", GUC_INT, "8192", NULL, false, true, "Preset Options", "Shows the size of a disk block."),
	{"bytea_output", GUC_ENUM, "hex", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets the output format for bytea.", bytea_outputs, 0, 0, NULL, assign_bytea},
	G("check_function_bodies", GUC_BOOL, "on", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE."),
	{"client_encoding", GUC_STRING, "UTF8", NULL, true, false, "Client Connection Defaults / Locale and Formatting",
	 "Sets the client's character set encoding.", NULL, 0, 0, check_encoding, NULL},
	{"client_min_messages", GUC_ENUM, "notice", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets the message levels that are sent to the client.", msg_levels, 0, 0, NULL, NULL},
	{"cursor_tuple_fraction", GUC_REAL, "0.1", NULL, false, false, "Query Tuning / Other Planner Options",
	 "Sets the planner's estimate of the fraction of a cursor's rows that will be retrieved.", NULL, 0, 1, NULL,
	 NULL},
	{"DateStyle", GUC_STRING, "ISO, MDY", NULL, true, false, "Client Connection Defaults / Locale and Formatting",
	 "Sets the display format for date and time values.", NULL, 0, 0, check_datestyle, assign_datestyle},
	{"deadlock_timeout", GUC_INT, "1000", "ms", false, false, "Lock Management",
	 "Sets the time to wait on a lock before checking for deadlock.", NULL, 1, 2147483647, NULL, NULL},
	G("default_table_access_method", GUC_STRING, "heap", NULL, false, false,
	  "Client Connection Defaults / Statement Behavior", "Sets the default table access method for new tables."),
	G("default_tablespace", GUC_STRING, "", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Sets the default tablespace to create tables and indexes in."),
	G("default_text_search_config", GUC_STRING, "pg_catalog.simple", NULL, false, false,
	  "Client Connection Defaults / Locale and Formatting", "Sets default text search configuration."),
	{"default_transaction_deferrable", GUC_BOOL, "off", NULL, false, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the default deferrable status of new transactions.", NULL, 0, 0, NULL, NULL},
	{"default_transaction_isolation", GUC_ENUM, "read committed", NULL, false, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the transaction isolation level of each new transaction.", iso_levels, 0, 0, NULL, assign_default_iso},
	{"default_transaction_read_only", GUC_BOOL, "off", NULL, true, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the default read-only status of new transactions.", NULL, 0, 0, NULL, assign_default_ro},
	{"effective_cache_size", GUC_INT, "524288", "8kB", false, false, "Query Tuning / Planner Cost Constants",
	 "Sets the planner's assumption about the total size of the data caches.", NULL, 1, 2147483647, NULL, NULL},
	G("enable_hashagg", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of hashed aggregation plans."),
	G("enable_hashjoin", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of hash join plans."),
	G("enable_indexonlyscan", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of index-only-scan plans."),
	G("enable_indexscan", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of index-scan plans."),
	G("enable_mergejoin", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of merge join plans."),
	G("enable_nestloop", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of nested-loop join plans."),
	G("enable_seqscan", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of sequential-scan plans."),
	G("enable_sort", GUC_BOOL, "on", NULL, false, false, "Query Tuning / Planner Method Configuration",
	  "Enables the planner's use of explicit sort steps."),
	G("escape_string_warning", GUC_BOOL, "on", NULL, false, false, "Version and Platform Compatibility",
	  "Warn about backslash escapes in ordinary string literals."),
	{"extra_float_digits", GUC_INT, "1", NULL, false, false, "Client Connection Defaults / Locale and Formatting",
	 "Sets the number of digits displayed for floating-point values.", NULL, -15, 3, NULL, assign_efd},
	{"from_collapse_limit", GUC_INT, "8", NULL, false, false, "Query Tuning / Other Planner Options",
	 "Sets the FROM-list size beyond which subqueries are not collapsed.", NULL, 1, 2147483647, NULL, NULL},
	{"idle_in_transaction_session_timeout", GUC_INT, "0", "ms", false, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the maximum allowed idle time between queries, when in a transaction.", NULL, 0, 2147483647, NULL,
	 assign_idle_txn_timeout},
	{"idle_session_timeout", GUC_INT, "0", "ms", false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets the maximum allowed idle time between queries, when not in a transaction.", NULL, 0, 2147483647, NULL,
	 assign_idle_timeout},
	G("in_hot_standby", GUC_BOOL, "off", NULL, true, true, "Preset Options",
	  "Shows whether hot standby is currently active."),
	G("integer_datetimes", GUC_BOOL, "on", NULL, true, true, "Preset Options",
	  "Shows whether datetimes are integer based."),
	{"IntervalStyle", GUC_ENUM, "postgres", NULL, true, false, "Client Connection Defaults / Locale and Formatting",
	 "Sets the display format for interval values.", interval_styles, 0, 0, NULL, assign_intervalstyle},
	G("is_superuser", GUC_BOOL, "on", NULL, true, true, "Preset Options",
	  "Shows whether the current user is a superuser."),
	{"jit", GUC_BOOL, "off", NULL, false, false, "Query Tuning / Other Planner Options", "Allow JIT compilation.",
	 NULL, 0, 0, NULL, NULL},
	{"join_collapse_limit", GUC_INT, "8", NULL, false, false, "Query Tuning / Other Planner Options",
	 "Sets the FROM-list size beyond which JOIN constructs are not flattened.", NULL, 1, 2147483647, NULL, NULL},
	G("lc_collate", GUC_STRING, "C", NULL, false, true, "Preset Options",
	  "Shows the collation order locale."),
	G("lc_ctype", GUC_STRING, "C", NULL, false, true, "Preset Options",
	  "Shows the character classification and case conversion locale."),
	G("lc_messages", GUC_STRING, "C", NULL, false, false, "Client Connection Defaults / Locale and Formatting",
	  "Sets the language in which messages are displayed."),
	G("lc_monetary", GUC_STRING, "C", NULL, false, false, "Client Connection Defaults / Locale and Formatting",
	  "Sets the locale for formatting monetary amounts."),
	G("lc_numeric", GUC_STRING, "C", NULL, false, false, "Client Connection Defaults / Locale and Formatting",
	  "Sets the locale for formatting numbers."),
	G("lc_time", GUC_STRING, "C", NULL, false, false, "Client Connection Defaults / Locale and Formatting",
	  "Sets the locale for formatting date and time values."),
	G("listen_addresses", GUC_STRING, "127.0.0.1", NULL, false, true, "Connections and Authentication / Connection Settings",
	  "Sets the host name or IP address(es) to listen to."),
	{"lock_timeout", GUC_INT, "0", "ms", false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets the maximum allowed duration of any wait for a lock.", NULL, 0, 2147483647, NULL, assign_lock_timeout},
	{"log_min_duration_statement", GUC_INT, "-1", "ms", false, false, "Reporting and Logging / When to Log",
	 "Sets the minimum execution time above which all statements will be logged.", NULL, -1, 2147483647, NULL,
	 sql_ops_assign_log_min_duration},
	{"maintenance_work_mem", GUC_INT, "65536", "kB", false, false, "Resource Usage / Memory",
	 "Sets the maximum memory to be used for maintenance operations.", NULL, 1024, 2147483647, NULL, NULL},
	G("max_connections", GUC_INT, "200", NULL, false, true, "Connections and Authentication / Connection Settings",
	  "Sets the maximum number of concurrent connections."),
	G("max_function_args", GUC_INT, "100", NULL, false, true, "Preset Options",
	  "Shows the maximum number of function arguments."),
	G("max_identifier_length", GUC_INT, "63", NULL, false, true, "Preset Options",
	  "Shows the maximum identifier length."),
	G("max_index_keys", GUC_INT, "32", NULL, false, true, "Preset Options",
	  "Shows the maximum number of index keys."),
	{"max_parallel_workers_per_gather", GUC_INT, "2", NULL, false, false,
	 "Resource Usage / Asynchronous Behavior",
	 "Sets the maximum number of parallel processes per executor node.", NULL, 0, 1024, NULL, NULL},
	{"plan_cache_mode", GUC_ENUM, "auto", NULL, false, false, "Query Tuning / Other Planner Options",
	 "Controls the planner's selection of custom or generic plan.", plan_cache_modes, 0, 0, NULL, NULL},
	{"password_encryption", GUC_ENUM, "scram-sha-256", NULL, false, false,
	 "Connections and Authentication / Authentication",
	 "Chooses the algorithm for encrypting passwords.", password_encryptions, 0, 0, NULL, NULL},
	G("port", GUC_INT, "5433", NULL, false, true, "Connections and Authentication / Connection Settings",
	  "Sets the TCP port the server listens on."),
	G("quote_all_identifiers", GUC_BOOL, "off", NULL, false, false, "Version and Platform Compatibility",
	  "When generating SQL fragments, quote all identifiers."),
	{"random_page_cost", GUC_REAL, "4", NULL, false, false, "Query Tuning / Planner Cost Constants",
	 "Sets the planner's estimate of the cost of a nonsequentially fetched disk page.", NULL, 0, 1000000, NULL,
	 NULL},
	{"role", GUC_STRING, "none", NULL, false, false, "Preset Options", "Sets the current role.", NULL, 0, 0,
	 check_role, assign_role},
	G("row_security", GUC_BOOL, "on", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Enable row security."),
	{"search_path", GUC_STRING, "\"$user\", public", NULL, false, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the schema search order for names that are not schema-qualified.", NULL, 0, 0, NULL, assign_search_path},
	{"seq_page_cost", GUC_REAL, "1", NULL, false, false, "Query Tuning / Planner Cost Constants",
	 "Sets the planner's estimate of the cost of a sequentially fetched disk page.", NULL, 0, 1000000, NULL, NULL},
	G("server_encoding", GUC_STRING, "UTF8", NULL, true, true, "Preset Options",
	  "Shows the server (database) character set encoding."),
	G("server_version", GUC_STRING, STRATA_PG_VERSION, NULL, true, true, "Preset Options",
	  "Shows the server version."),
	G("server_version_num", GUC_INT, "150018", NULL, false, true, "Preset Options",
	  "Shows the server version as an integer."),
	{"session_authorization", GUC_STRING, "", NULL, true, false, "Preset Options", "Sets the session user name.",
	 NULL, 0, 0, check_session_auth, assign_session_auth},
	{"standard_conforming_strings", GUC_BOOL, "on", NULL, true, false, "Version and Platform Compatibility",
	 "Causes '...' strings to treat backslashes literally.", NULL, 0, 0, NULL, assign_scs},
	{"statement_timeout", GUC_INT, "0", "ms", false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets the maximum allowed duration of any statement.", NULL, 0, 2147483647, NULL, assign_stmt_timeout},
	{"strata.backup_max_rate", GUC_INT, "0", "kB", false, false, "Strata",
	 "Caps the rate at which strata_backup() copies data, per second (0: no limit).", NULL, 0, 2147483647, NULL,
	 NULL},
	{"strata.copy_workers", GUC_INT, "-1", NULL, false, false, "Strata",
	 "Threads that parse COPY FROM's text and csv input beside the connection's (-1: one less than the cores, at most 4; 0: none).",
	 NULL, -1, 64, NULL, NULL},
	{"strata.default_salt_buckets", GUC_INT, "0", NULL, false, false, "Strata",
	 "Salt buckets of tables created without a salt_buckets option (0: not salted).", NULL, 0, 256, NULL, NULL},
	G("strata.partial_aggregation", GUC_BOOL, "off", NULL, false, false, "Strata",
	  "Lets the workers of a parallel scan aggregate their own rows, merged at the end (partial aggregation)."),
	{"strata.read_as_of", GUC_STRING, "", NULL, false, false, "Strata",
	 "Reads see the database as of this timestamp (read-only transactions; within the retention window).", NULL,
	 0, 0, sql_asof_check, sql_asof_assign},
	{"strata.row_format", GUC_ENUM, "default", NULL, false, false, "Strata",
	 "Row format of new tables: cells (a cell per column), packed (a row's columns in one cell) or default (the server's STRATA_ROW_FORMAT, else packed).",
	 row_formats, 0, 0, NULL, NULL},
	G("strata.scan_prefilter", GUC_BOOL, "on", NULL, false, false, "Strata",
	  "Lets a scan judge a LIKE on one column from the cell's bytes before decoding the row."),
	{"synchronize_seqscans", GUC_BOOL, "on", NULL, false, false,
	 "Version and Platform Compatibility / Previous PostgreSQL Versions", "Enable synchronized sequential scans.", NULL,
	 0, 0, NULL, NULL},
	{"synchronous_commit", GUC_ENUM, "on", NULL, false, false, "Write-Ahead Log / Settings",
	 "Sets the current transaction's synchronization level.", sync_commits, 0, 0, NULL, NULL},
	G("temp_tablespaces", GUC_STRING, "", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Sets the tablespace(s) to use for temporary tables and sort files."),
	{"TimeZone", GUC_STRING, "UTC", NULL, true, false, "Client Connection Defaults / Locale and Formatting",
	 "Sets the time zone for displaying and interpreting time stamps.", NULL, 0, 0, check_timezone,
	 assign_timezone},
	G("timezone_abbreviations", GUC_STRING, "Default", NULL, false, false,
	  "Client Connection Defaults / Locale and Formatting",
	  "Selects a file of time zone abbreviations."),
	G("transaction_deferrable", GUC_BOOL, "off", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures."),
	{"transaction_isolation", GUC_ENUM, "read committed", NULL, false, false,
	 "Client Connection Defaults / Statement Behavior",
	 "Sets the current transaction's isolation level.", iso_levels, 0, 0, NULL, NULL},
	G("transaction_read_only", GUC_BOOL, "off", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	  "Sets the current transaction's read-only status."),
	{"work_mem", GUC_INT, "4096", "kB", false, false, "Resource Usage / Memory",
	 "Sets the maximum memory to be used for query workspaces.", NULL, 64, 2147483647, NULL, assign_work_mem},
	{"xmloption", GUC_ENUM, "content", NULL, false, false, "Client Connection Defaults / Statement Behavior",
	 "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments.",
	 xmloptions, 0, 0, NULL, NULL},
};

int sql_guc_count(void) { return (int)UTIL_ARRAY_LEN(gucs); }
const sql_guc *sql_guc_nth(int i) { return i >= 0 && i < sql_guc_count() ? &gucs[i] : NULL; }

const sql_guc *sql_guc_find(const char *name)
{
	/* Executors look a few settings up per statement by literal name: a
	 * per-thread cache by the name's address saves comparing with every
	 * setting; the hit is checked by text (the address may be reused). */
	/* A name that is no setting (the placeholders strata.index_write_mode
	 * and strata.index_fault, read at every commit with indexes) is cached
	 * too, with a copy of its text to check the hit by. */
	static _Thread_local struct {
		const char *name;
		const sql_guc *g;
		char miss[40];
	} cache[16];
	size_t h = ((uintptr_t)name >> 3) % UTIL_ARRAY_LEN(cache);
	if (cache[h].name == name && strcmp(name, cache[h].g ? cache[h].g->name : cache[h].miss) == 0)
		return cache[h].g;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(gucs); i++)
		if (util_strcasecmp(gucs[i].name, name) == 0) {
			if (strcmp(name, gucs[i].name) == 0) {
				cache[h].name = name;
				cache[h].g = &gucs[i];
			}
			return &gucs[i];
		}
	size_t n = strlen(name);
	if (n < sizeof cache[h].miss) {
		cache[h].name = name;
		cache[h].g = NULL;
		memcpy(cache[h].miss, name, n + 1);
	}
	return NULL;
}

/* ---- value parsing and formatting ---- */

static int parse_bool(const char *v, bool *out)
{
	size_t n = strlen(v);
	if (!n)
		return -1;
	static const char *const yes[] = {"on", "true", "yes", "1"}, *const no[] = {"off", "false", "no", "0"};
	for (int i = 0; i < 4; i++) {
		if ((n >= (i == 0 ? 2 : 1) && !strncasecmp(v, yes[i], n) && n <= strlen(yes[i]))) {
			*out = true;
			return 0;
		}
		if ((n >= (i == 0 ? 2 : 1) && !strncasecmp(v, no[i], n) && n <= strlen(no[i]))) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* Parses an integer with an optional unit suffix into the setting's base unit. */
static int parse_int_unit(const sql_guc *g, const char *v, int64_t *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || errno)
		return -1;
	while (*end == ' ')
		end++;
	if (*end) {
		if (!g->unit)
			return -1;
		double mul;
		bool mem = !strcmp(g->unit, "kB") || !strcmp(g->unit, "8kB");
		if (mem) {
			double base = !strcmp(g->unit, "8kB") ? 8192 : 1024;
			if (!strcmp(end, "B"))
				mul = 1;
			else if (!strcmp(end, "kB"))
				mul = 1024;
			else if (!strcmp(end, "MB"))
				mul = 1024.0 * 1024;
			else if (!strcmp(end, "GB"))
				mul = 1024.0 * 1024 * 1024;
			else if (!strcmp(end, "TB"))
				mul = 1024.0 * 1024 * 1024 * 1024;
			else
				return -2;
			d = d * mul / base;
		} else {
			if (!strcmp(end, "us"))
				mul = 0.001;
			else if (!strcmp(end, "ms"))
				mul = 1;
			else if (!strcmp(end, "s"))
				mul = 1000;
			else if (!strcmp(end, "min"))
				mul = 60000;
			else if (!strcmp(end, "h"))
				mul = 3600000;
			else if (!strcmp(end, "d"))
				mul = 86400000;
			else
				return -2;
			d *= mul;
		}
	}
	if (d > 9.2e18 || d < -9.2e18)
		return -1;
	*out = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	return 0;
}

/* SHOW formatting: integers with units use the largest unit that divides evenly. */
static void format_value(const sql_guc *g, const char *v, util_buf *out)
{
	if (g->type != GUC_INT || !g->unit) {
		util_buf_puts(out, v);
		return;
	}
	int64_t n = atoll(v);
	if (!strcmp(g->unit, "ms")) {
		static const struct { const char *u; int64_t f; } us[] = {{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}};
		if (n != 0 && n != -1)
			for (size_t i = 0; i < UTIL_ARRAY_LEN(us); i++)
				if (n % us[i].f == 0) {
					util_buf_printf(out, "%lld%s", (long long)(n / us[i].f), us[i].u);
					return;
				}
		util_buf_printf(out, n == 0 || n == -1 ? "%lld" : "%lldms", (long long)n);
		return;
	}
	int64_t bytes = n * (!strcmp(g->unit, "8kB") ? 8192 : 1024);
	static const struct { const char *u; int64_t f; } ms[] = {{"TB", 1LL << 40}, {"GB", 1LL << 30}, {"MB", 1LL << 20}, {"kB", 1024}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(ms); i++)
		if (bytes != 0 && bytes % ms[i].f == 0) {
			util_buf_printf(out, "%lld%s", (long long)(bytes / ms[i].f), ms[i].u);
			return;
		}
	util_buf_printf(out, "%lldB", (long long)bytes);
}

/* Canonicalises a new value; -1 with err on bad input. */
static int canonical(sql_session *s, const sql_guc *g, const char *in, util_buf *out, util_err *err)
{
	if (g->check)
		return g->check(s, in, out, err);
	switch (g->type) {
	case GUC_BOOL: {
		bool b;
		if (parse_bool(in, &b) != 0)
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "parameter \"%s\" requires a Boolean value",
					    g->name);
		util_buf_puts(out, b ? "on" : "off");
		return 0;
	}
	case GUC_INT: {
		int64_t v;
		int r = parse_int_unit(g, in, &v);
		if (r != 0) {
			util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for parameter \"%s\": \"%s\"", g->name,
				     in);
			if (r == -2)
				util_err_hint(err, "Valid units for this parameter are %s.",
					      !strcmp(g->unit, "ms") ? "\"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\""
								     : "\"B\", \"kB\", \"MB\", \"GB\", and \"TB\"");
			return -1;
		}
		if ((g->min || g->max) && (v < g->min || v > g->max))
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					    "%lld%s%s is outside the valid range for parameter \"%s\" (%lld .. %lld)",
					    (long long)v, g->unit ? " " : "", g->unit ? g->unit : "", g->name,
					    (long long)g->min, (long long)g->max);
		util_buf_printf(out, "%lld", (long long)v);
		return 0;
	}
	case GUC_REAL: {
		char *end;
		double d = strtod(in, &end);
		if (end == in || *end)
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "parameter \"%s\" requires a numeric value",
					    g->name);
		if ((g->min || g->max) && (d < (double)g->min || d > (double)g->max))
			return util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
					    "%g is outside the valid range for parameter \"%s\" (%lld .. %lld)", d, g->name,
					    (long long)g->min, (long long)g->max);
		util_buf_printf(out, "%g", d);
		return 0;
	}
	case GUC_ENUM:
		for (int i = 0; g->enums[i]; i++)
			if (util_strcasecmp(g->enums[i], in) == 0) {
				util_buf_puts(out, g->enums[i]);
				return 0;
			}
		{
			util_buf hint = UTIL_BUF_INIT;
			for (int i = 0; g->enums[i]; i++)
				util_buf_printf(&hint, "%s\"%s\"", i ? ", " : "", g->enums[i]);
			util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for parameter \"%s\": \"%s\"", g->name,
				     in);
			util_err_hint(err, "Available values: %s.", hint.data);
			util_buf_free(&hint);
		}
		return -1;
	case GUC_STRING:
		util_buf_puts(out, in);
		return 0;
	}
	return 0;
}

/* ---- per-session values ---- */

static sql_guc_value *slot(sql_session *s, const char *name)
{
	const sql_guc *g = sql_guc_find(name);
	const char *key = g ? g->name : name;
	sql_guc_value *v = util_map_gets(&s->gucs, key);
	if (!v && g) {
		v = util_xcalloc(1, sizeof *v);
		v->value = util_xstrdup(g->boot);
		v->reset = util_xstrdup(g->boot);
		util_map_puts(&s->gucs, key, v);
	}
	return v;
}

const char *sql_guc_get(sql_session *s, const char *name)
{
	if (!util_strcasecmp(name, "is_superuser"))
		return s->superuser ? "on" : "off";
	if (!util_strcasecmp(name, "session_authorization"))
		return s->session_user[0] ? s->session_user : s->user;
	if (!util_strcasecmp(name, "transaction_isolation") && s->txn)
		return iso_levels[s->txn->iso == SQL_SERIALIZABLE ? 0 : s->txn->iso == SQL_REPEATABLE_READ ? 1 : 2];
	if (!util_strcasecmp(name, "transaction_read_only") && s->txn)
		return s->txn->read_only ? "on" : "off";
	if (!util_strcasecmp(name, "max_connections")) {
		static _Thread_local char buf[16];
		snprintf(buf, sizeof buf, "%d", s->e->opts.max_connections);
		return buf;
	}
	sql_guc_value *v = slot(s, name);
	return v ? v->value : NULL;
}

static void set_value(sql_session *s, const sql_guc *g, const char *name, const char *val, bool as_reset)
{
	sql_guc_value *v = slot(s, name);
	if (!v) { /* custom placeholder variable (name with a dot) */
		v = util_xcalloc(1, sizeof *v);
		v->value = util_xstrdup("");
		v->reset = util_xstrdup("");
		util_map_puts(&s->gucs, name, v);
	}
	bool differs = strcmp(v->value, val) != 0;
	if (differs)
		s->guc_gen++; /* cached unnamed statements were analyzed under the old value */
	free(v->value);
	v->value = util_xstrdup(val);
	if (as_reset) {
		free(v->reset);
		v->reset = util_xstrdup(val);
	}
	if (g && g->assign)
		g->assign(s, val);
	if (g && g->report && differs && s->client.parameter_status)
		s->client.parameter_status(s->client.arg, g->name, val);
}

/* A saved value for SET LOCAL / transactional SET, restored at txn end. */
typedef struct guc_undo guc_undo;
struct guc_undo {
	char *name;
	char *prior;
	bool local;
	struct guc_undo *next;
};


int sql_guc_set(sql_session *s, const char *name, const char *value, bool local, util_err *err)
{
	const sql_guc *g = sql_guc_find(name);
	if (!g && !strchr(name, '.'))
		return util_err_set(err, UTIL_E_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"", name);
	if (g && g->readonly)
		return util_err_set(err, UTIL_E_CANT_CHANGE_RUNTIME_PARAM, "parameter \"%s\" cannot be changed", g->name);
	util_buf canon = UTIL_BUF_INIT;
	const char *in = value;
	if (!value) /* RESET / SET ... TO DEFAULT */
		in = slot(s, g ? g->name : name) ? slot(s, g ? g->name : name)->reset : "";
	if (g && canonical(s, g, in, &canon, err) != 0) {
		util_buf_free(&canon);
		return -1;
	}
	if (!g)
		util_buf_puts(&canon, in);
	const char *key = g ? g->name : name;
	if (s->txn) {
		const char *prior = sql_guc_get(s, key);
		guc_undo *u = util_xcalloc(1, sizeof *u);
		u->name = util_xstrdup(key);
		u->prior = util_xstrdup(prior ? prior : "");
		u->local = local;
		u->next = s->guc_undo;
		s->guc_undo = u;
	}
	set_value(s, g, key, canon.data ? canon.data : "", false);
	util_buf_free(&canon);
	return 0;
}

static void undo_free(guc_undo *u)
{
	free(u->name);
	free(u->prior);
	free(u);
}

void sql_guc_end_txn(sql_session *s, bool commit)
{
	/* Newest first. On abort every change is undone; on commit only SET
	 * LOCAL, unless a plain SET of the same name came after it. */
	guc_undo *u = s->guc_undo;
	s->guc_undo = NULL;
	util_map plain = UTIL_MAP_INIT;
	while (u) {
		guc_undo *next = u->next;
		if (!commit)
			set_value(s, sql_guc_find(u->name), u->name, u->prior, false);
		else if (!u->local)
			util_map_puts(&plain, u->name, (void *)1);
		else if (!util_map_gets(&plain, u->name))
			set_value(s, sql_guc_find(u->name), u->name, u->prior, false);
		undo_free(u);
		u = next;
	}
	util_map_free(&plain);
}

void sql_guc_init_session(sql_session *s)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(gucs); i++) {
		const sql_guc *g = &gucs[i];
		sql_guc_value *v = util_xcalloc(1, sizeof *v);
		v->value = util_xstrdup(g->boot);
		v->reset = util_xstrdup(g->boot);
		util_map_puts(&s->gucs, g->name, v);
		if (g->assign)
			g->assign(s, g->boot);
	}
	char mc[16];
	snprintf(mc, sizeof mc, "%d", s->e->opts.max_connections);
	sql_guc_value *v = util_map_gets(&s->gucs, "max_connections");
	free(v->value);
	v->value = util_xstrdup(mc);
}

/* Startup-packet settings become the values RESET returns to. */
int sql_guc_set_startup(sql_session *s, const char *name, const char *value, util_err *err)
{
	const sql_guc *g = sql_guc_find(name);
	if (!g && !strchr(name, '.'))
		return util_err_set(err, UTIL_E_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"", name);
	if (g && g->readonly)
		return util_err_set(err, UTIL_E_CANT_CHANGE_RUNTIME_PARAM, "parameter \"%s\" cannot be changed", g->name);
	util_buf canon = UTIL_BUF_INIT;
	if (g && canonical(s, g, value, &canon, err) != 0) {
		util_buf_free(&canon);
		return -1;
	}
	if (!g)
		util_buf_puts(&canon, value);
	sql_client saved = s->client;
	s->client.parameter_status = NULL; /* reported all together after authentication */
	set_value(s, g, g ? g->name : name, canon.data ? canon.data : "", true);
	s->client = saved;
	util_buf_free(&canon);
	return 0;
}

void sql_guc_reset_all(sql_session *s)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(gucs); i++) {
		if (gucs[i].readonly)
			continue;
		sql_guc_value *v = util_map_gets(&s->gucs, gucs[i].name);
		if (v && strcmp(v->value, v->reset) != 0) {
			char *r = util_xstrdup(v->reset);
			set_value(s, &gucs[i], gucs[i].name, r, false);
			free(r);
		}
	}
}

static int cmp_name(const void *a, const void *b)
{
	return util_strcasecmp((*(const sql_guc *const *)a)->name, (*(const sql_guc *const *)b)->name);
}

void sql_guc_report_all(sql_session *s, void (*fn)(void *arg, const char *name, const char *value), void *arg)
{
	const sql_guc *list[UTIL_ARRAY_LEN(gucs)];
	size_t n = 0;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(gucs); i++)
		if (gucs[i].report)
			list[n++] = &gucs[i];
	qsort(list, n, sizeof *list, cmp_name);
	for (size_t i = 0; i < n; i++)
		fn(arg, list[i]->name, sql_guc_get(s, list[i]->name));
}

/* SHOW value as PostgreSQL prints it (units folded). */
void sql_guc_show(sql_session *s, const char *name, util_buf *out, util_err *err, bool *found)
{
	const sql_guc *g = sql_guc_find(name);
	*found = false;
	const char *v = sql_guc_get(s, g ? g->name : name);
	if (!g && (!v || !util_map_gets(&s->gucs, name))) {
		util_err_set(err, UTIL_E_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"", name);
		return;
	}
	*found = true;
	if (g)
		format_value(g, v, out);
	else
		util_buf_puts(out, v);
}

void sql_guc_free_session(sql_session *s)
{
	/* A session that ends inside a transaction (idle timeout, terminate,
	 * a lost client) still holds the transaction's undo entries. */
	for (guc_undo *u = s->guc_undo, *next; u; u = next) {
		next = u->next;
		undo_free(u);
	}
	s->guc_undo = NULL;
	size_t pos = 0;
	void *v;
	while (util_map_next(&s->gucs, &pos, NULL, NULL, &v)) {
		sql_guc_value *gv = v;
		free(gv->value);
		free(gv->reset);
		free(gv);
	}
	util_map_free(&s->gucs);
}
