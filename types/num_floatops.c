/*
 * num_floatops.c — SQL operators on float4/float8 (same- and cross-type
 * arithmetic and comparison, unary, abs, larger/smaller) and the casts
 * between the two, with PostgreSQL's overflow/underflow checks: float4
 * arithmetic is done in float precision, float48/float84 in double.
 */
#include "num_priv.h"

#include <math.h>

/* PostgreSQL's float_overflow/underflow checks after +, -, *, /. */
static double chk8(double r, bool inf_ok, bool zero_ok)
{
	if (isinf(r) && !inf_ok)
		num_err_float_overflow();
	if (r == 0.0 && !zero_ok)
		num_err_float_underflow();
	return r;
}

static double pl8(double a, double b)
{
	return chk8(a + b, isinf(a) || isinf(b), true);
}
static double mi8(double a, double b)
{
	return chk8(a - b, isinf(a) || isinf(b), true);
}
static double mul8(double a, double b)
{
	return chk8(a * b, isinf(a) || isinf(b), a == 0.0 || b == 0.0);
}
static double div8(double a, double b)
{
	if (b == 0.0 && !isnan(a))
		num_err_div0();
	return chk8(a / b, isinf(a), a == 0.0 || isinf(b));
}

static float chk4(float r, bool inf_ok, bool zero_ok)
{
	if (isinf(r) && !inf_ok)
		num_err_float_overflow();
	if (r == 0.0f && !zero_ok)
		num_err_float_underflow();
	return r;
}

static float pl4(float a, float b)
{
	return chk4(a + b, isinf(a) || isinf(b), true);
}
static float mi4(float a, float b)
{
	return chk4(a - b, isinf(a) || isinf(b), true);
}
static float mul4(float a, float b)
{
	return chk4(a * b, isinf(a) || isinf(b), a == 0.0f || b == 0.0f);
}
static float div4(float a, float b)
{
	if (b == 0.0f && !isnan(a))
		num_err_div0();
	return chk4(a / b, isinf(a), a == 0.0f || isinf(b));
}

#define F4(n) ((float)ARG_F(n))

NUMFN(float8pl)
{
	return ty_float(pl8(ARG_F(0), ARG_F(1)));
}
NUMFN(float8mi)
{
	return ty_float(mi8(ARG_F(0), ARG_F(1)));
}
NUMFN(float8mul)
{
	return ty_float(mul8(ARG_F(0), ARG_F(1)));
}
NUMFN(float8div)
{
	return ty_float(div8(ARG_F(0), ARG_F(1)));
}
NUMFN(float48pl)
{
	return ty_float(pl8(ARG_F(0), ARG_F(1)));
}
NUMFN(float48mi)
{
	return ty_float(mi8(ARG_F(0), ARG_F(1)));
}
NUMFN(float48mul)
{
	return ty_float(mul8(ARG_F(0), ARG_F(1)));
}
NUMFN(float48div)
{
	return ty_float(div8(ARG_F(0), ARG_F(1)));
}
NUMFN(float84pl)
{
	return ty_float(pl8(ARG_F(0), ARG_F(1)));
}
NUMFN(float84mi)
{
	return ty_float(mi8(ARG_F(0), ARG_F(1)));
}
NUMFN(float84mul)
{
	return ty_float(mul8(ARG_F(0), ARG_F(1)));
}
NUMFN(float84div)
{
	return ty_float(div8(ARG_F(0), ARG_F(1)));
}
NUMFN(float4pl)
{
	return ty_float(pl4(F4(0), F4(1)));
}
NUMFN(float4mi)
{
	return ty_float(mi4(F4(0), F4(1)));
}
NUMFN(float4mul)
{
	return ty_float(mul4(F4(0), F4(1)));
}
NUMFN(float4div)
{
	return ty_float(div4(F4(0), F4(1)));
}

#define FLT_CMP(pfx)                                                                                         \
	NUMFN(pfx##eq)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) == 0);                                     \
	}                                                                                                    \
	NUMFN(pfx##ne)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) != 0);                                     \
	}                                                                                                    \
	NUMFN(pfx##lt)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) < 0);                                      \
	}                                                                                                    \
	NUMFN(pfx##le)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) <= 0);                                     \
	}                                                                                                    \
	NUMFN(pfx##gt)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) > 0);                                      \
	}                                                                                                    \
	NUMFN(pfx##ge)                                                                                       \
	{                                                                                                    \
		return ty_bool(num_float8_cmp(ARG_F(0), ARG_F(1)) >= 0);                                     \
	}

FLT_CMP(float4)
FLT_CMP(float8)
FLT_CMP(float48)
FLT_CMP(float84)
NUMFN(btfloat4cmp)
{
	return ty_int(num_float8_cmp(ARG_F(0), ARG_F(1)));
}
NUMFN(btfloat8cmp)
{
	return ty_int(num_float8_cmp(ARG_F(0), ARG_F(1)));
}
NUMFN(btfloat48cmp)
{
	return ty_int(num_float8_cmp(ARG_F(0), ARG_F(1)));
}
NUMFN(btfloat84cmp)
{
	return ty_int(num_float8_cmp(ARG_F(0), ARG_F(1)));
}

NUMFN(float4um)
{
	return ty_float(-F4(0));
}
NUMFN(float8um)
{
	return ty_float(-ARG_F(0));
}
NUMFN(float4up)
{
	return ARG(0);
}
NUMFN(float8up)
{
	return ARG(0);
}
NUMFN(float4abs)
{
	return ty_float(fabsf(F4(0)));
}
NUMFN(float8abs)
{
	return ty_float(fabs(ARG_F(0)));
}
NUMFN(float4larger)
{
	return num_float8_cmp(ARG_F(0), ARG_F(1)) > 0 ? ARG(0) : ARG(1);
}
NUMFN(float8larger)
{
	return num_float8_cmp(ARG_F(0), ARG_F(1)) > 0 ? ARG(0) : ARG(1);
}
NUMFN(float4smaller)
{
	return num_float8_cmp(ARG_F(0), ARG_F(1)) < 0 ? ARG(0) : ARG(1);
}
NUMFN(float8smaller)
{
	return num_float8_cmp(ARG_F(0), ARG_F(1)) < 0 ? ARG(0) : ARG(1);
}

NUMFN(ftod)
{
	return ARG(0);
}
NUMFN(dtof)
{
	double d = ARG_F(0);
	float f = (float)d;
	if (isinf(f) && !isinf(d))
		num_err_float_overflow();
	if (f == 0.0f && d != 0.0)
		num_err_float_underflow();
	return ty_float(f);
}
