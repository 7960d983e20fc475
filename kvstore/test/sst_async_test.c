/* sst_async_test.c — the sorted-file writer with its background block
 * writer (SST_W_ASYNC): the file is byte for byte the one written without
 * it (compression levels, bloom kinds, global timestamps, sizes from one
 * entry to a multi-level index), a write failure in the thread reaches the
 * caller, and abandoning a writer with blocks queued stops the thread.
 * Also a row's next cells added with sst_writer_add_next, and whole rows
 * added with sst_writer_add_row, make the same file as sst_writer_add. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ikey.h"
#include "kv_fault.h"
#include "kvt_util.h"
#include "sst.h"

typedef struct spec {
	int level;
	kv_bloom bloom;
	bool gts;
	int n;
	uint32_t block_size;
} spec;

static size_t mk(uint8_t *b, int i, bool gts)
{
	char r[16];
	snprintf(r, sizeof(r), "row%07d", i / 3);
	char q[8];
	snprintf(q, sizeof(q), "q%d", i % 3);
	return ikey_encode(b, r, strlen(r), "f", 1, q, strlen(q), gts ? 0 : (kv_ts)(5000 - i % 7), KV_PUT);
}

/* Values of varying length and compressibility, so blocks differ in size
 * and some stay raw. */
static size_t mkval(char *v, size_t cap, int i)
{
	size_t n = (size_t)(i * 37 % 300);
	if (n >= cap)
		n = cap - 1;
	for (size_t j = 0; j < n; j++)
		v[j] = (i % 5 == 0) ? (char)('a' + (j * 7919 + (size_t)i) % 26) : (char)('x' + j % 2);
	return n;
}

/* A writer of path with s's family options. */
static kv_status open_writer(kv_fs *fs, const char *path, const spec *s, int flags, sst_writer **w)
{
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = s->block_size;
	fo.compression_level = s->level;
	fo.bloom = s->bloom;
	return sst_writer_open_ex(fs, path, &fo, 9, flags | (s->gts ? SST_W_GLOBAL_TS : 0), w);
}

/* Writes s's entries to path through fs with flags; returns the status of
 * the first failing add or of finish (props valid on KV_OK). */
static kv_status write_file(kv_fs *fs, const char *path, const spec *s, int flags, sst_props *p)
{
	sst_writer *w;
	kv_status st = open_writer(fs, path, s, flags, &w);
	if (st)
		return st;
	uint8_t k[64];
	char v[512];
	for (int i = 0; i < s->n; i++) {
		size_t kl = mk(k, i, s->gts);
		size_t vl = mkval(v, sizeof(v), i);
		st = sst_writer_add(w, k, kl, (const uint8_t *)v, vl);
		if (st) {
			sst_writer_abandon(w);
			return st;
		}
	}
	return sst_writer_finish(w, p);
}

static void no_problem(void *arg, const char *msg)
{
	(void)arg;
	fail_msg("verify: %s", msg);
}

/* The two files have the same bytes; returns their size. */
static size_t assert_same_files(const char *pa, const char *pb)
{
	size_t n;
	assert_true(kvt_same_files(pa, pb, &n));
	return n;
}

/* A fresh directory (kvt_tmpdir) and the paths of two files in it. */
static char *two_paths(const char *tag, char pa[4096], char pb[4096])
{
	char *dir = kvt_tmpdir(tag);
	snprintf(pa, 4096, "%s/000001.sst", dir);
	snprintf(pb, 4096, "%s/000002.sst", dir);
	return dir;
}

static void test_same_bytes(void **state)
{
	(void)state;
	char pa[4096], pb[4096];
	char *dir = two_paths("sst_async", pa, pb);
	const spec specs[] = {
	    {1, KV_BLOOM_ROW, false, 1, 1024},        {1, KV_BLOOM_ROW, false, 40, 1024},
	    {0, KV_BLOOM_NONE, false, 20000, 1024},   {1, KV_BLOOM_ROW, false, 20000, 1024},
	    {3, KV_BLOOM_ROWCOL, false, 20000, 4096}, {1, KV_BLOOM_ROW, true, 30000, 16384},
	    {1, KV_BLOOM_ROWCOL, true, 5000, 1024},
	};
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		sst_props a, b;
		assert_int_equal(write_file(kv_fs_posix(), pa, &specs[i], 0, &a), KV_OK);
		assert_int_equal(write_file(kv_fs_posix(), pb, &specs[i], SST_W_ASYNC, &b), KV_OK);
		size_t nb = assert_same_files(pa, pb);
		assert_int_equal(a.file_size, b.file_size);
		assert_int_equal(b.file_size, nb);
		assert_int_equal(a.entries, b.entries);
		assert_int_equal(a.data_blocks, b.data_blocks);
		assert_int_equal(a.index_levels, b.index_levels);
		assert_int_equal(a.llen, b.llen);
		assert_memory_equal(a.largest, b.largest, a.llen);
		if (specs[i].n == 20000)
			assert_true(b.data_blocks > 100); /* the thread ran, with queued blocks */
		/* And it reads back as a sorted file. */
		kv_cache *cache = cache_new(1 << 20);
		sst_reader *r;
		if (specs[i].gts)
			assert_int_equal(sst_open_ts(kv_fs_posix(), pb, 2, cache, 77, &r), KV_OK);
		else
			assert_int_equal(sst_open(kv_fs_posix(), pb, 2, cache, &r), KV_OK);
		assert_int_equal(sst_verify(r, no_problem, NULL), KV_OK);
		sst_unref(r);
		cache_free(cache);
		sst_props_free(&a);
		sst_props_free(&b);
	}
	/* No entries: the same failure, no thread. */
	spec none = {1, KV_BLOOM_ROW, false, 0, 1024};
	sst_props p;
	assert_int_equal(write_file(kv_fs_posix(), pb, &none, SST_W_ASYNC, &p), KV_INVALID);
	kvt_close_rm(NULL, dir);
}

