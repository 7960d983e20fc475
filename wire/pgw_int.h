/*
 * pgw_int.h — wire/ internals shared by its files: the bounds-checked
 * message reader, the message writer, buffered socket/TLS I/O, the startup
 * packet, host-based authentication rules, the SCRAM exchange, and the
 * server and connection structs. Nothing outside wire/ includes this
 * (except wire/test and wire/fuzz).
 */
#ifndef STRATA_PGW_INT_H
#define STRATA_PGW_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "pgw.h"
#include "sql.h"
#include "util.h"

/* Limits PostgreSQL applies (pqcomm.h, postmaster.c). */
#define PGW_SMALL_MESSAGE_LIMIT 10000 /* Sync, Close, Describe, Execute ... */
#define PGW_MAX_STARTUP_PACKET  10000
#define PGW_NAMEDATALEN         64 /* identifiers are cut to 63 bytes */
#define PGW_PROTO(major, minor) (((uint32_t)(major) << 16) | (minor))
#define PGW_CANCEL_CODE         PGW_PROTO(1234, 5678)
#define PGW_SSL_CODE            PGW_PROTO(1234, 5679)
#define PGW_GSSENC_CODE         PGW_PROTO(1234, 5680)

/* ------------------------------------------------------------ message reader */

/*
 * A cursor over one message body. Reads past the end or malformed strings
 * do not crash: they return zero values and remember the first problem in
 * `err` (PostgreSQL's pq_getmsg* messages); check with pgw_rd_check() when
 * done. The body must stay valid while the reader is used.
 */
typedef struct pgw_rd {
	const uint8_t *p, *end;
	const char *err; /* first decoding problem, NULL if none */
} pgw_rd;

static inline void pgw_rd_init(pgw_rd *r, const void *data, size_t len)
{
	r->p = data;
	r->end = r->p + len;
	r->err = NULL;
}
static inline size_t pgw_rd_left(const pgw_rd *r)
{
	return (size_t)(r->end - r->p);
}
uint8_t pgw_rd_u8(pgw_rd *r);
int16_t pgw_rd_i16(pgw_rd *r);
int32_t pgw_rd_i32(pgw_rd *r);
/* n bytes; NULL (and err set) if fewer remain. */
const uint8_t *pgw_rd_bytes(pgw_rd *r, size_t n);
/* A NUL-terminated string inside the body; "" (and err set) if unterminated. */
const char *pgw_rd_str(pgw_rd *r);
/* Requires that the whole body was consumed ("invalid message format"). */
void pgw_rd_end(pgw_rd *r);
/* 0 if no problem so far, else sets err to 08P01 with the problem; -1. */
int pgw_rd_check(const pgw_rd *r, util_err *err);

/* ------------------------------------------------------------ message writer */

/* Starts a message of `type` in b; returns the offset to pass to _end(),
 * which patches the length. */
size_t pgw_wr_begin(util_buf *b, char type);
void pgw_wr_end(util_buf *b, size_t at);
static inline void pgw_wr_u8(util_buf *b, uint8_t v)
{
	util_buf_put_u8(b, v);
}
static inline void pgw_wr_i16(util_buf *b, int16_t v)
{
	util_buf_put_be16(b, (uint16_t)v);
}
static inline void pgw_wr_i32(util_buf *b, int32_t v)
{
	util_buf_put_be32(b, (uint32_t)v);
}
/* Writes s and its NUL terminator. */
void pgw_wr_str(util_buf *b, const char *s);
static inline void pgw_wr_bytes(util_buf *b, const void *p, size_t n)
{
	util_buf_append(b, p, n);
}

/* ErrorResponse ('E') or NoticeResponse ('N') with every field e carries. */
void pgw_wr_error(util_buf *b, const util_err *e, bool notice);
void pgw_wr_rowdesc(util_buf *b, const sql_rowdesc *d);
void pgw_wr_param_status(util_buf *b, const char *name, const char *value);
void pgw_wr_ready(util_buf *b, char txn_status);
/* CommandComplete 'C' with a tag. */
void pgw_wr_complete(util_buf *b, const char *tag);
/* A message with an empty body ('1', '2', '3', 'n', 'I', 's', 'c'). */
void pgw_wr_empty(util_buf *b, char type);

/* ------------------------------------------------------------ UTF-8 */

