/*
 * stats.c — ANALYZE and the statistics the planner estimates with: per
 * table a row count (cat_rel.stats_rows, so plans see it with the catalog
 * snapshot), per column the null fraction, average width, number of
 * distinct values, most common values and equi-depth histogram bounds,
 * computed PostgreSQL's way from a reservoir sample of the table and kept
 * in kv table sys.stats (row = relation oid, attnum; values as their text
 * output, so the format does not depend on types' internals). The
 * pg_stats view reads them back. Tables are also analyzed automatically,
 * in the background, after a commit that wrote many of their rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "sql_int.h"
#include "sysview.h"

#define STATS_KV_TABLE "sys.stats"
#define SAMPLE_ROWS    30000
#define MAX_MCV        10
#define HIST_BOUNDS    101
#define WIDE_VALUE     1024 /* values wider than this are not sampled (PostgreSQL: WIDTH_THRESHOLD) */

/* ---------------------------------------------------------------- storage */

static kv_table *stats_table(sql_engine *e)
{
	kv_table *t;
	kv_status st = kv_table_open(e->kv, STATS_KV_TABLE, &t);
	if (st == KV_NOT_FOUND) {
		kv_family_opts fam;
		kv_family_opts_default(&fam, SQL_FAMILY);
		st = kv_table_create(e->kv, STATS_KV_TABLE, &fam, 1);
		if (st == KV_OK || st == KV_EXISTS)
			st = kv_table_open(e->kv, STATS_KV_TABLE, &t);
	}
	if (st != KV_OK)
		sql_kv_error(st, "opening the statistics");
	return t;
}

static void stats_key(cat_oid rel, int attnum, uint8_t k[6])
{
	util_put_be32(k, rel);
	util_put_be16(k + 4, (uint16_t)attnum);
}

static void put_str(util_buf *b, const char *s, size_t n)
{
	util_buf_put_varint(b, n);
	util_buf_append(b, s, n);
}

static void put_f64(util_buf *b, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	util_buf_put_be64(b, u);
}

typedef struct rd {
	const uint8_t *p, *end;
	bool bad;
} rd;

