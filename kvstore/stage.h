/*
 * stage.h — the spilled part of a large batch (stage.c), its merge at
 * commit (stage_merge.c) and what a large commit (ingest.c) needs of it:
 * sorted files in the store directory, one per (kv table, family, kind)
 * and spill ("run"), not listed in the manifest until the commit adds
 * them. Kind: cells written at the commit
 * timestamp (KV_TS_LATEST) are stored with timestamp 0 and become the
 * commit timestamp when the file is ingested (its global timestamp, see
 * docs/file-format.md); cells with explicit timestamps keep theirs.
 */
#ifndef STRATA_KV_STAGE_H
#define STRATA_KV_STAGE_H

#include "kv_int.h"

typedef struct stfile {
	kv_table *t; /* borrowed: the caller keeps its tables open until commit */
	uint32_t tid;
	char fam[32];
	bool gts; /* timestamps are the placeholder 0 (global-timestamp file) */
	int run;  /* spill sequence number: later runs win on identical cells */
	bool raw; /* written uncompressed, to be merged (stage.c run_merges) */
	uint64_t number;
	sst_props props;
	sst_reader *rd; /* opened by ingest.c for conflict checks */
	kv_src *it;     /* its iterator (probes) */
} stfile;

struct bstage {
	stfile *f;
	int n, cap;
	int runs;
	/* The sort entries of the last spill, kept for the next one: a load
	 * spills every 64 MiB, and fresh memory each time cost page faults. */
	void *sents;
	size_t sents_cap;
	/* The run being streamed (kv_batch_sorted): open writer, its file,
	 * and the last key written (order check). */
	sst_writer *sw;
	stfile scur;
	int sfi; /* scur's family as an index into the batch's fams (no strcmp per cell) */
	util_buf skey, slast;
	size_t scells; /* written to the streamed run */
};

/* At most this many runs of a group are kept apart: more would bring the
 * table near the write stall (KV_STALL_FILES) with files that a minor
 * compaction leaves alone (compact.c), so a bigger load merges as before. */
#define STAGE_MAX_APART 8

/* Removes run or table file `number` from the store directory. */
void stage_unlink_file(kv_store *s, uint64_t number);

/* Copies the options of family `fam` of t into *out (false if it has
 * none). */
bool stage_family_opts(kv_table *t, const char *fam, kv_family_opts *out);

/* Merges the runs of each (table, family, kind) into one file with the
 * family's options (two key-disjoint files, merged on two threads, when
 * the runs hold at least stage_split_bytes) and fsyncs every remaining
 * file. On failure the stage is left for stage_free(). */
kv_status stage_finish(kv_store *s, bstage *st);

/* Run bytes from which a group is merged on two threads (16 MiB; tests
 * lower it; the environment's STRATA_STAGE_SPLIT_BYTES overrides it, e.g.
 * a huge number to keep one file, for benchmarks). */
extern size_t stage_split_bytes;

/* Runs to be merged at commit are written uncompressed (true; tests turn
 * it off, and so does STRATA_STAGE_RUNS_COMPRESSED=1, for benchmarks). */
extern bool stage_raw_runs;

#endif /* STRATA_KV_STAGE_H */
