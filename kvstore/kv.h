/*
 * kv.h — the public API of Strata's ordered key-value store (HBase model).
 *
 * Everything above kvstore/ talks to the store only through this header, so
 * that a second backend on a distributed engine can implement it unchanged.
 *
 * Data model
 *   store > kv tables > column families > rows > cells.
 *   A cell is (row, family, qualifier, timestamp, type) -> value, ordered by
 *   row asc, family asc, qualifier asc, timestamp desc, type desc (memcmp
 *   order for byte strings). Types follow HBase: Put, Delete (one version),
 *   DeleteColumn (all versions <= ts), DeleteFamily (all cells of the row in
 *   the family with ts <= marker ts), DeleteFamilyVersion (all cells of the
 *   row in the family with exactly that ts).
 *
 * Time
 *   Timestamps are microseconds since the Unix epoch from a hybrid logical
 *   clock: every committed batch gets a unique, strictly increasing commit
 *   timestamp (max(wall clock, last + 1)). The read point is the newest
 *   timestamp below which every commit is complete; a read at read_ts sees
 *   exactly the cells with ts <= read_ts of complete commits, never part of a
 *   batch. Cells older than the newest version stay readable until
 *   compaction drops them (retention policy), so reads "as of" a past
 *   timestamp work within the retention window.
 *
 * Errors
 *   Functions return kv_status. On failure a message describing the error is
 *   available from kv_errmsg() on the same thread until the next failing
 *   call. Corruption is always reported as KV_CORRUPTION, never as wrong data.
 *   After an fsync failure the store refuses writes (KV_READ_ONLY) until it
 *   is reopened and has recovered from its log.
 *
 * Threads
 *   A kv_store and its kv_tables are safe to use from many threads at once.
 *   A kv_batch and a kv_iter belong to one thread at a time.
 */
#ifndef STRATA_KV_H
#define STRATA_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef struct kv_store kv_store;
typedef struct kv_table kv_table;
typedef struct kv_batch kv_batch;
typedef struct kv_iter kv_iter;
typedef struct kv_filter kv_filter;
typedef struct kv_fs kv_fs; /* file-system interface, see kv_fs.h */

typedef enum kv_status {
	KV_OK = 0,
	KV_NOT_FOUND,    /* no such table / family / cell */
	KV_EXISTS,       /* table or family already exists */
	KV_CONFLICT,     /* commit_if: a row changed after read_ts */
	KV_CHECK_FAILED, /* a batch condition did not hold; nothing written */
	KV_INVALID,      /* bad argument (caller bug or hostile input) */
	KV_CORRUPTION,   /* checksum mismatch or malformed file */
	KV_IO_ERROR,     /* EIO and friends */
	KV_NO_SPACE,     /* ENOSPC; the store stays consistent */
	KV_READ_ONLY,    /* writes refused after an fsync failure */
	KV_NO_MEMORY,    /* allocation failed or budget exceeded */
	KV_BUSY,         /* e.g. table in use by a running operation */
	KV_CLOSED,       /* store shutting down */
	KV_TOO_LARGE,    /* a value, row or batch exceeds a backend limit */
	KV_NOT_SUPPORTED /* the store's backend cannot do this (e.g. files on etcd) */
} kv_status;

const char *kv_status_name(kv_status s);
/* Message of the last failure on this thread ("" if none). */
const char *kv_errmsg(void);

typedef uint64_t kv_ts;
#define KV_TS_MAX UINT64_MAX /* as read_ts: "the current read point" */
#define KV_TS_LATEST 0       /* as write ts: "the batch's commit timestamp" */

typedef enum kv_cell_type {
	KV_PUT = 4,
	KV_DELETE = 8,
	KV_DELETE_FAMILY_VERSION = 10,
	KV_DELETE_COLUMN = 12,
	KV_DELETE_FAMILY = 14
} kv_cell_type;

/* A view of bytes owned by someone else (see the function's lifetime note). */
typedef struct kv_slice {
	const uint8_t *data;
	size_t len;
} kv_slice;

typedef struct kv_cell {
	kv_slice row;
	kv_slice family;
	kv_slice qualifier;
	kv_ts ts;
	uint8_t type; /* kv_cell_type */
	kv_slice value;
} kv_cell;

/* memcmp order with shorter-is-smaller, as for all keys in the store. */
int kv_slice_cmp(kv_slice a, kv_slice b);
/* Full cell order (row, family, qualifier asc; ts, type desc). */
int kv_cell_cmp(const kv_cell *a, const kv_cell *b);

/* ---------------------------------------------------------------- store */

typedef enum kv_durability {
	KV_SYNC_COMMIT = 0, /* fsync the log before a commit returns (group commit) */
	KV_SYNC_PERIODIC,   /* fsync every sync_interval_ms; a crash may lose the tail */
	KV_SYNC_NONE        /* tests and bulk loads only */
} kv_durability;

