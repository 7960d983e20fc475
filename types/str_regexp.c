/*
 * str_regexp.c — the SQL face of regular expressions: the ~ ~* !~ !~*
 * operators on text, bpchar and name, SIMILAR TO (similar_to_escape) and
 * substring(... from pattern [for escape]), and the regexp_* functions
 * (replace, match, matches, split_to_array/table, count, instr, like,
 * substr) with PostgreSQL's argument checks and messages.
 *
 * Compiled patterns are cached per call site (fcinfo->cache): the first
 * pattern seen there is compiled into the plan's cache arena and reused
 * while the pattern stays the same; other patterns are compiled into the
 * current arena, so a column of varying patterns cannot grow the cache.
 */
#include "regex_int.h"

#if __has_include("array.h")
#include "array.h"
#define HAVE_ARRAYS 1
#else
#define HAVE_ARRAYS 0
#endif

typedef struct re_cache {
	char *pat;
	size_t len;
	int cflags;
	ty_regex *re;
} re_cache;

static const ty_regex *get_regex(ty_fcinfo *fc, const char *pat, size_t len, int cflags)
{
	re_cache *c = fc->cache ? *fc->cache : NULL;
	if (c && c->len == len && c->cflags == cflags && memcmp(c->pat, pat, len) == 0)
		return c->re;
	if (!c && fc->cache && fc->cache_arena) {
		ty_regex *re = ty_regex_compile(pat, len, cflags, fc->cache_arena);
		c = util_arena_zalloc(fc->cache_arena, sizeof *c);
		char *copy = util_arena_memdup(fc->cache_arena, len ? pat : "", len + 1);
		if (c && copy) {
			c->pat = copy;
			c->len = len;
			c->cflags = cflags;
			c->re = re;
			*fc->cache = c;
		}
		return re;
	}
	return ty_regex_compile(pat, len, cflags, ty_get_arena());
}

static int arg_flags(ty_fcinfo *fc, int i, bool *glob)
{
	*glob = false;
	if (i >= fc->nargs)
		return 0;
	return ty_regex_parse_flags(STR_ARG(fc, i), STR_LEN(fc, i), glob);
}

static UTIL_NORETURN void no_global(const char *fn)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s does not support the \"global\" option", fn);
}

static UTIL_NORETURN void bad_param(const char *name, int64_t v)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for parameter \"%s\": %d", name, (int)v);
}

static ty_datum substr_chars(const re_exec *x, const char *s, int so, int eo)
{
	return ty_textn(s + x->off[so], x->off[eo] - x->off[so]);
}

/* ---------------------------------------------------------------- operators */

