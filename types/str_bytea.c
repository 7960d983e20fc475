/*
 * str_bytea.c — bytea: hex and escape text I/O (bytea_output), binary I/O,
 * comparison, and the bytea functions (length, get/set byte and bit,
 * substring, position, overlay, trim, encode/decode with hex, base64 and
 * escape, md5 and the SHA-2 digests through OpenSSL's EVP interface).
 */
#include "str_int.h"

#include <openssl/evp.h>

static const char hexdig[] = "0123456789abcdef";

/* ---------------------------------------------------------------- hex */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static UTIL_NORETURN void bad_hex_digit(const char *s, const char *end)
{
	int l = ty_str_mblen((uint8_t)*s);
	if (l > end - s)
		l = (int)(end - s);
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid hexadecimal digit: \"%.*s\"", l, s);
}

/* PostgreSQL's hex_decode: whitespace is allowed between byte pairs. */
static size_t hex_decode(const char *s, size_t n, uint8_t *dst)
{
	const char *end = s + n;
	size_t k = 0;
	while (s < end) {
		if (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') {
			s++;
			continue;
		}
		int hi = hexval(*s);
		if (hi < 0)
			bad_hex_digit(s, end);
		s++;
		if (s >= end)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "invalid hexadecimal data: odd number of digits");
		int lo = hexval(*s);
		if (lo < 0)
			bad_hex_digit(s, end);
		s++;
		dst[k++] = (uint8_t)(hi << 4 | lo);
	}
	return k;
}

static void hex_encode(const uint8_t *p, size_t n, util_buf *out)
{
	util_buf_reserve(out, n * 2);
	for (size_t i = 0; i < n; i++) {
		util_buf_putc(out, hexdig[p[i] >> 4]);
		util_buf_putc(out, hexdig[p[i] & 15]);
	}
}

/* ---------------------------------------------------------------- escape */

static bool is_oct3(const char *s, const char *end)
{
	return end - s >= 4 && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
	       s[3] <= '7';
}

static size_t esc_decode(const char *s, size_t n, uint8_t *dst)
{
	const char *end = s + n;
	size_t k = 0;
	while (s < end) {
		if (*s != '\\') {
			dst[k++] = (uint8_t)*s++;
		} else if (is_oct3(s, end)) {
			dst[k++] = (uint8_t)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 4;
		} else if (end - s >= 2 && s[1] == '\\') {
			dst[k++] = '\\';
			s += 2;
		} else {
			ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type %s",
				 "bytea");
		}
	}
	return k;
}

static void put_octal(util_buf *out, uint8_t c)
{
	char b[4] = {'\\', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)), (char)('0' + (c & 7))};
	util_buf_append(out, b, 4);
}

/* ---------------------------------------------------------------- type */

static ty_datum bytea_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	if (n >= 2 && s[0] == '\\' && s[1] == 'x') {
		uint8_t *r = ty_alloc((n - 2) / 2 + 1);
		size_t k = hex_decode(s + 2, n - 2, r);
		return ty_bytes(r, k);
	}
	uint8_t *r = ty_alloc(n + 1);
	size_t k = esc_decode(s, n, r);
	return ty_bytes(r, k);
}

static void bytea_out(ty_datum v, util_buf *out)
{
	const uint8_t *p = (const uint8_t *)ty_str_p(v);
	if (!ty_get_settings()->bytea_output_escape) {
		util_buf_puts(out, "\\x");
		hex_encode(p, v.len, out);
		return;
	}
	for (size_t i = 0; i < v.len; i++) {
		uint8_t c = p[i];
		if (c == '\\')
			util_buf_append(out, "\\\\", 2);
		else if (c < 0x20 || c > 0x7e)
			put_octal(out, c);
		else
			util_buf_putc(out, (char)c);
	}
}

static ty_datum bytea_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	(void)typmod;
	return ty_datum_copy(ty_bytes(p, n), false);
}

