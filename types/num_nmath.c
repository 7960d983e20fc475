/*
 * num_nmath.c — numeric transcendental functions with PostgreSQL 15's
 * algorithms and scale selection, so results agree digit for digit:
 * sqrt (exact integer square root, rounded), exp (Taylor series after
 * halving the argument), ln (square-root range reduction, atanh series),
 * log(b, x), power (repeated squaring for integer exponents, else
 * exp(y * ln(x))) and width_bucket. Intermediate products use nv_mul, which
 * truncates exactly like PostgreSQL's mul_var; divisions are exact (where
 * PostgreSQL uses its approximate div_var_fast the last digit could in rare
 * cases differ).
 */
#include "num_priv.h"

#include <limits.h>
#include <math.h>

static ndig d_9000[1] = {9000};
static ndig d_1_1000[2] = {1, 1000};
static const nvar const_zero_point_nine = {1, -1, TY_NUMERIC_POS, 1, NULL, d_9000};
static const nvar const_one_point_one = {2, 0, TY_NUMERIC_POS, 1, NULL, d_1_1000};

static UTIL_NORETURN void err_log_neg(void)
{
	ty_error(UTIL_E_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of a negative number");
}

static UTIL_NORETURN void err_sqrt_neg(void)
{
	ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION, "cannot take square root of a negative number");
}

/* 10^k for any integer k. */
static void pow10_var(int k, nvar *r)
{
	int w = k >= 0 ? k / DEC_DIGITS : -((-k + DEC_DIGITS - 1) / DEC_DIGITS);
	int rem = k - w * DEC_DIGITS;
	static const int p[4] = {1, 10, 100, 1000};
	nv_alloc(r, 1);
	r->digits[0] = (ndig)p[rem];
	r->weight = w;
	r->sign = TY_NUMERIC_POS;
	r->dscale = k < 0 ? -k : 0;
}

static void from_int(int64_t v, nvar *r)
{
	nv_from_int64(v, r);
}

/* floor(sqrt(y)) for a nonnegative integer y (Newton's method from above). */
static void isqrt(const nvar *y, nvar *r)
{
	nvar t = *y;
	nv_strip(&t);
	if (t.ndigits == 0) {
		nv_init(r);
		return;
	}
	/* estimate from the leading digits: y ~ lead * NBASE^e, e even */
	double lead = 0;
	int used = 0;
	for (; used < t.ndigits && used < 4; used++)
		lead = lead * NBASE + t.digits[used];
	int e = t.weight - (used - 1);
	if (e & 1) {
		lead *= NBASE;
		e--;
	}
	double s = sqrt(lead) * (1 + 1e-9) + 1;
	nvar x;
	/* x0 = ceil(s) * NBASE^(e/2) (an overestimate) */
	if (e >= 0) {
		nvar sc;
		nv_from_int64((int64_t)ceil(s), &x);
		pow10_var(e / 2 * DEC_DIGITS, &sc);
		nv_mul(&x, &sc, &x, 0);
	} else {
		/* y has fraction-free digits only, so e < 0 cannot happen for integers */
		nv_from_int64((int64_t)ceil(sqrt(nv_to_double(&t))) + 1, &x);
	}
	for (;;) {
		ty_check_interrupts();
		nvar q, n;
		nv_div(&t, &x, &q, 0, false);
		nv_add(&x, &q, &n);
		nv_div(&n, &nv_const_two, &n, 0, false);
		if (nv_cmp(&n, &x) >= 0)
			break;
		x = n;
	}
	*r = x;
}

/* sqrt rounded half away from zero at rscale (which may be negative):
 * the exact floor of sqrt(a) * 10^(rscale + 1), then rounding. */
void nv_sqrt(const nvar *a, nvar *r, int rscale)
{
	int c = nv_cmp(a, &nv_const_zero);
	if (c == 0) {
		nv_init(r);
		r->dscale = rscale;
		return;
	}
	if (c < 0)
		err_sqrt_neg();
	int s = rscale + 1;
	nvar p, y, q;
	pow10_var(2 * s, &p);
	nv_mul(a, &p, &y, a->dscale + (s < 0 ? -2 * s : 0));
	nv_trunc(&y, 0);
	isqrt(&y, &q);
	pow10_var(-s, &p);
	nv_mul(&q, &p, &q, s > 0 ? s : 0);
	nv_set(r, &q);
	nv_round(r, rscale);
}

