/* table.c — kv tables: create/drop/alter/list with manifest edits, handles,
 * superversions and file-set versions, stats and maintenance entry points. */
#include <ctype.h>
#include <stdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "kv_int.h"

void kv_family_opts_default(kv_family_opts *o, const char *name)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->name, sizeof(o->name), "%s", name ? name : "");
	o->max_versions = 1;
	o->min_versions = 0;
	o->compression_level = 3;
	o->bloom = KV_BLOOM_ROW;
	o->block_size = 16 * 1024;
}

/* ---------------------------------------------------------------- files, versions, superversions */

void sfile_ref(kv_sfile *f)
{
	atomic_fetch_add(&f->refs, 1);
}

/* Open-file LRU helpers (store->ofc_mu held). */
static void lru_unlink(kv_store *s, kv_sfile *f)
{
	if (!f->in_lru)
		return;
	f->lprev->lnext = f->lnext;
	f->lnext->lprev = f->lprev;
	f->in_lru = false;
	s->ofc_count--;
}

static void lru_front(kv_store *s, kv_sfile *f)
{
	lru_unlink(s, f);
	f->lnext = s->ofc.lnext;
	f->lprev = &s->ofc;
	s->ofc.lnext->lprev = f;
	s->ofc.lnext = f;
	f->in_lru = true;
	s->ofc_count++;
}

/* Closes readers of the least recently used files over max_open_files.
 * Iterators keep their own reader references, so this is always safe. */
static void lru_trim(kv_store *s)
{
	for (;;) {
		pthread_mutex_lock(&s->ofc_mu);
		if (s->ofc_count <= s->o.max_open_files || s->ofc.lprev == &s->ofc) {
			pthread_mutex_unlock(&s->ofc_mu);
			return;
		}
		kv_sfile *g = s->ofc.lprev;
		lru_unlink(s, g);
		/* Pin g unless it is already being destroyed. */
		int r = atomic_load(&g->refs);
		bool pinned = false;
		while (r > 0 && !(pinned = atomic_compare_exchange_weak(&g->refs, &r, r + 1)))
			;
		pthread_mutex_unlock(&s->ofc_mu);
		if (!pinned)
			continue;
		pthread_mutex_lock(&g->open_mu);
		sst_reader *rd = g->rd;
		g->rd = NULL;
		pthread_mutex_unlock(&g->open_mu);
		if (rd)
			sst_unref(rd);
		sfile_unref(g);
	}
}

void sfile_unref(kv_sfile *f)
{
	if (!f || atomic_fetch_sub(&f->refs, 1) != 1)
		return;
	pthread_mutex_lock(&f->s->ofc_mu);
	lru_unlink(f->s, f);
	pthread_mutex_unlock(&f->s->ofc_mu);
	if (f->rd)
		sst_unref(f->rd);
	if (atomic_load(&f->obsolete)) {
		char path[4096];
		store_file_path(f->s, f->m.number, "sst", path, sizeof(path));
		f->s->fs->unlink(f->s->fs, path);
		if (f->s->cache)
			cache_erase_file(f->s->cache, f->m.number);
	}
	free(f->m.smallest);
	free(f->m.largest);
	pthread_mutex_destroy(&f->open_mu);
	free(f);
}

kv_status sfile_reader(kv_sfile *f, sst_reader **out)
{
	pthread_mutex_lock(&f->open_mu);
	if (!f->rd) {
		char path[4096];
		store_file_path(f->s, f->m.number, "sst", path, sizeof(path));
		kv_status st = sst_open_ts(f->s->fs, path, f->m.number, f->s->cache, f->m.gts, &f->rd);
		if (st) {
			pthread_mutex_unlock(&f->open_mu);
			return st;
		}
	}
	sst_ref(f->rd);
	*out = f->rd;
	pthread_mutex_unlock(&f->open_mu);
	kv_store *s = f->s;
	/* Far from the limit, recency does not matter: skip the global lock. */
	if (f->in_lru && atomic_load(&s->ofc_count) < s->o.max_open_files / 2)
		return KV_OK;
	pthread_mutex_lock(&s->ofc_mu);
	if (s->ofc.lnext != f)
		lru_front(s, f);
	bool over = s->ofc_count > s->o.max_open_files;
	pthread_mutex_unlock(&s->ofc_mu);
	if (over)
		lru_trim(s);
	return KV_OK;
}

