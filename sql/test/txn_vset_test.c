/*
 * txn_vset_test.c — the unique values COPY blocks claimed (sql/txn_vset.c):
 * claims added block by block in scrambled order are all found with their
 * row and guard, absent values are not, a value claimed again by a later
 * block is found as the newest claim, dropping the generations after a
 * savepoint's gives the older claims back, and compaction keeps them all;
 * the same with values longer than the claims' 16-byte prefix.
 * End-to-end behaviour: tests/regress copy_block_unique, tests/copyblk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../txn_vset.h"

#define NVALS 12000
#define BLOCK 1000

typedef struct val {
	char v[48];
	char pk[16];
} val;

/* Prepended to every value: none, then one longer than the claims' 16
 * prefix bytes (the comparisons then reach the values' bytes). */
static const char *prefix = "";

/* Value i: decimal text (so lengths vary and a shorter value is a prefix
 * of longer ones); its row key "k<i>". */
static void make(val *x, int i, int gen)
{
	snprintf(x->v, sizeof x->v, "%s%d", prefix, i);
	snprintf(x->pk, sizeof x->pk, "k%d.%d", i, gen);
}

static int vcmp(const void *a, const void *b)
{
	const sql_vclaim *x = a, *y = b;
	size_t n = x->vl < y->vl ? x->vl : y->vl;
	int c = memcmp(x->v, y->v, n);
	return c ? c : (x->vl > y->vl) - (x->vl < y->vl);
}

/* Claims values first, first+step, ... (count of them) as one block. */
static void add_block(sql_vset *vs, val *store, int first, int step, int count, uint32_t gen)
{
	sql_vclaim *c = calloc((size_t)count, sizeof *c);
	for (int j = 0; j < count; j++) {
		int i = first + j * step;
		make(&store[j], i, (int)gen);
		c[j] = (sql_vclaim){.v = (const uint8_t *)store[j].v,
				    .pk = (const uint8_t *)store[j].pk,
				    .expect = i % 3 ? NULL : (const uint8_t *)"g",
				    .vl = (uint32_t)strlen(store[j].v),
				    .pklen = (uint32_t)strlen(store[j].pk),
				    .elen = i % 3 ? 0 : 1,
				    .gen = gen};
	}
	qsort(c, (size_t)count, sizeof *c, vcmp);
	sql_vset_keep(vs, c, (size_t)count);
	sql_vset_add(vs, c, (size_t)count);
	free(c);
}

static void expect_claim(const sql_vset *vs, int i, int gen)
{
	char v[48], pk[16];
	snprintf(v, sizeof v, "%s%d", prefix, i);
	snprintf(pk, sizeof pk, "k%d.%d", i, gen);
	const sql_vclaim *c = sql_vset_find(vs, (const uint8_t *)v, strlen(v));
	if (gen < 0) {
		assert_null(c);
		return;
	}
	assert_non_null(c);
	assert_int_equal(c->pklen, strlen(pk));
	assert_memory_equal(c->pk, pk, c->pklen);
	assert_int_equal(c->gen, (uint32_t)gen);
	assert_int_equal(c->elen, i % 3 ? 0 : 1);
	assert_true((c->expect == NULL) == (i % 3 != 0));
}

static void blocks_found_newest_first(void)
{
	sql_vset vs = {0};
	val *store = calloc(BLOCK, sizeof *store);
	/* Values 0..NVALS-1 in blocks of a scrambled order (block b takes
	 * the values congruent to b modulo the block count). */
	int nblocks = NVALS / BLOCK;
	for (int b = 0; b < nblocks; b++)
		add_block(&vs, store, b, nblocks, BLOCK, (uint32_t)(b + 1));
	assert_true(vs.nruns <= 5);
	for (int i = 0; i < NVALS; i++)
		expect_claim(&vs, i, i % nblocks + 1);
	for (int i = NVALS; i < NVALS + 500; i++)
		expect_claim(&vs, i, -1);
	/* Later blocks claim some values again (their first rows gone): the
	 * newest claim wins; dropping them gives the older claims back. */
	uint32_t mark = (uint32_t)nblocks;
	add_block(&vs, store, 0, 7, BLOCK, mark + 1);
	add_block(&vs, store, 3, 5, BLOCK, mark + 2);
	for (int i = 0; i < NVALS; i++) {
		int want = i % nblocks + 1;
		if (i < 7 * BLOCK && i % 7 == 0)
			want = (int)mark + 1;
		if (i >= 3 && i < 3 + 5 * BLOCK && (i - 3) % 5 == 0)
			want = (int)mark + 2;
		expect_claim(&vs, i, want);
	}
	assert_true(sql_vset_drop_after(&vs, mark + 1));
	for (int i = 0; i < NVALS; i += 5)
		expect_claim(&vs, i, i < 7 * BLOCK && i % 7 == 0 ? (int)mark + 1 : i % nblocks + 1);
	assert_true(sql_vset_drop_after(&vs, mark));
	assert_false(sql_vset_drop_after(&vs, mark));
	assert_int_equal(vs.n, (size_t)NVALS);
	sql_vset_compact(&vs);
	assert_int_equal(vs.nruns, 1);
	for (int i = 0; i < NVALS; i++)
		expect_claim(&vs, i, i % nblocks + 1);
	/* Everything after the first block dropped. */
	sql_vset_drop_after(&vs, 1);
	for (int i = 0; i < NVALS; i++)
		expect_claim(&vs, i, i % nblocks == 0 ? 1 : -1);
	sql_vset_free(&vs);
	free(store);
}

static void test_blocks_found_newest_first(void **state)
{
	(void)state;
	prefix = "";
	blocks_found_newest_first();
}

static void test_long_common_prefix(void **state)
{
	(void)state;
	prefix = "a-long-common-prefix/";
	blocks_found_newest_first();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blocks_found_newest_first),
	    cmocka_unit_test(test_long_common_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
