/* wal_test.c — the write-ahead log: group commit from many threads (fewer
 * fsyncs than commits, every record replayed), segment rolling, torn tails
 * (end of log) versus damage in the middle (KV_CORRUPTION), and crashes
 * while records go into zero-filled space or a zero-fill step runs
 * (through the fault-injecting fs: what was synced survives, unsynced
 * records never come back as garbage or corruption). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "kv_fault.h"
#include "kvt_util.h"
#include "wal.h"

static uint64_t next_no = 100;
static uint64_t next_seg(void *arg)
{
	return __atomic_fetch_add(&next_no, 1, __ATOMIC_SEQ_CST);
}

typedef struct wr {
	kv_wal *w;
	int id;
} wr;

#define PER_THREAD 300

static void *writer(void *arg)
{
	wr *x = arg;
	for (int i = 0; i < PER_THREAD; i++) {
		char rec[64];
		int n = snprintf(rec, sizeof(rec), "t%d-r%d", x->id, i);
		uint64_t seg;
		if (wal_write(x->w, (const uint8_t *)rec, (size_t)n, true, &seg) != KV_OK)
			abort();
	}
	return NULL;
}

typedef struct seen {
	int count;
	int last[8];
	bool order_ok;
} seen;

static kv_status on_rec(void *arg, const uint8_t *p, size_t n)
{
	seen *s = arg;
	int t, r;
	char buf[64];
	memcpy(buf, p, n);
	buf[n] = 0;
	if (sscanf(buf, "t%d-r%d", &t, &r) != 2)
		return KV_CORRUPTION;
	/* Each thread's records appear in its own order. */
	if (r != s->last[t] + 1)
		s->order_ok = false;
	s->last[t] = r;
	s->count++;
	return KV_OK;
}

static void replay_all(const char *dir, seen *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 8; i++)
		s->last[i] = -1;
	s->order_ok = true;
	for (uint64_t n = 1; n < next_no + 1; n++) {
		char p[4096];
		wal_seg_path(p, sizeof(p), dir, n);
		uint64_t ve, sz;
		kv_status st = wal_replay(kv_fs_posix(), p, on_rec, s, &ve, &sz);
		if (st == KV_NOT_FOUND)
			continue;
		assert_int_equal(st, KV_OK);
		assert_int_equal(ve, sz);
	}
}

