/* backup_test.c — kv_backup/kv_restore end to end: a full backup taken
 * while writers run restores to exactly the state as of its timestamp;
 * an incremental chain (puts, every kind of delete, tables created and
 * dropped, compactions in between) restores to the state at its end and,
 * point in time, at moments between the backups; past-timestamp backups;
 * the retention rules; damaged and moved backups; late cells (older
 * timestamps written after a backup's point) in the next incremental.
 * States are compared as every visible version of every cell of every
 * table. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kv.h"
#include "kv_fault.h"
#include "kv_fs.h"
#include "kvt_util.h"

/* ------------------------------------------------------------ helpers */

static kv_table *make_table(kv_store *s, const char *name, int64_t retention, int versions)
{
	kv_family_opts fo[2];
	kv_family_opts_default(&fo[0], "d");
	kv_family_opts_default(&fo[1], "h");
	fo[0].retention_seconds = fo[1].retention_seconds = retention;
	fo[1].max_versions = versions;
	kv_status st = kv_table_create(s, name, fo, 2);
	assert_true(st == KV_OK || st == KV_EXISTS);
	kv_table *t = NULL;
	assert_int_equal(kv_table_open(s, name, &t), KV_OK);
	return t;
}

/* Every visible version of every cell of table `name` at ts, one line per
 * cell, appended to out. False when the table does not exist. */
static bool dump_table(kv_store *s, const char *name, kv_ts ts, util_buf *out)
{
	kv_table *t;
	if (kv_table_open(s, name, &t) != KV_OK)
		return false;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = ts;
	so.read.max_versions = 1000;
	kv_iter *it = kv_scan(t, &so);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		util_buf_printf(out, "%.*s/%.*s/%.*s@%llu=%.*s\n", (int)c->row.len, c->row.data,
				(int)c->family.len, c->family.data, (int)c->qualifier.len, c->qualifier.data,
				(unsigned long long)c->ts, (int)c->value.len, c->value.data);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	kv_table_close(t);
	return true;
}

typedef struct tlist {
	char names[64][64];
	int n;
} tlist;

static int add_name(void *arg, const char *name)
{
	tlist *l = arg;
	if (l->n < 64)
		snprintf(l->names[l->n++], 64, "%s", name);
	return 0;
}

/* The restored store equals the source as of ts: same cells in every table
 * the restored store has, and every source table with cells at ts exists.
 * With keep_dropped, restored tables the source no longer has are allowed
 * (a point-in-time restore between backups keeps them). */
static void assert_same2(kv_store *src, kv_ts ts, kv_store *dst, bool keep_dropped)
{
	tlist a = {0}, b = {0};
	kv_table_list(src, add_name, &a);
	kv_table_list(dst, add_name, &b);
	int compared = 0;
	for (int i = 0; i < b.n; i++) {
		util_buf x = UTIL_BUF_INIT, y = UTIL_BUF_INIT;
		bool in_src = dump_table(src, b.names[i], ts, &x);
		dump_table(dst, b.names[i], KV_TS_MAX, &y);
		if (!in_src && keep_dropped) {
			util_buf_free(&y);
			continue;
		}
		if (x.len != y.len || (x.len && memcmp(x.data, y.data, x.len))) {
			size_t k = 0, line = 0;
			while (k < x.len && k < y.len && x.data[k] == y.data[k])
				k++;
			while (line < k && k - line > 0 && x.data[k - line - 1] != '\n')
				line++;
			fprintf(stderr,
				"table %s differs from the source as of %llu at:\n source:   %.80s\n "
				"restored: %.80s\n",
				b.names[i], (unsigned long long)ts,
				k - line < x.len ? x.data + k - line : "(end)",
				k - line < y.len ? y.data + k - line : "(end)");
			fail();
		}
		compared += x.len > 0;
		util_buf_free(&x);
		util_buf_free(&y);
	}
	for (int i = 0; i < a.n; i++) {
		util_buf x = UTIL_BUF_INIT;
		dump_table(src, a.names[i], ts, &x);
		if (x.len) {
			kv_family_opts fo[4];
			int n = 0;
			if (kv_table_families(dst, a.names[i], fo, 4, &n) != KV_OK) {
				fprintf(stderr, "table %s missing from the restored store\n", a.names[i]);
				fail();
			}
		}
		util_buf_free(&x);
	}
	assert_true(compared > 0);
}

static void assert_same(kv_store *src, kv_ts ts, kv_store *dst)
{
	assert_same2(src, ts, dst, false);
}

/* A temp dir (caller frees) with the paths of a source store, a backup
 * and a restore inside it (buffers of 4096). */
