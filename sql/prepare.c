/*
 * prepare.c — SQL-level PREPARE/EXECUTE/DEALLOCATE (sharing the namespace
 * of protocol-level prepared statements, as PostgreSQL does) and cursors:
 * DECLARE, FETCH/MOVE in every direction, CLOSE. Cursors stream forward;
 * SCROLL and WITH HOLD cursors keep their rows so they can move backward
 * and survive COMMIT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

/* ---------------------------------------------------------------- inner statement text */

/* The smallest location of any node in a raw tree (-1 if none). */
static int min_location(const ProtobufCMessage *m)
{
	if (!m)
		return -1;
	int best = -1;
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		if (f->type == PROTOBUF_C_TYPE_INT32 && f->label != PROTOBUF_C_LABEL_REPEATED && !strcmp(f->name, "location")) {
			int v = *(const int32_t *)(base + f->offset);
			if (v >= 0 && (best < 0 || v < best))
				best = v;
			continue;
		}
		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + f->quantifier_offset);
			ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)(base + f->offset);
			for (size_t k = 0; k < n; k++) {
				int v = min_location(arr[k]);
				if (v >= 0 && (best < 0 || v < best))
					best = v;
			}
		} else {
			if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(const uint32_t *)(base + f->quantifier_offset) != f->id)
				continue;
			int v = min_location(*(ProtobufCMessage *const *)(base + f->offset));
			if (v >= 0 && (best < 0 || v < best))
				best = v;
		}
	}
	return best;
}

/* The text of the statement inside PREPARE ... AS stmt / DECLARE ... FOR
 * stmt, so that it is prepared from what the user wrote (error positions
 * as PostgreSQL reports them); *offset = its byte offset in text. Falls
 * back to the deparsed statement (offset -1). */
static char *inner_text(const char *text, pnode *inner, int keyword, int *offset)
{
	*offset = -1;
	int minloc = text ? min_location(&inner->base) : -1;
	if (minloc >= 0) {
		PgQueryScanResult sr = pg_query_scan(text);
		int start = -1;
		if (!sr.error) {
			PgQuery__ScanResult *res =
				pg_query__scan_result__unpack(NULL, sr.pbuf.len, (const uint8_t *)sr.pbuf.data);
			for (size_t i = 0; res && i < res->n_tokens; i++)
				if (res->tokens[i]->end <= minloc && (int)res->tokens[i]->token == keyword)
					start = res->tokens[i]->end;
			if (res)
				pg_query__scan_result__free_unpacked(res, NULL);
		}
		pg_query_free_scan_result(sr);
		if (start >= 0) {
			util_err err;
			PgQuery__ParseResult *pr = sql_parse_text(text + start, &err);
			if (pr && pr->n_stmts >= 1) {
				int len = pr->stmts[0]->stmt_len;
				int loc = pr->stmts[0]->stmt_location;
				pg_query__parse_result__free_unpacked(pr, NULL);
				if (!len)
					len = (int)strlen(text + start) - loc;
				*offset = start + loc;
				char *t = ty_alloc((size_t)len + 1);
				memcpy(t, text + start + loc, (size_t)len);
				t[len] = 0;
				return t;
			}
			if (pr)
				pg_query__parse_result__free_unpacked(pr, NULL);
		}
	}
	return sql_deparse_stmt(inner);
}

/* Errors at positions of the inner statement, shifted to the whole text. */
static UTIL_NORETURN void throw_shifted(util_err *err, const char *text, int offset)
{
	if (err->position > 0 && offset > 0)
		err->position += sql_errposition(text, offset) - 1;
	ty_throw(err);
}

/* ---------------------------------------------------------------- PREPARE / EXECUTE */

