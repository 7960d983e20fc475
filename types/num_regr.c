/*
 * num_regr.c — the two-argument float8 aggregates corr, covar_pop,
 * covar_samp and regr_* (count, avgx, avgy, sxx, syy, sxy, slope,
 * intercept, r2), with PostgreSQL's Youngs-Cramer transition (arguments
 * are (Y, X)), its overflow rules and NULL results for degenerate inputs;
 * and to_hex for integers.
 */
#include "num_priv.h"

#include <math.h>

typedef struct regr {
	double n, sx, sxx, sy, syy, sxy;
} regr;

static void regr_step(void *st, ty_fcinfo *fc)
{
	regr *s = st;
	double y = fc->args[0].f, x = fc->args[1].f;
	double n0 = s->n, sx0 = s->sx, sy0 = s->sy;
	double n = n0 + 1.0, sx = sx0 + x, sy = sy0 + y, sxx = s->sxx, syy = s->syy, sxy = s->sxy;
	if (n0 > 0.0) {
		double tx = x * n - sx, ty = y * n - sy, scale = 1.0 / (n * n0);
		sxx += tx * tx * scale;
		syy += ty * ty * scale;
		sxy += tx * ty * scale;
		/* overflow only when finite inputs give infinite sums; sums that
		 * depend on an infinite input become NaN */
		if (isinf(sx) || isinf(sxx) || isinf(sy) || isinf(syy) || isinf(sxy)) {
			if (((isinf(sx) || isinf(sxx)) && !isinf(sx0) && !isinf(x)) ||
			    ((isinf(sy) || isinf(syy)) && !isinf(sy0) && !isinf(y)) ||
			    (isinf(sxy) && !isinf(sx0) && !isinf(x) && !isinf(sy0) && !isinf(y)))
				num_err_float_overflow();
			if (isinf(sxx))
				sxx = NAN;
			if (isinf(syy))
				syy = NAN;
			if (isinf(sxy))
				sxy = NAN;
		}
	} else {
		if (isnan(x) || isinf(x))
			sxx = sxy = NAN;
		if (isnan(y) || isinf(y))
			syy = sxy = NAN;
	}
	s->n = n;
	s->sx = sx;
	s->sxx = sxx;
	s->sy = sy;
	s->syy = syy;
	s->sxy = sxy;
}

static void regr_combine(void *st, const void *o)
{
	regr *a = st;
	const regr *b = o;
	if (b->n == 0.0)
		return;
	if (a->n == 0.0) {
		*a = *b;
		return;
	}
	double n = a->n + b->n;
	double sx = a->sx + b->sx;
	if (isinf(sx) && !isinf(a->sx) && !isinf(b->sx))
		num_err_float_overflow();
	double t1 = a->sx / a->n - b->sx / b->n;
	double sxx = a->sxx + b->sxx + a->n * b->n * t1 * t1 / n;
	if (isinf(sxx) && !isinf(a->sxx) && !isinf(b->sxx))
		num_err_float_overflow();
	double sy = a->sy + b->sy;
	if (isinf(sy) && !isinf(a->sy) && !isinf(b->sy))
		num_err_float_overflow();
	double t2 = a->sy / a->n - b->sy / b->n;
	double syy = a->syy + b->syy + a->n * b->n * t2 * t2 / n;
	if (isinf(syy) && !isinf(a->syy) && !isinf(b->syy))
		num_err_float_overflow();
	double sxy = a->sxy + b->sxy + a->n * b->n * t1 * t2 / n;
	if (isinf(sxy) && !isinf(a->sxy) && !isinf(b->sxy))
		num_err_float_overflow();
	*a = (regr){n, sx, sxx, sy, syy, sxy};
}

#define REGR_FINAL(name, minn, expr)                                                                         \
	static ty_datum name(void *st, ty_fcinfo *fc)                                                        \
	{                                                                                                    \
		(void)fc;                                                                                    \
		const regr *s = st;                                                                          \
		if (s->n < (minn))                                                                           \
			return ty_null();                                                                    \
		expr                                                                                         \
	}