static void test_group_commit(void **state)
{
	char *dir = kvt_tmpdir("wal");
	kv_wal *w;
	next_no = 100;
	assert_int_equal(wal_open(kv_fs_posix(), dir, 1, 4096, next_seg, NULL, &w), KV_OK);
	pthread_t th[4];
	wr x[4];
	for (int i = 0; i < 4; i++) {
		x[i] = (wr){w, i};
		pthread_create(&th[i], NULL, writer, &x[i]);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	uint64_t bytes, syncs;
	wal_stats(w, &bytes, &syncs);
	assert_true(syncs <= 4 * PER_THREAD + 100);
	assert_true(wal_current_seg(w) > 100); /* 4 KiB segments rolled */
	wal_close(w);
	seen s;
	replay_all(dir, &s);
	assert_int_equal(s.count, 4 * PER_THREAD);
	assert_true(s.order_ok);
	kvt_close_rm(NULL, dir);
}

static void write_n(const char *path, int n)
{
	kv_wal *w;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	assert_int_equal(wal_open(kv_fs_posix(), dir, 1, 1 << 20, next_seg, NULL, &w), KV_OK);
	for (int i = 0; i < n; i++) {
		char rec[64];
		int k = snprintf(rec, sizeof(rec), "t0-r%d", i);
		assert_int_equal(wal_write(w, (const uint8_t *)rec, (size_t)k, false, NULL), KV_OK);
	}
	assert_int_equal(wal_sync(w), KV_OK);
	wal_close(w);
}

static void test_torn_tail_and_damage(void **state)
{
	char *dir = kvt_tmpdir("walt");
	write_n(dir, 50);
	char p[4096];
	wal_seg_path(p, sizeof(p), dir, 1);
	FILE *f = fopen(p, "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *d = malloc((size_t)size + 16);
	assert_int_equal(fread(d, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	/* Cut inside the last record: 49 records, a torn tail. */
	f = fopen(p, "wb");
	fwrite(d, 1, (size_t)size - 3, f);
	fclose(f);
	seen s = {0};
	s.order_ok = true;
	s.last[0] = -1;
	uint64_t ve, sz;
	assert_int_equal(wal_replay(kv_fs_posix(), p, on_rec, &s, &ve, &sz), KV_OK);
	assert_int_equal(s.count, 49);
	assert_true(ve < sz);
	/* Garbage appended after complete records: also a tail. */
	f = fopen(p, "wb");
	fwrite(d, 1, (size_t)size, f);
	fwrite("\x00\x00\x00\x09garbage", 1, 11, f);
	fclose(f);
	memset(&s, 0, sizeof(s));
	s.last[0] = -1;
	assert_int_equal(wal_replay(kv_fs_posix(), p, on_rec, &s, &ve, &sz), KV_OK);
	assert_int_equal(s.count, 50);
	/* A flipped bit in an early record, valid records after it: damage. */
	d[20] ^= 0x01;
	f = fopen(p, "wb");
	fwrite(d, 1, (size_t)size, f);
	fclose(f);
	memset(&s, 0, sizeof(s));
	s.last[0] = -1;
	assert_int_equal(wal_replay(kv_fs_posix(), p, on_rec, &s, &ve, &sz), KV_CORRUPTION);
	free(d);
	kvt_close_rm(NULL, dir);
}

static uint64_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fclose(f);
	return (uint64_t)n;
}

static void put_rec(kv_wal *w, int i, bool sync, kv_status want)
{
	char rec[64];
	int k = snprintf(rec, sizeof(rec), "t0-r%d", i);
	assert_int_equal(wal_write(w, (const uint8_t *)rec, (size_t)k, sync, NULL), want);
}

/* Replays segments first..last as a store does: every segment but the
 * last must end exactly at its last record (rolls cut the zeroed tail and
 * sync); the last may end in zeros or a torn record. Returns the count. */
static int replay_store(const char *dir, uint64_t first, uint64_t last)
{
	seen s = {0};
	s.order_ok = true;
	s.last[0] = -1;
	uint64_t top = 0;
	for (uint64_t n = first; n <= last; n++) {
		char p[4096];
		wal_seg_path(p, sizeof(p), dir, n);
		if (access(p, F_OK) == 0)
			top = n;
	}
	for (uint64_t n = first; n <= top; n++) {
		char p[4096];
		wal_seg_path(p, sizeof(p), dir, n);
		if (access(p, F_OK) != 0)
			continue;
		uint64_t ve = 0, sz = 0;
		assert_int_equal(wal_replay(kv_fs_posix(), p, on_rec, &s, &ve, &sz), KV_OK);
		if (n != top)
			assert_int_equal(ve, sz);
	}
	assert_true(s.order_ok);
	return s.count;
}

/* Records written into zero-filled space, then a crash: the synced ones
 * survive, the unsynced ones are gone or a torn piece of them ends the
 * log (never corruption), and the segment really was zero-filled ahead. */
static void test_crash_in_zeroed_space(void **state)
{
	for (unsigned seed = 1; seed <= 12; seed++) {
		char *dir = kvt_tmpdir("walz");
		kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
		kv_wal *w;
		/* A 256 KiB segment: the preparer's first step fills it and it
		 * does nothing more (its fsync would make unsynced records
		 * durable, which is allowed but makes the count vary). */
		assert_int_equal(wal_open(kv_fault_fs_get(ff), dir, 1, 256 << 10, next_seg, NULL, &w), KV_OK);
		put_rec(w, 0, true, KV_OK);
		char p[4096];
		wal_seg_path(p, sizeof(p), dir, 1);
		/* The preparer runs in the background; wait for its step. */
		for (int i = 0; i < 3000 && wal_zeroed(w) < (256u << 10); i++)
			usleep(10000);
		assert_int_equal(wal_zeroed(w), 256u << 10);
		assert_int_equal(file_size(p), 256u << 10);
		for (int i = 1; i < 20; i++)
			put_rec(w, i, true, KV_OK);
		for (int i = 20; i < 30; i++)
			put_rec(w, i, false, KV_OK);
		kv_fault_kill(ff);
		wal_close(w);
		kv_fault_crash(ff, seed, seed % 2 == 0);
		kv_fault_revive(ff);
		int n = replay_store(dir, 1, 1);
		assert_true(n >= 20 && n <= 30);
		if (seed % 2)
			assert_int_equal(n, 20); /* not torn: exactly the synced records */
		kv_fault_fs_free(ff);
		kvt_rmdir(dir);
		free(dir);
	}
}

/* The process dies after k more file operations, for many k: the kill
 * lands in record writes, syncs, zero-fill steps and rolls (8 KiB
 * segments). Every acknowledged synced record survives the crash and the
 * log replays without corruption. */
static void test_crash_anywhere(void **state)
{
	for (uint64_t k = 1; k <= 80; k += 3) {
		char *dir = kvt_tmpdir("walk");
		kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
		kv_wal *w;
		next_no = 2;
		assert_int_equal(wal_open(kv_fault_fs_get(ff), dir, 1, 8 << 10, next_seg, NULL, &w), KV_OK);
		kv_fault_kill_after(ff, k);
		int acked = 0;
		for (int i = 0; i < 400; i++) {
			char rec[64];
			int len = snprintf(rec, sizeof(rec), "t0-r%d", i);
			if (wal_write(w, (const uint8_t *)rec, (size_t)len, true, NULL) != KV_OK)
				break;
			acked = i + 1;
		}
		kv_fault_kill(ff);
		wal_close(w);
		kv_fault_crash(ff, (unsigned)k, k % 2 == 0);
		kv_fault_revive(ff);
		int n = replay_store(dir, 1, next_no);
		assert_true(n >= acked);
		kv_fault_fs_free(ff);
		kvt_rmdir(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_group_commit),
	    cmocka_unit_test(test_torn_tail_and_damage),
	    cmocka_unit_test(test_crash_in_zeroed_space),
	    cmocka_unit_test(test_crash_anywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
