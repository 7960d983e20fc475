/*
 * commit.c — the write path. A commit:
 *   1. waits if memstores are over the global budget (write stall);
 *   2. locks the row-lock stripes of every row it writes, checks or
 *      conditions on, in sorted order (so earlier writers of those rows
 *      have applied and nobody else changes them meanwhile);
 *   3. checks conditions (checkAndMutate) and, for kv_commit_if, conflicts
 *      (a row with a committed cell newer than read_ts), and resolves
 *      increments, appends and "delete the latest version" against the
 *      latest applied state;
 *   4. takes a commit timestamp (or uses a reserved one), writes one WAL
 *      record through group commit, applies the cells to the memstores;
 *   5. unlocks, completes its timestamp and waits until the read point
 *      covers it, so the caller reads its own write.
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "kv_int.h"

static rmut *cc_add(cctx *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->r = util_xrealloc(c->r, c->cap * sizeof(rmut));
	}
	return &c->r[c->n++];
}

static uint8_t *cc_own(cctx *c, size_t n)
{
	c->owned = util_xrealloc(c->owned, (c->nowned + 1) * sizeof(uint8_t *));
	uint8_t *p = util_xmalloc(n ? n : 1);
	c->owned[c->nowned++] = p;
	return p;
}

void commit_cc_free(cctx *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->r);
}

static uint32_t stripe(uint32_t tid, const uint8_t *row, size_t rlen)
{
	return (uint32_t)(util_hash64(row, rlen, 0x726f776cULL + tid) & (KV_NROWLOCKS - 1));
}

static int u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Per-thread scratch space of the commit path (no mallocs per commit). */
typedef struct scratch {
	uint32_t *stripes;
	size_t cap;
	cctx c;
	util_buf rec;
} scratch;

static util_tls_slot scratch_slot;

static void scratch_free(void *p)
{
	scratch *x = p;
	free(x->stripes);
	commit_cc_free(&x->c);
	util_buf_free(&x->rec);
	free(x);
}

/* The thread's scratch; *own: the caller frees it after the commit (it
 * could not be kept for the thread). */
static scratch *get_scratch(bool *own)
{
	scratch *x = util_tls_get(&scratch_slot);
	*own = false;
	if (!x) {
		x = util_xcalloc(1, sizeof(*x));
		*own = !util_tls_set(&scratch_slot, x, scratch_free);
	}
	return x;
}

/* Sorted unique stripes of every row the batch touches (in scratch). */
static uint32_t *collect_stripes(scratch *x, kv_batch *b, size_t *n)
{
	size_t cap = b->n + b->nc + b->nk, k = 0;
	if (x->cap < cap) {
		x->cap = cap;
		x->stripes = util_xrealloc(x->stripes, cap * sizeof(uint32_t));
	}
	uint32_t *st = x->stripes;
	for (size_t i = 0; i < b->n; i++)
		st[k++] = stripe(b->m[i].t->id, mut_row(b, &b->m[i]), b->m[i].rlen);
	for (size_t i = 0; i < b->nc; i++)
		st[k++] = stripe(b->c[i].t->id, cond_ptr(b, b->c[i].roff), b->c[i].rlen);
	for (size_t i = 0; i < b->nk; i++)
		st[k++] = stripe(b->k[i].t->id, cond_ptr(b, b->k[i].roff), b->k[i].rlen);
	qsort(st, k, sizeof(uint32_t), u32cmp);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || st[u - 1] != st[i])
			st[u++] = st[i];
	*n = u;
	return st;
}

static bool cmp_holds(kv_cmp_op op, const uint8_t *cur, size_t cl, const uint8_t *want, size_t wl)
{
	int c = ikey_bytes_cmp(cur, cl, want, wl);
	switch (op) {
	case KV_CMP_EQ:
		return c == 0;
	case KV_CMP_NE:
		return c != 0;
	case KV_CMP_LT:
		return c < 0;
	case KV_CMP_LE:
		return c <= 0;
	case KV_CMP_GT:
		return c > 0;
	case KV_CMP_GE:
		return c >= 0;
	default:
		return false;
	}
}

