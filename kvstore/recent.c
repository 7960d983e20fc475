/*
 * recent.c — the bounded map of recently written rows that makes
 * kv_commit_if's first-committer-wins check cheap: hash(table, row) ->
 * newest commit ts, in 4-way buckets. An evicted entry raises the low-water
 * mark to its ts; a check whose read_ts is below the mark cannot trust a
 * miss and falls back to reading the row. Hash collisions can only report a
 * conflict that did not happen (safe: the transaction retries).
 */
#include <stdlib.h>

#include "kv_int.h"

#define WAYS     4
#define NBUCKETS (1u << 14)
#define NLOCKS   64

typedef struct slot {
	uint64_t h; /* 0 = empty */
	kv_ts ts;
} slot;

struct recent_map {
	pthread_mutex_t locks[NLOCKS];
	slot *slots;
	atomic_uint_fast64_t low_water;
};

recent_map *recent_new(kv_ts low_water)
{
	recent_map *r = util_xcalloc(1, sizeof(*r));
	r->slots = util_xcalloc((size_t)NBUCKETS * WAYS, sizeof(slot));
	for (int i = 0; i < NLOCKS; i++)
		pthread_mutex_init(&r->locks[i], NULL);
	atomic_init(&r->low_water, low_water);
	return r;
}

void recent_free(recent_map *r)
{
	if (!r)
		return;
	for (int i = 0; i < NLOCKS; i++)
		pthread_mutex_destroy(&r->locks[i]);
	free(r->slots);
	free(r);
}

static uint64_t row_hash(uint32_t tid, const uint8_t *row, size_t rlen)
{
	uint64_t h = util_hash64(row, rlen, 0x7265636eULL ^ ((uint64_t)tid << 32));
	return h ? h : 1;
}

void recent_note(recent_map *r, uint32_t tid, const uint8_t *row, size_t rlen, kv_ts ts)
{
	uint64_t h = row_hash(tid, row, rlen);
	size_t b = (size_t)(h % NBUCKETS);
	pthread_mutex_t *mu = &r->locks[b % NLOCKS];
	slot *s = &r->slots[b * WAYS];
	pthread_mutex_lock(mu);
	int victim = 0;
	for (int i = 0; i < WAYS; i++) {
		if (s[i].h == h) {
			if (ts > s[i].ts)
				s[i].ts = ts;
			pthread_mutex_unlock(mu);
			return;
		}
		if (s[i].h == 0 || (s[victim].h != 0 && s[i].ts < s[victim].ts))
			victim = i;
	}
	if (s[victim].h != 0) {
		uint64_t lw = atomic_load(&r->low_water);
		while (s[victim].ts > lw && !atomic_compare_exchange_weak(&r->low_water, &lw, s[victim].ts))
			;
	}
	s[victim].h = h;
	s[victim].ts = ts;
	pthread_mutex_unlock(mu);
}

void recent_raise_low_water(recent_map *r, kv_ts ts)
{
	uint64_t lw = atomic_load(&r->low_water);
	while (ts > lw && !atomic_compare_exchange_weak(&r->low_water, &lw, ts))
		;
}

int recent_check(recent_map *r, uint32_t tid, const uint8_t *row, size_t rlen, kv_ts read_ts)
{
	uint64_t h = row_hash(tid, row, rlen);
	size_t b = (size_t)(h % NBUCKETS);
	pthread_mutex_t *mu = &r->locks[b % NLOCKS];
	slot *s = &r->slots[b * WAYS];
	int res = -2;
	pthread_mutex_lock(mu);
	for (int i = 0; i < WAYS; i++) {
		if (s[i].h == h) {
			res = s[i].ts > read_ts ? 1 : 0;
			break;
		}
	}
	pthread_mutex_unlock(mu);
	/* A hit is exact: an entry only grows, and a re-added entry carries a
	 * ts newer than anything evicted for it. */
	if (res != -2)
		return res;
	return read_ts >= (kv_ts)atomic_load(&r->low_water) ? 0 : -1;
}
