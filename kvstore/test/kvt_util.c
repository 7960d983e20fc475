/* kvt_util.c — shared helpers for the kvstore unit tests (kvt_util.h). */
#include "kvt_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *kvt_tmpdir(const char *tag)
{
	/* tmpfs when there is one: these tests fsync a lot and check logic,
	 * not the disk (fault_test simulates lost writes itself). KVT_DIR
	 * overrides. */
	const char *base = getenv("KVT_DIR");
	if (!base && access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	if (!base)
		base = getenv("TMPDIR");
	char tmpl[4096];
	snprintf(tmpl, sizeof(tmpl), "%s/kvt-%s-XXXXXX", base ? base : "/tmp", tag);
	char *d = mkdtemp(tmpl);
	if (!d)
		abort();
	return strdup(d);
}

void kvt_rmdir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4096];
		snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			kvt_rmdir(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(path);
}

void kvt_close_rm(kv_store *s, char *dir)
{
	if (s)
		kv_store_close(s);
	kvt_rmdir(dir);
	free(dir);
}

kv_store *kvt_open(const char *dir, const kv_store_opts *o)
{
	kv_store_opts def;
	kv_store_opts_default(&def);
	def.durability = KV_SYNC_NONE;
	kv_store *s = NULL;
	kv_status st = kv_store_open(dir, o ? o : &def, &s);
	if (st) {
		fprintf(stderr, "kv_store_open(%s): %s: %s\n", dir, kv_status_name(st), kv_errmsg());
		return NULL;
	}
	return s;
}

kv_store *kvt_open_spill(const char *dir, kv_fs *fs, size_t spill)
{
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = fs ? KV_SYNC_COMMIT : KV_SYNC_NONE;
	o.batch_spill_bytes = spill;
	o.fs = fs;
	o.block_cache_bytes = 1 << 20;
	/* No background compaction: a load's runs kept apart make enough files
	 * to start one at any moment. */
	o.compaction_threads = -1;
	return kvt_open(dir, &o);
}

int kvt_count_ssts(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strstr(e->d_name, ".sst") != NULL;
	closedir(d);
	return n;
}

uint64_t kvt_file_count(kv_table *t)
{
	kv_table_stats ts;
	return kv_table_get_stats(t, &ts) == KV_OK ? ts.file_count : UINT64_MAX;
}

size_t kvt_scan_count(kv_table *t, kv_ts read_ts)
{
	kv_scan_opts o = {0};
	o.read.read_ts = read_ts;
	return kvt_scan_cells(t, &o);
}

size_t kvt_scan_cells(kv_table *t, const kv_scan_opts *o)
{
	kv_iter *it = kv_scan(t, o);
	size_t n = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		n++;
	if (kv_iter_status(it) != KV_OK)
		n = SIZE_MAX;
	kv_iter_close(it);
	return n;
}

void kvt_rowkey(char *b, int i)
{
	snprintf(b, 16, "r%05d", i);
}

kv_table *kvt_table(kv_store *s, const char *name, int nfam, const char *const *fams)
{
	kv_family_opts fo[8];
	for (int i = 0; i < nfam; i++)
		kv_family_opts_default(&fo[i], fams[i]);
	kv_status st = kv_table_create(s, name, fo, nfam);
	if (st && st != KV_EXISTS) {
		fprintf(stderr, "kv_table_create: %s\n", kv_errmsg());
		return NULL;
	}
	kv_table *t = NULL;
	kv_table_open(s, name, &t);
	return t;
}

kv_status kvt_put(kv_store *s, kv_table *t, const char *row, const char *fam, const char *q, kv_ts ts,
		  const char *val)
{
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, t, row, strlen(row), fam, q, strlen(q), ts, val, strlen(val));
	kv_status st = kv_commit(s, b, NULL, NULL);
	kv_batch_free(b);
	return st;
}

kv_status kvt_del(kv_store *s, kv_table *t, const char *row, const char *fam, const char *q, kv_ts ts,
		  kv_cell_type type)
{
	kv_batch *b = kv_batch_new();
	kv_batch_delete(b, t, row, strlen(row), fam, q, q ? strlen(q) : 0, ts, type);
	kv_status st = kv_commit(s, b, NULL, NULL);
	kv_batch_free(b);
	return st;
}

bool kvt_get(kv_table *t, const char *row, const char *fam, const char *q, kv_ts read_ts, char *buf,
	     size_t len)
{
	util_arena *a = util_arena_new(4096, 0);
	kv_column col = {fam, q, strlen(q)};
	kv_read_opts ro = {0};
	ro.read_ts = read_ts;
	ro.columns = &col;
	ro.ncolumns = 1;
	kv_row r;
	buf[0] = 0;
	bool found = false;
	if (kv_get(t, row, strlen(row), &ro, a, &r) == KV_OK && r.n > 0) {
		size_t n = r.cells[0].value.len < len - 1 ? r.cells[0].value.len : len - 1;
		memcpy(buf, r.cells[0].value.data, n);
		buf[n] = 0;
		found = true;
	}
	util_arena_destroy(a);
	return found;
}

void kvt_scan_rows(kv_table *t, const kv_scan_opts *o, char *buf, size_t len)
{
	kv_iter *it = kv_scan(t, o);
	size_t used = 0;
	buf[0] = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		if (!kv_iter_row_start(it))
			continue;
		const kv_cell *c = kv_iter_cell(it);
		int n = snprintf(buf + used, len - used, "%s%.*s", used ? "," : "", (int)c->row.len,
				 (const char *)c->row.data);
		if (n > 0 && (size_t)n < len - used)
			used += (size_t)n;
	}
	if (kv_iter_status(it))
		snprintf(buf, len, "ERROR:%s", kv_errmsg());
	kv_iter_close(it);
}

uint8_t *kvt_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *b = NULL;
	long len = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	if (len >= 0 && !fseek(f, 0, SEEK_SET) && (b = malloc((size_t)len + 1)) &&
	    fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = b ? (size_t)len : 0;
	return b;
}

bool kvt_same_files(const char *pa, const char *pb, size_t *n)
{
	size_t na, nb;
	uint8_t *da = kvt_read_file(pa, &na), *db = kvt_read_file(pb, &nb);
	bool same = da && db && na == nb && !memcmp(da, db, na);
	free(da);
	free(db);
	if (n)
		*n = na;
	return same;
}
