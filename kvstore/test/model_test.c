/*
 * model_test.c — randomized operations against the store and against a
 * plain in-memory reference model of HBase semantics, compared on every
 * read: puts with and without explicit timestamps, all delete kinds, row
 * deletes, increments, checkAndMutate, gets and scans (forward and reverse,
 * ranges, limits, column selections, versions, time ranges, past read
 * timestamps, filters), with flushes, minor and major compactions and
 * reopens in between. Fixed seeds in CI; KV_MODEL_SEEDS / KV_MODEL_OPS
 * make it a soak test (see docs/kvstore.md). KV_MODEL_STORE=etcd://... runs
 * it against the etcd backend (tests/etcd/run.sh, which sets
 * STRATA_ETCD_GC_WINDOW_S=0 so its version GC uses the read point as the
 * model does): a fresh key prefix per seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kv.h"
#include "kvt_util.h"

/* ---------------------------------------------------------------- model */

typedef struct mcell {
	char row[8], fam[4], qual[8];
	kv_ts ts;
	uint8_t type;
	char val[24];
	uint64_t seq; /* write order */
} mcell;

static mcell *cells;
static size_t ncells, ccells;
static uint64_t seqno;

static void m_add(const char *row, const char *fam, const char *qual, kv_ts ts, uint8_t type, const char *val)
{
	if (ncells == ccells) {
		ccells = ccells ? 2 * ccells : 1024;
		cells = realloc(cells, ccells * sizeof(mcell));
	}
	mcell *c = &cells[ncells++];
	memset(c, 0, sizeof(*c));
	snprintf(c->row, sizeof(c->row), "%s", row);
	snprintf(c->fam, sizeof(c->fam), "%s", fam);
	snprintf(c->qual, sizeof(c->qual), "%s", qual ? qual : "");
	c->ts = ts;
	c->type = type;
	snprintf(c->val, sizeof(c->val), "%s", val ? val : "");
	c->seq = ++seqno;
}

#define NROWS  16
#define NQUALS 5
static const char *const FAMS[] = {"a", "b", "c"};
static const char *const QUALS[NQUALS] = {"", "q1", "q10", "q2", "x"};
static const int FAM_MAXV[] = {1, 3, 2};
static const int64_t TTL_C = 3600; /* family c: ttl 1h, min versions 1 */

static void rowname(char *b, int i)
{
	snprintf(b, 8, "r%02d", i);
}

typedef struct rq {
	kv_ts read_ts;
	int maxv;
	kv_ts min_ts, max_ts;
	/* column selection: fam mask, and optional qualifier list for fam a */
	int fam_mask;    /* 0 = all */
	int qual_mask_a; /* 0 = all qualifiers of a */
	int filter;      /* 0 none, 1 colprefix "q1", 2 colrange [q10,x), 3 rowprefix "r1", 4 scv a:q1 == v */
	char scv_val[24];
	bool scv_missing;
} rq;

static int cmp_mcell_order(const mcell *x, const mcell *y)
{
	int c = strcmp(x->qual, y->qual);
	if (c)
		return c;
	if (x->ts != y->ts)
		return x->ts > y->ts ? -1 : 1;
	return 0;
}

static int64_t now_us_cached;

/* Visible puts of (row, fam), ordered by qualifier, ts desc. */
static size_t m_visible(const char *row, const char *fam, const rq *q, mcell *out)
{
	size_t n = 0;
	int fi = fam[0] - 'a';
	for (size_t i = 0; i < ncells; i++) {
		mcell *p = &cells[i];
		if (p->type != KV_PUT || strcmp(p->row, row) || strcmp(p->fam, fam) || p->ts > q->read_ts)
			continue;
		/* The newest write of an identical cell wins. */
		bool shadowed = false;
		for (size_t j = 0; j < ncells && !shadowed; j++) {
			mcell *o = &cells[j];
			shadowed = o->seq > p->seq && o->type == KV_PUT && o->ts == p->ts &&
				   !strcmp(o->row, row) && !strcmp(o->fam, fam) && !strcmp(o->qual, p->qual);
		}
		if (shadowed)
			continue;
		bool del = false;
		for (size_t j = 0; j < ncells && !del; j++) {
			mcell *m = &cells[j];
			if (m->type == KV_PUT || m->ts > q->read_ts || strcmp(m->row, row) ||
			    strcmp(m->fam, fam))
				continue;
			switch (m->type) {
			case KV_DELETE_FAMILY:
				del = m->ts >= p->ts;
				break;
			case KV_DELETE_FAMILY_VERSION:
				del = m->ts == p->ts;
				break;
			case KV_DELETE_COLUMN:
				del = !strcmp(m->qual, p->qual) && m->ts >= p->ts;
				break;
			case KV_DELETE:
				del = !strcmp(m->qual, p->qual) && m->ts == p->ts;
				break;
			}
		}
		if (!del)
			out[n++] = *p;
	}
	/* sort */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_mcell_order(&out[j - 1], &out[j]) > 0; j--) {
			mcell t = out[j];
			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	/* versions, time range, TTL per column */
	size_t k = 0;
	int versions = 0;
	const char *curq = NULL;
	bool done = false;
	for (size_t i = 0; i < n; i++) {
		if (!curq || strcmp(curq, out[i].qual)) {
			curq = out[i].qual;
			versions = 0;
			done = false;
		}
		if (done)
			continue;
		if (q->max_ts && out[i].ts >= q->max_ts)
			continue;
		if (out[i].ts < q->min_ts) {
			done = true;
			continue;
		}
		if (fi == 2 && (int64_t)out[i].ts < now_us_cached - TTL_C * 1000000 && versions >= 1) {
			done = true;
			continue;
		}
		if (versions >= q->maxv || versions >= FAM_MAXV[fi]) {
			done = true;
			continue;
		}
		versions++;
		out[k++] = out[i];
	}
	return k;
}

