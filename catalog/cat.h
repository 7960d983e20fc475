/*
 * cat.h — Strata's catalog: databases, schemas, roles and relations
 * (tables, views, sequences, indexes) with their columns and constraints,
 * kept in the kv table "sys.catalog" of the store and cached in memory.
 *
 * Versions: the catalog is a sequence of immutable snapshots (cat_snap).
 * Readers take a reference to the current snapshot and keep it for a
 * statement or transaction; DDL builds a new snapshot in a cat_txn (copy on
 * write: unchanged objects are shared) whose kv mutations join the SQL
 * transaction's commit batch, and cat_publish() installs it after the batch
 * committed. So a crash in the middle of DDL leaves the old or the new
 * schema, never a mix, and DDL is transactional like PostgreSQL's.
 *
 * Objects are immutable once in a snapshot: to change one, copy it with
 * cat_*_copy(), edit the copy, and cat_txn_put() it.
 *
 * Concurrency: one DDL transaction at a time per catalog (cat_ddl_lock),
 * as PostgreSQL's AccessExclusiveLock would serialise most DDL.
 * Disk format: docs/catalog-format.md.
 */
#ifndef STRATA_CAT_H
#define STRATA_CAT_H

#include <stdbool.h>
#include <stdint.h>

#include "kv.h"
#include "types.h"
#include "util.h"

typedef uint32_t cat_oid;

typedef struct cat cat;
typedef struct cat_snap cat_snap;
typedef struct cat_txn cat_txn;

#define CAT_NAME_MAX 64 /* NAMEDATALEN */

/* Fixed OIDs (PostgreSQL's where they exist). */
enum {
	CAT_OID_PG_CATALOG = 11,
	CAT_OID_PUBLIC = 2200,
	CAT_OID_INFORMATION_SCHEMA = 13000,
	CAT_OID_PG_TOAST = 99,
	CAT_OID_POSTGRES_ROLE = 10,
	CAT_OID_POSTGRES_DB = 5,
	CAT_OID_TEMPLATE1 = 1,
	CAT_OID_PG_CLASS = 1259, /* classid for comments and dependencies */
	CAT_OID_PG_NAMESPACE = 2615,
	CAT_OID_PG_AUTHID = 1260,
	CAT_OID_PG_DATABASE = 1262,
	CAT_OID_PG_CONSTRAINT = 2606,
	CAT_FIRST_USER_OID = 16384
};

typedef enum cat_kind {
	CAT_DATABASE = 1,
	CAT_SCHEMA,
	CAT_ROLE,
	CAT_REL
} cat_kind;

/* pg_class.relkind */
#define CAT_RELKIND_TABLE 'r'
#define CAT_RELKIND_INDEX 'i'
#define CAT_RELKIND_SEQUENCE 'S'
#define CAT_RELKIND_VIEW 'v'

/* Privilege bits (ACL), PostgreSQL's letters. */
enum {
	CAT_PRIV_INSERT = 1 << 0,     /* a */
	CAT_PRIV_SELECT = 1 << 1,     /* r */
	CAT_PRIV_UPDATE = 1 << 2,     /* w */
	CAT_PRIV_DELETE = 1 << 3,     /* d */
	CAT_PRIV_TRUNCATE = 1 << 4,   /* D */
	CAT_PRIV_REFERENCES = 1 << 5, /* x */
	CAT_PRIV_TRIGGER = 1 << 6,    /* t */
	CAT_PRIV_USAGE = 1 << 7,      /* U */
	CAT_PRIV_CREATE = 1 << 8,     /* C */
	CAT_PRIV_CONNECT = 1 << 9,    /* c */
	CAT_PRIV_TEMP = 1 << 10,      /* T */
	CAT_PRIV_EXECUTE = 1 << 11    /* X (functions; default privileges only) */
};

typedef struct cat_acl {
	cat_oid grantee; /* 0 = PUBLIC */
	cat_oid grantor;
	uint32_t privs;
	uint32_t grant_option;
} cat_acl;

typedef struct cat_column {
	char name[CAT_NAME_MAX];
	int16_t attnum;     /* 1-based position as PostgreSQL reports it (dropped ones keep theirs) */
	uint16_t col_id;    /* stable id used as the kv qualifier; never reused in a table */
	ty_oid type;
	int32_t typmod;
	bool notnull;
	bool dropped;
	char identity;      /* 'a' ALWAYS, 'd' BY DEFAULT, 0 none */
	char generated;     /* 's' stored generated column, 0 none */
	char *default_sql;  /* DEFAULT expression as SQL text (deparsed), or NULL */
	char *comment;
	int nacl;           /* column privileges (GRANT SELECT (c) ...), none = only the table's */
	cat_acl *acl;
} cat_column;

