/*
 * large_test.c — batches that spill to run files and commit as ingested
 * sorted files ("large commits", docs/kvstore.md): contents and reopen,
 * atomic visibility to concurrent readers, snapshots, identical cells,
 * kv_commit_if conflicts (both check directions), conditions, deletes of
 * the newest version, reserved timestamps, dropped tables, no space, and
 * crashes at every step of a large commit (all or nothing, no orphans).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "kv_fault.h"
#include "kvt_util.h"

static const char *const FAMS2[] = {"d", "e"};

static kv_store *open_small(const char *dir)
{
	return kvt_open_spill(dir, NULL, 4096);
}

static void test_spill_commit_reopen(void **state)
{
	char *dir = kvt_tmpdir("large");
	kv_store *s = open_small(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	char r[16], v[32];
	for (int i = 0; i < 100; i++) {
		kvt_rowkey(r, i);
		assert_int_equal(kvt_put(s, t, r, "d", "a", 0, "old"), KV_OK);
		assert_int_equal(kvt_put(s, t, r, "d", "z", 0, "zz"), KV_OK);
	}
	assert_int_equal(kv_table_flush(t), KV_OK);
	uint64_t files_before = kvt_file_count(t);

	kv_batch *b = kv_batch_new();
	const int N = 3000;
	for (int i = N; i-- > 0;) { /* descending: the spills must sort */
		kvt_rowkey(r, i);
		snprintf(v, sizeof(v), "v%d", i);
		kv_batch_put(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, v, strlen(v));
		kv_batch_put(b, t, r, strlen(r), "d", "b", 1, KV_TS_LATEST, "x", 1);
		kv_batch_put(b, t, r, strlen(r), "e", "c", 1, 7777, "y", 1);
		if (i < 100)
			kv_batch_delete(b, t, r, strlen(r), "d", "z", 1, KV_TS_LATEST, KV_DELETE_COLUMN);
		if (i >= 2000 && i < 2010)
			kv_batch_delete_row(b, t, r, strlen(r), KV_TS_LATEST);
	}
	assert_int_equal(kv_batch_count(b), (size_t)(3 * N + 100 + 10));
	assert_true(kv_batch_byte_size(b) > 4096);
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, NULL, &cts), KV_OK);
	assert_true(cts > 0);
	assert_true(kv_read_point(s) >= cts);
	assert_int_equal(kv_batch_count(b), 0);
	kv_batch_free(b);
	/* Two families, two kinds: at most 3 groups (d latest, e explicit), each
	 * merged into one file or, when its runs do not overlap (descending
	 * keys), kept as up to 8 runs (stage.c MAX_APART). */
	assert_true(kvt_file_count(t) > files_before && kvt_file_count(t) <= files_before + 3 * 8);

	for (int pass = 0; pass < 2; pass++) {
		char buf[64];
		for (int i = 0; i < N; i += 97) {
			kvt_rowkey(r, i);
			bool gone = i >= 2000 && i < 2010;
			snprintf(v, sizeof(v), "v%d", i);
			assert_int_equal(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)), !gone);
			if (!gone)
				assert_string_equal(buf, v);
			assert_false(kvt_get(t, r, "d", "z", 0, buf, sizeof(buf)));
		}
		kvt_rowkey(r, 2005);
		assert_false(kvt_get(t, r, "e", "c", 0, buf, sizeof(buf)));
		kvt_rowkey(r, 2500);
		assert_true(kvt_get(t, r, "e", "c", 0, buf, sizeof(buf)));
		/* Cells committed at cts; the explicit one kept its timestamp. */
		util_arena *a = util_arena_new(1024, 0);
		kv_row row;
		assert_int_equal(kv_get(t, r, strlen(r), NULL, a, &row), KV_OK);
		assert_int_equal(row.n, 3);
		assert_int_equal(row.cells[0].ts, cts);
		assert_int_equal(row.cells[2].ts, 7777);
		util_arena_destroy(a);
		assert_int_equal(kvt_scan_count(t, 0), (size_t)(3 * (N - 10)));
		assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
		/* Nothing left behind: every .sst is a table file. */
		assert_int_equal(kvt_count_ssts(dir), (int)kvt_file_count(t));
		kv_table_close(t);
		kv_store_close(s);
		s = open_small(dir);
		assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
		assert_true(kv_read_point(s) >= cts);
	}
	/* And compaction folds the ingested files in. */
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)(3 * (N - 10)));
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* Rows of `up` (row i holds "v<i>") between rows lo and hi (exclusive; -1:
 * open), forward or reverse, by kv_iter_next or kv_iter_row; seek: jump to
 * that row first (-1: none). Checks every row in order; returns the count. */
