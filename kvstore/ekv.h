/*
 * ekv.h — the etcd v3 backend of kvstore (internal). A store opened with a
 * path "etcd://host:port[,host:port...][/prefix]" keeps every cell in an
 * etcd cluster instead of local files; kv.h's public functions dispatch
 * here when kv_store.etcd is set. Key layout, timestamps and guarantees:
 * docs/scale-out.md.
 *
 *   etcd_client.c  HTTP/JSON (gRPC gateway) requests, endpoint failover
 *   etcd_keys.c    cell <-> etcd key encoding (byte order = cell order)
 *   etcd_src.c     a kv_src over an etcd key range (the scan machinery of
 *                  scan.c/rscan.c runs on it unchanged)
 *   etcd_store.c   open/close, clock and read points, kv table DDL
 *   etcd_commit.c  kv_commit / kv_commit_if as one etcd transaction
 *   etcd_gc.c      version garbage collection (kv_table_compact)
 *   etcd_horizon.c publishes the oldest revision this process reads and,
 *                  when elected, compacts etcd below every server's;
 *                  ekv_elect (the election on a leased key)
 *   etcd_verify.c  kv_store_verify; a paged walk over keys at one revision
 *   etcd_bggc.c    background version GC of every kv table, paced, on the
 *                  one server per prefix that holds P "/g"
 *   etcd_big.c     transactions beyond one etcd txn: table locks, intents,
 *                  transaction records (docs/scale-out.md, "Large
 *                  transactions")
 */
#ifndef STRATA_KV_EKV_H
#define STRATA_KV_EKV_H

#include <pthread.h>
#include <stdatomic.h>

#include "kv_int.h"

#define EKV_MAX_ENDPOINTS 16
#define EKV_TSMAP         4096 /* remembered (read ts -> etcd revision) pairs */

typedef struct ekv_tsrev {
	kv_ts ts;
	int64_t rev;
	int refs;    /* pins: kv_snapshot_acquire count */
	bool wknown; /* the watched cell was read with this read point ... */
	kv_ts wts;   /* ... its newest version's timestamp (0: none) */
} ekv_tsrev;

#define EKV_RECS 256 /* remembered committed transaction records */
#define EKV_TXID 16  /* transaction id of a large commit: T0 (8) || node id (8) */

/* A committed large transaction: its intents are visible at revisions >=
 * rev (the record's flip). Records never change once committed. */
typedef struct ekv_rec {
	uint8_t id[EKV_TXID];
	int64_t rev;
	kv_ts cts; /* its commit timestamp */
} ekv_rec;

typedef struct ekv {
	char *endpoints[EKV_MAX_ENDPOINTS];
	int nendpoints;
	atomic_int cur; /* endpoint tried first */
	char prefix[128];
	size_t plen;
	/* etcds:// (TLS) and etcd authentication (docs/scale-out.md, "TLS and
	 * authentication"): files and names from the URI (NULL: unset). */
	bool tls;
	char *cacert, *cert, *key;
	char *user, *password;
	pthread_mutex_t auth_mu;
	char *token;        /* the current auth token (under auth_mu; NULL: none yet) */
	uint8_t node_id[8]; /* random; tags this process's clock writes */
	uint64_t server_no; /* kv_store_server_no: from the counter P/n at open */
	/* Read points handed out and commits made: the etcd revision that
	 * holds exactly the commits with ts <= the read point. */
	pthread_mutex_t map_mu;
	ekv_tsrev map[EKV_TSMAP];
	size_t map_next;
	/* Pinned snapshots (kv_snapshot_acquire): kept until released, so a
	 * long transaction always reads its own revision, where version GC's
	 * deletions are invisible (etcd MVCC), however many read points
	 * follow. */
	ekv_tsrev *pins;
	size_t npins, cpins;
	kv_ts last_ts; /* this process's clock (max of wall clock, seen, issued) */
	/* kv_watch_cell: the etcd key range of the watched cell's versions
	 * (empty: none), read with every read point; under map_mu. */
	util_buf watch_lo, watch_hi;
	int timeout_ms;
	/* Committed large-transaction records seen (under map_mu). */
	ekv_rec recs[EKV_RECS];
	size_t nrecs, recs_next;
	atomic_uint_fast64_t big_seq; /* distinguishes this process's large commits */
	/* etcd_horizon.c: the publishing / compacting thread. */
	kv_bg hz;
	int64_t hz_lease;
	int64_t hz_compacted; /* the revision compacted to (by this process) */
	atomic_int hz_compactions;
	/* etcd_bggc.c: the background version GC thread. */
	kv_bg gc;
	atomic_int gc_passes; /* passes over every kv table completed */
} ekv;

