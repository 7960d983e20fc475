/*
 * exec_window.c — window functions over input sorted by PARTITION BY and
 * ORDER BY: each partition is buffered, then every row gets its window
 * values (ranking functions, lag/lead, first/last/nth_value, aggregates
 * over ROWS/RANGE/GROUPS frames with PostgreSQL's frame options) appended.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);
int sql_sortkey_cmp(const sql_sortkey *k, ty_datum a, ty_datum b);

/* PostgreSQL's FRAMEOPTION_* bits (nodes/parsenodes.h). */
enum {
	FO_NONDEFAULT = 0x1,
	FO_RANGE = 0x2,
	FO_ROWS = 0x4,
	FO_GROUPS = 0x8,
	FO_BETWEEN = 0x10,
	FO_START_UNBOUNDED_PRECEDING = 0x20,
	FO_END_UNBOUNDED_PRECEDING = 0x40,
	FO_START_UNBOUNDED_FOLLOWING = 0x80,
	FO_END_UNBOUNDED_FOLLOWING = 0x100,
	FO_START_CURRENT_ROW = 0x200,
	FO_END_CURRENT_ROW = 0x400,
	FO_START_OFFSET_PRECEDING = 0x800,
	FO_END_OFFSET_PRECEDING = 0x1000,
	FO_START_OFFSET_FOLLOWING = 0x2000,
	FO_END_OFFSET_FOLLOWING = 0x4000,
	FO_EXCLUDE_CURRENT_ROW = 0x8000,
	FO_EXCLUDE_GROUP = 0x10000,
	FO_EXCLUDE_TIES = 0x20000,
};

typedef struct win_state {
	util_arena *arena;     /* all input rows */
	ty_datum **all;
	size_t nall, capall, part_end;
	ty_datum **rows;       /* the current partition (a slice of all) */
	size_t n;
	bool input_done;
	size_t emit;           /* next row of the partition to emit */
	bool ready;
	int64_t *peer_start, *peer_end; /* per row: its peer group [start, end) */
	int64_t *group_no;
	size_t held;           /* accounted memory */
} win_state;

static bool same_partition(sql_op *op, const ty_datum *a, const ty_datum *b)
{
	const sql_plan *p = op->plan;
	for (int i = 0; i < p->window.clause->npart; i++) {
		ty_datum x = sql_eval(op->ex, p->window.part[i], a), y = sql_eval(op->ex, p->window.part[i], b);
		if (x.null || y.null) {
			if (x.null != y.null)
				return false;
			continue;
		}
		if (ty_compare(p->window.part[i]->type, x, y) != 0)
			return false;
	}
	return true;
}

static bool peers(sql_op *op, const ty_datum *a, const ty_datum *b)
{
	const sql_plan *p = op->plan;
	for (int i = 0; i < p->window.clause->norder; i++) {
		const sql_sortkey *k = &p->window.order[i];
		if (sql_sortkey_cmp(k, sql_eval(op->ex, k->expr, a), sql_eval(op->ex, k->expr, b)) != 0)
			return false;
	}
	return true;
}

static ty_datum *copy_row(const sql_plan *in, const ty_datum *row, int extra)
{
	ty_datum *c = ty_alloc(sizeof(ty_datum) * (size_t)(in->ncols + extra + 1));
	for (int i = 0; i < in->ncols; i++) {
		c[i] = sql_datum_copy(row[i], in->types[i]);
	}
	for (int i = 0; i < extra; i++)
		c[in->ncols + i] = ty_null();
	return c;
}

