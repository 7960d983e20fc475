/*
 * idxt_util.h — helpers for the index/ unit tests: a scratch store and a
 * small data table laid out like SQL rows (key = encoded int8 primary key;
 * family "d"; empty-qualifier sentinel; qualifier 0x0001 = column a (int8,
 * NULL = no cell), 0x0002 = column b (text, the INCLUDE payload)), the
 * row model that tells index/ what entry a row must have in an index on
 * (a) INCLUDE (b), and the two write paths a SQL commit uses.
 */
#ifndef STRATA_IDXT_UTIL_H
#define STRATA_IDXT_UTIL_H

#include "idx.h"
#include "kv.h"

typedef struct idxt {
	char *dir;
	kv_store *s;
	kv_table *data, *index;
	ty_keycol key;
	idx_def def;
	idx_rowmodel model;
	kv_column cols[3];
} idxt;

/* Opens a fresh store (or reopens dir when given) with tables "r1" and
 * "i1"; unique picks the unique index layout. opts may be NULL. */
void idxt_open(idxt *t, const char *dir, bool unique, const kv_store_opts *opts);
void idxt_close(idxt *t, bool remove_dir);

/* Primary key bytes of id (order-preserving int8). */
void idxt_pk(int64_t id, util_buf *out);
/* The entry key/value row (id, a, b) has (a_null: a is NULL). */
void idxt_entry(idxt *t, int64_t id, int64_t a, bool a_null, const char *b, util_buf *key, util_buf *val);

/* A row change as a SQL commit does it: data row put (or delete when
 * del), plus the index mutations from the old image (old_exists) to the
 * new one. split picks the split protocol (fault may be NULL). */
typedef struct idxt_row {
	int64_t id, a;
	bool a_null;
	const char *b;
} idxt_row;
kv_status idxt_write(idxt *t, const idxt_row *old, const idxt_row *nw, bool split,
		     void (*fault)(void *arg, idx_split_step step), void *fault_arg);

/* Ids (sorted, comma separated) of the rows whose entry is a member when
 * scanning the index on a (all entries, judged at read_ts; 0 = now) and
 * of data rows with a in [lo, hi] (the full-scan answer). */
void idxt_index_ids(idxt *t, kv_ts read_ts, util_buf *out);
/* As an index-only scan reads: verified entries trusted without their
 * row, the others judged. */
void idxt_trusting_ids(idxt *t, util_buf *out);
/* Judges every entry and commits the repairs a reader would make. */
int idxt_repair_all(idxt *t);
void idxt_data_ids(idxt *t, kv_ts read_ts, util_buf *out);
/* Scratch directory (caller frees). */
char *idxt_tmpdir(const char *tag);
void idxt_rmdir(const char *path);

#endif
