/* sst_write.c — writing sorted files: data blocks (zstd per block when it
 * pays), a multi-level block index with shortest separators, a bloom filter
 * over rows (and row+qualifier), the info block and the trailer. With
 * SST_W_ASYNC the data blocks are compressed, checksummed and appended by a
 * second thread while the caller builds the next ones. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "ikey.h"
#include "kv_int.h"
#include "sst.h"

#define RESTART_INTERVAL       16
#define INDEX_RESTART_INTERVAL 1
/* SST_W_WRITEBACK: the bytes written between two writeback hints. */
#define WRITEBACK_BYTES (1u << 20)

/* Finished data blocks queued for the background writer (SST_W_ASYNC). An
 * idle writer is woken when half of them are full (or at the end): one
 * wake-up per few blocks, not one per block, as it is usually the faster. */
#define BG_SLOTS 8
#define BG_WAKE  (BG_SLOTS / 2)

typedef struct idx_ent {
	uint32_t koff, klen;
	uint64_t off;
	uint32_t size;
} idx_ent;

struct sst_writer {
	kv_fs *fs;
	kv_file *f;
	char *path;
	kv_family_opts fo;
	int level;        /* zstd level of the next data block; 0: none */
	uint64_t zblocks; /* data blocks compressed (SST_W_BULK's probes) */
	uint32_t table_id;
	uint64_t off;
	uint64_t wb_off; /* SST_W_WRITEBACK: written back from here on */
	blk_builder data;
	util_buf last; /* last key added */
	bool pending;  /* a finished block awaits its index separator */
	uint64_t pend_off;
	uint32_t pend_size;
	util_buf idx_keys; /* separator bytes */
	idx_ent *idx;
	size_t nidx, cidx;
	uint64_t *hashes; /* bloom hashes */
	size_t nhash, chash;
	util_buf last_row, last_col; /* for bloom dedup */
	util_buf smallest;
	util_buf rowkey; /* sst_writer_add_row: a row's next key, built cell by cell */
	sst_props pr;
	ZSTD_CCtx *zc;
	util_buf cbuf;
	kv_status st;
	int flags;
	struct bgw *bg; /* SST_W_ASYNC, once the first data block is full */
};

/* The background writer of one file. Between its start and bgw_stop() it
 * alone calls write_block (owning zc, cbuf, level, zblocks, off and the
 * file); the caller only fills slots. Block i's handle is offs[i]/sizes[i], read after the
 * join: the caller's index entries hold block numbers until then. */
typedef struct bgw {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_room;
	util_buf slot[BG_SLOTS]; /* raw blocks, in order from head */
	size_t head, count;
	bool idle;      /* the thread waits for work */
	bool full;      /* the caller waits for a free slot */
	bool done;      /* no more blocks will come */
	bool cancel;    /* drop what is queued (abandon) */
	uint64_t bytes; /* of the file so far (the thread's off) */
	kv_status st;   /* the first failure; later blocks are dropped */
	char msg[512];
	uint64_t *offs;
	uint32_t *sizes;
	size_t nblk, cblk;
} bgw;

kv_status sst_writer_open(kv_fs *fs, const char *path, const kv_family_opts *fo, uint32_t table_id,
			  sst_writer **out)
{
	return sst_writer_open_ex(fs, path, fo, table_id, 0, out);
}

kv_status sst_writer_open_ex(kv_fs *fs, const char *path, const kv_family_opts *fo, uint32_t table_id,
			     int flags, sst_writer **out)
{
	kv_file *f;
	int e = fs->open_write(fs, path, true, &f);
	if (e)
		return kv_fail_errno(e, "create", path);
	sst_writer *w = util_xcalloc(1, sizeof(*w));
	w->fs = fs;
	w->f = f;
	w->path = util_xstrdup(path);
	w->fo = *fo;
	w->level = fo->compression_level > 0 && (flags & SST_W_BULK) ? SST_BULK_LEVEL : fo->compression_level;
	if (w->fo.block_size < 1024)
		w->fo.block_size = 1024;
	w->table_id = table_id;
	blkb_init(&w->data, RESTART_INTERVAL);
	w->flags = flags;
	if (flags & SST_W_GLOBAL_TS)
		w->data.keep_suffix = IKEY_TS_END;
	w->pr.min_ts = KV_TS_MAX;
	w->pr.table_id = table_id;
	snprintf(w->pr.family, sizeof(w->pr.family), "%s", fo->name);
	w->pr.bloom = (uint8_t)fo->bloom;
	*out = w;
	return KV_OK;
}

