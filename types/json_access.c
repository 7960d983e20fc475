/*
 * json_access.c — reading into json and jsonb values: -> ->> (text keys and
 * int indexes, negative from the end), #> #>> and the extract_path
 * functions, json(b)_typeof, json(b)_array_length, and jsonb's key tests
 * ? ?| ?& and containment @> <@. json functions parse the text each call
 * and return values with their original formatting, as PostgreSQL does;
 * jsonb functions work on the binary containers directly.
 */
#include "json_int.h"

#include <ctype.h>
#include <limits.h>

/* ---------------------------------------------------------------- helpers */

jv *json_tree_of(ty_datum d)
{
	return json_parse_tree(d.p, d.len, false);
}

bool json_path_index(const char *s, size_t n, int *out)
{
	char *str = ty_strndup(s, n);
	const char *p = str;
	while (isspace((unsigned char)*p))
		p++;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return false;
	int64_t v = 0;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p++ - '0');
		if (v > (int64_t)INT_MAX + 1)
			return false;
	}
	if (*p)
		return false;
	if (neg)
		v = -v;
	if (v > INT_MAX || v < INT_MIN)
		return false;
	*out = (int)v;
	return true;
}

/* json: the last value with this key at the top of an object (PostgreSQL
 * keeps scanning, so a later duplicate wins). */
static const jv *jv_field(const jv *v, const char *k, size_t kl)
{
	if (v->type != JV_OBJECT)
		return NULL;
	const jv *r = NULL;
	for (uint32_t i = 0; i < v->n; i++)
		if (v->kids[2 * i].len == kl && memcmp(v->kids[2 * i].s, k, kl) == 0)
			r = &v->kids[2 * i + 1];
	return r;
}

static const jv *jv_element(const jv *v, int64_t i)
{
	if (v->type != JV_ARRAY)
		return NULL;
	if (i < 0)
		i += v->n;
	if (i < 0 || i >= v->n)
		return NULL;
	return &v->kids[i];
}

static ty_datum jv_as_json(const jv *v)
{
	return ty_textn(v->span, v->spanlen);
}

/* ->> on json: strings de-escaped, null is SQL NULL, the rest as written. */
static ty_datum jv_as_text(const jv *v)
{
	if (!v || v->type == JV_NULL)
		return ty_null();
	if (v->type == JV_STRING)
		return ty_textn(v->s, v->len);
	return ty_textn(v->span, v->spanlen);
}

ty_datum jbe_as_text(jbe e)
{
	switch (e.type) {
	case JE_NULL:
		return ty_null();
	case JE_STRING:
	case JE_NUMBER:
		return ty_textn((const char *)e.p, e.len);
	case JE_TRUE:
		return ty_text("true");
	case JE_FALSE:
		return ty_text("false");
	default: {
		util_buf b = UTIL_BUF_INIT;
		jsonb_out_buf(ty_bytes(e.p, e.len), &b);
		ty_datum r = ty_textn(b.data ? b.data : "", b.len);
		util_buf_free(&b);
		return r;
	}
	}
}

/* The root of a jsonb datum as an entry (raw scalars unwrapped). */
jbe jb_root_entry(ty_datum d)
{
	jbc c = jb_root(d);
	if (jbc_is_scalar(c))
		return jbc_child(c, 0);
	jbe e = {JE_CONTAINER, d.p, d.len};
	return e;
}

/* ---------------------------------------------------------------- json -> ->> */

static ty_datum f_json_object_field(ty_fcinfo *fc)
{
	const jv *v = jv_field(json_tree_of(fc->args[0]), fc->args[1].p, fc->args[1].len);
	return v ? jv_as_json(v) : ty_null();
}

static ty_datum f_json_object_field_text(ty_fcinfo *fc)
{
	return jv_as_text(jv_field(json_tree_of(fc->args[0]), fc->args[1].p, fc->args[1].len));
}

static ty_datum f_json_array_element(ty_fcinfo *fc)
{
	const jv *v = jv_element(json_tree_of(fc->args[0]), fc->args[1].i);
	return v ? jv_as_json(v) : ty_null();
}