static int cmp_bytea(ty_datum a, ty_datum b)
{
	return ty_str_memcmp(ty_str_p(a), a.len, ty_str_p(b), b.len);
}

static uint64_t bytea_hash(ty_datum a)
{
	return util_hash64(ty_str_p(a), a.len, 0xb17e);
}

static const ty_type bytea_type = {.oid = TY_BYTEA,
				   .name = "bytea",
				   .len = -1,
				   .category = 'U',
				   .typtype = 'b',
				   .align = 'i',
				   .array = TY_BYTEA_ARRAY,
				   .in = bytea_in,
				   .out = bytea_out,
				   .recv = bytea_recv,
				   .send = ty_str_out_raw,
				   .cmp = cmp_bytea,
				   .hash = bytea_hash,
				   .keyenc = ty_str_key_text_enc,
				   .keydec = ty_str_key_text_dec,
				   .input_name = "byteain",
				   .output_name = "byteaout"};

/* ---------------------------------------------------------------- operators */

static ty_datum f_byteaeq(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) == 0);
}
static ty_datum f_byteane(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) != 0);
}
static ty_datum f_bytealt(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) < 0);
}
static ty_datum f_byteale(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) <= 0);
}
static ty_datum f_byteagt(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) > 0);
}
static ty_datum f_byteage(ty_fcinfo *fc)
{
	return ty_bool(cmp_bytea(fc->args[0], fc->args[1]) >= 0);
}
static ty_datum f_byteacmp(ty_fcinfo *fc)
{
	return ty_int(cmp_bytea(fc->args[0], fc->args[1]));
}

static ty_datum cat2(const char *a, size_t an, const char *b, size_t bn)
{
	char *r = ty_alloc(an + bn + 1);
	memcpy(r, a, an);
	memcpy(r + an, b, bn);
	return ty_bytes(r, an + bn);
}

static ty_datum f_byteacat(ty_fcinfo *fc)
{
	return cat2(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1));
}

/* ---------------------------------------------------------------- functions */

static ty_datum f_octetlen(ty_fcinfo *fc)
{
	return ty_int((int64_t)STR_LEN(fc, 0));
}
static ty_datum f_bitlen(ty_fcinfo *fc)
{
	return ty_int((int64_t)STR_LEN(fc, 0) * 8);
}

static ty_datum f_get_byte(ty_fcinfo *fc)
{
	int64_t n = INT_ARG(fc, 1), len = (int64_t)STR_LEN(fc, 0);
	if (n < 0 || n >= len)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "index %d out of valid range, 0..%d", (int)n,
			 (int)len - 1);
	return ty_int((uint8_t)STR_ARG(fc, 0)[n]);
}

static ty_datum f_set_byte(ty_fcinfo *fc)
{
	int64_t n = INT_ARG(fc, 1), len = (int64_t)STR_LEN(fc, 0);
	if (n < 0 || n >= len)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "index %d out of valid range, 0..%d", (int)n,
			 (int)len - 1);
	ty_datum r = ty_datum_copy(fc->args[0], false);
	((uint8_t *)r.p)[n] = (uint8_t)INT_ARG(fc, 2);
	return r;
}

static ty_datum f_get_bit(ty_fcinfo *fc)
{
	int64_t n = INT_ARG(fc, 1), len = (int64_t)STR_LEN(fc, 0);
	if (n < 0 || n >= len * 8)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "index %lld out of valid range, 0..%lld", (long long)n,
			 (long long)len * 8 - 1);
	return ty_int(((uint8_t)STR_ARG(fc, 0)[n / 8] >> (n % 8)) & 1);
}

