/*
 * registry.c — the built-in catalog of types, functions, operators, casts
 * and aggregates (the in-memory pg_type/pg_proc/pg_operator/pg_cast/
 * pg_aggregate). Filled once at startup by ty_init() from the static tables
 * of each area, read-only afterwards, so lookups need no locking.
 */
#include "types_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A tiny growable vector of pointers. */
typedef struct vec {
	const void **items;
	int n, cap;
} vec;

static void vec_push(vec *v, const void *p)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 64;
		v->items = util_xrealloc(v->items, (size_t)v->cap * sizeof *v->items);
	}
	v->items[v->n++] = p;
}

/* Open-addressing map from a 64-bit key to an int (index + 1; 0 = empty). */
typedef struct imap {
	uint64_t *keys;
	int *vals;
	int cap, n;
} imap;

static void imap_put(imap *m, uint64_t key, int val);

static void imap_grow(imap *m)
{
	imap old = *m;
	m->cap = old.cap ? old.cap * 2 : 256;
	m->n = 0;
	m->keys = util_xcalloc((size_t)m->cap, sizeof *m->keys);
	m->vals = util_xcalloc((size_t)m->cap, sizeof *m->vals);
	for (int i = 0; i < old.cap; i++)
		if (old.vals[i])
			imap_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

static void imap_put(imap *m, uint64_t key, int val)
{
	if ((m->n + 1) * 2 > m->cap)
		imap_grow(m);
	int i = (int)(util_hash_mix(key) & (uint64_t)(m->cap - 1));
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}

static int imap_get(const imap *m, uint64_t key)
{
	if (!m->cap)
		return 0;
	int i = (int)(util_hash_mix(key) & (uint64_t)(m->cap - 1));
	while (m->vals[i]) {
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return 0;
}

static uint64_t name_key(const char *s) { return util_hash64(s, strlen(s), 0x5eed); }

/* Name chains: for each entry, the index of the next entry with the same
 * name (hash collisions are resolved by comparing names on lookup). */
typedef struct named {
	vec items;
	int *next; /* parallel to items: next index + 1 with the same name hash */
	int next_cap;
	imap by_name; /* name hash -> first index + 1 */
	imap by_oid;  /* oid -> index + 1 */
	imap by_ptr;  /* entry address -> index + 1 */
} named;

static void named_add(named *t, const void *item, const char *name, ty_oid oid)
{
	int idx = t->items.n;
	vec_push(&t->items, item);
	if (t->next_cap < t->items.cap) {
		t->next = util_xrealloc(t->next, (size_t)t->items.cap * sizeof *t->next);
		t->next_cap = t->items.cap;
	}
	t->next[idx] = 0;
	uint64_t k = name_key(name);
	int head = imap_get(&t->by_name, k);
	if (!head) {
		imap_put(&t->by_name, k, idx + 1);
	} else {
		int i = head - 1;
		while (t->next[i])
			i = t->next[i] - 1;
		t->next[i] = idx + 1;
	}
	if (oid)
		imap_put(&t->by_oid, oid, idx + 1);
	imap_put(&t->by_ptr, (uint64_t)(uintptr_t)item, idx + 1);
}


static vec types_vec;
static imap types_by_oid, types_by_name;
static named funcs, ops, aggs;
static vec casts_vec;
static imap casts_by_pair;
static ty_oid *func_oids, *op_oids, *agg_oids; /* resolved oids, parallel to items */
static const ty_func **op_funcs;
static ty_oid next_oid = TY_AUTO_OID_START;

/* Built-in type oids are small: a direct table makes ty_type_get, called
 * per value on hot paths, one load. */
#define SMALL_OIDS 16384
static const ty_type *types_small[SMALL_OIDS];

void ty_type_register(const ty_type *t)
{
	if (t->oid < SMALL_OIDS)
		types_small[t->oid] = t;
	vec_push(&types_vec, t);
	imap_put(&types_by_oid, t->oid, types_vec.n);
	imap_put(&types_by_name, name_key(t->name), types_vec.n);
}

const ty_type *ty_type_get(ty_oid oid)
{
	if (oid < SMALL_OIDS)
		return types_small[oid];
	int i = imap_get(&types_by_oid, oid);
	return i ? types_vec.items[i - 1] : NULL;
}

/* SQL spellings that are not pg_type names. (Not "char": that is the
 * one-byte pg_type "char"; the parser already turns the CHAR keyword into
 * bpchar.) */
static const struct {
	const char *alias, *name;
} type_aliases[] = {
	{"integer", "int4"}, {"int", "int4"}, {"smallint", "int2"}, {"bigint", "int8"},
	{"real", "float4"}, {"double precision", "float8"}, {"float", "float8"},
	{"boolean", "bool"}, {"decimal", "numeric"}, {"character varying", "varchar"},
	{"character", "bpchar"}, {"timestamp without time zone", "timestamp"},
	{"timestamp with time zone", "timestamptz"}, {"time without time zone", "time"},
	{"time with time zone", "timetz"},
};

const ty_type *ty_type_by_name(const char *name)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(type_aliases); i++)
		if (strcmp(name, type_aliases[i].alias) == 0)
			name = type_aliases[i].name;
	int i = imap_get(&types_by_name, name_key(name));
	const ty_type *t = i ? types_vec.items[i - 1] : NULL;
	return t && strcmp(t->name, name) == 0 ? t : NULL;
}

