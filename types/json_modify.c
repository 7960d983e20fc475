/*
 * json_modify.c — functions producing changed jsonb values, with
 * PostgreSQL 15's path semantics (setPath): || (jsonb_concat), - (key,
 * index, keys), #- (jsonb_delete_path), jsonb_set, jsonb_set_lax,
 * jsonb_insert, json(b)_strip_nulls, jsonb_pretty, and the casts json <->
 * jsonb and jsonb -> bool/numeric/int2/int4/int8/float4/float8. Values are
 * decoded to a jv tree, changed, and encoded again.
 */
#include "json_int.h"
#include "numeric.h"

#include <limits.h>

static ty_datum tree_jsonb(const jv *v)
{
	return jv_to_jsonb(v);
}

/* An object's or array's children as a fresh, growable copy. */
typedef struct kids {
	jv *v;
	uint32_t n, cap;
} kids;

static void kids_push(kids *k, const jv *x)
{
	if (k->n == k->cap) {
		uint32_t nc = k->cap ? k->cap * 2 : 8;
		jv *nv = ty_alloc(sizeof *nv * nc);
		if (k->n)
			memcpy(nv, k->v, sizeof *nv * k->n);
		k->v = nv;
		k->cap = nc;
	}
	k->v[k->n++] = *x;
}

/* ---------------------------------------------------------------- || */

/* The elements a value contributes to an array concatenation. */
static void concat_elems(const jv *v, kids *out)
{
	if (v->type == JV_ARRAY) {
		for (uint32_t i = 0; i < v->n; i++)
			kids_push(out, &v->kids[i]);
	} else {
		kids_push(out, v);
	}
}

static ty_datum f_jsonb_concat(ty_fcinfo *fc)
{
	jv *a = jsonb_to_jv(fc->args[0]), *b = jsonb_to_jv(fc->args[1]);
	jv r;
	memset(&r, 0, sizeof r);
	kids k = {0};
	if (a->type == JV_OBJECT && b->type == JV_OBJECT) {
		for (uint32_t i = 0; i < 2 * a->n; i++)
			kids_push(&k, &a->kids[i]);
		for (uint32_t i = 0; i < 2 * b->n; i++)
			kids_push(&k, &b->kids[i]);
		r.type = JV_OBJECT;
		r.kids = k.v;
		r.n = k.n / 2;
		jv_normalize(&r, false);
		return tree_jsonb(&r);
	}
	concat_elems(a, &k);
	concat_elems(b, &k);
	r.type = JV_ARRAY;
	r.kids = k.v;
	r.n = k.n;
	return tree_jsonb(&r);
}

/* ---------------------------------------------------------------- - */

static bool is_key(const jv *s, const char *k, size_t kl)
{
	return s->type == JV_STRING && s->len == kl && memcmp(s->s, k, kl) == 0;
}

/* Removes object keys / array string elements matched by pred. */
static ty_datum delete_matching(ty_datum d, bool (*pred)(const jv *key, void *arg), void *arg)
{
	jbc root = jb_root(d);
	if (jbc_is_scalar(root))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete from scalar");
	if (jbc_count(root) == 0)
		return d;
	jv *v = jsonb_to_jv(d);
	kids k = {0};
	bool changed = false;
	if (v->type == JV_OBJECT) {
		for (uint32_t i = 0; i < v->n; i++) {
			if (pred(&v->kids[2 * i], arg)) {
				changed = true;
				continue;
			}
			kids_push(&k, &v->kids[2 * i]);
			kids_push(&k, &v->kids[2 * i + 1]);
		}
		v->n = k.n / 2;
	} else {
		for (uint32_t i = 0; i < v->n; i++) {
			if (pred(&v->kids[i], arg)) {
				changed = true;
				continue;
			}
			kids_push(&k, &v->kids[i]);
		}
		v->n = k.n;
	}
	if (!changed)
		return d;
	v->kids = k.v;
	return tree_jsonb(v);
}

static bool match_one(const jv *key, void *arg)
{
	const ty_datum *k = arg;
	return is_key(key, k->p, k->len);
}

static bool match_any(const jv *key, void *arg)
{
	ty_array_iter it;
	ty_array_iter_init(&it, *(const ty_datum *)arg);
	ty_datum k;
	while (ty_array_iter_next(&it, &k))
		if (!k.null && is_key(key, k.p, k.len))
			return true;
	return false;
}