/* exp(x): PostgreSQL's exp_var. */
void nv_exp(const nvar *arg, nvar *result, int rscale)
{
	nvar x, elem, t;
	nv_set(&x, arg);
	double val = nv_to_double(&x);
	if (fabs(val) >= NUM_MAX_RESULT_SCALE * 3) {
		if (val > 0)
			ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
		nv_init(result);
		result->dscale = rscale;
		return;
	}
	int dweight = (int)(val * 0.434294481903252);
	/* halve x until |x| <= 0.01 for fast convergence */
	int ndiv2 = 0;
	if (fabs(val) > 0.01) {
		ndiv2 = 1;
		val /= 2;
		while (fabs(val) > 0.01) {
			ndiv2++;
			val /= 2;
		}
		int lr = x.dscale + ndiv2;
		from_int((int64_t)1 << ndiv2, &t);
		nv_div(&x, &t, &x, lr, true);
	}
	int sig_digits = 1 + dweight + rscale + (int)(ndiv2 * 0.301029995663981);
	sig_digits = UTIL_MAX(sig_digits, 0) + 8;
	int local_rscale = sig_digits - 1;
	nvar res;
	nv_add(&nv_const_one, &x, &res);
	nv_mul(&x, &x, &elem, local_rscale);
	int ni = 2;
	from_int(ni, &t);
	nv_div(&elem, &t, &elem, local_rscale, true);
	while (elem.ndigits != 0) {
		ty_check_interrupts();
		nv_add(&res, &elem, &res);
		nv_mul(&elem, &x, &elem, local_rscale);
		ni++;
		from_int(ni, &t);
		nv_div(&elem, &t, &elem, local_rscale, true);
	}
	while (ndiv2-- > 0) {
		local_rscale = sig_digits - res.weight * 2 * DEC_DIGITS;
		local_rscale = UTIL_MAX(local_rscale, NUM_MIN_DISPLAY_SCALE);
		nv_mul(&res, &res, &res, local_rscale);
	}
	nv_set(result, &res);
	nv_round(result, rscale);
}

int nv_estimate_ln_dweight(const nvar *v)
{
	if (v->sign != TY_NUMERIC_POS)
		return 0;
	if (nv_cmp(v, &const_zero_point_nine) >= 0 && nv_cmp(v, &const_one_point_one) <= 0) {
		/* near 1: ln(1 + x) ~ x */
		nvar x;
		nv_sub(v, &nv_const_one, &x);
		if (x.ndigits > 0)
			return x.weight * DEC_DIGITS + (int)log10(x.digits[0]);
		return 0;
	}
	if (v->ndigits == 0)
		return 0;
	int digits = v->digits[0];
	int dweight = v->weight * DEC_DIGITS;
	if (v->ndigits > 1) {
		digits = digits * NBASE + v->digits[1];
		dweight -= DEC_DIGITS;
	}
	double ln = log((double)digits) + dweight * 2.302585092994046;
	return (int)log10(fabs(ln));
}