kv_status commit_check_conditions(kv_batch *b)
{
	util_buf v = UTIL_BUF_INIT;
	kv_status st = KV_OK;
	for (size_t i = 0; i < b->nc && !st; i++) {
		kv_cond *c = &b->c[i];
		bool found;
		kv_ts ts;
		st = read_latest_cell(c->t, cond_ptr(b, c->roff), c->rlen, c->fam, cond_ptr(b, c->qoff),
				      c->qlen, &v, &ts, &found);
		if (st)
			break;
		bool ok;
		if (c->op == KV_CMP_ABSENT)
			ok = !found;
		else if (c->op == KV_CMP_PRESENT)
			ok = found;
		else
			/* A comparison against a missing cell fails (HBase). */
			ok = found &&
			     cmp_holds(c->op, (const uint8_t *)v.data, v.len, cond_ptr(b, c->voff), c->vlen);
		if (!ok)
			st = kv_fail(KV_CHECK_FAILED, "condition %zu on kv table %s did not hold", i,
				     c->t->name);
	}
	util_buf_free(&v);
	return st;
}

kv_status commit_check_row(kv_table *t, const uint8_t *row, size_t rlen, kv_ts read_ts)
{
	int r = recent_check(t->s->recent, t->id, row, rlen, read_ts);
	if (r == 1)
		return kv_fail(KV_CONFLICT, "a row of kv table %s changed after the read timestamp", t->name);
	if (r == 0)
		return KV_OK;
	kv_ts newest;
	kv_status st = read_latest_row_ts(t, row, rlen, &newest);
	if (st)
		return st;
	if (newest > read_ts)
		return kv_fail(KV_CONFLICT, "a row of kv table %s changed after the read timestamp", t->name);
	return KV_OK;
}

void commit_recent_on(kv_store *s)
{
	if (!atomic_load(&s->recent_on)) {
		/* First commit_if: from now on commits note their rows. Writes
		 * before (timestamps up to last_ts) are covered by the low-water
		 * mark; commits assigned after see recent_on (set under ts_mu). */
		pthread_mutex_lock(&s->ts_mu);
		recent_raise_low_water(s->recent, s->last_ts);
		atomic_store(&s->recent_on, true);
		pthread_mutex_unlock(&s->ts_mu);
	}
}

static kv_status check_conflicts(kv_store *s, kv_batch *b, bool check, kv_ts read_ts)
{
	kv_status st = KV_OK;
	commit_recent_on(s);
	for (size_t i = 0; check && i < b->n && !st; i++)
		st = commit_check_row(b->m[i].t, mut_row(b, &b->m[i]), b->m[i].rlen, read_ts);
	for (size_t i = 0; i < b->nk && !st; i++) {
		kv_ts ts = chk_ts(&b->k[i], check, read_ts);
		if (ts)
			st = commit_check_row(b->k[i].t, cond_ptr(b, b->k[i].roff), b->k[i].rlen, ts);
	}
	return st;
}

/* Does the batch have rows a plain kv_commit checks (kv_batch_check_row_at)? */
bool commit_has_at_checks(const kv_batch *b)
{
	for (size_t i = 0; i < b->nk; i++)
		if (b->k[i].ts)
			return true;
	return false;
}

/* The value a cell has after earlier mutations of this batch, or from the
 * store. */
static kv_status current_value(cctx *c, const kv_batch *b, const kv_mut *m, const uint8_t *row,
			       const uint8_t *q, util_buf *out, bool *found)
{
	for (size_t i = c->n; i-- > 0;) {
		rmut *r = &c->r[i];
		if (r->t == m->t && r->type == KV_PUT && !strcmp(r->fam, mut_fam(b, m)) &&
		    r->rlen == m->rlen && r->qlen == m->qlen && !memcmp(r->row, row, m->rlen) &&
		    !memcmp(r->q, q, m->qlen)) {
			util_buf_reset(out);
			util_buf_append(out, r->v, r->vlen);
			*found = true;
			return KV_OK;
		}
	}
	kv_ts ts;
	return read_latest_cell(m->t, row, m->rlen, mut_fam(b, m), q, m->qlen, out, &ts, found);
}

