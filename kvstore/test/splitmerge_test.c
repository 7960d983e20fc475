/*
 * splitmerge_test.c — a large commit's overlapping runs merged on two
 * threads (stage.c, from stage_split_bytes): every cell read back (all
 * versions, delete markers too) equals the one-thread merge of the same
 * load, over random overlapping runs with identical cells (the later run
 * wins) and rows of many cells (the split lands inside rows); the split
 * gives one more table file; a write error in either thread fails the
 * commit and leaves no file behind. And runs to be merged written
 * uncompressed (stage.c run_merges): the same cells as with compressed
 * runs, for streamed chunks in random key order and for spills; streamed
 * chunks that turn out key-disjoint (descending) are kept apart as
 * compressed copies, the very files compressed runs give; a write error in
 * such a copy fails the commit and leaves no file.
 */
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

#include "kv.h"
#include "kv_fault.h"
#include "kv_fs.h"
#include "ikey.h"
#include "kvt_util.h"
#include "sst.h"
#include "stage.h"
#include "util.h"

static const char *const FAMS[] = {"d"};

enum { NPUTS = 40000 };

/* The shape of a load: many rows of up to 40 cells (the split falls
 * between rows), or 3 rows of 3000 (it falls inside a row). */
typedef struct shape {
	unsigned rows, quals;
} shape;
static const shape MANY_ROWS = {3000, 40}, WIDE_ROWS = {3, 3000};

static kv_store *open_small_spills(const char *dir, kv_fault_fs *ff)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.batch_spill_bytes = 256 << 10; /* many overlapping runs */
	o.compaction_threads = -1;
	if (ff)
		o.fs = kv_fault_fs_get(ff);
	kv_store *s = NULL;
	assert_int_equal(kv_store_open(dir, &o, &s), KV_OK);
	return s;
}

static void list_ssts(const char *dir, uint64_t *max, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	*max = 0;
	*n = 0;
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".sst"))
			continue;
		uint64_t v = strtoull(e->d_name, NULL, 10);
		if (v > *max)
			*max = v;
		(*n)++;
	}
	closedir(d);
}

/* The same pseudo-random load into any store: puts with explicit and
 * commit timestamps, cells written again (identical keys, new values), a
 * few delete markers; rows have up to 40 qualifiers. */
static kv_batch *load(kv_table *t, unsigned seed, shape sh)
{
	kv_batch *b = kv_batch_new();
	char row[32], q[16], v[64];
	for (int i = 0; i < NPUTS; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = (seed >> 8) % sh.rows;
		seed = seed * 1103515245u + 12345u;
		unsigned c = (seed >> 8) % sh.quals;
		snprintf(row, sizeof(row), "row%08u", r * 2654435761u % 100000000u);
		snprintf(q, sizeof(q), "q%05u", c);
		snprintf(v, sizeof(v), "v%d-%u-%u-padding-padding", i, r, c);
		if (c % 7 == 3) {
			kv_batch_delete(b, t, row, strlen(row), "d", q, strlen(q), 1000 + c,
					KV_DELETE_COLUMN);
			continue;
		}
		kv_ts ts = c % 2 ? KV_TS_LATEST : (kv_ts)(100 + c % 5);
		kv_batch_put(b, t, row, strlen(row), "d", q, strlen(q), ts, v, strlen(v));
	}
	return b;
}

/* Every cell, raw, all versions, one line each (commit timestamps as "C"). */
static char *dump(kv_table *t, kv_ts cts)
{
	kv_scan_opts o = {0};
	o.read.raw = true;
	o.read.max_versions = 1000;
	kv_iter *it = kv_scan(t, &o);
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		char ts[32];
		if (c->ts == cts)
			snprintf(ts, sizeof(ts), "C");
		else
			snprintf(ts, sizeof(ts), "%llu", (unsigned long long)c->ts);
		size_t need = c->row.len + c->qualifier.len + c->value.len + 64;
		if (len + need > cap) {
			cap = 2 * (len + need);
			out = realloc(out, cap);
		}
		len += (size_t)sprintf(out + len, "%.*s|%.*s|%s|%d|%.*s\n", (int)c->row.len, c->row.data,
				       (int)c->qualifier.len, c->qualifier.data, ts, c->type,
				       (int)c->value.len, c->value.data);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	out[len] = 0;
	return out;
}

