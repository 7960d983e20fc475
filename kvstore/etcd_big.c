/*
 * etcd_big.c — commits of batches too large for one etcd transaction
 * (beyond --max-txn-ops or --max-request-bytes), still all-or-nothing and
 * isolated (docs/scale-out.md, "Large transactions"):
 *
 *   1. Lock: one txn takes the lock key P/l/eid of every kv table the batch
 *      touches (value 'H' || txid, on a lease) and creates the transaction
 *      record P/x/txid ('P', pending, on the lease), and moves the clock to
 *      T0. Other commits on those tables compare the lock free and wait;
 *      T0 is newer than every commit before the lock.
 *   2. Resolve conditions and increments against the state after the lock,
 *      and check first-committer-wins for the batch's rows in compare-only
 *      txns (nobody else writes these tables now, so chunked checks hold).
 *   3. Write the cells as intents in chunks: cell keys at T0 with type - 1
 *      (odd) in the type byte, values txid || flag || value. Readers
 *      skip intents whose record is not committed at their revision and
 *      show the others at the commit timestamp T' (flag EKV_AT_COMMIT;
 *      explicit timestamps stay): no other commit wrote these tables
 *      between T0 and T', so the versions' order is the same.
 *   4. Flip: one txn — the record still pending and every lock still ours
 *      (the lease alive) — sets the record to 'C' || T', frees the locks
 *      ('F', no lease: their mod_revision tells later commits that a large
 *      transaction committed there) and moves the clock to T'. Intents
 *      become visible at once at every revision from the flip on.
 * A committer that dies leaves its lease to expire: locks and record go,
 * its intents stay invisible (garbage; see "Not done yet").
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ekv.h"

#define CHUNK        1000 /* operations per staging or checking txn */
#define LOCK_TTL_S   10
#define KEEPALIVE_US (2LL * 1000000)
#define LOCK_WAIT_US (600LL * 1000000)
#define MAX_ATTEMPTS 64

typedef struct big {
	ekv *e;
	uint8_t txid[EKV_TXID];
	uint8_t held[1 + EKV_TXID]; /* a held lock's value */
	util_buf rec, ck;
	ekv_tlock *tl;
	size_t ntl;
	int64_t lease;
	int64_t last_ka;
} big;

/* ---------------------------------------------------------------- readers */

static void rec_note(ekv *e, const uint8_t *txid, int64_t rev, kv_ts cts)
{
	pthread_mutex_lock(&e->map_mu);
	ekv_rec *c = &e->recs[e->recs_next];
	memcpy(c->id, txid, EKV_TXID);
	c->rev = rev;
	c->cts = cts;
	e->recs_next = (e->recs_next + 1) % EKV_RECS;
	if (e->nrecs < EKV_RECS)
		e->nrecs++;
	pthread_mutex_unlock(&e->map_mu);
}

kv_status ekv_intent_visible(ekv *e, const uint8_t *txid, int64_t rev, bool *vis, kv_ts *cts,
			     int64_t *flip_rev)
{
	pthread_mutex_lock(&e->map_mu);
	for (size_t i = 0; i < e->nrecs; i++) {
		if (!memcmp(e->recs[i].id, txid, EKV_TXID)) {
			*vis = rev >= e->recs[i].rev;
			*cts = e->recs[i].cts;
			*flip_rev = e->recs[i].rev;
			pthread_mutex_unlock(&e->map_mu);
			return KV_OK;
		}
	}
	pthread_mutex_unlock(&e->map_mu);
	util_buf k = UTIL_BUF_INIT;
	ekv_txrec_key(e, txid, &k);
	ekv_range_req q = {.key = (const uint8_t *)k.data, .klen = k.len, .rev = rev};
	ekv_range_res r;
	kv_status st = ekv_range(e, &q, &r);
	util_buf_free(&k);
	if (st)
		return st;
	bool v = r.n && r.kvs[0].vlen == 9 && r.kvs[0].val[0] == 'C';
	if (v) {
		*cts = util_get_be64(r.kvs[0].val + 1);
		*flip_rev = r.kvs[0].mod_rev;
		rec_note(e, txid, r.kvs[0].mod_rev, *cts);
	}
	ekv_range_res_free(&r);
	*vis = v;
	return KV_OK;
}

/* ---------------------------------------------------------------- committer */

static kv_status keepalive(big *g)
{
	int64_t now = util_now_us();
	if (now - g->last_ka < KEEPALIVE_US)
		return KV_OK;
	bool alive;
	kv_status st = ekv_lease_keepalive(g->e, g->lease, &alive);
	if (st)
		return st;
	if (!alive)
		return kv_fail(KV_IO_ERROR,
			       "large transaction: its lease expired (the committer stalled for "
			       "more than %d s); rolled back",
			       LOCK_TTL_S);
	g->last_ka = now;
	return KV_OK;
}

