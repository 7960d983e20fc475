/*
 * etcd_commit.c — kv_commit and kv_commit_if on the etcd backend: one etcd
 * transaction per batch.
 *
 *   1. Read the cluster clock (value C at revision R) and resolve the
 *      batch (conditions, increments, appends, "delete the newest
 *      version") against revision R.
 *   2. One txn: compares — the clock is below this commit's timestamp;
 *      rows whose new cells depend on what was read have row markers
 *      unchanged since R; for kv_commit_if, every written or checked row's
 *      marker is unchanged since the revision of read_ts
 *      (first-committer-wins). Success ops — a put per cell, a put per
 *      row marker (value: the commit timestamp), the clock.
 *   3. If a compare failed: a newer clock means another process committed
 *      with a later timestamp first (take a later one, retry); a moved row
 *      marker means KV_CONFLICT for kv_commit_if, else a retry against the
 *      new state. A request that timed out and was retried may find its own
 *      earlier attempt applied: the clock then holds this commit's exact
 *      value (timestamp and node id) and the commit has succeeded.
 * Transactions beyond the cluster's --max-txn-ops or --max-request-bytes
 * fail with KV_TOO_LARGE (54000 at the SQL layer).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ekv.h"

#define MAX_ATTEMPTS 64

static void mset_add(ekv_mset *s, const ekv *e, kv_table *t, const uint8_t *row, size_t rlen, int flags,
		     kv_ts at)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->m = util_xrealloc(s->m, s->cap * sizeof(ekv_mkey));
	}
	ekv_mkey *k = &s->m[s->n++];
	memset(k, 0, sizeof *k);
	ekv_marker_key(e, t->eid, row, rlen, &k->k);
	k->eid = t->eid;
	k->flags = flags;
	k->at = at;
	if (flags & (MK_SHARE | MK_DEL)) {
		/* P "/s/" eid esc(row): the marker's key with another letter. */
		util_buf_append(&k->sk, k->k.data, k->k.len);
		((uint8_t *)k->sk.data)[e->plen + 1] = 's';
	}
}

static int mkey_cmp(const void *a, const void *b)
{
	const ekv_mkey *x = a, *y = b;
	return kv_slice_cmp((kv_slice){(const uint8_t *)x->k.data, x->k.len},
			    (kv_slice){(const uint8_t *)y->k.data, y->k.len});
}

/* Sorts and merges duplicate keys (flags or-ed). */
static void mset_unique(ekv_mset *s)
{
	if (!s->n)
		return;
	qsort(s->m, s->n, sizeof(ekv_mkey), mkey_cmp);
	size_t u = 0;
	for (size_t i = 1; i < s->n; i++) {
		if (!mkey_cmp(&s->m[u], &s->m[i])) {
			s->m[u].flags |= s->m[i].flags;
			if (s->m[i].at && (!s->m[u].at || s->m[i].at < s->m[u].at))
				s->m[u].at = s->m[i].at; /* the older base: stricter */
			if (!s->m[u].sk.len) {
				util_buf t = s->m[u].sk;
				s->m[u].sk = s->m[i].sk;
				s->m[i].sk = t;
			}
			util_buf_free(&s->m[i].k);
			util_buf_free(&s->m[i].sk);
		} else {
			s->m[++u] = s->m[i];
		}
	}
	s->n = u + 1;
}

void ekv_mset_free(ekv_mset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		util_buf_free(&s->m[i].k);
		util_buf_free(&s->m[i].sk);
	}
	free(s->m);
	memset(s, 0, sizeof *s);
}

static bool reads_current(const kv_mut *m)
{
	return m->type == MUT_INCR || m->type == MUT_APPEND ||
	       (m->type == KV_DELETE && m->ts == KV_TS_LATEST);
}

/* The row markers the commit touches, with what it does to each; true if
 * some row is checked (kv_commit_if or kv_batch_check_row_at). */
