/*
 * etcd_big.c — commits of batches too large for one etcd transaction
 * (beyond --max-txn-ops or --max-request-bytes), still all-or-nothing and
 * isolated (docs/scale-out.md, "Large transactions"):
 *
 *   1. Lock: one txn takes the lock key P/l/eid of every kv table the batch
 *      touches (value 'H' || txid, on a lease: one large transaction per
 *      table at a time) and creates the transaction record P/x/txid ('P',
 *      pending, on the lease). Then chunks put a row lock P/k/eid/row
 *      (txid, on the lease) for every row the batch touches: plain commits
 *      compare the row locks of their rows absent and wait while one is
 *      there; rows the batch does not touch are never delayed.
 *   2. Resolve conditions and increments against the state after the row
 *      locks, and check first-committer-wins for the batch's rows in
 *      compare-only txns (nobody else writes these rows now, so chunked
 *      checks hold). The cells' timestamp T0 is past every commit so far.
 *   3. Write the cells as intents in chunks: cell keys at T0 with type - 1
 *      (odd) in the type byte, values txid || flag || value. Readers
 *      skip intents whose record is not committed at their revision and
 *      show the others at the commit timestamp T' (flag EKV_AT_COMMIT;
 *      explicit timestamps stay): no other commit wrote these rows
 *      between T0 and T', so the versions' order is the same.
 *   4. Flip: one txn — the record still pending and every table lock
 *      still ours (the lease alive) — sets the record to 'C' || T', frees
 *      the table locks ('F', no lease), puts each table's large-commit
 *      mark P/m/eid (its mod_revision tells later commits that a large
 *      transaction committed there) and moves the clock to T'. Intents
 *      become visible at once at every revision from the flip on.
 *      Revoking the lease then drops the row locks.
 * A committer that dies leaves its lease to expire: locks and record go,
 * its intents stay invisible; a reader that meets an intent without a
 * record (aborted for good) deletes it when its scan ends (ekv_sweep_run;
 * version GC reads the whole table, so it sweeps every such intent).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ekv.h"

#define CHUNK        1000 /* operations per staging or checking txn */
#define SWEEP_CHUNK  500  /* intents deleted per txn (a compare and a delete each) */
#define LOCK_WAIT_US (600LL * 1000000)
#define MAX_ATTEMPTS 64

/* Attempts of a large commit whose lease ends under it (ekv_commit_big). */
#define LEASE_ATTEMPTS 3

typedef struct big {
	ekv *e;
	uint8_t txid[EKV_TXID];
	uint8_t held[1 + EKV_TXID]; /* a held lock's value */
	util_buf rec, ck;
	ekv_tlock *tl;
	size_t ntl;
	int64_t lease;
	int64_t ttl_s; /* the lease's (STRATA_ETCD_BIG_TTL_S, default 10 s) */
	/* The keep-alive thread (renew_loop): renews the lease every ttl/4
	 * whatever the committer is doing, retrying failed renewals. */
	kv_bg ka;
	atomic_bool lost; /* the lease ended (etcd said so, or no renewal for a whole TTL) */
	/* The flip's txn went unanswered: it may have committed, so the
	 * attempt must not be run again (ekv_commit_big). */
	bool flip_unsure;
} big;

/* Crash tests (tests/etcd/bigcrash.py): a server started with
 * STRATA_TEST_FAULTS=1 and STRATA_ETCD_BIG_FAULT=<step> exits at once, as
 * if killed, after that step of its first large commit; with
 * STRATA_ETCD_BIG_FAULT=stall_<step> it sleeps STRATA_ETCD_BIG_STALL_S
 * seconds there instead (a committer slower than its lease's TTL: the
 * renewal thread must keep the lease); with expire_<step> it revokes its
 * own lease there, once per process (etcd dropping the lease under a live
 * committer, as a starved renewal did at load ~50: the commit must run
 * again on a new lease). */
