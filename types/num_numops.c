/*
 * num_numops.c — numeric arithmetic with PostgreSQL 15's special-value
 * rules (NaN, +-Infinity) and result scales: + - * / % div, unary, abs,
 * sign, comparison, larger/smaller, round/trunc/ceil/floor, scale,
 * min_scale, trim_scale, gcd/lcm, factorial, inc, and the casts between
 * numeric and the integer and float types. Also the numeric.h API.
 */
#include "num_priv.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static ty_datum special(int sign)
{
	nvar v;
	nv_init(&v);
	v.sign = sign;
	return nv_to_datum(&v);
}

static int dsign(ty_datum d)
{
	return ((const uint8_t *)d.p)[0] | ((const uint8_t *)d.p)[1] << 8;
}
static bool is_special(ty_datum d)
{
	return (dsign(d) & 0xC000) == 0xC000;
}
static bool is_nan(ty_datum d)
{
	return dsign(d) == TY_NUMERIC_NAN;
}
static bool is_pinf(ty_datum d)
{
	return dsign(d) == TY_NUMERIC_PINF;
}
static bool is_ninf(ty_datum d)
{
	return dsign(d) == TY_NUMERIC_NINF;
}
static bool is_inf(ty_datum d)
{
	return is_pinf(d) || is_ninf(d);
}

/* numeric_sign_internal: -1/0/1 (infinities included; not for NaN). */
static int sign_of(ty_datum d)
{
	if (is_pinf(d))
		return 1;
	if (is_ninf(d))
		return -1;
	if (d.len == TY_NUMERIC_HDRSZ)
		return 0;
	return dsign(d) == TY_NUMERIC_NEG ? -1 : 1;
}

static ty_datum finish(nvar *v)
{
	return nv_to_datum(v);
}

/* ---------------------------------------------------------------- + - * / */

ty_datum ty_numeric_add(ty_datum a, ty_datum b)
{
	if (is_special(a) || is_special(b)) {
		if (is_nan(a) || is_nan(b))
			return special(TY_NUMERIC_NAN);
		if (is_pinf(a))
			return special(is_ninf(b) ? TY_NUMERIC_NAN : TY_NUMERIC_PINF);
		if (is_ninf(a))
			return special(is_pinf(b) ? TY_NUMERIC_NAN : TY_NUMERIC_NINF);
		return special(is_pinf(b) ? TY_NUMERIC_PINF : TY_NUMERIC_NINF);
	}
	nvar x, y, r;
	nv_from_datum(a, &x);
	nv_from_datum(b, &y);
	nv_add(&x, &y, &r);
	return finish(&r);
}

ty_datum ty_numeric_sub(ty_datum a, ty_datum b)
{
	if (is_special(a) || is_special(b)) {
		if (is_nan(a) || is_nan(b))
			return special(TY_NUMERIC_NAN);
		if (is_pinf(a))
			return special(is_pinf(b) ? TY_NUMERIC_NAN : TY_NUMERIC_PINF);
		if (is_ninf(a))
			return special(is_ninf(b) ? TY_NUMERIC_NAN : TY_NUMERIC_NINF);
		return special(is_pinf(b) ? TY_NUMERIC_NINF : TY_NUMERIC_PINF);
	}
	nvar x, y, r;
	nv_from_datum(a, &x);
	nv_from_datum(b, &y);
	nv_sub(&x, &y, &r);
	return finish(&r);
}

static ty_datum inf_times(int infsign, int s)
{
	if (s == 0)
		return special(TY_NUMERIC_NAN);
	return special(infsign * s > 0 ? TY_NUMERIC_PINF : TY_NUMERIC_NINF);
}