/* Reads the whole (sorted) input; partitions are index ranges of it. */
static void read_all(sql_op *op, win_state *st)
{
	const sql_plan *p = op->plan;
	int extra = p->window.nfuncs;
	util_arena *old = ty_get_arena();
	for (;;) {
		sql_batch *b = sql_op_next(op->left);
		if (b->n == 0)
			break;
		ty_set_arena(st->arena);
		for (int i = 0; i < b->n; i++) {
			if (st->nall == st->capall) {
				st->capall = st->capall ? st->capall * 2 : 256;
				st->all = util_xrealloc(st->all, sizeof(ty_datum *) * st->capall);
			}
			st->all[st->nall++] = copy_row(p->left, sql_batch_row(b, i), extra);
		}
		ty_set_arena(old);
		sql_exec_account(op->ex, &st->held, util_arena_used(st->arena) + st->capall * sizeof(ty_datum *));
		ty_check_interrupts();
	}
	ty_set_arena(old);
	st->input_done = true;
}

/* Makes the next partition current (st->rows/st->n); false at the end. */
static bool next_partition(sql_op *op, win_state *st)
{
	if (st->part_end >= st->nall)
		return false;
	size_t s = st->part_end, e = s + 1;
	while (e < st->nall && same_partition(op, st->all[s], st->all[e]))
		e++;
	st->rows = st->all + s;
	st->n = e - s;
	st->part_end = e;
	return true;
}

/* RANGE offset bounds (PostgreSQL's update_frameheadpos/tailpos): whether
 * row k lies at or after the frame start (head) / within the frame end
 * (tail) of the current row, by in_range(); NULL keys sort by the
 * ORDER BY key's NULLS FIRST/LAST and are never in range of a value. */
static bool range_in(sql_op *op, win_state *st, const ty_func *f, int64_t k, ty_datum curr, ty_datum off, bool sub,
		     bool less, bool head)
{
	const sql_sortkey *key = &op->plan->window.order[0];
	ty_datum v = sql_eval(op->ex, key->expr, st->rows[k]);
	if (v.null)
		return head ? !key->nulls_first : key->nulls_first;
	ty_datum args[5] = {v, curr, off, ty_bool(sub), ty_bool(less)};
	ty_fcinfo fc = {.nargs = 5, .args = args, .argtypes = f->args, .rettype = TY_BOOL, .rettypmod = -1, .exec = op->ex};
	ty_datum r = f->fn(&fc);
	return !r.null && r.i;
}

/* First row in [lo, hi) for which pred holds (pred is false then true
 * along the partition), by bisection. */
