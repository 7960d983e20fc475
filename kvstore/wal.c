/* wal.c — WAL segments: group-commit writer, segment rolling, and the
 * replay reader that tells a torn tail from corruption. */
#include "wal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

/* Zero-filling ahead: in steps of PREP_STEP bytes, each fsynced on its own
 * (a commit's fdatasync may have to wait for a step's dirty pages: keep
 * them few), once the segment has a record (a store opened and closed
 * unwritten costs nothing, one barely written one step), until the zeros
 * reach as far past the last record as the segment already holds records,
 * at least one step, at most PREP_AHEAD. */
#define PREP_STEP  (256u << 10)
#define PREP_AHEAD (4u << 20)

typedef struct wal_req {
	const uint8_t *p;
	size_t len;
	bool sync;
	bool done;
	kv_status st;
	uint64_t seg;
	struct wal_req *next;
} wal_req;

struct kv_wal {
	kv_fs *fs;
	char *dir;
	size_t seg_bytes;
	wal_next_fn next_fn;
	void *next_arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wal_req *head, *tail;
	bool leader;
	/* Under mu, shared by the leader and the preparer thread: the
	 * segment's record bytes, how far it is zero-filled and synced, and
	 * who is writing where (the preparer zero-fills [zend, ...) only while
	 * the leader writes below zend; the leader waits for it otherwise). */
	kv_file *f;
	uint64_t seg;
	uint64_t seg_size;
	uint64_t zend;
	bool zeroing; /* the preparer is writing zeros past zend */
	bool beyond;  /* the leader is writing past zend */
	bool rolling; /* the leader is switching segments: no zeroing */
	bool ragged;  /* a failed zero-fill may have left zeros past zend */
	bool stop;
	bool failed;        /* fsync failed: refuse writes until reopened */
	pthread_cond_t pcv; /* preparer work and its completion */
	pthread_t prep;
	bool prep_started;
	/* Leader-owned (only the leader touches these while leader is set). */
	uint64_t synced_size;
	util_buf buf;
	char lasterr[256];
	uint64_t bytes, syncs; /* written under mu (wal_stats reads them) */
};

void wal_seg_path(char *buf, size_t len, const char *dir, uint64_t n)
{
	snprintf(buf, len, "%s/%06llu.wal", dir, (unsigned long long)n);
}

static kv_status open_seg(kv_wal *w, uint64_t n, kv_file **f)
{
	char path[4096];
	wal_seg_path(path, sizeof(path), w->dir, n);
	int e = w->fs->create_rw(w->fs, path, f);
	if (!e)
		e = w->fs->sync_dir(w->fs, w->dir);
	if (e) {
		if (*f)
			w->fs->close(*f);
		*f = NULL;
		return kv_fail_errno(e, "create log segment", path);
	}
	return KV_OK;
}

/* The size of the next zero-fill step, from max(zend, seg_size), 0 if none
 * is due. Zeros never go past seg_bytes, where the log rolls. REQUIRES: mu. */
static uint64_t prep_step(const kv_wal *w)
{
	uint64_t from = UTIL_MAX(w->zend, w->seg_size);
	if (!w->seg_size || from >= w->seg_bytes || w->failed || w->rolling || w->beyond || w->ragged ||
	    !w->f)
		return 0;
	uint64_t ahead = UTIL_MIN(UTIL_MAX(w->seg_size, PREP_STEP), PREP_AHEAD);
	if (w->zend >= w->seg_size + ahead)
		return 0;
	return UTIL_MIN(PREP_STEP, w->seg_bytes - from);
}

static int write_zeros(kv_fs *fs, kv_file *f, uint64_t from, uint64_t to)
{
	static const uint8_t z[64 << 10];
	for (uint64_t o = from; o < to;) {
		size_t n = (size_t)UTIL_MIN(to - o, sizeof(z));
		int e = fs->pwrite(f, z, n, o);
		if (e)
			return e;
		o += n;
	}
	return 0;
}

/* The preparer: keeps the current segment zero-filled and synced ahead of
 * the writer, so a commit's fdatasync writes data blocks only and no
 * file-size change (which costs an extra journal commit on ext4/xfs). */
