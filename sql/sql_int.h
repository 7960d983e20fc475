/*
 * sql_int.h — private to sql/: the engine, sessions and settings, the
 * analyzed query tree and typed expressions, plans, the executor and the
 * transaction layer. One header so that the pieces of the pipeline
 *   parse (libpg_query) -> analyze -> plan -> execute
 * share their data structures; each stage lives in its own files.
 *
 * Memory: analysis and planning allocate from the statement's arena (or a
 * prepared statement's own arena, so plans can be cached); execution
 * allocates per-execution state from the portal arena and row data from
 * per-batch arenas. Errors are thrown with ty_error() (types.h) and caught
 * at the statement boundary, which releases registered resources.
 */
#ifndef STRATA_SQL_INT_H
#define STRATA_SQL_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>

#include "cat.h"
#include "kv.h"
#include "sql.h"
#include "types.h"
#include "util.h"

typedef PgQuery__Node pnode; /* a raw parse-tree node */

typedef struct sql_expr sql_expr;
typedef struct sql_query sql_query;
typedef struct sql_plan sql_plan;
typedef struct sql_exec sql_exec;
typedef struct sql_op sql_op;
typedef struct sql_txn sql_txn;
typedef struct sql_guc_value sql_guc_value;

/* ---------------------------------------------------------------- engine */

struct sql_engine {
	sql_engine_opts opts;
	char data_dir[1024];
	kv_store *kv;
	cat *cat;
	kv_table *seq_tbl; /* sequence values ("sys.sequences") */
	pthread_mutex_t sessions_mu;
	sql_session **sessions; /* for CancelRequest and pg_stat_activity */
	int nsessions, sessions_cap;
	atomic_int next_pid;
	pthread_mutex_t locks_mu; /* the row lock manager (txn_locks.c) */
	pthread_cond_t locks_cv;
	pthread_mutex_t serial_mu; /* SERIALIZABLE read validation + commit (txn_serial.c) */
	util_map locks;           /* (table oid, row key) -> lock */
	struct sql_keyset **keysets; /* bulk-inserted key sets, under locks_mu (txn_lock.c) */
	int nkeysets, keysets_cap;
	struct sql_index_engine *ix; /* secondary indexes: commit gate, GC filters, builds (index_engine.c) */
	struct sql_autoanalyze *autoanalyze; /* background ANALYZE after big loads */
	struct sql_temp_sweeper *temp_sweeper; /* shared store: drops dead servers' temp schemas */
	int64_t start_time_us;
	struct sql_ops *ops;      /* operations state: statistics, progress, data-dir lock (ops.h) */
};

/* ---------------------------------------------------------------- settings */

typedef enum sql_guc_type { GUC_BOOL, GUC_INT, GUC_REAL, GUC_STRING, GUC_ENUM } sql_guc_type;

typedef struct sql_guc {
	const char *name;        /* canonical spelling (SHOW ALL order) */
	sql_guc_type type;
	const char *boot;        /* default value as text */
	const char *unit;        /* "ms", "kB", or NULL */
	bool report;             /* GUC_REPORT: sent as ParameterStatus */
	bool readonly;           /* e.g. server_version */
	const char *category;
	const char *desc;
	const char *const *enums;  /* GUC_ENUM: accepted values, NULL-terminated */
	int64_t min, max;
	/* Validates/canonicalises a new value for this session (may rewrite
	 * it into out); returns -1 with err. NULL = generic checks only. */
	int (*check)(sql_session *s, const char *in, util_buf *out, util_err *err);
	/* Applies the value to session state after a change. */
	void (*assign)(sql_session *s, const char *val);
} sql_guc;

const sql_guc *sql_guc_find(const char *name);
const sql_guc *sql_guc_nth(int i);
int sql_guc_count(void);

/* ---------------------------------------------------------------- values of a session */

typedef struct sql_prepared sql_prepared;
typedef struct sql_portal_s sql_portal_s;

typedef enum sql_txn_state {
	SQL_TXN_IDLE = 0, /* no transaction block ('I') */
	SQL_TXN_BLOCK,    /* in BEGIN ... ('T') */
	SQL_TXN_FAILED    /* error in a block, until ROLLBACK ('E') */
} sql_txn_state;

typedef enum sql_isolation {
	SQL_READ_COMMITTED = 0,
	SQL_REPEATABLE_READ,
	SQL_SERIALIZABLE
} sql_isolation;

struct sql_session {
	sql_engine *e;
	sql_client client;
	int32_t pid, secret;
	/* pg_export_snapshot(): the snapshot this session's transaction exported
	 * ("" when none), readable by others under e->sessions_mu (txn.c). */
	char export_id[48];
	uint64_t export_ts;
	char user[CAT_NAME_MAX];     /* current_user (SET ROLE changes it) */
	char database[CAT_NAME_MAX];
	cat_oid user_oid, db_oid;
	bool superuser;
	char session_user[CAT_NAME_MAX]; /* SET SESSION AUTHORIZATION changes it */
	cat_oid session_user_oid;
	cat_oid auth_user_oid;       /* the role that logged in */
	struct sql_temp *temp;       /* temporary schema and ON COMMIT actions (ddl_temp.c) */
	char application_name[128];
	atomic_bool cancel;          /* set by sql_cancel(); checked in loops */
	bool commit_retryable;       /* the last commit failed on a READ COMMITTED write conflict
					(shared store): rerunning its statement is safe (txn.c) */
	int64_t deadline_us;         /* statement_timeout deadline (mono), 0 = none */
	util_arena *arena;           /* session lifetime */
	util_arena *stmt_arena;      /* one statement; reset after it */
	ty_settings tys;             /* datestyle, timezone ... for types/ */
	util_map gucs;               /* name -> sql_guc_value* (session values) */
	struct guc_undo *guc_undo;   /* SET in the current transaction, newest first */
	/* Cached typed settings (assign hooks keep these in sync). */
	char search_path[256];
	int64_t statement_timeout_ms, lock_timeout_ms, idle_in_txn_timeout_ms, idle_timeout_ms;
	size_t work_mem;
	sql_isolation default_isolation;
	bool default_read_only;
	/* transaction */
	sql_txn_state txn_state;
	bool implicit_block;         /* simple query with several statements */
	sql_txn *txn;                /* current transaction (NULL outside one) */
	cat_snap *cat;               /* catalog snapshot of the current statement/txn */
	/* extended protocol */
	util_map prepared;           /* name -> sql_prepared* */
	util_map prep_cache;         /* unnamed statements by text and context -> sql_prepared* (stmt.c) */
	util_map lit_cache;          /* simple queries by shape -> struct lit_entry* (litcache.c) */
	uint64_t guc_gen;            /* bumped whenever a setting's value changes (guc.c) */
	util_map portals;            /* name -> sql_portal_s*, named ones only */
	struct sql_portal_s *unnamed_portal; /* Bind's "": outside the map, no lookups per message */
	util_arena *spare_portal_arena; /* a freed portal's arena, reset, for the next (session.c) */
	int ncursors;                   /* portals that are cursors (DECLARE): none, no walk at commit */
	bool ext_failed;             /* an error in an extended batch: skip to Sync */
	/* Executes since the last Sync, and the last one's portal (name, tag,
	 * whether it may be rerun): a READ COMMITTED write conflict at Sync's
	 * commit reruns it (session.c, shared stores). */
	int ext_execs;
	struct sql_portal_s *ext_portal;
	char ext_portal_name[64];
	char ext_tag[64];
	bool ext_retry_ok;
	/* state */
	char state_desc[32];         /* pg_stat_activity.state */
	char *current_query;         /* in arena-independent heap memory */
	int64_t query_start_us, backend_start_us, xact_start_us;
	uint64_t seq_currval_valid;  /* lastval/currval bookkeeping */
	util_map seq_currval;        /* seq oid -> int64 (boxed) */
	int64_t lastval;
	bool has_lastval;
	cat_oid lastval_seq;
	int next_cursor;             /* <unnamed portal N> */
	pthread_mutex_t mu;          /* guards current_query/state for other threads */
	util_buf rowbuf;             /* DataRow body being built (reused) */
	/* operations (ops.h) */
	kv_ts as_of_ts;              /* strata.read_as_of (0 = off) */
	int64_t log_min_duration_ms; /* log_min_duration_statement (-1 = off) */
	_Atomic(const char *) wait_event_type, wait_event; /* static strings or NULL */
	atomic_bool terminate;       /* pg_terminate_backend() asked this session to end */
};

/* Throws 57014 if the session was cancelled or its statement timed out. */
void sql_check_interrupts(sql_session *s);
/* The session running on this thread (for interrupt checks in loops). */
sql_session *sql_current_session(void);

/* Session settings (guc.c). */
const char *sql_guc_get(sql_session *s, const char *name);
int sql_guc_set(sql_session *s, const char *name, const char *value, bool local, util_err *err);
void sql_guc_init_session(sql_session *s);
void sql_guc_reset_all(sql_session *s);
/* End of transaction: undo SET LOCAL values (and SET values on abort). */
void sql_guc_end_txn(sql_session *s, bool commit);
void sql_guc_report_all(sql_session *s, void (*fn)(void *arg, const char *name, const char *value), void *arg);
int sql_guc_set_startup(sql_session *s, const char *name, const char *value, util_err *err);
void sql_guc_show(sql_session *s, const char *name, util_buf *out, util_err *err, bool *found);
void sql_guc_free_session(sql_session *s);

/* ---------------------------------------------------------------- expressions */

typedef enum sql_expr_kind {
	SQL_E_CONST = 1,
	SQL_E_PARAM,      /* $n (1-based), value from the portal's parameters */
	SQL_E_EXECPARAM,  /* value set by the executor (correlated subqueries) */
	SQL_E_VAR,        /* a column of a range-table entry (analyzer output) */
	SQL_E_SLOT,       /* a column of the input row (after planning) */
	SQL_E_FUNC,       /* function or operator call */
	SQL_E_AND,
	SQL_E_OR,
	SQL_E_NOT,
	SQL_E_CASE,       /* args: [test], when1, then1, ..., else */
	SQL_E_CASETEST,   /* the CASE test value inside WHEN comparisons */
	SQL_E_COALESCE,
	SQL_E_NULLIF,     /* args[0], args[1], fn = equality */
	SQL_E_GREATEST,
	SQL_E_LEAST,
	SQL_E_NULLTEST,   /* is null / is not null (negate) */
	SQL_E_BOOLTEST,   /* is [not] true/false/unknown */
	SQL_E_DISTINCT,   /* IS DISTINCT FROM (negate: NOT DISTINCT) with fn = equality */
	SQL_E_CAST,       /* coercion: by function, relabel, I/O, array element-wise */
	SQL_E_SUBLINK,    /* subquery: EXISTS, ANY, ALL, EXPR, ARRAY */
	SQL_E_ARRAY,      /* ARRAY[...] */
	SQL_E_ROW,        /* ROW(...) */
	SQL_E_ANYARRAY,   /* x op ANY/ALL (array): fn = op, all flag */
	SQL_E_ROWCMP,     /* (a, b) op (c, d) */
	SQL_E_AGG,        /* aggregate call (index into the query's aggregate list) */
	SQL_E_WINDOW,     /* window function call */
	SQL_E_SRF,        /* set-returning function in a target list */
	SQL_E_FIELD,      /* (record).field */
	SQL_E_SUBSCRIPT,  /* array[i][j] / array[i:j]: args: container, then lower and upper
			   * per subscript (upper NULL unless a slice, NULL = omitted
			   * bound); booltest = number of subscripts, all = a slice */
	SQL_E_GROUPING,   /* GROUPING(...) */
	SQL_E_SESSION,    /* session values: current_user, current_schema, ... */
	SQL_E_DEFAULT,    /* DEFAULT in INSERT/UPDATE (replaced during analysis) */
	SQL_E_ASSIGN      /* container with subscripts assigned (UPDATE SET a[i] = v):
			   * args: container, value, then lower/upper per subscript
			   * (upper NULL unless a slice); booltest = number of
			   * subscripts, all = slice */
} sql_expr_kind;

typedef enum sql_cast_method {
	SQL_CAST_RELABEL = 0, /* binary compatible: same datum */
	SQL_CAST_FUNC,        /* call fn */
	SQL_CAST_IO,          /* output as text, input as target */
	SQL_CAST_ARRAY,       /* element-wise (elem source/target in the node) */
	SQL_CAST_TYPMOD       /* only apply the target typmod */
} sql_cast_method;

typedef enum sql_sublink_kind {
	SQL_SUB_EXISTS = 1,
	SQL_SUB_ANY,
	SQL_SUB_ALL,
	SQL_SUB_EXPR,
	SQL_SUB_ARRAY,
	SQL_SUB_ROWCMP,
	SQL_SUB_MULTIEXPR /* the one row as a record (UPDATE SET (a, b) = (SELECT ...)) */
} sql_sublink_kind;

