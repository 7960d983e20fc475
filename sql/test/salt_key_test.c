/*
 * salt_key_test.c — row keys of salted tables (docs/key-encoding.md,
 * "Salted tables"): the bucket byte in front of the encoded key, its hash
 * pinned by the documented test vectors, decoding that skips it, and a
 * spread of sequential keys over the buckets (the hot-spot case).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

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

/* A table (id int PRIMARY KEY, name text) or (a int, b text, PRIMARY KEY (a, b)). */
typedef struct tab {
	cat_rel r;
	cat_column cols[2];
	int16_t pk[2];
	bool desc[2];
} tab;

static void make(tab *t, int npk, int salt, bool desc)
{
	memset(t, 0, sizeof *t);
	t->r.relkind = 'r';
	snprintf(t->r.name, sizeof t->r.name, "t");
	t->cols[0] = (cat_column){.name = "a", .attnum = 1, .col_id = 1, .type = TY_INT4, .typmod = -1};
	t->cols[1] = (cat_column){.name = "b", .attnum = 2, .col_id = 2, .type = TY_TEXT, .typmod = -1};
	t->r.cols = t->cols;
	t->r.ncols = 2;
	t->r.next_col_id = 3;
	t->pk[0] = 1;
	t->pk[1] = 2;
	t->desc[0] = t->desc[1] = desc;
	t->r.pk = t->pk;
	t->r.npk = npk;
	t->r.pk_desc = t->desc;
	t->r.salt_buckets = salt;
}

static void key_of(const tab *t, int32_t a, const char *b, util_buf *out)
{
	ty_datum v[2] = {ty_int(a), ty_bytes(b, strlen(b))};
	util_buf_reset(out);
	sql_row_key(&t->r, v, out);
}

/* The salted key is the bucket byte, then exactly the unsalted key. */
static void test_layout(void **state)
{
	(void)state;
	tab plain, salted;
	for (int npk = 1; npk <= 2; npk++)
		for (int d = 0; d < 2; d++) {
			make(&plain, npk, 0, d);
			make(&salted, npk, 16, d);
			util_buf p = UTIL_BUF_INIT, s = UTIL_BUF_INIT;
			for (int32_t a = -300; a <= 300; a += 7) {
				key_of(&plain, a, "xy", &p);
				key_of(&salted, a, "xy", &s);
				assert_int_equal(s.len, p.len + 1);
				assert_memory_equal(s.data + 1, p.data, p.len);
				uint8_t b = (uint8_t)s.data[0];
				assert_true(b < 16);
				assert_int_equal(b,
						 (uint8_t)(util_hash64(p.data, p.len, SQL_SALT_SEED) % 16));
				assert_int_equal(b,
						 sql_salt_bucket(&salted.r, (const uint8_t *)p.data, p.len));
			}
			util_buf_free(&p);
			util_buf_free(&s);
		}
}

/* Decoding skips the bucket byte and gives the key columns back. */
static void test_decode(void **state)
{
	(void)state;
	tab t;
	make(&t, 2, 7, false);
	util_buf k = UTIL_BUF_INIT;
	for (int32_t a = -50; a < 50; a++) {
		char name[16];
		snprintf(name, sizeof name, "n%d", a * 3);
		key_of(&t, a, name, &k);
		ty_datum v[2] = {ty_null(), ty_null()};
		sql_key_decode(&t.r, (const uint8_t *)k.data, k.len, v);
		assert_int_equal(v[0].i, a);
		assert_int_equal(v[1].len, strlen(name));
		assert_memory_equal(v[1].p, name, strlen(name));
	}
	util_buf_free(&k);
}

/* The on-disk format: the vectors of docs/key-encoding.md. A change here
 * means existing salted tables can no longer be read. */
static void test_vectors(void **state)
{
	(void)state;
	static const struct {
		int32_t a;
		int n;
		const char *hex;
	} vec[] = {
#include "salt_vectors.inc"
	};
	tab t;
	util_buf k = UTIL_BUF_INIT;
	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
		make(&t, 1, vec[i].n, false);
		key_of(&t, vec[i].a, "", &k);
		char hex[64] = "";
		for (size_t j = 0; j < k.len && j * 2 + 2 < sizeof hex; j++)
			snprintf(hex + 2 * j, 3, "%02x", (uint8_t)k.data[j]);
		assert_string_equal(hex, vec[i].hex);
	}
	util_buf_free(&k);
}

/* Sequential keys (the hot spot salting is for) reach every bucket, none
 * with more than twice its share. */
static void test_spread(void **state)
{
	(void)state;
	static const int ns[] = {2, 8, 16, 64, 256};
	tab t;
	util_buf k = UTIL_BUF_INIT;
	for (size_t x = 0; x < sizeof ns / sizeof ns[0]; x++) {
		int n = ns[x], rows = n * 200;
		int count[256] = {0};
		make(&t, 1, n, false);
		for (int a = 1; a <= rows; a++) {
			key_of(&t, a, "", &k);
			count[(uint8_t)k.data[0]]++;
		}
		for (int b = 0; b < n; b++) {
			assert_true(count[b] > 0);
			assert_true(count[b] <= 2 * rows / n);
		}
	}
	util_buf_free(&k);
}

/* A table without a primary key: the hidden row id is salted too. */
static void test_rowid(void **state)
{
	(void)state;
	tab t;
	make(&t, 0, 4, false);
	util_buf k = UTIL_BUF_INIT;
	ty_datum v[2] = {ty_int(1), ty_null()};
	sql_row_key(&t.r, v, &k);
	assert_int_equal(k.len, 10);
	assert_int_equal((uint8_t)k.data[1], TY_KEY_VALUE);
	assert_int_equal((uint8_t)k.data[0], sql_salt_bucket(&t.r, (const uint8_t *)k.data + 1, 9));
	util_buf_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layout), cmocka_unit_test(test_decode), cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_spread), cmocka_unit_test(test_rowid),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
