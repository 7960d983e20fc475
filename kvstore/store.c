/*
 * store.c — opening, recovering and closing a store; the manifest writer;
 * file numbering; log segment cleanup; the background thread (flushes,
 * compactions, periodic log sync); write stalls; stats and verification.
 *
 * Directory layout: CURRENT, MANIFEST-<n>, <n>.wal (log segments),
 * <n>.sst (sorted files); one number space for all files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ekv.h"
#include "kv_int.h"

#define MANIFEST_ROLL_BYTES (4u << 20)

void kv_store_opts_default(kv_store_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->durability = KV_SYNC_COMMIT;
	o->sync_interval_ms = 100;
	o->memstore_flush_bytes = 64u << 20;
	o->memstore_global_bytes = 1u << 30;
	o->block_cache_bytes = 256u << 20;
	o->max_open_files = 1000;
	o->compaction_threads = 1;
	o->wal_segment_bytes = 64u << 20;
	o->batch_spill_bytes = 64u << 20;
	o->create_if_missing = true;
}

void store_file_path(kv_store *s, uint64_t number, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%06llu.%s", s->path, (unsigned long long)number, ext);
}

uint64_t store_next_file(kv_store *s)
{
	pthread_mutex_lock(&s->mu);
	uint64_t n = s->next_file++;
	pthread_mutex_unlock(&s->mu);
	return n;
}

static uint64_t wal_next(void *arg)
{
	return store_next_file(arg);
}

void store_set_failed(kv_store *s, const char *why)
{
	if (!atomic_exchange(&s->failed, true))
		util_log(UTIL_LOG_ERROR, "kvstore %s: refusing writes until reopened: %s", s->path, why);
}

kv_status store_writable(kv_store *s)
{
	if (atomic_load(&s->closing))
		return kv_fail(KV_CLOSED, "store is closing");
	if (s->o.read_only)
		return kv_fail(KV_READ_ONLY, "store opened read-only");
	if (atomic_load(&s->failed))
		return kv_fail(KV_READ_ONLY, "store refuses writes after a failed fsync; reopen it");
	return KV_OK;
}

/* The whole state as one manifest record. REQUIRES: s->mu held. */
static void snapshot(kv_store *s, util_buf *b)
{
	me_u64(b, MAN_NEXT_FILE, s->next_file);
	me_u64(b, MAN_NEXT_TABLE, s->next_table);
	me_u64(b, MAN_LAST_TS, (kv_ts)atomic_load(&s->read_point));
	me_u64(b, MAN_WAL_FLOOR, s->wal_floor);
	for (int i = 0; i < s->ntables; i++) {
		kv_table *t = s->tables[i];
		pthread_mutex_lock(&t->mu);
		me_add_table(b, t->id, t->name, t->fams, t->nfam);
		me_table_flushed(b, t->id, t->flushed_ts);
		for (int f = 0; f < t->v->nfam; f++)
			for (int j = t->v->fams[f].n; j-- > 0;)
				me_add_file(b, &t->v->fams[f].files[j]->m);
		pthread_mutex_unlock(&t->mu);
	}
}

/* Starts a new manifest holding a snapshot. REQUIRES: s->mu held. */
static kv_status roll_manifest(kv_store *s)
{
	uint64_t num = s->next_file++;
	util_buf b = UTIL_BUF_INIT;
	snapshot(s, &b);
	man_writer *w;
	kv_status st = man_writer_create(s->fs, s->path, num, &b, &w);
	util_buf_free(&b);
	if (st)
		return st;
	if (s->man) {
		char old[4096];
		snprintf(old, sizeof(old), "%s/MANIFEST-%06llu", s->path,
			 (unsigned long long)man_writer_number(s->man));
		man_writer_close(s->man);
		s->fs->unlink(s->fs, old);
	}
	s->man = w;
	return KV_OK;
}

