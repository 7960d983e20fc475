/*
 * json_build.c — SQL values to JSON, as PostgreSQL's json.c/jsonb.c
 * datum_to_json(b): to_json, to_jsonb, row_to_json, array_to_json,
 * json(b)_build_object, json(b)_build_array (VARIADIC "any"), and
 * json(b)_object from text arrays. Value categories: booleans and numbers
 * (int2/4/8, float4/8, numeric) unquoted when the text is a JSON number,
 * date/timestamp/timestamptz in ISO 8601 ("2024-01-01T10:00:00"), json as
 * is, jsonb as its text, arrays as (nested) JSON arrays, records as
 * objects, everything else as a JSON string of its text output.
 */
#include "json_int.h"

#include <stdio.h>

typedef enum jcat {
	JC_BOOL,
	JC_NUMERIC,
	JC_DATE,
	JC_TIMESTAMP,
	JC_TIMESTAMPTZ,
	JC_JSON,
	JC_JSONB,
	JC_ARRAY,
	JC_COMPOSITE,
	JC_OTHER
} jcat;

static jcat categorize(ty_oid t)
{
	switch (t) {
	case TY_BOOL:
		return JC_BOOL;
	case TY_INT2:
	case TY_INT4:
	case TY_INT8:
	case TY_FLOAT4:
	case TY_FLOAT8:
	case TY_NUMERIC:
		return JC_NUMERIC;
	case TY_DATE:
		return JC_DATE;
	case TY_TIMESTAMP:
		return JC_TIMESTAMP;
	case TY_TIMESTAMPTZ:
		return JC_TIMESTAMPTZ;
	case TY_JSON:
		return JC_JSON;
	case TY_JSONB:
		return JC_JSONB;
	case TY_RECORD:
		return JC_COMPOSITE;
	default:
		break;
	}
	const ty_type *ty = ty_type_get(t);
	if (ty && ty->category == 'A' && ty->elem && ty->len == -1)
		return JC_ARRAY;
	if (ty && ty->typtype == 'c')
		return JC_COMPOSITE;
	return JC_OTHER;
}

/* IsValidJsonNumber: the whole text is one JSON number. */
static bool valid_json_number(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0') {
		i++;
	} else if (i < n && s[i] >= '1' && s[i] <= '9') {
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	} else {
		return false;
	}
	if (i < n && s[i] == '.') {
		i++;
		if (i == n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i == n || s[i] < '0' || s[i] > '9')
			return false;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

/* Appends the text output of v, in ISO 8601 form for date/time types
 * (PostgreSQL's JsonEncodeDateTime: 'T' between date and time, zone as
 * +HH:MM). */
static void datetime_text(ty_oid t, ty_datum v, util_buf *out)
{
	ty_settings s = *ty_get_settings();
	s.datestyle = TY_DATES_ISO;
	const ty_settings *old = ty_set_settings(&s);
	size_t start = out->len;
	TY_TRY(c)
	{
		ty_output(t, v, out);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		ty_set_settings(old);
		ty_errthrow();
	}
	TY_END(c);
	ty_set_settings(old);
	if (t == TY_DATE)
		return;
	char *p = out->data + start;
	size_t n = out->len - start;
	char *sp = memchr(p, ' ', n);
	if (!sp || sp + 1 >= p + n || sp[1] < '0' || sp[1] > '9')
		return; /* infinity */
	*sp = 'T';
	if (t != TY_TIMESTAMPTZ)
		return;
	/* Zone after the seconds: "+05" -> "+05:00" (before any " BC"). */
	char *bc = (n > 3 && memcmp(p + n - 3, " BC", 3) == 0) ? p + n - 3 : p + n;
	char *z = bc;
	while (z > sp && *z != '+' && *z != '-')
		z--;
	if (z > sp && bc - z == 3) {
		size_t zi = (size_t)(z - out->data) + 3;
		util_buf_append(out, ":00", 3);
		memmove(out->data + zi + 3, out->data + zi, out->len - 3 - zi);
		memcpy(out->data + zi, ":00", 3);
	}
}

/* ---------------------------------------------------------------- json text */

static void to_json_rec(ty_datum v, ty_oid t, util_buf *out, bool key_scalar, int depth);

static void key_error(void)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "key value must be scalar, not array, composite, or json");
}

