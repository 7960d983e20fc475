/*
 * parse.c — SQL text to raw parse trees with libpg_query (PostgreSQL's own
 * grammar, as protobuf unpacked into protobuf-c structs), syntax errors with
 * their cursor position, and PostgreSQL's command tags.
 */
#include <stdio.h>
#include <string.h>

#include "sql_int.h"

PgQuery__ParseResult *sql_parse_text(const char *text, util_err *err)
{
	PgQueryProtobufParseResult r = pg_query_parse_protobuf(text);
	if (r.error) {
		util_err_set(err, UTIL_E_SYNTAX_ERROR, "%s", r.error->message);
		/* libpg_query reports lexer/grammar errors; a few carry other codes. */
		if (strstr(r.error->message, "unterminated") || strstr(r.error->message, "zero-length"))
			err->code = UTIL_E_SYNTAX_ERROR;
		else if (strstr(r.error->message, "invalid byte sequence"))
			err->code = UTIL_E_CHARACTER_NOT_IN_REPERTOIRE;
		else if (strstr(r.error->message, "is out of range"))
			err->code = UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE;
		else if (!strcmp(r.error->message, "invalid Unicode escape")) {
			err->code = UTIL_E_INVALID_ESCAPE_SEQUENCE;
			util_err_hint(err, "Unicode escapes must be \\uXXXX or \\UXXXXXXXX.");
		} else if (strstr(r.error->message, "stack depth limit exceeded"))
			err->code = UTIL_E_STATEMENT_TOO_COMPLEX;
		else if (!strncmp(r.error->message, "frame start", 11) || !strncmp(r.error->message, "frame end", 9))
			err->code = UTIL_E_WINDOWING_ERROR; /* gram.y's frame clause checks */
		else if (!strncmp(r.error->message, "precision for type float", 24))
			err->code = UTIL_E_INVALID_PARAMETER_VALUE; /* gram.y's float(p) check */
		else if (strstr(r.error->message, "not supported") || strstr(r.error->message, "not implemented"))
			err->code = UTIL_E_FEATURE_NOT_SUPPORTED;
		if (!strcmp(r.error->message, "subquery in FROM must have an alias"))
			util_err_hint(err, "For example, FROM (SELECT ...) [AS] foo.");
		else if (!strcmp(r.error->message, "VALUES in FROM must have an alias"))
			util_err_hint(err, "For example, FROM (VALUES ...) [AS] foo.");
		err->position = r.error->cursorpos;
		pg_query_free_protobuf_parse_result(r);
		return NULL;
	}
	/* protobuf-c unpacks recursively: bound the nesting by the stack left
	 * first (a tree of n bytes is at most n/2 levels deep, so small ones
	 * need no look). */
	size_t left = sql_stack_left() / SQL_PROTOBUF_LEVEL_STACK;
	int max_nesting = left > 100000 ? 100000 : (int)left;
	if (r.parse_tree.len > 2 * (size_t)max_nesting &&
	    sql_protobuf_too_deep((const uint8_t *)r.parse_tree.data, r.parse_tree.len, max_nesting)) {
		pg_query_free_protobuf_parse_result(r);
		util_err_set(err, UTIL_E_STATEMENT_TOO_COMPLEX, "stack depth limit exceeded");
		util_err_hint(err, "The statement is nested too deeply; simplify it.");
		return NULL;
	}
	PgQuery__ParseResult *pr =
		pg_query__parse_result__unpack(NULL, r.parse_tree.len, (const uint8_t *)r.parse_tree.data);
	pg_query_free_protobuf_parse_result(r);
	if (!pr)
		util_err_set(err, UTIL_E_OUT_OF_MEMORY, "out of memory");
	return pr;
}

static const char *objtype_name(PgQuery__ObjectType t)
{
	switch (t) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE: return "TABLE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: return "INDEX";
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE: return "SEQUENCE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW: return "VIEW";
	case PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW: return "MATERIALIZED VIEW";
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: return "SCHEMA";
	case PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE: return "DATABASE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_ROLE: return "ROLE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION: return "FUNCTION";
	case PG_QUERY__OBJECT_TYPE__OBJECT_PROCEDURE: return "PROCEDURE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_TYPE: return "TYPE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_DOMAIN: return "DOMAIN";
	case PG_QUERY__OBJECT_TYPE__OBJECT_EXTENSION: return "EXTENSION";
	case PG_QUERY__OBJECT_TYPE__OBJECT_TRIGGER: return "TRIGGER";
	case PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN: return "COLUMN";
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT: return "CONSTRAINT";
	case PG_QUERY__OBJECT_TYPE__OBJECT_FOREIGN_TABLE: return "FOREIGN TABLE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_AGGREGATE: return "AGGREGATE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_RULE: return "RULE";
	case PG_QUERY__OBJECT_TYPE__OBJECT_POLICY: return "POLICY";
	case PG_QUERY__OBJECT_TYPE__OBJECT_COLLATION: return "COLLATION";
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLESPACE: return "TABLESPACE";
	default: return "OBJECT";
	}
}

