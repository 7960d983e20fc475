/*
 * arr_srf.c — set-returning functions of the arrays area, value-per-call
 * (ty_fcinfo srf_*): unnest(anyarray), generate_subscripts, and
 * generate_series over int4, int8 and numeric. State lives in
 * fc->cache_arena between calls; arguments are copied there on the first
 * call because they need not outlive it. Numeric arithmetic uses the
 * numeric area's API (numeric.h).
 */
#include "arr_int.h"
#include "numeric.h"

#include <limits.h>

void arr_with_cache_arena(ty_fcinfo *fc, void (*fn)(void *), void *arg)
{
	util_arena *old = ty_set_arena(fc->cache_arena ? fc->cache_arena : ty_get_arena());
	TY_TRY(c)
	{
		fn(arg);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		ty_set_arena(old);
		ty_errthrow();
	}
	TY_END(c);
	ty_set_arena(old);
}

static ty_datum done(ty_fcinfo *fc)
{
	fc->srf_done = true;
	return ty_null();
}

/* ---------------------------------------------------------------- unnest */

typedef struct unnest_state {
	ty_datum a;
	ty_array_iter it;
} unnest_state;

static void unnest_init(void *arg)
{
	ty_fcinfo *fc = arg;
	unnest_state *st = ty_alloc0(sizeof *st);
	st->a = ty_datum_copy(fc->args[0], false);
	ty_array_iter_init(&st->it, st->a);
	fc->srf_state = st;
}

static ty_datum f_unnest(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		arr_with_cache_arena(fc, unnest_init, fc);
	}
	unnest_state *st = fc->srf_state;
	ty_datum e;
	if (!ty_array_iter_next(&st->it, &e))
		return done(fc);
	return e;
}

/* ---------------------------------------------------------------- integers */

typedef struct series_state {
	int64_t cur, stop, step;
	int64_t min, max; /* of the result type */
} series_state;

static void subscripts_init(void *arg)
{
	ty_fcinfo *fc = arg;
	series_state *st = ty_alloc0(sizeof *st);
	fc->srf_state = st;
	ty_datum a = fc->args[0];
	int64_t d = fc->args[1].i;
	bool reverse = fc->nargs == 3 && fc->args[2].i;
	st->min = INT32_MIN;
	st->max = INT32_MAX;
	if (d < 1 || d > ty_array_ndim(a)) {
		st->cur = 1;
		st->stop = 0;
		st->step = 1;
		return;
	}
	int64_t lb = ty_array_lbound(a, (int)d - 1), ub = lb + ty_array_dim(a, (int)d - 1) - 1;
	st->cur = reverse ? ub : lb;
	st->stop = reverse ? lb : ub;
	st->step = reverse ? -1 : 1;
}

static ty_datum series_next(ty_fcinfo *fc)
{
	series_state *st = fc->srf_state;
	if (st->step == 0 || (st->step > 0 && st->cur > st->stop) || (st->step < 0 && st->cur < st->stop))
		return done(fc);
	int64_t r = st->cur;
	/* If the next value would overflow, this is the last one. */
	if ((st->step > 0 && st->cur > st->max - st->step) || (st->step < 0 && st->cur < st->min - st->step))
		st->step = 0;
	else
		st->cur += st->step;
	return ty_int(r);
}

static ty_datum f_generate_subscripts(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		arr_with_cache_arena(fc, subscripts_init, fc);
	}
	return series_next(fc);
}

static void int_series_init(void *arg)
{
	ty_fcinfo *fc = arg;
	series_state *st = ty_alloc0(sizeof *st);
	st->cur = fc->args[0].i;
	st->stop = fc->args[1].i;
	st->step = fc->nargs == 3 ? fc->args[2].i : 1;
	bool is8 = fc->rettype == TY_INT8;
	st->min = is8 ? INT64_MIN : INT32_MIN;
	st->max = is8 ? INT64_MAX : INT32_MAX;
	fc->srf_state = st;
}

static ty_datum f_generate_series_int(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		if (fc->nargs == 3 && fc->args[2].i == 0)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "step size cannot equal zero");
		arr_with_cache_arena(fc, int_series_init, fc);
	}
	return series_next(fc);
}

