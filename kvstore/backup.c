/*
 * backup.c — kv_backup() and kv_backup_inspect(): a consistent copy of
 * every kv table as of one timestamp T while writes go on.
 *
 * T is a pinned snapshot (kv_snapshot_acquire) for a backup "now", so no
 * compaction drops a version visible at T while the tables are copied. Each
 * table is copied with a raw scan at read_ts T: a full backup takes every
 * cell with ts <= T (old versions and delete markers too, so the restored
 * store answers reads as of earlier timestamps like the source), an
 * incremental one the cells with ts in (parent's T, T]. The retention
 * checks at the end make sure no compaction could have dropped what the
 * copy needed (see kv.h and docs/operations.md). The table set is taken
 * with T (table_backup_set): a table dropped after T is copied from the
 * handle that keeps it readable, one created after T is not copied.
 *
 * On the etcd backend the same code reads every table at the one etcd
 * revision the pinned snapshot maps to (a range read at that revision,
 * paged by etcd_src.c), so the backup is the cluster's state at one
 * revision, tables listed from their metadata keys at that revision; the
 * pin also holds etcd's revision compaction (etcd_horizon.c) until the
 * copy ends.
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

static void close_tables(kv_table **v, int n)
{
	for (int i = 0; v && i < n; i++)
		kv_table_close(v[i]);
	free(v);
}

/* The test hook of table_backup_set (kv_int.h). */
void backup_test_pause(void)
{
	const char *on = getenv("STRATA_TEST_FAULTS"), *p = getenv("STRATA_BACKUP_PAUSE");
	if (!on || strcmp(on, "1") || !p || !*p)
		return;
	FILE *f = fopen(p, "w");
	if (!f)
		return;
	fclose(f);
	for (int i = 0; i < 12000 && access(p, F_OK) == 0; i++)
		util_sleep_us(10000);
}

static int count_entry(void *arg, const char *name)
{
	(void)name;
	(*(int *)arg)++;
	return 0;
}

/* Creates dir, or accepts an existing empty one. */
static kv_status make_dir(kv_fs *fs, const char *dir)
{
	int e = fs->mkdir(fs, dir), n = 0;
	if (!e || e == EEXIST)
		e = fs->list(fs, dir, count_entry, &n);
	if (e)
		return kv_fail_errno(e, "creating backup directory", dir);
	return n ? kv_fail(KV_EXISTS, "backup directory %s is not empty", dir) : KV_OK;
}

static void new_id(char *id)
{
	uint8_t r[16];
	if (util_random_bytes(r, sizeof r) != 0) {
		uint64_t t = (uint64_t)util_now_us(), m = (uint64_t)util_mono_us();
		memcpy(r, &t, 8);
		memcpy(r + 8, &m, 8);
	}
	for (int i = 0; i < 16; i++)
		snprintf(id + 2 * i, 3, "%02x", r[i]);
}

/* The oldest timestamp compactions may have reached by wall clock `now`
 * for a family (versions older than this may be gone). */
static kv_ts retention_bound(const kv_family_opts *f, int64_t now)
{
	int64_t b = now - f->retention_seconds * 1000000;
	return b < 0 ? 0 : (kv_ts)b;
}

/* Where an incremental copy of t starts: after the parent's point, or
 * before the oldest late cell (a read repair or backfill at an older
 * timestamp) committed since that point, which the parent cannot hold.
 * Cells the parent already has are copied again; a restore writes them
 * once more, which changes nothing. */
static kv_ts delta_after(kv_store *s, kv_table *t, kv_ts parent_ts)
{
	/* etcd: a late cell is a key put at a revision after the parent's,
	 * which the parent's manifest does not record; copy every cell. */
	if (s->etcd)
		return 0;
	kv_ts floor = table_late_floor(t, parent_ts);
	return floor <= parent_ts ? (floor ? floor - 1 : 0) : parent_ts;
}

