/*
 * fk.c — foreign keys: resolution at CREATE/ALTER TABLE, validation of
 * existing rows, and enforcement with PostgreSQL's semantics.
 *
 * Enforcement mirrors PostgreSQL's RI triggers: every row written by
 * INSERT/UPDATE/DELETE (and COPY) queues an event per affected constraint;
 * the events fire when the statement's modify node ends, or at COMMIT /
 * SET CONSTRAINTS ... IMMEDIATE for deferred constraints:
 *   'i'  a referencing row was inserted or its key changed: the referenced
 *        row must exist; it is locked (FOR KEY SHARE) so a concurrent
 *        DELETE of it waits for this transaction.
 *   'd'  a referenced row was deleted, 'u' its key updated: NO ACTION and
 *        RESTRICT refuse while referencing rows exist (NO ACTION lets a row
 *        with the same key, re-inserted meanwhile, satisfy them); CASCADE,
 *        SET NULL and SET DEFAULT change the referencing rows.
 * Checks read the newest committed state plus the transaction's own
 * writes. When the referenced columns are the referenced table's primary
 * key with the same types, the check is one point read; otherwise (and for
 * the actions on referencing rows) it runs an internal SQL statement, as
 * PostgreSQL's ri_triggers.c does, so indexes help when they exist.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

/* Events queued by one statement before they fire early (INSERT only). */
#define FK_EARLY_FIRE 8192

/* ---------------------------------------------------------------- resolution */

static const cat_obj *must_rel(sql_session *s, cat_snap *cs, PgQuery__RangeVar *rv)
{
	const cat_obj *o;
	TY_TRY(tc)
	{
		o = sql_lookup_rel(s, cs, rv, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->position < 0)
			ty_err()->position = 0;
		ty_errthrow();
	}
	TY_END(tc);
	return o;
}

void sql_fk_resolve(sql_session *s, cat_snap *cs, const cat_rel *r, cat_oid self_oid, cat_constraint *c,
		    PgQuery__Constraint *con, cat_obj *owner)
{
	PgQuery__RangeVar *rv = con->pktable;
	const cat_obj *ref = NULL;
	const cat_rel *rr;
	bool self =
	    !strcmp(rv->relname, r->name) &&
	    (!rv->schemaname || !*rv->schemaname || !strcmp(rv->schemaname, sql_schema_name(cs, r->schema)));
	if (self && (!rv->schemaname || !*rv->schemaname)) {
		/* Unqualified: the table being defined only if the path finds no other first. */
		const cat_obj *o = sql_lookup_rel_name(s, cs, NULL, rv->relname);
		if (o && o->oid != self_oid && o->rel.schema != r->schema)
			self = false;
	}
	if (self) {
		rr = r;
	} else {
		ref = must_rel(s, cs, rv);
		if (ref->rel.relkind != CAT_RELKIND_TABLE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "referenced relation \"%s\" is not a table",
				 ref->rel.name);
		rr = &ref->rel;
	}
	c->ref_table = self ? self_oid : ref->oid;
	int nref = con->n_pk_attrs ? (int)con->n_pk_attrs : c->ncols;
	c->ref_cols = cat_obj_alloc(owner, sizeof(int16_t) * (size_t)(nref > c->ncols ? nref
								      : c->ncols      ? c->ncols
										      : 1));
	if (con->n_pk_attrs) {
		for (size_t i = 0; i < con->n_pk_attrs; i++) {
			const cat_column *col = cat_column_by_name(rr, str_of(con->pk_attrs[i]));
			if (!col)
				ty_error(UTIL_E_UNDEFINED_COLUMN,
					 "column \"%s\" referenced in foreign key constraint does not exist",
					 str_of(con->pk_attrs[i]));
			c->ref_cols[i] = col->attnum;
		}
	} else {
		/* The referenced table's primary key. */
		const cat_constraint *pk = NULL;
		for (int i = 0; i < rr->ncons; i++)
			if (rr->cons[i].type == 'p')
				pk = &rr->cons[i];
		if (!pk)
			ty_error(UTIL_E_UNDEFINED_OBJECT,
				 "there is no primary key for referenced table \"%s\"", rr->name);
		if (pk->ncols != c->ncols)
			ty_error(UTIL_E_INVALID_FOREIGN_KEY,
				 "number of referencing and referenced columns for foreign key disagree");
		for (int i = 0; i < c->ncols; i++)
			c->ref_cols[i] = pk->cols[i];
	}
	/* The referenced columns must carry a primary key or unique constraint. */
	bool unique = false;
	for (int i = 0; i < rr->ncons && !unique; i++) {
		const cat_constraint *k = &rr->cons[i];
		if ((k->type != 'p' && k->type != 'u') || k->ncols != nref)
			continue;
		bool all = true;
		for (int a = 0; a < k->ncols && all; a++) {
			bool f = false;
			for (int b = 0; b < nref; b++)
				f |= k->cols[a] == c->ref_cols[b];
			all = f;
		}
		unique = all;
	}
	if (!unique)
		ty_error(UTIL_E_INVALID_FOREIGN_KEY,
			 "there is no unique constraint matching given keys for referenced table \"%s\"",
			 rr->name);
	if (nref != c->ncols)
		ty_error(UTIL_E_INVALID_FOREIGN_KEY,
			 "number of referencing and referenced columns for foreign key disagree");
	for (int i = 0; i < c->ncols; i++) {
		const cat_column *a = cat_column_by_attnum(r, c->cols[i]);
		const cat_column *b = cat_column_by_attnum(rr, c->ref_cols[i]);
		if (a->type != b->type && !sql_find_cmp_op("=", a->type, b->type) &&
		    !sql_can_coerce(a->type, b->type, SQL_COERCE_IMPLICIT)) {
			util_buf ta = UTIL_BUF_INIT, tb = UTIL_BUF_INIT;
			ty_format_type(a->type, -1, &ta);
			ty_format_type(b->type, -1, &tb);
			util_err *e = ty_errstart(UTIL_E_DATATYPE_MISMATCH,
						  "foreign key constraint \"%s\" cannot be implemented",
						  c->name[0] ? c->name : "?");
			util_err_detail(e,
					"Key columns \"%s\" and \"%s\" are of incompatible types: %s and %s.",
					a->name, b->name, ta.data, tb.data);
			util_buf_free(&ta);
			util_buf_free(&tb);
			ty_errthrow();
		}
	}
	if (c->on_delete == CAT_FK_SET_NULL || c->on_update == CAT_FK_SET_NULL)
		for (int i = 0; i < c->ncols; i++)
			if (cat_column_by_attnum(r, c->cols[i])->notnull) {
				/* PostgreSQL accepts it; the action then fails on NOT NULL. */
			}
}