ty_datum ty_numeric_mul(ty_datum a, ty_datum b)
{
	if (is_special(a) || is_special(b)) {
		if (is_nan(a) || is_nan(b))
			return special(TY_NUMERIC_NAN);
		if (is_inf(a))
			return inf_times(sign_of(a), sign_of(b));
		return inf_times(sign_of(b), sign_of(a));
	}
	nvar x, y, r;
	nv_from_datum(a, &x);
	nv_from_datum(b, &y);
	/* exact product; rounded only if its scale does not fit the format */
	nv_mul(&x, &y, &r, x.dscale + y.dscale);
	if (r.dscale > NUM_DSCALE_MAX)
		nv_round(&r, NUM_DSCALE_MAX);
	return finish(&r);
}

/* Special-value rules shared by / and div(); NULL datum when both finite. */
static bool div_special(ty_datum a, ty_datum b, ty_datum *res)
{
	if (!is_special(a) && !is_special(b))
		return false;
	if (is_nan(a) || is_nan(b)) {
		*res = special(TY_NUMERIC_NAN);
	} else if (is_inf(a)) {
		if (is_special(b)) {
			*res = special(TY_NUMERIC_NAN);
		} else {
			int s = sign_of(b);
			if (s == 0)
				num_err_div0();
			*res = special(s * sign_of(a) > 0 ? TY_NUMERIC_PINF : TY_NUMERIC_NINF);
		}
	} else {
		/* finite / infinity: zero (numeric has no underflow) */
		nvar z;
		nv_init(&z);
		*res = finish(&z);
	}
	return true;
}

ty_datum ty_numeric_div(ty_datum a, ty_datum b)
{
	ty_datum res;
	if (div_special(a, b, &res))
		return res;
	nvar x, y, r;
	nv_from_datum(a, &x);
	nv_from_datum(b, &y);
	if (y.ndigits == 0)
		num_err_div0();
	int rscale = nv_select_div_scale(&x, &y);
	nv_div(&x, &y, &r, rscale, true);
	return finish(&r);
}

ty_datum ty_numeric_mod(ty_datum a, ty_datum b)
{
	if (is_special(a) || is_special(b)) {
		if (is_nan(a) || is_nan(b))
			return special(TY_NUMERIC_NAN);
		if (is_inf(a)) {
			if (sign_of(b) == 0)
				num_err_div0();
			return special(TY_NUMERIC_NAN);
		}
		return a; /* finite % infinity = the finite value */
	}
	nvar x, y, r;
	nv_from_datum(a, &x);
	nv_from_datum(b, &y);
	if (y.ndigits == 0)
		num_err_div0();
	nv_mod(&x, &y, &r);
	return finish(&r);
}

ty_datum ty_numeric_neg(ty_datum a)
{
	if (is_nan(a))
		return a;
	if (is_inf(a))
		return special(is_pinf(a) ? TY_NUMERIC_NINF : TY_NUMERIC_PINF);
	nvar x;
	nv_from_datum(a, &x);
	if (x.ndigits)
		x.sign = x.sign == TY_NUMERIC_NEG ? TY_NUMERIC_POS : TY_NUMERIC_NEG;
	return finish(&x);
}

NUMFN(numeric_add)
{
	return ty_numeric_add(ARG(0), ARG(1));
}
NUMFN(numeric_sub)
{
	return ty_numeric_sub(ARG(0), ARG(1));
}
NUMFN(numeric_mul)
{
	return ty_numeric_mul(ARG(0), ARG(1));
}
NUMFN(numeric_div)
{
	return ty_numeric_div(ARG(0), ARG(1));
}
NUMFN(numeric_mod)
{
	return ty_numeric_mod(ARG(0), ARG(1));
}
NUMFN(numeric_uminus)
{
	return ty_numeric_neg(ARG(0));
}
NUMFN(numeric_uplus)
{
	return ARG(0);
}

NUMFN(numeric_div_trunc)
{
	ty_datum res;
	if (div_special(ARG(0), ARG(1), &res))
		return res;
	nvar x, y, r;
	nv_from_datum(ARG(0), &x);
	nv_from_datum(ARG(1), &y);
	if (y.ndigits == 0)
		num_err_div0();
	nv_div(&x, &y, &r, 0, false);
	return finish(&r);
}

