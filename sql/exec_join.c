/*
 * exec_join.c — joins: hash join on equality keys and nested loop for the
 * rest, for INNER, LEFT, RIGHT and FULL joins. The inner (right) side is
 * materialised once per execution (or per rescan when it depends on the
 * outer row); output rows are the left columns followed by the right ones.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

/* Operator memory for materialised rows. */
#define SQL_OP_MEM_BUDGET ((size_t)2 << 30)

typedef struct mrow {
	ty_datum *vals;
	uint64_t hash;
	struct mrow *next; /* hash chain */
	bool matched;
} mrow;

typedef struct join_state {
	util_arena *arena;
	mrow *rows;       /* materialised right side, in order */
	int nrows;
	mrow **buckets;
	size_t nbuckets;
	bool built;
	/* probe state */
	sql_batch *in;
	int pos;
	mrow *cur;        /* next candidate for the current left row */
	int nl_pos;       /* nested loop: index into rows */
	bool left_matched;
	bool left_active;
	bool emitting_unmatched;
	int unmatched_pos;
	ty_datum *combo;  /* scratch row: left ++ right */
	struct pnl_state *pnl; /* parameterised nested loop */
} join_state;

static void materialise_right(sql_op *op, join_state *st)
{
	const sql_plan *p = op->plan;
	const sql_plan *rp = p->right;
	int rn = rp->ncols;
	if (!st->arena)
		st->arena = util_arena_new(64 * 1024, SQL_OP_MEM_BUDGET);
	util_arena *old = ty_get_arena();
	int cap = 0;
	st->nrows = 0;
	for (;;) {
		sql_batch *b = sql_op_next(op->right);
		if (b->n == 0)
			break;
		ty_set_arena(st->arena);
		for (int i = 0; i < b->n; i++) {
			if (st->nrows == cap) {
				cap = cap ? cap * 2 : 256;
				mrow *nr = ty_alloc(sizeof(mrow) * (size_t)cap);
				if (st->nrows)
					memcpy(nr, st->rows, sizeof(mrow) * (size_t)st->nrows);
				st->rows = nr;
			}
			ty_datum *src = sql_batch_row(b, i);
			mrow *m = &st->rows[st->nrows++];
			m->vals = ty_alloc(sizeof(ty_datum) * (size_t)(rn ? rn : 1));
			for (int c = 0; c < rn; c++) {
				const ty_type *t = ty_type_get(rp->types[c]);
				m->vals[c] = ty_datum_copy(src[c], t ? t->byval : true);
			}
			m->next = NULL;
			m->matched = false;
		}
		ty_set_arena(old);
	}
	ty_set_arena(old);
}

/* Hash of the key expressions; false if any key is NULL (never matches). */
static bool key_hash(sql_exec *ex, const sql_plan *p, sql_expr **keys, const ty_datum *row, uint64_t *h,
		     ty_datum *kv)
{
	uint64_t acc = 0x51ed;
	for (int k = 0; k < p->join.nkeys; k++) {
		ty_datum d = sql_eval(ex, keys[k], row);
		if (d.null)
			return false;
		kv[k] = d;
		acc = util_hash_mix(acc ^ (p->join.keytypes[k]->hash(d) + 0x9e3779b97f4a7c15ULL));
	}
	*h = acc;
	return true;
}

static void build_hash(sql_op *op, join_state *st)
{
	const sql_plan *p = op->plan;
	size_t nb = 64;
	while (nb < (size_t)st->nrows * 2)
		nb *= 2;
	st->nbuckets = nb;
	st->buckets = util_arena_zalloc(st->arena, sizeof(mrow *) * nb);
	if (!st->buckets)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory for hash join");
	ty_datum kv[64];
	util_arena *old = ty_set_arena(st->arena);
	/* Insert in reverse so chains keep the input order. */
	for (int i = st->nrows - 1; i >= 0; i--) {
		mrow *m = &st->rows[i];
		uint64_t h;
		if (!key_hash(op->ex, p, p->join.rkeys, m->vals, &h, kv))
			continue;
		m->hash = h;
		size_t bi = h & (nb - 1);
		m->next = st->buckets[bi];
		st->buckets[bi] = m;
	}
	ty_set_arena(old);
}

