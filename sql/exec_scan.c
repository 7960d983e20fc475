/*
 * exec_scan.c — table scans on the store: key ranges evaluated at run time
 * (IN lists expand to several ranges), point lookups when the whole key is
 * fixed, only the needed columns read, the scan filter applied as rows are
 * built, and the transaction's own pending writes merged in key order.
 * Output rows are the table's columns in attnum order plus the row key.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "ops.h"
#include "sql_int.h"
#include "ty_strings.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

typedef struct keyrange {
	uint8_t *start;
	size_t start_len;
	uint8_t *stop; /* NULL = unbounded */
	size_t stop_len;
	bool point;    /* start is a whole key: use a get */
	size_t rowlen; /* interleaved child, root key fixed: the kv row's length in start; else 0 */
} keyrange;

typedef struct scan_state {
	const cat_rel *rel;
	kv_table *kv;
	sql_rowmap map;
	kv_column *cols;
	int ncols_read;
	keyrange *ranges;
	int nranges, cur;
	bool started;
	kv_iter *it;
	util_arena *range_arena;
	/* the transaction's own writes (sorted by key) */
	sql_wrow **writes;
	int nwrites, wpos;
	bool has_writes;
	/* point lookups */
	util_arena *get_arena;
	bool reverse; /* rows in descending key order (ranges last to first) */
	/* Entity groups: the filter that keeps the kv scan on this table's
	 * cells (a child's qualifier prefix, or a parent's own columns). */
	kv_filter *own_cells;
	kv_filter *own_cells_get; /* the same for point reads (a filter serves one read at a time) */
	kv_filter *range_cells;   /* a child's key range within one group: its qualifier range */
	kv_filter *slice_cells;   /* a child's key bounds past its root's, in every kv row (scan.slice) */
	bool ilv;                 /* an interleaved child: many rows per kv row */
	util_buf idbuf;           /* ilv: the current row's key (kv row ++ qualifier prefix) */
	struct par_scan *par;     /* parallel workers (scan.parallel), or NULL */
	const sql_par_sink *sink; /* workers aggregate their rows themselves (sql_scan_set_sink) */
	int launched;             /* worker threads started (EXPLAIN ANALYZE: Workers Launched) */
	unsigned ticks;           /* rows since the last interrupt check */
	int64_t left;             /* rows still allowed by a pushed-down LIMIT; -1 = no limit */
	/* Salted tables (exec_salt.c): b + 1 = read bucket b only, or one
	 * of SQL_SALT_POINTS, SQL_SALT_ALL, SQL_SALT_STREAMS (sql_int.h); 0 =
	 * not salted. Kept by rescans. */
	int salt;
	int *bucket_first; /* SQL_SALT_ALL/STREAMS: bucket b's ranges start at ranges[bucket_first[b]] */
	/* Filtered scans (filter_cols_split): the filter's columns and the
	 * others, or NULL. */
	bool *early, *rest;
	/* The column ids of the needed columns (kv_iter_row_sel), or NULL: the
	 * kv scan does not hand the row builder the cells rb_cell would skip. */
	uint64_t *cellmask;
	uint32_t cellmask_bits;
	struct rb_pre *pre; /* the filter's first conjunct judged on a cell's bytes, or NULL */
	bool reopen;        /* rescanned: the next open decides only the ranges again */
	util_buf keybuf;    /* build_ranges_for: a key being encoded */
} scan_state;

static bool par_start(sql_op *op, scan_state *st);

/* st->cellmask: bit id set for the column ids whose column rb_cell decodes
 * (in the map and needed); none without a needed list (every column). */
static void cellmask_build(scan_state *st, const bool *needed, util_arena *a)
{
	st->cellmask = NULL;
	st->cellmask_bits = 0;
	if (!needed)
		return;
	uint32_t n = (uint32_t)st->map.ncolids;
	uint64_t *m = util_arena_zalloc(a, sizeof(uint64_t) * ((n + 63) / 64 + 1));
	if (!m)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	for (uint32_t id = 0; id < n; id++) {
		int col = st->map.idx[id];
		if (col >= 0 && needed[col])
			m[id >> 6] |= (uint64_t)1 << (id & 63);
	}
	st->cellmask = m;
	st->cellmask_bits = n;
}
/* Rows read before a batch that holds some is handed on anyway. */
#define SCAN_FLUSH_ROWS 1024
static sql_batch *par_next(sql_op *op, scan_state *st);
static void par_stop(scan_state *st);

/* The smallest key greater than every key starting with k (NULL if none). */
static uint8_t *key_succ(const uint8_t *k, size_t n, size_t *out_len)
{
	size_t i = n;
	while (i > 0 && k[i - 1] == 0xff)
		i--;
	if (i == 0)
		return NULL;
	uint8_t *s = ty_alloc(i);
	memcpy(s, k, i);
	s[i - 1]++;
	*out_len = i;
	return s;
}

/* (A short name for the many comparisons below.) */
static inline int kcmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	return util_bytes_cmp(a, an, b, bn);
}

/* Evaluates bound values; an IN list contributes its elements. */
typedef struct bound_vals {
	int n;
	ty_datum **alts; /* per column: alternatives */
	int *nalts;
} bound_vals;

static bool eval_prefix(sql_exec *ex, const sql_keybound *kb, int nfix, bound_vals *bv)
{
	bv->n = kb->ncols;
	bv->alts = ty_alloc(sizeof(ty_datum *) * (size_t)(kb->ncols + 1));
	bv->nalts = ty_alloc(sizeof(int) * (size_t)(kb->ncols + 1));
	for (int i = 0; i < kb->ncols; i++) {
		const sql_expr *e = kb->vals[i];
		ty_datum d = sql_eval(ex, e, NULL);
		const ty_type *t = ty_type_get(e->type);
		if (i < nfix && t && t->category == 'A') {
			if (d.null)
				return false;
			int n;
			ty_datum *els = ty_array_deconstruct(d, &n);
			ty_datum *keep = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
			int k = 0;
			for (int x = 0; x < n; x++)
				if (!els[x].null)
					keep[k++] = els[x];
			if (k == 0)
				return false;
			bv->alts[i] = keep;
			bv->nalts[i] = k;
		} else {
			if (d.null)
				return false; /* a comparison with NULL is never true */
			bv->alts[i] = ty_alloc(sizeof(ty_datum));
			bv->alts[i][0] = d;
			bv->nalts[i] = 1;
		}
	}
	return true;
}

static void add_range(scan_state *st, keyrange *r, int *cap)
{
	if (st->nranges == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		keyrange *n = ty_alloc(sizeof(keyrange) * (size_t)*cap);
		if (st->nranges)
			memcpy(n, st->ranges, sizeof(keyrange) * (size_t)st->nranges);
		st->ranges = n;
	}
	st->ranges[st->nranges++] = *r;
}

static int cmp_range(const void *a, const void *b)
{
	const keyrange *x = a, *y = b;
	return kcmp(x->start, x->start_len, y->start, y->start_len);
}

/* Builds the ranges of a plan's keyrange (cartesian product of IN lists). */
/* Appends the level header of key column i of r when it begins a level
 * of an interleaved child's hierarchy: the separator and the level's tag,
 * as in the row key (docs/entity-groups.md). */
static void level_head(const cat_rel *r, int i, util_buf *b)
{
	for (int l = 1; l <= r->ilv_depth; l++) {
		int from = l == 1 ? r->ilv_path[0] : r->ilv_path[2 * (l - 1)];
		if (i == from) {
			uint16_t tag = (uint16_t)r->ilv_path[2 * l - 1];
			uint8_t h[3] = {SQL_ILV_SEP, (uint8_t)(tag >> 8), (uint8_t)tag};
			util_buf_append(b, h, sizeof h);
		}
	}
}

/* Appends key column i of r with value v in row-key form. */
static void enc_keycol(const cat_rel *r, int i, ty_datum v, util_buf *b)
{
	const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
	ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
	level_head(r, i, b);
	ty_key_encode(&kc, v, b);
}

static void build_ranges_for(sql_exec *ex, const sql_plan *p, scan_state *st)
{
	const cat_rel *r = st->rel;
	int cap = 0;
	st->nranges = 0;
	for (int ri = 0; ri < p->scan.nranges; ri++) {
		const sql_keyrange *kr = &p->scan.ranges[ri];
		int nfix = kr->nfix;
		/* The equality prefix is shared by lo and hi. */
		bool lo_extra = kr->lo.ncols > nfix, hi_extra = kr->hi.ncols > nfix;
		bound_vals lo, hi;
		if (!eval_prefix(ex, &kr->lo, nfix, &lo) || !eval_prefix(ex, &kr->hi, nfix, &hi))
			continue;
		/* LIKE 'abc%' on the next key column: keys starting with the
		 * encoded "abc" (the text encoding without its terminator). */
		uint8_t *like_pfx = NULL;
		size_t like_len = 0;
		if (kr->like) {
			ty_datum pat = sql_eval(ex, kr->like, NULL);
			if (pat.null)
				continue; /* LIKE NULL matches nothing */
			util_buf lit = UTIL_BUF_INIT;
			ty_like_prefix(pat.p, pat.len, &lit);
			if (lit.len) {
				util_buf enc = UTIL_BUF_INIT;
				ty_keycol kc = {TY_TEXT, false, false};
				ty_key_encode(&kc, ty_bytes(lit.data, lit.len), &enc);
				like_len = enc.len - 2; /* drop the 00 01 terminator */
				like_pfx = ty_alloc(like_len);
				memcpy(like_pfx, enc.data, like_len);
				util_buf_free(&enc);
			}
			util_buf_free(&lit);
		}
		/* Enumerate combinations of the prefix alternatives. */
		int idx[32] = {0};
		if (nfix > 32)
			nfix = 32;
		for (;;) {
			/* The scan's buffer, kept across rescans (a lookup join
			 * builds a key per outer row). */
			util_buf *pre = &st->keybuf;
			pre->len = 0;
			size_t rowlen = 0;
			for (int i = 0; i < nfix; i++) {
				enc_keycol(r, i, lo.alts[i][idx[i]], pre);
				if (r->ilv_depth && i + 1 == r->ilv_path[0])
					rowlen = pre->len;
			}
			keyrange kr2;
			memset(&kr2, 0, sizeof kr2);
			uint8_t *pfx = ty_alloc(pre->len ? pre->len : 1);
			if (pre->len)
				memcpy(pfx, pre->data, pre->len);
			size_t plen = pre->len;
			/* Start and stop from the prefix and the optional range column. */
			kr2.start = pfx;
			kr2.start_len = plen;
			kr2.stop = plen ? key_succ(pfx, plen, &kr2.stop_len) : NULL;
			if (lo_extra || hi_extra) {
				bool desc = r->pk_desc ? r->pk_desc[nfix] : false;
				for (int side = 0; side < 2; side++) {
					bool is_lo = side == 0;
					if (is_lo ? !lo_extra : !hi_extra)
						continue;
					ty_datum v = is_lo ? lo.alts[nfix][0] : hi.alts[nfix][0];
					bool incl = is_lo ? kr->lo.inclusive : kr->hi.inclusive;
					util_buf kb = UTIL_BUF_INIT;
					if (plen)
						util_buf_append(&kb, pfx, plen);
					enc_keycol(r, nfix, v, &kb);
					uint8_t *k = ty_alloc(kb.len);
					memcpy(k, kb.data, kb.len);
					size_t kl = kb.len;
					util_buf_free(&kb);
					/* A lower bound on a DESC column limits keys from above. */
					bool start_side = is_lo != desc;
					if (start_side) {
						if (incl) {
							kr2.start = k;
							kr2.start_len = kl;
						} else {
							size_t sl;
							uint8_t *s = key_succ(k, kl, &sl);
							if (!s)
								goto next_combo;
							kr2.start = s;
							kr2.start_len = sl;
						}
					} else {
						if (incl) {
							kr2.stop = key_succ(k, kl, &kr2.stop_len);
						} else {
							kr2.stop = k;
							kr2.stop_len = kl;
						}
					}
				}
			}
			if (like_pfx) {
				util_buf lb = UTIL_BUF_INIT;
				if (plen)
					util_buf_append(&lb, pfx, plen);
				level_head(r, nfix, &lb);
				util_buf_append(&lb, like_pfx, like_len);
				size_t n = lb.len;
				uint8_t *k = ty_alloc(n);
				memcpy(k, lb.data, n);
				util_buf_free(&lb);
				kr2.start = k;
				kr2.start_len = n;
				kr2.stop = key_succ(k, n, &kr2.stop_len);
			}
			kr2.point = p->scan.npoint > 0 && !lo_extra && !hi_extra;
			kr2.rowlen = rowlen;
			if (!kr2.stop || kcmp(kr2.start, kr2.start_len, kr2.stop, kr2.stop_len) < 0)
				add_range(st, &kr2, &cap);
		next_combo:;
			int d = nfix - 1;
			while (d >= 0 && ++idx[d] >= lo.nalts[d])
				idx[d--] = 0;
			if (d < 0)
				break;
		}
	}
	/* Ranges in key order without duplicates (IN lists may repeat values). */
	if (st->nranges > 1) /* none at all for WHERE a BETWEEN 2 AND 0: ranges is NULL */
		qsort(st->ranges, (size_t)st->nranges, sizeof(keyrange), cmp_range);
	int k = 0;
	for (int i = 0; i < st->nranges; i++) {
		if (k &&
		    !kcmp(st->ranges[k - 1].start, st->ranges[k - 1].start_len, st->ranges[i].start,
			  st->ranges[i].start_len) &&
		    st->ranges[i].point && st->ranges[k - 1].point)
			continue;
		st->ranges[k++] = st->ranges[i];
	}
	st->nranges = k;
}

