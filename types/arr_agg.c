/*
 * arr_agg.c — array_agg(anynonarray) (NULL inputs kept, no rows -> NULL)
 * and array_agg(anyarray) (inputs stacked into an array of one more
 * dimension, with PostgreSQL's errors for NULL, empty and mismatched
 * inputs). The growing element list lives in fc->cache_arena, which the
 * executor keeps at least as long as the group's state.
 */
#include "arr_int.h"

typedef struct agg_state {
	ty_oid elem;
	int n, cap;
	ty_datum *vals;
	bool byval;
	/* array_agg(anyarray): shape of the inputs (set by the first one). */
	int inputs, nd;
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
} agg_state;

static util_arena *agg_arena(const ty_fcinfo *fc)
{
	return fc->cache_arena ? fc->cache_arena : ty_get_arena();
}

static void *agg_alloc(const ty_fcinfo *fc, size_t n)
{
	void *p = util_arena_alloc(agg_arena(fc), n ? n : 1);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	return p;
}

static void agg_push(agg_state *st, const ty_fcinfo *fc, ty_datum v)
{
	if (st->n == st->cap) {
		int nc = st->cap ? st->cap * 2 : 16;
		ty_datum *nv = agg_alloc(fc, sizeof *nv * (size_t)nc);
		if (st->n)
			memcpy(nv, st->vals, sizeof *nv * (size_t)st->n);
		st->vals = nv;
		st->cap = nc;
	}
	if (!v.null && !st->byval) {
		void *p = agg_alloc(fc, v.len);
		if (v.len)
			memcpy(p, v.p, v.len);
		v.p = p;
	}
	st->vals[st->n++] = v;
}

static void agg_init(void *state, const ty_fcinfo *fc)
{
	agg_state *st = state;
	memset(st, 0, sizeof *st);
	ty_oid e = fc->argtypes ? fc->argtypes[0] : 0;
	if (!e || e == TY_ANYNONARRAY || e == TY_ANYELEMENT)
		e = ty_array_elem_of(fc->rettype);
	st->elem = e;
}

static void agg_step(void *state, ty_fcinfo *fc)
{
	agg_state *st = state;
	if (st->inputs == 0) {
		if (!st->elem)
			ty_error(UTIL_E_INDETERMINATE_DATATYPE, "could not determine polymorphic type");
		st->byval = arr_elem_type(st->elem)->byval;
	}
	st->inputs++;
	agg_push(st, fc, fc->args[0]);
}

static ty_datum agg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	agg_state *st = state;
	if (st->inputs == 0)
		return ty_null();
	return ty_array_from_list(st->elem, st->n, st->vals);
}

static void agga_init(void *state, const ty_fcinfo *fc)
{
	agg_state *st = state;
	memset(st, 0, sizeof *st);
	ty_oid t = fc->argtypes ? fc->argtypes[0] : 0;
	st->elem = t ? ty_array_elem_of(t) : 0;
}

static void agga_step(void *state, ty_fcinfo *fc)
{
	agg_state *st = state;
	ty_datum a = fc->args[0];
	if (a.null)
		ty_error(UTIL_E_NULL_VALUE_NOT_ALLOWED, "cannot accumulate null arrays");
	int nd = ty_array_ndim(a);
	if (st->inputs == 0) {
		if (nd == 0)
			ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "cannot accumulate empty arrays");
		if (nd + 1 > TY_ARRAY_MAXDIM)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
				 "number of array dimensions (%d) exceeds the maximum allowed (%d)", nd + 1,
				 TY_ARRAY_MAXDIM);
		st->elem = ty_array_elemtype(a);
		st->byval = arr_elem_type(st->elem)->byval;
		st->nd = nd;
		for (int i = 0; i < nd; i++) {
			st->dims[i] = ty_array_dim(a, i);
			st->lbs[i] = ty_array_lbound(a, i);
		}
	} else {
		bool same = nd == st->nd;
		for (int i = 0; i < nd && same; i++)
			same = st->dims[i] == ty_array_dim(a, i) && st->lbs[i] == ty_array_lbound(a, i);
		if (!same)
			ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR,
				 "cannot accumulate arrays of different dimensionality");
	}
	st->inputs++;
	ty_array_iter it;
	ty_array_iter_init(&it, a);
	ty_datum e;
	while (ty_array_iter_next(&it, &e))
		agg_push(st, fc, e);
}

static ty_datum agga_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	agg_state *st = state;
	if (st->inputs == 0)
		return ty_null();
	int dims[TY_ARRAY_MAXDIM], lbs[TY_ARRAY_MAXDIM];
	dims[0] = st->inputs;
	lbs[0] = 1;
	for (int i = 0; i < st->nd; i++) {
		dims[i + 1] = st->dims[i];
		lbs[i + 1] = st->lbs[i];
	}
	return ty_array_build(st->elem, st->nd + 1, dims, lbs, st->vals);
}

static const ty_agg aggs[] = {
    {.name = "array_agg",
     .nargs = 1,
     .args = {TY_ANYNONARRAY},
     .ret = TY_ANYARRAY,
     .strict = false,
     .state_size = sizeof(agg_state),
     .init = agg_init,
     .step = agg_step,
     .final = agg_final,
     .oid = 2335},
    {.name = "array_agg",
     .nargs = 1,
     .args = {TY_ANYARRAY},
     .ret = TY_ANYARRAY,
     .strict = false,
     .state_size = sizeof(agg_state),
     .init = agga_init,
     .step = agga_step,
     .final = agga_final,
     .oid = 4053},
};

void arr_register_aggs(void)
{
	ty_agg_register(aggs, (int)UTIL_ARRAY_LEN(aggs));
}
