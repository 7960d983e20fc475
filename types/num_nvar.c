/*
 * num_nvar.c — arbitrary-precision decimal arithmetic on the working form
 * nvar (base 10000 digits, like PostgreSQL's NumericVar): conversion from
 * and to the datum format and machine numbers, comparison, addition,
 * subtraction, multiplication (truncated with guard digits exactly as
 * PostgreSQL's mul_var, so that derived functions round alike), exact long
 * division, rounding and truncation. All memory comes from the current
 * arena; nothing is freed piecemeal.
 */
#include "num_priv.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ndig const_one_digits[1] = {1};
static ndig const_two_digits[1] = {2};
static ndig const_ten_digits[1] = {10};
const nvar nv_const_zero = {0, 0, TY_NUMERIC_POS, 0, NULL, NULL};
const nvar nv_const_one = {1, 0, TY_NUMERIC_POS, 0, NULL, const_one_digits};
const nvar nv_const_two = {1, 0, TY_NUMERIC_POS, 0, NULL, const_two_digits};
const nvar nv_const_ten = {1, 0, TY_NUMERIC_POS, 0, NULL, const_ten_digits};

void nv_init(nvar *v)
{
	v->ndigits = 0;
	v->weight = 0;
	v->sign = TY_NUMERIC_POS;
	v->dscale = 0;
	v->buf = v->digits = NULL;
}

/* One spare zero digit in front absorbs a carry out of rounding. */
void nv_alloc(nvar *v, int ndigits)
{
	v->buf = ty_alloc(((size_t)ndigits + 1) * sizeof(ndig));
	v->buf[0] = 0;
	v->digits = v->buf + 1;
	v->ndigits = ndigits;
}

void nv_set(nvar *dst, const nvar *src)
{
	if (dst == src)
		return;
	nvar t = *src;
	nv_alloc(&t, src->ndigits);
	if (src->ndigits)
		memcpy(t.digits, src->digits, (size_t)src->ndigits * sizeof(ndig));
	*dst = t;
}

void nv_zero(nvar *v)
{
	v->ndigits = 0;
	v->weight = 0;
	v->sign = TY_NUMERIC_POS;
}

bool nv_iszero(const nvar *v)
{
	for (int i = 0; i < v->ndigits; i++)
		if (v->digits[i])
			return false;
	return !nv_special(v);
}

void nv_strip(nvar *v)
{
	int n = v->ndigits;
	ndig *d = v->digits;
	while (n > 0 && *d == 0) {
		d++;
		v->weight--;
		n--;
	}
	while (n > 0 && d[n - 1] == 0)
		n--;
	if (n == 0) {
		v->weight = 0;
		if (!nv_special(v))
			v->sign = TY_NUMERIC_POS;
	}
	v->digits = d;
	v->ndigits = n;
}

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

void nv_from_datum(ty_datum d, nvar *v)
{
	const uint8_t *p = d.p;
	UTIL_ASSERT(d.len >= TY_NUMERIC_HDRSZ && (d.len - TY_NUMERIC_HDRSZ) % 2 == 0,
		    "numeric datum of %u bytes", d.len);
	int n = (int)(d.len - TY_NUMERIC_HDRSZ) / 2;
	nv_alloc(v, n);
	v->sign = rd16(p);
	v->weight = (int16_t)rd16(p + 2);
	v->dscale = rd16(p + 4);
	for (int i = 0; i < n; i++)
		v->digits[i] = (ndig)rd16(p + TY_NUMERIC_HDRSZ + 2 * i);
}

ty_datum nv_to_datum(nvar *v)
{
	nv_strip(v);
	if (nv_special(v)) {
		v->ndigits = 0;
		v->weight = 0;
		v->dscale = 0;
	}
	if (v->weight > NUM_WEIGHT_MAX || v->weight < NUM_WEIGHT_MIN || v->dscale > NUM_DSCALE_MAX ||
	    v->dscale < 0)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
	size_t len = TY_NUMERIC_HDRSZ + 2 * (size_t)v->ndigits;
	uint8_t *p = ty_alloc(len);
	uint16_t hdr[3] = {(uint16_t)v->sign, (uint16_t)(int16_t)v->weight, (uint16_t)v->dscale};
	for (int i = 0; i < 3; i++) {
		p[2 * i] = (uint8_t)hdr[i];
		p[2 * i + 1] = (uint8_t)(hdr[i] >> 8);
	}
	for (int i = 0; i < v->ndigits; i++) {
		p[TY_NUMERIC_HDRSZ + 2 * i] = (uint8_t)v->digits[i];
		p[TY_NUMERIC_HDRSZ + 2 * i + 1] = (uint8_t)((uint16_t)v->digits[i] >> 8);
	}
	return ty_bytes(p, len);
}

