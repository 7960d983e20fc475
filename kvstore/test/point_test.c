/*
 * point_test.c — kv_get's point-read path (point.c) against a one-row scan
 * (the scan path kv_get used before) on the same store: random puts with
 * and without explicit timestamps, every delete kind and row deletes,
 * spread over memstores, flushed files and minor/major compactions, read
 * back with random read options (past read timestamps, versions, time
 * ranges, column selections, dropped families' leftovers). Every read must
 * give the same cells in the same order.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "kv_int.h"
#include "kvt_util.h"

#define NROWS  12
#define NQUALS 5
static const char *const FAMS[] = {"a", "b", "c"};
static const char *const QUALS[NQUALS] = {"", "q1", "q10", "q2", "x"};

static uint64_t rng;
static int nrows = NROWS; /* rows written and read (fewer: more versions each) */

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void rowname(char *b, int i)
{
	snprintf(b, 8, "r%02d", i);
}

/* The row as the scan path reads it: cells copied into a. */
static kv_status scan_row(kv_table *t, const char *row, const kv_read_opts *ro, util_arena *a, kv_row *out)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read = *ro;
	so.start = so.stop = row;
	so.start_len = so.stop_len = strlen(row);
	so.stop_inclusive = true;
	kv_iter *it = kv_scan(t, &so);
	size_t cap = 64;
	out->cells = util_arena_alloc(a, cap * sizeof(kv_cell));
	out->n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		assert_true(out->n < cap);
		const kv_cell *c = kv_iter_cell(it);
		kv_cell *d = &out->cells[out->n++];
		*d = *c;
		d->row.data = util_arena_memdup_nz(a, c->row.data, c->row.len);
		d->family.data = util_arena_memdup_nz(a, c->family.data, c->family.len);
		d->qualifier.data = util_arena_memdup_nz(a, c->qualifier.data, c->qualifier.len);
		d->value.data = util_arena_memdup_nz(a, c->value.data, c->value.len);
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}

static bool slice_eq(kv_slice x, kv_slice y)
{
	return x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len));
}

static void dump(const char *what, const kv_row *r)
{
	fprintf(stderr, "%s (%zu cells):\n", what, r->n);
	for (size_t i = 0; i < r->n; i++) {
		const kv_cell *c = &r->cells[i];
		fprintf(stderr, "  %.*s %.*s:%.*s @%llu type %d = %.*s\n", (int)c->row.len,
			(const char *)c->row.data, (int)c->family.len, (const char *)c->family.data,
			(int)c->qualifier.len, (const char *)c->qualifier.data, (unsigned long long)c->ts,
			c->type, (int)c->value.len, (const char *)c->value.data);
	}
}

static void compare(kv_table *t, const char *row, const kv_read_opts *ro, int *nonempty)
{
	util_arena *a = util_arena_new(4096, 0);
	kv_row g, s;
	kv_status gst = kv_get(t, row, strlen(row), ro, a, &g);
	kv_status sst = scan_row(t, row, ro, a, &s);
	assert_int_equal(gst, sst);
	bool same = g.n == s.n;
	for (size_t i = 0; same && i < g.n; i++) {
		const kv_cell *x = &g.cells[i], *y = &s.cells[i];
		same = slice_eq(x->row, y->row) && slice_eq(x->family, y->family) &&
		       slice_eq(x->qualifier, y->qualifier) && slice_eq(x->value, y->value) &&
		       x->ts == y->ts && x->type == y->type;
	}
	if (!same) {
		fprintf(stderr, "row %s read_ts %llu maxv %d min_ts %llu max_ts %llu ncols %d\n", row,
			(unsigned long long)ro->read_ts, ro->max_versions, (unsigned long long)ro->min_ts,
			(unsigned long long)ro->max_ts, ro->ncolumns);
		dump("kv_get", &g);
		dump("scan", &s);
	}
	assert_true(same);
	if (g.n)
		(*nonempty)++;
	util_arena_destroy(a);
}

