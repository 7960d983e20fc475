/*
 * exec_basic.c — the simple operators: RESULT (no input), VALUES, FILTER,
 * PROJECT, LIMIT/OFFSET (WITH TIES), APPEND, set-returning functions in
 * FROM and in target lists, and UNIQUE (DISTINCT, DISTINCT ON).
 *
 * Rows passed through from a child keep pointing into the child's batch:
 * that memory stays valid until this operator asks the child for more,
 * which happens only after our own consumer is done with our batch.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);

static sql_op *new_op(sql_exec *ex, size_t state)
{
	sql_op *op = util_arena_zalloc(ex->arena, sizeof *op);
	if (!op)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	if (state) {
		op->state = util_arena_zalloc(ex->arena, state);
		if (!op->state)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	}
	return op;
}

sql_op *sql_op_new_internal(sql_exec *ex, size_t state) { return new_op(ex, state); }

static void copy_row(sql_batch *b, const ty_datum *src, int ncols)
{
	memcpy(sql_batch_row(b, b->n), src, sizeof(ty_datum) * (size_t)ncols);
	b->n++;
}

/* ---------------------------------------------------------------- RESULT */

typedef struct result_state {
	bool emitted;
} result_state;

static sql_batch *result_next(sql_op *op)
{
	result_state *st = op->state;
	sql_batch *b = sql_op_begin_batch(op);
	if (st->emitted)
		return b;
	st->emitted = true;
	const sql_plan *p = op->plan;
	if (p->result.onetime && !sql_eval_qual(op->ex, p->result.onetime, NULL))
		return b;
	ty_datum *row = sql_batch_row(b, 0);
	for (int i = 0; i < p->ncols; i++)
		row[i] = p->result.exprs ? sql_eval(op->ex, p->result.exprs[i], NULL) : ty_null();
	b->n = 1;
	return b;
}

static void result_rescan(sql_op *op) { ((result_state *)op->state)->emitted = false; }

sql_op *sql_op_result(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(result_state));
	op->next = result_next;
	op->rescan = result_rescan;
	return op;
}

/* ---------------------------------------------------------------- VALUES */

typedef struct values_state {
	int pos;
} values_state;

static sql_batch *values_next(sql_op *op)
{
	values_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_batch *b = sql_op_begin_batch(op);
	while (st->pos < p->values.nrows && b->n < b->cap) {
		ty_datum *row = sql_batch_row(b, b->n);
		for (int c = 0; c < p->ncols; c++)
			row[c] = sql_eval(op->ex, p->values.rows[st->pos][c], NULL);
		b->n++;
		st->pos++;
	}
	return b;
}

static void values_rescan(sql_op *op) { ((values_state *)op->state)->pos = 0; }

sql_op *sql_op_values(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(values_state));
	op->next = values_next;
	op->rescan = values_rescan;
	return op;
}

/* ---------------------------------------------------------------- FILTER */

static sql_batch *filter_next(sql_op *op)
{
	const sql_plan *p = op->plan;
	/* A constant false/NULL qual (one-time filter): the input never runs. */
	if (p->qual && p->qual->kind == SQL_E_CONST && (p->qual->c.null || !p->qual->c.i))
		return sql_op_begin_batch(op);
	for (;;) {
		sql_batch *in = sql_op_next(op->left);
		sql_batch *b = sql_op_begin_batch(op);
		if (in->n == 0)
			return b;
		for (int i = 0; i < in->n; i++) {
			ty_datum *row = sql_batch_row(in, i);
			if (sql_eval_qual(op->ex, p->qual, row))
				copy_row(b, row, p->ncols);
		}
		if (b->n)
			return b;
	}
}

sql_op *sql_op_filter(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, 0);
	op->next = filter_next;
	return op;
}

/* ---------------------------------------------------------------- PROJECT */

static sql_batch *project_next(sql_op *op)
{
	const sql_plan *p = op->plan;
	sql_batch *in = sql_op_next(op->left);
	sql_batch *b = sql_op_begin_batch(op);
	for (int i = 0; i < in->n; i++) {
		ty_datum *src = sql_batch_row(in, i);
		ty_datum *dst = sql_batch_row(b, i);
		for (int c = 0; c < p->ncols; c++)
			dst[c] = sql_eval(op->ex, p->project.exprs[c], src);
	}
	b->n = in->n;
	return b;
}

