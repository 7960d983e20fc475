/*
 * ddl_alter.c — ALTER TABLE (and ALTER VIEW/SEQUENCE/INDEX where they
 * share subcommands): the subcommands edit a copy of the table's catalog
 * object in order, recording what the data needs — new column values
 * (defaults, USING casts), a new row key (ADD/DROP PRIMARY KEY, key_order),
 * validations (NOT NULL, CHECK, FOREIGN KEY) — then one pass over the rows
 * does all of it (ddl_rewrite.c) and the new object replaces the old in the
 * transaction's catalog change set. Errors and notices follow PostgreSQL 15.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"
#include "sql_index.h"

typedef struct alter_ctx {
	sql_session *s;
	cat_txn *ct;
	const char *text;
	const cat_obj *orig;
	sql_tbl_build tb;
	bool rekey;         /* the storage key changes: copy into a new storage */
	int ncols_cap;      /* size of the per-column arrays below */
	bool *backfill;     /* per column: compute a value for every existing row */
	pnode **using_expr; /* per column: ALTER TYPE ... USING (raw), or NULL */
	bool *type_changed;
	bool *notnull_check; /* per column: verify no NULLs */
	int nvalidate;       /* constraints (by oid) to verify against the rows */
	cat_oid *validate;
	bool new_unique; /* a UNIQUE constraint was added: the index module builds it */
	bool changed;
} alter_ctx;

/* ---------------------------------------------------------------- helpers */

static void grow_cols(alter_ctx *ac)
{
	int n = ac->tb.r->ncols;
	if (n <= ac->ncols_cap)
		return;
	int cap = n + 8;
	bool *b = ty_alloc0(sizeof(bool) * (size_t)cap), *tc = ty_alloc0(sizeof(bool) * (size_t)cap),
	     *nn = ty_alloc0(sizeof(bool) * (size_t)cap);
	pnode **u = ty_alloc0(sizeof(pnode *) * (size_t)cap);
	if (ac->ncols_cap) {
		memcpy(b, ac->backfill, sizeof(bool) * (size_t)ac->ncols_cap);
		memcpy(tc, ac->type_changed, sizeof(bool) * (size_t)ac->ncols_cap);
		memcpy(nn, ac->notnull_check, sizeof(bool) * (size_t)ac->ncols_cap);
		memcpy(u, ac->using_expr, sizeof(pnode *) * (size_t)ac->ncols_cap);
	}
	ac->backfill = b;
	ac->type_changed = tc;
	ac->notnull_check = nn;
	ac->using_expr = u;
	ac->ncols_cap = cap;
}

static void add_validate(alter_ctx *ac, cat_oid con)
{
	cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(ac->nvalidate + 1));
	if (ac->nvalidate)
		memcpy(n, ac->validate, sizeof(cat_oid) * (size_t)ac->nvalidate);
	n[ac->nvalidate++] = con;
	ac->validate = n;
}

static cat_column *must_column(alter_ctx *ac, const char *name)
{
	cat_column *c = (cat_column *)cat_column_by_name(ac->tb.r, name);
	if (!c)
		ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name,
			 ac->tb.r->name);
	return c;
}

static bool in_pk(const cat_rel *r, int attnum)
{
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'p')
			for (int k = 0; k < r->cons[i].ncols; k++)
				if (r->cons[i].cols[k] == attnum)
					return true;
	return false;
}

static void remove_constraint(cat_rel *r, int idx)
{
	for (int i = idx; i + 1 < r->ncons; i++)
		r->cons[i] = r->cons[i + 1];
	r->ncons--;
}

/* ---------------------------------------------------------------- indexes of the table */

/* Whether an index reads the column: a key, an INCLUDE column, or in an
 * expression or the predicate. */
static bool index_uses_column(const cat_obj *ix, const cat_column *c)
{
	const cat_index_info *in = ix->rel.index;
	if (!in)
		return false;
	for (int i = 0; i < in->nkeys; i++) {
		if (in->keys[i].attnum == c->attnum)
			return true;
		if (!in->keys[i].attnum && in->keys[i].expr_sql &&
		    sql_text_mentions_column(in->keys[i].expr_sql, c->name, false))
			return true;
	}
	for (int i = 0; i < in->ninclude; i++)
		if (in->include[i] == c->attnum)
			return true;
	return in->predicate_sql && sql_text_mentions_column(in->predicate_sql, c->name, false);
}

/* Drops an index of the table being altered, with the constraint it
 * enforces (PostgreSQL drops both silently with a column they use). The
 * table is changed in ac's copy, which is written at the end. */
static void drop_table_index(alter_ctx *ac, const cat_obj *ix)
{
	cat_rel *r = ac->tb.r;
	int k = 0;
	for (int i = 0; i < r->nindexes; i++)
		if (r->indexes[i] != ix->oid)
			r->indexes[k++] = r->indexes[i];
	r->nindexes = k;
	for (int i = r->ncons - 1; i >= 0; i--)
		if (r->cons[i].index_oid == ix->oid && (r->cons[i].type == 'u' || r->cons[i].type == 'p'))
			remove_constraint(r, i);
	if (ix->rel.storage[0])
		sql_txn_drop_storage_after_commit(ac->s->txn, ix->rel.storage);
	cat_txn_delete(ac->ct, ix->oid);
}

/* The indexes of the table (in the transaction's catalog) reading column c. */
static int indexes_using(alter_ctx *ac, const cat_column *c, const cat_obj **out, int max)
{
	int n = 0;
	for (int i = 0; i < ac->tb.r->nindexes && n < max; i++) {
		const cat_obj *ix = cat_get(cat_txn_snap(ac->ct), ac->tb.r->indexes[i]);
		if (ix && index_uses_column(ix, c))
			out[n++] = ix;
	}
	return n;
}

/* ---------------------------------------------------------------- dependents in other tables */

typedef struct fk_dep {
	cat_oid table; /* referenced table */
	int16_t *cols; /* referenced columns of interest (NULL = any) */
	int ncols;
	bool any_col; /* match if the FK uses any of cols (else: exactly the set) */
	cat_oid skip; /* the table being altered (handled in its own copy) */
	const cat_obj **rels;
	int *cons;
	int n;
} fk_dep;

static bool same_set(const int16_t *a, int na, const int16_t *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++) {
		bool f = false;
		for (int k = 0; k < nb; k++)
			f |= a[i] == b[k];
		if (!f)
			return false;
	}
	return true;
}