static void random_write(kv_store *s, kv_table *t, kv_ts *ts_hint)
{
	char row[8], val[24];
	rowname(row, (int)rnd((uint64_t)nrows));
	const char *fam = FAMS[rnd(3)];
	const char *q = QUALS[rnd(NQUALS)];
	/* Explicit timestamps go into the past of the commits, so older and
	 * newer versions land in any source order. */
	kv_ts ts = rnd(3) ? KV_TS_LATEST : (kv_ts)(*ts_hint - rnd(2000));
	kv_batch *b = kv_batch_new();
	int kind = (int)rnd(20);
	if (kind < 13) {
		snprintf(val, sizeof val, "v%llu", (unsigned long long)rnd(1000000));
		kv_batch_put(b, t, row, strlen(row), fam, q, strlen(q), ts, val, strlen(val));
	} else if (kind < 15) {
		kv_batch_delete(b, t, row, strlen(row), fam, q, strlen(q), ts, KV_DELETE);
	} else if (kind < 17) {
		kv_batch_delete(b, t, row, strlen(row), fam, q, strlen(q), ts, KV_DELETE_COLUMN);
	} else if (kind < 18) {
		kv_batch_delete(b, t, row, strlen(row), fam, NULL, 0, ts, KV_DELETE_FAMILY);
	} else if (kind < 19) {
		kv_ts v = ts == KV_TS_LATEST ? (kv_ts)(*ts_hint - rnd(2000)) : ts;
		kv_batch_delete(b, t, row, strlen(row), fam, NULL, 0, v, KV_DELETE_FAMILY_VERSION);
	} else {
		kv_batch_delete_row(b, t, row, strlen(row), ts);
	}
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, NULL, &cts), KV_OK);
	kv_batch_free(b);
	if (cts > *ts_hint)
		*ts_hint = cts;
}

static void random_read(kv_table *t, kv_ts now, int *nonempty)
{
	char row[8];
	rowname(row, (int)rnd((uint64_t)nrows));
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	if (rnd(3) == 0)
		ro.read_ts = now - rnd(3000);
	if (rnd(3) == 0)
		ro.max_versions = 1 + (int)rnd(4);
	if (rnd(5) == 0)
		ro.min_ts = now - rnd(3000);
	if (rnd(5) == 0)
		ro.max_ts = now - rnd(3000);
	kv_column cols[4];
	int n = 0;
	switch (rnd(5)) {
	case 0: /* one family */
		cols[n++] = (kv_column){FAMS[rnd(3)], NULL, 0};
		break;
	case 1: { /* qualifiers of one family, sorted or not */
		const char *f = FAMS[rnd(3)];
		int k = 1 + (int)rnd(3);
		for (int i = 0; i < k; i++) {
			const char *q = QUALS[rnd(NQUALS)];
			cols[n++] = (kv_column){f, q, strlen(q)};
		}
		break;
	}
	case 2: /* two families, one with a qualifier */
		cols[n++] = (kv_column){"a", NULL, 0};
		cols[n++] = (kv_column){"c", "q1", 2};
		break;
	default:
		break;
	}
	ro.columns = n ? cols : NULL;
	ro.ncolumns = n;
	compare(t, row, &ro, nonempty);
}

/* A store without fsyncs or background compactions (the tests compact). */
static kv_store *open_quiet(const char *dir)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.compaction_threads = -1;
	kv_store *s = kvt_open(dir, &o);
	assert_non_null(s);
	return s;
}

/* rows: how many rows; steps: writes; flush_per_mille: chance of a flush
 * (and of a compaction) after each write. */
