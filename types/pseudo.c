/* pseudo.c — pseudo-types (unknown, cstring, void, record, any*, internal,
 * trigger) and record text output, which needs no other area. */
#include "types_int.h"

#include <string.h>

#include "array.h"

/* record_cmp: field by field with each field's own order, NULL after any
 * value (PostgreSQL's btree record_cmp); different field types or counts
 * are errors, as there. */
static int record_cmp(ty_datum a, ty_datum b)
{
	const ty_record *x = a.p, *y = b.p;
	int n = x->n < y->n ? x->n : y->n;
	for (int i = 0; i < n; i++) {
		if (x->types[i] != y->types[i] && !x->vals[i].null && !y->vals[i].null)
			ty_error(UTIL_E_DATATYPE_MISMATCH, "cannot compare dissimilar column types %s and %s at record column %d",
				 ty_type_get(x->types[i]) ? ty_type_get(x->types[i])->name : "?",
				 ty_type_get(y->types[i]) ? ty_type_get(y->types[i])->name : "?", i + 1);
		int c = ty_compare(x->types[i], x->vals[i], y->vals[i]);
		if (c)
			return c;
	}
	if (x->n != y->n)
		ty_error(UTIL_E_DATATYPE_MISMATCH, "cannot compare record types with different numbers of columns");
	return 0;
}

/* Consistent with record_cmp: equal records hash their equal fields. */
static uint64_t record_hash(ty_datum a)
{
	const ty_record *x = a.p;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)x->n;
	for (int i = 0; i < x->n; i++) {
		const ty_type *t = ty_type_get(x->types[i]);
		uint64_t f = x->vals[i].null || !t || !t->hash ? 0 : t->hash(x->vals[i]);
		h = (h ^ f) * 0x100000001b3ull + (uint64_t)i;
	}
	return h;
}

static ty_datum unknown_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	return ty_textn(s, n);
}

static void unknown_out(ty_datum v, util_buf *out) { util_buf_append(out, v.p, v.len); }

static void void_out(ty_datum v, util_buf *out)
{
	(void)v;
	(void)out;
}

/* record_out: "(a,b)" with PostgreSQL's quoting: a field is quoted when
 * empty or when it contains quote, backslash, parenthesis, comma or space;
 * quotes and backslashes inside are doubled. NULL is an empty field. */
static void record_out(ty_datum v, util_buf *out)
{
	const ty_record *r = v.p;
	util_buf field = UTIL_BUF_INIT;
	util_buf_putc(out, '(');
	for (int i = 0; i < r->n; i++) {
		if (i)
			util_buf_putc(out, ',');
		if (r->vals[i].null)
			continue;
		util_buf_reset(&field);
		ty_output(r->types[i], r->vals[i], &field);
		bool quote = field.len == 0;
		for (size_t k = 0; k < field.len && !quote; k++)
			quote = strchr("\"\\(), \t\n\r\v\f", field.data[k]) != NULL;
		if (!quote) {
			util_buf_append(out, field.data, field.len);
			continue;
		}
		util_buf_putc(out, '"');
		for (size_t k = 0; k < field.len; k++) {
			char c = field.data[k];
			if (c == '"' || c == '\\')
				util_buf_putc(out, c);
			util_buf_putc(out, c);
		}
		util_buf_putc(out, '"');
	}
	util_buf_putc(out, ')');
	util_buf_free(&field);
}

/* anyarray_out: an anyarray column (pg_stats) holds arrays of any element
 * type; print each as its own array type. */
static void anyarray_out(ty_datum v, util_buf *out)
{
	ty_oid at = ty_array_type_of(ty_array_elemtype(v));
	if (at)
		ty_output(at, v, out);
}

static const ty_type pseudo_types[] = {
	{.oid = TY_UNKNOWN, .name = "unknown", .len = -2, .category = 'X', .typtype = 'p', .align = 'c',
	 .in = unknown_in, .out = unknown_out, .input_name = "unknownin", .output_name = "unknownout"},
	{.oid = TY_CSTRING, .name = "cstring", .len = -2, .category = 'P', .typtype = 'p', .align = 'c',
	 .array = TY_CSTRING_ARRAY, .in = unknown_in, .out = unknown_out, .input_name = "cstring_in",
	 .output_name = "cstring_out"},
	{.oid = TY_VOID, .name = "void", .len = 4, .byval = true, .category = 'P', .typtype = 'p', .align = 'i',
	 .out = void_out, .input_name = "void_in", .output_name = "void_out"},
	{.oid = TY_RECORD, .name = "record", .len = -1, .category = 'P', .typtype = 'p', .align = 'd',
	 .array = TY_RECORD_ARRAY, .out = record_out, .cmp = record_cmp, .hash = record_hash, .input_name = "record_in", .output_name = "record_out"},
	{.oid = TY_ANY, .name = "any", .len = 4, .byval = true, .category = 'P', .typtype = 'p', .align = 'i'},
	{.oid = TY_ANYELEMENT, .name = "anyelement", .len = 4, .byval = true, .category = 'P', .typtype = 'p',
	 .align = 'i'},
	{.oid = TY_ANYARRAY, .name = "anyarray", .len = -1, .category = 'P', .typtype = 'p', .align = 'd',
	 .out = anyarray_out, .output_name = "anyarray_out"},
	{.oid = TY_ANYNONARRAY, .name = "anynonarray", .len = 4, .byval = true, .category = 'P', .typtype = 'p',
	 .align = 'i'},
	{.oid = TY_ANYCOMPATIBLE, .name = "anycompatible", .len = 4, .byval = true, .category = 'P',
	 .typtype = 'p', .align = 'i'},
	{.oid = TY_ANYCOMPATIBLEARRAY, .name = "anycompatiblearray", .len = -1, .category = 'P', .typtype = 'p',
	 .align = 'd'},
	{.oid = TY_ANYCOMPATIBLENONARRAY, .name = "anycompatiblenonarray", .len = 4, .byval = true,
	 .category = 'P', .typtype = 'p', .align = 'i'},
	{.oid = TY_ANYENUM, .name = "anyenum", .len = 4, .byval = true, .category = 'P', .typtype = 'p',
	 .align = 'i'},
	{.oid = TY_INTERNAL, .name = "internal", .len = 8, .byval = true, .category = 'P', .typtype = 'p',
	 .align = 'd'},
	{.oid = TY_TRIGGER, .name = "trigger", .len = 4, .byval = true, .category = 'P', .typtype = 'p',
	 .align = 'i'},
};

void ty_register_pseudo(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(pseudo_types); i++)
		ty_type_register(&pseudo_types[i]);
}
