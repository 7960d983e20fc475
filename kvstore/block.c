/* block.c — building and reading prefix-compressed blocks with restart
 * points (see blk.h for the layout). Readers never trust the bytes: every
 * length is checked against the block end and a bad entry sets `corrupt`. */
#include "blk.h"

#include "ikey.h"

#include <stdlib.h>
#include <string.h>

void blkb_init(blk_builder *b, int interval)
{
	memset(b, 0, sizeof(*b));
	b->interval = interval > 0 ? interval : 16;
}

void blkb_free(blk_builder *b)
{
	util_buf_free(&b->buf);
	util_buf_free(&b->last);
	free(b->rest);
	memset(b, 0, sizeof(*b));
}

void blkb_reset(blk_builder *b)
{
	util_buf_reset(&b->buf);
	util_buf_reset(&b->last);
	b->nrest = 0;
	b->counter = 0;
	b->nentries = 0;
}

/* shared is the whole common prefix below the keep_suffix cap, never less:
 * scans infer "same row" and "same column" from it (scan.c fast_step). */
void blkb_add(blk_builder *b, const uint8_t *key, size_t klen, const void *val, size_t vlen)
{
	blkb_add_same(b, key, klen, val, vlen, 0);
}

void blkb_add_same(blk_builder *b, const uint8_t *key, size_t klen, const void *val, size_t vlen, size_t same)
{
	size_t shared = 0;
	if (b->counter < b->interval && b->nentries > 0) {
		size_t n = UTIL_MIN(b->last.len, klen);
		n = n > b->keep_suffix ? n - b->keep_suffix : 0;
		shared = UTIL_MIN(same, n);
		const uint8_t *l = (const uint8_t *)b->last.data;
		/* Eight bytes at a time, then the rest (keys share long prefixes). */
		while (shared + 8 <= n && !memcmp(l + shared, key + shared, 8))
			shared += 8;
		while (shared < n && l[shared] == key[shared])
			shared++;
	} else {
		if (b->nrest == b->crest) {
			b->crest = b->crest ? 2 * b->crest : 64;
			b->rest = util_xrealloc(b->rest, b->crest * sizeof(uint32_t));
		}
		b->rest[b->nrest++] = (uint32_t)b->buf.len;
		b->counter = 0;
	}
	uint8_t hdr[30];
	size_t h;
	if ((shared | (klen - shared) | vlen) < 0x80) {
		/* The usual case: three one-byte varints. */
		hdr[0] = (uint8_t)shared;
		hdr[1] = (uint8_t)(klen - shared);
		hdr[2] = (uint8_t)vlen;
		h = 3;
	} else {
		h = util_varint_put(hdr, shared);
		h += util_varint_put(hdr + h, klen - shared);
		h += util_varint_put(hdr + h, vlen);
	}
	/* One reserve, then plain copies (this runs once per cell written). */
	size_t total = h + klen - shared + vlen;
	util_buf_reserve(&b->buf, total);
	uint8_t *p = (uint8_t *)b->buf.data + b->buf.len;
	if (h == 3) {
		p[0] = hdr[0];
		p[1] = hdr[1];
		p[2] = hdr[2];
	} else {
		memcpy(p, hdr, h);
	}
	blk_copy(p + h, key + shared, klen - shared);
	blk_copy(p + h + klen - shared, val, vlen);
	b->buf.len += total;
	b->buf.data[b->buf.len] = '\0';
	/* The last key's first shared bytes are the new key's already. */
	if (klen + 1 > b->last.cap) {
		b->last.len = 0;
		shared = 0;
		util_buf_reserve(&b->last, klen);
	}
	blk_copy((uint8_t *)b->last.data + shared, key + shared, klen - shared);
	b->last.len = klen;
	b->counter++;
	b->nentries++;
}

/* Byte j of a row's cell key after the row prefix: the qualifier, then the
 * suffix. */
static inline uint8_t tail_byte(const uint8_t *q, size_t ql, const uint8_t *s, size_t j)
{
	return j < ql ? q[j] : s[j - ql];
}

/* The common prefix, below lim, of two cells' keys after their shared row
 * prefix: qualifier p or q, then the same suffix s. */
static inline size_t tail_shared(const uint8_t *p, size_t pl, const uint8_t *q, size_t ql, const uint8_t *s,
				 size_t lim)
{
	size_t j = 0;
	if (pl == ql) {
		/* Equal widths (a row's column qualifiers): they differ inside. */
		while (j < ql && j < lim && p[j] == q[j])
			j++;
		return j < ql ? j : lim;
	}
	while (j < lim && tail_byte(p, pl, s, j) == tail_byte(q, ql, s, j))
		j++;
	return j;
}