static void array_json_rec(const ty_datum *vals, int *k, int dim, int nd, const int *dims, ty_oid elem,
			   util_buf *out, bool pretty, int depth)
{
	util_buf_putc(out, '[');
	for (int i = 0; i < dims[dim]; i++) {
		if (i)
			util_buf_puts(out, pretty && dim == 0 ? ",\n " : ",");
		if (dim + 1 < nd) {
			array_json_rec(vals, k, dim + 1, nd, dims, elem, out, false, depth);
		} else {
			to_json_rec(vals[*k], elem, out, false, depth + 1);
			(*k)++;
		}
	}
	util_buf_putc(out, ']');
}

static void array_to_json_buf(ty_datum a, util_buf *out, bool pretty, int depth)
{
	int nd = ty_array_ndim(a);
	if (nd == 0) {
		util_buf_puts(out, "[]");
		return;
	}
	int n, k = 0, dims[TY_ARRAY_MAXDIM];
	for (int i = 0; i < nd; i++)
		dims[i] = ty_array_dim(a, i);
	ty_datum *vals = ty_array_deconstruct(a, &n);
	array_json_rec(vals, &k, 0, nd, dims, ty_array_elemtype(a), out, pretty, depth);
}

static void record_to_json_buf(ty_datum v, util_buf *out, bool pretty, int depth)
{
	const ty_record *r = v.p;
	util_buf_putc(out, '{');
	for (int i = 0; i < r->n; i++) {
		if (i)
			util_buf_puts(out, pretty ? ",\n " : ",");
		char name[32];
		const char *nm = r->names && r->names[i] ? r->names[i] : NULL;
		if (!nm) {
			snprintf(name, sizeof name, "f%d", i + 1);
			nm = name;
		}
		json_escape(out, nm, strlen(nm));
		util_buf_putc(out, ':');
		to_json_rec(r->vals[i], r->types[i], out, false, depth + 1);
	}
	util_buf_putc(out, '}');
}

static void to_json_rec(ty_datum v, ty_oid t, util_buf *out, bool key_scalar, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (v.null) {
		util_buf_puts(out, "null");
		return;
	}
	jcat cat = categorize(t);
	if (key_scalar && (cat == JC_ARRAY || cat == JC_COMPOSITE || cat == JC_JSON || cat == JC_JSONB))
		key_error();
	size_t start = out->len;
	switch (cat) {
	case JC_BOOL:
		if (key_scalar)
			util_buf_puts(out, v.i ? "\"true\"" : "\"false\"");
		else
			util_buf_puts(out, v.i ? "true" : "false");
		return;
	case JC_NUMERIC: {
		ty_output(t, v, out);
		size_t n = out->len - start;
		if (key_scalar || !valid_json_number(out->data + start, n)) {
			char *s = ty_strndup(out->data + start, n);
			out->len = start;
			json_escape(out, s, n);
		}
		return;
	}
	case JC_DATE:
	case JC_TIMESTAMP:
	case JC_TIMESTAMPTZ: {
		datetime_text(t, v, out);
		size_t n = out->len - start;
		char *s = ty_strndup(out->data + start, n);
		out->len = start;
		json_escape(out, s, n);
		return;
	}
	case JC_JSON:
		util_buf_append(out, v.p, v.len);
		return;
	case JC_JSONB:
		jsonb_out_buf(v, out);
		return;
	case JC_ARRAY:
		array_to_json_buf(v, out, false, depth);
		return;
	case JC_COMPOSITE:
		record_to_json_buf(v, out, false, depth);
		return;
	default: {
		ty_output(t, v, out);
		size_t n = out->len - start;
		char *s = ty_strndup(out->data + start, n);
		out->len = start;
		json_escape(out, s, n);
		return;
	}
	}
}

/* Runs fill(out, arg) on a heap buffer and returns it as a text datum;
 * the buffer is freed on error too. */