static bool re_matches(ty_fcinfo *fc, int cflags)
{
	const ty_regex *re = get_regex(fc, STR_ARG(fc, 1), STR_LEN(fc, 1), cflags);
	return ty_regex_match(re, STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum f_regexeq(ty_fcinfo *fc)
{
	return ty_bool(re_matches(fc, 0));
}
static ty_datum f_regexne(ty_fcinfo *fc)
{
	return ty_bool(!re_matches(fc, 0));
}
static ty_datum f_icregexeq(ty_fcinfo *fc)
{
	return ty_bool(re_matches(fc, RE_ICASE));
}
static ty_datum f_icregexne(ty_fcinfo *fc)
{
	return ty_bool(!re_matches(fc, RE_ICASE));
}

/* ---------------------------------------------------------------- SIMILAR TO */

/* Rewrites a SQL SIMILAR TO pattern into an ARE, PostgreSQL's way:
 * ^(?: ... )$ around it, % -> .*, _ -> ., literal . ^ $ \ escaped, ( made
 * non-capturing, and escape-double-quote separators splitting the pattern
 * into ^(?:a){1,1}?(b){1,1}(?:c)$ for substring(). esc NULL means the
 * default escape, backslash; an empty esc means none. */
static ty_datum similar_escape(const char *p, size_t plen, const char *e, size_t elen, bool esc_null)
{
	if (esc_null) {
		e = "\\";
		elen = 1;
	} else if (elen == 0) {
		e = NULL;
	} else if (ty_str_nchars(e, elen) > 1) {
		util_err *err = ty_errstart(UTIL_E_INVALID_ESCAPE_SEQUENCE, "invalid escape string");
		util_err_hint(err, "Escape string must be empty or one character.");
		ty_errthrow();
	}
	ty_str_sb r = {0};
	ty_str_sb_append(&r, "^(?:", 4);
	bool after_escape = false, in_class = false;
	int nquotes = 0;
	for (size_t i = 0; i < plen;) {
		size_t cl = UTIL_MIN((size_t)ty_str_mblen((uint8_t)p[i]), plen - i);
		char c = p[i];
		if (cl > 1) {
			/* multi-byte characters are literal unless they are the escape */
			if (after_escape) {
				ty_str_sb_putc(&r, '\\');
				ty_str_sb_append(&r, p + i, cl);
				after_escape = false;
			} else if (e && elen == cl && memcmp(e, p + i, cl) == 0) {
				after_escape = true;
			} else {
				ty_str_sb_append(&r, p + i, cl);
			}
			i += cl;
			continue;
		}
		if (after_escape) {
			if (c == '"' && !in_class) {
				if (nquotes == 0)
					ty_str_sb_append(&r, "){1,1}?(", 8);
				else if (nquotes == 1)
					ty_str_sb_append(&r, "){1,1}(?:", 9);
				else
					ty_error(UTIL_E_INVALID_USE_OF_ESCAPE_CHARACTER,
						 "SQL regular expression may not contain more than two "
						 "escape-double-quote separators");
				nquotes++;
			} else {
				ty_str_sb_putc(&r, '\\');
				ty_str_sb_putc(&r, c);
			}
			after_escape = false;
		} else if (e && elen == 1 && c == e[0]) {
			after_escape = true;
		} else if (in_class) {
			if (c == '\\')
				ty_str_sb_putc(&r, '\\');
			ty_str_sb_putc(&r, c);
			if (c == ']')
				in_class = false;
		} else if (c == '[') {
			ty_str_sb_putc(&r, c);
			in_class = true;
		} else if (c == '%') {
			ty_str_sb_append(&r, ".*", 2);
		} else if (c == '_') {
			ty_str_sb_putc(&r, '.');
		} else if (c == '(') {
			ty_str_sb_append(&r, "(?:", 3);
		} else if (c == '\\' || c == '.' || c == '^' || c == '$') {
			ty_str_sb_putc(&r, '\\');
			ty_str_sb_putc(&r, c);
		} else {
			ty_str_sb_putc(&r, c);
		}
		i += cl;
	}
	ty_str_sb_append(&r, ")$", 2);
	return ty_str_sb_datum(&r);
}

static ty_datum f_similar_to_escape_2(ty_fcinfo *fc)
{
	return similar_escape(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), false);
}

static ty_datum f_similar_to_escape_1(ty_fcinfo *fc)
{
	return similar_escape(STR_ARG(fc, 0), STR_LEN(fc, 0), NULL, 0, true);
}

/* similar_escape(pattern, escape): the old non-strict spelling. */
static ty_datum f_similar_escape(ty_fcinfo *fc)
{
	if (fc->args[0].null)
		return ty_null();
	bool esc_null = fc->args[1].null;
	return similar_escape(STR_ARG(fc, 0), STR_LEN(fc, 0), esc_null ? NULL : STR_ARG(fc, 1),
			      esc_null ? 0 : STR_LEN(fc, 1), esc_null);
}

/* substring(text from pattern): the first capture group, or the whole
 * match when there is none; NULL without a match. */
static ty_datum regex_substring(ty_fcinfo *fc, const char *pat, size_t plen)
{
	const ty_regex *re = get_regex(fc, pat, plen, 0);
	const char *s = STR_ARG(fc, 0);
	re_exec *x = ty_re_exec_new(re, s, STR_LEN(fc, 0));
	if (!ty_re_find(x, 0))
		return ty_null();
	int so = x->caps[0], eo = x->caps[1];
	if (re->ncap > 0) {
		so = x->caps[2];
		eo = x->caps[3];
	}
	if (so < 0 || eo < 0)
		return ty_null();
	return substr_chars(x, s, so, eo);
}

static ty_datum f_textregexsubstr(ty_fcinfo *fc)
{
	return regex_substring(fc, STR_ARG(fc, 1), STR_LEN(fc, 1));
}

static ty_datum f_similar_substring(ty_fcinfo *fc)
{
	ty_datum pat = similar_escape(STR_ARG(fc, 1), STR_LEN(fc, 1), STR_ARG(fc, 2), STR_LEN(fc, 2), false);
	return regex_substring(fc, ty_str_p(pat), pat.len);
}

/* ---------------------------------------------------------------- regexp_replace */

/* Appends the replacement with \1..\9 and \& substituted, \\ -> \. */
static void append_replacement(ty_str_sb *out, const re_exec *x, const char *s, const char *r, size_t rn)
{
	for (size_t i = 0; i < rn;) {
		size_t j = i;
		while (j < rn && r[j] != '\\')
			j++;
		ty_str_sb_append(out, r + i, j - i);
		if (j >= rn)
			break;
		j++;
		if (j >= rn) {
			ty_str_sb_putc(out, '\\');
			break;
		}
		int idx = -1;
		if (r[j] >= '1' && r[j] <= '9')
			idx = r[j] - '0';
		else if (r[j] == '&')
			idx = 0;
		if (idx >= 0) {
			j++;
			if (idx <= x->re->ncap && x->caps[2 * idx] >= 0 && x->caps[2 * idx + 1] >= 0) {
				int so = x->caps[2 * idx], eo = x->caps[2 * idx + 1];
				ty_str_sb_append(out, s + x->off[so], x->off[eo] - x->off[so]);
			}
		} else if (r[j] == '\\') {
			ty_str_sb_putc(out, '\\');
			j++;
		} else {
			ty_str_sb_putc(out, '\\');
		}
		i = j;
	}
}

/* n = 0: every match; n > 0: only the n-th. start is 1-based. */
static ty_datum replace_regexp(ty_fcinfo *fc, int cflags, int64_t start, int64_t n)
{
	const char *s = STR_ARG(fc, 0), *r = STR_ARG(fc, 2);
	size_t slen = STR_LEN(fc, 0), rlen = STR_LEN(fc, 2);
	const ty_regex *re = get_regex(fc, STR_ARG(fc, 1), STR_LEN(fc, 1), cflags);
	re_exec *x = ty_re_exec_new(re, s, slen);
	ty_str_sb out = {0};
	int copied = 0; /* characters of s already copied */
	int search = (int)UTIL_MIN(start - 1, (int64_t)x->n + 1);
	int64_t nmatches = 0;
	while (search <= x->n) {
		if (!ty_re_find(x, search))
			break;
		int so = x->caps[0], eo = x->caps[1];
		nmatches++;
		if (n > 0 && nmatches < n) {
			search = eo == so ? eo + 1 : eo;
			continue;
		}
		ty_str_sb_append(&out, s + x->off[copied], x->off[so] - x->off[copied]);
		if (memchr(r, '\\', rlen))
			append_replacement(&out, x, s, r, rlen);
		else
			ty_str_sb_append(&out, r, rlen);
		copied = eo;
		search = eo == so ? eo + 1 : eo;
		if (n > 0)
			break;
	}
	ty_str_sb_append(&out, s + x->off[copied], slen - x->off[copied]);
	return ty_str_sb_datum(&out);
}

static ty_datum f_regexp_replace_noopt(ty_fcinfo *fc)
{
	return replace_regexp(fc, 0, 1, 1);
}

static ty_datum f_regexp_replace(ty_fcinfo *fc)
{
	const char *o = STR_ARG(fc, 3);
	if (STR_LEN(fc, 3) > 0 && o[0] >= '0' && o[0] <= '9') {
		util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
					  "invalid regular expression option: \"%.*s\"", 1, o);
		util_err_hint(e,
			      "If you meant to use regexp_replace() with a start parameter, cast the fourth "
			      "argument to integer explicitly.");
		ty_errthrow();
	}
	bool glob;
	int cflags = arg_flags(fc, 3, &glob);
	return replace_regexp(fc, cflags, 1, glob ? 0 : 1);
}

