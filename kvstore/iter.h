/*
 * iter.h — the internal iterator shape every cell source implements
 * (memstore, sorted file, merge of many), LevelDB style. A source exposes
 * its current entry as fields (no call per access). Keys are ikeys.
 *
 *   seek(k)     first entry >= k (k == NULL: the first entry)
 *   seek_lt(k)  last entry < k (k == NULL: the last entry); used to find the
 *               previous row in reverse scans
 *   next()      the following entry
 * After any move, `valid` says whether an entry is current and `status`
 * carries an error (then valid is false). key/val are valid until the next
 * move. After next(), `shared` is a lower bound on the number of leading key
 * bytes the entry has in common with the entry before it (0 when unknown, and
 * after every seek): sorted files give their blocks' prefix-compression
 * counts, so a scan can tell that a cell is in the same row without
 * comparing the row. Sorted files (and chains of them) also keep an entry's
 * own key bytes where the block stores them: when shared is not 0, key bytes
 * [shared, klen) are also at val - (klen - shared), memory the move did not
 * write (the scan's fast path copies a new row from there, scan.c advance_fast).
 *
 * Sorted files (and chains of them, for their current file) also expose
 * their block iterator in `blk`, so that a forward scan can step entries
 * inside a block without a call per entry (scan.c iter_row): when valid and
 * blk is not NULL, blk's current entry is the source's. A caller may then
 * move on with blki_next_inline(blk) while it returns true, reading the
 * entry from blk (and checking it with ikey_valid()); the source's own
 * fields then describe an earlier entry until the caller copies blk's
 * key, klen, val, vlen and shared into them. next() may be called at any
 * time: it continues from blk's entry.
 */
#ifndef STRATA_KV_ITER_H
#define STRATA_KV_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

typedef struct kv_src kv_src;
struct blk_iter;

typedef struct kv_src_ops {
	void (*seek)(kv_src *s, const uint8_t *k, size_t n);
	void (*seek_lt)(kv_src *s, const uint8_t *k, size_t n);
	void (*next)(kv_src *s);
	void (*close)(kv_src *s);
} kv_src_ops;

struct kv_src {
	const kv_src_ops *ops;
	bool valid;
	kv_status status;
	const uint8_t *key;
	size_t klen;
	const uint8_t *val;
	size_t vlen;
	size_t shared;        /* see above; sources that never set it leave it 0 */
	struct blk_iter *blk; /* see above; NULL for other sources */
};

static inline void src_seek(kv_src *s, const uint8_t *k, size_t n)
{
	s->ops->seek(s, k, n);
}
static inline void src_seek_lt(kv_src *s, const uint8_t *k, size_t n)
{
	s->ops->seek_lt(s, k, n);
}
static inline void src_next(kv_src *s)
{
	s->ops->next(s);
}
static inline void src_close(kv_src *s)
{
	if (s)
		s->ops->close(s);
}

/* Merges n sources into one ordered stream; on equal keys the source with
 * the lower index comes first (callers pass newest first). Takes ownership
 * of the children and of the array contents (the array is copied). */
kv_src *merge_new(kv_src **children, int n);

/* The key range of a chained source (ikeys, borrowed). */
typedef struct kv_chain_range {
	const uint8_t *smallest, *largest;
	size_t slen, llen;
} kv_chain_range;

/* Reads n sources whose key ranges do not overlap one after the other;
 * children and rng[i] (child i's range) in ascending key order. Takes
 * ownership of the children (the array is copied); rng must stay valid
 * until the source is closed. NULL when out of memory (children closed). */
kv_src *chain_new(kv_src **children, const kv_chain_range *rng, int n);

#endif /* STRATA_KV_ITER_H */