static ty_datum with_buf(void (*fill)(util_buf *out, void *arg), void *arg)
{
	util_buf b = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		fill(&b, arg);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

typedef struct one_arg {
	ty_datum v;
	ty_oid t;
	bool pretty;
} one_arg;

static void fill_to_json(util_buf *out, void *arg)
{
	one_arg *a = arg;
	to_json_rec(a->v, a->t, out, false, 0);
}

void ty_to_json_text(ty_oid type, ty_datum v, util_buf *out)
{
	to_json_rec(v, type, out, false, 0);
}

static ty_oid arg_type(const ty_fcinfo *fc, int i)
{
	ty_oid t = fc->argtypes ? fc->argtypes[i] : 0;
	if (!t || t == TY_ANYELEMENT || t == TY_ANY || t == TY_ANYARRAY) {
		if (t == TY_ANYARRAY && !fc->args[i].null)
			return ty_array_type_of(ty_array_elemtype(fc->args[i]));
		ty_error(UTIL_E_INDETERMINATE_DATATYPE, "could not determine data type of argument %d",
			 i + 1);
	}
	return t;
}

static ty_datum f_to_json(ty_fcinfo *fc)
{
	one_arg a = {fc->args[0], arg_type(fc, 0), false};
	return with_buf(fill_to_json, &a);
}

static void fill_array_to_json(util_buf *out, void *arg)
{
	one_arg *a = arg;
	array_to_json_buf(a->v, out, a->pretty, 0);
}

static ty_datum f_array_to_json(ty_fcinfo *fc)
{
	one_arg a = {fc->args[0], 0, fc->nargs > 1 && fc->args[1].i};
	return with_buf(fill_array_to_json, &a);
}

static void fill_row_to_json(util_buf *out, void *arg)
{
	one_arg *a = arg;
	record_to_json_buf(a->v, out, a->pretty, 0);
}

static ty_datum f_row_to_json(ty_fcinfo *fc)
{
	one_arg a = {fc->args[0], TY_RECORD, fc->nargs > 1 && fc->args[1].i};
	return with_buf(fill_row_to_json, &a);
}

/* json_build_object / json_build_array: '{"a" : 1, "b" : 2}', '[1, 2]'. */
static void check_pairs(const ty_fcinfo *fc, const char *fname)
{
	if (fc->nargs % 2 != 0) {
		util_err *e =
		    ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "argument list must have even number of "
								"elements");
		util_err_hint(e, "The arguments of %s() must consist of alternating keys and values.", fname);
		ty_errthrow();
	}
}

static void fill_build_object(util_buf *out, void *arg)
{
	ty_fcinfo *fc = arg;
	util_buf_putc(out, '{');
	for (int i = 0; i < fc->nargs; i += 2) {
		if (i)
			util_buf_puts(out, ", ");
		if (fc->args[i].null) {
			util_err *e =
			    ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "argument %d cannot be null", i + 1);
			util_err_hint(e, "Object keys should be text.");
			ty_errthrow();
		}
		to_json_rec(fc->args[i], arg_type(fc, i), out, true, 0);
		util_buf_puts(out, " : ");
		to_json_rec(fc->args[i + 1], arg_type(fc, i + 1), out, false, 0);
	}
	util_buf_putc(out, '}');
}

static ty_datum f_json_build_object(ty_fcinfo *fc)
{
	check_pairs(fc, "json_build_object");
	return with_buf(fill_build_object, fc);
}

static void fill_build_array(util_buf *out, void *arg)
{
	ty_fcinfo *fc = arg;
	util_buf_putc(out, '[');
	for (int i = 0; i < fc->nargs; i++) {
		if (i)
			util_buf_puts(out, ", ");
		to_json_rec(fc->args[i], arg_type(fc, i), out, false, 0);
	}
	util_buf_putc(out, ']');
}

static ty_datum f_json_build_array(ty_fcinfo *fc)
{
	return with_buf(fill_build_array, fc);
}
static ty_datum f_json_build_object_noargs(ty_fcinfo *fc)
{
	(void)fc;
	return ty_text("{}");
}
static ty_datum f_json_build_array_noargs(ty_fcinfo *fc)
{
	(void)fc;
	return ty_text("[]");
}

/* ---------------------------------------------------------------- jsonb */

static jv *to_jv_rec(ty_datum v, ty_oid t, bool key_scalar, int depth);

static jv *text_jv(const char *s, size_t n)
{
	return jv_string(ty_strndup(s, n), n);
}

