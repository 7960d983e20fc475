/*
 * utility.c — statements that are not planned queries: transaction
 * control (BEGIN/COMMIT/ROLLBACK/SAVEPOINT), SET/SHOW/RESET, DISCARD,
 * VACUUM/ANALYZE/CHECKPOINT, and the dispatch to DDL, COPY, EXPLAIN,
 * PREPARE/EXECUTE and cursors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

static void set_tag(sql_complete *c, const char *tag) { snprintf(c->tag, sizeof c->tag, "%s", tag); }

static void send_notice(sql_session *s, util_severity sev, util_errcode code, const char *fmt, va_list ap)
{
	util_err n;
	util_err_clear(&n);
	util_err_vset(&n, code, fmt, ap);
	n.severity = sev;
	if (s->client.notice)
		s->client.notice(s->client.arg, &n);
}

void sql_notice(sql_session *s, util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	send_notice(s, UTIL_SEV_NOTICE, code, fmt, ap);
	va_end(ap);
}

void sql_info(sql_session *s, util_errcode code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	send_notice(s, UTIL_SEV_INFO, code, fmt, ap);
	va_end(ap);
}

void sql_warning(sql_session *s, util_errcode code, const char *fmt, ...)
{
	util_err n;
	util_err_clear(&n);
	va_list ap;
	va_start(ap, fmt);
	util_err_vset(&n, code, fmt, ap);
	va_end(ap);
	n.severity = UTIL_SEV_WARNING;
	if (s->client.notice)
		s->client.notice(s->client.arg, &n);
}

/* ---------------------------------------------------------------- transactions */

static void txn_options(sql_session *s, PgQuery__Node **opts, size_t n, sql_isolation *iso, bool *ro, bool *set_iso,
			bool *set_ro)
{
	(void)s;
	for (size_t i = 0; i < n; i++) {
		PgQuery__DefElem *d = opts[i]->def_elem;
		if (!strcmp(d->defname, "transaction_isolation")) {
			const char *v = d->arg->a_const->sval->sval;
			*iso = !strcmp(v, "serializable")      ? SQL_SERIALIZABLE
			       : !strcmp(v, "repeatable read") ? SQL_REPEATABLE_READ
							       : SQL_READ_COMMITTED;
			*set_iso = true;
		} else if (!strcmp(d->defname, "transaction_read_only")) {
			*ro = d->arg->a_const->ival ? d->arg->a_const->ival->ival != 0 : false;
			if (d->arg->a_const->val_case == PG_QUERY__A__CONST__VAL_BOOLVAL)
				*ro = d->arg->a_const->boolval->boolval;
			*set_ro = true;
		}
	}
}

static void end_block(sql_session *s, bool commit, sql_complete *c)
{
	sql_txn *t = s->txn;
	s->txn = NULL;
	sql_txn_state prev = s->txn_state;
	s->txn_state = SQL_TXN_IDLE;
	util_err err;
	util_err_clear(&err);
	int rc = 0;
	if (t) {
		if (commit && prev != SQL_TXN_FAILED) {
			s->txn = t;
			sql_cursors_at_commit(s);
			s->txn = NULL;
			rc = sql_txn_commit(t, &err);
		}
		else
			sql_txn_abort(t);
	}
	sql_guc_end_txn(s, commit && prev != SQL_TXN_FAILED && rc == 0);
	sql_stmt_end_txn(s);
	if (rc != 0)
		ty_throw(&err);
	if (commit && prev == SQL_TXN_FAILED)
		set_tag(c, "ROLLBACK");
}

void sql_savepoint_create(sql_session *s, const char *name);
void sql_release_savepoint(sql_session *s, const char *name);
void sql_rollback_to_savepoint(sql_session *s, const char *name);

