/*
 * exec_agg.c — aggregation: one group (plain) or hash grouping, grouping
 * sets (ROLLUP/CUBE/GROUPING SETS with GROUPING()), count/min/max for any
 * orderable type, the registered aggregates (sum, avg, string_agg ...),
 * DISTINCT and ORDER BY inside aggregates, FILTER, and ordered-set
 * aggregates (percentile_cont/disc WITHIN GROUP). Groups come out in the
 * order they were first seen. Over a parallel scan (agg.partial) each worker
 * aggregates its own rows and merges its groups at the end (combine).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);
bool sql_rows_equal(const ty_oid *types, const ty_datum *a, const ty_datum *b, int n);
int sql_sortkey_cmp(const sql_sortkey *k, ty_datum a, ty_datum b);


/* Buffered input of an aggregate with DISTINCT or ORDER BY. */
typedef struct buffered {
	ty_datum *rows; /* per row: nargs args then norder keys */
	size_t n, cap;
} buffered;

typedef struct aggval {
	int64_t count;
	ty_datum minmax;
	bool has;
	void *state;     /* registered aggregate state */
	buffered buf;
} aggval;

typedef struct group {
	ty_datum *keys;
	uint64_t hash;
	struct group *next_in_bucket;
	struct group *next_in_order;
	aggval *vals;
	int set;         /* grouping set index */
} group;

/* Hash aggregation past its memory (2 x work_mem, PostgreSQL's default
 * hash_mem_multiplier): groups already in memory keep aggregating, rows of
 * new groups go to one of AGG_NPART partition files by hash; after the
 * in-memory groups are emitted, each partition is aggregated in turn
 * (partitioning again, on other hash bits, if it is still too big). */
#define AGG_NPART 16

typedef struct agg_part {
	sql_spill *f;
	int depth;
} agg_part;

typedef struct agg_state {
	util_arena *arena;
	group **buckets;
	size_t nbuckets, ngroups;
	group *first, *last;
	bool loaded;
	group *emit;
	int nsets;
	size_t held;          /* accounted memory */
	bool spillable;
	ty_oid *spill_types;  /* input columns ++ grouping set index */
	bool spilling;        /* new groups go to partitions */
	int depth;            /* partitioning level of the rows being loaded */
	sql_spill *cur[AGG_NPART];
	agg_part *pending;    /* partitions still to aggregate */
	int npending, cappending;
	/* Partial aggregation by the workers of a parallel scan (agg.partial). */
	sql_par_sink sink;
	bool par_used;          /* the sink was given to the scan: par_mu is initialised */
	pthread_mutex_t par_mu; /* serialises the workers' merges into this state */
} agg_state;

static int ngroup_keys(const sql_plan *p) { return p->agg.ngroup; }

static bool in_set(const sql_plan *p, int set, int k)
{
	if (!p->agg.ngsets)
		return true;
	for (int i = 0; i < p->agg.gset_len[set]; i++)
		if (p->agg.gsets[set][i] == k)
			return true;
	return false;
}

static void init_vals(sql_op *op, group *g)
{
	const sql_plan *p = op->plan;
	g->vals = ty_alloc0(sizeof(aggval) * (size_t)(p->agg.naggs ? p->agg.naggs : 1));
	for (int i = 0; i < p->agg.naggs; i++) {
		const sql_aggref *ar = &p->agg.aggs[i];
		if (ar->kind == SQL_AGG_GENERIC && ar->agg) {
			g->vals[i].state = ty_alloc0(ar->agg->state_size ? ar->agg->state_size : 8);
			if (ar->agg->init) {
				ty_fcinfo fc = {.nargs = ar->nargs, .argtypes = ar->argtypes, .rettype = ar->rettype,
						.rettypmod = -1, .exec = op->ex};
				ar->agg->init(g->vals[i].state, &fc);
			}
		}
	}
}

