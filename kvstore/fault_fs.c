/* fault_fs.c — the fault-injecting file system for tests (kv_fault.h).
 * It tracks, per path, how many bytes are durable (fsynced) and whether the
 * file's creation is durable (its directory fsynced since), so that a
 * simulated crash can throw the rest away. */
#include "kv_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

typedef struct track {
	char *path;
	uint64_t synced; /* durable bytes */
	bool new_file;   /* created since its directory was last fsynced */
	bool dirty;      /* written since the last fsync */
	/* Lowest offset a pwrite changed since the last fsync (UINT64_MAX:
	 * none). Only the log pwrites, always over zeros it made durable, so a
	 * crash turns [lo, synced) back into zeros. */
	uint64_t pw_lo;
	struct track *next;
} track;

struct kv_fault_fs {
	kv_fs fs; /* first: kv_fs * converts to kv_fault_fs * */
	kv_fs *base;
	pthread_mutex_t mu;
	track *tracks;
	int ops_mask, err;
	uint64_t after;
	char *match;
	uint64_t injected, nops;
	bool dead;
	uint64_t kill_after; /* 0 = off */
};

typedef struct ffile {
	kv_file base;
	kv_file *inner;
	char *path;
} ffile;

static kv_fault_fs *F(kv_fs *fs)
{
	return (kv_fault_fs *)fs;
}

static track *find_track(kv_fault_fs *f, const char *path, bool create)
{
	for (track *t = f->tracks; t; t = t->next)
		if (!strcmp(t->path, path))
			return t;
	if (!create)
		return NULL;
	track *t = util_xcalloc(1, sizeof(*t));
	t->path = util_xstrdup(path);
	t->pw_lo = UINT64_MAX;
	t->next = f->tracks;
	f->tracks = t;
	return t;
}

static void drop_track(kv_fault_fs *f, const char *path)
{
	for (track **pp = &f->tracks; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->path, path)) {
			track *t = *pp;
			*pp = t->next;
			free(t->path);
			free(t);
			return;
		}
	}
}

/* Decides whether this operation fails; counts it. */
static int inject(kv_fault_fs *f, int kind, const char *path)
{
	int rc = 0;
	pthread_mutex_lock(&f->mu);
	f->nops++;
	if (f->kill_after && f->nops >= f->kill_after)
		f->dead = true;
	if (f->dead) {
		rc = EIO;
	} else if ((f->ops_mask & kind) && (!f->match || (path && strstr(path, f->match)))) {
		if (f->after > 0)
			f->after--;
		else
			rc = f->err;
	}
	if (rc)
		f->injected++;
	pthread_mutex_unlock(&f->mu);
	return rc;
}

static kv_file *wrap(kv_fs *fs, kv_file *in, const char *path)
{
	ffile *x = util_xcalloc(1, sizeof(*x));
	x->base.fs = fs;
	x->inner = in;
	x->path = util_xstrdup(path);
	return &x->base;
}

static int f_open_read(kv_fs *fs, const char *path, kv_file **out)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_OPEN, path);
	if (e)
		return e;
	kv_file *in;
	if ((e = f->base->open_read(f->base, path, &in)))
		return e;
	*out = wrap(fs, in, path);
	return 0;
}

/* open_write (rw false) or create_rw (rw true: always truncates). */
static int open_tracked(kv_fs *fs, const char *path, bool rw, bool truncate, kv_file **out)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_OPEN, path);
	if (e)
		return e;
	bool existed = f->base->exists(f->base, path) == 0;
	kv_file *in;
	if ((e = rw ? f->base->create_rw(f->base, path, &in)
		    : f->base->open_write(f->base, path, truncate, &in)))
		return e;
	pthread_mutex_lock(&f->mu);
	track *t = find_track(f, path, true);
	if (!existed)
		t->new_file = true;
	if (truncate || !existed) {
		t->synced = 0;
		t->dirty = true;
		t->pw_lo = UINT64_MAX;
	} else if (!t->dirty) {
		uint64_t sz = 0;
		f->base->size(in, &sz);
		t->synced = sz;
	}
	pthread_mutex_unlock(&f->mu);
	*out = wrap(fs, in, path);
	return 0;
}

static int f_open_write(kv_fs *fs, const char *path, bool truncate, kv_file **out)
{
	return open_tracked(fs, path, false, truncate, out);
}

static int f_create_rw(kv_fs *fs, const char *path, kv_file **out)
{
	return open_tracked(fs, path, true, true, out);
}

static int f_pread(kv_file *file, void *buf, size_t n, uint64_t off, size_t *got)
{
	ffile *x = (ffile *)file;
	int e = inject(F(file->fs), KV_FAULT_READ, x->path);
	if (e)
		return e;
	return x->inner->fs->pread(x->inner, buf, n, off, got);
}

static int f_append(kv_file *file, const void *buf, size_t n)
{
	ffile *x = (ffile *)file;
	kv_fault_fs *f = F(file->fs);
	int e = inject(f, KV_FAULT_WRITE, x->path);
	if (e) {
		/* A failing write may still have written part of the data. */
		if (e != EIO && n > 1)
			x->inner->fs->append(x->inner, buf, n / 2);
		return e;
	}
	pthread_mutex_lock(&f->mu);
	find_track(f, x->path, true)->dirty = true;
	pthread_mutex_unlock(&f->mu);
	return x->inner->fs->append(x->inner, buf, n);
}