static void transaction_stmt(sql_session *s, PgQuery__TransactionStmt *ts, sql_complete *c)
{
	switch (ts->kind) {
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START: {
		if (s->txn_state != SQL_TXN_IDLE) {
			sql_warning(s, UTIL_E_ACTIVE_SQL_TRANSACTION, "there is already a transaction in progress");
			return;
		}
		sql_isolation iso = s->default_isolation;
		bool ro = s->default_read_only, si = false, sr = false;
		txn_options(s, ts->options, ts->n_options, &iso, &ro, &si, &sr);
		if (s->txn && s->txn->nwrites == 0 && !s->txn->ddl) {
			/* The implicit transaction of this query becomes the block. */
			s->txn->iso = iso;
			s->txn->read_only = ro;
			s->txn->explicit_block = true;
			s->txn->snapshot_ts = kv_read_point(s->e->kv);
			s->txn->snapshot_taken = false;
		} else if (!s->txn) {
			s->txn = sql_txn_begin(s, iso, ro, true);
			s->xact_start_us = util_now_us();
			s->tys.txn_timestamp = s->xact_start_us - 946684800000000LL;
		}
		s->txn_state = SQL_TXN_BLOCK;
		s->implicit_block = false;
		return;
	}
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
		if (s->txn_state == SQL_TXN_IDLE) {
			sql_warning(s, UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "there is no transaction in progress");
			/* Inside a multi-statement query it still commits the
			 * implicit transaction so far (PostgreSQL). */
			if (s->implicit_block && s->txn)
				end_block(s, true, c);
			return;
		}
		end_block(s, true, c);
		return;
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
		if (s->txn_state == SQL_TXN_IDLE) {
			sql_warning(s, UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "there is no transaction in progress");
			if (s->txn) {
				sql_txn_abort(s->txn);
				s->txn = NULL;
			}
			return;
		}
		end_block(s, false, c);
		return;
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT:
		if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
			ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "SAVEPOINT can only be used in transaction blocks");
		sql_savepoint_create(s, ts->savepoint_name);
		return;
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE:
		if (s->txn_state == SQL_TXN_IDLE)
			ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "RELEASE SAVEPOINT can only be used in transaction blocks");
		sql_release_savepoint(s, ts->savepoint_name);
		return;
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
		if (s->txn_state == SQL_TXN_IDLE)
			ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks");
		sql_rollback_to_savepoint(s, ts->savepoint_name);
		return;
	default:
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "prepared transactions are not supported");
	}
}

/* ---------------------------------------------------------------- SET / SHOW */

/* The text of a SET value list as PostgreSQL flattens it. */
static char *set_value_text(PgQuery__VariableSetStmt *vs)
{
	util_buf b = UTIL_BUF_INIT;
	for (size_t i = 0; i < vs->n_args; i++) {
		pnode *a = vs->args[i];
		if (i)
			util_buf_puts(&b, ", ");
		if (a->node_case == PG_QUERY__NODE__NODE_A_CONST) {
			PgQuery__AConst *c = a->a_const;
			switch (c->val_case) {
			case PG_QUERY__A__CONST__VAL_IVAL: util_buf_printf(&b, "%d", c->ival->ival); break;
			case PG_QUERY__A__CONST__VAL_FVAL: util_buf_puts(&b, c->fval->fval); break;
			case PG_QUERY__A__CONST__VAL_SVAL: util_buf_puts(&b, c->sval->sval); break;
			case PG_QUERY__A__CONST__VAL_BOOLVAL: util_buf_puts(&b, c->boolval->boolval ? "on" : "off"); break;
			default: break;
			}
		} else if (a->node_case == PG_QUERY__NODE__NODE_TYPE_CAST) {
			/* SET TIME ZONE INTERVAL '...' HOUR TO MINUTE */
			pnode *arg = a->type_cast->arg;
			if (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL) {
				ty_datum iv = ty_input(TY_INTERVAL, arg->a_const->sval->sval, strlen(arg->a_const->sval->sval), -1);
				const ty_interval *in = iv.p;
				if (in->month || in->day)
					ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid interval value for time zone: month not allowed");
				double hours = (double)in->time / 3600000000.0;
				util_buf_printf(&b, "%g", hours);
			}
		} else if (str_of(a)) {
			util_buf_puts(&b, str_of(a));
		}
	}
	char *r = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return r;
}

/* search_path values keep their quoting as PostgreSQL shows it. */
static char *search_path_text(PgQuery__VariableSetStmt *vs)
{
	util_buf b = UTIL_BUF_INIT;
	for (size_t i = 0; i < vs->n_args; i++) {
		pnode *a = vs->args[i];
		const char *v = a->node_case == PG_QUERY__NODE__NODE_A_CONST && a->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL
					? a->a_const->sval->sval
					: "";
		if (i)
			util_buf_puts(&b, ", ");
		bool plain = *v && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_$") == strlen(v) && !(v[0] >= '0' && v[0] <= '9');
		if (plain)
			util_buf_puts(&b, v);
		else
			util_buf_printf(&b, "\"%s\"", v);
	}
	char *r = ty_strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return r;
}

