/*
 * str_int.h — private to the string area of types/ (str_*.c, regex_*.c):
 * UTF-8 helpers, argument accessors, the per-file registration tables and
 * the helpers files share (text comparison, bpchar padding rules).
 *
 * Strata supports the "C" collation only: text compares by bytes (UTF-8
 * byte order equals code point order) and case mapping / character classes
 * are ASCII-only, exactly like PostgreSQL with COLLATE "C".
 */
#ifndef STRATA_STR_INT_H
#define STRATA_STR_INT_H

#include "types_int.h"
#include "ty_strings.h"

#include <string.h>

/* The bytes of a by-reference datum; never NULL (empty datums may carry
 * p == NULL, and memcmp/memcpy must not see NULL). */
static inline const char *ty_str_p(ty_datum d)
{
	return d.p ? (const char *)d.p : "";
}
#define STR_ARG(fc, i) ty_str_p((fc)->args[i])
#define STR_LEN(fc, i) ((size_t)(fc)->args[i].len)
#define INT_ARG(fc, k) ((fc)->args[k].i)

/* A function table entry: immutable, strict, plain function; nargs is
 * counted from the argument list. */
#define TY_STR_FN(nm, id, rt, f, src, ...)                                                                   \
	{                                                                                                    \
		.name = nm, .nargs = (int)(sizeof((ty_oid[]){__VA_ARGS__}) / sizeof(ty_oid)),                \
		.args = {__VA_ARGS__}, .ret = rt, .fn = f, .volatility = TY_IMMUTABLE, .strict = true,       \
		.kind = 'f', .prosrc = src, .oid = id                                                        \
	}

#define TY_STR_OP(nm, id, l, r, res, f, com, neg)                                                            \
	{                                                                                                    \
		.name = nm, .left = l, .right = r, .result = res, .func = f, .commutator = com,              \
		.negator = neg, .oid = id                                                                    \
	}

/* ---------------------------------------------------------------- UTF-8 (str_utf8.c) */

/* Byte length of the character starting with lead byte c (PostgreSQL's
 * pg_utf_mblen: 1 for invalid lead bytes). */
static inline int ty_str_mblen(uint8_t c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		return 2;
	if ((c & 0xf0) == 0xe0)
		return 3;
	if ((c & 0xf8) == 0xf0)
		return 4;
	return 1;
}

/* Throws 22021 `invalid byte sequence for encoding "UTF8": 0x..` at the
 * first invalid sequence or NUL byte, as pg_verify_mbstr. */
void ty_str_verify_utf8(const char *s, size_t n);
/* Length of the valid prefix (no NUL, no invalid sequence). */
size_t ty_str_valid_utf8_prefix(const char *s, size_t n);
/* Number of characters in valid UTF-8. */
size_t ty_str_nchars(const char *s, size_t n);
/* Bytes taken by the first maxchars characters (pg_mbcharcliplen). */
size_t ty_str_charclip(const char *s, size_t n, size_t maxchars);
/* The longest character-aligned prefix of at most maxbytes (pg_mbcliplen). */
size_t ty_str_byteclip(const char *s, size_t n, size_t maxbytes);
/* Decodes one character at s (valid UTF-8 with n > 0 bytes); sets *len. */
uint32_t ty_str_decode(const char *s, size_t n, int *len);
/* Encodes code point c; returns bytes written (1..4) into out[4]. */
int ty_str_encode(uint32_t c, char *out);
/* Length without trailing spaces (bpchar's significant length). */
static inline size_t ty_str_rtrim_len(const char *s, size_t n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}
static inline char ty_str_ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}
static inline char ty_str_ascii_upper(char c)
{
	return (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
}

/* ---------------------------------------------------------------- shared helpers */

/* Byte-order comparison (C collation). */
int ty_str_memcmp(const char *a, size_t an, const char *b, size_t bn);
/* A text result built in the current arena. */
static inline ty_datum ty_str_result(char *p, size_t n)
{
	return ty_bytes(p, n);
}
/* Output helpers: a text datum's bytes appended. */
void ty_str_out_raw(ty_datum v, util_buf *out);

/* md5 of bytes as 32 lower-case hex digits (text datum). */
ty_datum ty_str_md5_text(const void *p, size_t n);

/* substring by characters with PostgreSQL's rules for start < 1 and
 * negative lengths (22011); to_end ignores len. */
ty_datum ty_str_substring(ty_datum v, int64_t start, int64_t len, bool to_end);

/* A growable string in the current arena (ty_alloc): unlike a heap
 * util_buf it cannot leak when an error unwinds past it. */
typedef struct ty_str_sb {
	char *p;
	size_t len, cap;
} ty_str_sb;
void ty_str_sb_append(ty_str_sb *b, const void *s, size_t n);
static inline void ty_str_sb_putc(ty_str_sb *b, char c)
{
	ty_str_sb_append(b, &c, 1);
}
static inline ty_datum ty_str_sb_datum(const ty_str_sb *b)
{
	return ty_bytes(b->p ? b->p : "", b->len);
}
/* Appends the text output of v (type's output function). */
void ty_str_sb_output(ty_str_sb *b, ty_oid type, ty_datum v);

/* Per-file tables registered by ty_register_strings(). */
void ty_str_register_text(void);
void ty_str_register_bytea(void);
void ty_str_register_uuid(void);
void ty_str_register_like(void);
void ty_str_register_funcs(void);
void ty_str_register_format(void);
void ty_str_register_regexp(void);
void ty_str_register_agg(void);
void ty_str_register_convert(void);

/* Key encodings (str_keys.c). */
void ty_str_key_text_enc(ty_datum v, util_buf *out);
size_t ty_str_key_text_dec(const uint8_t *p, const uint8_t *end, ty_datum *out);
void ty_str_key_bpchar_enc(ty_datum v, util_buf *out);
void ty_str_key_char_enc(ty_datum v, util_buf *out);
size_t ty_str_key_char_dec(const uint8_t *p, const uint8_t *end, ty_datum *out);
void ty_str_key_uuid_enc(ty_datum v, util_buf *out);
size_t ty_str_key_uuid_dec(const uint8_t *p, const uint8_t *end, ty_datum *out);

#endif /* STRATA_STR_INT_H */
