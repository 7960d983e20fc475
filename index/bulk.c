/*
 * bulk.c — the bulk build of a non-unique index that writers do not
 * maintain yet (transactional CREATE INDEX, REINDEX: the caller catches up
 * at commit with rows changed after the build started).
 *
 * Every data row is read at one snapshot; its entry (key, value, the row's
 * timestamp) is appended to an in-memory run, and the run's sort entries
 * (the first 16 key bytes packed into two words, and the record's offset)
 * are sorted with the comparison inlined. A sorted run goes into one
 * kv_batch in key order, so the batch spills ascending, non-overlapping
 * run files that its ingest keeps as they are (no merge pass at commit,
 * kvstore/stage.c). A run bigger than RUN_LIMIT is handed to the batch on
 * its own (those runs overlap, and the ingest merges them).
 *
 * With a second row model (o->model2, safe on another thread), the data's
 * key range is split in two (kv_split_points) and the upper half read,
 * encoded and sorted on a thread of its own. The runs are then cut at the
 * larger run's median key and each half merged into a batch of its own and
 * ingested by one of two threads (two sets of files that do not overlap).
 * Nothing is written before those commits: a failed or cancelled build
 * leaves the index storage as it was (the storage is private to the
 * caller's transaction, so a failure between the two commits is dropped
 * with it). Progress reports carry the lower part's last key: not a
 * resume position (bulk builds are not persisted: a new build starts over).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idx_int.h"

/* Bytes of entries one thread sorts in memory before handing them over
 * (with their sort entries and the sort's scratch about twice that),
 * unless idx_backfill_opts.run_bytes says otherwise. */
#define RUN_LIMIT (64u << 20)
/* Rows between progress reports (and cancel checks). */
#define PROGRESS_ROWS 20000

/* A record in run.bytes: ts (8) | key length (4) | value length (4) | key | value. */
#define REC_HDR 16

typedef struct bsent {
	uint64_t p0, p1; /* key bytes 0-7 and 8-15, big-endian, zero-padded */
	size_t off;      /* of the record in run.bytes */
} bsent;

typedef struct brun {
	util_buf bytes;
	bsent *e;
	size_t n, cap;
} brun;

typedef struct bshared {
	kv_batch *b;
	pthread_mutex_t mu; /* guards b */
	const idx_def *d;
	atomic_bool stop;
	atomic_uint_fast64_t rows;
} bshared;

/* One part of the key range and the thread that reads it. */
typedef struct bpart {
	bshared *sh;
	kv_table *data;
	const idx_rowmodel *m;
	kv_ts ts;
	const void *start, *stop; /* NULL: unbounded */
	size_t start_len, stop_len;
	bool start_exclusive;
	const idx_backfill_opts *o; /* progress reports: only the calling thread's part */
	uint64_t rows_before;       /* rows done before this build (resume) */
	size_t run_limit;           /* RUN_LIMIT or idx_backfill_opts.run_bytes */
	brun run;
	uint64_t rows; /* rows read */
	util_buf last; /* last data key read (at each report and at the end) */
	kv_status st;
	char msg[256]; /* kv_errmsg() of a failure (it is per thread) */
} bpart;

static inline const uint8_t *rec_key(const uint8_t *base, size_t off, uint32_t *kl)
{
	memcpy(kl, base + off + 8, 4);
	return base + off + REC_HDR;
}

/* Compares entries of runs whose bytes start at xb and yb. */
static inline int bsent_cmp2(const bsent *x, const uint8_t *xb, const bsent *y, const uint8_t *yb)
{
	if (x->p0 != y->p0)
		return x->p0 < y->p0 ? -1 : 1;
	if (x->p1 != y->p1)
		return x->p1 < y->p1 ? -1 : 1;
	/* Zero padding keeps memcmp order with shorter first: equal words
	 * decide nothing, so the whole keys do. */
	uint32_t xl, yl;
	const uint8_t *xk = rec_key(xb, x->off, &xl), *yk = rec_key(yb, y->off, &yl);
	return kv_slice_cmp((kv_slice){xk, xl}, (kv_slice){yk, yl});
}

static inline int bsent_cmp(const bsent *x, const bsent *y, const uint8_t *base)
{
	return bsent_cmp2(x, base, y, base);
}

