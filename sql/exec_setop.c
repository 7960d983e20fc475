/*
 * exec_setop.c — INTERSECT/EXCEPT [ALL] (counting rows of both sides per
 * distinct row), CTE scans over results materialised once per execution,
 * and WITH RECURSIVE (iterating the recursive term over a work table until
 * it produces nothing new; UNION without ALL drops rows already seen).
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);
bool sql_rows_equal(const ty_oid *types, const ty_datum *a, const ty_datum *b, int n);
uint64_t sql_row_hash(const sql_plan *p, const ty_datum *row, int n);

/* ---------------------------------------------------------------- row stores */

/* Rows copied into their own arena, in insertion order. */
typedef struct sql_ctestore {
	util_arena *arena;
	ty_datum **rows;
	size_t n, cap;
	int ncols;
	bool complete;
	size_t held;  /* accounted memory */
} sql_ctestore;

static void store_add(sql_ctestore *s, const sql_plan *p, const ty_datum *row)
{
	if (!s->arena)
		s->arena = util_arena_new(64 * 1024, 0);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->rows = util_xrealloc(s->rows, sizeof(ty_datum *) * s->cap);
	}
	util_arena *old = ty_set_arena(s->arena);
	ty_datum *copy = ty_alloc(sizeof(ty_datum) * (size_t)(p->ncols ? p->ncols : 1));
	for (int c = 0; c < p->ncols; c++) {
		copy[c] = sql_datum_copy(row[c], p->types[c]);
	}
	ty_set_arena(old);
	s->rows[s->n++] = copy;
}

static void store_free(sql_ctestore *s)
{
	if (!s)
		return;
	util_arena_destroy(s->arena);
	free(s->rows);
	memset(s, 0, sizeof *s);
}

void sql_exec_free_ctes(sql_exec *ex)
{
	for (int i = 0; i < ex->pl->nctes; i++)
		if (ex->ctes[i]) {
			sql_exec_account(ex, &ex->ctes[i]->held, 0);
			store_free(ex->ctes[i]);
			ex->ctes[i] = NULL;
		}
}

/* ---------------------------------------------------------------- INTERSECT / EXCEPT */

typedef struct counted {
	ty_datum *row;
	uint64_t hash;
	int64_t nleft, nright;
	struct counted *next_bucket, *next_order;
} counted;

typedef struct setop_state {
	util_arena *arena;
	counted **buckets;
	size_t nbuckets, n;
	counted *first, *last;
	bool loaded;
	counted *emit;
	int64_t emit_left; /* copies still to emit of emit */
	size_t held;       /* accounted memory */
} setop_state;

static counted *count_row(sql_op *op, setop_state *st, const ty_datum *row)
{
	const sql_plan *p = op->plan;
	if ((st->n + 1) * 2 > st->nbuckets) {
		size_t nb = st->nbuckets ? st->nbuckets * 2 : 256;
		counted **n = util_xcalloc(nb, sizeof *n);
		for (counted *c = st->first; c; c = c->next_order) {
			c->next_bucket = n[c->hash & (nb - 1)];
			n[c->hash & (nb - 1)] = c;
		}
		free(st->buckets);
		st->buckets = n;
		st->nbuckets = nb;
	}
	uint64_t h = sql_row_hash(p, row, p->ncols);
	for (counted *c = st->buckets[h & (st->nbuckets - 1)]; c; c = c->next_bucket)
		if (c->hash == h && sql_rows_equal(p->types, c->row, row, p->ncols))
			return c;
	util_arena *old = ty_set_arena(st->arena);
	counted *c = ty_alloc0(sizeof *c);
	c->row = ty_alloc(sizeof(ty_datum) * (size_t)(p->ncols ? p->ncols : 1));
	for (int i = 0; i < p->ncols; i++) {
		c->row[i] = sql_datum_copy(row[i], p->types[i]);
	}
	ty_set_arena(old);
	c->hash = h;
	c->next_bucket = st->buckets[h & (st->nbuckets - 1)];
	st->buckets[h & (st->nbuckets - 1)] = c;
	if (st->last)
		st->last->next_order = c;
	else
		st->first = c;
	st->last = c;
	st->n++;
	return c;
}

static int64_t copies(const sql_plan *p, const counted *c)
{
	bool all = p->setop.all;
	if (p->setop.op == SQL_SETOP_INTERSECT) {
		int64_t m = c->nleft < c->nright ? c->nleft : c->nright;
		return all ? m : m > 0;
	}
	int64_t d = c->nleft - c->nright;
	return all ? (d > 0 ? d : 0) : (c->nleft > 0 && c->nright == 0);
}