static void fault_point(big *g, const char *step)
{
	static atomic_bool expired;
	const char *on = getenv("STRATA_TEST_FAULTS"), *f = getenv("STRATA_ETCD_BIG_FAULT");
	if (!on || strcmp(on, "1") != 0 || !f)
		return;
	if (!strncmp(f, "stall_", 6) && !strcmp(f + 6, step)) {
		int64_t sec = util_env_int("STRATA_ETCD_BIG_STALL_S", 5);
		struct timespec ts = {sec > 0 ? (time_t)sec : 5, 0};
		fprintf(stderr, "strata: large transaction stalls %d s after %s\n", (int)ts.tv_sec, step);
		nanosleep(&ts, NULL);
		return;
	}
	if (!strncmp(f, "expire_", 7) && !strcmp(f + 7, step)) {
		if (!atomic_exchange(&expired, true)) {
			fprintf(stderr, "strata: large transaction's lease revoked after %s\n", step);
			(void)ekv_lease_revoke(g->e, g->lease);
		}
		return;
	}
	if (strcmp(f, step) != 0)
		return;
	fprintf(stderr, "strata: large transaction fault point %s reached, exiting\n", step);
	_exit(137);
}

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
	*flip_rev = r.n ? 0 : -1;
	if (v) {
		*cts = util_get_be64(r.kvs[0].val + 1);
		*flip_rev = r.kvs[0].mod_rev;
		rec_note(e, txid, r.kvs[0].mod_rev, *cts);
	}
	ekv_range_res_free(&r);
	*vis = v;
	return KV_OK;
}

void ekv_sweep_note(ekv_sweep *w, const ekv_kv *kv)
{
	if (w->n >= EKV_SWEEP_MAX)
		return;
	uint8_t n[8];
	util_put_be32(n, (uint32_t)kv->klen);
	util_buf_append(&w->buf, n, 4);
	util_buf_append(&w->buf, kv->key, kv->klen);
	util_put_be64(n, (uint64_t)kv->mod_rev);
	util_buf_append(&w->buf, n, 8);
	w->n++;
}

typedef struct swk {
	const uint8_t *k;
	size_t kl;
	int64_t mod;
} swk;

static int swk_cmp(const void *a, const void *b)
{
	const swk *x = a, *y = b;
	return kv_slice_cmp((kv_slice){x->k, x->kl}, (kv_slice){y->k, y->kl});
}

/* One txn deleting intents ks[0..n), each compared unchanged; *applied
 * false if some compare failed. */
static kv_status sweep_txn(ekv *e, const swk *ks, size_t n, bool *applied)
{
	ekv_txn *t = ekv_txn_new();
	for (size_t i = 0; i < n; i++) {
		ekv_txn_cmp_mod_eq(t, ks[i].k, ks[i].kl, ks[i].mod);
		ekv_txn_delete_range(t, ks[i].k, ks[i].kl, NULL, 0);
	}
	ekv_txn_res r;
	kv_status st = ekv_txn_run(e, t, &r);
	*applied = !st && r.succeeded;
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	return st;
}

void ekv_sweep_run(ekv *e, ekv_sweep *w)
{
	/* Sorted and unique: a scan may meet one intent twice (seeks), and
	 * etcd refuses a key twice in one txn. */
	swk *ks = util_xcalloc(w->n ? w->n : 1, sizeof *ks);
	size_t n = 0;
	const uint8_t *p = (const uint8_t *)w->buf.data, *end = p + w->buf.len;
	while (p < end && n < w->n) {
		ks[n].kl = util_get_be32(p);
		ks[n].k = p + 4;
		ks[n].mod = (int64_t)util_get_be64(p + 4 + ks[n].kl);
		p += 4 + ks[n].kl + 8;
		n++;
	}
	qsort(ks, n, sizeof *ks, swk_cmp);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || swk_cmp(&ks[u - 1], &ks[i]))
			ks[u++] = ks[i];
	size_t swept = 0;
	bool failed = false;
	for (size_t i = 0; i < u && !failed; i += SWEEP_CHUNK) {
		size_t cnt = u - i < SWEEP_CHUNK ? u - i : SWEEP_CHUNK;
		bool applied;
		failed = sweep_txn(e, ks + i, cnt, &applied) != KV_OK;
		if (!failed && applied)
			swept += cnt;
		else if (!failed) /* one was written again: each on its own */
			for (size_t j = i; j < i + cnt && !failed; j++) {
				failed = sweep_txn(e, ks + j, 1, &applied) != KV_OK;
				swept += !failed && applied;
			}
	}
	/* (a failure leaves the rest to the next reader) */
	if (swept)
		util_debug("etcd: swept %zu intents of aborted large transactions", swept);
	free(ks);
	util_buf_free(&w->buf);
	w->n = 0;
}

/* ---------------------------------------------------------------- committer */

/* The lease is renewed by a thread of its own, not between the commit's
 * steps: one step (resolving thousands of conditions, a chunk retried
 * across members) can take longer than the TTL under heavy load, and a
 * lease renewed only between steps then expired under a live committer
 * (seen once at load ~18). A failed renewal is retried every 200 ms; the
 * lease counts as lost only when etcd reports it gone or nothing renewed
 * it for a whole TTL (then etcd may have dropped it: the locks are no
 * longer proven ours). */