void version_unref(kv_version *v)
{
	if (!v || atomic_fetch_sub(&v->refs, 1) != 1)
		return;
	for (int i = 0; i < v->nfam; i++) {
		for (int j = 0; j < v->fams[i].n; j++)
			sfile_unref(v->fams[i].files[j]);
		free(v->fams[i].files);
	}
	free(v->fams);
	free(v);
}

kv_fileset *version_family(kv_version *v, const char *fam, size_t flen)
{
	for (int i = 0; i < v->nfam; i++)
		if (strlen(v->fams[i].family) == flen && !memcmp(v->fams[i].family, fam, flen))
			return &v->fams[i];
	return NULL;
}

void sv_unref(kv_sv *sv)
{
	if (!sv || atomic_fetch_sub(&sv->refs, 1) != 1)
		return;
	mem_unref(sv->mem);
	for (int i = 0; i < sv->nimm; i++)
		mem_unref(sv->imm[i]);
	free(sv->imm);
	version_unref(sv->v);
	free(sv->fams);
	free(sv);
}

const kv_family_opts *sv_family(const kv_sv *sv, const uint8_t *name, size_t len)
{
	for (int i = 0; i < sv->nfam; i++)
		if (strlen(sv->fams[i].name) == len && !memcmp(sv->fams[i].name, name, len))
			return &sv->fams[i];
	return NULL;
}

kv_sv *table_sv(kv_table *t)
{
	pthread_mutex_lock(&t->mu);
	kv_sv *sv = t->sv;
	atomic_fetch_add(&sv->refs, 1);
	pthread_mutex_unlock(&t->mu);
	return sv;
}

void table_install_sv(kv_table *t)
{
	kv_sv *sv = util_xcalloc(1, sizeof(*sv));
	atomic_init(&sv->refs, 1);
	sv->seq = svl_next_seq();
	sv->mem = t->mem;
	mem_ref(sv->mem);
	sv->nimm = t->nimm;
	sv->imm = util_xcalloc((size_t)(t->nimm ? t->nimm : 1), sizeof(kv_mem *));
	for (int i = 0; i < t->nimm; i++) {
		sv->imm[i] = t->imm[i];
		mem_ref(sv->imm[i]);
	}
	sv->v = t->v;
	atomic_fetch_add(&sv->v->refs, 1);
	sv->nfam = t->nfam;
	sv->fams = util_xcalloc((size_t)(t->nfam ? t->nfam : 1), sizeof(kv_family_opts));
	memcpy(sv->fams, t->fams, sizeof(kv_family_opts) * (size_t)t->nfam);
	kv_sv *old = t->sv;
	t->sv = sv;
	atomic_store(&t->sv_seq, sv->seq);
	sv_unref(old);
	if (old)
		svl_scrape();
	/* Without compaction threads nothing would bring the count down. */
	bool many = false;
	for (int i = 0; i < t->v->nfam && t->s->o.compaction_threads >= 0; i++)
		many |= t->v->fams[i].n >= KV_STALL_FILES;
	atomic_store(&t->too_many_files, many);
}

static kv_version *version_empty(void)
{
	kv_version *v = util_xcalloc(1, sizeof(*v));
	atomic_init(&v->refs, 1);
	return v;
}

