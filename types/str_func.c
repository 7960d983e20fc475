/*
 * str_func.c — PostgreSQL's character-string functions on text: case
 * mapping (C collation: ASCII only), lengths, substring/position/overlay,
 * the trim family, replace, translate, split_part, left/right, padding,
 * repeat, reverse, ascii/chr, md5, to_hex, starts_with. (string_to_table
 * and string_to_array are the arrays area's, types/arr_text.c.)
 * Positions and lengths count characters (UTF-8), as PostgreSQL does.
 */
#include "str_int.h"

#include <limits.h>

/* PostgreSQL's MaxAllocSize: results larger than this are refused. */
#define MAX_ALLOC 0x3fffffff

static UTIL_NORETURN void too_large(void)
{
	ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "requested length too large");
}

/* Byte offset of character number k (0-based) in s, or n if past the end. */
static size_t char_offset(const char *s, size_t n, int64_t k)
{
	size_t i = 0;
	while (i < n && k > 0) {
		i += (size_t)ty_str_mblen((uint8_t)s[i]);
		k--;
	}
	return UTIL_MIN(i, n);
}

/* ---------------------------------------------------------------- case */

static ty_datum map_case(ty_fcinfo *fc, char (*fn)(char))
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	char *r = ty_alloc(n + 1);
	for (size_t i = 0; i < n; i++)
		r[i] = fn(s[i]);
	return ty_bytes(r, n);
}

static ty_datum f_lower(ty_fcinfo *fc)
{
	return map_case(fc, ty_str_ascii_lower);
}
static ty_datum f_upper(ty_fcinfo *fc)
{
	return map_case(fc, ty_str_ascii_upper);
}

/* asc_initcap: a letter is upper-cased when it does not follow an ASCII
 * letter or digit, lower-cased otherwise. */
static ty_datum f_initcap(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	char *r = ty_alloc(n + 1);
	bool wasalnum = false;
	for (size_t i = 0; i < n; i++) {
		char c = wasalnum ? ty_str_ascii_lower(s[i]) : ty_str_ascii_upper(s[i]);
		r[i] = c;
		wasalnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
	}
	return ty_bytes(r, n);
}

/* ---------------------------------------------------------------- lengths */

static ty_datum f_textlen(ty_fcinfo *fc)
{
	return ty_int((int64_t)ty_str_nchars(STR_ARG(fc, 0), STR_LEN(fc, 0)));
}

static ty_datum f_bpcharlen(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	return ty_int((int64_t)ty_str_nchars(s, ty_str_rtrim_len(s, STR_LEN(fc, 0))));
}

static ty_datum f_octetlen(ty_fcinfo *fc)
{
	return ty_int((int64_t)STR_LEN(fc, 0));
}
static ty_datum f_bitlen(ty_fcinfo *fc)
{
	return ty_int((int64_t)STR_LEN(fc, 0) * 8);
}

/* ---------------------------------------------------------------- substring */

ty_datum ty_str_substring(ty_datum v, int64_t start, int64_t len, bool to_end)
{
	const char *s = ty_str_p(v);
	int64_t s1 = start < 1 ? 1 : start;
	int64_t l1 = -1;
	if (!to_end) {
		if (len < 0)
			ty_error(UTIL_E_SUBSTRING_ERROR, "negative substring length not allowed");
		int64_t e = start + len;
		if (e <= INT32_MAX) {
			if (e < 1)
				return ty_bytes("", 0);
			l1 = e - s1;
		}
	}
	size_t b = char_offset(s, v.len, s1 - 1);
	size_t e = l1 < 0 ? v.len : b + char_offset(s + b, v.len - b, l1);
	return ty_textn(s + b, e - b);
}

static ty_datum f_text_substr(ty_fcinfo *fc)
{
	return ty_str_substring(fc->args[0], INT_ARG(fc, 1), INT_ARG(fc, 2), false);
}
static ty_datum f_text_substr_no_len(ty_fcinfo *fc)
{
	return ty_str_substring(fc->args[0], INT_ARG(fc, 1), -1, true);
}

