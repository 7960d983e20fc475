/* fault_test.c — the store under injected faults: crashes that lose
 * unsynced data or tear the last writes (at random points, including inside
 * flushes and compactions), fsync failure (read-only until reopened), ENOSPC
 * (refused, consistent, resumes), EIO on reads, and bit flips in sorted
 * files and the log (KV_CORRUPTION, never wrong data). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kv.h"
#include "kv_fault.h"
#include "kvt_util.h"

#define ROWS_PER_BATCH 4
static const char *const FAMS[] = {"f"};

static kv_store *open_with(const char *dir, kv_fault_fs *ff, kv_durability d, kv_status *st)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = d;
	o.fs = kv_fault_fs_get(ff);
	o.memstore_flush_bytes = 64 << 10;
	o.wal_segment_bytes = 32 << 10;
	o.block_cache_bytes = 0;
	kv_store *s = NULL;
	*st = kv_store_open(dir, &o, &s);
	return s;
}

static kv_status commit_batch(kv_store *s, kv_table *t, int id)
{
	kv_batch *b = kv_batch_new();
	char v[16];
	snprintf(v, sizeof(v), "%d", id);
	for (int k = 0; k < ROWS_PER_BATCH; k++) {
		char r[32];
		snprintf(r, sizeof(r), "b%05d-%d", id, k);
		kv_batch_put(b, t, r, strlen(r), "f", "v", 1, KV_TS_LATEST, v, strlen(v));
	}
	kv_status st = kv_commit(s, b, NULL, NULL);
	kv_batch_free(b);
	return st;
}

/* Rows present per batch id (0..max). */
static void count_batches(kv_table *t, int *per, int max)
{
	memset(per, 0, sizeof(int) * (size_t)(max + 1));
	kv_scan_opts o = {0};
	kv_iter *it = kv_scan(t, &o);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		char r[32];
		snprintf(r, sizeof(r), "%.*s", (int)c->row.len, c->row.data);
		int id, k;
		assert_int_equal(sscanf(r, "b%05d-%d", &id, &k), 2);
		assert_true(id <= max);
		char v[16];
		snprintf(v, sizeof(v), "%.*s", (int)c->value.len, c->value.data);
		assert_int_equal(atoi(v), id);
		per[id]++;
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
}