static void build_ranges(sql_op *op, scan_state *st)
{
	build_ranges_for(op->ex, op->plan, st);
}

static uint8_t *with_bucket(uint8_t b, const uint8_t *k, size_t n)
{
	uint8_t *o = ty_alloc(n + 1);
	o[0] = b;
	if (n)
		memcpy(o + 1, k, n);
	return o;
}

/* The ranges of one bucket (built on unsalted keys, in key order) as
 * ranges of row keys: points only in their own bucket, every range
 * prefixed with the bucket byte (a full scan is the whole bucket). Appends
 * to out (*k used, cap enough). */
static void bucket_ranges(const sql_plan *p, const scan_state *st, const keyrange *in, int nin, uint8_t b,
			  keyrange *out, int *k)
{
	const cat_rel *r = st->rel;
	uint8_t *next = NULL; /* the next bucket's first key: this one's end */
	if (b < 255) {
		next = ty_alloc(1);
		next[0] = (uint8_t)(b + 1);
	}
	if (!p->scan.nranges) {
		out[(*k)++] = (keyrange){with_bucket(b, NULL, 0), 1, next, next ? 1 : 0, false, 0};
		return;
	}
	for (int i = 0; i < nin; i++) {
		keyrange kr = in[i];
		if (kr.point && sql_salt_bucket(r, kr.start, kr.start_len) != b)
			continue;
		kr.start = with_bucket(b, kr.start, kr.start_len);
		kr.start_len++;
		if (kr.stop) {
			kr.stop = with_bucket(b, kr.stop, kr.stop_len);
			kr.stop_len++;
		} else {
			kr.stop = next;
			kr.stop_len = next ? 1 : 0;
		}
		out[(*k)++] = kr;
	}
}

/* Salted tables: the ranges (built on unsalted keys, in key order) become
 * ranges of row keys. A bucket's scan (salt = b + 1) keeps its own; point
 * lookups (SQL_SALT_POINTS) go each to its key's bucket, still in key
 * order; every bucket's (SQL_SALT_ALL, SQL_SALT_STREAMS) come bucket after
 * bucket, i.e. in the order of the stored keys, bucket_first[b] the index
 * of bucket b's first range. */
static void salt_ranges(const sql_plan *p, scan_state *st)
{
	const cat_rel *r = st->rel;
	if (st->salt == SQL_SALT_POINTS) {
		for (int i = 0; i < st->nranges; i++) {
			keyrange *kr = &st->ranges[i];
			if (!kr->point)
				ty_error(UTIL_E_INTERNAL_ERROR, "salted point scan with a key range");
			kr->start = with_bucket(sql_salt_bucket(r, kr->start, kr->start_len), kr->start,
						kr->start_len);
			kr->start_len++;
		}
		return;
	}
	int nin = p->scan.nranges ? st->nranges : 1;
	if (st->salt > 0) {
		keyrange *out = ty_alloc(sizeof(keyrange) * (size_t)nin);
		int k = 0;
		bucket_ranges(p, st, st->ranges, st->nranges, (uint8_t)(st->salt - 1), out, &k);
		st->ranges = out;
		st->nranges = k;
		return;
	}
	int nb = r->salt_buckets;
	keyrange *out = ty_alloc(sizeof(keyrange) * (size_t)nin * (size_t)nb);
	st->bucket_first = ty_alloc(sizeof(int) * (size_t)(nb + 1));
	int k = 0;
	for (int b = 0; b < nb; b++) {
		st->bucket_first[b] = k;
		bucket_ranges(p, st, st->ranges, st->nranges, (uint8_t)b, out, &k);
	}
	st->bucket_first[nb] = k;
	st->ranges = out;
	st->nranges = k;
}

/* Cells of a row kept undecoded until the scan filter has passed it. */
#define RB_RAW_BYTES 2048
#define RB_RAW_CELLS 32
#define RB_KEY_BYTES 256
typedef struct rb_raw {
	int n;
	size_t used;
	bool key_here; /* out[ncols] points at key, not into the arena */
	uint8_t key[RB_KEY_BYTES];
	int col[RB_RAW_CELLS];
	uint32_t off[RB_RAW_CELLS], len[RB_RAW_CELLS];
	uint8_t bytes[RB_RAW_BYTES];
} rb_raw;

/* A first conjunct of the scan filter of the form `col [NOT] [I]LIKE
 * 'constant'` on a text column stored in cells (pre_build), or packed in
 * the sentinel: rb_cell runs the same matcher on the value's bytes (a
 * text datum is those bytes, and LIKE compares bytes: there are no
 * collations) and a row whose conjunct is not true (no cell or no value:
 * NULL) is dropped before the rest of it is decoded and before the filter
 * runs. The filter still runs on the rows kept, so it needs only to be
 * false or NULL where the row is dropped: then the whole AND is not true. */
typedef struct rb_pre {
	int col;
	bool negate;
	ty_like_pat pat;
	/* The same test for the kv loop (kv_iter_skip_rows: rows it drops
	 * never reach the row builder); id UINT32_MAX when the column has no single
	 * column id. A packed table's test is on the sentinel (test.empty),
	 * colid the column's id in it. */
	kv_row_test test;
	uint16_t colid;
} rb_pre;

/* rb_pre's test on a cell's bytes: true when the conjunct is true. */
static bool pre_test_fn(void *arg, const uint8_t *v, size_t vl)
{
	const rb_pre *pre = arg;
	return ty_like_exec(&pre->pat, (const char *)v, vl) != pre->negate;
}

/* The column's value in a packed sentinel's value v: false when it is
 * NULL (absent: also a column added after the row was written). */
static bool pre_packed_find(const rb_pre *pre, const uint8_t *v, size_t vl, const uint8_t **p, size_t *n)
{
	sql_packed pk;
	sql_packed_open(&pk, v, vl);
	return sql_packed_find(&pk, pre->colid, p, n);
}

/* rb_pre's test on a packed sentinel's value: the column found in place,
 * NULL (absent) not true, as a missing cell. */
static bool pre_test_packed_fn(void *arg, const uint8_t *v, size_t vl)
{
	const uint8_t *p;
	size_t n;
	return pre_packed_find(arg, v, vl, &p, &n) && pre_test_fn(arg, p, n);
}

/* Rows skipped in the kv loop per kv_iter_skip_rows call (between two
 * interrupt checks at most). */
#define PRE_SKIP_ROWS 256

/* Skips, in the kv loop, rows of it the scan's prefilter drops (none
 * without pre); the count goes to *ticks, with an interrupt check after
 * every PRE_SKIP_ROWS. */
static void pre_skip(kv_iter *it, const rb_pre *pre, const uint64_t *mask, uint32_t nbits, unsigned *ticks)
{
	if (!pre || pre->test.id == UINT32_MAX)
		return;
	size_t n;
	do {
		n = kv_iter_skip_rows(it, mask, nbits, &pre->test, PRE_SKIP_ROWS);
		*ticks += (unsigned)n;
		if (n == PRE_SKIP_ROWS)
			ty_check_interrupts(); /* cancel, statement_timeout */
	} while (n == PRE_SKIP_ROWS && kv_iter_valid(it));
}

/* Row assembly: decode one kv row's cells into out (ncols + key). With
 * early set (a filtered scan, see filter_cols), the cells pass decodes only
 * the early columns (those the filter reads) and keeps the other needed
 * cells' bytes in raw; rb_rest decodes them once the filter has kept the
 * row. The filter sees the same values either way: it reads no others. */
typedef struct row_build {
	const cat_rel *rel;
	const sql_rowmap *map;
	const bool *needed;
	ty_datum *out;
	bool exists;
	bool started;
	int8_t key_cols;      /* 0 unknown, 1 some key column is needed, -1 none */
	const bool *early;    /* NULL: decode every needed column in the cells pass */
	const bool *rest;     /* needed and not early (with early) */
	rb_raw *raw;          /* with early */
	int8_t rest_key_cols; /* as key_cols, for rest */
	int8_t key_cols_all;  /* as key_cols, for needed (the key moved out of raw) */
	/* rb_start_filtered: clean_out is NULL in every column but those in
	 * dirty (bit i: column i; all bits: unknown), so that a slot reused
	 * after the filter dropped its row is reset column by column only
	 * where the row set one (r8 sets 1 of 7). Nothing else may write a
	 * clean_out slot (callers clear clean_out when something does). */
	ty_datum *clean_out;
	uint64_t dirty;
	/* pre: set per scan (NULL with the transaction's own writes: they
	 * may change the column); pre_seen/pre_fail per row. */
	const rb_pre *pre;
	bool pre_seen, pre_fail;
} row_build;

/* With pre: true when the row's cells showed the conjunct not true. */
static inline bool rb_pre_drops(const row_build *rb)
{
	return rb->pre && (rb->pre_fail || !rb->pre_seen);
}

static inline void rb_dirty(row_build *rb, int col)
{
	rb->dirty |= col < 64 ? (uint64_t)1 << col : ~(uint64_t)0;
}

/* Sets the row's columns to NULL: only the dirty ones of a clean slot. */
static void rb_reset_cols(row_build *rb)
{
	int n = rb->rel->ncols;
	if (rb->out == rb->clean_out && rb->dirty != ~(uint64_t)0) {
		for (uint64_t d = rb->dirty; d; d &= d - 1)
			rb->out[__builtin_ctzll(d)] = ty_null();
	} else {
		for (int i = 0; i < n; i++)
			rb->out[i] = ty_null();
	}
	rb->clean_out = rb->out;
	rb->dirty = 0;
}

/* Starts a row whose key is given (interleaved rows: not the kv row). */
static void rb_start_key(row_build *rb, const uint8_t *key, size_t klen)
{
	const cat_rel *r = rb->rel;
	for (int i = 0; i < r->ncols; i++)
		rb->out[i] = ty_null();
	uint8_t *k = ty_alloc(klen ? klen : 1);
	memcpy(k, key, klen);
	rb->out[r->ncols] = ty_bytes(k, klen);
	rb->exists = false;
	rb->started = true;
}

static void rb_col(row_build *rb, uint16_t id, const uint8_t *v, size_t vl);
static void rb_packed(row_build *rb, const kv_cell *c);

/* One cell of an interleaved row: q is the qualifier after the row's
 * prefix; descendants' cells (SQL_ILV_SEP ...) are not the row's. */
static void rb_ilv_cell(row_build *rb, const uint8_t *q, size_t ql, const kv_cell *c)
{
	if (ql == 0) {
		rb->exists = true;
		if (c->value.len)
			rb_packed(rb, c);
		return;
	}
	if (ql != 2 || q[0] == SQL_ILV_SEP)
		return;
	rb_col(rb, (uint16_t)((q[0] << 8) | q[1]), c->value.data, c->value.len);
}

static void rb_start(row_build *rb, const kv_cell *c)
{
	const cat_rel *r = rb->rel;
	for (int i = 0; i < r->ncols; i++)
		rb->out[i] = ty_null();
	uint8_t *key = ty_alloc(c->row.len ? c->row.len : 1);
	memcpy(key, c->row.data, c->row.len);
	rb->out[r->ncols] = ty_bytes(key, c->row.len);
	rb->exists = false;
	rb->started = true;
	rb->pre_seen = rb->pre_fail = false;
}

/* rb_start for filtered scans: the key stays in raw until the filter has
 * kept the row (no arena copy for dropped rows). */
static void rb_start_filtered(row_build *rb, const kv_cell *c)
{
	if (!rb->early || c->row.len > RB_KEY_BYTES) {
		rb_start(rb, c);
		return;
	}
	const cat_rel *r = rb->rel;
	rb_reset_cols(rb);
	memcpy(rb->raw->key, c->row.data, c->row.len);
	rb->out[r->ncols] = ty_bytes(rb->raw->key, c->row.len);
	rb->raw->key_here = true;
	rb->exists = false;
	rb->started = true;
	rb->pre_seen = rb->pre_fail = false;
}

/* One column's stored value (a cell's, or one packed in the sentinel). */
static void rb_col(row_build *rb, uint16_t id, const uint8_t *v, size_t vl)
{
	if (id >= rb->map->ncolids || rb->map->idx[id] < 0)
		return;
	int col = rb->map->idx[id];
	if (rb->needed && !rb->needed[col])
		return;
	if (rb->pre) {
		if (rb->pre_fail)
			return; /* the row is dropped: nothing more to decode */
		if (col == rb->pre->col) {
			rb->pre_seen = true;
			bool m = ty_like_exec(&rb->pre->pat, (const char *)v, vl);
			if (m == rb->pre->negate) {
				rb->pre_fail = true;
				return;
			}
		}
	}
	if (rb->early && !rb->early[col]) {
		rb_raw *raw = rb->raw;
		if (raw->n < RB_RAW_CELLS && vl <= RB_RAW_BYTES - raw->used) {
			raw->col[raw->n] = col;
			raw->off[raw->n] = (uint32_t)raw->used;
			raw->len[raw->n] = (uint32_t)vl;
			memcpy(raw->bytes + raw->used, v, vl);
			raw->used += vl;
			raw->n++;
			return;
		}
		/* no room: decode it now (same result, only not deferred) */
	}
	rb_dirty(rb, col);
	rb->out[col] = sql_value_decode_t(rb->map->types[col], rb->rel->cols[col].type, v, vl);
}

