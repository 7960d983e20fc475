/* memstore.c — the memstore skiplist (LevelDB-style: one writer, lock-free
 * readers through release/acquire links) and its arena and iterator. */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "ikey.h"
#include "sst.h"

#define BLOOM_AT_BYTES (1u << 20)
#define BLOOM_LINES    2048 /* 1 Mbit: ~100k rows at 10 bits each, degrades gently beyond */

#define MAX_HEIGHT 12
#define CHUNK_MIN  (16u << 10) /* first chunk; doubles up to CHUNK_MAX */
#define CHUNK_MAX  (1u << 20)

typedef struct mnode {
	const uint8_t *kv; /* key bytes, then value bytes */
	uint32_t klen, vlen;
	kv_ts cts; /* commit timestamp of the batch that wrote it */
	_Atomic(struct mnode *) next[];
} mnode;

typedef struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint8_t data[];
} chunk;

struct kv_mem {
	atomic_int refs;
	mnode *head;
	atomic_int height;
	chunk *chunks;
	atomic_size_t bytes; /* bytes handed out (what flush thresholds see) */
	size_t next_chunk;
	atomic_uint_fast64_t count;
	atomic_uint_fast64_t min_seg;
	atomic_uint_fast64_t max_cts;
	/* Late cells (ts below their commit's ts: read repairs, backfills):
	 * the oldest such ts and the newest commit that wrote one (0: none);
	 * incremental backups widen their delta by them (mem_late). */
	atomic_uint_fast64_t late_min, late_cts;
	atomic_uint_fast64_t cutoff;
	atomic_bool fam_markers; /* mem_has_family_markers */
	uint64_t rnd;
	_Atomic(_Atomic uint8_t *) bloom; /* row bloom, BLOOM_LINES lines */
	bool bloom_tried;
	/* Insertion finger (writers are serialised by the table's writer
	 * lock): the last node inserted and its predecessors, so that
	 * ascending inserts (bulk loads, a batch's cells in order) start the
	 * search next to where the previous one ended instead of at the head. */
	mnode *last;
	int last_height;
	mnode *last_prev[MAX_HEIGHT];
};

static void *arena_alloc(kv_mem *m, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	chunk *c = m->chunks;
	if (!c || c->cap - c->used < n) {
		/* Small chunks first, so that idle tables cost little. */
		size_t std = m->next_chunk ? m->next_chunk : CHUNK_MIN;
		bool big = n > std / 4;
		size_t cap = big ? n : std;
		if (!big && m->next_chunk < CHUNK_MAX)
			m->next_chunk = std * 2;
		chunk *nc = malloc(sizeof(chunk) + cap);
		if (!nc)
			return NULL;
		nc->used = 0;
		nc->cap = cap;
		if (c && big) {
			/* Big entry: keep the current chunk for small ones. */
			nc->next = c->next;
			c->next = nc;
		} else {
			nc->next = c;
			m->chunks = nc;
		}
		c = nc;
	}
	void *p = c->data + c->used;
	c->used += n;
	atomic_fetch_add(&m->bytes, n);
	return p;
}

kv_mem *mem_new(void)
{
	kv_mem *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	atomic_init(&m->refs, 1);
	atomic_init(&m->height, 1);
	atomic_init(&m->min_seg, UINT64_MAX);
	atomic_init(&m->cutoff, KV_TS_MAX);
	m->rnd = 0x9e3779b97f4a7c15ULL ^ (uintptr_t)m;
	m->head = arena_alloc(m, sizeof(mnode) + MAX_HEIGHT * sizeof(mnode *));
	if (!m->head) {
		free(m);
		return NULL;
	}
	memset(m->head, 0, sizeof(mnode) + MAX_HEIGHT * sizeof(mnode *));
	return m;
}

void mem_ref(kv_mem *m)
{
	atomic_fetch_add(&m->refs, 1);
}

void mem_unref(kv_mem *m)
{
	if (!m || atomic_fetch_sub(&m->refs, 1) != 1)
		return;
	free((void *)atomic_load(&m->bloom));
	chunk *c = m->chunks;
	while (c) {
		chunk *n = c->next;
		free(c);
		c = n;
	}
	free(m);
}

size_t mem_bytes(const kv_mem *m)
{
	return atomic_load(&m->bytes);
}

uint64_t mem_count(const kv_mem *m)
{
	return atomic_load(&m->count);
}