kv_table *table_new(kv_store *s, uint32_t id, const char *name, const kv_family_opts *fams, int nfam)
{
	kv_table *t = util_xcalloc(1, sizeof(*t));
	t->s = s;
	atomic_init(&t->refs, 1);
	t->id = id;
	t->name = util_xstrdup(name);
	pthread_mutex_init(&t->flush_mu, NULL);
	pthread_mutex_init(&t->apply_mu, NULL);
	pthread_mutex_init(&t->mu, NULL);
	t->nfam = nfam;
	t->fams = util_xcalloc((size_t)(nfam ? nfam : 1), sizeof(kv_family_opts));
	memcpy(t->fams, fams, sizeof(kv_family_opts) * (size_t)nfam);
	t->mem = mem_new();
	UTIL_ASSERT(t->mem, "out of memory creating a memstore");
	t->v = version_empty();
	table_install_sv(t);
	table_publish_families(t);
	return t;
}

void table_unref(kv_table *t)
{
	if (!t || atomic_fetch_sub(&t->refs, 1) != 1)
		return;
	svl_scrape(); /* no thread keeps this table's superversions */
	sv_unref(t->sv);
	mem_unref(t->mem);
	for (int i = 0; i < t->nimm; i++)
		mem_unref(t->imm[i]);
	free(t->imm);
	version_unref(t->v);
	free(t->fams);
	free(t->edens);
	free(t->name);
	famnames *f = atomic_load(&t->fnames);
	while (f) {
		famnames *o = f->older;
		free(f);
		f = o;
	}
	while (t->retired) {
		famnames *o = t->retired->older;
		free(t->retired);
		t->retired = o;
	}
	pthread_mutex_destroy(&t->flush_mu);
	pthread_mutex_destroy(&t->apply_mu);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

kv_mem *table_target_mem(kv_table *t, kv_ts cts)
{
	/* imm is newest first; the oldest memstore whose cutoff covers cts. */
	for (int i = t->nimm - 1; i >= 0; i--)
		if (cts <= mem_cutoff(t->imm[i]))
			return t->imm[i];
	return t->mem;
}

void table_publish_families(kv_table *t)
{
	famnames *f = util_xcalloc(1, sizeof(famnames) + (size_t)(t->nfam ? t->nfam : 1) * 32);
	f->n = t->nfam;
	for (int i = 0; i < t->nfam; i++)
		memcpy(f->names[i], t->fams[i].name, 32);
	famnames *old = atomic_exchange(&t->fnames, f);
	if (old) {
		/* Readers may still look at it: keep it until the table goes. */
		old->older = t->retired;
		t->retired = old;
	}
}

bool table_has_family(kv_table *t, const char *fam)
{
	famnames *f = atomic_load(&t->fnames);
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->names[i], fam))
			return true;
	return false;
}

/* ---------------------------------------------------------------- validation */

kv_status table_check_name(const char *name)
{
	if (!name || !name[0] || strlen(name) > 255)
		return kv_fail(KV_INVALID, "bad kv table name");
	for (const char *p = name; *p; p++)
		if (!isprint((unsigned char)*p))
			return kv_fail(KV_INVALID, "kv table name has unprintable characters");
	return KV_OK;
}

kv_status table_check_family(const kv_family_opts *f)
{
	size_t n = strnlen(f->name, sizeof(f->name));
	if (n == 0 || n > IKEY_FAM_MAX)
		return kv_fail(KV_INVALID, "bad family name");
	for (size_t i = 0; i < n; i++)
		if (!isprint((unsigned char)f->name[i]))
			return kv_fail(KV_INVALID, "family name has unprintable characters");
	if (f->max_versions < 1 || f->min_versions < 0 || f->ttl_seconds < 0 || f->retention_seconds < 0 ||
	    f->compression_level < 0 || f->compression_level > 19 || (unsigned)f->bloom > KV_BLOOM_ROWCOL ||
	    f->block_size < 512 || f->block_size > (16u << 20))
		return kv_fail(KV_INVALID, "bad options for family %s", f->name);
	return KV_OK;
}

static kv_table *find_name(kv_store *s, const char *name, int *idx)
{
	for (int i = 0; i < s->ntables; i++) {
		if (!strcmp(s->tables[i]->name, name)) {
			if (idx)
				*idx = i;
			return s->tables[i];
		}
	}
	return NULL;
}