/* The comparison inlined and 24-byte swaps by assignment. */
#define UTIL_SORT_NAME            bsent_sort
#define UTIL_SORT_TYPE            bsent
#define UTIL_SORT_CTX             const uint8_t *
#define UTIL_SORT_CMP(x, y, base) bsent_cmp(x, y, base)
#include "sort_tmpl.h"

/* The 8 bits of the packed prefix starting at bit `hb` (127 = the first
 * key bit) downwards. */
static inline unsigned digit(const bsent *x, int hb)
{
	if (hb >= 71)
		return (unsigned)(x->p0 >> (hb - 71)) & 0xff;
	if (hb >= 64) /* straddles the two words */
		return (unsigned)((x->p0 << (71 - hb)) | (x->p1 >> (hb - 7))) & 0xff;
	return (unsigned)(x->p1 >> (hb - 7)) & 0xff; /* hb >= 7 */
}

/* MSD radix sort on the packed prefixes: each level skips the bits all
 * entries share (index keys start with type tags and common leading
 * bytes) and distributes on the next 8; small buckets and entries equal
 * in their first 16 bytes go to the quicksort. tmp holds n entries. */
static void bsent_radix(bsent *e, size_t n, bsent *tmp, const uint8_t *base)
{
	if (n <= 64) {
		bsent_sort(e, n, base);
		return;
	}
	uint64_t d0 = 0, d1 = 0;
	for (size_t i = 1; i < n; i++) {
		d0 |= e[i].p0 ^ e[0].p0;
		d1 |= e[i].p1 ^ e[0].p1;
	}
	if (!d0 && !d1) {
		bsent_sort(e, n, base);
		return;
	}
	int hb = d0 ? 64 + 63 - __builtin_clzll(d0) : 63 - __builtin_clzll(d1);
	if (hb < 7)
		hb = 7;
	size_t cnt[256] = {0}, at[256];
	for (size_t i = 0; i < n; i++)
		cnt[digit(&e[i], hb)]++;
	size_t sum = 0;
	for (int b = 0; b < 256; b++) {
		at[b] = sum;
		sum += cnt[b];
	}
	for (size_t i = 0; i < n; i++)
		tmp[at[digit(&e[i], hb)]++] = e[i];
	memcpy(e, tmp, n * sizeof *e);
	size_t start = 0;
	for (int b = 0; b < 256; b++) {
		if (cnt[b] > 1)
			bsent_radix(e + start, cnt[b], tmp, base);
		start += cnt[b];
	}
}

static void run_sort(brun *r)
{
	if (r->n < 2)
		return;
	bsent *tmp = util_xmalloc(r->n * sizeof *tmp);
	bsent_radix(r->e, r->n, tmp, (const uint8_t *)r->bytes.data);
	free(tmp);
}

/* Appends an entry (its value marked verified) to the run. */
static void run_add(brun *r, const util_buf *key, const util_buf *val, kv_ts ts)
{
	uint32_t kl = (uint32_t)key->len, vl = (uint32_t)val->len;
	size_t off = r->bytes.len;
	util_buf_reserve(&r->bytes, REC_HDR + kl + vl);
	uint8_t *p = (uint8_t *)r->bytes.data + off;
	uint64_t t = ts;
	memcpy(p, &t, 8);
	memcpy(p + 8, &kl, 4);
	memcpy(p + 12, &vl, 4);
	memcpy(p + REC_HDR, key->data, kl);
	memcpy(p + REC_HDR + kl, val->data, vl);
	if (vl)
		p[REC_HDR + kl] |= IDX_F_VERIFIED; /* read and written at one snapshot */
	r->bytes.len = off + REC_HDR + kl + vl;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 4096;
		r->e = util_xrealloc(r->e, r->cap * sizeof *r->e);
	}
	bsent *s = &r->e[r->n++];
	uint8_t w[16] = {0};
	memcpy(w, key->data, kl < 16 ? kl : 16);
	uint64_t w0, w1;
	memcpy(&w0, w, 8);
	memcpy(&w1, w + 8, 8);
	s->p0 = __builtin_bswap64(w0);
	s->p1 = __builtin_bswap64(w1);
	s->off = off;
}

static void run_reset(brun *r)
{
	util_buf_reset(&r->bytes);
	r->n = 0;
}

static void run_free(brun *r)
{
	util_buf_free(&r->bytes);
	free(r->e);
}

