/*
 * ddl_role.c — CREATE/ALTER/DROP ROLE and USER with PostgreSQL 15's rules:
 * who may create or change which roles (superuser, CREATEROLE, oneself),
 * role options (LOGIN, SUPERUSER, PASSWORD as SCRAM secret, VALID UNTIL,
 * CONNECTION LIMIT ...), memberships given at creation (IN ROLE, ROLE,
 * ADMIN), renaming, and DROP ROLE refusing while objects or privileges
 * depend on the role.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

static const cat_role *me(sql_session *s, cat_snap *cs)
{
	const cat_obj *o = cat_get(cs, s->user_oid);
	return o && o->kind == CAT_ROLE ? &o->role : NULL;
}

static bool am_superuser(sql_session *s, cat_snap *cs)
{
	const cat_role *r = me(s, cs);
	return r && r->superuser;
}

static bool am_createrole(sql_session *s, cat_snap *cs)
{
	const cat_role *r = me(s, cs);
	return r && (r->superuser || r->createrole);
}

static void check_role_name(const char *name)
{
	if (!strncmp(name, "pg_", 3)) {
		util_err *e = ty_errstart(UTIL_E_RESERVED_NAME, "role name \"%s\" is reserved", name);
		util_err_detail(e, "Role names starting with \"pg_\" are reserved.");
		ty_errthrow();
	}
	if (!strcmp(name, "public") || !strcmp(name, "none"))
		ty_error(UTIL_E_RESERVED_NAME, "role name \"%s\" is reserved", name);
	if (strlen(name) >= CAT_NAME_MAX)
		ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
}

static bool opt_bool(PgQuery__DefElem *d)
{
	if (!d->arg)
		return true;
	if (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN)
		return d->arg->boolean->boolval;
	if (d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER)
		return d->arg->integer->ival != 0;
	return true;
}

/* Applies role options; membership lists are returned for the caller. */
static void role_options(sql_session *s, cat_snap *cs, cat_obj *o, PgQuery__Node **opts, size_t n,
			 bool creating, PgQuery__List **in_roles, PgQuery__List **members,
			 PgQuery__List **admins)
{
	cat_role *r = &o->role;
	bool su = am_superuser(s, cs);
	for (size_t i = 0; i < n; i++) {
		PgQuery__DefElem *d = opts[i]->def_elem;
		const char *k = d->defname;
		bool b = opt_bool(d);
		if (!strcmp(k, "superuser")) {
			if (!su)
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
					 creating ? "must be superuser to create superusers"
						  : "must be superuser to alter superuser roles or change "
						    "superuser attribute");
			r->superuser = b;
		} else if (!strcmp(k, "isreplication")) {
			if (!su)
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
					 creating ? "must be superuser to create replication users"
						  : "must be superuser to alter replication roles or change "
						    "replication attribute");
			r->replication = b;
		} else if (!strcmp(k, "bypassrls")) {
			if (!su)
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
					 creating ? "must be superuser to create bypassrls users"
						  : "must be superuser to change bypassrls attribute");
			r->bypassrls = b;
		} else if (!strcmp(k, "createrole")) {
			r->createrole = b;
		} else if (!strcmp(k, "createdb")) {
			r->createdb = b;
		} else if (!strcmp(k, "canlogin")) {
			r->login = b;
		} else if (!strcmp(k, "inherit")) {
			r->inherit = b;
		} else if (!strcmp(k, "connectionlimit")) {
			bool ok;
			int64_t v = sql_def_int(d->arg, &ok);
			if (v < -1)
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid connection limit: %lld",
					 (long long)v);
			r->conn_limit = (int)v;
		} else if (!strcmp(k, "password")) {
			if (!d->arg) {
				r->password = NULL;
			} else {
				const char *pw = str_of(d->arg);
				if (!*pw) {
					sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
						   "empty string is not a valid password, clearing password");
					r->password = NULL;
				} else if (!strncmp(pw, "SCRAM-SHA-256$", 14) ||
					   (!strncmp(pw, "md5", 3) && strlen(pw) == 35)) {
					/* Already a SCRAM or md5 secret: kept as given (pg_dump). */
					r->password = cat_obj_strdup(o, pw);
				} else if (!strcmp(sql_guc_get(s, "password_encryption"), "md5")) {
					char md5[UTIL_MD5_PASSWORD_LEN];
					util_md5_password(pw, r->name, md5);
					r->password = cat_obj_strdup(o, md5);
				} else {
					char secret[UTIL_SCRAM_SECRET_MAX];
					if (util_scram_secret(pw, 0, secret) != 0)
						ty_error(UTIL_E_INTERNAL_ERROR,
							 "could not build password secret");
					r->password = cat_obj_strdup(o, secret);
				}
			}
		} else if (!strcmp(k, "validUntil")) {
			const char *v = str_of(d->arg);
			if (!util_strcasecmp(v, "infinity")) {
				r->valid_until = 0;
			} else {
				ty_datum t = ty_input(TY_TIMESTAMPTZ, v, strlen(v), -1);
				r->valid_until = t.i + 946684800000000LL;
			}
		} else if (!strcmp(k, "addroleto")) {
			if (!creating)
				ty_error(UTIL_E_SYNTAX_ERROR, "option \"%s\" not recognized", k);
			*in_roles = d->arg->list;
		} else if (!strcmp(k, "rolemembers") || !strcmp(k, "adminmembers")) {
			if (!creating)
				ty_error(UTIL_E_SYNTAX_ERROR, "option \"%s\" not recognized", k);
			if (!strcmp(k, "rolemembers"))
				*members = d->arg->list;
			else
				*admins = d->arg->list;
		} else if (!strcmp(k, "sysid")) {
			sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "SYSID can no longer be specified");
		} else {
			ty_error(UTIL_E_SYNTAX_ERROR, "option \"%s\" not recognized", k);
		}
	}
}

