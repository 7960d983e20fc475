/* wal.c — WAL segments: group-commit writer, segment rolling, and the
 * replay reader that tells a torn tail from corruption. */
#include "wal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

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
	/* Leader-owned (only the leader touches these while leader is set). */
	kv_file *f;
	uint64_t seg;
	uint64_t seg_size;
	uint64_t synced_size;
	util_buf buf;
	bool failed; /* fsync failed: refuse writes until reopened */
	char lasterr[256];
	uint64_t bytes, syncs;
};

void wal_seg_path(char *buf, size_t len, const char *dir, uint64_t n)
{
	snprintf(buf, len, "%s/%06llu.wal", dir, (unsigned long long)n);
}

static kv_status open_seg(kv_wal *w, uint64_t n, kv_file **f)
{
	char path[4096];
	wal_seg_path(path, sizeof(path), w->dir, n);
	int e = w->fs->open_write(w->fs, path, true, f);
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
	w->seg = seg;
	kv_status st = open_seg(w, seg, &w->f);
	if (st) {
		wal_close(w);
		return st;
	}
	*out = w;
	return KV_OK;
}

void wal_close(kv_wal *w)
{
	if (!w)
		return;
	if (w->f)
		w->fs->close(w->f);
	util_buf_free(&w->buf);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
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

/* The leader's work for a group: write, maybe fsync, maybe roll. Runs
 * without the mutex; returns the group's status. */
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
		int e = w->fs->append(w->f, w->buf.data, w->buf.len);
		if (e) {
			/* Undo a partial append so the log has no garbage in the middle. */
			int te = w->fs->truncate(w->f, w->seg_size);
			if (te)
				w->failed = true;
			return kv_fail_errno(e, "append to log segment", "");
		}
		w->seg_size += w->buf.len;
		w->bytes += w->buf.len;
	}
	bool roll = w->seg_size >= w->seg_bytes;
	if ((sync || roll) && w->synced_size != w->seg_size) {
		int e = w->fs->sync(w->f);
		w->syncs++;
		if (e) {
			w->failed = true;
			return kv_fail_errno(e, "fsync log segment", "");
		}
		w->synced_size = w->seg_size;
	}
	if (roll) {
		kv_file *nf = NULL;
		uint64_t n = w->next_fn(w->next_arg);
		if (open_seg(w, n, &nf) == KV_OK) {
			w->fs->close(w->f);
			w->f = nf;
			w->seg = n;
			w->seg_size = w->synced_size = 0;
		}
	}
	return KV_OK;
}

kv_status wal_write(kv_wal *w, const uint8_t *payload, size_t len, bool sync, uint64_t *seg)
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
