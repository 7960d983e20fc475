/*
 * ddl_pending.c — DDL that Strata does not execute yet reports PostgreSQL's
 * feature_not_supported (0A000) with the feature's name, never a wrong
 * result: ALTER TABLE, GRANT/REVOKE and ownership changes.
 * Each moves to its own file when implemented.
 */
#include "sql_int.h"

void sql_ddl_alter_table(sql_session *s, PgQuery__AlterTableStmt *st, const char *text)
{
	(void)s;
	(void)st;
	(void)text;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "ALTER TABLE is not supported yet");
}

void sql_ddl_grant(sql_session *s, pnode *stmt)
{
	(void)s;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported yet", sql_command_tag(stmt));
}