/* ln(x): PostgreSQL's ln_var. */
void nv_ln(const nvar *arg, nvar *result, int rscale)
{
	int c = nv_cmp(arg, &nv_const_zero);
	if (c == 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero");
	if (c < 0)
		err_log_neg();
	nvar x, xx, elem, fact, res, t;
	nv_set(&x, arg);
	nv_set(&fact, &nv_const_two);
	/* bring x into (0.9, 1.1) by square roots, keeping enough digits */
	int nsqrt = 0;
	while (nv_cmp(&x, &const_zero_point_nine) <= 0) {
		int lr = rscale - x.weight * DEC_DIGITS / 2 + 8;
		nv_sqrt(&x, &x, lr);
		nv_mul(&fact, &nv_const_two, &fact, 0);
		nsqrt++;
	}
	while (nv_cmp(&x, &const_one_point_one) >= 0) {
		int lr = rscale - x.weight * DEC_DIGITS / 2 + 8;
		nv_sqrt(&x, &x, lr);
		nv_mul(&fact, &nv_const_two, &fact, 0);
		nsqrt++;
	}
	/* z + z^3/3 + z^5/5 + ... with z = (x-1)/(x+1) */
	int local_rscale = rscale + (int)((nsqrt + 1) * 0.301029995663981) + 8;
	nv_sub(&x, &nv_const_one, &res);
	nv_add(&x, &nv_const_one, &elem);
	nv_div(&res, &elem, &res, local_rscale, true);
	nv_set(&xx, &res);
	nv_mul(&res, &res, &x, local_rscale);
	int ni = 1;
	for (;;) {
		ty_check_interrupts();
		ni += 2;
		nv_mul(&xx, &x, &xx, local_rscale);
		from_int(ni, &t);
		nv_div(&xx, &t, &elem, local_rscale, true);
		if (elem.ndigits == 0)
			break;
		nv_add(&res, &elem, &res);
		if (elem.weight < (res.weight - local_rscale * 2 / DEC_DIGITS))
			break;
	}
	nv_mul(&res, &fact, result, rscale);
}

/* log(base, num): PostgreSQL's log_var. */
void nv_log(const nvar *base, const nvar *num, nvar *result)
{
	int bdw = nv_estimate_ln_dweight(base), ndw = nv_estimate_ln_dweight(num);
	int rdw = ndw - bdw;
	int rscale = NUM_MIN_SIG_DIGITS - rdw;
	rscale = UTIL_MAX(rscale, base->dscale);
	rscale = UTIL_MAX(rscale, num->dscale);
	rscale = UTIL_MAX(rscale, NUM_MIN_DISPLAY_SCALE);
	rscale = UTIL_MIN(rscale, NUM_MAX_DISPLAY_SCALE);
	int brs = UTIL_MAX(rscale + rdw - bdw + 8, NUM_MIN_DISPLAY_SCALE);
	int nrs = UTIL_MAX(rscale + rdw - ndw + 8, NUM_MIN_DISPLAY_SCALE);
	nvar lb, ln;
	nv_ln(base, &lb, brs);
	nv_ln(num, &ln, nrs);
	if (nv_iszero(&lb))
		num_err_div0();
	nv_div(&ln, &lb, result, rscale, true);
}

/* base^exp for an int exponent: PostgreSQL's power_var_int. */
void nv_power_int(const nvar *base, int exp, nvar *result, int rscale)
{
	switch (exp) {
	case 0:
		nv_set(result, &nv_const_one);
		result->dscale = rscale;
		return;
	case 1:
		nv_set(result, base);
		nv_round(result, rscale);
		return;
	case -1:
		if (nv_iszero(base))
			num_err_div0();
		nv_div(&nv_const_one, base, result, rscale, true);
		return;
	case 2:
		nv_mul(base, base, result, rscale);
		return;
	default:
		break;
	}
	if (base->ndigits == 0) {
		if (exp < 0)
			num_err_div0();
		nv_init(result);
		result->dscale = rscale;
		return;
	}
	/* estimated decimal weight of the result */
	double f = base->digits[0];
	int p = base->weight * DEC_DIGITS;
	for (int i = 1; i < base->ndigits && i * DEC_DIGITS < 16; i++) {
		f = f * NBASE + base->digits[i];
		p -= DEC_DIGITS;
	}
	f = exp * (log10(f) + p);
	/* A result with more than (SHRT_MAX + 1) * DEC_DIGITS digits before the
	 * point overflows numeric: say so now rather than after squarings of
	 * 100k-digit numbers (PostgreSQL reaches the same error later). The
	 * margin covers the estimate's rounding. */
	if (f > 3 * SHRT_MAX * DEC_DIGITS || (exp > 0 && f > (SHRT_MAX + 3) * DEC_DIGITS))
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
	if (f + 1 < -rscale || f + 1 < -NUM_MAX_DISPLAY_SCALE) {
		nv_init(result);
		result->dscale = rscale;
		return;
	}
	int sig_digits = 1 + rscale + (int)f;
	sig_digits += (int)log(fabs((double)exp)) + 8;
	bool neg = exp < 0;
	unsigned int mask = exp < 0 ? 0u - (unsigned int)exp : (unsigned int)exp;
	nvar bp, res;
	nv_set(&bp, base);
	if (mask & 1)
		nv_set(&res, base);
	else
		nv_set(&res, &nv_const_one);
	while ((mask >>= 1) > 0) {
		ty_check_interrupts();
		int lr = sig_digits - 2 * bp.weight * DEC_DIGITS;
		lr = UTIL_MIN(lr, 2 * bp.dscale);
		lr = UTIL_MAX(lr, NUM_MIN_DISPLAY_SCALE);
		nv_mul(&bp, &bp, &bp, lr);
		if (mask & 1) {
			lr = sig_digits - (bp.weight + res.weight) * DEC_DIGITS;
			lr = UTIL_MIN(lr, bp.dscale + res.dscale);
			lr = UTIL_MAX(lr, NUM_MIN_DISPLAY_SCALE);
			nv_mul(&bp, &res, &res, lr);
		}
		/* once a weight leaves int16 range the result must overflow
		 * (or underflow to zero for negative exponents) */
		if (bp.weight > SHRT_MAX || res.weight > SHRT_MAX) {
			if (!neg)
				ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
			nv_init(&res);
			neg = false;
			break;
		}
	}
	if (neg) {
		nv_div(&nv_const_one, &res, result, rscale, true);
	} else {
		nv_set(result, &res);
		nv_round(result, rscale);
	}
}

/* base^exp for finite values (zero ^ negative already rejected). */
void nv_power(const nvar *base, const nvar *exp, nvar *result)
{
	if (exp->ndigits == 0 || exp->ndigits <= exp->weight + 1) {
		int64_t e64;
		if (nv_to_int64(exp, &e64) && e64 >= INT32_MIN && e64 <= INT32_MAX) {
			int rscale = NUM_MIN_SIG_DIGITS;
			rscale = UTIL_MAX(rscale, base->dscale);
			rscale = UTIL_MAX(rscale, NUM_MIN_DISPLAY_SCALE);
			rscale = UTIL_MIN(rscale, NUM_MAX_DISPLAY_SCALE);
			nv_power_int(base, (int)e64, result, rscale);
			return;
		}
	}
	if (nv_cmp(base, &nv_const_zero) == 0) {
		nv_init(result);
		result->dscale = NUM_MIN_SIG_DIGITS;
		return;
	}
	nvar abs_base;
	int res_sign = TY_NUMERIC_POS;
	if (base->sign == TY_NUMERIC_NEG) {
		if (exp->ndigits > 0 && exp->ndigits > exp->weight + 1)
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
				 "a negative number raised to a non-integer power yields a complex result");
		if (exp->ndigits > 0 && exp->ndigits == exp->weight + 1 &&
		    (exp->digits[exp->ndigits - 1] & 1))
			res_sign = TY_NUMERIC_NEG;
		nv_set(&abs_base, base);
		abs_base.sign = TY_NUMERIC_POS;
		base = &abs_base;
	}
	/* low-precision exp * ln(base) to size the real computation */
	int ln_dweight = nv_estimate_ln_dweight(base);
	int local_rscale = UTIL_MAX(8 - ln_dweight, NUM_MIN_DISPLAY_SCALE);
	nvar ln_base, ln_num;
	nv_ln(base, &ln_base, local_rscale);
	nv_mul(&ln_base, exp, &ln_num, local_rscale);
	double val = nv_to_double(&ln_num);
	if (fabs(val) > NUM_MAX_RESULT_SCALE * 3.01) {
		if (val > 0)
			ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
		nv_init(result);
		result->dscale = NUM_MAX_DISPLAY_SCALE;
		return;
	}
	val *= 0.434294481903252;
	int rscale = NUM_MIN_SIG_DIGITS - (int)val;
	rscale = UTIL_MAX(rscale, base->dscale);
	rscale = UTIL_MAX(rscale, exp->dscale);
	rscale = UTIL_MAX(rscale, NUM_MIN_DISPLAY_SCALE);
	rscale = UTIL_MIN(rscale, NUM_MAX_DISPLAY_SCALE);
	int sig_digits = UTIL_MAX(rscale + (int)val, 0);
	local_rscale = UTIL_MAX(sig_digits - ln_dweight + 8, NUM_MIN_DISPLAY_SCALE);
	nv_ln(base, &ln_base, local_rscale);
	nv_mul(&ln_base, exp, &ln_num, local_rscale);
	nv_exp(&ln_num, result, rscale);
	if (res_sign == TY_NUMERIC_NEG && result->ndigits > 0)
		result->sign = TY_NUMERIC_NEG;
}

