/*
 * arr_srf.c — set-returning functions of the arrays area, value-per-call
 * (ty_fcinfo srf_*): unnest(anyarray) and generate_subscripts. State lives
 * in fc->cache_arena between calls; arguments are copied there on the
 * first call because they need not outlive it. (generate_series over
 * numbers belongs to the numeric area, num_series.c.)
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
};

void arr_register_srfs(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