static group *find_group(sql_op *op, agg_state *st, const ty_datum *keys, int nk, int set, uint64_t *hash_out)
{
	const sql_plan *p = op->plan;
	uint64_t h = 0x1b873593u + (uint64_t)set;
	for (int k = 0; k < nk; k++) {
		uint64_t v = 0x77;
		if (!keys[k].null) {
			const ty_type *t = ty_type_get(p->agg.group[k]->type);
			if (!t || !t->hash)
				ty_error(UTIL_E_UNDEFINED_FUNCTION, "could not identify an equality operator for type %s",
					 t ? t->name : "?");
			v = t->hash(keys[k]);
		}
		h = util_hash_mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6)));
	}
	if (st->nbuckets == 0 || st->ngroups * 2 >= st->nbuckets) {
		size_t nb = st->nbuckets ? st->nbuckets * 2 : 256;
		group **nbk = util_xcalloc(nb, sizeof *nbk);
		for (group *g = st->first; g; g = g->next_in_order) {
			size_t bi = g->hash & (nb - 1);
			g->next_in_bucket = nbk[bi];
			nbk[bi] = g;
		}
		free(st->buckets);
		st->buckets = nbk;
		st->nbuckets = nb;
	}
	ty_oid types[64];
	for (int k = 0; k < nk && k < 64; k++)
		types[k] = p->agg.group[k]->type;
	for (group *g = st->buckets[h & (st->nbuckets - 1)]; g; g = g->next_in_bucket)
		if (g->hash == h && g->set == set && sql_rows_equal(types, g->keys, keys, nk))
			return g;
	if (hash_out) {
		/* Spilling: the caller sends this row to a partition. */
		*hash_out = h;
		return NULL;
	}
	group *g = ty_alloc0(sizeof *g);
	g->keys = ty_alloc(sizeof(ty_datum) * (size_t)(nk ? nk : 1));
	for (int k = 0; k < nk; k++) {
		g->keys[k] = sql_datum_copy(keys[k], types[k]);
	}
	g->hash = h;
	g->set = set;
	size_t bi = h & (st->nbuckets - 1);
	g->next_in_bucket = st->buckets[bi];
	st->buckets[bi] = g;
	if (st->last)
		st->last->next_in_order = g;
	else
		st->first = g;
	st->last = g;
	st->ngroups++;
	init_vals(op, g);
	return g;
}

static void step_generic(sql_op *op, const sql_aggref *ar, aggval *v, ty_datum *args)
{
	if (ar->agg->strict)
		for (int i = 0; i < ar->nargs; i++)
			if (args[i].null)
				return;
	/* Transition functions copy their inputs flat; a record's fields live
	 * outside it (in the input batch), so records are copied deeply into
	 * the state's arena first (user types: oids from 16384, such as table
	 * row types, may be records too). */
	for (int i = 0; i < ar->nargs; i++)
		if (ar->argtypes[i] == TY_RECORD || ar->argtypes[i] >= 16384)
			args[i] = sql_datum_copy(args[i], ar->argtypes[i]);
	ty_fcinfo fc = {.nargs = ar->nargs, .args = args, .argtypes = ar->argtypes, .rettype = ar->rettype,
			.rettypmod = -1, .exec = op->ex};
	ar->agg->step(v->state, &fc);
}

static void step_one(sql_op *op, const sql_aggref *ar, aggval *v, ty_datum *args)
{
	switch (ar->kind) {
	case SQL_AGG_COUNT_STAR:
		v->count++;
		return;
	case SQL_AGG_COUNT:
		if (!args[0].null)
			v->count++;
		return;
	case SQL_AGG_MIN:
	case SQL_AGG_MAX: {
		if (args[0].null)
			return;
		const ty_type *t = ty_type_get(ar->argtypes[0]);
		if (v->has) {
			int c = t->cmp(args[0], v->minmax);
			if ((ar->kind == SQL_AGG_MIN && c >= 0) || (ar->kind == SQL_AGG_MAX && c <= 0))
				return;
		}
		v->minmax = sql_datum_copy(args[0], ar->argtypes[0]); /* a record deeply */
		v->has = true;
		return;
	}
	default:
		step_generic(op, ar, v, args);
	}
}