static char *test_dirs(const char *tag, char *src_dir, char *bk, char *dst)
{
	char *dir = kvt_tmpdir(tag);
	snprintf(src_dir, 4096, "%s/src", dir);
	snprintf(bk, 4096, "%s/b0", dir);
	snprintf(dst, 4096, "%s/dst", dir);
	return dir;
}

static void put(kv_store *s, kv_table *t, const char *row, const char *fam, const char *q, const char *v)
{
	assert_int_equal(kvt_put(s, t, row, fam, q, KV_TS_LATEST, v), KV_OK);
}

static kv_store *reopen_restored(const char *dir)
{
	kv_store *s = kvt_open(dir, NULL);
	assert_non_null(s);
	return s;
}

/* ------------------------------------------------------------ writers */

typedef struct writer {
	kv_store *s;
	kv_table *t;
	atomic_bool stop;
	atomic_long ops;
	unsigned seed;
} writer;

static void *write_loop(void *arg)
{
	writer *w = arg;
	kv_batch *b = kv_batch_new();
	while (!atomic_load(&w->stop)) {
		char row[16], val[32];
		int r = (int)(rand_r(&w->seed) % 200);
		snprintf(row, sizeof row, "w%03d", r);
		snprintf(val, sizeof val, "v%ld", atomic_load(&w->ops));
		kv_batch_clear(b);
		/* No version Deletes here: one committed after T carries the old
		 * version's timestamp and so changes what reads as of T see in
		 * the source itself (the chain test covers them). */
		switch (rand_r(&w->seed) % 5) {
		case 0:
			kv_batch_delete_row(b, w->t, row, strlen(row), KV_TS_LATEST);
			break;
		case 1:
			kv_batch_delete(b, w->t, row, strlen(row), "h", "q", 1, KV_TS_LATEST,
					KV_DELETE_COLUMN);
			break;
		default:
			/* Two rows in one batch: a restore must never show one without the other. */
			kv_batch_put(b, w->t, row, strlen(row), "d", "a", 1, KV_TS_LATEST, val, strlen(val));
			kv_batch_put(b, w->t, row, strlen(row), "h", "q", 1, KV_TS_LATEST, val, strlen(val));
			snprintf(row, sizeof row, "x%03d", r);
			kv_batch_put(b, w->t, row, strlen(row), "d", "a", 1, KV_TS_LATEST, val, strlen(val));
		}
		assert_int_equal(kv_commit(w->s, b, NULL, NULL), KV_OK);
		atomic_fetch_add(&w->ops, 1);
	}
	kv_batch_free(b);
	return NULL;
}

/* ------------------------------------------------------------ tests */

/* A full backup while two writers and a flushing/compacting thread run. */
static void test_full_while_writing(void **state)
{
	(void)state;
	char src_dir[4096], bk[4096], dst[4096];
	char *dir = test_dirs("bk-full", src_dir, bk, dst);
	kv_store *s = kvt_open(src_dir, NULL);
	assert_non_null(s);
	kv_table *t = make_table(s, "t1", 0, 3);
	kv_table *u = make_table(s, "t 2", 0, 1); /* a name with a space */
	for (int i = 0; i < 300; i++) {
		char r[16];
		snprintf(r, sizeof r, "w%03d", i % 200);
		put(s, t, r, "d", "a", "init");
		put(s, t, r, "h", "q", "init");
		put(s, u, r, "d", "z", "u");
	}
	assert_int_equal(kv_table_flush(t), KV_OK);
	/* The comparison reads the source as of T after the backup: a pin
	 * keeps compactions from trimming the versions those reads see. */
	kv_ts pin;
	assert_int_equal(kv_snapshot_acquire(s, &pin), KV_OK);
	writer w[2] = {{.s = s, .t = t, .seed = 1}, {.s = s, .t = u, .seed = 2}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, write_loop, &w[i]);
	while (atomic_load(&w[0].ops) < 300)
		usleep(1000);
	kv_backup_info info;
	assert_int_equal(kv_backup(s, bk, NULL, &info), KV_OK);
	/* Flushes and compactions after the backup must not matter. */
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	while (atomic_load(&w[0].ops) < 800)
		usleep(1000);
	for (int i = 0; i < 2; i++) {
		atomic_store(&w[i].stop, true);
		pthread_join(th[i], NULL);
	}
	assert_false(info.incremental);
	assert_int_equal(info.tables, 2);
	assert_true(info.cells > 0);
	assert_true(info.ts > 0 && info.history_from == info.ts); /* retention 0: only T is exact */

	kv_backup_info vi;
	assert_int_equal(kv_backup_inspect(bk, true, NULL, &vi), KV_OK);
	assert_string_equal(vi.id, info.id);
	assert_int_equal(vi.cells, info.cells);

	kv_backup_info ri;
	assert_int_equal(kv_restore(bk, dst, NULL, &ri), KV_OK);
	assert_int_equal(ri.ts, info.ts);
	kv_store *d = reopen_restored(dst);
	assert_same(s, info.ts, d);
	/* Writes after the backup are not in it. */
	util_buf now = UTIL_BUF_INIT, then = UTIL_BUF_INIT;
	dump_table(s, "t1", KV_TS_MAX, &now);
	dump_table(d, "t1", KV_TS_MAX, &then);
	assert_true(now.len != then.len || memcmp(now.data, then.data, now.len) != 0);
	util_buf_free(&now);
	util_buf_free(&then);
	/* A restore never overwrites. */
	assert_int_equal(kv_restore(bk, dst, NULL, NULL), KV_EXISTS);
	kv_store_close(d);
	kv_snapshot_release(s, pin);
	kv_table_close(t);
	kv_table_close(u);
	kvt_close_rm(s, dir);
}

