/* proto.c — the message loop of an authenticated session: simple Query, the extended protocol
 * (Parse/Bind/Describe/Execute/Close/Sync/Flush with skip-to-Sync after errors), FunctionCall, COPY in and
 * out, ParameterStatus, idle timeouts and shutdown; and the callbacks the SQL engine calls back into. */
#include "pgw_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output is flushed at ReadyForQuery, on Flush, before blocking on a read,
 * and whenever this much is buffered (big result sets stream). */
#define FLUSH_AT (64 * 1024)

/* ------------------------------------------------------------ engine callbacks */

static int maybe_flush(pgw_conn *c)
{
	if (c->io.out.len >= FLUSH_AT)
		pgw_io_flush(&c->io, 0);
	return c->io.broken ? -1 : 0;
}

static int dest_startup(void *arg, const sql_rowdesc *d)
{
	pgw_conn *c = arg;
	pgw_wr_rowdesc(&c->io.out, d);
	return maybe_flush(c);
}

static int dest_row(void *arg, const uint8_t *data, size_t len, int ncols)
{
	pgw_conn *c = arg;
	util_buf *b = &c->io.out;
	util_buf_reserve(b, 7 + len);
	uint8_t *p = (uint8_t *)b->data + b->len;
	p[0] = 'D';
	util_put_be32(p + 1, (uint32_t)(4 + 2 + len));
	util_put_be16(p + 5, (uint16_t)ncols);
	if (len) /* a row of no columns ("SELECT;") comes with data == NULL */
		memcpy(p + 7, data, len);
	b->len += 7 + len;
	b->data[b->len] = '\0';
	return maybe_flush(c);
}

static void cb_notice(void *arg, const util_err *n)
{
	pgw_conn *c = arg;
	pgw_wr_error(&c->io.out, n, true);
}

/* Changes are queued and sent before the next ReadyForQuery, and only when
 * the value differs from the one last reported (PostgreSQL 14+ behaviour:
 * a SET rolled back to the old value sends nothing). */
static void cb_parameter_status(void *arg, const char *name, const char *value)
{
	pgw_conn *c = arg;
	for (int i = 0; i < c->npending; i++) {
		if (strcmp(c->pending[i].name, name) == 0) {
			free(c->pending[i].value);
			c->pending[i].value = util_xstrdup(value);
			return;
		}
	}
	c->pending = util_xrealloc(c->pending, sizeof *c->pending * (size_t)(c->npending + 1));
	c->pending[c->npending].name = util_xstrdup(name);
	c->pending[c->npending].value = util_xstrdup(value);
	c->npending++;
}

static void send_pending_params(pgw_conn *c)
{
	for (int i = 0; i < c->npending; i++) {
		pgw_param *p = &c->pending[i];
		pgw_param *r = NULL;
		for (int j = 0; j < c->nreported; j++)
			if (strcmp(c->reported[j].name, p->name) == 0)
				r = &c->reported[j];
		if (!r) {
			c->reported =
			    util_xrealloc(c->reported, sizeof *c->reported * (size_t)(c->nreported + 1));
			r = &c->reported[c->nreported++];
			r->name = util_xstrdup(p->name);
			r->value = NULL;
		}
		if (!r->value || strcmp(r->value, p->value) != 0) {
			pgw_wr_param_status(&c->io.out, p->name, p->value);
			free(r->value);
			r->value = p->value;
			p->value = NULL;
		}
		free(p->name);
		free(p->value);
	}
	c->npending = 0;
}

static void copy_response(pgw_conn *c, char type, sql_copy_format fmt, int ncols)
{
	util_buf *b = &c->io.out;
	int16_t f = fmt == SQL_COPY_BINARY ? 1 : 0;
	size_t at = pgw_wr_begin(b, type);
	pgw_wr_u8(b, (uint8_t)f);
	pgw_wr_i16(b, (int16_t)ncols);
	for (int i = 0; i < ncols; i++)
		pgw_wr_i16(b, f);
	pgw_wr_end(b, at);
}

