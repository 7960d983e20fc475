/*
 * rscan.c — reverse scans (rows descending, cells within a row ascending,
 * as HBase since HBASE-4811), done as forward sub-scans over chunks of
 * rows read backwards: a chunk [lo, hi) is scanned forward through the
 * normal matcher into a buffer, then its rows are returned last to first;
 * the next chunk ends where this one began. Chunk bounds come from the
 * block indexes of the table's big sorted files (about one block of rows
 * of each per chunk), so a reverse scan costs about as much as a forward one. All
 * sub-scans read the same superversion at the same timestamps. On etcd the
 * chunk bounds come from descending reads of keys (etcd_lo).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "kv_int.h"

struct rscan {
	kv_table *t;
	kv_sv *sv;
	kv_scan_opts o; /* start/stop point into own copies */
	scan_internal in;
	sst_reader *guide;
	kv_sfile *guide_f; /* the guide's file (held by sv) */
	kv_src *probe;     /* memstores, to step back by rows when there is no file */
	util_arena *keep;  /* bounds (scan lifetime) */
	util_arena *chunk; /* the current chunk's cells */
	kv_cell *cells;
	size_t n, cap;
	size_t *rows; /* start index of each row in cells */
	size_t nrows, crows;
	size_t ri;    /* current row + 1 (0: chunk exhausted) */
	size_t ci;    /* cell index within the row */
	util_buf hi;  /* exclusive upper bound row of the next chunk */
	int64_t erev; /* etcd: the revision the chunk bounds are read at */
	size_t erows; /* etcd: rows of the next unsized chunk */
	size_t ekeys; /* etcd: keys of the chunk chosen (its first page) */
	bool hi_inf;
	bool done;
	uint64_t rows_out;
	kv_status st;
	char errmsg[256];
};

#define ETCD_CHUNK_FIRST 64   /* etcd: rows of the first unsized chunk */
#define ETCD_CHUNK_MAX   4096 /* ... doubling up to */

static void rs_fail(rscan *r, kv_status st)
{
	if (!r->st) {
		r->st = st;
		snprintf(r->errmsg, sizeof(r->errmsg), "%s", kv_errmsg());
	}
	r->done = true;
	r->ri = 0;
}

/* Whether file f holds rows inside the scan's range below the next chunk's
 * upper bound (by its smallest and largest keys). */
static bool file_below_hi(const rscan *r, const kv_sfile *f, bool hi_inf)
{
	const man_file *m = &f->m;
	if (!m->smallest || !m->largest)
		return true;
	if (!hi_inf && ikey_bytes_cmp(m->smallest + 2, ikey_rowlen(m->smallest), (const uint8_t *)r->hi.data,
				      r->hi.len) >= 0)
		return false;
	if (r->o.start &&
	    ikey_bytes_cmp(m->largest + 2, ikey_rowlen(m->largest), r->o.start, r->o.start_len) < 0)
		return false;
	return true;
}

/* The largest file of the families read that holds rows of the range below
 * hi (else the largest file): the guide, kept open for the scan (its reader
 * is reused by choose_lo), and the size the other files are measured by. */
static kv_sfile *guide_file(const rscan *r, bool hi_inf)
{
	kv_sfile *best = NULL, *any = NULL;
	for (int i = 0; i < r->sv->v->nfam; i++)
		for (int j = 0; j < r->sv->v->fams[i].n; j++) {
			kv_sfile *f = r->sv->v->fams[i].files[j];
			if (!any || f->m.size > any->m.size)
				any = f;
			if (file_below_hi(r, f, hi_inf) && (!best || f->m.size > best->m.size))
				best = f;
		}
	return best ? best : any;
}

