/*
 * json_agg.c — json_agg, jsonb_agg, json_object_agg and jsonb_object_agg.
 * json_agg keeps PostgreSQL's text layout ('[1, 2]', a line break before
 * each later array or record element; '{ "a" : 1, "b" : 2 }'); the jsonb
 * aggregates collect trees. Growing state lives in fc->cache_arena (see
 * arr_agg.c); no rows give NULL.
 */
#include "json_int.h"

typedef struct jagg {
	char *buf; /* json text so far (json aggregates) */
	size_t len, cap;
	jv *kids; /* jsonb: elements, or key/value pairs */
	uint32_t n, cap_kids;
	int64_t rows;
} jagg;

static void *agg_alloc(const ty_fcinfo *fc, size_t n)
{
	void *p = util_arena_alloc(fc->cache_arena ? fc->cache_arena : ty_get_arena(), n ? n : 1);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return p;
}

static void append(jagg *st, const ty_fcinfo *fc, const char *s, size_t n)
{
	if (st->len + n + 1 > st->cap) {
		size_t nc = st->cap ? st->cap * 2 : 256;
		while (nc < st->len + n + 1)
			nc *= 2;
		char *nb = agg_alloc(fc, nc);
		if (st->len)
			memcpy(nb, st->buf, st->len);
		st->buf = nb;
		st->cap = nc;
	}
	memcpy(st->buf + st->len, s, n);
	st->len += n;
}

static void push_kid(jagg *st, const ty_fcinfo *fc, const jv *v)
{
	if (st->n == st->cap_kids) {
		uint32_t nc = st->cap_kids ? st->cap_kids * 2 : 16;
		jv *nk = agg_alloc(fc, sizeof *nk * nc);
		if (st->n)
			memcpy(nk, st->kids, sizeof *nk * st->n);
		st->kids = nk;
		st->cap_kids = nc;
	}
	st->kids[st->n++] = *v;
}

static void init(void *state, const ty_fcinfo *fc)
{
	(void)fc;
	memset(state, 0, sizeof(jagg));
}

static ty_oid arg_type(const ty_fcinfo *fc, int i)
{
	ty_oid t = fc->argtypes ? fc->argtypes[i] : 0;
	if (!t || t == TY_ANYELEMENT || t == TY_ANY)
		ty_error(UTIL_E_INDETERMINATE_DATATYPE, "could not determine input data type");
	return t;
}

/* The JSON text of one argument, in a scratch buffer (freed on error). */
static void with_json_text(const ty_fcinfo *fc, int i, bool key, jagg *st)
{
	util_buf b = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		if (key && fc->args[i].null)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "field name must not be null");
		ty_oid t = arg_type(fc, i);
		if (key) {
			/* Keys go through the build_object key rules (scalars only, quoted). */
			jv *k = json_datum_to_jv(fc->args[i], t, true);
			json_escape(&b, k->s, k->len);
		} else {
			ty_to_json_text(t, fc->args[i], &b);
		}
		append(st, fc, b.data ? b.data : "", b.len);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	util_buf_free(&b);
}

static bool structured(const ty_fcinfo *fc)
{
	ty_oid t = fc->argtypes ? fc->argtypes[0] : 0;
	const ty_type *ty = t ? ty_type_get(t) : NULL;
	return t == TY_RECORD || (ty && ((ty->category == 'A' && ty->elem) || ty->typtype == 'c'));
}

static void json_agg_step(void *state, ty_fcinfo *fc)
{
	jagg *st = state;
	append(st, fc, st->rows ? ", " : "[", st->rows ? 2 : 1);
	if (st->rows && !fc->args[0].null && structured(fc))
		append(st, fc, "\n ", 2);
	st->rows++;
	with_json_text(fc, 0, false, st);
}

static ty_datum text_final(jagg *st, const char *close)
{
	if (!st->rows)
		return ty_null();
	size_t cl = strlen(close);
	char *s = ty_alloc(st->len + cl);
	memcpy(s, st->buf, st->len);
	memcpy(s + st->len, close, cl);
	return ty_bytes(s, st->len + cl);
}

static ty_datum json_agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	return text_final(state, "]");
}

