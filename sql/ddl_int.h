/*
 * ddl_int.h — private to the DDL files (ddl*.c, fk.c, privilege.c): the
 * table builder shared by CREATE TABLE and ALTER TABLE, PostgreSQL's
 * object naming, table rewrites, foreign-key and privilege helpers.
 *
 * Memory: everything allocated here lives in the statement arena unless it
 * is put into a catalog object (cat_obj_alloc), which then owns it.
 */
#ifndef STRATA_DDL_INT_H
#define STRATA_DDL_INT_H

#include "sql_int.h"

/* A table being defined or altered: a catalog object under construction
 * (owned by the builder until cat_txn_put). */
/* A LIKE source whose indexes are copied once the table exists. */
typedef struct sql_like_src {
	cat_oid src;
	int16_t *map; /* source attnum -> new attnum; arena-allocated */
	bool comments;
} sql_like_src;

typedef struct sql_tbl_build {
	sql_session *s;
	cat_snap *cs;
	cat_txn *ct;
	cat_obj *o;
	cat_rel *r;
	int cols_cap, cons_cap; /* allocated slots of r->cols / r->cons */
	cat_obj **extra;        /* sequences created for serial/identity columns */
	int nextra;
	const char *text;
	bool altering; /* ALTER TABLE: constraint names checked against the table */
	PgQuery__Node **checks; /* CHECK expressions as parsed (in text), checked once
				 * every column exists; arena-allocated */
	int nchecks;
	PgQuery__Node **defaults; /* DEFAULT expressions as parsed, per column index */
	int ndefaults;            /* entries of defaults (columns seen so far) */
	sql_like_src *likes;      /* LIKE ... INCLUDING INDEXES; arena-allocated */
	int nlikes;
} sql_tbl_build;

/* Starts a builder on a copy of an existing table (ALTER TABLE). */
void sql_tbl_build_from(sql_tbl_build *tb, sql_session *s, cat_txn *ct, const cat_obj *rel, const char *text);
/* Adds a column (CREATE TABLE element or ALTER TABLE ADD COLUMN); throws. */
cat_column *sql_ddl_add_column(sql_tbl_build *tb, PgQuery__ColumnDef *cd);
/* Applies a column or table constraint; returns the new cat_constraint, or
 * NULL for column attributes (NOT NULL, DEFAULT ...). */
cat_constraint *sql_ddl_apply_constraint(sql_tbl_build *tb, PgQuery__Constraint *con, cat_column *col);
/* Sets the table's storage key from its primary-key constraint (or clears
 * it when there is none), honouring the key_order reloption. */
void sql_ddl_set_storage_key(sql_tbl_build *tb);

cat_oid sql_ddl_new_oid(sql_session *s);
/* The schema a new relation goes into; throws 42501 (with the name's
 * position) unless the user may create there. */
cat_oid sql_ddl_creation_schema(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv, const char *text);
/* PostgreSQL's ChooseRelationName/ChooseConstraintName. */
void sql_ddl_choose_name(cat_snap *cs, cat_oid schema, const char *t, const char *col, const char *suffix,
			 char *out, const cat_rel *in_rel);
/* A sequence for a serial or identity column (not yet put). */
cat_obj *sql_ddl_make_sequence(sql_session *s, cat_oid schema, const char *name, ty_oid type,
			       PgQuery__Node **opts, size_t nopts);
/* The DEFAULT text of a column fed by a sequence: nextval('seq'::regclass),
 * schema-qualified when the schema is not public. Result in the arena. */
char *sql_ddl_nextval_default(cat_snap *cs, cat_oid schema, const char *seqname);
/* Creates the next storage generation of relation r ("r123.2" after
 * "r123.1"; fams NULL: the default family), dropped if the transaction
 * aborts, and writes its name to out. A generation that exists is skipped,
 * never adopted or dropped: on a shared store it may be another server's
 * concurrent rewrite of the same relation (committed, or about to be), and
 * sharing it would let one transaction's abort drop the other's rows. */
void sql_ddl_create_next_storage(sql_session *s, sql_txn *t, const cat_rel *r, char prefix, cat_oid oid,
				 const kv_family_opts *fams, int nfams, char *out, size_t n);
/* The same with the families and options of r's current storage (a
 * rewrite's or TRUNCATE's new generation); default ones if it has none. */
