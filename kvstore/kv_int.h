/*
 * kv_int.h — kvstore internals shared between its files: the store, kv
 * tables, file sets (versions), read views (superversions), batches and
 * the helpers that report errors. Nothing outside kvstore/ includes this.
 *
 * Locking order (outer to inner): row locks (sorted stripes) ->
 * store->apply_rw -> table->flush_mu -> table->apply_mu -> store->mu ->
 * table->mu -> store->ts_mu -> store->bg_mu. The WAL and the block cache have private locks taken
 * last. Readers take table->mu only long enough to reference a superversion.
 */
#ifndef STRATA_KV_INT_H
#define STRATA_KV_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "blk.h"
#include "cache.h"
#include "ikey.h"
#include "iter.h"
#include "kv.h"
#include "kv_fs.h"
#include "manifest.h"
#include "mem.h"
#include "sst.h"
#include "wal.h"

/* Sets this thread's error message and returns st. */
kv_status kv_fail(kv_status st, const char *fmt, ...) UTIL_PRINTF(2, 3);
/* KV_NOT_SUPPORTED for an operation the store's backend cannot do. */
kv_status kv_not_supported(const char *what);
kv_status kv_errno_status(int e);
kv_status kv_fail_errno(int e, const char *what, const char *path);

#define KV_VALUE_MAX    (64u << 20)
#define KV_QUAL_MAX     (64u << 10)
#define KV_NROWLOCKS    4096
#define KV_MAX_FAMILIES 64
#define KV_STALL_FILES  24 /* writers to a table wait while a family has this many files */

/* ---------------------------------------------------------------- files and versions */

/* A live sorted file of one (table, family). Reference counted by the
 * versions that list it; unlinked when it is obsolete and unreferenced. */
typedef struct kv_sfile {
	atomic_int refs;
	kv_store *s;
	man_file m; /* metadata; smallest/largest owned */
	pthread_mutex_t open_mu;
	sst_reader *rd; /* opened on first use */
	atomic_bool obsolete;
	bool compacting; /* chosen by a running compaction (table->mu) */
	/* Files ingested by a large commit: its commit timestamp (0 for other
	 * files; not kept across restarts, when the clock is past it anyway).
	 * Readers whose read point is below it skip the file. While the
	 * commit completes (pending) compactions leave the file alone. */
	kv_ts ingest_ts;
	atomic_bool pending;
	struct kv_sfile *lprev, *lnext; /* open-file LRU (store->ofc_mu) */
	atomic_bool in_lru;
} kv_sfile;

void sfile_ref(kv_sfile *f);
void sfile_unref(kv_sfile *f);
/* The file's reader (opened on first use); a new reference the caller
 * drops with sst_unref(). */
kv_status sfile_reader(kv_sfile *f, sst_reader **out);

typedef struct kv_fileset {
	char family[32];
	kv_sfile **files; /* newest first */
	int n;
} kv_fileset;

/* An immutable set of files per family. */
typedef struct kv_version {
	atomic_int refs;
	int nfam;
	kv_fileset *fams;
} kv_version;

void version_unref(kv_version *v);
void version_mark_obsolete(kv_version *v);
/* A copy of v with files added and removed; each family's list stays
 * ordered newest first by seq (an added file goes before the first older
 * one). REQUIRES: t->mu. */
kv_version *version_edit(kv_version *v, kv_sfile **add, int nadd, kv_sfile **del, int ndel);
/* A new file object from a finished writer's properties (refs = 1). */
kv_sfile *sfile_new(kv_store *s, uint32_t tid, const char *fam, uint64_t number, const sst_props *p);
/* Adds src's late cells (man_file.late_*) to dst's: a compaction output
 * holds its inputs' (the oldest ts, the newest commit). */
void sfile_merge_late(man_file *dst, const man_file *src);
kv_fileset *version_family(kv_version *v, const char *fam, size_t flen);