const ty_type *ty_type_nth(int i) { return i >= 0 && i < types_vec.n ? types_vec.items[i] : NULL; }

static void grow_oids(ty_oid **arr, int n)
{
	*arr = util_xrealloc(*arr, (size_t)n * sizeof **arr);
}

void ty_func_register(const ty_func *fs, int n)
{
	grow_oids(&func_oids, funcs.items.n + n);
	for (int i = 0; i < n; i++) {
		ty_oid oid = fs[i].oid ? fs[i].oid : next_oid++;
		func_oids[funcs.items.n] = oid;
		named_add(&funcs, &fs[i], fs[i].name, oid);
	}
}

static const void *named_lookup(const named *t, const char *name, int *cursor, const char *(*nameof)(const void *))
{
	int i;
	if (*cursor == 0)
		i = imap_get(&t->by_name, name_key(name));
	else if (*cursor > 0)
		i = t->next[*cursor - 1];
	else
		return NULL;
	while (i) {
		const void *it = t->items.items[i - 1];
		*cursor = i;
		if (strcmp(nameof(it), name) == 0)
			return it;
		i = t->next[i - 1];
	}
	*cursor = -1;
	return NULL;
}

static const char *func_name(const void *p) { return ((const ty_func *)p)->name; }
static const char *op_name(const void *p) { return ((const ty_operator *)p)->name; }
static const char *agg_name(const void *p) { return ((const ty_agg *)p)->name; }

const ty_func *ty_func_lookup(const char *name, int *cursor) { return named_lookup(&funcs, name, cursor, func_name); }

static int index_of(const named *t, const void *p) { return imap_get(&t->by_ptr, (uint64_t)(uintptr_t)p) - 1; }

const ty_func *ty_func_by_oid(ty_oid oid)
{
	int i = imap_get(&funcs.by_oid, oid);
	return i ? funcs.items.items[i - 1] : NULL;
}

const ty_func *ty_func_nth(int i) { return i >= 0 && i < funcs.items.n ? funcs.items.items[i] : NULL; }

ty_oid ty_func_oid(const ty_func *f)
{
	if (f->oid)
		return f->oid;
	int i = index_of(&funcs, f);
	return i >= 0 ? func_oids[i] : 0;
}

void ty_operator_register(const ty_operator *os, int n)
{
	grow_oids(&op_oids, ops.items.n + n);
	op_funcs = util_xrealloc(op_funcs, (size_t)(ops.items.n + n) * sizeof *op_funcs);
	for (int i = 0; i < n; i++) {
		ty_oid oid = os[i].oid ? os[i].oid : next_oid++;
		op_oids[ops.items.n] = oid;
		op_funcs[ops.items.n] = NULL;
		named_add(&ops, &os[i], os[i].name, oid);
	}
}

