/*
 * privilege.c — roles and privileges as PostgreSQL 15 has them: ACLs on
 * tables, views, sequences and schemas (cat_acl lists; an empty list is the
 * object kind's default ACL), role membership with INHERIT, ownership
 * checks for DDL, GRANT/REVOKE (with grant options, ALL TABLES IN SCHEMA),
 * GRANT/REVOKE role, ALTER ... OWNER TO, SET ROLE and SET SESSION
 * AUTHORIZATION, and the check of a query's relations at execution start
 * (views with their owner's rights). Superusers bypass every check.
 * The aclitem text form (pg_class.relacl) is produced here too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

#define PG_DATABASE_OWNER 6171 /* the pseudo-role owning each database's public schema */

#define PRIV_TABLE_ALL                                                                                       \
	(CAT_PRIV_INSERT | CAT_PRIV_SELECT | CAT_PRIV_UPDATE | CAT_PRIV_DELETE | CAT_PRIV_TRUNCATE |         \
	 CAT_PRIV_REFERENCES | CAT_PRIV_TRIGGER)
#define PRIV_SEQ_ALL    (CAT_PRIV_SELECT | CAT_PRIV_UPDATE | CAT_PRIV_USAGE)
#define PRIV_SCHEMA_ALL (CAT_PRIV_USAGE | CAT_PRIV_CREATE)
#define PRIV_COLUMN_ALL (CAT_PRIV_SELECT | CAT_PRIV_INSERT | CAT_PRIV_UPDATE | CAT_PRIV_REFERENCES)

/* ---------------------------------------------------------------- roles */

static const cat_role *role_of(cat_snap *cs, cat_oid oid)
{
	const cat_obj *o = cat_get(cs, oid);
	return o && o->kind == CAT_ROLE ? &o->role : NULL;
}

static bool is_superuser(cat_snap *cs, cat_oid role)
{
	const cat_role *r = role_of(cs, role);
	return r && r->superuser;
}

static cat_oid db_owner(sql_session *s, cat_snap *cs)
{
	const cat_obj *db = cat_get(cs, s->db_oid);
	return db && db->kind == CAT_DATABASE ? db->db.owner : CAT_OID_POSTGRES_ROLE;
}

/* Is member (directly or through other roles) in role? With inherit_only,
 * only through roles that inherit (PostgreSQL's has_privs_of_role). */
static bool member_walk(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role, bool inherit_only,
			int depth)
{
	if (member == role)
		return true;
	if (depth > 64)
		return false;
	if (role == PG_DATABASE_OWNER && member_walk(s, cs, member, db_owner(s, cs), inherit_only, depth + 1))
		return true;
	const cat_role *m = role_of(cs, member);
	if (!m || (inherit_only && !m->inherit))
		return false;
	for (int i = 0; i < m->nmembers_of; i++)
		if (member_walk(s, cs, m->member_of[i], role, inherit_only, depth + 1))
			return true;
	return false;
}

bool sql_priv_inherits_role(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role)
{
	if (is_superuser(cs, member))
		return true;
	return member_walk(s, cs, member, role, true, 0);
}

static bool is_member_of(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role)
{
	if (is_superuser(cs, member))
		return true;
	return member_walk(s, cs, member, role, false, 0);
}

bool sql_priv_is_owner(sql_session *s, cat_snap *cs, cat_oid owner)
{
	return sql_priv_inherits_role(s, cs, s->user_oid, owner);
}

static const char *role_name(cat_snap *cs, cat_oid oid)
{
	if (oid == PG_DATABASE_OWNER)
		return "pg_database_owner";
	const cat_role *r = role_of(cs, oid);
	return r ? r->name : "?";
}

cat_oid sql_priv_role_oid(sql_session *s, cat_snap *cs, PgQuery__RoleSpec *rs, bool missing_ok)
{
	switch (rs->roletype) {
	case PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_CURRENT_USER:
	case PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_CURRENT_ROLE:
		return s->user_oid;
	case PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_SESSION_USER:
		return s->session_user_oid ? s->session_user_oid : s->user_oid;
	case PG_QUERY__ROLE_SPEC_TYPE__ROLESPEC_PUBLIC:
		return 0;
	default:
		break;
	}
	if (!strcmp(rs->rolename, "pg_database_owner"))
		return PG_DATABASE_OWNER;
	const cat_obj *o = cat_role_by_name(cs, rs->rolename);
	if (!o) {
		if (missing_ok)
			return (cat_oid)-1;
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", rs->rolename);
	}
	return o->oid;
}

/* ---------------------------------------------------------------- ACLs */

typedef enum acl_kind { ACLK_TABLE, ACLK_SEQUENCE, ACLK_SCHEMA } acl_kind;

static acl_kind rel_kind(const cat_rel *r)
{
	return r->relkind == CAT_RELKIND_SEQUENCE ? ACLK_SEQUENCE : ACLK_TABLE;
}

static uint32_t all_privs(acl_kind k)
{
	return k == ACLK_TABLE ? PRIV_TABLE_ALL : k == ACLK_SEQUENCE ? PRIV_SEQ_ALL : PRIV_SCHEMA_ALL;
}

static const char *kind_name(acl_kind k, const cat_rel *r)
{
	if (k == ACLK_SCHEMA)
		return "schema";
	if (r && r->relkind == CAT_RELKIND_VIEW)
		return "view";
	return k == ACLK_SEQUENCE ? "sequence" : "table";
}

/* The ACL an object has before any GRANT (PostgreSQL's acldefault). */
static cat_acl *default_acl(acl_kind k, cat_oid owner, cat_oid schema_oid, int *n)
{
	cat_acl *a = ty_alloc0(sizeof(cat_acl) * 2);
	a[0] = (cat_acl){owner, owner, all_privs(k), 0};
	*n = 1;
	/* System schemas and PostgreSQL 15's public schema (owned by
	 * pg_database_owner) grant USAGE to PUBLIC. */
	if (k == ACLK_SCHEMA && (schema_oid == CAT_OID_PG_CATALOG ||
				 schema_oid == CAT_OID_INFORMATION_SCHEMA || owner == PG_DATABASE_OWNER)) {
		a[1] = (cat_acl){0, owner, CAT_PRIV_USAGE, 0};
		*n = 2;
	}
	return a;
}

/* The privileges (and grant options) role has through the ACL: its own
 * entries, PUBLIC's and those of roles it inherits from. The owner always
 * holds every grant option. */
static uint32_t acl_mask(sql_session *s, cat_snap *cs, const cat_acl *acl, int nacl, cat_oid owner,
			 cat_oid role, uint32_t *goptions)
{
	uint32_t privs = 0, go = 0;
	for (int i = 0; i < nacl; i++) {
		const cat_acl *a = &acl[i];
		if (a->grantee == 0 || a->grantee == role ||
		    sql_priv_inherits_role(s, cs, role, a->grantee)) {
			privs |= a->privs;
			go |= a->grant_option;
		}
	}
	if (sql_priv_inherits_role(s, cs, role, owner))
		go = ~0u;
	if (goptions)
		*goptions = go;
	return privs;
}

static const cat_acl *effective_acl(const cat_acl *acl, int nacl, acl_kind k, cat_oid owner, cat_oid oid,
				    int *n)
{
	if (nacl) {
		*n = nacl;
		return acl;
	}
	return default_acl(k, owner, oid, n);
}

static uint32_t rel_privs(sql_session *s, cat_snap *cs, const cat_obj *rel, cat_oid role)
{
	if (is_superuser(cs, role))
		return ~0u;
	int n;
	const cat_acl *acl =
	    effective_acl(rel->rel.acl, rel->rel.nacl, rel_kind(&rel->rel), rel->rel.owner, rel->oid, &n);
	return acl_mask(s, cs, acl, n, rel->rel.owner, role, NULL);
}

static bool schema_has(sql_session *s, cat_snap *cs, cat_oid schema, cat_oid role, uint32_t priv)
{
	if (is_superuser(cs, role))
		return true;
	const cat_obj *o = cat_get(cs, schema);
	if (!o || o->kind != CAT_SCHEMA)
		return true;
	int n;
	const cat_acl *acl =
	    effective_acl(o->schema.acl, o->schema.nacl, ACLK_SCHEMA, o->schema.owner, o->oid, &n);
	return (acl_mask(s, cs, acl, n, o->schema.owner, role, NULL) & priv) == priv;
}

static UTIL_NORETURN void denied_rel(const cat_obj *rel)
{
	ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for %s %s",
		 kind_name(rel_kind(&rel->rel), &rel->rel), rel->rel.name);
}

static void check_rel_as(sql_session *s, cat_snap *cs, const cat_obj *rel, uint32_t privs, cat_oid role)
{
	if ((rel_privs(s, cs, rel, role) & privs) != privs)
		denied_rel(rel);
}

void sql_priv_check_rel(sql_session *s, cat_snap *cs, const cat_obj *rel, uint32_t privs)
{
	check_rel_as(s, cs, rel, privs, s->user_oid);
}

