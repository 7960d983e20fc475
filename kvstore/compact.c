/*
 * compact.c — compactions of one (kv table, family):
 *  - minor: merge a window of adjacent files chosen like HBase's exploring
 *    policy (3..10 files, each no bigger than ratio x the rest of the
 *    window; the most files, then the fewest bytes), dropping only older
 *    copies of identical cells and what the compaction filter drops;
 *  - major: merge every file, dropping deleted cells, delete markers (unless
 *    KEEP_DELETED_CELLS), versions beyond max_versions, and cells expired by
 *    TTL beyond min_versions — but never anything newer than the horizon
 *    min(read point, now - retention), so reads inside the retention window
 *    stay exact.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

#define MINOR_TRIGGER 4
#define MINOR_MIN     3
#define MINOR_MAX     10
#define MINOR_RATIO   1.2

/* True if f[0..k) came from one large commit (same seq) and their key
 * ranges do not overlap: a bulk load's runs kept apart (stage.c). Merging
 * them would only concatenate them, and a point read already skips the
 * files whose range misses its row. */
static bool one_split_ingest(kv_sfile **f, int k)
{
	for (int i = 0; i < k; i++) {
		if (f[i]->m.seq != f[0]->m.seq)
			return false;
		for (int j = i + 1; j < k; j++)
			if (ikey_cmp(f[i]->m.largest, f[i]->m.llen, f[j]->m.smallest, f[j]->m.slen) >= 0 &&
			    ikey_cmp(f[j]->m.largest, f[j]->m.llen, f[i]->m.smallest, f[i]->m.slen) >= 0)
				return false;
	}
	return true;
}

/* Chooses a window [*lo, *hi) of the (newest-first) files; false if none. */
static bool explore(kv_sfile **f, int n, int *lo, int *hi)
{
	int best_lo = -1, best_n = 0;
	uint64_t best_bytes = 0;
	for (int i = 0; i < n; i++) {
		for (int k = MINOR_MIN; k <= MINOR_MAX && i + k <= n; k++) {
			uint64_t total = 0;
			bool busy = false;
			for (int j = i; j < i + k; j++) {
				total += f[j]->m.size;
				busy |= f[j]->compacting || atomic_load(&f[j]->pending);
			}
			if (busy || one_split_ingest(f + i, k))
				continue;
			bool ok = true;
			for (int j = i; j < i + k && ok; j++)
				ok = (double)f[j]->m.size <= MINOR_RATIO * (double)(total - f[j]->m.size);
			if (!ok)
				continue;
			if (k > best_n || (k == best_n && total < best_bytes)) {
				best_lo = i;
				best_n = k;
				best_bytes = total;
			}
		}
	}
	if (best_lo < 0)
		return false;
	*lo = best_lo;
	*hi = best_lo + best_n;
	return true;
}

bool compact_pick_needed(kv_table *t)
{
	bool need = false;
	pthread_mutex_lock(&t->mu);
	if (t->compact_retry_us && util_mono_us() < t->compact_retry_us) {
		pthread_mutex_unlock(&t->mu);
		return false;
	}
	for (int i = 0; i < t->v->nfam && !need && !t->compacting; i++) {
		kv_fileset *fs = &t->v->fams[i];
		int lo, hi;
		need = fs->n >= MINOR_TRIGGER && explore(fs->files, fs->n, &lo, &hi);
	}
	pthread_mutex_unlock(&t->mu);
	return need;
}

/*
 * Decides whether a major compaction keeps a cell. Only markers at or below
 * the horizon are applied (every reader at or after the horizon sees them);
 * newer markers and puts are kept as they are. A newer DeleteColumn or
 * DeleteFamily hides either all or none of a column's old puts, so keeping
 * the max_versions newest old puts not hidden by old markers is enough for
 * every read at or after the horizon.
 */
