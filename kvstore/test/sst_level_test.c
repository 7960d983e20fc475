/* sst_level_test.c — the zstd level of data blocks: files written at levels
 * 0, 1 and 3, with and without SST_W_BULK, read back with every cell; a bulk
 * file's blocks are zstd frames of the fast level (no Huffman-coded
 * literals, the same bytes whatever the family's level) and a family
 * without compression stays uncompressed; in a store, a sorted ingest's
 * file is written at the bulk level and a major compaction rewrites it at
 * the family's level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "ikey.h"
#include "kvt_util.h"
#include "sst.h"

#define N 20000

static size_t mk(uint8_t *b, int i)
{
	char r[16];
	snprintf(r, sizeof(r), "row%07d", i);
	return ikey_encode(b, r, strlen(r), "f", 1, "q", 1, 1000, KV_PUT);
}

/* Values of kind TEXT: lowercase words from a pseudo-random sequence, whose
 * literals Huffman coding shrinks by a third and which repeat little; of
 * kind ROWS: pgbench_accounts' cells (a row's two integers and its blank
 * filler), which matches shrink almost wholly. */
enum { TEXT, ROWS };

static size_t mkval(char *v, int i, int kind)
{
	if (kind == ROWS) {
		if (i % 3 == 2) {
			memset(v, ' ', 84);
			return 84;
		}
		uint32_t x = i % 3 ? 0 : (uint32_t)i / 3;
		for (int j = 0; j < 4; j++)
			v[j] = (char)(x >> (24 - 8 * j));
		return 4;
	}
	uint32_t x = (uint32_t)i * 2654435761u + 12345u;
	size_t n = 40 + (size_t)(i % 60);
	for (size_t j = 0; j < n; j++) {
		x = x * 1103515245u + 12345u;
		v[j] = j % 8 == 7 ? ' ' : (char)('a' + (x >> 16) % 26);
	}
	return n;
}

static void write_file(const char *path, int level, int flags, int kind, sst_props *p)
{
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = 4096;
	fo.compression_level = level;
	sst_writer *w;
	assert_int_equal(sst_writer_open_ex(kv_fs_posix(), path, &fo, 5, flags, &w), KV_OK);
	uint8_t k[64];
	char v[128];
	for (int i = 0; i < N; i++)
		assert_int_equal(sst_writer_add(w, k, mk(k, i), (const uint8_t *)v, mkval(v, i, kind)),
				 KV_OK);
	assert_int_equal(sst_writer_finish(w, p), KV_OK);
}

/* The Literals_Block_Type of the first block of the zstd frame at f (RFC
 * 8878): 0 raw, 1 RLE, 2 Huffman, 3 Huffman with the previous table; -1
 * when that block is not a compressed one. */
static int lit_type(const uint8_t *f)
{
	static const size_t did_size[] = {0, 1, 2, 4};
	uint8_t d = f[4];
	size_t fcs = d >> 6, single = (d >> 5) & 1;
	size_t h = 5 + !single + did_size[d & 3] + (fcs ? (size_t)1 << fcs : single);
	uint32_t bh = (uint32_t)f[h] | (uint32_t)f[h + 1] << 8 | (uint32_t)f[h + 2] << 16;
	return ((bh >> 1) & 3) == 2 ? (f[h + 3] & 3) : -1;
}

/* Walks the first nblocks data blocks of the file at path, all of them
 * zstd frames (asserted through each block's trailer type); returns how
 * many have Huffman-coded literals. */
static int huffman_blocks(const char *path, uint64_t nblocks)
{
	size_t n;
	uint8_t *b = kvt_read_file(path, &n);
	assert_non_null(b);
	size_t off = 0;
	int huf = 0;
	for (uint64_t i = 0; i < nblocks; i++) {
		size_t c = ZSTD_findFrameCompressedSize(b + off, n - off);
		assert_false(ZSTD_isError(c));
		assert_true(off + c + SST_BLOCK_TRAILER <= n);
		assert_int_equal(b[off + c], SST_COMP_ZSTD);
		int t = lit_type(b + off);
		huf += t == 2 || t == 3;
		off += c + SST_BLOCK_TRAILER;
	}
	free(b);
	return huf;
}

static void no_problem(void *arg, const char *msg)
{
	(void)arg;
	fail_msg("verify: %s", msg);
}

