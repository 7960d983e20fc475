/*
 * num_fmath.c — float8 math functions with PostgreSQL's domain checks,
 * error texts and special-value rules: rounding family, sqrt/cbrt, power,
 * exp/ln/log10, trigonometric and hyperbolic functions, the degree-based
 * variants (exact at 0/30/45/60/90 degrees, as PostgreSQL computes them),
 * degrees/radians, pi, random/setseed and width_bucket.
 */
#include "num_priv.h"

#include <errno.h>
#include <float.h>
#include <math.h>

#define RADIANS_PER_DEGREE 0.0174532925199432957692

static UTIL_NORETURN void out_of_range(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "input is out of range");
}

static double check(double r, double arg, bool inf_ok, bool zero_ok)
{
	if (isinf(r) && !inf_ok && !isinf(arg))
		num_err_float_overflow();
	if (r == 0.0 && !zero_ok)
		num_err_float_underflow();
	return r;
}

NUMFN(dround)
{
	return ty_float(rint(ARG_F(0)));
}
NUMFN(dceil)
{
	return ty_float(ceil(ARG_F(0)));
}
NUMFN(dfloor)
{
	return ty_float(floor(ARG_F(0)));
}
NUMFN(dtrunc)
{
	double a = ARG_F(0);
	return ty_float(a >= 0 ? floor(a) : -floor(-a));
}
NUMFN(dsign)
{
	double a = ARG_F(0);
	return ty_float(a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0);
}

NUMFN(dsqrt)
{
	double a = ARG_F(0);
	if (a < 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
			 "cannot take square root of a negative number");
	double r = sqrt(a);
	return ty_float(check(r, a, false, a == 0.0));
}

NUMFN(dcbrt)
{
	double a = ARG_F(0);
	double r = cbrt(a);
	return ty_float(check(r, a, false, a == 0.0));
}

/* pow() with POSIX's NaN and infinity rules spelled out, as PostgreSQL. */
static double pow8(double x, double y)
{
	if (isnan(x))
		return (isnan(y) || y != 0.0) ? NAN : 1.0;
	if (isnan(y))
		return x != 1.0 ? NAN : 1.0;
	if (x == 0 && y < 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
			 "zero raised to a negative power is undefined");
	if (x < 0 && floor(y) != y)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_POWER_FUNCTION,
			 "a negative number raised to a non-integer power yields a complex result");
	if (isinf(y)) {
		double ax = fabs(x);
		if (ax == 1.0)
			return 1.0;
		if (y > 0)
			return ax > 1.0 ? y : 0.0;
		return ax > 1.0 ? 0.0 : -y;
	}
	if (isinf(x)) {
		if (y == 0.0)
			return 1.0;
		if (x > 0)
			return y > 0 ? x : 0.0;
		double half = y / 2;
		bool odd = floor(half) != half;
		if (y > 0)
			return odd ? x : -x;
		return odd ? -0.0 : 0.0;
	}
	errno = 0;
	double r = pow(x, y);
	if (errno == EDOM || isnan(r)) {
		if (x == 0.0)
			return 0.0;
		double ax = fabs(x);
		if (ax == 1.0)
			return 1.0;
		if (y >= 0.0 ? ax > 1.0 : ax < 1.0)
			num_err_float_overflow();
		num_err_float_underflow();
	}
	if (errno == ERANGE) {
		if (r != 0.0)
			num_err_float_overflow();
		num_err_float_underflow();
	}
	if (isinf(r))
		num_err_float_overflow();
	if (r == 0.0 && x != 0.0)
		num_err_float_underflow();
	return r;
}

NUMFN(dpow)
{
	return ty_float(pow8(ARG_F(0), ARG_F(1)));
}

NUMFN(dexp)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(a);
	if (isinf(a))
		return ty_float(a > 0 ? a : 0.0);
	errno = 0;
	double r = exp(a);
	if (errno == ERANGE) {
		if (r != 0.0)
			num_err_float_overflow();
		num_err_float_underflow();
	}
	if (isinf(r))
		num_err_float_overflow();
	if (r == 0.0)
		num_err_float_underflow();
	return ty_float(r);
}

static double log_common(double a, double (*fn)(double))
{
	if (a == 0.0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of zero");
	if (a < 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_LOG, "cannot take logarithm of a negative number");
	double r = fn(a);
	return check(r, a, false, a == 1.0);
}

NUMFN(dlog1)
{
	return ty_float(log_common(ARG_F(0), log));
}
NUMFN(dlog10)
{
	return ty_float(log_common(ARG_F(0), log10));
}

/* ---------------------------------------------------------------- trig */

NUMFN(dacos)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (a < -1.0 || a > 1.0)
		out_of_range();
	return ty_float(check(acos(a), a, false, true));
}

