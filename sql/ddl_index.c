/*
 * ddl_index.c — CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] with
 * key columns and expressions (ASC/DESC, NULLS FIRST/LAST), INCLUDE and
 * WHERE; the unique indexes of UNIQUE constraints; DROP INDEX; REINDEX.
 *
 * A plain CREATE INDEX is transactional: the index is public in its own
 * transaction, existing rows are backfilled at once into the new storage,
 * and at commit (under the commit gate, exclusively) the rows others
 * changed meanwhile are caught up (index_write.c). CONCURRENTLY commits the
 * index write-only first, drains the commit gate (every later commit
 * maintains it), backfills in chunks at the rows' own timestamps with its
 * position saved in "sys.index_builds" (REINDEX resumes an interrupted
 * build), then makes it public. Names and messages follow PostgreSQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddl_int.h"
#include "ops.h"
#include "sql_index.h"

#define BUILDS_TABLE "sys.index_builds"

static const char *str_of(pnode *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL;
}

static cat_oid new_oid(sql_session *s)
{
	cat_oid o;
	util_err err;
	if (cat_new_oid(s->e->cat, &o, &err) != 0)
		ty_throw(&err);
	return o;
}

/* ---------------------------------------------------------------- names */

/* PostgreSQL's ChooseRelationName: name1_name2_label within 63 bytes (the
 * longer part truncated first), a number appended to the label until the
 * name is free in the schema. */
static void choose_name(cat_snap *cs, cat_oid schema, const char *t, const char *cols, const char *label,
			char *out)
{
	for (int pass = 0; pass < 10000; pass++) {
		char sfx[32];
		if (pass)
			snprintf(sfx, sizeof sfx, "%s%d", label, pass);
		else
			snprintf(sfx, sizeof sfx, "%s", label);
		size_t room = CAT_NAME_MAX - 1 - strlen(sfx) - 1 - (cols && *cols ? 1 : 0);
		size_t tl = strlen(t), cl = cols ? strlen(cols) : 0;
		while (tl + cl > room) {
			if (tl > cl)
				tl--;
			else
				cl--;
		}
		if (cols && *cols)
			snprintf(out, CAT_NAME_MAX, "%.*s_%.*s_%s", (int)tl, t, (int)cl, cols, sfx);
		else
			snprintf(out, CAT_NAME_MAX, "%.*s_%s", (int)tl, t, sfx);
		if (!cat_rel_by_name(cs, schema, out))
			return;
	}
	ty_error(UTIL_E_DUPLICATE_TABLE, "could not choose a name for the index");
}

/* ChooseIndexColumnNames: names[i] becomes base, numbered if an earlier
 * column has that name. */
static const char *choose_col_name(char **names, int i, const char *base)
{
	char buf[CAT_NAME_MAX];
	for (int m = 0;; m++) {
		if (m)
			snprintf(buf, sizeof buf, "%s%d", base, m);
		else
			snprintf(buf, sizeof buf, "%s", base);
		bool used = false;
		for (int x = 0; x < i; x++)
			used |= !strcmp(names[x], buf);
		if (!used)
			break;
	}
	names[i] = ty_strdup(buf);
	return names[i];
}

/* FigureIndexColname: a column's name, a function's name, else "expr";
 * repeated names get a number (ChooseIndexColumnNames). */
static void index_col_names(const cat_rel *r, PgQuery__IndexStmt *st, util_buf *out)
{
	/* Key columns, then INCLUDE columns (PostgreSQL names both). */
	size_t n = st->n_index_params + st->n_index_including_params;
	char **names = ty_alloc0(sizeof(char *) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		PgQuery__IndexElem *ie = i < st->n_index_params
					     ? st->index_params[i]->index_elem
					     : st->index_including_params[i - st->n_index_params]->index_elem;
		const char *base = "expr";
		if (ie->name && *ie->name)
			base = ie->name;
		else if (ie->expr) {
			const char *f = sql_figure_colname(ie->expr);
			if (f && strcmp(f, "?column?") != 0)
				base = f;
		}
		if (i)
			util_buf_putc(out, '_');
		util_buf_puts(out, choose_col_name(names, (int)i, base));
	}
	(void)r;
}

/* ---------------------------------------------------------------- definition */

typedef struct ix_def {
	char name[CAT_NAME_MAX];
	bool unique, nnd, constraint;
	int nkeys;
	cat_index_col *keys;
	int ninclude;
	int16_t *include;
	char *pred;
} ix_def;

static int16_t column_attnum(const cat_rel *r, const char *name)
{
	const cat_column *c = cat_column_by_name(r, name);
	if (!c || c->dropped)
		ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" does not exist", name);
	return c->attnum;
}

