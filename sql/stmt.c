/*
 * stmt.c — running one statement: the failed-transaction rule (25P02), the
 * statement timeout, implicit transactions, analysis and planning (cached
 * for prepared statements and replanned when the catalog changes), portals
 * with parameters and row limits, and turning errors into the transaction
 * state PostgreSQL would be in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sql_int.h"

/* ---------------------------------------------------------------- cached plans */

void sql_cached_plan_release(sql_cached_plan *cp)
{
	if (!cp || --cp->refs > 0)
		return;
	if (cp->cat)
		cat_snap_release(cp->cat);
	util_arena_destroy(cp->arena);
}

/* Analyzes and plans a statement against the session's current catalog.
 * defer: an error of planning (constant folding: SELECT 1/0), not of
 * analysis, returns NULL instead; the plan is built again, and the error
 * raised, when the statement is bound or described, as PostgreSQL plans at
 * Bind (Parse and PREPARE only analyze). */
static sql_cached_plan *plan_build(sql_session *s, sql_prepared *p, bool defer)
{
	volatile bool analyzed = false;
	util_arena *a = util_arena_new(16 * 1024, 0);
	sql_cached_plan *cp = util_arena_zalloc(a, sizeof *cp);
	cp->arena = a;
	cp->refs = 1;
	cp->cat = s->cat;
	cat_snap_ref(s->cat);
	util_arena *old = ty_set_arena(a);
	TY_TRY(tc)
	{
		sql_pstate *ps = ty_alloc0(sizeof *ps);
		ps->text = p->full_text;
		ps->nparams = p->nparams;
		ps->params_cap = p->nparams > 8 ? p->nparams : 8;
		ps->param_types = ty_alloc0(sizeof(ty_oid) * (size_t)ps->params_cap);
		for (int i = 0; i < p->nparams; i++)
			ps->param_types[i] =
			    p->param_types[i]; /* 0: unspecified, TY_UNKNOWN once referenced */
		sql_actx ax = {s, s->cat, a, ps};
		cp->query = sql_analyze(&ax, p->raw);
		/* Parameter types are fixed by the first analysis. */
		if (!p->types_fixed) {
			p->nparams = ps->nparams;
			p->param_types = util_arena_memdup(p->arena, ps->param_types,
							   sizeof(ty_oid) * (size_t)(ps->nparams ? ps->nparams : 1));
			for (int i = 0; i < p->nparams; i++)
				if (p->param_types[i] == TY_UNKNOWN)
					p->param_types[i] = TY_TEXT; /* PostgreSQL resolves unknown $n to text */
			p->types_fixed = true;
		}
		analyzed = true;
		cp->planned = sql_plan_query(&ax, cp->query);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(old);
		sql_cached_plan_release(cp);
		if (defer && analyzed)
			return NULL;
		ty_errthrow();
	}
	TY_END(tc);
	ty_set_arena(old);
	return cp;
}

/* Records the result's shape of p's first plan; false if cp's differs
 * from it (PostgreSQL compares the result's tuple descriptors: column
 * count, names, types and typmods). */
static bool same_result(sql_prepared *p, const sql_cached_plan *cp)
{
	const sql_planned *pl = cp->planned;
	int n = pl->returns_rows ? pl->desc.ncols : 0;
	if (!p->res_known) {
		p->res_rows = pl->returns_rows;
		p->res_ncols = n;
		p->res_cols = util_arena_zalloc(p->arena, sizeof(sql_column) * (size_t)(n ? n : 1));
		if (!p->res_cols)
			return true; /* out of memory: no check rather than a false error */
		for (int i = 0; i < n; i++) {
			p->res_cols[i] = pl->desc.cols[i];
			p->res_cols[i].name =
			    util_arena_strdup(p->arena, pl->desc.cols[i].name ? pl->desc.cols[i].name : "");
		}
		p->res_known = true;
		return true;
	}
	if (p->res_rows != pl->returns_rows || p->res_ncols != n)
		return false;
	for (int i = 0; i < n; i++) {
		const sql_column *a = &p->res_cols[i], *b = &pl->desc.cols[i];
		if (a->type_oid != b->type_oid || a->typmod != b->typmod ||
		    strcmp(a->name, b->name ? b->name : ""))
			return false;
	}
	return true;
}

/* The prepared statement's plan, rebuilt if the catalog changed. */
static sql_cached_plan *plan_get(sql_session *s, sql_prepared *p)
{
	if (p->cp && p->cp->cat != s->cat) {
		sql_cached_plan_release(p->cp);
		p->cp = NULL;
	}
	if (!p->cp) {
		sql_cached_plan *cp = plan_build(s, p, false);
		if (p->res_track && !same_result(p, cp)) {
			sql_cached_plan_release(cp);
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cached plan must not change result type");
		}
		p->cp = cp;
	}
	p->cp->refs++;
	return p->cp;
}