static bool collect_markers(ekv *e, kv_batch *b, bool check, ekv_mset *ms)
{
	bool any = check;
	for (size_t i = 0; i < b->n; i++) {
		kv_mut *m = &b->m[i];
		int f = MK_WRITE | (reads_current(m) ? MK_GUARD : 0) | (check ? MK_CHECK : 0) |
			(m->type == MUT_DELETE_ROW ? MK_DEL : 0);
		mset_add(ms, e, m->t, mut_row(b, m), m->rlen, f, 0);
	}
	for (size_t i = 0; i < b->nc; i++)
		mset_add(ms, e, b->c[i].t, cond_ptr(b, b->c[i].roff), b->c[i].rlen, MK_GUARD, 0);
	for (size_t i = 0; i < b->nk; i++) {
		kv_chk *k = &b->k[i];
		if (k->guard_share) { /* compared with the row's own limit */
			mset_add(ms, e, k->t, cond_ptr(b, k->roff), k->rlen, MK_DEL | (check ? MK_CHECK : 0),
				 0);
			any |= check;
			continue;
		}
		if (k->share && !k->ts) { /* the share mark alone */
			mset_add(ms, e, k->t, cond_ptr(b, k->roff), k->rlen, MK_SHARE, 0);
			continue;
		}
		if (k->ts || check)
			mset_add(ms, e, k->t, cond_ptr(b, k->roff), k->rlen,
				 (k->ts ? MK_AT : MK_CHECK) | (k->touch ? MK_WRITE : 0) |
				     (k->share ? MK_SHARE : 0),
				 k->ts);
		any |= k->ts != 0;
	}
	mset_unique(ms);
	return any;
}

/* Does the marker (or share mark) at key hold a timestamp past at, as of
 * clock_rev? */
static kv_status mark_newer(ekv *e, const util_buf *key, int64_t clock_rev, kv_ts at, bool *newer)
{
	ekv_range_req q = {.key = (const uint8_t *)key->data, .klen = key->len, .rev = clock_rev};
	ekv_range_res rr;
	kv_status st = ekv_range(e, &q, &rr);
	if (st)
		return st;
	*newer = rr.n && rr.kvs[0].vlen >= 8 && util_get_be64(rr.kvs[0].val) > at;
	ekv_range_res_free(&rr);
	return KV_OK;
}

/* The revision each MK_AT row must be unchanged since: exact for
 * timestamps handed out here, else as check_rev (a row whose newest
 * commit is past its timestamp conflicts at once; so does a deleted or
 * share-guarded row whose share mark is). */
kv_status ekv_at_revs(ekv *e, kv_ts clock, int64_t clock_rev, ekv_mset *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		ekv_mkey *m = &ms->m[i];
		if (!(m->flags & MK_AT))
			continue;
		m->at_rev = ekv_rev_for(e, m->at);
		if (m->at_rev)
			continue;
		m->at_rev = clock_rev;
		if (m->at >= clock)
			continue;
		bool newer = false;
		kv_status st = mark_newer(e, &m->k, clock_rev, m->at, &newer);
		if (!st && !newer && (m->flags & MK_DEL))
			st = mark_newer(e, &m->sk, clock_rev, m->at, &newer);
		if (st)
			return st;
		if (newer)
			return kv_fail(KV_CONFLICT, "a row changed after the version it was based on");
	}
	return KV_OK;
}

/* The revision a row's marker is compared against (unchanged up to it),
 * 0 for none: the smallest that applies. */
int64_t ekv_mkey_limit(const ekv_mkey *m, int64_t rrev, int64_t crev)
{
	int64_t lim = 0;
	if ((m->flags & MK_CHECK) && rrev)
		lim = rrev;
	if ((m->flags & MK_GUARD) && crev && (!lim || crev < lim))
		lim = crev;
	if ((m->flags & MK_AT) && (!lim || m->at_rev < lim))
		lim = m->at_rev;
	return lim;
}

/* The newest revision whose state a read at read_ts saw; conservative
 * (older) when read_ts was not handed out here. */
kv_status ekv_check_rev(ekv *e, kv_ts read_ts, kv_ts clock, int64_t clock_rev, const ekv_mset *ms,
			int64_t *out)
{
	int64_t r = ekv_rev_for(e, read_ts);
	if (r) {
		*out = r;
		return KV_OK;
	}
	if (read_ts >= clock) {
		/* Every commit up to clock_rev has ts <= clock <= read_ts; later ones
		 * count as conflicts (safe: at worst a spurious retry). */
		*out = clock_rev;
		return KV_OK;
	}
	/* An older point: a row conflicts when its marker (its newest commit's
	 * timestamp) is past read_ts; otherwise guard it at clock_rev. */
	for (size_t i = 0; i < ms->n; i++) {
		if (!(ms->m[i].flags & MK_CHECK))
			continue;
		ekv_range_req q = {
		    .key = (const uint8_t *)ms->m[i].k.data, .klen = ms->m[i].k.len, .rev = clock_rev};
		ekv_range_res rr;
		kv_status st = ekv_range(e, &q, &rr);
		if (st)
			return st;
		bool newer = rr.n && rr.kvs[0].vlen >= 8 && util_get_be64(rr.kvs[0].val) > read_ts;
		ekv_range_res_free(&rr);
		if (newer)
			return kv_fail(KV_CONFLICT, "a row changed after the read timestamp");
	}
	*out = clock_rev;
	return KV_OK;
}