typedef enum sql_session_value {
	SQL_SV_CURRENT_USER = 1,
	SQL_SV_SESSION_USER,
	SQL_SV_CURRENT_SCHEMA,
	SQL_SV_CURRENT_CATALOG
} sql_session_value;

/* An aggregate call of a query (referenced by SQL_E_AGG nodes). */
typedef struct sql_aggref {
	const ty_agg *agg;      /* NULL for count/min/max handled generically */
	int kind;               /* SQL_AGG_* */
	int nargs;
	sql_expr **args;
	ty_oid *argtypes;
	ty_oid rettype;
	bool star;              /* count(*) */
	bool distinct;
	sql_expr *filter;
	int norder;             /* ORDER BY inside the aggregate / WITHIN GROUP */
	struct sql_sortkey *order;
	int ndirect;            /* ordered-set aggregates: direct arguments */
	sql_expr **direct;
} sql_aggref;

enum { SQL_AGG_GENERIC = 0, SQL_AGG_COUNT, SQL_AGG_COUNT_STAR, SQL_AGG_MIN, SQL_AGG_MAX };

typedef struct sql_window_clause sql_window_clause;

typedef struct sql_winref {
	const char *name;       /* row_number, rank, ... or an aggregate's name */
	const ty_agg *agg;      /* aggregates used as window functions */
	int aggkind;            /* SQL_AGG_* when agg or generic count/min/max */
	int nargs;
	sql_expr **args;
	ty_oid *argtypes;
	ty_oid rettype;
	bool star;
	sql_expr *filter;
	int winclause;          /* index into the query's window clauses */
} sql_winref;

struct sql_expr {
	sql_expr_kind kind;
	ty_oid type;
	int32_t typmod;
	int location;          /* byte offset in the query text, -1 if none */
	int agglevelsup;       /* AGG: > 0 for an aggregate of an enclosing query */
	union {
		ty_datum c;        /* CONST (by-reference bytes live in the plan arena) */
		int param;         /* PARAM ($n, 1-based), EXECPARAM (index) */
		struct {
			int rte;       /* range-table index within the query at levelsup */
			int col;       /* 0-based column of the RTE */
			int levelsup;
		} var;
		int slot;          /* SLOT */
		struct {
			const ty_func *fn;
			int nargs;
			sql_expr **args;
			ty_oid *argtypes;  /* resolved argument types */
			const char *opname; /* operator spelling (EXPLAIN), or NULL */
			bool all;          /* ANYARRAY: ALL instead of ANY */
			int cache;         /* executor cache slot */
			bool negate;       /* NULLTEST/DISTINCT/BOOLTEST flavour */
			int booltest;      /* BOOLTEST: PG_QUERY__BOOL_TEST_TYPE__* */
		} f;               /* FUNC, AND/OR/NOT, CASE, COALESCE, GREATEST/LEAST, NULLTEST,
				    * BOOLTEST, DISTINCT, NULLIF, ARRAY, ROW, ANYARRAY, ROWCMP, SUBSCRIPT, ASSIGN */
		struct {
			sql_expr *arg;
			sql_cast_method method;
			const ty_func *fn;   /* SQL_CAST_FUNC (or element cast for ARRAY) */
			ty_oid src_type;
			ty_oid elem_src, elem_dst;
			bool explicit_cast;
			sql_cast_method elem_method;
		} cast;
		struct {
			sql_sublink_kind kind;
			sql_query *query;    /* analyzed subquery */
			sql_plan *plan;      /* set by the planner */
			sql_expr *testexpr;  /* ANY/ALL: left side (ROW for row compares) */
			const ty_func **cmp; /* ANY/ALL/ROWCMP: comparison per column */
			int ncmp;
			int *params;         /* EXECPARAMs the subplan reads ... */
			sql_expr **param_vals; /* ... and their values in this row */
			int nparams;
			bool correlated;
			bool hashed;         /* uncorrelated x = ANY (SELECT y): probed in a hash set */
			int cache;           /* executor slot (uncorrelated results cached) */
			int rowcmp_op;       /* ROWCMP: PG_QUERY__ROW_COMPARE_TYPE__* */
		} sub;
		int agg;              /* AGG: index into the query's aggrefs */
		int win;              /* WINDOW: index into the query's winrefs */
		struct {
			sql_expr *arg;
			int field;
		} field;
		struct {
			int nargs;
			sql_expr **args;  /* as written */
			int *refs;        /* group clause indexes (filled by analysis) */
		} grouping;
		sql_session_value sv;
	};
};

sql_expr *sql_expr_new(sql_expr_kind kind, ty_oid type, int location);
sql_expr *sql_expr_const(ty_oid type, int32_t typmod, ty_datum v, int location);
sql_expr *sql_expr_copy(const sql_expr *e);
bool sql_expr_equal(const sql_expr *a, const sql_expr *b);
/* Walks every sub-expression (pre-order); stops if fn returns true. Does
 * not descend into sublink queries. */
bool sql_expr_walk(sql_expr *e, bool (*fn)(sql_expr *e, void *arg), void *arg);
/* Pre-order visit with control over descent: fn returns SQL_VISIT_SKIP to
 * leave e's children alone, SQL_VISIT_STOP to end the walk (then true is
 * returned). Does not descend into sublink queries. */
typedef enum sql_visit { SQL_VISIT_CONTINUE = 0, SQL_VISIT_SKIP, SQL_VISIT_STOP } sql_visit;
bool sql_expr_visit(sql_expr *e, sql_visit (*fn)(sql_expr *e, void *arg), void *arg);
/* Rewrites bottom-up: fn returns the replacement (or e itself). */
sql_expr *sql_expr_mutate(sql_expr *e, sql_expr *(*fn)(sql_expr *e, void *arg), void *arg);
bool sql_expr_is_const(const sql_expr *e);
bool sql_expr_volatile(const sql_expr *e);

/* ---------------------------------------------------------------- queries */

typedef enum sql_rte_kind {
	SQL_RTE_TABLE = 1,
	SQL_RTE_SUBQUERY,
	SQL_RTE_FUNCTION,
	SQL_RTE_VALUES,
	SQL_RTE_JOIN,
	SQL_RTE_CTE,
	SQL_RTE_SYSTEM   /* generated catalog view (pg_catalog / information_schema) */
} sql_rte_kind;

typedef enum sql_jointype {
	SQL_JOIN_INNER = 0,
	SQL_JOIN_LEFT,
	SQL_JOIN_RIGHT,
	SQL_JOIN_FULL,
	SQL_JOIN_SEMI,
	SQL_JOIN_ANTI
} sql_jointype;

typedef struct sql_cte sql_cte;

typedef struct sql_rte {
	sql_rte_kind kind;
	char alias[CAT_NAME_MAX];   /* name used to qualify columns */
	bool has_alias;
	int ncols;
	char **colnames;
	ty_oid *coltypes;
	int32_t *coltypmods;
	bool lateral;
	bool inh;
	int location;
	/* TABLE */
	const cat_obj *rel;
	/* SUBQUERY, CTE */
	sql_query *subquery;
	sql_cte *cte;
	/* FUNCTION */
	int nfuncs;
	sql_expr **funcs;
	bool ordinality;
	/* VALUES */
	int nrows;
	sql_expr ***rows;
	/* JOIN */
	sql_jointype jointype;
	sql_expr **joinvars;        /* per output column: the merged expression */
	/* SYSTEM */
	const struct sql_sysview *sysview;
	/* filled by the analyzer: which columns are referenced (for pushdown) */
	bool *used;
	/* FOR UPDATE/SHARE on this table */
	int lock_strength;          /* 0 none, else PG_QUERY__LOCK_CLAUSE_STRENGTH__* */
	int lock_wait;              /* PG_QUERY__LOCK_WAIT_POLICY__* */
} sql_rte;

typedef struct sql_jnode {
	bool is_join;
	int rte;                    /* base RTE, or the join's RTE */
	sql_jointype jointype;
	struct sql_jnode *left, *right;
	sql_expr *quals;
} sql_jnode;

typedef struct sql_target {
	sql_expr *expr;
	char *name;                 /* result column name */
	bool junk;                  /* not returned (ORDER BY helpers) */
	int sortgroupref;           /* > 0 when ORDER BY/GROUP BY/DISTINCT refer to it */
	cat_oid src_table;          /* RowDescription: table oid and column */
	int16_t src_attnum;
} sql_target;

typedef struct sql_sortkey {
	sql_expr *expr;
	bool desc;
	bool nulls_first;
	const ty_type *type;        /* comparison by the type's btree order */
	int target;                 /* target index the key refers to, -1 if none */
} sql_sortkey;

struct sql_window_clause {
	char *name;
	int npart;
	sql_expr **part;
	int norder;
	sql_sortkey *order;
	int frame_options;          /* PostgreSQL's FRAMEOPTION_* bits */
	sql_expr *start_offset, *end_offset;
	/* RANGE offset frames: in_range(val, base, offset, sub, less) per bound */
	const ty_func *start_in_range, *end_in_range;
	int location;
};

typedef enum sql_setop_kind { SQL_SETOP_UNION = 1, SQL_SETOP_INTERSECT, SQL_SETOP_EXCEPT } sql_setop_kind;

typedef struct sql_setop {
	bool is_leaf;
	sql_query *leaf;            /* leaf: a SELECT */
	sql_setop_kind op;
	bool all;
	struct sql_setop *left, *right;
	int ncols;
	ty_oid *types;
	int32_t *typmods;
} sql_setop;

struct sql_cte {
	char name[CAT_NAME_MAX];
	sql_query *query;
	bool recursive;
	sql_query *nonrec;          /* WITH RECURSIVE: the non-recursive term ... */
	sql_query *rec;             /* ... and the recursive one */
	bool union_all;
	int ncols;
	char **colnames;
	ty_oid *coltypes;
	int32_t *coltypmods;
	int id;                     /* executor slot of the materialised result */
	int refcount;
	bool materialized;          /* MATERIALIZED / data-modifying */
	bool dml;                   /* INSERT/UPDATE/DELETE ... [RETURNING]: runs once, to completion */
	int location;
};

typedef enum sql_cmd { SQL_CMD_SELECT = 1, SQL_CMD_INSERT, SQL_CMD_UPDATE, SQL_CMD_DELETE } sql_cmd;

typedef struct sql_onconflict {
	bool do_update;
	int narbiter;               /* conflict target columns (attnums), 0 = any */
	int16_t *arbiter;
	cat_oid arbiter_index;      /* ON CONSTRAINT / inferred index, 0 = primary key */
	bool arbiter_deferrable;    /* PostgreSQL refuses it when the INSERT runs (55000) */
	const char *arbiter_name;   /* its constraint (or index) name, for that error */
	util_errcode infer_errcode; /* no arbiter (42P10, 42809): thrown when the statement runs */
	const char *infer_error;
	int nset;
	int16_t *set_cols;          /* attnums assigned */
	sql_expr **set_exprs;       /* may reference EXCLUDED (rte excluded_rte) */
	sql_expr *where;
	int excluded_rte;
} sql_onconflict;

typedef enum sql_expr_ctx {
	SQL_EXPR_OTHER = 0,
	SQL_EXPR_WHERE,
	SQL_EXPR_JOIN_ON,
	SQL_EXPR_SELECT,
	SQL_EXPR_HAVING,
	SQL_EXPR_GROUP,
	SQL_EXPR_ORDER,
	SQL_EXPR_LIMIT,
	SQL_EXPR_OFFSET,
	SQL_EXPR_VALUES,
	SQL_EXPR_INSERT_VALUES,
	SQL_EXPR_UPDATE_SET,
	SQL_EXPR_RETURNING,
	SQL_EXPR_DEFAULT,
	SQL_EXPR_CHECK,
	SQL_EXPR_FROM_FUNCTION,
	SQL_EXPR_WINDOW,
	SQL_EXPR_INDEX,
	SQL_EXPR_CALL,
	SQL_EXPR_FILTER,
	SQL_EXPR_INDEX_PRED /* ON CONFLICT's inference WHERE */
} sql_expr_ctx;

/* Query-wide state shared by a statement and its subqueries. */
typedef struct sql_pstate {
	int nparams;
	ty_oid *param_types;        /* $n types, grown as $n are seen (TY_UNKNOWN until known) */
	int params_cap;
	int nexec_params;           /* EXECPARAM slots handed out */
	int ncache;                 /* executor cache slots (functions, sublinks) */
	int nctes;
	const char *text;           /* query text, for error positions */
	bool no_params;             /* DDL expressions: $n is 42P02, as in PostgreSQL's utility statements */
} sql_pstate;