sql_op *sql_op_project(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, 0);
	op->next = project_next;
	return op;
}

/* ---------------------------------------------------------------- LIMIT */

typedef struct limit_state {
	bool init;
	int64_t limit; /* -1 = none */
	int64_t offset;
	int64_t seen;  /* rows consumed from the child */
	int64_t sent;
	ty_datum *last; /* WITH TIES: the last row sent */
	util_arena *tie_arena;
	bool ties_mode;
} limit_state;

static int64_t count_value(sql_exec *ex, sql_expr *e, const char *what)
{
	if (!e)
		return -1;
	ty_datum d = sql_eval(ex, e, NULL);
	if (d.null)
		return -1;
	if (d.i < 0)
		ty_error(strcmp(what, "OFFSET") ? UTIL_E_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE
						: UTIL_E_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE,
			 "%s must not be negative", what);
	return d.i;
}

static bool same_sort_keys(sql_exec *ex, const sql_plan *p, const ty_datum *a, const ty_datum *b)
{
	for (int i = 0; i < p->limit.nsort; i++) {
		const sql_sortkey *k = &p->limit.sort[i];
		ty_datum x = sql_eval(ex, k->expr, a), y = sql_eval(ex, k->expr, b);
		if (x.null || y.null) {
			if (x.null != y.null)
				return false;
			continue;
		}
		if (k->type->cmp(x, y) != 0)
			return false;
	}
	return true;
}

static sql_batch *limit_next(sql_op *op)
{
	limit_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->init) {
		st->init = true;
		st->limit = count_value(op->ex, p->limit.limit, "LIMIT");
		int64_t off = count_value(op->ex, p->limit.offset, "OFFSET");
		st->offset = off < 0 ? 0 : off;
	}
	for (;;) {
		sql_batch *b = sql_op_begin_batch(op);
		if (st->limit >= 0 && st->sent >= st->limit && !p->limit.ties)
			return b;
		sql_batch *in = sql_op_next(op->left);
		if (in->n == 0)
			return b;
		for (int i = 0; i < in->n; i++) {
			ty_datum *row = sql_batch_row(in, i);
			if (st->seen++ < st->offset)
				continue;
			if (st->limit >= 0 && st->sent >= st->limit) {
				if (!p->limit.ties || !st->last || !same_sort_keys(op->ex, p, st->last, row)) {
					st->limit = st->sent; /* done */
					op->done = b->n == 0;
					return b;
				}
			}
			copy_row(b, row, p->ncols);
			st->sent++;
			if (p->limit.ties) {
				if (!st->tie_arena)
					st->tie_arena = util_arena_new(4096, 0);
				else
					util_arena_reset(st->tie_arena);
				util_arena *old = ty_set_arena(st->tie_arena);
				st->last = ty_alloc(sizeof(ty_datum) * (size_t)(p->ncols ? p->ncols : 1));
				for (int c = 0; c < p->ncols; c++) {
					st->last[c] = sql_datum_copy(row[c], p->types[c]);
				}
				ty_set_arena(old);
			}
			if (st->limit >= 0 && st->sent >= st->limit && !p->limit.ties)
				return b;
		}
		if (b->n)
			return b;
	}
}

static void limit_rescan(sql_op *op)
{
	limit_state *st = op->state;
	st->init = false;
	st->seen = st->sent = 0;
	st->last = NULL;
	sql_op_rescan(op->left);
}

static void limit_close(sql_op *op)
{
	limit_state *st = op->state;
	util_arena_destroy(st->tie_arena);
	st->tie_arena = NULL;
}

sql_op *sql_op_limit(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(limit_state));
	op->next = limit_next;
	op->rescan = limit_rescan;
	op->close = limit_close;
	return op;
}

/* ---------------------------------------------------------------- APPEND */

typedef struct append_state {
	int child;
	sql_op **ops;
} append_state;

