/*
 * session.c — a client session: startup settings, the simple query
 * protocol with PostgreSQL's implicit-transaction rules, and the extended
 * protocol's prepared statements and portals (Parse/Bind/Describe/
 * Execute/Close/Sync).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sql_int.h"

static _Thread_local sql_session *cur_session;

sql_session *sql_current_session(void) { return cur_session; }

void sql_check_interrupts(sql_session *s)
{
	if (!s)
		return;
	if (atomic_load_explicit(&s->cancel, memory_order_relaxed)) {
		atomic_store(&s->cancel, false);
		if (atomic_load(&s->terminate)) { /* pg_terminate_backend: the wire closes on FATAL */
			ty_errstart(UTIL_E_ADMIN_SHUTDOWN, "terminating connection due to administrator command")->severity =
			    UTIL_SEV_FATAL;
			ty_errthrow();
		}
		ty_error(UTIL_E_QUERY_CANCELED, "canceling statement due to user request");
	}
	if (s->deadline_us && util_mono_us() >= s->deadline_us) {
		s->deadline_us = 0;
		ty_error(UTIL_E_QUERY_CANCELED, "canceling statement due to statement timeout");
	}
}

static void interrupt_hook(void) { sql_check_interrupts(cur_session); }

/* Binds the session to the calling thread for the duration of a call. */
static void enter(sql_session *s)
{
	cur_session = s;
	ty_set_settings(&s->tys);
	ty_set_arena(s->stmt_arena);
	ty_set_interrupt_hook(interrupt_hook);
}

void sql_session_enter_thread(sql_session *s)
{
	cur_session = s;
	ty_set_settings(&s->tys);
	ty_set_interrupt_hook(interrupt_hook);
}

static void leave(sql_session *s)
{
	(void)s;
	ty_set_arena(NULL);
}

/* ---------------------------------------------------------------- open / close */

int sql_session_open(sql_engine *e, const sql_startup *st, const sql_client *cl, sql_session **out,
		     util_err *err)
{
	sql_session *s = util_xcalloc(1, sizeof *s);
	s->e = e;
	s->client = *cl;
	s->pid = atomic_fetch_add(&e->next_pid, 1);
	util_random_bytes(&s->secret, sizeof s->secret);
	s->arena = util_arena_new(16 * 1024, 0);
	s->stmt_arena = util_arena_new(64 * 1024, 0);
	pthread_mutex_init(&s->mu, NULL);
	atomic_init(&s->cancel, false);
	ty_settings_default(&s->tys);
	snprintf(s->user, sizeof s->user, "%s", st->user ? st->user : "");
	snprintf(s->database, sizeof s->database, "%s", st->database && *st->database ? st->database : s->user);
	snprintf(s->state_desc, sizeof s->state_desc, "idle");
	s->backend_start_us = util_now_us();

	cat_snap *cs = cat_current(e->cat);
	const cat_obj *role = cat_role_by_name(cs, s->user);
	const cat_obj *db = cat_database_by_name(cs, s->database);
	if (!role) {
		cat_snap_release(cs);
		util_err_set(err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION, "role \"%s\" does not exist", s->user);
		err->severity = UTIL_SEV_FATAL;
		goto fail;
	}
	if (!db) {
		cat_snap_release(cs);
		util_err_set(err, UTIL_E_INVALID_CATALOG_NAME, "database \"%s\" does not exist", s->database);
		err->severity = UTIL_SEV_FATAL;
		goto fail;
	}
	if (!db->db.allow_connections) {
		cat_snap_release(cs);
		util_err_set(err, UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "database \"%s\" is not currently accepting connections",
			     s->database);
		err->severity = UTIL_SEV_FATAL;
		goto fail;
	}
	if (!role->role.login) {
		cat_snap_release(cs);
		util_err_set(err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION, "role \"%s\" is not permitted to log in",
			     s->user);
		err->severity = UTIL_SEV_FATAL;
		goto fail;
	}
	s->user_oid = role->oid;
	s->db_oid = db->oid;
	s->superuser = role->role.superuser;
	s->auth_user_oid = s->session_user_oid = role->oid;
	snprintf(s->session_user, sizeof s->session_user, "%s", s->user);
	cat_snap_release(cs);

	enter(s);
	sql_guc_init_session(s);
	sql_ops_session_open(s);
	for (int i = 0; i < st->nparams; i++) {
		const char *n = st->names[i];
		if (!strcmp(n, "user") || !strcmp(n, "database") || !strcmp(n, "replication") || !strcmp(n, "options"))
			continue;
		if (sql_guc_set_startup(s, n, st->values[i], err) != 0) {
			err->severity = UTIL_SEV_FATAL;
			leave(s);
			sql_guc_free_session(s);
			goto fail;
		}
	}
	leave(s);
	sql_engine_add_session(e, s);
	*out = s;
	return 0;
fail:
	sql_guc_free_session(s); /* safe before sql_guc_init_session too */
	util_arena_destroy(s->arena);
	util_arena_destroy(s->stmt_arena);
	pthread_mutex_destroy(&s->mu);
	free(s);
	return -1;
}

