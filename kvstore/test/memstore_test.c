/* memstore_test.c — the memstore skiplist: order (ikey, newest commit
 * first), commit-timestamp visibility, seek_lt, and readers running while a
 * writer inserts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ikey.h"
#include "mem.h"

static size_t mk(uint8_t *b, int row, const char *q, kv_ts ts)
{
	char r[16];
	snprintf(r, sizeof(r), "row%05d", row);
	return ikey_encode(b, r, strlen(r), "f", 1, q, strlen(q), ts, KV_PUT);
}

static void test_order_and_visibility(void **state)
{
	kv_mem *m = mem_new();
	uint8_t k[64];
	/* Insert in scrambled order. */
	for (int i = 0; i < 1000; i++) {
		int r = (i * 7919) % 1000;
		size_t n = mk(k, r, "q", 100);
		assert_int_equal(mem_add(m, k, n, "v", 1, (kv_ts)(10 + r), 1), KV_OK);
	}
	/* Same key twice: the newer commit comes first. */
	size_t n = mk(k, 5, "q", 100);
	assert_int_equal(mem_add(m, k, n, "new", 3, 5000, 2), KV_OK);
	assert_int_equal(mem_count(m), 1001);
	assert_int_equal(mem_min_seg(m), 1);
	kv_src *it = mem_iter_new(m, KV_TS_MAX);
	int cnt = 0;
	uint8_t prev[64];
	size_t pl = 0;
	for (src_seek(it, NULL, 0); it->valid; src_next(it), cnt++) {
		if (pl)
			assert_true(ikey_cmp(prev, pl, it->key, it->klen) <= 0);
		memcpy(prev, it->key, it->klen);
		pl = it->klen;
	}
	assert_int_equal(cnt, 1001);
	src_seek(it, k, n);
	assert_true(it->valid);
	assert_int_equal(it->vlen, 3);
	src_close(it);
	/* Visibility: only commits <= read_ts. */
	it = mem_iter_new(m, 500);
	cnt = 0;
	for (src_seek(it, NULL, 0); it->valid; src_next(it))
		cnt++;
	assert_int_equal(cnt, 491); /* commit ts 10..500 */
	src_seek(it, k, n);
	assert_int_equal(it->vlen, 1); /* the older copy */
	/* seek_lt: the entry before row 500. */
	uint8_t t[64];
	size_t tn = ikey_row_first(t, "row00500", 8);
	src_seek_lt(it, t, tn);
	assert_true(it->valid);
	assert_int_equal(ikey_row_cmp(it->key, (const uint8_t *)"row00499", 8), 0);
	src_seek_lt(it, NULL, 0);
	assert_int_equal(ikey_row_cmp(it->key, (const uint8_t *)"row00999", 8), 0);
	src_close(it);
	mem_unref(m);
}

typedef struct rd {
	kv_mem *m;
	atomic_bool *stop;
	atomic_int *started;
	long seen;
} rd;

/* At least one pass even if the writer is done before this thread runs (a
 * loaded machine): the test asserts that readers saw rows. */
static void *reader(void *arg)
{
	rd *r = arg;
	atomic_fetch_add(r->started, 1);
	do {
		kv_src *it = mem_iter_new(r->m, KV_TS_MAX);
		uint8_t prev[64];
		size_t pl = 0;
		for (src_seek(it, NULL, 0); it->valid; src_next(it)) {
			if (pl && ikey_cmp(prev, pl, it->key, it->klen) > 0)
				abort(); /* order broken while a writer inserts */
			memcpy(prev, it->key, it->klen);
			pl = it->klen;
			r->seen++;
		}
		src_close(it);
	} while (!atomic_load(r->stop));
	return NULL;
}

static void test_concurrent_readers(void **state)
{
	kv_mem *m = mem_new();
	atomic_bool stop = false;
	atomic_int started = 0;
	rd r[2] = {{m, &stop, &started, 0}, {m, &stop, &started, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, &r[i]);
	while (atomic_load(&started) < 2) /* readers overlap the inserts */
		sched_yield();
	uint8_t k[64];
	for (int i = 0; i < 20000; i++) {
		size_t n = mk(k, (i * 104729) % 20000, "q", 1);
		mem_add(m, k, n, "v", 1, 1, 1);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	assert_true(r[0].seen > 0 || r[1].seen > 0);
	assert_int_equal(mem_count(m), 20000);
	mem_unref(m);
}

static void test_row_bloom(void **state)
{
	kv_mem *m = mem_new();
	uint8_t k[64];
	char v[200];
	memset(v, 'v', sizeof(v));
	/* Past 1 MiB the memstore builds a row bloom filter. */
	for (int i = 0; i < 8000; i++) {
		size_t n = mk(k, i * 2, "q", 1);
		assert_int_equal(mem_add(m, k, n, v, sizeof(v), 1, 1), KV_OK);
	}
	int fp = 0;
	for (int i = 0; i < 8000; i++) {
		char r[16];
		snprintf(r, sizeof(r), "row%05d", i * 2);
		assert_true(mem_may_have_row(m, r, strlen(r)));
		snprintf(r, sizeof(r), "row%05d", i * 2 + 1);
		fp += mem_may_have_row(m, r, strlen(r));
	}
	assert_true(fp < 8000 / 20); /* the filter is there and works */
	mem_unref(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_visibility),
	    cmocka_unit_test(test_concurrent_readers),
	    cmocka_unit_test(test_row_bloom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
