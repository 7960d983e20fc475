/*
 * str_text.c — the character types: text, varchar(n), bpchar/char(n),
 * name and "char": text and binary I/O, typmods (length checks, padding,
 * truncation on explicit casts), comparison in the C collation, hashing,
 * the casts between them, and their comparison operators.
 */
#include "str_int.h"

#include <stdio.h>

#define NAMEDATALEN     64
#define MAX_CHAR_TYPMOD 10485760

/* ---------------------------------------------------------------- text */

static ty_datum text_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	ty_str_verify_utf8(s, n);
	return ty_textn(s, n);
}

static ty_datum text_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	return text_in((const char *)p, n, typmod);
}

static int cmp_text(ty_datum a, ty_datum b)
{
	return ty_str_memcmp(ty_str_p(a), a.len, ty_str_p(b), b.len);
}

static uint64_t text_hash(ty_datum a)
{
	return util_hash64(ty_str_p(a), a.len, 0x7e57);
}

/* ---------------------------------------------------------------- varchar */

static ty_datum varchar_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	if (typmod < TY_VARHDRSZ)
		return v;
	size_t maxlen = (size_t)(typmod - TY_VARHDRSZ);
	const char *s = ty_str_p(v);
	if (v.len <= maxlen)
		return v;
	size_t clip = ty_str_charclip(s, v.len, maxlen);
	if (!explicit_cast)
		for (size_t i = clip; i < v.len; i++)
			if (s[i] != ' ')
				ty_error(UTIL_E_STRING_DATA_RIGHT_TRUNCATION,
					 "value too long for type character varying(%zu)", maxlen);
	return ty_bytes(s, clip);
}

static ty_datum varchar_in(const char *s, size_t n, int32_t typmod)
{
	return varchar_typmod(text_in(s, n, typmod), typmod, false);
}

static ty_datum varchar_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	return varchar_in((const char *)p, n, typmod);
}

static void char_typmod_out(int32_t typmod, util_buf *out)
{
	if (typmod >= TY_VARHDRSZ)
		util_buf_printf(out, "(%d)", typmod - TY_VARHDRSZ);
}

int32_t ty_char_typmod_in(ty_oid type, int64_t n)
{
	const char *tn = type == TY_VARCHAR ? "varchar" : "char";
	if (n < 1)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "length for type %s must be at least 1", tn);
	if (n > MAX_CHAR_TYPMOD)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "length for type %s cannot exceed %d", tn,
			 MAX_CHAR_TYPMOD);
	return (int32_t)n + TY_VARHDRSZ;
}

/* ---------------------------------------------------------------- bpchar */

/* PostgreSQL's bpchar(): pads to the declared length in characters; longer
 * values are an error unless the excess is spaces (or the cast is explicit),
 * and are then clipped. */
static ty_datum bpchar_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	if (typmod < TY_VARHDRSZ)
		return v;
	size_t maxlen = (size_t)(typmod - TY_VARHDRSZ);
	const char *s = ty_str_p(v);
	size_t len = v.len;
	size_t nchars = ty_str_nchars(s, len);
	if (nchars == maxlen)
		return v;
	size_t bytes;
	if (nchars > maxlen) {
		size_t clip = ty_str_charclip(s, len, maxlen);
		if (!explicit_cast)
			for (size_t i = clip; i < len; i++)
				if (s[i] != ' ')
					ty_error(UTIL_E_STRING_DATA_RIGHT_TRUNCATION,
						 "value too long for type character(%zu)", maxlen);
		len = bytes = clip;
	} else {
		bytes = len + (maxlen - nchars);
	}
	char *r = ty_alloc(bytes ? bytes : 1);
	memcpy(r, s, len);
	memset(r + len, ' ', bytes - len);
	return ty_bytes(r, bytes);
}

static ty_datum bpchar_in(const char *s, size_t n, int32_t typmod)
{
	return bpchar_typmod(text_in(s, n, typmod), typmod, false);
}

static ty_datum bpchar_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	return bpchar_in((const char *)p, n, typmod);
}

