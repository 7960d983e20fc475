/*
 * num_agg.c — the numeric area's aggregates with PostgreSQL 15's result
 * types, NULL rules and arithmetic: sum, avg, the variance family
 * (variance/var_samp/var_pop/stddev/stddev_samp/stddev_pop), bool_and/
 * bool_or/every and bit_and/bit_or/bit_xor. Each has a combine function
 * (parallel partial aggregation) and, where PostgreSQL has a moving-
 * aggregate inverse, an inverse transition: integer and numeric sums and
 * variances (exact), bool_and/bool_or (counting); float aggregates have
 * none (floating-point sums cannot be un-added exactly).
 *
 * Integer sums use 64/128-bit integers as PostgreSQL does (int128 for int8
 * sums and for int2/int4 sums of squares); numeric ones use the exact
 * ty_numeric_sum accumulator; float ones the Youngs-Cramer update.
 */
#include "num_priv.h"

#include <math.h>
#include <string.h>

#define IN(fc) ((fc)->args[0])

/* ---------------------------------------------------------------- helpers */

static ty_datum num_from_i128(__int128 v)
{
	nvar r;
	nv_from_int128(v, &r);
	return nv_to_datum(&r);
}

/* ---------------------------------------------------------------- int sums */

/* sum(int2/int4) -> int8 and avg(int2/int4): count + int64 sum. */
typedef struct isum {
	int64_t count;
	int64_t sum;
} isum;

static void isum_step(void *st, ty_fcinfo *fc)
{
	isum *s = st;
	s->count++;
	if (__builtin_add_overflow(s->sum, IN(fc).i, &s->sum))
		num_err_int8_range();
}

static void isum_inv(void *st, ty_fcinfo *fc)
{
	isum *s = st;
	s->count--;
	s->sum -= IN(fc).i;
}

static void isum_combine(void *st, const void *o)
{
	isum *s = st;
	const isum *b = o;
	s->count += b->count;
	if (__builtin_add_overflow(s->sum, b->sum, &s->sum))
		num_err_int8_range();
}

static ty_datum isum_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	isum *s = st;
	return s->count ? ty_int(s->sum) : ty_null();
}

static ty_datum iavg_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	isum *s = st;
	if (!s->count)
		return ty_null();
	return ty_numeric_div(ty_numeric_from_int64(s->sum), ty_numeric_from_int64(s->count));
}

/* sum(int8) -> numeric and avg(int8): count + int128 sum. */
typedef struct i128sum {
	int64_t count;
	__int128 sum;
} i128sum;

static void i128_step(void *st, ty_fcinfo *fc)
{
	i128sum *s = st;
	s->count++;
	s->sum += IN(fc).i;
}

static void i128_inv(void *st, ty_fcinfo *fc)
{
	i128sum *s = st;
	s->count--;
	s->sum -= IN(fc).i;
}

static void i128_combine(void *st, const void *o)
{
	i128sum *s = st;
	const i128sum *b = o;
	s->count += b->count;
	s->sum += b->sum;
}

static ty_datum i128_sum_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	i128sum *s = st;
	return s->count ? num_from_i128(s->sum) : ty_null();
}

static ty_datum i128_avg_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	i128sum *s = st;
	if (!s->count)
		return ty_null();
	return ty_numeric_div(num_from_i128(s->sum), ty_numeric_from_int64(s->count));
}

/* ---------------------------------------------------------------- numeric sums */

typedef struct nsum {
	ty_numeric_sum x, x2;
} nsum;

static void nsum_step(void *st, ty_fcinfo *fc)
{
	ty_numeric_sum_add(&((nsum *)st)->x, IN(fc));
}
static void nsum_inv(void *st, ty_fcinfo *fc)
{
	ty_numeric_sum_sub(&((nsum *)st)->x, IN(fc));
}

static void nsum_combine(void *st, const void *o)
{
	nsum *s = st;
	const nsum *b = o;
	ty_numeric_sum_combine(&s->x, &b->x);
	ty_numeric_sum_combine(&s->x2, &b->x2);
}

static ty_datum nsum_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	nsum *s = st;
	if (ty_numeric_sum_count(&s->x) == 0)
		return ty_null();
	return ty_numeric_sum_result(&s->x);
}

static ty_datum navg_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	nsum *s = st;
	if (ty_numeric_sum_count(&s->x) == 0)
		return ty_null();
	ty_datum sum = ty_numeric_sum_result(&s->x);
	if (ty_numeric_is_nan(sum) || ty_numeric_is_inf(sum))
		return sum;
	return ty_numeric_div(sum, ty_numeric_from_int64(s->x.n));
}