static jv *array_jv_rec(const ty_datum *vals, int *k, int dim, int nd, const int *dims, ty_oid elem,
			int depth)
{
	jv *a = jv_new(JV_ARRAY);
	a->n = (uint32_t)dims[dim];
	a->kids = ty_alloc(sizeof *a->kids * (size_t)(a->n ? a->n : 1));
	for (int i = 0; i < dims[dim]; i++) {
		jv *e;
		if (dim + 1 < nd) {
			e = array_jv_rec(vals, k, dim + 1, nd, dims, elem, depth);
		} else {
			e = to_jv_rec(vals[*k], elem, false, depth + 1);
			(*k)++;
		}
		a->kids[i] = *e;
	}
	return a;
}

static jv *to_jv_rec(ty_datum v, ty_oid t, bool key_scalar, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (v.null)
		return jv_new(JV_NULL);
	jcat cat = categorize(t);
	if (key_scalar && (cat == JC_ARRAY || cat == JC_COMPOSITE || cat == JC_JSON || cat == JC_JSONB))
		key_error();
	util_buf b = UTIL_BUF_INIT;
	jv *r = NULL;
	switch (cat) {
	case JC_BOOL:
		return key_scalar ? jv_string(v.i ? "true" : "false", v.i ? 4 : 5) : jv_bool(v.i != 0);
	case JC_JSON:
		return json_parse_tree(v.p, v.len, true);
	case JC_JSONB:
		return jsonb_to_jv(v);
	case JC_ARRAY: {
		int nd = ty_array_ndim(v);
		if (nd == 0)
			return jv_new(JV_ARRAY);
		int n, k = 0, dims[TY_ARRAY_MAXDIM];
		for (int i = 0; i < nd; i++)
			dims[i] = ty_array_dim(v, i);
		ty_datum *vals = ty_array_deconstruct(v, &n);
		return array_jv_rec(vals, &k, 0, nd, dims, ty_array_elemtype(v), depth);
	}
	case JC_COMPOSITE: {
		const ty_record *rec = v.p;
		jv *o = jv_new(JV_OBJECT);
		o->n = (uint32_t)rec->n;
		o->kids = ty_alloc(sizeof *o->kids * 2 * (size_t)(rec->n ? rec->n : 1));
		for (int i = 0; i < rec->n; i++) {
			char name[32];
			const char *nm = rec->names && rec->names[i] ? rec->names[i] : NULL;
			if (!nm) {
				snprintf(name, sizeof name, "f%d", i + 1);
				nm = name;
			}
			o->kids[2 * i] = *text_jv(nm, strlen(nm));
			o->kids[2 * i + 1] = *to_jv_rec(rec->vals[i], rec->types[i], false, depth + 1);
		}
		jv_normalize(o, false);
		return o;
	}
	default:
		break;
	}
	/* Text-based categories; the buffer is freed on error. */
	TY_TRY(c)
	{
		if (cat == JC_DATE || cat == JC_TIMESTAMP || cat == JC_TIMESTAMPTZ)
			datetime_text(t, v, &b);
		else
			ty_output(t, v, &b);
		const char *s = b.data ? b.data : "";
		if (cat == JC_NUMERIC && !key_scalar && valid_json_number(s, b.len)) {
			uint32_t l;
			const char *canon = json_number_canon(s, b.len, &l);
			r = jv_number(canon, l);
		} else {
			r = text_jv(s, b.len);
		}
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	util_buf_free(&b);
	return r;
}

ty_datum ty_to_jsonb(ty_oid type, ty_datum v)
{
	return jv_to_jsonb(to_jv_rec(v, type, false, 0));
}

jv *json_datum_to_jv(ty_datum v, ty_oid type, bool key)
{
	return to_jv_rec(v, type, key, 0);
}

static ty_datum f_to_jsonb(ty_fcinfo *fc)
{
	return ty_to_jsonb(arg_type(fc, 0), fc->args[0]);
}

static ty_datum f_jsonb_build_object(ty_fcinfo *fc)
{
	check_pairs(fc, "jsonb_build_object");
	jv *o = jv_new(JV_OBJECT);
	o->n = (uint32_t)fc->nargs / 2;
	o->kids = ty_alloc(sizeof *o->kids * (size_t)(fc->nargs ? fc->nargs : 1));
	for (int i = 0; i < fc->nargs; i += 2) {
		if (fc->args[i].null)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "argument %d: key must not be null", i + 1);
		o->kids[i] = *to_jv_rec(fc->args[i], arg_type(fc, i), true, 0);
		o->kids[i + 1] = *to_jv_rec(fc->args[i + 1], arg_type(fc, i + 1), false, 0);
	}
	jv_normalize(o, false);
	return jv_to_jsonb(o);
}