/* regexp_replace(source, pattern, replacement, start [, n [, flags]]) */
static ty_datum f_regexp_replace_ext(ty_fcinfo *fc)
{
	int64_t start = INT_ARG(fc, 3), n = 0;
	if (start <= 0)
		bad_param("start", start);
	if (fc->nargs > 4) {
		n = INT_ARG(fc, 4);
		if (n < 0)
			bad_param("n", n);
	}
	bool glob;
	int cflags = arg_flags(fc, 5, &glob);
	if (fc->nargs <= 4)
		n = glob ? 0 : 1;
	return replace_regexp(fc, cflags, start, n);
}

/* ---------------------------------------------------------------- match collection */

typedef struct matches {
	re_exec *x;
	const ty_regex *re;
	int nmatches, npatterns;
	int *locs; /* per match: npatterns (so, eo) pairs, character positions */
} matches;

/* PostgreSQL's setup_regexp_matches(): every match from start (all of
 * them when glob), keeping the capture groups when use_sub and the RE has
 * some, else the whole match; ignore_degenerate drops empty matches at the
 * ends of the string or right after a previous match (regexp_split). */
static matches collect(ty_fcinfo *fc, const char *s, size_t len, int cflags, int start, bool glob,
		       bool use_sub, bool ignore_degenerate)
{
	matches m = {0};
	m.re = get_regex(fc, STR_ARG(fc, 1), STR_LEN(fc, 1), cflags);
	m.x = ty_re_exec_new(m.re, s, len);
	re_exec *x = m.x;
	use_sub = use_sub && m.re->ncap > 0;
	m.npatterns = use_sub ? m.re->ncap : 1;
	int cap = 8;
	m.locs = ty_alloc((size_t)cap * 2 * (size_t)m.npatterns * sizeof(int));
	int prev_end = 0;
	int search = start;
	while (search <= x->n && ty_re_find(x, search)) {
		int so = x->caps[0], eo = x->caps[1];
		if (!ignore_degenerate || (so < x->n && eo > prev_end)) {
			if (m.nmatches == cap) {
				int *n = ty_alloc((size_t)cap * 4 * (size_t)m.npatterns * sizeof(int));
				memcpy(n, m.locs, (size_t)cap * 2 * (size_t)m.npatterns * sizeof(int));
				m.locs = n;
				cap *= 2;
			}
			int *l = m.locs + (size_t)m.nmatches * 2 * (size_t)m.npatterns;
			if (use_sub) {
				for (int i = 1; i <= m.re->ncap; i++) {
					l[2 * (i - 1)] = x->caps[2 * i];
					l[2 * (i - 1) + 1] = x->caps[2 * i + 1];
				}
			} else {
				l[0] = so;
				l[1] = eo;
			}
			m.nmatches++;
		}
		prev_end = eo;
		if (!glob)
			break;
		search = eo == so ? eo + 1 : eo;
		ty_check_interrupts();
	}
	return m;
}