/* Length of the longest valid UTF-8 prefix of s[0..n) (PostgreSQL's rules:
 * no overlong forms, surrogates, code points past U+10FFFF or NUL bytes). */
size_t pgw_utf8_valid_prefix(const uint8_t *s, size_t n);
/* 0 if s[0..n) is valid UTF-8, else 22021 "invalid byte sequence for
 * encoding "UTF8": 0x.." exactly as PostgreSQL words it; -1. */
int pgw_utf8_check(const void *s, size_t n, util_err *err);

/* ------------------------------------------------------------ frontend messages */

/* Arrays for decoded messages, reused from message to message; free with
 * pgw_fe_scratch_free(). */
typedef struct pgw_fe_scratch {
	int16_t *fmts, *rfmts;
	const uint8_t **vals;
	int32_t *lens;
	uint32_t *oids;
	int cap;
} pgw_fe_scratch;
void pgw_fe_scratch_free(pgw_fe_scratch *s);

typedef struct pgw_parse_msg {
	const char *name, *query;
	int nparams;
	const uint32_t *types;
} pgw_parse_msg;

typedef struct pgw_bind_msg {
	const char *portal, *stmt;
	sql_bind_params p;
} pgw_bind_msg;

/* Decoders of message bodies: 0, or -1 with err set (08P01 for malformed
 * bodies, 22021 for invalid UTF-8). Outputs point into the body or the
 * scratch and are valid while both are. */
int pgw_decode_query(const uint8_t *b, size_t n, const char **query, util_err *err);
int pgw_decode_parse(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_parse_msg *m, util_err *err);
int pgw_decode_bind(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_bind_msg *m, util_err *err);
typedef struct pgw_fcall_msg {
	uint32_t fn;       /* the function's pg_proc oid */
	sql_bind_params p; /* arguments; result_formats[0] the result's format */
} pgw_fcall_msg;
int pgw_decode_fcall(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_fcall_msg *m, util_err *err);
/* Describe and Close: a kind ('S' or 'P', unchecked) and a name. */
int pgw_decode_target(const uint8_t *b, size_t n, char *kind, const char **name, util_err *err);
int pgw_decode_execute(const uint8_t *b, size_t n, const char **portal, int32_t *max_rows, util_err *err);
int pgw_decode_copy_fail(const uint8_t *b, size_t n, const char **msg, util_err *err);

/* ------------------------------------------------------------ startup packet */

typedef enum pgw_startup_kind {
	PGW_SP_STARTUP = 0,
	PGW_SP_SSL,
	PGW_SP_GSSENC,
	PGW_SP_CANCEL,
} pgw_startup_kind;

/* A parsed startup-phase packet. Strings live in `mem`; caller frees with
 * pgw_startup_free(). */
typedef struct pgw_startup {
	pgw_startup_kind kind;
	uint32_t version;
	int32_t cancel_pid, cancel_key;
	const char *user;     /* NULL if absent */
	const char *database; /* defaults to user */
	/* Settings: plain parameters and "-c name=value" from options, in order. */
	int nparams;
	const char **names, **values;
	/* _pq_.* options we do not know (NegotiateProtocolVersion). */
	int nunknown;
	const char **unknown;
	/* A bad "options" value: PostgreSQL reports it only after
	 * authentication, so it is kept for then. */
	bool options_bad;
	util_err options_err;
	util_arena *mem;
} pgw_startup;

/* Parses the body of a startup-phase packet (after its Int32 length).
 * Protocol versions other than 3.x are an error (0A000); bad layout 08P01;
 * a bad "options" value 42601; a missing user 28000. Returns -1 with err set
 * (the message to send as FATAL). */
int pgw_startup_parse(const uint8_t *body, size_t len, pgw_startup *out, util_err *err);
void pgw_startup_free(pgw_startup *s);

/* ------------------------------------------------------------ host-based authentication */

typedef enum pgw_auth_method {
	PGW_AUTH_TRUST = 0,
	PGW_AUTH_REJECT,
	PGW_AUTH_PASSWORD,
	PGW_AUTH_MD5,
	PGW_AUTH_SCRAM,
	PGW_AUTH_PEER,
	PGW_AUTH_NO_MATCH,
} pgw_auth_method;

typedef struct pgw_hba pgw_hba;

typedef struct pgw_hba_client {
	bool local; /* Unix socket */
	const struct sockaddr *addr;
	bool ssl;
	const char *user;
	const char *database;
} pgw_hba_client;

