/*
 * restore.c — kv_restore(): rebuilds a store from a backup chain (a full
 * backup and the incremental backups after it), optionally as of a point
 * between them (point-in-time restore).
 *
 * The chain is found from the newest backup by parent ids (at the path
 * recorded when the backup was taken, else among the directories beside
 * it). Backups are applied oldest first: tables are created with their
 * family options, cells are written back with their own timestamps in
 * batches (delete markers too), tables missing from a backup's list are
 * dropped. The new store is built under "<store_dir>.partial" and renamed
 * into place only when complete, so a failed restore leaves nothing that
 * looks like a store.
 *
 * A store_dir that is an etcd URI (etcd://..., docs/scale-out.md) restores
 * into that etcd prefix instead, which must hold no kv table: the same
 * chain is applied through the backend's commits, in smaller batches (one
 * etcd transaction each). There is no rename there: a failed restore
 * drops the tables it created.
 */
#include "bk_int.h"
#include "ekv.h"
#include "kv_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CHAIN   10000
#define BATCH_BYTES (4u << 20)
/* etcd: one batch is one etcd transaction (cells and row markers) within
 * a deployment's raised limits (docs/scale-out.md, "Deploy"); one the
 * cluster refuses as too large commits as a large transaction instead. */
#define ETCD_BATCH_BYTES (512u << 10)
#define ETCD_BATCH_CELLS 1000

typedef struct chain {
	bk_manifest *m; /* oldest first after resolve() */
	char **dirs;
	int n, cap;
} chain;

static void chain_push(chain *c, const bk_manifest *m, const char *dir)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 8;
		c->m = util_xrealloc(c->m, sizeof(bk_manifest) * (size_t)c->cap);
		c->dirs = util_xrealloc(c->dirs, sizeof(char *) * (size_t)c->cap);
	}
	c->m[c->n] = *m;
	c->dirs[c->n++] = util_xstrdup(dir);
}

static void chain_free(chain *c)
{
	for (int i = 0; i < c->n; i++) {
		bk_manifest_free(&c->m[i]);
		free(c->dirs[i]);
	}
	free(c->m);
	free(c->dirs);
}

typedef struct sibling_search {
	kv_fs *fs;
	const char *base;
	const char *id;
	char found[4096];
} sibling_search;

static int look_sibling(void *arg, const char *name)
{
	sibling_search *ss = arg;
	char dir[4096];
	bk_path(dir, sizeof dir, ss->base, name);
	bk_manifest m;
	if (bk_manifest_read(ss->fs, dir, &m) != KV_OK)
		return 0;
	bool hit = !strcmp(m.id, ss->id);
	bk_manifest_free(&m);
	if (hit)
		snprintf(ss->found, sizeof ss->found, "%s", dir);
	return hit;
}

/* Finds the parent of a backup in `dir`: at its recorded path, else in a
 * directory beside `dir` (backup sets that were moved together). */