static void def_from_stmt(sql_session *s, const cat_obj *table, PgQuery__IndexStmt *st, ix_def *d)
{
	const cat_rel *r = &table->rel;
	memset(d, 0, sizeof *d);
	d->unique = st->unique;
	d->nnd = st->nulls_not_distinct;
	const char *am = st->access_method && *st->access_method ? st->access_method : "btree";
	if (strcmp(am, "btree") != 0 && strcmp(am, "hash") != 0) {
		const cat_column *c = NULL;
		if (st->n_index_params && st->index_params[0]->index_elem->name &&
		    *st->index_params[0]->index_elem->name)
			c = cat_column_by_name(r, st->index_params[0]->index_elem->name);
		util_buf tn = UTIL_BUF_INIT;
		if (c)
			ty_format_type(c->type, -1, &tn);
		util_err *e =
		    ty_errstart(UTIL_E_UNDEFINED_OBJECT,
				"data type %s has no default operator class for access method \"%s\"",
				tn.data ? tn.data : "unknown", am);
		util_err_hint(e, "You must specify an operator class for the index or define a default "
				 "operator class for the data type.");
		util_buf_free(&tn);
		ty_errthrow();
	}
	if (st->n_index_params > 32)
		ty_error(UTIL_E_TOO_MANY_COLUMNS, "cannot use more than 32 columns in an index");
	d->nkeys = (int)st->n_index_params;
	d->keys = ty_alloc0(sizeof(cat_index_col) * (size_t)(d->nkeys + 1));
	for (int i = 0; i < d->nkeys; i++) {
		PgQuery__IndexElem *ie = st->index_params[i]->index_elem;
		cat_index_col *k = &d->keys[i];
		if (ie->name && *ie->name)
			k->attnum = column_attnum(r, ie->name);
		else
			k->expr_sql = sql_deparse_select_expr(ie->expr);
		k->desc = ie->ordering == PG_QUERY__SORT_BY_DIR__SORTBY_DESC;
		if (ie->nulls_ordering == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST)
			k->nulls_first = true;
		else if (ie->nulls_ordering == PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST)
			k->nulls_first = false;
		else
			k->nulls_first = k->desc; /* PostgreSQL: NULLS FIRST is the default for DESC */
	}
	d->ninclude = (int)st->n_index_including_params;
	d->include = ty_alloc0(sizeof(int16_t) * (size_t)(d->ninclude + 1));
	for (int i = 0; i < d->ninclude; i++) {
		PgQuery__IndexElem *ie = st->index_including_params[i]->index_elem;
		if (!ie->name || !*ie->name)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "expressions are not supported in included columns");
		d->include[i] = column_attnum(r, ie->name);
	}
	if (st->where_clause)
		d->pred = sql_deparse_select_expr(st->where_clause);
	if (st->idxname && *st->idxname) {
		if (strlen(st->idxname) >= CAT_NAME_MAX)
			ty_error(UTIL_E_NAME_TOO_LONG, "identifier too long");
		snprintf(d->name, sizeof d->name, "%s", st->idxname);
	}
	(void)s;
}

static cat_obj *make_index_obj(sql_session *s, const cat_obj *table, const ix_def *d, cat_index_state state)
{
	cat_obj *o = cat_obj_new(CAT_REL, new_oid(s), s->db_oid);
	cat_rel *r = &o->rel;
	r->relkind = CAT_RELKIND_INDEX;
	r->schema = table->rel.schema;
	r->owner = table->rel.owner;
	snprintf(r->name, sizeof r->name, "%s", d->name);
	snprintf(r->storage, sizeof r->storage, "i%u.1", o->oid);
	cat_index_info *ix = cat_obj_alloc(o, sizeof *ix);
	memset(ix, 0, sizeof *ix);
	ix->table = table->oid;
	ix->unique = d->unique;
	ix->nulls_not_distinct = d->nnd;
	ix->nkeys = d->nkeys;
	ix->keys = cat_obj_alloc(o, sizeof(cat_index_col) * (size_t)(d->nkeys ? d->nkeys : 1));
	for (int i = 0; i < d->nkeys; i++) {
		ix->keys[i] = d->keys[i];
		ix->keys[i].expr_sql = d->keys[i].expr_sql ? cat_obj_strdup(o, d->keys[i].expr_sql) : NULL;
	}
	ix->ninclude = d->ninclude;
	ix->include = cat_obj_alloc(o, sizeof(int16_t) * (size_t)(d->ninclude ? d->ninclude : 1));
	if (d->ninclude)
		memcpy(ix->include, d->include, sizeof(int16_t) * (size_t)d->ninclude);
	ix->predicate_sql = d->pred ? cat_obj_strdup(o, d->pred) : NULL;
	ix->state = state;
	r->index = ix;
	return o;
}

/* The table with one more (or one fewer) index. */
static cat_obj *table_with_index(const cat_obj *table, cat_oid ix, bool add)
{
	cat_obj *c = cat_obj_copy(table);
	cat_rel *r = &c->rel;
	cat_oid *l = cat_obj_alloc(c, sizeof(cat_oid) * (size_t)(r->nindexes + 1));
	int n = 0;
	for (int i = 0; i < r->nindexes; i++)
		if (r->indexes[i] != ix)
			l[n++] = r->indexes[i];
	if (add)
		l[n++] = ix;
	r->indexes = l;
	r->nindexes = n;
	return c;
}

