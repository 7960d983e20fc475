/* codec_test.c — unit tests for the message codec: the bounds-checked reader, the writers
 * (ErrorResponse fields, RowDescription, ReadyForQuery) and UTF-8 validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgw_int.h"

static void test_reader_ok(void **state)
{
	(void)state;
	const uint8_t body[] = {'a', 'b', 0, 0x00, 0x02, 0xff, 0xff, 0xff, 0xfe, 7, 'x', 'y'};
	pgw_rd r;
	pgw_rd_init(&r, body, sizeof body);
	assert_string_equal(pgw_rd_str(&r), "ab");
	assert_int_equal(pgw_rd_i16(&r), 2);
	assert_int_equal(pgw_rd_i32(&r), -2);
	assert_int_equal(pgw_rd_u8(&r), 7);
	const uint8_t *p = pgw_rd_bytes(&r, 2);
	assert_non_null(p);
	assert_memory_equal(p, "xy", 2);
	pgw_rd_end(&r);
	util_err e;
	util_err_clear(&e);
	assert_int_equal(pgw_rd_check(&r, &e), 0);
}

/* Every way a reader can run off the end reports PostgreSQL's message and
 * keeps returning harmless values. */
static void test_reader_bounds(void **state)
{
	(void)state;
	util_err e;
	pgw_rd r;
	const uint8_t one[] = {1};
	pgw_rd_init(&r, one, sizeof one);
	assert_int_equal(pgw_rd_i32(&r), 0);
	assert_int_equal(pgw_rd_check(&r, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "08P01");
	assert_string_equal(e.message, "insufficient data left in message");
	/* later reads return zero values and keep the first error */
	assert_int_equal(pgw_rd_u8(&r), 0);
	assert_null(pgw_rd_bytes(&r, 1));
	assert_string_equal(pgw_rd_str(&r), "");
	pgw_rd_check(&r, &e);
	assert_string_equal(e.message, "insufficient data left in message");

	const uint8_t unterminated[] = {'a', 'b'};
	pgw_rd_init(&r, unterminated, sizeof unterminated);
	assert_string_equal(pgw_rd_str(&r), "");
	pgw_rd_check(&r, &e);
	assert_string_equal(e.message, "invalid string in message");

	pgw_rd_init(&r, NULL, 0);
	pgw_rd_u8(&r);
	pgw_rd_check(&r, &e);
	assert_string_equal(e.message, "no data left in message");

	const uint8_t extra[] = {'a', 0, 'b'};
	pgw_rd_init(&r, extra, sizeof extra);
	pgw_rd_str(&r);
	pgw_rd_end(&r);
	pgw_rd_check(&r, &e);
	assert_string_equal(e.message, "invalid message format");

	/* A huge length never reads out of bounds. */
	pgw_rd_init(&r, extra, sizeof extra);
	assert_null(pgw_rd_bytes(&r, (size_t)-1));
	assert_int_equal(pgw_rd_check(&r, &e), -1);
}

/* Splits an ErrorResponse body into "X=value" strings. */
static int fields(const util_buf *b, char out[][128], int max)
{
	assert_true(b->len >= 5);
	uint32_t len = util_get_be32((const uint8_t *)b->data + 1);
	assert_int_equal(len, b->len - 1);
	const char *p = b->data + 5, *end = b->data + b->len;
	int n = 0;
	while (p < end && *p) {
		assert_true(n < max);
		snprintf(out[n++], 128, "%c=%s", p[0], p + 1);
		p += strlen(p) + 1;
	}
	assert_ptr_equal(p, end - 1); /* the terminating NUL ends the body */
	return n;
}

static void test_error_fields(void **state)
{
	(void)state;
	util_err e;
	util_err_set(&e, UTIL_E_UNDEFINED_TABLE, "relation \"t\" does not exist");
	e.position = 15;
	util_err_hint(&e, "a hint");
	util_err_field(e.table, "t");
	util_buf b = UTIL_BUF_INIT;
	pgw_wr_error(&b, &e, false);
	char f[16][128];
	int n = fields(&b, f, 16);
	assert_int_equal(b.data[0], 'E');
	assert_int_equal(n, 7);
	assert_string_equal(f[0], "S=ERROR");
	assert_string_equal(f[1], "V=ERROR");
	assert_string_equal(f[2], "C=42P01");
	assert_string_equal(f[3], "M=relation \"t\" does not exist");
	assert_string_equal(f[4], "H=a hint");
	assert_string_equal(f[5], "P=15");
	assert_string_equal(f[6], "t=t");

	util_buf_reset(&b);
	e.severity = UTIL_SEV_FATAL;
	pgw_wr_error(&b, &e, false);
	n = fields(&b, f, 16);
	assert_string_equal(f[0], "S=FATAL");

	/* A notice: 'N', severity NOTICE when the engine left ERROR. */
	util_buf_reset(&b);
	util_err_clear(&e);
	util_err_set(&e, UTIL_E_SUCCESSFUL_COMPLETION, "table \"x\" does not exist, skipping");
	e.severity = UTIL_SEV_NOTICE;
	pgw_wr_error(&b, &e, true);
	assert_int_equal(b.data[0], 'N');
	n = fields(&b, f, 16);
	assert_int_equal(n, 4);
	assert_string_equal(f[0], "S=NOTICE");
	assert_string_equal(f[2], "C=00000");
	util_buf_free(&b);
}

static void test_writers(void **state)
{
	(void)state;
	util_buf b = UTIL_BUF_INIT;
	sql_column cols[2] = {{.name = "a",
			       .table_oid = 16384,
			       .attnum = 1,
			       .type_oid = 23,
			       .type_len = 4,
			       .typmod = -1,
			       .format = 0},
			      {.name = "b", .type_oid = 25, .type_len = -1, .typmod = -1, .format = 1}};
	sql_rowdesc d = {2, cols};
	pgw_wr_rowdesc(&b, &d);
	const uint8_t *p = (const uint8_t *)b.data;
	assert_int_equal(p[0], 'T');
	assert_int_equal(util_get_be32(p + 1), b.len - 1);
	assert_int_equal(util_get_be16(p + 5), 2);
	assert_string_equal((const char *)p + 7, "a");
	assert_int_equal(util_get_be32(p + 9), 16384);
	assert_int_equal(util_get_be16(p + 13), 1);
	assert_int_equal(util_get_be32(p + 15), 23);
	assert_int_equal(util_get_be16(p + 19), 4);
	assert_int_equal(util_get_be32(p + 21), 0xffffffffu);
	assert_int_equal(util_get_be16(p + 25), 0);
	assert_int_equal(b.len, 1 + 4 + 2 + 2 * 18 + 2 * 2);

	util_buf_reset(&b);
	pgw_wr_ready(&b, 'T');
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.data, "Z\0\0\0\5T", 6);
	util_buf_reset(&b);
	pgw_wr_complete(&b, "SELECT 1");
	assert_memory_equal(b.data, "C\0\0\0\15SELECT 1\0", 14);
	util_buf_reset(&b);
	pgw_wr_param_status(&b, "a", "b");
	assert_memory_equal(b.data, "S\0\0\0\10a\0b\0", 9);
	util_buf_reset(&b);
	pgw_wr_empty(&b, '1');
	assert_memory_equal(b.data, "1\0\0\0\4", 5);
	util_buf_free(&b);
}

