/*
 * cache.h — the block cache: decompressed sorted-file blocks keyed by
 * (file number, offset), sharded LRU under a byte budget. A handle pins a
 * block; entries evicted while pinned are freed at the last release.
 */
#ifndef STRATA_KV_CACHE_H
#define STRATA_KV_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct kv_cache kv_cache;
typedef struct cache_h cache_h;

kv_cache *cache_new(size_t capacity_bytes); /* caller frees with cache_free */
void cache_free(kv_cache *c);
/* Pinned handle or NULL on a miss. */
cache_h *cache_lookup(kv_cache *c, uint64_t file, uint64_t off);
/* Takes ownership of data (malloc'd); returns a pinned handle. If the key is
 * already cached, frees data and returns the cached entry. */
cache_h *cache_insert(kv_cache *c, uint64_t file, uint64_t off, uint8_t *data, size_t size);
const uint8_t *cache_data(const cache_h *h);
size_t cache_size(const cache_h *h);
void cache_release(kv_cache *c, cache_h *h);
/* Drops every unpinned entry of a file (the file was deleted). */
void cache_erase_file(kv_cache *c, uint64_t file);
void cache_stats(kv_cache *c, uint64_t *hits, uint64_t *misses, uint64_t *bytes);

#endif /* STRATA_KV_CACHE_H */
