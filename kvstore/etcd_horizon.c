/*
 * etcd_horizon.c — Strata drives etcd's revision compaction
 * (docs/scale-out.md, "Version GC"). A background thread per store:
 *   - publishes this process's horizon, the oldest etcd revision it may
 *     still read (its oldest pinned snapshot, else the current revision),
 *     under /strata-compaction/h/<node id> (one key space for the whole
 *     etcd cluster: compaction is cluster-wide), on a lease (a killed
 *     server's key goes when the lease expires);
 *   - holds or tries to take the compactor key /strata-compaction/g (same
 *     lease): the
 *     process holding it compacts etcd every STRATA_ETCD_COMPACT_S seconds
 *     up to the minimum published horizon minus STRATA_ETCD_COMPACT_MARGIN
 *     revisions.
 * A new snapshot is always at the current revision, which is at or past
 * every horizon published before, so compaction never removes a revision
 * that a pinned snapshot reads; the margin covers a snapshot pinned while
 * its server publishes.
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

#define PUBLISH_US (2LL * 1000000)

/* etcd compacts the whole cluster, so the keys are the cluster's, not a
 * Strata prefix's: every server of every prefix publishes here. */
#define HZ_ROOT "/strata-compaction"

static void hz_key_of(const uint8_t id[8], util_buf *b)
{
	static const char hex[] = "0123456789abcdef";
	util_buf_append(b, HZ_ROOT "/h/", strlen(HZ_ROOT "/h/"));
	for (int i = 0; i < 8; i++) {
		util_buf_putc(b, hex[id[i] >> 4]);
		util_buf_putc(b, hex[id[i] & 15]);
	}
}

static void hz_key(const ekv *e, util_buf *b)
{
	hz_key_of(e->node_id, b);
}

static void hz_prefix(util_buf *b)
{
	util_buf_append(b, HZ_ROOT "/h/", strlen(HZ_ROOT "/h/"));
}

static void gk_key(util_buf *b)
{
	util_buf_append(b, HZ_ROOT "/g", strlen(HZ_ROOT "/g"));
}

/* Publishes the horizon: the oldest pinned revision, else the current. */
static kv_status publish(ekv *e)
{
	kv_ts ts;
	int64_t rev;
	kv_status st = ekv_clock_read(e, &ts, &rev);
	if (st)
		return st;
	pthread_mutex_lock(&e->map_mu);
	for (size_t i = 0; i < e->npins; i++)
		if (e->pins[i].rev && e->pins[i].rev < rev)
			rev = e->pins[i].rev;
	pthread_mutex_unlock(&e->map_mu);
	uint8_t v[8];
	util_put_be64(v, (uint64_t)rev);
	util_buf k = UTIL_BUF_INIT;
	hz_key(e, &k);
	ekv_txn *t = ekv_txn_new();
	ekv_txn_put_lease(t, (const uint8_t *)k.data, k.len, v, 8, e->hz_lease);
	ekv_txn_res r;
	st = ekv_txn_run(e, t, &r);
	if (!st && !r.succeeded)
		st = kv_fail(KV_IO_ERROR, "etcd: publishing the horizon failed");
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	util_buf_free(&k);
	return st;
}

bool ekv_elect(ekv *e, const uint8_t *k, size_t klen, int64_t lease)
{
	ekv_txn *t = ekv_txn_new();
	ekv_txn_cmp_absent(t, k, klen);
	ekv_txn_put_lease(t, k, klen, e->node_id, 8, lease);
	ekv_txn_else_get(t, k, klen);
	ekv_txn_res r;
	kv_status st = ekv_txn_run(e, t, &r);
	bool mine = !st && (r.succeeded || ekv_txn_res_got(&r, e->node_id, 8));
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	return mine;
}

/* Takes the compactor key if free; true if this process holds it. */
static bool elect(ekv *e)
{
	util_buf k = UTIL_BUF_INIT;
	gk_key(&k);
	bool mine = ekv_elect(e, (const uint8_t *)k.data, k.len, e->hz_lease);
	util_buf_free(&k);
	return mine;
}

