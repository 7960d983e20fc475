/*
 * verify.c — strata_verify(): the SQL-level check of the whole store, for
 * the embedded engine and etcd alike (`strata verify` is its CLI form,
 * server/admin.c; docs/operations.md "Verify"). At one read point:
 *   kv       kv_store_verify (sorted files and logs; on etcd every key)
 *   catalog  every stored catalog row parses (cat_verify_rows)
 *   storage  every table and index the catalog names has its kv table,
 *            and no data or index kv table is named by no catalog object
 *   index    every index against its table's rows (index/'s checker):
 *            missing and mismatched entries are problems; stale entries
 *            only when verified (an unverified one is what an interrupted
 *            split commit leaves, and readers validate it)
 * Rows (check, object, ok, detail): one per problem (ok false), one per
 * object checked without a problem (ok, with what was checked).
 */
#include <stdio.h>
#include <string.h>

#include "sql_index.h"

static const ty_oid out_types[] = {TY_TEXT, TY_TEXT, TY_BOOL, TY_TEXT};
static const char *const out_names[] = {"check", "object", "ok", "detail"};

/* Problem rows per index beyond which only the counts are reported. */
#define INDEX_PROBLEM_ROWS 100

typedef struct vrow {
	const char *check, *object, *detail;
	bool ok;
} vrow;

typedef struct vstate {
	util_arena *a; /* the rows' strings */
	vrow *rows;
	size_t n, cap, pos;
	const char *check, *object; /* of the callbacks' problems */
	int index_problems;
} vstate;

static void add(vstate *v, const char *check, const char *object, bool ok, const char *detail)
{
	/* (ty_alloc: over the memory budget it throws 53200) */
	util_arena *old = ty_set_arena(v->a);
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 64;
		vrow *r = ty_alloc(sizeof *r * cap);
		if (v->n)
			memcpy(r, v->rows, sizeof *r * v->n);
		v->rows = r;
		v->cap = cap;
	}
	v->rows[v->n++] = (vrow){ty_strdup(check), ty_strdup(object), ty_strdup(detail), ok};
	ty_set_arena(old);
}

static void problem(void *arg, const char *text)
{
	vstate *v = arg;
	add(v, v->check, v->object, false, text);
}

/* schema.name, database.schema.name outside the session's database. */
static const char *qualname(sql_session *s, const cat_obj *o, char *buf, size_t len)
{
	const cat_obj *db = o->database != s->db_oid ? cat_get(s->cat, o->database) : NULL;
	snprintf(buf, len, "%s%s%s.%s", db ? db->db.name : "", db ? "." : "",
		 sql_schema_name(s->cat, o->rel.schema), o->rel.name);
	return buf;
}

/* ---------------------------------------------------------------- storages */

typedef struct storages {
	sql_session *s;
	vstate *v;
	util_map kv;   /* kv tables of the store: name -> 1 */
	util_map used; /* named by the catalog: name -> 1 */
	cat_snap *now; /* the newest catalog: an object dropped since the read point is no problem */
} storages;

static int list_fn(void *arg, const char *name)
{
	util_map_puts(arg, name, (void *)1);
	return 0;
}

static int rel_fn(void *arg, const cat_obj *o)
{
	storages *g = arg;
	if (!o->rel.storage[0])
		return 0;
	util_map_puts(&g->used, o->rel.storage, (void *)1);
	if (o->rel.ilv_depth)
		return 0; /* inside its root's kv table */
	char name[3 * CAT_NAME_MAX + 3], d[CAT_NAME_MAX + 80];
	qualname(g->s, o, name, sizeof name);
	if (util_map_gets(&g->kv, o->rel.storage)) {
		snprintf(d, sizeof d, "kv table %s", o->rel.storage);
		add(g->v, "storage", name, true, d);
	} else if (cat_get(g->now, o->oid)) {
		snprintf(d, sizeof d, "its kv table %s does not exist", o->rel.storage);
		add(g->v, "storage", name, false, d);
	}
	return 0;
}

/* Data and index kv tables no relation names: what a crash between
 * creating a storage and committing leaves (the embedded engine drops them
 * at start), or damage. Listed again at the end, so that a DROP or an
 * abort finishing meanwhile is not reported. */
static void orphans(storages *g)
{
	util_map again = UTIL_MAP_INIT;
	kv_table_list(g->s->e->kv, list_fn, &again);
	size_t pos = 0;
	const void *k;
	size_t kl;
	while (util_map_next(&g->kv, &pos, &k, &kl, NULL)) {
		char name[CAT_NAME_MAX + 1];
		snprintf(name, sizeof name, "%.*s", (int)kl, (const char *)k);
		if ((name[0] != 'r' && name[0] != 'i') || util_map_gets(&g->used, name) ||
		    !util_map_gets(&again, name))
			continue;
		add(g->v, "storage", name, false, "kv table named by no catalog object");
	}
	util_map_free(&again);
}

/* ---------------------------------------------------------------- indexes */

static void index_problem(void *arg, const idx_check_problem *p, const char *text)
{
	vstate *v = arg;
	/* An unverified stale entry is no damage: readers validate it. */
	if (p->kind == IDX_STALE_ENTRY && !p->verified && p->data_key.len)
		return;
	if (v->index_problems++ < INDEX_PROBLEM_ROWS)
		add(v, "index", v->object, false, text);
}

typedef struct indexes {
	sql_session *s;
	vstate *v;
	util_map *kv;
	kv_ts ts;
} indexes;