/* Every cell of the file, in order, with its value; every block verified. */
static void read_back(const char *path, int kind)
{
	kv_cache *cache = cache_new(1 << 20);
	sst_reader *r;
	assert_int_equal(sst_open(kv_fs_posix(), path, 1, cache, &r), KV_OK);
	assert_int_equal(sst_verify(r, no_problem, NULL), KV_OK);
	kv_src *it = sst_iter_new(r, true);
	uint8_t k[64];
	char v[128];
	int i = 0;
	for (src_seek(it, NULL, 0); it->valid; src_next(it), i++) {
		size_t kl = mk(k, i), vl = mkval(v, i, kind);
		assert_int_equal(it->klen, kl);
		assert_memory_equal(it->key, k, kl);
		assert_int_equal(it->vlen, vl);
		assert_memory_equal(it->val, v, vl);
	}
	assert_int_equal(it->status, KV_OK);
	assert_int_equal(i, N);
	src_close(it);
	sst_unref(r);
	cache_free(cache);
}

/* Each kind of values at levels 0, 1 and 3, with and without SST_W_BULK
 * (and SST_W_ASYNC, whose file is the same): all read back. Level 0
 * compresses nothing, bulk or not. Rows of repeats are written at the fast
 * level whatever the family's (no Huffman-coded literals, and at most 1/8
 * larger than at its level); text at level 1 (sampled blocks saw its
 * literals shrink by more than 1/8), the same bytes as level 1 writes. */
static void test_levels(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("sst_level");
	char pa[4096], pb[4096], p1[4096];
	snprintf(pa, sizeof(pa), "%s/000001.sst", dir);
	snprintf(pb, sizeof(pb), "%s/000002.sst", dir);
	snprintf(p1, sizeof(p1), "%s/000003.sst", dir);
	const int levels[] = {0, 1, 3};
	for (int kind = TEXT; kind <= ROWS; kind++) {
		sst_props l1, a, b;
		write_file(p1, 1, 0, kind, &l1);
		uint64_t bulk_size = 0;
		for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
			write_file(pa, levels[i], 0, kind, &a);
			write_file(pb, levels[i], SST_W_BULK | SST_W_ASYNC, kind, &b);
			read_back(pa, kind);
			read_back(pb, kind);
			assert_int_equal(a.data_blocks, b.data_blocks);
			assert_true(b.data_blocks > 100);
			if (levels[i] == 0) {
				assert_true(kvt_same_files(pa, pb, NULL));
			} else if (kind == TEXT) {
				assert_true(huffman_blocks(pa, a.data_blocks) > 0);
				assert_true(kvt_same_files(p1, pb, NULL));
			} else {
				assert_int_equal(huffman_blocks(pb, b.data_blocks), 0);
				assert_true(b.file_size <= a.file_size + a.file_size / 8);
				assert_true(!bulk_size || b.file_size == bulk_size);
				bulk_size = b.file_size;
			}
			sst_props_free(&a);
			sst_props_free(&b);
		}
		sst_props_free(&l1);
	}
	kvt_close_rm(NULL, dir);
}

/* The store's only sorted file: its path into path; its data blocks. */
static uint64_t only_file(const char *dir, kv_table *t, char *path, size_t cap)
{
	assert_int_equal(kvt_file_count(t), 1);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t l = strlen(e->d_name);
		if (l > 4 && !strcmp(e->d_name + l - 4, ".sst")) {
			snprintf(path, cap, "%s/%s", dir, e->d_name);
			n++;
		}
	}
	closedir(d);
	assert_int_equal(n, 1);
	sst_reader *r;
	assert_int_equal(sst_open(kv_fs_posix(), path, 1, NULL, &r), KV_OK);
	uint64_t blocks = sst_get_props(r)->data_blocks;
	sst_unref(r);
	return blocks;
}

/* A sorted ingest into a family of the default level (3) writes its file at
 * the bulk level; a major compaction rewrites it at the family's. */
static void test_store(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("sst_level_store");
	kv_store *s = kvt_open_spill(dir, NULL, 64 << 20);
	assert_non_null(s);
	static const char *const fams[] = {"f"};
	kv_table *t = kvt_table(s, "t", 1, fams);
	assert_non_null(t);
	kv_batch *b = kv_batch_new();
	kv_batch_sorted(b);
	char r[16], v[128];
	for (int i = 0; i < N; i++) {
		snprintf(r, sizeof(r), "row%07d", i);
		kv_batch_put(b, t, r, strlen(r), "f", "q", 1, 20, v, mkval(v, i, ROWS));
	}
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	assert_int_equal(kv_commit(s, b, &wo, NULL), KV_OK);
	kv_batch_free(b);
	char path[4096];
	uint64_t nb = only_file(dir, t, path, sizeof(path));
	assert_true(nb > 10);
	assert_int_equal(huffman_blocks(path, nb), 0);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)N);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	nb = only_file(dir, t, path, sizeof(path));
	assert_true(huffman_blocks(path, nb) > 0);
	assert_int_equal(kvt_scan_count(t, 0), (size_t)N);
	assert_int_equal(kv_store_verify(s, NULL, NULL), KV_OK);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test(test_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