static sql_batch *append_next(sql_op *op)
{
	append_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->ops) {
		st->ops = util_arena_zalloc(op->ex->arena, sizeof(sql_op *) * (size_t)p->append.nchildren);
		for (int i = 0; i < p->append.nchildren; i++)
			st->ops[i] = sql_exec_node(op->ex, p->append.children[i]);
	}
	while (st->child < p->append.nchildren) {
		sql_batch *in = sql_op_next(st->ops[st->child]);
		if (in->n > 0) {
			sql_batch *b = sql_op_begin_batch(op);
			for (int i = 0; i < in->n; i++)
				copy_row(b, sql_batch_row(in, i), p->ncols);
			return b;
		}
		st->child++;
	}
	return sql_op_begin_batch(op);
}

static void append_rescan(sql_op *op)
{
	append_state *st = op->state;
	st->child = 0;
	if (st->ops)
		for (int i = 0; i < op->plan->append.nchildren; i++)
			sql_op_rescan(st->ops[i]);
}

sql_op *sql_op_append(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(append_state));
	op->next = append_next;
	op->rescan = append_rescan;
	return op;
}

/* ---------------------------------------------------------------- functions in FROM */

/* One function of the scan (ROWS FROM runs several in lockstep). */
typedef struct fs_func {
	ty_fcinfo fc;
	ty_datum *args;
	bool finished;
	bool single_done; /* non-SRF function: one row */
	int ncols;        /* output columns it fills */
} fs_func;

typedef struct funcscan_state {
	bool started;
	fs_func *funcs;
	int64_t ordinal;
} funcscan_state;

static bool fs_srf(const sql_expr *fe) { return (fe->kind == SQL_E_FUNC || fe->kind == SQL_E_SRF) && fe->f.fn->retset; }

static int fs_ncols(const sql_expr *fe)
{
	return (fe->kind == SQL_E_FUNC || fe->kind == SQL_E_SRF) && fe->f.fn->nout ? fe->f.fn->nout : 1;
}

static void fs_start(sql_op *op, funcscan_state *st)
{
	const sql_plan *p = op->plan;
	util_arena *old = ty_set_arena(op->ex->arena);
	if (!st->funcs)
		st->funcs = ty_alloc0(sizeof(fs_func) * (size_t)p->func.nfuncs);
	st->started = true;
	st->ordinal = 0;
	for (int f = 0; f < p->func.nfuncs; f++) {
		const sql_expr *fe = p->func.funcs[f];
		fs_func *ff = &st->funcs[f];
		memset(&ff->fc, 0, sizeof ff->fc);
		ff->finished = false;
		ff->single_done = false;
		ff->ncols = fs_ncols(fe);
		if (!fs_srf(fe))
			continue;
		if (!ff->args)
			ff->args = ty_alloc(sizeof(ty_datum) * (size_t)(fe->f.nargs ? fe->f.nargs : 1));
		for (int i = 0; i < fe->f.nargs; i++) {
			ty_datum d = sql_eval(op->ex, fe->f.args[i], NULL);
			ff->args[i] = sql_datum_copy(d, fe->f.argtypes[i]);
			if (d.null && fe->f.fn->strict)
				ff->finished = true;
		}
		ff->fc.nargs = fe->f.nargs;
		ff->fc.args = ff->args;
		ff->fc.argtypes = fe->f.argtypes;
		ff->fc.rettype = fe->type;
		ff->fc.rettypmod = fe->typmod;
		ff->fc.cache = &op->ex->cache[fe->f.cache].fn_cache;
		ff->fc.cache_arena = op->ex->arena;
		ff->fc.exec = op->ex;
		ff->fc.srf_first = true;
	}
	ty_set_arena(old);
}

/* The next value of one function; false when it has no more rows. */
static bool fs_next_value(sql_op *op, const sql_expr *fe, fs_func *ff, ty_datum *v)
{
	if (ff->finished)
		return false;
	if (fs_srf(fe)) {
		ff->fc.srf_done = false;
		*v = fe->f.fn->fn(&ff->fc);
		ff->fc.srf_first = false;
		if (ff->fc.srf_done) {
			ff->finished = true;
			return false;
		}
		return true;
	}
	if (ff->single_done) {
		ff->finished = true;
		return false;
	}
	*v = sql_eval(op->ex, fe, NULL);
	ff->single_done = true;
	return true;
}

