/*
 * gc.c — garbage collection of index entries through the kv compaction
 * filter hook: while a compaction rewrites an index's files, each entry
 * whose data row no longer yields it (judged at the current read point) is
 * dropped. Entries above the read point belong to unfinished split commits
 * and are kept. Delete markers written by the write protocol are purged by
 * the store's major compaction (with what they hide, once older than the
 * retention window); this filter removes what no marker covers (leftovers
 * of interrupted split commits, entries of rows whose removal raced with a
 * backfill), never a version a marker hides: reads of the past need it.
 *
 * A compaction may still hold the filter's argument after uninstall, so an
 * uninstalled gc object is marked dead and kept (reachable) until exit.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "idx.h"

struct idx_gc {
	pthread_mutex_t mu; /* held while judging; uninstall takes it to mark dead */
	bool dead;
	kv_store *s;
	kv_table *index, *data;
	idx_def def;
	ty_keycol *keys;
	idx_rowmodel model;
	util_arena *a;
	util_buf key, val;
	_Atomic uint64_t dropped;
	struct idx_gc *next_dead;
};

static pthread_mutex_t graveyard_mu = PTHREAD_MUTEX_INITIALIZER;
static idx_gc *graveyard;

static kv_compaction_decision gc_filter(void *arg, const kv_cell *c)
{
	idx_gc *g = arg;
	kv_compaction_decision dec = KV_COMPACT_KEEP;
	pthread_mutex_lock(&g->mu);
	if (g->dead || c->ts > kv_read_point(g->s))
		goto out;
	util_arena_reset(g->a);
	util_arena *old = ty_set_arena(g->a); /* idx_entry_parse's scratch */
	idx_entry e;
	bool parsed = idx_entry_parse(&g->def, c, &e);
	ty_set_arena(old);
	if (!parsed || e.guard)
		goto out;
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.columns = g->model.columns;
	ro.ncolumns = g->model.ncolumns;
	kv_row row;
	kv_status st = kv_get(g->data, e.pk.data, e.pk.len, &ro, g->a, &row);
	bool exists = st == KV_OK && row.n > 0;
	if (st != KV_OK && st != KV_NOT_FOUND)
		goto out;
	bool stale = !exists;
	if (exists && g->model.gc_judge) {
		util_buf_reset(&g->key);
		util_buf_reset(&g->val);
		kv_ts rts = 0;
		bool has = g->model.entry(g->model.arg, row.cells, row.n, &g->key, &g->val, &rts);
		stale = idx_judge(&e, has, g->key.data, g->key.len, rts) == IDX_STALE;
	}
	if (stale) {
		/* Dropping the newest of several versions would expose an older
		 * one (in a file this compaction does not see): only a lone
		 * version goes; read repair masks the others. And only one the
		 * read point sees: a version a delete marker hides was valid
		 * before the marker, and reads as of the past (time travel,
		 * backups as of a moment) within the retention window still
		 * need it; the store's major compaction drops it with its
		 * marker once both are older than the window. */
		kv_read_opts vo;
		memset(&vo, 0, sizeof vo);
		vo.max_versions = 2;
		kv_row versions;
		kv_status vs = kv_get(g->index, e.key.data, e.key.len, &vo, g->a, &versions);
		if (vs == KV_OK && versions.n == 1 && versions.cells[0].ts == c->ts)
			dec = KV_COMPACT_DROP;
	}
out:
	if (dec == KV_COMPACT_DROP)
		g->dropped++;
	pthread_mutex_unlock(&g->mu);
	return dec;
}

idx_gc *idx_gc_install(kv_store *s, const char *index_storage, const char *data_storage, const idx_def *d,
		       const idx_rowmodel *m)
{
	idx_gc *g = util_xcalloc(1, sizeof *g);
	pthread_mutex_init(&g->mu, NULL);
	g->s = s;
	if (kv_table_open(s, index_storage, &g->index) != KV_OK ||
	    kv_table_open(s, data_storage, &g->data) != KV_OK) {
		if (g->index)
			kv_table_close(g->index);
		pthread_mutex_destroy(&g->mu);
		free(g);
		return NULL;
	}
	g->def = *d;
	g->def.kv = g->index;
	g->keys = util_xmalloc(sizeof(ty_keycol) * (size_t)(d->nkeys ? d->nkeys : 1));
	memcpy(g->keys, d->keys, sizeof(ty_keycol) * (size_t)d->nkeys);
	g->def.keys = g->keys;
	g->model = *m;
	g->a = util_arena_new(16 * 1024, 0);
	kv_table_set_compaction_filter(g->index, gc_filter, g);
	return g;
}

void idx_gc_uninstall(idx_gc *g)
{
	if (!g)
		return;
	kv_table_set_compaction_filter(g->index, NULL, NULL);
	pthread_mutex_lock(&g->mu);
	g->dead = true;
	kv_table_close(g->index);
	kv_table_close(g->data);
	g->index = g->data = NULL;
	util_buf_free(&g->key);
	util_buf_free(&g->val);
	util_arena_destroy(g->a);
	g->a = NULL;
	free(g->keys);
	g->keys = NULL;
	pthread_mutex_unlock(&g->mu);
	pthread_mutex_lock(&graveyard_mu);
	g->next_dead = graveyard;
	graveyard = g;
	pthread_mutex_unlock(&graveyard_mu);
}

uint64_t idx_gc_dropped(const idx_gc *g)
{
	return g ? g->dropped : 0;
}
