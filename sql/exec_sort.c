/*
 * exec_sort.c — ORDER BY: rows are copied into the operator's memory with
 * their sort keys evaluated once, sorted by the keys' btree order (NULLS
 * FIRST/LAST, DESC), and emitted. A LIMIT above bounds the sort (top-N
 * keeps only the best N rows in a heap). Past work_mem, sorted runs go to
 * temporary files and are merged (external sort, 64 runs per merge pass).
 * Also the shared row comparator.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);


typedef struct srow {
	ty_datum *vals;
	ty_datum *keys;
	uint64_t seq; /* input order, to make the sort stable */
} srow;

int sql_sortkey_cmp(const sql_sortkey *k, ty_datum a, ty_datum b)
{
	if (a.null || b.null) {
		if (a.null && b.null)
			return 0;
		/* NULL is larger than any value; NULLS FIRST flips that. */
		int c = a.null ? 1 : -1;
		return k->nulls_first ? -c : c;
	}
	int c = k->type->cmp(a, b);
	return k->desc ? -c : c;
}

typedef struct sort_ctx {
	const sql_sortkey *keys;
	int nkeys;
} sort_ctx;

static int srow_cmp(const void *a, const void *b, void *arg)
{
	const sort_ctx *sc = arg;
	const srow *x = a, *y = b;
	for (int i = 0; i < sc->nkeys; i++) {
		const sql_sortkey *k = &sc->keys[i];
		int c;
		ty_datum p = x->keys[i], q = y->keys[i];
		if (p.null || q.null) {
			if (p.null && q.null)
				continue;
			c = p.null ? 1 : -1;
			if (k->nulls_first)
				c = -c;
			return c;
		}
		c = k->type->cmp(p, q);
		if (c)
			return k->desc ? -c : c;
	}
	return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef struct sort_run {
	sql_spill *f;
	util_arena *arena; /* its current row */
	ty_datum *cur;     /* vals ++ keys, NULL when exhausted */
} sort_run;

typedef struct sort_state {
	util_arena *arena;
	srow *rows;
	size_t n, cap;
	size_t pos;
	bool sorted;
	int64_t limit;     /* top-N bound, -1 = none */
	size_t held;       /* accounted memory */
	/* external sort: sorted runs in temporary files, merged at the end */
	bool spillable;
	ty_oid *rtypes;    /* types of a run row: the columns, then the keys */
	sort_run *runs;
	int nruns, capruns;
	int *heap;         /* merge: run indexes, smallest current row first */
	int nheap;
	bool merging;
} sort_state;

/* Merge fan-in: runs merged at once (more are merged in passes). */
#define SORT_FANIN 64

/* Max-heap on srow_cmp for top-N: the root is the worst kept row. */
static void sift_down(srow *h, size_t n, size_t i, sort_ctx *sc)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && srow_cmp(&h[l], &h[m], sc) > 0)
			m = l;
		if (r < n && srow_cmp(&h[r], &h[m], sc) > 0)
			m = r;
		if (m == i)
			return;
		srow t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(srow *h, size_t i, sort_ctx *sc)
{
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (srow_cmp(&h[i], &h[p], sc) <= 0)
			return;
		srow t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static size_t mem_now(sort_state *st) { return util_arena_used(st->arena) + st->cap * sizeof(srow); }

static void add_run(sort_state *st, sql_spill *f)
{
	if (st->nruns == st->capruns) {
		st->capruns = st->capruns ? st->capruns * 2 : 16;
		st->runs = util_xrealloc(st->runs, sizeof(sort_run) * (size_t)st->capruns);
	}
	st->runs[st->nruns++] = (sort_run){f, NULL, NULL};
}

/* Sorts the rows in memory and writes them out as one run. */
static void spill_run(sql_op *op, sort_state *st, sort_ctx *sc)
{
	const sql_plan *p = op->plan;
	int nc = p->ncols, nk = p->sort.nkeys;
	if (st->n > 1)
		qsort_r(st->rows, st->n, sizeof(srow), srow_cmp, sc);
	sql_spill *f = sql_spill_new();
	add_run(st, f);
	ty_datum *row = util_xmalloc(sizeof(ty_datum) * (size_t)(nc + nk + 1));
	for (size_t i = 0; i < st->n; i++) {
		memcpy(row, st->rows[i].vals, sizeof(ty_datum) * (size_t)nc);
		memcpy(row + nc, st->rows[i].keys, sizeof(ty_datum) * (size_t)nk);
		sql_spill_put(f, row, st->rtypes, nc + nk);
	}
	free(row);
	sql_spill_rewind(f);
	st->n = 0;
	util_arena_reset(st->arena);
	if ((st->nruns & 15) == 0)
		ty_check_interrupts();
}

/* Reads a run's next row into its arena; cur = NULL at its end. */
static void run_advance(sql_op *op, sort_state *st, sort_run *r)
{
	int w = op->plan->ncols + op->plan->sort.nkeys;
	if (!r->arena)
		r->arena = util_arena_new(16 * 1024, 0);
	util_arena_reset(r->arena);
	util_arena *old = ty_set_arena(r->arena);
	r->cur = ty_alloc(sizeof(ty_datum) * (size_t)(w ? w : 1));
	if (!sql_spill_get(r->f, r->cur, w))
		r->cur = NULL;
	ty_set_arena(old);
	(void)st;
}

static int run_cmp(sql_op *op, sort_state *st, int a, int b)
{
	const sql_plan *p = op->plan;
	sort_ctx sc = {p->sort.keys, p->sort.nkeys};
	srow x = {st->runs[a].cur, st->runs[a].cur + p->ncols, (uint64_t)a};
	srow y = {st->runs[b].cur, st->runs[b].cur + p->ncols, (uint64_t)b};
	return srow_cmp(&x, &y, &sc);
}

static void heap_down(sql_op *op, sort_state *st, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < st->nheap && run_cmp(op, st, st->heap[l], st->heap[m]) < 0)
			m = l;
		if (r < st->nheap && run_cmp(op, st, st->heap[r], st->heap[m]) < 0)
			m = r;
		if (m == i)
			return;
		int t = st->heap[i];
		st->heap[i] = st->heap[m];
		st->heap[m] = t;
		i = m;
	}
}