/* Byte offset of the first occurrence of p in s at or after from, or -1. */
static int64_t find(const char *s, size_t n, const char *p, size_t m, size_t from)
{
	if (m == 0)
		return from <= n ? (int64_t)from : -1;
	if (m > n)
		return -1;
	for (size_t i = from; i + m <= n; i++) {
		const char *q = memchr(s + i, p[0], n - m + 1 - i);
		if (!q)
			return -1;
		i = (size_t)(q - s);
		if (memcmp(q, p, m) == 0)
			return (int64_t)i;
	}
	return -1;
}

static ty_datum f_textpos(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	int64_t at = find(s, STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), 0);
	if (at < 0)
		return ty_int(0);
	return ty_int((int64_t)ty_str_nchars(s, (size_t)at) + 1);
}

static ty_datum overlay(ty_datum t1, ty_datum t2, int64_t sp, int64_t sl)
{
	int64_t spl = sp + sl;
	if (spl > INT32_MAX || spl < INT32_MIN)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "integer out of range");
	if (sp <= 0)
		ty_error(UTIL_E_SUBSTRING_ERROR, "negative substring length not allowed");
	ty_datum a = ty_str_substring(t1, 1, sp - 1, false);
	ty_datum b = ty_str_substring(t1, spl, -1, true);
	size_t n = (size_t)a.len + t2.len + b.len;
	char *r = ty_alloc(n + 1);
	memcpy(r, ty_str_p(a), a.len);
	memcpy(r + a.len, ty_str_p(t2), t2.len);
	memcpy(r + a.len + t2.len, ty_str_p(b), b.len);
	return ty_bytes(r, n);
}

static ty_datum f_textoverlay(ty_fcinfo *fc)
{
	return overlay(fc->args[0], fc->args[1], INT_ARG(fc, 2), INT_ARG(fc, 3));
}
static ty_datum f_textoverlay_no_len(ty_fcinfo *fc)
{
	return overlay(fc->args[0], fc->args[1], INT_ARG(fc, 2),
		       (int64_t)ty_str_nchars(STR_ARG(fc, 1), STR_LEN(fc, 1)));
}

/* ---------------------------------------------------------------- trim */

/* Is the character at s (length l) one of the characters of set? */
static bool in_charset(const char *s, size_t l, const char *set, size_t m)
{
	for (size_t i = 0; i < m;) {
		size_t cl = (size_t)ty_str_mblen((uint8_t)set[i]);
		if (cl == l && memcmp(set + i, s, l) == 0)
			return true;
		i += cl;
	}
	return false;
}

static ty_datum dotrim(const char *s, size_t n, const char *set, size_t m, bool left, bool right)
{
	size_t b = 0, e = n;
	if (m == 0 || n == 0)
		return ty_textn(s, n);
	if (left)
		while (b < e) {
			size_t cl = (size_t)ty_str_mblen((uint8_t)s[b]);
			if (!in_charset(s + b, cl, set, m))
				break;
			b += cl;
		}
	if (right)
		while (e > b) {
			size_t k = e - 1;
			while (k > b && ((uint8_t)s[k] & 0xc0) == 0x80)
				k--;
			if (!in_charset(s + k, e - k, set, m))
				break;
			e = k;
		}
	return ty_textn(s + b, e - b);
}

static ty_datum f_btrim(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), true, true);
}
static ty_datum f_ltrim(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), true, false);
}
static ty_datum f_rtrim(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), false, true);
}
static ty_datum f_btrim1(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), " ", 1, true, true);
}
static ty_datum f_ltrim1(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), " ", 1, true, false);
}
static ty_datum f_rtrim1(ty_fcinfo *fc)
{
	return dotrim(STR_ARG(fc, 0), STR_LEN(fc, 0), " ", 1, false, true);
}

/* ---------------------------------------------------------------- replace, translate */

static ty_datum f_replace(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0), *from = STR_ARG(fc, 1), *to = STR_ARG(fc, 2);
	size_t n = STR_LEN(fc, 0), fn = STR_LEN(fc, 1), tn = STR_LEN(fc, 2);
	if (n == 0 || fn == 0)
		return ty_textn(s, n);
	int64_t at = find(s, n, from, fn, 0);
	if (at < 0)
		return ty_textn(s, n);
	ty_str_sb b = {0};
	size_t pos = 0;
	while (at >= 0) {
		ty_str_sb_append(&b, s + pos, (size_t)at - pos);
		ty_str_sb_append(&b, to, tn);
		pos = (size_t)at + fn;
		at = find(s, n, from, fn, pos);
		ty_check_interrupts();
	}
	ty_str_sb_append(&b, s + pos, n - pos);
	return ty_str_sb_datum(&b);
}

