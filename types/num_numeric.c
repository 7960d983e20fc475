/*
 * num_numeric.c — the numeric type: text input (PostgreSQL's
 * set_var_from_str incl. exponents, NaN and the infinities), output with
 * the display scale, the numeric(p,s) typmod (rounding, overflow with
 * PostgreSQL's DETAIL, negative scales), binary send/recv identical to
 * PostgreSQL's, the btree order, hashing consistent with equality, the
 * order-preserving key encoding, and the public numeric.h entry points.
 */
#include "num_priv.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- text in */

/* Parses a finite numeric at cp (NUL-terminated); returns the end. orig is
 * the whole input for error messages. */
static const char *parse_finite(const char *cp, const char *orig, size_t origlen, nvar *dest)
{
	int sign = TY_NUMERIC_POS;
	bool have_dp = false;
	if (*cp == '+')
		cp++;
	else if (*cp == '-') {
		sign = TY_NUMERIC_NEG;
		cp++;
	}
	if (*cp == '.') {
		have_dp = true;
		cp++;
	}
	if (*cp < '0' || *cp > '9')
		num_err_syntax("numeric", orig, origlen);
	size_t room = strlen(cp) + DEC_DIGITS * 2;
	uint8_t *dd = ty_alloc0(room);
	int i = DEC_DIGITS, dweight = -1, dscale = 0;
	while (*cp) {
		if (*cp >= '0' && *cp <= '9') {
			dd[i++] = (uint8_t)(*cp++ - '0');
			if (!have_dp)
				dweight++;
			else
				dscale++;
		} else if (*cp == '.') {
			if (have_dp)
				num_err_syntax("numeric", orig, origlen);
			have_dp = true;
			cp++;
		} else {
			break;
		}
	}
	int ddigits = i - DEC_DIGITS;
	if (*cp == 'e' || *cp == 'E') {
		cp++;
		char *end;
		long ex = strtol(cp, &end, 10);
		if (end == cp)
			num_err_syntax("numeric", orig, origlen);
		cp = end;
		if (ex >= INT_MAX / 2 || ex <= -(INT_MAX / 2))
			ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
		dweight += (int)ex;
		dscale -= (int)ex;
		if (dscale < 0)
			dscale = 0;
	}
	/* Convert to base NBASE: offset = decimal zeros in front of the first
	 * given digit so that the first NBASE digit is aligned. */
	int weight;
	if (dweight >= 0)
		weight = (dweight + 1 + DEC_DIGITS - 1) / DEC_DIGITS - 1;
	else
		weight = -((-dweight - 1) / DEC_DIGITS + 1);
	int offset = (weight + 1) * DEC_DIGITS - (dweight + 1);
	int ndigits = (ddigits + offset + DEC_DIGITS - 1) / DEC_DIGITS;
	nv_alloc(dest, ndigits);
	dest->sign = sign;
	dest->weight = weight;
	dest->dscale = dscale;
	i = DEC_DIGITS - offset;
	for (int k = 0; k < ndigits; k++, i += DEC_DIGITS)
		dest->digits[k] = (ndig)(((dd[i] * 10 + dd[i + 1]) * 10 + dd[i + 2]) * 10 + dd[i + 3]);
	nv_strip(dest);
	return cp;
}

static bool special_word(const char *cp, int *sign, size_t *n)
{
	static const struct {
		const char *w;
		int sign;
	} words[] = {{"NaN", TY_NUMERIC_NAN},        {"Infinity", TY_NUMERIC_PINF},
		     {"+Infinity", TY_NUMERIC_PINF}, {"-Infinity", TY_NUMERIC_NINF},
		     {"inf", TY_NUMERIC_PINF},       {"+inf", TY_NUMERIC_PINF},
		     {"-inf", TY_NUMERIC_NINF}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(words); i++) {
		size_t k = strlen(words[i].w);
		if (strncasecmp(cp, words[i].w, k) == 0) {
			*sign = words[i].sign;
			*n = k;
			return true;
		}
	}
	return false;
}

static void typmod_decode(int32_t typmod, int *precision, int *scale)
{
	*precision = ((typmod - TY_VARHDRSZ) >> 16) & 0xffff;
	*scale = (((typmod - TY_VARHDRSZ) & 0x7ff) ^ 1024) - 1024;
}