/* Copies one table's cells with ts in (after, T] into a cell file. */
static kv_status copy_table(kv_fs *fs, kv_table *t, const char *path, kv_ts after, kv_ts T,
			    const kv_backup_opts *o, bk_table *rec)
{
	bk_writer *w;
	kv_status st = bk_writer_open(fs, path, &w);
	if (st)
		return st;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = T;
	so.read.raw = true;
	so.read.no_cache = true;
	so.read.min_ts = after + 1;
	so.read.max_ts = T + 1;
	/* A table dropped after T: the handle keeps its files and memstore. */
	kv_iter *it = scan_open(t, &so, &(scan_internal){.dropped_ok = true});
	uint64_t last_report = 0;
	if (o->progress && !o->progress(o->arg, rec->name, 0, 0))
		st = kv_fail(KV_BUSY, "backup stopped");
	for (; !st && kv_iter_valid(it); kv_iter_next(it)) {
		st = bk_writer_add(w, kv_iter_cell(it));
		uint64_t b = bk_writer_bytes(w);
		if (!st && o->progress && b - last_report >= BK_BLOCK_RAW) {
			last_report = b;
			if (!o->progress(o->arg, rec->name, 0, b))
				st = kv_fail(KV_BUSY, "backup stopped");
		}
	}
	if (!st)
		st = kv_iter_status(it);
	kv_iter_close(it);
	if (st) {
		bk_writer_abort(w);
		return st;
	}
	st = bk_writer_finish(w, &rec->cells, &rec->bytes, &rec->crc);
	if (!st && o->progress && !o->progress(o->arg, rec->name, rec->cells, rec->bytes))
		st = kv_fail(KV_BUSY, "backup stopped");
	return st;
}

