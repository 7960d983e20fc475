/*
 * sorted_test.c — batches declared sorted (kv_batch_sorted): ascending puts
 * go straight into one sorted run file; the first put out of order, an
 * identical cell, a delete, another family or another kind ends the run and
 * the rest is buffered as usual, with later mutations still winning; clear
 * and free leave no file behind; a reopen reads what was committed.
 * Batches of sorted runs (kv_batch_sorted_runs): each ascending chunk is a
 * run file of its own, later chunks win, a delete waits in the buffer, and
 * a run too short ends streaming. An ascending stream with one cell
 * put again out of place, keys of equal lengths, streams only what is in order.
 * Whole rows (kv_batch_put_row) stream as their cells would, or go cell by cell.
 * One batch takes another's streamed runs (kv_batch_take_runs): committed
 * as one commit, key-disjoint runs kept apart, overlapping ones merged with
 * the taken run winning; a batch with buffered puts is refused.
 */
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

static const char *const FAMS2[] = {"d", "e"};

/* A big spill size: only the stream can write files before the commit. */
static kv_store *open_big(const char *dir)
{
	kv_store *s = kvt_open_spill(dir, NULL, 64 << 20);
	assert_non_null(s);
	return s;
}

static void put(kv_batch *b, kv_table *t, int i, const char *fam, const char *q, kv_ts ts, const char *v)
{
	char r[16];
	kvt_rowkey(r, i);
	kv_batch_put(b, t, r, strlen(r), fam, q, strlen(q), ts, v, strlen(v));
}

static void expect(kv_table *t, int i, const char *fam, const char *q, kv_ts read_ts, const char *want)
{
	char r[16], buf[64];
	kvt_rowkey(r, i);
	bool found = kvt_get(t, r, fam, q, read_ts, buf, sizeof(buf));
	if (!want) {
		assert_false(found);
		return;
	}
	assert_true(found);
	assert_string_equal(buf, want);
}

/* The store verified and closed, its directory removed. */
static void verify_close(kv_store *s, char *dir)
{
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	kvt_close_rm(s, dir);
}

/* All ascending: one file written while the puts come, none in memory. */
static void test_stream_all_ascending(void **state)
{
	char *dir = kvt_tmpdir("sorted");
	kv_store *s = open_big(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	kv_batch *b = kv_batch_new();
	kv_batch_sorted(b);
	const int N = 5000;
	char v[32];
	for (int i = 0; i < N; i++) {
		snprintf(v, sizeof(v), "v%d", i);
		put(b, t, i, "d", "", 20, "");
		put(b, t, i, "d", "a", 20, v);
		put(b, t, i, "d", "b", 20, "x");
		if (i == N / 2)
			assert_int_equal(kvt_count_ssts(dir), 1); /* the run, before any commit */
	}
	assert_int_equal(kv_batch_count(b), (size_t)(3 * N));
	assert_true(kv_batch_byte_size(b) > 0);
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	assert_int_equal(kv_commit(s, b, &wo, NULL), KV_OK);
	assert_int_equal(kv_batch_count(b), 0);
	assert_int_equal(kvt_file_count(t), 1);
	assert_int_equal(kvt_count_ssts(dir), 1);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)(3 * N));
	expect(t, 0, "d", "a", 20, "v0");
	expect(t, N - 1, "d", "a", 20, "v4999");
	expect(t, 1234, "d", "b", 19, NULL); /* its own timestamp kept */
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);

	/* Cleared, the batch is an ordinary one again: a small commit goes
	 * through the memstore, not to a file. */
	put(b, t, N, "d", "a", KV_TS_LATEST, "mem");
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	assert_int_equal(kvt_file_count(t), 1);
	expect(t, N, "d", "a", 0, "mem");
	kv_batch_free(b);
	kv_table_close(t);
	kv_store_close(s);
	s = open_big(dir);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)(3 * N + 1));
	expect(t, 4321, "d", "a", 20, "v4321");
	kv_table_close(t);
	kvt_close_rm(s, dir);
	(void)state;
}

/* Each way out of order ends the run; the rest goes through the buffer and
 * later mutations win over the streamed cells. */
