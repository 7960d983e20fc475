/*
 * num_float.c — the float4 (real) and float8 (double precision) types:
 * PostgreSQL's input rules (strtod plus NaN/Infinity spellings, range
 * errors), output (shortest round-trip digits when extra_float_digits > 0,
 * else %.*g with 15/6 + extra_float_digits digits), binary I/O, the btree
 * order (NaN greatest, NaN = NaN, -0 = 0), hashing and key encoding.
 */
#include "num_priv.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int num_float8_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) - (a < b);
}

/* A NUL-terminated copy of s[0..len) in the arena (strtod needs one). */
static char *cstr(const char *s, size_t len)
{
	return ty_strndup(s, len);
}

/* The NaN/Infinity spellings PostgreSQL checks itself when strtod fails. */
static bool special_word(const char *num, double *val, const char **endp)
{
	static const struct {
		const char *w;
		double v;
	} words[] = {
	    {"NaN", NAN},      {"Infinity", INFINITY}, {"+Infinity", INFINITY}, {"-Infinity", -INFINITY},
	    {"inf", INFINITY}, {"+inf", INFINITY},     {"-inf", -INFINITY}};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(words); i++) {
		size_t n = strlen(words[i].w);
		if (strncasecmp(num, words[i].w, n) == 0) {
			*val = words[i].v;
			*endp = num + n;
			return true;
		}
	}
	return false;
}

/* A plain integer of up to 15 digits (an optional '-', not -0) is exactly
 * a double, the one strtod would return: taken without the copy and strtod
 * (pgbench's \set values sent as float8 parameters, issue 14's w1). */
static bool plain_integer(const char *s, size_t len, double *out)
{
	bool neg = len > 1 && s[0] == '-';
	size_t i = neg;
	if (len - i == 0 || len - i > 15)
		return false;
	int64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (neg && v == 0)
		return false;
	*out = (double)(neg ? -v : v);
	return true;
}

double num_float8_parse(const char *s, size_t len, const char *typname, const char *orig, size_t origlen)
{
	double fast;
	if (plain_integer(s, len, &fast))
		return fast;
	char *buf = cstr(s, len);
	const char *num = buf;
	while (*num && num_isspace(*num))
		num++;
	if (*num == '\0')
		num_err_syntax(typname, orig, origlen);
	errno = 0;
	char *endptr;
	double val = strtod(num, &endptr);
	const char *end = endptr;
	if (end == num || errno != 0) {
		int save = errno;
		if (!special_word(num, &val, &end)) {
			if (save == ERANGE) {
				/* Denormals come back with ERANGE too; only zero
				 * or infinite results are really out of range. */
				if (val == 0.0 || val >= HUGE_VAL || val <= -HUGE_VAL)
					ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE,
						 "\"%.*s\" is out of range for type double precision",
						 (int)(end - num), num);
			} else {
				num_err_syntax(typname, orig, origlen);
			}
		}
	}
	while (*end && num_isspace(*end))
		end++;
	if (*end)
		num_err_syntax(typname, orig, origlen);
	return val;
}

float num_float4_parse(const char *s, size_t len)
{
	char *buf = cstr(s, len);
	const char *num = buf;
	while (*num && num_isspace(*num))
		num++;
	if (*num == '\0')
		num_err_syntax("real", s, len);
	errno = 0;
	char *endptr;
	float val = strtof(num, &endptr);
	const char *end = endptr;
	if (end == num || errno != 0) {
		int save = errno;
		double dv;
		if (special_word(num, &dv, &end)) {
			val = (float)dv;
		} else if (save == ERANGE) {
			if (val == 0.0f || val >= HUGE_VALF || val <= -HUGE_VALF)
				ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE,
					 "\"%.*s\" is out of range for type real", (int)len, s);
		} else {
			num_err_syntax("real", s, len);
		}
	}
	while (*end && num_isspace(*end))
		end++;
	if (*end)
		num_err_syntax("real", s, len);
	return val;
}

/* ---------------------------------------------------------------- output */

/* Formats digits d[0..n) with decimal exponent x (value = d.ddd * 10^x)
 * the way PostgreSQL's Ryu-based output does: fixed notation when
 * -4 <= x < maxfixed, else d.ddde+XX. */
