/* kvt_util.h — helpers shared by the kvstore unit tests: scratch
 * directories, store setup, and small read/write shorthands. */
#ifndef STRATA_KVT_UTIL_H
#define STRATA_KVT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

/* A fresh empty directory under the build tree (or $TMPDIR); caller frees
 * the string; kvt_rmdir removes it and its contents. */
char *kvt_tmpdir(const char *tag);
void kvt_rmdir(const char *path);
/* The end of a test: closes s (unless NULL), removes dir (a kvt_tmpdir)
 * and frees it. */
void kvt_close_rm(kv_store *s, char *dir);
/* Opens a store with options o (NULL: defaults without fsync); NULL, with
 * the status printed, on failure. */
kv_store *kvt_open(const char *dir, const kv_store_opts *o);
/* A store for tests of large batches (sorted, spilled, ingested): batches
 * spill past `spill` bytes, a 1 MiB block cache, no background compaction
 * (the tests count files), no fsync unless fs is given (then every commit
 * syncs through it). NULL on failure, as kvt_open. */
kv_store *kvt_open_spill(const char *dir, kv_fs *fs, size_t spill);
/* The whole file at path (malloc'd, caller frees; *n its size); NULL if it
 * cannot be read. */
uint8_t *kvt_read_file(const char *path, size_t *n);
/* True if both files can be read and hold the same bytes; *n (may be NULL)
 * receives the first one's size. */
bool kvt_same_files(const char *pa, const char *pb, size_t *n);
/* The number of sorted files (*.sst) in the store directory. */
int kvt_count_ssts(const char *dir);
/* The table's live file count (kv_table_get_stats); UINT64_MAX on error. */
uint64_t kvt_file_count(kv_table *t);
/* Cells a full scan of the table at read_ts (0: newest) returns; SIZE_MAX
 * when the scan fails. */
size_t kvt_scan_count(kv_table *t, kv_ts read_ts);
/* The same for a scan with options o. */
size_t kvt_scan_cells(kv_table *t, const kv_scan_opts *o);
/* The row key "r%05d" of row i into b (16 bytes). */
void kvt_rowkey(char *b, int i);
/* Creates a table with the given family names (default options). */
kv_table *kvt_table(kv_store *s, const char *name, int nfam, const char *const *fams);
kv_status kvt_put(kv_store *s, kv_table *t, const char *row, const char *fam, const char *q, kv_ts ts,
		  const char *val);
kv_status kvt_del(kv_store *s, kv_table *t, const char *row, const char *fam, const char *q, kv_ts ts,
		  kv_cell_type type);
/* Value of the newest visible version of a cell into buf ("" + false if none). */
bool kvt_get(kv_table *t, const char *row, const char *fam, const char *q, kv_ts read_ts, char *buf,
	     size_t len);
/* Rows of a scan joined as "r1,r2,..." into buf. */
void kvt_scan_rows(kv_table *t, const kv_scan_opts *o, char *buf, size_t len);

#endif