static ty_datum f_json_array_element_text(ty_fcinfo *fc)
{
	return jv_as_text(jv_element(json_tree_of(fc->args[0]), fc->args[1].i));
}

/* Walks a text[] path through a json tree; NULL when a step is missing. */
static const jv *jv_path(const jv *v, ty_datum path, bool *isnull)
{
	ty_array_iter it;
	ty_array_iter_init(&it, path);
	ty_datum e;
	*isnull = false;
	while (ty_array_iter_next(&it, &e)) {
		if (e.null || !v) {
			*isnull = true;
			return NULL;
		}
		if (v->type == JV_OBJECT) {
			v = jv_field(v, e.p, e.len);
		} else if (v->type == JV_ARRAY) {
			int idx;
			if (!json_path_index(e.p, e.len, &idx)) {
				*isnull = true;
				return NULL;
			}
			v = jv_element(v, idx);
		} else {
			v = NULL;
		}
	}
	if (!v)
		*isnull = true;
	return v;
}

/* An empty path gives the root; PostgreSQL then includes the whitespace
 * before a scalar root (but not before a container). */
static ty_datum json_root_text(ty_datum d, const jv *v, bool as_text)
{
	if (as_text && v->type == JV_STRING)
		return ty_textn(v->s, v->len);
	if (as_text && v->type == JV_NULL)
		return ty_null();
	if (v->type == JV_OBJECT || v->type == JV_ARRAY)
		return jv_as_json(v);
	return ty_textn(d.p, (size_t)(v->span + v->spanlen - (const char *)d.p));
}

static ty_datum f_json_extract_path(ty_fcinfo *fc)
{
	bool isnull;
	if (ty_array_nitems(fc->args[1]) == 0)
		return json_root_text(fc->args[0], json_tree_of(fc->args[0]), false);
	const jv *v = jv_path(json_tree_of(fc->args[0]), fc->args[1], &isnull);
	return isnull ? ty_null() : jv_as_json(v);
}

static ty_datum f_json_extract_path_text(ty_fcinfo *fc)
{
	bool isnull;
	if (ty_array_nitems(fc->args[1]) == 0)
		return json_root_text(fc->args[0], json_tree_of(fc->args[0]), true);
	const jv *v = jv_path(json_tree_of(fc->args[0]), fc->args[1], &isnull);
	return isnull ? ty_null() : jv_as_text(v);
}

/* ---------------------------------------------------------------- jsonb -> ->> */

static ty_datum f_jsonb_object_field(ty_fcinfo *fc)
{
	jbc c = jb_root(fc->args[0]);
	jbe e;
	if (!jbc_find_key(c, fc->args[1].p, fc->args[1].len, &e))
		return ty_null();
	return jbe_to_jsonb(e);
}

static ty_datum f_jsonb_object_field_text(ty_fcinfo *fc)
{
	jbc c = jb_root(fc->args[0]);
	jbe e;
	if (!jbc_find_key(c, fc->args[1].p, fc->args[1].len, &e))
		return ty_null();
	return jbe_as_text(e);
}

/* Element i of a jsonb array root (a raw scalar counts, as in PostgreSQL). */
static bool jb_element(ty_datum d, int64_t i, jbe *out)
{
	jbc c = jb_root(d);
	if (!jbc_is_array(c))
		return false;
	int64_t n = jbc_count(c);
	if (i < 0)
		i += n;
	if (i < 0 || i >= n)
		return false;
	*out = jbc_child(c, (uint32_t)i);
	return true;
}

static ty_datum f_jsonb_array_element(ty_fcinfo *fc)
{
	jbe e;
	return jb_element(fc->args[0], fc->args[1].i, &e) ? jbe_to_jsonb(e) : ty_null();
}

static ty_datum f_jsonb_array_element_text(ty_fcinfo *fc)
{
	jbe e;
	return jb_element(fc->args[0], fc->args[1].i, &e) ? jbe_as_text(e) : ty_null();
}

