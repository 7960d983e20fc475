/*
 * ingest.c — committing a batch that spilled (a "large commit"): its runs
 * are merged into sorted files (stage.c), which one manifest edit adds to
 * the tables at the commit timestamp. The edit is the commit record: a
 * crash before it leaves orphan files that the next open deletes; after
 * it, every file is listed. No log record holds the data.
 *
 * Order of work (docs/kvstore.md, "Large commits"):
 *   1. outside any lock: merge runs, fsync files; flush the memstores of
 *      tables that get cells with explicit timestamps (so the batch's copy
 *      of an identical cell is the newer one); for kv_commit_if, check the
 *      batch's rows against everything newer than read_ts;
 *   2. take every row-lock stripe (no other commit runs its checks or
 *      applies meanwhile), sync the log (earlier commits become durable
 *      first, so what survives a crash is still a prefix), check
 *      conditions, check rows, and the commits since step 1; resolve
 *      "delete the newest version" mutations into a small extra file;
 *   3. take the commit timestamp, log the manifest edit, install the files
 *      (pending: readers whose read point is below the commit timestamp
 *      skip them, compactions leave them alone), release the locks,
 *      complete the timestamp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

/* ---------------------------------------------------------------- probes of the staged rows */

static kv_status open_probes(kv_store *s, bstage *stg)
{
	char path[4096];
	for (int i = 0; i < stg->n; i++) {
		stfile *f = &stg->f[i];
		if (f->rd)
			continue;
		store_file_path(s, f->number, "sst", path, sizeof(path));
		kv_status st = sst_open(s->fs, path, f->number, NULL, &f->rd);
		if (st)
			return st;
		if (!(f->it = sst_iter_new(f->rd, false)))
			return kv_fail(KV_NO_MEMORY, "out of memory");
	}
	return KV_OK;
}

/* True if the batch writes row `row` of table tid (any family, any kind). */
static kv_status staged_has_row(bstage *stg, uint32_t tid, const uint8_t *row, size_t rlen, bool *has)
{
	uint8_t k[IKEY_ROW_MAX + 16];
	size_t kl = ikey_row_first(k, row, rlen);
	*has = false;
	for (int i = 0; i < stg->n && !*has; i++) {
		stfile *f = &stg->f[i];
		if (f->tid != tid || !sst_may_have_row(f->rd, row, rlen))
			continue;
		src_seek(f->it, k, kl);
		if (f->it->status)
			return f->it->status;
		*has = f->it->valid && ikey_row_cmp(f->it->key, row, rlen) == 0;
	}
	return KV_OK;
}

/* The batch's row range in table tid (false if it writes none there). */
static bool staged_range(bstage *stg, uint32_t tid, util_buf *lo, util_buf *hi)
{
	bool any = false;
	for (int i = 0; i < stg->n; i++) {
		stfile *f = &stg->f[i];
		if (f->tid != tid)
			continue;
		const uint8_t *a = f->props.smallest + 2, *z = f->props.largest + 2;
		size_t al = ikey_rowlen(f->props.smallest), zl = ikey_rowlen(f->props.largest);
		if (!any || ikey_bytes_cmp(a, al, (const uint8_t *)lo->data, lo->len) < 0) {
			util_buf_reset(lo);
			util_buf_append(lo, a, al);
		}
		if (!any || ikey_bytes_cmp(z, zl, (const uint8_t *)hi->data, hi->len) > 0) {
			util_buf_reset(hi);
			util_buf_append(hi, z, zl);
		}
		any = true;
	}
	return any;
}

static kv_status conflict(kv_table *t)
{
	return kv_fail(KV_CONFLICT, "a row of kv table %s changed after the read timestamp", t->name);
}

/* Walks src over rows [lo, hi]: every row with a cell that `newer` accepts
 * is probed against the batch. */
static kv_status walk_source(bstage *stg, kv_table *t, kv_src *src, const util_buf *lo, const util_buf *hi,
			     kv_ts read_ts, bool any_entry)
{
	uint8_t k[IKEY_ROW_MAX + 16];
	size_t kl = ikey_row_first(k, lo->data, lo->len);
	util_buf last = UTIL_BUF_INIT;
	bool have_last = false;
	kv_status st = KV_OK;
	for (src_seek(src, k, kl); src->valid; src_next(src)) {
		size_t rl = ikey_rowlen(src->key);
		const uint8_t *row = src->key + 2;
		if (ikey_bytes_cmp(row, rl, (const uint8_t *)hi->data, hi->len) > 0)
			break;
		if (!any_entry && ikey_ts(src->key, src->klen) <= read_ts)
			continue;
		if (have_last && last.len == rl && !memcmp(last.data, row, rl))
			continue;
		util_buf_reset(&last);
		util_buf_append(&last, row, rl);
		have_last = true;
		bool has;
		if ((st = staged_has_row(stg, t->id, row, rl, &has)))
			break;
		if (has) {
			st = conflict(t);
			break;
		}
	}
	if (!st)
		st = src->status;
	util_buf_free(&last);
	return st;
}