/* ---------------------------------------------------------------- client (etcd_client.c) */

/* One key-value pair of a range response; bytes owned by the response. */
typedef struct ekv_kv {
	uint8_t *key;
	size_t klen;
	uint8_t *val;
	size_t vlen;
	int64_t mod_rev;
	int64_t create_rev;
} ekv_kv;

typedef struct ekv_range_res {
	ekv_kv *kvs;
	size_t n;
	bool more;
	int64_t count; /* keys in the whole range (etcd counts past the limit) */
	int64_t rev;   /* header revision */
} ekv_range_res;

void ekv_range_res_free(ekv_range_res *r);

typedef struct ekv_range_req {
	const uint8_t *key;
	size_t klen;
	const uint8_t *end; /* NULL: only key */
	size_t elen;
	int64_t limit;
	int64_t rev; /* 0: latest */
	bool descend;
	bool keys_only;
	bool serializable;
} ekv_range_req;

kv_status ekv_range(ekv *e, const ekv_range_req *q, ekv_range_res *out);
/* With a user in the URI: authenticates (a token for every later request;
 * renewed when etcd reports it expired). */
kv_status ekv_auth_start(ekv *e);
/* n ranges read at one revision (*rev) in one request; outs[n] are freed
 * by the caller (ekv_range_res_free) on success. */
kv_status ekv_range_multi(ekv *e, const ekv_range_req *qs, int n, ekv_range_res *outs, int64_t *rev);

/* A transaction under construction (JSON). */
typedef struct ekv_txn ekv_txn;
ekv_txn *ekv_txn_new(void);
void ekv_txn_free(ekv_txn *t);
/* Compare mod_revision(key) < rev. */
void ekv_txn_cmp_mod_lt(ekv_txn *t, const uint8_t *k, size_t kl, int64_t rev);
/* Compare value(key) < val (bytes); fails when the key is absent. */
void ekv_txn_cmp_value_lt(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl);
/* Compare create_revision(key) == 0 (absent). */
void ekv_txn_cmp_absent(ekv_txn *t, const uint8_t *k, size_t kl);
void ekv_txn_cmp_mod_eq(ekv_txn *t, const uint8_t *k, size_t kl, int64_t rev);
/* Compare value(key) == val (fails when the key is absent). */
void ekv_txn_cmp_value_eq(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl);
/* Compare lease(key) == 0: absent or put without a lease (a table lock not
 * held). */
void ekv_txn_cmp_no_lease(ekv_txn *t, const uint8_t *k, size_t kl);
void ekv_txn_put(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl);
/* A put attached to a lease (0: none); the key goes when the lease ends. */
void ekv_txn_put_lease(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, int64_t lease);
void ekv_txn_delete_range(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *end, size_t el);
/* On failure: read this key (reported in res->fail_kv). */
void ekv_txn_else_get(ekv_txn *t, const uint8_t *k, size_t kl);
size_t ekv_txn_ops(const ekv_txn *t);
size_t ekv_txn_cmps(const ekv_txn *t);

typedef struct ekv_txn_res {
	bool succeeded;
	int64_t rev;
	ekv_range_res fail_get; /* the else branch's read (failed txns) */
	bool ambiguous;         /* the request may or may not have been applied */
} ekv_txn_res;

kv_status ekv_txn_run(ekv *e, ekv_txn *t, ekv_txn_res *out);
void ekv_txn_res_free(ekv_txn_res *r);
/* A failed txn whose else branch read the value v (vl bytes) at its key:
 * the key already holds what the request puts (an earlier attempt of it
 * applied, or the key is this process's). */
bool ekv_txn_res_got(const ekv_txn_res *r, const void *v, size_t vl);

/* Leases: grant one of ttl_s seconds, renew it (*alive false once it
 * expired), revoke it (deletes the keys attached). */