static int64_t range_bound(sql_op *op, win_state *st, const ty_func *f, ty_datum curr, ty_datum off, bool sub,
			   bool less, bool head)
{
	int64_t lo = 0, hi = (int64_t)st->n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		bool in = range_in(op, st, f, mid, curr, off, sub, less, head);
		/* head: rows at/after the start satisfy it; tail: rows past the
		 * end are those that no longer satisfy it. */
		if (head ? in : !in)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Frame bounds [start, end) of row i. */
static void frame(sql_op *op, win_state *st, int64_t i, int64_t *start, int64_t *end)
{
	const sql_plan *p = op->plan;
	int fo = p->window.clause->frame_options;
	int64_t n = (int64_t)st->n;
	if (!(fo & FO_NONDEFAULT)) {
		/* Default: RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers), or the
		 * whole partition without ORDER BY. */
		*start = 0;
		*end = p->window.clause->norder ? st->peer_end[i] : n;
		return;
	}
	int64_t off_s = 0, off_e = 0;
	bool rows = fo & FO_ROWS, groups = fo & FO_GROUPS;
	ty_datum doff_s = ty_null(), doff_e = ty_null();
	if (fo & (FO_START_OFFSET_PRECEDING | FO_START_OFFSET_FOLLOWING)) {
		ty_datum d = sql_eval(op->ex, p->window.clause->start_offset, st->rows[i]);
		if (d.null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "frame starting offset must not be null");
		if ((rows || groups) && d.i < 0)
			ty_error(UTIL_E_INVALID_PRECEDING_OR_FOLLOWING_SIZE, "frame starting offset must not be negative");
		off_s = d.i;
		doff_s = d;
	}
	if (fo & (FO_END_OFFSET_PRECEDING | FO_END_OFFSET_FOLLOWING)) {
		ty_datum d = sql_eval(op->ex, p->window.clause->end_offset, st->rows[i]);
		if (d.null)
			ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "frame ending offset must not be null");
		if ((rows || groups) && d.i < 0)
			ty_error(UTIL_E_INVALID_PRECEDING_OR_FOLLOWING_SIZE, "frame ending offset must not be negative");
		off_e = d.i;
		doff_e = d;
	}
	bool asc = p->window.clause->norder ? !p->window.order[0].desc : true;
	ty_datum curr = ty_null();
	if (!rows && !groups && (fo & (FO_START_OFFSET_PRECEDING | FO_START_OFFSET_FOLLOWING | FO_END_OFFSET_PRECEDING |
				       FO_END_OFFSET_FOLLOWING)))
		curr = sql_eval(op->ex, p->window.order[0].expr, st->rows[i]);
	int64_t s, e;
	if (fo & FO_START_UNBOUNDED_PRECEDING)
		s = 0;
	else if (fo & FO_START_CURRENT_ROW)
		s = rows ? i : st->peer_start[i];
	else if (rows)
		s = (fo & FO_START_OFFSET_PRECEDING) ? i - off_s : i + off_s;
	else if (groups) {
		int64_t g = st->group_no[i] + ((fo & FO_START_OFFSET_PRECEDING) ? -off_s : off_s);
		s = n;
		for (int64_t k = 0; k < n; k++)
			if (st->group_no[k] >= g) {
				s = k;
				break;
			}
	} else if (curr.null) {
		s = st->peer_start[i]; /* a NULL key's frame is its NULL peers */
	} else {
		bool sub = (fo & FO_START_OFFSET_PRECEDING) != 0, less = false;
		if (!asc) {
			sub = !sub;
			less = true;
		}
		s = range_bound(op, st, p->window.clause->start_in_range, curr, doff_s, sub, less, true);
	}
	if (fo & FO_END_UNBOUNDED_FOLLOWING)
		e = n;
	else if (fo & FO_END_CURRENT_ROW)
		e = rows ? i + 1 : st->peer_end[i];
	else if (rows)
		e = ((fo & FO_END_OFFSET_PRECEDING) ? i - off_e : i + off_e) + 1;
	else if (groups) {
		int64_t g = st->group_no[i] + ((fo & FO_END_OFFSET_PRECEDING) ? -off_e : off_e);
		e = 0;
		for (int64_t k = n - 1; k >= 0; k--)
			if (st->group_no[k] <= g) {
				e = k + 1;
				break;
			}
	} else if (curr.null) {
		e = st->peer_end[i];
	} else {
		bool sub = (fo & FO_END_OFFSET_PRECEDING) != 0, less = true;
		if (!asc) {
			sub = !sub;
			less = false;
		}
		e = range_bound(op, st, p->window.clause->end_in_range, curr, doff_e, sub, less, false);
	}
	if (s < 0)
		s = 0;
	if (e > n)
		e = n;
	*start = s;
	*end = e < s ? s : e;
}

static bool excluded(sql_op *op, win_state *st, int64_t cur, int64_t k)
{
	int fo = op->plan->window.clause->frame_options;
	if ((fo & FO_EXCLUDE_CURRENT_ROW) && k == cur)
		return true;
	if ((fo & FO_EXCLUDE_GROUP) && k >= st->peer_start[cur] && k < st->peer_end[cur])
		return true;
	if ((fo & FO_EXCLUDE_TIES) && k != cur && k >= st->peer_start[cur] && k < st->peer_end[cur])
		return true;
	return false;
}