/* What a reader needs: memstores + files + family options, pinned together. */
typedef struct kv_sv {
	atomic_int refs;
	uint64_t seq; /* unique over all tables (svl_next_seq) */
	kv_mem *mem;
	kv_mem **imm; /* frozen, newest first */
	int nimm;
	kv_version *v;
	kv_family_opts *fams;
	int nfam;
} kv_sv;

void sv_unref(kv_sv *sv);
const kv_family_opts *sv_family(const kv_sv *sv, const uint8_t *name, size_t len);

/* ---------------------------------------------------------------- tables */

/* An immutable list of a table's family names (lock-free family checks). */
typedef struct famnames {
	struct famnames *older;
	int n;
	char names[][32];
} famnames;

struct kv_table {
	kv_store *s;
	atomic_int refs; /* handles + 1 while listed in the store */
	uint32_t id;
	char *name;
	atomic_bool dropped;
	_Atomic int64_t meta_us;  /* etcd: when its metadata was last read (open cache, etcd_store.c) */
	pthread_mutex_t flush_mu; /* one flush of this table at a time */
	pthread_mutex_t apply_mu; /* inserts into the active memstore; its swap */
	pthread_mutex_t mu;       /* everything below */
	kv_sv *sv;
	_Atomic uint64_t sv_seq; /* sv->seq, for sv_local.c's lock-free check */
	kv_family_opts *fams;
	int nfam;
	_Atomic(struct famnames *) fnames; /* published names (table_has_family) */
	struct famnames *retired;          /* older lists, freed with the table */
	kv_mem *mem;
	kv_mem **imm; /* newest first; changed under apply_mu and mu */
	int nimm;
	kv_version *v;
	kv_ts flushed_ts; /* every commit <= this is in sorted files (manifest) */
	bool flush_queued;
	uint64_t flush_req, flush_done; /* generations for kv_table_flush waits */
	kv_status flush_err;
	bool compacting;
	int64_t compact_retry_us;   /* after a failed compaction: not before (mono clock) */
	atomic_bool too_many_files; /* some family has >= KV_STALL_FILES files */
	kv_compaction_filter_fn cf_fn;
	void *cf_arg;
	atomic_uint_fast64_t n_flushes, n_compactions;
	uint64_t eid; /* etcd backend: the table's id in cell keys (ekv.h) */
	/* etcd backend: what scans learnt of the keys (etcd_density.c); NULL
	 * until the first note, under mu, freed with the table. */
	struct ekv_density *edens;
};

/* The memstore a commit at cts goes to. REQUIRES: t->apply_mu held. */
kv_mem *table_target_mem(kv_table *t, kv_ts cts);
/* Takes a reference to the table's current superversion. */
kv_sv *table_sv(kv_table *t);
/* The table's current superversion through the calling thread's cache
 * (sv_local.c): no lock, no shared reference count when the cached one is
 * still current. Valid until svl_put(ref), on the same thread, with no
 * other svl_get of the table in between (a nested one takes a plain
 * reference). */
typedef struct svl_ref {
	void *slot; /* NULL: sv is a plain reference */
	struct svl_entry *e;
	kv_sv *sv;
} svl_ref;
kv_sv *svl_get(kv_table *t, svl_ref *ref);
/* A reader of f (a file of ref's superversion), from the thread's cache when
 * it has one; *unref says whether the caller must sst_unref it. */
kv_status svl_reader(svl_ref *ref, kv_sfile *f, sst_reader **out, bool *unref);
void svl_put(svl_ref *ref);
/* Drops every thread's cached superversions and readers: after an install
 * (the old superversion must not stay pinned) and before a table is freed. */