void sql_priv_check_rel_any(sql_session *s, cat_snap *cs, const cat_obj *rel, uint32_t privs)
{
	if (!(rel_privs(s, cs, rel, s->user_oid) & privs))
		denied_rel(rel);
}

void sql_priv_check_schema_create(sql_session *s, cat_snap *cs, cat_oid schema)
{
	if (!schema_has(s, cs, schema, s->user_oid, CAT_PRIV_CREATE))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s",
			 sql_schema_name(cs, schema));
}

void sql_priv_check_schema_usage(sql_session *s, cat_snap *cs, cat_oid schema)
{
	if (!schema_has(s, cs, schema, s->user_oid, CAT_PRIV_USAGE))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s",
			 sql_schema_name(cs, schema));
}

void sql_ddl_check_owner(sql_session *s, const cat_obj *rel)
{
	cat_snap *cs = s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : s->cat;
	if (!sql_priv_inherits_role(s, cs, s->user_oid, rel->rel.owner))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of %s %s",
			 sql_ddl_kind_word(rel->rel.relkind), rel->rel.name);
}

void sql_priv_check_owner_change(sql_session *s, cat_snap *cs, cat_oid old_owner, cat_oid new_owner)
{
	(void)old_owner;
	if (is_superuser(cs, s->user_oid))
		return;
	if (!is_member_of(s, cs, s->user_oid, new_owner))
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be member of role \"%s\"",
			 role_name(cs, new_owner));
}

/* "alice=arw*", grantee empty for PUBLIC, then "/grantor". */
void sql_priv_acl_text(cat_snap *cs, const cat_acl *a, util_buf *out)
{
	static const struct {
		uint32_t bit;
		char c;
	} order[] = {{CAT_PRIV_INSERT, 'a'},  {CAT_PRIV_SELECT, 'r'},   {CAT_PRIV_UPDATE, 'w'},
		     {CAT_PRIV_DELETE, 'd'},  {CAT_PRIV_TRUNCATE, 'D'}, {CAT_PRIV_REFERENCES, 'x'},
		     {CAT_PRIV_TRIGGER, 't'}, {CAT_PRIV_EXECUTE, 'X'},  {CAT_PRIV_USAGE, 'U'},
		     {CAT_PRIV_CREATE, 'C'},  {CAT_PRIV_TEMP, 'T'},     {CAT_PRIV_CONNECT, 'c'}};
	if (a->grantee)
		sql_quote_ident(role_name(cs, a->grantee), out);
	util_buf_putc(out, '=');
	for (size_t i = 0; i < UTIL_ARRAY_LEN(order); i++)
		if (a->privs & order[i].bit) {
			util_buf_putc(out, order[i].c);
			if (a->grant_option & order[i].bit)
				util_buf_putc(out, '*');
		}
	util_buf_putc(out, '/');
	sql_quote_ident(role_name(cs, a->grantor), out);
}

ty_datum sql_priv_acl_array(cat_snap *cs, const cat_acl *acl, int nacl)
{
	if (!nacl)
		return ty_null();
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)nacl);
	for (int i = 0; i < nacl; i++) {
		util_buf b = UTIL_BUF_INIT;
		sql_priv_acl_text(cs, &acl[i], &b);
		vals[i] = ty_text(ty_strdup(b.data));
		util_buf_free(&b);
	}
	return sql_make_text_array(vals, nacl);
}

/* ---------------------------------------------------------------- query checks */

typedef struct qcheck {
	sql_session *s;
	cat_snap *cs;
	cat_oid *rels; /* relations to lock */
	int nrels, cap;
	util_map ctes_seen; /* sql_cte* already checked */
} qcheck;

static void note_rel(qcheck *qc, cat_oid oid)
{
	for (int i = 0; i < qc->nrels; i++)
		if (qc->rels[i] == oid)
			return;
	if (qc->nrels == qc->cap) {
		qc->cap = qc->cap ? qc->cap * 2 : 8;
		cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)qc->cap);
		if (qc->nrels)
			memcpy(n, qc->rels, sizeof(cat_oid) * (size_t)qc->nrels);
		qc->rels = n;
	}
	qc->rels[qc->nrels++] = oid;
}

static void check_query(qcheck *qc, const sql_query *q, cat_oid as, bool in_view);

typedef struct expr_walk {
	qcheck *qc;
	cat_oid as;
	bool in_view;
	int target_rte; /* Vars of this RTE (level 0) count as reads of the target */
	bool reads_target;
} expr_walk;

static bool walk_expr_fn(sql_expr *e, void *arg)
{
	expr_walk *w = arg;
	if (e->kind == SQL_E_SUBLINK && e->sub.query)
		check_query(w->qc, e->sub.query, w->as, w->in_view);
	if (e->kind == SQL_E_SUBLINK && e->sub.testexpr)
		sql_expr_walk(e->sub.testexpr, walk_expr_fn, arg);
	if (e->kind == SQL_E_VAR && w->target_rte && e->var.rte == w->target_rte && e->var.levelsup == 0)
		w->reads_target = true;
	return false;
}

static bool walk_exprs(qcheck *qc, sql_expr *e, cat_oid as, bool in_view, int target_rte)
{
	if (!e)
		return false;
	expr_walk w = {qc, as, in_view, target_rte, false};
	sql_expr_walk(e, walk_expr_fn, &w);
	return w.reads_target;
}

static bool walk_jnode(qcheck *qc, sql_jnode *j, cat_oid as, bool in_view, int target_rte)
{
	if (!j)
		return false;
	bool r = walk_exprs(qc, j->quals, as, in_view, target_rte);
	if (j->is_join) {
		r |= walk_jnode(qc, j->left, as, in_view, target_rte);
		r |= walk_jnode(qc, j->right, as, in_view, target_rte);
	}
	return r;
}

static void check_setop(qcheck *qc, const sql_setop *so, cat_oid as, bool in_view)
{
	if (!so)
		return;
	if (so->is_leaf) {
		check_query(qc, so->leaf, as, in_view);
		return;
	}
	check_setop(qc, so->left, as, in_view);
	check_setop(qc, so->right, as, in_view);
}

/* Columns a statement reads or writes in one relation, per privilege:
 * PostgreSQL accepts the table's privilege or that privilege on every
 * column involved (on any column when none is: SELECT count(*)). */
typedef struct col_need {
	const bool *sel; /* columns read (ncols), NULL = table-level only */
	const int16_t *ins;
	int nins;
	const int16_t *upd;
	int nupd;
} col_need;

static uint32_t col_privs(sql_session *s, cat_snap *cs, const cat_obj *rel, const cat_column *c, cat_oid role)
{
	if (!c->nacl)
		return 0;
	return acl_mask(s, cs, c->acl, c->nacl, rel->rel.owner, role, NULL);
}

static bool cols_have(sql_session *s, cat_snap *cs, const cat_obj *rel, cat_oid role, uint32_t bit,
		      const col_need *cn)
{
	const cat_rel *r = &rel->rel;
	if (!cn)
		return false;
	if (bit == CAT_PRIV_SELECT && cn->sel) {
		bool any_used = false;
		for (int c = 0; c < r->ncols; c++) {
			if (!cn->sel[c] || r->cols[c].dropped)
				continue;
			any_used = true;
			if (!(col_privs(s, cs, rel, &r->cols[c], role) & bit))
				return false;
		}
		if (any_used)
			return true;
		for (int c = 0; c < r->ncols; c++)
			if (!r->cols[c].dropped && (col_privs(s, cs, rel, &r->cols[c], role) & bit))
				return true;
		return false;
	}
	const int16_t *list = bit == CAT_PRIV_INSERT ? cn->ins : bit == CAT_PRIV_UPDATE ? cn->upd : NULL;
	int n = bit == CAT_PRIV_INSERT ? cn->nins : bit == CAT_PRIV_UPDATE ? cn->nupd : 0;
	if (!list || !n)
		return false;
	for (int i = 0; i < n; i++) {
		const cat_column *c = cat_column_by_attnum(r, list[i]);
		if (!c || !(col_privs(s, cs, rel, c, role) & bit))
			return false;
	}
	return true;
}

static void check_table(qcheck *qc, const sql_rte *r, uint32_t privs, const col_need *cn, cat_oid as,
			bool in_view, const sql_query *q)
{
	sql_session *s = qc->s;
	const cat_obj *rel = r->rel;
	note_rel(qc, rel->oid);
	if (!in_view && !schema_has(s, qc->cs, rel->rel.schema, as, CAT_PRIV_USAGE)) {
		util_err *e = ty_errstart(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s",
					  sql_schema_name(qc->cs, rel->rel.schema));
		if (r->location >= 0 && q->ps && q->ps->text)
			e->position = sql_errposition(q->ps->text, r->location);
		ty_errthrow();
	}
	if (rel->kind == CAT_REL && rel->rel.relkind == CAT_RELKIND_TABLE &&
	    sql_temp_schema_is_temp(qc->cs, rel->rel.schema) &&
	    rel->rel.schema != sql_temp_schema_oid(s, qc->cs))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot access temporary tables of other sessions");
	if (!privs)
		return;
	uint32_t have = rel_privs(s, qc->cs, rel, as);
	for (uint32_t bit = 1; bit && bit <= privs; bit <<= 1) {
		if (!(privs & bit) || (have & bit))
			continue;
		if (!cols_have(s, qc->cs, rel, as, bit, cn))
			denied_rel(rel);
	}
}

