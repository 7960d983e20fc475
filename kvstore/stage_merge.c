/*
 * stage_merge.c — a large commit's runs made table files (see stage.h):
 * the runs of each (table, family, kind) merged into one file with the
 * family's options, or two key-disjoint files merged on two threads for a
 * big group; runs whose key ranges do not overlap kept as they are (raw
 * ones copied compressed); every remaining file fsynced.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stage.h"

static int run_desc(const void *a, const void *b)
{
	const stfile *x = *(stfile *const *)a, *y = *(stfile *const *)b;
	return x->run > y->run ? -1 : x->run < y->run;
}

/* 16 MiB: on again since reverse scans bound their chunks by every big file
 * of the table (rscan.c choose_lo), so two key-disjoint halves cost last-row
 * seeks nothing (docs/performance.md "The split merge back on"). */
size_t stage_split_bytes = (size_t)16 << 20;

/* Opens a merging iterator over files g[0..n) (newest run first: on
 * identical cells the newer run comes first). */
static kv_status open_merge(kv_store *s, stfile **g, int n, kv_src **out)
{
	kv_status st = KV_OK;
	kv_src **kids = util_xcalloc((size_t)n, sizeof(kv_src *));
	int nk = 0;
	char path[4096];
	for (int i = 0; i < n && !st; i++) {
		sst_reader *r;
		store_file_path(s, g[i]->number, "sst", path, sizeof(path));
		if ((st = sst_open(s->fs, path, g[i]->number, NULL, &r)))
			break;
		kids[nk] = sst_iter_new(r, false);
		sst_unref(r);
		if (!kids[nk++])
			st = kv_fail(KV_NO_MEMORY, "out of memory merging runs");
	}
	kv_src *m = st ? NULL : merge_new(kids, nk);
	if (!st && !m)
		st = kv_fail(KV_NO_MEMORY, "out of memory merging runs");
	if (st)
		for (int i = 0; i < nk; i++)
			src_close(kids[i]);
	free(kids);
	*out = m;
	return st;
}

/* One part of a group's merge: the cells in [lo, hi) (NULL: unbounded)
 * into file out->number, already assigned. */
typedef struct mpart {
	kv_store *s;
	stfile **g;
	int n;
	const kv_family_opts *fo;
	const uint8_t *lo, *hi;
	size_t lol, hil;
	stfile *out;
	kv_status st;
	int64_t cpu_ms; /* the part's thread CPU (without its writer thread's) */
	char msg[512];  /* kv_errmsg() of the thread that failed */
} mpart;

static kv_status merge_part(mpart *p)
{
	kv_src *m;
	kv_status st = open_merge(p->s, p->g, p->n, &m);
	if (st)
		return st;
	char path[4096];
	store_file_path(p->s, p->out->number, "sst", path, sizeof(path));
	sst_writer *w;
	/* A load's file, at the bulk level as its runs (a copy: as the run
	 * would have been written). */
	st = sst_writer_open_ex(p->s->fs, path, p->fo, p->out->tid,
				SST_W_ASYNC | SST_W_BULK | (p->out->gts ? SST_W_GLOBAL_TS : 0), &w);
	if (st) {
		src_close(m);
		return st;
	}
	util_buf last = UTIL_BUF_INIT;
	for (src_seek(m, p->lo, p->lol); !st && m->valid; src_next(m)) {
		if (p->hi && ikey_cmp(m->key, m->klen, p->hi, p->hil) >= 0)
			break;
		if (last.len == m->klen && !memcmp(last.data, m->key, m->klen))
			continue; /* the same cell from an older run */
		util_buf_reset(&last);
		util_buf_append(&last, m->key, m->klen);
		st = sst_writer_add(w, m->key, m->klen, m->val, m->vlen);
	}
	if (!st)
		st = m->status;
	src_close(m);
	util_buf_free(&last);
	if (st)
		sst_writer_abandon(w);
	else
		st = sst_writer_finish(w, &p->out->props);
	return st;
}

static int64_t thread_cpu_ms(void)
{
	struct timespec c;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
	return (int64_t)c.tv_sec * 1000 + c.tv_nsec / 1000000;
}

static void *merge_part_thread(void *arg)
{
	mpart *p = arg;
	int64_t c0 = thread_cpu_ms();
	p->st = merge_part(p);
	p->cpu_ms = thread_cpu_ms() - c0;
	if (p->st)
		snprintf(p->msg, sizeof(p->msg), "%s", kv_errmsg());
	return NULL;
}