static void set_stmt(sql_session *s, PgQuery__VariableSetStmt *vs, sql_complete *c)
{
	util_err err;
	util_err_clear(&err);
	const char *name = vs->name;
	switch (vs->kind) {
	case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE:
	case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_CURRENT: {
		if (!util_strcasecmp(name, "timezone"))
			name = "TimeZone";
		char *val = !util_strcasecmp(name, "search_path") ? search_path_text(vs) : set_value_text(vs);
		if (vs->is_local && s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
			sql_warning(s, UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "SET LOCAL can only be used in transaction blocks");
		else if (!util_strcasecmp(name, "transaction_isolation") || !util_strcasecmp(name, "transaction_read_only")) {
			if (!s->txn)
				sql_stmt_ensure_txn(s);
			if (!util_strcasecmp(name, "transaction_isolation"))
				s->txn->iso = !util_strcasecmp(val, "serializable")      ? SQL_SERIALIZABLE
					      : !util_strcasecmp(val, "repeatable read") ? SQL_REPEATABLE_READ
											 : SQL_READ_COMMITTED;
			else
				s->txn->read_only = !util_strcasecmp(val, "on") || !util_strcasecmp(val, "true");
		} else if (sql_guc_set(s, name, val, vs->is_local, &err) != 0)
			ty_throw(&err);
		return;
	}
	case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT:
	case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET:
		if (!util_strcasecmp(name, "timezone"))
			name = "TimeZone";
		if (sql_guc_set(s, name, NULL, vs->is_local, &err) != 0)
			ty_throw(&err);
		return;
	case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL:
		sql_guc_reset_all(s);
		return;
	case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_MULTI: {
		if (!strcmp(name, "TRANSACTION SNAPSHOT")) {
			if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
				ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION,
					 "SET TRANSACTION SNAPSHOT can only be used in transaction blocks");
			pnode *a = vs->n_args == 1 ? vs->args[0] : NULL;
			const char *id = a && a->node_case == PG_QUERY__NODE__NODE_A_CONST && a->a_const->val_case ==
									     PG_QUERY__A__CONST__VAL_SVAL
					     ? a->a_const->sval->sval
					     : NULL;
			if (!id)
				ty_error(UTIL_E_SYNTAX_ERROR, "SET TRANSACTION SNAPSHOT takes a string");
			sql_stmt_ensure_txn(s);
			sql_txn_import_snapshot(s->txn, id);
			return;
		}
		/* SET TRANSACTION ... / SET SESSION CHARACTERISTICS AS TRANSACTION ... */
		sql_isolation iso = s->default_isolation;
		bool ro = s->default_read_only, si = false, sr = false;
		txn_options(s, vs->args, vs->n_args, &iso, &ro, &si, &sr);
		if (!strcmp(name, "TRANSACTION")) {
			if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
				sql_warning(s, UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "SET TRANSACTION can only be used in transaction blocks");
			sql_stmt_ensure_txn(s);
			if (si) {
				if (s->txn->cid >= 1)
					ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "SET TRANSACTION ISOLATION LEVEL must be called before any query");
				s->txn->iso = iso;
			}
			if (sr) {
				/* Becoming read-write needs a fresh transaction (PostgreSQL:
				 * any query before it fixes the mode). */
				if (!ro && s->txn->read_only && s->txn->cid >= 1)
					ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION,
						 "transaction read-write mode must be set before any query");
				s->txn->read_only = ro;
			}
		} else {
			if (si && sql_guc_set(s, "default_transaction_isolation",
					      iso == SQL_SERIALIZABLE ? "serializable" : iso == SQL_REPEATABLE_READ ? "repeatable read" : "read committed",
					      false, &err) != 0)
				ty_throw(&err);
			if (sr && sql_guc_set(s, "default_transaction_read_only", ro ? "on" : "off", false, &err) != 0)
				ty_throw(&err);
		}
		return;
	}
	default:
		(void)c;
		return;
	}
}

