/*
 * exec_merge.c — merge join: both inputs arrive ordered by the first nmerge
 * join keys (plan_merge.c), so they are read side by side. The right rows
 * of the current key value (a "group") are copied aside, because the left
 * side may hold several rows with that key; every other row is used where it
 * lies in its input batch. INNER, LEFT, RIGHT and FULL joins; further
 * equality keys and the join filter are checked per pair. Rows with a NULL
 * key match nothing (they sort last).
 *
 * Output rows point into the current left batch, the current right batch or
 * the group, so the output batch is handed up before any of them changes.
 */
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

typedef struct grow {
	ty_datum *vals;
	bool matched;
} grow;

typedef struct merge_state {
	sql_batch *lb, *rb; /* current input batches */
	int lpos, rpos;
	bool ldone, rdone; /* inputs exhausted */
	/* the group: right rows with one key value */
	util_arena *garena;
	grow *group;
	int ngroup, gcap;
	bool ggrowing; /* still copying rows of the group from the right input */
	bool gactive;  /* a group is held */
	int gpos;      /* next group row for the current left row */
	bool lactive;  /* the current left row is being joined with the group */
	bool lmatched;
	int gunmatched; /* RIGHT/FULL: next group row checked when the group ends */
	ty_datum *combo;
	size_t held;
} merge_state;

/* Compares the merge keys of a left and a right row; NULL sorts last.
 * *null is set when either side has a NULL key (no match possible). */
static int key_cmp(sql_exec *ex, const sql_plan *p, const ty_datum *l, const ty_datum *r, bool *null)
{
	*null = false;
	for (int k = 0; k < p->join.nmerge; k++) {
		ty_datum a = sql_eval(ex, p->join.lkeys[k], l), b = sql_eval(ex, p->join.rkeys[k], r);
		if (a.null || b.null) {
			*null = true;
			if (a.null && b.null)
				continue;
			return a.null ? 1 : -1;
		}
		int c = p->join.keytypes[k]->cmp(a, b);
		if (c)
			return c < 0 ? -1 : 1;
	}
	return 0;
}

/* Two right rows with the same merge keys (and no NULL among them)? */
static bool same_group(sql_exec *ex, const sql_plan *p, const ty_datum *a, const ty_datum *b)
{
	for (int k = 0; k < p->join.nmerge; k++) {
		ty_datum x = sql_eval(ex, p->join.rkeys[k], a), y = sql_eval(ex, p->join.rkeys[k], b);
		if (x.null || y.null || p->join.keytypes[k]->cmp(x, y) != 0)
			return false;
	}
	return true;
}

