/*
 * copy_sort.h — the sorted path of an autocommit COPY into a table with a
 * primary key (copy_sort.c). Private to sql/.
 *
 * Rows are collected with their key and line number, then, per flush,
 * sorted by key, checked for duplicates among themselves, against the
 * rows of earlier flushes and against the stored table (one merging scan
 * over the flush's key range instead of a point read per row), and
 * written in key order into the transaction's commit batch, which the
 * store spills as presorted runs and commits as ingested sorted files.
 *
 * In a transaction block (in_block) the rows go instead into the
 * transaction's write set, so its later statements see them and ROLLBACK
 * (TO SAVEPOINT) takes them back: each flush (the caller flushes every
 * 1000 rows) sorts its rows, locks their keys, checks them (write set: an
 * insert of this transaction is a duplicate, a delete frees the key;
 * stored rows: a point read) and adds them to the write set as one sorted
 * segment (sql_txn_insert_sorted); a table without a primary key (its
 * generated row ids need no lock or check) loads this way too in a block.
 * The error path's check
 * (sql_copy_sort_check) works the same in both modes.
 *
 * Unique secondary indexes (autocommit only) are checked per flush too
 * (sql_index_unique_check_rows), and the entries are written index by
 * index in key order (sql_index_bulk_rows).
 */
#ifndef SQL_COPY_SORT_H
#define SQL_COPY_SORT_H

#include "sql_int.h"

typedef struct sql_copy_sort sql_copy_sort;

/* Caller frees with sql_copy_sort_free(). kv and rel must outlive it.
 * in_block: a COPY inside a transaction block (see above); otherwise an
 * autocommit COPY writing into the transaction's bulk batch. */
sql_copy_sort *sql_copy_sort_new(sql_session *s, const cat_obj *rel, kv_table *kv, bool in_block);
void sql_copy_sort_free(sql_copy_sort *cs);

/* in_block: the table's foreign-key state (the caller's, which outlives
 * the flushes): a flushed block's rows are queued for their checks after
 * its duplicate check (sql_fk_row), instead of by the caller per row. */
void sql_copy_sort_set_fk(sql_copy_sort *cs, sql_fk_state *fk);

/* Adds one row. The key is copied into the current ty arena; vals (ncols
 * datums) must stay valid until the next sql_copy_sort_flush() (the caller
 * allocates them, and their bytes, in an arena it resets only after a
 * flush). */
void sql_copy_sort_add(sql_copy_sort *cs, const uint8_t *key, size_t klen, ty_datum *vals, int64_t line);

/* Number of rows added since the last flush, and their size in bytes
 * (keys, value arrays and the bytes of by-reference values, roughly). */
size_t sql_copy_sort_pending(const sql_copy_sort *cs);
size_t sql_copy_sort_bytes(const sql_copy_sort *cs);

/* Sorts and checks the pending rows, then writes them into the
 * transaction's bulk batch (in_block: its write set). Throws 23505 naming the first line (in load
 * order) whose key already exists. After it returns, the caller may reset
 * the arena holding the rows. */
void sql_copy_sort_flush(sql_copy_sort *cs);

/* The error path: a row at a later line failed. Throws 23505 if a pending
 * row before before_line has a key already present (PostgreSQL would
 * have failed there first), else returns. Does nothing after a flush
 * began (its own error stands). */
void sql_copy_sort_check(sql_copy_sort *cs, int64_t before_line);

/* 23505 for a row of rel whose primary key exists, with PostgreSQL's
 * detail and "COPY table, line N" context. */
UTIL_NORETURN void sql_copy_dup_key(sql_session *s, const cat_rel *r, const ty_datum *vals, int64_t line);

#endif
