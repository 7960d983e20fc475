/*
 * bk_int.h — private to the backup files (bk_manifest.c, bk_cells.c, backup.c, restore.c):
 * the backup manifest and the cell files of a backup directory. The format
 * is written down in docs/backup-format.md.
 *
 * Backups use the public kv.h API to read and write cells (raw scans at a
 * timestamp, batches with explicit timestamps) and kv_fs for files, so the
 * same code serves any backend that implements kv.h; the one backend hook
 * is the table set at the backup's point (table_backup_set, kv_int.h).
 */
#ifndef STRATA_KV_BK_INT_H
#define STRATA_KV_BK_INT_H

#include "kv.h"
#include "kv_fs.h"

#define BK_MANIFEST     "BACKUP"
#define BK_MANIFEST_TMP "BACKUP.tmp"
#define BK_CELL_MAGIC   "STRBKC01"
#define BK_BLOCK_RAW    (256u << 10) /* target uncompressed block size */
#define BK_BLOCK_MAX    (256u << 20) /* largest block a reader accepts */
#define BK_CODEC_RAW    0
#define BK_CODEC_ZSTD   1
#define BK_CODEC_END    0xFF

typedef struct bk_table {
	char *name;    /* kv table name (heap) */
	char file[32]; /* cell file inside the backup directory */
	bool full;     /* every kept cell with ts <= ts; else the delta (since, ts] */
	kv_ts from;    /* full: reads at [from, ts] are exact; delta: the parent's ts */
	uint64_t cells, bytes;
	uint32_t crc; /* CRC32C of the whole cell file */
	int nfam;
	kv_family_opts *fams; /* heap */
} bk_table;

typedef struct bk_manifest {
	char id[33];
	bool incremental;
	char parent_id[33];
	char *parent_path; /* as given when the backup was taken (heap; NULL for full) */
	kv_ts ts, since, history_from;
	int64_t created_us;
	int ntables, ctables;
	bk_table *tables;
} bk_manifest;

/* Writes dir/BACKUP atomically (tmp file, fsync, rename, directory fsync). */
kv_status bk_manifest_write(kv_fs *fs, const char *dir, const bk_manifest *m);
/* Reads and checks dir/BACKUP (KV_NOT_FOUND: no manifest; KV_CORRUPTION:
 * bad checksum or syntax). Caller frees with bk_manifest_free(). */
kv_status bk_manifest_read(kv_fs *fs, const char *dir, bk_manifest *m);
void bk_manifest_free(bk_manifest *m);
bk_table *bk_manifest_add(bk_manifest *m, const char *name);
const bk_table *bk_manifest_find(const bk_manifest *m, const char *name);
void bk_manifest_info(const bk_manifest *m, kv_backup_info *out);

/* Cell files: blocks of encoded cells, compressed with zstd, each with a
 * CRC32C, then an end block with the cell count. */
typedef struct bk_writer bk_writer;
kv_status bk_writer_open(kv_fs *fs, const char *path, bk_writer **out);
kv_status bk_writer_add(bk_writer *w, const kv_cell *c);
uint64_t bk_writer_bytes(const bk_writer *w);
/* Writes the end block, syncs, closes and frees the writer. */
kv_status bk_writer_finish(bk_writer *w, uint64_t *cells, uint64_t *bytes, uint32_t *crc);
/* Closes and frees without finishing (the caller removes the file). */
void bk_writer_abort(bk_writer *w);

typedef struct bk_reader bk_reader;
kv_status bk_reader_open(kv_fs *fs, const char *path, bk_reader **out);
/* The next cell (bytes valid until the next call). KV_NOT_FOUND after the
 * last cell, once the end block was checked; KV_CORRUPTION on damage. */
kv_status bk_reader_next(bk_reader *r, kv_cell *c);
/* After KV_NOT_FOUND from next: the file's cell count, size and CRC32C. */
void bk_reader_totals(const bk_reader *r, uint64_t *cells, uint64_t *bytes, uint32_t *crc);
void bk_reader_close(bk_reader *r);

/* dir + "/" + name into buf. */
void bk_path(char *buf, size_t len, const char *dir, const char *name);
/* Unlinks every file in dir (flat: backups and stores have no
 * subdirectories); the directory itself stays. Best effort. */
void bk_remove_files(kv_fs *fs, const char *dir);

#endif /* STRATA_KV_BK_INT_H */