void sql_portal_free(sql_session *s, sql_portal_s *p)
{
	if (!p)
		return;
	if (p->is_cursor && s)
		s->ncursors--;
	if (p->ex) {
		util_arena *old = ty_set_arena(p->arena);
		util_err e;
		sql_exec *ex = p->ex;
		p->ex = NULL;
		ty_protect((void (*)(void *))sql_exec_close, ex, &e);
		ty_set_arena(old);
	}
	sql_cached_plan_release(p->cp);
	if (p->owns_stmt)
		sql_prepared_release(p->stmt);
	util_arena_destroy(p->mat_arena);
	/* Keep one portal arena for the next Bind: an 8 KiB malloc and free per
	 * execution otherwise (glibc consolidates its fast bins on each). */
	if (s && !s->spare_portal_arena && p->arena != s->stmt_arena) {
		util_arena_reset(p->arena);
		s->spare_portal_arena = p->arena;
		return;
	}
	util_arena_destroy(p->arena);
}

/* A portal by name; the unnamed one ("") is kept outside the map. */
static sql_portal_s *portal_find(sql_session *s, const char *name)
{
	return *name ? util_map_gets(&s->portals, name) : s->unnamed_portal;
}

/* Removes the portal from the session; the caller frees it. */
static sql_portal_s *portal_take(sql_session *s, const char *name)
{
	if (*name)
		return util_map_del(&s->portals, name, strlen(name));
	sql_portal_s *p = s->unnamed_portal;
	s->unnamed_portal = NULL;
	return p;
}

static void drop_all_portals(sql_session *s, bool keep_holdable)
{
	sql_portal_free(s, portal_take(s, "")); /* never a cursor */
	size_t pos = 0;
	const void *k;
	size_t kl;
	void *v;
	util_map keep = UTIL_MAP_INIT;
	while (util_map_next(&s->portals, &pos, &k, &kl, &v)) {
		sql_portal_s *p = v;
		if (keep_holdable && p->holdable && !p->ex)
			util_map_put(&keep, k, kl, p);
		else
			sql_portal_free(s, p);
	}
	util_map_free(&s->portals);
	s->portals = keep;
}

