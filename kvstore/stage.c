/*
 * stage.c — spilling a large batch to sorted run files, and merging the
 * runs when the batch commits (see stage.h).
 *
 * A spill sorts the batch's in-memory mutations by (table, family, kind,
 * cell key, later mutation first), drops older copies of identical cells,
 * and writes one run file per (table, family, kind) present; then the
 * batch keeps only what must be resolved at commit (a Delete without a
 * timestamp: it deletes the newest version, known only under the row
 * locks). Row deletes become DeleteFamily markers of the table's families
 * as they are at the spill. Runs are written with cheap compression, or
 * none when they are to be merged (run_merges), and no fsync;
 * stage_finish() (stage_merge.c) merges a group's runs into one file with
 * the family's own options, so a bulk load costs one extra pass of its
 * data, unless the runs' key ranges do not overlap (keys ascending across
 * spills): those are kept as they are, one table file per run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stage.h"

/* A sort entry: mutation index, family (batch index), type, kind, and
 * the mutation's table id, family, kind and first 16 row bytes packed for
 * comparing without touching the mutation (a bulk load sorts millions of
 * entries; most comparisons end in the packed words). */
typedef struct sent {
	uint64_t hi;     /* table id << 32 | family << 8 | kind */
	uint64_t p0, p1; /* row bytes 0-7 and 8-15, big-endian, zero-padded */
	uint32_t mi;
	uint16_t fam;
	uint8_t type;
	uint8_t gts;
} sent;

static void sent_pack(const kv_batch *b, const kv_mut *m, sent *s)
{
	s->hi = (uint64_t)m->t->id << 32 | (uint64_t)s->fam << 8 | s->gts;
	uint8_t buf[16] = {0};
	memcpy(buf, mut_row(b, m), m->rlen < 16 ? m->rlen : 16);
	uint64_t w0, w1;
	memcpy(&w0, buf, 8);
	memcpy(&w1, buf + 8, 8);
	s->p0 = __builtin_bswap64(w0);
	s->p1 = __builtin_bswap64(w1);
}

static int sent_cmp(const void *pa, const void *pb, void *arg)
{
	const kv_batch *b = arg;
	const sent *x = pa, *y = pb;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	/* Zero padding keeps memcmp order with shorter-first: where the padded
	 * words differ, so do the rows, the same way; equal words decide
	 * nothing and fall through to the whole rows. */
	if (x->p0 != y->p0)
		return x->p0 < y->p0 ? -1 : 1;
	if (x->p1 != y->p1)
		return x->p1 < y->p1 ? -1 : 1;
	const kv_mut *a = &b->m[x->mi], *c = &b->m[y->mi];
	int r = ikey_bytes_cmp(mut_row(b, a), a->rlen, mut_row(b, c), c->rlen);
	if (r)
		return r;
	size_t aq = x->type == KV_DELETE_FAMILY ? 0 : a->qlen, cq = y->type == KV_DELETE_FAMILY ? 0 : c->qlen;
	r = ikey_bytes_cmp(mut_qual(b, a), aq, mut_qual(b, c), cq);
	if (r)
		return r;
	if (!x->gts && a->ts != c->ts)
		return a->ts > c->ts ? -1 : 1; /* newest first */
	if (x->type != y->type)
		return x->type > y->type ? -1 : 1;
	return x->mi > y->mi ? -1 : x->mi < y->mi; /* the later mutation wins */
}

/* Sorts entries by sent_cmp (a total order: ties end at the mutation
 * index), with the comparison inlined and 32-byte swaps by assignment:
 * qsort_r's merge sort spent its time in memmove and indirect calls. */
#define UTIL_SORT_NAME         sent_sort
#define UTIL_SORT_TYPE         sent
#define UTIL_SORT_CTX          kv_batch *
#define UTIL_SORT_CMP(x, y, b) sent_cmp(x, y, b)
#include "sort_tmpl.h"

/* Merges the adjacent sorted runs starting at starts[0..nruns-1] (starts[nruns]
 * = n) pairwise until one is left. */
