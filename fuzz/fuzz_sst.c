/*
 * fuzz_sst.c — libFuzzer target for the sorted-file reader (kvstore
 * sst_read.c, block.c): the input is a sorted file, read through a
 * read-only in-memory file system. Opening may fail with KV_CORRUPTION but
 * nothing may crash, hang or leak; then every entry is iterated forwards
 * and backwards, blocks are sought, bloom filters probed, the file verified
 * and dumped.
 *
 * Input byte 0: bit 0 = fix checksums (every block read gets a correct
 * CRC, so mutations reach the block and index decoders instead of stopping
 * at the checksum), bit 1 = read through the block cache. The rest is the
 * file. Seeds (fuzz/corpus/sst) are real sorted files with byte 0 = 0x01.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "fuzz_util.h"
#include "kv.h"
#include "kv_fs.h"
#include "sst.h"
#include "util.h"

/* ---- a read-only file system over the input ---- */

static const uint8_t *mem_data;
static size_t mem_size;
static bool mem_fix;

typedef struct mfile {
	kv_file base;
} mfile;

static int m_open_read(kv_fs *fs, const char *path, kv_file **out)
{
	(void)path;
	mfile *f = malloc(sizeof *f);
	f->base.fs = fs;
	*out = &f->base;
	return 0;
}

static int m_open_write(kv_fs *fs, const char *path, bool truncate, kv_file **out)
{
	(void)fs, (void)path, (void)truncate, (void)out;
	return EROFS;
}

/* With mem_fix, a read of a block plus its trailer (size+5 bytes) or of the
 * file trailer (the last 64 bytes) comes back with a correct checksum. */
static int m_pread(kv_file *f, void *buf, size_t n, uint64_t off, size_t *got)
{
	(void)f;
	if (off >= mem_size) {
		*got = 0;
		return 0;
	}
	size_t k = mem_size - off < n ? (size_t)(mem_size - off) : n;
	memcpy(buf, mem_data + off, k);
	*got = k;
	if (mem_fix && k == n) {
		uint8_t *b = buf;
		if (n == SST_TRAILER_SIZE && off + n == mem_size)
			util_put_be32(b + 52, util_crc_mask(util_crc32c(0, b, 52)));
		else if (n > SST_BLOCK_TRAILER)
			util_put_be32(b + n - 4, util_crc_mask(util_crc32c(0, b, n - 4)));
	}
	return 0;
}

static int m_size(kv_file *f, uint64_t *out)
{
	(void)f;
	*out = mem_size;
	return 0;
}

static void m_close(kv_file *f)
{
	free(f);
}

static int m_exists(kv_fs *fs, const char *path)
{
	(void)fs, (void)path;
	return 0;
}

static kv_fs memfs = {
    .open_read = m_open_read,
    .open_write = m_open_write,
    .pread = m_pread,
    .size = m_size,
    .close = m_close,
    .exists = m_exists,
};

/* ---- the target ---- */

static kv_cache *cache;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	util_log_set_level(UTIL_LOG_FATAL);
	cache = cache_new(1 << 20);
	return 0;
}

static void problem(void *arg, const char *p)
{
	(void)arg;
	fuzz_consume(p, strlen(p));
}

static void entry(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	(void)arg;
	fuzz_consume(k, kl);
	fuzz_consume(v, vl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 20)
		return 0;
	mem_fix = data[0] & 1;
	bool use_cache = data[0] & 2;
	mem_data = data + 1;
	mem_size = size - 1;
	sst_reader *r;
	if (sst_open(&memfs, "fuzz.sst", 1, use_cache ? cache : NULL, &r) != KV_OK)
		return 0;
	const sst_props *p = sst_get_props(r);
	fuzz_consume(p->smallest, p->slen);
	fuzz_consume(p->largest, p->llen);
	kv_src *it = sst_iter_new(r, use_cache);
	uint8_t *mid = NULL; /* a whole key: seeks take well-formed keys only */
	size_t midlen = 0, n = 0;
	for (src_seek(it, NULL, 0); it->valid && n < 200000; src_next(it), n++) {
		fuzz_consume(it->key, it->klen);
		fuzz_consume(it->val, it->vlen);
		if (n == 3) {
			midlen = it->klen;
			mid = malloc(midlen ? midlen : 1);
			memcpy(mid, it->key, midlen);
		}
	}
	src_seek_lt(it, NULL, 0);
	uint8_t *prev = NULL;
	for (n = 0; it->valid && n < 50; n++) {
		/* the key is valid until the iterator moves: seek with a copy */
		prev = realloc(prev, it->klen ? it->klen : 1);
		memcpy(prev, it->key, it->klen);
		src_seek_lt(it, prev, it->klen);
	}
	free(prev);
	if (midlen) {
		src_seek(it, mid, midlen);
		src_seek_lt(it, mid, midlen);
		fuzz_consume(&it->valid, 1);
		(void)sst_may_have_row(r, mid, midlen);
		(void)sst_may_have_column(r, mid, midlen, "q", 1);
		(void)sst_find_block(r, mid, midlen);
	}
	free(mid);
	src_close(it);
	size_t nb = sst_nblocks(r);
	for (size_t i = 0; i < nb && i < 16; i++) {
		const uint8_t *k;
		size_t kl;
		sst_block_key(r, i, &k, &kl);
		fuzz_consume(k, kl);
		(void)sst_find_block(r, k, kl);
	}
	sst_verify(r, problem, NULL);
	sst_dump(r, entry, NULL);
	sst_unref(r);
	cache_erase_file(cache, 1);
	return 0;
}