kv_table *store_find_id(kv_store *s, uint32_t id)
{
	for (int i = 0; i < s->ntables; i++)
		if (s->tables[i]->id == id)
			return s->tables[i];
	return NULL;
}

/* ---------------------------------------------------------------- DDL */

kv_status kv_table_create(kv_store *s, const char *name, const kv_family_opts *fams, int nfams)
{
	if (s->etcd)
		return ekv_table_create(s, name, fams, nfams);
	kv_status st = table_check_name(name);
	if (st)
		return st;
	if (!fams || nfams < 1 || nfams > KV_MAX_FAMILIES)
		return kv_fail(KV_INVALID, "a kv table needs 1..%d families", KV_MAX_FAMILIES);
	kv_family_opts *copy = util_xcalloc((size_t)nfams, sizeof(kv_family_opts));
	for (int i = 0; i < nfams; i++) {
		copy[i] = fams[i];
		copy[i].name[sizeof(copy[i].name) - 1] = 0;
		if ((st = table_check_family(&copy[i])))
			goto out;
		for (int j = 0; j < i; j++)
			if (!strcmp(copy[i].name, copy[j].name)) {
				st = kv_fail(KV_INVALID, "duplicate family %s", copy[i].name);
				goto out;
			}
	}
	if ((st = store_writable(s)))
		goto out;
	pthread_mutex_lock(&s->mu);
	if (find_name(s, name, NULL)) {
		pthread_mutex_unlock(&s->mu);
		st = kv_fail(KV_EXISTS, "kv table %s already exists", name);
		goto out;
	}
	uint32_t id = s->next_table;
	util_buf e = UTIL_BUF_INIT;
	me_add_table(&e, id, name, copy, nfams);
	me_u64(&e, MAN_NEXT_TABLE, id + 1);
	st = store_log_edit(s, &e);
	util_buf_free(&e);
	if (!st) {
		s->next_table = id + 1;
		kv_table *t = table_new(s, id, name, copy, nfams);
		if (s->ntables == s->ctables) {
			s->ctables = s->ctables ? 2 * s->ctables : 16;
			s->tables = util_xrealloc(s->tables, (size_t)s->ctables * sizeof(kv_table *));
		}
		s->tables[s->ntables++] = t;
	}
	pthread_mutex_unlock(&s->mu);
out:
	free(copy);
	return st;
}

void version_mark_obsolete(kv_version *v)
{
	for (int i = 0; i < v->nfam; i++)
		for (int j = 0; j < v->fams[i].n; j++)
			atomic_store(&v->fams[i].files[j]->obsolete, true);
}

/* Marks s->tables[idx] dropped once its edit is logged and takes it out of
 * the store's list. REQUIRES: s->mu. Returns the table for table_unref
 * after the lock. */
static kv_table *drop_logged(kv_store *s, int idx)
{
	kv_table *t = s->tables[idx];
	s->tables[idx] = s->tables[--s->ntables];
	atomic_store(&t->dropped, true);
	pthread_mutex_lock(&t->mu);
	version_mark_obsolete(t->v);
	size_t mb = mem_bytes(t->mem);
	for (int i = 0; i < t->nimm; i++)
		mb += mem_bytes(t->imm[i]);
	pthread_mutex_unlock(&t->mu);
	atomic_fetch_sub(&s->mem_total, UTIL_MIN(mb, atomic_load(&s->mem_total)));
	return t;
}

/* Logs one edit dropping each of the named tables that exists and takes
 * them out of the store; *gone receives them for table_unref after the
 * lock (caller frees the array). REQUIRES: s->mu. */