static int find_fk_deps(void *arg, const cat_obj *o)
{
	fk_dep *d = arg;
	if (o->oid == d->skip || o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	for (int i = 0; i < o->rel.ncons; i++) {
		const cat_constraint *c = &o->rel.cons[i];
		if (c->type != 'f' || c->ref_table != d->table)
			continue;
		bool hit;
		if (d->any_col) {
			hit = false;
			for (int a = 0; a < c->ncols && !hit; a++)
				for (int b = 0; b < d->ncols; b++)
					hit |= c->ref_cols[a] == d->cols[b];
		} else {
			hit = same_set(c->ref_cols, c->ncols, d->cols, d->ncols);
		}
		if (!hit)
			continue;
		const cat_obj **nr = ty_alloc(sizeof(cat_obj *) * (size_t)(d->n + 1));
		int *nc = ty_alloc(sizeof(int) * (size_t)(d->n + 1));
		if (d->n) {
			memcpy(nr, d->rels, sizeof(cat_obj *) * (size_t)d->n);
			memcpy(nc, d->cons, sizeof(int) * (size_t)d->n);
		}
		nr[d->n] = o;
		nc[d->n] = i;
		d->rels = nr;
		d->cons = nc;
		d->n++;
	}
	return 0;
}

/* Drops (CASCADE) or refuses (RESTRICT) foreign keys of other tables that
 * depend on columns of the altered table. what_fmt describes the object
 * being dropped for the error ("index t_pkey", "column a of table t"). */
static void handle_fk_dependents(alter_ctx *ac, const int16_t *cols, int ncols, bool any_col, bool cascade,
				 const char *dropping, const char *depends_on)
{
	fk_dep d = {ac->orig->oid, (int16_t *)cols, ncols, any_col, ac->orig->oid, NULL, NULL, 0};
	cat_foreach(cat_txn_snap(ac->ct), CAT_REL, ac->s->db_oid, find_fk_deps, &d);
	if (!d.n)
		return;
	if (!cascade) {
		util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
					  "cannot drop %s because other objects depend on it", dropping);
		util_err_detail(e, "constraint %s on table %s depends on %s",
				d.rels[0]->rel.cons[d.cons[0]].name, d.rels[0]->rel.name, depends_on);
		util_err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
		ty_errthrow();
	}
	for (int i = 0; i < d.n; i++) {
		/* The same table may appear several times: edit its newest copy. */
		const cat_obj *cur = cat_get(cat_txn_snap(ac->ct), d.rels[i]->oid);
		const cat_constraint *k =
		    cat_constraint_by_name(&cur->rel, d.rels[i]->rel.cons[d.cons[i]].name);
		if (!k)
			continue;
		sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION, "drop cascades to constraint %s on table %s",
			   k->name, cur->rel.name);
		cat_obj *c = cat_obj_copy(cur);
		remove_constraint(&c->rel, (int)(k - cur->rel.cons));
		cat_txn_put(ac->ct, c);
	}
}

/* ---------------------------------------------------------------- catalog scans */

/* A view that reads column col of the altered table. */
typedef struct view_find {
	alter_ctx *ac;
	const char *col;
	const cat_obj *found;
} view_find;

static int find_view_of_column(void *arg, const cat_obj *o)
{
	view_find *vf = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW || !o->rel.view_sql)
		return 0;
	if (!sql_view_depends_on(vf->ac->s, o, vf->ac->orig->oid))
		return 0;
	if (!sql_text_mentions_column(o->rel.view_sql, vf->col, true))
		return 0;
	vf->found = o;
	return 1;
}

typedef struct owned_find {
	alter_ctx *ac;
	int16_t attnum; /* 0 = every column */
	const cat_obj *found;
	bool drop;         /* drop each match */
	cat_oid new_owner; /* give each match this owner (0 = no) */
} owned_find;

static int find_owned(void *arg, const cat_obj *o)
{
	owned_find *f = arg;
	if (o->rel.relkind != CAT_RELKIND_SEQUENCE || !o->rel.seq ||
	    o->rel.seq->owned_by_table != f->ac->orig->oid)
		return 0;
	if (f->attnum && o->rel.seq->owned_by_col != f->attnum)
		return 0;
	f->found = o;
	if (f->drop) {
		sql_seq_forget(f->ac->s, o->oid);
		cat_txn_delete(f->ac->ct, o->oid);
	}
	if (f->new_owner) {
		cat_obj *c = cat_obj_copy(o);
		c->rel.owner = f->new_owner;
		cat_txn_put(f->ac->ct, c);
	}
	return 0;
}

/* ---------------------------------------------------------------- subcommands */

static void add_column(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	PgQuery__ColumnDef *cd = cmd->def->column_def;
	cat_rel *r = ac->tb.r;
	if (r->relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", r->name);
	if (cmd->missing_ok && cat_column_by_name(r, cd->colname)) {
		sql_notice(ac->s, UTIL_E_DUPLICATE_COLUMN,
			   "column \"%s\" of relation \"%s\" already exists, skipping", cd->colname, r->name);
		return;
	}
	int ncons = r->ncons;
	cat_column *c = sql_ddl_add_column(&ac->tb, cd);
	int ci = c->attnum - 1;
	grow_cols(ac);
	/* A default (or identity/serial) fills the existing rows. */
	if (c->default_sql) {
		bool null_default = !strcmp(c->default_sql, "SELECT NULL");
		if (!null_default)
			ac->backfill[ci] = true;
	}
	if (c->notnull)
		ac->notnull_check[ci] = true;
	for (int i = ncons; i < r->ncons; i++) {
		cat_constraint *k = &r->cons[i];
		if (k->type == 'p') {
			sql_ddl_set_storage_key(&ac->tb);
			ac->rekey = true;
		} else if (k->type == 'u') {
			ac->new_unique = true;
		} else if ((k->type == 'c' || k->type == 'f') && k->validated) {
			add_validate(ac, k->oid);
		}
	}
	ac->changed = true;
}

static void drop_column(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	cat_column *c = (cat_column *)cat_column_by_name(r, cmd->name);
	if (!c) {
		if (cmd->missing_ok) {
			sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION,
				   "column \"%s\" of relation \"%s\" does not exist, skipping", cmd->name,
				   r->name);
			return;
		}
		ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
			 cmd->name, r->name);
	}
	bool cascade = cmd->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
	int16_t attnum = c->attnum;
	char what[2 * CAT_NAME_MAX + 32];
	snprintf(what, sizeof what, "column %s of table %s", c->name, r->name);
	/* Views that read the column. */
	for (;;) {
		view_find vf = {ac, c->name, NULL};
		cat_foreach(cat_txn_snap(ac->ct), CAT_REL, ac->s->db_oid, find_view_of_column, &vf);
		if (!vf.found)
			break;
		if (!cascade) {
			util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
						  "cannot drop %s because other objects depend on it", what);
			util_err_detail(e, "view %s depends on %s", vf.found->rel.name, what);
			util_err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
			ty_errthrow();
		}
		sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION, "drop cascades to view %s",
			   vf.found->rel.name);
		cat_txn_delete(ac->ct, vf.found->oid);
	}
	/* Foreign keys of other tables referencing the column. */
	handle_fk_dependents(ac, &attnum, 1, true, cascade, what, what);
	/* Constraints of this table that use the column go with it. */
	for (int i = r->ncons - 1; i >= 0; i--) {
		cat_constraint *k = &r->cons[i];
		bool uses = false;
		for (int a = 0; a < k->ncols; a++)
			uses |= k->cols[a] == attnum;
		if (k->type == 'f' && k->ref_table == ac->orig->oid)
			for (int a = 0; a < k->ncols; a++)
				uses |= k->ref_cols[a] == attnum;
		if (k->type == 'c' && k->check_sql)
			uses = sql_text_mentions_column(k->check_sql, c->name, false);
		if (!uses)
			continue;
		if (k->type == 'p')
			ac->rekey = true;
		remove_constraint(r, i);
	}
	/* Indexes reading the column go with it (and their constraints). */
	for (;;) {
		const cat_obj *ix;
		if (!indexes_using(ac, c, &ix, 1))
			break;
		drop_table_index(ac, ix);
	}
	/* Sequences owned by the column. */
	owned_find sd = {ac, attnum, NULL, true, 0};
	cat_foreach(cat_txn_snap(ac->ct), CAT_REL, ac->s->db_oid, find_owned, &sd);
	/* PostgreSQL keeps the slot (attnum) under a placeholder name; the
	 * column id is never reused, so old cells are simply ignored. */
	char dname[CAT_NAME_MAX];
	snprintf(dname, sizeof dname, "........pg.dropped.%d........", attnum);
	snprintf(c->name, sizeof c->name, "%s", dname);
	c->dropped = true;
	c->notnull = false;
	c->default_sql = NULL;
	c->identity = 0;
	c->type = TY_INT4;
	c->typmod = -1;
	if (ac->rekey)
		sql_ddl_set_storage_key(&ac->tb);
	ac->changed = true;
}

