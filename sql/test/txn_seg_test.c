/*
 * txn_seg_test.c — the write set's sorted segments (sql/txn_seg.c): blocks
 * added in random and ascending key order are all found, absent keys are
 * not, merging keeps the segment count logarithmic, and sql_wseg_all()
 * yields every row once in key order. End-to-end behaviour (COPY in a
 * transaction block) is checked by tests/regress copy_txn.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../txn_seg.h"

#define NROWS 20000
#define BLOCK 1000

typedef struct rowkey {
	sql_wrow w;
	uint8_t key[12];
} rowkey;

static rowkey *make_rows(size_t n, size_t stride)
{
	rowkey *r = calloc(n, sizeof *r);
	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		/* Keys 0, stride, 2*stride, ... as big-endian text-ish bytes of
		 * varying length (a shorter key sorts before its extensions). */
		uint64_t v = (uint64_t)i * stride;
		int len = snprintf((char *)r[i].key, sizeof r[i].key, "%llu", (unsigned long long)v);
		r[i].w.key = r[i].key;
		r[i].w.keylen = (size_t)len;
	}
	return r;
}

static int cmp_ptr(const void *a, const void *b)
{
	const sql_wrow *x = *(sql_wrow *const *)a, *y = *(sql_wrow *const *)b;
	return sql_wseg_key_cmp(x->key, x->keylen, y->key, y->keylen);
}

/* Adds the rows in blocks of BLOCK, each block sorted; order: the
 * permutation perm of row indexes. */
static void add_blocks(sql_wseg_set *ss, rowkey *r, const size_t *perm, size_t n)
{
	sql_wrow *blk[BLOCK];
	for (size_t i = 0; i < n; i += BLOCK) {
		size_t m = n - i < BLOCK ? n - i : BLOCK;
		for (size_t j = 0; j < m; j++)
			blk[j] = &r[perm[i + j]].w;
		qsort(blk, m, sizeof *blk, cmp_ptr);
		sql_wseg_add(ss, blk, m);
	}
}

static void check_all(sql_wseg_set *ss, rowkey *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(sql_wseg_find(ss, r[i].w.key, r[i].w.keylen), &r[i].w);
	/* Absent keys: odd numbers never made (stride 2), and the empty key. */
	char k[24];
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(k, sizeof k, "%llu", (unsigned long long)(2 * i + 1));
		assert_null(sql_wseg_find(ss, (const uint8_t *)k, (size_t)len));
	}
	assert_null(sql_wseg_find(ss, (const uint8_t *)"", 0));
	const sql_wseg *all = sql_wseg_all(ss);
	assert_int_equal(all->n, n);
	for (size_t i = 1; i < all->n; i++)
		assert_true(cmp_ptr(&all->rows[i - 1], &all->rows[i]) < 0);
	assert_int_equal(ss->nsegs, 1);
	/* Found again after the merge into one segment. */
	for (size_t i = 0; i < n; i += 97)
		assert_ptr_equal(sql_wseg_find(ss, r[i].w.key, r[i].w.keylen), &r[i].w);
}

static void test_random_blocks(void **state)
{
	(void)state;
	rowkey *r = make_rows(NROWS, 2);
	size_t *perm = malloc(sizeof *perm * NROWS);
	for (size_t i = 0; i < NROWS; i++)
		perm[i] = i;
	srand(7);
	for (size_t i = NROWS - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1), x = perm[i];
		perm[i] = perm[j];
		perm[j] = x;
	}
	sql_wseg_set ss;
	memset(&ss, 0, sizeof ss);
	add_blocks(&ss, r, perm, NROWS);
	/* Log-structured: about log2(20 blocks) segments, never one per block. */
	assert_true(ss.nsegs <= 6);
	check_all(&ss, r, NROWS);
	sql_wseg_free(&ss);
	free(perm);
	free(r);
}

static void test_ascending_blocks(void **state)
{
	(void)state;
	rowkey *r = make_rows(NROWS, 2);
	sql_wrow **sorted = malloc(sizeof *sorted * NROWS);
	for (size_t i = 0; i < NROWS; i++)
		sorted[i] = &r[i].w;
	qsort(sorted, NROWS, sizeof *sorted, cmp_ptr);
	sql_wseg_set ss;
	memset(&ss, 0, sizeof ss);
	for (size_t i = 0; i < NROWS; i += BLOCK)
		sql_wseg_add(&ss, sorted + i, BLOCK);
	assert_int_equal(ss.nsegs, 1); /* each block appended to the one segment */
	check_all(&ss, r, NROWS);
	sql_wseg_free(&ss);
	free(sorted);
	free(r);
}

static void test_empty(void **state)
{
	(void)state;
	sql_wseg_set ss;
	memset(&ss, 0, sizeof ss);
	assert_null(sql_wseg_find(&ss, (const uint8_t *)"a", 1));
	sql_wseg_add(&ss, NULL, 0);
	assert_int_equal(sql_wseg_all(&ss)->n, 0);
	sql_wseg_free(&ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_blocks),
	    cmocka_unit_test(test_ascending_blocks),
	    cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