/* ---------------------------------------------------------------- which constraints reference a table */

/* Per catalog version: referenced table oid -> list of (table, constraint)
 * oids. A few versions are kept for sessions on older snapshots. */
typedef struct fk_ref {
	cat_oid table, con;
} fk_ref;

typedef struct fk_reflist {
	int n;
	fk_ref *refs;
} fk_reflist;

typedef struct ref_cache {
	uint64_t version;
	bool valid;
	util_map by_ref; /* oid -> fk_reflist* (heap) */
	uint64_t last_use;
} ref_cache;

#define REF_CACHES 4
static ref_cache caches[REF_CACHES];
static pthread_mutex_t caches_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t cache_clock;

static int collect_refs(void *arg, const cat_obj *o)
{
	util_map *m = arg;
	if (o->rel.relkind != CAT_RELKIND_TABLE)
		return 0;
	for (int i = 0; i < o->rel.ncons; i++) {
		const cat_constraint *c = &o->rel.cons[i];
		if (c->type != 'f')
			continue;
		fk_reflist *l = util_map_get_u64(m, c->ref_table);
		if (!l) {
			l = util_xcalloc(1, sizeof *l);
			util_map_put_u64(m, c->ref_table, l);
		}
		l->refs = util_xrealloc(l->refs, sizeof(fk_ref) * (size_t)(l->n + 1));
		l->refs[l->n++] = (fk_ref){o->oid, c->oid};
	}
	return 0;
}

static void cache_clear(ref_cache *c)
{
	size_t pos = 0;
	void *v;
	while (util_map_next(&c->by_ref, &pos, NULL, NULL, &v)) {
		fk_reflist *l = v;
		free(l->refs);
		free(l);
	}
	util_map_free(&c->by_ref);
	memset(&c->by_ref, 0, sizeof c->by_ref);
	c->valid = false;
}

/* Copies the (table, constraint) pairs referencing table into the current
 * arena; returns their count. */
static int referencing(cat_snap *cs, cat_oid db, cat_oid table, fk_ref **out)
{
	uint64_t v = cat_snap_version(cs);
	pthread_mutex_lock(&caches_mu);
	ref_cache *c = NULL;
	for (int i = 0; i < REF_CACHES; i++)
		if (caches[i].valid && caches[i].version == v)
			c = &caches[i];
	if (!c) {
		c = &caches[0];
		for (int i = 1; i < REF_CACHES; i++)
			if (!caches[i].valid || caches[i].last_use < c->last_use)
				c = &caches[i];
		cache_clear(c);
		/* All databases: relations carry their database, oids are unique. */
		cat_foreach(cs, CAT_REL, 0, collect_refs, &c->by_ref);
		c->version = v;
		c->valid = true;
	}
	c->last_use = ++cache_clock;
	fk_reflist *l = util_map_get_u64(&c->by_ref, table);
	int n = 0;
	*out = NULL;
	if (l && l->n) {
		*out = ty_alloc(sizeof(fk_ref) * (size_t)l->n);
		memcpy(*out, l->refs, sizeof(fk_ref) * (size_t)l->n);
		n = l->n;
	}
	pthread_mutex_unlock(&caches_mu);
	(void)db;
	return n;
}

static const cat_constraint *con_by_oid(const cat_rel *r, cat_oid con)
{
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].oid == con)
			return &r->cons[i];
	return NULL;
}

/* ---------------------------------------------------------------- internal SQL */

static void put_qualified(cat_snap *cs, const cat_obj *rel, util_buf *b)
{
	sql_quote_ident(sql_schema_name(cs, rel->rel.schema), b);
	util_buf_putc(b, '.');
	sql_quote_ident(rel->rel.name, b);
}

static const char *colname(const cat_rel *r, int attnum)
{
	return cat_column_by_attnum(r, attnum)->name;
}

/* Parses, analyzes and plans an internal statement with typed $n params.
 * The plan lives in the current arena. Privileges are not checked: the
 * checks run on behalf of the tables' owners, as in PostgreSQL. */
static sql_planned *plan_sql(sql_session *s, cat_snap *cs, const char *sql, int nparams, const ty_oid *types)
{
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(sql, &err);
	if (!pr)
		ty_throw(&err);
	sql_pstate ps = {.text = sql};
	ps.nparams = nparams;
	ps.params_cap = nparams + 1;
	ps.param_types = ty_alloc0(sizeof(ty_oid) * (size_t)(nparams + 1));
	if (nparams)
		memcpy(ps.param_types, types, sizeof(ty_oid) * (size_t)nparams);
	sql_actx ax = {s, cs, ty_get_arena(), &ps};
	sql_planned *pl;
	TY_TRY(tc)
	{
		sql_query *q = sql_analyze(&ax, pr->stmts[0]->stmt);
		pl = sql_plan_query(&ax, q);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	pg_query__parse_result__free_unpacked(pr, NULL);
	pl->query = NULL; /* no privilege check */
	return pl;
}

/* Runs an internal statement at the newest read point, seeing every
 * earlier write of the transaction. With first != NULL, stops at the first
 * row and copies it there (first must hold the plan's columns). Returns
 * the rows returned or modified. */
static uint64_t run_sql(sql_session *s, cat_snap *cs, sql_planned *pl, ty_datum *params, int nparams,
			ty_datum *first)
{
	sql_txn *t = s->txn;
	t->cid++;
	sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), params, nparams);
	ex->cat = cs;
	ex->read_ts = kv_read_point(s->e->kv);
	uint64_t n = 0;
	TY_TRY(tc)
	{
		sql_op *root = sql_exec_node(ex, pl->plan);
		for (;;) {
			sql_batch *b = sql_op_next(root);
			if (b->n == 0)
				break;
			if (first) {
				ty_datum *row = sql_batch_row(b, 0);
				for (int i = 0; i < b->ncols; i++)
					first[i] =
					    ty_datum_copy(row[i], ty_type_get(pl->plan->types[i])
								      ? ty_type_get(pl->plan->types[i])->byval
								      : true);
				n = 1;
				break;
			}
			n += (uint64_t)b->n;
		}
		if (pl->cmd != SQL_CMD_SELECT)
			n = ex->processed;
		sql_exec_close(ex);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_err saved;
		memcpy(&saved, ty_err(), sizeof saved);
		util_err ignore;
		ty_protect((void (*)(void *))sql_exec_close, ex, &ignore);
		ty_throw(&saved);
	}
	TY_END(tc);
	return n;
}