void sql_ddl_create_next_storage_like(sql_session *s, sql_txn *t, const cat_rel *r, char prefix, cat_oid oid,
				      char *out, size_t n);
/* OWNED BY of CREATE/ALTER SEQUENCE options into info (ddl_misc.c). */
void sql_seq_owned_by(sql_session *s, cat_snap *cs, const cat_obj *seq, cat_sequence_info *info, cat_oid seq_schema,
		      cat_oid seq_owner, PgQuery__Node **opts, size_t n);
/* TRUNCATE of one table: a new storage generation (ddl_misc.c). */
void sql_truncate_rel(sql_session *s, cat_txn *ct, const cat_obj *o);
/* A new storage generation for each index of a table (ddl_misc.c). */
void sql_truncate_indexes(sql_session *s, cat_txn *ct, const cat_obj *o);
/* Tables interleaved directly in parent; *out in the statement arena
 * (ddl_truncate_ilv.c). */
int sql_ilv_children(cat_snap *cs, cat_oid parent, cat_oid **out);
/* TRUNCATE of an interleaved table o, list = every table truncated by the
 * statement (ddl_truncate_ilv.c). */
void sql_ilv_truncate(sql_session *s, cat_txn *ct, const cat_obj *o, const cat_obj *const *list, int n);
/* The session's temporary schema, created in the transaction if needed
 * (ddl_temp.c). Changes the catalog snapshot: callers fetch it again. */
cat_oid sql_temp_schema(sql_session *s);
/* ON COMMIT DROP / DELETE ROWS for a temporary table created now. */
void sql_temp_on_commit(sql_session *s, cat_oid table, int action);
/* "table", "view", "sequence", "index" */
const char *sql_ddl_kind_word(char relkind);
/* Throws 42501 "must be owner of table t" unless the current user owns
 * the relation (or is a superuser / member of the owner). */
void sql_ddl_check_owner(sql_session *s, const cat_obj *rel);

/* The catalog snapshot DDL works on (the transaction's change set). */
static inline cat_snap *sql_ddl_snap(sql_session *s)
{
	return cat_txn_snap(sql_txn_ddl(s->txn));
}

/* ---------------------------------------------------------------- table rewrites (ddl_rewrite.c) */

/* How a rewrite computes a new row from an old one. */
typedef struct sql_rewrite {
	const cat_obj *old_rel; /* as the data is stored now */
	cat_obj *new_rel;       /* the new definition (not yet put; its storage is set by the rewrite) */
	/* Per new column (new_rel ncols): expression over the old row (old ncols
	 * + key), NULL = copy the old column of the same attnum. */
	sql_expr **exprs;
	sql_exec *ex;        /* evaluates exprs */
	bool new_storage;    /* key or encoding changes: copy into a new storage */
	bool *backfill;      /* without new storage: columns to write into existing rows */
	bool *check_notnull; /* per new column: verify NOT NULL */
	int nchecks;         /* CHECK constraints to verify, over the new row (+ key) */
	sql_expr **checks;
	const char **check_names;
	bool check_unique_key; /* new_storage with a new primary key: verify uniqueness */
	uint64_t rows;         /* rows seen */
} sql_rewrite;

/* Runs the rewrite/validation pass over every row of old_rel visible to the
 * transaction. With new_storage, creates the new storage (dropped on abort)
 * and sets new_rel's storage name; throws on violations. */
void sql_rewrite_run(sql_session *s, sql_rewrite *rw);
/* Analyzes a raw expression over a table's row, planned against the row
 * (ncols + key). With a target type, assigns it to that type (sets
 * *cannot_coerce and returns NULL when no assignment cast exists). */
sql_expr *sql_rewrite_row_expr(sql_session *s, const cat_obj *rel, pnode *expr, const char *text,
			       sql_expr_ctx ctx, sql_pstate *ps, ty_oid target, int32_t typmod,
			       bool *cannot_coerce);
/* The DEFAULT of column col (0-based) of rel, ready to evaluate. */
sql_expr *sql_rewrite_default_expr(sql_session *s, const cat_obj *rel, int col, sql_pstate *ps);
sql_expr *sql_rewrite_check_expr(sql_session *s, const cat_obj *rel, const char *check_sql, sql_pstate *ps);
/* An executor for expressions analyzed with ps (no plan). */
sql_exec *sql_rewrite_exec(sql_session *s, sql_pstate *ps);