void svl_scrape(void);
uint64_t svl_next_seq(void);
/* Rebuilds t->sv from t->mem/imm/v/fams. REQUIRES: t->mu held. */
void table_install_sv(kv_table *t);
void table_unref(kv_table *t);
kv_table *table_new(kv_store *s, uint32_t id, const char *name, const kv_family_opts *fams, int nfam);
kv_status table_check_name(const char *name);
kv_status table_check_family(const kv_family_opts *f);
/* Lock-free: reads the published family-name list. */
bool table_has_family(kv_table *t, const char *fam);
/* Publishes t->fams' names for table_has_family. REQUIRES: t->mu held. */
void table_publish_families(kv_table *t);
/* The kv tables a backup at *T copies (backup.c), as handles in *out
 * (caller closes each with kv_table_close and frees the array), sorted by
 * name. With pin, *T is a pinned snapshot taken here (released by the
 * caller); else *T is given. Embedded: the snapshot is taken under the
 * table lock, so the handles are exactly the tables that existed at T, and
 * a handle keeps a table dropped since readable (its files are removed at
 * the last close). etcd (ekv_tables_at): the tables whose metadata key
 * exists at T's revision, dropped since or not. */
kv_status table_backup_set(kv_store *s, kv_ts *T, bool pin, kv_table ***out, int *n);
/* The oldest ts of a late cell (mem_late) that a commit newer than `after`
 * wrote into table t, KV_TS_MAX if none: an incremental backup whose
 * parent is as of `after` copies cells from there, so that a read repair
 * or backfill committed after the parent's point at an older timestamp is
 * not lost. Embedded engine only. */
kv_ts table_late_floor(kv_table *t, kv_ts after);
/* Test hook of table_backup_set (STRATA_TEST_FAULTS=1,
 * STRATA_BACKUP_PAUSE=<path>): once the point is pinned (embedded: and the
 * set taken; etcd: before the set is read at T's revision), creates <path>
 * and waits (up to 120 s) until it is removed, so a test can change the
 * tables meanwhile (backup.c). */
void backup_test_pause(void);
/* A handle's families into out[max] (*n: how many it has). */
void table_families_of(kv_table *t, kv_family_opts *out, int max, int *n);

/* ---------------------------------------------------------------- batches */

enum {
	MUT_DELETE_ROW = 200,
	MUT_INCR = 201, /* value: the delta, 8 bytes big-endian */
	MUT_APPEND = 202,
};

/* One mutation (32 bytes): its row, qualifier and value are consecutive
 * bytes of the batch's data buffer starting at off. */
typedef struct kv_mut {
	kv_table *t;
	kv_ts ts;
	uint32_t off;
	uint32_t vlen;
	uint32_t qlen : 24;
	uint32_t type : 8;
	uint16_t rlen;
	uint16_t fam; /* index into kv_batch.fams */
} kv_mut;

typedef struct kv_cond {
	kv_table *t;
	char fam[32];
	size_t roff, rlen, qoff, qlen, voff, vlen; /* into kv_batch.cdata */
	kv_cmp_op op;
} kv_cond;

typedef struct kv_chk {
	kv_table *t;
	size_t roff, rlen; /* into kv_batch.cdata */
	kv_ts ts;          /* kv_batch_check_row_at: checked against ts by any commit;
			      0: against kv_commit_if's read_ts */
	bool touch;        /* kv_batch_lock_row: counts as a change of the row */
	bool share;        /* kv_batch_share_row: leaves a share mark on the row */
	bool guard_share;  /* kv_batch_guard_shares: compares the share mark */
} kv_chk;

/* kv_iter_row_sel's test on a 2-byte qualifier's column id: true when its
 * column is wanted (a set bit of the mask). */
static inline bool sel_id(const uint64_t *mask, uint32_t nbits, uint32_t id)
{
	return id < nbits && ((mask[id >> 6] >> (id & 63)) & 1);
}

/* kv_iter_row_sel's test: true when the cell goes to fn. */
static inline bool sel_pass(const uint64_t *mask, uint32_t nbits, const kv_cell *c)
{
	return !mask || c->qualifier.len != 2 ||
	       sel_id(mask, nbits, (uint32_t)c->qualifier.data[0] << 8 | c->qualifier.data[1]);
}

