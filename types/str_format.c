/*
 * str_format.c — functions that turn values of any type into text:
 * concat, concat_ws (VARIADIC "any": each argument through its type's
 * output function), format() with %s %I %L %%, positions (%2$s), widths
 * (%10s, %-10s, %*s, %*2$s), and quote_ident / quote_literal /
 * quote_nullable with PostgreSQL's quoting rules.
 */
#include "str_int.h"

#include <stdlib.h>

/* Keywords quote_ident() must quote: every keyword PostgreSQL 15 does not
 * class as unreserved (pg_get_keywords() where catcode <> 'U'), sorted. */
static const char *const quoted_keywords[] = {
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
};

static int cmp_kw(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void ty_quote_ident(const char *s, size_t n, util_buf *out)
{
	bool safe = n > 0 && ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_');
	for (size_t i = 0; i < n && safe; i++) {
		char c = s[i];
		safe = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
	}
	if (safe && n < 64) {
		char word[64];
		memcpy(word, s, n);
		word[n] = '\0';
		const char *key = word;
		safe = !bsearch(&key, quoted_keywords, UTIL_ARRAY_LEN(quoted_keywords),
				sizeof quoted_keywords[0], cmp_kw);
	}
	if (safe) {
		util_buf_append(out, s, n);
		return;
	}
	util_buf_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			util_buf_putc(out, '"');
		util_buf_putc(out, s[i]);
	}
	util_buf_putc(out, '"');
}

void ty_quote_literal(const char *s, size_t n, util_buf *out)
{
	if (memchr(s, '\\', n))
		util_buf_putc(out, 'E');
	util_buf_putc(out, '\'');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\'' || s[i] == '\\')
			util_buf_putc(out, s[i]);
		util_buf_putc(out, s[i]);
	}
	util_buf_putc(out, '\'');
}

static ty_datum buf_text(util_buf *b)
{
	ty_datum r = ty_textn(b->data ? b->data : "", b->len);
	util_buf_free(b);
	return r;
}

static ty_datum f_quote_ident(ty_fcinfo *fc)
{
	util_buf b = UTIL_BUF_INIT;
	ty_quote_ident(STR_ARG(fc, 0), STR_LEN(fc, 0), &b);
	return buf_text(&b);
}

/* quote_literal(anyelement) is `quote_literal($1::text)`. */
static ty_datum arg_as_text(ty_fcinfo *fc, int i)
{
	if (fc->argtypes[i] == TY_TEXT)
		return fc->args[i];
	return ty_cast_value(fc->args[i], fc->argtypes[i], TY_TEXT, TY_TYPMOD_NONE, false);
}

static ty_datum f_quote_literal(ty_fcinfo *fc)
{
	ty_datum v = arg_as_text(fc, 0);
	util_buf b = UTIL_BUF_INIT;
	ty_quote_literal(ty_str_p(v), v.len, &b);
	return buf_text(&b);
}

static ty_datum f_quote_nullable(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_text("NULL");
	return f_quote_literal(fc);
}

/* ---------------------------------------------------------------- concat */

static ty_datum f_concat(ty_fcinfo *fc)
{
	ty_str_sb b = {0};
	for (int i = 0; i < fc->nargs; i++)
		if (!fc->args[i].null)
			ty_str_sb_output(&b, fc->argtypes[i], fc->args[i]);
	return ty_str_sb_datum(&b);
}

static ty_datum f_concat_ws(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_null();
	ty_str_sb b = {0};
	bool first = true;
	for (int i = 1; i < fc->nargs; i++) {
		if (fc->args[i].null)
			continue;
		if (!first)
			ty_str_sb_append(&b, STR_ARG(fc, 0), STR_LEN(fc, 0));
		first = false;
		ty_str_sb_output(&b, fc->argtypes[i], fc->args[i]);
	}
	return ty_str_sb_datum(&b);
}

/* ---------------------------------------------------------------- format */

static UTIL_NORETURN void unterminated(void)
{
	util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
	util_err_hint(e, "For a single \"%%\" use \"%%%%\".");
	ty_errthrow();
}

static UTIL_NORETURN void too_few(void)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "too few arguments for format()");
}

static UTIL_NORETURN void arg_zero(void)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
		 "format specifies argument 0, but arguments are numbered from 1");
}

/* Advances *p, which must stay inside the format string. */
static void advance(const char **p, const char *end)
{
	if (++(*p) >= end)
		unterminated();
}

static bool parse_digits(const char **p, const char *end, int *val)
{
	bool found = false;
	int64_t v = 0;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > INT32_MAX)
			ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "number is out of range");
		advance(p, end);
		found = true;
	}
	*val = (int)v;
	return found;
}

static void append_padded(ty_str_sb *out, const char *s, size_t n, bool minus, int width)
{
	bool left = minus;
	int64_t w = width;
	if (w < 0) {
		if (w <= INT32_MIN)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "number is out of range");
		left = true;
		w = -w;
	}
	int64_t len = w ? (int64_t)ty_str_nchars(s, n) : 0;
	if (!left)
		for (int64_t i = len; i < w; i++)
			ty_str_sb_putc(out, ' ');
	ty_str_sb_append(out, s, n);
	if (left)
		for (int64_t i = len; i < w; i++)
			ty_str_sb_putc(out, ' ');
}