static ty_datum aggregate_frame(sql_op *op, win_state *st, const sql_winref *w, int64_t cur, int64_t s, int64_t e)
{
	int64_t count = 0;
	ty_datum best = ty_null();
	void *state = NULL;
	if (w->aggkind == SQL_AGG_GENERIC && w->agg) {
		state = ty_alloc0(w->agg->state_size ? w->agg->state_size : 8);
		if (w->agg->init) {
			ty_fcinfo fc = {.nargs = w->nargs, .argtypes = w->argtypes, .rettype = w->rettype, .rettypmod = -1,
					.exec = op->ex};
			w->agg->init(state, &fc);
		}
	}
	ty_datum args[TY_FUNC_MAX_ARGS];
	for (int64_t k = s; k < e; k++) {
		if (excluded(op, st, cur, k))
			continue;
		const ty_datum *row = st->rows[k];
		if (w->filter && !sql_eval_qual(op->ex, w->filter, row))
			continue;
		for (int a = 0; a < w->nargs && a < TY_FUNC_MAX_ARGS; a++)
			args[a] = sql_eval(op->ex, w->args[a], row);
		switch (w->aggkind) {
		case SQL_AGG_COUNT_STAR:
			count++;
			break;
		case SQL_AGG_COUNT:
			count += !args[0].null;
			break;
		case SQL_AGG_MIN:
		case SQL_AGG_MAX:
			if (!args[0].null) {
				int c = best.null ? 0 : ty_compare(w->argtypes[0], args[0], best);
				if (best.null || (w->aggkind == SQL_AGG_MIN ? c < 0 : c > 0))
					best = args[0];
			}
			break;
		default: {
			bool skip = false;
			if (w->agg->strict)
				for (int a = 0; a < w->nargs; a++)
					skip |= args[a].null;
			if (skip)
				break;
			ty_fcinfo fc = {.nargs = w->nargs, .args = args, .argtypes = w->argtypes, .rettype = w->rettype,
					.rettypmod = -1, .exec = op->ex};
			w->agg->step(state, &fc);
		}
		}
	}
	switch (w->aggkind) {
	case SQL_AGG_COUNT_STAR:
	case SQL_AGG_COUNT:
		return ty_int(count);
	case SQL_AGG_MIN:
	case SQL_AGG_MAX:
		return best;
	default: {
		ty_fcinfo fc = {.nargs = 0, .argtypes = w->argtypes, .rettype = w->rettype, .rettypmod = -1, .exec = op->ex};
		return w->agg->final(state, &fc);
	}
	}
}

/* An aggregate over a frame that only grows at its end. */
typedef struct running {
	bool init;
	int64_t end;
	int64_t count;
	ty_datum best;
	void *state;
} running;

static ty_datum running_step(sql_op *op, win_state *st, const sql_winref *w, running *r, int64_t e)
{
	if (!r->init) {
		r->init = true;
		r->best = ty_null();
		if (w->aggkind == SQL_AGG_GENERIC && w->agg) {
			r->state = ty_alloc0(w->agg->state_size ? w->agg->state_size : 8);
			if (w->agg->init) {
				ty_fcinfo fc = {.nargs = w->nargs, .argtypes = w->argtypes, .rettype = w->rettype,
						.rettypmod = -1, .exec = op->ex};
				w->agg->init(r->state, &fc);
			}
		}
	}
	ty_datum args[TY_FUNC_MAX_ARGS];
	for (; r->end < e; r->end++) {
		const ty_datum *row = st->rows[r->end];
		if (w->filter && !sql_eval_qual(op->ex, w->filter, row))
			continue;
		for (int a = 0; a < w->nargs && a < TY_FUNC_MAX_ARGS; a++)
			args[a] = sql_eval(op->ex, w->args[a], row);
		switch (w->aggkind) {
		case SQL_AGG_COUNT_STAR:
			r->count++;
			break;
		case SQL_AGG_COUNT:
			r->count += !args[0].null;
			break;
		case SQL_AGG_MIN:
		case SQL_AGG_MAX:
			if (!args[0].null) {
				int c = r->best.null ? 0 : ty_compare(w->argtypes[0], args[0], r->best);
				if (r->best.null || (w->aggkind == SQL_AGG_MIN ? c < 0 : c > 0))
					r->best = args[0];
			}
			break;
		default: {
			bool skip = false;
			if (w->agg->strict)
				for (int a = 0; a < w->nargs; a++)
					skip |= args[a].null;
			if (skip)
				break;
			ty_fcinfo fc = {.nargs = w->nargs, .args = args, .argtypes = w->argtypes, .rettype = w->rettype,
					.rettypmod = -1, .exec = op->ex};
			w->agg->step(r->state, &fc);
		}
		}
	}
	switch (w->aggkind) {
	case SQL_AGG_COUNT_STAR:
	case SQL_AGG_COUNT:
		return ty_int(r->count);
	case SQL_AGG_MIN:
	case SQL_AGG_MAX:
		return r->best;
	default: {
		ty_fcinfo fc = {.nargs = 0, .argtypes = w->argtypes, .rettype = w->rettype, .rettypmod = -1, .exec = op->ex};
		return w->agg->final(r->state, &fc);
	}
	}
}

