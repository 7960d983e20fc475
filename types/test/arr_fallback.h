/*
 * arr_fallback.h — test scaffolding for the json/arrays tests: minimal
 * int4, int8, text and bool types, registered only when the areas that own
 * them (numeric, string) have not registered theirs yet, so that array and
 * json tests can run before those areas land. Once the real types are on
 * main these stand-ins are never used. They implement just what the tests
 * feed them (PostgreSQL's syntax and messages for the inputs used).
 */
#ifndef ARR_FALLBACK_H
#define ARR_FALLBACK_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arr_int.h"

static inline ty_datum fb_int_in(const char *s, size_t n, int64_t lo, int64_t hi, const char *name)
{
	char *str = ty_strndup(s, n);
	const char *p = str;
	while (isspace((unsigned char)*p))
		p++;
	bool neg = false;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type %s: \"%s\"", name,
			 str);
	__int128 v = 0;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v > (__int128)hi + 1)
			v = (__int128)hi + 2;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type %s: \"%s\"", name,
			 str);
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value \"%s\" is out of range for type %s", str,
			 name);
	return ty_int((int64_t)v);
}

static inline ty_datum fb_int4_in(const char *s, size_t n, int32_t tm)
{
	(void)tm;
	return fb_int_in(s, n, INT32_MIN, INT32_MAX, "integer");
}
static inline ty_datum fb_int8_in(const char *s, size_t n, int32_t tm)
{
	(void)tm;
	return fb_int_in(s, n, INT64_MIN, INT64_MAX, "bigint");
}
static inline void fb_int_out(ty_datum v, util_buf *out)
{
	util_buf_printf(out, "%lld", (long long)v.i);
}
static inline int fb_int_cmp(ty_datum a, ty_datum b)
{
	return a.i < b.i ? -1 : a.i > b.i;
}
static inline uint64_t fb_int_hash(ty_datum a)
{
	return util_hash_mix((uint64_t)a.i);
}
static inline void fb_int4_send(ty_datum v, util_buf *out)
{
	util_buf_put_be32(out, (uint32_t)v.i);
}
static inline ty_datum fb_int4_recv(const uint8_t *p, size_t n, int32_t tm)
{
	(void)tm;
	if (n != 4)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_int((int32_t)util_get_be32(p));
}
static inline void fb_int8_send(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i);
}
static inline ty_datum fb_int8_recv(const uint8_t *p, size_t n, int32_t tm)
{
	(void)tm;
	if (n != 8)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_int((int64_t)util_get_be64(p));
}
static inline void fb_int_keyenc(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i ^ (1ull << 63));
}
static inline size_t fb_int_keydec(const uint8_t *p, const uint8_t *e, ty_datum *o)
{
	if (e - p < 8)
		return 0;
	*o = ty_int((int64_t)(util_get_be64(p) ^ (1ull << 63)));
	return 8;
}

static inline ty_datum fb_text_in(const char *s, size_t n, int32_t tm)
{
	(void)tm;
	return ty_textn(s, n);
}
static inline void fb_text_out(ty_datum v, util_buf *out)
{
	util_buf_append(out, v.p, v.len);
}
static inline int fb_text_cmp(ty_datum a, ty_datum b)
{
	int c = memcmp(a.p, b.p, a.len < b.len ? a.len : b.len);
	return c ? (c < 0 ? -1 : 1) : a.len < b.len ? -1 : a.len > b.len;
}
static inline uint64_t fb_text_hash(ty_datum a)
{
	return util_hash64(a.p, a.len, 7);
}
static inline ty_datum fb_text_recv(const uint8_t *p, size_t n, int32_t tm)
{
	(void)tm;
	return ty_textn((const char *)p, n);
}
static inline void fb_text_keyenc(ty_datum v, util_buf *out)
{
	const uint8_t *p = v.p;
	for (uint32_t i = 0; i < v.len; i++) {
		util_buf_put_u8(out, p[i]);
		if (p[i] == 0)
			util_buf_put_u8(out, 0xff);
	}
	util_buf_put_u8(out, 0);
	util_buf_put_u8(out, 1);
}
static inline size_t fb_text_keydec(const uint8_t *p, const uint8_t *e, ty_datum *o)
{
	char *buf = ty_alloc((size_t)(e - p) + 1);
	size_t n = 0;
	const uint8_t *q = p;
	while (q + 1 < e) {
		if (q[0] == 0 && q[1] == 1) {
			*o = ty_bytes(buf, n);
			return (size_t)(q + 2 - p);
		}
		if (q[0] == 0) {
			buf[n++] = 0;
			q += 2;
		} else {
			buf[n++] = (char)*q++;
		}
	}
	return 0;
}