static double get_f64(rd *r)
{
	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	uint64_t u = util_get_be64(r->p);
	r->p += 8;
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static uint64_t get_varint(rd *r)
{
	uint64_t v = 0;
	size_t n = util_varint_get(r->p, r->end, &v);
	if (!n) {
		r->bad = true;
		return 0;
	}
	r->p += n;
	return v;
}

static char *get_str(rd *r)
{
	uint64_t n = get_varint(r);
	if (r->bad || (uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return ty_strdup("");
	}
	char *s = ty_alloc(n + 1);
	memcpy(s, r->p, n);
	s[n] = 0;
	r->p += n;
	return s;
}

/* ---------------------------------------------------------------- sampling */

typedef struct colacc {
	ty_oid type;
	const ty_type *ty;
	uint64_t nulls, nonnull;
	double width_sum;
	ty_datum *sample; /* reservoir of non-NULL values (per column, so NULLs do not dilute it) */
	uint64_t seen;    /* non-NULL values offered to the reservoir */
	int nsample;
} colacc;

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t datum_width(const ty_type *ty, ty_datum d)
{
	if (!ty || ty->byval)
		return ty && ty->len > 0 ? (size_t)ty->len : 8;
	return d.len;
}

static void offer(colacc *c, ty_datum d, util_arena *a, uint64_t *rng)
{
	if (d.null) {
		c->nulls++;
		return;
	}
	c->nonnull++;
	size_t w = datum_width(c->ty, d);
	c->width_sum += (double)w;
	if (w > WIDE_VALUE)
		return;
	c->seen++;
	int slot;
	if (c->nsample < SAMPLE_ROWS)
		slot = c->nsample++;
	else {
		uint64_t r = rng_next(rng) % c->seen;
		if (r >= SAMPLE_ROWS)
			return;
		slot = (int)r;
	}
	util_arena *old = ty_set_arena(a);
	c->sample[slot] = ty_datum_copy(d, c->ty ? c->ty->byval : true);
	ty_set_arena(old);
}

/* cmp_datum's type, per thread: sessions and the automatic ANALYZE sort
 * samples at the same time (a shared one mixed up their sorts). */
static _Thread_local ty_oid sort_type;
static _Thread_local bool sort_byval;

/* Identical bytes are equal values, for every type: samples are often
 * alike (pgbench's blank-padded filler), and the type's comparison (blank
 * trimming, collation) is the dearer test. */
static int cmp_sample(ty_datum a, ty_datum b)
{
	if (sort_byval ? a.i == b.i : a.len == b.len && !memcmp(a.p, b.p, a.len))
		return 0;
	return ty_compare(sort_type, a, b);
}

static int cmp_datum(const void *x, const void *y)
{
	return cmp_sample(*(const ty_datum *)x, *(const ty_datum *)y);
}

typedef struct colstats {
	double null_frac, n_distinct;
	int avg_width;
	int n_mcv;
	ty_datum mcv[MAX_MCV];
	double mcv_freq[MAX_MCV];
	int n_hist;
	ty_datum hist[HIST_BOUNDS];
} colstats;

typedef struct run_ref {
	int len, run;
} run_ref;

static int cmp_run(const void *x, const void *y)
{
	const run_ref *a = x, *b = y;
	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	return (a->run > b->run) - (a->run < b->run);
}

/* PostgreSQL's compute_scalar_stats, in short: sort the sample, count runs,
 * estimate distinct values with the Haas-Stokes estimator, keep values
 * clearly more common than average as MCVs, and cut the rest into
 * equi-depth histogram buckets. */
static void summarize(colacc *c, uint64_t total_rows, colstats *out)
{
	memset(out, 0, sizeof *out);
	uint64_t rows = c->nulls + c->nonnull;
	out->null_frac = rows ? (double)c->nulls / (double)rows : 0;
	out->avg_width = c->nonnull ? (int)(c->width_sum / (double)c->nonnull + 0.5) : 0;
	int n = c->nsample;
	if (n == 0 || !c->ty || !c->ty->cmp)
		return;
	sort_type = c->type;
	sort_byval = c->ty->byval;
	qsort(c->sample, (size_t)n, sizeof(ty_datum), cmp_datum);
	/* Runs of equal values. */
	int *run_start = ty_alloc(sizeof(int) * (size_t)n), *run_len = ty_alloc(sizeof(int) * (size_t)n);
	int nruns = 0, f1 = 0;
	for (int i = 0; i < n;) {
		int j = i + 1;
		while (j < n && cmp_sample(c->sample[i], c->sample[j]) == 0)
			j++;
		run_start[nruns] = i;
		run_len[nruns++] = j - i;
		if (j - i == 1)
			f1++;
		i = j;
	}
	double nn = (double)n, N = (double)(total_rows ? total_rows : (uint64_t)n) * (1 - out->null_frac);
	double d = (double)nruns;
	if (f1 == nruns) {
		out->n_distinct = -1.0; /* every sampled value unique: assume a unique column */
	} else if (N <= nn) {
		out->n_distinct = d; /* the sample is the whole table */
	} else {
		double est = nn * d / (nn - (double)f1 + (double)f1 * nn / N);
		if (est < d)
			est = d;
		if (est > N)
			est = N;
		out->n_distinct = est > 0.1 * N ? -(est / N) : floor(est + 0.5);
	}
	/* MCVs: values appearing at least 25% more often than the average. */
	double avg = nn / d;
	/* Runs by count, descending (ties: the smaller value first). */
	run_ref *order = ty_alloc(sizeof(run_ref) * (size_t)nruns);
	for (int i = 0; i < nruns; i++)
		order[i] = (run_ref){run_len[i], i};
	qsort(order, (size_t)nruns, sizeof(run_ref), cmp_run);
	bool *is_mcv = ty_alloc0(sizeof(bool) * (size_t)nruns);
	for (int i = 0; i < nruns && out->n_mcv < MAX_MCV; i++) {
		int r = order[i].run;
		if (run_len[r] < 2 || (double)run_len[r] < 1.25 * avg)
			break;
		out->mcv[out->n_mcv] = c->sample[run_start[r]];
		out->mcv_freq[out->n_mcv++] = (double)run_len[r] / nn * (1 - out->null_frac);
		is_mcv[r] = true;
	}
	/* Histogram over the values that are not MCVs. */
	int rest = 0;
	for (int i = 0; i < nruns; i++)
		if (!is_mcv[i])
			rest += run_len[i];
	if (rest < 2)
		return;
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)rest);
	int k = 0;
	for (int i = 0; i < nruns; i++)
		if (!is_mcv[i])
			for (int j = 0; j < run_len[i]; j++)
				vals[k++] = c->sample[run_start[i] + j];
	int nb = rest < HIST_BOUNDS ? rest : HIST_BOUNDS;
	for (int i = 0; i < nb; i++) {
		ty_datum v = vals[(int)((double)i * (rest - 1) / (nb - 1))];
		if (out->n_hist && ty_compare(c->type, out->hist[out->n_hist - 1], v) == 0)
			continue;
		out->hist[out->n_hist++] = v;
	}
	if (out->n_hist < 2)
		out->n_hist = 0;
}