void nv_from_int128(__int128 val, nvar *r)
{
	unsigned __int128 u =
	    val < 0 ? (unsigned __int128)0 - (unsigned __int128)val : (unsigned __int128)val;
	ndig tmp[12];
	int n = 0;
	do {
		tmp[n++] = (ndig)(u % NBASE);
		u /= NBASE;
	} while (u);
	nv_alloc(r, n);
	for (int i = 0; i < n; i++)
		r->digits[i] = tmp[n - 1 - i];
	r->weight = n - 1;
	r->sign = val < 0 ? TY_NUMERIC_NEG : TY_NUMERIC_POS;
	r->dscale = 0;
	nv_strip(r);
}

void nv_from_int64(int64_t v, nvar *r)
{
	nv_from_int128(v, r);
}

/* Rounds to an integer, then accumulates; false when it does not fit. */
bool nv_to_int64(const nvar *v, int64_t *out)
{
	nvar r;
	nv_set(&r, v);
	nv_round(&r, 0);
	nv_strip(&r);
	__int128 acc = 0;
	for (int i = 0; i <= r.weight; i++) {
		acc = acc * NBASE + (i < r.ndigits ? r.digits[i] : 0);
		if (acc > (__int128)INT64_MAX + 1)
			return false;
	}
	if (r.sign == TY_NUMERIC_NEG)
		acc = -acc;
	if (acc > INT64_MAX || acc < INT64_MIN)
		return false;
	*out = (int64_t)acc;
	return true;
}

/* The integral part, truncating; false when it does not fit in 127 bits. */
bool nv_to_int128(const nvar *v, __int128 *out)
{
	__int128 acc = 0;
	const __int128 lim = (((__int128)1) << 126) / NBASE;
	for (int i = 0; i <= v->weight; i++) {
		if (acc > lim)
			return false;
		acc = acc * NBASE + (i < v->ndigits ? v->digits[i] : 0);
	}
	*out = v->sign == TY_NUMERIC_NEG ? -acc : acc;
	return true;
}

/* ---------------------------------------------------------------- compare */

int nv_cmp_abs(const nvar *a, const nvar *b)
{
	int i1 = 0, i2 = 0, w1 = a->weight, w2 = b->weight;
	while (w1 > w2 && i1 < a->ndigits) {
		if (a->digits[i1++])
			return 1;
		w1--;
	}
	while (w2 > w1 && i2 < b->ndigits) {
		if (b->digits[i2++])
			return -1;
		w2--;
	}
	if (w1 == w2) {
		while (i1 < a->ndigits && i2 < b->ndigits) {
			int d = a->digits[i1++] - b->digits[i2++];
			if (d)
				return d > 0 ? 1 : -1;
		}
	}
	while (i1 < a->ndigits)
		if (a->digits[i1++])
			return 1;
	while (i2 < b->ndigits)
		if (b->digits[i2++])
			return -1;
	return 0;
}

int nv_cmp(const nvar *a, const nvar *b)
{
	bool az = nv_iszero(a), bz = nv_iszero(b);
	int as = az ? 0 : a->sign == TY_NUMERIC_NEG ? -1 : 1;
	int bs = bz ? 0 : b->sign == TY_NUMERIC_NEG ? -1 : 1;
	if (as != bs)
		return as < bs ? -1 : 1;
	if (as == 0)
		return 0;
	int c = nv_cmp_abs(a, b);
	return as > 0 ? c : -c;
}

/* ---------------------------------------------------------------- add/sub */

