/*
 * build_test.c — online index builds, the checker and GC on a real store:
 * a backfill over rows written before the index existed while a writer
 * (maintaining the write-only index) changes rows between chunks; a
 * cancelled backfill resumed from its last key; duplicates refused by a
 * unique build; the checker's three problem kinds; the compaction filter
 * dropping stale entries and keeping good ones; the bulk build (one
 * snapshot, sorted in memory, two reader and two writer threads): exact,
 * verified, idempotent, nothing written when cancelled.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idxt_util.h"

/* A row written before the index existed: data only. */
static void data_only(idxt *t, int64_t id, int64_t a)
{
	util_buf pk = UTIL_BUF_INIT;
	idxt_pk(id, &pk);
	kv_batch *b = kv_batch_new();
	uint8_t v[8];
	util_put_be64(v, (uint64_t)a);
	kv_batch_put(b, t->data, pk.data, pk.len, "d", "", 0, KV_TS_LATEST, "", 0);
	kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\1", 2, KV_TS_LATEST, v, 8);
	kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\2", 2, KV_TS_LATEST, "b", 1);
	assert_int_equal(kv_commit(t->s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	util_buf_free(&pk);
}

static void expect_clean(idxt *t, uint64_t rows)
{
	idx_check_report r;
	assert_int_equal(idx_check(t->data, &t->def, &t->model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.missing, 0);
	assert_int_equal(r.stale, 0);
	assert_int_equal(r.mismatched, 0);
	assert_int_equal(r.rows, rows);
	util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	idxt_index_ids(t, 0, &a);
	idxt_data_ids(t, 0, &b);
	assert_string_equal(a.data ? a.data : "", b.data ? b.data : "");
	util_buf_free(&a);
	util_buf_free(&b);
}

typedef struct writer_ctx {
	idxt *t;
	int chunks;
	int cancel_after; /* 0: never */
	util_buf last;
	int64_t a[300]; /* current value of each row, -1 = deleted */
} writer_ctx;

/* Changes row id to a (a < 0: deletes it) from its real current state. */
static void change(writer_ctx *w, int64_t id, int64_t a)
{
	if (id < 0 || id >= 300 || w->a[id] < 0)
		return;
	idxt_row o = {id, w->a[id], false, "b"}, n = {id, a, false, "c"};
	assert_int_equal(idxt_write(w->t, &o, a >= 0 ? &n : NULL, false, NULL, NULL), KV_OK);
	w->a[id] = a;
}

/* Between chunks a writer that knows the (write-only) index updates rows on
 * both sides of the backfill's position and deletes one. */
static int concurrent_writer(void *arg, uint64_t rows, const void *last, size_t len)
{
	writer_ctx *w = arg;
	(void)rows;
	w->chunks++;
	util_buf_reset(&w->last);
	util_buf_append(&w->last, last, len);
	if (w->cancel_after && w->chunks >= w->cancel_after)
		return 1;
	int64_t lo = w->chunks * 10 - 5, hi = w->chunks * 10 + 15;
	change(w, lo, 1000 + lo);
	change(w, hi, 2000 + hi);
	change(w, hi + 1, -1);
	return 0;
}

static void test_backfill_concurrent(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	for (int i = 0; i < 300; i++)
		data_only(&t, i, i);
	writer_ctx w = {&t, 0, 0, UTIL_BUF_INIT, {0}};
	for (int i = 0; i < 300; i++)
		w.a[i] = i;
	idx_backfill_opts o = {10, NULL, 0, concurrent_writer, &w};
	uint64_t done = 0;
	util_err err;
	util_err_clear(&err);
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	assert_true(w.chunks >= 20);
	uint64_t live;
	util_buf ids = UTIL_BUF_INIT;
	idxt_data_ids(&t, 0, &ids);
	size_t n = 0;
	for (char *p = ids.data; p && *p; p++)
		n += *p == ',';
	live = n + 1;
	expect_clean(&t, live);
	/* Idempotent: a second run changes nothing. */
	done = 0;
	o.progress = NULL;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	expect_clean(&t, live);
	util_buf_free(&ids);
	util_buf_free(&w.last);
	idxt_close(&t, true);
}

static void test_backfill_resume(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	for (int i = 0; i < 100; i++)
		data_only(&t, i, i % 13);
	writer_ctx w = {&t, 0, 3, UTIL_BUF_INIT, {0}};
	for (int i = 0; i < 300; i++)
		w.a[i] = i < 100 ? i % 13 : -1;
	idx_backfill_opts o = {7, NULL, 0, concurrent_writer, &w};
	uint64_t done = 0;
	util_err err;
	util_err_clear(&err);
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_BUSY);
	assert_true(done >= 20 && done <= 21);
	idx_check_report r;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, NULL, NULL), KV_OK);
	assert_true(r.missing > 0);
	/* Resume from the last key reported. */
	o.resume = w.last.data;
	o.resume_len = w.last.len;
	o.progress = NULL;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	uint64_t live = 0;
	for (int i = 0; i < 100; i++)
		live += w.a[i] >= 0;
	assert_int_equal(done, 100 - (100 - live));
	expect_clean(&t, live);
	util_buf_free(&w.last);
	idxt_close(&t, true);
}