static void batch_put_rec(kv_batch *b, kv_table *t, const uint8_t *base, size_t off)
{
	uint64_t ts;
	uint32_t kl, vl;
	memcpy(&ts, base + off, 8);
	memcpy(&kl, base + off + 8, 4);
	memcpy(&vl, base + off + 12, 4);
	const uint8_t *k = base + off + REC_HDR;
	kv_batch_put(b, t, k, kl, IDX_FAMILY, "", 0, (kv_ts)ts, k + kl, vl);
}

/* Hands a sorted run to the batch (a full run in the middle of a build). */
static void run_to_batch(bshared *sh, brun *r)
{
	const uint8_t *base = (const uint8_t *)r->bytes.data;
	pthread_mutex_lock(&sh->mu);
	for (size_t i = 0; i < r->n; i++)
		batch_put_rec(sh->b, sh->d->kv, base, r->e[i].off);
	pthread_mutex_unlock(&sh->mu);
	run_reset(r);
}

/* Reads the part's rows into its run (sorted at the end). */
static void read_part(bpart *p)
{
	const idx_rowmodel *m = p->m;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = p->ts;
	so.read.columns = m->columns;
	so.read.ncolumns = m->ncolumns;
	so.read.no_cache = true;
	so.start = p->start;
	so.start_len = p->start_len;
	so.start_exclusive = p->start != NULL && p->start_exclusive;
	so.stop = p->stop;
	so.stop_len = p->stop_len;
	kv_iter *it = kv_scan(p->data, &so);
	kv_cell *cells = NULL;
	size_t capcells = 0;
	util_arena *a = util_arena_new(16 * 1024, 0);
	util_buf key = UTIL_BUF_INIT, val = UTIL_BUF_INIT;
	uint64_t since = 0;
	kv_slice row = {NULL, 0}; /* the last row read (in a, until the next) */
	kv_status st = kv_iter_status(it);
	while (st == KV_OK && kv_iter_valid(it)) {
		/* One row: copy the cells the model needs (the iterator's are
		 * valid one step). */
		size_t ncells = 0;
		util_arena_reset(a);
		const kv_cell *first = kv_iter_cell(it);
		row = (kv_slice){util_arena_memdup_nz(a, first->row.data, first->row.len), first->row.len};
		for (;;) {
			const kv_cell *x = kv_iter_cell(it);
			if (idx_model_wants(m, x)) {
				if (ncells == capcells) {
					capcells = capcells ? capcells * 2 : 16;
					cells = util_xrealloc(cells, sizeof *cells * capcells);
				}
				kv_cell *cp = &cells[ncells++];
				*cp = *x;
				cp->row = row;
				cp->family.data = util_arena_memdup_nz(a, x->family.data, x->family.len);
				cp->qualifier.data =
				    util_arena_memdup_nz(a, x->qualifier.data, x->qualifier.len);
				cp->value.data = util_arena_memdup_nz(a, x->value.data, x->value.len);
			}
			kv_iter_next(it);
			if (!kv_iter_valid(it) || kv_slice_cmp(kv_iter_cell(it)->row, row) != 0)
				break;
		}
		util_buf_reset(&key);
		util_buf_reset(&val);
		kv_ts rts = 0;
		if (m->entry(m->arg, cells, ncells, &key, &val, &rts)) {
			run_add(&p->run, &key, &val, rts);
			if (p->run.bytes.len >= p->run_limit) {
				run_sort(&p->run);
				run_to_batch(p->sh, &p->run);
			}
		}
		p->rows++;
		if (++since == PROGRESS_ROWS) {
			util_buf_reset(&p->last);
			util_buf_append(&p->last, row.data, row.len);
			/* The shared count moves per report, not per row (one cache
			 * line between two threads). */
			uint64_t done = atomic_fetch_add(&p->sh->rows, since) + since;
			since = 0;
			if (atomic_load(&p->sh->stop)) {
				st = KV_BUSY;
				break;
			}
			if (p->o && p->o->progress &&
			    p->o->progress(p->o->progress_arg, p->rows_before + done, p->last.data,
					   p->last.len) != 0) {
				atomic_store(&p->sh->stop, true);
				st = KV_BUSY;
				break;
			}
		}
		st = kv_iter_status(it);
	}
	if (st == KV_OK)
		st = kv_iter_status(it);
	if (st == KV_OK && row.len) {
		util_buf_reset(&p->last);
		util_buf_append(&p->last, row.data, row.len);
	}
	kv_iter_close(it);
	free(cells);
	util_buf_free(&key);
	util_buf_free(&val);
	util_arena_destroy(a);
	if (st == KV_OK)
		run_sort(&p->run);
	if (st != KV_OK) {
		atomic_store(&p->sh->stop, true);
		if (st != KV_BUSY)
			snprintf(p->msg, sizeof p->msg, "%s", kv_errmsg());
	}
	p->st = st;
}

