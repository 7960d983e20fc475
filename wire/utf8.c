/* utf8.c — UTF-8 validation of client strings, reporting PostgreSQL's 22021 error text. */
#include "pgw_int.h"

#include <stdio.h>

/* Length of the valid character at s (n bytes available), 0 if invalid.
 * The ranges are those of RFC 3629 (and PostgreSQL's pg_utf8_islegal). */
static size_t utf8_char(const uint8_t *s, size_t n)
{
	uint8_t c = s[0];
	if (c < 0x80)
		return c ? 1 : 0;
	size_t len;
	uint8_t lo = 0x80, hi = 0xbf;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t pgw_utf8_valid_prefix(const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* ASCII fast path, 8 bytes at a time. */
		while (i + 8 <= n) {
			uint64_t w;
			__builtin_memcpy(&w, s + i, 8);
			if ((w & 0x8080808080808080ULL) ||
			    ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		size_t l = utf8_char(s + i, n - i);
		if (!l)
			break;
		i += l;
	}
	return i;
}

int pgw_utf8_check(const void *str, size_t n, util_err *err)
{
	const uint8_t *s = str;
	size_t ok = pgw_utf8_valid_prefix(s, n);
	if (ok == n)
		return 0;
	/* Like report_invalid_encoding(): as many bytes as the first byte
	 * announces, bounded by what is left. */
	const uint8_t *b = s + ok;
	size_t want = (b[0] & 0xe0) == 0xc0 ? 2 : (b[0] & 0xf0) == 0xe0 ? 3 : (b[0] & 0xf8) == 0xf0 ? 4 : 1;
	size_t left = n - ok;
	if (want > left)
		want = left;
	char hex[8 * 5 + 1];
	size_t o = 0;
	for (size_t j = 0; j < want; j++)
		o += (size_t)snprintf(hex + o, sizeof hex - o, j ? " 0x%02x" : "0x%02x", b[j]);
	return util_err_set(err, UTIL_E_CHARACTER_NOT_IN_REPERTOIRE,
			    "invalid byte sequence for encoding \"UTF8\": %s", hex);
}