static void buffer_row(const sql_aggref *ar, aggval *v, ty_datum *args, ty_datum *keys)
{
	int w = ar->nargs + ar->norder;
	if (v->buf.n == v->buf.cap) {
		size_t cap = v->buf.cap ? v->buf.cap * 2 : 16;
		ty_datum *nr = ty_alloc(sizeof(ty_datum) * cap * (size_t)(w ? w : 1));
		if (v->buf.n)
			memcpy(nr, v->buf.rows, sizeof(ty_datum) * v->buf.n * (size_t)w);
		v->buf.rows = nr;
		v->buf.cap = cap;
	}
	ty_datum *dst = v->buf.rows + v->buf.n * (size_t)w;
	for (int i = 0; i < ar->nargs; i++) {
		dst[i] = sql_datum_copy(args[i], ar->argtypes[i]);
	}
	for (int i = 0; i < ar->norder; i++)
		dst[ar->nargs + i] = sql_datum_copy(keys[i], ar->order[i].type->oid);
	v->buf.n++;
}

/* Arguments are evaluated in the input batch's arena (temporaries die
 * with it); aggregate state is updated in the aggregate's arena. */
static void accumulate(sql_op *op, agg_state *st, group *g, const ty_datum *row, util_arena *scratch)
{
	const sql_plan *p = op->plan;
	ty_datum args[TY_FUNC_MAX_ARGS + 8], keys[16];
	for (int i = 0; i < p->agg.naggs; i++) {
		const sql_aggref *ar = &p->agg.aggs[i];
		ty_set_arena(scratch);
		if (ar->filter && !sql_eval_qual(op->ex, ar->filter, row))
			continue;
		for (int a = 0; a < ar->nargs; a++)
			args[a] = sql_eval(op->ex, ar->args[a], row);
		for (int k = 0; k < ar->norder && k < 16; k++)
			keys[k] = sql_eval(op->ex, ar->order[k].expr, row);
		ty_set_arena(st->arena);
		if (ar->distinct || ar->norder || (ar->agg && ar->agg->ordered_set)) {
			if (ar->distinct) {
				bool any_null = false;
				for (int a = 0; a < ar->nargs; a++)
					any_null |= args[a].null;
				if (any_null && ar->kind != SQL_AGG_COUNT_STAR && (!ar->agg || ar->agg->strict || ar->kind == SQL_AGG_COUNT))
					continue;
			}
			buffer_row(ar, &g->vals[i], args, keys);
			continue;
		}
		step_one(op, ar, &g->vals[i], args);
	}
}

typedef struct bsort_ctx {
	const sql_aggref *ar;
	int w;
} bsort_ctx;

static int buf_cmp(const void *a, const void *b, void *arg)
{
	const bsort_ctx *c = arg;
	const ty_datum *x = a, *y = b;
	const sql_aggref *ar = c->ar;
	for (int k = 0; k < ar->norder; k++) {
		int r = sql_sortkey_cmp(&ar->order[k], x[ar->nargs + k], y[ar->nargs + k]);
		if (r)
			return r;
	}
	/* DISTINCT: order by the arguments so duplicates are adjacent. */
	if (ar->distinct)
		for (int i = 0; i < ar->nargs; i++) {
			int r = ty_compare(ar->argtypes[i], x[i], y[i]);
			if (r)
				return r;
		}
	return 0;
}

