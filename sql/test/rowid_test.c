/*
 * rowid_test.c — hidden row ids of tables without a primary key
 * (sql_row_key, rowcodec.c): a thread takes a block of ids at once, yet
 * every id stays above each id handed out before its call started, on any
 * thread, and no id repeats when threads take them at the same time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

/* A table without a primary key: its row key is a type byte and the id. */
static cat_rel heap(void)
{
	cat_rel r;
	memset(&r, 0, sizeof r);
	r.relkind = 'r';
	return r;
}

static uint64_t next_id(void)
{
	cat_rel r = heap();
	util_buf k = UTIL_BUF_INIT;
	sql_row_key(&r, NULL, &k);
	assert_int_equal(k.len, 9);
	uint64_t id = util_get_be64((const uint8_t *)k.data + 1);
	util_buf_free(&k);
	return id;
}

/* Two threads take turns, one id per turn, handed over by a mutex: each
 * id must be above the one before it, whichever thread took that one (a
 * thread's block is dropped once the other has taken an id). */
enum { TURNS = 2000 };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn;
static uint64_t taken[TURNS];

static void *take_turns(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (turn < TURNS && turn % 2 != me)
			pthread_cond_wait(&cv, &mu);
		if (turn >= TURNS) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		taken[turn] = next_id();
		turn++;
		/* every few turns a run of ids on this thread, so that it
		 * holds a partly used block when the other one takes over */
		if (turn % 7 == 0)
			for (int i = 0; i < 5 && turn < TURNS; i++)
				taken[turn++] = next_id();
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
}

static void test_turns_ascend(void **state)
{
	(void)state;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, take_turns, (void *)(intptr_t)i), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i < TURNS; i++)
		if (taken[i] <= taken[i - 1])
			fail_msg("id %d (%llu) not above id %d (%llu)", i, (unsigned long long)taken[i],
				 i - 1, (unsigned long long)taken[i - 1]);
	/* and the next id on this thread is above them all */
	assert_true(next_id() > taken[TURNS - 1]);
}

/* Threads taking ids at the same time: each thread's ids ascend, and no
 * id is taken twice. */
enum { NTHREADS = 4, PER_THREAD = 50000 };
static uint64_t ids[NTHREADS][PER_THREAD];

static void *take_many(void *arg)
{
	uint64_t *out = arg;
	for (int i = 0; i < PER_THREAD; i++)
		out[i] = next_id();
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void test_concurrent_unique(void **state)
{
	(void)state;
	pthread_t t[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, take_many, ids[i]), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < NTHREADS; i++)
		for (int j = 1; j < PER_THREAD; j++)
			assert_true(ids[i][j] > ids[i][j - 1]);
	uint64_t *all = malloc(sizeof ids);
	assert_non_null(all);
	memcpy(all, ids, sizeof ids);
	size_t n = (size_t)NTHREADS * PER_THREAD;
	qsort(all, n, sizeof *all, cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (all[i] == all[i - 1])
			fail_msg("id %llu taken twice", (unsigned long long)all[i]);
	free(all);
}

int main(void)
{
	ty_init();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_turns_ascend),
	    cmocka_unit_test(test_concurrent_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