static void encode_stats(const colstats *cs, ty_oid type, util_buf *b)
{
	util_buf t = UTIL_BUF_INIT;
	put_f64(b, cs->null_frac);
	put_f64(b, cs->n_distinct);
	util_buf_put_varint(b, (uint64_t)cs->avg_width);
	util_buf_put_varint(b, (uint64_t)cs->n_mcv);
	for (int i = 0; i < cs->n_mcv; i++) {
		util_buf_reset(&t);
		ty_output(type, cs->mcv[i], &t);
		put_str(b, t.data ? t.data : "", t.len);
		put_f64(b, cs->mcv_freq[i]);
	}
	util_buf_put_varint(b, (uint64_t)cs->n_hist);
	for (int i = 0; i < cs->n_hist; i++) {
		util_buf_reset(&t);
		ty_output(type, cs->hist[i], &t);
		put_str(b, t.data ? t.data : "", t.len);
	}
	util_buf_free(&t);
}

/* ---------------------------------------------------------------- ANALYZE */

/* ---- Block sampling (PostgreSQL's first stage: a random set of blocks).
 * A big table is read only in parts: the boundaries of its sorted files'
 * blocks cut it into parts of about one block each. Up to SAMPLE_VISIT
 * parts, in a random order (seeded by the oid: the same table gives the
 * same sample), give their first rows to the reservoir, SAMPLE_ROWS in all
 * (many parts with a few rows each, not a few whole blocks: key-ordered
 * columns such as pgbench's aid would otherwise get lumpy histograms). The
 * first SAMPLE_COUNT parts visited are read to their end and counted: the
 * row count is estimated as their rows x parts / SAMPLE_COUNT. When every
 * part was visited and read to its end, the count is exact. */

#define SAMPLE_MAX_PARTS 65536 /* block boundaries asked for (kv_split_points) */
#define SAMPLE_MIN_PARTS 64    /* fewer parts: not worth it, scan everything */
#define SAMPLE_VISIT     1000
#define SAMPLE_COUNT     50

/* What ANALYZE read, for ANALYZE VERBOSE. */
typedef struct sample_info {
	int parts, visited; /* 0, 0: the whole table through the executor */
	uint64_t read;      /* rows read */
	uint64_t offered;   /* of which given to the reservoir */
} sample_info;

typedef struct part_reader {
	const cat_rel *r;
	const sql_rowmap *map;
	colacc *acc;
	util_arena *sa;
	uint64_t *rng;
	ty_datum *vals;
	bool decode; /* false: only tell whether the row exists */
	uint64_t offered;
	bool exists;
} part_reader;

static void part_col(void *arg, uint16_t id, const uint8_t *v, size_t vl)
{
	part_reader *pr = arg;
	if (id >= pr->map->ncolids || pr->map->idx[id] < 0)
		return; /* a dropped column */
	int col = pr->map->idx[id];
	pr->vals[col] = sql_value_decode_t(pr->map->types[col], pr->r->cols[col].type, v, vl);
}

static void part_cell(void *arg, const kv_cell *c)
{
	part_reader *pr = arg;
	if (c->family.len != 1 || c->family.data[0] != SQL_FAMILY[0])
		return;
	if (c->qualifier.len == 0) {
		pr->exists = true;
		if (pr->decode && c->value.len) /* a packed row (rowpack.c) */
			sql_packed_each(&c->value, part_col, pr);
		return;
	}
	if (!pr->decode || c->qualifier.len != 2)
		return;
	part_col(pr, (uint16_t)((c->qualifier.data[0] << 8) | c->qualifier.data[1]), c->value.data,
		 c->value.len);
}

/* Reads [start, stop) of the table: its first `offer` rows go into the
 * reservoir; with `count`, the rest are read and counted, else the read
 * stops there. Returns the rows read; *ended: the part was read to its end. */