typedef enum cat_fk_action {
	CAT_FK_NO_ACTION = 'a',
	CAT_FK_RESTRICT = 'r',
	CAT_FK_CASCADE = 'c',
	CAT_FK_SET_NULL = 'n',
	CAT_FK_SET_DEFAULT = 'd'
} cat_fk_action;

typedef struct cat_constraint {
	cat_oid oid;
	char name[CAT_NAME_MAX];
	char type;          /* 'p' primary key, 'u' unique, 'c' check, 'f' foreign key, 'n' not null (unused) */
	int ncols;
	int16_t *cols;      /* attnums (p, u, f) */
	char *check_sql;    /* 'c': expression as SQL text */
	bool no_inherit;
	bool deferrable, deferred, validated;
	cat_oid index_oid;  /* 'p', 'u': the index that enforces it */
	/* 'f': referenced table, its columns, actions and match type */
	cat_oid ref_table;
	int16_t *ref_cols;
	char on_delete, on_update; /* cat_fk_action */
	char match;                /* 's' simple, 'f' full */
	char *comment;
} cat_constraint;

typedef struct cat_index_col {
	int16_t attnum;   /* 0 = expression */
	char *expr_sql;   /* expression as SQL text when attnum == 0 */
	bool desc;
	bool nulls_first;
} cat_index_col;

/* Index state during an online build (CREATE INDEX CONCURRENTLY). */
typedef enum cat_index_state {
	CAT_INDEX_WRITE_ONLY = 1, /* maintained by writers, not used by reads */
	CAT_INDEX_BACKFILLING,
	CAT_INDEX_PUBLIC,
	CAT_INDEX_INVALID         /* a failed build: neither maintained nor read (REINDEX rebuilds) */
} cat_index_state;

typedef struct cat_index_info {
	cat_oid table;
	bool unique;
	bool primary;
	bool nulls_not_distinct;
	int nkeys;            /* key columns */
	cat_index_col *keys;
	int ninclude;
	int16_t *include;     /* INCLUDE attnums */
	char *predicate_sql;  /* partial index WHERE, or NULL */
	cat_index_state state;
	uint64_t backfill_progress; /* rows copied so far (informational) */
	uint64_t valid_from;  /* kv timestamp: reads at older snapshots must not use the index */
} cat_index_info;

typedef struct cat_sequence_info {
	ty_oid type;  /* int2, int4 or int8 */
	int64_t start, increment, min, max, cache;
	bool cycle;
	cat_oid owned_by_table; /* OWNED BY table.column, or 0 */
	int16_t owned_by_col;
	/* Transient (not stored): ALTER SEQUENCE ... RESTART [WITH n]. */
	bool restart_requested;
	int64_t restart_value;
} cat_sequence_info;

typedef struct cat_reloption {
	char *name;
	char *value;
} cat_reloption;

/* A relation: table, view, sequence or index (pg_class). */
typedef struct cat_rel {
	char relkind;
	cat_oid schema;
	cat_oid owner;
	char name[CAT_NAME_MAX];
	char storage[CAT_NAME_MAX]; /* kv table holding the data ("" for views) */
	int ncols;                  /* including dropped columns */
	cat_column *cols;
	uint16_t next_col_id;
	/* Primary key of the storage (a table without one uses a hidden row id). */
	int npk;
	int16_t *pk;                /* attnums in key order */
	bool *pk_desc;              /* per key column: stored descending */
	int ncons;
	cat_constraint *cons;
	int nindexes;
	cat_oid *indexes;           /* index relations of this table */
	int nopts;
	cat_reloption *opts;        /* WITH (...) options, as given */
	int nacl;
	cat_acl *acl;
	char *view_sql;             /* views: the SELECT as SQL text */
	cat_index_info *index;      /* indexes */
	cat_sequence_info *seq;     /* sequences */
	/* Entity groups (docs/entity-groups.md): a child table interleaved in
	 * its parent stores its rows inside the root table's kv rows. */
	cat_oid interleave_parent;  /* parent table, or 0 */
	cat_oid ilv_root;           /* the hierarchy's root (owns the storage), or 0 */
	int ilv_depth;              /* 0 = not interleaved; 1 = child of the root ... */
	int16_t *ilv_path;          /* root key columns, then per level 1..depth: tag, key columns at
				     * that level's end (1 + 2 * depth entries) */
	bool ilv_cascade;           /* deleting a parent row deletes its children */
	int ilv_nchildren;          /* tables interleaved directly in this one */
	uint16_t ilv_next_tag;      /* root: the next tag to hand out */
	int salt_buckets;           /* 0 = not salted */
	bool packed;                /* row format (docs/row-format.md): a row's columns packed in its
				     * sentinel cell; false = a cell per column */
	char *comment;
	uint64_t stats_rows;        /* ANALYZE: estimated row count (0 = unknown) */
} cat_rel;