/* Runs a txn that must succeed; a failed compare is `why`. */
static kv_status run_must(big *g, ekv_txn *t, kv_status fail_st, const char *why)
{
	ekv_txn_res r;
	kv_status st = ekv_txn_run(g->e, t, &r);
	if (!st && !r.succeeded)
		st = kv_fail(fail_st, "large transaction: %s", why);
	ekv_txn_res_free(&r);
	return st;
}

/* Step 1: the table locks and the pending record, the clock to *t0. */
static kv_status lock_tables(big *g, kv_store *s, const ekv_mset *ms, bool check, kv_ts read_ts,
			     int64_t *rrev_out, kv_ts *t0)
{
	ekv *e = g->e;
	int64_t wait_until = 0;
	for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		kv_ts clock;
		int64_t crev, rrev = 0;
		kv_status st = ekv_clock_read(e, &clock, &crev);
		if (st)
			return st;
		ekv_observe(e, clock);
		if (check && (st = ekv_check_rev(e, read_ts, clock, crev, ms, &rrev)))
			return st;
		if ((st = ekv_at_revs(e, clock, crev, (ekv_mset *)ms)))
			return st;
		ekv_tlocks_free(g->tl, g->ntl);
		g->tl = ekv_tlocks(e, ms, rrev, 0, &g->ntl);
		kv_ts ts = ekv_next_ts(e);
		uint8_t clockval[16], cmpval[8];
		util_put_be64(clockval, ts);
		memcpy(clockval + 8, e->node_id, 8);
		util_put_be64(cmpval, ts);
		memcpy(g->txid, clockval, EKV_TXID);
		g->held[0] = 'H';
		memcpy(g->held + 1, g->txid, EKV_TXID);
		util_buf_reset(&g->rec);
		ekv_txrec_key(e, g->txid, &g->rec);

		ekv_txn *t = ekv_txn_new();
		ekv_txn_cmp_value_lt(t, (const uint8_t *)g->ck.data, g->ck.len, cmpval, 8);
		for (size_t i = 0; i < g->ntl; i++) {
			ekv_tlock *l = &g->tl[i];
			ekv_txn_cmp_no_lease(t, (const uint8_t *)l->k.data, l->k.len);
			if (l->lim) /* a large commit there since a checked read: conflict */
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)l->k.data, l->k.len, l->lim + 1);
			ekv_txn_put_lease(t, (const uint8_t *)l->k.data, l->k.len, g->held, sizeof g->held,
					  g->lease);
		}
		ekv_txn_put_lease(t, (const uint8_t *)g->rec.data, g->rec.len, (const uint8_t *)"P", 1,
				  g->lease);
		ekv_txn_put(t, (const uint8_t *)g->ck.data, g->ck.len, clockval, 16);
		ekv_txn_else_get(t, (const uint8_t *)g->ck.data, g->ck.len);
		ekv_txn_res r;
		st = ekv_txn_run(e, t, &r);
		ekv_txn_free(t);
		if (st) {
			ekv_txn_res_free(&r);
			return st; /* the caller revokes the lease: nothing stays */
		}
		bool ok = r.succeeded;
		ekv_range_res *fg = &r.fail_get;
		if (ok) {
			ekv_remember(e, ts, r.rev);
			ekv_advance(s, ts);
			*rrev_out = rrev;
			*t0 = ts;
			ekv_txn_res_free(&r);
			return KV_OK;
		}
		bool newer = fg->n && fg->kvs[0].vlen >= 8 && util_get_be64(fg->kvs[0].val) >= ts;
		if (newer)
			ekv_observe(e, util_get_be64(fg->kvs[0].val));
		ekv_txn_res_free(&r);
		if (newer)
			continue;
		int ls;
		int64_t clim = 0;
		for (size_t i = 0; i < g->ntl; i++)
			if (g->tl[i].lim && (!clim || g->tl[i].lim < clim))
				clim = g->tl[i].lim;
		if ((st = ekv_tlock_state(e, g->tl, g->ntl, clim, &ls)))
			return st;
		if (ls == EKV_TL_MOVED_CHECKED)
			return kv_fail(KV_CONFLICT, "a large transaction committed to a table written by the "
						    "batch after the read timestamp");
		if (ls == EKV_TL_HELD) {
			int64_t now = util_now_us();
			if (!wait_until)
				wait_until = now + LOCK_WAIT_US;
			if (now > wait_until)
				return kv_fail(KV_BUSY,
					       "waited too long for a large transaction's table lock");
			struct timespec sl = {0, 50 * 1000 * 1000};
			nanosleep(&sl, NULL);
			attempt--;
			if ((st = keepalive(g)))
				return st;
		}
	}
	return kv_fail(KV_BUSY,
		       "large transaction: too many concurrent changes while taking its table locks");
}