static kv_status drop_locked(kv_store *s, const char *const *names, int n, kv_table ***gone, int *ngone)
{
	util_buf e = UTIL_BUF_INIT;
	int nfound = 0;
	for (int i = 0; i < n; i++) {
		kv_table *t = names[i] ? find_name(s, names[i], NULL) : NULL;
		if (t) {
			me_drop_table(&e, t->id);
			nfound++;
		}
	}
	kv_status st = nfound ? store_log_edit(s, &e) : KV_OK;
	util_buf_free(&e);
	*gone = util_xcalloc((size_t)nfound + 1, sizeof(kv_table *));
	*ngone = 0;
	for (int i = 0; !st && i < n; i++) {
		int idx;
		if (names[i] && find_name(s, names[i], &idx))
			(*gone)[(*ngone)++] = drop_logged(s, idx);
	}
	return st;
}

static void unref_all(kv_table **gone, int n)
{
	for (int i = 0; i < n; i++)
		table_unref(gone[i]);
	free(gone);
}

kv_status kv_table_drop(kv_store *s, const char *name)
{
	if (s->etcd)
		return ekv_table_drop(s, name);
	kv_status st = store_writable(s);
	if (st)
		return st;
	pthread_mutex_lock(&s->mu);
	if (!name || !find_name(s, name, NULL)) {
		pthread_mutex_unlock(&s->mu);
		return kv_fail(KV_NOT_FOUND, "kv table %s does not exist", name ? name : "(null)");
	}
	kv_table **gone;
	int ngone;
	st = drop_locked(s, &name, 1, &gone, &ngone);
	pthread_mutex_unlock(&s->mu);
	unref_all(gone, ngone);
	return st;
}

kv_status kv_table_drop_many(kv_store *s, const char *const *names, int n)
{
	kv_status st = KV_OK;
	if (s->etcd) {
		for (int i = 0; i < n && (!st || st == KV_NOT_FOUND); i++)
			st = ekv_table_drop(s, names[i]);
		return st == KV_NOT_FOUND ? KV_OK : st;
	}
	if ((st = store_writable(s)))
		return st;
	pthread_mutex_lock(&s->mu);
	kv_table **gone;
	int ngone;
	st = drop_locked(s, names, n, &gone, &ngone);
	pthread_mutex_unlock(&s->mu);
	unref_all(gone, ngone);
	return st;
}

kv_status kv_table_alter_family(kv_store *s, const char *name, const kv_family_opts *fam, bool drop)
{
	if (s->etcd)
		return ekv_table_alter_family(s, name, fam, drop);
	if (!fam)
		return kv_fail(KV_INVALID, "NULL family");
	kv_family_opts f = *fam;
	f.name[sizeof(f.name) - 1] = 0;
	kv_status st = drop ? KV_OK : table_check_family(&f);
	if (st)
		return st;
	kv_table *t;
	if ((st = kv_table_open(s, name, &t)))
		return st;
	/* Drop: flush first, so no memstore cell of the family outlives it. */
	if (drop && (st = kv_table_flush(t))) {
		kv_table_close(t);
		return st;
	}
	pthread_mutex_lock(&t->flush_mu);
	pthread_mutex_lock(&s->mu);
	pthread_mutex_lock(&t->mu);
	int i;
	for (i = 0; i < t->nfam; i++)
		if (!strcmp(t->fams[i].name, f.name))
			break;
	if (drop && i == t->nfam)
		st = kv_fail(KV_NOT_FOUND, "family %s does not exist", f.name);
	else if (drop && t->nfam == 1)
		st = kv_fail(KV_INVALID, "cannot drop the last family of %s", name);
	else if (!drop && i == t->nfam && t->nfam >= KV_MAX_FAMILIES)
		st = kv_fail(KV_INVALID, "too many families");
	pthread_mutex_unlock(&t->mu);
	if (!st) {
		util_buf e = UTIL_BUF_INIT;
		if (drop)
			me_drop_family(&e, t->id, f.name);
		else
			me_set_family(&e, t->id, &f);
		st = store_log_edit(s, &e);
		util_buf_free(&e);
	}
	if (!st) {
		pthread_mutex_lock(&t->mu);
		if (drop) {
			t->fams[i] = t->fams[--t->nfam];
			kv_fileset *fs = version_family(t->v, f.name, strlen(f.name));
			if (fs) {
				for (int j = 0; j < fs->n; j++)
					atomic_store(&fs->files[j]->obsolete, true);
				/* A new version without the family. */
				kv_version *nv = util_xcalloc(1, sizeof(*nv));
				atomic_init(&nv->refs, 1);
				nv->fams =
				    util_xcalloc((size_t)(t->v->nfam ? t->v->nfam : 1), sizeof(kv_fileset));
				for (int k = 0; k < t->v->nfam; k++) {
					kv_fileset *src = &t->v->fams[k];
					if (src == fs)
						continue;
					kv_fileset *d = &nv->fams[nv->nfam++];
					*d = *src;
					d->files =
					    util_xcalloc((size_t)(src->n ? src->n : 1), sizeof(kv_sfile *));
					for (int j = 0; j < src->n; j++) {
						d->files[j] = src->files[j];
						sfile_ref(d->files[j]);
					}
				}
				version_unref(t->v);
				t->v = nv;
			}
		} else if (i == t->nfam) {
			t->fams = util_xrealloc(t->fams, (size_t)(t->nfam + 1) * sizeof(kv_family_opts));
			t->fams[t->nfam++] = f;
		} else {
			t->fams[i] = f;
		}
		table_install_sv(t);
		table_publish_families(t);
		pthread_mutex_unlock(&t->mu);
	}
	pthread_mutex_unlock(&s->mu);
	pthread_mutex_unlock(&t->flush_mu);
	kv_table_close(t);
	return st;
}