typedef struct kv_store_opts {
	kv_durability durability;
	int sync_interval_ms;          /* for KV_SYNC_PERIODIC; default 100 */
	size_t memstore_flush_bytes;   /* per kv table; default 64 MiB */
	size_t memstore_global_bytes;  /* writers stall above this; default 1 GiB */
	size_t block_cache_bytes;      /* default 256 MiB */
	int max_open_files;            /* default 1000 */
	int compaction_threads;        /* default 1; < 0: no background compactions (tests) */
	size_t wal_segment_bytes;      /* default 64 MiB */
	kv_fs *fs;                     /* NULL = POSIX; borrowed, must outlive the store */
	bool create_if_missing;
	bool read_only;                /* open for inspection (tools); no writes, no compaction */
	/* A batch whose mutations pass this many bytes in memory sorts them and
	 * writes them to run files in the store directory, so its memory stays
	 * bounded whatever its size; default 64 MiB, at most 256 MiB. */
	size_t batch_spill_bytes;
} kv_store_opts;

void kv_store_opts_default(kv_store_opts *o);

/* Opens (recovering from the log) or creates a store in directory `path`.
 * A path "etcd://host:port[,host:port...][/prefix]" opens the etcd v3
 * backend instead (docs/scale-out.md): cells live in the etcd cluster under
 * the key prefix (default "/strata"), several processes may open the same
 * store; operations on local files (backups, verify, file listings) return
 * KV_NOT_SUPPORTED or report nothing, flushes do nothing, and a major
 * compaction is a version GC pass (kvstore/etcd_gc.c). */
kv_status kv_store_open(const char *path, const kv_store_opts *opts, kv_store **out);
/* Flushes nothing extra (the log is durable), stops background work, frees.
 * REQUIRES: no open iterators or batches in use. */
void kv_store_close(kv_store *s);

/* The newest timestamp below which all commits are complete. */
kv_ts kv_read_point(kv_store *s);
/* A store shared by several processes (etcd backend): every later read
 * point (kv_read_point, kv_snapshot_acquire) also reads the newest version
 * of this one cell, in the same round trip; kv_watched_ts then answers for
 * such a read point without another read. One cell per store (a later call
 * replaces it): the catalog's version. No-op on the embedded engine. */
void kv_watch_cell(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		   size_t qlen);
/* A store shared by several processes (etcd backend): this process's
 * owner id, published on a lease for as long as the process lives (the
 * Version GC horizon key, kvstore/etcd_horizon.c). 0 when there is none:
 * the embedded engine, or the etcd horizon publisher is off
 * (STRATA_ETCD_COMPACT_S=0). Owners of state that must go with a crashed
 * process (temporary schemas) record it. */
uint64_t kv_store_owner_id(kv_store *s);
/* A store shared by several processes (etcd backend): a number no other
 * process that opened the store had or will have (1, 2, ...: a counter in
 * the store, taken at open). 0 on the embedded engine. Names that must not
 * collide between servers (temporary schemas) carry it. */
uint64_t kv_store_server_no(kv_store *s);
/* Whether owner id is alive: its leased key still exists (it goes once the
 * lease expires, STRATA_ETCD_HORIZON_TTL_S after the process died).
 * KV_NOT_SUPPORTED on the embedded engine. */
kv_status kv_store_owner_alive(kv_store *s, uint64_t id, bool *alive);
/* True if read point read_ts, just taken, read the watched cell: *ts is the
 * timestamp of its newest version as of read_ts (0: none). False: read it
 * (kv_get at read_ts). */
bool kv_watched_ts(kv_store *s, kv_ts read_ts, kv_ts *ts);
/* Makes the read point cover ts, a moment not after the wall clock
 * (KV_INVALID if it is), waiting for commits in flight: reads at ts are then
 * repeatable. An idle store's read point is its last commit's timestamp, so
 * reads "as of" a recent moment call this first. (readpoint.c) */
kv_status kv_read_point_wait(kv_store *s, kv_ts ts);

/* Pins a snapshot for reads that span many statements (a transaction):
 * *ts receives the current read point, and compactions keep every version a
 * read at *ts can see until kv_snapshot_release(s, *ts). Pins nest (each
 * acquire needs one release). Without a pin, versions older than the
 * family's retention_seconds may be dropped by a major compaction. */
kv_status kv_snapshot_acquire(kv_store *s, kv_ts *ts);
void kv_snapshot_release(kv_store *s, kv_ts ts);

/* ---------------------------------------------------------------- tables */

typedef enum kv_bloom { KV_BLOOM_NONE = 0, KV_BLOOM_ROW, KV_BLOOM_ROWCOL } kv_bloom;