sql_cached_plan *sql_prepared_plan(sql_session *s, sql_prepared *p) { return plan_get(s, p); }

/* ---------------------------------------------------------------- transactions */

/* The session's catalog snapshot: the DDL transaction's, or the current
 * one. remote (shared store): first pick up other servers' DDL, reading the
 * version at read_ts (a read point just taken; 0: take one). */
static void refresh_cat_at(sql_session *s, bool remote, kv_ts read_ts)
{
	cat_snap *cs;
	if (s->txn && s->txn->ddl) {
		cs = cat_txn_snap(s->txn->ddl);
		cat_snap_ref(cs);
	} else {
		util_err ce;
		util_err_clear(&ce);
		if (remote && cat_refresh(s->e->cat, read_ts, &ce) != 0)
			util_warn("could not refresh the catalog: %s", ce.message);
		/* Usually the session holds the current snapshot already: no
		 * lock, and no reference count bounced between cores. */
		if (s->cat && cat_is_current(s->e->cat, s->cat))
			return;
		cs = cat_current(s->e->cat);
	}
	if (s->cat)
		cat_snap_release(s->cat);
	s->cat = cs;
}

static void refresh_cat(sql_session *s)
{
	refresh_cat_at(s, true, 0);
}

void sql_stmt_ensure_txn(sql_session *s)
{
	if (!s->txn) {
		s->txn = sql_txn_begin(s, s->default_isolation, s->default_read_only, false);
		s->xact_start_us = util_now_us();
		s->tys.txn_timestamp = s->xact_start_us - 946684800000000LL;
	}
}

void sql_stmt_begin(sql_session *s)
{
	bool created = !s->txn;
	sql_stmt_ensure_txn(s);
	if (!created)
		s->txn->begin_pin = false; /* begun earlier: the statement takes its own snapshot */
	bool had_snapshot = s->txn->snapshot_taken;
	sql_txn_stmt_begin(s->txn);
	s->tys.stmt_timestamp = util_now_us() - 946684800000000LL;
	/* A snapshot this statement just took (READ COMMITTED, or the first of
	 * REPEATABLE READ) also serves the shared catalog's version check: one
	 * etcd read instead of two. */
	bool fresh = !s->as_of_ts && (s->txn->iso == SQL_READ_COMMITTED || !had_snapshot);
	refresh_cat_at(s, true, fresh ? s->txn->stmt_ts : 0);
}

/* After COMMIT/ROLLBACK: cursors without HOLD close, the catalog snapshot
 * moves on. */
void sql_stmt_end_txn(sql_session *s)
{
	size_t pos = 0;
	const void *k;
	size_t kl;
	void *v;
	/* Usually no cursor is open: keep the map as it is (the rebuild below
	 * cost an allocation per transaction). */
	bool any = false;
	while (s->ncursors && !any && util_map_next(&s->portals, &pos, NULL, NULL, &v))
		any = ((sql_portal_s *)v)->is_cursor && !((sql_portal_s *)v)->holdable;
	if (!any) {
		/* As below: no etcd reads here (a fresh read point and the
		 * version cell per transaction before). */
		refresh_cat_at(s, false, 0);
		return;
	}
	pos = 0;
	util_map keep = UTIL_MAP_INIT;
	while (util_map_next(&s->portals, &pos, &k, &kl, &v)) {
		sql_portal_s *p = v;
		if (p->is_cursor && !p->holdable)
			sql_portal_free(s, p);
		else
			util_map_put(&keep, k, kl, p);
	}
	util_map_free(&s->portals);
	s->portals = keep;
	/* This server's own DDL; other servers' is picked up where a statement
	 * starts (or Parse, Bind, Describe) — no etcd reads here. */
	refresh_cat_at(s, false, 0);
}

/* An error inside BEGIN ... : the work is discarded, the block stays open
 * in the failed state until ROLLBACK. */
void sql_stmt_fail_block(sql_session *s)
{
	/* With savepoints the work before them may still be kept (ROLLBACK TO). */
	if (s->txn && !s->txn->savepoints) {
		sql_txn_abort(s->txn);
		s->txn = NULL;
	}
	s->txn_state = SQL_TXN_FAILED;
	refresh_cat_at(s, false, 0);
}

static bool allowed_when_failed(pnode *n)
{
	if (n->node_case != PG_QUERY__NODE__NODE_TRANSACTION_STMT)
		return false;
	switch (n->transaction_stmt->kind) {
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_PREPARE:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_PREPARED:
		return true;
	default:
		return false;
	}
}

