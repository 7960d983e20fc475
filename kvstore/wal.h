/*
 * wal.h — the write-ahead log: numbered segment files of framed records
 * (docs/wal-format.md), written with group commit: concurrent committers
 * queue their records, one of them (the leader) writes them all with one
 * write and one fsync, the others wait for its result.
 *
 *   record := u32be len | u32be masked CRC32C(len bytes, payload) | payload
 */
#ifndef STRATA_KV_WAL_H
#define STRATA_KV_WAL_H

#include "kv.h"
#include "kv_fs.h"

#define WAL_HEADER     8
#define WAL_MAX_RECORD (256u << 20)

typedef struct kv_wal kv_wal;

/* Allocates the number of the next segment file when the log rolls. */
typedef uint64_t (*wal_next_fn)(void *arg);

/* Creates segment seg in dir and opens it for appending. */
kv_status wal_open(kv_fs *fs, const char *dir, uint64_t seg, size_t seg_bytes, wal_next_fn next, void *arg,
		   kv_wal **out);
void wal_close(kv_wal *w);
/* Appends one record; with sync, returns only after an fsync covering it.
 * *seg receives the segment the record went to. After an fsync failure
 * every call returns KV_READ_ONLY. */
kv_status wal_write(kv_wal *w, const uint8_t *payload, size_t len, bool sync, uint64_t *seg);
/* fsyncs what was written (periodic durability). */
kv_status wal_sync(kv_wal *w);
uint64_t wal_current_seg(kv_wal *w);
bool wal_failed(kv_wal *w);
void wal_stats(kv_wal *w, uint64_t *bytes, uint64_t *syncs);
/* How many bytes of the current segment are zero-filled and synced. */
uint64_t wal_zeroed(kv_wal *w);

/* Path of segment n in dir (buf of at least len bytes). */
void wal_seg_path(char *buf, size_t len, const char *dir, uint64_t n);

/* Replays the records of one segment through fn (payload valid during the
 * call; fn returns a status, non-OK stops). A damaged record with nothing
 * valid after it is a torn tail: the end of the log, reported through
 * *valid_end. A damaged record followed by a valid one is KV_CORRUPTION. */
kv_status wal_replay(kv_fs *fs, const char *path, kv_status (*fn)(void *arg, const uint8_t *p, size_t n),
		     void *arg, uint64_t *valid_end, uint64_t *file_size);

#endif /* STRATA_KV_WAL_H */