/* Computes the window functions for every row of the partition. */
static void compute(sql_op *op, win_state *st)
{
	const sql_plan *p = op->plan;
	int64_t n = (int64_t)st->n;
	util_arena *old = ty_set_arena(st->arena);
	st->peer_start = ty_alloc(sizeof(int64_t) * (size_t)(n + 1));
	st->peer_end = ty_alloc(sizeof(int64_t) * (size_t)(n + 1));
	st->group_no = ty_alloc(sizeof(int64_t) * (size_t)(n + 1));
	int64_t gs = 0, g = 0;
	for (int64_t i = 0; i < n; i++) {
		if (i > 0 && !peers(op, st->rows[i - 1], st->rows[i])) {
			for (int64_t k = gs; k < i; k++)
				st->peer_end[k] = i;
			gs = i;
			g++;
		}
		st->peer_start[i] = gs;
		st->group_no[i] = g;
	}
	for (int64_t k = gs; k < n; k++)
		st->peer_end[k] = n;
	int base = p->left->ncols;
	int fo = p->window.clause->frame_options;
	for (int f = 0; f < p->window.nfuncs; f++) {
		const sql_winref *w = &p->window.funcs[f];
		const char *name = w->name;
		int64_t rank = 1, dense = 1;
		/* Frames that start at the partition start and exclude nothing grow
		 * monotonically: aggregate them incrementally (O(n), not O(n^2)). */
		bool incremental = (!(fo & FO_NONDEFAULT) || (fo & FO_START_UNBOUNDED_PRECEDING)) &&
				   !(fo & (FO_EXCLUDE_CURRENT_ROW | FO_EXCLUDE_GROUP | FO_EXCLUDE_TIES));
		running run;
		memset(&run, 0, sizeof run);
		for (int64_t i = 0; i < n; i++) {
			ty_datum *row = st->rows[i];
			ty_datum v = ty_null();
			if ((i & 255) == 255)
				ty_check_interrupts();
			if (i > 0 && st->peer_start[i] == i) {
				rank = i + 1;
				dense++;
			}
			if ((w->agg || w->aggkind) && incremental) {
				int64_t s, e;
				frame(op, st, i, &s, &e);
				v = running_step(op, st, w, &run, e);
			} else if (w->agg || w->aggkind) {
				int64_t s, e;
				frame(op, st, i, &s, &e);
				v = aggregate_frame(op, st, w, i, s, e);
			} else if (!strcmp(name, "row_number")) {
				v = ty_int(i + 1);
			} else if (!strcmp(name, "rank")) {
				v = ty_int(rank);
			} else if (!strcmp(name, "dense_rank")) {
				v = ty_int(dense);
			} else if (!strcmp(name, "percent_rank")) {
				v = ty_float(n > 1 ? (double)(rank - 1) / (double)(n - 1) : 0.0);
			} else if (!strcmp(name, "cume_dist")) {
				v = ty_float((double)st->peer_end[i] / (double)n);
			} else if (!strcmp(name, "ntile")) {
				ty_datum b = sql_eval(op->ex, w->args[0], row);
				if (b.null)
					v = ty_null();
				else {
					if (b.i <= 0)
						ty_error(UTIL_E_INVALID_ARGUMENT_FOR_NTILE, "argument of ntile must be greater than zero");
					int64_t buckets = b.i, per = n / buckets, rem = n % buckets;
					/* The first rem buckets get one extra row. */
					int64_t big = (per + 1) * rem;
					v = ty_int(i < big ? i / (per + 1) + 1 : (i - big) / (per ? per : 1) + rem + 1);
				}
			} else if (!strcmp(name, "lag") || !strcmp(name, "lead")) {
				int64_t off = 1;
				if (w->nargs >= 2) {
					ty_datum o = sql_eval(op->ex, w->args[1], row);
					if (o.null) {
						st->rows[i][base + f] = ty_null();
						continue;
					}
					off = o.i;
				}
				int64_t k = !strcmp(name, "lag") ? i - off : i + off;
				if (k >= 0 && k < n)
					v = sql_eval(op->ex, w->args[0], st->rows[k]);
				else if (w->nargs == 3)
					v = sql_eval(op->ex, w->args[2], row);
			} else {
				int64_t s, e;
				frame(op, st, i, &s, &e);
				/* Apply EXCLUDE by skipping rows. */
				int64_t idx[3] = {-1, -1, -1};
				if (!strcmp(name, "first_value")) {
					for (int64_t k = s; k < e; k++)
						if (!excluded(op, st, i, k)) {
							idx[0] = k;
							break;
						}
				} else if (!strcmp(name, "last_value")) {
					for (int64_t k = e - 1; k >= s; k--)
						if (!excluded(op, st, i, k)) {
							idx[0] = k;
							break;
						}
				} else if (!strcmp(name, "nth_value")) {
					ty_datum nn = sql_eval(op->ex, w->args[1], row);
					if (!nn.null) {
						if (nn.i <= 0)
							ty_error(UTIL_E_INVALID_ARGUMENT_FOR_NTH_VALUE,
								 "argument of nth_value must be greater than zero");
						int64_t cnt = 0;
						for (int64_t k = s; k < e; k++)
							if (!excluded(op, st, i, k) && ++cnt == nn.i) {
								idx[0] = k;
								break;
							}
					}
				}
				if (idx[0] >= 0)
					v = sql_eval(op->ex, w->args[0], st->rows[idx[0]]);
			}
			st->rows[i][base + f] = sql_datum_copy(v, w->rettype);
		}
	}
	(void)fo;
	ty_set_arena(old);
}

static sql_batch *window_next(sql_op *op)
{
	win_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->arena)
		st->arena = util_arena_new(64 * 1024, 0);
	sql_exec_charge(op->ex, st->arena);
	sql_batch *b = sql_op_begin_batch(op);
	if (!st->input_done)
		read_all(op, st);
	while (b->n < b->cap) {
		if (!st->ready || st->emit >= st->n) {
			if (!next_partition(op, st))
				return b;
			st->emit = 0;
			st->ready = true;
			compute(op, st);
		}
		memcpy(sql_batch_row(b, b->n++), st->rows[st->emit++], sizeof(ty_datum) * (size_t)p->ncols);
	}
	return b;
}

static void window_close(sql_op *op)
{
	win_state *st = op->state;
	util_arena_destroy(st->arena);
	free(st->all);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
	memset(st, 0, sizeof *st);
}

static void window_rescan(sql_op *op)
{
	window_close(op);
	sql_op_rescan(op->left);
}

sql_op *sql_op_window(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(win_state));
	op->next = window_next;
	op->close = window_close;
	op->rescan = window_rescan;
	return op;
}