static ty_datum f_translate(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0), *from = STR_ARG(fc, 1), *to = STR_ARG(fc, 2);
	size_t n = STR_LEN(fc, 0), fn = STR_LEN(fc, 1), tn = STR_LEN(fc, 2);
	/* at most 4 bytes per input character */
	char *r = ty_alloc(n * 4 + 1);
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		size_t cl = (size_t)ty_str_mblen((uint8_t)s[i]);
		/* index of this character in from */
		int64_t idx = -1, ci = 0;
		for (size_t j = 0; j < fn; ci++) {
			size_t fl = (size_t)ty_str_mblen((uint8_t)from[j]);
			if (fl == cl && memcmp(from + j, s + i, cl) == 0) {
				idx = ci;
				break;
			}
			j += fl;
		}
		if (idx < 0) {
			memcpy(r + k, s + i, cl);
			k += cl;
		} else {
			size_t off = char_offset(to, tn, idx);
			if (off < tn) {
				size_t tl = (size_t)ty_str_mblen((uint8_t)to[off]);
				memcpy(r + k, to + off, tl);
				k += tl;
			}
		}
		i += cl;
	}
	return ty_bytes(r, k);
}

/* ---------------------------------------------------------------- split_part */

static ty_datum f_split_part(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0), *sep = STR_ARG(fc, 1);
	size_t n = STR_LEN(fc, 0), m = STR_LEN(fc, 1);
	int64_t fld = INT_ARG(fc, 2);
	if (fld == 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "field position must not be zero");
	if (n == 0)
		return ty_textn("", 0);
	int64_t first = m ? find(s, n, sep, m, 0) : -1;
	if (first < 0)
		return (fld == 1 || fld == -1) ? ty_textn(s, n) : ty_textn("", 0);
	if (fld < 0) {
		int64_t nf = 1;
		for (int64_t at = first; at >= 0; at = find(s, n, sep, m, (size_t)at + m))
			nf++;
		fld += nf + 1;
		if (fld <= 0)
			return ty_textn("", 0);
	}
	size_t start = 0;
	int64_t at = first;
	for (int64_t f = 1; f < fld; f++) {
		if (at < 0)
			return ty_textn("", 0);
		start = (size_t)at + m;
		at = find(s, n, sep, m, start);
	}
	size_t end = at < 0 ? n : (size_t)at;
	return ty_textn(s + start, end - start);
}

/* ---------------------------------------------------------------- left, right, padding */

static ty_datum f_left(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	int64_t k = INT_ARG(fc, 1);
	if (k < 0) {
		int64_t len = (int64_t)ty_str_nchars(s, n);
		k = len + k;
		if (k < 0)
			k = 0;
	}
	return ty_textn(s, char_offset(s, n, k));
}

static ty_datum f_right(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	int64_t k = INT_ARG(fc, 1), len = (int64_t)ty_str_nchars(s, n);
	int64_t skip = k < 0 ? -k : len - k;
	if (skip < 0)
		skip = 0;
	size_t off = char_offset(s, n, skip);
	return ty_textn(s + off, n - off);
}

static ty_datum pad(ty_fcinfo *fc, const char *fill, size_t fn, bool left)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	int64_t len = INT_ARG(fc, 1);
	if (len < 0)
		len = 0;
	int64_t slen = (int64_t)ty_str_nchars(s, n);
	if (slen > len)
		slen = len;
	if (fn == 0)
		len = slen;
	if (len * 4 + 4 > MAX_ALLOC)
		too_large();
	size_t sbytes = char_offset(s, n, slen);
	int64_t npad = len - slen;
	ty_str_sb b = {0};
	if (!left)
		ty_str_sb_append(&b, s, sbytes);
	for (size_t j = 0; npad > 0; npad--) {
		size_t cl = (size_t)ty_str_mblen((uint8_t)fill[j]);
		ty_str_sb_append(&b, fill + j, cl);
		j += cl;
		if (j >= fn)
			j = 0;
	}
	if (left)
		ty_str_sb_append(&b, s, sbytes);
	return ty_str_sb_datum(&b);
}

