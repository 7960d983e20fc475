/*
 * exec_salt.c — scans of salted tables (WITH (salt_buckets = N)): a row key
 * starts with a bucket byte (docs/key-encoding.md), so one key range of the
 * table is N ranges of the store, one per bucket. Each bucket is scanned by
 * its own table scan (exec_scan.c), and their rows are merged on the key
 * without its bucket byte, so the merged stream comes in the table's key
 * order (or its reverse) as a scan of an unsalted table would: ORDER BY,
 * LIMIT, first/last row and merge joins need no special case. (A parallel
 * scan that needs no order is an ordinary scan of the stored rows.)
 *
 * A big range (plan_order.c sets scan.parallel) is read by the parallel
 * scan workers instead: one scan operator (SQL_SALT_STREAMS) whose workers
 * fill a queue per bucket, which the merge reads as it would the bucket
 * scans. It falls back to the bucket scans when the workers cannot run
 * (the transaction's own writes to the table).
 */
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);
sql_batch *sql_batch_new(util_arena *a, int ncols, int cap);

typedef struct salt_state {
	int n;           /* buckets */
	sql_op **kids;   /* one scan per bucket */
	sql_batch **cur; /* each bucket's current batch (NULL before the first) */
	int *pos;        /* next row of cur[i] */
	bool *done;
	int *heap; /* buckets with a current row, best first (a binary heap) */
	int nheap;
	int keyslot;  /* the row key's slot in scan rows */
	int64_t left; /* rows still allowed by a pushed-down LIMIT; -1 = no limit */
	bool reverse;
	sql_op *driver; /* scan.parallel: the workers' scan (SQL_SALT_STREAMS) */
	bool streams;   /* its workers run: buckets are read from it */
} salt_state;

/* Order of two row keys without their bucket bytes. */
static int key_cmp(const ty_datum *a, const ty_datum *b)
{
	size_t an = a->len ? a->len - 1 : 0, bn = b->len ? b->len - 1 : 0;
	return util_bytes_cmp((const uint8_t *)a->p + 1, an, (const uint8_t *)b->p + 1, bn);
}

static const ty_datum *head_key(const salt_state *st, int b)
{
	return sql_batch_row(st->cur[b], st->pos[b]) + st->keyslot;
}

/* Bucket a's current row comes before bucket b's in scan order. */
static bool heap_before(const salt_state *st, int a, int b)
{
	int c = key_cmp(head_key(st, a), head_key(st, b));
	return st->reverse ? c > 0 : c < 0;
}

static void heap_down(salt_state *st, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		if (l < st->nheap && heap_before(st, st->heap[l], st->heap[m]))
			m = l;
		if (r < st->nheap && heap_before(st, st->heap[r], st->heap[m]))
			m = r;
		if (m == i)
			return;
		int t = st->heap[i];
		st->heap[i] = st->heap[m];
		st->heap[m] = t;
		i = m;
	}
}

static void heap_push(salt_state *st, int b)
{
	int i = st->nheap++;
	st->heap[i] = b;
	while (i > 0 && heap_before(st, st->heap[i], st->heap[(i - 1) / 2])) {
		int p = (i - 1) / 2, t = st->heap[i];
		st->heap[i] = st->heap[p];
		st->heap[p] = t;
		i = p;
	}
}

