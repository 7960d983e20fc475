/*
 * exec_modify.c — INSERT, UPDATE and DELETE: computes new rows, enforces
 * NOT NULL, CHECK, primary-key uniqueness (with ON CONFLICT DO NOTHING /
 * DO UPDATE), locks the rows it writes, buffers the writes in the
 * transaction and produces RETURNING rows. Every statement is atomic: its
 * writes only reach the store at commit, all together.
 */
#include <stdio.h>
#include <string.h>

#include "sql_index.h"
#include "sql_int.h"

sql_batch *sql_op_begin_batch(sql_op *op);
sql_op *sql_op_new_internal(sql_exec *ex, size_t state);

typedef struct modify_state {
	const cat_obj *rel;
	kv_table *kv;
	bool *assigned;      /* UPDATE: columns the statement writes */
	ty_datum *newrow;    /* ncols + key */
	ty_datum *ocrow;     /* ON CONFLICT: existing ++ excluded (2 * (ncols + 1)) */
	util_arena *scratch;
	const char *pk_name;
	bool done;
	sql_fk_state *fk;    /* foreign keys of / referencing the table (fk.c), or NULL */
	bool unique;      /* the table has unique indexes (index_write.c) */
	ty_datum *oldrow; /* UPDATE/DELETE: the row before (ncols + key) */
	util_buf last_parent;  /* interleaved inserts: the last parent row found */
	kv_ts epq_ts;          /* shared store: the read point the target row was re-read at */
} modify_state;

/* The old row (ncols + key) of an UPDATE/DELETE input row, for fk.c. */
static ty_datum *old_row(sql_op *op, modify_state *st, const ty_datum *in, ty_datum key)
{
	const cat_rel *r = &st->rel->rel;
	ty_datum *old = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	for (int c = 0; c < r->ncols; c++)
		old[c] = in[op->plan->modify.old_slots[c]];
	old[r->ncols] = key;
	return old;
}

/* "(1, null, abc)" as PostgreSQL's "Failing row contains" detail. */
static void row_text(const cat_rel *r, const ty_datum *vals, util_buf *out)
{
	util_buf_putc(out, '(');
	bool first = true;
	for (int c = 0; c < r->ncols; c++) {
		if (r->cols[c].dropped)
			continue;
		if (!first)
			util_buf_puts(out, ", ");
		first = false;
		if (vals[c].null)
			util_buf_puts(out, "null");
		else
			ty_output(r->cols[c].type, vals[c], out);
	}
	util_buf_putc(out, ')');
}

/* The SCHEMA NAME field of constraint errors (PostgreSQL sends it with the
 * table name). */
static void err_schema(util_err *e, const cat_rel *r)
{
	sql_session *s = sql_current_session();
	const char *sn = s && s->cat ? sql_schema_name(s->cat, r->schema) : NULL;
	if (sn)
		util_err_field(e->schema, sn);
}

static UTIL_NORETURN void fail_row(util_errcode code, const cat_obj *rel, const ty_datum *vals, const char *constraint,
				   const char *column, const char *fmt, const char *a, const char *b)
{
	util_buf row = UTIL_BUF_INIT;
	row_text(&rel->rel, vals, &row);
	util_err *e = ty_errstart(code, fmt, a, b);
	util_err_detail(e, "Failing row contains %s.", row.data);
	util_buf_free(&row);
	err_schema(e, &rel->rel);
	util_err_field(e->table, rel->rel.name);
	if (constraint)
		util_err_field(e->constraint, constraint);
	if (column)
		util_err_field(e->column, column);
	ty_errthrow();
}