static uint64_t read_part(kv_table *t, kv_ts read_ts, const kv_slice *start, const kv_slice *stop,
			  part_reader *pr, util_arena *rowa, uint64_t offer_rows, bool count, bool *ended)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = read_ts;
	if (start) {
		so.start = start->data;
		so.start_len = start->len;
	}
	if (stop) {
		so.stop = stop->data;
		so.stop_len = stop->len;
	}
	if (!count)
		so.limit = offer_rows + 1; /* one more tells whether the part ended */
	uint64_t rows = 0;
	kv_iter *it = kv_scan(t, &so);
	util_arena *old = ty_set_arena(rowa);
	*ended = true;
	while (kv_iter_valid(it)) {
		if (rows == offer_rows && !count) {
			*ended = false;
			break;
		}
		util_arena_reset(rowa);
		pr->decode = rows < offer_rows;
		pr->exists = false;
		const uint8_t *key = NULL;
		size_t klen = 0;
		if (pr->decode) {
			/* The row key, for the key columns (cells' bytes last only
			 * during kv_iter_row). */
			kv_slice rk = kv_iter_cell(it)->row;
			key = util_arena_memdup_nz(rowa, rk.data, rk.len);
			klen = rk.len;
			for (int i = 0; i < pr->r->ncols; i++)
				pr->vals[i] = ty_null();
		}
		kv_iter_row(it, part_cell, pr);
		if (!pr->exists)
			continue;
		if (pr->decode) {
			if (pr->r->npk)
				sql_key_decode(pr->r, key, klen, pr->vals);
			for (int c = 0; c < pr->r->ncols; c++)
				if (!pr->r->cols[c].dropped)
					offer(&pr->acc[c], pr->vals[c], pr->sa, pr->rng);
			pr->offered++;
		}
		rows++;
	}
	ty_set_arena(old);
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	if (st != KV_OK)
		sql_kv_error(st, "scanning a table");
	return rows;
}

/* Visits the parts of kt cut at pts[0..npts) (see above); returns the
 * estimated row count. Allocates in the current arena. */
static uint64_t visit_parts(sql_session *s, const cat_obj *o, kv_table *kt, const kv_slice *pts, int npts,
			    colacc *acc, util_arena *sa, util_arena *rowa, sample_info *info)
{
	const cat_rel *r = &o->rel;
	int nparts = npts + 1;
	int *order = ty_alloc(sizeof(int) * (size_t)nparts);
	uint64_t prng = 0x2545f4914f6cdd1dULL ^ ((uint64_t)o->oid << 1);
	for (int i = 0; i < nparts; i++)
		order[i] = i;
	for (int i = nparts - 1; i > 0; i--) { /* Fisher-Yates */
		int j = (int)(rng_next(&prng) % (uint64_t)(i + 1));
		int x = order[i];
		order[i] = order[j];
		order[j] = x;
	}
	sql_rowmap map;
	sql_rowmap_build(r, ty_get_arena(), &map);
	uint64_t rng = 0x9e3779b97f4a7c15ULL ^ o->oid;
	part_reader pr = {.r = r, .map = &map, .acc = acc, .sa = sa, .rng = &rng};
	pr.vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	kv_ts read_ts = s->txn ? sql_txn_read_ts(s->txn) : kv_read_point(s->e->kv);
	int visit = nparts < SAMPLE_VISIT ? nparts : SAMPLE_VISIT;
	uint64_t per = (SAMPLE_ROWS + (uint64_t)visit - 1) / (uint64_t)visit;
	uint64_t counted = 0, total = 0;
	bool all_ended = true;
	for (int i = 0; i < visit; i++) {
		int p = order[i];
		bool ended;
		uint64_t n = read_part(kt, read_ts, p ? &pts[p - 1] : NULL, p < npts ? &pts[p] : NULL, &pr,
				       rowa, per, i < SAMPLE_COUNT, &ended);
		total += n;
		if (i < SAMPLE_COUNT)
			counted += n;
		all_ended &= ended;
		ty_check_interrupts();
	}
	info->parts = nparts;
	info->visited = visit;
	info->read = total;
	info->offered = pr.offered;
	if (visit == nparts && all_ended)
		return total;
	int nc = visit < SAMPLE_COUNT ? visit : SAMPLE_COUNT;
	return (uint64_t)((double)counted * (double)nparts / (double)nc + 0.5);
}