struct sql_query {
	sql_cmd cmd;
	sql_pstate *ps;
	struct sql_query *parent;   /* enclosing query (for outer references) */
	int nrtes;
	sql_rte **rtes;             /* 1-based in Vars: rtes[var.rte - 1] */
	int nfrom;
	sql_jnode **from;
	sql_expr *where;
	int ntargets;
	sql_target *targets;
	int nret;                   /* non-junk targets */
	/* grouping and aggregation */
	int ngroup;
	sql_expr **group;
	int ngsets;                 /* grouping sets: each a list of group indexes */
	int **gsets;
	int *gset_len;
	bool has_aggs;
	int naggs;
	sql_aggref *aggs;
	sql_expr *having;
	/* windows */
	int nwinclauses;
	sql_window_clause *winclauses;
	int nwins;
	sql_winref *wins;
	bool has_srf;
	/* ordering, distinct, limit */
	int nsort;
	sql_sortkey *sort;
	bool distinct;
	int ndistinct_on;
	sql_expr **distinct_on;
	sql_expr *limit, *offset;
	bool limit_ties;
	/* set operations (cmd SELECT with setop != NULL: targets describe the result) */
	sql_setop *setop;
	/* CTEs visible in this query */
	int nctes;
	sql_cte **ctes;
	/* DML */
	int result_rte;             /* target table RTE (INSERT/UPDATE/DELETE) */
	int ninsert_cols;
	int16_t *insert_cols;       /* INSERT: attnum per source column */
	sql_query *source;          /* INSERT ... SELECT / VALUES */
	int nset;                   /* UPDATE: assignments */
	int16_t *set_cols;
	sql_expr **set_exprs;
	sql_onconflict *onconflict;
	int nreturning;
	sql_target *returning;
	bool overriding_system;
	/* INSERT/UPDATE through views WITH CHECK OPTION (sql_view_target):
	 * conditions over the target table a new row must meet */
	int nview_checks;
	sql_expr **view_checks;
	const char **view_check_names;
	/* ... and the views under the target view, outermost first: each
	 * owner's privileges on the next are checked, as PostgreSQL does */
	int nview_inner;
	const cat_obj **view_inner;
	/* locking */
	bool for_update;
	int lock_strength;        /* of the first locking clause (names the command) */
	/* analysis state (namespace of FROM items, current clause) */
	struct sql_nsitem *ns;
	int nns, ns_cap;
	sql_expr_ctx cur_ctx;
	int agg_depth;          /* > 0 while analyzing aggregate arguments */
	bool in_window;
	bool is_values;         /* a bare VALUES list */
};

typedef struct sql_nsitem {
	int rte;                /* 1-based */
	bool rel_visible;       /* referenceable by its alias */
	bool cols_visible;      /* columns visible to unqualified names */
	bool lateral_ok;
} sql_nsitem;

/* Calls fn on every expression tree that belongs to q itself (targets,
 * quals, grouping, sorting, aggregate and window arguments, FROM functions
 * and VALUES, join quals, DML lists); nested queries (RTE subqueries,
 * sublinks, set-operation leaves) are the caller's to visit. */
void sql_query_exprs(sql_query *q, void (*fn)(sql_expr **e, void *arg), void *arg);

/* ---------------------------------------------------------------- analysis */

typedef struct sql_actx {
	sql_session *s;
	cat_snap *cat;
	util_arena *arena;   /* where the query tree lives */
	sql_pstate *ps;
	/* The next sql_analyze_select is a set-operation leaf: its unknown
	 * literals stay unknown for the set operation to resolve. */
	bool setop_leaf;
	/* INSERT's own query while its VALUES/SELECT are analyzed: the target
	 * is not visible there, but a misspelled column's HINT suggests its
	 * columns (PostgreSQL searches the whole range table). */
	struct sql_query *hint_query;
} sql_actx;

/* Analyzes one statement (SELECT/INSERT/UPDATE/DELETE/VALUES). */
sql_query *sql_analyze(sql_actx *ax, pnode *stmt);
sql_query *sql_analyze_select(sql_actx *ax, PgQuery__SelectStmt *sel, sql_query *parent, sql_cte **ctes, int nctes);
/* Expression analysis inside a query; `what` names the clause for errors
 * ("WHERE", "JOIN/ON", ...). */


sql_expr *sql_transform_expr(sql_actx *ax, sql_query *q, pnode *n, sql_expr_ctx ctx);
sql_expr *sql_make_var(sql_query *q, int rte, int col, int levelsup, int location);
sql_query *sql_new_query(sql_actx *ax, sql_cmd cmd, sql_query *parent);
void sql_transform_targets(sql_actx *ax, sql_query *q, PgQuery__Node **list, size_t n, sql_expr_ctx ctx);
int sql_add_from_item(sql_actx *ax, sql_query *q, pnode *n, sql_jnode **out);
int sql_add_table_rte(sql_actx *ax, sql_query *q, const cat_obj *rel, const char *alias, sql_jnode **out);
void sql_add_namespace(sql_query *q, int rte, bool rel_visible, bool cols_visible);
/* DML on an automatically updatable view (PostgreSQL's rules for simple
 * views: one table or such view in FROM, no aggregation, DISTINCT, LIMIT,
 * set operations or WITH): adds the base table as the result RTE and the
 * view's columns (expressions over it) as the namespace item the statement
 * sees; *attnums gets the base column of each view column (0 when
 * computed), *where the view's condition. Throws 55000 otherwise. Returns
 * the result RTE; *base the table. */
typedef struct sql_view_target {
	const cat_obj *view, *base;
	int ncols;
	char **colnames;
	int16_t *attnums;
	sql_expr *where;
	int view_rte;
	/* WITH CHECK OPTION: conditions a new row must meet (over the base
	 * table), innermost view first, and the view each names */
	int nchecks;
	sql_expr **checks;
	const char **check_names;
	/* the views between view and base, outermost first (privileges) */
	int ninner;
	const cat_obj **inner;
} sql_view_target;
char sql_view_check_option(const cat_obj *view);
/* Why the analyzed view body vq is not automatically updatable itself
 * (PostgreSQL's DETAIL; the views it selects from are not checked), or
 * NULL if it is. */
const char *sql_view_not_updatable(const sql_query *vq);
int sql_add_view_target(sql_actx *ax, sql_query *q, const cat_obj *view, const char *alias, const char *verb,
			sql_view_target *vt);
void sql_add_query_target(sql_query *q, sql_expr *e, const char *name, bool junk);
const char *sql_figure_colname(pnode *n);
void sql_transform_with(sql_actx *ax, sql_query *q, PgQuery__WithClause *wc);
sql_expr *sql_column_default(sql_actx *ax, const cat_rel *r, int col);
/* The SET list of UPDATE and ON CONFLICT DO UPDATE (analyze_dml.c): fills
 * cols (attnums) and exprs, each with room for n; returns how many. verb:
 * "update" or "insert into", for a computed view column's error. */
int sql_analyze_set_list(sql_actx *ax, sql_query *q, const cat_rel *r, const sql_view_target *vt, PgQuery__Node **list,
			 size_t n, int16_t *cols, sql_expr **exprs, const char *verb);
/* INSERT's ON CONFLICT clause into q->onconflict (analyze_conflict.c). */
void sql_transform_onconflict(sql_actx *ax, sql_query *q, const cat_obj *rel, const sql_view_target *vt,
			      PgQuery__OnConflictClause *oc);
/* (expr).name on a record whose fields are known at analysis: a call of a
 * function with OUT columns, or a subquery column holding one. NULL if e
 * is not such a record or has no field of that name (analyze_field.c). */
sql_expr *sql_record_field(sql_query *q, sql_expr *e, const char *name);
/* name[i]: the i-th byte (0-based) as "char" (pg_dump writes typname[0]). */
sql_expr *sql_name_subscript(sql_actx *ax, sql_expr *name, sql_expr *index);
void sql_add_sortby(sql_actx *ax, sql_query *q, PgQuery__Node **items, size_t n, sql_sortkey **out, int *nout);
int sql_window_clause_for(sql_actx *ax, sql_query *q, PgQuery__WindowDef *wd);
/* Coercion (PostgreSQL's coerce_to_target_type and friends). */
typedef enum sql_coerce_ctx { SQL_COERCE_IMPLICIT = 0, SQL_COERCE_ASSIGNMENT, SQL_COERCE_EXPLICIT } sql_coerce_ctx;
bool sql_can_coerce(ty_oid from, ty_oid to, sql_coerce_ctx ctx);
sql_expr *sql_coerce(sql_actx *ax, sql_expr *e, ty_oid to, int32_t typmod, sql_coerce_ctx ctx, int location);
/* Coerces or fails with 42804 "argument of WHERE must be type boolean". */
sql_expr *sql_coerce_bool(sql_actx *ax, sql_expr *e, const char *what);
/* PostgreSQL's select_common_type for UNION/CASE/COALESCE/...; throws 42804. */
ty_oid sql_common_type(sql_expr **exprs, int n, const char *context, int *locations);
/* Operator / function resolution (PostgreSQL's rules). */
sql_expr *sql_make_op(sql_actx *ax, const char *opname, sql_expr *l, sql_expr *r, int location);
sql_expr *sql_make_func(sql_actx *ax, const char *name, sql_expr **args, int nargs, int location, bool variadic_call);
const ty_func *sql_find_cmp_op(const char *opname, ty_oid left, ty_oid right);
/* The type named by a TypeName node (with typmod); throws 42704. */
void sql_typename(sql_actx *ax, PgQuery__TypeName *tn, ty_oid *type, int32_t *typmod);
/* The location field of a raw parse node (-1 if it has none). */
int sql_raw_location(pnode *n);
/* Name of an operator/function node list ["pg_catalog", "+"] -> "+". */
const char *sql_last_name(PgQuery__Node **names, size_t n);
/* Relation lookup with search_path: throws 42P01 unless missing_ok. */
const cat_obj *sql_lookup_rel(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv, bool missing_ok);
const cat_obj *sql_lookup_rel_name(sql_session *s, cat_snap *cs, const char *schema, const char *name);
/* The schema for creating an object (explicit or first of search_path). */
cat_oid sql_creation_schema(sql_session *s, cat_snap *cs, const char *schema, int location);
const cat_obj *sql_lookup_schema(sql_session *s, cat_snap *cs, const char *name);
const char *sql_schema_name(cat_snap *cs, cat_oid oid);
/* First schema of the search path that exists (current_schema()), or NULL. */
const char *sql_current_schema_name(sql_session *s);
/* The schemas of the search path (pg_catalog first unless listed). */
int sql_search_path(sql_session *s, cat_snap *cs, cat_oid *out, int max);

/* Error helpers: throw with a cursor position (1-based character offset
 * computed from the byte location in the query text). */
UTIL_NORETURN void sql_error_at(sql_actx *ax, int location, util_errcode code, const char *fmt, ...)
	UTIL_PRINTF(4, 5);
int sql_errposition(const char *text, int location);

/* ---------------------------------------------------------------- plans */

typedef enum sql_plan_kind {
	SQL_P_RESULT = 1,   /* one row (or none: one-time filter) from no input */
	SQL_P_VALUES,
	SQL_P_SCAN,         /* table: full or key-range scan */
	SQL_P_INDEXSCAN,
	SQL_P_SYSSCAN,      /* generated catalog rows */
	SQL_P_FUNCSCAN,
	SQL_P_FILTER,
	SQL_P_PROJECT,
	SQL_P_NESTLOOP,
	SQL_P_HASHJOIN,
	SQL_P_AGG,
	SQL_P_SORT,
	SQL_P_LIMIT,
	SQL_P_UNIQUE,       /* DISTINCT / DISTINCT ON */
	SQL_P_SETOP,
	SQL_P_APPEND,
	SQL_P_WINDOW,
	SQL_P_MODIFY,
	SQL_P_CTESCAN,
	SQL_P_RECURSIVE,
	SQL_P_WORKTABLE,
	SQL_P_MATERIAL,
	SQL_P_PROJECTSET,   /* SRFs in the target list */
	SQL_P_LOCKROWS,
	SQL_P_FIRSTROW,     /* MIN/MAX on a key by one seek */
	SQL_P_CTEPREP,      /* runs the statement's data-modifying CTEs to completion, then its input */
	SQL_P_GROUPJOIN,    /* parent-child join inside entity groups (plan_order.c) */
	SQL_P_MERGEJOIN     /* join of two inputs ordered by the join keys (plan_merge.c) */
} sql_plan_kind;

/* A key range of a table or index scan: [lo, hi) on the encoded key, with
 * bounds computed at execution time from expressions (params fold in). */
typedef struct sql_keybound {
	int ncols;              /* key columns fixed (prefix) */
	sql_expr **vals;        /* values of the prefix columns */
	bool inclusive;
	bool infinite;          /* no bound */
} sql_keybound;

typedef struct sql_keyrange {
	int nfix;               /* leading key columns fixed by equality (or IN) */
	sql_keybound lo, hi;
	sql_expr *like;         /* LIKE pattern on key column nfix (text, ASC): its
				 * literal prefix narrows the range; the LIKE itself
				 * stays in the scan's filter */
	bool is_null_range;     /* IS NULL on the next key column */
} sql_keyrange;