static ty_datum f_lpad(ty_fcinfo *fc)
{
	return pad(fc, STR_ARG(fc, 2), STR_LEN(fc, 2), true);
}
static ty_datum f_rpad(ty_fcinfo *fc)
{
	return pad(fc, STR_ARG(fc, 2), STR_LEN(fc, 2), false);
}
static ty_datum f_lpad1(ty_fcinfo *fc)
{
	return pad(fc, " ", 1, true);
}
static ty_datum f_rpad1(ty_fcinfo *fc)
{
	return pad(fc, " ", 1, false);
}

static ty_datum f_repeat(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	int64_t count = INT_ARG(fc, 1);
	if (count < 0)
		count = 0;
	int64_t total = count * (int64_t)n;
	if (total > INT32_MAX - TY_VARHDRSZ || total + TY_VARHDRSZ > MAX_ALLOC)
		too_large();
	char *r = ty_alloc((size_t)total + 1);
	for (int64_t i = 0; i < count; i++) {
		memcpy(r + (size_t)i * n, s, n);
		if ((i & 0xffff) == 0)
			ty_check_interrupts();
	}
	return ty_bytes(r, (size_t)total);
}

static ty_datum f_reverse(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	char *r = ty_alloc(n + 1);
	size_t k = n;
	for (size_t i = 0; i < n;) {
		size_t cl = UTIL_MIN((size_t)ty_str_mblen((uint8_t)s[i]), n - i);
		k -= cl;
		memcpy(r + k, s + i, cl);
		i += cl;
	}
	return ty_bytes(r, n);
}

/* ---------------------------------------------------------------- ascii, chr */

static ty_datum f_ascii(ty_fcinfo *fc)
{
	size_t n = STR_LEN(fc, 0);
	if (n == 0)
		return ty_int(0);
	int l;
	return ty_int(ty_str_decode(STR_ARG(fc, 0), n, &l));
}

static ty_datum f_chr(ty_fcinfo *fc)
{
	if (INT_ARG(fc, 0) < 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "character number must be positive");
	uint32_t c = (uint32_t)INT_ARG(fc, 0);
	if (c == 0)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "null character not permitted");
	if (c > 0x10ffff)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "requested character too large for encoding: %u", c);
	if (c >= 0xd800 && c <= 0xdfff)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "requested character not valid for encoding: %u", c);
	char buf[4];
	int l = ty_str_encode(c, buf);
	return ty_textn(buf, (size_t)l);
}

/* ---------------------------------------------------------------- misc */