/* ---------------------------------------------------------------- numeric */

/* cur lives in a buffer reused across calls, so a long series does not
 * grow the (plan-lifetime) cache arena by one value per row. */
typedef struct num_state {
	ty_datum cur, stop, step;
	uint8_t *buf;
	size_t cap;
	int dir; /* sign of step */
} num_state;

static void check_finite(ty_datum v, const char *what)
{
	if (ty_numeric_is_nan(v))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s cannot be NaN", what);
	if (ty_numeric_is_inf(v))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s cannot be infinity", what);
}

static void num_init(void *arg)
{
	ty_fcinfo *fc = arg;
	num_state *st = ty_alloc0(sizeof *st);
	st->cur = ty_datum_copy(fc->args[0], false);
	st->stop = ty_datum_copy(fc->args[1], false);
	st->step = fc->nargs == 3 ? ty_datum_copy(fc->args[2], false) : ty_numeric_from_int64(1);
	st->dir = ty_numeric_sign(st->step);
	fc->srf_state = st;
}

typedef struct num_grow {
	num_state *st;
	size_t need;
} num_grow;

static void num_grow_buf(void *arg)
{
	num_grow *g = arg;
	g->st->cap = g->need * 2;
	g->st->buf = ty_alloc(g->st->cap);
}

static ty_datum f_generate_series_numeric(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		check_finite(fc->args[0], "start value");
		check_finite(fc->args[1], "stop value");
		if (fc->nargs == 3) {
			check_finite(fc->args[2], "step size");
			if (ty_numeric_sign(fc->args[2]) == 0)
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "step size cannot equal zero");
		}
		arr_with_cache_arena(fc, num_init, fc);
	}
	num_state *st = fc->srf_state;
	int c = ty_numeric_cmp(st->cur, st->stop);
	if ((st->dir > 0 && c > 0) || (st->dir < 0 && c < 0))
		return done(fc);
	/* The returned value must stay valid after the state advances. */
	ty_datum r = ty_datum_copy(st->cur, false);
	ty_datum next = ty_numeric_add(st->cur, st->step);
	if (next.len > st->cap) {
		num_grow g = {st, next.len};
		arr_with_cache_arena(fc, num_grow_buf, &g);
	}
	memcpy(st->buf, next.p, next.len);
	st->cur = ty_bytes(st->buf, next.len);
	return r;
}

#define F(nm, oid_, na, ret_, fn_, src, ...)                                                                 \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = true, .retset = true, .kind = 'f', .prosrc = src,      \
		.oid = oid_                                                                                  \
	}

static const ty_func funcs[] = {
    F("unnest", 2331, 1, TY_ANYELEMENT, f_unnest, "array_unnest", {TY_ANYARRAY}),
    F("generate_subscripts", 1192, 2, TY_INT4, f_generate_subscripts, "generate_subscripts_nodir",
      {TY_ANYARRAY, TY_INT4}),
    F("generate_subscripts", 1191, 3, TY_INT4, f_generate_subscripts, "generate_subscripts",
      {TY_ANYARRAY, TY_INT4, TY_BOOL}),
    F("generate_series", 1067, 2, TY_INT4, f_generate_series_int, "generate_series_int4", {TY_INT4, TY_INT4}),
    F("generate_series", 1066, 3, TY_INT4, f_generate_series_int, "generate_series_step_int4",
      {TY_INT4, TY_INT4, TY_INT4}),
    F("generate_series", 1069, 2, TY_INT8, f_generate_series_int, "generate_series_int8", {TY_INT8, TY_INT8}),
    F("generate_series", 1068, 3, TY_INT8, f_generate_series_int, "generate_series_step_int8",
      {TY_INT8, TY_INT8, TY_INT8}),
    F("generate_series", 3260, 2, TY_NUMERIC, f_generate_series_numeric, "generate_series_numeric",
      {TY_NUMERIC, TY_NUMERIC}),
    F("generate_series", 3259, 3, TY_NUMERIC, f_generate_series_numeric, "generate_series_step_numeric",
      {TY_NUMERIC, TY_NUMERIC, TY_NUMERIC}),
};

void arr_register_srfs(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
