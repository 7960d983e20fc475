/*
 * str_keys.c — order-preserving key encodings of the string-area types
 * (docs/key-encoding-strings.md):
 *   text, varchar, name, bytea: the bytes with 0x00 written as 0x00 0xff,
 *     then the terminator 0x00 0x01 (sorts before any continuation, so a
 *     prefix sorts first; self-delimiting; DESC inversion keeps it so);
 *   bpchar: the same after stripping trailing spaces (lossy: padding);
 *   "char": the byte itself (unsigned order);
 *   uuid: the 16 bytes (memcmp order is uuid_cmp order).
 */
#include "str_int.h"

#define ESC      0x00
#define ESC_ZERO 0xff
#define ESC_END  0x01

static void enc_bytes(const uint8_t *s, size_t n, util_buf *out)
{
	util_buf_reserve(out, n + 2);
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != 0)
			continue;
		util_buf_append(out, s + run, i - run);
		util_buf_put_u8(out, ESC);
		util_buf_put_u8(out, ESC_ZERO);
		run = i + 1;
	}
	util_buf_append(out, s + run, n - run);
	util_buf_put_u8(out, ESC);
	util_buf_put_u8(out, ESC_END);
}

void ty_str_key_text_enc(ty_datum v, util_buf *out)
{
	enc_bytes((const uint8_t *)ty_str_p(v), v.len, out);
}

void ty_str_key_bpchar_enc(ty_datum v, util_buf *out)
{
	const char *s = ty_str_p(v);
	enc_bytes((const uint8_t *)s, ty_str_rtrim_len(s, v.len), out);
}

size_t ty_str_key_text_dec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	/* First pass: find the terminator and the decoded length. */
	size_t n = 0;
	const uint8_t *q = p;
	for (;;) {
		if (q >= end)
			return 0;
		if (*q != ESC) {
			q++;
			n++;
			continue;
		}
		if (q + 1 >= end)
			return 0;
		if (q[1] == ESC_END)
			break;
		if (q[1] != ESC_ZERO)
			return 0;
		q += 2;
		n++;
	}
	uint8_t *r = ty_alloc(n ? n : 1);
	size_t k = 0;
	for (const uint8_t *s = p; s < q;) {
		if (*s == ESC) {
			r[k++] = 0;
			s += 2;
		} else {
			r[k++] = *s++;
		}
	}
	*out = ty_bytes(r, n);
	return (size_t)(q + 2 - p);
}

void ty_str_key_char_enc(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, (uint8_t)v.i);
}

size_t ty_str_key_char_dec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (p >= end)
		return 0;
	*out = ty_int(p[0]);
	return 1;
}

void ty_str_key_uuid_enc(ty_datum v, util_buf *out)
{
	util_buf_append(out, ty_str_p(v), 16);
}

size_t ty_str_key_uuid_dec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 16)
		return 0;
	*out = ty_datum_copy(ty_bytes(p, 16), false);
	return 16;
}
