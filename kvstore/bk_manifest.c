/*
 * bk_manifest.c — the manifest of a backup directory (docs/backup-format.md):
 * BACKUP, a text file of records with a checksum line, written atomically
 * (temporary file, fsync, rename, directory fsync) and read strictly (a
 * damaged or unknown record is KV_CORRUPTION).
 */
#include "bk_int.h"
#include "kv_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bk_path(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int remove_entry(void *arg, const char *name)
{
	void **a = arg;
	kv_fs *fs = a[0];
	char path[4096];
	bk_path(path, sizeof path, a[1], name);
	fs->unlink(fs, path);
	return 0;
}

void bk_remove_files(kv_fs *fs, const char *dir)
{
	void *a[2] = {fs, (void *)dir};
	fs->list(fs, dir, remove_entry, a);
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
