/* scanfast_test.c — the plain-scan fast path (kvstore/scan.c,
 * advance_fast) and whole-row reading (kv_iter_row): every scan is checked
 * against a model of the newest (or as-of) version of each cell, with the
 * fast path on (one sorted file, no markers, all cells visible) and off
 * (an older read timestamp, a memstore, several files, delete markers), by
 * kv_iter_next and by kv_iter_row alike; bounds, limits, seeks; the block
 * cache policy of no_cache scans (cache_small); random rows and qualifiers
 * that are prefixes of each other, with old versions kept, against a model
 * (the fast path's row and column tests from the blocks' prefix counts, and
 * the new row's bytes it copies from the block); column skipping
 * (kv_iter_row_sel) on the same data against the model. The row loop
 * steps a sorted file's block iterator itself (iter.h `blk`): the same
 * models cover it on one file, with block sizes that put block ends and
 * restarts inside rows, and on a chain of key-disjoint files (a large
 * commit spilled in several runs); rows skipped by a test in the kv loop
 * (kv_iter_skip_rows), also on rows shaped as SQL's (a sentinel and 2-byte
 * column ids, some missing: the loop over a block's entries); rows whose
 * values are held past the call (kv_iter_row_hold) and let go when the
 * scan leaves their block. */
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

#define NROWS 120
#define NCOLS 5 /* the empty qualifier (the row's sentinel) and c1..c4 */

static const char *const FAMS[] = {"d"};

typedef struct env {
	char *dir;
	kv_store *s;
	kv_table *t;
	char newest[NROWS][NCOLS][24];
	char first[NROWS][NCOLS][24]; /* as of ts_first */
	kv_ts ts_first;
} env;

static void qual(int c, char *q)
{
	if (c == 0)
		q[0] = 0;
	else
		snprintf(q, 4, "c%d", c);
}

static void row_name(int r, char *b)
{
	snprintf(b, 8, "r%03d", r);
}

/* One commit: (row, col) pairs chosen by fn get value "<tag>-<row>-<col>". */
static kv_ts write_round(env *e, const char *tag, bool (*pick)(int r, int c))
{
	kv_batch *b = kv_batch_new();
	for (int r = 0; r < NROWS; r++)
		for (int c = 0; c < NCOLS; c++) {
			if (!pick(r, c))
				continue;
			char rn[8], q[4], v[24];
			row_name(r, rn);
			qual(c, q);
			snprintf(v, sizeof v, "%s-%d-%d", tag, r, c);
			kv_batch_put(b, e->t, rn, strlen(rn), "d", q, strlen(q), KV_TS_LATEST, v, strlen(v));
			snprintf(e->newest[r][c], sizeof e->newest[r][c], "%s", v);
		}
	kv_ts ts = 0;
	assert_int_equal(kv_commit(e->s, b, NULL, &ts), KV_OK);
	kv_batch_free(b);
	return ts;
}

static bool all(int r, int c)
{
	(void)r;
	(void)c;
	return true;
}
static bool every3_c1(int r, int c)
{
	return r % 3 == 0 && c == 1;
}
static bool every5_c2_every7_c1(int r, int c)
{
	return (r % 5 == 0 && c == 2) || (r % 7 == 0 && c == 1);
}
static bool every4_sentinel(int r, int c)
{
	return r % 4 == 0 && c == 0;
}