static inline ty_datum fb_bool_in(const char *s, size_t n, int32_t tm)
{
	(void)tm;
	char *str = ty_strndup(s, n);
	char *p = str;
	while (isspace((unsigned char)*p))
		p++;
	size_t l = strlen(p);
	while (l && isspace((unsigned char)p[l - 1]))
		l--;
	static const struct {
		const char *word;
		size_t min;
		bool val;
	} words[] = {{"true", 1, true}, {"false", 1, false}, {"yes", 1, true}, {"no", 1, false},
		     {"on", 2, true},   {"off", 2, false},   {"1", 1, true},   {"0", 1, false}};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (l >= words[i].min && l <= strlen(words[i].word) && strncasecmp(p, words[i].word, l) == 0)
			return ty_bool(words[i].val);
	ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type boolean: \"%s\"", str);
}
static inline void fb_bool_out(ty_datum v, util_buf *out)
{
	util_buf_puts(out, v.i ? "t" : "f");
}
static inline void fb_bool_send(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, v.i ? 1 : 0);
}
static inline ty_datum fb_bool_recv(const uint8_t *p, size_t n, int32_t tm)
{
	(void)tm;
	if (n != 1)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_bool(p[0] != 0);
}

static const ty_type fb_types[] = {
    {.oid = TY_INT4,
     .name = "int4",
     .sqlname = "integer",
     .len = 4,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'i',
     .array = TY_INT4_ARRAY,
     .in = fb_int4_in,
     .out = fb_int_out,
     .recv = fb_int4_recv,
     .send = fb_int4_send,
     .cmp = fb_int_cmp,
     .hash = fb_int_hash,
     .keyenc = fb_int_keyenc,
     .keydec = fb_int_keydec},
    {.oid = TY_INT8,
     .name = "int8",
     .sqlname = "bigint",
     .len = 8,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'd',
     .array = TY_INT8_ARRAY,
     .in = fb_int8_in,
     .out = fb_int_out,
     .recv = fb_int8_recv,
     .send = fb_int8_send,
     .cmp = fb_int_cmp,
     .hash = fb_int_hash,
     .keyenc = fb_int_keyenc,
     .keydec = fb_int_keydec},
    {.oid = TY_TEXT,
     .name = "text",
     .len = -1,
     .category = 'S',
     .preferred = true,
     .typtype = 'b',
     .align = 'i',
     .array = TY_TEXT_ARRAY,
     .in = fb_text_in,
     .out = fb_text_out,
     .recv = fb_text_recv,
     .send = fb_text_out,
     .cmp = fb_text_cmp,
     .hash = fb_text_hash,
     .keyenc = fb_text_keyenc,
     .keydec = fb_text_keydec},
    {.oid = TY_BOOL,
     .name = "bool",
     .sqlname = "boolean",
     .len = 1,
     .byval = true,
     .category = 'B',
     .preferred = true,
     .typtype = 'b',
     .align = 'c',
     .array = TY_BOOL_ARRAY,
     .in = fb_bool_in,
     .out = fb_bool_out,
     .recv = fb_bool_recv,
     .send = fb_bool_send,
     .cmp = fb_int_cmp,
     .hash = fb_int_hash,
     .keyenc = fb_int_keyenc,
     .keydec = fb_int_keydec},
};

/* ty_init(), then stand-ins for element types nobody registered yet. */
static inline void fb_init(void)
{
	ty_init();
	for (size_t i = 0; i < sizeof fb_types / sizeof fb_types[0]; i++) {
		if (ty_type_get(fb_types[i].oid))
			continue;
		ty_type_register(&fb_types[i]);
		arr_register_array_of(fb_types[i].oid);
	}
}

#endif /* ARR_FALLBACK_H */