static void do_prepare(sql_session *s, PgQuery__PrepareStmt *st, const char *text)
{
	if (util_map_gets(&s->prepared, st->name))
		ty_error(UTIL_E_DUPLICATE_PSTATEMENT, "prepared statement \"%s\" already exists", st->name);
	pnode *q = st->query;
	if (q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT && q->node_case != PG_QUERY__NODE__NODE_INSERT_STMT &&
	    q->node_case != PG_QUERY__NODE__NODE_UPDATE_STMT && q->node_case != PG_QUERY__NODE__NODE_DELETE_STMT)
		ty_error(UTIL_E_SYNTAX_ERROR, "syntax error at or near \"%s\"", sql_command_tag(q));
	int n = (int)st->n_argtypes;
	uint32_t *types = ty_alloc0(sizeof(uint32_t) * (size_t)(n ? n : 1));
	sql_actx ax = {s, s->cat, ty_get_arena(), &(sql_pstate){.text = ""}};
	for (int i = 0; i < n; i++) {
		int32_t tm;
		ty_oid t;
		sql_typename(&ax, st->argtypes[i]->type_name, &t, &tm);
		types[i] = t;
	}
	int off;
	char *qtext = inner_text(text, q, PG_QUERY__TOKEN__AS, &off);
	util_err err;
	sql_prepared *p = sql_prepare(s, st->name, qtext, n, types, &err);
	if (!p)
		throw_shifted(&err, text, off);
	if (sql_prepared_check_types(p, &err) != 0) {
		sql_prepared_release(p);
		ty_throw(&err);
	}
	p->from_sql = true;
	util_map_puts(&s->prepared, st->name, p);
}

/* Evaluates EXECUTE's parameter expressions (constants, $n-free). */
static ty_datum *execute_params(sql_session *s, sql_prepared *p, PgQuery__ExecuteStmt *st, const char *text)
{
	int n = (int)st->n_params;
	if (n != p->nparams) {
		util_err *e = ty_errstart(UTIL_E_SYNTAX_ERROR, "wrong number of parameters for prepared statement \"%s\"", p->name);
		util_err_detail(e, "Expected %d parameters but got %d.", p->nparams, n);
		ty_errthrow();
	}
	ty_datum *vals = ty_alloc0(sizeof(ty_datum) * (size_t)(n ? n : 1));
	sql_pstate ps = {.text = text};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_actx ax = {s, s->cat, ty_get_arena(), &ps};
	for (int i = 0; i < n; i++) {
		sql_query *q = sql_new_query(&ax, SQL_CMD_SELECT, NULL);
		sql_expr *e = sql_transform_expr(&ax, q, st->params[i], SQL_EXPR_CALL);
		e = sql_coerce(&ax, e, p->param_types[i], -1, SQL_COERCE_ASSIGNMENT, e->location);
		sql_planned *pl = ty_alloc0(sizeof *pl);
		sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
		ex->cache = ty_alloc0(sizeof(sql_cache_slot) * (size_t)(ps.ncache + 1));
		vals[i] = sql_eval(ex, e, NULL);
	}
	return vals;
}

static void do_execute(sql_session *s, PgQuery__ExecuteStmt *st, const char *text, sql_dest *dest, sql_complete *c)
{
	sql_prepared *p = util_map_gets(&s->prepared, st->name);
	if (!p)
		ty_error(UTIL_E_INVALID_SQL_STATEMENT_NAME, "prepared statement \"%s\" does not exist", st->name);
	sql_portal_s *po = ty_alloc0(sizeof *po);
	po->arena = ty_get_arena();
	po->stmt = p;
	po->params = execute_params(s, p, st, text);
	po->nparams = p->nparams;
	TY_TRY(tc)
	{
		sql_portal_run(s, po, dest, 0, true, c);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		if (po->ex) {
			util_err saved, ignore;
			memcpy(&saved, ty_err(), sizeof saved);
			ty_protect((void (*)(void *))sql_exec_close, po->ex, &ignore);
			memcpy(ty_err(), &saved, sizeof saved);
		}
		sql_cached_plan_release(po->cp);
		ty_errthrow();
	}
	TY_END(tc);
	sql_cached_plan_release(po->cp);
}

static void do_deallocate(sql_session *s, PgQuery__DeallocateStmt *st)
{
	if (!st->name || !*st->name) {
		size_t pos = 0;
		void *v;
		while (util_map_next(&s->prepared, &pos, NULL, NULL, &v))
			sql_prepared_release(v);
		util_map_free(&s->prepared);
		return;
	}
	sql_prepared *p = util_map_del(&s->prepared, st->name, strlen(st->name));
	if (!p)
		ty_error(UTIL_E_INVALID_SQL_STATEMENT_NAME, "prepared statement \"%s\" does not exist", st->name);
	sql_prepared_release(p);
}

void sql_exec_prepare_stmt(sql_session *s, pnode *n, const char *text, sql_dest *dest, sql_complete *c)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_PREPARE_STMT:
		do_prepare(s, n->prepare_stmt, text);
		return;
	case PG_QUERY__NODE__NODE_EXECUTE_STMT:
		do_execute(s, n->execute_stmt, text, dest, c);
		return;
	default:
		do_deallocate(s, n->deallocate_stmt);
		return;
	}
}