static void crash_round(unsigned seed, kv_durability d, bool torn)
{
	char *dir = kvt_tmpdir("crash");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_status st;
	kv_store *s = open_with(dir, ff, d, &st);
	assert_non_null(s);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	/* Kill at a random operation: anywhere in commits, flushes, compactions. */
	unsigned r = seed;
	r = r * 1103515245u + 12345u;
	kv_fault_kill_after(ff, 200 + (r >> 8) % 3000);
	int acked = 0, max = 0;
	for (int id = 1; id <= 2000; id++) {
		max = id;
		if (commit_batch(s, t, id) != KV_OK)
			break;
		acked = id;
		if (id % 97 == 0)
			kv_table_flush(t);
		if (id % 301 == 0)
			kv_table_compact(t, id % 602 == 0);
	}
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_crash(ff, seed, torn);
	kv_fault_revive(ff);
	s = open_with(dir, ff, d, &st);
	if (!s)
		fail_msg("reopen after crash (seed %u): %s %s", seed, kv_status_name(st), kv_errmsg());
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	int *per = calloc((size_t)max + 1, sizeof(int));
	count_batches(t, per, max);
	int last_present = 0;
	for (int id = 1; id <= max; id++) {
		/* Whole or absent, never part of a batch. */
		assert_true(per[id] == 0 || per[id] == ROWS_PER_BATCH);
		if (per[id])
			last_present = id;
		if (d == KV_SYNC_COMMIT && id <= acked && per[id] != ROWS_PER_BATCH)
			fail_msg("seed %u: acknowledged batch %d lost", seed, id);
	}
	/* The log is a sequence: what survived is a prefix of the commits. */
	for (int id = 1; id <= last_present; id++)
		if (per[id] != ROWS_PER_BATCH)
			fail_msg("seed %u: batch %d missing before %d", seed, id, last_present);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	/* And the store takes writes again. */
	assert_int_equal(commit_batch(s, t, max), KV_OK);
	free(per);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

static void test_crashes(void **state)
{
	int rounds = getenv("KV_FAULT_ROUNDS") ? atoi(getenv("KV_FAULT_ROUNDS")) : 6;
	for (int i = 1; i <= rounds; i++) {
		crash_round((unsigned)i, KV_SYNC_COMMIT, false);
		crash_round((unsigned)i + 1000, KV_SYNC_COMMIT, true);
		crash_round((unsigned)i + 2000, KV_SYNC_NONE, true);
	}
}

static void test_fsync_failure(void **state)
{
	char *dir = kvt_tmpdir("fsync");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_status st;
	kv_store *s = open_with(dir, ff, KV_SYNC_COMMIT, &st);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	assert_int_equal(commit_batch(s, t, 1), KV_OK);
	kv_fault_set(ff, KV_FAULT_SYNC, EIO, 0, ".wal");
	/* The commit's own fsync fails (KV_IO_ERROR), or the log's preparer,
	 * zero-filling the segment ahead of it, hit the fault first and the
	 * log already refuses writes (KV_READ_ONLY): either way batch 2 is
	 * not acknowledged. */
	kv_status st2 = commit_batch(s, t, 2);
	assert_true(st2 == KV_IO_ERROR || st2 == KV_READ_ONLY);
	kv_fault_clear(ff);
	/* fsyncgate: no more writes, even though fsync works again. */
	assert_int_equal(commit_batch(s, t, 3), KV_READ_ONLY);
	assert_int_equal(kv_table_flush(t), KV_READ_ONLY);
	int per[4];
	count_batches(t, per, 3);
	assert_int_equal(per[1], ROWS_PER_BATCH);
	kv_table_close(t);
	kv_store_close(s);
	s = open_with(dir, ff, KV_SYNC_COMMIT, &st);
	assert_non_null(s);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	count_batches(t, per, 3);
	assert_int_equal(per[1], ROWS_PER_BATCH);
	assert_true(per[2] == 0 || per[2] == ROWS_PER_BATCH);
	assert_int_equal(per[3], 0);
	assert_int_equal(commit_batch(s, t, 3), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

static void test_enospc(void **state)
{
	char *dir = kvt_tmpdir("nospc");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_status st;
	kv_store *s = open_with(dir, ff, KV_SYNC_COMMIT, &st);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	assert_int_equal(commit_batch(s, t, 1), KV_OK);
	kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, 0, ".wal");
	assert_int_equal(commit_batch(s, t, 2), KV_NO_SPACE);
	assert_int_equal(commit_batch(s, t, 3), KV_NO_SPACE);
	kv_fault_clear(ff);
	/* Space is back: writes resume. */
	assert_int_equal(commit_batch(s, t, 4), KV_OK);
	/* Out of space while flushing: the data stays in the memstore and log. */
	kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, 0, ".sst");
	assert_int_equal(kv_table_flush(t), KV_NO_SPACE);
	int per[6];
	count_batches(t, per, 5);
	assert_int_equal(per[1] + per[4], 2 * ROWS_PER_BATCH);
	kv_fault_clear(ff);
	assert_int_equal(kv_table_flush(t), KV_OK);
	assert_int_equal(commit_batch(s, t, 5), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	s = open_with(dir, ff, KV_SYNC_COMMIT, &st);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	count_batches(t, per, 5);
	assert_int_equal(per[1], ROWS_PER_BATCH);
	assert_int_equal(per[2], 0);
	assert_int_equal(per[3], 0);
	assert_int_equal(per[4], ROWS_PER_BATCH);
	assert_int_equal(per[5], ROWS_PER_BATCH);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

static void test_read_eio(void **state)
{
	char *dir = kvt_tmpdir("eio");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_status st;
	kv_store *s = open_with(dir, ff, KV_SYNC_NONE, &st);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	for (int i = 1; i <= 50; i++)
		assert_int_equal(commit_batch(s, t, i), KV_OK);
	assert_int_equal(kv_table_flush(t), KV_OK);
	kv_fault_set(ff, KV_FAULT_READ, EIO, 0, ".sst");
	kv_scan_opts o = {0};
	kv_iter *it = kv_scan(t, &o);
	while (kv_iter_valid(it))
		kv_iter_next(it);
	assert_int_equal(kv_iter_status(it), KV_IO_ERROR);
	kv_iter_close(it);
	util_arena *a = util_arena_new(1024, 0);
	kv_row row;
	assert_int_equal(kv_get(t, "b00007-1", 8, NULL, a, &row), KV_IO_ERROR);
	kv_fault_clear(ff);
	assert_int_equal(kv_get(t, "b00007-1", 8, NULL, a, &row), KV_OK);
	assert_int_equal(row.n, 1);
	util_arena_destroy(a);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

static int find_ext(const char *dir, const char *ext, char *out, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > strlen(ext) && !strcmp(e->d_name + l - strlen(ext), ext)) {
			snprintf(out, n, "%s/%s", dir, e->d_name);
			found = 1;
			break;
		}
	}
	closedir(d);
	return found;
}

static void test_bit_flips(void **state)
{
	char *dir = kvt_tmpdir("flip");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_status st;
	kv_store *s = open_with(dir, ff, KV_SYNC_NONE, &st);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	for (int i = 1; i <= 300; i++)
		assert_int_equal(commit_batch(s, t, i), KV_OK);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	char sst[4096];
	assert_true(find_ext(dir, ".sst", sst, sizeof(sst)));
	struct stat sb;
	stat(sst, &sb);
	int detected = 0;
	for (uint64_t off = 0; off < (uint64_t)sb.st_size; off += (uint64_t)sb.st_size / 40 + 1) {
		assert_int_equal(kv_fault_flip(sst, off, 0x04), 0);
		s = open_with(dir, ff, KV_SYNC_NONE, &st);
		assert_non_null(s);
		assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
		/* Either every row reads back right, or the read says corruption. */
		kv_scan_opts o = {0};
		kv_iter *it = kv_scan(t, &o);
		int n = 0;
		for (; kv_iter_valid(it); kv_iter_next(it)) {
			const kv_cell *c = kv_iter_cell(it);
			char r[32], v[16];
			snprintf(r, sizeof(r), "%.*s", (int)c->row.len, c->row.data);
			snprintf(v, sizeof(v), "%.*s", (int)c->value.len, c->value.data);
			int id, k;
			assert_int_equal(sscanf(r, "b%05d-%d", &id, &k), 2);
			assert_int_equal(atoi(v), id);
			n++;
		}
		kv_status is = kv_iter_status(it);
		kv_iter_close(it);
		if (is) {
			assert_int_equal(is, KV_CORRUPTION);
			assert_int_equal(kv_store_verify(s, NULL, NULL), KV_CORRUPTION);
			detected++;
		} else {
			assert_int_equal(n, 300 * ROWS_PER_BATCH);
		}
		kv_table_close(t);
		kv_store_close(s);
		assert_int_equal(kv_fault_flip(sst, off, 0x04), 0); /* repair */
	}
	assert_true(detected > 30);
	/* A flipped bit early in the log, with records after it: open refuses. */
	s = open_with(dir, ff, KV_SYNC_NONE, &st);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	for (int i = 301; i <= 320; i++)
		assert_int_equal(commit_batch(s, t, i), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	char wal[4096];
	assert_true(find_ext(dir, ".wal", wal, sizeof(wal)));
	stat(wal, &sb);
	if (sb.st_size > 100) {
		assert_int_equal(kv_fault_flip(wal, 30, 0x01), 0);
		s = open_with(dir, ff, KV_SYNC_NONE, &st);
		assert_null(s);
		assert_int_equal(st, KV_CORRUPTION);
	}
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crashes),   cmocka_unit_test(test_fsync_failure),
	    cmocka_unit_test(test_enospc),    cmocka_unit_test(test_read_eio),
	    cmocka_unit_test(test_bit_flips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