/* |a| + |b| into r (r may alias a or b). */
static void add_abs(const nvar *a, const nvar *b, nvar *r)
{
	int rweight = UTIL_MAX(a->weight, b->weight) + 1;
	int rdscale = UTIL_MAX(a->dscale, b->dscale);
	int rscale1 = a->ndigits - a->weight - 1, rscale2 = b->ndigits - b->weight - 1;
	int rrscale = UTIL_MAX(rscale1, rscale2);
	int rn = rrscale + rweight + 1;
	if (rn <= 0)
		rn = 1;
	nvar t;
	nv_alloc(&t, rn);
	int i1 = rrscale + a->weight + 1, i2 = rrscale + b->weight + 1;
	int carry = 0;
	for (int i = rn - 1; i >= 0; i--) {
		i1--;
		i2--;
		if (i1 >= 0 && i1 < a->ndigits)
			carry += a->digits[i1];
		if (i2 >= 0 && i2 < b->ndigits)
			carry += b->digits[i2];
		if (carry >= NBASE) {
			t.digits[i] = (ndig)(carry - NBASE);
			carry = 1;
		} else {
			t.digits[i] = (ndig)carry;
			carry = 0;
		}
	}
	t.weight = rweight;
	t.dscale = rdscale;
	t.sign = TY_NUMERIC_POS;
	nv_strip(&t);
	*r = t;
}

/* |a| - |b| into r, requiring |a| >= |b|. */
static void sub_abs(const nvar *a, const nvar *b, nvar *r)
{
	int rweight = a->weight;
	int rdscale = UTIL_MAX(a->dscale, b->dscale);
	int rscale1 = a->ndigits - a->weight - 1, rscale2 = b->ndigits - b->weight - 1;
	int rrscale = UTIL_MAX(rscale1, rscale2);
	int rn = rrscale + rweight + 1;
	if (rn <= 0)
		rn = 1;
	nvar t;
	nv_alloc(&t, rn);
	int i1 = rrscale + a->weight + 1, i2 = rrscale + b->weight + 1;
	int borrow = 0;
	for (int i = rn - 1; i >= 0; i--) {
		i1--;
		i2--;
		if (i1 >= 0 && i1 < a->ndigits)
			borrow += a->digits[i1];
		if (i2 >= 0 && i2 < b->ndigits)
			borrow -= b->digits[i2];
		if (borrow < 0) {
			t.digits[i] = (ndig)(borrow + NBASE);
			borrow = -1;
		} else {
			t.digits[i] = (ndig)borrow;
			borrow = 0;
		}
	}
	t.weight = rweight;
	t.dscale = rdscale;
	t.sign = TY_NUMERIC_POS;
	nv_strip(&t);
	*r = t;
}

static void add_signed(const nvar *a, const nvar *b, int bsign, nvar *r)
{
	int asign = a->sign;
	if (asign == bsign) {
		add_abs(a, b, r);
		r->sign = r->ndigits ? asign : TY_NUMERIC_POS;
		return;
	}
	int c = nv_cmp_abs(a, b);
	if (c == 0) {
		int ds = UTIL_MAX(a->dscale, b->dscale);
		nv_init(r);
		r->dscale = ds;
	} else if (c > 0) {
		sub_abs(a, b, r);
		r->sign = r->ndigits ? asign : TY_NUMERIC_POS;
	} else {
		sub_abs(b, a, r);
		r->sign = r->ndigits ? bsign : TY_NUMERIC_POS;
	}
}

void nv_add(const nvar *a, const nvar *b, nvar *r)
{
	add_signed(a, b, b->sign, r);
}

void nv_sub(const nvar *a, const nvar *b, nvar *r)
{
	add_signed(a, b, b->sign == TY_NUMERIC_NEG ? TY_NUMERIC_POS : TY_NUMERIC_NEG, r);
}

/* ---------------------------------------------------------------- multiply */

/*
 * Product rounded to rscale. Like PostgreSQL's mul_var, only the partial
 * products that reach the first res_weight + 1 + ceil(rscale/4) +
 * MUL_GUARD_DIGITS result digits are computed; the results of exp, ln and
 * power depend on this truncation, so it is reproduced exactly.
 */