static ty_datum f_md5_text(ty_fcinfo *fc)
{
	return ty_str_md5_text(STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum to_hex(uint64_t v)
{
	char buf[17];
	int k = 16;
	buf[16] = '\0';
	do {
		buf[--k] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	return ty_textn(buf + k, (size_t)(16 - k));
}

static ty_datum f_to_hex32(ty_fcinfo *fc)
{
	return to_hex((uint32_t)INT_ARG(fc, 0));
}
static ty_datum f_to_hex64(ty_fcinfo *fc)
{
	return to_hex((uint64_t)INT_ARG(fc, 0));
}

static ty_datum f_starts_with(ty_fcinfo *fc)
{
	size_t n = STR_LEN(fc, 0), m = STR_LEN(fc, 1);
	return ty_bool(m <= n && memcmp(STR_ARG(fc, 0), STR_ARG(fc, 1), m) == 0);
}

/* ---------------------------------------------------------------- registration */

#define T    TY_TEXT
#define B    TY_BPCHAR
#define I4   TY_INT4
#define I8   TY_INT8
#define BOOL TY_BOOL

static const ty_func str_funcs[] = {
    TY_STR_FN("lower", 870, T, f_lower, "lower", T),
    TY_STR_FN("upper", 871, T, f_upper, "upper", T),
    TY_STR_FN("initcap", 872, T, f_initcap, "initcap", T),
    TY_STR_FN("length", 1317, I4, f_textlen, "textlen", T),
    TY_STR_FN("length", 1318, I4, f_bpcharlen, "bpcharlen", B),
    TY_STR_FN("char_length", 1381, I4, f_textlen, "textlen", T),
    TY_STR_FN("char_length", 1372, I4, f_bpcharlen, "bpcharlen", B),
    TY_STR_FN("character_length", 1369, I4, f_textlen, "textlen", T),
    TY_STR_FN("character_length", 1367, I4, f_bpcharlen, "bpcharlen", B),
    TY_STR_FN("textlen", 1257, I4, f_textlen, "textlen", T),
    TY_STR_FN("octet_length", 1374, I4, f_octetlen, "textoctetlen", T),
    TY_STR_FN("octet_length", 1375, I4, f_octetlen, "bpcharoctetlen", B),
    TY_STR_FN("bit_length", 1811, I4, f_bitlen, "", T),
    TY_STR_FN("substring", 936, T, f_text_substr, "text_substr", T, I4, I4),
    TY_STR_FN("substring", 937, T, f_text_substr_no_len, "text_substr_no_len", T, I4),
    TY_STR_FN("substr", 877, T, f_text_substr, "text_substr", T, I4, I4),
    TY_STR_FN("substr", 883, T, f_text_substr_no_len, "text_substr_no_len", T, I4),
    TY_STR_FN("position", 849, I4, f_textpos, "textpos", T, T),
    TY_STR_FN("strpos", 868, I4, f_textpos, "textpos", T, T),
    TY_STR_FN("overlay", 1404, T, f_textoverlay, "textoverlay", T, T, I4, I4),
    TY_STR_FN("overlay", 1405, T, f_textoverlay_no_len, "textoverlay_no_len", T, T, I4),
    TY_STR_FN("btrim", 884, T, f_btrim, "btrim", T, T),
    TY_STR_FN("btrim", 885, T, f_btrim1, "btrim1", T),
    TY_STR_FN("ltrim", 875, T, f_ltrim, "ltrim", T, T),
    TY_STR_FN("ltrim", 881, T, f_ltrim1, "ltrim1", T),
    TY_STR_FN("rtrim", 876, T, f_rtrim, "rtrim", T, T),
    TY_STR_FN("rtrim", 882, T, f_rtrim1, "rtrim1", T),
    TY_STR_FN("replace", 2087, T, f_replace, "replace_text", T, T, T),
    TY_STR_FN("translate", 878, T, f_translate, "translate", T, T, T),
    TY_STR_FN("split_part", 2088, T, f_split_part, "split_part", T, T, I4),
    TY_STR_FN("left", 3060, T, f_left, "text_left", T, I4),
    TY_STR_FN("right", 3061, T, f_right, "text_right", T, I4),
    TY_STR_FN("lpad", 873, T, f_lpad, "lpad", T, I4, T),
    TY_STR_FN("lpad", 879, T, f_lpad1, "", T, I4),
    TY_STR_FN("rpad", 874, T, f_rpad, "rpad", T, I4, T),
    TY_STR_FN("rpad", 880, T, f_rpad1, "", T, I4),
    TY_STR_FN("repeat", 1622, T, f_repeat, "repeat", T, I4),
    TY_STR_FN("reverse", 3062, T, f_reverse, "text_reverse", T),
    TY_STR_FN("ascii", 1620, I4, f_ascii, "ascii", T),
    TY_STR_FN("chr", 1621, T, f_chr, "chr", I4),
    TY_STR_FN("md5", 2311, T, f_md5_text, "md5_text", T),
    TY_STR_FN("to_hex", 2089, T, f_to_hex32, "to_hex32", I4),
    TY_STR_FN("to_hex", 2090, T, f_to_hex64, "to_hex64", I8),
    TY_STR_FN("starts_with", 3696, BOOL, f_starts_with, "text_starts_with", T, T),
};

static const ty_operator str_ops[] = {
    TY_STR_OP("^@", 3877, T, T, BOOL, "starts_with", NULL, NULL),
};

void ty_str_register_funcs(void)
{
	ty_func_register(str_funcs, (int)UTIL_ARRAY_LEN(str_funcs));
	ty_operator_register(str_ops, (int)UTIL_ARRAY_LEN(str_ops));
}