static sql_batch *funcscan_next(sql_op *op)
{
	funcscan_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->started)
		fs_start(op, st);
	sql_batch *b = sql_op_begin_batch(op);
	while (b->n < b->cap) {
		ty_datum *row = sql_batch_row(b, b->n);
		bool any = false;
		int col = 0;
		for (int f = 0; f < p->func.nfuncs; f++) {
			const sql_expr *fe = p->func.funcs[f];
			fs_func *ff = &st->funcs[f];
			ty_datum v;
			bool got = fs_next_value(op, fe, ff, &v);
			any |= got;
			bool rec = (fe->kind == SQL_E_FUNC || fe->kind == SQL_E_SRF) && fe->f.fn->nout && fe->type == TY_RECORD;
			if (ff->ncols > 1 || rec) {
				const ty_record *r = got && !v.null ? v.p : NULL;
				for (int c = 0; c < ff->ncols; c++)
					row[col + c] = r && c < r->n ? r->vals[c] : ty_null();
			} else {
				row[col] = got ? v : ty_null();
			}
			col += ff->ncols;
		}
		if (!any)
			break;
		if (p->func.ordinality)
			row[col] = ty_int(++st->ordinal);
		b->n++;
	}
	return b;
}

static void funcscan_rescan(sql_op *op) { ((funcscan_state *)op->state)->started = false; }

sql_op *sql_op_funcscan(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(funcscan_state));
	op->next = funcscan_next;
	op->rescan = funcscan_rescan;
	return op;
}

/* ---------------------------------------------------------------- SRFs in target lists */

typedef struct pset_state {
	sql_batch *in;
	int pos;          /* current input row */
	bool row_active;  /* SRFs of the current row still producing */
	ty_fcinfo *fcs;   /* per target (SRF targets only) */
	ty_datum **fargs;
	bool *srf_done;
	bool any_output;
} pset_state;

static bool is_srf(const sql_expr *e) { return e->kind == SQL_E_SRF || (e->kind == SQL_E_FIELD && e->field.arg->kind == SQL_E_SRF); }

/* The set-returning call of a ProjectSet column: the column itself, or the
 * function under a field selection ((srf(x)).field). */
static const sql_expr *srf_of(const sql_expr *e) { return e->kind == SQL_E_FIELD ? e->field.arg : e; }

static void pset_start_row(sql_op *op, pset_state *st, const ty_datum *row)
{
	const sql_plan *p = op->plan;
	util_arena *old = ty_set_arena(op->ex->arena);
	for (int c = 0; c < p->ncols; c++) {
		const sql_expr *e = p->project.exprs[c];
		st->srf_done[c] = true;
		if (!is_srf(e))
			continue;
		e = srf_of(e);
		st->srf_done[c] = false;
		ty_fcinfo *fc = &st->fcs[c];
		memset(fc, 0, sizeof *fc);
		if (!st->fargs[c])
			st->fargs[c] = ty_alloc(sizeof(ty_datum) * (size_t)(e->f.nargs + 1));
		for (int i = 0; i < e->f.nargs; i++) {
			ty_datum d = sql_eval(op->ex, e->f.args[i], row);
			st->fargs[c][i] = sql_datum_copy(d, e->f.argtypes[i]);
			if (d.null && e->f.fn->strict)
				st->srf_done[c] = true;
		}
		fc->nargs = e->f.nargs;
		fc->args = st->fargs[c];
		fc->argtypes = e->f.argtypes;
		fc->rettype = e->type;
		fc->rettypmod = e->typmod;
		fc->cache = &op->ex->cache[e->f.cache].fn_cache;
		fc->cache_arena = op->ex->arena;
		fc->exec = op->ex;
		fc->srf_first = true;
	}
	ty_set_arena(old);
}

