/*
 * idx_int.h — what the files of index/ share privately: which cells a row
 * model looks at, and the bulk build of backfill.c (bulk.c).
 */
#ifndef STRATA_IDX_INT_H
#define STRATA_IDX_INT_H

#include <string.h>

#include "idx.h"

/* Whether the model looks at this cell. */
static inline bool idx_model_wants(const idx_rowmodel *m, const kv_cell *c)
{
	if (!m->needs)
		return true;
	for (int i = 0; i < m->nneeds; i++) {
		const kv_column *k = &m->needs[i];
		if (k->qlen == c->qualifier.len &&
		    (!k->qlen || !memcmp(k->qualifier, c->qualifier.data, k->qlen)))
			return true;
	}
	return false;
}

/*
 * The bulk build (bulk.c) of a non-unique index that writers do not
 * maintain yet (o->caught_up_later): every row read at one snapshot, the
 * entries sorted in memory and committed as one ingest of sorted files.
 * With o->model2, half the key range is read on a second thread.
 * Same contract as idx_backfill.
 */
kv_status idx_bulk_build(kv_table *data, const idx_def *d, const idx_rowmodel *m, const idx_backfill_opts *o,
			 uint64_t *rows_done, util_err *err);

#endif /* STRATA_IDX_INT_H */
