/*
 * idx.h — global secondary indexes: the entry format on the store, the
 * write protocol (one timestamp per change, index before data), judging an
 * entry against its data row at read time and repairing it, online
 * backfill, the checker and garbage collection through the kv compaction
 * filter hook. Format and protocol: docs/indexes.md.
 *
 * index/ knows kv tables, key encodings and timestamps; it does not know SQL
 * rows. What an entry of a data row must be (decoding the row, evaluating
 * index expressions and a partial index's predicate) is computed by the SQL
 * layer and handed in as bytes (idx_writer_*, idx_judge) or through an
 * idx_rowmodel callback (backfill, checker, GC).
 *
 * Entry
 *   One kv table per index, family "d", one cell per entry, empty
 *   qualifier. Row key = enc(indexed values) || enc(primary key), so all
 *   versions of an entry key belong to one data row. Value = flags byte,
 *   then the INCLUDE payload (opaque bytes). Cell timestamp = commit
 *   timestamp of the data write that produced it.
 *   A unique index also keeps a guard per non-NULL value (key = the encoded
 *   values alone, value = a zero flags byte and the holder's primary key):
 *   the cell a commit's checkAndMutate compares. Readers skip guards.
 *
 * Threads: an idx_def is read-only and may be shared; an idx_writer belongs
 * to one thread. Callbacks of an idx_rowmodel used for GC run on the
 * store's compaction thread.
 */
#ifndef STRATA_IDX_H
#define STRATA_IDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cat.h"
#include "kv.h"
#include "types.h"
#include "util.h"

#define IDX_FAMILY "d"

/* Flags in the first value byte. */
#define IDX_F_VERIFIED 0x01 /* written together with (or after) its data row */

/* What index/ needs to know about one index. */
typedef struct idx_def {
	cat_oid oid;
	kv_table *kv; /* the index's storage (borrowed) */
	bool unique;
	bool nulls_not_distinct;
	int nkeys;
	const ty_keycol *keys; /* per key column (borrowed) */
} idx_def;

/* ---------------------------------------------------------------- entries */

/* Appends the encoded key values (one ty_keycol each); *any_null tells
 * whether one of them is NULL. Throws (ty_error) for a type without key
 * encoding. */
void idx_encode_values(const idx_def *d, const ty_datum *vals, util_buf *out, bool *any_null);
/* True when entries with these values take part in uniqueness: a unique
 * index, and no NULL among them or NULLS NOT DISTINCT. */
bool idx_unique_values(const idx_def *d, bool any_null);
/* True when encoded values (as idx_encode_values wrote them) hold a NULL. */
bool idx_values_have_null(const idx_def *d, const uint8_t *values, size_t len);
/* The entry key: encoded values, then the primary key. */
void idx_make_key(const void *values, size_t vlen, const void *pk, size_t pklen, util_buf *out);
/* The entry value: flags, then the payload. */
void idx_make_value(uint8_t flags, const void *payload, size_t plen, util_buf *out);
/* A guard's value: flags 0, then the holder's primary key. */
void idx_make_guard_value(const void *pk, size_t pklen, util_buf *out);

/* An entry read from the store; slices point into the cell (valid as long
 * as the cell is). */
typedef struct idx_entry {
	kv_slice key;      /* the entry's whole row key */
	size_t values_len; /* key[0, values_len) = encoded indexed values */
	kv_slice pk;       /* the data row's key (a guard: its holder's) */
	kv_slice payload;  /* INCLUDE values */
	kv_slice value;    /* the whole cell value */
	kv_ts ts;
	uint8_t flags;
	bool guard; /* a unique index's guard, not an entry */
} idx_entry;

/* Parses an index cell. False if it is malformed (never throws); the
 * current ty arena is used for scratch (DESC keys). */
bool idx_entry_parse(const idx_def *d, const kv_cell *c, idx_entry *out);
/* Splits the encoded values of a key into columns: offsets[i] .. offsets[i+1]
 * is column i (nkeys + 1 offsets). False if malformed. */