/* Starts merging runs [from, from + n). */
static void merge_start(sql_op *op, sort_state *st, int from, int n)
{
	st->heap = util_xrealloc(st->heap, sizeof(int) * (size_t)(n ? n : 1));
	st->nheap = 0;
	for (int i = from; i < from + n; i++) {
		run_advance(op, st, &st->runs[i]);
		if (st->runs[i].cur)
			st->heap[st->nheap++] = i;
	}
	for (int i = st->nheap / 2 - 1; i >= 0; i--)
		heap_down(op, st, i);
}

/* The smallest current row of the merge (NULL when done); advance with
 * merge_pop() once it has been used. */
static ty_datum *merge_top(sort_state *st) { return st->nheap ? st->runs[st->heap[0]].cur : NULL; }

static void merge_pop(sql_op *op, sort_state *st)
{
	sort_run *r = &st->runs[st->heap[0]];
	run_advance(op, st, r);
	if (!r->cur)
		st->heap[0] = st->heap[--st->nheap];
	if (st->nheap)
		heap_down(op, st, 0);
}

static void run_free(sort_run *r)
{
	sql_spill_free(r->f);
	util_arena_destroy(r->arena);
	memset(r, 0, sizeof *r);
}

/* Merges runs in passes of SORT_FANIN until one final merge remains
 * (earlier runs hold earlier input, so merged runs keep their place and the
 * sort stays stable). */
static void merge_passes(sql_op *op, sort_state *st)
{
	int w = op->plan->ncols + op->plan->sort.nkeys;
	while (st->nruns > SORT_FANIN) {
		merge_start(op, st, 0, SORT_FANIN);
		sql_spill *out = sql_spill_new();
		for (ty_datum *r; (r = merge_top(st));) {
			sql_spill_put(out, r, st->rtypes, w);
			merge_pop(op, st);
		}
		sql_spill_rewind(out);
		for (int i = 0; i < SORT_FANIN; i++)
			run_free(&st->runs[i]);
		st->runs[0] = (sort_run){out, NULL, NULL};
		memmove(st->runs + 1, st->runs + SORT_FANIN, sizeof(sort_run) * (size_t)(st->nruns - SORT_FANIN));
		st->nruns -= SORT_FANIN - 1;
		ty_check_interrupts();
	}
	merge_start(op, st, 0, st->nruns);
	st->merging = true;
}