static void run_seed(uint64_t seed, int rows, int steps, int flush_per_mille)
{
	rng = seed;
	nrows = rows;
	char *dir = kvt_tmpdir("point");
	kv_store *s = open_quiet(dir);
	kv_family_opts fo[3];
	for (int i = 0; i < 3; i++) {
		kv_family_opts_default(&fo[i], FAMS[i]);
		fo[i].block_size = 512; /* many blocks */
	}
	fo[1].max_versions = 3;
	fo[1].bloom = KV_BLOOM_ROWCOL;
	fo[2].max_versions = 2;
	fo[2].ttl_seconds = 3600;
	fo[2].min_versions = 1;
	assert_int_equal(kv_table_create(s, "p", fo, 3), KV_OK);
	kv_table *t = NULL;
	assert_int_equal(kv_table_open(s, "p", &t), KV_OK);

	kv_ts now = kv_read_point(s);
	int nonempty = 0;
	for (int step = 0; step < steps; step++) {
		random_write(s, t, &now);
		if (step % 3 == 0)
			random_read(t, now, &nonempty);
		uint64_t r = rnd(1000);
		if (r < (uint64_t)flush_per_mille)
			assert_int_equal(kv_table_flush(t), KV_OK);
		else if (r < (uint64_t)flush_per_mille * 4 / 3)
			assert_int_equal(kv_table_compact(t, rnd(2) == 0), KV_OK);
	}
	/* Every row with every read option kind once more, across all sources. */
	for (int i = 0; i < 400; i++)
		random_read(t, now, &nonempty);
	assert_int_equal(kv_table_flush(t), KV_OK);
	for (int i = 0; i < 200; i++)
		random_read(t, now, &nonempty);
	assert_true(nonempty > 100); /* the reads did find rows */
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static void test_point_vs_scan(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		run_seed(0x9e3779b97f4a7c15ull * seed, NROWS, 1500, 30);
}

/* Hot rows: two rows take thousands of writes, so each column holds tens to
 * hundreds of versions in the memstore (and in files after the rare
 * flushes), interleaved with delete markers of every kind. The point path
 * keeps only the versions a read can show (point.c, collect) and must
 * still give the scan's cells. */
static void test_many_versions(void **state)
{
	(void)state;
	for (uint64_t seed = 11; seed <= 14; seed++)
		run_seed(0x9e3779b97f4a7c15ull * seed, 2, 4000, 2);
}

/* The row's cells a scan from min_ts on shows (raw: markers too, as an
 * UPDATE's recheck reads it), and how many source cells it looked at. */
static size_t scan_from(kv_table *t, const char *row, kv_ts min_ts, bool raw, uint64_t *looked)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.min_ts = min_ts;
	so.read.raw = raw;
	so.start = so.stop = row;
	so.start_len = so.stop_len = strlen(row);
	so.stop_inclusive = true;
	kv_iter *it = kv_scan(t, &so);
	size_t n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	assert_int_equal(kv_iter_status(it), KV_OK);
	*looked = scan_cells_looked(it);
	kv_iter_close(it);
	return n;
}

/* A hot packed row (docs/row-format.md): every update puts a new sentinel
 * (empty qualifier) with the whole row as its value. A point read, and a
 * scan from a recent min_ts, look at a bounded number of cells however
 * many versions pile up in the memstore or in files; a family delete
 * marker among the dropped versions still hides an older cell of another
 * column (the point read goes to the scan then). */
/* A table of family "d" with one cell: row, qualifier "c", value. */
static kv_table *one_cell_table(kv_store *s, const char *name, const char *row, const char *val)
{
	const char *fams[] = {"d"};
	kv_table *t = kvt_table(s, name, 1, fams);
	assert_non_null(t);
	assert_int_equal(kvt_put(s, t, row, "d", "c", KV_TS_LATEST, val), KV_OK);
	return t;
}

static void delete_family(kv_store *s, kv_table *t, const char *row)
{
	kv_batch *b = kv_batch_new();
	kv_batch_delete(b, t, row, strlen(row), "d", NULL, 0, KV_TS_LATEST, KV_DELETE_FAMILY);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
}