static kv_status find_parent(kv_fs *fs, const char *dir, const bk_manifest *child, bk_manifest *pm,
			     char *pdir, size_t plen)
{
	if (child->parent_path && *child->parent_path &&
	    bk_manifest_read(fs, child->parent_path, pm) == KV_OK) {
		if (!strcmp(pm->id, child->parent_id)) {
			snprintf(pdir, plen, "%s", child->parent_path);
			return KV_OK;
		}
		bk_manifest_free(pm);
	}
	char base[4096];
	snprintf(base, sizeof base, "%s", dir);
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		base[--n] = '\0';
	char *slash = strrchr(base, '/');
	if (slash == base)
		base[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		snprintf(base, sizeof base, ".");
	sibling_search ss = {fs, base, child->parent_id, ""};
	fs->list(fs, base, look_sibling, &ss);
	if (ss.found[0] && bk_manifest_read(fs, ss.found, pm) == KV_OK) {
		snprintf(pdir, plen, "%s", ss.found);
		return KV_OK;
	}
	return kv_fail(KV_NOT_FOUND, "parent backup %s of %s not found (looked at %s and in %s)",
		       child->parent_id, dir, child->parent_path ? child->parent_path : "?", base);
}

static kv_status resolve(kv_fs *fs, const char *dir, chain *c)
{
	bk_manifest m;
	kv_status st = bk_manifest_read(fs, dir, &m);
	if (st)
		return st;
	chain_push(c, &m, dir);
	while (c->m[c->n - 1].incremental) {
		if (c->n >= MAX_CHAIN)
			return kv_fail(KV_INVALID, "backup chain longer than %d", MAX_CHAIN);
		char pdir[4096];
		bk_manifest pm;
		if ((st = find_parent(fs, c->dirs[c->n - 1], &c->m[c->n - 1], &pm, pdir, sizeof pdir)))
			return st;
		if (pm.ts != c->m[c->n - 1].since) {
			bk_manifest_free(&pm);
			return kv_fail(KV_CORRUPTION, "backup %s does not continue its parent %s",
				       c->m[c->n - 1].id, pm.id);
		}
		chain_push(c, &pm, pdir);
	}
	/* Oldest first. */
	for (int i = 0; i < c->n / 2; i++) {
		bk_manifest tm = c->m[i];
		c->m[i] = c->m[c->n - 1 - i];
		c->m[c->n - 1 - i] = tm;
		char *td = c->dirs[i];
		c->dirs[i] = c->dirs[c->n - 1 - i];
		c->dirs[c->n - 1 - i] = td;
	}
	return KV_OK;
}

/* Makes the table exist with the families of rec; `fresh` drops it first. */
static kv_status prepare_table(kv_store *s, const bk_table *rec, bool fresh)
{
	kv_family_opts cur[KV_MAX_FAMILIES];
	int n = 0;
	kv_status st = kv_table_families(s, rec->name, cur, KV_MAX_FAMILIES, &n);
	if (st == KV_OK && fresh) {
		if ((st = kv_table_drop(s, rec->name)))
			return st;
		st = KV_NOT_FOUND;
	}
	if (st == KV_NOT_FOUND)
		return kv_table_create(s, rec->name, rec->fams, rec->nfam);
	if (st)
		return st;
	for (int i = 0; i < rec->nfam && !st; i++)
		st = kv_table_alter_family(s, rec->name, &rec->fams[i], false);
	for (int i = 0; i < n && !st; i++) {
		bool keep = false;
		for (int k = 0; k < rec->nfam && !keep; k++)
			keep = !strcmp(cur[i].name, rec->fams[k].name);
		if (!keep)
			st = kv_table_alter_family(s, rec->name, &cur[i], true);
	}
	return st;
}

static kv_status flush_batch(kv_store *s, kv_batch *b)
{
	if (!kv_batch_count(b))
		return KV_OK;
	kv_write_opts wo = {.no_sync = true};
	kv_status st = kv_commit(s, b, &wo, NULL);
	kv_batch_clear(b);
	return st;
}

/* Writes the cells of one cell file with ts <= upto back into t. */
static kv_status load_table(kv_store *s, kv_fs *fs, const char *dir, const bk_table *rec, kv_ts upto,
			    const kv_restore_opts *o)
{
	char path[4096];
	bk_path(path, sizeof path, dir, rec->file);
	kv_table *t;
	kv_status st = kv_table_open(s, rec->name, &t);
	if (st)
		return st;
	bk_reader *r;
	if ((st = bk_reader_open(fs, path, &r))) {
		kv_table_close(t);
		return st;
	}
	kv_batch *b = kv_batch_new();
	kv_cell c;
	uint64_t loaded = 0;
	char fam[32];
	while ((st = bk_reader_next(r, &c)) == KV_OK) {
		if (c.ts > upto)
			continue;
		if (!c.family.len || c.family.len >= sizeof fam) {
			st = kv_fail(KV_CORRUPTION, "backup file %s: bad family name", path);
			break;
		}
		memcpy(fam, c.family.data, c.family.len);
		fam[c.family.len] = '\0';
		if (c.type == KV_PUT)
			kv_batch_put(b, t, c.row.data, c.row.len, fam, c.qualifier.data, c.qualifier.len,
				     c.ts, c.value.data, c.value.len);
		else
			kv_batch_delete(b, t, c.row.data, c.row.len, fam, c.qualifier.data, c.qualifier.len,
					c.ts, (kv_cell_type)c.type);
		loaded++;
		if (s->etcd
			? kv_batch_byte_size(b) >= ETCD_BATCH_BYTES || kv_batch_count(b) >= ETCD_BATCH_CELLS
			: kv_batch_byte_size(b) >= BATCH_BYTES) {
			if ((st = flush_batch(s, b)))
				break;
			if (o->progress && !o->progress(o->arg, rec->name, loaded, 0)) {
				st = kv_fail(KV_BUSY, "restore stopped");
				break;
			}
		}
	}
	if (st == KV_NOT_FOUND) {
		uint64_t cells, bytes;
		uint32_t crc;
		bk_reader_totals(r, &cells, &bytes, &crc);
		st = cells == rec->cells && bytes == rec->bytes && crc == rec->crc
			 ? flush_batch(s, b)
			 : kv_fail(KV_CORRUPTION, "backup file %s does not match the manifest", path);
	}
	if (!st && o->progress && !o->progress(o->arg, rec->name, loaded, rec->bytes))
		st = kv_fail(KV_BUSY, "restore stopped");
	kv_batch_free(b);
	bk_reader_close(r);
	kv_table_close(t);
	return st;
}

typedef struct drop_ctx {
	const bk_manifest *keep;
	char **v;
	int n, cap;
} drop_ctx;

static int note_drop(void *arg, const char *name)
{
	drop_ctx *d = arg;
	if (bk_manifest_find(d->keep, name))
		return 0;
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 8;
		d->v = util_xrealloc(d->v, sizeof(char *) * (size_t)d->cap);
	}
	d->v[d->n++] = util_xstrdup(name);
	return 0;
}

