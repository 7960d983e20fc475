/*
 * copy_par_test.c — the parse pipeline of COPY FROM (sql/copy_par.c) with
 * real worker threads: chunks come back parsed in input order, the first
 * bad line in input order is the one a consumer meets, and the memory in
 * flight stays bounded when lines are long (a chunk is at least one line:
 * without the bound every slot held one, many times the serial loop's
 * memory). End-to-end behaviour: tests/copypar.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../copy_par.h"

/* The test's parse function: each line's length as its row; a line
 * starting with '!' fails. */
static void parse_lengths(void *arg, sql_copy_chunk *c)
{
	(void)arg;
	c->rows = ty_alloc(sizeof(ty_datum) * (size_t)(c->nlines ? c->nlines : 1));
	for (int i = 0; i < c->nlines; i++) {
		size_t st = i ? c->ends[i - 1] : 0;
		if (c->ends[i] > st && c->text.data[st] == '!')
			ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "bad line %lld",
				 (long long)(c->first_line + i));
		c->rows[i] = ty_int((int64_t)(c->ends[i] - st));
		c->nparsed = i + 1;
	}
}

/* Appends `lines` lines of `len` bytes (line numbers from *lineno) to c. */
static void fill(sql_copy_chunk *c, int lines, size_t len, int64_t *lineno, bool bad)
{
	for (int i = 0; i < lines; i++) {
		size_t at = c->text.len;
		util_buf_reserve(&c->text, len);
		memset(c->text.data + at, 'x', len);
		if (bad && i == lines / 2)
			c->text.data[at] = '!';
		c->text.len = at + len;
		sql_copy_chunk_add(c, ++*lineno);
	}
}

/* Consumes every chunk in flight; returns the lines seen. */
static int64_t drain(sql_copy_par *p, int64_t *next_line, size_t len)
{
	int64_t n = 0;
	sql_copy_chunk *c;
	while ((c = sql_copy_par_next(p)) != NULL) {
		assert_false(c->failed);
		assert_int_equal(c->first_line, *next_line);
		assert_int_equal(c->nparsed, c->nlines);
		for (int i = 0; i < c->nlines; i++)
			assert_int_equal(c->rows[i].i, (int64_t)len);
		*next_line += c->nlines;
		n += c->nlines;
		sql_copy_par_release(p);
	}
	return n;
}

static void test_long_lines_bounded(void **state)
{
	(void)state;
	ty_settings tys;
	ty_settings_default(&tys);
	sql_copy_par *p = sql_copy_par_new(2, parse_lengths, NULL, &tys);
	/* Chunks of the usual size: every slot may be in flight. */
	int64_t lineno = 0, next_line = 1;
	size_t small = 1000;
	int got = 0;
	sql_copy_chunk *c;
	while ((c = sql_copy_par_slot(p)) != NULL) {
		fill(c, (int)(SQL_COPY_CHUNK_BYTES / small), small, &lineno, false);
		sql_copy_par_submit(p);
		got++;
	}
	assert_int_equal(got, 16); /* 8 per worker */
	assert_int_equal(drain(p, &next_line, small), lineno);
	/* A line of 8 chunks' size per chunk: past twice the slots' usual
	 * text only two chunks are in flight, not a slot's worth each. */
	size_t big = 8 * (size_t)SQL_COPY_CHUNK_BYTES, bound = 2 * 16 * (size_t)SQL_COPY_CHUNK_BYTES;
	for (int round = 0; round < 3; round++) {
		got = 0;
		while ((c = sql_copy_par_slot(p)) != NULL) {
			fill(c, 1, big, &lineno, false);
			sql_copy_par_submit(p);
			got++;
		}
		assert_in_range(got, 2, bound / big + 1);
		assert_int_equal(drain(p, &next_line, big), got);
	}
	assert_int_equal(sql_copy_par_started(p), 2);
	sql_copy_par_free(p);
}

static void test_first_error_in_input_order(void **state)
{
	(void)state;
	ty_settings tys;
	ty_settings_default(&tys);
	sql_copy_par *p = sql_copy_par_new(3, parse_lengths, NULL, &tys);
	int64_t lineno = 0;
	sql_copy_chunk *c;
	int k = 0;
	/* Chunks 3 and 7 have a bad line in their middle. */
	while ((c = sql_copy_par_slot(p)) != NULL && k < 10) {
		fill(c, 100, 50, &lineno, k == 3 || k == 7);
		sql_copy_par_submit(p);
		k++;
	}
	int64_t line = 1;
	for (int i = 0; i < 3; i++) {
		c = sql_copy_par_next(p);
		assert_non_null(c);
		assert_false(c->failed);
		line += c->nlines;
		sql_copy_par_release(p);
	}
	c = sql_copy_par_next(p);
	assert_non_null(c);
	assert_true(c->failed);
	assert_int_equal(c->nparsed, 50);
	assert_int_equal(c->first_line + c->nparsed, line + 50);
	char want[64];
	snprintf(want, sizeof want, "bad line %lld", (long long)(line + 50));
	assert_string_equal(c->err.message, want);
	/* The consumer stops here (the COPY fails); freeing joins the workers
	 * whatever they still hold. */
	sql_copy_par_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_lines_bounded),
	    cmocka_unit_test(test_first_error_in_input_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
