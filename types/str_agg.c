/*
 * str_agg.c — aggregates of the string area: string_agg(text, text),
 * string_agg(bytea, bytea), and min/max over text and bpchar.
 *
 * Memory: the executor calls step() with the group's arena current, so
 * the accumulated bytes are allocated with ty_alloc() and grow by doubling
 * (old blocks are reclaimed with the arena).
 */
#include "str_int.h"

typedef struct agg_buf {
	char *data;
	size_t len, cap;
	bool any; /* a non-NULL value was seen */
} agg_buf;

static void agg_append(agg_buf *b, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		while (cap < b->len + n)
			cap *= 2;
		char *d = ty_alloc(cap);
		if (b->len)
			memcpy(d, b->data, b->len);
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void string_agg_init(void *state, const ty_fcinfo *fc)
{
	(void)fc;
	memset(state, 0, sizeof(agg_buf));
}

/* The delimiter goes before every value but the first; a NULL delimiter
 * is treated as empty; NULL values are skipped. */
static void string_agg_step(void *state, ty_fcinfo *fc)
{
	agg_buf *b = state;
	if (fc->args[0].null)
		return;
	if (b->any && !fc->args[1].null)
		agg_append(b, STR_ARG(fc, 1), STR_LEN(fc, 1));
	b->any = true;
	agg_append(b, STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum string_agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	agg_buf *b = state;
	if (!b->any)
		return ty_null();
	return ty_datum_copy(ty_bytes(b->data ? b->data : "", b->len), false);
}

/* min/max: the state holds a copy of the best value so far. */
typedef struct agg_minmax {
	ty_datum best;
	bool any;
} agg_minmax;

static void minmax_init(void *state, const ty_fcinfo *fc)
{
	(void)fc;
	memset(state, 0, sizeof(agg_minmax));
}

static void minmax_step(void *state, ty_fcinfo *fc, ty_oid type, int want)
{
	agg_minmax *m = state;
	ty_datum v = fc->args[0];
	if (v.null)
		return;
	if (!m->any || want * ty_compare(type, v, m->best) > 0) {
		m->best = ty_datum_copy(v, false);
		m->any = true;
	}
}

static void max_text_step(void *s, ty_fcinfo *fc)
{
	minmax_step(s, fc, TY_TEXT, 1);
}
static void min_text_step(void *s, ty_fcinfo *fc)
{
	minmax_step(s, fc, TY_TEXT, -1);
}
static void max_bpchar_step(void *s, ty_fcinfo *fc)
{
	minmax_step(s, fc, TY_BPCHAR, 1);
}
static void min_bpchar_step(void *s, ty_fcinfo *fc)
{
	minmax_step(s, fc, TY_BPCHAR, -1);
}

static void minmax_combine(void *state, const void *other, ty_oid type, int want)
{
	agg_minmax *m = state;
	const agg_minmax *o = other;
	if (o->any && (!m->any || want * ty_compare(type, o->best, m->best) > 0)) {
		m->best = ty_datum_copy(o->best, false);
		m->any = true;
	}
}

static void max_text_combine(void *s, const void *o)
{
	minmax_combine(s, o, TY_TEXT, 1);
}
static void min_text_combine(void *s, const void *o)
{
	minmax_combine(s, o, TY_TEXT, -1);
}
static void max_bpchar_combine(void *s, const void *o)
{
	minmax_combine(s, o, TY_BPCHAR, 1);
}
static void min_bpchar_combine(void *s, const void *o)
{
	minmax_combine(s, o, TY_BPCHAR, -1);
}

static ty_datum minmax_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	agg_minmax *m = state;
	return m->any ? ty_datum_copy(m->best, false) : ty_null();
}

#define T  TY_TEXT
#define B  TY_BPCHAR
#define BY TY_BYTEA

static const ty_agg str_aggs[] = {
    {.name = "string_agg",
     .nargs = 2,
     .args = {T, T},
     .ret = T,
     .strict = false,
     .state_size = sizeof(agg_buf),
     .init = string_agg_init,
     .step = string_agg_step,
     .final = string_agg_final,
     .oid = 3538},
    {.name = "string_agg",
     .nargs = 2,
     .args = {BY, BY},
     .ret = BY,
     .strict = false,
     .state_size = sizeof(agg_buf),
     .init = string_agg_init,
     .step = string_agg_step,
     .final = string_agg_final,
     .oid = 3545},
    {.name = "max",
     .nargs = 1,
     .args = {T},
     .ret = T,
     .strict = true,
     .state_size = sizeof(agg_minmax),
     .init = minmax_init,
     .step = max_text_step,
     .combine = max_text_combine,
     .final = minmax_final,
     .oid = 2129},
    {.name = "min",
     .nargs = 1,
     .args = {T},
     .ret = T,
     .strict = true,
     .state_size = sizeof(agg_minmax),
     .init = minmax_init,
     .step = min_text_step,
     .combine = min_text_combine,
     .final = minmax_final,
     .oid = 2145},
    {.name = "max",
     .nargs = 1,
     .args = {B},
     .ret = B,
     .strict = true,
     .state_size = sizeof(agg_minmax),
     .init = minmax_init,
     .step = max_bpchar_step,
     .combine = max_bpchar_combine,
     .final = minmax_final,
     .oid = 2244},
    {.name = "min",
     .nargs = 1,
     .args = {B},
     .ret = B,
     .strict = true,
     .state_size = sizeof(agg_minmax),
     .init = minmax_init,
     .step = min_bpchar_step,
     .combine = min_bpchar_combine,
     .final = minmax_final,
     .oid = 2245},
};

void ty_str_register_agg(void)
{
	ty_agg_register(str_aggs, (int)UTIL_ARRAY_LEN(str_aggs));
}
