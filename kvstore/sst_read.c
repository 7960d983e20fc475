/* sst_read.c — reading sorted files: open (trailer, info, bloom, full
 * index decoded into memory), block reads through the block cache with
 * checksum verification and zstd, and the file iterator. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ikey.h"
#include "kv_int.h"
#include "sst.h"

#define MAX_BLOCK (128u << 20) /* a block holds at least one cell: values up to KV_VALUE_MAX */

typedef struct ridx {
	uint64_t p0, p1; /* first 16 row bytes, zero-padded, as big-endian numbers */
	uint32_t koff, klen;
	uint64_t off;
	uint32_t size;
} ridx;

/* The first 16 bytes of a key's row as two comparable numbers: a binary
 * search over the index compares these and touches the key bytes only on a
 * tie (one cache miss less per probe). */
static inline void row_prefix(const uint8_t *k, uint64_t *p0, uint64_t *p1)
{
	uint8_t b[16] = {0};
	size_t rl = ikey_rowlen(k);
	memcpy(b, k + 2, rl < 16 ? rl : 16);
	uint64_t x, y;
	memcpy(&x, b, 8);
	memcpy(&y, b + 8, 8);
	*p0 = __builtin_bswap64(x);
	*p1 = __builtin_bswap64(y);
}

struct sst_reader {
	atomic_int refs;
	kv_fs *fs;
	kv_file *f;
	char *path;
	uint64_t number;
	kv_cache *cache;
	uint64_t fsize;
	ridx *idx;
	size_t nidx;
	uint8_t *keys;
	uint8_t *bloom;
	size_t bloom_bits;
	int bloom_k;
	sst_props pr;
	kv_ts gts; /* global timestamp (0: none): keys stored with ts 0 read as gts */
	uint8_t gts_from[8], gts_to[8];
};

/* A key of a global-timestamp file as it is read: placeholder ts -> gts. */
static void patch_key(const sst_reader *r, uint8_t *k, size_t kl)
{
	if (r->gts && kl >= IKEY_TS_END && !memcmp(k + kl - IKEY_TS_END, r->gts_from, 8))
		memcpy(k + kl - IKEY_TS_END, r->gts_to, 8);
}

/* Data blocks of a global-timestamp file get their timestamps rewritten
 * once, when they are read from disk (before the block cache keeps them). */
static kv_status patch_block(const sst_reader *r, uint8_t *d, size_t n, uint64_t off)
{
	if (!r->gts || blk_patch_ts(d, n, r->gts_from, r->gts_to))
		return KV_OK;
	return kv_fail(KV_CORRUPTION, "%s: malformed block at %llu (global timestamp)", r->path,
		       (unsigned long long)off);
}

/* A block in memory: from the cache (h) or privately owned (own). */
typedef struct blk_ref {
	const uint8_t *data;
	size_t size;
	cache_h *h;
	uint8_t *own;
	const blk_aid *aid; /* the block's search aid, NULL if none */
} blk_ref;

/* Where a cached block's aid starts (after the block, 8-byte aligned). */
static inline size_t aid_at(size_t size)
{
	return (size + 7) & ~(size_t)7;
}

/* Blocks enter the cache only through read_block(), each with its aid
 * (blk.h) after it: the cache entry's size is the block's, the aid is
 * found from it. The aid is not charged to the cache (~2% of a block). */
static inline const blk_aid *cached_aid(const uint8_t *data, size_t size)
{
	const blk_aid *a = (const blk_aid *)(data + aid_at(size));
	/* The block is usually cold: have the aid's first lines (the header,
	 * then the prefixes the seek searches) come in together instead of
	 * the header first and the rest after it. */
	__builtin_prefetch((const uint8_t *)a + 64);
	__builtin_prefetch((const uint8_t *)a + 128);
	__builtin_prefetch((const uint8_t *)a + 192);
	return a->n ? a : NULL;
}

/* One zstd decompression context per thread, freed at thread exit. */
static util_tls_slot dctx_slot;

