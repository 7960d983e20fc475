/*
 * bk_file.c — the files of a backup directory (docs/backup-format.md): the
 * text manifest BACKUP with its checksum line, and the cell files (zstd
 * blocks of encoded cells, a CRC32C per block, an end block with the
 * count). Readers check every checksum and report damage as KV_CORRUPTION.
 */
#include "bk_int.h"
#include "kv_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

void bk_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* ---------------------------------------------------------------- manifest */

/* Names are printable but may hold spaces: bytes outside '!'..'~' and '%'
 * are written as %XX. */
static void put_name(util_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= ' ' || *p > '~' || *p == '%')
			util_buf_printf(b, "%%%02X", *p);
		else
			util_buf_putc(b, (char)*p);
	}
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes a %XX-escaped token in place; false if malformed. */
static bool get_name(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		if (*p == '%') {
			int h = hexval(p[1]), l = h >= 0 ? hexval(p[2]) : -1;
			if (h < 0 || l < 0)
				return false;
			*o++ = (char)(h * 16 + l);
			p += 2;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return true;
}

static const char *const bloom_names[] = {"none", "row", "rowcol"};

static void put_family(util_buf *b, const kv_family_opts *f)
{
	util_buf_puts(b, "family ");
	put_name(b, f->name);
	util_buf_printf(b,
			" versions=%d min_versions=%d ttl=%" PRId64 " keep_deleted=%d compression=%d bloom=%s"
			" block_size=%u retention=%" PRId64 "\n",
			f->max_versions, f->min_versions, f->ttl_seconds, f->keep_deleted_cells ? 1 : 0,
			f->compression_level, bloom_names[f->bloom <= KV_BLOOM_ROWCOL ? f->bloom : 0],
			f->block_size, f->retention_seconds);
}

kv_status bk_manifest_write(kv_fs *fs, const char *dir, const bk_manifest *m)
{
	util_buf b = UTIL_BUF_INIT;
	util_buf_puts(&b, "strata-backup 1\n");
	util_buf_printf(&b, "id %s\n", m->id);
	util_buf_printf(&b, "kind %s\n", m->incremental ? "incremental" : "full");
	if (m->incremental) {
		util_buf_printf(&b, "parent %s ", m->parent_id);
		put_name(&b, m->parent_path ? m->parent_path : "");
		util_buf_printf(&b, "\nsince %" PRIu64 "\n", m->since);
	}
	util_buf_printf(&b, "ts %" PRIu64 "\n", m->ts);
	util_buf_printf(&b, "history_from %" PRIu64 "\n", m->history_from);
	util_buf_printf(&b, "created %" PRId64 "\n", m->created_us);
	for (int i = 0; i < m->ntables; i++) {
		const bk_table *t = &m->tables[i];
		util_buf_puts(&b, "table ");
		put_name(&b, t->name);
		util_buf_printf(&b, " %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %08x %d\n", t->file,
				t->full ? "full" : "delta", t->from, t->cells, t->bytes, t->crc, t->nfam);
		for (int k = 0; k < t->nfam; k++)
			put_family(&b, &t->fams[k]);
	}
	util_buf_printf(&b, "end %08x\n", util_crc32c(0, b.data, b.len));

	char tmp[4096], path[4096];
	bk_path(tmp, sizeof tmp, dir, BK_MANIFEST_TMP);
	bk_path(path, sizeof path, dir, BK_MANIFEST);
	kv_file *f;
	int e = fs->open_write(fs, tmp, true, &f);
	if (!e) {
		e = fs->append(f, b.data, b.len);
		if (!e)
			e = fs->sync(f);
		fs->close(f);
	}
	util_buf_free(&b);
	if (!e)
		e = fs->rename(fs, tmp, path);
	if (!e)
		e = fs->sync_dir(fs, dir);
	if (e) {
		fs->unlink(fs, tmp);
		return kv_fail_errno(e, "writing backup manifest", path);
	}
	return KV_OK;
}

void bk_manifest_free(bk_manifest *m)
{
	for (int i = 0; i < m->ntables; i++) {
		free(m->tables[i].name);
		free(m->tables[i].fams);
	}
	free(m->tables);
	free(m->parent_path);
	memset(m, 0, sizeof *m);
}

bk_table *bk_manifest_add(bk_manifest *m, const char *name)
{
	if (m->ntables == m->ctables) {
		m->ctables = m->ctables ? 2 * m->ctables : 16;
		m->tables = util_xrealloc(m->tables, sizeof(bk_table) * (size_t)m->ctables);
	}
	bk_table *t = &m->tables[m->ntables++];
	memset(t, 0, sizeof *t);
	t->name = util_xstrdup(name);
	return t;
}

const bk_table *bk_manifest_find(const bk_manifest *m, const char *name)
{
	for (int i = 0; i < m->ntables; i++)
		if (!strcmp(m->tables[i].name, name))
			return &m->tables[i];
	return NULL;
}

void bk_manifest_info(const bk_manifest *m, kv_backup_info *out)
{
	memset(out, 0, sizeof *out);
	memcpy(out->id, m->id, sizeof out->id);
	out->incremental = m->incremental;
	memcpy(out->parent_id, m->parent_id, sizeof out->parent_id);
	out->ts = m->ts;
	out->since = m->since;
	out->history_from = m->history_from;
	out->created_us = m->created_us;
	out->tables = (uint64_t)m->ntables;
	for (int i = 0; i < m->ntables; i++) {
		out->cells += m->tables[i].cells;
		out->bytes += m->tables[i].bytes;
	}
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_i64(const char *s, int64_t *v)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_family(char **tok, int ntok, kv_family_opts *f)
{
	if (ntok < 2 || !get_name(tok[1]) || strlen(tok[1]) >= sizeof f->name || !tok[1][0])
		return false;
	kv_family_opts_default(f, tok[1]);
	for (int i = 2; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		if (!eq)
			return false;
		*eq = '\0';
		const char *k = tok[i], *v = eq + 1;
		int64_t x = 0;
		if (!strcmp(k, "bloom")) {
			int found = -1;
			for (int b = 0; b <= KV_BLOOM_ROWCOL; b++)
				if (!strcmp(v, bloom_names[b]))
					found = b;
			if (found < 0)
				return false;
			f->bloom = (kv_bloom)found;
			continue;
		}
		if (!parse_i64(v, &x) || x < 0)
			return false;
		if (!strcmp(k, "versions"))
			f->max_versions = (int)x;
		else if (!strcmp(k, "min_versions"))
			f->min_versions = (int)x;
		else if (!strcmp(k, "ttl"))
			f->ttl_seconds = x;
		else if (!strcmp(k, "keep_deleted"))
			f->keep_deleted_cells = x != 0;
		else if (!strcmp(k, "compression"))
			f->compression_level = (int)x;
		else if (!strcmp(k, "block_size"))
			f->block_size = (uint32_t)x;
		else if (!strcmp(k, "retention"))
			f->retention_seconds = x;
		/* Unknown keys: options of a newer version; defaults stand. */
	}
	return true;
}

static bool is_hex_id(const char *s)
{
	if (strlen(s) != 32)
		return false;
	for (const char *p = s; *p; p++)
		if (hexval(*p) < 0)
			return false;
	return true;
}

static kv_status read_all(kv_fs *fs, const char *path, util_buf *out)
{
	kv_file *f;
	int e = fs->open_read(fs, path, &f);
	if (e)
		return kv_fail_errno(e, "opening", path);
	uint64_t size = 0;
	e = fs->size(f, &size);
	if (!e && size > (64u << 20))
		e = EFBIG;
	if (!e) {
		util_buf_reserve(out, (size_t)size + 1);
		size_t got = 0;
		e = fs->pread(f, out->data, (size_t)size, 0, &got);
		out->len = got;
		out->data[got] = '\0';
	}
	fs->close(f);
	return e ? kv_fail_errno(e, "reading", path) : KV_OK;
}

#define MAX_TOK 16

kv_status bk_manifest_read(kv_fs *fs, const char *dir, bk_manifest *m)
{
	memset(m, 0, sizeof *m);
	char path[4096];
	bk_path(path, sizeof path, dir, BK_MANIFEST);
	util_buf b = UTIL_BUF_INIT;
	kv_status st = read_all(fs, path, &b);
	if (st) {
		util_buf_free(&b);
		return st;
	}
	/* The checksum line covers every byte before it. */
	char *endl = NULL;
	for (char *p = b.data; p && *p;) {
		if (!strncmp(p, "end ", 4))
			endl = p;
		char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : NULL;
	}
	uint32_t want = 0;
	if (!endl || sscanf(endl, "end %8x", &want) != 1 ||
	    util_crc32c(0, b.data, (size_t)(endl - b.data)) != want) {
		util_buf_free(&b);
		return kv_fail(KV_CORRUPTION, "backup manifest %s is damaged or incomplete (checksum)", path);
	}
	*endl = '\0';
	bool ok = true, have_magic = false, have_ts = false;
	bk_table *cur = NULL;
	int line = 0, fam_want = 0;
	char *save = NULL;
	for (char *ln = strtok_r(b.data, "\n", &save); ln && ok; ln = strtok_r(NULL, "\n", &save)) {
		line++;
		char *tok[MAX_TOK];
		int n = 0;
		char *s2 = NULL;
		for (char *t = strtok_r(ln, " ", &s2); t && n < MAX_TOK; t = strtok_r(NULL, " ", &s2))
			tok[n++] = t;
		if (!n)
			continue;
		if (line == 1) {
			ok = n == 2 && !strcmp(tok[0], "strata-backup") && !strcmp(tok[1], "1");
			have_magic = ok;
			continue;
		}
		if (!strcmp(tok[0], "id") && n == 2) {
			ok = is_hex_id(tok[1]);
			if (ok)
				memcpy(m->id, tok[1], 33);
		} else if (!strcmp(tok[0], "kind") && n == 2) {
			ok = !strcmp(tok[1], "full") || !strcmp(tok[1], "incremental");
			m->incremental = !strcmp(tok[1], "incremental");
		} else if (!strcmp(tok[0], "parent") && n == 3) {
			ok = is_hex_id(tok[1]) && get_name(tok[2]);
			if (ok) {
				memcpy(m->parent_id, tok[1], 33);
				m->parent_path = util_xstrdup(tok[2]);
			}
		} else if (!strcmp(tok[0], "since") && n == 2) {
			ok = parse_u64(tok[1], &m->since);
		} else if (!strcmp(tok[0], "ts") && n == 2) {
			ok = parse_u64(tok[1], &m->ts);
			have_ts = ok;
		} else if (!strcmp(tok[0], "history_from") && n == 2) {
			ok = parse_u64(tok[1], &m->history_from);
		} else if (!strcmp(tok[0], "created") && n == 2) {
			ok = parse_i64(tok[1], &m->created_us);
		} else if (!strcmp(tok[0], "table") && n == 9) {
			int64_t nfam = 0;
			ok = !cur || cur->nfam == fam_want; /* the previous table is complete */
			ok = ok && get_name(tok[1]) && strlen(tok[2]) < sizeof cur->file &&
			     !strchr(tok[2], '/') && (!strcmp(tok[3], "full") || !strcmp(tok[3], "delta")) &&
			     parse_i64(tok[8], &nfam) && nfam > 0 && nfam <= KV_MAX_FAMILIES;
			if (!ok)
				break;
			cur = bk_manifest_add(m, tok[1]);
			snprintf(cur->file, sizeof cur->file, "%s", tok[2]);
			cur->full = !strcmp(tok[3], "full");
			unsigned crc = 0;
			ok = parse_u64(tok[4], &cur->from) && parse_u64(tok[5], &cur->cells) &&
			     parse_u64(tok[6], &cur->bytes) && sscanf(tok[7], "%8x", &crc) == 1;
			cur->crc = crc;
			cur->fams = util_xcalloc((size_t)nfam, sizeof(kv_family_opts));
			fam_want = (int)nfam; /* that many family lines follow */
		} else if (!strcmp(tok[0], "family")) {
			ok = cur && cur->nfam < fam_want && parse_family(tok, n, &cur->fams[cur->nfam]);
			if (ok)
				cur->nfam++;
		} else {
			ok = false; /* unknown record: a newer format this reader cannot honour */
		}
	}
	if (cur && cur->nfam != fam_want)
		ok = false;
	util_buf_free(&b);
	if (!ok || !have_magic || !have_ts || !m->id[0] || (m->incremental && !m->parent_id[0])) {
		bk_manifest_free(m);
		return kv_fail(KV_CORRUPTION, "backup manifest %s: bad record at line %d", path, line);
	}
	return KV_OK;
}

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