static void check_row(sql_op *op, modify_state *st, const ty_datum *vals)
{
	const sql_plan *p = op->plan;
	const cat_rel *r = &st->rel->rel;
	for (int c = 0; c < r->ncols; c++)
		if (!r->cols[c].dropped && r->cols[c].notnull && vals[c].null)
			fail_row(UTIL_E_NOT_NULL_VIOLATION, st->rel, vals, NULL, r->cols[c].name,
				 "null value in column \"%s\" of relation \"%s\" violates not-null constraint", r->cols[c].name,
				 r->name);
	for (int i = 0; i < p->modify.nchecks; i++) {
		ty_datum d = sql_eval(op->ex, p->modify.checks[i], vals);
		if (!d.null && !d.i)
			fail_row(UTIL_E_CHECK_VIOLATION, st->rel, vals, p->modify.check_names[i], NULL,
				 "new row for relation \"%s\" violates check constraint \"%s\"", r->name,
				 p->modify.check_names[i]);
	}
}

/* A view's WITH CHECK OPTION: NULL fails too (PostgreSQL's ExecQual).
 * Checked, as PostgreSQL's ExecWithCheckOptions, after the row's key and
 * unique indexes: a row breaking both gets the unique violation, and an
 * ON CONFLICT row that is not inserted is not checked. */
static void check_view(sql_op *op, modify_state *st, const ty_datum *vals)
{
	const sql_plan *p = op->plan;
	const cat_rel *r = &st->rel->rel;
	for (int i = 0; i < p->modify.nvchecks; i++) {
		ty_datum d = sql_eval(op->ex, p->modify.vchecks[i], vals);
		if (d.null || !d.i) {
			util_buf row = UTIL_BUF_INIT;
			row_text(r, vals, &row);
			util_err *e = ty_errstart(UTIL_E_WITH_CHECK_OPTION_VIOLATION,
						  "new row violates check option for view \"%s\"",
						  p->modify.vcheck_names[i]);
			util_err_detail(e, "Failing row contains %s.", row.data);
			util_buf_free(&row);
			ty_errthrow();
		}
	}
}

static UTIL_NORETURN void duplicate_key(modify_state *st, const ty_datum *vals)
{
	const cat_rel *r = &st->rel->rel;
	util_buf cols = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	sql_row_key_describe(r, vals, &cols, &v);
	util_err *e = ty_errstart(UTIL_E_UNIQUE_VIOLATION, "duplicate key value violates unique constraint \"%s\"",
				  st->pk_name ? st->pk_name : "?");
	util_err_detail(e, "Key (%s)=(%s) already exists.", cols.data ? cols.data : "", v.data ? v.data : "");
	err_schema(e, r);
	util_err_field(e->table, r->name);
	if (st->pk_name)
		util_err_field(e->constraint, st->pk_name);
	util_buf_free(&cols);
	util_buf_free(&v);
	ty_errthrow();
}

/* Reads the newest committed version of a row as of read_ts (KV_TS_MAX:
 * the newest; plus this transaction's pending write) into out (ncols +
 * key); false if it does not exist. */
static bool read_at(sql_op *op, modify_state *st, const uint8_t *key, size_t klen, kv_ts read_ts,
		    ty_datum *out)
{
	const cat_rel *r = &st->rel->rel;
	sql_txn *t = op->ex->txn;
	sql_wrow *w = sql_txn_lookup(t, st->rel->oid, key, klen, false);
	if (w && (w->inserted || !w->present)) {
		if (!w->present)
			return false;
		for (int c = 0; c < r->ncols; c++)
			out[c] = w->cols[c];
		out[r->ncols] = ty_bytes(w->key, w->keylen);
		return true;
	}
	if (!st->scratch)
		st->scratch = util_arena_new(4096, 0);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = read_ts;
	kv_row row;
	size_t qpre;
	kv_status s = sql_row_get(st->kv, r, key, klen, &ro, st->scratch, &row, &qpre);
	if (s != KV_OK && s != KV_NOT_FOUND)
		sql_kv_error(s, "reading a row");
	if (s == KV_NOT_FOUND || row.n == 0)
		return false;
	sql_rowmap map;
	sql_rowmap_build(r, st->scratch, &map);
	if (!sql_row_decode_in(r, &map, row.cells, row.n, qpre, key, klen, NULL, out))
		return false;
	uint8_t *k = ty_alloc(klen ? klen : 1);
	memcpy(k, key, klen);
	out[r->ncols] = ty_bytes(k, klen);
	if (w && w->present)
		for (int c = 0; c < r->ncols; c++)
			if (w->set[c])
				out[c] = w->cols[c];
	return true;
}