static int setup(void **state)
{
	env *e = calloc(1, sizeof(*e));
	e->dir = kvt_tmpdir("scanfast");
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.compaction_threads = -1; /* the tests decide the file set */
	e->s = kvt_open(e->dir, &o);
	/* Small blocks: scans cross many blocks, reverse scans many chunks. */
	kv_family_opts fo;
	kv_family_opts_default(&fo, FAMS[0]);
	fo.block_size = 512;
	if (e->s && kv_table_create(e->s, "t", &fo, 1) == KV_OK)
		kv_table_open(e->s, "t", &e->t);
	*state = e;
	if (!e->t)
		return -1;
	e->ts_first = write_round(e, "R1", all);
	memcpy(e->first, e->newest, sizeof e->first);
	write_round(e, "R2", every3_c1);
	write_round(e, "R3", every5_c2_every7_c1);
	write_round(e, "R4", every4_sentinel); /* a second version of the sentinel */
	assert_int_equal(kv_table_flush(e->t), KV_OK);
	return 0;
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

/* The model's text of rows [from, to): "row/qual=value;" per cell, in the
 * store's order (the empty qualifier first). */
static void model(char (*m)[NCOLS][24], int from, int to, util_buf *out)
{
	util_buf_reset(out);
	for (int r = from; r < to; r++)
		for (int c = 0; c < NCOLS; c++) {
			char rn[8], q[4], line[64];
			row_name(r, rn);
			qual(c, q);
			int n = snprintf(line, sizeof line, "%s/%s=%s;", rn, q, m[r][c]);
			util_buf_append(out, line, (size_t)n);
		}
}

static void put_cell(util_buf *out, const kv_cell *c)
{
	char line[96];
	int n = snprintf(line, sizeof line, "%.*s/%.*s=%.*s;", (int)c->row.len, (const char *)c->row.data,
			 (int)c->qualifier.len, (const char *)c->qualifier.data, (int)c->value.len,
			 (const char *)c->value.data);
	util_buf_append(out, line, (size_t)n);
}

typedef struct rowacc {
	util_buf *out;
	int cells;
} rowacc;

static void acc_cell(void *arg, const kv_cell *c)
{
	rowacc *a = arg;
	put_cell(a->out, c);
	a->cells++;
}

/* Reads the whole scan by kv_iter_next and by kv_iter_row; both texts must
 * be equal (checked here) and are returned in out. *fast: the scan's mode. */
static void read_both(env *e, const kv_scan_opts *o, util_buf *out, bool *fast)
{
	util_buf a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	kv_iter *it = kv_scan(e->t, o);
	*fast = scan_is_fast(it);
	int rows = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		rows += kv_iter_row_start(it);
		put_cell(&a, kv_iter_cell(it));
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	it = kv_scan(e->t, o);
	assert_int_equal(scan_is_fast(it), *fast);
	int rows2 = 0;
	rowacc acc = {&b, 0};
	while (kv_iter_valid(it)) {
		size_t n = kv_iter_row(it, acc_cell, &acc);
		assert_true(n > 0);
		rows2++;
	}
	assert_int_equal(kv_iter_row(it, acc_cell, &acc), 0);
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	assert_int_equal(rows, rows2);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	util_buf_reset(out);
	util_buf_append(out, a.data, a.len);
	util_buf_free(&a);
	util_buf_free(&b);
}

static void expect_text(const util_buf *got, const util_buf *want)
{
	if (got->len != want->len || memcmp(got->data, want->data, got->len)) {
		fprintf(stderr, "got:  %.*s\nwant: %.*s\n", (int)got->len, got->data, (int)want->len,
			want->data);
		fail();
	}
}

static void test_newest_and_as_of(void **state)
{
	env *e = *state;
	util_buf got = UTIL_BUF_INIT, want = UTIL_BUF_INIT;
	bool fast;
	kv_scan_opts o = {0};
	read_both(e, &o, &got, &fast);
	assert_true(fast); /* one file, no markers, everything visible */
	model(e->newest, 0, NROWS, &want);
	expect_text(&got, &want);
	/* As of the first commit the file holds newer cells: the matcher. */
	o.read.read_ts = e->ts_first;
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	model(e->first, 0, NROWS, &want);
	expect_text(&got, &want);
	/* Extra versions, time ranges, filters and column lists: the matcher. */
	memset(&o, 0, sizeof o);
	o.read.max_versions = 2;
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	memset(&o, 0, sizeof o);
	o.read.min_ts = 1;
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	model(e->newest, 0, NROWS, &want);
	expect_text(&got, &want);
	kv_column col = {"d", "c2", 2};
	memset(&o, 0, sizeof o);
	o.read.columns = &col;
	o.read.ncolumns = 1;
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	util_buf_free(&got);
	util_buf_free(&want);
}

static void test_bounds_limit_seek(void **state)
{
	env *e = *state;
	util_buf got = UTIL_BUF_INIT, want = UTIL_BUF_INIT;
	bool fast;
	kv_scan_opts o = {0};
	o.start = "r010";
	o.start_len = 4;
	o.stop = "r020";
	o.stop_len = 4;
	read_both(e, &o, &got, &fast);
	assert_true(fast);
	model(e->newest, 10, 20, &want);
	expect_text(&got, &want);
	o.stop_inclusive = true;
	o.start_exclusive = true;
	read_both(e, &o, &got, &fast);
	model(e->newest, 11, 21, &want);
	expect_text(&got, &want);
	memset(&o, 0, sizeof o);
	o.limit = 7;
	read_both(e, &o, &got, &fast);
	assert_true(fast);
	model(e->newest, 0, 7, &want);
	expect_text(&got, &want);
	/* Seeks and row skips in the fast mode. */
	memset(&o, 0, sizeof o);
	kv_iter *it = kv_scan(e->t, &o);
	assert_true(scan_is_fast(it));
	kv_iter_next(it); /* into row 0 */
	kv_iter_seek_row(it, "r100", 4);
	assert_true(kv_iter_valid(it));
	util_buf_reset(&got);
	put_cell(&got, kv_iter_cell(it));
	kv_iter_next_row(it);
	put_cell(&got, kv_iter_cell(it));
	kv_iter_seek_row(it, "r050x", 5); /* between rows: the next one */
	put_cell(&got, kv_iter_cell(it));
	util_buf_reset(&want);
	util_buf b = UTIL_BUF_INIT;
	model(e->newest, 100, 101, &b);
	util_buf_append(&want, b.data, strchr(b.data, ';') + 1 - b.data);
	model(e->newest, 101, 102, &b);
	util_buf_append(&want, b.data, strchr(b.data, ';') + 1 - b.data);
	model(e->newest, 51, 52, &b);
	util_buf_append(&want, b.data, strchr(b.data, ';') + 1 - b.data);
	expect_text(&got, &want);
	kv_iter_seek_row(it, "s", 1);
	assert_false(kv_iter_valid(it));
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	util_buf_free(&b);
	util_buf_free(&got);
	util_buf_free(&want);
}

static void test_other_sources(void **state)
{
	env *e = *state;
	util_buf got = UTIL_BUF_INIT, want = UTIL_BUF_INIT;
	bool fast;
	kv_scan_opts o = {0};
	/* A memstore next to the file. */
	assert_int_equal(kvt_put(e->s, e->t, "r005", "d", "c3", KV_TS_LATEST, "mem"), KV_OK);
	snprintf(e->newest[5][3], sizeof e->newest[5][3], "mem");
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	model(e->newest, 0, NROWS, &want);
	expect_text(&got, &want);
	/* Two files. */
	assert_int_equal(kv_table_flush(e->t), KV_OK);
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	expect_text(&got, &want);
	/* A major compaction leaves one file with one version per cell. */
	assert_int_equal(kv_table_compact(e->t, true), KV_OK);
	read_both(e, &o, &got, &fast);
	assert_true(fast);
	expect_text(&got, &want);
	util_buf_free(&got);
	util_buf_free(&want);
}

static void test_markers(void **state)
{
	env *e = *state;
	util_buf got = UTIL_BUF_INIT, want = UTIL_BUF_INIT;
	bool fast;
	kv_scan_opts o = {0};
	/* A file holding delete markers: the matcher applies them. */
	assert_int_equal(kvt_del(e->s, e->t, "r007", "d", "c4", KV_TS_LATEST, KV_DELETE_COLUMN), KV_OK);
	assert_int_equal(kv_table_flush(e->t), KV_OK);
	assert_int_equal(kv_table_compact(e->t, false), KV_OK); /* minor: the marker stays */
	read_both(e, &o, &got, &fast);
	assert_false(fast);
	e->newest[7][4][0] = 0;
	model(e->newest, 0, NROWS, &want);
	/* The model prints "r007/c4=;" for the deleted cell: drop it. */
	char *p = strstr(want.data, "r007/c4=;");
	assert_non_null(p);
	memmove(p, p + 9, want.len - (size_t)(p + 9 - want.data));
	want.len -= 9;
	expect_text(&got, &want);
	util_buf_free(&got);
	util_buf_free(&want);
}

/* Reverse scans with small limits count the chunk's rows first and copy
 * only the last ones (kvstore/rscan.c): rows descending, cells ascending. */
static void test_reverse_limits(void **state)
{
	env *e = *state;
	static const uint64_t limits[] = {1, 3, 20, 64, 65, 200, 0};
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) /* a memstore next to the file */
			assert_int_equal(kvt_put(e->s, e->t, "r050", "d", "c2", KV_TS_LATEST, "m50"), KV_OK);
		if (pass == 1)
			snprintf(e->newest[50][2], sizeof e->newest[50][2], "m50");
		for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
			for (int bounded = 0; bounded < 2; bounded++) {
				kv_scan_opts o = {0};
				o.reverse = true;
				o.limit = limits[li];
				int from = 0, to = NROWS;
				if (bounded) {
					o.start = "r010";
					o.start_len = 4;
					o.stop = "r090";
					o.stop_len = 4;
					from = 10;
					to = 90;
				}
				util_buf got = UTIL_BUF_INIT, want = UTIL_BUF_INIT, one = UTIL_BUF_INIT;
				kv_iter *it = kv_scan(e->t, &o);
				for (; kv_iter_valid(it); kv_iter_next(it))
					put_cell(&got, kv_iter_cell(it));
				assert_int_equal(kv_iter_status(it), KV_OK);
				kv_iter_close(it);
				int n = o.limit && (int)o.limit < to - from ? (int)o.limit : to - from;
				for (int r = to - 1; r >= to - n; r--) {
					model(e->newest, r, r + 1, &one);
					util_buf_append(&want, one.data, one.len);
				}
				expect_text(&got, &want);
				util_buf_free(&got);
				util_buf_free(&want);
				util_buf_free(&one);
			}
		}
	}
}