static void sent_merge_runs(sent *e, size_t n, size_t *starts, int nruns, kv_batch *b)
{
	sent *tmp = util_xmalloc(n * sizeof(sent)), *src = e, *dst = tmp;
	while (nruns > 1) {
		int out = 0;
		for (int r = 0; r < nruns; r += 2) {
			size_t lo = starts[r], mid = starts[r + 1], hi = r + 2 <= nruns ? starts[r + 2] : mid;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = sent_cmp(&src[j], &src[i], b) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
			starts[out++] = lo;
		}
		starts[out] = n;
		nruns = out;
		sent *t = src;
		src = dst;
		dst = t;
	}
	if (src != e)
		memcpy(e, src, n * sizeof(sent));
	free(tmp);
}

/* Sorts the entries. A load usually arrives as a few sorted runs (one per
 * table of the transaction, then the catalog's rows; an index build's
 * sorted chunks of 20000 entries): those are merged; anything else is
 * quicksorted. */
static void sent_sort_batch(sent *e, size_t n, kv_batch *b)
{
	enum { MAX_RUNS = 256 };
	size_t starts[MAX_RUNS + 1];
	int nruns = 1;
	starts[0] = 0;
	for (size_t i = 1; i < n; i++)
		if (sent_cmp(&e[i - 1], &e[i], b) > 0) {
			if (nruns == MAX_RUNS) {
				sent_sort(e, n, b);
				return;
			}
			starts[nruns++] = i;
		}
	starts[nruns] = n;
	if (nruns > 1)
		sent_merge_runs(e, n, starts, nruns, b);
}

static void add_file(bstage *st, const stfile *f)
{
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 8;
		st->f = util_xrealloc(st->f, (size_t)st->cap * sizeof(stfile));
	}
	st->f[st->n++] = *f;
}

void stage_unlink_file(kv_store *s, uint64_t number)
{
	char path[4096];
	store_file_path(s, number, "sst", path, sizeof(path));
	s->fs->unlink(s->fs, path);
}

void stage_free(kv_store *s, bstage *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->n; i++) {
		src_close(st->f[i].it);
		if (st->f[i].rd)
			sst_unref(st->f[i].rd);
		if (st->f[i].number)
			stage_unlink_file(s, st->f[i].number);
		sst_props_free(&st->f[i].props);
	}
	if (st->sw) {
		sst_writer_abandon(st->sw);
		stage_unlink_file(s, st->scur.number);
	}
	util_buf_free(&st->skey);
	util_buf_free(&st->slast);
	free(st->f);
	free(st->sents);
	free(st);
}

bool stage_family_opts(kv_table *t, const char *fam, kv_family_opts *out)
{
	bool found = false;
	pthread_mutex_lock(&t->mu);
	for (int i = 0; i < t->nfam && !found; i++) {
		if (!strcmp(t->fams[i].name, fam)) {
			*out = t->fams[i];
			found = true;
		}
	}
	pthread_mutex_unlock(&t->mu);
	return found;
}

/* Adds the sort entries of mutation i (a row delete: one per family). */
static bool add_entries(kv_batch *b, uint32_t i, sent **e, size_t *n, size_t *cap)
{
	kv_mut *m = &b->m[i];
	int nf = 1;
	char names[KV_MAX_FAMILIES][32];
	if (m->type == MUT_DELETE_ROW) {
		pthread_mutex_lock(&m->t->mu);
		nf = UTIL_MIN(m->t->nfam, KV_MAX_FAMILIES);
		for (int f = 0; f < nf; f++)
			memcpy(names[f], m->t->fams[f].name, 32);
		pthread_mutex_unlock(&m->t->mu);
	}
	for (int f = 0; f < nf; f++) {
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 1024;
			*e = util_xrealloc(*e, *cap * sizeof(sent));
		}
		sent *s = &(*e)[(*n)++];
		s->mi = i;
		s->type = m->type;
		s->fam = m->fam;
		if (m->type == MUT_DELETE_ROW) {
			int fi = batch_fam_index(b, names[f]);
			if (fi < 0)
				return false;
			s->fam = (uint16_t)fi;
			s->type = KV_DELETE_FAMILY;
		}
		s->gts = m->ts == KV_TS_LATEST;
		sent_pack(b, m, s);
	}
	return true;
}

bool stage_raw_runs = true;

#define STAGE_RAW_MAX ((uint64_t)1 << 30)

