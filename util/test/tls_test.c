/* tls_test.c — unit tests for the per-thread objects of util.h (util/tls.c):
 * values are per thread, destructors run at thread exit (also for an object
 * set from another object's destructor), and slots keep working once the
 * process has no pthread keys left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "util.h"

static util_tls_slot slot_a;
static util_tls_slot slot_b;
static atomic_int freed_a, freed_b;

static void free_b(void *p)
{
	atomic_fetch_add(&freed_b, 1);
	free(p);
}

static void free_a(void *p)
{
	atomic_fetch_add(&freed_a, 1);
	free(p);
	/* a destructor that makes a new per-thread object: it is freed too */
	int *again = malloc(sizeof(int));
	if (!util_tls_set(&slot_b, again, free_b))
		free(again);
}

static void *worker(void *arg)
{
	int *mine = malloc(sizeof(int));
	*mine = (int)(intptr_t)arg;
	if (util_tls_get(&slot_a) != NULL)
		return (void *)1;
	if (!util_tls_set(&slot_a, mine, free_a))
		return (void *)2;
	if (util_tls_get(&slot_a) != mine || *(int *)util_tls_get(&slot_a) != (int)(intptr_t)arg)
		return (void *)3;
	return NULL;
}

static void test_per_thread_and_destructors(void **state)
{
	(void)state;
	util_tls_init();
	enum { N = 8 };
	pthread_t th[N];
	for (int i = 0; i < N; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i), 0);
	for (int i = 0; i < N; i++) {
		void *rc;
		pthread_join(th[i], &rc);
		assert_null(rc);
	}
	assert_int_equal(atomic_load(&freed_a), N);
	assert_int_equal(atomic_load(&freed_b), N);
	assert_null(util_tls_get(&slot_a)); /* the main thread set nothing */
}

static void *key_user(void *arg)
{
	(void)arg;
	int *p = malloc(sizeof(int));
	if (!util_tls_set(&slot_b, p, free_b)) {
		free(p);
		return (void *)1;
	}
	return util_tls_get(&slot_b) == p ? NULL : (void *)2;
}

/* What libpg_query does to a long-running server: every key taken. */
static void test_after_keys_run_out(void **state)
{
	(void)state;
	util_tls_init();
	pthread_key_t k;
	int taken = 0;
	while (pthread_key_create(&k, NULL) == 0)
		taken++;
	assert_true(taken > 0);
	int before = atomic_load(&freed_b);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, key_user, NULL), 0);
	void *rc;
	pthread_join(th, &rc);
	assert_null(rc);
	assert_int_equal(atomic_load(&freed_b), before + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_thread_and_destructors),
	    cmocka_unit_test(test_after_keys_run_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