/* Sorts/dedups buffered input and feeds it to the aggregate. */
static void drain_buffer(sql_op *op, const sql_aggref *ar, aggval *v)
{
	int w = ar->nargs + ar->norder;
	bsort_ctx c = {ar, w};
	if (v->buf.n > 1) {
		/* qsort_r sorts fixed-size elements: sort an index instead. */
		size_t n = v->buf.n;
		ty_datum *sorted = ty_alloc(sizeof(ty_datum) * n * (size_t)(w ? w : 1));
		memcpy(sorted, v->buf.rows, sizeof(ty_datum) * n * (size_t)w);
		qsort_r(sorted, n, sizeof(ty_datum) * (size_t)w, buf_cmp, &c);
		v->buf.rows = sorted;
	}
	ty_datum *prev = NULL;
	for (size_t r = 0; r < v->buf.n; r++) {
		ty_datum *row = v->buf.rows + r * (size_t)w;
		if (ar->distinct && prev && sql_rows_equal(ar->argtypes, prev, row, ar->nargs))
			continue;
		prev = row;
		if (ar->agg && ar->agg->ordered_set) {
			step_generic(op, ar, v, row);
			continue;
		}
		step_one(op, ar, v, row);
	}
	v->buf.n = 0;
}

static ty_datum finalize(sql_op *op, const sql_aggref *ar, aggval *v, const ty_datum *direct)
{
	if (ar->distinct || ar->norder || (ar->agg && ar->agg->ordered_set))
		drain_buffer(op, ar, v);
	switch (ar->kind) {
	case SQL_AGG_COUNT_STAR:
	case SQL_AGG_COUNT:
		return ty_int(v->count);
	case SQL_AGG_MIN:
	case SQL_AGG_MAX:
		return v->has ? v->minmax : ty_null();
	default: {
		ty_fcinfo fc = {.nargs = ar->ndirect, .args = (ty_datum *)direct, .argtypes = ar->argtypes,
				.rettype = ar->rettype, .rettypmod = -1, .exec = op->ex};
		return ar->agg->final(v->state, &fc);
	}
	}
}

static void order_by_set(agg_state *st);

static size_t agg_mem(agg_state *st) { return util_arena_used(st->arena) + st->nbuckets * sizeof(group *); }

static void check_memory(sql_op *op, agg_state *st)
{
	size_t used = agg_mem(st);
	if (!st->spilling && st->spillable && used > 2 * sql_exec_work_mem(op->ex))
		st->spilling = true;
	sql_exec_account(op->ex, &st->held, used);
}

/* One input row (or a partition's row for grouping set `only`): into the
 * groups of each grouping set, or to a partition file when spilling and its
 * group is not in memory. */
static void consume_row(sql_op *op, agg_state *st, const ty_datum *row, int only, util_arena *scratch)
{
	const sql_plan *p = op->plan;
	int nk = ngroup_keys(p);
	ty_datum keys[64];
	ty_set_arena(scratch);
	for (int k = 0; k < nk && k < 64; k++)
		keys[k] = sql_eval(op->ex, p->agg.group[k], row);
	ty_set_arena(st->arena);
	for (int s = only < 0 ? 0 : only; s < (only < 0 ? st->nsets : only + 1); s++) {
		ty_datum sk[64];
		for (int k = 0; k < nk && k < 64; k++)
			sk[k] = in_set(p, s, k) ? keys[k] : ty_null();
		uint64_t h = 0;
		group *g = find_group(op, st, sk, nk, s, st->spilling ? &h : NULL);
		if (!g) {
			int part = (int)((h >> (4 * st->depth + 7)) & (AGG_NPART - 1));
			if (!st->cur[part])
				st->cur[part] = sql_spill_new();
			int nin = p->left->ncols;
			ty_datum tmp[TY_FUNC_MAX_ARGS + 64];
			ty_datum *r = nin + 1 <= (int)UTIL_ARRAY_LEN(tmp) ? tmp : ty_alloc(sizeof(ty_datum) * (size_t)(nin + 1));
			memcpy(r, row, sizeof(ty_datum) * (size_t)nin);
			r[nin] = ty_int(s);
			sql_spill_put(st->cur[part], r, st->spill_types, nin + 1);
			continue;
		}
		accumulate(op, st, g, row, scratch);
		ty_set_arena(st->arena);
	}
}