static void *renew_loop(void *arg)
{
	big *g = arg;
	int64_t period = g->ttl_s * 1000000 / 4, last_ok = util_now_us(), wait = period;
	while (kv_bg_sleep(&g->ka, wait)) {
		bool alive = true;
		/* etcd restarts the TTL when it handles the request, at or
		 * after it was sent: counting from the send never overstates
		 * how long the lease has left. */
		int64_t sent = util_now_us();
		kv_status st = ekv_lease_keepalive(g->e, g->lease, &alive);
		int64_t now = util_now_us();
		if (!st && !alive) {
			atomic_store(&g->lost, true);
			break;
		}
		if (!st) {
			last_ok = sent;
			wait = period;
		} else {
			if (now - last_ok >= g->ttl_s * 1000000) {
				atomic_store(&g->lost, true);
				break;
			}
			wait = 200 * 1000;
		}
	}
	return NULL;
}

static void renew_start(big *g)
{
	if (!kv_bg_start(&g->ka, renew_loop, g))
		util_warn("etcd: no keep-alive thread for a large transaction's lease (%d s TTL)",
			  (int)g->ttl_s);
}

/* Between steps: has the lease ended? (The steps' etcd txns also compare
 * the lock, so one lost mid-step is caught at the next txn anyway.) */
