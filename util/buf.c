/* buf.c — util_buf, the growable heap byte buffer, and varint coding. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void util_buf_init(util_buf *b) { b->data = NULL, b->len = b->cap = 0; }

void util_buf_free(util_buf *b)
{
	free(b->data);
	util_buf_init(b);
}

void util_buf_grow(util_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->data = util_xrealloc(b->data, cap);
	b->cap = cap;
}

void util_buf_puts(util_buf *b, const char *s) { util_buf_append(b, s, strlen(s)); }

void util_buf_vprintf(util_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)n < sizeof tmp) {
		util_buf_append(b, tmp, (size_t)n);
	} else {
		util_buf_reserve(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void util_buf_printf(util_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void util_buf_put_varint(util_buf *b, uint64_t v)
{
	uint8_t t[10];
	util_buf_append(b, t, util_varint_put(t, v));
}

char *util_buf_steal(util_buf *b, size_t *len)
{
	char *d = b->data ? b->data : util_xstrdup("");
	if (len)
		*len = b->len;
	util_buf_init(b);
	return d;
}

size_t util_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

size_t util_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	for (size_t i = 0; i < 10 && p + i < end; i++) {
		uint8_t c = p[i];
		if (i == 9 && c > 1)
			return 0; /* more than 64 bits */
		r |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = r;
			return i + 1;
		}
	}
	return 0;
}
