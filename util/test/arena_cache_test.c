/* arena_cache_test.c — the per-thread cache of destroyed arenas (util/mem.c): reuse by block size,
 * a reused arena behaves as a fresh one (empty, budget, account), limits, and threads that exit
 * with arenas cached (the ASan build's leak check covers their release). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

#include "util.h"

static void test_reuse_same_size(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(8192, 0);
	char *p = util_arena_alloc(a, 100);
	assert_non_null(p);
	memset(p, 0x5a, 100);
	util_arena_destroy(a);
	util_arena *b = util_arena_new(8192, 0);
	assert_ptr_equal(b, a); /* taken back from the cache */
	assert_int_equal(util_arena_used(b), 8192); /* holds its one block, nothing more */
	/* Its whole block is usable, and more blocks come as usual. */
	for (int i = 0; i < 100; i++) {
		uint8_t *q = util_arena_zalloc(b, 1000);
		assert_non_null(q);
		assert_int_equal(((uintptr_t)q) % 16, 0);
		for (int j = 0; j < 1000; j++)
			assert_int_equal(q[j], 0);
		memset(q, i, 1000);
	}
	util_arena_destroy(b); /* several blocks: only the first is kept */
	util_arena *c = util_arena_new(8192, 0);
	assert_ptr_equal(c, a);
	assert_int_equal(util_arena_used(c), 8192);
	assert_non_null(util_arena_alloc(c, 8192));
	assert_int_equal(util_arena_used(c), 8192); /* fits the kept block */
	util_arena_destroy(c);
}

static void test_other_size_not_mixed(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(2048, 0);
	assert_non_null(util_arena_alloc(a, 16));
	util_arena_destroy(a);
	util_arena *b = util_arena_new(4096, 0);
	assert_ptr_not_equal(b, a);
	assert_non_null(util_arena_alloc(b, 4000));
	util_arena *c = util_arena_new(2048, 0);
	assert_ptr_equal(c, a);
	util_arena_destroy(b);
	util_arena_destroy(c);
}

static void test_budget_and_account(void **state)
{
	(void)state;
	util_arena *a = util_arena_new(4096, 0);
	assert_non_null(util_arena_alloc(a, 16));
	util_arena_destroy(a);
	/* A budget below one block refuses the first allocation, cached
	 * arena or not. */
	util_arena *b = util_arena_new(4096, 1024);
	assert_null(util_arena_alloc(b, 16));
	assert_true(util_arena_refused(b));
	util_arena_destroy(b);
	/* A reused arena is charged its block like a fresh one, and nothing
	 * stays charged after destroy. */
	util_mem_account acct = {0, 0, 0};
	util_arena *c = util_arena_new(4096, 0);
	util_arena_set_account(c, &acct);
	assert_non_null(util_arena_alloc(c, 16));
	assert_true(acct.used >= 4096);
	assert_non_null(util_arena_alloc(c, 8000));
	assert_true(acct.used >= 4096 + 8000);
	util_arena_destroy(c);
	assert_int_equal(acct.used, 0);
	util_arena *d = util_arena_new(4096, 0);
	assert_false(util_arena_refused(d));
	util_arena_set_account(d, &acct);
	assert_non_null(util_arena_alloc(d, 16));
	assert_true(acct.used >= 4096);
	util_arena_set_account(d, NULL);
	assert_int_equal(acct.used, 0);
	util_arena_destroy(d);
}

static void test_many(void **state)
{
	(void)state;
	util_arena *v[40];
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 40; i++) {
			v[i] = util_arena_new(i % 2 ? 65536 : 1024, 0);
			char *p = util_arena_alloc(v[i], 512);
			assert_non_null(p);
			memset(p, i, 512);
		}
		for (int i = 0; i < 40; i++)
			util_arena_destroy(v[i]);
	}
	/* A first block bigger than the block size (a big first allocation)
	 * is not cached as if it were the usual size. */
	util_arena *big = util_arena_new(1024, 0);
	assert_non_null(util_arena_alloc(big, 100000));
	util_arena_destroy(big);
	util_arena *n = util_arena_new(1024, 0);
	assert_non_null(util_arena_alloc(n, 1024));
	util_arena_destroy(n);
}

static void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		util_arena *a = util_arena_new(32 * 1024, 0);
		util_arena *b = util_arena_new(4096, 0);
		assert_non_null(util_arena_alloc(a, 100));
		assert_non_null(util_arena_alloc(b, 100));
		util_arena_destroy(b);
		util_arena_destroy(a);
	}
	/* Exits with arenas in its cache: freed by the thread's destructor. */
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	util_tls_init();
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, thread_main, NULL), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reuse_same_size),
	    cmocka_unit_test(test_other_size_not_mixed),
	    cmocka_unit_test(test_budget_and_account),
	    cmocka_unit_test(test_many),
	    cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