kv_status kv_table_list(kv_store *s, int (*fn)(void *arg, const char *name), void *arg)
{
	if (s->etcd)
		return ekv_table_list(s, fn, arg);
	pthread_mutex_lock(&s->mu);
	int n = s->ntables;
	char **names = util_xcalloc((size_t)(n ? n : 1), sizeof(char *));
	for (int i = 0; i < n; i++)
		names[i] = util_xstrdup(s->tables[i]->name);
	pthread_mutex_unlock(&s->mu);
	int stop = 0;
	for (int i = 0; i < n; i++) {
		if (!stop)
			stop = fn(arg, names[i]);
		free(names[i]);
	}
	free(names);
	return KV_OK;
}

kv_status kv_table_families(kv_store *s, const char *name, kv_family_opts *out, int max, int *n)
{
	kv_table *t;
	kv_status st = kv_table_open(s, name, &t);
	if (st)
		return st;
	table_families_of(t, out, max, n);
	kv_table_close(t);
	return KV_OK;
}

void table_families_of(kv_table *t, kv_family_opts *out, int max, int *n)
{
	pthread_mutex_lock(&t->mu);
	*n = t->nfam;
	for (int i = 0; i < t->nfam && i < max; i++)
		out[i] = t->fams[i];
	pthread_mutex_unlock(&t->mu);
}

/* Lowers *floor to the oldest late cell of a commit newer than after. */
static void late_floor(kv_ts late_cts, kv_ts late_min, kv_ts after, kv_ts *floor)
{
	if (late_cts > after && late_min < *floor)
		*floor = late_min;
}

kv_ts table_late_floor(kv_table *t, kv_ts after)
{
	kv_ts floor = KV_TS_MAX, lm, lc;
	pthread_mutex_lock(&t->mu);
	for (int i = -1; i < t->nimm; i++) {
		kv_mem *m = i < 0 ? t->mem : t->imm[i];
		if (!m)
			continue;
		mem_late(m, &lm, &lc);
		late_floor(lc, lm, after, &floor);
	}
	for (int i = 0; t->v && i < t->v->nfam; i++)
		for (int j = 0; j < t->v->fams[i].n; j++) {
			const man_file *f = &t->v->fams[i].files[j]->m;
			late_floor(f->late_cts, f->late_min, after, &floor);
		}
	pthread_mutex_unlock(&t->mu);
	return floor;
}

static int table_name_cmp(const void *a, const void *b)
{
	return strcmp((*(kv_table *const *)a)->name, (*(kv_table *const *)b)->name);
}