/* The timestamp a check row is checked against, 0 if this commit does not
 * check it (check: kv_commit_if). */
static inline kv_ts chk_ts(const kv_chk *k, bool check, kv_ts read_ts)
{
	if (k->share && !k->ts)
		return 0; /* a share mark alone (kv_batch_share_row, read_ts 0) */
	return k->ts ? k->ts : check ? read_ts : 0;
}

typedef struct bstage bstage; /* spilled runs (stage.c) */

struct kv_batch {
	util_buf data; /* mutation bytes */
	kv_mut *m;
	size_t n, cap;
	char (*fams)[32]; /* family names used by the mutations */
	int nfams, cfams, lastfam;
	kv_cond *c;
	size_t nc, cc;
	kv_chk *k;
	size_t nk, ck;
	util_buf cdata; /* bytes of conditions and check rows */
	kv_status bad;
	char badmsg[160];
	int64_t incr_result; /* value written by the last MUT_INCR */
	/* Spilling (stage.c): once the in-memory mutations pass spill_at bytes
	 * they are sorted and written to run files in the store directory. */
	kv_store *s;     /* the store of the first table used */
	size_t spill_at; /* 0: never */
	bstage *stage;    /* NULL until the first spill */
	bool resolved;    /* every Delete is final (no deferring; ingest.c) */
	bool sorted;      /* kv_batch_sorted: puts stream into a run file while ordered */
	bool sorted_runs; /* kv_batch_sorted_runs: a put out of order starts the next run */
	size_t nspilled, spilled_bytes;
};

void batch_add_incr(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		    const void *qual, size_t qlen, int64_t delta);
void batch_add_append(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, const void *val, size_t vlen);
/* Frees what a batch owns without freeing the struct (stack batches). */
void batch_release(kv_batch *b);
void batch_mark_bad(kv_batch *b, kv_status st, const char *fmt, ...) UTIL_PRINTF(3, 4);
/* Index of a family name in b->fams (added if new); -1 if there are too many. */
int batch_fam_index(kv_batch *b, const char *family);

static inline const uint8_t *mut_row(const kv_batch *b, const kv_mut *m)
{
	return (const uint8_t *)b->data.data + m->off;
}
static inline const uint8_t *mut_qual(const kv_batch *b, const kv_mut *m)
{
	return (const uint8_t *)b->data.data + m->off + m->rlen;
}
static inline const uint8_t *mut_val(const kv_batch *b, const kv_mut *m)
{
	return (const uint8_t *)b->data.data + m->off + m->rlen + m->qlen;
}
static inline const char *mut_fam(const kv_batch *b, const kv_mut *m)
{
	return b->fams[m->fam];
}
static inline const uint8_t *cond_ptr(const kv_batch *b, size_t off)
{
	return (const uint8_t *)b->cdata.data + off;
}

/* Stage (stage.c): spilled runs of a batch. */
/* Sorts the in-memory mutations (except those resolved at commit) and
 * writes them as run files. On failure the batch is unchanged. */
kv_status stage_spill(kv_batch *b);
/* Streaming (kv_batch_sorted): writes the puts of n > 0 cells of one row
 * (qualifiers strictly ascending: the caller checked) and family index fi
 * straight into the batch's open run if the first comes after the last
 * cell written (same table, family and kind); *taken false otherwise, and
 * then streaming is over (b->sorted cleared, the run finished) and the
 * caller buffers the puts as usual. An error is a write error of the run. */
kv_status stage_stream_put(kv_batch *b, kv_table *t, int fi, const void *row, size_t rlen, kv_ts ts,
			   const kv_put_cell *cells, size_t n, bool *taken);
void stage_free(kv_store *s, bstage *st); /* unlinks every staged file */
/* Commits a batch that spilled (ingest.c): its runs become sorted files of
 * the tables, added with one manifest edit. */
kv_status commit_large(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		       kv_ts *commit_ts);

/* ---------------------------------------------------------------- background threads (bgthread.c) */