/* A packed row's values (rowpack.c), each as its cell would be; with
 * pre on a packed column, its value is judged first, so a row it drops
 * decodes nothing (rows the kv loop did not judge: memstore, overlaps). */
static void rb_packed(row_build *rb, const kv_cell *c)
{
	const rb_pre *pre = rb->pre;
	if (pre && pre->test.empty && pre->test.id != UINT32_MAX && !rb->pre_fail &&
	    !pre_test_packed_fn((void *)pre, c->value.data, c->value.len)) {
		rb->pre_fail = true;
		return;
	}
	sql_packed pk;
	sql_packed_open(&pk, c->value.data, c->value.len);
	uint16_t id;
	const uint8_t *v;
	size_t vl;
	for (int i = 0; sql_packed_value(&pk, i, &id, &v, &vl); i++) {
		rb_col(rb, id, v, vl);
		if (rb->pre_fail)
			return; /* the row is dropped: nothing more to decode */
	}
}

static void rb_cell(row_build *rb, const kv_cell *c)
{
	if (c->qualifier.len == 0) {
		rb->exists = true;
		if (c->value.len)
			rb_packed(rb, c);
		return;
	}
	if (c->qualifier.len != 2)
		return;
	rb_col(rb, (uint16_t)((c->qualifier.data[0] << 8) | c->qualifier.data[1]), c->value.data,
	       c->value.len);
}

static void rb_cell_fn(void *arg, const kv_cell *c)
{
	rb_cell(arg, c);
}

/* Decodes the key columns in mask (NULL: all); *kc caches whether any. */
static void rb_key_cols(row_build *rb, const bool *mask, int8_t *kc)
{
	const cat_rel *r = rb->rel;
	if (!*kc) { /* once per row_build: most scans need no key column */
		*kc = -1;
		for (int i = 0; i < r->npk; i++)
			if (!mask || mask[r->pk[i] - 1])
				*kc = 1;
	}
	if (*kc > 0) {
		sql_key_decode_map(r, rb->map, rb->out[r->ncols].p, rb->out[r->ncols].len, mask, rb->out);
		rb->dirty = ~(uint64_t)0;
	}
}

/* Ends the cells pass: the key columns too (only the early ones with early). */
static void rb_finish(row_build *rb)
{
	if (!rb->exists || !rb->rel->npk)
		return;
	rb_key_cols(rb, rb->early ? rb->early : rb->needed, &rb->key_cols);
}

/* With early: decodes the rest of the row (after the filter kept it). */
static void rb_rest(row_build *rb)
{
	if (!rb->early)
		return;
	rb->dirty = ~(uint64_t)0;
	rb_raw *raw = rb->raw;
	for (int i = 0; i < raw->n; i++) {
		int col = raw->col[i];
		rb->out[col] = sql_value_decode_t(rb->map->types[col], rb->rel->cols[col].type,
						  raw->bytes + raw->off[i], raw->len[i]);
	}
	raw->n = 0;
	raw->used = 0;
	const cat_rel *r = rb->rel;
	if (raw->key_here) {
		/* into the arena; key columns decoded from raw may point into it */
		ty_datum *k = &rb->out[r->ncols];
		uint8_t *copy = ty_alloc(k->len ? k->len : 1);
		memcpy(copy, k->p, k->len);
		*k = ty_bytes(copy, k->len);
		raw->key_here = false;
		if (rb->exists && r->npk)
			rb_key_cols(rb, rb->needed, &rb->key_cols_all);
		return;
	}
	if (rb->exists && r->npk)
		rb_key_cols(rb, rb->rest, &rb->rest_key_cols);
}

/* Drops the kept cells of a row the filter dropped. */
static void rb_drop(row_build *rb)
{
	if (rb->raw)
		rb->raw->n = 0, rb->raw->used = 0, rb->raw->key_here = false;
}

/* st->pre (see rb_pre): the filter's first conjunct when it is `col [NOT]
 * [I]LIKE 'constant'` on a text column stored in cells, else NULL. The
 * first conjunct only: the AND evaluates its arguments in order and stops
 * at a false one, so rows dropped early are rows whose later conjuncts the
 * filter would not have had to read either (or, for NULL, PostgreSQL's
 * qual list would not). */
static void pre_build(scan_state *st, const sql_plan *p)
{
	st->pre = NULL;
	const sql_expr *e = p->qual;
	if (e && e->kind == SQL_E_AND && e->f.nargs > 0)
		e = e->f.args[0];
	if (!e || e->kind != SQL_E_FUNC || !e->f.fn || e->f.nargs != 2)
		return;
	ty_oid oid = e->f.fn->oid;
	bool icase = oid == 1633 || oid == 1634; /* texticlike, texticnlike */
	bool negate = oid == 851 || oid == 1634; /* textnlike, texticnlike */
	if (oid != 850 && oid != 851 && oid != 1633 && oid != 1634)
		return;
	const sql_expr *a = e->f.args[0], *b = e->f.args[1];
	if (a->kind != SQL_E_SLOT || b->kind != SQL_E_CONST || b->c.null || b->type != TY_TEXT)
		return;
	const cat_rel *r = st->rel;
	int col = a->slot;
	if (col < 0 || col >= r->ncols || r->cols[col].dropped || r->cols[col].type != TY_TEXT ||
	    !sql_column_in_cells(r, &r->cols[col]) || (p->scan.needed && !p->scan.needed[col]))
		return;
	const ty_type *t = st->map.types[col];
	if (!t || t->byval) /* decoded as a copy of the cell's bytes */
		return;
	rb_pre *pre = ty_alloc(sizeof *pre);
	pre->col = col;
	pre->negate = negate;
	ty_like_compile(&pre->pat, b->c.p, b->c.len, icase, false);
	pre->test.id = UINT32_MAX;
	pre->test.fn = r->packed ? pre_test_packed_fn : pre_test_fn;
	pre->test.arg = pre;
	/* A packed table's column is one value in the sentinel: the kv loop
	 * tests the sentinel, the fn finds the column's value in it. */
	pre->test.empty = r->packed;
	for (int id = 0; id < st->map.ncolids; id++) {
		if (st->map.idx[id] != col)
			continue;
		if (pre->test.id != UINT32_MAX) { /* two ids decode into col: not one cell */
			pre->test.id = UINT32_MAX;
			break;
		}
		pre->test.id = (uint32_t)id;
	}
	pre->colid = (uint16_t)pre->test.id;
	st->pre = pre;
}

/* Filtered scans: when the scan filter reads fewer columns than the scan
 * returns, early = the needed columns the filter reads and rest = the
 * other needed ones (both allocated in the current arena); else false.
 * Rows the filter drops then cost only the filter's columns (r8 drops
 * 98.6% of its rows). Kept off for subqueries in the filter. */
typedef struct filter_cols {
	bool *cols;
	int width;
	bool unsure;
} filter_cols;

static bool filter_walk(sql_expr *e, void *arg)
{
	filter_cols *fc = arg;
	if (e->kind == SQL_E_SLOT) {
		if (e->slot < 0 || e->slot >= fc->width)
			fc->unsure = true;
		else
			fc->cols[e->slot] = true;
	} else if (e->kind == SQL_E_SUBLINK || e->kind == SQL_E_VAR) {
		fc->unsure = true;
	}
	return fc->unsure;
}

static bool filter_cols_split(const cat_rel *r, const sql_plan *p, bool **early, bool **rest)
{
	if (!p->qual)
		return false;
	int width = r->ncols + 1;
	filter_cols fc = {ty_alloc0(sizeof(bool) * (size_t)width), width, false};
	sql_expr_walk(p->qual, filter_walk, &fc);
	if (fc.unsure)
		return false;
	bool *rs = ty_alloc0(sizeof(bool) * (size_t)width);
	bool any = false;
	for (int c = 0; c < r->ncols; c++) {
		bool need = !p->scan.needed || p->scan.needed[c];
		fc.cols[c] = fc.cols[c] && need;
		rs[c] = need && !fc.cols[c];
		any |= rs[c] && !r->cols[c].dropped;
	}
	fc.cols[r->ncols] = rs[r->ncols] = true; /* the key bytes are always there */
	if (!any)
		return false;
	*early = fc.cols;
	*rest = rs;
	return true;
}

/* Applies a pending write to a row built from the store (or makes one). */
static bool overlay(const cat_rel *r, const sql_wrow *w, ty_datum *row, bool from_store)
{
	if (!w->present)
		return false;
	if (w->inserted || !from_store) {
		for (int i = 0; i < r->ncols && i < w->ncols; i++)
			row[i] = w->cols[i];
		uint8_t *key = ty_alloc(w->keylen ? w->keylen : 1);
		memcpy(key, w->key, w->keylen);
		row[r->ncols] = ty_bytes(key, w->keylen);
		return true;
	}
	for (int i = 0; i < r->ncols && i < w->ncols; i++)
		if (w->set[i])
			row[i] = w->cols[i];
	return true;
}

static bool in_range(const keyrange *kr, const uint8_t *k, size_t n)
{
	if (kr && kcmp(k, n, kr->start, kr->start_len) < 0)
		return false;
	if (kr && kr->stop && kcmp(k, n, kr->stop, kr->stop_len) >= 0)
		return false;
	return true;
}

/* The filter that keeps a read of an interleaved child on its table's
 * rows: the level-1 tag prefix (deeper levels are told apart by the row
 * assembly). Tables with children read only their own family instead. */
static kv_filter *own_cells_filter(const cat_rel *r)
{
	if (!r->ilv_depth)
		return NULL;
	uint16_t tag = (uint16_t)r->ilv_path[1];
	uint8_t pre[3] = {SQL_ILV_SEP, (uint8_t)(tag >> 8), (uint8_t)tag};
	return kv_filter_column_prefix(pre, sizeof pre);
}

/* A range of an interleaved child with its root's key fixed lies in one
 * kv row (the planner bounds the child's own key columns only then):
 * read that row alone, its qualifiers limited to the
 * range's by a column-range filter (the store seeks to the first and
 * skips the rest of the row after the last), so a slice of a wide group
 * costs the slice, not the group. */
static bool ilv_range(scan_state *st, const keyrange *kr, kv_scan_opts *so)
{
	kv_filter_free(st->range_cells);
	st->range_cells = NULL;
	size_t rowlen = kr->rowlen;
	if (!rowlen)
		return false;
	const uint8_t *qmin = NULL, *qmax = NULL;
	size_t qminlen = 0, qmaxlen = 0;
	if (kr->start_len > rowlen) {
		qmin = kr->start + rowlen;
		qminlen = kr->start_len - rowlen;
	}
	if (kr->stop && kr->stop_len > rowlen && !memcmp(kr->stop, kr->start, rowlen)) {
		qmax = kr->stop + rowlen;
		qmaxlen = kr->stop_len - rowlen;
	}
	uint8_t *stop = ty_alloc(rowlen + 1); /* the row alone: [row, row 00) */
	memcpy(stop, kr->start, rowlen);
	stop[rowlen] = 0;
	so->start_len = rowlen;
	so->stop = stop;
	so->stop_len = rowlen + 1;
	st->range_cells = kv_filter_column_range(qmin, qminlen, true, qmax, qmaxlen, false);
	so->read.filter = st->range_cells;
	return qmin || qmax; /* bounds on the child's own key columns */
}

/* The qualifier range [*qmin, *qmax) of an interleaved child's cells that
 * its key bounds past the root's key allow (plan: scan.slice); false when
 * a bound is NULL (the filter then finds nothing; no slice is needed). */
static bool slice_bounds(sql_exec *ex, const sql_keyrange *kr, const cat_rel *r, uint8_t **qmin,
			 size_t *qminlen, uint8_t **qmax, size_t *qmaxlen)
{
	int from = r->ilv_path[0], nfix = kr->nfix;
	util_buf pre = UTIL_BUF_INIT;
	for (int i = 0; i < nfix; i++) {
		ty_datum v = sql_eval(ex, kr->lo.vals[i], NULL);
		if (v.null) {
			util_buf_free(&pre);
			return false;
		}
		enc_keycol(r, from + i, v, &pre);
	}
	if (!nfix)
		level_head(r, from, &pre);
	uint8_t *base = ty_alloc(pre.len);
	memcpy(base, pre.data, pre.len);
	size_t blen = pre.len;
	util_buf_free(&pre);
	*qmin = base;
	*qminlen = blen;
	*qmax = key_succ(base, blen, qmaxlen);
	bool desc = from + nfix < r->npk && r->pk_desc ? r->pk_desc[from + nfix] : false;
	for (int side = 0; side < 2; side++) {
		const sql_keybound *kb = side == 0 ? &kr->lo : &kr->hi;
		if (kb->ncols <= nfix)
			continue;
		ty_datum v = sql_eval(ex, kb->vals[nfix], NULL);
		if (v.null)
			return false;
		util_buf b = UTIL_BUF_INIT;
		if (nfix) /* else base is the level header, which enc_keycol writes */
			util_buf_append(&b, base, blen);
		enc_keycol(r, from + nfix, v, &b);
		uint8_t *k = ty_alloc(b.len);
		memcpy(k, b.data, b.len);
		size_t kl = b.len;
		util_buf_free(&b);
		/* A lower bound on a DESC column limits qualifiers from above. */
		if ((side == 0) != desc) {
			if (kb->inclusive) {
				*qmin = k;
				*qminlen = kl;
			} else {
				*qmin = key_succ(k, kl, qminlen);
				if (!*qmin)
					return false;
			}
		} else if (kb->inclusive) {
			*qmax = key_succ(k, kl, qmaxlen);
		} else {
			*qmax = k;
			*qmaxlen = kl;
		}
	}
	return true;
}