bool mem_has_family_markers(const kv_mem *m)
{
	return atomic_load_explicit(&m->fam_markers, memory_order_acquire);
}

uint64_t mem_min_seg(const kv_mem *m)
{
	return atomic_load(&m->min_seg);
}

void mem_set_cutoff(kv_mem *m, kv_ts cutoff)
{
	atomic_store(&m->cutoff, cutoff);
}

kv_ts mem_cutoff(const kv_mem *m)
{
	return atomic_load(&m->cutoff);
}

kv_ts mem_max_commit_ts(const kv_mem *m)
{
	return atomic_load(&m->max_cts);
}

void mem_late(const kv_mem *m, kv_ts *min_ts, kv_ts *cts)
{
	/* late_cts first: insert() lowers late_min before it raises late_cts. */
	*cts = atomic_load(&m->late_cts);
	*min_ts = *cts ? atomic_load(&m->late_min) : 0;
}

/* Node order: ikey, then newest commit first. */
static inline int node_cmp(const mnode *n, const uint8_t *k, size_t kl, kv_ts cts)
{
	int c = ikey_cmp(n->kv, n->klen, k, kl);
	if (c)
		return c;
	return n->cts > cts ? -1 : n->cts < cts;
}

static int random_height(kv_mem *m)
{
	int h = 1;
	while (h < MAX_HEIGHT) {
		m->rnd ^= m->rnd << 13;
		m->rnd ^= m->rnd >> 7;
		m->rnd ^= m->rnd << 17;
		if ((m->rnd & 3) != 0)
			break;
		h++;
	}
	return h;
}

static void insert(kv_mem *m, mnode *n, int h, kv_ts cts, uint64_t wal_seg);

static void bloom_add(_Atomic uint8_t *b, const uint8_t *key)
{
	uint64_t h = sst_row_hash(key + 2, ikey_rowlen(key));
	for (int j = 0; j < 6; j++) {
		size_t bit = sst_bloom_bit(h, BLOOM_LINES, j);
		atomic_fetch_or_explicit(&b[bit / 8], (uint8_t)(1u << (bit % 8)), memory_order_relaxed);
	}
}

bool mem_may_have_row(const kv_mem *m, const void *row, size_t rlen)
{
	_Atomic uint8_t *b = atomic_load_explicit(&((kv_mem *)m)->bloom, memory_order_acquire);
	if (!b)
		return true;
	uint64_t h = sst_row_hash(row, rlen);
	for (int j = 0; j < 6; j++) {
		size_t bit = sst_bloom_bit(h, BLOOM_LINES, j);
		if (!(atomic_load_explicit(&b[bit / 8], memory_order_relaxed) & (1u << (bit % 8))))
			return false;
	}
	return true;
}

/* Builds the row bloom from the entries so far (the writer, once). */
static void bloom_build(kv_mem *m)
{
	m->bloom_tried = true;
	_Atomic uint8_t *b = calloc((size_t)BLOOM_LINES * SST_BLOOM_LINE_BITS / 8, 1);
	if (!b)
		return;
	for (mnode *x = atomic_load_explicit(&m->head->next[0], memory_order_acquire); x;
	     x = atomic_load_explicit(&x->next[0], memory_order_acquire))
		bloom_add(b, x->kv);
	atomic_store_explicit(&m->bloom, b, memory_order_release);
}

kv_status mem_add(kv_mem *m, const uint8_t *key, size_t klen, const void *val, size_t vlen, kv_ts cts,
		  uint64_t wal_seg)
{
	int h = random_height(m);
	mnode *n = arena_alloc(m, sizeof(mnode) + (size_t)h * sizeof(mnode *) + klen + vlen);
	if (!n)
		return KV_NO_MEMORY;
	uint8_t *kv = (uint8_t *)&n->next[h];
	memcpy(kv, key, klen);
	if (vlen)
		memcpy(kv + klen, val, vlen);
	n->kv = kv;
	n->klen = (uint32_t)klen;
	n->vlen = (uint32_t)vlen;
	n->cts = cts;
	insert(m, n, h, cts, wal_seg);
	return KV_OK;
}