/* numeric inputs for the variance family: exact sums of x and x^2, built
 * without allocating per row. */
static void nvar_step(void *st, ty_fcinfo *fc)
{
	nsum *s = st;
	ty_numeric_sum_add(&s->x, IN(fc));
	ty_numeric_sum_add_square(&s->x2, IN(fc), false);
}

static void nvar_inv(void *st, ty_fcinfo *fc)
{
	nsum *s = st;
	ty_numeric_sum_sub(&s->x, IN(fc));
	ty_numeric_sum_add_square(&s->x2, IN(fc), true);
}

static void i8var_step(void *st, ty_fcinfo *fc)
{
	nsum *s = st;
	__int128 x = IN(fc).i;
	ty_numeric_sum_add_int128(&s->x, x, false);
	ty_numeric_sum_add_int128(&s->x2, x * x, false);
}

static void i8var_inv(void *st, ty_fcinfo *fc)
{
	nsum *s = st;
	__int128 x = IN(fc).i;
	ty_numeric_sum_add_int128(&s->x, x, true);
	ty_numeric_sum_add_int128(&s->x2, x * x, true);
}

/* numeric_stddev_internal: (N*sumX2 - sumX^2) / (N*(N-1) or N*N), with the
 * division scale of select_div_scale, then sqrt for stddev. */
static ty_datum stddev_from(int64_t n, int64_t total, bool special_nan, const nvar *sx_in, const nvar *sx2_in,
			    bool variance, bool sample)
{
	if (total == 0 || (sample && total <= 1))
		return ty_null();
	nvar r;
	if (special_nan) {
		nv_init(&r);
		r.sign = TY_NUMERIC_NAN;
		return nv_to_datum(&r);
	}
	nvar vn, sx, sx2, vnm1;
	nv_from_int64(n, &vn);
	nv_set(&sx, sx_in);
	nv_set(&sx2, sx2_in);
	nv_sub(&vn, &nv_const_one, &vnm1);
	int rscale = sx.dscale * 2;
	nv_mul(&sx, &sx, &sx, rscale);
	nv_mul(&vn, &sx2, &sx2, rscale);
	nv_sub(&sx2, &sx, &sx2);
	if (nv_cmp(&sx2, &nv_const_zero) <= 0)
		return ty_numeric_from_int64(0);
	if (sample)
		nv_mul(&vn, &vnm1, &vnm1, 0);
	else
		nv_mul(&vn, &vn, &vnm1, 0);
	rscale = nv_select_div_scale(&sx2, &vnm1);
	nv_div(&sx2, &vnm1, &r, rscale, true);
	if (!variance)
		nv_sqrt(&r, &r, rscale);
	return nv_to_datum(&r);
}

static ty_datum nvar_result(nsum *s, bool variance, bool sample)
{
	int64_t total = ty_numeric_sum_count(&s->x);
	bool sp = s->x.nnan || s->x.npinf || s->x.nninf;
	if (total == 0 || (sample && total <= 1) || sp)
		return stddev_from(s->x.n, total, sp, NULL, NULL, variance, sample);
	nvar sx, sx2;
	nv_from_datum(ty_numeric_sum_result(&s->x), &sx);
	nv_from_datum(ty_numeric_sum_result(&s->x2), &sx2);
	return stddev_from(s->x.n, total, false, &sx, &sx2, variance, sample);
}

static ty_datum nvar_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return nvar_result(st, true, true);
}
static ty_datum nvar_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return nvar_result(st, true, false);
}
static ty_datum nstd_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return nvar_result(st, false, true);
}
static ty_datum nstd_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return nvar_result(st, false, false);
}

/* int2/int4 inputs: int128 sums of x and x^2 (PostgreSQL's "poly" state). */
typedef struct polysum {
	int64_t n;
	__int128 sx, sx2;
} polysum;

static void poly_step(void *st, ty_fcinfo *fc)
{
	polysum *s = st;
	__int128 x = IN(fc).i;
	s->n++;
	s->sx += x;
	s->sx2 += x * x;
}

static void poly_inv(void *st, ty_fcinfo *fc)
{
	polysum *s = st;
	__int128 x = IN(fc).i;
	s->n--;
	s->sx -= x;
	s->sx2 -= x * x;
}

static void poly_combine(void *st, const void *o)
{
	polysum *s = st;
	const polysum *b = o;
	s->n += b->n;
	s->sx += b->sx;
	s->sx2 += b->sx2;
}