typedef struct cat_schema {
	cat_oid database;
	cat_oid owner;
	char name[CAT_NAME_MAX];
	int nacl;
	cat_acl *acl;
	char *comment;
	/* A temporary schema on a shared store: the owner id of the server
	 * whose session made it (kv_store_owner_id); 0 otherwise. Any server
	 * drops it once that owner is gone (sql/ddl_temp.c). */
	uint64_t temp_owner;
} cat_schema;

/* ALTER DEFAULT PRIVILEGES: the ACL given to objects a role creates (in
 * one schema, or in any when schema is 0). */
typedef struct cat_defacl {
	cat_oid schema;
	char objtype;       /* 'r' tables and views, 'S' sequences, 'f' functions, 'T' types, 'n' schemas */
	int nacl;
	cat_acl *acl;
} cat_defacl;

typedef struct cat_role {
	char name[CAT_NAME_MAX];
	bool superuser, inherit, createrole, createdb, login, replication, bypassrls;
	int conn_limit;           /* -1 = no limit */
	char *password;           /* SCRAM secret / md5 hash, or NULL */
	int64_t valid_until;      /* µs since Unix epoch, 0 = none */
	int nmembers_of;
	cat_oid *member_of;       /* roles this role is a member of */
	bool *member_admin;       /* per member_of: WITH ADMIN OPTION (NULL = none) */
	int ndefacl;
	cat_defacl *defacl;       /* default privileges of objects this role creates */
	char *comment;
} cat_role;

typedef struct cat_database {
	char name[CAT_NAME_MAX];
	cat_oid owner;
	bool allow_connections;
	int conn_limit;
	char *comment;
} cat_database;

/* Every catalog object: a kind, an oid and the kind's payload. Allocated
 * in its own arena (freed when no snapshot references it). */
typedef struct cat_obj {
	cat_kind kind;
	cat_oid oid;
	cat_oid database; /* owning database for schema/rel; 0 for shared objects */
	union {
		cat_database db;
		cat_schema schema;
		cat_role role;
		cat_rel rel;
	};
	/* private */
	util_arena *arena;
	int refs;
	bool own_write; /* shared store: this server committed this version since its last load */
	uint64_t row_stats_rows; /* own_write: the estimate that version's stored row carries (a
				  * later ANALYZE changes only rel.stats_rows, in its own row) */
} cat_obj;

/* ---------------------------------------------------------------- catalog */

/* Opens the catalog stored in kv (creating "sys.catalog" and bootstrapping
 * role postgres, databases postgres/template1 and their schemas on first
 * start). Drops kv tables no catalog object references (crash leftovers). */
int cat_open(kv_store *kv, cat **out, util_err *err);
/* The same for a store several servers share (etcd backend): a catalog
 * commit checks the objects it changes or depends on, and the names it
 * adds or removes, unchanged since its base snapshot (concurrent changes of
 * one object on two servers: the second commit fails with 40001; of
 * different objects: both commit) and moves a catalog version cell that
 * makes the other servers reload (cat_refresh) unless it only changed
 * ANALYZE's row estimates; oid ranges are reserved with a compare-and-set;
 * unreferenced kv tables are not dropped at open (they may be another
 * server's CREATE TABLE in progress). */
int cat_open_shared(kv_store *kv, bool shared, cat **out, util_err *err);
void cat_close(cat *c);
kv_store *cat_kv(cat *c);

/* The current snapshot, with a reference the caller releases. */
cat_snap *cat_current(cat *c);
void cat_snap_ref(cat_snap *s);
void cat_snap_release(cat_snap *s);
uint64_t cat_snap_version(const cat_snap *s);
/* True if a newer snapshot was published after s. */
bool cat_snap_stale(cat *c, const cat_snap *s);
/* True if s (a snapshot the caller holds a reference to) is the current
 * one: one atomic load, no lock, no reference taken. A session that
 * already holds the current snapshot need not take it again per
 * statement. */
bool cat_is_current(cat *c, const cat_snap *s);