static void test_hot_sentinel(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("point_hot");
	kv_store *s = open_quiet(dir);
	/* Row "old": a column cell, then a family delete, then hot updates. */
	kv_table *t = one_cell_table(s, "hot", "old", "gone");
	delete_family(s, t, "old");
	char val[100];
	util_arena *a = util_arena_new(4096, 0);
	kv_row r;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 3000; i++) {
			snprintf(val, sizeof val,
				 "%d.%d-------------------------------------------------------", pass, i);
			assert_int_equal(kvt_put(s, t, "hot", "d", "", KV_TS_LATEST, val), KV_OK);
			assert_int_equal(kvt_put(s, t, "old", "d", "", KV_TS_LATEST, val), KV_OK);
		}
		kv_ts before = kv_read_point(s);
		assert_int_equal(kvt_put(s, t, "hot", "d", "", KV_TS_LATEST, val), KV_OK);
		uint64_t looked;
		assert_int_equal(scan_from(t, "hot", before + 1, true, &looked), 1);
		assert_true(looked <= 8);
		assert_int_equal(scan_from(t, "hot", before + 1, false, &looked), 1);
		assert_true(looked <= 8);
		assert_int_equal(scan_from(t, "hot", kv_read_point(s) + 1, true, &looked), 0);
		assert_true(looked <= 8);
		assert_int_equal(kv_get(t, "hot", 3, NULL, a, &r), KV_OK);
		assert_true(point_last_steps() <= 8);
		assert_int_equal(r.n, 1);
		assert_int_equal(r.cells[0].value.len, strlen(val));
		assert_memory_equal(r.cells[0].value.data, val, strlen(val));
		/* The dropped marker hides "c": the scan path answers. */
		kv_read_opts ro = {0};
		compare(t, "old", &ro, &(int){0});
		assert_int_equal(kv_get(t, "old", 3, NULL, a, &r), KV_OK);
		assert_int_equal(r.n, 1);
		assert_int_equal(r.cells[0].qualifier.len, 0);
		util_arena_reset(a);
		assert_int_equal(kv_table_flush(t), KV_OK); /* pass 1: a file and the memstore */
	}
	assert_int_equal(kv_get(t, "hot", 3, NULL, a, &r), KV_OK);
	assert_true(point_last_steps() <= 8);
	util_arena_destroy(a);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* The same hot sentinel read by a whole-table scan without min_ts (a
 * sequential scan of pgbench_branches): while no source holds a family
 * marker the scan seeks past the sentinel's older versions, in the memstore
 * and in a flushed file; once one does it walks them again (and still
 * answers right). */
