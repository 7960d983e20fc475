/* conn.c — one client connection from accept to close: the startup packets (SSLRequest,
 * GSSENCRequest, CancelRequest, protocol negotiation), the max_connections slot, authentication,
 * opening the SQL session and handing over to the message loop; and the framed message reader. */
#include "crypto.h"
#include "pgw_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

/* How long a final FATAL message may take to leave. */
#define FATAL_FLUSH_US (2 * 1000 * 1000)

pgw_conn *pgw_conn_new(pgw_server *s, int fd, const struct sockaddr *addr, socklen_t len, bool is_unix)
{
	pgw_conn *c = util_xcalloc(1, sizeof *c);
	c->srv = s;
	c->fd = fd;
	if (len > sizeof c->addr)
		len = sizeof c->addr;
	memcpy(&c->addr, addr, len);
	c->addrlen = len;
	c->is_unix = is_unix;
	if (is_unix) {
		snprintf(c->host, sizeof c->host, "[local]");
	} else {
		const void *a = addr->sa_family == AF_INET6
				    ? (const void *)&((const struct sockaddr_in6 *)addr)->sin6_addr
				    : (const void *)&((const struct sockaddr_in *)addr)->sin_addr;
		if (!inet_ntop(addr->sa_family, a, c->host, sizeof c->host))
			snprintf(c->host, sizeof c->host, "?");
	}
	pgw_io_init(&c->io, fd, s->stop_pipe[0], &s->stopping);
	util_buf_init(&c->cur);
	return c;
}

static void conn_free(pgw_conn *c)
{
	pgw_io_free(&c->io);
	close(c->fd);
	pgw_startup_free(&c->sp);
	util_buf_free(&c->cur);
	pgw_fe_scratch_free(&c->scratch);
	for (int i = 0; i < c->nreported; i++) {
		free(c->reported[i].name);
		free(c->reported[i].value);
	}
	for (int i = 0; i < c->npending; i++) {
		free(c->pending[i].name);
		free(c->pending[i].value);
	}
	free(c->reported);
	free(c->pending);
	free(c);
}

void pgw_conn_fatal(pgw_conn *c, util_err *e)
{
	e->severity = UTIL_SEV_FATAL;
	if (c->io.broken)
		return;
	pgw_wr_error(&c->io.out, e, false);
	pgw_io_flush(&c->io, util_mono_us() + FATAL_FLUSH_US);
}

/* PostgreSQL's per-type limits: the small control messages may not exceed
 * 10000 bytes, the others max_message_bytes. 0 = not a valid type here. */
static size_t msg_limit(pgw_conn *c, char type, bool in_copy)
{
	size_t big = c->srv->opts.max_message_bytes;
	size_t small = UTIL_MIN((size_t)PGW_SMALL_MESSAGE_LIMIT, big);
	if (in_copy) {
		switch (type) {
		case 'd':
			return big;
		case 'c':
		case 'f':
		case 'H':
		case 'S':
			return small;
		default:
			return 0;
		}
	}
	switch (type) {
	case 'Q':
	case 'F':
	case 'P':
	case 'B':
	case 'd':
		return big;
	case 'X':
	case 'C':
	case 'D':
	case 'E':
	case 'H':
	case 'S':
	case 'c':
	case 'f':
		return small;
	default:
		return 0;
	}
}

static pgw_read_result io_result(pgw_io_status st)
{
	switch (st) {
	case PGW_IO_OK:
		return PGW_RM_OK;
	case PGW_IO_TIMEOUT:
		return PGW_RM_TIMEOUT;
	case PGW_IO_STOP:
		return PGW_RM_STOP;
	case PGW_IO_WAIT:
		return PGW_RM_WAIT;
	default:
		return PGW_RM_EOF;
	}
}

pgw_read_result pgw_conn_read(pgw_conn *c, int64_t deadline, bool in_copy)
{
	if (c->mconsume) {
		pgw_io_consume(&c->io, c->mconsume);
		c->mconsume = 0;
	}
	pgw_io_status st = pgw_io_fill(&c->io, 1, deadline);
	if (st != PGW_IO_OK)
		return io_result(st);
	char type = (char)pgw_io_data(&c->io)[0];
	size_t limit = msg_limit(c, type, in_copy);
	/* An unknown type means we lost the message boundaries: nothing after
	 * it can be trusted, so do not even read its length. */
	if (!limit) {
		c->mtype = type;
		if (in_copy) {
			util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION,
				     "unexpected message type 0x%02X during COPY from stdin",
				     (unsigned char)type);
			return PGW_RM_UNEXPECTED;
		}
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid frontend message type %d",
			     (int)(unsigned char)type);
		return PGW_RM_BAD;
	}
	/* Once a message has started, its rest comes without an idle deadline
	 * (the deadline only bounds waiting for a new message). */
	int64_t body_deadline = c->sess ? 0 : deadline;
	st = pgw_io_fill(&c->io, 5, body_deadline);
	if (st != PGW_IO_OK)
		return io_result(st);
	uint32_t len = util_get_be32(pgw_io_data(&c->io) + 1);
	if (len < 4 || len > limit) {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid message length");
		return PGW_RM_BAD;
	}
	st = pgw_io_fill(&c->io, 1 + (size_t)len, body_deadline);
	if (st != PGW_IO_OK)
		return io_result(st);
	c->mtype = type;
	c->mbody = pgw_io_data(&c->io) + 5;
	c->mlen = len - 4;
	c->mconsume = 1 + (size_t)len;
	return PGW_RM_OK;
}