/* What a major compaction at horizon h keeps (the specification in
 * compact.c): markers above h, puts above h, and old puts not deleted by
 * old markers within max_versions (and TTL/min versions for family c). */
static void m_major(kv_ts h)
{
	size_t k = 0;
	static mcell vis[4096];
	mcell *keep = malloc((ncells ? ncells : 1) * sizeof(mcell));
	for (size_t i = 0; i < ncells; i++) {
		mcell *c = &cells[i];
		if (c->ts > h) {
			keep[k++] = *c;
			continue;
		}
		if (c->type != KV_PUT)
			continue;
		rq q = {0};
		q.read_ts = h;
		q.maxv = FAM_MAXV[c->fam[0] - 'a'];
		size_t n = m_visible(c->row, c->fam, &q, vis);
		for (size_t j = 0; j < n; j++) {
			if (vis[j].seq == c->seq) {
				keep[k++] = *c;
				break;
			}
		}
	}
	memcpy(cells, keep, k * sizeof(mcell));
	ncells = k;
	free(keep);
}

static bool selected(const rq *q, int fi, const char *qual)
{
	if (q->fam_mask && !(q->fam_mask & (1 << fi)))
		return false;
	if (fi == 0 && q->qual_mask_a) {
		for (int i = 0; i < NQUALS; i++)
			if ((q->qual_mask_a & (1 << i)) && !strcmp(QUALS[i], qual))
				return true;
		return false;
	}
	return true;
}

static bool filter_cell(const rq *q, const mcell *c)
{
	switch (q->filter) {
	case 1:
		return !strncmp(c->qual, "q1", 2);
	case 2:
		return strcmp(c->qual, "q10") >= 0 && strcmp(c->qual, "x") < 0;
	default:
		return true;
	}
}

/* The model's result for one row: cells in scan order. */
static size_t m_row(const char *row, const rq *q, mcell *out)
{
	size_t n = 0;
	static mcell tmp[4096];
	if (q->filter == 3 && strncmp(row, "r1", 2))
		return 0;
	for (int f = 0; f < 3; f++) {
		size_t k = m_visible(row, FAMS[f], q, tmp);
		for (size_t i = 0; i < k; i++)
			if (selected(q, f, tmp[i].qual) && filter_cell(q, &tmp[i]))
				out[n++] = tmp[i];
	}
	if (q->filter == 4) {
		bool seen = false, match = false;
		for (size_t i = 0; i < n && !seen; i++) {
			if (!strcmp(out[i].fam, "a") && !strcmp(out[i].qual, "q1")) {
				seen = true;
				match = !strcmp(out[i].val, q->scv_val);
			}
		}
		if (seen ? !match : q->scv_missing)
			return 0;
	}
	return n;
}

/* ---------------------------------------------------------------- store side */

typedef struct ctx {
	char *dir;
	kv_store *s;
	kv_table *t;
	unsigned rnd;
	kv_ts *hist; /* commit timestamps, for past reads */
	size_t nhist, chist;
	kv_ts valid_from; /* reads at read_ts < this may differ (major compaction) */
	int checks;
} ctx;

static unsigned rnd(ctx *c, unsigned n)
{
	c->rnd = c->rnd * 1103515245u + 12345u;
	return (c->rnd >> 8) % n;
}

static void note_ts(ctx *c)
{
	if (c->nhist == c->chist) {
		c->chist = c->chist ? 2 * c->chist : 256;
		c->hist = realloc(c->hist, c->chist * sizeof(kv_ts));
	}
	c->hist[c->nhist++] = kv_read_point(c->s);
}

static kv_filter *make_filter(const rq *q)
{
	switch (q->filter) {
	case 1:
		return kv_filter_column_prefix("q1", 2);
	case 2:
		return kv_filter_column_range("q10", 3, true, "x", 1, false);
	case 3:
		return kv_filter_row_prefix("r1", 2);
	case 4:
		return kv_filter_single_column_value("a", "q1", 2, KV_CMP_EQ, q->scv_val, strlen(q->scv_val),
						     q->scv_missing);
	}
	return NULL;
}