/* ---------------------------------------------------------------- stored SQL text (ddl_sqltext.c) */

/* Results are in the statement arena; NULL when the text does not mention
 * the name (nothing to change). */
bool sql_text_mentions_column(const char *sql, const char *col, bool star);
char *sql_text_rename_column_in_expr(const char *sql, const char *col, const char *newname);
char *sql_text_view_rename_rel(sql_session *s, cat_snap *cs, const char *view_sql, cat_oid rel,
			       const char *newschema, const char *newname);
/* Distinct column names referenced by a raw expression (at most max;
 * borrowed from the tree). */
int sql_text_column_refs(pnode *expr, const char **out, int max);
/* Deparses a statement with every relation name schema-qualified as it
 * resolves now (CTE names excepted); the tree is left as it was. */
char *sql_text_deparse_bound(sql_session *s, cat_snap *cs, pnode *stmt);
/* The relation a regclass literal in m names, as it resolves now: m is a
 * call of nextval/currval/setval ('name' its first argument) or a
 * 'name'::regclass cast; NULL for any other node or an unknown name.
 * *lit (lit may be NULL) gets the literal's node.
 * PostgreSQL binds such literals to the relation (a view or default
 * depends on it). */
const cat_obj *sql_text_regclass_ref(sql_session *s, cat_snap *cs, const ProtobufCMessage *m,
				     PgQuery__AConst **lit);
/* DROP FUNCTION / DROP TYPE (ddl_drop_builtin.c): every one is built in,
 * so it throws 2BP01, or 42883/42704 (a NOTICE with IF EXISTS). False for
 * other kinds of DROP. */
bool sql_ddl_drop_builtin(sql_session *s, PgQuery__DropStmt *st, const char *text);
/* Does a stored default call nextval/currval/setval on sequence seq? */
bool sql_text_default_uses_seq(sql_session *s, cat_snap *cs, const char *sql, cat_oid seq);
char *sql_text_view_rename_column(sql_session *s, cat_snap *cs, const char *view_sql, cat_oid rel,
				  const char *col, const char *newname);

/* ---------------------------------------------------------------- foreign keys (fk.c) */

void sql_fk_resolve(sql_session *s, cat_snap *cs, const cat_rel *r, cat_oid self_oid, cat_constraint *c,
		    PgQuery__Constraint *con, cat_obj *owner);
/* Verifies that every row of the referencing table satisfies constraint c
 * (ADD CONSTRAINT ... FOREIGN KEY, VALIDATE CONSTRAINT). */
void sql_fk_validate(sql_session *s, cat_snap *cs, cat_oid table, const cat_constraint *c);

/* ---------------------------------------------------------------- privileges (privilege.c) */

bool sql_priv_inherits_role(sql_session *s, cat_snap *cs, cat_oid member, cat_oid role);
/* The role a RoleSpec names (0 = PUBLIC); with missing_ok (cat_oid)-1 when
 * it does not exist, else 42704. */
cat_oid sql_priv_role_oid(sql_session *s, cat_snap *cs, PgQuery__RoleSpec *rs, bool missing_ok);
void sql_ddl_rename_role(sql_session *s, PgQuery__RenameStmt *st);
/* Adds member to role (admin: 1 with ADMIN OPTION, 0 without, -1 keep) or
 * removes it (privilege.c). */
void sql_priv_set_member(cat_txn *ct, cat_oid member, cat_oid role, bool remove, int admin);
/* Sets a new relation's or schema's ACL from its owner's default privileges. */
void sql_priv_apply_default_acl(sql_session *s, cat_snap *cs, cat_obj *o);
/* Appends DROP ROLE detail lines for default privileges involving role. */
int sql_priv_defacl_deps(cat_snap *cs, cat_oid role, util_buf *detail);
bool sql_priv_is_owner(sql_session *s, cat_snap *cs, cat_oid owner);
/* Throws 42501 unless the current user may create objects in schema. */
void sql_priv_check_schema_create(sql_session *s, cat_snap *cs, cat_oid schema);

#endif /* STRATA_DDL_INT_H */