/* ---------------------------------------------------------------- events */

typedef struct fk_event {
	struct fk_event *next;
	char kind;       /* 'i' check a referencing row, 'd' referenced row deleted, 'u' its key updated */
	cat_oid fktable; /* the table owning the constraint (referencing) */
	cat_oid con;
	int n;
	ty_datum *oldv; /* 'd', 'u': old referenced values (constraint column order) */
	ty_datum *newv; /* 'i': referencing values; 'u': new referenced values */
	uint8_t *key;   /* 'i': key of the referencing row */
	size_t klen;
} fk_event;

typedef struct fk_queue {
	fk_event *head, *tail;
	size_t n;
} fk_queue;

/* SET CONSTRAINTS state and deferred events of a transaction. */
typedef struct con_mode {
	cat_oid con;
	char mode; /* 'd' deferred, 'i' immediate */
} con_mode;

/* Lives in the transaction's arena: nothing to free at its end. */
struct sql_fk_txn {
	fk_queue deferred;
	char all_mode;   /* 0, 'd' (ALL DEFERRED) or 'i' (ALL IMMEDIATE) */
	con_mode *modes; /* SET CONSTRAINTS name ..., newest last */
	int nmodes;
};

typedef struct fk_in {
	const cat_obj *fkrel;
	const cat_constraint *con;
} fk_in;

struct sql_fk_state {
	sql_session *s;
	cat_snap *cs;
	const cat_obj *rel;
	sql_cmd cmd;
	int nout;
	const cat_constraint **out; /* rel's own foreign keys */
	int nin;
	fk_in *in; /* foreign keys referencing rel */
	fk_queue q;
	util_arena *arena; /* events of this statement */
	bool early_ok;     /* INSERT/COPY into a table no constraint of which references itself */
};

static struct sql_fk_txn *txn_fk(sql_txn *t)
{
	if (!t->fk) {
		t->fk = util_arena_zalloc(t->arena, sizeof(struct sql_fk_txn));
		if (!t->fk)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	}
	return t->fk;
}

static bool effective_deferred(sql_txn *t, const cat_constraint *c)
{
	if (!c->deferrable)
		return false;
	if (t->fk) {
		for (int i = t->fk->nmodes - 1; i >= 0; i--)
			if (t->fk->modes[i].con == c->oid)
				return t->fk->modes[i].mode == 'd';
		if (t->fk->all_mode)
			return t->fk->all_mode == 'd';
	}
	return c->deferred;
}

static ty_datum *copy_vals(util_arena *a, const cat_rel *r, const int16_t *cols, int n, const ty_datum *row)
{
	ty_datum *v = util_arena_alloc(a, sizeof(ty_datum) * (size_t)(n ? n : 1));
	if (!v)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	util_arena *old = ty_set_arena(a);
	for (int i = 0; i < n; i++) {
		const ty_type *ty = ty_type_get(r->cols[cols[i] - 1].type);
		v[i] = ty_datum_copy(row[cols[i] - 1], ty ? ty->byval : true);
	}
	ty_set_arena(old);
	return v;
}

static void enqueue(fk_queue *q, fk_event *e)
{
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->n++;
}

sql_fk_state *sql_fk_begin(sql_exec *ex, const cat_obj *rel, sql_cmd cmd)
{
	const cat_rel *r = &rel->rel;
	cat_snap *cs = ex->cat;
	int nout = 0;
	if (cmd == SQL_CMD_INSERT || cmd == SQL_CMD_UPDATE)
		for (int i = 0; i < r->ncons; i++)
			nout += r->cons[i].type == 'f';
	fk_ref *refs = NULL;
	int nrefs = 0;
	if (cmd == SQL_CMD_UPDATE || cmd == SQL_CMD_DELETE)
		nrefs = referencing(cs, ex->s->db_oid, rel->oid, &refs);
	if (!nout && !nrefs)
		return NULL;
	sql_fk_state *fs = ty_alloc0(sizeof *fs);
	fs->s = ex->s;
	fs->cs = cs;
	fs->rel = rel;
	fs->cmd = cmd;
	fs->out = ty_alloc(sizeof(cat_constraint *) * (size_t)(nout + 1));
	fs->early_ok = cmd == SQL_CMD_INSERT;
	for (int i = 0; i < r->ncons; i++)
		if (nout && r->cons[i].type == 'f') {
			fs->out[fs->nout++] = &r->cons[i];
			if (r->cons[i].ref_table == rel->oid)
				fs->early_ok = false;
		}
	fs->in = ty_alloc(sizeof(fk_in) * (size_t)(nrefs + 1));
	for (int i = 0; i < nrefs; i++) {
		const cat_obj *fo = cat_get(cs, refs[i].table);
		const cat_constraint *c = fo ? con_by_oid(&fo->rel, refs[i].con) : NULL;
		if (c)
			fs->in[fs->nin++] = (fk_in){fo, c};
	}
	if (!fs->nout && !fs->nin)
		return NULL;
	fs->arena = util_arena_new(64 * 1024, 0);
	return fs;
}

static void fire_queue(sql_session *s, cat_snap *cs, fk_queue *q);