static bool read_latest(sql_op *op, modify_state *st, const uint8_t *key, size_t klen, ty_datum *out)
{
	return read_at(op, st, key, klen, KV_TS_MAX, out);
}

/* ON CONFLICT's look at a locked key: the newest version. On a store shared
 * by several servers (READ COMMITTED) it is read at a fresh read point,
 * returned in *at, which the write is then based on (sql_txn_rebase,
 * checked at commit): another server's change after the statement's
 * snapshot is updated, as PostgreSQL does, instead of failing the commit. */
static bool read_newest(sql_op *op, modify_state *st, const uint8_t *key, size_t klen, ty_datum *out,
			kv_ts *at)
{
	sql_txn *t = op->ex->txn;
	*at = 0;
	if (!op->plan->modify.oc || !op->ex->s->e->opts.store_uri || t->iso != SQL_READ_COMMITTED ||
	    sql_txn_lookup(t, st->rel->oid, key, klen, false))
		return read_latest(op, st, key, klen, out);
	*at = kv_read_point(op->ex->s->e->kv);
	return read_at(op, st, key, klen, *at, out);
}

/* After the target row of an UPDATE or DELETE is locked: if another
 * transaction changed it after this statement's snapshot, REPEATABLE READ
 * fails with 40001, and READ COMMITTED carries on with the newest version
 * if it still exists and still passes the target's WHERE conjuncts
 * (PostgreSQL's EvalPlanQual). Returns the input row to use, or NULL to
 * skip the row. */
static const ty_datum *recheck_locked(sql_op *op, modify_state *st, const ty_datum *in, const uint8_t *key,
				      size_t klen)
{
	const sql_plan *p = op->plan;
	sql_txn *t = op->ex->txn;
	if (sql_txn_lookup(t, st->rel->oid, key, klen, false))
		return in; /* written by this transaction earlier: locked since */
	if (!sql_txn_row_changed(t, st->kv, &st->rel->rel, key, klen))
		return in;
	const cat_rel *r = &st->rel->rel;
	ty_datum *cur = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	/* On a store shared by several servers the row lock is this server's
	 * only: read at a fresh read point, which the change is then based on
	 * (checked at commit, sql_txn_rebase). */
	kv_ts at = KV_TS_MAX;
	if (op->ex->s->e->opts.store_uri && t->iso == SQL_READ_COMMITTED)
		at = st->epq_ts = kv_read_point(op->ex->s->e->kv);
	bool exists = read_at(op, st, key, klen, at, cur);
	if (t->iso != SQL_READ_COMMITTED)
		sql_txn_serialization_failure(!exists);
	if (!exists)
		return NULL;
	if (p->modify.epq_qual && !sql_eval_qual(op->ex, p->modify.epq_qual, cur))
		return NULL;
	int nin = p->left->ncols;
	ty_datum *in2 = ty_alloc(sizeof(ty_datum) * (size_t)(nin ? nin : 1));
	memcpy(in2, in, sizeof(ty_datum) * (size_t)nin);
	for (int c = 0; c < r->ncols; c++)
		if (p->modify.old_slots[c] >= 0)
			in2[p->modify.old_slots[c]] = cur[c];
	return in2;
}

static int st_ncols(sql_op *op) { return ((modify_state *)op->state)->rel->rel.ncols; }

static void emit_returning(sql_op *op, sql_batch *b, const ty_datum *tablerow, const ty_datum *in)
{
	const sql_plan *p = op->plan;
	if (!p->modify.nreturning)
		return;
	int ncols = st_ncols(op);
	int nin = p->modify.cmd == SQL_CMD_INSERT ? 0 : p->left->ncols;
	ty_datum *combo = ty_alloc(sizeof(ty_datum) * (size_t)(ncols + 1 + nin));
	memcpy(combo, tablerow, sizeof(ty_datum) * (size_t)(ncols + 1));
	if (nin)
		memcpy(combo + ncols + 1, in, sizeof(ty_datum) * (size_t)nin);
	ty_datum *out = sql_batch_row(b, b->n++);
	for (int i = 0; i < p->modify.nreturning; i++)
		out[i] = sql_eval(op->ex, p->modify.returning[i], combo);
}

