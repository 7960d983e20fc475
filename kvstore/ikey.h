/*
 * ikey.h — internal cell keys: how (row, family, qualifier, ts, type) is laid
 * out as bytes in the memstore, the WAL-free paths and sorted files, and the
 * comparator that orders them (row, family, qualifier asc; ts, type desc).
 *
 *   u16 rowlen (BE) | row | u8 famlen | family | qualifier | u64 ~ts (BE) | u8 ~type
 *
 * The qualifier length is implied by the total length. ~ts and ~type are
 * bitwise complements so the 9-byte suffix compares with memcmp in the
 * required descending order. docs/file-format.md describes the same layout.
 */
#ifndef STRATA_KV_IKEY_H
#define STRATA_KV_IKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kv.h"

#define IKEY_SUFFIX  9
#define IKEY_TS_END  9      /* a key's timestamp starts this many bytes before its end */
#define IKEY_ROW_MAX 0x7fff /* like HBase (Short.MAX_VALUE); leaves room for row successors */
#define IKEY_FAM_MAX 31
/* strlen of a family name, counting at most IKEY_FAM_MAX + 1 bytes (so a
 * result above IKEY_FAM_MAX means too long). Inline: the bulk paths measure
 * a family per row, and libc's strlen of a 1-byte name showed as 1.5-3% of
 * ADD PRIMARY KEY's samples. */
static inline size_t ikey_fam_len(const char *f)
{
	size_t n = 0;
	while (n <= IKEY_FAM_MAX && f[n])
		n++;
	return n;
}
/* The smallest type byte (~0xff = 0) sorts first at a given ts. */
#define IKEY_TYPE_MIN_SORT 0xff

typedef struct ikey_parts {
	const uint8_t *row;
	size_t rlen;
	const uint8_t *fam;
	size_t flen;
	const uint8_t *qual;
	size_t qlen;
	kv_ts ts;
	uint8_t type;
} ikey_parts;

static inline size_t ikey_size(size_t rlen, size_t flen, size_t qlen)
{
	return 2 + rlen + 1 + flen + qlen + IKEY_SUFFIX;
}

/* Writes the key into dst (ikey_size() bytes); returns the size. */
static inline size_t ikey_encode(uint8_t *dst, const void *row, size_t rlen, const void *fam, size_t flen,
				 const void *qual, size_t qlen, kv_ts ts, uint8_t type)
{
	uint8_t *p = dst;
	p[0] = (uint8_t)(rlen >> 8);
	p[1] = (uint8_t)rlen;
	p += 2;
	if (rlen)
		memcpy(p, row, rlen);
	p += rlen;
	*p++ = (uint8_t)flen;
	if (flen)
		memcpy(p, fam, flen);
	p += flen;
	if (qlen)
		memcpy(p, qual, qlen);
	p += qlen;
	uint64_t its = __builtin_bswap64(~ts);
	memcpy(p, &its, 8);
	p += 8;
	*p++ = (uint8_t)~type;
	return (size_t)(p - dst);
}

/* Splits a key without checking it (keys from the memstore or from a block
 * that passed its checksum are trusted to be well formed only after
 * ikey_valid()). */
static inline void ikey_split(const uint8_t *k, size_t len, ikey_parts *o)
{
	size_t rl = ((size_t)k[0] << 8) | k[1];
	o->row = k + 2;
	o->rlen = rl;
	o->flen = k[2 + rl];
	o->fam = k + 3 + rl;
	o->qual = o->fam + o->flen;
	o->qlen = len - 3 - rl - o->flen - IKEY_SUFFIX;
	const uint8_t *s = k + len - IKEY_SUFFIX;
	uint64_t its;
	memcpy(&its, s, 8);
	o->ts = ~__builtin_bswap64(its);
	o->type = (uint8_t)~s[8];
}

/* True if the bytes are a structurally valid key. */
static inline bool ikey_valid(const uint8_t *k, size_t len)
{
	if (len < 3 + IKEY_SUFFIX)
		return false;
	size_t rl = ((size_t)k[0] << 8) | k[1];
	if (len < 3 + rl + IKEY_SUFFIX)
		return false;
	size_t fl = k[2 + rl];
	return len >= 3 + rl + fl + IKEY_SUFFIX;
}

static inline size_t ikey_rowlen(const uint8_t *k)
{
	return ((size_t)k[0] << 8) | k[1];
}

/* memcmp order, shorter first on a common prefix. Inline 8-byte steps:
 * keys are short, and a libc call per comparison costs more than the work. */
static inline int ikey_bytes_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y) {
			x = __builtin_bswap64(x);
			y = __builtin_bswap64(y);
			return x < y ? -1 : 1;
		}
	}
	if (i + 4 <= n) {
		uint32_t x, y;
		memcpy(&x, a + i, 4);
		memcpy(&y, b + i, 4);
		if (x != y) {
			x = __builtin_bswap32(x);
			y = __builtin_bswap32(y);
			return x < y ? -1 : 1;
		}
		i += 4;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return al < bl ? -1 : al > bl;
}

/* Row of a key compared with a row. */
static inline int ikey_row_cmp(const uint8_t *k, const uint8_t *row, size_t rlen)
{
	return ikey_bytes_cmp(k + 2, ikey_rowlen(k), row, rlen);
}

static inline int ikey_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t ra = ikey_rowlen(a), rb = ikey_rowlen(b);
	int c = ikey_bytes_cmp(a + 2, ra, b + 2, rb);
	if (c)
		return c;
	/* Same row: family and qualifier, then the suffix. */
	const uint8_t *fa = a + 2 + ra, *fb = b + 2 + rb;
	c = ikey_bytes_cmp(fa + 1, fa[0], fb + 1, fb[0]);
	if (c)
		return c;
	size_t qa_off = 2 + ra + 1 + fa[0], qb_off = 2 + rb + 1 + fb[0];
	c = ikey_bytes_cmp(a + qa_off, al - qa_off - IKEY_SUFFIX, b + qb_off, bl - qb_off - IKEY_SUFFIX);
	if (c)
		return c;
	return ikey_bytes_cmp(a + al - IKEY_SUFFIX, IKEY_SUFFIX, b + bl - IKEY_SUFFIX, IKEY_SUFFIX);
}

/* True if a and b have the same row, family and qualifier. */
static inline bool ikey_same_column(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	return al == bl && memcmp(a, b, al - IKEY_SUFFIX) == 0;
}

static inline bool ikey_same_row(const uint8_t *a, const uint8_t *b)
{
	size_t ra = ikey_rowlen(a);
	return ra == ikey_rowlen(b) && memcmp(a + 2, b + 2, ra) == 0;
}

/* The timestamp bytes of a key (~ts, big-endian). */
static inline void ikey_ts_bytes(uint8_t out[8], kv_ts ts)
{
	uint64_t its = __builtin_bswap64(~ts);
	memcpy(out, &its, 8);
}

static inline kv_ts ikey_ts(const uint8_t *k, size_t kl)
{
	uint64_t its;
	memcpy(&its, k + kl - IKEY_TS_END, 8);
	return ~__builtin_bswap64(its);
}

static inline void ikey_set_ts(uint8_t *k, size_t kl, kv_ts ts)
{
	ikey_ts_bytes(k + kl - IKEY_TS_END, ts);
}

/* The first possible key of a row (sorts before every cell of it). */
static inline size_t ikey_row_first(uint8_t *dst, const void *row, size_t rlen)
{
	return ikey_encode(dst, row, rlen, NULL, 0, NULL, 0, KV_TS_MAX, IKEY_TYPE_MIN_SORT);
}

#endif /* STRATA_KV_IKEY_H */