static void salt_open(sql_op *op)
{
	salt_state *st = op->state;
	sql_exec *ex = op->ex;
	const sql_plan *p = op->plan;
	/* A pushed-down LIMIT (plan_order.c) bounds the merged rows as it
	 * bounds each bucket's. */
	st->left = -1;
	if (p->scan.limit) {
		ty_datum d = sql_eval(ex, p->scan.limit, NULL);
		ty_datum off = p->scan.limit_offset ? sql_eval(ex, p->scan.limit_offset, NULL) : ty_int(0);
		if (!d.null && d.i >= 0 && (off.null || off.i >= 0) && d.i <= INT64_MAX / 2 &&
		    off.i <= INT64_MAX / 2)
			st->left = d.i + (off.null ? 0 : off.i);
	}
	if (!st->kids) {
		int cap = st->left > 0 && st->left < SQL_BATCH_ROWS ? (int)st->left : SQL_BATCH_ROWS;
		st->kids = util_arena_zalloc(ex->arena, sizeof(sql_op *) * (size_t)st->n);
		st->cur = util_arena_zalloc(ex->arena, sizeof(sql_batch *) * (size_t)st->n);
		st->pos = util_arena_zalloc(ex->arena, sizeof(int) * (size_t)st->n);
		st->done = util_arena_zalloc(ex->arena, sizeof(bool) * (size_t)st->n);
		st->heap = util_arena_zalloc(ex->arena, sizeof(int) * (size_t)st->n);
		if (!st->kids || !st->cur || !st->pos || !st->done || !st->heap)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		for (int i = 0; i < st->n; i++) {
			sql_op *k = sql_op_scan_salted(ex, p, i + 1);
			k->out = sql_batch_new(ex->arena, p->ncols, cap); /* a LIMIT k needs k per bucket */
			st->kids[i] = k;
		}
		if (p->scan.parallel)
			st->driver = sql_op_scan_salted(ex, p, SQL_SALT_STREAMS);
	}
	st->streams = st->driver && sql_scan_streams_open(st->driver);
	st->nheap = 0;
	st->keyslot = p->scan.rel->rel.ncols;
	st->reverse = p->scan.reverse;
}

/* Rows of the buckets in key order. A row handed out points into its
 * bucket's batch, so a bucket is asked for its next batch only at the
 * start of a call (the consumer is done with the rows of the last one):
 * a bucket whose batch runs out ends the call's batch. */
static sql_batch *salt_next(sql_op *op)
{
	salt_state *st = op->state;
	if (st->left == 0)
		return sql_op_begin_batch(op);
	for (int i = 0; i < st->n; i++)
		if (!st->done[i] && (!st->cur[i] || st->pos[i] >= st->cur[i]->n)) {
			st->cur[i] =
			    st->streams ? sql_scan_stream_next(st->driver, i) : sql_op_next(st->kids[i]);
			st->pos[i] = 0;
			st->done[i] = st->cur[i]->n == 0;
			if (!st->done[i])
				heap_push(st, i);
		}
	sql_batch *b = sql_op_begin_batch(op);
	size_t width = sizeof(ty_datum) * (size_t)b->ncols;
	int cap = st->left >= 0 && st->left < b->cap ? (int)st->left : b->cap;
	while (b->n < cap && st->nheap) {
		int best = st->heap[0];
		memcpy(sql_batch_row(b, b->n++), sql_batch_row(st->cur[best], st->pos[best]), width);
		if (++st->pos[best] < st->cur[best]->n) {
			heap_down(st, 0);
			continue;
		}
		st->heap[0] = st->heap[--st->nheap]; /* refilled at the next call */
		heap_down(st, 0);
		break;
	}
	if (st->left >= 0)
		st->left -= b->n;
	return b;
}

static void kid_close(sql_op *k)
{
	if (k->close)
		k->close(k);
	if (k->out && k->out->arena) {
		util_arena_destroy(k->out->arena);
		k->out->arena = NULL;
	}
}

static void salt_close(sql_op *op)
{
	salt_state *st = op->state;
	for (int i = 0; st->kids && i < st->n; i++)
		kid_close(st->kids[i]);
	if (st->driver)
		kid_close(st->driver);
}

static void salt_rescan(sql_op *op)
{
	salt_state *st = op->state;
	for (int i = 0; st->kids && i < st->n; i++) {
		sql_op_rescan(st->kids[i]);
		st->cur[i] = NULL;
		st->pos[i] = 0;
		st->done[i] = false;
	}
	if (st->driver)
		sql_op_rescan(st->driver); /* closed; opened again by salt_open */
	st->streams = false;
	st->nheap = 0;
	op->opened = false;
}

int sql_salt_workers_launched(sql_op *op)
{
	if (!op || op->next != salt_next || !((salt_state *)op->state)->streams)
		return 0;
	return sql_scan_workers_launched(((salt_state *)op->state)->driver);
}

sql_op *sql_op_salt_merge(sql_exec *ex, const sql_plan *p, int nbuckets)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(salt_state));
	((salt_state *)op->state)->n = nbuckets;
	op->open = salt_open;
	op->next = salt_next;
	op->close = salt_close;
	op->rescan = salt_rescan;
	return op;
}