/* Columns of the target (rte, at this nesting depth) an expression reads. */
typedef struct col_walk {
	int rte, depth;
	bool *cols;
	int ncols;
} col_walk;

static void collect_query_cols(const sql_query *q, col_walk *w);

static bool col_walk_fn(sql_expr *e, void *arg)
{
	col_walk *w = arg;
	if (e->kind == SQL_E_VAR && e->var.rte == w->rte && e->var.levelsup == w->depth &&
	    e->var.col < w->ncols)
		w->cols[e->var.col] = true;
	if (e->kind == SQL_E_SUBLINK && e->sub.query) {
		col_walk inner = *w;
		inner.depth++;
		collect_query_cols(e->sub.query, &inner);
	}
	return false;
}

static void collect_expr_cols(sql_expr *e, col_walk *w)
{
	if (e)
		sql_expr_walk(e, col_walk_fn, w);
}

static void collect_jnode_cols(const sql_jnode *j, col_walk *w)
{
	if (!j)
		return;
	collect_expr_cols(j->quals, w);
	if (j->is_join) {
		collect_jnode_cols(j->left, w);
		collect_jnode_cols(j->right, w);
	}
}

static void collect_query_cols(const sql_query *q, col_walk *w)
{
	if (!q)
		return;
	for (int i = 0; i < q->nfrom; i++)
		collect_jnode_cols(q->from[i], w);
	collect_expr_cols(q->where, w);
	collect_expr_cols(q->having, w);
	for (int i = 0; i < q->ntargets; i++)
		collect_expr_cols(q->targets[i].expr, w);
	for (int i = 0; i < q->nset; i++)
		collect_expr_cols(q->set_exprs[i], w);
	for (int i = 0; i < q->nreturning; i++)
		collect_expr_cols(q->returning[i].expr, w);
	for (int i = 0; i < q->nrtes; i++)
		if (q->rtes[i]->kind == SQL_RTE_SUBQUERY && q->rtes[i]->subquery && q->rtes[i]->lateral) {
			col_walk inner = *w;
			inner.depth++;
			collect_query_cols(q->rtes[i]->subquery, &inner);
		}
}

static void check_query(qcheck *qc, const sql_query *q, cat_oid as, bool in_view)
{
	if (!q)
		return;
	int target = q->cmd == SQL_CMD_SELECT ? 0 : q->result_rte;
	bool reads_target = false;
	for (int i = 0; i < q->nrtes; i++) {
		const sql_rte *r = q->rtes[i];
		if (r->kind == SQL_RTE_TABLE && r->rel) {
			if (i + 1 == target)
				continue;
			col_need cn = {r->used, NULL, 0, NULL, 0};
			check_table(qc, r, CAT_PRIV_SELECT, &cn, as, in_view, q);
		} else if (r->kind == SQL_RTE_SUBQUERY) {
			if (r->rel && r->rel->rel.relkind == CAT_RELKIND_VIEW) {
				/* The view's own privilege for the user; its body with the owner's rights. */
				check_table(qc, r, CAT_PRIV_SELECT, NULL, as, in_view, q);
				check_query(qc, r->subquery, r->rel->rel.owner, true);
			} else {
				check_query(qc, r->subquery, as, in_view);
			}
		} else if (r->kind == SQL_RTE_FUNCTION) {
			for (int k = 0; k < r->nfuncs; k++)
				walk_exprs(qc, r->funcs[k], as, in_view, 0);
		} else if (r->kind == SQL_RTE_VALUES) {
			for (int k = 0; k < r->nrows; k++)
				for (int c = 0; c < r->ncols; c++)
					if (r->rows[k][c])
						walk_exprs(qc, r->rows[k][c], as, in_view, 0);
		}
	}
	/* CTEs are visible in (and listed by) nested queries too, and a
	 * recursive one in itself: each is checked once. */
	for (int i = 0; i < q->nctes; i++)
		if (q->ctes[i] && !util_map_get_u64(&qc->ctes_seen, (uint64_t)(uintptr_t)q->ctes[i])) {
			util_map_put_u64(&qc->ctes_seen, (uint64_t)(uintptr_t)q->ctes[i], (void *)1);
			check_query(qc, q->ctes[i]->query, as, in_view);
			check_query(qc, q->ctes[i]->nonrec, as, in_view);
			check_query(qc, q->ctes[i]->rec, as, in_view);
		}
	check_setop(qc, q->setop, as, in_view);
	for (int i = 0; i < q->nfrom; i++)
		reads_target |= walk_jnode(qc, q->from[i], as, in_view, target);
	reads_target |= walk_exprs(qc, q->where, as, in_view, target);
	walk_exprs(qc, q->having, as, in_view, 0);
	for (int i = 0; i < q->ntargets; i++)
		walk_exprs(qc, q->targets[i].expr, as, in_view, 0);
	for (int i = 0; i < q->nset; i++)
		reads_target |= walk_exprs(qc, q->set_exprs[i], as, in_view, target);
	for (int i = 0; i < q->nreturning; i++)
		walk_exprs(qc, q->returning[i].expr, as, in_view, 0);
	if (q->source)
		check_query(qc, q->source, as, in_view);
	if (target) {
		const sql_rte *r = q->rtes[target - 1];
		uint32_t need = q->cmd == SQL_CMD_INSERT   ? CAT_PRIV_INSERT
				: q->cmd == SQL_CMD_UPDATE ? CAT_PRIV_UPDATE
							   : CAT_PRIV_DELETE;
		if (q->onconflict && q->onconflict->do_update) {
			need |= CAT_PRIV_UPDATE;
			for (int i = 0; i < q->onconflict->nset; i++)
				walk_exprs(qc, q->onconflict->set_exprs[i], as, in_view, 0);
		}
		/* Which target columns are read (WHERE, SET expressions, RETURNING ...). */
		col_walk w = {target, 0, NULL, r->ncols};
		w.cols = ty_alloc0(sizeof(bool) * (size_t)(r->ncols + 1));
		collect_query_cols(q, &w);
		if (q->onconflict && q->onconflict->do_update) {
			for (int i = 0; i < q->onconflict->nset; i++)
				collect_expr_cols(q->onconflict->set_exprs[i], &w);
			collect_expr_cols(q->onconflict->where, &w);
		}
		for (int c = 0; c < r->ncols; c++)
			reads_target |= w.cols[c];
		if (reads_target)
			need |= CAT_PRIV_SELECT;
		col_need cn = {w.cols, q->insert_cols, q->ninsert_cols, q->set_cols, q->nset};
		if (q->onconflict && q->onconflict->do_update) {
			cn.upd = q->onconflict->set_cols;
			cn.nupd = q->onconflict->nset;
		}
		/* Through an automatically updatable view (sql_add_view_target):
		 * the user needs the privilege on the view, the view's owner on
		 * the base table, as in PostgreSQL. */
		const sql_rte *vr = NULL;
		for (int i = 0; i < q->nrtes; i++)
			if (q->rtes[i]->kind == SQL_RTE_JOIN && q->rtes[i]->rel &&
			    q->rtes[i]->rel->rel.relkind == CAT_RELKIND_VIEW)
				vr = q->rtes[i];
		if (vr) {
			check_table(qc, vr, need, NULL, as, in_view, q);
			/* Views over views: each owner needs the privilege on the
			 * view below, the last one's on the table. */
			cat_oid owner = vr->rel->rel.owner;
			for (int k = 0; k < q->nview_inner; k++) {
				sql_rte iv = *vr;
				iv.rel = q->view_inner[k];
				iv.location = -1;
				check_table(qc, &iv, need, NULL, owner, true, q);
				owner = q->view_inner[k]->rel.owner;
			}
			if (r->rel)
				check_table(qc, r, need, &cn, owner, true, q);
		} else if (r->rel) {
			check_table(qc, r, need, &cn, as, in_view, q);
		}
	}
}