void nv_mul(const nvar *a, const nvar *b, nvar *r, int rscale)
{
	if (a->ndigits > b->ndigits) {
		const nvar *t = a;
		a = b;
		b = t;
	}
	int n1 = a->ndigits, n2 = b->ndigits;
	if (n1 == 0 || n2 == 0) {
		nv_init(r);
		r->dscale = rscale;
		return;
	}
	int rsign = a->sign == b->sign ? TY_NUMERIC_POS : TY_NUMERIC_NEG;
	int rweight = a->weight + b->weight + 2;
	int rn = n1 + n2 + 1;
	int maxdigits = rweight + 1 + (rscale + DEC_DIGITS - 1) / DEC_DIGITS + MUL_GUARD_DIGITS;
	rn = UTIL_MIN(rn, maxdigits);
	if (rn < 3) {
		nv_init(r);
		r->dscale = rscale;
		return;
	}
	int64_t *dig = ty_alloc0((size_t)rn * sizeof(int64_t));
	int since = 0;
	for (int i1 = UTIL_MIN(n1 - 1, rn - 3); i1 >= 0; i1--) {
		int d1 = a->digits[i1];
		if (d1 == 0)
			continue;
		int lim = UTIL_MIN(n2, rn - i1 - 2);
		int64_t *acc = dig + i1 + 2;
		for (int i2 = 0; i2 < lim; i2++)
			acc[i2] += (int64_t)d1 * b->digits[i2];
		/* Each column gains < 10^8 per pass: normalise well before overflow. */
		if (++since == 1 << 20) {
			int64_t carry = 0;
			for (int i = rn - 1; i >= 0; i--) {
				int64_t nd = dig[i] + carry;
				carry = nd / NBASE;
				dig[i] = nd % NBASE;
			}
			since = 0;
		}
	}
	nvar t;
	nv_alloc(&t, rn);
	int64_t carry = 0;
	for (int i = rn - 1; i >= 0; i--) {
		int64_t nd = dig[i] + carry;
		carry = nd / NBASE;
		t.digits[i] = (ndig)(nd % NBASE);
	}
	t.weight = rweight;
	t.sign = rsign;
	t.dscale = rscale;
	nv_round(&t, rscale);
	nv_strip(&t);
	*r = t;
}

/* ---------------------------------------------------------------- divide */

/* q[0..nn-vn] = floor(n / v) for base-NBASE digit strings (most significant
 * first, n has nn digits, v has vn >= 1 digits with v[0] != 0); Knuth's
 * algorithm D with normalisation. */
static void bigdiv(const int32_t *n, int nn, const int32_t *v, int vn, int32_t *q)
{
	int qn = nn - vn + 1;
	if (vn == 1) {
		int64_t rem = 0;
		for (int i = 0; i < nn; i++) {
			int64_t cur = rem * NBASE + n[i];
			if (i >= vn - 1)
				q[i - (vn - 1)] = (int32_t)(cur / v[0]);
			rem = cur % v[0];
		}
		return;
	}
	int32_t d = NBASE / (v[0] + 1);
	int32_t *u = ty_alloc(((size_t)nn + 1) * sizeof(int32_t));
	int32_t *w = ty_alloc((size_t)vn * sizeof(int32_t));
	int32_t carry = 0;
	for (int i = nn - 1; i >= 0; i--) {
		int32_t x = n[i] * d + carry;
		u[i + 1] = x % NBASE;
		carry = x / NBASE;
	}
	u[0] = carry;
	carry = 0;
	for (int i = vn - 1; i >= 0; i--) {
		int32_t x = v[i] * d + carry;
		w[i] = x % NBASE;
		carry = x / NBASE;
	}
	for (int j = 0; j < qn; j++) {
		/* u[j .. j+vn] is the current partial remainder window */
		int64_t top = (int64_t)u[j] * NBASE + u[j + 1];
		int64_t qhat = top / w[0], rhat = top % w[0];
		while (qhat >= NBASE || qhat * w[1] > rhat * NBASE + u[j + 2]) {
			qhat--;
			rhat += w[0];
			if (rhat >= NBASE)
				break;
		}
		int64_t borrow = 0, c = 0;
		for (int i = vn - 1; i >= 0; i--) {
			int64_t p = qhat * w[i] + c;
			c = p / NBASE;
			int64_t x = u[j + 1 + i] - p % NBASE - borrow;
			borrow = 0;
			if (x < 0) {
				x += NBASE;
				borrow = 1;
			}
			u[j + 1 + i] = (int32_t)x;
		}
		int64_t x = u[j] - c - borrow;
		u[j] = (int32_t)x;
		if (x < 0) {
			/* qhat was one too large: add the divisor back */
			qhat--;
			int32_t cc = 0;
			for (int i = vn - 1; i >= 0; i--) {
				int32_t y = u[j + 1 + i] + w[i] + cc;
				cc = y >= NBASE;
				u[j + 1 + i] = y - (cc ? NBASE : 0);
			}
			u[j] += cc;
		}
		q[j] = (int32_t)qhat;
	}
}