static bool keys_equal(sql_exec *ex, const sql_plan *p, const ty_datum *lkv, const ty_datum *rrow)
{
	for (int k = 0; k < p->join.nkeys; k++) {
		ty_datum r = sql_eval(ex, p->join.rkeys[k], rrow);
		if (r.null || p->join.keytypes[k]->cmp(lkv[k], r) != 0)
			return false;
	}
	return true;
}

static void emit(sql_batch *b, const ty_datum *l, int ln, const ty_datum *r, int rn)
{
	ty_datum *out = sql_batch_row(b, b->n++);
	if (l)
		memcpy(out, l, sizeof(ty_datum) * (size_t)ln);
	else
		for (int i = 0; i < ln; i++)
			out[i] = ty_null();
	if (r)
		memcpy(out + ln, r, sizeof(ty_datum) * (size_t)rn);
	else
		for (int i = 0; i < rn; i++)
			out[ln + i] = ty_null();
}

static bool qual_ok(sql_exec *ex, const sql_plan *p, join_state *st, const ty_datum *l, int ln, const ty_datum *r,
		    int rn)
{
	if (!p->join.joinqual)
		return true;
	memcpy(st->combo, l, sizeof(ty_datum) * (size_t)ln);
	memcpy(st->combo + ln, r, sizeof(ty_datum) * (size_t)rn);
	return sql_eval_qual(ex, p->join.joinqual, st->combo);
}

/* Parameterised nested loop (LATERAL): per left row, the parameters are
 * set from it and the right side is rescanned and streamed. Output rows
 * point into the current left and right batches, so the output is handed
 * up before either of them moves on. */
typedef struct pnl_state {
	sql_batch *in;      /* left batch */
	int pos;
	bool active;        /* the right side runs for left row pos */
	bool matched;
	sql_batch *rb;      /* right batch */
	int rpos;
	ty_datum *combo;
} pnl_state;

static sql_batch *param_nestloop_next(sql_op *op)
{
	join_state *js = op->state;
	pnl_state *st = js->pnl;
	const sql_plan *p = op->plan;
	int ln = p->left->ncols, rn = p->right->ncols;
	bool keep_left = p->join.type == SQL_JOIN_LEFT;
	if (!st) {
		st = util_arena_zalloc(op->ex->arena, sizeof *st);
		st->combo = util_arena_alloc(op->ex->arena, sizeof(ty_datum) * (size_t)(ln + rn + 1));
		js->pnl = st;
	}
	sql_batch *b = sql_op_begin_batch(op);
	while (b->n < b->cap) {
		if (!st->active) {
			if (!st->in || st->pos >= st->in->n) {
				if (b->n)
					return b;
				st->in = sql_op_next(op->left);
				st->pos = 0;
				b = sql_op_begin_batch(op);
				if (st->in->n == 0)
					return b;
			}
			if (b->n)
				return b; /* rescanning the right side invalidates its batch */
			ty_check_interrupts();
			const ty_datum *l = sql_batch_row(st->in, st->pos);
			for (int i = 0; i < p->join.nparams; i++)
				op->ex->exec_params[p->join.params[i]] = sql_eval(op->ex, p->join.param_vals[i], l);
			if (op->right->opened)
				sql_op_rescan(op->right);
			st->active = true;
			st->matched = false;
			st->rb = NULL;
		}
		const ty_datum *l = sql_batch_row(st->in, st->pos);
		if (!st->rb || st->rpos >= st->rb->n) {
			if (st->rb && b->n)
				return b; /* rows point into the right batch */
			st->rb = sql_op_next(op->right);
			st->rpos = 0;
			if (st->rb->n == 0) {
				if (keep_left && !st->matched)
					emit(b, l, ln, NULL, rn);
				st->active = false;
				st->pos++;
				continue;
			}
		}
		while (st->rpos < st->rb->n && b->n < b->cap) {
			const ty_datum *r = sql_batch_row(st->rb, st->rpos++);
			if (p->join.joinqual) {
				memcpy(st->combo, l, sizeof(ty_datum) * (size_t)ln);
				memcpy(st->combo + ln, r, sizeof(ty_datum) * (size_t)rn);
				if (!sql_eval_qual(op->ex, p->join.joinqual, st->combo))
					continue;
			}
			st->matched = true;
			emit(b, l, ln, r, rn);
		}
	}
	return b;
}