typedef struct kv_family_opts {
	char name[32];         /* printable, non-empty */
	int max_versions;      /* default 1; versions kept by major compaction */
	int min_versions;      /* default 0; kept even when expired by TTL */
	int64_t ttl_seconds;   /* 0 = forever */
	bool keep_deleted_cells;
	int compression_level; /* zstd level 1..19; 0 = no compression; default 3 */
	kv_bloom bloom;        /* default KV_BLOOM_ROW */
	uint32_t block_size;   /* default 16 KiB */
	/* Minimum age (seconds) of versions before compaction may drop them:
	 * the time-travel retention window. Default 0 (only max_versions). */
	int64_t retention_seconds;
} kv_family_opts;

void kv_family_opts_default(kv_family_opts *o, const char *name);

/* Creates kv table `name` with the given families (at least one).
 * KV_EXISTS if it exists. Durable when it returns. */
kv_status kv_table_create(kv_store *s, const char *name, const kv_family_opts *fams, int nfams);
kv_status kv_table_drop(kv_store *s, const char *name);
/* Drops each of the n named tables that exists (the others are skipped) in
 * one manifest edit: one fsync for a commit's several old storages. KV_OK
 * when none exists. On a shared store (etcd), one drop after the other. */
kv_status kv_table_drop_many(kv_store *s, const char *const *names, int n);
/* Adds, changes or removes a family (remove: drop=true). */
kv_status kv_table_alter_family(kv_store *s, const char *name, const kv_family_opts *fam, bool drop);
/* Lists tables: calls fn for each; stops early if fn returns non-zero. */
kv_status kv_table_list(kv_store *s, int (*fn)(void *arg, const char *name), void *arg);
/* Copies out up to max family options; returns the count via *n. */
kv_status kv_table_families(kv_store *s, const char *name, kv_family_opts *out, int max, int *n);

/* Opens a handle (reference counted; cheap to call repeatedly). The handle
 * stays valid until kv_table_close() even if the table is dropped meanwhile
 * (reads then return KV_NOT_FOUND). */
kv_status kv_table_open(kv_store *s, const char *name, kv_table **out);
void kv_table_close(kv_table *t);
/* Takes another reference to an open table (a dropped table stays valid
 * while one is held); release it with kv_table_close(). */
void kv_table_ref(kv_table *t);
kv_store *kv_table_store(kv_table *t);
const char *kv_table_name(kv_table *t);

/* ---------------------------------------------------------------- writes */

/* A batch of mutations over any rows and tables of one store, committed
 * atomically at one timestamp, of any size. The batch copies every byte
 * passed to it. Beyond kv_store_opts.batch_spill_bytes it sorts its
 * mutations and spills them to run files in the store directory, so a
 * batch of many gigabytes (a bulk load) holds little memory; a spill error
 * (no space, I/O) makes the commit fail with that status. Caller frees
 * with kv_batch_free(), before the store is closed. */
kv_batch *kv_batch_new(void);
void kv_batch_free(kv_batch *b);
void kv_batch_clear(kv_batch *b);
size_t kv_batch_count(const kv_batch *b);     /* mutations (spilled ones included) */
size_t kv_batch_byte_size(const kv_batch *b); /* approximate, spilled bytes included */
/* Declares that the puts to come arrive in ascending cell order (one
 * table and family, keys ascending, a row's qualifiers ascending): while
 * they do, each goes straight into a sorted run file (no buffer, no sort);
 * the first put out of order, delete or other table ends the run and the
 * batch goes on as usual. A batch that streamed is committed as a large
 * commit (sorted files, as after a spill). Call on an empty batch;
 * kv_batch_clear() ends it. */
void kv_batch_sorted(kv_batch *b);
/* As kv_batch_sorted(), for puts that come as a sequence of ascending
 * runs (a load sorted chunk by chunk): a put out of order (lower or
 * identical cell, another table, family or kind) finishes the run file and
 * starts the next one instead of ending streaming; a later run wins over
 * an earlier one on identical cells, as a later mutation does. Deletes
 * are buffered, and puts after one wait in the buffer until it spills. A
 * run of fewer than 4096 cells ends streaming (the rest is buffered).
 * Call on a batch with nothing buffered (runs already spilled are fine);
 * kv_batch_clear() ends it. */
void kv_batch_sorted_runs(kv_batch *b);

/* ts = KV_TS_LATEST: the commit timestamp. An explicit ts (backfills,
 * tests, reserve_ts protocols) is kept as given. */