/* Closes t and s, frees ff (if any), removes dir and frees its name. */
static void close_and_remove(kv_table *t, kv_store *s, kv_fault_fs *ff, char *dir)
{
	kv_table_close(t);
	kv_store_close(s);
	if (ff)
		kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

/* Commits b with a write error injected into the files matching match:
 * the commit fails, no file stays, the store goes on; then closes it all
 * (close_and_remove). */
static void commit_fails_cleanly(kv_fault_fs *ff, kv_store *s, kv_table *t, char *dir, kv_batch *b,
				 const kv_write_opts *wo, const char *match)
{
	kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, 0, match);
	assert_int_not_equal(kv_commit(s, b, wo, NULL), KV_OK);
	assert_true(kv_fault_injected(ff) > 0);
	kv_fault_clear(ff);
	kv_batch_free(b);
	uint64_t max;
	int n;
	list_ssts(dir, &max, &n);
	assert_int_equal(n, 0);
	char *d = dump(t, 0);
	assert_string_equal(d, "");
	free(d);
	assert_int_equal(kvt_put(s, t, "r", "d", "q", KV_TS_LATEST, "v"), KV_OK);
	char buf[8];
	assert_true(kvt_get(t, "r", "d", "q", 0, buf, sizeof(buf)));
	assert_string_equal(buf, "v");
	close_and_remove(t, s, ff, dir);
}

/* The rows of the first 3 row numbers read by kv_get (point reads skip
 * files by key range: a row split over two files must be whole), as dump. */
static char *dump_gets(kv_table *t, kv_ts cts)
{
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	util_arena *a = util_arena_new(1 << 20, 0);
	kv_read_opts o = {0};
	o.raw = true;
	o.max_versions = 1000;
	for (unsigned r = 0; r < 3; r++) {
		char row[32];
		snprintf(row, sizeof(row), "row%08u", r * 2654435761u % 100000000u);
		kv_row kr;
		assert_int_equal(kv_get(t, row, strlen(row), &o, a, &kr), KV_OK);
		for (size_t i = 0; i < kr.n; i++) {
			const kv_cell *c = &kr.cells[i];
			size_t need = c->row.len + c->qualifier.len + c->value.len + 64;
			if (len + need > cap) {
				cap = 2 * (len + need);
				out = realloc(out, cap);
			}
			len += (size_t)sprintf(out + len, "%.*s|%.*s|%s|%d|%.*s\n", (int)c->row.len,
					       c->row.data, (int)c->qualifier.len, c->qualifier.data,
					       c->ts == cts ? "C" : "x", c->type, (int)c->value.len,
					       c->value.data);
		}
		util_arena_reset(a);
	}
	util_arena_destroy(a);
	out[len] = 0;
	return out;
}

/* Loads into a fresh store with the given split threshold; returns the
 * dump and the table's file count. */
/* True if one table file ends in the row where another begins. */
static bool row_split_between_files(const char *dir)
{
	sst_props p[16];
	sst_reader *rd[16];
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)) && n < 16) {
		if (!strstr(e->d_name, ".sst"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		sst_reader *r;
		assert_int_equal(sst_open(kv_fs_posix(), path, strtoull(e->d_name, NULL, 10), NULL, &r),
				 KV_OK);
		rd[n] = r; /* owns the props */
		p[n++] = *sst_get_props(r);
	}
	closedir(d);
	bool found = false;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j && ikey_rowlen(p[i].largest) == ikey_rowlen(p[j].smallest) &&
			    !memcmp(p[i].largest + 2, p[j].smallest + 2, ikey_rowlen(p[j].smallest)) &&
			    ikey_cmp(p[i].largest, p[i].llen, p[j].smallest, p[j].slen) < 0)
				found = true;
	for (int i = 0; i < n; i++)
		sst_unref(rd[i]);
	return found;
}