/* Parses rules from text (`source` names it in errors); 0 or -1 with err
 * ("<source>:<line>: ..."). Caller frees *out with pgw_hba_free(). */
int pgw_hba_parse(const char *text, const char *source, pgw_hba **out, util_err *err);
int pgw_hba_load(const char *path, pgw_hba **out, util_err *err);
/* The rules used without a file: trust on loopback and the Unix socket,
 * scram-sha-256 from anywhere else. */
pgw_hba *pgw_hba_default(void);
void pgw_hba_free(pgw_hba *h);
/* The method of the first matching rule (PGW_AUTH_NO_MATCH if none); *line
 * gets its line number (0 if none). */
pgw_auth_method pgw_hba_match(const pgw_hba *h, const pgw_hba_client *c, int *line);
const char *pgw_auth_method_name(pgw_auth_method m);

/* ------------------------------------------------------------ SCRAM-SHA-256 */

typedef enum pgw_sasl_result {
	PGW_SASL_CONTINUE = 0, /* send `out` as AuthenticationSASLContinue */
	PGW_SASL_DONE,         /* send `out` as AuthenticationSASLFinal, then Ok */
	PGW_SASL_FAIL,         /* err says why (28P01 wrong password, 08P01 malformed) */
} pgw_sasl_result;

typedef struct pgw_scram {
	int state;
	bool doomed;            /* unknown role or no usable secret: fail at the end */
	bool cb_offered;        /* TLS: SCRAM-SHA-256-PLUS is offered */
	bool cb_used;           /* the client chose SCRAM-SHA-256-PLUS */
	const uint8_t *cb_data; /* tls-server-end-point hash (borrowed) */
	size_t cb_len;
	const char *user;
	int iterations;
	uint8_t salt[64];
	size_t saltlen;
	uint8_t stored_key[32], server_key[32];
	char *client_first_bare, *server_first, *client_nonce, *gs2_header;
	char server_nonce[40];
} pgw_scram;

/* secret: the role's SCRAM secret, or NULL to run a mock exchange that fails
 * (unknown role, md5 secret, no password) without telling the client why.
 * cb_data: the channel-binding hash when TLS is on, else NULL. server_nonce:
 * NULL for a random one (tests pass a fixed one). user is borrowed. */
int pgw_scram_init(pgw_scram *s, const char *user, const char *secret, const uint8_t *cb_data, size_t cb_len,
		   const char *server_nonce, util_err *err);
/* The AuthenticationSASL mechanism list (each NUL-terminated, then a final NUL). */
void pgw_scram_mechanisms(const pgw_scram *s, util_buf *out);
/* One client message: mech is the SASLInitialResponse mechanism for the
 * first call and NULL after. */
pgw_sasl_result pgw_scram_step(pgw_scram *s, const char *mech, const uint8_t *in, size_t inlen, util_buf *out,
			       util_err *err);
void pgw_scram_free(pgw_scram *s);

/* ------------------------------------------------------------ buffered I/O */

typedef enum pgw_io_status {
	PGW_IO_OK = 0,
	PGW_IO_EOF,     /* peer closed */
	PGW_IO_TIMEOUT, /* deadline passed */
	PGW_IO_STOP,    /* server is shutting down */
	PGW_IO_ERROR,   /* socket or TLS error */
	PGW_IO_WAIT,    /* no data yet and io->yield set: come back when readable */
} pgw_io_status;

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

typedef struct pgw_io {
	int fd;      /* a blocking socket: every call but the idle read passes MSG_DONTWAIT */
	SSL *ssl;    /* NULL = plain socket; TLS makes the socket non-blocking */
	int stop_fd; /* readable once the server shuts down */
	const atomic_bool *stopping; /* the server's flag (may be NULL) */
	/* Set while blocked in the idle read, which has no poll() on stop_fd:
	 * shutdown ends that read with shutdown(fd, SHUT_RD) (pgw_io_unpark). */
	atomic_bool parked;
	uint8_t *rbuf;
	size_t rcap, rstart, rend;
	util_buf out;
	bool broken;  /* a write failed: the connection is unusable */
	bool replied; /* output was sent since the last read: the client is
		       * likely still busy, so wait before trying to read */
	bool yield;   /* a read finding no data returns PGW_IO_WAIT instead of
		       * blocking (a pooled connection between messages) */
	bool defer;   /* with yield: a reply followed by nothing to read stays in
		       * out and the read returns PGW_IO_WAIT; the pool sends it
		       * together with other sessions' replies (pool.c) */
} pgw_io;

