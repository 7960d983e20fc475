/*
 * index_engine.c — the engine-wide side of secondary indexes: the commit
 * gate (commits hold it shared while they read the newest index list and
 * commit; an index build drains it once after making the index write-only,
 * so no commit that missed the index can land after the build's snapshot),
 * the GC compaction filters that follow the catalog, the registry of
 * running builds (pg_stat_progress_create_index), and the session's write
 * mode (atomic or split protocol, with a fault point for crash tests).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql_index.h"
#include "sysview.h"

typedef struct gc_slot {
	cat_oid oid;
	char storage[CAT_NAME_MAX];
	util_arena *arena; /* compiled index and model */
	idx_rowmodel *model;
	idx_gc *gc;
	/* The snapshot the model was compiled against: it keeps the index and
	 * table objects the model points into alive; a slot whose objects are
	 * no longer the current ones is rebuilt. */
	cat_snap *cs;
	const cat_obj *index, *table;
	bool seen;
} gc_slot;

typedef struct progress {
	cat_oid index, table;
	char phase[48];
	uint64_t done, total;
	int32_t pid;
	cat_oid db;
} progress;

struct sql_index_engine {
	pthread_rwlock_t gate;
	pthread_mutex_t mu; /* gc slots, progress */
	gc_slot *gc;
	int ngc, gc_cap;
	progress *prog;
	int nprog, prog_cap;
	util_map gens; /* table oid -> commits that wrote it (uint64 in the pointer) */
	/* Builds interrupted by a crash, resumed in the background at start. */
	pthread_t resume;
	bool resuming;
	sql_session *resume_session; /* the one running (cancelled at close) */
	bool closing;
	int njobs;
	struct resume_job *jobs;
};

typedef struct resume_job {
	char db[CAT_NAME_MAX];
	char user[CAT_NAME_MAX];
	char sql[3 * CAT_NAME_MAX + 64];
} resume_job;

/* ---------------------------------------------------------------- gate */

void sql_index_gate_shared(sql_engine *e)
{
	pthread_rwlock_rdlock(&e->ix->gate);
}
void sql_index_gate_exclusive(sql_engine *e)
{
	pthread_rwlock_wrlock(&e->ix->gate);
}
void sql_index_gate_release(sql_engine *e)
{
	pthread_rwlock_unlock(&e->ix->gate);
}

void sql_index_gate_drain(sql_engine *e)
{
	pthread_rwlock_wrlock(&e->ix->gate);
	pthread_rwlock_unlock(&e->ix->gate);
}

/* ---------------------------------------------------------------- write generations */

uint64_t sql_index_table_gen(sql_engine *e, cat_oid table)
{
	sql_index_engine *ie = e->ix;
	pthread_mutex_lock(&ie->mu);
	uint64_t g = (uint64_t)(uintptr_t)util_map_get_u64(&ie->gens, table);
	pthread_mutex_unlock(&ie->mu);
	return g;
}

void sql_index_note_write(sql_engine *e, cat_oid table)
{
	sql_index_engine *ie = e->ix;
	pthread_mutex_lock(&ie->mu);
	uint64_t g = (uint64_t)(uintptr_t)util_map_get_u64(&ie->gens, table);
	util_map_put_u64(&ie->gens, table, (void *)(uintptr_t)(g + 1));
	pthread_mutex_unlock(&ie->mu);
}

/* ---------------------------------------------------------------- GC */

typedef struct refresh_ctx {
	sql_engine *e;
	cat_snap *cs;
} refresh_ctx;

/* Expression and partial indexes are judged by row existence only (their
 * expressions need a session); plain column indexes fully. */
