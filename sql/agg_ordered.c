/*
 * agg_ordered.c — PostgreSQL's ordered-set aggregates: percentile_cont,
 * percentile_disc (a fraction or an array of fractions) and mode(), used as
 * agg(direct args) WITHIN GROUP (ORDER BY x). The aggregate executor
 * buffers and sorts the input (exec_agg.c), feeds it to step() in order
 * with NULLs left out (the aggregates are strict), and calls final() with
 * the direct arguments; the state keeps the sorted values.
 */
#include <math.h>
#include <string.h>

#include "array.h"
#include "sql_int.h"

/* Sorted input values (they live in the aggregate's buffer until final). */
typedef struct os_state {
	ty_datum *vals;
	int64_t n, cap;
} os_state;

static void os_step(void *state, ty_fcinfo *fc)
{
	os_state *s = state;
	if (s->n == s->cap) {
		int64_t cap = s->cap ? s->cap * 2 : 64;
		ty_datum *nv = ty_alloc(sizeof(ty_datum) * (size_t)cap);
		if (s->n)
			memcpy(nv, s->vals, sizeof(ty_datum) * (size_t)s->n);
		s->vals = nv;
		s->cap = cap;
	}
	s->vals[s->n++] = fc->args[0];
}

static double fraction(ty_datum d)
{
	double p = d.f;
	if (p < 0 || p > 1 || isnan(p))
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "percentile value %g is not between 0 and 1", p);
	return p;
}

/* percentile_disc: the first value whose position reaches the fraction. */
static ty_datum disc_one(const os_state *s, double p)
{
	int64_t row = (int64_t)ceil(p * (double)s->n);
	if (row < 1)
		row = 1;
	return s->vals[row - 1];
}

/* percentile_cont: linear interpolation between the adjacent values. */
static ty_datum cont_one(const os_state *s, double p, ty_oid type)
{
	double pos = p * (double)(s->n - 1);
	int64_t lo = (int64_t)floor(pos), hi = (int64_t)ceil(pos);
	ty_datum a = s->vals[lo], b = s->vals[hi];
	if (lo == hi)
		return a;
	double prop = pos - (double)lo;
	if (type == TY_INTERVAL) {
		ty_oid iv2[2] = {TY_INTERVAL, TY_INTERVAL}, ivf[2] = {TY_INTERVAL, TY_FLOAT8};
		ty_datum d[2] = {b, a};
		ty_datum diff = ty_call("interval_mi", 2, iv2, d);
		ty_datum m[2] = {diff, ty_float(prop)};
		ty_datum scaled = ty_call("interval_mul", 2, ivf, m);
		ty_datum s2[2] = {a, scaled};
		return ty_call("interval_pl", 2, iv2, s2);
	}
	return ty_float(a.f + (b.f - a.f) * prop);
}

static ty_datum percentile(void *state, ty_fcinfo *fc, bool cont, bool multi)
{
	os_state *s = state;
	if (fc->nargs < 1 || fc->args[0].null || s->n == 0)
		return ty_null();
	ty_oid type = fc->argtypes[0];
	if (!multi) {
		double p = fraction(fc->args[0]);
		return cont ? cont_one(s, p, type) : disc_one(s, p);
	}
	ty_datum arr = fc->args[0];
	int n;
	ty_datum *fr = ty_array_deconstruct(arr, &n);
	ty_datum *out = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++)
		out[i] = fr[i].null ? ty_null() : cont ? cont_one(s, fraction(fr[i]), type) : disc_one(s, fraction(fr[i]));
	int nd = ty_array_ndim(arr);
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	for (int d = 0; d < nd; d++) {
		dims[d] = ty_array_dim(arr, d);
		lbs[d] = ty_array_lbound(arr, d);
	}
	return ty_array_build(cont && type != TY_INTERVAL ? TY_FLOAT8 : type, nd, dims, lbs, out);
}

static ty_datum cont_final(void *state, ty_fcinfo *fc) { return percentile(state, fc, true, false); }
static ty_datum cont_multi_final(void *state, ty_fcinfo *fc) { return percentile(state, fc, true, true); }
static ty_datum disc_final(void *state, ty_fcinfo *fc) { return percentile(state, fc, false, false); }
static ty_datum disc_multi_final(void *state, ty_fcinfo *fc) { return percentile(state, fc, false, true); }

/* mode(): the most frequent value; among equally frequent ones the first
 * in sort order. */
static ty_datum mode_final(void *state, ty_fcinfo *fc)
{
	os_state *s = state;
	if (s->n == 0)
		return ty_null();
	ty_oid type = fc->argtypes[0];
	int64_t best = 0, best_n = 0, run = 0;
	for (int64_t i = 0; i < s->n; i++) {
		if (i > 0 && ty_compare(type, s->vals[i - 1], s->vals[i]) == 0)
			run++;
		else
			run = 1;
		if (run > best_n) {
			best_n = run;
			best = i;
		}
	}
	return s->vals[best];
}

#define OSA(nm, oid_, direct, arg, ret_, fin)                                                                          \
	{                                                                                                              \
		.name = nm, .nargs = 2, .args = {direct, arg}, .ret = ret_, .strict = true,                            \
		.state_size = sizeof(os_state), .step = os_step, .final = fin, .oid = oid_, .ordered_set = true,        \
		.ndirect = 1                                                                                           \
	}

static const ty_agg ordered_aggs[] = {
	OSA("percentile_disc", 3972, TY_FLOAT8, TY_ANYELEMENT, TY_ANYELEMENT, disc_final),
	OSA("percentile_cont", 3974, TY_FLOAT8, TY_FLOAT8, TY_FLOAT8, cont_final),
	OSA("percentile_cont", 3976, TY_FLOAT8, TY_INTERVAL, TY_INTERVAL, cont_final),
	OSA("percentile_disc", 3978, TY_FLOAT8_ARRAY, TY_ANYELEMENT, TY_ANYARRAY, disc_multi_final),
	OSA("percentile_cont", 3980, TY_FLOAT8_ARRAY, TY_FLOAT8, TY_FLOAT8_ARRAY, cont_multi_final),
	OSA("percentile_cont", 3982, TY_FLOAT8_ARRAY, TY_INTERVAL, TY_INTERVAL_ARRAY, cont_multi_final),
	{.name = "mode", .nargs = 1, .args = {TY_ANYELEMENT}, .ret = TY_ANYELEMENT, .strict = true,
	 .state_size = sizeof(os_state), .step = os_step, .final = mode_final, .oid = 3984, .ordered_set = true,
	 .ndirect = 0},
};

void sql_register_ordered_aggs(void) { ty_agg_register(ordered_aggs, (int)UTIL_ARRAY_LEN(ordered_aggs)); }
