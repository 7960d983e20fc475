/*
 * arr_text.c — conversions between arrays and delimited text:
 * array_to_string (2 and 3 arguments), string_to_array (2 and 3
 * arguments) and the set-returning string_to_table, with PostgreSQL's
 * NULL handling (NULL delimiter splits into characters, '' keeps the whole
 * string, null_string marks NULL elements).
 */
#include "arr_int.h"

static ty_datum f_array_to_string(ty_fcinfo *fc)
{
	ty_datum a = fc->args[0], sep = fc->args[1];
	if (a.null || sep.null)
		return ty_null();
	bool has_null_str = fc->nargs == 3 && !fc->args[2].null;
	ty_oid elem = ty_array_elemtype(a);
	util_buf out = UTIL_BUF_INIT, item = UTIL_BUF_INIT;
	volatile ty_datum r = ty_null();
	TY_TRY(c)
	{
		ty_array_iter it;
		ty_array_iter_init(&it, a);
		ty_datum e;
		bool printed = false;
		while (ty_array_iter_next(&it, &e)) {
			if (e.null && !has_null_str)
				continue;
			if (printed)
				util_buf_append(&out, sep.p, sep.len);
			if (e.null) {
				util_buf_append(&out, fc->args[2].p, fc->args[2].len);
			} else {
				util_buf_reset(&item);
				ty_output(elem, e, &item);
				util_buf_append(&out, item.data, item.len);
			}
			printed = true;
		}
		r = ty_textn(out.data ? out.data : "", out.len);
	}
	TY_CATCH(c)
	{
		TY_END(c);
		util_buf_free(&out);
		util_buf_free(&item);
		ty_errthrow();
	}
	TY_END(c);
	util_buf_free(&out);
	util_buf_free(&item);
	return r;
}

static size_t utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Splits str by sep (sep NULL: into characters) into text datums. */
static ty_datum *split(ty_datum str, ty_datum sep, ty_datum null_str, int *n)
{
	const char *s = str.p;
	size_t len = str.len;
	*n = 0;
	if (len == 0)
		return NULL;
	size_t cap = 8;
	ty_datum *v = ty_alloc(sizeof *v * cap);
#define ADD(p_, l_)                                                                                          \
	do {                                                                                                 \
		if ((size_t)*n == cap) {                                                                     \
			ty_datum *nv = ty_alloc(sizeof *nv * cap * 2);                                       \
			memcpy(nv, v, sizeof *v *cap);                                                       \
			v = nv;                                                                              \
			cap *= 2;                                                                            \
		}                                                                                            \
		size_t l__ = (l_);                                                                           \
		if (!null_str.null && null_str.len == l__ && memcmp(null_str.p, (p_), l__) == 0)             \
			v[(*n)++] = ty_null();                                                               \
		else                                                                                         \
			v[(*n)++] = ty_textn((p_), l__);                                                     \
	} while (0)
	if (sep.null) {
		for (size_t i = 0; i < len;) {
			size_t l = utf8_len((unsigned char)s[i]);
			if (i + l > len)
				l = len - i;
			ADD(s + i, l);
			i += l;
		}
	} else if (sep.len == 0) {
		ADD(s, len);
	} else {
		size_t start = 0;
		for (size_t i = 0; i + sep.len <= len;) {
			if (memcmp(s + i, sep.p, sep.len) == 0) {
				ADD(s + start, i - start);
				i += sep.len;
				start = i;
			} else {
				i += utf8_len((unsigned char)s[i]);
			}
		}
		ADD(s + start, len - start);
	}
#undef ADD
	return v;
}

static ty_datum f_string_to_array(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_null();
	ty_datum nul = fc->nargs == 3 ? fc->args[2] : ty_null();
	int n;
	ty_datum *v = split(fc->args[0], fc->args[1], nul, &n);
	return ty_array_from_list(TY_TEXT, n, v);
}

typedef struct split_state {
	ty_datum *v;
	int n, i;
} split_state;

typedef struct table_setup {
	ty_fcinfo *fc;
	split_state *st;
} table_setup;

static void table_init(void *arg)
{
	table_setup *ts = arg;
	ty_fcinfo *fc = ts->fc;
	ts->st = ty_alloc0(sizeof *ts->st);
	if (!fc->args[0].null) {
		ty_datum nul = fc->nargs == 3 ? fc->args[2] : ty_null();
		ts->st->v = split(fc->args[0], fc->args[1], nul, &ts->st->n);
	}
}

static ty_datum f_string_to_table(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		table_setup ts = {fc, NULL};
		arr_with_cache_arena(fc, table_init, &ts);
		fc->srf_state = ts.st;
	}
	split_state *st = fc->srf_state;
	if (st->i >= st->n) {
		fc->srf_done = true;
		return ty_null();
	}
	return st->v[st->i++];
}

#define F(nm, oid_, na, ret_, fn_, strict_, set_, src, ...)                                                  \
	{                                                                                                    \
		.name = nm, .nargs = na, .args = __VA_ARGS__, .ret = ret_, .fn = fn_,                        \
		.volatility = TY_IMMUTABLE, .strict = strict_, .retset = set_, .kind = 'f', .prosrc = src,   \
		.oid = oid_                                                                                  \
	}

static const ty_func funcs[] = {
    {.name = "array_to_string",
     .nargs = 2,
     .args = {TY_ANYARRAY, TY_TEXT},
     .ret = TY_TEXT,
     .fn = f_array_to_string,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "array_to_text",
     .oid = 395},
    {.name = "array_to_string",
     .nargs = 3,
     .args = {TY_ANYARRAY, TY_TEXT, TY_TEXT},
     .ret = TY_TEXT,
     .fn = f_array_to_string,
     .volatility = TY_STABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "array_to_text_null",
     .oid = 384},
    F("string_to_array", 394, 2, TY_TEXT_ARRAY, f_string_to_array, false, false, "text_to_array",
      {TY_TEXT, TY_TEXT}),
    F("string_to_array", 376, 3, TY_TEXT_ARRAY, f_string_to_array, false, false, "text_to_array_null",
      {TY_TEXT, TY_TEXT, TY_TEXT}),
    F("string_to_table", 6160, 2, TY_TEXT, f_string_to_table, false, true, "text_to_table",
      {TY_TEXT, TY_TEXT}),
    F("string_to_table", 6161, 3, TY_TEXT, f_string_to_table, false, true, "text_to_table_null",
      {TY_TEXT, TY_TEXT, TY_TEXT}),
};

void arr_register_text(void)
{
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
}