static ty_datum loc_text(const matches *m, const char *s, int so, int eo)
{
	if (so < 0 || eo < 0)
		return ty_null();
	return substr_chars(m->x, s, so, eo);
}

/* ---------------------------------------------------------------- count, instr, like, substr */

static ty_datum f_regexp_count(ty_fcinfo *fc)
{
	int64_t start = fc->nargs > 2 ? INT_ARG(fc, 2) : 1;
	if (start <= 0)
		bad_param("start", start);
	bool glob;
	int cflags = arg_flags(fc, 3, &glob);
	if (glob)
		no_global("regexp_count()");
	const char *s = STR_ARG(fc, 0);
	size_t len = STR_LEN(fc, 0);
	int st = (int)UTIL_MIN(start - 1, (int64_t)INT32_MAX - 1);
	matches m = collect(fc, s, len, cflags, st, true, false, false);
	return ty_int(m.nmatches);
}

static ty_datum f_regexp_instr(ty_fcinfo *fc)
{
	int64_t start = fc->nargs > 2 ? INT_ARG(fc, 2) : 1;
	if (start <= 0)
		bad_param("start", start);
	int64_t n = fc->nargs > 3 ? INT_ARG(fc, 3) : 1;
	if (n <= 0)
		bad_param("n", n);
	int64_t endoption = fc->nargs > 4 ? INT_ARG(fc, 4) : 0;
	if (endoption != 0 && endoption != 1)
		bad_param("endoption", endoption);
	bool glob;
	int cflags = arg_flags(fc, 5, &glob);
	if (glob)
		no_global("regexp_instr()");
	int64_t subexpr = fc->nargs > 6 ? INT_ARG(fc, 6) : 0;
	if (subexpr < 0)
		bad_param("subexpr", subexpr);
	const char *s = STR_ARG(fc, 0);
	int st = (int)UTIL_MIN(start - 1, (int64_t)INT32_MAX - 1);
	matches m = collect(fc, s, STR_LEN(fc, 0), cflags, st, true, subexpr > 0, false);
	if (n > m.nmatches || subexpr > m.npatterns)
		return ty_int(0);
	int64_t pos = (n - 1) * m.npatterns;
	if (subexpr > 0)
		pos += subexpr - 1;
	pos = pos * 2 + endoption;
	int v = m.locs[pos];
	return ty_int(v >= 0 ? v + 1 : 0);
}