static ty_datum f_jsonb_build_array(ty_fcinfo *fc)
{
	jv *a = jv_new(JV_ARRAY);
	a->n = (uint32_t)fc->nargs;
	a->kids = ty_alloc(sizeof *a->kids * (size_t)(fc->nargs ? fc->nargs : 1));
	for (int i = 0; i < fc->nargs; i++)
		a->kids[i] = *to_jv_rec(fc->args[i], arg_type(fc, i), false, 0);
	return jv_to_jsonb(a);
}

static ty_datum f_jsonb_build_object_noargs(ty_fcinfo *fc)
{
	(void)fc;
	return jv_to_jsonb(jv_new(JV_OBJECT));
}

static ty_datum f_jsonb_build_array_noargs(ty_fcinfo *fc)
{
	(void)fc;
	return jv_to_jsonb(jv_new(JV_ARRAY));
}

/* ---------------------------------------------------------------- json_object */

static UTIL_NORETURN void subscript_error(const char *msg)
{
	ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "%s", msg);
}

/* Keys and values (as text, NULL allowed for values) of json_object's
 * one- or two-argument forms; returns the number of pairs. */
static int object_pairs(const ty_fcinfo *fc, ty_datum **keys, ty_datum **vals)
{
	int n;
	if (fc->nargs == 1) {
		ty_datum a = fc->args[0];
		int nd = ty_array_ndim(a);
		ty_datum *all = ty_array_deconstruct(a, &n);
		if (nd == 0)
			return 0;
		if (nd == 1) {
			if (n % 2)
				subscript_error("array must have even number of elements");
		} else if (nd == 2) {
			if (ty_array_dim(a, 1) != 2)
				subscript_error("array must have two columns");
		} else {
			subscript_error("wrong number of array subscripts");
		}
		int np = n / 2;
		*keys = ty_alloc(sizeof **keys * (size_t)np);
		*vals = ty_alloc(sizeof **vals * (size_t)np);
		for (int i = 0; i < np; i++) {
			(*keys)[i] = all[2 * i];
			(*vals)[i] = all[2 * i + 1];
		}
		n = np;
	} else {
		ty_datum k = fc->args[0], v = fc->args[1];
		if (ty_array_ndim(k) > 1 || ty_array_ndim(v) > 1)
			subscript_error("wrong number of array subscripts");
		int nk, nv;
		*keys = ty_array_deconstruct(k, &nk);
		*vals = ty_array_deconstruct(v, &nv);
		if (nk != nv)
			subscript_error("mismatched array dimensions");
		n = nk;
	}
	for (int i = 0; i < n; i++)
		if ((*keys)[i].null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "null value not allowed for object key");
	return n;
}

typedef struct obj_pairs {
	ty_datum *k, *v;
	int n;
} obj_pairs;

static void fill_json_object(util_buf *out, void *arg)
{
	obj_pairs *p = arg;
	util_buf_putc(out, '{');
	for (int i = 0; i < p->n; i++) {
		if (i)
			util_buf_puts(out, ", ");
		json_escape(out, p->k[i].p, p->k[i].len);
		util_buf_puts(out, " : ");
		if (p->v[i].null)
			util_buf_puts(out, "null");
		else
			json_escape(out, p->v[i].p, p->v[i].len);
	}
	util_buf_putc(out, '}');
}

static ty_datum f_json_object(ty_fcinfo *fc)
{
	obj_pairs p;
	p.n = object_pairs(fc, &p.k, &p.v);
	return with_buf(fill_json_object, &p);
}