static void json_object_agg_step(void *state, ty_fcinfo *fc)
{
	jagg *st = state;
	append(st, fc, st->rows ? ", " : "{ ", 2);
	st->rows++;
	with_json_text(fc, 0, true, st);
	append(st, fc, " : ", 3);
	with_json_text(fc, 1, false, st);
}

static ty_datum json_object_agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	return text_final(state, " }");
}

/* jsonb: trees built in the current arena are copied into the state's
 * arena by encoding them and decoding the copy. */
static jv *keep(const ty_fcinfo *fc, jv *v)
{
	ty_datum d = jv_to_jsonb(v);
	void *p = agg_alloc(fc, d.len);
	memcpy(p, d.p, d.len);
	jbe e = jb_root_entry(ty_bytes(p, d.len));
	util_arena *old = ty_set_arena(fc->cache_arena ? fc->cache_arena : ty_get_arena());
	jv *r = NULL;
	TY_TRY(c)
	{
		r = jbe_to_jv(e);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		ty_set_arena(old);
		ty_errthrow();
	}
	TY_END(c);
	ty_set_arena(old);
	return r;
}

static void jsonb_agg_step(void *state, ty_fcinfo *fc)
{
	jagg *st = state;
	st->rows++;
	jv *v = fc->args[0].null ? jv_new(JV_NULL) : json_datum_to_jv(fc->args[0], arg_type(fc, 0), false);
	push_kid(st, fc, keep(fc, v));
}

static ty_datum jsonb_agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	jagg *st = state;
	if (!st->rows)
		return ty_null();
	jv a;
	memset(&a, 0, sizeof a);
	a.type = JV_ARRAY;
	a.n = st->n;
	a.kids = st->kids;
	return jv_to_jsonb(&a);
}

static void jsonb_object_agg_step(void *state, ty_fcinfo *fc)
{
	jagg *st = state;
	if (fc->args[0].null)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "field name must not be null");
	st->rows++;
	jv *k = json_datum_to_jv(fc->args[0], arg_type(fc, 0), true);
	jv *v = fc->args[1].null ? jv_new(JV_NULL) : json_datum_to_jv(fc->args[1], arg_type(fc, 1), false);
	push_kid(st, fc, keep(fc, k));
	push_kid(st, fc, keep(fc, v));
}

static ty_datum jsonb_object_agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	jagg *st = state;
	if (!st->rows)
		return ty_null();
	jv o;
	memset(&o, 0, sizeof o);
	o.type = JV_OBJECT;
	o.n = st->n / 2;
	/* Normalising reorders kids: work on a copy so final() can run again. */
	o.kids = ty_alloc(sizeof *o.kids * (st->n ? st->n : 1));
	memcpy(o.kids, st->kids, sizeof *o.kids * st->n);
	jv_normalize(&o, false);
	return jv_to_jsonb(&o);
}

static const ty_agg aggs[] = {
    {.name = "json_agg",
     .nargs = 1,
     .args = {TY_ANYELEMENT},
     .ret = TY_JSON,
     .state_size = sizeof(jagg),
     .init = init,
     .step = json_agg_step,
     .final = json_agg_final,
     .oid = 3175},
    {.name = "jsonb_agg",
     .nargs = 1,
     .args = {TY_ANYELEMENT},
     .ret = TY_JSONB,
     .state_size = sizeof(jagg),
     .init = init,
     .step = jsonb_agg_step,
     .final = jsonb_agg_final,
     .oid = 3267},
    {.name = "json_object_agg",
     .nargs = 2,
     .args = {TY_ANY, TY_ANY},
     .ret = TY_JSON,
     .state_size = sizeof(jagg),
     .init = init,
     .step = json_object_agg_step,
     .final = json_object_agg_final,
     .oid = 3197},
    {.name = "jsonb_object_agg",
     .nargs = 2,
     .args = {TY_ANY, TY_ANY},
     .ret = TY_JSONB,
     .state_size = sizeof(jagg),
     .init = init,
     .step = jsonb_object_agg_step,
     .final = jsonb_object_agg_final,
     .oid = 3270},
};

void json_register_aggs(void)
{
	ty_agg_register(aggs, (int)UTIL_ARRAY_LEN(aggs));
}