/* An append failing in the thread fails a later add or the finish with its
 * errno's status and message, at every point of the file. */
static void test_write_error(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("sst_async_err");
	char path[4096];
	snprintf(path, sizeof(path), "%s/000003.sst", dir);
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	const spec s = {1, KV_BLOOM_ROW, false, 20000, 1024};
	const uint64_t after[] = {0, 1, 7, 100, 500};
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, after[i], "000003");
		sst_props p;
		kv_status st = write_file(kv_fault_fs_get(ff), path, &s, SST_W_ASYNC, &p);
		assert_int_equal(st, KV_NO_SPACE);
		assert_non_null(strstr(kv_errmsg(), "000003.sst"));
		assert_true(kv_fault_injected(ff) > 0);
		kv_fault_clear(ff);
	}
	/* The same writer without faults succeeds through the wrapper. */
	sst_props p;
	assert_int_equal(write_file(kv_fault_fs_get(ff), path, &s, SST_W_ASYNC, &p), KV_OK);
	sst_props_free(&p);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

/* Abandoning with blocks queued (and after a failure) stops the thread
 * and frees everything (ASan checks the frees, the test's end the join). */
static void test_abandon(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("sst_async_ab");
	char path[4096];
	snprintf(path, sizeof(path), "%s/000004.sst", dir);
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	for (int round = 0; round < 2; round++) {
		if (round == 1)
			kv_fault_set(ff, KV_FAULT_WRITE, EIO, 3, "000004");
		kv_family_opts fo;
		kv_family_opts_default(&fo, "f");
		fo.block_size = 1024;
		fo.compression_level = 3;
		sst_writer *w;
		assert_int_equal(sst_writer_open_ex(kv_fault_fs_get(ff), path, &fo, 9, SST_W_ASYNC, &w),
				 KV_OK);
		uint8_t k[64];
		char v[512];
		kv_status st = KV_OK;
		for (int i = 0; i < 5000 && !st; i++) {
			size_t kl = mk(k, i, false);
			st = sst_writer_add(w, k, kl, (const uint8_t *)v, mkval(v, sizeof(v), i));
		}
		assert_int_equal(st, round == 0 ? KV_OK : KV_IO_ERROR);
		sst_writer_abandon(w);
		kv_fault_clear(ff);
	}
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

/* Finishes w after adds ending with status st (abandons it on failure). */
static kv_status end_writer(sst_writer *w, kv_status st)
{
	if (st) {
		sst_writer_abandon(w);
		return st;
	}
	sst_props p;
	st = sst_writer_finish(w, &p);
	if (!st)
		sst_props_free(&p);
	return st;
}

/* Writes each spec's file both ways (fn's last argument false, then true),
 * async or not, and checks the two files are the same bytes. */
typedef kv_status (*write_fn)(const char *path, const spec *s, int flags, bool other_way);
static void assert_both_ways(const char *tag, const spec *specs, size_t n, write_fn fn)
{
	char pa[4096], pb[4096];
	char *dir = two_paths(tag, pa, pb);
	for (size_t i = 0; i < n; i++)
		for (int async = 0; async < 2; async++) {
			int fl = async ? SST_W_ASYNC : 0;
			assert_int_equal(fn(pa, &specs[i], fl, false), KV_OK);
			assert_int_equal(fn(pb, &specs[i], fl, true), KV_OK);
			assert_same_files(pa, pb);
		}
	kvt_close_rm(NULL, dir);
}

/* Rows of four cells at one timestamp each (as a row put streams them),
 * every cell through sst_writer_add, or each row's later ones through
 * sst_writer_add_next: the same bytes, whatever the bloom kind, with
 * blocks that end inside rows, and async or not. */
static kv_status write_rows(const char *path, const spec *s, int flags, bool next)
{
	sst_writer *w;
	kv_status st = open_writer(kv_fs_posix(), path, s, flags, &w);
	if (st)
		return st;
	uint8_t k[64];
	char v[512];
	for (int i = 0; !st && i < s->n; i++) {
		char r[16];
		size_t rl = (size_t)snprintf(r, sizeof(r), "row%07d", i / 4);
		uint8_t q[2] = {0, (uint8_t)(i % 4 * 3)};
		size_t ql = i % 4 ? 2 : 0; /* the sentinel's is empty */
		size_t kl = ikey_encode(k, r, rl, "f", 1, q, ql, s->gts ? 0 : (kv_ts)(9000 - i / 4), KV_PUT);
		size_t vl = mkval(v, sizeof(v), i);
		if (next && i % 4)
			st = sst_writer_add_next(w, k, kl, (const uint8_t *)v, vl, 2 + rl + 1 + 1);
		else
			st = sst_writer_add(w, k, kl, (const uint8_t *)v, vl);
	}
	return end_writer(w, st);
}

static void test_add_next(void **state)
{
	(void)state;
	const spec specs[] = {
	    {1, KV_BLOOM_ROW, false, 1, 1024},       {1, KV_BLOOM_ROW, false, 3, 1024},
	    {1, KV_BLOOM_ROW, false, 20000, 1024},   {0, KV_BLOOM_NONE, false, 20000, 4096},
	    {3, KV_BLOOM_ROWCOL, false, 8000, 1024}, {1, KV_BLOOM_ROW, true, 20000, 16384},
	};
	assert_both_ways("sst_next", specs, sizeof(specs) / sizeof(specs[0]), write_rows);
}

/* Row r's cells (1 to 6 of them) at one timestamp: row keys short or
 * long (varint lengths, restart points copying much of the row), qualifiers
 * of mixed widths with shared prefixes (the sentinel's empty one first),
 * values from empty to half a block. */
static size_t row_cells(int r, char *row, size_t *rl, kv_put_cell *c, char (*qs)[32], char (*vs)[512])
{
	int len = r % 7 == 0 ? 200 + r % 50 : 10;
	snprintf(row, 9, "%08d", r); /* ascending rows */
	memset(row + 8, 'a' + r % 3, (size_t)len - 8);
	*rl = (size_t)len;
	static const char *const quals[] = {"", "a", "ab", "abc", "abcdefghijklmnopq", "b", "c\xff"};
	size_t n = (size_t)(1 + r * 5 % 6), first = (size_t)(r % 2);
	for (size_t i = 0; i < n; i++) {
		snprintf(qs[i], sizeof(qs[i]), "%s", quals[first + i]);
		size_t vl = mkval(vs[i], sizeof(vs[i]), r * 6 + (int)i);
		c[i] = (kv_put_cell){qs[i], strlen(quals[first + i]), vs[i], vl};
	}
	return n;
}

/* The rows of row_cells cell by cell (sst_writer_add) or each at once
 * (sst_writer_add_row). */
static kv_status write_whole_rows(const char *path, const spec *s, int flags, bool at_once)
{
	sst_writer *w;
	kv_status st = open_writer(kv_fs_posix(), path, s, flags, &w);
	if (st)
		return st;
	uint8_t k[512];
	char row[256], qs[6][32], vs[6][512];
	kv_put_cell c[6];
	for (int r = 0; !st && r < s->n; r++) {
		size_t rl, n = row_cells(r, row, &rl, c, qs, vs);
		kv_ts ts = s->gts ? 0 : (kv_ts)(90000 - r);
		for (size_t i = 0; !st && i < (at_once ? 1 : n); i++) {
			size_t kl = ikey_encode(k, row, rl, "f", 1, c[i].qual, c[i].qlen, ts, KV_PUT);
			st = at_once ? sst_writer_add_row(w, k, kl, 2 + rl + 1 + 1, c, n)
				     : sst_writer_add(w, k, kl, c[i].val, c[i].vlen);
		}
	}
	return end_writer(w, st);
}

/* A row added at once makes the file its cells added one by one make:
 * blocks ending inside rows and after them, restart points inside rows,
 * long keys, every bloom kind, global timestamps, async or not. */
static void test_add_row(void **state)
{
	(void)state;
	const spec specs[] = {
	    {1, KV_BLOOM_ROW, false, 1, 1024},       {1, KV_BLOOM_ROW, false, 5, 1024},
	    {1, KV_BLOOM_ROW, false, 6000, 1024},    {0, KV_BLOOM_NONE, false, 6000, 4096},
	    {3, KV_BLOOM_ROWCOL, false, 3000, 1024}, {1, KV_BLOOM_ROW, true, 6000, 16384},
	    {0, KV_BLOOM_NONE, true, 6000, 1024},
	};
	assert_both_ways("sst_row", specs, sizeof(specs) / sizeof(specs[0]), write_whole_rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_bytes),
	    cmocka_unit_test(test_write_error),
	    cmocka_unit_test(test_abandon),
	    cmocka_unit_test(test_add_next),
	    cmocka_unit_test(test_add_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