/* Full + two incrementals with deletes of every kind, tables created and
 * dropped, and a major compaction in between; restores at the end, at
 * each backup, and at points between them. */
static void test_incremental_chain(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-incr");
	char src_dir[4096], b0[4096], b1[4096], b2[4096], dst[4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	snprintf(b0, sizeof b0, "%s/b0", dir);
	snprintf(b1, sizeof b1, "%s/b1", dir);
	snprintf(b2, sizeof b2, "%s/b2", dir);
	kv_store *s = kvt_open(src_dir, NULL);
	assert_non_null(s);
	kv_table *t = make_table(s, "t", 3600, 2);
	kv_table *gone = make_table(s, "gone", 3600, 1);
	for (int i = 0; i < 50; i++) {
		char r[16];
		snprintf(r, sizeof r, "r%02d", i);
		put(s, t, r, "d", "a", "a0");
		put(s, t, r, "h", "q", "h0");
		put(s, gone, r, "d", "a", "g");
	}
	kv_backup_info i0, i1, i2;
	assert_int_equal(kv_backup(s, b0, NULL, &i0), KV_OK);
	/* Between b0 and b1: updates and every kind of delete. */
	put(s, t, "r01", "d", "a", "a1");
	put(s, t, "r02", "h", "q", "h1");
	put(s, t, "r02", "h", "q", "h2");
	assert_int_equal(kvt_del(s, t, "r03", "d", NULL, KV_TS_LATEST, KV_DELETE_FAMILY), KV_OK);
	kv_ts mid1 = kv_read_point(s);
	assert_int_equal(kvt_del(s, t, "r04", "h", "q", KV_TS_LATEST, KV_DELETE_COLUMN), KV_OK);
	assert_int_equal(kvt_del(s, t, "r02", "h", "q", KV_TS_LATEST, KV_DELETE),
			 KV_OK); /* newest version only */
	kv_batch *b = kv_batch_new();
	kv_batch_delete_row(b, t, "r05", 3, KV_TS_LATEST);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	kv_table *fresh = make_table(s, "fresh", 3600, 1);
	put(s, fresh, "k", "d", "a", "new");
	assert_int_equal(kv_table_compact(t, true), KV_OK); /* retention keeps the markers */
	assert_int_equal(kv_backup(s, b1, &(kv_backup_opts){.parent = b0}, &i1), KV_OK);
	assert_true(i1.incremental);
	assert_string_equal(i1.parent_id, i0.id);
	assert_int_equal(i1.since, i0.ts);
	/* Between b1 and b2: drop a table, delete and re-insert, more updates. */
	kv_table_close(gone);
	assert_int_equal(kv_table_drop(s, "gone"), KV_OK);
	put(s, t, "r01", "d", "a", "a2");
	kv_ts mid2 = kv_read_point(s);
	kv_batch_clear(b);
	kv_batch_delete_row(b, t, "r06", 3, KV_TS_LATEST);
	assert_int_equal(kv_commit(s, b, NULL, NULL), KV_OK);
	put(s, t, "r06", "d", "a", "back");
	put(s, fresh, "k", "d", "a", "newer");
	assert_int_equal(kv_backup(s, b2, &(kv_backup_opts){.parent = b1}, &i2), KV_OK);
	kv_batch_free(b);

	/* The whole chain, and points in time along it. */
	kv_ts points[] = {i2.ts, mid2, i1.ts, mid1, i0.ts};
	for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
		snprintf(dst, sizeof dst, "%s/dst%zu", dir, p);
		kv_restore_opts ro = {.as_of = points[p] == i2.ts ? 0 : points[p]};
		kv_backup_info ri;
		assert_int_equal(kv_restore(b2, dst, &ro, &ri), KV_OK);
		assert_int_equal(ri.ts, points[p]);
		kv_store *d = reopen_restored(dst);
		assert_same2(s, points[p], d, true);
		kv_family_opts fo[2];
		int n = 0;
		/* "gone" was dropped after b1: present only when restoring before that. */
		kv_status gst = kv_table_families(d, "gone", fo, 2, &n);
		assert_int_equal(gst, points[p] == i2.ts ? KV_NOT_FOUND : KV_OK);
		kv_store_close(d);
	}
	/* Restoring the middle backup by itself stops there ("gone" was
	 * dropped after it, so the source cannot show it any more). */
	snprintf(dst, sizeof dst, "%s/dst-b1", dir);
	assert_int_equal(kv_restore(b1, dst, NULL, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	assert_same2(s, i1.ts, d, true);
	kv_family_opts gfo[2];
	int gn = 0;
	assert_int_equal(kv_table_families(d, "gone", gfo, 2, &gn), KV_OK);
	kv_store_close(d);
	/* Not after the backup. */
	snprintf(dst, sizeof dst, "%s/dst-bad", dir);
	assert_int_equal(kv_restore(b1, dst, &(kv_restore_opts){.as_of = i2.ts}, NULL), KV_INVALID);

	kv_table_close(t);
	kv_table_close(fresh);
	kvt_close_rm(s, dir);
}

/* Commits one put at ts (KV_TS_LATEST: the commit's) and returns the
 * commit timestamp. */
static kv_ts put_at(kv_store *s, kv_table *t, const char *row, kv_ts ts, const char *v)
{
	kv_batch *b = kv_batch_new();
	kv_batch_put(b, t, row, strlen(row), "d", "a", 1, ts, v, strlen(v));
	kv_ts cts = 0;
	assert_int_equal(kv_commit(s, b, NULL, &cts), KV_OK);
	kv_batch_free(b);
	return cts;
}

/* Restores bk into dir/dst<n> and compares it with s as of ts. */
static void assert_restores(kv_store *s, const char *bk, kv_ts ts, const char *dir, int n)
{
	char dst[4096];
	snprintf(dst, sizeof dst, "%s/dst%d", dir, n);
	assert_int_equal(kv_restore(bk, dst, NULL, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	assert_same(s, ts, d);
	kv_store_close(d);
}

/* Late cells — committed after a backup's point at older timestamps, as
 * index read repairs (a cell rewritten in place, a DeleteColumn mask) and
 * backfills write them — are in the next incremental backup: from the
 * memstore, from a flushed file, from a compacted one after a reopen of
 * the store (the manifest keeps what a file holds). An incremental after
 * them copies only its own delta again. */
static void test_late_writes(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-late");
	char src_dir[4096], bk[4][4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	for (int i = 0; i < 4; i++)
		snprintf(bk[i], sizeof bk[i], "%s/b%d", dir, i);
	kv_store *s = kvt_open(src_dir, NULL);
	assert_non_null(s);
	kv_table *t = make_table(s, "t", 3600, 1);
	kv_ts c1 = put_at(s, t, "r1", KV_TS_LATEST, "unverified");
	kv_ts c2 = put_at(s, t, "r2", KV_TS_LATEST, "stale");
	kv_ts c3 = put_at(s, t, "r3", KV_TS_LATEST, "x");
	kv_backup_info info[4];
	assert_int_equal(kv_backup(s, bk[0], NULL, &info[0]), KV_OK);
	/* After b0's point, at older timestamps: in the memstore. */
	put_at(s, t, "r1", c1, "verified");
	assert_int_equal(kvt_del(s, t, "r2", "d", "a", c2, KV_DELETE_COLUMN), KV_OK);
	put_at(s, t, "r0", c1 - 1, "backfilled");
	assert_int_equal(kv_backup(s, bk[1], &(kv_backup_opts){.parent = bk[0]}, &info[1]), KV_OK);
	assert_restores(s, bk[1], info[1].ts, dir, 1);
	/* After b1's point: flushed, compacted with older files, the store
	 * reopened (only the manifest knows the late cells then). */
	put_at(s, t, "r3", c3, "rewritten");
	assert_int_equal(kv_table_flush(t), KV_OK);
	put_at(s, t, "r4", KV_TS_LATEST, "y");
	assert_int_equal(kv_table_flush(t), KV_OK);
	assert_int_equal(kv_table_compact(t, true), KV_OK);
	kv_table_close(t);
	kv_store_close(s);
	s = kvt_open(src_dir, NULL);
	assert_non_null(s);
	assert_int_equal(kv_table_open(s, "t", &t), KV_OK);
	assert_int_equal(kv_backup(s, bk[2], &(kv_backup_opts){.parent = bk[1]}, &info[2]), KV_OK);
	assert_restores(s, bk[2], info[2].ts, dir, 2);
	/* No late cell since b2: only the new put. */
	put_at(s, t, "r5", KV_TS_LATEST, "z");
	assert_int_equal(kv_backup(s, bk[3], &(kv_backup_opts){.parent = bk[2]}, &info[3]), KV_OK);
	assert_int_equal(info[3].cells, 1);
	assert_restores(s, bk[3], info[3].ts, dir, 3);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

/* Retention rules: incrementals and past-timestamp backups need the
 * retention window to cover them; history_from bounds restores. */
static void test_retention_rules(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-ret");
	char src_dir[4096], b0[4096], b1[4096], dst[4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	snprintf(b0, sizeof b0, "%s/b0", dir);
	snprintf(b1, sizeof b1, "%s/b1", dir);
	kv_store *s = kvt_open(src_dir, NULL);
	kv_table *t = make_table(s, "kept", 3600, 1);
	put(s, t, "a", "d", "x", "1");
	kv_ts past = kv_read_point(s);
	put(s, t, "a", "d", "x", "2");
	put(s, t, "b", "d", "x", "3");
	/* As of a past timestamp within retention. */
	kv_backup_info pi;
	assert_int_equal(kv_backup(s, b0, &(kv_backup_opts){.as_of = past}, &pi), KV_OK);
	assert_int_equal(pi.ts, past);
	assert_true(pi.history_from < past);
	snprintf(dst, sizeof dst, "%s/dst0", dir);
	assert_int_equal(kv_restore(b0, dst, NULL, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	assert_same(s, past, d);
	kv_store_close(d);
	/* A table without retention makes past backups and incrementals invalid. */
	kv_table *u = make_table(s, "noret", 0, 1);
	put(s, u, "a", "d", "x", "1");
	kv_ts past2 = kv_read_point(s);
	put(s, u, "a", "d", "x", "2");
	assert_int_equal(kv_backup(s, b1, &(kv_backup_opts){.as_of = past2}, NULL), KV_INVALID);
	assert_non_null(strstr(kv_errmsg(), "retention"));
	assert_int_equal(kv_backup(s, b1, &(kv_backup_opts){.parent = b0}, NULL),
			 KV_OK); /* noret is new: full */
	char b2[4096];
	snprintf(b2, sizeof b2, "%s/b2", dir);
	put(s, t, "c", "d", "x", "4");
	put(s, u, "a", "d", "x", "3");
	/* noret's window does not reach back to b1: copied whole; kept: a delta. */
	kv_backup_info i2;
	assert_int_equal(kv_backup(s, b2, &(kv_backup_opts){.parent = b1}, &i2), KV_OK);
	char mpath[4200], mtext[8192];
	snprintf(mpath, sizeof mpath, "%s/BACKUP", b2);
	FILE *mf = fopen(mpath, "r");
	assert_non_null(mf);
	size_t ml = fread(mtext, 1, sizeof mtext - 1, mf);
	mtext[ml] = '\0';
	fclose(mf);
	assert_non_null(strstr(mtext, "table noret 000002.cells full "));
	assert_non_null(strstr(mtext, "table kept 000001.cells delta "));
	snprintf(dst, sizeof dst, "%s/dst2", dir);
	assert_int_equal(kv_restore(b2, dst, NULL, NULL), KV_OK);
	kv_store *d2 = reopen_restored(dst);
	assert_same(s, i2.ts, d2);
	kv_store_close(d2);
	/* ... and a restore before the history of a table without retention fails. */
	snprintf(dst, sizeof dst, "%s/dst1", dir);
	kv_backup_info i1;
	assert_int_equal(kv_backup_inspect(b1, false, NULL, &i1), KV_OK);
	assert_int_equal(kv_restore(b1, dst, &(kv_restore_opts){.as_of = i1.ts - 1}, NULL), KV_INVALID);
	assert_non_null(strstr(kv_errmsg(), "older than the history"));
	assert_int_not_equal(access(dst, F_OK), 0);
	/* A future timestamp is refused; a non-empty directory too. */
	char b3[4096];
	snprintf(b3, sizeof b3, "%s/b3", dir);
	assert_int_equal(kv_backup(s, b3, &(kv_backup_opts){.as_of = kv_read_point(s) + 60000000}, NULL),
			 KV_INVALID);
	assert_int_equal(kv_backup(s, b0, NULL, NULL), KV_EXISTS);
	kv_table_close(t);
	kv_table_close(u);
	kvt_close_rm(s, dir);
}

static void flip_byte(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, off, SEEK_SET);
	int c = fgetc(f);
	fseek(f, off, SEEK_SET);
	fputc(c ^ 0x20, f);
	fclose(f);
}

/* Damage is found by inspect and refused by restore, which leaves no
 * store behind; backups moved together still find their parents. */
static void test_damage_and_move(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-dmg");
	char src_dir[4096], b0[4096], b1[4096], dst[4096], path[4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	snprintf(b0, sizeof b0, "%s/set/b0", dir);
	snprintf(b1, sizeof b1, "%s/set/b1", dir);
	snprintf(path, sizeof path, "%s/set", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	kv_store *s = kvt_open(src_dir, NULL);
	kv_table *t = make_table(s, "t", 3600, 1);
	for (int i = 0; i < 1000; i++) {
		char r[16], v[64];
		snprintf(r, sizeof r, "r%04d", i);
		snprintf(v, sizeof v, "value %d with some text to compress", i);
		put(s, t, r, "d", "a", v);
	}
	kv_backup_info i0, i1;
	assert_int_equal(kv_backup(s, b0, NULL, &i0), KV_OK);
	put(s, t, "r0001", "d", "a", "changed");
	assert_int_equal(kv_backup(s, b1, &(kv_backup_opts){.parent = b0}, &i1), KV_OK);

	/* Move the whole set: the parent is found beside the child. */
	char moved[4096], mb1[4096];
	snprintf(moved, sizeof moved, "%s/moved", dir);
	assert_int_equal(rename(path, moved), 0);
	snprintf(mb1, sizeof mb1, "%s/b1", moved);
	snprintf(dst, sizeof dst, "%s/dst0", dir);
	assert_int_equal(kv_restore(mb1, dst, NULL, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	assert_same(s, i1.ts, d);
	kv_store_close(d);

	/* A flipped bit in a cell file. */
	snprintf(path, sizeof path, "%s/b0/000001.cells", moved);
	flip_byte(path, 40);
	assert_int_equal(kv_backup_inspect(mb1, false, NULL, NULL), KV_OK); /* manifest alone is fine */
	snprintf(path, sizeof path, "%s/b0", moved);
	assert_int_equal(kv_backup_inspect(path, true, NULL, NULL), KV_CORRUPTION);
	snprintf(dst, sizeof dst, "%s/dst1", dir);
	assert_int_equal(kv_restore(mb1, dst, NULL, NULL), KV_CORRUPTION);
	assert_int_not_equal(access(dst, F_OK), 0);
	char partial[4200];
	snprintf(partial, sizeof partial, "%s.partial", dst);
	assert_int_not_equal(access(partial, F_OK), 0);
	/* A damaged manifest. */
	snprintf(path, sizeof path, "%s/b1/BACKUP", moved);
	flip_byte(path, 20);
	assert_int_equal(kv_backup_inspect(mb1, false, NULL, NULL), KV_CORRUPTION);
	/* A missing parent. */
	snprintf(path, sizeof path, "%s/b0/BACKUP", moved);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof path, "%s/b0", moved);
	char b2[4096];
	snprintf(b2, sizeof b2, "%s/b2", dir);
	assert_int_equal(kv_backup(s, b2, &(kv_backup_opts){.parent = path}, NULL), KV_NOT_FOUND);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

static bool stop_after_two(void *arg, const char *table, uint64_t cells, uint64_t bytes)
{
	(void)table;
	(void)cells;
	(void)bytes;
	return ++*(int *)arg < 2;
}

static int count_files(void *arg, const char *name)
{
	(void)name;
	(*(int *)arg)++;
	return 0;
}

/* A progress callback that returns false stops a backup (which removes what
 * it wrote) and a restore (which leaves no store). */
static void test_stop(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-stop");
	char src_dir[4096], b0[4096], dst[4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	snprintf(b0, sizeof b0, "%s/b0", dir);
	snprintf(dst, sizeof dst, "%s/dst", dir);
	kv_store *s = kvt_open(src_dir, NULL);
	kv_table *t = make_table(s, "t", 0, 1);
	kv_table *u = make_table(s, "u", 0, 1);
	put(s, t, "a", "d", "x", "1");
	put(s, u, "a", "d", "x", "1");
	int calls = 0;
	kv_backup_opts bo = {.progress = stop_after_two, .arg = &calls};
	assert_int_equal(kv_backup(s, b0, &bo, NULL), KV_BUSY);
	int n = 0;
	kv_fs *fs = kv_fs_posix();
	assert_int_equal(fs->list(fs, b0, count_files, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(kv_backup(s, b0, NULL, NULL), KV_OK);
	calls = 0;
	kv_restore_opts ro = {.progress = stop_after_two, .arg = &calls};
	assert_int_equal(kv_restore(b0, dst, &ro, NULL), KV_BUSY);
	assert_int_not_equal(access(dst, F_OK), 0);
	assert_int_equal(kv_restore(b0, dst, NULL, NULL), KV_OK);
	kv_table_close(t);
	kv_table_close(u);
	kvt_close_rm(s, dir);
}

/* DDL while a backup copies: at the first table's progress call (after
 * the backup took its point and table set) a table is dropped, one is
 * created and dropped, one is "truncated" (new storage, old dropped) and
 * one is created. */
typedef struct ddl_ctx {
	kv_store *s;
	int calls;
} ddl_ctx;

static bool ddl_on_first_call(void *arg, const char *table, uint64_t cells, uint64_t bytes)
{
	(void)table;
	(void)cells;
	(void)bytes;
	ddl_ctx *c = arg;
	if (c->calls++)
		return true;
	kv_store *s = c->s;
	kv_table *b = make_table(s, "b_drop", 0, 1);
	put(s, b, "late", "d", "x", "after T"); /* never in the backup */
	kv_table_close(b);
	assert_int_equal(kv_table_drop(s, "b_drop"), KV_OK);
	kv_table *x = make_table(s, "x_tmp", 0, 1);
	put(s, x, "r", "d", "x", "tmp");
	kv_table_close(x);
	assert_int_equal(kv_table_drop(s, "x_tmp"), KV_OK);
	kv_table *c2 = make_table(s, "c_trunc2", 0, 1);
	put(s, c2, "r", "d", "x", "new storage");
	kv_table_close(c2);
	assert_int_equal(kv_table_drop(s, "c_trunc"), KV_OK);
	kv_table *n = make_table(s, "n_new", 0, 1);
	put(s, n, "r", "d", "x", "new");
	kv_table_close(n);
	return true;
}

/* A table dropped after the backup's point (and before the backup reached
 * it) is in the backup with its cells as of the point, from its memstore
 * and its sorted files; tables created after the point are not. */
static void test_ddl_during_backup(void **state)
{
	(void)state;
	char src_dir[4096], bk[4096], dst[4096];
	char *dir = test_dirs("bk-ddl", src_dir, bk, dst);
	kv_store *s = kvt_open(src_dir, NULL);
	const char *names[3] = {"a_keep", "b_drop", "c_trunc"};
	util_buf before[3];
	for (int k = 0; k < 3; k++) {
		kv_table *t = make_table(s, names[k], 0, 3);
		for (int i = 0; i < 400; i++) {
			char r[16], v[32];
			snprintf(r, sizeof r, "r%04d", i);
			snprintf(v, sizeof v, "%s-%d", names[k], i);
			put(s, t, r, "d", "a", v);
			if (i == 200) /* half in sorted files, half in the memstore */
				assert_int_equal(kv_table_flush(t), KV_OK);
		}
		kv_table_close(t);
		util_buf_init(&before[k]);
		assert_true(dump_table(s, names[k], KV_TS_MAX, &before[k]));
	}
	ddl_ctx c = {.s = s};
	kv_backup_info info;
	kv_status st = kv_backup(s, bk, &(kv_backup_opts){.progress = ddl_on_first_call, .arg = &c}, &info);
	if (st)
		fprintf(stderr, "backup: %s\n", kv_errmsg());
	assert_int_equal(st, KV_OK);
	assert_true(c.calls > 0);
	assert_int_equal(info.tables, 3);
	assert_int_equal(kv_backup_inspect(bk, true, NULL, NULL), KV_OK);
	/* The source keeps the DDL done during the backup. */
	kv_store_close(s);
	s = reopen_restored(src_dir);
	kv_family_opts fo[4];
	int nf;
	assert_int_equal(kv_table_families(s, "b_drop", fo, 4, &nf), KV_NOT_FOUND);
	assert_int_equal(kv_table_families(s, "n_new", fo, 4, &nf), KV_OK);
	kv_store_close(s);

	assert_int_equal(kv_restore(bk, dst, NULL, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	tlist l = {0};
	kv_table_list(d, add_name, &l);
	assert_int_equal(l.n, 3);
	for (int k = 0; k < 3; k++) {
		util_buf y = UTIL_BUF_INIT;
		assert_true(dump_table(d, names[k], KV_TS_MAX, &y));
		assert_true(before[k].len > 0);
		assert_int_equal(y.len, before[k].len);
		assert_memory_equal(y.data, before[k].data, y.len);
		util_buf_free(&y);
		util_buf_free(&before[k]);
	}
	kvt_close_rm(d, dir);
}

/* I/O failures: a backup that cannot write fails cleanly, a crash at any
 * point of a backup leaves either no manifest or a complete backup, and a
 * restore that cannot read leaves nothing behind. */
static void test_faults(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-fault");
	char src_dir[4096], bk[4096], dst[4096];
	snprintf(src_dir, sizeof src_dir, "%s/src", dir);
	kv_store *s = kvt_open(src_dir, NULL);
	kv_table *t = make_table(s, "t", 0, 1);
	for (int i = 0; i < 2000; i++) {
		char r[16], v[64];
		snprintf(r, sizeof r, "r%05d", i);
		snprintf(v, sizeof v, "v%d-%d", i, i * 7919);
		put(s, t, r, "d", "a", v);
	}
	kv_fault_fs *ff = kv_fault_fs_new(kv_fs_posix());
	kv_fs *fs = kv_fault_fs_get(ff);
	/* ENOSPC at every point of the writes. */
	int failures = 0;
	for (uint64_t after = 0;; after++) {
		snprintf(bk, sizeof bk, "%s/nospc%llu", dir, (unsigned long long)after);
		kv_fault_set(ff, KV_FAULT_WRITE, ENOSPC, after, "/nospc");
		kv_status st = kv_backup(s, bk, &(kv_backup_opts){.fs = fs}, NULL);
		kv_fault_clear(ff);
		if (st == KV_OK)
			break;
		assert_int_equal(st, KV_NO_SPACE);
		char m[4200];
		snprintf(m, sizeof m, "%s/BACKUP", bk);
		assert_int_not_equal(access(m, F_OK), 0);
		failures++;
	}
	assert_true(failures > 0);
	/* A crash after n operations: no manifest, or a backup that verifies. */
	int complete = 0, absent = 0;
	for (uint64_t n = 0; n < 400; n += 7) {
		snprintf(bk, sizeof bk, "%s/crash%llu", dir, (unsigned long long)n);
		kv_fault_kill_after(ff, n);
		kv_status st = kv_backup(s, bk, &(kv_backup_opts){.fs = fs}, NULL);
		kv_fault_crash(ff, (unsigned)n, true);
		kv_fault_revive(ff);
		kv_backup_info bi;
		kv_status vs = kv_backup_inspect(bk, true, NULL, &bi);
		if (vs == KV_OK) {
			complete++;
			assert_int_equal(bi.tables, 1);
		} else {
			assert_int_equal(vs, KV_NOT_FOUND);
			assert_int_not_equal(st, KV_OK);
			absent++;
		}
	}
	assert_true(complete > 0 && absent > 0);
	/* Read errors during a restore. */
	snprintf(bk, sizeof bk, "%s/good", dir);
	assert_int_equal(kv_backup(s, bk, NULL, NULL), KV_OK);
	snprintf(dst, sizeof dst, "%s/dst", dir);
	kv_fault_set(ff, KV_FAULT_READ, EIO, 3, "/good/");
	assert_int_equal(kv_restore(bk, dst, &(kv_restore_opts){.fs = fs}, NULL), KV_IO_ERROR);
	kv_fault_clear(ff);
	char partial[4200];
	snprintf(partial, sizeof partial, "%s.partial", dst);
	assert_int_not_equal(access(dst, F_OK), 0);
	assert_int_not_equal(access(partial, F_OK), 0);
	assert_int_equal(kv_restore(bk, dst, &(kv_restore_opts){.fs = fs}, NULL), KV_OK);
	kv_store *d = reopen_restored(dst);
	assert_same(s, kv_read_point(s), d);
	kv_store_close(d);
	kv_table_close(t);
	kv_store_close(s);
	kv_fault_fs_free(ff);
	kvt_close_rm(NULL, dir);
}

/* kv_read_point_wait brings an idle store's read point up to a recent
 * moment, so reads and backups as of it are exact; the future is refused. */
static void test_read_point_wait(void **state)
{
	(void)state;
	char *dir = kvt_tmpdir("bk-rp");
	kv_store *s = kvt_open(dir, NULL);
	kv_table *t = make_table(s, "t", 3600, 1);
	put(s, t, "a", "d", "x", "1");
	kv_ts last = kv_read_point(s);
	usleep(20000);
	kv_ts moment = (kv_ts)util_now_us() - 1000;
	assert_true(kv_read_point(s) < moment);
	assert_int_equal(kv_read_point_wait(s, moment), KV_OK);
	assert_true(kv_read_point(s) >= moment);
	assert_int_equal(kv_read_point_wait(s, last), KV_OK);
	assert_int_equal(kv_read_point_wait(s, (kv_ts)util_now_us() + 60000000), KV_INVALID);
	/* A backup as of that recent moment of an idle store. */
	char bk[4096];
	snprintf(bk, sizeof bk, "%s/bk", dir);
	usleep(20000);
	kv_backup_info bi;
	assert_int_equal(kv_backup(s, bk, &(kv_backup_opts){.as_of = (kv_ts)util_now_us() - 1000}, &bi),
			 KV_OK);
	assert_int_equal(bi.cells, 1);
	kv_table_close(t);
	kvt_close_rm(s, dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_while_writing),
	    cmocka_unit_test(test_incremental_chain),
	    cmocka_unit_test(test_late_writes),
	    cmocka_unit_test(test_retention_rules),
	    cmocka_unit_test(test_damage_and_move),
	    cmocka_unit_test(test_stop),
	    cmocka_unit_test(test_ddl_during_backup),
	    cmocka_unit_test(test_faults),
	    cmocka_unit_test(test_read_point_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