static int cb_copy_in_begin(void *arg, sql_copy_format fmt, int ncols)
{
	pgw_conn *c = arg;
	copy_response(c, 'G', fmt, ncols);
	c->in_copy_in = true;
	/* The client waits for CopyInResponse before sending data. */
	pgw_io_flush(&c->io, 0);
	return c->io.broken ? -1 : 0;
}

/* Remembers a connection-ending condition met while the engine runs: the
 * engine gets an error now, the client gets `fatal` after the statement. */
static void set_fatal(pgw_conn *c, const util_err *e)
{
	if (!c->fatal_pending) {
		c->fatal = *e;
		c->fatal_pending = true;
	}
	c->terminate = true;
}

static int cb_copy_in_read(void *arg, const uint8_t **data, size_t *len, util_err *err)
{
	pgw_conn *c = arg;
	if (!c->in_copy_in)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "COPY from stdin is not in progress");
	for (;;) {
		pgw_read_result rr = pgw_conn_read(c, 0, true);
		switch (rr) {
		case PGW_RM_OK:
			break;
		case PGW_RM_UNEXPECTED:
			/* PostgreSQL: an error for the COPY, then the connection
			 * ends because message boundaries are lost. */
			c->in_copy_in = false;
			c->sync_lost = true;
			c->terminate = true;
			*err = c->err;
			return -1;
		case PGW_RM_BAD:
			c->in_copy_in = false;
			set_fatal(c, &c->err);
			*err = c->err;
			return -1;
		case PGW_RM_STOP:
			c->in_copy_in = false;
			util_err_set(err, UTIL_E_ADMIN_SHUTDOWN,
				     "terminating connection due to administrator command");
			set_fatal(c, err);
			return -1;
		default:
			c->in_copy_in = false;
			c->io.broken = true;
			c->terminate = true;
			return util_err_set(err, UTIL_E_CONNECTION_FAILURE,
					    "unexpected EOF on client connection with an open transaction");
		}
		switch (c->mtype) {
		case 'd':
			*data = c->mbody;
			*len = c->mlen;
			return 1;
		case 'c':
			c->in_copy_in = false;
			return 0;
		case 'f': {
			const char *msg;
			c->in_copy_in = false;
			if (pgw_decode_copy_fail(c->mbody, c->mlen, &msg, err) < 0)
				return -1;
			return util_err_set(err, UTIL_E_QUERY_CANCELED, "COPY from stdin failed: %s", msg);
		}
		default:
			/* Flush and Sync: clients may send them without noticing
			 * the command was COPY. */
			continue;
		}
	}
}

static int cb_copy_out_begin(void *arg, sql_copy_format fmt, int ncols)
{
	pgw_conn *c = arg;
	copy_response(c, 'H', fmt, ncols);
	return maybe_flush(c);
}

static int cb_copy_out_data(void *arg, const void *data, size_t len)
{
	pgw_conn *c = arg;
	size_t at = pgw_wr_begin(&c->io.out, 'd');
	pgw_wr_bytes(&c->io.out, data, len);
	pgw_wr_end(&c->io.out, at);
	return maybe_flush(c);
}

static int cb_copy_out_end(void *arg)
{
	pgw_conn *c = arg;
	pgw_wr_empty(&c->io.out, 'c');
	return maybe_flush(c);
}

/* pg_terminate_backend from another session: end the wait for input
 * (the read side only, so the FATAL message can still be sent). */
static void cb_wake(void *arg)
{
	pgw_conn *c = arg;
	shutdown(c->io.fd, SHUT_RD);
}

void pgw_proto_client(pgw_conn *c, sql_client *cl)
{
	memset(cl, 0, sizeof *cl);
	cl->arg = c;
	cl->notice = cb_notice;
	cl->parameter_status = cb_parameter_status;
	cl->copy_in_begin = cb_copy_in_begin;
	cl->copy_in_read = cb_copy_in_read;
	cl->copy_out_begin = cb_copy_out_begin;
	cl->copy_out_data = cb_copy_out_data;
	cl->copy_out_end = cb_copy_out_end;
	cl->wake = cb_wake;
}

/* ------------------------------------------------------------ messages */

/* Copies a string out of the read buffer: COPY FROM STDIN reads further
 * messages while the engine still uses the statement's text. */
static const char *stable(pgw_conn *c, const char *s)
{
	util_buf_reset(&c->cur);
	util_buf_puts(&c->cur, s);
	return c->cur.data;
}