static void dctx_free(void *p)
{
	ZSTD_freeDCtx(p);
}

/* The thread's context; *own: the caller frees it after use (it could not
 * be kept for the thread). */
static ZSTD_DCtx *thread_dctx(bool *own)
{
	*own = false;
	ZSTD_DCtx *d = util_tls_get(&dctx_slot);
	if (!d) {
		d = ZSTD_createDCtx();
		if (d && !util_tls_set(&dctx_slot, d, dctx_free))
			*own = true;
	}
	return d;
}

static void ref_release(sst_reader *r, blk_ref *b)
{
	if (b->h)
		cache_release(r->cache, b->h);
	free(b->own);
	memset(b, 0, sizeof(*b));
}

/* Reads and verifies a physical block; decompresses. */
static kv_status read_raw(sst_reader *r, uint64_t off, uint32_t size, uint8_t **out, size_t *outlen)
{
	*out = NULL;
	if (size > MAX_BLOCK || off + size + SST_BLOCK_TRAILER > r->fsize)
		return kv_fail(KV_CORRUPTION, "%s: block handle %llu+%u out of range", r->path,
			       (unsigned long long)off, size);
	uint8_t *buf = malloc((size_t)size + SST_BLOCK_TRAILER);
	if (!buf)
		return kv_fail(KV_NO_MEMORY, "out of memory reading %s", r->path);
	size_t got;
	int e = r->fs->pread(r->f, buf, (size_t)size + SST_BLOCK_TRAILER, off, &got);
	if (e) {
		free(buf);
		return kv_fail_errno(e, "read", r->path);
	}
	if (got != (size_t)size + SST_BLOCK_TRAILER) {
		free(buf);
		return kv_fail(KV_CORRUPTION, "%s: short block at %llu", r->path, (unsigned long long)off);
	}
	uint32_t crc = util_crc32c(0, buf, (size_t)size + 1);
	if (util_crc_unmask(util_get_be32(buf + size + 1)) != crc) {
		free(buf);
		return kv_fail(KV_CORRUPTION, "%s: checksum mismatch in block at %llu", r->path,
			       (unsigned long long)off);
	}
	uint8_t type = buf[size];
	if (type == SST_COMP_NONE) {
		*out = buf;
		*outlen = size;
		return KV_OK;
	}
	if (type != SST_COMP_ZSTD) {
		free(buf);
		return kv_fail(KV_CORRUPTION, "%s: unknown compression %u", r->path, type);
	}
	unsigned long long n = ZSTD_getFrameContentSize(buf, size);
	if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > MAX_BLOCK) {
		free(buf);
		return kv_fail(KV_CORRUPTION, "%s: bad compressed block at %llu", r->path,
			       (unsigned long long)off);
	}
	uint8_t *d = malloc(n ? n : 1);
	if (!d) {
		free(buf);
		return kv_fail(KV_NO_MEMORY, "out of memory reading %s", r->path);
	}
	bool own;
	ZSTD_DCtx *dctx = thread_dctx(&own);
	size_t got2 = dctx ? ZSTD_decompressDCtx(dctx, d, n, buf, size) : (size_t)-1;
	if (own)
		ZSTD_freeDCtx(dctx);
	free(buf);
	if (ZSTD_isError(got2) || got2 != n) {
		free(d);
		return kv_fail(KV_CORRUPTION, "%s: zstd failed on block at %llu", r->path,
			       (unsigned long long)off);
	}
	*out = d;
	*outlen = n;
	return KV_OK;
}