static ty_datum f_regexp_like(ty_fcinfo *fc)
{
	bool glob;
	int cflags = arg_flags(fc, 2, &glob);
	if (glob)
		no_global("regexp_like()");
	const ty_regex *re = get_regex(fc, STR_ARG(fc, 1), STR_LEN(fc, 1), cflags);
	return ty_bool(ty_regex_match(re, STR_ARG(fc, 0), STR_LEN(fc, 0)));
}

static ty_datum f_regexp_substr(ty_fcinfo *fc)
{
	int64_t start = fc->nargs > 2 ? INT_ARG(fc, 2) : 1;
	if (start <= 0)
		bad_param("start", start);
	int64_t n = fc->nargs > 3 ? INT_ARG(fc, 3) : 1;
	if (n <= 0)
		bad_param("n", n);
	bool glob;
	int cflags = arg_flags(fc, 4, &glob);
	if (glob)
		no_global("regexp_substr()");
	int64_t subexpr = fc->nargs > 5 ? INT_ARG(fc, 5) : 0;
	if (subexpr < 0)
		bad_param("subexpr", subexpr);
	const char *s = STR_ARG(fc, 0);
	int st = (int)UTIL_MIN(start - 1, (int64_t)INT32_MAX - 1);
	matches m = collect(fc, s, STR_LEN(fc, 0), cflags, st, true, subexpr > 0, false);
	if (n > m.nmatches || subexpr > m.npatterns)
		return ty_null();
	int64_t pos = (n - 1) * m.npatterns;
	if (subexpr > 0)
		pos += subexpr - 1;
	pos *= 2;
	return loc_text(&m, s, m.locs[pos], m.locs[pos + 1]);
}

/* ---------------------------------------------------------------- splitting and array results */

/* The pieces between matches (regexp_split_*): nmatches + 1 of them. */
static ty_datum split_piece(const matches *m, const char *s, int i)
{
	int so = i > 0 ? m->locs[2 * i - 1] : 0;
	int eo = i < m->nmatches ? m->locs[2 * i] : m->x->n;
	return substr_chars(m->x, s, so, eo);
}

static matches split_matches(ty_fcinfo *fc, const char *fn)
{
	bool glob;
	int cflags = arg_flags(fc, 2, &glob);
	if (glob)
		no_global(fn);
	return collect(fc, STR_ARG(fc, 0), STR_LEN(fc, 0), cflags, 0, true, false, true);
}

/* Set-returning state: the results, made on the first call in the cache
 * arena (they must outlive the per-row arena). */