static void queue_event(sql_fk_state *fs, const cat_constraint *c, fk_event *e)
{
	sql_txn *t = fs->s->txn;
	bool deferred =
	    effective_deferred(t, c) &&
	    !(e->kind != 'i' && (e->kind == 'd' ? c->on_delete : c->on_update) == CAT_FK_RESTRICT);
	if (deferred) {
		/* Move the values into the transaction's lifetime. */
		fk_event *d = util_arena_zalloc(t->arena, sizeof *d);
		*d = *e;
		d->next = NULL;
		const cat_obj *fo = cat_get(fs->cs, e->fktable);
		const cat_rel *fr = &fo->rel;
		const cat_rel *pr = e->kind == 'i' ? fr : &cat_get(fs->cs, c->ref_table)->rel;
		const int16_t *cols = e->kind == 'i' ? c->cols : c->ref_cols;
		util_arena *old = ty_set_arena(t->arena);
		for (int i = 0; i < e->n; i++) {
			const ty_type *ty = ty_type_get(pr->cols[cols[i] - 1].type);
			bool byval = ty ? ty->byval : true;
			if (e->oldv) {
				if (i == 0)
					d->oldv = ty_alloc(sizeof(ty_datum) * (size_t)e->n);
				d->oldv[i] = ty_datum_copy(e->oldv[i], byval);
			}
			if (e->newv) {
				if (i == 0)
					d->newv = ty_alloc(sizeof(ty_datum) * (size_t)e->n);
				d->newv[i] = ty_datum_copy(e->newv[i], byval);
			}
		}
		if (e->key)
			d->key = util_arena_memdup(t->arena, e->key, e->klen);
		ty_set_arena(old);
		enqueue(&txn_fk(t)->deferred, d);
		return;
	}
	enqueue(&fs->q, e);
}

static bool vals_equal(const cat_rel *r, const int16_t *cols, int n, const ty_datum *a, const ty_datum *b)
{
	for (int i = 0; i < n; i++) {
		ty_datum x = a[cols[i] - 1], y = b[cols[i] - 1];
		if (x.null != y.null)
			return false;
		if (!x.null && !ty_equal(r->cols[cols[i] - 1].type, x, y))
			return false;
	}
	return true;
}

void sql_fk_row(sql_fk_state *fs, const ty_datum *oldrow, const ty_datum *newrow)
{
	const cat_rel *r = &fs->rel->rel;
	util_arena *a = fs->arena;
	/* Referencing side: the new row's key must exist. */
	if (newrow)
		for (int i = 0; i < fs->nout; i++) {
			const cat_constraint *c = fs->out[i];
			if (oldrow && vals_equal(r, c->cols, c->ncols, oldrow, newrow))
				continue;
			int nulls = 0;
			for (int k = 0; k < c->ncols; k++)
				nulls += newrow[c->cols[k] - 1].null;
			if (nulls == c->ncols || (nulls && c->match != 'f'))
				continue;
			fk_event *e = util_arena_zalloc(a, sizeof *e);
			if (!e)
				ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
			e->kind = 'i';
			e->fktable = fs->rel->oid;
			e->con = c->oid;
			e->n = c->ncols;
			e->newv = copy_vals(a, r, c->cols, c->ncols, newrow);
			ty_datum key = newrow[r->ncols];
			e->key = util_arena_memdup_nz(a, key.p, key.len);
			e->klen = key.len;
			queue_event(fs, c, e);
		}
	/* Referenced side: rows still pointing at the old key. */
	bool changed_ref = false;
	if (oldrow)
		for (int i = 0; i < fs->nin; i++) {
			const cat_constraint *c = fs->in[i].con;
			bool anynull = false;
			for (int k = 0; k < c->ncols; k++)
				anynull |= oldrow[c->ref_cols[k] - 1].null;
			if (anynull)
				continue;
			if (newrow && vals_equal(r, c->ref_cols, c->ncols, oldrow, newrow))
				continue;
			fk_event *e = util_arena_zalloc(a, sizeof *e);
			if (!e)
				ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
			e->kind = newrow ? 'u' : 'd';
			changed_ref |= newrow != NULL;
			e->fktable = fs->in[i].fkrel->oid;
			e->con = c->oid;
			e->n = c->ncols;
			e->oldv = copy_vals(a, r, c->ref_cols, c->ncols, oldrow);
			if (newrow)
				e->newv = copy_vals(a, r, c->ref_cols, c->ncols, newrow);
			queue_event(fs, c, e);
		}
	/* A store shared by several servers: a child another server inserts
	 * after this statement's snapshot, pointing at the old value, leaves a
	 * share mark on this row; the commit then fails (40001) instead of
	 * orphaning it. (A row delete compares the mark anyway.) */
	if (changed_ref && fs->s->e->opts.store_uri) {
		kv_table *kv;
		kv_status ks = kv_table_open(fs->s->e->kv, r->storage, &kv);
		if (ks != KV_OK)
			sql_kv_error(ks, "opening a table");
		ty_datum key = oldrow[r->ncols];
		sql_txn_note_lock(fs->s->txn, kv, fs->rel->oid, key.p, key.len, SQL_LOCK_GUARD_SHARES, 0);
		kv_table_close(kv);
	}
	if (fs->early_ok && fs->q.n >= FK_EARLY_FIRE) {
		fk_queue q = fs->q;
		memset(&fs->q, 0, sizeof fs->q);
		fire_queue(fs->s, fs->cs, &q);
		util_arena_reset(fs->arena);
	}
}

void sql_fk_end(sql_fk_state *fs)
{
	if (!fs)
		return;
	fk_queue q = fs->q;
	memset(&fs->q, 0, sizeof fs->q);
	TY_TRY(tc)
	{
		fire_queue(fs->s, fs->cs, &q);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		util_arena_destroy(fs->arena);
		fs->arena = NULL;
		ty_errthrow();
	}
	TY_END(tc);
	util_arena_destroy(fs->arena);
	fs->arena = NULL;
}

void sql_fk_abandon(sql_fk_state *fs)
{
	if (fs && fs->arena) {
		util_arena_destroy(fs->arena);
		fs->arena = NULL;
	}
}

/* ---------------------------------------------------------------- firing */