static void load(sql_op *op, sort_state *st)
{
	const sql_plan *p = op->plan;
	int nk = p->sort.nkeys, nc = p->ncols;
	sort_ctx sc = {p->sort.keys, nk};
	size_t work_mem = sql_exec_work_mem(op->ex);
	st->limit = -1;
	if (p->sort.limit) {
		ty_datum d = sql_eval(op->ex, p->sort.limit, NULL);
		ty_datum o = p->sort.offset ? sql_eval(op->ex, p->sort.offset, NULL) : ty_int(0);
		/* The LIMIT node above applies OFFSET; keep offset + limit rows. */
		if (!d.null && d.i >= 0 && (o.null || o.i >= 0))
			st->limit = d.i + (o.null ? 0 : o.i);
	}
	if (!st->arena)
		st->arena = util_arena_new(256 * 1024, 0);
	sql_exec_charge(op->ex, st->arena);
	if (!st->rtypes) {
		st->rtypes = util_arena_alloc(op->ex->arena, sizeof(ty_oid) * (size_t)(nc + nk + 1));
		memcpy(st->rtypes, p->types, sizeof(ty_oid) * (size_t)nc);
		for (int k = 0; k < nk; k++)
			st->rtypes[nc + k] = p->sort.keys[k].type->oid;
		st->spillable = sql_spill_ok(st->rtypes, nc + nk);
	}
	util_arena *old = ty_get_arena();
	uint64_t seq = 0;
	for (;;) {
		sql_batch *b = sql_op_next(op->left);
		if (b->n == 0)
			break;
		ty_set_arena(st->arena);
		for (int i = 0; i < b->n; i++) {
			ty_datum *src = sql_batch_row(b, i);
			srow r;
			r.seq = seq++;
			r.keys = ty_alloc(sizeof(ty_datum) * (size_t)(nk ? nk : 1));
			for (int k = 0; k < nk; k++) {
				ty_datum d = sql_eval(op->ex, p->sort.keys[k].expr, src);
				/* Deeply: a record's fields may point into the input batch. */
				r.keys[k] = sql_datum_copy(d, p->sort.keys[k].type->oid);
			}
			if (st->limit >= 0 && st->n >= (size_t)st->limit + 0) {
				/* Top-N: replace the worst kept row if this one is better. */
				if (st->limit == 0 || srow_cmp(&r, &st->rows[0], &sc) >= 0)
					continue;
			}
			r.vals = ty_alloc(sizeof(ty_datum) * (size_t)(nc ? nc : 1));
			for (int c = 0; c < nc; c++) {
				r.vals[c] = sql_datum_copy(src[c], p->types[c]);
			}
			if (st->limit >= 0 && st->n >= (size_t)st->limit) {
				st->rows[0] = r;
				sift_down(st->rows, st->n, 0, &sc);
				continue;
			}
			if (st->n == st->cap) {
				st->cap = st->cap ? st->cap * 2 : 1024;
				st->rows = util_xrealloc(st->rows, sizeof(srow) * st->cap);
			}
			st->rows[st->n++] = r;
			if (st->limit >= 0)
				sift_up(st->rows, st->n - 1, &sc);
		}
		ty_set_arena(old);
		if (mem_now(st) > work_mem && st->spillable) {
			/* Beyond work_mem: a sorted run goes to a temporary file (a
			 * top-N sort that outgrows memory becomes a full sort). */
			st->limit = -1;
			spill_run(op, st, &sc);
		}
		sql_exec_account(op->ex, &st->held, mem_now(st));
		ty_check_interrupts();
	}
	ty_set_arena(old);
	if (st->nruns) {
		if (st->n)
			spill_run(op, st, &sc);
		sql_exec_account(op->ex, &st->held, mem_now(st));
		merge_passes(op, st);
	} else if (st->n > 1) {
		qsort_r(st->rows, st->n, sizeof(srow), srow_cmp, &sc); /* rows is NULL when nothing came in */
	}
	st->sorted = true;
	st->pos = 0;
}

static sql_batch *sort_next(sql_op *op)
{
	sort_state *st = op->state;
	if (!st->sorted)
		load(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	int nc = op->plan->ncols;
	if (st->merging) {
		/* Rows are copied into the batch: the run's row is reused. */
		for (ty_datum *r; b->n < b->cap && (r = merge_top(st));) {
			ty_datum *dst = sql_batch_row(b, b->n++);
			for (int c = 0; c < nc; c++) {
				dst[c] = sql_datum_copy(r[c], op->plan->types[c]);
			}
			merge_pop(op, st);
		}
		return b;
	}
	while (st->pos < st->n && b->n < b->cap) {
		memcpy(sql_batch_row(b, b->n), st->rows[st->pos].vals, sizeof(ty_datum) * (size_t)nc);
		b->n++;
		st->pos++;
	}
	return b;
}

static void sort_close(sql_op *op)
{
	sort_state *st = op->state;
	for (int i = 0; i < st->nruns; i++)
		run_free(&st->runs[i]);
	free(st->runs);
	free(st->heap);
	util_arena_destroy(st->arena);
	free(st->rows);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
	ty_oid *rtypes = st->rtypes;
	bool spillable = st->spillable;
	memset(st, 0, sizeof *st);
	st->rtypes = rtypes;
	st->spillable = spillable;
}

static void sort_rescan(sql_op *op)
{
	sort_close(op);
	sql_op_rescan(op->left);
}

sql_op *sql_op_sort(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(sort_state));
	op->next = sort_next;
	op->close = sort_close;
	op->rescan = sort_rescan;
	return op;
}