static int index_fn(void *arg, const cat_obj *o)
{
	indexes *g = arg;
	if (o->rel.relkind != CAT_RELKIND_INDEX || !o->rel.index)
		return 0;
	const cat_obj *t = cat_get(g->s->cat, o->rel.index->table);
	if (!t || !util_map_gets(g->kv, o->rel.storage) || !util_map_gets(g->kv, t->rel.storage))
		return 0; /* reported by the storage check */
	char name[3 * CAT_NAME_MAX + 3];
	vstate *v = g->v;
	v->check = "index";
	v->object = qualname(g->s, o, name, sizeof name);
	v->index_problems = 0;
	idx_check_report r;
	sql_verify_index_obj(g->s, o, g->ts, &r, index_problem, v);
	char d[240];
	int n =
	    snprintf(d, sizeof d, "%llu rows, %llu entries, %llu missing, %llu stale, %llu mismatched",
		     (unsigned long long)r.rows, (unsigned long long)r.entries, (unsigned long long)r.missing,
		     (unsigned long long)r.stale, (unsigned long long)r.mismatched);
	if (v->index_problems > INDEX_PROBLEM_ROWS)
		snprintf(d + n, sizeof d - (size_t)n, " (%d more problems not listed)",
			 v->index_problems - INDEX_PROBLEM_ROWS);
	/* The summary is a row of its own when clean, else only when problems
	 * went unlisted: one row per problem otherwise. */
	if (v->index_problems == 0 || v->index_problems > INDEX_PROBLEM_ROWS)
		add(v, "index", name, v->index_problems == 0, d);
	return 0;
}

/* ---------------------------------------------------------------- strata_verify() */

static void checks(sql_session *s, vstate *v, storages *g, kv_ts ts)
{
	kv_store *kv = s->e->kv;
	char d[160];
	size_t before = v->n;
	v->check = "kv";
	v->object = "store";
	kv_status st = kv_store_verify(kv, problem, v);
	if (st != KV_OK && v->n == before)
		add(v, "kv", "store", false, kv_errmsg());
	else if (v->n == before)
		add(v, "kv", "store", true, "no problem");

	before = v->n;
	uint64_t objects = 0;
	v->check = "catalog";
	v->object = "sys.catalog";
	st = cat_verify_rows(s->e->cat, ts, problem, v, &objects);
	if (st != KV_OK)
		sql_kv_error(st, "reading the catalog");
	snprintf(d, sizeof d, "%llu objects parse", (unsigned long long)objects);
	if (v->n == before)
		add(v, "catalog", "sys.catalog", true, d);

	cat_foreach(s->cat, CAT_REL, 0, rel_fn, g);
	indexes ix = {s, v, &g->kv, ts};
	cat_foreach(s->cat, CAT_REL, 0, index_fn, &ix);
	orphans(g);
}

static void run(sql_session *s, vstate *v)
{
	kv_ts ts = s->txn ? sql_txn_read_ts(s->txn) : 0;
	if (!ts)
		ts = kv_read_point(s->e->kv);
	/* The kv tables right after the read point: one another server
	 * creates and commits while the checks run is not taken for an
	 * orphan. */
	storages g = {s, v, UTIL_MAP_INIT, UTIL_MAP_INIT, cat_current(s->e->cat)};
	kv_status st = kv_table_list(s->e->kv, list_fn, &g.kv);
	TY_TRY(tc)
	{
		if (st != KV_OK)
			sql_kv_error(st, "listing the kv tables");
		checks(s, v, &g, ts);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_map_free(&g.kv);
		util_map_free(&g.used);
		cat_snap_release(g.now);
		ty_errthrow();
	}
	TY_END(tc);
	util_map_free(&g.kv);
	util_map_free(&g.used);
	cat_snap_release(g.now);
}

static ty_datum f_verify(ty_fcinfo *fc)
{
	vstate *v = fc->srf_state;
	if (fc->srf_first || !v) {
		sql_session *s = sql_current_session();
		if (!s->superuser)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to verify the store");
		util_arena *old = ty_set_arena(fc->cache_arena);
		v = ty_alloc(sizeof *v);
		ty_set_arena(old);
		memset(v, 0, sizeof *v);
		v->a = fc->cache_arena;
		run(s, v);
		fc->srf_state = v;
	}
	if (v->pos >= v->n) {
		fc->srf_done = true;
		return ty_null();
	}
	const vrow *r = &v->rows[v->pos++];
	ty_record *rec = ty_alloc(sizeof *rec);
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * 4);
	vals[0] = ty_text(r->check);
	vals[1] = ty_text(r->object);
	vals[2] = ty_bool(r->ok);
	vals[3] = ty_text(r->detail);
	rec->n = 4;
	rec->types = out_types;
	rec->names = out_names;
	rec->vals = vals;
	return ty_bytes(rec, sizeof *rec);
}

static const ty_func verify_funcs[] = {
    {.name = "strata_verify",
     .nargs = 0,
     .ret = TY_RECORD,
     .fn = f_verify,
     .volatility = TY_VOLATILE,
     .retset = true,
     .kind = 'f',
     .prosrc = "strata_verify",
     .nout = 4,
     .outtypes = out_types,
     .outnames = out_names},
};

void sql_register_verify_functions(void)
{
	ty_func_register(verify_funcs, (int)UTIL_ARRAY_LEN(verify_funcs));
}