static sql_batch *projectset_next(sql_op *op)
{
	pset_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->fcs) {
		st->fcs = util_arena_zalloc(op->ex->arena, sizeof(ty_fcinfo) * (size_t)(p->ncols ? p->ncols : 1));
		st->fargs = util_arena_zalloc(op->ex->arena, sizeof(ty_datum *) * (size_t)(p->ncols ? p->ncols : 1));
		st->srf_done = util_arena_zalloc(op->ex->arena, sizeof(bool) * (size_t)(p->ncols ? p->ncols : 1));
	}
	sql_batch *b = sql_op_begin_batch(op);
	while (b->n < b->cap) {
		if (!st->in || st->pos >= st->in->n) {
			if (b->n)
				return b; /* the child's batch must stay valid for our rows */
			st->in = sql_op_next(op->left);
			st->pos = 0;
			st->row_active = false;
			b = sql_op_begin_batch(op);
			if (st->in->n == 0)
				return b;
		}
		ty_datum *row = sql_batch_row(st->in, st->pos);
		if (!st->row_active) {
			pset_start_row(op, st, row);
			st->row_active = true;
		}
		/* One output row: each SRF advances; finished ones give NULL. */
		ty_datum *out = sql_batch_row(b, b->n);
		bool any = false;
		for (int c = 0; c < p->ncols; c++) {
			const sql_expr *e = p->project.exprs[c];
			if (!is_srf(e))
				continue;
			if (st->srf_done[c]) {
				out[c] = ty_null();
				continue;
			}
			ty_fcinfo *fc = &st->fcs[c];
			fc->srf_done = false;
			ty_datum v = srf_of(e)->f.fn->fn(fc);
			fc->srf_first = false;
			if (fc->srf_done) {
				st->srf_done[c] = true;
				out[c] = ty_null();
				continue;
			}
			if (e->kind == SQL_E_FIELD && !v.null) {
				const ty_record *rec = v.p;
				v = e->field.field < rec->n ? rec->vals[e->field.field] : ty_null();
			}
			out[c] = v;
			any = true;
		}
		if (!any) {
			st->pos++;
			st->row_active = false;
			continue;
		}
		for (int c = 0; c < p->ncols; c++)
			if (!is_srf(p->project.exprs[c]))
				out[c] = sql_eval(op->ex, p->project.exprs[c], row);
		b->n++;
	}
	return b;
}

static void projectset_rescan(sql_op *op)
{
	pset_state *st = op->state;
	st->in = NULL;
	st->pos = 0;
	st->row_active = false;
	sql_op_rescan(op->left);
}

sql_op *sql_op_projectset(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(pset_state));
	op->next = projectset_next;
	op->rescan = projectset_rescan;
	return op;
}

/* ---------------------------------------------------------------- UNIQUE */

/* Hash of the first n columns of a row (NULLs hash alike, as DISTINCT
 * treats NULLs as equal). */
static uint64_t row_hash(const sql_plan *p, const ty_datum *row, int n)
{
	uint64_t h = 0x9e37;
	for (int c = 0; c < n; c++) {
		uint64_t v = 0x1234;
		if (!row[c].null) {
			const ty_type *t = ty_type_get(p->types[c]);
			if (!t || !t->hash)
				ty_error(UTIL_E_UNDEFINED_FUNCTION, "could not identify an equality operator for type %s",
					 t ? t->name : "?");
			v = t->hash(row[c]);
		}
		h = util_hash_mix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6)));
	}
	return h;
}

bool sql_rows_equal(const ty_oid *types, const ty_datum *a, const ty_datum *b, int n)
{
	for (int c = 0; c < n; c++) {
		if (a[c].null || b[c].null) {
			if (a[c].null != b[c].null)
				return false;
			continue;
		}
		if (ty_compare(types[c], a[c], b[c]) != 0)
			return false;
	}
	return true;
}

/* A hash set of rows (keys copied into the set's arena). */
typedef struct rowset {
	util_arena *arena;
	ty_datum **slots;
	uint64_t *hashes;
	size_t cap, n;
} rowset;

static void rs_free(rowset *rs)
{
	util_arena_destroy(rs->arena);
	free(rs->slots);
	free(rs->hashes);
	memset(rs, 0, sizeof *rs);
}