NUMFN(numeric_abs)
{
	if (is_ninf(ARG(0)))
		return special(TY_NUMERIC_PINF);
	if (is_special(ARG(0)))
		return ARG(0);
	nvar x;
	nv_from_datum(ARG(0), &x);
	x.sign = TY_NUMERIC_POS;
	return finish(&x);
}

NUMFN(numeric_sign)
{
	if (is_nan(ARG(0)))
		return ARG(0);
	return ty_numeric_from_int64(sign_of(ARG(0)));
}

NUMFN(numeric_inc)
{
	if (is_special(ARG(0)))
		return ARG(0);
	nvar x, r;
	nv_from_datum(ARG(0), &x);
	nv_add(&x, &nv_const_one, &r);
	return finish(&r);
}

/* ---------------------------------------------------------------- compare */

NUMFN(numeric_eq)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) == 0);
}
NUMFN(numeric_ne)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) != 0);
}
NUMFN(numeric_lt)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) < 0);
}
NUMFN(numeric_le)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) <= 0);
}
NUMFN(numeric_gt)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) > 0);
}
NUMFN(numeric_ge)
{
	return ty_bool(ty_numeric_cmp(ARG(0), ARG(1)) >= 0);
}
NUMFN(numeric_cmp)
{
	return ty_int(ty_numeric_cmp(ARG(0), ARG(1)));
}
NUMFN(numeric_larger)
{
	return ty_numeric_cmp(ARG(0), ARG(1)) > 0 ? ARG(0) : ARG(1);
}
NUMFN(numeric_smaller)
{
	return ty_numeric_cmp(ARG(0), ARG(1)) < 0 ? ARG(0) : ARG(1);
}

/* ---------------------------------------------------------------- rounding */

/* round/trunc scale limits: the digits a numeric can hold on either side
 * of the point, plus one before it for a carry out of rounding. */
static int clamp_scale(int64_t s)
{
	if (s < -(NUM_WEIGHT_MAX + 1) * DEC_DIGITS - 1)
		return -(NUM_WEIGHT_MAX + 1) * DEC_DIGITS - 1;
	if (s > NUM_DSCALE_MAX)
		return NUM_DSCALE_MAX;
	return (int)s;
}

ty_datum ty_numeric_round(ty_datum n, int scale)
{
	if (is_special(n))
		return n;
	scale = clamp_scale(scale);
	nvar x;
	nv_from_datum(n, &x);
	nv_round(&x, scale);
	if (scale < 0)
		x.dscale = 0;
	return finish(&x);
}

static ty_datum do_trunc(ty_datum n, int scale)
{
	if (is_special(n))
		return n;
	scale = clamp_scale(scale);
	nvar x;
	nv_from_datum(n, &x);
	nv_trunc(&x, scale);
	if (scale < 0)
		x.dscale = 0;
	return finish(&x);
}

NUMFN(numeric_round)
{
	return ty_numeric_round(ARG(0), (int)ARG_I(1));
}
NUMFN(numeric_trunc)
{
	return do_trunc(ARG(0), (int)ARG_I(1));
}
NUMFN(sql_numeric_round)
{
	return ty_numeric_round(ARG(0), 0);
}
NUMFN(sql_numeric_trunc)
{
	return do_trunc(ARG(0), 0);
}

NUMFN(numeric_ceil)
{
	if (is_special(ARG(0)))
		return ARG(0);
	nvar x, r;
	nv_from_datum(ARG(0), &x);
	nv_ceil(&x, &r);
	return finish(&r);
}

NUMFN(numeric_floor)
{
	if (is_special(ARG(0)))
		return ARG(0);
	nvar x, r;
	nv_from_datum(ARG(0), &x);
	nv_floor(&x, &r);
	return finish(&r);
}