static void bgw_stop(sst_writer *w, bool cancel);

static void free_writer(sst_writer *w)
{
	blkb_free(&w->data);
	util_buf_free(&w->last);
	util_buf_free(&w->idx_keys);
	free(w->idx);
	free(w->hashes);
	util_buf_free(&w->last_row);
	util_buf_free(&w->last_col);
	util_buf_free(&w->smallest);
	util_buf_free(&w->rowkey);
	util_buf_free(&w->cbuf);
	if (w->zc)
		ZSTD_freeCCtx(w->zc);
	free(w->path);
	free(w);
}

void sst_writer_abandon(sst_writer *w)
{
	if (!w)
		return;
	bgw_stop(w, true);
	w->fs->close(w->f);
	free_writer(w);
}

uint64_t sst_writer_entries(const sst_writer *w)
{
	return w->pr.entries;
}

/* With SST_W_ASYNC, off lags by the blocks still queued: read under the
 * lock, it counts what the background writer has appended so far. */
uint64_t sst_writer_bytes(const sst_writer *w)
{
	if (!w->bg)
		return w->off + blkb_size(&w->data);
	pthread_mutex_lock(&w->bg->mu);
	uint64_t off = w->bg->bytes;
	pthread_mutex_unlock(&w->bg->mu);
	return off + blkb_size(&w->data);
}

/* Data block data[0..n) zstd-compressed into w->cbuf, with room after it
 * for the block trailer: its bytes and *cn their count, or NULL when
 * compression does not save at least 1/8 (the block is stored raw).
 * SST_W_BULK: every BULK_PROBE-th data block is compressed at level 1 as
 * well; while level 1's Huffman-coded literals save at least 1/8 of the
 * fast level's output (text that repeats little), that block and the next
 * ones are written at level 1, otherwise at the fast level. */
#define BULK_PROBE 64
static uint8_t *compress_block(sst_writer *w, const uint8_t *data, size_t n, size_t *cn)
{
	if (!w->zc && !(w->zc = ZSTD_createCCtx()))
		return NULL;
	size_t bound = ZSTD_compressBound(n);
	bool probe = (w->flags & SST_W_BULK) && w->zblocks++ % BULK_PROBE == 0;
	util_buf_reset(&w->cbuf);
	util_buf_reserve(&w->cbuf, (probe ? 2 : 1) * (bound + SST_BLOCK_TRAILER));
	uint8_t *out = (uint8_t *)w->cbuf.data;
	size_t c = ZSTD_compressCCtx(w->zc, out, bound, data, n, probe ? SST_BULK_LEVEL : w->level);
	if (probe && !ZSTD_isError(c)) {
		uint8_t *o1 = out + bound + SST_BLOCK_TRAILER;
		size_t c1 = ZSTD_compressCCtx(w->zc, o1, bound, data, n, 1);
		bool l1 = !ZSTD_isError(c1) && c1 < c - c / 8;
		w->level = l1 ? 1 : SST_BULK_LEVEL;
		if (l1) {
			out = o1;
			c = c1;
		}
	}
	if (ZSTD_isError(c) || c >= n - n / 8)
		return NULL;
	*cn = c;
	return out;
}