static idx_rowmodel *gc_model(sql_engine *e, cat_snap *cs, const cat_obj *ix, util_arena *a, sql_ix **out)
{
	const cat_index_info *info = ix->rel.index;
	bool plain = !info->predicate_sql;
	for (int i = 0; i < info->nkeys; i++)
		plain &= info->keys[i].attnum != 0;
	if (!plain) {
		idx_rowmodel *m = util_arena_zalloc(a, sizeof *m);
		kv_column *sentinel = util_arena_zalloc(a, sizeof *sentinel);
		*sentinel = (kv_column){SQL_FAMILY, "", 0};
		m->columns = sentinel;
		m->ncolumns = 1;
		m->gc_judge = false;
		*out = NULL;
		return m;
	}
	(void)e;
	sql_ix *x = sql_ix_compile(NULL, cs, ix, NULL);
	*out = x;
	return sql_ix_rowmodel(NULL, x, a, true);
}

static void drop_slot(gc_slot *g)
{
	idx_gc_uninstall(g->gc);
	sql_ix_rowmodel_free(g->model);
	util_arena_destroy(g->arena);
	if (g->cs)
		cat_snap_release(g->cs);
	g->gc = NULL;
	g->arena = NULL;
	g->cs = NULL;
}

static int refresh_one(void *arg, const cat_obj *o)
{
	refresh_ctx *rc = arg;
	sql_index_engine *ie = rc->e->ix;
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_INDEX || !r->index || r->index->primary || !r->storage[0])
		return 0;
	const cat_obj *t = cat_get(rc->cs, r->index->table);
	for (int i = 0; i < ie->ngc; i++)
		if (ie->gc[i].oid == o->oid) {
			if (!strcmp(ie->gc[i].storage, r->storage) && ie->gc[i].index == o &&
			    ie->gc[i].table == t) {
				ie->gc[i].seen = true;
				return 0;
			}
			/* The index or its table changed (ALTER, another index,
			 * REINDEX): uninstall before the new filter goes in. */
			drop_slot(&ie->gc[i]);
			ie->gc[i] = ie->gc[--ie->ngc];
			break;
		}
	/* No GC filter on an interleaved child's index: its entries' row keys
	 * are not kv rows (index/gc.c reads them as such); markers and read
	 * repair keep it small (docs/entity-groups.md). */
	if (!t || t->rel.ilv_depth)
		return 0;
	gc_slot g;
	memset(&g, 0, sizeof g);
	g.oid = o->oid;
	snprintf(g.storage, sizeof g.storage, "%s", r->storage);
	cat_snap_ref(rc->cs);
	g.cs = rc->cs;
	g.index = o;
	g.table = t;
	g.arena = util_arena_new(8 * 1024, 0);
	g.seen = true;
	util_arena *old = ty_set_arena(g.arena);
	TY_TRY(tc)
	{
		sql_ix *x = NULL;
		g.model = gc_model(rc->e, rc->cs, o, g.arena, &x);
		idx_def d =
		    x ? x->def
		      : (idx_def){o->oid, NULL, r->index->unique, r->index->nulls_not_distinct, 0, NULL};
		if (!x) {
			/* Key types are needed to parse entries. */
			ty_keycol *keys = ty_alloc0(sizeof(ty_keycol) * (size_t)(r->index->nkeys + 1));
			d.nkeys = r->index->nkeys;
			for (int i = 0; i < d.nkeys; i++) {
				const cat_index_col *ic = &r->index->keys[i];
				const cat_column *c =
				    ic->attnum ? cat_column_by_attnum(&t->rel, ic->attnum) : NULL;
				/* Expression keys: the type is not known without analysis;
				 * such an index gets no GC filter. */
				if (!c)
					ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "expression key");
				keys[i] = (ty_keycol){c->type, ic->desc, ic->nulls_first};
			}
			d.keys = keys;
		}
		g.gc = idx_gc_install(rc->e->kv, r->storage, t->rel.storage, &d, g.model);
	}
	TY_CATCH(tc)
	{
		g.gc = NULL;
	}
	TY_END(tc);
	ty_set_arena(old);
	if (!g.gc) {
		sql_ix_rowmodel_free(g.model);
		util_arena_destroy(g.arena);
		g.arena = NULL;
		g.model = NULL;
	}
	if (ie->ngc == ie->gc_cap) {
		ie->gc_cap = ie->gc_cap ? ie->gc_cap * 2 : 16;
		ie->gc = util_xrealloc(ie->gc, sizeof *ie->gc * (size_t)ie->gc_cap);
	}
	ie->gc[ie->ngc++] = g;
	return 0;
}