static kv_status read_block(sst_reader *r, uint64_t off, uint32_t size, bool fill, blk_ref *b)
{
	memset(b, 0, sizeof(*b));
	if (r->cache) {
		cache_h *h = cache_lookup(r->cache, r->number, off);
		if (h) {
			b->h = h;
			b->data = cache_data(h);
			b->size = cache_size(h);
			b->aid = cached_aid(b->data, b->size);
			return KV_OK;
		}
	}
	uint8_t *d;
	size_t n;
	kv_status st = read_raw(r, off, size, &d, &n);
	if (!st && (st = patch_block(r, d, n, off)))
		free(d);
	if (st)
		return st;
	if (fill && r->cache) {
		uint8_t *nd = realloc(d, aid_at(n) + blk_aid_room(d, n));
		if (!nd) {
			free(d);
			return kv_fail(KV_NO_MEMORY, "out of memory caching a block");
		}
		d = nd;
		blk_aid_build(d, n, (blk_aid *)(d + aid_at(n)));
		cache_h *h = cache_insert(r->cache, r->number, off, d, n);
		if (h) {
			b->h = h;
			b->data = cache_data(h);
			b->size = cache_size(h);
			b->aid = cached_aid(b->data, b->size);
			return KV_OK;
		}
		return kv_fail(KV_NO_MEMORY, "out of memory caching a block");
	}
	b->own = d;
	b->data = d;
	b->size = n;
	return KV_OK;
}

static kv_status parse_handle(sst_reader *r, const uint8_t *v, size_t vl, uint64_t *off, uint32_t *size)
{
	uint64_t o, s;
	size_t n1 = util_varint_get(v, v + vl, &o);
	size_t n2 = n1 ? util_varint_get(v + n1, v + vl, &s) : 0;
	if (!n2 || s > MAX_BLOCK)
		return kv_fail(KV_CORRUPTION, "%s: bad block handle in index", r->path);
	*off = o;
	*size = (uint32_t)s;
	return KV_OK;
}

/* Loads index level `level` at (off,size) and appends its leaf entries. */
static kv_status load_index(sst_reader *r, uint64_t off, uint32_t size, uint32_t level, util_buf *keys,
			    size_t *cap)
{
	uint8_t *d;
	size_t n;
	kv_status st = read_raw(r, off, size, &d, &n);
	if (st)
		return st;
	blk_iter it = {0};
	if (!blki_init(&it, d, n)) {
		free(d);
		return kv_fail(KV_CORRUPTION, "%s: malformed index block", r->path);
	}
	for (blki_first(&it); it.valid; blki_next(&it)) {
		uint64_t o = 0;
		uint32_t s = 0;
		if ((st = parse_handle(r, it.val, it.vlen, &o, &s)))
			break;
		if (!ikey_valid(it.key, it.klen)) {
			st = kv_fail(KV_CORRUPTION, "%s: malformed index key", r->path);
			break;
		}
		if (level > 1) {
			if ((st = load_index(r, o, s, level - 1, keys, cap)))
				break;
			continue;
		}
		if (r->nidx == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			r->idx = util_xrealloc(r->idx, *cap * sizeof(ridx));
		}
		ridx *e = &r->idx[r->nidx++];
		e->koff = (uint32_t)keys->len;
		e->klen = (uint32_t)it.klen;
		row_prefix(it.key, &e->p0, &e->p1);
		e->off = o;
		e->size = s;
		util_buf_append(keys, it.key, it.klen);
		patch_key(r, (uint8_t *)keys->data + e->koff, e->klen);
	}
	if (!st && it.corrupt)
		st = kv_fail(KV_CORRUPTION, "%s: malformed index block", r->path);
	blki_free(&it);
	free(d);
	return st;
}