/* Do the checked rows still hold (kv_commit_if rows: no commit after crev;
 * kv_batch_check_row_at rows: none after their at_rev)? */
static kv_status recheck(ekv *e, const ekv_mset *ms, int64_t crev, bool *holds)
{
	ekv_txn *t = ekv_txn_new();
	for (size_t i = 0; i < ms->n; i++) {
		const ekv_mkey *m = &ms->m[i];
		int64_t lim = (m->flags & MK_CHECK) ? crev : 0;
		if ((m->flags & MK_AT) && (!lim || m->at_rev < lim))
			lim = m->at_rev;
		if (lim)
			ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->k.data, m->k.len, lim + 1);
		if (lim && (m->flags & MK_DEL))
			ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->sk.data, m->sk.len, lim + 1);
	}
	ekv_txn_res r;
	kv_status st = ekv_txn_run(e, t, &r);
	*holds = !st && r.succeeded;
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	return st;
}

static int ckey_cmp(const void *a, const void *b)
{
	const ekv_ckey *x = a, *y = b;
	int c = kv_slice_cmp((kv_slice){(const uint8_t *)x->k.data, x->k.len},
			     (kv_slice){(const uint8_t *)y->k.data, y->k.len});
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

ekv_ckey *ekv_ckeys_sorted(ekv *e, const cctx *c, kv_ts cts, uint8_t type_shift)
{
	ekv_ckey *ks = util_xcalloc(c->n ? c->n : 1, sizeof *ks);
	for (size_t i = 0; i < c->n; i++) {
		const rmut *r = &c->r[i];
		ekv_cell_prefix(e, r->t->eid, &ks[i].k);
		ekv_from_cell(&ks[i].k, r->row, r->rlen, r->fam, r->q, r->qlen,
			      r->ts == KV_TS_LATEST ? cts : r->ts, (uint8_t)(r->type - type_shift));
		ks[i].i = i;
	}
	qsort(ks, c->n, sizeof *ks, ckey_cmp);
	return ks;
}

bool ekv_ckey_repeated(const ekv_ckey *ks, size_t n, size_t i)
{
	return i + 1 < n && ks[i].k.len == ks[i + 1].k.len &&
	       !memcmp(ks[i].k.data, ks[i + 1].k.data, ks[i].k.len);
}

void ekv_ckeys_free(ekv_ckey *ks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		util_buf_free(&ks[i].k);
	free(ks);
}

/* A put per cell; a cell given twice keeps its last value (etcd refuses a
 * key twice in one txn). */
static void put_cells(ekv *e, ekv_txn *t, const cctx *c, kv_ts cts)
{
	ekv_ckey *ks = ekv_ckeys_sorted(e, c, cts, 0);
	for (size_t i = 0; i < c->n; i++) {
		if (ekv_ckey_repeated(ks, c->n, i))
			continue;
		const rmut *r = &c->r[ks[i].i];
		ekv_txn_put(t, (const uint8_t *)ks[i].k.data, ks[i].k.len, r->v, r->vlen);
	}
	ekv_ckeys_free(ks, c->n);
}

/* Does the commit need the clock's revision: conditions, increments,
 * appends, "delete the newest version" resolve against it, and checks at
 * timestamps not remembered here are judged at it? */
static bool needs_clock(ekv *e, const kv_batch *b, bool check, kv_ts read_ts, const ekv_mset *ms)
{
	if (b->nc)
		return true;
	if (check && !ekv_rev_for(e, read_ts))
		return true;
	for (size_t i = 0; i < ms->n; i++) {
		if (ms->m[i].flags & MK_GUARD)
			return true;
		if ((ms->m[i].flags & MK_AT) && !ekv_rev_for(e, ms->m[i].at))
			return true;
	}
	return false;
}

static int tlock_cmp(const void *a, const void *b)
{
	const ekv_tlock *x = a, *y = b;
	return x->eid < y->eid ? -1 : x->eid > y->eid;
}

ekv_tlock *ekv_tlocks(const ekv *e, const ekv_mset *ms, int64_t rrev, int64_t crev, size_t *n)
{
	ekv_tlock *l = util_xcalloc(ms->n ? ms->n : 1, sizeof *l);
	size_t k = 0;
	for (size_t i = 0; i < ms->n; i++) {
		const ekv_mkey *m = &ms->m[i];
		int64_t lim = ekv_mkey_limit(m, rrev, crev);
		size_t j = 0;
		while (j < k && l[j].eid != m->eid)
			j++;
		if (j == k) {
			l[k].eid = m->eid;
			l[k].lim = lim;
			k++;
		} else if (lim && (!l[j].lim || lim < l[j].lim)) {
			l[j].lim = lim;
		}
	}
	qsort(l, k, sizeof *l, tlock_cmp);
	for (size_t j = 0; j < k; j++) {
		ekv_lock_key(e, l[j].eid, &l[j].k);
		ekv_bigmark_key(e, l[j].eid, &l[j].mk);
	}
	*n = k;
	return l;
}

void ekv_tlocks_free(ekv_tlock *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		util_buf_free(&l[i].k);
		util_buf_free(&l[i].mk);
	}
	free(l);
}

