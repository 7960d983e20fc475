/*
 * bk_cells.c — the cell files of a backup directory (docs/backup-format.md):
 * blocks of encoded cells, zstd-compressed when that is smaller, a CRC32C
 * per block and an end block with the cell count. The reader checks every
 * checksum, the count and the length, and reports damage as KV_CORRUPTION.
 */
#include "bk_int.h"
#include "kv_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* ---------------------------------------------------------------- cell files */

struct bk_writer {
	kv_fs *fs;
	kv_file *f;
	util_buf raw; /* cells of the current block */
	util_buf out; /* block header + stored bytes */
	uint64_t cells, bytes;
	uint32_t crc; /* of the whole file */
	ZSTD_CCtx *zc;
};

static kv_status w_append(bk_writer *w, const void *p, size_t n)
{
	int e = w->fs->append(w->f, p, n);
	if (e)
		return kv_fail_errno(e, "writing backup file", "");
	w->crc = util_crc32c(w->crc, p, n);
	w->bytes += n;
	return KV_OK;
}

kv_status bk_writer_open(kv_fs *fs, const char *path, bk_writer **out)
{
	bk_writer *w = util_xcalloc(1, sizeof *w);
	w->fs = fs;
	int e = fs->open_write(fs, path, true, &w->f);
	if (e) {
		free(w);
		return kv_fail_errno(e, "creating backup file", path);
	}
	w->zc = ZSTD_createCCtx();
	kv_status st = w->zc ? w_append(w, BK_CELL_MAGIC, 8) : kv_fail(KV_NO_MEMORY, "zstd context");
	if (st) {
		bk_writer_abort(w);
		return st;
	}
	*out = w;
	return KV_OK;
}

static kv_status write_block(bk_writer *w, uint8_t codec, const void *data, size_t rawlen, size_t storedlen)
{
	uint8_t h[13];
	util_put_be32(h, (uint32_t)rawlen);
	util_put_be32(h + 4, (uint32_t)storedlen);
	h[8] = codec;
	util_put_be32(h + 9, util_crc_mask(util_crc32c(0, data, storedlen)));
	kv_status st = w_append(w, h, sizeof h);
	return st ? st : w_append(w, data, storedlen);
}

static kv_status flush_block(bk_writer *w)
{
	if (!w->raw.len)
		return KV_OK;
	size_t bound = ZSTD_compressBound(w->raw.len);
	util_buf_reset(&w->out);
	util_buf_reserve(&w->out, bound);
	size_t n = ZSTD_compressCCtx(w->zc, w->out.data, bound, w->raw.data, w->raw.len, 3);
	kv_status st;
	if (ZSTD_isError(n) || n >= w->raw.len)
		st = write_block(w, BK_CODEC_RAW, w->raw.data, w->raw.len, w->raw.len);
	else
		st = write_block(w, BK_CODEC_ZSTD, w->out.data, w->raw.len, n);
	util_buf_reset(&w->raw);
	return st;
}

static void put_slice(util_buf *b, kv_slice s)
{
	util_buf_put_varint(b, s.len);
	util_buf_append(b, s.data, s.len);
}

kv_status bk_writer_add(bk_writer *w, const kv_cell *c)
{
	put_slice(&w->raw, c->row);
	put_slice(&w->raw, c->family);
	put_slice(&w->raw, c->qualifier);
	util_buf_put_be64(&w->raw, c->ts);
	util_buf_put_u8(&w->raw, c->type);
	put_slice(&w->raw, c->value);
	w->cells++;
	return w->raw.len >= BK_BLOCK_RAW ? flush_block(w) : KV_OK;
}

uint64_t bk_writer_bytes(const bk_writer *w)
{
	return w->bytes + w->raw.len;
}

kv_status bk_writer_finish(bk_writer *w, uint64_t *cells, uint64_t *bytes, uint32_t *crc)
{
	kv_status st = flush_block(w);
	if (!st) {
		uint8_t n[8];
		util_put_be64(n, w->cells);
		st = write_block(w, BK_CODEC_END, n, 8, 8);
	}
	if (!st) {
		int e = w->fs->sync(w->f);
		if (e)
			st = kv_fail_errno(e, "syncing backup file", "");
	}
	*cells = w->cells;
	*bytes = w->bytes;
	*crc = w->crc;
	bk_writer_abort(w);
	return st;
}

void bk_writer_abort(bk_writer *w)
{
	if (!w)
		return;
	if (w->f)
		w->fs->close(w->f);
	ZSTD_freeCCtx(w->zc);
	util_buf_free(&w->raw);
	util_buf_free(&w->out);
	free(w);
}

struct bk_reader {
	kv_fs *fs;
	kv_file *f;
	char path[4096];
	uint64_t off, size;
	util_buf stored, raw;
	size_t pos;     /* in raw */
	uint64_t cells; /* read so far */
	uint32_t crc;
	bool ended;
	ZSTD_DCtx *zd;
};

kv_status bk_reader_open(kv_fs *fs, const char *path, bk_reader **out)
{
	bk_reader *r = util_xcalloc(1, sizeof *r);
	r->fs = fs;
	snprintf(r->path, sizeof r->path, "%s", path);
	int e = fs->open_read(fs, path, &r->f);
	if (!e)
		e = fs->size(r->f, &r->size);
	if (e) {
		kv_status st = kv_fail_errno(e, "opening backup file", path);
		bk_reader_close(r);
		return st;
	}
	char magic[8];
	size_t got = 0;
	e = fs->pread(r->f, magic, 8, 0, &got);
	if (e || got != 8 || memcmp(magic, BK_CELL_MAGIC, 8)) {
		kv_status st = e ? kv_fail_errno(e, "reading backup file", path)
				 : kv_fail(KV_CORRUPTION, "%s is not a backup cell file", path);
		bk_reader_close(r);
		return st;
	}
	r->crc = util_crc32c(0, magic, 8);
	r->off = 8;
	r->zd = ZSTD_createDCtx();
	if (!r->zd) {
		bk_reader_close(r);
		return kv_fail(KV_NO_MEMORY, "zstd context");
	}
	*out = r;
	return KV_OK;
}