/* Drops every table that is not in m (it did not exist at m's time). */
static kv_status drop_absent(kv_store *s, const bk_manifest *m)
{
	drop_ctx d = {m, NULL, 0, 0};
	kv_status st = kv_table_list(s, note_drop, &d);
	for (int i = 0; i < d.n; i++) {
		if (!st)
			st = kv_table_drop(s, d.v[i]);
		free(d.v[i]);
	}
	free(d.v);
	return st;
}

/* Removes a store directory a restore created (flat: a store has no
 * subdirectories). kv_fs has no rmdir; the directory itself goes with
 * POSIX rmdir, which is harmless for file systems it does not know. */
static void rm_store_dir(kv_fs *fs, const char *dir)
{
	bk_remove_files(fs, dir);
	rmdir(dir);
}

static kv_status apply_chain(kv_store *s, kv_fs *fs, const chain *c, int k, kv_ts X, const kv_restore_opts *o)
{
	kv_status st = KV_OK;
	for (int i = 0; i <= k && !st; i++) {
		const bk_manifest *m = &c->m[i];
		for (int j = 0; j < m->ntables && !st; j++) {
			const bk_table *rec = &m->tables[j];
			st = prepare_table(s, rec, rec->full);
			if (!st)
				st = load_table(s, fs, c->dirs[i], rec, X, o);
		}
		/* Tables missing from a backup did not exist at its time. When
		 * the restore stops between two backups, a table may have been
		 * dropped after the point restored: keep it (the upper layer's
		 * catalog as of that point decides whether it is still used). */
		if (!st && (i < k || X == m->ts))
			st = drop_absent(s, m);
	}
	return st;
}

static int count_table(void *arg, const char *name)
{
	(void)name;
	(*(int *)arg)++;
	return 0;
}

static int drop_listed(void *arg, const char *name)
{
	kv_table_drop(arg, name);
	return 0;
}

