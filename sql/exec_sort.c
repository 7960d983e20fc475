/*
 * exec_sort.c — ORDER BY: rows are copied into the operator's memory with
 * their sort keys evaluated once, sorted by the keys' btree order (NULLS
 * FIRST/LAST, DESC), and emitted. A LIMIT above bounds the sort (top-N
 * keeps only the best N rows in a heap). Also the shared row comparator.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

#define SORT_MEM_BUDGET ((size_t)2 << 30)

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

typedef struct sort_state {
	util_arena *arena;
	srow *rows;
	size_t n, cap;
	size_t pos;
	bool sorted;
	int64_t limit; /* top-N bound, -1 = none */
} sort_state;

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

static void load(sql_op *op, sort_state *st)
{
	const sql_plan *p = op->plan;
	int nk = p->sort.nkeys, nc = p->ncols;
	sort_ctx sc = {p->sort.keys, nk};
	st->limit = -1;
	if (p->sort.limit) {
		ty_datum d = sql_eval(op->ex, p->sort.limit, NULL);
		ty_datum o = p->sort.offset ? sql_eval(op->ex, p->sort.offset, NULL) : ty_int(0);
		/* The LIMIT node above applies OFFSET; keep offset + limit rows. */
		if (!d.null && d.i >= 0 && (o.null || o.i >= 0))
			st->limit = d.i + (o.null ? 0 : o.i);
	}
	if (!st->arena)
		st->arena = util_arena_new(256 * 1024, SORT_MEM_BUDGET);
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
				r.keys[k] = ty_datum_copy(d, p->sort.keys[k].type->byval);
			}
			if (st->limit >= 0 && st->n >= (size_t)st->limit + 0) {
				/* Top-N: replace the worst kept row if this one is better. */
				if (st->limit == 0 || srow_cmp(&r, &st->rows[0], &sc) >= 0)
					continue;
			}
			r.vals = ty_alloc(sizeof(ty_datum) * (size_t)(nc ? nc : 1));
			for (int c = 0; c < nc; c++) {
				const ty_type *t = ty_type_get(p->types[c]);
				r.vals[c] = ty_datum_copy(src[c], t ? t->byval : true);
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
		ty_check_interrupts();
	}
	ty_set_arena(old);
	if (st->n > 1) /* rows is NULL when nothing came in */
		qsort_r(st->rows, st->n, sizeof(srow), srow_cmp, &sc);
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
	util_arena_destroy(st->arena);
	free(st->rows);
	memset(st, 0, sizeof *st);
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