static void fmt_cell(char *b, size_t n, const char *row, const char *fam, const char *qual, kv_ts ts,
		     int type, const char *val)
{
	snprintf(b, n, "%s/%s:%s@%llu t%d=%s", row, fam, qual, (unsigned long long)ts, type, val);
}

static void random_rq(ctx *c, rq *q)
{
	memset(q, 0, sizeof(*q));
	q->read_ts = kv_read_point(c->s);
	if (rnd(c, 4) == 0 && c->nhist) {
		kv_ts p = c->hist[rnd(c, (unsigned)c->nhist)];
		if (p >= c->valid_from)
			q->read_ts = p;
	}
	q->maxv = 1 + (int)rnd(c, 3);
	int cs = (int)rnd(c, 5);
	if (cs == 1)
		q->fam_mask = 1;
	else if (cs == 2) {
		q->fam_mask = 1 | 2;
		q->qual_mask_a = (int)(1 + rnd(c, 31));
	} else if (cs == 3)
		q->fam_mask = 2 | 4;
	if (rnd(c, 5) == 0) {
		/* Time ranges only over families without TTL. */
		q->fam_mask = q->fam_mask ? (q->fam_mask & 3) : 3;
		if (!q->fam_mask)
			q->fam_mask = 1;
		q->min_ts = 1000 + rnd(c, 6);
		q->max_ts = rnd(c, 2) ? 0 : q->min_ts + 1 + rnd(c, 6);
	}
	q->filter = rnd(c, 3) == 0 ? (int)(1 + rnd(c, 4)) : 0;
	if (q->filter == 4) {
		snprintf(q->scv_val, sizeof(q->scv_val), "v%u", rnd(c, 4));
		q->scv_missing = rnd(c, 2);
	}
}

static void fill_ro(const rq *q, kv_read_opts *ro, kv_column *cols, int *ncols)
{
	memset(ro, 0, sizeof(*ro));
	ro->read_ts = q->read_ts;
	ro->max_versions = q->maxv;
	ro->min_ts = q->min_ts;
	ro->max_ts = q->max_ts;
	int n = 0;
	if (q->fam_mask) {
		for (int f = 0; f < 3; f++) {
			if (!(q->fam_mask & (1 << f)))
				continue;
			if (f == 0 && q->qual_mask_a) {
				for (int i = 0; i < NQUALS; i++)
					if (q->qual_mask_a & (1 << i))
						cols[n++] = (kv_column){"a", QUALS[i], strlen(QUALS[i])};
			} else {
				cols[n++] = (kv_column){FAMS[f], NULL, 0};
			}
		}
	}
	ro->columns = n ? cols : NULL;
	ro->ncolumns = n;
}