/* ---------------------------------------------------------------- prepared statements */

/* Drivers (and pgbench -M extended) Parse the same text into the unnamed
 * statement again and again. A per-session cache of those statements,
 * parsed and planned, skips the parse and the plan when nothing they
 * depend on changed: same text and parameter types, same settings (any
 * SET bumps guc_gen: search_path, role, DateStyle ...) and the catalog
 * they were planned against still current. */
#define PREP_CACHE_MAX 64

static void cache_key(sql_session *s, const char *query, int nparams, const uint32_t *param_types, util_buf *k)
{
	util_buf_puts(k, query);
	util_buf_putc(k, 0);
	for (int i = 0; i < nparams; i++)
		util_buf_put_be32(k, param_types ? param_types[i] : 0);
	util_buf_put_be64(k, s->guc_gen);
}

static sql_prepared *prepare_uncached(sql_session *s, const char *name, const char *query, int nparams,
				      const uint32_t *param_types, util_err *err);

/* Utility statements cached as well: BEGIN / START TRANSACTION / COMMIT /
 * END / ROLLBACK (pgbench -M extended's TPC-B sends two per transaction).
 * They depend on nothing in the catalog and run from the raw tree alone. */
static bool cacheable_utility(const sql_prepared *p)
{
	if (!p->raw || p->raw->node_case != PG_QUERY__NODE__NODE_TRANSACTION_STMT)
		return false;
	switch (p->raw->transaction_stmt->kind) {
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
	case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
		return true;
	default:
		return false;
	}
}

sql_prepared *sql_prepare(sql_session *s, const char *name, const char *query, int nparams,
			  const uint32_t *param_types, util_err *err)
{
	if (name[0] || s->txn_state == SQL_TXN_FAILED)
		return prepare_uncached(s, name, query, nparams, param_types, err);
	util_buf k = UTIL_BUF_INIT;
	cache_key(s, query, nparams, param_types, &k);
	sql_prepared *p = util_map_get(&s->prep_cache, k.data, k.len);
	/* Only while the very snapshot it was planned against is current (a
	 * version number could match a rolled-back transaction's snapshot; the
	 * cached plan holds its snapshot, so the pointer cannot be reused). */
	bool current = false;
	if (p && p->cp && !(s->txn && s->txn->ddl)) {
		cat_snap *cur = cat_current(s->e->cat);
		current = cur == p->cp->cat;
		cat_snap_release(cur);
	}
	if (p && p->is_utility) { /* cacheable_utility: no plan, no catalog */
		util_buf_free(&k);
		p->refs++;
		return p;
	}
	if (current) {
		util_buf_free(&k);
		sql_stmt_ensure_txn(s); /* as a fresh Parse does: Describe and Bind see the current catalog */
		refresh_cat(s);
		p->refs++;
		return p;
	}
	if (p) { /* planned against an older catalog */
		util_map_del(&s->prep_cache, k.data, k.len);
		sql_prepared_release(p);
	}
	p = prepare_uncached(s, name, query, nparams, param_types, err);
	if (p && (p->is_utility ? cacheable_utility(p) : p->cp != NULL) && !(s->txn && s->txn->ddl)) {
		if (util_map_count(&s->prep_cache) >= PREP_CACHE_MAX) {
			size_t pos = 0;
			void *v;
			while (util_map_next(&s->prep_cache, &pos, NULL, NULL, &v))
				sql_prepared_release(v);
			util_map_free(&s->prep_cache);
		}
		p->refs++;
		util_map_put(&s->prep_cache, k.data, k.len, p);
	}
	util_buf_free(&k);
	return p;
}

static sql_prepared *prepare_uncached(sql_session *s, const char *name, const char *query, int nparams,
				      const uint32_t *param_types, util_err *err)
{
	PgQuery__ParseResult *pr = sql_parse_text(query, err);
	if (!pr)
		return NULL;
	if (pr->n_stmts > 1) {
		pg_query__parse_result__free_unpacked(pr, NULL);
		util_err_set(err, UTIL_E_SYNTAX_ERROR, "cannot insert multiple commands into a prepared statement");
		return NULL;
	}
	sql_prepared *p = sql_prepare_tree(s, name, query, pr, nparams, param_types, err);
	if (!p)
		pg_query__parse_result__free_unpacked(pr, NULL);
	return p;
}