/* ---------------------------------------------------------------- cursors */

/* Materialised rows of a cursor (scrollable/holdable), copied. */
static void mat_add(sql_portal_s *po, const ty_datum *row, const sql_plan *plan)
{
	if (!po->mat_arena)
		po->mat_arena = util_arena_new(64 * 1024, 0);
	if (po->mat_n == po->mat_cap) {
		po->mat_cap = po->mat_cap ? po->mat_cap * 2 : 64;
		ty_datum *nm = util_arena_alloc(po->mat_arena, sizeof(ty_datum) * (size_t)po->mat_cap * (size_t)po->mat_cols);
		if (!nm)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		if (po->mat_n)
			memcpy(nm, po->mat, sizeof(ty_datum) * (size_t)po->mat_n * (size_t)po->mat_cols);
		po->mat = nm;
	}
	util_arena *old = ty_set_arena(po->mat_arena);
	ty_datum *dst = po->mat + (size_t)po->mat_n * (size_t)po->mat_cols;
	for (int c = 0; c < po->mat_cols; c++) {
		dst[c] = sql_datum_copy(row[c], plan->types[c]);
	}
	ty_set_arena(old);
	po->mat_n++;
}

/* Pulls the next row from the cursor's execution (NULL at the end). The
 * returned row stays valid until the next pull. */
static ty_datum *pull(sql_session *s, sql_portal_s *po)
{
	if (po->done || !po->ex)
		return NULL;
	if (!po->pending || po->pending_pos >= po->pending->n) {
		util_arena *old = ty_set_arena(po->arena);
		po->pending = sql_op_next(po->root);
		ty_set_arena(old);
		po->pending_pos = 0;
		if (po->pending->n == 0) {
			po->done = true;
			util_arena *o2 = ty_set_arena(po->arena);
			sql_exec_close(po->ex);
			ty_set_arena(o2);
			po->ex = NULL;
			(void)s;
			return NULL;
		}
	}
	return sql_batch_row(po->pending, po->pending_pos++);
}

/* Makes sure the materialised store holds row index i (0-based); returns
 * false if the result has fewer rows. */
static bool ensure_row(sql_session *s, sql_portal_s *po, int64_t i)
{
	while (po->mat_n <= i) {
		ty_datum *r = pull(s, po);
		if (!r)
			return false;
		mat_add(po, r, po->cp->planned->plan);
	}
	return true;
}

static void send_row(sql_session *s, sql_portal_s *po, const ty_datum *row, sql_dest *dest)
{
	sql_planned *pl = po->cp->planned;
	sql_format_row(s, row, pl->desc.ncols, pl->plan->types, po->formats, &s->rowbuf);
	if (dest->row(dest->arg, (const uint8_t *)s->rowbuf.data, s->rowbuf.len, pl->desc.ncols) != 0)
		ty_error(UTIL_E_CONNECTION_FAILURE, "connection to client lost");
}