static void check_scan(ctx *c)
{
	rq q;
	random_rq(c, &q);
	kv_read_opts ro;
	kv_column cols[16];
	int ncols;
	fill_ro(&q, &ro, cols, &ncols);
	kv_filter *f = make_filter(&q);
	ro.filter = f;
	kv_scan_opts so = {0};
	so.read = ro;
	int lo = (int)rnd(c, NROWS + 2) - 1, hi = (int)rnd(c, NROWS + 2) - 1;
	char slo[8], shi[8];
	if (lo >= 0) {
		rowname(slo, lo);
		so.start = slo;
		so.start_len = strlen(slo);
		so.start_exclusive = rnd(c, 3) == 0;
	}
	if (hi >= 0) {
		rowname(shi, hi);
		so.stop = shi;
		so.stop_len = strlen(shi);
		so.stop_inclusive = rnd(c, 3) == 0;
	}
	so.reverse = rnd(c, 2);
	so.limit = rnd(c, 3) == 0 ? 1 + rnd(c, 4) : 0;

	/* Model. */
	static char want[65536], got[65536];
	size_t wl = 0, gl = 0;
	want[0] = got[0] = 0;
	uint64_t rows = 0;
	static mcell out[4096];
	for (int k = 0; k < NROWS; k++) {
		int i = so.reverse ? NROWS - 1 - k : k;
		if (lo >= 0 && (i < lo || (i == lo && so.start_exclusive)))
			continue;
		if (hi >= 0 && (i > hi || (i == hi && !so.stop_inclusive)))
			continue;
		if (so.limit && rows >= so.limit)
			break;
		char r[8];
		rowname(r, i);
		size_t n = m_row(r, &q, out);
		if (n)
			rows++;
		for (size_t j = 0; j < n; j++) {
			char b[128];
			fmt_cell(b, sizeof(b), out[j].row, out[j].fam, out[j].qual, out[j].ts, KV_PUT,
				 out[j].val);
			wl += (size_t)snprintf(want + wl, sizeof(want) - wl, "%s\n", b);
		}
	}
	kv_iter *it = kv_scan(c->t, &so);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *x = kv_iter_cell(it);
		char row[40], fam[40], qual[40], val[64], b[256];
		snprintf(row, sizeof(row), "%.*s", (int)x->row.len, x->row.data);
		snprintf(fam, sizeof(fam), "%.*s", (int)x->family.len, x->family.data);
		snprintf(qual, sizeof(qual), "%.*s", (int)x->qualifier.len, x->qualifier.data);
		snprintf(val, sizeof(val), "%.*s", (int)x->value.len, x->value.data);
		fmt_cell(b, sizeof(b), row, fam, qual, x->ts, x->type, val);
		gl += (size_t)snprintf(got + gl, sizeof(got) - gl, "%s\n", b);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	kv_filter_free(f);
	if (strcmp(want, got)) {
		fprintf(stderr,
			"scan mismatch (read_ts %llu maxv %d fam %d quals %d filter %d tr [%llu,%llu) rev %d "
			"lo %d%s hi "
			"%d%s limit %llu)\nwant:\n%s\ngot:\n%s\n",
			(unsigned long long)q.read_ts, q.maxv, q.fam_mask, q.qual_mask_a, q.filter,
			(unsigned long long)q.min_ts, (unsigned long long)q.max_ts, so.reverse, lo,
			so.start_exclusive ? "x" : "", hi, so.stop_inclusive ? "i" : "",
			(unsigned long long)so.limit, want, got);
		if (getenv("KV_MODEL_DUMP")) {
			kv_scan_opts rso = {0};
			rso.read.raw = true;
			rso.read.max_versions = 100;
			rso.start = getenv("KV_MODEL_DUMP");
			rso.start_len = strlen(rso.start);
			rso.stop = rso.start;
			rso.stop_len = rso.start_len;
			rso.stop_inclusive = true;
			kv_iter *ri = kv_scan(c->t, &rso);
			for (; kv_iter_valid(ri); kv_iter_next(ri)) {
				const kv_cell *x = kv_iter_cell(ri);
				fprintf(stderr, " raw %.*s:%.*s@%llu t%d=%.*s\n", (int)x->family.len,
					x->family.data, (int)x->qualifier.len, x->qualifier.data,
					(unsigned long long)x->ts, x->type, (int)x->value.len, x->value.data);
			}
			kv_iter_close(ri);
		}
		if (getenv("KV_MODEL_DUMP"))
			for (size_t i = 0; i < ncells; i++)
				if (!strcmp(cells[i].row, getenv("KV_MODEL_DUMP")) ||
				    !strcmp(cells[i].fam, "c"))
					fprintf(stderr, " hist #%llu %s:%s@%llu t%d=%s\n",
						(unsigned long long)cells[i].seq, cells[i].fam, cells[i].qual,
						(unsigned long long)cells[i].ts, cells[i].type, cells[i].val);
		fail();
	}
	c->checks++;
}

static void check_get(ctx *c)
{
	rq q;
	random_rq(c, &q);
	if (q.filter == 3)
		q.filter = 0;
	kv_read_opts ro;
	kv_column cols[16];
	int ncols;
	fill_ro(&q, &ro, cols, &ncols);
	kv_filter *f = make_filter(&q);
	ro.filter = f;
	char r[8];
	rowname(r, (int)rnd(c, NROWS));
	static mcell out[4096];
	size_t n = m_row(r, &q, out);
	util_arena *a = util_arena_new(4096, 0);
	kv_row kr;
	assert_int_equal(kv_get(c->t, r, strlen(r), &ro, a, &kr), KV_OK);
	if (kr.n != n) {
		fprintf(stderr, "get %s: want %zu cells, got %zu (read_ts %llu, filter %d)\n", r, n, kr.n,
			(unsigned long long)q.read_ts, q.filter);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " want %s:%s@%llu=%s\n", out[i].fam, out[i].qual,
				(unsigned long long)out[i].ts, out[i].val);
		for (size_t i = 0; i < ncells; i++)
			if (!strcmp(cells[i].row, r))
				fprintf(stderr, " hist #%llu %s:%s@%llu t%d=%s\n",
					(unsigned long long)cells[i].seq, cells[i].fam, cells[i].qual,
					(unsigned long long)cells[i].ts, cells[i].type, cells[i].val);
		for (size_t i = 0; i < kr.n; i++)
			fprintf(stderr, " got %.*s:%.*s@%llu\n", (int)kr.cells[i].family.len,
				kr.cells[i].family.data, (int)kr.cells[i].qualifier.len,
				kr.cells[i].qualifier.data, (unsigned long long)kr.cells[i].ts);
	}
	assert_int_equal(kr.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(kr.cells[i].ts, out[i].ts);
		assert_int_equal(kr.cells[i].value.len, strlen(out[i].val));
		assert_memory_equal(kr.cells[i].value.data, out[i].val, kr.cells[i].value.len);
	}
	util_arena_destroy(a);
	kv_filter_free(f);
	c->checks++;
}

/* Newest visible value of a cell at "now" in the model. */
static bool m_latest(const char *row, const char *fam, const char *qual, char *val)
{
	rq q = {0};
	q.read_ts = KV_TS_MAX - 1;
	q.maxv = 1;
	static mcell out[4096];
	size_t n = m_visible(row, fam, &q, out);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(out[i].qual, qual)) {
			strcpy(val, out[i].val);
			return true;
		}
	}
	return false;
}