static kv_filter *slice_filter(sql_exec *ex, const sql_plan *p, const cat_rel *r)
{
	uint8_t *qmin, *qmax;
	size_t qminlen, qmaxlen = 0;
	if (!p->scan.slice || !r->ilv_depth ||
	    !slice_bounds(ex, p->scan.slice, r, &qmin, &qminlen, &qmax, &qmaxlen))
		return NULL;
	return kv_filter_column_range(qmin, qminlen, true, qmax, qmax ? qmaxlen : 0, false);
}

/* The cur-th range in scan order. */
static int range_index(const scan_state *st, int cur)
{
	return st->reverse ? st->nranges - 1 - cur : cur;
}

static void open_iter(sql_op *op, scan_state *st)
{
	const sql_plan *p = op->plan;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = op->ex->read_ts;
	so.read.columns = st->cols;
	so.read.ncolumns = st->ncols_read;
	so.read.filter = st->own_cells;
	bool bounded = false;
	if (st->nranges) {
		keyrange *kr = &st->ranges[range_index(st, st->cur)];
		so.start = kr->start;
		so.start_len = kr->start_len;
		so.stop = kr->stop;
		so.stop_len = kr->stop ? kr->stop_len : 0;
		if (st->ilv)
			bounded = ilv_range(st, kr, &so);
	}
	/* The slice also narrows a range that fixes only the root's key (a
	 * lookup join's inner side: one group per outer row). */
	if (st->ilv && p->scan.slice && !bounded) {
		kv_filter_free(st->slice_cells);
		st->slice_cells = slice_filter(op->ex, p, st->rel);
		if (st->slice_cells)
			so.read.filter = st->slice_cells;
	}
	so.reverse = st->reverse;
	/* A reverse scan buffers rows: only the cells kv_iter_row_sel will
	 * pass (interleaved rows are read cell by cell, unmasked). */
	if (!st->ilv && !st->rel->ilv_nchildren) {
		so.sel = st->cellmask;
		so.sel_bits = st->cellmask_bits;
	}
	/* The store may stop early when every row it returns is a result row. */
	if (st->left >= 0 && !p->qual && !st->has_writes && !p->scan.lock_strength && !st->ilv)
		so.limit = (uint64_t)st->left;
	sql_txn_note_read(op->ex->txn, st->rel->storage, so.start, so.start_len, so.stop, so.stop_len, false);
	st->it = kv_scan(st->kv, &so);
	if (kv_iter_status(st->it) != KV_OK)
		sql_kv_error(kv_iter_status(st->it), "scanning a table");
}

static void scan_open_ranges(sql_op *op, scan_state *st);

static void scan_open(sql_op *op)
{
	scan_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	if (st->reopen) {
		st->reopen = false;
		scan_open_ranges(op, st);
		return;
	}
	const cat_obj *o = cat_get(ex->cat, p->scan.reloid);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", p->scan.reloid);
	st->rel = &o->rel;
	sql_ops_scan_open(ex, o);
	kv_status s = kv_table_open(ex->s->e->kv, o->rel.storage, &st->kv);
	if (s != KV_OK)
		sql_kv_error(s, "opening a table");
	util_arena *old = ty_set_arena(ex->arena);
	sql_rowmap_build(st->rel, ex->arena, &st->map);
	cellmask_build(st, p->scan.needed, ex->arena);
	if (!st->rel->ilv_depth && !filter_cols_split(st->rel, p, &st->early, &st->rest))
		st->early = st->rest = NULL;
	st->pre = NULL;
	const char *pf = sql_guc_get(ex->s, "strata.scan_prefilter");
	if (!st->rel->ilv_depth && !st->rel->ilv_nchildren && !(pf && !strcmp(pf, "off")))
		pre_build(st, p);
	/* Read only the needed columns (and the sentinel) when that skips most
	 * cells of wide rows: a column list makes the store seek from column to
	 * column, which on narrow rows costs more than stepping over the cells
	 * (1M rows x 7 cells: 2 needed 470 vs 240 ms CPU, count(*) 366 vs 200). */
	int need = 0, total = 0;
	for (int c = 0; c < st->rel->ncols; c++) {
		if (st->rel->cols[c].dropped || !sql_column_in_cells(st->rel, &st->rel->cols[c]))
			continue;
		total++;
		need += p->scan.needed[c];
	}
	if (total >= 32 && need * 8 <= total && !st->rel->ilv_depth && !st->rel->packed) {
		st->cols = ty_alloc(sizeof(kv_column) * (size_t)(need + 1));
		st->cols[0] = (kv_column){SQL_FAMILY, "", 0};
		int k = 1;
		for (int c = 0; c < st->rel->ncols; c++) {
			const cat_column *col = &st->rel->cols[c];
			if (col->dropped || !p->scan.needed[c] || !sql_column_in_cells(st->rel, col))
				continue;
			uint8_t *q = ty_alloc(2);
			sql_colid_qual(col->col_id, q);
			st->cols[k++] = (kv_column){SQL_FAMILY, q, 2};
		}
		st->ncols_read = k;
	}
	st->range_arena = util_arena_new(4096, 0);
	ty_set_arena(old);
	scan_open_ranges(op, st);
}

/* What an open (or a rescan with new parameters) decides from the
 * parameters and the transaction: ranges, own writes, LIMIT, workers. */
static void scan_open_ranges(sql_op *op, scan_state *st)
{
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	util_arena *old = ty_set_arena(st->range_arena);
	if (p->scan.nranges)
		build_ranges(op, st);
	if (st->salt)
		salt_ranges(p, st);
	if (ex->txn) {
		st->writes = sql_txn_table_writes(ex->txn, p->scan.reloid, st->range_arena, &st->nwrites);
		if (st->salt > 0) { /* this bucket's own */
			int k = 0;
			for (int i = 0; i < st->nwrites; i++)
				if (st->writes[i]->keylen && st->writes[i]->key[0] == st->salt - 1)
					st->writes[k++] = st->writes[i];
			st->nwrites = k;
		}
		st->has_writes = st->nwrites > 0;
	}
	ty_set_arena(old);
	st->cur = 0;
	st->started = false;
	st->reverse = p->scan.reverse;
	st->left = -1;
	st->ilv = st->rel->ilv_depth > 0;
	st->own_cells = own_cells_filter(st->rel);
	st->own_cells_get = own_cells_filter(st->rel);
	if (st->ilv || (st->rel->ilv_nchildren && !st->cols)) {
		/* Entity groups: a child's rows are in the interleaved family, a
		 * parent's own cells in the usual one. */
		st->cols = ty_alloc(sizeof(kv_column));
		st->cols[0] = (kv_column){st->ilv ? SQL_ILV_FAMILY : SQL_FAMILY, NULL, 0};
		st->ncols_read = 1;
	}
	if (p->scan.limit) {
		ty_datum d = sql_eval(ex, p->scan.limit, NULL);
		ty_datum off = p->scan.limit_offset ? sql_eval(ex, p->scan.limit_offset, NULL) : ty_int(0);
		if (!d.null && d.i >= 0 && (off.null || off.i >= 0) && d.i <= INT64_MAX / 2 &&
		    off.i <= INT64_MAX / 2)
			st->left = d.i + (off.null ? 0 : off.i);
	}
	if (p->scan.parallel) {
		util_arena *pa = ty_set_arena(st->range_arena);
		par_start(op, st);
		ty_set_arena(pa);
	}
}

/* The transaction's own writes are merged into the store's rows in scan
 * order: wpos counts the writes consumed, from the low end of the sorted
 * array for forward scans and from the high end for reverse ones. */
static sql_wrow *wpeek(const scan_state *st)
{
	if (st->wpos >= st->nwrites)
		return NULL;
	return st->writes[st->reverse ? st->nwrites - 1 - st->wpos : st->wpos];
}

/* a comes before b in scan order. */
static bool before(const scan_state *st, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = kcmp(a, an, b, bn);
	return st->reverse ? c > 0 : c < 0;
}

/* k lies past the end of kr in scan order. */
static bool past_range(const scan_state *st, const keyrange *kr, const uint8_t *k, size_t n)
{
	if (!kr)
		return false;
	if (st->reverse)
		return kcmp(k, n, kr->start, kr->start_len) < 0;
	return kr->stop && kcmp(k, n, kr->stop, kr->stop_len) >= 0;
}

/* Emits pending writes that come before the store row `limit` in scan
 * order (all of the range when limit is NULL), up to cap rows. */
static void emit_writes_before(sql_op *op, scan_state *st, sql_batch *b, int cap, const uint8_t *limit,
			       size_t limit_len, const keyrange *kr)
{
	const sql_plan *p = op->plan;
	sql_wrow *w;
	while ((w = wpeek(st)) && b->n < cap) {
		if (limit && !before(st, w->key, w->keylen, limit, limit_len))
			return;
		if (past_range(st, kr, w->key, w->keylen))
			return; /* belongs to a later range */
		st->wpos++;
		if (!in_range(kr, w->key, w->keylen) || !w->present)
			continue;
		ty_datum *row = sql_batch_row(b, b->n);
		overlay(st->rel, w, row, false);
		if (sql_eval_qual(op->ex, p->qual, row))
			b->n++;
	}
}

/* Skips pending writes that come before the range in scan order. */
static void skip_writes_before(scan_state *st, const keyrange *kr)
{
	sql_wrow *w;
	while (kr && (w = wpeek(st))) {
		bool early = st->reverse ? kr->stop && kcmp(w->key, w->keylen, kr->stop, kr->stop_len) >= 0
					 : kcmp(w->key, w->keylen, kr->start, kr->start_len) < 0;
		if (!early)
			return;
		st->wpos++;
	}
}

/* Reads one row of the store at read_ts into row (the scan's columns
 * plus the key); false if it does not exist there. */
static bool store_get(sql_op *op, scan_state *st, const uint8_t *key, size_t klen, kv_ts read_ts,
		      ty_datum *row)
{
	if (!st->get_arena)
		st->get_arena = util_arena_new(4096, 0);
	else
		util_arena_reset(st->get_arena);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = read_ts;
	ro.columns = st->cols;
	ro.ncolumns = st->ncols_read;
	ro.filter = st->own_cells_get;
	kv_row kr2;
	if (st->rel->ilv_depth) {
		ro.columns = NULL;
		ro.ncolumns = 0;
		ro.filter = NULL;
		size_t qpre;
		kv_status s = sql_row_get(st->kv, st->rel, key, klen, &ro, st->get_arena, &kr2, &qpre);
		if (s != KV_OK && s != KV_NOT_FOUND)
			sql_kv_error(s, "reading a row");
		if (s == KV_NOT_FOUND || kr2.n == 0)
			return false;
		row_build rb = {st->rel, &st->map, op->plan->scan.needed, row, false, false};
		rb_start_key(&rb, key, klen);
		for (size_t i = 0; i < kr2.n; i++)
			rb_ilv_cell(&rb, (const uint8_t *)kr2.cells[i].qualifier.data + qpre,
				    kr2.cells[i].qualifier.len - qpre, &kr2.cells[i]);
		rb_finish(&rb);
		return rb.exists;
	}
	kv_status s = kv_get(st->kv, key, klen, &ro, st->get_arena, &kr2);
	if (s != KV_OK && s != KV_NOT_FOUND)
		sql_kv_error(s, "reading a row");
	if (s == KV_NOT_FOUND || kr2.n == 0)
		return false;
	row_build rb = {st->rel, &st->map, op->plan->scan.needed, row, false, false};
	rb_start(&rb, &kr2.cells[0]);
	for (size_t i = 0; i < kr2.n; i++)
		rb_cell(&rb, &kr2.cells[i]);
	rb_finish(&rb);
	return rb.exists;
}

/* A point lookup (whole key fixed). */
static bool point_get(sql_op *op, scan_state *st, const keyrange *kr, ty_datum *row)
{
	const sql_plan *p = op->plan;
	if (st->has_writes) {
		sql_wrow *w = sql_txn_lookup(op->ex->txn, p->scan.reloid, kr->start, kr->start_len, true);
		if (w && (w->inserted || !w->present)) {
			if (!w->present)
				return false;
			overlay(st->rel, w, row, false);
			return sql_eval_qual(op->ex, p->qual, row);
		}
	}
	sql_txn_note_read(op->ex->txn, st->rel->storage, kr->start, kr->start_len, NULL, 0, true);
	if (!store_get(op, st, kr->start, kr->start_len, op->ex->read_ts, row))
		return false;
	if (st->has_writes) {
		sql_wrow *w = sql_txn_lookup(op->ex->txn, p->scan.reloid, kr->start, kr->start_len, true);
		if (w && !overlay(st->rel, w, row, true))
			return false;
	}
	return sql_eval_qual(op->ex, p->qual, row);
}