kv_status mem_add_cell(kv_mem *m, const void *row, size_t rlen, const void *fam, size_t flen, const void *q,
		       size_t qlen, kv_ts ts, uint8_t type, const void *val, size_t vlen, kv_ts cts,
		       uint64_t wal_seg)
{
	int h = random_height(m);
	size_t klen = ikey_size(rlen, flen, qlen);
	mnode *n = arena_alloc(m, sizeof(mnode) + (size_t)h * sizeof(mnode *) + klen + vlen);
	if (!n)
		return KV_NO_MEMORY;
	uint8_t *kv = (uint8_t *)&n->next[h];
	ikey_encode(kv, row, rlen, fam, flen, q, qlen, ts, type);
	if (vlen)
		memcpy(kv + klen, val, vlen);
	n->kv = kv;
	n->klen = (uint32_t)klen;
	n->vlen = (uint32_t)vlen;
	n->cts = cts;
	insert(m, n, h, cts, wal_seg);
	return KV_OK;
}

/* Links node n (height h) in. REQUIRES: the writer lock. */
static void insert(kv_mem *m, mnode *n, int h, kv_ts cts, uint64_t wal_seg)
{
	/* Bloom bits first: a reader that can see the node sees its bits. */
	_Atomic uint8_t *bl = atomic_load_explicit(&m->bloom, memory_order_relaxed);
	if (!bl && !m->bloom_tried &&
	    atomic_load_explicit(&m->bytes, memory_order_relaxed) >= BLOOM_AT_BYTES) {
		bloom_build(m); /* the entries linked so far */
		bl = atomic_load_explicit(&m->bloom, memory_order_relaxed);
	}
	if (bl)
		bloom_add(bl, n->kv);
	/* Before the node is linked (released below), like the bloom bits. */
	uint8_t type = (uint8_t)~n->kv[n->klen - 1];
	if (type == KV_DELETE_FAMILY || type == KV_DELETE_FAMILY_VERSION)
		atomic_store_explicit(&m->fam_markers, true, memory_order_release);
	const uint8_t *key = n->kv;
	size_t klen = n->klen;
	mnode *prev[MAX_HEIGHT];
	mnode *x = m->head;
	mnode *bigger = NULL;
	int level = atomic_load_explicit(&m->height, memory_order_relaxed) - 1;
	/* After the last insert: start each level from the last node (levels
	 * it has) or its predecessor there; both lie before the new key. */
	bool finger = m->last && node_cmp(m->last, key, klen, cts) < 0;
	for (;;) {
		if (finger) {
			/* Jump ahead only: the descent may already be past it. */
			mnode *start = level < m->last_height ? m->last : m->last_prev[level];
			if (start && start != x && start != m->head &&
			    (x == m->head || node_cmp(x, start->kv, start->klen, start->cts) < 0))
				x = start;
		}
		mnode *nx;
		while ((nx = atomic_load_explicit(&x->next[level], memory_order_acquire)) && nx != bigger) {
			__builtin_prefetch(nx->kv);
			if (node_cmp(nx, key, klen, cts) >= 0) {
				bigger = nx;
				break;
			}
			x = nx;
		}
		prev[level] = x;
		if (level == 0)
			break;
		level--;
	}
	int cur_h = atomic_load_explicit(&m->height, memory_order_relaxed);
	if (h > cur_h) {
		for (int i = cur_h; i < h; i++)
			prev[i] = m->head;
		atomic_store_explicit(&m->height, h, memory_order_relaxed);
	}
	for (int i = 0; i < h; i++) {
		atomic_store_explicit(&n->next[i],
				      atomic_load_explicit(&prev[i]->next[i], memory_order_relaxed),
				      memory_order_relaxed);
		atomic_store_explicit(&prev[i]->next[i], n, memory_order_release);
	}
	int top = h > cur_h ? h : cur_h;
	for (int i = 0; i < top; i++)
		m->last_prev[i] = prev[i];
	m->last = n;
	m->last_height = h;
	atomic_fetch_add(&m->count, 1);
	uint64_t ms = atomic_load(&m->min_seg);
	while (wal_seg < ms && !atomic_compare_exchange_weak(&m->min_seg, &ms, wal_seg))
		;
	uint64_t mc = atomic_load(&m->max_cts);
	while (cts > mc && !atomic_compare_exchange_weak(&m->max_cts, &mc, cts))
		;
	kv_ts ts = ikey_ts(n->kv, n->klen);
	if (ts < cts) { /* writers are serialised: plain load and store */
		if (!atomic_load(&m->late_cts) || ts < atomic_load(&m->late_min))
			atomic_store(&m->late_min, ts);
		if (cts > atomic_load(&m->late_cts))
			atomic_store(&m->late_cts, cts);
	}
}