static void test_hot_sentinel_scan(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("point_hot_scan");
	kv_store *s = open_quiet(dir);
	kv_table *t = one_cell_table(s, "hotscan", "a", "cell");
	char val[100];
	for (int pass = 0; pass < 3; pass++) {
		for (int i = 0; i < 3000; i++) {
			snprintf(val, sizeof val, "%d.%d-------------------------------------------", pass,
				 i);
			assert_int_equal(kvt_put(s, t, "hot", "d", "", KV_TS_LATEST, val), KV_OK);
		}
		kv_scan_opts so;
		memset(&so, 0, sizeof so);
		kv_iter *it = kv_scan(t, &so);
		size_t n = 0;
		bool newest = false;
		for (; kv_iter_valid(it); kv_iter_next(it)) {
			const kv_cell *c = kv_iter_cell(it);
			n++;
			if (c->row.len == 3 && c->value.len == strlen(val) &&
			    !memcmp(c->value.data, val, strlen(val)))
				newest = true;
		}
		assert_int_equal(kv_iter_status(it), KV_OK);
		uint64_t looked = scan_cells_looked(it);
		kv_iter_close(it);
		assert_int_equal(n, pass < 2 ? 2 : 1); /* "a"'s cell, the hot row's newest sentinel */
		assert_true(newest);
		if (pass < 2)
			assert_true(looked <= 16);
		else
			assert_true(looked >= 3000); /* a family marker in the memstore: walked */
		if (pass == 0)
			assert_int_equal(kv_table_flush(t), KV_OK); /* pass 1: a file and the memstore */
		if (pass == 1)
			delete_family(s, t, "a");
	}
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* A row too big for the point path's buffer falls back to the scan and
 * still reads whole. */
static void test_big_row(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("point_big");
	kv_store *s = kvt_open(dir, NULL);
	assert_non_null(s);
	const char *fams[] = {"d"};
	kv_table *t = kvt_table(s, "big", 1, fams);
	assert_non_null(t);
	kv_batch *b = kv_batch_new();
	char val[1000];
	memset(val, 'z', sizeof val);
	for (int i = 0; i < 300; i++) {
		char q[8];
		snprintf(q, sizeof q, "c%03d", i);
		kv_batch_put(b, t, "row", 3, "d", q, strlen(q), KV_TS_LATEST, val, sizeof val);
	}
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	util_arena *a = util_arena_new(4096, 0);
	for (int pass = 0; pass < 2; pass++) {
		kv_row r;
		assert_int_equal(kv_get(t, "row", 3, NULL, a, &r), KV_OK);
		assert_int_equal(r.n, 300);
		assert_int_equal(r.cells[299].value.len, sizeof val);
		assert_memory_equal(r.cells[299].qualifier.data, "c299", 4);
		util_arena_reset(a);
		assert_int_equal(kv_table_flush(t), KV_OK);
	}
	util_arena_destroy(a);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* The point read's per-thread superversion cache (sv_local.c): a thread
 * that keeps cached entries for two tables sees every commit, flush and
 * compaction of the main thread; its idle entries do not keep replaced
 * files on disk (installs scrape them), and closing the tables and store
 * while it still lives leaves nothing behind (ASan). */
typedef struct tc_reader {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	kv_table *t[2];
	int step, done; /* main bumps step; the reader sets done = step */
	char got[2][32];
	bool quit;
} tc_reader;

static void *tc_main(void *arg)
{
	tc_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (r->done == r->step && !r->quit)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->quit)
			break;
		for (int i = 0; i < 2; i++)
			kvt_get(r->t[i], "k", "d", "q", 0, r->got[i], sizeof r->got[i]);
		r->done = r->step;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

static void tc_read(tc_reader *r)
{
	pthread_mutex_lock(&r->mu);
	r->step++;
	pthread_cond_broadcast(&r->cv);
	while (r->done != r->step)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

static void test_thread_cache(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("point_tc");
	kv_store *s = kvt_open(dir, NULL);
	assert_non_null(s);
	const char *fams[] = {"d"};
	tc_reader r = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	r.t[0] = kvt_table(s, "tc0", 1, fams);
	r.t[1] = kvt_table(s, "tc1", 1, fams);
	assert_non_null(r.t[0]);
	assert_non_null(r.t[1]);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, tc_main, &r), 0);
	for (int i = 0; i < 40; i++) {
		char v[2][32];
		for (int j = 0; j < 2; j++) {
			snprintf(v[j], sizeof v[j], "v%d.%d", i, j);
			assert_int_equal(kvt_put(s, r.t[j], "k", "d", "q", KV_TS_LATEST, v[j]), KV_OK);
		}
		if (i % 3 == 1)
			assert_int_equal(kv_table_flush(r.t[i % 2]), KV_OK);
		if (i % 8 == 7)
			assert_int_equal(kv_table_compact(r.t[0], true), KV_OK);
		tc_read(&r);
		assert_string_equal(r.got[0], v[0]);
		assert_string_equal(r.got[1], v[1]);
	}
	/* The reader is idle with entries cached: a major compaction's inputs
	 * still go from the disk. */
	assert_int_equal(kv_table_flush(r.t[0]), KV_OK);
	assert_int_equal(kv_table_flush(r.t[1]), KV_OK);
	tc_read(&r);
	assert_int_equal(kv_table_compact(r.t[0], true), KV_OK);
	assert_int_equal(kv_table_compact(r.t[1], true), KV_OK);
	assert_int_equal(kvt_file_count(r.t[0]), 1);
	assert_int_equal(kvt_file_count(r.t[1]), 1);
	assert_int_equal(kvt_count_ssts(dir), 2);
	kv_table_close(r.t[0]);
	kv_table_close(r.t[1]);
	kvt_close_rm(s, dir);
	pthread_mutex_lock(&r.mu);
	r.quit = true;
	pthread_cond_broadcast(&r.cv);
	pthread_mutex_unlock(&r.mu);
	pthread_join(th, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_point_vs_scan),
	    cmocka_unit_test(test_big_row),
	    cmocka_unit_test(test_many_versions),
	    cmocka_unit_test(test_hot_sentinel),
	    cmocka_unit_test(test_hot_sentinel_scan),
	    cmocka_unit_test(test_thread_cache),
	};
	/* The tsan suite runs the threaded tests only (tests/tsan/run.sh). */
	if (getenv("STRATA_UNIT_FILTER"))
		cmocka_set_test_filter(getenv("STRATA_UNIT_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
