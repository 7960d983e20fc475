/*
 * kv_fault.h — a fault-injecting kv_fs for tests (LevelDB's fault
 * injection env, SQLite's crash VFS): wraps another fs, fails chosen
 * operations with a chosen errno, and simulates a machine crash by throwing
 * away everything not made durable by fsync (file data past the last fsync,
 * files created since the last directory fsync), optionally leaving a torn
 * piece of the unsynced data behind.
 *
 * Usage: f = kv_fault_fs_new(kv_fs_posix()); opts.fs = kv_fault_fs_get(f);
 * open the store; kv_fault_set(f, KV_FAULT_SYNC, EIO, 0) ...;
 * kv_fault_kill(f) (every later operation fails, as if the process died);
 * kv_store_close(); kv_fault_crash(f, seed, torn); kv_fault_revive(f);
 * reopen. Thread-safe.
 */
#ifndef STRATA_KV_FAULT_H
#define STRATA_KV_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "kv_fs.h"

typedef struct kv_fault_fs kv_fault_fs;

enum {
	KV_FAULT_WRITE = 1 << 0, /* append */
	KV_FAULT_SYNC = 1 << 1,  /* fsync of files and directories */
	KV_FAULT_READ = 1 << 2,  /* pread */
	KV_FAULT_OPEN = 1 << 3,  /* open_read, open_write */
	KV_FAULT_META = 1 << 4,  /* rename, unlink, mkdir */
	KV_FAULT_TRUNCATE = 1 << 5,
};

/* Wraps base (borrowed). Caller frees with kv_fault_fs_free() after every
 * store using it is closed. */
kv_fault_fs *kv_fault_fs_new(kv_fs *base);
void kv_fault_fs_free(kv_fault_fs *f);
kv_fs *kv_fault_fs_get(kv_fault_fs *f);

/* Operations in `ops` fail with errno `err` after `after` more successful
 * ones (0: the next one), until kv_fault_clear(). Path filter: only paths
 * containing `match` (NULL: all). */
void kv_fault_set(kv_fault_fs *f, int ops, int err, uint64_t after, const char *match);
void kv_fault_clear(kv_fault_fs *f);
/* Number of operations that were made to fail. */
uint64_t kv_fault_injected(kv_fault_fs *f);
/* Counts operations (all kinds) passed to the base fs so far. */
uint64_t kv_fault_ops(kv_fault_fs *f);
/* From now on every operation fails with EIO (the process "died"). */
void kv_fault_kill(kv_fault_fs *f);
/* Kills after n more operations (a crash at a chosen point). */
void kv_fault_kill_after(kv_fault_fs *f, uint64_t n);
void kv_fault_revive(kv_fault_fs *f);
/* Drops all data not made durable (see the top comment). With torn, a
 * random part of each file's unsynced tail survives, possibly followed by
 * garbage bytes. REQUIRES: no open files (close the store first). */
void kv_fault_crash(kv_fault_fs *f, unsigned seed, bool torn);
/* Flips bits (xor mask) of one byte of a file; 0 or errno. */
int kv_fault_flip(const char *path, uint64_t off, uint8_t mask);

#endif /* STRATA_KV_FAULT_H */