NUMFN(dasin)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (a < -1.0 || a > 1.0)
		out_of_range();
	return ty_float(check(asin(a), a, false, true));
}

NUMFN(datan)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	double r = atan(a);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(datan2)
{
	double a = ARG_F(0), b = ARG_F(1);
	if (isnan(a) || isnan(b))
		return ty_float(NAN);
	double r = atan2(a, b);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

/* cos/sin/tan/cot: infinite input is "out of range". */
static double trig(double a, double (*fn)(double), bool overflow_check)
{
	errno = 0;
	double r = fn(a);
	if (errno != 0 || isinf(a))
		out_of_range();
	if (overflow_check && isinf(r))
		num_err_float_overflow();
	return r;
}

NUMFN(dcos)
{
	double a = ARG_F(0);
	return ty_float(isnan(a) ? NAN : trig(a, cos, true));
}

NUMFN(dsin)
{
	double a = ARG_F(0);
	return ty_float(isnan(a) ? NAN : trig(a, sin, true));
}

NUMFN(dtan)
{
	double a = ARG_F(0);
	return ty_float(isnan(a) ? NAN : trig(a, tan, false));
}

NUMFN(dcot)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	return ty_float(1.0 / trig(a, tan, false));
}

/* Degree variants: exact results at the special angles, computed the way
 * PostgreSQL does (scaled so that 30, 45, 60 and 90 degrees come out
 * exactly). */
static double sin_30, one_minus_cos_60, asin_0_5, acos_0_5, atan_1_0, tan_45, cot_45;
static _Thread_local bool degree_consts; /* computed per thread; same values everywhere */

static double sind_0_to_30(double x)
{
	return (sin(x * RADIANS_PER_DEGREE) / sin_30) / 2.0;
}

static double cosd_0_to_60(double x)
{
	double one_minus_cos_x = 1.0 - cos(x * RADIANS_PER_DEGREE);
	return 1.0 - (one_minus_cos_x / one_minus_cos_60) / 2.0;
}

static double sind_q1(double x)
{
	return x <= 30.0 ? sind_0_to_30(x) : cosd_0_to_60(90.0 - x);
}
static double cosd_q1(double x)
{
	return x <= 60.0 ? cosd_0_to_60(x) : sind_0_to_30(90.0 - x);
}

static void init_degrees(void)
{
	if (degree_consts)
		return;
	sin_30 = sin(RADIANS_PER_DEGREE * 30.0);
	one_minus_cos_60 = 1.0 - cos(RADIANS_PER_DEGREE * 60.0);
	asin_0_5 = asin(0.5);
	acos_0_5 = acos(0.5);
	atan_1_0 = atan(1.0);
	tan_45 = sind_q1(45.0) / cosd_q1(45.0);
	cot_45 = cosd_q1(45.0) / sind_q1(45.0);
	degree_consts = true;
}

static double asind_q1(double x)
{
	if (x <= 0.5)
		return (asin(x) / asin_0_5) * 30.0;
	return 90.0 - (acos(x) / acos_0_5) * 60.0;
}

static double acosd_q1(double x)
{
	if (x <= 0.5)
		return 90.0 - (asin(x) / asin_0_5) * 30.0;
	return (acos(x) / acos_0_5) * 60.0;
}

NUMFN(dacosd)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	init_degrees();
	if (a < -1.0 || a > 1.0)
		out_of_range();
	double r = a >= 0.0 ? acosd_q1(a) : 90.0 + asind_q1(-a);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(dasind)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	init_degrees();
	if (a < -1.0 || a > 1.0)
		out_of_range();
	double r = a >= 0.0 ? asind_q1(a) : -asind_q1(-a);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(datand)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	init_degrees();
	double r = (atan(a) / atan_1_0) * 45.0;
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(datan2d)
{
	double a = ARG_F(0), b = ARG_F(1);
	if (isnan(a) || isnan(b))
		return ty_float(NAN);
	init_degrees();
	double r = (atan2(a, b) / atan_1_0) * 45.0;
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

/* Reduces degrees to [0, 90] for the sin/cos/tan/cot variants; *sign
 * collects the sign flips each function's symmetry needs. */
NUMFN(dcosd)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (isinf(a))
		out_of_range();
	init_degrees();
	int sign = 1;
	a = fmod(a, 360.0);
	if (a < 0.0)
		a = -a;
	if (a > 180.0)
		a = 360.0 - a;
	if (a > 90.0) {
		a = 180.0 - a;
		sign = -sign;
	}
	double r = sign * cosd_q1(a);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(dsind)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (isinf(a))
		out_of_range();
	init_degrees();
	int sign = 1;
	a = fmod(a, 360.0);
	if (a < 0.0) {
		a = -a;
		sign = -sign;
	}
	if (a > 180.0) {
		a = 360.0 - a;
		sign = -sign;
	}
	if (a > 90.0)
		a = 180.0 - a;
	double r = sign * sind_q1(a);
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

static double reduce_odd(double a, int *sign)
{
	a = fmod(a, 360.0);
	if (a < 0.0) {
		a = -a;
		*sign = -*sign;
	}
	if (a > 180.0) {
		a = 360.0 - a;
		*sign = -*sign;
	}
	if (a > 90.0) {
		a = 180.0 - a;
		*sign = -*sign;
	}
	return a;
}

NUMFN(dtand)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (isinf(a))
		out_of_range();
	init_degrees();
	int sign = 1;
	a = reduce_odd(a, &sign);
	double t = sind_q1(a) / cosd_q1(a);
	double r = sign * (t / tan_45);
	if (r == 0.0) /* no minus zero */
		r = 0.0;
	return ty_float(r);
}