/* ---------------------------------------------------------------- SQL */

static int dsign(ty_datum d)
{
	return ((const uint8_t *)d.p)[0] | ((const uint8_t *)d.p)[1] << 8;
}
static bool is_special(ty_datum d)
{
	return (dsign(d) & 0xC000) == 0xC000;
}

static ty_datum special(int sign)
{
	nvar v;
	nv_init(&v);
	v.sign = sign;
	return nv_to_datum(&v);
}

static int sign_of(ty_datum d)
{
	int s = dsign(d);
	if (s == TY_NUMERIC_PINF)
		return 1;
	if (s == TY_NUMERIC_NINF)
		return -1;
	if (d.len == TY_NUMERIC_HDRSZ)
		return 0;
	return s == TY_NUMERIC_NEG ? -1 : 1;
}

static int clamp_display(int rscale)
{
	rscale = UTIL_MAX(rscale, NUM_MIN_DISPLAY_SCALE);
	return UTIL_MIN(rscale, NUM_MAX_DISPLAY_SCALE);
}

NUMFN(numeric_sqrt)
{
	ty_datum n = ARG(0);
	if (is_special(n)) {
		if (dsign(n) == TY_NUMERIC_NINF)
			err_sqrt_neg();
		return n;
	}
	nvar a, r;
	nv_from_datum(n, &a);
	int sweight = (a.weight + 1) * DEC_DIGITS / 2 - 1;
	int rscale = UTIL_MAX(NUM_MIN_SIG_DIGITS - sweight, a.dscale);
	nv_sqrt(&a, &r, clamp_display(rscale));
	return nv_to_datum(&r);
}

