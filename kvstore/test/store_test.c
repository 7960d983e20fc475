/* store_test.c — the store through its public API: writes, reads, deletes
 * with HBase semantics, versions, scans both ways, snapshots, conditions,
 * conflicts, counters, reserved timestamps, flush and reopen. */
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

static const char *const FAMS[] = {"a", "b"};

typedef struct env {
	char *dir;
	kv_store *s;
	kv_table *t;
} env;

static int setup(void **state)
{
	env *e = calloc(1, sizeof(*e));
	e->dir = kvt_tmpdir("store");
	e->s = kvt_open(e->dir, NULL);
	e->t = kvt_table(e->s, "t", 2, FAMS);
	*state = e;
	return e->s && e->t ? 0 : -1;
}

static int teardown(void **state)
{
	env *e = *state;
	kv_table_close(e->t);
	kv_store_close(e->s);
	kvt_rmdir(e->dir);
	free(e->dir);
	free(e);
	return 0;
}

static void reopen(env *e)
{
	kv_table_close(e->t);
	kv_store_close(e->s);
	e->s = kvt_open(e->dir, NULL);
	assert_non_null(e->s);
	assert_int_equal(kv_table_open(e->s, "t", &e->t), KV_OK);
}

static void test_put_get(void **state)
{
	env *e = *state;
	char buf[64];
	assert_int_equal(kvt_put(e->s, e->t, "r1", "a", "q", 0, "v1"), KV_OK);
	assert_true(kvt_get(e->t, "r1", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "v1");
	assert_int_equal(kvt_put(e->s, e->t, "r1", "a", "q", 0, "v2"), KV_OK);
	assert_true(kvt_get(e->t, "r1", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "v2");
	assert_false(kvt_get(e->t, "r2", "a", "q", 0, buf, sizeof(buf)));
	assert_false(kvt_get(e->t, "r1", "b", "q", 0, buf, sizeof(buf)));
	/* Unknown family is refused, nothing written. */
	assert_int_equal(kvt_put(e->s, e->t, "r1", "zz", "q", 0, "v"), KV_NOT_FOUND);
}

static void test_snapshot_reads(void **state)
{
	env *e = *state;
	char buf[64];
	kv_batch *b = kv_batch_new();
	kv_ts t1, t2;
	kv_batch_put(b, e->t, "r", 1, "a", "q", 1, KV_TS_LATEST, "old", 3);
	assert_int_equal(kv_commit(e->s, b, NULL, &t1), KV_OK);
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "r", 1, "a", "q", 1, KV_TS_LATEST, "new", 3);
	assert_int_equal(kv_commit(e->s, b, NULL, &t2), KV_OK);
	assert_true(t2 > t1);
	assert_true(kv_read_point(e->s) >= t2);
	/* With max_versions 1 both versions live until compaction. */
	assert_true(kvt_get(e->t, "r", "a", "q", t1, buf, sizeof(buf)));
	assert_string_equal(buf, "old");
	assert_true(kvt_get(e->t, "r", "a", "q", t2, buf, sizeof(buf)));
	assert_string_equal(buf, "new");
	assert_false(kvt_get(e->t, "r", "a", "q", t1 - 1, buf, sizeof(buf)));
	kv_batch_free(b);
}

static void test_versions(void **state)
{
	env *e = *state;
	kv_family_opts fo;
	kv_family_opts_default(&fo, "a");
	fo.max_versions = 5;
	assert_int_equal(kv_table_alter_family(e->s, "t", &fo, false), KV_OK);
	for (int i = 1; i <= 5; i++) {
		char v[16];
		snprintf(v, sizeof(v), "v%d", i);
		assert_int_equal(kvt_put(e->s, e->t, "r", "a", "q", (kv_ts)(100 * i), v), KV_OK);
	}
	util_arena *a = util_arena_new(4096, 0);
	kv_read_opts ro = {0};
	ro.max_versions = 3;
	kv_row r;
	assert_int_equal(kv_get(e->t, "r", 1, &ro, a, &r), KV_OK);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.cells[0].ts, 500);
	assert_int_equal(r.cells[2].ts, 300);
	/* Time range [200, 400). */
	ro.min_ts = 200;
	ro.max_ts = 400;
	assert_int_equal(kv_get(e->t, "r", 1, &ro, a, &r), KV_OK);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.cells[0].ts, 300);
	assert_int_equal(r.cells[1].ts, 200);
	util_arena_destroy(a);
}