static void test_backfill_unique(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, true, NULL);
	for (int i = 0; i < 50; i++)
		data_only(&t, i, i);
	idx_backfill_opts o = {8, NULL, 0, NULL, NULL};
	util_err err;
	util_err_clear(&err);
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, NULL, &err), KV_OK);
	expect_clean(&t, 50);
	/* Two rows with a = 7, in different chunks and in the same chunk. */
	data_only(&t, 100, 7);
	util_err_clear(&err);
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, NULL, &err), KV_CHECK_FAILED);
	assert_string_equal(err.detail, "Key (a)=(7) is duplicated.");
	idxt_close(&t, true);
	idxt_open(&t, NULL, true, NULL);
	data_only(&t, 1, 3);
	data_only(&t, 2, 3);
	util_err_clear(&err);
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, NULL, &err), KV_CHECK_FAILED);
	assert_string_equal(err.detail, "Key (a)=(3) is duplicated.");
	idxt_close(&t, true);
}

typedef struct problems {
	int missing, stale, mismatch;
	/* the last mismatch's details */
	const char *why_mismatch;
	kv_ts mismatch_entry_ts, mismatch_row_ts;
	bool mismatch_verified;
} problems;

static void count_problem(void *arg, const idx_check_problem *p)
{
	problems *c = arg;
	c->missing += p->kind == IDX_MISSING;
	c->stale += p->kind == IDX_STALE_ENTRY;
	c->mismatch += p->kind == IDX_MISMATCH;
	if (p->kind == IDX_MISMATCH) {
		c->why_mismatch = p->why;
		c->mismatch_entry_ts = p->entry_ts;
		c->mismatch_row_ts = p->row_ts;
		c->mismatch_verified = p->verified;
	}
}

static void test_checker(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	for (int i = 0; i < 10; i++) {
		idxt_row r = {i, i, false, "x"};
		assert_int_equal(idxt_write(&t, NULL, &r, false, NULL, NULL), KV_OK);
	}
	expect_clean(&t, 10);
	kv_batch *b = kv_batch_new();
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	/* missing: row 2's entry deleted */
	idxt_entry(&t, 2, 2, false, "x", &k, &v);
	kv_batch_delete(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, KV_DELETE_COLUMN);
	/* stale: an entry for a row that does not exist */
	util_buf_reset(&k);
	util_buf_reset(&v);
	idxt_entry(&t, 77, 1, false, "x", &k, &v);
	kv_batch_put(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, v.data, v.len);
	/* mismatch: row 5's entry with another payload, verified (an
	 * index-only scan would return it) */
	util_buf_reset(&k);
	util_buf_reset(&v);
	idxt_entry(&t, 5, 5, false, "other", &k, &v);
	v.data[0] |= IDX_F_VERIFIED;
	kv_batch_put(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, v.data, v.len);
	/* stale: row 6's entry with another payload, unverified and newer than
	 * the row (a split commit interrupted before its data write) */
	util_buf_reset(&k);
	util_buf_reset(&v);
	idxt_entry(&t, 6, 6, false, "other", &k, &v);
	kv_batch_put(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, v.data, v.len);
	assert_int_equal(kv_commit(t.s, b, NULL, NULL), KV_OK);
	problems c = {0};
	idx_check_report r;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, count_problem, &c), KV_OK);
	assert_int_equal(r.missing, 1);
	assert_int_equal(r.stale, 2);
	assert_int_equal(r.mismatched, 1);
	assert_int_equal(c.missing, 1);
	assert_int_equal(c.stale, 2);
	assert_int_equal(c.mismatch, 1);
	assert_string_equal(c.why_mismatch, "another payload");
	assert_true(c.mismatch_verified);
	assert_true(c.mismatch_entry_ts > c.mismatch_row_ts);
	kv_batch_free(b);
	util_buf_free(&k);
	util_buf_free(&v);
	idxt_close(&t, true);
}

