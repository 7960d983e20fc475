/* block_test.c — prefix-compressed blocks: round trips, seeks in both
 * directions at every key and between keys, and malformed input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"

static int bcmp_(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	size_t n = al < bl ? al : bl;
	int c = memcmp(a, b, n);
	return c ? c : (al < bl ? -1 : al > bl);
}

static void key(char *b, int i)
{
	snprintf(b, 32, "key%06d", i * 2); /* even numbers: odd ones fall between */
}

static void build(blk_builder *bb, int n, int interval)
{
	blkb_init(bb, interval);
	for (int i = 0; i < n; i++) {
		char k[32], v[32];
		key(k, i);
		snprintf(v, sizeof(v), "val%d", i);
		blkb_add(bb, (const uint8_t *)k, strlen(k), v, strlen(v));
	}
	blkb_finish(bb);
}

static void test_roundtrip_and_seek(void **state)
{
	for (int interval = 1; interval <= 16; interval *= 4) {
		blk_builder bb;
		const int n = 500;
		build(&bb, n, interval);
		blk_iter it = {0};
		assert_true(blki_init(&it, (const uint8_t *)bb.buf.data, bb.buf.len));
		int i = 0;
		for (blki_first(&it); it.valid; blki_next(&it), i++) {
			char k[32];
			key(k, i);
			assert_int_equal(it.klen, strlen(k));
			assert_memory_equal(it.key, k, it.klen);
		}
		assert_false(it.corrupt);
		assert_int_equal(i, n);
		for (int j = -1; j <= 2 * n; j++) {
			char k[32];
			snprintf(k, sizeof(k), "key%06d", j < 0 ? 0 : j);
			size_t kl = j < 0 ? 3 : strlen(k); /* "key" sorts first */
			blki_seek(&it, bcmp_, (const uint8_t *)k, kl);
			int first_ge = j < 0 ? 0 : (j + 1) / 2;
			if (first_ge >= n) {
				assert_false(it.valid);
			} else {
				char w[32];
				key(w, first_ge);
				assert_true(it.valid);
				assert_memory_equal(it.key, w, it.klen);
			}
			blki_seek_lt(&it, bcmp_, (const uint8_t *)k, kl);
			int last_lt = j < 0 ? -1 : (j - 1) / 2;
			if (j <= 0) {
				assert_false(it.valid);
			} else {
				char w[32];
				key(w, last_lt >= n ? n - 1 : last_lt);
				assert_true(it.valid);
				assert_memory_equal(it.key, w, it.klen);
				/* next() continues from there. */
				blki_next(&it);
				if (last_lt + 1 < n) {
					key(w, last_lt + 1);
					assert_memory_equal(it.key, w, it.klen);
				}
			}
		}
		blki_last(&it);
		char w[32];
		key(w, n - 1);
		assert_memory_equal(it.key, w, it.klen);
		blki_free(&it);
		blkb_free(&bb);
	}
}

static void test_malformed(void **state)
{
	blk_builder bb;
	build(&bb, 100, 16);
	blk_iter it = {0};
	/* Bad restart count. */
	uint8_t *d = malloc(bb.buf.len);
	memcpy(d, bb.buf.data, bb.buf.len);
	d[bb.buf.len - 1] = 0xff;
	d[bb.buf.len - 2] = 0xff;
	assert_false(blki_init(&it, d, bb.buf.len));
	assert_false(blki_init(&it, d, 3));
	/* Garbage entries: every byte flip either decodes or is flagged,
	 * never reads out of bounds (ASan watches). */
	for (size_t pos = 0; pos + 8 < bb.buf.len; pos += 7) {
		memcpy(d, bb.buf.data, bb.buf.len);
		d[pos] ^= 0xa5;
		if (!blki_init(&it, d, bb.buf.len))
			continue;
		int n = 0;
		for (blki_first(&it); it.valid && n < 1000; blki_next(&it))
			n++;
		blki_seek(&it, bcmp_, (const uint8_t *)"key000100", 9);
		blki_seek_lt(&it, bcmp_, (const uint8_t *)"key000100", 9);
	}
	free(d);
	blki_free(&it);
	blkb_free(&bb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_and_seek),
	    cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
