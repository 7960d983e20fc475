/*
 * sysview.h — private to sql/: generated catalog relations (pg_catalog and
 * information_schema). A view declares its columns and a generator that
 * emits its rows from Strata's catalog at scan time; nothing is stored.
 * Views are registered from tables in sysview_*.c files:
 *   sysview_pg.c        pg_namespace, pg_class, pg_attribute, pg_type, pg_database, roles
 *   sysview_pgrel.c     pg_index, pg_constraint, pg_attrdef, pg_description, pg_depend,
 *                       pg_sequence, pg_rewrite, pg_inherits ...
 *   sysview_pgproc.c    pg_proc, pg_operator, pg_cast, pg_aggregate, pg_am, pg_collation ...
 *   sysview_pgviews.c   pg_tables, pg_views, pg_indexes, pg_sequences, pg_settings,
 *                       pg_stat_activity, pg_locks, pg_stat_* ...
 *   sysview_pgempty.c   catalogs of features Strata does not have (always empty)
 *   sysview_infoschema.c information_schema
 *
 * OIDs: every row's oid is the catalog object's own (stable across
 * restarts), PostgreSQL's fixed oid for built-in objects, or derived from
 * them with sql_derived_oid() for things Strata's catalog does not give an
 * oid of their own (column defaults, view rules, primary-key indexes).
 */
#ifndef STRATA_SYSVIEW_H
#define STRATA_SYSVIEW_H

#include "sql_int.h"

typedef struct sql_sysrows sql_sysrows; /* the sink rows are emitted to */

typedef struct sql_syscol {
	const char *name;
	ty_oid type;
} sql_syscol;

typedef struct sql_sysview {
	const char *schema; /* "pg_catalog" or "information_schema" */
	const char *name;
	cat_oid oid;  /* PostgreSQL 15's relation oid */
	char relkind; /* 'r' catalog table, 'v' system view */
	int ncols;
	const sql_syscol *cols;
	/* Emits every row with sql_sysrows_add(). Runs in the scan's arena;
	 * may throw. */
	void (*generate)(sql_session *s, cat_snap *cs, sql_sysrows *out);
} sql_sysview;

#define SQL_SYSVIEW(schema, name, oid, kind, cols, gen)                                                      \
	{                                                                                                    \
		schema, name, oid, kind, (int)UTIL_ARRAY_LEN(cols), cols, gen                                \
	}

/* pg_stats, from the statistics ANALYZE keeps (stats.c). */
void sql_stats_pg_stats(sql_session *s, cat_snap *cs, sql_sysrows *out);

/* Adds one row (ncols datums, copied). */
void sql_sysrows_add(sql_sysrows *out, const ty_datum *vals);
/* Building a row by column name (views with many columns): init sets
 * every column NULL; set throws XX000 for a column the view lacks. */
typedef struct sql_sysrow {
	const struct sql_sysview *v;
	ty_datum *vals;
} sql_sysrow;
void sql_sysrow_init(sql_sysrow *r, const sql_sysrows *out);
void sql_sysrow_set(sql_sysrow *r, const char *col, ty_datum d);
void sql_sysrow_emit(sql_sysrow *r, sql_sysrows *out);
/* The view whose rows are being generated. */
const sql_sysview *sql_sysrows_view(const sql_sysrows *out);

/* Registers views (startup only). The table must stay alive. */
void sql_sysview_register(const sql_sysview *views, int n);

const sql_sysview *sql_sysview_find(const char *schema, const char *name);
void sql_sysview_columns(const sql_sysview *v, int *ncols, const char *const **names, const ty_oid **types);
cat_oid sql_sysview_oid(const sql_sysview *v);
const char *sql_sysview_name_by_oid(cat_oid oid);
const sql_sysview *sql_sysview_by_oid(cat_oid oid);
int sql_sysview_count(void);
const sql_sysview *sql_sysview_nth(int i);

/* Registration of each file's views. */
void sql_sysviews_rel_init(void);
void sql_sysviews_proc_init(void);
void sql_sysviews_views_init(void);
void sql_sysviews_empty_init(void);
void sql_sysviews_infoschema_init(void);

/* ---- datum helpers for generators (results in the current arena) ---- */

