/* cache.c — sharded LRU block cache (see cache.h). Each shard has a mutex, a
 * chained hash table, an LRU list of the entries it holds and its own hit
 * and miss counts; shards sit on cache lines of their own, so point reads
 * of many threads (pgbench -S at 64 clients) do not share one written line. */
#include "cache.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define NSHARDS 32

struct cache_h {
	uint64_t file, off;
	uint8_t *data;
	size_t size;
	int refs; /* pins + 1 while in the cache */
	bool in_cache;
	struct cache_h *hnext;         /* hash chain */
	struct cache_h *lprev, *lnext; /* LRU, most recent at head */
};

typedef struct shard {
	alignas(64) pthread_mutex_t mu;
	cache_h **tab;
	size_t nbuckets, count;
	size_t used, cap;
	cache_h lru; /* sentinel */
	uint64_t hits, misses;
} shard;

struct kv_cache {
	shard sh[NSHARDS];
};

static inline uint64_t hkey(uint64_t file, uint64_t off)
{
	return util_hash_mix(file * 0x9e3779b97f4a7c15ULL ^ off);
}

kv_cache *cache_new(size_t cap)
{
	/* Over-aligned (shards on their own cache lines): not plain malloc. */
	kv_cache *c = aligned_alloc(alignof(kv_cache), sizeof(*c));
	if (!c) {
		fprintf(stderr, "strata: out of memory allocating the block cache\n");
		abort();
	}
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < NSHARDS; i++) {
		shard *s = &c->sh[i];
		pthread_mutex_init(&s->mu, NULL);
		s->nbuckets = 256;
		s->tab = util_xcalloc(s->nbuckets, sizeof(cache_h *));
		s->cap = cap / NSHARDS;
		s->lru.lnext = s->lru.lprev = &s->lru;
	}
	return c;
}

static void unref(cache_h *e)
{
	if (--e->refs == 0) {
		free(e->data);
		free(e);
	}
}

static void lru_remove(cache_h *e)
{
	e->lprev->lnext = e->lnext;
	e->lnext->lprev = e->lprev;
}

static void lru_push(shard *s, cache_h *e)
{
	e->lnext = s->lru.lnext;
	e->lprev = &s->lru;
	s->lru.lnext->lprev = e;
	s->lru.lnext = e;
}

static cache_h **find(shard *s, uint64_t h, uint64_t file, uint64_t off)
{
	cache_h **pp = &s->tab[(h >> 8) & (s->nbuckets - 1)];
	while (*pp && ((*pp)->file != file || (*pp)->off != off))
		pp = &(*pp)->hnext;
	return pp;
}

/* Removes e from the table and LRU (caller holds the lock). */
static void detach(shard *s, cache_h *e)
{
	cache_h **pp = find(s, hkey(e->file, e->off), e->file, e->off);
	if (*pp == e)
		*pp = e->hnext;
	lru_remove(e);
	e->in_cache = false;
	s->used -= e->size;
	s->count--;
	unref(e);
}

void cache_free(kv_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < NSHARDS; i++) {
		shard *s = &c->sh[i];
		while (s->lru.lnext != &s->lru)
			detach(s, s->lru.lnext);
		free(s->tab);
		pthread_mutex_destroy(&s->mu);
	}
	free(c);
}

cache_h *cache_lookup(kv_cache *c, uint64_t file, uint64_t off)
{
	uint64_t h = hkey(file, off);
	shard *s = &c->sh[h % NSHARDS];
	pthread_mutex_lock(&s->mu);
	cache_h *e = *find(s, h, file, off);
	if (e) {
		e->refs++;
		if (s->lru.lnext != e) {
			lru_remove(e);
			lru_push(s, e);
		}
		s->hits++;
	} else {
		s->misses++;
	}
	pthread_mutex_unlock(&s->mu);
	return e;
}

static void grow(shard *s)
{
	size_t nb = s->nbuckets * 2;
	cache_h **nt = calloc(nb, sizeof(cache_h *));
	if (!nt)
		return;
	for (size_t i = 0; i < s->nbuckets; i++) {
		cache_h *e = s->tab[i];
		while (e) {
			cache_h *n = e->hnext;
			size_t b = (hkey(e->file, e->off) >> 8) & (nb - 1);
			e->hnext = nt[b];
			nt[b] = e;
			e = n;
		}
	}
	free(s->tab);
	s->tab = nt;
	s->nbuckets = nb;
}

cache_h *cache_insert(kv_cache *c, uint64_t file, uint64_t off, uint8_t *data, size_t size)
{
	uint64_t h = hkey(file, off);
	shard *s = &c->sh[h % NSHARDS];
	cache_h *e = malloc(sizeof(*e));
	if (!e) {
		free(data);
		return NULL;
	}
	pthread_mutex_lock(&s->mu);
	cache_h **pp = find(s, h, file, off);
	if (*pp) {
		cache_h *old = *pp;
		old->refs++;
		pthread_mutex_unlock(&s->mu);
		free(data);
		free(e);
		return old;
	}
	e->file = file;
	e->off = off;
	e->data = data;
	e->size = size;
	e->refs = 2;
	e->in_cache = true;
	e->hnext = NULL;
	*pp = e;
	lru_push(s, e);
	s->used += size;
	s->count++;
	if (s->count > s->nbuckets)
		grow(s);
	while (s->used > s->cap && s->lru.lprev != e)
		detach(s, s->lru.lprev);
	pthread_mutex_unlock(&s->mu);
	return e;
}

const uint8_t *cache_data(const cache_h *h)
{
	return h->data;
}

size_t cache_size(const cache_h *h)
{
	return h->size;
}

void cache_release(kv_cache *c, cache_h *e)
{
	shard *s = &c->sh[hkey(e->file, e->off) % NSHARDS];
	pthread_mutex_lock(&s->mu);
	unref(e);
	pthread_mutex_unlock(&s->mu);
}

void cache_erase_file(kv_cache *c, uint64_t file)
{
	for (int i = 0; i < NSHARDS; i++) {
		shard *s = &c->sh[i];
		pthread_mutex_lock(&s->mu);
		cache_h *e = s->lru.lnext;
		while (e != &s->lru) {
			cache_h *n = e->lnext;
			if (e->file == file)
				detach(s, e);
			e = n;
		}
		pthread_mutex_unlock(&s->mu);
	}
}

void cache_stats(kv_cache *c, uint64_t *hits, uint64_t *misses, uint64_t *bytes)
{
	uint64_t b = 0, h = 0, m = 0;
	for (int i = 0; i < NSHARDS; i++) {
		pthread_mutex_lock(&c->sh[i].mu);
		b += c->sh[i].used;
		h += c->sh[i].hits;
		m += c->sh[i].misses;
		pthread_mutex_unlock(&c->sh[i].mu);
	}
	*hits = h;
	*misses = m;
	*bytes = b;
}