/* Compiles the index against cs (throws what a broken definition deserves). */
static sql_ix *validate(sql_session *s, cat_snap *cs, const cat_obj *o)
{
	return sql_ix_compile(s, cs, o, NULL);
}

/* ---------------------------------------------------------------- backfill */

typedef struct build_ctx {
	sql_session *s;
	cat_oid index, table;
	kv_table *builds; /* sys.index_builds, or NULL */
	util_err err;
	bool interrupted;
	sql_progress *prog; /* strata_progress and the log */
	uint64_t total;     /* the table's estimated rows (0: unknown) */
} build_ctx;

static int build_progress(void *arg, uint64_t rows, const void *last, size_t len)
{
	build_ctx *b = arg;
	sql_index_progress_set(b->s->e, b->index, b->table, "building index", rows, 0);
	sql_progress_update(b->prog, "backfilling", rows, b->total, 0);
	if (b->builds) {
		uint8_t k[4], n[8];
		util_put_be32(k, b->index);
		util_put_be64(n, rows);
		kv_batch *bt = kv_batch_new();
		kv_batch_put(bt, b->builds, k, 4, SQL_FAMILY, "k", 1, KV_TS_LATEST, last, len);
		kv_batch_put(bt, b->builds, k, 4, SQL_FAMILY, "n", 1, KV_TS_LATEST, n, 8);
		kv_write_opts wo = {.no_sync = true};
		(void)kv_commit(kv_table_store(b->builds), bt, &wo, NULL);
		kv_batch_free(bt);
	}
	TY_TRY(tc)
	{
		sql_check_interrupts(b->s);
	}
	TY_CATCH(tc)
	{
		b->err = *ty_err();
		b->interrupted = true;
	}
	TY_END(tc);
	return b->interrupted;
}

static kv_table *open_builds(sql_session *s)
{
	kv_table *t = NULL;
	kv_status st = kv_table_open(s->e->kv, BUILDS_TABLE, &t);
	if (st == KV_NOT_FOUND) {
		kv_family_opts fam;
		kv_family_opts_default(&fam, SQL_FAMILY);
		st = kv_table_create(s->e->kv, BUILDS_TABLE, &fam, 1);
		if (st == KV_OK || st == KV_EXISTS)
			st = kv_table_open(s->e->kv, BUILDS_TABLE, &t);
	}
	return st == KV_OK ? t : NULL;
}

/* The saved position of an interrupted build (into out); false if none. */
static bool saved_position(kv_table *builds, cat_oid index, util_buf *out, uint64_t *rows)
{
	uint8_t k[4];
	util_put_be32(k, index);
	util_arena *a = util_arena_new(1024, 0);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	kv_row row;
	bool found = false;
	if (kv_get(builds, k, 4, &ro, a, &row) == KV_OK)
		for (size_t i = 0; i < row.n; i++) {
			const kv_cell *c = &row.cells[i];
			if (c->qualifier.len == 1 && c->qualifier.data[0] == 'k') {
				util_buf_append(out, c->value.data, c->value.len);
				found = true;
			} else if (c->qualifier.len == 1 && c->qualifier.data[0] == 'n' &&
				   c->value.len == 8) {
				*rows = util_get_be64(c->value.data);
			}
		}
	util_arena_destroy(a);
	return found;
}

static void forget_position(kv_table *builds, cat_oid index)
{
	if (!builds)
		return;
	uint8_t k[4];
	util_put_be32(k, index);
	kv_batch *b = kv_batch_new();
	kv_batch_delete_row(b, builds, k, 4, KV_TS_LATEST);
	(void)kv_commit(kv_table_store(builds), b, NULL, NULL);
	kv_batch_free(b);
}

static UTIL_NORETURN void duplicated(const cat_obj *ix, const cat_obj *table, const util_err *bf)
{
	util_err *e =
	    ty_errstart(UTIL_E_UNIQUE_VIOLATION, "could not create unique index \"%s\"", ix->rel.name);
	util_err_detail(e, "%s", bf->detail);
	sql_session *s = sql_current_session();
	const char *schema = s && s->cat ? sql_schema_name(s->cat, table->rel.schema) : NULL;
	if (schema)
		util_err_field(e->schema, schema);
	util_err_field(e->table, table->rel.name);
	util_err_field(e->constraint, ix->rel.name);
	ty_errthrow();
}