/* SELECT ... FOR UPDATE/SHARE: locks a row that passed the scan's qual.
 * False drops the row: SKIP LOCKED found it locked, or it changed after
 * the snapshot (READ COMMITTED) and is now gone or no longer matches —
 * otherwise row is replaced by the newest version, as PostgreSQL's
 * EvalPlanQual does. REPEATABLE READ fails with 40001 instead. */
static bool lock_row(sql_op *op, ty_datum *row)
{
	const sql_plan *p = op->plan;
	scan_state *st = op->state;
	sql_txn *t = op->ex->txn;
	if (!p->scan.lock_strength || !t)
		return true;
	ty_datum key = row[st->rel->ncols];
	bool skipped = false;
	sql_txn_lock_row(t, p->scan.reloid, key.p, key.len, p->scan.lock_strength, p->scan.lock_wait,
			 &skipped);
	if (skipped)
		return false;
	if (sql_txn_lookup(t, p->scan.reloid, key.p, key.len, false))
		return true;
	if (!sql_txn_row_changed(t, st->kv, st->rel, key.p, key.len)) {
		sql_txn_note_lock(t, st->kv, p->scan.reloid, key.p, key.len, p->scan.lock_strength,
				  t->stmt_ts);
		return true;
	}
	if (t->iso != SQL_READ_COMMITTED)
		sql_txn_serialization_failure(!store_get(op, st, key.p, key.len, KV_TS_MAX, row));
	/* On a store shared by several servers the lock is this server's only:
	 * read the newest version at a fresh read point, which the commit then
	 * checks the row unchanged since. */
	kv_ts at = KV_TS_MAX;
	if (op->ex->s->e->opts.store_uri)
		at = kv_read_point(op->ex->s->e->kv);
	bool exists = store_get(op, st, key.p, key.len, at, row);
	if (exists)
		sql_txn_note_lock(t, st->kv, p->scan.reloid, key.p, key.len, p->scan.lock_strength, at);
	return exists && sql_eval_qual(op->ex, p->qual, row);
}

/* Length of the qualifier prefix that names a row of interleaved table r
 * (SQL_ILV_SEP, tag, key columns, for each level), or 0 if the cell is
 * not in a row of r (a parent's or another table's cell). */
static size_t ilv_prefix_len(const cat_rel *r, const uint8_t *q, size_t n)
{
	size_t pos = 0;
	for (int l = 1; l <= r->ilv_depth; l++) {
		uint16_t tag = (uint16_t)r->ilv_path[2 * l - 1];
		if (n - pos < 3 || q[pos] != SQL_ILV_SEP || q[pos + 1] != (uint8_t)(tag >> 8) ||
		    q[pos + 2] != (uint8_t)tag)
			return 0;
		pos += 3;
		int from = l == 1 ? r->ilv_path[0] : r->ilv_path[2 * (l - 1)], to = r->ilv_path[2 * l];
		for (int i = from; i < to; i++) {
			const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
			ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
			size_t k = ty_key_skip(&kc, q + pos, q + n);
			if (k == 0)
				return 0;
			pos += k;
		}
	}
	return pos;
}

/* Interleaved child tables: a kv row holds many rows of the table, each
 * the cells under one qualifier prefix. Fills b from the open iterator;
 * false when the current range is exhausted. */
static bool ilv_fill(sql_op *op, scan_state *st, sql_batch *b, int cap, const keyrange *kr)
{
	const sql_plan *p = op->plan;
	row_build rb = {st->rel, &st->map, p->scan.needed, NULL, false, false};
	while (b->n < cap) {
		if (!kv_iter_valid(st->it)) {
			if (kv_iter_status(st->it) != KV_OK)
				sql_kv_error(kv_iter_status(st->it), "scanning a table");
			if (st->has_writes)
				emit_writes_before(op, st, b, cap, NULL, 0, kr);
			return b->n >= cap;
		}
		const kv_cell *c = kv_iter_cell(st->it);
		size_t plen = ilv_prefix_len(st->rel, (const uint8_t *)c->qualifier.data, c->qualifier.len);
		if (plen == 0) {
			kv_iter_next(st->it);
			continue;
		}
		/* The row's key: the kv row, then the qualifier prefix. */
		util_buf_reset(&st->idbuf);
		util_buf_append(&st->idbuf, c->row.data, c->row.len);
		util_buf_append(&st->idbuf, c->qualifier.data, plen);
		const uint8_t *id = (const uint8_t *)st->idbuf.data;
		size_t idlen = st->idbuf.len, rowlen = c->row.len;
		if (st->range_cells && !in_range(kr, id, idlen)) {
			kv_iter_next(st->it); /* the qualifier range can be wider than the key range */
			continue;
		}
		if (st->has_writes) {
			emit_writes_before(op, st, b, cap, id, idlen, kr);
			if (b->n >= cap)
				return true;
		}
		ty_datum *row = sql_batch_row(b, b->n);
		rb.out = row;
		rb_start_key(&rb, id, idlen);
		for (;;) {
			rb_ilv_cell(&rb, (const uint8_t *)c->qualifier.data + plen, c->qualifier.len - plen,
				    c);
			kv_iter_next(st->it);
			if (!kv_iter_valid(st->it))
				break;
			c = kv_iter_cell(st->it);
			if (c->row.len != rowlen || memcmp(c->row.data, id, rowlen) != 0 ||
			    c->qualifier.len < plen || memcmp(c->qualifier.data, id + rowlen, plen) != 0)
				break;
		}
		rb_finish(&rb);
		bool keep = rb.exists;
		const uint8_t *rk = row[st->rel->ncols].p;
		sql_wrow *w = st->has_writes ? wpeek(st) : NULL;
		if (w && w->keylen == idlen && memcmp(w->key, rk, idlen) == 0) {
			st->wpos++;
			keep = overlay(st->rel, w, row, rb.exists);
		}
		if (keep && sql_eval_qual(op->ex, p->qual, row) && lock_row(op, row))
			b->n++;
		if ((++st->ticks & 255) == 0)
			ty_check_interrupts();
	}
	return true;
}

