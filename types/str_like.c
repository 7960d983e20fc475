/*
 * str_like.c — LIKE / ILIKE / NOT LIKE (operators ~~ ~~* !~~ !~~* on text,
 * bpchar, name and bytea), like_escape() for the ESCAPE clause, and the
 * concatenation operators (text || text, text || anynonarray, bytea is in
 * str_bytea.c).
 *
 * The matcher follows PostgreSQL's like_match.c exactly (same results, same
 * point at which "LIKE pattern must not end with escape character" is
 * raised) but runs iteratively: after a '%' has been passed, a failure can
 * only be retried from the most recent '%' (PostgreSQL's LIKE_ABORT rule),
 * so one backtrack point suffices and matching is O(text * pattern) with no
 * recursion.
 */
#include "str_int.h"

static UTIL_NORETURN void ends_with_escape(void)
{
	ty_error(UTIL_E_INVALID_ESCAPE_SEQUENCE, "LIKE pattern must not end with escape character");
}

static inline uint8_t fold(uint8_t c, bool icase)
{
	return icase ? (uint8_t)ty_str_ascii_lower((char)c) : c;
}

/* The general matcher (any pattern). */
static bool like_general(const char *str, size_t tlen, const char *pat, size_t plen, bool icase, bool bytes)
{
	const uint8_t *t = (const uint8_t *)str, *p = (const uint8_t *)pat;
	size_t ti = 0, pi = 0;
	size_t star_p = 0, star_t = 0; /* resume point after the most recent '%' */
	bool have_star = false;
	uint8_t firstpat = 0;

#define NEXTCHAR(i) ((i) += bytes ? 1 : (size_t)ty_str_mblen(t[i]))
	for (;;) {
		if (ti < tlen && pi < plen) {
			uint8_t c = p[pi];
			if (c == '\\') {
				if (++pi >= plen)
					ends_with_escape();
				if (fold(p[pi], icase) != fold(t[ti], icase))
					goto mismatch;
				pi++;
				ti++;
				continue;
			}
			if (c == '%') {
				pi++;
				while (pi < plen) {
					if (p[pi] == '%') {
						pi++;
					} else if (p[pi] == '_') {
						if (ti >= tlen)
							return false;
						NEXTCHAR(ti);
						pi++;
					} else {
						break;
					}
				}
				if (pi >= plen)
					return true;
				if (p[pi] == '\\') {
					if (pi + 1 >= plen)
						ends_with_escape();
					firstpat = fold(p[pi + 1], icase);
				} else {
					firstpat = fold(p[pi], icase);
				}
				have_star = true;
				star_p = pi;
				star_t = ti;
				goto scan;
			}
			if (c == '_') {
				NEXTCHAR(ti);
				pi++;
				continue;
			}
			if (fold(c, icase) != fold(t[ti], icase))
				goto mismatch;
			pi++;
			ti++;
			continue;
		}
		if (ti < tlen)
			goto mismatch; /* end of pattern, text left */
		/* End of text: matches iff only '%'s remain; otherwise no later
		 * start for an enclosing '%' can help either. */
		while (pi < plen && p[pi] == '%')
			pi++;
		return pi >= plen;

	mismatch:
		if (!have_star)
			return false;
		pi = star_p;
		ti = star_t;
	scan:
		/* Find the next text position whose first byte matches the
		 * literal after the '%'; positions are character boundaries. */
		while (ti < tlen && fold(t[ti], icase) != firstpat)
			NEXTCHAR(ti);
		if (ti >= tlen)
			return false;
		star_t = ti;
		NEXTCHAR(star_t);
	}
#undef NEXTCHAR
}

/*
 * Patterns made of one literal (no '_' or escape in it) with '%' runs only
 * at its ends are byte compares: the literal starts and ends with whole
 * characters, and in valid UTF-8 a byte match of one never starts inside
 * a character, so the answer is the general matcher's. ILIKE and every
 * other pattern take the general matcher.
 */
