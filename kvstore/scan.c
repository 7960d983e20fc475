/*
 * scan.c — reads: the scan iterator (HBase's StoreScanner + ScanQueryMatcher
 * in one), kv_get, first/last row. A scan merges the memstores and sorted
 * files of a superversion, then per cell applies, in order: read timestamp,
 * duplicate removal, delete markers (DeleteFamily, DeleteFamilyVersion,
 * DeleteColumn, Delete), column selection, time range, TTL/min versions,
 * max versions, and the filter. Skips use "step a few cells, then seek" so
 * that a skip over many cells goes through the block index.
 *
 * Reverse scans walk rows backwards (seek_lt to find the previous row) and
 * read each row forwards, as HBase does since HBASE-4811.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blk.h"
#include "ekv.h"
#include "kv_int.h"

#define STEPS_BEFORE_SEEK 4

typedef struct colsel {
	char fam[32];
	size_t flen;
	kv_slice *quals; /* sorted; NULL = all qualifiers */
	int nq;
} colsel;

struct kv_iter {
	kv_table *t;
	kv_sv *sv;
	kv_status st;
	char errmsg[256];
	kv_src *src;
	util_arena *mem; /* iterator-lifetime allocations */

	kv_ts read_ts;
	kv_ts read_point; /* at creation */
	bool latest;
	kv_ts min_ts, max_ts;
	int max_versions;
	bool raw;
	/* No source holds a family-wide marker (build_sources): the
	 * empty-qualifier column is skipped past as any other. */
	bool no_fam_markers;
	int64_t now_us;
	colsel *cols;
	int ncols;
	kv_filter *filter;
	bool buffer_rows;

	bool reverse;
	const uint8_t *start;
	size_t start_len;
	bool start_excl;
	const uint8_t *stop;
	size_t stop_len;
	bool stop_incl;
	bool has_stop;
	uint64_t limit, rows_out;
	uint32_t batch;

	/* Position. */
	bool done;
	bool need_next;
	bool in_row;
	bool last_row; /* skipping the rest of the range's last row: end, no seek */
	util_buf row;
	bool row_counted;
	uint64_t row_cells;
	util_buf rev_target; /* reverse: next seek_lt target (empty = from the end) */
	int64_t etcd_page;   /* etcd: the source's first page (scan_internal) */
	bool rev_from_end;

	/* Family state. */
	util_buf famname;
	const kv_family_opts *fo;
	const colsel *fsel;
	int qidx;
	bool has_df;
	kv_ts df_ts;
	kv_ts *dfv;
	int ndfv, cdfv;

	/* Column state. */
	util_buf colkey; /* key bytes of the current column (without suffix) */
	bool col_done;
	bool col_selected;
	bool has_dc;
	kv_ts dc_ts;
	bool has_del;
	kv_ts del_ts;
	int versions;
	kv_ts last_ts;
	uint8_t last_type;
	bool have_last;

	/* Output. */
	kv_cell cell;
	bool valid;
	bool row_start;
	/* Buffered rows (filters with a row-end decision). */
	util_arena *rowmem;
	kv_cell *rcells;
	size_t nr, cr, rpos;
	bool draining;
	util_buf seekbuf;
	util_buf pending; /* seek deferred until the empty-qualifier column ends */
	bool is_static;
	bool no_done;
	rscan *rs; /* reverse scans delegate to rscan.c */
	/* Essential-family mode (see filter_essential_family). */
	bool essential;
	bool fam_known; /* famname/fo/fsel/fam_skip describe the last family seen */
	bool fam_skip;
	bool row_used; /* rowmem holds copies */
	char ess[32];
	size_t esslen;
	kv_scan_opts join_opts; /* read options for the other families */
	kv_column *join_cols;
	int njoin;
	/* Plain-scan fast path (advance_fast): one sorted file, no markers,
	 * every cell visible. */
	bool fast;
	uint64_t looked;  /* source cells the merging loop looked at (tests) */
	size_t fast_klen; /* key length of the cell last emitted by fast_take */
	/* The single source when it is a sorted file, or a chain of key-disjoint
	 * files of one large commit (chain.c): only_files[0..n_only). */
	kv_sfile **only_files;
	int n_only;
	/* kv_iter_skip_rows: the cells of the row it stopped at, read ahead
	 * up to the test cell; the current cell is stash[spos - 1] and
	 * stash[spos..nstash) come before the source's entry (kv_iter_next
	 * and iter_row hand them out first). Qualifiers and the family (first
	 * sflen bytes) are copied into sbytes; values point into the source's
	 * block until a move could leave it (stash_detach copies them). */
	struct stash_cell *stash;
	size_t nstash, cstash, spos, sdetached, sflen;
	util_buf sbytes;
	/* kv_iter_row_hold: called before a move that may leave the block the
	 * values handed out point into (NULL outside that call). */
	void (*leave)(void *arg);
	void *leave_arg;
};

typedef struct stash_cell {
	const uint8_t *v; /* NULL: the value is at voff in sbytes */
	size_t voff, qoff;
	uint32_t vl, ql;
	kv_ts ts;
	uint8_t type;
} stash_cell;

static void it_fail(kv_iter *it, kv_status st)
{
	if (!it->st) {
		it->st = st;
		snprintf(it->errmsg, sizeof(it->errmsg), "%s", kv_errmsg());
	}
	it->valid = false;
	it->done = true;
}

/* ---------------------------------------------------------------- seeking */

static void seek_key(kv_iter *it, const uint8_t *k, size_t kl)
{
	src_seek(it->src, k, kl);
	it->need_next = false;
}

static uint8_t *seekbuf(kv_iter *it, size_t n)
{
	util_buf_reset(&it->seekbuf);
	util_buf_reserve(&it->seekbuf, n);
	return (uint8_t *)it->seekbuf.data;
}

/* Seeks to the first key after every cell of the current row. */
static void seek_next_row(kv_iter *it)
{
	size_t rl = it->row.len;
	uint8_t *k = seekbuf(it, ikey_size(rl + 1, 0, 0));
	uint8_t tmp[IKEY_ROW_MAX + 2];
	memcpy(tmp, it->row.data, rl);
	tmp[rl] = 0;
	size_t n = ikey_row_first(k, tmp, rl + 1);
	seek_key(it, k, n);
}

/* Skips the rest of the current row: a few steps, then a seek. */
static void skip_row(kv_iter *it)
{
	kv_src *s = it->src;
	/* The source is on a cell of this row (the current one, or the one
	 * after it when need_next is set): step from there. */
	for (int i = 0; i < STEPS_BEFORE_SEEK; i++) {
		src_next(s);
		if (!s->valid || ikey_row_cmp(s->key, (const uint8_t *)it->row.data, it->row.len) != 0) {
			it->need_next = false;
			return;
		}
	}
	seek_next_row(it);
}

/* Seeks to (row, family || 0x00): past the current family. */
static void seek_next_family(kv_iter *it)
{
	uint8_t fam[40];
	size_t fl = it->famname.len;
	memcpy(fam, it->famname.data, fl);
	fam[fl] = 0;
	uint8_t *k = seekbuf(it, ikey_size(it->row.len, fl + 1, 0));
	size_t n =
	    ikey_encode(k, it->row.data, it->row.len, fam, fl + 1, NULL, 0, KV_TS_MAX, IKEY_TYPE_MIN_SORT);
	seek_key(it, k, n);
}

static void seek_column(kv_iter *it, const uint8_t *q, size_t ql, bool after)
{
	uint8_t *k = seekbuf(it, ikey_size(it->row.len, it->famname.len, ql + 1));
	size_t n = ikey_encode(k, it->row.data, it->row.len, it->famname.data, it->famname.len, q, ql,
			       KV_TS_MAX, IKEY_TYPE_MIN_SORT);
	if (after) {
		/* (q || 0x00) is the first qualifier after q. */
		memmove(k + n - IKEY_SUFFIX + 1, k + n - IKEY_SUFFIX, IKEY_SUFFIX);
		k[n - IKEY_SUFFIX] = 0;
		n++;
	}
	seek_key(it, k, n);
}

/* Skips the rest of the current column: a few steps, then a seek. */
static void skip_column(kv_iter *it)
{
	kv_src *s = it->src;
	for (int i = 0; i < STEPS_BEFORE_SEEK; i++) {
		src_next(s);
		if (!s->valid || !ikey_same_column(s->key, s->klen, (const uint8_t *)it->colkey.data,
						   it->colkey.len + IKEY_SUFFIX)) {
			it->need_next = false;
			return;
		}
	}
	ikey_parts p;
	ikey_split(s->key, s->klen, &p);
	seek_column(it, p.qual, p.qlen, true);
}

/* ---------------------------------------------------------------- row and column state */

/* b = bytes, inline (the per-cell path cannot afford calls for this). */
static inline void buf_set(util_buf *b, const void *p, size_t n)
{
	if (UTIL_UNLIKELY(b->cap < n + 1))
		util_buf_reserve(b, n + 1 - b->len);
	if (n <= 16)
		blk_copy((uint8_t *)b->data, p, n);
	else
		memcpy(b->data, p, n);
	b->len = n;
}