static ty_datum f_set_bit(ty_fcinfo *fc)
{
	int64_t n = INT_ARG(fc, 1), len = (int64_t)STR_LEN(fc, 0), bit = INT_ARG(fc, 2);
	if (n < 0 || n >= len * 8)
		ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "index %lld out of valid range, 0..%lld", (long long)n,
			 (long long)len * 8 - 1);
	if (bit != 0 && bit != 1)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "new bit must be 0 or 1");
	ty_datum r = ty_datum_copy(fc->args[0], false);
	uint8_t *p = (uint8_t *)r.p;
	if (bit)
		p[n / 8] |= (uint8_t)(1 << (n % 8));
	else
		p[n / 8] &= (uint8_t) ~(1 << (n % 8));
	return r;
}

/* PostgreSQL's bytea_substring: positions are 1-based; a start before 1
 * shortens the result; a negative length is an error. */
static ty_datum bytea_substring(ty_datum v, int64_t start, int64_t len, bool to_end)
{
	const char *s = ty_str_p(v);
	int64_t n = v.len;
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
	if (s1 > n)
		return ty_bytes("", 0);
	int64_t avail = n - (s1 - 1);
	if (l1 < 0 || l1 > avail)
		l1 = avail;
	return ty_datum_copy(ty_bytes(s + s1 - 1, (size_t)l1), false);
}

static ty_datum f_bytea_substr(ty_fcinfo *fc)
{
	return bytea_substring(fc->args[0], INT_ARG(fc, 1), INT_ARG(fc, 2), false);
}
static ty_datum f_bytea_substr_no_len(ty_fcinfo *fc)
{
	return bytea_substring(fc->args[0], INT_ARG(fc, 1), -1, true);
}

static ty_datum f_byteapos(ty_fcinfo *fc)
{
	const char *s = STR_ARG(fc, 0), *p = STR_ARG(fc, 1);
	size_t n = STR_LEN(fc, 0), m = STR_LEN(fc, 1);
	if (m == 0)
		return ty_int(1);
	if (m > n)
		return ty_int(0);
	for (size_t i = 0; i + m <= n; i++)
		if (s[i] == p[0] && memcmp(s + i, p, m) == 0)
			return ty_int((int64_t)i + 1);
	return ty_int(0);
}

static ty_datum bytea_overlay(ty_datum t1, ty_datum t2, int64_t sp, int64_t sl)
{
	int64_t spl = sp + sl;
	if (spl > INT32_MAX || spl < INT32_MIN)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "integer out of range");
	if (sp <= 0)
		ty_error(UTIL_E_SUBSTRING_ERROR, "negative substring length not allowed");
	ty_datum a = bytea_substring(t1, 1, sp - 1, false);
	ty_datum b = bytea_substring(t1, spl, -1, true);
	char *r = ty_alloc((size_t)a.len + t2.len + b.len + 1);
	memcpy(r, ty_str_p(a), a.len);
	memcpy(r + a.len, ty_str_p(t2), t2.len);
	memcpy(r + a.len + t2.len, ty_str_p(b), b.len);
	return ty_bytes(r, (size_t)a.len + t2.len + b.len);
}

static ty_datum f_byteaoverlay(ty_fcinfo *fc)
{
	return bytea_overlay(fc->args[0], fc->args[1], INT_ARG(fc, 2), INT_ARG(fc, 3));
}
static ty_datum f_byteaoverlay_no_len(ty_fcinfo *fc)
{
	return bytea_overlay(fc->args[0], fc->args[1], INT_ARG(fc, 2), fc->args[1].len);
}

static bool in_set(uint8_t c, const char *set, size_t n)
{
	return n && memchr(set, c, n) != NULL;
}

static ty_datum bytea_trim(ty_fcinfo *fc, bool left, bool right)
{
	const char *s = STR_ARG(fc, 0), *set = STR_ARG(fc, 1);
	size_t n = STR_LEN(fc, 0), m = STR_LEN(fc, 1), b = 0, e = n;
	if (left)
		while (b < e && in_set((uint8_t)s[b], set, m))
			b++;
	if (right)
		while (e > b && in_set((uint8_t)s[e - 1], set, m))
			e--;
	return ty_datum_copy(ty_bytes(s + b, e - b), false);
}