/* Writes one physical block: bytes, type, masked CRC. */
static kv_status write_block(sst_writer *w, const uint8_t *data, size_t n, bool compress, uint64_t *off,
			     uint32_t *size)
{
	uint8_t type = SST_COMP_NONE;
	uint8_t *z = NULL; /* the compressed bytes, in w->cbuf */
	size_t zn;
	if (compress && w->level != 0 && (z = compress_block(w, data, n, &zn))) {
		data = z;
		n = zn;
		type = SST_COMP_ZSTD;
	}
	uint8_t tr[SST_BLOCK_TRAILER];
	tr[0] = type;
	uint32_t crc = util_crc32c(0, data, n);
	crc = util_crc32c(crc, tr, 1);
	util_put_be32(tr + 1, util_crc_mask(crc));
	int e;
	if (type == SST_COMP_ZSTD) {
		/* The trailer after the compressed bytes: one write per block. */
		memcpy(z + n, tr, SST_BLOCK_TRAILER);
		e = w->fs->append(w->f, data, n + SST_BLOCK_TRAILER);
	} else {
		e = w->fs->append(w->f, data, n);
		if (!e)
			e = w->fs->append(w->f, tr, SST_BLOCK_TRAILER);
	}
	if (e)
		return kv_fail_errno(e, "write", w->path);
	*off = w->off;
	*size = (uint32_t)n;
	w->off += n + SST_BLOCK_TRAILER;
	if ((w->flags & SST_W_WRITEBACK) && w->fs->writeback && w->off - w->wb_off >= WRITEBACK_BYTES) {
		w->fs->writeback(w->f, w->wb_off, w->off - w->wb_off);
		w->wb_off = w->off;
	}
	return KV_OK;
}

static void add_index(sst_writer *w, const uint8_t *k, size_t kl, uint64_t off, uint32_t size)
{
	if (w->nidx == w->cidx) {
		w->cidx = w->cidx ? 2 * w->cidx : 256;
		w->idx = util_xrealloc(w->idx, w->cidx * sizeof(idx_ent));
	}
	idx_ent *e = &w->idx[w->nidx++];
	e->koff = (uint32_t)w->idx_keys.len;
	e->klen = (uint32_t)kl;
	e->off = off;
	e->size = size;
	util_buf_append(&w->idx_keys, k, kl);
}

/* A short key s with a <= s < b (LevelDB's FindShortestSeparator on rows). */
static void separator(util_buf *out, const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	util_buf_reset(out);
	size_t ra = ikey_rowlen(a), rb = ikey_rowlen(b);
	const uint8_t *pa = a + 2, *pb = b + 2;
	size_t n = UTIL_MIN(ra, rb), i = 0;
	while (i < n && pa[i] == pb[i])
		i++;
	if (i < n) {
		uint8_t s[IKEY_ROW_MAX + 1];
		size_t sl = 0;
		if ((unsigned)pa[i] + 1 < pb[i]) {
			memcpy(s, pa, i);
			s[i] = (uint8_t)(pa[i] + 1);
			sl = i + 1;
		} else {
			for (size_t j = i + 1; j < ra; j++) {
				if (pa[j] != 0xff) {
					memcpy(s, pa, j);
					s[j] = (uint8_t)(pa[j] + 1);
					sl = j + 1;
					break;
				}
			}
		}
		if (sl) {
			util_buf_reserve(out, ikey_size(sl, 0, 0));
			out->len = ikey_row_first((uint8_t *)out->data, s, sl);
			return;
		}
	}
	util_buf_append(out, a, al);
}

/* ------------------------------------------------- background block writer */

