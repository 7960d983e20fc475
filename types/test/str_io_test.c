/*
 * str_io_test.c — string-area I/O that the generated table cannot carry:
 * invalid UTF-8 and NUL bytes (messages checked against PostgreSQL 15 by
 * hand: psql -c "select E'\xe2\x28\xa1'"), binary send/recv, typmod
 * declarations, format_type spellings and the LIKE prefix used for key
 * range pushdown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "ty_strings.h"

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

typedef struct in_arg {
	ty_oid type;
	const char *s;
	size_t n;
	int32_t typmod;
	bool binary;
	ty_datum out;
} in_arg;

static void do_input(void *p)
{
	in_arg *a = p;
	if (a->binary)
		a->out = ty_type_get(a->type)->recv((const uint8_t *)a->s, a->n, a->typmod);
	else
		a->out = ty_input(a->type, a->s, a->n, a->typmod);
}

static void expect_error(ty_oid type, const char *s, size_t n, bool binary, const char *state,
			 const char *msg)
{
	in_arg a = {type, s, n, TY_TYPMOD_NONE, binary, {{0}, 0, false}};
	util_err e;
	assert_int_equal(ty_protect(do_input, &a, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), state);
	assert_string_equal(e.message, msg);
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		const char *msg;
	} v[] = {
	    {"\xff", "invalid byte sequence for encoding \"UTF8\": 0xff"},
	    {"\xe2\x28\xa1", "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1"},
	    {"ab\xc3", "invalid byte sequence for encoding \"UTF8\": 0xc3"},
	    {"\xed\xa0\x80", "invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80"},
	    {"\xf4\x90\x80\x80", "invalid byte sequence for encoding \"UTF8\": 0xf4 0x90 0x80 0x80"},
	    {"\xc0\x80", "invalid byte sequence for encoding \"UTF8\": 0xc0 0x80"},
	    {"\xf0\x9f\x98", "invalid byte sequence for encoding \"UTF8\": 0xf0 0x9f 0x98"},
	    {"\x80", "invalid byte sequence for encoding \"UTF8\": 0x80"},
	    {"\xf8\x88\x80\x80\x80", "invalid byte sequence for encoding \"UTF8\": 0xf8"},
	};
	ty_oid types[] = {TY_TEXT, TY_VARCHAR, TY_BPCHAR, TY_NAME};
	for (size_t t = 0; t < 4; t++)
		for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
			expect_error(types[t], v[i].s, strlen(v[i].s), false, "22021", v[i].msg);
			expect_error(types[t], v[i].s, strlen(v[i].s), true, "22021", v[i].msg);
		}
	/* NUL bytes cannot be stored in text */
	expect_error(TY_TEXT, "a\0b", 3, false, "22021", "invalid byte sequence for encoding \"UTF8\": 0x00");
	expect_error(TY_TEXT, "a\0b", 3, true, "22021", "invalid byte sequence for encoding \"UTF8\": 0x00");
	/* valid 4-byte and boundary characters pass */
	in_arg a = {TY_TEXT, "\xf4\x8f\xbf\xbf\xef\xbf\xbf\xc2\x80", 9, -1, false, {{0}, 0, false}};
	assert_int_equal(ty_protect(do_input, &a, NULL), 0);
	assert_int_equal(a.out.len, 9);
}

static void test_binary(void **state)
{
	(void)state;
	util_buf b = UTIL_BUF_INIT;
	const ty_type *t = ty_type_get(TY_VARCHAR);
	ty_datum d = t->recv((const uint8_t *)"abc  ", 5, 3 + TY_VARHDRSZ);
	t->send(d, &b);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "abc", 3);
	in_arg a = {TY_VARCHAR, "abcd", 4, 3 + TY_VARHDRSZ, true, {{0}, 0, false}};
	util_err e;
	assert_int_equal(ty_protect(do_input, &a, &e), -1);
	assert_string_equal(e.message, "value too long for type character varying(3)");

	util_buf_reset(&b);
	t = ty_type_get(TY_BPCHAR);
	t->send(t->recv((const uint8_t *)"ab", 2, 4 + TY_VARHDRSZ), &b);
	assert_int_equal(b.len, 4);
	assert_memory_equal(b.data, "ab  ", 4);

	util_buf_reset(&b);
	t = ty_type_get(TY_BYTEA);
	t->send(t->recv((const uint8_t *)"\0\xff", 2, -1), &b);
	assert_int_equal(b.len, 2);
	assert_memory_equal(b.data, "\0\xff", 2);

	util_buf_reset(&b);
	t = ty_type_get(TY_CHAR);
	t->send(t->recv((const uint8_t *)"\xfe", 1, -1), &b);
	assert_int_equal(b.len, 1);
	assert_int_equal((uint8_t)b.data[0], 0xfe);
	expect_error(TY_CHAR, "ab", 2, true, "22P03", "incorrect binary data format");

	char longname[70];
	memset(longname, 'x', sizeof longname);
	expect_error(TY_NAME, longname, 64, true, "42622", "identifier too long");
	util_buf_free(&b);
}

