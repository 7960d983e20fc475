/*
 * ty_strings.h — the string area's API for other modules: LIKE matching,
 * POSIX regular expressions (PostgreSQL's ARE flavour) and the fixed
 * prefixes of patterns, so the SQL layer can push `col LIKE 'abc%'` or
 * `col ~ '^abc'` down to a key range scan.
 *
 * (Named ty_strings.h, not strings.h: types/ is on the include path and a
 * strings.h there would shadow the C library's <strings.h>.)
 *
 * Strata supports the "C" collation only: comparisons are by bytes, case
 * folding and character classes are ASCII-only.
 */
#ifndef STRATA_TY_STRINGS_H
#define STRATA_TY_STRINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

/* ---------------------------------------------------------------- typmods */

/* The typmod of varchar(n) / char(n) (type TY_VARCHAR or TY_BPCHAR) for a
 * declared length n; throws 22023 "length for type varchar must be at
 * least 1" / "... cannot exceed 10485760" as PostgreSQL. */
int32_t ty_char_typmod_in(ty_oid type, int64_t n);

/* ---------------------------------------------------------------- LIKE */

/*
 * Matches s against a LIKE pattern whose escape character is backslash
 * (the parser rewrites `ESCAPE 'x'` through like_escape(), as PostgreSQL).
 * icase: ILIKE (ASCII case folding). bytes: bytea semantics (`_` matches one
 * byte) instead of one UTF-8 character. Throws 22025 when the pattern ends
 * with the escape character and matching reaches it.
 */
bool ty_like_match(const char *s, size_t slen, const char *p, size_t plen, bool icase, bool bytes);

/*
 * A LIKE pattern classified once and matched against many texts (same
 * results and errors as ty_like_match). The pattern's bytes are not
 * copied: valid as long as they are.
 */
enum { TY_LIKE_GENERAL, TY_LIKE_ALL, TY_LIKE_EXACT, TY_LIKE_PREFIX, TY_LIKE_SUFFIX, TY_LIKE_CONTAINS };
typedef struct ty_like_pat {
	const char *pat;
	size_t plen;
	size_t loff, llen; /* the literal of the non-general shapes */
	uint8_t kind;      /* TY_LIKE_* */
	bool icase, bytes;
} ty_like_pat;
void ty_like_compile(ty_like_pat *lp, const char *p, size_t plen, bool icase, bool bytes);
bool ty_like_exec(const ty_like_pat *lp, const char *s, size_t slen);

/*
 * The fixed prefix of a case-sensitive LIKE pattern: appends to out the
 * literal characters before the first wildcard (escapes resolved).
 * Returns true when the whole pattern is literal (LIKE means equality).
 * A row can match only if its value starts with the prefix.
 */
bool ty_like_prefix(const char *p, size_t plen, util_buf *out);

/* ---------------------------------------------------------------- regular expressions */

/*
 * PostgreSQL's advanced regular expressions (the ~ operators, regexp_*),
 * matched by Strata's own engine (types/regex_*.c): leftmost match, longest
 * or shortest by the RE's greediness, captures dissected as PostgreSQL's;
 * Thompson-NFA simulation, bounded work (see regex_exec.c).
 */
typedef struct ty_regex ty_regex;

/* Parses regexp flag letters ("gimnpqstwx..."); 'g' sets *glob when glob
 * is not NULL and is rejected otherwise. Throws 22023 `invalid regular
 * expression option: "z"`. Returns cflags for ty_regex_compile. */
int ty_regex_parse_flags(const char *s, size_t n, bool *glob);
/* Compiles pattern (UTF-8) into arena a; valid as long as a. Throws 2201B
 * `invalid regular expression: ...` as PostgreSQL. */
ty_regex *ty_regex_compile(const char *pat, size_t len, int cflags, util_arena *a);
int ty_regex_ncaptures(const ty_regex *re);
/* Does s contain a match? Scratch memory comes from the current arena. */
bool ty_regex_match(const ty_regex *re, const char *s, size_t len);
/* The literal prefix every match starts with when the RE is anchored at
 * the start (^abc...); appended to out. Returns true when the RE is exactly
 * ^literal$ . */
bool ty_regex_prefix(const ty_regex *re, util_buf *out);

/* ---------------------------------------------------------------- quoting */

/* quote_ident(): appends s, double-quoted when it is not a lower-case
 * identifier or is a keyword that is not unreserved. */
void ty_quote_ident(const char *s, size_t n, util_buf *out);
/* quote_literal(): appends '...' with quotes doubled, E'...' with doubled
 * backslashes when s contains a backslash. */
void ty_quote_literal(const char *s, size_t n, util_buf *out);

#endif /* STRATA_TY_STRINGS_H */
