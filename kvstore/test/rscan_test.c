/*
 * rscan_test.c — reverse scans with and without limits against a forward
 * scan of the same range reversed, on a table of many small blocks whose
 * rows are spread over the memstore and several files with several
 * versions and deletes, through flushes and minor and major compactions.
 * Short limits exercise the chunks sized from the restart points of a
 * file's blocks (kvstore/rscan.c); reverse scans are read cell by cell or
 * row by row (kv_iter_row), or with a column mask (kv_iter_row_sel).
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

#define NROWS 3000
#define NQUAL 4

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

static void rowname(char *b, size_t n, int i)
{
	snprintf(b, n, "r%05d", i);
}

/* Rows of a scan, each as one string of its cells; caller frees. */
typedef struct rows {
	char **r;
	size_t n, cap;
} rows;

static void rows_free(rows *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->r[i]);
	free(x->r);
	memset(x, 0, sizeof(*x));
}

/* The row being built: its cells as text, appended to out. */
typedef struct row_text {
	rows *out;
	char *cur;
	size_t len;
} row_text;

static void new_row(row_text *x)
{
	rows *out = x->out;
	if (out->n == out->cap) {
		out->cap = out->cap ? 2 * out->cap : 256;
		out->r = realloc(out->r, out->cap * sizeof(char *));
	}
	x->cur = calloc(1, 4096);
	out->r[out->n++] = x->cur;
	x->len = 0;
}

static void cell_text(void *arg, const kv_cell *c)
{
	row_text *x = arg;
	assert_non_null(x->cur);
	int n = snprintf(x->cur + x->len, 4096 - x->len, "%.*s/%.*s:%.*s@%llu t%d=%.*s;", (int)c->row.len,
			 (const char *)c->row.data, (int)c->family.len, (const char *)c->family.data,
			 (int)c->qualifier.len, (const char *)c->qualifier.data, (unsigned long long)c->ts,
			 (int)c->type, (int)c->value.len, (const char *)c->value.data);
	assert_true(n > 0 && (size_t)n < 4096 - x->len);
	x->len += (size_t)n;
}

/* by_row: whole rows through kv_iter_row() (reverse scans hand out their
 * chunk's cells directly), sometimes after stepping over a row's first cell
 * with kv_iter_next(); else cell by cell. With o->sel: rows through
 * kv_iter_row_sel() with that mask, each starting with its row's name (a
 * row may pass no cell). */