static int f_pwrite(kv_file *file, const void *buf, size_t n, uint64_t off)
{
	ffile *x = (ffile *)file;
	kv_fault_fs *f = F(file->fs);
	int e = inject(f, KV_FAULT_WRITE, x->path);
	if (e) {
		if (e != EIO && n > 1)
			x->inner->fs->pwrite(x->inner, buf, n / 2, off);
		else
			n = 0;
	}
	pthread_mutex_lock(&f->mu);
	track *t = find_track(f, x->path, true);
	t->dirty = true;
	if (n && off < t->pw_lo)
		t->pw_lo = off;
	pthread_mutex_unlock(&f->mu);
	return e ? e : x->inner->fs->pwrite(x->inner, buf, n, off);
}

static int f_sync(kv_file *file)
{
	ffile *x = (ffile *)file;
	kv_fault_fs *f = F(file->fs);
	int e = inject(f, KV_FAULT_SYNC, x->path);
	if (e)
		return e;
	if ((e = x->inner->fs->sync(x->inner)))
		return e;
	uint64_t sz = 0;
	x->inner->fs->size(x->inner, &sz);
	pthread_mutex_lock(&f->mu);
	track *t = find_track(f, x->path, true);
	t->synced = sz;
	t->dirty = false;
	t->pw_lo = UINT64_MAX;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int f_truncate(kv_file *file, uint64_t size)
{
	ffile *x = (ffile *)file;
	kv_fault_fs *f = F(file->fs);
	int e = inject(f, KV_FAULT_TRUNCATE, x->path);
	if (e)
		return e;
	pthread_mutex_lock(&f->mu);
	track *t = find_track(f, x->path, true);
	if (t->synced > size)
		t->synced = size;
	t->dirty = true;
	pthread_mutex_unlock(&f->mu);
	return x->inner->fs->truncate(x->inner, size);
}

static int f_size(kv_file *file, uint64_t *out)
{
	ffile *x = (ffile *)file;
	return x->inner->fs->size(x->inner, out);
}

static void f_close(kv_file *file)
{
	ffile *x = (ffile *)file;
	x->inner->fs->close(x->inner);
	free(x->path);
	free(x);
}

static void dir_of(const char *path, char *dir, size_t n)
{
	snprintf(dir, n, "%s", path);
	char *s = strrchr(dir, '/');
	if (s)
		*s = 0;
	else
		snprintf(dir, n, ".");
}

static int f_rename(kv_fs *fs, const char *from, const char *to)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_META, from);
	if (e)
		return e;
	if ((e = f->base->rename(f->base, from, to)))
		return e;
	pthread_mutex_lock(&f->mu);
	track *t = find_track(f, from, false);
	drop_track(f, to);
	if (t) {
		free(t->path);
		t->path = util_xstrdup(to);
		/* Simplification: a rename counts as durable once its directory
		 * is fsynced; until then the target is treated as new. */
		t->new_file = true;
	}
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int f_unlink(kv_fs *fs, const char *path)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_META, path);
	if (e)
		return e;
	if ((e = f->base->unlink(f->base, path)))
		return e;
	pthread_mutex_lock(&f->mu);
	drop_track(f, path);
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int f_mkdir(kv_fs *fs, const char *path)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_META, path);
	return e ? e : f->base->mkdir(f->base, path);
}

static int f_sync_dir(kv_fs *fs, const char *path)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_SYNC, path);
	if (e)
		return e;
	if ((e = f->base->sync_dir(f->base, path)))
		return e;
	pthread_mutex_lock(&f->mu);
	for (track *t = f->tracks; t; t = t->next) {
		char d[4096];
		dir_of(t->path, d, sizeof(d));
		if (!strcmp(d, path))
			t->new_file = false;
	}
	pthread_mutex_unlock(&f->mu);
	return 0;
}

static int f_list(kv_fs *fs, const char *dir, int (*fn)(void *arg, const char *name), void *arg)
{
	kv_fault_fs *f = F(fs);
	int e = inject(f, KV_FAULT_READ, dir);
	return e ? e : f->base->list(f->base, dir, fn, arg);
}

static int f_exists(kv_fs *fs, const char *path)
{
	kv_fault_fs *f = F(fs);
	return f->base->exists(f->base, path);
}

kv_fault_fs *kv_fault_fs_new(kv_fs *base)
{
	kv_fault_fs *f = util_xcalloc(1, sizeof(*f));
	f->fs = (kv_fs){.open_read = f_open_read,
			.open_write = f_open_write,
			.create_rw = f_create_rw,
			.pread = f_pread,
			.append = f_append,
			.pwrite = f_pwrite,
			.sync = f_sync,
			.truncate = f_truncate,
			.size = f_size,
			.close = f_close,
			.rename = f_rename,
			.unlink = f_unlink,
			.mkdir = f_mkdir,
			.sync_dir = f_sync_dir,
			.list = f_list,
			.exists = f_exists};
	f->base = base;
	pthread_mutex_init(&f->mu, NULL);
	return f;
}