/*
 * a / b into r: the exact quotient truncated after rscale decimals
 * (round = false) or rounded half away from zero at rscale (round = true;
 * one more digit is computed exactly, as PostgreSQL's div_var does, so the
 * result is the correctly rounded one). The caller checks b != 0.
 */
void nv_div(const nvar *a, const nvar *b, nvar *r, int rscale, bool round)
{
	nvar x = *a, y = *b;
	nv_strip(&x);
	nv_strip(&y);
	UTIL_ASSERT(y.ndigits > 0, "division by zero reached nv_div");
	if (x.ndigits == 0) {
		nv_init(r);
		r->dscale = rscale;
		return;
	}
	int rweight = x.weight - y.weight;
	int rn = rweight + 1 + (rscale + DEC_DIGITS - 1) / DEC_DIGITS;
	rn = UTIL_MAX(rn, 1);
	if (round)
		rn++;
	int frac = rn - rweight - 1; /* NBASE digits after the point */
	/* N = X * NBASE^e where e aligns the quotient's last digit at -frac */
	int e = (x.weight - x.ndigits + 1) - (y.weight - y.ndigits + 1) + frac;
	int keep = x.ndigits + UTIL_MIN(e, 0); /* dividend digits that matter */
	int nn = keep + UTIL_MAX(e, 0);
	if (keep <= 0 || nn < y.ndigits) {
		/* quotient below one unit in the last computed place */
		nv_init(r);
		r->dscale = rscale;
		return;
	}
	int32_t *n = ty_alloc0((size_t)nn * sizeof(int32_t));
	for (int i = 0; i < keep; i++)
		n[i] = x.digits[i];
	int32_t *v = ty_alloc((size_t)y.ndigits * sizeof(int32_t));
	for (int i = 0; i < y.ndigits; i++)
		v[i] = y.digits[i];
	int qn = nn - y.ndigits + 1;
	int32_t *q = ty_alloc((size_t)qn * sizeof(int32_t));
	bigdiv(n, nn, v, y.ndigits, q);
	nvar t;
	nv_alloc(&t, qn);
	for (int i = 0; i < qn; i++)
		t.digits[i] = (ndig)q[i];
	t.weight = qn - 1 - frac;
	t.sign = x.sign == y.sign ? TY_NUMERIC_POS : TY_NUMERIC_NEG;
	t.dscale = rscale;
	if (round)
		nv_round(&t, rscale);
	else
		nv_trunc(&t, rscale);
	nv_strip(&t);
	*r = t;
}

int nv_select_div_scale(const nvar *a, const nvar *b)
{
	int w1 = 0, w2 = 0, f1 = 0, f2 = 0;
	for (int i = 0; i < a->ndigits; i++)
		if (a->digits[i]) {
			f1 = a->digits[i];
			w1 = a->weight - i;
			break;
		}
	for (int i = 0; i < b->ndigits; i++)
		if (b->digits[i]) {
			f2 = b->digits[i];
			w2 = b->weight - i;
			break;
		}
	/* estimated quotient weight; equal leading digits assume a < b */
	int qweight = w1 - w2;
	if (f1 <= f2)
		qweight--;
	int rscale = NUM_MIN_SIG_DIGITS - qweight * DEC_DIGITS;
	rscale = UTIL_MAX(rscale, a->dscale);
	rscale = UTIL_MAX(rscale, b->dscale);
	rscale = UTIL_MAX(rscale, NUM_MIN_DISPLAY_SCALE);
	rscale = UTIL_MIN(rscale, NUM_MAX_DISPLAY_SCALE);
	return rscale;
}

/* mod(x, y) = x - trunc(x / y) * y, with the dscale of x - (..)*y. */
void nv_mod(const nvar *a, const nvar *b, nvar *r)
{
	nvar q;
	nv_div(a, b, &q, 0, false);
	nv_mul(b, &q, &q, b->dscale);
	nv_sub(a, &q, r);
}

void nv_div_mod(const nvar *a, const nvar *b, nvar *quot, nvar *rem)
{
	nvar q, t;
	nv_div(a, b, &q, 0, false);
	nv_mul(b, &q, &t, b->dscale);
	nv_sub(a, &t, rem);
	*quot = q;
}

