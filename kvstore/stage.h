/*
 * stage.h — the spilled part of a large batch (stage.c) and what a large
 * commit (ingest.c) needs of it: sorted files in the store directory, one
 * per (kv table, family, kind) and spill ("run"), not listed in the
 * manifest until the commit adds them. Kind: cells written at the commit
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

/* Merges the runs of each (table, family, kind) into one file with the
 * family's options and fsyncs every remaining file. On failure the stage
 * is left for stage_free(). */
kv_status stage_finish(kv_store *s, bstage *st);

#endif /* STRATA_KV_STAGE_H */
