/* sort_test.c — the typed introsort of sort_tmpl.h against libc qsort: random, sorted,
 * reversed, all-equal, few-distinct and organ-pipe inputs of sizes around the insertion-sort
 * cutoff and larger; a comparison context passed through; the heapsort fallback on its own;
 * and a non-total comparison (the result sorted and a permutation of the input). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* 32 bytes, like the staged mutations of kvstore/stage.c. */
typedef struct {
	uint64_t key;
	uint64_t pos; /* the tie-break making the order total */
	uint64_t pad[2];
} item;

typedef struct {
	int desc;    /* sort descending */
	size_t ncmp; /* comparisons made */
} sctx;

static inline int item_cmp(const item *a, const item *b, sctx *c)
{
	c->ncmp++;
	if (a->key != b->key)
		return (a->key < b->key) != c->desc ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

#define UTIL_SORT_NAME         item_sort
#define UTIL_SORT_TYPE         item
#define UTIL_SORT_CTX          sctx *
#define UTIL_SORT_CMP(a, b, c) item_cmp(a, b, c)
#include "sort_tmpl.h"

/* A second instance in the same file: by key only (not a total order). */
static inline int key_cmp(const item *a, const item *b, const void *unused)
{
	(void)unused;
	return a->key < b->key ? -1 : a->key > b->key;
}

#define UTIL_SORT_NAME         key_sort
#define UTIL_SORT_TYPE         item
#define UTIL_SORT_CTX          const void *
#define UTIL_SORT_CMP(a, b, c) key_cmp(a, b, c)
#include "sort_tmpl.h"

static int qdesc;
static int item_qcmp(const void *a, const void *b)
{
	sctx c = {.desc = qdesc};
	return item_cmp(a, b, &c);
}

enum { RANDOM, SORTED, REVERSED, EQUAL, FEW, ORGAN, NSHAPES };

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void fill(item *e, size_t n, int shape)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t k = 0;
		switch (shape) {
		case RANDOM:
			k = rnd();
			break;
		case SORTED:
			k = i;
			break;
		case REVERSED:
			k = n - i;
			break;
		case EQUAL:
			k = 7;
			break;
		case FEW:
			k = rnd() % 4;
			break;
		case ORGAN:
			k = i < n / 2 ? i : n - i;
			break;
		}
		e[i] = (item){.key = k, .pos = i, .pad = {k ^ 0x55, i}};
	}
}

static const size_t sizes[] = {0, 1, 2, 3, 23, 24, 25, 26, 100, 1000, 20000};

/* item_sort gives exactly qsort's order (the comparison is a total order), in
 * O(n log n) comparisons even on the patterned inputs; with heap, the heapsort
 * the introsort falls back to, forced from the start (depth 0). */
static void check_against_qsort(int desc, bool heap)
{
	for (size_t s = 0; s < UTIL_ARRAY_LEN(sizes); s++)
		for (int shape = 0; shape < NSHAPES; shape++) {
			size_t n = sizes[s];
			item *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b);
			fill(a, n, shape);
			memcpy(b, a, n * sizeof *a);
			sctx c = {.desc = desc};
			if (heap)
				item_sort_intro_(a, n, &c, 0);
			else
				item_sort(a, n, &c);
			qdesc = desc;
			qsort(b, n, sizeof *b, item_qcmp);
			assert_memory_equal(a, b, n * sizeof *a);
			size_t lg = 1;
			for (size_t k = n; k > 1; k >>= 1)
				lg++;
			assert_true(c.ncmp <= 4 * n * lg + 64);
			free(a);
			free(b);
		}
}

static void test_ascending(void **state)
{
	(void)state;
	check_against_qsort(0, false);
}

static void test_descending(void **state)
{
	(void)state;
	check_against_qsort(1, false);
}

static void test_heap_fallback(void **state)
{
	(void)state;
	check_against_qsort(0, true);
	check_against_qsort(1, true);
}

static int pos_qcmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* With ties in the comparison the result is ordered and a permutation of the input. */
static void test_ties(void **state)
{
	(void)state;
	for (size_t s = 0; s < UTIL_ARRAY_LEN(sizes); s++)
		for (int shape = 0; shape < NSHAPES; shape++) {
			size_t n = sizes[s];
			item *a = calloc(n + 1, sizeof *a);
			fill(a, n, shape);
			key_sort(a, n, NULL);
			for (size_t i = 1; i < n; i++)
				assert_true(a[i - 1].key <= a[i].key);
			/* Every original entry is there once, unchanged. */
			qsort(a, n, sizeof *a, pos_qcmp);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(a[i].pos, i);
				assert_int_equal(a[i].pad[0], a[i].key ^ 0x55);
				assert_int_equal(a[i].pad[1], i);
			}
			free(a);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ascending),
	    cmocka_unit_test(test_descending),
	    cmocka_unit_test(test_heap_fallback),
	    cmocka_unit_test(test_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
