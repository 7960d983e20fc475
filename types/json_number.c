/*
 * json_number.c — jsonb numbers. jsonb keeps a number as the text
 * numeric_out would print for numeric_in(token) ("1.0e2" -> "100",
 * "1.50" -> "1.50", "-0" -> "0"), which is exact and needs no numeric
 * library; comparison and hashing work on that canonical text with
 * numeric's semantics (1.0 = 1). Range limits are numeric's: a weight above
 * 32767 base-10000 digits or a display scale above 16383 overflows.
 */
#include "json_int.h"

#include <limits.h>

static UTIL_NORETURN void overflow(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
}

static int64_t floor_div4(int64_t x)
{
	return x >= 0 ? x / 4 : -((-x + 3) / 4);
}

const char *json_number_canon(const char *s, size_t len, uint32_t *outlen)
{
	const char *e = s + len;
	bool neg = false;
	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	const char *ip = s;
	while (s < e && *s >= '0' && *s <= '9')
		s++;
	size_t intlen = (size_t)(s - ip);
	const char *fp = s;
	size_t fraclen = 0;
	if (s < e && *s == '.') {
		fp = ++s;
		while (s < e && *s >= '0' && *s <= '9')
			s++;
		fraclen = (size_t)(s - fp);
	}
	int64_t exp = 0;
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		bool eneg = false;
		if (s < e && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		for (; s < e && *s >= '0' && *s <= '9'; s++) {
			if (exp < (int64_t)INT_MAX * 4)
				exp = exp * 10 + (*s - '0');
		}
		if (eneg)
			exp = -exp;
		if (exp >= INT_MAX / 2 || exp <= -(INT_MAX / 2))
			overflow();
	}
	/* All digits as one string d[0..nd), the point after position pointpos. */
	size_t nd = intlen + fraclen;
	char *d = ty_alloc(nd + 1);
	memcpy(d, ip, intlen);
	memcpy(d + intlen, fp, fraclen);
	int64_t pointpos = (int64_t)intlen + exp;
	int64_t dscale = (int64_t)fraclen - exp;
	if (dscale < 0)
		dscale = 0;
	int64_t fz = -1;
	for (size_t i = 0; i < nd; i++)
		if (d[i] != '0') {
			fz = (int64_t)i;
			break;
		}
	if (dscale > 0x3fff)
		overflow();
	if (fz >= 0 && floor_div4(pointpos - fz - 1) > 32767)
		overflow();
	if (fz < 0)
		neg = false;
	int64_t ilen = (fz >= 0 && pointpos > fz) ? pointpos - fz : 1;
	size_t cap = (size_t)(1 + ilen + 1 + dscale + 1);
	char *out = ty_alloc(cap);
	size_t o = 0;
	if (neg)
		out[o++] = '-';
	if (fz >= 0 && pointpos > fz) {
		for (int64_t p = fz; p < pointpos; p++)
			out[o++] = p < (int64_t)nd ? d[p] : '0';
	} else {
		out[o++] = '0';
	}
	if (dscale > 0) {
		out[o++] = '.';
		for (int64_t p = pointpos; p < pointpos + dscale; p++)
			out[o++] = (p >= 0 && p < (int64_t)nd) ? d[p] : '0';
	}
	out[o] = '\0';
	*outlen = (uint32_t)o;
	return out;
}

/* Splits canonical text into sign, integer digits and fraction digits. */
typedef struct parts {
	bool neg;
	const char *ip, *fp;
	size_t il, fl;
} parts;

static parts split(const char *s, size_t n)
{
	parts p = {0};
	const char *e = s + n;
	if (s < e && *s == '-') {
		p.neg = true;
		s++;
	}
	p.ip = s;
	while (s < e && *s != '.')
		s++;
	p.il = (size_t)(s - p.ip);
	if (s < e)
		s++;
	p.fp = s;
	p.fl = (size_t)(e - s);
	return p;
}

static bool all_zero(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '0')
			return false;
	return true;
}

static int cmp_abs(const parts *a, const parts *b)
{
	/* Integer parts have no leading zeros, except a lone "0". */
	size_t ail = (a->il == 1 && a->ip[0] == '0') ? 0 : a->il;
	size_t bil = (b->il == 1 && b->ip[0] == '0') ? 0 : b->il;
	if (ail != bil)
		return ail < bil ? -1 : 1;
	int c = memcmp(a->ip, b->ip, ail);
	if (c)
		return c < 0 ? -1 : 1;
	size_t n = UTIL_MAX(a->fl, b->fl);
	for (size_t i = 0; i < n; i++) {
		char x = i < a->fl ? a->fp[i] : '0', y = i < b->fl ? b->fp[i] : '0';
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int json_number_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	parts pa = split(a, alen), pb = split(b, blen);
	bool za = all_zero(pa.ip, pa.il) && all_zero(pa.fp, pa.fl);
	bool zb = all_zero(pb.ip, pb.il) && all_zero(pb.fp, pb.fl);
	if (za)
		pa.neg = false;
	if (zb)
		pb.neg = false;
	if (pa.neg != pb.neg)
		return pa.neg ? -1 : 1;
	int c = cmp_abs(&pa, &pb);
	return pa.neg ? -c : c;
}

uint64_t json_number_hash(const char *s, size_t n)
{
	parts p = split(s, n);
	size_t fl = p.fl;
	while (fl && p.fp[fl - 1] == '0')
		fl--;
	bool zero = all_zero(p.ip, p.il) && fl == 0;
	uint64_t h = util_hash64(p.ip, p.il, (p.neg && !zero) ? 0x2d : 0x2b);
	return util_hash64(p.fp, fl, h);
}
