/* util_test.c — unit tests for util: errors, arenas, buffers, varints, CRC32C, hashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void test_errcodes(void **state)
{
	(void)state;
	assert_string_equal(util_errcode_sqlstate(UTIL_E_UNDEFINED_TABLE), "42P01");
	assert_string_equal(util_errcode_name(UTIL_E_UNIQUE_VIOLATION), "unique_violation");
	assert_int_equal(util_errcode_lookup("22012"), UTIL_E_DIVISION_BY_ZERO);
	assert_int_equal(util_errcode_lookup("division_by_zero"), UTIL_E_DIVISION_BY_ZERO);
	assert_int_equal(util_errcode_lookup("nope"), -1);
	util_err e;
	util_err_clear(&e);
	assert_false(util_err_isset(&e));
	assert_int_equal(util_err_set(&e, UTIL_E_SYNTAX_ERROR, "at %s", "x"), -1);
	assert_true(util_err_isset(&e));
	assert_string_equal(e.message, "at x");
	util_err_detail(&e, "d%d", 1);
	assert_string_equal(e.detail, "d1");
}

static void test_arena(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(256, 0);
	char *p = util_arena_strdup(a, "hello");
	assert_string_equal(p, "hello");
	for (int i = 0; i < 1000; i++) {
		uint8_t *q = util_arena_alloc(a, (size_t)i + 1);
		assert_non_null(q);
		assert_int_equal(((uintptr_t)q) % 16, 0);
		memset(q, 0xab, (size_t)i + 1);
	}
	size_t before = util_arena_used(a);
	util_arena_reset(a);
	assert_true(util_arena_used(a) < before);
	assert_string_equal(util_arena_sprintf(a, "%d-%s", 7, "x"), "7-x");
	util_arena_destroy(a);

	util_arena *b = util_arena_new(1024, 4096);
	int got = 0;
	for (int i = 0; i < 100; i++)
		if (util_arena_alloc(b, 512))
			got++;
	assert_true(got >= 4 && got < 100); /* budget stops growth */
	util_arena_destroy(b);
}

/* Work repeated after a mark takes no more memory than one round of it,
 * and what came before the mark stays intact; a mark of an empty arena too. */
static void test_arena_rewind(void **state)
{
	(void)state;
	for (int empty = 0; empty < 2; empty++) {
		util_arena *a = util_arena_new(256, 0);
		char *keep = empty ? NULL : util_arena_strdup(a, "kept");
		util_arena_pos m = util_arena_mark(a);
		size_t one = 0;
		for (int round = 0; round < 50; round++) {
			for (int i = 0; i < 40; i++)
				memset(util_arena_alloc(a, (size_t)i * 7 + 1), 0xcd, (size_t)i * 7 + 1);
			if (round == 0)
				one = util_arena_used(a);
			assert_int_equal(util_arena_used(a), one);
			util_arena_rewind(a, &m);
		}
		if (keep)
			assert_string_equal(keep, "kept");
		assert_string_equal(util_arena_strdup(a, "after"), "after");
		util_arena_reset(a);
		util_arena_destroy(a);
	}
}

static void test_buf_varint(void **state)
{
	(void)state;
	util_buf b = UTIL_BUF_INIT;
	util_buf_printf(&b, "%s=%d", "a", 1);
	util_buf_puts(&b, "!");
	assert_string_equal(b.data, "a=1!");
	util_buf_reset(&b);
	uint64_t vals[] = {0, 1, 127, 128, 300, 1ull << 35, UINT64_MAX};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(vals); i++)
		util_buf_put_varint(&b, vals[i]);
	const uint8_t *p = (const uint8_t *)b.data, *end = p + b.len;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(vals); i++) {
		uint64_t v;
		size_t n = util_varint_get(p, end, &v);
		assert_true(n > 0);
		assert_true(v == vals[i]);
		p += n;
	}
	assert_ptr_equal(p, end);
	uint8_t bad[2] = {0x80, 0x80};
	uint64_t v;
	assert_int_equal(util_varint_get(bad, bad + 2, &v), 0);
	util_buf_free(&b);
}

static void test_crc32c(void **state)
{
	(void)state;
	/* RFC 3720 test vectors. */
	uint8_t zeros[32] = {0};
	assert_int_equal(util_crc32c(0, zeros, 32), 0x8a9136aa);
	uint8_t ones[32];
	memset(ones, 0xff, 32);
	assert_int_equal(util_crc32c(0, ones, 32), 0x62a8ab43);
	assert_int_equal(util_crc32c(0, "123456789", 9), 0xe3069283);
	/* Incremental equals one shot. */
	uint32_t c = util_crc32c(0, "1234", 4);
	assert_int_equal(util_crc32c(c, "56789", 5), 0xe3069283);
	assert_int_equal(util_crc_unmask(util_crc_mask(0x12345678)), 0x12345678);
}