/* Compacts up to the minimum horizon minus the margin. */
static void compact(ekv *e)
{
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	hz_prefix(&lo);
	ekv_prefix_end((const uint8_t *)lo.data, lo.len, &hi);
	ekv_range_req q = {
	    .key = (const uint8_t *)lo.data, .klen = lo.len, .end = (const uint8_t *)hi.data, .elen = hi.len};
	ekv_range_res r;
	kv_status st = ekv_range(e, &q, &r);
	util_buf_free(&lo);
	util_buf_free(&hi);
	if (st)
		return;
	int64_t min = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (r.kvs[i].vlen != 8)
			continue;
		int64_t h = (int64_t)util_get_be64(r.kvs[i].val);
		if (!min || h < min)
			min = h;
	}
	ekv_range_res_free(&r);
	int64_t target = min - util_env_int("STRATA_ETCD_COMPACT_MARGIN", 1000);
	if (!min || target <= e->hz_compacted)
		return;
	if (ekv_compact(e, target) == KV_OK) {
		e->hz_compacted = target;
		atomic_fetch_add(&e->hz_compactions, 1);
		util_log(UTIL_LOG_INFO, "etcd: compacted revisions below %lld", (long long)target);
	}
}

static void *hz_main(void *arg)
{
	ekv *e = arg;
	int every_s = util_env_int("STRATA_ETCD_COMPACT_S", 60);
	int ttl = util_env_int("STRATA_ETCD_HORIZON_TTL_S", 10);
	int64_t next_compact = util_now_us() + (int64_t)every_s * 1000000;
	while (kv_bg_sleep(&e->hz, PUBLISH_US)) {
		bool alive = false;
		if (!e->hz_lease || ekv_lease_keepalive(e, e->hz_lease, &alive) || !alive) {
			e->hz_lease = 0;
			(void)ekv_lease_grant(e, ttl, &e->hz_lease);
		}
		if (e->hz_lease && publish(e) == KV_OK && util_now_us() >= next_compact) {
			next_compact = util_now_us() + (int64_t)every_s * 1000000;
			if (elect(e))
				compact(e);
		}
	}
	return NULL;
}

void ekv_horizon_start(ekv *e)
{
	if (util_env_int("STRATA_ETCD_COMPACT_S", 60) <= 0)
		return;
	/* Published before the first snapshot: see the top of this file. */
	if (ekv_lease_grant(e, util_env_int("STRATA_ETCD_HORIZON_TTL_S", 10), &e->hz_lease) == KV_OK)
		(void)publish(e);
	else
		e->hz_lease = 0;
	(void)kv_bg_start(&e->hz, hz_main, e);
}

void ekv_horizon_stop(ekv *e)
{
	if (!e->hz.running)
		return;
	kv_bg_stop(&e->hz);
	if (e->hz_lease)
		(void)ekv_lease_revoke(e, e->hz_lease); /* the horizon goes at once */
}

/* ---- owners (kv_store_owner_id): the horizon key is the liveness mark ---- */

uint64_t kv_store_owner_id(kv_store *s)
{
	if (!s->etcd || !s->etcd->hz.running)
		return 0;
	return util_get_be64(s->etcd->node_id); /* (all-zero: "none", never swept) */
}

kv_status kv_store_owner_alive(kv_store *s, uint64_t id, bool *alive)
{
	*alive = true;
	if (!s->etcd)
		return kv_fail(KV_NOT_SUPPORTED, "owner ids exist only on shared stores");
	uint8_t raw[8];
	util_put_be64(raw, id);
	util_buf k = UTIL_BUF_INIT;
	hz_key_of(raw, &k);
	ekv_range_req q = {.key = (const uint8_t *)k.data, .klen = k.len, .keys_only = true};
	ekv_range_res r;
	kv_status st = ekv_range(s->etcd, &q, &r);
	util_buf_free(&k);
	if (st)
		return st;
	*alive = r.n > 0;
	ekv_range_res_free(&r);
	return KV_OK;
}