NUMFN(numeric_exp)
{
	ty_datum n = ARG(0);
	if (is_special(n)) {
		if (dsign(n) == TY_NUMERIC_NINF) {
			nvar z;
			nv_init(&z);
			return nv_to_datum(&z);
		}
		return n;
	}
	nvar a, r;
	nv_from_datum(n, &a);
	double val = nv_to_double(&a) * 0.434294481903252;
	val = UTIL_MAX(val, -NUM_MAX_RESULT_SCALE);
	val = UTIL_MIN(val, NUM_MAX_RESULT_SCALE);
	int rscale = UTIL_MAX(NUM_MIN_SIG_DIGITS - (int)val, a.dscale);
	nv_exp(&a, &r, clamp_display(rscale));
	return nv_to_datum(&r);
}

NUMFN(numeric_ln)
{
	ty_datum n = ARG(0);
	if (is_special(n)) {
		if (dsign(n) == TY_NUMERIC_NINF)
			err_log_neg();
		return n;
	}
	nvar a, r;
	nv_from_datum(n, &a);
	int rscale = UTIL_MAX(NUM_MIN_SIG_DIGITS - nv_estimate_ln_dweight(&a), a.dscale);
	nv_ln(&a, &r, clamp_display(rscale));
	return nv_to_datum(&r);
}

static ty_datum numeric_log(ty_datum b, ty_datum x)
{
	if (is_special(b) || is_special(x)) {
		if (dsign(b) == TY_NUMERIC_NAN || dsign(x) == TY_NUMERIC_NAN)
			return special(TY_NUMERIC_NAN);
		int s1 = sign_of(b), s2 = sign_of(x);
		if (s1 < 0 || s2 < 0)
			err_log_neg();
		if (s1 == 0 || s2 == 0)
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero");
		if (dsign(b) == TY_NUMERIC_PINF) {
			if (dsign(x) == TY_NUMERIC_PINF)
				return special(TY_NUMERIC_NAN);
			nvar z;
			nv_init(&z);
			return nv_to_datum(&z);
		}
		return special(TY_NUMERIC_PINF);
	}
	nvar a1, a2, r;
	nv_from_datum(b, &a1);
	nv_from_datum(x, &a2);
	nv_log(&a1, &a2, &r);
	return nv_to_datum(&r);
}

NUMFN(numeric_log)
{
	return numeric_log(ARG(0), ARG(1));
}
/* log(x) and log10(x) are SQL functions calling log(10, x) in PostgreSQL. */
NUMFN(sql_numeric_log10)
{
	return numeric_log(ty_numeric_from_int64(10), ARG(0));
}

/* Whether a numeric is an integer (infinities count as integral, NaN not). */
static bool is_integral(ty_datum d)
{
	if (is_special(d))
		return dsign(d) != TY_NUMERIC_NAN;
	nvar v;
	nv_from_datum(d, &v);
	return v.ndigits == 0 || v.ndigits <= v.weight + 1;
}

