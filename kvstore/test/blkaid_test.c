/* blkaid_test.c — the restart search aid of cached data blocks (blk.h
 * blk_aid): seeks through an iterator with the aid land exactly where the
 * plain restart search lands, for random rows, rows sharing long prefixes,
 * rows that are prefixes of each other (zero padding ties), blocks with one
 * restart or a restart at every entry; blocks that do not qualify get no
 * aid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"
#include "ikey.h"

static int cmp_checked(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	if (!ikey_valid(a, al))
		return -1;
	return ikey_cmp(a, al, b, bl);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

typedef struct k {
	uint8_t b[256];
	size_t n;
} k;

static int kcmp(const void *a, const void *b)
{
	const k *x = a, *y = b;
	return ikey_cmp(x->b, x->n, y->b, y->n);
}

/* Row generators: mode 0 random bytes from a small alphabet (zero bytes and
 * rows that are prefixes of others are common), 1 a 20-byte shared prefix,
 * 2 a shared prefix longer than BLK_AID_SKIP_MAX, 3 big-endian numbers
 * (like integer primary keys). */
static size_t gen_row(uint8_t *row, int mode)
{
	static const uint8_t alpha[] = {0, 1, 'a', 0xff};
	size_t n = 0;
	if (mode == 1 || mode == 2) {
		size_t pl = mode == 1 ? 20 : 70;
		for (; n < pl; n++)
			row[n] = (uint8_t)('p' + n % 7);
	}
	if (mode == 3) {
		uint64_t v = rnd() % 5000;
		row[n++] = 0x80;
		for (int i = 7; i >= 0; i--)
			row[n++] = (uint8_t)(v >> (8 * i));
		return n;
	}
	size_t extra = rnd() % 12;
	for (size_t i = 0; i < extra; i++)
		row[n++] = alpha[rnd() % 4];
	return n;
}

static size_t gen_key(uint8_t *dst, int mode)
{
	uint8_t row[128];
	size_t rl = gen_row(row, mode);
	char q[4] = {(char)('a' + rnd() % 3), 0};
	size_t ql = rnd() % 2;
	kv_ts ts = rnd() % 4 + 1;
	return ikey_encode(dst, row, rl, "f", 1, q, ql, ts, KV_PUT);
}

/* A probe: an existing key, a new random key, or a row's first key. */
static size_t gen_probe(uint8_t *dst, const k *keys, size_t n, int mode)
{
	uint32_t w = rnd() % 3;
	if (w == 0) {
		const k *e = &keys[rnd() % n];
		memcpy(dst, e->b, e->n);
		return e->n;
	}
	if (w == 1)
		return gen_key(dst, mode);
	uint8_t row[128];
	size_t rl = gen_row(row, mode);
	return ikey_encode(dst, row, rl, "", 0, "", 0, KV_TS_MAX, IKEY_TYPE_MIN_SORT);
}

static void same_pos(const blk_iter *a, const blk_iter *b)
{
	assert_int_equal(a->valid, b->valid);
	assert_int_equal(a->corrupt, b->corrupt);
	if (a->valid) {
		assert_int_equal(a->klen, b->klen);
		assert_memory_equal(a->key, b->key, a->klen);
		assert_int_equal(a->cur, b->cur);
	}
}