static cat_oid role_list_oid(sql_session *s, cat_snap *cs, pnode *n)
{
	cat_oid o = sql_priv_role_oid(s, cs, n->role_spec, false);
	if (o == 0)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"public\" does not exist");
	return o;
}

static void create_role(sql_session *s, cat_txn *ct, PgQuery__CreateRoleStmt *st)
{
	cat_snap *cs = cat_txn_snap(ct);
	if (!am_createrole(s, cs))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to create role");
	check_role_name(st->role);
	if (cat_role_by_name(cs, st->role))
		ty_error(UTIL_E_DUPLICATE_OBJECT, "role \"%s\" already exists", st->role);
	cat_obj *o = cat_obj_new(CAT_ROLE, sql_ddl_new_oid(s), 0);
	snprintf(o->role.name, sizeof o->role.name, "%s", st->role);
	o->role.inherit = true;
	o->role.conn_limit = -1;
	o->role.login = st->stmt_type == PG_QUERY__ROLE_STMT_TYPE__ROLESTMT_USER;
	PgQuery__List *in_roles = NULL, *members = NULL, *admins = NULL;
	TY_TRY(tc)
	{
		role_options(s, cs, o, st->options, st->n_options, true, &in_roles, &members, &admins);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tc);
	cat_oid oid = o->oid;
	cat_txn_put(ct, o);
	for (size_t i = 0; in_roles && i < in_roles->n_items; i++)
		sql_priv_set_member(ct, oid, role_list_oid(s, cat_txn_snap(ct), in_roles->items[i]), false,
				    -1);
	for (size_t i = 0; members && i < members->n_items; i++)
		sql_priv_set_member(ct, role_list_oid(s, cat_txn_snap(ct), members->items[i]), oid, false,
				    -1);
	for (size_t i = 0; admins && i < admins->n_items; i++)
		sql_priv_set_member(ct, role_list_oid(s, cat_txn_snap(ct), admins->items[i]), oid, false, 1);
}

static const cat_obj *target_role(sql_session *s, cat_snap *cs, PgQuery__RoleSpec *rs)
{
	cat_oid oid = sql_priv_role_oid(s, cs, rs, false);
	const cat_obj *o = oid ? cat_get(cs, oid) : NULL;
	if (!o || o->kind != CAT_ROLE)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", rs->rolename);
	return o;
}