kv_status commit_resolve(kv_batch *b, cctx *c)
{
	util_buf v = UTIL_BUF_INIT;
	kv_status st = KV_OK;
	for (size_t i = 0; i < b->n && !st; i++) {
		kv_mut *m = &b->m[i];
		const uint8_t *row = mut_row(b, m), *q = mut_qual(b, m);
		const char *fam = mut_fam(b, m);
		if (m->type == MUT_DELETE_ROW) {
			pthread_mutex_lock(&m->t->mu);
			int nf = m->t->nfam;
			kv_family_opts *fams = util_xcalloc((size_t)(nf ? nf : 1), sizeof(kv_family_opts));
			memcpy(fams, m->t->fams, sizeof(kv_family_opts) * (size_t)nf);
			pthread_mutex_unlock(&m->t->mu);
			for (int f = 0; f < nf; f++) {
				rmut *r = cc_add(c);
				char *fn = (char *)cc_own(c, strlen(fams[f].name) + 1);
				strcpy(fn, fams[f].name);
				*r = (rmut){m->t, KV_DELETE_FAMILY, fn, row, q, NULL, m->rlen, 0, 0, m->ts};
			}
			free(fams);
			continue;
		}
		if (!table_has_family(m->t, fam)) {
			st = kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", m->t->name, fam);
			break;
		}
		rmut r = {m->t, m->type, fam, row, q, mut_val(b, m), m->rlen, m->qlen, m->vlen, m->ts};
		if (m->type == KV_DELETE && m->ts == KV_TS_LATEST) {
			/* HBase: delete the newest version (none: a no-op marker). */
			bool found;
			kv_ts ts;
			if ((st = read_latest_cell(m->t, row, m->rlen, fam, q, m->qlen, NULL, &ts, &found)))
				break;
			if (found)
				r.ts = ts;
		} else if (m->type == MUT_INCR || m->type == MUT_APPEND) {
			bool found;
			if ((st = current_value(c, b, m, row, q, &v, &found)))
				break;
			if (m->type == MUT_INCR) {
				int64_t cur = 0;
				if (found && v.len != 8) {
					st = kv_fail(KV_INVALID,
						     "increment of a cell that is not a 64-bit counter");
					break;
				}
				if (found)
					cur = (int64_t)util_get_be64((const uint8_t *)v.data);
				uint64_t delta = util_get_be64(mut_val(b, m));
				int64_t nv = (int64_t)((uint64_t)cur + delta);
				uint8_t *p = cc_own(c, 8);
				util_put_be64(p, (uint64_t)nv);
				b->incr_result = nv;
				r.v = p;
				r.vlen = 8;
			} else {
				size_t cl = found ? v.len : 0;
				if (cl + m->vlen > KV_VALUE_MAX) {
					st = kv_fail(KV_TOO_LARGE, "append makes the value too large");
					break;
				}
				uint8_t *p = cc_own(c, cl + m->vlen);
				if (cl)
					memcpy(p, v.data, cl);
				if (m->vlen)
					memcpy(p + cl, mut_val(b, m), m->vlen);
				r.v = p;
				r.vlen = cl + m->vlen;
			}
			r.type = KV_PUT;
			r.ts = KV_TS_LATEST;
		}
		*cc_add(c) = r;
	}
	util_buf_free(&v);
	return st;
}

static void encode(util_buf *w, const cctx *c, kv_ts cts)
{
	util_buf_put_u8(w, 1);
	util_buf_put_be64(w, cts);
	util_buf_put_varint(w, c->n);
	for (size_t i = 0; i < c->n; i++) {
		const rmut *r = &c->r[i];
		size_t fl = strlen(r->fam);
		util_buf_put_varint(w, r->t->id);
		util_buf_put_u8(w, r->type);
		util_buf_put_varint(w, r->rlen);
		util_buf_append(w, r->row, r->rlen);
		util_buf_put_u8(w, (uint8_t)fl);
		util_buf_append(w, r->fam, fl);
		util_buf_put_varint(w, r->qlen);
		util_buf_append(w, r->q, r->qlen);
		util_buf_put_be64(w, r->ts == KV_TS_LATEST ? cts : r->ts);
		util_buf_put_varint(w, r->vlen);
		util_buf_append(w, r->v, r->vlen);
	}
}

/* Inserts one cell into t's active memstore. REQUIRES: t->apply_mu held. */
static kv_status apply_one(kv_table *t, util_buf *kb, const uint8_t *row, size_t rlen, const char *fam,
			   const uint8_t *q, size_t qlen, kv_ts ts, uint8_t type, const uint8_t *v,
			   size_t vlen, kv_ts cts, uint64_t seg)
{
	(void)kb;
	return mem_add_cell(table_target_mem(t, cts), row, rlen, fam, strlen(fam), q, qlen, ts, type, v, vlen,
			    cts, seg);
}

