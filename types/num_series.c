/*
 * num_series.c — generate_series over int4, int8 and numeric (value-per-
 * call set-returning functions, state in fc->srf_state on the plan's cache
 * arena) with PostgreSQL's argument checks and overflow behaviour: the
 * series stops, rather than fails, when the next value would overflow.
 */
#include "num_priv.h"

#include <string.h>

typedef struct int_series {
	int64_t cur, stop, step;
	bool done;
} int_series;

static void *srf_alloc(ty_fcinfo *fc, size_t n)
{
	void *p = fc->cache_arena ? util_arena_zalloc(fc->cache_arena, n) : NULL;
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return p;
}

static ty_datum int_series_next(ty_fcinfo *fc, int bits, int64_t step)
{
	int_series *s = fc->srf_state;
	if (fc->srf_first || !s) {
		if (step == 0)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "step size cannot equal zero");
		s = srf_alloc(fc, sizeof *s);
		s->cur = ARG_I(0);
		s->stop = ARG_I(1);
		s->step = step;
		fc->srf_state = s;
	}
	if (s->done || (s->step > 0 ? s->cur > s->stop : s->cur < s->stop)) {
		fc->srf_done = true;
		return ty_null();
	}
	ty_datum r = ty_int(s->cur);
	int64_t lo = bits == 32 ? INT32_MIN : INT64_MIN, hi = bits == 32 ? INT32_MAX : INT64_MAX;
	int64_t next;
	if (__builtin_add_overflow(s->cur, s->step, &next) || next < lo || next > hi)
		s->done = true;
	else
		s->cur = next;
	return r;
}

NUMFN(generate_series_int4)
{
	return int_series_next(fc, 32, 1);
}
NUMFN(generate_series_step_int4)
{
	return int_series_next(fc, 32, ARG_I(2));
}
NUMFN(generate_series_int8)
{
	return int_series_next(fc, 64, 1);
}
NUMFN(generate_series_step_int8)
{
	return int_series_next(fc, 64, ARG_I(2));
}

typedef struct num_series {
	ty_datum cur, stop, step; /* copies in the cache arena */
	uint8_t *buf;             /* holds cur; regrown only when it widens */
	size_t cap;
	int dir;
} num_series;

static void check_arg(ty_datum d, const char *what, bool is_step)
{
	if (ty_numeric_is_nan(d))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s cannot be NaN", what);
	if (ty_numeric_is_inf(d))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s cannot be infinity", what);
	(void)is_step;
}

/* A datum copy in the cache arena (values must outlive the row arena). */
static ty_datum keep(ty_fcinfo *fc, ty_datum d)
{
	void *p = srf_alloc(fc, d.len);
	memcpy(p, d.p, d.len);
	return ty_bytes(p, d.len);
}

static ty_datum num_series_next(ty_fcinfo *fc, ty_datum step)
{
	num_series *s = fc->srf_state;
	if (fc->srf_first || !s) {
		check_arg(ARG(0), "start value", false);
		check_arg(ARG(1), "stop value", false);
		check_arg(step, "step size", true);
		int dir = ty_numeric_sign(step);
		if (dir == 0)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "step size cannot equal zero");
		s = srf_alloc(fc, sizeof *s);
		s->cur = keep(fc, ARG(0));
		s->stop = keep(fc, ARG(1));
		s->step = keep(fc, step);
		s->dir = dir;
		fc->srf_state = s;
	}
	int c = ty_numeric_cmp(s->cur, s->stop);
	if (s->dir > 0 ? c > 0 : c < 0) {
		fc->srf_done = true;
		return ty_null();
	}
	/* result and next value are computed in the row's arena; the next
	 * value is then kept in the state's own buffer */
	ty_datum r = ty_datum_copy(s->cur, false);
	ty_datum next = ty_numeric_add(s->cur, s->step);
	if (next.len > s->cap) {
		s->cap = 2 * (size_t)next.len;
		s->buf = srf_alloc(fc, s->cap);
	}
	memcpy(s->buf, next.p, next.len);
	s->cur = ty_bytes(s->buf, next.len);
	return r;
}

NUMFN(generate_series_numeric)
{
	return num_series_next(fc, ty_numeric_from_int64(1));
}
NUMFN(generate_series_step_numeric)
{
	return num_series_next(fc, ARG(2));
}