NUMFN(numeric_power)
{
	ty_datum n1 = ARG(0), n2 = ARG(1);
	nvar a1, a2, r;
	if (is_special(n1) || is_special(n2)) {
		/* POSIX pow(): NaN^0 = 1 and 1^NaN = 1, other NaN cases NaN */
		if (dsign(n1) == TY_NUMERIC_NAN) {
			if (!is_special(n2) && sign_of(n2) == 0)
				return ty_numeric_from_int64(1);
			return special(TY_NUMERIC_NAN);
		}
		if (dsign(n2) == TY_NUMERIC_NAN) {
			if (!is_special(n1)) {
				nv_from_datum(n1, &a1);
				if (nv_cmp(&a1, &nv_const_one) == 0)
					return ty_numeric_from_int64(1);
			}
			return special(TY_NUMERIC_NAN);
		}
		int s1 = sign_of(n1), s2 = sign_of(n2);
		if (s1 == 0 && s2 < 0)
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
				 "zero raised to a negative power is undefined");
		if (s1 < 0 && !is_integral(n2))
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
				 "a negative number raised to a non-integer power yields a complex result");
		if (!is_special(n1)) {
			nv_from_datum(n1, &a1);
			if (nv_cmp(&a1, &nv_const_one) == 0)
				return ty_numeric_from_int64(1);
		}
		if (s2 == 0)
			return ty_numeric_from_int64(1);
		if (s1 == 0 && s2 > 0)
			return ty_numeric_from_int64(0);
		if (dsign(n2) == TY_NUMERIC_PINF || dsign(n2) == TY_NUMERIC_NINF) {
			bool gt_one;
			if (is_special(n1)) {
				gt_one = true;
			} else {
				nv_from_datum(n1, &a1);
				nvar m1;
				nv_from_int64(-1, &m1);
				if (nv_cmp(&a1, &m1) == 0)
					return ty_numeric_from_int64(1);
				a1.sign = TY_NUMERIC_POS;
				gt_one = nv_cmp(&a1, &nv_const_one) > 0;
			}
			return gt_one == (s2 > 0) ? special(TY_NUMERIC_PINF) : ty_numeric_from_int64(0);
		}
		if (dsign(n1) == TY_NUMERIC_PINF)
			return s2 > 0 ? special(TY_NUMERIC_PINF) : ty_numeric_from_int64(0);
		/* -Infinity ^ finite */
		if (s2 < 0)
			return ty_numeric_from_int64(0);
		nv_from_datum(n2, &a2);
		if (a2.ndigits > 0 && a2.ndigits == a2.weight + 1 && (a2.digits[a2.ndigits - 1] & 1))
			return special(TY_NUMERIC_NINF);
		return special(TY_NUMERIC_PINF);
	}
	if (sign_of(n1) == 0 && sign_of(n2) < 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
			 "zero raised to a negative power is undefined");
	nv_from_datum(n1, &a1);
	nv_from_datum(n2, &a2);
	nv_power(&a1, &a2, &r);
	return nv_to_datum(&r);
}

NUMFN(width_bucket_numeric)
{
	ty_datum op = ARG(0), b1 = ARG(1), b2 = ARG(2);
	int32_t count = (int32_t)ARG_I(3);
	if (count <= 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "count must be greater than zero");
	if (is_special(op) || is_special(b1) || is_special(b2)) {
		if (dsign(op) == TY_NUMERIC_NAN || dsign(b1) == TY_NUMERIC_NAN || dsign(b2) == TY_NUMERIC_NAN)
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
				 "operand, lower bound, and upper bound cannot be NaN");
		if (is_special(b1) || is_special(b2))
			ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
				 "lower and upper bounds must be finite");
	}
	nvar cnt, res;
	nv_from_int64(count, &cnt);
	int c = ty_numeric_cmp(b1, b2);
	if (c == 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "lower bound cannot equal upper bound");
	bool rev = c > 0;
	int c1 = ty_numeric_cmp(op, b1), c2 = ty_numeric_cmp(op, b2);
	if (rev ? c1 > 0 : c1 < 0) {
		nv_init(&res);
	} else if (rev ? c2 <= 0 : c2 >= 0) {
		nv_add(&cnt, &nv_const_one, &res);
	} else {
		nvar o, l, h;
		nv_from_datum(op, &o);
		nv_from_datum(b1, &l);
		nv_from_datum(b2, &h);
		if (!rev) {
			nv_sub(&o, &l, &o);
			nv_sub(&h, &l, &h);
		} else {
			nv_sub(&l, &o, &o);
			nv_sub(&l, &h, &h);
		}
		/* PostgreSQL 15 divides first (rounding at the division scale),
		 * then multiplies by count, adds one and takes the floor */
		nv_div(&o, &h, &res, nv_select_div_scale(&o, &h), true);
		nv_mul(&res, &cnt, &res, res.dscale + cnt.dscale);
		nv_add(&res, &nv_const_one, &res);
		nv_floor(&res, &res);
	}
	int64_t v;
	if (!nv_to_int64(&res, &v) || v < INT32_MIN || v > INT32_MAX)
		num_err_int4_range();
	return ty_int(v);
}
