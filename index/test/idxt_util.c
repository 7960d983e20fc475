/* idxt_util.c — helpers shared by the index/ unit tests (idxt_util.h). */
#include "idxt_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *idxt_tmpdir(const char *tag)
{
	const char *base = getenv("KVT_DIR");
	if (!base && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	if (!base)
		base = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof tmpl, "%s/idxt-%s-XXXXXX", base ? base : "/tmp", tag);
	char *d = mkdtemp(tmpl);
	if (!d)
		abort();
	return strdup(d);
}

void idxt_rmdir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", path, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			idxt_rmdir(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(path);
}

void idxt_pk(int64_t id, util_buf *out)
{
	ty_keycol kc = {TY_INT8, false, false};
	ty_key_encode(&kc, ty_int(id), out);
}

void idxt_entry(idxt *t, int64_t id, int64_t a, bool a_null, const char *b, util_buf *key, util_buf *val)
{
	util_buf v = UTIL_BUF_INIT, pk = UTIL_BUF_INIT;
	ty_datum d = a_null ? ty_null() : ty_int(a);
	idx_encode_values(&t->def, &d, &v, NULL);
	idxt_pk(id, &pk);
	idx_make_key(v.data, v.len, pk.data, pk.len, key);
	idx_make_value(0, b, b ? strlen(b) : 0, val);
	util_buf_free(&v);
	util_buf_free(&pk);
}

/* The model: decode a and b from the cells, newest ts of sentinel/a/b. */
static bool model_entry(void *arg, const kv_cell *cells, size_t n, util_buf *key, util_buf *val, kv_ts *rts)
{
	idxt *t = arg;
	bool exists = false, a_null = true;
	int64_t a = 0;
	const char *b = NULL;
	size_t blen = 0;
	kv_ts ts = 0;
	for (size_t i = 0; i < n; i++) {
		const kv_cell *c = &cells[i];
		if (c->qualifier.len == 0)
			exists = true;
		else if (c->qualifier.len == 2 && c->qualifier.data[1] == 1 && c->value.len == 8) {
			a = (int64_t)util_get_be64(c->value.data);
			a_null = false;
		} else if (c->qualifier.len == 2 && c->qualifier.data[1] == 2) {
			b = (const char *)c->value.data;
			blen = c->value.len;
		} else {
			continue;
		}
		if (c->ts > ts)
			ts = c->ts;
	}
	if (!exists)
		return false;
	ty_keycol kc = {TY_INT8, false, false};
	ty_datum id;
	if (ty_key_decode(&kc, cells[0].row.data, cells[0].row.data + cells[0].row.len, &id) == 0)
		return false;
	char bb[256];
	snprintf(bb, sizeof bb, "%.*s", (int)blen, b ? b : "");
	idxt_entry(t, id.i, a, a_null, b ? bb : NULL, key, val);
	*rts = ts;
	return true;
}

static void model_describe(void *arg, const uint8_t *values, size_t len, util_buf *out)
{
	idxt *t = arg;
	ty_datum d;
	if (ty_key_decode(&t->key, values, values + len, &d) == 0)
		util_buf_puts(out, "(a)=(?)");
	else if (d.null)
		util_buf_puts(out, "(a)=(null)");
	else
		util_buf_printf(out, "(a)=(%lld)", (long long)d.i);
}