kv_status ekv_lease_grant(ekv *e, int ttl_s, int64_t *id);
kv_status ekv_lease_keepalive(ekv *e, int64_t id, bool *alive);
kv_status ekv_lease_revoke(ekv *e, int64_t id);
/* Compacts the cluster's history below revision rev. */
kv_status ekv_compact(ekv *e, int64_t rev);

/* ---------------------------------------------------------------- keys (etcd_keys.c) */

/* Order-preserving, prefix-free: 0x00 -> 00 FF, then the terminator 00 01. */
void ekv_esc(util_buf *b, const uint8_t *p, size_t n);
/* Decodes one escaped segment at *p (advances it); false if malformed. */
bool ekv_unesc(const uint8_t **p, const uint8_t *end, util_buf *out);

/* The key prefix of a kv table's cells / row markers. */
void ekv_cell_prefix(const ekv *e, uint64_t eid, util_buf *b);
void ekv_marker_key(const ekv *e, uint64_t eid, const uint8_t *row, size_t rlen, util_buf *b);
void ekv_meta_key(const ekv *e, const char *name, util_buf *b);
void ekv_clock_key(const ekv *e, util_buf *b);
/* P "/n": the counter of server numbers (kv_store_server_no). */
void ekv_server_no_key(const ekv *e, util_buf *b);
/* P "/l/" eid(8): a kv table's lock for large transactions (one at a
 * time per table). */
void ekv_lock_key(const ekv *e, uint64_t eid, util_buf *b);
/* P "/m/" eid(8): put by every large commit's flip; its mod_revision is
 * the table's newest large commit. */
void ekv_bigmark_key(const ekv *e, uint64_t eid, util_buf *b);
/* P "/k/" eid(8) esc(row), from the row's marker key: a large
 * transaction's row lock (value txid, on its lease). */
void ekv_rowlock_key(const ekv *e, const util_buf *marker, util_buf *out);
/* P "/x/" txid(16): a large transaction's record. */
void ekv_txrec_key(const ekv *e, const uint8_t *txid, util_buf *b);
/* Appends the cell part of an etcd key for an ikey (row, family, qualifier,
 * ts, type). */
void ekv_from_ikey(util_buf *b, const uint8_t *ik, size_t ikl);
void ekv_from_cell(util_buf *b, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
		   size_t qlen, kv_ts ts, uint8_t type);
/* Turns the cell part of an etcd key back into an ikey; false if malformed. */
bool ekv_to_ikey(const uint8_t *p, size_t n, util_buf *ik);
/* The smallest key greater than every key starting with p. */
void ekv_prefix_end(const uint8_t *p, size_t n, util_buf *out);

/* ---------------------------------------------------------------- key spans (etcd_span.c) */

/* A width in the space of etcd keys read as base-256 fractions: w units of
 * byte index at + 7 (all: wider than any key's distance to the end). */
typedef struct ekv_span {
	size_t at;
	uint64_t w;
	bool all;
} ekv_span;

