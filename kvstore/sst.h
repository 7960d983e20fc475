/*
 * sst.h — sorted files: immutable, one per (kv table, family) flush or
 * compaction output. Layout (docs/file-format.md):
 *
 *   data block* | index block* | bloom block | info block | trailer (64 bytes)
 *
 * Every block is followed by u8 compression type and u32 masked CRC32C of
 * (block bytes, type). Data blocks hold (ikey, value) entries; index
 * blocks hold (separator ikey, handle) entries, in one or more levels.
 */
#ifndef STRATA_KV_SST_H
#define STRATA_KV_SST_H

#include "cache.h"
#include "iter.h"
#include "kv_fs.h"

#define SST_MAGIC         0x5354524154414b31ULL /* "STRATAK1" */
#define SST_VERSION       1
#define SST_TRAILER_SIZE  64
#define SST_BLOCK_TRAILER 5
#define SST_COMP_NONE     0
#define SST_COMP_ZSTD     1
#define SST_BLOOM_SEED    0x5354524bULL

/* Properties of a file (its info block). Keys are malloc'd; free with
 * sst_props_free(). */
typedef struct sst_props {
	uint32_t table_id;
	char family[32];
	uint8_t bloom; /* kv_bloom */
	uint64_t entries, deletes, data_blocks;
	kv_ts min_ts, max_ts;
	uint8_t *smallest, *largest;
	size_t slen, llen;
	uint64_t file_size;
	uint32_t index_levels;
} sst_props;

void sst_props_free(sst_props *p);

typedef struct sst_writer sst_writer;

kv_status sst_writer_open(kv_fs *fs, const char *path, const kv_family_opts *fo, uint32_t table_id,
			  sst_writer **out);
enum {
	SST_W_NO_SYNC = 1,   /* finish without fsync (scratch files; the caller syncs) */
	SST_W_GLOBAL_TS = 2, /* every key has timestamp 0, replaced by a global
			      * timestamp when read (see sst_open_ts): no key
			      * shares its timestamp bytes with the next */
	SST_W_ASYNC = 4,     /* data blocks are compressed, checksummed and
			      * appended by a thread of the writer's own (started
			      * with the first full block, joined by finish and
			      * abandon) while the caller adds the next entries;
			      * the file is byte for byte the one written without
			      * the flag. For large files written in the
			      * foreground (a commit's runs) */
	SST_W_WRITEBACK = 8, /* start the writeback of every written MiB
			      * (kv_fs writeback) so that the fsync before the
			      * file is listed waits for little: for files that
			      * will be kept (not runs merged and deleted) */
	SST_W_BULK = 16,     /* data blocks at SST_BULK_LEVEL when the family
			      * compresses at all (level > 0), whatever its
			      * level, or at level 1 while sampled blocks show
			      * that its Huffman-coded literals save 1/8: for
			      * files built by bulk writes (a large commit's
			      * runs and their merges), rewritten at the
			      * family's level by a later compaction */
};
/* zstd's fast level -1 (docs/kvstore.md, "Compression of bulk-built
 * files"): level 1's match finder without Huffman-coded literals, whose
 * fixed cost per 16 KiB block is a third of level 1's time on repetitive
 * rows; decompression is faster too. */
#define SST_BULK_LEVEL (-1)
kv_status sst_writer_open_ex(kv_fs *fs, const char *path, const kv_family_opts *fo, uint32_t table_id,
			     int flags, sst_writer **out);
/* REQUIRES: keys strictly increasing in ikey order (duplicates dropped by
 * the caller). */
kv_status sst_writer_add(sst_writer *w, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl);
/* sst_writer_add of a row's next cell: k is the key added last with its
 * bytes from `same` on replaced, `same` covering row and family, and the
 * same timestamp and kind (a later qualifier). Skips the per-row work
 * (key split, bloom row check, statistics). */
kv_status sst_writer_add_next(sst_writer *w, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
			      size_t same);
/* A row's n >= 1 cells at once, as sst_writer_add of each cell's key in
 * turn would add them: k is the first cell's key (c[0]'s qualifier), its
 * first `pre` bytes the row and family, and the next cells' keys are k with
 * their qualifiers in c[0]'s place (same timestamp and kind), ascending.
 * The cells' bytes are borrowed for the call. The same file bytes as
 * adding the cells one by one. */
kv_status sst_writer_add_row(sst_writer *w, const uint8_t *k, size_t kl, size_t pre, const kv_put_cell *c,
			     size_t n);
uint64_t sst_writer_entries(const sst_writer *w);
uint64_t sst_writer_bytes(const sst_writer *w); /* file bytes written so far */
/* Writes index, bloom, info and trailer, fsyncs and closes; frees w (also
 * on failure). props receives the file's properties (caller frees). */