int sql_priv_check_rels(sql_session *s, cat_snap *cs, const sql_query *q, cat_oid **rels)
{
	/* No early exit for superusers: a view's body is checked with its
	 * owner's rights whoever reads it. */
	qcheck qc = {s, cs, NULL, 0, 0, UTIL_MAP_INIT};
	TY_TRY(tc)
	{
		check_query(&qc, q, s->user_oid, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_map_free(&qc.ctes_seen);
		ty_errthrow();
	}
	TY_END(tc);
	util_map_free(&qc.ctes_seen);
	*rels = qc.rels;
	return qc.nrels;
}

void sql_priv_lock_rels(sql_session *s, cat_snap *cs, const cat_oid *rels, int n)
{
	for (int i = 0; i < n; i++)
		sql_rel_lock(s, rels[i], false);
	sql_rel_check_current(s, cs, rels, n);
}

void sql_priv_check_query(sql_session *s, cat_snap *cs, const sql_query *q)
{
	cat_oid *rels;
	int n = sql_priv_check_rels(s, cs, q, &rels);
	sql_priv_lock_rels(s, cs, rels, n);
}

/* ---------------------------------------------------------------- GRANT / REVOKE on objects */

typedef struct grant_target {
	acl_kind kind;
	cat_oid oid;
	const char *name;
	cat_oid owner;
	const cat_rel *rel; /* relations */
} grant_target;

static uint32_t priv_bit(const char *name, acl_kind k, bool *ok)
{
	static const struct {
		const char *n;
		uint32_t bit;
	} names[] = {{"select", CAT_PRIV_SELECT},     {"insert", CAT_PRIV_INSERT},
		     {"update", CAT_PRIV_UPDATE},     {"delete", CAT_PRIV_DELETE},
		     {"truncate", CAT_PRIV_TRUNCATE}, {"references", CAT_PRIV_REFERENCES},
		     {"trigger", CAT_PRIV_TRIGGER},   {"usage", CAT_PRIV_USAGE},
		     {"create", CAT_PRIV_CREATE},     {"connect", CAT_PRIV_CONNECT},
		     {"temporary", CAT_PRIV_TEMP},    {"temp", CAT_PRIV_TEMP}};
	*ok = false;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++)
		if (!strcmp(names[i].n, name)) {
			*ok = (names[i].bit & all_privs(k)) != 0;
			return names[i].bit;
		}
	return 0;
}

static const char *upper_priv(const char *n, char *buf, size_t len)
{
	size_t i = 0;
	for (; n[i] && i + 1 < len; i++)
		buf[i] = (char)(n[i] >= 'a' && n[i] <= 'z' ? n[i] - 32 : n[i]);
	buf[i] = 0;
	return buf;
}

/* Applies GRANT or REVOKE of privs (and grant options) to grantees in an
 * ACL; returns the new ACL in the object's arena. */
static cat_acl *merge_acl(cat_obj *o, const cat_acl *acl, int nacl, int *nout, bool grant,
			  bool grant_option_only, bool with_grant_option, cat_oid grantor,
			  const cat_oid *grantees, int ngrantees, uint32_t privs)
{
	cat_acl *out = cat_obj_alloc(o, sizeof(cat_acl) * (size_t)(nacl + ngrantees + 1));
	int n = 0;
	for (int i = 0; i < nacl; i++)
		out[n++] = acl[i];
	for (int g = 0; g < ngrantees; g++) {
		int k = -1;
		for (int i = 0; i < n; i++)
			if (out[i].grantee == grantees[g] && out[i].grantor == grantor)
				k = i;
		if (grant) {
			if (k < 0) {
				out[n] = (cat_acl){grantees[g], grantor, 0, 0};
				k = n++;
			}
			out[k].privs |= privs;
			if (with_grant_option)
				out[k].grant_option |= privs;
		} else if (k >= 0) {
			out[k].grant_option &= ~privs;
			if (!grant_option_only)
				out[k].privs &= ~privs;
			if (!out[k].privs) {
				for (int i = k; i + 1 < n; i++)
					out[i] = out[i + 1];
				n--;
			}
		}
	}
	*nout = n;
	return out;
}

/* REVOKE ... CASCADE: grants made by grantee through grant options it no
 * longer holds are revoked too (PostgreSQL's recursive_revoke). */
static cat_acl *revoke_dependents(sql_session *s, cat_snap *cs, cat_obj *o, cat_acl *acl, int *n,
				  cat_oid owner, cat_oid grantee, uint32_t privs, bool cascade,
				  const char *objname)
{
	(void)objname;
	for (int depth = 0; depth < 32; depth++) {
		bool changed = false;
		for (int i = 0; i < *n; i++) {
			cat_acl *a = &acl[i];
			if (a->grantor == owner || !(a->privs & privs))
				continue;
			uint32_t go;
			/* What the grantor still holds, not counting this entry. */
			cat_acl saved = *a;
			a->privs = 0;
			a->grant_option = 0;
			acl_mask(s, cs, acl, *n, owner, saved.grantor, &go);
			*a = saved;
			uint32_t lost = saved.privs & privs & ~go;
			if (!lost)
				continue;
			if (!cascade && saved.grantor == grantee) {
				util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
							  "dependent privileges exist");
				util_err_hint(e, "Use CASCADE to revoke them too.");
				ty_errthrow();
			}
			if (!cascade)
				continue;
			cat_oid who = saved.grantee;
			acl = merge_acl(o, acl, *n, n, false, false, false, saved.grantor, &who, 1, lost);
			changed = true;
			break;
		}
		if (!changed)
			break;
	}
	return acl;
}

static void grant_on(sql_session *s, cat_txn *ct, PgQuery__GrantStmt *st, const grant_target *t,
		     uint32_t privs, const uint32_t *colprivs, const cat_oid *grantees, int ngrantees,
		     bool all)
{
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *obj = cat_get(cs, t->oid);
	int nacl = t->kind == ACLK_SCHEMA ? obj->schema.nacl : obj->rel.nacl;
	const cat_acl *acl0 = t->kind == ACLK_SCHEMA ? obj->schema.acl : obj->rel.acl;
	int neff;
	const cat_acl *acl = effective_acl(acl0, nacl, t->kind, t->owner, t->oid, &neff);
	uint32_t requested = privs;
	int ncols = t->kind == ACLK_SCHEMA ? 0 : obj->rel.ncols;
	if (colprivs)
		for (int c = 0; c < ncols; c++)
			requested |= colprivs[c];
	/* The grantor: the owner when the user owns the object (or is a
	 * superuser), else the user itself, with the grant options it holds. */
	cat_oid grantor;
	uint32_t go;
	if (is_superuser(cs, s->user_oid) || sql_priv_inherits_role(s, cs, s->user_oid, t->owner)) {
		grantor = t->owner;
		go = ~0u;
	} else {
		grantor = s->user_oid;
		uint32_t have = acl_mask(s, cs, acl, neff, t->owner, s->user_oid, &go);
		for (int c = 0; colprivs && c < ncols; c++) {
			uint32_t cgo = 0;
			if (obj->rel.cols[c].nacl)
				have |= acl_mask(s, cs, obj->rel.cols[c].acl, obj->rel.cols[c].nacl, t->owner,
						 s->user_oid, &cgo);
			(void)cgo;
		}
		if (!have && !go) {
			if (t->kind == ACLK_SCHEMA)
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for schema %s",
					 t->name);
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied for %s %s",
				 kind_name(t->kind, t->rel), t->name);
		}
	}
	uint32_t doable = requested & go;
	if (doable != requested) {
		if (!doable)
			sql_warning(s,
				    st->is_grant ? UTIL_E_WARNING_PRIVILEGE_NOT_GRANTED
						 : UTIL_E_WARNING_PRIVILEGE_NOT_REVOKED,
				    st->is_grant ? "no privileges were granted for \"%s\""
						 : "no privileges could be revoked for \"%s\"",
				    t->name);
		else if (!all)
			sql_warning(s,
				    st->is_grant ? UTIL_E_WARNING_PRIVILEGE_NOT_GRANTED
						 : UTIL_E_WARNING_PRIVILEGE_NOT_REVOKED,
				    st->is_grant ? "not all privileges were granted for \"%s\""
						 : "not all privileges could be revoked for \"%s\"",
				    t->name);
	}
	if (!doable)
		return;
	bool go_only = !st->is_grant && st->grant_option, with_go = st->is_grant && st->grant_option;
	cat_obj *c = cat_obj_copy(obj);
	TY_TRY(tc)
	{
		if (privs & doable) {
			int n;
			cat_acl *na = merge_acl(c, acl, neff, &n, st->is_grant, go_only, with_go, grantor,
						grantees, ngrantees, privs & doable);
			if (!st->is_grant)
				for (int g = 0; g < ngrantees; g++)
					na = revoke_dependents(
					    s, cs, c, na, &n, t->owner, grantees[g], privs & doable,
					    st->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE, t->name);
			if (t->kind == ACLK_SCHEMA) {
				c->schema.acl = na;
				c->schema.nacl = n;
			} else {
				c->rel.acl = na;
				c->rel.nacl = n;
			}
		}
		for (int col = 0; col < ncols; col++) {
			cat_column *cc = &c->rel.cols[col];
			/* Column privileges; a table-level REVOKE takes them from columns too. */
			uint32_t p = (colprivs ? colprivs[col] : 0) | (!st->is_grant ? privs : 0);
			p &= doable;
			if (!p || (!st->is_grant && !cc->nacl))
				continue;
			int n;
			cat_acl *na = merge_acl(c, cc->acl, cc->nacl, &n, st->is_grant, go_only, with_go,
						grantor, grantees, ngrantees, p);
			cc->acl = na;
			cc->nacl = n;
		}
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

typedef struct schema_rels {
	cat_oid schema;
	char want; /* 't' tables and views, 's' sequences */
	cat_oid *oids;
	int n;
} schema_rels;

static int collect_schema_rels(void *arg, const cat_obj *o)
{
	schema_rels *sr = arg;
	if (o->rel.schema != sr->schema)
		return 0;
	bool ok = sr->want == 's' ? o->rel.relkind == CAT_RELKIND_SEQUENCE
				  : o->rel.relkind == CAT_RELKIND_TABLE || o->rel.relkind == CAT_RELKIND_VIEW;
	if (!ok)
		return 0;
	cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(sr->n + 1));
	if (sr->n)
		memcpy(n, sr->oids, sizeof(cat_oid) * (size_t)sr->n);
	n[sr->n++] = o->oid;
	sr->oids = n;
	return 0;
}