static sql_batch *setop_next(sql_op *op)
{
	setop_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->loaded) {
		st->arena = util_arena_new(64 * 1024, 0);
		sql_exec_charge(op->ex, st->arena);
		for (int side = 0; side < 2; side++) {
			sql_op *child = side ? op->right : op->left;
			for (;;) {
				sql_batch *b = sql_op_next(child);
				if (b->n == 0)
					break;
				for (int i = 0; i < b->n; i++) {
					counted *c = count_row(op, st, sql_batch_row(b, i));
					if (side)
						c->nright++;
					else
						c->nleft++;
				}
				sql_exec_account(op->ex, &st->held, util_arena_used(st->arena) + st->nbuckets * sizeof(counted *));
			}
		}
		st->loaded = true;
		st->emit = st->first;
		st->emit_left = st->emit ? copies(p, st->emit) : 0;
	}
	sql_batch *b = sql_op_begin_batch(op);
	while (st->emit && b->n < b->cap) {
		if (st->emit_left <= 0) {
			st->emit = st->emit->next_order;
			st->emit_left = st->emit ? copies(p, st->emit) : 0;
			continue;
		}
		memcpy(sql_batch_row(b, b->n++), st->emit->row, sizeof(ty_datum) * (size_t)p->ncols);
		st->emit_left--;
	}
	return b;
}

static void setop_close(sql_op *op)
{
	setop_state *st = op->state;
	util_arena_destroy(st->arena);
	free(st->buckets);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
	memset(st, 0, sizeof *st);
}

static void setop_rescan(sql_op *op)
{
	setop_close(op);
	sql_op_rescan(op->left);
	sql_op_rescan(op->right);
}

sql_op *sql_op_setop(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(setop_state));
	op->next = setop_next;
	op->close = setop_close;
	op->rescan = setop_rescan;
	return op;
}

/* ---------------------------------------------------------------- CTE scans */

typedef struct ctescan_state {
	size_t pos;
} ctescan_state;

/* The work table of a running recursive CTE (rows of the last iteration). */
typedef struct worktable {
	sql_ctestore *rows;
} worktable;

/* A CTE's result, materialised as its scans need it: a scan past the rows
 * stored so far pulls the next batch from the CTE's plan, so that
 * WITH RECURSIVE ... LIMIT n stops the recursion once n rows are read. */
static sql_ctestore *cte_store(sql_exec *ex, int id)
{
	if (!ex->ctes[id])
		ex->ctes[id] = util_arena_zalloc(ex->arena, sizeof(sql_ctestore));
	return ex->ctes[id];
}

/* Appends the next batch of the CTE's output; false when it is complete. */
static bool cte_fill(sql_exec *ex, int id, sql_ctestore *s)
{
	if (s->complete)
		return false;
	const sql_plan *cp = ex->pl->cte_plans[id];
	if (!ex->cte_ops[id])
		ex->cte_ops[id] = sql_exec_node(ex, cp);
	s->ncols = cp->ncols;
	sql_batch *b = sql_op_next(ex->cte_ops[id]);
	if (b->n == 0) {
		s->complete = true;
		return false;
	}
	for (int i = 0; i < b->n; i++)
		store_add(s, cp, sql_batch_row(b, i));
	sql_exec_account(ex, &s->held, util_arena_used(s->arena) + s->cap * sizeof(ty_datum *));
	return true;
}

/* Work tables live beside the CTE results, at index nctes + id. */
static sql_ctestore *work_rows(sql_exec *ex, int id);

static sql_batch *ctescan_next(sql_op *op)
{
	ctescan_state *st = op->state;
	const sql_plan *p = op->plan;
	bool work = p->kind == SQL_P_WORKTABLE;
	sql_ctestore *s = work ? work_rows(op->ex, p->cte.cte) : cte_store(op->ex, p->cte.cte);
	sql_batch *b = sql_op_begin_batch(op);
	while (s && b->n < b->cap) {
		if (st->pos >= s->n && (work || !cte_fill(op->ex, p->cte.cte, s)))
			break;
		while (st->pos < s->n && b->n < b->cap)
			memcpy(sql_batch_row(b, b->n++), s->rows[st->pos++], sizeof(ty_datum) * (size_t)p->ncols);
	}
	return b;
}

static void ctescan_rescan(sql_op *op) { ((ctescan_state *)op->state)->pos = 0; }

sql_op *sql_op_ctescan(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(ctescan_state));
	op->next = ctescan_next;
	op->rescan = ctescan_rescan;
	return op;
}

/* ---------------------------------------------------------------- data-modifying CTEs */

/* The statement's INSERT/UPDATE/DELETE CTEs run to completion before its
 * first row (PostgreSQL runs them exactly once whatever the query reads of
 * them; they all see the statement's snapshot). */
typedef struct cteprep_state {
	bool done;
} cteprep_state;