static void check_special_typmod(int sign, int32_t typmod)
{
	if (sign == TY_NUMERIC_NAN || typmod < TY_VARHDRSZ)
		return;
	int p, s;
	typmod_decode(typmod, &p, &s);
	util_err *e = ty_errstart(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow");
	util_err_detail(e, "A field with precision %d, scale %d cannot hold an infinite value.", p, s);
	ty_errthrow();
}

void nv_apply_typmod(nvar *v, int32_t typmod)
{
	if (typmod < TY_VARHDRSZ)
		return;
	int precision, scale;
	typmod_decode(typmod, &precision, &scale);
	int maxdigits = precision - scale;
	nv_round(v, scale);
	if (v->dscale < 0)
		v->dscale = 0;
	/* Overflow check after rounding (rounding can raise the weight); a
	 * true zero's weight means nothing. */
	int ddigits = (v->weight + 1) * DEC_DIGITS;
	if (ddigits <= maxdigits)
		return;
	for (int i = 0; i < v->ndigits; i++) {
		int d = v->digits[i];
		if (d) {
			ddigits -= d < 10 ? 3 : d < 100 ? 2 : d < 1000 ? 1 : 0;
			if (ddigits > maxdigits) {
				util_err *e =
				    ty_errstart(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "numeric field overflow");
				util_err_detail(
				    e,
				    "A field with precision %d, scale %d must round to an absolute value "
				    "less than %s%d.",
				    precision, scale, maxdigits ? "10^" : "", maxdigits ? maxdigits : 1);
				ty_errthrow();
			}
			break;
		}
		ddigits -= DEC_DIGITS;
	}
}

ty_datum ty_numeric_parse(const char *s, size_t len, int32_t typmod)
{
	char *buf = ty_strndup(s, len);
	const char *cp = buf;
	while (*cp && num_isspace(*cp))
		cp++;
	int sign;
	size_t n;
	nvar v;
	if (special_word(cp, &sign, &n)) {
		cp += n;
		while (*cp) {
			if (!num_isspace(*cp))
				num_err_syntax("numeric", s, len);
			cp++;
		}
		check_special_typmod(sign, typmod);
		nv_init(&v);
		v.sign = sign;
		return nv_to_datum(&v);
	}
	cp = parse_finite(cp, s, len, &v);
	while (*cp) {
		if (!num_isspace(*cp))
			num_err_syntax("numeric", s, len);
		cp++;
	}
	nv_apply_typmod(&v, typmod);
	return nv_to_datum(&v);
}

/* ---------------------------------------------------------------- text out */

void nv_out(const nvar *v, int dscale, util_buf *out)
{
	if (v->sign == TY_NUMERIC_NAN) {
		util_buf_puts(out, "NaN");
		return;
	}
	if (v->sign == TY_NUMERIC_PINF || v->sign == TY_NUMERIC_NINF) {
		util_buf_puts(out, v->sign == TY_NUMERIC_PINF ? "Infinity" : "-Infinity");
		return;
	}
	int ipart = (v->weight + 1) * DEC_DIGITS;
	util_buf_reserve(out, (size_t)(ipart > 0 ? ipart : 1) + (size_t)dscale + DEC_DIGITS + 3);
	if (v->sign == TY_NUMERIC_NEG)
		util_buf_putc(out, '-');
	int d;
	if (v->weight < 0) {
		d = v->weight + 1;
		util_buf_putc(out, '0');
	} else {
		for (d = 0; d <= v->weight; d++) {
			int dig = d < v->ndigits ? v->digits[d] : 0;
			char q[4] = {(char)('0' + dig / 1000), (char)('0' + dig / 100 % 10),
				     (char)('0' + dig / 10 % 10), (char)('0' + dig % 10)};
			int skip = 0;
			if (d == 0) /* no leading zeros in the first digit */
				skip = dig >= 1000 ? 0 : dig >= 100 ? 1 : dig >= 10 ? 2 : 3;
			util_buf_append(out, q + skip, (size_t)(4 - skip));
		}
	}
	if (dscale > 0) {
		util_buf_putc(out, '.');
		for (int i = 0; i < dscale; d++, i += DEC_DIGITS) {
			int dig = d >= 0 && d < v->ndigits ? v->digits[d] : 0;
			char q[4] = {(char)('0' + dig / 1000), (char)('0' + dig / 100 % 10),
				     (char)('0' + dig / 10 % 10), (char)('0' + dig % 10)};
			util_buf_append(out, q, (size_t)UTIL_MIN(4, dscale - i));
		}
	}
}

static int dig_at(const uint8_t *p, int i)
{
	const uint8_t *d = p + TY_NUMERIC_HDRSZ + 2 * i;
	return (int16_t)(uint16_t)(d[0] | d[1] << 8);
}

/* Four decimal digits of a base-10000 digit, the first `skip` left out. */
static char *dig4(char *q, int dig, int skip, int n)
{
	if (UTIL_UNLIKELY(dig < 0 || dig > 9999))
		dig = 0; /* a malformed datum (a digit is 0..9999): not read out of the table */
	const char *hi = &num_digit_pairs[2 * (dig / 100)], *lo = &num_digit_pairs[2 * (dig % 100)];
	char t[4] = {hi[0], hi[1], lo[0], lo[1]};
	for (int i = skip; i < n; i++)
		*q++ = t[i];
	return q;
}

/* nv_out of a finite value up to ~100 characters, read straight from the
 * datum and built on the stack: result sets print many short numerics
 * (amounts), and the nvar copy plus a buffer call per digit group was most
 * of their cost. False (nothing appended) for other values. */
static bool format_short(ty_datum n, util_buf *out)
{
	const uint8_t *p = n.p;
	if (n.len < TY_NUMERIC_HDRSZ || (n.len - TY_NUMERIC_HDRSZ) % 2)
		return false;
	int nd = (int)(n.len - TY_NUMERIC_HDRSZ) / 2;
	int sign = p[0] | p[1] << 8, weight = (int16_t)(uint16_t)(p[2] | p[3] << 8),
	    dscale = p[4] | p[5] << 8;
	if ((sign != TY_NUMERIC_POS && sign != TY_NUMERIC_NEG) || weight > 16 || dscale > 32)
		return false;
	char b[128], *q = b;
	if (sign == TY_NUMERIC_NEG)
		*q++ = '-';
	int d;
	if (weight < 0) {
		d = weight + 1;
		*q++ = '0';
	} else {
		for (d = 0; d <= weight; d++) {
			int dig = d < nd ? dig_at(p, d) : 0;
			int skip = d ? 0 : dig >= 1000 ? 0 : dig >= 100 ? 1 : dig >= 10 ? 2 : 3;
			q = dig4(q, dig, skip, 4);
		}
	}
	if (dscale > 0) {
		*q++ = '.';
		for (int i = 0; i < dscale; d++, i += DEC_DIGITS) {
			int dig = d >= 0 && d < nd ? dig_at(p, d) : 0;
			q = dig4(q, dig, 0, UTIL_MIN(4, dscale - i));
		}
	}
	util_buf_append(out, b, (size_t)(q - b));
	return true;
}

void ty_numeric_format(ty_datum n, util_buf *out)
{
	if (format_short(n, out))
		return;
	nvar v;
	nv_from_datum(n, &v);
	nv_out(&v, v.dscale, out);
}

/* ---------------------------------------------------------------- binary */

static ty_datum numeric_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len < 8)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	int n = p[0] << 8 | p[1];
	num_recv_check(len, 8 + 2 * (size_t)n);
	nvar v;
	nv_alloc(&v, n);
	v.weight = (int16_t)(p[2] << 8 | p[3]);
	v.sign = p[4] << 8 | p[5];
	if (v.sign != TY_NUMERIC_POS && v.sign != TY_NUMERIC_NEG && v.sign != TY_NUMERIC_NAN &&
	    v.sign != TY_NUMERIC_PINF && v.sign != TY_NUMERIC_NINF)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid sign in external \"numeric\" value");
	v.dscale = p[6] << 8 | p[7];
	if ((v.dscale & NUM_DSCALE_MAX) != v.dscale)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid scale in external \"numeric\" value");
	for (int i = 0; i < n; i++) {
		int d = (int16_t)(p[8 + 2 * i] << 8 | p[9 + 2 * i]);
		if (d < 0 || d >= NBASE)
			ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION,
				 "invalid digit in external \"numeric\" value");
		v.digits[i] = (ndig)d;
	}
	if (!nv_special(&v)) {
		/* a dscale that hides digits truncates them, as PostgreSQL */
		nv_trunc(&v, v.dscale);
		nv_apply_typmod(&v, typmod);
	} else {
		check_special_typmod(v.sign, typmod);
	}
	return nv_to_datum(&v);
}