static int row_no(const kv_cell *c)
{
	char r[16] = {0};
	assert_true(c->row.len < sizeof(r));
	memcpy(r, c->row.data, c->row.len);
	return atoi(r + 1);
}

static void count_cell(void *arg, const kv_cell *c)
{
	(void)c;
	(*(int *)arg)++;
}

static int check_rows(kv_table *t, int lo, int hi, bool reverse, bool by_row, int seek)
{
	char a[16], b[16];
	kvt_rowkey(a, lo);
	kvt_rowkey(b, hi);
	kv_scan_opts o = {0};
	o.start = lo >= 0 ? a : NULL;
	o.start_len = lo >= 0 ? strlen(a) : 0;
	o.stop = hi >= 0 ? b : NULL;
	o.stop_len = hi >= 0 ? strlen(b) : 0;
	o.reverse = reverse;
	kv_iter *it = kv_scan(t, &o);
	if (seek >= 0) {
		char sk[16];
		kvt_rowkey(sk, seek);
		kv_iter_seek_row(it, sk, strlen(sk));
	}
	int n = 0, prev = -1;
	while (kv_iter_valid(it)) {
		const kv_cell *c = kv_iter_cell(it);
		int i = row_no(c);
		char v[32];
		snprintf(v, sizeof(v), "v%d", i);
		assert_int_equal(c->value.len, strlen(v));
		assert_memory_equal(c->value.data, v, strlen(v));
		if (prev >= 0)
			assert_int_equal(i, reverse ? prev - 1 : prev + 1);
		else if (seek >= 0)
			assert_int_equal(i, seek);
		prev = i;
		n++;
		if (by_row) {
			int cells = 0;
			assert_int_equal(kv_iter_row(it, count_cell, &cells), 1);
			assert_int_equal(cells, 1);
		} else {
			kv_iter_next(it);
		}
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	return n;
}

/* Spills whose keys ascend (a bulk load in key order) give runs whose key
 * ranges do not overlap: they become table files as they are, one per
 * run, without the merge at commit; a minor or manual compaction leaves
 * them apart (nothing to drop), a major one folds them; runs whose ranges
 * overlap still merge into one file. Contents are the same either way. */
static void test_ascending_runs_kept_apart(void **state)
{
	char *dir = kvt_tmpdir("largeasc");
	kv_store *s = kvt_open_spill(dir, NULL, 24 << 10);
	kv_table *up = kvt_table(s, "up", 1, FAMS2), *down = kvt_table(s, "down", 1, FAMS2);
	const int N = 3000;
	char r[16], v[32], buf[32];
	kv_batch *b = kv_batch_new();
	for (int i = 0; i < N; i++) {
		kvt_rowkey(r, i);
		snprintf(v, sizeof(v), "v%d", i);
		kv_batch_put(b, up, r, strlen(r), "d", "a", 1, KV_TS_LATEST, v, strlen(v));
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	for (int i = 0; i < 2 * N; i++) { /* even rows, then odd rows: runs overlap */
		kvt_rowkey(r, i < N ? 2 * i % N : (2 * i + 1) % N);
		kv_batch_put(b, down, r, strlen(r), "d", "a", 1, KV_TS_LATEST, "w", 1);
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	uint64_t nup = kvt_file_count(up);
	/* several spills, enough to trigger a minor compaction */
	assert_true(nup >= 4 && nup <= 8);
	assert_int_equal(kvt_file_count(down), 1);
	for (int pass = 0; pass < 3; pass++) {
		kv_ts now = kv_read_point(s);
		assert_int_equal(kvt_scan_count(up, now), (size_t)N);
		assert_int_equal(kvt_scan_count(down, now), (size_t)N);
		for (int i = 0; i < N; i += 37) {
			kvt_rowkey(r, i);
			snprintf(v, sizeof(v), "v%d", i);
			assert_true(kvt_get(up, r, "d", "a", 0, buf, sizeof(buf)));
			assert_string_equal(buf, v);
			assert_true(kvt_get(down, r, "d", "a", 0, buf, sizeof(buf)));
		}
		kvt_rowkey(r, N);
		assert_false(kvt_get(up, r, "d", "a", 0, buf, sizeof(buf)));
		/* Ranges across the files' boundaries, both directions, seeks. */
		assert_int_equal(check_rows(up, -1, -1, false, false, -1), N);
		assert_int_equal(check_rows(up, -1, -1, false, true, -1), N);
		assert_int_equal(check_rows(up, -1, -1, true, false, -1), N);
		assert_int_equal(check_rows(up, 17, 2999, false, true, -1), 2982);
		assert_int_equal(check_rows(up, 500, 2500, true, false, -1), 2000);
		assert_int_equal(check_rows(up, 100, -1, false, false, 1700), N - 1700);
		assert_int_equal(check_rows(up, -1, 2900, true, false, 1200), 1201);
		for (int i = 0; i < N; i += 250)
			assert_int_equal(check_rows(up, i, i + 1, false, false, -1), 1);
		assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
		assert_int_equal(kvt_count_ssts(dir), (int)(kvt_file_count(up) + kvt_file_count(down)));
		if (pass == 0) { /* a manual minor compaction: nothing to gain */
			assert_int_equal(kv_table_compact(up, false), KV_OK);
			assert_int_equal(kvt_file_count(up), nup);
		} else if (pass == 1) { /* after a reopen, a major one folds them */
			kv_table_close(up);
			kv_table_close(down);
			kv_store_close(s);
			s = kvt_open_spill(dir, NULL, 16 << 10);
			assert_int_equal(kv_table_open(s, "up", &up), KV_OK);
			assert_int_equal(kv_table_open(s, "down", &down), KV_OK);
			assert_int_equal(kvt_file_count(up), nup);
			assert_int_equal(kv_table_compact(up, true), KV_OK);
			assert_int_equal(kvt_file_count(up), 1);
		}
	}
	kv_table_close(up);
	kv_table_close(down);
	kvt_close_rm(s, dir);
	(void)state;
}

/* ---------------------------------------------------------------- visibility */

typedef struct vis_ctx {
	kv_store *s;
	kv_table *t;
	int rows;
	volatile int stop;
	int checks;
	char err[200];
} vis_ctx;

/* Every scan sees each large commit whole or not at all: all rows carry
 * the same batch number. */
static void *vis_reader(void *arg)
{
	vis_ctx *c = arg;
	while (!c->stop && !c->err[0]) {
		kv_scan_opts o = {0};
		kv_iter *it = kv_scan(c->t, &o);
		long first = -1;
		int n = 0;
		for (; kv_iter_valid(it); kv_iter_next(it)) {
			const kv_cell *x = kv_iter_cell(it);
			char v[32];
			snprintf(v, sizeof(v), "%.*s", (int)x->value.len, x->value.data);
			long id = atol(v);
			if (first < 0)
				first = id;
			else if (id != first)
				snprintf(c->err, sizeof(c->err), "mixed batches %ld and %ld", first, id);
			n++;
		}
		if (kv_iter_status(it))
			snprintf(c->err, sizeof(c->err), "scan: %s", kv_errmsg());
		kv_iter_close(it);
		if (n != 0 && n != c->rows)
			snprintf(c->err, sizeof(c->err), "saw %d of %d rows", n, c->rows);
		c->checks++;
	}
	return NULL;
}

static void test_atomic_visibility(void **state)
{
	char *dir = kvt_tmpdir("largevis");
	kv_store *s = open_small(dir);
	kv_table *t = kvt_table(s, "t", 1, FAMS2);
	vis_ctx c = {s, t, 2000, 0, 0, ""};
	pthread_t th;
	pthread_create(&th, NULL, vis_reader, &c);
	kv_batch *b = kv_batch_new();
	for (int round = 1; round <= 12 && !c.err[0]; round++) {
		char r[16], v[16];
		snprintf(v, sizeof(v), "%d", round);
		for (int i = 0; i < c.rows; i++) {
			kvt_rowkey(r, (i * 7919) % c.rows);
			kv_batch_put(b, t, r, strlen(r), "d", "v", 1, KV_TS_LATEST, v, strlen(v));
		}
		assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
		kv_batch_clear(b);
		if (round % 4 == 0)
			assert_int_equal(kv_table_compact(t, round % 8 == 0), KV_OK);
	}
	c.stop = 1;
	pthread_join(th, NULL);
	if (c.err[0])
		fail_msg("%s", c.err);
	assert_true(c.checks > 0);
	kv_batch_free(b);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void test_snapshot_and_identical_cells(void **state)
{
	char *dir = kvt_tmpdir("largesnap");
	kv_store *s = open_small(dir);
	kv_table *t = kvt_table(s, "t", 1, FAMS2);
	assert_int_equal(kvt_put(s, t, "x", "d", "a", 5000, "old"), KV_OK); /* in the memstore */
	assert_int_equal(kvt_put(s, t, "y", "d", "a", 6000, "old"), KV_OK);
	assert_int_equal(kv_table_flush(t), KV_OK);
	assert_int_equal(kvt_put(s, t, "y", "d", "b", 6000, "old"), KV_OK);
	kv_ts snap;
	assert_int_equal(kv_snapshot_acquire(s, &snap), KV_OK);
	kv_batch *b = kv_batch_new();
	char r[16];
	for (int i = 0; i < 500; i++) {
		kvt_rowkey(r, i);
		kv_batch_put(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, "first", 5);
	}
	kv_batch_put(b, t, "x", 1, "d", "a", 1, 5000, "new", 3);
	kv_batch_put(b, t, "y", 1, "d", "a", 1, 6000, "new", 3);
	kv_batch_put(b, t, "y", 1, "d", "b", 1, 6000, "new", 3);
	for (int i = 0; i < 500; i++) { /* later copies of the same cells win */
		kvt_rowkey(r, i);
		kv_batch_put(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, "second", 6);
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	char buf[32];
	kvt_rowkey(r, 123);
	assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "second");
	assert_false(kvt_get(t, r, "d", "a", snap, buf, sizeof(buf)));
	assert_true(kvt_get(t, "x", "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	assert_true(kvt_get(t, "y", "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	assert_true(kvt_get(t, "y", "d", "b", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	/* The snapshot does not see the large commit, explicit timestamps
	 * included (it completed after the snapshot). */
	assert_int_equal(kvt_scan_count(t, snap), 3);
	kv_snapshot_release(s, snap);
	kv_batch_free(b);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* ---------------------------------------------------------------- conflicts and conditions */

static kv_batch *batch_rows(kv_table *t, int from, int to, const char *v)
{
	kv_batch *b = kv_batch_new();
	char r[16];
	for (int i = from; i < to; i++) {
		kvt_rowkey(r, i);
		kv_batch_put(b, t, r, strlen(r), "d", "v", 1, KV_TS_LATEST, v, strlen(v));
		kv_batch_put(b, t, r, strlen(r), "d", "w", 1, KV_TS_LATEST, v, strlen(v));
	}
	return b;
}

/* A spill sees sorted runs one after another (a transaction loading
 * several tables, a table loaded twice in overlapping key ranges, runs
 * in descending order): they are merged, every cell lands where it
 * belongs, and the later write of a cell wins. */
static void test_spill_sorted_runs(void **state)
{
	char *dir = kvt_tmpdir("largeruns");
	kv_store *s = kvt_open_spill(dir, NULL, 16 << 10); /* each spill holds several runs */
	kv_table *a = kvt_table(s, "a", 1, FAMS2), *z = kvt_table(s, "z", 1, FAMS2);
	kv_batch *b = kv_batch_new();
	char r[16];
	/* z first (a later table id sorts after a), then a's even rows, then a's
	 * odd rows, then a's rows 0..99 again descending with new values. */
	for (int i = 0; i < 300; i++) {
		kvt_rowkey(r, i);
		kv_batch_put(b, z, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "z", 1);
	}
	for (int i = 0; i < 600; i += 2) {
		kvt_rowkey(r, i);
		kv_batch_put(b, a, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "even", 4);
	}
	for (int i = 1; i < 600; i += 2) {
		kvt_rowkey(r, i);
		kv_batch_put(b, a, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "odd", 3);
	}
	for (int i = 99; i >= 0; i--) {
		kvt_rowkey(r, i);
		kv_batch_put(b, a, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "again", 5);
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	kv_ts now = kv_read_point(s);
	assert_int_equal(kvt_scan_count(a, now), 600);
	assert_int_equal(kvt_scan_count(z, now), 300);
	char buf[32];
	for (int i = 0; i < 600; i++) {
		kvt_rowkey(r, i);
		assert_true(kvt_get(a, r, "d", "v", 0, buf, sizeof(buf)));
		assert_string_equal(buf, i < 100 ? "again" : i % 2 ? "odd" : "even");
	}
	kvt_rowkey(r, 299);
	assert_true(kvt_get(z, r, "d", "v", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "z");
	kv_table_close(a);
	kv_table_close(z);
	kvt_close_rm(s, dir);
	(void)state;
}

/* kv_write_opts.ingest: a batch far below the spill size still commits as
 * sorted files (nothing in the memstore), explicit timestamps kept, a
 * later small batch shadows it, and the contents survive a reopen. */
static void test_ingest_small_batch(void **state)
{
	char *dir = kvt_tmpdir("ingest");
	kv_store *s = kvt_open_spill(dir, NULL, 64 << 20);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	kv_batch *b = kv_batch_new();
	char r[16], v[16], buf[32];
	for (int i = 0; i < 500; i++) {
		kvt_rowkey(r, i);
		snprintf(v, sizeof(v), "v%d", i);
		kv_batch_put(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, v, strlen(v));
		kv_batch_put(b, t, r, strlen(r), "e", "b", 1, 5, "old", 3);
	}
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	kv_table_stats ts;
	assert_int_equal(kv_table_get_stats(t, &ts), KV_OK);
	uint64_t mem_before = ts.memstore_bytes;
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, &wo, &cts), KV_OK);
	assert_true(cts > 0);
	assert_int_equal(kv_batch_count(b), 0);
	assert_int_equal(kv_table_get_stats(t, &ts), KV_OK);
	assert_int_equal(ts.memstore_bytes, mem_before);       /* (an empty memstore's own bytes) */
	assert_true(ts.file_count >= 1 && ts.file_count <= 2); /* one per family and kind */
	assert_int_equal(kvt_scan_count(t, kv_read_point(s)), 1000);
	kvt_rowkey(r, 7);
	assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "v7");
	assert_true(kvt_get(t, r, "e", "b", 5, buf, sizeof(buf))); /* at its own timestamp */
	assert_false(kvt_get(t, r, "e", "b", 4, buf, sizeof(buf)));
	assert_int_equal(kvt_put(s, t, r, "d", "a", 0, "new"), KV_OK);
	assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	kv_batch_free(b);
	kv_table_close(t);
	kv_store_close(s);
	s = kvt_open_spill(dir, NULL, 64 << 20);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	kvt_rowkey(r, 499);
	assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "v499");
	kvt_rowkey(r, 7);
	assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	kv_table_close(t);
	kvt_close_rm(s, dir);
	(void)state;
}

static void test_commit_if(void **state)
{
	char *dir = kvt_tmpdir("largeif");
	kv_store *s = open_small(dir);
	kv_table *t = kvt_table(s, "t", 1, FAMS2);
	int files0 = kvt_count_ssts(dir);
	char r[16], buf[32];

	/* A row written after read_ts, still in the memstore. */
	kv_ts rts = kv_read_point(s);
	kvt_rowkey(r, 150);
	assert_int_equal(kvt_put(s, t, r, "d", "v", 0, "other"), KV_OK);
	kv_batch *b = batch_rows(t, 0, 400, "big");
	assert_int_equal(kv_commit_if(s, b, rts, NULL, NULL), KV_CONFLICT);
	kv_batch_free(b);
	kvt_rowkey(r, 10);
	assert_false(kvt_get(t, r, "d", "v", 0, buf, sizeof(buf)));
	assert_int_equal(kvt_count_ssts(dir), files0);

	/* The same row in a sorted file. */
	assert_int_equal(kv_table_flush(t), KV_OK);
	b = batch_rows(t, 0, 400, "big");
	assert_int_equal(kv_commit_if(s, b, rts, NULL, NULL), KV_CONFLICT);
	kv_batch_free(b);

	/* The other direction: more newer cells than the batch has (its rows
	 * are probed against the sources), no conflict, then one. */
	rts = kv_read_point(s);
	kv_batch *big = kv_batch_new();
	for (int i = 10000; i < 14000; i++) {
		kvt_rowkey(r, i);
		kv_batch_put(big, t, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "n", 1);
	}
	assert_int_equal(kv_commit(s, big, NULL, NULL), KV_OK); /* large itself */
	kv_batch_free(big);
	b = batch_rows(t, 0, 100, "big");
	assert_int_equal(kv_commit_if(s, b, rts, NULL, NULL), KV_OK);
	kv_batch_free(b);
	kvt_rowkey(r, 50);
	assert_true(kvt_get(t, r, "d", "v", 0, buf, sizeof(buf)));
	b = batch_rows(t, 13950, 14050, "big");
	assert_int_equal(kv_commit_if(s, b, rts, NULL, NULL), KV_CONFLICT);
	kv_batch_free(b);

	/* A check row (not written) that changed. */
	rts = kv_read_point(s);
	assert_int_equal(kvt_put(s, t, "chk", "d", "v", 0, "x"), KV_OK);
	b = batch_rows(t, 20000, 20300, "big");
	kv_batch_check_row(b, t, "chk", 3);
	assert_int_equal(kv_commit_if(s, b, rts, NULL, NULL), KV_CONFLICT);
	kv_batch_free(b);
	/* Fresh read_ts: fine. */
	b = batch_rows(t, 20000, 20300, "big");
	kv_batch_check_row(b, t, "chk", 3);
	assert_int_equal(kv_commit_if(s, b, kv_read_point(s), NULL, NULL), KV_OK);
	kv_batch_free(b);
	kvt_rowkey(r, 20299);
	assert_true(kvt_get(t, r, "d", "w", 0, buf, sizeof(buf)));

	/* A small commit_if after the large commit sees it as a conflict. */
	kv_batch *sm = kv_batch_new();
	kv_batch_put(sm, t, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "s", 1);
	assert_int_equal(kv_commit_if(s, sm, rts, NULL, NULL), KV_CONFLICT);
	kv_batch_free(sm);

	/* A failing condition: nothing written, nothing left. */
	int files1 = kvt_count_ssts(dir);
	b = batch_rows(t, 30000, 30400, "cond");
	kv_batch_require(b, t, "chk", 3, "d", "v", 1, KV_CMP_EQ, "nope", 4);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_CHECK_FAILED);
	kv_batch_free(b);
	kvt_rowkey(r, 30001);
	assert_false(kvt_get(t, r, "d", "v", 0, buf, sizeof(buf)));
	assert_int_equal(kvt_count_ssts(dir), files1);
	b = batch_rows(t, 30000, 30400, "cond");
	kv_batch_require(b, t, "chk", 3, "d", "v", 1, KV_CMP_EQ, "x", 1);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	assert_true(kvt_get(t, r, "d", "v", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "cond");
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

typedef struct fin {
	kv_store *s;
	kv_ts ts;
} fin;

static void *finisher(void *arg)
{
	fin *f = arg;
	util_sleep_us(50000);
	kv_ts_finish(f->s, f->ts);
	return NULL;
}

static void test_delete_newest_and_reserved(void **state)
{
	char *dir = kvt_tmpdir("largedel");
	kv_store *s = open_small(dir);
	kv_family_opts fo;
	kv_family_opts_default(&fo, "d");
	fo.max_versions = 3;
	assert_int_equal(kv_table_create(s, "t", &fo, 1), KV_OK);
	kv_table *t;
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	char r[16], buf[32];
	for (int i = 0; i < 50; i++) {
		kvt_rowkey(r, i);
		assert_int_equal(kvt_put(s, t, r, "d", "a", 100, "v100"), KV_OK);
		assert_int_equal(kvt_put(s, t, r, "d", "a", 200, "v200"), KV_OK);
	}
	kv_batch *b = batch_rows(t, 1000, 1400, "pad");
	for (int i = 0; i < 50; i++) {
		kvt_rowkey(r, i);
		kv_batch_delete(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, KV_DELETE);
	}
	/* A delete of a cell with no version, then its put: the marker at the
	 * commit timestamp hides the put, as in a small commit. */
	kv_batch_delete(b, t, "nov", 3, "d", "a", 1, KV_TS_LATEST, KV_DELETE);
	kv_batch_put(b, t, "nov", 3, "d", "a", 1, KV_TS_LATEST, "hidden", 6);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	for (int i = 0; i < 50; i++) {
		kvt_rowkey(r, i);
		assert_true(kvt_get(t, r, "d", "a", 0, buf, sizeof(buf)));
		assert_string_equal(buf, "v100");
	}
	assert_false(kvt_get(t, "nov", "d", "a", 0, buf, sizeof(buf)));

	/* At a reserved timestamp: invisible until finished. */
	kv_ts res;
	assert_int_equal(kv_ts_reserve(s, &res), KV_OK);
	b = batch_rows(t, 5000, 5400, "rsv");
	kv_write_opts wo = {.ts = res};
	kv_ts got = 0;
	/* kv_commit waits for the read point to pass the reservation: finish
	 * it from another thread. */
	assert_int_equal(kv_commit(s, b, &(kv_write_opts){.ts = 12345}, NULL), KV_INVALID);
	pthread_t th;
	fin f = {s, res};
	assert_int_equal(pthread_create(&th, NULL, finisher, &f), 0);
	assert_int_equal(kv_commit(s, b, &wo, &got), KV_OK);
	pthread_join(th, NULL);
	assert_int_equal(got, res);
	kvt_rowkey(r, 5100);
	util_arena *a = util_arena_new(1024, 0);
	kv_row row;
	assert_int_equal(kv_get(t, r, strlen(r), NULL, a, &row), KV_OK);
	assert_int_equal(row.n, 2);
	assert_int_equal(row.cells[0].ts, res);
	util_arena_destroy(a);
	kv_batch_free(b);

	/* A dropped table: the commit fails and leaves nothing. */
	kv_table *t2 = kvt_table(s, "gone", 1, FAMS2);
	b = batch_rows(t2, 0, 400, "x");
	int files = kvt_count_ssts(dir);
	assert_int_equal(kv_table_drop(s, "gone"), KV_OK);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_NOT_FOUND);
	kv_batch_free(b);
	assert_true(kvt_count_ssts(dir) <= files);
	kv_table_close(t2);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* ---------------------------------------------------------------- faults */

static void test_enospc(void **state)
{
	char *dir = kvt_tmpdir("largenospc");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_store *s = kvt_open_spill(dir, kv_fault_fs_get(ff), 4096);
	kv_table *t = kvt_table(s, "t", 1, FAMS2);
	kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, 3, ".sst");
	kv_batch *b = batch_rows(t, 0, 2000, "x"); /* spills fail part way */
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_NO_SPACE);
	kv_batch_free(b);
	kv_fault_clear(ff);
	assert_int_equal(kvt_scan_count(t, 0), 0);
	assert_int_equal(kvt_count_ssts(dir), 0);
	/* Space is back. */
	b = batch_rows(t, 0, 2000, "x");
	kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, 0, ".sst"); /* now at commit: the merge */
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_NO_SPACE);
	kv_fault_clear(ff);
	assert_int_equal(kvt_scan_count(t, 0), 0);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK); /* the batch is intact */
	kv_batch_free(b);
	assert_int_equal(kvt_scan_count(t, 0), 4000);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

/* One crash round: small commits, then a large one killed after `kill`
 * file operations; after the crash the large commit is whole or absent,
 * every small one acknowledged before it is there, and no file is left
 * that the manifest does not list. Returns the ops a clean run takes. */
/* spill: the batch's spill size; 4096 makes many runs per group (merged),
 * 16 KiB a few whose key ranges do not overlap (kept apart, stage.c). */
static uint64_t crash_round(uint64_t kill, bool torn, unsigned seed, size_t spill)
{
	char *dir = kvt_tmpdir("largecrash");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_store *s = kvt_open_spill(dir, kv_fault_fs_get(ff), spill);
	assert_non_null(s);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	char r[16];
	for (int i = 0; i < 20; i++) {
		kvt_rowkey(r, 900000 + i);
		assert_int_equal(kvt_put(s, t, r, "d", "v", 0, "small"), KV_OK);
	}
	uint64_t ops0 = kv_fault_ops(ff);
	if (kill)
		kv_fault_kill_after(ff, kill);
	kv_batch *b = kv_batch_new();
	for (int i = 0; i < 1500; i++) {
		kvt_rowkey(r, i);
		kv_batch_put(b, t, r, strlen(r), "d", "v", 1, KV_TS_LATEST, "big", 3);
		kv_batch_put(b, t, r, strlen(r), "e", "w", 1, 4242, "big", 3);
	}
	kv_status st = kv_commit(s, b, NULL, NULL);
	kv_batch_free(b);
	uint64_t used = kv_fault_ops(ff) - ops0;
	if (!kill && spill > 4096)
		assert_true(kvt_file_count(t) >= 4); /* the runs were kept apart */
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_crash(ff, seed, torn);
	kv_fault_revive(ff);
	s = kvt_open_spill(dir, kv_fault_fs_get(ff), spill);
	if (!s)
		fail_msg("reopen after a crash at op %llu: %s", (unsigned long long)kill, kv_errmsg());
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	size_t n = kvt_scan_count(t, 0);
	size_t big = n - 20;
	if (n < 20 || (big != 0 && big != 3000))
		fail_msg("crash at op %llu: %zu cells (20 small + 0 or 3000 large)", (unsigned long long)kill,
			 n);
	if (!kill && (st != KV_OK || big != 3000))
		fail_msg("clean run: %s, %zu large cells", kv_status_name(st), big);
	if (st == KV_OK && big != 3000)
		fail_msg("crash at op %llu: an acknowledged large commit is lost", (unsigned long long)kill);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	assert_int_equal(kvt_count_ssts(dir), (int)kvt_file_count(t));
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
	return used;
}

static void crash_rounds(size_t spill)
{
	uint64_t total = crash_round(0, false, 1, spill);
	assert_true(total > 10);
	int points = getenv("KV_FAULT_ROUNDS") ? 10 * atoi(getenv("KV_FAULT_ROUNDS")) : 40;
	for (int i = 1; i <= points; i++) {
		uint64_t k = 1 + (total * (uint64_t)i) / (uint64_t)(points + 1);
		crash_round(k, i % 2 == 0, (unsigned)i, spill);
	}
}

static void test_crash_during_large_commit(void **state)
{
	crash_rounds(4096);
	(void)state;
}

/* The same with runs kept apart: several files in one manifest edit. */
static void test_crash_during_split_commit(void **state)
{
	crash_rounds(16 << 10);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spill_sorted_runs),
	    cmocka_unit_test(test_ascending_runs_kept_apart),
	    cmocka_unit_test(test_spill_commit_reopen),
	    cmocka_unit_test(test_ingest_small_batch),
	    cmocka_unit_test(test_atomic_visibility),
	    cmocka_unit_test(test_snapshot_and_identical_cells),
	    cmocka_unit_test(test_commit_if),
	    cmocka_unit_test(test_delete_newest_and_reserved),
	    cmocka_unit_test(test_enospc),
	    cmocka_unit_test(test_crash_during_large_commit),
	    cmocka_unit_test(test_crash_during_split_commit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
