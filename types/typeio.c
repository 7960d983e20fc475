/* typeio.c — type-dispatching helpers: text I/O, comparison, format_type
 * and run-time casts, on top of the registry. */
#include "array.h"
#include "types_int.h"

#include <string.h>

static const ty_type *must_type(ty_oid oid)
{
	const ty_type *t = ty_type_get(oid);
	if (!t)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "cache lookup failed for type %u", oid);
	return t;
}

static const char *cast_type_name(ty_oid oid, util_buf *b)
{
	util_buf_reset(b);
	ty_format_type(oid, TY_TYPMOD_NONE, b);
	return b->data;
}

ty_datum ty_input(ty_oid type, const char *str, size_t len, int32_t typmod)
{
	const ty_type *t = must_type(type);
	if (!t->in)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot accept a value of type %s", t->name);
	ty_datum d = t->in(str, len, typmod);
	if (typmod >= 0 && t->typmod_apply && !d.null)
		d = t->typmod_apply(d, typmod, false);
	return d;
}

void ty_output(ty_oid type, ty_datum v, util_buf *out)
{
	const ty_type *t = must_type(type);
	if (!t->out)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot display a value of type %s", t->name);
	t->out(v, out);
}

char *ty_output_cstring(ty_oid type, ty_datum v)
{
	util_buf b = UTIL_BUF_INIT;
	ty_output(type, v, &b);
	char *s = ty_strndup(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return s;
}

int ty_compare(ty_oid type, ty_datum a, ty_datum b)
{
	if (a.null || b.null)
		return a.null == b.null ? 0 : a.null ? 1 : -1;
	const ty_type *t = must_type(type);
	if (!t->cmp)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "could not identify a comparison function for type %s", t->name);
	return t->cmp(a, b);
}

bool ty_equal(ty_oid type, ty_datum a, ty_datum b) { return ty_compare(type, a, b) == 0; }

void ty_format_type(ty_oid oid, int32_t typmod, util_buf *out)
{
	const ty_type *t = ty_type_get(oid);
	if (!t) {
		util_buf_puts(out, "???");
		return;
	}
	/* int2vector and oidvector are subscriptable but not "true" arrays. */
	if (t->elem && t->len == -1 && t->category == 'A' && oid != TY_INT2VECTOR && oid != TY_OIDVECTOR) {
		ty_format_type(t->elem, typmod, out);
		util_buf_puts(out, "[]");
		return;
	}
	const char *name = t->sqlname ? t->sqlname : t->name;
	/* format_type spells char(n) "character(n)" but plain bpchar "bpchar". */
	if (oid == TY_BPCHAR && typmod < 0)
		name = t->name;
	/* Time types put the precision before "with/without time zone". */
	if (typmod >= 0 && t->typmod_out &&
	    (oid == TY_TIMESTAMP || oid == TY_TIMESTAMPTZ || oid == TY_TIME || oid == TY_TIMETZ)) {
		const char *sp = strchr(name, ' ');
		util_buf_append(out, name, sp ? (size_t)(sp - name) : strlen(name));
		t->typmod_out(typmod, out);
		if (sp)
			util_buf_puts(out, sp);
		return;
	}
	util_buf_puts(out, name);
	if (typmod >= 0 && t->typmod_out)
		t->typmod_out(typmod, out);
}

static ty_datum apply_typmod(const ty_type *t, ty_datum v, int32_t typmod, bool explicit_cast)
{
	if (typmod >= 0 && t->typmod_apply && !v.null)
		return t->typmod_apply(v, typmod, explicit_cast);
	return v;
}

/* The argument type of a cast's function: the source type itself, else a
 * type the source is binary-coercible to, else one of the same category.
 * PostgreSQL's pg_cast names functions whose argument is only
 * representation-compatible with the source: varchar -> "char" and
 * bpchar -> "char" both go through "char"(text). */
static ty_oid cast_func_arg(const char *func, ty_oid source)
{
	int cur = 0;
	const ty_func *f;
	ty_oid binary = 0, same_cat = 0;
	const ty_type *st = ty_type_get(source);
	while ((f = ty_func_lookup(func, &cur))) {
		if (f->nargs != 1)
			continue;
		if (f->args[0] == source)
			return source;
		const ty_cast *b = ty_cast_lookup(source, f->args[0]);
		const ty_type *at = ty_type_get(f->args[0]);
		if (b && b->method == 'b')
			binary = f->args[0];
		else if (st && at && st->category == at->category)
			same_cat = f->args[0];
	}
	return binary ? binary : same_cat ? same_cat : source;
}

static ty_datum io_cast(ty_datum v, const ty_type *src, const ty_type *dst, int32_t typmod)
{
	util_buf b = UTIL_BUF_INIT;
	TY_TRY(c)
	{
		src->out(v, &b);
		v = dst->in(b.data ? b.data : "", b.len, typmod);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&b);
		ty_errthrow();
	}
	TY_END(c);
	util_buf_free(&b);
	return v;
}

ty_datum ty_cast_value(ty_datum v, ty_oid source, ty_oid target, int32_t typmod, bool explicit_cast)
{
	const ty_type *dst = must_type(target);
	if (v.null)
		return v;
	if (source == target)
		return apply_typmod(dst, v, typmod, explicit_cast);
	const ty_type *src = must_type(source);
	const ty_cast *c = ty_cast_lookup(source, target);
	if (c) {
		if (c->method == 'b')
			return apply_typmod(dst, v, typmod, explicit_cast);
		if (c->method == 'f') {
			ty_oid argt = cast_func_arg(c->func, source);
			ty_datum r = ty_call(c->func, 1, &argt, &v);
			return apply_typmod(dst, r, typmod, explicit_cast);
		}
		return apply_typmod(dst, io_cast(v, src, dst, TY_TYPMOD_NONE), typmod, explicit_cast);
	}
	/* Arrays cast element by element (PostgreSQL's array coercion:
	 * text[]::int[]); the target typmod applies to each element. */
	if (src->category == 'A' && dst->category == 'A' && src->elem && dst->elem)
		return ty_array_coerce(v, target, typmod, explicit_cast);
	/* Unknown literals and string types convert through text I/O, as
	 * PostgreSQL's automatic I/O conversion casts do. */
	if (source == TY_UNKNOWN || src->category == 'S' || dst->category == 'S')
		if (src->out && dst->in)
			return apply_typmod(dst, io_cast(v, src, dst, TY_TYPMOD_NONE), typmod, explicit_cast);
	util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	cast_type_name(source, &a);
	cast_type_name(target, &b);
	util_err *e = ty_errstart(UTIL_E_CANNOT_COERCE, "cannot cast type %s to %s", a.data, b.data);
	(void)e;
	util_buf_free(&a);
	util_buf_free(&b);
	ty_errthrow();
}
