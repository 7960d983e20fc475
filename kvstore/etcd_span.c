/*
 * etcd_span.c — arithmetic on etcd keys read as base-256 fractions, for the
 * forward scans' guessed page ends (etcd_src.c, docs/scale-out.md "Long
 * scans"). A span is a width in that key space, a 64-bit count of units of
 * one byte position (a floating point number whose exponent is a byte
 * index), so it fits the keys wherever they vary: an integer key's last
 * bytes or a text key's first. Pure functions, no etcd.
 */
#include <string.h>

#include "ekv.h"

/* Mantissas are kept in [SPAN_LO, SPAN_HI) where the byte index allows:
 * precise to one part in 2^32 and exact in a double. */
#define SPAN_LO (1.0 * (1ull << 32))
#define SPAN_HI (1.0 * (1ull << 52))
/* Keys are far shorter; this only bounds a span shrunk without end. */
#define SPAN_MAX_AT 4096

/* Bytes [at, at + 8) of k as a big-endian number, zero padded. */
static uint64_t window(const uint8_t *k, size_t n, size_t at)
{
	uint64_t v = 0;
	for (size_t i = at; i < at + 8; i++)
		v = v << 8 | (i < n ? k[i] : 0);
	return v;
}

static ekv_span normalise(size_t at, double w)
{
	ekv_span s = {0};
	if (w < 1)
		w = 1;
	while (w >= SPAN_HI) {
		if (at == 0) {
			if (w >= 0x1p64) {
				s.all = true;
				return s;
			}
			break;
		}
		w /= 256;
		at--;
	}
	while (w < SPAN_LO && at < SPAN_MAX_AT) {
		w *= 256;
		at++;
	}
	s.at = at;
	s.w = (uint64_t)w;
	if (!s.w)
		s.w = 1;
	return s;
}

ekv_span ekv_span_between(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t m = 0;
	while (m < alen && m < blen && a[m] == b[m])
		m++;
	uint64_t x = window(a, alen, m), y = window(b, blen, m);
	return normalise(m, y > x ? (double)(y - x) : 1);
}

ekv_span ekv_span_scale(ekv_span s, double f)
{
	if (s.all)
		return s;
	return normalise(s.at, (double)s.w * f);
}

bool ekv_span_add(const uint8_t *k, size_t klen, ekv_span s, util_buf *out)
{
	util_buf_reset(out);
	if (s.all)
		return false;
	size_t n = s.at + 8;
	for (size_t i = 0; i < n; i++)
		util_buf_putc(out, i < klen ? (char)k[i] : 0);
	uint8_t *d = (uint8_t *)out->data;
	uint64_t v = window(d, n, s.at), sum = v + s.w;
	util_put_be64(d + s.at, sum);
	if (sum >= v)
		return true;
	/* Carry into the bytes before the window. */
	for (size_t i = s.at; i > 0; i--) {
		if (++d[i - 1])
			return true;
	}
	return false; /* past every key */
}