/* Samples a big plain table by parts; false (nothing read) when the table
 * must be scanned in full through the executor: interleaved tables, the
 * transaction's own writes to it, few sorted-file blocks, more of it in
 * the memstore than in files, or an etcd store. *rows gets the estimated row count. */
static bool sample_parts(sql_session *s, const cat_obj *o, colacc *acc, util_arena *sa, uint64_t *rows,
			 sample_info *info)
{
	const cat_rel *r = &o->rel;
	if (r->ilv_depth || r->ilv_nchildren || !r->storage[0] || s->e->opts.store_uri)
		return false; /* an etcd store has no sorted files to cut at */
	bool ok = false;
	util_arena *a = util_arena_new(64 * 1024, 0);
	util_arena *rowa = util_arena_new(16 * 1024, 0);
	util_arena *old = ty_set_arena(a);
	kv_table *volatile t = NULL; /* read after a longjmp */
	TY_TRY(tc)
	{
		int nw = 0;
		if (s->txn)
			(void)sql_txn_table_writes(s->txn, o->oid, a, &nw);
		kv_table *kt = NULL;
		kv_table_stats ts;
		if (nw == 0 && kv_table_open(s->e->kv, r->storage, &kt) == KV_OK) {
			t = kt;
			kv_slice *pts = ty_alloc(sizeof(kv_slice) * SAMPLE_MAX_PARTS);
			int npts = 0;
			if (kv_table_get_stats(kt, &ts) == KV_OK && ts.file_bytes &&
			    ts.memstore_bytes <= ts.file_bytes) {
				kv_status st =
				    kv_split_points(kt, NULL, 0, NULL, 0, SAMPLE_MAX_PARTS, a, pts, &npts);
				if (st != KV_OK)
					sql_kv_error(st, "sampling a table");
			}
			if (npts + 1 >= SAMPLE_MIN_PARTS) {
				*rows = visit_parts(s, o, kt, pts, npts, acc, sa, rowa, info);
				ok = true;
			}
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (t)
			kv_table_close(t);
		ty_set_arena(old);
		util_arena_destroy(rowa);
		util_arena_destroy(a);
		ty_errthrow();
	}
	TY_END(tc);
	if (t)
		kv_table_close(t);
	ty_set_arena(old);
	util_arena_destroy(rowa);
	util_arena_destroy(a);
	return ok;
}

/* Scans the table through the executor (interleaving, the transaction's
 * own writes and every row format handled as for any query). */
static uint64_t sample_table(sql_session *s, const cat_obj *o, colacc *acc, util_arena *sa)
{
	const cat_rel *r = &o->rel;
	util_arena *a = util_arena_new(64 * 1024, 0);
	util_arena *old = ty_set_arena(a);
	uint64_t rows = 0, rng = 0x9e3779b97f4a7c15ULL ^ o->oid;
	sql_exec *volatile ex = NULL; /* read after a longjmp */
	TY_TRY(tc)
	{
		sql_planned *pd = ty_alloc0(sizeof *pd);
		sql_plan *p = sql_plan_new(SQL_P_SCAN, r->ncols + 1);
		p->id = 0;
		for (int i = 0; i < r->ncols; i++) {
			p->types[i] = r->cols[i].type;
			p->typmods[i] = r->cols[i].typmod;
		}
		p->types[r->ncols] = TY_BYTEA;
		p->typmods[r->ncols] = -1;
		p->scan.rel = o;
		p->scan.reloid = o->oid;
		memcpy(p->scan.storage, r->storage, sizeof p->scan.storage);
		p->scan.needed = ty_alloc(sizeof(bool) * (size_t)(r->ncols + 1));
		for (int i = 0; i <= r->ncols; i++)
			p->scan.needed[i] = true;
		pd->plan = p;
		pd->nnodes = 1;
		pd->cmd = SQL_CMD_SELECT;
		pd->read_only = true;
		ex = sql_exec_new(s, pd, a, NULL, 0);
		sql_op *op = sql_exec_node(ex, p);
		for (;;) {
			sql_batch *b = sql_op_next(op);
			if (b->n == 0)
				break;
			for (int i = 0; i < b->n; i++) {
				const ty_datum *row = sql_batch_row(b, i);
				for (int c = 0; c < r->ncols; c++)
					if (!r->cols[c].dropped)
						offer(&acc[c], row[c], sa, &rng);
				rows++;
			}
			ty_check_interrupts();
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ex)
			sql_exec_close(ex);
		ty_set_arena(old);
		util_arena_destroy(a);
		ty_errthrow();
	}
	TY_END(tc);
	sql_exec_close(ex);
	ty_set_arena(old);
	util_arena_destroy(a);
	return rows;
}

static void analyze_rel(sql_session *s, const cat_obj *o, bool verbose)
{
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_TABLE)
		return;
	util_arena *sa = util_arena_new(256 * 1024, 0);
	colacc *acc = util_arena_zalloc(sa, sizeof(colacc) * (size_t)(r->ncols ? r->ncols : 1));
	for (int c = 0; c < r->ncols; c++) {
		acc[c].type = r->cols[c].type;
		acc[c].ty = ty_type_get(r->cols[c].type);
		acc[c].sample = util_arena_alloc(sa, sizeof(ty_datum) * SAMPLE_ROWS);
		if (!acc[c].sample)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	}
	uint64_t rows;
	sample_info info = {0, 0, 0, 0};
	if (verbose) {
		const char *sn = sql_schema_name(s->cat, r->schema);
		sql_info(s, UTIL_E_SUCCESSFUL_COMPLETION, "analyzing \"%s.%s\"", sn ? sn : "", r->name);
	}
	TY_TRY(tc)
	{
		if (!sample_parts(s, o, acc, sa, &rows, &info)) {
			rows = sample_table(s, o, acc, sa);
			info.read = info.offered = rows;
		}
		/* Write the statistics, then the row count into the catalog. */
		kv_table *kt = stats_table(s->e);
		kv_batch *b = kv_batch_new();
		util_buf v = UTIL_BUF_INIT;
		uint8_t k[6];
		stats_key(o->oid, 0, k);
		util_buf_put_varint(&v, rows);
		kv_batch_put(b, kt, k, 6, SQL_FAMILY, "s", 1, KV_TS_LATEST, v.data, v.len);
		util_arena *old = ty_set_arena(sa);
		for (int c = 0; c < r->ncols; c++) {
			if (r->cols[c].dropped)
				continue;
			colstats cs;
			summarize(&acc[c], rows, &cs);
			util_buf_reset(&v);
			encode_stats(&cs, acc[c].type, &v);
			stats_key(o->oid, r->cols[c].attnum, k);
			kv_batch_put(b, kt, k, 6, SQL_FAMILY, "s", 1, KV_TS_LATEST, v.data, v.len);
		}
		ty_set_arena(old);
		util_buf_free(&v);
		int insample = info.offered < SAMPLE_ROWS ? (int)info.offered : SAMPLE_ROWS;
		if (verbose && info.parts)
			sql_info(s, UTIL_E_SUCCESSFUL_COMPLETION,
				 "\"%s\": scanned %d of %d blocks, containing %llu live rows and 0 dead "
				 "rows; %d rows "
				 "in sample, %llu estimated total rows",
				 r->name, info.visited, info.parts, (unsigned long long)info.read, insample,
				 (unsigned long long)rows);
		else if (verbose)
			sql_info(s, UTIL_E_SUCCESSFUL_COMPLETION,
				 "\"%s\": scanned the whole table, containing %llu live rows and 0 dead "
				 "rows; %d rows "
				 "in sample, %llu estimated total rows",
				 r->name, (unsigned long long)info.read, insample, (unsigned long long)rows);
		kv_status st = kv_commit(s->e->kv, b, NULL, NULL);
		kv_batch_free(b);
		kv_table_close(kt);
		if (st != KV_OK)
			sql_kv_error(st, "writing statistics");
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_arena_destroy(sa);
		ty_errthrow();
	}
	TY_END(tc);
	util_arena_destroy(sa);
	/* The row count rides in the catalog (a change of the transaction). */
	cat_txn *ct = sql_txn_ddl(s->txn);
	const cat_obj *cur = cat_get(cat_txn_snap(ct), o->oid);
	if (cur && cur->rel.stats_rows != (rows ? rows : 1)) {
		cat_obj *c = cat_obj_copy(cur);
		c->rel.stats_rows = rows ? rows : 1; /* 0 means "never analyzed" */
		cat_txn_put(ct, c);
	}
}

