/*
 * etcd_bggc.c — background version GC on the etcd backend: Strata's own
 * old versions, expired cells and applied delete markers (each an etcd
 * key) are collected without VACUUM FULL.
 *
 * One server per prefix does it: every STRATA_ETCD_GC_S seconds (default
 * 300; 0 turns it off, and so does STRATA_ETCD_COMPACT_S=0, which turns
 * off the horizon publisher) a server takes or keeps the prefix's GC key
 * P "/g" on a lease of its own (compare absent, else its own node id) and,
 * if it holds it, runs ekv_table_gc (etcd_gc.c, the same decisions as
 * VACUUM FULL: below the GC window and each family's retention) on every
 * kv table in turn, pausing STRATA_ETCD_GC_PACE_MS (default 200) between
 * tables and STRATA_ETCD_GC_STEP_MS (default 20) after every
 * EKV_GC_STEP_KEYS keys read within a table, so that the pass, a large
 * table's too, does not crowd out foreground requests. A server that dies
 * leaves the key to its lease (3 intervals + 10 s).
 *
 * Snapshots are safe as with VACUUM FULL: a pinned snapshot reads its etcd
 * revision, where the deleted keys are still visible until etcd's
 * compaction passes it, which the horizons prevent (etcd_horizon.c).
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

/* Takes or keeps the prefix's GC key on *lease; true if this process
 * holds it. */
static bool gc_elect(ekv *e, int64_t *lease, int ttl)
{
	bool alive = false;
	if (!*lease || ekv_lease_keepalive(e, *lease, &alive) || !alive) {
		*lease = 0;
		if (ekv_lease_grant(e, ttl, lease))
			return false;
	}
	util_buf k = UTIL_BUF_INIT;
	util_buf_append(&k, e->prefix, e->plen);
	util_buf_append(&k, "/g", 2);
	bool mine = ekv_elect(e, (const uint8_t *)k.data, k.len, *lease);
	util_buf_free(&k);
	return mine;
}

typedef struct pass {
	kv_store *s;
	int pace_ms, step_ms;
} pass;

/* Pauses for ms; false when asked to stop. */
static bool gc_pause(ekv *e, int64_t ms)
{
	return kv_bg_sleep(&e->gc, (int64_t)ms * 1000);
}

/* Within a table: after every EKV_GC_STEP_KEYS keys (ekv_gc_pace). */
static bool gc_step(void *arg)
{
	pass *p = arg;
	return gc_pause(p->s->etcd, p->step_ms);
}

/* One line per table with something collected (tests/etcd/bggc.py). */
static void log_collected(const char *name, const ekv_gc_pace *pace)
{
	unsigned long long keys = pace->keys, steps = keys / EKV_GC_STEP_KEYS + 1;
	util_info("etcd: background version GC of %s: %llu keys read in %llu steps, %llu deleted", name, keys,
		  steps, (unsigned long long)pace->dropped);
}

/* Collects one kv table, then pauses; nonzero (stop the listing) when
 * asked to stop. */
static int gc_table(void *arg, const char *name)
{
	pass *p = arg;
	ekv *e = p->s->etcd;
	kv_table *t;
	if (kv_table_open(p->s, name, &t) == KV_OK) {
		ekv_gc_pace pace = {gc_step, p, 0, 0};
		if (ekv_table_gc_paced(t, &pace) != KV_OK)
			util_log(UTIL_LOG_WARNING, "etcd: background version GC of %s: %s", name,
				 kv_errmsg());
		else if (pace.dropped)
			log_collected(name, &pace);
		kv_table_close(t);
	}
	return !gc_pause(e, p->pace_ms);
}

/* One pass over every kv table; false if asked to stop. */
static bool gc_pass(kv_store *s, int pace_ms, int step_ms)
{
	pass p = {s, pace_ms, step_ms};
	bool listed = ekv_table_list(s, gc_table, &p) == KV_OK;
	bool go = !kv_bg_stopping(&s->etcd->gc);
	if (listed && go)
		atomic_fetch_add(&s->etcd->gc_passes, 1);
	return go;
}

static void *gc_main(void *arg)
{
	kv_store *s = arg;
	ekv *e = s->etcd;
	int every_s = util_env_int("STRATA_ETCD_GC_S", 300);
	int pace_ms = util_env_int("STRATA_ETCD_GC_PACE_MS", 200);
	int step_ms = util_env_int("STRATA_ETCD_GC_STEP_MS", 20);
	int64_t lease = 0;
	while (gc_pause(e, (int64_t)every_s * 1000))
		if (gc_elect(e, &lease, 3 * every_s + 10) && !gc_pass(s, pace_ms, step_ms))
			break;
	if (lease)
		(void)ekv_lease_revoke(e, lease); /* another server takes over at once */
	return NULL;
}

void ekv_bggc_start(kv_store *s)
{
	if (util_env_int("STRATA_ETCD_GC_S", 300) <= 0 || util_env_int("STRATA_ETCD_COMPACT_S", 60) <= 0)
		return;
	(void)kv_bg_start(&s->etcd->gc, gc_main, s);
}

void ekv_bggc_stop(ekv *e)
{
	kv_bg_stop(&e->gc);
}