/* A thread that works between timed sleeps until asked to stop. The
 * caller owns the struct (zeroed, or left by kv_bg_stop) and keeps it
 * alive until kv_bg_stop returns. */
typedef struct kv_bg {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool running; /* started and not yet stopped (the starter's thread only) */
	bool stop;    /* under mu */
} kv_bg;

/* Starts fn(arg) on a thread of its own; false (and nothing to stop)
 * if the thread could not be created. */
bool kv_bg_start(kv_bg *bg, void *(*fn)(void *), void *arg);
/* From the thread: sleeps up to us microseconds; false (at once) when
 * asked to stop. */
bool kv_bg_sleep(kv_bg *bg, int64_t us);
/* From the thread: has it been asked to stop? */
bool kv_bg_stopping(kv_bg *bg);
/* Asks the thread to stop, wakes it and joins it; nothing if not running. */
void kv_bg_stop(kv_bg *bg);

/* ---------------------------------------------------------------- store */

typedef struct kv_pend {
	kv_ts ts;
	bool done;
	bool reserved;
	bool heap; /* freed when popped (reservations); else the owner's stack */
	struct kv_pend *next;
} kv_pend;

typedef struct recent_map recent_map;

struct kv_store {
	char *path;
	kv_store_opts o;
	kv_fs *fs;
	atomic_bool closing;

	pthread_mutex_t mu; /* tables, manifest, numbering */
	kv_table **tables;
	int ntables, ctables;
	man_writer *man;
	uint64_t next_file;
	uint32_t next_table;
	uint64_t wal_floor;

	/* Clock and read point. */
	pthread_mutex_t ts_mu;
	pthread_cond_t ts_cv;
	kv_ts last_ts;
	kv_pend *phead, *ptail;
	atomic_uint_fast64_t read_point;

	kv_wal *wal;
	pthread_rwlock_t apply_rw; /* commits hold it shared from log write to apply */
	pthread_mutex_t rowlocks[KV_NROWLOCKS];
	recent_map *recent;
	kv_cache *cache;
	/* Open-file cache: files with an open reader, most recent first. */
	pthread_mutex_t ofc_mu;
	kv_sfile ofc; /* sentinel */
	atomic_int ofc_count;

	/* Background work. */
	pthread_t bg;
	bool bg_started;
	pthread_t *compactors;
	int ncompactors;
	pthread_mutex_t bg_mu;
	pthread_cond_t bg_cv;      /* wakes the background thread */
	pthread_cond_t done_cv;    /* flush/compaction finished; stalls released */
	pthread_cond_t compact_cv; /* wakes compaction threads */
	bool bg_stop;
	kv_table **flushq; /* tables waiting for a flush (referenced) */
	int nflushq, cflushq;
	atomic_size_t mem_total;
	atomic_bool failed; /* fsync failure: read-only until reopened */
	/* Pinned snapshots (kv_snapshot_acquire), under ts_mu. */
	kv_ts *snaps;
	size_t nsnaps, csnaps;
	/* Rows are noted in `recent` only once some commit_if needed them. */
	atomic_bool recent_on;

	atomic_uint_fast64_t n_commits, n_stalls;
	/* Set when the store lives in an etcd cluster (ekv.h): the public
	 * functions dispatch there and nothing local (log, files) is used. */
	struct ekv *etcd;
};

uint64_t store_next_file(kv_store *s);
/* Looks a live table up by id (REQUIRES: s->mu held); no reference taken. */
kv_table *store_find_id(kv_store *s, uint32_t id);
/* Recomputes the oldest WAL segment still needed and deletes older ones. */
void store_update_wal_floor(kv_store *s);
/* Appends an edit to the manifest (REQUIRES: s->mu held). */
kv_status store_log_edit(kv_store *s, util_buf *edit);
void store_file_path(kv_store *s, uint64_t number, const char *ext, char *buf, size_t len);
/* Marks the store read-only after an unrecoverable write failure. */
void store_set_failed(kv_store *s, const char *why);
kv_status store_writable(kv_store *s);
/* Asks the background thread to flush t (the memstore is over its size). */
void store_request_flush(kv_store *s, kv_table *t);
void store_wake_bg(kv_store *s);
/* Waits while memstores use more than the global budget. */
void store_stall(kv_store *s);
/* Waits while t has too many files for reads to stay fast. */
void store_stall_files(kv_store *s, kv_table *t);