bool compact_major_keep(cstate *c, const kv_family_opts *fo, const ikey_parts *p, kv_ts horizon, int64_t now,
			bool keep_markers)
{
	bool old = p->ts <= horizon;
	if (p->type != KV_PUT) {
		if (!old)
			return true;
		switch (p->type) {
		case KV_DELETE_FAMILY:
			if (!c->has_df) {
				c->has_df = true;
				c->df_ts = p->ts;
			}
			break;
		case KV_DELETE_FAMILY_VERSION:
			if (c->ndfv == c->cdfv) {
				c->cdfv = c->cdfv ? 2 * c->cdfv : 8;
				c->dfv = util_xrealloc(c->dfv, (size_t)c->cdfv * sizeof(kv_ts));
			}
			c->dfv[c->ndfv++] = p->ts;
			break;
		case KV_DELETE_COLUMN:
			if (!c->has_dc) {
				c->has_dc = true;
				c->dc_ts = p->ts;
			}
			break;
		case KV_DELETE:
			c->has_del = true;
			c->del_ts = p->ts;
			break;
		default:
			return true;
		}
		return keep_markers || fo->keep_deleted_cells;
	}
	if (!old)
		return true;
	bool deleted = (c->has_df && p->ts <= c->df_ts) || (c->has_dc && p->ts <= c->dc_ts) ||
		       (c->has_del && c->del_ts == p->ts);
	for (int i = 0; i < c->ndfv && !deleted; i++)
		deleted = c->dfv[i] == p->ts;
	if (deleted)
		return fo->keep_deleted_cells;
	int v = c->versions++;
	if (v >= fo->max_versions)
		return false;
	if (fo->ttl_seconds > 0 && (int64_t)p->ts < now - fo->ttl_seconds * 1000000 && v >= fo->min_versions)
		return false;
	return true;
}

/* Replaces files `in` by `out` (may be NULL) at the position of the newest
 * input. REQUIRES: t->mu held. */
static kv_version *version_replace(kv_version *v, const char *fam, kv_sfile **in, int nin, kv_sfile *out)
{
	kv_version *nv = version_edit(v, NULL, 0, in, nin);
	if (!out)
		return nv;
	kv_fileset *src = version_family(v, fam, strlen(fam));
	kv_fileset *d = version_family(nv, fam, strlen(fam));
	/* Count files newer than the newest input: they stay in front. */
	int front = 0;
	for (int j = 0; j < src->n; j++) {
		bool is_in = false;
		for (int k = 0; k < nin && !is_in; k++)
			is_in = src->files[j] == in[k];
		if (is_in)
			break;
		front++;
	}
	kv_sfile **nf = util_xcalloc((size_t)d->n + 1, sizeof(kv_sfile *));
	memcpy(nf, d->files, (size_t)front * sizeof(kv_sfile *));
	nf[front] = out;
	sfile_ref(out);
	memcpy(nf + front + 1, d->files + front, (size_t)(d->n - front) * sizeof(kv_sfile *));
	free(d->files);
	d->files = nf;
	d->n++;
	return nv;
}

/* What a compaction drops: MINOR only older copies of identical cells (and
 * what the compaction filter drops); TRIM also hidden and excess versions
 * but keeps every delete marker (a minor compaction of the newest files
 * whose ts ranges are all above the older files'); MAJOR everything. */
enum { C_MINOR = 0, C_TRIM, C_MAJOR };

