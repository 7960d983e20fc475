/*
 * num_inrange.c — in_range support functions for window frames with
 * RANGE offset PRECEDING/FOLLOWING (pg_proc "in_range"): whether val is
 * within base +/- offset, for the integer, float and numeric pairs of
 * PostgreSQL, with its NaN/Infinity conventions and the 22013 error for a
 * negative (or NaN) offset.
 */
#include "num_priv.h"

#include <math.h>

static UTIL_NORETURN void bad_offset(void)
{
	ty_error(UTIL_E_INVALID_PRECEDING_OR_FOLLOWING_SIZE,
		 "invalid preceding or following size in window function");
}

/* Integers: exact in 128 bits, which gives what PostgreSQL's overflow
 * shortcut gives (an overflowing sum lies beyond every val). */
static ty_datum int_in_range(ty_fcinfo *fc)
{
	__int128 val = ARG_I(0), base = ARG_I(1), off = ARG_I(2);
	bool sub = ARG_I(3) != 0, less = ARG_I(4) != 0;
	if (off < 0)
		bad_offset();
	__int128 sum = sub ? base - off : base + off;
	return ty_bool(less ? val <= sum : val >= sum);
}

NUMFN(in_range_int2_int2)
{
	return int_in_range(fc);
}
NUMFN(in_range_int2_int4)
{
	return int_in_range(fc);
}
NUMFN(in_range_int2_int8)
{
	return int_in_range(fc);
}
NUMFN(in_range_int4_int2)
{
	return int_in_range(fc);
}
NUMFN(in_range_int4_int4)
{
	return int_in_range(fc);
}
NUMFN(in_range_int4_int8)
{
	return int_in_range(fc);
}
NUMFN(in_range_int8_int8)
{
	return int_in_range(fc);
}

static ty_datum float_in_range(ty_fcinfo *fc)
{
	double val = ARG_F(0), base = ARG_F(1), off = ARG_F(2);
	bool sub = ARG_I(3) != 0, less = ARG_I(4) != 0;
	if (isnan(off) || off < 0)
		bad_offset();
	/* NaN sorts after everything else; the offset cannot change that */
	if (isnan(val))
		return ty_bool(isnan(base) ? true : !less);
	if (isnan(base))
		return ty_bool(less);
	/* infinite base and offset would give NaN: every value is inside */
	if (isinf(off) && isinf(base) && (sub ? base > 0 : base < 0))
		return ty_bool(true);
	double sum = sub ? base - off : base + off;
	return ty_bool(less ? val <= sum : val >= sum);
}

NUMFN(in_range_float8_float8)
{
	return float_in_range(fc);
}
NUMFN(in_range_float4_float8)
{
	return float_in_range(fc);
}

NUMFN(in_range_numeric_numeric)
{
	ty_datum val = ARG(0), base = ARG(1), off = ARG(2);
	bool sub = ARG_I(3) != 0, less = ARG_I(4) != 0;
	bool off_ninf = ty_numeric_is_inf(off) && ty_numeric_sign(off) < 0;
	if (ty_numeric_is_nan(off) || off_ninf || ty_numeric_sign(off) < 0)
		bad_offset();
	bool vnan = ty_numeric_is_nan(val), bnan = ty_numeric_is_nan(base);
	bool vpinf = ty_numeric_is_inf(val) && ty_numeric_sign(val) > 0;
	bool vninf = ty_numeric_is_inf(val) && ty_numeric_sign(val) < 0;
	bool bpinf = ty_numeric_is_inf(base) && ty_numeric_sign(base) > 0;
	bool bninf = ty_numeric_is_inf(base) && ty_numeric_sign(base) < 0;
	bool r;
	if (vnan) {
		r = bnan ? true : !less;
	} else if (bnan) {
		r = less;
	} else if (ty_numeric_is_inf(off)) {
		if (sub ? bpinf : bninf)
			r = true; /* base +/- offset would be NaN */
		else if (sub)
			r = less ? vninf : true; /* the bound is -Infinity */
		else
			r = less ? true : vpinf; /* the bound is +Infinity */
	} else if (vpinf || vninf || bpinf || bninf) {
		if (vpinf)
			r = bpinf ? true : !less;
		else if (bpinf)
			r = less;
		else if (vninf)
			r = bninf ? true : less;
		else
			r = !less;
	} else {
		ty_datum sum = sub ? ty_numeric_sub(base, off) : ty_numeric_add(base, off);
		int c = ty_numeric_cmp(val, sum);
		r = less ? c <= 0 : c >= 0;
	}
	return ty_bool(r);
}