static sql_batch *cteprep_next(sql_op *op)
{
	cteprep_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->done) {
		for (int i = 0; i < p->cte.nprep; i++) {
			sql_ctestore *s = cte_store(op->ex, p->cte.prep[i]);
			while (cte_fill(op->ex, p->cte.prep[i], s))
				;
		}
		st->done = true;
	}
	return sql_op_next(op->left);
}

static void cteprep_rescan(sql_op *op) { sql_op_rescan(op->left); }

sql_op *sql_op_cteprep(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(cteprep_state));
	op->next = cteprep_next;
	op->rescan = cteprep_rescan;
	return op;
}

/* ---------------------------------------------------------------- WITH RECURSIVE */

typedef struct rec_state {
	sql_ctestore *seen_all;   /* every row produced (UNION dedup) */
	setop_state dedup;        /* hash of produced rows */
	sql_ctestore out;         /* rows of the current iteration to emit */
	sql_ctestore work;        /* rows of the previous iteration */
	size_t pos;
	bool nonrec_done;
	bool finished;
	sql_op *rec;
	int iterations;
} rec_state;

static _Thread_local rec_state *active_recursions[64];
static _Thread_local int active_ids[64];
static _Thread_local int nactive;

static sql_ctestore *work_rows(sql_exec *ex, int id)
{
	(void)ex;
	for (int i = nactive - 1; i >= 0; i--)
		if (active_ids[i] == id)
			return &active_recursions[i]->work;
	return NULL;
}

/* Adds a row to the next iteration unless UNION (not ALL) has seen it. */
static void rec_add(sql_op *op, rec_state *st, const ty_datum *row)
{
	const sql_plan *p = op->plan;
	if (!p->setop.all) {
		if (!st->dedup.arena)
			st->dedup.arena = util_arena_new(64 * 1024, 0);
		sql_exec_charge(op->ex, st->dedup.arena);
		size_t before = st->dedup.n;
		count_row(op, &st->dedup, row);
		if (st->dedup.n == before)
			return;
	}
	/* The work tables count against the statement's memory budget
	 * (qmem.c): a runaway recursion ends with 53200. */
	if (!st->out.arena) {
		st->out.arena = util_arena_new(64 * 1024, 0);
		sql_exec_charge(op->ex, st->out.arena);
	}
	store_add(&st->out, p, row);
}

static sql_batch *recursive_next(sql_op *op)
{
	rec_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_batch *b = sql_op_begin_batch(op);
	for (;;) {
		while (st->pos < st->out.n && b->n < b->cap)
			memcpy(sql_batch_row(b, b->n++), st->out.rows[st->pos++], sizeof(ty_datum) * (size_t)p->ncols);
		/* The next iteration frees the rows just emitted (they are the
		 * work table's): hand them up first. */
		if (b->n > 0 || st->finished)
			return b;
		/* Current iteration emitted: it becomes the work table. */
		if (!st->nonrec_done) {
			st->nonrec_done = true;
			for (;;) {
				sql_batch *in = sql_op_next(op->left);
				if (in->n == 0)
					break;
				for (int i = 0; i < in->n; i++)
					rec_add(op, st, sql_batch_row(in, i));
			}
			if (st->out.n == 0)
				st->finished = true;
			continue;
		}
		store_free(&st->work);
		st->work = st->out;
		memset(&st->out, 0, sizeof st->out);
		st->pos = 0;
		if (st->work.n == 0) {
			st->finished = true;
			return b;
		}
		if (++st->iterations % 64 == 0)
			ty_check_interrupts();
		if (nactive >= 64)
			ty_error(UTIL_E_STATEMENT_TOO_COMPLEX, "too many nested recursive queries");
		active_recursions[nactive] = st;
		active_ids[nactive++] = p->cte.cte;
		if (!st->rec)
			st->rec = sql_exec_node(op->ex, p->right);
		else
			sql_op_rescan(st->rec);
		for (;;) {
			sql_batch *in = sql_op_next(st->rec);
			if (in->n == 0)
				break;
			for (int i = 0; i < in->n; i++)
				rec_add(op, st, sql_batch_row(in, i));
		}
		nactive--;
		if (st->out.n == 0) {
			st->finished = true;
			return b;
		}
	}
}

static void recursive_close(sql_op *op)
{
	rec_state *st = op->state;
	/* An error inside the recursive term leaves this one registered. */
	int k = 0;
	for (int i = 0; i < nactive; i++)
		if (active_recursions[i] != st) {
			active_recursions[k] = active_recursions[i];
			active_ids[k++] = active_ids[i];
		}
	nactive = k;
	store_free(&st->out);
	store_free(&st->work);
	util_arena_destroy(st->dedup.arena);
	free(st->dedup.buckets);
	memset(st, 0, sizeof *st);
}

sql_op *sql_op_recursive(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(rec_state));
	op->next = recursive_next;
	op->close = recursive_close;
	return op;
}