static void show_stmt(sql_session *s, PgQuery__VariableShowStmt *vs, sql_dest *dest, sql_complete *c)
{
	const char *name = vs->name;
	if (!util_strcasecmp(name, "all")) {
		int n = sql_guc_count();
		const char *names[3] = {"name", "setting", "description"};
		ty_oid types[3] = {TY_TEXT, TY_TEXT, TY_TEXT};
		ty_datum *vals = ty_alloc(sizeof(ty_datum) * 3 * (size_t)n);
		int k = 0;
		for (int i = 0; i < n; i++) {
			const sql_guc *g = sql_guc_nth(i);
			util_buf b = UTIL_BUF_INIT;
			util_err err;
			bool found;
			sql_guc_show(s, g->name, &b, &err, &found);
			vals[3 * k] = ty_text(g->name);
			vals[3 * k + 1] = ty_text(b.data ? b.data : "");
			vals[3 * k + 2] = ty_text(g->desc);
			util_buf_free(&b);
			k++;
		}
		sql_send_rows(s, dest, 3, names, types, vals, k);
		snprintf(c->tag, sizeof c->tag, "SHOW");
		return;
	}
	if (!util_strcasecmp(name, "timezone"))
		name = "TimeZone";
	else if (!util_strcasecmp(name, "session_authorization"))
		name = "session_authorization";
	util_buf b = UTIL_BUF_INIT;
	util_err err;
	util_err_clear(&err);
	bool found;
	const char *colname = name;
	if (!util_strcasecmp(name, "transaction_isolation") || !util_strcasecmp(name, "transaction_read_only") ||
	    !util_strcasecmp(name, "is_superuser") || !util_strcasecmp(name, "session_authorization")) {
		util_buf_puts(&b, sql_guc_get(s, name));
		found = true;
	} else {
		sql_guc_show(s, name, &b, &err, &found);
		const sql_guc *g = sql_guc_find(name);
		if (g)
			colname = g->name;
	}
	if (!found) {
		util_buf_free(&b);
		ty_throw(&err);
	}
	const char *names[1] = {colname};
	ty_oid types[1] = {TY_TEXT};
	ty_datum v = ty_text(b.data ? b.data : "");
	util_buf_free(&b);
	sql_send_rows(s, dest, 1, names, types, &v, 1);
	snprintf(c->tag, sizeof c->tag, "SHOW");
}

/* ---------------------------------------------------------------- dispatch */

void sql_exec_ddl(sql_session *s, pnode *stmt, const char *text, sql_complete *c);
void sql_exec_explain(sql_session *s, PgQuery__ExplainStmt *st, const char *text, sql_dest *dest, sql_complete *c);
void sql_exec_copy(sql_session *s, PgQuery__CopyStmt *st, const char *text, sql_dest *dest, sql_complete *c);
void sql_exec_prepare_stmt(sql_session *s, pnode *stmt, const char *text, sql_dest *dest, sql_complete *c);
void sql_exec_cursor_stmt(sql_session *s, pnode *stmt, const char *text, sql_dest *dest, sql_complete *c);
bool sql_is_ddl(pnode *stmt);

static bool needs_txn(pnode *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
	case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
	case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT:
	case PG_QUERY__NODE__NODE_DISCARD_STMT:
	case PG_QUERY__NODE__NODE_PREPARE_STMT:
	case PG_QUERY__NODE__NODE_DEALLOCATE_STMT:
	case PG_QUERY__NODE__NODE_CHECK_POINT_STMT:
	case PG_QUERY__NODE__NODE_LISTEN_STMT:
	case PG_QUERY__NODE__NODE_UNLISTEN_STMT:
		return false;
	default:
		return true;
	}
}

/* VACUUM compacts the tables' storage (the store's dead versions and
 * delete markers are what VACUUM reclaims in PostgreSQL): a minor
 * compaction, or with FULL a major one that rewrites everything into one
 * file per family. ANALYZE: stats.c. */
typedef struct vac_ctx {
	sql_session *s;
	bool full;
	int n;
} vac_ctx;

static void vacuum_storage(vac_ctx *v, const cat_rel *r)
{
	if (!r->storage[0] || r->ilv_depth)
		return; /* views; interleaved tables are compacted with their root */
	kv_table *t;
	if (kv_table_open(v->s->e->kv, r->storage, &t) != KV_OK)
		return;
	kv_status st = kv_table_flush(t);
	if (st == KV_OK)
		st = kv_table_compact(t, v->full);
	kv_table_close(t);
	if (st != KV_OK)
		sql_kv_error(st, "compacting a table");
	v->n++;
}

static int vacuum_each(void *arg, const cat_obj *o)
{
	vac_ctx *v = arg;
	if (o->rel.relkind == CAT_RELKIND_TABLE || o->rel.relkind == CAT_RELKIND_INDEX)
		vacuum_storage(v, &o->rel);
	return 0;
}