static void do_declare(sql_session *s, PgQuery__DeclareCursorStmt *st, const char *text)
{
	bool hold = st->options & 0x0020;   /* CURSOR_OPT_HOLD */
	bool scroll = st->options & 0x0002; /* CURSOR_OPT_SCROLL */
	bool binary = st->options & 0x0001; /* CURSOR_OPT_BINARY */
	if (s->txn_state == SQL_TXN_IDLE && !s->implicit_block && !hold)
		ty_error(UTIL_E_NO_ACTIVE_SQL_TRANSACTION, "DECLARE CURSOR can only be used in transaction blocks");
	if (util_map_gets(&s->portals, st->portalname))
		ty_error(UTIL_E_DUPLICATE_CURSOR, "cursor \"%s\" already exists", st->portalname);
	pnode *q = st->query;
	if (q->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
		ty_error(UTIL_E_INVALID_CURSOR_DEFINITION, "cannot open %s query as cursor", sql_command_tag(q));
	int off;
	char *qtext = inner_text(text, q, PG_QUERY__TOKEN__FOR, &off);
	util_err err;
	sql_prepared *p = sql_prepare(s, "", qtext, 0, NULL, &err);
	if (!p)
		throw_shifted(&err, text, off);
	/* DECLARE plans (and fails) at once. */
	sql_cached_plan *volatile cp = NULL;
	TY_TRY(tc)
	{
		cp = sql_prepared_plan(s, p);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		memcpy(&err, ty_err(), sizeof err);
		sql_prepared_release(p);
		throw_shifted(&err, text, off);
	}
	TY_END(tc);
	util_arena *a = util_arena_new(8192, 0);
	sql_portal_s *po = util_arena_zalloc(a, sizeof *po);
	po->arena = a;
	po->name = util_arena_strdup(a, st->portalname);
	po->stmt = p;
	po->owns_stmt = true;
	po->is_cursor = true;
	po->holdable = hold;
	po->scroll = scroll || hold;
	if (binary) {
		po->nresult_formats = 1;
		po->result_formats = util_arena_alloc(a, sizeof(int16_t));
		po->result_formats[0] = 1;
	}
	/* Start executing now: the cursor sees the snapshot of DECLARE. */
	po->cp = cp;
	sql_planned *pl = po->cp->planned;
	util_arena *old = ty_set_arena(a);
	po->ex = sql_exec_new(s, pl, a, NULL, 0);
	po->root = sql_exec_node(po->ex, pl->plan);
	po->mat_cols = pl->desc.ncols;
	if (po->nresult_formats) {
		int16_t *f = util_arena_alloc(a, sizeof(int16_t) * (size_t)(pl->desc.ncols ? pl->desc.ncols : 1));
		for (int i = 0; i < pl->desc.ncols; i++)
			f[i] = 1;
		po->formats = f;
	}
	ty_set_arena(old);
	po->mat_pos = -1;
	s->ncursors++; /* sql_portal_free counts it out */
	util_map_puts(&s->portals, st->portalname, po);
}

/* Moves/fetches per PostgreSQL's FETCH semantics; position = rows consumed
 * (0 = before the first row, n+1 = after the last). */
static void do_fetch(sql_session *s, PgQuery__FetchStmt *st, sql_dest *dest, sql_complete *c)
{
	sql_portal_s *po = util_map_gets(&s->portals, st->portalname);
	if (!po || !po->is_cursor)
		ty_error(UTIL_E_INVALID_CURSOR_NAME, "cursor \"%s\" does not exist", st->portalname);
	int64_t count = st->how_many;
	PgQuery__FetchDirection dir = st->direction;
	bool all = count == 0x7fffffffffffffffLL || count == INT64_MAX;
	/* FORWARD -n is BACKWARD n and the other way round (MOVE -3 FROM c). */
	if (!all && count < 0 &&
	    (dir == PG_QUERY__FETCH_DIRECTION__FETCH_FORWARD || dir == PG_QUERY__FETCH_DIRECTION__FETCH_BACKWARD)) {
		dir = dir == PG_QUERY__FETCH_DIRECTION__FETCH_FORWARD ? PG_QUERY__FETCH_DIRECTION__FETCH_BACKWARD
								       : PG_QUERY__FETCH_DIRECTION__FETCH_FORWARD;
		count = -count;
	}
	if (!st->ismove && dest->startup) {
		sql_planned *pl = po->cp->planned;
		sql_rowdesc d = pl->desc;
		if (po->formats) {
			sql_column *cols = ty_alloc(sizeof(sql_column) * (size_t)(d.ncols ? d.ncols : 1));
			memcpy(cols, d.cols, sizeof(sql_column) * (size_t)d.ncols);
			for (int i = 0; i < d.ncols; i++)
				cols[i].format = 1;
			d.cols = cols;
		}
		dest->startup(dest->arg, &d);
	}
	int64_t sent = 0;
	/* Position: index of the current row (-1 before first). */
	int64_t pos = po->mat_pos;
	bool backward = dir == PG_QUERY__FETCH_DIRECTION__FETCH_BACKWARD ||
			((dir == PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE) && count < 0);
	if (!po->scroll && (backward || dir == PG_QUERY__FETCH_DIRECTION__FETCH_ABSOLUTE)) {
		util_err *e = ty_errstart(UTIL_E_OBJECT_NOT_IN_PREREQUISITE_STATE, "cursor can only scan forward");
		util_err_hint(e, "Declare it with SCROLL option to enable backward scan.");
		ty_errthrow();
	}
	if (!po->scroll) {
		/* Forward only: stream. */
		if (dir == PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE && count == 0) {
			snprintf(c->tag, sizeof c->tag, "%s 0", st->ismove ? "MOVE" : "FETCH");
			return;
		}
		int64_t want = all ? INT64_MAX : count;
		while (sent < want) {
			ty_datum *r = pull(s, po);
			if (!r)
				break;
			if (!st->ismove)
				send_row(s, po, r, dest);
			sent++;
		}
		snprintf(c->tag, sizeof c->tag, "%s %lld", st->ismove ? "MOVE" : "FETCH", (long long)sent);
		return;
	}
	/* Scrollable: work on the materialised rows. */
	if (dir == PG_QUERY__FETCH_DIRECTION__FETCH_ABSOLUTE) {
		int64_t target;
		if (count > 0)
			target = count - 1;
		else if (count < 0) {
			while (ensure_row(s, po, po->mat_n))
				;
			target = po->mat_n + count;
		} else
			target = -1;
		if (target >= 0 && ensure_row(s, po, target)) {
			pos = target;
			if (!st->ismove)
				send_row(s, po, po->mat + (size_t)pos * (size_t)po->mat_cols, dest);
			sent = 1;
		} else {
			pos = target < 0 ? -1 : po->mat_n;
		}
	} else if (dir == PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE && count != 0) {
		int64_t target = pos + count;
		if (target >= 0 && ensure_row(s, po, target)) {
			pos = target;
			if (!st->ismove)
				send_row(s, po, po->mat + (size_t)pos * (size_t)po->mat_cols, dest);
			sent = 1;
		} else {
			pos = target < 0 ? -1 : po->mat_n;
		}
	} else if (dir == PG_QUERY__FETCH_DIRECTION__FETCH_RELATIVE) {
		if (pos >= 0 && pos < po->mat_n) {
			if (!st->ismove)
				send_row(s, po, po->mat + (size_t)pos * (size_t)po->mat_cols, dest);
			sent = 1;
		}
	} else {
		bool fwd = !backward;
		int64_t want = all ? INT64_MAX : (count < 0 ? -count : count);
		while (sent < want) {
			int64_t next = fwd ? pos + 1 : pos - 1;
			if (next < 0) {
				pos = -1;
				break;
			}
			if (!ensure_row(s, po, next)) {
				pos = po->mat_n;
				break;
			}
			pos = next;
			if (!st->ismove)
				send_row(s, po, po->mat + (size_t)pos * (size_t)po->mat_cols, dest);
			sent++;
		}
	}
	po->mat_pos = pos;
	snprintf(c->tag, sizeof c->tag, "%s %lld", st->ismove ? "MOVE" : "FETCH", (long long)sent);
}

static void do_close(sql_session *s, PgQuery__ClosePortalStmt *st)
{
	if (!st->portalname || !*st->portalname) {
		size_t pos = 0;
		const void *k;
		size_t kl;
		void *v;
		util_map keep = UTIL_MAP_INIT;
		while (util_map_next(&s->portals, &pos, &k, &kl, &v)) {
			sql_portal_s *p = v;
			if (p->is_cursor)
				sql_portal_free(s, p);
			else
				util_map_put(&keep, k, kl, p);
		}
		util_map_free(&s->portals);
		s->portals = keep;
		return;
	}
	sql_portal_s *po = util_map_gets(&s->portals, st->portalname);
	if (!po || !po->is_cursor)
		ty_error(UTIL_E_INVALID_CURSOR_NAME, "cursor \"%s\" does not exist", st->portalname);
	util_map_del(&s->portals, st->portalname, strlen(st->portalname));
	sql_portal_free(s, po);
}

void sql_exec_cursor_stmt(sql_session *s, pnode *n, const char *text, sql_dest *dest, sql_complete *c)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT:
		do_declare(s, n->declare_cursor_stmt, text);
		return;
	case PG_QUERY__NODE__NODE_FETCH_STMT:
		do_fetch(s, n->fetch_stmt, dest, c);
		return;
	default:
		do_close(s, n->close_portal_stmt);
		return;
	}
}

/* At COMMIT: holdable cursors keep all their rows; the others close. */
void sql_cursors_at_commit(sql_session *s)
{
	if (!s->ncursors)
		return;
	size_t pos = 0;
	void *v;
	while (util_map_next(&s->portals, &pos, NULL, NULL, &v)) {
		sql_portal_s *po = v;
		if (!po->is_cursor || !po->holdable)
			continue;
		while (ensure_row(s, po, po->mat_n))
			;
	}
	(void)str_of;
}