static kv_ts pick_ts(ctx *c, int fi)
{
	if (fi == 2 && rnd(c, 2) == 0) /* expired by TTL */
		return (kv_ts)(now_us_cached - 2 * TTL_C * 1000000) + rnd(c, 5);
	if (rnd(c, 3) == 0)
		return 1000 + rnd(c, 8);
	return KV_TS_LATEST;
}

/* The etcd backend reads a past read point at the etcd revision it was
 * taken at, so a later write with an explicit, older timestamp is not seen
 * there (the embedded engine shows it): on etcd, reads at read points taken
 * before such a write are no longer compared (docs/scale-out.md). */
static bool etcd_mode;
static void explicit_written(ctx *c, kv_ts ts, kv_ts cts)
{
	if (etcd_mode && ts != KV_TS_LATEST && cts > c->valid_from)
		c->valid_from = cts;
}

static void do_write(ctx *c)
{
	char r[8];
	rowname(r, (int)rnd(c, NROWS));
	int fi = (int)rnd(c, 3);
	const char *fam = FAMS[fi];
	const char *qual = QUALS[rnd(c, NQUALS)];
	int op = (int)rnd(c, 20);
	kv_batch *b = kv_batch_new();
	char val[24];
	snprintf(val, sizeof(val), "v%u", rnd(c, 6));
	kv_ts ts = pick_ts(c, fi);
	kv_status st;
	if (op < 10) {
		kv_batch_put(b, c->t, r, strlen(r), fam, qual, strlen(qual), ts, val, strlen(val));
		/* Sometimes a second row in the same batch. */
		char r2[8];
		rowname(r2, (int)rnd(c, NROWS));
		bool two = rnd(c, 3) == 0;
		if (two)
			kv_batch_put(b, c->t, r2, strlen(r2), "b", "q2", 2, KV_TS_LATEST, val, strlen(val));
		assert_int_equal(kv_commit(c->s, b, NULL, NULL), KV_OK);
		kv_ts cts = kv_read_point(c->s);
		explicit_written(c, ts, cts);
		m_add(r, fam, qual, ts ? ts : cts, KV_PUT, val);
		if (two)
			m_add(r2, "b", "q2", cts, KV_PUT, val);
	} else if (op < 16) {
		static const kv_cell_type kinds[] = {KV_DELETE, KV_DELETE_COLUMN, KV_DELETE_FAMILY,
						     KV_DELETE_FAMILY_VERSION};
		kv_cell_type k = kinds[rnd(c, 4)];
		if (k == KV_DELETE_FAMILY_VERSION && ts == KV_TS_LATEST)
			ts = 1000 + rnd(c, 8);
		kv_ts resolved = ts;
		if (k == KV_DELETE && ts == KV_TS_LATEST) {
			/* HBase: the newest visible version's ts (or the commit ts). */
			rq q = {0};
			q.read_ts = KV_TS_MAX - 1;
			q.maxv = 1;
			static mcell out[4096];
			size_t n = m_visible(r, fam, &q, out);
			resolved = 0;
			for (size_t i = 0; i < n; i++)
				if (!strcmp(out[i].qual, qual))
					resolved = out[i].ts;
		}
		kv_batch_delete(b, c->t, r, strlen(r), fam, qual, strlen(qual), ts, k);
		assert_int_equal(kv_commit(c->s, b, NULL, NULL), KV_OK);
		kv_ts cts = kv_read_point(c->s);
		explicit_written(c, ts, cts);
		bool famwide = k == KV_DELETE_FAMILY || k == KV_DELETE_FAMILY_VERSION;
		m_add(r, fam, famwide ? "" : qual, resolved ? resolved : cts, (uint8_t)k, NULL);
	} else if (op < 17) {
		kv_batch_delete_row(b, c->t, r, strlen(r), KV_TS_LATEST);
		assert_int_equal(kv_commit(c->s, b, NULL, NULL), KV_OK);
		kv_ts cts = kv_read_point(c->s);
		for (int f = 0; f < 3; f++)
			m_add(r, FAMS[f], "", cts, KV_DELETE_FAMILY, NULL);
	} else if (op < 18) {
		/* Counter in a:cnt. */
		char cur[24];
		int64_t base = 0;
		if (m_latest(r, "a", "cnt", cur))
			base = (int64_t)util_get_be64((const uint8_t *)cur);
		int64_t res;
		int64_t d = (int64_t)rnd(c, 10) - 3;
		assert_int_equal(kv_increment(c->t, r, strlen(r), "a", "cnt", 3, d, &res), KV_OK);
		assert_int_equal(res, base + d);
		/* Store the counter as 8 raw bytes in the model (no NULs: keep it text-safe). */
		char enc[24] = {0};
		util_put_be64((uint8_t *)enc, (uint64_t)res);
		(void)enc;
		m_add(r, "a", "cnt", kv_read_point(c->s), KV_PUT, NULL);
		/* The model compares values as strings; read the real one back instead. */
		util_arena *a = util_arena_new(1024, 0);
		kv_column col = {"a", "cnt", 3};
		kv_read_opts ro = {0};
		ro.columns = &col;
		ro.ncolumns = 1;
		kv_row kr;
		assert_int_equal(kv_get(c->t, r, strlen(r), &ro, a, &kr), KV_OK);
		assert_int_equal(kr.n, 1);
		assert_int_equal((int64_t)util_get_be64(kr.cells[0].value.data), res);
		util_arena_destroy(a);
		/* Then remove it so text comparisons stay simple. */
		kv_batch_delete(b, c->t, r, strlen(r), "a", "cnt", 3, KV_TS_LATEST, KV_DELETE_COLUMN);
		assert_int_equal(kv_commit(c->s, b, NULL, NULL), KV_OK);
		m_add(r, "a", "cnt", kv_read_point(c->s), KV_DELETE_COLUMN, NULL);
	} else {
		/* checkAndMutate on a:q1. */
		char cur[24];
		bool have = m_latest(r, "a", "q1", cur);
		char want[24];
		snprintf(want, sizeof(want), "v%u", rnd(c, 6));
		kv_cmp_op ops[] = {KV_CMP_EQ, KV_CMP_NE, KV_CMP_ABSENT, KV_CMP_PRESENT, KV_CMP_LT, KV_CMP_GE};
		kv_cmp_op o = ops[rnd(c, 6)];
		bool ok;
		int cmpv = have ? strcmp(cur, want) : 0;
		switch (o) {
		case KV_CMP_EQ:
			ok = have && cmpv == 0;
			break;
		case KV_CMP_NE:
			ok = have && cmpv != 0;
			break;
		case KV_CMP_ABSENT:
			ok = !have;
			break;
		case KV_CMP_PRESENT:
			ok = have;
			break;
		case KV_CMP_LT:
			ok = have && cmpv < 0;
			break;
		default:
			ok = have && cmpv >= 0;
			break;
		}
		kv_batch_require(b, c->t, r, strlen(r), "a", "q1", 2, o, want, strlen(want));
		kv_batch_put(b, c->t, r, strlen(r), "a", "q1", 2, KV_TS_LATEST, val, strlen(val));
		st = kv_commit(c->s, b, NULL, NULL);
		assert_int_equal(st, ok ? KV_OK : KV_CHECK_FAILED);
		if (ok)
			m_add(r, "a", "q1", kv_read_point(c->s), KV_PUT, val);
	}
	note_ts(c);
	kv_batch_free(b);
}