static void vacuum(sql_session *s, PgQuery__VacuumStmt *vs)
{
	if (!vs->is_vacuumcmd) {
		sql_analyze_stmt(s, vs);
		return;
	}
	if (s->txn_state != SQL_TXN_IDLE || s->implicit_block)
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "VACUUM cannot run inside a transaction block");
	vac_ctx v = {s, false, 0};
	bool analyze = false;
	for (size_t i = 0; i < vs->n_options; i++) {
		PgQuery__DefElem *d = vs->options[i]->def_elem;
		if (d && !strcmp(d->defname, "analyze"))
			analyze = true;
		if (d && !strcmp(d->defname, "full"))
			v.full = !d->arg || (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN && d->arg->boolean->boolval) ||
				 (d->arg->node_case == PG_QUERY__NODE__NODE_STRING &&
				  (!util_strcasecmp(d->arg->string->sval, "true") || !util_strcasecmp(d->arg->string->sval, "on")));
	}
	if (analyze)
		sql_analyze_stmt(s, vs);
	if (vs->n_rels == 0) {
		cat_foreach(s->cat, CAT_REL, s->db_oid, vacuum_each, &v);
		return;
	}
	for (size_t i = 0; i < vs->n_rels; i++) {
		PgQuery__VacuumRelation *vr = vs->rels[i]->vacuum_relation;
		const cat_obj *o = sql_lookup_rel(s, s->cat, vr->relation, false);
		const cat_obj *target = o->rel.ilv_depth ? cat_get(s->cat, o->rel.ilv_root) : o;
		if (target)
			vacuum_storage(&v, &target->rel);
		for (int k = 0; k < o->rel.nindexes; k++) {
			const cat_obj *ix = cat_get(s->cat, o->rel.indexes[k]);
			if (ix)
				vacuum_storage(&v, &ix->rel);
		}
	}
}

void sql_exec_utility(sql_session *s, sql_prepared *ps, sql_dest *dest, sql_complete *c)
{
	pnode *n = ps->raw;
	const char *text = ps->full_text ? ps->full_text : ps->text;
	set_tag(c, sql_command_tag(n));
	if (needs_txn(n))
		sql_stmt_begin(s);
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
		transaction_stmt(s, n->transaction_stmt, c);
		return;
	case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
		set_stmt(s, n->variable_set_stmt, c);
		return;
	case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT:
		show_stmt(s, n->variable_show_stmt, dest, c);
		return;
	case PG_QUERY__NODE__NODE_DISCARD_STMT:
		if (s->txn_state != SQL_TXN_IDLE && n->discard_stmt->target == PG_QUERY__DISCARD_MODE__DISCARD_ALL)
			ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "DISCARD ALL cannot run inside a transaction block");
		if (n->discard_stmt->target == PG_QUERY__DISCARD_MODE__DISCARD_ALL)
			sql_guc_reset_all(s);
		return;
	case PG_QUERY__NODE__NODE_CHECK_POINT_STMT:
		if (!s->superuser)
			ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser to do CHECKPOINT");
	{
		/* A flush that fails (ENOSPC, EIO) fails the CHECKPOINT, as in PostgreSQL. */
		kv_status fst = kv_store_flush(s->e->kv);
		if (fst != KV_OK)
			sql_kv_error(fst, "writing a checkpoint");
		return;
	}
	case PG_QUERY__NODE__NODE_VACUUM_STMT:
		vacuum(s, n->vacuum_stmt);
		return;
	case PG_QUERY__NODE__NODE_LISTEN_STMT:
	case PG_QUERY__NODE__NODE_UNLISTEN_STMT:
	case PG_QUERY__NODE__NODE_NOTIFY_STMT:
		return;
	case PG_QUERY__NODE__NODE_CONSTRAINTS_SET_STMT:
		sql_fk_set_constraints(s, n->constraints_set_stmt);
		return;
	case PG_QUERY__NODE__NODE_LOCK_STMT:
		if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block)
			ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "LOCK TABLE can only be used in transaction blocks");
		sql_lock_table_stmt(s, n->lock_stmt);
		return;
	case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
		sql_exec_explain(s, n->explain_stmt, text, dest, c);
		return;
	case PG_QUERY__NODE__NODE_COPY_STMT:
		sql_exec_copy(s, n->copy_stmt, text, dest, c);
		return;
	case PG_QUERY__NODE__NODE_PREPARE_STMT:
	case PG_QUERY__NODE__NODE_EXECUTE_STMT:
	case PG_QUERY__NODE__NODE_DEALLOCATE_STMT:
		sql_exec_prepare_stmt(s, n, text, dest, c);
		return;
	case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT:
	case PG_QUERY__NODE__NODE_FETCH_STMT:
	case PG_QUERY__NODE__NODE_CLOSE_PORTAL_STMT:
		sql_exec_cursor_stmt(s, n, text, dest, c);
		return;
	default:
		if (sql_is_ddl(n)) {
			sql_exec_ddl(s, n, text, c);
			return;
		}
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "%s is not supported", sql_command_tag(n));
	}
}