static void complete(void *arg, const sql_complete *cc)
{
	pgw_conn *c = arg;
	if (cc->empty)
		pgw_wr_empty(&c->io.out, 'I');
	else
		pgw_wr_complete(&c->io.out, cc->tag);
}

static int do_query(pgw_conn *c)
{
	const char *q;
	if (pgw_decode_query(c->mbody, c->mlen, &q, &c->err) < 0)
		return -1;
	q = stable(c, q);
	sql_dest dest = {.arg = c, .startup = dest_startup, .row = dest_row};
	int rc = sql_simple_query(c->sess, q, &dest, complete, c, &c->err);
	/* A COPY that failed before CopyDone: the rest of its data is ignored
	 * by the loop. */
	c->in_copy_in = false;
	return rc;
}

static int do_parse(pgw_conn *c)
{
	pgw_parse_msg m;
	if (pgw_decode_parse(c->mbody, c->mlen, &c->scratch, &m, &c->err) < 0 ||
	    sql_parse(c->sess, m.name, m.query, m.nparams, m.types, &c->err) < 0)
		return -1;
	pgw_wr_empty(&c->io.out, '1'); /* ParseComplete */
	return 0;
}

static int do_bind(pgw_conn *c)
{
	pgw_bind_msg m;
	if (pgw_decode_bind(c->mbody, c->mlen, &c->scratch, &m, &c->err) < 0 ||
	    sql_bind(c->sess, m.portal, m.stmt, &m.p, &c->err) < 0)
		return -1;
	pgw_wr_empty(&c->io.out, '2'); /* BindComplete */
	return 0;
}

static void rowdesc_or_nodata(pgw_conn *c, const sql_rowdesc *d, bool returns_rows)
{
	if (returns_rows)
		pgw_wr_rowdesc(&c->io.out, d);
	else
		pgw_wr_empty(&c->io.out, 'n'); /* NoData */
}

static int do_describe(pgw_conn *c)
{
	char kind;
	const char *name;
	if (pgw_decode_target(c->mbody, c->mlen, &kind, &name, &c->err) < 0)
		return -1;
	sql_rowdesc d = {0};
	bool rows = false;
	if (kind == 'S') {
		int np = 0;
		const uint32_t *types = NULL;
		if (sql_describe_stmt(c->sess, name, &np, &types, &d, &rows, &c->err) < 0)
			return -1;
		util_buf *b = &c->io.out;
		size_t at = pgw_wr_begin(b, 't'); /* ParameterDescription */
		pgw_wr_i16(b, (int16_t)np);
		for (int i = 0; i < np; i++)
			pgw_wr_i32(b, (int32_t)types[i]);
		pgw_wr_end(b, at);
		rowdesc_or_nodata(c, &d, rows);
		return 0;
	}
	if (kind == 'P') {
		if (sql_describe_portal(c->sess, name, &d, &rows, &c->err) < 0)
			return -1;
		rowdesc_or_nodata(c, &d, rows);
		return 0;
	}
	return util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid DESCRIBE message subtype %d",
			    (unsigned char)kind);
}

static int do_execute(pgw_conn *c)
{
	const char *portal;
	int32_t max_rows;
	if (pgw_decode_execute(c->mbody, c->mlen, &portal, &max_rows, &c->err) < 0)
		return -1;
	portal = stable(c, portal);
	sql_dest dest = {.arg = c, .startup = dest_startup, .row = dest_row};
	sql_complete cc;
	memset(&cc, 0, sizeof cc);
	int rc = sql_execute(c->sess, portal, max_rows > 0 ? max_rows : 0, &dest, &cc, &c->err);
	c->in_copy_in = false;
	if (rc < 0)
		return -1;
	if (cc.empty)
		pgw_wr_empty(&c->io.out, 'I'); /* EmptyQueryResponse */
	else if (cc.suspended)
		pgw_wr_empty(&c->io.out, 's'); /* PortalSuspended */
	else
		pgw_wr_complete(&c->io.out, cc.tag);
	return 0;
}