bool idx_split_values(const idx_def *d, const uint8_t *key, size_t len, size_t *offsets);

/* ---------------------------------------------------------------- writes */

/*
 * The index mutations of one commit. Put and delete of the same key
 * coalesce (the put wins: in a unique index one row may take over the key
 * another row leaves in the same commit). Caller frees with
 * idx_writer_free(); the writer copies every byte passed to it.
 */
typedef struct idx_writer idx_writer;

idx_writer *idx_writer_new(void);
void idx_writer_free(idx_writer *w);
void idx_writer_reset(idx_writer *w);
size_t idx_writer_count(const idx_writer *w);
/* A new entry: key from idx_make_key, value from idx_make_value (the flags
 * byte is set by the protocol). */
void idx_writer_put(idx_writer *w, const idx_def *d, const void *key, size_t klen, const void *val,
		    size_t vlen);
/* Removal of an entry the data row no longer has; old_val is the value it
 * had (the split protocol writes it back, unverified, as an intent). */
void idx_writer_delete(idx_writer *w, const idx_def *d, const void *key, size_t klen, const void *old_val,
		       size_t old_vlen);
/* A unique value taken (take) or left by the row with key pk: the guard
 * cell of `values`. A value taken by one row and left by another in the
 * same commit stays taken. */
void idx_writer_guard(idx_writer *w, const idx_def *d, const void *values, size_t vlen, const void *pk,
		      size_t pklen, bool take);
/* checkAndMutate on a guard: at commit the guard's current value must equal
 * expect (expect == NULL: absent), else the commit fails with
 * KV_CHECK_FAILED and writes nothing. */
void idx_writer_require(idx_writer *w, const idx_def *d, const void *values, size_t vlen, const void *expect,
			size_t elen);

/* Atomic protocol (single node): every mutation joins the data batch, so the
 * entries get the data's commit timestamp T and are verified. */
void idx_writer_to_batch(idx_writer *w, kv_batch *data);

/* Steps of the split protocol, for fault injection. */
typedef enum idx_split_step {
	IDX_STEP_INDEX_WRITTEN = 1, /* step 1 durable, data not written */
	IDX_STEP_DATA_WRITTEN,      /* step 2 durable, entries not verified */
	IDX_STEP_DONE
} idx_split_step;

typedef struct idx_split_opts {
	kv_ts commit_if_ts; /* != 0: the data step is kv_commit_if(commit_if_ts) */
	/* Called after each step; may abort the process (crash tests). */
	void (*fault)(void *arg, idx_split_step step);
	void *fault_arg;
} idx_split_opts;

/*
 * Split protocol (a backend where index and data writes are separate
 * commits): reserve T; (1) new entries and intents for removed ones at T,
 * unverified, guards taken, with the unique conditions; (2) the data batch
 * at T; (3) new entries verified, removed ones and left guards deleted at
 * T; finish T. A failure of
 * (2) undoes (1) exactly. A crash between steps leaves only entries that
 * idx_judge rejects or accepts correctly. Returns the status of the first
 * failing step (KV_CHECK_FAILED from step 1, KV_CONFLICT from step 2 ...).
 */
kv_status idx_commit_split(idx_writer *w, kv_store *s, kv_batch *data, const idx_split_opts *o,
			   kv_ts *commit_ts);

/* ---------------------------------------------------------------- reads */

typedef enum idx_verdict {
	IDX_EXACT = 0, /* row exists, key equal, timestamp equal */
	IDX_NEWER,     /* key equal, entry newer than the row's indexed cells (a NULL
			* written, or an interrupted split commit): valid */
	IDX_OLDER,     /* key equal, row's indexed cells newer: the row belongs to the
			* result but the entry's payload may be stale; rewrite it */
	IDX_STALE      /* no such row, outside the predicate, or another key */
} idx_verdict;