static kv_status compact_files(kv_store *s, kv_table *t, const kv_family_opts *fo, kv_sfile **in, int nin,
			       int mode)
{
	bool major = mode != C_MINOR;
	kv_status st = KV_OK;
	kv_src **kids = util_xcalloc((size_t)nin, sizeof(kv_src *));
	int nk = 0;
	for (int i = 0; i < nin && !st; i++) {
		sst_reader *r;
		if ((st = sfile_reader(in[i], &r)))
			break;
		kids[nk] = sst_iter_new(r, false);
		sst_unref(r);
		if (!kids[nk++])
			st = kv_fail(KV_NO_MEMORY, "out of memory compacting");
	}
	if (st) {
		for (int i = 0; i < nk; i++)
			src_close(kids[i]);
		free(kids);
		return st;
	}
	kv_src *m = merge_new(kids, nk);
	free(kids);
	if (!m)
		return kv_fail(KV_NO_MEMORY, "out of memory compacting");

	pthread_mutex_lock(&t->mu);
	kv_compaction_filter_fn cf = t->cf_fn;
	void *cfarg = t->cf_arg;
	pthread_mutex_unlock(&t->mu);
	int64_t now = util_now_us();
	kv_ts horizon = clock_horizon(s);
	if (fo->retention_seconds > 0) {
		int64_t r = now - fo->retention_seconds * 1000000;
		if (r < 0)
			r = 0;
		if ((kv_ts)r < horizon)
			horizon = (kv_ts)r;
	}

	uint64_t number = store_next_file(s);
	char path[4096];
	store_file_path(s, number, "sst", path, sizeof(path));
	sst_writer *w = NULL;
	util_buf last = UTIL_BUF_INIT;
	cstate cs = {0};
	util_buf famkey = UTIL_BUF_INIT;
	st = sst_writer_open(s->fs, path, fo, t->id, &w);
	for (src_seek(m, NULL, 0); !st && m->valid; src_next(m)) {
		if (last.len == m->klen && !memcmp(last.data, m->key, m->klen))
			continue; /* an older copy of the same cell */
		util_buf_reset(&last);
		util_buf_append(&last, m->key, m->klen);
		ikey_parts p;
		ikey_split(m->key, m->klen, &p);
		if (major) {
			/* Row+family change resets family markers; column change the rest. */
			size_t fampfx = 2 + p.rlen + 1 + p.flen;
			bool same_fam = famkey.len == fampfx && !memcmp(famkey.data, m->key, fampfx);
			if (!same_fam) {
				util_buf_reset(&famkey);
				util_buf_append(&famkey, m->key, fampfx);
				cs.has_df = false;
				cs.ndfv = 0;
			}
			if (!ikey_same_column(m->key, m->klen, (const uint8_t *)cs.col.data,
					      cs.col.len + IKEY_SUFFIX) ||
			    !same_fam) {
				util_buf_reset(&cs.col);
				util_buf_append(&cs.col, m->key, m->klen - IKEY_SUFFIX);
				cs.has_dc = cs.has_del = false;
				cs.versions = 0;
			}
			if (!compact_major_keep(&cs, fo, &p, horizon, now, mode == C_TRIM))
				continue;
		}
		if (cf && p.type == KV_PUT) {
			kv_cell c = {{p.row, p.rlen}, {p.fam, p.flen},  {p.qual, p.qlen}, p.ts,
				     p.type,          {m->val, m->vlen}};
			if (cf(cfarg, &c) == KV_COMPACT_DROP)
				continue;
		}
		st = sst_writer_add(w, m->key, m->klen, m->val, m->vlen);
	}
	if (!st)
		st = m->status;
	src_close(m);
	util_buf_free(&last);
	util_buf_free(&cs.col);
	util_buf_free(&famkey);
	free(cs.dfv);

	sst_props props = {0};
	bool have_out = false;
	if (w) {
		if (st || sst_writer_entries(w) == 0) {
			sst_writer_abandon(w);
			s->fs->unlink(s->fs, path);
		} else {
			st = sst_writer_finish(w, &props);
			have_out = !st;
			if (st)
				s->fs->unlink(s->fs, path);
		}
	}
	if (!st) {
		int e = s->fs->sync_dir(s->fs, s->path);
		if (e)
			st = kv_fail_errno(e, "fsync directory", s->path);
	}
	kv_sfile *out = NULL;
	if (!st) {
		util_buf ed = UTIL_BUF_INIT;
		if (have_out) {
			out = sfile_new(s, t->id, fo->name, number, &props);
			for (int i = 0; i < nin; i++) {
				out->m.seq = UTIL_MAX(out->m.seq, in[i]->m.seq);
				sfile_merge_late(&out->m, &in[i]->m);
			}
			me_add_file(&ed, &out->m);
		}
		for (int i = 0; i < nin; i++)
			me_del_file(&ed, t->id, fo->name, in[i]->m.number);
		pthread_mutex_lock(&s->mu);
		st = atomic_load(&t->dropped) ? KV_NOT_FOUND : store_log_edit(s, &ed);
		if (!st) {
			pthread_mutex_lock(&t->mu);
			kv_version *nv = version_replace(t->v, fo->name, in, nin, out);
			version_unref(t->v);
			t->v = nv;
			for (int i = 0; i < nin; i++)
				atomic_store(&in[i]->obsolete, true);
			table_install_sv(t);
			pthread_mutex_unlock(&t->mu);
		}
		pthread_mutex_unlock(&s->mu);
		util_buf_free(&ed);
		if (st && have_out) {
			atomic_store(&out->obsolete, true);
			st = st == KV_NOT_FOUND ? KV_OK : st;
		}
		if (out)
			sfile_unref(out);
	}
	sst_props_free(&props);
	if (!st)
		atomic_fetch_add(&t->n_compactions, 1);
	return st;
}