static void test_utf8(void **state)
{
	(void)state;
	util_err e;
	const char *good[] = {"",
			      "plain ascii text longer than eight",
			      "h\xc3\xa9llo",
			      "\xe2\x82\xac",
			      "\xf0\x9f\x98\x80",
			      "\xef\xbf\xbf",
			      "\xf4\x8f\xbf\xbf"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(good); i++)
		assert_int_equal(pgw_utf8_check(good[i], strlen(good[i]), &e), 0);
	/* The messages are what PostgreSQL 15 sends for the same bytes. */
	struct {
		const char *s;
		const char *msg;
	} bad[] = {
	    {"select '\xc3\x28'", "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28"},
	    {"select 'ab\xf0\x9f'", "invalid byte sequence for encoding \"UTF8\": 0xf0 0x9f 0x27"},
	    {"\xff", "invalid byte sequence for encoding \"UTF8\": 0xff"},
	    {"\xc0\x80", "invalid byte sequence for encoding \"UTF8\": 0xc0 0x80"}, /* overlong NUL */
	    {"\xed\xa0\x80", "invalid byte sequence for encoding \"UTF8\": 0xed 0xa0 0x80"}, /* surrogate */
	    {"\xf4\x90\x80\x80", "invalid byte sequence for encoding \"UTF8\": 0xf4 0x90 0x80 0x80"},
	    {"abcdefghij\x80", "invalid byte sequence for encoding \"UTF8\": 0x80"},
	    {"\xe2\x82", "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82"},
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++) {
		assert_int_equal(pgw_utf8_check(bad[i].s, strlen(bad[i].s), &e), -1);
		assert_string_equal(util_errcode_sqlstate(e.code), "22021");
		assert_string_equal(e.message, bad[i].msg);
	}
	/* An embedded NUL is invalid too. */
	assert_int_equal(pgw_utf8_check("a\0b", 3, &e), -1);
	assert_int_equal(pgw_utf8_valid_prefix((const uint8_t *)"abcdefgh\0", 9), 8);
}