static int cmp_bpchar(ty_datum a, ty_datum b)
{
	const char *x = ty_str_p(a), *y = ty_str_p(b);
	return ty_str_memcmp(x, ty_str_rtrim_len(x, a.len), y, ty_str_rtrim_len(y, b.len));
}

static uint64_t bpchar_hash(ty_datum a)
{
	const char *x = ty_str_p(a);
	return util_hash64(x, ty_str_rtrim_len(x, a.len), 0x7e57);
}

/* ---------------------------------------------------------------- name */

static ty_datum name_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	ty_str_verify_utf8(s, n);
	if (n >= NAMEDATALEN)
		n = ty_str_byteclip(s, n, NAMEDATALEN - 1);
	return ty_textn(s, n);
}

static ty_datum name_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	(void)typmod;
	ty_str_verify_utf8((const char *)p, n);
	if (n >= NAMEDATALEN) {
		util_err *e = ty_errstart(UTIL_E_NAME_TOO_LONG, "identifier too long");
		util_err_detail(e, "Identifier must be less than %d characters.", NAMEDATALEN);
		ty_errthrow();
	}
	return ty_textn((const char *)p, n);
}

/* PostgreSQL compares names with strncmp over NUL-padded buffers, which
 * btnamecmp() shows: the byte difference, against NUL past the end. */
static int cmp_name(ty_datum a, ty_datum b)
{
	const char *x = ty_str_p(a), *y = ty_str_p(b);
	size_t n = UTIL_MIN(a.len, b.len);
	if (memcmp(x, y, n) != 0 || a.len == b.len)
		return ty_str_memcmp(x, a.len, y, b.len);
	return a.len > n ? (int)(uint8_t)x[n] : -(int)(uint8_t)y[n];
}

/* ---------------------------------------------------------------- "char" */

#define ISOCTAL(c) ((c) >= '0' && (c) <= '7')

static ty_datum char_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	if (n == 4 && s[0] == '\\' && ISOCTAL(s[1]) && ISOCTAL(s[2]) && ISOCTAL(s[3]))
		return ty_int((uint8_t)(((s[1] - '0') << 6) + ((s[2] - '0') << 3) + (s[3] - '0')));
	return ty_int(n ? (uint8_t)s[0] : 0);
}

/* PostgreSQL 15: bytes with the high bit set print as \ooo; 0 prints empty. */
static void char_out(ty_datum v, util_buf *out)
{
	uint8_t c = (uint8_t)v.i;
	if (c & 0x80)
		util_buf_printf(out, "\\%o%o%o", c >> 6, (c >> 3) & 7, c & 7);
	else if (c)
		util_buf_putc(out, (char)c);
}

static ty_datum char_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	(void)typmod;
	if (n < 1)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	if (n > 1)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_int(p[0]);
}

static void char_send(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, (uint8_t)v.i);
}

static int cmp_char(ty_datum a, ty_datum b)
{
	return (int)(uint8_t)a.i - (int)(uint8_t)b.i;
}

static uint64_t char_hash(ty_datum a)
{
	return util_hash_mix((uint8_t)a.i + 0x9e3779b97f4a7c15ULL);
}

/* ---------------------------------------------------------------- type table */