kv_status store_log_edit(kv_store *s, util_buf *edit)
{
	me_u64(edit, MAN_NEXT_FILE, s->next_file);
	kv_status st = man_writer_append(s->man, edit);
	if (st) {
		/* A manifest that may hold a torn edit cannot take more. */
		store_set_failed(s, "manifest write failed");
		return st;
	}
	if (man_writer_size(s->man) > MANIFEST_ROLL_BYTES) {
		kv_status rs = roll_manifest(s);
		if (rs)
			util_warn("kvstore: manifest roll failed (will retry): %s", kv_errmsg());
	}
	return KV_OK;
}

/* ---------------------------------------------------------------- log segment cleanup */

typedef struct numlist {
	uint64_t *v;
	size_t n, cap;
} numlist;

static void nl_add(numlist *l, uint64_t x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 32;
		l->v = util_xrealloc(l->v, l->cap * sizeof(uint64_t));
	}
	l->v[l->n++] = x;
}

typedef struct dirscan {
	numlist wal, sst, man;
	uint64_t max;
	bool tmp;
} dirscan;

static int scan_cb(void *arg, const char *name)
{
	dirscan *d = arg;
	unsigned long long n;
	char ext[8];
	int used = 0;
	if (sscanf(name, "%llu.%7s%n", &n, ext, &used) == 2 && name[used] == 0) {
		if (!strcmp(ext, "wal"))
			nl_add(&d->wal, n);
		else if (!strcmp(ext, "sst"))
			nl_add(&d->sst, n);
		if (n > d->max)
			d->max = n;
	} else if (sscanf(name, "MANIFEST-%llu%n", &n, &used) == 1 && name[used] == 0) {
		nl_add(&d->man, n);
		if (n > d->max)
			d->max = n;
	} else if (!strcmp(name, "CURRENT.tmp")) {
		d->tmp = true;
	}
	return 0;
}

static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void free_scan(dirscan *d)
{
	free(d->wal.v);
	free(d->sst.v);
	free(d->man.v);
}

void store_update_wal_floor(kv_store *s)
{
	if (!s->wal)
		return;
	pthread_rwlock_wrlock(&s->apply_rw);
	uint64_t floor = wal_current_seg(s->wal);
	pthread_mutex_lock(&s->mu);
	for (int i = 0; i < s->ntables; i++) {
		kv_table *t = s->tables[i];
		pthread_mutex_lock(&t->mu);
		floor = UTIL_MIN(floor, mem_min_seg(t->mem));
		for (int j = 0; j < t->nimm; j++)
			floor = UTIL_MIN(floor, mem_min_seg(t->imm[j]));
		pthread_mutex_unlock(&t->mu);
	}
	pthread_rwlock_unlock(&s->apply_rw);
	uint64_t old = s->wal_floor;
	if (floor > old) {
		util_buf e = UTIL_BUF_INIT;
		me_u64(&e, MAN_WAL_FLOOR, floor);
		if (store_log_edit(s, &e) == KV_OK)
			s->wal_floor = floor;
		util_buf_free(&e);
	}
	uint64_t nf = s->wal_floor;
	pthread_mutex_unlock(&s->mu);
	if (nf <= old)
		return;
	dirscan d = {0};
	s->fs->list(s->fs, s->path, scan_cb, &d);
	for (size_t i = 0; i < d.wal.n; i++) {
		if (d.wal.v[i] < nf) {
			char p[4096];
			wal_seg_path(p, sizeof(p), s->path, d.wal.v[i]);
			s->fs->unlink(s->fs, p);
		}
	}
	free_scan(&d);
}

/* ---------------------------------------------------------------- background */

void store_wake_bg(kv_store *s)
{
	pthread_mutex_lock(&s->bg_mu);
	pthread_cond_signal(&s->bg_cv);
	pthread_mutex_unlock(&s->bg_mu);
}

void store_request_flush(kv_store *s, kv_table *t)
{
	pthread_mutex_lock(&s->bg_mu);
	if (!t->flush_queued && !s->bg_stop) {
		t->flush_queued = true;
		atomic_fetch_add(&t->refs, 1);
		if (s->nflushq == s->cflushq) {
			s->cflushq = s->cflushq ? 2 * s->cflushq : 16;
			s->flushq = util_xrealloc(s->flushq, (size_t)s->cflushq * sizeof(kv_table *));
		}
		s->flushq[s->nflushq++] = t;
		pthread_cond_signal(&s->bg_cv);
	}
	pthread_mutex_unlock(&s->bg_mu);
}