typedef struct fire_ctx {
	sql_session *s;
	cat_snap *cs;
	util_map plans; /* (con oid, kind) -> sql_planned* */
	util_arena *scratch;
} fire_ctx;

static UTIL_NORETURN void fk_fail(fire_ctx *fc, const cat_obj *fkrel, const cat_constraint *c,
				  const char *detail, bool referenced_side, const cat_obj *pkrel)
{
	util_err *e;
	if (referenced_side)
		e = ty_errstart(
		    UTIL_E_FOREIGN_KEY_VIOLATION,
		    "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"",
		    pkrel->rel.name, c->name, fkrel->rel.name);
	else
		e = ty_errstart(UTIL_E_FOREIGN_KEY_VIOLATION,
				"insert or update on table \"%s\" violates foreign key constraint \"%s\"",
				fkrel->rel.name, c->name);
	util_err_detail(e, "%s", detail);
	const char *sn = sql_schema_name(fc->cs, fkrel->rel.schema);
	if (sn)
		util_err_field(e->schema, sn);
	util_err_field(e->table, fkrel->rel.name);
	util_err_field(e->constraint, c->name);
	ty_errthrow();
}

/* "Key (a, b)=(1, 2)" */
static void key_text(const cat_rel *r, const int16_t *cols, int n, const ty_datum *vals, util_buf *b)
{
	util_buf_puts(b, "Key (");
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(b, ", ");
		util_buf_puts(b, colname(r, cols[i]));
	}
	util_buf_puts(b, ")=(");
	for (int i = 0; i < n; i++) {
		if (i)
			util_buf_puts(b, ", ");
		if (vals[i].null)
			util_buf_puts(b, "null");
		else
			ty_output(r->cols[cols[i] - 1].type, vals[i], b);
	}
	util_buf_putc(b, ')');
}

static sql_planned *cached_plan(fire_ctx *fc, cat_oid con, char kind, const char *sql, int nparams,
				const ty_oid *types)
{
	uint64_t k = ((uint64_t)con << 8) | (uint8_t)kind;
	sql_planned *pl = util_map_get_u64(&fc->plans, k);
	if (!pl) {
		pl = plan_sql(fc->s, fc->cs, sql, nparams, types);
		util_map_put_u64(&fc->plans, k, pl);
	}
	return pl;
}

/* Are the referenced columns the referenced table's whole primary key,
 * with the referencing side's types? Then a check is one point read. */
static bool pk_path(const cat_rel *fr, const cat_rel *pr, const cat_constraint *c, bool same_types)
{
	if (pr->npk != c->ncols || pr->ilv_depth)
		return false; /* interleaved rows are not kv rows of their own */
	for (int i = 0; i < c->ncols; i++) {
		bool f = false;
		for (int k = 0; k < pr->npk; k++)
			f |= pr->pk[k] == c->ref_cols[i];
		if (!f)
			return false;
		if (same_types && cat_column_by_attnum(fr, c->cols[i])->type !=
				      cat_column_by_attnum(pr, c->ref_cols[i])->type)
			return false;
	}
	return true;
}

/* Does the referenced row with these values (in the referenced table's
 * types, constraint order) exist now? With lock, it is locked first. */
static bool pk_row_exists(fire_ctx *fc, const cat_obj *pkrel, const cat_constraint *c, const ty_datum *vals,
			  bool lock)
{
	sql_session *s = fc->s;
	const cat_rel *pr = &pkrel->rel;
	ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(pr->ncols + 1));
	for (int i = 0; i < pr->ncols; i++)
		row[i] = ty_null();
	for (int i = 0; i < c->ncols; i++)
		row[c->ref_cols[i] - 1] = vals[i];
	util_buf key = UTIL_BUF_INIT;
	sql_row_key(pr, row, &key);
	uint8_t *k = ty_alloc(key.len ? key.len : 1);
	memcpy(k, key.data, key.len);
	size_t kl = key.len;
	util_buf_free(&key);
	if (lock)
		sql_txn_lock_row(s->txn, pkrel->oid, k, kl, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE,
				 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	sql_wrow *w = sql_txn_lookup(s->txn, pkrel->oid, k, kl, false);
	if (w)
		return w->present;
	kv_table *kv;
	kv_status ks = kv_table_open(s->e->kv, pr->storage, &kv);
	if (ks != KV_OK)
		sql_kv_error(ks, "opening a table");
	if (!fc->scratch)
		fc->scratch = util_arena_new(4096, 0);
	util_arena_reset(fc->scratch);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	/* A store shared by several servers: this server's lock manager does
	 * not see theirs; read at a fresh read point and let the commit carry
	 * the lock (sql_txn_note_lock): the parent still there, and another
	 * server's delete of it based on an older version fails. */
	bool shared = lock && s->e->opts.store_uri;
	if (shared)
		ro.read_ts = kv_read_point(s->e->kv);
	kv_column sentinel = {SQL_FAMILY, "", 0};
	ro.columns = &sentinel;
	ro.ncolumns = 1;
	kv_row out;
	ks = kv_get(kv, k, kl, &ro, fc->scratch, &out);
	bool found = ks == KV_OK && out.n > 0;
	if (found && shared)
		sql_txn_note_lock(s->txn, kv, pkrel->oid, k, kl, SQL_LOCK_PARENT_KEY, ro.read_ts);
	kv_table_close(kv);
	if (ks != KV_OK && ks != KV_NOT_FOUND)
		sql_kv_error(ks, "reading a row");
	return found;
}