static char *load_and_dump(size_t split_bytes, shape sh, int *nfiles, bool *row_split)
{
	char *dir = kvt_tmpdir("splitmerge");
	kv_store *s = open_small_spills(dir, NULL);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	size_t saved = stage_split_bytes;
	stage_split_bytes = split_bytes;
	kv_batch *b = load(t, 7, sh);
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, NULL, &cts), KV_OK);
	kv_batch_free(b);
	stage_split_bytes = saved;
	uint64_t max;
	list_ssts(dir, &max, nfiles);
	*row_split = row_split_between_files(dir);
	char *d = dump(t, cts);
	char *g = dump_gets(t, cts);
	size_t dl = strlen(d), gl = strlen(g);
	d = realloc(d, dl + gl + 1);
	memcpy(d + dl, g, gl + 1);
	free(g);
	kv_table_close(t);
	kv_store_close(s);
	/* And the same after a reopen (the manifest lists both parts). */
	s = open_small_spills(dir, NULL);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	char *d2 = dump(t, cts);
	assert_int_equal(strncmp(d, d2, strlen(d2)), 0);
	free(d2);
	close_and_remove(t, s, NULL, dir);
	return d;
}

static void split_equals_one_thread(shape sh, bool inside_row)
{
	int n1, n2;
	bool rs1, rs2;
	char *one = load_and_dump(SIZE_MAX, sh, &n1, &rs1);
	char *two = load_and_dump(0, sh, &n2, &rs2);
	assert_true(strlen(one) > 100000);
	assert_string_equal(one, two);
	/* Explicit-ts and commit-ts cells are two groups: each split in two. */
	assert_int_equal(n2, n1 + 2);
	assert_false(rs1);
	if (inside_row)
		assert_true(rs2);
	free(one);
	free(two);
}

static void test_split_between_rows(void **state)
{
	(void)state;
	split_equals_one_thread(MANY_ROWS, false);
}

static void test_split_inside_row(void **state)
{
	(void)state;
	split_equals_one_thread(WIDE_ROWS, true);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The numbers of the files of a committed split load, ascending (the
 * first group's two parts come first). Numbering is deterministic. */
static int output_numbers(uint64_t *nums, int max)
{
	char *dir = kvt_tmpdir("splitmerge_dry");
	kv_store *s = open_small_spills(dir, NULL);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	int n0;
	uint64_t m0;
	list_ssts(dir, &m0, &n0);
	assert_int_equal(n0, 0);
	kv_batch *b = load(t, 11, MANY_ROWS);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_batch_free(b);
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".sst") && n < max)
			nums[n++] = strtoull(e->d_name, NULL, 10);
	closedir(d);
	qsort(nums, (size_t)n, sizeof(uint64_t), cmp_u64);
	close_and_remove(t, s, NULL, dir);
	return n;
}

/* A write error in part `part` (0: before the split key, 1: from it) of
 * the first group: the commit fails, no file stays, the store goes on. */
static void write_error_in_part(int part)
{
	size_t saved = stage_split_bytes;
	stage_split_bytes = 0;
	uint64_t nums[16];
	assert_int_equal(output_numbers(nums, 16), 4);

	char *dir = kvt_tmpdir("splitmerge_err");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_store *s = open_small_spills(dir, ff);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	char match[32];
	snprintf(match, sizeof(match), "/%06llu.sst", (unsigned long long)nums[part]);
	kv_batch *b = load(t, 11, MANY_ROWS);
	commit_fails_cleanly(ff, s, t, dir, b, NULL, match);
	stage_split_bytes = saved;
}

static void test_write_error_part0(void **state)
{
	(void)state;
	write_error_in_part(0);
}

static void test_write_error_part1(void **state)
{
	(void)state;
	write_error_in_part(1);
}

/* ---------------------------------------------------------------- raw runs */

enum { CHUNK_ROWS = 6000, NCHUNKS = 5 };

/* Row number i of chunk c: random key order (every chunk spans the whole
 * key range, as an autocommit COPY's sorted flushes do) or descending
 * (chunk c lies below chunk c - 1: key-disjoint runs). */
