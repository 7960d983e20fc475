/*
 * ddl_pending.c — DDL that Strata does not execute yet reports PostgreSQL's
 * feature_not_supported (0A000) with the feature's name, never a wrong
 * result: CREATE INDEX (the index module replaces these).
 * Each moves to its own file when implemented.
 */
#include "sql_int.h"

void sql_ddl_index(sql_session *s, PgQuery__IndexStmt *st, const char *text)
{
	(void)s;
	(void)st;
	(void)text;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "CREATE INDEX is not supported yet");
}

void sql_create_constraint_indexes(sql_session *s, cat_oid table)
{
	const cat_obj *o = cat_get(cat_txn_snap(sql_txn_ddl(s->txn)), table);
	for (int i = 0; o && i < o->rel.ncons; i++)
		if (o->rel.cons[i].type == 'u')
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "UNIQUE constraints are not supported yet");
}

void sql_drop_index(sql_session *s, cat_txn *ct, const cat_obj *index, bool cascade)
{
	(void)s;
	(void)ct;
	(void)index;
	(void)cascade;
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "DROP INDEX is not supported yet");
}
