/* manifest.c — encoding, decoding and writing manifest edits (see
 * manifest.h); replay uses the WAL record reader. */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"
#include "wal.h"

/* ---------------------------------------------------------------- encoding */

static void put_str(util_buf *b, const void *s, size_t n)
{
	util_buf_put_varint(b, n);
	util_buf_append(b, s, n);
}

void me_u64(util_buf *b, int tag, uint64_t v)
{
	util_buf_put_u8(b, (uint8_t)tag);
	if (tag == MAN_LAST_TS)
		util_buf_put_be64(b, v);
	else
		util_buf_put_varint(b, v);
}

static void put_fam(util_buf *b, const kv_family_opts *f)
{
	put_str(b, f->name, strlen(f->name));
	util_buf_put_be32(b, (uint32_t)f->max_versions);
	util_buf_put_be32(b, (uint32_t)f->min_versions);
	util_buf_put_be64(b, (uint64_t)f->ttl_seconds);
	util_buf_put_u8(b, f->keep_deleted_cells);
	util_buf_put_be32(b, (uint32_t)f->compression_level);
	util_buf_put_u8(b, (uint8_t)f->bloom);
	util_buf_put_be32(b, f->block_size);
	util_buf_put_be64(b, (uint64_t)f->retention_seconds);
}

void me_add_table(util_buf *b, uint32_t id, const char *name, const kv_family_opts *fams, int n)
{
	util_buf_put_u8(b, MAN_ADD_TABLE);
	util_buf_put_varint(b, id);
	put_str(b, name, strlen(name));
	util_buf_put_varint(b, (uint64_t)n);
	for (int i = 0; i < n; i++)
		put_fam(b, &fams[i]);
}

void me_drop_table(util_buf *b, uint32_t id)
{
	util_buf_put_u8(b, MAN_DROP_TABLE);
	util_buf_put_varint(b, id);
}

void me_set_family(util_buf *b, uint32_t id, const kv_family_opts *fo)
{
	util_buf_put_u8(b, MAN_SET_FAMILY);
	util_buf_put_varint(b, id);
	put_fam(b, fo);
}

void me_drop_family(util_buf *b, uint32_t id, const char *name)
{
	util_buf_put_u8(b, MAN_DROP_FAMILY);
	util_buf_put_varint(b, id);
	put_str(b, name, strlen(name));
}

void me_add_file(util_buf *b, const man_file *f)
{
	util_buf_put_u8(b, MAN_ADD_FILE);
	util_buf_put_varint(b, f->table_id);
	put_str(b, f->family, strlen(f->family));
	util_buf_put_varint(b, f->number);
	util_buf_put_varint(b, f->size);
	util_buf_put_varint(b, f->entries);
	util_buf_put_varint(b, f->deletes);
	util_buf_put_be64(b, f->min_ts);
	util_buf_put_be64(b, f->max_ts);
	util_buf_put_be64(b, f->seq);
	put_str(b, f->smallest, f->slen);
	put_str(b, f->largest, f->llen);
	if (f->gts) {
		util_buf_put_u8(b, MAN_FILE_GTS);
		util_buf_put_varint(b, f->table_id);
		util_buf_put_varint(b, f->number);
		util_buf_put_be64(b, f->gts);
	}
	if (f->late_cts) {
		util_buf_put_u8(b, MAN_FILE_LATE);
		util_buf_put_varint(b, f->table_id);
		util_buf_put_varint(b, f->number);
		util_buf_put_be64(b, f->late_cts);
		util_buf_put_be64(b, f->late_min);
	}
}

void me_table_flushed(util_buf *b, uint32_t tid, kv_ts ts)
{
	util_buf_put_u8(b, MAN_TABLE_FLUSHED);
	util_buf_put_varint(b, tid);
	util_buf_put_be64(b, ts);
}

void me_del_file(util_buf *b, uint32_t tid, const char *fam, uint64_t number)
{
	util_buf_put_u8(b, MAN_DEL_FILE);
	util_buf_put_varint(b, tid);
	put_str(b, fam, strlen(fam));
	util_buf_put_varint(b, number);
}

/* ---------------------------------------------------------------- decoding */

typedef struct cur {
	const uint8_t *p, *end;
	bool bad;
} cur;

