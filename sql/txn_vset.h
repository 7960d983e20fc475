/*
 * txn_vset.h — the unique values a transaction's COPY blocks claimed in
 * one unique index (txn_vset.c). Private to sql/ (index_write.c, which
 * keeps one per index, and txn_lock.c, which shows them to other
 * transactions as a key set).
 *
 * A COPY inside a transaction block checks a block of 1000 rows at once;
 * a row lock and a hash entry (the claim) per unique value were most of
 * what was left of its cost. A value set keeps each block's claims as a
 * sorted array instead, merged log-structured as the write set's sorted
 * segments are (txn_seg.h: about log2(values / block) arrays), with a
 * bloom filter over all values, so that a lookup of a value not claimed
 * (the next block's check, another transaction's lock) touches no array.
 * A value may be claimed again by a later block (its first row deleted or
 * changed meanwhile): a lookup returns the newest claim.
 */
#ifndef SQL_TXN_VSET_H
#define SQL_TXN_VSET_H

#include "sql_int.h"

/* One claim: the row of this transaction that took the values, and the
 * committed guard its check saw (the commit requires it unchanged). */
typedef struct sql_vclaim {
	uint64_t p0, p1;       /* values' bytes 0-7 and 8-15, big-endian, zero-padded */
	const uint8_t *v;      /* the unique values */
	const uint8_t *pk;     /* the row key */
	const uint8_t *expect; /* the guard's value, NULL: absent */
	uint32_t vl, pklen, elen;
	uint32_t gen; /* the claiming block's generation (savepoints) */
} sql_vclaim;

typedef struct sql_vrun {
	sql_vclaim *c; /* ascending by values; equal values newest first */
	size_t n, cap;
} sql_vrun;

typedef struct sql_vset {
	sql_vrun *runs; /* oldest (largest) first */
	int nruns, cap;
	size_t n;
	uint64_t *bloom; /* 2^bloom_shift bits */
	int bloom_shift;
	util_arena *arena; /* the claims' bytes */
} sql_vset;

/* Copies the bytes of n claims into the set's arena (pointers, p0, p1
 * updated in c); throws 53200 when out of memory. Call before
 * sql_vset_add(), outside the key set's write lock. */
void sql_vset_keep(sql_vset *vs, sql_vclaim *c, size_t n);
/* Adds n claims of one block (sql_vset_keep() done), ascending by values
 * and distinct; the array is copied. Does not throw. */
void sql_vset_add(sql_vset *vs, const sql_vclaim *c, size_t n);
/* The newest claim of the values, or NULL; valid until the set changes. */
const sql_vclaim *sql_vset_find(const sql_vset *vs, const uint8_t *v, size_t vl);
/* Removes the claims of generations after gen (ROLLBACK TO SAVEPOINT);
 * true if any was removed. */
bool sql_vset_drop_after(sql_vset *vs, uint32_t gen);
/* Merges the arrays into one (after a COPY: the commit's lookups then
 * search one array). */
void sql_vset_compact(sql_vset *vs);
void sql_vset_free(sql_vset *vs);
/* Bytes off..off+7 of v, big-endian, zero-padded. */
uint64_t sql_vset_prefix(const uint8_t *v, size_t vl, size_t off);

#endif