/* A batch big enough to spill (the store spills past 1 KiB): puts, all
 * delete kinds and row deletes over many rows, committed at once. */
static void do_big_batch(ctx *c)
{
	typedef struct bm {
		char row[8], qual[8], val[24];
		int fi, kind; /* kind: 0 put, else a kv_cell_type, or 99 row delete */
		kv_ts ts, resolved;
	} bm;
	int n = 20 + (int)rnd(c, 120);
	bm *v = calloc((size_t)n, sizeof(bm));
	kv_batch *b = kv_batch_new();
	for (int i = 0; i < n; i++) {
		bm *x = &v[i];
		rowname(x->row, (int)rnd(c, NROWS));
		x->fi = (int)rnd(c, 3);
		snprintf(x->qual, sizeof(x->qual), "%s", QUALS[rnd(c, NQUALS)]);
		snprintf(x->val, sizeof(x->val), "B%u", rnd(c, 50));
		x->ts = pick_ts(c, x->fi);
		unsigned k = rnd(c, 20);
		static const kv_cell_type kinds[] = {KV_DELETE, KV_DELETE_COLUMN, KV_DELETE_FAMILY,
						     KV_DELETE_FAMILY_VERSION};
		x->kind = k < 14 ? 0 : k < 19 ? (int)kinds[rnd(c, 4)] : 99;
		if (x->kind == KV_DELETE_FAMILY_VERSION && x->ts == KV_TS_LATEST)
			x->ts = 1000 + rnd(c, 8);
		x->resolved = x->ts;
		if (x->kind == KV_DELETE && x->ts == KV_TS_LATEST) {
			/* Resolved against the state before the batch. */
			rq q = {0};
			q.read_ts = KV_TS_MAX - 1;
			q.maxv = 1;
			static mcell out[4096];
			size_t nv = m_visible(x->row, FAMS[x->fi], &q, out);
			x->resolved = 0;
			for (size_t j = 0; j < nv; j++)
				if (!strcmp(out[j].qual, x->qual))
					x->resolved = out[j].ts;
		}
		const char *fam = FAMS[x->fi];
		if (x->kind == 0)
			kv_batch_put(b, c->t, x->row, strlen(x->row), fam, x->qual, strlen(x->qual), x->ts,
				     x->val, strlen(x->val));
		else if (x->kind == 99)
			kv_batch_delete_row(b, c->t, x->row, strlen(x->row),
					    x->ts == KV_TS_LATEST ? 0 : x->ts);
		else
			kv_batch_delete(b, c->t, x->row, strlen(x->row), fam, x->qual, strlen(x->qual), x->ts,
					(kv_cell_type)x->kind);
	}
	assert_int_equal(kv_batch_count(b), (size_t)n);
	kv_ts cts = 0;
	kv_status st = kv_commit(c->s, b, NULL, &cts);
	if (st)
		fail_msg("big batch: %s %s", kv_status_name(st), kv_errmsg());
	assert_true(cts > 0);
	for (int i = 0; i < n; i++) {
		bm *x = &v[i];
		const char *fam = FAMS[x->fi];
		explicit_written(c, x->ts, kv_read_point(c->s));
		if (x->kind == 0) {
			m_add(x->row, fam, x->qual, x->ts ? x->ts : cts, KV_PUT, x->val);
		} else if (x->kind == 99) {
			for (int f = 0; f < 3; f++)
				m_add(x->row, FAMS[f], "", x->ts ? x->ts : cts, KV_DELETE_FAMILY, NULL);
		} else {
			bool famwide = x->kind == KV_DELETE_FAMILY || x->kind == KV_DELETE_FAMILY_VERSION;
			m_add(x->row, fam, famwide ? "" : x->qual, x->resolved ? x->resolved : cts,
			      (uint8_t)x->kind, NULL);
		}
	}
	note_ts(c);
	kv_batch_free(b);
	free(v);
}