static void numeric_send(ty_datum d, util_buf *out)
{
	nvar v;
	nv_from_datum(d, &v);
	util_buf_put_be16(out, (uint16_t)v.ndigits);
	util_buf_put_be16(out, (uint16_t)(int16_t)v.weight);
	util_buf_put_be16(out, (uint16_t)v.sign);
	/* PostgreSQL reads the infinities' dscale out of their header bits as
	 * if they were short-format numerics, which gives 32; clients see it. */
	util_buf_put_be16(out, (uint16_t)(nv_isinf(&v) ? 32 : v.dscale));
	for (int i = 0; i < v.ndigits; i++)
		util_buf_put_be16(out, (uint16_t)v.digits[i]);
}

/* ---------------------------------------------------------------- order */

/* -Infinity < finite < +Infinity < NaN (NaN = NaN). */
static int special_rank(int sign)
{
	switch (sign) {
	case TY_NUMERIC_NINF:
		return -1;
	case TY_NUMERIC_PINF:
		return 1;
	case TY_NUMERIC_NAN:
		return 2;
	default:
		return 0;
	}
}

/* Datum accessors for the allocation-free paths (order, hash): datums
 * are always normalised (no leading/trailing zero digits). */
static inline uint16_t dn16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline int dn_sign(ty_datum d)
{
	return dn16(d.p);
}
static inline int dn_weight(ty_datum d)
{
	return (int16_t)dn16((const uint8_t *)d.p + 2);
}
static inline int dn_ndigits(ty_datum d)
{
	return (int)(d.len - TY_NUMERIC_HDRSZ) / 2;
}
static inline int dn_digit(ty_datum d, int i)
{
	return dn16((const uint8_t *)d.p + TY_NUMERIC_HDRSZ + 2 * i);
}