static void column_default(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_column *c = must_column(ac, cmd->name);
	if (c->identity)
		ty_error(UTIL_E_SYNTAX_ERROR, "column \"%s\" of relation \"%s\" is an identity column",
			 c->name, ac->tb.r->name);
	if (!cmd->def) {
		c->default_sql = NULL;
	} else {
		c->default_sql = cat_obj_strdup(ac->tb.o, sql_deparse_select_expr(cmd->def));
		/* Checked now, as PostgreSQL does (positions would point into the
		 * stored text, not the statement: none are reported). */
		sql_pstate ps = {.text = ""};
		sql_actx ax = {ac->s, cat_txn_snap(ac->ct), ty_get_arena(), &ps};
		TY_TRY(tc)
		{
			sql_column_default(&ax, ac->tb.r, c->attnum - 1);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			ty_err()->position = 0;
			ty_errthrow();
		}
		TY_END(tc);
	}
	ac->changed = true;
}

static void set_not_null(alter_ctx *ac, PgQuery__AlterTableCmd *cmd, bool on)
{
	cat_column *c = must_column(ac, cmd->name);
	if (!on) {
		if (in_pk(ac->tb.r, c->attnum))
			ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "column \"%s\" is in a primary key",
				 c->name);
		if (c->identity)
			ty_error(UTIL_E_SYNTAX_ERROR,
				 "column \"%s\" of relation \"%s\" is an identity column", c->name,
				 ac->tb.r->name);
		c->notnull = false;
	} else if (!c->notnull) {
		c->notnull = true;
		grow_cols(ac);
		ac->notnull_check[c->attnum - 1] = true;
	}
	ac->changed = true;
}

static void alter_type(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	PgQuery__ColumnDef *cd = cmd->def->column_def;
	cat_rel *r = ac->tb.r;
	if (r->relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", r->name);
	cat_column *c = must_column(ac, cmd->name);
	grow_cols(ac);
	int ci = c->attnum - 1;
	if (ac->type_changed[ci])
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot alter type of column \"%s\" twice", c->name);
	ty_oid type;
	int32_t typmod;
	/* PostgreSQL reports no position for ALTER TYPE's type name. */
	sql_actx ax = {ac->s, cat_txn_snap(ac->ct), ty_get_arena(), &(sql_pstate){.text = ac->text}};
	TY_TRY(tc)
	{
		sql_typename(&ax, cd->type_name, &type, &typmod);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_err()->position = 0;
		ty_errthrow();
	}
	TY_END(tc);
	/* Views reading the column keep their result types: refuse, as PostgreSQL. */
	view_find vf = {ac, c->name, NULL};
	cat_foreach(cat_txn_snap(ac->ct), CAT_REL, ac->s->db_oid, find_view_of_column, &vf);
	if (vf.found) {
		util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					  "cannot alter type of a column used by a view or rule");
		util_err_detail(e, "rule _RETURN on view %s depends on column \"%s\"", vf.found->rel.name,
				c->name);
		ty_errthrow();
	}
	if (c->identity && type != TY_INT2 && type != TY_INT4 && type != TY_INT8)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
			 "identity column type must be smallint, integer, or bigint");
	/* Index maintenance decodes the rows it replaces with the table's
	 * current columns, and the indexes would need rebuilding: not yet. */
	for (int i = 0; i < r->nindexes; i++)
		if (cat_get(cat_txn_snap(ac->ct), r->indexes[i]))
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "ALTER COLUMN TYPE is not supported yet on table \"%s\", which has indexes",
				 r->name);
	ac->type_changed[ci] = true;
	ac->using_expr[ci] = cd->raw_default;
	/* USING is checked against the old row in the data pass; remember the
	 * old type there (orig). */
	c->type = type;
	c->typmod = typmod;
	if (in_pk(r, c->attnum)) {
		ac->rekey = true;
		sql_ddl_set_storage_key(&ac->tb);
	}
	ac->changed = true;
}

static void add_constraint(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	PgQuery__Constraint *con = cmd->def->constraint;
	if (r->relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", r->name);
	if (con->indexname && *con->indexname)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "ADD CONSTRAINT ... USING INDEX is not supported");
	if (con->contype == PG_QUERY__CONSTR_TYPE__CONSTR_EXCLUSION)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "exclusion constraints are not supported");
	if (con->conname && *con->conname && cat_constraint_by_name(r, con->conname))
		ty_error(UTIL_E_DUPLICATE_OBJECT, "constraint \"%s\" for relation \"%s\" already exists",
			 con->conname, r->name);
	int ncons = r->ncons;
	sql_ddl_apply_constraint(&ac->tb, con, NULL);
	for (int i = ncons; i < r->ncons; i++) {
		cat_constraint *k = &r->cons[i];
		switch (k->type) {
		case 'p':
			grow_cols(ac);
			for (int a = 0; a < k->ncols; a++)
				if (!r->cols[k->cols[a] - 1].notnull)
					ac->notnull_check[k->cols[a] - 1] = true;
			sql_ddl_set_storage_key(&ac->tb);
			ac->rekey = true;
			break;
		case 'u':
			ac->new_unique = true;
			break;
		case 'c':
		case 'f':
			k->validated = !con->skip_validation;
			if (k->validated)
				add_validate(ac, k->oid);
			break;
		default:
			break;
		}
	}
	ac->changed = true;
}

static cat_constraint *must_constraint(alter_ctx *ac, const char *name)
{
	cat_constraint *k = (cat_constraint *)cat_constraint_by_name(ac->tb.r, name);
	if (!k)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" of relation \"%s\" does not exist", name,
			 ac->tb.r->name);
	return k;
}

static void validate_constraint(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_constraint *k = must_constraint(ac, cmd->name);
	if (k->type != 'c' && k->type != 'f')
		ty_error(UTIL_E_WRONG_OBJECT_TYPE,
			 "constraint \"%s\" of relation \"%s\" is not a foreign key or check constraint",
			 k->name, ac->tb.r->name);
	if (k->validated)
		return;
	k->validated = true;
	add_validate(ac, k->oid);
	ac->changed = true;
}