void blkb_add_row(blk_builder *b, size_t pre, const kv_put_cell *c, size_t n, const uint8_t *suffix,
		  size_t slen, size_t room)
{
	/* One reserve for the entries, one for the last key, up front. */
	util_buf_reserve(&b->buf, room);
	const kv_put_cell *e = &c[n - 1];
	size_t elen = pre + e->qlen + slen;
	if (elen + 1 > b->last.cap)
		util_buf_reserve(&b->last, elen - b->last.len);
	uint8_t *base = (uint8_t *)b->buf.data, *p = base + b->buf.len, *l = (uint8_t *)b->last.data;
	/* Cell i is compared with cell i - 1 (the last key holds cell 0's and
	 * its row prefix; it takes the row's last key at the end). */
	for (size_t i = 1; i < n; i++) {
		const uint8_t *q = c[i].qual;
		size_t ql = c[i].qlen, pl = c[i - 1].qlen, klen = pre + ql + slen, vlen = c[i].vlen,
		       shared = 0;
		if (b->counter < b->interval) {
			size_t m = UTIL_MIN(pre + pl + slen, klen);
			m = m > b->keep_suffix ? m - b->keep_suffix : 0;
			shared = pre < m ? pre + tail_shared(c[i - 1].qual, pl, q, ql, suffix, m - pre) : m;
		} else {
			if (b->nrest == b->crest) {
				b->crest = 2 * b->crest;
				b->rest = util_xrealloc(b->rest, b->crest * sizeof(uint32_t));
			}
			b->rest[b->nrest++] = (uint32_t)(p - base);
			b->counter = 0;
		}
		if ((shared | (klen - shared) | vlen) < 0x80) {
			p[0] = (uint8_t)shared;
			p[1] = (uint8_t)(klen - shared);
			p[2] = (uint8_t)vlen;
			p += 3;
		} else {
			p += util_varint_put(p, shared);
			p += util_varint_put(p, klen - shared);
			p += util_varint_put(p, vlen);
		}
		/* The key from `shared` on: the rest of the row prefix (a restart
		 * point), then the qualifier's and the suffix's unshared parts. */
		size_t o = shared;
		if (o < pre) {
			blk_copy(p, l + o, pre - o);
			p += pre - o;
			o = pre;
		}
		if (o - pre < ql) {
			blk_copy(p, q + (o - pre), ql - (o - pre));
			p += ql - (o - pre);
			o = pre + ql;
		}
		blk_copy(p, suffix + (o - pre - ql), slen - (o - pre - ql));
		p += slen - (o - pre - ql);
		blk_copy(p, c[i].val, vlen);
		p += vlen;
		b->counter++;
	}
	blk_copy(l + pre, e->qual, e->qlen);
	blk_copy(l + pre + e->qlen, suffix, slen);
	b->last.len = elen;
	b->nentries += n - 1;
	b->buf.len = (size_t)(p - base);
	b->buf.data[b->buf.len] = '\0';
}

void blkb_finish(blk_builder *b)
{
	for (size_t i = 0; i < b->nrest; i++)
		util_buf_put_be32(&b->buf, b->rest[i]);
	util_buf_put_be32(&b->buf, (uint32_t)b->nrest);
}

/* ---------------------------------------------------------------- reading */

bool blki_init(blk_iter *it, const uint8_t *data, size_t size)
{
	it->data = data;
	it->valid = false;
	it->corrupt = false;
	it->aid = NULL;
	if (size < 4)
		return false;
	uint32_t n = util_get_be32(data + size - 4);
	if (n == 0 || (size - 4) / 4 < n)
		return false;
	it->nrest = n;
	it->restarts = data + size - 4 - 4 * (size_t)n;
	it->limit = (size_t)(it->restarts - data);
	it->cur = it->next = 0;
	return true;
}

void blki_init_aid(blk_iter *it, const uint8_t *data, size_t size, const blk_aid *aid)
{
	it->data = data;
	it->valid = false;
	it->corrupt = false;
	it->aid = aid;
	it->nrest = aid->n;
	it->restarts = data + size - 4 - 4 * (size_t)aid->n;
	it->limit = (size_t)(it->restarts - data);
	it->cur = it->next = 0;
}

void blki_free(blk_iter *it)
{
	free(it->key);
	it->key = NULL;
	it->kcap = 0;
}

static inline size_t rest_off(const blk_iter *it, uint32_t i)
{
	return util_get_be32(it->restarts + 4 * (size_t)i);
}