static ty_datum poly_result(polysum *s, bool variance, bool sample)
{
	if (s->n == 0 || (sample && s->n <= 1))
		return ty_null();
	nvar sx, sx2;
	nv_from_int128(s->sx, &sx);
	nv_from_int128(s->sx2, &sx2);
	return stddev_from(s->n, s->n, false, &sx, &sx2, variance, sample);
}

static ty_datum poly_var_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return poly_result(st, true, true);
}
static ty_datum poly_var_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return poly_result(st, true, false);
}
static ty_datum poly_std_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return poly_result(st, false, true);
}
static ty_datum poly_std_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	return poly_result(st, false, false);
}

/* ---------------------------------------------------------------- floats */

/* sum(float4) / sum(float8): the running sum with the +/- overflow check. */
typedef struct fsum {
	bool any;
	double sum;
} fsum;

static void fsum8_step(void *st, ty_fcinfo *fc)
{
	fsum *s = st;
	double v = IN(fc).f;
	if (!s->any) {
		s->any = true;
		s->sum = v;
		return;
	}
	double r = s->sum + v;
	if (isinf(r) && !isinf(s->sum) && !isinf(v))
		num_err_float_overflow();
	s->sum = r;
}

static void fsum4_step(void *st, ty_fcinfo *fc)
{
	fsum *s = st;
	float v = (float)IN(fc).f;
	if (!s->any) {
		s->any = true;
		s->sum = v;
		return;
	}
	float a = (float)s->sum, r = a + v;
	if (isinf(r) && !isinf(a) && !isinf(v))
		num_err_float_overflow();
	s->sum = r;
}

static void fsum8_combine(void *st, const void *o)
{
	fsum *s = st;
	const fsum *b = o;
	if (!b->any)
		return;
	if (!s->any) {
		*s = *b;
		return;
	}
	double r = s->sum + b->sum;
	if (isinf(r) && !isinf(s->sum) && !isinf(b->sum))
		num_err_float_overflow();
	s->sum = r;
}

static void fsum4_combine(void *st, const void *o)
{
	fsum *s = st;
	const fsum *b = o;
	if (!b->any)
		return;
	if (!s->any) {
		*s = *b;
		return;
	}
	float x = (float)s->sum, y = (float)b->sum, r = x + y;
	if (isinf(r) && !isinf(x) && !isinf(y))
		num_err_float_overflow();
	s->sum = r;
}

static ty_datum fsum_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fsum *s = st;
	return s->any ? ty_float(s->sum) : ty_null();
}

/* avg and the variance family over floats: N, Sx, Sxx (Youngs-Cramer). */
typedef struct fvar {
	double n, sx, sxx;
} fvar;

static void fvar_step(void *st, ty_fcinfo *fc)
{
	fvar *s = st;
	double v = IN(fc).f;
	double nn = s->n + 1.0, nsx = s->sx + v, nsxx = s->sxx;
	if (s->n > 0.0) {
		double tmp = v * nn - nsx;
		nsxx += tmp * tmp / (s->n * nn);
		/* overflow only when finite inputs give an infinite result;
		 * an infinite input makes Sxx NaN */
		if (isinf(nsx) || isinf(nsxx)) {
			if (!isinf(s->sx) && !isinf(v))
				num_err_float_overflow();
			nsxx = NAN;
		}
	} else if (isnan(v) || isinf(v)) {
		nsxx = NAN;
	}
	s->n = nn;
	s->sx = nsx;
	s->sxx = nsxx;
}

static void fvar_combine(void *st, const void *o)
{
	fvar *s = st;
	const fvar *b = o;
	if (b->n == 0.0)
		return;
	if (s->n == 0.0) {
		*s = *b;
		return;
	}
	double n = s->n + b->n;
	double sx = s->sx + b->sx;
	if (isinf(sx) && !isinf(s->sx) && !isinf(b->sx))
		num_err_float_overflow();
	double tmp = s->sx / s->n - b->sx / b->n;
	double sxx = s->sxx + b->sxx + s->n * b->n * tmp * tmp / n;
	if (isinf(sxx) && !isinf(s->sxx) && !isinf(b->sxx))
		num_err_float_overflow();
	s->n = n;
	s->sx = sx;
	s->sxx = sxx;
}

static ty_datum favg(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fvar *s = st;
	return s->n == 0.0 ? ty_null() : ty_float(s->sx / s->n);
}

static ty_datum fvar_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fvar *s = st;
	return s->n == 0.0 ? ty_null() : ty_float(s->sxx / s->n);
}