static void drop_constraint(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	cat_constraint *k = (cat_constraint *)cat_constraint_by_name(r, cmd->name);
	if (!k) {
		if (cmd->missing_ok) {
			sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION,
				   "constraint \"%s\" of relation \"%s\" does not exist, skipping", cmd->name,
				   r->name);
			return;
		}
		must_constraint(ac, cmd->name);
	}
	bool cascade = cmd->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
	if (k->type == 'p' || k->type == 'u') {
		char what[2 * CAT_NAME_MAX + 32], dep[CAT_NAME_MAX + 16];
		snprintf(what, sizeof what, "constraint %s on table %s", k->name, r->name);
		snprintf(dep, sizeof dep, "index %s", k->name);
		handle_fk_dependents(ac, k->cols, k->ncols, false, cascade, what, dep);
		/* A self-reference lives in this table's own copy. */
		for (int i = r->ncons - 1; i >= 0; i--) {
			cat_constraint *f = &r->cons[i];
			if (f->type == 'f' && f->ref_table == ac->orig->oid &&
			    same_set(f->ref_cols, f->ncols, k->cols, k->ncols)) {
				if (!cascade) {
					util_err *e = ty_errstart(
					    UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
					    "cannot drop %s because other objects depend on it", what);
					util_err_detail(e, "constraint %s on table %s depends on index %s",
							f->name, r->name, k->name);
					util_err_hint(
					    e, "Use DROP ... CASCADE to drop the dependent objects too.");
					ty_errthrow();
				}
				sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION,
					   "drop cascades to constraint %s on table %s", f->name, r->name);
				if (f < k)
					k--;
				remove_constraint(r, i);
			}
		}
	}
	bool was_pk = k->type == 'p';
	const cat_obj *ix =
	    k->type == 'u' && k->index_oid ? cat_get(cat_txn_snap(ac->ct), k->index_oid) : NULL;
	if (ix)
		drop_table_index(ac, ix); /* removes the constraint too */
	else
		remove_constraint(r, (int)(k - r->cons));
	if (was_pk) {
		sql_ddl_set_storage_key(&ac->tb);
		ac->rekey = true;
	}
	ac->changed = true;
}

static void alter_constraint(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	PgQuery__Constraint *con = cmd->def->constraint;
	cat_constraint *k = must_constraint(ac, con->conname);
	if (k->type != 'f')
		ty_error(UTIL_E_WRONG_OBJECT_TYPE,
			 "constraint \"%s\" of relation \"%s\" is not a foreign key constraint", k->name,
			 ac->tb.r->name);
	k->deferrable = con->deferrable;
	k->deferred = con->initdeferred;
	ac->changed = true;
}

static void options(alter_ctx *ac, PgQuery__AlterTableCmd *cmd, bool reset)
{
	cat_rel *r = ac->tb.r;
	PgQuery__List *l = cmd->def->list;
	const char *old_order = cat_rel_option(r, "key_order");
	for (size_t i = 0; i < l->n_items; i++) {
		PgQuery__DefElem *d = l->items[i]->def_elem;
		if (!strcmp(d->defname, "salt_buckets") || !strcmp(d->defname, "interleave_in_parent") ||
		    !strcmp(d->defname, "row_format"))
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "option \"%s\" can only be set by CREATE TABLE", d->defname);
	}
	if (reset) {
		for (size_t i = 0; i < l->n_items; i++) {
			const char *name = l->items[i]->def_elem->defname;
			for (int k = 0; k < r->nopts; k++)
				if (!strcmp(r->opts[k].name, name)) {
					r->opts[k] = r->opts[r->nopts - 1];
					r->nopts--;
					break;
				}
		}
	} else {
		sql_apply_reloptions(ac->s, ac->tb.o, l->items, l->n_items);
	}
	const char *new_order = cat_rel_option(r, "key_order");
	bool was_desc = old_order && !util_strcasecmp(old_order, "desc"),
	     is_desc = new_order && !util_strcasecmp(new_order, "desc");
	if (was_desc != is_desc && r->relkind == CAT_RELKIND_TABLE) {
		sql_ddl_set_storage_key(&ac->tb);
		if (r->npk)
			ac->rekey = true;
	}
	ac->changed = true;
}

static void change_owner(alter_ctx *ac, PgQuery__RoleSpec *rs);

static void identity_add(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	cat_column *c = must_column(ac, cmd->name);
	PgQuery__Constraint *con = cmd->def->constraint;
	if (c->type != TY_INT2 && c->type != TY_INT4 && c->type != TY_INT8)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
			 "identity column type must be smallint, integer, or bigint");
	if (!c->notnull)
		ty_error(
		    UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
		    "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity can be added",
		    c->name, r->name);
	if (c->identity)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "column \"%s\" of relation \"%s\" is already an identity column", c->name, r->name);
	if (c->default_sql)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "column \"%s\" of relation \"%s\" already has a default value", c->name, r->name);
	sql_ddl_apply_constraint(&ac->tb, con, c);
	ac->changed = true;
}

static const cat_obj *identity_sequence(alter_ctx *ac, const cat_column *c)
{
	owned_find f = {ac, c->attnum, NULL, false, 0};
	cat_foreach(cat_txn_snap(ac->ct), CAT_REL, ac->s->db_oid, find_owned, &f);
	return f.found;
}

static void identity_set(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	cat_column *c = must_column(ac, cmd->name);
	if (!c->identity)
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "column \"%s\" of relation \"%s\" is not an identity column", c->name, r->name);
	PgQuery__List *l = cmd->def->list;
	PgQuery__Node **seqopts = ty_alloc(sizeof(pnode *) * (l->n_items + 1));
	size_t nseq = 0;
	for (size_t i = 0; i < l->n_items; i++) {
		PgQuery__DefElem *d = l->items[i]->def_elem;
		if (!strcmp(d->defname, "generated")) {
			bool ok;
			int64_t v = sql_def_int(d->arg, &ok);
			c->identity =
			    ok && v == 1 ? 'a' : 'd'; /* ATTRIBUTE_IDENTITY_ALWAYS is 1 in the grammar */
			if (!ok)
				c->identity = 'd';
		} else {
			seqopts[nseq++] = l->items[i];
		}
	}
	if (nseq) {
		const cat_obj *sq = identity_sequence(ac, c);
		if (sq) {
			cat_sequence_info si = *sq->rel.seq;
			sql_seq_options(ac->s, &si, seqopts, nseq, false);
			if (si.restart_requested) {
				si.restart_requested = false;
				sql_setval(ac->s, sq->oid, si.restart_value, false);
			}
			cat_obj *nsq = cat_obj_copy(sq);
			*nsq->rel.seq = si;
			cat_txn_put(ac->ct, nsq);
		}
	}
	ac->changed = true;
}

static void identity_drop(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	cat_rel *r = ac->tb.r;
	cat_column *c = must_column(ac, cmd->name);
	if (!c->identity) {
		if (cmd->missing_ok) {
			sql_notice(ac->s, UTIL_E_SUCCESSFUL_COMPLETION,
				   "column \"%s\" of relation \"%s\" is not an identity column, skipping",
				   c->name, r->name);
			return;
		}
		ty_error(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
			 "column \"%s\" of relation \"%s\" is not an identity column", c->name, r->name);
	}
	const cat_obj *sq = identity_sequence(ac, c);
	if (sq) {
		sql_seq_forget(ac->s, sq->oid);
		cat_txn_delete(ac->ct, sq->oid);
	}
	c->identity = 0;
	c->default_sql = NULL;
	ac->changed = true;
}