/* Backfills index `ix` (storage as in the object) from table's rows. */
static uint64_t backfill(sql_session *s, cat_snap *cs, const cat_obj *ix, const cat_obj *table, bool persist,
			 bool resume, bool caught_up_later)
{
	util_arena *a = util_arena_new(16 * 1024, 0);
	util_arena *old = ty_set_arena(a);
	kv_table *data = NULL, *ikv = NULL;
	build_ctx bc = {.s = s,
			.index = ix->oid,
			.table = table->oid,
			.builds = persist ? open_builds(s) : NULL,
			.total = table->rel.stats_rows};
	/* Begun before the TRY: bc.prog does not change under a longjmp. */
	bc.prog = sql_progress_begin(s, "index build", ix->rel.name, false);
	util_err_clear(&bc.err);
	util_buf pos = UTIL_BUF_INIT;
	uint64_t rows = 0;
	idx_rowmodel *volatile m = NULL, *volatile m2 = NULL;
	volatile kv_status st = KV_OK;
	util_err err;
	util_err_clear(&err);
	TY_TRY(tc)
	{
		sql_ix *x = sql_ix_compile(s, cs, ix, NULL);
		kv_status os = kv_table_open(s->e->kv, table->rel.storage, &data);
		if (os == KV_OK)
			os = kv_table_open(s->e->kv, ix->rel.storage, &ikv);
		if (os != KV_OK)
			sql_kv_error(os, "opening an index build");
		x->def.kv = ikv;
		m = sql_ix_rowmodel(s, x, a, false);
		idx_backfill_opts o;
		memset(&o, 0, sizeof o);
		o.chunk_rows = 20000;
		o.no_sync = true; /* the commit publishing the index syncs the log */
		o.caught_up_later = caught_up_later;
		/* Plain columns need no evaluator: a second model (as GC's) lets
		 * a bulk build read half the rows on another thread. */
		if (caught_up_later && !x->needs_eval && !x->def.unique && !table->rel.ilv_depth) {
			m2 = sql_ix_rowmodel(s, x, a, true);
			o.model2 = m2;
		}
		o.progress = build_progress;
		o.progress_arg = &bc;
		if (resume && bc.builds && saved_position(bc.builds, ix->oid, &pos, &rows)) {
			o.resume = pos.data;
			o.resume_len = pos.len;
		}
		sql_index_progress_set(s->e, ix->oid, table->oid, "building index", rows,
				       table->rel.stats_rows);
		sql_progress_update(bc.prog, "backfilling", rows, bc.total, 0);
		if (table->rel.ilv_depth) /* its rows are not kv rows (index_ilv.c) */
			st = sql_ilv_index_backfill(data, &table->rel, &x->def, m, &rows, &err);
		else
			st = idx_backfill(data, &x->def, m, &o, &rows, &err);
		sql_progress_update(bc.prog, "done", rows, bc.total, 0);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		sql_ix_rowmodel_free(m);
		sql_ix_rowmodel_free(m2);
		if (data)
			kv_table_close(data);
		if (ikv)
			kv_table_close(ikv);
		if (bc.builds)
			kv_table_close(bc.builds);
		util_buf_free(&pos);
		ty_set_arena(old);
		util_arena_destroy(a);
		sql_index_progress_clear(s->e, ix->oid);
		sql_progress_end(bc.prog);
		ty_errthrow();
	}
	TY_END(tc);
	sql_ix_rowmodel_free(m);
	sql_ix_rowmodel_free(m2);
	kv_table_close(data);
	kv_table_close(ikv);
	util_buf_free(&pos);
	ty_set_arena(old);
	util_arena_destroy(a);
	if (st == KV_OK && bc.builds)
		forget_position(bc.builds, ix->oid);
	if (bc.builds)
		kv_table_close(bc.builds);
	sql_index_progress_clear(s->e, ix->oid);
	sql_progress_end(bc.prog);
	if (st == KV_CHECK_FAILED)
		duplicated(ix, table, &err);
	if (st == KV_BUSY && bc.interrupted)
		ty_throw(&bc.err);
	if (st != KV_OK)
		ty_error(UTIL_E_IO_ERROR, "could not build index \"%s\": %s", ix->rel.name,
			 err.message[0] ? err.message : kv_errmsg());
	return rows;
}

/* ---------------------------------------------------------------- in a transaction */

/* Creates the index in the session's transaction and fills it. */
static cat_oid create_in_txn(sql_session *s, const cat_obj *table, ix_def *d)
{
	sql_txn *t = s->txn;
	cat_txn *ct = sql_txn_ddl(t);
	cat_snap *cs = cat_txn_snap(ct);
	cat_obj *o = make_index_obj(s, table, d, CAT_INDEX_PUBLIC);
	TY_TRY(tc)
	{
		validate(s, cs, o);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tc);
	cat_oid oid = o->oid, table_oid = table->oid;
	/* An interleaved child's build reads its rows once, unlike the
	 * catch-up at commit: no writer may change them until then. */
	if (table->rel.ilv_depth)
		sql_rel_lock(s, table_oid, true);
	sql_create_storage(s, t, o->rel.storage);
	cat_txn_put(ct, table_with_index(table, oid, true));
	cat_txn_put(ct, o);
	/* (table belonged to the previous snapshot) */
	cs = cat_txn_snap(ct);
	const cat_obj *ix = cat_get(cs, oid);
	uint64_t gen = sql_index_table_gen(s->e, table_oid);
	kv_ts from = kv_read_point(s->e->kv);
	backfill(s, cs, ix, cat_get(cs, table_oid), false, false, true);
	sql_index_pending_build(t, oid, table_oid, from, gen);
	return oid;
}