void sql_analyze_rel(sql_session *s, const cat_obj *o)
{
	analyze_rel(s, o, false);
}

typedef struct an_ctx {
	sql_session *s;
	bool verbose;
	int n;
} an_ctx;

static int analyze_each(void *arg, const cat_obj *o)
{
	an_ctx *a = arg;
	if (o->rel.relkind == CAT_RELKIND_TABLE && o->rel.schema != CAT_OID_PG_CATALOG) {
		analyze_rel(a->s, o, a->verbose);
		a->n++;
	}
	return 0;
}

/* A boolean option: no value, true, on, 1. */
static bool opt_true(const PgQuery__DefElem *d)
{
	if (!d->arg)
		return true;
	switch (d->arg->node_case) {
	case PG_QUERY__NODE__NODE_BOOLEAN:
		return d->arg->boolean->boolval;
	case PG_QUERY__NODE__NODE_INTEGER:
		return d->arg->integer->ival != 0;
	case PG_QUERY__NODE__NODE_STRING:
		return !util_strcasecmp(d->arg->string->sval, "true") ||
		       !util_strcasecmp(d->arg->string->sval, "on");
	default:
		return false;
	}
}

void sql_analyze_stmt(sql_session *s, PgQuery__VacuumStmt *vs)
{
	bool verbose = false;
	for (size_t i = 0; i < vs->n_options; i++) {
		PgQuery__DefElem *d = vs->options[i]->def_elem;
		if (d && !strcmp(d->defname, "verbose"))
			verbose = opt_true(d);
	}
	if (vs->n_rels == 0) {
		an_ctx a = {s, verbose, 0};
		cat_foreach(s->cat, CAT_REL, s->db_oid, analyze_each, &a);
		return;
	}
	for (size_t i = 0; i < vs->n_rels; i++) {
		PgQuery__VacuumRelation *vr = vs->rels[i]->vacuum_relation;
		const cat_obj *o = sql_lookup_rel(s, s->cat, vr->relation, false);
		analyze_rel(s, o, verbose);
	}
}