static sql_batch *scan_next(sql_op *op)
{
	scan_state *st = op->state;
	const sql_plan *p = op->plan;
	if (st->par)
		return par_next(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	/* A pushed-down LIMIT bounds how many rows are read, not only returned. */
	int cap = b->cap;
	if (st->left >= 0 && st->left < cap)
		cap = (int)st->left;
	bool ranged = p->scan.nranges || st->salt;
	int total_ranges = ranged ? st->nranges : 1;
	int scanned = 0;
	while (b->n < cap && st->cur < total_ranges) {
		keyrange *kr = ranged ? &st->ranges[range_index(st, st->cur)] : NULL;
		if (kr && kr->point) {
			ty_datum *row = sql_batch_row(b, b->n);
			if (point_get(op, st, kr, row) && lock_row(op, row))
				b->n++;
			st->cur++;
			continue;
		}
		if (!st->started) {
			open_iter(op, st);
			st->started = true;
			if (st->has_writes)
				skip_writes_before(st, kr);
		}
		if (st->ilv) {
			if (ilv_fill(op, st, b, cap, kr))
				goto out;
			kv_iter_close(st->it);
			st->it = NULL;
			st->started = false;
			st->cur++;
			continue;
		}
		rb_raw raw;
		row_build rb = {st->rel, &st->map,  p->scan.needed, NULL, false, false,
				0,       st->early, st->rest,       &raw, 0};
		raw.n = 0;
		raw.used = 0;
		raw.key_here = false;
		rb.pre = st->has_writes ? NULL : st->pre; /* a write may change the column */
		while (b->n < cap) {
			if (!kv_iter_valid(st->it)) {
				if (kv_iter_status(st->it) != KV_OK)
					sql_kv_error(kv_iter_status(st->it), "scanning a table");
				if (st->has_writes)
					emit_writes_before(op, st, b, cap, NULL, 0, kr);
				if (b->n >= cap)
					goto out;
				kv_iter_close(st->it);
				st->it = NULL;
				st->started = false;
				st->cur++;
				break;
			}
			/* rows the prefilter drops, in the kv loop (rb.pre: not with own writes) */
			pre_skip(st->it, rb.pre, st->cellmask, st->cellmask_bits, &st->ticks);
			if (!kv_iter_valid(st->it))
				continue;
			const kv_cell *c = kv_iter_cell(st->it);
			if (st->has_writes) {
				emit_writes_before(op, st, b, cap, c->row.data, c->row.len, kr);
				if (b->n >= cap)
					goto out;
			}
			ty_datum *row = sql_batch_row(b, b->n);
			rb.out = row;
			if (st->has_writes)
				rb.clean_out = NULL; /* emit_writes_before, overlay write rows too */
			rb_start_filtered(&rb, c);
			const uint8_t *rk = row[st->rel->ncols].p;
			size_t rkl = row[st->rel->ncols].len;
			/* all cells of this row (those rb_cell would skip are not handed over) */
			kv_iter_row_sel(st->it, st->cellmask, st->cellmask_bits, rb_cell_fn, &rb);
			bool keep = !rb_pre_drops(&rb);
			if (keep)
				rb_finish(&rb);
			keep = keep && rb.exists;
			sql_wrow *w = st->has_writes ? wpeek(st) : NULL;
			if (w && w->keylen == rkl && memcmp(w->key, rk, rkl) == 0) {
				st->wpos++;
				rb_rest(&rb); /* the write may change the filter's columns */
				keep = overlay(st->rel, w, row, rb.exists);
			}
			if (keep && sql_eval_qual(op->ex, p->qual, row)) {
				rb_rest(&rb);
				if (lock_row(op, row))
					b->n++;
			} else {
				rb_drop(&rb);
			}
			if ((++st->ticks & 255) == 0)
				ty_check_interrupts(); /* cancel, statement_timeout */
			/* Rows the filter drops leave their key and values in the
			 * batch's arena: return what there is now and then. */
			if (++scanned >= SCAN_FLUSH_ROWS && b->n > 0)
				goto out;
		}
	}
out:
	if (st->left >= 0)
		st->left -= b->n;
	return b;
}

static void scan_close(sql_op *op)
{
	scan_state *st = op->state;
	par_stop(st);

	if (st->it)
		kv_iter_close(st->it);
	st->it = NULL;
	kv_filter_free(st->own_cells);
	kv_filter_free(st->own_cells_get);
	kv_filter_free(st->range_cells);
	kv_filter_free(st->slice_cells);
	st->own_cells = st->own_cells_get = st->range_cells = st->slice_cells = NULL;
	util_buf_free(&st->idbuf);
	util_buf_free(&st->keybuf);
	if (st->kv)
		kv_table_close(st->kv);
	st->kv = NULL;
	util_arena_destroy(st->range_arena);
	st->range_arena = NULL;
	util_arena_destroy(st->get_arena);
	st->get_arena = NULL;
}

static void scan_rescan(sql_op *op)
{
	scan_state *st = op->state;
	if (st->kv && !st->par && !op->plan->scan.parallel && !st->rel->ilv_depth &&
	    !st->rel->ilv_nchildren) {
		/* The inner side of a lookup join is rescanned per outer row:
		 * keep the table, its row map and column list, and the arenas,
		 * and decide only the ranges again (scan_open_ranges). */
		if (st->it)
			kv_iter_close(st->it);
		st->it = NULL;
		util_arena_reset(st->range_arena);
		st->ranges = NULL;
		st->nranges = 0;
		st->writes = NULL;
		st->nwrites = st->wpos = 0;
		st->has_writes = false;
		st->bucket_first = NULL;
		st->reopen = true;
		op->opened = false;
		return;
	}
	int salt = st->salt;
	scan_close(op);
	memset(st, 0, sizeof *st);
	st->salt = salt;
	op->opened = false;
}

sql_op *sql_op_scan_salted(sql_exec *ex, const sql_plan *p, int salt)
{
	sql_op *op = sql_op_new_internal(ex, sizeof(scan_state));
	op->open = scan_open;
	op->next = scan_next;
	op->close = scan_close;
	op->rescan = scan_rescan;
	((scan_state *)op->state)->salt = salt;
	op->plan = p;
	op->ex = ex;
	return op;
}

sql_op *sql_op_scan(sql_exec *ex, const sql_plan *p)
{
	/* Salted tables (exec_salt.c). A parallel scan that needs no order
	 * (plan_order.c) reads the table as stored, bucket after bucket: all of
	 * it, or every bucket's part of the key ranges. */
	int nb = p->scan.rel ? p->scan.rel->rel.salt_buckets : 0;
	if (nb > 0 && p->scan.npoint)
		return sql_op_scan_salted(ex, p, SQL_SALT_POINTS);
	if (nb > 0 && p->scan.parallel && p->scan.nranges && !sql_scan_needs_order(p))
		return sql_op_scan_salted(ex, p, SQL_SALT_ALL);
	if (nb > 0 && !(p->scan.parallel && !p->scan.nranges))
		return sql_op_salt_merge(ex, p, nb);
	sql_op *op = sql_op_new_internal(ex, sizeof(scan_state));
	op->open = scan_open;
	op->next = scan_next;
	op->close = scan_close;
	op->rescan = scan_rescan;
	return op;
}

/* ---------------------------------------------------------------- interleaved join */

/* A parent-child join inside entity groups (plan_order.c): one scan of the
 * root's kv rows; in each, the parent's own cells come first, then its
 * children's, so every group is read once and joined on the spot. The
 * transaction's uncommitted writes to either table are not merged here:
 * with any, the original join runs instead. */
typedef struct group_state {
	sql_op *fallback;
	scan_state ps, cs; /* the parent's ranges; the child's ranges and map */
	kv_iter *it;
	int cur;
	bool started, in_group;
	util_arena *arena;   /* ranges (statement) */
	util_arena *garena;  /* parent rows of the groups in this batch */
	util_arena *garena2; /* the other one: garena's rows die a batch later */
	ty_datum *prow;      /* the current group's parent row, NULL if none matches */
	util_buf rowkey;     /* the current group's kv row */
	util_buf idbuf;
	kv_filter *slice; /* the read's filter (group_filter) */
} group_state;

static void group_setup(const sql_plan *sp, sql_exec *ex, scan_state *st)
{
	const cat_obj *o = cat_get(ex->cat, sp->scan.reloid);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", sp->scan.reloid);
	st->rel = &o->rel;
	sql_rowmap_build(st->rel, ex->arena, &st->map);
	if (sp->scan.nranges)
		build_ranges_for(ex, sp, st);
}

static void group_open(sql_op *op)
{
	group_state *g = op->state;
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	int nw1 = 0, nw2 = 0;
	if (ex->txn) {
		sql_txn_table_writes(ex->txn, p->group.parent->scan.reloid, ex->arena, &nw1);
		sql_txn_table_writes(ex->txn, p->group.child->scan.reloid, ex->arena, &nw2);
	}
	if (nw1 || nw2) {
		g->fallback = sql_exec_node(ex, p->group.join);
		return;
	}
	g->arena = util_arena_new(4096, 0);
	g->garena = util_arena_new(4096, 0);
	g->garena2 = util_arena_new(4096, 0);
	util_arena *old = ty_set_arena(g->arena);
	group_setup(p->group.parent, ex, &g->ps);
	group_setup(p->group.child, ex, &g->cs);
	kv_status s = kv_table_open(ex->s->e->kv, g->ps.rel->storage, &g->ps.kv);
	ty_set_arena(old);
	if (s != KV_OK)
		sql_kv_error(s, "opening a table");
}

/* The group join's filter: a group's parent cells, then only the child's
 * cells in its slice (scan.slice, else the child's whole tag range): the
 * store seeks past the rest of the row instead of returning it. */
typedef struct gslice {
	uint8_t *min, *max;
	size_t minlen, maxlen;
	util_buf hrow;
} gslice;

static kv_filter_code gslice_cell(void *arg, const kv_cell *c)
{
	gslice *a = arg;
	if (c->family.len != 1 || c->family.data[0] != (uint8_t)SQL_ILV_FAMILY[0])
		return KV_FILTER_INCLUDE; /* the parent's own cells */
	if (kv_slice_cmp(c->qualifier, (kv_slice){a->min, a->minlen}) < 0) {
		util_buf_reset(&a->hrow);
		util_buf_append(&a->hrow, c->row.data, c->row.len);
		return KV_FILTER_SEEK_HINT;
	}
	if (a->max && kv_slice_cmp(c->qualifier, (kv_slice){a->max, a->maxlen}) >= 0)
		return KV_FILTER_NEXT_ROW;
	return KV_FILTER_INCLUDE;
}

static void gslice_hint(void *arg, const kv_cell *cur, kv_cell *hint)
{
	(void)cur;
	gslice *a = arg;
	hint->row = (kv_slice){(const uint8_t *)a->hrow.data, a->hrow.len};
	hint->family = (kv_slice){(const uint8_t *)SQL_ILV_FAMILY, 1};
	hint->qualifier = (kv_slice){a->min, a->minlen};
}

static void gslice_free(void *arg)
{
	gslice *a = arg;
	free(a->min);
	free(a->max);
	util_buf_free(&a->hrow);
	free(a);
}

static const kv_filter_vtbl gslice_vt = {
    .filter_cell = gslice_cell, .get_hint = gslice_hint, .free = gslice_free};

static kv_filter *group_filter(sql_exec *ex, const sql_plan *cp, const cat_rel *cr)
{
	uint8_t *qmin = NULL, *qmax = NULL;
	size_t qminlen = 0, qmaxlen = 0;
	if (!cp->scan.slice || !slice_bounds(ex, cp->scan.slice, cr, &qmin, &qminlen, &qmax, &qmaxlen)) {
		uint16_t tag = (uint16_t)cr->ilv_path[1];
		qmin = ty_alloc(3);
		qmin[0] = SQL_ILV_SEP;
		qmin[1] = (uint8_t)(tag >> 8);
		qmin[2] = (uint8_t)tag;
		qminlen = 3;
		qmax = key_succ(qmin, 3, &qmaxlen);
	}
	gslice *a = util_xmalloc(sizeof *a);
	memset(a, 0, sizeof *a);
	a->min = util_xmalloc(qminlen ? qminlen : 1);
	memcpy(a->min, qmin, qminlen);
	a->minlen = qminlen;
	if (qmax) {
		a->max = util_xmalloc(qmaxlen ? qmaxlen : 1);
		memcpy(a->max, qmax, qmaxlen);
		a->maxlen = qmaxlen;
	}
	return kv_filter_custom(&gslice_vt, a);
}

static void group_open_iter(sql_op *op, group_state *g)
{
	const sql_plan *pp = op->plan->group.parent;
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = op->ex->read_ts;
	kv_filter_free(g->slice);
	util_arena *fa = ty_set_arena(g->arena);
	g->slice = group_filter(op->ex, op->plan->group.child, g->cs.rel);
	ty_set_arena(fa);
	so.read.filter = g->slice;
	if (pp->scan.nranges) {
		const keyrange *kr = &g->ps.ranges[g->cur];
		so.start = kr->start;
		so.start_len = kr->start_len;
		if (kr->point) {
			size_t sl;
			util_arena *old = ty_set_arena(g->arena);
			so.stop = key_succ(kr->start, kr->start_len, &sl);
			ty_set_arena(old);
			so.stop_len = so.stop ? sl : 0;
		} else {
			so.stop = kr->stop;
			so.stop_len = kr->stop ? kr->stop_len : 0;
		}
	}
	sql_txn_note_read(op->ex->txn, g->ps.rel->storage, so.start, so.start_len, so.stop, so.stop_len,
			  false);
	g->it = kv_scan(g->ps.kv, &so);
	if (kv_iter_status(g->it) != KV_OK)
		sql_kv_error(kv_iter_status(g->it), "scanning a table");
}

/* Reads the parent's cells at the start of a kv row: the group's parent row
 * if it exists and passes the parent scan's filter. */
static void group_parent(sql_op *op, group_state *g, const kv_cell *c)
{
	const sql_plan *pp = op->plan->group.parent;
	util_buf_reset(&g->rowkey);
	util_buf_append(&g->rowkey, c->row.data, c->row.len);
	util_arena *old = ty_set_arena(g->garena);
	ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(g->ps.rel->ncols + 1));
	row_build rb = {g->ps.rel, &g->ps.map, pp->scan.needed, row, false, false};
	rb_start(&rb, c);
	for (;;) {
		if (c->family.len != 1 || c->family.data[0] != SQL_FAMILY[0])
			break; /* the children's family follows */
		rb_cell(&rb, c);
		kv_iter_next(g->it);
		if (!kv_iter_valid(g->it))
			break;
		c = kv_iter_cell(g->it);
		if (c->row.len != g->rowkey.len || memcmp(c->row.data, g->rowkey.data, g->rowkey.len) != 0)
			break;
	}
	rb_finish(&rb);
	g->prow = rb.exists && sql_eval_qual(op->ex, pp->qual, row) ? row : NULL;
	ty_set_arena(old);
	g->in_group = true;
}

static bool in_ranges(const scan_state *st, const sql_plan *sp, const uint8_t *k, size_t n)
{
	if (!sp->scan.nranges)
		return true;
	for (int i = 0; i < st->nranges; i++) {
		const keyrange *kr = &st->ranges[i];
		if (kcmp(k, n, kr->start, kr->start_len) < 0)
			continue;
		if (kr->point ? kcmp(k, n, kr->start, kr->start_len) >= 0 && kr->start_len <= n &&
				    !memcmp(k, kr->start, kr->start_len)
			      : !kr->stop || kcmp(k, n, kr->stop, kr->stop_len) < 0)
			return true;
	}
	return false;
}

static sql_batch *group_next(sql_op *op)
{
	group_state *g = op->state;
	if (g->fallback)
		return sql_op_next(g->fallback);
	const sql_plan *p = op->plan;
	const sql_plan *cp = p->group.child;
	const cat_rel *cr = g->cs.rel;
	int pl = g->ps.rel->ncols + 1;
	int nranges = p->group.parent->scan.nranges ? g->ps.nranges : 1;
	/* Rows handed out in the last batch reference parent rows in garena;
	 * they are done with now. Keep the current group's parent in the
	 * other arena and recycle this one. */
	util_arena_reset(g->garena2);
	if (g->prow) {
		util_arena *old = ty_set_arena(g->garena2);
		ty_datum *copy = ty_alloc(sizeof(ty_datum) * (size_t)pl);
		for (int i = 0; i < pl - 1; i++) {
			const ty_type *ty = ty_type_get(g->ps.rel->cols[i].type);
			copy[i] = ty_datum_copy(g->prow[i], ty ? ty->byval : true);
		}
		copy[pl - 1] = ty_datum_copy(g->prow[pl - 1], false);
		g->prow = copy;
		ty_set_arena(old);
	}
	util_arena *swap = g->garena;
	g->garena = g->garena2;
	g->garena2 = swap;
	sql_batch *b = sql_op_begin_batch(op);
	while (b->n < b->cap) {
		if (!g->started) {
			if (g->cur >= nranges)
				break;
			group_open_iter(op, g);
			g->started = true;
			g->in_group = false;
		}
		if (!kv_iter_valid(g->it)) {
			if (kv_iter_status(g->it) != KV_OK)
				sql_kv_error(kv_iter_status(g->it), "scanning a table");
			kv_iter_close(g->it);
			g->it = NULL;
			g->started = false;
			g->cur++;
			continue;
		}
		const kv_cell *c = kv_iter_cell(g->it);
		if (!g->in_group || c->row.len != g->rowkey.len ||
		    memcmp(c->row.data, g->rowkey.data, g->rowkey.len) != 0) {
			group_parent(op, g, c);
			continue;
		}
		size_t plen = ilv_prefix_len(cr, (const uint8_t *)c->qualifier.data, c->qualifier.len);
		if (plen == 0 || !g->prow) {
			kv_iter_next(g->it); /* another table's cell, or a group without its parent */
			continue;
		}
		util_buf_reset(&g->idbuf);
		util_buf_append(&g->idbuf, c->row.data, c->row.len);
		util_buf_append(&g->idbuf, c->qualifier.data, plen);
		const uint8_t *id = (const uint8_t *)g->idbuf.data;
		size_t idlen = g->idbuf.len, rowlen = c->row.len;
		ty_datum *out = sql_batch_row(b, b->n);
		ty_datum *crow = out + (p->group.parent_left ? pl : 0);
		row_build rb = {cr, &g->cs.map, cp->scan.needed, crow, false, false};
		rb_start_key(&rb, id, idlen);
		for (;;) {
			rb_ilv_cell(&rb, (const uint8_t *)c->qualifier.data + plen, c->qualifier.len - plen,
				    c);
			kv_iter_next(g->it);
			if (!kv_iter_valid(g->it))
				break;
			c = kv_iter_cell(g->it);
			if (c->row.len != rowlen || memcmp(c->row.data, id, rowlen) != 0 ||
			    c->qualifier.len < plen || memcmp(c->qualifier.data, id + rowlen, plen) != 0)
				break;
		}
		rb_finish(&rb);
		if (!rb.exists || !in_ranges(&g->cs, cp, id, idlen) || !sql_eval_qual(op->ex, cp->qual, crow))
			continue;
		memcpy(out + (p->group.parent_left ? 0 : cr->ncols + 1), g->prow,
		       sizeof(ty_datum) * (size_t)pl);
		if (sql_eval_qual(op->ex, p->group.join->join.joinqual, out))
			b->n++;
		ty_check_interrupts();
	}
	return b;
}

