/*
 * pgw.h — the PostgreSQL v3 wire-protocol server: listens, authenticates
 * and drives one sql_session per connection (one thread per connection).
 */
#ifndef STRATA_PGW_H
#define STRATA_PGW_H

#include <stdbool.h>
#include <stddef.h>

#include "sql.h"
#include "util.h"

typedef struct pgw_server pgw_server;

typedef struct pgw_opts {
	const char *listen_addr;   /* default "127.0.0.1"; "*" = all */
	int port;                  /* default 5433 */
	int max_connections;       /* default 200; beyond: 53300 */
	size_t max_message_bytes;  /* default 1 GiB - 1, as PostgreSQL */
	const char *hba_file;      /* NULL: trust on loopback, scram-sha-256 elsewhere */
	const char *tls_cert_file; /* TLS when both set */
	const char *tls_key_file;
	const char *tls_ca_file;   /* optional: client certificates */
	const char *unix_socket_dir; /* NULL = no Unix socket */
} pgw_opts;

void pgw_opts_default(pgw_opts *o);

/* Binds and listens; the engine is borrowed and must outlive the server. */
int pgw_server_start(const pgw_opts *o, sql_engine *e, pgw_server **out, util_err *err);
/* The port actually bound (useful with port 0). */
int pgw_server_port(const pgw_server *s);
/* Serves until pgw_server_shutdown() is called (from a signal handler's
 * thread or another thread); then closes connections and returns. */
int pgw_server_run(pgw_server *s);
/* Async-signal-safe: asks run() to stop (sessions get 57P01 and close). */
void pgw_server_shutdown(pgw_server *s);
void pgw_server_free(pgw_server *s);

#endif /* STRATA_PGW_H */