static kv_status apply(kv_store *s, const cctx *c, kv_ts cts, uint64_t seg)
{
	util_buf kb = UTIL_BUF_INIT;
	kv_status st = KV_OK;
	size_t i = 0;
	while (i < c->n && !st) {
		kv_table *t = c->r[i].t;
		pthread_mutex_lock(&t->apply_mu);
		kv_mem *tm = table_target_mem(t, cts);
		size_t before = mem_bytes(tm);
		for (; i < c->n && c->r[i].t == t && !st; i++) {
			const rmut *r = &c->r[i];
			st = apply_one(t, &kb, r->row, r->rlen, r->fam, r->q, r->qlen,
				       r->ts == KV_TS_LATEST ? cts : r->ts, r->type, r->v, r->vlen, cts, seg);
		}
		size_t after = mem_bytes(tm);
		bool active = tm == t->mem;
		pthread_mutex_unlock(&t->apply_mu);
		atomic_fetch_add(&s->mem_total, after - before);
		if (active && after >= s->o.memstore_flush_bytes)
			store_request_flush(s, t);
	}
	util_buf_free(&kb);
	return st;
}

kv_status commit_batch(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		       kv_ts *commit_ts)
{
	if (!b)
		return kv_fail(KV_INVALID, "NULL batch");
	if (s->etcd)
		return ekv_commit(s, b, check, read_ts, o, commit_ts);
	if (b->bad)
		return kv_fail(b->bad, "%s", b->badmsg);
	if (b->s && b->s != s)
		return kv_fail(KV_INVALID, "batch of another store");
	if (o && o->ingest && !b->stage && b->n) {
		kv_status sp = stage_spill(b);
		if (sp)
			return sp;
	}
	if (b->stage)
		return commit_large(s, b, check, read_ts, o, commit_ts);
	if (b->n == 0)
		return KV_OK;
	kv_status st = store_writable(s);
	if (st)
		return st;
	for (size_t i = 0; i < b->n; i++) {
		if (b->m[i].t->s != s)
			return kv_fail(KV_INVALID, "batch mixes kv tables of different stores");
		if (atomic_load(&b->m[i].t->dropped))
			return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", b->m[i].t->name);
	}
	for (size_t i = 0; i < b->nc; i++)
		if (b->c[i].t->s != s || atomic_load(&b->c[i].t->dropped))
			return kv_fail(KV_INVALID, "condition on a kv table of another store or dropped");
	kv_ts reserved = o ? o->ts : 0;
	if (reserved && !clock_is_reserved(s, reserved))
		return kv_fail(KV_INVALID, "commit timestamp %llu is not a reserved, unfinished timestamp",
			       (unsigned long long)reserved);

	store_stall(s);
	for (size_t i = 0; i < b->n; i++)
		if (atomic_load(&b->m[i].t->too_many_files))
			store_stall_files(s, b->m[i].t);
	size_t nstripes;
	bool own_scratch;
	scratch *x = get_scratch(&own_scratch);
	uint32_t *stripes = collect_stripes(x, b, &nstripes);
	for (size_t i = 0; i < nstripes; i++)
		pthread_mutex_lock(&s->rowlocks[stripes[i]]);

	cctx c = x->c; /* reused arrays; put back below */
	c.n = 0;
	c.nowned = 0;
	util_buf rec = x->rec;
	util_buf_reset(&rec);
	kv_pend pend_store = {0}, *pend = NULL;
	kv_ts cts = 0;
	bool rw = false;
	if ((st = commit_check_conditions(b)))
		goto out;
	if ((check || (b->nk && commit_has_at_checks(b))) && (st = check_conflicts(s, b, check, read_ts)))
		goto out;
	if ((st = commit_resolve(b, &c)))
		goto out;
	if (c.n == 0)
		goto out;

	pthread_rwlock_rdlock(&s->apply_rw);
	rw = true;
	if (!reserved)
		pend = &pend_store;
	cts = reserved ? reserved : clock_assign(s, pend);
	bool note_rows = atomic_load(&s->recent_on);
	encode(&rec, &c, cts);
	bool sync = s->o.durability == KV_SYNC_COMMIT && !(o && o->no_sync);
	uint64_t seg = 0;
	if ((st = wal_write(s->wal, (const uint8_t *)rec.data, rec.len, sync, &seg))) {
		if (wal_failed(s->wal))
			store_set_failed(s, "log fsync failed");
		goto out;
	}
	if ((st = apply(s, &c, cts, seg))) {
		/* The log has the batch but the memstore does not: stop writing
		 * until a reopen replays it. */
		store_set_failed(s, "could not apply a logged batch");
		goto out;
	}
	if (note_rows)
		for (size_t i = 0; i < c.n; i++)
			recent_note(s->recent, c.r[i].t->id, c.r[i].row, c.r[i].rlen, cts);
	atomic_fetch_add(&s->n_commits, 1);
out:
	if (rw)
		pthread_rwlock_unlock(&s->apply_rw);
	for (size_t i = nstripes; i-- > 0;)
		pthread_mutex_unlock(&s->rowlocks[stripes[i]]);

	if (pend) {
		clock_complete(s, pend);
		if (!st)
			clock_wait_visible(s, cts);
	}
	if (!st && commit_ts)
		*commit_ts = cts;
	for (size_t i = 0; i < c.nowned; i++)
		free(c.owned[i]);
	c.nowned = 0;
	x->c = c;
	x->rec = rec;
	if (own_scratch)
		scratch_free(x);
	return st;
}