static void trigger_cmd(alter_ctx *ac, PgQuery__AlterTableCmd *cmd)
{
	/* Strata has no triggers: ALL/USER are accepted (pg_dump emits them);
	 * a named trigger does not exist. */
	if (cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_EnableTrig ||
	    cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_DisableTrig ||
	    cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_EnableAlwaysTrig ||
	    cmd->subtype == PG_QUERY__ALTER_TABLE_TYPE__AT_EnableReplicaTrig)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "trigger \"%s\" for table \"%s\" does not exist", cmd->name,
			 ac->tb.r->name);
}

/* ---------------------------------------------------------------- the data pass */

static bool needs_data_pass(alter_ctx *ac)
{
	if (ac->rekey)
		return true;
	for (int i = 0; i < ac->ncols_cap && i < ac->tb.r->ncols; i++)
		if (ac->backfill[i] || ac->type_changed[i] || ac->notnull_check[i])
			return true;
	for (int i = 0; i < ac->nvalidate; i++) {
		const cat_constraint *k = NULL;
		for (int c = 0; c < ac->tb.r->ncons; c++)
			if (ac->tb.r->cons[c].oid == ac->validate[i])
				k = &ac->tb.r->cons[c];
		if (k && k->type == 'c')
			return true;
	}
	return false;
}

static UTIL_NORETURN void cannot_cast(const cat_column *c, bool using)
{
	util_buf tn = UTIL_BUF_INIT;
	ty_format_type(c->type, c->typmod, &tn);
	util_err *e;
	if (using) {
		e = ty_errstart(
		    UTIL_E_DATATYPE_MISMATCH,
		    "result of USING clause for column \"%s\" cannot be cast automatically to type %s",
		    c->name, tn.data);
		util_err_hint(e, "You might need to add an explicit cast.");
	} else {
		e = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
				"column \"%s\" cannot be cast automatically to type %s", c->name, tn.data);
		util_err_hint(e, "You might need to specify \"USING %s::%s\".", c->name, tn.data);
	}
	util_buf_free(&tn);
	ty_errthrow();
}

static void data_pass(alter_ctx *ac)
{
	sql_session *s = ac->s;
	cat_rel *nr = ac->tb.r;
	const cat_rel *orr = &ac->orig->rel;
	sql_pstate ps = {.text = ac->text};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_rewrite rw;
	memset(&rw, 0, sizeof rw);
	rw.old_rel = ac->orig;
	rw.new_rel = ac->tb.o;
	rw.new_storage = ac->rekey;
	rw.exprs = ty_alloc0(sizeof(sql_expr *) * (size_t)(nr->ncols + 1));
	rw.check_notnull = ty_alloc0(sizeof(bool) * (size_t)(nr->ncols + 1));
	bool any_backfill = false;
	for (int c = 0; c < nr->ncols && c < ac->ncols_cap; c++) {
		cat_column *col = &nr->cols[c];
		if (col->dropped)
			continue;
		rw.check_notnull[c] = ac->notnull_check[c] && col->notnull;
		if (ac->type_changed[c]) {
			/* USING (over the old row) or the column itself, assigned to the new type. */
			pnode *src = ac->using_expr[c];
			PgQuery__ColumnRef cr = PG_QUERY__COLUMN_REF__INIT;
			PgQuery__String sv = PG_QUERY__STRING__INIT;
			PgQuery__Node sn = PG_QUERY__NODE__INIT, crn = PG_QUERY__NODE__INIT;
			pnode *fields[1] = {&sn};
			if (!src) {
				sv.sval = (char *)orr->cols[c].name;
				sn.node_case = PG_QUERY__NODE__NODE_STRING;
				sn.string = &sv;
				cr.n_fields = 1;
				cr.fields = fields;
				cr.location = -1;
				crn.node_case = PG_QUERY__NODE__NODE_COLUMN_REF;
				crn.column_ref = &cr;
				src = &crn;
			}
			bool cannot = false;
			rw.exprs[c] = sql_rewrite_row_expr(s, ac->orig, src, ac->text, SQL_EXPR_OTHER, &ps,
							   col->type, col->typmod, &cannot);
			if (cannot)
				cannot_cast(col, ac->using_expr[c] != NULL);
			if (col->default_sql) {
				TY_TRY(td)
				{
					sql_actx dax = {s, sql_ddl_snap(s), ty_get_arena(), &ps};
					sql_column_default(&dax, nr, c);
				}
				TY_CATCH(td)
				{
					TY_END(td);
					util_buf tn = UTIL_BUF_INIT;
					ty_format_type(col->type, col->typmod, &tn);
					util_err *er = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
								   "default for column \"%s\" cannot be cast "
								   "automatically to type %s",
								   col->name, tn.data);
					(void)er;
					util_buf_free(&tn);
					ty_errthrow();
				}
				TY_END(td);
			}
			ac->backfill[c] = true;
		} else if (ac->backfill[c]) {
			rw.exprs[c] = sql_rewrite_default_expr(s, ac->tb.o, c, &ps);
		}
		any_backfill |= ac->backfill[c];
	}
	if (!rw.new_storage && any_backfill) {
		rw.backfill = ty_alloc0(sizeof(bool) * (size_t)(nr->ncols + 1));
		for (int c = 0; c < nr->ncols && c < ac->ncols_cap; c++)
			rw.backfill[c] = ac->backfill[c];
	}
	/* New or newly validated CHECK constraints, over the new row. */
	rw.checks = ty_alloc(sizeof(sql_expr *) * (size_t)(ac->nvalidate + 1));
	rw.check_names = ty_alloc(sizeof(char *) * (size_t)(ac->nvalidate + 1));
	for (int i = 0; i < ac->nvalidate; i++)
		for (int c = 0; c < nr->ncons; c++) {
			const cat_constraint *k = &nr->cons[c];
			if (k->oid != ac->validate[i] || k->type != 'c')
				continue;
			rw.checks[rw.nchecks] = sql_rewrite_check_expr(s, ac->tb.o, k->check_sql, &ps);
			rw.check_names[rw.nchecks++] = k->name;
		}
	rw.check_unique_key = ac->rekey && nr->npk > 0;
	rw.ex = sql_rewrite_exec(s, &ps);
	sql_rewrite_run(s, &rw);
}

/* ---------------------------------------------------------------- ALTER TABLE */

static bool allowed_for(char relkind, PgQuery__AlterTableType t)
{
	if (relkind == CAT_RELKIND_TABLE)
		return true;
	switch (t) {
	case PG_QUERY__ALTER_TABLE_TYPE__AT_ChangeOwner:
	case PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions:
	case PG_QUERY__ALTER_TABLE_TYPE__AT_ResetRelOptions:
	case PG_QUERY__ALTER_TABLE_TYPE__AT_ReplaceRelOptions:
		return true;
	case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault:
		return relkind == CAT_RELKIND_VIEW;
	default:
		return false;
	}
}