static void pick_guide(rscan *r)
{
	if (r->t->s->etcd) {
		/* etcd: chunks are found by descending reads (etcd_lo). */
		r->erev = scan_etcd_rev(r->t, r->in.latest, r->in.read_ts);
		r->erows = ETCD_CHUNK_FIRST;
		return;
	}
	kv_sfile *best = guide_file(r, r->hi_inf);
	if (best && sfile_reader(best, &r->guide) != KV_OK)
		r->guide = NULL;
	r->guide_f = r->guide ? best : NULL;
	if (r->guide)
		return;
	/* Only memstores: step back through them instead of buffering all. */
	kv_src *kids[64];
	int n = 0;
	if (mem_count(r->sv->mem))
		kids[n++] = mem_iter_new(r->sv->mem, KV_TS_MAX);
	for (int i = 0; i < r->sv->nimm && n < 64; i++)
		if (mem_count(r->sv->imm[i]))
			kids[n++] = mem_iter_new(r->sv->imm[i], KV_TS_MAX);
	for (int i = 0; i < n; i++)
		if (!kids[i]) {
			for (int j = 0; j < n; j++)
				src_close(kids[j]);
			return;
		}
	if (n)
		r->probe = merge_new(kids, n);
}

#define PROBE_ROWS 64

/* Without a file index: the row PROBE_ROWS rows before hi, by seek_lt. */
static void probe_lo(rscan *r, util_buf *lo, bool *none)
{
	uint8_t k[IKEY_ROW_MAX + 16];
	size_t kl = 0;
	bool from_end = r->hi_inf;
	if (!from_end)
		kl = ikey_row_first(k, r->hi.data, r->hi.len);
	for (int i = 0; i < PROBE_ROWS; i++) {
		if (from_end)
			src_seek_lt(r->probe, NULL, 0);
		else
			src_seek_lt(r->probe, k, kl);
		from_end = false;
		if (!r->probe->valid) {
			*none = true;
			return;
		}
		size_t rl = ikey_rowlen(r->probe->key);
		util_buf_reset(lo);
		util_buf_append(lo, r->probe->key + 2, rl);
		kl = ikey_row_first(k, lo->data, lo->len);
		*none = false;
	}
}

#define PREPASS_ROWS     64
#define SIZED_MAX_BLOCKS 4
#define SIZED_MEM_CELLS  16384

/* A chunk for the few rows a LIMIT still wants: counts file g's rows back
 * from hi by restart interval (16 cells) until `need` lie in [lo, hi), so the
 * chunk holds about the rows returned instead of a block of them. False when
 * the file has fewer rows below hi (the caller reads to the range start). */
static bool sized_lo(rscan *r, sst_reader *g, uint64_t need, util_buf *lo, bool *none)
{
	uint8_t k[IKEY_ROW_MAX + 16];
	size_t kl = 0;
	size_t nb = sst_nblocks(g);
	if (!nb)
		return false;
	size_t b = nb - 1;
	if (!r->hi_inf) {
		kl = ikey_row_first(k, r->hi.data, r->hi.len);
		b = sst_find_block(g, k, kl);
		if (b >= nb) {
			b = nb - 1;
			kl = 0; /* every key of the file is below hi */
		}
	}
	util_buf_reset(lo);
	uint64_t count = 0;
	for (size_t j = b + 1, n = 0; j-- > 0; n++) {
		if (n == SIZED_MAX_BLOCKS)
			break; /* huge rows: take what was found */
		bool first = j == b && kl;
		uint64_t found;
		kv_status st = sst_block_rows_before(g, j, first ? k : NULL, first ? kl : 0,
						     !r->o.read.no_cache, need - count, lo, &found);
		if (st) {
			rs_fail(r, st);
			return false;
		}
		count += found;
		if (count >= need)
			break;
		if (j == 0)
			return false; /* fewer rows than wanted in the whole file below hi */
	}
	if (!count)
		return false;
	*none = false;
	return true;
}

/* etcd: the row `need` rows (a LIMIT's rest), else erows rows (doubling
 * per chunk), below hi, by one descending read of keys (ekv_rows_back): a
 * descending read costs etcd the whole range below hi whatever its limit,
 * so a chunk takes one such read instead of one per row. */