static void *prep_main(void *arg)
{
	kv_wal *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		uint64_t step = prep_step(w);
		if (!step) {
			pthread_cond_wait(&w->pcv, &w->mu);
			continue;
		}
		uint64_t from = UTIL_MAX(w->zend, w->seg_size), seg = w->seg;
		kv_file *f = w->f;
		w->zeroing = true;
		pthread_mutex_unlock(&w->mu);
		int e = write_zeros(w->fs, f, from, from + step), se = e ? 0 : w->fs->sync(f);
		pthread_mutex_lock(&w->mu);
		w->zeroing = false;
		if (!e && !se)
			w->zend = from + step;
		else
			/* A failed write is not fatal: the leader writes past zend
			 * (the file grows) as before, and the roll cuts whatever this
			 * step left; no more steps in this segment. A failed fsync
			 * is: it may have dropped records' dirty pages, and a later
			 * fsync would not report that (docs/wal-format.md). */
			w->ragged = true;
		if (se)
			w->failed = true;
		pthread_cond_broadcast(&w->pcv);
		if (e || se)
			util_log(UTIL_LOG_WARNING, "kvstore: zero-filling log segment %llu: %s",
				 (unsigned long long)seg, strerror(e ? e : se));
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

kv_status wal_open(kv_fs *fs, const char *dir, uint64_t seg, size_t seg_bytes, wal_next_fn next, void *arg,
		   kv_wal **out)
{
	kv_wal *w = util_xcalloc(1, sizeof(*w));
	w->fs = fs;
	w->dir = util_xstrdup(dir);
	w->seg_bytes = seg_bytes;
	w->next_fn = next;
	w->next_arg = arg;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	pthread_cond_init(&w->pcv, NULL);
	w->seg = seg;
	kv_status st = open_seg(w, seg, &w->f);
	if (!st && pthread_create(&w->prep, NULL, prep_main, w) != 0)
		st = kv_fail(KV_NO_MEMORY, "cannot start the log preparer thread");
	if (st) {
		wal_close(w);
		return st;
	}
	w->prep_started = true;
	*out = w;
	return KV_OK;
}

void wal_close(kv_wal *w)
{
	if (!w)
		return;
	if (w->prep_started) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
		pthread_cond_broadcast(&w->pcv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->prep, NULL);
	}
	if (w->f) {
		/* Cut the zeroed tail (the next open would, as a torn tail). */
		if (!w->failed && (w->zend > w->seg_size || w->ragged) && !w->fs->truncate(w->f, w->seg_size))
			w->fs->sync(w->f);
		w->fs->close(w->f);
	}
	util_buf_free(&w->buf);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	pthread_cond_destroy(&w->pcv);
	free(w->dir);
	free(w);
}

uint64_t wal_current_seg(kv_wal *w)
{
	pthread_mutex_lock(&w->mu);
	uint64_t s = w->seg;
	pthread_mutex_unlock(&w->mu);
	return s;
}

uint64_t wal_zeroed(kv_wal *w)
{
	pthread_mutex_lock(&w->mu);
	uint64_t z = w->zend;
	pthread_mutex_unlock(&w->mu);
	return z;
}

bool wal_failed(kv_wal *w)
{
	pthread_mutex_lock(&w->mu);
	bool f = w->failed;
	pthread_mutex_unlock(&w->mu);
	return f;
}

void wal_stats(kv_wal *w, uint64_t *bytes, uint64_t *syncs)
{
	pthread_mutex_lock(&w->mu);
	*bytes = w->bytes;
	*syncs = w->syncs;
	pthread_mutex_unlock(&w->mu);
}

/* Writes the group's bytes at the end of the records. Past the zeroed
 * space it first waits for a running zero-fill step (whose range it would
 * overlap). A failed write is undone by cutting the file back to the end
 * of the records, as without zero-filling: rewriting zeros could fail the
 * same way (ENOSPC), and a half-written group must not stay in the log. */