/* ---------------------------------------------------------------- iterator */

typedef struct mem_iter {
	kv_src base;
	kv_mem *m;
	mnode *cur;
	kv_ts read_ts;
	kv_ts after; /* mem_iter_since: only entries of commits > after */
} mem_iter;

static void mi_set(mem_iter *it, mnode *n)
{
	while (n && n->cts > it->read_ts)
		n = atomic_load_explicit(&n->next[0], memory_order_acquire);
	it->cur = n;
	it->base.valid = n != NULL;
	if (n) {
		it->base.key = n->kv;
		it->base.klen = n->klen;
		it->base.val = n->kv + n->klen;
		it->base.vlen = n->vlen;
	}
}

/* Last node < (k, before every commit of k); head if none. */
static mnode *find_lt(kv_mem *m, const uint8_t *k, size_t kl)
{
	mnode *x = m->head;
	mnode *bigger = NULL; /* last node found >= k: no need to compare it again */
	int level = atomic_load_explicit(&m->height, memory_order_relaxed) - 1;
	for (;;) {
		mnode *nx = atomic_load_explicit(&x->next[level], memory_order_acquire);
		if (nx && nx != bigger) {
			__builtin_prefetch(nx->kv);
			if (!k || ikey_cmp(nx->kv, nx->klen, k, kl) < 0) {
				x = nx;
				continue;
			}
			bigger = nx;
		}
		if (level == 0)
			return x;
		level--;
	}
}

static void mi_seek(kv_src *s, const uint8_t *k, size_t kl)
{
	mem_iter *it = (mem_iter *)s;
	mnode *x = k ? find_lt(it->m, k, kl) : it->m->head;
	mi_set(it, atomic_load_explicit(&x->next[0], memory_order_acquire));
}

static void mi_seek_lt(kv_src *s, const uint8_t *k, size_t kl)
{
	mem_iter *it = (mem_iter *)s;
	/* Visibility is not applied here: reverse scans only need the row. */
	mnode *x = find_lt(it->m, k, kl);
	it->cur = x == it->m->head ? NULL : x;
	it->base.valid = it->cur != NULL;
	if (it->cur) {
		it->base.key = x->kv;
		it->base.klen = x->klen;
		it->base.val = x->kv + x->klen;
		it->base.vlen = x->vlen;
	}
}

static void mi_next(kv_src *s)
{
	mem_iter *it = (mem_iter *)s;
	mi_set(it, atomic_load_explicit(&it->cur->next[0], memory_order_acquire));
}

static void mi_close(kv_src *s)
{
	mem_iter *it = (mem_iter *)s;
	mem_unref(it->m);
	free(it);
}

static const kv_src_ops mem_ops = {mi_seek, mi_seek_lt, mi_next, mi_close};

/* An iterator of m with ops (holds a reference to m); NULL without memory. */
static kv_src *mi_alloc(kv_mem *m, const kv_src_ops *ops, kv_ts read_ts, kv_ts after)
{
	mem_iter *it = calloc(1, sizeof(*it));
	if (!it)
		return NULL;
	it->base.ops = ops;
	it->m = m;
	it->read_ts = read_ts;
	it->after = after;
	mem_ref(m);
	return &it->base;
}

kv_src *mem_iter_new(kv_mem *m, kv_ts read_ts)
{
	return mi_alloc(m, &mem_ops, read_ts, 0);
}

/* ---------------------------------------------------------------- entries since a timestamp */

static void ms_set(mem_iter *it, mnode *n)
{
	while (n && n->cts <= it->after)
		n = atomic_load_explicit(&n->next[0], memory_order_acquire);
	mi_set(it, n);
}

static void ms_seek(kv_src *s, const uint8_t *k, size_t kl)
{
	mem_iter *it = (mem_iter *)s;
	mnode *x = k ? find_lt(it->m, k, kl) : it->m->head;
	ms_set(it, atomic_load_explicit(&x->next[0], memory_order_acquire));
}

static void ms_next(kv_src *s)
{
	mem_iter *it = (mem_iter *)s;
	ms_set(it, atomic_load_explicit(&it->cur->next[0], memory_order_acquire));
}

static const kv_src_ops mem_since_ops = {ms_seek, mi_seek_lt, ms_next, mi_close};

kv_src *mem_iter_since(kv_mem *m, kv_ts after)
{
	return mi_alloc(m, &mem_since_ops, KV_TS_MAX, after);
}
