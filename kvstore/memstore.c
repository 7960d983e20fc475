/* memstore.c — the memstore skiplist (LevelDB-style: one writer, lock-free
 * readers through release/acquire links) and its arena and iterator. */
#include "mem.h"

#include <stdlib.h>
#include <string.h>

#include "ikey.h"

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
	atomic_uint_fast64_t cutoff;
	uint64_t rnd;
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

	mnode *prev[MAX_HEIGHT];
	mnode *x = m->head;
	int level = atomic_load_explicit(&m->height, memory_order_relaxed) - 1;
	for (;;) {
		mnode *nx = atomic_load_explicit(&x->next[level], memory_order_acquire);
		if (nx && node_cmp(nx, key, klen, cts) < 0) {
			x = nx;
			continue;
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
	atomic_fetch_add(&m->count, 1);
	uint64_t ms = atomic_load(&m->min_seg);
	while (wal_seg < ms && !atomic_compare_exchange_weak(&m->min_seg, &ms, wal_seg))
		;
	uint64_t mc = atomic_load(&m->max_cts);
	while (cts > mc && !atomic_compare_exchange_weak(&m->max_cts, &mc, cts))
		;
	return KV_OK;
}

/* ---------------------------------------------------------------- iterator */

typedef struct mem_iter {
	kv_src base;
	kv_mem *m;
	mnode *cur;
	kv_ts read_ts;
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
	int level = atomic_load_explicit(&m->height, memory_order_relaxed) - 1;
	for (;;) {
		mnode *nx = atomic_load_explicit(&x->next[level], memory_order_acquire);
		if (nx && (!k || ikey_cmp(nx->kv, nx->klen, k, kl) < 0)) {
			x = nx;
			continue;
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

kv_src *mem_iter_new(kv_mem *m, kv_ts read_ts)
{
	mem_iter *it = calloc(1, sizeof(*it));
	if (!it)
		return NULL;
	it->base.ops = &mem_ops;
	it->m = m;
	it->read_ts = read_ts;
	mem_ref(m);
	return &it->base;
}
