/* compaction_test.c — what compactions keep and drop (versions, TTL with
 * min versions, delete markers with and without KEEP_DELETED_CELLS,
 * retention, the compaction filter), the minor policy, split points,
 * FindMax probe counts, filters seeking through the block index, and the
 * open-file cache limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "kvt_util.h"

static int raw_count(kv_table *t, const char *row)
{
	kv_scan_opts o = {0};
	o.read.raw = true;
	if (row) {
		o.start = row;
		o.start_len = strlen(row);
		o.stop = row;
		o.stop_len = strlen(row);
		o.stop_inclusive = true;
	}
	kv_iter *it = kv_scan(t, &o);
	int n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	return n;
}

static int visible_versions(kv_table *t, const char *row, const char *fam, const char *q)
{
	util_arena *a = util_arena_new(1024, 0);
	kv_column col = {fam, q, strlen(q)};
	kv_read_opts ro = {0};
	ro.columns = &col;
	ro.ncolumns = 1;
	ro.max_versions = 100;
	kv_row r;
	assert_int_equal(kv_get(t, row, strlen(row), &ro, a, &r), KV_OK);
	int n = (int)r.n;
	util_arena_destroy(a);
	return n;
}

static kv_compaction_decision drop_marked(void *arg, const kv_cell *c)
{
	(*(int *)arg)++;
	return c->value.len == 4 && !memcmp(c->value.data, "drop", 4) ? KV_COMPACT_DROP : KV_COMPACT_KEEP;
}

static void test_major_policies(void **state)
{
	char *dir = kvt_tmpdir("cmp");
	kv_store *s = kvt_open(dir, NULL);
	kv_family_opts fo[4];
	kv_family_opts_default(&fo[0], "v"); /* versions */
	fo[0].max_versions = 2;
	kv_family_opts_default(&fo[1], "ttl");
	fo[1].ttl_seconds = 60;
	fo[1].min_versions = 1;
	fo[1].max_versions = 5;
	kv_family_opts_default(&fo[2], "kdc");
	fo[2].keep_deleted_cells = true;
	kv_family_opts_default(&fo[3], "ret");
	fo[3].retention_seconds = 3600;
	assert_int_equal(kv_table_create(s, "t", fo, 4), KV_OK);
	kv_table *t;
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	int64_t now = util_now_us();
	for (int i = 1; i <= 5; i++) {
		kvt_put(s, t, "r", "v", "q", (kv_ts)i, "x");
		kvt_put(s, t, "r", "ret", "q", (kv_ts)(now - 5000 + i), "x"); /* within retention */
		/* Three expired versions and two fresh ones. */
		kv_ts ts = i <= 3 ? (kv_ts)(now - 120 * 1000000 + i) : (kv_ts)(now - 1000 + i);
		kvt_put(s, t, "r", "ttl", "q", ts, "x");
		kvt_put(s, t, "old", "ttl", "q", (kv_ts)(now - 120 * 1000000 + i), "x");
	}
	kvt_put(s, t, "r", "kdc", "q", 10, "x");
	kvt_del(s, t, "r", "kdc", "q", 10, KV_DELETE_COLUMN);
	kvt_put(s, t, "d", "v", "q", 10, "x");
	kvt_del(s, t, "d", "v", "q", 10, KV_DELETE_COLUMN);
	kvt_put(s, t, "f", "v", "q", 0, "drop");
	kvt_put(s, t, "f", "v", "k", 0, "keep");
	int calls = 0;
	kv_table_set_compaction_filter(t, drop_marked, &calls);
	assert_int_equal(visible_versions(t, "r", "v", "q"), 2); /* reads cap at max_versions */
	assert_int_equal(visible_versions(t, "r", "ttl", "q"), 2);
	assert_int_equal(visible_versions(t, "old", "ttl", "q"), 1); /* min_versions keeps one */
	assert_int_equal(kv_table_flush(t), KV_OK);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	assert_true(calls > 0);
	/* max_versions: 2 left of 5. */
	kv_scan_opts o = {0};
	o.read.raw = true;
	kv_column cv = {"v", "q", 1};
	o.read.columns = &cv;
	o.read.ncolumns = 1;
	o.start = "r";
	o.start_len = 1;
	o.stop = "r";
	o.stop_len = 1;
	o.stop_inclusive = true;
	kv_iter *it = kv_scan(t, &o);
	int n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	kv_iter_close(it);
	assert_int_equal(n, 2);
	/* TTL: the expired ones are gone, but min_versions keeps one for "old". */
	assert_int_equal(visible_versions(t, "r", "ttl", "q"), 2);
	assert_int_equal(raw_count(t, "old"), 1);
	/* Retention keeps every version although max_versions is 1. */
	cv.family = "ret";
	it = kv_scan(t, &o);
	n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	kv_iter_close(it);
	assert_int_equal(n, 5);
	/* Deleted cells and the marker are purged... */
	assert_int_equal(raw_count(t, "d"), 0);
	/* ...unless KEEP_DELETED_CELLS. */
	cv.family = "kdc";
	it = kv_scan(t, &o);
	n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	kv_iter_close(it);
	assert_int_equal(n, 2);
	assert_int_equal(visible_versions(t, "r", "kdc", "q"), 0);
	/* The compaction filter dropped exactly the marked cell. */
	assert_int_equal(raw_count(t, "f"), 1);
	kv_table_stats ts;
	assert_int_equal(kv_table_get_stats(t, &ts), KV_OK);
	assert_true(ts.compactions >= 1);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void test_minor_and_open_files(void **state)
{
	char *dir = kvt_tmpdir("minor");
	kv_store_opts so;
	kv_store_opts_default(&so);
	so.durability = KV_SYNC_NONE;
	so.max_open_files = 2;
	so.compaction_threads = -1; /* only the compaction this test asks for */
	kv_store *s = kvt_open(dir, &so);
	static const char *const F[] = {"f"};
	kv_table *t = kvt_table(s, "t", 1, F);
	for (int f = 0; f < 6; f++) {
		for (int i = 0; i < 50; i++) {
			char r[16];
			snprintf(r, sizeof(r), "r%03d", i);
			kvt_put(s, t, r, "f", "q", (kv_ts)(f + 1), f % 2 ? "odd" : "even");
		}
		assert_int_equal(kv_table_flush(t), KV_OK);
	}
	kv_table_stats st;
	kv_table_get_stats(t, &st);
	assert_int_equal(st.file_count, 6);
	/* Reads work with only 2 files open at a time. */
	assert_int_equal(raw_count(t, NULL), 300);
	assert_int_equal(kv_table_compact(t, false), KV_OK);
	kv_table_get_stats(t, &st);
	assert_true(st.file_count < 6);
	/* A minor compaction of all files may trim versions beyond max_versions
	 * (markers would be kept): one version of each row is left. */
	assert_int_equal(raw_count(t, NULL), 50);
	char buf[16];
	assert_true(kvt_get(t, "r007", "f", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "odd");
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void fill_wide(kv_store *s, kv_table *t, int ncols)
{
	kv_batch *b = kv_batch_new();
	for (int i = 0; i < ncols; i++) {
		char q[16];
		snprintf(q, sizeof(q), "c%05d", i);
		kv_batch_put(b, t, "wide", 4, "f", q, strlen(q), KV_TS_LATEST, "value-value-value", 17);
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	assert_int_equal(kv_table_flush(t), KV_OK);
}

static uint64_t block_reads(kv_store *s)
{
	kv_store_stats st;
	kv_store_get_stats(s, &st);
	return st.cache_hits + st.cache_misses;
}

static size_t scan_count(kv_table *t, kv_filter *f)
{
	kv_scan_opts o = {0};
	o.read.filter = f;
	return kvt_scan_cells(t, &o);
}

static void test_filters_skip_blocks(void **state)
{
	char *dir = kvt_tmpdir("hint");
	kv_store *s = kvt_open(dir, NULL);
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = 1024;
	assert_int_equal(kv_table_create(s, "t", &fo, 1), KV_OK);
	kv_table *t;
	kv_table_open(s, "t", &t);
	fill_wide(s, t, 20000);
	uint64_t b0 = block_reads(s);
	assert_int_equal(scan_count(t, NULL), 20000);
	uint64_t full = block_reads(s) - b0;
	assert_true(full > 300);
	/* Column range near the end of the row: a few blocks only. */
	kv_filter *f = kv_filter_column_range("c19990", 6, true, "c19995", 6, false);
	b0 = block_reads(s);
	assert_int_equal(scan_count(t, f), 5);
	uint64_t ranged = block_reads(s) - b0;
	assert_true(ranged < 10);
	kv_filter_free(f);
	/* Column prefixes (two of them): also by seeking. */
	kv_slice pf[2] = {{(const uint8_t *)"c1500", 5}, {(const uint8_t *)"c0001", 5}};
	f = kv_filter_multi_column_prefix(pf, 2);
	b0 = block_reads(s);
	assert_int_equal(scan_count(t, f), 20);
	assert_true(block_reads(s) - b0 < 20);
	kv_filter_free(f);
	/* An AND list combining a prefix and a range takes the later hint. */
	kv_filter *kids[2] = {kv_filter_column_prefix("c1", 2),
			      kv_filter_column_range("c19998", 6, true, NULL, 0, false)};
	f = kv_filter_list(KV_FILTER_AND, kids, 2);
	b0 = block_reads(s);
	assert_int_equal(scan_count(t, f), 2);
	assert_true(block_reads(s) - b0 < 10);
	kv_filter_free(f);
	/* OR: either filter's cells. */
	kv_filter *k2[2] = {kv_filter_column_prefix("c0000", 5), kv_filter_column_prefix("c1999", 5)};
	f = kv_filter_list(KV_FILTER_OR, k2, 2);
	assert_int_equal(scan_count(t, f), 20);
	kv_filter_free(f);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void test_split_points_and_findmax(void **state)
{
	char *dir = kvt_tmpdir("split");
	kv_store *s = kvt_open(dir, NULL);
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = 1024;
	assert_int_equal(kv_table_create(s, "t", &fo, 1), KV_OK);
	kv_table *t;
	kv_table_open(s, "t", &t);
	util_arena *a = util_arena_new(4096, 0);
	const int sizes[] = {10, 1000, 20000};
	int rows = 0;
	kv_batch *b = kv_batch_new();
	for (int k = 0; k < 3; k++) {
		kv_batch_clear(b);
		for (; rows < sizes[k]; rows++) {
			char r[16];
			snprintf(r, sizeof(r), "user%08d", rows * 3);
			kv_batch_put(b, t, r, strlen(r), "f", "q", 1, KV_TS_LATEST, "v", 1);
		}
		assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
		kv_scan_opts o = {0};
		o.stop = "user99";
		o.stop_len = 6;
		kv_slice row;
		int probes = 0;
		assert_int_equal(kv_find_max_row(t, &o, a, &row, &probes), KV_OK);
		char want[16];
		snprintf(want, sizeof(want), "user%08d", (rows - 1) * 3);
		assert_int_equal(row.len, strlen(want));
		assert_memory_equal(row.data, want, row.len);
		/* About 9 probes per byte of the answer, whatever the row count. */
		assert_true(probes <= 9 * (int)row.len + 2);
		/* Bounded above inside the data. */
		o.stop = "user00000100";
		o.stop_len = 12;
		assert_int_equal(kv_find_max_row(t, &o, a, &row, &probes), KV_OK);
		snprintf(want, sizeof(want), "user%08d", rows * 3 > 99 ? 99 : (rows - 1) * 3);
		assert_memory_equal(row.data, want, 12);
		o.start = "zzz";
		o.start_len = 3;
		o.stop = NULL;
		assert_int_equal(kv_find_max_row(t, &o, a, &row, &probes), KV_NOT_FOUND);
	}
	kv_batch_free(b);
	assert_int_equal(kv_table_flush(t), KV_OK);
	kv_slice pts[8];
	int n;
	assert_int_equal(kv_split_points(t, NULL, 0, NULL, 0, 4, a, pts, &n), KV_OK);
	assert_int_equal(n, 3);
	for (int i = 1; i < n; i++)
		assert_true(kv_slice_cmp(pts[i - 1], pts[i]) < 0);
	/* Roughly equal parts: count rows per part. */
	for (int i = 0; i <= n; i++) {
		kv_scan_opts o = {0};
		if (i > 0) {
			o.start = pts[i - 1].data;
			o.start_len = pts[i - 1].len;
		}
		if (i < n) {
			o.stop = pts[i].data;
			o.stop_len = pts[i].len;
		}
		kv_iter *it = kv_scan(t, &o);
		int c = 0;
		for (; kv_iter_valid(it); kv_iter_next(it))
			c++;
		kv_iter_close(it);
		assert_true(c > 20000 / 4 / 2 && c < 20000 / 4 * 2);
	}
	assert_int_equal(kv_split_points(t, "user00030000", 12, "user00030300", 12, 4, a, pts, &n), KV_OK);
	for (int i = 0; i < n; i++) {
		assert_true(kv_slice_cmp(pts[i], (kv_slice){(const uint8_t *)"user00030000", 12}) > 0);
		assert_true(kv_slice_cmp(pts[i], (kv_slice){(const uint8_t *)"user00030300", 12}) < 0);
	}
	util_arena_destroy(a);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void test_snapshot_pins(void **state)
{
	char *dir = kvt_tmpdir("snap");
	kv_store *s = kvt_open(dir, NULL);
	static const char *const F[] = {"f"};
	kv_table *t = kvt_table(s, "t", 1, F);
	kvt_put(s, t, "r", "f", "q", 0, "old");
	kvt_put(s, t, "gone", "f", "q", 0, "x");
	kv_ts snap;
	assert_int_equal(kv_snapshot_acquire(s, &snap), KV_OK);
	kvt_put(s, t, "r", "f", "q", 0, "new");
	kvt_del(s, t, "gone", "f", "q", KV_TS_LATEST, KV_DELETE_COLUMN);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	char buf[16];
	/* The pinned snapshot still reads what it saw. */
	assert_true(kvt_get(t, "r", "f", "q", snap, buf, sizeof(buf)));
	assert_string_equal(buf, "old");
	assert_true(kvt_get(t, "gone", "f", "q", snap, buf, sizeof(buf)));
	assert_true(kvt_get(t, "r", "f", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	assert_false(kvt_get(t, "gone", "f", "q", 0, buf, sizeof(buf)));
	/* Released: the next major compaction drops the old versions. */
	kv_snapshot_release(s, snap);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	assert_false(kvt_get(t, "r", "f", "q", snap, buf, sizeof(buf)));
	assert_false(kvt_get(t, "gone", "f", "q", snap, buf, sizeof(buf)));
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_major_policies),      cmocka_unit_test(test_minor_and_open_files),
	    cmocka_unit_test(test_filters_skip_blocks), cmocka_unit_test(test_split_points_and_findmax),
	    cmocka_unit_test(test_snapshot_pins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