kv_status kv_backup(kv_store *s, const char *dir, const kv_backup_opts *opts, kv_backup_info *out)
{
	kv_backup_opts o;
	if (opts)
		o = *opts;
	else
		memset(&o, 0, sizeof o);
	kv_fs *fs = o.fs ? o.fs : kv_fs_posix();
	bk_manifest parent, m;
	memset(&parent, 0, sizeof parent);
	memset(&m, 0, sizeof m);
	if (o.parent) {
		kv_status st = bk_manifest_read(fs, o.parent, &parent);
		if (st)
			return st;
	}
	kv_status st = make_dir(fs, dir);
	if (st) {
		bk_manifest_free(&parent);
		return st;
	}

	kv_ts T = o.as_of;
	bool pinned = !T;
	kv_table **tabs = NULL;
	int ntabs = 0;
	if (T && (st = kv_read_point_wait(s, T))) /* KV_INVALID: in the future */
		goto fail;
	/* The point and the table set together: a table dropped after T is
	 * still copied, one created after T is not. */
	if ((st = table_backup_set(s, &T, pinned, &tabs, &ntabs))) {
		pinned = false;
		goto fail;
	}
	if (o.parent && parent.ts > T) {
		st = kv_fail(KV_INVALID,
			     "the parent backup (as of %" PRIu64 ") is newer than this one (%" PRIu64 ")",
			     parent.ts, T);
		goto fail;
	}
	new_id(m.id);
	m.incremental = o.parent != NULL;
	if (m.incremental) {
		memcpy(m.parent_id, parent.id, sizeof m.parent_id);
		m.parent_path = util_xstrdup(o.parent);
		m.since = parent.ts;
		m.history_from = parent.history_from;
	}
	m.ts = T;

	for (int i = 0; i < ntabs && !st; i++) {
		kv_table *t = tabs[i];
		const char *name = kv_table_name(t);
		kv_family_opts fams[KV_MAX_FAMILIES];
		int nfam = 0;
		table_families_of(t, fams, KV_MAX_FAMILIES, &nfam);
		if (nfam > KV_MAX_FAMILIES)
			nfam = KV_MAX_FAMILIES;
		bk_table *rec = bk_manifest_add(&m, name);
		snprintf(rec->file, sizeof rec->file, "%06d.cells", m.ntables);
		rec->full = !m.incremental || !bk_manifest_find(&parent, name) ||
			    (o.force_full && o.force_full(o.arg, name));
		/* A table whose retention window no longer reaches the
		 * parent may have lost delete markers since: copy it whole. */
		int64_t now0 = util_now_us();
		for (int k = 0; k < nfam && !rec->full; k++)
			rec->full = parent.ts < retention_bound(&fams[k], now0);
		rec->from = rec->full ? T : parent.ts;
		rec->nfam = nfam;
		rec->fams = util_xcalloc((size_t)nfam, sizeof(kv_family_opts));
		memcpy(rec->fams, fams, sizeof(kv_family_opts) * (size_t)nfam);
		char path[4096];
		bk_path(path, sizeof path, dir, rec->file);
		st = copy_table(fs, t, path, rec->full ? 0 : delta_after(s, t, parent.ts), T, &o, rec);
	}
	close_tables(tabs, ntabs);
	tabs = NULL;
	if (st)
		goto fail;

	/* Retention checks, with the clock at the end of the copy: every
	 * compaction so far used a horizon at or below this bound. */
	int64_t now = util_now_us();
	for (int i = 0; i < m.ntables && !st; i++) {
		bk_table *rec = &m.tables[i];
		kv_ts from = 0; /* full copies: exact for reads at [from, T] */
		for (int k = 0; k < rec->nfam && !st; k++) {
			kv_ts b = retention_bound(&rec->fams[k], now);
			if (!rec->full && parent.ts < b)
				st = kv_fail(
				    KV_INVALID,
				    "the parent backup fell out of the retention window of kv table %s "
				    "(retention %" PRId64 " s) during the backup: take a full backup",
				    rec->name, rec->fams[k].retention_seconds);
			else if (!pinned && T < b)
				st = kv_fail(
				    KV_INVALID,
				    "backup timestamp is older than the retention window of kv table %s "
				    "(retention %" PRId64 " s)",
				    rec->name, rec->fams[k].retention_seconds);
			kv_ts f = b < T ? b : T;
			if (f > from)
				from = f;
		}
		if (rec->full) {
			rec->from = from;
			if (from > m.history_from)
				m.history_from = from;
		}
	}
	if (!m.incremental && !m.ntables)
		m.history_from = T;
	if (st)
		goto fail;
	m.created_us = now;
	if ((st = bk_manifest_write(fs, dir, &m)))
		goto fail;
	if (out)
		bk_manifest_info(&m, out);
	if (pinned)
		kv_snapshot_release(s, T);
	bk_manifest_free(&m);
	bk_manifest_free(&parent);
	return KV_OK;
fail:;
	/* Keep the message of the first failure across the cleanup. */
	char msg[512];
	snprintf(msg, sizeof msg, "%s", kv_errmsg());
	close_tables(tabs, ntabs);
	if (pinned)
		kv_snapshot_release(s, T);
	bk_remove_files(fs, dir); /* what the failed backup wrote */
	bk_manifest_free(&m);
	bk_manifest_free(&parent);
	return kv_fail(st, "%s", msg);
}

kv_status kv_backup_inspect(const char *dir, bool verify, kv_fs *fs, kv_backup_info *out)
{
	if (!fs)
		fs = kv_fs_posix();
	bk_manifest m;
	kv_status st = bk_manifest_read(fs, dir, &m);
	if (st)
		return st;
	for (int i = 0; verify && i < m.ntables && !st; i++) {
		const bk_table *t = &m.tables[i];
		char path[4096];
		bk_path(path, sizeof path, dir, t->file);
		bk_reader *r;
		if ((st = bk_reader_open(fs, path, &r)))
			break;
		kv_cell c;
		while ((st = bk_reader_next(r, &c)) == KV_OK)
			;
		if (st == KV_NOT_FOUND) {
			uint64_t cells, bytes;
			uint32_t crc;
			bk_reader_totals(r, &cells, &bytes, &crc);
			st = cells == t->cells && bytes == t->bytes && crc == t->crc
				 ? KV_OK
				 : kv_fail(KV_CORRUPTION, "backup file %s does not match the manifest", path);
		}
		bk_reader_close(r);
	}
	if (!st && out)
		bk_manifest_info(&m, out);
	bk_manifest_free(&m);
	return st;
}