/* ---------------------------------------------------------------- concurrently */

/* Commits one catalog change on its own (outside the session's transaction). */
static void commit_catalog(sql_session *s, void (*change)(sql_session *s, cat_txn *ct, void *arg), void *arg)
{
	cat *c = s->e->cat;
	cat_ddl_lock(c);
	cat_snap *cur = cat_current(c);
	cat_txn *ct = cat_txn_begin(c, cur);
	cat_snap_release(cur);
	TY_TRY(tc)
	{
		change(s, ct, arg);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_txn_abort(ct);
		cat_ddl_unlock(c);
		ty_errthrow();
	}
	TY_END(tc);
	kv_batch *b = kv_batch_new();
	cat_txn_write(ct, b);
	kv_status st = kv_commit(s->e->kv, b, NULL, NULL);
	kv_batch_free(b);
	if (st != KV_OK) {
		cat_txn_abort(ct);
		cat_ddl_unlock(c);
		sql_kv_error(st, "committing an index definition");
	}
	cat_txn_publish(ct);
	cat_ddl_unlock(c);
	sql_index_gc_refresh(s->e);
}

typedef struct cic_ctx {
	const ix_def *d;
	cat_oid table;
	cat_oid index;
	cat_index_state state;
	uint64_t rows;
	kv_ts valid_from;
	char storage[CAT_NAME_MAX];
} cic_ctx;

static void cic_create(sql_session *s, cat_txn *ct, void *arg)
{
	cic_ctx *c = arg;
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *table = cat_get(cs, c->table);
	if (!table)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", c->table);
	if (cat_rel_by_name(cs, table->rel.schema, c->d->name))
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", c->d->name);
	cat_obj *o = make_index_obj(s, table, c->d, CAT_INDEX_WRITE_ONLY);
	TY_TRY(tc)
	{
		validate(s, cs, o);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_obj_free(o);
		ty_errthrow();
	}
	TY_END(tc);
	/* The table's policy (retention above all) from the start: this
	 * commit does not go through the DDL commit's policy sync, and with
	 * the bare defaults compactions would drop the index's history. */
	kv_family_opts fam;
	sql_policy_family_opts(s->e, cs, o, IDX_FAMILY, &fam);
	kv_status st = kv_table_create(s->e->kv, o->rel.storage, &fam, 1);
	if (st != KV_OK && st != KV_EXISTS) {
		cat_obj_free(o);
		sql_kv_error(st, "creating an index");
	}
	c->index = o->oid;
	snprintf(c->storage, sizeof c->storage, "%s", o->rel.storage);
	cat_txn_put(ct, table_with_index(table, o->oid, true));
	cat_txn_put(ct, o);
}

static void cic_set_state(sql_session *s, cat_txn *ct, void *arg)
{
	(void)s;
	cic_ctx *c = arg;
	const cat_obj *o = cat_get(cat_txn_snap(ct), c->index);
	if (!o)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "index with OID %u was dropped during its build", c->index);
	cat_obj *n = cat_obj_copy(o);
	n->rel.index->state = c->state;
	n->rel.index->backfill_progress = c->rows;
	if (c->valid_from)
		n->rel.index->valid_from = c->valid_from;
	cat_txn_put(ct, n);
}

/* Backfills a write-only index and makes it public (CREATE INDEX
 * CONCURRENTLY, and REINDEX of an interrupted build). */
static void finish_concurrent(sql_session *s, cic_ctx *c, bool resume)
{
	if (s->txn->ddl_locked)
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION,
			 "cannot resume an index build in a transaction that changed the schema");
	/* Every commit from now on sees the write-only index. */
	sql_index_gate_drain(s->e);
	cat_snap *cs = cat_current(s->e->cat);
	const cat_obj *ix = cat_get(cs, c->index);
	const cat_obj *table = ix ? cat_get(cs, ix->rel.index->table) : NULL;
	if (!ix || !table) {
		cat_snap_release(cs);
		ty_error(UTIL_E_UNDEFINED_OBJECT, "index with OID %u was dropped during its build", c->index);
	}
	TY_TRY(tc)
	{
		c->rows = backfill(s, cs, ix, table, true, resume, false);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		cat_snap_release(cs);
		util_err e = *ty_err();
		if (e.code == UTIL_E_UNIQUE_VIOLATION) {
			/* As PostgreSQL: the failed index stays, invalid and not ready. */
			c->state = CAT_INDEX_INVALID;
			commit_catalog(s, cic_set_state, c);
		}
		ty_throw(&e);
	}
	TY_END(tc);
	cat_snap_release(cs);
	c->state = CAT_INDEX_PUBLIC;
	c->valid_from = kv_read_point(s->e->kv);
	commit_catalog(s, cic_set_state, c);
}

static void create_concurrently(sql_session *s, const cat_obj *table, ix_def *d)
{
	cic_ctx c;
	memset(&c, 0, sizeof c);
	c.d = d;
	c.table = table->oid;
	commit_catalog(s, cic_create, &c);
	finish_concurrent(s, &c, false);
}