static int key_cmp_q(const void *a, const void *b)
{
	const util_buf *x = a, *y = b;
	return ikey_cmp((const uint8_t *)x->data, x->len, (const uint8_t *)y->data, y->len);
}

/* A key splitting the group's cells in two, into *split (false if none):
 * the median of the runs' middle index separators (in a load in random key
 * order every run spans the whole range, and its middle separator is near
 * the median cell). It lies after the group's smallest cell and not after
 * its largest, so neither part is empty. */
static bool pick_split(kv_store *s, stfile **g, int n, util_buf *split)
{
	util_buf *mid = util_xcalloc((size_t)n, sizeof(util_buf));
	int nm = 0;
	const stfile *lo = NULL, *hi = NULL;
	char path[4096];
	for (int i = 0; i < n; i++) {
		const sst_props *p = &g[i]->props;
		if (!p->slen || !p->llen)
			goto none;
		if (!lo || ikey_cmp(p->smallest, p->slen, lo->props.smallest, lo->props.slen) < 0)
			lo = g[i];
		if (!hi || ikey_cmp(p->largest, p->llen, hi->props.largest, hi->props.llen) > 0)
			hi = g[i];
		sst_reader *r;
		store_file_path(s, g[i]->number, "sst", path, sizeof(path));
		if (sst_open(s->fs, path, g[i]->number, NULL, &r))
			goto none; /* the merge itself reports it */
		size_t nb = sst_nblocks(r);
		if (nb > 1) {
			const uint8_t *k;
			size_t kl;
			sst_block_key(r, nb / 2, &k, &kl);
			util_buf_append(&mid[nm++], k, kl);
		}
		sst_unref(r);
	}
	if (!nm)
		goto none;
	qsort(mid, (size_t)nm, sizeof(util_buf), key_cmp_q);
	const util_buf *m = &mid[nm / 2];
	if (ikey_cmp(lo->props.smallest, lo->props.slen, (const uint8_t *)m->data, m->len) >= 0 ||
	    ikey_cmp((const uint8_t *)m->data, m->len, hi->props.largest, hi->props.llen) > 0)
		goto none;
	util_buf_append(split, m->data, m->len);
	for (int i = 0; i < n; i++)
		util_buf_free(&mid[i]);
	free(mid);
	return true;
none:
	for (int i = 0; i < n; i++)
		util_buf_free(&mid[i]);
	free(mid);
	return false;
}

/* Merges files g[0..n) (one group, newest run first) into out[0] (copy:
 * one raw run kept apart, compressed as a run would have been), or, when
 * the group holds at least stage_split_bytes, into out[0] and out[1]: the
 * cells before and from a split key, merged on two threads into two
 * key-disjoint files installed together (the compression of a load's
 * commit was one thread's work). An identical cell lands in one part, where
 * the newer run wins as before. out[i].number is set for every file begun:
 * on failure the caller's stage unlinks them. */
static kv_status merge_group(kv_store *s, stfile **g, int n, bool copy, stfile out[2])
{
	kv_family_opts fo;
	if (!stage_family_opts(g[0]->t, g[0]->fam, &fo))
		return kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", g[0]->t->name, g[0]->fam);
	uint64_t bytes = 0;
	for (int i = 0; i < n; i++)
		bytes += g[i]->props.file_size;
	int64_t t0 = util_mono_us();
	util_buf split = UTIL_BUF_INIT;
	size_t sb = (size_t)util_env_int("STRATA_STAGE_SPLIT_BYTES", (int64_t)stage_split_bytes);
	bool two = !copy && bytes >= sb && pick_split(s, g, n, &split);
	mpart p[2];
	for (int i = 0; i < 1 + two; i++) {
		out[i] = *g[0];
		out[i].props = (sst_props){0};
		out[i].rd = NULL;
		out[i].it = NULL;
		out[i].raw = false;
		out[i].number = store_next_file(s);
		p[i] = (mpart){.s = s, .g = g, .n = n, .fo = &fo, .out = &out[i]};
	}
	kv_status st;
	if (two) {
		p[0].hi = p[1].lo = (const uint8_t *)split.data;
		p[0].hil = p[1].lol = split.len;
		pthread_t th;
		bool threaded = pthread_create(&th, NULL, merge_part_thread, &p[1]) == 0;
		merge_part_thread(&p[0]);
		st = p[0].st;
		if (threaded)
			pthread_join(th, NULL);
		else
			merge_part_thread(&p[1]);
		util_buf_free(&split);
		if (!st && p[1].st)
			st = kv_fail(p[1].st, "%s", p[1].msg);
	} else {
		merge_part_thread(&p[0]);
		st = p[0].st;
	}
	util_log(UTIL_LOG_DEBUG,
		 "kv table %s: merged %d runs, %llu bytes, on %s in %lld ms (merge CPU %lld + %lld ms)",
		 g[0]->t->name, n, (unsigned long long)bytes, two ? "two threads" : "one thread",
		 (long long)(util_mono_us() - t0) / 1000, (long long)p[0].cpu_ms,
		 two ? (long long)p[1].cpu_ms : 0LL);
	return st;
}