/* Clock (clock.c). */
/* Assigns the next commit timestamp and queues p (caller's storage, which
 * must live until the read point covers the timestamp). */
kv_ts clock_assign(kv_store *s, kv_pend *p);
void clock_complete(kv_store *s, kv_pend *p);
void clock_wait_visible(kv_store *s, kv_ts ts);
bool clock_is_reserved(kv_store *s, kv_ts ts);
/* The oldest timestamp compactions must keep readable: min(read point,
 * pinned snapshots). */
kv_ts clock_horizon(kv_store *s);
void clock_init(kv_store *s, kv_ts last);

/* Recent writes (recent.c): newest commit ts of recently written rows. */
recent_map *recent_new(kv_ts low_water);
void recent_free(recent_map *r);
void recent_note(recent_map *r, uint32_t table_id, const uint8_t *row, size_t rlen, kv_ts ts);
void recent_raise_low_water(recent_map *r, kv_ts ts);
/* 1 = conflict, 0 = none, -1 = unknown (read_ts older than the low-water mark). */
int recent_check(recent_map *r, uint32_t table_id, const uint8_t *row, size_t rlen, kv_ts read_ts);

/* Commit (commit.c). */
/* A mutation with everything resolved (ts == KV_TS_LATEST: commit ts). */
typedef struct rmut {
	kv_table *t;
	uint8_t type;
	const char *fam;
	const uint8_t *row, *q, *v;
	size_t rlen, qlen, vlen;
	kv_ts ts;
} rmut;

typedef struct cctx {
	rmut *r;
	size_t n, cap;
	uint8_t **owned; /* computed values */
	size_t nowned;
	kv_family_opts *famtmp; /* delete_row expansion */
} cctx;

/* Resolves the batch's mutations into cells (row deletes per family,
 * increments, appends, "delete the newest version") against the latest
 * state; c owns computed values (commit_cc_free). */
kv_status commit_resolve(kv_batch *b, cctx *c);
void commit_cc_free(cctx *c);
kv_status commit_batch(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		       kv_ts *commit_ts);
/* Checks the batch's conditions against the latest state (KV_CHECK_FAILED
 * if one fails). REQUIRES: the row locks of the condition rows. */
kv_status commit_check_conditions(kv_batch *b);
/* KV_CONFLICT if the row has a commit newer than read_ts. */
kv_status commit_check_row(kv_table *t, const uint8_t *row, size_t rlen, kv_ts read_ts);
/* From now on commits note their rows in the recent map (first commit_if). */
void commit_recent_on(kv_store *s);
/* Does the batch have rows every commit checks (kv_batch_check_row_at)? */
bool commit_has_at_checks(const kv_batch *b);
/* Applies one decoded WAL record (recovery). */
kv_status commit_replay(kv_store *s, const uint8_t *p, size_t n, uint64_t seg, kv_ts *max_ts);

/* Flush and compaction (flush.c, compact.c). */
/* Per-column state of the major-compaction matcher. */
typedef struct cstate {
	util_buf col;
	bool has_df, has_dc, has_del;
	kv_ts df_ts, dc_ts, del_ts;
	kv_ts *dfv;
	int ndfv, cdfv;
	int versions;
} cstate;
/* Major compaction's decision for one cell of a sorted stream (cstate reset
 * per column and, for family markers, per row+family by the caller). */
bool compact_major_keep(cstate *c, const kv_family_opts *fo, const ikey_parts *p, kv_ts horizon, int64_t now,
			bool keep_markers);