static void grant_stmt(sql_session *s, PgQuery__GrantStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	acl_kind kind;
	switch (st->objtype) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
		kind = ACLK_TABLE;
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
		kind = ACLK_SEQUENCE;
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA:
		kind = ACLK_SCHEMA;
		break;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "GRANT/REVOKE on this kind of object is not supported");
	}
	if (st->targtype == PG_QUERY__GRANT_TARGET_TYPE__ACL_TARGET_DEFAULTS)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "GRANT/REVOKE on default privileges must use ALTER DEFAULT PRIVILEGES");
	/* Privileges. */
	bool all = st->n_privileges == 0;
	uint32_t privs = 0;
	bool any_cols = false;
	for (size_t i = 0; i < st->n_privileges; i++) {
		PgQuery__AccessPriv *ap = st->privileges[i]->access_priv;
		if (ap->n_cols) {
			if (kind != ACLK_TABLE)
				ty_error(UTIL_E_INVALID_GRANT_OPERATION,
					 "column privileges are only valid for relations");
			any_cols = true;
		}
		if (!ap->priv_name) /* ALL (cols) */
			continue;
		bool ok;
		uint32_t bit = priv_bit(ap->priv_name, kind, &ok);
		if (!ok) {
			char up[32];
			ty_error(UTIL_E_INVALID_GRANT_OPERATION, "invalid privilege type %s for %s",
				 upper_priv(ap->priv_name, up, sizeof up),
				 kind == ACLK_SCHEMA     ? "schema"
				 : kind == ACLK_SEQUENCE ? "sequence"
							 : "table");
		}
		if (ap->n_cols && !(bit & PRIV_COLUMN_ALL)) {
			char up[32];
			ty_error(UTIL_E_INVALID_GRANT_OPERATION, "invalid privilege type %s for column",
				 upper_priv(ap->priv_name, up, sizeof up));
		}
		if (!ap->n_cols)
			privs |= bit;
	}
	/* Grantees (PUBLIC = 0). */
	cat_oid *grantees = ty_alloc(sizeof(cat_oid) * (st->n_grantees + 1));
	int ng = 0;
	for (size_t i = 0; i < st->n_grantees; i++)
		grantees[ng++] = sql_priv_role_oid(s, cs, st->grantees[i]->role_spec, false);
	if (st->grantor && !is_superuser(cs, s->user_oid) &&
	    sql_priv_role_oid(s, cs, st->grantor, false) != s->user_oid)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "grantor must be current user");
	/* Targets. */
	for (size_t i = 0; i < st->n_objects; i++) {
		if (st->targtype == PG_QUERY__GRANT_TARGET_TYPE__ACL_TARGET_ALL_IN_SCHEMA) {
			const char *sname = str_of(st->objects[i]);
			const cat_obj *sch = sql_lookup_schema(s, cs, sname);
			if (!sch)
				ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", sname);
			schema_rels sr = {sch->oid, kind == ACLK_SEQUENCE ? 's' : 't', NULL, 0};
			cat_foreach(cs, CAT_REL, s->db_oid, collect_schema_rels, &sr);
			for (int k = 0; k < sr.n; k++) {
				const cat_obj *o = cat_get(cat_txn_snap(ct), sr.oids[k]);
				grant_target t = {kind, o->oid, o->rel.name, o->rel.owner, &o->rel};
				uint32_t p = all ? all_privs(kind) : privs;
				grant_on(s, ct, st, &t, p, NULL, grantees, ng, all);
			}
			continue;
		}
		if (kind == ACLK_SCHEMA) {
			const char *sname = str_of(st->objects[i]);
			const cat_obj *sch = sql_lookup_schema(s, cat_txn_snap(ct), sname);
			if (!sch)
				ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", sname);
			grant_target t = {kind, sch->oid, sch->schema.name, sch->schema.owner, NULL};
			grant_on(s, ct, st, &t, all ? PRIV_SCHEMA_ALL : privs, NULL, grantees, ng, all);
			continue;
		}
		PgQuery__RangeVar *rv = st->objects[i]->range_var;
		const cat_obj *o;
		TY_TRY(tc)
		{
			o = sql_lookup_rel(s, cat_txn_snap(ct), rv, false);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			if (ty_err()->position < 0)
				ty_err()->position = 0;
			ty_errthrow();
		}
		TY_END(tc);
		acl_kind k = rel_kind(&o->rel);
		if (kind == ACLK_SEQUENCE && o->rel.relkind != CAT_RELKIND_SEQUENCE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", o->rel.name);
		if (o->rel.relkind == CAT_RELKIND_INDEX)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is an index", o->rel.name);
		uint32_t p = all ? all_privs(k) : privs;
		if (k == ACLK_SEQUENCE && kind == ACLK_TABLE && !all) {
			/* Table privileges on a sequence: only SELECT and UPDATE apply. */
			if (p & ~PRIV_SEQ_ALL)
				sql_warning(
				    s, UTIL_E_WARNING,
				    "sequence \"%s\" only supports USAGE, SELECT, and UPDATE privileges",
				    o->rel.name);
			p &= PRIV_SEQ_ALL;
		}
		grant_target t = {k, o->oid, o->rel.name, o->rel.owner, &o->rel};
		/* Column privileges: per column, from the privileges with a column list. */
		uint32_t *colprivs = NULL;
		if (any_cols) {
			colprivs = ty_alloc0(sizeof(uint32_t) * (size_t)(o->rel.ncols + 1));
			for (size_t x = 0; x < st->n_privileges; x++) {
				PgQuery__AccessPriv *ap = st->privileges[x]->access_priv;
				if (!ap->n_cols)
					continue;
				bool ok;
				uint32_t bit = ap->priv_name ? priv_bit(ap->priv_name, ACLK_TABLE, &ok)
							     : PRIV_COLUMN_ALL;
				for (size_t k2 = 0; k2 < ap->n_cols; k2++) {
					const char *cn = str_of(ap->cols[k2]);
					const cat_column *col = cat_column_by_name(&o->rel, cn);
					if (!col)
						ty_error(UTIL_E_UNDEFINED_COLUMN,
							 "column \"%s\" of relation \"%s\" does not exist",
							 cn, o->rel.name);
					colprivs[col->attnum - 1] |= bit;
				}
			}
		}
		grant_on(s, ct, st, &t, p, colprivs, grantees, ng, all);
	}
}

/* ---------------------------------------------------------------- GRANT / REVOKE role */

/* Is member (through its memberships) holding role WITH ADMIN OPTION? */
static bool admin_walk(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role, int depth)
{
	const cat_role *m = role_of(cs, member);
	if (!m || depth > 64)
		return false;
	for (int i = 0; i < m->nmembers_of; i++) {
		if (m->member_of[i] == role && m->member_admin && m->member_admin[i])
			return true;
		if (admin_walk(s, cs, m->member_of[i], role, depth + 1))
			return true;
	}
	return false;
}

static bool is_admin_of(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role)
{
	return is_superuser(cs, member) || admin_walk(s, cs, member, role, 0);
}

void sql_priv_set_member(cat_txn *ct, cat_oid member, cat_oid role, bool remove, int admin)
{
	const cat_obj *m = cat_get(cat_txn_snap(ct), member);
	cat_obj *c = cat_obj_copy(m);
	cat_role *r = &c->role;
	int at = -1;
	for (int i = 0; i < r->nmembers_of; i++)
		if (r->member_of[i] == role)
			at = i;
	bool *adm = cat_obj_alloc(c, sizeof(bool) * (size_t)(r->nmembers_of + 1));
	if (r->member_admin)
		memcpy(adm, r->member_admin, sizeof(bool) * (size_t)r->nmembers_of);
	if (remove) {
		int k = 0;
		for (int i = 0; i < r->nmembers_of; i++)
			if (i != at) {
				r->member_of[k] = r->member_of[i];
				adm[k++] = adm[i];
			}
		r->nmembers_of = k;
	} else if (at < 0) {
		cat_oid *nm = cat_obj_alloc(c, sizeof(cat_oid) * (size_t)(r->nmembers_of + 1));
		if (r->nmembers_of)
			memcpy(nm, r->member_of, sizeof(cat_oid) * (size_t)r->nmembers_of);
		nm[r->nmembers_of] = role;
		adm[r->nmembers_of] = admin > 0;
		r->nmembers_of++;
		r->member_of = nm;
	} else if (admin >= 0) {
		adm[at] = admin > 0;
	}
	r->member_admin = adm;
	cat_txn_put(ct, c);
}