/*
 * Judges an entry against its data row read at the same snapshot:
 * has_entry = the row exists and is inside the predicate; key = the entry
 * key recomputed from the row; row_ts = the newest timestamp among the
 * row's cells the index depends on (its sentinel included).
 */
idx_verdict idx_judge(const idx_entry *e, bool has_entry, const void *key, size_t klen, kv_ts row_ts);
/* True when the verdict means "this row belongs to the scan". */
static inline bool idx_verdict_member(idx_verdict v)
{
	return v != IDX_STALE;
}

/*
 * Appends the repair of a judged entry to b: STALE masks the entry and its
 * older versions (all of one row, none valid now); OLDER writes value at
 * row_ts; NEWER/EXACT unverified re-puts value verified at the entry's own
 * timestamp. value = what the entry
 * should hold (idx_make_value; flags are set here). Returns false when
 * nothing needs repair. Commit b with kv_commit_if(read point of the
 * judgment) and kv_batch_check_row on the data row, so that a change
 * meanwhile cancels the repair.
 */
bool idx_repair(kv_batch *b, const idx_def *d, const idx_entry *e, idx_verdict v, const void *value,
		size_t vlen, kv_ts row_ts);

/* ---------------------------------------------------------------- row model */

/*
 * What the SQL layer answers about data rows (backfill, checker, GC).
 * entry(): given the cells of one data row (read with `columns`; n == 0
 * if the row does not exist), appends the entry key and value the row must
 * have in the index (value flags ignored) and its row timestamp; returns
 * false when the row has no entry (missing, or outside the predicate).
 * It must not throw. For GC it runs on the compaction thread.
 * gc_judge: false when entry() cannot be evaluated off a session (index
 * expressions): GC then only drops entries whose data row is gone.
 */
typedef struct idx_rowmodel {
	bool (*entry)(void *arg, const kv_cell *cells, size_t n, util_buf *key, util_buf *value,
		      kv_ts *row_ts);
	void *arg;
	const kv_column *columns; /* data columns to read (NULL: whole rows) */
	int ncolumns;
	/* The cells entry() looks at (family and qualifier; NULL: all): a
	 * backfill copies only these out of whole rows. */
	const kv_column *needs;
	int nneeds;
	bool gc_judge;
	/* Describes the indexed values of a key for messages ("(a)=(1)"). */
	void (*describe)(void *arg, const uint8_t *values, size_t len, util_buf *out);
} idx_rowmodel;

/* ---------------------------------------------------------------- backfill */

typedef struct idx_backfill_opts {
	uint32_t chunk_rows; /* rows per commit (default 2000) */
	const void *resume;  /* start after this data key (NULL: from the start) */
	size_t resume_len;
	/* After each chunk: rows done so far and the last data key written.
	 * Non-zero return stops the backfill (cancel) with KV_BUSY. */
	int (*progress)(void *arg, uint64_t rows, const void *last_key, size_t last_len);
	void *progress_arg;
	/* Chunks skip the log fsync; a later synced commit (the one that
	 * publishes the index) makes them durable with it. */
	bool no_sync;
	/* Writers do not maintain the index during this backfill; the caller
	 * catches up with rows changed after it started (a transactional
	 * CREATE INDEX does at commit): chunks commit without the conflict
	 * check and are written verified. Without a unique index, the
	 * entries of all chunks are then committed at the end, as one
	 * ingest of sorted files (nothing is written if the build fails). */
	bool caught_up_later;
	/* Optional, with caught_up_later on a non-unique index: a second
	 * model of the same index whose entry() may run on another thread
	 * at the same time as m's (no evaluator: plain columns); the bulk
	 * build then reads half the rows on a thread of its own. */
	const idx_rowmodel *model2;
	/* Bulk build: bytes of entries a thread sorts in memory before they
	 * go to the batch (0: 64 MiB); smaller runs overlap and the ingest
	 * merges them. */
	size_t run_bytes;
} idx_backfill_opts;