/* Adds the row if absent; returns true if it was new. */
static bool rs_add(rowset *rs, const sql_plan *p, const ty_datum *row, int n, size_t budget)
{
	if (!rs->arena)
		rs->arena = util_arena_new(64 * 1024, budget);
	if ((rs->n + 1) * 2 > rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 256;
		ty_datum **ns = util_xcalloc(cap, sizeof *ns);
		uint64_t *nh = util_xcalloc(cap, sizeof *nh);
		for (size_t i = 0; i < rs->cap; i++) {
			if (!rs->slots[i])
				continue;
			size_t j = rs->hashes[i] & (cap - 1);
			while (ns[j])
				j = (j + 1) & (cap - 1);
			ns[j] = rs->slots[i];
			nh[j] = rs->hashes[i];
		}
		free(rs->slots);
		free(rs->hashes);
		rs->slots = ns;
		rs->hashes = nh;
		rs->cap = cap;
	}
	uint64_t h = row_hash(p, row, n);
	size_t j = h & (rs->cap - 1);
	while (rs->slots[j]) {
		if (rs->hashes[j] == h && sql_rows_equal(p->types, rs->slots[j], row, n))
			return false;
		j = (j + 1) & (rs->cap - 1);
	}
	util_arena *old = ty_set_arena(rs->arena);
	ty_datum *copy = ty_alloc(sizeof(ty_datum) * (size_t)(n ? n : 1));
	for (int c = 0; c < n; c++) {
		copy[c] = sql_datum_copy(row[c], p->types[c]);
	}
	ty_set_arena(old);
	rs->slots[j] = copy;
	rs->hashes[j] = h;
	rs->n++;
	return true;
}

/* Hashed DISTINCT past 2 x work_mem: rows already seen are still dropped,
 * new rows go to one of UNIQUE_NPART partition files by hash; at the end
 * each partition is deduplicated on its own (equal rows share a partition,
 * and none of them equals a row kept in memory). */
#define UNIQUE_NPART 16

typedef struct unique_state {
	rowset seen;
	ty_datum *prev;        /* sorted mode: last emitted row's keys */
	util_arena *prev_arena;
	size_t held;
	bool spilling, input_done;
	sql_spill *parts[UNIQUE_NPART];
	int part;              /* partition being read back */
	util_arena *read_arena;
} unique_state;

static size_t rs_mem(const rowset *rs) { return (rs->arena ? util_arena_used(rs->arena) : 0) + rs->cap * 16; }

static bool rs_contains(const rowset *rs, const sql_plan *p, const ty_datum *row, int n, uint64_t *hash)
{
	uint64_t h = row_hash(p, row, n);
	*hash = h;
	if (!rs->cap)
		return false;
	for (size_t j = h & (rs->cap - 1); rs->slots[j]; j = (j + 1) & (rs->cap - 1))
		if (rs->hashes[j] == h && sql_rows_equal(p->types, rs->slots[j], row, n))
			return true;
	return false;
}

/* Reads the spilled partitions back, each deduplicated in a fresh set. */
static sql_batch *unique_spilled(sql_op *op, unique_state *st, sql_batch *b)
{
	const sql_plan *p = op->plan;
	int nk = p->unique.nkeys ? p->unique.nkeys : p->ncols;
	if (!st->read_arena)
		st->read_arena = util_arena_new(64 * 1024, 0);
	while (st->part < UNIQUE_NPART && b->n < b->cap) {
		sql_spill *f = st->parts[st->part];
		if (!f) {
			st->part++;
			continue;
		}
		util_arena_reset(st->read_arena);
		util_arena *old = ty_set_arena(st->read_arena);
		ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(p->ncols ? p->ncols : 1));
		bool got = sql_spill_get(f, row, p->ncols);
		ty_set_arena(old);
		if (!got) {
			sql_spill_free(f);
			st->parts[st->part++] = NULL;
			rs_free(&st->seen);
			continue;
		}
		if (rs_add(&st->seen, p, row, nk, 0)) {
			ty_datum *dst = sql_batch_row(b, b->n++);
			for (int c = 0; c < p->ncols; c++) {
				dst[c] = sql_datum_copy(row[c], p->types[c]);
			}
		}
		sql_exec_account(op->ex, &st->held, rs_mem(&st->seen));
	}
	return b;
}