void ty_like_compile(ty_like_pat *lp, const char *pat, size_t plen, bool icase, bool bytes)
{
	lp->pat = pat;
	lp->plen = plen;
	lp->icase = icase;
	lp->bytes = bytes;
	lp->kind = TY_LIKE_GENERAL;
	lp->loff = 0;
	lp->llen = 0;
	if (icase)
		return;
	size_t a = 0, b = plen;
	while (a < plen && pat[a] == '%')
		a++;
	if (a == plen && plen > 0) {
		lp->kind = TY_LIKE_ALL;
		return;
	}
	while (b > a && pat[b - 1] == '%')
		b--;
	for (size_t i = a; i < b; i++)
		if (pat[i] == '%' || pat[i] == '_' || pat[i] == '\\')
			return;
	lp->loff = a;
	lp->llen = b - a;
	if (a == 0)
		lp->kind = b == plen ? TY_LIKE_EXACT : TY_LIKE_PREFIX;
	else
		lp->kind = b == plen ? TY_LIKE_SUFFIX : TY_LIKE_CONTAINS;
}

static inline bool like_exec(const ty_like_pat *lp, const char *s, size_t slen)
{
	const char *lit = lp->pat + lp->loff;
	size_t ll = lp->llen;
	switch (lp->kind) {
	case TY_LIKE_ALL:
		return true;
	case TY_LIKE_EXACT:
		return slen == ll && memcmp(s, lit, ll) == 0;
	case TY_LIKE_PREFIX:
		return slen >= ll && memcmp(s, lit, ll) == 0;
	case TY_LIKE_SUFFIX:
		return slen >= ll && memcmp(s + slen - ll, lit, ll) == 0;
	case TY_LIKE_CONTAINS:
		return ll == 0 || memmem(s, slen, lit, ll) != NULL;
	default:
		return like_general(s, slen, lp->pat, lp->plen, lp->icase, lp->bytes);
	}
}

bool ty_like_exec(const ty_like_pat *lp, const char *s, size_t slen)
{
	return like_exec(lp, s, slen);
}

bool ty_like_match(const char *str, size_t tlen, const char *pat, size_t plen, bool icase, bool bytes)
{
	ty_like_pat lp;
	ty_like_compile(&lp, pat, plen, icase, bytes);
	return ty_like_exec(&lp, str, tlen);
}

bool ty_like_prefix(const char *p, size_t plen, util_buf *out)
{
	for (size_t i = 0; i < plen; i++) {
		char c = p[i];
		if (c == '%' || c == '_')
			return false;
		if (c == '\\') {
			if (++i >= plen)
				return false;
			c = p[i];
		}
		util_buf_putc(out, c);
	}
	return true;
}

/* ---------------------------------------------------------------- like_escape */

/* Rewrites a pattern with escape character esc into one whose escape is
 * backslash (PostgreSQL's MB_do_like_escape). */
static ty_datum do_like_escape(const char *p, size_t plen, const char *e, size_t elen, bool bytes)
{
	char *r = ty_alloc(plen * 2 + 1);
	size_t k = 0;
	if (elen == 0) {
		for (size_t i = 0; i < plen; i++) {
			if (p[i] == '\\')
				r[k++] = '\\';
			r[k++] = p[i];
		}
		return ty_bytes(r, k);
	}
	size_t el = bytes ? 1 : (size_t)ty_str_mblen((uint8_t)e[0]);
	if (el != elen) {
		util_err *err = ty_errstart(UTIL_E_INVALID_ESCAPE_SEQUENCE, "invalid escape string");
		util_err_hint(err, "Escape string must be empty or one character.");
		ty_errthrow();
	}
	if (e[0] == '\\' && elen == 1) {
		memcpy(r, p, plen);
		return ty_bytes(r, plen);
	}
	bool after = false;
	for (size_t i = 0; i < plen;) {
		size_t cl = bytes ? 1 : (size_t)ty_str_mblen((uint8_t)p[i]);
		if (i + cl > plen)
			cl = plen - i;
		if (!after && cl == elen && memcmp(p + i, e, elen) == 0) {
			r[k++] = '\\';
			after = true;
		} else if (p[i] == '\\') {
			r[k++] = '\\';
			if (!after)
				r[k++] = '\\';
			after = false;
		} else {
			memcpy(r + k, p + i, cl);
			k += cl;
			after = false;
		}
		i += cl;
	}
	return ty_bytes(r, k);
}

static ty_datum f_like_escape(ty_fcinfo *fc)
{
	return do_like_escape(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), false);
}

static ty_datum f_like_escape_bytea(ty_fcinfo *fc)
{
	return do_like_escape(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1), true);
}