/* True if src has a cell of row newer than read_ts. */
static kv_status source_row_newer(kv_src *src, const uint8_t *row, size_t rlen, kv_ts read_ts, bool *newer)
{
	uint8_t k[IKEY_ROW_MAX + 16];
	size_t kl = ikey_row_first(k, row, rlen);
	*newer = false;
	for (src_seek(src, k, kl); src->valid && ikey_row_cmp(src->key, row, rlen) == 0; src_next(src)) {
		if (ikey_ts(src->key, src->klen) > read_ts) {
			*newer = true;
			break;
		}
	}
	return src->status;
}

/*
 * Step 1 for kv_commit_if: does any row the batch writes in t have a cell
 * newer than read_ts? The sources that can hold one are the memstores and
 * the files whose newest cell is newer. The smaller side drives: walk the
 * sources' newer cells and probe the batch's files (bloom filter, then a
 * seek), or walk the batch's rows and probe the sources.
 */
static kv_status precheck_table(kv_store *s, bstage *stg, kv_table *t, kv_ts read_ts)
{
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	if (!staged_range(stg, t->id, &lo, &hi))
		return KV_OK;
	kv_sv *sv = table_sv(t);
	int cap = 2 + sv->nimm;
	for (int i = 0; i < sv->v->nfam; i++)
		cap += sv->v->fams[i].n;
	kv_src **kids = util_xcalloc((size_t)cap, sizeof(kv_src *));
	sst_reader **rds = util_xcalloc((size_t)cap, sizeof(sst_reader *));
	kv_mem **mems = util_xcalloc((size_t)cap, sizeof(kv_mem *));
	int n = 0;
	uint64_t src_cells = 0, batch_cells = 0;
	kv_status st = KV_OK;
	for (int i = -1; i < sv->nimm; i++) {
		kv_mem *m = i < 0 ? sv->mem : sv->imm[i];
		if (!mem_count(m))
			continue;
		mems[n] = m;
		src_cells += mem_count(m);
		if (!(kids[n++] = mem_iter_new(m, KV_TS_MAX)))
			st = kv_fail(KV_NO_MEMORY, "out of memory");
	}
	for (int i = 0; i < sv->v->nfam && !st; i++) {
		for (int j = 0; j < sv->v->fams[i].n && !st; j++) {
			kv_sfile *f = sv->v->fams[i].files[j];
			if (f->m.max_ts <= read_ts)
				continue;
			if ((st = sfile_reader(f, &rds[n])))
				break;
			src_cells += f->m.entries;
			kids[n] = sst_iter_new(rds[n], false);
			if (!kids[n++])
				st = kv_fail(KV_NO_MEMORY, "out of memory");
		}
	}
	for (int i = 0; i < stg->n; i++)
		if (stg->f[i].tid == t->id)
			batch_cells += stg->f[i].props.entries;
	if (!st && n > 0 && src_cells <= batch_cells) {
		for (int i = 0; i < n && !st; i++)
			st = walk_source(stg, t, kids[i], &lo, &hi, read_ts, false);
	} else if (!st && n > 0) {
		/* Rows of the batch, in order, from all its files of t. */
		kv_src *bk[64];
		int nb = 0;
		for (int i = 0; i < stg->n && nb < 64; i++)
			if (stg->f[i].tid == t->id)
				bk[nb++] = stg->f[i].it;
		/* The staged iterators are shared with the probes: walk each file
		 * on its own (a row in several files is probed again, harmless). */
		for (int b = 0; b < nb && !st; b++) {
			kv_src *it = bk[b];
			util_buf last = UTIL_BUF_INIT;
			for (src_seek(it, NULL, 0); it->valid && !st; src_next(it)) {
				size_t rl = ikey_rowlen(it->key);
				if (last.len == rl && !memcmp(last.data, it->key + 2, rl))
					continue;
				util_buf_reset(&last);
				util_buf_append(&last, it->key + 2, rl);
				for (int i = 0; i < n && !st; i++) {
					bool newer;
					if (rds[i] ? !sst_may_have_row(rds[i], last.data, rl)
						   : !mem_may_have_row(mems[i], last.data, rl))
						continue;
					if ((st = source_row_newer(kids[i], (const uint8_t *)last.data, rl,
								   read_ts, &newer)))
						break;
					if (newer)
						st = conflict(t);
				}
			}
			if (!st)
				st = it->status;
			util_buf_free(&last);
		}
	}
	for (int i = 0; i < n; i++) {
		src_close(kids[i]);
		if (rds[i])
			sst_unref(rds[i]);
	}
	free(kids);
	free(rds);
	free(mems);
	sv_unref(sv);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return st;
}