static void read_rows(kv_table *t, const kv_scan_opts *o, bool by_row, rows *out)
{
	memset(out, 0, sizeof(*out));
	row_text x = {out, NULL, 0};
	kv_iter *it = kv_scan(t, o);
	if (o->sel) {
		while (kv_iter_valid(it)) {
			new_row(&x);
			const kv_cell *c = kv_iter_cell(it);
			x.len = (size_t)snprintf(x.cur, 4096, "%.*s:", (int)c->row.len,
						 (const char *)c->row.data);
			assert_true(kv_iter_row_sel(it, o->sel, o->sel_bits, cell_text, &x) > 0);
		}
	} else if (by_row) {
		while (kv_iter_valid(it)) {
			new_row(&x);
			if (rnd(4) == 0) {
				cell_text(&x, kv_iter_cell(it));
				kv_iter_next(it);
				if (!kv_iter_valid(it) || kv_iter_row_start(it))
					continue;
			}
			assert_true(kv_iter_row(it, cell_text, &x) > 0);
		}
	} else {
		for (; kv_iter_valid(it); kv_iter_next(it)) {
			if (kv_iter_row_start(it))
				new_row(&x);
			cell_text(&x, kv_iter_cell(it));
		}
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
}

/* One random range, read forward and backwards with a random limit. */
static void check_scan(kv_table *t)
{
	kv_scan_opts o = {0};
	char lo[16], hi[16];
	int a = (int)rnd(NROWS + 2) - 1, b = (int)rnd(NROWS + 2) - 1;
	if (rnd(3) == 0 && a >= 0)
		b = a + (int)rnd(80); /* short ranges */
	if (a >= 0) {
		rowname(lo, sizeof lo, a);
		o.start = lo;
		o.start_len = strlen(lo);
		o.start_exclusive = rnd(3) == 0;
	}
	if (b >= 0) {
		rowname(hi, sizeof hi, b);
		if (rnd(4) == 0)
			snprintf(hi + 6, sizeof hi - 6, "x"); /* between two rows */
		o.stop = hi;
		o.stop_len = strlen(hi);
		o.stop_inclusive = rnd(3) == 0;
	}
	o.read.max_versions = 1 + (int)rnd(3);
	/* Sometimes a column mask (kv_scan_opts.sel): the reverse scan buffers
	 * only the cells it passes and each row's first cell; forward scans
	 * ignore it. Qualifiers qN are the 2-byte column ids 'q' << 8 | 'N'. */
	uint64_t mask[('q' << 8 | '4') / 64 + 1] = {0};
	if (rnd(3) == 0) {
		for (int k = 0; k < NQUAL; k++)
			if (rnd(2)) {
				uint32_t id = 'q' << 8 | ('0' + k);
				mask[id / 64] |= (uint64_t)1 << (id % 64);
			}
		o.sel = mask;
		o.sel_bits = rnd(5) ? ('q' << 8 | '4') : ('q' << 8 | '2'); /* q2, q3 beyond nbits */
	}
	rows fwd;
	read_rows(t, &o, false, &fwd);
	uint64_t limits[] = {0, 1, 2, 1 + rnd(25), 20, 1 + rnd(70), 64, 65, 200};
	uint64_t lim = limits[rnd(sizeof limits / sizeof limits[0])];
	o.reverse = true;
	o.limit = lim;
	rows rev;
	bool by_row = rnd(2) == 0;
	read_rows(t, &o, by_row, &rev);
	size_t want = lim && lim < fwd.n ? (size_t)lim : fwd.n;
	if (rev.n != want)
		fail_msg("reverse scan [%d%s, %d%s) limit %llu%s: %zu rows, want %zu", a,
			 o.start_exclusive ? "x" : "", b, o.stop_inclusive ? "i" : "",
			 (unsigned long long)lim, by_row ? " by row" : "", rev.n, want);
	for (size_t i = 0; i < want; i++)
		if (strcmp(rev.r[i], fwd.r[fwd.n - 1 - i]))
			fail_msg("reverse scan [%d, %d) limit %llu%s row %zu:\n got %s\nwant %s", a, b,
				 (unsigned long long)lim, by_row ? " by row" : "", i, rev.r[i],
				 fwd.r[fwd.n - 1 - i]);
	rows_free(&fwd);
	rows_free(&rev);
}

static void put_row(kv_store *s, kv_table *t, int i, int gen)
{
	char r[16], v[32], q[4];
	rowname(r, sizeof r, i);
	kv_batch *bt = kv_batch_new();
	for (int k = 0; k < NQUAL; k++) {
		if (gen && rnd(2))
			continue;
		snprintf(q, sizeof q, "q%d", k);
		snprintf(v, sizeof v, "v%d-%d-%d", i, k, gen);
		kv_batch_put(bt, t, r, strlen(r), k < 3 ? "f" : "g", q, strlen(q), 0, v, strlen(v));
	}
	assert_int_equal(kv_commit(s, bt, NULL, NULL), KV_OK);
	kv_batch_free(bt);
}

static void del_row(kv_store *s, kv_table *t, int i)
{
	char r[16], q[4];
	rowname(r, sizeof r, i);
	switch (rnd(3)) {
	case 0:
		assert_int_equal(kvt_del(s, t, r, "f", NULL, 0, KV_DELETE_FAMILY), KV_OK);
		assert_int_equal(kvt_del(s, t, r, "g", NULL, 0, KV_DELETE_FAMILY), KV_OK);
		break;
	case 1:
		snprintf(q, sizeof q, "q%d", (int)rnd(3));
		assert_int_equal(kvt_del(s, t, r, "f", q, 0, KV_DELETE_COLUMN), KV_OK);
		break;
	default:
		assert_int_equal(kvt_del(s, t, r, "f", NULL, 0, KV_DELETE_FAMILY), KV_OK);
		break;
	}
}

/* A store in a new directory (no background compaction) with table "t"
 * of families f and g in many small blocks, up to 3 versions. */
static void open_table(char **dir, kv_store **s, kv_table **t)
{
	*dir = kvt_tmpdir("rscan");
	kv_store_opts so;
	kv_store_opts_default(&so);
	so.durability = KV_SYNC_NONE;
	so.compaction_threads = -1;
	*s = kvt_open(*dir, &so);
	assert_non_null(*s);
	kv_family_opts fo[2];
	kv_family_opts_default(&fo[0], "f");
	kv_family_opts_default(&fo[1], "g");
	for (int i = 0; i < 2; i++) {
		fo[i].block_size = 512; /* a few rows per block */
		fo[i].max_versions = 3;
	}
	assert_int_equal(kv_table_create(*s, "t", fo, 2), KV_OK);
	*t = NULL;
	assert_int_equal(kv_table_open(*s, "t", t), KV_OK);
}

static void test_reverse_vs_forward(void **state)
{
	(void)state;
	const char *seeds = getenv("KV_RSCAN_SEEDS");
	int nseeds = seeds ? atoi(seeds) : 2;
	for (int seed = 1; seed <= nseeds; seed++) {
		rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)seed;
		char *dir;
		kv_store *s;
		kv_table *t;
		open_table(&dir, &s, &t);
		/* Memstore only, then most rows in one file. */
		for (int i = 0; i < NROWS; i += 1 + (int)rnd(3))
			put_row(s, t, i, 0);
		for (int k = 0; k < 20; k++)
			check_scan(t);
		assert_int_equal(kv_table_flush(t), KV_OK);
		for (int round = 0; round < 8; round++) {
			int nops = 50 + (int)rnd(400);
			for (int k = 0; k < nops; k++) {
				int i = (int)rnd(NROWS);
				if (rnd(4) == 0)
					del_row(s, t, i);
				else
					put_row(s, t, i, round + 1);
			}
			for (int k = 0; k < 40; k++)
				check_scan(t);
			switch (rnd(4)) {
			case 0:
				break; /* writes stay in the memstore */
			case 1:
				assert_int_equal(kv_table_flush(t), KV_OK);
				break;
			case 2:
				assert_int_equal(kv_table_flush(t), KV_OK);
				assert_int_equal(kv_table_compact(t, false), KV_OK);
				break;
			default:
				assert_int_equal(kv_table_flush(t), KV_OK);
				assert_int_equal(kv_table_compact(t, true), KV_OK);
				break;
			}
			for (int k = 0; k < 40; k++)
				check_scan(t);
		}
		kv_table_close(t);
		kvt_close_rm(s, dir);
	}
}