static void grant_role_stmt(sql_session *s, PgQuery__GrantRoleStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	for (size_t i = 0; i < st->n_granted_roles; i++) {
		PgQuery__AccessPriv *ap = st->granted_roles[i]->access_priv;
		cat_snap *cs = cat_txn_snap(ct);
		const cat_obj *granted = cat_role_by_name(cs, ap->priv_name);
		if (!granted)
			ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", ap->priv_name);
		/* PostgreSQL 15: superusers, CREATEROLE (for non-superuser roles), or admins. */
		const cat_role *me = role_of(cs, s->user_oid);
		if (granted->role.superuser) {
			if (!(me && me->superuser))
				ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
					 "must be superuser to alter superusers");
		} else if (!(me && (me->superuser || me->createrole)) &&
			   !is_admin_of(s, cs, s->user_oid, granted->oid)) {
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must have admin option on role \"%s\"",
				 granted->role.name);
		}
		for (size_t g = 0; g < st->n_grantee_roles; g++) {
			cs = cat_txn_snap(ct);
			cat_oid mo = sql_priv_role_oid(s, cs, st->grantee_roles[g]->role_spec, false);
			if (mo == 0)
				ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"public\" does not exist");
			const cat_obj *member = cat_get(cs, mo);
			int at = -1;
			for (int k = 0; k < member->role.nmembers_of; k++)
				if (member->role.member_of[k] == granted->oid)
					at = k;
			bool has_admin =
			    at >= 0 && member->role.member_admin && member->role.member_admin[at];
			if (st->is_grant) {
				if (at >= 0 && (!st->admin_opt || has_admin)) {
					sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
						   "role \"%s\" is already a member of role \"%s\"",
						   member->role.name, granted->role.name);
					continue;
				}
				if (at < 0 &&
				    (mo == granted->oid || member_walk(s, cs, granted->oid, mo, false, 0)))
					ty_error(UTIL_E_INVALID_GRANT_OPERATION,
						 "role \"%s\" is a member of role \"%s\"", granted->role.name,
						 member->role.name);
				sql_priv_set_member(ct, mo, granted->oid, false, st->admin_opt ? 1 : -1);
			} else {
				if (at < 0) {
					sql_warning(s, UTIL_E_WARNING,
						    "role \"%s\" is not a member of role \"%s\"",
						    member->role.name, granted->role.name);
					continue;
				}
				/* REVOKE ADMIN OPTION FOR keeps the membership. */
				sql_priv_set_member(ct, mo, granted->oid, !st->admin_opt, 0);
			}
		}
	}
}

/* ---------------------------------------------------------------- ALTER ... OWNER TO (schemas, databases) */

static void alter_owner_stmt(sql_session *s, PgQuery__AlterOwnerStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	cat_oid nowner = sql_priv_role_oid(s, cs, st->newowner, false);
	switch (st->object_type) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: {
		const char *name = str_of(st->object);
		const cat_obj *o = sql_lookup_schema(s, cs, name);
		if (!o)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", name);
		if (o->schema.owner == nowner)
			return;
		if (!sql_priv_inherits_role(s, cs, s->user_oid, o->schema.owner))
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s", name);
		sql_priv_check_owner_change(s, cs, o->schema.owner, nowner);
		cat_obj *c = cat_obj_copy(o);
		for (int i = 0; i < c->schema.nacl; i++) {
			if (c->schema.acl[i].grantor == o->schema.owner)
				c->schema.acl[i].grantor = nowner;
			if (c->schema.acl[i].grantee == o->schema.owner)
				c->schema.acl[i].grantee = nowner;
		}
		c->schema.owner = nowner;
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_DATABASE: {
		const char *name = str_of(st->object);
		const cat_obj *o = cat_database_by_name(cs, name);
		if (!o)
			ty_error(UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", name);
		if (o->db.owner == nowner)
			return;
		if (!sql_priv_inherits_role(s, cs, s->user_oid, o->db.owner))
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of database %s", name);
		sql_priv_check_owner_change(s, cs, o->db.owner, nowner);
		const cat_role *me = role_of(cs, s->user_oid);
		if (!(me && (me->superuser || me->createdb)))
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
				 "permission denied to change owner of database");
		cat_obj *c = cat_obj_copy(o);
		c->db.owner = nowner;
		cat_txn_put(ct, c);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "ALTER OWNER on this kind of object is not supported");
	}
}

/* ---------------------------------------------------------------- ALTER DEFAULT PRIVILEGES */

static const char *defacl_word(char objtype)
{
	switch (objtype) {
	case 'S':
		return "sequences";
	case 'f':
		return "functions";
	case 'T':
		return "types";
	case 'n':
		return "schemas";
	default:
		return "relations";
	}
}

static uint32_t defacl_all(char objtype)
{
	switch (objtype) {
	case 'S':
		return PRIV_SEQ_ALL;
	case 'f':
		return CAT_PRIV_EXECUTE;
	case 'T':
		return CAT_PRIV_USAGE;
	case 'n':
		return PRIV_SCHEMA_ALL;
	default:
		return PRIV_TABLE_ALL;
	}
}

/* The ACL an object of this type gets without default privileges. */
static cat_acl *defacl_default(char objtype, cat_oid owner, int *n)
{
	cat_acl *a = ty_alloc0(sizeof(cat_acl) * 2);
	a[0] = (cat_acl){owner, owner, defacl_all(objtype), 0};
	*n = 1;
	if (objtype == 'f' || objtype == 'T') {
		a[1] = (cat_acl){0, owner, defacl_all(objtype), 0};
		*n = 2;
	}
	return a;
}

static bool acl_same(const cat_acl *a, int na, const cat_acl *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++) {
		bool f = false;
		for (int k = 0; k < nb && !f; k++)
			f = a[i].grantee == b[k].grantee && a[i].grantor == b[k].grantor &&
			    a[i].privs == b[k].privs && a[i].grant_option == b[k].grant_option;
		if (!f)
			return false;
	}
	return true;
}

static const cat_defacl *find_defacl(const cat_role *r, cat_oid schema, char objtype)
{
	for (int i = 0; r && i < r->ndefacl; i++)
		if (r->defacl[i].schema == schema && r->defacl[i].objtype == objtype)
			return &r->defacl[i];
	return NULL;
}

static void alter_default_privileges(sql_session *s, PgQuery__AlterDefaultPrivilegesStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	PgQuery__GrantStmt *g = st->action;
	cat_oid *roles = ty_alloc(sizeof(cat_oid) * 16), *schemas = ty_alloc(sizeof(cat_oid) * 16);
	int nroles = 0, nschemas = 0;
	for (size_t i = 0; i < st->n_options; i++) {
		PgQuery__DefElem *d = st->options[i]->def_elem;
		PgQuery__List *l = d->arg->list;
		for (size_t k = 0; k < l->n_items; k++) {
			if (!strcmp(d->defname, "roles")) {
				cat_oid r = sql_priv_role_oid(s, cs, l->items[k]->role_spec, false);
				if (!is_member_of(s, cs, s->user_oid, r))
					ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE,
						 "must be member of role \"%s\"", role_name(cs, r));
				if (nroles < 16)
					roles[nroles++] = r;
			} else if (!strcmp(d->defname, "schemas")) {
				const char *n = str_of(l->items[k]);
				const cat_obj *sch = sql_lookup_schema(s, cs, n);
				if (!sch)
					ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist",
						 n);
				if (nschemas < 16)
					schemas[nschemas++] = sch->oid;
			}
		}
	}
	if (!nroles)
		roles[nroles++] = s->user_oid;
	char objtype;
	switch (g->objtype) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
		objtype = 'r';
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
		objtype = 'S';
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_FUNCTION:
	case PG_QUERY__OBJECT_TYPE__OBJECT_PROCEDURE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_ROUTINE:
		objtype = 'f';
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_TYPE:
		objtype = 'T';
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA:
		objtype = 'n';
		break;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "ALTER DEFAULT PRIVILEGES is not supported for this kind of object");
	}
	if (objtype == 'n' && nschemas)
		ty_error(UTIL_E_INVALID_GRANT_OPERATION,
			 "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS");
	/* Privileges valid for the kind of object. */
	static const char *const words[] = {"table", "sequence", "function", "type", "schema"};
	const char *kw = words[objtype == 'r'   ? 0
			       : objtype == 'S' ? 1
			       : objtype == 'f' ? 2
			       : objtype == 'T' ? 3
						: 4];
	uint32_t privs = g->n_privileges ? 0 : defacl_all(objtype);
	for (size_t i = 0; i < g->n_privileges; i++) {
		PgQuery__AccessPriv *ap = g->privileges[i]->access_priv;
		char up[32];
		uint32_t bit = 0;
		bool ok = false;
		if (!strcmp(ap->priv_name, "execute"))
			bit = CAT_PRIV_EXECUTE, ok = true;
		else
			bit = priv_bit(ap->priv_name,
				       objtype == 'r'   ? ACLK_TABLE
				       : objtype == 'n' ? ACLK_SCHEMA
							: ACLK_SEQUENCE,
				       &ok);
		if (!ok || !(bit & defacl_all(objtype)))
			ty_error(UTIL_E_INVALID_GRANT_OPERATION, "invalid privilege type %s for %s",
				 upper_priv(ap->priv_name, up, sizeof up), kw);
		privs |= bit;
	}
	cat_oid *grantees = ty_alloc(sizeof(cat_oid) * (g->n_grantees + 1));
	int ng = 0;
	for (size_t i = 0; i < g->n_grantees; i++)
		grantees[ng++] = sql_priv_role_oid(s, cs, g->grantees[i]->role_spec, false);
	for (int r = 0; r < nroles; r++) {
		for (int k = 0; k < (nschemas ? nschemas : 1); k++) {
			cat_oid schema = nschemas ? schemas[k] : 0;
			const cat_obj *ro = cat_get(cat_txn_snap(ct), roles[r]);
			const cat_defacl *cur = find_defacl(&ro->role, schema, objtype);
			int nbase = 0, ndef = 0;
			const cat_acl *base = cur ? cur->acl : NULL;
			nbase = cur ? cur->nacl : 0;
			cat_acl *def = defacl_default(objtype, roles[r], &ndef);
			if (!cur && !schema) {
				base = def;
				nbase = ndef;
			}
			cat_obj *c = cat_obj_copy(ro);
			int n;
			cat_acl *na =
			    merge_acl(c, base, nbase, &n, g->is_grant, !g->is_grant && g->grant_option,
				      g->is_grant && g->grant_option, roles[r], grantees, ng, privs);
			bool drop = schema ? n == 0 : acl_same(na, n, def, ndef);
			cat_role *cr = &c->role;
			cat_defacl *list = cat_obj_alloc(c, sizeof(cat_defacl) * (size_t)(cr->ndefacl + 1));
			int m = 0;
			for (int x = 0; x < cr->ndefacl; x++)
				if (!(cr->defacl[x].schema == schema && cr->defacl[x].objtype == objtype))
					list[m++] = cr->defacl[x];
			if (!drop)
				list[m++] = (cat_defacl){schema, objtype, n, na};
			cr->defacl = list;
			cr->ndefacl = m;
			cat_txn_put(ct, c);
		}
	}
}