/* Step 2 for kv_commit_if, under every row lock: the commits after `since`
 * (the read point when step 1 began) are in the memstores, or in files
 * installed since, whose seq is above it. */
static kv_status delta_table(kv_store *s, bstage *stg, kv_table *t, kv_ts read_ts, kv_ts since)
{
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	if (!staged_range(stg, t->id, &lo, &hi))
		return KV_OK;
	kv_sv *sv = table_sv(t);
	kv_status st = KV_OK;
	for (int i = -1; i < sv->nimm && !st; i++) {
		kv_mem *m = i < 0 ? sv->mem : sv->imm[i];
		if (!mem_count(m) || mem_max_commit_ts(m) <= since)
			continue;
		kv_src *src = mem_iter_since(m, since);
		st = src ? walk_source(stg, t, src, &lo, &hi, read_ts, true)
			 : kv_fail(KV_NO_MEMORY, "out of memory");
		src_close(src);
	}
	for (int i = 0; i < sv->v->nfam && !st; i++) {
		for (int j = 0; j < sv->v->fams[i].n && !st; j++) {
			kv_sfile *f = sv->v->fams[i].files[j];
			if (f->m.seq <= since || f->m.max_ts <= read_ts)
				continue;
			sst_reader *r;
			if ((st = sfile_reader(f, &r)))
				break;
			kv_src *src = sst_iter_new(r, false);
			sst_unref(r);
			st = src ? walk_source(stg, t, src, &lo, &hi, read_ts, false)
				 : kv_fail(KV_NO_MEMORY, "out of memory");
			src_close(src);
		}
	}
	sv_unref(sv);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return st;
}

/* Distinct tables of the stage (no references taken). */
static int stage_tables(bstage *stg, kv_table **out)
{
	int n = 0;
	for (int i = 0; i < stg->n; i++) {
		bool seen = false;
		for (int j = 0; j < n && !seen; j++)
			seen = out[j] == stg->f[i].t;
		if (!seen)
			out[n++] = stg->f[i].t;
	}
	return n;
}

/* ---------------------------------------------------------------- deferred deletes */

/* Resolves the batch's remaining mutations ("delete the newest version")
 * against the latest state into a small run of explicit-timestamp Delete
 * markers. REQUIRES: every row lock. */
static kv_status resolve_deferred(kv_store *s, kv_batch *b, bstage *stg, bool check, kv_ts read_ts)
{
	if (b->n == 0)
		return KV_OK;
	kv_batch d = {.spill_at = SIZE_MAX, .resolved = true};
	kv_status st = KV_OK;
	for (size_t i = 0; i < b->n && !st; i++) {
		const kv_mut *m = &b->m[i];
		if (check && (st = commit_check_row(m->t, mut_row(b, m), m->rlen, read_ts)))
			break;
		if (!table_has_family(m->t, mut_fam(b, m))) {
			st = kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", m->t->name, mut_fam(b, m));
			break;
		}
		bool found;
		kv_ts ts;
		st = read_latest_cell(m->t, mut_row(b, m), m->rlen, mut_fam(b, m), mut_qual(b, m), m->qlen,
				      NULL, &ts, &found);
		/* Nothing to delete: a marker at the commit timestamp, as in a
		 * small commit (it hides the batch's own put of the cell). */
		if (!st)
			kv_batch_delete(&d, m->t, mut_row(b, m), m->rlen, mut_fam(b, m), mut_qual(b, m),
					m->qlen, found ? ts : KV_TS_LATEST, KV_DELETE);
	}
	if (!st && d.n) {
		int first = stg->n;
		d.s = s;
		d.stage = stg;
		st = stage_spill(&d);
		d.stage = NULL;
		for (int i = first; i < stg->n && !st; i++) {
			char path[4096];
			store_file_path(s, stg->f[i].number, "sst", path, sizeof(path));
			kv_file *f;
			int e = s->fs->open_write(s->fs, path, false, &f);
			if (!e) {
				e = s->fs->sync(f);
				s->fs->close(f);
			}
			if (e)
				st = kv_fail_errno(e, "fsync", path);
		}
	}
	batch_release(&d);
	return st;
}