/* ---------------------------------------------------------------- LIKE functions */

/* The pattern's shape is kept per call site (fc->cache) with a copy of the
 * pattern: a constant pattern is classified once, not per row; a pattern
 * that changes is classified again on the stack (the cache keeps the first). */
static bool like_args(ty_fcinfo *fc, bool icase, bool bytes)
{
	const char *p = STR_ARG(fc, 1);
	size_t pl = STR_LEN(fc, 1);
	ty_like_pat *c = fc->cache ? *fc->cache : NULL;
	if (c && c->plen == pl && c->icase == icase && c->bytes == bytes) {
		size_t i = 0; /* patterns are short: no memcmp call */
		while (i < pl && c->pat[i] == p[i])
			i++;
		if (i == pl)
			return like_exec(c, STR_ARG(fc, 0), STR_LEN(fc, 0));
	}
	if (!c && fc->cache && fc->cache_arena) {
		c = util_arena_zalloc(fc->cache_arena, sizeof *c);
		char *copy = util_arena_memdup(fc->cache_arena, pl ? p : "", pl + 1);
		if (c && copy) {
			ty_like_compile(c, copy, pl, icase, bytes);
			*fc->cache = c;
			return ty_like_exec(c, STR_ARG(fc, 0), STR_LEN(fc, 0));
		}
	}
	ty_like_pat lp;
	ty_like_compile(&lp, p, pl, icase, bytes);
	return ty_like_exec(&lp, STR_ARG(fc, 0), STR_LEN(fc, 0));
}

static ty_datum f_textlike(ty_fcinfo *fc)
{
	return ty_bool(like_args(fc, false, false));
}
static ty_datum f_textnlike(ty_fcinfo *fc)
{
	return ty_bool(!like_args(fc, false, false));
}
static ty_datum f_texticlike(ty_fcinfo *fc)
{
	return ty_bool(like_args(fc, true, false));
}
static ty_datum f_texticnlike(ty_fcinfo *fc)
{
	return ty_bool(!like_args(fc, true, false));
}
static ty_datum f_bytealike(ty_fcinfo *fc)
{
	return ty_bool(like_args(fc, false, true));
}
static ty_datum f_byteanlike(ty_fcinfo *fc)
{
	return ty_bool(!like_args(fc, false, true));
}

/* ---------------------------------------------------------------- concatenation */

static ty_datum cat(const char *a, size_t an, const char *b, size_t bn)
{
	char *r = ty_alloc(an + bn + 1);
	memcpy(r, a, an);
	memcpy(r + an, b, bn);
	return ty_bytes(r, an + bn);
}

static ty_datum f_textcat(ty_fcinfo *fc)
{
	return cat(STR_ARG(fc, 0), STR_LEN(fc, 0), STR_ARG(fc, 1), STR_LEN(fc, 1));
}

/* The non-text side is converted as `$n::text` would: a registered cast
 * (bpchar drops its padding) or the type's output function. */
static ty_datum as_text(ty_fcinfo *fc, int i)
{
	return ty_cast_value(fc->args[i], fc->argtypes[i], TY_TEXT, TY_TYPMOD_NONE, false);
}

static ty_datum f_textanycat(ty_fcinfo *fc)
{
	ty_datum b = as_text(fc, 1);
	return cat(STR_ARG(fc, 0), STR_LEN(fc, 0), ty_str_p(b), b.len);
}

static ty_datum f_anytextcat(ty_fcinfo *fc)
{
	ty_datum a = as_text(fc, 0);
	return cat(ty_str_p(a), a.len, STR_ARG(fc, 1), STR_LEN(fc, 1));
}

/* ---------------------------------------------------------------- registration */

#define T    TY_TEXT
#define N    TY_NAME
#define B    TY_BPCHAR
#define BY   TY_BYTEA
#define BOOL TY_BOOL