void sql_index_gc_refresh(sql_engine *e)
{
	sql_index_engine *ie = e->ix;
	if (!ie)
		return;
	pthread_mutex_lock(&ie->mu);
	for (int i = 0; i < ie->ngc; i++)
		ie->gc[i].seen = false;
	refresh_ctx rc = {e, cat_current(e->cat)};
	cat_foreach(rc.cs, CAT_REL, 0, refresh_one, &rc);
	int k = 0;
	for (int i = 0; i < ie->ngc; i++) {
		if (!ie->gc[i].seen)
			drop_slot(&ie->gc[i]);
		else
			ie->gc[k++] = ie->gc[i];
	}
	ie->ngc = k;
	cat_snap_release(rc.cs);
	pthread_mutex_unlock(&ie->mu);
}

/* ---------------------------------------------------------------- progress */

void sql_index_progress_set(sql_engine *e, cat_oid index, cat_oid table, const char *phase, uint64_t done,
			    uint64_t total)
{
	sql_index_engine *ie = e->ix;
	sql_session *s = sql_current_session();
	pthread_mutex_lock(&ie->mu);
	progress *p = NULL;
	for (int i = 0; i < ie->nprog; i++)
		if (ie->prog[i].index == index)
			p = &ie->prog[i];
	if (!p) {
		if (ie->nprog == ie->prog_cap) {
			ie->prog_cap = ie->prog_cap ? ie->prog_cap * 2 : 8;
			ie->prog = util_xrealloc(ie->prog, sizeof *ie->prog * (size_t)ie->prog_cap);
		}
		p = &ie->prog[ie->nprog++];
		memset(p, 0, sizeof *p);
	}
	p->index = index;
	p->table = table;
	snprintf(p->phase, sizeof p->phase, "%s", phase);
	p->done = done;
	p->total = total;
	p->pid = s ? s->pid : 0;
	p->db = s ? s->db_oid : 0;
	pthread_mutex_unlock(&ie->mu);
}

void sql_index_progress_clear(sql_engine *e, cat_oid index)
{
	sql_index_engine *ie = e->ix;
	pthread_mutex_lock(&ie->mu);
	for (int i = 0; i < ie->nprog; i++)
		if (ie->prog[i].index == index) {
			ie->prog[i] = ie->prog[--ie->nprog];
			break;
		}
	pthread_mutex_unlock(&ie->mu);
}

#define I4 TY_INT4
#define I8 TY_INT8
#define O  TY_OID
#define T  TY_TEXT
#define N  TY_NAME

static const sql_syscol progress_cols[] = {
    {"pid", I4},
    {"datid", O},
    {"datname", N},
    {"relid", O},
    {"index_relid", O},
    {"command", T},
    {"phase", T},
    {"lockers_total", I8},
    {"lockers_done", I8},
    {"current_locker_pid", I8},
    {"blocks_total", I8},
    {"blocks_done", I8},
    {"tuples_total", I8},
    {"tuples_done", I8},
    {"partitions_total", I8},
    {"partitions_done", I8},
};