/* ---------------------------------------------------------------- reading */

typedef struct sql_stats_col {
	bool valid;
	double null_frac, n_distinct;
	int avg_width;
	int n_mcv, n_hist;
	ty_datum *mcv;
	double *mcv_freq;
	ty_datum *hist;
} sql_stats_col;

/* Reads one column's statistics into the current arena; false if none. */
static bool read_col(sql_session *s, cat_oid rel, const cat_column *col, sql_stats_col *out)
{
	memset(out, 0, sizeof *out);
	kv_table *kt;
	if (kv_table_open(s->e->kv, STATS_KV_TABLE, &kt) != KV_OK)
		return false;
	uint8_t k[6];
	stats_key(rel, col->attnum, k);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	kv_row row;
	kv_status st = kv_get(kt, k, 6, &ro, ty_get_arena(), &row);
	kv_table_close(kt);
	if (st != KV_OK || row.n == 0)
		return false;
	rd r = {row.cells[0].value.data, row.cells[0].value.data + row.cells[0].value.len, false};
	out->null_frac = get_f64(&r);
	out->n_distinct = get_f64(&r);
	out->avg_width = (int)get_varint(&r);
	out->n_mcv = (int)get_varint(&r);
	if (r.bad || out->n_mcv > MAX_MCV)
		return false;
	out->mcv = ty_alloc(sizeof(ty_datum) * (size_t)(out->n_mcv + 1));
	out->mcv_freq = ty_alloc(sizeof(double) * (size_t)(out->n_mcv + 1));
	for (int i = 0; i < out->n_mcv; i++) {
		char *t = get_str(&r);
		out->mcv[i] = r.bad ? ty_null() : ty_input(col->type, t, strlen(t), col->typmod);
		out->mcv_freq[i] = get_f64(&r);
	}
	out->n_hist = (int)get_varint(&r);
	if (r.bad || out->n_hist > HIST_BOUNDS)
		return false;
	out->hist = ty_alloc(sizeof(ty_datum) * (size_t)(out->n_hist + 1));
	for (int i = 0; i < out->n_hist; i++) {
		char *t = get_str(&r);
		out->hist[i] = r.bad ? ty_null() : ty_input(col->type, t, strlen(t), col->typmod);
	}
	out->valid = !r.bad;
	return out->valid;
}