/* Step 2b: first-committer-wins for the batch's checked rows, in chunks of
 * compares (the tables are locked: the answer cannot change). */
static kv_status check_rows(big *g, const ekv_mset *ms, int64_t rrev)
{
	size_t i = 0;
	while (i < ms->n) {
		ekv_txn *t = ekv_txn_new();
		for (; i < ms->n && ekv_txn_cmps(t) + 2 <= CHUNK; i++) {
			const ekv_mkey *m = &ms->m[i];
			int64_t lim = ekv_mkey_limit(m, rrev, 0);
			if (!lim)
				continue;
			ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->k.data, m->k.len, lim + 1);
			if (m->flags & MK_DEL)
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)m->sk.data, m->sk.len, lim + 1);
		}
		kv_status st = KV_OK;
		if (ekv_txn_cmps(t))
			st = run_must(g, t, KV_CONFLICT,
				      "a row written by the batch changed after the read timestamp");
		ekv_txn_free(t);
		if (st)
			return st;
		if ((st = keepalive(g)))
			return st;
	}
	return KV_OK;
}

typedef struct ikent {
	util_buf k;
	size_t i;
} ikent;

static int ikent_cmp(const void *a, const void *b)
{
	const ikent *x = a, *y = b;
	int c = kv_slice_cmp((kv_slice){(const uint8_t *)x->k.data, x->k.len},
			     (kv_slice){(const uint8_t *)y->k.data, y->k.len});
	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* Step 3: the cells as intents, in chunks; a cell given twice keeps its
 * last value. */
static kv_status stage(big *g, const cctx *c, kv_ts cts, bool explicit_ts)
{
	ekv *e = g->e;
	ikent *ks = util_xcalloc(c->n ? c->n : 1, sizeof *ks);
	for (size_t i = 0; i < c->n; i++) {
		const rmut *r = &c->r[i];
		ekv_cell_prefix(e, r->t->eid, &ks[i].k);
		ekv_from_cell(&ks[i].k, r->row, r->rlen, r->fam, r->q, r->qlen,
			      r->ts == KV_TS_LATEST ? cts : r->ts, (uint8_t)(r->type - 1));
		ks[i].i = i;
	}
	qsort(ks, c->n, sizeof *ks, ikent_cmp);
	kv_status st = KV_OK;
	size_t chunk = CHUNK, i = 0;
	util_buf v = UTIL_BUF_INIT;
	while (!st && i < c->n) {
		ekv_txn *t = ekv_txn_new();
		/* Every chunk proves the locks still ours (the lease alive). */
		const ekv_tlock *l0 = &g->tl[0];
		ekv_txn_cmp_value_eq(t, (const uint8_t *)l0->k.data, l0->k.len, g->held, sizeof g->held);
		size_t j = i;
		for (; j < c->n && ekv_txn_ops(t) < chunk; j++) {
			if (j + 1 < c->n && ks[j].k.len == ks[j + 1].k.len &&
			    !memcmp(ks[j].k.data, ks[j + 1].k.data, ks[j].k.len))
				continue;
			const rmut *r = &c->r[ks[j].i];
			util_buf_reset(&v);
			util_buf_append(&v, g->txid, EKV_TXID);
			util_buf_putc(&v, r->ts == KV_TS_LATEST && !explicit_ts ? EKV_AT_COMMIT : 0);
			util_buf_append(&v, r->v, r->vlen);
			ekv_txn_put(t, (const uint8_t *)ks[j].k.data, ks[j].k.len, (const uint8_t *)v.data,
				    v.len);
		}
		st = run_must(g, t, KV_IO_ERROR, "lost its table locks (lease expired); rolled back");
		ekv_txn_free(t);
		if (st == KV_TOO_LARGE && chunk > 16) { /* a cluster with lower limits */
			chunk /= 4;
			st = KV_OK;
			continue;
		}
		i = j;
		if (!st)
			st = keepalive(g);
	}
	util_buf_free(&v);
	for (size_t k = 0; k < c->n; k++)
		util_buf_free(&ks[k].k);
	free(ks);
	return st;
}

/* Step 4: the record to committed at a fresh timestamp, the locks freed. */
static kv_status flip(big *g, kv_store *s, kv_ts *cts_out)
{
	ekv *e = g->e;
	for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		kv_ts cts = ekv_next_ts(e);
		uint8_t clockval[16], cmpval[8], recval[9];
		util_put_be64(clockval, cts);
		memcpy(clockval + 8, e->node_id, 8);
		util_put_be64(cmpval, cts);
		recval[0] = 'C';
		util_put_be64(recval + 1, cts);
		ekv_txn *t = ekv_txn_new();
		ekv_txn_cmp_value_lt(t, (const uint8_t *)g->ck.data, g->ck.len, cmpval, 8);
		ekv_txn_cmp_value_eq(t, (const uint8_t *)g->rec.data, g->rec.len, (const uint8_t *)"P", 1);
		for (size_t i = 0; i < g->ntl; i++) {
			ekv_tlock *l = &g->tl[i];
			ekv_txn_cmp_value_eq(t, (const uint8_t *)l->k.data, l->k.len, g->held,
					     sizeof g->held);
			ekv_txn_put(t, (const uint8_t *)l->k.data, l->k.len, (const uint8_t *)"F", 1);
		}
		ekv_txn_put(t, (const uint8_t *)g->rec.data, g->rec.len, recval, sizeof recval);
		ekv_txn_put(t, (const uint8_t *)g->ck.data, g->ck.len, clockval, 16);
		ekv_txn_else_get(t, (const uint8_t *)g->ck.data, g->ck.len);
		ekv_txn_res r;
		kv_status st = ekv_txn_run(e, t, &r);
		ekv_txn_free(t);
		if (st) {
			if (r.ambiguous && st == KV_IO_ERROR)
				st = kv_fail(KV_IO_ERROR,
					     "the etcd cluster did not answer; the commit may or may not "
					     "have happened: %s",
					     kv_errmsg());
			ekv_txn_res_free(&r);
			return st;
		}
		ekv_range_res *fg = &r.fail_get;
		int64_t rev = r.rev;
		bool ok = r.succeeded;
		if (!ok && fg->n && fg->kvs[0].vlen == 16 && !memcmp(fg->kvs[0].val, clockval, 16)) {
			ok = true; /* an earlier attempt of this very request applied */
			rev = fg->kvs[0].mod_rev;
		}
		if (ok) {
			ekv_remember(e, cts, rev);
			ekv_advance(s, cts);
			rec_note(e, g->txid, rev, cts);
			*cts_out = cts;
			ekv_txn_res_free(&r);
			return KV_OK;
		}
		bool newer = fg->n && fg->kvs[0].vlen >= 8 && util_get_be64(fg->kvs[0].val) >= cts;
		if (newer)
			ekv_observe(e, util_get_be64(fg->kvs[0].val));
		ekv_txn_res_free(&r);
		if (!newer)
			return kv_fail(KV_IO_ERROR,
				       "large transaction: lost its table locks before the commit "
				       "(lease expired); rolled back");
	}
	return kv_fail(KV_BUSY, "large transaction: too many concurrent commits at its flip");
}

