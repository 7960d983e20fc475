/*
 * manifest.h — the store's catalogue of kv tables, families and live sorted
 * files, kept as an edit log (MANIFEST-n, records framed like the WAL) that
 * starts with a snapshot; CURRENT names the live manifest. A new manifest
 * is written in full, fsynced, then CURRENT is replaced by rename and the
 * directory fsynced, so a crash at any point leaves one consistent set.
 * Format: docs/file-format.md.
 */
#ifndef STRATA_KV_MANIFEST_H
#define STRATA_KV_MANIFEST_H

#include "kv.h"
#include "kv_fs.h"

enum {
	MAN_NEXT_FILE = 1,
	MAN_LAST_TS = 2,
	MAN_WAL_FLOOR = 3,
	MAN_NEXT_TABLE = 4,
	MAN_ADD_TABLE = 5,
	MAN_DROP_TABLE = 6,
	MAN_SET_FAMILY = 7,
	MAN_DROP_FAMILY = 8,
	MAN_ADD_FILE = 9,
	MAN_DEL_FILE = 10,
	MAN_TABLE_FLUSHED = 11,
	MAN_FILE_GTS = 12,  /* follows the MAN_ADD_FILE of a file with a global timestamp */
	MAN_FILE_LATE = 13, /* follows the MAN_ADD_FILE of a file holding late cells */
};

typedef struct man_file {
	uint32_t table_id;
	char family[32];
	uint64_t number, size, entries, deletes;
	kv_ts min_ts, max_ts;
	uint64_t seq; /* age: newer files have larger seq (flush cutoff ts, commit ts) */
	kv_ts gts;    /* global timestamp of an ingested file's ts-0 keys (0: none) */
	/* Late cells (ts below their commit's timestamp, mem_late): the newest
	 * commit that wrote one and the oldest such ts (late_cts 0: none). */
	kv_ts late_cts, late_min;
	uint8_t *smallest, *largest;
	size_t slen, llen;
	bool live;
} man_file;

typedef struct man_table {
	uint32_t id;
	char *name;
	kv_family_opts *fams;
	int nfam;
	kv_ts flushed_ts;
	bool live;
} man_table;

typedef struct man_state {
	man_table *tables;
	size_t ntables;
	man_file *files;
	size_t nfiles;
	uint64_t next_file;
	kv_ts last_ts;
	uint64_t wal_floor;
	uint32_t next_table;
} man_state;

void man_state_free(man_state *m);
/* Applies one edit record; KV_CORRUPTION if malformed. */
kv_status man_apply(man_state *m, const uint8_t *p, size_t n);
/* Reads CURRENT and replays the manifest it names. KV_NOT_FOUND if there is
 * no CURRENT (a new store). *number receives the manifest's number. */
kv_status man_load(kv_fs *fs, const char *dir, man_state *m, uint64_t *number);

/* Edit encoding (append to an edit buffer). */
void me_u64(util_buf *b, int tag, uint64_t v);
void me_add_table(util_buf *b, uint32_t id, const char *name, const kv_family_opts *fams, int n);
void me_drop_table(util_buf *b, uint32_t id);
void me_set_family(util_buf *b, uint32_t id, const kv_family_opts *fo);
void me_drop_family(util_buf *b, uint32_t id, const char *name);
void me_add_file(util_buf *b, const man_file *f);
void me_del_file(util_buf *b, uint32_t tid, const char *fam, uint64_t number);
void me_table_flushed(util_buf *b, uint32_t tid, kv_ts ts);

typedef struct man_writer man_writer;
/* Writes MANIFEST-number holding `snapshot`, then points CURRENT at it. */
kv_status man_writer_create(kv_fs *fs, const char *dir, uint64_t number, const util_buf *snapshot,
			    man_writer **out);
/* Appends one edit and fsyncs it. */
kv_status man_writer_append(man_writer *w, const util_buf *edit);
uint64_t man_writer_size(const man_writer *w);
uint64_t man_writer_number(const man_writer *w);
void man_writer_close(man_writer *w);

#endif /* STRATA_KV_MANIFEST_H */