static ty_datum f_byteatrim(ty_fcinfo *fc)
{
	return bytea_trim(fc, true, true);
}
static ty_datum f_bytealtrim(ty_fcinfo *fc)
{
	return bytea_trim(fc, true, false);
}
static ty_datum f_byteartrim(ty_fcinfo *fc)
{
	return bytea_trim(fc, false, true);
}

/* ---------------------------------------------------------------- encode / decode */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* PostgreSQL's base64: a newline after every 76 output characters. */
static void b64_encode(const uint8_t *s, size_t n, util_buf *out)
{
	uint32_t buf = 0;
	int pos = 2;
	size_t linelen = 0;
	for (size_t i = 0; i < n; i++) {
		buf |= (uint32_t)s[i] << (pos << 3);
		pos--;
		if (pos < 0) {
			char q[4] = {b64chars[(buf >> 18) & 63], b64chars[(buf >> 12) & 63],
				     b64chars[(buf >> 6) & 63], b64chars[buf & 63]};
			util_buf_append(out, q, 4);
			linelen += 4;
			pos = 2;
			buf = 0;
		}
		if (linelen >= 76) {
			util_buf_putc(out, '\n');
			linelen = 0;
		}
	}
	if (pos != 2) {
		char q[4] = {b64chars[(buf >> 18) & 63], b64chars[(buf >> 12) & 63],
			     pos == 0 ? b64chars[(buf >> 6) & 63] : '=', '='};
		util_buf_append(out, q, 4);
	}
}

static int b64val(char c)
{
	const char *p = (c > 0 && c < 127) ? strchr(b64chars, c) : NULL;
	return p && c ? (int)(p - b64chars) : -1;
}

static size_t b64_decode(const char *s, size_t n, uint8_t *dst)
{
	const char *end = s + n;
	uint32_t buf = 0;
	int pos = 0, fin = 0;
	size_t k = 0;
	while (s < end) {
		char c = *s++;
		int b;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		if (c == '=') {
			if (!fin) {
				if (pos == 2)
					fin = 1;
				else if (pos == 3)
					fin = 2;
				else
					ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
						 "unexpected \"=\" while decoding base64 sequence");
			}
			b = 0;
		} else {
			b = b64val(c);
			if (b < 0) {
				int l = ty_str_mblen((uint8_t)c);
				if (l > end - (s - 1))
					l = (int)(end - (s - 1));
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
					 "invalid symbol \"%.*s\" found while decoding base64 sequence", l,
					 s - 1);
			}
		}
		buf = (buf << 6) + (uint32_t)b;
		if (++pos == 4) {
			dst[k++] = (uint8_t)(buf >> 16);
			if (fin == 0 || fin > 1)
				dst[k++] = (uint8_t)(buf >> 8);
			if (fin == 0 || fin > 2)
				dst[k++] = (uint8_t)buf;
			buf = 0;
			pos = 0;
		}
	}
	if (pos != 0) {
		util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "invalid base64 end sequence");
		util_err_hint(e, "Input data is missing padding, is truncated, or is otherwise corrupted.");
		ty_errthrow();
	}
	return k;
}

static void esc_encode(const uint8_t *s, size_t n, util_buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == 0 || s[i] & 0x80)
			put_octal(out, s[i]);
		else if (s[i] == '\\')
			util_buf_append(out, "\\\\", 2);
		else
			util_buf_putc(out, (char)s[i]);
	}
}

enum { ENC_HEX, ENC_BASE64, ENC_ESCAPE };

static int encoding_kind(ty_fcinfo *fc, int arg)
{
	char *name = ty_strndup(STR_ARG(fc, arg), STR_LEN(fc, arg));
	if (util_strcasecmp(name, "hex") == 0)
		return ENC_HEX;
	if (util_strcasecmp(name, "base64") == 0)
		return ENC_BASE64;
	if (util_strcasecmp(name, "escape") == 0)
		return ENC_ESCAPE;
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unrecognized encoding: \"%s\"", name);
}

