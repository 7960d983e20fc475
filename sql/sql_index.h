/*
 * sql_index.h — private to sql/: global secondary indexes in the SQL layer.
 * index/ (idx.h) owns the entry format and the protocols; the files here
 * compile an index relation into what computes its entries from SQL rows
 * (index_def.c), maintain indexes at commit and check unique keys at write
 * time (index_write.c), build them (ddl_index.c), plan and run index scans
 * (plan_index.c, exec_index.c), keep the engine-wide pieces (commit gate,
 * GC filters, interrupted builds: index_engine.c) and verify them
 * (index_verify.c). Design and formats: docs/indexes.md.
 */
#ifndef STRATA_SQL_INDEX_H
#define STRATA_SQL_INDEX_H

#include "idx.h"
#include "sql_int.h"

/* An index relation compiled against its table for one catalog snapshot.
 * Expressions are over the table row (slot = attnum - 1, row key at
 * slot ncols). Lives in the arena it was compiled in. */
typedef struct sql_ix {
	const cat_obj *obj; /* the index relation (borrowed from the snapshot) */
	const cat_obj *table;
	const cat_index_info *info;
	idx_def def; /* def.kv is set by whoever opens the storage */
	ty_keycol *keys;
	int nkeys;
	int16_t *key_attnum; /* per key: attnum, or 0 for an expression */
	sql_expr **key_expr; /* per key: expression (slots), or NULL */
	sql_expr **key_var;  /* per key: expression as Vars of RTE 1 (planner), or NULL */
	char **key_text;     /* per key: column name or expression text (messages, EXPLAIN) */
	sql_expr *pred;      /* partial index predicate (slots), or NULL */
	sql_expr *pred_var;  /* ... as Vars of RTE 1 */
	bool *deps;          /* per table column: read by the index */
	bool *dep_colid;     /* the same by column id (next_col_id + 1 entries) */
	int ncolids;
	kv_column *cols; /* data cells that decide an entry (sentinel first) */
	int ncols_read;
	/* What to pass to the store when reading rows to judge: the column list
	 * only when it skips most cells of wide rows (a column list makes the
	 * store seek per column, slower than stepping over a few cells); else
	 * NULL / 0 = whole rows. */
	const kv_column *read_cols;
	int nread_cols;
	bool needs_eval; /* expressions or a predicate */
	int ncache;      /* executor cache slots the expressions use */
} sql_ix;

/* Compiles an index relation (allocates in the current ty arena). ps:
 * where expression cache slots are counted (NULL: the index's own count in
 * x->ncache, for sql_ix_evaluator). Throws on a broken definition. */
sql_ix *sql_ix_compile(sql_session *s, cat_snap *cs, const cat_obj *ix, sql_pstate *ps);
/* Key i of x as an expression over RTE rte of a query (plan_index.c). */
sql_expr *sql_ix_key_expr(const sql_ix *x, int i, int rte);
/* Does the conjunction quals[0..nquals) (over RTE rte) imply x's partial
 * index predicate? True for an index without one (plan_index.c). */
bool sql_ix_predicate_implied(const sql_ix *x, int rte, sql_expr **quals, int nquals);
/* An executor to evaluate x's expressions with (NULL when none are needed);
 * allocated in arena. */
sql_exec *sql_ix_evaluator(sql_session *s, const sql_ix *x, util_arena *arena);
/*
 * The entry a table row has in x: row = table columns + row key. Appends
 * the entry key (values, then the row key) and value (flags 0, payload)
 * and sets *values_len (the encoded values at the key's start) and
 * *unique (the values take part in uniqueness: they have a guard). False
 * when the row is outside the partial index predicate. ev may be NULL when
 * !x->needs_eval.
 */
bool sql_ix_entry(sql_exec *ev, const sql_ix *x, const ty_datum *row, util_buf *key, util_buf *val,
		  size_t *values_len, bool *unique);
/* The newest timestamp among a data row's cells the index depends on. */
kv_ts sql_ix_row_ts(const sql_ix *x, const kv_cell *cells, size_t n);
/* "(a, b)=(1, 2)" for the indexed values of a row / of an encoded key. */
void sql_ix_describe_row(sql_exec *ev, const sql_ix *x, const ty_datum *row, util_buf *out);
void sql_ix_describe_key(const sql_ix *x, const uint8_t *values, size_t len, util_buf *out);
/* INCLUDE payload: encode from a row / decode into a row. */
void sql_ix_payload(const sql_ix *x, const ty_datum *row, util_buf *out);
bool sql_ix_payload_decode(const sql_ix *x, const uint8_t *p, size_t n, ty_datum *row);
/* A row model for index/ (backfill, checker, GC). gc: no session (runs on
 * the compaction thread), expressions are not evaluated. Allocated in
 * arena, which must outlive its use. */
