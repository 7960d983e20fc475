/*
 * crash_test.c — kill -9 durability test (RocksDB crash-test style). Each
 * cycle forks a child that opens the store and commits batches from three
 * threads (while flushes and compactions run), reporting every
 * acknowledged batch over a pipe. The parent SIGKILLs it at a random
 * moment, reopens the store and checks: every acknowledged batch is present
 * and whole, no batch is present in part. A fourth thread commits large
 * batches (they spill and commit as ingested files), so kills also land in
 * the middle of large commits. Cycles accumulate on one store.
 * Short in ctest; KV_CRASH_CYCLES=300 for the long mode (docs/kvstore.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kv.h"
#include "kvt_util.h"

#define PARTS       3
#define THREADS     4 /* the last one commits large batches */
#define LARGE_PARTS 400

/* Rows per batch: the thread number is the id's millions digit. */
static int parts_of(long id)
{
	return (id / 1000000L) % 10 == THREADS - 1 ? LARGE_PARTS : PARTS;
}

static kv_store *open_store(const char *dir)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_COMMIT;
	o.memstore_flush_bytes = 256 << 10;
	o.wal_segment_bytes = 128 << 10;
	o.batch_spill_bytes = 32 << 10;
	return kvt_open(dir, &o);
}

typedef struct child_ctx {
	kv_store *s;
	kv_table *t;
	int fd;
	int cycle, thread;
} child_ctx;

static void *child_thread(void *arg)
{
	child_ctx *c = arg;
	kv_batch *b = kv_batch_new();
	char pad[200];
	memset(pad, 'p', sizeof(pad));
	for (long k = 0;; k++) {
		long id = (long)c->cycle * 10000000L + (long)c->thread * 1000000L + k;
		char v[32];
		snprintf(v, sizeof(v), "%ld", id);
		kv_batch_clear(b);
		for (int p = 0; p < parts_of(id); p++) {
			char r[48];
			snprintf(r, sizeof(r), "%ld-%d", id, p);
			kv_batch_put(b, c->t, r, strlen(r), "f", "v", 1, KV_TS_LATEST, v, strlen(v));
			kv_batch_put(b, c->t, r, strlen(r), "f", "pad", 3, KV_TS_LATEST, pad, sizeof(pad));
		}
		if (kv_commit(c->s, b, NULL, NULL) != KV_OK)
			_exit(3);
		char msg[32];
		int n = snprintf(msg, sizeof(msg), "%ld\n", id);
		if (write(c->fd, msg, (size_t)n) != n)
			_exit(4);
		if (c->thread == 0 && k % 400 == 399)
			kv_table_compact(c->t, k % 800 == 799);
	}
	return NULL;
}

static void run_child(const char *dir, int fd, int cycle)
{
	kv_store *s = open_store(dir);
	if (!s)
		_exit(2);
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = 4096;
	kv_table_create(s, "t", &fo, 1);
	kv_table *t;
	if (kv_table_open(s, "t", &t))
		_exit(2);
	child_ctx c[THREADS];
	pthread_t th[THREADS];
	for (int i = 0; i < THREADS; i++) {
		c[i] = (child_ctx){s, t, fd, cycle, i};
		pthread_create(&th[i], NULL, child_thread, &c[i]);
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

typedef struct idset {
	long *v;
	size_t n, cap;
} idset;

static void add_id(idset *s, long id)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(long));
	}
	s->v[s->n++] = id;
}

static int lcmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static void verify(const char *dir, idset *acked, int cycle)
{
	kv_store *s = open_store(dir);
	assert_non_null(s);
	kv_table *t;
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	/* Parts present per batch id. */
	idset present = {0};
	kv_scan_opts o = {0};
	kv_column col = {"f", "v", 1};
	o.read.columns = &col;
	o.read.ncolumns = 1;
	kv_iter *it = kv_scan(t, &o);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		char r[48], v[32];
		snprintf(r, sizeof(r), "%.*s", (int)c->row.len, c->row.data);
		snprintf(v, sizeof(v), "%.*s", (int)c->value.len, c->value.data);
		long id;
		int p;
		assert_int_equal(sscanf(r, "%ld-%d", &id, &p), 2);
		assert_int_equal(atol(v), id);
		add_id(&present, id);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	qsort(present.v, present.n, sizeof(long), lcmp);
	/* Every present batch is whole. */
	for (size_t i = 0; i < present.n;) {
		size_t j = i;
		while (j < present.n && present.v[j] == present.v[i])
			j++;
		if (j - i != (size_t)parts_of(present.v[i]))
			fail_msg("cycle %d: batch %ld has %zu of %d parts", cycle, present.v[i], j - i,
				 parts_of(present.v[i]));
		i = j;
	}
	/* Every acknowledged batch is present. */
	qsort(acked->v, acked->n, sizeof(long), lcmp);
	for (size_t i = 0; i < acked->n; i++)
		if (!bsearch(&acked->v[i], present.v, present.n, sizeof(long), lcmp))
			fail_msg("cycle %d: acknowledged batch %ld is missing", cycle, acked->v[i]);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	free(present.v);
	kv_table_close(t);
	kv_store_close(s);
}

static void test_kill9(void **state)
{
	int cycles = getenv("KV_CRASH_CYCLES") ? atoi(getenv("KV_CRASH_CYCLES")) : 6;
	char *dir = kvt_tmpdir("kill9");
	idset acked = {0};
	unsigned r = 12345;
	size_t total = 0, large = 0;
	for (int cycle = 1; cycle <= cycles; cycle++) {
		int pfd[2];
		assert_int_equal(pipe(pfd), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(pfd[0]);
			run_child(dir, pfd[1], cycle);
		}
		close(pfd[1]);
		r = r * 1103515245u + 12345u;
		int64_t run_us = 100000 + (int64_t)((r >> 8) % 400000);
		int64_t t0 = util_mono_us();
		char buf[4096], line[64];
		size_t ll = 0;
		fcntl(pfd[0], F_SETFL, O_NONBLOCK);
		bool killed = false;
		for (;;) {
			/* The last cycle waits (up to 30 s) for a large batch to be
			 * acknowledged if none was yet: on a loaded machine the random
			 * windows may all end before the first large one commits. */
			int64_t ran = util_mono_us() - t0;
			bool want_large = cycle == cycles && large == 0 && ran < 30000000;
			if (!killed && ran >= run_us && !want_large) {
				kill(pid, SIGKILL);
				killed = true;
			}
			ssize_t n = read(pfd[0], buf, sizeof(buf));
			if (n == 0)
				break;
			if (n < 0) {
				if (errno != EAGAIN && errno != EINTR)
					break;
				util_sleep_us(1000);
				continue;
			}
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] == '\n') {
					line[ll] = 0;
					add_id(&acked, atol(line));
					large += parts_of(atol(line)) == LARGE_PARTS;
					ll = 0;
				} else if (ll < sizeof(line) - 1) {
					line[ll++] = buf[i];
				}
			}
		}
		close(pfd[0]);
		int status;
		waitpid(pid, &status, 0);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		verify(dir, &acked, cycle);
		total = acked.n;
	}
	printf("kill9: %d cycles, %zu acknowledged batches verified (%zu large)\n", cycles, total, large);
	assert_true(large > 0);
	assert_true(total > 0);
	free(acked.v);
	kvt_close_rm(NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kill9),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