void store_stall(kv_store *s)
{
	if (atomic_load(&s->mem_total) <= s->o.memstore_global_bytes)
		return;
	/* Flush the table with the biggest active memstore. */
	kv_table *big = NULL;
	size_t bigb = 0;
	pthread_mutex_lock(&s->mu);
	for (int i = 0; i < s->ntables; i++) {
		size_t b = mem_bytes(s->tables[i]->mem);
		if (b > bigb) {
			bigb = b;
			big = s->tables[i];
		}
	}
	if (big)
		store_request_flush(s, big);
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_lock(&s->bg_mu);
	if (atomic_load(&s->mem_total) > s->o.memstore_global_bytes) {
		atomic_fetch_add(&s->n_stalls, 1);
		util_info("kvstore: write stall, memstores use %zu bytes (limit %zu)",
			  atomic_load(&s->mem_total), s->o.memstore_global_bytes);
		int64_t t0 = util_mono_us();
		while (atomic_load(&s->mem_total) > s->o.memstore_global_bytes && !s->bg_stop &&
		       !atomic_load(&s->failed) && util_mono_us() - t0 < 10 * 1000000) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&s->done_cv, &s->bg_mu, &ts);
		}
	}
	pthread_mutex_unlock(&s->bg_mu);
}

void store_stall_files(kv_store *s, kv_table *t)
{
	pthread_mutex_lock(&s->bg_mu);
	pthread_cond_broadcast(&s->compact_cv);
	pthread_mutex_unlock(&s->bg_mu);
	pthread_mutex_lock(&s->bg_mu);
	if (atomic_load(&t->too_many_files)) {
		atomic_fetch_add(&s->n_stalls, 1);
		util_info("kvstore: write stall, kv table %s has %d+ files in a family", t->name,
			  KV_STALL_FILES);
		int64_t t0 = util_mono_us();
		while (atomic_load(&t->too_many_files) && !s->bg_stop && !atomic_load(&s->failed) &&
		       util_mono_us() - t0 < 10 * 1000000) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 100 * 1000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&s->done_cv, &s->bg_mu, &ts);
		}
	}
	pthread_mutex_unlock(&s->bg_mu);
}

/* Compaction threads: compact whatever the file counts call for, sleep
 * when nothing does (woken after flushes). */
void *compactor_main(void *arg)
{
	kv_store *s = arg;
	pthread_mutex_lock(&s->bg_mu);
	while (!s->bg_stop) {
		pthread_mutex_unlock(&s->bg_mu);
		kv_table *ct = NULL;
		pthread_mutex_lock(&s->mu);
		for (int i = 0; i < s->ntables && !ct; i++) {
			if (compact_pick_needed(s->tables[i])) {
				ct = s->tables[i];
				atomic_fetch_add(&ct->refs, 1);
			}
		}
		pthread_mutex_unlock(&s->mu);
		if (ct) {
			if (!atomic_load(&s->failed))
				compact_table(s, ct, false, false);
			table_unref(ct);
		}
		pthread_mutex_lock(&s->bg_mu);
		if (ct || s->bg_stop)
			continue;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&s->compact_cv, &s->bg_mu, &ts);
	}
	pthread_mutex_unlock(&s->bg_mu);
	return NULL;
}