static kv_status keepalive(big *g)
{
	if (atomic_load(&g->lost))
		return kv_fail(KV_IO_ERROR,
			       "large transaction: its lease expired (not renewed for %lld s); rolled back",
			       (long long)g->ttl_s);
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
				ekv_txn_cmp_mod_lt(t, (const uint8_t *)l->mk.data, l->mk.len, l->lim + 1);
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
		if ((st = ekv_tlock_state(e, g->tl, g->ntl, clim, NULL, &ls)))
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

/* Step 1b: a lock per row the batch touches (written, checked, guarded
 * or share-marked), on the lease, in chunks that prove the table locks
 * still ours. Plain commits compare the row locks of their rows absent
 * and wait while one is there; only large transactions take them, one
 * table lock holder at a time, so nothing here waits. A lock left by the
 * previous large transaction (committed, its lease not yet revoked) is
 * overwritten, which moves it to this lease. */
static kv_status lock_rows(big *g, const ekv_mset *ms)
{
	util_buf lk = UTIL_BUF_INIT;
	kv_status st = KV_OK;
	size_t i = 0;
	while (!st && i < ms->n) {
		ekv_txn *t = ekv_txn_new();
		const ekv_tlock *l0 = &g->tl[0];
		ekv_txn_cmp_value_eq(t, (const uint8_t *)l0->k.data, l0->k.len, g->held, sizeof g->held);
		for (; i < ms->n && ekv_txn_ops(t) < CHUNK; i++) {
			ekv_rowlock_key(g->e, &ms->m[i].k, &lk);
			ekv_txn_put_lease(t, (const uint8_t *)lk.data, lk.len, g->txid, EKV_TXID, g->lease);
		}
		st = run_must(g, t, KV_IO_ERROR, "lost its table locks (lease expired); rolled back");
		ekv_txn_free(t);
		if (!st)
			st = keepalive(g);
	}
	util_buf_free(&lk);
	return st;
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

/* Step 3: the cells as intents, in chunks; a cell given twice keeps its
 * last value. */
static kv_status stage(big *g, const cctx *c, kv_ts cts, bool explicit_ts)
{
	ekv *e = g->e;
	ekv_ckey *ks = ekv_ckeys_sorted(e, c, cts, 1);
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
			if (ekv_ckey_repeated(ks, c->n, j))
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
		if (!st && i < c->n)
			fault_point(g, "staged_part");
		if (!st)
			st = keepalive(g);
	}
	util_buf_free(&v);
	ekv_ckeys_free(ks, c->n);
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
			ekv_txn_put(t, (const uint8_t *)l->mk.data, l->mk.len, cmpval, 8);
		}
		ekv_txn_put(t, (const uint8_t *)g->rec.data, g->rec.len, recval, sizeof recval);
		ekv_txn_put(t, (const uint8_t *)g->ck.data, g->ck.len, clockval, 16);
		ekv_txn_else_get(t, (const uint8_t *)g->ck.data, g->ck.len);
		ekv_txn_res r;
		kv_status st = ekv_txn_run(e, t, &r);
		ekv_txn_free(t);
		if (st) {
			g->flip_unsure = r.ambiguous;
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
		if (ekv_txn_res_got(&r, clockval, 16)) {
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

/* One attempt on the lease g->lease; c receives the resolved cells. */
static kv_status commit_once(big *g, kv_store *s, kv_batch *b, bool check, kv_ts read_ts,
			     const kv_write_opts *o, ekv_mset *ms, cctx *c, kv_ts *cts)
{
	kv_status st;
	int64_t rrev = 0;
	kv_ts t0 = 0;
	fault_point(g, "granted");
	if ((st = lock_tables(g, s, ms, check, read_ts, &rrev, &t0)))
		return st;
	if (!g->ntl)
		return kv_fail(KV_INVALID, "large transaction without tables");
	if ((st = lock_rows(g, ms)))
		return st;
	fault_point(g, "locked");
	/* Conditions, increments and appends against the state after the
	 * row locks: it cannot change under them until the flip. The cells'
	 * timestamp (shown as the commit's once it flips) is past every
	 * commit before: a plain commit that wrote one of these rows between
	 * the table lock and the row's lock has a later timestamp than t0. */
	kv_ts clock;
	int64_t crev;
	if ((st = ekv_clock_read(g->e, &clock, &crev)))
		return st;
	ekv_observe(g->e, clock);
	t0 = ekv_next_ts(g->e);
	ekv_latest_pin = crev;
	st = commit_check_conditions(b);
	if (!st)
		st = commit_resolve(b, c);
	ekv_latest_pin = 0;
	if (!st)
		st = check_rows(g, ms, rrev);
	if (!st)
		fault_point(g, "checked");
	if (!st)
		st = stage(g, c, o && o->ts ? o->ts : t0, o && o->ts);
	if (!st)
		fault_point(g, "staged");
	if (!st)
		st = flip(g, s, cts);
	if (!st)
		fault_point(g, "flipped");
	return st;
}

/* After a failed attempt: did its lease end under it? Then nothing of the
 * attempt is visible (its record and locks went with the lease, its
 * intents stay invisible) and it may run again — unless its flip went
 * unanswered and may have committed. */
static bool lease_ended(big *g)
{
	if (g->flip_unsure)
		return false;
	if (atomic_load(&g->lost))
		return true;
	bool alive = true;
	return ekv_lease_keepalive(g->e, g->lease, &alive) == KV_OK && !alive;
}

kv_status ekv_commit_big(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
			 ekv_mset *ms, kv_ts *commit_ts)
{
	big g = {.e = s->etcd, .rec = UTIL_BUF_INIT, .ck = UTIL_BUF_INIT};
	ekv_clock_key(g.e, &g.ck);
	int64_t ttl = util_env_int("STRATA_ETCD_BIG_TTL_S", 10);
	g.ttl_s = ttl > 0 ? ttl : 10;
	kv_status st = KV_OK;
	for (int attempt = 1; attempt <= LEASE_ATTEMPTS; attempt++) {
		cctx c = {0};
		kv_ts cts = 0;
		g.lease = 0;
		atomic_store(&g.lost, false);
		st = ekv_lease_grant(g.e, g.ttl_s, &g.lease);
		if (!st) {
			renew_start(&g);
			st = commit_once(&g, s, b, check, read_ts, o, ms, &c, &cts);
		}
		/* The revoke of an ended lease fails ("requested lease not
		 * found"): the attempt's own error is kept, not that one. */
		char why[512];
		snprintf(why, sizeof why, "%s", st ? kv_errmsg() : "");
		bool again = st && g.lease && attempt < LEASE_ATTEMPTS && lease_ended(&g);
		kv_bg_stop(&g.ka);
		/* Committed: the record and the locks were put again without the
		 * lease, so revoking it deletes nothing. Failed: it deletes the
		 * record and the locks (the intents stay invisible), before a
		 * next attempt waits for its own table lock. */
		if (g.lease)
			(void)ekv_lease_revoke(g.e, g.lease);
		commit_cc_free(&c);
		if (!st) {
			atomic_fetch_add(&s->n_commits, 1);
			if (commit_ts)
				*commit_ts = cts;
			break;
		}
		if (!again) {
			st = kv_fail(st, "%s", why);
			break;
		}
		util_warn("etcd: a large transaction's lease ended under it (%s); running it again on a "
			  "new lease (attempt %d of %d)",
			  why, attempt + 1, LEASE_ATTEMPTS);
	}
	ekv_tlocks_free(g.tl, g.ntl);
	util_buf_free(&g.rec);
	util_buf_free(&g.ck);
	return st;
}