sql_prepared *sql_prepare_tree(sql_session *s, const char *name, const char *query, PgQuery__ParseResult *pr,
			       int nparams, const uint32_t *param_types, util_err *err)
{
	util_arena *a = util_arena_new(4096, 0);
	sql_prepared *p = util_arena_zalloc(a, sizeof *p);
	p->arena = a;
	p->refs = 1;
	p->name = util_arena_strdup(a, name);
	p->text = util_arena_strdup(a, query);
	p->prepare_time_us = util_now_us();
	p->full_text = p->text;
	p->raw = pr->n_stmts ? pr->stmts[0]->stmt : NULL;
	p->nparams = nparams;
	p->param_types = util_arena_zalloc(a, sizeof(ty_oid) * (size_t)(nparams ? nparams : 1));
	for (int i = 0; i < nparams; i++)
		p->param_types[i] = param_types ? param_types[i] : 0;
	p->is_utility = !p->raw || sql_stmt_is_utility(p->raw);
	if (s->txn_state == SQL_TXN_FAILED && p->raw && !allowed_when_failed(p->raw)) {
		util_err_set(err, UTIL_E_IN_FAILED_SQL_TRANSACTION,
			     "current transaction is aborted, commands ignored until end of transaction block");
		sql_prepared_release(p);
		return NULL;
	}
	if (!p->is_utility) {
		TY_TRY(tc)
		{
			sql_stmt_ensure_txn(s);
			refresh_cat(s);
			p->cp = plan_build(s, p, true);
			p->res_track = true;
			if (p->cp)
				same_result(p, p->cp);
		}
		TY_CATCH(tc)
		{
			TY_END(tc);
			memcpy(err, ty_err(), sizeof *err);
			sql_prepared_release(p);
			return NULL;
		}
		TY_END(tc);
	} else {
		/* Utility statements take no parameters; count $n anyway for Describe. */
		for (int i = 0; i < nparams; i++)
			if (!p->param_types[i])
				p->param_types[i] = TY_TEXT;
		p->types_fixed = true;
	}
	p->parse = pr; /* only now: on failure the caller keeps the tree */
	return p;
}

int sql_prepared_check_types(const sql_prepared *p, util_err *err)
{
	for (int i = 0; i < p->nparams; i++)
		if (p->param_types[i] == 0 || p->param_types[i] == TY_UNKNOWN)
			return util_err_set(err, UTIL_E_INDETERMINATE_DATATYPE,
					    "could not determine data type of parameter $%d", i + 1);
	return 0;
}

void sql_prepared_release(sql_prepared *p)
{
	if (!p || --p->refs > 0)
		return;
	sql_cached_plan_release(p->cp);
	if (p->parse)
		pg_query__parse_result__free_unpacked(p->parse, NULL);
	util_arena_destroy(p->arena);
}

/* Row description of what a utility statement returns (SHOW, EXPLAIN, FETCH). */
static int utility_desc(sql_session *s, pnode *raw, sql_rowdesc *desc, bool *returns_rows, util_arena *a);

static void fill_desc(sql_planned *pl, const int16_t *formats, int nformats, sql_rowdesc *desc, util_arena *a)
{
	if (!formats || nformats == 0) {
		*desc = pl->desc;
		return;
	}
	sql_column *cols = util_arena_memdup(a, pl->cols, sizeof *cols * (size_t)(pl->desc.ncols ? pl->desc.ncols : 1));
	for (int i = 0; i < pl->desc.ncols; i++)
		cols[i].format = nformats == 1 ? formats[0] : i < nformats ? formats[i] : 0;
	desc->ncols = pl->desc.ncols;
	desc->cols = cols;
}