static uint64_t get_var(cur *c)
{
	uint64_t v = 0;
	size_t n = c->bad ? 0 : util_varint_get(c->p, c->end, &v);
	if (!n)
		c->bad = true;
	c->p += n;
	return v;
}

static uint64_t get_be(cur *c, int bytes)
{
	if (c->bad || c->end - c->p < bytes) {
		c->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = (v << 8) | c->p[i];
	c->p += bytes;
	return v;
}

static const uint8_t *get_str(cur *c, size_t *n)
{
	uint64_t l = get_var(c);
	if (c->bad || (uint64_t)(c->end - c->p) < l) {
		c->bad = true;
		*n = 0;
		return NULL;
	}
	const uint8_t *s = c->p;
	c->p += l;
	*n = (size_t)l;
	return s;
}

static void get_name(cur *c, char *dst, size_t cap)
{
	size_t n;
	const uint8_t *s = get_str(c, &n);
	if (c->bad || n >= cap) {
		c->bad = true;
		dst[0] = 0;
		return;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
}

static void get_fam(cur *c, kv_family_opts *f)
{
	memset(f, 0, sizeof(*f));
	get_name(c, f->name, sizeof(f->name));
	f->max_versions = (int)get_be(c, 4);
	f->min_versions = (int)get_be(c, 4);
	f->ttl_seconds = (int64_t)get_be(c, 8);
	f->keep_deleted_cells = get_be(c, 1) != 0;
	f->compression_level = (int)get_be(c, 4);
	f->bloom = (kv_bloom)get_be(c, 1);
	f->block_size = (uint32_t)get_be(c, 4);
	f->retention_seconds = (int64_t)get_be(c, 8);
}

static man_table *find_table(man_state *m, uint32_t id)
{
	for (size_t i = 0; i < m->ntables; i++)
		if (m->tables[i].live && m->tables[i].id == id)
			return &m->tables[i];
	return NULL;
}

/* The live file `number` of table tid (numbers are never reused). */
static man_file *live_file(man_state *m, uint32_t tid, uint64_t number)
{
	for (size_t i = 0; i < m->nfiles; i++)
		if (m->files[i].live && m->files[i].number == number && m->files[i].table_id == tid)
			return &m->files[i];
	return NULL;
}

static void free_file(man_file *f)
{
	free(f->smallest);
	free(f->largest);
	f->smallest = f->largest = NULL;
}

kv_status man_apply(man_state *m, const uint8_t *p, size_t n)
{
	cur c = {p, p + n, false};
	while (!c.bad && c.p < c.end) {
		int tag = *c.p++;
		switch (tag) {
		case MAN_NEXT_FILE:
			m->next_file = get_var(&c);
			break;
		case MAN_LAST_TS: {
			/* Edits are logged concurrently: never move the clock back. */
			kv_ts ts = get_be(&c, 8);
			if (ts > m->last_ts)
				m->last_ts = ts;
			break;
		}
		case MAN_WAL_FLOOR:
			m->wal_floor = get_var(&c);
			break;
		case MAN_NEXT_TABLE:
			m->next_table = (uint32_t)get_var(&c);
			break;
		case MAN_ADD_TABLE: {
			man_table t = {0};
			t.id = (uint32_t)get_var(&c);
			size_t nl;
			const uint8_t *nm = get_str(&c, &nl);
			uint64_t nf = get_var(&c);
			if (c.bad || nf > 255) {
				c.bad = true;
				break;
			}
			t.name = util_xmalloc(nl + 1);
			memcpy(t.name, nm, nl);
			t.name[nl] = 0;
			t.nfam = (int)nf;
			t.fams = util_xcalloc(nf ? nf : 1, sizeof(kv_family_opts));
			for (uint64_t i = 0; i < nf; i++)
				get_fam(&c, &t.fams[i]);
			t.live = true;
			m->tables = util_xrealloc(m->tables, (m->ntables + 1) * sizeof(man_table));
			m->tables[m->ntables++] = t;
			break;
		}
		case MAN_DROP_TABLE: {
			man_table *t = find_table(m, (uint32_t)get_var(&c));
			if (t)
				t->live = false;
			break;
		}
		case MAN_SET_FAMILY: {
			uint32_t id = (uint32_t)get_var(&c);
			kv_family_opts f;
			get_fam(&c, &f);
			man_table *t = find_table(m, id);
			if (c.bad || !t)
				break;
			int i;
			for (i = 0; i < t->nfam; i++)
				if (!strcmp(t->fams[i].name, f.name))
					break;
			if (i == t->nfam) {
				t->fams =
				    util_xrealloc(t->fams, (size_t)(t->nfam + 1) * sizeof(kv_family_opts));
				t->nfam++;
			}
			t->fams[i] = f;
			break;
		}
		case MAN_DROP_FAMILY: {
			uint32_t id = (uint32_t)get_var(&c);
			char name[32];
			get_name(&c, name, sizeof(name));
			man_table *t = find_table(m, id);
			if (c.bad || !t)
				break;
			for (int i = 0; i < t->nfam; i++) {
				if (!strcmp(t->fams[i].name, name)) {
					t->fams[i] = t->fams[--t->nfam];
					break;
				}
			}
			break;
		}
		case MAN_ADD_FILE: {
			man_file f = {0};
			f.table_id = (uint32_t)get_var(&c);
			get_name(&c, f.family, sizeof(f.family));
			f.number = get_var(&c);
			f.size = get_var(&c);
			f.entries = get_var(&c);
			f.deletes = get_var(&c);
			f.min_ts = get_be(&c, 8);
			f.max_ts = get_be(&c, 8);
			f.seq = get_be(&c, 8);
			size_t sl, ll;
			const uint8_t *s = get_str(&c, &sl);
			const uint8_t *l = get_str(&c, &ll);
			if (c.bad)
				break;
			f.smallest = util_xmalloc(sl ? sl : 1);
			memcpy(f.smallest, s, sl);
			f.slen = sl;
			f.largest = util_xmalloc(ll ? ll : 1);
			memcpy(f.largest, l, ll);
			f.llen = ll;
			f.live = true;
			m->files = util_xrealloc(m->files, (m->nfiles + 1) * sizeof(man_file));
			m->files[m->nfiles++] = f;
			break;
		}
		case MAN_DEL_FILE: {
			uint32_t tid = (uint32_t)get_var(&c);
			char fam[32];
			get_name(&c, fam, sizeof(fam));
			uint64_t num = get_var(&c);
			if (c.bad)
				break;
			for (size_t i = 0; i < m->nfiles; i++) {
				if (m->files[i].live && m->files[i].number == num &&
				    m->files[i].table_id == tid) {
					m->files[i].live = false;
					free_file(&m->files[i]);
				}
			}
			break;
		}
		case MAN_FILE_GTS: {
			uint32_t tid = (uint32_t)get_var(&c);
			uint64_t num = get_var(&c);
			kv_ts gts = get_be(&c, 8);
			man_file *f = c.bad ? NULL : live_file(m, tid, num);
			if (f)
				f->gts = gts;
			break;
		}
		case MAN_FILE_LATE: {
			uint32_t tid = (uint32_t)get_var(&c);
			uint64_t num = get_var(&c);
			kv_ts lc = get_be(&c, 8), lm = get_be(&c, 8);
			man_file *f = c.bad ? NULL : live_file(m, tid, num);
			if (f) {
				f->late_cts = lc;
				f->late_min = lm;
			}
			break;
		}
		case MAN_TABLE_FLUSHED: {
			man_table *t = find_table(m, (uint32_t)get_var(&c));
			kv_ts ts = get_be(&c, 8);
			if (t && !c.bad)
				t->flushed_ts = ts;
			break;
		}
		default:
			c.bad = true;
		}
	}
	if (c.bad)
		return kv_fail(KV_CORRUPTION, "malformed manifest edit");
	return KV_OK;
}

void man_state_free(man_state *m)
{
	for (size_t i = 0; i < m->ntables; i++) {
		free(m->tables[i].name);
		free(m->tables[i].fams);
	}
	for (size_t i = 0; i < m->nfiles; i++)
		free_file(&m->files[i]);
	free(m->tables);
	free(m->files);
	memset(m, 0, sizeof(*m));
}

static kv_status apply_cb(void *arg, const uint8_t *p, size_t n)
{
	return man_apply(arg, p, n);
}

kv_status man_load(kv_fs *fs, const char *dir, man_state *m, uint64_t *number)
{
	char path[4096], buf[128];
	snprintf(path, sizeof(path), "%s/CURRENT", dir);
	kv_file *f;
	int e = fs->open_read(fs, path, &f);
	if (e == ENOENT)
		return KV_NOT_FOUND;
	if (e)
		return kv_fail_errno(e, "open", path);
	size_t got = 0;
	e = fs->pread(f, buf, sizeof(buf) - 1, 0, &got);
	fs->close(f);
	if (e)
		return kv_fail_errno(e, "read", path);
	buf[got] = 0;
	unsigned long long num;
	char nl;
	if (sscanf(buf, "MANIFEST-%llu%c", &num, &nl) != 2 || nl != '\n')
		return kv_fail(KV_CORRUPTION, "%s: malformed CURRENT file", dir);
	*number = num;
	snprintf(path, sizeof(path), "%s/MANIFEST-%06llu", dir, num);
	uint64_t end, size;
	kv_status st = wal_replay(fs, path, apply_cb, m, &end, &size);
	if (st == KV_NOT_FOUND)
		return kv_fail(KV_CORRUPTION, "%s: CURRENT names a missing manifest", dir);
	return st;
}

/* ---------------------------------------------------------------- writer */

struct man_writer {
	kv_fs *fs;
	kv_file *f;
	uint64_t number, size;
};

static kv_status append_rec(kv_fs *fs, kv_file *f, const util_buf *b, uint64_t *size)
{
	uint8_t h[WAL_HEADER];
	util_put_be32(h, (uint32_t)b->len);
	uint32_t crc = util_crc32c(0, h, 4);
	crc = util_crc32c(crc, b->data, b->len);
	util_put_be32(h + 4, util_crc_mask(crc));
	int e = fs->append(f, h, WAL_HEADER);
	if (!e)
		e = fs->append(f, b->data, b->len);
	if (!e)
		e = fs->sync(f);
	if (e)
		return kv_fail_errno(e, "write manifest", "");
	*size += WAL_HEADER + b->len;
	return KV_OK;
}

kv_status man_writer_create(kv_fs *fs, const char *dir, uint64_t number, const util_buf *snapshot,
			    man_writer **out)
{
	char path[4096], tmp[4096], cur_s[64];
	snprintf(path, sizeof(path), "%s/MANIFEST-%06llu", dir, (unsigned long long)number);
	man_writer *w = util_xcalloc(1, sizeof(*w));
	w->fs = fs;
	w->number = number;
	int e = fs->open_write(fs, path, true, &w->f);
	if (e) {
		free(w);
		return kv_fail_errno(e, "create", path);
	}
	kv_status st = append_rec(fs, w->f, snapshot, &w->size);
	if (st)
		goto fail;
	/* CURRENT.tmp -> fsync -> rename -> fsync dir. */
	snprintf(tmp, sizeof(tmp), "%s/CURRENT.tmp", dir);
	snprintf(cur_s, sizeof(cur_s), "MANIFEST-%06llu\n", (unsigned long long)number);
	kv_file *cf;
	if ((e = fs->open_write(fs, tmp, true, &cf))) {
		st = kv_fail_errno(e, "create", tmp);
		goto fail;
	}
	e = fs->append(cf, cur_s, strlen(cur_s));
	if (!e)
		e = fs->sync(cf);
	fs->close(cf);
	char curp[4096];
	snprintf(curp, sizeof(curp), "%s/CURRENT", dir);
	if (!e)
		e = fs->rename(fs, tmp, curp);
	if (!e)
		e = fs->sync_dir(fs, dir);
	if (e) {
		st = kv_fail_errno(e, "install", curp);
		goto fail;
	}
	*out = w;
	return KV_OK;
fail:
	fs->close(w->f);
	free(w);
	return st;
}

kv_status man_writer_append(man_writer *w, const util_buf *edit)
{
	return append_rec(w->fs, w->f, edit, &w->size);
}

uint64_t man_writer_size(const man_writer *w)
{
	return w->size;
}

uint64_t man_writer_number(const man_writer *w)
{
	return w->number;
}

void man_writer_close(man_writer *w)
{
	if (!w)
		return;
	w->fs->close(w->f);
	free(w);
}