static void gen_progress(sql_session *s, cat_snap *cs, sql_sysrows *out)
{
	sql_index_engine *ie = s->e->ix;
	pthread_mutex_lock(&ie->mu);
	int n = ie->nprog;
	progress *copy = ty_alloc(sizeof *copy * (size_t)(n ? n : 1));
	if (n)
		memcpy(copy, ie->prog, sizeof *copy * (size_t)n);
	pthread_mutex_unlock(&ie->mu);
	for (int i = 0; i < n; i++) {
		const progress *p = &copy[i];
		const cat_obj *db = cat_get(cs, p->db);
		ty_datum v[16] = {
		    sql_d_int(p->pid),
		    sql_d_oid(p->db),
		    sql_d_name(db ? db->db.name : ""),
		    sql_d_oid(p->table),
		    sql_d_oid(p->index),
		    sql_d_text("CREATE INDEX CONCURRENTLY"),
		    sql_d_text(p->phase),
		    sql_d_int(0),
		    sql_d_int(0),
		    sql_d_int(0),
		    sql_d_int(0),
		    sql_d_int(0),
		    sql_d_int((int64_t)p->total),
		    sql_d_int((int64_t)p->done),
		    sql_d_int(0),
		    sql_d_int(0),
		};
		sql_sysrows_add(out, v);
	}
}

static const sql_sysview index_views[] = {
    SQL_SYSVIEW("pg_catalog", "pg_stat_progress_create_index", 12312, 'v', progress_cols, gen_progress),
};

static pthread_once_t views_once = PTHREAD_ONCE_INIT;
void sql_register_index_functions(void);
void sql_register_verify_functions(void);
void sql_register_fault_kv_functions(void);

static void views_init(void)
{
	sql_sysview_register(index_views, (int)UTIL_ARRAY_LEN(index_views));
	sql_register_index_functions();
	sql_register_verify_functions();
	sql_register_fault_kv_functions();
}

/* ---------------------------------------------------------------- resuming builds */

typedef struct job_ctx {
	sql_engine *e;
	resume_job *jobs;
	int n;
} job_ctx;

static int find_interrupted(void *arg, const cat_obj *o)
{
	void **a = arg;
	sql_index_engine *ie = a[0];
	cat_snap *cs = a[1];
	const cat_rel *r = &o->rel;
	if (r->relkind != CAT_RELKIND_INDEX || !r->index || r->index->state != CAT_INDEX_WRITE_ONLY)
		return 0;
	const cat_obj *db = cat_get(cs, o->database);
	const cat_obj *sch = cat_get(cs, r->schema);
	const cat_obj *su = cat_get(cs, CAT_OID_POSTGRES_ROLE);
	if (!db || !sch || !su)
		return 0;
	ie->jobs = util_xrealloc(ie->jobs, sizeof(resume_job) * (size_t)(ie->njobs + 1));
	resume_job *j = &ie->jobs[ie->njobs++];
	snprintf(j->db, sizeof j->db, "%s", db->db.name);
	snprintf(j->user, sizeof j->user, "%s", su->role.name);
	util_buf q = UTIL_BUF_INIT;
	util_buf_puts(&q, "REINDEX INDEX ");
	sql_quote_ident(sch->schema.name, &q);
	util_buf_putc(&q, '.');
	sql_quote_ident(r->name, &q);
	snprintf(j->sql, sizeof j->sql, "%s", q.data);
	util_buf_free(&q);
	return 0;
}

static int no_rows(void *arg, const uint8_t *data, size_t len, int ncols)
{
	(void)arg, (void)data, (void)len, (void)ncols;
	return 0;
}

static void no_done(void *arg, const sql_complete *c)
{
	(void)arg, (void)c;
}