typedef struct sql_agg_plan {
	int ngrouping;          /* GROUPING(...) outputs after the aggregates */
	sql_expr **grouping;
	int ngroup;
	sql_expr **group;       /* against input */
	int naggs;
	sql_aggref *aggs;       /* args against input */
	bool hashed;
	bool partial;           /* input is a parallel scan: aggregated per worker, merged (plan_order.c) */
	int ngsets;             /* grouping sets (ROLLUP/CUBE), 0 = plain */
	int **gsets;
	int *gset_len;
} sql_agg_plan;

struct sql_plan {
	sql_plan_kind kind;
	int id;                  /* index of the node's state in the executor */
	int ncols;               /* output row width */
	ty_oid *types;
	int32_t *typmods;
	sql_plan *left, *right;
	double rows;             /* estimated output rows */
	double cost;
	sql_expr *qual;          /* filter applied to output rows (scans, joins) */
	union {
		struct {
			sql_expr **exprs; /* RESULT: computed outputs (no input) */
			sql_expr *onetime; /* RESULT: constant filter */
		} result;
		struct {
			int nrows;
			sql_expr ***rows;
		} values;
		struct {
			const cat_obj *rel;
			cat_oid reloid;
			char storage[CAT_NAME_MAX];
			bool *needed;     /* per column (ncols of the table) */
			int nranges;      /* 0 = full scan */
			sql_keyrange *ranges;
			int npoint;       /* > 0: ranges fix the whole key (point lookups) */
			bool reverse;
			sql_expr *limit;  /* pushed-down LIMIT or NULL (plan_order.c) ... */
			sql_expr *limit_offset; /* ... plus this OFFSET: rows the scan reads at most */
			bool count_only;  /* count(*) without decoding values */
			bool ordered;     /* a consumer relies on key order (plan_order.c) */
			int parallel;     /* worker threads planned (0: none; plan_order.c) */
			int lock_strength, lock_wait;
			const struct sql_sysview *sysview;
			cat_oid index_oid; /* INDEXSCAN */
			bool index_only;
			sql_expr **index_cond; /* INDEXSCAN: recheck after lookup */
			const char *alias; /* the FROM alias (EXPLAIN) */
			const struct sql_ixscan *ixscan; /* INDEXSCAN: the index part (sql_index.h) */
			/* An interleaved child whose root key is not fixed: bounds on
			 * its key columns past the root's (nfix counts from there),
			 * applied to every kv row read as a qualifier range; the
			 * conditions stay in qual (docs/entity-groups.md). */
			sql_keyrange *slice;
		} scan;
		struct {
			int nfuncs;
			sql_expr **funcs;
			bool ordinality;
			const char *alias;   /* EXPLAIN: FROM alias and column names */
			char **colnames;
		} func;
		struct {
			sql_expr **exprs;
		} project;
		struct {
			sql_jointype type;
			sql_expr *joinqual;   /* join condition (against left ++ right) */
			int nkeys;            /* hash join keys */
			sql_expr **lkeys, **rkeys;
			const ty_type **keytypes;
			int nmerge;           /* MERGEJOIN: leading keys both inputs are ordered by */
			int nparams;          /* nestloop: params set from the left row */
			int *params;
			sql_expr **param_vals;
		} join;
		sql_agg_plan agg;
		struct {
			int nkeys;
			sql_sortkey *keys;   /* against input */
			sql_expr *limit;     /* top-N: keep limit + offset rows */
			sql_expr *offset;
		} sort;
		struct {
			sql_expr *limit, *offset;
			bool ties;
			int nsort;
			sql_sortkey *sort;
		} limit;
		struct {
			int nkeys;           /* DISTINCT ON: first nkeys columns; all when 0 */
			sql_expr **keys;
			bool hashed;
		} unique;
		struct {
			sql_setop_kind op;
			bool all;
		} setop;
		struct {
			int nchildren;
			sql_plan **children;
		} append;
		struct {
			sql_window_clause *clause;
			int nfuncs;
			sql_winref *funcs;   /* args against input */
			sql_expr **part;     /* against input */
			sql_sortkey *order;
		} window;
		struct {
			sql_cmd cmd;
			const cat_obj *rel;
			cat_oid reloid;
			int nnew;
			sql_expr **new_vals;   /* per table column, against the input row */
			int *old_slots;        /* UPDATE/DELETE: input slot of each old column */
			int key_slot;          /* UPDATE/DELETE: input slot of the row key */
			sql_expr **returning;  /* against (new/old row with key) ++ input */
			int nreturning;
			sql_onconflict *oc;
			sql_expr **oc_set;     /* against (existing row with key) ++ (excluded row with key) */
			sql_expr *oc_where;
			sql_expr **checks;     /* CHECK constraints against the new row (with key) */
			int nchecks;
			const char **check_names;
			sql_expr **vchecks; /* views' check options against the new row (with key) */
			int nvchecks;
			const char **vcheck_names;
			bool pk_changes;       /* UPDATE assigns a key column */
			sql_expr *epq_qual;    /* UPDATE/DELETE: the WHERE conjuncts on the target
						* alone, against the table row (with key); READ
						* COMMITTED rechecks them on a newer row version */
		} modify;
		struct {
			int cte;             /* CTESCAN/WORKTABLE: CTE id */
			const char *alias;   /* the name it is referenced by (EXPLAIN) */
			int nprep;           /* CTEPREP: the data-modifying CTEs */
			int *prep;
		} cte;
		struct {
			int nfuncs;          /* PROJECTSET */
			sql_expr **exprs;
		} pset;
		struct {
			const cat_obj *rel;
			char storage[CAT_NAME_MAX];
			bool max;
			int keycol;          /* FIRSTROW: which key column is aggregated */
			sql_keyrange range;
		} first;
		struct {
			const struct sql_plan *join;   /* the join it replaces (run when this
							* transaction has written either table) */
			const struct sql_plan *parent; /* scan of the root table */
			const struct sql_plan *child;  /* scan of a table interleaved in it */
			bool parent_left;              /* output: parent ++ child, else child ++ parent */
		} group;
	};
};

sql_plan *sql_plan_new(sql_plan_kind kind, int ncols);

typedef struct sql_planned {
	sql_plan *plan;
	int nnodes;               /* plan ids handed out */
	int nexec_params;
	int ncache;
	int nctes;
	sql_plan **cte_plans;
	sql_cte **ctes;
	bool returns_rows;
	sql_rowdesc desc;         /* result description (text formats) */
	sql_column *cols;
	sql_cmd cmd;
	bool read_only;
	sql_query *query;         /* what was planned (privilege checks at execution); NULL = internal */
	int lock_strength;        /* SELECT ... FOR ...: the first locking clause's */
} sql_planned;

sql_planned *sql_plan_query(sql_actx *ax, sql_query *q);
/* Plans a subquery inside the same statement (sublinks, CTEs). */
sql_plan *sql_plan_subquery(sql_actx *ax, sql_planned *top, sql_query *q);
/* plan_order.c: lets the primary-key order of scans replace sorts, take
 * LIMITs and answer MIN/MAX by first/last-row reads. */
void sql_plan_use_key_order(sql_planned *pd, sql_plan **root);
/* Hash joins whose inputs both come in the order of the join keys (primary
 * key order of the tables scanned) become merge joins (plan_merge.c). */
void sql_plan_merge_joins(sql_planned *pd, sql_plan **root);

/* ---------------------------------------------------------------- execution */

/* A batch of rows, row-major: vals[i * ncols + j]. By-reference datums point
 * into the batch arena or into longer-lived memory. */
typedef struct sql_batch {
	int n, cap, ncols;
	ty_datum *vals;
	util_arena *arena;
} sql_batch;

#define SQL_BATCH_ROWS 256

static inline ty_datum *sql_batch_row(sql_batch *b, int i) { return b->vals + (size_t)i * (size_t)b->ncols; }

/* An executor node (per execution of a plan node). next() returns a batch
 * with n > 0 rows, or n == 0 at the end; the batch is valid until the next
 * call. Errors are thrown. */
struct sql_op {
	const sql_plan *plan;
	sql_exec *ex;
	sql_op *left, *right;
	void (*open)(sql_op *op);
	sql_batch *(*next)(sql_op *op);
	void (*rescan)(sql_op *op);
	void (*close)(sql_op *op);
	sql_batch *out;
	void *state;
	bool opened, done;
	/* EXPLAIN ANALYZE */
	uint64_t rows_out;
	uint64_t loops;
	int64_t time_us;
};

typedef struct sql_cache_slot {
	void *fn_cache;           /* ty_fcinfo.cache for function calls */
	void *srf_state;
	bool valid;               /* uncorrelated sublink: value computed */
	ty_datum value;
} sql_cache_slot;

/* Per-execution state of a planned statement. */
struct sql_exec {
	sql_session *s;
	sql_planned *pl;
	util_arena *arena;        /* execution lifetime (portal) */
	sql_txn *txn;
	kv_ts read_ts;
	cat_snap *cat;
	int nparams;
	ty_datum *params;         /* $n values */
	ty_oid *param_types;
	ty_datum *exec_params;
	sql_cache_slot *cache;
	sql_op **ops;             /* by plan id */
	sql_op **cte_ops;
	struct sql_ctestore **ctes;
	uint64_t processed;       /* rows affected (DML) / returned */
	bool analyze;             /* EXPLAIN ANALYZE timing */
	size_t mem_used;          /* operator memory held now (sql_exec_account) */
	size_t max_mem;           /* its peak */
	util_arena *eval_arena;   /* scratch for expression evaluation, reset per batch */
	util_mem_account mem;     /* memory of its sorts, hash tables ... (qmem.c) */
};

/* qmem.c: a statement's sorts, hash tables, aggregates, set operations and
 * windows may use SQL_QUERY_MEM_FACTOR x work_mem together, then 53200.
 * sql_exec_charge() charges an operator's arena to its execution (call it
 * when creating the arena; the arena must be destroyed by the operator's
 * close, before the execution ends). */
#define SQL_QUERY_MEM_FACTOR 256
size_t sql_query_mem_limit(const sql_session *s);
void sql_exec_charge(sql_exec *ex, util_arena *a);

sql_exec *sql_exec_new(sql_session *s, sql_planned *pl, util_arena *arena, ty_datum *params, int nparams);
struct sql_cached_plan;
/* As sql_exec_new for a cached plan's execution: the privilege check's
 * outcome is remembered on cp (see priv_ok) and reused while it holds. */
sql_exec *sql_exec_new_cached(sql_session *s, struct sql_cached_plan *cp, util_arena *arena, ty_datum *params,
			      int nparams);
/* The privilege check (or its remembered outcome) and relation locks of
 * sql_exec_new_cached, without the executor (exec_point.c). */
void sql_exec_check_cached(sql_session *s, struct sql_cached_plan *cp);
sql_op *sql_exec_node(sql_exec *ex, const sql_plan *p);
sql_batch *sql_op_next(sql_op *op);
void sql_op_rescan(sql_op *op);
void sql_exec_close(sql_exec *ex);
void sql_exec_free_ctes(sql_exec *ex);
sql_batch *sql_batch_new(util_arena *a, int ncols, int cap);
/* Evaluates an expression against one input row. */
ty_datum sql_eval(sql_exec *ex, const sql_expr *e, const ty_datum *row);
bool sql_eval_qual(sql_exec *ex, const sql_expr *e, const ty_datum *row);
/* Runs a sublink's plan (correlated or not) and returns its value. */
ty_datum sql_eval_sublink(sql_exec *ex, const sql_expr *e, const ty_datum *row);

/* Operator memory (exec_spill.c). Operators spill at work_mem; what they
 * hold is accounted per statement, past sql_exec_mem_limit() it is 53200.
 * sql_exec_account: the operator holds `now` bytes (was *held). */
size_t sql_exec_work_mem(sql_exec *ex);
size_t sql_exec_mem_limit(sql_exec *ex);
void sql_exec_account(sql_exec *ex, size_t *held, size_t now);
/* Temporary row files (unlinked tmpfile()s). Rows of types for which
 * sql_spill_ok() is false (records) cannot be spilled. By-reference values
 * read back are allocated in the current arena. Errors throw 53100/58030. */
typedef struct sql_spill sql_spill;
bool sql_spill_ok(const ty_oid *types, int n);
sql_spill *sql_spill_new(void);                 /* caller frees with sql_spill_free */
void sql_spill_free(sql_spill *s);
void sql_spill_put(sql_spill *s, const ty_datum *row, const ty_oid *types, int n);
void sql_spill_rewind(sql_spill *s);            /* after writing, before reading */
bool sql_spill_get(sql_spill *s, ty_datum *row, int n); /* false at the end */
uint64_t sql_spill_rows(const sql_spill *s);
uint64_t sql_spill_bytes(const sql_spill *s);