static void alter_role(sql_session *s, cat_txn *ct, PgQuery__AlterRoleStmt *st)
{
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *o = target_role(s, cs, st->role);
	bool su = am_superuser(s, cs);
	if (!su) {
		/* CREATEROLE manages non-superusers; anyone may change their own password. */
		bool only_password = st->n_options > 0;
		for (size_t i = 0; i < st->n_options; i++)
			only_password &= !strcmp(st->options[i]->def_elem->defname, "password");
		bool ok =
		    (am_createrole(s, cs) && !o->role.superuser) || (o->oid == s->user_oid && only_password);
		if (o->role.superuser && !ok)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
				 "must be superuser to alter superuser roles or change superuser attribute");
		if (!ok)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied");
	}
	cat_obj *c = cat_obj_copy(o);
	PgQuery__List *in_roles = NULL, *members = NULL, *admins = NULL;
	TY_TRY(tc)
	{
		role_options(s, cs, c, st->options, st->n_options, false, &in_roles, &members, &admins);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(c);
		ty_errthrow();
	}
	TY_END(tc);
	cat_txn_put(ct, c);
}

void sql_ddl_rename_role(sql_session *s, PgQuery__RenameStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *o = cat_role_by_name(cs, st->subname);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", st->subname);
	if (o->oid == s->session_user_oid)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "session user cannot be renamed");
	if (o->oid == s->user_oid)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "current user cannot be renamed");
	if (o->role.superuser ? !am_superuser(s, cs) : !am_createrole(s, cs))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, o->role.superuser
							    ? "must be superuser to rename superusers"
							    : "permission denied to rename role");
	check_role_name(st->newname);
	if (cat_role_by_name(cs, st->newname))
		ty_error(UTIL_E_DUPLICATE_OBJECT, "role \"%s\" already exists", st->newname);
	cat_obj *c = cat_obj_copy(o);
	snprintf(c->role.name, sizeof c->role.name, "%s", st->newname);
	/* An md5 secret salts with the name: it no longer matches. */
	if (c->role.password && !strncmp(c->role.password, "md5", 3)) {
		c->role.password = NULL;
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "MD5 password cleared because of role rename");
	}
	cat_txn_put(ct, c);
}

/* ---------------------------------------------------------------- DROP ROLE */

typedef struct role_deps {
	sql_session *s;
	cat_oid role;
	util_buf detail;
	int nlocal;
	cat_oid other_db; /* objects in other databases are counted */
	int nother;
} role_deps;

static bool acl_mentions(const cat_acl *acl, int n, cat_oid role)
{
	for (int i = 0; i < n; i++)
		if (acl[i].grantee == role || acl[i].grantor == role)
			return true;
	return false;
}

static void dep_line(role_deps *d, const char *fmt, const char *kind, const char *name)
{
	if (d->detail.len)
		util_buf_putc(&d->detail, '\n');
	util_buf_printf(&d->detail, fmt, kind, name);
	d->nlocal++;
}

static int find_role_deps(void *arg, const cat_obj *o)
{
	role_deps *d = arg;
	bool local = o->database == 0 || o->database == d->s->db_oid;
	bool owner = false, privs = false;
	const char *kind = NULL, *name = NULL;
	switch (o->kind) {
	case CAT_REL:
		if (o->rel.relkind == CAT_RELKIND_INDEX)
			return 0;
		owner = o->rel.owner == d->role;
		privs = acl_mentions(o->rel.acl, o->rel.nacl, d->role);
		kind = sql_ddl_kind_word(o->rel.relkind);
		name = o->rel.name;
		break;
	case CAT_SCHEMA:
		owner = o->schema.owner == d->role;
		privs = acl_mentions(o->schema.acl, o->schema.nacl, d->role);
		kind = "schema";
		name = o->schema.name;
		break;
	case CAT_DATABASE:
		owner = o->db.owner == d->role;
		kind = "database";
		name = o->db.name;
		break;
	default:
		return 0;
	}
	/* The owner's own entries are implied by ownership (pg_shdepend has none). */
	if (owner)
		privs = false;
	if (!owner && !privs)
		return 0;
	if (!local) {
		d->nother += owner + privs;
		d->other_db = o->database;
		return 0;
	}
	if (owner)
		dep_line(d, "owner of %s %s", kind, name);
	if (privs)
		dep_line(d, "privileges for %s %s", kind, name);
	return 0;
}

