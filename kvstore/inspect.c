/*
 * inspect.c — read-only views of a table's state for monitoring (the SQL
 * views strata_files and strata_compactions): its sorted files and whether
 * a flush or compaction is under way.
 */
#include "kv_int.h"

#include <stdlib.h>
#include <string.h>

kv_status kv_table_files(kv_table *t, kv_file_info **out, int *n)
{
	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&t->mu);
	int total = 0;
	for (int i = 0; i < t->v->nfam; i++)
		total += t->v->fams[i].n;
	kv_file_info *fi = calloc((size_t)(total ? total : 1), sizeof *fi);
	if (!fi) {
		pthread_mutex_unlock(&t->mu);
		return kv_fail(KV_NO_MEMORY, "out of memory listing files");
	}
	int k = 0;
	for (int i = 0; i < t->v->nfam; i++) {
		for (int j = 0; j < t->v->fams[i].n; j++) {
			const man_file *m = &t->v->fams[i].files[j]->m;
			memcpy(fi[k].family, t->v->fams[i].family, sizeof fi[k].family);
			fi[k].number = m->number;
			fi[k].size = m->size;
			fi[k].entries = m->entries;
			fi[k].deletes = m->deletes;
			fi[k].min_ts = m->min_ts;
			fi[k].max_ts = m->max_ts;
			k++;
		}
	}
	pthread_mutex_unlock(&t->mu);
	*out = fi;
	*n = k;
	return KV_OK;
}

void kv_table_get_activity(kv_table *t, kv_table_activity *out)
{
	memset(out, 0, sizeof *out);
	pthread_mutex_lock(&t->s->bg_mu);
	out->flush_queued = t->flush_queued;
	pthread_mutex_unlock(&t->s->bg_mu);
	pthread_mutex_lock(&t->mu);
	out->compacting = t->compacting;
	out->frozen_memstores = t->nimm;
	out->flushed_ts = t->flushed_ts;
	pthread_mutex_unlock(&t->mu);
}