static sql_batch *unique_next(sql_op *op)
{
	unique_state *st = op->state;
	const sql_plan *p = op->plan;
	int nk = p->unique.nkeys ? p->unique.nkeys : p->ncols;
	for (;;) {
		if (st->input_done)
			return unique_spilled(op, st, sql_op_begin_batch(op));
		sql_batch *in = sql_op_next(op->left);
		sql_batch *b = sql_op_begin_batch(op);
		if (in->n == 0) {
			st->input_done = true;
			if (!st->spilling)
				return b;
			rs_free(&st->seen);
			for (int i = 0; i < UNIQUE_NPART; i++)
				if (st->parts[i])
					sql_spill_rewind(st->parts[i]);
			return unique_spilled(op, st, b);
		}
		for (int i = 0; i < in->n; i++) {
			ty_datum *row = sql_batch_row(in, i);
			if (p->unique.hashed) {
				if (st->spilling) {
					uint64_t h;
					if (rs_contains(&st->seen, p, row, nk, &h))
						continue;
					int part = (int)((h >> 11) & (UNIQUE_NPART - 1));
					if (!st->parts[part])
						st->parts[part] = sql_spill_new();
					sql_spill_put(st->parts[part], row, p->types, p->ncols);
					continue;
				}
				if (!st->seen.arena) {
					st->seen.arena = util_arena_new(64 * 1024, 0);
					sql_exec_charge(op->ex, st->seen.arena);
				}
				if (rs_add(&st->seen, p, row, nk, 0))
					copy_row(b, row, p->ncols);
				continue;
			}
			/* Sorted input: compare with the previous row's keys. */
			ty_datum *keys = row;
			ty_datum kbuf[64];
			ty_oid ktypes[64];
			const ty_oid *types = p->types;
			if (p->unique.keys) {
				for (int k = 0; k < nk && k < 64; k++) {
					kbuf[k] = sql_eval(op->ex, p->unique.keys[k], row);
					ktypes[k] = p->unique.keys[k]->type;
				}
				keys = kbuf;
				types = ktypes;
			}
			if (st->prev && sql_rows_equal(types, st->prev, keys, nk))
				continue;
			if (!st->prev_arena)
				st->prev_arena = util_arena_new(4096, 0);
			else
				util_arena_reset(st->prev_arena);
			util_arena *old = ty_set_arena(st->prev_arena);
			st->prev = ty_alloc(sizeof(ty_datum) * (size_t)(nk ? nk : 1));
			for (int k = 0; k < nk; k++) {
				st->prev[k] = sql_datum_copy(keys[k], types[k]);
			}
			ty_set_arena(old);
			copy_row(b, row, p->ncols);
		}
		if (p->unique.hashed) {
			size_t used = rs_mem(&st->seen);
			/* Only whole rows can be spilled (DISTINCT ON keeps the first row
			 * per key in input order, which partitions would not). */
			if (!st->spilling && !p->unique.keys && nk == p->ncols && used > 2 * sql_exec_work_mem(op->ex) &&
			    sql_spill_ok(p->types, p->ncols))
				st->spilling = true;
			sql_exec_account(op->ex, &st->held, used);
		}
		if (b->n)
			return b;
	}
}

static void unique_close(sql_op *op)
{
	unique_state *st = op->state;
	rs_free(&st->seen);
	util_arena_destroy(st->prev_arena);
	util_arena_destroy(st->read_arena);
	for (int i = 0; i < UNIQUE_NPART; i++)
		sql_spill_free(st->parts[i]);
	if (op->ex)
		sql_exec_account(op->ex, &st->held, 0);
	memset(st, 0, sizeof *st);
}

static void unique_rescan(sql_op *op)
{
	unique_close(op);
	sql_op_rescan(op->left);
}

sql_op *sql_op_unique(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = new_op(ex, sizeof(unique_state));
	op->next = unique_next;
	op->close = unique_close;
	op->rescan = unique_rescan;
	return op;
}

/* Exposed for the set operations and aggregation. */
uint64_t sql_row_hash(const sql_plan *p, const ty_datum *row, int n) { return row_hash(p, row, n); }