static void *part_thread(void *arg)
{
	read_part(arg);
	return NULL;
}

/* The entries [lo[i], hi[i]) of each part's sorted run, merged into one
 * batch and committed as an ingest (on a thread of its own for the upper
 * half of the keys). */
typedef struct bwrite {
	bshared *sh;
	kv_batch *b;
	bpart *parts;
	int n;
	size_t lo[2], hi[2];
	bool no_sync;
	kv_status st;
	char msg[256]; /* kv_errmsg() of a failure (it is per thread) */
} bwrite;

/* Entries ahead whose record the merge prefetches. */
#define PREFETCH 12

static void write_range(bwrite *w)
{
	size_t pos[2] = {w->lo[0], w->lo[1]};
	for (;;) {
		int best = -1;
		for (int i = 0; i < w->n; i++) {
			if (pos[i] == w->hi[i])
				continue;
			const brun *r = &w->parts[i].run, *br = best < 0 ? NULL : &w->parts[best].run;
			if (best < 0 || bsent_cmp2(&r->e[pos[i]], (const uint8_t *)r->bytes.data,
						   &br->e[pos[best]], (const uint8_t *)br->bytes.data) < 0)
				best = i;
		}
		if (best < 0)
			break;
		const brun *r = &w->parts[best].run;
		/* The records are in read order, the entries in key order: fetch
		 * ahead what the merge reads next. */
		if (pos[best] + PREFETCH < w->hi[best])
			__builtin_prefetch(r->bytes.data + r->e[pos[best] + PREFETCH].off);
		batch_put_rec(w->b, w->sh->d->kv, (const uint8_t *)r->bytes.data, r->e[pos[best]].off);
		pos[best]++;
	}
	w->st = KV_OK;
	if (kv_batch_count(w->b)) {
		kv_write_opts wo;
		memset(&wo, 0, sizeof wo);
		wo.no_sync = w->no_sync;
		wo.ingest = true;
		w->st = kv_commit(kv_table_store(w->sh->d->kv), w->b, &wo, NULL);
		if (w->st != KV_OK)
			snprintf(w->msg, sizeof w->msg, "%s", kv_errmsg());
	}
}

static void *write_thread(void *arg)
{
	write_range(arg);
	return NULL;
}