kv_status ekv_commit_big(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
			 ekv_mset *ms, kv_ts *commit_ts)
{
	big g = {.e = s->etcd, .rec = UTIL_BUF_INIT, .ck = UTIL_BUF_INIT};
	ekv_clock_key(g.e, &g.ck);
	cctx c = {0};
	kv_status st = ekv_lease_grant(g.e, LOCK_TTL_S, &g.lease);
	if (st)
		goto out;
	g.last_ka = util_now_us();
	int64_t rrev = 0;
	kv_ts t0 = 0;
	if ((st = lock_tables(&g, s, ms, check, read_ts, &rrev, &t0)))
		goto out;
	if (!g.ntl) {
		st = kv_fail(KV_INVALID, "large transaction without tables");
		goto out;
	}
	/* Conditions, increments and appends against the state after the
	 * lock: it cannot change under them until the flip. */
	kv_ts clock;
	int64_t crev;
	if ((st = ekv_clock_read(g.e, &clock, &crev)))
		goto out;
	ekv_latest_pin = crev;
	st = commit_check_conditions(b);
	if (!st)
		st = commit_resolve(b, &c);
	ekv_latest_pin = 0;
	if (!st)
		st = check_rows(&g, ms, rrev);
	if (!st)
		st = stage(&g, &c, o && o->ts ? o->ts : t0, o && o->ts);
	kv_ts cts = 0;
	if (!st)
		st = flip(&g, s, &cts);
	if (!st) {
		atomic_fetch_add(&s->n_commits, 1);
		if (commit_ts)
			*commit_ts = cts;
	}
out:
	/* Committed: the record and the locks were put again without the
	 * lease, so revoking it deletes nothing. Failed: it deletes the
	 * record and the locks (the intents stay invisible). */
	if (g.lease)
		(void)ekv_lease_revoke(g.e, g.lease);
	commit_cc_free(&c);
	ekv_tlocks_free(g.tl, g.ntl);
	util_buf_free(&g.rec);
	util_buf_free(&g.ck);
	return st;
}