/* ---------------------------------------------------------------- rounding */

static const int round_powers[4] = {0, 1000, 100, 10};

void nv_round(nvar *v, int rscale)
{
	v->dscale = rscale;
	int di = (v->weight + 1) * DEC_DIGITS + rscale;
	if (di < 0) {
		v->ndigits = 0;
		v->weight = 0;
		v->sign = TY_NUMERIC_POS;
		return;
	}
	int nd = (di + DEC_DIGITS - 1) / DEC_DIGITS;
	di %= DEC_DIGITS;
	if (nd > v->ndigits || (nd == v->ndigits && di == 0))
		return;
	ndig *d = v->digits;
	v->ndigits = nd;
	int carry;
	if (di == 0) {
		carry = d[nd] >= HALF_NBASE ? 1 : 0;
	} else {
		int pow10 = round_powers[di];
		nd--;
		int extra = d[nd] % pow10;
		d[nd] = (ndig)(d[nd] - extra);
		carry = 0;
		if (extra >= pow10 / 2) {
			pow10 += d[nd];
			if (pow10 >= NBASE) {
				pow10 -= NBASE;
				carry = 1;
			}
			d[nd] = (ndig)pow10;
		}
	}
	while (carry) {
		nd--;
		if (nd < 0) {
			/* carry out of the first digit: use the spare slot */
			UTIL_ASSERT(v->digits > v->buf, "no room for a rounding carry");
			v->digits--;
			v->digits[0] = 1;
			v->ndigits++;
			v->weight++;
			break;
		}
		carry += d[nd];
		if (carry >= NBASE) {
			d[nd] = (ndig)(carry - NBASE);
			carry = 1;
		} else {
			d[nd] = (ndig)carry;
			carry = 0;
		}
	}
}

void nv_trunc(nvar *v, int rscale)
{
	v->dscale = rscale;
	int di = (v->weight + 1) * DEC_DIGITS + rscale;
	if (di <= 0) {
		v->ndigits = 0;
		v->weight = 0;
		v->sign = TY_NUMERIC_POS;
		return;
	}
	int nd = (di + DEC_DIGITS - 1) / DEC_DIGITS;
	if (nd <= v->ndigits) {
		v->ndigits = nd;
		di %= DEC_DIGITS;
		if (di > 0) {
			int pow10 = round_powers[di];
			v->digits[nd - 1] = (ndig)(v->digits[nd - 1] - v->digits[nd - 1] % pow10);
		}
	}
	nv_strip(v);
}

/* Smallest integer >= v (dscale 0). */
void nv_ceil(const nvar *v, nvar *r)
{
	nvar t;
	nv_set(&t, v);
	nv_trunc(&t, 0);
	if (v->sign == TY_NUMERIC_POS && nv_cmp(v, &t) != 0)
		nv_add(&t, &nv_const_one, &t);
	t.dscale = 0;
	*r = t;
}

void nv_floor(const nvar *v, nvar *r)
{
	nvar t;
	nv_set(&t, v);
	nv_trunc(&t, 0);
	if (v->sign == TY_NUMERIC_NEG && nv_cmp(v, &t) != 0)
		nv_sub(&t, &nv_const_one, &t);
	t.dscale = 0;
	*r = t;
}

/* ---------------------------------------------------------------- doubles */

/* float8 -> numeric goes through "%.15g" text, as PostgreSQL. */
void nv_from_double(double v, nvar *r)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*g", DBL_DIG, v);
	ty_datum d = ty_numeric_parse(buf, strlen(buf), TY_TYPMOD_NONE);
	nv_from_datum(d, r);
}

double nv_to_double(const nvar *v)
{
	util_buf b = UTIL_BUF_INIT;
	nv_out(v, v->dscale, &b);
	char *s = ty_strndup(b.data, b.len);
	util_buf_free(&b);
	return strtod(s, NULL);
}

int nv_dweight(const nvar *v)
{
	for (int i = 0; i < v->ndigits; i++) {
		int d = v->digits[i];
		if (d) {
			int w = (v->weight - i) * DEC_DIGITS;
			return w + (d >= 1000 ? 3 : d >= 100 ? 2 : d >= 10 ? 1 : 0);
		}
	}
	return 0;
}