void sql_priv_apply_default_acl(sql_session *s, cat_snap *cs, cat_obj *o)
{
	(void)s;
	char objtype;
	cat_oid owner, schema;
	if (o->kind == CAT_SCHEMA) {
		objtype = 'n';
		owner = o->schema.owner;
		schema = 0;
	} else if (o->kind == CAT_REL && o->rel.relkind != CAT_RELKIND_INDEX) {
		objtype = o->rel.relkind == CAT_RELKIND_SEQUENCE ? 'S' : 'r';
		owner = o->rel.owner;
		schema = o->rel.schema;
	} else {
		return;
	}
	const cat_role *r = role_of(cs, owner);
	const cat_defacl *global = find_defacl(r, 0, objtype);
	const cat_defacl *in_schema = schema ? find_defacl(r, schema, objtype) : NULL;
	if (!global && !in_schema)
		return;
	int n;
	const cat_acl *base = global ? global->acl : defacl_default(objtype, owner, &n);
	if (global)
		n = global->nacl;
	cat_acl *acl =
	    cat_obj_alloc(o, sizeof(cat_acl) * (size_t)(n + (in_schema ? in_schema->nacl : 0) + 1));
	memcpy(acl, base, sizeof(cat_acl) * (size_t)n);
	/* The schema's entries add to the global ones. */
	for (int i = 0; in_schema && i < in_schema->nacl; i++) {
		const cat_acl *e = &in_schema->acl[i];
		int k = -1;
		for (int x = 0; x < n; x++)
			if (acl[x].grantee == e->grantee && acl[x].grantor == e->grantor)
				k = x;
		if (k < 0)
			acl[k = n++] = (cat_acl){e->grantee, e->grantor, 0, 0};
		acl[k].privs |= e->privs;
		acl[k].grant_option |= e->grant_option;
	}
	if (o->kind == CAT_SCHEMA) {
		o->schema.acl = acl;
		o->schema.nacl = n;
	} else {
		o->rel.acl = acl;
		o->rel.nacl = n;
	}
}

/* DROP ROLE: default privileges the role owns or appears in, as lines of
 * PostgreSQL's "cannot be dropped" detail. */
typedef struct defacl_deps {
	cat_snap *cs;
	cat_oid role;
	util_buf *detail;
	int n;
} defacl_deps;

static int defacl_dep_fn(void *arg, const cat_obj *o)
{
	defacl_deps *d = arg;
	for (int i = 0; i < o->role.ndefacl; i++) {
		const cat_defacl *e = &o->role.defacl[i];
		bool owner = o->oid == d->role, mentioned = false;
		for (int k = 0; k < e->nacl && !owner; k++)
			mentioned |= e->acl[k].grantee == d->role || e->acl[k].grantor == d->role;
		if (!owner && !mentioned)
			continue;
		if (d->detail->len)
			util_buf_putc(d->detail, '\n');
		util_buf_printf(d->detail, "%s default privileges on new %s belonging to role %s",
				owner ? "owner of" : "privileges for", defacl_word(e->objtype), o->role.name);
		if (e->schema)
			util_buf_printf(d->detail, " in schema %s", sql_schema_name(d->cs, e->schema));
		d->n++;
	}
	return 0;
}

int sql_priv_defacl_deps(cat_snap *cs, cat_oid role, util_buf *detail)
{
	defacl_deps d = {cs, role, detail, 0};
	cat_foreach(cs, CAT_ROLE, 0, defacl_dep_fn, &d);
	return d.n;
}

/* ---------------------------------------------------------------- dispatch */

void sql_ddl_grant(sql_session *s, pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_GRANT_STMT:
		grant_stmt(s, n->grant_stmt);
		return;
	case PG_QUERY__NODE__NODE_GRANT_ROLE_STMT:
		grant_role_stmt(s, n->grant_role_stmt);
		return;
	case PG_QUERY__NODE__NODE_ALTER_OWNER_STMT:
		alter_owner_stmt(s, n->alter_owner_stmt);
		return;
	case PG_QUERY__NODE__NODE_ALTER_DEFAULT_PRIVILEGES_STMT:
		alter_default_privileges(s, n->alter_default_privileges_stmt);
		return;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported", sql_command_tag(n));
	}
}

/* ---------------------------------------------------------------- SET ROLE / SESSION AUTHORIZATION */

static void become(sql_session *s, const cat_obj *role)
{
	snprintf(s->user, sizeof s->user, "%s", role->role.name);
	s->user_oid = role->oid;
	s->superuser = role->role.superuser;
}

int sql_priv_check_role_setting(sql_session *s, const char *name, bool session_auth, util_err *err)
{
	cat_snap *cs = s->cat ? s->cat : NULL;
	bool own = false;
	if (!cs) {
		cs = cat_current(s->e->cat);
		own = true;
	}
	int rc = 0;
	if (session_auth) {
		if (*name) {
			const cat_obj *r = cat_role_by_name(cs, name);
			if (!r)
				rc = util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
						  "role \"%s\" does not exist", name);
			else if (r->oid != s->auth_user_oid && !is_superuser(cs, s->auth_user_oid))
				rc = util_err_set(err, UTIL_E_INSUFFICIENT_PRIVILEGE,
						  "permission denied to set session authorization");
		}
	} else if (util_strcasecmp(name, "none")) {
		const cat_obj *r = cat_role_by_name(cs, name);
		cat_oid sess = s->session_user_oid ? s->session_user_oid : s->auth_user_oid;
		if (!r)
			rc = util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE, "role \"%s\" does not exist",
					  name);
		else if (!is_member_of(s, cs, sess, r->oid))
			rc = util_err_set(err, UTIL_E_INSUFFICIENT_PRIVILEGE,
					  "permission denied to set role \"%s\"", name);
	}
	if (own)
		cat_snap_release(cs);
	return rc;
}

void sql_priv_assign_role_setting(sql_session *s, const char *name, bool session_auth)
{
	cat_snap *cs = cat_current(s->e->cat);
	if (session_auth) {
		const cat_obj *r = *name ? cat_role_by_name(cs, name) : cat_get(cs, s->auth_user_oid);
		if (r) {
			snprintf(s->session_user, sizeof s->session_user, "%s", r->role.name);
			s->session_user_oid = r->oid;
			become(s, r);
		}
	} else {
		const cat_obj *r = util_strcasecmp(name, "none") ? cat_role_by_name(cs, name) : NULL;
		if (!r)
			r = cat_get(cs, s->session_user_oid ? s->session_user_oid : s->auth_user_oid);
		if (r)
			become(s, r);
	}
	cat_snap_release(cs);
}

/* ---------------------------------------------------------------- has_*_privilege, pg_has_role */

static cat_snap *fn_snap(sql_session *s)
{
	if (!s->cat)
		s->cat = cat_current(s->e->cat);
	return s->txn && s->txn->ddl ? cat_txn_snap(s->txn->ddl) : s->cat;
}

static char *arg_text(const ty_datum *d)
{
	return ty_strndup(d->p, d->len);
}