static inline bool bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return false;
	}
	if (i + 4 <= n) {
		uint32_t x, y;
		memcpy(&x, a + i, 4);
		memcpy(&y, b + i, 4);
		if (x != y)
			return false;
		i += 4;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static void reset_column(kv_iter *it, const uint8_t *k, size_t kl)
{
	buf_set(&it->colkey, k, kl - IKEY_SUFFIX);
	it->col_done = false;
	it->has_dc = false;
	it->has_del = false;
	it->versions = 0;
	it->have_last = false;
}

static void reset_family(kv_iter *it)
{
	it->has_df = false;
	it->ndfv = 0;
	it->qidx = 0;
}

static void start_row(kv_iter *it, const uint8_t *row, size_t rlen)
{
	buf_set(&it->row, row, rlen);
	it->in_row = true;
	it->row_counted = false;
	it->row_cells = 0;
	/* The family (name, options, selection) carries over: rows usually
	 * start with the same one. Its delete state does not. */
	it->colkey.len = 0;
	it->pending.len = 0;
	reset_family(it);
	if (it->filter && it->filter->vt.reset)
		it->filter->vt.reset(it->filter->arg);
	if (it->buffer_rows) {
		if (it->row_used) {
			util_arena_reset(it->rowmem);
			it->row_used = false;
		}
		it->nr = 0;
		it->rpos = 0;
	}
}

static bool dfv_has(kv_iter *it, kv_ts ts)
{
	for (int i = 0; i < it->ndfv; i++)
		if (it->dfv[i] == ts)
			return true;
	return false;
}

static void dfv_add(kv_iter *it, kv_ts ts)
{
	if (it->ndfv == it->cdfv) {
		it->cdfv = it->cdfv ? 2 * it->cdfv : 8;
		it->dfv = util_xrealloc(it->dfv, (size_t)it->cdfv * sizeof(kv_ts));
	}
	it->dfv[it->ndfv++] = ts;
}

static const colsel *find_colsel(kv_iter *it, const uint8_t *fam, size_t flen)
{
	for (int i = 0; i < it->ncols; i++)
		if (it->cols[i].flen == flen && !memcmp(it->cols[i].fam, fam, flen))
			return &it->cols[i];
	return NULL;
}

/* ---------------------------------------------------------------- bounds */

static bool past_stop_forward(kv_iter *it, const uint8_t *row, size_t rlen)
{
	if (!it->has_stop)
		return false;
	int c = ikey_bytes_cmp(row, rlen, it->stop, it->stop_len);
	return it->stop_incl ? c > 0 : c >= 0;
}

static bool before_start(kv_iter *it, const uint8_t *row, size_t rlen)
{
	if (!it->start)
		return false;
	int c = ikey_bytes_cmp(row, rlen, it->start, it->start_len);
	return it->start_excl ? c <= 0 : c < 0;
}

/* Reverse: positions the source at the previous row and starts it. Returns
 * false at the end of the range. */
static bool rev_prev_row(kv_iter *it)
{
	if (it->rev_from_end)
		src_seek_lt(it->src, NULL, 0);
	else
		src_seek_lt(it->src, (const uint8_t *)it->rev_target.data, it->rev_target.len);
	it->rev_from_end = false;
	kv_src *s = it->src;
	if (s->status) {
		it_fail(it, s->status);
		return false;
	}
	if (!s->valid) {
		it->done = true;
		return false;
	}
	size_t rl = ikey_rowlen(s->key);
	uint8_t row[IKEY_ROW_MAX + 1];
	memcpy(row, s->key + 2, rl);
	if (before_start(it, row, rl)) {
		it->done = true;
		return false;
	}
	util_buf_reset(&it->rev_target);
	util_buf_reserve(&it->rev_target, ikey_size(rl, 0, 0));
	it->rev_target.len = ikey_row_first((uint8_t *)it->rev_target.data, row, rl);
	seek_key(it, (const uint8_t *)it->rev_target.data, it->rev_target.len);
	start_row(it, row, rl);
	return true;
}

/* ---------------------------------------------------------------- the matcher */

typedef enum act { A_SKIP, A_EMIT, A_NEXT_COL, A_NEXT_ROW, A_NEXT_FAM, A_SEEK, A_DONE } act;

static void set_cell(kv_iter *it, const ikey_parts *p, const kv_src *s)
{
	it->cell.row.data = p->row;
	it->cell.row.len = p->rlen;
	it->cell.family.data = p->fam;
	it->cell.family.len = p->flen;
	it->cell.qualifier.data = p->qual;
	it->cell.qualifier.len = p->qlen;
	it->cell.ts = p->ts;
	it->cell.type = p->type;
	it->cell.value.data = s->val;
	it->cell.value.len = s->vlen;
}

static act apply_filter(kv_iter *it, const ikey_parts *p, const kv_src *s)
{
	set_cell(it, p, s);
	kv_filter_code c = it->filter->vt.filter_cell(it->filter->arg, &it->cell);
	switch (c) {
	case KV_FILTER_INCLUDE:
		return A_EMIT;
	case KV_FILTER_SKIP:
		return A_SKIP;
	case KV_FILTER_NEXT_COL:
		return A_NEXT_COL;
	case KV_FILTER_NEXT_ROW:
		return A_NEXT_ROW;
	case KV_FILTER_DONE:
		return it->no_done ? A_NEXT_ROW : A_DONE;
	case KV_FILTER_SEEK_HINT: {
		if (!it->filter->vt.get_hint)
			return A_SKIP;
		kv_cell h = {0};
		it->filter->vt.get_hint(it->filter->arg, &it->cell, &h);
		if (h.row.len > IKEY_ROW_MAX + 1 || h.family.len > IKEY_FAM_MAX + 1 ||
		    h.qualifier.len > KV_QUAL_MAX)
			return A_SKIP;
		size_t need = ikey_size(h.row.len, h.family.len, h.qualifier.len);
		uint8_t *k = seekbuf(it, need);
		size_t n = ikey_encode(k, h.row.data, h.row.len, h.family.data, h.family.len,
				       h.qualifier.data, h.qualifier.len, KV_TS_MAX, IKEY_TYPE_MIN_SORT);
		it->seekbuf.len = n;
		int cmp = ikey_cmp(k, n, s->key, s->klen);
		if (cmp <= 0)
			return A_SKIP; /* a hint must move forward */
		if (it->reverse) {
			int rc = ikey_bytes_cmp(h.row.data, h.row.len, p->row, p->rlen);
			if (rc != 0)
				return A_NEXT_ROW; /* leave this row; reverse continues backwards */
		}
		return A_SEEK;
	}
	}
	return A_SKIP;
}

/* Decides what to do with the source's current cell. */
static act match(kv_iter *it, const ikey_parts *p, const kv_src *s)
{
	if (p->ts > it->read_ts)
		return A_SKIP;
	if (it->have_last && p->ts == it->last_ts && p->type == it->last_type)
		return A_SKIP; /* an older copy of the same cell */
	it->have_last = true;
	it->last_ts = p->ts;
	it->last_type = p->type;
	if (it->raw) {
		if (it->fsel && it->fsel->quals && !it->col_selected)
			return A_SKIP;
		if (it->max_ts && p->ts >= it->max_ts)
			return A_SKIP;
		/* Versions are newest first: the rest of the column is older
		 * still (a hot row's thousands of versions in the memstore). */
		if (p->ts < it->min_ts)
			return A_NEXT_COL;
		return it->filter ? apply_filter(it, p, s) : A_EMIT;
	}
	switch (p->type) {
	case KV_DELETE_FAMILY:
		if (!it->has_df) {
			it->has_df = true;
			it->df_ts = p->ts;
		}
		return A_SKIP;
	case KV_DELETE_FAMILY_VERSION:
		dfv_add(it, p->ts);
		return A_SKIP;
	case KV_DELETE_COLUMN:
		if (!it->has_dc) {
			it->has_dc = true;
			it->dc_ts = p->ts;
		}
		return A_SKIP;
	case KV_DELETE:
		it->has_del = true;
		it->del_ts = p->ts;
		return A_SKIP;
	case KV_PUT:
		break;
	default:
		return A_SKIP;
	}
	if (!it->col_selected)
		return p->qlen == 0 ? A_SKIP : A_NEXT_COL;
	if (it->has_df && p->ts <= it->df_ts)
		return A_NEXT_COL;
	if (it->has_dc && p->ts <= it->dc_ts)
		return A_NEXT_COL;
	if (it->has_del && it->del_ts == p->ts)
		return A_SKIP;
	if (it->ndfv && dfv_has(it, p->ts))
		return A_SKIP;
	if (it->max_ts && p->ts >= it->max_ts)
		return A_SKIP;
	if (p->ts < it->min_ts)
		return A_NEXT_COL;
	if (it->fo && it->fo->ttl_seconds > 0) {
		int64_t cutoff = it->now_us - it->fo->ttl_seconds * 1000000;
		if ((int64_t)p->ts < cutoff && it->versions >= it->fo->min_versions)
			return A_NEXT_COL;
	}
	/* Reads never return more versions than the family keeps (HBase). */
	if (it->versions >= it->max_versions || (it->fo && it->versions >= it->fo->max_versions))
		return A_NEXT_COL;
	it->versions++;
	if (it->filter) {
		act a = apply_filter(it, p, s);
		if (a != A_EMIT)
			it->versions--;
		return a;
	}
	return A_EMIT;
}

/* Family or column changed at key k: update selection state. Returns an
 * action if the cell must be skipped by selection. */
static act enter_column(kv_iter *it, const ikey_parts *p, const uint8_t *k, size_t kl)
{
	bool fam_changed = !it->fam_known || it->famname.len != p->flen ||
			   !bytes_eq((const uint8_t *)it->famname.data, p->fam, p->flen);
	if (fam_changed) {
		buf_set(&it->famname, p->fam, p->flen);
		it->fam_known = true;
		reset_family(it);
		it->fo = sv_family(it->sv, p->fam, p->flen);
		it->fsel = NULL;
		/* Skipped: a dropped family's leftovers, a family joined later
		 * (essential mode), a family the columns do not select. */
		it->fam_skip =
		    !it->fo ||
		    (it->essential && (p->flen != it->esslen || memcmp(p->fam, it->ess, p->flen))) ||
		    (it->ncols && !(it->fsel = find_colsel(it, p->fam, p->flen)));
	}
	if (it->fam_skip)
		return A_NEXT_FAM;
	reset_column(it, k, kl);
	it->col_selected = true;
	if (it->fsel && it->fsel->quals) {
		const colsel *c = it->fsel;
		while (it->qidx < c->nq &&
		       ikey_bytes_cmp(c->quals[it->qidx].data, c->quals[it->qidx].len, p->qual, p->qlen) < 0)
			it->qidx++;
		if (it->qidx < c->nq &&
		    ikey_bytes_cmp(c->quals[it->qidx].data, c->quals[it->qidx].len, p->qual, p->qlen) == 0)
			return A_EMIT; /* selected */
		it->col_selected = false;
		/* Markers on the empty qualifier apply to the whole family:
		 * walk that column instead of seeking over it. */
		if (p->qlen == 0)
			return A_EMIT;
		if (it->qidx >= c->nq)
			return A_NEXT_FAM;
		return A_SEEK;
	}
	return A_EMIT;
}

static void emit_buffered(kv_iter *it);

/* Essential-family mode: adds the row's cells of the other families to the
 * buffered row, in family order. False on error (the scan fails). */
static bool join_families(kv_iter *it)
{
	if (!it->njoin)
		return true;
	kv_scan_opts so = it->join_opts;
	so.start = so.stop = (const uint8_t *)it->row.data;
	so.start_len = so.stop_len = it->row.len;
	so.stop_inclusive = true;
	scan_internal in = {
	    .sv = it->sv, .read_ts = it->read_ts, .read_point = it->read_point, .forward = true};
	kv_iter *j = scan_open(it->t, &so, &in);
	size_t ness = it->nr;
	for (; kv_iter_valid(j); kv_iter_next(j)) {
		it->cell = *kv_iter_cell(j);
		emit_buffered(it);
	}
	kv_status st = kv_iter_status(j);
	kv_iter_close(j);
	if (st) {
		it_fail(it, st);
		return false;
	}
	/* Rotate the essential cells into place among the joined families. */
	size_t before = 0;
	while (ness + before < it->nr &&
	       ikey_bytes_cmp(it->rcells[ness + before].family.data, it->rcells[ness + before].family.len,
			      (const uint8_t *)it->ess, it->esslen) < 0)
		before++;
	if (before) {
		kv_cell *tmp = util_xmalloc(ness * sizeof(kv_cell));
		memcpy(tmp, it->rcells, ness * sizeof(kv_cell));
		memmove(it->rcells, it->rcells + ness, before * sizeof(kv_cell));
		memcpy(it->rcells + before, tmp, ness * sizeof(kv_cell));
		free(tmp);
	}
	return true;
}

/* Finishes a buffered row: the filter's row decision, then drain. */
static bool finish_buffered_row(kv_iter *it)
{
	if (!it->buffer_rows || it->nr == 0)
		return false;
	bool drop =
	    it->filter->vt.filter_row && it->filter->vt.filter_row(it->filter->arg, it->rcells, it->nr);
	if (drop) {
		it->nr = 0;
		return false;
	}
	if (it->limit && it->rows_out >= it->limit) {
		it->done = true;
		it->nr = 0;
		return false;
	}
	if (it->essential && !join_families(it)) {
		it->nr = 0;
		return false;
	}
	it->rows_out++;
	it->draining = true;
	it->rpos = 0;
	return true;
}

static void emit_buffered(kv_iter *it)
{
	if (it->nr == it->cr) {
		it->cr = it->cr ? 2 * it->cr : 16;
		it->rcells = util_xrealloc(it->rcells, it->cr * sizeof(kv_cell));
	}
	kv_cell *c = &it->rcells[it->nr++];
	*c = it->cell;
	it->row_used = true;
	c->row.data = util_arena_memdup_nz(it->rowmem, c->row.data, c->row.len);
	c->family.data = util_arena_memdup_nz(it->rowmem, c->family.data, c->family.len);
	c->qualifier.data = util_arena_memdup_nz(it->rowmem, c->qualifier.data, c->qualifier.len);
	c->value.data = util_arena_memdup_nz(it->rowmem, c->value.data, c->value.len);
}

/* Called when the current row has ended (the source moved past it).
 * Returns true if buffered cells are ready to drain. */
static bool row_ended(kv_iter *it)
{
	bool drain = finish_buffered_row(it);
	it->in_row = false;
	return drain;
}

static bool row_key_filtered(kv_iter *it)
{
	if (!it->filter || !it->filter->vt.filter_row_key)
		return false;
	kv_slice r = {(const uint8_t *)it->row.data, it->row.len};
	return it->filter->vt.filter_row_key(it->filter->arg, r);
}

/* Fast path (see fast_ok()): one sorted file with no delete markers, every
 * cell at or below the read timestamp, no filter, column selection, time
 * range, TTL or extra versions. The matcher then reduces to: emit the first
 * (newest) cell of each column and skip its older versions. In this mode
 * colkey holds the qualifier of the row's last emitted cell and have_last
 * says whether there is one. */

/* Emits the source's cell if it is the newest of its column: true when it
 * became the current cell. REQUIRES: the cell is in the current row. */
static inline bool fast_take(kv_iter *it, const kv_src *s)
{
	ikey_parts p;
	ikey_split(s->key, s->klen, &p);
	if (it->have_last && it->colkey.len == p.qlen &&
	    bytes_eq((const uint8_t *)it->colkey.data, p.qual, p.qlen))
		return false; /* an older version of the column just returned */
	if (UTIL_UNLIKELY(p.type != KV_PUT))
		return false; /* cannot happen in a file without markers */
	buf_set(&it->colkey, p.qual, p.qlen);
	it->have_last = true;
	it->fast_klen = s->klen;
	set_cell(it, &p, s);
	it->row_start = it->row_cells == 0 || (it->batch && it->row_cells % it->batch == 0);
	it->row_cells++;
	it->valid = true;
	return true;
}

static inline bool fast_same_row(const kv_iter *it, const uint8_t *k)
{
	size_t rl = ikey_rowlen(k);
	return rl == it->row.len && bytes_eq(k + 2, (const uint8_t *)it->row.data, rl);
}

/* fast_take for an entry known to be in the current row, cheaper: the
 * row's parts are the current cell's. new_col: known to start another
 * column (no compare with the last one). With a mask (kv_iter_row_sel), a
 * newest version whose 2-byte qualifier the mask leaves out is skipped
 * before the cell is set up: 2, with the column state moved on as if it
 * had been taken (its older versions are recognized and skipped as
 * usual). Otherwise 1 when the entry became the current cell, 0 when it is
 * an older version of the column just taken.
 *
 * The entry comes from a sorted file's block (fast_ok) and sh is its
 * stored prefix count, so key bytes [sh, kl) are also right before its
 * value v (iter.h). The key k was just rebuilt in the block iterator's
 * buffer by a few wide stores over bytes kept from earlier entries; a
 * load that spans both waits for those stores to drain (no store
 * forwarding), so the timestamp and type are read from the block when
 * they are the entry's own bytes, and a 2-byte column id byte by byte
 * (its first byte is usually shared with the column before), kept in
 * colkey by one store and handed to the caller from there. */
static inline __attribute__((always_inline)) int fast_take_in_row(kv_iter *it, const uint8_t *k, size_t kl,
								  size_t sh, const uint8_t *v, size_t vl,
								  bool new_col, const uint64_t *mask,
								  uint32_t nbits)
{
	size_t rl = it->row.len;
	size_t qoff = 3 + rl + k[2 + rl]; /* within kl - IKEY_SUFFIX: the key was checked */
	const uint8_t *q = k + qoff;
	size_t ql = kl - qoff - IKEY_SUFFIX;
	if (!new_col && it->have_last && it->colkey.len == ql &&
	    bytes_eq((const uint8_t *)it->colkey.data, q, ql))
		return 0; /* an older version of the column just returned */
	const uint8_t *suffix = sh <= kl - IKEY_SUFFIX ? v - IKEY_SUFFIX : k + kl - IKEY_SUFFIX;
	uint8_t type = (uint8_t)~suffix[8];
	if (UTIL_UNLIKELY(type != KV_PUT))
		return 0; /* cannot happen in a file without markers */
	if (ql == 2) {
		uint32_t q0 = q[0];
		__asm__("" : "+r"(q0)); /* two byte loads, not one 2-byte load */
		uint32_t q1 = q[1];
		if (UTIL_UNLIKELY(it->colkey.cap < 3))
			util_buf_reserve(&it->colkey, 3);
		uint8_t id[2] = {(uint8_t)q0, (uint8_t)q1};
		memcpy(it->colkey.data, id, 2);
		it->colkey.len = 2;
		it->fast_klen = kl;
		it->row_start = it->batch && it->row_cells % it->batch == 0;
		it->row_cells++;
		if (mask && !sel_id(mask, nbits, q0 << 8 | q1))
			return 2;
		q = (const uint8_t *)it->colkey.data;
	} else {
		buf_set(&it->colkey, q, ql);
		it->fast_klen = kl;
		it->row_start = it->batch && it->row_cells % it->batch == 0;
		it->row_cells++;
	}
	it->cell.row.data = k + 2;
	it->cell.family.data = k + 3 + rl;
	it->cell.family.len = k[2 + rl];
	it->cell.qualifier.data = q;
	it->cell.qualifier.len = ql;
	it->cell.ts = ikey_ts(suffix, IKEY_SUFFIX);
	it->cell.type = type;
	it->cell.value.data = v;
	it->cell.value.len = vl;
	it->valid = true;
	return 1;
}

/* The entry k (klen kl, sh leading bytes shared with the entry before,
 * value v) after one of the current row: 1 (or 2, skipped by the mask) if
 * it is the next cell of the row (now current), 0 if an older version of
 * the column just emitted (skip it), -1 if the row has ended. The block's
 * prefix counts (sh) answer most of this without comparing bytes. The
 * entry before this one was of the emitted column (its newest version or
 * an older one), so: an entry that shares the row's bytes with it is in
 * the row; then one as long that shares everything but the timestamp and
 * type is that column, one as long that differs before is another (a
 * count of shared bytes that is not 0 is exact below the last 8, see
 * blkb_add), and one of another length is another (same row and family,
 * another qualifier). */
static inline __attribute__((always_inline)) int fast_step(kv_iter *it, const uint8_t *k, size_t kl,
							   size_t sh, const uint8_t *v, size_t vl,
							   const uint64_t *mask, uint32_t nbits)
{
	bool new_col;
	if (sh < 2 + it->row.len) {
		/* A count that is not 0 is the exact common prefix with the
		 * entry before, which was in this row: it ends inside the row's
		 * bytes, so this is another row (no compare). 0 (a restart
		 * point, a block start) says nothing. */
		if (sh || !fast_same_row(it, k))
			return -1;
		new_col = false;
	} else {
		if (kl == it->fast_klen && sh + IKEY_SUFFIX >= kl)
			return 0;
		new_col = true;
	}
	return fast_take_in_row(it, k, kl, sh, v, vl, new_col, mask, nbits);
}

/* The source's fields from its block iterator's entry (iter.h). */
static inline void src_take_blk(kv_src *s, const blk_iter *b)
{
	s->key = b->key;
	s->klen = b->klen;
	s->val = b->val;
	s->vlen = b->vlen;
	s->shared = b->shared;
}

/* Steps the source from a cell of the current row to the next cell of the
 * row that fast_step takes: 1 (or 2, skipped by the mask) when there is
 * one, -1 when the row has ended (the source is then on the first entry
 * after it, its fields set, or invalid). Entries inside a sorted file's
 * block are decoded here from its block iterator (iter.h), with no call
 * per entry and the source's fields set only where the row ends; block
 * ends and other sources go through src_next() (stashing: after the
 * stashed values are copied, kv_iter_skip_rows). */
static void stash_detach(kv_iter *it);
static void stash_get(const kv_iter *it, size_t i, kv_cell *c);

static inline __attribute__((always_inline)) int fast_next_cell(kv_iter *it, kv_src *s, const uint64_t *mask,
								uint32_t nbits, bool stashing)
{
	for (;;) {
		blk_iter *b = s->blk;
		const uint8_t *k, *v;
		size_t kl, sh, vl;
		bool direct = b && blki_next_inline(b);
		if (direct) {
			k = b->key;
			kl = b->klen;
			sh = b->shared;
			v = b->val;
			vl = b->vlen;
			if (UTIL_UNLIKELY(!ikey_valid(k, kl))) {
				src_take_blk(s, b);
				s->valid = false;
				s->status = kv_fail(KV_CORRUPTION, "malformed key in a sorted file's block");
				return -1;
			}
		} else {
			if (stashing)
				stash_detach(it); /* the move may leave the block */
			else if (it->leave)
				it->leave(it->leave_arg);
			src_next(s);
			if (UTIL_UNLIKELY(!s->valid || s->status))
				return -1;
			k = s->key;
			kl = s->klen;
			sh = s->shared;
			v = s->val;
			vl = s->vlen;
		}
		int r = fast_step(it, k, kl, sh, v, vl, mask, nbits);
		if (r < 0 && direct)
			src_take_blk(s, b);
		if (r)
			return r;
	}
}

/* Moves to the next cell of the current row; false (the source left on the
 * first cell after the row, need_next clear) when the row has ended. */
static bool fast_next_in_row(kv_iter *it)
{
	it->valid = false;
	if (fast_next_cell(it, it->src, NULL, 0, false) > 0)
		return true;
	it->need_next = false;
	return false;
}

static void advance_fast(kv_iter *it)
{
	kv_src *s = it->src;
	it->valid = false;
	if (it->need_next && it->in_row && !it->done) {
		it->need_next = false;
		if (fast_next_in_row(it)) {
			it->need_next = true;
			return;
		}
	}
	for (;;) {
		if (it->done)
			return;
		if (it->need_next) {
			if (UTIL_UNLIKELY(it->leave != NULL))
				it->leave(it->leave_arg);
			src_next(s);
			it->need_next = false;
		}
		if (UTIL_UNLIKELY(s->status)) {
			it_fail(it, s->status);
			return;
		}
		if (UTIL_UNLIKELY(!s->valid)) {
			it->in_row = false;
			it->done = true;
			return;
		}
		const uint8_t *k = s->key;
		if (!it->in_row || !fast_same_row(it, k)) {
			size_t rl = ikey_rowlen(k);
			if (past_stop_forward(it, k + 2, rl) || (it->limit && it->rows_out >= it->limit)) {
				it->in_row = false;
				it->done = true;
				return;
			}
			size_t sh = s->shared;
			if (sh >= 2 && sh < 2 + rl && it->row.len == rl) {
				/* The entry before was in it->row and shares its
				 * first sh - 2 bytes (and the row length): copy only
				 * the rest, from the entry's own bytes (iter.h). */
				blk_copy((uint8_t *)it->row.data + (sh - 2), s->val - (s->klen - sh),
					 2 + rl - sh);
			} else {
				buf_set(&it->row, k + 2, rl);
			}
			it->in_row = true;
			it->row_counted = false;
			it->row_cells = 0;
			it->have_last = false;
		}
		it->need_next = true;
		if (fast_take(it, s)) {
			if (!it->row_counted) {
				it->rows_out++;
				it->row_counted = true;
			}
			return;
		}
	}
}

/* True if the scan may use advance_fast(): what the matcher would do for
 * every cell of the source is "emit the newest version of each column". */
static bool fast_ok(const kv_iter *it)
{
	if (!it->n_only || !it->src || it->t->s->etcd || it->reverse || it->raw || it->filter || it->ncols ||
	    it->essential || it->min_ts || it->max_ts || it->max_versions != 1)
		return false;
	for (int i = 0; i < it->n_only; i++)
		if (it->only_files[i]->m.deletes != 0 || it->only_files[i]->m.max_ts > it->read_ts)
			return false;
	const kv_sfile *f = it->only_files[0];
	const kv_family_opts *fo = sv_family(it->sv, (const uint8_t *)f->m.family, strlen(f->m.family));
	return fo && fo->ttl_seconds <= 0 && fo->max_versions >= 1;
}

/* Advances to the next visible cell (or the end). */
static void advance(kv_iter *it)
{
	if (it->fast) {
		advance_fast(it);
		return;
	}
	kv_src *s = it->src;
	it->valid = false;
	for (;;) {
		if (it->done)
			return;
		if (it->need_next) {
			src_next(s);
			it->need_next = false;
		}
		if (s->status) {
			it_fail(it, s->status);
			return;
		}
		bool row_end = !it->in_row || !s->valid || it->last_row ||
			       ikey_row_cmp(s->key, (const uint8_t *)it->row.data, it->row.len) != 0;
		if (row_end) {
			if (it->in_row) {
				if (row_ended(it)) {
					it->valid = true;
					it->cell = it->rcells[0];
					it->row_start = true;
					it->rpos = 1;
					return;
				}
				continue;
			}
			if (it->last_row) {
				it->done = true;
				return;
			}
			if (it->reverse) {
				if (!rev_prev_row(it))
					return;
				if (row_key_filtered(it))
					seek_next_row(it);
				continue;
			}
			if (!s->valid) {
				it->done = true;
				return;
			}
			size_t rl = ikey_rowlen(s->key);
			if (past_stop_forward(it, s->key + 2, rl)) {
				it->done = true;
				return;
			}
			if (it->limit && it->rows_out >= it->limit) {
				it->done = true;
				return;
			}
			start_row(it, s->key + 2, rl);
			if (row_key_filtered(it)) {
				skip_row(it);
				continue;
			}
		}

		ikey_parts p;
		ikey_split(s->key, s->klen, &p);
		it->looked++;
		act a = A_EMIT;
		if (it->colkey.len + IKEY_SUFFIX != s->klen ||
		    !bytes_eq((const uint8_t *)it->colkey.data, s->key, it->colkey.len)) {
			/* A seek deferred while walking the empty-qualifier column. */
			if (it->pending.len) {
				bool ahead = ikey_cmp((const uint8_t *)it->pending.data, it->pending.len,
						      s->key, s->klen) > 0;
				if (ahead) {
					util_buf_reset(&it->seekbuf);
					util_buf_append(&it->seekbuf, it->pending.data, it->pending.len);
					util_buf_reset(&it->pending);
					seek_key(it, (const uint8_t *)it->seekbuf.data, it->seekbuf.len);
					continue;
				}
				util_buf_reset(&it->pending);
			}
			a = enter_column(it, &p, s->key, s->klen);
			if (a == A_SEEK) {
				const colsel *c = it->fsel;
				seek_column(it, c->quals[it->qidx].data, c->quals[it->qidx].len, false);
				continue;
			}
		} else if (it->col_done) {
			/* The empty-qualifier column also holds the family's delete
			 * markers: keep reading them after its puts are done. */
			a = p.qlen == 0 && p.type != KV_PUT ? A_EMIT : A_NEXT_COL;
			if (p.qlen == 0 && p.type == KV_PUT)
				a = A_SKIP;
		}
		if (a == A_EMIT)
			a = match(it, &p, s);
		/* Family markers older than the read's min_ts hide only cells it
		 * does not show: past them (the rest of the column is older
		 * still) the column is skipped as any other. A packed row's
		 * updates pile up versions of its sentinel alone, and an UPDATE's
		 * recheck reads the row from its statement's timestamp on
		 * (sql_txn_row_changed). */
		bool past_min = p.qlen == 0 && p.ts < it->min_ts;
		if (past_min && a == A_SKIP)
			a = A_NEXT_COL;
		if (p.qlen == 0 && !past_min && !it->no_fam_markers && (a == A_NEXT_COL || a == A_SEEK)) {
			/* Never skip over family markers: walk the rest of this
			 * column, seek afterwards. */
			if (a == A_SEEK) {
				util_buf_reset(&it->pending);
				util_buf_append(&it->pending, it->seekbuf.data, it->seekbuf.len);
			}
			it->col_done = true;
			a = A_SKIP;
		}
		switch (a) {
		case A_SKIP:
			it->need_next = true;
			continue;
		case A_NEXT_COL:
			it->col_done = true;
			skip_column(it);
			continue;
		case A_NEXT_FAM:
			seek_next_family(it);
			continue;
		case A_NEXT_ROW:
			/* The rest of the range's last row (a point read): nothing
			 * after it is wanted, so no seek past it. */
			if (!it->reverse && it->has_stop && it->stop_incl &&
			    ikey_bytes_cmp((const uint8_t *)it->row.data, it->row.len, it->stop,
					   it->stop_len) == 0) {
				it->last_row = true;
				it->need_next = false;
				continue;
			}
			skip_row(it);
			continue;
		case A_SEEK:
			seek_key(it, (const uint8_t *)it->seekbuf.data, it->seekbuf.len);
			continue;
		case A_DONE:
			if (it->buffer_rows)
				finish_buffered_row(it);
			it->done = true;
			if (it->draining) {
				it->valid = true;
				it->cell = it->rcells[0];
				it->row_start = true;
				it->rpos = 1;
			}
			return;
		case A_EMIT:
			break;
		}
		set_cell(it, &p, s);
		it->need_next = true;
		if (it->buffer_rows) {
			emit_buffered(it);
			continue;
		}
		if (!it->row_counted) {
			if (it->limit && it->rows_out >= it->limit) {
				it->done = true;
				return;
			}
			it->rows_out++;
			it->row_counted = true;
		}
		it->row_start = it->row_cells == 0 || (it->batch && it->row_cells % it->batch == 0);
		it->row_cells++;
		it->valid = true;
		return;
	}
}

/* ---------------------------------------------------------------- public iterator */

static kv_iter *failed_iter(kv_status st)
{
	kv_iter *it = calloc(1, sizeof(*it));
	if (!it) {
		static kv_iter oom = {.st = KV_NO_MEMORY, .done = true, .is_static = true};
		return &oom;
	}
	it->st = st;
	snprintf(it->errmsg, sizeof(it->errmsg), "%s", kv_errmsg());
	it->done = true;
	return it;
}

static int qual_cmp(const void *a, const void *b)
{
	const kv_slice *x = a, *y = b;
	return ikey_bytes_cmp(x->data, x->len, y->data, y->len);
}

static kv_status setup_columns(kv_iter *it, const kv_read_opts *ro)
{
	if (!ro->columns || ro->ncolumns <= 0)
		return KV_OK;
	it->cols = util_arena_zalloc(it->mem, sizeof(colsel) * (size_t)ro->ncolumns);
	for (int i = 0; i < ro->ncolumns; i++) {
		const kv_column *c = &ro->columns[i];
		if (!c->family || strlen(c->family) > IKEY_FAM_MAX)
			return kv_fail(KV_INVALID, "bad column family in read options");
		colsel *cs = (colsel *)find_colsel(it, (const uint8_t *)c->family, strlen(c->family));
		if (!cs) {
			cs = &it->cols[it->ncols++];
			snprintf(cs->fam, sizeof(cs->fam), "%s", c->family);
			cs->flen = strlen(c->family);
			cs->nq = c->qualifier ? 0 : -1;
		}
		if (cs->nq < 0)
			continue; /* already all qualifiers */
		if (!c->qualifier) {
			cs->nq = -1;
			cs->quals = NULL;
			continue;
		}
		kv_slice *nq = util_arena_alloc(it->mem, sizeof(kv_slice) * (size_t)(cs->nq + 1));
		if (cs->nq)
			memcpy(nq, cs->quals, sizeof(kv_slice) * (size_t)cs->nq);
		nq[cs->nq].data = util_arena_memdup_nz(it->mem, c->qualifier, c->qlen);
		nq[cs->nq].len = c->qlen;
		cs->quals = nq;
		cs->nq++;
	}
	for (int i = 0; i < it->ncols; i++) {
		if (it->cols[i].nq < 0) {
			it->cols[i].nq = 0;
			it->cols[i].quals = NULL;
		} else {
			qsort(it->cols[i].quals, (size_t)it->cols[i].nq, sizeof(kv_slice), qual_cmp);
		}
	}
	return KV_OK;
}

/* Turns on essential-family mode when the filter has an essential family
 * and the scan also reads other families. */
static void setup_essential(kv_iter *it, const kv_scan_opts *o)
{
	const char *e = it->raw ? NULL : filter_essential_family(it->filter);
	if (!e || !sv_family(it->sv, (const uint8_t *)e, strlen(e)))
		return;
	if (it->ncols && !find_colsel(it, (const uint8_t *)e, strlen(e)))
		return;
	int n = 0, cap = it->sv->nfam;
	for (int i = 0; i < it->ncols; i++)
		cap += it->cols[i].nq;
	kv_column *cols = util_arena_zalloc(it->mem, sizeof(kv_column) * (size_t)(cap ? cap : 1));
	for (int i = 0; i < it->sv->nfam; i++) {
		const char *f = it->sv->fams[i].name;
		if (!strcmp(f, e))
			continue;
		const colsel *cs = it->ncols ? find_colsel(it, (const uint8_t *)f, strlen(f)) : NULL;
		if (it->ncols && !cs)
			continue;
		const char *fc = util_arena_strdup(it->mem, f);
		if (!cs || !cs->quals) {
			cols[n++] = (kv_column){fc, NULL, 0};
			continue;
		}
		for (int q = 0; q < cs->nq; q++)
			cols[n++] = (kv_column){fc, cs->quals[q].data, cs->quals[q].len};
	}
	if (n == 0)
		return; /* only the essential family is read anyway */
	it->essential = true;
	snprintf(it->ess, sizeof(it->ess), "%s", e);
	it->esslen = strlen(it->ess);
	it->join_cols = cols;
	it->njoin = n;
	memset(&it->join_opts, 0, sizeof(it->join_opts));
	it->join_opts.read = o->read;
	it->join_opts.read.filter = NULL;
	it->join_opts.read.columns = cols;
	it->join_opts.read.ncolumns = n;
}

/* True if family f is read by the scan. */
static bool family_wanted(kv_iter *it, const char *f)
{
	if (!it->ncols)
		return true;
	return find_colsel(it, (const uint8_t *)f, strlen(f)) != NULL;
}

static inline bool t_etcd(kv_table *t)
{
	return t->s->etcd != NULL;
}

int64_t scan_etcd_rev(kv_table *t, bool latest, kv_ts read_ts)
{
	if (latest || read_ts == KV_TS_MAX)
		return ekv_latest_pin;
	return ekv_rev_for(t->s->etcd, read_ts);
}

/* True if the files a scan of [start, stop) reads hold at most half
 * of the block cache's capacity in data blocks (counted at the family's
 * block size). */
static bool small_scan(kv_iter *it, const kv_scan_opts *o)
{
	kv_sv *sv = it->sv;
	uint64_t bytes = 0, cap = it->t->s->o.block_cache_bytes / 2;
	for (int i = 0; i < sv->v->nfam; i++) {
		kv_fileset *fs = &sv->v->fams[i];
		const kv_family_opts *fo = sv_family(sv, (const uint8_t *)fs->family, strlen(fs->family));
		if (!fo || !family_wanted(it, fs->family))
			continue;
		for (int j = 0; j < fs->n; j++) {
			kv_sfile *f = fs->files[j];
			if (o->start && ikey_row_cmp(f->m.largest, o->start, o->start_len) < 0)
				continue;
			if (o->stop && ikey_row_cmp(f->m.smallest, o->stop, o->stop_len) > 0)
				continue;
			sst_reader *r;
			if (sfile_reader(f, &r))
				return false; /* the scan itself reports the error */
			bytes += sst_get_props(r)->data_blocks *
				 (uint64_t)(fo->block_size ? fo->block_size : 16384);
			sst_unref(r);
			if (bytes > cap)
				return false;
		}
	}
	return true;
}

static int sfile_by_smallest(const void *a, const void *b)
{
	const kv_sfile *x = *(kv_sfile *const *)a, *y = *(kv_sfile *const *)b;
	return ikey_cmp(x->m.smallest, x->m.slen, y->m.smallest, y->m.slen);
}

/* Files kids[first..*n) of one family (newest first; kf[i] is kids[i]'s
 * file): each stretch of two or more files of one large commit (same seq)
 * whose key ranges do not overlap becomes one chained source (chain.c),
 * which reads them in turn instead of merging them (stage.c keeps a load's
 * runs apart). The chain's files go to only_files for the fast path. */
static kv_status chain_disjoint(kv_iter *it, kv_src **kids, kv_sfile **kf, int first, int *n)
{
	int out = first;
	for (int a = first; a < *n;) {
		int b = a + 1;
		while (b < *n && kf[b]->m.seq == kf[a]->m.seq)
			b++;
		int k = b - a;
		bool ok = k > 1;
		kv_sfile **fs = NULL;
		if (ok) {
			fs = util_arena_alloc(it->mem, sizeof(kv_sfile *) * (size_t)k);
			memcpy(fs, kf + a, sizeof(kv_sfile *) * (size_t)k);
			qsort(fs, (size_t)k, sizeof(kv_sfile *), sfile_by_smallest);
			for (int i = 0; i + 1 < k && ok; i++)
				ok = ikey_cmp(fs[i]->m.largest, fs[i]->m.llen, fs[i + 1]->m.smallest,
					      fs[i + 1]->m.slen) < 0;
		}
		if (!ok) {
			for (int i = a; i < b; i++) {
				kids[out] = kids[i];
				kf[out++] = kf[i];
			}
			a = b;
			continue;
		}
		/* The children in the files' key order. */
		kv_src **ch = util_arena_alloc(it->mem, sizeof(kv_src *) * (size_t)k);
		kv_chain_range *rng = util_arena_alloc(it->mem, sizeof(kv_chain_range) * (size_t)k);
		for (int i = 0; i < k; i++) {
			int at = a;
			while (kf[at] != fs[i])
				at++;
			ch[i] = kids[at];
			rng[i] = (kv_chain_range){fs[i]->m.smallest, fs[i]->m.largest, fs[i]->m.slen,
						  fs[i]->m.llen};
		}
		for (int i = 0; i < k; i++)
			if (!ch[i]) { /* sst_iter_new failed: the caller reports it */
				for (int j = 0; j < k; j++) {
					kids[out] = kids[a + j];
					kf[out++] = kf[a + j];
				}
				a = b;
				goto next;
			}
		kids[out] = chain_new(ch, rng, k);
		if (!kids[out])
			return kv_fail(KV_NO_MEMORY, "out of memory opening a scan");
		kf[out++] = NULL;
		it->only_files = fs;
		it->n_only = k;
		a = b;
	next:;
	}
	*n = out;
	return KV_OK;
}

/* Builds the merged source: memstores, then files newest first. */
static kv_status build_sources(kv_iter *it, const kv_scan_opts *o, bool fill_cache)
{
	kv_sv *sv = it->sv;
	int cap = 1 + sv->nimm;
	for (int i = 0; i < sv->v->nfam; i++)
		cap += sv->v->fams[i].n;
	kv_src **kids = util_arena_alloc(it->mem, sizeof(kv_src *) * (size_t)(cap ? cap : 1));
	kv_sfile **kf = util_arena_alloc(it->mem, sizeof(kv_sfile *) * (size_t)(cap ? cap : 1));
	int n = 0;
	it->n_only = 0;
	/* Memstore entries are filtered by commit timestamp against the read
	 * point (complete batches only); cell timestamps against read_ts in the
	 * matcher, as in sorted files, so past reads see the same in both. */
	kv_ts mts = it->latest ? KV_TS_MAX : it->read_point;
	kv_status st = KV_OK;
	for (int i = 0; i < cap; i++)
		kf[i] = NULL; /* memstores have no file */
	if (!fill_cache && o->read.cache_small && it->t->s->cache)
		fill_cache = small_scan(it, o);
	/* A point read (one row) can skip memstores and files by bloom filter. */
	bool point = o->start && o->stop && o->stop_inclusive && !o->start_exclusive &&
		     o->start_len == o->stop_len && !memcmp(o->start, o->stop, o->start_len);
	/* Files count every delete marker (info block), memstores only the
	 * family-wide ones. Reads of the newest state (latest) may see
	 * markers committed after this check, and a shared store's cells
	 * are in etcd: those keep walking. */
	it->no_fam_markers = !it->latest && !it->raw && !it->reverse && !t_etcd(it->t);
	if (mem_count(sv->mem) && (!point || mem_may_have_row(sv->mem, o->start, o->start_len))) {
		it->no_fam_markers &= !mem_has_family_markers(sv->mem);
		kids[n++] = mem_iter_new(sv->mem, mts);
	}
	for (int i = 0; i < sv->nimm; i++)
		if (mem_count(sv->imm[i]) &&
		    (!point || mem_may_have_row(sv->imm[i], o->start, o->start_len))) {
			it->no_fam_markers &= !mem_has_family_markers(sv->imm[i]);
			kids[n++] = mem_iter_new(sv->imm[i], mts);
		}
	for (int i = 0; i < sv->v->nfam && !st; i++) {
		kv_fileset *fs = &sv->v->fams[i];
		if (!family_wanted(it, fs->family) ||
		    !sv_family(sv, (const uint8_t *)fs->family, strlen(fs->family)))
			continue;
		if (it->essential && strcmp(fs->family, it->ess))
			continue;
		int first = n;
		for (int j = 0; j < fs->n; j++) {
			kv_sfile *f = fs->files[j];
			if (f->m.max_ts < it->min_ts && !it->raw)
				continue;
			if (f->ingest_ts > it->read_point && !it->latest)
				continue; /* a large commit this read does not see */
			if (o->start && ikey_row_cmp(f->m.largest, o->start, o->start_len) < 0)
				continue;
			if (o->stop && !o->stop_inclusive &&
			    ikey_row_cmp(f->m.smallest, o->stop, o->stop_len) >= 0)
				continue;
			if (o->stop && o->stop_inclusive &&
			    ikey_row_cmp(f->m.smallest, o->stop, o->stop_len) > 0)
				continue;
			sst_reader *r;
			if ((st = sfile_reader(f, &r)))
				break;
			if (point && !sst_may_have_row(r, o->start, o->start_len)) {
				sst_unref(r);
				continue;
			}
			it->no_fam_markers &= f->m.deletes == 0;
			kf[n] = f;
			kids[n++] = sst_iter_new(r, fill_cache);
			sst_unref(r);
		}
		if (!st)
			st = chain_disjoint(it, kids, kf, first, &n);
	}
	for (int i = 0; i < n; i++)
		if (!kids[i] && !st)
			st = kv_fail(KV_NO_MEMORY, "out of memory opening a scan");
	if (st) {
		for (int i = 0; i < n; i++)
			src_close(kids[i]);
		return st;
	}
	if (t_etcd(it->t)) {
		/* All families in one key range; the matcher skips unwanted ones. */
		int64_t rev = scan_etcd_rev(it->t, it->latest, it->read_ts);
		it->src = ekv_src_new(it->t, it->start, it->start_len, it->has_stop ? it->stop : NULL,
				      it->stop_len, it->stop_incl, rev);
		if (it->etcd_page)
			ekv_src_page_hint(it->src, it->etcd_page);
		return KV_OK;
	}
	if (n == 0) {
		it->src = NULL;
		return KV_OK;
	}
	if (n == 1 && !it->n_only && kf[0]) {
		it->only_files = kf;
		it->n_only = 1;
	} else if (n != 1) {
		it->n_only = 0; /* set only when the one source is that file or chain */
	}
	it->src = merge_new(kids, n);
	if (!it->src)
		return kv_fail(KV_NO_MEMORY, "out of memory opening a scan");
	return KV_OK;
}

kv_iter *scan_open(kv_table *t, const kv_scan_opts *o, const scan_internal *in)
{
	if (!t || !o)
		return failed_iter(kv_fail(KV_INVALID, "kv_scan: NULL argument"));
	if (atomic_load(&t->dropped) && !(in && in->dropped_ok))
		return failed_iter(kv_fail(KV_NOT_FOUND, "kv table %s was dropped", t->name));
	if ((o->start && o->start_len > IKEY_ROW_MAX) || (o->stop && o->stop_len > IKEY_ROW_MAX))
		return failed_iter(kv_fail(KV_INVALID, "scan bound longer than the row limit"));
	kv_iter *it = calloc(1, sizeof(*it));
	if (!it)
		return failed_iter(kv_fail(KV_NO_MEMORY, "out of memory"));
	it->t = t;
	const kv_read_opts *ro = &o->read;
	it->latest = in && in->latest;
	kv_ts rp = in && in->sv ? in->read_point : (kv_ts)atomic_load(&t->s->read_point);
	it->read_ts = it->latest                                       ? KV_TS_MAX
		      : in && in->sv                                   ? in->read_ts
		      : (ro->read_ts == 0 || ro->read_ts == KV_TS_MAX) ? rp
								       : ro->read_ts;
	if (!it->latest && it->read_ts > rp)
		it->read_ts = rp; /* never read past complete commits */
	it->read_point = rp;
	if (o->reverse && !(in && in->forward)) {
		it->rs = rscan_new(t, o, table_sv(t), it->read_ts, rp, in);
		return it;
	}
	it->no_done = in && in->no_done;
	it->mem = util_arena_new(1024, 0);
	it->min_ts = ro->min_ts;
	it->max_ts = ro->max_ts;
	it->max_versions = ro->max_versions > 0 ? ro->max_versions : 1;
	it->raw = ro->raw || (in && in->all_versions);
	it->now_us = util_now_us();
	it->filter = (kv_filter *)ro->filter;
	it->buffer_rows = it->filter && it->filter->needs_row;
	if (it->buffer_rows)
		it->rowmem = util_arena_new(8192, 0);
	it->reverse = o->reverse;
	if (o->start && o->start_len) {
		it->start = util_arena_memdup(it->mem, o->start, o->start_len);
		it->start_len = o->start_len;
		it->start_excl = o->start_exclusive;
	}
	if (o->stop) {
		it->stop = util_arena_memdup_nz(it->mem, o->stop, o->stop_len);
		it->stop_len = o->stop_len;
		it->stop_incl = o->stop_inclusive;
		it->has_stop = true;
	}
	/* A row-prefix filter narrows the range. */
	if (it->filter && it->filter->prefix && it->filter->prefix_len) {
		const uint8_t *pf = it->filter->prefix;
		size_t pl = it->filter->prefix_len;
		if (!it->start || ikey_bytes_cmp(it->start, it->start_len, pf, pl) < 0) {
			it->start = pf;
			it->start_len = pl;
			it->start_excl = false;
		}
		/* Stop at the prefix's successor (last non-0xff byte + 1). */
		size_t sl = pl;
		while (sl > 0 && pf[sl - 1] == 0xff)
			sl--;
		if (sl > 0) {
			uint8_t *succ = util_arena_memdup(it->mem, pf, sl);
			succ[sl - 1]++;
			if (!it->has_stop || ikey_bytes_cmp(succ, sl, it->stop, it->stop_len) < 0) {
				it->stop = succ;
				it->stop_len = sl;
				it->stop_incl = false;
				it->has_stop = true;
			}
		}
	}
	it->limit = o->limit;
	it->batch = o->batch;
	it->etcd_page = in ? in->etcd_page : 0;
	kv_status st = setup_columns(it, ro);
	if (!st) {
		if (in && in->sv) {
			it->sv = in->sv;
			atomic_fetch_add(&it->sv->refs, 1);
		} else {
			it->sv = table_sv(t);
		}
		setup_essential(it, o);
		st = build_sources(it, o, !ro->no_cache);
	}
	if (st) {
		kv_iter *f = failed_iter(st);
		kv_iter_close(it);
		return f;
	}
	if (!it->src) {
		it->done = true;
		return it;
	}
	it->fast = fast_ok(it);
	if (it->reverse) {
		if (it->has_stop) {
			size_t sl = it->stop_len + (it->stop_incl ? 1 : 0);
			uint8_t tmp[IKEY_ROW_MAX + 2];
			memcpy(tmp, it->stop, it->stop_len);
			tmp[it->stop_len] = 0;
			util_buf_reserve(&it->rev_target, ikey_size(sl, 0, 0));
			it->rev_target.len = ikey_row_first((uint8_t *)it->rev_target.data, tmp, sl);
		} else {
			it->rev_from_end = true;
		}
	} else if (it->start) {
		size_t sl = it->start_len + (it->start_excl ? 1 : 0);
		uint8_t tmp[IKEY_ROW_MAX + 2];
		memcpy(tmp, it->start, it->start_len);
		tmp[it->start_len] = 0;
		uint8_t *k = seekbuf(it, ikey_size(sl, 0, 0));
		seek_key(it, k, ikey_row_first(k, tmp, sl));
	} else {
		seek_key(it, NULL, 0);
	}
	advance(it);
	return it;
}

kv_iter *kv_scan(kv_table *t, const kv_scan_opts *opts)
{
	return scan_open(t, opts, NULL);
}

bool kv_iter_valid(const kv_iter *it)
{
	return it->rs ? rscan_valid(it->rs) : it->valid;
}

const kv_cell *kv_iter_cell(const kv_iter *it)
{
	return it->rs ? rscan_cell(it->rs) : &it->cell;
}

void kv_iter_next(kv_iter *it)
{
	if (it->rs) {
		rscan_next(it->rs);
		return;
	}
	if (!it->valid)
		return;
	if (UTIL_UNLIKELY(it->nstash)) { /* kv_iter_skip_rows read ahead */
		if (it->spos < it->nstash) {
			stash_get(it, it->spos++, &it->cell);
			it->row_start = false;
			return;
		}
		it->nstash = 0;
	}
	if (it->draining) {
		if (it->rpos < it->nr) {
			it->cell = it->rcells[it->rpos];
			it->row_start = it->batch && it->rpos % it->batch == 0;
			it->rpos++;
			return;
		}
		it->draining = false;
		it->nr = 0;
		if (it->done) {
			it->valid = false;
			return;
		}
	}
	advance(it);
}

void kv_iter_next_row(kv_iter *it)
{
	if (it->rs) {
		rscan_next_row(it->rs);
		return;
	}
	if (!it->valid)
		return;
	it->nstash = 0;
	if (it->draining) {
		it->draining = false;
		it->nr = 0;
		if (it->done) {
			it->valid = false;
			return;
		}
		advance(it);
		return;
	}
	seek_next_row(it);
	advance(it);
}

void kv_iter_seek_row(kv_iter *it, const void *row, size_t rlen)
{
	if (it->rs) {
		if (rlen <= IKEY_ROW_MAX)
			rscan_seek_row(it->rs, row, rlen);
		return;
	}
	if (it->st || !it->src || rlen > IKEY_ROW_MAX)
		return;
	it->done = false;
	it->draining = false;
	it->nstash = 0;
	it->nr = 0;
	it->in_row = false;
	it->need_next = false;
	uint8_t tmp[IKEY_ROW_MAX + 2];
	if (it->reverse) {
		/* First row <= row: seek_lt(row || 0x00), clamped to the stop bound. */
		memcpy(tmp, row, rlen);
		tmp[rlen] = 0;
		size_t l = rlen + 1;
		if (it->has_stop && ikey_bytes_cmp(row, rlen, it->stop, it->stop_len) >= 0) {
			memcpy(tmp, it->stop, it->stop_len);
			tmp[it->stop_len] = 0;
			l = it->stop_len + (it->stop_incl ? 1 : 0);
		}
		util_buf_reset(&it->rev_target);
		util_buf_reserve(&it->rev_target, ikey_size(l, 0, 0));
		it->rev_target.len = ikey_row_first((uint8_t *)it->rev_target.data, tmp, l);
		it->rev_from_end = false;
	} else {
		const uint8_t *r = row;
		size_t l = rlen;
		if (it->start && ikey_bytes_cmp(row, rlen, it->start, it->start_len) < 0) {
			r = it->start;
			l = it->start_len;
		}
		memcpy(tmp, r, l);
		if (r == it->start && it->start_excl)
			tmp[l++] = 0;
		uint8_t *k = seekbuf(it, ikey_size(l, 0, 0));
		seek_key(it, k, ikey_row_first(k, tmp, l));
	}
	advance(it);
}

bool scan_is_fast(const kv_iter *it)
{
	return it->fast;
}

uint64_t scan_cells_looked(const kv_iter *it)
{
	return it->looked;
}

int scan_fast_files(const kv_iter *it)
{
	return it->fast ? it->n_only : 0;
}

bool kv_iter_row_start(const kv_iter *it)
{
	if (it->rs)
		return rscan_row_start(it->rs);
	return it->valid && it->row_start;
}

typedef struct sel_arg {
	const uint64_t *mask;
	uint32_t nbits;
	kv_cell_fn fn;
	void *arg;
} sel_arg;

static void sel_fn(void *arg, const kv_cell *c)
{
	sel_arg *sa = arg;
	if (sel_pass(sa->mask, sa->nbits, c))
		sa->fn(sa->arg, c);
}

/* ------------------------------------------------ rows skipped by a test */

/* Cell i of the stash (see kv_iter), as a kv_cell of the current row. */
static void stash_get(const kv_iter *it, size_t i, kv_cell *c)
{
	const stash_cell *sc = &it->stash[i];
	const uint8_t *b = (const uint8_t *)it->sbytes.data;
	c->row.data = (const uint8_t *)it->row.data;
	c->row.len = it->row.len;
	c->family.data = b;
	c->family.len = it->sflen;
	c->qualifier.data = b + sc->qoff;
	c->qualifier.len = sc->ql;
	c->ts = sc->ts;
	c->type = sc->type;
	c->value.data = sc->v ? sc->v : b + sc->voff;
	c->value.len = sc->vl;
}

static inline void sbytes_add(kv_iter *it, const void *p, size_t n)
{
	util_buf *b = &it->sbytes;
	if (UTIL_UNLIKELY(b->cap - b->len <= n))
		util_buf_reserve(b, n);
	if (n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
}

/* Keeps the current cell (its value still in the source's block). */
static inline void stash_push(kv_iter *it)
{
	if (UTIL_UNLIKELY(it->nstash == it->cstash)) {
		it->cstash = it->cstash ? it->cstash * 2 : 8;
		it->stash = util_xrealloc(it->stash, it->cstash * sizeof *it->stash);
	}
	const kv_cell *c = &it->cell;
	stash_cell *sc = &it->stash[it->nstash++];
	sc->v = c->value.data ? (const uint8_t *)c->value.data : (const uint8_t *)"";
	sc->vl = (uint32_t)c->value.len;
	sc->qoff = it->sbytes.len;
	sc->ql = (uint32_t)c->qualifier.len;
	sc->ts = c->ts;
	sc->type = c->type;
	sbytes_add(it, c->qualifier.data, c->qualifier.len);
}

/* Copies the stashed values that still point into the source's block, before
 * a move that may leave it (iter.h: values are valid until the next move). */
static void stash_detach(kv_iter *it)
{
	for (size_t i = it->sdetached; i < it->nstash; i++) {
		stash_cell *sc = &it->stash[i];
		if (!sc->v)
			continue;
		const uint8_t *v = sc->v; /* sbytes may move: not a pointer into it */
		sc->voff = it->sbytes.len;
		sc->v = NULL;
		sbytes_add(it, v, sc->vl);
	}
	it->sdetached = it->nstash;
}

/* iter_row's part for a row kv_iter_skip_rows stopped at: the stashed cells
 * after the current one; the rest of the row is in the source. */
static size_t stash_replay(kv_iter *it, const uint64_t *mask, uint32_t nbits, kv_cell_fn fn, void *arg)
{
	size_t n = 0;
	for (size_t i = it->spos; i < it->nstash; i++, n++) {
		kv_cell c;
		stash_get(it, i, &c);
		if (sel_pass(mask, nbits, &c))
			fn(arg, &c);
	}
	it->nstash = 0;
	return n;
}

static inline bool is_test_cell(const kv_cell *c, const kv_row_test *t)
{
	if (t->empty)
		return c->qualifier.len == 0;
	return c->qualifier.len == 2 && ((uint32_t)c->qualifier.data[0] << 8 | c->qualifier.data[1]) == t->id;
}

/* A walk over the entries of a row in its block (skip_block_row,
 * hold_block_row): the row's first cell's key and offsets, the next
 * entry's place, and its parts once read. */
typedef struct row_walk {
	const uint8_t *rk; /* the row's first cell's key (well formed: taken) */
	size_t rl, qoff;   /* the row's length; its qualifiers' offset in a key */
	size_t at, lim;    /* the next entry; the end of the block's entries */
	const uint8_t *u;  /* the entry's own key bytes (its value follows) */
	size_t sh, un, vl, kl;
} row_walk;

static inline void walk_start(row_walk *w, const kv_iter *it, const blk_iter *b)
{
	w->rk = b->key;
	w->rl = it->row.len;
	w->qoff = 3 + w->rl + w->rk[2 + w->rl];
	w->at = b->next;
	w->lim = b->limit;
}

/* Reads the entry at w->at (not stepping over it): 1 when it is of the
 * row and its family, 0 when it starts the next row, -1 when the general
 * loop must see it (block end, a long or malformed entry, another family). */
static inline __attribute__((always_inline)) int walk_entry(row_walk *w, const uint8_t *d)
{
	if (w->at + 3 > w->lim)
		return -1;
	const uint8_t *p = d + w->at;
	__builtin_prefetch(p + 256); /* as blki_next_inline */
	size_t sh = w->sh = p[0], un = w->un = p[1], vl = w->vl = p[2];
	if ((sh | un | vl) >= 0x80 || w->at + 3 + un + vl > w->lim)
		return -1;
	const uint8_t *u = w->u = p + 3;
	size_t kl = w->kl = sh + un, rl = w->rl, qoff = w->qoff;
	/* A count that is not 0 is exact (fast_step): below the row's
	 * end it is the next row; 0 (a restart) says nothing. */
	if (sh < 2 + rl && (sh || kl < 2 + rl || memcmp(u, w->rk, 2 + rl)))
		return 0;
	if (sh < qoff && (kl < qoff || memcmp(u, w->rk + sh, qoff - sh)))
		return -1; /* another family, or malformed */
	return 1;
}

/* After a walk's 0: the entry at w->at starts the next row. It shares
 * only bytes of this row's key with the entry before (sh < 2 + rl), so it
 * is rebuilt over the current key; then the iterator takes it
 * (advance_fast). REQUIRES: w->kl <= b->kcap. */
static void walk_next_row(kv_iter *it, kv_src *s, blk_iter *b, const row_walk *w)
{
	blk_copy(b->key + w->sh, w->u, w->un);
	b->klen = w->kl;
	b->shared = w->sh;
	b->val = w->u + w->un;
	b->vlen = w->vl;
	b->cur = w->at;
	b->next = w->at + 3 + w->un + w->vl;
	src_take_blk(s, b);
	if (UTIL_UNLIKELY(!ikey_valid(b->key, w->kl))) {
		s->valid = false;
		s->status = kv_fail(KV_CORRUPTION, "malformed key in a sorted file's block");
	}
	it->valid = false;
	it->need_next = false;
	it->in_row = false;
	advance_fast(it);
}

/* kv_iter_skip_rows's common case: the row whose first cell is current is
 * judged from its entries in the source's block without setting anything
 * up. Only the prefix counts and lengths of an entry are read to place it
 * (in the row or not, an older version or a new column), its 2-byte
 * column id from its own bytes or the id before, and the key is rebuilt
 * only for the next row's first entry (the row's bytes it shares are the
 * current key's). True when the row was dropped (its test cell missing or
 * failing) and the iterator moved to the next row (advance_fast); false,
 * with nothing changed, when the row passes, is not wholly in the block or
 * has an entry the general loop must see (another family or qualifier
 * length, a marker, a long or malformed entry). */
static __attribute__((noinline)) bool skip_block_row(kv_iter *it, kv_src *s, const kv_row_test *t)
{
	blk_iter *b = s->blk;
	if (!b || !b->valid || s->key != b->key || s->klen != b->klen)
		return false;
	row_walk w;
	walk_start(&w, it, b);
	const uint8_t *rk = w.rk, *d = b->data;
	size_t qoff = w.qoff, pkl = b->klen;
	uint32_t q0 = rk[qoff], q1 = rk[qoff + 1]; /* the key bytes there, of any entry */
	bool dropped = false;
	int r;
	while ((r = walk_entry(&w, d)) > 0) {
		const uint8_t *u = w.u;
		size_t sh = w.sh, un = w.un, kl = w.kl;
		if (kl < qoff + IKEY_SUFFIX)
			return false;
		w.at += 3 + un + w.vl;
		if (dropped || (kl == pkl && sh + IKEY_SUFFIX >= kl))
			goto next; /* the row's verdict is in, or an older version */
		if (kl != qoff + 2 + IKEY_SUFFIX || sh > kl - IKEY_SUFFIX)
			return false; /* another qualifier length; a suffix not its own */
		uint8_t type = (uint8_t)~u[un - 1];
		if (type != KV_PUT)
			return false;
		if (sh <= qoff) {
			q0 = u[qoff - sh];
			q1 = u[qoff + 1 - sh];
		} else if (sh == qoff + 1) {
			q1 = u[0];
		}
		if (!t->empty && (q0 << 8 | q1) == t->id) {
			if (t->fn(t->arg, u + un, w.vl))
				return false; /* kept: the general loop hands it out */
			dropped = true;
		}
	next:
		pkl = kl;
	}
	/* Dropped (also with no test cell: NULL). */
	if (r < 0 || w.kl > b->kcap)
		return false;
	walk_next_row(it, s, b, &w);
	return true;
}

size_t kv_iter_skip_rows(kv_iter *it, const uint64_t *mask, uint32_t nbits, const kv_row_test *t,
			 size_t max_rows)
{
	/* Only on the fast path, at a row's first cell, with the test's
	 * column among those the mask lets through. */
	if (!it->fast || it->rs || !it->valid || it->draining || it->nstash || it->row_cells != 1 ||
	    (mask && !t->empty && !sel_id(mask, nbits, t->id)))
		return 0;
	static const uint64_t none = 0;
	kv_src *s = it->src;
	size_t skipped = 0;
	for (;;) {
		if (!is_test_cell(&it->cell, t) && skip_block_row(it, s, t)) {
			skipped++;
			if (!it->valid || skipped >= max_rows)
				return skipped;
			continue;
		}
		/* it->cell is the row's first cell; read ahead to the test's. */
		bool first_start = it->row_start;
		it->nstash = it->sdetached = 0;
		int verdict = -1; /* not seen yet; then 0 drop, 1 keep */
		if (is_test_cell(&it->cell, t))
			verdict = t->fn(t->arg, (const uint8_t *)it->cell.value.data, it->cell.value.len);
		if (verdict) { /* the stash only for a row kept or not judged yet */
			it->sbytes.len = 0;
			sbytes_add(it, it->cell.family.data, it->cell.family.len);
			it->sflen = it->cell.family.len;
			stash_push(it);
		}
		bool ended = false;
		while (verdict < 0) {
			int r = fast_next_cell(it, s, mask, nbits, true);
			if (r < 0) {
				ended = true; /* no test cell (NULL): drop */
				verdict = 0;
			} else if (r == 1) {
				if (is_test_cell(&it->cell, t))
					verdict = t->fn(t->arg, (const uint8_t *)it->cell.value.data,
							it->cell.value.len);
				if (verdict)
					stash_push(it);
			}
		}
		if (verdict > 0) {
			/* The row's first cell is current again; the source stays
			 * on the test cell (need_next, in_row: as after it). */
			it->spos = 1;
			stash_get(it, 0, &it->cell);
			it->row_start = first_start;
			it->valid = true;
			it->need_next = true;
			return skipped;
		}
		it->nstash = 0;
		if (!ended)
			while (fast_next_cell(it, s, &none, 1, false) > 0)
				; /* the rest of the row: stepped, never set up */
		skipped++;
		/* The source is on the first entry after the row, as iter_row
		 * leaves it. */
		it->valid = false;
		it->need_next = false;
		it->in_row = false;
		advance_fast(it);
		if (!it->valid || skipped >= max_rows)
			return skipped;
	}
}

static inline size_t iter_row(kv_iter *it, const uint64_t *mask, uint32_t nbits, kv_cell_fn fn, void *arg)
{
	if (it->rs) {
		if (!mask)
			return rscan_row(it->rs, fn, arg);
		sel_arg sa = {mask, nbits, fn, arg};
		return rscan_row(it->rs, sel_fn, &sa);
	}
	if (!kv_iter_valid(it))
		return 0;
	size_t n = 0;
	if (it->fast) {
		/* The row's first cell was set up by advance_fast; the others
		 * by fast_next_cell, which skips those the mask leaves out. */
		kv_src *s = it->src;
		if (sel_pass(mask, nbits, &it->cell))
			fn(arg, &it->cell);
		n++;
		if (UTIL_UNLIKELY(it->nstash))
			n += stash_replay(it, mask, nbits, fn, arg);
		for (;;) {
			int r = fast_next_cell(it, s, mask, nbits, false);
			if (r < 0)
				break;
			n++;
			if (r == 1)
				fn(arg, &it->cell);
		}
		/* The source is on the first entry after the row (or at the end):
		 * a new row for advance_fast, without comparing again. */
		it->valid = false;
		it->need_next = false;
		it->in_row = false;
		advance_fast(it);
		return n;
	}
	/* Any other scan: cell by cell, the row compared with a copy. */
	const kv_cell *c = kv_iter_cell(it);
	uint8_t small[64];
	size_t rl = c->row.len;
	uint8_t *row = rl <= sizeof small ? small : util_xmalloc(rl);
	memcpy(row, c->row.data, rl);
	for (;;) {
		if (sel_pass(mask, nbits, c))
			fn(arg, c);
		n++;
		kv_iter_next(it);
		if (!kv_iter_valid(it))
			break;
		c = kv_iter_cell(it);
		if (c->row.len != rl || memcmp(c->row.data, row, rl) != 0)
			break;
	}
	if (row != small)
		free(row);
	return n;
}

size_t kv_iter_row(kv_iter *it, kv_cell_fn fn, void *arg)
{
	return iter_row(it, NULL, 0, fn, arg);
}

size_t kv_iter_row_sel(kv_iter *it, const uint64_t *mask, uint32_t nbits, kv_cell_fn fn, void *arg)
{
	return iter_row(it, mask, nbits, fn, arg);
}

/* fn, then leave: a cell's value held only during its call. */
typedef struct hold_arg {
	kv_cell_fn fn;
	void (*leave)(void *arg);
	void *arg;
} hold_arg;

static void hold_fn(void *arg, const kv_cell *c)
{
	hold_arg *h = arg;
	h->fn(h->arg, c);
	h->leave(h->arg);
}

/* A cell of hold_block_row's row after its first: the column id, value
 * (in the block) and timestamp. */
typedef struct held_cell {
	const uint8_t *v;
	uint32_t vl;
	uint8_t q[2];
	kv_ts ts;
} held_cell;

#define HOLD_ROW_CELLS 32

/* kv_iter_row_hold's common case, as skip_block_row walks a row: the row
 * whose first cell is current is read from its entries in the source's
 * block without rebuilding each key or setting up the iterator per cell;
 * the cells after the first are collected (values in the block), then
 * handed to fn, and the key rebuilt only for the next row's first entry.
 * False, with nothing called or changed, when the row is not wholly in
 * the block or has an entry the general loop must see (another family or
 * qualifier length, a marker, a long entry, more than HOLD_ROW_CELLS). */
static __attribute__((noinline)) bool hold_block_row(kv_iter *it, kv_cell_fn fn, void *arg, size_t *ncells)
{
	kv_src *s = it->src;
	blk_iter *b = s->blk;
	if (!b || !b->valid || s->key != b->key || s->klen != b->klen || it->batch || it->row_cells != 1)
		return false;
	row_walk w;
	walk_start(&w, it, b);
	const uint8_t *rk = w.rk, *d = b->data;
	size_t qoff = w.qoff;
	/* The last column id taken (-1: none); an entry of the same id is an
	 * older version, also after a restart point (no shared count). */
	int32_t last = b->klen == qoff + 2 + IKEY_SUFFIX ? (int32_t)(rk[qoff] << 8 | rk[qoff + 1]) : -1;
	held_cell cells[HOLD_ROW_CELLS];
	size_t n = 0;
	for (int r; (r = walk_entry(&w, d)) != 0;) {
		if (r < 0)
			return false;
		const uint8_t *u = w.u;
		size_t sh = w.sh, un = w.un, kl = w.kl;
		if (kl != qoff + 2 + IKEY_SUFFIX || sh > kl - IKEY_SUFFIX)
			return false; /* another qualifier length; a suffix not its own */
		w.at += 3 + un + w.vl;
		/* The qualifier's bytes not in the entry are the entry's before,
		 * which had this length (its id is last) or was the first. */
		if (sh > qoff && last < 0)
			return false;
		uint32_t q0 = sh <= qoff ? u[qoff - sh] : (uint32_t)last >> 8;
		uint32_t q1 = sh <= qoff + 1 ? u[qoff + 1 - sh] : (uint32_t)last & 0xff;
		int32_t id = (int32_t)(q0 << 8 | q1);
		if (id == last)
			continue; /* an older version */
		uint8_t type = (uint8_t)~u[un - 1];
		if (type != KV_PUT || n == HOLD_ROW_CELLS)
			return false;
		held_cell *hc = &cells[n++];
		*hc = (held_cell){u + un, (uint32_t)w.vl, {(uint8_t)q0, (uint8_t)q1}, 0};
		hc->ts = ikey_ts(u + un - IKEY_SUFFIX, IKEY_SUFFIX);
		last = id;
	}
	if (w.kl > b->kcap)
		return false;
	fn(arg, &it->cell);
	kv_cell c = it->cell; /* row and family: the first cell's */
	c.qualifier.len = 2;
	c.type = KV_PUT;
	for (size_t i = 0; i < n; i++) {
		c.qualifier.data = cells[i].q;
		c.value.data = cells[i].v;
		c.value.len = cells[i].vl;
		c.ts = cells[i].ts;
		fn(arg, &c);
	}
	*ncells = n + 1;
	walk_next_row(it, s, b, &w);
	return true;
}

size_t kv_iter_row_hold(kv_iter *it, kv_cell_fn fn, void (*leave)(void *arg), void *arg)
{
	/* Values stay put only on the fast path, where they point into the
	 * source's block; everywhere else each is let go after its call. */
	if (it->rs || !it->fast || it->nstash) {
		hold_arg h = {fn, leave, arg};
		return iter_row(it, NULL, 0, hold_fn, &h);
	}
	it->leave = leave;
	it->leave_arg = arg;
	size_t n = 0;
	if (!it->valid || !hold_block_row(it, fn, arg, &n))
		n = iter_row(it, NULL, 0, fn, arg);
	it->leave = NULL;
	return n;
}

kv_status kv_iter_status(const kv_iter *it)
{
	if (it->rs) {
		const char *msg;
		kv_status st = rscan_status(it->rs, &msg);
		if (st)
			kv_fail(st, "%s", msg);
		return st;
	}
	if (it->st)
		kv_fail(it->st, "%s", it->errmsg);
	return it->st;
}

void kv_iter_close(kv_iter *it)
{
	if (!it || it->is_static)
		return;
	if (it->rs) {
		rscan_free(it->rs);
		free(it);
		return;
	}
	src_close(it->src);
	if (it->sv)
		sv_unref(it->sv);
	util_arena_destroy(it->mem);
	if (it->rowmem)
		util_arena_destroy(it->rowmem);
	free(it->rcells);
	free(it->dfv);
	util_buf_free(&it->row);
	util_buf_free(&it->famname);
	util_buf_free(&it->colkey);
	util_buf_free(&it->rev_target);
	util_buf_free(&it->seekbuf);
	util_buf_free(&it->sbytes);
	free(it->stash);
	util_buf_free(&it->pending);
	free(it);
}

/* ---------------------------------------------------------------- get, first/last row */

static void point_opts(kv_scan_opts *so, const void *row, size_t rlen, const kv_read_opts *ro)
{
	memset(so, 0, sizeof(*so));
	if (ro)
		so->read = *ro;
	so->start = row;
	so->start_len = rlen;
	so->stop = row;
	so->stop_len = rlen;
	so->stop_inclusive = true;
}

kv_status kv_get(kv_table *t, const void *row, size_t rlen, const kv_read_opts *opts, util_arena *arena,
		 kv_row *out)
{
	out->cells = NULL;
	out->n = 0;
	if (!row && rlen)
		return kv_fail(KV_INVALID, "kv_get: NULL row");
	kv_status pst;
	if (t && point_get(t, row ? row : "", rlen, opts, arena, out, &pst))
		return pst;
	kv_scan_opts so;
	point_opts(&so, row ? row : "", rlen, opts);
	kv_iter *it = scan_open(t, &so, NULL);
	size_t cap = 0;
	kv_status st = KV_OK;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *c = kv_iter_cell(it);
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			kv_cell *nc = util_arena_alloc(arena, ncap * sizeof(kv_cell));
			if (!nc) {
				st = kv_fail(KV_NO_MEMORY, "kv_get: arena budget exceeded");
				break;
			}
			if (out->n)
				memcpy(nc, out->cells, out->n * sizeof(kv_cell));
			out->cells = nc;
			cap = ncap;
		}
		kv_cell *d = &out->cells[out->n];
		*d = *c;
		d->row.data = util_arena_memdup_nz(arena, c->row.data, c->row.len);
		d->family.data = util_arena_memdup_nz(arena, c->family.data, c->family.len);
		d->qualifier.data = util_arena_memdup_nz(arena, c->qualifier.data, c->qualifier.len);
		d->value.data = util_arena_memdup_nz(arena, c->value.data, c->value.len);
		if (!d->row.data || !d->family.data || !d->qualifier.data || !d->value.data) {
			st = kv_fail(KV_NO_MEMORY, "kv_get: arena budget exceeded");
			break;
		}
		out->n++;
	}
	if (!st)
		st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}