/* Restores into an etcd prefix that holds no kv table yet. */
static kv_status restore_etcd(kv_fs *fs, const chain *c, int k, kv_ts X, const char *uri,
			      const kv_restore_opts *o)
{
	kv_store_opts so;
	kv_store_opts_default(&so);
	kv_store *s;
	kv_status st = kv_store_open(uri, &so, &s);
	if (st)
		return st;
	int n = 0;
	if ((st = kv_table_list(s, count_table, &n))) {
		kv_store_close(s);
		return st;
	}
	if (n) {
		kv_store_close(s);
		return kv_fail(KV_EXISTS, "restore target %s already holds %d kv tables", uri, n);
	}
	st = apply_chain(s, fs, c, k, X, o);
	if (st) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", kv_errmsg());
		kv_table_list(s, drop_listed, s);
		kv_fail(st, "%s", msg);
	}
	kv_store_close(s);
	return st;
}

kv_status kv_restore(const char *dir, const char *store_dir, const kv_restore_opts *opts, kv_backup_info *out)
{
	kv_restore_opts o;
	if (opts)
		o = *opts;
	else
		memset(&o, 0, sizeof o);
	kv_fs *fs = o.fs ? o.fs : kv_fs_posix();
	bool etcd = ekv_is_uri(store_dir);
	if (!etcd && fs->exists(fs, store_dir) == 0)
		return kv_fail(KV_EXISTS, "restore target %s already exists", store_dir);
	chain c = {0};
	kv_status st = resolve(fs, dir, &c);
	if (st) {
		chain_free(&c);
		return st;
	}
	const bk_manifest *last = &c.m[c.n - 1];
	kv_ts X = o.as_of ? o.as_of : last->ts;
	if (X > last->ts) {
		st = kv_fail(KV_INVALID, "restore point %" PRIu64 " is after the backup (%" PRIu64 ")", X,
			     last->ts);
		goto out;
	}
	int k = 0;
	while (c.m[k].ts < X)
		k++;
	/* Every table of the restored point must have history back to X. */
	for (int j = 0; j < c.m[k].ntables && !st; j++) {
		const char *name = c.m[k].tables[j].name;
		for (int i = k; i >= 0; i--) {
			const bk_table *rec = bk_manifest_find(&c.m[i], name);
			if (!rec) {
				st = kv_fail(KV_CORRUPTION,
					     "backup %s lists kv table %s as a delta, but %s lacks it",
					     c.m[i + 1].id, name, c.m[i].id);
				break;
			}
			if (rec->full) {
				if (X < rec->from)
					st = kv_fail(KV_INVALID,
						     "restore point %" PRIu64
						     " is older than the history backup %s kept "
						     "for kv table %s (from %" PRIu64 ")",
						     X, c.m[i].id, name, rec->from);
				break;
			}
		}
	}
	if (st)
		goto out;
	if (etcd) {
		st = restore_etcd(fs, &c, k, X, store_dir, &o);
		goto done;
	}

	char partial[4096];
	snprintf(partial, sizeof partial, "%s.partial", store_dir);
	if (fs->exists(fs, partial) == 0)
		rm_store_dir(fs, partial);
	kv_store_opts so;
	kv_store_opts_default(&so);
	so.create_if_missing = true;
	so.durability = KV_SYNC_NONE; /* made durable by the flush below */
	so.fs = fs;
	kv_store *s;
	if ((st = kv_store_open(partial, &so, &s)))
		goto out;
	st = apply_chain(s, fs, &c, k, X, &o);
	if (!st)
		st = kv_store_flush(s);
	kv_store_close(s);
	if (st) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", kv_errmsg());
		rm_store_dir(fs, partial);
		kv_fail(st, "%s", msg);
	} else {
		int e = fs->rename(fs, partial, store_dir);
		if (!e) {
			char parent[4096];
			snprintf(parent, sizeof parent, "%s", store_dir);
			char *slash = strrchr(parent, '/');
			if (slash && slash != parent)
				*slash = '\0';
			else
				snprintf(parent, sizeof parent, slash ? "/" : ".");
			e = fs->sync_dir(fs, parent);
		}
		if (e)
			st = kv_fail_errno(e, "moving the restored store into place", store_dir);
	}
done:
	if (!st && out) {
		bk_manifest_info(&c.m[k], out);
		out->ts = X;
	}
out:
	chain_free(&c);
	return st;
}