void kv_fault_fs_free(kv_fault_fs *f)
{
	if (!f)
		return;
	while (f->tracks) {
		track *t = f->tracks;
		f->tracks = t->next;
		free(t->path);
		free(t);
	}
	free(f->match);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

kv_fs *kv_fault_fs_get(kv_fault_fs *f)
{
	return &f->fs;
}

void kv_fault_set(kv_fault_fs *f, int ops, int err, uint64_t after, const char *match)
{
	pthread_mutex_lock(&f->mu);
	f->ops_mask = ops;
	f->err = err;
	f->after = after;
	free(f->match);
	f->match = match ? util_xstrdup(match) : NULL;
	pthread_mutex_unlock(&f->mu);
}

void kv_fault_clear(kv_fault_fs *f)
{
	kv_fault_set(f, 0, 0, 0, NULL);
}

uint64_t kv_fault_injected(kv_fault_fs *f)
{
	pthread_mutex_lock(&f->mu);
	uint64_t n = f->injected;
	pthread_mutex_unlock(&f->mu);
	return n;
}

uint64_t kv_fault_ops(kv_fault_fs *f)
{
	pthread_mutex_lock(&f->mu);
	uint64_t n = f->nops;
	pthread_mutex_unlock(&f->mu);
	return n;
}

void kv_fault_kill(kv_fault_fs *f)
{
	pthread_mutex_lock(&f->mu);
	f->dead = true;
	pthread_mutex_unlock(&f->mu);
}

void kv_fault_kill_after(kv_fault_fs *f, uint64_t n)
{
	pthread_mutex_lock(&f->mu);
	f->kill_after = f->nops + n + 1;
	pthread_mutex_unlock(&f->mu);
}

void kv_fault_revive(kv_fault_fs *f)
{
	pthread_mutex_lock(&f->mu);
	f->dead = false;
	f->kill_after = 0;
	pthread_mutex_unlock(&f->mu);
}

/* Zeros [from, to) of fd: unsynced pwrites over durable zeros are lost. */
static void zero_range(int fd, uint64_t from, uint64_t to)
{
	static const uint8_t z[4096];
	while (from < to) {
		size_t n = (size_t)UTIL_MIN(to - from, sizeof(z));
		if (pwrite(fd, z, n, (off_t)from) != (ssize_t)n)
			return;
		from += n;
	}
}

void kv_fault_crash(kv_fault_fs *f, unsigned seed, bool torn)
{
	pthread_mutex_lock(&f->mu);
	unsigned r = seed * 2654435761u + 1;
	for (track **pp = &f->tracks; *pp;) {
		track *t = *pp;
		if (t->new_file) {
			/* Its directory entry was never made durable. */
			unlink(t->path);
			*pp = t->next;
			free(t->path);
			free(t);
			continue;
		}
		int fd = open(t->path, O_RDWR);
		if (fd >= 0) {
			off_t size = lseek(fd, 0, SEEK_END);
			uint64_t lo = UTIL_MIN(t->synced, t->pw_lo), keep = lo;
			if (torn && (uint64_t)size > keep) {
				r = r * 1103515245u + 12345u;
				keep += (r >> 8) % ((uint64_t)size - keep + 1);
			}
			bool lost = (uint64_t)size > keep;
			if (keep < t->synced)
				zero_range(fd, keep, t->synced);
			uint64_t cut = UTIL_MAX(keep, t->synced);
			if ((uint64_t)size > cut && ftruncate(fd, (off_t)cut) != 0)
				lost = false;
			if (lost && torn && (r & 1)) {
				/* Garbage where the lost data was. */
				uint8_t junk[64];
				for (size_t i = 0; i < sizeof(junk); i++) {
					r = r * 1103515245u + 12345u;
					junk[i] = (uint8_t)(r >> 16);
				}
				if (pwrite(fd, junk, (r >> 4) % sizeof(junk), (off_t)keep) < 0)
					(void)0;
			}
			close(fd);
		}
		t->synced = 0;
		t->dirty = false;
		t->pw_lo = UINT64_MAX;
		pp = &t->next;
	}
	/* Re-read durable sizes. */
	for (track *t = f->tracks; t; t = t->next) {
		int fd = open(t->path, O_RDONLY);
		if (fd >= 0) {
			t->synced = (uint64_t)lseek(fd, 0, SEEK_END);
			close(fd);
		}
	}
	pthread_mutex_unlock(&f->mu);
}

int kv_fault_flip(const char *path, uint64_t off, uint8_t mask)
{
	int fd = open(path, O_RDWR);
	if (fd < 0)
		return errno;
	uint8_t b;
	int rc = 0;
	if (pread(fd, &b, 1, (off_t)off) != 1)
		rc = EINVAL;
	else {
		b ^= mask;
		if (pwrite(fd, &b, 1, (off_t)off) != 1)
			rc = errno;
	}
	close(fd);
	return rc;
}