/* no_cache keeps a scan's blocks out of the cache unless cache_small is set
 * and the table is small next to the cache. */
static void test_cache_small(void **state)
{
	env *e = *state;
	kv_store_stats a, b;
	kv_scan_opts o = {0};
	o.read.no_cache = true;
	kv_store_get_stats(e->s, &a);
	kv_iter *it = kv_scan(e->t, &o);
	while (kv_iter_valid(it))
		kv_iter_next(it);
	kv_iter_close(it);
	kv_store_get_stats(e->s, &b);
	assert_int_equal(a.cache_bytes, b.cache_bytes);
	o.read.cache_small = true;
	it = kv_scan(e->t, &o);
	while (kv_iter_valid(it))
		kv_iter_next(it);
	kv_iter_close(it);
	kv_store_get_stats(e->s, &b);
	assert_true(b.cache_bytes > a.cache_bytes);
}

/* ---------------------------------------------------------------- random */

#define RN_ROWS   60
#define RN_QUALS  6
#define RN_ROUNDS 5

/* Rows and qualifiers that are prefixes of one another ("a", "aa", "ab",
 * "aab", ...) and of varied length, so that neighbouring keys share more or
 * fewer bytes than a row or a column holds. */
static void rn_name(unsigned x, int minlen, char *b)
{
	int n = minlen + (int)(x % 6);
	for (int i = 0; i < n; i++) {
		b[i] = (char)('a' + (x >> (2 + i)) % 2);
	}
	b[n] = 0;
}