static void check_block(int mode, int interval, size_t nkeys)
{
	k *keys = calloc(nkeys, sizeof(k));
	for (size_t i = 0; i < nkeys; i++)
		keys[i].n = gen_key(keys[i].b, mode);
	qsort(keys, nkeys, sizeof(k), kcmp);
	blk_builder bb;
	blkb_init(&bb, interval);
	size_t nu = 0;
	for (size_t i = 0; i < nkeys; i++) {
		if (i && !kcmp(&keys[i], &keys[i - 1]))
			continue;
		keys[nu++] = keys[i];
		blkb_add(&bb, keys[i].b, keys[i].n, "v", 1);
	}
	blkb_finish(&bb);
	size_t size = bb.buf.len, at = (size + 7) & ~(size_t)7;
	uint8_t *d = malloc(at + blk_aid_room((const uint8_t *)bb.buf.data, size));
	memcpy(d, bb.buf.data, size);
	blk_aid *aid = (blk_aid *)(d + at);
	assert_true(blk_aid_build(d, size, aid));
	blk_iter plain = {0}, fast = {0};
	assert_true(blki_init(&plain, d, size));
	assert_int_equal(aid->n, plain.nrest);
	assert_true(aid->skip <= BLK_AID_SKIP_MAX);
	blki_init_aid(&fast, d, size, aid);
	assert_int_equal(fast.limit, plain.limit);
	for (int p = 0; p < 3000; p++) {
		uint8_t pk[256];
		size_t pl = gen_probe(pk, keys, nu, mode);
		blki_seek(&plain, cmp_checked, pk, pl);
		blki_seek(&fast, cmp_checked, pk, pl);
		same_pos(&plain, &fast);
		/* The first key >= the probe, checked against the key list. */
		size_t lo = 0;
		while (lo < nu && ikey_cmp(keys[lo].b, keys[lo].n, pk, pl) < 0)
			lo++;
		assert_int_equal(fast.valid, lo < nu);
		if (lo < nu)
			assert_memory_equal(fast.key, keys[lo].b, keys[lo].n);
		blki_seek_lt(&plain, cmp_checked, pk, pl);
		blki_seek_lt(&fast, cmp_checked, pk, pl);
		same_pos(&plain, &fast);
		assert_int_equal(blki_restart_before(&plain, cmp_checked, pk, pl),
				 blki_restart_before(&fast, cmp_checked, pk, pl));
	}
	/* Iteration from the first entry is unchanged. */
	size_t cnt = 0;
	for (blki_first(&fast); fast.valid; blki_next(&fast)) {
		assert_memory_equal(fast.key, keys[cnt].b, keys[cnt].n);
		cnt++;
	}
	assert_int_equal(cnt, nu);
	blki_free(&plain);
	blki_free(&fast);
	free(d);
	blkb_free(&bb);
	free(keys);
}

static void test_aid_seeks(void **state)
{
	(void)state;
	static const int intervals[] = {1, 4, 16, 100000};
	for (int mode = 0; mode < 4; mode++)
		for (int ii = 0; ii < 4; ii++)
			for (int rep = 0; rep < 3; rep++)
				check_block(mode, intervals[ii], 1 + rnd() % 400);
}

/* Blocks whose restart keys are malformed or out of order, and bad
 * trailers, get no aid; seeks then go the plain way. */
static void test_aid_refused(void **state)
{
	(void)state;
	blk_builder bb;
	blkb_init(&bb, 2);
	uint8_t kb[64];
	for (int i = 0; i < 10; i++) {
		char row[8];
		snprintf(row, sizeof row, "r%03d", i);
		size_t kl = ikey_encode(kb, row, 4, "f", 1, "", 0, 5, KV_PUT);
		blkb_add(&bb, kb, kl, "v", 1);
	}
	blkb_finish(&bb);
	size_t size = bb.buf.len;
	size_t room = blk_aid_room((const uint8_t *)bb.buf.data, size);
	uint8_t *d = malloc(size);
	uint64_t *mem = malloc(room);
	blk_aid *aid = (blk_aid *)mem;

	memcpy(d, bb.buf.data, size);
	assert_true(blk_aid_build(d, size, aid));
	assert_int_equal(aid->n, 5);
	assert_int_equal(aid->skip, 3); /* "r00" starts every restart row */

	/* Restart 2's key (entry 4) claims a row longer than the key. */
	blk_iter it = {0};
	assert_true(blki_init(&it, d, size));
	const uint8_t *rk;
	size_t rkl;
	assert_true(blki_restart_key(&it, 2, &rk, &rkl));
	size_t at = (size_t)(rk - d);
	d[at] = 0x7f;
	assert_false(blk_aid_build(d, size, aid));
	assert_int_equal(aid->n, 0);

	/* Restart keys out of row order. */
	memcpy(d, bb.buf.data, size);
	d[at + 2 + 1] = '9';
	d[at + 2 + 2] = '9';
	assert_false(blk_aid_build(d, size, aid));
	assert_int_equal(aid->n, 0);

	/* A bad restart count. */
	memcpy(d, bb.buf.data, size);
	d[size - 1] = 0xff;
	d[size - 2] = 0xff;
	assert_int_equal(blk_aid_room(d, size), sizeof(blk_aid));
	assert_false(blk_aid_build(d, size, aid));
	assert_int_equal(aid->n, 0);
	assert_false(blk_aid_build(d, 3, aid));

	blki_free(&it);
	free(mem);
	free(d);
	blkb_free(&bb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_aid_seeks),
	    cmocka_unit_test(test_aid_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
