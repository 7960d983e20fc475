/*
 * str_utf8.c — UTF-8 validation with PostgreSQL's rules and error text
 * (pg_verify_mbstr / report_invalid_encoding), character counting and
 * character-boundary clipping used by every text function.
 */
#include "str_int.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid character at s (n bytes left), or 0 if invalid.
 * PostgreSQL's pg_utf8_islegal: no overlongs, no surrogates, <= U+10FFFF;
 * NUL is rejected too (text cannot hold it). */
static int valid_char(const uint8_t *s, size_t n)
{
	uint8_t a = s[0];
	if (a < 0x80)
		return a ? 1 : 0;
	int l = ty_str_mblen(a);
	if ((size_t)l > n || l == 1)
		return 0;
	uint8_t b = s[1];
	switch (l) {
	case 4:
		if (s[3] < 0x80 || s[3] > 0xbf)
			return 0;
		/* fall through */
	case 3:
		if (s[2] < 0x80 || s[2] > 0xbf)
			return 0;
		/* fall through */
	default:
		break;
	}
	switch (a) {
	case 0xe0:
		if (b < 0xa0 || b > 0xbf)
			return 0;
		break;
	case 0xed:
		if (b < 0x80 || b > 0x9f)
			return 0;
		break;
	case 0xf0:
		if (b < 0x90 || b > 0xbf)
			return 0;
		break;
	case 0xf4:
		if (b < 0x80 || b > 0x8f)
			return 0;
		break;
	default:
		if (b < 0x80 || b > 0xbf)
			return 0;
		break;
	}
	if (l == 2 && a < 0xc2)
		return 0;
	if (l == 4 && a > 0xf4)
		return 0;
	return l;
}

size_t ty_str_valid_utf8_prefix(const char *str, size_t n)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < n) {
		/* ASCII runs are the common case. */
		if (s[i] && s[i] < 0x80) {
			i++;
			continue;
		}
		int l = valid_char(s + i, n - i);
		if (!l)
			return i;
		i += (size_t)l;
	}
	return n;
}

void ty_str_verify_utf8(const char *str, size_t n)
{
	size_t ok = ty_str_valid_utf8_prefix(str, n);
	if (ok == n)
		return;
	const uint8_t *s = (const uint8_t *)str + ok;
	size_t l = (size_t)ty_str_mblen(s[0]);
	size_t lim = UTIL_MIN(l, n - ok);
	char buf[8 * 5 + 1];
	char *p = buf;
	for (size_t j = 0; j < lim; j++)
		p += sprintf(p, j + 1 < lim ? "0x%02x " : "0x%02x", s[j]);
	*p = '\0';
	ty_error(UTIL_E_CHARACTER_NOT_IN_REPERTOIRE, "invalid byte sequence for encoding \"UTF8\": %s", buf);
}

size_t ty_str_nchars(const char *str, size_t n)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t c = 0, i = 0;
	/* Count bytes that are not continuation bytes (top bits 10), 8 at a time
	 * (bulk loads measure every char(n) value): a byte's bit 7 set and
	 * its bit 6 (moved to bit 7 by the shift) clear. */
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		uint64_t cont = (x & ~(x << 1) & 0x8080808080808080ULL) >> 7;
		c += 8 - (size_t)((cont * 0x0101010101010101ULL) >> 56);
	}
	for (; i < n; i++)
		c += (s[i] & 0xc0) != 0x80;
	return c;
}

size_t ty_str_charclip(const char *str, size_t n, size_t maxchars)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < n && maxchars > 0) {
		size_t l = (size_t)ty_str_mblen(s[i]);
		if (i + l > n)
			break;
		i += l;
		maxchars--;
	}
	return i;
}

size_t ty_str_byteclip(const char *str, size_t n, size_t maxbytes)
{
	const uint8_t *s = (const uint8_t *)str;
	size_t i = 0;
	while (i < n) {
		size_t l = (size_t)ty_str_mblen(s[i]);
		if (i + l > maxbytes || i + l > n)
			break;
		i += l;
	}
	return i;
}

uint32_t ty_str_decode(const char *str, size_t n, int *len)
{
	const uint8_t *s = (const uint8_t *)str;
	int l = ty_str_mblen(s[0]);
	if ((size_t)l > n)
		l = 1;
	*len = l;
	switch (l) {
	case 1:
		return s[0];
	case 2:
		return ((uint32_t)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
	case 3:
		return ((uint32_t)(s[0] & 0x0f) << 12) | ((uint32_t)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
	default:
		return ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3f) << 12) |
		       ((uint32_t)(s[2] & 0x3f) << 6) | (s[3] & 0x3f);
	}
}

int ty_str_encode(uint32_t c, char *out)
{
	uint8_t *o = (uint8_t *)out;
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (uint8_t)(0xc0 | (c >> 6));
		o[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xe0 | (c >> 12));
		o[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
		o[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | (c >> 18));
	o[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3f));
	o[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
	o[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

int ty_str_memcmp(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = UTIL_MIN(an, bn);
	int c = memcmp(a, b, n);
	if (c) {
		/* The difference of the first differing bytes, as glibc's memcmp
		 * gives PostgreSQL (bttextcmp() shows it to SQL). */
		size_t i = 0;
		while (a[i] == b[i])
			i++;
		return (int)(uint8_t)a[i] - (int)(uint8_t)b[i];
	}
	return an < bn ? -1 : an > bn;
}

void ty_str_out_raw(ty_datum v, util_buf *out)
{
	util_buf_append(out, ty_str_p(v), v.len);
}

void ty_str_sb_append(ty_str_sb *b, const void *s, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		while (cap < b->len + n)
			cap *= 2;
		char *p = ty_alloc(cap);
		if (b->len)
			memcpy(p, b->p, b->len);
		b->p = p;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

void ty_str_sb_output(ty_str_sb *b, ty_oid type, ty_datum v)
{
	/* Output functions write to a heap buffer: free it if one throws. */
	util_buf tmp = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		ty_output(type, v, &tmp);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&tmp);
		ty_errthrow();
	}
	TY_END(c);
	ty_str_sb_append(b, tmp.data ? tmp.data : "", tmp.len);
	util_buf_free(&tmp);
}