static void group_close(sql_op *op)
{
	group_state *g = op->state;
	if (g->it)
		kv_iter_close(g->it);
	g->it = NULL;
	kv_filter_free(g->slice);
	g->slice = NULL;
	if (g->ps.kv)
		kv_table_close(g->ps.kv);
	g->ps.kv = NULL;
	util_arena_destroy(g->arena);
	util_arena_destroy(g->garena);
	util_arena_destroy(g->garena2);
	g->arena = g->garena = g->garena2 = NULL;
	util_buf_free(&g->rowkey);
	util_buf_free(&g->idbuf);
	util_buf_free(&g->ps.keybuf);
	util_buf_free(&g->cs.keybuf);
}

static void group_rescan(sql_op *op)
{
	group_state *g = op->state;
	if (g->fallback) {
		sql_op_rescan(g->fallback);
		return;
	}
	group_close(op);
	memset(g, 0, sizeof *g);
	op->opened = false;
}

sql_op *sql_op_groupjoin(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(group_state));
	op->open = group_open;
	op->next = group_next;
	op->close = group_close;
	op->rescan = group_rescan;
	return op;
}

/* ---------------------------------------------------------------- parallel scans */

/* A big scan (plan_order.c sets scan.parallel) runs on worker threads. Its
 * work is a list of streams, each a list of key ranges read in scan order:
 * one range cut at the store's split points (a stream per piece), or the
 * ranges of a salted table (a stream per bucket). Workers build rows and
 * apply the scan's filter with executors of their own.
 * - Unordered (the plain operator): each worker takes streams one after
 *   the other and hands full batches to the operator through one queue;
 *   the operator returns them in whatever order they come.
 * - Ordered (SQL_SALT_STREAMS, driven by the salted merge in exec_salt.c):
 *   worker w serves the streams s with s % nworkers == w, a batch at a
 *   time each, into queues of their own (at most STREAM_QUEUE batches per
 *   stream, the one the merge holds included); the merge takes each
 *   bucket's batches in order with sql_scan_stream_next.
 * A worker's error ends the scan with that error; closing the operator
 * stops the workers. */

#define PAR_QUEUE    4 /* batches in flight per worker (unordered) */
#define STREAM_QUEUE 3 /* batches per ordered stream: held by the merge, ready, being filled */

typedef struct par_batch {
	util_arena *arena;
	ty_datum *rows;
	int n;
	struct par_batch *next;
} par_batch;

typedef struct par_scan par_scan;

typedef struct par_slice {
	const uint8_t *start, *stop; /* NULL: open */
	size_t start_len, stop_len;
} par_slice;

typedef struct par_stream {
	int first, n; /* its slices: ps->slices[first .. first + n), in key order */
	/* the worker's while it reads the stream */
	int cur;     /* slices opened so far */
	kv_iter *it; /* the current slice's, on worker `worker`'s table */
	int worker;
	int64_t left; /* rows still wanted (a pushed-down LIMIT), -1: all */
	/* ordered: under ps->mu */
	par_batch *ready, *ready_tail;
	int inflight; /* batches of this stream not yet back in the free list */
	bool done;    /* its last batch is queued */
	par_batch *held;
	sql_batch view; /* the held batch as the merge sees it */
} par_stream;

typedef struct par_worker {
	par_scan *ps;
	pthread_t th;
	bool started;
	int idx;
} par_worker;

struct par_scan {
	pthread_mutex_t mu;
	pthread_cond_t cv_ready, cv_free;
	par_batch *ready, *ready_tail;
	par_batch *free_list;
	int nbatches, max_batches;
	int active;
	int next_stream; /* unordered: the next stream nobody took */
	bool stop, failed;
	util_err err;
	par_batch *held; /* the batch the operator's last output points into */
	int nworkers;
	par_worker *w;
	/* read-only for the workers */
	sql_op *op;
	const cat_rel *rel;
	const sql_rowmap *map;
	int width;
	bool ordered, reverse;
	const sql_par_sink *sink; /* or NULL: rows go through the queue */
	par_slice *slices;
	par_stream *streams;
	int nstreams;
};

static par_batch *new_batch(par_scan *ps)
{
	par_batch *b = util_xcalloc(1, sizeof *b);
	b->arena = util_arena_new(64 * 1024, 0);
	b->rows = util_xmalloc(sizeof(ty_datum) * (size_t)ps->width * SQL_BATCH_ROWS);
	return b;
}

static par_batch *par_get_free(par_scan *ps)
{
	pthread_mutex_lock(&ps->mu);
	for (;;) {
		if (ps->stop) {
			pthread_mutex_unlock(&ps->mu);
			return NULL;
		}
		if (ps->free_list) {
			par_batch *b = ps->free_list;
			ps->free_list = b->next;
			pthread_mutex_unlock(&ps->mu);
			util_arena_reset(b->arena);
			b->n = 0;
			return b;
		}
		if (ps->nbatches < ps->max_batches) {
			ps->nbatches++;
			pthread_mutex_unlock(&ps->mu);
			return new_batch(ps);
		}
		pthread_cond_wait(&ps->cv_free, &ps->mu);
	}
}

static void par_put_ready(par_scan *ps, par_batch *b)
{
	pthread_mutex_lock(&ps->mu);
	b->next = NULL;
	if (ps->ready_tail)
		ps->ready_tail->next = b;
	else
		ps->ready = b;
	ps->ready_tail = b;
	pthread_cond_signal(&ps->cv_ready);
	pthread_mutex_unlock(&ps->mu);
}

static void par_put_free(par_scan *ps, par_batch *b)
{
	pthread_mutex_lock(&ps->mu);
	b->next = ps->free_list;
	ps->free_list = b;
	/* One batch back wakes one waiter: only unordered workers wait in
	 * par_get_free, any of them can take it (a broadcast woke every
	 * worker for each batch the operator returned, and all but one went
	 * back to sleep: 3-10% more server CPU on parallel full scans). */
	pthread_cond_signal(&ps->cv_free);
	pthread_mutex_unlock(&ps->mu);
}

/* Reads rows of stream s into b (whose arena is the current one) until b
 * is full, or SCAN_FLUSH_ROWS rows were read and b holds some (rows the
 * filter drops leave their key and values in the arena, which is emptied
 * instead when b holds none), or the stream ends: then true, its iterator
 * closed. */
static bool stream_fill(par_worker *w, sql_exec *wex, kv_table *kv, kv_filter *f, par_stream *s, par_batch *b)
{
	par_scan *ps = w->ps;
	const sql_plan *p = ps->op->plan;
	scan_state *st = ps->op->state;
	unsigned since_flush = 0, ticks = 0;
	rb_raw raw;
	row_build rb = {ps->rel, ps->map,   p->scan.needed, NULL, false, false,
			0,       st->early, st->rest,       &raw, 0};
	raw.n = 0;
	raw.used = 0;
	raw.key_here = false;
	rb.pre = st->pre; /* workers never run with the transaction's own writes */
	for (;;) {
		if (s->it && (s->left == 0 || !kv_iter_valid(s->it))) {
			kv_status ks = kv_iter_status(s->it);
			kv_iter_close(s->it);
			s->it = NULL;
			if (ks != KV_OK)
				sql_kv_error(ks, "scanning a table");
		}
		if (!s->it) {
			if (s->cur == s->n || s->left == 0)
				return true;
			const par_slice *sl =
			    &ps->slices[s->first + (ps->reverse ? s->n - 1 - s->cur : s->cur)];
			s->cur++;
			kv_scan_opts so;
			memset(&so, 0, sizeof so);
			so.read.read_ts = wex->read_ts;
			so.read.columns = st->cols;
			so.read.ncolumns = st->ncols_read;
			so.read.no_cache = true;
			so.read.cache_small = true; /* a table that fits stays cached */
			so.read.filter = f;
			so.start = sl->start;
			so.start_len = sl->start_len;
			so.stop = sl->stop;
			so.stop_len = sl->stop ? sl->stop_len : 0;
			so.reverse = ps->reverse;
			if (s->left > 0 && !p->qual)
				so.limit = (uint64_t)s->left; /* every row read is a result row */
			if (s->worker != w->idx) {
				/* Under mu: the other workers' exits read it (par_worker_main). */
				pthread_mutex_lock(&ps->mu);
				s->worker = w->idx;
				pthread_mutex_unlock(&ps->mu);
			}
			s->it = kv_scan(kv, &so);
			if (kv_iter_status(s->it) != KV_OK)
				sql_kv_error(kv_iter_status(s->it), "scanning a table");
			continue;
		}
		pre_skip(s->it, rb.pre, st->cellmask, st->cellmask_bits, &ticks);
		if (!kv_iter_valid(s->it))
			continue;
		const kv_cell *c = kv_iter_cell(s->it);
		ty_datum *row = b->rows + (size_t)b->n * (size_t)ps->width;
		rb.out = row;
		rb_start_filtered(&rb, c);
		kv_iter_row_sel(s->it, st->cellmask, st->cellmask_bits, rb_cell_fn, &rb);
		bool pre_drop = rb_pre_drops(&rb);
		if (!pre_drop)
			rb_finish(&rb);
		if (!pre_drop && rb.exists && sql_eval_qual(wex, p->qual, row)) {
			rb_rest(&rb);
			b->n++;
			if (s->left > 0)
				s->left--;
		} else {
			rb_drop(&rb);
		}
		if ((++ticks & 255) == 0)
			ty_check_interrupts();
		if (b->n == SQL_BATCH_ROWS)
			return false;
		if (++since_flush == SCAN_FLUSH_ROWS) {
			if (b->n)
				return false;
			util_arena_reset(b->arena);
			since_flush = 0;
		}
	}
}

/* Unordered: streams taken one after the other; batches to the shared
 * queue, or to the sink (partial aggregation). */
static void par_run_unordered(par_worker *w, sql_exec *wex, kv_table *kv, kv_filter *f)
{
	par_scan *ps = w->ps;
	par_batch *volatile b =
	    NULL; /* being filled; back to the free list on an error (volatile: longjmp) */
	const sql_par_sink *sink = ps->sink;
	util_arena *warena = ty_get_arena();
	void *volatile ws = NULL; /* the sink's state of this worker (volatile: longjmp) */
	TY_TRY(tc)
	{
		/* With a sink the worker keeps one batch and hands each full one
		 * to the sink (partial aggregation) instead of the queue. */
		if (sink)
			ws = sink->begin(sink->arg, wex);
		for (;;) {
			pthread_mutex_lock(&ps->mu);
			int si = ps->stop || ps->next_stream >= ps->nstreams ? -1 : ps->next_stream++;
			pthread_mutex_unlock(&ps->mu);
			if (si < 0)
				break;
			bool end = false;
			while (!end) {
				if (!b) {
					b = par_get_free(ps);
					if (!b)
						break;
					ty_set_arena(b->arena);
				}
				end = stream_fill(w, wex, kv, f, &ps->streams[si], b);
				if (!b->n)
					continue;
				if (sink) {
					sink->rows(ws, b->rows, b->n, ps->width);
					util_arena_reset(b->arena);
					b->n = 0;
				} else {
					par_put_ready(ps, b);
					b = NULL;
				}
			}
			if (!end)
				break; /* stopped */
		}
		if (sink) {
			ty_set_arena(warena);
			pthread_mutex_lock(&ps->mu);
			bool stopping = ps->stop;
			pthread_mutex_unlock(&ps->mu);
			void *w1 = ws;
			ws = NULL; /* end() frees it even if the merge fails */
			sink->end(sink->arg, w1, !stopping);
		}
		if (b)
			par_put_free(ps, b);
		b = NULL;
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (b)
			par_put_free(ps, b);
		pthread_mutex_lock(&ps->mu);
		if (!ps->failed) {
			ps->failed = true;
			memcpy(&ps->err, ty_err(), sizeof ps->err);
		}
		pthread_mutex_unlock(&ps->mu);
		if (ws) {
			ty_set_arena(warena);
			sink->end(sink->arg, ws, false);
		}
	}
	TY_END(tc);
}

/* Ordered: the worker's streams, a batch at a time each, while their
 * queues have room; it sleeps when none has. */