static ty_datum f_jsonb_delete(ty_fcinfo *fc)
{
	return delete_matching(fc->args[0], match_one, &fc->args[1]);
}

static ty_datum f_jsonb_delete_array(ty_fcinfo *fc)
{
	if (jbc_is_scalar(jb_root(fc->args[0])))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete from scalar");
	if (ty_array_nitems(fc->args[1]) == 0)
		return fc->args[0];
	return delete_matching(fc->args[0], match_any, &fc->args[1]);
}

static ty_datum f_jsonb_delete_idx(ty_fcinfo *fc)
{
	ty_datum d = fc->args[0];
	jbc root = jb_root(d);
	if (jbc_is_scalar(root))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete from scalar");
	if (jbc_is_object(root))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete from object using integer index");
	int64_t n = jbc_count(root), idx = fc->args[1].i;
	if (n == 0)
		return d;
	if (idx < 0)
		idx = -idx > n ? n : n + idx;
	if (idx >= n)
		return d;
	jv *v = jsonb_to_jv(d);
	memmove(&v->kids[idx], &v->kids[idx + 1], sizeof *v->kids * (size_t)(n - idx - 1));
	v->n--;
	return tree_jsonb(v);
}

/* ---------------------------------------------------------------- setPath */

enum {
	P_REPLACE = 0x01,
	P_CREATE = 0x02,
	P_DELETE = 0x04,
	P_INS_BEFORE = 0x08,
	P_INS_AFTER = 0x10,
	P_CREATE_OR_INSERT = P_CREATE | P_INS_BEFORE | P_INS_AFTER
};

typedef struct path {
	ty_datum *el;
	int n;
} path;

static void set_path(jv *v, const path *p, int level, const jv *newval, int op, int depth);

static void set_object(jv *v, const path *p, int level, const jv *newval, int op, int depth)
{
	ty_datum key = p->el[level];
	bool last = level == p->n - 1;
	for (uint32_t i = 0; i < v->n; i++) {
		if (!is_key(&v->kids[2 * i], key.p, key.len))
			continue;
		if (!last) {
			set_path(&v->kids[2 * i + 1], p, level + 1, newval, op, depth + 1);
			return;
		}
		if (op & (P_INS_BEFORE | P_INS_AFTER)) {
			util_err *e =
			    ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "cannot replace existing key");
			util_err_hint(e, "Try using the function jsonb_set to replace key value.");
			ty_errthrow();
		}
		if (op & P_DELETE) {
			memmove(&v->kids[2 * i], &v->kids[2 * i + 2], sizeof *v->kids * 2 * (v->n - i - 1));
			v->n--;
		} else {
			v->kids[2 * i + 1] = *newval;
		}
		return;
	}
	if ((op & P_CREATE_OR_INSERT) && last) {
		kids k = {0};
		for (uint32_t i = 0; i < 2 * v->n; i++)
			kids_push(&k, &v->kids[i]);
		jv kv;
		memset(&kv, 0, sizeof kv);
		kv.type = JV_STRING;
		kv.s = key.p;
		kv.len = key.len;
		kids_push(&k, &kv);
		kids_push(&k, newval);
		v->kids = k.v;
		v->n = k.n / 2;
		jv_normalize(v, false);
	}
}

static void set_array(jv *v, const path *p, int level, const jv *newval, int op, int depth)
{
	ty_datum step = p->el[level];
	int idx;
	if (!json_path_index(step.p, step.len, &idx)) {
		char *s = ty_strndup(step.p, step.len);
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION,
			 "path element at position %d is not an integer: \"%s\"", level + 1, s);
	}
	int64_t n = v->n, ix = idx;
	bool prepend = false;
	if (ix < 0) {
		if (-ix > n)
			prepend = true;
		else
			ix += n;
	}
	if (!prepend && ix > n)
		ix = n;
	bool last = level == p->n - 1;
	kids k = {0};
	bool done = false;
	if ((prepend || n == 0) && last && (op & P_CREATE_OR_INSERT)) {
		kids_push(&k, newval);
		done = true;
	}
	for (int64_t i = 0; i < n; i++) {
		if (!prepend && i == ix) {
			done = true;
			if (!last) {
				set_path(&v->kids[i], p, level + 1, newval, op, depth + 1);
				kids_push(&k, &v->kids[i]);
				continue;
			}
			if (op & (P_INS_BEFORE | P_CREATE))
				kids_push(&k, newval);
			if (op & (P_INS_AFTER | P_INS_BEFORE))
				kids_push(&k, &v->kids[i]);
			if (op & (P_INS_AFTER | P_REPLACE))
				kids_push(&k, newval);
			continue;
		}
		kids_push(&k, &v->kids[i]);
	}
	if ((op & P_CREATE_OR_INSERT) && !done && last)
		kids_push(&k, newval);
	v->kids = k.v;
	v->n = k.n;
}

