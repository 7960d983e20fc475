/*
 * mem.h — the memstore: a concurrent skiplist in a private arena holding
 * recent cells of one kv table (all families), until flushed.
 *
 * One writer at a time (the caller serialises inserts, see table apply_mu);
 * any number of readers without locks. Entries with identical ikeys are
 * ordered newest commit first, so a later write of the same cell wins.
 */
#ifndef STRATA_KV_MEM_H
#define STRATA_KV_MEM_H

#include <stdatomic.h>

#include "iter.h"

typedef struct kv_mem kv_mem;

kv_mem *mem_new(void); /* refs = 1 */
/* False if no entry of the row can be in the memstore (a row bloom filter
 * built once the memstore passes 1 MiB; point reads skip the memstore). */
bool mem_may_have_row(const kv_mem *m, const void *row, size_t rlen);
void mem_ref(kv_mem *m);
void mem_unref(kv_mem *m);

/* Inserts a copy of key/value. REQUIRES: caller holds the writer lock.
 * Returns KV_NO_MEMORY if the arena cannot grow. */
kv_status mem_add(kv_mem *m, const uint8_t *key, size_t klen, const void *val, size_t vlen, kv_ts commit_ts,
		  uint64_t wal_seg);
/* The same, building the key from its parts in place (no copy). */
kv_status mem_add_cell(kv_mem *m, const void *row, size_t rlen, const void *fam, size_t flen, const void *q,
		       size_t qlen, kv_ts ts, uint8_t type, const void *val, size_t vlen, kv_ts commit_ts,
		       uint64_t wal_seg);
size_t mem_bytes(const kv_mem *m);
uint64_t mem_count(const kv_mem *m);
/* False until a family-wide marker (DeleteFamily, DeleteFamilyVersion) is
 * inserted: scans then need not walk the empty-qualifier column, where such
 * markers live, past the versions they show. A reader that sees a marker's
 * entry sees this true. */
bool mem_has_family_markers(const kv_mem *m);
/* Oldest WAL segment holding an entry of this memstore (UINT64_MAX if empty). */
uint64_t mem_min_seg(const kv_mem *m);
kv_ts mem_max_commit_ts(const kv_mem *m);
/* Late cells: cells whose ts is below the commit timestamp of the batch
 * that wrote them (explicit older timestamps: index read repairs and
 * backfills). *cts: the newest commit that wrote one (0: none); *min_ts:
 * the oldest such cell's ts. Incremental backups copy these whatever their
 * ts (backup.c, table_late_floor). */
void mem_late(const kv_mem *m, kv_ts *min_ts, kv_ts *cts);
/* Frozen memstores take the commits with ts <= their cutoff (set at
 * freeze; KV_TS_MAX while active), so a flush holds exactly the commits up
 * to a timestamp. */
void mem_set_cutoff(kv_mem *m, kv_ts cutoff);
kv_ts mem_cutoff(const kv_mem *m);

/* A source over the memstore; entries with commit_ts > read_ts are skipped
 * (read_ts == KV_TS_MAX: everything applied). Holds a reference. Caller
 * closes with src_close(). */
kv_src *mem_iter_new(kv_mem *m, kv_ts read_ts);
/* A source over the entries of commits newer than `after` (every applied
 * one), for conflict checks of large commits. */
kv_src *mem_iter_since(kv_mem *m, kv_ts after);

#endif /* STRATA_KV_MEM_H */