static void *bgw_main(void *arg)
{
	sst_writer *w = arg;
	bgw *bg = w->bg;
	util_buf blk = UTIL_BUF_INIT;
	pthread_mutex_lock(&bg->mu);
	for (;;) {
		while (bg->count == 0 && !bg->done) {
			bg->idle = true;
			pthread_cond_wait(&bg->cv_work, &bg->mu);
		}
		bg->idle = false;
		if (bg->count == 0 || bg->cancel)
			break;
		/* Take the block, leaving this thread's spent buffer in its slot. */
		util_buf t = bg->slot[bg->head];
		bg->slot[bg->head] = blk;
		blk = t;
		bg->head = (bg->head + 1) % BG_SLOTS;
		bg->count--;
		kv_status failed = bg->st;
		pthread_mutex_unlock(&bg->mu);
		uint64_t off = 0;
		uint32_t size = 0;
		kv_status st =
		    failed ? failed : write_block(w, (const uint8_t *)blk.data, blk.len, true, &off, &size);
		if (bg->nblk == bg->cblk) {
			bg->cblk = bg->cblk ? 2 * bg->cblk : 256;
			bg->offs = util_xrealloc(bg->offs, bg->cblk * sizeof(uint64_t));
			bg->sizes = util_xrealloc(bg->sizes, bg->cblk * sizeof(uint32_t));
		}
		bg->offs[bg->nblk] = off;
		bg->sizes[bg->nblk++] = size;
		pthread_mutex_lock(&bg->mu);
		bg->bytes = w->off;
		if (st && !bg->st) {
			bg->st = st;
			snprintf(bg->msg, sizeof(bg->msg), "%s", kv_errmsg());
		}
		/* The caller that waits for room is woken when half the slots
		 * are free (or on a failure): a wake-up per four blocks, not one per
		 * block while compressing is the slower side. */
		if (bg->full && (bg->count <= BG_SLOTS - BG_WAKE || bg->st))
			pthread_cond_signal(&bg->cv_room);
	}
	pthread_mutex_unlock(&bg->mu);
	util_buf_free(&blk);
	/* The thread's own CPU: with the caller's, the critical path of a
	 * write, which wall time on a shared machine does not show. */
	struct timespec cpu;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	util_log(UTIL_LOG_DEBUG, "sst writer %s: %zu blocks compressed and written in %lld ms of CPU",
		 w->path, bg->nblk, (long long)cpu.tv_sec * 1000 + cpu.tv_nsec / 1000000);
	return NULL;
}

/* Queues the finished data block (its buffer is swapped for a spent one);
 * starts the thread with the first block. Fails with the background
 * writer's first failure. */
static kv_status bgw_put(sst_writer *w)
{
	bgw *bg = w->bg;
	if (!bg) {
		bg = util_xcalloc(1, sizeof(*bg));
		pthread_mutex_init(&bg->mu, NULL);
		pthread_cond_init(&bg->cv_work, NULL);
		pthread_cond_init(&bg->cv_room, NULL);
		w->bg = bg;
		if (pthread_create(&bg->th, NULL, bgw_main, w)) {
			/* No thread: write in the caller, as without the flag. */
			pthread_mutex_destroy(&bg->mu);
			pthread_cond_destroy(&bg->cv_work);
			pthread_cond_destroy(&bg->cv_room);
			free(bg);
			w->bg = NULL;
			w->flags &= ~SST_W_ASYNC;
			return write_block(w, (const uint8_t *)w->data.buf.data, w->data.buf.len, true,
					   &w->pend_off, &w->pend_size);
		}
	}
	pthread_mutex_lock(&bg->mu);
	while (bg->count == BG_SLOTS && !bg->st) {
		bg->full = true;
		pthread_cond_wait(&bg->cv_room, &bg->mu);
	}
	bg->full = false;
	kv_status st = bg->st;
	if (st) {
		kv_fail(st, "%s", bg->msg);
	} else {
		size_t i = (bg->head + bg->count) % BG_SLOTS;
		util_buf t = bg->slot[i];
		bg->slot[i] = w->data.buf;
		w->data.buf = t;
		bg->count++;
		if (bg->idle && bg->count >= BG_WAKE)
			pthread_cond_signal(&bg->cv_work);
	}
	pthread_mutex_unlock(&bg->mu);
	return st;
}

/* Waits for the queued blocks to be written (cancel: drops them), joins
 * the thread and frees the queue; the block handles stay for the index. No-op
 * without a thread. Returns the background writer's first failure. */
