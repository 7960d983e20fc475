/* map.c — util_map, an open-addressing hash map with byte-string keys and
 * tombstone deletion; the table doubles at 50% load. */
#include "util.h"

#include <stdlib.h>
#include <string.h>

static char tombstone_key; /* marks a deleted slot */
static char empty_key;     /* a NULL borrowed key of length 0 */
#define TOMB ((void *)&tombstone_key)

static uint64_t key_hash(const void *k, size_t n) { return util_hash64(k, n, 0x6d6170); }

static void rehash(util_map *m, size_t cap)
{
	util_map_entry *old = m->slots;
	size_t oldcap = m->cap;
	m->slots = util_xcalloc(cap, sizeof *m->slots);
	m->cap = cap;
	m->n = 0;
	m->tombstones = 0;
	for (size_t i = 0; i < oldcap; i++) {
		util_map_entry *e = &old[i];
		if (!e->key || e->key == TOMB)
			continue;
		size_t j = e->hash & (cap - 1);
		while (m->slots[j].key)
			j = (j + 1) & (cap - 1);
		m->slots[j] = *e;
		m->n++;
	}
	free(old);
}

void util_map_free(util_map *m)
{
	for (size_t i = 0; i < m->cap && !m->borrowed; i++)
		if (m->slots[i].key && m->slots[i].key != TOMB)
			free(m->slots[i].key);
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = m->tombstones = 0;
}

static util_map_entry *find(const util_map *m, const void *key, size_t klen, uint64_t h)
{
	if (!m->cap)
		return NULL;
	size_t j = h & (m->cap - 1);
	for (;;) {
		util_map_entry *e = &m->slots[j];
		if (!e->key)
			return NULL;
		if (e->key != TOMB && e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
			return e;
		j = (j + 1) & (m->cap - 1);
	}
}

void *util_map_put(util_map *m, const void *key, size_t klen, void *value)
{
	uint64_t h = key_hash(key, klen);
	util_map_entry *e = find(m, key, klen, h);
	if (e) {
		void *old = e->value;
		e->value = value;
		return old;
	}
	if ((m->n + m->tombstones + 1) * 2 > m->cap)
		rehash(m, m->cap ? (m->n * 4 > m->cap ? m->cap * 2 : m->cap) : 16);
	size_t j = h & (m->cap - 1);
	while (m->slots[j].key && m->slots[j].key != TOMB)
		j = (j + 1) & (m->cap - 1);
	if (m->slots[j].key == TOMB)
		m->tombstones--;
	void *k = (void *)key;
	if (!m->borrowed) {
		k = util_xmalloc(klen ? klen : 1);
		if (klen)
			memcpy(k, key, klen);
	} else if (!k) {
		k = &empty_key; /* never NULL (an empty slot), never TOMB */
	}
	m->slots[j] = (util_map_entry){h, k, klen, value};
	m->n++;
	return NULL;
}

void *util_map_get(const util_map *m, const void *key, size_t klen)
{
	util_map_entry *e = find(m, key, klen, key_hash(key, klen));
	return e ? e->value : NULL;
}

void *util_map_del(util_map *m, const void *key, size_t klen)
{
	util_map_entry *e = find(m, key, klen, key_hash(key, klen));
	if (!e)
		return NULL;
	void *v = e->value;
	if (!m->borrowed)
		free(e->key);
	e->key = TOMB;
	e->value = NULL;
	m->n--;
	m->tombstones++;
	return v;
}

bool util_map_next(const util_map *m, size_t *pos, const void **key, size_t *klen, void **value)
{
	while (*pos < m->cap) {
		util_map_entry *e = &m->slots[(*pos)++];
		if (e->key && e->key != TOMB) {
			if (key)
				*key = e->key;
			if (klen)
				*klen = e->klen;
			if (value)
				*value = e->value;
			return true;
		}
	}
	return false;
}

void *util_map_puts(util_map *m, const char *key, void *value) { return util_map_put(m, key, strlen(key), value); }
void *util_map_gets(const util_map *m, const char *key) { return util_map_get(m, key, strlen(key)); }
void *util_map_put_u64(util_map *m, uint64_t key, void *value) { return util_map_put(m, &key, sizeof key, value); }
void *util_map_get_u64(const util_map *m, uint64_t key) { return util_map_get(m, &key, sizeof key); }
void *util_map_del_u64(util_map *m, uint64_t key) { return util_map_del(m, &key, sizeof key); }