NUMFN(dcotd)
{
	double a = ARG_F(0);
	if (isnan(a))
		return ty_float(NAN);
	if (isinf(a))
		out_of_range();
	init_degrees();
	int sign = 1;
	a = reduce_odd(a, &sign);
	double t = cosd_q1(a) / sind_q1(a);
	double r = sign * (t / cot_45);
	if (r == 0.0)
		r = 0.0;
	return ty_float(r);
}

/* ---------------------------------------------------------------- hyperbolic */

NUMFN(dsinh)
{
	double a = ARG_F(0);
	errno = 0;
	double r = sinh(a);
	if (errno == ERANGE)
		r = a < 0 ? -INFINITY : INFINITY;
	return ty_float(r);
}

NUMFN(dcosh)
{
	double a = ARG_F(0);
	errno = 0;
	double r = cosh(a);
	if (errno == ERANGE)
		r = INFINITY;
	if (r == 0.0)
		num_err_float_underflow();
	return ty_float(r);
}

NUMFN(dtanh)
{
	double r = tanh(ARG_F(0));
	if (isinf(r))
		num_err_float_overflow();
	return ty_float(r);
}

NUMFN(dasinh)
{
	return ty_float(asinh(ARG_F(0)));
}

NUMFN(dacosh)
{
	double a = ARG_F(0);
	if (a < 1.0)
		out_of_range();
	return ty_float(acosh(a));
}

NUMFN(datanh)
{
	double a = ARG_F(0);
	if (a < -1.0 || a > 1.0)
		out_of_range();
	if (a == -1.0)
		return ty_float(-INFINITY);
	if (a == 1.0)
		return ty_float(INFINITY);
	return ty_float(atanh(a));
}

/* ---------------------------------------------------------------- misc */

NUMFN(degrees)
{
	double a = ARG_F(0);
	double r = a / RADIANS_PER_DEGREE;
	return ty_float(check(r, a, false, a == 0.0));
}

NUMFN(radians)
{
	double a = ARG_F(0);
	double r = a * RADIANS_PER_DEGREE;
	return ty_float(check(r, a, false, a == 0.0));
}

NUMFN(dpi)
{
	return ty_float(M_PI);
}

/* double -> int32 as x86's cvttsd2si does it (PostgreSQL assigns the
 * double to an int32): NaN and out-of-range values become INT32_MIN. */
static int32_t to_int32_x86(double d)
{
	if (isnan(d) || d <= -2147483649.0 || d >= 2147483648.0)
		return INT32_MIN;
	return (int32_t)d;
}

/* width_bucket(operand, low, high, count) for float8, with PostgreSQL 15's
 * arithmetic (count * (op - low) / (high - low) + 1). */
NUMFN(width_bucket_float8)
{
	double op = ARG_F(0), b1 = ARG_F(1), b2 = ARG_F(2);
	int32_t count = (int32_t)ARG_I(3);
	int32_t r;
	if (count <= 0)
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "count must be greater than zero");
	if (isnan(op) || isnan(b1) || isnan(b2))
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "operand, lower bound, and upper bound cannot be NaN");
	if (isinf(b1) || isinf(b2))
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "lower and upper bounds must be finite");
	if (b1 < b2) {
		if (op < b1)
			r = 0;
		else if (op >= b2) {
			if (__builtin_add_overflow(count, 1, &r))
				num_err_int4_range();
		} else
			r = to_int32_x86((double)count * (op - b1) / (b2 - b1) + 1);
	} else if (b1 > b2) {
		if (op > b1)
			r = 0;
		else if (op <= b2) {
			if (__builtin_add_overflow(count, 1, &r))
				num_err_int4_range();
		} else
			r = to_int32_x86((double)count * (b1 - op) / (b1 - b2) + 1);
	} else {
		ty_error(UTIL_E_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION,
			 "lower bound cannot equal upper bound");
	}
	return ty_int(r);
}