static ty_datum f_jsonb_object(ty_fcinfo *fc)
{
	obj_pairs p;
	p.n = object_pairs(fc, &p.k, &p.v);
	jv *o = jv_new(JV_OBJECT);
	o->n = (uint32_t)p.n;
	o->kids = ty_alloc(sizeof *o->kids * 2 * (size_t)(p.n ? p.n : 1));
	for (int i = 0; i < p.n; i++) {
		o->kids[2 * i] = *jv_string(p.k[i].p, p.k[i].len);
		o->kids[2 * i + 1] = p.v[i].null ? *jv_new(JV_NULL) : *jv_string(p.v[i].p, p.v[i].len);
	}
	jv_normalize(o, false);
	return jv_to_jsonb(o);
}

#define F(nm, oid_, na, ret_, fn_, vol, strict_, src, ...)                                                   \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_, .volatility = vol,     \
		.strict = strict_, .kind = 'f', .prosrc = src, .oid = oid_                                   \
	}
#define FANY(nm, oid_, ret_, fn_, src)                                                                       \
	{                                                                                                    \
		.name = nm, .nargs = 1, .args = {TY_ANY}, .ret = ret_, .fn = fn_, .volatility = TY_STABLE,   \
		.strict = false, .kind = 'f', .variadic = TY_ANY, .prosrc = src, .oid = oid_                 \
	}

static const ty_func funcs[] = {
    F("to_json", 3176, 1, TY_JSON, f_to_json, TY_STABLE, true, "to_json", {TY_ANYELEMENT}),
    F("to_jsonb", 3787, 1, TY_JSONB, f_to_jsonb, TY_STABLE, true, "to_jsonb", {TY_ANYELEMENT}),
    F("array_to_json", 3153, 1, TY_JSON, f_array_to_json, TY_STABLE, true, "array_to_json", {TY_ANYARRAY}),
    F("array_to_json", 3154, 2, TY_JSON, f_array_to_json, TY_STABLE, true, "array_to_json_pretty",
      {TY_ANYARRAY, TY_BOOL}),
    F("row_to_json", 3155, 1, TY_JSON, f_row_to_json, TY_STABLE, true, "row_to_json", {TY_RECORD}),
    F("row_to_json", 3156, 2, TY_JSON, f_row_to_json, TY_STABLE, true, "row_to_json_pretty",
      {TY_RECORD, TY_BOOL}),
    FANY("json_build_object", 3200, TY_JSON, f_json_build_object, "json_build_object"),
    F("json_build_object", 3201, 0, TY_JSON, f_json_build_object_noargs, TY_STABLE, false,
      "json_build_object_noargs", {0}),
    FANY("json_build_array", 3198, TY_JSON, f_json_build_array, "json_build_array"),
    F("json_build_array", 3199, 0, TY_JSON, f_json_build_array_noargs, TY_STABLE, false,
      "json_build_array_noargs", {0}),
    FANY("jsonb_build_object", 3273, TY_JSONB, f_jsonb_build_object, "jsonb_build_object"),
    F("jsonb_build_object", 3274, 0, TY_JSONB, f_jsonb_build_object_noargs, TY_STABLE, false,
      "jsonb_build_object_noargs", {0}),
    FANY("jsonb_build_array", 3271, TY_JSONB, f_jsonb_build_array, "jsonb_build_array"),
    F("jsonb_build_array", 3272, 0, TY_JSONB, f_jsonb_build_array_noargs, TY_STABLE, false,
      "jsonb_build_array_noargs", {0}),
    F("json_object", 3202, 1, TY_JSON, f_json_object, TY_IMMUTABLE, true, "json_object", {TY_TEXT_ARRAY}),
    F("json_object", 3203, 2, TY_JSON, f_json_object, TY_IMMUTABLE, true, "json_object_two_arg",
      {TY_TEXT_ARRAY, TY_TEXT_ARRAY}),
    F("jsonb_object", 3263, 1, TY_JSONB, f_jsonb_object, TY_IMMUTABLE, true, "jsonb_object", {TY_TEXT_ARRAY}),
    F("jsonb_object", 3264, 2, TY_JSONB, f_jsonb_object, TY_IMMUTABLE, true, "jsonb_object_two_arg",
      {TY_TEXT_ARRAY, TY_TEXT_ARRAY}),
};

void json_register_build(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