static void etcd_lo(rscan *r, util_buf *lo, bool *none, bool *sized)
{
	uint64_t need = r->o.limit ? r->o.limit - r->rows_out : 0;
	size_t want = r->erows;
	if (need && need <= PREPASS_ROWS)
		want = (size_t)need;
	else if (r->erows < ETCD_CHUNK_MAX)
		r->erows *= 2;
	bool found;
	kv_status st = ekv_rows_back(r->t, &r->erev, r->o.start, r->o.start_len,
				     r->hi_inf ? NULL : (const uint8_t *)r->hi.data, r->hi.len, want, lo,
				     &r->ekeys, &found);
	if (st) {
		rs_fail(r, st);
		return;
	}
	*none = !found;
	*sized = found && want == need;
	r->ekeys += r->ekeys / want + 16; /* the last row's other cells */
}

/* The chunk's lower bound below hi from file g's index: about `need` rows
 * back (sized) when need, else the row of an index separator one block
 * back. *none: no bound (read to the start of the range). */
static void file_lo(rscan *r, sst_reader *g, uint64_t need, util_buf *lo, bool *none, bool *sized)
{
	*none = true;
	*sized = false;
	util_buf_reset(lo);
	if (need) {
		if (sized_lo(r, g, need, lo, none)) {
			*sized = true;
			return;
		}
		if (r->st)
			return;
		util_buf_reset(lo);
		*none = true;
	}
	size_t b;
	uint8_t k[IKEY_ROW_MAX + 16];
	if (r->hi_inf) {
		b = sst_nblocks(g);
	} else {
		size_t kl = ikey_row_first(k, r->hi.data, r->hi.len);
		b = sst_find_block(g, k, kl);
	}
	for (size_t j = b; j-- > 0;) {
		const uint8_t *sk;
		size_t skl;
		sst_block_key(g, j, &sk, &skl);
		const uint8_t *row = sk + 2;
		size_t rl = ikey_rowlen(sk);
		if (r->hi_inf || ikey_bytes_cmp(row, rl, (const uint8_t *)r->hi.data, r->hi.len) < 0) {
			util_buf_append(lo, row, rl);
			*none = false;
			return;
		}
	}
}

/* A file smaller than this share of the largest one that holds rows below
 * hi adds few rows to a chunk whatever its bound: its index is not read. */
#define GUIDE_MIN_SHARE 8

/* Chooses the chunk's lower bound below hi: the highest of the bounds the
 * big files holding rows below hi give (file_lo), so that the chunk holds
 * about a block (or `need` rows) of each. One file's bound alone is not
 * enough when the files are key-disjoint (a large commit's merge split by
 * key range, runs kept apart): a file whose rows end below hi would give a
 * bound below all rows of the file that holds those just below hi. Any
 * bound below hi is correct; this one sizes the chunk. *none: no bound. */
static void choose_lo(rscan *r, util_buf *lo, bool *none, bool *sized)
{
	*none = true;
	*sized = false;
	util_buf_reset(lo);
	if (r->t->s->etcd) {
		etcd_lo(r, lo, none, sized);
		return;
	}
	if (r->probe) {
		probe_lo(r, lo, none);
		return;
	}
	if (!r->guide)
		return;
	uint64_t need = r->o.limit ? r->o.limit - r->rows_out : 0;
	if (need > PREPASS_ROWS)
		need = 0;
	kv_sfile *big = guide_file(r, r->hi_inf);
	util_buf flo = UTIL_BUF_INIT;
	for (int i = 0; i < r->sv->v->nfam && !r->st; i++)
		for (int j = 0; j < r->sv->v->fams[i].n && !r->st; j++) {
			kv_sfile *f = r->sv->v->fams[i].files[j];
			if (!file_below_hi(r, f, r->hi_inf) ||
			    (big && f->m.size < big->m.size / GUIDE_MIN_SHARE))
				continue;
			sst_reader *g = r->guide;
			if (f != r->guide_f && sfile_reader(f, &g) != KV_OK)
				continue; /* chunks stay correct, only sized by the others */
			bool fnone, fsized;
			file_lo(r, g, need, &flo, &fnone, &fsized);
			if (g != r->guide)
				sst_unref(g);
			if (fnone || (!*none && ikey_bytes_cmp((const uint8_t *)flo.data, flo.len,
							       (const uint8_t *)lo->data, lo->len) <= 0))
				continue;
			util_buf_reset(lo);
			util_buf_append(lo, flo.data, flo.len);
			*none = false;
			*sized = fsized;
		}
	util_buf_free(&flo);
}