int sql_prepared_describe(sql_session *s, sql_prepared *p, sql_rowdesc *desc, bool *returns_rows,
			  const int16_t *formats, int nformats, util_err *err)
{
	memset(desc, 0, sizeof *desc);
	*returns_rows = false;
	if (!p->raw)
		return 0;
	volatile int rc = 0;
	TY_TRY(tc)
	{
		if (p->is_utility) {
			utility_desc(s, p->raw, desc, returns_rows, s->stmt_arena);
		} else {
			refresh_cat(s);
			sql_cached_plan *cp = plan_get(s, p);
			*returns_rows = cp->planned->returns_rows;
			if (*returns_rows)
				fill_desc(cp->planned, formats, nformats, desc, s->stmt_arena);
			sql_cached_plan_release(cp);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(err, ty_err(), sizeof *err);
		rc = -1;
	}
	TY_END(tc);
	return rc;
}

/* ---------------------------------------------------------------- portals */

static ty_datum convert_param(ty_oid type, int16_t format, const uint8_t *v, int32_t len)
{
	if (type == 0 || type == TY_UNKNOWN)
		type = TY_TEXT;
	const ty_type *t = ty_type_get(type);
	if (!t)
		ty_error(UTIL_E_UNDEFINED_OBJECT, "type with OID %u does not exist", type);
	if (format == 1) {
		if (!t->recv)
			ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary input function available for type %s", t->name);
		return t->recv(v, (size_t)len, -1);
	}
	if (memchr(v, 0, (size_t)len))
		ty_error(UTIL_E_CHARACTER_NOT_IN_REPERTOIRE, "invalid byte sequence for encoding \"UTF8\": 0x00");
	return ty_input(type, (const char *)v, (size_t)len, -1);
}

/* Converts a Bind parameter; errors get PostgreSQL's CONTEXT line (the
 * value only for text parameters). */
static ty_datum param_value(const char *portal, ty_oid type, int16_t format, const uint8_t *v, int32_t len,
			    int idx)
{
	ty_datum d = ty_null();
	TY_TRY(tc)
	{
		/* Checked for NULLs too, as PostgreSQL. */
		if (format != 0 && format != 1)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unsupported format code: %d", format);
		if (v)
			d = convert_param(type, format, v, len);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		/* A value longer than its type's binary form: the caller's error in
		 * PostgreSQL, which names the parameter (COPY's is the type's). */
		util_err *e = ty_err();
		bool fastpath = !strcmp(portal, SQL_FASTPATH_NAME);
		if (e->code == UTIL_E_INVALID_BINARY_REPRESENTATION && !strcmp(e->message, "incorrect binary data format"))
			snprintf(e->message, sizeof e->message, "incorrect binary data format in %s %d",
				 fastpath ? "function argument" : "bind parameter", idx + 1);
		if (fastpath) /* (PostgreSQL's fastpath names no portal) */
			ty_errthrow();
		char who[128];
		if (*portal)
			snprintf(who, sizeof who, "portal \"%.64s\" parameter $%d", portal, idx + 1);
		else
			snprintf(who, sizeof who, "unnamed portal parameter $%d", idx + 1);
		if (format != 0 || !v)
			util_err_context(ty_err(), "%s", who);
		else
			util_err_context(ty_err(), "%s = '%.*s'", who, len > 200 ? 200 : len,
					 (const char *)v);
		ty_errthrow();
	}
	TY_END(tc);
	return d;
}

sql_portal_s *sql_portal_create(sql_session *s, const char *name, sql_prepared *p, const sql_bind_params *bp,
				util_err *err)
{
	if (s->txn_state == SQL_TXN_FAILED && p->raw && !allowed_when_failed(p->raw)) {
		util_err_set(err, UTIL_E_IN_FAILED_SQL_TRANSACTION,
			     "current transaction is aborted, commands ignored until end of transaction block");
		return NULL;
	}
	if (bp->nparams != p->nparams) {
		util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
			     "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", bp->nparams,
			     p->name, p->nparams);
		return NULL;
	}
	if (bp->nformats > 1 && bp->nformats != bp->nparams) {
		util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "bind message has %d parameter formats but %d parameters",
			     bp->nformats, bp->nparams);
		return NULL;
	}
	/* One format per column, or one for all (PortalSetResultFormat). */
	if (bp->nresult_formats > 1 && !p->is_utility && p->cp && p->cp->planned->returns_rows &&
	    bp->nresult_formats != p->cp->planned->desc.ncols) {
		util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
			     "bind message has %d result formats but query has %d columns",
			     bp->nresult_formats, p->cp->planned->desc.ncols);
		return NULL;
	}
	util_arena *a = s->spare_portal_arena; /* see sql_portal_free */
	s->spare_portal_arena = NULL;
	if (!a)
		a = util_arena_new(8192, 0);
	sql_portal_s *po = util_arena_zalloc(a, sizeof *po);
	po->arena = a;
	po->name = util_arena_strdup(a, name);
	po->stmt = p;
	p->refs++;
	po->owns_stmt = true;
	po->nparams = bp->nparams;
	util_arena *old = ty_set_arena(a);
	volatile int rc = 0;
	TY_TRY(tc)
	{
		po->params = ty_alloc0(sizeof(ty_datum) * (size_t)(bp->nparams ? bp->nparams : 1));
		for (int i = 0; i < bp->nparams; i++) {
			int16_t f = bp->nformats == 0 ? 0 : bp->nformats == 1 ? bp->formats[0] : bp->formats[i];
			po->params[i] =
			    param_value(name, p->param_types[i], f, bp->values[i], bp->lengths[i], i);
		}
		po->nresult_formats = bp->nresult_formats;
		if (bp->nresult_formats)
			po->result_formats = util_arena_memdup(a, bp->result_formats,
							       sizeof(int16_t) * (size_t)bp->nresult_formats);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(err, ty_err(), sizeof *err);
		rc = -1;
	}
	TY_END(tc);
	ty_set_arena(old);
	if (rc != 0) {
		sql_portal_free(s, po);
		return NULL;
	}
	return po;
}