static unsigned chunk_row(int c, int i, bool descending)
{
	return descending ? (unsigned)((NCHUNKS - 1 - c) * CHUNK_ROWS + i) : (unsigned)(i * NCHUNKS + c);
}

/* Streams NCHUNKS ascending chunks of a kv_batch_sorted_runs batch (each a
 * run), then rewrites some rows (a later chunk wins), a chunk with explicit
 * timestamps, and a delete (buffered). *raw gets the stage's runs written
 * uncompressed, as a bit mask by run. */
static kv_batch *stream_chunks(kv_table *t, bool descending, unsigned *raw)
{
	kv_batch *b = kv_batch_new();
	kv_batch_sorted_runs(b);
	char row[32], v[48];
	for (int c = 0; c < NCHUNKS; c++)
		for (int i = 0; i < CHUNK_ROWS; i++) {
			snprintf(row, sizeof(row), "row%08u", chunk_row(c, i, descending));
			snprintf(v, sizeof(v), "v%d-%d-padding-padding-padding", c, i);
			kv_batch_put(b, t, row, strlen(row), "d", "", 0, KV_TS_LATEST, "", 0);
			kv_batch_put(b, t, row, strlen(row), "d", "a", 1, KV_TS_LATEST, v, strlen(v));
		}
	if (!descending) {
		for (int i = 0; i < 3 * CHUNK_ROWS; i += 3) {
			snprintf(row, sizeof(row), "row%08u", (unsigned)i);
			kv_batch_put(b, t, row, strlen(row), "d", "a", 1, KV_TS_LATEST, "again", 5);
		}
		for (int i = 1; i < 3 * CHUNK_ROWS; i += 3) {
			snprintf(row, sizeof(row), "row%08u", (unsigned)i);
			kv_batch_put(b, t, row, strlen(row), "d", "x", 1, 500, "old", 3);
		}
		snprintf(row, sizeof(row), "row%08u", 5u);
		kv_batch_delete(b, t, row, strlen(row), "d", "a", 1, KV_TS_LATEST, KV_DELETE_COLUMN);
	}
	*raw = 0;
	const bstage *stg = b->stage;
	for (int i = 0; stg && i < stg->n; i++)
		if (stg->f[i].raw)
			*raw |= 1u << stg->f[i].run;
	if (stg && stg->sw && stg->scur.raw) /* the run still being streamed */
		*raw |= 1u << stg->scur.run;
	return b;
}

/* A content digest of every table file of dir, sorted (file numbers
 * aside: a copy gets a new number). */
static char *file_digests(const char *dir)
{
	char *out = calloc(1, 4096);
	uint64_t h[64];
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		if (!strstr(e->d_name, ".sst"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		assert_non_null(f);
		uint64_t x = 1469598103934665603ull;
		int ch;
		while ((ch = fgetc(f)) != EOF)
			x = (x ^ (uint64_t)ch) * 1099511628211ull;
		x ^= (uint64_t)ftell(f) << 40;
		fclose(f);
		h[n++] = x;
	}
	closedir(d);
	qsort(h, (size_t)n, sizeof(uint64_t), cmp_u64);
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), 4096 - strlen(out), "%016llx\n", (unsigned long long)h[i]);
	return out;
}

/* Commits the streamed chunks into a fresh store with raw runs on or off:
 * the raw-run mask, the table's file count, the dump (all versions) and
 * the files' digests. */
static char *commit_chunks(bool raw_runs, bool descending, unsigned *raw, int *nfiles, char **digests)
{
	char *dir = kvt_tmpdir("rawruns");
	kv_store *s = open_small_spills(dir, NULL);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	bool saved = stage_raw_runs;
	stage_raw_runs = raw_runs;
	kv_batch *b = stream_chunks(t, descending, raw);
	kv_write_opts wo = {.ingest = true};
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, &wo, &cts), KV_OK);
	kv_batch_free(b);
	stage_raw_runs = saved;
	uint64_t max;
	list_ssts(dir, &max, nfiles);
	*digests = file_digests(dir);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	char *d = dump(t, cts);
	close_and_remove(t, s, NULL, dir);
	return d;
}