void kv_batch_put(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		  const void *qual, size_t qlen, kv_ts ts, const void *val, size_t vlen);
/* One cell of kv_batch_put_row: qualifier and value (borrowed for the call). */
typedef struct kv_put_cell {
	const void *qual;
	size_t qlen;
	const void *val;
	size_t vlen;
} kv_put_cell;
/* Puts n cells of one row and family at ts, as n kv_batch_put calls in
 * this order would. With strictly ascending qualifiers a streaming batch
 * (kv_batch_sorted, kv_batch_sorted_runs) checks the order and encodes the
 * key once per row, not per cell (bulk loads and re-keys). */
void kv_batch_put_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family, kv_ts ts,
		      const kv_put_cell *cells, size_t n);
/* Moves src's streamed run files behind dst's runs, to be committed by dst's
 * commit as one large commit (files of key-disjoint runs kept apart, as
 * one batch's runs are): two threads streaming two key ranges into two
 * kv_batch_sorted batches commit as one. Both streams end; src is left
 * empty. KV_INVALID (nothing moved) when either batch holds buffered
 * mutations, conditions or checks, or they belong to different stores. */
kv_status kv_batch_take_runs(kv_batch *dst, kv_batch *src);
/* type: KV_DELETE, KV_DELETE_COLUMN, KV_DELETE_FAMILY (qual ignored),
 * KV_DELETE_FAMILY_VERSION (qual ignored, ts required). */
void kv_batch_delete(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		     const void *qual, size_t qlen, kv_ts ts, kv_cell_type type);
/* DeleteFamily in every family of the table at ts. */
void kv_batch_delete_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts ts);

typedef enum kv_cmp_op {
	KV_CMP_EQ = 0,
	KV_CMP_NE,
	KV_CMP_LT, /* current value < given value (memcmp order) */
	KV_CMP_LE,
	KV_CMP_GT,
	KV_CMP_GE,
	KV_CMP_ABSENT, /* the cell has no visible version */
	KV_CMP_PRESENT
} kv_cmp_op;

/* A condition checked atomically at commit against the newest visible
 * version of the cell: "current <op> value". A failing condition makes the
 * commit return KV_CHECK_FAILED and write nothing. (checkAndMutate is a
 * batch with one condition and mutations on that row; on a distributed
 * backend the conditions become the compares of one transaction.) */
void kv_batch_require(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, kv_cmp_op op, const void *val, size_t vlen);
/* Adds a row to the conflict set of kv_commit_if() without writing it
 * (rows read under SELECT ... FOR UPDATE, say). */
void kv_batch_check_row(kv_batch *b, kv_table *t, const void *row, size_t rlen);
/* Adds a row that every commit of the batch (kv_commit too) checks against
 * its own timestamp: KV_CONFLICT if the row has a committed cell newer than
 * read_ts. For a write based on the version read at read_ts when no row
 * lock spans the writers (READ COMMITTED on a store shared by several
 * servers). */
void kv_batch_check_row_at(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts);
/* Like kv_batch_check_row_at, and the commit counts as a change of the row
 * for every other commit's checks (kv_commit_if, kv_batch_check_row_at),
 * without writing a cell: an exclusive row lock (SELECT ... FOR UPDATE)
 * held across servers sharing a store, first committer wins. The embedded
 * engine, whose row locks span all its writers, only checks. */
void kv_batch_lock_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts);
/* Like kv_batch_check_row_at (read_ts 0: no check), and the commit leaves
 * a share mark on the row: a later commit that deletes the row
 * (kv_batch_delete_row) and checks it against a point before the mark gets
 * KV_CONFLICT. Share marks do not conflict with each other. A shared row
 * lock (SELECT ... FOR SHARE / FOR KEY SHARE, a foreign key's parent row)
 * held across servers sharing a store; the embedded engine, whose row
 * locks span all its writers, only checks. */
void kv_batch_share_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts);
/* The commit compares the row's share mark unchanged since the version its
 * write is based on, as a row delete does: for a change of what other rows
 * reference (a unique non-key column a foreign key points at) — another
 * commit that share-locked the row after that version makes this one fail
 * with KV_CONFLICT. Adds the row to kv_commit_if's conflict set like
 * kv_batch_check_row; the embedded engine, whose row locks span all its
 * writers, does nothing else. */
void kv_batch_guard_shares(kv_batch *b, kv_table *t, const void *row, size_t rlen);

typedef struct kv_write_opts {
	bool no_sync; /* skip the fsync for this batch (bulk loads with their own sync) */
	kv_ts ts;     /* with kv_ts_reserve(): commit at this reserved timestamp */
	/* Commit the batch as sorted files (a large commit) even if it did
	 * not reach the spill size: no memstore insert and no log record per
	 * cell. For bulk writes of many rows into storage that takes few
	 * other writes (a new table or index being filled); small batches
	 * would make many small files. */
	bool ingest;
} kv_write_opts;