/* True if a run of group (t, fam, gts) from key first (to key last; NULL:
 * not known yet) is to be merged at commit: it overlaps an earlier run of
 * its group, or, its end unknown, starts before one's end (the next chunk
 * of a load in random key order), or the group already has STAGE_MAX_APART runs.
 * Such a run is written uncompressed: the merge reads it once, from the
 * page cache, so a zstd compression and decompression per block would be
 * wasted. A run that is kept apart after all is copied compressed at
 * commit (stage_finish). Past STAGE_RAW_MAX bytes of raw runs the batch
 * writes compressed runs again: raw ones take ~3x the space and would no
 * longer stay in the page cache. */
static bool run_merges(const bstage *stg, const kv_table *t, const char *fam, bool gts, const uint8_t *first,
		       size_t fl, const uint8_t *last, size_t ll)
{
	uint64_t raw_bytes = 0;
	for (int i = 0; stg && i < stg->n; i++)
		raw_bytes += stg->f[i].raw ? stg->f[i].props.file_size : 0;
	if (raw_bytes >= STAGE_RAW_MAX)
		return false;
	int n = 0;
	for (int i = 0; stg && i < stg->n; i++) {
		const stfile *f = &stg->f[i];
		const sst_props *p = &f->props;
		if (f->tid != t->id || f->gts != gts || strcmp(f->fam, fam) || !f->number || !p->slen ||
		    !p->llen)
			continue;
		if (++n >= STAGE_MAX_APART)
			return true;
		if (ikey_cmp(first, fl, p->largest, p->llen) <= 0 &&
		    (!last || ikey_cmp(last, ll, p->smallest, p->slen) >= 0))
			return true;
	}
	return false;
}

/* Opens run file f of group (t, fam, gts); raw: uncompressed (run_merges). */
static kv_status open_file(kv_store *s, kv_table *t, const char *fam, bool gts, int run, bool raw, stfile *f,
			   sst_writer **w)
{
	memset(f, 0, sizeof(*f));
	f->t = t;
	f->tid = t->id;
	snprintf(f->fam, sizeof(f->fam), "%s", fam);
	f->gts = gts;
	f->run = run;
	kv_family_opts fo;
	if (!stage_family_opts(t, f->fam, &fo))
		return kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", t->name, f->fam);
	if (raw && fo.compression_level > 0 && stage_raw_runs && !getenv("STRATA_STAGE_RUNS_COMPRESSED")) {
		fo.compression_level = 0;
		f->raw = true;
	}
	f->number = store_next_file(s);
	char path[4096];
	store_file_path(s, f->number, "sst", path, sizeof(path));
	/* Written in the foreground of a load: compression on a second thread,
	 * at the bulk level (a run is kept as a table file or merged). */
	int flags = SST_W_NO_SYNC | SST_W_ASYNC | SST_W_BULK | (f->gts ? SST_W_GLOBAL_TS : 0);
	/* A compressed run is usually kept as a table file, fsynced at commit:
	 * its writeback starts as it is written, so that fsync waits for the
	 * last MiB rather than the whole file. A raw run is merged and deleted. */
	if (!f->raw)
		flags |= SST_W_WRITEBACK;
	kv_status st = sst_writer_open_ex(s->fs, path, &fo, f->tid, flags, w);
	if (st)
		f->number = 0;
	return st;
}

/* Encodes entry e's cell key into key. */
static void sent_key(const kv_batch *b, const sent *e, util_buf *key)
{
	const kv_mut *m = &b->m[e->mi];
	const char *fam = b->fams[e->fam];
	size_t fl = strlen(fam), ql = e->type == KV_DELETE_FAMILY ? 0 : m->qlen;
	util_buf_reset(key);
	util_buf_reserve(key, ikey_size(m->rlen, fl, ql));
	key->len = ikey_encode((uint8_t *)key->data, mut_row(b, m), m->rlen, fam, fl, mut_qual(b, m), ql,
			       e->gts ? 0 : m->ts, e->type);
}

static bool same_group(const kv_batch *b, const sent *x, const sent *y)
{
	return b->m[x->mi].t->id == b->m[y->mi].t->id && x->fam == y->fam && x->gts == y->gts;
}