typedef struct srf_rows {
	int n, next;
	ty_datum *rows;
} srf_rows;

static srf_rows *srf_begin(ty_fcinfo *fc, int n)
{
	srf_rows *st = util_arena_zalloc(fc->cache_arena, sizeof *st);
	if (!st)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	st->n = n;
	st->rows = n ? util_arena_zalloc(fc->cache_arena, (size_t)n * sizeof *st->rows) : NULL;
	if (n && !st->rows)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	fc->srf_state = st;
	return st;
}

static ty_datum srf_keep(ty_fcinfo *fc, ty_datum d)
{
	if (d.null)
		return d;
	void *p = util_arena_memdup(fc->cache_arena, d.len ? d.p : "", d.len ? d.len : 1);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	d.p = p;
	return d;
}

static ty_datum srf_next(ty_fcinfo *fc)
{
	srf_rows *st = fc->srf_state;
	if (!st || st->next >= st->n) {
		fc->srf_done = true;
		return ty_null();
	}
	return st->rows[st->next++];
}

static ty_datum f_regexp_split_to_table(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		matches m = split_matches(fc, "regexp_split_to_table()");
		srf_rows *st = srf_begin(fc, m.nmatches + 1);
		for (int i = 0; i <= m.nmatches; i++)
			st->rows[i] = srf_keep(fc, split_piece(&m, STR_ARG(fc, 0), i));
	}
	return srf_next(fc);
}

#if HAVE_ARRAYS
static ty_datum match_array(const matches *m, const char *s, int k)
{
	ty_datum *el = ty_alloc((size_t)m->npatterns * sizeof *el);
	const int *l = m->locs + (size_t)k * 2 * (size_t)m->npatterns;
	for (int i = 0; i < m->npatterns; i++)
		el[i] = loc_text(m, s, l[2 * i], l[2 * i + 1]);
	return ty_array_from_list(TY_TEXT, m->npatterns, el);
}

static ty_datum f_regexp_match(ty_fcinfo *fc)
{
	bool glob;
	int cflags = arg_flags(fc, 2, &glob);
	if (glob) {
		util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
					  "%s does not support the \"global\" option", "regexp_match()");
		util_err_hint(e, "Use the regexp_matches function instead.");
		ty_errthrow();
	}
	const char *s = STR_ARG(fc, 0);
	matches m = collect(fc, s, STR_LEN(fc, 0), cflags, 0, false, true, false);
	if (m.nmatches == 0)
		return ty_null();
	return match_array(&m, s, 0);
}

static ty_datum f_regexp_matches(ty_fcinfo *fc)
{
	if (fc->srf_first || !fc->srf_state) {
		fc->srf_first = false;
		bool glob;
		int cflags = arg_flags(fc, 2, &glob);
		const char *s = STR_ARG(fc, 0);
		matches m = collect(fc, s, STR_LEN(fc, 0), cflags, 0, glob, true, false);
		srf_rows *st = srf_begin(fc, m.nmatches);
		for (int i = 0; i < m.nmatches; i++)
			st->rows[i] = srf_keep(fc, match_array(&m, s, i));
	}
	return srf_next(fc);
}

static ty_datum f_regexp_split_to_array(ty_fcinfo *fc)
{
	matches m = split_matches(fc, "regexp_split_to_array()");
	ty_datum *el = ty_alloc(((size_t)m.nmatches + 1) * sizeof *el);
	for (int i = 0; i <= m.nmatches; i++)
		el[i] = split_piece(&m, STR_ARG(fc, 0), i);
	return ty_array_from_list(TY_TEXT, m.nmatches + 1, el);
}
#endif

/* ---------------------------------------------------------------- registration */

#define T    TY_TEXT
#define N    TY_NAME
#define B    TY_BPCHAR
#define I4   TY_INT4
#define BOOL TY_BOOL
#define TA   TY_TEXT_ARRAY

