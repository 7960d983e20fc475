/* fs_posix.c — the POSIX implementation of kv_fs (pread/write/fsync). */
#include "kv_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct posix_file {
	kv_file base;
	int fd;
} posix_file;

static int p_open(kv_fs *fs, const char *path, int flags, kv_file **out)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	posix_file *f = malloc(sizeof(*f));
	if (!f) {
		close(fd);
		return ENOMEM;
	}
	f->base.fs = fs;
	f->fd = fd;
	*out = &f->base;
	return 0;
}

static int p_open_read(kv_fs *fs, const char *path, kv_file **out)
{
	return p_open(fs, path, O_RDONLY, out);
}

static int p_open_write(kv_fs *fs, const char *path, bool truncate, kv_file **out)
{
	return p_open(fs, path, O_WRONLY | O_CREAT | O_APPEND | (truncate ? O_TRUNC : 0), out);
}

static int p_create_rw(kv_fs *fs, const char *path, kv_file **out)
{
	return p_open(fs, path, O_WRONLY | O_CREAT | O_TRUNC, out);
}

static int p_pread(kv_file *f, void *buf, size_t n, uint64_t off, size_t *got)
{
	int fd = ((posix_file *)f)->fd;
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return 0;
}

/* Writes all n bytes, at off or (off < 0) at the file position. */
static int write_all(kv_file *f, const void *buf, size_t n, int64_t off)
{
	int fd = ((posix_file *)f)->fd;
	size_t done = 0;
	while (done < n) {
		const char *p = (const char *)buf + done;
		ssize_t r =
		    off < 0 ? write(fd, p, n - done) : pwrite(fd, p, n - done, (off_t)(off + (int64_t)done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		done += (size_t)r;
	}
	return 0;
}

static int p_append(kv_file *f, const void *buf, size_t n)
{
	return write_all(f, buf, n, -1);
}

static int p_pwrite(kv_file *f, const void *buf, size_t n, uint64_t off)
{
	return write_all(f, buf, n, (int64_t)off);
}

static int p_sync(kv_file *f)
{
	return fdatasync(((posix_file *)f)->fd) < 0 ? errno : 0;
}

static void p_writeback(kv_file *f, uint64_t off, uint64_t n)
{
#ifdef SYNC_FILE_RANGE_WRITE
	(void)sync_file_range(((posix_file *)f)->fd, (off_t)off, (off_t)n, SYNC_FILE_RANGE_WRITE);
#else
	(void)f;
	(void)off;
	(void)n;
#endif
}

static int p_truncate(kv_file *f, uint64_t size)
{
	return ftruncate(((posix_file *)f)->fd, (off_t)size) < 0 ? errno : 0;
}

static int p_size(kv_file *f, uint64_t *out)
{
	struct stat st;
	if (fstat(((posix_file *)f)->fd, &st) < 0)
		return errno;
	*out = (uint64_t)st.st_size;
	return 0;
}

static void p_close(kv_file *f)
{
	close(((posix_file *)f)->fd);
	free(f);
}

static int p_rename(kv_fs *fs, const char *from, const char *to)
{
	return rename(from, to) < 0 ? errno : 0;
}

static int p_unlink(kv_fs *fs, const char *path)
{
	return unlink(path) < 0 ? errno : 0;
}

static int p_mkdir(kv_fs *fs, const char *path)
{
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return errno;
	return 0;
}

static int p_sync_dir(kv_fs *fs, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int rc = fsync(fd) < 0 ? errno : 0;
	close(fd);
	return rc;
}

static int p_list(kv_fs *fs, const char *dir, int (*fn)(void *arg, const char *name), void *arg)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fn(arg, e->d_name))
			break;
	}
	closedir(d);
	return 0;
}

static int p_exists(kv_fs *fs, const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 ? errno : 0;
}

static kv_fs posix_fs = {
    .open_read = p_open_read,
    .open_write = p_open_write,
    .create_rw = p_create_rw,
    .pread = p_pread,
    .append = p_append,
    .pwrite = p_pwrite,
    .sync = p_sync,
    .writeback = p_writeback,
    .truncate = p_truncate,
    .size = p_size,
    .close = p_close,
    .rename = p_rename,
    .unlink = p_unlink,
    .mkdir = p_mkdir,
    .sync_dir = p_sync_dir,
    .list = p_list,
    .exists = p_exists,
};

kv_fs *kv_fs_posix(void)
{
	return &posix_fs;
}