typedef struct rn_model {
	char row[RN_ROWS][12];
	char q[RN_QUALS][12];
	char val[RN_ROWS][RN_QUALS][32]; /* "" = no cell */
	kv_ts ts[RN_ROWS][RN_QUALS];     /* the newest version's commit */
} rn_model;

/* A cell with its timestamp and type. */
static void rn_put(util_buf *out, const kv_cell *c)
{
	char line[128];
	int n =
	    snprintf(line, sizeof line, "%.*s/%.*s@%llu.%d=%.*s;", (int)c->row.len, (const char *)c->row.data,
		     (int)c->qualifier.len, (const char *)c->qualifier.data, (unsigned long long)c->ts,
		     (int)c->type, (int)c->value.len, (const char *)c->value.data);
	util_buf_append(out, line, (size_t)n);
}

static void rn_acc(void *arg, const kv_cell *c)
{
	rowacc *a = arg;
	rn_put(a->out, c);
	a->cells++;
}

static int rn_strcmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Distinct sorted names made by rn_name from a random stream. */
static int rn_names(unsigned *seed, char (*out)[12], int want, int minlen)
{
	int n = 0;
	for (int tries = 0; n < want && tries < 10000; tries++) {
		char b[12];
		*seed = *seed * 1103515245u + 12345u;
		rn_name(*seed >> 8, minlen, b);
		bool dup = false;
		for (int i = 0; i < n && !dup; i++)
			dup = !strcmp(out[i], b);
		if (!dup)
			strcpy(out[n++], b);
	}
	qsort(out, (size_t)n, sizeof out[0], rn_strcmp);
	return n;
}

/* The model's cell (r, c) as rn_put writes a cell. */
static void rn_want_cell(const rn_model *m, int r, int c, util_buf *out)
{
	char line[128];
	int n = snprintf(line, sizeof line, "%s/%s@%llu.%d=%s;", m->row[r], m->q[c],
			 (unsigned long long)m->ts[r][c], (int)KV_PUT, m->val[r][c]);
	util_buf_append(out, line, (size_t)n);
}