/* Is one of the rows locked by a large transaction (its row lock key
 * present)? Read in requests of up to 100 keys (etcd's default
 * --max-txn-ops is 128). */
static kv_status rows_locked(ekv *e, const ekv_mset *ms, bool *held)
{
	*held = false;
	enum { PER = 100 };
	ekv_range_req *qs = util_xcalloc(PER, sizeof *qs);
	ekv_range_res *rs = util_xcalloc(PER, sizeof *rs);
	util_buf *ks = util_xcalloc(PER, sizeof *ks);
	kv_status st = KV_OK;
	for (size_t i = 0; i < ms->n && !st && !*held; i += PER) {
		int n = (int)(ms->n - i < PER ? ms->n - i : PER);
		for (int j = 0; j < n; j++) {
			ekv_rowlock_key(e, &ms->m[i + (size_t)j].k, &ks[j]);
			qs[j] = (ekv_range_req){
			    .key = (const uint8_t *)ks[j].data, .klen = ks[j].len, .keys_only = true};
		}
		int64_t rev = 0;
		if ((st = ekv_range_multi(e, qs, n, rs, &rev)))
			break;
		for (int j = 0; j < n; j++) {
			*held |= rs[j].n > 0;
			ekv_range_res_free(&rs[j]);
		}
	}
	for (int j = 0; j < PER; j++)
		util_buf_free(&ks[j]);
	free(ks);
	free(rs);
	free(qs);
	return st;
}

/* After a failed commit: is a row it touches (a plain commit, rows) or a
 * table (a large one) locked by a large transaction (wait), or was one
 * committed on a table since a revision this commit's reads rest on
 * (re-resolve, or for checked rows: conflict)? */
kv_status ekv_tlock_state(ekv *e, const ekv_tlock *l, size_t n, int64_t rrev_lim, const ekv_mset *rows,
			  int *out)
{
	*out = EKV_TL_FREE;
	bool held = false;
	kv_status st = KV_OK;
	if (rows)
		st = rows_locked(e, rows, &held);
	for (size_t i = 0; i < n && !st && !held; i++) {
		ekv_range_req q[2] = {{.key = (const uint8_t *)l[i].k.data, .klen = l[i].k.len},
				      {.key = (const uint8_t *)l[i].mk.data, .klen = l[i].mk.len}};
		ekv_range_res r[2];
		int64_t rev = 0;
		if ((st = ekv_range_multi(e, q, 2, r, &rev)))
			break;
		if (!rows && r[0].n && r[0].kvs[0].vlen && r[0].kvs[0].val[0] == 'H')
			held = true;
		else if (r[1].n && l[i].lim && r[1].kvs[0].mod_rev > l[i].lim && *out != EKV_TL_MOVED_CHECKED)
			*out =
			    rrev_lim && r[1].kvs[0].mod_rev > rrev_lim ? EKV_TL_MOVED_CHECKED : EKV_TL_MOVED;
		ekv_range_res_free(&r[0]);
		ekv_range_res_free(&r[1]);
	}
	if (held)
		*out = EKV_TL_HELD;
	return st;
}

/* Batches beyond these go the large-transaction way at once (etcd_big.c);
 * smaller ones too when the cluster refuses them as too large. */