bool sql_stmt_is_utility(pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_SELECT_STMT:
		return n->select_stmt->into_clause != NULL; /* SELECT INTO is CREATE TABLE AS */
	case PG_QUERY__NODE__NODE_INSERT_STMT:
	case PG_QUERY__NODE__NODE_UPDATE_STMT:
	case PG_QUERY__NODE__NODE_DELETE_STMT:
		return false;
	default:
		return true;
	}
}

const char *sql_command_tag(pnode *n)
{
	static _Thread_local char buf[64];
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_SELECT_STMT:
		return "SELECT";
	case PG_QUERY__NODE__NODE_INSERT_STMT: return "INSERT";
	case PG_QUERY__NODE__NODE_UPDATE_STMT: return "UPDATE";
	case PG_QUERY__NODE__NODE_DELETE_STMT: return "DELETE";
	case PG_QUERY__NODE__NODE_MERGE_STMT: return "MERGE";
	case PG_QUERY__NODE__NODE_CREATE_STMT: return "CREATE TABLE";
	case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
		return n->create_table_as_stmt->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_MATVIEW ? "CREATE MATERIALIZED VIEW"
		       : n->create_table_as_stmt->is_select_into				   ? "SELECT"
												   : "CREATE TABLE AS";
	case PG_QUERY__NODE__NODE_DROP_STMT:
		snprintf(buf, sizeof buf, "DROP %s", objtype_name(n->drop_stmt->remove_type));
		return buf;
	case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
		snprintf(buf, sizeof buf, "ALTER %s", objtype_name(n->alter_table_stmt->objtype));
		return buf;
	case PG_QUERY__NODE__NODE_RENAME_STMT: {
		PgQuery__ObjectType t = n->rename_stmt->rename_type;
		if (t == PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN || t == PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT)
			t = n->rename_stmt->relation_type;
		snprintf(buf, sizeof buf, "ALTER %s", objtype_name(t));
		return buf;
	}
	case PG_QUERY__NODE__NODE_ALTER_OBJECT_SCHEMA_STMT:
		snprintf(buf, sizeof buf, "ALTER %s", objtype_name(n->alter_object_schema_stmt->object_type));
		return buf;
	case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
		snprintf(buf, sizeof buf, "ALTER %s", objtype_name(n->alter_owner_stmt->object_type));
		return buf;
	case PG_QUERY__NODE__NODE_INDEX_STMT: return "CREATE INDEX";
	case PG_QUERY__NODE__NODE_VIEW_STMT: return "CREATE VIEW";
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT: return "CREATE SEQUENCE";
	case PG_QUERY__NODE__NODE_ALTER_SEQ_STMT: return "ALTER SEQUENCE";
	case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT: return "CREATE SCHEMA";
	case PG_QUERY__NODE__NODE_CREATEDB_STMT: return "CREATE DATABASE";
	case PG_QUERY__NODE__NODE_DROPDB_STMT: return "DROP DATABASE";
	case PG_QUERY__NODE__NODE_ALTER_DATABASE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_DATABASE_SET_STMT: return "ALTER DATABASE";
	case PG_QUERY__NODE__NODE_TRUNCATE_STMT: return "TRUNCATE TABLE";
	case PG_QUERY__NODE__NODE_COMMENT_STMT: return "COMMENT";
	case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT:
		return n->create_role_stmt->stmt_type == PG_QUERY__ROLE_STMT_TYPE__ROLESTMT_USER ? "CREATE ROLE" : "CREATE ROLE";
	case PG_QUERY__NODE__NODE_ALTER_ROLE_STMT:
	case PG_QUERY__NODE__NODE_ALTER_ROLE_SET_STMT: return "ALTER ROLE";
	case PG_QUERY__NODE__NODE_DROP_ROLE_STMT: return "DROP ROLE";
	case PG_QUERY__NODE__NODE_GRANT_STMT: return n->grant_stmt->is_grant ? "GRANT" : "REVOKE";
	case PG_QUERY__NODE__NODE_GRANT_ROLE_STMT: return n->grant_role_stmt->is_grant ? "GRANT ROLE" : "REVOKE ROLE";
	case PG_QUERY__NODE__NODE_ALTER_DEFAULT_PRIVILEGES_STMT: return "ALTER DEFAULT PRIVILEGES";
	case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
		switch (n->transaction_stmt->kind) {
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN: return "BEGIN";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START: return "START TRANSACTION";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT: return "COMMIT";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO: return "ROLLBACK";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT: return "SAVEPOINT";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE: return "RELEASE";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_PREPARE: return "PREPARE TRANSACTION";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT_PREPARED: return "COMMIT PREPARED";
		case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_PREPARED: return "ROLLBACK PREPARED";
		default: return "???";
		}
	case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
		return n->variable_set_stmt->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET ||
				       n->variable_set_stmt->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL
			       ? "RESET"
			       : "SET";
	case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT: return "SHOW";
	case PG_QUERY__NODE__NODE_DISCARD_STMT:
		switch (n->discard_stmt->target) {
		case PG_QUERY__DISCARD_MODE__DISCARD_ALL: return "DISCARD ALL";
		case PG_QUERY__DISCARD_MODE__DISCARD_PLANS: return "DISCARD PLANS";
		case PG_QUERY__DISCARD_MODE__DISCARD_SEQUENCES: return "DISCARD SEQUENCES";
		default: return "DISCARD TEMP";
		}
	case PG_QUERY__NODE__NODE_EXPLAIN_STMT: return "EXPLAIN";
	case PG_QUERY__NODE__NODE_COPY_STMT: return "COPY";
	case PG_QUERY__NODE__NODE_PREPARE_STMT: return "PREPARE";
	case PG_QUERY__NODE__NODE_EXECUTE_STMT: return "EXECUTE";
	case PG_QUERY__NODE__NODE_DEALLOCATE_STMT: return n->deallocate_stmt->name && *n->deallocate_stmt->name ? "DEALLOCATE" : "DEALLOCATE ALL";
	case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT: return "DECLARE CURSOR";
	case PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT: return n->close_portal_stmt->portalname && *n->close_portal_stmt->portalname ? "CLOSE CURSOR" : "CLOSE CURSOR ALL";
	case PG_QUERY__NODE__NODE_FETCH_STMT: return n->fetch_stmt->ismove ? "MOVE" : "FETCH";
	case PG_QUERY__NODE__NODE_VACUUM_STMT: return n->vacuum_stmt->is_vacuumcmd ? "VACUUM" : "ANALYZE";
	case PG_QUERY__NODE__NODE_CHECK_POINT_STMT: return "CHECKPOINT";
	case PG_QUERY__NODE__NODE_LOCK_STMT: return "LOCK TABLE";
	case PG_QUERY__NODE__NODE_CONSTRAINTS_SET_STMT: return "SET CONSTRAINTS";
	case PG_QUERY__NODE__NODE_REINDEX_STMT: return "REINDEX";
	case PG_QUERY__NODE__NODE_CREATE_EXTENSION_STMT: return "CREATE EXTENSION";
	case PG_QUERY__NODE__NODE_CREATE_FUNCTION_STMT: return n->create_function_stmt->is_procedure ? "CREATE PROCEDURE" : "CREATE FUNCTION";
	case PG_QUERY__NODE__NODE_DO_STMT: return "DO";
	case PG_QUERY__NODE__NODE_CALL_STMT: return "CALL";
	case PG_QUERY__NODE__NODE_LISTEN_STMT: return "LISTEN";
	case PG_QUERY__NODE__NODE_UNLISTEN_STMT: return "UNLISTEN";
	case PG_QUERY__NODE__NODE_NOTIFY_STMT: return "NOTIFY";
	case PG_QUERY__NODE__NODE_CREATE_TRIG_STMT: return "CREATE TRIGGER";
	case PG_QUERY__NODE__NODE_DEFINE_STMT: return "CREATE AGGREGATE";
	case PG_QUERY__NODE__NODE_COMPOSITE_TYPE_STMT:
	case PG_QUERY__NODE__NODE_CREATE_ENUM_STMT: return "CREATE TYPE";
	case PG_QUERY__NODE__NODE_CREATE_DOMAIN_STMT: return "CREATE DOMAIN";
	case PG_QUERY__NODE__NODE_CLUSTER_STMT: return "CLUSTER";
	case PG_QUERY__NODE__NODE_LOAD_STMT: return "LOAD";
	case PG_QUERY__NODE__NODE_CREATE_STATS_STMT: return "CREATE STATISTICS";
	case PG_QUERY__NODE__NODE_REFRESH_MAT_VIEW_STMT: return "REFRESH MATERIALIZED VIEW";
	case PG_QUERY__NODE__NODE_CREATE_POLICY_STMT: return "CREATE POLICY";
	case PG_QUERY__NODE__NODE_CREATE_PUBLICATION_STMT: return "CREATE PUBLICATION";
	case PG_QUERY__NODE__NODE_ALTER_SYSTEM_STMT: return "ALTER SYSTEM";
	default: return "???";
	}
}