void idxt_open(idxt *t, const char *dir, bool unique, const kv_store_opts *opts)
{
	ty_init();
	memset(t, 0, sizeof *t);
	t->dir = dir ? strdup(dir) : idxt_tmpdir("idx");
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.create_if_missing = true;
	kv_status st = kv_store_open(t->dir, opts ? opts : &o, &t->s);
	if (st != KV_OK) {
		fprintf(stderr, "open: %s %s\n", kv_status_name(st), kv_errmsg());
		abort();
	}
	kv_family_opts fam;
	kv_family_opts_default(&fam, "d");
	kv_table_create(t->s, "r1", &fam, 1);
	kv_table_create(t->s, "i1", &fam, 1);
	if (kv_table_open(t->s, "r1", &t->data) != KV_OK || kv_table_open(t->s, "i1", &t->index) != KV_OK)
		abort();
	t->key = (ty_keycol){TY_INT8, false, false};
	t->def = (idx_def){1, t->index, unique, false, 1, &t->key};
	t->cols[0] = (kv_column){"d", "", 0};
	t->cols[1] = (kv_column){"d", "\0\1", 2};
	t->cols[2] = (kv_column){"d", "\0\2", 2};
	t->model = (idx_rowmodel){.entry = model_entry,
				  .arg = t,
				  .columns = t->cols,
				  .ncolumns = 3,
				  .needs = t->cols,
				  .nneeds = 3,
				  .gc_judge = true,
				  .describe = model_describe};
}

void idxt_close(idxt *t, bool remove_dir)
{
	kv_table_close(t->data);
	kv_table_close(t->index);
	kv_store_close(t->s);
	if (remove_dir)
		idxt_rmdir(t->dir);
	free(t->dir);
	t->dir = NULL;
}