static void open_store(ctx *c)
{
	/* No background compactions: they may trim old versions, which would
	 * make past reads inexact at moments the model cannot know. */
	kv_store_opts o;
	kv_store_opts_default(&o);
	o.durability = KV_SYNC_NONE;
	o.compaction_threads = -1;
	o.batch_spill_bytes = 1024; /* bigger batches spill: large commits */
	c->s = kvt_open(c->dir, &o);
	assert_non_null(c->s);
	kv_family_opts fo[3];
	for (int i = 0; i < 3; i++) {
		kv_family_opts_default(&fo[i], FAMS[i]);
		fo[i].max_versions = FAM_MAXV[i];
		fo[i].block_size = 512; /* many blocks: exercises the index */
	}
	fo[2].ttl_seconds = TTL_C;
	fo[2].min_versions = 1;
	fo[1].bloom = KV_BLOOM_ROWCOL;
	fo[0].compression_level = 0;
	kv_status st = kv_table_create(c->s, "m", fo, 3);
	assert_true(st == KV_OK || st == KV_EXISTS);
	assert_int_equal(kv_table_open(c->s, "m", &c->t), KV_OK);
}

static int mc_cmp(const void *a, const void *b)
{
	const mcell *x = a, *y = b;
	int c = strcmp(x->row, y->row);
	if (!c)
		c = strcmp(x->fam, y->fam);
	if (!c)
		c = strcmp(x->qual, y->qual);
	if (!c && x->ts != y->ts)
		c = x->ts > y->ts ? -1 : 1;
	if (!c && x->type != y->type)
		c = x->type > y->type ? -1 : 1;
	if (!c && x->seq != y->seq)
		c = x->seq > y->seq ? -1 : 1;
	return c;
}

/* Debug aid (KV_MODEL_PARANOID): the raw store equals the raw model. */
static void check_raw(ctx *c, int op)
{
	mcell *m = malloc((ncells + 1) * sizeof(mcell));
	if (ncells)
		memcpy(m, cells, ncells * sizeof(mcell));
	qsort(m, ncells, sizeof(mcell), mc_cmp);
	size_t k = 0;
	for (size_t i = 0; i < ncells; i++) {
		if (k && !strcmp(m[k - 1].row, m[i].row) && !strcmp(m[k - 1].fam, m[i].fam) &&
		    !strcmp(m[k - 1].qual, m[i].qual) && m[k - 1].ts == m[i].ts && m[k - 1].type == m[i].type)
			continue;
		m[k++] = m[i];
	}
	kv_scan_opts so = {0};
	so.read.raw = true;
	kv_iter *it = kv_scan(c->t, &so);
	size_t i = 0;
	for (; kv_iter_valid(it); kv_iter_next(it), i++) {
		const kv_cell *x = kv_iter_cell(it);
		char b[256], w[256];
		snprintf(b, sizeof(b), "%.*s/%.*s:%.*s@%llu t%d", (int)x->row.len, x->row.data,
			 (int)x->family.len, x->family.data, (int)x->qualifier.len, x->qualifier.data,
			 (unsigned long long)x->ts, x->type);
		if (i < k)
			snprintf(w, sizeof(w), "%s/%s:%s@%llu t%d", m[i].row, m[i].fam, m[i].qual,
				 (unsigned long long)m[i].ts, m[i].type);
		else
			snprintf(w, sizeof(w), "(end)");
		if (strcmp(b, w)) {
			fprintf(stderr, "op %d: raw mismatch at %zu: store %s model %s\n", op, i, b, w);
			for (size_t j = 0; j < k; j++)
				fprintf(stderr, "  model[%zu] %s/%s:%s@%llu t%d #%llu\n", j, m[j].row,
					m[j].fam, m[j].qual, (unsigned long long)m[j].ts, m[j].type,
					(unsigned long long)m[j].seq);
			fail();
		}
	}
	assert_int_equal(i, k);
	kv_iter_close(it);
	free(m);
}