/* SELECT 1 FROM ONLY pk WHERE pk.c1 = $1 AND ... [FOR KEY SHARE] */
static bool pk_row_exists_sql(fire_ctx *fc, const cat_obj *fkrel, const cat_obj *pkrel,
			      const cat_constraint *c, ty_datum *vals, bool vals_are_fk_typed, bool lock)
{
	const cat_rel *pr = &pkrel->rel, *fr = &fkrel->rel;
	util_buf b = UTIL_BUF_INIT;
	util_buf_puts(&b, "SELECT 1 FROM ONLY ");
	put_qualified(fc->cs, pkrel, &b);
	util_buf_puts(&b, " x WHERE ");
	ty_oid *types = ty_alloc(sizeof(ty_oid) * (size_t)c->ncols);
	for (int i = 0; i < c->ncols; i++) {
		if (i)
			util_buf_puts(&b, " AND ");
		util_buf_puts(&b, "x.");
		sql_quote_ident(colname(pr, c->ref_cols[i]), &b);
		util_buf_printf(&b, " = $%d", i + 1);
		types[i] = vals_are_fk_typed ? cat_column_by_attnum(fr, c->cols[i])->type
					     : cat_column_by_attnum(pr, c->ref_cols[i])->type;
	}
	if (lock)
		util_buf_puts(&b, " FOR KEY SHARE OF x");
	sql_planned *pl =
	    cached_plan(fc, c->oid, lock ? (vals_are_fk_typed ? 'L' : 'M') : (vals_are_fk_typed ? 'P' : 'Q'),
			b.data, c->ncols, types);
	util_buf_free(&b);
	ty_datum one;
	bool found = run_sql(fc->s, fc->cs, pl, vals, c->ncols, &one) > 0;
	if (found && lock) /* locked now: read again past concurrent changes */
		found = run_sql(fc->s, fc->cs, pl, vals, c->ncols, &one) > 0;
	return found;
}

static void fire_check(fire_ctx *fc, fk_event *e, bool deferred)
{
	const cat_obj *fkrel = cat_get(fc->cs, e->fktable);
	if (!fkrel)
		return;
	const cat_constraint *c = con_by_oid(&fkrel->rel, e->con);
	if (!c)
		return; /* dropped meanwhile */
	const cat_rel *fr = &fkrel->rel;
	if (deferred) {
		/* The row may have been deleted or changed since (its later
		 * version queued its own event). */
		sql_wrow *w = sql_txn_lookup(fc->s->txn, fkrel->oid, e->key, e->klen, false);
		if (w && !w->present)
			return;
		if (w && w->present && (w->inserted || w->set[c->cols[0] - 1])) {
			for (int i = 0; i < c->ncols; i++) {
				ty_datum v = w->cols[c->cols[i] - 1];
				if (v.null != e->newv[i].null ||
				    (!v.null && !ty_equal(fr->cols[c->cols[i] - 1].type, v, e->newv[i])))
					return;
			}
		}
	}
	int nulls = 0;
	for (int i = 0; i < c->ncols; i++)
		nulls += e->newv[i].null;
	if (nulls) {
		if (nulls < c->ncols && c->match == 'f')
			fk_fail(fc, fkrel, c,
				"MATCH FULL does not allow mixing of null and nonnull key values.", false,
				NULL);
		return;
	}
	const cat_obj *pkrel = cat_get(fc->cs, c->ref_table);
	if (!pkrel)
		return;
	bool ok = pk_path(fr, &pkrel->rel, c, true)
		      ? pk_row_exists(fc, pkrel, c, e->newv, true)
		      : pk_row_exists_sql(fc, fkrel, pkrel, c, e->newv, true, true);
	if (!ok) {
		util_buf d = UTIL_BUF_INIT;
		key_text(fr, c->cols, c->ncols, e->newv, &d);
		util_buf_printf(&d, " is not present in table \"%s\".", pkrel->rel.name);
		char *msg = ty_strdup(d.data);
		util_buf_free(&d);
		fk_fail(fc, fkrel, c, msg, false, NULL);
	}
}

/* The action on referencing rows when a referenced key goes away. */
static void fire_action(fire_ctx *fc, fk_event *e)
{
	const cat_obj *fkrel = cat_get(fc->cs, e->fktable);
	if (!fkrel)
		return;
	const cat_constraint *c = con_by_oid(&fkrel->rel, e->con);
	if (!c)
		return;
	const cat_obj *pkrel = cat_get(fc->cs, c->ref_table);
	if (!pkrel)
		return;
	const cat_rel *fr = &fkrel->rel, *pr = &pkrel->rel;
	char action = e->kind == 'd' ? c->on_delete : c->on_update;
	if (action == CAT_FK_NO_ACTION) {
		/* A row with the same key may exist again (deleted and re-inserted). */
		bool again = pk_path(fr, pr, c, false)
				 ? pk_row_exists(fc, pkrel, c, e->oldv, false)
				 : pk_row_exists_sql(fc, fkrel, pkrel, c, e->oldv, false, false);
		if (again)
			return;
	}
	ty_oid *types = ty_alloc(sizeof(ty_oid) * (size_t)(2 * c->ncols));
	for (int i = 0; i < c->ncols; i++)
		types[i] = types[c->ncols + i] = cat_column_by_attnum(pr, c->ref_cols[i])->type;
	util_buf w = UTIL_BUF_INIT;
	for (int i = 0; i < c->ncols; i++) {
		if (i)
			util_buf_puts(&w, " AND ");
		util_buf_puts(&w, "x.");
		sql_quote_ident(colname(fr, c->cols[i]), &w);
		util_buf_printf(&w, " = $%d", i + 1);
	}
	util_buf b = UTIL_BUF_INIT;
	char kind;
	ty_datum *params = e->oldv;
	int nparams = c->ncols;
	switch (action) {
	case CAT_FK_NO_ACTION:
	case CAT_FK_RESTRICT:
		kind = 'R';
		util_buf_puts(&b, "SELECT 1 FROM ONLY ");
		put_qualified(fc->cs, fkrel, &b);
		util_buf_printf(&b, " x WHERE %s LIMIT 1", w.data);
		break;
	case CAT_FK_CASCADE:
		if (e->kind == 'd') {
			kind = 'D';
			util_buf_puts(&b, "DELETE FROM ONLY ");
			put_qualified(fc->cs, fkrel, &b);
			util_buf_printf(&b, " x WHERE %s", w.data);
		} else {
			kind = 'U';
			util_buf_puts(&b, "UPDATE ONLY ");
			put_qualified(fc->cs, fkrel, &b);
			util_buf_puts(&b, " x SET ");
			for (int i = 0; i < c->ncols; i++) {
				if (i)
					util_buf_puts(&b, ", ");
				sql_quote_ident(colname(fr, c->cols[i]), &b);
				util_buf_printf(&b, " = $%d", c->ncols + i + 1);
			}
			util_buf_printf(&b, " WHERE %s", w.data);
			params = ty_alloc(sizeof(ty_datum) * (size_t)(2 * c->ncols));
			memcpy(params, e->oldv, sizeof(ty_datum) * (size_t)c->ncols);
			memcpy(params + c->ncols, e->newv, sizeof(ty_datum) * (size_t)c->ncols);
			nparams = 2 * c->ncols;
		}
		break;
	default: /* SET NULL, SET DEFAULT */
		kind =
		    action == CAT_FK_SET_NULL ? (e->kind == 'd' ? 'n' : 'N') : (e->kind == 'd' ? 'f' : 'F');
		util_buf_puts(&b, "UPDATE ONLY ");
		put_qualified(fc->cs, fkrel, &b);
		util_buf_puts(&b, " x SET ");
		for (int i = 0; i < c->ncols; i++) {
			if (i)
				util_buf_puts(&b, ", ");
			sql_quote_ident(colname(fr, c->cols[i]), &b);
			util_buf_puts(&b, action == CAT_FK_SET_NULL ? " = NULL" : " = DEFAULT");
		}
		util_buf_printf(&b, " WHERE %s", w.data);
		break;
	}
	sql_planned *pl = cached_plan(fc, c->oid, kind, b.data, nparams, types);
	util_buf_free(&b);
	if (action == CAT_FK_SET_DEFAULT) {
		/* Rows whose default equals the old key were "updated" to the same
		 * values and checked by nobody: look again, as PostgreSQL does. */
		run_sql(fc->s, fc->cs, pl, params, nparams, NULL);
		kind = 'R';
		util_buf_puts(&b, "SELECT 1 FROM ONLY ");
		put_qualified(fc->cs, fkrel, &b);
		util_buf_printf(&b, " x WHERE %s LIMIT 1", w.data);
		pl = cached_plan(fc, c->oid, kind, b.data, nparams, types);
		util_buf_free(&b);
	}
	util_buf_free(&w);
	if (kind == 'R') {
		ty_datum one;
		if (run_sql(fc->s, fc->cs, pl, params, nparams, &one)) {
			util_buf d = UTIL_BUF_INIT;
			key_text(pr, c->ref_cols, c->ncols, e->oldv, &d);
			util_buf_printf(&d, " is still referenced from table \"%s\".", fr->name);
			char *msg = ty_strdup(d.data);
			util_buf_free(&d);
			fk_fail(fc, fkrel, c, msg, true, pkrel);
		}
		return;
	}
	run_sql(fc->s, fc->cs, pl, params, nparams, NULL);
}