static ty_datum fvar_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fvar *s = st;
	return s->n <= 1.0 ? ty_null() : ty_float(s->sxx / (s->n - 1.0));
}

static ty_datum fstd_pop(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fvar *s = st;
	return s->n == 0.0 ? ty_null() : ty_float(sqrt(s->sxx / s->n));
}

static ty_datum fstd_samp(void *st, ty_fcinfo *fc)
{
	(void)fc;
	fvar *s = st;
	return s->n <= 1.0 ? ty_null() : ty_float(sqrt(s->sxx / (s->n - 1.0)));
}

/* ---------------------------------------------------------------- bool */

typedef struct bcount {
	int64_t n, ntrue;
} bcount;

static void b_step(void *st, ty_fcinfo *fc)
{
	bcount *s = st;
	s->n++;
	s->ntrue += IN(fc).i != 0;
}

static void b_inv(void *st, ty_fcinfo *fc)
{
	bcount *s = st;
	s->n--;
	s->ntrue -= IN(fc).i != 0;
}

static void b_combine(void *st, const void *o)
{
	bcount *s = st;
	const bcount *b = o;
	s->n += b->n;
	s->ntrue += b->ntrue;
}

static ty_datum band_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	bcount *s = st;
	return s->n ? ty_bool(s->ntrue == s->n) : ty_null();
}

static ty_datum bor_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	bcount *s = st;
	return s->n ? ty_bool(s->ntrue > 0) : ty_null();
}

/* ---------------------------------------------------------------- bits */

typedef struct bits {
	bool any;
	int64_t v;
} bits;

#define BITAGG(name, op)                                                                                     \
	static void name##_step(void *st, ty_fcinfo *fc)                                                     \
	{                                                                                                    \
		bits *s = st;                                                                                \
		s->v = s->any ? (s->v op IN(fc).i) : IN(fc).i;                                               \
		s->any = true;                                                                               \
	}                                                                                                    \
	static void name##_combine(void *st, const void *o)                                                  \
	{                                                                                                    \
		bits *s = st;                                                                                \
		const bits *b = o;                                                                           \
		if (!b->any)                                                                                 \
			return;                                                                              \
		s->v = s->any ? (s->v op b->v) : b->v;                                                       \
		s->any = true;                                                                               \
	}

BITAGG(band, &)
BITAGG(bor, |)
BITAGG(bxor, ^)

static ty_datum bits_final(void *st, ty_fcinfo *fc)
{
	(void)fc;
	bits *s = st;
	return s->any ? ty_int(s->v) : ty_null();
}

/* ---------------------------------------------------------------- table */

#define AGG(nm, oid_, arg, rettype, st, stepf, comb, fin, inv)                                               \
	{                                                                                                    \
		.name = nm, .nargs = 1, .args = {arg}, .ret = rettype, .strict = true,                       \
		.state_size = sizeof(st), .step = stepf, .combine = comb, .final = fin, .inverse = inv,      \
		.oid = oid_                                                                                  \
	}

/* The variance family for one input type: var_pop, var_samp, variance,
 * stddev_pop, stddev_samp, stddev (pg_proc oids in that order). */
#define VARFAM(arg, rettype, st, stepf, comb, inv, vp, vs, sp, ss, o_vp, o_vs, o_v, o_sp, o_ss, o_s)         \
	AGG("var_pop", o_vp, arg, rettype, st, stepf, comb, vp, inv),                                        \
	    AGG("var_samp", o_vs, arg, rettype, st, stepf, comb, vs, inv),                                   \
	    AGG("variance", o_v, arg, rettype, st, stepf, comb, vs, inv),                                    \
	    AGG("stddev_pop", o_sp, arg, rettype, st, stepf, comb, sp, inv),                                 \
	    AGG("stddev_samp", o_ss, arg, rettype, st, stepf, comb, ss, inv),                                \
	    AGG("stddev", o_s, arg, rettype, st, stepf, comb, ss, inv)