/* ---------------------------------------------------------------- the commit */

static void lock_all(kv_store *s)
{
	for (int i = 0; i < KV_NROWLOCKS; i++)
		pthread_mutex_lock(&s->rowlocks[i]);
}

static void unlock_all(kv_store *s)
{
	for (int i = KV_NROWLOCKS; i-- > 0;)
		pthread_mutex_unlock(&s->rowlocks[i]);
}

/* Logs the edit adding every staged file at cts and installs them, one
 * new version per table. Files of families dropped meanwhile are left out
 * (deleted with the stage). *added receives the new file objects, still
 * pending and referenced (the caller clears and drops them). */
static kv_status install(kv_store *s, bstage *stg, kv_ts cts, kv_sfile ***added, int *nadded)
{
	kv_sfile **add = util_xcalloc((size_t)stg->n + 1, sizeof(kv_sfile *));
	kv_table **addt = util_xcalloc((size_t)stg->n + 1, sizeof(kv_table *));
	int na = 0;
	kv_status st = KV_OK;
	util_buf ed = UTIL_BUF_INIT;
	pthread_mutex_lock(&s->mu);
	for (int i = 0; i < stg->n && !st; i++) {
		stfile *f = &stg->f[i];
		if (atomic_load(&f->t->dropped)) {
			st = kv_fail(KV_NOT_FOUND, "kv table %s was dropped", f->t->name);
			break;
		}
		if (!table_has_family(f->t, f->fam))
			continue;
		kv_sfile *sf = sfile_new(s, f->tid, f->fam, f->number, &f->props);
		sf->m.seq = cts;
		if (f->gts) {
			sf->m.gts = cts;
			sf->m.min_ts = sf->m.max_ts = cts;
			if (ikey_ts(sf->m.smallest, sf->m.slen) == 0)
				ikey_set_ts(sf->m.smallest, sf->m.slen, cts);
			if (ikey_ts(sf->m.largest, sf->m.llen) == 0)
				ikey_set_ts(sf->m.largest, sf->m.llen, cts);
		}
		if (sf->m.min_ts < cts) /* cells at explicit older timestamps */
			sfile_merge_late(&sf->m, &(man_file){.late_cts = cts, .late_min = sf->m.min_ts});
		sf->ingest_ts = cts;
		atomic_store(&sf->pending, true);
		me_add_file(&ed, &sf->m);
		addt[na] = f->t;
		add[na++] = sf;
	}
	if (!st) {
		me_u64(&ed, MAN_LAST_TS, cts);
		st = store_log_edit(s, &ed);
	}
	if (!st) {
		kv_sfile **mine = util_xcalloc((size_t)na + 1, sizeof(kv_sfile *));
		for (int i = 0; i < na; i++) {
			kv_table *t = addt[i];
			if (!t)
				continue;
			int nm = 0;
			for (int j = i; j < na; j++) {
				if (addt[j] == t) {
					mine[nm++] = add[j];
					addt[j] = NULL;
				}
			}
			pthread_mutex_lock(&t->mu);
			kv_version *nv = version_edit(t->v, mine, nm, NULL, 0);
			version_unref(t->v);
			t->v = nv;
			table_install_sv(t);
			pthread_mutex_unlock(&t->mu);
		}
		free(mine);
		/* The files belong to the tables now. */
		for (int i = 0; i < stg->n; i++)
			if (table_has_family(stg->f[i].t, stg->f[i].fam))
				stg->f[i].number = 0;
	}
	pthread_mutex_unlock(&s->mu);
	util_buf_free(&ed);
	if (st) {
		for (int i = 0; i < na; i++) {
			atomic_store(&add[i]->pending, false);
			sfile_unref(add[i]);
		}
		na = 0;
	}
	*added = add;
	*nadded = na;
	free(addt);
	return st;
}