/*
 * Copies the entries of every data row into the index, chunk by chunk, each
 * at the row's own timestamp. A chunk reads at a fresh snapshot and commits
 * with kv_commit_if on its data rows: if none changed meanwhile the entries
 * are written verified, else the chunk is retried (after 3 tries it is
 * written unverified, which readers validate). Idempotent: rerunning writes
 * the same cells. Unique indexes: guards are written too; a value held by
 * another live row fails with KV_CHECK_FAILED and its values described in
 * err->detail ("Key (a)=(1) is duplicated.").
 */
kv_status idx_backfill(kv_table *data, const idx_def *d, const idx_rowmodel *m, const idx_backfill_opts *o,
		       uint64_t *rows_done, util_err *err);

/* ---------------------------------------------------------------- checker */

typedef enum idx_problem {
	IDX_MISSING = 1, /* a data row without its entry */
	IDX_STALE_ENTRY, /* an entry no row yields (see idx_check_entry) */
	IDX_MISMATCH     /* the entry exists but its timestamp or value is wrong */
} idx_problem;

typedef struct idx_check_report {
	uint64_t rows;    /* data rows with an entry */
	uint64_t entries; /* index entries seen */
	uint64_t missing, stale, mismatched;
} idx_check_report;

/* One problem the checker found, as its callback gets it (valid during the
 * call only). */
typedef struct idx_check_problem {
	idx_problem kind;
	kv_slice entry_key; /* the entry's key (missing: the expected key) */
	kv_slice data_key;  /* the data row's key (empty: a malformed entry) */
	const char *why;    /* what disagreed, static text; NULL: nothing more */
	kv_ts entry_ts;     /* the entry's timestamp; 0: no entry */
	kv_ts row_ts;       /* newest of the row's cells the index depends on; 0: no row */
	bool verified;      /* the entry's verified flag */
} idx_check_problem;
typedef void (*idx_check_fn)(void *arg, const idx_check_problem *p);

/* Compares the index with the data at read_ts (0 = now). fn (may be NULL)
 * gets every problem. */
kv_status idx_check(kv_table *data, const idx_def *d, const idx_rowmodel *m, kv_ts read_ts,
		    idx_check_report *r, idx_check_fn fn, void *arg);
/*
 * The checker's verdict on the cell c found at the entry key a data row
 * (key data_key, entry value val, row_ts as idx_rowmodel.entry gives)
 * must have: 0 when it is right; IDX_MISMATCH when it is another row's or
 * a guard, older than the row's cells, or a payload other than the row's
 * that readers could trust (verified, or written with the row's cells);
 * IDX_STALE_ENTRY for an unverified entry newer than the row with another
 * payload: what a split commit interrupted after its index step leaves when
 * the update kept the entry key (readers take the row's values and repair
 * the payload). Fills *out (kind 0 when right).
 */
idx_problem idx_check_entry(const idx_def *d, const kv_cell *c, kv_slice data_key, kv_slice val, kv_ts row_ts,
			    idx_check_problem *out);

/* ---------------------------------------------------------------- GC */

/*
 * Installs a compaction filter on the index's storage that drops entries
 * judged STALE at the store's current read point — never entries above it
 * (unfinished split commits), and only when no other version of the key is
 * visible (dropping the newest of several would expose an older one; read
 * repair masks those). The model (and its arg) must
 * stay valid until idx_gc_uninstall(); the GC object holds its own handles.
 */
typedef struct idx_gc idx_gc;
idx_gc *idx_gc_install(kv_store *s, const char *index_storage, const char *data_storage, const idx_def *d,
		       const idx_rowmodel *m);
/* Removes the filter; waits for a compaction using it to finish. Frees gc. */
void idx_gc_uninstall(idx_gc *gc);
/* Entries dropped by this filter so far. */
uint64_t idx_gc_dropped(const idx_gc *gc);

#endif /* STRATA_IDX_H */