double sql_stats_fraction_below(sql_session *s, const cat_obj *rel, int attnum, ty_datum v, bool inclusive)
{
	const cat_column *col = cat_column_by_attnum(&rel->rel, attnum);
	if (!col || v.null || !rel->rel.stats_rows)
		return -1;
	sql_stats_col st;
	bool ok = false;
	TY_TRY(tc)
	{
		ok = read_col(s, rel->oid, col, &st);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		return -1;
	}
	TY_END(tc);
	if (!ok)
		return -1;
	double mcv_total = 0, below = 0;
	for (int i = 0; i < st.n_mcv; i++) {
		mcv_total += st.mcv_freq[i];
		int c = ty_compare(col->type, st.mcv[i], v);
		if (c < 0 || (c == 0 && inclusive))
			below += st.mcv_freq[i];
	}
	double hist_frac = 0.5;
	if (st.n_hist >= 2) {
		int i = 0;
		while (i < st.n_hist && ty_compare(col->type, st.hist[i], v) < 0)
			i++;
		hist_frac = i == 0 ? 0 : i >= st.n_hist ? 1 : ((double)i - 0.5) / (double)(st.n_hist - 1);
	}
	double rest = 1 - st.null_frac - mcv_total;
	if (rest < 0)
		rest = 0;
	return below + rest * hist_frac;
}

/* read_col() for the planner's estimates: false on any error too. */
static bool read_col_quiet(sql_session *s, const cat_obj *rel, int attnum, sql_stats_col *st)
{
	const cat_column *col = cat_column_by_attnum(&rel->rel, attnum);
	if (!col || !rel->rel.stats_rows)
		return false;
	bool ok = false;
	TY_TRY(tc)
	{
		ok = read_col(s, rel->oid, col, st);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		return false;
	}
	TY_END(tc);
	return ok;
}

double sql_stats_ndistinct(sql_session *s, const cat_obj *rel, int attnum)
{
	sql_stats_col st;
	if (!read_col_quiet(s, rel, attnum, &st))
		return -1;
	return st.n_distinct < 0 ? -st.n_distinct * (double)rel->rel.stats_rows : st.n_distinct;
}

int sql_stats_avg_width(sql_session *s, const cat_obj *rel, int attnum)
{
	sql_stats_col st;
	return read_col_quiet(s, rel, attnum, &st) ? st.avg_width : -1;
}

/* pg_stats: one row per analyzed column. */
typedef struct pgs_ctx {
	sql_session *s;
	cat_snap *cs;
	sql_sysrows *out;
} pgs_ctx;

static int pg_stats_rel(void *arg, const cat_obj *o)
{
	pgs_ctx *c = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE || !o->rel.stats_rows)
		return 0;
	const cat_obj *sch = cat_get(c->cs, o->rel.schema);
	for (int i = 0; i < o->rel.ncols; i++) {
		const cat_column *col = &o->rel.cols[i];
		sql_stats_col st;
		if (col->dropped || !read_col(c->s, o->oid, col, &st))
			continue;
		ty_datum v[14];
		for (int k = 0; k < 14; k++)
			v[k] = ty_null();
		v[0] = ty_bytes(sch ? sch->schema.name : "", strlen(sch ? sch->schema.name : ""));
		v[1] = ty_bytes(o->rel.name, strlen(o->rel.name));
		v[2] = ty_bytes(col->name, strlen(col->name));
		v[3] = ty_int(0);
		v[4] = ty_float((float)st.null_frac);
		v[5] = ty_int(st.avg_width);
		v[6] = ty_float((float)st.n_distinct);
		if (st.n_mcv) {
			ty_datum *f = ty_alloc(sizeof(ty_datum) * (size_t)st.n_mcv);
			for (int k = 0; k < st.n_mcv; k++)
				f[k] = ty_float((float)st.mcv_freq[k]);
			v[7] = ty_array_from_list(col->type, st.n_mcv, st.mcv);
			v[8] = ty_array_from_list(TY_FLOAT4, st.n_mcv, f);
		}
		if (st.n_hist)
			v[9] = ty_array_from_list(col->type, st.n_hist, st.hist);
		sql_sysrows_add(c->out, v);
	}
	return 0;
}

void sql_stats_pg_stats(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	pgs_ctx c = {s, cs, out};
	cat_foreach(cs, CAT_REL, s->db_oid, pg_stats_rel, &c);
}