/* The streamed chunks committed with compressed and with raw runs: the
 * same cells, the same number of files, the same files byte for byte (the
 * merged file, or the copies of raw runs kept apart). */
static void raw_equals_compressed(bool descending)
{
	unsigned raw0, raw1;
	int n0, n1;
	char *g0, *g1;
	char *packed = commit_chunks(false, descending, &raw0, &n0, &g0);
	char *raw = commit_chunks(true, descending, &raw1, &n1, &g1);
	assert_int_equal(raw0, 0);
	/* Every chunk after the first starts before the first one's end, and
	 * so does the rewrite after them in random order; the
	 * explicit-timestamp run is the first of its group. */
	assert_int_equal(raw1, ((1u << (NCHUNKS + !descending)) - 1) & ~1u);
	assert_true(strlen(packed) > 100000);
	assert_string_equal(packed, raw);
	assert_int_equal(n0, n1);
	assert_string_equal(g0, g1);
	if (descending)
		assert_int_equal(n1, NCHUNKS); /* kept apart, one file per chunk */
	else
		assert_non_null(strstr(raw, "|x|500|4|old\n"));
	assert_true(descending || strstr(raw, "|a|C|4|again\n"));
	free(packed);
	free(raw);
	free(g0);
	free(g1);
}

static void test_raw_runs_random_order(void **state)
{
	(void)state;
	raw_equals_compressed(false);
}

static void test_raw_runs_kept_apart(void **state)
{
	(void)state;
	raw_equals_compressed(true);
}

/* A write error in the compressed copy of a raw run kept apart: the commit
 * fails, no file stays, the store goes on. */
static void test_raw_copy_write_error(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("rawruns_err");
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_store *s = open_small_spills(dir, ff);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	unsigned raw;
	kv_batch *b = stream_chunks(t, true, &raw);
	assert_int_not_equal(raw, 0);
	/* The copies are the files numbered after the runs. */
	uint64_t max;
	int n;
	list_ssts(dir, &max, &n);
	assert_int_equal(n, NCHUNKS);
	char match[32];
	snprintf(match, sizeof(match), "/%06llu.sst", (unsigned long long)max + 2);
	kv_write_opts wo = {.ingest = true};
	commit_fails_cleanly(ff, s, t, dir, b, &wo, match);
}

/* Spilled runs of a random load: raw from the second spill on, the same
 * cells as compressed runs (load_and_dump merges them on one thread). */
static void test_raw_spills(void **state)
{
	(void)state;
	int n0, n1;
	bool rs;
	bool saved = stage_raw_runs;
	stage_raw_runs = false;
	char *packed = load_and_dump(SIZE_MAX, MANY_ROWS, &n0, &rs);
	stage_raw_runs = true;
	char *raw = load_and_dump(SIZE_MAX, MANY_ROWS, &n1, &rs);
	assert_string_equal(packed, raw);
	assert_int_equal(n0, n1);
	free(packed);
	free(raw);
	/* The spills after the first were raw. */
	char *dir = kvt_tmpdir("rawspills");
	kv_store *s = open_small_spills(dir, NULL);
	kv_table *t = kvt_table(s, "t", 1, FAMS);
	kv_batch *b = load(t, 7, MANY_ROWS);
	int nraw = 0, nruns = b->stage ? b->stage->n : 0;
	for (int i = 0; i < nruns; i++)
		nraw += b->stage->f[i].raw;
	assert_true(nruns > 4);
	assert_true(nraw > nruns / 2);
	kv_batch_free(b);
	stage_raw_runs = saved;
	close_and_remove(t, s, NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split_between_rows),    cmocka_unit_test(test_split_inside_row),
	    cmocka_unit_test(test_write_error_part0),     cmocka_unit_test(test_write_error_part1),
	    cmocka_unit_test(test_raw_runs_random_order), cmocka_unit_test(test_raw_runs_kept_apart),
	    cmocka_unit_test(test_raw_copy_write_error),  cmocka_unit_test(test_raw_spills),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