idx_rowmodel *sql_ix_rowmodel(sql_session *s, const sql_ix *x, util_arena *arena, bool gc);
void sql_ix_rowmodel_free(idx_rowmodel *rm);
/* The indexes of a table (any state) compiled for cs; NULL if none. */
typedef struct sql_ixset {
	int n;
	sql_ix **ix;
	kv_table **kv; /* opened storages (closed by sql_ixset_close) */
	sql_exec **ev; /* evaluators (NULL entries when not needed) */
} sql_ixset;
sql_ixset *sql_ixset_open(sql_session *s, cat_snap *cs, const cat_obj *table, util_arena *arena);
void sql_ixset_close(sql_ixset *set);

/* ---------------------------------------------------------------- writes (index_write.c) */

/* Per-transaction index state (unique-key claims, compiled index sets). */
typedef struct sql_txn_ix sql_txn_ix;
void sql_txn_ix_free(sql_txn_ix *tx);

/*
 * Unique checks of a row about to be written (INSERT, UPDATE, COPY): for
 * every unique index whose key the row has, lock the key, validate any
 * entry holding it, and look at this transaction's own rows. old_row (the
 * row's previous values, or NULL for a new row) tells which keys change.
 * Returns true when the row may be written; on a conflict it throws 23505
 * unless conflict_key is given: then it returns false and sets
 * *conflict_key (the other row's key, in the current arena) and
 * *conflict_index. arbiter != 0 limits the "return false" to that index.
 */
bool sql_index_unique_check(sql_session *s, const cat_obj *rel, const ty_datum *row, const ty_datum *old_row,
			    cat_oid arbiter, bool any_arbiter, ty_datum *conflict_key,
			    cat_oid *conflict_index);
/*
 * COPY's sorted flush (copy_sort.c, autocommit): the unique checks of n new
 * rows at once. rows[i] holds ncols values and the row key at [ncols],
 * lines[i] its input line. Per unique index the rows' values are sorted:
 * equal neighbours, values an earlier flush of the load claimed, and (one
 * scan of the index over the flush's values) values with committed cells,
 * validated as sql_index_unique_check() does, are violations. Throws 23505
 * with "COPY table, line N" for the lowest line below before_line, else
 * returns. mode: SQL_UQ_CLAIM locks each value and claims it for the
 * commit's check (sql_index_bulk_row); SQL_UQ_CLAIM_BLOCK (a COPY block
 * in a transaction block, the rows joining the write set) locks the
 * block's values as a key set and keeps its claims as a sorted array
 * (txn_vset.h), released by ROLLBACK TO a savepoint set before;
 * SQL_UQ_REPORT only reports (an error path).
 */
typedef enum sql_uq_mode { SQL_UQ_REPORT, SQL_UQ_CLAIM, SQL_UQ_CLAIM_BLOCK } sql_uq_mode;
void sql_index_unique_check_rows(sql_session *s, const cat_obj *rel, ty_datum *const *rows,
				 const int64_t *lines, size_t n, int64_t before_line, sql_uq_mode mode);
/* Before deleting or changing a row: lock the unique keys it leaves, so a
 * concurrent insert of one of them waits for this transaction (as in
 * PostgreSQL). */
void sql_index_unique_release(sql_session *s, const cat_obj *rel, const ty_datum *old_row,
			      const ty_datum *new_row);
/* True when the table has unique indexes (any state) in the session's
 * current catalog (cheap; lets callers skip building old rows). */
bool sql_index_has_unique(sql_session *s, const cat_obj *rel);

/* Commit: the index mutations of the transaction's rows. */
typedef struct sql_ixcommit sql_ixcommit;
/* NULL when no written table has an index and no index was built. Takes
 * the commit gate (shared; exclusively when builds catch up, whose entries
 * go into b). */
sql_ixcommit *sql_index_commit_begin(sql_txn *t, kv_batch *b);
/* One written row (after write_row put its data into the batch). */
void sql_index_commit_row(sql_ixcommit *ic, sql_wrow *w);
/* Commits data batch b with the index mutations (atomic or split protocol);
 * returns the kv status (KV_CHECK_FAILED: a unique key was taken). */
kv_status sql_index_commit_finish(sql_ixcommit *ic, kv_batch *b, bool commit_if, kv_ts snapshot);
/* Releases the gate and frees ic (also after errors). */
void sql_index_commit_end(sql_ixcommit *ic);
/* A CREATE INDEX / REINDEX in this transaction backfilled index `index`
 * from the rows as of `from`; its commit catches up with rows others
 * changed since (holding the commit gate exclusively). */
void sql_index_pending_build(sql_txn *t, cat_oid index, cat_oid table, kv_ts from, uint64_t gen);
/* COPY's bulk path: entries of a new row straight into the commit batch. */
void sql_index_bulk_row(sql_txn *t, const cat_obj *rel, const uint8_t *key, size_t klen,
			const ty_datum *vals);