static void test_deletes(void **state)
{
	env *e = *state;
	char buf[64];
	/* Delete (one version) of an explicit version exposes the older one. */
	kvt_put(e->s, e->t, "d", "a", "x", 10, "x10");
	kvt_put(e->s, e->t, "d", "a", "x", 20, "x20");
	kvt_del(e->s, e->t, "d", "a", "x", 20, KV_DELETE);
	assert_true(kvt_get(e->t, "d", "a", "x", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "x10");
	/* Delete without ts removes the newest version. */
	kvt_del(e->s, e->t, "d", "a", "x", KV_TS_LATEST, KV_DELETE);
	assert_false(kvt_get(e->t, "d", "a", "x", 0, buf, sizeof(buf)));
	/* DeleteColumn removes all versions <= ts; later puts stay. */
	kvt_put(e->s, e->t, "d", "a", "y", 10, "y10");
	kvt_put(e->s, e->t, "d", "a", "y", 30, "y30");
	kvt_del(e->s, e->t, "d", "a", "y", 20, KV_DELETE_COLUMN);
	assert_true(kvt_get(e->t, "d", "a", "y", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "y30");
	kvt_put(e->s, e->t, "d", "a", "y", 15, "y15"); /* masked by the marker */
	kv_read_opts ro = {0};
	ro.max_versions = 10;
	util_arena *a = util_arena_new(4096, 0);
	kv_row r;
	kv_column col = {"a", "y", 1};
	ro.columns = &col;
	ro.ncolumns = 1;
	assert_int_equal(kv_get(e->t, "d", 1, &ro, a, &r), KV_OK);
	assert_int_equal(r.n, 1);
	/* DeleteFamily at ts hides everything <= ts in that family only. */
	kvt_put(e->s, e->t, "f", "a", "p", 10, "1");
	kvt_put(e->s, e->t, "f", "a", "q", 50, "2");
	kvt_put(e->s, e->t, "f", "b", "p", 10, "3");
	kvt_del(e->s, e->t, "f", "a", NULL, 20, KV_DELETE_FAMILY);
	assert_false(kvt_get(e->t, "f", "a", "p", 0, buf, sizeof(buf)));
	assert_true(kvt_get(e->t, "f", "a", "q", 0, buf, sizeof(buf)));
	assert_true(kvt_get(e->t, "f", "b", "p", 0, buf, sizeof(buf)));
	/* DeleteFamilyVersion hides exactly that version in every column. */
	kvt_put(e->s, e->t, "g", "a", "p", 10, "p10");
	kvt_put(e->s, e->t, "g", "a", "p", 20, "p20");
	kvt_put(e->s, e->t, "g", "a", "q", 20, "q20");
	kvt_del(e->s, e->t, "g", "a", NULL, 20, KV_DELETE_FAMILY_VERSION);
	assert_true(kvt_get(e->t, "g", "a", "p", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "p10");
	assert_false(kvt_get(e->t, "g", "a", "q", 0, buf, sizeof(buf)));
	/* delete_row hides the row in every family. */
	kv_batch *b = kv_batch_new();
	kv_batch_delete_row(b, e->t, "f", 1, KV_TS_LATEST);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	assert_int_equal(kv_get(e->t, "f", 1, NULL, a, &r), KV_OK);
	assert_int_equal(r.n, 0);
	/* The same holds after a flush and after a major compaction. */
	assert_int_equal(kv_table_flush(e->t), KV_OK);
	assert_true(kvt_get(e->t, "g", "a", "p", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "p10");
	assert_true(kvt_get(e->t, "d", "a", "y", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "y30");
	assert_int_equal(kv_table_compact(e->t, true), KV_OK);
	assert_true(kvt_get(e->t, "g", "a", "p", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "p10");
	assert_false(kvt_get(e->t, "g", "a", "q", 0, buf, sizeof(buf)));
	assert_true(kvt_get(e->t, "d", "a", "y", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "y30");
	assert_int_equal(kv_get(e->t, "f", 1, NULL, a, &r), KV_OK);
	assert_int_equal(r.n, 0);
	util_arena_destroy(a);
}

static void fill_rows(env *e, int n)
{
	kv_batch *b = kv_batch_new();
	for (int i = 0; i < n; i++) {
		char row[16];
		snprintf(row, sizeof(row), "row%03d", i);
		kv_batch_put(b, e->t, row, strlen(row), "a", "q", 1, KV_TS_LATEST, row, strlen(row));
		if (i % 2 == 0)
			kv_batch_put(b, e->t, row, strlen(row), "b", "z", 1, KV_TS_LATEST, "bz", 2);
	}
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
}

static void check_scans(env *e)
{
	char buf[4096];
	kv_scan_opts o = {0};
	o.start = "row003";
	o.start_len = 6;
	o.stop = "row007";
	o.stop_len = 6;
	kvt_scan_rows(e->t, &o, buf, sizeof(buf));
	assert_string_equal(buf, "row003,row004,row005,row006");
	o.reverse = true;
	kvt_scan_rows(e->t, &o, buf, sizeof(buf));
	assert_string_equal(buf, "row006,row005,row004,row003");
	o.stop_inclusive = true;
	o.start_exclusive = true;
	kvt_scan_rows(e->t, &o, buf, sizeof(buf));
	assert_string_equal(buf, "row007,row006,row005,row004");
	o.reverse = false;
	kvt_scan_rows(e->t, &o, buf, sizeof(buf));
	assert_string_equal(buf, "row004,row005,row006,row007");
	o.limit = 2;
	kvt_scan_rows(e->t, &o, buf, sizeof(buf));
	assert_string_equal(buf, "row004,row005");
	/* Cells within a row stay in order in reverse scans. */
	memset(&o, 0, sizeof(o));
	o.reverse = true;
	o.start = "row008";
	o.start_len = 6;
	kv_iter *it = kv_scan(e->t, &o);
	const char *want[] = {"row009/a", "row008/a", "row008/b"};
	int k = 0;
	for (; kv_iter_valid(it); kv_iter_next(it), k++) {
		const kv_cell *c = kv_iter_cell(it);
		char got[32];
		snprintf(got, sizeof(got), "%.*s/%.*s", (int)c->row.len, c->row.data, (int)c->family.len,
			 c->family.data);
		assert_true(k < 3);
		assert_string_equal(got, want[k]);
	}
	assert_int_equal(k, 3);
	kv_iter_close(it);
	/* First and last rows of ranges. */
	util_arena *a = util_arena_new(1024, 0);
	kv_slice row;
	memset(&o, 0, sizeof(o));
	assert_int_equal(kv_first_row(e->t, &o, a, &row), KV_OK);
	assert_int_equal(row.len, 6);
	assert_memory_equal(row.data, "row000", 6);
	assert_int_equal(kv_last_row(e->t, &o, a, &row), KV_OK);
	assert_memory_equal(row.data, "row009", 6);
	o.start = "row0035";
	o.start_len = 7;
	o.stop = "row006";
	o.stop_len = 6;
	assert_int_equal(kv_first_row(e->t, &o, a, &row), KV_OK);
	assert_memory_equal(row.data, "row004", 6);
	assert_int_equal(kv_last_row(e->t, &o, a, &row), KV_OK);
	assert_memory_equal(row.data, "row005", 6);
	int probes = 0;
	assert_int_equal(kv_find_max_row(e->t, &o, a, &row, &probes), KV_OK);
	assert_memory_equal(row.data, "row005", 6);
	assert_true(probes > 0);
	o.start = "x";
	o.start_len = 1;
	o.stop = NULL;
	assert_int_equal(kv_first_row(e->t, &o, a, &row), KV_NOT_FOUND);
	assert_int_equal(kv_last_row(e->t, &o, a, &row), KV_NOT_FOUND);
	util_arena_destroy(a);
}

static void test_scans(void **state)
{
	env *e = *state;
	fill_rows(e, 10);
	check_scans(e);
	assert_int_equal(kv_table_flush(e->t), KV_OK);
	check_scans(e);
	reopen(e);
	check_scans(e);
}

static void test_reopen_log_replay(void **state)
{
	env *e = *state;
	fill_rows(e, 10);
	char buf[64];
	/* No flush: the data comes back from the log. */
	reopen(e);
	assert_true(kvt_get(e->t, "row007", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "row007");
	check_scans(e);
	kv_ts rp = kv_read_point(e->s);
	assert_int_equal(kvt_put(e->s, e->t, "later", "a", "q", 0, "x"), KV_OK);
	assert_true(kv_read_point(e->s) > rp);
}

static void test_conditions(void **state)
{
	env *e = *state;
	kv_batch *b = kv_batch_new();
	/* Insert only if absent. */
	kv_batch_require(b, e->t, "c", 1, "a", "q", 1, KV_CMP_ABSENT, NULL, 0);
	kv_batch_put(b, e->t, "c", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_CHECK_FAILED);
	kv_batch_clear(b);
	kv_batch_require(b, e->t, "c", 1, "a", "q", 1, KV_CMP_EQ, "1", 1);
	kv_batch_put(b, e->t, "c", 1, "a", "q", 1, KV_TS_LATEST, "2", 1);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_CHECK_FAILED);
	kv_batch_clear(b);
	kv_batch_require(b, e->t, "c", 1, "a", "q", 1, KV_CMP_GT, "1", 1);
	kv_batch_delete(b, e->t, "c", 1, "a", "q", 1, KV_TS_LATEST, KV_DELETE_COLUMN);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	char buf[8];
	assert_false(kvt_get(e->t, "c", "a", "q", 0, buf, sizeof(buf)));
	kv_batch_free(b);
}

static void test_commit_if(void **state)
{
	env *e = *state;
	kv_ts snap = kv_read_point(e->s);
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, e->t, "x", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit_if(e->s, b, snap, NULL, NULL), KV_OK);
	/* A second writer with the old snapshot loses. */
	assert_int_equal(kv_commit_if(e->s, b, snap, NULL, NULL), KV_CONFLICT);
	kv_ts now = kv_read_point(e->s);
	assert_int_equal(kv_commit_if(e->s, b, now, NULL, NULL), KV_OK);
	/* check_row adds a row to the conflict set without writing it. */
	kv_batch_clear(b);
	kv_batch_check_row(b, e->t, "x", 1);
	kv_batch_put(b, e->t, "y", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit_if(e->s, b, now, NULL, NULL), KV_CONFLICT);
	/* Unrelated rows do not conflict. */
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "z", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit_if(e->s, b, now, NULL, NULL), KV_OK);
	/* After reopen the recent-writes map is empty: the row is read. */
	reopen(e);
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "x", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit_if(e->s, b, snap, NULL, NULL), KV_CONFLICT);
	assert_int_equal(kv_commit_if(e->s, b, kv_read_point(e->s), NULL, NULL), KV_OK);
	kv_batch_free(b);
}

/* kv_batch_check_row_at: every commit (kv_commit too) checks the row
 * against its own timestamp. */
static void test_check_row_at(void **state)
{
	env *e = *state;
	kv_ts base = kv_read_point(e->s);
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, e->t, "r", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	kv_batch_check_row_at(b, e->t, "r", 1, base);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	/* Based on the version before that commit: it would be lost. */
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_CONFLICT);
	char buf[8];
	assert_true(kvt_get(e->t, "r", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "1");
	/* Based on the newest version: commits. */
	kv_ts now = kv_read_point(e->s);
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "r", 1, "a", "q", 1, KV_TS_LATEST, "2", 1);
	kv_batch_check_row_at(b, e->t, "r", 1, now);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	/* Per row: with kv_commit_if the row's own timestamp counts, not
	 * read_ts (a newer read_ts does not hide the row's conflict). */
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "s", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	kv_batch_check_row_at(b, e->t, "r", 1, now);
	assert_int_equal(kv_commit_if(e->s, b, kv_read_point(e->s), NULL, NULL), KV_CONFLICT);
	/* A row checked but not written, unchanged since: no conflict. */
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "s", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	kv_batch_check_row_at(b, e->t, "r", 1, kv_read_point(e->s));
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
}

/* kv_batch_lock_row on the embedded engine: a check like
 * kv_batch_check_row_at (its lock manager spans every writer, so nothing
 * else is needed); it writes no cell of the locked row. */
static void test_lock_row(void **state)
{
	env *e = *state;
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, e->t, "l", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	kv_ts base = kv_read_point(e->s);
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "m", 1, "a", "q", 1, KV_TS_LATEST, "1", 1);
	kv_batch_lock_row(b, e->t, "l", 1, base);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	char buf[8];
	assert_true(kvt_get(e->t, "l", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "1");
	/* The locked row changed after the version the lock read: conflict. */
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "l", 1, "a", "q", 1, KV_TS_LATEST, "2", 1);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "m", 1, "a", "q", 1, KV_TS_LATEST, "2", 1);
	kv_batch_lock_row(b, e->t, "l", 1, base);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_CONFLICT);
	assert_true(kvt_get(e->t, "m", "a", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "1");
	kv_batch_free(b);
}

static void test_increment_append(void **state)
{
	env *e = *state;
	int64_t v;
	assert_int_equal(kv_increment(e->t, "n", 1, "a", "c", 1, 5, &v), KV_OK);
	assert_int_equal(v, 5);
	assert_int_equal(kv_increment(e->t, "n", 1, "a", "c", 1, -2, &v), KV_OK);
	assert_int_equal(v, 3);
	assert_int_equal(kv_append(e->t, "n", 1, "a", "s", 1, "ab", 2), KV_OK);
	assert_int_equal(kv_append(e->t, "n", 1, "a", "s", 1, "cd", 2), KV_OK);
	char buf[16];
	assert_true(kvt_get(e->t, "n", "a", "s", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "abcd");
	/* Incrementing a non-counter is refused. */
	assert_int_equal(kv_increment(e->t, "n", 1, "a", "s", 1, 1, &v), KV_INVALID);
	reopen(e);
	assert_int_equal(kv_increment(e->t, "n", 1, "a", "c", 1, 10, &v), KV_OK);
	assert_int_equal(v, 13);
}

static void test_reserved_ts(void **state)
{
	env *e = *state;
	kv_ts t;
	assert_int_equal(kv_ts_reserve(e->s, &t), KV_OK);
	/* A later commit cannot make the read point pass t... */
	kv_batch *b = kv_batch_new();
	kv_write_opts wo = {0};
	wo.ts = t;
	kv_batch_put(b, e->t, "i", 1, "a", "q", 1, KV_TS_LATEST, "idx", 3);
	assert_int_equal(kv_commit(e->s, b, &wo, NULL), KV_OK);
	assert_true(kv_read_point(e->s) < t);
	char buf[8];
	assert_false(kvt_get(e->t, "i", "a", "q", 0, buf, sizeof(buf)));
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "d", 1, "a", "q", 1, KV_TS_LATEST, "data", 4);
	assert_int_equal(kv_commit(e->s, b, &wo, NULL), KV_OK);
	kv_ts_finish(e->s, t);
	assert_true(kv_read_point(e->s) >= t);
	assert_true(kvt_get(e->t, "i", "a", "q", 0, buf, sizeof(buf)));
	assert_true(kvt_get(e->t, "d", "a", "q", 0, buf, sizeof(buf)));
	/* A finished timestamp cannot be written at again. */
	assert_int_equal(kv_commit(e->s, b, &wo, NULL), KV_INVALID);
	kv_batch_free(b);
}

static void test_tables(void **state)
{
	env *e = *state;
	kv_family_opts fo;
	kv_family_opts_default(&fo, "a");
	assert_int_equal(kv_table_create(e->s, "t", &fo, 1), KV_EXISTS);
	assert_int_equal(kv_table_create(e->s, "u", &fo, 1), KV_OK);
	kv_table *u;
	assert_int_equal(kv_table_open(e->s, "u", &u), KV_OK);
	assert_int_equal(kvt_put(e->s, u, "r", "a", "q", 0, "v"), KV_OK);
	assert_int_equal(kv_table_flush(u), KV_OK);
	kv_family_opts fb;
	kv_family_opts_default(&fb, "b");
	fb.max_versions = 3;
	assert_int_equal(kv_table_alter_family(e->s, "u", &fb, false), KV_OK);
	assert_int_equal(kvt_put(e->s, u, "r", "b", "q", 0, "w"), KV_OK);
	kv_family_opts got[4];
	int n;
	assert_int_equal(kv_table_families(e->s, "u", got, 4, &n), KV_OK);
	assert_int_equal(n, 2);
	assert_int_equal(kv_table_drop(e->s, "u"), KV_OK);
	/* The handle stays usable but the table is gone. */
	char buf[8];
	assert_false(kvt_get(u, "r", "a", "q", 0, buf, sizeof(buf)));
	assert_int_equal(kvt_put(e->s, u, "r", "a", "q", 0, "v"), KV_NOT_FOUND);
	kv_table_close(u);
	assert_int_equal(kv_table_open(e->s, "u", &u), KV_NOT_FOUND);
	reopen(e);
	assert_int_equal(kv_table_open(e->s, "u", &u), KV_NOT_FOUND);
	assert_int_equal(kv_table_create(e->s, "u", &fo, 1), KV_OK);
	assert_int_equal(kv_table_open(e->s, "u", &u), KV_OK);
	assert_false(kvt_get(u, "r", "a", "q", 0, buf, sizeof(buf)));
	kv_table_close(u);
}

/* Several tables dropped in one manifest edit (a commit's old storages):
 * missing names skipped, the drops durable across a reopen, the table not
 * named untouched. */
static void test_drop_many(void **state)
{
	env *e = *state;
	kv_family_opts fo;
	kv_family_opts_default(&fo, "a");
	const char *names[] = {"d1", "d2", "d3"};
	for (int i = 0; i < 3; i++)
		assert_int_equal(kv_table_create(e->s, names[i], &fo, 1), KV_OK);
	kv_table *d1;
	assert_int_equal(kv_table_open(e->s, "d1", &d1), KV_OK);
	assert_int_equal(kvt_put(e->s, d1, "r", "a", "q", 0, "v"), KV_OK);
	const char *gone[] = {"d1", "missing", "d3", "d1"};
	assert_int_equal(kv_table_drop_many(e->s, gone, 4), KV_OK);
	assert_int_equal(kvt_put(e->s, d1, "r", "a", "q", 0, "v"), KV_NOT_FOUND);
	kv_table_close(d1);
	assert_int_equal(kv_table_drop_many(e->s, gone, 0), KV_OK);
	assert_int_equal(kv_table_drop_many(e->s, gone + 1, 1), KV_OK);
	for (int pass = 0; pass < 2; pass++) {
		kv_table *t;
		assert_int_equal(kv_table_open(e->s, "d1", &t), KV_NOT_FOUND);
		assert_int_equal(kv_table_open(e->s, "d3", &t), KV_NOT_FOUND);
		assert_int_equal(kv_table_open(e->s, "d2", &t), KV_OK);
		kv_table_close(t);
		reopen(e);
	}
	assert_int_equal(kv_table_create(e->s, "d1", &fo, 1), KV_OK);
}

static void test_big_values(void **state)
{
	env *e = *state;
	size_t n = 40u << 20;
	uint8_t *v = malloc(n);
	for (size_t i = 0; i < n; i++)
		v[i] = (uint8_t)(i * 2654435761u >> 13);
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, e->t, "big", 3, "a", "q", 1, KV_TS_LATEST, v, n);
	kv_batch_put(b, e->t, "big", 3, "a", "r", 1, KV_TS_LATEST, "small", 5);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_OK);
	/* Too large for the store: refused, nothing written. */
	kv_batch_clear(b);
	kv_batch_put(b, e->t, "huge", 4, "a", "q", 1, KV_TS_LATEST, v, (64u << 20) + 1);
	assert_int_equal(kv_commit(e->s, b, NULL, NULL), KV_TOO_LARGE);
	kv_batch_free(b);
	for (int round = 0; round < 3; round++) {
		util_arena *a = util_arena_new(1 << 20, 0);
		kv_row r;
		assert_int_equal(kv_get(e->t, "big", 3, NULL, a, &r), KV_OK);
		assert_int_equal(r.n, 2);
		assert_int_equal(r.cells[0].value.len, n);
		assert_memory_equal(r.cells[0].value.data, v, n);
		util_arena_destroy(a);
		if (round == 0)
			assert_int_equal(kv_table_flush(e->t), KV_OK);
		else
			reopen(e);
	}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_put_get, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_snapshot_reads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_versions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_deletes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_scans, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reopen_log_replay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_conditions, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_commit_if, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_check_row_at, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lock_row, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_increment_append, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reserved_ts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drop_many, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_big_values, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