void sql_ddl_alter_table(sql_session *s, PgQuery__AlterTableStmt *st, const char *text)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *rel = sql_lookup_rel(s, cs, st->relation, st->missing_ok);
	if (!rel) {
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping",
			   st->relation->relname);
		return;
	}
	char want = st->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_VIEW       ? CAT_RELKIND_VIEW
		    : st->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE ? CAT_RELKIND_SEQUENCE
		    : st->objtype == PG_QUERY__OBJECT_TYPE__OBJECT_INDEX    ? CAT_RELKIND_INDEX
									    : CAT_RELKIND_TABLE;
	if (rel->rel.schema == CAT_OID_PG_CATALOG || rel->rel.schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied: \"%s\" is a system catalog",
			 rel->rel.name);
	if (want != CAT_RELKIND_TABLE && rel->rel.relkind != want)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a%s %s", rel->rel.name,
			 want == CAT_RELKIND_INDEX ? "n" : "", sql_ddl_kind_word(want));
	sql_ddl_check_owner(s, rel);
	sql_rel_lock(s, rel->oid, true);
	alter_ctx ac;
	memset(&ac, 0, sizeof ac);
	ac.s = s;
	ac.ct = ct;
	ac.text = text;
	ac.orig = rel;
	sql_tbl_build_from(&ac.tb, s, ct, rel, text);
	grow_cols(&ac);
	TY_TRY(tc)
	{
		for (size_t i = 0; i < st->n_cmds; i++) {
			PgQuery__AlterTableCmd *cmd = st->cmds[i]->alter_table_cmd;
			if (!allowed_for(rel->rel.relkind, cmd->subtype)) {
				const char *kw = rel->rel.relkind == CAT_RELKIND_VIEW       ? "a view"
						 : rel->rel.relkind == CAT_RELKIND_SEQUENCE ? "a sequence"
											    : "an index";
				ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is %s", rel->rel.name, kw);
			}
			switch (cmd->subtype) {
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumnRecurse:
				add_column(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumnRecurse:
				drop_column(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault:
				column_default(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropNotNull:
				set_not_null(&ac, cmd, false);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetNotNull:
				set_not_null(&ac, cmd, true);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterColumnType:
				alter_type(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraintRecurse:
				add_constraint(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ValidateConstraint:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ValidateConstraintRecurse:
				validate_constraint(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropConstraint:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropConstraintRecurse:
				drop_constraint(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterConstraint:
				alter_constraint(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ChangeOwner:
				change_owner(&ac, cmd->newowner);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ReplaceRelOptions:
				options(&ac, cmd, false);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ResetRelOptions:
				options(&ac, cmd, true);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddIdentity:
				identity_add(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetIdentity:
				identity_set(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropIdentity:
				identity_drop(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableTrig:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableAlwaysTrig:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableReplicaTrig:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DisableTrig:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableTrigAll:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DisableTrigAll:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableTrigUser:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DisableTrigUser:
				trigger_cmd(&ac, cmd);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetStatistics:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetStorage:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetCompression:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetOptions:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ResetOptions:
				/* Planner and storage hints of PostgreSQL's heap: accepted. */
				if (cmd->name && *cmd->name)
					must_column(&ac, cmd->name);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ClusterOn:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropCluster:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetLogged:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetUnLogged:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ReplicaIdentity:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableRowSecurity:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DisableRowSecurity:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_ForceRowSecurity:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_NoForceRowSecurity:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_EnableRule:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DisableRule:
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetTableSpace:
				if (strcmp(cmd->name, "pg_default"))
					ty_error(UTIL_E_UNDEFINED_OBJECT, "tablespace \"%s\" does not exist",
						 cmd->name);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_SetAccessMethod:
				if (strcmp(cmd->name, "heap"))
					ty_error(UTIL_E_UNDEFINED_OBJECT,
						 "access method \"%s\" does not exist", cmd->name);
				break;
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AddInherit:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DropInherit:
				if (cmd->def && cmd->def->node_case == PG_QUERY__NODE__NODE_RANGE_VAR)
					sql_lookup_rel(s, cat_txn_snap(ct), cmd->def->range_var, false);
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "table inheritance is not supported");
			case PG_QUERY__ALTER_TABLE_TYPE__AT_AttachPartition:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DetachPartition:
			case PG_QUERY__ALTER_TABLE_TYPE__AT_DetachPartitionFinalize:
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
					 "partitioned tables are not supported");
			default:
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
					 "this form of ALTER TABLE is not supported");
			}
		}
		/* Sequences of new serial/identity columns exist before the
		 * existing rows take values from them. */
		cs = cat_txn_snap(ct);
		for (int i = 0; i < ac.tb.nextra; i++)
			if (cat_rel_by_name(cs, ac.tb.r->schema, ac.tb.extra[i]->rel.name))
				ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists",
					 ac.tb.extra[i]->rel.name);
		for (int i = 0; i < ac.tb.nextra; i++) {
			cat_obj *sq = ac.tb.extra[i];
			ac.tb.extra[i] = NULL;
			sql_priv_apply_default_acl(s, cat_txn_snap(ct), sq);
			cat_txn_put(ct, sq);
			sql_seq_init_value(s, sq->oid, sq->rel.seq);
		}
		ac.tb.nextra = 0;
		if (ac.changed && rel->rel.relkind == CAT_RELKIND_TABLE && needs_data_pass(&ac)) {
			/* Expressions (regclass literals, nextval) resolve names in the
			 * session's snapshot: make it the one with this statement's changes. */
			cat_snap *saved = s->cat, *now = cat_txn_snap(ct);
			cat_snap_ref(now);
			s->cat = now;
			TY_TRY(td)
			{
				data_pass(&ac);
			}
			TY_CATCH(td)
			{
				TY_END(td);
				s->cat = saved;
				cat_snap_release(now);
				ty_errthrow();
			}
			TY_END(td);
			s->cat = saved;
			cat_snap_release(now);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(ac.tb.o);
		for (int i = 0; i < ac.tb.nextra; i++)
			cat_obj_free(ac.tb.extra[i]);
		ty_errthrow();
	}
	TY_END(tc);
	if (!ac.changed) {
		cat_obj_free(ac.tb.o);
		return;
	}
	cat_oid oid = ac.tb.o->oid;
	cat_txn_put(ct, ac.tb.o);
	if (ac.rekey)
		sql_ddl_reindex_after_rekey(s, oid);
	/* Foreign keys are checked against the committed shape of both tables. */
	const cat_obj *now = cat_get(cat_txn_snap(ct), oid);
	for (int i = 0; i < ac.nvalidate; i++)
		for (int c = 0; c < now->rel.ncons; c++)
			if (now->rel.cons[c].oid == ac.validate[i] && now->rel.cons[c].type == 'f')
				sql_fk_validate(s, cat_txn_snap(ct), oid, &now->rel.cons[c]);
	if (ac.new_unique)
		sql_create_constraint_indexes(s, oid);
}

/* ---------------------------------------------------------------- OWNER TO */

cat_oid sql_priv_role_oid(sql_session *s, cat_snap *cs, PgQuery__RoleSpec *rs, bool missing_ok);
void sql_priv_check_owner_change(sql_session *s, cat_snap *cs, cat_oid old_owner, cat_oid new_owner);

static void change_owner(alter_ctx *ac, PgQuery__RoleSpec *rs)
{
	cat_snap *cs = cat_txn_snap(ac->ct);
	cat_oid nowner = sql_priv_role_oid(ac->s, cs, rs, false);
	if (nowner == ac->tb.r->owner)
		return;
	sql_priv_check_owner_change(ac->s, cs, ac->tb.r->owner, nowner);
	/* The ACL's grants by the old owner move to the new one. */
	for (int i = 0; i < ac->tb.r->nacl; i++) {
		if (ac->tb.r->acl[i].grantor == ac->tb.r->owner)
			ac->tb.r->acl[i].grantor = nowner;
		if (ac->tb.r->acl[i].grantee == ac->tb.r->owner)
			ac->tb.r->acl[i].grantee = nowner;
	}
	ac->tb.r->owner = nowner;
	/* Owned sequences follow their table. */
	owned_find f = {ac, 0, NULL, false, nowner};
	cat_foreach(cs, CAT_REL, ac->s->db_oid, find_owned, &f);
	ac->changed = true;
}

/* ---------------------------------------------------------------- stored texts after renames */

typedef struct text_fix {
	sql_session *s;
	cat_txn *ct;
	cat_oid rel;
	const char *col, *newcol;        /* column rename */
	const char *newschema, *newname; /* relation rename / move */
} text_fix;

static int fix_views(void *arg, const cat_obj *o)
{
	text_fix *f = arg;
	if (o->rel.relkind != CAT_RELKIND_VIEW || !o->rel.view_sql || o->oid == f->rel)
		return 0;
	cat_snap *cs = cat_txn_snap(f->ct);
	char *sql =
	    f->col ? sql_text_view_rename_column(f->s, cs, o->rel.view_sql, f->rel, f->col, f->newcol)
		   : sql_text_view_rename_rel(f->s, cs, o->rel.view_sql, f->rel, f->newschema, f->newname);
	if (!sql)
		return 0;
	cat_obj *c = cat_obj_copy(o);
	c->rel.view_sql = cat_obj_strdup(c, sql);
	cat_txn_put(f->ct, c);
	return 0;
}

/* Views are rewritten against the catalog before the change (names
 * resolve as they did), so this runs before the renamed object is put. */
static void fix_view_texts(sql_session *s, cat_txn *ct, text_fix *f)
{
	/* Walk a referenced snapshot: fix_views puts objects meanwhile. */
	cat_snap *cs = cat_txn_snap(ct);
	cat_snap_ref(cs);
	cat_foreach(cs, CAT_REL, s->db_oid, fix_views, f);
	cat_snap_release(cs);
}

/* ---------------------------------------------------------------- RENAME */

static const cat_obj *rename_target(sql_session *s, cat_snap *cs, PgQuery__RenameStmt *st, char want)
{
	const cat_obj *o = sql_lookup_rel(s, cs, st->relation, st->missing_ok);
	if (!o) {
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping",
			   st->relation->relname);
		return NULL;
	}
	if (o->rel.schema == CAT_OID_PG_CATALOG || o->rel.schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied: \"%s\" is a system catalog",
			 o->rel.name);
	if (want && want != CAT_RELKIND_TABLE && o->rel.relkind != want)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a%s %s", o->rel.name,
			 want == CAT_RELKIND_INDEX ? "n" : "", sql_ddl_kind_word(want));
	sql_ddl_check_owner(s, o);
	sql_rel_lock(s, o->oid, true);
	return o;
}

static char relkind_of(PgQuery__ObjectType t)
{
	switch (t) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
		return CAT_RELKIND_VIEW;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
		return CAT_RELKIND_SEQUENCE;
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX:
		return CAT_RELKIND_INDEX;
	default:
		return CAT_RELKIND_TABLE;
	}
}

/* Column defaults that name a sequence by text follow its new name. */
typedef struct seq_ren {
	cat_txn *ct;
	const cat_obj *seq;
	cat_oid newschema;
	const char *newname;
} seq_ren;

static int fix_seq_defaults(void *arg, const cat_obj *o)
{
	seq_ren *f = arg;
	const cat_sequence_info *si = f->seq->rel.seq;
	if (!si || o->oid != si->owned_by_table)
		return 0;
	cat_snap *cs = cat_txn_snap(f->ct);
	cat_obj *c = cat_obj_copy(o);
	bool changed = false;
	for (int i = 0; i < c->rel.ncols; i++) {
		cat_column *col = &c->rel.cols[i];
		if (col->attnum != si->owned_by_col || !col->default_sql ||
		    !strstr(col->default_sql, "nextval("))
			continue;
		col->default_sql = cat_obj_strdup(c, sql_ddl_nextval_default(cs, f->newschema, f->newname));
		changed = true;
	}
	if (changed)
		cat_txn_put(f->ct, c);
	else
		cat_obj_free(c);
	return 1;
}

void sql_ddl_rename(sql_session *s, PgQuery__RenameStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	switch (st->rename_type) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
	case PG_QUERY__OBJECT_TYPE__OBJECT_INDEX: {
		const cat_obj *o = rename_target(s, cs, st, relkind_of(st->rename_type));
		if (!o)
			return;
		if (strlen(st->newname) >= CAT_NAME_MAX)
			ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
		if (cat_rel_by_name(cs, o->rel.schema, st->newname))
			ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", st->newname);
		text_fix f = {s, ct, o->oid, NULL, NULL, NULL, st->newname};
		fix_view_texts(s, ct, &f);
		if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table) {
			seq_ren sr = {ct, o, o->rel.schema, st->newname};
			const cat_obj *t = cat_get(cat_txn_snap(ct), o->rel.seq->owned_by_table);
			if (t)
				fix_seq_defaults(&sr, t);
		}
		/* The constraint an index enforces is renamed with it (as PostgreSQL). */
		if (o->rel.relkind == CAT_RELKIND_INDEX && o->rel.index) {
			const cat_obj *t = cat_get(cat_txn_snap(ct), o->rel.index->table);
			for (int i = 0; t && i < t->rel.ncons; i++)
				if (t->rel.cons[i].index_oid == o->oid &&
				    (t->rel.cons[i].type == 'u' || t->rel.cons[i].type == 'p')) {
					cat_obj *tc = cat_obj_copy(t);
					snprintf(tc->rel.cons[i].name, sizeof tc->rel.cons[i].name, "%s",
						 st->newname);
					cat_txn_put(ct, tc);
					break;
				}
		}
		cat_obj *c = cat_obj_copy(cat_get(cat_txn_snap(ct), o->oid));
		snprintf(c->rel.name, sizeof c->rel.name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN: {
		const cat_obj *o = rename_target(s, cs, st, relkind_of(st->relation_type));
		if (!o)
			return;
		const cat_column *oc = cat_column_by_name(&o->rel, st->subname);
		if (!oc)
			ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" does not exist", st->subname);
		if (cat_column_by_name(&o->rel, st->newname))
			ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists",
				 st->newname, o->rel.name);
		if (strlen(st->newname) >= CAT_NAME_MAX)
			ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
		text_fix f = {s, ct, o->oid, st->subname, st->newname, NULL, NULL};
		fix_view_texts(s, ct, &f);
		cat_obj *c = cat_obj_copy(cat_get(cat_txn_snap(ct), o->oid));
		cat_column *col = (cat_column *)cat_column_by_name(&c->rel, st->subname);
		snprintf(col->name, sizeof col->name, "%s", st->newname);
		/* Index expressions and predicates name it too. */
		for (int i = 0; i < c->rel.nindexes; i++) {
			const cat_obj *ix = cat_get(cat_txn_snap(ct), c->rel.indexes[i]);
			if (!ix || !ix->rel.index)
				continue;
			cat_obj *ic = cat_obj_copy(ix);
			cat_index_info *in = ic->rel.index;
			bool changed = false;
			for (int k = 0; k < in->nkeys; k++) {
				char *t = in->keys[k].expr_sql
					      ? sql_text_rename_column_in_expr(in->keys[k].expr_sql,
									       st->subname, st->newname)
					      : NULL;
				if (t) {
					in->keys[k].expr_sql = cat_obj_strdup(ic, t);
					changed = true;
				}
			}
			char *t = in->predicate_sql ? sql_text_rename_column_in_expr(in->predicate_sql,
										     st->subname, st->newname)
						    : NULL;
			if (t) {
				in->predicate_sql = cat_obj_strdup(ic, t);
				changed = true;
			}
			if (changed)
				cat_txn_put(ct, ic);
			else
				cat_obj_free(ic);
		}
		/* CHECK constraints name the column in their text. */
		for (int i = 0; i < c->rel.ncons; i++)
			if (c->rel.cons[i].type == 'c' && c->rel.cons[i].check_sql) {
				char *t = sql_text_rename_column_in_expr(c->rel.cons[i].check_sql,
									 st->subname, st->newname);
				if (t)
					c->rel.cons[i].check_sql = cat_obj_strdup(c, t);
			}
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABCONSTRAINT: {
		const cat_obj *o = rename_target(s, cs, st, CAT_RELKIND_TABLE);
		if (!o)
			return;
		if (!cat_constraint_by_name(&o->rel, st->subname))
			ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist",
				 st->subname, o->rel.name);
		if (cat_constraint_by_name(&o->rel, st->newname))
			ty_error(UTIL_E_DUPLICATE_OBJECT,
				 "constraint \"%s\" for relation \"%s\" already exists", st->newname,
				 o->rel.name);
		/* ... and the index that enforces a constraint with it. */
		const cat_constraint *ok = cat_constraint_by_name(&o->rel, st->subname);
		const cat_obj *ix = ok->index_oid ? cat_get(cs, ok->index_oid) : NULL;
		if (ix) {
			if (cat_rel_by_name(cs, ix->rel.schema, st->newname))
				ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists",
					 st->newname);
			cat_obj *ic = cat_obj_copy(ix);
			snprintf(ic->rel.name, sizeof ic->rel.name, "%s", st->newname);
			cat_txn_put(ct, ic);
		}
		cat_obj *c = cat_obj_copy(o);
		cat_constraint *k = (cat_constraint *)cat_constraint_by_name(&c->rel, st->subname);
		snprintf(k->name, sizeof k->name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA: {
		const cat_obj *o = sql_lookup_schema(s, cs, st->subname);
		if (!o)
			ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", st->subname);
		if (!sql_priv_is_owner(s, cs, o->schema.owner))
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s", st->subname);
		if (sql_lookup_schema(s, cs, st->newname))
			ty_error(UTIL_E_DUPLICATE_SCHEMA, "schema \"%s\" already exists", st->newname);
		if (!strncmp(st->newname, "pg_", 3)) {
			util_err *e =
			    ty_errstart(UTIL_E_RESERVED_NAME, "unacceptable schema name \"%s\"", st->newname);
			util_err_detail(e, "The prefix \"pg_\" is reserved for system schemas.");
			ty_errthrow();
		}
		cat_obj *c = cat_obj_copy(o);
		snprintf(c->schema.name, sizeof c->schema.name, "%s", st->newname);
		cat_txn_put(ct, c);
		return;
	}
	case PG_QUERY__OBJECT_TYPE__OBJECT_ROLE:
		sql_ddl_rename_role(s, st);
		return;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "this kind of RENAME is not supported");
	}
}

/* ---------------------------------------------------------------- SET SCHEMA */

typedef struct owned_move {
	cat_oid table;
	cat_oid *oids;
	int n;
} owned_move;

static int collect_owned(void *arg, const cat_obj *o)
{
	owned_move *m = arg;
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table == m->table) {
		cat_oid *n = ty_alloc(sizeof(cat_oid) * (size_t)(m->n + 1));
		if (m->n)
			memcpy(n, m->oids, sizeof(cat_oid) * (size_t)m->n);
		n[m->n++] = o->oid;
		m->oids = n;
	}
	return 0;
}

static void move_rel(sql_session *s, cat_txn *ct, const cat_obj *o, const cat_obj *to)
{
	cat_snap *cs = cat_txn_snap(ct);
	if (cat_rel_by_name(cs, to->oid, o->rel.name))
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists in schema \"%s\"",
			 o->rel.name, to->schema.name);
	text_fix f = {s, ct, o->oid, NULL, NULL, to->schema.name, NULL};
	fix_view_texts(s, ct, &f);
	cat_obj *c = cat_obj_copy(cat_get(cat_txn_snap(ct), o->oid));
	c->rel.schema = to->oid;
	cat_txn_put(ct, c);
}

