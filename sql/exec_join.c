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
	size_t held;      /* accounted memory */
	uint64_t steps;
	struct grace *grace; /* hash join past its memory: partitioned */
} join_state;

/* Hash join past 2 x work_mem (PostgreSQL's hash_mem): both sides are
 * partitioned by the hash of their join keys into GRACE_NPART files and
 * each pair of partitions is joined in memory; rows with a NULL key never
 * match and are kept aside when the join type keeps them. */
#define GRACE_NPART 32

typedef struct grace {
	sql_spill *rpart[GRACE_NPART], *lpart[GRACE_NPART];
	sql_spill *lnull, *rnull; /* NULL-keyed rows an outer join keeps */
	int part;                 /* partition in memory */
	int phase;                /* 0 probe, 1 unmatched right, 2 left NULLs, 3 right NULLs, 4 done */
	sql_batch *in;            /* left rows read back */
	int pos;
	bool left_active, left_matched;
	mrow *cur;
	int unmatched_pos;
	ty_oid *ltypes, *rtypes;
	util_arena *scratch; /* partitioning's hashing arena, until done (grace_free on error) */
} grace;

static void grace_partition_right(sql_op *op, join_state *st);

static void materialise_right(sql_op *op, join_state *st)
{
	const sql_plan *p = op->plan;
	const sql_plan *rp = p->right;
	int rn = rp->ncols;
	if (!st->arena)
		st->arena = util_arena_new(64 * 1024, 0);
	sql_exec_charge(op->ex, st->arena);
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
				m->vals[c] = sql_datum_copy(src[c], rp->types[c]);
			}
			m->next = NULL;
			m->matched = false;
		}
		ty_set_arena(old);
		if (p->kind == SQL_P_HASHJOIN && util_arena_used(st->arena) > 2 * sql_exec_work_mem(op->ex) &&
		    sql_spill_ok(p->left->types, p->left->ncols) && sql_spill_ok(rp->types, rn)) {
			grace_partition_right(op, st);
			return;
		}
		sql_exec_account(op->ex, &st->held, util_arena_used(st->arena));
		ty_check_interrupts();
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

/* ---------------------------------------------------------------- partitioned hash join */

static int grace_part(uint64_t h) { return (int)((h >> 13) & (GRACE_NPART - 1)); }

static void grace_put(sql_spill **slot, const ty_datum *row, const ty_oid *types, int n)
{
	if (!*slot)
		*slot = sql_spill_new();
	sql_spill_put(*slot, row, types, n);
}

/* The rest of child's rows into parts by the hash of keys; rows with a NULL
 * key into *nulls (NULL: dropped). Batches are read in arena old, rows
 * hashed in scratch (reset per row). */
static void grace_partition_input(sql_op *op, sql_op *child, sql_expr **keys, sql_spill **parts,
				  sql_spill **nulls, const ty_oid *types, int n, util_arena *old,
				  util_arena *scratch)
{
	ty_datum kv[64];
	for (;;) {
		ty_set_arena(old);
		sql_batch *b = sql_op_next(child);
		if (b->n == 0)
			break;
		ty_set_arena(scratch);
		for (int i = 0; i < b->n; i++) {
			const ty_datum *r = sql_batch_row(b, i);
			uint64_t h;
			if (key_hash(op->ex, op->plan, keys, r, &h, kv))
				grace_put(&parts[grace_part(h)], r, types, n);
			else if (nulls)
				grace_put(nulls, r, types, n);
			util_arena_reset(scratch);
		}
		ty_check_interrupts();
	}
}