static void test_hash(void **state)
{
	(void)state;
	assert_true(util_hash64("abc", 3, 0) == util_hash64("abc", 3, 0));
	assert_true(util_hash64("abc", 3, 0) != util_hash64("abd", 3, 0));
	assert_true(util_hash64("abc", 3, 0) != util_hash64("abc", 3, 1));
	assert_true(util_hash64("", 0, 0) != util_hash64("\0", 1, 0));
}

static void test_map(void **state)
{
	(void)state;
	util_map m = UTIL_MAP_INIT;
	int vals[1000];
	for (int i = 0; i < 1000; i++) {
		vals[i] = i;
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		assert_null(util_map_puts(&m, k, &vals[i]));
	}
	assert_int_equal(util_map_count(&m), 1000);
	for (int i = 0; i < 1000; i += 2) {
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		assert_ptr_equal(util_map_del(&m, k, strlen(k)), &vals[i]);
	}
	for (int i = 0; i < 1000; i++) {
		char k[16];
		snprintf(k, sizeof k, "k%d", i);
		int *v = util_map_gets(&m, k);
		if (i % 2)
			assert_ptr_equal(v, &vals[i]);
		else
			assert_null(v);
	}
	size_t pos = 0, seen = 0;
	void *v;
	while (util_map_next(&m, &pos, NULL, NULL, &v))
		seen++;
	assert_int_equal(seen, 500);
	assert_null(util_map_put_u64(&m, 42, &vals[1]));
	assert_ptr_equal(util_map_get_u64(&m, 42), &vals[1]);
	util_map_free(&m);
}

/* Byte-string order: memcmp's sign over the common part, then shorter first. */
static void test_bytes_cmp(void **state)
{
	(void)state;
	assert_int_equal(util_bytes_cmp(NULL, 0, NULL, 0), 0);
	assert_int_equal(util_bytes_cmp(NULL, 0, "a", 1), -1);
	assert_int_equal(util_bytes_cmp("a", 1, NULL, 0), 1);
	assert_int_equal(util_bytes_cmp("abc", 3, "abc", 3), 0);
	assert_int_equal(util_bytes_cmp("ab", 2, "abc", 3), -1);
	assert_int_equal(util_bytes_cmp("abc", 3, "ab", 2), 1);
	assert_true(util_bytes_cmp("abd", 3, "abc", 3) > 0);
	assert_true(util_bytes_cmp("abc", 3, "abd", 2) > 0); /* only "ab" of the second */
	assert_true(util_bytes_cmp("b", 1, "abc", 3) > 0);   /* the bytes before the length */
	assert_true(util_bytes_cmp("\x01", 1, "\xff", 1) < 0); /* unsigned bytes */
	assert_true(util_bytes_cmp("a\0", 2, "a", 1) > 0);      /* NUL is a byte like any other */
}

/* A deadline is normalised (nanoseconds below a second) and lies the asked
 * time after the clock, whatever carry the addition makes. */
static void test_deadline(void **state)
{
	(void)state;
	int64_t steps[] = {0, 1, 999999, 1000000, 100000, 2500000, 3600000000LL};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		int64_t before = util_now_us();
		struct timespec ts = util_deadline_us(steps[i]);
		int64_t after = util_now_us();
		assert_true(ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000);
		int64_t at = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
		assert_true(at >= before + steps[i] - 1 && at <= after + steps[i] + 1);
	}
}

/* An environment knob: its integer, else the default (unset, empty, not a
 * number, out of range). */
static void test_env_int(void **state)
{
	(void)state;
	const char *n = "STRATA_UTIL_TEST_ENV_INT";
	unsetenv(n);
	assert_int_equal(util_env_int(n, 7), 7);
	const struct {
		const char *v;
		int64_t want;
	} cases[] = {{"", 7},
		     {"abc", 7},
		     {"42", 42},
		     {"-3", -3},
		     {" 12", 12},
		     {"8x", 8},
		     {"99999999999999999999", 7},
		     {"600", 600}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		setenv(n, cases[i].v, 1);
		assert_int_equal(util_env_int(n, 7), cases[i].want);
	}
	unsetenv(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_errcodes),     cmocka_unit_test(test_arena),
	    cmocka_unit_test(test_arena_rewind), cmocka_unit_test(test_buf_varint),
	    cmocka_unit_test(test_crc32c),       cmocka_unit_test(test_hash),
	    cmocka_unit_test(test_map),          cmocka_unit_test(test_bytes_cmp),
	    cmocka_unit_test(test_deadline),     cmocka_unit_test(test_env_int),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