/* PostgreSQL's jsonb_get_element. */
static ty_datum jb_get_path(ty_datum d, ty_datum path, bool as_text)
{
	int npath = ty_array_nitems(path);
	jbc root = jb_root(d);
	if (npath == 0) {
		if (jbc_is_scalar(root))
			return as_text ? jbe_as_text(jbc_child(root, 0)) : d;
		return as_text ? jbe_as_text(jb_root_entry(d)) : d;
	}
	jbe cur = jb_root_entry(d);
	ty_array_iter it;
	ty_array_iter_init(&it, path);
	ty_datum p;
	while (ty_array_iter_next(&it, &p)) {
		if (p.null || cur.type != JE_CONTAINER)
			return ty_null();
		jbc c = jbe_container(cur);
		jbe next;
		if (jbc_is_object(c)) {
			if (!jbc_find_key(c, p.p, p.len, &next))
				return ty_null();
		} else {
			int idx;
			if (!json_path_index(p.p, p.len, &idx))
				return ty_null();
			int64_t n = jbc_count(c), i = idx;
			if (i < 0)
				i += n;
			if (i < 0 || i >= n)
				return ty_null();
			next = jbc_child(c, (uint32_t)i);
		}
		cur = next;
	}
	return as_text ? jbe_as_text(cur) : jbe_to_jsonb(cur);
}

static ty_datum f_jsonb_extract_path(ty_fcinfo *fc)
{
	return jb_get_path(fc->args[0], fc->args[1], false);
}
static ty_datum f_jsonb_extract_path_text(ty_fcinfo *fc)
{
	return jb_get_path(fc->args[0], fc->args[1], true);
}

/* ---------------------------------------------------------------- typeof, length */

static const char *jv_type_name(int t)
{
	switch (t) {
	case JV_OBJECT:
		return "object";
	case JV_ARRAY:
		return "array";
	case JV_STRING:
		return "string";
	case JV_NUMBER:
		return "number";
	case JV_BOOL:
		return "boolean";
	default:
		return "null";
	}
}

static ty_datum f_json_typeof(ty_fcinfo *fc)
{
	/* Only the first token matters, but the whole text must be valid. */
	return ty_text(jv_type_name(json_tree_of(fc->args[0])->type));
}

static int jbe_jv_type(jbe e)
{
	switch (e.type) {
	case JE_STRING:
		return JV_STRING;
	case JE_NUMBER:
		return JV_NUMBER;
	case JE_TRUE:
	case JE_FALSE:
		return JV_BOOL;
	case JE_NULL:
		return JV_NULL;
	default:
		return jbc_is_object(jbe_container(e)) ? JV_OBJECT : JV_ARRAY;
	}
}

static ty_datum f_jsonb_typeof(ty_fcinfo *fc)
{
	return ty_text(jv_type_name(jbe_jv_type(jb_root_entry(fc->args[0]))));
}

static ty_datum f_json_array_length(ty_fcinfo *fc)
{
	const jv *v = json_tree_of(fc->args[0]);
	if (v->type == JV_OBJECT)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot get array length of a non-array");
	if (v->type != JV_ARRAY)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot get array length of a scalar");
	return ty_int(v->n);
}