/* Opens the run of the group that starts at e[0] (of n entries). */
static kv_status open_run(kv_store *s, kv_batch *b, const sent *e, size_t n, int run, bstage *stg, stfile *f,
			  sst_writer **w)
{
	size_t j = 0;
	while (j + 1 < n && same_group(b, &e[0], &e[j + 1]))
		j++;
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	sent_key(b, &e[0], &lo);
	sent_key(b, &e[j], &hi);
	kv_table *t = b->m[e->mi].t;
	const char *fam = b->fams[e->fam];
	bool raw = run_merges(stg, t, fam, e->gts, (const uint8_t *)lo.data, lo.len, (const uint8_t *)hi.data,
			      hi.len);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return open_file(s, t, fam, e->gts, run, raw, f, w);
}

/* Writes the sorted entries as run files (appended to the stage). */
static kv_status write_runs(kv_store *s, kv_batch *b, const sent *e, size_t n, bstage *stg)
{
	int run = stg->runs++;
	int first = stg->n;
	kv_status st = KV_OK;
	sst_writer *w = NULL;
	stfile cur;
	util_buf key = UTIL_BUF_INIT, prev = UTIL_BUF_INIT;
	for (size_t i = 0; i < n && !st; i++) {
		const kv_mut *m = &b->m[e[i].mi];
		if (i == 0 || !same_group(b, &e[i], &e[i - 1])) {
			if (w) {
				st = sst_writer_finish(w, &cur.props);
				w = NULL;
				add_file(stg, &cur); /* even on failure: stage_free unlinks it */
				if (st)
					break;
			}
			if ((st = open_run(s, b, &e[i], n - i, run, stg, &cur, &w)))
				break;
			prev.len = 0;
		}
		sent_key(b, &e[i], &key);
		if (prev.len == key.len && !memcmp(prev.data, key.data, key.len))
			continue; /* an older copy of the same cell */
		util_buf_reset(&prev);
		util_buf_append(&prev, key.data, key.len);
		const uint8_t *v = e[i].type == KV_PUT ? mut_val(b, m) : NULL;
		st = sst_writer_add(w, (const uint8_t *)key.data, key.len, v, v ? m->vlen : 0);
	}
	if (w) {
		if (st) {
			sst_writer_abandon(w);
			cur.props = (sst_props){0};
		} else {
			st = sst_writer_finish(w, &cur.props);
		}
		add_file(stg, &cur);
	}
	util_buf_free(&key);
	util_buf_free(&prev);
	if (st) {
		/* Leave no trace of a failed run. */
		for (int i = first; i < stg->n; i++) {
			if (stg->f[i].number)
				stage_unlink_file(s, stg->f[i].number);
			sst_props_free(&stg->f[i].props);
		}
		stg->n = first;
		stg->runs--;
	}
	return st;
}

/* ---------------------------------------------------------------- streaming ordered puts */

#define MIN_RUN_CELLS 4096

/* Finishes the streamed run, if one is open (it joins the stage's files). */
static kv_status stream_close(bstage *stg)
{
	if (!stg || !stg->sw)
		return KV_OK;
	kv_status st = sst_writer_finish(stg->sw, &stg->scur.props);
	stg->sw = NULL;
	add_file(stg, &stg->scur); /* even on failure: stage_free unlinks it */
	return st;
}

/* Finishes the streamed run; a kv_batch_sorted batch stops streaming (the
 * rest is buffered), a kv_batch_sorted_runs one streams its next put into
 * a new run. */
static kv_status stream_end(kv_batch *b)
{
	/* Runs this short (cells out of order within a chunk) would make a
	 * file per few puts: the rest is buffered and sorted instead. */
	if (b->sorted_runs && b->stage && b->stage->sw && b->stage->scells < MIN_RUN_CELLS)
		b->sorted_runs = false;
	if (!b->sorted_runs)
		b->sorted = false;
	return stream_close(b->stage);
}

/* True if key k sorts after last, both of the same family. With the same
 * row length and total length the parts line up (the qualifiers have the same
 * length too), so one byte comparison orders as ikey_cmp does: the common case
 * of a row's next cell or the next row of a fixed-width key. */
static bool stream_after(const util_buf *last, const util_buf *k)
{
	const uint8_t *a = (const uint8_t *)last->data, *b = (const uint8_t *)k->data;
	if (last->len == k->len && ikey_rowlen(a) == ikey_rowlen(b))
		return ikey_bytes_cmp(a, last->len, b, k->len) < 0;
	return ikey_cmp(a, last->len, b, k->len) < 0;
}