static kv_status parse_info(sst_reader *r, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
#define NEED(k)                                                                                              \
	do {                                                                                                 \
		if ((size_t)(end - p) < (size_t)(k))                                                         \
			return kv_fail(KV_CORRUPTION, "%s: malformed info block", r->path);                  \
	} while (0)
	NEED(6);
	if (p[0] != 1)
		return kv_fail(KV_CORRUPTION, "%s: unknown info version %u", r->path, p[0]);
	r->pr.table_id = util_get_be32(p + 1);
	size_t fl = p[5];
	p += 6;
	NEED(fl + 1 + 40 + 4);
	if (fl >= sizeof(r->pr.family))
		return kv_fail(KV_CORRUPTION, "%s: family name too long", r->path);
	memcpy(r->pr.family, p, fl);
	r->pr.family[fl] = 0;
	p += fl;
	r->pr.bloom = *p++;
	r->pr.entries = util_get_be64(p);
	r->pr.deletes = util_get_be64(p + 8);
	r->pr.min_ts = util_get_be64(p + 16);
	r->pr.max_ts = util_get_be64(p + 24);
	r->pr.data_blocks = util_get_be64(p + 32);
	p += 40;
	size_t sl = util_get_be32(p);
	p += 4;
	NEED(sl + 4);
	r->pr.smallest = util_xmalloc(sl ? sl : 1);
	memcpy(r->pr.smallest, p, sl);
	r->pr.slen = sl;
	p += sl;
	size_t ll = util_get_be32(p);
	p += 4;
	NEED(ll);
	r->pr.largest = util_xmalloc(ll ? ll : 1);
	memcpy(r->pr.largest, p, ll);
	r->pr.llen = ll;
	if (!ikey_valid(r->pr.smallest, sl) || !ikey_valid(r->pr.largest, ll))
		return kv_fail(KV_CORRUPTION, "%s: malformed key range", r->path);
	patch_key(r, r->pr.smallest, sl);
	patch_key(r, r->pr.largest, ll);
	if (r->gts)
		r->pr.min_ts = r->pr.max_ts = r->gts;
#undef NEED
	return KV_OK;
}

kv_status sst_open(kv_fs *fs, const char *path, uint64_t number, kv_cache *cache, sst_reader **out)
{
	return sst_open_ts(fs, path, number, cache, 0, out);
}

kv_status sst_open_ts(kv_fs *fs, const char *path, uint64_t number, kv_cache *cache, kv_ts gts,
		      sst_reader **out)
{
	*out = NULL;
	sst_reader *r = util_xcalloc(1, sizeof(*r));
	atomic_init(&r->refs, 1);
	r->gts = gts;
	ikey_ts_bytes(r->gts_from, 0);
	ikey_ts_bytes(r->gts_to, gts);
	r->fs = fs;
	r->path = util_xstrdup(path);
	r->number = number;
	r->cache = cache;
	kv_status st;
	uint8_t t[SST_TRAILER_SIZE];
	size_t got;
	util_buf keys = UTIL_BUF_INIT;
	size_t cap = 0;
	int e = fs->open_read(fs, path, &r->f);
	if (e) {
		st = kv_fail_errno(e, "open", path);
		goto fail;
	}
	if ((e = fs->size(r->f, &r->fsize))) {
		st = kv_fail_errno(e, "stat", path);
		goto fail;
	}
	if (r->fsize < SST_TRAILER_SIZE) {
		st = kv_fail(KV_CORRUPTION, "%s: too short for a sorted file", path);
		goto fail;
	}
	if ((e = fs->pread(r->f, t, sizeof(t), r->fsize - sizeof(t), &got)) || got != sizeof(t)) {
		st = e ? kv_fail_errno(e, "read", path) : kv_fail(KV_CORRUPTION, "%s: short trailer", path);
		goto fail;
	}
	if (util_get_be64(t + 56) != SST_MAGIC ||
	    util_crc_unmask(util_get_be32(t + 52)) != util_crc32c(0, t, 52)) {
		st = kv_fail(KV_CORRUPTION, "%s: bad trailer (magic or checksum)", path);
		goto fail;
	}
	if (util_get_be32(t + 40) != SST_VERSION) {
		st = kv_fail(KV_CORRUPTION, "%s: unsupported format version %u", path, util_get_be32(t + 40));
		goto fail;
	}
	uint64_t ioff = util_get_be64(t), boff = util_get_be64(t + 12), foff = util_get_be64(t + 24);
	uint32_t isz = util_get_be32(t + 8), bsz = util_get_be32(t + 20), fsz = util_get_be32(t + 32);
	uint32_t levels = util_get_be32(t + 36);
	if (levels < 1 || levels > 8) {
		st = kv_fail(KV_CORRUPTION, "%s: bad index level count %u", path, levels);
		goto fail;
	}
	r->pr.index_levels = levels;
	r->pr.file_size = r->fsize;
	uint8_t *d;
	size_t n;
	if ((st = read_raw(r, foff, fsz, &d, &n)))
		goto fail;
	st = parse_info(r, d, n);
	free(d);
	if (st)
		goto fail;
	if (bsz) {
		if ((st = read_raw(r, boff, bsz, &d, &n)))
			goto fail;
		if (n < 65 || (n - 1) % 64 != 0 || d[n - 1] < 1 || d[n - 1] > 30) {
			free(d);
			st = kv_fail(KV_CORRUPTION, "%s: malformed bloom filter", path);
			goto fail;
		}
		r->bloom = d;
		r->bloom_bits = (n - 1) * 8;
		r->bloom_k = d[n - 1];
	}
	if ((st = load_index(r, ioff, isz, levels, &keys, &cap)))
		goto fail;
	if (r->nidx == 0) {
		st = kv_fail(KV_CORRUPTION, "%s: empty index", path);
		goto fail;
	}
	r->keys = (uint8_t *)util_buf_steal(&keys, &n);
	*out = r;
	return KV_OK;
fail:
	util_buf_free(&keys);
	sst_unref(r);
	return st;
}