ty_datum sql_d_text(const char *s); /* NULL pointer -> NULL */
ty_datum sql_d_name(const char *s);
ty_datum sql_d_oid(cat_oid o);
ty_datum sql_d_int(int64_t v);
ty_datum sql_d_bool(bool b);
ty_datum sql_d_char(char c);
ty_datum sql_d_float(double v);
ty_datum sql_d_timestamptz_us(int64_t unix_us); /* µs since the Unix epoch; 0 -> NULL */
/* One-dimensional arrays (n = 0 gives the empty array). */
ty_datum sql_d_text_array(int n, const char *const *vals);
ty_datum sql_d_name_array(int n, const char *const *vals);
ty_datum sql_d_oid_array(int n, const cat_oid *vals);
ty_datum sql_d_int2_array(int n, const int16_t *vals);
ty_datum sql_d_char_array(int n, const char *vals);
/* aclitem[] of an object's ACL (NULL when it has none: default privileges). */
ty_datum sql_d_acl(cat_snap *cs, int nacl, const cat_acl *acl);
/* Appends one aclitem text ("grantee=privs/grantor") to out. */
void sql_acl_item_text(cat_snap *cs, const cat_acl *a, util_buf *out);

/* ---- catalog helpers shared by the generators ---- */

/* PostgreSQL 15's predefined roles (pg_database_owner, pg_monitor ...),
 * which pg_authid lists besides the catalog's roles. */
typedef struct sql_builtin_role {
	cat_oid oid;
	const char *name;
} sql_builtin_role;
int sql_builtin_role_count(void);
const sql_builtin_role *sql_builtin_role_nth(int i);
/* A role's name (catalog role or predefined role), or NULL. */

/* Oids for catalog rows Strata's catalog has no object for. kind selects
 * the slot: SQL_DOID_ATTRDEF + attnum, SQL_DOID_RULE, SQL_DOID_PKEY_INDEX,
 * SQL_DOID_UNIQUE_INDEX + constraint position, SQL_DOID_ROWTYPE. */
enum {
	SQL_DOID_RULE = 0,
	SQL_DOID_ATTRDEF = 0,         /* + attnum (1..1600) */
	SQL_DOID_UNIQUE_INDEX = 1700, /* + constraint index in the table (< 300) */
	SQL_DOID_PKEY_INDEX = 2047
};
cat_oid sql_derived_oid(cat_oid rel, int slot);
/* The relation and slot a derived oid came from (false if not derived). */
bool sql_derived_oid_parts(cat_oid oid, cat_oid *rel, int *slot);

/* The index relation that enforces a primary key or unique constraint:
 * the catalog's index when it has one, else a derived oid (Strata keeps a
 * primary key as the storage key of the table, not as an index). */
cat_oid sql_constraint_index_oid(const cat_obj *table, int con);
/* Whether a constraint's index is synthesized (no catalog index object). */
bool sql_constraint_index_synthetic(const cat_obj *table, int con);
/* Describes the index of pg_index/pg_class for a table's constraint or an
 * index relation: a filled cat_index_info (arena memory). */
typedef struct sql_index_desc {
	cat_oid oid; /* index relation oid */
	char name[CAT_NAME_MAX];
	const cat_obj *table;
	const cat_obj *index;      /* the catalog index object, NULL when synthesized */
	const cat_constraint *con; /* enforcing constraint ('p'/'u'), or NULL */
	cat_index_info info;       /* keys/include/flags */
} sql_index_desc;
/* All indexes of a table (catalog indexes and synthesized constraint
 * indexes), in name order. *n = count. Arena memory. */
sql_index_desc *sql_table_indexes(cat_snap *cs, const cat_obj *table, int *n);
/* Looks up an index (catalog or synthesized) by oid; false if none. */
bool sql_index_by_oid(cat_snap *cs, cat_oid oid, sql_index_desc *out);
/* Default btree operator class of a type (pg_opclass oid), 0 if none. */
cat_oid sql_default_opclass(ty_oid type);
/* Whether values of a type are collatable (text-like), and its pg_type.typcollation. */
cat_oid sql_type_collation(ty_oid type);
/* The owner role oid of the database. */
cat_oid sql_db_owner(cat_snap *cs, cat_oid db);
/* The pg_proc oids of a type's support functions (catalog_funcs_typeio.c),
 * 0 where Strata has none. */