const ty_operator *ty_operator_lookup(const char *name, int *cursor)
{
	return named_lookup(&ops, name, cursor, op_name);
}

const ty_operator *ty_operator_nth(int i) { return i >= 0 && i < ops.items.n ? ops.items.items[i] : NULL; }

/* Finds the function with exactly these argument types. */
static const ty_func *func_exact(const char *name, int nargs, const ty_oid *args)
{
	int cur = 0;
	const ty_func *f;
	while ((f = ty_func_lookup(name, &cur))) {
		if (f->nargs != nargs)
			continue;
		bool ok = true;
		for (int i = 0; i < nargs && ok; i++)
			ok = f->args[i] == args[i];
		if (ok)
			return f;
	}
	return NULL;
}

const ty_func *ty_operator_func(const ty_operator *op)
{
	int i = index_of(&ops, op);
	if (i < 0)
		return NULL;
	if (!op_funcs[i]) {
		ty_oid args[2] = {op->left, op->right};
		op_funcs[i] = op->left ? func_exact(op->func, 2, args) : func_exact(op->func, 1, args + 1);
	}
	return op_funcs[i];
}

static uint64_t pair_key(ty_oid a, ty_oid b) { return ((uint64_t)a << 32) | b; }

void ty_cast_register(const ty_cast *cs, int n)
{
	for (int i = 0; i < n; i++) {
		vec_push(&casts_vec, &cs[i]);
		imap_put(&casts_by_pair, pair_key(cs[i].source, cs[i].target), casts_vec.n);
	}
}

const ty_cast *ty_cast_lookup(ty_oid source, ty_oid target)
{
	int i = imap_get(&casts_by_pair, pair_key(source, target));
	return i ? casts_vec.items[i - 1] : NULL;
}

const ty_cast *ty_cast_nth(int i) { return i >= 0 && i < casts_vec.n ? casts_vec.items[i] : NULL; }

void ty_agg_register(const ty_agg *as, int n)
{
	grow_oids(&agg_oids, aggs.items.n + n);
	for (int i = 0; i < n; i++) {
		ty_oid oid = as[i].oid ? as[i].oid : next_oid++;
		agg_oids[aggs.items.n] = oid;
		named_add(&aggs, &as[i], as[i].name, oid);
	}
}

const ty_agg *ty_agg_lookup(const char *name, int *cursor) { return named_lookup(&aggs, name, cursor, agg_name); }

const ty_agg *ty_agg_by_oid(ty_oid oid)
{
	int i = imap_get(&aggs.by_oid, oid);
	return i ? aggs.items.items[i - 1] : NULL;
}

const ty_agg *ty_agg_nth(int i) { return i >= 0 && i < aggs.items.n ? aggs.items.items[i] : NULL; }

ty_datum ty_call(const char *name, int nargs, const ty_oid *argtypes, ty_datum *args)
{
	const ty_func *f = func_exact(name, nargs, argtypes);
	if (!f || !f->fn)
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "function %s with %d argument(s) does not exist", name, nargs);
	if (f->strict)
		for (int i = 0; i < nargs; i++)
			if (args[i].null)
				return ty_null();
	void *cache = NULL;
	ty_fcinfo fc = {.nargs = nargs, .args = args, .argtypes = argtypes, .rettype = f->ret,
			.rettypmod = TY_TYPMOD_NONE, .cache = &cache, .cache_arena = ty_get_arena()};
	return f->fn(&fc);
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_all(void)
{
	ty_register_pseudo();
	ty_register_numeric();
	ty_register_strings();
	ty_register_datetime();
	ty_register_arrays();
	ty_register_json();
	/* Resolve every operator's function now so lookups stay read-only. */
	for (int i = 0; i < ops.items.n; i++)
		ty_operator_func(ops.items.items[i]);
}

void ty_init(void) { pthread_once(&init_once, init_all); }