/* kv_iter_row_sel's rule for the model: 2-byte qualifiers by the mask. */
static bool rn_sel(const uint64_t *mask, uint32_t nbits, const char *q)
{
	if (strlen(q) != 2)
		return true;
	uint32_t id = ((uint32_t)(uint8_t)q[0] << 8) | (uint8_t)q[1];
	return id < nbits && ((mask[id >> 6] >> (id & 63)) & 1);
}

/* Column skipping (kv_iter_row_sel) against the model, forward and reverse:
 * a mask over the 2-byte qualifiers chosen from sel, and an nbits that
 * sometimes leaves the highest one ("bb") out of range. */
static void rn_expect_sel(kv_table *t, const rn_model *m, int nr, int nq, unsigned sel)
{
	static uint64_t mask[0x6300 / 64];
	memset(mask, 0, sizeof mask);
	uint32_t nbits = sel & 1 ? 0x6262 : 0x6300;
	for (int c = 0; c < nq; c++) {
		if (strlen(m->q[c]) != 2)
			continue;
		uint32_t id = ((uint32_t)(uint8_t)m->q[c][0] << 8) | (uint8_t)m->q[c][1];
		if ((sel >> (1 + c)) & 1)
			mask[id >> 6] |= (uint64_t)1 << (id & 63);
	}
	for (int rev = 0; rev < 2; rev++) {
		util_buf want = UTIL_BUF_INIT, got = UTIL_BUF_INIT;
		size_t read_want = 0, read_got = 0;
		for (int i = 0; i < nr; i++) {
			int r = rev ? nr - 1 - i : i;
			for (int c = 0; c < nq; c++) {
				if (!m->val[r][c][0])
					continue;
				read_want++;
				if (!rn_sel(mask, nbits, m->q[c]))
					continue;
				rn_want_cell(m, r, c, &want);
			}
		}
		kv_scan_opts o = {.reverse = rev != 0};
		kv_iter *it = kv_scan(t, &o);
		rowacc acc = {&got, 0};
		while (kv_iter_valid(it))
			read_got += kv_iter_row_sel(it, mask, nbits, rn_acc, &acc);
		assert_int_equal(kv_iter_status(it), KV_OK);
		kv_iter_close(it);
		expect_text(&got, &want);
		assert_int_equal(read_got, read_want); /* skipped cells are counted */
		util_buf_free(&want);
		util_buf_free(&got);
	}
}

/* kv_iter_skip_rows' test in the model: a value whose byte sum is not a
 * multiple of 3 passes. */
static bool rn_pass(const char *v, size_t vl)
{
	unsigned sum = 0;
	for (size_t i = 0; i < vl; i++)
		sum += (uint8_t)v[i];
	return sum % 3 != 0;
}

static bool rn_pass_fn(void *arg, const uint8_t *v, size_t vl)
{
	(*(int *)arg)++;
	return rn_pass((const char *)v, vl);
}

/* One row read by the caller of kv_iter_skip_rows: its cells, and whether
 * its test cell was seen and passed (the caller's own check, as the SQL
 * scan's row builder makes it). */
typedef struct rn_row {
	util_buf cells;
	const char *tq;
	bool seen, ok;
} rn_row;

static void rn_row_cell(void *arg, const kv_cell *c)
{
	rn_row *r = arg;
	rn_put(&r->cells, c);
	if (c->qualifier.len == strlen(r->tq) && !memcmp(c->qualifier.data, r->tq, c->qualifier.len)) {
		r->seen = true;
		r->ok = rn_pass((const char *)c->value.data, c->value.len);
	}
}

/* Rows skipped by a test (kv_iter_skip_rows) against the model: the test
 * on the 2-byte column picked by sel, or (every third sel, when the model
 * has one) on the cell with the empty qualifier (kv_row_test.empty, as
 * SQL's packed rows), a mask from sel with it, at most
 * 1-4 rows skipped per call; rows kept are read in turn with
 * kv_iter_row_sel (masked) and kv_iter_next (every cell, but those read
 * ahead as the mask says), and the caller drops rows whose test fails
 * too. On the fast path every row the test drops is skipped by the
 * store; elsewhere none. */