kv_status stage_stream_put(kv_batch *b, kv_table *t, int fi, const void *row, size_t rlen, kv_ts ts,
			   const kv_put_cell *cells, size_t n, bool *taken)
{
	*taken = false;
	const char *fam = b->fams[fi];
	size_t fl = ikey_fam_len(fam); /* valid: checked by the batch */
	bool gts = ts == KV_TS_LATEST;
	bstage *stg = b->stage;
	bool in_order = false;
	const kv_put_cell *c = &cells[0];
	if (stg && stg->sw) {
		util_buf *k = &stg->skey;
		util_buf_reset(k);
		util_buf_reserve(k, ikey_size(rlen, fl, c->qlen));
		k->len = ikey_encode((uint8_t *)k->data, row, rlen, fam, fl, c->qual, c->qlen, gts ? 0 : ts,
				     KV_PUT);
		/* Strictly after the last cell: an identical cell must stay a
		 * later mutation (it wins), in a later run or the buffer. */
		if (t == stg->scur.t && gts == stg->scur.gts && fi == stg->sfi &&
		    stream_after(&stg->slast, k))
			in_order = true;
		else {
			kv_status st = stream_end(b);
			if (st || !b->sorted)
				return st;
		}
	}
	if (!in_order) {
		if (stg && stg->n && !b->sorted_runs) {
			b->sorted = false; /* a run ended: the rest is buffered */
			return KV_OK;
		}
		kv_family_opts fo;
		if (!stage_family_opts(t, fam, &fo)) {
			b->sorted = b->sorted_runs = false; /* the buffered path reports it */
			return KV_OK;
		}
		if (!stg)
			stg = b->stage = util_xcalloc(1, sizeof(bstage));
		util_buf_reset(&stg->skey);
		util_buf_reserve(&stg->skey, ikey_size(rlen, fl, c->qlen));
		stg->skey.len = ikey_encode((uint8_t *)stg->skey.data, row, rlen, fam, fl, c->qual, c->qlen,
					    gts ? 0 : ts, KV_PUT);
		bool raw =
		    run_merges(stg, t, fam, gts, (const uint8_t *)stg->skey.data, stg->skey.len, NULL, 0);
		kv_status st = open_file(b->s, t, fam, gts, stg->runs, raw, &stg->scur, &stg->sw);
		if (st) {
			stg->sw = NULL;
			return st;
		}
		stg->runs++;
		stg->sfi = fi;
		stg->scells = 0;
	}
	/* The whole row in one call: the writer takes the next cells' keys as
	 * k's with their qualifiers in place of the first's. */
	util_buf *k = &stg->skey;
	size_t pre = 2 + rlen + 1 + fl;
	kv_status st = sst_writer_add_row(stg->sw, (const uint8_t *)k->data, k->len, pre, cells, n);
	if (st)
		return st;
	size_t bytes = n * (rlen + sizeof(kv_mut));
	for (size_t i = 0; i < n; i++)
		bytes += cells[i].qlen + cells[i].vlen;
	/* The row's key becomes the last (swapped before k is patched: a swap
	 * right after the patch's stores stalled on their forwarding). */
	stg->scells += n;
	util_buf tmp = stg->skey;
	stg->skey = stg->slast;
	stg->slast = tmp;
	k = &stg->slast;
	if (n > 1) {
		/* Made the row's last cell's key (the next put's order check). */
		const kv_put_cell *e = &cells[n - 1];
		uint8_t suffix[IKEY_SUFFIX];
		memcpy(suffix, k->data + k->len - IKEY_SUFFIX, IKEY_SUFFIX);
		k->len = pre;
		util_buf_reserve(k, e->qlen + IKEY_SUFFIX);
		/* A qualifier is a few bytes: no libc call. */
		uint8_t *p = (uint8_t *)k->data + pre;
		for (size_t j = 0; j < e->qlen; j++)
			p[j] = ((const uint8_t *)e->qual)[j];
		memcpy(p + e->qlen, suffix, IKEY_SUFFIX);
		k->len = pre + e->qlen + IKEY_SUFFIX;
	}
	b->nspilled += n;
	b->spilled_bytes += bytes;
	*taken = true;
	return KV_OK;
}