static int by_smallest(const void *a, const void *b)
{
	const stfile *x = *(stfile *const *)a, *y = *(stfile *const *)b;
	return ikey_cmp(x->props.smallest, x->props.slen, y->props.smallest, y->props.slen);
}

/* True if the key ranges of g[0..n) do not overlap; then g is left in key
 * order. Such runs (a load or re-key whose keys ascend, spill after spill)
 * share no cell, so their merge would be their concatenation: they are
 * kept as they are instead of being read and written once more. */
static bool runs_disjoint(stfile **g, int n)
{
	if (n > STAGE_MAX_APART)
		return false;
	for (int i = 0; i < n; i++)
		if (!g[i]->props.slen || !g[i]->props.llen)
			return false;
	qsort(g, (size_t)n, sizeof(stfile *), by_smallest);
	for (int i = 0; i + 1 < n; i++)
		if (ikey_cmp(g[i]->props.largest, g[i]->props.llen, g[i + 1]->props.smallest,
			     g[i + 1]->props.slen) >= 0)
			return false;
	return true;
}

static kv_status sync_file(kv_store *s, uint64_t number)
{
	char path[4096];
	store_file_path(s, number, "sst", path, sizeof(path));
	kv_file *f;
	int e = s->fs->open_write(s->fs, path, false, &f);
	if (!e) {
		e = s->fs->sync(f);
		s->fs->close(f);
	}
	return e ? kv_fail_errno(e, "fsync", path) : KV_OK;
}

kv_status stage_finish(kv_store *s, bstage *stg)
{
	kv_status st = KV_OK;
	stfile **g = util_xcalloc((size_t)stg->n + 1, sizeof(stfile *));
	bool *done = util_xcalloc((size_t)stg->n + 1, sizeof(bool));
	int nout = 0;
	stfile *outs = util_xcalloc((size_t)stg->n + 2, sizeof(stfile)); /* a failed split merge adds 2 */
	for (int i = 0; i < stg->n && !st; i++) {
		if (done[i])
			continue;
		int n = 0;
		for (int j = i; j < stg->n; j++) {
			stfile *f = &stg->f[j];
			if (!done[j] && f->tid == stg->f[i].tid && f->gts == stg->f[i].gts &&
			    !strcmp(f->fam, stg->f[i].fam)) {
				g[n++] = f;
				done[j] = true;
			}
		}
		if (n == 1 || runs_disjoint(g, n)) {
			for (int j = 0; j < n && !st; j++) {
				if (g[j]->raw) {
					stfile mo[2] = {0};
					st = merge_group(s, &g[j], 1, true, mo);
					if (mo[0].number)
						outs[nout++] = mo[0];
					if (!st) {
						stage_unlink_file(s, g[j]->number);
						g[j]->number = 0;
					}
					continue;
				}
				outs[nout] = *g[j];
				g[j]->number = 0; /* moved */
				g[j]->props = (sst_props){0};
				st = sync_file(s, outs[nout].number);
				nout++;
			}
			continue;
		}
		qsort(g, (size_t)n, sizeof(stfile *), run_desc);
		stfile mo[2] = {0};
		st = merge_group(s, g, n, false, mo);
		for (int j = 0; j < 2; j++)
			if (mo[j].number)
				outs[nout++] = mo[j];
		for (int j = 0; j < n && !st; j++) {
			stage_unlink_file(s, g[j]->number);
			g[j]->number = 0;
		}
	}
	/* The stage now lists the outputs (and what was not merged on failure). */
	for (int i = 0; i < stg->n; i++) {
		if (stg->f[i].number)
			outs[nout++] = stg->f[i];
		else
			sst_props_free(&stg->f[i].props);
	}
	free(stg->f);
	stg->f = outs;
	stg->n = stg->cap = nout;
	free(g);
	free(done);
	return st;
}