#define SRF(nm, id, rt, f, src, ...)                                                                         \
	{                                                                                                    \
		.name = nm, .nargs = (int)(sizeof((ty_oid[]){__VA_ARGS__}) / sizeof(ty_oid)),                \
		.args = {__VA_ARGS__}, .ret = rt, .fn = f, .volatility = TY_IMMUTABLE, .strict = true,       \
		.retset = true, .kind = 'f', .prosrc = src, .oid = id                                        \
	}

static const ty_func regexp_funcs[] = {
    TY_STR_FN("textregexeq", 1254, BOOL, f_regexeq, "textregexeq", T, T),
    TY_STR_FN("textregexne", 1256, BOOL, f_regexne, "textregexne", T, T),
    TY_STR_FN("texticregexeq", 1238, BOOL, f_icregexeq, "texticregexeq", T, T),
    TY_STR_FN("texticregexne", 1239, BOOL, f_icregexne, "texticregexne", T, T),
    TY_STR_FN("nameregexeq", 79, BOOL, f_regexeq, "nameregexeq", N, T),
    TY_STR_FN("nameregexne", 1252, BOOL, f_regexne, "nameregexne", N, T),
    TY_STR_FN("nameicregexeq", 1240, BOOL, f_icregexeq, "nameicregexeq", N, T),
    TY_STR_FN("nameicregexne", 1241, BOOL, f_icregexne, "nameicregexne", N, T),
    TY_STR_FN("bpcharregexeq", 1658, BOOL, f_regexeq, "textregexeq", B, T),
    TY_STR_FN("bpcharregexne", 1659, BOOL, f_regexne, "textregexne", B, T),
    TY_STR_FN("bpcharicregexeq", 1656, BOOL, f_icregexeq, "texticregexeq", B, T),
    TY_STR_FN("bpcharicregexne", 1657, BOOL, f_icregexne, "texticregexne", B, T),
    TY_STR_FN("similar_to_escape", 1986, T, f_similar_to_escape_2, "similar_to_escape_2", T, T),
    TY_STR_FN("similar_to_escape", 1987, T, f_similar_to_escape_1, "similar_to_escape_1", T),
    {.name = "similar_escape",
     .nargs = 2,
     .args = {T, T},
     .ret = T,
     .fn = f_similar_escape,
     .volatility = TY_IMMUTABLE,
     .strict = false,
     .kind = 'f',
     .prosrc = "similar_escape",
     .oid = 1623},
    TY_STR_FN("substring", 2073, T, f_textregexsubstr, "textregexsubstr", T, T),
    TY_STR_FN("substring", 2074, T, f_similar_substring, "", T, T, T),
    TY_STR_FN("regexp_replace", 2284, T, f_regexp_replace_noopt, "textregexreplace_noopt", T, T, T),
    TY_STR_FN("regexp_replace", 2285, T, f_regexp_replace, "textregexreplace", T, T, T, T),
    TY_STR_FN("regexp_replace", 6251, T, f_regexp_replace_ext, "textregexreplace_extended", T, T, T, I4, I4,
	      T),
    TY_STR_FN("regexp_replace", 6252, T, f_regexp_replace_ext, "textregexreplace_extended_no_flags", T, T, T,
	      I4, I4),
    TY_STR_FN("regexp_replace", 6253, T, f_regexp_replace_ext, "textregexreplace_extended_no_n", T, T, T, I4),
    TY_STR_FN("regexp_count", 6254, I4, f_regexp_count, "regexp_count_no_start", T, T),
    TY_STR_FN("regexp_count", 6255, I4, f_regexp_count, "regexp_count_no_flags", T, T, I4),
    TY_STR_FN("regexp_count", 6256, I4, f_regexp_count, "regexp_count", T, T, I4, T),
    TY_STR_FN("regexp_instr", 6257, I4, f_regexp_instr, "regexp_instr_no_start", T, T),
    TY_STR_FN("regexp_instr", 6258, I4, f_regexp_instr, "regexp_instr_no_n", T, T, I4),
    TY_STR_FN("regexp_instr", 6259, I4, f_regexp_instr, "regexp_instr_no_endoption", T, T, I4, I4),
    TY_STR_FN("regexp_instr", 6260, I4, f_regexp_instr, "regexp_instr_no_flags", T, T, I4, I4, I4),
    TY_STR_FN("regexp_instr", 6261, I4, f_regexp_instr, "regexp_instr_no_subexpr", T, T, I4, I4, I4, T),
    TY_STR_FN("regexp_instr", 6262, I4, f_regexp_instr, "regexp_instr", T, T, I4, I4, I4, T, I4),
    TY_STR_FN("regexp_like", 6263, BOOL, f_regexp_like, "regexp_like_no_flags", T, T),
    TY_STR_FN("regexp_like", 6264, BOOL, f_regexp_like, "regexp_like", T, T, T),
    TY_STR_FN("regexp_substr", 6265, T, f_regexp_substr, "regexp_substr_no_start", T, T),
    TY_STR_FN("regexp_substr", 6266, T, f_regexp_substr, "regexp_substr_no_n", T, T, I4),
    TY_STR_FN("regexp_substr", 6267, T, f_regexp_substr, "regexp_substr_no_flags", T, T, I4, I4),
    TY_STR_FN("regexp_substr", 6268, T, f_regexp_substr, "regexp_substr_no_subexpr", T, T, I4, I4, T),
    TY_STR_FN("regexp_substr", 6269, T, f_regexp_substr, "regexp_substr", T, T, I4, I4, T, I4),
    SRF("regexp_split_to_table", 2765, T, f_regexp_split_to_table, "regexp_split_to_table_no_flags", T, T),
    SRF("regexp_split_to_table", 2766, T, f_regexp_split_to_table, "regexp_split_to_table", T, T, T),
#if HAVE_ARRAYS
    TY_STR_FN("regexp_match", 3396, TA, f_regexp_match, "regexp_match_no_flags", T, T),
    TY_STR_FN("regexp_match", 3397, TA, f_regexp_match, "regexp_match", T, T, T),
    SRF("regexp_matches", 2763, TA, f_regexp_matches, "regexp_matches_no_flags", T, T),
    SRF("regexp_matches", 2764, TA, f_regexp_matches, "regexp_matches", T, T, T),
    TY_STR_FN("regexp_split_to_array", 2767, TA, f_regexp_split_to_array, "regexp_split_to_array_no_flags", T,
	      T),
    TY_STR_FN("regexp_split_to_array", 2768, TA, f_regexp_split_to_array, "regexp_split_to_array", T, T, T),
#endif
};