static ty_datum f_encode(ty_fcinfo *fc)
{
	int kind = encoding_kind(fc, 1);
	const uint8_t *s = (const uint8_t *)STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0);
	util_buf b = UTIL_BUF_INIT;
	if (kind == ENC_HEX)
		hex_encode(s, n, &b);
	else if (kind == ENC_BASE64)
		b64_encode(s, n, &b);
	else
		esc_encode(s, n, &b);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

static ty_datum f_decode(ty_fcinfo *fc)
{
	int kind = encoding_kind(fc, 1);
	const char *s = STR_ARG(fc, 0);
	size_t n = STR_LEN(fc, 0), k;
	uint8_t *r = ty_alloc(n + 1);
	if (kind == ENC_HEX)
		k = hex_decode(s, n, r);
	else if (kind == ENC_BASE64)
		k = b64_decode(s, n, r);
	else
		k = esc_decode(s, n, r);
	return ty_bytes(r, k);
}

/* ---------------------------------------------------------------- digests */

static size_t digest(const char *alg, const void *p, size_t n, uint8_t *out)
{
	unsigned int len = 0;
	const EVP_MD *md = EVP_get_digestbyname(alg);
	if (!md || !EVP_Digest(p, n, out, &len, md, NULL))
		ty_error(UTIL_E_INTERNAL_ERROR, "could not compute %s hash", alg);
	return len;
}

ty_datum ty_str_md5_text(const void *p, size_t n)
{
	uint8_t d[EVP_MAX_MD_SIZE];
	size_t len = digest("MD5", p, n, d);
	char *r = ty_alloc(len * 2 + 1);
	for (size_t i = 0; i < len; i++) {
		r[2 * i] = hexdig[d[i] >> 4];
		r[2 * i + 1] = hexdig[d[i] & 15];
	}
	return ty_bytes(r, len * 2);
}