static void test_gc(void **state)
{
	(void)state;
	idxt t;
	idxt_open(&t, NULL, false, NULL);
	idx_gc *gc = idx_gc_install(t.s, "i1", "r1", &t.def, &t.model);
	assert_non_null(gc);
	for (int i = 0; i < 20; i++) {
		idxt_row r = {i, i, false, "x"};
		assert_int_equal(idxt_write(&t, NULL, &r, false, NULL, NULL), KV_OK);
	}
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	/* Stale leftovers: entries of other keys for rows 0..9. */
	kv_batch *b = kv_batch_new();
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	for (int i = 0; i < 10; i++) {
		util_buf_reset(&k);
		util_buf_reset(&v);
		idxt_entry(&t, i, 500 + i, false, "x", &k, &v);
		kv_batch_put(b, t.index, k.data, k.len, "d", "", 0, KV_TS_LATEST, v.data, v.len);
	}
	assert_int_equal(kv_commit(t.s, b, NULL, NULL), KV_OK);
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	assert_int_equal(kv_table_compact(t.index, false), KV_OK);
	assert_int_equal(idx_gc_dropped(gc), 10);
	idx_check_report r;
	assert_int_equal(idx_check(t.data, &t.def, &t.model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.entries, 20);
	assert_int_equal(r.stale + r.missing + r.mismatched, 0);
	/* Many updates of one row: after a major compaction the index holds
	 * the live entries only. */
	idxt_row cur = {3, 3, false, "x"};
	/* IDX_GC_UPDATES=1000000 for the long mode (tests/index/run.sh). */
	int updates = getenv("IDX_GC_UPDATES") ? atoi(getenv("IDX_GC_UPDATES")) : 2000;
	for (int i = 0; i < updates; i++) {
		idxt_row nw = {3, 10000 + i, false, "x"};
		assert_int_equal(idxt_write(&t, &cur, &nw, false, NULL, NULL), KV_OK);
		cur = nw;
	}
	assert_int_equal(kv_table_flush(t.index), KV_OK);
	assert_int_equal(kv_table_compact(t.index, true), KV_OK);
	kv_table_stats ts;
	assert_int_equal(kv_table_get_stats(t.index, &ts), KV_OK);
	assert_true(ts.entries <= 20);
	expect_clean(&t, 20);
	idx_gc_uninstall(gc);
	kv_batch_free(b);
	util_buf_free(&k);
	util_buf_free(&v);
	idxt_close(&t, true);
}

/* Rows id in [from, from + n) with a = id * 7919 % 1000 (every 97th without
 * a), data only, in batches of 10000. */
static void data_bulk(idxt *t, int64_t from, int64_t n)
{
	kv_batch *b = kv_batch_new();
	util_buf pk = UTIL_BUF_INIT;
	for (int64_t id = from; id < from + n; id++) {
		util_buf_reset(&pk);
		idxt_pk(id, &pk);
		uint8_t v[8];
		util_put_be64(v, (uint64_t)(id * 7919 % 1000));
		kv_batch_put(b, t->data, pk.data, pk.len, "d", "", 0, KV_TS_LATEST, "", 0);
		if (id % 97)
			kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\1", 2, KV_TS_LATEST, v, 8);
		kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\2", 2, KV_TS_LATEST, "b", 1);
		if (kv_batch_count(b) >= 30000) {
			assert_int_equal(kv_commit(t->s, b, NULL, NULL), KV_OK);
			kv_batch_clear(b);
		}
	}
	if (kv_batch_count(b))
		assert_int_equal(kv_commit(t->s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	util_buf_free(&pk);
}

/* The checker finds every row's entry (key, timestamp, payload) and no
 * other; every entry is marked verified. */
static void expect_exact(idxt *t, uint64_t rows)
{
	idx_check_report r;
	assert_int_equal(idx_check(t->data, &t->def, &t->model, 0, &r, NULL, NULL), KV_OK);
	assert_int_equal(r.missing + r.stale + r.mismatched, 0);
	assert_int_equal(r.rows, rows);
	assert_int_equal(r.entries, rows);
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	kv_iter *it = kv_scan(t->index, &so);
	uint64_t n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		assert_true(c->value.len >= 1 && (c->value.data[0] & IDX_F_VERIFIED));
		n++;
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	assert_int_equal(n, rows);
}

typedef struct bulk_ctx {
	int reports;
	int cancel_at; /* 0: never */
	uint64_t rows;
} bulk_ctx;

static int bulk_progress(void *arg, uint64_t rows, const void *last, size_t len)
{
	bulk_ctx *c = arg;
	(void)last;
	assert_true(len > 0);
	assert_true(rows >= c->rows); /* never backwards */
	c->rows = rows;
	return ++c->reports == c->cancel_at;
}

static void test_bulk_build(void **state)
{
	(void)state;
	idxt t;
	util_err err;
	util_err_clear(&err);
	bulk_ctx c = {0, 0, 0};
	idx_backfill_opts o;
	memset(&o, 0, sizeof o);
	o.caught_up_later = true;
	o.model2 = &t.model;
	o.progress = bulk_progress;
	o.progress_arg = &c;
	/* A few rows, all in the memstore: one reader. */
	idxt_open(&t, NULL, false, NULL);
	data_bulk(&t, 0, 300);
	uint64_t done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	assert_int_equal(done, 300);
	assert_int_equal(c.rows, 300);
	expect_exact(&t, 300);
	idxt_close(&t, true);

	/* Enough rows in sorted files for two readers and two writers. */
	idxt_open(&t, NULL, false, NULL);
	data_bulk(&t, 0, 150000);
	assert_int_equal(kv_table_flush(t.data), KV_OK);
	/* Cancelled at the second report: nothing is written. */
	c = (bulk_ctx){0, 2, 0};
	done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_BUSY);
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	kv_iter *it = kv_scan(t.index, &so);
	assert_false(kv_iter_valid(it));
	kv_iter_close(it);
	c = (bulk_ctx){0, 0, 0};
	done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	assert_int_equal(done, 150000);
	assert_int_equal(c.rows, 150000);
	assert_true(c.reports >= 3);
	expect_exact(&t, 150000);
	/* Two ingests of non-overlapping files (the write threads). */
	kv_file_info *files;
	int nf;
	assert_int_equal(kv_table_files(t.index, &files, &nf), KV_OK);
	assert_int_equal(nf, 2);
	free(files);
	/* Idempotent: a second build writes the same cells. */
	c = (bulk_ctx){0, 0, 0};
	done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	expect_exact(&t, 150000);
	/* Small runs handed to the batch while reading (both threads):
	 * overlapping runs that the ingest merges. */
	o.run_bytes = 300000;
	c = (bulk_ctx){0, 0, 0};
	done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	assert_int_equal(done, 150000);
	expect_exact(&t, 150000);
	o.run_bytes = 0;
	/* Without a second model: one reader, the same answer. */
	o.model2 = NULL;
	c = (bulk_ctx){0, 0, 0};
	done = 0;
	assert_int_equal(idx_backfill(t.data, &t.def, &t.model, &o, &done, &err), KV_OK);
	assert_int_equal(done, 150000);
	expect_exact(&t, 150000);
	idxt_close(&t, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_backfill_concurrent),
	    cmocka_unit_test(test_backfill_resume),
	    cmocka_unit_test(test_backfill_unique),
	    cmocka_unit_test(test_checker),
	    cmocka_unit_test(test_gc),
	    cmocka_unit_test(test_bulk_build),
	};
	/* The tsan suite runs the threaded tests only (tests/tsan/run.sh). */
	if (getenv("STRATA_UNIT_FILTER"))
		cmocka_set_test_filter(getenv("STRATA_UNIT_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