static kv_status r_read(bk_reader *r, void *buf, size_t n)
{
	size_t got = 0;
	int e = r->fs->pread(r->f, buf, n, r->off, &got);
	if (e)
		return kv_fail_errno(e, "reading backup file", r->path);
	if (got != n)
		return kv_fail(KV_CORRUPTION, "backup file %s is truncated at offset %" PRIu64, r->path,
			       r->off);
	r->crc = util_crc32c(r->crc, buf, n);
	r->off += n;
	return KV_OK;
}

/* Loads the next block into r->raw. */
static kv_status next_block(bk_reader *r)
{
	uint8_t h[13];
	kv_status st = r_read(r, h, sizeof h);
	if (st)
		return st;
	uint32_t rawlen = util_get_be32(h), storedlen = util_get_be32(h + 4);
	uint8_t codec = h[8];
	uint32_t crc = util_crc_unmask(util_get_be32(h + 9));
	if (rawlen > BK_BLOCK_MAX || storedlen > BK_BLOCK_MAX || storedlen > r->size - r->off ||
	    (codec != BK_CODEC_RAW && codec != BK_CODEC_ZSTD && codec != BK_CODEC_END) ||
	    (codec != BK_CODEC_ZSTD && rawlen != storedlen))
		return kv_fail(KV_CORRUPTION, "bad block header in backup file %s at offset %" PRIu64,
			       r->path, r->off - sizeof h);
	util_buf_reset(&r->stored);
	util_buf_reserve(&r->stored, storedlen + 1);
	if ((st = r_read(r, r->stored.data, storedlen)))
		return st;
	r->stored.len = storedlen;
	if (util_crc32c(0, r->stored.data, storedlen) != crc)
		return kv_fail(KV_CORRUPTION, "checksum mismatch in backup file %s at offset %" PRIu64,
			       r->path, r->off - storedlen);
	util_buf_reset(&r->raw);
	r->pos = 0;
	if (codec == BK_CODEC_END) {
		if (storedlen != 8 || util_get_be64((const uint8_t *)r->stored.data) != r->cells ||
		    r->off != r->size)
			return kv_fail(KV_CORRUPTION, "backup file %s: cell count or length mismatch",
				       r->path);
		r->ended = true;
		return KV_OK;
	}
	if (codec == BK_CODEC_RAW) {
		util_buf_append(&r->raw, r->stored.data, storedlen);
		return KV_OK;
	}
	util_buf_reserve(&r->raw, rawlen + 1);
	size_t n = ZSTD_decompressDCtx(r->zd, r->raw.data, rawlen, r->stored.data, storedlen);
	if (ZSTD_isError(n) || n != rawlen)
		return kv_fail(KV_CORRUPTION, "backup file %s: bad compressed block", r->path);
	r->raw.len = rawlen;
	return KV_OK;
}

static bool get_slice(bk_reader *r, kv_slice *s)
{
	const uint8_t *p = (const uint8_t *)r->raw.data + r->pos,
		      *end = (const uint8_t *)r->raw.data + r->raw.len;
	uint64_t n;
	size_t k = util_varint_get(p, end, &n);
	if (!k || n > (uint64_t)(end - p - (ptrdiff_t)k))
		return false;
	s->data = p + k;
	s->len = (size_t)n;
	r->pos += k + (size_t)n;
	return true;
}

kv_status bk_reader_next(bk_reader *r, kv_cell *c)
{
	while (!r->ended && r->pos >= r->raw.len) {
		kv_status st = next_block(r);
		if (st)
			return st;
	}
	if (r->ended)
		return KV_NOT_FOUND;
	memset(c, 0, sizeof *c);
	if (!get_slice(r, &c->row) || !get_slice(r, &c->family) || !get_slice(r, &c->qualifier) ||
	    r->raw.len - r->pos < 9)
		return kv_fail(KV_CORRUPTION, "backup file %s: malformed cell", r->path);
	c->ts = util_get_be64((const uint8_t *)r->raw.data + r->pos);
	c->type = (uint8_t)r->raw.data[r->pos + 8];
	r->pos += 9;
	if (!get_slice(r, &c->value))
		return kv_fail(KV_CORRUPTION, "backup file %s: malformed cell", r->path);
	if (c->type != KV_PUT && c->type != KV_DELETE && c->type != KV_DELETE_COLUMN &&
	    c->type != KV_DELETE_FAMILY && c->type != KV_DELETE_FAMILY_VERSION)
		return kv_fail(KV_CORRUPTION, "backup file %s: bad cell type %d", r->path, c->type);
	r->cells++;
	return KV_OK;
}

void bk_reader_totals(const bk_reader *r, uint64_t *cells, uint64_t *bytes, uint32_t *crc)
{
	*cells = r->cells;
	*bytes = r->off;
	*crc = r->crc;
}

void bk_reader_close(bk_reader *r)
{
	if (!r)
		return;
	if (r->f)
		r->fs->close(r->f);
	ZSTD_freeDCtx(r->zd);
	util_buf_free(&r->stored);
	util_buf_free(&r->raw);
	free(r);
}