REGR_FINAL(f_sxx, 1.0, return ty_float(s->sxx);)
REGR_FINAL(f_syy, 1.0, return ty_float(s->syy);)
REGR_FINAL(f_sxy, 1.0, return ty_float(s->sxy);)
REGR_FINAL(f_avgx, 1.0, return ty_float(s->sx / s->n);)
REGR_FINAL(f_avgy, 1.0, return ty_float(s->sy / s->n);)
REGR_FINAL(f_covar_pop, 1.0, return ty_float(s->sxy / s->n);)
REGR_FINAL(f_covar_samp, 2.0, return ty_float(s->sxy / (s->n - 1.0));)
/* horizontal or vertical lines have no correlation or slope */
REGR_FINAL(f_corr, 1.0, if (s->sxx == 0 || s->syy == 0) return ty_null();
	   return ty_float(s->sxy / sqrt(s->sxx * s->syy));)
REGR_FINAL(f_r2, 1.0, if (s->sxx == 0) return ty_null(); if (s->syy == 0) return ty_float(1.0);
	   return ty_float((s->sxy * s->sxy) / (s->sxx * s->syy));)
REGR_FINAL(f_slope, 1.0, if (s->sxx == 0) return ty_null(); return ty_float(s->sxy / s->sxx);)
REGR_FINAL(f_intercept, 1.0, if (s->sxx == 0) return ty_null();
	   return ty_float((s->sy - s->sx * s->sxy / s->sxx) / s->n);)

/* regr_count: rows with both values non-NULL; 0 (not NULL) when none. */
static void count_step(void *st, ty_fcinfo *fc)
{
	(void)fc;
	(*(int64_t *)st)++;
}
static void count_inv(void *st, ty_fcinfo *fc)
{
	(void)fc;
	(*(int64_t *)st)--;
}
static void count_combine(void *st, const void *o)
{
	*(int64_t *)st += *(const int64_t *)o;
}
static ty_datum count_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return ty_int(*(int64_t *)st);
}

#define REGR(nm, oid_, fin)                                                                                  \
	{                                                                                                    \
		.name = nm, .nargs = 2, .args = {TY_FLOAT8, TY_FLOAT8}, .ret = TY_FLOAT8, .strict = true,    \
		.state_size = sizeof(regr), .step = regr_step, .combine = regr_combine, .final = fin,        \
		.oid = oid_                                                                                  \
	}

const ty_agg num_regr_aggs[] = {
    REGR("corr", 2829, f_corr),
    REGR("covar_pop", 2827, f_covar_pop),
    REGR("covar_samp", 2828, f_covar_samp),
    REGR("regr_avgx", 2822, f_avgx),
    REGR("regr_avgy", 2823, f_avgy),
    REGR("regr_intercept", 2826, f_intercept),
    REGR("regr_r2", 2824, f_r2),
    REGR("regr_slope", 2825, f_slope),
    REGR("regr_sxx", 2819, f_sxx),
    REGR("regr_sxy", 2821, f_sxy),
    REGR("regr_syy", 2820, f_syy),
    {.name = "regr_count",
     .nargs = 2,
     .args = {TY_FLOAT8, TY_FLOAT8},
     .ret = TY_INT8,
     .strict = true,
     .state_size = sizeof(int64_t),
     .step = count_step,
     .combine = count_combine,
     .final = count_final,
     .inverse = count_inv,
     .oid = 2818},
};

const int num_nregr_aggs = (int)UTIL_ARRAY_LEN(num_regr_aggs);

/* to_hex: two's complement digits of the 32- or 64-bit value. */
static ty_datum hex(uint64_t v)
{
	char buf[17];
	int n = 0;
	char tmp[17];
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (int i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return ty_textn(buf, (size_t)n);
}

NUMFN(to_hex32)
{
	return hex((uint32_t)ARG_I(0));
}
NUMFN(to_hex64)
{
	return hex((uint64_t)ARG_I(0));
}
