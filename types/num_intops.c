/*
 * num_intops.c — SQL functions on int2/int4/int8: arithmetic and
 * comparison for every same- and cross-type pair in pg_operator (int24pl,
 * int48mul, int82lt ...), unary and bitwise operators, abs, larger/smaller,
 * gcd/lcm, inc/dec and the casts between integers, bool and floats. The
 * result range checks raise PostgreSQL's "smallint/integer/bigint out of
 * range" (22003) and "division by zero" (22012).
 */
#include "num_priv.h"

#include <math.h>

static int64_t fit(int64_t v, int bits)
{
	if (bits == 16 && (v < INT16_MIN || v > INT16_MAX))
		num_err_int2_range();
	if (bits == 32 && (v < INT32_MIN || v > INT32_MAX))
		num_err_int4_range();
	return v;
}

static UTIL_NORETURN void range(int bits)
{
	if (bits == 16)
		num_err_int2_range();
	if (bits == 32)
		num_err_int4_range();
	num_err_int8_range();
}

static int64_t add(int64_t a, int64_t b, int bits)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		range(bits);
	return fit(r, bits);
}

static int64_t sub(int64_t a, int64_t b, int bits)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		range(bits);
	return fit(r, bits);
}

static int64_t mul(int64_t a, int64_t b, int bits)
{
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		range(bits);
	return fit(r, bits);
}

static int64_t divi(int64_t a, int64_t b, int bits)
{
	if (b == 0)
		num_err_div0();
	if (b == -1) /* INT_MIN / -1 traps on some machines; negate with a check */
		return sub(0, a, bits);
	return fit(a / b, bits);
}

static int64_t modi(int64_t a, int64_t b)
{
	if (b == 0)
		num_err_div0();
	if (b == -1)
		return 0;
	return a % b;
}