static void set_path(jv *v, const path *p, int level, const jv *newval, int op, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (p->el[level].null)
		ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "path element at position %d is null", level + 1);
	if (v->type == JV_OBJECT)
		set_object(v, p, level, newval, op, depth);
	else if (v->type == JV_ARRAY)
		set_array(v, p, level, newval, op, depth);
}

static ty_datum apply_path(ty_datum d, ty_datum pathd, const jv *newval, int op)
{
	path p;
	p.el = ty_array_deconstruct(pathd, &p.n);
	if (p.n == 0)
		return d;
	/* Nothing to replace or delete in an empty container. */
	if (jbc_count(jb_root(d)) == 0 && !(op & P_CREATE_OR_INSERT))
		return d;
	jv *v = jsonb_to_jv(d);
	set_path(v, &p, 0, newval, op, 0);
	return tree_jsonb(v);
}

static ty_datum jb_set(ty_datum d, ty_datum pathd, ty_datum newval, bool create)
{
	if (jbc_is_scalar(jb_root(d)))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot set path in scalar");
	return apply_path(d, pathd, jsonb_to_jv(newval), create ? P_CREATE : P_REPLACE);
}

static ty_datum f_jsonb_set(ty_fcinfo *fc)
{
	bool create = fc->nargs < 4 || fc->args[3].i;
	return jb_set(fc->args[0], fc->args[1], fc->args[2], create);
}

static ty_datum f_jsonb_delete_path(ty_fcinfo *fc)
{
	if (jbc_is_scalar(jb_root(fc->args[0])))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete path in scalar");
	return apply_path(fc->args[0], fc->args[1], NULL, P_DELETE);
}

static ty_datum f_jsonb_insert(ty_fcinfo *fc)
{
	if (jbc_is_scalar(jb_root(fc->args[0])))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot set path in scalar");
	bool after = fc->nargs == 4 && fc->args[3].i;
	return apply_path(fc->args[0], fc->args[1], jsonb_to_jv(fc->args[2]),
			  after ? P_INS_AFTER : P_INS_BEFORE);
}

static ty_datum f_jsonb_set_lax(ty_fcinfo *fc)
{
	ty_datum *a = fc->args;
	int nargs = fc->nargs;
	bool create = nargs < 4 || a[3].i;
	if (a[0].null || a[1].null || (nargs >= 4 && a[3].null))
		return ty_null();
	const char *treatment = "use_json_null";
	size_t tl = strlen(treatment);
	if (nargs >= 5) {
		if (a[4].null)
			goto bad_treatment;
		treatment = a[4].p;
		tl = a[4].len;
	}
	if (!a[2].null)
		return jb_set(a[0], a[1], a[2], create);
	if (tl == 15 && memcmp(treatment, "raise_exception", 15) == 0) {
		util_err *e = ty_errstart(UTIL_E_NULL_VALUE_NOT_ALLOWED, "JSON value must not be null");
		util_err_detail(e,
				"Exception was raised because null_value_treatment is \"raise_exception\".");
		util_err_hint(
		    e, "To avoid, either change the null_value_treatment argument or ensure that an SQL "
		       "NULL is not passed.");
		ty_errthrow();
	}
	if (tl == 13 && memcmp(treatment, "use_json_null", 13) == 0)
		return jb_set(a[0], a[1], jv_to_jsonb(jv_new(JV_NULL)), create);
	if (tl == 10 && memcmp(treatment, "delete_key", 10) == 0) {
		if (jbc_is_scalar(jb_root(a[0])))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot delete path in scalar");
		return apply_path(a[0], a[1], NULL, P_DELETE);
	}
	if (tl == 13 && memcmp(treatment, "return_target", 13) == 0)
		return a[0];
bad_treatment:
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
		 "null_value_treatment must be \"delete_key\", \"return_target\", "
		 "\"use_json_null\", or \"raise_exception\"");
}

/* ---------------------------------------------------------------- strip_nulls, pretty */

