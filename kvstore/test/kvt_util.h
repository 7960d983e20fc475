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
kv_store *kvt_open(const char *dir, const kv_store_opts *o);
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
