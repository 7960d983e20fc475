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

#endif