static kv_status write_group(kv_wal *w)
{
	uint64_t at = w->seg_size, end = at + w->buf.len;
	pthread_mutex_lock(&w->mu);
	while (end > w->zend && w->zeroing)
		pthread_cond_wait(&w->pcv, &w->mu);
	w->beyond = end > w->zend;
	pthread_mutex_unlock(&w->mu);

	int e = w->fs->pwrite(w->f, w->buf.data, w->buf.len, at);
	pthread_mutex_lock(&w->mu);
	if (e) {
		while (w->zeroing)
			pthread_cond_wait(&w->pcv, &w->mu);
		if (w->fs->truncate(w->f, at))
			w->failed = true;
		w->zend = UTIL_MIN(w->zend, at);
	} else {
		w->seg_size = end;
		w->bytes += w->buf.len;
	}
	w->beyond = false;
	if (prep_step(w))
		pthread_cond_signal(&w->pcv);
	pthread_mutex_unlock(&w->mu);
	return e ? kv_fail_errno(e, "append to log segment", "") : KV_OK;
}

/* fsyncs the current segment (the leader's). */
static kv_status sync_seg(kv_wal *w)
{
	int e = w->fs->sync(w->f);
	/* Under mu: the preparer reads failed (prep_step) and sets it, and
	 * wal_stats reads syncs (a data race under TSan before). */
	pthread_mutex_lock(&w->mu);
	w->syncs++;
	bool failed = w->failed;
	if (e)
		w->failed = true;
	pthread_mutex_unlock(&w->mu);
	if (e)
		return kv_fail_errno(e, "fsync log segment", "");
	/* A zero-fill step's fsync that failed meanwhile may have dropped
	 * this group's pages although ours reported success. */
	if (failed)
		return kv_fail(KV_IO_ERROR, "fsync of the log failed while zero-filling it");
	w->synced_size = w->seg_size;
	return KV_OK;
}

/* Switches to a new segment once the current one is full: waits out a
 * zero-fill step, cuts the file to its records (only the last segment may
 * end in zeros, docs/wal-format.md; zeros stop at seg_bytes, so this only
 * matters after a failed zero-fill step) and syncs it, then creates the
 * next one. If the cut or the create fails the log stays in this segment. */
static kv_status roll(kv_wal *w)
{
	pthread_mutex_lock(&w->mu);
	w->rolling = true;
	while (w->zeroing)
		pthread_cond_wait(&w->pcv, &w->mu);
	pthread_mutex_unlock(&w->mu);

	kv_status st = KV_OK;
	kv_file *nf = NULL;
	uint64_t n = 0;
	bool cut = w->fs->truncate(w->f, w->seg_size) == 0;
	st = sync_seg(w);
	if (!st && cut) {
		n = w->next_fn(w->next_arg);
		if (open_seg(w, n, &nf) != KV_OK)
			nf = NULL;
	}
	pthread_mutex_lock(&w->mu);
	if (cut)
		w->zend = UTIL_MIN(w->zend, w->seg_size);
	if (nf) {
		w->fs->close(w->f);
		w->f = nf;
		w->seg = n;
		w->seg_size = w->synced_size = w->zend = 0;
		w->ragged = false;
	}
	w->rolling = false;
	pthread_cond_broadcast(&w->pcv);
	pthread_mutex_unlock(&w->mu);
	return st;
}

/* The leader's work for a group: write, maybe fsync, maybe roll. Runs
 * without the mutex except around the shared segment state; returns the
 * group's status. */
static kv_status lead(kv_wal *w, wal_req *first, wal_req *last, uint64_t *seg)
{
	bool sync = false;
	util_buf_reset(&w->buf);
	for (wal_req *r = first;; r = r->next) {
		if (r->len) {
			uint8_t h[WAL_HEADER];
			util_put_be32(h, (uint32_t)r->len);
			uint32_t crc = util_crc32c(0, h, 4);
			crc = util_crc32c(crc, r->p, r->len);
			util_put_be32(h + 4, util_crc_mask(crc));
			util_buf_append(&w->buf, h, WAL_HEADER);
			util_buf_append(&w->buf, r->p, r->len);
		}
		sync |= r->sync;
		if (r == last)
			break;
	}
	*seg = w->seg;
	if (w->buf.len) {
		kv_status st = write_group(w);
		if (st)
			return st;
	}
	if (w->seg_size >= w->seg_bytes)
		return roll(w);
	if (sync && w->synced_size != w->seg_size)
		return sync_seg(w);
	return KV_OK;
}

