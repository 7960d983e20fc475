/*
 * etcd_span_test.c — key-space spans for the etcd scans' guessed page ends
 * (etcd_span.c): a key plus a span is always a greater key (the scan's
 * ranges never stand still or go back), carries run into earlier bytes
 * and past the last key is reported, the span between two keys added back
 * gives the second key, and scaling keeps proportions over integer keys.
 * No etcd needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

static uint32_t rs = 4242;
static uint32_t rnd(uint32_t n)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 8) % n;
}

/* Keys over a small alphabet with 0x00 and 0xff, so that prefixes, runs of
 * 0xff (carries) and trailing zeros are common. */
static size_t rkey(uint8_t *p, size_t max)
{
	static const uint8_t alpha[] = {0x00, 0x01, 0x7f, 0xfe, 0xff};
	size_t n = rnd((uint32_t)max + 1);
	for (size_t i = 0; i < n; i++)
		p[i] = alpha[rnd(sizeof alpha)];
	return n;
}

static int kcmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	return c ? c : (an > bn) - (an < bn);
}

static void test_add_is_greater(void **st)
{
	(void)st;
	util_buf o1 = UTIL_BUF_INIT, o2 = UTIL_BUF_INIT;
	for (int it = 0; it < 20000; it++) {
		uint8_t k[24];
		size_t n = rkey(k, sizeof k);
		ekv_span raw = {.at = rnd(20), .w = 1 + ((uint64_t)rnd(1u << 30) << rnd(34))};
		if (!ekv_span_add(k, n, raw, &o1))
			continue;
		assert_true(kcmp((uint8_t *)o1.data, o1.len, k, n) > 0);
		/* A span at least twice as wide ends no earlier (spans as the scan
		 * makes them: normalised by ekv_span_scale). */
		ekv_span s = ekv_span_scale(raw, 1);
		if (!ekv_span_add(k, n, s, &o1))
			continue;
		assert_true(kcmp((uint8_t *)o1.data, o1.len, k, n) > 0);
		ekv_span s2 = ekv_span_scale(s, 2 + rnd(1000));
		if (ekv_span_add(k, n, s2, &o2))
			assert_true(kcmp((uint8_t *)o2.data, o2.len, (uint8_t *)o1.data, o1.len) >= 0);
	}
	util_buf_free(&o1);
	util_buf_free(&o2);
}

static void test_carry(void **st)
{
	(void)st;
	util_buf o = UTIL_BUF_INIT;
	const uint8_t k[] = {0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x10};
	ekv_span s = {.at = 2, .w = 1};
	/* Bytes 2..9 are all 0xff: one unit carries into byte 1 and then 0. */
	assert_true(ekv_span_add(k, sizeof k, s, &o));
	const uint8_t want[] = {0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
	assert_int_equal(o.len, sizeof want);
	assert_memory_equal(o.data, want, sizeof want);
	const uint8_t top[] = {0xff, 0xff, 0xff};
	assert_false(ekv_span_add(top, sizeof top, (ekv_span){.at = 0, .w = 1ull << 48}, &o));
	/* Wider than the key space. */
	ekv_span all = ekv_span_scale((ekv_span){.at = 0, .w = 1ull << 60}, 64);
	assert_true(all.all);
	assert_false(ekv_span_add(k, sizeof k, all, &o));
	util_buf_free(&o);
}

/* Bytes [at, at + 8) of k, zero padded. */
static uint64_t win(const uint8_t *k, size_t n, size_t at)
{
	uint64_t v = 0;
	for (size_t i = at; i < at + 8; i++)
		v = v << 8 | (i < n ? k[i] : 0);
	return v;
}

/* a + (b - a) is b up to zero padding and rounding (spans keep 52 bits)
 * whenever the keys end within the eight bytes after their first
 * difference. */
static void test_between_adds_back(void **st)
{
	(void)st;
	util_buf o = UTIL_BUF_INIT;
	int tried = 0;
	for (int it = 0; it < 20000; it++) {
		uint8_t a[12], b[12];
		size_t an = rkey(a, sizeof a), bn = rkey(b, sizeof b);
		int c = kcmp(a, an, b, bn);
		if (!c)
			continue;
		if (c > 0) {
			uint8_t t[12];
			size_t tn = an;
			memcpy(t, a, an);
			memcpy(a, b, bn);
			an = bn;
			memcpy(b, t, tn);
			bn = tn;
		}
		size_t m = 0;
		while (m < an && m < bn && a[m] == b[m])
			m++;
		if (an > m + 8 || bn > m + 8)
			continue;
		tried++;
		ekv_span s = ekv_span_between(a, an, b, bn);
		if (!ekv_span_add(a, an, s, &o)) { /* rounded up past the top */
			for (size_t i = 0; i < m; i++)
				assert_int_equal(b[i], 0xff);
			continue;
		}
		assert_true(o.len >= m);
		assert_memory_equal(o.data, b, m);
		uint64_t want = win(b, bn, m), got = win((uint8_t *)o.data, o.len, m), from = win(a, an, m);
		uint64_t err = got > want ? got - want : want - got;
		assert_true(err <= (want - from) / (1ull << 40) + 256);
		if (want > from && want - from < (1ull << 52)) { /* exact */
			assert_memory_equal(o.data, b, bn);
			for (size_t i = bn; i < o.len; i++)
				assert_int_equal((uint8_t)o.data[i], 0);
		}
	}
	assert_true(tried > 1000);
	util_buf_free(&o);
}

/* Integer keys under a common prefix, as a table's rows are: the span of
 * a page of keys scaled by f lands f times as far, within rounding. */
static void test_scale_integer_keys(void **st)
{
	(void)st;
	util_buf o = UTIL_BUF_INIT;
	for (int it = 0; it < 2000; it++) {
		uint8_t a[16] = "/s/d/\1\2\3", b[16];
		uint64_t x = (uint64_t)rnd(1u << 30) << rnd(30), d = 1 + ((uint64_t)rnd(1u << 20) << rnd(12));
		uint64_t f = 1 + rnd(64);
		util_put_be64(a + 8, x);
		memcpy(b, a, 8);
		util_put_be64(b + 8, x + d);
		ekv_span s = ekv_span_scale(ekv_span_between(a, 16, b, 16), (double)f);
		assert_true(ekv_span_add(a, 16, s, &o));
		assert_true(o.len >= 16);
		assert_memory_equal(o.data, a, 8);
		uint64_t got = util_get_be64((uint8_t *)o.data + 8), want = x + d * f;
		uint64_t err = got > want ? got - want : want - got;
		assert_true(err <= want / (1u << 20) + 1);
	}
	/* Shrinking far below one key's unit stays a positive span. */
	ekv_span tiny = ekv_span_scale((ekv_span){.at = 3, .w = 1ull << 40}, 1e-300);
	assert_false(tiny.all);
	assert_true(tiny.w >= 1);
	uint8_t k[] = {1, 2, 3};
	assert_true(ekv_span_add(k, sizeof k, tiny, &o));
	assert_true(kcmp((uint8_t *)o.data, o.len, k, sizeof k) > 0);
	util_buf_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_add_is_greater),
	    cmocka_unit_test(test_carry),
	    cmocka_unit_test(test_between_adds_back),
	    cmocka_unit_test(test_scale_integer_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
