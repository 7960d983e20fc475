/*
 * ddl_schema.c — CREATE SCHEMA [IF NOT EXISTS] [AUTHORIZATION role] with
 * schema elements (tables, views, sequences, indexes, grants created inside
 * the new schema, in PostgreSQL's order: sequences, tables, views, indexes,
 * grants), run as the schema's owner.
 */
#include <stdio.h>
#include <string.h>

#include "ddl_int.h"

void sql_exec_ddl(sql_session *s, pnode *n, const char *text, sql_complete *c);

/* The RangeVar an element creates (NULL if it names none). */
static PgQuery__RangeVar *element_rv(pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_STMT:
		return n->create_stmt->relation;
	case PG_QUERY__NODE__NODE_VIEW_STMT:
		return n->view_stmt->view;
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
		return n->create_seq_stmt->sequence;
	case PG_QUERY__NODE__NODE_INDEX_STMT:
		return n->index_stmt->relation;
	default:
		return NULL;
	}
}

static int element_rank(pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_SEQ_STMT:
		return 0;
	case PG_QUERY__NODE__NODE_CREATE_STMT:
		return 1;
	case PG_QUERY__NODE__NODE_VIEW_STMT:
		return 2;
	case PG_QUERY__NODE__NODE_INDEX_STMT:
		return 3;
	case PG_QUERY__NODE__NODE_CREATE_TRIG_STMT:
		return 4;
	default:
		return 5;
	}
}

/* Where the first element starts (PostgreSQL points there): the CREATE or
 * GRANT word before the first element's name. */
static int element_position(const char *text, pnode *n)
{
	PgQuery__RangeVar *rv = element_rv(n);
	if (!text || !rv || rv->location < 0)
		return 0;
	for (int i = rv->location; i >= 6; i--)
		if (!strncasecmp(text + i - 6, "create", 6) || !strncasecmp(text + i - 6, "grant ", 6))
			return sql_errposition(text, i - 6);
	return 0;
}

void sql_ddl_create_schema(sql_session *s, PgQuery__CreateSchemaStmt *st, const char *text, sql_complete *c)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	if (st->if_not_exists && st->n_schema_elts) {
		util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					  "CREATE SCHEMA IF NOT EXISTS cannot include schema elements");
		e->position = element_position(text, st->schema_elts[0]);
		ty_errthrow();
	}
	cat_oid owner = s->user_oid;
	if (st->authrole) {
		owner = sql_priv_role_oid(s, cs, st->authrole, false);
		if (!owner)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"public\" does not exist");
	}
	const char *name = st->schemaname && *st->schemaname ? st->schemaname : NULL;
	const cat_obj *owner_role = cat_get(cs, owner);
	if (!name)
		name = owner_role ? owner_role->role.name : "?";
	/* Creating schemas is the database's CREATE privilege: its owner's. */
	const cat_obj *db = cat_get(cs, s->db_oid);
	if (!sql_priv_is_owner(s, cs, db ? db->db.owner : CAT_OID_POSTGRES_ROLE))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for database %s", s->database);
	if (owner != s->user_oid && !sql_priv_inherits_role(s, cs, s->user_oid, owner))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be member of role \"%s\"",
			 owner_role ? owner_role->role.name : "?");
	if (!strncmp(name, "pg_", 3)) {
		util_err *e = ty_errstart(UTIL_E_RESERVED_NAME, "unacceptable schema name \"%s\"", name);
		util_err_detail(e, "The prefix \"pg_\" is reserved for system schemas.");
		ty_errthrow();
	}
	if (strlen(name) >= CAT_NAME_MAX)
		ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
	if (sql_lookup_schema(s, cs, name)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists, skipping",
				   name);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists", name);
	}
	/* Elements may not name another schema. */
	for (size_t i = 0; i < st->n_schema_elts; i++) {
		PgQuery__RangeVar *rv = element_rv(st->schema_elts[i]);
		if (rv && rv->schemaname && *rv->schemaname && strcmp(rv->schemaname, name)) {
			util_err *e = ty_errstart(
			    UTIL_E_INVALID_SCHEMA_DEFINITION,
			    "CREATE specifies a schema (%s) different from the one being created (%s)",
			    rv->schemaname, name);
			(void)e;
			ty_errthrow();
		}
	}
	cat_obj *o = cat_obj_new(CAT_SCHEMA, sql_ddl_new_oid(s), s->db_oid);
	snprintf(o->schema.name, sizeof o->schema.name, "%s", name);
	o->schema.owner = owner;
	sql_priv_apply_default_acl(s, cs, o);
	cat_txn_put(ct, o);
	if (!st->n_schema_elts)
		return;
	/* The elements run in the new schema, as its owner. */
	pnode **elts = ty_alloc(sizeof(pnode *) * st->n_schema_elts);
	size_t n = 0;
	for (int rank = 0; rank <= 5; rank++)
		for (size_t i = 0; i < st->n_schema_elts; i++)
			if (element_rank(st->schema_elts[i]) == rank)
				elts[n++] = st->schema_elts[i];
	char saved_user[CAT_NAME_MAX];
	snprintf(saved_user, sizeof saved_user, "%s", s->user);
	cat_oid saved_oid = s->user_oid;
	bool saved_su = s->superuser;
	char saved_path[sizeof s->search_path];
	snprintf(saved_path, sizeof saved_path, "%s", s->search_path);
	if (owner_role && owner != s->user_oid) {
		snprintf(s->user, sizeof s->user, "%s", owner_role->role.name);
		s->user_oid = owner;
		s->superuser = owner_role->role.superuser;
	}
	/* Unqualified names inside the elements resolve in the new schema first. */
	util_buf path = UTIL_BUF_INIT;
	sql_quote_ident(name, &path);
	util_buf_printf(&path, ", %s", saved_path);
	snprintf(s->search_path, sizeof s->search_path, "%s", path.data);
	util_buf_free(&path);
	TY_TRY(tc)
	{
		for (size_t i = 0; i < n; i++)
			sql_exec_ddl(s, elts[i], text, c);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		snprintf(s->user, sizeof s->user, "%s", saved_user);
		s->user_oid = saved_oid;
		s->superuser = saved_su;
		snprintf(s->search_path, sizeof s->search_path, "%s", saved_path);
		ty_errthrow();
	}
	TY_END(tc);
	snprintf(s->user, sizeof s->user, "%s", saved_user);
	s->user_oid = saved_oid;
	s->superuser = saved_su;
	snprintf(s->search_path, sizeof s->search_path, "%s", saved_path);
	snprintf(c->tag, sizeof c->tag, "CREATE SCHEMA");
}