kv_status commit_large(kv_store *s, kv_batch *b, bool check, kv_ts read_ts, const kv_write_opts *o,
		       kv_ts *commit_ts)
{
	kv_status st = store_writable(s);
	if (st)
		return st;
	kv_ts reserved = o ? o->ts : 0;
	if (reserved && !clock_is_reserved(s, reserved))
		return kv_fail(KV_INVALID, "commit timestamp %llu is not a reserved, unfinished timestamp",
			       (unsigned long long)reserved);
	for (size_t i = 0; i < b->nc; i++)
		if (b->c[i].t->s != s || atomic_load(&b->c[i].t->dropped))
			return kv_fail(KV_INVALID, "condition on a kv table of another store or dropped");
	/* What is still in memory joins the runs (deferred deletes stay). */
	if ((st = stage_spill(b)))
		return st;
	bstage *stg = b->stage;
	for (int i = 0; i < stg->n; i++)
		if (atomic_load(&stg->f[i].t->dropped))
			return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", stg->f[i].t->name);
	if ((st = stage_finish(s, stg)))
		return st;
	int e = s->fs->sync_dir(s->fs, s->path);
	if (e)
		return kv_fail_errno(e, "fsync directory", s->path);
	kv_table **tabs = util_xcalloc((size_t)stg->n + 1, sizeof(kv_table *));
	int nt = stage_tables(stg, tabs);
	/* Identical cells with explicit timestamps: the batch's copy must be
	 * the newest, so older ones leave the memstores first. */
	for (int i = 0; i < nt && !st; i++) {
		bool explicit_ts = false;
		for (int j = 0; j < stg->n; j++)
			explicit_ts |= stg->f[j].t == tabs[i] && !stg->f[j].gts;
		kv_sv *sv = table_sv(tabs[i]);
		bool mem = mem_count(sv->mem) > 0 || sv->nimm > 0;
		sv_unref(sv);
		if (explicit_ts && mem)
			st = flush_table(s, tabs[i]);
	}
	if (!st)
		st = open_probes(s, stg);
	kv_ts since = 0;
	if (!st && !check && b->nk && commit_has_at_checks(b))
		commit_recent_on(s);
	if (!st && check) {
		commit_recent_on(s); /* check rows and deferred rows use the recent map */
		since = kv_read_point(s);
		for (int i = 0; i < nt && !st; i++)
			st = precheck_table(s, stg, tabs[i], read_ts);
	}
	if (st) {
		free(tabs);
		return st;
	}

	lock_all(s);
	kv_pend pend_store = {0}, *pend = NULL;
	kv_ts cts = 0;
	kv_sfile **added = NULL;
	int nadded = 0;
	if (wal_sync(s->wal)) {
		if (wal_failed(s->wal))
			store_set_failed(s, "log fsync failed");
		st = kv_fail(KV_IO_ERROR, "%s", kv_errmsg());
	}
	if (!st)
		st = commit_check_conditions(b);
	for (size_t i = 0; !st && i < b->nk; i++) {
		kv_ts ts = chk_ts(&b->k[i], check, read_ts);
		if (ts)
			st = commit_check_row(b->k[i].t, cond_ptr(b, b->k[i].roff), b->k[i].rlen, ts);
	}
	for (int i = 0; check && !st && i < nt; i++)
		st = delta_table(s, stg, tabs[i], read_ts, since);
	if (!st)
		st = resolve_deferred(s, b, stg, check, read_ts);
	if (!st) {
		nt = stage_tables(stg, tabs);
		if (!reserved)
			pend = &pend_store;
		cts = reserved ? reserved : clock_assign(s, pend);
		st = install(s, stg, cts, &added, &nadded);
	}
	if (!st) {
		/* Later commit_if checks cannot trust a miss in the recent map for
		 * read timestamps below this commit: they read the row instead. */
		recent_raise_low_water(s->recent, cts);
		atomic_fetch_add(&s->n_commits, 1);
	}
	unlock_all(s);
	if (pend)
		clock_complete(s, pend);
	for (int i = 0; i < nadded; i++) {
		atomic_store(&added[i]->pending, false);
		sfile_unref(added[i]);
	}
	free(added);
	free(tabs);
	if (st)
		return st;
	pthread_mutex_lock(&s->bg_mu);
	pthread_cond_broadcast(&s->compact_cv);
	pthread_mutex_unlock(&s->bg_mu);
	if (pend)
		clock_wait_visible(s, cts);
	if (commit_ts)
		*commit_ts = cts;
	/* The runs are table files now: the batch is empty. */
	kv_batch_clear(b);
	return KV_OK;
}
