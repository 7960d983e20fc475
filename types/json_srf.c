/*
 * json_srf.c — set-returning json/jsonb functions (value-per-call, ty_fcinfo
 * srf_*): json(b)_each(_text) returning (key, value) rows as ty_record,
 * json(b)_object_keys, json(b)_array_elements(_text), with PostgreSQL's
 * errors for the wrong kind of value. The parsed value is kept in
 * fc->cache_arena between calls.
 */
#include "arr_int.h"
#include "json_int.h"

typedef struct srf_state {
	jv *tree;      /* json: parsed document */
	ty_datum jb;   /* jsonb: copy of the value */
	uint32_t i, n; /* next child, count */
} srf_state;

typedef struct srf_setup {
	ty_fcinfo *fc;
	bool jsonb;
	srf_state *st;
} srf_setup;

static void setup(void *arg)
{
	srf_setup *s = arg;
	srf_state *st = ty_alloc0(sizeof *st);
	ty_datum d = ty_datum_copy(s->fc->args[0], false);
	if (s->jsonb)
		st->jb = d;
	else
		st->tree = json_tree_of(d);
	s->st = st;
}

/* The state on the first call (NULL once exhausted). */
static srf_state *start(ty_fcinfo *fc, bool jsonb)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		srf_setup s = {fc, jsonb, NULL};
		arr_with_cache_arena(fc, setup, &s);
		fc->srf_state = s.st;
	}
	return fc->srf_state;
}

static ty_datum done(ty_fcinfo *fc)
{
	fc->srf_done = true;
	return ty_null();
}

static const ty_oid each_json_types[] = {TY_TEXT, TY_JSON};
static const ty_oid each_jsonb_types[] = {TY_TEXT, TY_JSONB};
static const ty_oid each_text_types[] = {TY_TEXT, TY_TEXT};
static const char *const each_names[] = {"key", "value"};
static const char *const value_name[] = {"value"};
static const ty_oid value_json[] = {TY_JSON};
static const ty_oid value_jsonb[] = {TY_JSONB};
static const ty_oid value_text[] = {TY_TEXT};

static ty_datum row2(const ty_oid *types, ty_datum k, ty_datum v)
{
	ty_record *r = ty_alloc(sizeof *r);
	ty_datum *vals = ty_alloc(sizeof *vals * 2);
	vals[0] = k;
	vals[1] = v;
	r->n = 2;
	r->types = types;
	r->names = each_names;
	r->vals = vals;
	return ty_bytes(r, sizeof *r);
}

/* json: ->> semantics for the _text variants. */
static ty_datum jv_text(const jv *v)
{
	if (v->type == JV_NULL)
		return ty_null();
	if (v->type == JV_STRING)
		return ty_textn(v->s, v->len);
	return ty_textn(v->span, v->spanlen);
}

static ty_datum json_each(ty_fcinfo *fc, bool text)
{
	srf_state *st = start(fc, false);
	const jv *t = st->tree;
	if (t->type == JV_ARRAY)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot deconstruct an array as an object");
	if (t->type != JV_OBJECT)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot deconstruct a scalar");
	if (st->i >= t->n)
		return done(fc);
	const jv *k = &t->kids[2 * st->i], *v = &t->kids[2 * st->i + 1];
	st->i++;
	ty_datum key = ty_textn(k->s, k->len);
	if (text)
		return row2(each_text_types, key, jv_text(v));
	return row2(each_json_types, key, ty_textn(v->span, v->spanlen));
}

static ty_datum f_json_each(ty_fcinfo *fc)
{
	return json_each(fc, false);
}
static ty_datum f_json_each_text(ty_fcinfo *fc)
{
	return json_each(fc, true);
}