/* ON CONFLICT DO UPDATE that moves the row to a new primary key (as an
 * UPDATE that changes the key): false when the key stays the same. */
static bool oc_update_rekey(sql_op *op, modify_state *st, const ty_datum *existing, ty_datum *upd)
{
	const cat_obj *rel = st->rel;
	const cat_rel *r = &rel->rel;
	sql_txn *t = op->ex->txn;
	ty_datum oldkey = existing[r->ncols];
	util_buf key = UTIL_BUF_INIT;
	sql_row_key(r, upd, &key);
	if (key.len == oldkey.len && memcmp(key.data, oldkey.p, key.len) == 0) {
		util_buf_free(&key);
		return false;
	}
	uint8_t *k = ty_alloc(key.len);
	memcpy(k, key.data, key.len);
	size_t kl = key.len;
	util_buf_free(&key);
	sql_txn_lock_row(t, rel->oid, k, kl, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
			 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	ty_datum *other = ty_alloc(sizeof(ty_datum) * (size_t)(2 * (r->ncols + 1)));
	if (read_latest(op, st, k, kl, other))
		duplicate_key(st, upd);
	if (r->ilv_nchildren)
		sql_ilv_check_delete(t, op->ex->cat, st->kv, rel, oldkey.p, oldkey.len, existing);
	if (r->ilv_depth)
		sql_ilv_check_parent(t, op->ex->cat, st->kv, rel, upd, NULL);
	upd[r->ncols] = ty_bytes(k, kl);
	if (st->unique)
		sql_index_unique_release(op->ex->s, rel, existing, upd);
	sql_txn_delete_row(t, rel, st->kv, oldkey.p, oldkey.len);
	if (st->unique)
		sql_index_unique_check(op->ex->s, rel, upd, existing, 0, false, NULL, NULL);
	check_view(op, st, upd);
	sql_txn_put_row(t, rel, st->kv, k, kl, upd, NULL, true, false);
	if (st->fk)
		sql_fk_row(st->fk, existing, upd);
	op->ex->processed++;
	return true;
}

/* ON CONFLICT DO UPDATE of the existing row (existing = ncols + key,
 * followed by room for the excluded row). */
static void oc_update(sql_op *op, modify_state *st, ty_datum *existing, const ty_datum *row,
		      const ty_datum *in, sql_batch *b)
{
	const sql_plan *p = op->plan;
	const cat_obj *rel = st->rel;
	const cat_rel *r = &rel->rel;
	sql_txn *t = op->ex->txn;
	sql_onconflict *oc = p->modify.oc;
	/* A row this command inserted or updated (PostgreSQL's check, before
	 * the WHERE). */
	sql_wrow *mine = sql_txn_lookup(t, rel->oid, existing[r->ncols].p, existing[r->ncols].len, false);
	if (mine && mine->cid == t->cid && mine->present && !mine->dead) {
		util_err *e = ty_errstart(UTIL_E_CARDINALITY_VIOLATION, "%s command cannot affect row a second time",
					  "ON CONFLICT DO UPDATE");
		util_err_hint(e, "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.");
		ty_errthrow();
	}
	/* DO UPDATE: expressions see existing ++ excluded. */
	ty_datum *excl = existing + r->ncols + 1;
	memcpy(excl, row, sizeof(ty_datum) * (size_t)(r->ncols + 1));
	if (p->modify.oc_where && !sql_eval_qual(op->ex, p->modify.oc_where, existing))
		return;
	ty_datum *upd = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	memcpy(upd, existing, sizeof(ty_datum) * (size_t)(r->ncols + 1));
	bool *set = ty_alloc0(sizeof(bool) * (size_t)(r->ncols ? r->ncols : 1));
	for (int i = 0; i < oc->nset; i++) {
		int c = oc->set_cols[i] - 1;
		upd[c] = sql_eval(op->ex, p->modify.oc_set[i], existing);
		set[c] = true;
	}
	check_row(op, st, upd);
	bool pk_set = false;
	for (int i = 0; i < r->npk; i++)
		pk_set |= set[r->pk[i] - 1];
	if (pk_set && oc_update_rekey(op, st, existing, upd)) {
		emit_returning(op, b, upd, in);
		return;
	}
	if (st->unique) {
		sql_index_unique_release(op->ex->s, rel, existing, upd);
		sql_index_unique_check(op->ex->s, rel, upd, existing, 0, false, NULL, NULL);
	}
	ty_datum key = existing[r->ncols];
	check_view(op, st, upd);
	sql_txn_put_row(t, rel, st->kv, key.p, key.len, upd, set, false, true);
	if (st->fk)
		sql_fk_row(st->fk, existing, upd);
	op->ex->processed++;
	emit_returning(op, b, upd, in);
}

/* Does the ON CONFLICT arbiter index hold row's key (*holder: the row
 * holding it)? A conflict in another unique index counts as none: the
 * caller's primary-key conflict is then the error, as in PostgreSQL. */
static bool arbiter_conflict(sql_op *op, modify_state *st, const ty_datum *row, ty_datum *holder)
{
	volatile bool conflict = false;
	TY_TRY(tc)
	{
		conflict = !sql_index_unique_check(op->ex->s, st->rel, row, NULL, op->plan->modify.oc->arbiter_index,
						   false, holder, NULL);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (ty_err()->code != UTIL_E_UNIQUE_VIOLATION)
			ty_errthrow();
		return false;
	}
	TY_END(tc);
	return conflict;
}

static void do_insert(sql_op *op, modify_state *st, const ty_datum *in, sql_batch *b)
{
	const sql_plan *p = op->plan;
	const cat_obj *rel = st->rel;
	const cat_rel *r = &rel->rel;
	sql_txn *t = op->ex->txn;
	ty_datum *row = st->newrow;
	for (int c = 0; c < r->ncols; c++)
		row[c] = sql_eval(op->ex, p->modify.new_vals[c], in);
	util_buf key = UTIL_BUF_INIT;
	sql_row_key(r, row, &key);
	uint8_t *k = ty_alloc(key.len);
	memcpy(k, key.data, key.len);
	size_t kl = key.len;
	util_buf_free(&key);
	row[r->ncols] = ty_bytes(k, kl);
	check_row(op, st, row);
	if (p->modify.oc && p->modify.oc->arbiter_deferrable) {
		/* PostgreSQL refuses a deferrable arbiter when it checks a row. */
		util_err *e = ty_errstart(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE,
					  "ON CONFLICT does not support deferrable unique constraints/exclusion constraints as arbiters");
		err_schema(e, r);
		util_err_field(e->table, r->name);
		util_err_field(e->constraint, p->modify.oc->arbiter_name);
		ty_errthrow();
	}
	if (r->ilv_depth)
		sql_ilv_check_parent(t, op->ex->cat, st->kv, rel, row, &st->last_parent);
	kv_ts kat = 0; /* the read point k was read at (read_newest) */
	if (r->npk) {
		/* Serialise inserts of the same key, then look at the newest state. */
		sql_txn_lock_row(t, rel->oid, k, kl, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
				 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
		ty_datum *existing = st->ocrow;
		if (read_newest(op, st, k, kl, existing, &kat)) {
			sql_onconflict *oc = p->modify.oc;
			if (!oc)
				duplicate_key(st, row);
			if (oc->arbiter_index) {
				/* A unique index as the arbiter: PostgreSQL looks at it
				 * first; without a conflict there, the primary key's is
				 * an error. */
				ty_datum holder = ty_null();
				/* (Probed under no row key: the row with this key may
				 * hold the arbiter's key too.) */
				ty_datum *probe = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
				memcpy(probe, row, sizeof(ty_datum) * (size_t)r->ncols);
				probe[r->ncols] = ty_bytes((const uint8_t *)"", 0);
				if (!st->unique || !arbiter_conflict(op, st, probe, &holder))
					duplicate_key(st, row);
				if (!oc->do_update)
					return;
				sql_txn_lock_row(t, rel->oid, holder.p, holder.len,
						 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
						 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
				kv_ts hat;
				if (!read_newest(op, st, holder.p, holder.len, existing, &hat))
					duplicate_key(st, row);
				oc_update(op, st, existing, row, in, b);
				if (hat)
					sql_txn_rebase(t, rel->oid, holder.p, holder.len, hat);
				return;
			}
			/* A conflicting row this snapshot cannot see (PostgreSQL's
			 * ExecCheckTupleVisible). */
			if (t->iso != SQL_READ_COMMITTED && !sql_txn_lookup(t, rel->oid, k, kl, false) &&
			    sql_txn_row_changed(t, st->kv, &st->rel->rel, k, kl))
				sql_txn_serialization_failure(false);
			if (!oc->do_update)
				return;
			oc_update(op, st, existing, row, in, b);
			if (kat)
				sql_txn_rebase(t, rel->oid, k, kl, kat);
			return;
		}
	}
	if (st->unique) {
		sql_onconflict *oc = p->modify.oc;
		ty_datum holder = ty_null();
		bool by_index = oc && (oc->narbiter == 0 || oc->arbiter_index);
		if (!sql_index_unique_check(op->ex->s, rel, row, NULL, oc ? oc->arbiter_index : 0,
					    oc && oc->narbiter == 0, by_index ? &holder : NULL, NULL)) {
			if (!oc->do_update)
				return;
			/* DO UPDATE on the row holding the key. */
			sql_txn_lock_row(t, rel->oid, holder.p, holder.len,
					 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
					 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
			ty_datum *existing = st->ocrow;
			kv_ts hat;
			if (read_newest(op, st, holder.p, holder.len, existing, &hat)) {
				oc_update(op, st, existing, row, in, b);
				if (hat)
					sql_txn_rebase(t, rel->oid, holder.p, holder.len, hat);
				return;
			}
		}
	}
	check_view(op, st, row);
	sql_txn_put_row(t, rel, st->kv, k, kl, row, NULL, true, false);
	if (kat) /* absent at that read point */
		sql_txn_rebase(t, rel->oid, k, kl, kat);
	if (st->fk)
		sql_fk_row(st->fk, NULL, row);
	op->ex->processed++;
	emit_returning(op, b, row, in);
}

static void do_update(sql_op *op, modify_state *st, const ty_datum *in, sql_batch *b)
{
	const sql_plan *p = op->plan;
	const cat_obj *rel = st->rel;
	const cat_rel *r = &rel->rel;
	sql_txn *t = op->ex->txn;
	ty_datum oldkey = in[p->modify.key_slot];
	st->epq_ts = 0;
	/* As PostgreSQL: an UPDATE that leaves the key alone takes FOR NO KEY
	 * UPDATE, so it does not block foreign-key checks (FOR KEY SHARE). */
	sql_txn_lock_row(t, rel->oid, oldkey.p, oldkey.len,
			 p->modify.pk_changes ? PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE
					      : PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE,
			 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	in = recheck_locked(op, st, in, oldkey.p, oldkey.len);
	if (!in)
		return;
	ty_datum *row = st->newrow;
	for (int c = 0; c < r->ncols; c++)
		row[c] = sql_eval(op->ex, p->modify.new_vals[c], in);
	row[r->ncols] = oldkey;
	check_row(op, st, row);
	ty_datum *old = NULL;
	if (st->unique) {
		old = st->oldrow;
		for (int c = 0; c < r->ncols; c++)
			old[c] = in[p->modify.old_slots[c]];
		old[r->ncols] = oldkey;
	}
	if (p->modify.pk_changes) {
		util_buf key = UTIL_BUF_INIT;
		sql_row_key(r, row, &key);
		bool same = key.len == oldkey.len && memcmp(key.data, oldkey.p, key.len) == 0;
		if (!same) {
			uint8_t *k = ty_alloc(key.len);
			memcpy(k, key.data, key.len);
			size_t kl = key.len;
			util_buf_free(&key);
			sql_txn_lock_row(t, rel->oid, k, kl, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
					 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
			if (read_latest(op, st, k, kl, st->ocrow))
				duplicate_key(st, row);
			if (r->ilv_nchildren) {
				ty_datum *before = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
				for (int c = 0; c < r->ncols; c++)
					before[c] = in[p->modify.old_slots[c]];
				sql_ilv_check_delete(t, op->ex->cat, st->kv, rel, oldkey.p, oldkey.len, before);
			}
			if (r->ilv_depth)
				sql_ilv_check_parent(t, op->ex->cat, st->kv, rel, row, NULL);
			row[r->ncols] = ty_bytes(k, kl);
			if (old)
				sql_index_unique_release(op->ex->s, rel, old, row);
			sql_txn_delete_row(t, rel, st->kv, oldkey.p, oldkey.len);
			if (st->epq_ts)
				sql_txn_rebase(t, rel->oid, oldkey.p, oldkey.len, st->epq_ts);
			if (old)
				sql_index_unique_check(op->ex->s, rel, row, old, 0, false, NULL, NULL);
			check_view(op, st, row);
			sql_txn_put_row(t, rel, st->kv, k, kl, row, NULL, true, false);
			if (st->fk)
				sql_fk_row(st->fk, old_row(op, st, in, oldkey), row);
			op->ex->processed++;
			emit_returning(op, b, row, in);
			return;
		}
		util_buf_free(&key);
	}
	if (old) {
		sql_index_unique_release(op->ex->s, rel, old, row);
		sql_index_unique_check(op->ex->s, rel, row, old, 0, false, NULL, NULL);
	}
	check_view(op, st, row);
	sql_txn_put_row(t, rel, st->kv, oldkey.p, oldkey.len, row, st->assigned, false, true);
	if (st->epq_ts)
		sql_txn_rebase(t, rel->oid, oldkey.p, oldkey.len, st->epq_ts);
	if (st->fk)
		sql_fk_row(st->fk, old_row(op, st, in, oldkey), row);
	op->ex->processed++;
	emit_returning(op, b, row, in);
}

static void do_delete(sql_op *op, modify_state *st, const ty_datum *in, sql_batch *b)
{
	const sql_plan *p = op->plan;
	const cat_obj *rel = st->rel;
	const cat_rel *r = &rel->rel;
	sql_txn *t = op->ex->txn;
	ty_datum key = in[p->modify.key_slot];
	/* Two FROM rows may name the same target row: delete it once. */
	sql_wrow *w = sql_txn_lookup(t, rel->oid, key.p, key.len, false);
	if (w && w->cid == t->cid && !w->present)
		return;
	sql_txn_lock_row(t, rel->oid, key.p, key.len, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
			 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	st->epq_ts = 0;
	in = recheck_locked(op, st, in, key.p, key.len);
	if (!in)
		return;
	if (r->ilv_nchildren) {
		ty_datum *before = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		for (int c = 0; c < r->ncols; c++)
			before[c] = in[p->modify.old_slots[c]];
		sql_ilv_check_delete(t, op->ex->cat, st->kv, rel, key.p, key.len, before);
	}
	if (st->unique) {
		ty_datum *old = st->oldrow;
		for (int c = 0; c < r->ncols; c++)
			old[c] = in[p->modify.old_slots[c]];
		old[r->ncols] = key;
		sql_index_unique_release(op->ex->s, rel, old, NULL);
	}
	sql_txn_delete_row(t, rel, st->kv, key.p, key.len);
	if (st->epq_ts)
		sql_txn_rebase(t, rel->oid, key.p, key.len, st->epq_ts);
	if (st->fk)
		sql_fk_row(st->fk, old_row(op, st, in, key), NULL);
	op->ex->processed++;
	if (p->modify.nreturning) {
		ty_datum *old = st->newrow;
		for (int c = 0; c < r->ncols; c++)
			old[c] = in[p->modify.old_slots[c]];
		old[r->ncols] = key;
		emit_returning(op, b, old, in);
	}
}

static void modify_open(sql_op *op)
{
	modify_state *st = op->state;
	const sql_plan *p = op->plan;
	sql_exec *ex = op->ex;
	if (p->modify.oc && p->modify.oc->infer_errcode)
		ty_error(p->modify.oc->infer_errcode, "%s", p->modify.oc->infer_error);
	st->rel = cat_get(ex->cat, p->modify.reloid);
	if (!st->rel)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", p->modify.reloid);
	const cat_rel *r = &st->rel->rel;
	kv_status s = kv_table_open(ex->s->e->kv, r->storage, &st->kv);
	if (s != KV_OK)
		sql_kv_error(s, "opening a table");
	util_arena *old = ty_set_arena(ex->arena);
	st->newrow = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	st->ocrow = ty_alloc(sizeof(ty_datum) * (size_t)(2 * (r->ncols + 1)));
	st->assigned = ty_alloc0(sizeof(bool) * (size_t)(r->ncols ? r->ncols : 1));
	if (p->modify.cmd == SQL_CMD_UPDATE)
		for (int c = 0; c < r->ncols; c++) {
			const sql_expr *e = p->modify.new_vals[c];
			st->assigned[c] = !(e->kind == SQL_E_SLOT && e->slot == p->modify.old_slots[c]);
		}
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'p')
			st->pk_name = ty_strdup(r->cons[i].name);
	/* ON CONFLICT DO UPDATE updates rows: rows referencing them count too. */
	st->fk = sql_fk_begin(ex, st->rel, p->modify.oc && p->modify.oc->do_update ? SQL_CMD_UPDATE : p->modify.cmd);
	st->unique = sql_index_has_unique(ex->s, st->rel);
	st->oldrow = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	ty_set_arena(old);
	if (!ex->txn)
		ty_error(UTIL_E_INTERNAL_ERROR, "data modification outside a transaction");
}

static sql_batch *modify_next(sql_op *op)
{
	modify_state *st = op->state;
	const sql_plan *p = op->plan;
	for (;;) {
		sql_batch *b = sql_op_begin_batch(op);
		if (st->done)
			return b;
		sql_batch *in = sql_op_next(op->left);
		if (in->n == 0) {
			st->done = true;
			sql_fk_state *fk = st->fk;
			st->fk = NULL;
			sql_fk_end(fk);
			return b;
		}
		ty_set_arena(b->arena);
		for (int i = 0; i < in->n; i++) {
			ty_datum *row = sql_batch_row(in, i);
			switch (p->modify.cmd) {
			case SQL_CMD_INSERT: do_insert(op, st, row, b); break;
			case SQL_CMD_UPDATE: do_update(op, st, row, b); break;
			case SQL_CMD_DELETE: do_delete(op, st, row, b); break;
			default: break;
			}
			if (st->scratch)
				util_arena_reset(st->scratch);
		}
		if (b->n)
			return b;
	}
}

static void modify_close(sql_op *op)
{
	modify_state *st = op->state;
	if (st->kv)
		kv_table_close(st->kv);
	st->kv = NULL;
	util_arena_destroy(st->scratch);
	util_buf_free(&st->last_parent);
	st->scratch = NULL;
	sql_fk_abandon(st->fk);
	st->fk = NULL;
}

sql_op *sql_op_modify(sql_exec *ex, const sql_plan *p)
{
	(void)p;
	sql_op *op = sql_op_new_internal(ex, sizeof(modify_state));
	op->open = modify_open;
	op->next = modify_next;
	op->close = modify_close;
	/* Returning rows can exceed the batch when one input row yields one
	 * output row per input: the batch is sized like the input. */
	return op;
}