kv_status table_backup_set(kv_store *s, kv_ts *T, bool pin, kv_table ***out, int *n)
{
	*out = NULL;
	*n = 0;
	kv_status st = KV_OK;
	kv_table **v;
	if (s->etcd) {
		if (pin && (st = ekv_snapshot_acquire(s, T)))
			return st;
		backup_test_pause();
		if ((st = ekv_tables_at(s, *T, &v, n))) {
			if (pin)
				ekv_snapshot_release(s, *T);
			return st;
		}
	} else {
		/* One critical section: no table is created or dropped between
		 * the snapshot and the set (ts_mu is taken inside s->mu). */
		pthread_mutex_lock(&s->mu);
		if (pin)
			st = kv_snapshot_acquire(s, T);
		v = util_xcalloc((size_t)(s->ntables ? s->ntables : 1), sizeof *v);
		for (int i = 0; !st && i < s->ntables; i++) {
			v[i] = s->tables[i];
			atomic_fetch_add(&v[i]->refs, 1);
			(*n)++;
		}
		pthread_mutex_unlock(&s->mu);
		if (st) {
			free(v);
			return st;
		}
		backup_test_pause();
	}
	qsort(v, (size_t)*n, sizeof *v, table_name_cmp);
	*out = v;
	return KV_OK;
}

kv_status kv_table_open(kv_store *s, const char *name, kv_table **out)
{
	*out = NULL;
	if (s->etcd)
		return ekv_table_open(s, name, out);
	if (!name)
		return kv_fail(KV_INVALID, "NULL kv table name");
	pthread_mutex_lock(&s->mu);
	kv_table *t = find_name(s, name, NULL);
	if (t)
		atomic_fetch_add(&t->refs, 1);
	pthread_mutex_unlock(&s->mu);
	if (!t)
		return kv_fail(KV_NOT_FOUND, "kv table %s does not exist", name);
	*out = t;
	return KV_OK;
}

void kv_table_close(kv_table *t)
{
	table_unref(t);
}

void kv_table_ref(kv_table *t)
{
	atomic_fetch_add(&t->refs, 1);
}

kv_store *kv_table_store(kv_table *t)
{
	return t->s;
}

const char *kv_table_name(kv_table *t)
{
	return t->name;
}

void kv_table_set_compaction_filter(kv_table *t, kv_compaction_filter_fn fn, void *arg)
{
	pthread_mutex_lock(&t->mu);
	t->cf_fn = fn;
	t->cf_arg = arg;
	pthread_mutex_unlock(&t->mu);
}

kv_status kv_table_flush(kv_table *t)
{
	if (t->s->etcd)
		return KV_OK; /* no memstore: every commit is in the cluster */
	if (atomic_load(&t->dropped))
		return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", t->name);
	return flush_table(t->s, t);
}

kv_status kv_table_compact(kv_table *t, bool major)
{
	if (t->s->etcd)
		return ekv_table_gc(t, major);
	if (atomic_load(&t->dropped))
		return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", t->name);
	kv_status st = flush_table(t->s, t);
	if (st)
		return st;
	return compact_table(t->s, t, major, true);
}

kv_status kv_table_get_stats(kv_table *t, kv_table_stats *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&t->mu);
	out->memstore_bytes = mem_bytes(t->mem);
	for (int i = 0; i < t->nimm; i++)
		out->memstore_bytes += mem_bytes(t->imm[i]);
	for (int i = 0; i < t->v->nfam; i++) {
		for (int j = 0; j < t->v->fams[i].n; j++) {
			kv_sfile *f = t->v->fams[i].files[j];
			out->file_count++;
			out->file_bytes += f->m.size;
			out->entries += f->m.entries;
		}
	}
	pthread_mutex_unlock(&t->mu);
	out->flushes = atomic_load(&t->n_flushes);
	out->compactions = atomic_load(&t->n_compactions);
	return KV_OK;
}