static ty_datum jsonb_each(ty_fcinfo *fc, bool text, const char *fname)
{
	srf_state *st = start(fc, true);
	jbc c = jb_root(st->jb);
	if (!jbc_is_object(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on a non-object", fname);
	uint32_t n = jbc_count(c);
	if (st->i >= n)
		return done(fc);
	jbe k = jbc_child(c, st->i), v = jbc_child(c, n + st->i);
	st->i++;
	ty_datum key = ty_textn((const char *)k.p, k.len);
	if (text)
		return row2(each_text_types, key, jbe_as_text(v));
	return row2(each_jsonb_types, key, jbe_to_jsonb(v));
}

static ty_datum f_jsonb_each(ty_fcinfo *fc)
{
	return jsonb_each(fc, false, "jsonb_each");
}
static ty_datum f_jsonb_each_text(ty_fcinfo *fc)
{
	return jsonb_each(fc, true, "jsonb_each_text");
}

static ty_datum f_json_object_keys(ty_fcinfo *fc)
{
	srf_state *st = start(fc, false);
	const jv *t = st->tree;
	if (t->type == JV_ARRAY)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on an array", "json_object_keys");
	if (t->type != JV_OBJECT)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on a scalar", "json_object_keys");
	if (st->i >= t->n)
		return done(fc);
	const jv *k = &t->kids[2 * st->i++];
	return ty_textn(k->s, k->len);
}

static ty_datum f_jsonb_object_keys(ty_fcinfo *fc)
{
	srf_state *st = start(fc, true);
	jbc c = jb_root(st->jb);
	if (jbc_is_scalar(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on a scalar", "jsonb_object_keys");
	if (jbc_is_array(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on an array", "jsonb_object_keys");
	if (st->i >= jbc_count(c))
		return done(fc);
	jbe k = jbc_child(c, st->i++);
	return ty_textn((const char *)k.p, k.len);
}

static ty_datum json_elements(ty_fcinfo *fc, bool text, const char *fname)
{
	srf_state *st = start(fc, false);
	const jv *t = st->tree;
	if (t->type == JV_OBJECT)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on a non-array", fname);
	if (t->type != JV_ARRAY)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot call %s on a scalar", fname);
	if (st->i >= t->n)
		return done(fc);
	const jv *v = &t->kids[st->i++];
	return text ? jv_text(v) : ty_textn(v->span, v->spanlen);
}

static ty_datum f_json_array_elements(ty_fcinfo *fc)
{
	return json_elements(fc, false, "json_array_elements");
}
static ty_datum f_json_array_elements_text(ty_fcinfo *fc)
{
	return json_elements(fc, true, "json_array_elements_text");
}

static ty_datum jsonb_elements(ty_fcinfo *fc, bool text)
{
	srf_state *st = start(fc, true);
	jbc c = jb_root(st->jb);
	if (jbc_is_scalar(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot extract elements from a scalar");
	if (!jbc_is_array(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot extract elements from an object");
	if (st->i >= jbc_count(c))
		return done(fc);
	jbe e = jbc_child(c, st->i++);
	return text ? jbe_as_text(e) : jbe_to_jsonb(e);
}

static ty_datum f_jsonb_array_elements(ty_fcinfo *fc)
{
	return jsonb_elements(fc, false);
}
static ty_datum f_jsonb_array_elements_text(ty_fcinfo *fc)
{
	return jsonb_elements(fc, true);
}

#define SRF(nm, oid_, argt, ret_, fn_, nout_, outt, outn)                                                    \
	{                                                                                                    \
		.name = nm, .nargs = 1, .args = {argt}, .ret = ret_, .fn = fn_, .volatility = TY_IMMUTABLE,  \
		.strict = true, .retset = true, .kind = 'f', .prosrc = nm, .oid = oid_, .nout = nout_,       \
		.outtypes = outt, .outnames = outn                                                           \
	}

static const ty_func funcs[] = {
    SRF("json_each", 3958, TY_JSON, TY_RECORD, f_json_each, 2, each_json_types, each_names),
    SRF("json_each_text", 3959, TY_JSON, TY_RECORD, f_json_each_text, 2, each_text_types, each_names),
    SRF("jsonb_each", 3208, TY_JSONB, TY_RECORD, f_jsonb_each, 2, each_jsonb_types, each_names),
    SRF("jsonb_each_text", 3932, TY_JSONB, TY_RECORD, f_jsonb_each_text, 2, each_text_types, each_names),
    SRF("json_object_keys", 3957, TY_JSON, TY_TEXT, f_json_object_keys, 0, NULL, NULL),
    SRF("jsonb_object_keys", 3931, TY_JSONB, TY_TEXT, f_jsonb_object_keys, 0, NULL, NULL),
    SRF("json_array_elements", 3955, TY_JSON, TY_JSON, f_json_array_elements, 1, value_json, value_name),
    SRF("json_array_elements_text", 3969, TY_JSON, TY_TEXT, f_json_array_elements_text, 1, value_text,
	value_name),
    SRF("jsonb_array_elements", 3219, TY_JSONB, TY_JSONB, f_jsonb_array_elements, 1, value_jsonb, value_name),
    SRF("jsonb_array_elements_text", 3465, TY_JSONB, TY_TEXT, f_jsonb_array_elements_text, 1, value_text,
	value_name),
};

void json_register_srfs(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