/* Fewest decimals that show every nonzero digit. */
static int min_scale(const nvar *v)
{
	int last = v->ndigits - 1;
	while (last >= 0 && v->digits[last] == 0)
		last--;
	if (last < 0)
		return 0;
	int ms = (last - v->weight) * DEC_DIGITS;
	if (ms <= 0)
		return 0;
	int d = v->digits[last];
	while (d % 10 == 0) {
		ms--;
		d /= 10;
	}
	return ms;
}

NUMFN(numeric_scale)
{
	if (is_special(ARG(0)))
		return ty_null();
	return ty_int(ty_numeric_dscale(ARG(0)));
}

NUMFN(numeric_min_scale)
{
	if (is_special(ARG(0)))
		return ty_null();
	nvar x;
	nv_from_datum(ARG(0), &x);
	return ty_int(min_scale(&x));
}

NUMFN(numeric_trim_scale)
{
	if (is_special(ARG(0)))
		return ARG(0);
	nvar x;
	nv_from_datum(ARG(0), &x);
	x.dscale = min_scale(&x);
	return finish(&x);
}

/* ---------------------------------------------------------------- gcd etc */

void nv_gcd(const nvar *a, const nvar *b, nvar *r)
{
	int ds = UTIL_MAX(a->dscale, b->dscale);
	int c = nv_cmp_abs(a, b);
	if (c < 0) {
		const nvar *t = a;
		a = b;
		b = t;
	}
	nvar x, y;
	nv_set(&x, a);
	nv_set(&y, b);
	nv_strip(&y);
	if (c == 0 || y.ndigits == 0) {
		x.sign = TY_NUMERIC_POS;
		x.dscale = ds;
		*r = x;
		return;
	}
	for (;;) {
		ty_check_interrupts();
		nvar m;
		nv_mod(&x, &y, &m);
		if (m.ndigits == 0)
			break;
		x = y;
		y = m;
	}
	y.sign = TY_NUMERIC_POS;
	y.dscale = ds;
	*r = y;
}

NUMFN(numeric_gcd)
{
	if (is_special(ARG(0)) || is_special(ARG(1)))
		return special(TY_NUMERIC_NAN);
	nvar x, y, r;
	nv_from_datum(ARG(0), &x);
	nv_from_datum(ARG(1), &y);
	nv_gcd(&x, &y, &r);
	return finish(&r);
}

NUMFN(numeric_lcm)
{
	if (is_special(ARG(0)) || is_special(ARG(1)))
		return special(TY_NUMERIC_NAN);
	nvar x, y, r;
	nv_from_datum(ARG(0), &x);
	nv_from_datum(ARG(1), &y);
	if (x.ndigits == 0 || y.ndigits == 0) {
		nv_init(&r);
	} else {
		nv_gcd(&x, &y, &r);
		nv_div(&x, &r, &r, 0, false);
		nv_mul(&y, &r, &r, y.dscale);
		r.sign = TY_NUMERIC_POS;
	}
	r.dscale = UTIL_MAX(x.dscale, y.dscale);
	return finish(&r);
}

NUMFN(numeric_fac)
{
	int64_t n = ARG_I(0);
	if (n < 0)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "factorial of a negative number is undefined");
	if (n <= 1)
		return ty_numeric_from_int64(1);
	if (n > 32177)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
	nvar r, f;
	nv_from_int64(n, &r);
	for (n = n - 1; n > 1; n--) {
		ty_check_interrupts();
		nv_from_int64(n, &f);
		nv_mul(&r, &f, &r, 0);
	}
	return finish(&r);
}

/* ---------------------------------------------------------------- casts */

ty_datum ty_numeric_from_int64(int64_t v)
{
	nvar x;
	nv_from_int64(v, &x);
	return finish(&x);
}

ty_datum ty_numeric_from_double(double v)
{
	if (isnan(v))
		return special(TY_NUMERIC_NAN);
	if (isinf(v))
		return special(v > 0 ? TY_NUMERIC_PINF : TY_NUMERIC_NINF);
	nvar x;
	nv_from_double(v, &x);
	return finish(&x);
}