typedef struct tm_arg {
	ty_oid type;
	int64_t n;
	int32_t out;
} tm_arg;

static void do_typmod(void *p)
{
	tm_arg *a = p;
	a->out = ty_char_typmod_in(a->type, a->n);
}

static void test_typmods(void **state)
{
	(void)state;
	tm_arg a = {TY_VARCHAR, 10, 0};
	assert_int_equal(ty_protect(do_typmod, &a, NULL), 0);
	assert_int_equal(a.out, 14);
	util_err e;
	a.n = 0;
	assert_int_equal(ty_protect(do_typmod, &a, &e), -1);
	assert_string_equal(e.message, "length for type varchar must be at least 1");
	a.type = TY_BPCHAR;
	a.n = 10485761;
	assert_int_equal(ty_protect(do_typmod, &a, &e), -1);
	assert_string_equal(e.message, "length for type char cannot exceed 10485760");
	assert_string_equal(util_errcode_sqlstate(e.code), "22023");

	util_buf b = UTIL_BUF_INIT;
	struct {
		ty_oid t;
		int32_t tm;
		const char *s;
	} f[] = {{TY_BPCHAR, -1, "bpchar"},
		 {TY_BPCHAR, 14, "character(10)"},
		 {TY_VARCHAR, -1, "character varying"},
		 {TY_VARCHAR, 9, "character varying(5)"},
		 {TY_CHAR, -1, "\"char\""},
		 {TY_NAME, -1, "name"},
		 {TY_BYTEA, -1, "bytea"},
		 {TY_TEXT, -1, "text"}};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		util_buf_reset(&b);
		ty_format_type(f[i].t, f[i].tm, &b);
		assert_string_equal(b.data, f[i].s);
	}
	util_buf_free(&b);
}

static void test_like_prefix(void **state)
{
	(void)state;
	util_buf b = UTIL_BUF_INIT;
	assert_false(ty_like_prefix("abc%", 4, &b));
	assert_string_equal(b.data, "abc");
	util_buf_reset(&b);
	assert_true(ty_like_prefix("a\\%b", 4, &b));
	assert_string_equal(b.data, "a%b");
	util_buf_reset(&b);
	assert_false(ty_like_prefix("_x", 2, &b));
	assert_int_equal(b.len, 0);
	util_buf_reset(&b);
	assert_false(ty_like_prefix("ab\\", 3, &b));
	assert_string_equal(b.data, "ab");
	util_buf_free(&b);
	/* the matcher itself is covered by str_cases_test; a long hostile
	 * pattern must stay fast (no exponential backtracking) */
	char s[4001], p[2001];
	memset(s, 'a', 4000);
	s[4000] = 0;
	for (int i = 0; i < 1000; i++) {
		p[2 * i] = '%';
		p[2 * i + 1] = 'a';
	}
	p[2000] = 'b';
	assert_false(ty_like_match(s, 4000, p, 2001, false, false));
}

/* '%literal%' takes a substring search (str_like.c): it must answer as the
 * general matcher does, which '%%literal%' (a '%' inside) still takes.
 * Texts and literals of ASCII and multi-byte UTF-8 characters whose bytes
 * overlap (the continuation byte 0xa9 of "é" and "©"). */
static void test_like_substring(void **state)
{
	(void)state;
	static const char *const atoms[] = {"a", "b", "ab", "\xc3\xa9", "\xc2\xa9", "\xe2\x82\xac", "%", "_"};
	const int na = (int)(sizeof atoms / sizeof atoms[0]);
	unsigned seed = 12345;
	for (int iter = 0; iter < 20000; iter++) {
		char text[64] = "", lit[32] = "", fast[40], slow[40];
		seed = seed * 1103515245u + 12345u;
		int tn = (int)((seed >> 16) % 8);
		for (int i = 0; i < tn; i++) {
			seed = seed * 1103515245u + 12345u;
			strcat(text, atoms[(seed >> 16) % (unsigned)(na - 2)]); /* no wildcards in text */
		}
		seed = seed * 1103515245u + 12345u;
		int ln = (int)((seed >> 16) % 4);
		for (int i = 0; i < ln; i++) {
			seed = seed * 1103515245u + 12345u;
			strcat(lit, atoms[(seed >> 16) % (unsigned)na]);
		}
		snprintf(fast, sizeof fast, "%%%s%%", lit);
		snprintf(slow, sizeof slow, "%%%%%s%%", lit);
		bool a = ty_like_match(text, strlen(text), fast, strlen(fast), false, false);
		bool b = ty_like_match(text, strlen(text), slow, strlen(slow), false, false);
		if (a != b)
			fail_msg("LIKE '%s' on '%s': %d, general matcher %d", fast, text, a, b);
		/* a literal without wildcards: the same as strstr */
		if (!strpbrk(lit, "%_"))
			assert_int_equal(a, strstr(text, lit) != NULL);
		a = ty_like_match(text, strlen(text), fast, strlen(fast), false, true);
		b = ty_like_match(text, strlen(text), slow, strlen(slow), false, true);
		assert_int_equal(a, b);
	}
	assert_true(ty_like_match("xyz", 3, "%%", 2, false, false));
	assert_true(ty_like_match("", 0, "%%", 2, false, false));
	assert_false(ty_like_match("", 0, "%a%", 3, false, false));
	assert_true(ty_like_match("a%b", 3, "%\\%%", 4, false, false)); /* escaped: the general path */
	assert_false(ty_like_match("ab", 2, "%\\%%", 4, false, false));
}