/* Commits the batch: one commit timestamp (returned in *commit_ts if not
 * NULL), durable per the store's durability when it returns; visible to
 * readers once every earlier timestamp is complete, never in part. A batch
 * that did not spill is one log record; a spilled batch becomes sorted
 * files added to its tables by one manifest edit (always durable, see
 * docs/kvstore.md, "Large commits") and is empty after a successful
 * commit. An empty batch succeeds without a timestamp. opts may be NULL. */
kv_status kv_commit(kv_store *s, kv_batch *b, const kv_write_opts *opts, kv_ts *commit_ts);
/* Like kv_commit, but KV_CONFLICT if any row written by the batch (or added
 * with kv_batch_check_row) has a committed cell newer than read_ts:
 * first-committer-wins for snapshot isolation. */
kv_status kv_commit_if(kv_store *s, kv_batch *b, kv_ts read_ts, const kv_write_opts *opts,
		       kv_ts *commit_ts);

/* Multi-step writes at one timestamp (index first, then data, when they are
 * not one batch): reserve a timestamp, commit batches with
 * kv_write_opts.ts = it, then finish. The read point never passes a reserved
 * timestamp that is not finished. */
kv_status kv_ts_reserve(kv_store *s, kv_ts *ts);
void kv_ts_finish(kv_store *s, kv_ts ts);

/* Atomic, serialisable per cell: reads the newest value (an 8-byte
 * big-endian int64, or absent = 0), adds delta, writes it at a new
 * timestamp; returns the new value. */
kv_status kv_increment(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		       size_t qlen, int64_t delta, int64_t *result);
/* Atomic append of bytes to the newest value of a cell. */
kv_status kv_append(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		    size_t qlen, const void *val, size_t vlen);

/* ---------------------------------------------------------------- filters */

/* HBase filter return codes: what the scan does with the current cell. */
typedef enum kv_filter_code {
	KV_FILTER_INCLUDE = 0,
	KV_FILTER_SKIP,          /* this cell only */
	KV_FILTER_NEXT_COL,      /* skip the other versions of this column */
	KV_FILTER_NEXT_ROW,      /* skip the rest of this row */
	KV_FILTER_SEEK_HINT,     /* seek to the cell from get_hint() (uses the block index) */
	KV_FILTER_DONE           /* stop the scan */
} kv_filter_code;

/* Custom filters (the SQL layer pushes predicates down with these). All
 * callbacks optional except filter_cell. Called in scan order for visible
 * cells (after version and delete processing). */
typedef struct kv_filter_vtbl {
	/* Row start: return true to skip the whole row without looking at cells. */
	bool (*filter_row_key)(void *arg, kv_slice row);
	kv_filter_code (*filter_cell)(void *arg, const kv_cell *c);
	/* For KV_FILTER_SEEK_HINT: fill *hint with the next cell position to seek
	 * to (row, family, qualifier; ts/type ignored). Valid until the next call. */
	void (*get_hint)(void *arg, const kv_cell *current, kv_cell *hint);
	/* Row end: the cells included for this row; return true to drop the row. */
	bool (*filter_row)(void *arg, const kv_cell *cells, size_t n);
	void (*reset)(void *arg); /* called before each row */
	void (*free)(void *arg);
} kv_filter_vtbl;

/* Constructors; the caller frees with kv_filter_free() (a list frees its
 * children). Every filter keeps its own copy of the bytes given. */
kv_filter *kv_filter_custom(const kv_filter_vtbl *vt, void *arg); /* takes ownership of arg (vt->free) */
/* Qualifiers in [min, max) (inclusiveness per flag); NULL bound = open. */
kv_filter *kv_filter_column_range(const void *min, size_t minlen, bool min_incl, const void *max,
				  size_t maxlen, bool max_incl);
kv_filter *kv_filter_column_prefix(const void *prefix, size_t len);
kv_filter *kv_filter_multi_column_prefix(const kv_slice *prefixes, int n);
kv_filter *kv_filter_row_prefix(const void *prefix, size_t len);
/* Keep rows whose cell family:qual compares `op` to value (memcmp order);
 * filter_if_missing drops rows without the cell. */
kv_filter *kv_filter_single_column_value(const char *family, const void *qual, size_t qlen,
					 kv_cmp_op op, const void *val, size_t vlen,
					 bool filter_if_missing);
typedef enum kv_filter_list_op { KV_FILTER_AND = 0, KV_FILTER_OR } kv_filter_list_op;
kv_filter *kv_filter_list(kv_filter_list_op op, kv_filter **filters, int n); /* takes ownership */
void kv_filter_free(kv_filter *f);

/* ---------------------------------------------------------------- reads */

typedef struct kv_column {
	const char *family;
	const void *qualifier; /* NULL = every qualifier of the family */
	size_t qlen;
} kv_column;