static void put_digits(util_buf *out, bool neg, const char *d, int n, int x, int maxfixed)
{
	if (neg)
		util_buf_putc(out, '-');
	if (x >= -4 && x < maxfixed) {
		if (x < 0) {
			util_buf_puts(out, "0.");
			for (int i = 0; i < -x - 1; i++)
				util_buf_putc(out, '0');
			util_buf_append(out, d, (size_t)n);
		} else if (n <= x + 1) {
			util_buf_append(out, d, (size_t)n);
			for (int i = n; i <= x; i++)
				util_buf_putc(out, '0');
		} else {
			util_buf_append(out, d, (size_t)x + 1);
			util_buf_putc(out, '.');
			util_buf_append(out, d + x + 1, (size_t)(n - x - 1));
		}
		return;
	}
	util_buf_putc(out, d[0]);
	if (n > 1) {
		util_buf_putc(out, '.');
		util_buf_append(out, d + 1, (size_t)n - 1);
	}
	util_buf_printf(out, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
}

static bool put_special(double v, util_buf *out)
{
	if (isnan(v))
		util_buf_puts(out, "NaN");
	else if (isinf(v))
		util_buf_puts(out, v > 0 ? "Infinity" : "-Infinity");
	else
		return false;
	return true;
}

/* %.*g as pg_strfromd: plain printf except for the special values. */
static void put_g(util_buf *out, double v, int ndig)
{
	if (ndig < 1)
		ndig = 1;
	util_buf_printf(out, "%.*g", ndig, v);
}

void num_float8_out(double v, util_buf *out)
{
	if (put_special(v, out))
		return;
	int efd = ty_get_settings()->extra_float_digits;
	if (efd > 0) {
		if (v == 0) {
			util_buf_puts(out, signbit(v) ? "-0" : "0");
			return;
		}
		char d[32];
		int x;
		int n = num_shortest_double(fabs(v), d, &x);
		put_digits(out, signbit(v), d, n, x, 15);
		return;
	}
	put_g(out, v, DBL_DIG + efd);
}

void num_float4_out(float v, util_buf *out)
{
	if (put_special(v, out))
		return;
	int efd = ty_get_settings()->extra_float_digits;
	if (efd > 0) {
		if (v == 0) {
			util_buf_puts(out, signbit(v) ? "-0" : "0");
			return;
		}
		char d[32];
		int x;
		int n = num_shortest_float(fabsf(v), d, &x);
		put_digits(out, signbit(v), d, n, x, 6);
		return;
	}
	put_g(out, v, FLT_DIG + efd);
}

/* ---------------------------------------------------------------- type entries */

static ty_datum float8_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_float(num_float8_parse(s, len, "double precision", s, len));
}

static ty_datum float4_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_float(num_float4_parse(s, len));
}

static void float8_out(ty_datum v, util_buf *out)
{
	num_float8_out(v.f, out);
}
static void float4_out(ty_datum v, util_buf *out)
{
	num_float4_out((float)v.f, out);
}

static ty_datum float8_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 8);
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = (u << 8) | p[i];
	double d;
	memcpy(&d, &u, 8);
	return ty_float(d);
}

static ty_datum float4_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 4);
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	float f;
	memcpy(&f, &u, 4);
	return ty_float(f);
}

static void float8_send(ty_datum v, util_buf *out)
{
	uint64_t u;
	memcpy(&u, &v.f, 8);
	util_buf_put_be64(out, u);
}

static void float4_send(ty_datum v, util_buf *out)
{
	float f = (float)v.f;
	uint32_t u;
	memcpy(&u, &f, 4);
	util_buf_put_be32(out, u);
}

static int float_cmp(ty_datum a, ty_datum b)
{
	return num_float8_cmp(a.f, b.f);
}

/* -0 and 0 hash alike, every NaN alike; float4 values hash as the equal
 * float8 so that cross-type hash joins work. */
static uint64_t float_hash(ty_datum a)
{
	double d = a.f;
	if (d == 0)
		return 0;
	if (isnan(d))
		d = NAN;
	uint64_t u;
	memcpy(&u, &d, 8);
	return util_hash_mix(u);
}

/* Key: the float8 bits (float4 widened, exactly), -0 as 0, NaN canonical;
 * negative values have every bit flipped, others only the sign bit. */
static void float_keyenc(ty_datum v, util_buf *out)
{
	double d = v.f;
	if (d == 0)
		d = 0;
	if (isnan(d))
		d = NAN;
	uint64_t u;
	memcpy(&u, &d, 8);
	if (isnan(d))
		u = UINT64_C(0x7ff8000000000000);
	u = (u >> 63) ? ~u : u ^ (UINT64_C(1) << 63);
	util_buf_put_be64(out, u);
}

static size_t float_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 8)
		return 0;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = (u << 8) | p[i];
	u = (u >> 63) ? u ^ (UINT64_C(1) << 63) : ~u;
	double d;
	memcpy(&d, &u, 8);
	*out = ty_float(d);
	return 8;
}

const ty_type num_float_types[2] = {
    {.oid = TY_FLOAT4,
     .name = "float4",
     .sqlname = "real",
     .len = 4,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'i',
     .array = TY_FLOAT4_ARRAY,
     .in = float4_in,
     .out = float4_out,
     .recv = float4_recv,
     .send = float4_send,
     .cmp = float_cmp,
     .hash = float_hash,
     .keyenc = float_keyenc,
     .keydec = float_keydec,
     .key_lossy = true,
     .input_name = "float4in",
     .output_name = "float4out"},
    {.oid = TY_FLOAT8,
     .name = "float8",
     .sqlname = "double precision",
     .len = 8,
     .byval = true,
     .category = 'N',
     .preferred = true,
     .typtype = 'b',
     .align = 'd',
     .array = TY_FLOAT8_ARRAY,
     .in = float8_in,
     .out = float8_out,
     .recv = float8_recv,
     .send = float8_send,
     .cmp = float_cmp,
     .hash = float_hash,
     .keyenc = float_keyenc,
     .keydec = float_keydec,
     .key_lossy = true,
     .input_name = "float8in",
     .output_name = "float8out"},
};