/* Arithmetic and comparison for one (left, right) pair; bits = result width. */
#define INT_ARITH(pfx, bits)                                                                                 \
	NUMFN(pfx##pl)                                                                                       \
	{                                                                                                    \
		return ty_int(add(ARG_I(0), ARG_I(1), bits));                                                \
	}                                                                                                    \
	NUMFN(pfx##mi)                                                                                       \
	{                                                                                                    \
		return ty_int(sub(ARG_I(0), ARG_I(1), bits));                                                \
	}                                                                                                    \
	NUMFN(pfx##mul)                                                                                      \
	{                                                                                                    \
		return ty_int(mul(ARG_I(0), ARG_I(1), bits));                                                \
	}                                                                                                    \
	NUMFN(pfx##div)                                                                                      \
	{                                                                                                    \
		return ty_int(divi(ARG_I(0), ARG_I(1), bits));                                               \
	}
/* clang-format off */
#define INT_CMP6(pfx) \
	NUMFN(pfx##eq) { return ty_bool(ARG_I(0) == ARG_I(1)); } \
	NUMFN(pfx##ne) { return ty_bool(ARG_I(0) != ARG_I(1)); } \
	NUMFN(pfx##lt) { return ty_bool(ARG_I(0) < ARG_I(1)); } \
	NUMFN(pfx##le) { return ty_bool(ARG_I(0) <= ARG_I(1)); } \
	NUMFN(pfx##gt) { return ty_bool(ARG_I(0) > ARG_I(1)); } \
	NUMFN(pfx##ge) { return ty_bool(ARG_I(0) >= ARG_I(1)); }
#define INT_CMP(pfx, cmpname) \
	INT_CMP6(pfx) \
	NUMFN(cmpname) { return ty_int((ARG_I(0) > ARG_I(1)) - (ARG_I(0) < ARG_I(1))); }
/* clang-format on */

/* btint2cmp is a plain difference in PostgreSQL (fits in int32). */
NUMFN(btint2cmp)
{
	return ty_int(ARG_I(0) - ARG_I(1));
}

INT_ARITH(int2, 16)
INT_ARITH(int4, 32)
INT_ARITH(int8, 64)
INT_ARITH(int24, 32)
INT_ARITH(int42, 32)
INT_ARITH(int28, 64)
INT_ARITH(int82, 64)
INT_ARITH(int48, 64)
INT_ARITH(int84, 64)
INT_CMP6(int2)
INT_CMP(int4, btint4cmp)
INT_CMP(int8, btint8cmp)
INT_CMP(int24, btint24cmp)
INT_CMP(int42, btint42cmp)
INT_CMP(int28, btint28cmp)
INT_CMP(int82, btint82cmp)
INT_CMP(int48, btint48cmp)
INT_CMP(int84, btint84cmp)

/* Same-type-only operators: %, unary, abs, bitwise, shifts, larger/smaller.
 * Shift counts behave as on x86 (masked to the operand width), which is
 * what PostgreSQL's C shifts do there. */
#define INT_MISC(pfx, bits)                                                                                  \
	NUMFN(pfx##mod)                                                                                      \
	{                                                                                                    \
		return ty_int(modi(ARG_I(0), ARG_I(1)));                                                     \
	}                                                                                                    \
	NUMFN(pfx##um)                                                                                       \
	{                                                                                                    \
		return ty_int(sub(0, ARG_I(0), bits));                                                       \
	}                                                                                                    \
	NUMFN(pfx##up)                                                                                       \
	{                                                                                                    \
		return ARG(0);                                                                               \
	}                                                                                                    \
	NUMFN(pfx##abs)                                                                                      \
	{                                                                                                    \
		return ty_int(ARG_I(0) < 0 ? sub(0, ARG_I(0), bits) : ARG_I(0));                             \
	}                                                                                                    \
	NUMFN(pfx##and)                                                                                      \
	{                                                                                                    \
		return ty_int(ARG_I(0) & ARG_I(1));                                                          \
	}                                                                                                    \
	NUMFN(pfx## or)                                                                                      \
	{                                                                                                    \
		return ty_int(ARG_I(0) | ARG_I(1));                                                          \
	}                                                                                                    \
	NUMFN(pfx## xor)                                                                                     \
	{                                                                                                    \
		return ty_int(ARG_I(0) ^ ARG_I(1));                                                          \
	}                                                                                                    \
	NUMFN(pfx##not )                                                                                     \
	{                                                                                                    \
		return ty_int(~ARG_I(0));                                                                    \
	}                                                                                                    \
	NUMFN(pfx##larger)                                                                                   \
	{                                                                                                    \
		return ARG_I(0) > ARG_I(1) ? ARG(0) : ARG(1);                                                \
	}                                                                                                    \
	NUMFN(pfx##smaller)                                                                                  \
	{                                                                                                    \
		return ARG_I(0) < ARG_I(1) ? ARG(0) : ARG(1);                                                \
	}

INT_MISC(int2, 16)
INT_MISC(int4, 32)
INT_MISC(int8, 64)

NUMFN(int2shl)
{
	return ty_int((int16_t)(uint32_t)((uint32_t)(int32_t)ARG_I(0) << (ARG_I(1) & 31)));
}
NUMFN(int4shl)
{
	return ty_int((int32_t)((uint32_t)(int32_t)ARG_I(0) << (ARG_I(1) & 31)));
}
NUMFN(int8shl)
{
	return ty_int((int64_t)((uint64_t)ARG_I(0) << (ARG_I(1) & 63)));
}
NUMFN(int2shr)
{
	return ty_int((int16_t)((int32_t)ARG_I(0) >> (ARG_I(1) & 31)));
}
NUMFN(int4shr)
{
	return ty_int((int32_t)ARG_I(0) >> (ARG_I(1) & 31));
}
NUMFN(int8shr)
{
	return ty_int(ARG_I(0) >> (ARG_I(1) & 63));
}

NUMFN(int4inc)
{
	return ty_int(add(ARG_I(0), 1, 32));
}
NUMFN(int8inc)
{
	return ty_int(add(ARG_I(0), 1, 64));
}
NUMFN(int8dec)
{
	return ty_int(sub(ARG_I(0), 1, 64));
}

/* gcd of the magnitudes; the result must fit the type (gcd(INT_MIN, 0) and
 * gcd(INT_MIN, INT_MIN) do not). */
static int64_t gcd(int64_t a, int64_t b, int bits)
{
	uint64_t x = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
	uint64_t y = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
	while (y) {
		uint64_t t = x % y;
		x = y;
		y = t;
	}
	if (x > (bits == 32 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX))
		range(bits);
	return (int64_t)x;
}

static int64_t lcm(int64_t a, int64_t b, int bits)
{
	if (a == 0 || b == 0)
		return 0;
	int64_t g = gcd(a, b, bits);
	int64_t r = mul(a / g, b, bits);
	if (r == (bits == 32 ? INT32_MIN : INT64_MIN))
		range(bits);
	return r < 0 ? -r : r;
}

NUMFN(int4gcd)
{
	return ty_int(gcd(ARG_I(0), ARG_I(1), 32));
}
NUMFN(int8gcd)
{
	return ty_int(gcd(ARG_I(0), ARG_I(1), 64));
}
NUMFN(int4lcm)
{
	return ty_int(lcm(ARG_I(0), ARG_I(1), 32));
}
NUMFN(int8lcm)
{
	return ty_int(lcm(ARG_I(0), ARG_I(1), 64));
}

/* ---------------------------------------------------------------- casts */

NUMFN(int28)
{
	return ARG(0);
}
NUMFN(i2toi4)
{
	return ARG(0);
}
NUMFN(int48)
{
	return ARG(0);
}
NUMFN(i4toi2)
{
	return ty_int(fit(ARG_I(0), 16));
}
NUMFN(int82)
{
	return ty_int(fit(ARG_I(0), 16));
}
NUMFN(int84)
{
	return ty_int(fit(ARG_I(0), 32));
}
NUMFN(int4_bool)
{
	return ty_bool(ARG_I(0) != 0);
}
NUMFN(bool_int4)
{
	return ty_int(ARG_I(0) ? 1 : 0);
}

NUMFN(i2tod)
{
	return ty_float((double)ARG_I(0));
}
NUMFN(i4tod)
{
	return ty_float((double)ARG_I(0));
}
NUMFN(i8tod)
{
	return ty_float((double)ARG_I(0));
}
NUMFN(i2tof)
{
	return ty_float((float)ARG_I(0));
}
NUMFN(i4tof)
{
	return ty_float((float)ARG_I(0));
}
NUMFN(i8tof)
{
	return ty_float((float)ARG_I(0));
}

/* float -> integer: round half to even (rint), then range check; NaN is
 * out of range. The bounds are exact powers of two, as PostgreSQL's
 * FLOAT8_FITS_IN_INT* macros. */
static int64_t float_to_int(double v, int bits)
{
	v = rint(v);
	double lo = bits == 16 ? -32768.0 : bits == 32 ? -2147483648.0 : -9223372036854775808.0;
	if (isnan(v) || v < lo || v >= -lo)
		range(bits);
	return (int64_t)v;
}

NUMFN(dtoi2)
{
	return ty_int(float_to_int(ARG_F(0), 16));
}
NUMFN(dtoi4)
{
	return ty_int(float_to_int(ARG_F(0), 32));
}
NUMFN(dtoi8)
{
	return ty_int(float_to_int(ARG_F(0), 64));
}
/* float4 rounding happens in float precision (rintf), as PostgreSQL. */
NUMFN(ftoi2)
{
	return ty_int(float_to_int(rintf((float)ARG_F(0)), 16));
}
NUMFN(ftoi4)
{
	return ty_int(float_to_int(rintf((float)ARG_F(0)), 32));
}
NUMFN(ftoi8)
{
	return ty_int(float_to_int(rintf((float)ARG_F(0)), 64));
}