/* COPY's sorted flush (copy_sort.c): the entries of n new rows (rows[i]:
 * ncols values, the row key at [ncols]) into the commit batch, index by
 * index in key order, so that the batch's spill merges a few sorted runs
 * instead of sorting entries interleaved with the rows. The rows' data
 * cells went in with sql_txn_bulk_row_data(). */
void sql_index_bulk_rows(sql_txn *t, const cat_obj *rel, ty_datum *const *rows, size_t n);

/* ---------------------------------------------------------------- engine (index_engine.c) */

typedef struct sql_index_engine sql_index_engine;
void sql_index_engine_open(sql_engine *e);
void sql_index_engine_close(sql_engine *e);
/* The commit gate: commits hold it shared from reading the newest index
 * list to the end of their kv commit; an index build takes it exclusively
 * once, so every later commit sees the new index. */
void sql_index_gate_shared(sql_engine *e);
void sql_index_gate_exclusive(sql_engine *e);
void sql_index_gate_release(sql_engine *e);
void sql_index_gate_drain(sql_engine *e);
/* Write generations: how many commits wrote a table (counted after the
 * commit, under the commit gate). A build that saw generation g at its
 * start and still sees g under the exclusive gate knows nobody wrote the
 * table meanwhile. */
uint64_t sql_index_table_gen(sql_engine *e, cat_oid table);
void sql_index_note_write(sql_engine *e, cat_oid table);
/* After a successful kv commit (still under the gate): counts the
 * transaction's tables. */
void sql_index_commit_done(sql_txn *t);
/* GC filters follow the catalog (installed for new indexes, removed for
 * dropped ones); called after a catalog change was published. */
void sql_index_gc_refresh(sql_engine *e);
/* Build progress for pg_stat_progress_create_index / strata_index_builds. */
void sql_index_progress_set(sql_engine *e, cat_oid index, cat_oid table, const char *phase, uint64_t done,
			    uint64_t total);
void sql_index_progress_clear(sql_engine *e, cat_oid index);
/* Write mode of the session: split protocol, and its fault point (tests). */
bool sql_index_split_mode(sql_session *s);
void sql_index_fault(sql_session *s, idx_split_step step);

/* ---------------------------------------------------------------- interleaved children (index_ilv.c) */

/* Builds index d of interleaved child r from every row committed now
 * (the caller holds r exclusively): entries verified, guards of a unique
 * index; KV_CHECK_FAILED with err's detail on a duplicate. */
kv_status sql_ilv_index_backfill(kv_table *data, const cat_rel *r, const idx_def *d, const idx_rowmodel *m,
				 uint64_t *rows, util_err *err);
/* idx_check for an index of interleaved child r. */
/* Checks index o (of s->cat) against its table's rows at ts (0: now) with
 * index/'s checker, inside an entity group too; fn gets each problem and a
 * description of it ("missing entry (k)=(1) for row key \x..: why (ts)").
 * Throws on errors (kv status included). */
typedef void (*sql_ix_problem_fn)(void *arg, const idx_check_problem *p, const char *text);
void sql_verify_index_obj(sql_session *s, const cat_obj *o, kv_ts ts, idx_check_report *r,
			  sql_ix_problem_fn fn, void *arg);
kv_status sql_ilv_index_check(kv_table *data, const cat_rel *r, const idx_def *d, const idx_rowmodel *m,
			      kv_ts ts, idx_check_report *rep, idx_check_fn fn, void *arg);

/* ---------------------------------------------------------------- DDL (ddl_index.c) */

void sql_ddl_reindex(sql_session *s, PgQuery__ReindexStmt *st);
/* Rebuilds every secondary index of `table` in the session's transaction
 * (new storage generations, old ones dropped at commit): after ALTER TABLE
 * gave the table a new row key, which index entries point at. */
void sql_ddl_reindex_after_rekey(sql_session *s, cat_oid table);

/* ---------------------------------------------------------------- plans (plan_index.c, exec_index.c) */

/* What an index scan plan node carries beside p->scan. */
typedef struct sql_ixscan {
	sql_ix *ix;
	char index_storage[CAT_NAME_MAX];
	char index_name[CAT_NAME_MAX];
	int nranges;
	struct sql_ixrange *ranges;
	bool index_only;
	kv_ts valid_from;
	sql_expr *limit;  /* rows to produce at most (LIMIT + OFFSET), or NULL */
	sql_expr **conds; /* index conditions as written (EXPLAIN) */
	int nconds;
} sql_ixscan;

typedef struct sql_ixrange {
	int nfix;          /* leading key columns fixed by = or IN */
	sql_expr **eq;     /* their values (IN: an array) */
	sql_expr *lo, *hi; /* bounds on key column nfix, or NULL */
	bool lo_incl, hi_incl;
	int nulls; /* on key column nfix: 0 any, 1 IS NULL, 2 IS NOT NULL */
} sql_ixrange;

sql_op *sql_op_indexscan(sql_exec *ex, const sql_plan *p);

#endif