kv_status compact_table(kv_store *s, kv_table *t, bool major, bool manual)
{
	kv_status st = store_writable(s);
	if (st)
		return st;
	pthread_mutex_lock(&t->mu);
	while (t->compacting) {
		pthread_mutex_unlock(&t->mu);
		if (!manual)
			return KV_OK;
		util_sleep_us(1000);
		pthread_mutex_lock(&t->mu);
	}
	t->compacting = true;
	int nf = t->nfam;
	kv_family_opts *fams = util_xcalloc((size_t)(nf ? nf : 1), sizeof(kv_family_opts));
	memcpy(fams, t->fams, sizeof(kv_family_opts) * (size_t)nf);
	pthread_mutex_unlock(&t->mu);

	for (int i = 0; i < nf && !st; i++) {
		pthread_mutex_lock(&t->mu);
		kv_fileset *fs = version_family(t->v, fams[i].name, strlen(fams[i].name));
		/* A file of a large commit that is not visible yet (its commit is
		 * completing): wait the moment it takes rather than merge it. */
		for (int j = 0; fs && j < fs->n; j++) {
			if (atomic_load(&fs->files[j]->pending)) {
				pthread_mutex_unlock(&t->mu);
				util_sleep_us(200);
				pthread_mutex_lock(&t->mu);
				fs = version_family(t->v, fams[i].name, strlen(fams[i].name));
				j = -1;
			}
		}
		int lo = 0, hi = 0;
		bool go = false;
		if (fs && fs->n > 0) {
			if (major) {
				hi = fs->n;
				go = true;
			} else if (fs->n >= (manual ? 2 : MINOR_TRIGGER)) {
				go = explore(fs->files, fs->n, &lo, &hi);
				/* One load's key-disjoint runs have nothing to drop. */
				if (!go && manual && !one_split_ingest(fs->files, fs->n)) {
					lo = 0;
					hi = fs->n;
					go = true;
				}
			}
		}
		kv_sfile **in = NULL;
		int nin = hi - lo;
		int mode = major ? C_MAJOR : C_MINOR;
		if (go && !major && lo == 0) {
			/* The newest files: if every older file's timestamps are below
			 * the window's, versions can be trimmed (markers kept). */
			kv_ts wmin = KV_TS_MAX, omax = 0;
			for (int j = lo; j < hi; j++)
				wmin = UTIL_MIN(wmin, fs->files[j]->m.min_ts);
			for (int j = hi; j < fs->n; j++)
				omax = UTIL_MAX(omax, fs->files[j]->m.max_ts);
			if (hi == fs->n || omax < wmin)
				mode = C_TRIM;
		}
		if (go) {
			in = util_xcalloc((size_t)nin, sizeof(kv_sfile *));
			for (int j = 0; j < nin; j++) {
				in[j] = fs->files[lo + j];
				sfile_ref(in[j]);
			}
		}
		pthread_mutex_unlock(&t->mu);
		if (!go)
			continue;
		st = compact_files(s, t, &fams[i], in, nin, mode);
		for (int j = 0; j < nin; j++)
			sfile_unref(in[j]);
		free(in);
	}
	pthread_mutex_lock(&t->mu);
	t->compacting = false;
	/* Back off after a failure (no space, I/O error) instead of spinning. */
	t->compact_retry_us = st ? util_mono_us() + 2 * 1000000 : 0;
	pthread_mutex_unlock(&t->mu);
	free(fams);
	pthread_mutex_lock(&s->bg_mu);
	pthread_cond_broadcast(&s->done_cv);
	pthread_mutex_unlock(&s->bg_mu);
	if (st)
		util_warn("kvstore: compaction of %s failed: %s", t->name, kv_errmsg());
	return st;
}