/* The keys after the merge keys and the join filter, for one pair. */
static bool pair_ok(sql_exec *ex, const sql_plan *p, merge_state *st, const ty_datum *l, const ty_datum *r)
{
	for (int k = p->join.nmerge; k < p->join.nkeys; k++) {
		ty_datum a = sql_eval(ex, p->join.lkeys[k], l), b = sql_eval(ex, p->join.rkeys[k], r);
		if (a.null || b.null || p->join.keytypes[k]->cmp(a, b) != 0)
			return false;
	}
	if (!p->join.joinqual)
		return true;
	int ln = p->left->ncols, rn = p->right->ncols;
	memcpy(st->combo, l, sizeof(ty_datum) * (size_t)ln);
	memcpy(st->combo + ln, r, sizeof(ty_datum) * (size_t)rn);
	return sql_eval_qual(ex, p->join.joinqual, st->combo);
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

static void group_add(sql_op *op, merge_state *st, const ty_datum *r)
{
	const sql_plan *rp = op->plan->right;
	if (st->ngroup == st->gcap) {
		int cap = st->gcap ? st->gcap * 2 : 16;
		grow *ng = util_arena_alloc(st->garena, sizeof(grow) * (size_t)cap);
		if (st->ngroup)
			memcpy(ng, st->group, sizeof(grow) * (size_t)st->ngroup);
		st->group = ng;
		st->gcap = cap;
	}
	grow *g = &st->group[st->ngroup++];
	g->vals = util_arena_alloc(st->garena, sizeof(ty_datum) * (size_t)(rp->ncols ? rp->ncols : 1));
	util_arena *old = ty_set_arena(st->garena);
	for (int c = 0; c < rp->ncols; c++) {
		g->vals[c] = sql_datum_copy(r[c], rp->types[c]);
	}
	ty_set_arena(old);
	g->matched = false;
	if ((st->ngroup & 255) == 0)
		sql_exec_account(op->ex, &st->held, util_arena_used(st->garena));
}

static void group_clear(sql_op *op, merge_state *st)
{
	util_arena_reset(st->garena);
	st->group = NULL;
	st->ngroup = st->gcap = 0;
	st->gactive = st->ggrowing = false;
	st->gunmatched = 0;
	sql_exec_account(op->ex, &st->held, 0);
}

/* Makes a left row current; false at the end of the left input. May only
 * be called with an empty output batch when it needs a new batch. */
static bool have_left(sql_op *op, merge_state *st)
{
	if (st->ldone)
		return false;
	if (st->lb && st->lpos < st->lb->n)
		return true;
	st->lb = sql_op_next(op->left);
	st->lpos = 0;
	if (st->lb->n == 0)
		st->ldone = true;
	return !st->ldone;
}

static bool have_right(sql_op *op, merge_state *st)
{
	if (st->rdone)
		return false;
	if (st->rb && st->rpos < st->rb->n)
		return true;
	st->rb = sql_op_next(op->right);
	st->rpos = 0;
	if (st->rb->n == 0)
		st->rdone = true;
	return !st->rdone;
}

/* Does fetching the next batch of an input need the output handed up
 * first (its rows point into the batch about to be replaced)? */
static bool left_needs_fetch(const merge_state *st)
{
	return !st->ldone && (!st->lb || st->lpos >= st->lb->n);
}
static bool right_needs_fetch(const merge_state *st)
{
	return !st->rdone && (!st->rb || st->rpos >= st->rb->n);
}

static sql_batch *merge_next(sql_op *op)
{
	merge_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	int ln = p->left->ncols, rn = p->right->ncols;
	bool keep_left = p->join.type == SQL_JOIN_LEFT || p->join.type == SQL_JOIN_FULL;
	bool keep_right = p->join.type == SQL_JOIN_RIGHT || p->join.type == SQL_JOIN_FULL;
	if (!st->combo) {
		st->combo = util_arena_alloc(ex->arena, sizeof(ty_datum) * (size_t)(ln + rn + 1));
		st->garena = util_arena_new(16 * 1024, 0);
	}
	sql_batch *b = sql_op_begin_batch(op);
	uint32_t steps = 0;
	while (b->n < b->cap) {
		if ((++steps & 4095) == 0)
			ty_check_interrupts();
		/* Copying the group's right rows, possibly across batches. */
		if (st->ggrowing) {
			if (right_needs_fetch(st) && b->n)
				return b;
			if (!have_right(op, st)) {
				st->ggrowing = false;
				continue;
			}
			const ty_datum *r = sql_batch_row(st->rb, st->rpos);
			if (!same_group(ex, p, st->group[0].vals, r)) {
				st->ggrowing = false;
				continue;
			}
			group_add(op, st, r);
			st->rpos++;
			continue;
		}
		if (left_needs_fetch(st) && b->n)
			return b;
		bool lhave = have_left(op, st);
		const ty_datum *l = lhave ? sql_batch_row(st->lb, st->lpos) : NULL;
		if (st->gactive) {
			bool null = false;
			if (l &&
			    (st->lactive || (key_cmp(ex, p, l, st->group[0].vals, &null) == 0 && !null))) {
				/* Join the left row with the group. */
				if (!st->lactive) {
					st->lactive = true;
					st->lmatched = false;
					st->gpos = 0;
				}
				while (st->gpos < st->ngroup && b->n < b->cap) {
					grow *g = &st->group[st->gpos++];
					if (!pair_ok(ex, p, st, l, g->vals))
						continue;
					st->lmatched = g->matched = true;
					emit(b, l, ln, g->vals, rn);
				}
				if (st->gpos < st->ngroup)
					return b;
				if (!st->lmatched && keep_left)
					emit(b, l, ln, NULL, rn);
				st->lactive = false;
				st->lpos++;
				continue;
			}
			/* The group is finished: unmatched right rows, then drop it. */
			if (keep_right) {
				while (st->gunmatched < st->ngroup && b->n < b->cap) {
					grow *g = &st->group[st->gunmatched++];
					if (!g->matched)
						emit(b, NULL, ln, g->vals, rn);
				}
				if (st->gunmatched < st->ngroup)
					return b;
			}
			if (b->n)
				return b; /* rows point into the group */
			group_clear(op, st);
			continue;
		}
		if (!l) {
			/* Left input done: the rest of the right side is unmatched. */
			if (!keep_right)
				return b;
			if (right_needs_fetch(st) && b->n)
				return b;
			if (!have_right(op, st))
				return b;
			emit(b, NULL, ln, sql_batch_row(st->rb, st->rpos++), rn);
			continue;
		}
		if (right_needs_fetch(st) && b->n)
			return b;
		if (!have_right(op, st)) {
			if (!keep_left)
				return b; /* nothing more can come out */
			emit(b, l, ln, NULL, rn);
			st->lpos++;
			continue;
		}
		const ty_datum *r = sql_batch_row(st->rb, st->rpos);
		bool null;
		int c = key_cmp(ex, p, l, r, &null);
		if (c < 0 || (c == 0 && null)) {
			/* No right row has this key (a NULL key matches nothing). */
			if (keep_left)
				emit(b, l, ln, NULL, rn);
			st->lpos++;
		} else if (c > 0) {
			if (keep_right)
				emit(b, NULL, ln, r, rn);
			st->rpos++;
		} else {
			/* Equal keys: collect the right rows of this key (the
			 * previous group is gone, nothing points into its arena). */
			group_clear(op, st);
			group_add(op, st, r);
			st->rpos++;
			st->gactive = st->ggrowing = true;
			st->lactive = false;
		}
	}
	return b;
}

static void merge_reset(merge_state *st)
{
	util_arena *ga = st->garena;
	ty_datum *combo = st->combo;
	size_t held = st->held;
	memset(st, 0, sizeof *st);
	st->garena = ga;
	st->combo = combo;
	st->held = held;
	if (ga)
		util_arena_reset(ga);
}

static void merge_rescan(sql_op *op)
{
	merge_state *st = op->state;
	merge_reset(st);
	sql_exec_account(op->ex, &st->held, 0);
	sql_op_rescan(op->left);
	sql_op_rescan(op->right);
}

static void merge_close(sql_op *op)
{
	merge_state *st = op->state;
	if (st->garena)
		util_arena_destroy(st->garena);
	st->garena = NULL;
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
}

sql_op *sql_op_mergejoin(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(merge_state));
	op->next = merge_next;
	op->rescan = merge_rescan;
	op->close = merge_close;
	return op;
}
