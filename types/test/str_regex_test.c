/*
 * str_regex_test.c — the regex engine beyond the generated PostgreSQL
 * table (str_cases_test): bounded work on hostile patterns, the budget for
 * back-reference backtracking, long inputs, the call-site pattern cache,
 * set-returning functions and the literal prefix used for pushdown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex_int.h"

static util_arena *arena;

static int setup(void **state)
{
	(void)state;
	ty_init();
	arena = util_arena_new(1 << 16, 0);
	ty_set_arena(arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ty_set_arena(NULL);
	util_arena_destroy(arena);
	return 0;
}

typedef struct match_arg {
	const char *pat;
	const char *s;
	size_t n;
	bool ok;
} match_arg;

static void do_match(void *p)
{
	match_arg *a = p;
	ty_regex *re = ty_regex_compile(a->pat, strlen(a->pat), 0, ty_get_arena());
	a->ok = ty_regex_match(re, a->s, a->n);
}

static char *repeat_char(char c, size_t n, const char *tail)
{
	size_t t = strlen(tail);
	char *s = ty_alloc(n + t + 1);
	memset(s, c, n);
	memcpy(s + n, tail, t + 1);
	return s;
}

/* Patterns that make backtracking engines explode run in linear time. */
static void test_hostile_no_backrefs(void **state)
{
	(void)state;
	const char *pats[] = {"(a*)*c",    "(a|aa)*c", "^(a+)+$",  "(a|a?)+c",
			      "((a*)*)*c", "(?=a*c)a", "(?<=a*)c", "(.*)(.*)(.*)(.*)(.*)c"};
	char *s = repeat_char('a', 20000, "b");
	for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		match_arg a = {pats[i], s, 20001, true};
		util_err e;
		assert_int_equal(ty_protect(do_match, &a, &e), 0);
		assert_false(a.ok);
	}
	/* and they still find the match when there is one */
	s[20000] = 'c';
	for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		if (i == 2)
			continue; /* ^(a+)+$ cannot match a string ending in c */
		match_arg a = {pats[i], s, 20001, false};
		assert_int_equal(ty_protect(do_match, &a, NULL), 0);
		assert_true(a.ok);
	}
	util_arena_reset(arena);
}

/* Back-references need backtracking; a budget stops the hopeless ones
 * with PostgreSQL's "too complex" error instead of hanging (PostgreSQL
 * itself runs ^((a+)\2)+$ on 101 a's for hours). */
static void test_backref_budget(void **state)
{
	(void)state;
	uint64_t saved = ty_re_backref_budget;
	ty_re_backref_budget = 2000000;
	char *s = repeat_char('a', 101, "");
	match_arg a = {"^((a+)\\2)+$", s, 101, false};
	util_err e;
	assert_int_equal(ty_protect(do_match, &a, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "2201B");
	assert_string_equal(e.message, "invalid regular expression: regular expression is too complex");
	/* a reasonable back-reference still works */
	match_arg b = {"^(a*)\\1$", s, 100, false};
	assert_int_equal(ty_protect(do_match, &b, NULL), 0);
	assert_true(b.ok);
	ty_re_backref_budget = saved;
	util_arena_reset(arena);
}

static void test_too_big(void **state)
{
	(void)state;
	match_arg a = {"((a{255}){255}){255}", "a", 1, false};
	util_err e;
	assert_int_equal(ty_protect(do_match, &a, &e), -1);
	assert_string_equal(e.message, "invalid regular expression: regular expression is too complex");
}

/* A long text with many matches: regexp_replace with the g flag. */
static void test_long_replace(void **state)
{
	(void)state;
	size_t n = 200000;
	char *s = ty_alloc(n);
	for (size_t i = 0; i < n; i++)
		s[i] = (i % 10 == 9) ? ' ' : (char)('a' + i % 7);
	ty_oid types[4] = {TY_TEXT, TY_TEXT, TY_TEXT, TY_TEXT};
	ty_datum args[4] = {ty_bytes(s, n), ty_text("([a-z]+) "), ty_text("<\\1>"), ty_text("g")};
	ty_datum r = ty_call("regexp_replace", 4, types, args);
	assert_int_equal(r.len, n + n / 10);
	assert_memory_equal(r.p, "<abcdefgab>", 11);
	util_arena_reset(arena);
}

/* The first pattern at a call site is cached in the cache arena; other
 * patterns compile into the current arena and leave the cache alone. */
static void test_call_site_cache(void **state)
{
	(void)state;
	util_arena *cache_arena = util_arena_new(4096, 0);
	void *cache = NULL;
	const ty_func *f = NULL;
	int cur = 0;
	while ((f = ty_func_lookup("textregexeq", &cur)))
		if (f->args[0] == TY_TEXT)
			break;
	assert_non_null(f);
	ty_oid types[2] = {TY_TEXT, TY_TEXT};
	const char *pats[] = {"^a", "b$", "^a", "c", "^a"};
	const char *subj[] = {"abc", "abc", "xbc", "abc", "ab"};
	bool want[] = {true, false, false, true, true};
	for (int i = 0; i < 5; i++) {
		ty_datum args[2] = {ty_text(subj[i]), ty_text(pats[i])};
		ty_fcinfo fc = {.nargs = 2,
				.args = args,
				.argtypes = types,
				.rettype = TY_BOOL,
				.cache = &cache,
				.cache_arena = cache_arena};
		assert_int_equal(f->fn(&fc).i, want[i]);
		size_t used = util_arena_used(cache_arena);
		if (i == 0)
			assert_true(used > 0);
		util_arena_reset(arena);
		(void)used;
	}
	size_t after = util_arena_used(cache_arena);
	for (int i = 0; i < 100; i++) {
		char pat[16];
		snprintf(pat, sizeof pat, "x%d", i);
		ty_datum args[2] = {ty_text("x5"), ty_text(pat)};
		ty_fcinfo fc = {.nargs = 2,
				.args = args,
				.argtypes = types,
				.rettype = TY_BOOL,
				.cache = &cache,
				.cache_arena = cache_arena};
		f->fn(&fc);
		util_arena_reset(arena);
	}
	assert_int_equal(util_arena_used(cache_arena), after);
	util_arena_destroy(cache_arena);
}

static void test_prefix(void **state)
{
	(void)state;
	struct {
		const char *pat;
		int cflags;
		const char *prefix;
		bool exact;
	} v[] = {{"^abc", 0, "abc", false},   {"^abc$", 0, "abc", true},     {"^ab+c", 0, "a", false},
		 {"abc", 0, "", false},       {"^abc", RE_ICASE, "", false}, {"^a.c", 0, "a", false},
		 {"^日本", 0, "日本", false}, {"\\Aab\\Z", 0, "ab", true}};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		ty_regex *re = ty_regex_compile(v[i].pat, strlen(v[i].pat), v[i].cflags, arena);
		util_buf b = UTIL_BUF_INIT;
		bool exact = ty_regex_prefix(re, &b);
		assert_string_equal(b.data ? b.data : "", v[i].prefix);
		assert_int_equal(exact, v[i].exact);
		util_buf_free(&b);
	}
	util_arena_reset(arena);
}