/* The role argument: a name (error if missing) or an oid. */
static cat_oid fn_role(sql_session *s, cat_snap *cs, const ty_fcinfo *fc, int i)
{
	if (fc->argtypes[i] == TY_OID)
		return (cat_oid)fc->args[i].i;
	char *name = arg_text(&fc->args[i]);
	if (!strcmp(name, "public"))
		return 0;
	const cat_obj *o = cat_role_by_name(cs, name);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
	return o->oid;
}

/* "SELECT, INSERT WITH GRANT OPTION": privilege bits (any of them suffices). */
static uint32_t fn_privs(const ty_datum *d, acl_kind k, bool *grant)
{
	char *list = arg_text(d);
	uint32_t bits = 0;
	*grant = false;
	for (char *tok = list; tok && *tok;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = 0;
		while (*tok == ' ')
			tok++;
		char *end = tok + strlen(tok);
		while (end > tok && end[-1] == ' ')
			*--end = 0;
		char low[64];
		size_t n = 0;
		for (; tok[n] && n + 1 < sizeof low; n++)
			low[n] = (char)(tok[n] >= 'A' && tok[n] <= 'Z' ? tok[n] + 32 : tok[n]);
		low[n] = 0;
		char *wgo = strstr(low, " with grant option");
		if (wgo) {
			*wgo = 0;
			*grant = true;
		}
		bool ok;
		uint32_t b = priv_bit(low, k, &ok);
		if (!ok)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized privilege type: \"%s\"", tok);
		bits |= b;
		tok = comma ? comma + 1 : NULL;
	}
	return bits;
}

static ty_datum rel_privilege(ty_fcinfo *fc, bool sequence)
{
	sql_session *s = sql_current_session();
	cat_snap *cs = fn_snap(s);
	int base = fc->nargs == 3 ? 1 : 0;
	cat_oid role = base ? fn_role(s, cs, fc, 0) : s->user_oid;
	const cat_obj *rel;
	if (fc->argtypes[base] == TY_OID) {
		rel = cat_get(cs, (cat_oid)fc->args[base].i);
		if (!rel || rel->kind != CAT_REL) {
			if (!sequence && sql_sysview_name_by_oid((cat_oid)fc->args[base].i)) {
				bool grant;
				uint32_t want = fn_privs(&fc->args[base + 1], ACLK_TABLE, &grant);
				return ty_bool(is_superuser(cs, role) || want == CAT_PRIV_SELECT);
			}
			return ty_null();
		}
	} else {
		char *name = arg_text(&fc->args[base]);
		cat_oid oid = (cat_oid)ty_input(TY_REGCLASS, name, strlen(name), -1).i;
		rel = cat_get(cs, oid);
		if (!rel || rel->kind != CAT_REL) { /* a generated catalog relation: readable by all */
			bool grant;
			uint32_t want = fn_privs(&fc->args[base + 1], ACLK_TABLE, &grant);
			return ty_bool(is_superuser(cs, role) || want == CAT_PRIV_SELECT);
		}
	}
	if (sequence && rel->rel.relkind != CAT_RELKIND_SEQUENCE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", rel->rel.name);
	bool grant;
	uint32_t want = fn_privs(&fc->args[base + 1], sequence ? ACLK_SEQUENCE : ACLK_TABLE, &grant);
	if (is_superuser(cs, role))
		return ty_bool(true);
	int n;
	const cat_acl *acl =
	    effective_acl(rel->rel.acl, rel->rel.nacl, rel_kind(&rel->rel), rel->rel.owner, rel->oid, &n);
	uint32_t go, have = acl_mask(s, cs, acl, n, rel->rel.owner, role, &go);
	return ty_bool(((grant ? go & have : have) & want) != 0);
}

ty_datum sql_acl_fn_table(ty_fcinfo *fc)
{
	return rel_privilege(fc, false);
}

/* has_column_privilege([role,] table, column, privs) and
 * has_any_column_privilege([role,] table, privs): the table's privilege,
 * or the column's (any column's). */
static ty_datum column_privilege(ty_fcinfo *fc, bool any)
{
	sql_session *s = sql_current_session();
	cat_snap *cs = fn_snap(s);
	int base = fc->nargs == (any ? 3 : 4) ? 1 : 0;
	cat_oid role = base ? fn_role(s, cs, fc, 0) : s->user_oid;
	const cat_obj *rel;
	if (fc->argtypes[base] == TY_OID) {
		rel = cat_get(cs, (cat_oid)fc->args[base].i);
		if (!rel || rel->kind != CAT_REL)
			return ty_null();
	} else {
		char *name = arg_text(&fc->args[base]);
		rel = cat_get(cs, (cat_oid)ty_input(TY_REGCLASS, name, strlen(name), -1).i);
		if (!rel || rel->kind != CAT_REL)
			return ty_bool(true);
	}
	const cat_column *col = NULL;
	if (!any) {
		const ty_datum *ca = &fc->args[base + 1];
		if (fc->argtypes[base + 1] == TY_INT2) {
			col = cat_column_by_attnum(&rel->rel, (int)ca->i);
			if (!col || col->dropped)
				return ty_null();
		} else {
			char *cn = arg_text(ca);
			col = cat_column_by_name(&rel->rel, cn);
			if (!col)
				ty_error(UTIL_E_UNDEFINED_COLUMN,
					 "column \"%s\" of relation \"%s\" does not exist", cn,
					 rel->rel.name);
		}
	}
	bool grant;
	uint32_t want = fn_privs(&fc->args[fc->nargs - 1], ACLK_TABLE, &grant);
	if (want & ~PRIV_COLUMN_ALL)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized privilege type: \"%s\"",
			 arg_text(&fc->args[fc->nargs - 1]));
	if (is_superuser(cs, role))
		return ty_bool(true);
	int n;
	const cat_acl *acl =
	    effective_acl(rel->rel.acl, rel->rel.nacl, rel_kind(&rel->rel), rel->rel.owner, rel->oid, &n);
	uint32_t go, have = acl_mask(s, cs, acl, n, rel->rel.owner, role, &go);
	if (((grant ? go & have : have) & want) != 0)
		return ty_bool(true);
	for (int c = 0; c < rel->rel.ncols; c++) {
		const cat_column *cc = &rel->rel.cols[c];
		if (cc->dropped || !cc->nacl || (col && cc != col))
			continue;
		uint32_t cgo, ch = acl_mask(s, cs, cc->acl, cc->nacl, rel->rel.owner, role, &cgo);
		if (((grant ? cgo & ch : ch) & want) != 0)
			return ty_bool(true);
	}
	return ty_bool(false);
}

ty_datum sql_acl_fn_column(ty_fcinfo *fc)
{
	return column_privilege(fc, false);
}
ty_datum sql_acl_fn_any_column(ty_fcinfo *fc)
{
	return column_privilege(fc, true);
}
ty_datum sql_acl_fn_sequence(ty_fcinfo *fc)
{
	return rel_privilege(fc, true);
}

ty_datum sql_acl_fn_schema(ty_fcinfo *fc)
{
	sql_session *s = sql_current_session();
	cat_snap *cs = fn_snap(s);
	int base = fc->nargs == 3 ? 1 : 0;
	cat_oid role = base ? fn_role(s, cs, fc, 0) : s->user_oid;
	const cat_obj *sch;
	if (fc->argtypes[base] == TY_OID) {
		sch = cat_get(cs, (cat_oid)fc->args[base].i);
		if (!sch || sch->kind != CAT_SCHEMA)
			return ty_null();
	} else {
		char *name = arg_text(&fc->args[base]);
		sch = sql_lookup_schema(s, cs, name);
		if (!sch)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", name);
	}
	bool grant;
	uint32_t want = fn_privs(&fc->args[base + 1], ACLK_SCHEMA, &grant);
	if (is_superuser(cs, role))
		return ty_bool(true);
	int n;
	const cat_acl *acl =
	    effective_acl(sch->schema.acl, sch->schema.nacl, ACLK_SCHEMA, sch->schema.owner, sch->oid, &n);
	uint32_t go, have = acl_mask(s, cs, acl, n, sch->schema.owner, role, &go);
	return ty_bool(((grant ? go & have : have) & want) != 0);
}

ty_datum sql_acl_fn_pg_has_role(ty_fcinfo *fc)
{
	sql_session *s = sql_current_session();
	cat_snap *cs = fn_snap(s);
	int base = fc->nargs == 3 ? 1 : 0;
	cat_oid member = base ? fn_role(s, cs, fc, 0) : s->user_oid;
	cat_oid role = fn_role(s, cs, fc, base);
	char *mode = arg_text(&fc->args[base + 1]);
	for (char *p = mode; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p + 32);
	if (!strcmp(mode, "member"))
		return ty_bool(is_member_of(s, cs, member, role));
	if (!strcmp(mode, "usage"))
		return ty_bool(sql_priv_inherits_role(s, cs, member, role));
	if (!strcmp(mode, "member with admin option") || !strcmp(mode, "usage with admin option") ||
	    !strcmp(mode, "member with grant option") || !strcmp(mode, "usage with grant option"))
		return ty_bool(is_admin_of(s, cs, member, role));
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized privilege type: \"%s\"",
		 arg_text(&fc->args[base + 1]));
}