void *bg_main(void *arg)
{
	kv_store *s = arg;
	int64_t last_sync = util_mono_us();
	pthread_mutex_lock(&s->bg_mu);
	while (!s->bg_stop) {
		if (s->nflushq > 0) {
			kv_table *t = s->flushq[0];
			memmove(s->flushq, s->flushq + 1, (size_t)(s->nflushq - 1) * sizeof(kv_table *));
			s->nflushq--;
			pthread_mutex_unlock(&s->bg_mu);
			if (!atomic_load(&t->dropped) && !atomic_load(&s->failed))
				flush_table(s, t);
			pthread_mutex_lock(&s->bg_mu);
			t->flush_queued = false;
			pthread_mutex_unlock(&s->bg_mu);
			table_unref(t);
			pthread_mutex_lock(&s->bg_mu);
			continue;
		}
		pthread_mutex_unlock(&s->bg_mu);
		if (s->o.durability == KV_SYNC_PERIODIC &&
		    util_mono_us() - last_sync >= (int64_t)s->o.sync_interval_ms * 1000) {
			if (wal_sync(s->wal) && wal_failed(s->wal))
				store_set_failed(s, "periodic log fsync failed");
			last_sync = util_mono_us();
		}
		pthread_mutex_lock(&s->bg_mu);
		if (s->nflushq || s->bg_stop)
			continue;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int ms = s->o.durability == KV_SYNC_PERIODIC ? s->o.sync_interval_ms : 1000;
		ts.tv_sec += ms / 1000;
		ts.tv_nsec += (long)(ms % 1000) * 1000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->bg_cv, &s->bg_mu, &ts);
	}
	pthread_mutex_unlock(&s->bg_mu);
	return NULL;
}

/* ---------------------------------------------------------------- open and recovery */

typedef struct replay_ctx {
	kv_store *s;
	uint64_t seg;
	kv_ts max_ts;
} replay_ctx;

static kv_status replay_cb(void *arg, const uint8_t *p, size_t n)
{
	replay_ctx *r = arg;
	return commit_replay(r->s, p, n, r->seg, &r->max_ts);
}

static void store_free(kv_store *s)
{
	for (int i = 0; i < s->ntables; i++)
		table_unref(s->tables[i]);
	free(s->tables);
	wal_close(s->wal);
	man_writer_close(s->man);
	cache_free(s->cache);
	recent_free(s->recent);
	while (s->phead) {
		kv_pend *p = s->phead;
		s->phead = p->next;
		if (p->heap)
			free(p);
	}
	free(s->snaps);
	for (int i = 0; i < s->nflushq; i++)
		table_unref(s->flushq[i]);
	free(s->flushq);
	for (int i = 0; i < KV_NROWLOCKS; i++)
		pthread_mutex_destroy(&s->rowlocks[i]);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->ts_mu);
	pthread_cond_destroy(&s->ts_cv);
	pthread_rwlock_destroy(&s->apply_rw);
	pthread_mutex_destroy(&s->ofc_mu);
	pthread_mutex_destroy(&s->bg_mu);
	pthread_cond_destroy(&s->bg_cv);
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->compact_cv);
	free(s->path);
	free(s);
}

static int file_age_cmp(const void *a, const void *b)
{
	const man_file *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->number < y->number ? -1 : x->number > y->number;
}

static kv_status load_state(kv_store *s, man_state *m)
{
	for (size_t i = 0; i < m->ntables; i++) {
		man_table *mt = &m->tables[i];
		if (!mt->live)
			continue;
		kv_table *t = table_new(s, mt->id, mt->name, mt->fams, mt->nfam);
		t->flushed_ts = mt->flushed_ts;
		if (s->ntables == s->ctables) {
			s->ctables = s->ctables ? 2 * s->ctables : 16;
			s->tables = util_xrealloc(s->tables, (size_t)s->ctables * sizeof(kv_table *));
		}
		s->tables[s->ntables++] = t;
	}
	/* Oldest first by age, so that each add makes a file the newest. */
	if (m->nfiles)
		qsort(m->files, m->nfiles, sizeof(man_file), file_age_cmp);
	for (size_t i = 0; i < m->nfiles; i++) {
		man_file *mf = &m->files[i];
		if (!mf->live)
			continue;
		kv_table *t = store_find_id(s, mf->table_id);
		if (!t)
			continue;
		kv_sfile *f = util_xcalloc(1, sizeof(*f));
		atomic_init(&f->refs, 1);
		f->s = s;
		pthread_mutex_init(&f->open_mu, NULL);
		/* A file's seq is a commit timestamp (ingested) or at most one:
		 * the clock restarts above it so every listed file is readable. */
		if (mf->seq > m->last_ts)
			m->last_ts = mf->seq;
		f->m = *mf;
		mf->smallest = mf->largest = NULL;
		kv_version *nv = version_edit(t->v, &f, 1, NULL, 0);
		sfile_unref(f);
		version_unref(t->v);
		t->v = nv;
	}
	for (int i = 0; i < s->ntables; i++) {
		pthread_mutex_lock(&s->tables[i]->mu);
		table_install_sv(s->tables[i]);
		pthread_mutex_unlock(&s->tables[i]->mu);
	}
	return KV_OK;
}