typedef struct kv_read_opts {
	kv_ts read_ts;      /* 0 or KV_TS_MAX = the current read point */
	kv_ts min_ts;       /* time range [min_ts, max_ts); 0 = unbounded */
	kv_ts max_ts;       /* 0 = unbounded */
	int max_versions;   /* 0 = 1 */
	const kv_column *columns; /* NULL = all families, all qualifiers */
	int ncolumns;
	const kv_filter *filter;  /* borrowed; must outlive the read */
	bool raw;           /* return delete markers and deleted/excess versions */
	bool no_cache;      /* do not fill the block cache (big scans) */
	/* With no_cache: fill it all the same when the scanned files hold at
	 * most half of the cache's capacity in data blocks (a full scan of a
	 * table that fits stays cached instead of decompressing every block
	 * each time; bigger tables do not evict everything else). */
	bool cache_small;
} kv_read_opts;

typedef struct kv_scan_opts {
	kv_read_opts read;
	/* Row range [start, stop); NULL/0-length start = from the first row,
	 * NULL stop = to the last row. The range is the same for reverse scans. */
	const void *start;
	size_t start_len;
	const void *stop;
	size_t stop_len;
	bool start_exclusive; /* (start, stop) */
	bool stop_inclusive;  /* [start, stop] */
	bool reverse;         /* rows descending; cells within a row still in order */
	uint64_t limit;       /* max rows; 0 = no limit */
	uint32_t batch;       /* max cells returned per row chunk (wide rows); 0 = no limit */
	/* Reverse scans: the column mask the caller will read rows with
	 * (kv_iter_row_sel's mask and nbits; NULL: every cell). Rows are
	 * buffered with only the cells it passes plus each row's first cell,
	 * so kv_iter_next() and kv_iter_row() may not see the others. Read
	 * until kv_iter_close() (caller keeps it alive). Forward scans ignore it. */
	const uint64_t *sel;
	uint32_t sel_bits;
} kv_scan_opts;

/* A row read with kv_get(): cells in order, bytes owned by the arena
 * passed in (valid until it is reset). n == 0 when the row does not exist. */
typedef struct kv_row {
	kv_cell *cells;
	size_t n;
} kv_row;

kv_status kv_get(kv_table *t, const void *row, size_t rlen, const kv_read_opts *opts, util_arena *arena,
		 kv_row *out);

/*
 * Scans return an iterator over visible cells in scan order; it is
 * positioned on the first cell when returned (check kv_iter_valid). Never
 * NULL: an iterator that failed to open carries the error in its status.
 * Caller frees with kv_iter_close(). The iterator reads a consistent
 * snapshot at opts->read.read_ts (resolved at creation).
 */
kv_iter *kv_scan(kv_table *t, const kv_scan_opts *opts);
bool kv_iter_valid(const kv_iter *it);
/* REQUIRES: valid(). Valid until the next call that moves the iterator. */
const kv_cell *kv_iter_cell(const kv_iter *it);
void kv_iter_next(kv_iter *it);
/* Skips the rest of the current row. */
void kv_iter_next_row(kv_iter *it);
/* Forward: first row >= row; reverse: first row <= row (clamped to the
 * scan's range). Uses the block index, never steps cell by cell. */
void kv_iter_seek_row(kv_iter *it, const void *row, size_t rlen);
/* True when the last kv_iter_next() moved to a new row. */
bool kv_iter_row_start(const kv_iter *it);
/* Whole-row reading: passes the current cell and every following cell of
 * its row to fn, in order, then leaves the iterator on the first cell of
 * the next row (or not valid: check kv_iter_status()). The cell and its
 * bytes are valid only during the call. Returns the number of cells (0 if
 * the iterator was not valid). Cheaper than kv_iter_next() per cell on
 * plain forward scans. */
typedef void (*kv_cell_fn)(void *arg, const kv_cell *c);
size_t kv_iter_row(kv_iter *it, kv_cell_fn fn, void *arg);
/* kv_iter_row() that passes only the cells of some columns: a cell whose
 * qualifier is 2 bytes, read as a big-endian number id, is passed to fn
 * only when id < nbits and bit id of mask (bit id % 64 of mask[id / 64])
 * is set; cells with any other qualifier (the empty one, longer ones) are
 * always passed. Skipped cells cost no call and their values are not
 * touched. mask NULL: every cell. Returns the number of cells read (passed
 * or skipped). mask is only read during the call. */