/* The width from key a to a greater key b (at least one unit). */
ekv_span ekv_span_between(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* s times f (f > 0), at least one unit. */
ekv_span ekv_span_scale(ekv_span s, double f);
/* out = k + s, a key greater than k; false (out unspecified) if that is
 * past every key. */
bool ekv_span_add(const uint8_t *k, size_t klen, ekv_span s, util_buf *out);

/* ---------------------------------------------------------------- density hints (etcd_density.c) */

/* The span a table's scans remember holds this many keys. */
#define EKV_DENSITY_KEYS 1024
/* Longer first keys are not remembered. */
#define EKV_DENSITY_KEY_MAX 256

/* A new scan's hints from earlier scans of t: true and *span sized for
 * `keys` keys if a density is known (at_start: a scan from the table's
 * start, the density there if known); `first` gets the table's first key
 * as last seen (left empty if unknown). Hints only: any may be stale. */
bool ekv_density_get(kv_table *t, int64_t keys, bool at_start, ekv_span *span, util_buf *first);
/* A page saw `keys` keys spread over span (at_start: read from the
 * table's start). */
void ekv_density_note(kv_table *t, ekv_span span, int64_t keys, bool at_start);
/* A page read from the table's start found k first. */
void ekv_density_note_first(kv_table *t, const uint8_t *k, size_t n);

/* ---------------------------------------------------------------- sources (etcd_src.c) */

/* A kv_src over the cells of one kv table whose rows lie in [lo_row, hi_row)
 * (NULL = open), read at etcd revision rev (0: the first response's). */
kv_src *ekv_src_new(kv_table *t, const uint8_t *lo_row, size_t lolen, const uint8_t *hi_row, size_t hilen,
		    bool hi_incl, int64_t rev);

/* A seek's first page holds `keys` entries (clamped to the page limits):
 * for a range whose size the caller knows. */
void ekv_src_page_hint(kv_src *src, int64_t keys);
/* Reverse scans: the row `want` rows below hi_row (exclusive; NULL: the
 * table's end) and at or above lo_row (NULL: the table's start), by
 * descending reads of keys. etcd 3.4 reads and sorts a descending range
 * whole whatever its limit, so this is one request where stepping back a
 * row at a time (seek_lt) costs one such read per row. *rev: the revision
 * read at (0: the first response's, stored back). *found false: fewer rows
 * in the range; *keys: the keys read from hi down to *row's last. */
kv_status ekv_rows_back(kv_table *t, int64_t *rev, const uint8_t *lo_row, size_t lolen, const uint8_t *hi_row,
			size_t hilen, size_t want, util_buf *row, size_t *keys, bool *found);

/* ---------------------------------------------------------------- store (etcd_store.c) */

bool ekv_is_uri(const char *path);
kv_status ekv_store_open(const char *uri, const kv_store_opts *o, kv_store **out);
void ekv_store_close(kv_store *s);
kv_ts ekv_read_point(kv_store *s);
/* Raises s->read_point (the default read point of scans) to ts. */
void ekv_advance(kv_store *s, kv_ts ts);
kv_status ekv_read_point_wait(kv_store *s, kv_ts ts);
kv_status ekv_snapshot_acquire(kv_store *s, kv_ts *ts);
/* table_backup_set on etcd: handles (detached from the open cache) of
 * the tables whose metadata exists at ts's revision (pinned or remembered;
 * else the latest, like a scan at ts); caller closes and frees. */
kv_status ekv_tables_at(kv_store *s, kv_ts ts, kv_table ***out, int *n);
void ekv_snapshot_release(kv_store *s, kv_ts ts);
kv_status ekv_ts_reserve(kv_store *s, kv_ts *ts);
/* The revision remembered for read point ts (0 if none). */
int64_t ekv_rev_for(ekv *e, kv_ts ts);
void ekv_remember(ekv *e, kv_ts ts, int64_t rev);
/* Observes a timestamp from the cluster: this process's clock passes it. */
void ekv_observe(ekv *e, kv_ts ts);
/* The next timestamp of this process's clock. */
kv_ts ekv_next_ts(ekv *e);
/* Commits the clock alone at a fresh timestamp (*ts): later read points
 * see every change made before it. */
kv_status ekv_bump_clock(kv_store *s, kv_ts *ts);
/* Reads the cluster clock: its value (ts part) and the revision read at. */
kv_status ekv_clock_read(ekv *e, kv_ts *ts, int64_t *rev);
void ekv_watch_cell(kv_table *t, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
		    size_t qlen);
bool ekv_watched_ts(ekv *e, kv_ts read_ts, kv_ts *ts);

kv_status ekv_table_create(kv_store *s, const char *name, const kv_family_opts *fams, int nfams);
kv_status ekv_table_drop(kv_store *s, const char *name);
kv_status ekv_table_alter_family(kv_store *s, const char *name, const kv_family_opts *fam, bool drop);
kv_status ekv_table_list(kv_store *s, int (*fn)(void *arg, const char *name), void *arg);
kv_status ekv_table_open(kv_store *s, const char *name, kv_table **out);

/* The revision a read at read_ts uses on this thread: set while a commit
 * resolves conditions and increments against one pinned state. */
extern _Thread_local int64_t ekv_latest_pin;

/* Version GC of a kv table (kv_table_compact; etcd_gc.c). */
kv_status ekv_table_gc(kv_table *t, bool major);

/* Background version GC's pacing within a table (etcd_bggc.c): fn(arg) is
 * called after every EKV_GC_STEP_KEYS keys read; false stops the table's
 * collection there (what was deleted so far stays deleted). */
#define EKV_GC_STEP_KEYS 1024
typedef struct ekv_gc_pace {
	bool (*fn)(void *arg);
	void *arg;
	uint64_t keys, dropped; /* out: keys read, keys deleted */
} ekv_gc_pace;
/* ekv_table_gc (major) paced by pace (NULL: not paced). */
kv_status ekv_table_gc_paced(kv_table *t, ekv_gc_pace *pace);

/* The etcd key of a source's current entry (an intent's own key). *twin:
 * -1 or +1 if an older write of the same cell at the same explicit
 * timestamp, which the source skipped, has this key with its last byte
 * plus *twin (a plain write and an intent); 0 if none. */
const uint8_t *ekv_src_raw_key(kv_src *src, size_t *n, int *twin);

/* ---------------------------------------------------------------- commit (etcd_commit.c) */

kv_status ekv_commit(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		     kv_ts *commit_ts);

/* What the commit does to each row marker (etcd_commit.c). MK_SHARE: put
 * the row's share mark (kv_batch_share_row); MK_DEL: the row is deleted,
 * its share mark must be unchanged since the row's limit. */
enum { MK_WRITE = 1, MK_GUARD = 2, MK_CHECK = 4, MK_AT = 8, MK_SHARE = 16, MK_DEL = 32 };

typedef struct ekv_mkey {
	util_buf k;
	util_buf sk; /* the share mark's key (MK_SHARE, MK_DEL) */
	int flags;
	uint64_t eid;   /* the row's kv table */
	kv_ts at;       /* MK_AT: unchanged since this timestamp (kv_batch_check_row_at) */
	int64_t at_rev; /* ... i.e. since this revision (per attempt) */
} ekv_mkey;

typedef struct ekv_mset {
	ekv_mkey *m;
	size_t n, cap;
} ekv_mset;

/* The distinct kv tables a commit touches and the oldest revision its
 * decisions on each rest on (0: none), for the table lock compares. */
typedef struct ekv_tlock {
	uint64_t eid;
	util_buf k;  /* the table lock P/l/eid */
	util_buf mk; /* the large-commit mark P/m/eid */
	int64_t lim;
} ekv_tlock;

void ekv_mset_free(ekv_mset *s);
int64_t ekv_mkey_limit(const ekv_mkey *m, int64_t rrev, int64_t crev);
kv_status ekv_check_rev(ekv *e, kv_ts read_ts, kv_ts clock, int64_t clock_rev, const ekv_mset *ms,
			int64_t *out);
kv_status ekv_at_revs(ekv *e, kv_ts clock, int64_t clock_rev, ekv_mset *ms);
/* The table locks of ms's rows, limits from (rrev, crev) (crev 0: guards
 * ignored). *n is set; caller frees with ekv_tlocks_free. */
ekv_tlock *ekv_tlocks(const ekv *e, const ekv_mset *ms, int64_t rrev, int64_t crev, size_t *n);
void ekv_tlocks_free(ekv_tlock *l, size_t n);
/* A commit's cells as etcd keys (timestamp KV_TS_LATEST -> cts, type
 * stored as type - type_shift), sorted, ties in batch order; i indexes
 * c->r. Caller frees with ekv_ckeys_free. */
typedef struct ekv_ckey {
	util_buf k;
	size_t i;
} ekv_ckey;
ekv_ckey *ekv_ckeys_sorted(ekv *e, const cctx *c, kv_ts cts, uint8_t type_shift);
/* Is ks[i] given again later (etcd refuses a key twice in one txn; the
 * last value wins)? */
bool ekv_ckey_repeated(const ekv_ckey *ks, size_t n, size_t i);
void ekv_ckeys_free(ekv_ckey *ks, size_t n);
/* After a failed commit: is something locked by a large transaction
 * (wait) — with rows: one of those rows' locks (a plain commit), without:
 * one of the table locks (a large one) — or did one commit on a table
 * after the table's limit (re-resolve) or after checked_lim (conflict)? */
enum { EKV_TL_FREE, EKV_TL_HELD, EKV_TL_MOVED, EKV_TL_MOVED_CHECKED };
kv_status ekv_tlock_state(ekv *e, const ekv_tlock *l, size_t n, int64_t checked_lim, const ekv_mset *rows,
			  int *out);

/* ---------------------------------------------------------------- horizon (etcd_horizon.c) */

/* Starts publishing this process's horizon and compacting when elected
 * (unless STRATA_ETCD_COMPACT_S is 0); stop joins the thread and revokes
 * the lease. */
void ekv_horizon_start(ekv *e);
void ekv_horizon_stop(ekv *e);
/* Takes the election key k (klen bytes) on lease if no one holds it;
 * true if this process holds it now (its node id is the value). */
bool ekv_elect(ekv *e, const uint8_t *k, size_t klen, int64_t lease);

/* ---------------------------------------------------------------- background GC (etcd_bggc.c) */

/* Starts the background version GC thread (unless STRATA_ETCD_GC_S or
 * STRATA_ETCD_COMPACT_S is 0); stop joins it and gives up the GC key. */
void ekv_bggc_start(kv_store *s);
void ekv_bggc_stop(ekv *e);

/* ---------------------------------------------------------------- large transactions (etcd_big.c) */

/* Commits a batch too large for one etcd txn: locks its tables, writes its
 * cells as intents in chunks, flips its record to committed. ms: the
 * batch's row markers (ekv_commit's). */
kv_status ekv_commit_big(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
			 ekv_mset *ms, kv_ts *commit_ts);
/* An intent's value: txid, then EKV_AT_COMMIT if the cell takes the
 * commit timestamp (else it keeps the one in its key), then the value. */
#define EKV_INTENT_HDR (EKV_TXID + 1)
#define EKV_AT_COMMIT  1
/* *vis: is an intent of transaction txid visible at revision rev (its
 * record committed there)? *cts: the commit timestamp if so. *flip_rev:
 * the record's flip revision if it committed (at rev or later), 0 if it is
 * pending at rev, -1 if it has no record at rev: the transaction aborted
 * (its record existed before any of its intents, and only its lease's end
 * removes it), so its intents are garbage for good. */
kv_status ekv_intent_visible(ekv *e, const uint8_t *txid, int64_t rev, bool *vis, kv_ts *cts,
			     int64_t *flip_rev);
/* Intents of aborted transactions a reader met (ekv_intent_visible's
 * flip_rev -1): key and mod revision each, at most EKV_SWEEP_MAX. */
#define EKV_SWEEP_MAX 4096
typedef struct ekv_sweep {
	util_buf buf; /* per intent: key length (4, BE), key, mod revision (8, BE) */
	size_t n;
} ekv_sweep;
void ekv_sweep_note(ekv_sweep *w, const ekv_kv *kv);
/* Deletes the noted intents (each only if its key was not written again
 * since: an explicit timestamp can give two transactions one intent key)
 * and empties w. Best effort: a failure leaves them to the next reader. */
void ekv_sweep_run(ekv *e, ekv_sweep *w);
/* An intent's key ends with ~(type - 1): cell types are even, so ~type is
 * odd and an intent's last byte even, sorting right after the key a plain
 * write of the same cell would have. */
static inline bool ekv_key_is_intent(const uint8_t *k, size_t n)
{
	return n && !(k[n - 1] & 1);
}

/* ---------------------------------------------------------------- verify (etcd_verify.c) */

/* Calls fn for each key in [lo, hi) at revision *rev (0: the first page's,
 * stored back), in pages; fn returning false stops the walk. The kv passed
 * is valid until fn returns. */
typedef bool (*ekv_walk_fn)(void *arg, const ekv_kv *kv);
kv_status ekv_walk(ekv *e, const uint8_t *lo, size_t lol, const uint8_t *hi, size_t hil, int64_t *rev,
		   bool keys_only, ekv_walk_fn fn, void *arg);

typedef struct ekv_vcounts {
	int64_t rev; /* the revision verified */
	uint64_t keys, cells, markers, intents, aborted, problems;
	size_t tables, records;
} ekv_vcounts;
/* kv_store_verify on etcd: checks every key under the prefix at one
 * revision, reports each problem through fn; *out (may be NULL) gets the
 * counts. KV_CORRUPTION if any problem was found. */
kv_status ekv_store_verify(kv_store *s, void (*fn)(void *arg, const char *problem), void *arg,
			   ekv_vcounts *out);

#endif /* STRATA_KV_EKV_H */