/* Set-returning functions keep their rows across calls in the cache arena. */
static void test_srf(void **state)
{
	(void)state;
	util_arena *cache_arena = util_arena_new(4096, 0);
	void *cache = NULL;
	const ty_func *f = NULL;
	int cur = 0;
	while ((f = ty_func_lookup("regexp_split_to_table", &cur)))
		if (f->nargs == 2)
			break;
	assert_non_null(f);
	ty_oid types[2] = {TY_TEXT, TY_TEXT};
	ty_datum args[2] = {ty_text("a1b22c"), ty_text("[0-9]+")};
	ty_fcinfo fc = {.nargs = 2,
			.args = args,
			.argtypes = types,
			.rettype = TY_TEXT,
			.cache = &cache,
			.cache_arena = cache_arena,
			.srf_first = true};
	const char *want[] = {"a", "b", "c"};
	for (int i = 0; i < 3; i++) {
		ty_datum d = f->fn(&fc);
		assert_false(fc.srf_done);
		util_arena_reset(arena); /* rows must not live in the per-row arena */
		assert_int_equal(d.len, 1);
		assert_memory_equal(d.p, want[i], 1);
	}
	f->fn(&fc);
	assert_true(fc.srf_done);
	util_arena_destroy(cache_arena);
}

/* Random patterns over a tiny alphabet: the lazy DFA (~ operators) and
 * the NFA search (regexp functions) must agree on every text, with the
 * DFA's state cache reused across texts. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void gen_re(util_buf *b, int depth)
{
	int k = depth > 3 ? rnd(4) : rnd(11);
	switch (k) {
	case 0:
		util_buf_putc(b, "ab"[rnd(2)]);
		break;
	case 1:
		util_buf_puts(b, rnd(2) ? "." : "[ab]");
		break;
	case 2:
		util_buf_puts(b, rnd(2) ? "[^a]" : "b");
		break;
	case 3:
		util_buf_puts(b, rnd(3) == 0 ? "^" : rnd(2) ? "$" : "a");
		break;
	case 4:
	case 5:
		gen_re(b, depth + 1);
		gen_re(b, depth + 1);
		break;
	case 6:
		util_buf_putc(b, '(');
		gen_re(b, depth + 1);
		util_buf_putc(b, '|');
		gen_re(b, depth + 1);
		util_buf_putc(b, ')');
		break;
	default:
		util_buf_puts(b, "(?:");
		gen_re(b, depth + 1);
		util_buf_putc(b, ')');
		util_buf_puts(b, (const char *[]){"*", "+", "?", "{1,2}", "*?"}[rnd(5)]);
		break;
	}
}

static void test_dfa_vs_nfa(void **state)
{
	(void)state;
	util_buf pat = UTIL_BUF_INIT;
	int answered = 0;
	for (int iter = 0; iter < 400; iter++) {
		util_buf_reset(&pat);
		gen_re(&pat, 0);
		util_arena *ra = util_arena_new(4096, 0);
		ty_regex *re = ty_regex_compile(pat.data, pat.len, rnd(4) == 0 ? RE_ICASE : 0, ra);
		for (int t = 0; t < 40; t++) {
			char text[12];
			int n = (int)rnd(9);
			for (int i = 0; i < n; i++)
				text[i] = "abAB\n"[rnd(5)];
			int d = ty_re_dfa_match(re, text, (size_t)n);
			re_exec *x = ty_re_exec_new(re, text, (size_t)n);
			bool nfa = ty_re_find(x, 0);
			if (d >= 0) {
				answered++;
				if (d != nfa)
					fail_msg("pattern /%s/ on '%.*s': dfa %d nfa %d", pat.data, n, text,
						 d, nfa);
			}
			util_arena_reset(arena);
		}
		util_arena_destroy(ra);
	}
	util_buf_free(&pat);
	assert_true(answered > 8000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile_no_backrefs),
	    cmocka_unit_test(test_backref_budget),
	    cmocka_unit_test(test_too_big),
	    cmocka_unit_test(test_long_replace),
	    cmocka_unit_test(test_call_site_cache),
	    cmocka_unit_test(test_prefix),
	    cmocka_unit_test(test_srf),
	    cmocka_unit_test(test_dfa_vs_nfa),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