static int do_close(pgw_conn *c)
{
	char kind;
	const char *name;
	if (pgw_decode_target(c->mbody, c->mlen, &kind, &name, &c->err) < 0)
		return -1;
	if (kind == 'S')
		sql_close_stmt(c->sess, name);
	else if (kind == 'P')
		sql_close_portal(c->sess, name);
	else
		return util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid CLOSE message subtype %d",
				    (unsigned char)kind);
	pgw_wr_empty(&c->io.out, '3'); /* CloseComplete */
	return 0;
}

/* FunctionCall: the result as FunctionCallResponse; the call then ends as
 * Sync ends an extended batch (PostgreSQL commits it as it would a simple
 * query) and ReadyForQuery follows. */
typedef struct fcall_out {
	pgw_conn *c;
	bool sent;
} fcall_out;

static int fcall_row(void *arg, const uint8_t *data, size_t len, int ncols)
{
	fcall_out *f = arg;
	if (f->sent || ncols != 1)
		return 0;
	f->sent = true;
	util_buf *b = &f->c->io.out;
	size_t at = pgw_wr_begin(b, 'V');
	util_buf_append(b, data, len); /* Int32 length (-1 = NULL) and the bytes */
	pgw_wr_end(b, at);
	return maybe_flush(f->c);
}

static int do_fcall(pgw_conn *c)
{
	pgw_fcall_msg m;
	fcall_out f = {c, false};
	sql_dest dest = {.arg = &f, .row = fcall_row};
	if (pgw_decode_fcall(c->mbody, c->mlen, &c->scratch, &m, &c->err) < 0 ||
	    sql_fastpath_call(c->sess, m.fn, &m.p, &dest, &c->err) < 0) {
		sql_extended_error(c->sess);
		util_err e2;
		util_err_clear(&e2);
		sql_sync(c->sess, &e2);
		return -1;
	}
	if (!f.sent) {
		util_buf *b = &c->io.out;
		size_t at = pgw_wr_begin(b, 'V');
		pgw_wr_i32(b, -1);
		pgw_wr_end(b, at);
	}
	return sql_sync(c->sess, &c->err);
}

/* ------------------------------------------------------------ the loop */

/* Sends the error of the message just handled. Returns false when the
 * connection must end (a FATAL, a broken socket, shutdown). */
static bool report_error(pgw_conn *c)
{
	if (!util_err_isset(&c->err))
		util_err_set(&c->err, UTIL_E_INTERNAL_ERROR,
			     "internal error: a statement failed without a message");
	if (c->fatal_pending) {
		pgw_conn_fatal(c, &c->fatal);
		return false;
	}
	if (atomic_load(&c->srv->stopping) && c->err.code == UTIL_E_QUERY_CANCELED) {
		/* Our own cancel at shutdown: report the shutdown instead. */
		util_err_set(&c->err, UTIL_E_ADMIN_SHUTDOWN,
			     "terminating connection due to administrator command");
		pgw_conn_fatal(c, &c->err);
		return false;
	}
	if (c->io.broken)
		return false;
	if (c->err.severity == UTIL_SEV_FATAL || c->err.severity == UTIL_SEV_PANIC) {
		pgw_conn_fatal(c, &c->err);
		return false;
	}
	pgw_wr_error(&c->io.out, &c->err, false);
	if (c->sync_lost) {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION,
			     "terminating connection because protocol synchronization was lost");
		pgw_conn_fatal(c, &c->err);
		return false;
	}
	return true;
}

static void fatal_msg(pgw_conn *c, util_errcode code, const char *msg)
{
	util_err_set(&c->err, code, "%s", msg);
	pgw_conn_fatal(c, &c->err);
}