static bool file_live(kv_store *s, uint64_t number)
{
	for (int i = 0; i < s->ntables; i++) {
		kv_version *v = s->tables[i]->v;
		for (int f = 0; f < v->nfam; f++)
			for (int j = 0; j < v->fams[f].n; j++)
				if (v->fams[f].files[j]->m.number == number)
					return true;
	}
	return false;
}

kv_status kv_store_open(const char *path, const kv_store_opts *opts, kv_store **out)
{
	*out = NULL;
	if (!path || !path[0])
		return kv_fail(KV_INVALID, "empty store path");
	if (ekv_is_uri(path))
		return ekv_store_open(path, opts, out);
	kv_store *s = util_xcalloc(1, sizeof(*s));
	if (opts)
		s->o = *opts;
	else
		kv_store_opts_default(&s->o);
	kv_store_opts def;
	kv_store_opts_default(&def);
	if (!s->o.memstore_flush_bytes)
		s->o.memstore_flush_bytes = def.memstore_flush_bytes;
	if (!s->o.memstore_global_bytes)
		s->o.memstore_global_bytes = def.memstore_global_bytes;
	if (!s->o.wal_segment_bytes)
		s->o.wal_segment_bytes = def.wal_segment_bytes;
	if (!s->o.batch_spill_bytes)
		s->o.batch_spill_bytes = def.batch_spill_bytes;
	if (s->o.sync_interval_ms <= 0)
		s->o.sync_interval_ms = def.sync_interval_ms;
	if (s->o.max_open_files <= 0)
		s->o.max_open_files = def.max_open_files;
	s->fs = s->o.fs ? s->o.fs : kv_fs_posix();
	s->path = util_xstrdup(path);
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->ts_mu, NULL);
	pthread_cond_init(&s->ts_cv, NULL);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&s->apply_rw, &ra);
	pthread_rwlockattr_destroy(&ra);
	for (int i = 0; i < KV_NROWLOCKS; i++)
		pthread_mutex_init(&s->rowlocks[i], NULL);
	pthread_mutex_init(&s->bg_mu, NULL);
	pthread_cond_init(&s->bg_cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	pthread_cond_init(&s->compact_cv, NULL);
	s->cache = s->o.block_cache_bytes ? cache_new(s->o.block_cache_bytes) : NULL;
	pthread_mutex_init(&s->ofc_mu, NULL);
	s->ofc.lnext = s->ofc.lprev = &s->ofc;

	kv_status st;
	man_state m = {0};
	dirscan d = {0};
	uint64_t man_num = 0;
	if (s->fs->exists(s->fs, path) == ENOENT) {
		if (!s->o.create_if_missing || s->o.read_only) {
			st = kv_fail(KV_NOT_FOUND, "store %s does not exist", path);
			goto fail;
		}
		int e = s->fs->mkdir(s->fs, path);
		if (e) {
			st = kv_fail_errno(e, "create store directory", path);
			goto fail;
		}
	}
	st = man_load(s->fs, path, &m, &man_num);
	if (st == KV_NOT_FOUND) {
		if (s->o.read_only) {
			st = kv_fail(KV_NOT_FOUND, "%s is not a store (no CURRENT)", path);
			goto fail;
		}
		m.next_file = 1;
		m.next_table = 1;
		st = KV_OK;
	}
	if (st)
		goto fail;
	s->next_file = m.next_file ? m.next_file : 1;
	s->next_table = m.next_table ? m.next_table : 1;
	s->wal_floor = m.wal_floor;
	if ((st = load_state(s, &m)))
		goto fail;
	int e = s->fs->list(s->fs, path, scan_cb, &d);
	if (e) {
		st = kv_fail_errno(e, "list", path);
		goto fail;
	}
	if (d.max >= s->next_file)
		s->next_file = d.max + 1;
	if (d.wal.n)
		qsort(d.wal.v, d.wal.n, sizeof(uint64_t), u64cmp);

	/* Replay the log segments the manifest still needs, in order. */
	replay_ctx rc = {s, 0, m.last_ts};
	for (size_t i = 0; i < d.wal.n; i++) {
		if (d.wal.v[i] < s->wal_floor)
			continue;
		char p[4096];
		wal_seg_path(p, sizeof(p), path, d.wal.v[i]);
		uint64_t valid_end = 0, size = 0;
		rc.seg = d.wal.v[i];
		if ((st = wal_replay(s->fs, p, replay_cb, &rc, &valid_end, &size)))
			goto fail;
		bool last = i + 1 == d.wal.n;
		if (valid_end < size) {
			if (!last) {
				st = kv_fail(KV_CORRUPTION,
					     "%s: damaged record in a log segment that is not the last", p);
				goto fail;
			}
			/* A torn tail: cut it so later segments follow clean data. */
			if (!s->o.read_only) {
				kv_file *f;
				if ((e = s->fs->open_write(s->fs, p, false, &f)) == 0) {
					e = s->fs->truncate(f, valid_end);
					if (!e)
						e = s->fs->sync(f);
					s->fs->close(f);
				}
				if (e) {
					st = kv_fail_errno(e, "truncate torn log tail", p);
					goto fail;
				}
			}
		}
	}
	clock_init(s, rc.max_ts);
	s->recent = recent_new(rc.max_ts);

	if (!s->o.read_only) {
		pthread_mutex_lock(&s->mu);
		st = roll_manifest(s);
		pthread_mutex_unlock(&s->mu);
		if (st)
			goto fail;
		if (man_num && man_num != man_writer_number(s->man)) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/MANIFEST-%06llu", path, (unsigned long long)man_num);
			s->fs->unlink(s->fs, p);
		}
		/* Orphans: sorted files no manifest lists, stale manifests. */
		for (size_t i = 0; i < d.sst.n; i++) {
			if (!file_live(s, d.sst.v[i])) {
				char p[4096];
				store_file_path(s, d.sst.v[i], "sst", p, sizeof(p));
				s->fs->unlink(s->fs, p);
			}
		}
		for (size_t i = 0; i < d.man.n; i++) {
			if (d.man.v[i] != man_writer_number(s->man)) {
				char p[4096];
				snprintf(p, sizeof(p), "%s/MANIFEST-%06llu", path,
					 (unsigned long long)d.man.v[i]);
				s->fs->unlink(s->fs, p);
			}
		}
		if (d.tmp) {
			char p[4096];
			snprintf(p, sizeof(p), "%s/CURRENT.tmp", path);
			s->fs->unlink(s->fs, p);
		}
		uint64_t seg = store_next_file(s);
		if ((st = wal_open(s->fs, path, seg, s->o.wal_segment_bytes, wal_next, s, &s->wal)))
			goto fail;
		if (pthread_create(&s->bg, NULL, bg_main, s) != 0) {
			st = kv_fail(KV_NO_MEMORY, "cannot start the background thread");
			goto fail;
		}
		s->bg_started = true;
		int nc = s->o.compaction_threads > 0   ? s->o.compaction_threads
			 : s->o.compaction_threads < 0 ? 0
						       : 1;
		s->compactors = util_xcalloc((size_t)(nc ? nc : 1), sizeof(pthread_t));
		for (int i = 0; i < nc; i++) {
			if (pthread_create(&s->compactors[i], NULL, compactor_main, s) != 0)
				break;
			s->ncompactors++;
		}
	}
	man_state_free(&m);
	free_scan(&d);
	*out = s;
	return KV_OK;