static ty_datum f_md5_bytea(ty_fcinfo *fc)
{
	return ty_str_md5_text(STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum sha(ty_fcinfo *fc, const char *alg)
{
	uint8_t d[EVP_MAX_MD_SIZE];
	size_t len = digest(alg, STR_ARG(fc, 0), STR_LEN(fc, 0), d);
	return ty_datum_copy(ty_bytes(d, len), false);
}

static ty_datum f_sha224(ty_fcinfo *fc)
{
	return sha(fc, "SHA224");
}
static ty_datum f_sha256(ty_fcinfo *fc)
{
	return sha(fc, "SHA256");
}
static ty_datum f_sha384(ty_fcinfo *fc)
{
	return sha(fc, "SHA384");
}
static ty_datum f_sha512(ty_fcinfo *fc)
{
	return sha(fc, "SHA512");
}

/* ---------------------------------------------------------------- registration */

#define BY   TY_BYTEA
#define T    TY_TEXT
#define I4   TY_INT4
#define I8   TY_INT8
#define BOOL TY_BOOL

static const ty_func bytea_funcs[] = {
    TY_STR_FN("byteaeq", 1948, BOOL, f_byteaeq, "byteaeq", BY, BY),
    TY_STR_FN("byteane", 1953, BOOL, f_byteane, "byteane", BY, BY),
    TY_STR_FN("bytealt", 1949, BOOL, f_bytealt, "bytealt", BY, BY),
    TY_STR_FN("byteale", 1950, BOOL, f_byteale, "byteale", BY, BY),
    TY_STR_FN("byteagt", 1951, BOOL, f_byteagt, "byteagt", BY, BY),
    TY_STR_FN("byteage", 1952, BOOL, f_byteage, "byteage", BY, BY),
    TY_STR_FN("byteacmp", 1954, I4, f_byteacmp, "byteacmp", BY, BY),
    TY_STR_FN("byteacat", 2011, BY, f_byteacat, "byteacat", BY, BY),
    TY_STR_FN("octet_length", 720, I4, f_octetlen, "byteaoctetlen", BY),
    TY_STR_FN("length", 2010, I4, f_octetlen, "byteaoctetlen", BY),
    TY_STR_FN("bit_length", 1810, I4, f_bitlen, "", BY),
    TY_STR_FN("get_byte", 721, I4, f_get_byte, "byteaGetByte", BY, I4),
    TY_STR_FN("set_byte", 722, BY, f_set_byte, "byteaSetByte", BY, I4, I4),
    TY_STR_FN("get_bit", 723, I4, f_get_bit, "byteaGetBit", BY, I8),
    TY_STR_FN("set_bit", 724, BY, f_set_bit, "byteaSetBit", BY, I8, I4),
    TY_STR_FN("substring", 2012, BY, f_bytea_substr, "bytea_substr", BY, I4, I4),
    TY_STR_FN("substring", 2013, BY, f_bytea_substr_no_len, "bytea_substr_no_len", BY, I4),
    TY_STR_FN("substr", 2085, BY, f_bytea_substr, "bytea_substr", BY, I4, I4),
    TY_STR_FN("substr", 2086, BY, f_bytea_substr_no_len, "bytea_substr_no_len", BY, I4),
    TY_STR_FN("position", 2014, I4, f_byteapos, "byteapos", BY, BY),
    TY_STR_FN("overlay", 749, BY, f_byteaoverlay, "byteaoverlay", BY, BY, I4, I4),
    TY_STR_FN("overlay", 752, BY, f_byteaoverlay_no_len, "byteaoverlay_no_len", BY, BY, I4),
    TY_STR_FN("btrim", 2015, BY, f_byteatrim, "byteatrim", BY, BY),
    TY_STR_FN("ltrim", 6195, BY, f_bytealtrim, "bytealtrim", BY, BY),
    TY_STR_FN("rtrim", 6196, BY, f_byteartrim, "byteartrim", BY, BY),
    TY_STR_FN("encode", 1946, T, f_encode, "binary_encode", BY, T),
    TY_STR_FN("decode", 1947, BY, f_decode, "binary_decode", T, T),
    TY_STR_FN("md5", 2321, T, f_md5_bytea, "md5_bytea", BY),
    TY_STR_FN("sha224", 3419, BY, f_sha224, "sha224_bytea", BY),
    TY_STR_FN("sha256", 3420, BY, f_sha256, "sha256_bytea", BY),
    TY_STR_FN("sha384", 3421, BY, f_sha384, "sha384_bytea", BY),
    TY_STR_FN("sha512", 3422, BY, f_sha512, "sha512_bytea", BY),
};

static const ty_operator bytea_ops[] = {
    TY_STR_OP("=", 1955, BY, BY, BOOL, "byteaeq", "=", "<>"),
    TY_STR_OP("<>", 1956, BY, BY, BOOL, "byteane", "<>", "="),
    TY_STR_OP("<", 1957, BY, BY, BOOL, "bytealt", ">", ">="),
    TY_STR_OP("<=", 1958, BY, BY, BOOL, "byteale", ">=", ">"),
    TY_STR_OP(">", 1959, BY, BY, BOOL, "byteagt", "<", "<="),
    TY_STR_OP(">=", 1960, BY, BY, BOOL, "byteage", "<=", "<"),
    TY_STR_OP("||", 2018, BY, BY, BY, "byteacat", NULL, NULL),
};

void ty_str_register_bytea(void)
{
	ty_type_register(&bytea_type);
	ty_func_register(bytea_funcs, (int)UTIL_ARRAY_LEN(bytea_funcs));
	ty_operator_register(bytea_ops, (int)UTIL_ARRAY_LEN(bytea_ops));
}