static int width_value(ty_fcinfo *fc, int arg)
{
	ty_datum v = fc->args[arg];
	if (v.null)
		return 0;
	ty_oid t = fc->argtypes[arg];
	if (t == TY_INT4 || t == TY_INT2)
		return (int)v.i;
	/* other types: through their text form and int4's input */
	char *s = ty_output_cstring(t, v);
	ty_datum w = ty_input(TY_INT4, s, strlen(s), TY_TYPMOD_NONE);
	return (int)w.i;
}

static ty_datum f_format(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_null();
	const char *p = STR_ARG(fc, 0), *end = p + STR_LEN(fc, 0);
	ty_str_sb out = {0};
	int arg = 1;
	for (; p < end; p++) {
		if (*p != '%') {
			ty_str_sb_putc(&out, *p);
			continue;
		}
		advance(&p, end);
		if (*p == '%') {
			ty_str_sb_putc(&out, '%');
			continue;
		}
		int argpos = 0, widthpos = -1, width = 0, n;
		bool minus = false;
		if (parse_digits(&p, end, &n)) {
			if (*p != '$') {
				width = n;
				goto conversion;
			}
			if (n == 0)
				arg_zero();
			argpos = n;
			advance(&p, end);
		}
		while (*p == '-') {
			minus = true;
			advance(&p, end);
		}
		if (*p == '*') {
			advance(&p, end);
			if (parse_digits(&p, end, &n)) {
				if (*p != '$')
					ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
						 "width argument position must be ended by \"$\"");
				if (n == 0)
					arg_zero();
				widthpos = n;
				advance(&p, end);
			} else {
				widthpos = 0;
			}
		} else if (parse_digits(&p, end, &n)) {
			width = n;
		}
	conversion:
		if (*p != 's' && *p != 'I' && *p != 'L') {
			int l = UTIL_MIN(ty_str_mblen((uint8_t)*p), (int)(end - p));
			util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
						  "unrecognized format() type specifier \"%.*s\"", l, p);
			util_err_hint(e, "For a single \"%%\" use \"%%%%\".");
			ty_errthrow();
		}
		if (widthpos >= 0) {
			if (widthpos > 0)
				arg = widthpos;
			if (arg >= fc->nargs)
				too_few();
			width = width_value(fc, arg);
			arg++;
		}
		if (argpos > 0)
			arg = argpos;
		if (arg >= fc->nargs)
			too_few();
		ty_datum v = fc->args[arg];
		ty_oid vt = fc->argtypes[arg];
		arg++;
		if (v.null) {
			if (*p == 'I')
				ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED,
					 "null values cannot be formatted as an SQL identifier");
			append_padded(&out, *p == 'L' ? "NULL" : "", *p == 'L' ? 4 : 0, minus, width);
			continue;
		}
		ty_str_sb val = {0};
		ty_str_sb_output(&val, vt, v);
		const char *vs = val.p ? val.p : "";
		if (*p == 's') {
			append_padded(&out, vs, val.len, minus, width);
			continue;
		}
		util_buf q = UTIL_BUF_INIT;
		if (*p == 'I')
			ty_quote_ident(vs, val.len, &q);
		else
			ty_quote_literal(vs, val.len, &q);
		ty_str_sb qs = {0};
		ty_str_sb_append(&qs, q.data, q.len);
		util_buf_free(&q);
		append_padded(&out, qs.p, qs.len, minus, width);
	}
	return ty_str_sb_datum(&out);
}

/* ---------------------------------------------------------------- registration */

#define T   TY_TEXT
#define ANY TY_ANY

static const ty_func format_funcs[] = {
    TY_STR_FN("quote_ident", 1282, T, f_quote_ident, "quote_ident", T),
    TY_STR_FN("quote_literal", 1283, T, f_quote_literal, "quote_literal", T),
    {.name = "quote_literal",
     .nargs = 1,
     .args = {TY_ANYELEMENT},
     .ret = T,
     .fn = f_quote_literal,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "select pg_catalog.quote_literal($1::pg_catalog.text)",
     .oid = 1285},
    {.name = "quote_nullable",
     .nargs = 1,
     .args = {T},
     .ret = T,
     .fn = f_quote_nullable,
     .volatility = TY_IMMUTABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "quote_nullable",
     .oid = 1289},
    {.name = "quote_nullable",
     .nargs = 1,
     .args = {TY_ANYELEMENT},
     .ret = T,
     .fn = f_quote_nullable,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "select pg_catalog.quote_nullable($1::pg_catalog.text)",
     .oid = 1290},
    {.name = "concat",
     .nargs = 1,
     .args = {ANY},
     .ret = T,
     .fn = f_concat,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .variadic = ANY,
     .prosrc = "text_concat",
     .oid = 3058},
    {.name = "concat_ws",
     .nargs = 2,
     .args = {T, ANY},
     .ret = T,
     .fn = f_concat_ws,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .variadic = ANY,
     .prosrc = "text_concat_ws",
     .oid = 3059},
    {.name = "format",
     .nargs = 2,
     .args = {T, ANY},
     .ret = T,
     .fn = f_format,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .variadic = ANY,
     .prosrc = "text_format",
     .oid = 3539},
    {.name = "format",
     .nargs = 1,
     .args = {T},
     .ret = T,
     .fn = f_format,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "text_format_nv",
     .oid = 3540},
};

void ty_str_register_format(void)
{
	ty_func_register(format_funcs, (int)UTIL_ARRAY_LEN(format_funcs));
}