typedef struct member_drop {
	cat_txn *ct;
	cat_oid role;
} member_drop;

static int drop_memberships(void *arg, const cat_obj *o)
{
	member_drop *m = arg;
	bool hit = false;
	for (int i = 0; i < o->role.nmembers_of; i++)
		hit |= o->role.member_of[i] == m->role;
	if (!hit)
		return 0;
	cat_obj *c = cat_obj_copy(o);
	int k = 0;
	for (int i = 0; i < c->role.nmembers_of; i++)
		if (c->role.member_of[i] != m->role)
			c->role.member_of[k++] = c->role.member_of[i];
	c->role.nmembers_of = k;
	cat_txn_put(m->ct, c);
	return 0;
}

static void drop_role(sql_session *s, cat_txn *ct, PgQuery__DropRoleStmt *st)
{
	cat_snap *cs = cat_txn_snap(ct);
	if (!am_createrole(s, cs))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied to drop role");
	for (size_t i = 0; i < st->n_roles; i++) {
		PgQuery__RoleSpec *rs = st->roles[i]->role_spec;
		cs = cat_txn_snap(ct);
		cat_oid oid = sql_priv_role_oid(s, cs, rs, true);
		const cat_obj *o = oid != (cat_oid)-1 ? cat_get(cs, oid) : NULL;
		if (!o || o->kind != CAT_ROLE) {
			if (st->missing_ok) {
				sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
					   "role \"%s\" does not exist, skipping", rs->rolename);
				continue;
			}
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", rs->rolename);
		}
		if (o->oid == s->user_oid)
			ty_error(UTIL_E_OBJECT_IN_USE, "current user cannot be dropped");
		if (o->oid == s->session_user_oid)
			ty_error(UTIL_E_OBJECT_IN_USE, "session user cannot be dropped");
		if (o->oid == CAT_OID_POSTGRES_ROLE)
			ty_error(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
				 "cannot drop role %s because it is required by the database system",
				 o->role.name);
		if (o->role.superuser && !am_superuser(s, cs))
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to drop superusers");
		role_deps d = {s, o->oid, UTIL_BUF_INIT, 0, 0, 0};
		cat_foreach(cs, CAT_DATABASE, 0, find_role_deps, &d);
		cat_foreach(cs, CAT_SCHEMA, 0, find_role_deps, &d);
		cat_foreach(cs, CAT_REL, 0, find_role_deps, &d);
		d.nlocal += sql_priv_defacl_deps(cs, o->oid, &d.detail);
		if (d.nlocal || d.nother) {
			if (d.nother) {
				const cat_obj *db = cat_get(cs, d.other_db);
				if (d.detail.len)
					util_buf_putc(&d.detail, '\n');
				util_buf_printf(&d.detail, "%d object%s in database %s", d.nother,
						d.nother == 1 ? "" : "s", db ? db->db.name : "?");
			}
			util_err *e = ty_errstart(
			    UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
			    "role \"%s\" cannot be dropped because some objects depend on it", o->role.name);
			util_err_detail(e, "%s", d.detail.data);
			util_buf_free(&d.detail);
			ty_errthrow();
		}
		member_drop md = {ct, o->oid};
		cat_snap *now = cat_txn_snap(ct);
		cat_snap_ref(now);
		cat_foreach(now, CAT_ROLE, 0, drop_memberships, &md);
		cat_snap_release(now);
		cat_txn_delete(ct, o->oid);
	}
}

void sql_ddl_role(sql_session *s, pnode *n)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_CREATE_ROLE_STMT:
		create_role(s, ct, n->create_role_stmt);
		return;
	case PG_QUERY__NODE__NODE_ALTER_ROLE_STMT:
		alter_role(s, ct, n->alter_role_stmt);
		return;
	case PG_QUERY__NODE__NODE_DROP_ROLE_STMT:
		drop_role(s, ct, n->drop_role_stmt);
		return;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported", sql_command_tag(n));
	}
}