kv_status idxt_write(idxt *t, const idxt_row *old, const idxt_row *nw, bool split,
		     void (*fault)(void *arg, idx_split_step step), void *fault_arg)
{
	kv_batch *b = kv_batch_new();
	idx_writer *w = idx_writer_new();
	util_buf pk = UTIL_BUF_INIT, ok = UTIL_BUF_INIT, ov = UTIL_BUF_INIT, nk = UTIL_BUF_INIT,
		 nv = UTIL_BUF_INIT;
	const idxt_row *r = nw ? nw : old;
	idxt_pk(r->id, &pk);
	if (nw) {
		idxt_entry(t, nw->id, nw->a, nw->a_null, nw->b, &nk, &nv);
		idx_writer_put(w, &t->def, nk.data, nk.len, nv.data, nv.len);
		kv_batch_put(b, t->data, pk.data, pk.len, "d", "", 0, KV_TS_LATEST, "", 0);
		uint8_t a[8];
		util_put_be64(a, (uint64_t)nw->a);
		if (nw->a_null)
			kv_batch_delete(b, t->data, pk.data, pk.len, "d", "\0\1", 2, KV_TS_LATEST,
					KV_DELETE_COLUMN);
		else
			kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\1", 2, KV_TS_LATEST, a, 8);
		if (nw->b)
			kv_batch_put(b, t->data, pk.data, pk.len, "d", "\0\2", 2, KV_TS_LATEST, nw->b,
				     strlen(nw->b));
		else
			kv_batch_delete(b, t->data, pk.data, pk.len, "d", "\0\2", 2, KV_TS_LATEST,
					KV_DELETE_COLUMN);
	} else {
		kv_batch_delete_row(b, t->data, pk.data, pk.len, KV_TS_LATEST);
	}
	if (old) {
		idxt_entry(t, old->id, old->a, old->a_null, old->b, &ok, &ov);
		if (!nw || ok.len != nk.len || memcmp(ok.data, nk.data, ok.len) != 0)
			idx_writer_delete(w, &t->def, ok.data, ok.len, ov.data, ov.len);
	}
	/* Unique values: guards taken and left (values = key minus pk). */
	if (t->def.unique) {
		if (nw && !nw->a_null)
			idx_writer_guard(w, &t->def, nk.data, nk.len - pk.len, pk.data, pk.len, true);
		if (old && !old->a_null && (!nw || nw->a_null || old->a != nw->a))
			idx_writer_guard(w, &t->def, ok.data, ok.len - pk.len, pk.data, pk.len, false);
	}
	kv_status st;
	if (split) {
		idx_split_opts so = {0, fault, fault_arg};
		st = idx_commit_split(w, t->s, b, &so, NULL);
	} else {
		idx_writer_to_batch(w, b);
		st = kv_commit(t->s, b, NULL, NULL);
	}
	util_buf_free(&pk);
	util_buf_free(&ok);
	util_buf_free(&ov);
	util_buf_free(&nk);
	util_buf_free(&nv);
	idx_writer_free(w);
	kv_batch_free(b);
	return st;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void ids_out(int64_t *ids, size_t n, util_buf *out)
{
	qsort(ids, n, sizeof *ids, cmp_i64);
	util_buf_reset(out);
	for (size_t i = 0; i < n; i++)
		util_buf_printf(out, "%s%lld", i ? "," : "", (long long)ids[i]);
	if (!out->data)
		util_buf_puts(out, "");
}

static void scan_ids(idxt *t, kv_ts read_ts, bool trust, kv_batch *repairs, int *nrepairs, util_buf *out);

void idxt_index_ids(idxt *t, kv_ts read_ts, util_buf *out) { scan_ids(t, read_ts, false, NULL, NULL, out); }

void idxt_trusting_ids(idxt *t, util_buf *out) { scan_ids(t, 0, true, NULL, NULL, out); }

int idxt_repair_all(idxt *t)
{
	kv_batch *b = kv_batch_new();
	int n = 0;
	util_buf ids = UTIL_BUF_INIT;
	scan_ids(t, 0, false, b, &n, &ids);
	if (kv_batch_count(b) && kv_commit(t->s, b, NULL, NULL) != KV_OK)
		abort();
	kv_batch_free(b);
	util_buf_free(&ids);
	return n;
}

static void scan_ids(idxt *t, kv_ts read_ts, bool trust, kv_batch *repairs, int *nrepairs, util_buf *out)
{
	int64_t ids[4096];
	size_t n = 0;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = read_ts;
	kv_iter *it = kv_scan(t->index, &so);
	util_arena *a = util_arena_new(4096, 0);
	util_buf k = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		idx_entry e;
		if (!idx_entry_parse(&t->def, kv_iter_cell(it), &e) || e.guard)
			continue;
		ty_datum id;
		ty_keycol kc = {TY_INT8, false, false};
		if (trust && (e.flags & IDX_F_VERIFIED)) {
			ty_key_decode(&kc, e.pk.data, e.pk.data + e.pk.len, &id);
			if (n < 4096)
				ids[n++] = id.i;
			continue;
		}
		kv_read_opts ro;
		memset(&ro, 0, sizeof ro);
		ro.read_ts = read_ts;
		ro.columns = t->cols;
		ro.ncolumns = 3;
		kv_row row;
		util_arena_reset(a);
		kv_status st = kv_get(t->data, e.pk.data, e.pk.len, &ro, a, &row);
		util_buf_reset(&k);
		util_buf_reset(&v);
		kv_ts rts = 0;
		bool has =
		    model_entry(t, st == KV_OK ? row.cells : NULL, st == KV_OK ? row.n : 0, &k, &v, &rts);
		idx_verdict vd = idx_judge(&e, has, k.data, k.len, rts);
		if (repairs && idx_repair(repairs, &t->def, &e, vd, v.data, v.len, rts))
			(*nrepairs)++;
		if (idx_verdict_member(vd)) {
			ty_key_decode(&kc, e.pk.data, e.pk.data + e.pk.len, &id);
			if (n < 4096)
				ids[n++] = id.i;
		}
	}
	kv_iter_close(it);
	util_arena_destroy(a);
	util_buf_free(&k);
	util_buf_free(&v);
	ids_out(ids, n, out);
}

void idxt_data_ids(idxt *t, kv_ts read_ts, util_buf *out)
{
	int64_t ids[4096];
	size_t n = 0;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = read_ts;
	so.read.columns = t->cols;
	so.read.ncolumns = 1;
	kv_iter *it = kv_scan(t->data, &so);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		if (c->qualifier.len != 0)
			continue;
		ty_datum id;
		ty_keycol kc = {TY_INT8, false, false};
		ty_key_decode(&kc, c->row.data, c->row.data + c->row.len, &id);
		if (n < 4096)
			ids[n++] = id.i;
	}
	kv_iter_close(it);
	ids_out(ids, n, out);
}