bool pgw_proto_run(pgw_conn *c)
{
	for (;;) {
		if (c->send_ready) {
			if (atomic_load(&c->srv->stopping) || sql_session_terminating(c->sess)) {
				fatal_msg(c, UTIL_E_ADMIN_SHUTDOWN,
					  "terminating connection due to administrator command");
				return true;
			}
			char st = sql_session_txn_status(c->sess);
			send_pending_params(c);
			pgw_wr_ready(&c->io.out, st);
			int64_t ms;
			c->idle_code = UTIL_E_IDLE_SESSION_TIMEOUT;
			if (st == 'I') {
				ms = sql_session_idle_timeout(c->sess);
			} else {
				ms = sql_session_idle_in_txn_timeout(c->sess);
				c->idle_code = UTIL_E_IDLE_IN_TRANSACTION_SESSION_TIMEOUT;
			}
			c->deadline = ms > 0 ? util_mono_us() + ms * 1000 : 0;
			/* A pooled session may leave the reply to the pool (io.defer)
			 * when nothing follows the message just handled. */
			if (c->mconsume) {
				pgw_io_consume(&c->io, c->mconsume);
				c->mconsume = 0;
			}
			c->io.yield = c->pooled && !c->deadline;
			bool defer = pgw_io_deferring(&c->io);
			c->io.yield = false;
			if (!defer && pgw_io_flush(&c->io, 0) != PGW_IO_OK)
				return true;
			c->send_ready = false;
		}
		/* A pooled connection gives its thread back while it waits, unless
		 * an idle timeout needs the deadline of a waiting read. */
		c->io.yield = c->pooled && !c->deadline;
		pgw_read_result rr = pgw_conn_read(c, c->deadline, false);
		c->io.yield = false;
		if (rr == PGW_RM_WAIT)
			return false;
		c->deadline = 0; /* the timeout covers one wait between messages */
		switch (rr) {
		case PGW_RM_OK:
			break;
		case PGW_RM_TIMEOUT:
			fatal_msg(c, c->idle_code,
				  c->idle_code == UTIL_E_IDLE_SESSION_TIMEOUT
				      ? "terminating connection due to idle-session timeout"
				      : "terminating connection due to idle-in-transaction timeout");
			return true;
		case PGW_RM_STOP:
			fatal_msg(c, UTIL_E_ADMIN_SHUTDOWN,
				  "terminating connection due to administrator command");
			return true;
		case PGW_RM_BAD:
		case PGW_RM_UNEXPECTED:
			pgw_conn_fatal(c, &c->err);
			return true;
		default:
			/* pg_terminate_backend, or shutdown ending a read */
			if (atomic_load(&c->srv->stopping) || (c->sess && sql_session_terminating(c->sess)))
				fatal_msg(c, UTIL_E_ADMIN_SHUTDOWN,
					  "terminating connection due to administrator command");
			return true; /* EOF: the client went away */
		}
		char t = c->mtype;
		if (t == 'X')
			return true;
		if (t == 'S')
			c->ignore_till_sync = false;
		else if (c->ignore_till_sync)
			continue;
		util_err_clear(&c->err);
		int rc = 0;
		bool extended = false;
		switch (t) {
		case 'Q':
			rc = do_query(c);
			c->send_ready = true;
			break;
		case 'P':
			extended = true;
			rc = do_parse(c);
			break;
		case 'B':
			extended = true;
			rc = do_bind(c);
			break;
		case 'D':
			extended = true;
			rc = do_describe(c);
			break;
		case 'E':
			extended = true;
			rc = do_execute(c);
			break;
		case 'C':
			extended = true;
			rc = do_close(c);
			break;
		case 'H':
			if (c->mlen == 0)
				pgw_io_flush(&c->io, 0);
			else
				rc = util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION,
						  "invalid message format");
			extended = true;
			break;
		case 'S':
			c->send_ready = true;
			if (c->mlen != 0) {
				util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid message format");
				sql_extended_error(c->sess);
				util_err c2;
				util_err_clear(&c2);
				sql_sync(c->sess, &c2);
				rc = -1;
			} else {
				rc = sql_sync(c->sess, &c->err);
			}
			break;
		case 'F':
			rc = do_fcall(c);
			c->send_ready = true;
			break;
		default:
			/* CopyData/CopyDone/CopyFail outside COPY: ignored, as the
			 * protocol says (they follow a COPY that failed). */
			break;
		}
		if (rc < 0) {
			if (!report_error(c))
				return true;
			if (extended) {
				sql_extended_error(c->sess);
				c->ignore_till_sync = true;
			}
		} else if (c->terminate) {
			if (c->fatal_pending)
				pgw_conn_fatal(c, &c->fatal);
			return true;
		}
		if (c->io.broken)
			return true;
	}
}