/* Operator constructors (exec_*.c). */
sql_op *sql_op_result(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_values(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_scan(sql_exec *ex, const sql_plan *p);
/* Partial aggregation in parallel scans (exec_agg.c, exec_scan.c): when a
 * scan's workers start, each calls begin() once in its thread (state in the
 * worker's current arena, valid until its end()), rows() per batch of rows
 * that passed the filter (valid during the call), and end() once at the
 * end, which frees the worker's state and, when merge is true (the slice
 * was read to its end), first merges its groups into the consumer's (end()
 * takes its own lock). The scan then returns no rows. A scan that runs
 * serially ignores the sink and returns its rows as usual. */
typedef struct sql_par_sink {
	void *(*begin)(void *arg, sql_exec *wex);
	void (*rows)(void *ws, const ty_datum *rows, int n, int width);
	void (*end)(void *arg, void *ws, bool merge);
	void *arg;
} sql_par_sink;
/* Sets the sink of a scan operator before its first next(); sink must stay
 * valid until the scan is closed. */
void sql_scan_set_sink(sql_op *scan, const sql_par_sink *sink);
/* Stops and joins a scan's workers (idempotent): a sink's target may be
 * freed after this. */
void sql_scan_stop_workers(sql_op *scan);
/* Worker threads a scan operator has started so far (EXPLAIN ANALYZE). */
int sql_scan_workers_launched(sql_op *scan);
/* Salted tables (exec_salt.c): a scan of one bucket (salt = bucket + 1), of
 * point lookups each in its key's bucket (SQL_SALT_POINTS), of every
 * bucket's ranges in stored order (SQL_SALT_ALL: an unordered parallel
 * scan), or the workers of a parallel merge (SQL_SALT_STREAMS: one ordered
 * stream per bucket, read with sql_scan_stream_next); and the merge of the
 * nbuckets bucket scans in key order (or reverse key order). */
/* A scan whose rows must come in key order or its reverse (a consumer
 * relies on it, or a LIMIT is pushed into it). */
static inline bool sql_scan_needs_order(const sql_plan *p)
{
	return p->scan.ordered || p->scan.reverse || p->scan.limit;
}
#define SQL_SALT_POINTS (-1)
#define SQL_SALT_ALL (-2)
#define SQL_SALT_STREAMS (-3)
sql_op *sql_op_scan_salted(sql_exec *ex, const sql_plan *p, int salt);
sql_op *sql_op_salt_merge(sql_exec *ex, const sql_plan *p, int nbuckets);
/* A SQL_SALT_STREAMS scan, opened: true if its workers run (else nothing
 * was started and the caller reads the buckets itself). */
bool sql_scan_streams_open(sql_op *scan);
/* The next rows of bucket b of a running SQL_SALT_STREAMS scan, in scan
 * order; n == 0 once the bucket is done. Valid until the next call for the
 * same bucket. */
sql_batch *sql_scan_stream_next(sql_op *scan, int b);
/* Workers launched by a salted merge (exec_salt.c), 0 for other operators. */
int sql_salt_workers_launched(sql_op *op);
sql_op *sql_op_groupjoin(sql_exec *ex, const sql_plan *p);
/* A worker thread of a statement of s (parallel scans): the session's
 * settings and interrupt checks, read-only. */
void sql_session_enter_thread(sql_session *s);
sql_op *sql_op_filter(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_project(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_nestloop(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_hashjoin(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_mergejoin(sql_exec *ex, const sql_plan *p); /* exec_merge.c */
/* A copy of d (of type `type`) in the current arena that outlives the batch
 * it came in: records and arrays of records deeply (exec_copy.c). */
ty_datum sql_datum_copy(ty_datum d, ty_oid type);
sql_op *sql_op_agg(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_sort(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_limit(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_unique(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_setop(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_append(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_funcscan(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_modify(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_window(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_ctescan(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_recursive(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_cteprep(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_projectset(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_sysscan(sql_exec *ex, const sql_plan *p);
sql_op *sql_op_indexscan(sql_exec *ex, const sql_plan *p);  /* exec_index.c */
sql_op *sql_op_lookupjoin(sql_exec *ex, const sql_plan *p); /* exec_index.c */

/* ---------------------------------------------------------------- rows on the store */

/* Table layout on the store (rowcodec.c): row key = encoded primary key
 * (or hidden row id), family "d", qualifier = column id (2 bytes BE), the
 * sentinel cell (empty qualifier) marks that the row exists. */
#define SQL_FAMILY "d"

typedef struct sql_tabledef {
	const cat_rel *rel;
	cat_oid oid;
	kv_table *kv;             /* opened storage (reference held) */
	int ncols;
	ty_keycol *pkcols;        /* key column types/orders */
	int npk;
	bool hidden_rowid;
} sql_tabledef;

/* Opens (cached per statement) the kv table of a relation. */
kv_table *sql_open_storage(sql_session *s, const char *storage);
/* Encodes the primary key of a row (values indexed by attnum-1). */
/* Appends the row key of a row; 54000 past SQL_MAX_ROW_KEY bytes (then
 * *out is freed first: the error unwinds past the caller). */
void sql_row_key(const cat_rel *r, const ty_datum *vals, util_buf *out);
/* The primary key of a row as PostgreSQL's error details show it: column
 * names into *cols, values (text output, "null") into *vals_out, each
 * ", "-separated; the caller frees both buffers. */
void sql_row_key_describe(const cat_rel *r, const ty_datum *vals, util_buf *cols, util_buf *vals_out);
#define SQL_MAX_ROW_KEY 32000 /* below the store's 32767, leaving room for key successors */
/* Salted tables (rel->salt_buckets = N > 0): the row key is one bucket byte,
 * util_hash64(encoded key, SQL_SALT_SEED) % N, then the encoded key
 * (docs/key-encoding.md). Stable on disk: never change the seed. */
#define SQL_SALT_SEED 0x53414c54u /* "SALT" */
uint8_t sql_salt_bucket(const cat_rel *r, const uint8_t *key, size_t len);
/* Encodes one column value for storage / decodes it (type-specific). */
void sql_value_encode(ty_oid type, ty_datum v, util_buf *out);
ty_datum sql_value_decode(ty_oid type, const uint8_t *p, size_t n);
/* Column id -> column index of a relation (built once per scan). */
typedef struct sql_rowmap {
	int ncolids;
	int16_t *idx;
	const ty_type **types; /* per column (attnum-1): its type, looked up once */
} sql_rowmap;
/* sql_value_decode with the type already looked up. */
ty_datum sql_value_decode_t(const ty_type *t, ty_oid type, const uint8_t *p, size_t n);
void sql_rowmap_build(const cat_rel *r, util_arena *a, sql_rowmap *m);
/* Decodes a kv row (its cells, all of one row) into vals (attnum-1
 * indexed); NULL where absent. Returns false if the row has no sentinel
 * (does not exist). Values are copied into the current arena. */
bool sql_row_decode(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n, const bool *needed,
		    ty_datum *vals);
/* sql_row_decode without the key columns: only those stored in cells (the
 * point read decodes just the key columns it needs, often none). */
bool sql_row_decode_cells(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n,
			  const bool *needed, ty_datum *vals);
/* False for primary-key columns stored only in the row key. */
bool sql_column_in_cells(const cat_rel *r, const cat_column *c);
/* Decodes the key columns from a row key into vals (for lossless types). */
void sql_key_decode(const cat_rel *r, const uint8_t *key, size_t len, ty_datum *vals);
/* Entity groups: a child row's key is its root's kv row key, then per
 * level SQL_ILV_SEP, the table tag (2 bytes) and that level's key columns;
 * the part after the kv row key prefixes the row's cell qualifiers. */
#define SQL_ILV_SEP 0xFF
/* Interleaved rows live in their own column family of the root's kv table,
 * so reads of the root alone never touch them ("i" sorts after "d": a
 * group's parent cells come first). */
#define SQL_ILV_FAMILY "i"
/* Length of the kv row key within an (interleaved) row key. */
size_t sql_ilv_rowlen(const cat_rel *r, const uint8_t *key, size_t klen);
/* interleave.c. CREATE TABLE: if the table has interleave_in_parent, makes
 * it a child (storage, key path, tags; updates parent and root) and returns
 * true (no storage of its own to create). */
bool sql_ilv_create(sql_session *s, cat_txn *ct, cat_obj *o);
/* stats.c: ANALYZE (a statement, or one relation), and what the planner
 * asks of the statistics: the fraction of rows below v in a column, the
 * number of distinct values (-1 when unknown: never analyzed). */
void sql_analyze_stmt(sql_session *s, PgQuery__VacuumStmt *vs);
/* autoanalyze.c: the background worker; note() after a commit that wrote
 * rows_written rows of table queues it when that is a big change. */
typedef struct sql_autoanalyze sql_autoanalyze;
sql_autoanalyze *sql_autoanalyze_start(sql_engine *e);
void sql_autoanalyze_stop(sql_autoanalyze *a);
void sql_autoanalyze_note(sql_session *s, const cat_snap *cs, cat_oid table, size_t rows_written);
void sql_analyze_rel(sql_session *s, const cat_obj *o);
double sql_stats_fraction_below(sql_session *s, const cat_obj *rel, int attnum, ty_datum v, bool inclusive);
double sql_stats_ndistinct(sql_session *s, const cat_obj *rel, int attnum);
/* ANALYZE's average width of a column in bytes, -1 if not known. */
int sql_stats_avg_width(sql_session *s, const cat_obj *rel, int attnum);
/* At commit of DDL: every interleaved table still has its parent (else
 * 2BP01); a storage still named by a relation is not dropped. */
void sql_ilv_check_catalog(cat_snap *before, cat_snap *after);
bool sql_ilv_storage_in_use(cat_snap *cs, const char *storage);
/* True when a cell qualifier (interleaved family) is one of child table
 * r's own cells: its rows' prefix, then nothing (the sentinel) or a column
 * id — not a descendant's or another table's cell. */
bool sql_ilv_own_cell(const cat_rel *r, const uint8_t *q, size_t n);
/* The length of the row prefix of such a cell (0: not one of r's own). */
size_t sql_ilv_row_prefix(const cat_rel *r, const uint8_t *q, size_t n);
/* Writes: a child row needs its parent row (23503; locks the parent FOR KEY
 * SHARE); a parent row with rows of a child table that is not
 * interleave_on_delete = 'cascade' cannot be deleted (23503). */
void sql_ilv_check_parent(sql_txn *t, const cat_snap *cs, kv_table *kv, const cat_obj *rel, const ty_datum *vals,
			  util_buf *last); /* last: the statement's last parent found (or NULL) */
void sql_ilv_check_delete(sql_txn *t, const cat_snap *cs, kv_table *kv, const cat_obj *rel, const uint8_t *key,
			  size_t klen, const ty_datum *vals);
/* Reads the cells of one row of table r by its key (interleaved or not):
 * *qpre_len gets the length of the row's qualifier prefix. */
kv_status sql_row_get(kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen, const kv_read_opts *ro,
		      util_arena *a, kv_row *out, size_t *qpre_len);
/* interleave.c: reads one row by its key as a plain table's row: for an
 * interleaved child, its own cells with row = key, family SQL_FAMILY and
 * the row's qualifier prefix removed (ro's columns are ignored then), so
 * code written for one row per kv row (indexes) reads it unchanged; else
 * kv_get. Cells in arena a. */
kv_status sql_row_get_plain(kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen,
			    const kv_read_opts *ro, util_arena *a, kv_row *out);
/* Rewrites the cells of one child row (qualifier prefix length qpre) in
 * place as sql_row_get_plain returns them; key must outlive the cells. */
void sql_ilv_plain_cells(const uint8_t *key, size_t klen, size_t qpre, kv_row *row);
/* Decodes a row read with sql_row_get (cells of that row only; key = the
 * row's key); false if the row does not exist. */
bool sql_row_decode_in(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n, size_t qpre,
		       const uint8_t *key, size_t klen, const bool *needed, ty_datum *vals);
/* Only the key columns with needed[attnum-1] (NULL: all). */
void sql_key_decode_needed(const cat_rel *r, const uint8_t *key, size_t len, const bool *needed, ty_datum *vals);
/* sql_key_decode_needed with the column types from m (sql_rowmap_build of r):
 * for scans, which decode many keys. m NULL: looked up per call. */
void sql_key_decode_map(const cat_rel *r, const sql_rowmap *m, const uint8_t *key, size_t len,
			const bool *needed, ty_datum *vals);
static inline void sql_colid_qual(uint16_t id, uint8_t q[2]) { q[0] = (uint8_t)(id >> 8), q[1] = (uint8_t)id; }

/* rowpack.c: packed rows (docs/row-format.md, "Packed rows"). A table with
 * rel->packed keeps a row's non-key, non-NULL values in its sentinel cell:
 * the values, then per value its column id (2 bytes) and end offset (2 or
 * 4 bytes, big-endian), then the count (2 bytes) and a tag byte (the
 * offsets' width). A row without such values has an empty sentinel, as in
 * the cells format, so readers take both: a sentinel's non-empty value is
 * a packed row. */
#define SQL_PACK_TAG_W2 0x01
#define SQL_PACK_TAG_W4 0x02
#define SQL_PACK_TAIL   3 /* count + tag */
#define SQL_PACK_INLINE 64
/* Builds one packed value in out: append a value's encoding to out, then
 * mark its column id; end appends the trailer. Frees what it allocated at
 * end (call it, also for a row with no values). */
typedef struct sql_packer {
	util_buf *out;
	size_t base;
	int n, cap;
	uint16_t *ids;
	uint32_t *ends;
	uint16_t ids0[SQL_PACK_INLINE];
	uint32_t ends0[SQL_PACK_INLINE];
} sql_packer;
void sql_packer_begin(sql_packer *p, util_buf *out);
void sql_packer_mark(sql_packer *p, uint16_t col_id);
void sql_packer_end(sql_packer *p);
/* Appends the packed value of a row (values indexed by attnum-1, the first
 * nvals of them; the columns stored as cells in the cells format). */
void sql_row_pack(const cat_rel *r, const ty_datum *vals, int nvals, util_buf *out);
/* A packed value opened for reading (borrows the bytes; XX001 if malformed). */
typedef struct sql_packed {
	const uint8_t *vals, *ids, *ends;
	size_t vlen;
	int n;
	bool wide;
} sql_packed;
void sql_packed_open(sql_packed *pk, const uint8_t *v, size_t n);
static inline size_t sql_packed_end(const sql_packed *pk, int i)
{
	const uint8_t *e = pk->ends + (size_t)i * (pk->wide ? 4 : 2);
	return pk->wide ? util_get_be32(e) : util_get_be16(e);
}
/* The i-th value (false past the last); its bytes borrowed. */
bool sql_packed_value(const sql_packed *pk, int i, uint16_t *col_id, const uint8_t **v, size_t *len);
/* The value of one column id (false: NULL or not stored), not decoding others. */
bool sql_packed_find(const sql_packed *pk, uint16_t col_id, const uint8_t **v, size_t *len);
/* Calls fn for each value of a packed sentinel's value v, in order. */
typedef void (*sql_packed_fn)(void *arg, uint16_t col_id, const uint8_t *v, size_t len);
void sql_packed_each(const kv_slice *v, sql_packed_fn fn, void *arg);

/* rowput.c: one row's cells gathered for kv_batch_put_row (the sentinel
 * first, then columns by ascending id), so a streaming batch takes the row
 * with one order check and one key encoding. Reused row after row; owns
 * its arrays and the encoded values until sql_rowput_free. */
typedef struct sql_rowput {
	kv_put_cell *cells;
	uint8_t (*quals)[2];
	size_t *off; /* encoded values: offset in vals (SIZE_MAX: the sentinel) */
	int n, cap;
	util_buf vals;
	bool packed;  /* set by the owner: rows of a packed table (one cell, rowpack.c) */
	bool packing; /* a packed row begun: its values are in vals, pk marks them */
	sql_packer pk;
} sql_rowput;
void sql_rowput_begin(sql_rowput *rp); /* forgets the last row; adds the sentinel */
/* A column's value, encoded into rp. */
void sql_rowput_encode(sql_rowput *rp, uint16_t col_id, ty_oid type, ty_datum v);
/* A column's value already encoded (copied). */
void sql_rowput_raw(sql_rowput *rp, uint16_t col_id, const uint8_t *v, size_t vl);
/* A row's cells (the columns kept in cells, not NULL, by column order)
 * encoded and appended to out in a packed form, and that form taken back
 * as the row's cells (borrowed: p must last until sql_rowput_write). A
 * direct COPY packs on its parse workers (copy.c). For a packed table the
 * form is the sentinel's value (rowpack.c; unpack: rp->packed set). */
void sql_rowput_pack(const cat_rel *r, const ty_datum *vals, util_buf *out);
void sql_rowput_unpack(sql_rowput *rp, const uint8_t *p, size_t n);
void sql_rowput_write(sql_rowput *rp, kv_batch *b, kv_table *t, const uint8_t *key, size_t kl, kv_ts ts);
void sql_rowput_free(sql_rowput *rp);

/* ---------------------------------------------------------------- transactions */

/* A pending write to one row in a transaction: the row's state as this
 * transaction will commit it. */
typedef struct sql_wrow {
	cat_oid table;
	kv_table *kv;
	uint8_t *key;
	size_t keylen;
	bool deleted;             /* the committed row is deleted ... */
	bool present;             /* ... and/or the row exists with the values in cols */
	bool inserted;            /* cols is the whole row (insert, or insert after delete) */
	int ncols;
	ty_datum *cols;           /* value per column (attnum-1) */
	bool *set;                /* updates: which cols were written */
	int cid;                  /* statement that last wrote it */
	bool dead;                /* created after a savepoint that was rolled back */
	bool in_seg;              /* held by a table's sorted segment (txn_seg.h), not the writes map */
	kv_ts base_ts;            /* read timestamp of the version the first change was based on
				     (checked at commit on a shared store, READ COMMITTED) */
	struct sql_wrow *prev;    /* state as of the previous statement, if it differs */
	struct sql_wrow *next_in_table;
} sql_wrow;

struct sql_txn {
	sql_session *s;
	util_arena *arena;        /* transaction lifetime */
	util_mem_account mem;     /* arena's bytes, checked against the memory budget (txn.c) */
	kv_ts snapshot_ts;        /* REPEATABLE READ: fixed; READ COMMITTED: per statement */
	kv_ts stmt_ts;
	bool snapshot_taken;      /* REPEATABLE READ: at the first statement, as PostgreSQL */
	bool pinned;              /* pin_ts is pinned in the store (kv_snapshot_acquire), so
				   compactions keep what the snapshot reads */
	kv_ts pin_ts;
	bool begin_pin;           /* pin_ts was taken by sql_txn_begin (shared store) and not used yet */
	bool export_pinned;       /* export_pin is pinned for an exported READ COMMITTED snapshot */
	kv_ts export_pin;
	sql_isolation iso;
	bool read_only;
	bool explicit_block;
	int cid;                  /* current statement number */
	util_map writes;          /* (table oid ++ key) -> sql_wrow* */
	util_map tables;          /* table oid -> per-table write list (for scans) */
	size_t nwrites;
	size_t nseg_rows;         /* of them in tables' sorted segments (sql_txn_insert_sorted) */
	cat_txn *ddl;             /* catalog changes, when DDL ran */
	bool ddl_locked;
	uint32_t xid;             /* pg_locks' transaction id, from the first write lock (txn_lock.c) */
	uint32_t claim_gen;       /* blocks of unique values claimed by COPY (index_write.c), for savepoints */
	int nlocks;               /* row locks held */
	struct sql_rowlock **locks; /* locks_inline until more are held */
	struct sql_xlock *xlocks;   /* shared store: rows locked, checked at commit (txn.c) */
	int locks_cap;
	struct sql_rowlock *locks_inline[4];
	struct sql_lock_up *lock_ups; /* modes strengthened under savepoints (txn_lock.c) */
	int nlock_ups, lock_ups_cap;
	kv_table **dropped;       /* storages to drop after commit */
	char **drop_after_commit;
	int ndrop;
	char **drop_on_abort;     /* storages created by this txn */
	int nabort;
	struct sql_savepoint *savepoints; /* innermost first */
	struct sql_sp_arenas *sp_kept; /* arenas of released savepoints' writes (txn_savepoint.c) */
	struct sql_undo *undo;    /* row states before changes, while savepoints exist */
	kv_batch *bulk;           /* autocommit COPY: rows written straight into the commit batch */
	struct sql_fk_txn *fk;    /* deferred foreign-key checks, SET CONSTRAINTS (fk.c) */
	struct sql_txn_ix *ix;    /* secondary indexes: unique-key claims, compiled sets (index_write.c) */
	cat_oid bulk_table;       /* ... into this table */
	size_t bulk_rows;
	kv_table **kvrefs;        /* a reference to each kv table the write buffer points to, */
	int nkvrefs, kvrefs_cap;  /* so a concurrent DROP/TRUNCATE cannot free one (txn.c) */
	size_t nundo, undo_cap;
	int64_t start_us;
	struct sql_readset *reads; /* SERIALIZABLE: key ranges read (txn_serial.c) */
};

/* Bulk writes into storage private to a transaction (COPY after CREATE or
 * TRUNCATE, ALTER TABLE's rewrite into a new storage) on a store shared by
 * several servers go in batches of at most this many cells: each batch is
 * one etcd transaction, which with a row marker per row stays well within
 * the documented --max-txn-ops 10000 and --max-request-bytes. */
#define SQL_SHARED_BATCH_CELLS 4000

/* Savepoints (txn_savepoint.c): called before a row write is applied. */
void sql_txn_undo_record(sql_txn *t, sql_wrow *w, bool created);
/* Where the write buffer's rows and values go: the innermost savepoint's
 * own arena (given back by ROLLBACK TO), else the transaction's. */
util_arena *sql_txn_write_arena(sql_txn *t);
/* Frees the savepoints' arenas; before the transaction's arena. */
void sql_savepoints_free(sql_txn *t);
/* Unlinks the table's rows marked dead (those created after a savepoint
 * rolled back to: the tail of its write list) from the write buffer; they
 * are freed with their savepoint's arena. */
void sql_txn_forget_dead(sql_txn *t, cat_oid table);
/* The row's first change (by the current statement) was based on the
 * version read at ts, not at the statement's snapshot (EvalPlanQual on a
 * shared store). */
void sql_txn_rebase(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, kv_ts ts);

sql_txn *sql_txn_begin(sql_session *s, sql_isolation iso, bool read_only, bool explicit_block);
/* Commits: writes the buffered rows (and catalog changes) as one batch. */
int sql_txn_commit(sql_txn *t, util_err *err);
void sql_txn_abort(sql_txn *t);
/* Starts a statement inside the transaction: a new snapshot for READ
 * COMMITTED, a new command id. */
void sql_txn_stmt_begin(sql_txn *t);
kv_ts sql_txn_read_ts(sql_txn *t);
/* pg_export_snapshot() / SET TRANSACTION SNAPSHOT (txn.c): the identifier of
 * this transaction's snapshot, valid while it runs; importing one makes a
 * REPEATABLE READ or SERIALIZABLE transaction read at the same timestamp. */
const char *sql_txn_export_snapshot(sql_txn *t);
void sql_txn_import_snapshot(sql_txn *t, const char *id);
/* After a row lock is granted: true if another transaction committed a
 * change to the row (insert, update or delete) after the statement's
 * snapshot, i.e. the version the statement read is not the newest. */
bool sql_txn_row_changed(sql_txn *t, kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen);
/* Throws 40001 as PostgreSQL does when a REPEATABLE READ or SERIALIZABLE
 * transaction finds its target row changed after its snapshot. */
UTIL_NORETURN void sql_txn_serialization_failure(bool deleted);
/* Row writes (values indexed by attnum-1). */
sql_wrow *sql_txn_put_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
			  const ty_datum *vals, const bool *set, bool insert, bool exists_before);
void sql_txn_delete_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen);
/* A new row for sql_txn_insert_sorted(). */
typedef struct sql_newrow {
	const uint8_t *key;
	size_t klen;
	const ty_datum *vals; /* ncols values, indexed by attnum-1 */
	bool pending;         /* the key has a pending write (sql_txn_find_write): insert in place */
} sql_newrow;
/* Inserts n new rows of rel whose keys ascend, are distinct and are not
 * present (the caller checked: a bulk load's block), as one sorted segment
 * of the write set instead of a hash entry each (txn_seg.h); a row marked
 * pending (a delete, or a write a ROLLBACK TO undid) is inserted in place. Values are copied; lookups, scans, updates, deletes,
 * savepoints and the commit treat the rows as any other pending write. */
void sql_txn_insert_sorted(sql_txn *t, const cat_obj *rel, kv_table *kv, const sql_newrow *rows, size_t n);
/* Merges the table's segments into one (the commit does anyway): after a
 * COPY, so that later lookups of its rows (foreign-key checks of a next
 * COPY, point reads) search one array. */
void sql_txn_compact_segments(sql_txn *t, cat_oid table);
/* The key set of the table's segments (made on first use; valid until
 * the transaction ends). */
struct sql_keyset *sql_txn_keyset(sql_txn *t, cat_oid table);
/* The row's pending write, even one a ROLLBACK TO undid (dead), or NULL. */
sql_wrow *sql_txn_find_write(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen);
/* The pending write of a row visible to the current statement, or NULL. */
sql_wrow *sql_txn_lookup(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, bool visible_only);
/* Pending writes of a table in key order (for scans), visible to the
 * current statement; the array is allocated in arena. */
sql_wrow **sql_txn_table_writes(sql_txn *t, cat_oid table, util_arena *arena, int *n);
/* ALTER TABLE: the table's pending writes grow to ncols columns, or (forget)
 * are discarded because their rows were copied into a new storage. */
void sql_txn_table_reshape(sql_txn *t, cat_oid table, int ncols, bool forget);
/* Catalog change set of the transaction (DDL lock taken on first use). */
cat_txn *sql_txn_ddl(sql_txn *t);
void sql_txn_drop_storage_after_commit(sql_txn *t, const char *storage);
void sql_txn_drop_storage_on_abort(sql_txn *t, const char *storage);
/* True if the storage was created by this transaction (CREATE TABLE,
 * TRUNCATE, rewrites): no other transaction can see or write it yet. */
bool sql_txn_storage_private(const sql_txn *t, const char *storage);
/* Row lock (lock manager in txn_lock.c); throws 55P03/40P01/57014. */
void sql_txn_lock_row(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, int strength, int wait_policy,
		      bool *skipped);
void sql_txn_unlock_all(sql_txn *t);
/* Savepoints: a mark of the row locks t holds (and their modes) now, and
 * giving back the locks taken or strengthened since a mark, as PostgreSQL
 * does for its aborted subtransaction's locks (ROLLBACK TO). */
typedef struct sql_lock_mark {
	int nlocks, nups;
	uint32_t claim_gen; /* unique values claimed by COPY blocks (index_write.c) */
} sql_lock_mark;
sql_lock_mark sql_txn_lock_mark(const sql_txn *t);
void sql_txn_unlock_since(sql_txn *t, sql_lock_mark m);
/* Key sets (txn_lock.c): a COPY in a transaction block locks the keys it
 * inserts without a row lock each. The transaction registers the table's
 * set of bulk-inserted keys (its write-set segments, txn_seg.h, plus the
 * block being checked), and a transaction that locks one of those keys
 * waits for it as for a FOR UPDATE row lock (deadlocks found as for row
 * locks). Created by txn.c per table (sql_txn_keyset), freed when the
 * transaction ends, after its commit is applied: waiters then see the rows. */
typedef struct sql_keyset sql_keyset;
struct sql_wseg_set;
/* Registers segs (owned by t, which must hold sql_keyset_write_lock()
 * while changing them); caller frees with sql_keyset_free(). */
sql_keyset *sql_keyset_new(sql_txn *t, cat_oid table, struct sql_wseg_set *segs);
/* The same for the unique values t's COPY blocks claimed in an index
 * (txn_vset.h; table = the index's oid): a transaction that locks one of
 * them (sql_txn_lock_row with the index as table, as a unique check does)
 * waits for t. ROLLBACK TO gives back the values claimed after the
 * savepoint (sql_txn_unlock_since, by claim_gen). */
struct sql_vset;
sql_keyset *sql_keyset_new_values(sql_txn *t, cat_oid index, struct sql_vset *vals);
void sql_keyset_free(sql_keyset *ks);
void sql_keyset_write_lock(sql_keyset *ks);
void sql_keyset_write_unlock(sql_keyset *ks);
/* Locks the distinct keys of a block (ascending): true if none is locked
 * by another transaction (row lock or key set); they then count as locked
 * by the owner until the next call or the end of the transaction (the
 * rows go into segs meanwhile). False: nothing was locked, the caller
 * locks each key with sql_txn_lock_row() (which waits). */
bool sql_keyset_lock_block(sql_keyset *ks, const kv_slice *keys, size_t n);
/* Frees the lock map's entries (idle relation locks stay cached) and the map; at engine close. */
void sql_txn_locks_free(sql_engine *e);
/* On a store shared by several servers (whose lock managers do not see
 * each other): records that the transaction locked the row, having read
 * the version current at base_ts. A writing transaction's commit then
 * checks the row unchanged since base_ts (40001 otherwise) and, for FOR
 * UPDATE / FOR NO KEY UPDATE, counts as a change of the row for other
 * servers' commits (kv_batch_lock_row). No-op on the embedded store. */
/* strength SQL_LOCK_PARENT_KEY: FOR KEY SHARE of a foreign key's parent
 * found by its whole primary key (the kv row): the commit needs the row to
 * exist only (changes of its other columns do not conflict). */
#define SQL_LOCK_PARENT_KEY (-1)
/* strength SQL_LOCK_GUARD_SHARES: the transaction changes a referenced
 * unique non-key column of the row; the commit fails if another server
 * share-locked the row (a new child) after the version the change is based
 * on (kv_batch_guard_shares). */
#define SQL_LOCK_GUARD_SHARES (-2)
void sql_txn_note_lock(sql_txn *t, kv_table *kv, cat_oid table, const uint8_t *key, size_t klen, int strength,
		       kv_ts base_ts);
/* One pg_locks row of the lock manager (sql_locks_report). */
typedef struct sql_lock_row {
	const char *locktype; /* "relation" or "transactionid" */
	cat_oid relation;     /* relation: the table */
	uint32_t xid;         /* transactionid: the transaction's id */
	int32_t pid;          /* the session holding or waiting */
	const char *mode;     /* PostgreSQL's lock mode name */
	bool granted;
} sql_lock_row;
/* pg_locks, as PostgreSQL shows them: per transaction its relation locks
 * and, once it has written (locked a row, bulk-inserted a key set, taken
 * a relation exclusively), its transaction id (ExclusiveLock); a waiter's
 * lock as not granted: ShareLock on the id of the transaction it waits
 * for (a row, key set or unique value), or the relation lock it waits
 * for. Row locks themselves are not listed (PostgreSQL keeps them in the
 * tuples). Calls fn under the lock manager's mutex. */
void sql_locks_report(sql_engine *e, void (*fn)(void *arg, const sql_lock_row *r), void *arg);
/* SERIALIZABLE (txn_serial.c): records a key range [start, stop) (stop NULL
 * = to the end; point: the single key start) read from a kv table. */
void sql_txn_note_read(sql_txn *t, const char *storage, const uint8_t *start, size_t slen, const uint8_t *stop,
		       size_t stlen, bool point);
/* Whether reads of this transaction must be recorded. */
static inline bool sql_txn_tracks_reads(const sql_txn *t)
{
	return t && t->iso == SQL_SERIALIZABLE && !t->read_only;
}
/* At commit of a writing SERIALIZABLE transaction, with engine->serial_mu
 * held: KV_CONFLICT if a write committed after the snapshot touches a
 * range the transaction read. */
kv_status sql_txn_validate_reads(sql_txn *t);
/* Rows a COPY wrote straight into storage private to the transaction
 * (copy.c): counted for the statistics refresh after commit. */
void sql_txn_note_direct_rows(sql_txn *t, cat_oid table, uint64_t rows);
/* Bulk load: encodes a new row straight into the commit batch (no read-your-
 * writes; only for a single-statement transaction). */
void sql_txn_bulk_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
		      const ty_datum *vals);
/* The same, the row's data cells only (its index entries: the caller, with
 * sql_index_bulk_rows()). */
void sql_txn_bulk_row_data(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
			   const ty_datum *vals);
/* Declares that the bulk rows to come arrive as ascending chunks (a sorted
 * COPY flush, then each index's sorted entries): each chunk streams into
 * its own sorted run file (kv_batch_sorted_runs). */
void sql_txn_bulk_sorted_runs(sql_txn *t);
void sql_cursors_at_commit(sql_session *s);

/* ---------------------------------------------------------------- statements */

/* An analyzed and planned statement for one catalog snapshot; shared by a
 * prepared statement and the portals running it (reference counted). */
typedef struct sql_cached_plan {
	int refs;
	util_arena *arena;        /* holds query and plan */
	cat_snap *cat;            /* the catalog it was made for (reference) */
	sql_query *query;
	sql_planned *planned;
	/* The privilege check passed for priv_user against cat (outside DDL
	 * transactions, whose snapshot changes in place): later executions
	 * only lock priv_rels (sql_exec_new_cached). */
	bool priv_ok;
	cat_oid priv_user;
	int priv_nrels;
	cat_oid *priv_rels; /* in arena */
	/* A primary-key point select read without the executor
	 * (exec_point.c): 0 not looked at yet, 1 it is one, -1 not. */
	int8_t point_state;
	struct sql_point *point; /* in arena, with point_state 1 */
} sql_cached_plan;

/* exec_point.c: a cached plan that is `SELECT columns FROM t WHERE pk =
 * $n` (every key column; parameters or constants) run as one kv_get.
 * sql_point_of gives its description, or NULL when the plan is not one or
 * this execution must take the executor path (the transaction has writes
 * or DDL, strata.read_as_of). sql_point_read reads the row and returns its
 * output columns (allocated in the current arena), or NULL if there is no
 * such row; the caller has checked privileges and taken the relation locks
 * (sql_exec_check_cached). Errors are thrown (ty_error). */
typedef struct sql_point sql_point;
const sql_point *sql_point_of(sql_session *s, sql_cached_plan *cp);
ty_datum *sql_point_read(sql_session *s, const sql_point *pt, const ty_datum *params, int nparams);

struct sql_prepared {
	int refs;
	char *name;
	util_arena *arena;
	char *text;               /* this statement's text */
	const char *full_text;    /* the text parse locations refer to */
	PgQuery__ParseResult *parse; /* owns the raw tree (protobuf-c allocation) */
	pnode *raw;               /* the statement (NULL: empty query) */
	int stmt_location;
	int nparams;
	ty_oid *param_types;
	bool types_fixed;
	bool is_utility;
	sql_cached_plan *cp;      /* current plan (non-utility) */
	int64_t prepare_time_us;  /* pg_prepared_statements.prepare_time (µs since the Unix epoch) */
	bool from_sql;            /* made by PREPARE, not by the protocol's Parse */
	ty_datum *lit_params;     /* simple query served by litcache.c: its constants */
	int nlit_params;
	/* The result's shape when first planned (in arena): a plan rebuilt
	 * after a catalog change must keep it (PostgreSQL's "cached plan must
	 * not change result type"). */
	bool res_track; /* a prepared statement (not a simple query's) */
	bool res_known, res_rows;
	int res_ncols;
	sql_column *res_cols;
};

struct sql_portal_s {
	char *name;
	util_arena *arena;
	sql_prepared *stmt;       /* reference held when owns_stmt */
	bool owns_stmt;
	sql_cached_plan *cp;      /* plan being executed (reference) */
	ty_datum *params;
	int nparams;
	int16_t *result_formats;
	int nresult_formats;
	const int16_t *formats;   /* per output column, NULL = text */
	sql_exec *ex;             /* started on first Execute */
	sql_op *root;
	sql_batch *pending;       /* rows fetched but not yet sent */
	int pending_pos;
	bool done;
	bool exhausted;           /* ran to completion */
	bool holdable;            /* cursor WITH HOLD (materialised at commit) */
	bool is_cursor;
	bool scroll;
	uint64_t nsent;
	/* materialised results (held cursors, scrollable cursors) */
	util_arena *mat_arena;
	int mat_n, mat_cap, mat_cols;
	ty_datum *mat;
	int64_t mat_pos;
	sql_rowdesc desc;
	sql_column *cols;
	char tag[64];
};

/* Statement execution (stmt.c). */
void sql_cached_plan_release(sql_cached_plan *cp);
/* A prepared statement's plan, built now if it is not (its planning errors
 * are raised here); the caller releases it. */
sql_cached_plan *sql_prepared_plan(sql_session *s, sql_prepared *p);
int sql_stmt_run(sql_session *s, sql_prepared *ps, sql_portal_s *portal, sql_dest *dest, int64_t max_rows,
		 sql_complete *c, util_err *err);
/* Analyzes and plans an already parsed statement (as Parse does). On success
 * the statement takes ownership of pr; on failure (NULL, *err set) the
 * caller keeps it. */
sql_prepared *sql_prepare_tree(sql_session *s, const char *name, const char *query, PgQuery__ParseResult *pr,
			       int nparams, const uint32_t *param_types, util_err *err);

/* The statement and portal a FunctionCall runs as (fastpath.c): a name no
 * client is expected to use. Its Bind errors read as PostgreSQL's fastpath
 * reports them (stmt.c). */
#define SQL_FASTPATH_NAME "\x01strata_fastpath"

/* The simple-query literal cache (litcache.c): statements that differ from
 * an earlier one only in integer constants compared with columns run its
 * plan with those constants as parameters, skipping parse and plan. */
typedef struct sql_litq sql_litq;
#define SQL_LITCACHE_TEXT_MAX 4096 /* longer texts are not cached */
/* Scans the text; NULL when the cache cannot take it. Valid until the
 * statement arena is reset. */
sql_litq *sql_litcache_scan(sql_session *s, const char *query);
/* A hit fills *out (a statement to run as the simple query, holding a
 * reference to the cached one in *hold: release it after the run). */
bool sql_litcache_get(sql_session *s, sql_litq *q, sql_prepared *out, sql_prepared **hold);
/* After a miss: parameterises and plans the parsed statement and caches it;
 * true fills *out and *hold as a hit and takes ownership of pr. */
bool sql_litcache_put(sql_session *s, sql_litq *q, PgQuery__ParseResult *pr, sql_prepared *out,
		      sql_prepared **hold);
void sql_litcache_free(sql_session *s);
/* The scanned text's cache key and number of integer constants (tests). */
const char *sql_litcache_key(const sql_litq *q, size_t *len, int *nconst);
void sql_stmt_fail_block(sql_session *s);
void sql_stmt_end_txn(sql_session *s);
void sql_stmt_ensure_txn(sql_session *s);
/* Starts a statement: transaction, snapshot, catalog. */
void sql_stmt_begin(sql_session *s);
sql_prepared *sql_prepare(sql_session *s, const char *name, const char *query, int nparams,
			  const uint32_t *param_types, util_err *err);
void sql_prepared_release(sql_prepared *p);
/* Parse and PREPARE: every parameter up to the highest one used must have a
 * type (given, or inferred from its use): else 42P18, as PostgreSQL. */
int sql_prepared_check_types(const sql_prepared *p, util_err *err);
/* The highest $n the analyzer numbers (PostgreSQL's is ~INT_MAX / 4). */
#define SQL_MAX_PARAM_NUMBER (1 << 20)
int sql_prepared_describe(sql_session *s, sql_prepared *p, sql_rowdesc *desc, bool *returns_rows,
			  const int16_t *formats, int nformats, util_err *err);
sql_portal_s *sql_portal_create(sql_session *s, const char *name, sql_prepared *p, const sql_bind_params *bp,
				util_err *err);
void sql_portal_free(sql_session *s, sql_portal_s *p);
void sql_portal_run(sql_session *s, sql_portal_s *po, sql_dest *dest, int64_t max_rows, bool send_desc,
		    sql_complete *c);

/* Parses text into statements; throws 42601 with position. */
PgQuery__ParseResult *sql_parse_text(const char *text, util_err *err);
/* The command tag of a raw statement ("SELECT", "CREATE TABLE", ...). */
const char *sql_command_tag(pnode *stmt);
bool sql_stmt_is_utility(pnode *stmt);
/* Utility statements (utility.c and ddl_*.c): throws on error. */
void sql_exec_utility(sql_session *s, sql_prepared *ps, sql_dest *dest, sql_complete *c);

/* Row output (output.c): formats a row of datums per the column formats. */
void sql_format_row(sql_session *s, const ty_datum *vals, int ncols, const ty_oid *types, const int16_t *formats,
		    util_buf *out);
/* Sends a materialised result set (SHOW, EXPLAIN ...). */
void sql_send_rows(sql_session *s, sql_dest *dest, int ncols, const char *const *names, const ty_oid *types,
		   const ty_datum *vals, int nrows);

/* Foreign keys (fk.c): the modify node reports every row it writes; the
 * checks and actions run at sql_fk_end (end of the statement's modify
 * node) or at COMMIT for deferred constraints. sql_fk_begin returns NULL
 * when the table has no foreign keys either way. */
typedef struct sql_fk_state sql_fk_state;
sql_fk_state *sql_fk_begin(sql_exec *ex, const cat_obj *rel, sql_cmd cmd);
/* oldrow/newrow: ncols + row key; NULL for INSERT / DELETE. */
void sql_fk_row(sql_fk_state *fs, const ty_datum *oldrow, const ty_datum *newrow);
void sql_fk_end(sql_fk_state *fs);
void sql_fk_abandon(sql_fk_state *fs);
/* Deferred checks before the commit batch is written; -1 with err fails the commit. */
int sql_fk_at_commit(sql_txn *t, util_err *err);
void sql_fk_set_constraints(sql_session *s, PgQuery__ConstraintsSetStmt *st);
/* Tables with foreign keys referencing table (TRUNCATE). Arrays in the arena. */
bool sql_fk_referencing_tables(sql_session *s, cat_snap *cs, cat_oid table, cat_oid **out, int *n);

/* Temporary objects (ddl_temp.c). */
cat_oid sql_temp_schema_oid(sql_session *s, cat_snap *cs); /* 0 if the session has none in cs */
bool sql_temp_schema_is_temp(cat_snap *cs, cat_oid schema);
int sql_temp_at_commit(sql_txn *t, util_err *err);
void sql_temp_session_end(sql_session *s);
int sql_temp_cleanup_orphans(cat *c, kv_store *kv, util_err *err);
/* Shared store: drops the temporary schemas whose owning server
 * (cat_schema.temp_owner) is no longer alive (asked twice, 3 s apart:
 * blocks that long when it finds one); returns how many. */
int sql_temp_sweep_dead(cat *c, kv_store *kv);
/* Shared store with owner ids: a thread running sql_temp_sweep_dead at
 * start and every STRATA_TEMP_SWEEP_S seconds (default 5); NULL otherwise. */
struct sql_temp_sweeper *sql_temp_sweeper_start(sql_engine *e);
void sql_temp_sweeper_stop(struct sql_temp_sweeper *w);

/* Privileges (privilege.c): checks the relations a query reads and writes
 * against the current user's privileges (views with their owner's rights),
 * throws 42501; then locks them (shared) for the transaction. */
void sql_priv_check_query(sql_session *s, cat_snap *cs, const sql_query *q);
/* The two halves of sql_priv_check_query: the check, returning the
 * relations to lock (*rels in the current ty arena), and the locking. */
int sql_priv_check_rels(sql_session *s, cat_snap *cs, const sql_query *q, cat_oid **rels);
void sql_priv_lock_rels(sql_session *s, cat_snap *cs, const cat_oid *rels, int n);
/* has_table/sequence/schema/column/any_column_privilege and pg_has_role
 * over the ACL model of privilege.c (registered by catalog_funcs_priv.c). */
ty_datum sql_acl_fn_table(ty_fcinfo *fc);
ty_datum sql_acl_fn_sequence(ty_fcinfo *fc);
ty_datum sql_acl_fn_schema(ty_fcinfo *fc);
ty_datum sql_acl_fn_column(ty_fcinfo *fc);
ty_datum sql_acl_fn_any_column(ty_fcinfo *fc);
ty_datum sql_acl_fn_pg_has_role(ty_fcinfo *fc);
/* An ACL as PostgreSQL's aclitem[] text ("alice=arw/bob"), NULL when empty
 * (the default ACL): for pg_class.relacl and pg_namespace.nspacl. */
ty_datum sql_priv_acl_array(cat_snap *cs, const cat_acl *acl, int nacl);
/* Relation locks (rel_lock.c): shared for statements, exclusive for DDL,
 * held to the end of the transaction. */
void sql_rel_lock(sql_session *s, cat_oid rel, bool exclusive);
void sql_lock_table_stmt(sql_session *s, PgQuery__LockStmt *st); /* LOCK TABLE (rel_lock.c) */
/* After locking: 40001 if one of rels changed since snapshot cs was taken. */
void sql_rel_check_current(sql_session *s, cat_snap *cs, const cat_oid *rels, int n);
/* Throws 42501 unless the current user has privs (CAT_PRIV_*) on rel. */
void sql_priv_check_rel(sql_session *s, cat_snap *cs, const cat_obj *rel, uint32_t privs);
/* ... unless it has at least one of privs (nextval: USAGE or UPDATE). */
void sql_priv_check_rel_any(sql_session *s, cat_snap *cs, const cat_obj *rel, uint32_t privs);

/* DDL entry points (ddl_*.c). */
void sql_ddl_create_table(sql_session *s, PgQuery__CreateStmt *st, const char *text);
void sql_ddl_drop(sql_session *s, PgQuery__DropStmt *st, const char *text);

/* Sequences (sequence.c). */
int64_t sql_nextval(sql_session *s, cat_oid seq);
int64_t sql_currval(sql_session *s, cat_oid seq);
int64_t sql_lastval(sql_session *s);
int64_t sql_setval(sql_session *s, cat_oid seq, int64_t v, bool called);
void sql_seq_peek(sql_session *s, cat_oid seq, int64_t *last, int64_t *log_cnt, bool *called);
void sql_seq_init_value(sql_session *s, cat_oid seq, const cat_sequence_info *info);
void sql_seq_forget(sql_session *s, cat_oid seq);
void sql_seq_options(sql_session *s, cat_sequence_info *sq, PgQuery__Node **opts, size_t n, bool creating);

/* Notices and warnings to the client (utility.c). */
void sql_notice(sql_session *s, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);
void sql_warning(sql_session *s, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);
/* INFO (ANALYZE VERBOSE's report). */
void sql_info(sql_session *s, util_errcode code, const char *fmt, ...) UTIL_PRINTF(3, 4);

/* DDL helpers shared by the DDL files. */
char *sql_deparse_select_expr(pnode *expr);
char *sql_deparse_stmt(pnode *stmt);
void sql_create_storage(sql_session *s, sql_txn *t, const char *name);
void sql_create_constraint_indexes(sql_session *s, cat_oid table);
/* CREATE TABLE (LIKE src INCLUDING INDEXES): src's indexes other than its
 * constraints' on the new table, map giving the new attnum of each source
 * attnum; their comments too if comments. */
void sql_create_like_indexes(sql_session *s, cat_oid table, cat_oid src, const int16_t *map, bool comments);
void sql_drop_index(sql_session *s, cat_txn *ct, const cat_obj *index, bool cascade);
bool sql_view_depends_on(sql_session *s, const cat_obj *view, cat_oid rel);
void sql_apply_reloptions(sql_session *s, cat_obj *o, PgQuery__Node **opts, size_t n);
/* strata.default_salt_buckets: salts a new table (not interleaved) given no
 * salt_buckets option, recorded as that option (ddl_misc.c). */
void sql_default_salt(sql_session *s, cat_obj *o);
/* The row format of a new table given no row_format option: strata.row_format,
 * "default" there meaning the server's STRATA_ROW_FORMAT environment variable,
 * else packed (docs/row-format.md). Not recorded as an option (ddl_misc.c). */
void sql_default_row_format(sql_session *s, cat_obj *o);
int64_t sql_def_int(pnode *arg, bool *ok);
void sql_ctas(sql_session *s, PgQuery__CreateTableAsStmt *st, const char *text, sql_complete *c);
void sql_drop_database_objects(sql_session *s, cat_txn *ct, cat_oid db);
ty_datum sql_reloptions_array(const cat_rel *r);

/* Small shared helpers (builtins.c, misc.c). */
void sql_quote_ident(const char *name, util_buf *out);
ty_datum sql_make_text_array(const ty_datum *vals, int n);
ty_datum sql_make_name_array(const ty_datum *vals, int n);
bool sql_rel_visible(sql_session *s, cat_snap *cs, const cat_obj *o);
void sql_builtins_init(void);
void sql_register_catalog_functions(void);
/* percentile_cont/disc and mode (agg_ordered.c). */
void sql_register_ordered_aggs(void);
/* num_nulls, num_nonnulls, width_bucket over an array (func_extra.c). */
void sql_register_extra_funcs(void);
void sql_sysviews_core_init(void);
/* Registers every generated catalog relation (once). */
void sql_sysviews_init(void);
const struct sql_sysview *sql_sysview_find(const char *schema, const char *name);
cat_oid sql_sysview_oid(const struct sql_sysview *v);
const char *sql_sysview_name_by_oid(cat_oid oid);
const char *sql_sysview_schema_by_oid(cat_oid oid);
/* Roles by name/oid, PostgreSQL's predefined roles included (sysview.c). */
cat_oid sql_role_oid(cat_snap *cs, const char *name);
const char *sql_role_name(cat_snap *cs, cat_oid oid);
/* Indexes Strata keeps as a table's storage key (primary keys) have no
 * catalog object; regclass finds and prints them (sysview.c). */
cat_oid sql_synth_index_by_name(sql_session *s, cat_snap *cs, const char *schema, const char *name);
bool sql_synth_index_out(sql_session *s, cat_snap *cs, cat_oid oid, util_buf *out);

/* Mapping of kv failures to SQL errors. */
UTIL_NORETURN void sql_kv_error(kv_status st, const char *what);

/* stack.c: 54001 "stack depth limit exceeded" when the running thread's
 * stack is nearly used up (call at the top of recursive functions), and the
 * nesting bound applied to parse trees before they are unpacked. */
void sql_check_stack_depth(void);
/* Bytes of stack left before sql_check_stack_depth() fails. */
size_t sql_stack_left(void);
bool sql_protobuf_too_deep(const uint8_t *p, size_t n, int max_depth);
/* Stack protobuf-c uses per level of nesting when unpacking (measured about
 * 850 bytes), with room to spare. */
#define SQL_PROTOBUF_LEVEL_STACK 1200

/* The engine's session registry (engine.c). */
void sql_engine_add_session(sql_engine *e, sql_session *s);
void sql_engine_remove_session(sql_engine *e, sql_session *s);

#endif /* STRATA_SQL_INT_H */