void sst_ref(sst_reader *r)
{
	atomic_fetch_add(&r->refs, 1);
}

void sst_unref(sst_reader *r)
{
	if (!r || atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	if (r->f)
		r->fs->close(r->f);
	free(r->idx);
	free(r->keys);
	free(r->bloom);
	free(r->path);
	sst_props_free(&r->pr);
	free(r);
}

const sst_props *sst_get_props(const sst_reader *r)
{
	return &r->pr;
}

static bool bloom_check(const sst_reader *r, uint64_t h)
{
	if (!r->bloom)
		return true;
	size_t nlines = r->bloom_bits / SST_BLOOM_LINE_BITS;
	for (int j = 0; j < r->bloom_k; j++) {
		size_t bit = sst_bloom_bit(h, nlines, j);
		if (!(r->bloom[bit / 8] & (1u << (bit % 8))))
			return false;
	}
	return true;
}

bool sst_may_have_row(const sst_reader *r, const void *row, size_t rlen)
{
	if (ikey_row_cmp(r->pr.smallest, row, rlen) > 0 || ikey_row_cmp(r->pr.largest, row, rlen) < 0)
		return false;
	return bloom_check(r, sst_row_hash(row, rlen));
}

bool sst_may_have_column(const sst_reader *r, const void *row, size_t rlen, const void *q, size_t qlen)
{
	if (!sst_may_have_row(r, row, rlen))
		return false;
	if (r->pr.bloom != KV_BLOOM_ROWCOL)
		return true;
	return bloom_check(r, sst_rowcol_hash(row, rlen, q, qlen));
}

size_t sst_nblocks(const sst_reader *r)
{
	return r->nidx;
}

void sst_block_key(const sst_reader *r, size_t i, const uint8_t **k, size_t *kl)
{
	*k = r->keys + r->idx[i].koff;
	*kl = r->idx[i].klen;
}

/* First block whose separator is >= k (nidx if none). */
static size_t find_block(const sst_reader *r, const uint8_t *k, size_t kl);

size_t sst_find_block(const sst_reader *r, const uint8_t *k, size_t kl)
{
	return find_block(r, k, kl);
}

static size_t find_block(const sst_reader *r, const uint8_t *k, size_t kl)
{
	uint64_t k0, k1;
	row_prefix(k, &k0, &k1);
	size_t lo = 0, hi = r->nidx;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		/* Both possible next probes, while this one compares (a big file's
		 * index is spread over many cold cache lines; see block.c). */
		__builtin_prefetch(&r->idx[(lo + mid) / 2]);
		__builtin_prefetch(&r->idx[(mid + 1 + hi) / 2]);
		const ridx *e = &r->idx[mid];
		bool less;
		if (e->p0 != k0)
			less = e->p0 < k0;
		else if (e->p1 != k1)
			less = e->p1 < k1;
		else
			less = ikey_cmp(r->keys + e->koff, e->klen, k, kl) < 0;
		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int ikey_cmp_checked(const uint8_t *a, size_t al, const uint8_t *b, size_t bl);

/* Rows met while walking one restart interval. */
struct interval_rows {
	util_buf prev;    /* row of the latest entry */
	uint64_t changes; /* entries whose row differs from the entry before */
	bool any;
	bool bad; /* a key too short for its row length */
};

static void count_entry(void *arg, const uint8_t *key, size_t klen, size_t shared)
{
	struct interval_rows *ir = arg;
	size_t rl = klen >= 2 ? ikey_rowlen(key) : 0;
	if (klen < 2 || 2 + rl > klen) {
		ir->bad = true;
		return;
	}
	/* Sharing the length and the row with the entry before: same row. */
	if (ir->any && shared >= 2 + rl)
		return;
	const uint8_t *row = key + 2;
	if (ir->any && rl == ir->prev.len && !memcmp(row, ir->prev.data, rl))
		return;
	if (ir->any)
		ir->changes++;
	ir->any = true;
	util_buf_reset(&ir->prev);
	util_buf_append(&ir->prev, row, rl);
}

kv_status sst_block_rows_before(sst_reader *r, size_t b, const uint8_t *k, size_t kl, bool fill,
				uint64_t need, util_buf *lo, uint64_t *found)
{
	*found = 0;
	if (b >= r->nidx || !need)
		return KV_OK;
	blk_ref ref;
	kv_status st = read_block(r, r->idx[b].off, r->idx[b].size, fill, &ref);
	if (st)
		return st;
	blk_iter it = {0};
	int64_t i = -2;
	if (ref.aid)
		blki_init_aid(&it, ref.data, ref.size, ref.aid);
	if (ref.aid || blki_init(&it, ref.data, ref.size))
		i = blki_restart_before(&it, ikey_cmp_checked, k, kl);
	struct interval_rows ir = {UTIL_BUF_INIT, 0, false, false};
	int64_t top = i; /* intervals below it lie wholly below k */
	for (; i >= 0 && *found < need; i--) {
		util_buf_reset(&ir.prev);
		ir.changes = 0;
		ir.any = false;
		if (!blki_walk_restart(&it, (uint32_t)i, ikey_cmp_checked, i == top ? k : NULL, kl,
				       count_entry, &ir) ||
		    ir.bad) {
			i = -2;
			break;
		}
		if (!ir.any)
			continue;
		uint64_t n = 1 + ir.changes;
		/* The interval's last row may go on above it (already counted). */
		if (lo->len && ir.prev.len == lo->len && !memcmp(ir.prev.data, lo->data, lo->len))
			n--;
		*found += n;
		const uint8_t *rk;
		size_t rkl;
		if (!blki_restart_key(&it, (uint32_t)i, &rk, &rkl) || !ikey_valid(rk, rkl)) {
			i = -2;
			break;
		}
		util_buf_reset(lo);
		util_buf_append(lo, rk + 2, ikey_rowlen(rk));
	}
	if (i == -2 || it.corrupt)
		st = kv_fail(KV_CORRUPTION, "%s: malformed block %zu", r->path, b);
	util_buf_free(&ir.prev);
	blki_free(&it);
	ref_release(r, &ref);
	return st;
}

/* ---------------------------------------------------------------- iterator */

typedef struct sst_iter {
	kv_src base;
	sst_reader *r;
	bool fill;
	int64_t bi; /* loaded block, -1 none */
	blk_ref ref;
	blk_iter bit;
} sst_iter;

static void si_fail(sst_iter *it, kv_status st)
{
	it->base.valid = false;
	it->base.status = st;
}

static bool si_load(sst_iter *it, int64_t i)
{
	if (it->bi == i)
		return true;
	ref_release(it->r, &it->ref);
	it->bi = -1;
	const ridx *e = &it->r->idx[i];
	kv_status st = read_block(it->r, e->off, e->size, it->fill, &it->ref);
	if (st) {
		si_fail(it, st);
		return false;
	}
	if (it->ref.aid)
		blki_init_aid(&it->bit, it->ref.data, it->ref.size, it->ref.aid);
	else if (!blki_init(&it->bit, it->ref.data, it->ref.size)) {
		si_fail(it, kv_fail(KV_CORRUPTION, "%s: malformed block at %llu", it->r->path,
				    (unsigned long long)e->off));
		return false;
	}
	it->bi = i;
	return true;
}

static void si_publish(sst_iter *it)
{
	if (it->bit.corrupt) {
		si_fail(it, kv_fail(KV_CORRUPTION, "%s: malformed entry in block %lld", it->r->path,
				    (long long)it->bi));
		return;
	}
	it->base.valid = it->bit.valid;
	it->base.shared = 0; /* after a seek or at a block start: unknown */
	if (it->bit.valid) {
		if (UTIL_UNLIKELY(!ikey_valid(it->bit.key, it->bit.klen))) {
			si_fail(it, kv_fail(KV_CORRUPTION, "%s: malformed key in block %lld", it->r->path,
					    (long long)it->bi));
			return;
		}
		it->base.key = it->bit.key;
		it->base.klen = it->bit.klen;
		it->base.val = it->bit.val;
		it->base.vlen = it->bit.vlen;
	}
}

/* Moves forward over exhausted blocks. */
static void si_skip_forward(sst_iter *it)
{
	while (!it->bit.valid && !it->bit.corrupt && it->bi + 1 < (int64_t)it->r->nidx) {
		if (!si_load(it, it->bi + 1))
			return;
		blki_first(&it->bit);
	}
	si_publish(it);
}

/* Keys compared while seeking in a block are not checked yet: a malformed
 * one (damage under a valid checksum) sorts first instead of being read
 * past its end; an iterator that lands on it reports corruption. */
static int ikey_cmp_checked(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	if (UTIL_UNLIKELY(!ikey_valid(a, al)))
		return -1;
	return ikey_cmp(a, al, b, bl);
}

static void si_seek(kv_src *s, const uint8_t *k, size_t kl)
{
	sst_iter *it = (sst_iter *)s;
	it->base.status = KV_OK;
	size_t b = k ? find_block(it->r, k, kl) : 0;
	if (b >= it->r->nidx) {
		it->base.valid = false;
		return;
	}
	if (!si_load(it, (int64_t)b))
		return;
	if (k)
		blki_seek(&it->bit, ikey_cmp_checked, k, kl);
	else
		blki_first(&it->bit);
	si_skip_forward(it);
}

static void si_seek_lt(kv_src *s, const uint8_t *k, size_t kl)
{
	sst_iter *it = (sst_iter *)s;
	it->base.status = KV_OK;
	int64_t b = k ? (int64_t)find_block(it->r, k, kl) : (int64_t)it->r->nidx - 1;
	if (b >= (int64_t)it->r->nidx)
		b = (int64_t)it->r->nidx - 1;
	if (!si_load(it, b))
		return;
	if (k)
		blki_seek_lt(&it->bit, ikey_cmp_checked, k, kl);
	else
		blki_last(&it->bit);
	while (!it->bit.valid && !it->bit.corrupt && b > 0) {
		b--;
		if (!si_load(it, b))
			return;
		blki_last(&it->bit);
	}
	si_publish(it);
}

static void si_next(kv_src *s)
{
	sst_iter *it = (sst_iter *)s;
	blk_iter *b = &it->bit;
	if (UTIL_LIKELY(blki_next_inline(b))) {
		/* from what was just decoded, not reloaded from b (a wide reload
		 * of two fields stored apart stalls on store forwarding) */
		const uint8_t *k = b->key;
		size_t kl = b->klen;
		it->base.key = k;
		it->base.klen = kl;
		it->base.val = b->val;
		it->base.vlen = b->vlen;
		it->base.shared = b->shared;
		if (UTIL_UNLIKELY(!ikey_valid(k, kl)))
			si_publish(it);
		return;
	}
	blki_decode_slow(b);
	if (b->valid) {
		it->base.key = b->key;
		it->base.klen = b->klen;
		it->base.val = b->val;
		it->base.vlen = b->vlen;
		it->base.shared = b->shared;
		if (UTIL_UNLIKELY(!ikey_valid(b->key, b->klen)))
			si_publish(it);
		return;
	}
	si_skip_forward(it);
}

static void si_close(kv_src *s)
{
	sst_iter *it = (sst_iter *)s;
	ref_release(it->r, &it->ref);
	blki_free(&it->bit);
	sst_unref(it->r);
	free(it);
}

static const kv_src_ops sst_ops = {si_seek, si_seek_lt, si_next, si_close};

kv_src *sst_iter_new(sst_reader *r, bool fill_cache)
{
	sst_iter *it = calloc(1, sizeof(*it));
	if (!it)
		return NULL;
	it->base.ops = &sst_ops;
	it->base.blk = &it->bit;
	it->r = r;
	it->fill = fill_cache;
	it->bi = -1;
	sst_ref(r);
	return &it->base;
}

kv_status sst_with_iter(sst_reader *r, bool fill_cache, const uint8_t *k, size_t kl, uint8_t **keybuf,
			size_t *keycap, kv_status (*fn)(void *arg, kv_src *s), void *arg)
{
	sst_iter it;
	memset(&it, 0, sizeof it);
	it.base.ops = &sst_ops;
	it.r = r;
	it.fill = fill_cache;
	it.bi = -1;
	it.bit.key = *keybuf;
	it.bit.kcap = *keycap;
	si_seek(&it.base, k, kl);
	kv_status st = fn(arg, &it.base);
	*keybuf = it.bit.key;
	*keycap = it.bit.kcap;
	ref_release(r, &it.ref);
	return st;
}

kv_status sst_verify(sst_reader *r, void (*fn)(void *arg, const char *problem), void *arg)
{
	kv_status worst = KV_OK;
	for (size_t i = 0; i < r->nidx; i++) {
		uint8_t *d;
		size_t n;
		kv_status st = read_raw(r, r->idx[i].off, r->idx[i].size, &d, &n);
		if (!st && (st = patch_block(r, d, n, r->idx[i].off)))
			free(d);
		blk_iter it = {0};
		if (!st) {
			if (!blki_init(&it, d, n)) {
				st = kv_fail(KV_CORRUPTION, "%s: malformed block %zu", r->path, i);
			} else {
				const uint8_t *lim = r->keys + r->idx[i].koff;
				for (blki_first(&it); it.valid; blki_next(&it)) {
					if (!ikey_valid(it.key, it.klen) ||
					    ikey_cmp(it.key, it.klen, lim, r->idx[i].klen) > 0) {
						st = kv_fail(KV_CORRUPTION, "%s: bad key order in block %zu",
							     r->path, i);
						break;
					}
				}
				if (!st && it.corrupt)
					st = kv_fail(KV_CORRUPTION, "%s: malformed entry in block %zu",
						     r->path, i);
			}
			blki_free(&it);
			free(d);
		}
		if (st) {
			if (fn)
				fn(arg, kv_errmsg());
			if (!worst)
				worst = st;
		}
	}
	return worst;
}

kv_status sst_dump(sst_reader *r,
		   void (*fn)(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl), void *arg)
{
	kv_src *s = sst_iter_new(r, false);
	if (!s)
		return KV_NO_MEMORY;
	for (src_seek(s, NULL, 0); s->valid; src_next(s))
		fn(arg, s->key, s->klen, s->val, s->vlen);
	kv_status st = s->status;
	src_close(s);
	return st;
}