static const ty_operator regexp_ops[] = {
    TY_STR_OP("~", 641, T, T, BOOL, "textregexeq", NULL, "!~"),
    TY_STR_OP("!~", 642, T, T, BOOL, "textregexne", NULL, "~"),
    TY_STR_OP("~*", 1228, T, T, BOOL, "texticregexeq", NULL, "!~*"),
    TY_STR_OP("!~*", 1229, T, T, BOOL, "texticregexne", NULL, "~*"),
    TY_STR_OP("~", 639, N, T, BOOL, "nameregexeq", NULL, "!~"),
    TY_STR_OP("!~", 640, N, T, BOOL, "nameregexne", NULL, "~"),
    TY_STR_OP("~*", 1226, N, T, BOOL, "nameicregexeq", NULL, "!~*"),
    TY_STR_OP("!~*", 1227, N, T, BOOL, "nameicregexne", NULL, "~*"),
    TY_STR_OP("~", 1055, B, T, BOOL, "bpcharregexeq", NULL, "!~"),
    TY_STR_OP("!~", 1056, B, T, BOOL, "bpcharregexne", NULL, "~"),
    TY_STR_OP("~*", 1234, B, T, BOOL, "bpcharicregexeq", NULL, "!~*"),
    TY_STR_OP("!~*", 1235, B, T, BOOL, "bpcharicregexne", NULL, "~*"),
};

void ty_str_register_regexp(void)
{
	ty_func_register(regexp_funcs, (int)UTIL_ARRAY_LEN(regexp_funcs));
	ty_operator_register(regexp_ops, (int)UTIL_ARRAY_LEN(regexp_ops));
}
