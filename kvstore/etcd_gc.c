/*
 * etcd_gc.c — version garbage collection of one kv table on the etcd
 * backend (kv_table_compact with major = true): every cell is its own etcd
 * key, so old versions, expired cells and applied delete markers stay until
 * they are deleted. The decision per cell is the embedded engine's major
 * compaction (compact_major_keep, the compaction filter for puts), made on
 * one revision's view; dropped keys are deleted in transactions of up to
 * GC_BATCH keys.
 *
 * Horizon: etcd does not know other servers' open snapshots, so only cells
 * at or below (cluster clock - STRATA_ETCD_GC_WINDOW_S, default 600 s) and
 * below each family's retention window are candidates: a transaction
 * older than the window may read a collected version (docs/scale-out.md).
 * A minor compaction has nothing to merge here and returns at once.
 *
 * The table is read at a pinned snapshot (kv_snapshot_acquire), so that
 * Strata's revision compaction (etcd_horizon.c) never passes the revision
 * while a long or paced pass still reads it. Background GC paces the read
 * (ekv_gc_pace, every EKV_GC_STEP_KEYS keys).
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

#define GC_BATCH 1000

static kv_status flush_deletes(ekv *e, ekv_txn **t, size_t *n)
{
	if (!*n)
		return KV_OK;
	ekv_txn_res r;
	kv_status st = ekv_txn_run(e, *t, &r);
	ekv_txn_res_free(&r);
	ekv_txn_free(*t);
	*t = ekv_txn_new();
	*n = 0;
	return st;
}

static const kv_family_opts *family_of(const kv_family_opts *f, int n, const ikey_parts *p)
{
	for (int i = 0; i < n; i++)
		if (strlen(f[i].name) == p->flen && !memcmp(f[i].name, p->fam, p->flen))
			return &f[i];
	return NULL;
}

kv_status ekv_table_gc(kv_table *t, bool major)
{
	return major ? ekv_table_gc_paced(t, NULL) : KV_OK;
}

kv_status ekv_table_gc_paced(kv_table *t, ekv_gc_pace *pace)
{
	ekv *e = t->s->etcd;
	kv_ts clock;
	kv_status st = ekv_snapshot_acquire(t->s, &clock);
	if (st)
		return st;
	int64_t rev = ekv_rev_for(e, clock);
	if (!rev) { /* the cluster was unreachable: no revision pinned */
		ekv_snapshot_release(t->s, clock);
		return kv_fail(KV_IO_ERROR, "etcd: version GC could not pin a snapshot");
	}
	int64_t window_us = util_env_int("STRATA_ETCD_GC_WINDOW_S", 600) * 1000000;
	kv_ts horizon = clock > (kv_ts)window_us ? clock - (kv_ts)window_us : 0;
	int64_t now = util_now_us();

	pthread_mutex_lock(&t->mu);
	int nf = t->nfam;
	kv_family_opts *fams = util_xcalloc((size_t)(nf ? nf : 1), sizeof *fams);
	memcpy(fams, t->fams, sizeof *fams * (size_t)nf);
	kv_compaction_filter_fn cf = t->cf_fn;
	void *cfarg = t->cf_arg;
	pthread_mutex_unlock(&t->mu);

	kv_src *m = ekv_src_new(t, NULL, 0, NULL, 0, false, rev);
	cstate cs = {0};
	util_buf famkey = UTIL_BUF_INIT, key = UTIL_BUF_INIT;
	ekv_txn *txn = ekv_txn_new();
	size_t nd = 0;
	uint64_t dropped = 0, seen = 0;
	for (src_seek(m, NULL, 0); !st && m->valid; src_next(m)) {
		if (++seen % EKV_GC_STEP_KEYS == 0 && pace && !pace->fn(pace->arg))
			break;
		ikey_parts p;
		ikey_split(m->key, m->klen, &p);
		const kv_family_opts *fo = family_of(fams, nf, &p);
		bool keep = true;
		if (fo) {
			kv_ts h = horizon;
			if (fo->retention_seconds > 0) {
				int64_t r = now - fo->retention_seconds * 1000000;
				if (r < 0)
					r = 0;
				if ((kv_ts)r < h)
					h = (kv_ts)r;
			}
			size_t fampfx = 2 + p.rlen + 1 + p.flen;
			bool same_fam = famkey.len == fampfx && !memcmp(famkey.data, m->key, fampfx);
			if (!same_fam) {
				util_buf_reset(&famkey);
				util_buf_append(&famkey, m->key, fampfx);
				cs.has_df = false;
				cs.ndfv = 0;
			}
			if (!same_fam || !ikey_same_column(m->key, m->klen, (const uint8_t *)cs.col.data,
							   cs.col.len + IKEY_SUFFIX)) {
				util_buf_reset(&cs.col);
				util_buf_append(&cs.col, m->key, m->klen - IKEY_SUFFIX);
				cs.has_dc = cs.has_del = false;
				cs.versions = 0;
			}
			keep = compact_major_keep(&cs, fo, &p, h, now, false);
			if (keep && cf && p.type == KV_PUT) {
				kv_cell c = {{p.row, p.rlen}, {p.fam, p.flen},  {p.qual, p.qlen}, p.ts,
					     p.type,          {m->val, m->vlen}};
				keep = cf(cfarg, &c) != KV_COMPACT_DROP;
			}
		} else {
			keep = false; /* a family the table no longer has */
		}
		if (keep)
			continue;
		size_t rkl;
		int twin;
		const uint8_t *rk = ekv_src_raw_key(m, &rkl, &twin); /* an intent's own key */
		ekv_txn_delete_range(txn, rk, rkl, NULL, 0);
		if (twin) { /* the older write of the cell it shadows */
			util_buf_reset(&key);
			util_buf_append(&key, rk, rkl);
			((uint8_t *)key.data)[rkl - 1] = (uint8_t)(rk[rkl - 1] + twin);
			ekv_txn_delete_range(txn, (const uint8_t *)key.data, key.len, NULL, 0);
		}
		dropped++;
		if (++nd == GC_BATCH)
			st = flush_deletes(e, &txn, &nd);
	}
	if (!st)
		st = m->status;
	if (!st)
		st = flush_deletes(e, &txn, &nd);
	src_close(m);
	ekv_snapshot_release(t->s, clock);
	if (pace) {
		pace->keys = seen;
		pace->dropped = dropped;
	}
	ekv_txn_free(txn);
	util_buf_free(&famkey);
	util_buf_free(&key);
	util_buf_free(&cs.col);
	free(cs.dfv);
	free(fams);
	if (!st && dropped) {
		/* Read points taken from now on see the collected state (reads at
		 * earlier ones keep their revision, where nothing they can see
		 * differs). */
		kv_ts ts;
		st = ekv_bump_clock(t->s, &ts);
	}
	if (!st)
		atomic_fetch_add(&t->n_compactions, 1);
	return st;
}