/* End of an input: the partitions written meanwhile are queued. */
static void finish_input(agg_state *st)
{
	for (int i = 0; i < AGG_NPART; i++) {
		if (!st->cur[i])
			continue;
		sql_spill_rewind(st->cur[i]);
		if (st->npending == st->cappending) {
			st->cappending = st->cappending ? st->cappending * 2 : 32;
			st->pending = util_xrealloc(st->pending, sizeof(agg_part) * (size_t)st->cappending);
		}
		st->pending[st->npending++] = (agg_part){st->cur[i], st->depth + 1};
		st->cur[i] = NULL;
	}
	st->spilling = false;
}

/* The in-memory groups are out: aggregate the next partition. */
static bool load_partition(sql_op *op, agg_state *st)
{
	if (!st->npending)
		return false;
	agg_part part = st->pending[0];
	memmove(st->pending, st->pending + 1, sizeof(agg_part) * (size_t)(st->npending - 1));
	st->npending--;
	if (part.depth > 12) {
		sql_spill_free(part.f);
		ty_error(UTIL_E_OUT_OF_MEMORY, "hash aggregation cannot split a group set that does not fit in memory");
	}
	util_arena_reset(st->arena);
	free(st->buckets);
	st->buckets = NULL;
	st->nbuckets = st->ngroups = 0;
	st->first = st->last = NULL;
	st->depth = part.depth;
	const sql_plan *p = op->plan;
	int nin = p->left->ncols;
	util_arena *scratch = util_arena_new(64 * 1024, 0);
	util_arena *old = ty_get_arena();
	ty_datum *row = util_xmalloc(sizeof(ty_datum) * (size_t)(nin + 1));
	uint64_t n = 0;
	for (;;) {
		ty_set_arena(scratch);
		if (!sql_spill_get(part.f, row, nin + 1))
			break;
		consume_row(op, st, row, (int)row[nin].i, scratch);
		if (++n % 256 == 0) {
			util_arena_reset(scratch);
			ty_set_arena(old);
			check_memory(op, st);
			ty_check_interrupts();
		}
	}
	ty_set_arena(old);
	free(row);
	util_arena_destroy(scratch);
	sql_spill_free(part.f);
	finish_input(st);
	st->emit = st->first;
	if (st->nsets > 1)
		order_by_set(st);
	return true;
}

/* ---------------------------------------------------------------- partial aggregation */

/* A worker's aggregation: the aggregate's operator with the worker's
 * executor and groups of its own. */
typedef struct agg_worker {
	sql_op op;
	agg_state st;
	sql_op *main;
} agg_worker;

/* Folds the partial value o into m (the same aggregate of one group). */
static void combine_val(const sql_aggref *ar, aggval *m, const aggval *o)
{
	switch (ar->kind) {
	case SQL_AGG_COUNT_STAR:
	case SQL_AGG_COUNT:
		m->count += o->count;
		return;
	case SQL_AGG_MIN:
	case SQL_AGG_MAX: {
		if (!o->has)
			return;
		const ty_type *t = ty_type_get(ar->argtypes[0]);
		if (m->has) {
			int c = t->cmp(o->minmax, m->minmax);
			if ((ar->kind == SQL_AGG_MIN && c >= 0) || (ar->kind == SQL_AGG_MAX && c <= 0))
				return;
		}
		m->minmax = ty_datum_copy(o->minmax, t->byval);
		m->has = true;
		return;
	}
	default:
		ar->agg->combine(m->state, o->state);
	}
}

/* Merges a worker's groups into the aggregate's (under par_mu; the
 * operator's thread is waiting for the scan meanwhile) and empties them. */
