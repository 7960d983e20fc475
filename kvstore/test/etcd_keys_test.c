/*
 * etcd_keys_test.c — the etcd backend's key encoding (etcd_keys.c): etcd's
 * byte order of encoded cell keys must equal the store's cell order (ikey
 * comparator) for random cells, including rows, families and qualifiers
 * that contain 0x00 and 0xff and are prefixes of each other, and keys must
 * decode back to the same cell. Also the synthetic seek keys the scanner
 * builds (row || 0x00, ts = max). No etcd needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

static uint32_t rs = 12345;
static uint32_t rnd(uint32_t n)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 8) % n;
}

/* Short strings over a tiny alphabet so that prefixes and ties are common. */
static size_t rstr(uint8_t *p, size_t max)
{
	static const uint8_t alpha[] = {0x00, 0x01, 'a', 0xfe, 0xff};
	size_t n = rnd((uint32_t)max + 1);
	for (size_t i = 0; i < n; i++)
		p[i] = alpha[rnd(sizeof alpha)];
	return n;
}

typedef struct kc {
	util_buf ik, ek;
} kc;

static int sgn(int x)
{
	return (x > 0) - (x < 0);
}

static void test_order_and_roundtrip(void **state)
{
	(void)state;
	enum { N = 400 };
	kc *k = calloc(N, sizeof *k);
	for (int i = 0; i < N; i++) {
		uint8_t row[6], fam[3], q[6];
		size_t rl = rstr(row, 5), fl = 1 + rnd(2), ql = rstr(q, 5);
		for (size_t j = 0; j < fl; j++)
			fam[j] = (uint8_t) "ab"[rnd(2)];
		kv_ts ts = rnd(4) == 0 ? KV_TS_MAX : rnd(5);
		uint8_t type = (uint8_t)(rnd(2) ? KV_PUT : KV_DELETE_FAMILY);
		util_buf_reserve(&k[i].ik, ikey_size(rl, fl, ql));
		k[i].ik.len = ikey_encode((uint8_t *)k[i].ik.data, row, rl, fam, fl, q, ql, ts, type);
		ekv_from_ikey(&k[i].ek, (const uint8_t *)k[i].ik.data, k[i].ik.len);
		/* Round trip. */
		util_buf back = UTIL_BUF_INIT;
		assert_true(ekv_to_ikey((const uint8_t *)k[i].ek.data, k[i].ek.len, &back));
		assert_int_equal(back.len, k[i].ik.len);
		assert_memory_equal(back.data, k[i].ik.data, back.len);
		util_buf_free(&back);
	}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			int a = ikey_cmp((const uint8_t *)k[i].ik.data, k[i].ik.len,
					 (const uint8_t *)k[j].ik.data, k[j].ik.len);
			int b = kv_slice_cmp((kv_slice){(const uint8_t *)k[i].ek.data, k[i].ek.len},
					     (kv_slice){(const uint8_t *)k[j].ek.data, k[j].ek.len});
			assert_int_equal(sgn(a), sgn(b));
		}
	for (int i = 0; i < N; i++) {
		util_buf_free(&k[i].ik);
		util_buf_free(&k[i].ek);
	}
	free(k);
}

/* Every cell of row r sorts below the seek key "first cell of r || 0x00"
 * and the row-range bound esc(r) || "\x00\x02" (inclusive stop). */
static void test_row_bounds(void **state)
{
	(void)state;
	for (int i = 0; i < 300; i++) {
		uint8_t row[8], q[6];
		size_t rl = rstr(row, 5), ql = rstr(q, 5);
		util_buf cell = UTIL_BUF_INIT, stop = UTIL_BUF_INIT, end = UTIL_BUF_INIT,
			 next = UTIL_BUF_INIT;
		ekv_from_cell(&cell, row, rl, "a", q, ql, rnd(9), KV_PUT);
		ekv_esc(&stop, row, rl);
		ekv_prefix_end((const uint8_t *)stop.data, stop.len, &end);
		kv_slice c = {(const uint8_t *)cell.data, cell.len};
		assert_true(kv_slice_cmp(c, (kv_slice){(const uint8_t *)stop.data, stop.len}) > 0);
		assert_true(kv_slice_cmp(c, (kv_slice){(const uint8_t *)end.data, end.len}) < 0);
		/* The next row (row || 0x00) starts at or after the end. */
		row[rl] = 0;
		ekv_esc(&next, row, rl + 1);
		assert_true(kv_slice_cmp((kv_slice){(const uint8_t *)next.data, next.len},
					 (kv_slice){(const uint8_t *)end.data, end.len}) >= 0);
		util_buf_free(&cell);
		util_buf_free(&stop);
		util_buf_free(&end);
		util_buf_free(&next);
	}
}

static void test_malformed(void **state)
{
	(void)state;
	util_buf ik = UTIL_BUF_INIT;
	const uint8_t bad1[] = {'a', 0x00};            /* cut inside an escape */
	const uint8_t bad2[] = {'a', 0x00, 0x07, 'b'}; /* unknown escape */
	const uint8_t bad3[] = {'a', 0x00, 0x01, 'f'}; /* no family terminator */
	assert_false(ekv_to_ikey(bad1, sizeof bad1, &ik));
	assert_false(ekv_to_ikey(bad2, sizeof bad2, &ik));
	assert_false(ekv_to_ikey(bad3, sizeof bad3, &ik));
	util_buf_free(&ik);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_roundtrip),
	    cmocka_unit_test(test_row_bounds),
	    cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
