/*
 * blk.h — blocks of sorted entries with prefix-compressed keys and restart
 * points (the data and index blocks of sorted files; format in
 * docs/file-format.md):
 *
 *   entry*  := varint shared | varint unshared | varint vlen | key[unshared] | value
 *   restarts := u32be offset * n | u32be n
 *
 * Every `interval`-th entry is a restart point with shared = 0, which lets a
 * seek binary-search the restart array and decode at most one interval.
 */
#ifndef STRATA_KV_BLK_H
#define STRATA_KV_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "kv.h"
#include "util.h"

typedef struct blk_builder {
	util_buf buf;
	uint32_t *rest;
	size_t nrest, crest;
	int counter;
	int interval;
	util_buf last;
	size_t nentries;
	/* Bytes at the end of every key never shared with the next key
	 * (0 normally; IKEY_SUFFIX - 1 = 8 for files whose timestamps are
	 * patched when read, see blk_patch_ts). */
	size_t keep_suffix;
} blk_builder;

void blkb_init(blk_builder *b, int interval);
void blkb_free(blk_builder *b);
void blkb_reset(blk_builder *b);
/* REQUIRES: key > every key added before (in the caller's order). */
void blkb_add(blk_builder *b, const uint8_t *key, size_t klen, const void *val, size_t vlen);
/* blkb_add of a key whose first `same` bytes are those of the key added
 * last (a row's next cell): the shared prefix is searched from there. */
void blkb_add_same(blk_builder *b, const uint8_t *key, size_t klen, const void *val, size_t vlen,
		   size_t same);
/* The rest of a row after its first cell, added at once (kvstore/stage.c
 * streams a row's cells so): c[0] is the cell added last, and cells 1 to
 * n - 1 follow, cell i's key being the last key's first `pre` bytes (row
 * and family), c[i].qual, then suffix[0, slen) (timestamp and kind), with
 * qualifiers strictly ascending. The entries are those n - 1 blkb_add_same
 * calls would make (restart points included): the row prefix is taken as
 * shared, each key compared with the cell before it, the last key updated
 * once. REQUIRES: b not empty, suffix not inside b's buffers,
 * room >= blkb_row_room() of cells 1 to n - 1. */
void blkb_add_row(blk_builder *b, size_t pre, const kv_put_cell *c, size_t n, const uint8_t *suffix,
		  size_t slen, size_t room);
/* Bytes blkb_add_row may add to blkb_size() at most: each entry's header
 * (three varints of at most 5 bytes), whole key, value and a restart. */
static inline size_t blkb_row_room(size_t pre, const kv_put_cell *c, size_t n, size_t slen)
{
	size_t room = n * (15 + pre + slen + 4);
	for (size_t i = 0; i < n; i++)
		room += c[i].qlen + c[i].vlen;
	return room;
}
/* Size the block would have if finished now. */
static inline size_t blkb_size(const blk_builder *b)
{
	return b->buf.len + 4 * b->nrest + 4;
}
static inline bool blkb_empty(const blk_builder *b)
{
	return b->nentries == 0;
}
/* Appends the restart array; the block is b->buf.data[0..b->buf.len). */
void blkb_finish(blk_builder *b);

/* A search aid kept in memory after a cached data block (never on disk):
 * each restart key's offset and the 8 row bytes that follow the row prefix
 * all restart keys share, so that a seek binary-searches one small array on
 * a few adjacent cache lines instead of reading one restart key (a cache
 * line of its own) per probe; a restart key is read only when its 8 bytes
 * tie with the key sought. Only for blocks of ikeys (sorted-file data
 * blocks) whose restart keys are all well formed and in order; seeks
 * through an iterator that has one must use a comparator with ikey_cmp's
 * order (rows first, by their bytes).
 *
 *   blk_aid | u64 pfx[n] (host order, compare as numbers) | u32 off[n] | u8 common[skip]
 */
typedef struct blk_aid {
	uint32_t n;    /* restart points (0: no aid for this block) */
	uint32_t skip; /* leading row bytes shared by every restart key's row */
} blk_aid;
#define BLK_AID_SKIP_MAX 64
/* Bytes to reserve for the aid of a block (at least sizeof(blk_aid)). */
size_t blk_aid_room(const uint8_t *data, size_t size);
/* Builds the aid of data[0..size) into out (blk_aid_room() bytes, 8-byte
 * aligned); false (out->n = 0) if the block does not qualify. */
bool blk_aid_build(const uint8_t *data, size_t size, blk_aid *out);

typedef struct blk_iter {
	const uint8_t *data;
	size_t limit; /* end of entries = start of the restart array */
	const uint8_t *restarts;
	uint32_t nrest;
	size_t cur, next; /* offsets of the current entry and the one after */
	uint8_t *key;
	size_t klen, kcap;
	const uint8_t *val;
	size_t vlen;
	/* Leading key bytes the current entry shares with the entry before it
	 * in the block (as stored: 0 at restart points and block starts). */
	size_t shared;
	bool valid;
	bool corrupt;       /* set when an entry fails to decode */
	const blk_aid *aid; /* NULL unless set by blki_init_aid() */
} blk_iter;