typedef struct sql_type_procs {
	cat_oid input, output, receive, send, modin, modout, analyze, subscript;
} sql_type_procs;
void sql_type_procs_of(ty_oid type, sql_type_procs *out);
/* pg_type.typstorage of a type. */
char sql_type_storage(ty_oid type);
/* Name of a default btree operator class (NULL if unknown). */
const char *sql_opclass_name(cat_oid oid);
/* The referenced table's unique index a foreign key relies on (0 if none). */
cat_oid sql_fk_index_oid(cat_snap *cs, const cat_constraint *fk);

/* ---- deparsing stored SQL (catalog_funcs_deparse.c); results in the
 * current arena; stored text that no longer analyzes is returned as is ---- */

/* pg_node_tree values (adbin, conbin, indexprs, indpred) hold Strata's
 * stored SQL text of the expression ("SELECT " prefix removed); a column
 * default is prefixed "{DEFAULT attnum} " so pg_get_expr() can coerce it to
 * the column's type. sql_node_text gives the text form (arena). */
const char *sql_node_text(const char *stored_sql);
/* Whether a column has a default PostgreSQL would store (not an identity
 * column, not a plain DEFAULT NULL, which PostgreSQL drops). */
bool sql_column_has_default(const cat_column *c);
/* PostgreSQL's quote_identifier (quotes keywords other than unreserved ones). */
void sql_quote_identifier(const char *name, util_buf *out);
/* An expression stored for a table (CHECK, index expression, predicate)
 * printed as pg_get_expr() would: pretty = only needed parentheses. */
char *sql_deparse_expr_text(sql_session *s, cat_snap *cs, const cat_obj *table, const char *sql, bool pretty);
/* A column's DEFAULT, coerced to the column's type, as pg_get_expr(adbin). */
char *sql_deparse_default_text(sql_session *s, cat_snap *cs, const cat_obj *table, int col, bool pretty);
/* A view's query as pg_get_viewdef() (ends with ';'). */
char *sql_deparse_view_text(sql_session *s, cat_snap *cs, const cat_obj *view, bool pretty);
/* Type of an index expression. */
ty_oid sql_index_expr_type(sql_session *s, cat_snap *cs, const cat_obj *table, const char *expr_sql,
			   int32_t *typmod);
/* Columns (attnums) a CHECK expression reads; *out in the current arena. */
int sql_check_columns(sql_session *s, cat_snap *cs, const cat_obj *table, const char *check_sql,
		      int16_t **out);
/* Relations a view reads. */
int sql_view_referenced_rels(sql_session *s, cat_snap *cs, const cat_obj *view, cat_oid **out);
/* Whether a view is simple enough to be automatically updatable. */
bool sql_view_simple(sql_session *s, cat_snap *cs, const cat_obj *view);
/* Sequences a column's DEFAULT calls nextval() on. */
int sql_default_sequences(sql_session *s, cat_snap *cs, const cat_obj *table, int col, cat_oid **out);
/* pg_get_constraintdef / pg_get_indexdef text (catalog_funcs_def.c). col > 0:
 * only that index column. */
char *sql_constraintdef_text(sql_session *s, cat_snap *cs, const cat_obj *table, const cat_constraint *c,
			     bool pretty);
char *sql_indexdef_text(sql_session *s, cat_snap *cs, const sql_index_desc *d, int col, bool pretty);

/* ---- privileges (catalog_funcs_priv.c) ---- */

/* Whether role is user or one user is a member of (pg_has_role USAGE);
 * superusers are members of every role. */
bool sql_priv_has_role(cat_snap *cs, cat_oid user, cat_oid role);
/* A relation's ACL, or PostgreSQL's default one (owner: all) when it has none. */
const cat_acl *sql_priv_rel_acl(const cat_obj *rel, int *n);
/* Whether user holds any privilege on a relation (or owns it). */
bool sql_priv_rel_any(sql_session *s, cat_snap *cs, cat_oid user, const cat_obj *rel);

#endif