/* Few cells in the memstores: a sized chunk holds little more than the
 * rows wanted, and copying them costs less than counting them first. */
static bool mem_small(const rscan *r)
{
	uint64_t n = mem_count(r->sv->mem);
	for (int i = 0; i < r->sv->nimm; i++)
		n += mem_count(r->sv->imm[i]);
	return n <= SIZED_MEM_CELLS;
}

static void add_cell(rscan *r, const kv_cell *c, bool new_row)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->cells = util_xrealloc(r->cells, r->cap * sizeof(kv_cell));
	}
	if (new_row) {
		if (r->nrows == r->crows) {
			r->crows = r->crows ? 2 * r->crows : 64;
			r->rows = util_xrealloc(r->rows, r->crows * sizeof(size_t));
		}
		r->rows[r->nrows++] = r->n;
	}
	kv_cell *d = &r->cells[r->n++];
	*d = *c;
	/* Cells of one row share its row bytes, and consecutive cells their
	 * family's when equal (across rows too); what is left takes one
	 * allocation. */
	const kv_cell *prev = r->n > 1 ? &r->cells[r->n - 2] : NULL;
	bool own_row = new_row || !prev;
	bool own_fam = !prev || prev->family.len != c->family.len ||
		       memcmp(prev->family.data, c->family.data, c->family.len);
	size_t len =
	    c->qualifier.len + c->value.len + (own_row ? c->row.len : 0) + (own_fam ? c->family.len : 0);
	uint8_t *p = util_arena_alloc(r->chunk, len ? len : 1);
	if (own_row) {
		if (c->row.len)
			memcpy(p, c->row.data, c->row.len);
		d->row.data = p;
		p += c->row.len;
	} else {
		d->row.data = prev->row.data;
	}
	if (own_fam) {
		if (c->family.len)
			memcpy(p, c->family.data, c->family.len);
		d->family.data = p;
		p += c->family.len;
	} else {
		d->family.data = prev->family.data;
	}
	if (c->qualifier.len)
		memcpy(p, c->qualifier.data, c->qualifier.len);
	d->qualifier.data = p;
	p += c->qualifier.len;
	if (c->value.len)
		memcpy(p, c->value.data, c->value.len);
	d->value.data = p;
}

struct chunk_fill {
	rscan *r;
	bool first; /* the next cell starts a row */
};

static void fill_cell(void *arg, const kv_cell *c)
{
	struct chunk_fill *cf = arg;
	add_cell(cf->r, c, cf->first);
	cf->first = false;
}

static void skip_row_cells(void *arg, const kv_cell *c)
{
	(void)arg;
	(void)c;
}

/* A scan that needs only its last few rows from this chunk (a LIMIT, a
 * last-row seek): counts the chunk's rows by key first, without copying
 * cells, and moves so's start to the first row wanted. */