/* ---------------------------------------------------------------- CREATE INDEX */

static bool in_block(sql_session *s)
{
	return s->txn_state != SQL_TXN_IDLE || s->implicit_block || (s->txn && s->txn->explicit_block);
}

void sql_ddl_index(sql_session *s, PgQuery__IndexStmt *st, const char *text)
{
	(void)text;
	bool concurrent = st->concurrent;
	if (concurrent && in_block(s))
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION,
			 "CREATE INDEX CONCURRENTLY cannot run inside a transaction block");
	cat_snap *cs = concurrent ? s->cat : cat_txn_snap(sql_txn_ddl(s->txn));
	const cat_obj *table = sql_lookup_rel(s, cs, st->relation, false);
	if (concurrent && table->rel.ilv_depth) {
		/* An interleaved child's index is built under the child's
		 * exclusive lock (index_ilv.c): CONCURRENTLY gives the same index
		 * built the blocking way, in this statement's transaction. */
		concurrent = false;
		cs = cat_txn_snap(sql_txn_ddl(s->txn));
		table = sql_lookup_rel(s, cs, st->relation, false);
	}
	if (table->rel.relkind != CAT_RELKIND_TABLE) {
		util_err *e = ty_errstart(UTIL_E_WRONG_OBJECT_TYPE, "cannot create index on relation \"%s\"",
					  table->rel.name);
		util_err_detail(e, "This operation is not supported for %s.",
				table->rel.relkind == CAT_RELKIND_VIEW       ? "views"
				: table->rel.relkind == CAT_RELKIND_SEQUENCE ? "sequences"
									     : "indexes");
		ty_errthrow();
	}
	if (table->rel.schema == CAT_OID_PG_CATALOG || table->rel.schema == CAT_OID_INFORMATION_SCHEMA)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "permission denied: \"%s\" is a system catalog",
			 table->rel.name);
	if (st->idxname && *st->idxname && cat_rel_by_name(cs, table->rel.schema, st->idxname)) {
		if (st->if_not_exists) {
			sql_notice(s, UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping",
				   st->idxname);
			return;
		}
		ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", st->idxname);
	}
	ix_def d;
	def_from_stmt(s, table, st, &d);
	if (!d.name[0]) {
		util_buf cols = UTIL_BUF_INIT;
		index_col_names(&table->rel, st, &cols);
		choose_name(cs, table->rel.schema, table->rel.name, cols.data, "idx", d.name);
		util_buf_free(&cols);
	}
	if (concurrent)
		create_concurrently(s, table, &d);
	else
		create_in_txn(s, table, &d);
}

/* ---------------------------------------------------------------- UNIQUE constraints */

void sql_create_constraint_indexes(sql_session *s, cat_oid table_oid)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	for (;;) {
		cat_snap *cs = cat_txn_snap(ct);
		const cat_obj *table = cat_get(cs, table_oid);
		if (!table)
			return;
		int k = -1;
		for (int i = 0; i < table->rel.ncons && k < 0; i++)
			if (table->rel.cons[i].type == 'u' && !table->rel.cons[i].index_oid)
				k = i;
		if (k < 0)
			return;
		const cat_constraint *con = &table->rel.cons[k];
		ix_def d;
		memset(&d, 0, sizeof d);
		d.unique = true;
		d.constraint = true;
		d.nkeys = con->ncols;
		d.keys = ty_alloc0(sizeof(cat_index_col) * (size_t)(con->ncols + 1));
		for (int i = 0; i < con->ncols; i++)
			d.keys[i].attnum = con->cols[i];
		d.include = ty_alloc0(sizeof(int16_t));
		if (cat_rel_by_name(cs, table->rel.schema, con->name))
			ty_error(UTIL_E_DUPLICATE_TABLE, "relation \"%s\" already exists", con->name);
		snprintf(d.name, sizeof d.name, "%s", con->name);
		cat_oid ix = create_in_txn(s, table, &d);
		/* The constraint now names its index (table and con belonged to
		 * the previous snapshot). */
		cs = cat_txn_snap(ct);
		cat_obj *tc = cat_obj_copy(cat_get(cs, table_oid));
		for (int i = 0; i < tc->rel.ncons; i++)
			if (!strcmp(tc->rel.cons[i].name, d.name) && tc->rel.cons[i].type == 'u')
				tc->rel.cons[i].index_oid = ix;
		cat_txn_put(ct, tc);
	}
}

/* ---------------------------------------------------------------- LIKE ... INCLUDING INDEXES */

/* An index column's name as PostgreSQL gives it (FigureIndexColname): the
 * column's, else the expression's FigureColname, else "expr". */