/* The command tag, "SELECT 1" (no snprintf: one per statement). */
static void make_tag(sql_planned *pl, uint64_t n, char *tag, size_t cap)
{
	const char *w;
	switch (pl->cmd) {
	case SQL_CMD_INSERT:
		w = "INSERT 0 ";
		break;
	case SQL_CMD_UPDATE:
		w = "UPDATE ";
		break;
	case SQL_CMD_DELETE:
		w = "DELETE ";
		break;
	default:
		w = "SELECT ";
		break;
	}
	char digits[24];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + n % 10);
		n /= 10;
	} while (n);
	size_t wl = strlen(w);
	UTIL_ASSERT(wl + (size_t)nd < cap, "command tag fits");
	memcpy(tag, w, wl);
	for (int i = 0; i < nd; i++)
		tag[wl + (size_t)i] = digits[nd - 1 - i];
	tag[wl + (size_t)nd] = '\0';
}

/* Per-column output formats of a portal. */
static const int16_t *portal_formats(sql_portal_s *po, int ncols)
{
	if (po->nresult_formats == 0)
		return NULL;
	int16_t *f = util_arena_alloc(po->arena, sizeof(int16_t) * (size_t)(ncols ? ncols : 1));
	for (int i = 0; i < ncols; i++)
		f[i] = po->nresult_formats == 1 ? po->result_formats[0]
					       : i < po->nresult_formats ? po->result_formats[i] : 0;
	return f;
}

/* PostgreSQL's command name of a SELECT with a locking clause. */
static const char *lock_command(int strength)
{
	switch (strength) {
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE:
		return "SELECT FOR KEY SHARE";
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE:
		return "SELECT FOR SHARE";
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE:
		return "SELECT FOR NO KEY UPDATE";
	default:
		return "SELECT FOR UPDATE";
	}
}

/* Runs a portal whose plan is a point read (sql_point_of) to completion. */
static void run_point(sql_session *s, sql_portal_s *po, const sql_point *pt, sql_dest *dest, bool send_desc,
		      sql_complete *c)
{
	sql_planned *pl = po->cp->planned;
	/* Privileges and relation locks first, as the executor's path: no
	 * RowDescription before a permission error. */
	sql_exec_check_cached(s, po->cp);
	util_arena *old = ty_set_arena(po->arena);
	po->formats = portal_formats(po, pl->desc.ncols);
	ty_set_arena(old);
	if (send_desc && dest->startup) {
		sql_rowdesc d;
		fill_desc(pl, po->formats, po->formats ? pl->desc.ncols : 0, &d, s->stmt_arena);
		dest->startup(dest->arg, &d);
	}
	old = ty_set_arena(po->arena);
	ty_datum *row = sql_point_read(s, pt, po->params, po->nparams);
	if (row) {
		util_buf *rb = &s->rowbuf;
		sql_format_row(s, row, pl->desc.ncols, pl->plan->types, po->formats, rb);
		if (dest->row(dest->arg, (const uint8_t *)rb->data, rb->len, pl->desc.ncols) != 0)
			ty_error(UTIL_E_CONNECTION_FAILURE, "connection to client lost");
		po->nsent++;
	}
	ty_set_arena(old);
	memset(c, 0, sizeof *c);
	make_tag(pl, po->nsent, c->tag, sizeof c->tag);
	po->done = true;
	po->exhausted = true;
	sql_cached_plan_release(po->cp);
	po->cp = NULL;
}