void pgw_io_init(pgw_io *io, int fd, int stop_fd, const atomic_bool *stopping);
void pgw_io_free(pgw_io *io);
/* Makes sure at least n bytes are buffered; deadline is a util_mono_us()
 * time or 0 for none. Pending output is flushed before blocking. The buffer
 * grows only as data arrives, so a client announcing a huge message costs
 * nothing until it sends it. */
pgw_io_status pgw_io_fill(pgw_io *io, size_t n, int64_t deadline);
/* True when output would be left to the pool rather than flushed now
 * (io->defer, and no input buffered). */
bool pgw_io_deferring(const pgw_io *io);
/* Drops the first n bytes of out, sent by the caller. */
void pgw_io_sent(pgw_io *io, size_t n);
static inline const uint8_t *pgw_io_data(const pgw_io *io)
{
	return io->rbuf + io->rstart;
}
static inline size_t pgw_io_buffered(const pgw_io *io)
{
	return io->rend - io->rstart;
}
void pgw_io_consume(pgw_io *io, size_t n);
/* Ends an idle read blocked in recv() (server shutdown, after setting the
 * stopping flag); the caller keeps the fd open meanwhile (srv->mu). */
void pgw_io_unpark(pgw_io *io);
/* Writes all pending output. */
pgw_io_status pgw_io_flush(pgw_io *io, int64_t deadline);
/* TLS handshake on the socket (nothing may be buffered). */
pgw_io_status pgw_io_start_tls(pgw_io *io, SSL_CTX *ctx, int64_t deadline, char *why, size_t whylen);
/* Writes raw bytes now (SSLRequest answer). */
pgw_io_status pgw_io_write_now(pgw_io *io, const void *p, size_t n, int64_t deadline);

/* ------------------------------------------------------------ TLS */

/* Loads certificate and key (and an optional CA for client certificates);
 * fills the tls-server-end-point hash of the certificate. */
int pgw_tls_context(const char *cert, const char *key, const char *ca, SSL_CTX **out, uint8_t *cb_hash,
		    size_t *cb_len, util_err *err);
void pgw_tls_free(SSL_CTX *ctx);

/* ------------------------------------------------------------ server and connections */

#define PGW_MAX_LISTEN 16

typedef struct pgw_conn pgw_conn;
typedef struct pgw_pool pgw_pool;

struct pgw_server {
	pgw_opts opts; /* strings owned (copied) */
	sql_engine *engine;
	int lfd[PGW_MAX_LISTEN];
	int nlfd;
	int unix_fd;
	char unix_path[108];
	int port;
	int stop_pipe[2]; /* [0] becomes readable at shutdown and stays so */
	int reap_pipe[2]; /* a connection thread ended: join it */
	atomic_bool stopping;
	SSL_CTX *tls;
	uint8_t cb_hash[64];
	size_t cb_len;

	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t cv;  /* signalled when a connection thread ends */
	pgw_conn *conns;
	int nconns;   /* connections alive (with a thread or pooled) */
	int nthreads; /* connection threads alive (pool workers not counted) */
	/* Threads that finished and await pthread_join (joining, not
	 * detaching, makes sure their exit, OpenSSL's per-thread cleanup
	 * included, is over before the server is freed). */
	pthread_t *finished;
	int nfinished, capfinished;
	int nsessions; /* connections counted against max_connections */
	pgw_hba *hba;
	int64_t hba_mtime_ns;
	pgw_pool *pool; /* NULL: a thread per connection throughout */
};

/* A reported setting (ParameterStatus) and its last value sent. */
typedef struct pgw_param {
	char *name, *value;
} pgw_param;

typedef enum pgw_read_result {
	PGW_RM_OK = 0,
	PGW_RM_EOF,        /* peer closed or socket error: close silently */
	PGW_RM_TIMEOUT,    /* the deadline passed */
	PGW_RM_STOP,       /* shutdown */
	PGW_RM_BAD,        /* framing error: c->err holds the FATAL to send */
	PGW_RM_UNEXPECTED, /* during COPY: a type that does not belong there */
	PGW_RM_WAIT,       /* pooled: no complete message yet (PGW_IO_WAIT) */
} pgw_read_result;