static void strip_nulls(jv *v, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (v->type == JV_ARRAY) {
		for (uint32_t i = 0; i < v->n; i++)
			strip_nulls(&v->kids[i], depth + 1);
	} else if (v->type == JV_OBJECT) {
		uint32_t k = 0;
		for (uint32_t i = 0; i < v->n; i++) {
			if (v->kids[2 * i + 1].type == JV_NULL)
				continue;
			v->kids[2 * k] = v->kids[2 * i];
			v->kids[2 * k + 1] = v->kids[2 * i + 1];
			strip_nulls(&v->kids[2 * k + 1], depth + 1);
			k++;
		}
		v->n = k;
	}
}

static ty_datum f_jsonb_strip_nulls(ty_fcinfo *fc)
{
	jv *v = jsonb_to_jv(fc->args[0]);
	strip_nulls(v, 0);
	return tree_jsonb(v);
}

static ty_datum buf_text(util_buf *b)
{
	ty_datum r = ty_textn(b->data ? b->data : "", b->len);
	util_buf_free(b);
	return r;
}

static ty_datum f_json_strip_nulls(ty_fcinfo *fc)
{
	jv *v = json_tree_of(fc->args[0]);
	strip_nulls(v, 0);
	util_buf b = UTIL_BUF_INIT;
	jv_out_compact(v, &b);
	return buf_text(&b);
}

static ty_datum f_jsonb_pretty(ty_fcinfo *fc)
{
	jv *v = jsonb_to_jv(fc->args[0]);
	util_buf b = UTIL_BUF_INIT;
	jv_out(v, &b, true);
	return buf_text(&b);
}

/* ---------------------------------------------------------------- casts */

/* PostgreSQL's JsonbExtractScalar + cannotCastJsonbValue. */
static jbe cast_scalar(ty_datum d, int want, const char *sqltype)
{
	jbc root = jb_root(d);
	const char *kind;
	jbe e = {0};
	if (!jbc_is_scalar(root)) {
		kind = jbc_is_object(root) ? "object" : "array";
	} else {
		e = jbc_child(root, 0);
		if (e.type == want || (want == JE_TRUE && e.type == JE_FALSE))
			return e;
		kind = e.type == JE_NULL     ? "null"
		       : e.type == JE_STRING ? "string"
		       : e.type == JE_NUMBER ? "numeric"
					     : "boolean";
	}
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "cannot cast jsonb %s to type %s", kind, sqltype);
}

static ty_datum f_jsonb_bool(ty_fcinfo *fc)
{
	return ty_bool(cast_scalar(fc->args[0], JE_TRUE, "boolean").type == JE_TRUE);
}

static ty_datum jb_numeric(ty_datum d, const char *sqltype)
{
	jbe e = cast_scalar(d, JE_NUMBER, sqltype);
	return ty_numeric_parse((const char *)e.p, e.len, TY_TYPMOD_NONE);
}

static ty_datum f_jsonb_numeric(ty_fcinfo *fc)
{
	return jb_numeric(fc->args[0], "numeric");
}

static ty_datum num_to(ty_datum d, const char *sqltype, ty_oid target)
{
	return ty_cast_value(jb_numeric(d, sqltype), TY_NUMERIC, target, TY_TYPMOD_NONE, true);
}

static ty_datum f_jsonb_int2(ty_fcinfo *fc)
{
	return num_to(fc->args[0], "smallint", TY_INT2);
}
static ty_datum f_jsonb_int4(ty_fcinfo *fc)
{
	return num_to(fc->args[0], "integer", TY_INT4);
}
static ty_datum f_jsonb_int8(ty_fcinfo *fc)
{
	return num_to(fc->args[0], "bigint", TY_INT8);
}
static ty_datum f_jsonb_float4(ty_fcinfo *fc)
{
	return num_to(fc->args[0], "real", TY_FLOAT4);
}
static ty_datum f_jsonb_float8(ty_fcinfo *fc)
{
	return num_to(fc->args[0], "double precision", TY_FLOAT8);
}

#define JB TY_JSONB
#define F(nm, oid_, na, ret_, fn_, src, ...)                                                                 \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = true, .kind = 'f', .prosrc = src, .oid = oid_          \
	}