/* Key-disjoint files, as a large commit's split merge leaves them: the
 * larger file below the smaller, so that near the top of the table the
 * largest file holds no rows (chunks bounded by the highest bound of the
 * big files, rscan.c choose_lo); then a third file over both. */
static void test_key_disjoint_files(void **state)
{
	(void)state;
	rng_state = 0x2545f4914f6cdd1dull;
	char *dir;
	kv_store *s;
	kv_table *t;
	open_table(&dir, &s, &t);
	for (int i = 0; i < NROWS / 2; i++)
		put_row(s, t, i, 0);
	assert_int_equal(kv_table_flush(t), KV_OK);
	for (int i = NROWS / 2; i < NROWS; i += 3)
		put_row(s, t, i, 0);
	assert_int_equal(kv_table_flush(t), KV_OK);
	for (int k = 0; k < 300; k++)
		check_scan(t);
	for (int i = NROWS / 3; i < NROWS; i += 7)
		put_row(s, t, i, 1);
	for (int k = 0; k < 100; k++)
		check_scan(t); /* and the memstore */
	assert_int_equal(kv_table_flush(t), KV_OK);
	for (int k = 0; k < 100; k++)
		check_scan(t);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reverse_vs_forward),
	    cmocka_unit_test(test_key_disjoint_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
