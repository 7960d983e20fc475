/*
 * kv_fs.h — the file-system interface every byte of kvstore I/O goes
 * through: a POSIX implementation (kv_fs_posix) and, for tests, a
 * fault-injecting wrapper (kv_fs_fault, see kv_fault.h) installed through
 * kv_store_opts.fs.
 *
 * Every operation returns 0 or a positive errno value (EIO, ENOSPC, ENOENT,
 * ...); the store maps them to kv_status. Paths are absolute or relative to
 * the process working directory, as given to kv_store_open().
 */
#ifndef STRATA_KV_FS_H
#define STRATA_KV_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kv_fs kv_fs;
typedef struct kv_file kv_file;

/* A file opened through an fs. Implementations embed this as their first
 * member. */
struct kv_file {
	kv_fs *fs;
};

struct kv_fs {
	/* Opens an existing file for reading (pread only). */
	int (*open_read)(kv_fs *fs, const char *path, kv_file **out);
	/* Creates (truncating) or opens for appending. */
	int (*open_write)(kv_fs *fs, const char *path, bool truncate, kv_file **out);
	/* Creates (truncating) a file for writing at offsets with pwrite (not
	 * appending: the log writes into space it zero-filled ahead). */
	int (*create_rw)(kv_fs *fs, const char *path, kv_file **out);
	/* Reads up to n bytes at off; *got < n only at end of file. */
	int (*pread)(kv_file *f, void *buf, size_t n, uint64_t off, size_t *got);
	/* Appends all n bytes (a short write is an error). */
	int (*append)(kv_file *f, const void *buf, size_t n);
	/* Writes all n bytes at off (files from create_rw only). */
	int (*pwrite)(kv_file *f, const void *buf, size_t n, uint64_t off);
	/* fsync (data and metadata needed to read it back). */
	int (*sync)(kv_file *f);
	/* Optional (NULL: none): starts writing back the n bytes at off without
	 * waiting, so a later sync waits for less. A hint only: nothing is
	 * durable until sync returns, and a failure shows there, not here. */
	void (*writeback)(kv_file *f, uint64_t off, uint64_t n);
	/* Cuts the file to size bytes (undoing a failed append). */
	int (*truncate)(kv_file *f, uint64_t size);
	int (*size)(kv_file *f, uint64_t *out);
	void (*close)(kv_file *f);

	int (*rename)(kv_fs *fs, const char *from, const char *to);
	int (*unlink)(kv_fs *fs, const char *path);
	int (*mkdir)(kv_fs *fs, const char *path);
	/* fsyncs a directory so creates, renames and unlinks in it are durable. */
	int (*sync_dir)(kv_fs *fs, const char *path);
	/* Calls fn for each entry name of dir (not "." or ".."); stops when fn
	 * returns non-zero. */
	int (*list)(kv_fs *fs, const char *dir, int (*fn)(void *arg, const char *name), void *arg);
	/* 0 if path exists, ENOENT if not. */
	int (*exists)(kv_fs *fs, const char *path);
};

/* The process-wide POSIX file system (static; never freed). */
kv_fs *kv_fs_posix(void);

#endif /* STRATA_KV_FS_H */