const ty_agg num_aggs[] = {
    AGG("sum", 2109, TY_INT2, TY_INT8, isum, isum_step, isum_combine, isum_final, isum_inv),
    AGG("sum", 2108, TY_INT4, TY_INT8, isum, isum_step, isum_combine, isum_final, isum_inv),
    AGG("sum", 2107, TY_INT8, TY_NUMERIC, i128sum, i128_step, i128_combine, i128_sum_final, i128_inv),
    AGG("sum", 2110, TY_FLOAT4, TY_FLOAT4, fsum, fsum4_step, fsum4_combine, fsum_final, NULL),
    AGG("sum", 2111, TY_FLOAT8, TY_FLOAT8, fsum, fsum8_step, fsum8_combine, fsum_final, NULL),
    AGG("sum", 2114, TY_NUMERIC, TY_NUMERIC, nsum, nsum_step, nsum_combine, nsum_final, nsum_inv),
    AGG("avg", 2102, TY_INT2, TY_NUMERIC, isum, isum_step, isum_combine, iavg_final, isum_inv),
    AGG("avg", 2101, TY_INT4, TY_NUMERIC, isum, isum_step, isum_combine, iavg_final, isum_inv),
    AGG("avg", 2100, TY_INT8, TY_NUMERIC, i128sum, i128_step, i128_combine, i128_avg_final, i128_inv),
    AGG("avg", 2104, TY_FLOAT4, TY_FLOAT8, fvar, fvar_step, fvar_combine, favg, NULL),
    AGG("avg", 2105, TY_FLOAT8, TY_FLOAT8, fvar, fvar_step, fvar_combine, favg, NULL),
    AGG("avg", 2103, TY_NUMERIC, TY_NUMERIC, nsum, nsum_step, nsum_combine, navg_final, nsum_inv),
    VARFAM(TY_INT2, TY_NUMERIC, polysum, poly_step, poly_combine, poly_inv, poly_var_pop, poly_var_samp,
	   poly_std_pop, poly_std_samp, 2720, 2643, 2150, 2726, 2714, 2156),
    VARFAM(TY_INT4, TY_NUMERIC, polysum, poly_step, poly_combine, poly_inv, poly_var_pop, poly_var_samp,
	   poly_std_pop, poly_std_samp, 2719, 2642, 2149, 2725, 2713, 2155),
    VARFAM(TY_INT8, TY_NUMERIC, nsum, i8var_step, nsum_combine, i8var_inv, nvar_pop, nvar_samp, nstd_pop,
	   nstd_samp, 2718, 2641, 2148, 2724, 2712, 2154),
    VARFAM(TY_FLOAT4, TY_FLOAT8, fvar, fvar_step, fvar_combine, NULL, fvar_pop, fvar_samp, fstd_pop,
	   fstd_samp, 2721, 2644, 2151, 2727, 2715, 2157),
    VARFAM(TY_FLOAT8, TY_FLOAT8, fvar, fvar_step, fvar_combine, NULL, fvar_pop, fvar_samp, fstd_pop,
	   fstd_samp, 2722, 2645, 2152, 2728, 2716, 2158),
    VARFAM(TY_NUMERIC, TY_NUMERIC, nsum, nvar_step, nsum_combine, nvar_inv, nvar_pop, nvar_samp, nstd_pop,
	   nstd_samp, 2723, 2646, 2153, 2729, 2717, 2159),
    AGG("bool_and", 2517, TY_BOOL, TY_BOOL, bcount, b_step, b_combine, band_final, b_inv),
    AGG("bool_or", 2518, TY_BOOL, TY_BOOL, bcount, b_step, b_combine, bor_final, b_inv),
    AGG("every", 2519, TY_BOOL, TY_BOOL, bcount, b_step, b_combine, band_final, b_inv),
    AGG("bit_and", 2236, TY_INT2, TY_INT2, bits, band_step, band_combine, bits_final, NULL),
    AGG("bit_and", 2238, TY_INT4, TY_INT4, bits, band_step, band_combine, bits_final, NULL),
    AGG("bit_and", 2240, TY_INT8, TY_INT8, bits, band_step, band_combine, bits_final, NULL),
    AGG("bit_or", 2237, TY_INT2, TY_INT2, bits, bor_step, bor_combine, bits_final, NULL),
    AGG("bit_or", 2239, TY_INT4, TY_INT4, bits, bor_step, bor_combine, bits_final, NULL),
    AGG("bit_or", 2241, TY_INT8, TY_INT8, bits, bor_step, bor_combine, bits_final, NULL),
    AGG("bit_xor", 6164, TY_INT2, TY_INT2, bits, bxor_step, bxor_combine, bits_final, NULL),
    AGG("bit_xor", 6165, TY_INT4, TY_INT4, bits, bxor_step, bxor_combine, bits_final, NULL),
    AGG("bit_xor", 6166, TY_INT8, TY_INT8, bits, bxor_step, bxor_combine, bits_final, NULL),
};

const int num_naggs = (int)UTIL_ARRAY_LEN(num_aggs);