static const char *clone_col_name(const cat_rel *r, const cat_index_col *ic)
{
	if (ic->attnum) {
		const cat_column *c = cat_column_by_attnum(r, ic->attnum);
		return c ? c->name : "expr";
	}
	util_err perr;
	PgQuery__ParseResult *pr = sql_parse_text(ic->expr_sql, &perr);
	const char *name = "expr";
	if (pr && pr->n_stmts == 1 && pr->stmts[0]->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
		PgQuery__SelectStmt *ss = pr->stmts[0]->stmt->select_stmt;
		if (ss->n_target_list == 1) {
			const char *n = sql_figure_colname(ss->target_list[0]->res_target->val);
			if (n && strcmp(n, "?column?") != 0)
				name = n;
		}
	}
	name = ty_strdup(name); /* (the parse tree is freed) */
	if (pr)
		pg_query__parse_result__free_unpacked(pr, NULL);
	return name;
}

void sql_create_like_indexes(sql_session *s, cat_oid table_oid, cat_oid src_oid, const int16_t *map,
			     bool comments)
{
	cat_txn *ct = sql_txn_ddl(s->txn);
	cat_snap *cs = cat_txn_snap(ct);
	const cat_obj *src = cat_get(cs, src_oid);
	if (!src)
		return;
	int n = src->rel.nindexes;
	cat_oid *ixs = ty_alloc0(sizeof(cat_oid) * (size_t)(n + 1));
	memcpy(ixs, src->rel.indexes, sizeof(cat_oid) * (size_t)n);
	for (int i = 0; i < n; i++) {
		cs = cat_txn_snap(ct);
		src = cat_get(cs, src_oid);
		const cat_obj *sx = cat_get(cs, ixs[i]);
		if (!sx || !sx->rel.index || sx->rel.index->state != CAT_INDEX_PUBLIC)
			continue;
		/* Constraint indexes come with their (copied) constraints. */
		bool of_con = false;
		for (int k = 0; k < src->rel.ncons; k++)
			of_con |= src->rel.cons[k].index_oid == ixs[i];
		if (of_con)
			continue;
		const cat_index_info *si = sx->rel.index;
		ix_def d;
		memset(&d, 0, sizeof d);
		d.unique = si->unique;
		d.nnd = si->nulls_not_distinct;
		d.nkeys = si->nkeys;
		d.keys = ty_alloc0(sizeof(cat_index_col) * (size_t)(d.nkeys + 1));
		util_buf cols = UTIL_BUF_INIT;
		char **names = ty_alloc0(sizeof(char *) * (size_t)(d.nkeys + si->ninclude + 1));
		for (int k = 0; k < d.nkeys; k++) {
			d.keys[k] = si->keys[k];
			if (si->keys[k].attnum)
				d.keys[k].attnum = map[si->keys[k].attnum];
			else
				d.keys[k].expr_sql = ty_strdup(si->keys[k].expr_sql);
			if (k)
				util_buf_putc(&cols, '_');
			util_buf_puts(&cols,
				      choose_col_name(names, k, clone_col_name(&src->rel, &si->keys[k])));
		}
		d.ninclude = si->ninclude;
		d.include = ty_alloc0(sizeof(int16_t) * (size_t)(d.ninclude + 1));
		for (int k = 0; k < d.ninclude; k++) {
			d.include[k] = map[si->include[k]];
			const cat_column *ic = cat_column_by_attnum(&src->rel, si->include[k]);
			util_buf_putc(&cols, '_');
			util_buf_puts(&cols, choose_col_name(names, d.nkeys + k, ic ? ic->name : "expr"));
		}
		d.pred = si->predicate_sql ? ty_strdup(si->predicate_sql) : NULL;
		const cat_obj *table = cat_get(cs, table_oid);
		choose_name(cs, table->rel.schema, table->rel.name, cols.data, "idx", d.name);
		util_buf_free(&cols);
		const char *comment = comments && sx->rel.comment ? ty_strdup(sx->rel.comment) : NULL;
		cat_oid ix = create_in_txn(s, table, &d);
		if (comment) {
			cs = cat_txn_snap(ct);
			cat_obj *c = cat_obj_copy(cat_get(cs, ix));
			c->rel.comment = cat_obj_strdup(c, comment);
			cat_txn_put(ct, c);
		}
	}
}

/* ---------------------------------------------------------------- DROP INDEX */

void sql_drop_index(sql_session *s, cat_txn *ct, const cat_obj *index, bool cascade)
{
	cat_snap *cs = cat_txn_snap(ct);
	const cat_index_info *info = index->rel.index;
	const cat_obj *table = info ? cat_get(cs, info->table) : NULL;
	if (table) {
		for (int i = 0; i < table->rel.ncons; i++) {
			const cat_constraint *c = &table->rel.cons[i];
			if (c->index_oid != index->oid || (c->type != 'u' && c->type != 'p'))
				continue;
			if (!cascade) {
				util_err *e = ty_errstart(
				    UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST,
				    "cannot drop index %s because constraint %s on table %s requires it",
				    index->rel.name, c->name, table->rel.name);
				util_err_hint(e, "You can drop constraint %s on table %s instead.", c->name,
					      table->rel.name);
				ty_errthrow();
			}
		}
		cat_obj *tc = table_with_index(table, index->oid, false);
		/* CASCADE: the constraints the index enforced go with it. */
		int k = 0;
		for (int i = 0; i < tc->rel.ncons; i++) {
			const cat_constraint *c = &tc->rel.cons[i];
			if (c->index_oid == index->oid && (c->type == 'u' || c->type == 'p')) {
				sql_notice(s, UTIL_E_SUCCESSFUL_COMPLETION,
					   "drop cascades to constraint %s on table %s", c->name,
					   table->rel.name);
				continue;
			}
			tc->rel.cons[k++] = tc->rel.cons[i];
		}
		tc->rel.ncons = k;
		cat_txn_put(ct, tc);
	}
	if (index->rel.storage[0])
		sql_txn_drop_storage_after_commit(s->txn, index->rel.storage);
	cat_txn_delete(ct, index->oid);
}