static bool prepass(rscan *r, kv_scan_opts *so, util_buf *keys)
{
	uint64_t need = r->o.limit - r->rows_out;
	util_buf offs = UTIL_BUF_INIT;
	kv_iter *it = scan_open(r->t, so, &r->in);
	size_t nrows = 0;
	while (kv_iter_valid(it)) {
		const kv_cell *c = kv_iter_cell(it);
		size_t off = keys->len;
		util_buf_append(&offs, &off, sizeof off);
		util_buf_append(keys, c->row.data, c->row.len);
		nrows++;
		kv_iter_row(it, skip_row_cells, NULL);
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	if (st) {
		util_buf_free(&offs);
		rs_fail(r, st);
		return false;
	}
	if (nrows > need) {
		size_t i = nrows - (size_t)need, a, b = keys->len;
		memcpy(&a, offs.data + i * sizeof a, sizeof a);
		if (i + 1 < nrows)
			memcpy(&b, offs.data + (i + 1) * sizeof b, sizeof b);
		so->start = (const uint8_t *)keys->data + a;
		so->start_len = b - a;
		so->start_exclusive = false;
	}
	util_buf_free(&offs);
	return true;
}

/* Reads chunks until one has rows (or the range is exhausted). */
static void next_chunk(rscan *r)
{
	util_buf lo = UTIL_BUF_INIT, keys = UTIL_BUF_INIT;
	while (!r->done) {
		util_arena_reset(r->chunk);
		r->n = r->nrows = 0;
		if (r->o.limit && r->rows_out >= r->o.limit) {
			r->done = true; /* nothing more will be returned */
			break;
		}
		bool none, sized;
		choose_lo(r, &lo, &none, &sized);
		if (r->st)
			break;
		kv_scan_opts so = r->o;
		so.reverse = false;
		so.limit = 0;
		bool last = none;
		if (r->o.start && (none || ikey_bytes_cmp((const uint8_t *)lo.data, lo.len, r->o.start,
							  r->o.start_len) <= 0)) {
			so.start = r->o.start;
			so.start_len = r->o.start_len;
			so.start_exclusive = r->o.start_exclusive;
			last = true;
		} else if (!none) {
			so.start = (const uint8_t *)lo.data;
			so.start_len = lo.len;
			so.start_exclusive = false;
		} else {
			so.start = NULL;
			so.start_len = 0;
		}
		if (r->hi_inf) {
			so.stop = NULL;
		} else {
			so.stop = (const uint8_t *)r->hi.data;
			so.stop_len = r->hi.len;
			so.stop_inclusive = false;
		}
		so.batch = 0; /* row_start marks exactly the first cell of each row */
		util_buf_reset(&keys);
		/* (etcd: a prepass would be a second read of the chunk from etcd.) */
		if (r->o.limit && r->o.limit - r->rows_out <= PREPASS_ROWS && !r->t->s->etcd &&
		    !(sized && mem_small(r)) && !prepass(r, &so, &keys))
			break;
		scan_internal in = r->in;
		in.etcd_page = r->t->s->etcd && !none ? (int64_t)r->ekeys : 0;
		kv_iter *it = scan_open(r->t, &so, &in);
		/* Row by row: a plain forward scan hands out a row's cells
		 * without the per-cell iterator step. */
		struct chunk_fill cf = {r, false};
		do {
			cf.first = true;
			/* With a column mask, only the cells it passes are
			 * copied; the row's first cell always is (it keeps a
			 * row whose other cells are all left out). */
			if (r->o.sel && kv_iter_valid(it)) {
				const kv_cell *c = kv_iter_cell(it);
				if (!sel_pass(r->o.sel, r->o.sel_bits, c))
					fill_cell(&cf, c);
			}
		} while (kv_iter_row_sel(it, r->o.sel, r->o.sel_bits, fill_cell, &cf));
		kv_status st = kv_iter_status(it);
		kv_iter_close(it);
		if (st) {
			rs_fail(r, st);
			break;
		}
		if (last) {
			r->done = true;
		} else {
			util_buf_reset(&r->hi);
			util_buf_append(&r->hi, lo.data, lo.len);
			r->hi_inf = false;
		}
		if (r->nrows) {
			r->ri = r->nrows;
			r->ci = 0;
			break;
		}
	}
	util_buf_free(&lo);
	util_buf_free(&keys);
}

/* Moves to the row before the current one (or the next chunk). */
static void prev_row(rscan *r)
{
	if (r->ri > 0)
		r->ri--;
	r->ci = 0;
	if (r->ri == 0)
		next_chunk(r);
	if (r->ri > 0 && r->o.limit && r->rows_out >= r->o.limit) {
		r->ri = 0;
		r->done = true;
	}
	if (r->ri > 0)
		r->rows_out++;
}

static void set_hi_from_stop(rscan *r)
{
	util_buf_reset(&r->hi);
	r->hi_inf = !r->o.stop;
	if (r->o.stop) {
		util_buf_append(&r->hi, r->o.stop, r->o.stop_len);
		if (r->o.stop_inclusive)
			util_buf_putc(&r->hi, 0);
	}
}

rscan *rscan_new(kv_table *t, const kv_scan_opts *o, kv_sv *sv, kv_ts read_ts, kv_ts read_point,
		 const scan_internal *in)
{
	rscan *r = util_xcalloc(1, sizeof(*r));
	r->t = t;
	r->sv = sv; /* takes the caller's reference */
	r->keep = util_arena_new(256, 0);
	r->chunk = util_arena_new(64 * 1024, 0);
	r->o = *o;
	if (o->start && o->start_len) {
		r->o.start = util_arena_memdup(r->keep, o->start, o->start_len);
	} else {
		r->o.start = NULL;
		r->o.start_len = 0;
	}
	if (o->stop)
		r->o.stop = util_arena_memdup_nz(r->keep, o->stop, o->stop_len);
	if (in)
		r->in = *in;
	r->in.sv = sv;
	r->in.read_ts = read_ts;
	r->in.read_point = read_point;
	r->in.no_done = true;
	r->in.forward = true;
	set_hi_from_stop(r);
	pick_guide(r);
	next_chunk(r);
	if (r->ri > 0) {
		if (r->o.limit && r->rows_out >= r->o.limit)
			r->ri = 0;
		else
			r->rows_out++;
	}
	return r;
}

bool rscan_valid(const rscan *r)
{
	return r->ri > 0;
}

const kv_cell *rscan_cell(const rscan *r)
{
	return &r->cells[r->rows[r->ri - 1] + r->ci];
}

bool rscan_row_start(const rscan *r)
{
	return r->ri > 0 && (r->ci == 0 || (r->o.batch && r->ci % r->o.batch == 0));
}

void rscan_next(rscan *r)
{
	if (r->ri == 0)
		return;
	size_t end = r->ri < r->nrows ? r->rows[r->ri] : r->n;
	if (r->rows[r->ri - 1] + r->ci + 1 < end) {
		r->ci++;
		return;
	}
	prev_row(r);
}

size_t rscan_row(rscan *r, kv_cell_fn fn, void *arg)
{
	if (r->ri == 0)
		return 0;
	/* The chunk's cells stay put until prev_row() reads the next chunk. */
	size_t end = r->ri < r->nrows ? r->rows[r->ri] : r->n;
	size_t i = r->rows[r->ri - 1] + r->ci;
	size_t n = end - i;
	for (; i < end; i++)
		fn(arg, &r->cells[i]);
	prev_row(r);
	return n;
}

void rscan_next_row(rscan *r)
{
	if (r->ri > 0)
		prev_row(r);
}

void rscan_seek_row(rscan *r, const void *row, size_t rlen)
{
	if (r->st)
		return;
	/* Rows <= row: the next chunk ends at row || 0x00, within the stop. */
	set_hi_from_stop(r);
	if (r->hi_inf || ikey_bytes_cmp(row, rlen, (const uint8_t *)r->hi.data, r->hi.len) < 0) {
		util_buf_reset(&r->hi);
		util_buf_append(&r->hi, row, rlen);
		util_buf_putc(&r->hi, 0);
		r->hi_inf = false;
	}
	r->done = false;
	r->ri = 0;
	next_chunk(r);
	if (r->ri > 0) {
		if (r->o.limit && r->rows_out >= r->o.limit)
			r->ri = 0;
		else
			r->rows_out++;
	}
}

kv_status rscan_status(const rscan *r, const char **msg)
{
	*msg = r->errmsg;
	return r->st;
}

void rscan_free(rscan *r)
{
	if (!r)
		return;
	if (r->guide)
		sst_unref(r->guide);
	src_close(r->probe);
	sv_unref(r->sv);
	util_arena_destroy(r->keep);
	util_arena_destroy(r->chunk);
	free(r->cells);
	free(r->rows);
	util_buf_free(&r->hi);
	free(r);
}
