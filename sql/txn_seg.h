/*
 * txn_seg.h — sorted segments of a transaction's write set (txn_seg.c).
 * Private to sql/ (txn.c and its unit test).
 *
 * A COPY inside a transaction block adds its rows a block at a time,
 * sorted by key and known to be new. Putting each into the write set's
 * hash map cost a probe and an insert per row (and the commit sorted them
 * all again); a segment set keeps such rows as sorted arrays of row
 * pointers instead, merged log-structured (a new segment merges into the
 * previous one while that is at most twice its size, so a table holds
 * about log2(rows / block) segments), with a bloom filter over all keys
 * so that a lookup of a key that is not there (a later COPY block's
 * duplicate check, most point reads) touches no segment.
 */
#ifndef SQL_TXN_SEG_H
#define SQL_TXN_SEG_H

#include "sql_int.h"

typedef struct sql_wseg {
	sql_wrow **rows; /* ascending by key, distinct */
	size_t n, cap;
} sql_wseg;

typedef struct sql_wseg_set {
	sql_wseg *segs; /* oldest (largest) first */
	int nsegs, cap;
	uint64_t *bloom; /* 2^bloom_shift bits */
	int bloom_shift;
	size_t nkeys;
} sql_wseg_set;

/* Adds n rows (ascending, distinct, none already in the set); the set
 * copies the pointer array, the rows stay the caller's (transaction
 * arena, valid until the set is freed). */
void sql_wseg_add(sql_wseg_set *ss, sql_wrow *const *rows, size_t n);
/* The row with this key, or NULL. */
sql_wrow *sql_wseg_find(const sql_wseg_set *ss, const uint8_t *key, size_t klen);
/* Merges every segment into one; returns it (NULL rows when empty),
 * valid until the next sql_wseg_add() or sql_wseg_free(). */
const sql_wseg *sql_wseg_all(sql_wseg_set *ss);
void sql_wseg_free(sql_wseg_set *ss);

/* Key order (memcmp, shorter first on a common prefix). */
static inline int sql_wseg_key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

/* Appends m elements of elsize bytes from src to the array arr of *n
 * (capacity *cap, grown by doubling); returns the array, which may have
 * moved. For log-structured merges of sorted arrays (txn_seg.c,
 * txn_vset.c): a newer array that follows an older one is appended. */
static inline void *sql_seg_append(void *arr, size_t *n, size_t *cap, const void *src, size_t m,
				   size_t elsize)
{
	if (*n + m > *cap) {
		*cap = 2 * (*n + m);
		arr = util_xrealloc(arr, elsize * *cap);
	}
	memcpy((char *)arr + elsize * *n, src, elsize * m);
	*n += m;
	return arr;
}

/* A blocked bloom filter (txn_seg.c, txn_vset.c): three probes per key,
 * 16 bits a key, all three in one 64-byte line (one cache miss per
 * lookup, the usual cost being a lookup of an absent key): about 0.5%
 * false positives. bits holds 2^shift bits, shift >= 9. */
#define SQL_BLOOM_BITS_PER_KEY 16

static inline uint64_t sql_bloom_hash(const uint8_t *key, size_t klen)
{
	return util_hash64(key, klen, 0x5e9);
}

static inline uint64_t *sql_bloom_line(const uint64_t *bits, int shift, uint64_t h)
{
	return (uint64_t *)bits + ((h & ((((uint64_t)1 << shift) >> 9) - 1)) << 3); /* 512-bit lines */
}

static inline void sql_bloom_set(uint64_t *bits, int shift, uint64_t h)
{
	uint64_t *line = sql_bloom_line(bits, shift, h);
	for (int i = 0; i < 3; i++) {
		unsigned b = (unsigned)(h >> (32 + 9 * i)) & 511;
		line[b >> 6] |= (uint64_t)1 << (b & 63);
	}
}

static inline bool sql_bloom_test(const uint64_t *bits, int shift, uint64_t h)
{
	const uint64_t *line = sql_bloom_line(bits, shift, h);
	for (int i = 0; i < 3; i++) {
		unsigned b = (unsigned)(h >> (32 + 9 * i)) & 511;
		if (!(line[b >> 6] & ((uint64_t)1 << (b & 63))))
			return false;
	}
	return true;
}

/* Makes *bits (2^*shift bits, NULL at first) a filter with room for
 * nkeys keys: true if it was replaced by a bigger, empty one (from 2^16
 * bits up, doubling: amortised), which the caller refills. */
static inline bool sql_bloom_fit(uint64_t **bits, int *shift, size_t nkeys)
{
	if (*bits && nkeys * SQL_BLOOM_BITS_PER_KEY <= ((size_t)1 << *shift))
		return false;
	int sh = *shift ? *shift : 16;
	while (((size_t)1 << sh) < nkeys * SQL_BLOOM_BITS_PER_KEY)
		sh++;
	free(*bits);
	*bits = util_xcalloc(((size_t)1 << sh) / 64, sizeof(uint64_t));
	*shift = sh;
	return true;
}

#endif
