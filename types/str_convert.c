/*
 * str_convert.c — encoding conversions between bytea and text:
 * convert_from(bytea, name), convert_to(text, name), convert(bytea, name,
 * name) and length(bytea, name), for the encodings UTF8, SQL_ASCII and
 * LATIN1 (ISO 8859-1), with PostgreSQL's name matching (case and
 * punctuation ignored: 'latin-1', 'UTF-8', 'unicode') and error messages.
 * Other encodings are reported as unknown names.
 */
#include "str_int.h"

#include <ctype.h>
#include <stdio.h>

enum { ENC_UTF8, ENC_SQL_ASCII, ENC_LATIN1 };

static const char *const enc_names[] = {"UTF8", "SQL_ASCII", "LATIN1"};

/* PostgreSQL's clean_encoding_name: lower-case letters and digits only. */
static int lookup(const char *s, size_t n)
{
	char clean[64];
	size_t k = 0;
	for (size_t i = 0; i < n && k < sizeof clean - 1; i++)
		if (isalnum((unsigned char)s[i]))
			clean[k++] = (char)tolower((unsigned char)s[i]);
	clean[k] = '\0';
	static const struct {
		const char *name;
		int enc;
	} names[] = {{"utf8", ENC_UTF8},
		     {"unicode", ENC_UTF8},
		     {"sqlascii", ENC_SQL_ASCII},
		     {"latin1", ENC_LATIN1},
		     {"iso88591", ENC_LATIN1}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(names); i++)
		if (strcmp(clean, names[i].name) == 0)
			return names[i].enc;
	return -1;
}

static int encoding_arg(ty_fcinfo *fc, int i, const char *which)
{
	int e = lookup(STR_ARG(fc, i), STR_LEN(fc, i));
	if (e < 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid %s encoding name \"%.*s\"", which,
			 (int)STR_LEN(fc, i), STR_ARG(fc, i));
	return e;
}

/* Validates bytes in a source encoding (pg_verify_mbstr). */
static void verify(int enc, const char *s, size_t n)
{
	if (enc == ENC_UTF8) {
		ty_str_verify_utf8(s, n);
		return;
	}
	const char *z = memchr(s, 0, n);
	if (z)
		ty_error(UTIL_E_CHARACTER_NOT_IN_REPERTOIRE,
			 "invalid byte sequence for encoding \"%s\": 0x00", enc_names[enc]);
}

/* Converts s from src to dst; the result must then be valid in dst. */
static ty_datum convert(const char *s, size_t n, int src, int dst)
{
	verify(src, s, n);
	if (src == dst || src == ENC_SQL_ASCII || dst == ENC_SQL_ASCII) {
		/* no conversion: PostgreSQL only checks the bytes fit dst */
		if (src == ENC_SQL_ASCII && dst != ENC_SQL_ASCII)
			verify(dst, s, n);
		return ty_datum_copy(ty_bytes(s, n), false);
	}
	ty_str_sb out = {0};
	if (src == ENC_LATIN1) { /* -> UTF8 */
		for (size_t i = 0; i < n; i++) {
			char buf[4];
			int l = ty_str_encode((uint8_t)s[i], buf);
			ty_str_sb_append(&out, buf, (size_t)l);
		}
		return ty_str_sb_datum(&out);
	}
	/* UTF8 -> LATIN1 */
	for (size_t i = 0; i < n;) {
		int l;
		uint32_t c = ty_str_decode(s + i, n - i, &l);
		if (c > 0xff) {
			char bytes[8 * 5 + 1], *p = bytes;
			for (int j = 0; j < l; j++)
				p += sprintf(p, j + 1 < l ? "0x%02x " : "0x%02x", (uint8_t)s[i + j]);
			ty_error(UTIL_E_UNTRANSLATABLE_CHARACTER,
				 "character with byte sequence %s in encoding \"UTF8\" has no equivalent in "
				 "encoding "
				 "\"LATIN1\"",
				 bytes);
		}
		ty_str_sb_putc(&out, (char)c);
		i += (size_t)l;
	}
	return ty_str_sb_datum(&out);
}

static ty_datum f_convert_from(ty_fcinfo *fc)
{
	int src = encoding_arg(fc, 1, "source");
	return convert(STR_ARG(fc, 0), STR_LEN(fc, 0), src, ENC_UTF8);
}

static ty_datum f_convert_to(ty_fcinfo *fc)
{
	int dst = encoding_arg(fc, 1, "destination");
	return convert(STR_ARG(fc, 0), STR_LEN(fc, 0), ENC_UTF8, dst);
}

static ty_datum f_convert(ty_fcinfo *fc)
{
	int src = encoding_arg(fc, 1, "source");
	int dst = encoding_arg(fc, 2, "destination");
	return convert(STR_ARG(fc, 0), STR_LEN(fc, 0), src, dst);
}

static ty_datum f_length_in_encoding(ty_fcinfo *fc)
{
	int enc = lookup(STR_ARG(fc, 1), STR_LEN(fc, 1));
	if (enc < 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid encoding name \"%.*s\"",
			 (int)STR_LEN(fc, 1), STR_ARG(fc, 1));
	verify(enc, STR_ARG(fc, 0), STR_LEN(fc, 0));
	if (enc == ENC_UTF8)
		return ty_int((int64_t)ty_str_nchars(STR_ARG(fc, 0), STR_LEN(fc, 0)));
	return ty_int((int64_t)STR_LEN(fc, 0));
}

#define STABLE_FN(nm, id, rt, f, src, ...)                                                                   \
	{                                                                                                    \
		.name = nm, .nargs = (int)(sizeof((ty_oid[]){__VA_ARGS__}) / sizeof(ty_oid)),                \
		.args = {__VA_ARGS__}, .ret = rt, .fn = f, .volatility = TY_STABLE, .strict = true,          \
		.kind = 'f', .prosrc = src, .oid = id                                                        \
	}

static const ty_func convert_funcs[] = {
    STABLE_FN("convert_from", 1714, TY_TEXT, f_convert_from, "pg_convert_from", TY_BYTEA, TY_NAME),
    STABLE_FN("convert_to", 1717, TY_BYTEA, f_convert_to, "pg_convert_to", TY_TEXT, TY_NAME),
    STABLE_FN("convert", 1813, TY_BYTEA, f_convert, "pg_convert", TY_BYTEA, TY_NAME, TY_NAME),
    STABLE_FN("length", 1713, TY_INT4, f_length_in_encoding, "length_in_encoding", TY_BYTEA, TY_NAME),
};

void ty_str_register_convert(void)
{
	ty_func_register(convert_funcs, (int)UTIL_ARRAY_LEN(convert_funcs));
}