/* Prepares an iterator over data[0..size) (not copied; must outlive it).
 * Returns false if the restart array is malformed. The key buffer is kept
 * across inits; free it with blki_free(). */
bool blki_init(blk_iter *it, const uint8_t *data, size_t size);
/* blki_init() for a block with an aid built by blk_aid_build() over the same
 * bytes (aid->n > 0): takes the restart count from the aid, so the block's
 * trailer is not read. The aid must outlive the iterator's use of it. */
void blki_init_aid(blk_iter *it, const uint8_t *data, size_t size, const blk_aid *aid);
void blki_free(blk_iter *it);
void blki_first(blk_iter *it);
void blki_last(blk_iter *it);
/* The general decoder of the entry at it->next (blki_next's slow path). */
bool blki_decode_slow(blk_iter *it);

/* Copies n bytes with a few fixed-size moves when n is small (keys' unshared
 * parts and qualifiers are a few bytes, values often under 128: a libc call
 * costs more). Reads only src[0, n); src and dst must not overlap. */
static inline void blk_copy(uint8_t *dst, const uint8_t *src, size_t n)
{
	if (n >= 8 && n <= 16) { /* the next cell of a row: a qualifier's end, ts, type */
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else if (n > 16 && n <= 32) { /* a new row's key: no libc call or rep movs */
		memcpy(dst, src, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n > 32 && n <= 64) {
		memcpy(dst, src, 32);
		memcpy(dst + n - 32, src + n - 32, 32);
	} else if (n > 64 && n <= 128) { /* a writer's value (a filler column) */
		memcpy(dst, src, 64);
		memcpy(dst + n - 64, src + n - 64, 64);
	} else if (n >= 4 && n < 8) {
		memcpy(dst, src, 4);
		memcpy(dst + n - 4, src + n - 4, 4);
	} else if (n >= 2 && n < 4) {
		memcpy(dst, src, 2);
		memcpy(dst + n - 2, src + n - 2, 2);
	} else if (n == 1) {
		dst[0] = src[0];
	} else if (n) {
		memcpy(dst, src, n);
	}
}

/* The next entry when it is the common kind (one-byte lengths, the key fits
 * the buffer): true when decoded; false (nothing changed) otherwise, and
 * blki_decode_slow() must decode it. Kept apart from blki_next() so that a
 * caller can use the fields it just set from registers. */
static inline __attribute__((always_inline)) bool blki_next_inline(blk_iter *it)
{
	size_t at = it->next;
	if (at + 3 > it->limit)
		return false;
	const uint8_t *p = it->data + at;
	/* Blocks are read front to back: fetch a few cache lines ahead (a
	 * block's data is not one stream the hardware follows). */
	__builtin_prefetch(p + 256);
	size_t shared = p[0], unshared = p[1], vlen = p[2];
	size_t kl = shared + unshared;
	if ((shared | unshared | vlen) >= 0x80 || shared > it->klen || kl > it->kcap ||
	    at + 3 + unshared + vlen > it->limit)
		return false;
	blk_copy(it->key + shared, p + 3, unshared);
	it->klen = kl;
	it->shared = shared;
	it->val = p + 3 + unshared;
	it->vlen = vlen;
	it->cur = at;
	it->next = at + 3 + unshared + vlen;
	it->valid = true;
	return true;
}

/* The next entry: inline for the common entry; anything else goes through
 * blki_decode_slow(), which checks every length against the block end. */
static inline void blki_next(blk_iter *it)
{
	if (!blki_next_inline(it))
		blki_decode_slow(it);
}
/* Comparator for keys in this block. */
typedef int (*blk_cmp_fn)(const uint8_t *a, size_t al, const uint8_t *b, size_t bl);
/* First entry >= k. */
void blki_seek(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl);
/* Restart points, for choosing bounds inside a block without decoding it:
 * the index of the last one whose key is < k (k NULL: the last one), -1 if
 * none, -2 if the block is malformed; and the key stored at restart i (valid
 * while the block's data is; false if malformed or i is out of range). */
int64_t blki_restart_before(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl);
bool blki_restart_key(const blk_iter *it, uint32_t i, const uint8_t **k, size_t *kl);
/* Calls fn for each entry from restart i up to the next restart (or the end),
 * stopping at the first key >= k (k NULL: none), with the leading bytes it
 * shares with the entry before (0 at the restart); the key is valid during
 * the call. False if the block is malformed. */
bool blki_walk_restart(blk_iter *it, uint32_t i, blk_cmp_fn cmp, const uint8_t *k, size_t kl,
		       void (*fn)(void *arg, const uint8_t *key, size_t klen, size_t shared), void *arg);
/* Last entry < k. */
void blki_seek_lt(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl);

/* Rewrites in place the 8 timestamp bytes of every key of a data block
 * (the 8 bytes before the last key byte, see ikey.h) from the placeholder
 * `from` to `to`. The block must have been built with keep_suffix >= 9, so
 * that those bytes of every key lie in its own entry. False (nothing
 * guaranteed) if the block is malformed or a key does not hold `from`. */
bool blk_patch_ts(uint8_t *data, size_t size, const uint8_t from[8], const uint8_t to[8]);

#endif /* STRATA_KV_BLK_H */