static kv_status bgw_join(sst_writer *w, bool cancel)
{
	bgw *bg = w->bg;
	if (!bg)
		return KV_OK;
	pthread_mutex_lock(&bg->mu);
	bg->done = true;
	bg->cancel = cancel;
	pthread_cond_signal(&bg->cv_work);
	pthread_mutex_unlock(&bg->mu);
	pthread_join(bg->th, NULL);
	for (size_t i = 0; i < BG_SLOTS; i++)
		util_buf_free(&bg->slot[i]);
	if (bg->st)
		kv_fail(bg->st, "%s", bg->msg);
	return bg->st;
}

static void bgw_stop(sst_writer *w, bool cancel)
{
	bgw *bg = w->bg;
	if (!bg)
		return;
	if (!bg->done)
		bgw_join(w, cancel);
	pthread_mutex_destroy(&bg->mu);
	pthread_cond_destroy(&bg->cv_work);
	pthread_cond_destroy(&bg->cv_room);
	free(bg->offs);
	free(bg->sizes);
	free(bg);
	w->bg = NULL;
}

static kv_status flush_data(sst_writer *w)
{
	if (blkb_empty(&w->data))
		return KV_OK;
	blkb_finish(&w->data);
	/* The block's last key becomes w->last (separators, the file's
	 * largest key). */
	util_buf lastk = w->last;
	w->last = w->data.last;
	w->data.last = lastk;
	kv_status st;
	if (w->flags & SST_W_ASYNC) {
		/* The handle is the block's number until bgw_join. */
		w->pend_off = w->pr.data_blocks;
		w->pend_size = 0;
		st = bgw_put(w);
	} else {
		st = write_block(w, (const uint8_t *)w->data.buf.data, w->data.buf.len, true, &w->pend_off,
				 &w->pend_size);
	}
	blkb_reset(&w->data);
	if (st)
		return st;
	w->pending = true;
	w->pr.data_blocks++;
	return KV_OK;
}

static void add_hash(sst_writer *w, uint64_t h)
{
	if (w->nhash == w->chash) {
		w->chash = w->chash ? 2 * w->chash : 1024;
		w->hashes = util_xrealloc(w->hashes, w->chash * sizeof(uint64_t));
	}
	w->hashes[w->nhash++] = h;
}

/* The index entry of the block flushed before k, now that its separator
 * from k can be chosen. */
static void index_pending(sst_writer *w, const uint8_t *k, size_t kl)
{
	util_buf sep = UTIL_BUF_INIT;
	separator(&sep, (const uint8_t *)w->last.data, w->last.len, k, kl);
	add_index(w, (const uint8_t *)sep.data, sep.len, w->pend_off, w->pend_size);
	util_buf_free(&sep);
	w->pending = false;
}

kv_status sst_writer_add_next(sst_writer *w, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
			      size_t same)
{
	/* A row-and-column bloom hashes each column: the general path. */
	if (w->fo.bloom == KV_BLOOM_ROWCOL || w->pr.entries == 0)
		return sst_writer_add(w, k, kl, v, vl);
	if (w->st)
		return w->st;
	if (w->pending)
		index_pending(w, k, kl);
	w->pr.entries++;
	blkb_add_same(&w->data, k, kl, v, vl, same);
	if (blkb_size(&w->data) >= w->fo.block_size)
		w->st = flush_data(w);
	return w->st;
}

kv_status sst_writer_add_row(sst_writer *w, const uint8_t *k, size_t kl, size_t pre, const kv_put_cell *c,
			     size_t n)
{
	kv_status st = sst_writer_add(w, k, kl, c[0].val, c[0].vlen);
	if (st || n == 1)
		return st;
	const uint8_t *suffix = k + kl - IKEY_SUFFIX;
	/* The rest at once when it ends inside this block: no block ends inside
	 * (so no separator needs a next key) and the row bloom has the row. */
	size_t room = blkb_row_room(pre, c + 1, n - 1, IKEY_SUFFIX);
	if (w->fo.bloom != KV_BLOOM_ROWCOL && !w->pending && !blkb_empty(&w->data) &&
	    blkb_size(&w->data) + room < w->fo.block_size) {
		blkb_add_row(&w->data, pre, c, n, suffix, IKEY_SUFFIX, room);
		w->pr.entries += n - 1;
		return KV_OK;
	}
	/* Cell by cell, each key built (a block ending inside the row needs the
	 * next key for its separator; a row-and-column bloom hashes each). */
	util_buf *key = &w->rowkey;
	util_buf_reset(key);
	util_buf_append(key, k, pre);
	for (size_t i = 1; i < n && !st; i++) {
		key->len = pre;
		util_buf_append(key, c[i].qual, c[i].qlen);
		util_buf_append(key, suffix, IKEY_SUFFIX);
		st = sst_writer_add_next(w, (const uint8_t *)key->data, key->len, c[i].val, c[i].vlen, pre);
	}
	return st;
}