/* Runs (or resumes) a portal: sends up to max_rows rows (0 = all). */
void sql_portal_run(sql_session *s, sql_portal_s *po, sql_dest *dest, int64_t max_rows, bool send_desc,
		    sql_complete *c)
{
	if (!po->ex) {
		po->cp = plan_get(s, po->stmt);
		sql_planned *pl = po->cp->planned;
		if (s->txn->read_only && pl->cmd != SQL_CMD_SELECT)
			ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute %s in a read-only transaction",
				 pl->cmd == SQL_CMD_INSERT ? "INSERT" : pl->cmd == SQL_CMD_UPDATE ? "UPDATE" : "DELETE");
		if (s->txn->read_only && pl->lock_strength)
			ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute %s in a read-only transaction",
				 lock_command(pl->lock_strength));
		/* A primary-key point select: one kv_get, no executor
		 * (exec_point.c). Row limits keep to the executor's path. */
		const sql_point *pt = max_rows <= 0 ? sql_point_of(s, po->cp) : NULL;
		if (pt) {
			run_point(s, po, pt, dest, send_desc, c);
			return;
		}
		util_arena *old = ty_set_arena(po->arena);
		po->ex = sql_exec_new_cached(s, po->cp, po->arena, po->params, po->nparams);
		po->root = sql_exec_node(po->ex, pl->plan);
		po->formats = portal_formats(po, pl->desc.ncols);
		ty_set_arena(old);
		if (send_desc && pl->returns_rows && dest->startup) {
			sql_rowdesc d;
			fill_desc(pl, po->formats, po->formats ? pl->desc.ncols : 0, &d, s->stmt_arena);
			dest->startup(dest->arg, &d);
		}
	}
	sql_planned *pl = po->cp->planned;
	int64_t sent = 0;
	bool suspended = false;
	util_buf *rb = &s->rowbuf;
	while (!po->done) {
		if (!po->pending || po->pending_pos >= po->pending->n) {
			util_arena *old = ty_set_arena(po->arena);
			po->pending = sql_op_next(po->root);
			ty_set_arena(old);
			po->pending_pos = 0;
			if (po->pending->n == 0) {
				po->done = true;
				break;
			}
		}
		if (max_rows > 0 && sent >= max_rows) {
			suspended = true;
			break;
		}
		sql_batch *b = po->pending;
		if (pl->returns_rows) {
			ty_datum *row = sql_batch_row(b, po->pending_pos);
			sql_format_row(s, row, pl->desc.ncols, pl->plan->types, po->formats, rb);
			if (dest->row(dest->arg, (const uint8_t *)rb->data, rb->len, pl->desc.ncols) != 0)
				ty_error(UTIL_E_CONNECTION_FAILURE, "connection to client lost");
			po->nsent++;
			sent++;
		}
		po->pending_pos++;
	}
	memset(c, 0, sizeof *c);
	if (suspended) {
		c->suspended = true;
		return;
	}
	uint64_t n = pl->cmd == SQL_CMD_SELECT ? po->nsent : po->ex->processed;
	make_tag(pl, n, c->tag, sizeof c->tag);
	/* Finished: release execution state now (locks on iterators etc.). */
	util_arena *old = ty_set_arena(po->arena);
	sql_exec_close(po->ex);
	ty_set_arena(old);
	po->ex = NULL;
	po->root = NULL;
	po->pending = NULL;
	po->exhausted = true;
	sql_cached_plan_release(po->cp);
	po->cp = NULL;
}

/* ---------------------------------------------------------------- the statement boundary */

static void run(sql_session *s, sql_prepared *ps, sql_portal_s *portal, sql_dest *dest, int64_t max_rows,
		sql_complete *c)
{
	if (s->txn_state == SQL_TXN_FAILED && !allowed_when_failed(ps->raw))
		ty_error(UTIL_E_IN_FAILED_SQL_TRANSACTION,
			 "current transaction is aborted, commands ignored until end of transaction block");
	if (!portal || !portal->ex)
		s->deadline_us = s->statement_timeout_ms > 0 ? util_mono_us() + s->statement_timeout_ms * 1000 : 0;
	if (ps->is_utility) {
		if (portal && portal->exhausted) {
			snprintf(c->tag, sizeof c->tag, "%s", portal->tag);
			return;
		}
		/* Execute of a portal never sends RowDescription (Describe does),
		 * for utility statements returning rows (FETCH, SHOW) too. */
		sql_dest d = *dest;
		if (portal)
			d.startup = NULL;
		sql_exec_utility(s, ps, &d, c);
		if (portal) {
			portal->exhausted = true;
			snprintf(portal->tag, sizeof portal->tag, "%s", c->tag);
		}
		return;
	}
	if (portal && portal->exhausted) {
		/* Executing a completed portal again returns no rows (PostgreSQL). */
		snprintf(c->tag, sizeof c->tag, "%s 0", portal->stmt->cp && portal->stmt->cp->planned->cmd != SQL_CMD_SELECT ? "SELECT" : "SELECT");
		return;
	}
	if (!portal || !portal->ex)
		sql_stmt_begin(s);
	if (portal) {
		sql_portal_run(s, portal, dest, max_rows, false, c);
		return;
	}
	/* Simple query: a transient portal in the statement arena. */
	sql_prepared *p = ps;
	p->refs = 2; /* never freed through release: it lives on the caller's stack */
	sql_portal_s *po = ty_alloc0(sizeof *po);
	po->arena = s->stmt_arena;
	po->stmt = p;
	po->params = p->lit_params; /* constants of a literal-cache hit (litcache.c) */
	po->nparams = p->nlit_params;
	TY_TRY(tc)
	{
		sql_portal_run(s, po, dest, 0, true, c);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (po->ex) {
			util_err saved;
			memcpy(&saved, ty_err(), sizeof saved);
			util_err ignore;
			ty_protect((void (*)(void *))sql_exec_close, po->ex, &ignore);
			memcpy(ty_err(), &saved, sizeof saved);
		}
		if (po->cp)
			sql_cached_plan_release(po->cp);
		sql_cached_plan_release(p->cp);
		p->cp = NULL;
		ty_errthrow();
	}
	TY_END(tc);
	sql_cached_plan_release(p->cp);
	p->cp = NULL;
}