void sql_ddl_set_schema(sql_session *s, PgQuery__AlterObjectSchemaStmt *st)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	char want;
	switch (st->object_type) {
	case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
		want = CAT_RELKIND_TABLE;
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
		want = CAT_RELKIND_VIEW;
		break;
	case PG_QUERY__OBJECT_TYPE__OBJECT_SEQUENCE:
		want = CAT_RELKIND_SEQUENCE;
		break;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "ALTER ... SET SCHEMA is not supported for this kind of object");
	}
	const cat_obj *o = sql_lookup_rel(s, cs, st->relation, st->missing_ok);
	if (!o) {
		sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping",
			   st->relation->relname);
		return;
	}
	if (want != CAT_RELKIND_TABLE && o->rel.relkind != want)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a%s %s", o->rel.name, "",
			 sql_ddl_kind_word(want));
	sql_ddl_check_owner(s, o);
	const cat_obj *to = sql_lookup_schema(s, cs, st->newschema);
	if (!to)
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", st->newschema);
	if (to->oid == CAT_OID_PG_CATALOG || to->oid == CAT_OID_INFORMATION_SCHEMA ||
	    to->oid == CAT_OID_PG_TOAST || o->rel.schema == CAT_OID_PG_CATALOG)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot move objects into or out of system schemas");
	if (o->rel.relkind == CAT_RELKIND_SEQUENCE && o->rel.seq && o->rel.seq->owned_by_table) {
		util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					  "cannot move an owned sequence into another schema");
		const cat_obj *t = cat_get(cs, o->rel.seq->owned_by_table);
		util_err_detail(e, "Sequence \"%s\" is linked to table \"%s\".", o->rel.name,
				t ? t->rel.name : "?");
		ty_errthrow();
	}
	if (o->rel.schema == to->oid)
		return;
	sql_priv_check_schema_create(s, cs, to->oid);
	sql_rel_lock(s, o->oid, true);
	owned_move m = {o->oid, NULL, 0};
	cat_foreach(cs, CAT_REL, s->db_oid, collect_owned, &m);
	move_rel(s, ct, o, to);
	for (int i = 0; i < m.n; i++) {
		const cat_obj *sq = cat_get(cat_txn_snap(ct), m.oids[i]);
		move_rel(s, ct, sq, to);
		seq_ren sr = {ct, sq, to->oid, sq->rel.name};
		const cat_obj *t = cat_get(cat_txn_snap(ct), o->oid);
		fix_seq_defaults(&sr, t);
	}
}