static inline const uint64_t *aid_pfx(const blk_aid *a)
{
	return (const uint64_t *)(a + 1);
}

static inline const uint32_t *aid_off(const blk_aid *a)
{
	return (const uint32_t *)(aid_pfx(a) + a->n);
}

static inline const uint8_t *aid_common(const blk_aid *a)
{
	return (const uint8_t *)(aid_off(a) + a->n);
}

static inline bool get_varint32(const uint8_t **p, const uint8_t *end, size_t *v)
{
	if (*p < end && **p < 0x80) {
		*v = *(*p)++;
		return true;
	}
	uint64_t x;
	size_t n = util_varint_get(*p, end, &x);
	if (!n || x > 0xffffffffu)
		return false;
	*p += n;
	*v = (size_t)x;
	return true;
}

static void set_corrupt(blk_iter *it)
{
	it->valid = false;
	it->corrupt = true;
}

/* Decodes the entry at it->next, extending the current key. */
static bool decode_next(blk_iter *it)
{
	if (it->next >= it->limit) {
		it->valid = false;
		return false;
	}
	const uint8_t *p = it->data + it->next, *end = it->data + it->limit;
	size_t shared, unshared, vlen;
	if (!get_varint32(&p, end, &shared) || !get_varint32(&p, end, &unshared) ||
	    !get_varint32(&p, end, &vlen) || shared > it->klen || (size_t)(end - p) < unshared ||
	    (size_t)(end - p) - unshared < vlen) {
		set_corrupt(it);
		return false;
	}
	size_t kl = shared + unshared;
	if (kl > it->kcap) {
		size_t cap = it->kcap ? it->kcap : 64;
		while (cap < kl)
			cap *= 2;
		uint8_t *nk = realloc(it->key, cap);
		if (!nk) {
			set_corrupt(it);
			return false;
		}
		it->key = nk;
		it->kcap = cap;
	}
	if (unshared) /* an empty key before any was decoded: key is still NULL */
		blk_copy(it->key + shared, p, unshared);
	it->klen = kl;
	it->shared = shared;
	it->val = p + unshared;
	it->vlen = vlen;
	it->cur = it->next;
	it->next = (size_t)(it->val + vlen - it->data);
	it->valid = true;
	return true;
}

static void to_restart(blk_iter *it, uint32_t i)
{
	it->klen = 0;
	it->next = it->aid ? aid_off(it->aid)[i] : rest_off(it, i);
	if (it->next > it->limit)
		set_corrupt(it);
}

void blki_first(blk_iter *it)
{
	to_restart(it, 0);
	if (!it->corrupt)
		decode_next(it);
}

bool blki_decode_slow(blk_iter *it)
{
	return decode_next(it);
}

void blki_last(blk_iter *it)
{
	to_restart(it, it->nrest - 1);
	if (it->corrupt)
		return;
	while (decode_next(it) && it->next < it->limit)
		;
}

/* Key stored at restart point i (shared is 0 there); false if malformed. */
static bool restart_key(const blk_iter *it, uint32_t i, const uint8_t **k, size_t *kl)
{
	size_t off = rest_off(it, i);
	if (off >= it->limit)
		return false;
	const uint8_t *p = it->data + off, *end = it->data + it->limit;
	size_t shared, unshared, vlen;
	if (!get_varint32(&p, end, &shared) || !get_varint32(&p, end, &unshared) ||
	    !get_varint32(&p, end, &vlen) || shared != 0 || (size_t)(end - p) < unshared)
		return false;
	*k = p;
	*kl = unshared;
	return true;
}

/* Index of the last restart whose key is < k, or -1 if none (-2: corrupt).
 *
 * A block fetched from the cache is mostly cold, and each probe of the
 * binary search reads a key on a cache line of its own, so the probes were
 * a chain of dependent misses. While a probe compares, the keys of both
 * possible next probes are prefetched (their offsets come from the restart
 * array, a few lines read by every probe), so the next miss is under way
 * before it is known which one is needed. */
static int64_t find_restart_aid(const blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl);

