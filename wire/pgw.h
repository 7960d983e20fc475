/*
 * pgw.h — the PostgreSQL v3 wire-protocol server: listens, authenticates
 * and drives one sql_session per connection (on a pool of worker threads,
 * or one thread per connection).
 * Protocol coverage, the hba file format and TLS setup: docs/wire.md.
 *
 * pgw_server_start() sets SIGPIPE to SIG_IGN for the whole process (writes
 * to a closed TLS connection would otherwise raise it).
 */
#ifndef STRATA_PGW_H
#define STRATA_PGW_H

#include <stdbool.h>
#include <stddef.h>

#include "sql.h"
#include "util.h"

typedef struct pgw_server pgw_server;

typedef struct pgw_opts {
	const char *listen_addr;   /* default "127.0.0.1"; comma-separated list; "*" = all */
	int port;                  /* default 5433; 0 = any free port (see pgw_server_port) */
	int max_connections;       /* default 200; beyond: 53300 */
	size_t max_message_bytes;  /* default 1 GiB - 1, as PostgreSQL */
	const char *hba_file;      /* NULL: trust on loopback, scram-sha-256 elsewhere */
	const char *tls_cert_file; /* TLS when both set */
	const char *tls_key_file;
	const char *tls_ca_file;     /* optional: verify client certificates when sent */
	const char *unix_socket_dir; /* NULL = no Unix socket */
	int auth_timeout_ms;         /* default 60000: startup + authentication must end in time */
	int auth_failure_delay_ms;   /* default 200: pause before reporting a failed password */
	/* Sessions between messages wait in an epoll set served by this many
	 * worker threads (more while some block; docs/wire.md "Threads"):
	 * 0 = one per core (default), -1 = a thread per connection instead. */
	int worker_threads;
} pgw_opts;

void pgw_opts_default(pgw_opts *o);

/* Binds and listens; the engine is borrowed and must outlive the server.
 * The option strings are copied. On failure *out is NULL and err says why. */
int pgw_server_start(const pgw_opts *o, sql_engine *e, pgw_server **out, util_err *err);
/* The port actually bound (useful with port 0). */
int pgw_server_port(const pgw_server *s);
/* Serves until pgw_server_shutdown() is called (from a signal handler or
 * another thread); then cancels running statements, ends every session
 * with FATAL 57P01, waits for the connection threads and returns 0. */
int pgw_server_run(pgw_server *s);
/* Async-signal-safe: asks run() to stop. */
void pgw_server_shutdown(pgw_server *s);
/* Frees a server whose run() has returned (or was never called). */
void pgw_server_free(pgw_server *s);

#endif /* STRATA_PGW_H */