static void rn_expect_skip(kv_table *t, const rn_model *m, int nr, int nq, unsigned sel, bool fast)
{
	int two[RN_QUALS], n2 = 0;
	for (int c = 0; c < nq; c++)
		if (strlen(m->q[c]) == 2)
			two[n2++] = c;
	bool empty = nq && !m->q[0][0] && sel % 3 == 0; /* names sorted: "" first */
	if (!n2 && !empty)
		return;
	int tc = empty ? 0 : two[sel % (unsigned)n2];
	static uint64_t mask[0x6300 / 64];
	memset(mask, 0, sizeof mask);
	uint32_t nbits = 0x6300;
	for (int c = 0; c < nq; c++) {
		if (strlen(m->q[c]) != 2 || (c != tc && !((sel >> (1 + c)) & 1)))
			continue;
		uint32_t id = ((uint32_t)(uint8_t)m->q[c][0] << 8) | (uint8_t)m->q[c][1];
		mask[id >> 6] |= (uint64_t)1 << (id & 63);
	}
	util_buf want = UTIL_BUF_INIT, got = UTIL_BUF_INIT;
	int kept = 0, rows = 0; /* rows with a cell */
	for (int r = 0; r < nr; r++) {
		bool any = false;
		for (int c = 0; c < nq; c++)
			any = any || m->val[r][c][0];
		rows += any;
		if (!m->val[r][tc][0] || !rn_pass(m->val[r][tc], strlen(m->val[r][tc])))
			continue;
		int first = -1;
		for (int c = 0; c < nq; c++) {
			if (!m->val[r][c][0])
				continue;
			if (first < 0)
				first = c;
			/* kv_iter_row_sel: the mask's cells; kv_iter_next: every
			 * cell, but on the fast path those read ahead are the
			 * mask's (the row's first cell always) */
			bool ahead = fast && c > first && c < tc;
			if ((kept % 2 == 0 || ahead) && !rn_sel(mask, nbits, m->q[c]))
				continue;
			rn_want_cell(m, r, c, &want);
		}
		kept++;
	}
	int calls = 0;
	kv_row_test test = {empty ? 0 : ((uint32_t)(uint8_t)m->q[tc][0] << 8) | (uint8_t)m->q[tc][1],
			    rn_pass_fn, &calls, empty};
	kv_scan_opts o = {0};
	o.read.no_cache = sel % 2 == 0; /* blocks freed as the scan leaves them */
	kv_iter *it = kv_scan(t, &o);
	size_t skipped = 0;
	int k = 0, dropped = 0;
	rn_row row = {UTIL_BUF_INIT, m->q[tc], false, false};
	while (kv_iter_valid(it)) {
		size_t max = 1 + sel % 4, n;
		do /* max skipped: the iterator is on a row not judged yet */
			skipped += n = kv_iter_skip_rows(it, mask, nbits, &test, max);
		while (n == max && kv_iter_valid(it));
		if (!kv_iter_valid(it))
			break;
		row.cells.len = 0;
		row.seen = row.ok = false;
		if (k % 2 == 0) {
			kv_iter_row_sel(it, mask, nbits, rn_row_cell, &row);
		} else {
			const kv_cell *c = kv_iter_cell(it);
			char rk[16];
			size_t rl = c->row.len;
			memcpy(rk, c->row.data, rl);
			for (; kv_iter_valid(it); kv_iter_next(it)) {
				c = kv_iter_cell(it);
				if (c->row.len != rl || memcmp(c->row.data, rk, rl))
					break;
				rn_row_cell(&row, c);
			}
		}
		if (row.seen && row.ok) {
			util_buf_append(&got, row.cells.data, row.cells.len);
			k++;
		} else {
			dropped++;
		}
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	expect_text(&got, &want);
	assert_int_equal(k, kept);
	if (fast) {
		assert_int_equal(dropped, 0);
		assert_int_equal((int)skipped, rows - kept);
		assert_true(calls > 0 || rows == kept);
	} else {
		assert_int_equal((int)skipped, 0);
		assert_int_equal(calls, 0);
	}
	util_buf_free(&row.cells);
	util_buf_free(&want);
	util_buf_free(&got);
}

/* kv_iter_row_hold's reader: the row's cells with their values held
 * (pointers into the store's memory) until leave copies them; the row is
 * written out only after the call returns. */
typedef struct hold_row {
	char row[RN_QUALS * 4][16];
	char q[RN_QUALS * 4][12];
	kv_ts ts[RN_QUALS * 4];
	int type[RN_QUALS * 4];
	const uint8_t *v[RN_QUALS * 4]; /* NULL: copied to copy[i] */
	uint32_t vl[RN_QUALS * 4];
	char copy[RN_QUALS * 4][32];
	int n, held, leaves;
} hold_row;

static void hold_cell(void *arg, const kv_cell *c)
{
	hold_row *h = arg;
	assert_true(h->n < RN_QUALS * 4 && c->row.len < 16 && c->qualifier.len < 12 && c->value.len < 32);
	int i = h->n++;
	snprintf(h->row[i], sizeof h->row[i], "%.*s", (int)c->row.len, (const char *)c->row.data);
	snprintf(h->q[i], sizeof h->q[i], "%.*s", (int)c->qualifier.len, (const char *)c->qualifier.data);
	h->ts[i] = c->ts;
	h->type[i] = c->type;
	h->v[i] = c->value.data;
	h->vl[i] = (uint32_t)c->value.len;
}

static void hold_leave(void *arg)
{
	hold_row *h = arg;
	for (int i = h->held; i < h->n; i++) {
		memcpy(h->copy[i], h->v[i], h->vl[i]);
		h->v[i] = NULL;
	}
	h->held = h->n;
	h->leaves++;
}

/* Every row by kv_iter_row_hold, forward and reverse, its values read
 * after the call (ASan sees a value left dangling: no_cache frees a block
 * as the scan leaves it), against the model's text in want (reversed by
 * rows for rev). */
static void rn_expect_hold(kv_table *t, const rn_model *m, int nr, int nq)
{
	for (int rev = 0; rev < 2; rev++) {
		util_buf want = UTIL_BUF_INIT, got = UTIL_BUF_INIT;
		for (int i = 0; i < nr; i++) {
			int r = rev ? nr - 1 - i : i;
			for (int c = 0; c < nq; c++) {
				if (!m->val[r][c][0])
					continue;
				rn_want_cell(m, r, c, &want);
			}
		}
		kv_scan_opts o = {.reverse = rev != 0};
		o.read.no_cache = true;
		kv_iter *it = kv_scan(t, &o);
		hold_row *h = calloc(1, sizeof *h);
		while (kv_iter_valid(it)) {
			h->n = h->held = 0;
			size_t n = kv_iter_row_hold(it, hold_cell, hold_leave, h);
			assert_true(n > 0);
			assert_int_equal((int)n, h->n);
			for (int i = 0; i < h->n; i++) {
				char line[128], v[32];
				memcpy(v, h->v[i] ? (const char *)h->v[i] : h->copy[i], h->vl[i]);
				int k = snprintf(line, sizeof line, "%s/%s@%llu.%d=%.*s;", h->row[i], h->q[i],
						 (unsigned long long)h->ts[i], h->type[i], (int)h->vl[i], v);
				util_buf_append(&got, line, (size_t)k);
			}
		}
		assert_int_equal(kv_iter_status(it), KV_OK);
		kv_iter_close(it);
		expect_text(&got, &want);
		free(h);
		util_buf_free(&want);
		util_buf_free(&got);
	}
}

static void rn_expect(kv_table *t, const rn_model *m, int nr, int nq, bool want_fast)
{
	rn_expect_hold(t, m, nr, nq);
	for (unsigned sel = 0; sel < 8; sel++) {
		rn_expect_sel(t, m, nr, nq, sel * 0x2f + (unsigned)nr);
		rn_expect_skip(t, m, nr, nq, sel * 0x2f + (unsigned)nr, want_fast);
	}
	util_buf want = UTIL_BUF_INIT, a = UTIL_BUF_INIT, b = UTIL_BUF_INIT;
	for (int r = 0; r < nr; r++)
		for (int c = 0; c < nq; c++) {
			if (!m->val[r][c][0])
				continue;
			rn_want_cell(m, r, c, &want);
		}
	kv_scan_opts o = {0};
	kv_iter *it = kv_scan(t, &o);
	assert_int_equal(scan_is_fast(it), want_fast);
	for (; kv_iter_valid(it); kv_iter_next(it))
		rn_put(&a, kv_iter_cell(it));
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	it = kv_scan(t, &o);
	rowacc acc = {&b, 0};
	while (kv_iter_valid(it))
		kv_iter_row(it, rn_acc, &acc);
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	expect_text(&a, &want);
	expect_text(&b, &want);
	util_buf_free(&want);
	util_buf_free(&a);
	util_buf_free(&b);
}

static void test_random_prefixes(void **state)
{
	(void)state;
	for (unsigned seed0 = 1; seed0 <= 6; seed0++) {
		char *dir = kvt_tmpdir("scanfast_rn");
		kv_store_opts so;
		kv_store_opts_default(&so);
		so.durability = KV_SYNC_NONE;
		so.compaction_threads = -1;
		if (seed0 == 2 || seed0 == 6)
			so.batch_spill_bytes = 2 << 10; /* the large commit: several files */
		if (seed0 >= 5)
			so.block_cache_bytes = 0; /* every block freed as a scan leaves it */
		kv_store *s = kvt_open(dir, &so);
		kv_family_opts fo;
		kv_family_opts_default(&fo, "d");
		fo.block_size = 512 + 256 * (seed0 - 1); /* many blocks and restarts */
		fo.max_versions = 3;                     /* old versions stay in the file */
		kv_table *t = NULL;
		assert_int_equal(kv_table_create(s, "t", &fo, 1), KV_OK);
		assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
		rn_model *m = calloc(1, sizeof *m);
		unsigned seed = seed0 * 7919u;
		/* Seed 3: longer rows (5-10 bytes); seed 4: qualifiers of 5-10
		 * bytes (beyond the fast path's 8-byte qualifier word). Even
		 * seeds commit the first round as a large commit (a sorted file
		 * with a global timestamp, all its entries' timestamps unshared). */
		int nr = rn_names(&seed, m->row, RN_ROWS, seed0 == 3 ? 5 : 1);
		int nq = rn_names(&seed, m->q, RN_QUALS, seed0 == 4 ? 5 : 0); /* "": a sentinel */
		if (seed0 >= 5) {
			/* Seeds 5 and 6: rows shaped as SQL's, a sentinel and
			 * 2-byte column ids (kv_iter_skip_rows's block loop,
			 * skip_block_row), some cells missing (NULL). */
			static const char sql_q[][12] = {"", "aa", "ab", "ba", "bb"};
			nq = (int)(sizeof sql_q / sizeof sql_q[0]);
			memcpy(m->q, sql_q, sizeof sql_q);
		}
		static bool written[RN_ROWS][RN_QUALS];
		for (int round = 0; round < RN_ROUNDS; round++) {
			kv_batch *bt = kv_batch_new();
			memset(written, 0, sizeof written);
			for (int r = 0; r < nr; r++)
				for (int c = 0; c < nq; c++) {
					seed = seed * 1103515245u + 12345u;
					if ((seed >> 16) % 3 && round)
						continue; /* later rounds: a third of the cells again */
					if (seed0 >= 5 && !round && c && (seed >> 16) % 5 == 0)
						continue; /* a NULL: no cell */
					char v[32];
					snprintf(v, sizeof v, "v%d-%d-%d", round, r, c);
					kv_batch_put(bt, t, m->row[r], strlen(m->row[r]), "d", m->q[c],
						     strlen(m->q[c]), KV_TS_LATEST, v, strlen(v));
					strcpy(m->val[r][c], v);
					written[r][c] = true;
				}
			kv_ts ts;
			kv_write_opts wo = {.ingest = round == 0 && seed0 % 2 == 0};
			assert_int_equal(kv_commit(s, bt, &wo, &ts), KV_OK);
			kv_batch_free(bt);
			for (int r = 0; r < nr; r++)
				for (int c = 0; c < nq; c++)
					if (written[r][c])
						m->ts[r][c] = ts;
			if (wo.ingest) {
				/* one file with a global timestamp, or (seed 2) a
				 * chain of them, read in turn by the fast path */
				rn_expect(t, m, nr, nq, true);
				kv_scan_opts o = {0};
				kv_iter *it = kv_scan(t, &o);
				int nf = scan_fast_files(it);
				kv_iter_close(it);
				if (seed0 == 2 || seed0 == 6)
					assert_true(nf >= 2);
				else
					assert_int_equal(nf, 1);
			}
			if (round == 1) {
				/* one file with two versions of many cells (two
				 * files after a large commit: the matcher) */
				assert_int_equal(kv_table_flush(t), KV_OK);
				rn_expect(t, m, nr, nq, seed0 % 2 != 0);
			}
		}
		assert_int_equal(kv_table_flush(t), KV_OK);
		rn_expect(t, m, nr, nq, false); /* two files: the matcher */
		assert_int_equal(kv_table_compact(t, true), KV_OK);
		rn_expect(t, m, nr, nq, true); /* one file, up to 3 versions per cell */
		free(m);
		kv_table_close(t);
		kvt_close_rm(s, dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_newest_and_as_of, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bounds_limit_seek, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_sources, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_markers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reverse_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cache_small, setup, teardown),
	    cmocka_unit_test(test_random_prefixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