kv_status kv_commit(kv_store *s, kv_batch *b, const kv_write_opts *opts, kv_ts *commit_ts)
{
	return commit_batch(s, b, false, 0, opts, commit_ts);
}

kv_status kv_commit_if(kv_store *s, kv_batch *b, kv_ts read_ts, const kv_write_opts *opts, kv_ts *commit_ts)
{
	return commit_batch(s, b, true, read_ts, opts, commit_ts);
}

kv_status kv_increment(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		       size_t qlen, int64_t delta, int64_t *result)
{
	kv_batch b = {.spill_at = SIZE_MAX}; /* one mutation: never spills */
	batch_add_incr(&b, t, row, rlen, family, qual, qlen, delta);
	kv_status st = commit_batch(t->s, &b, false, 0, NULL, NULL);
	if (!st && result)
		*result = b.incr_result;
	batch_release(&b);
	return st;
}

kv_status kv_append(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		    size_t qlen, const void *val, size_t vlen)
{
	kv_batch b = {.spill_at = SIZE_MAX};
	batch_add_append(&b, t, row, rlen, family, qual, qlen, val, vlen);
	kv_status st = commit_batch(t->s, &b, false, 0, NULL, NULL);
	batch_release(&b);
	return st;
}

/* ---------------------------------------------------------------- replay */

kv_status commit_replay(kv_store *s, const uint8_t *p, size_t n, uint64_t seg, kv_ts *max_ts)
{
	const uint8_t *end = p + n;
	if (n < 9 || p[0] != 1)
		return kv_fail(KV_CORRUPTION, "log record of unknown kind");
	kv_ts cts = util_get_be64(p + 1);
	p += 9;
	uint64_t cnt;
	size_t k = util_varint_get(p, end, &cnt);
	if (!k)
		return kv_fail(KV_CORRUPTION, "malformed log record");
	p += k;
	if (cts > *max_ts)
		*max_ts = cts;
	util_buf kb = UTIL_BUF_INIT;
	kv_status st = KV_OK;
	for (uint64_t i = 0; i < cnt && !st; i++) {
		uint64_t tid, rl, ql, vl;
		char fam[40];
		if (!(k = util_varint_get(p, end, &tid)))
			goto bad;
		p += k;
		if (end - p < 1)
			goto bad;
		uint8_t type = *p++;
		if (!(k = util_varint_get(p, end, &rl)) || rl > IKEY_ROW_MAX || (uint64_t)(end - p - k) < rl)
			goto bad;
		p += k;
		const uint8_t *row = p;
		p += rl;
		if (end - p < 1 || *p > IKEY_FAM_MAX || end - p - 1 < *p)
			goto bad;
		size_t fl = *p++;
		memcpy(fam, p, fl);
		fam[fl] = 0;
		p += fl;
		if (!(k = util_varint_get(p, end, &ql)) || ql > KV_QUAL_MAX || (uint64_t)(end - p - k) < ql)
			goto bad;
		p += k;
		const uint8_t *q = p;
		p += ql;
		if (end - p < 8)
			goto bad;
		kv_ts ts = util_get_be64(p);
		p += 8;
		if (!(k = util_varint_get(p, end, &vl)) || (uint64_t)(end - p - k) < vl)
			goto bad;
		p += k;
		const uint8_t *v = p;
		p += vl;
		if (type != KV_PUT && type != KV_DELETE && type != KV_DELETE_COLUMN &&
		    type != KV_DELETE_FAMILY && type != KV_DELETE_FAMILY_VERSION)
			goto bad;
		kv_table *t = store_find_id(s, (uint32_t)tid);
		if (!t || !table_has_family(t, fam) || cts <= t->flushed_ts)
			continue; /* dropped since, or already in sorted files */
		size_t before = mem_bytes(t->mem);
		st = apply_one(t, &kb, row, rl, fam, q, ql, ts, type, v, vl, cts, seg);
		atomic_fetch_add(&s->mem_total, mem_bytes(t->mem) - before);
	}
	util_buf_free(&kb);
	return st;
bad:
	util_buf_free(&kb);
	return kv_fail(KV_CORRUPTION, "malformed log record");
}
