/*
 * write.c — the write protocol. A commit's index mutations are collected
 * in an idx_writer (puts and deletes of one key coalesce, the put wins),
 * then either join the data batch (atomic: one commit timestamp T for
 * entries and data, entries verified) or go through the split protocol
 * that a backend without cross-table atomic batches needs:
 *
 *   reserve T
 *   1. at T: new entries unverified; for each removed entry an unverified
 *      copy of it (an intent: the old key now reads as "check the row");
 *      guards of unique values taken, with their conditions
 *   2. at T: the data batch
 *   3. at T: new entries again, verified; removed entries and the guards
 *      of values left deleted
 *   finish T
 *
 * Readers never see T before it is finished. After a crash between steps,
 * every entry at T is either unverified (judged against its row: the
 * new key matches only if step 2 happened, the old key only if it did
 * not) or final. Removals come last so that no crash can remove the
 * entry of a row whose data write never happened.
 */
#include <stdlib.h>
#include <string.h>

#include "idx.h"

typedef struct mut {
	const idx_def *d;
	uint8_t *key;
	size_t klen;
	uint8_t *val; /* put: the new value; delete: the old value (may be NULL) */
	size_t vlen;
	bool put, del;
	bool guard; /* a unique value's guard (never verified, no intent) */
	int req;    /* 0 none, 1 absent, 2 equal to exp */
	uint8_t *exp;
	size_t elen;
} mut;

struct idx_writer {
	util_arena *arena;
	util_map keys; /* oid ++ key -> mut index + 1 */
	mut *muts;
	size_t n, cap;
};

idx_writer *idx_writer_new(void)
{
	idx_writer *w = util_xcalloc(1, sizeof *w);
	w->arena = util_arena_new(16 * 1024, 0);
	return w;
}

void idx_writer_free(idx_writer *w)
{
	if (!w)
		return;
	util_map_free(&w->keys);
	free(w->muts);
	util_arena_destroy(w->arena);
	free(w);
}

void idx_writer_reset(idx_writer *w)
{
	util_map_free(&w->keys);
	w->n = 0;
	util_arena_reset(w->arena);
}

size_t idx_writer_count(const idx_writer *w)
{
	return w->n;
}

static uint8_t *copy(idx_writer *w, const void *p, size_t n)
{
	uint8_t *c = util_arena_alloc(w->arena, n ? n : 1);
	UTIL_ASSERT(c, "index writer: out of memory");
	if (n)
		memcpy(c, p, n);
	return c;
}

static mut *find(idx_writer *w, const idx_def *d, const void *key, size_t klen)
{
	uint8_t stack[256];
	size_t mk = klen + 4;
	uint8_t *buf = mk <= sizeof stack ? stack : util_xmalloc(mk);
	util_put_be32(buf, d->oid);
	memcpy(buf + 4, key, klen);
	uintptr_t at = (uintptr_t)util_map_get(&w->keys, buf, mk);
	mut *m;
	if (at) {
		m = &w->muts[at - 1];
	} else {
		if (w->n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 64;
			w->muts = util_xrealloc(w->muts, sizeof(mut) * w->cap);
		}
		m = &w->muts[w->n++];
		memset(m, 0, sizeof *m);
		m->d = d;
		m->key = copy(w, key, klen);
		m->klen = klen;
		util_map_put(&w->keys, buf, mk, (void *)(uintptr_t)w->n);
	}
	if (buf != stack)
		free(buf);
	return m;
}

void idx_writer_put(idx_writer *w, const idx_def *d, const void *key, size_t klen, const void *val,
		    size_t vlen)
{
	UTIL_ASSERT(vlen >= 1, "index entry value without flags");
	mut *m = find(w, d, key, klen);
	m->put = true;
	m->del = false;
	m->val = copy(w, val, vlen);
	m->vlen = vlen;
}

void idx_writer_delete(idx_writer *w, const idx_def *d, const void *key, size_t klen, const void *old_val,
		       size_t old_vlen)
{
	mut *m = find(w, d, key, klen);
	if (m->put)
		return; /* another row takes the key over in this commit */
	m->del = true;
	m->val = old_val && old_vlen ? copy(w, old_val, old_vlen) : NULL;
	m->vlen = old_val ? old_vlen : 0;
}

void idx_writer_guard(idx_writer *w, const idx_def *d, const void *values, size_t vlen, const void *pk,
		      size_t pklen, bool take)
{
	mut *m = find(w, d, values, vlen);
	m->guard = true;
	if (take) {
		util_buf v = UTIL_BUF_INIT;
		idx_make_guard_value(pk, pklen, &v);
		m->put = true;
		m->del = false;
		m->val = copy(w, v.data, v.len);
		m->vlen = v.len;
		util_buf_free(&v);
	} else if (!m->put) {
		m->del = true;
	}
}

void idx_writer_require(idx_writer *w, const idx_def *d, const void *key, size_t klen, const void *expect,
			size_t elen)
{
	mut *m = find(w, d, key, klen);
	m->guard = true;
	m->req = expect ? 2 : 1;
	m->exp = expect ? copy(w, expect, elen) : NULL;
	m->elen = expect ? elen : 0;
}