struct pgw_conn {
	pgw_server *srv;
	pgw_conn *next, *prev; /* srv->conns, under srv->mu */
	int fd;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	bool is_unix;
	char host[64]; /* client address for messages, "[local]" on the socket */
	pgw_io io;
	pgw_startup sp;
	bool counted; /* holds one of max_connections */
	sql_client client;
	sql_session *sess;
	bool has_key; /* pid/secret registered for shutdown cancel (srv->mu) */
	int32_t pid, secret;

	/* The message last read: valid until the next read. */
	char mtype;
	const uint8_t *mbody;
	size_t mlen, mconsume;

	/* Served by the worker pool between messages (pool.c); the message
	 * loop's state lives here so that it can stop at the next read. */
	bool pooled;
	bool send_ready;  /* ReadyForQuery is due before the next read */
	int64_t deadline; /* of the pending read: idle timeouts (0 = none) */
	util_errcode idle_code;
	/* Set while a thread owns the connection (pool.c): cleared (release)
	 * once the socket is back in an epoll set and the thread is done with
	 * it; the worker woken for it may come before that returns, and waits. */
	atomic_bool pool_busy;
	bool pool_doomed; /* its reply or re-arm failed: the next step ends it */

	bool ignore_till_sync; /* an extended-protocol error: skip to Sync */
	bool in_copy_in;
	bool terminate;     /* close after the current message */
	bool sync_lost;     /* COPY saw a foreign message: close after its error */
	bool fatal_pending; /* `fatal` is to be sent instead of the statement's error */
	util_err fatal;

	util_buf cur; /* a stable copy of the current message's text */
	pgw_fe_scratch scratch;

	pgw_param *reported, *pending;
	int nreported, npending;
	util_err err; /* scratch for the message being handled */
};

/* Reads the next message into c->mtype/mbody/mlen (valid until the next
 * read). deadline as for pgw_io_fill; in_copy selects COPY's message set. */
pgw_read_result pgw_conn_read(pgw_conn *c, int64_t deadline, bool in_copy);
/* Sends e as a FATAL ErrorResponse and flushes (best effort). */
void pgw_conn_fatal(pgw_conn *c, util_err *e);
/* Authentication (auth.c): runs the method the hba rules choose and sends
 * AuthenticationOk; -1 after sending the FATAL (or on a silent close). */
int pgw_auth(pgw_conn *c, int64_t deadline);
/* The session's message loop (proto.c), from the first ReadyForQuery to the
 * end of the connection: returns true when the connection is over, false when
 * a pooled connection (c->pooled) waits for input; call again once its socket
 * is readable. c->send_ready must be true for the first call. */
bool pgw_proto_run(pgw_conn *c);
/* The sql_client callbacks of a connection (proto.c). */
void pgw_proto_client(pgw_conn *c, sql_client *cl);

/* The connection thread's entry point (conn.c); takes ownership of c:
 * serves it to its end or hands it to the pool. */
void *pgw_conn_main(void *arg);
/* Closes c's session, drops it from the server's lists and frees it. */
void pgw_conn_end(pgw_conn *c);
pgw_conn *pgw_conn_new(pgw_server *s, int fd, const struct sockaddr *addr, socklen_t len, bool is_unix);
/* Called by a connection thread as its last act, under srv->mu. */
void pgw_server_thread_done(pgw_server *s);
/* The worker pool (pool.c). start: `workers` threads (> 0) and the monitor;
 * on failure s->pool may be set and is freed by pgw_pool_stop. add: takes
 * ownership of a pooled connection that waits for input (its socket must
 * not be in the set yet). stop: once no connection is left; joins every
 * thread and frees the pool (NULL: nothing). */
int pgw_pool_start(pgw_server *s, int workers, util_err *err);
void pgw_pool_add(pgw_pool *p, pgw_conn *c);
void pgw_pool_stop(pgw_pool *p);

/* Current hba rules (re-read when the file changed); returns a rule set the
 * caller matches against under srv->mu. */
pgw_auth_method pgw_server_hba_match(pgw_server *s, const pgw_hba_client *c, int *line);
/* Shutdown (after setting srv->stopping): asks the engine to cancel every
 * running statement and ends the sessions' idle reads. */
void pgw_server_cancel_all(pgw_server *s);

#endif /* STRATA_PGW_INT_H */