static void *resume_builds(void *arg)
{
	sql_engine *e = arg;
	sql_index_engine *ie = e->ix;
	for (int i = 0; i < ie->njobs; i++) {
		resume_job *j = &ie->jobs[i];
		sql_startup st = {j->user, j->db, 0, NULL, NULL};
		sql_client cl;
		memset(&cl, 0, sizeof cl);
		sql_session *s = NULL;
		util_err err;
		util_err_clear(&err);
		pthread_mutex_lock(&ie->mu);
		bool stop = ie->closing;
		pthread_mutex_unlock(&ie->mu);
		if (stop || sql_session_open(e, &st, &cl, &s, &err) != 0) {
			if (!stop)
				util_warn("could not resume index build (%s): %s", j->sql, err.message);
			continue;
		}
		pthread_mutex_lock(&ie->mu);
		ie->resume_session = s;
		pthread_mutex_unlock(&ie->mu);
		util_info("resuming an interrupted index build: %s", j->sql);
		sql_dest dest = {NULL, NULL, no_rows};
		if (sql_simple_query(s, j->sql, &dest, no_done, NULL, &err) != 0)
			util_warn("resuming index build failed (%s): %s", j->sql, err.message);
		else
			util_info("index build resumed and finished: %s", j->sql);
		pthread_mutex_lock(&ie->mu);
		ie->resume_session = NULL;
		pthread_mutex_unlock(&ie->mu);
		sql_session_close(s);
	}
	return NULL;
}

/* At start: builds left write-only by a crash are resumed in the
 * background (REINDEX continues from the saved position). */
static void start_resume(sql_engine *e)
{
	sql_index_engine *ie = e->ix;
	cat_snap *cs = cat_current(e->cat);
	void *a[2] = {ie, cs};
	cat_foreach(cs, CAT_REL, 0, find_interrupted, a);
	cat_snap_release(cs);
	if (ie->njobs && pthread_create(&ie->resume, NULL, resume_builds, e) == 0)
		ie->resuming = true;
}

/* ---------------------------------------------------------------- engine */

void sql_index_engine_open(sql_engine *e)
{
	pthread_once(&views_once, views_init);
	sql_index_engine *ie = util_xcalloc(1, sizeof *ie);
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	/* A build waiting to drain the gate must not starve behind a stream of
	 * commits. */
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&ie->gate, &ra);
	pthread_rwlockattr_destroy(&ra);
	pthread_mutex_init(&ie->mu, NULL);
	e->ix = ie;
	if (e->cat) {
		sql_index_gc_refresh(e);
		if (!getenv("STRATA_NO_INDEX_RESUME"))
			start_resume(e);
	}
}

void sql_index_engine_close(sql_engine *e)
{
	sql_index_engine *ie = e->ix;
	if (!ie)
		return;
	if (ie->resuming) {
		pthread_mutex_lock(&ie->mu);
		ie->closing = true;
		if (ie->resume_session)
			atomic_store(&ie->resume_session->cancel, true);
		pthread_mutex_unlock(&ie->mu);
		pthread_join(ie->resume, NULL);
	}
	free(ie->jobs);
	for (int i = 0; i < ie->ngc; i++)
		drop_slot(&ie->gc[i]);
	free(ie->gc);
	free(ie->prog);
	util_map_free(&ie->gens);
	pthread_rwlock_destroy(&ie->gate);
	pthread_mutex_destroy(&ie->mu);
	free(ie);
	e->ix = NULL;
}

/* ---------------------------------------------------------------- write mode */

bool sql_index_split_mode(sql_session *s)
{
	const char *m = sql_guc_get(s, "strata.index_write_mode");
	if (m && *m)
		return !strcmp(m, "split");
	const char *env = getenv("STRATA_INDEX_WRITE_MODE");
	return env && !strcmp(env, "split");
}

void sql_index_fault(sql_session *s, idx_split_step step)
{
	/* Only a server started for fault tests honours the setting. */
	const char *enabled = getenv("STRATA_TEST_FAULTS");
	if (!enabled || strcmp(enabled, "1") != 0)
		return;
	const char *f = sql_guc_get(s, "strata.index_fault");
	if (!f || !*f)
		return;
	if ((step == IDX_STEP_INDEX_WRITTEN && !strcmp(f, "after_index")) ||
	    (step == IDX_STEP_DATA_WRITTEN && !strcmp(f, "after_data"))) {
		fprintf(stderr, "strata: index fault point %s reached, exiting\n", f);
		_exit(137); /* as if killed: no cleanup, nothing more written */
	}
}