/* Everything a read at the read point sees (3 versions, all families). */
static char *visible_now(ctx *c)
{
	util_buf b = UTIL_BUF_INIT;
	kv_scan_opts so = {0};
	so.read.max_versions = 3;
	kv_iter *it = kv_scan(c->t, &so);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *x = kv_iter_cell(it);
		util_buf_printf(&b, "%.*s/%.*s:%.*s@%llu=%.*s\n", (int)x->row.len, x->row.data,
				(int)x->family.len, x->family.data, (int)x->qualifier.len, x->qualifier.data,
				(unsigned long long)x->ts, (int)x->value.len, x->value.data);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
	util_buf_putc(&b, 0);
	return util_buf_steal(&b, NULL);
}

/* A minor compaction may trim hidden and excess versions (keeping markers):
 * reads at the read point must not change; the model then takes the
 * store's raw cells as its new state (old versions are gone for good). */
static void minor_compact(ctx *c)
{
	assert_int_equal(kv_table_flush(c->t), KV_OK);
	char *before = visible_now(c);
	c->valid_from = kv_read_point(c->s);
	assert_int_equal(kv_table_compact(c->t, false), KV_OK);
	char *after = visible_now(c);
	if (strcmp(before, after)) {
		fprintf(stderr, "minor compaction changed current reads:\nbefore:\n%s\nafter:\n%s\n", before,
			after);
		fail();
	}
	free(before);
	free(after);
	ncells = 0;
	kv_scan_opts so = {0};
	so.read.raw = true;
	kv_iter *it = kv_scan(c->t, &so);
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *x = kv_iter_cell(it);
		char r[16], f[8], q[16], v[32];
		snprintf(r, sizeof(r), "%.*s", (int)x->row.len, x->row.data);
		snprintf(f, sizeof(f), "%.*s", (int)x->family.len, x->family.data);
		snprintf(q, sizeof(q), "%.*s", (int)x->qualifier.len, x->qualifier.data);
		snprintf(v, sizeof(v), "%.*s", (int)x->value.len, x->value.data);
		m_add(r, f, q, x->ts, x->type, x->type == KV_PUT ? v : NULL);
	}
	assert_int_equal(kv_iter_status(it), KV_OK);
	kv_iter_close(it);
}

static void run_seed(unsigned seed, int ops)
{
	ctx c = {0};
	c.rnd = seed;
	const char *ext = getenv("KV_MODEL_STORE");
	etcd_mode = ext != NULL;
	if (ext) {
		char uri[512];
		snprintf(uri, sizeof uri, "%s/model-%d-%u-%lld", ext, (int)getpid(), seed,
			 (long long)util_now_us());
		c.dir = strdup(uri);
	} else {
		c.dir = kvt_tmpdir("model");
	}
	ncells = 0;
	seqno = 0;
	now_us_cached = util_now_us();
	open_store(&c);
	for (int i = 0; i < ops; i++) {
		if (getenv("KV_MODEL_PARANOID"))
			check_raw(&c, i);
		unsigned r = rnd(&c, 100);
		if (getenv("KV_MODEL_TRACE"))
			fprintf(stderr, "op %d: r=%u\n", i, r);
		if (r < 52)
			do_write(&c);
		else if (r < 55)
			do_big_batch(&c);
		else if (r < 75)
			check_scan(&c);
		else if (r < 93)
			check_get(&c);
		else if (r < 96)
			assert_int_equal(kv_table_flush(c.t), KV_OK);
		else if (r < 98) {
			bool major = rnd(&c, 2);
			if (major) {
				c.valid_from = kv_read_point(c.s);
				m_major(c.valid_from);
				assert_int_equal(kv_table_compact(c.t, major), KV_OK);
			} else {
				minor_compact(&c);
			}
		} else {
			kv_table_close(c.t);
			kv_store_close(c.s);
			open_store(&c);
		}
	}
	kv_table_close(c.t);
	kv_store_close(c.s);
	if (!ext)
		kvt_rmdir(c.dir);
	free(c.dir);
	free(c.hist);
	printf("seed %u: %d reads checked, %zu model cells\n", seed, c.checks, ncells);
}

static void test_model(void **state)
{
	(void)state;
	int seeds = getenv("KV_MODEL_SEEDS") ? atoi(getenv("KV_MODEL_SEEDS")) : 6;
	int ops = getenv("KV_MODEL_OPS") ? atoi(getenv("KV_MODEL_OPS")) : 1500;
	for (int s = 1; s <= seeds; s++)
		run_seed((unsigned)s * 7919u, ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