/* numeric -> integer: NaN/Infinity are 0A000 errors naming the type. */
static int64_t to_int(ty_datum n, const char *tname, int bits)
{
	if (is_nan(n))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot convert NaN to %s", tname);
	if (is_inf(n))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot convert infinity to %s", tname);
	nvar x;
	nv_from_datum(n, &x);
	int64_t v;
	bool ok = nv_to_int64(&x, &v);
	if (!ok || (bits == 16 && (v < INT16_MIN || v > INT16_MAX)) ||
	    (bits == 32 && (v < INT32_MIN || v > INT32_MAX))) {
		if (bits == 16)
			num_err_int2_range();
		if (bits == 32)
			num_err_int4_range();
		num_err_int8_range();
	}
	return v;
}

int64_t ty_numeric_to_int64(ty_datum n)
{
	return to_int(n, "bigint", 64);
}

NUMFN(numeric_int2)
{
	return ty_int(to_int(ARG(0), "smallint", 16));
}
NUMFN(numeric_int4)
{
	return ty_int(to_int(ARG(0), "integer", 32));
}
NUMFN(numeric_int8)
{
	return ty_int(to_int(ARG(0), "bigint", 64));
}
NUMFN(int2_numeric)
{
	return ty_numeric_from_int64(ARG_I(0));
}
NUMFN(int4_numeric)
{
	return ty_numeric_from_int64(ARG_I(0));
}
NUMFN(int8_numeric)
{
	return ty_numeric_from_int64(ARG_I(0));
}
NUMFN(float8_numeric)
{
	return ty_numeric_from_double(ARG_F(0));
}

NUMFN(float4_numeric)
{
	double v = ARG_F(0);
	if (isnan(v) || isinf(v))
		return ty_numeric_from_double(v);
	char buf[64];
	snprintf(buf, sizeof buf, "%.*g", FLT_DIG, (double)(float)v);
	return ty_numeric_parse(buf, strlen(buf), TY_TYPMOD_NONE);
}

/* numeric -> float goes through the text form and float8in/float4in, so
 * out-of-range values fail the way PostgreSQL's do. */
double ty_numeric_to_double(ty_datum n)
{
	if (is_nan(n))
		return NAN;
	if (is_inf(n))
		return is_pinf(n) ? INFINITY : -INFINITY;
	util_buf b = UTIL_BUF_INIT;
	ty_numeric_format(n, &b);
	char *s = ty_strndup(b.data, b.len);
	util_buf_free(&b);
	return num_float8_parse(s, strlen(s), "double precision", s, strlen(s));
}

NUMFN(numeric_float8)
{
	return ty_float(ty_numeric_to_double(ARG(0)));
}

NUMFN(numeric_float4)
{
	ty_datum n = ARG(0);
	if (is_special(n))
		return ty_float((float)ty_numeric_to_double(n));
	util_buf b = UTIL_BUF_INIT;
	ty_numeric_format(n, &b);
	char *s = ty_strndup(b.data, b.len);
	util_buf_free(&b);
	return ty_float(num_float4_parse(s, strlen(s)));
}

/* numeric(numeric, typmod): the length coercion function. */
NUMFN(numeric)
{
	const ty_type *t = ty_type_get(TY_NUMERIC);
	return t->typmod_apply(ARG(0), (int32_t)ARG_I(1), true);
}

/* ---------------------------------------------------------------- numeric.h */

bool ty_numeric_is_nan(ty_datum n)
{
	return is_nan(n);
}
bool ty_numeric_is_inf(ty_datum n)
{
	return is_inf(n);
}
int ty_numeric_sign(ty_datum n)
{
	return is_nan(n) ? 0 : sign_of(n);
}
int ty_numeric_dscale(ty_datum n)
{
	const uint8_t *p = n.p;
	return p[4] | p[5] << 8;
}
