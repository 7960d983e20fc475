/*
 * exec_salt.c — scans of salted tables (WITH (salt_buckets = N)): a row key
 * starts with a bucket byte (docs/key-encoding.md), so one key range of the
 * table is N ranges of the store, one per bucket. Each bucket is scanned by
 * its own table scan (exec_scan.c), and their rows are merged on the key
 * without its bucket byte, so the merged stream comes in the table's key
 * order (or its reverse) as a scan of an unsalted table would: ORDER BY,
 * LIMIT, first/last row and merge joins need no special case.
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
	int keyslot; /* the row key's slot in scan rows */
	bool reverse;
} salt_state;

/* Order of two row keys without their bucket bytes. */
static int key_cmp(const ty_datum *a, const ty_datum *b)
{
	size_t an = a->len ? a->len - 1 : 0, bn = b->len ? b->len - 1 : 0;
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp((const uint8_t *)a->p + 1, (const uint8_t *)b->p + 1, n) : 0;
	return c ? c : (an > bn) - (an < bn);
}

static void salt_open(sql_op *op)
{
	salt_state *st = op->state;
	sql_exec *ex = op->ex;
	const sql_plan *p = op->plan;
	if (!st->kids) {
		st->kids = util_arena_zalloc(ex->arena, sizeof(sql_op *) * (size_t)st->n);
		st->cur = util_arena_zalloc(ex->arena, sizeof(sql_batch *) * (size_t)st->n);
		st->pos = util_arena_zalloc(ex->arena, sizeof(int) * (size_t)st->n);
		st->done = util_arena_zalloc(ex->arena, sizeof(bool) * (size_t)st->n);
		if (!st->kids || !st->cur || !st->pos || !st->done)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		for (int i = 0; i < st->n; i++) {
			sql_op *k = sql_op_scan_salted(ex, p, i + 1);
			k->out = sql_batch_new(ex->arena, p->ncols, SQL_BATCH_ROWS);
			st->kids[i] = k;
		}
	}
	st->keyslot = p->scan.rel->rel.ncols;
	st->reverse = p->scan.reverse;
}

/* Rows of the buckets in key order. A row handed out points into its
 * bucket's batch, so a bucket is asked for its next batch only at the
 * start of a call (the consumer is done with the rows of the last one). */
static sql_batch *salt_next(sql_op *op)
{
	salt_state *st = op->state;
	for (int i = 0; i < st->n; i++)
		if (!st->done[i] && (!st->cur[i] || st->pos[i] >= st->cur[i]->n)) {
			st->cur[i] = sql_op_next(st->kids[i]);
			st->pos[i] = 0;
			st->done[i] = st->cur[i]->n == 0;
		}
	sql_batch *b = sql_op_begin_batch(op);
	int ncols = b->ncols;
	while (b->n < b->cap) {
		int best = -1;
		const ty_datum *bk = NULL;
		for (int i = 0; i < st->n; i++) {
			if (st->done[i])
				continue;
			const ty_datum *k = sql_batch_row(st->cur[i], st->pos[i]) + st->keyslot;
			int c = bk ? key_cmp(k, bk) : 0;
			if (!bk || (st->reverse ? c > 0 : c < 0)) {
				best = i;
				bk = k;
			}
		}
		if (best < 0)
			break;
		memcpy(sql_batch_row(b, b->n), sql_batch_row(st->cur[best], st->pos[best]),
		       sizeof(ty_datum) * (size_t)ncols);
		b->n++;
		if (++st->pos[best] >= st->cur[best]->n)
			break; /* refilled at the next call */
	}
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
	op->opened = false;
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