static const ty_func like_funcs[] = {
    TY_STR_FN("textlike", 850, BOOL, f_textlike, "textlike", T, T),
    TY_STR_FN("textnlike", 851, BOOL, f_textnlike, "textnlike", T, T),
    TY_STR_FN("texticlike", 1633, BOOL, f_texticlike, "texticlike", T, T),
    TY_STR_FN("texticnlike", 1634, BOOL, f_texticnlike, "texticnlike", T, T),
    TY_STR_FN("bpcharlike", 1631, BOOL, f_textlike, "textlike", B, T),
    TY_STR_FN("bpcharnlike", 1632, BOOL, f_textnlike, "textnlike", B, T),
    TY_STR_FN("bpchariclike", 1660, BOOL, f_texticlike, "texticlike", B, T),
    TY_STR_FN("bpcharicnlike", 1661, BOOL, f_texticnlike, "texticnlike", B, T),
    TY_STR_FN("namelike", 858, BOOL, f_textlike, "namelike", N, T),
    TY_STR_FN("namenlike", 859, BOOL, f_textnlike, "namenlike", N, T),
    TY_STR_FN("nameiclike", 1635, BOOL, f_texticlike, "nameiclike", N, T),
    TY_STR_FN("nameicnlike", 1636, BOOL, f_texticnlike, "nameicnlike", N, T),
    TY_STR_FN("bytealike", 2005, BOOL, f_bytealike, "bytealike", BY, BY),
    TY_STR_FN("byteanlike", 2006, BOOL, f_byteanlike, "byteanlike", BY, BY),
    TY_STR_FN("like_escape", 1637, T, f_like_escape, "like_escape", T, T),
    TY_STR_FN("like_escape", 2009, BY, f_like_escape_bytea, "like_escape_bytea", BY, BY),
    TY_STR_FN("textcat", 1258, T, f_textcat, "textcat", T, T),
    {.name = "textanycat",
     .nargs = 2,
     .args = {T, TY_ANYNONARRAY},
     .ret = T,
     .fn = f_textanycat,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "select $1 operator(pg_catalog.||) $2::pg_catalog.text",
     .oid = 2003},
    {.name = "anytextcat",
     .nargs = 2,
     .args = {TY_ANYNONARRAY, T},
     .ret = T,
     .fn = f_anytextcat,
     .volatility = TY_STABLE,
     .strict = true,
     .kind = 'f',
     .prosrc = "select $1::pg_catalog.text operator(pg_catalog.||) $2",
     .oid = 2004},
};

static const ty_operator like_ops[] = {
    TY_STR_OP("~~", 1209, T, T, BOOL, "textlike", NULL, "!~~"),
    TY_STR_OP("!~~", 1210, T, T, BOOL, "textnlike", NULL, "~~"),
    TY_STR_OP("~~*", 1627, T, T, BOOL, "texticlike", NULL, "!~~*"),
    TY_STR_OP("!~~*", 1628, T, T, BOOL, "texticnlike", NULL, "~~*"),
    TY_STR_OP("~~", 1211, B, T, BOOL, "bpcharlike", NULL, "!~~"),
    TY_STR_OP("!~~", 1212, B, T, BOOL, "bpcharnlike", NULL, "~~"),
    TY_STR_OP("~~*", 1629, B, T, BOOL, "bpchariclike", NULL, "!~~*"),
    TY_STR_OP("!~~*", 1630, B, T, BOOL, "bpcharicnlike", NULL, "~~*"),
    TY_STR_OP("~~", 1207, N, T, BOOL, "namelike", NULL, "!~~"),
    TY_STR_OP("!~~", 1208, N, T, BOOL, "namenlike", NULL, "~~"),
    TY_STR_OP("~~*", 1625, N, T, BOOL, "nameiclike", NULL, "!~~*"),
    TY_STR_OP("!~~*", 1626, N, T, BOOL, "nameicnlike", NULL, "~~*"),
    TY_STR_OP("~~", 2016, BY, BY, BOOL, "bytealike", NULL, "!~~"),
    TY_STR_OP("!~~", 2017, BY, BY, BOOL, "byteanlike", NULL, "~~"),
    TY_STR_OP("||", 654, T, T, T, "textcat", NULL, NULL),
    TY_STR_OP("||", 2779, T, TY_ANYNONARRAY, T, "textanycat", NULL, NULL),
    TY_STR_OP("||", 2780, TY_ANYNONARRAY, T, T, "anytextcat", NULL, NULL),
};

void ty_str_register_like(void)
{
	ty_func_register(like_funcs, (int)UTIL_ARRAY_LEN(like_funcs));
	ty_operator_register(like_ops, (int)UTIL_ARRAY_LEN(like_ops));
}