void sql_session_close(sql_session *s)
{
	if (!s)
		return;
	enter(s);
	if (s->txn) {
		sql_txn_abort(s->txn);
		s->txn = NULL;
	}
	sql_temp_session_end(s); /* temporary tables go with the session */
	drop_all_portals(s, false);
	size_t pos = 0;
	void *v;
	while (util_map_next(&s->prepared, &pos, NULL, NULL, &v))
		sql_prepared_release(v);
	util_map_free(&s->prepared);
	pos = 0;
	while (util_map_next(&s->prep_cache, &pos, NULL, NULL, &v))
		sql_prepared_release(v);
	util_map_free(&s->prep_cache);
	sql_litcache_free(s);
	util_map_free(&s->portals);
	util_arena_destroy(s->spare_portal_arena);
	s->spare_portal_arena = NULL;
	leave(s);
	sql_engine_remove_session(s->e, s);
	if (s->cat)
		cat_snap_release(s->cat);
	sql_guc_free_session(s);
	pos = 0;
	while (util_map_next(&s->seq_currval, &pos, NULL, NULL, &v))
		free(v);
	util_map_free(&s->seq_currval);
	util_buf_free(&s->rowbuf);
	free(s->current_query);
	util_arena_destroy(s->arena);
	util_arena_destroy(s->stmt_arena);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

void sql_session_report_params(sql_session *s, void (*fn)(void *arg, const char *name, const char *value),
			       void *arg)
{
	sql_guc_report_all(s, fn, arg);
}

int32_t sql_session_pid(sql_session *s) { return s->pid; }
int32_t sql_session_secret(sql_session *s) { return s->secret; }

bool sql_session_terminating(sql_session *s) { return atomic_load(&s->terminate); }

char sql_session_txn_status(sql_session *s)
{
	switch (s->txn_state) {
	case SQL_TXN_BLOCK: return 'T';
	case SQL_TXN_FAILED: return 'E';
	default: return 'I';
	}
}

int64_t sql_session_idle_in_txn_timeout(sql_session *s) { return s->idle_in_txn_timeout_ms; }
int64_t sql_session_idle_timeout(sql_session *s) { return s->idle_timeout_ms; }

static void set_activity(sql_session *s, const char *state, const char *query)
{
	pthread_mutex_lock(&s->mu);
	size_t sl = strlen(state); /* a plain copy: snprintf was 2% of a point read */
	if (sl >= sizeof s->state_desc)
		sl = sizeof s->state_desc - 1;
	memcpy(s->state_desc, state, sl);
	s->state_desc[sl] = '\0';
	if (query) {
		/* Executions of a prepared statement repeat the same text: no copy. */
		if (!s->current_query || strcmp(s->current_query, query) != 0) {
			free(s->current_query);
			s->current_query = util_xstrdup(query);
		}
		s->query_start_us = util_now_us();
	}
	pthread_mutex_unlock(&s->mu);
}

/* ---------------------------------------------------------------- implicit transactions */

/* Ends the implicit transaction at the end of a simple Query or at Sync:
 * commit unless an explicit block is open (or failed). */
static int finish_implicit(sql_session *s, util_err *err)
{
	if (s->txn_state != SQL_TXN_IDLE || !s->txn)
		return 0;
	if (ty_protect((void (*)(void *))sql_cursors_at_commit, s, err) != 0) {
		sql_txn_abort(s->txn);
		s->txn = NULL;
		sql_guc_end_txn(s, false);
		sql_stmt_end_txn(s);
		return -1;
	}
	sql_txn *t = s->txn;
	s->txn = NULL;
	int rc = sql_txn_commit(t, err);
	sql_guc_end_txn(s, rc == 0);
	sql_stmt_end_txn(s);
	return rc;
}

/* Once no transaction is open (Sync or a simple query ended the implicit one,
 * or COMMIT/ROLLBACK ran), the portals of that transaction are gone, as in
 * PostgreSQL: a later Execute of one is 34000. Only cursors WITH HOLD stay.
 * Called where no portal is running. */
static void drop_txn_portals(sql_session *s)
{
	if (s->txn_state != SQL_TXN_IDLE || s->implicit_block)
		return;
	/* The extended protocol's usual case, the unnamed portal alone: no map
	 * to walk or rebuild. */
	sql_portal_free(s, portal_take(s, ""));
	if (util_map_count(&s->portals) == 0)
		return;
	size_t pos = 0;
	const void *k;
	size_t kl;
	void *v;
	util_map keep = UTIL_MAP_INIT;
	while (util_map_next(&s->portals, &pos, &k, &kl, &v)) {
		sql_portal_s *p = v;
		if (p->is_cursor && p->holdable)
			util_map_put(&keep, k, kl, p);
		else
			sql_portal_free(s, p);
	}
	util_map_free(&s->portals);
	s->portals = keep;
}

static void abort_implicit(sql_session *s)
{
	if (s->txn_state == SQL_TXN_IDLE && s->txn) {
		sql_txn_abort(s->txn);
		s->txn = NULL;
		sql_guc_end_txn(s, false);
		sql_stmt_end_txn(s);
	}
}

/* ---------------------------------------------------------------- simple query */

static size_t stmt_text(const char *query, PgQuery__RawStmt *rs, char **out)
{
	size_t qlen = strlen(query);
	size_t start = (size_t)rs->stmt_location, len = rs->stmt_len ? (size_t)rs->stmt_len : qlen - start;
	if (start > qlen)
		start = qlen;
	if (start + len > qlen)
		len = qlen - start;
	*out = ty_strndup(query + start, len);
	return start;
}

/* ---------------------------------------------------------------- autocommit retries */

/* On a store shared by several servers a READ COMMITTED commit fails with
 * 40001 when another server changed a row it wrote after the version the
 * change was based on (row locks are per server; txn.c). A single
 * autocommit statement of that kind runs again at a new snapshot, as
 * PostgreSQL's READ COMMITTED waits for the other writer and re-reads,
 * provided nothing of it reached the client yet (no rows).
 *
 * The number of reruns is not limited: PostgreSQL's writer waits as long
 * as it takes, and a count was exhausted by starvation (a server whose
 * sessions hand the row to each other locally commits back to back, and
 * a lone session on another server, which learns of each loss a few round
 * trips late, lost 32 times in a row: docs/scale-out.md). Reruns end at a
 * cancel request or the statement timeout (counted from the first run,
 * 57014), and after AUTOCOMMIT_RETRY_S seconds of conflicts, a guard
 * against a conflict that never clears (the 40001 then stands). */
#define AUTOCOMMIT_RETRY_S 60

static void check_interrupts(void *s)
{
	sql_check_interrupts(s);
}

/* May a statement whose first run started at start_us (util_mono_us) run
 * again after a conflict? On a cancel or timeout, *err says so. */
static bool rerun_allowed(sql_session *s, int64_t start_us, util_err *err)
{
	s->deadline_us = s->statement_timeout_ms > 0 ? start_us + s->statement_timeout_ms * 1000 : 0;
	util_err e;
	util_err_clear(&e);
	int rc = ty_protect(check_interrupts, s, &e);
	s->deadline_us = 0;
	if (rc != 0) {
		*err = e;
		return false;
	}
	return util_mono_us() - start_us < AUTOCOMMIT_RETRY_S * 1000000LL;
}

typedef struct watch_dest {
	sql_dest d;
	sql_dest *inner;
	bool sent; /* a RowDescription or row went to the client */
} watch_dest;

static int wd_startup(void *arg, const sql_rowdesc *desc)
{
	watch_dest *w = arg;
	w->sent = true;
	return w->inner->startup ? w->inner->startup(w->inner->arg, desc) : 0;
}

static int wd_row(void *arg, const uint8_t *data, size_t len, int ncols)
{
	watch_dest *w = arg;
	w->sent = true;
	return w->inner->row ? w->inner->row(w->inner->arg, data, len, ncols) : 0;
}

static void watch_init(watch_dest *w, sql_dest *inner)
{
	w->inner = inner;
	w->sent = false;
	w->d.arg = w;
	w->d.startup = wd_startup;
	w->d.row = wd_row;
}

/* What reruns allocate in the statement's arenas (executor state) is freed
 * before the next rerun: memory stays that of one run however many there
 * are. Marked after the first run, whose lazily made parts stay. */
typedef struct rerun_mem {
	util_arena *a[2];
	util_arena_pos at[2];
	int n;
} rerun_mem;

static void rerun_mem_mark(rerun_mem *m, util_arena *a, util_arena *b)
{
	m->n = 0;
	m->a[m->n] = a;
	m->at[m->n++] = util_arena_mark(a);
	if (b && b != a) {
		m->a[m->n] = b;
		m->at[m->n++] = util_arena_mark(b);
	}
}

static void rerun_mem_rewind(rerun_mem *m)
{
	for (int i = 0; i < m->n; i++)
		util_arena_rewind(m->a[i], &m->at[i]);
}

/* Runs one statement and the commit of its implicit transaction; retries
 * as above when the commit fails on a READ COMMITTED write conflict. */
static int run_autocommit(sql_session *s, sql_prepared *ps, sql_dest *dest, bool last, sql_complete *c,
			  util_err *err)
{
	watch_dest w;
	watch_init(&w, dest);
	/* One statement in its own transaction (a transaction opened before it
	 * without writes, a session's first, is fine to restart). */
	bool retry_ok = last && !ps->is_utility && s->e->opts.store_uri && s->txn_state == SQL_TXN_IDLE &&
			!s->implicit_block && (!s->txn || s->txn->nwrites == 0);
	int64_t start_us = util_mono_us();
	rerun_mem mem;
	for (int attempt = 0;; attempt++) {
		if (attempt == 1)
			rerun_mem_mark(&mem, s->stmt_arena, NULL);
		else if (attempt > 1)
			rerun_mem_rewind(&mem);
		memset(c, 0, sizeof *c);
		s->commit_retryable = false;
		if (sql_stmt_run(s, ps, NULL, retry_ok ? &w.d : dest, 0, c, err) != 0)
			return -1;
		if (!last)
			return 0;
		s->implicit_block = false;
		if (finish_implicit(s, err) == 0)
			return 0;
		if (!retry_ok || !s->commit_retryable || w.sent || s->txn || !rerun_allowed(s, start_us, err))
			return -1;
		util_debug("autocommit statement retried after a write conflict (attempt %d)", attempt + 1);
		memset(err, 0, sizeof *err);
	}
}

/* One statement of a simple query whose plan came from the literal cache
 * (litcache.c): run as the parsed path would run it. */
static int simple_cached(sql_session *s, sql_prepared *ps, sql_prepared *hold, sql_dest *dest,
			 void (*done)(void *arg, const sql_complete *c), void *done_arg, util_err *err)
{
	sql_complete c;
	int rc = run_autocommit(s, ps, dest, true, &c, err);
	sql_prepared_release(hold);
	if (rc == 0)
		done(done_arg, &c);
	else
		abort_implicit(s);
	return rc;
}

int sql_simple_query(sql_session *s, const char *query, sql_dest *dest,
		     void (*done)(void *arg, const sql_complete *c), void *done_arg, util_err *err)
{
	enter(s);
	util_arena_reset(s->stmt_arena);
	set_activity(s, "active", query);
	int rc = 0;
	sql_prepared cps, *hold = NULL;
	sql_litq *lq = sql_litcache_scan(s, query);
	if (lq && sql_litcache_get(s, lq, &cps, &hold)) {
		rc = simple_cached(s, &cps, hold, dest, done, done_arg, err);
		goto out;
	}
	PgQuery__ParseResult *pr = sql_parse_text(query, err);
	if (!pr) {
		if (s->txn_state == SQL_TXN_BLOCK)
			sql_stmt_fail_block(s);
		else
			abort_implicit(s);
		rc = -1;
		goto out;
	}
	if (lq && sql_litcache_put(s, lq, pr, &cps, &hold)) { /* pr is the cache's now */
		rc = simple_cached(s, &cps, hold, dest, done, done_arg, err);
		goto out;
	}
	if (pr->n_stmts == 0) {
		sql_complete c = {.empty = true};
		done(done_arg, &c);
		goto out_free;
	}
	s->implicit_block = pr->n_stmts > 1;
	for (size_t i = 0; i < pr->n_stmts; i++) {
		sql_prepared ps;
		memset(&ps, 0, sizeof ps);
		ps.raw = pr->stmts[i]->stmt;
		ps.arena = s->stmt_arena;
		size_t off = stmt_text(query, pr->stmts[i], &ps.text);
		ps.stmt_location = (int)off;
		ps.full_text = query;
		ps.is_utility = sql_stmt_is_utility(ps.raw);
		sql_complete c;
		bool last = i + 1 == pr->n_stmts;
		if (run_autocommit(s, &ps, dest, last, &c, err) != 0) {
			rc = -1;
			break;
		}
		done(done_arg, &c);
		util_arena_reset(s->stmt_arena);
	}
	s->implicit_block = false;
	if (rc != 0)
		abort_implicit(s);
out_free:
	pg_query__parse_result__free_unpacked(pr, NULL);
out:
	drop_txn_portals(s);
	set_activity(s, s->txn_state == SQL_TXN_IDLE ? "idle" : s->txn_state == SQL_TXN_BLOCK ? "idle in transaction" : "idle in transaction (aborted)", NULL);
	leave(s);
	return rc;
}

/* ---------------------------------------------------------------- extended protocol */

static sql_prepared *find_prepared(sql_session *s, const char *name)
{
	return util_map_gets(&s->prepared, name);
}

static void drop_prepared(sql_session *s, const char *name)
{
	sql_prepared *p = util_map_del(&s->prepared, name, strlen(name));
	if (p)
		sql_prepared_release(p);
}

int sql_parse(sql_session *s, const char *name, const char *query, int nparams, const uint32_t *param_types,
	      util_err *err)
{
	enter(s);
	util_arena_reset(s->stmt_arena);
	set_activity(s, "active", query);
	int rc = -1;
	if (*name && find_prepared(s, name)) {
		util_err_set(err, UTIL_E_DUPLICATE_PSTATEMENT, "prepared statement \"%s\" already exists", name);
		goto out;
	}
	sql_prepared *p = sql_prepare(s, name, query, nparams, param_types, err);
	if (!p)
		goto out;
	if (sql_prepared_check_types(p, err) != 0) {
		sql_prepared_release(p);
		goto out;
	}
	if (!*name)
		drop_prepared(s, "");
	util_map_puts(&s->prepared, name, p);
	rc = 0;
out:
	if (rc != 0) {
		if (s->txn_state == SQL_TXN_BLOCK)
			sql_stmt_fail_block(s);
	}
	leave(s);
	return rc;
}

int sql_describe_stmt(sql_session *s, const char *name, int *nparams, const uint32_t **param_types,
		      sql_rowdesc *desc, bool *returns_rows, util_err *err)
{
	enter(s);
	int rc = -1;
	sql_prepared *p = find_prepared(s, name);
	if (!p) {
		util_err_set(err, UTIL_E_INVALID_SQL_STATEMENT_NAME, "prepared statement \"%s\" does not exist", name);
		goto out;
	}
	if (sql_prepared_describe(s, p, desc, returns_rows, NULL, 0, err) != 0)
		goto out;
	*nparams = p->nparams;
	*param_types = p->param_types;
	rc = 0;
out:
	leave(s);
	return rc;
}

int sql_bind(sql_session *s, const char *portal, const char *stmt, const sql_bind_params *bp, util_err *err)
{
	enter(s);
	util_arena_reset(s->stmt_arena);
	int rc = -1;
	sql_prepared *p = find_prepared(s, stmt);
	if (!p) {
		util_err_set(err, UTIL_E_INVALID_SQL_STATEMENT_NAME, "prepared statement \"%s\" does not exist", stmt);
		goto out;
	}
	if (*portal && util_map_gets(&s->portals, portal)) {
		util_err_set(err, UTIL_E_DUPLICATE_CURSOR, "portal \"%s\" already exists", portal);
		goto out;
	}
	if (!*portal)
		sql_portal_free(s, portal_take(s, ""));
	sql_portal_s *po = sql_portal_create(s, portal, p, bp, err);
	if (!po)
		goto out;
	if (*portal)
		util_map_puts(&s->portals, portal, po);
	else
		s->unnamed_portal = po;
	rc = 0;
out:
	if (rc != 0 && s->txn_state == SQL_TXN_BLOCK)
		sql_stmt_fail_block(s);
	leave(s);
	return rc;
}

int sql_describe_portal(sql_session *s, const char *portal, sql_rowdesc *desc, bool *returns_rows, util_err *err)
{
	enter(s);
	int rc = -1;
	sql_portal_s *po = portal_find(s, portal);
	if (!po) {
		util_err_set(err, UTIL_E_INVALID_CURSOR_NAME, "portal \"%s\" does not exist", portal);
		goto out;
	}
	if (po->cols) {
		*desc = po->desc;
		*returns_rows = true;
		rc = 0;
		goto out;
	}
	rc = sql_prepared_describe(s, po->stmt, desc, returns_rows, po->result_formats, po->nresult_formats, err);
out:
	leave(s);
	return rc;
}

int sql_execute(sql_session *s, const char *portal, int64_t max_rows, sql_dest *dest, sql_complete *c,
		util_err *err)
{
	enter(s);
	int rc = -1;
	memset(c, 0, sizeof *c);
	sql_portal_s *po = portal_find(s, portal);
	if (!po) {
		util_err_set(err, UTIL_E_INVALID_CURSOR_NAME, "portal \"%s\" does not exist", portal);
		goto out;
	}
	set_activity(s, "active", po->stmt->text);
	/* A rerun at Sync (retry_sync) needs: one Execute in a transaction
	 * without earlier writes, run to completion without rows. */
	bool clean = s->txn_state == SQL_TXN_IDLE && !s->implicit_block &&
		     (!s->txn || s->txn->nwrites == 0) && s->ext_execs == 0;
	s->ext_execs++;
	rc = sql_stmt_run(s, po->stmt, po, dest, max_rows, c, err);
	s->ext_portal = po;
	s->ext_retry_ok = rc == 0 && clean && s->e->opts.store_uri && !c->suspended && !po->is_cursor &&
			  !po->stmt->is_utility && po->nsent == 0 &&
			  strlen(portal) < sizeof s->ext_portal_name;
	if (s->ext_retry_ok) {
		snprintf(s->ext_portal_name, sizeof s->ext_portal_name, "%s", portal);
		snprintf(s->ext_tag, sizeof s->ext_tag, "%s", c->tag);
	}
	if (rc == 0 && !c->suspended && !*portal && !po->is_cursor) {
		/* The unnamed portal is done; keep it for Describe until replaced. */
	}
out:
	if (rc != 0)
		s->ext_failed = true;
	leave(s);
	return rc;
}

int sql_close_stmt(sql_session *s, const char *name)
{
	enter(s);
	drop_prepared(s, name);
	leave(s);
	return 0;
}

int sql_close_portal(sql_session *s, const char *name)
{
	enter(s);
	sql_portal_free(s, portal_take(s, name));
	leave(s);
	return 0;
}

/* The extended protocol's side of run_autocommit: the commit at Sync failed
 * on a READ COMMITTED write conflict. If the transaction was one Execute of
 * a statement that sent no rows, rerun that portal at a new snapshot; the
 * client already has its CommandComplete, so the rerun must end with the
 * same tag (else the 40001 stands). */
static int retry_sync(sql_session *s, util_err *err)
{
	sql_portal_s *po = s->ext_portal;
	if (!s->commit_retryable || s->ext_execs != 1 || !s->ext_retry_ok || !po || s->txn ||
	    portal_find(s, s->ext_portal_name) != po)
		return -1;
	int64_t start_us = util_mono_us();
	rerun_mem mem;
	rerun_mem_mark(&mem, s->stmt_arena, po->arena);
	for (int attempt = 1; rerun_allowed(s, start_us, err); attempt++) {
		if (attempt > 1)
			rerun_mem_rewind(&mem);
		util_err e2;
		util_err_clear(&e2);
		po->done = po->exhausted = false;
		po->nsent = 0;
		po->pending = NULL;
		po->pending_pos = 0;
		sql_dest none = {0};
		watch_dest w;
		watch_init(&w, &none);
		sql_complete c;
		s->commit_retryable = false;
		if (sql_stmt_run(s, po->stmt, po, &w.d, 0, &c, &e2) != 0 || w.sent || c.suspended ||
		    strcmp(c.tag, s->ext_tag) != 0) {
			abort_implicit(s);
			return -1;
		}
		util_debug("extended-protocol statement retried after a write conflict (attempt %d)",
			   attempt);
		if (finish_implicit(s, &e2) == 0) {
			util_err_clear(err);
			return 0;
		}
		if (!s->commit_retryable || s->txn)
			return -1;
	}
	return -1;
}

int sql_sync(sql_session *s, util_err *err)
{
	enter(s);
	int rc = 0;
	if (s->ext_failed) {
		s->ext_failed = false;
		if (s->txn_state == SQL_TXN_BLOCK)
			sql_stmt_fail_block(s);
		else
			abort_implicit(s);
	} else {
		rc = finish_implicit(s, err);
		if (rc != 0 && s->e->opts.store_uri)
			rc = retry_sync(s, err);
	}
	s->ext_execs = 0;
	s->ext_portal = NULL;
	s->ext_retry_ok = false;
	drop_txn_portals(s);
	util_arena_reset(s->stmt_arena);
	set_activity(s, s->txn_state == SQL_TXN_IDLE ? "idle" : s->txn_state == SQL_TXN_BLOCK ? "idle in transaction" : "idle in transaction (aborted)", NULL);
	leave(s);
	return rc;
}

void sql_extended_error(sql_session *s) { s->ext_failed = true; }