/* A plain recursive LIKE matcher (the model): '%' any run of characters,
 * '_' one character (one byte with bytes), backslash escapes the next. */
static size_t model_charlen(const char *t, bool bytes)
{
	unsigned char c = (unsigned char)t[0];
	if (bytes || c < 0x80)
		return 1;
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
}

static bool model_like(const char *t, size_t tl, const char *p, size_t pl, bool bytes)
{
	if (pl == 0)
		return tl == 0;
	if (p[0] == '%') {
		for (size_t i = 0;; i += model_charlen(t + i, bytes)) {
			if (model_like(t + i, tl - i, p + 1, pl - 1, bytes))
				return true;
			if (i >= tl)
				return false;
		}
	}
	if (tl == 0)
		return false;
	if (p[0] == '_') {
		size_t n = model_charlen(t, bytes);
		return model_like(t + n, tl - n, p + 1, pl - 1, bytes);
	}
	size_t k = p[0] == '\\' ? 1 : 0;
	if (p[k] != t[0])
		return false;
	return model_like(t + 1, tl - 1, p + k + 1, pl - k - 1, bytes);
}

/* Every pattern shape (str_like.c: exact, prefix, suffix, substring, all,
 * general) against the model, on texts of ASCII and multi-byte characters,
 * compiled once and matched many times as the executor does. */
static void test_like_shapes(void **state)
{
	(void)state;
	static const char *const atoms[] = {"a", "b", "ab", "\xc3\xa9", "\xc2\xa9", "\xe2\x82\xac",
					    "%", "%", "_",  "\\%",      "\\_",      "\\\\"};
	const int na = (int)(sizeof atoms / sizeof atoms[0]);
	unsigned seed = 777;
	int shapes[TY_LIKE_CONTAINS + 1] = {0};
	for (int iter = 0; iter < 4000; iter++) {
		char pat[64] = "";
		seed = seed * 1103515245u + 12345u;
		int pn = (int)((seed >> 16) % 6);
		for (int i = 0; i < pn; i++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly plain atoms and '%': the fast shapes */
			unsigned r = (seed >> 16) % 16u;
			strcat(pat, atoms[r < (unsigned)na ? r : 6]);
		}
		ty_like_pat lp, lpb;
		ty_like_compile(&lp, pat, strlen(pat), false, false);
		ty_like_compile(&lpb, pat, strlen(pat), false, true);
		shapes[lp.kind]++;
		for (int j = 0; j < 8; j++) {
			char text[64] = "";
			seed = seed * 1103515245u + 12345u;
			int tn = (int)((seed >> 16) % 7);
			for (int i = 0; i < tn; i++) {
				seed = seed * 1103515245u + 12345u;
				strcat(text, atoms[(seed >> 16) % 6u]); /* no wildcards in text */
			}
			bool want = model_like(text, strlen(text), pat, strlen(pat), false);
			if (ty_like_exec(&lp, text, strlen(text)) != want)
				fail_msg("LIKE '%s' on '%s' (shape %d): model says %d", pat, text, lp.kind,
					 want);
			assert_int_equal(ty_like_match(text, strlen(text), pat, strlen(pat), false, false),
					 want);
			want = model_like(text, strlen(text), pat, strlen(pat), true);
			if (ty_like_exec(&lpb, text, strlen(text)) != want)
				fail_msg("bytea LIKE '%s' on '%s' (shape %d): model says %d", pat, text,
					 lpb.kind, want);
		}
	}
	for (int k = 0; k <= TY_LIKE_CONTAINS; k++)
		if (shapes[k] == 0)
			fail_msg("shape %d never generated", k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_invalid_utf8),   cmocka_unit_test(test_binary),
	    cmocka_unit_test(test_typmods),        cmocka_unit_test(test_like_prefix),
	    cmocka_unit_test(test_like_substring), cmocka_unit_test(test_like_shapes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