static kv_status write_record(kv_wal *w, const uint8_t *payload, size_t len, bool sync, uint64_t *seg)
{
	if (len > WAL_MAX_RECORD)
		return kv_fail(KV_TOO_LARGE, "batch of %zu bytes exceeds the log record limit", len);
	wal_req me = {.p = payload, .len = len, .sync = sync};
	pthread_mutex_lock(&w->mu);
	if (w->failed) {
		pthread_mutex_unlock(&w->mu);
		return kv_fail(KV_READ_ONLY, "store is read-only after a log fsync failure; reopen it");
	}
	if (w->tail)
		w->tail->next = &me;
	else
		w->head = &me;
	w->tail = &me;
	while (!me.done && (w->leader || w->head != &me))
		pthread_cond_wait(&w->cv, &w->mu);
	if (me.done) {
		if (me.st)
			kv_fail(me.st, "%s", w->lasterr);
		pthread_mutex_unlock(&w->mu);
		if (seg)
			*seg = me.seg;
		return me.st;
	}
	/* Leader: take the whole queue. */
	wal_req *first = w->head, *last = w->tail;
	w->leader = true;
	bool failed = w->failed;
	pthread_mutex_unlock(&w->mu);

	uint64_t s = 0;
	kv_status st = failed ? kv_fail(KV_READ_ONLY, "store is read-only after a log fsync failure")
			      : lead(w, first, last, &s);
	pthread_mutex_lock(&w->mu);
	if (st)
		snprintf(w->lasterr, sizeof(w->lasterr), "%s", kv_errmsg());
	w->head = last->next;
	if (!w->head)
		w->tail = NULL;
	for (wal_req *r = first;; r = r->next) {
		r->done = true;
		r->st = st;
		r->seg = s;
		if (r == last)
			break;
	}
	w->leader = false;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (seg)
		*seg = s;
	return st;
}

kv_status wal_write(kv_wal *w, const uint8_t *payload, size_t len, bool sync, uint64_t *seg)
{
	if (!sync)
		return write_record(w, payload, len, false, seg);
	/* Waiting for the fsync (our own or the group's) blocks: a thread pool
	 * may run someone else meanwhile. */
	util_wait_begin();
	kv_status st = write_record(w, payload, len, true, seg);
	util_wait_end();
	return st;
}

kv_status wal_sync(kv_wal *w)
{
	return wal_write(w, NULL, 0, true, NULL);
}

/* ---------------------------------------------------------------- replay */

static bool record_ok(const uint8_t *p, size_t avail, size_t *len)
{
	if (avail < WAL_HEADER)
		return false;
	uint32_t n = util_get_be32(p);
	if (n == 0 || n > WAL_MAX_RECORD || n > avail - WAL_HEADER)
		return false;
	uint32_t crc = util_crc32c(0, p, 4);
	crc = util_crc32c(crc, p + WAL_HEADER, n);
	if (util_crc_unmask(util_get_be32(p + 4)) != crc)
		return false;
	*len = n;
	return true;
}

kv_status wal_replay(kv_fs *fs, const char *path, kv_status (*fn)(void *arg, const uint8_t *p, size_t n),
		     void *arg, uint64_t *valid_end, uint64_t *file_size)
{
	kv_file *f;
	int e = fs->open_read(fs, path, &f);
	if (e)
		return kv_fail_errno(e, "open log segment", path);
	uint64_t size;
	if ((e = fs->size(f, &size))) {
		fs->close(f);
		return kv_fail_errno(e, "stat log segment", path);
	}
	uint8_t *data = malloc(size ? size : 1);
	if (!data) {
		fs->close(f);
		return kv_fail(KV_NO_MEMORY, "out of memory reading %s", path);
	}
	size_t got;
	e = fs->pread(f, data, size, 0, &got);
	fs->close(f);
	if (e) {
		free(data);
		return kv_fail_errno(e, "read log segment", path);
	}
	size = got;
	*file_size = size;
	kv_status st = KV_OK;
	size_t off = 0, n;
	while (off < size && record_ok(data + off, size - off, &n)) {
		st = fn(arg, data + off + WAL_HEADER, n);
		if (st)
			goto out;
		off += WAL_HEADER + n;
	}
	*valid_end = off;
	/* Anything valid after the first bad record means damage, not a tail. */
	for (size_t o = off + 1; o + WAL_HEADER < size; o++) {
		if (record_ok(data + o, size - o, &n)) {
			st = kv_fail(KV_CORRUPTION, "%s: damaged log record at offset %zu", path, off);
			break;
		}
	}
out:
	free(data);
	return st;
}