static void fire_one(fire_ctx *fc, fk_event *e, bool deferred)
{
	if (e->kind == 'i')
		fire_check(fc, e, deferred);
	else
		fire_action(fc, e);
}

static void fire_list(sql_session *s, cat_snap *cs, fk_event *head, bool deferred)
{
	if (!head)
		return;
	fire_ctx fc;
	memset(&fc, 0, sizeof fc);
	fc.s = s;
	fc.cs = cs;
	util_arena *a = util_arena_new(64 * 1024, 0);
	util_arena *saved = ty_set_arena(a);
	TY_TRY(tc)
	{
		int n = 0;
		for (fk_event *e = head; e; e = e->next) {
			fire_one(&fc, e, deferred);
			if ((++n & 255) == 0)
				sql_check_interrupts(s);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(saved);
		util_map_free(&fc.plans);
		util_arena_destroy(fc.scratch);
		util_err err;
		memcpy(&err, ty_err(), sizeof err);
		util_arena_destroy(a);
		ty_throw(&err);
	}
	TY_END(tc);
	ty_set_arena(saved);
	util_map_free(&fc.plans);
	util_arena_destroy(fc.scratch);
	util_arena_destroy(a);
}

static void fire_queue(sql_session *s, cat_snap *cs, fk_queue *q)
{
	fire_list(s, cs, q->head, false);
}

/* ---------------------------------------------------------------- deferred: COMMIT and SET CONSTRAINTS */

static cat_snap *txn_snap(sql_session *s, sql_txn *t)
{
	return t->ddl ? cat_txn_snap(t->ddl) : s->cat;
}

/* Fires the deferred events of constraints that are (now) immediate, or
 * all of them (commit). */
static void fire_deferred(sql_session *s, sql_txn *t, bool all)
{
	struct sql_fk_txn *ft = t->fk;
	if (!ft || !ft->deferred.head)
		return;
	cat_snap *cs = txn_snap(s, t);
	fk_event *fire = NULL, **tail = &fire;
	fk_queue keep = {0};
	for (fk_event *e = ft->deferred.head, *next; e; e = next) {
		next = e->next;
		e->next = NULL;
		bool now = all;
		if (!now) {
			const cat_obj *fo = cat_get(cs, e->fktable);
			const cat_constraint *c = fo ? con_by_oid(&fo->rel, e->con) : NULL;
			now = !c || !effective_deferred(t, c);
		}
		if (now) {
			*tail = e;
			tail = &e->next;
		} else {
			enqueue(&keep, e);
		}
	}
	ft->deferred = keep;
	fire_list(s, cs, fire, true);
}

typedef struct commit_arg {
	sql_session *s;
	sql_txn *t;
} commit_arg;

static void commit_fire(void *p)
{
	commit_arg *a = p;
	fire_deferred(a->s, a->t, true);
}

int sql_fk_at_commit(sql_txn *t, util_err *err)
{
	if (!t->fk || !t->fk->deferred.head)
		return 0;
	sql_session *s = t->s;
	/* The callers detached the transaction from the session already. */
	sql_txn *saved = s->txn;
	s->txn = t;
	commit_arg arg = {s, t};
	int rc = ty_protect(commit_fire, &arg, err);
	s->txn = saved;
	return rc;
}

typedef struct con_find {
	cat_oid *path;
	int np;
	const char *name;
	const cat_constraint *found;
} con_find;

static int find_con(void *arg, const cat_obj *o)
{
	con_find *cf = arg;
	bool in_path = false;
	for (int i = 0; i < cf->np; i++)
		in_path |= cf->path[i] == o->rel.schema;
	if (!in_path)
		return 0;
	for (int i = 0; i < o->rel.ncons; i++)
		if (!strcmp(o->rel.cons[i].name, cf->name))
			cf->found = &o->rel.cons[i];
	return 0;
}

void sql_fk_set_constraints(sql_session *s, PgQuery__ConstraintsSetStmt *st)
{
	sql_txn *t = s->txn;
	if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
		sql_warning(s, UTIL_E_NO_ACTIVE_SQL_TRANSACTION,
			    "SET CONSTRAINTS can only be used in transaction blocks");
	struct sql_fk_txn *ft = txn_fk(t);
	char mode = st->deferred ? 'd' : 'i';
	cat_snap *cs = txn_snap(s, t);
	if (!st->n_constraints) {
		ft->all_mode = mode;
		ft->nmodes = 0;
	} else {
		for (size_t i = 0; i < st->n_constraints; i++) {
			PgQuery__RangeVar *rv = st->constraints[i]->range_var;
			/* Constraint names are looked up in the schemas of the path. */
			cat_oid path[32];
			int np = 0;
			if (rv->schemaname && *rv->schemaname) {
				const cat_obj *sch = sql_lookup_schema(s, cs, rv->schemaname);
				if (!sch)
					ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist",
						 rv->schemaname);
				path[np++] = sch->oid;
			} else {
				np = sql_search_path(s, cs, path, 32);
			}
			con_find cf = {path, np, rv->relname, NULL};
			cat_foreach(cs, CAT_REL, s->db_oid, find_con, &cf);
			if (!cf.found)
				ty_error(UTIL_E_UNDEFINED_OBJECT, "constraint \"%s\" does not exist",
					 rv->relname);
			if (!cf.found->deferrable)
				ty_error(UTIL_E_WRONG_OBJECT_TYPE, "constraint \"%s\" is not deferrable",
					 rv->relname);
			con_mode *nm =
			    util_arena_alloc(t->arena, sizeof(con_mode) * (size_t)(ft->nmodes + 1));
			if (!nm)
				ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
			if (ft->nmodes)
				memcpy(nm, ft->modes, sizeof(con_mode) * (size_t)ft->nmodes);
			nm[ft->nmodes++] = (con_mode){cf.found->oid, mode};
			ft->modes = nm;
		}
	}
	if (mode == 'i')
		fire_deferred(s, t, false);
}