static const ty_type text_types[] = {
    {.oid = TY_TEXT,
     .name = "text",
     .len = -1,
     .category = 'S',
     .preferred = true,
     .typtype = 'b',
     .align = 'i',
     .array = TY_TEXT_ARRAY,
     .in = text_in,
     .out = ty_str_out_raw,
     .recv = text_recv,
     .send = ty_str_out_raw,
     .cmp = cmp_text,
     .hash = text_hash,
     .keyenc = ty_str_key_text_enc,
     .keydec = ty_str_key_text_dec,
     .input_name = "textin",
     .output_name = "textout"},
    {.oid = TY_VARCHAR,
     .name = "varchar",
     .sqlname = "character varying",
     .len = -1,
     .category = 'S',
     .typtype = 'b',
     .align = 'i',
     .array = TY_VARCHAR_ARRAY,
     .in = varchar_in,
     .out = ty_str_out_raw,
     .recv = varchar_recv,
     .send = ty_str_out_raw,
     .cmp = cmp_text,
     .hash = text_hash,
     .keyenc = ty_str_key_text_enc,
     .keydec = ty_str_key_text_dec,
     .typmod_apply = varchar_typmod,
     .typmod_out = char_typmod_out,
     .input_name = "varcharin",
     .output_name = "varcharout"},
    {.oid = TY_BPCHAR,
     .name = "bpchar",
     .sqlname = "character",
     .len = -1,
     .category = 'S',
     .typtype = 'b',
     .align = 'i',
     .array = TY_BPCHAR_ARRAY,
     .in = bpchar_in,
     .out = ty_str_out_raw,
     .recv = bpchar_recv,
     .send = ty_str_out_raw,
     .cmp = cmp_bpchar,
     .hash = bpchar_hash,
     .keyenc = ty_str_key_bpchar_enc,
     .keydec = ty_str_key_text_dec,
     .key_lossy = true,
     .typmod_apply = bpchar_typmod,
     .typmod_out = char_typmod_out,
     .input_name = "bpcharin",
     .output_name = "bpcharout"},
    {.oid = TY_NAME,
     .name = "name",
     .len = NAMEDATALEN,
     .category = 'S',
     .typtype = 'b',
     .align = 'c',
     .array = TY_NAME_ARRAY,
     .in = name_in,
     .out = ty_str_out_raw,
     .recv = name_recv,
     .send = ty_str_out_raw,
     .cmp = cmp_name,
     .hash = text_hash,
     .keyenc = ty_str_key_text_enc,
     .keydec = ty_str_key_text_dec,
     .input_name = "namein",
     .output_name = "nameout"},
    {.oid = TY_CHAR,
     .name = "char",
     .sqlname = "\"char\"",
     .len = 1,
     .byval = true,
     .category = 'Z',
     .typtype = 'b',
     .align = 'c',
     .array = TY_CHAR_ARRAY,
     .in = char_in,
     .out = char_out,
     .recv = char_recv,
     .send = char_send,
     .cmp = cmp_char,
     .hash = char_hash,
     .keyenc = ty_str_key_char_enc,
     .keydec = ty_str_key_char_dec,
     .input_name = "charin",
     .output_name = "charout"},
};

/* ---------------------------------------------------------------- comparison functions */

#define CMP_FUNCS(pfx, CMPF)                                                                                 \
	static ty_datum pfx##eq(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) == 0);                                         \
	}                                                                                                    \
	static ty_datum pfx##ne(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) != 0);                                         \
	}                                                                                                    \
	static ty_datum pfx##lt(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) < 0);                                          \
	}                                                                                                    \
	static ty_datum pfx##le(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) <= 0);                                         \
	}                                                                                                    \
	static ty_datum pfx##gt(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) > 0);                                          \
	}                                                                                                    \
	static ty_datum pfx##ge(ty_fcinfo *fc)                                                               \
	{                                                                                                    \
		return ty_bool(CMPF(fc->args[0], fc->args[1]) >= 0);                                         \
	}                                                                                                    \
	static ty_datum pfx##cmp(ty_fcinfo *fc)                                                              \
	{                                                                                                    \
		return ty_int(CMPF(fc->args[0], fc->args[1]));                                               \
	}

CMP_FUNCS(text_, cmp_text)
CMP_FUNCS(bpchar_, cmp_bpchar)
CMP_FUNCS(char_, cmp_char)
CMP_FUNCS(name_, cmp_name)

static ty_datum text_larger(ty_fcinfo *fc)
{
	return ty_datum_copy(cmp_text(fc->args[0], fc->args[1]) >= 0 ? fc->args[0] : fc->args[1], false);
}
static ty_datum text_smaller(ty_fcinfo *fc)
{
	return ty_datum_copy(cmp_text(fc->args[0], fc->args[1]) <= 0 ? fc->args[0] : fc->args[1], false);
}
static ty_datum bpchar_larger(ty_fcinfo *fc)
{
	return ty_datum_copy(cmp_bpchar(fc->args[0], fc->args[1]) >= 0 ? fc->args[0] : fc->args[1], false);
}
static ty_datum bpchar_smaller(ty_fcinfo *fc)
{
	return ty_datum_copy(cmp_bpchar(fc->args[0], fc->args[1]) <= 0 ? fc->args[0] : fc->args[1], false);
}