static void par_merge(agg_worker *w)
{
	sql_op *op = w->main;
	agg_state *st = op->state;
	const sql_plan *p = op->plan;
	int nk = ngroup_keys(p);
	pthread_mutex_lock(&st->par_mu);
	util_arena *old = ty_set_arena(st->arena);
	TY_TRY(tc)
	{
		for (group *g = w->st.first; g; g = g->next_in_order) {
			group *mg = find_group(op, st, g->keys, nk, g->set, NULL);
			for (int i = 0; i < p->agg.naggs; i++)
				combine_val(&p->agg.aggs[i], &mg->vals[i], &g->vals[i]);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_err e;
		memcpy(&e, ty_err(), sizeof e);
		ty_set_arena(old);
		pthread_mutex_unlock(&st->par_mu);
		ty_throw(&e);
	}
	TY_END(tc);
	ty_set_arena(old);
	pthread_mutex_unlock(&st->par_mu);
	util_arena_reset(w->st.arena);
	free(w->st.buckets);
	w->st.buckets = NULL;
	w->st.nbuckets = w->st.ngroups = 0;
	w->st.first = w->st.last = NULL;
}

static void *par_begin(void *arg, sql_exec *wex)
{
	sql_op *op = arg;
	agg_worker *w = ty_alloc0(sizeof *w);
	w->op = *op;
	w->op.ex = wex;
	w->op.state = &w->st;
	w->main = op;
	w->st.arena = util_arena_new(64 * 1024, 0);
	w->st.nsets = 1;
	return w;
}

static void par_rows(void *ws, const ty_datum *rows, int n, int width)
{
	agg_worker *w = ws;
	util_arena *scratch = ty_get_arena();
	for (int i = 0; i < n; i++)
		consume_row(&w->op, &w->st, rows + (size_t)i * (size_t)width, -1, scratch);
	ty_set_arena(scratch);
	/* Many groups: hand them over now rather than hold them twice. */
	if (agg_mem(&w->st) > sql_exec_work_mem(w->op.ex))
		par_merge(w);
}

static void par_end(void *arg, void *ws, bool merge)
{
	(void)arg;
	agg_worker *w = ws;
	TY_TRY(tc)
	{
		if (merge)
			par_merge(w);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_err e;
		memcpy(&e, ty_err(), sizeof e);
		util_arena_destroy(w->st.arena);
		free(w->st.buckets);
		ty_throw(&e);
	}
	TY_END(tc);
	util_arena_destroy(w->st.arena);
	free(w->st.buckets);
}

/* Gives the scan below the sink: if it runs in parallel, its workers
 * aggregate and merge here, and it returns no rows. */
static void par_attach(sql_op *op, agg_state *st)
{
	if (!st->par_used) {
		pthread_mutex_init(&st->par_mu, NULL);
		st->par_used = true;
	}
	st->sink = (sql_par_sink){par_begin, par_rows, par_end, op};
	sql_scan_set_sink(op->left, &st->sink);
}

static void load(sql_op *op, agg_state *st)
{
	const sql_plan *p = op->plan;
	int nk = ngroup_keys(p);
	int nsets = p->agg.ngsets ? p->agg.ngsets : 1;
	st->nsets = nsets;
	if (!st->arena)
		st->arena = util_arena_new(64 * 1024, 0);
	sql_exec_charge(op->ex, st->arena);
	util_arena *old = ty_get_arena();
	/* Plain aggregation (and the empty grouping set) always has its group. */
	ty_set_arena(st->arena);
	for (int s = 0; s < nsets; s++) {
		bool empty_set = nk == 0 || (p->agg.ngsets && p->agg.gset_len[s] == 0);
		if (empty_set) {
			ty_datum *nulls = ty_alloc(sizeof(ty_datum) * (size_t)(nk ? nk : 1));
			for (int k = 0; k < nk; k++)
				nulls[k] = ty_null();
			find_group(op, st, nulls, nk, s, NULL);
		}
	}
	ty_set_arena(old);
	if (!st->spill_types) {
		int nin = p->left->ncols;
		st->spill_types = util_arena_alloc(op->ex->arena, sizeof(ty_oid) * (size_t)(nin + 1));
		memcpy(st->spill_types, p->left->types, sizeof(ty_oid) * (size_t)nin);
		st->spill_types[nin] = TY_INT8;
		st->spillable = nk > 0 && sql_spill_ok(st->spill_types, nin + 1);
	}
	if (p->agg.partial && op->left->plan->kind == SQL_P_SCAN && !op->left->opened)
		par_attach(op, st);
	for (;;) {
		sql_batch *b = sql_op_next(op->left);
		if (b->n == 0)
			break;
		for (int i = 0; i < b->n; i++)
			consume_row(op, st, sql_batch_row(b, i), -1, b->arena);
		ty_set_arena(old);
		check_memory(op, st);
		ty_check_interrupts();
	}
	ty_set_arena(old);
	finish_input(st);
	st->loaded = true;
	st->emit = st->first;
	/* Grouping sets: PostgreSQL emits set by set. */
	if (nsets > 1)
		order_by_set(st);
}

static void order_by_set(agg_state *st)
{
	int nsets = st->nsets;
	{
		group *head = NULL, *tail = NULL;
		/* Rebuild the order list set by set (stable within a set). */
		group **all = util_xmalloc(sizeof(group *) * (st->ngroups + 1));
		size_t n = 0;
		for (int s = 0; s < nsets; s++)
			for (group *g = st->first; g; g = g->next_in_order)
				if (g->set == s)
					all[n++] = g;
		for (size_t i = 0; i < n; i++) {
			all[i]->next_in_order = NULL;
			if (tail)
				tail->next_in_order = all[i];
			else
				head = all[i];
			tail = all[i];
		}
		free(all);
		st->emit = head;
	}
}

static sql_batch *agg_next(sql_op *op)
{
	agg_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->loaded)
		load(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	int nk = ngroup_keys(p);
	ty_datum direct[TY_FUNC_MAX_ARGS];
	if (!st->emit) {
		/* Next spilled partition; its groups replace the emitted ones,
		 * whose rows the previous batch no longer needs. */
		util_arena *old = ty_get_arena();
		while (!st->emit && load_partition(op, st))
			;
		ty_set_arena(old);
	}
	while (st->emit && b->n < b->cap) {
		group *g = st->emit;
		st->emit = g->next_in_order;
		ty_datum *out = sql_batch_row(b, b->n++);
		for (int k = 0; k < nk; k++)
			out[k] = g->keys[k];
		for (int i = 0; i < p->agg.naggs; i++) {
			const sql_aggref *ar = &p->agg.aggs[i];
			for (int d = 0; d < ar->ndirect && d < TY_FUNC_MAX_ARGS; d++)
				direct[d] = sql_eval(op->ex, ar->direct[d], out);
			out[nk + i] = finalize(op, ar, &g->vals[i], direct);
		}
		/* GROUPING(a, b): bit per argument, 1 when it is not grouped in this set. */
		for (int i = 0; i < p->agg.ngrouping; i++) {
			const sql_expr *ge = p->agg.grouping[i];
			int64_t bits = 0;
			for (int a = 0; a < ge->grouping.nargs; a++) {
				bits <<= 1;
				if (!in_set(p, g->set, ge->grouping.refs[a]))
					bits |= 1;
			}
			out[nk + p->agg.naggs + i] = ty_int(bits);
		}
	}
	return b;
}

static void agg_close(sql_op *op)
{
	agg_state *st = op->state;
	/* Workers merge into this state until they are joined. */
	if (st->par_used)
		sql_scan_stop_workers(op->left);
	util_arena_destroy(st->arena);
	free(st->buckets);
	for (int i = 0; i < AGG_NPART; i++)
		sql_spill_free(st->cur[i]);
	for (int i = 0; i < st->npending; i++)
		sql_spill_free(st->pending[i].f);
	free(st->pending);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
	ty_oid *types = st->spill_types;
	bool spillable = st->spillable;
	if (st->par_used)
		pthread_mutex_destroy(&st->par_mu);
	memset(st, 0, sizeof *st);
	st->spill_types = types;
	st->spillable = spillable;
}

static void agg_rescan(sql_op *op)
{
	agg_close(op);
	sql_op_rescan(op->left);
}

sql_op *sql_op_agg(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(agg_state));
	op->next = agg_next;
	op->close = agg_close;
	op->rescan = agg_rescan;
	return op;
}