static void test_decode_bind(void **state)
{
	(void)state;
	/* portal "", statement "s", formats [1, 0], 2 params (binary 4 bytes,
	 * NULL), result formats [1] */
	const uint8_t body[] = {0, 's', 0, 0, 2,  0,    1,    0,    0,    0, 2, 0, 0, 0,
				4, 0,   0, 0, 42, 0xff, 0xff, 0xff, 0xff, 0, 1, 0, 1};
	pgw_fe_scratch s = {0};
	pgw_bind_msg m;
	util_err e;
	assert_int_equal(pgw_decode_bind(body, sizeof body, &s, &m, &e), 0);
	assert_string_equal(m.portal, "");
	assert_string_equal(m.stmt, "s");
	assert_int_equal(m.p.nformats, 2);
	assert_int_equal(m.p.nparams, 2);
	assert_int_equal(m.p.lengths[0], 4);
	assert_memory_equal(m.p.values[0], "\0\0\0\x2a", 4);
	assert_null(m.p.values[1]);
	assert_int_equal(m.p.nresult_formats, 1);
	assert_int_equal(m.p.result_formats[0], 1);

	/* every truncation of it is an error, never a read past the end */
	for (size_t n = 0; n < sizeof body; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, body, n);
		assert_int_equal(pgw_decode_bind(copy, n, &s, &m, &e), -1);
		assert_string_equal(util_errcode_sqlstate(e.code), "08P01");
		free(copy);
	}
	/* a negative length other than -1 */
	uint8_t neg[] = {0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 0, 0};
	assert_int_equal(pgw_decode_bind(neg, sizeof neg, &s, &m, &e), -1);
	assert_string_equal(e.message, "insufficient data left in message");
	/* two formats for one parameter */
	uint8_t fm[] = {0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0};
	assert_int_equal(pgw_decode_bind(fm, sizeof fm, &s, &m, &e), -1);
	assert_string_equal(e.message, "bind message has 2 parameter formats but 1 parameters");
	/* invalid UTF-8 in a text parameter, fine in a binary one */
	uint8_t tx[] = {0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0xff, 0, 0};
	assert_int_equal(pgw_decode_bind(tx, sizeof tx, &s, &m, &e), -1);
	assert_string_equal(util_errcode_sqlstate(e.code), "22021");
	uint8_t bx[] = {0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0xff, 0, 0};
	assert_int_equal(pgw_decode_bind(bx, sizeof bx, &s, &m, &e), 0);
	pgw_fe_scratch_free(&s);
}

static void test_decode_others(void **state)
{
	(void)state;
	pgw_fe_scratch s = {0};
	util_err e;
	pgw_parse_msg pm;
	const uint8_t parse[] = {'s', 0, 's', 'e', 'l', 0, 0, 2, 0, 0, 0, 23, 0, 0, 0, 0};
	assert_int_equal(pgw_decode_parse(parse, sizeof parse, &s, &pm, &e), 0);
	assert_string_equal(pm.name, "s");
	assert_string_equal(pm.query, "sel");
	assert_int_equal(pm.nparams, 2);
	assert_int_equal(pm.types[0], 23);
	assert_int_equal(pm.types[1], 0);
	assert_int_equal(pgw_decode_parse(parse, sizeof parse - 1, &s, &pm, &e), -1);
	char kind;
	const char *name;
	assert_int_equal(pgw_decode_target((const uint8_t *)"Pc1", 4, &kind, &name, &e), 0);
	assert_int_equal(kind, 'P');
	assert_string_equal(name, "c1");
	assert_int_equal(pgw_decode_target((const uint8_t *)"P", 1, &kind, &name, &e), -1);
	int32_t rows;
	assert_int_equal(pgw_decode_execute((const uint8_t *)"c1\0\0\0\0\2", 7, &name, &rows, &e), 0);
	assert_int_equal(rows, 2);
	assert_int_equal(pgw_decode_execute((const uint8_t *)"c1\0\0\0", 5, &name, &rows, &e), -1);
	const char *q;
	assert_int_equal(pgw_decode_query((const uint8_t *)"select 1", 9, &q, &e), 0);
	assert_string_equal(q, "select 1");
	pgw_fe_scratch_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reader_ok),     cmocka_unit_test(test_reader_bounds),
	    cmocka_unit_test(test_error_fields),  cmocka_unit_test(test_writers),
	    cmocka_unit_test(test_utf8),          cmocka_unit_test(test_decode_bind),
	    cmocka_unit_test(test_decode_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