/* ------------------------------------------------------------ startup */

enum { SU_PROCEED = 0, SU_DONE = 1 };

/* Reads startup-phase packets until a StartupMessage; answers SSL and
 * GSSENC requests and serves a CancelRequest. Returns SU_PROCEED, SU_DONE
 * (connection finished normally) or -1 (error sent or silent close). */
static int do_startup(pgw_conn *c, int64_t deadline)
{
	bool ssl_done = false, gss_done = false;
	for (;;) {
		pgw_io_status st = pgw_io_fill(&c->io, 4, deadline);
		if (st != PGW_IO_OK)
			return -1; /* no or an incomplete packet: close silently, as PostgreSQL */
		uint32_t len = util_get_be32(pgw_io_data(&c->io));
		if (len < 8 || len > PGW_MAX_STARTUP_PACKET) {
			util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid length of startup packet");
			pgw_conn_fatal(c, &c->err);
			return -1;
		}
		if (pgw_io_fill(&c->io, len, deadline) != PGW_IO_OK)
			return -1;
		pgw_startup_free(&c->sp);
		int rc = pgw_startup_parse(pgw_io_data(&c->io) + 4, len - 4, &c->sp, &c->err);
		pgw_io_consume(&c->io, len);
		if (rc < 0) {
			if (c->sp.version == PGW_CANCEL_CODE)
				return -1; /* nobody reads a cancel connection's reply */
			if (c->sp.version >> 16 < 3) {
				/* A protocol 2 client understands only the old error
				 * format: 'E' and a line of text. */
				util_buf_putc(&c->io.out, 'E');
				util_buf_printf(&c->io.out, "FATAL:  %s\n", c->err.message);
				util_buf_putc(&c->io.out, '\0');
				pgw_io_flush(&c->io, util_mono_us() + FATAL_FLUSH_US);
				return -1;
			}
			pgw_conn_fatal(c, &c->err);
			return -1;
		}
		switch (c->sp.kind) {
		case PGW_SP_CANCEL:
			/* The reply is nothing: the client just closes. */
			if (sql_cancel(c->srv->engine, c->sp.cancel_pid, c->sp.cancel_key) != 0)
				util_debug("cancel request for unknown backend %d", (int)c->sp.cancel_pid);
			return SU_DONE;
		case PGW_SP_SSL:
		case PGW_SP_GSSENC: {
			bool ssl = c->sp.kind == PGW_SP_SSL;
			if (ssl ? ssl_done : gss_done) {
				util_err_set(
				    &c->err, UTIL_E_FEATURE_NOT_SUPPORTED,
				    "unsupported frontend protocol %u.%u: server supports 3.0 to 3.0",
				    c->sp.version >> 16, c->sp.version & 0xffff);
				pgw_conn_fatal(c, &c->err);
				return -1;
			}
			char answer = ssl && c->srv->tls && !c->is_unix ? 'S' : 'N';
			if (pgw_io_write_now(&c->io, &answer, 1, deadline) != PGW_IO_OK)
				return -1;
			/* Bytes that came before the handshake were not encrypted
			 * and may have been injected. */
			if (pgw_io_buffered(&c->io)) {
				util_err_set(
				    &c->err, UTIL_E_PROTOCOL_VIOLATION,
				    ssl ? "received unencrypted data after SSL request"
					: "received unencrypted data after GSSAPI encryption request");
				util_err_detail(&c->err,
						"This could be either a client-software bug or evidence of "
						"an attempted man-in-the-middle attack.");
				pgw_conn_fatal(c, &c->err);
				return -1;
			}
			if (answer == 'S') {
				char why[256];
				if (pgw_io_start_tls(&c->io, c->srv->tls, deadline, why, sizeof why) !=
				    PGW_IO_OK) {
					util_info("could not accept SSL connection from %s: %s", c->host,
						  why);
					return -1;
				}
			}
			if (ssl)
				ssl_done = true;
			else
				gss_done = true;
			continue;
		}
		case PGW_SP_STARTUP:
			break;
		}
		break;
	}
	/* A 3.x minor we do not have, or _pq_ options: tell the client what we
	 * speak (3.0) and which options we ignored. */
	if ((c->sp.version & 0xffff) > 0 || c->sp.nunknown > 0) {
		util_buf *b = &c->io.out;
		size_t at = pgw_wr_begin(b, 'v');
		pgw_wr_i32(b, (int32_t)PGW_PROTO(3, 0));
		pgw_wr_i32(b, c->sp.nunknown);
		for (int i = 0; i < c->sp.nunknown; i++)
			pgw_wr_str(b, c->sp.unknown[i]);
		pgw_wr_end(b, at);
	}
	return SU_PROCEED;
}