size_t kv_iter_row_sel(kv_iter *it, const uint64_t *mask, uint32_t nbits, kv_cell_fn fn, void *arg);
/* kv_iter_row() whose cells' values outlive their call: a value passed to
 * fn stays valid until leave(arg) is called, which kv_iter_row_hold does
 * (maybe several times, maybe not at all) before the iterator moves off
 * the memory the values point into; so leave copies the values held so
 * far that are still needed. Without a leave call, the values stay valid
 * until the next call that moves or closes the iterator. Row, family and
 * qualifier bytes are valid only during fn, as with kv_iter_row(). On a
 * plain forward scan of sorted files the values point into the source's
 * block (no copy); elsewhere leave follows every fn. */
size_t kv_iter_row_hold(kv_iter *it, kv_cell_fn fn, void (*leave)(void *arg), void *arg);
/* A test on one cell of a row, for kv_iter_skip_rows: the cell whose
 * qualifier is id, a 2-byte qualifier read as a big-endian number, or with
 * empty set the cell with the empty qualifier (id not used; a row whose
 * cells hold several values in that one, as SQL's packed rows: fn finds
 * its part of the whole value). fn gets the value of the row's (visible)
 * test cell, valid only during the call, and returns whether the row may
 * be wanted. */
typedef struct kv_row_test {
	uint32_t id;
	bool (*fn)(void *arg, const uint8_t *v, size_t vl);
	void *arg;
	bool empty;
} kv_row_test;
/* With the iterator on a row's first cell (after kv_scan, kv_iter_row or
 * kv_iter_row_sel): skips rows whose t->id cell is missing or fails t->fn,
 * looking at their cells in the kv loop (cells the mask leaves out, as
 * kv_iter_row_sel's, are not set up; t->id must be one it lets through).
 * Stops on the first cell of the first row not skipped, or at the end
 * (check kv_iter_valid() and kv_iter_status()), or after max_rows skipped
 * rows: then it returns max_rows and the row it is on was not judged
 * (call again). Read the row it stopped at with kv_iter_row_sel and the
 * same mask, or kv_iter_row/kv_iter_next (its cells up to the test's
 * were read ahead and are handed out first, as the mask let them
 * through: the row's first cell, then only the mask's up to the test
 * cell; t->fn has seen its test cell already). Skips only on plain
 * forward scans of sorted files (the
 * store's fast path); elsewhere it does nothing and returns 0. Returns
 * the number of rows skipped. */
size_t kv_iter_skip_rows(kv_iter *it, const uint64_t *mask, uint32_t nbits, const kv_row_test *t,
			 size_t max_rows);
kv_status kv_iter_status(const kv_iter *it);
void kv_iter_close(kv_iter *it);

/* First and last row of a range (one seek / one reverse seek). The row key
 * is copied into arena. KV_NOT_FOUND if the range is empty. */
kv_status kv_first_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row);
kv_status kv_last_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row);

/* Last row of [lo, hi) found by bisection with existence probes only (as in
 * Accumulo's FindMax): for backends without reverse scans. *probes counts
 * the probes made (O(log n) in the key length). */
kv_status kv_find_max_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row,
			  int *probes);

/* Up to max-1 approximately equal-sized split points of [start, stop),
 * from the sorted files' block indexes; copied into arena. */
kv_status kv_split_points(kv_table *t, const void *start, size_t slen, const void *stop, size_t stlen,
			  int max, util_arena *arena, kv_slice *points, int *n);

/* ---------------------------------------------------------------- maintenance */

typedef enum kv_compaction_decision { KV_COMPACT_KEEP = 0, KV_COMPACT_DROP } kv_compaction_decision;
/* Called by compaction for each surviving cell; upper layers drop cells (index
 * GC). Runs in a background thread. fn == NULL removes the hook. */
typedef kv_compaction_decision (*kv_compaction_filter_fn)(void *arg, const kv_cell *c);
void kv_table_set_compaction_filter(kv_table *t, kv_compaction_filter_fn fn, void *arg);

/* Writes the table's memstores to sorted files and waits for it. */
kv_status kv_table_flush(kv_table *t);
/* Compacts the table and waits: major = all files into one, dropping
 * deleted, expired and excess versions. */
kv_status kv_table_compact(kv_table *t, bool major);
/* Flushes every table (e.g. before a backup). */
kv_status kv_store_flush(kv_store *s);

typedef struct kv_table_stats {
	uint64_t memstore_bytes;
	uint64_t file_count;
	uint64_t file_bytes;
	uint64_t entries;        /* cells in files (approximate) */
	uint64_t compactions;
	uint64_t flushes;
} kv_table_stats;

typedef struct kv_store_stats {
	uint64_t commits;
	uint64_t wal_bytes;
	uint64_t wal_syncs;
	uint64_t cache_hits;
	uint64_t cache_misses;
	uint64_t cache_bytes;
	uint64_t memstore_bytes;
	uint64_t stalls;
	kv_ts read_point;
} kv_store_stats;