kv_status sst_writer_add(sst_writer *w, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	if (w->st)
		return w->st;
	if (w->pending)
		index_pending(w, k, kl);
	ikey_parts p;
	ikey_split(k, kl, &p);
	if ((w->flags & SST_W_GLOBAL_TS) && p.ts != 0)
		return w->st = kv_fail(KV_INVALID, "%s: a key with a timestamp in a global-timestamp file",
				       w->path);
	if (w->fo.bloom != KV_BLOOM_NONE) {
		bool new_row = w->pr.entries == 0 || w->last_row.len != p.rlen ||
			       memcmp(w->last_row.data, p.row, p.rlen) != 0;
		if (new_row) {
			add_hash(w, sst_row_hash(p.row, p.rlen));
			util_buf_reset(&w->last_row);
			util_buf_append(&w->last_row, p.row, p.rlen);
		}
		if (w->fo.bloom == KV_BLOOM_ROWCOL &&
		    (new_row || w->last_col.len != p.qlen || memcmp(w->last_col.data, p.qual, p.qlen) != 0)) {
			add_hash(w, sst_rowcol_hash(p.row, p.rlen, p.qual, p.qlen));
			util_buf_reset(&w->last_col);
			util_buf_append(&w->last_col, p.qual, p.qlen);
		}
	}
	if (w->pr.entries == 0)
		util_buf_append(&w->smallest, k, kl);
	w->pr.entries++;
	if (p.type != KV_PUT)
		w->pr.deletes++;
	if (p.ts < w->pr.min_ts)
		w->pr.min_ts = p.ts;
	if (p.ts > w->pr.max_ts)
		w->pr.max_ts = p.ts;
	/* The block builder keeps the last key (w->last gets it when the
	 * block is flushed): no second copy per cell. */
	blkb_add(&w->data, k, kl, v, vl);
	if (blkb_size(&w->data) >= w->fo.block_size)
		w->st = flush_data(w);
	return w->st;
}