static ty_datum f_jsonb_array_length(ty_fcinfo *fc)
{
	jbc c = jb_root(fc->args[0]);
	if (jbc_is_scalar(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot get array length of a scalar");
	if (!jbc_is_array(c))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot get array length of a non-array");
	return ty_int(jbc_count(c));
}

/* ---------------------------------------------------------------- ? ?| ?& */

/* A string among an object's keys or an array's string elements. */
static bool jb_exists(ty_datum d, const char *k, size_t kl)
{
	jbc c = jb_root(d);
	jbe e;
	if (jbc_is_object(c))
		return jbc_find_key(c, k, kl, &e);
	uint32_t n = jbc_count(c);
	for (uint32_t i = 0; i < n; i++) {
		e = jbc_child(c, i);
		if (e.type == JE_STRING && e.len == kl && memcmp(e.p, k, kl) == 0)
			return true;
	}
	return false;
}

static ty_datum f_jsonb_exists(ty_fcinfo *fc)
{
	return ty_bool(jb_exists(fc->args[0], fc->args[1].p, fc->args[1].len));
}

static ty_datum exists_many(ty_fcinfo *fc, bool all)
{
	ty_array_iter it;
	ty_array_iter_init(&it, fc->args[1]);
	ty_datum k;
	while (ty_array_iter_next(&it, &k)) {
		if (k.null)
			continue;
		bool found = jb_exists(fc->args[0], k.p, k.len);
		if (found && !all)
			return ty_bool(true);
		if (!found && all)
			return ty_bool(false);
	}
	return ty_bool(all);
}

static ty_datum f_jsonb_exists_any(ty_fcinfo *fc)
{
	return exists_many(fc, false);
}
static ty_datum f_jsonb_exists_all(ty_fcinfo *fc)
{
	return exists_many(fc, true);
}

/* ---------------------------------------------------------------- @> <@ */

static bool scalar_equal(jbe a, jbe b)
{
	if (a.type != b.type)
		return false;
	if (a.type == JE_STRING)
		return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
	if (a.type == JE_NUMBER)
		return json_number_cmp((const char *)a.p, a.len, (const char *)b.p, b.len) == 0;
	return true;
}

/* PostgreSQL's JsonbDeepContains on two containers. */
static bool deep_contains(jbc val, jbc sub, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (jbc_is_object(val) != jbc_is_object(sub))
		return false;
	uint32_t nv = jbc_count(val), ns = jbc_count(sub);
	if (jbc_is_object(val)) {
		if (nv < ns)
			return false;
		for (uint32_t i = 0; i < ns; i++) {
			jbe k = jbc_child(sub, i), sv = jbc_child(sub, ns + i), lv;
			if (!jbc_find_key(val, (const char *)k.p, k.len, &lv))
				return false;
			if ((lv.type == JE_CONTAINER) != (sv.type == JE_CONTAINER))
				return false;
			if (lv.type == JE_CONTAINER) {
				if (!deep_contains(jbe_container(lv), jbe_container(sv), depth + 1))
					return false;
			} else if (!scalar_equal(lv, sv)) {
				return false;
			}
		}
		return true;
	}
	/* A raw scalar may contain a raw scalar; an array may contain either. */
	if (jbc_is_scalar(val) && !jbc_is_scalar(sub))
		return false;
	for (uint32_t i = 0; i < ns; i++) {
		jbe s = jbc_child(sub, i);
		bool found = false;
		for (uint32_t j = 0; j < nv && !found; j++) {
			jbe v = jbc_child(val, j);
			if (s.type != JE_CONTAINER)
				found = v.type != JE_CONTAINER && scalar_equal(v, s);
			else if (v.type == JE_CONTAINER)
				found = deep_contains(jbe_container(v), jbe_container(s), depth + 1);
		}
		if (!found)
			return false;
	}
	return true;
}

bool jsonb_contains_datum(ty_datum a, ty_datum b)
{
	return deep_contains(jb_root(a), jb_root(b), 0);
}

static ty_datum f_jsonb_contains(ty_fcinfo *fc)
{
	return ty_bool(jsonb_contains_datum(fc->args[0], fc->args[1]));
}
static ty_datum f_jsonb_contained(ty_fcinfo *fc)
{
	return ty_bool(jsonb_contains_datum(fc->args[1], fc->args[0]));
}

/* ---------------------------------------------------------------- comparison */

static ty_datum f_jsonb_eq(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) == 0);
}
static ty_datum f_jsonb_ne(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) != 0);
}
static ty_datum f_jsonb_lt(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) < 0);
}
static ty_datum f_jsonb_gt(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) > 0);
}
static ty_datum f_jsonb_le(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) <= 0);
}
static ty_datum f_jsonb_ge(ty_fcinfo *fc)
{
	return ty_bool(jsonb_cmp_datum(fc->args[0], fc->args[1]) >= 0);
}
static ty_datum f_jsonb_cmp(ty_fcinfo *fc)
{
	int c = jsonb_cmp_datum(fc->args[0], fc->args[1]);
	return ty_int(c < 0 ? -1 : c > 0);
}
static ty_datum f_jsonb_hash(ty_fcinfo *fc)
{
	return ty_int((int32_t)(uint32_t)jsonb_hash_datum(fc->args[0]));
}
static ty_datum f_jsonb_hash_extended(ty_fcinfo *fc)
{
	return ty_int((int64_t)util_hash_mix(jsonb_hash_datum(fc->args[0]) ^ (uint64_t)fc->args[1].i));
}

