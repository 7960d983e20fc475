/*
 * rel_lock.c — relation locks, so DDL that replaces a table's storage or
 * shape (ALTER TABLE, TRUNCATE, DROP, RENAME) never races the statements
 * using the table. PostgreSQL's eight table lock modes reduce here to two:
 * statements reading or writing a relation hold it shared (PostgreSQL's
 * ACCESS SHARE / ROW EXCLUSIVE, which do not conflict with each other),
 * DDL holds it exclusively (ACCESS EXCLUSIVE). Both live in the row lock
 * manager (txn_lock.c) as a lock on the relation's empty row key, in its
 * FOR KEY SHARE and FOR UPDATE modes, so waits, lock_timeout, cancel and
 * deadlock detection are shared with row locks; they are held to the end
 * of the transaction.
 *
 * A statement planned before a DDL committed finds the relation changed
 * once it holds the lock: it fails with 40001 (PostgreSQL would plan it
 * again) rather than read a storage that is gone. A new row estimate from
 * (auto-)ANALYZE is no such change.
 */
#include "sql_int.h"

static const uint8_t relkey[1] = {0};

void sql_rel_lock(sql_session *s, cat_oid rel, bool exclusive)
{
	if (!s->txn)
		return;
	sql_txn_lock_row(s->txn, rel, relkey, 0,
			 exclusive ? PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE
				   : PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE,
			 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
}

/* LOCK TABLE: PostgreSQL's eight modes on the two above. ACCESS SHARE, ROW
 * SHARE and ROW EXCLUSIVE (1-3) conflict with none of the statements' locks
 * and take the shared one; the stronger modes (4-8) take the exclusive one,
 * which also keeps readers out: stricter than PostgreSQL for SHARE UPDATE
 * EXCLUSIVE .. EXCLUSIVE, never weaker. */
void sql_lock_table_stmt(sql_session *s, PgQuery__LockStmt *st)
{
	if (!s->txn)
		return;
	for (size_t i = 0; i < st->n_relations; i++) {
		pnode *n = st->relations[i];
		if (n->node_case != PG_QUERY__NODE__NODE_RANGE_VAR)
			continue;
		const cat_obj *o = sql_lookup_rel(s, s->cat, n->range_var, false);
		if (o->rel.relkind != CAT_RELKIND_TABLE && o->rel.relkind != CAT_RELKIND_VIEW)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table or view", o->rel.name);
		sql_txn_lock_row(s->txn, o->oid, relkey, 0,
				 st->mode >= 4 ? PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE
					       : PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE,
				 st->nowait ? PG_QUERY__LOCK_WAIT_POLICY__LockWaitError
					    : PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock,
				 NULL);
	}
}

void sql_rel_check_current(sql_session *s, cat_snap *cs, const cat_oid *rels, int n)
{
	if (!n || !cat_snap_stale(s->e->cat, cs))
		return;
	/* Only this transaction's own DDL may have changed them since. */
	if (s->txn && s->txn->ddl)
		return;
	cat_snap *cur = cat_current(s->e->cat);
	for (int i = 0; i < n; i++) {
		const cat_obj *a = cat_get(cs, rels[i]), *b = cat_get(cur, rels[i]);
		if (!cat_obj_same_definition(a, b)) {
			const char *name = a ? a->rel.name : b ? b->rel.name : "?";
			cat_snap_release(cur);
			util_err *e = ty_errstart(
			    UTIL_E_T_R_SERIALIZATION_FAILURE,
			    "could not serialize access due to concurrent change of relation \"%s\"", name);
			util_err_hint(e, "The relation was altered or dropped while the statement waited for "
					 "it. Retry the statement.");
			ty_errthrow();
		}
	}
	cat_snap_release(cur);
}