static sql_batch *join_next(sql_op *op)
{
	join_state *st = op->state;
	const sql_plan *p = op->plan;
	int ln = p->left->ncols, rn = p->right->ncols;
	bool hashed = p->kind == SQL_P_HASHJOIN;
	bool keep_left = p->join.type == SQL_JOIN_LEFT || p->join.type == SQL_JOIN_FULL;
	bool keep_right = p->join.type == SQL_JOIN_RIGHT || p->join.type == SQL_JOIN_FULL;
	if (!st->built) {
		materialise_right(op, st);
		if (hashed)
			build_hash(op, st);
		st->combo = util_arena_alloc(op->ex->arena, sizeof(ty_datum) * (size_t)(ln + rn + 1));
		st->built = true;
	}
	sql_batch *b = sql_op_begin_batch(op);
	ty_datum lkv[64];
	while (b->n < b->cap) {
		if (st->emitting_unmatched) {
			while (st->unmatched_pos < st->nrows && b->n < b->cap) {
				mrow *m = &st->rows[st->unmatched_pos++];
				if (!m->matched)
					emit(b, NULL, ln, m->vals, rn);
			}
			return b;
		}
		if (!st->in || st->pos >= st->in->n) {
			if (b->n)
				return b; /* emitted rows point into the current left batch */
			st->in = sql_op_next(op->left);
			st->pos = 0;
			st->left_active = false;
			b = sql_op_begin_batch(op);
			if (st->in->n == 0) {
				if (keep_right) {
					st->emitting_unmatched = true;
					st->unmatched_pos = 0;
					continue;
				}
				return b;
			}
		}
		ty_datum *l = sql_batch_row(st->in, st->pos);
		if (!st->left_active) {
			st->left_active = true;
			st->left_matched = false;
			st->nl_pos = 0;
			st->cur = NULL;
			if (hashed) {
				uint64_t h;
				if (key_hash(op->ex, p, p->join.lkeys, l, &h, lkv))
					for (mrow *m = st->buckets[h & (st->nbuckets - 1)]; m; m = m->next)
						if (m->hash == h) {
							st->cur = m;
							break;
						}
			}
		}
		/* Candidates for this left row. */
		while (b->n < b->cap) {
			mrow *m;
			if (hashed) {
				m = st->cur;
				if (!m)
					break;
				do
					st->cur = st->cur->next;
				while (st->cur && st->cur->hash != m->hash);
				if (!keys_equal(op->ex, p, lkv, m->vals))
					continue;
			} else {
				if (st->nl_pos >= st->nrows)
					break;
				m = &st->rows[st->nl_pos++];
			}
			if (!qual_ok(op->ex, p, st, l, ln, m->vals, rn))
				continue;
			st->left_matched = true;
			m->matched = true;
			emit(b, l, ln, m->vals, rn);
		}
		if (b->n >= b->cap && ((hashed && st->cur) || (!hashed && st->nl_pos < st->nrows)))
			return b; /* more candidates for this left row next time */
		if (!st->left_matched && keep_left)
			emit(b, l, ln, NULL, rn);
		st->pos++;
		st->left_active = false;
	}
	return b;
}

static void join_close(sql_op *op)
{
	join_state *st = op->state;
	if (op->plan->join.nparams) {
		/* (the state lives in the executor arena; reused after a rescan) */
		if (st->pnl) {
			ty_datum *combo = st->pnl->combo;
			memset(st->pnl, 0, sizeof *st->pnl);
			st->pnl->combo = combo;
		}
		return;
	}
	util_arena_destroy(st->arena);
	memset(st, 0, sizeof *st);
}

static void join_rescan(sql_op *op)
{
	join_state *st = op->state;
	/* The right side is re-read (it may depend on parameters). */
	join_close(op);
	(void)st;
	sql_op_rescan(op->left);
	sql_op_rescan(op->right);
}

static sql_op *new_join(sql_exec *ex)
{
	sql_op *op = sql_op_new_internal(ex, sizeof(join_state));
	op->next = join_next;
	op->close = join_close;
	op->rescan = join_rescan;
	return op;
}

sql_op *sql_op_nestloop(sql_exec *ex, const sql_plan *p)
{
	sql_op *op = new_join(ex);
	if (p->join.nparams)
		op->next = param_nestloop_next;
	return op;
}

sql_op *sql_op_hashjoin(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	return new_join(ex);
}