static void par_run_ordered(par_worker *w, sql_exec *wex, kv_table *kv, kv_filter *f)
{
	par_scan *ps = w->ps;
	par_batch *volatile b = NULL;
	/* Its streams are idx, idx + nworkers, ...: m of them, served round
	 * robin from the one after the last served. */
	int m = (ps->nstreams - w->idx + ps->nworkers - 1) / ps->nworkers;
	volatile int next = 0;
	TY_TRY(tc)
	{
		for (;;) {
			pthread_mutex_lock(&ps->mu);
			par_stream *s = NULL;
			while (!ps->stop) {
				bool live = false;
				for (int j = 0; j < m && !s; j++) {
					int jj = (next + j) % m;
					par_stream *c = &ps->streams[w->idx + jj * ps->nworkers];
					if (c->done)
						continue;
					live = true;
					if (c->inflight < STREAM_QUEUE) {
						s = c;
						next = jj + 1;
					}
				}
				if (s || !live)
					break;
				pthread_cond_wait(&ps->cv_free, &ps->mu);
			}
			if (!s) {
				pthread_mutex_unlock(&ps->mu);
				break;
			}
			s->inflight++;
			b = ps->free_list;
			if (b)
				ps->free_list = b->next;
			pthread_mutex_unlock(&ps->mu);
			if (b) {
				util_arena_reset(b->arena);
				b->n = 0;
			} else {
				b = new_batch(ps);
			}
			ty_set_arena(b->arena);
			bool end = stream_fill(w, wex, kv, f, s, b);
			pthread_mutex_lock(&ps->mu);
			if (b->n) {
				b->next = NULL;
				if (s->ready_tail)
					s->ready_tail->next = b;
				else
					s->ready = b;
				s->ready_tail = b;
			} else {
				b->next = ps->free_list;
				ps->free_list = b;
				s->inflight--;
			}
			b = NULL;
			s->done = end;
			pthread_cond_broadcast(&ps->cv_ready);
			pthread_mutex_unlock(&ps->mu);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pthread_mutex_lock(&ps->mu);
		if (b) {
			b->next = ps->free_list;
			ps->free_list = b;
		}
		if (!ps->failed) {
			ps->failed = true;
			memcpy(&ps->err, ty_err(), sizeof ps->err);
		}
		pthread_mutex_unlock(&ps->mu);
	}
	TY_END(tc);
}

static void *par_worker_main(void *arg)
{
	par_worker *w = arg;
	par_scan *ps = w->ps;
	sql_exec *ex = ps->op->ex;
	sql_session_enter_thread(ex->s);
	util_arena *a = util_arena_new(16 * 1024, 0);
	ty_set_arena(a);
	kv_table *kv = NULL;
	kv_filter *f = own_cells_filter(ps->rel);
	TY_TRY(tc)
	{
		sql_exec *wex = sql_exec_new(ex->s, ex->pl, a, ex->params, ex->nparams);
		wex->read_ts = ex->read_ts;
		wex->cat = ex->cat;
		wex->txn = NULL; /* no locks, no own writes (not planned with either) */
		kv_status s = kv_table_open(ex->s->e->kv, ps->rel->storage, &kv);
		if (s != KV_OK)
			sql_kv_error(s, "opening a table");
		if (ps->ordered)
			par_run_ordered(w, wex, kv, f);
		else
			par_run_unordered(w, wex, kv, f);
		sql_exec_close(wex);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pthread_mutex_lock(&ps->mu);
		if (!ps->failed) {
			ps->failed = true;
			memcpy(&ps->err, ty_err(), sizeof ps->err);
		}
		pthread_mutex_unlock(&ps->mu);
	}
	TY_END(tc);
	/* Iterators this worker left open (an error, a stop) are on its table.
	 * Only this worker's streams' it is read: another worker may be
	 * writing its own (a data race TSan found when it was read first). */
	for (int i = 0; i < ps->nstreams; i++) {
		pthread_mutex_lock(&ps->mu);
		bool mine = ps->streams[i].worker == w->idx;
		pthread_mutex_unlock(&ps->mu);
		if (mine && ps->streams[i].it) {
			kv_iter_close(ps->streams[i].it);
			ps->streams[i].it = NULL;
		}
	}
	kv_filter_free(f);
	if (kv)
		kv_table_close(kv);
	ty_set_arena(NULL);
	util_arena_destroy(a);
	pthread_mutex_lock(&ps->mu);
	ps->active--;
	pthread_cond_broadcast(&ps->cv_ready);
	pthread_mutex_unlock(&ps->mu);
	return NULL;
}

/* Starts the workers if the scan can run in parallel now; false to scan
 * serially (own writes, no split points, one slice only). */
static bool par_start(sql_op *op, scan_state *st)
{
	const sql_plan *p = op->plan;
	bool buckets = st->salt == SQL_SALT_ALL || st->salt == SQL_SALT_STREAMS;
	if (!p->scan.parallel || st->has_writes || st->ilv || (st->salt && !buckets) ||
	    (!buckets && p->scan.nranges && st->nranges != 1))
		return false;
	par_slice *slices;
	par_stream *streams;
	int nstreams, nworkers;
	if (buckets) {
		/* A stream per bucket, its ranges in key order. */
		for (int i = 0; i < st->nranges; i++)
			if (st->ranges[i].point)
				return false;
		int nb = st->rel->salt_buckets, live = 0;
		slices = ty_alloc(sizeof(par_slice) * (size_t)(st->nranges ? st->nranges : 1));
		for (int i = 0; i < st->nranges; i++) {
			const keyrange *kr = &st->ranges[i];
			slices[i] =
			    (par_slice){kr->start, kr->stop, kr->start_len, kr->stop ? kr->stop_len : 0};
		}
		streams = util_xcalloc((size_t)nb, sizeof(par_stream));
		for (int b = 0; b < nb; b++) {
			streams[b].first = st->bucket_first[b];
			streams[b].n = st->bucket_first[b + 1] - st->bucket_first[b];
			live += streams[b].n > 0;
		}
		if (!live) {
			free(streams);
			return false;
		}
		nstreams = nb;
		nworkers = p->scan.parallel + 1 < live ? p->scan.parallel + 1 : live;
	} else {
		/* One range (or the table) cut at the store's split points. */
		const uint8_t *start = NULL, *stop = NULL;
		size_t start_len = 0, stop_len = 0;
		if (p->scan.nranges) {
			start = st->ranges[0].start;
			start_len = st->ranges[0].start_len;
			stop = st->ranges[0].stop;
			stop_len = stop ? st->ranges[0].stop_len : 0;
		}
		int want = p->scan.parallel + 1;
		kv_slice *pts = ty_alloc(sizeof(kv_slice) * (size_t)want);
		int npts = 0;
		if (kv_split_points(st->kv, start, start_len, stop, stop_len, want, st->range_arena, pts,
				    &npts) != KV_OK ||
		    npts == 0)
			return false;
		nstreams = nworkers = npts + 1;
		slices = ty_alloc(sizeof(par_slice) * (size_t)nstreams);
		streams = util_xcalloc((size_t)nstreams, sizeof(par_stream));
		for (int i = 0; i < nstreams; i++) {
			slices[i].start = i == 0 ? start : (const uint8_t *)pts[i - 1].data;
			slices[i].start_len = i == 0 ? start_len : pts[i - 1].len;
			slices[i].stop = i == nstreams - 1 ? stop : (const uint8_t *)pts[i].data;
			slices[i].stop_len = i == nstreams - 1 ? stop_len : pts[i].len;
			streams[i].first = i;
			streams[i].n = 1;
		}
	}
	for (int i = 0; i < nstreams; i++) {
		streams[i].left = st->left;
		streams[i].worker = -1;
		for (int k = 0; k < streams[i].n; k++) {
			const par_slice *sl = &slices[streams[i].first + k];
			sql_txn_note_read(op->ex->txn, st->rel->storage, sl->start, sl->start_len, sl->stop,
					  sl->stop_len, false);
		}
	}
	par_scan *ps = util_xcalloc(1, sizeof *ps);
	pthread_mutex_init(&ps->mu, NULL);
	pthread_cond_init(&ps->cv_ready, NULL);
	pthread_cond_init(&ps->cv_free, NULL);
	ps->op = op;
	ps->rel = st->rel;
	ps->map = &st->map;
	ps->width = st->rel->ncols + 1;
	ps->ordered = st->salt == SQL_SALT_STREAMS;
	ps->reverse = st->reverse;
	ps->sink = ps->ordered ? NULL : st->sink;
	ps->slices = slices;
	ps->streams = streams;
	ps->nstreams = nstreams;
	ps->nworkers = nworkers;
	ps->max_batches = PAR_QUEUE * ps->nworkers + 1;
	ps->w = util_xcalloc((size_t)ps->nworkers, sizeof(par_worker));
	for (int i = 0; i < ps->nworkers; i++) {
		ps->w[i].ps = ps;
		ps->w[i].idx = i;
	}
	for (int i = 0; i < nstreams; i++) {
		streams[i].view.ncols = ps->width;
		streams[i].view.cap = SQL_BATCH_ROWS;
	}
	st->par = ps;
	for (int i = 0; i < ps->nworkers; i++) {
		ps->active++;
		if (pthread_create(&ps->w[i].th, NULL, par_worker_main, &ps->w[i]) != 0) {
			ps->active--;
			ps->failed = true;
			util_err_set(&ps->err, UTIL_E_INSUFFICIENT_RESOURCES,
				     "could not start a parallel worker");
			break;
		}
		ps->w[i].started = true;
		st->launched++;
	}
	return true;
}

/* Waits (checking interrupts) until ready() holds or a worker failed;
 * called and returns with ps->mu held. Throws a worker's error. */
static void par_wait(par_scan *ps, bool (*ready)(par_scan *, int), int arg)
{
	for (;;) {
		if (ps->failed || ready(ps, arg))
			break;
		pthread_mutex_unlock(&ps->mu);
		ty_check_interrupts(); /* a cancel reaches the workers the same way */
		pthread_mutex_lock(&ps->mu);
		if (ps->failed || ready(ps, arg))
			break;
		struct timespec ts = util_deadline_us(100 * 1000);
		pthread_cond_timedwait(&ps->cv_ready, &ps->mu, &ts);
	}
	if (ps->failed) {
		util_err e;
		memcpy(&e, &ps->err, sizeof e);
		pthread_mutex_unlock(&ps->mu);
		ty_throw(&e);
	}
}

static bool any_ready(par_scan *ps, int arg)
{
	(void)arg;
	return ps->ready || ps->active == 0;
}

static sql_batch *par_next(sql_op *op, scan_state *st)
{
	par_scan *ps = st->par;
	if (ps->held) {
		par_put_free(ps, ps->held);
		ps->held = NULL;
	}
	sql_batch *b = sql_op_begin_batch(op);
	pthread_mutex_lock(&ps->mu);
	par_wait(ps, any_ready, 0);
	par_batch *pb = ps->ready;
	if (pb) {
		ps->ready = pb->next;
		if (!ps->ready)
			ps->ready_tail = NULL;
	}
	pthread_mutex_unlock(&ps->mu);
	if (!pb)
		return b; /* every worker is done */
	memcpy(b->vals, pb->rows, sizeof(ty_datum) * (size_t)ps->width * (size_t)pb->n);
	b->n = pb->n;
	ps->held = pb; /* its rows live in pb->arena until the next call */
	return b;
}

static bool stream_ready(par_scan *ps, int i)
{
	const par_stream *s = &ps->streams[i];
	return s->ready || s->done || ps->active == 0;
}

bool sql_scan_streams_open(sql_op *scan)
{
	scan_state *st = scan->state;
	if (!scan->opened) {
		scan->opened = true;
		scan->loops++;
		scan->open(scan);
	}
	return st->par != NULL;
}

sql_batch *sql_scan_stream_next(sql_op *scan, int i)
{
	scan_state *st = scan->state;
	par_scan *ps = st->par;
	par_stream *s = &ps->streams[i];
	pthread_mutex_lock(&ps->mu);
	if (s->held) {
		s->held->next = ps->free_list;
		ps->free_list = s->held;
		s->held = NULL;
		s->inflight--;
		pthread_cond_broadcast(&ps->cv_free);
	}
	par_wait(ps, stream_ready, i);
	par_batch *pb = s->ready;
	if (pb) {
		s->ready = pb->next;
		if (!s->ready)
			s->ready_tail = NULL;
	}
	pthread_mutex_unlock(&ps->mu);
	s->held = pb;
	s->view.n = pb ? pb->n : 0;
	s->view.vals = pb ? pb->rows : NULL;
	s->view.arena = pb ? pb->arena : NULL;
	return &s->view;
}

/* Salted merges are other operators (exec_salt.c): the functions below
 * leave them alone (a sink needs an unordered scan). */
static bool is_plain_scan(const sql_op *op)
{
	return op && op->next == scan_next && op->state;
}

void sql_scan_set_sink(sql_op *scan, const sql_par_sink *sink)
{
	if (is_plain_scan(scan))
		((scan_state *)scan->state)->sink = sink;
}

int sql_scan_workers_launched(sql_op *scan)
{
	return is_plain_scan(scan) ? ((scan_state *)scan->state)->launched : sql_salt_workers_launched(scan);
}

void sql_scan_stop_workers(sql_op *scan)
{
	if (is_plain_scan(scan))
		par_stop(scan->state);
}

/* Frees a list of batches (one alone). */
static void par_free_list(par_batch *b, bool one)
{
	for (par_batch *n; b; b = n) {
		n = one ? NULL : b->next;
		util_arena_destroy(b->arena);
		free(b->rows);
		free(b);
	}
}

static void par_stop(scan_state *st)
{
	par_scan *ps = st->par;
	if (!ps)
		return;
	pthread_mutex_lock(&ps->mu);
	ps->stop = true;
	pthread_cond_broadcast(&ps->cv_free);
	pthread_mutex_unlock(&ps->mu);
	for (int i = 0; i < ps->nworkers; i++)
		if (ps->w[i].started)
			pthread_join(ps->w[i].th, NULL);
	par_batch *lists[3] = {ps->ready, ps->free_list, ps->held};
	for (int l = 0; l < 3; l++)
		par_free_list(lists[l], l == 2);
	for (int i = 0; i < ps->nstreams; i++) {
		par_free_list(ps->streams[i].ready, false);
		par_free_list(ps->streams[i].held, true);
	}
	free(ps->streams);
	pthread_mutex_destroy(&ps->mu);
	pthread_cond_destroy(&ps->cv_ready);
	pthread_cond_destroy(&ps->cv_free);
	free(ps->w);
	free(ps);
	st->par = NULL;
}