static void test_stream_fallbacks(void **state)
{
	char *dir = kvt_tmpdir("sortedfb");
	kv_store *s = open_big(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	char v[32];
	for (int mode = 0; mode < 5; mode++) {
		int before = kvt_count_ssts(dir);
		kv_batch *b = kv_batch_new();
		kv_batch_sorted(b);
		kv_ts ts = 100 + (kv_ts)mode * 10;
		for (int i = 0; i < 1000; i++) {
			snprintf(v, sizeof(v), "m%d-%d", mode, i);
			put(b, t, i, "d", "a", ts, v);
		}
		assert_int_equal(kvt_count_ssts(dir), before + 1); /* the run */
		char r[16];
		kvt_rowkey(r, 500);
		switch (mode) {
		case 0: /* a key below the last */
			put(b, t, 500, "d", "a", ts, "late");
			break;
		case 1: /* the identical cell again: the later put wins */
			put(b, t, 999, "d", "a", ts, "late");
			break;
		case 2: /* a delete */
			kv_batch_delete(b, t, r, strlen(r), "d", "a", 1, ts, KV_DELETE_COLUMN);
			break;
		case 3: /* another family, then the first again */
			put(b, t, 1000, "e", "a", ts, "late");
			break;
		case 4: /* the commit timestamp's kind */
			put(b, t, 1000, "d", "a", KV_TS_LATEST, "late");
			break;
		}
		for (int i = 1000; i < 1200; i++) { /* ascending again: buffered */
			snprintf(v, sizeof(v), "m%d-%d", mode, i);
			put(b, t, i, "d", "b", ts, v);
		}
		assert_int_equal(kv_batch_count(b), (size_t)1201);
		kv_write_opts wo = {.no_sync = true, .ingest = true};
		assert_int_equal(kv_commit(s, b, &wo, NULL), KV_OK);
		kv_batch_free(b);
		assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
		snprintf(v, sizeof(v), "m%d-0", mode);
		expect(t, 0, "d", "a", ts, v);
		snprintf(v, sizeof(v), "m%d-1", mode);
		expect(t, 1, "d", "a", ts, v);
		snprintf(v, sizeof(v), "m%d-1100", mode);
		expect(t, 1100, "d", "b", ts, v);
		if (mode == 0)
			expect(t, 500, "d", "a", ts, "late");
		if (mode == 1)
			expect(t, 999, "d", "a", ts, "late");
		if (mode == 2)
			expect(t, 500, "d", "a", ts, NULL); /* every version up to ts */
		if (mode == 3)
			expect(t, 1000, "e", "a", ts, "late");
		if (mode == 4)
			expect(t, 1000, "d", "a", 0, "late");
	}
	kv_table_close(t);
	kvt_close_rm(s, dir);
	(void)state;
}

/* A batch cleared or freed while streaming leaves no file. */
static void test_stream_abandoned(void **state)
{
	char *dir = kvt_tmpdir("sortedab");
	kv_store *s = open_big(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	kv_batch *b = kv_batch_new();
	kv_batch_sorted(b);
	for (int i = 0; i < 100; i++)
		put(b, t, i, "d", "a", 5, "x");
	assert_int_equal(kvt_count_ssts(dir), 1);
	kv_batch_clear(b);
	assert_int_equal(kvt_count_ssts(dir), 0);
	assert_int_equal(kv_batch_count(b), 0);
	kv_batch_sorted(b);
	for (int i = 0; i < 100; i++)
		put(b, t, i, "d", "a", 5, "x");
	assert_int_equal(kvt_count_ssts(dir), 1);
	kv_batch_free(b);
	assert_int_equal(kvt_count_ssts(dir), 0);
	assert_int_equal(kvt_scan_count(t, 0), 0);
	kv_table_close(t);
	kvt_close_rm(s, dir);
	(void)state;
}

/* Three ascending chunks whose keys interleave: three run files before the
 * commit, merged into one by it; a later chunk's identical cell wins. */
static void test_sorted_runs(void **state)
{
	char *dir = kvt_tmpdir("sortedruns");
	kv_store *s = open_big(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	kv_batch *b = kv_batch_new();
	kv_batch_sorted_runs(b);
	const int N = 15000;
	char v[32];
	for (int c = 0; c < 3; c++) {
		for (int i = c; i < N; i += 3) {
			snprintf(v, sizeof(v), "v%d", i);
			put(b, t, i, "d", "", KV_TS_LATEST, "");
			put(b, t, i, "d", "a", KV_TS_LATEST, v);
		}
		assert_int_equal(kvt_count_ssts(dir), c + 1); /* one run per chunk, nothing buffered */
	}
	/* A fourth chunk rewrites rows of the first: the later run wins. */
	for (int i = 0; i < 3000; i += 3)
		put(b, t, i, "d", "a", KV_TS_LATEST, "again");
	assert_int_equal(kvt_count_ssts(dir), 4);
	/* A delete waits in the buffer, and so do the puts after it; they
	 * are later than every run, and win. */
	char r[16];
	kvt_rowkey(r, 1);
	kv_batch_delete(b, t, r, strlen(r), "d", "a", 1, KV_TS_LATEST, KV_DELETE_COLUMN);
	put(b, t, 2, "d", "a", KV_TS_LATEST, "last");
	assert_int_equal(kvt_count_ssts(dir), 4);
	assert_int_equal(kv_batch_count(b), (size_t)(2 * N + 1000 + 2));
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	kv_ts ts;
	assert_int_equal(kv_commit(s, b, &wo, &ts), KV_OK);
	assert_int_equal(kvt_file_count(t), 1); /* the runs overlap: merged */
	assert_int_equal(kvt_count_ssts(dir), 1);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)(2 * N - 1));
	expect(t, 0, "d", "a", ts, "again");
	expect(t, 1, "d", "a", ts, NULL);
	expect(t, 2, "d", "a", ts, "last");
	expect(t, 3, "d", "a", ts, "again");
	expect(t, 3001, "d", "a", ts, "v3001");
	expect(t, N - 1, "d", "a", ts, "v14999");
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	kv_batch_free(b);

	/* A run shorter than the minimum ends streaming: the rest is buffered
	 * (and sorted by the spill), no file per few puts. */
	b = kv_batch_new();
	kv_batch_sorted_runs(b);
	for (int i = 0; i < 10; i++)
		put(b, t, N + 2 * i, "d", "a", KV_TS_LATEST, "short");
	assert_int_equal(kvt_count_ssts(dir), 2);
	for (int k = 0; k < 20; k++)
		for (int i = 0; i < 10; i++)
			put(b, t, N + 2 * i + 1, "e", "a", KV_TS_LATEST, "buffered");
	assert_int_equal(kvt_count_ssts(dir), 2);
	assert_int_equal(kv_commit(s, b, &wo, &ts), KV_OK);
	expect(t, N + 2, "d", "a", ts, "short");
	expect(t, N + 3, "e", "a", ts, "buffered");
	assert_int_equal(kvt_scan_count(t, 0), (size_t)(2 * N - 1 + 20));
	kv_batch_free(b);
	kv_table_close(t);
	kvt_close_rm(s, dir);
	(void)state;
}

/* Cells of 0-3 byte rows and qualifiers (keys of the same length often, with
 * rows of different lengths) put ascending, but for one cell put again out
 * of place: the stream must see it is out of order (the scan then returns
 * each row once, in order) and every cell reads back as its last put. */
static void test_stream_order_one_late(void **state)
{
	static const char *const rows[] = {"a", "ab", "abc", "b", "ba", "c"}; /* ascending */
	static const char *const quals[] = {"", "x", "xy", "y", "yx"};
	enum { NR = 6, NQ = 5, NT = 2, NC = NR * NQ * NT };
	char *dir = kvt_tmpdir("sortedlate");
	kv_store *s = open_big(dir);
	srand(6);
	for (int iter = 0; iter < 200; iter++) {
		char name[16];
		snprintf(name, sizeof(name), "t%d", iter);
		kv_table *t = kvt_table(s, name, 2, FAMS2);
		/* Cells in key order (row, qualifier ascending, ts descending); cell
		 * late comes again after cell at. */
		int at = 1 + rand() % (NC - 1), late = rand() % at;
		int order[NC + 1], n = 0, last[NC];
		for (int c = 0; c < NC; c++) {
			order[n++] = c;
			if (c == at)
				order[n++] = late;
		}
		kv_batch *b = kv_batch_new();
		kv_batch_sorted(b);
		for (int i = 0; i < n; i++) {
			int c = order[i], r = c / (NQ * NT), q = c / NT % NQ;
			kv_ts ts = (kv_ts)(NT - c % NT);
			char v[16];
			snprintf(v, sizeof(v), "v%d", i);
			kv_batch_put(b, t, rows[r], strlen(rows[r]), "d", quals[q], strlen(quals[q]), ts, v,
				     strlen(v));
			last[c] = i;
		}
		kv_write_opts wo = {.no_sync = true, .ingest = true};
		assert_int_equal(kv_commit(s, b, &wo, NULL), KV_OK);
		kv_batch_free(b);
		char seen[64];
		kv_scan_opts so = {0};
		kvt_scan_rows(t, &so, seen, sizeof(seen));
		assert_string_equal(seen, "a,ab,abc,b,ba,c");
		assert_int_equal(kvt_scan_count(t, 0), (size_t)(NR * NQ));
		for (int c = 0; c < NC; c++) {
			int r = c / (NQ * NT), q = c / NT % NQ;
			char want[16], got[16];
			snprintf(want, sizeof(want), "v%d", last[c]);
			assert_true(
			    kvt_get(t, rows[r], "d", quals[q], (kv_ts)(NT - c % NT), got, sizeof(got)));
			assert_string_equal(got, want);
		}
		kv_table_close(t);
	}
	verify_close(s, dir);
	(void)state;
}

/* Puts row i's cells with kv_batch_put_row: the qualifiers given, each value
 * "tag-i-q". */
static void put_row(kv_batch *b, kv_table *t, int i, const char *const *q, int nq, const char *tag)
{
	char r[16], v[8][32];
	kv_put_cell c[8];
	kvt_rowkey(r, i);
	for (int k = 0; k < nq; k++) {
		snprintf(v[k], sizeof(v[k]), "%s-%d-%s", tag, i, q[k]);
		c[k] = (kv_put_cell){q[k], strlen(q[k]), v[k], strlen(v[k])};
	}
	kv_batch_put_row(b, t, r, strlen(r), "d", 30, c, (size_t)nq);
}

/* Whole rows (kv_batch_put_row): ascending rows stream into one file; a row
 * out of place (its first cell not after the last one written), a row whose
 * qualifiers do not ascend and an unsorted batch go cell by cell, a batch of
 * sorted runs starts its next run; every cell reads back as its last put. */
static void test_put_row(void **state)
{
	static const char *const up[] = {"", "a", "ab", "b"}, *const down[] = {"b", "a"};
	enum { NR = 3000, MID = NR / 2 };
	char *dir = kvt_tmpdir("sortedrow");
	kv_store *s = open_big(dir);
	for (int mode = 0; mode < 5; mode++) {
		char name[16], want[32];
		snprintf(name, sizeof(name), "t%d", mode);
		kv_table *t = kvt_table(s, name, 2, FAMS2);
		kv_batch *b = kv_batch_new();
		if (mode == 3)
			kv_batch_sorted_runs(b);
		else if (mode != 4)
			kv_batch_sorted(b);
		int before = kvt_count_ssts(dir);
		for (int i = 0; i < NR; i++) {
			if (i == MID && (mode == 1 || mode == 3))
				put_row(b, t, 100, up, 4, "late"); /* a row again, out of place */
			if (i == MID && mode == 2)
				put_row(b, t, i, down, 2, "down"); /* then its ascending cells again */
			put_row(b, t, i, up, 4, "v");
		}
		int runs = mode == 4 ? 0 : mode == 3 ? 2 : 1;
		assert_int_equal(kvt_count_ssts(dir), before + runs);
		kv_write_opts wo = {.no_sync = true, .ingest = true};
		assert_int_equal(kv_commit(s, b, &wo, NULL), KV_OK);
		kv_batch_free(b);
		assert_int_equal(kvt_scan_count(t, 0), (size_t)(4 * NR));
		for (int i = 0; i < NR; i += 7)
			for (int k = 0; k < 4; k++) {
				snprintf(want, sizeof(want), "v-%d-%s", i, up[k]);
				expect(t, i, "d", up[k], 30, want);
			}
		snprintf(want, sizeof(want), "%s-100-a", mode == 1 || mode == 3 ? "late" : "v");
		expect(t, 100, "d", "a", 30, want);
		kv_table_close(t);
	}
	verify_close(s, dir);
	(void)state;
}

/* A row whose later cell breaks a limit (the streaming path checks the
 * first cell in full, the others' own bytes) goes cell by cell, which
 * reports it: the commit fails with that cell's status, nothing lands. */
static void test_put_row_bad_cell(void **state)
{
	char *dir = kvt_tmpdir("sortedbad");
	kv_store *s = open_big(dir);
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	static char big[(64u << 10) + 1]; /* qualifiers are up to 64 KiB */
	memset(big, 'q', sizeof(big));
	for (int mode = 0; mode < 2; mode++) {
		kv_batch *b = kv_batch_new();
		kv_batch_sorted(b);
		for (int i = 0; i < 10; i++)
			put(b, t, i, "d", "a", 20, "ok");
		kv_put_cell c[2] = {{"a", 1, "v", 1}, {mode ? NULL : big, mode ? 1 : sizeof(big), "w", 1}};
		kv_batch_put_row(b, t, "zz", 2, "d", 20, c, 2);
		kv_write_opts wo = {.no_sync = true, .ingest = true};
		assert_int_equal(kv_commit(s, b, &wo, NULL), mode ? KV_INVALID : KV_TOO_LARGE);
		kv_batch_free(b);
		assert_int_equal(kvt_scan_count(t, 0), 0);
	}
	kv_table_close(t);
	verify_close(s, dir);
	(void)state;
}

/* Streams rows [from, to) into a new sorted batch, values tagged. */
static kv_batch *stream_rows(kv_table *t, int from, int to, const char *tag)
{
	kv_batch *b = kv_batch_new();
	kv_batch_sorted(b);
	char v[32];
	for (int i = from; i < to; i++) {
		snprintf(v, sizeof(v), "%s%d", tag, i);
		put(b, t, i, "d", "a", 20, v);
	}
	return b;
}

static void test_take_runs(void **state)
{
	enum { N = 6000 };
	char *dir = kvt_tmpdir("sortedtake");
	kv_store *s = open_big(dir);
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	/* Two key ranges, as two threads would stream them: one commit, the
	 * two files kept apart. */
	kv_table *t = kvt_table(s, "t", 2, FAMS2);
	kv_batch *hi = stream_rows(t, N / 2, N, "v"), *lo = stream_rows(t, 0, N / 2, "v");
	assert_int_equal(kvt_count_ssts(dir), 2);
	assert_int_equal(kv_batch_take_runs(lo, hi), KV_OK);
	assert_int_equal(kv_batch_count(hi), 0);
	assert_int_equal(kv_batch_count(lo), (size_t)N);
	kv_batch_free(hi); /* owns no file any more */
	assert_int_equal(kvt_count_ssts(dir), 2);
	assert_int_equal(kv_commit(s, lo, &wo, NULL), KV_OK);
	kv_batch_free(lo);
	assert_int_equal(kvt_file_count(t), 2);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)N);
	expect(t, 0, "d", "a", 20, "v0");
	expect(t, N / 2 - 1, "d", "a", 20, "v2999");
	expect(t, N / 2, "d", "a", 20, "v3000");
	expect(t, N - 1, "d", "a", 20, "v5999");
	kv_table_close(t);
	/* Overlapping ranges: merged at commit, the taken run's cells win. */
	kv_table *u = kvt_table(s, "u", 2, FAMS2);
	kv_batch *a = stream_rows(u, 0, N / 2 + 100, "a"), *b = stream_rows(u, N / 2, N, "b");
	assert_int_equal(kv_batch_take_runs(a, b), KV_OK);
	assert_int_equal(kv_commit(s, a, &wo, NULL), KV_OK);
	kv_batch_free(a);
	kv_batch_free(b);
	assert_int_equal(kvt_file_count(u), 1);
	assert_int_equal(kvt_scan_count(u, 0), (size_t)N);
	expect(u, N / 2 - 1, "d", "a", 20, "a2999");
	expect(u, N / 2 + 50, "d", "a", 20, "b3050");
	kv_table_close(u);
	/* A batch with buffered puts: refused, nothing moved. */
	kv_table *w = kvt_table(s, "w", 2, FAMS2);
	kv_batch *plain = kv_batch_new(), *st = stream_rows(w, 100, 200, "s");
	put(plain, w, 1, "d", "a", 20, "p");
	int files = kvt_count_ssts(dir);
	assert_int_equal(kv_batch_take_runs(plain, st), KV_INVALID);
	assert_int_equal(kv_batch_take_runs(st, plain), KV_INVALID);
	assert_int_equal(kv_batch_count(st), 100);
	kv_batch_free(plain);
	kv_batch_free(st);
	assert_int_equal(kvt_count_ssts(dir), files - 1);
	kv_table_close(w);
	verify_close(s, dir);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stream_all_ascending),
	    cmocka_unit_test(test_stream_fallbacks),
	    cmocka_unit_test(test_stream_abandoned),
	    cmocka_unit_test(test_sorted_runs),
	    cmocka_unit_test(test_stream_order_one_late),
	    cmocka_unit_test(test_put_row),
	    cmocka_unit_test(test_put_row_bad_cell),
	    cmocka_unit_test(test_take_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