kv_status kv_table_get_stats(kv_table *t, kv_table_stats *out);
void kv_store_get_stats(kv_store *s, kv_store_stats *out);

/* Inspection (inspect.c), for monitoring views. */
typedef struct kv_file_info {
	char family[32];
	uint64_t number;         /* the file is <number>.sst in the store directory */
	uint64_t size, entries, deletes;
	kv_ts min_ts, max_ts;
} kv_file_info;
/* The table's sorted files, per family newest first. *out is allocated
 * (caller frees with free()); *n may be 0. */
kv_status kv_table_files(kv_table *t, kv_file_info **out, int *n);

typedef struct kv_table_activity {
	bool flush_queued;      /* a flush is waiting or running */
	bool compacting;        /* a compaction is running */
	int frozen_memstores;   /* memstores waiting to be flushed */
	kv_ts flushed_ts;       /* every commit at or below is in sorted files */
} kv_table_activity;
void kv_table_get_activity(kv_table *t, kv_table_activity *out);

/* Verifies every checksum of every file and log segment; reports each
 * problem through fn (may be NULL). KV_CORRUPTION if any. */
kv_status kv_store_verify(kv_store *s, void (*fn)(void *arg, const char *problem), void *arg);

/* ---------------------------------------------------------------- backups */

/*
 * Backups (backup.c, restore.c; format in docs/backup-format.md). A backup
 * is a directory holding every kv table's cells as of one timestamp T,
 * taken while writes continue: a full backup copies every cell the store
 * keeps with ts <= T (old versions and delete markers included), an
 * incremental one the cells with ts in (parent's T, T]. Both are logical
 * copies made with raw scans and restored with explicit-timestamp batches,
 * so reads of the restored store at any timestamp in [history_from, T]
 * equal the source's. The kv tables copied are those of T, taken with the
 * pinned snapshot: one dropped while the backup runs is still copied (DROP
 * is not blocked; its storage is released when the backup is done), one
 * created after T is not. Built on the public API (any backend) but for
 * that table set (kv_int.h).
 */
typedef struct kv_backup_opts {
	/* 0 = now: T is a pinned snapshot of the current read point. Else a
	 * past T, which must stay within every family's retention_seconds
	 * until the backup ends (KV_INVALID otherwise). */
	kv_ts as_of;
	/* Incremental: the previous backup's directory (NULL = full). A table
	 * whose retention window does not reach back to the parent's T (a
	 * compaction may have dropped delete markers since) is copied whole;
	 * KV_INVALID if the window passes the parent's T during the backup. */
	const char *parent;
	/* Incremental: tables to copy whole anyway (e.g. an index whose
	 * backfill writes cells with old timestamps). NULL = none. */
	bool (*force_full)(void *arg, const char *table);
	/* Called as tables are copied (bytes written so far for the table);
	 * returning false stops the backup with KV_BUSY. NULL = none. */
	bool (*progress)(void *arg, const char *table, uint64_t cells, uint64_t bytes);
	void *arg;
	kv_fs *fs; /* NULL = POSIX */
} kv_backup_opts;

typedef struct kv_backup_info {
	char id[33];          /* 32 hex digits */
	bool incremental;
	char parent_id[33];   /* "" for a full backup */
	kv_ts ts;             /* consistent as of this timestamp */
	kv_ts since;          /* incremental: covers (since, ts] */
	kv_ts history_from;   /* restores as of [history_from, ts] are exact */
	int64_t created_us;   /* wall clock when the backup finished */
	uint64_t tables, cells, bytes;
} kv_backup_info;

/* Writes a backup of s into dir (created; must be absent or empty). */
kv_status kv_backup(kv_store *s, const char *dir, const kv_backup_opts *o, kv_backup_info *out);
/* Reads a backup's manifest; with verify, also every cell file (checksums,
 * counts). KV_CORRUPTION on damage. fs NULL = POSIX. */
kv_status kv_backup_inspect(const char *dir, bool verify, kv_fs *fs, kv_backup_info *out);

typedef struct kv_restore_opts {
	kv_ts as_of; /* 0 = the backup's T; else a point in [history_from, T] */
	/* As kv_backup_opts.progress (cells loaded so far for the table). */
	bool (*progress)(void *arg, const char *table, uint64_t cells, uint64_t bytes);
	void *arg;
	kv_fs *fs; /* NULL = POSIX */
} kv_restore_opts;

/* Restores the backup in dir (an incremental one with its chain of
 * parents, found by id at their recorded paths or beside dir) into a new
 * store at store_dir, which must not exist. The store appears there only
 * when complete. *out describes the restored point (ts = as_of). */
kv_status kv_restore(const char *dir, const char *store_dir, const kv_restore_opts *o, kv_backup_info *out);

#endif /* STRATA_KV_H */