static const ty_func funcs[] = {
    F("jsonb_concat", 3301, 2, JB, f_jsonb_concat, "jsonb_concat", {JB, JB}),
    F("jsonb_delete", 3302, 2, JB, f_jsonb_delete, "jsonb_delete", {JB, TY_TEXT}),
    F("jsonb_delete", 3303, 2, JB, f_jsonb_delete_idx, "jsonb_delete_idx", {JB, TY_INT4}),
    {.name = "jsonb_delete",
     .nargs = 2,
     .args = {JB, TY_TEXT_ARRAY},
     .ret = JB,
     .fn = f_jsonb_delete_array,
     .volatility = TY_IMMUTABLE,
     .strict = true,
     .kind = 'f',
     .variadic = TY_TEXT,
     .prosrc = "jsonb_delete_array",
     .oid = 3343},
    F("jsonb_delete_path", 3304, 2, JB, f_jsonb_delete_path, "jsonb_delete_path", {JB, TY_TEXT_ARRAY}),
    {.name = "jsonb_set",
     .nargs = 4,
     .args = {JB, TY_TEXT_ARRAY, JB, TY_BOOL},
     .ret = JB,
     .fn = f_jsonb_set,
     .volatility = TY_IMMUTABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "jsonb_set",
     .oid = 3305,
     .nargdefaults = 1},
    {.name = "jsonb_set_lax",
     .nargs = 5,
     .args = {JB, TY_TEXT_ARRAY, JB, TY_BOOL, TY_TEXT},
     .ret = JB,
     .fn = f_jsonb_set_lax,
     .volatility = TY_IMMUTABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "jsonb_set_lax",
     .oid = 5054,
     .nargdefaults = 2},
    {.name = "jsonb_insert",
     .nargs = 4,
     .args = {JB, TY_TEXT_ARRAY, JB, TY_BOOL},
     .ret = JB,
     .fn = f_jsonb_insert,
     .volatility = TY_IMMUTABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "jsonb_insert",
     .oid = 3579,
     .nargdefaults = 1},
    F("jsonb_strip_nulls", 3262, 1, JB, f_jsonb_strip_nulls, "jsonb_strip_nulls", {JB}),
    F("json_strip_nulls", 3261, 1, TY_JSON, f_json_strip_nulls, "json_strip_nulls", {TY_JSON}),
    F("jsonb_pretty", 3306, 1, TY_TEXT, f_jsonb_pretty, "jsonb_pretty", {JB}),
    F("bool", 3556, 1, TY_BOOL, f_jsonb_bool, "jsonb_bool", {JB}),
    F("numeric", 3449, 1, TY_NUMERIC, f_jsonb_numeric, "jsonb_numeric", {JB}),
    F("int2", 3450, 1, TY_INT2, f_jsonb_int2, "jsonb_int2", {JB}),
    F("int4", 3451, 1, TY_INT4, f_jsonb_int4, "jsonb_int4", {JB}),
    F("int8", 3452, 1, TY_INT8, f_jsonb_int8, "jsonb_int8", {JB}),
    F("float4", 3453, 1, TY_FLOAT4, f_jsonb_float4, "jsonb_float4", {JB}),
    F("float8", 2580, 1, TY_FLOAT8, f_jsonb_float8, "jsonb_float8", {JB}),
};

static const ty_operator ops[] = {
    {"||", JB, JB, JB, "jsonb_concat", NULL, NULL, 3284},
    {"-", JB, TY_TEXT, JB, "jsonb_delete", NULL, NULL, 3285},
    {"-", JB, TY_INT4, JB, "jsonb_delete", NULL, NULL, 3286},
    {"-", JB, TY_TEXT_ARRAY, JB, "jsonb_delete", NULL, NULL, 3398},
    {"#-", JB, TY_TEXT_ARRAY, JB, "jsonb_delete_path", NULL, NULL, 3287},
};

static const ty_cast casts[] = {
    {TY_JSON, JB, NULL, 'a', 'i'},       {JB, TY_JSON, NULL, 'a', 'i'},
    {JB, TY_BOOL, "bool", 'e', 'f'},     {JB, TY_NUMERIC, "numeric", 'e', 'f'},
    {JB, TY_INT2, "int2", 'e', 'f'},     {JB, TY_INT4, "int4", 'e', 'f'},
    {JB, TY_INT8, "int8", 'e', 'f'},     {JB, TY_FLOAT4, "float4", 'e', 'f'},
    {JB, TY_FLOAT8, "float8", 'e', 'f'},
};

void json_register_modify(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	ty_operator_register(ops, (int)UTIL_ARRAY_LEN(ops));
	ty_cast_register(casts, (int)UTIL_ARRAY_LEN(casts));
}