kv_status sst_writer_finish(sst_writer *w, sst_props *props);
/* Closes and frees without finishing (the caller unlinks the file). */
void sst_writer_abandon(sst_writer *w);

typedef struct sst_reader sst_reader;

/* Opens a file and loads its index, bloom filter and info (verified).
 * KV_CORRUPTION if anything is malformed. refs = 1. */
kv_status sst_open(kv_fs *fs, const char *path, uint64_t number, kv_cache *cache, sst_reader **out);
/* The same for a file written with SST_W_GLOBAL_TS and committed at gts:
 * the reader presents every timestamp 0 as gts (keys, index, key range). */
kv_status sst_open_ts(kv_fs *fs, const char *path, uint64_t number, kv_cache *cache, kv_ts gts,
		      sst_reader **out);
void sst_ref(sst_reader *r);
void sst_unref(sst_reader *r);
const sst_props *sst_get_props(const sst_reader *r);
bool sst_may_have_row(const sst_reader *r, const void *row, size_t rlen);
bool sst_may_have_column(const sst_reader *r, const void *row, size_t rlen, const void *q, size_t qlen);
/* A source over the file (holds a reference). fill_cache=false reads blocks
 * without inserting them into the block cache. */
kv_src *sst_iter_new(sst_reader *r, bool fill_cache);
/* Point reads without an allocation: a source over r on this call's stack,
 * seeked to k, is passed to fn (valid only during the call; fn must not
 * close it). The blocks' key buffer is *keybuf and *keycap (malloc'd or NULL/0;
 * may be grown; the caller keeps and frees it). The caller holds r. Returns
 * fn's status. */
kv_status sst_with_iter(sst_reader *r, bool fill_cache, const uint8_t *k, size_t kl, uint8_t **keybuf,
			size_t *keycap, kv_status (*fn)(void *arg, kv_src *s), void *arg);
/* Data block index: count and separator key i (valid while r is open). */
size_t sst_nblocks(const sst_reader *r);
void sst_block_key(const sst_reader *r, size_t i, const uint8_t **k, size_t *kl);
/* Index of the first data block whose separator is >= k (nblocks if none). */
size_t sst_find_block(const sst_reader *r, const uint8_t *k, size_t kl);
/* Rows of data block b below k (k NULL: all), counted back from k by restart
 * interval (16 entries) until at least `need` are found: *lo is the row
 * where the counted rows begin (in: empty, or the lowest row counted so far
 * above this block, which is not counted again) and *found how many rows of
 * this block lie in [*lo, k) (fewer than need when the block has no more).
 * For short reverse scans. Reads the block through the cache (inserting it
 * when fill). */
kv_status sst_block_rows_before(sst_reader *r, size_t b, const uint8_t *k, size_t kl, bool fill,
				uint64_t need, util_buf *lo, uint64_t *found);
/* Reads and checks every block; reports problems through fn. */
kv_status sst_verify(sst_reader *r, void (*fn)(void *arg, const char *problem), void *arg);
/* Calls fn for each entry (for the dump tool). */
kv_status sst_dump(sst_reader *r,
		   void (*fn)(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl),
		   void *arg);

/* Blocked bloom filter: every probe of a key falls in one 64-byte line, so a
 * lookup costs one cache miss (docs/file-format.md). */
#define SST_BLOOM_LINE_BITS 512
/* The line of hash h, and the bit of its j-th probe within the line. */
static inline size_t sst_bloom_line(uint64_t h, size_t nlines)
{
	return (size_t)((h >> 32) % nlines);
}
static inline size_t sst_bloom_in_line(uint64_t h, int j)
{
	uint32_t h2 = (uint32_t)h;
	uint32_t delta = ((h2 >> 17) | (h2 << 15)) | 1;
	return (size_t)((h2 + (uint32_t)j * delta) % SST_BLOOM_LINE_BITS);
}
static inline size_t sst_bloom_bit(uint64_t h, size_t nlines, int j)
{
	return sst_bloom_line(h, nlines) * SST_BLOOM_LINE_BITS + sst_bloom_in_line(h, j);
}

/* Bloom hashes (stable on disk). */
static inline uint64_t sst_row_hash(const void *row, size_t rlen)
{
	return util_hash64(row, rlen, SST_BLOOM_SEED);
}
static inline uint64_t sst_rowcol_hash(const void *row, size_t rlen, const void *q, size_t qlen)
{
	return util_hash64(q, qlen, sst_row_hash(row, rlen));
}

#endif /* STRATA_KV_SST_H */