#define J  TY_JSON
#define JB TY_JSONB
#define F(nm, oid_, na, ret_, fn_, src, ...)                                                                 \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = true, .kind = 'f', .prosrc = src, .oid = oid_          \
	}
#define FV(nm, oid_, ret_, fn_, src, first)                                                                  \
	{                                                                                                    \
		.name = nm, .nargs = 2, .args = {first, TY_TEXT_ARRAY}, .ret = ret_, .fn = fn_,              \
		.volatility = TY_IMMUTABLE, .strict = true, .kind = 'f', .variadic = TY_TEXT, .prosrc = src, \
		.oid = oid_                                                                                  \
	}

static const ty_func funcs[] = {
    F("json_object_field", 3947, 2, J, f_json_object_field, "json_object_field", {J, TY_TEXT}),
    F("json_object_field_text", 3948, 2, TY_TEXT, f_json_object_field_text, "json_object_field_text",
      {J, TY_TEXT}),
    F("json_array_element", 3949, 2, J, f_json_array_element, "json_array_element", {J, TY_INT4}),
    F("json_array_element_text", 3950, 2, TY_TEXT, f_json_array_element_text, "json_array_element_text",
      {J, TY_INT4}),
    FV("json_extract_path", 3951, J, f_json_extract_path, "json_extract_path", J),
    FV("json_extract_path_text", 3953, TY_TEXT, f_json_extract_path_text, "json_extract_path_text", J),
    F("jsonb_object_field", 3478, 2, JB, f_jsonb_object_field, "jsonb_object_field", {JB, TY_TEXT}),
    F("jsonb_object_field_text", 3214, 2, TY_TEXT, f_jsonb_object_field_text, "jsonb_object_field_text",
      {JB, TY_TEXT}),
    F("jsonb_array_element", 3215, 2, JB, f_jsonb_array_element, "jsonb_array_element", {JB, TY_INT4}),
    F("jsonb_array_element_text", 3216, 2, TY_TEXT, f_jsonb_array_element_text, "jsonb_array_element_text",
      {JB, TY_INT4}),
    FV("jsonb_extract_path", 3217, JB, f_jsonb_extract_path, "jsonb_extract_path", JB),
    FV("jsonb_extract_path_text", 3940, TY_TEXT, f_jsonb_extract_path_text, "jsonb_extract_path_text", JB),
    F("json_typeof", 3968, 1, TY_TEXT, f_json_typeof, "json_typeof", {J}),
    F("jsonb_typeof", 3210, 1, TY_TEXT, f_jsonb_typeof, "jsonb_typeof", {JB}),
    F("json_array_length", 3956, 1, TY_INT4, f_json_array_length, "json_array_length", {J}),
    F("jsonb_array_length", 3207, 1, TY_INT4, f_jsonb_array_length, "jsonb_array_length", {JB}),
    F("jsonb_exists", 4047, 2, TY_BOOL, f_jsonb_exists, "jsonb_exists", {JB, TY_TEXT}),
    F("jsonb_exists_any", 4048, 2, TY_BOOL, f_jsonb_exists_any, "jsonb_exists_any", {JB, TY_TEXT_ARRAY}),
    F("jsonb_exists_all", 4049, 2, TY_BOOL, f_jsonb_exists_all, "jsonb_exists_all", {JB, TY_TEXT_ARRAY}),
    F("jsonb_contains", 4046, 2, TY_BOOL, f_jsonb_contains, "jsonb_contains", {JB, JB}),
    F("jsonb_contained", 4050, 2, TY_BOOL, f_jsonb_contained, "jsonb_contained", {JB, JB}),
    F("jsonb_eq", 4043, 2, TY_BOOL, f_jsonb_eq, "jsonb_eq", {JB, JB}),
    F("jsonb_ne", 4038, 2, TY_BOOL, f_jsonb_ne, "jsonb_ne", {JB, JB}),
    F("jsonb_lt", 4039, 2, TY_BOOL, f_jsonb_lt, "jsonb_lt", {JB, JB}),
    F("jsonb_gt", 4040, 2, TY_BOOL, f_jsonb_gt, "jsonb_gt", {JB, JB}),
    F("jsonb_le", 4041, 2, TY_BOOL, f_jsonb_le, "jsonb_le", {JB, JB}),
    F("jsonb_ge", 4042, 2, TY_BOOL, f_jsonb_ge, "jsonb_ge", {JB, JB}),
    F("jsonb_cmp", 4044, 2, TY_INT4, f_jsonb_cmp, "jsonb_cmp", {JB, JB}),
    F("jsonb_hash", 4045, 1, TY_INT4, f_jsonb_hash, "jsonb_hash", {JB}),
    F("jsonb_hash_extended", 3416, 2, TY_INT8, f_jsonb_hash_extended, "jsonb_hash_extended", {JB, TY_INT8}),
};