/* Takes one of max_connections, or reports 53300. */
static int take_slot(pgw_conn *c)
{
	pgw_server *s = c->srv;
	pthread_mutex_lock(&s->mu);
	bool ok = s->nsessions < s->opts.max_connections;
	if (ok)
		s->nsessions++;
	pthread_mutex_unlock(&s->mu);
	if (!ok) {
		util_err_set(&c->err, UTIL_E_TOO_MANY_CONNECTIONS, "sorry, too many clients already");
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	c->counted = true;
	return 0;
}

/* ParameterStatus for the session's reportable settings, remembered so
 * that later changes are sent only when the value really changed. */
static void report_param(void *arg, const char *name, const char *value)
{
	pgw_conn *c = arg;
	pgw_wr_param_status(&c->io.out, name, value);
	c->reported = util_xrealloc(c->reported, sizeof *c->reported * (size_t)(c->nreported + 1));
	c->reported[c->nreported].name = util_xstrdup(name);
	c->reported[c->nreported].value = util_xstrdup(value);
	c->nreported++;
}

static int open_session(pgw_conn *c)
{
	pgw_server *s = c->srv;
	sql_role_info role;
	memset(&role, 0, sizeof role);
	if (sql_role_lookup(s->engine, c->sp.user, &role, &c->err) < 0) {
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	if (!role.exists) {
		util_err_set(&c->err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
			     "role \"%s\" does not exist", c->sp.user);
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	if (!role.can_login) {
		util_err_set(&c->err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
			     "role \"%s\" is not permitted to log in", c->sp.user);
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	util_secure_zero(&role, sizeof role);
	if (c->sp.options_bad) {
		pgw_conn_fatal(c, &c->sp.options_err);
		return -1;
	}
	sql_startup st = {
	    .user = c->sp.user,
	    .database = c->sp.database,
	    .nparams = c->sp.nparams,
	    .names = c->sp.names,
	    .values = c->sp.values,
	};
	pgw_proto_client(c, &c->client);
	util_err_clear(&c->err);
	if (sql_session_open(s->engine, &st, &c->client, &c->sess, &c->err) < 0) {
		c->sess = NULL;
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	sql_session_report_params(c->sess, report_param, c);
	c->pid = sql_session_pid(c->sess);
	c->secret = sql_session_secret(c->sess);
	size_t at = pgw_wr_begin(&c->io.out, 'K');
	pgw_wr_i32(&c->io.out, c->pid);
	pgw_wr_i32(&c->io.out, c->secret);
	pgw_wr_end(&c->io.out, at);
	pthread_mutex_lock(&s->mu);
	c->has_key = true;
	pthread_mutex_unlock(&s->mu);
	return 0;
}

void pgw_conn_end(pgw_conn *c)
{
	pgw_server *s = c->srv;
	if (c->sess) {
		pthread_mutex_lock(&s->mu);
		c->has_key = false;
		pthread_mutex_unlock(&s->mu);
		sql_session_close(c->sess);
		c->sess = NULL;
	}
	pthread_mutex_lock(&s->mu);
	if (c->counted)
		s->nsessions--;
	if (c->prev)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nconns--;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	conn_free(c);
}

void *pgw_conn_main(void *arg)
{
	pgw_conn *c = arg;
	pgw_server *s = c->srv;
	int64_t deadline = util_mono_us() + (int64_t)s->opts.auth_timeout_ms * 1000;
	util_debug("connection received: host=%s", c->host);
	int rc = do_startup(c, deadline);
	bool over = true;
	if (rc == SU_PROCEED && take_slot(c) == 0 && pgw_auth(c, deadline) == 0 && open_session(c) == 0) {
		/* TLS keeps its thread: OpenSSL may hold decrypted bytes that no
		 * epoll set would report. */
		c->pooled = s->pool && !c->io.ssl;
		c->send_ready = true;
		over = pgw_proto_run(c);
	}
	if (!over)
		pgw_pool_add(s->pool, c); /* the pool owns c from here */
	else
		pgw_conn_end(c);
	pthread_mutex_lock(&s->mu);
	pgw_server_thread_done(s);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}
