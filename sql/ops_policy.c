/*
 * ops_policy.c — table policies: a table's storage options given as
 * reloptions (CREATE TABLE ... WITH (...), ALTER TABLE ... SET (...)) become
 * the kv family options of its storage and of its indexes' storages:
 *
 *   versions            max_versions       versions kept per cell
 *   min_versions        min_versions       kept even when expired by ttl
 *   ttl                 ttl_seconds        cells older than this are hidden,
 *                                          then dropped by compactions
 *   keep_deleted_cells  keep_deleted_cells deleted cells stay for time travel
 *   compression         compression_level  none | zstd | zstd:LEVEL
 *   bloom_filter        bloom              none | row | rowcol
 *   block_size          block_size         bytes per sorted-file block
 *   retention           retention_seconds  time-travel window (default: the
 *                                          server's history_retention)
 *
 * The catalog is the source of truth: after every DDL commit the storages
 * of relations that changed are brought in line, at startup all of them;
 * then and before every backup the store's own tables (catalog, sequences,
 * statistics) get the default retention.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

static bool opt_true(const char *v)
{
	return !util_strcasecmp(v, "true") || !util_strcasecmp(v, "on") || !strcmp(v, "1") ||
	       !util_strcasecmp(v, "yes");
}

static void apply_option(kv_family_opts *f, const char *name, const char *v)
{
	long long x = atoll(v);
	if (!strcmp(name, "versions") && x >= 1)
		f->max_versions = (int)x;
	else if (!strcmp(name, "min_versions") && x >= 0)
		f->min_versions = (int)x;
	else if (!strcmp(name, "ttl") && x >= 0)
		f->ttl_seconds = x;
	else if (!strcmp(name, "keep_deleted_cells"))
		f->keep_deleted_cells = opt_true(v);
	else if (!strcmp(name, "retention") && x >= 0)
		f->retention_seconds = x;
	else if (!strcmp(name, "block_size") && x >= 1024 && x <= (16 << 20))
		f->block_size = (uint32_t)x;
	else if (!strcmp(name, "bloom_filter"))
		f->bloom = !util_strcasecmp(v, "none")     ? KV_BLOOM_NONE
			   : !util_strcasecmp(v, "rowcol") ? KV_BLOOM_ROWCOL
							   : KV_BLOOM_ROW;
	else if (!strcmp(name, "compression")) {
		if (!util_strcasecmp(v, "none"))
			f->compression_level = 0;
		else if (!strncmp(v, "zstd:", 5))
			f->compression_level = atoi(v + 5) >= 1 && atoi(v + 5) <= 19 ? atoi(v + 5) : 3;
		else
			f->compression_level = 3;
	}
}

void sql_policy_family_opts(sql_engine *e, cat_snap *cs, const cat_obj *rel, const char *name,
			    kv_family_opts *out)
{
	kv_family_opts_default(out, name);
	out->retention_seconds = e->opts.history_retention_s;
	const cat_rel *r = &rel->rel;
	if (r->relkind == CAT_RELKIND_INDEX && r->index) {
		const cat_obj *t = cs ? cat_get(cs, r->index->table) : NULL;
		if (t)
			r = &t->rel;
	}
	for (int i = 0; i < r->nopts; i++)
		apply_option(out, r->opts[i].name, r->opts[i].value);
	if (out->min_versions > out->max_versions)
		out->min_versions = out->max_versions;
}

static bool same_policy(const kv_family_opts *a, const kv_family_opts *b)
{
	return a->max_versions == b->max_versions && a->min_versions == b->min_versions &&
	       a->ttl_seconds == b->ttl_seconds && a->keep_deleted_cells == b->keep_deleted_cells &&
	       a->compression_level == b->compression_level && a->bloom == b->bloom &&
	       a->block_size == b->block_size && a->retention_seconds == b->retention_seconds;
}

/* Sets every family of kv table `storage` to `want(name)`. */
static void apply_storage(sql_engine *e, const char *storage, cat_snap *cs, const cat_obj *rel)
{
	kv_family_opts cur[16];
	int n = 0;
	if (kv_table_families(e->kv, storage, cur, 16, &n) != KV_OK)
		return; /* created later, or dropped meanwhile */
	for (int i = 0; i < n && i < 16; i++) {
		kv_family_opts want;
		if (rel) {
			sql_policy_family_opts(e, cs, rel, cur[i].name, &want);
		} else { /* the store's own tables: only the retention */
			want = cur[i];
			want.retention_seconds = e->opts.history_retention_s;
		}
		if (same_policy(&cur[i], &want))
			continue;
		kv_status st = kv_table_alter_family(e->kv, storage, &want, false);
		if (st != KV_OK)
			util_warn("could not apply the options of kv table %s: %s", storage, kv_errmsg());
		else
			util_debug(
			    "kv table %s family %s: versions=%d min_versions=%d ttl=%lld keep_deleted=%d "
			    "compression=%d bloom=%d block_size=%u retention=%lld",
			    storage, want.name, want.max_versions, want.min_versions,
			    (long long)want.ttl_seconds, want.keep_deleted_cells, want.compression_level,
			    want.bloom, want.block_size, (long long)want.retention_seconds);
	}
}

typedef struct sync_ctx {
	sql_engine *e;
	cat_snap *cs, *before;
	util_map owned; /* storage names of relations */
} sync_ctx;

static int sync_rel(void *arg, const cat_obj *o)
{
	sync_ctx *c = arg;
	if (o->kind != CAT_REL || !o->rel.storage[0])
		return 0;
	util_map_puts(&c->owned, o->rel.storage, (void *)o);
	bool changed = !c->before || cat_get(c->before, o->oid) != o;
	if (!changed && o->rel.relkind == CAT_RELKIND_INDEX && o->rel.index)
		changed = cat_get(c->before, o->rel.index->table) != cat_get(c->cs, o->rel.index->table);
	if (changed)
		apply_storage(c->e, o->rel.storage, c->cs, o);
	return 0;
}

static int sync_unowned(void *arg, const char *name)
{
	sync_ctx *c = arg;
	if (!util_map_gets(&c->owned, name))
		apply_storage(c->e, name, NULL, NULL);
	return 0;
}

void sql_policy_sync(sql_engine *e, cat_snap *before)
{
	sync_ctx c = {e, cat_current(e->cat), before, UTIL_MAP_INIT};
	cat_foreach(c.cs, CAT_REL, 0, sync_rel, &c);
	/* The store's own tables (catalog, sequences, statistics, created
	 * lazily by other modules) get the default retention. */
	kv_table_list(e->kv, sync_unowned, &c);
	util_map_free(&c.owned);
	cat_snap_release(c.cs);
}
