/*
 * sysview.c — the registry of generated catalog relations and the scan
 * operator over them: the generator runs once per scan into the scan's
 * arena, then rows stream out in batches.
 */
#include <stdlib.h>
#include <string.h>

#include "sysview.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

static const sql_sysview **views;
static int nviews, views_cap;
static const char **colnames_cache; /* unused: names are read from cols */

void sql_sysview_register(const sql_sysview *vs, int n)
{
	for (int i = 0; i < n; i++) {
		if (nviews == views_cap) {
			views_cap = views_cap ? views_cap * 2 : 64;
			views = util_xrealloc(views, sizeof *views * (size_t)views_cap);
		}
		views[nviews++] = &vs[i];
	}
	(void)colnames_cache;
}

const sql_sysview *sql_sysview_find(const char *schema, const char *name)
{
	for (int i = 0; i < nviews; i++)
		if (!strcmp(views[i]->name, name) && !strcmp(views[i]->schema, schema))
			return views[i];
	return NULL;
}

int sql_sysview_count(void) { return nviews; }
const sql_sysview *sql_sysview_nth(int i) { return i >= 0 && i < nviews ? views[i] : NULL; }

void sql_sysview_columns(const sql_sysview *v, int *ncols, const char *const **names, const ty_oid **types)
{
	/* Column arrays are built once per view and kept (views are static). */
	typedef struct cache {
		const sql_sysview *v;
		const char **names;
		ty_oid *types;
	} cache;
	static cache *caches;
	static int ncaches;
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < ncaches; i++)
		if (caches[i].v == v) {
			*ncols = v->ncols;
			*names = caches[i].names;
			*types = caches[i].types;
			pthread_mutex_unlock(&mu);
			return;
		}
	caches = util_xrealloc(caches, sizeof *caches * (size_t)(ncaches + 1));
	cache *c = &caches[ncaches++];
	c->v = v;
	c->names = util_xmalloc(sizeof(char *) * (size_t)(v->ncols ? v->ncols : 1));
	c->types = util_xmalloc(sizeof(ty_oid) * (size_t)(v->ncols ? v->ncols : 1));
	for (int i = 0; i < v->ncols; i++) {
		c->names[i] = v->cols[i].name;
		c->types[i] = v->cols[i].type;
	}
	*ncols = v->ncols;
	*names = c->names;
	*types = c->types;
	pthread_mutex_unlock(&mu);
}

cat_oid sql_sysview_oid(const sql_sysview *v) { return v->oid; }

const char *sql_sysview_name_by_oid(cat_oid oid)
{
	for (int i = 0; i < nviews; i++)
		if (views[i]->oid == oid && oid)
			return views[i]->name;
	return NULL;
}

/* ---- datum helpers ---- */

ty_datum sql_d_text(const char *s) { return s ? ty_text(s) : ty_null(); }
ty_datum sql_d_name(const char *s) { return s ? ty_text(s) : ty_null(); }
ty_datum sql_d_oid(cat_oid o) { return ty_int(o); }
ty_datum sql_d_int(int64_t v) { return ty_int(v); }
ty_datum sql_d_bool(bool b) { return ty_bool(b); }
ty_datum sql_d_char(char c) { return ty_int((unsigned char)c); }

/* ---- the scan ---- */

struct sql_sysrows {
	const sql_sysview *v;
	util_arena *arena;
	ty_datum **rows;
	size_t n, cap;
};

void sql_sysrows_add(sql_sysrows *out, const ty_datum *vals)
{
	if (out->n == out->cap) {
		out->cap = out->cap ? out->cap * 2 : 64;
		out->rows = util_xrealloc(out->rows, sizeof(ty_datum *) * out->cap);
	}
	util_arena *old = ty_set_arena(out->arena);
	ty_datum *r = ty_alloc(sizeof(ty_datum) * (size_t)(out->v->ncols ? out->v->ncols : 1));
	for (int i = 0; i < out->v->ncols; i++) {
		const ty_type *t = ty_type_get(out->v->cols[i].type);
		r[i] = ty_datum_copy(vals[i], t ? t->byval : true);
	}
	ty_set_arena(old);
	out->rows[out->n++] = r;
}

typedef struct sysscan_state {
	sql_sysrows rows;
	size_t pos;
	bool loaded;
} sysscan_state;

void sql_seq_rows(sql_session *s, const cat_obj *seq, sql_sysrows *out);

static sql_batch *sysscan_next(sql_op *op)
{
	sysscan_state *st = op->state;
	const sql_plan *p = op->plan;
	if (!st->loaded) {
		st->loaded = true;
		st->rows.arena = util_arena_new(64 * 1024, 0);
		if (p->scan.sysview) {
			st->rows.v = p->scan.sysview;
			util_arena *old = ty_set_arena(st->rows.arena);
			p->scan.sysview->generate(op->ex->s, op->ex->cat, &st->rows);
			ty_set_arena(old);
		} else if (p->scan.rel && p->scan.rel->rel.relkind == CAT_RELKIND_SEQUENCE) {
			static const sql_syscol seqcols[] = {{"last_value", TY_INT8}, {"log_cnt", TY_INT8}, {"is_called", TY_BOOL}};
			static const sql_sysview seqview = {"", "", 0, 3, seqcols, NULL};
			st->rows.v = &seqview;
			int64_t last, logc;
			bool called;
			sql_seq_peek(op->ex->s, p->scan.rel->oid, &last, &logc, &called);
			ty_datum vals[3] = {ty_int(last), ty_int(logc), ty_bool(called)};
			sql_sysrows_add(&st->rows, vals);
		}
	}
	sql_batch *b = sql_op_begin_batch(op);
	while (st->pos < st->rows.n && b->n < b->cap) {
		ty_datum *row = sql_batch_row(b, b->n);
		memcpy(row, st->rows.rows[st->pos++], sizeof(ty_datum) * (size_t)p->ncols);
		if (p->qual && !sql_eval_qual(op->ex, p->qual, row))
			continue;
		b->n++;
	}
	return b;
}

static void sysscan_close(sql_op *op)
{
	sysscan_state *st = op->state;
	util_arena_destroy(st->rows.arena);
	free(st->rows.rows);
	memset(st, 0, sizeof *st);
}

static void sysscan_rescan(sql_op *op)
{
	sysscan_state *st = op->state;
	st->pos = 0; /* rows stay: a rescan within one statement sees the same catalog */
}

sql_op *sql_op_sysscan(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(sysscan_state));
	op->next = sysscan_next;
	op->close = sysscan_close;
	op->rescan = sysscan_rescan;
	return op;
}

void sql_sysviews_init(void) { sql_sysviews_core_init(); }
