/* concurrency_test.c — many threads on one store: atomic batches are never
 * seen in part, counters and first-committer-wins stay exact under
 * contention, the read point only moves forward, and flushes running
 * underneath lose nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "kvt_util.h"

#define NROWS 20
static const char *const FAMS[] = {"f"};

typedef struct shared {
	kv_store *s;
	kv_table *t;
	atomic_bool stop;
	atomic_long torn, batches, conflicts, wins;
} shared;

static void *batch_writer(void *arg)
{
	shared *sh = arg;
	kv_batch *b = kv_batch_new();
	for (int k = 0; k < 150; k++) {
		char v[32];
		snprintf(v, sizeof(v), "%p-%d", (void *)b, k);
		kv_batch_clear(b);
		for (int i = 0; i < NROWS; i++) {
			char r[16];
			snprintf(r, sizeof(r), "row%02d", i);
			kv_batch_put(b, sh->t, r, strlen(r), "f", "v", 1, KV_TS_LATEST, v, strlen(v));
		}
		if (kv_commit(sh->s, b, NULL, NULL) != KV_OK)
			abort();
		atomic_fetch_add(&sh->batches, 1);
	}
	kv_batch_free(b);
	return NULL;
}

static void *batch_reader(void *arg)
{
	shared *sh = arg;
	kv_ts last_rp = 0;
	while (!atomic_load(&sh->stop)) {
		kv_ts rp = kv_read_point(sh->s);
		if (rp < last_rp)
			atomic_fetch_add(&sh->torn, 1000); /* read point went back */
		last_rp = rp;
		kv_scan_opts o = {0};
		kv_iter *it = kv_scan(sh->t, &o);
		char first[64] = "";
		int n = 0;
		for (; kv_iter_valid(it); kv_iter_next(it), n++) {
			const kv_cell *c = kv_iter_cell(it);
			char v[64];
			snprintf(v, sizeof(v), "%.*s", (int)c->value.len, c->value.data);
			if (n == 0)
				strcpy(first, v);
			else if (strcmp(first, v))
				atomic_fetch_add(&sh->torn, 1);
		}
		if (n != 0 && n != NROWS)
			atomic_fetch_add(&sh->torn, 1);
		kv_iter_close(it);
	}
	return NULL;
}

static void *flusher(void *arg)
{
	shared *sh = arg;
	while (!atomic_load(&sh->stop)) {
		kv_table_flush(sh->t);
		util_sleep_us(2000);
	}
	return NULL;
}

static void test_atomic_batches(void **state)
{
	char *dir = kvt_tmpdir("conc");
	shared sh = {0};
	sh.s = kvt_open(dir, NULL);
	sh.t = kvt_table(sh.s, "t", 1, FAMS);
	pthread_t w[3], r[2], f;
	for (int i = 0; i < 2; i++)
		pthread_create(&r[i], NULL, batch_reader, &sh);
	pthread_create(&f, NULL, flusher, &sh);
	for (int i = 0; i < 3; i++)
		pthread_create(&w[i], NULL, batch_writer, &sh);
	for (int i = 0; i < 3; i++)
		pthread_join(w[i], NULL);
	atomic_store(&sh.stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(r[i], NULL);
	pthread_join(f, NULL);
	assert_int_equal(atomic_load(&sh.torn), 0);
	assert_int_equal(atomic_load(&sh.batches), 450);
	kv_table_close(sh.t);
	kv_store_close(sh.s);
	kvt_close_rm(NULL, dir);
}

static void *incrementer(void *arg)
{
	shared *sh = arg;
	for (int i = 0; i < 200; i++) {
		int64_t v;
		if (kv_increment(sh->t, "ctr", 3, "f", "n", 1, 1, &v) != KV_OK)
			abort();
		/* Optimistic read-modify-write of another counter with commit_if. */
		for (;;) {
			kv_ts snap = kv_read_point(sh->s);
			util_arena *a = util_arena_new(512, 0);
			kv_read_opts ro = {0};
			ro.read_ts = snap;
			kv_row row;
			if (kv_get(sh->t, "occ", 3, &ro, a, &row) != KV_OK)
				abort();
			int64_t cur = row.n ? (int64_t)util_get_be64(row.cells[0].value.data) : 0;
			util_arena_destroy(a);
			uint8_t nv[8];
			util_put_be64(nv, (uint64_t)(cur + 1));
			kv_batch *b = kv_batch_new();
			kv_batch_put(b, sh->t, "occ", 3, "f", "n", 1, KV_TS_LATEST, nv, 8);
			kv_status st = kv_commit_if(sh->s, b, snap, NULL, NULL);
			kv_batch_free(b);
			if (st == KV_OK) {
				atomic_fetch_add(&sh->wins, 1);
				break;
			}
			if (st != KV_CONFLICT)
				abort();
			atomic_fetch_add(&sh->conflicts, 1);
		}
	}
	return NULL;
}

static void test_counters(void **state)
{
	char *dir = kvt_tmpdir("ctr");
	shared sh = {0};
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_COMMIT; /* group commit under contention */
	sh.s = kvt_open(dir, &o);
	sh.t = kvt_table(sh.s, "t", 1, FAMS);
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, incrementer, &sh);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	int64_t v;
	assert_int_equal(kv_increment(sh.t, "ctr", 3, "f", "n", 1, 0, &v), KV_OK);
	assert_int_equal(v, 800);
	util_arena *a = util_arena_new(512, 0);
	kv_row row;
	assert_int_equal(kv_get(sh.t, "occ", 3, NULL, a, &row), KV_OK);
	assert_int_equal(row.n, 1);
	assert_int_equal((int64_t)util_get_be64(row.cells[0].value.data), 800);
	assert_int_equal(atomic_load(&sh.wins), 800);
	util_arena_destroy(a);
	kv_store_stats st;
	kv_store_get_stats(sh.s, &st);
	assert_true(st.wal_syncs > 0);
	kv_table_close(sh.t);
	kv_store_close(sh.s);
	kvt_close_rm(NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_atomic_batches),
	    cmocka_unit_test(test_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