int sql_stmt_run(sql_session *s, sql_prepared *ps, sql_portal_s *portal, sql_dest *dest, int64_t max_rows,
		 sql_complete *c, util_err *err)
{
	memset(c, 0, sizeof *c);
	if (!ps->raw) {
		c->empty = true;
		return 0;
	}
	int64_t start_us = util_now_us();
	TY_TRY(tc)
	{
		run(s, ps, portal, dest, max_rows, c);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(err, ty_err(), sizeof *err);
		sql_ops_stmt_done(s, ps->text, c, start_us, err);
		if (portal && portal->ex) {
			util_err ignore;
			ty_protect((void (*)(void *))sql_exec_close, portal->ex, &ignore);
			portal->ex = NULL;
			portal->exhausted = true;
		}
		if (s->txn_state == SQL_TXN_BLOCK)
			sql_stmt_fail_block(s);
		else if (s->txn_state == SQL_TXN_IDLE && s->txn && !s->implicit_block) {
			/* Caller (simple query end / Sync) aborts the implicit transaction. */
		}
		s->deadline_us = 0;
		return -1;
	}
	TY_END(tc);
	s->deadline_us = 0;
	sql_ops_stmt_done(s, ps->text, c, start_us, NULL);
	return 0;
}

/* ---------------------------------------------------------------- utility descriptions */

static int utility_desc(sql_session *s, pnode *raw, sql_rowdesc *desc, bool *returns_rows, util_arena *a)
{
	*returns_rows = false;
	memset(desc, 0, sizeof *desc);
	const char *one = NULL;
	switch (raw->node_case) {
	case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT: {
		const char *name = raw->variable_show_stmt->name;
		if (!util_strcasecmp(name, "all")) {
			sql_column *cols = util_arena_zalloc(a, sizeof *cols * 3);
			const char *names[3] = {"name", "setting", "description"};
			for (int i = 0; i < 3; i++) {
				cols[i].name = names[i];
				cols[i].type_oid = TY_TEXT;
				cols[i].type_len = -1;
				cols[i].typmod = -1;
			}
			desc->ncols = 3;
			desc->cols = cols;
			*returns_rows = true;
			return 0;
		}
		const sql_guc *g = sql_guc_find(name);
		one = g ? g->name : name;
		if (!util_strcasecmp(name, "time zone") || !util_strcasecmp(name, "timezone"))
			one = "TimeZone";
		else if (!util_strcasecmp(name, "transaction_isolation"))
			one = "transaction_isolation";
		break;
	}
	case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
		one = "QUERY PLAN";
		break;
	case PG_QUERY__NODE__NODE_FETCH_STMT: {
		sql_portal_s *p = util_map_gets(&s->portals, raw->fetch_stmt->portalname);
		/* The cursor's own plan: its statement may have been the unnamed
		 * one, replaced by the Parse of this FETCH. */
		if (p && !raw->fetch_stmt->ismove && p->cp) {
			*desc = p->cp->planned->desc;
			*returns_rows = true;
		} else if (p && !raw->fetch_stmt->ismove && p->cols) {
			*desc = p->desc;
			*returns_rows = true;
		}
		return 0;
	}
	case PG_QUERY__NODE__NODE_EXECUTE_STMT: {
		sql_prepared *p = util_map_gets(&s->prepared, raw->execute_stmt->name);
		if (p && !p->is_utility && p->cp) {
			*returns_rows = p->cp->planned->returns_rows;
			*desc = p->cp->planned->desc;
		}
		return 0;
	}
	default:
		return 0;
	}
	sql_column *col = util_arena_zalloc(a, sizeof *col);
	col->name = util_arena_strdup(a, one);
	col->type_oid = TY_TEXT;
	col->type_len = -1;
	col->typmod = -1;
	desc->ncols = 1;
	desc->cols = col;
	*returns_rows = true;
	return 0;
}