int ty_numeric_cmp(ty_datum a, ty_datum b)
{
	int sa = dn_sign(a), sb = dn_sign(b);
	int rx = special_rank(sa), ry = special_rank(sb);
	if (rx || ry)
		return (rx > ry) - (rx < ry);
	int na = dn_ndigits(a), nb = dn_ndigits(b);
	int ga = na == 0 ? 0 : sa == TY_NUMERIC_NEG ? -1 : 1;
	int gb = nb == 0 ? 0 : sb == TY_NUMERIC_NEG ? -1 : 1;
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (ga == 0)
		return 0;
	/* same sign: compare magnitudes, then flip for negatives */
	int c = 0, wa = dn_weight(a), wb = dn_weight(b);
	if (wa != wb) {
		c = wa > wb ? 1 : -1;
	} else {
		int n = na < nb ? na : nb;
		for (int i = 0; i < n && !c; i++) {
			int x = dn_digit(a, i), y = dn_digit(b, i);
			c = (x > y) - (x < y);
		}
		if (!c)
			c = (na > nb) - (na < nb);
	}
	return ga > 0 ? c : -c;
}

/* Hash of sign, weight and digits: dscale is ignored so 1.0 and 1.00 hash
 * alike. */
uint64_t ty_numeric_hash(ty_datum n)
{
	int sign = dn_sign(n);
	if ((sign & 0xC000) == 0xC000)
		return util_hash_mix((uint64_t)sign);
	if (dn_ndigits(n) == 0)
		return util_hash_mix(0x5eed);
	return util_hash64((const uint8_t *)n.p + TY_NUMERIC_HDRSZ, n.len - TY_NUMERIC_HDRSZ,
			   (uint64_t)(dn_weight(n) * 2 + (sign != 0)));
}

/*
 * Key encoding (docs/key-encoding.md): a class byte, then for finite
 * nonzero values the weight and the digits, inverted for negatives:
 *   0x01 -Infinity | 0x02 negative | 0x03 zero | 0x04 positive |
 *   0x05 +Infinity | 0x06 NaN
 *   finite: be16(weight ^ 0x8000), each digit as be16(digit + 1), then
 *   0x0000 (all of it bit-inverted for negatives).
 * Lossy: the display scale is not kept (1.0 decodes as 1).
 */
enum { NK_NINF = 1, NK_NEG, NK_ZERO, NK_POS, NK_PINF, NK_NAN };

static void numeric_keyenc(ty_datum d, util_buf *out)
{
	nvar v;
	nv_from_datum(d, &v);
	nv_strip(&v);
	uint8_t cls = v.sign == TY_NUMERIC_NAN    ? NK_NAN
		      : v.sign == TY_NUMERIC_PINF ? NK_PINF
		      : v.sign == TY_NUMERIC_NINF ? NK_NINF
		      : v.ndigits == 0            ? NK_ZERO
		      : v.sign == TY_NUMERIC_NEG  ? NK_NEG
						  : NK_POS;
	util_buf_put_u8(out, cls);
	if (cls != NK_NEG && cls != NK_POS)
		return;
	uint16_t inv = cls == NK_NEG ? 0xffff : 0;
	util_buf_put_be16(out, (uint16_t)((uint16_t)(int16_t)v.weight ^ 0x8000) ^ inv);
	for (int i = 0; i < v.ndigits; i++)
		util_buf_put_be16(out, (uint16_t)(v.digits[i] + 1) ^ inv);
	util_buf_put_be16(out, inv);
}