/* Right side: the rows in memory and the rest of the input into partitions. */
static void grace_partition_right(sql_op *op, join_state *st)
{
	const sql_plan *p = op->plan;
	int rn = p->right->ncols;
	bool keep_right = p->join.type == SQL_JOIN_RIGHT || p->join.type == SQL_JOIN_FULL;
	grace *g = util_arena_zalloc(op->ex->arena, sizeof *g);
	g->ltypes = p->left->types;
	g->rtypes = p->right->types;
	st->grace = g;
	ty_datum kv[64];
	util_arena *old = ty_get_arena();
	util_arena *scratch = g->scratch = util_arena_new(16 * 1024, 0);
	ty_set_arena(scratch);
	for (int i = 0; i < st->nrows; i++) {
		uint64_t h;
		if (key_hash(op->ex, p, p->join.rkeys, st->rows[i].vals, &h, kv))
			grace_put(&g->rpart[grace_part(h)], st->rows[i].vals, g->rtypes, rn);
		else if (keep_right)
			grace_put(&g->rnull, st->rows[i].vals, g->rtypes, rn);
		util_arena_reset(scratch);
	}
	util_arena_reset(st->arena);
	st->rows = NULL;
	st->nrows = 0;
	grace_partition_input(op, op->right, p->join.rkeys, g->rpart, keep_right ? &g->rnull : NULL,
			      g->rtypes, rn, old, scratch);
	/* Left side, likewise. */
	bool keep_left = p->join.type == SQL_JOIN_LEFT || p->join.type == SQL_JOIN_FULL;
	int ln = p->left->ncols;
	grace_partition_input(op, op->left, p->join.lkeys, g->lpart, keep_left ? &g->lnull : NULL, g->ltypes,
			      ln, old, scratch);
	ty_set_arena(old);
	util_arena_destroy(scratch);
	g->scratch = NULL;
	for (int i = 0; i < GRACE_NPART; i++) {
		if (g->rpart[i])
			sql_spill_rewind(g->rpart[i]);
		if (g->lpart[i])
			sql_spill_rewind(g->lpart[i]);
	}
	if (g->lnull)
		sql_spill_rewind(g->lnull);
	if (g->rnull)
		sql_spill_rewind(g->rnull);
	g->in = sql_batch_new(op->ex->arena, ln > rn ? ln : rn, SQL_BATCH_ROWS);
	g->part = -1;
	sql_exec_account(op->ex, &st->held, 0);
}

/* Loads the next partition's right rows into the hash table; false after
 * the last. */
static bool grace_next_part(sql_op *op, join_state *st)
{
	grace *g = st->grace;
	const sql_plan *p = op->plan;
	int rn = p->right->ncols;
	while (++g->part < GRACE_NPART) {
		if (!g->lpart[g->part] && !(g->rpart[g->part] && (p->join.type == SQL_JOIN_RIGHT || p->join.type == SQL_JOIN_FULL)))
			continue; /* nothing can come out of this partition */
		util_arena_reset(st->arena);
		util_arena *old = ty_set_arena(st->arena);
		int cap = 0;
		st->nrows = 0;
		st->rows = NULL;
		sql_spill *f = g->rpart[g->part];
		for (;;) {
			if (st->nrows == cap) {
				cap = cap ? cap * 2 : 256;
				mrow *nr = ty_alloc(sizeof(mrow) * (size_t)cap);
				if (st->nrows)
					memcpy(nr, st->rows, sizeof(mrow) * (size_t)st->nrows);
				st->rows = nr;
			}
			mrow *m = &st->rows[st->nrows];
			m->vals = ty_alloc(sizeof(ty_datum) * (size_t)(rn ? rn : 1));
			if (!f || !sql_spill_get(f, m->vals, rn))
				break;
			m->next = NULL;
			m->matched = false;
			st->nrows++;
			if ((st->nrows & 1023) == 0)
				sql_exec_account(op->ex, &st->held, util_arena_used(st->arena));
		}
		ty_set_arena(old);
		sql_exec_account(op->ex, &st->held, util_arena_used(st->arena));
		build_hash(op, st);
		g->phase = 0;
		g->pos = 0;
		g->in->n = 0;
		g->left_active = false;
		return true;
	}
	return false;
}

/* Refills the private left batch from a file; false at its end. */
static bool grace_fill(grace *g, sql_spill *f, int ncols)
{
	util_arena_reset(g->in->arena);
	util_arena *old = ty_set_arena(g->in->arena);
	g->in->n = 0;
	g->in->ncols = ncols;
	while (f && g->in->n < g->in->cap && sql_spill_get(f, sql_batch_row(g->in, g->in->n), ncols))
		g->in->n++;
	ty_set_arena(old);
	g->pos = 0;
	return g->in->n > 0;
}