/* First entry of run r not below x (of run xr). */
static size_t lower_bound(const brun *r, const bsent *x, const brun *xr)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (bsent_cmp2(&r->e[mid], (const uint8_t *)r->bytes.data, x,
			       (const uint8_t *)xr->bytes.data) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Below this many entries one thread writes them all. */
#define SPLIT_WRITE_MIN 100000

/* Writes the parts' runs: the keys below the larger run's median by the
 * calling thread into sh->b, the others by a second thread into a batch
 * of its own; two ingests of non-overlapping files. */
static kv_status write_runs(bshared *sh, bpart *parts, int n, bool no_sync, util_err *err)
{
	bwrite w[2];
	memset(w, 0, sizeof w);
	for (int k = 0; k < 2; k++) {
		w[k].sh = sh;
		w[k].parts = parts;
		w[k].n = n;
		w[k].no_sync = no_sync;
	}
	w[0].b = sh->b;
	size_t total = 0;
	int big = 0;
	for (int i = 0; i < n; i++) {
		total += parts[i].run.n;
		w[0].hi[i] = w[1].hi[i] = parts[i].run.n;
		if (parts[i].run.n > parts[big].run.n)
			big = i;
	}
	bool two = total >= SPLIT_WRITE_MIN;
	if (two) {
		const brun *L = &parts[big].run;
		const bsent *median = &L->e[L->n / 2];
		for (int i = 0; i < n; i++) {
			size_t cut = i == big ? L->n / 2 : lower_bound(&parts[i].run, median, L);
			w[0].hi[i] = w[1].lo[i] = cut;
		}
		w[1].b = kv_batch_new();
	}
	pthread_t th;
	bool threaded = two && pthread_create(&th, NULL, write_thread, &w[1]) == 0;
	write_range(&w[0]);
	if (threaded)
		pthread_join(th, NULL);
	else if (two)
		write_range(&w[1]);
	if (two)
		kv_batch_free(w[1].b);
	for (int k = 0; k < 2; k++) {
		if (w[k].st == KV_OK)
			continue;
		if (err && !util_err_isset(err))
			util_err_set(err, UTIL_E_IO_ERROR, "index build: %s", w[k].msg);
		return w[k].st;
	}
	return KV_OK;
}

kv_status idx_bulk_build(kv_table *data, const idx_def *d, const idx_rowmodel *m, const idx_backfill_opts *o,
			 uint64_t *rows_done, util_err *err)
{
	kv_store *s = kv_table_store(data);
	bshared sh;
	memset(&sh, 0, sizeof sh);
	sh.b = kv_batch_new();
	sh.d = d;
	pthread_mutex_init(&sh.mu, NULL);
	atomic_init(&sh.stop, false);
	atomic_init(&sh.rows, 0);
	uint64_t before = rows_done ? *rows_done : 0;
	bpart parts[2];
	memset(parts, 0, sizeof parts);
	for (int i = 0; i < 2; i++) {
		parts[i].sh = &sh;
		parts[i].data = data;
		parts[i].ts = kv_read_point(s);
		parts[i].rows_before = before;
		parts[i].run_limit = o && o->run_bytes ? o->run_bytes : RUN_LIMIT;
	}
	parts[1].ts = parts[0].ts; /* one snapshot for both */
	parts[0].m = m;
	parts[0].o = o;
	if (o && o->resume) {
		parts[0].start = o->resume;
		parts[0].start_len = o->resume_len;
		parts[0].start_exclusive = true;
	}
	/* A second thread reads the upper half when the caller gave a model
	 * for it and the sorted files show where the middle is. */
	int nparts = 1;
	util_arena *pa = util_arena_new(4096, 0);
	if (o && o->model2) {
		kv_slice mid;
		int np = 0;
		if (kv_split_points(data, parts[0].start, parts[0].start_len, NULL, 0, 2, pa, &mid, &np) ==
			KV_OK &&
		    np == 1) {
			parts[0].stop = mid.data;
			parts[0].stop_len = mid.len;
			parts[1].m = o->model2;
			parts[1].start = mid.data;
			parts[1].start_len = mid.len;
			nparts = 2;
		}
	}
	pthread_t th;
	bool threaded = nparts == 2 && pthread_create(&th, NULL, part_thread, &parts[1]) == 0;
	if (nparts == 2 && !threaded) {
		/* No thread: the lower part reads everything. */
		parts[0].stop = NULL;
		parts[0].stop_len = 0;
		nparts = 1;
	}
	read_part(&parts[0]);
	if (threaded)
		pthread_join(th, NULL);
	/* A part stopped by the other's failure says KV_BUSY: report the
	 * failure. */
	kv_status st = KV_OK;
	for (int i = 0; i < nparts; i++) {
		if (parts[i].st == KV_OK || (st != KV_OK && parts[i].st == KV_BUSY))
			continue;
		st = parts[i].st;
		if (st != KV_BUSY && err && !util_err_isset(err))
			util_err_set(err, UTIL_E_IO_ERROR, "index build: %s", parts[i].msg);
	}
	uint64_t total = before + parts[0].rows + (nparts == 2 ? parts[1].rows : 0);
	/* The last report (the position: the last row of the range) comes
	 * before the commit, so that a cancel still leaves nothing. */
	const bpart *lp = &parts[nparts - 1];
	if (st == KV_OK && o && o->progress && lp->last.len &&
	    o->progress(o->progress_arg, total, lp->last.data, lp->last.len) != 0)
		st = KV_BUSY;
	if (st == KV_OK)
		st = write_runs(&sh, parts, nparts, o && o->no_sync, err);
	if (st == KV_OK && rows_done)
		*rows_done = total;
	if (st != KV_OK && st != KV_BUSY && err && !util_err_isset(err))
		util_err_set(err, UTIL_E_IO_ERROR, "index build: %s", kv_errmsg());
	for (int i = 0; i < 2; i++) {
		run_free(&parts[i].run);
		util_buf_free(&parts[i].last);
	}
	util_arena_destroy(pa);
	pthread_mutex_destroy(&sh.mu);
	kv_batch_free(sh.b);
	return st;
}