static size_t numeric_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (p >= end)
		return 0;
	nvar v;
	nv_init(&v);
	switch (p[0]) {
	case NK_NAN:
		v.sign = TY_NUMERIC_NAN;
		break;
	case NK_PINF:
		v.sign = TY_NUMERIC_PINF;
		break;
	case NK_NINF:
		v.sign = TY_NUMERIC_NINF;
		break;
	case NK_ZERO:
		break;
	case NK_POS:
	case NK_NEG: {
		uint16_t inv = p[0] == NK_NEG ? 0xffff : 0;
		const uint8_t *q = p + 1;
		if (end - q < 2)
			return 0;
		int weight = (int16_t)(((uint16_t)(q[0] << 8 | q[1]) ^ inv) ^ 0x8000);
		q += 2;
		size_t n = 0;
		for (;;) {
			if (end - q < 2 * (ptrdiff_t)(n + 1))
				return 0;
			uint16_t x = (uint16_t)(q[2 * n] << 8 | q[2 * n + 1]) ^ inv;
			if (x == 0)
				break;
			if (x > NBASE)
				return 0;
			n++;
		}
		if (n == 0)
			return 0;
		nv_alloc(&v, (int)n);
		for (size_t i = 0; i < n; i++)
			v.digits[i] = (ndig)(((uint16_t)(q[2 * i] << 8 | q[2 * i + 1]) ^ inv) - 1);
		/* The encoder writes normalized values: a zero first or last
		 * digit is malformed (and a zero last digit would loop below). */
		if (v.digits[0] == 0 || v.digits[n - 1] == 0)
			return 0;
		v.weight = weight;
		v.sign = p[0] == NK_NEG ? TY_NUMERIC_NEG : TY_NUMERIC_POS;
		/* the smallest display scale that shows every digit */
		int ds = (v.ndigits - 1 - v.weight) * DEC_DIGITS;
		if (ds > 0) {
			int last = v.digits[v.ndigits - 1];
			while (last % 10 == 0) {
				ds--;
				last /= 10;
			}
		}
		v.dscale = ds > 0 ? ds : 0;
		*out = nv_to_datum(&v);
		return 1 + 2 + 2 * n + 2;
	}
	default:
		return 0;
	}
	*out = nv_to_datum(&v);
	return 1;
}

/* ---------------------------------------------------------------- type entry */

static ty_datum numeric_in(const char *s, size_t len, int32_t typmod)
{
	return ty_numeric_parse(s, len, typmod);
}

static void numeric_out(ty_datum v, util_buf *out)
{
	ty_numeric_format(v, out);
}

static ty_datum numeric_typmod_apply(ty_datum d, int32_t typmod, bool explicit_cast)
{
	(void)explicit_cast;
	nvar v;
	nv_from_datum(d, &v);
	if (nv_special(&v)) {
		check_special_typmod(v.sign, typmod);
		return d;
	}
	nv_apply_typmod(&v, typmod);
	return nv_to_datum(&v);
}

static void numeric_typmod_out(int32_t typmod, util_buf *out)
{
	if (typmod < TY_VARHDRSZ)
		return;
	int p, s;
	typmod_decode(typmod, &p, &s);
	util_buf_printf(out, "(%d,%d)", p, s);
}

const ty_type num_numeric_type = {.oid = TY_NUMERIC,
				  .name = "numeric",
				  .len = -1,
				  .category = 'N',
				  .typtype = 'b',
				  .align = 'i',
				  .array = TY_NUMERIC_ARRAY,
				  .in = numeric_in,
				  .out = numeric_out,
				  .recv = numeric_recv,
				  .send = numeric_send,
				  .cmp = ty_numeric_cmp,
				  .hash = ty_numeric_hash,
				  .keyenc = numeric_keyenc,
				  .keydec = numeric_keydec,
				  .key_lossy = true,
				  .typmod_apply = numeric_typmod_apply,
				  .typmod_out = numeric_typmod_out,
				  .input_name = "numeric_in",
				  .output_name = "numeric_out"};

/* ---------------------------------------------------------------- numeric.h */

int32_t ty_numeric_typmod(int precision, int scale)
{
	if (precision < 1 || precision > NUM_MAX_PRECISION)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "NUMERIC precision %d must be between 1 and %d",
			 precision, NUM_MAX_PRECISION);
	if (scale < -1000 || scale > 1000)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "NUMERIC scale %d must be between %d and %d", scale,
			 -1000, 1000);
	return ((precision << 16) | (scale & 0x7ff)) + TY_VARHDRSZ;
}