kv_status flush_table(kv_store *s, kv_table *t);
kv_status compact_table(kv_store *s, kv_table *t, bool major, bool manual);
bool compact_pick_needed(kv_table *t);
void *bg_main(void *arg);
void *compactor_main(void *arg);

/* Reads (scan.c). */
typedef struct scan_internal {
	bool latest;       /* read every applied write (commit checks) */
	bool all_versions; /* raw compaction-style view */
	/* Reverse scans read chunks with forward sub-scans over one snapshot:
	 * these pin the sub-scan to the outer scan's view. */
	kv_sv *sv;
	kv_ts read_ts, read_point;
	bool no_done; /* KV_FILTER_DONE acts as NEXT_ROW */
	bool forward; /* ignore opts->reverse */
	int64_t etcd_page; /* etcd: the first page's keys (0: the default) */
	bool dropped_ok;   /* the table may be dropped: its handle keeps it (backups) */
} scan_internal;
kv_iter *scan_open(kv_table *t, const kv_scan_opts *o, const scan_internal *in);
/* True if the scan runs the plain-scan fast path (tests). */
bool scan_is_fast(const kv_iter *it);
/* The source cells the (merging) scan looked at so far (tests). */
uint64_t scan_cells_looked(const kv_iter *it);
/* The number of sorted files the fast path reads as its one source (2 or
 * more: a chain of key-disjoint files, chain.c), 0 off the fast path (tests). */
int scan_fast_files(const kv_iter *it);
/* kv_get's point-read path (point.c): false when the read needs the scan
 * path (filters, raw reads, etcd, very big rows); else *status is the
 * result and out the row as kv_get returns it. */
bool point_get(kv_table *t, const void *row, size_t rlen, const kv_read_opts *ro, util_arena *arena, kv_row *out,
	       kv_status *status);
/* The source cells the calling thread's last point_get looked at (tests). */
uint64_t point_last_steps(void);
/* etcd backend: the revision a scan at read_ts reads (0 = latest). */
int64_t scan_etcd_rev(kv_table *t, bool latest, kv_ts read_ts);
/* Reverse scans (rscan.c). */
typedef struct rscan rscan;
/* Takes the reference to sv. */
rscan *rscan_new(kv_table *t, const kv_scan_opts *o, kv_sv *sv, kv_ts read_ts, kv_ts read_point,
		 const scan_internal *in);
bool rscan_valid(const rscan *r);
const kv_cell *rscan_cell(const rscan *r);
bool rscan_row_start(const rscan *r);
void rscan_next(rscan *r);
void rscan_next_row(rscan *r);
/* kv_iter_row() of a reverse scan: the rest of the current row's cells to fn
 * (valid during the call), then the row before. Returns the cells passed. */
size_t rscan_row(rscan *r, kv_cell_fn fn, void *arg);
void rscan_seek_row(rscan *r, const void *row, size_t rlen);
kv_status rscan_status(const rscan *r, const char **msg);
void rscan_free(rscan *r);
/* The newest visible version of one cell in the latest view. */
kv_status read_latest_cell(kv_table *t, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
			   size_t qlen, util_buf *val, kv_ts *ts, bool *found);
/* Newest timestamp of any cell (markers included) of a row, latest view. */
kv_status read_latest_row_ts(kv_table *t, const uint8_t *row, size_t rlen, kv_ts *ts);

/* Filters (filter.c). */
struct kv_filter {
	kv_filter_vtbl vt;
	void *arg;
	bool needs_row; /* has a row-end decision (buffers rows) */
	int kind;
	/* For row-prefix filters: the prefix, to narrow the scan range. */
	const uint8_t *prefix;
	size_t prefix_len;
};

/* The family a row must have a cell in to pass the filter (a single column
 * value filter that drops rows without the column), or NULL. Scans then
 * read that family first and the others only for rows that pass. */
const char *filter_essential_family(const kv_filter *f);

#endif /* STRATA_KV_INT_H */