static kv_status edge_row(kv_table *t, const kv_scan_opts *opts, bool last, util_arena *arena, kv_slice *row)
{
	kv_scan_opts so = *opts;
	so.reverse = last;
	so.limit = 1;
	kv_iter *it = scan_open(t, &so, NULL);
	kv_status st = kv_iter_status(it);
	if (!st && !kv_iter_valid(it))
		st = KV_NOT_FOUND;
	if (!st) {
		const kv_cell *c = kv_iter_cell(it);
		row->data = util_arena_memdup_nz(arena, c->row.data, c->row.len);
		row->len = c->row.len;
		if (!row->data)
			st = kv_fail(KV_NO_MEMORY, "arena budget exceeded");
	}
	kv_iter_close(it);
	return st;
}

kv_status kv_first_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row)
{
	return edge_row(t, opts, false, arena, row);
}

kv_status kv_last_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row)
{
	return edge_row(t, opts, true, arena, row);
}

/* ---------------------------------------------------------------- latest-view reads for commits */

kv_status read_latest_cell(kv_table *t, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
			   size_t qlen, util_buf *val, kv_ts *ts, bool *found)
{
	kv_scan_opts so;
	point_opts(&so, row, rlen, NULL);
	kv_column col = {fam, q ? (const void *)q : (const void *)"", qlen};
	so.read.columns = &col;
	so.read.ncolumns = 1;
	scan_internal in = {.latest = true};
	kv_iter *it = scan_open(t, &so, &in);
	*found = false;
	if (kv_iter_valid(it)) {
		const kv_cell *c = kv_iter_cell(it);
		*found = true;
		*ts = c->ts;
		if (val) {
			util_buf_reset(val);
			util_buf_append(val, c->value.data, c->value.len);
		}
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}

kv_status read_latest_row_ts(kv_table *t, const uint8_t *row, size_t rlen, kv_ts *ts)
{
	kv_scan_opts so;
	point_opts(&so, row, rlen, NULL);
	scan_internal in = {.latest = true, .all_versions = true};
	kv_iter *it = scan_open(t, &so, &in);
	*ts = 0;
	for (; kv_iter_valid(it); kv_iter_next(it))
		if (kv_iter_cell(it)->ts > *ts)
			*ts = kv_iter_cell(it)->ts;
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}