/* Writes index levels bottom-up; returns the root handle and level count. */
static kv_status write_index(sst_writer *w, uint64_t *root_off, uint32_t *root_size, uint32_t *levels)
{
	idx_ent *ents = w->idx;
	size_t n = w->nidx;
	util_buf *keys = &w->idx_keys;
	util_buf next_keys = UTIL_BUF_INIT;
	idx_ent *next = NULL;
	kv_status st = KV_OK;
	blk_builder b;
	blkb_init(&b, INDEX_RESTART_INTERVAL);
	*levels = 0;
	for (;;) {
		size_t nn = 0, cn = 0;
		size_t start = 0;
		(*levels)++;
		for (size_t i = 0; i < n; i++) {
			uint8_t hv[20];
			size_t hl = util_varint_put(hv, ents[i].off);
			hl += util_varint_put(hv + hl, ents[i].size);
			blkb_add(&b, (const uint8_t *)keys->data + ents[i].koff, ents[i].klen, hv, hl);
			bool last = i + 1 == n;
			/* Cut a block at the target size unless this level fits in one. */
			if (last || blkb_size(&b) >= w->fo.block_size) {
				if (last && start == 0) {
					blkb_finish(&b);
					st = write_block(w, (const uint8_t *)b.buf.data, b.buf.len, false,
							 root_off, root_size);
					goto done;
				}
				blkb_finish(&b);
				uint64_t off;
				uint32_t size;
				st = write_block(w, (const uint8_t *)b.buf.data, b.buf.len, false, &off,
						 &size);
				if (st)
					goto done;
				blkb_reset(&b);
				if (nn == cn) {
					cn = cn ? 2 * cn : 64;
					next = util_xrealloc(next, cn * sizeof(idx_ent));
				}
				/* Upper level separator: the chunk's last separator. */
				next[nn].koff = (uint32_t)next_keys.len;
				next[nn].klen = ents[i].klen;
				next[nn].off = off;
				next[nn].size = size;
				util_buf_append(&next_keys, keys->data + ents[i].koff, ents[i].klen);
				nn++;
				start = i + 1;
			}
		}
		/* Move up one level. */
		if (ents != w->idx)
			free(ents);
		if (keys != &w->idx_keys) {
			util_buf_free(keys);
			free(keys);
		}
		ents = next;
		n = nn;
		keys = util_xmalloc(sizeof(util_buf));
		*keys = next_keys;
		util_buf_init(&next_keys);
		next = NULL;
	}
done:
	if (ents != w->idx)
		free(ents);
	if (keys != &w->idx_keys) {
		util_buf_free(keys);
		free(keys);
	}
	free(next);
	util_buf_free(&next_keys);
	blkb_free(&b);
	return st;
}

/* The bloom filter block's bytes (NULL, 0: no filter). It reads only the
 * hashes, so finish builds it while the background writer drains its
 * queue. Caller frees. */
static uint8_t *build_bloom(const sst_writer *w, size_t *len)
{
	*len = 0;
	if (w->fo.bloom == KV_BLOOM_NONE || w->nhash == 0)
		return NULL;
	size_t nlines = (w->nhash * 10 + SST_BLOOM_LINE_BITS - 1) / SST_BLOOM_LINE_BITS;
	if (nlines < 1)
		nlines = 1;
	size_t nbits = nlines * SST_BLOOM_LINE_BITS;
	const int k = 6;
	uint8_t *bits = util_xcalloc(nbits / 8 + 1, 1);
	/* A file of many rows has a filter far bigger than the cache: each
	 * hash's line is found once (a division) and prefetched a few hashes
	 * ahead. */
	enum { AHEAD = 8 };
	size_t lines[AHEAD];
	for (size_t i = 0; i < w->nhash && i < AHEAD; i++)
		lines[i] = sst_bloom_line(w->hashes[i], nlines);
	for (size_t i = 0; i < w->nhash; i++) {
		size_t line = lines[i % AHEAD];
		if (i + AHEAD < w->nhash) {
			size_t next = sst_bloom_line(w->hashes[i + AHEAD], nlines);
			lines[i % AHEAD] = next;
			__builtin_prefetch(bits + next * (SST_BLOOM_LINE_BITS / 8), 1);
		}
		uint8_t *l = bits + line * (SST_BLOOM_LINE_BITS / 8);
		for (int j = 0; j < k; j++) {
			size_t bit = sst_bloom_in_line(w->hashes[i], j);
			l[bit / 8] |= (uint8_t)(1u << (bit % 8));
		}
	}
	bits[nbits / 8] = (uint8_t)k;
	*len = nbits / 8 + 1;
	return bits;
}

static kv_status write_bloom(sst_writer *w, const uint8_t *bits, size_t len, uint64_t *off, uint32_t *size)
{
	if (!bits) {
		*off = 0;
		*size = 0;
		return KV_OK;
	}
	return write_block(w, bits, len, false, off, size);
}

