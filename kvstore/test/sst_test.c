/* sst_test.c — sorted files: write and read back, seeks both ways, a
 * multi-level index, bloom filters, zstd blocks, and corruption detection
 * (a flipped bit is KV_CORRUPTION, never wrong data). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ikey.h"
#include "kvt_util.h"
#include "sst.h"

#define N 6000

static size_t mk(uint8_t *b, int row, kv_ts ts)
{
	char r[16];
	snprintf(r, sizeof(r), "row%06d", row * 2);
	return ikey_encode(b, r, strlen(r), "f", 1, "qual", 4, ts, KV_PUT);
}

static char *write_file(const char *dir, int level, kv_bloom bloom, sst_props *p)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/000001.sst", dir);
	kv_family_opts fo;
	kv_family_opts_default(&fo, "f");
	fo.block_size = 1024;
	fo.compression_level = level;
	fo.bloom = bloom;
	sst_writer *w;
	assert_int_equal(sst_writer_open(kv_fs_posix(), path, &fo, 7, &w), KV_OK);
	uint8_t k[64];
	for (int i = 0; i < N; i++) {
		char v[64];
		snprintf(v, sizeof(v), "value-%d-%s", i, "padding padding padding padding");
		size_t n = mk(k, i, 1000);
		assert_int_equal(sst_writer_add(w, k, n, (const uint8_t *)v, strlen(v)), KV_OK);
	}
	assert_int_equal(sst_writer_finish(w, p), KV_OK);
	return path;
}

static void test_roundtrip(void **state)
{
	char *dir = kvt_tmpdir("sst");
	for (int level = 0; level <= 3; level += 3) {
		sst_props p;
		char *path = write_file(dir, level, KV_BLOOM_ROW, &p);
		assert_int_equal(p.entries, N);
		assert_true(p.index_levels >= 2); /* 1 KiB blocks force a multi-level index */
		assert_int_equal(p.table_id, 7);
		kv_cache *cache = cache_new(1 << 20);
		sst_reader *r;
		assert_int_equal(sst_open(kv_fs_posix(), path, 1, cache, &r), KV_OK);
		assert_int_equal(sst_get_props(r)->entries, N);
		assert_int_equal(sst_nblocks(r), p.data_blocks);
		kv_src *it = sst_iter_new(r, true);
		int i = 0;
		uint8_t k[64];
		for (src_seek(it, NULL, 0); it->valid; src_next(it), i++) {
			size_t n = mk(k, i, 1000);
			assert_int_equal(it->klen, n);
			assert_memory_equal(it->key, k, n);
		}
		assert_int_equal(it->status, KV_OK);
		assert_int_equal(i, N);
		/* Seek to every row and between rows, forward and backward. */
		for (int j = 0; j < 2 * N; j += 37) {
			char row[16];
			snprintf(row, sizeof(row), "row%06d", j);
			size_t n = ikey_row_first(k, row, strlen(row));
			src_seek(it, k, n);
			int want = (j + 1) / 2;
			if (want < N) {
				assert_true(it->valid);
				uint8_t w[64];
				size_t wn = mk(w, want, 1000);
				assert_memory_equal(it->key, w, wn);
			}
			src_seek_lt(it, k, n);
			int lt = (j - 1) / 2;
			if (j == 0) {
				assert_false(it->valid);
			} else {
				assert_true(it->valid);
				uint8_t w[64];
				size_t wn = mk(w, lt, 1000);
				assert_memory_equal(it->key, w, wn);
			}
		}
		src_seek_lt(it, NULL, 0);
		assert_true(it->valid);
		/* Bloom: every present row passes, most absent rows do not. */
		int fp = 0;
		for (int j = 0; j < N; j++) {
			char row[16];
			snprintf(row, sizeof(row), "row%06d", j * 2);
			assert_true(sst_may_have_row(r, row, strlen(row)));
			snprintf(row, sizeof(row), "row%06d", j * 2 + 1);
			fp += sst_may_have_row(r, row, strlen(row));
		}
		assert_true(fp < N / 20);
		assert_int_equal(sst_verify(r, NULL, NULL), KV_OK);
		src_close(it);
		sst_unref(r);
		cache_free(cache);
		sst_props_free(&p);
		unlink(path);
		free(path);
	}
	kvt_close_rm(NULL, dir);
}

static int problems;
static void count_problem(void *arg, const char *msg)
{
	problems++;
}

static void test_corruption(void **state)
{
	char *dir = kvt_tmpdir("sstc");
	sst_props p;
	char *path = write_file(dir, 3, KV_BLOOM_ROW, &p);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *orig = malloc((size_t)size);
	assert_int_equal(fread(orig, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	/* Flip one bit at many offsets: open or reads fail with KV_CORRUPTION,
	 * or every entry read back is exactly right. */
	int detected = 0;
	for (long off = 0; off < size; off += 97) {
		uint8_t *d = malloc((size_t)size);
		memcpy(d, orig, (size_t)size);
		d[off] ^= 0x10;
		f = fopen(path, "wb");
		fwrite(d, 1, (size_t)size, f);
		fclose(f);
		free(d);
		sst_reader *r;
		kv_status st = sst_open(kv_fs_posix(), path, 1, NULL, &r);
		if (st) {
			assert_int_equal(st, KV_CORRUPTION);
			detected++;
			continue;
		}
		kv_src *it = sst_iter_new(r, false);
		int i = 0;
		uint8_t k[64];
		for (src_seek(it, NULL, 0); it->valid; src_next(it), i++) {
			size_t n = mk(k, i, 1000);
			assert_int_equal(it->klen, n);
			assert_memory_equal(it->key, k, n);
		}
		if (it->status) {
			assert_int_equal(it->status, KV_CORRUPTION);
			detected++;
			problems = 0;
			assert_int_equal(sst_verify(r, count_problem, NULL), KV_CORRUPTION);
			assert_true(problems > 0);
		} else {
			assert_int_equal(i, N);
		}
		src_close(it);
		sst_unref(r);
		/* Seeks through the block cache (blocks there carry the
		 * restart search aid): each lands on the right key or fails
		 * with KV_CORRUPTION. */
		kv_cache *cache = cache_new(1 << 20);
		assert_int_equal(sst_open(kv_fs_posix(), path, 1, cache, &r), KV_OK);
		it = sst_iter_new(r, true);
		for (int j = 0; j < 2 * N; j += 13) {
			char row[16];
			snprintf(row, sizeof(row), "row%06d", j);
			size_t n = ikey_row_first(k, row, strlen(row));
			src_seek(it, k, n);
			if (it->status) {
				assert_int_equal(it->status, KV_CORRUPTION);
				continue;
			}
			if ((j + 1) / 2 < N) {
				assert_true(it->valid);
				uint8_t w[64];
				size_t wn = mk(w, (j + 1) / 2, 1000);
				assert_int_equal(it->klen, wn);
				assert_memory_equal(it->key, w, wn);
			}
		}
		src_close(it);
		sst_unref(r);
		cache_free(cache);
	}
	assert_true(detected > 0);
	free(orig);
	sst_props_free(&p);
	unlink(path);
	free(path);
	kvt_close_rm(NULL, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_corruption),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