/* ---------------------------------------------------------------- casts */

static ty_datum f_rtrim1_text(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	return ty_textn(s, ty_str_rtrim_len(s, STR_LEN(fc, 0)));
}

static ty_datum f_copy(ty_fcinfo *fc)
{
	return ty_textn(STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum f_text_name(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	if (n >= NAMEDATALEN)
		n = ty_str_byteclip(s, n, NAMEDATALEN - 1);
	return ty_textn(s, n);
}

static ty_datum f_bpchar_name(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	if (n >= NAMEDATALEN)
		n = ty_str_byteclip(s, n, NAMEDATALEN - 1);
	return ty_textn(s, ty_str_rtrim_len(s, n));
}

static ty_datum f_char_text(ty_fcinfo *fc)
{
	util_buf b = UTIL_BUF_INIT;
	char_out(fc->args[0], &b);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

/* char_bpchar copies the byte as is (no \ooo form), as PostgreSQL. */
static ty_datum f_char_bpchar(ty_fcinfo *fc)
{
	char c = (char)fc->args[0].i;
	return ty_textn(&c, c ? 1 : 0);
}

static ty_datum f_text_char(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	if (n == 4 && s[0] == '\\' && ISOCTAL(s[1]) && ISOCTAL(s[2]) && ISOCTAL(s[3]))
		return char_in(s, n, -1);
	return ty_int(n ? (uint8_t)s[0] : 0);
}

static ty_datum f_i4tochar(ty_fcinfo *fc)
{
	int64_t v = fc->args[0].i;
	if (v < -128 || v > 127)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "\"char\" out of range");
	return ty_int((uint8_t)(int8_t)v);
}

static ty_datum f_chartoi4(ty_fcinfo *fc)
{
	return ty_int((int8_t)(uint8_t)fc->args[0].i);
}

static ty_datum f_bpchar_len(ty_fcinfo *fc)
{
	return bpchar_typmod(fc->args[0], (int32_t)fc->args[1].i, fc->args[2].i != 0);
}

static ty_datum f_varchar_len(ty_fcinfo *fc)
{
	return varchar_typmod(fc->args[0], (int32_t)fc->args[1].i, fc->args[2].i != 0);
}

/* ---------------------------------------------------------------- registration */

#define T    TY_TEXT
#define N    TY_NAME
#define B    TY_BPCHAR
#define C    TY_CHAR
#define V    TY_VARCHAR
#define BOOL TY_BOOL
#define I4   TY_INT4

static const ty_func text_funcs[] = {
    TY_STR_FN("texteq", 67, BOOL, text_eq, "texteq", T, T),
    TY_STR_FN("textne", 157, BOOL, text_ne, "textne", T, T),
    TY_STR_FN("text_lt", 740, BOOL, text_lt, "text_lt", T, T),
    TY_STR_FN("text_le", 741, BOOL, text_le, "text_le", T, T),
    TY_STR_FN("text_gt", 742, BOOL, text_gt, "text_gt", T, T),
    TY_STR_FN("text_ge", 743, BOOL, text_ge, "text_ge", T, T),
    TY_STR_FN("bttextcmp", 360, I4, text_cmp, "bttextcmp", T, T),
    TY_STR_FN("text_larger", 458, T, text_larger, "text_larger", T, T),
    TY_STR_FN("text_smaller", 459, T, text_smaller, "text_smaller", T, T),
    /* text_pattern_ops compare bytes, which is what the C collation does too */
    TY_STR_FN("text_pattern_lt", 2160, BOOL, text_lt, "text_pattern_lt", T, T),
    TY_STR_FN("text_pattern_le", 2161, BOOL, text_le, "text_pattern_le", T, T),
    TY_STR_FN("text_pattern_ge", 2163, BOOL, text_ge, "text_pattern_ge", T, T),
    TY_STR_FN("text_pattern_gt", 2164, BOOL, text_gt, "text_pattern_gt", T, T),
    TY_STR_FN("bttext_pattern_cmp", 2166, I4, text_cmp, "bttext_pattern_cmp", T, T),

    TY_STR_FN("bpchareq", 1048, BOOL, bpchar_eq, "bpchareq", B, B),
    TY_STR_FN("bpcharne", 1053, BOOL, bpchar_ne, "bpcharne", B, B),
    TY_STR_FN("bpcharlt", 1049, BOOL, bpchar_lt, "bpcharlt", B, B),
    TY_STR_FN("bpcharle", 1050, BOOL, bpchar_le, "bpcharle", B, B),
    TY_STR_FN("bpchargt", 1051, BOOL, bpchar_gt, "bpchargt", B, B),
    TY_STR_FN("bpcharge", 1052, BOOL, bpchar_ge, "bpcharge", B, B),
    TY_STR_FN("bpcharcmp", 1078, I4, bpchar_cmp, "bpcharcmp", B, B),
    TY_STR_FN("bpchar_larger", 1063, B, bpchar_larger, "bpchar_larger", B, B),
    TY_STR_FN("bpchar_smaller", 1064, B, bpchar_smaller, "bpchar_smaller", B, B),
    TY_STR_FN("bpchar_pattern_lt", 2174, BOOL, bpchar_lt, "bpchar_pattern_lt", B, B),
    TY_STR_FN("bpchar_pattern_le", 2175, BOOL, bpchar_le, "bpchar_pattern_le", B, B),
    TY_STR_FN("bpchar_pattern_ge", 2177, BOOL, bpchar_ge, "bpchar_pattern_ge", B, B),
    TY_STR_FN("bpchar_pattern_gt", 2178, BOOL, bpchar_gt, "bpchar_pattern_gt", B, B),
    TY_STR_FN("btbpchar_pattern_cmp", 2180, I4, bpchar_cmp, "btbpchar_pattern_cmp", B, B),

    TY_STR_FN("nameeq", 62, BOOL, name_eq, "nameeq", N, N),
    TY_STR_FN("namene", 659, BOOL, name_ne, "namene", N, N),
    TY_STR_FN("namelt", 655, BOOL, name_lt, "namelt", N, N),
    TY_STR_FN("namele", 656, BOOL, name_le, "namele", N, N),
    TY_STR_FN("namegt", 657, BOOL, name_gt, "namegt", N, N),
    TY_STR_FN("namege", 658, BOOL, name_ge, "namege", N, N),
    TY_STR_FN("btnamecmp", 359, I4, name_cmp, "btnamecmp", N, N),
    TY_STR_FN("nameeqtext", 240, BOOL, text_eq, "nameeqtext", N, T),
    TY_STR_FN("namenetext", 245, BOOL, text_ne, "namenetext", N, T),
    TY_STR_FN("namelttext", 241, BOOL, text_lt, "namelttext", N, T),
    TY_STR_FN("nameletext", 242, BOOL, text_le, "nameletext", N, T),
    TY_STR_FN("namegttext", 244, BOOL, text_gt, "namegttext", N, T),
    TY_STR_FN("namegetext", 243, BOOL, text_ge, "namegetext", N, T),
    TY_STR_FN("btnametextcmp", 246, I4, text_cmp, "btnametextcmp", N, T),
    TY_STR_FN("texteqname", 247, BOOL, text_eq, "texteqname", T, N),
    TY_STR_FN("textnename", 252, BOOL, text_ne, "textnename", T, N),
    TY_STR_FN("textltname", 248, BOOL, text_lt, "textltname", T, N),
    TY_STR_FN("textlename", 249, BOOL, text_le, "textlename", T, N),
    TY_STR_FN("textgtname", 251, BOOL, text_gt, "textgtname", T, N),
    TY_STR_FN("textgename", 250, BOOL, text_ge, "textgename", T, N),
    TY_STR_FN("bttextnamecmp", 253, I4, text_cmp, "bttextnamecmp", T, N),

    TY_STR_FN("chareq", 61, BOOL, char_eq, "chareq", C, C),
    TY_STR_FN("charne", 70, BOOL, char_ne, "charne", C, C),
    TY_STR_FN("charlt", 1246, BOOL, char_lt, "charlt", C, C),
    TY_STR_FN("charle", 72, BOOL, char_le, "charle", C, C),
    TY_STR_FN("chargt", 73, BOOL, char_gt, "chargt", C, C),
    TY_STR_FN("charge", 74, BOOL, char_ge, "charge", C, C),
    TY_STR_FN("btcharcmp", 358, I4, char_cmp, "btcharcmp", C, C),

    /* casts */
    TY_STR_FN("text", 401, T, f_rtrim1_text, "rtrim1", B),
    TY_STR_FN("text", 406, T, f_copy, "name_text", N),
    TY_STR_FN("text", 946, T, f_char_text, "char_text", C),
    TY_STR_FN("name", 407, N, f_text_name, "text_name", T),
    TY_STR_FN("name", 409, N, f_bpchar_name, "bpchar_name", B),
    TY_STR_FN("name", 1400, N, f_text_name, "text_name", V),
    TY_STR_FN("varchar", 1401, V, f_copy, "name_text", N),
    TY_STR_FN("varchar", 669, V, f_varchar_len, "varchar", V, I4, BOOL),
    TY_STR_FN("bpchar", 408, B, f_copy, "name_bpchar", N),
    TY_STR_FN("bpchar", 860, B, f_char_bpchar, "char_bpchar", C),
    TY_STR_FN("bpchar", 668, B, f_bpchar_len, "bpchar", B, I4, BOOL),
    TY_STR_FN("char", 944, C, f_text_char, "text_char", T),
    TY_STR_FN("char", 78, C, f_i4tochar, "i4tochar", I4),
    TY_STR_FN("int4", 77, I4, f_chartoi4, "chartoi4", C),
};

static const ty_operator text_ops[] = {
    TY_STR_OP("=", 98, T, T, BOOL, "texteq", "=", "<>"),
    TY_STR_OP("<>", 531, T, T, BOOL, "textne", "<>", "="),
    TY_STR_OP("<", 664, T, T, BOOL, "text_lt", ">", ">="),
    TY_STR_OP("<=", 665, T, T, BOOL, "text_le", ">=", ">"),
    TY_STR_OP(">", 666, T, T, BOOL, "text_gt", "<", "<="),
    TY_STR_OP(">=", 667, T, T, BOOL, "text_ge", "<=", "<"),
    TY_STR_OP("~<~", 2314, T, T, BOOL, "text_pattern_lt", "~>~", "~>=~"),
    TY_STR_OP("~<=~", 2315, T, T, BOOL, "text_pattern_le", "~>=~", "~>~"),
    TY_STR_OP("~>=~", 2317, T, T, BOOL, "text_pattern_ge", "~<=~", "~<~"),
    TY_STR_OP("~>~", 2318, T, T, BOOL, "text_pattern_gt", "~<~", "~<=~"),

    TY_STR_OP("=", 1054, B, B, BOOL, "bpchareq", "=", "<>"),
    TY_STR_OP("<>", 1057, B, B, BOOL, "bpcharne", "<>", "="),
    TY_STR_OP("<", 1058, B, B, BOOL, "bpcharlt", ">", ">="),
    TY_STR_OP("<=", 1059, B, B, BOOL, "bpcharle", ">=", ">"),
    TY_STR_OP(">", 1060, B, B, BOOL, "bpchargt", "<", "<="),
    TY_STR_OP(">=", 1061, B, B, BOOL, "bpcharge", "<=", "<"),
    TY_STR_OP("~<~", 2326, B, B, BOOL, "bpchar_pattern_lt", "~>~", "~>=~"),
    TY_STR_OP("~<=~", 2327, B, B, BOOL, "bpchar_pattern_le", "~>=~", "~>~"),
    TY_STR_OP("~>=~", 2329, B, B, BOOL, "bpchar_pattern_ge", "~<=~", "~<~"),
    TY_STR_OP("~>~", 2330, B, B, BOOL, "bpchar_pattern_gt", "~<~", "~<=~"),

    TY_STR_OP("=", 93, N, N, BOOL, "nameeq", "=", "<>"),
    TY_STR_OP("<>", 643, N, N, BOOL, "namene", "<>", "="),
    TY_STR_OP("<", 660, N, N, BOOL, "namelt", ">", ">="),
    TY_STR_OP("<=", 661, N, N, BOOL, "namele", ">=", ">"),
    TY_STR_OP(">", 662, N, N, BOOL, "namegt", "<", "<="),
    TY_STR_OP(">=", 663, N, N, BOOL, "namege", "<=", "<"),
    TY_STR_OP("=", 254, N, T, BOOL, "nameeqtext", "=", "<>"),
    TY_STR_OP("<>", 259, N, T, BOOL, "namenetext", "<>", "="),
    TY_STR_OP("<", 255, N, T, BOOL, "namelttext", ">", ">="),
    TY_STR_OP("<=", 256, N, T, BOOL, "nameletext", ">=", ">"),
    TY_STR_OP(">", 258, N, T, BOOL, "namegttext", "<", "<="),
    TY_STR_OP(">=", 257, N, T, BOOL, "namegetext", "<=", "<"),
    TY_STR_OP("=", 260, T, N, BOOL, "texteqname", "=", "<>"),
    TY_STR_OP("<>", 265, T, N, BOOL, "textnename", "<>", "="),
    TY_STR_OP("<", 261, T, N, BOOL, "textltname", ">", ">="),
    TY_STR_OP("<=", 262, T, N, BOOL, "textlename", ">=", ">"),
    TY_STR_OP(">", 264, T, N, BOOL, "textgtname", "<", "<="),
    TY_STR_OP(">=", 263, T, N, BOOL, "textgename", "<=", "<"),

    TY_STR_OP("=", 92, C, C, BOOL, "chareq", "=", "<>"),
    TY_STR_OP("<>", 630, C, C, BOOL, "charne", "<>", "="),
    TY_STR_OP("<", 631, C, C, BOOL, "charlt", ">", ">="),
    TY_STR_OP("<=", 632, C, C, BOOL, "charle", ">=", ">"),
    TY_STR_OP(">", 633, C, C, BOOL, "chargt", "<", "<="),
    TY_STR_OP(">=", 634, C, C, BOOL, "charge", "<=", "<"),
};

static const ty_cast text_casts[] = {
    {TY_TEXT, TY_BPCHAR, NULL, 'i', 'b'},          {TY_TEXT, TY_VARCHAR, NULL, 'i', 'b'},
    {TY_TEXT, TY_NAME, "name", 'i', 'f'},          {TY_TEXT, TY_CHAR, "char", 'a', 'f'},
    {TY_VARCHAR, TY_TEXT, NULL, 'i', 'b'},         {TY_VARCHAR, TY_BPCHAR, NULL, 'i', 'b'},
    {TY_VARCHAR, TY_VARCHAR, "varchar", 'i', 'f'}, {TY_VARCHAR, TY_NAME, "name", 'i', 'f'},
    {TY_VARCHAR, TY_CHAR, "char", 'a', 'f'},       {TY_BPCHAR, TY_TEXT, "text", 'i', 'f'},
    {TY_BPCHAR, TY_VARCHAR, "text", 'i', 'f'},     {TY_BPCHAR, TY_BPCHAR, "bpchar", 'i', 'f'},
    {TY_BPCHAR, TY_NAME, "name", 'i', 'f'},        {TY_BPCHAR, TY_CHAR, "char", 'a', 'f'},
    {TY_NAME, TY_TEXT, "text", 'i', 'f'},          {TY_NAME, TY_BPCHAR, "bpchar", 'a', 'f'},
    {TY_NAME, TY_VARCHAR, "varchar", 'a', 'f'},    {TY_CHAR, TY_TEXT, "text", 'i', 'f'},
    {TY_CHAR, TY_BPCHAR, "bpchar", 'a', 'f'},      {TY_CHAR, TY_VARCHAR, "text", 'a', 'f'},
    {TY_CHAR, TY_INT4, "int4", 'e', 'f'},          {TY_INT4, TY_CHAR, "char", 'e', 'f'},
};

void ty_str_register_text(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(text_types); i++)
		ty_type_register(&text_types[i]);
	ty_func_register(text_funcs, (int)UTIL_ARRAY_LEN(text_funcs));
	ty_operator_register(text_ops, (int)UTIL_ARRAY_LEN(text_ops));
	ty_cast_register(text_casts, (int)UTIL_ARRAY_LEN(text_casts));
}