#define OP(nm, oid_, l, r, res, fn_, com, neg)                                                               \
	{                                                                                                    \
		nm, l, r, res, fn_, com, neg, oid_                                                           \
	}

static const ty_operator ops[] = {
    OP("->", 3962, J, TY_TEXT, J, "json_object_field", NULL, NULL),
    OP("->>", 3963, J, TY_TEXT, TY_TEXT, "json_object_field_text", NULL, NULL),
    OP("->", 3964, J, TY_INT4, J, "json_array_element", NULL, NULL),
    OP("->>", 3965, J, TY_INT4, TY_TEXT, "json_array_element_text", NULL, NULL),
    OP("#>", 3966, J, TY_TEXT_ARRAY, J, "json_extract_path", NULL, NULL),
    OP("#>>", 3967, J, TY_TEXT_ARRAY, TY_TEXT, "json_extract_path_text", NULL, NULL),
    OP("->", 3211, JB, TY_TEXT, JB, "jsonb_object_field", NULL, NULL),
    OP("->>", 3477, JB, TY_TEXT, TY_TEXT, "jsonb_object_field_text", NULL, NULL),
    OP("->", 3212, JB, TY_INT4, JB, "jsonb_array_element", NULL, NULL),
    OP("->>", 3481, JB, TY_INT4, TY_TEXT, "jsonb_array_element_text", NULL, NULL),
    OP("#>", 3213, JB, TY_TEXT_ARRAY, JB, "jsonb_extract_path", NULL, NULL),
    OP("#>>", 3206, JB, TY_TEXT_ARRAY, TY_TEXT, "jsonb_extract_path_text", NULL, NULL),
    OP("?", 3247, JB, TY_TEXT, TY_BOOL, "jsonb_exists", NULL, NULL),
    OP("?|", 3248, JB, TY_TEXT_ARRAY, TY_BOOL, "jsonb_exists_any", NULL, NULL),
    OP("?&", 3249, JB, TY_TEXT_ARRAY, TY_BOOL, "jsonb_exists_all", NULL, NULL),
    OP("@>", 3246, JB, JB, TY_BOOL, "jsonb_contains", "<@", NULL),
    OP("<@", 3250, JB, JB, TY_BOOL, "jsonb_contained", "@>", NULL),
    OP("=", 3240, JB, JB, TY_BOOL, "jsonb_eq", "=", "<>"),
    OP("<>", 3241, JB, JB, TY_BOOL, "jsonb_ne", "<>", "="),
    OP("<", 3242, JB, JB, TY_BOOL, "jsonb_lt", ">", ">="),
    OP(">", 3243, JB, JB, TY_BOOL, "jsonb_gt", "<", "<="),
    OP("<=", 3244, JB, JB, TY_BOOL, "jsonb_le", ">=", ">"),
    OP(">=", 3245, JB, JB, TY_BOOL, "jsonb_ge", "<=", "<"),
};

void json_register_access(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	ty_operator_register(ops, (int)UTIL_ARRAY_LEN(ops));
}