/* ---------------------------------------------------------------- validation (ALTER TABLE) */

void sql_fk_validate(sql_session *s, cat_snap *cs, cat_oid table, const cat_constraint *c)
{
	const cat_obj *fkrel = cat_get(cs, table);
	const cat_obj *pkrel = cat_get(cs, c->ref_table);
	const cat_rel *fr = &fkrel->rel, *pr = &pkrel->rel;
	/* One anti-join, as PostgreSQL's RI_Initial_Check. */
	util_buf b = UTIL_BUF_INIT;
	util_buf_puts(&b, "SELECT ");
	for (int i = 0; i < c->ncols; i++) {
		if (i)
			util_buf_puts(&b, ", ");
		util_buf_puts(&b, "fk.");
		sql_quote_ident(colname(fr, c->cols[i]), &b);
	}
	util_buf_puts(&b, " FROM ONLY ");
	put_qualified(cs, fkrel, &b);
	util_buf_puts(&b, " fk LEFT JOIN ONLY ");
	put_qualified(cs, pkrel, &b);
	util_buf_puts(&b, " pk ON ");
	for (int i = 0; i < c->ncols; i++) {
		if (i)
			util_buf_puts(&b, " AND ");
		util_buf_puts(&b, "pk.");
		sql_quote_ident(colname(pr, c->ref_cols[i]), &b);
		util_buf_puts(&b, " = fk.");
		sql_quote_ident(colname(fr, c->cols[i]), &b);
	}
	util_buf_puts(&b, " WHERE pk.");
	sql_quote_ident(colname(pr, c->ref_cols[0]), &b);
	util_buf_puts(&b, " IS NULL AND (");
	for (int i = 0; i < c->ncols; i++) {
		if (i)
			util_buf_puts(&b, c->match == 'f' ? " OR " : " AND ");
		util_buf_puts(&b, "fk.");
		sql_quote_ident(colname(fr, c->cols[i]), &b);
		util_buf_puts(&b, " IS NOT NULL");
	}
	util_buf_puts(&b, ") LIMIT 1");
	sql_planned *pl = plan_sql(s, cs, b.data, 0, NULL);
	util_buf_free(&b);
	ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(c->ncols + 1));
	if (!run_sql(s, cs, pl, NULL, 0, row))
		return;
	fire_ctx fc = {s, cs, UTIL_MAP_INIT, NULL};
	int nulls = 0;
	for (int i = 0; i < c->ncols; i++)
		nulls += row[i].null;
	if (nulls)
		fk_fail(&fc, fkrel, c, "MATCH FULL does not allow mixing of null and nonnull key values.",
			false, NULL);
	util_buf d = UTIL_BUF_INIT;
	key_text(fr, c->cols, c->ncols, row, &d);
	util_buf_printf(&d, " is not present in table \"%s\".", pr->name);
	char *msg = ty_strdup(d.data);
	util_buf_free(&d);
	fk_fail(&fc, fkrel, c, msg, false, NULL);
}

/* ---------------------------------------------------------------- TRUNCATE */

bool sql_fk_referencing_tables(sql_session *s, cat_snap *cs, cat_oid table, cat_oid **out, int *n)
{
	fk_ref *refs;
	int nr = referencing(cs, s->db_oid, table, &refs);
	*out = ty_alloc(sizeof(cat_oid) * (size_t)(nr + 1));
	*n = 0;
	for (int i = 0; i < nr; i++) {
		bool dup = false;
		for (int k = 0; k < *n; k++)
			dup |= (*out)[k] == refs[i].table;
		if (!dup && cat_get(cs, refs[i].table))
			(*out)[(*n)++] = refs[i].table;
	}
	return *n > 0;
}