/* ---------------------------------------------------------------- REINDEX */

/* Rebuilds one index: an interrupted concurrent build resumes (outside a
 * transaction block); otherwise a new storage generation is filled in
 * this transaction and the old one dropped at commit. */
static void reindex_one(sql_session *s, cat_oid oid, bool allow_resume)
{
	cat_snap *cs = s->txn->ddl ? cat_txn_snap(s->txn->ddl) : s->cat;
	const cat_obj *ix = cat_get(cs, oid);
	if (!ix || !ix->rel.index || ix->rel.index->primary)
		return;
	if (allow_resume && ix->rel.index->state == CAT_INDEX_WRITE_ONLY) {
		cic_ctx c;
		memset(&c, 0, sizeof c);
		c.index = oid;
		c.table = ix->rel.index->table;
		finish_concurrent(s, &c, true);
		return;
	}
	cat_txn *ct = sql_txn_ddl(s->txn);
	const cat_obj *tbl = cat_get(cs, ix->rel.index->table);
	if (tbl && tbl->rel.ilv_depth)
		sql_rel_lock(s, tbl->oid, true); /* as create_in_txn */
	cat_obj *n = cat_obj_copy(ix);
	n->rel.index->state = CAT_INDEX_PUBLIC;
	sql_ddl_create_next_storage(s, s->txn, &ix->rel, 'i', ix->oid, NULL, 0, n->rel.storage,
				    sizeof n->rel.storage);
	sql_txn_drop_storage_after_commit(s->txn, ix->rel.storage);
	cat_txn_put(ct, n);
	cs = cat_txn_snap(ct);
	const cat_obj *nx = cat_get(cs, oid);
	uint64_t wgen = sql_index_table_gen(s->e, nx->rel.index->table);
	kv_ts from = kv_read_point(s->e->kv);
	backfill(s, cs, nx, cat_get(cs, nx->rel.index->table), false, false, true);
	sql_index_pending_build(s->txn, oid, nx->rel.index->table, from, wgen);
}

void sql_ddl_reindex_after_rekey(sql_session *s, cat_oid table)
{
	const cat_obj *o = cat_get(cat_txn_snap(sql_txn_ddl(s->txn)), table);
	if (!o)
		return;
	int n = o->rel.nindexes;
	cat_oid *l = ty_alloc(sizeof(cat_oid) * (size_t)(n ? n : 1));
	if (n)
		memcpy(l, o->rel.indexes, sizeof(cat_oid) * (size_t)n);
	for (int i = 0; i < n; i++)
		reindex_one(s, l[i], false);
}

void sql_ddl_reindex(sql_session *s, PgQuery__ReindexStmt *st)
{
	bool concurrently = false;
	for (size_t i = 0; i < st->n_params; i++) {
		pnode *p = st->params[i];
		if (p->node_case == PG_QUERY__NODE__NODE_DEF_ELEM &&
		    !strcmp(p->def_elem->defname, "concurrently"))
			concurrently = true;
	}
	if (concurrently && in_block(s))
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION,
			 "REINDEX CONCURRENTLY cannot run inside a transaction block");
	bool resume = !in_block(s);
	cat_snap *cs = s->cat;
	switch (st->kind) {
	case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_INDEX: {
		const cat_obj *o = sql_lookup_rel(s, cs, st->relation, false);
		if (o->rel.relkind != CAT_RELKIND_INDEX)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not an index", o->rel.name);
		reindex_one(s, o->oid, resume);
		return;
	}
	case PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_TABLE: {
		const cat_obj *o = sql_lookup_rel(s, cs, st->relation, false);
		if (o->rel.relkind != CAT_RELKIND_TABLE)
			ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", o->rel.name);
		int n = o->rel.nindexes;
		cat_oid *l = ty_alloc(sizeof(cat_oid) * (size_t)(n ? n : 1));
		if (n)
			memcpy(l, o->rel.indexes, sizeof(cat_oid) * (size_t)n);
		for (int i = 0; i < n; i++)
			reindex_one(s, l[i], resume);
		return;
	}
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "REINDEX %s is not supported",
			 st->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SCHEMA   ? "SCHEMA"
			 : st->kind == PG_QUERY__REINDEX_OBJECT_TYPE__REINDEX_OBJECT_SYSTEM ? "SYSTEM"
											    : "DATABASE");
	}
	(void)str_of;
}