static kv_status write_info(sst_writer *w, uint64_t *off, uint32_t *size)
{
	util_buf b = UTIL_BUF_INIT;
	size_t fl = strlen(w->pr.family);
	util_buf_put_u8(&b, 1);
	util_buf_put_be32(&b, w->table_id);
	util_buf_put_u8(&b, (uint8_t)fl);
	util_buf_append(&b, w->pr.family, fl);
	util_buf_put_u8(&b, w->pr.bloom);
	util_buf_put_be64(&b, w->pr.entries);
	util_buf_put_be64(&b, w->pr.deletes);
	util_buf_put_be64(&b, w->pr.min_ts);
	util_buf_put_be64(&b, w->pr.max_ts);
	util_buf_put_be64(&b, w->pr.data_blocks);
	util_buf_put_be32(&b, (uint32_t)w->smallest.len);
	util_buf_append(&b, w->smallest.data, w->smallest.len);
	util_buf_put_be32(&b, (uint32_t)w->last.len);
	util_buf_append(&b, w->last.data, w->last.len);
	kv_status st = write_block(w, (const uint8_t *)b.data, b.len, false, off, size);
	util_buf_free(&b);
	return st;
}

kv_status sst_writer_finish(sst_writer *w, sst_props *props)
{
	kv_status st = w->st;
	uint64_t ioff = 0, boff = 0, foff = 0;
	uint32_t isz = 0, bsz = 0, fsz = 0, levels = 0;
	memset(props, 0, sizeof(*props));
	if (!st && w->pr.entries == 0)
		st = kv_fail(KV_INVALID, "empty sorted file %s", w->path);
	if (!st)
		st = flush_data(w);
	if (!st && w->pending) {
		add_index(w, (const uint8_t *)w->last.data, w->last.len, w->pend_off, w->pend_size);
		w->pending = false;
	}
	size_t bloom_len = 0;
	uint8_t *bloom = st ? NULL : build_bloom(w, &bloom_len);
	if (w->bg) {
		kv_status bs = bgw_join(w, st != KV_OK);
		if (!st)
			st = bs;
		/* Block numbers to handles (the thread wrote them in order). */
		for (size_t i = 0; !st && i < w->nidx; i++) {
			uint64_t b = w->idx[i].off;
			if (b < w->bg->nblk) {
				w->idx[i].off = w->bg->offs[b];
				w->idx[i].size = w->bg->sizes[b];
			} else {
				st = kv_fail(KV_INVALID, "%s: block %llu was not written", w->path,
					     (unsigned long long)b);
			}
		}
		bgw_stop(w, false);
	}
	if (!st)
		st = write_index(w, &ioff, &isz, &levels);
	if (!st)
		st = write_bloom(w, bloom, bloom_len, &boff, &bsz);
	free(bloom);
	if (!st)
		st = write_info(w, &foff, &fsz);
	if (!st) {
		uint8_t t[SST_TRAILER_SIZE];
		memset(t, 0, sizeof(t));
		util_put_be64(t + 0, ioff);
		util_put_be32(t + 8, isz);
		util_put_be64(t + 12, boff);
		util_put_be32(t + 20, bsz);
		util_put_be64(t + 24, foff);
		util_put_be32(t + 32, fsz);
		util_put_be32(t + 36, levels);
		util_put_be32(t + 40, SST_VERSION);
		util_put_be32(t + 52, util_crc_mask(util_crc32c(0, t, 52)));
		util_put_be64(t + 56, SST_MAGIC);
		int e = w->fs->append(w->f, t, sizeof(t));
		if (!e && !(w->flags & SST_W_NO_SYNC))
			e = w->fs->sync(w->f);
		if (e)
			st = kv_fail_errno(e, "write", w->path);
		w->off += sizeof(t);
	}
	if (!st) {
		*props = w->pr;
		props->smallest = util_xmalloc(w->smallest.len);
		memcpy(props->smallest, w->smallest.data, w->smallest.len);
		props->slen = w->smallest.len;
		props->largest = util_xmalloc(w->last.len);
		memcpy(props->largest, w->last.data, w->last.len);
		props->llen = w->last.len;
		props->file_size = w->off;
		props->index_levels = levels;
	}
	bgw_stop(w, true);
	w->fs->close(w->f);
	free_writer(w);
	return st;
}

void sst_props_free(sst_props *p)
{
	free(p->smallest);
	free(p->largest);
	p->smallest = p->largest = NULL;
}