static sql_batch *grace_next(sql_op *op, join_state *st)
{
	grace *g = st->grace;
	const sql_plan *p = op->plan;
	int ln = p->left->ncols, rn = p->right->ncols;
	bool keep_left = p->join.type == SQL_JOIN_LEFT || p->join.type == SQL_JOIN_FULL;
	bool keep_right = p->join.type == SQL_JOIN_RIGHT || p->join.type == SQL_JOIN_FULL;
	sql_batch *b = sql_op_begin_batch(op);
	ty_datum lkv[64];
	bool have_lkv = false; /* lkv holds the current left row's keys */
	while (b->n < b->cap) {
		if (g->part < 0 && g->phase < 2) {
			if (!grace_next_part(op, st))
				g->phase = 2;
			continue;
		}
		if (g->phase == 2 || g->phase == 3) {
			/* NULL-keyed rows of an outer join, extended with NULLs. */
			if (g->pos >= g->in->n) {
				if (b->n)
					return b; /* the rows point into the batch refilled next */
				if (!grace_fill(g, g->phase == 2 ? g->lnull : g->rnull, g->phase == 2 ? ln : rn)) {
					if (++g->phase > 3)
						return b;
					continue;
				}
			}
			const ty_datum *r = sql_batch_row(g->in, g->pos++);
			if (g->phase == 2)
				emit(b, r, ln, NULL, rn);
			else
				emit(b, NULL, ln, r, rn);
			continue;
		}
		if (g->phase >= 4)
			return b;
		if (g->phase == 1) {
			while (g->unmatched_pos < st->nrows && b->n < b->cap) {
				mrow *m = &st->rows[g->unmatched_pos++];
				if (!m->matched)
					emit(b, NULL, ln, m->vals, rn);
			}
			if (g->unmatched_pos < st->nrows)
				return b;
			if (b->n)
				return b; /* the next partition replaces these rows */
			if (!grace_next_part(op, st))
				g->phase = 2;
			continue;
		}
		/* phase 0: probe the partition's left rows */
		if (g->pos >= g->in->n) {
			if (b->n)
				return b;
			if (!grace_fill(g, g->lpart[g->part], ln)) {
				g->phase = 1;
				g->unmatched_pos = keep_right ? 0 : st->nrows;
				continue;
			}
		}
		ty_datum *l = sql_batch_row(g->in, g->pos);
		if (!g->left_active) {
			g->left_active = true;
			g->left_matched = false;
			g->cur = NULL;
			uint64_t h;
			if (key_hash(op->ex, p, p->join.lkeys, l, &h, lkv))
				for (mrow *m = st->buckets[h & (st->nbuckets - 1)]; m; m = m->next)
					if (m->hash == h) {
						g->cur = m;
						break;
					}
			have_lkv = true;
		} else if (!have_lkv) {
			/* A row continued from the previous call: its key values
			 * were in that call's frame. */
			uint64_t h;
			(void)key_hash(op->ex, p, p->join.lkeys, l, &h, lkv);
			have_lkv = true;
		}
		while (b->n < b->cap && g->cur) {
			mrow *m = g->cur;
			do
				g->cur = g->cur->next;
			while (g->cur && g->cur->hash != m->hash);
			if (!keys_equal(op->ex, p, lkv, m->vals) || !qual_ok(op->ex, p, st, l, ln, m->vals, rn))
				continue;
			g->left_matched = true;
			m->matched = true;
			emit(b, l, ln, m->vals, rn);
		}
		if (g->cur)
			return b;
		if (!g->left_matched && keep_left)
			emit(b, l, ln, NULL, rn);
		g->pos++;
		g->left_active = false;
	}
	return b;
}

static void grace_free(grace *g)
{
	if (!g)
		return;
	for (int i = 0; i < GRACE_NPART; i++) {
		sql_spill_free(g->rpart[i]);
		sql_spill_free(g->lpart[i]);
	}
	sql_spill_free(g->lnull);
	sql_spill_free(g->rnull);
	if (g->in)
		util_arena_destroy(g->in->arena);
	if (g->scratch)
		util_arena_destroy(g->scratch);
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
		st->combo = util_arena_alloc(op->ex->arena, sizeof(ty_datum) * (size_t)(ln + rn + 1));
		materialise_right(op, st);
		if (hashed && !st->grace)
			build_hash(op, st);
		st->built = true;
	}
	if (st->grace)
		return grace_next(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	ty_datum lkv[64];
	bool have_lkv = false; /* lkv holds the current left row's keys */
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
			have_lkv = true;
		} else if (hashed && !have_lkv) {
			/* A row continued from the previous call (its matches filled
			 * the batch): its key values were in that call's frame. */
			uint64_t h;
			(void)key_hash(op->ex, p, p->join.lkeys, l, &h, lkv);
			have_lkv = true;
		}
		/* Candidates for this left row. */
		while (b->n < b->cap) {
			mrow *m;
			if ((++st->steps & 4095) == 0)
				ty_check_interrupts(); /* long nested loops that match little */
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
	grace_free(st->grace);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
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