kv_status kv_batch_take_runs(kv_batch *dst, kv_batch *src)
{
	if (dst->n || src->n || dst->nc || src->nc || dst->nk || src->nk ||
	    (dst->s && src->s && dst->s != src->s))
		return kv_fail(KV_INVALID, "only the runs of streamed batches can be moved");
	if (src->bad)
		return kv_fail(src->bad, "%s", src->badmsg);
	kv_status st = stream_close(dst->stage), st2 = stream_close(src->stage);
	dst->sorted = dst->sorted_runs = src->sorted = src->sorted_runs = false;
	if (st || st2)
		return st ? st : st2;
	bstage *from = src->stage;
	if (!from)
		return KV_OK;
	if (!dst->stage)
		dst->stage = util_xcalloc(1, sizeof(bstage));
	if (!dst->s)
		dst->s = src->s;
	bstage *to = dst->stage;
	/* Later runs than dst's: they win on identical cells, as a later
	 * spill of one batch would. */
	for (int i = 0; i < from->n; i++) {
		stfile f = from->f[i];
		f.run += to->runs;
		add_file(to, &f);
	}
	to->runs += from->runs;
	from->n = 0; /* the files are dst's now */
	dst->nspilled += src->nspilled;
	dst->spilled_bytes += src->spilled_bytes;
	src->nspilled = src->spilled_bytes = 0;
	stage_free(src->s, from);
	src->stage = NULL;
	return KV_OK;
}

kv_status stage_spill(kv_batch *b)
{
	if (b->sorted) {
		kv_status es = stream_end(b);
		if (es)
			return es;
	}
	if (!b->s || b->n == 0)
		return KV_OK;
	kv_store *s = b->s;
	/* Memory reused from the last spill (page faults were a tenth of a
	 * load's CPU when every spill took fresh memory). */
	sent *e = b->stage ? b->stage->sents : NULL;
	size_t n = 0, cap = b->stage ? b->stage->sents_cap : 0, ndefer = 0;
	kv_status st = KV_OK;
	for (size_t i = 0; i < b->n && !st; i++) {
		kv_mut *m = &b->m[i];
		if (m->type == MUT_INCR || m->type == MUT_APPEND) {
			st = kv_fail(KV_INVALID, "an increment or append cannot be part of a spilled batch");
		} else if (m->type == KV_DELETE && m->ts == KV_TS_LATEST && !b->resolved) {
			ndefer++; /* resolved under the row locks at commit */
		} else if (m->type != MUT_DELETE_ROW && !table_has_family(m->t, mut_fam(b, m))) {
			st = kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", m->t->name, mut_fam(b, m));
		} else if (!add_entries(b, (uint32_t)i, &e, &n, &cap)) {
			st = kv_fail(KV_TOO_LARGE, "too many families in one batch");
		}
	}
	if (!st && n) {
		sent_sort_batch(e, n, b);
		if (!b->stage)
			b->stage = util_xcalloc(1, sizeof(bstage));
		st = write_runs(s, b, e, n, b->stage);
	}
	if (b->stage) {
		b->stage->sents = e;
		b->stage->sents_cap = cap;
	} else {
		free(e);
	}
	if (st)
		return st;
	/* Keep only the deferred mutations, with fresh bytes. */
	size_t spilled_bytes = b->data.len + b->n * sizeof(kv_mut);
	util_buf keep = UTIL_BUF_INIT;
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++) {
		kv_mut m = b->m[i];
		if (!(m.type == KV_DELETE && m.ts == KV_TS_LATEST) || b->resolved)
			continue;
		size_t len = (size_t)m.rlen + m.qlen + m.vlen;
		size_t off = keep.len;
		util_buf_append(&keep, mut_row(b, &m), len);
		m.off = (uint32_t)off;
		b->m[k++] = m;
	}
	b->nspilled += b->n - k;
	/* The data buffer keeps its capacity for the next 64 MiB. */
	util_buf_reset(&b->data);
	util_buf_append(&b->data, keep.data, keep.len);
	util_buf_free(&keep);
	b->n = k;
	b->spilled_bytes += spilled_bytes - (b->data.len + k * sizeof(kv_mut));
	(void)ndefer;
	return KV_OK;
}