fail : {
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", kv_errmsg());
	man_state_free(&m);
	free_scan(&d);
	store_free(s);
	return kv_fail(st, "%s", msg);
}
}

void kv_store_close(kv_store *s)
{
	if (!s)
		return;
	if (s->etcd) {
		ekv_store_close(s);
		return;
	}
	atomic_store(&s->closing, true);
	if (s->bg_started) {
		pthread_mutex_lock(&s->bg_mu);
		s->bg_stop = true;
		pthread_cond_broadcast(&s->bg_cv);
		pthread_cond_broadcast(&s->compact_cv);
		pthread_cond_broadcast(&s->done_cv);
		pthread_mutex_unlock(&s->bg_mu);
		pthread_join(s->bg, NULL);
		for (int i = 0; i < s->ncompactors; i++)
			pthread_join(s->compactors[i], NULL);
		free(s->compactors);
	}
	if (s->wal && s->o.durability != KV_SYNC_COMMIT && !atomic_load(&s->failed))
		wal_sync(s->wal);
	store_free(s);
}

kv_status kv_store_flush(kv_store *s)
{
	if (s->etcd)
		return KV_OK; /* every commit is in the cluster already */
	pthread_mutex_lock(&s->mu);
	int n = s->ntables;
	kv_table **ts = util_xcalloc((size_t)(n ? n : 1), sizeof(kv_table *));
	for (int i = 0; i < n; i++) {
		ts[i] = s->tables[i];
		atomic_fetch_add(&ts[i]->refs, 1);
	}
	pthread_mutex_unlock(&s->mu);
	kv_status st = KV_OK;
	for (int i = 0; i < n; i++) {
		if (!st)
			st = flush_table(s, ts[i]);
		table_unref(ts[i]);
	}
	free(ts);
	return st;
}