static size_t big_ops(void)
{
	int64_t n = util_env_int("STRATA_ETCD_BIG_OPS", 0);
	return n > 0 ? (size_t)n : 8000;
}
#define BIG_BYTES    (8u << 20)
#define LOCK_WAIT_US (600LL * 1000000)

kv_status ekv_commit(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		     kv_ts *commit_ts)
{
	if (b->bad)
		return kv_fail(b->bad, "%s", b->badmsg);
	if (b->s && b->s != s)
		return kv_fail(KV_INVALID, "batch of another store");
	/* An empty batch commits nothing, except from bump_clock (commit_ts
	 * wanted, no read_ts): a commit of the clock alone. */
	bool clock_only = b->n == 0 && !check && commit_ts && b->nc == 0;
	if (b->n == 0 && !clock_only)
		return KV_OK;
	for (size_t i = 0; i < b->n; i++) {
		if (b->m[i].t->s != s)
			return kv_fail(KV_INVALID, "batch mixes kv tables of different stores");
		if (atomic_load(&b->m[i].t->dropped))
			return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", b->m[i].t->name);
	}
	ekv *e = s->etcd;
	ekv_mset ms = {0};
	bool checks = collect_markers(e, b, check, &ms);
	util_buf ck = UTIL_BUF_INIT;
	ekv_clock_key(e, &ck);
	kv_status st = KV_OK;
	cctx c = {0};
	bool done = false;
	bool blind = !needs_clock(e, b, check, read_ts, &ms);
	/* (compares: a row lock per row, and a marker per row at most) */
	bool big =
	    b->n + ms.n + 1 > big_ops() || 2 * ms.n + 2 > big_ops() || kv_batch_byte_size(b) > BIG_BYTES;
	int64_t wait_until = 0;
	for (int attempt = 0; attempt < MAX_ATTEMPTS && !st && !done && !big; attempt++) {
		kv_ts clock = 0;
		int64_t crev = 0;
		/* A batch that reads nothing at commit and whose checks have known
		 * revisions skips the clock read on its first attempt: the clock
		 * compare fails if another process committed a later timestamp,
		 * and the retry reads it (one round trip instead of two). */
		if (!(blind && attempt == 0)) {
			if ((st = ekv_clock_read(e, &clock, &crev)))
				break;
			ekv_observe(e, clock);
		}
		int64_t rrev = 0;
		if (check && (st = ekv_check_rev(e, read_ts, clock, crev, &ms, &rrev)))
			break;
		if (checks && (st = ekv_at_revs(e, clock, crev, &ms)))
			break;
		/* Resolve against revision crev. */
		ekv_latest_pin = crev;
		commit_cc_free(&c);
		memset(&c, 0, sizeof c);
		st = commit_check_conditions(b);
		if (!st)
			st = commit_resolve(b, &c);
		ekv_latest_pin = 0;
		if (st)
			break;
		kv_ts cts = ekv_next_ts(e);
		kv_ts cell_ts = o && o->ts ? o->ts : cts;
		uint8_t clockval[16], cmpval[8];
		util_put_be64(clockval, cts);
		memcpy(clockval + 8, e->node_id, 8);
		util_put_be64(cmpval, cts);

		ekv_txn *t = ekv_txn_new();
		ekv_txn_cmp_value_lt(t, (const uint8_t *)ck.data, ck.len, cmpval, 8);
		for (size_t i = 0; i < ms.n; i++) {
			ekv_mkey *m = &ms.m[i];
			int64_t lim = ekv_mkey_limit(m, rrev, crev);
			if (lim)
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->k.data, m->k.len, lim + 1);
			/* A deleted row another commit share-locked since: first
			 * committer wins (a foreign key's parent row). */
			if (lim && (m->flags & MK_DEL))
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->sk.data, m->sk.len, lim + 1);
		}
		/* Rows a large transaction locked make this commit wait (rows of
		 * the same tables it does not write never do); a large commit on a
		 * table since this commit's reads makes it re-resolve, or for
		 * checked rows conflict (docs/scale-out.md, "Large
		 * transactions"). */
		util_buf lk = UTIL_BUF_INIT;
		for (size_t i = 0; i < ms.n; i++) {
			ekv_rowlock_key(e, &ms.m[i].k, &lk);
			ekv_txn_cmp_absent(t, (const uint8_t *)lk.data, lk.len);
		}
		util_buf_free(&lk);
		size_t ntl;
		ekv_tlock *tl = ekv_tlocks(e, &ms, rrev, crev, &ntl);
		for (size_t i = 0; i < ntl; i++)
			if (tl[i].lim)
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)tl[i].mk.data, tl[i].mk.len,
						   tl[i].lim + 1);
		put_cells(e, t, &c, cell_ts);
		uint8_t mval[8];
		util_put_be64(mval, cell_ts);
		for (size_t i = 0; i < ms.n; i++) {
			if (ms.m[i].flags & MK_WRITE)
				ekv_txn_put(t, (const uint8_t *)ms.m[i].k.data, ms.m[i].k.len, mval, 8);
			if (ms.m[i].flags & MK_SHARE)
				ekv_txn_put(t, (const uint8_t *)ms.m[i].sk.data, ms.m[i].sk.len, mval, 8);
		}
		ekv_txn_put(t, (const uint8_t *)ck.data, ck.len, clockval, 16);
		ekv_txn_else_get(t, (const uint8_t *)ck.data, ck.len);
		ekv_txn_res r;
		st = ekv_txn_run(e, t, &r);
		ekv_txn_free(t);
		if (st == KV_TOO_LARGE) {
			ekv_tlocks_free(tl, ntl);
			ekv_txn_res_free(&r);
			st = KV_OK;
			big = true;
			break;
		}
		if (st) {
			ekv_tlocks_free(tl, ntl);
			if (r.ambiguous && st == KV_IO_ERROR)
				st =
				    kv_fail(KV_IO_ERROR,
					    "the etcd cluster did not answer; the commit may or may not have "
					    "happened: %s",
					    kv_errmsg());
			ekv_txn_res_free(&r);
			break;
		}
		ekv_range_res *fg = &r.fail_get;
		int64_t rev = r.rev;
		bool ok = r.succeeded;
		if (ekv_txn_res_got(&r, clockval, 16)) {
			ok = true; /* an earlier attempt of this very request applied */
			rev = fg->kvs[0].mod_rev;
		}
		if (ok) {
			ekv_remember(e, cts, rev);
			ekv_advance(s, cts);
			atomic_fetch_add(&s->n_commits, 1);
			if (commit_ts)
				*commit_ts = cell_ts;
			done = true;
		} else if (fg->n && fg->kvs[0].vlen >= 8 && util_get_be64(fg->kvs[0].val) >= cts) {
			ekv_observe(e, util_get_be64(fg->kvs[0].val)); /* a later commit came first */
		} else {
			/* The smallest revision a checked row rests on. */
			int64_t clim = 0;
			for (size_t i = 0; i < ms.n; i++) {
				int64_t l = ekv_mkey_limit(&ms.m[i], rrev, 0);
				if (l && (!clim || l < clim))
					clim = l;
			}
			int ls = EKV_TL_FREE;
			if (ntl)
				st = ekv_tlock_state(e, tl, ntl, clim, &ms, &ls);
			if (st) {
			} else if (ls == EKV_TL_HELD) {
				int64_t now = util_now_us();
				if (!wait_until)
					wait_until = now + LOCK_WAIT_US;
				if (now > wait_until)
					st = kv_fail(KV_BUSY,
						     "waited too long for a large transaction's row lock");
				struct timespec ts = {0, 20 * 1000 * 1000};
				nanosleep(&ts, NULL);
				attempt--; /* waiting is not a failed attempt */
			} else if (ls == EKV_TL_MOVED_CHECKED) {
				st = kv_fail(KV_CONFLICT,
					     "a large transaction committed to a table written by the "
					     "batch after the read timestamp");
			} else if (ls == EKV_TL_FREE && checks) {
				bool holds;
				if (!(st = recheck(e, &ms, rrev, &holds)) && !holds)
					st = kv_fail(KV_CONFLICT,
						     "a row written by the batch changed after the read "
						     "timestamp");
			}
		}
		ekv_tlocks_free(tl, ntl);
		ekv_txn_res_free(&r);
	}
	if (big && !st && !done) {
		st = ekv_commit_big(s, b, check, read_ts, o, &ms, commit_ts);
		done = !st;
	}
	if (!st && !done)
		st = kv_fail(KV_BUSY, "etcd commit: too many concurrent changes, gave up after %d attempts",
			     MAX_ATTEMPTS);
	commit_cc_free(&c);
	ekv_mset_free(&ms);
	util_buf_free(&ck);
	return st;
}