static void put_flagged(kv_batch *b, const mut *m, bool verified, kv_ts ts)
{
	if (m->guard)
		verified = false; /* a guard's value is what conditions compare */
	uint8_t stack[512];
	uint8_t *v = m->vlen <= sizeof stack ? stack : util_xmalloc(m->vlen);
	memcpy(v, m->val, m->vlen);
	v[0] = (uint8_t)(verified ? v[0] | IDX_F_VERIFIED : v[0] & ~IDX_F_VERIFIED);
	kv_batch_put(b, m->d->kv, m->key, m->klen, IDX_FAMILY, "", 0, ts, v, m->vlen);
	if (v != stack)
		free(v);
}

static void add_require(kv_batch *b, const mut *m)
{
	if (m->req)
		kv_batch_require(b, m->d->kv, m->key, m->klen, IDX_FAMILY, "", 0,
				 m->req == 1 ? KV_CMP_ABSENT : KV_CMP_EQ, m->exp, m->elen);
}

static int cmp_mut(const void *a, const void *b)
{
	const mut *x = a, *y = b;
	if (x->d->oid != y->d->oid)
		return x->d->oid < y->d->oid ? -1 : 1;
	return util_bytes_cmp(x->key, x->klen, y->key, y->klen);
}

/* Mutations in (index, key) order: the store's memstore inserts each next
 * to the previous one, much faster than in random order. The map of keys
 * is not used after this. */
static void sort_muts(idx_writer *w)
{
	if (w->n > 1)
		qsort(w->muts, w->n, sizeof(mut), cmp_mut);
	util_map_free(&w->keys);
}

void idx_writer_to_batch(idx_writer *w, kv_batch *data)
{
	sort_muts(w);
	for (size_t i = 0; i < w->n; i++) {
		const mut *m = &w->muts[i];
		add_require(data, m);
		if (m->put)
			put_flagged(data, m, true, KV_TS_LATEST);
		else if (m->del)
			kv_batch_delete(data, m->d->kv, m->key, m->klen, IDX_FAMILY, "", 0, KV_TS_LATEST,
					KV_DELETE_COLUMN);
	}
}

kv_status idx_commit_split(idx_writer *w, kv_store *s, kv_batch *data, const idx_split_opts *o,
			   kv_ts *commit_ts)
{
	sort_muts(w);
	kv_ts t;
	kv_status st = kv_ts_reserve(s, &t);
	if (st != KV_OK)
		return st;
	kv_write_opts wo;
	memset(&wo, 0, sizeof wo);
	wo.ts = t;
	kv_batch *b = kv_batch_new();
	/* 1: entries and intents, unverified; guards taken; the unique
	 * conditions. */
	for (size_t i = 0; i < w->n; i++) {
		const mut *m = &w->muts[i];
		add_require(b, m);
		if (m->put || (m->del && m->val && !m->guard))
			put_flagged(b, m, false, KV_TS_LATEST);
	}
	st = kv_commit(s, b, &wo, NULL);
	if (st != KV_OK)
		goto out;
	if (o && o->fault)
		o->fault(o->fault_arg, IDX_STEP_INDEX_WRITTEN);
	/* 2: the data. */
	st = o && o->commit_if_ts ? kv_commit_if(s, data, o->commit_if_ts, &wo, NULL)
				  : kv_commit(s, data, &wo, NULL);
	kv_batch_clear(b);
	if (st != KV_OK) {
		/* Undo step 1 exactly: the versions at t, nothing older. */
		for (size_t i = 0; i < w->n; i++) {
			const mut *m = &w->muts[i];
			if (m->put || (m->del && m->val))
				kv_batch_delete(b, m->d->kv, m->key, m->klen, IDX_FAMILY, "", 0, t,
						KV_DELETE);
		}
		if (kv_batch_count(b))
			(void)kv_commit(s, b, &wo, NULL); /* if this fails too, readers judge the entries */
		goto out;
	}
	if (o && o->fault)
		o->fault(o->fault_arg, IDX_STEP_DATA_WRITTEN);
	/* 3: verify the new entries, remove the old ones and left guards. */
	for (size_t i = 0; i < w->n; i++) {
		const mut *m = &w->muts[i];
		if (m->put && !m->guard)
			put_flagged(b, m, true, KV_TS_LATEST);
		else if (m->del)
			kv_batch_delete(b, m->d->kv, m->key, m->klen, IDX_FAMILY, "", 0, KV_TS_LATEST,
					KV_DELETE_COLUMN);
	}
	/* The data is committed: a failure here leaves unverified entries and
	 * intents, which readers judge correctly; the commit stands. */
	(void)kv_commit(s, b, &wo, NULL);
	if (o && o->fault)
		o->fault(o->fault_arg, IDX_STEP_DONE);
	if (commit_ts)
		*commit_ts = t;
out:
	kv_batch_free(b);
	kv_ts_finish(s, t);
	/* As kv_commit, return only once readers see the commit: the next
	 * writer of these rows reads its before-image at the read point. */
	if (st == KV_OK)
		while (kv_read_point(s) < t)
			util_sleep_us(20);
	return st;
}