void kv_store_get_stats(kv_store *s, kv_store_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->commits = atomic_load(&s->n_commits);
	if (s->wal)
		wal_stats(s->wal, &out->wal_bytes, &out->wal_syncs);
	if (s->cache)
		cache_stats(s->cache, &out->cache_hits, &out->cache_misses, &out->cache_bytes);
	out->memstore_bytes = atomic_load(&s->mem_total);
	out->stalls = atomic_load(&s->n_stalls);
	out->read_point = kv_read_point(s);
}

/* ---------------------------------------------------------------- verify */

static kv_status noop_cb(void *arg, const uint8_t *p, size_t n)
{
	return KV_OK;
}

kv_status kv_store_verify(kv_store *s, void (*fn)(void *arg, const char *problem), void *arg)
{
	if (s->etcd)
		return ekv_store_verify(s, fn, arg, NULL);
	kv_status worst = KV_OK;
	pthread_mutex_lock(&s->mu);
	int n = s->ntables;
	kv_table **ts = util_xcalloc((size_t)(n ? n : 1), sizeof(kv_table *));
	for (int i = 0; i < n; i++) {
		ts[i] = s->tables[i];
		atomic_fetch_add(&ts[i]->refs, 1);
	}
	pthread_mutex_unlock(&s->mu);
	for (int i = 0; i < n; i++) {
		kv_sv *sv = table_sv(ts[i]);
		for (int f = 0; f < sv->v->nfam; f++) {
			for (int j = 0; j < sv->v->fams[f].n; j++) {
				sst_reader *r;
				kv_status st = sfile_reader(sv->v->fams[f].files[j], &r);
				if (!st) {
					st = sst_verify(r, fn, arg);
					sst_unref(r);
				} else if (fn) {
					fn(arg, kv_errmsg());
				}
				if (st && !worst)
					worst = st;
			}
		}
		sv_unref(sv);
		table_unref(ts[i]);
	}
	free(ts);
	dirscan d = {0};
	s->fs->list(s->fs, s->path, scan_cb, &d);
	if (d.wal.n)
		qsort(d.wal.v, d.wal.n, sizeof(uint64_t), u64cmp);
	for (size_t i = 0; i < d.wal.n; i++) {
		if (d.wal.v[i] < s->wal_floor)
			continue;
		char p[4096];
		wal_seg_path(p, sizeof(p), s->path, d.wal.v[i]);
		uint64_t ve, sz;
		kv_status st = wal_replay(s->fs, p, noop_cb, NULL, &ve, &sz);
		if (!st && ve < sz && i + 1 < d.wal.n)
			st = kv_fail(KV_CORRUPTION,
				     "%s: damaged record in a log segment that is not the last", p);
		if (st) {
			if (fn)
				fn(arg, kv_errmsg());
			if (!worst)
				worst = st;
		}
	}
	free_scan(&d);
	return worst;
}