/* Lookups return objects owned by the snapshot (valid while it is held). */
const cat_obj *cat_get(const cat_snap *s, cat_oid oid);
const cat_obj *cat_database_by_name(const cat_snap *s, const char *name);
const cat_obj *cat_role_by_name(const cat_snap *s, const char *name);
const cat_obj *cat_schema_by_name(const cat_snap *s, cat_oid db, const char *name);
/* Relations of any kind share one namespace per schema (as pg_class). */
const cat_obj *cat_rel_by_name(const cat_snap *s, cat_oid schema, const char *name);
/* Constraint names are unique per table; this finds one by name. */
const cat_constraint *cat_constraint_by_name(const cat_rel *r, const char *name);
/* Iterates objects of a kind (all databases when db == 0) in oid order;
 * stops when fn returns non-zero. */
void cat_foreach(const cat_snap *s, cat_kind kind, cat_oid db, int (*fn)(void *arg, const cat_obj *o),
		 void *arg);
/* Column helpers. */
const cat_column *cat_column_by_name(const cat_rel *r, const char *name);
const cat_column *cat_column_by_attnum(const cat_rel *r, int attnum);
const char *cat_rel_option(const cat_rel *r, const char *name);

/* ---------------------------------------------------------------- changes */

/* Serialises DDL: held from a transaction's first DDL to its end (its
 * statements may run on different threads: any thread may unlock). */
void cat_ddl_lock(cat *c);
void cat_ddl_unlock(cat *c);

/* A new oid (unique, persistent: allocated in ranges recorded in the store). */
int cat_new_oid(cat *c, cat_oid *out, util_err *err);

/* Starts a change set on base (the caller's snapshot; ref taken). */
cat_txn *cat_txn_begin(cat *c, cat_snap *base);
/* The snapshot including the pending changes (borrowed: take a reference
 * to keep it past the next change; every change makes a new snapshot). */
cat_snap *cat_txn_snap(cat_txn *t);
bool cat_txn_dirty(const cat_txn *t);
/* A new object of a kind, zeroed, with its own arena (caller fills it and
 * passes it to cat_txn_put, which takes ownership). */
cat_obj *cat_obj_new(cat_kind kind, cat_oid oid, cat_oid database);
/* A deep copy to edit (caller owns until cat_txn_put). */
cat_obj *cat_obj_copy(const cat_obj *o);
/* Whether two versions of an object define the same thing: equal but for
 * what ANALYZE and index builds record as they go (row estimates, backfill
 * progress), which do not change how a statement reads or writes it. */
bool cat_obj_same_definition(const cat_obj *a, const cat_obj *b);
/* Frees an object that was never put. */
void cat_obj_free(cat_obj *o);
/* Allocates in an object's arena (strings and arrays of the object). */
void *cat_obj_alloc(cat_obj *o, size_t n);
char *cat_obj_strdup(cat_obj *o, const char *s);
/* Adds or replaces the object with its oid; takes ownership. */
void cat_txn_put(cat_txn *t, cat_obj *o);
void cat_txn_delete(cat_txn *t, cat_oid oid);
/* The transaction's change rests on object oid, a dependency the catalog
 * does not record (a view's relations, known only from its SQL): on a
 * shared store the commit checks it unchanged since the base snapshot and
 * leaves a share mark, so a concurrent change or drop of it on another
 * server conflicts (40001) in either order. */
void cat_txn_depend(cat_txn *t, cat_oid oid);
/* Appends the catalog mutations to a kv batch (the SQL transaction's). */
void cat_txn_write(cat_txn *t, kv_batch *b);
/* After the batch committed: installs the new snapshot as current and
 * frees the txn. */
void cat_txn_publish(cat_txn *t);
/* Discards the changes and frees the txn. */
void cat_txn_abort(cat_txn *t);
/* Reads the stored catalog rows at read point `at` (not the cached
 * snapshots) and calls fn with a description of each row that does not
 * parse; *objects counts the objects that do. Returns the scan's status. */
typedef void (*cat_verify_fn)(void *arg, const char *problem);
kv_status cat_verify_rows(cat *c, kv_ts at, cat_verify_fn fn, void *arg, uint64_t *objects);
/* Reloads the catalog from the store (after an external change: another
 * front end on a shared backend). */
int cat_reload(cat *c, util_err *err);
/* Shared store: reloads the catalog if another server changed it since it
 * was loaded (one read of the version cell, at read_ts: a read point just
 * taken, or 0 to take one — a second round trip). No-op otherwise. */
int cat_refresh(cat *c, kv_ts read_ts, util_err *err);

#endif /* STRATA_CAT_H */