static int64_t find_restart(const blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl)
{
	if (it->aid && kl >= 2 && 2 + ikey_rowlen(k) <= kl)
		return find_restart_aid(it, cmp, k, kl);
	int64_t lo = 0, hi = (int64_t)it->nrest - 1, ans = -1;
	while (lo <= hi) {
		int64_t mid = (lo + hi) / 2;
		if (mid - 1 >= lo)
			__builtin_prefetch(it->data + rest_off(it, (uint32_t)((lo + mid - 1) / 2)));
		if (mid + 1 <= hi)
			__builtin_prefetch(it->data + rest_off(it, (uint32_t)((mid + 1 + hi) / 2)));
		const uint8_t *rk;
		size_t rkl;
		if (!restart_key(it, (uint32_t)mid, &rk, &rkl))
			return -2;
		if (cmp(rk, rkl, k, kl) < 0) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

/* The 8 bytes of row[0..n) from its start as a big-endian number, zero
 * padded: a smaller number means a smaller row; equal numbers decide
 * nothing (a row may end where the other has zero bytes). */
static inline uint64_t row8(const uint8_t *row, size_t n)
{
	uint8_t b[8] = {0};
	memcpy(b, row, n < 8 ? n : 8);
	uint64_t x;
	memcpy(&x, b, 8);
	return __builtin_bswap64(x);
}

/* find_restart() over the aid: rows are compared by their 8 bytes after the
 * common prefix, the restart key itself read only on a tie. */
static int64_t find_restart_aid(const blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl)
{
	const blk_aid *a = it->aid;
	const uint64_t *pfx = aid_pfx(a);
	/* The aid's lines are adjacent: fetch them all at once rather than
	 * one dependent miss per probe. */
	for (size_t b = 0; b < 12 * (size_t)a->n + 64; b += 64)
		__builtin_prefetch((const uint8_t *)pfx + b);
	const uint8_t *kr = k + 2;
	size_t krl = ikey_rowlen(k), skip = a->skip;
	if (skip) {
		/* Every restart row starts with common[0..skip): a row that does
		 * not sorts before or after all of them. */
		int c = ikey_bytes_cmp(kr, krl < skip ? krl : skip, aid_common(a), krl < skip ? krl : skip);
		if (c < 0 || (c == 0 && krl < skip))
			return -1;
		if (c > 0)
			return (int64_t)a->n - 1;
	}
	uint64_t kp = row8(kr + skip, krl - skip);
	int64_t lo = 0, hi = (int64_t)a->n - 1, ans = -1;
	while (lo <= hi) {
		int64_t mid = (lo + hi) / 2;
		uint64_t p = pfx[mid];
		bool less;
		if (p != kp) {
			less = p < kp;
		} else {
			const uint8_t *rk;
			size_t rkl;
			if (!restart_key(it, (uint32_t)mid, &rk, &rkl))
				return -2;
			less = cmp(rk, rkl, k, kl) < 0;
		}
		if (less) {
			ans = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return ans;
}

size_t blk_aid_room(const uint8_t *data, size_t size)
{
	if (size < 4)
		return sizeof(blk_aid);
	uint32_t n = util_get_be32(data + size - 4);
	if (n == 0 || (size - 4) / 4 < n)
		return sizeof(blk_aid);
	return sizeof(blk_aid) + 12 * (size_t)n + BLK_AID_SKIP_MAX;
}

bool blk_aid_build(const uint8_t *data, size_t size, blk_aid *out)
{
	out->n = 0;
	out->skip = 0;
	blk_iter it = {0};
	if (!blki_init(&it, data, size))
		return false;
	uint32_t n = it.nrest;
	uint64_t *pfx = (uint64_t *)(out + 1);
	uint32_t *off = (uint32_t *)(pfx + n);
	uint8_t *common = (uint8_t *)(off + n);
	/* Every restart key well formed and in row order (then the numbers
	 * are in order too); skip = the rows' common prefix. */
	const uint8_t *r0 = NULL, *prev = NULL;
	size_t prevl = 0, skip = BLK_AID_SKIP_MAX;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *rk;
		size_t rkl;
		if (!restart_key(&it, i, &rk, &rkl) || !ikey_valid(rk, rkl))
			return false;
		const uint8_t *row = rk + 2;
		size_t rl = ikey_rowlen(rk);
		if (prev && ikey_bytes_cmp(prev, prevl, row, rl) > 0)
			return false;
		if (!r0) {
			r0 = row;
			skip = UTIL_MIN(skip, rl);
		} else {
			size_t j = 0, m = UTIL_MIN(skip, rl);
			while (j < m && row[j] == r0[j])
				j++;
			skip = j;
		}
		prev = row;
		prevl = rl;
		off[i] = (uint32_t)rest_off(&it, i);
	}
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *rk;
		size_t rkl;
		restart_key(&it, i, &rk, &rkl);
		pfx[i] = row8(rk + 2 + skip, ikey_rowlen(rk) - skip);
	}
	memcpy(common, r0, skip);
	out->skip = (uint32_t)skip;
	out->n = n;
	return true;
}

bool blki_restart_key(const blk_iter *it, uint32_t i, const uint8_t **k, size_t *kl)
{
	return i < it->nrest && restart_key(it, i, k, kl);
}

int64_t blki_restart_before(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl)
{
	if (!k)
		return (int64_t)it->nrest - 1;
	return find_restart(it, cmp, k, kl);
}

bool blki_walk_restart(blk_iter *it, uint32_t i, blk_cmp_fn cmp, const uint8_t *k, size_t kl,
		       void (*fn)(void *arg, const uint8_t *key, size_t klen, size_t shared), void *arg)
{
	if (i >= it->nrest)
		return false;
	size_t end = i + 1 < it->nrest ? rest_off(it, i + 1) : it->limit;
	to_restart(it, i);
	if (it->corrupt)
		return false;
	while (it->next < end && (blki_next_inline(it) || decode_next(it))) {
		if (k && cmp(it->key, it->klen, k, kl) >= 0)
			break;
		fn(arg, it->key, it->klen, it->shared);
	}
	return !it->corrupt;
}

void blki_seek(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl)
{
	int64_t r = find_restart(it, cmp, k, kl);
	if (r == -2) {
		set_corrupt(it);
		return;
	}
	to_restart(it, r < 0 ? 0 : (uint32_t)r);
	if (it->corrupt)
		return;
	if (it->aid) {
		/* The search read none of the interval (unless on a tie): ask
		 * for all its lines at once, up to 1 KiB, rather than missing
		 * on each in turn while decoding. */
		size_t ri = r < 0 ? 0 : (size_t)r;
		size_t end = ri + 1 < it->nrest ? aid_off(it->aid)[ri + 1] : it->limit;
		if (end > it->next + 1024)
			end = it->next + 1024;
		for (size_t o = it->next; o < end; o += 64)
			__builtin_prefetch(it->data + o);
	} else {
		/* The interval is decoded front to back: start the lines after
		 * the first (already read by the search) on their way. */
		__builtin_prefetch(it->data + it->next + 64);
		__builtin_prefetch(it->data + it->next + 128);
		__builtin_prefetch(it->data + it->next + 192);
	}
	while (blki_next_inline(it) || decode_next(it)) {
		if (cmp(it->key, it->klen, k, kl) >= 0)
			return;
	}
}

void blki_seek_lt(blk_iter *it, blk_cmp_fn cmp, const uint8_t *k, size_t kl)
{
	int64_t r = find_restart(it, cmp, k, kl);
	if (r == -2) {
		set_corrupt(it);
		return;
	}
	if (r < 0) {
		it->valid = false;
		return;
	}
	to_restart(it, (uint32_t)r);
	if (it->corrupt)
		return;
	size_t last = SIZE_MAX;
	while (decode_next(it)) {
		if (cmp(it->key, it->klen, k, kl) >= 0)
			break;
		last = it->cur;
	}
	if (it->corrupt)
		return;
	/* Decode again up to the last entry < k (keys are prefix-compressed). */
	to_restart(it, (uint32_t)r);
	while (decode_next(it) && it->cur != last)
		;
	if (it->cur != last)
		set_corrupt(it);
}

bool blk_patch_ts(uint8_t *data, size_t size, const uint8_t from[8], const uint8_t to[8])
{
	blk_iter it = {0};
	if (!blki_init(&it, data, size))
		return false;
	size_t off = 0, prevlen = 0;
	while (off < it.limit) {
		const uint8_t *p = data + off, *end = data + it.limit;
		size_t shared, unshared, vlen;
		if (!get_varint32(&p, end, &shared) || !get_varint32(&p, end, &unshared) ||
		    !get_varint32(&p, end, &vlen) || (size_t)(end - p) < unshared ||
		    (size_t)(end - p) - unshared < vlen)
			return false;
		size_t kl = shared + unshared;
		/* The timestamp must lie in this entry's bytes, and the shared
		 * prefix must not reach into the previous key's timestamp. */
		if (kl < 3 + IKEY_TS_END || shared + IKEY_TS_END > kl ||
		    (shared && shared + IKEY_TS_END > prevlen))
			return false;
		uint8_t *ts = (uint8_t *)p + (kl - IKEY_TS_END - shared);
		if (memcmp(ts, from, 8) != 0)
			return false;
		memcpy(ts, to, 8);
		prevlen = kl;
		off = (size_t)(p + unshared + vlen - data);
	}
	return true;
}
