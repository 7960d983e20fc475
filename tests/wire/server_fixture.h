/*
 * server_fixture.h — the server fixture for C test programs: start `strata` on a
 * free loopback port with a temporary data directory, wait until it accepts
 * connections, stop it (SIGTERM, then SIGKILL after a timeout) and keep its log
 * when something went wrong. Same rules and environment as tests/lib/fixture.sh
 * (docs/development.md, "The server fixture"):
 *
 *   STRATA_TEST_PORT / STRATA_TEST_HOST  use an already running server instead
 *                                        (nothing is started or stopped)
 *   STRATA_BIN, STRATA_BUILD             which binary (else build/asan, build/release)
 *   STRATA_LOGS                          where kept logs go (servers/ below it)
 *   FIX_START_TIMEOUT, FIX_STOP_TIMEOUT  seconds (60, 15)
 *   FIX_KEEP=always                      keep every log
 *   STRATA_TMP                           temp directory root (default /tmp)
 *
 *   fixture_server fx;
 *   if (fixture_init(&fx, "mytest") != 0) ...      // creates fx.dir for test files
 *   const char *args[] = {"--hba-file", path, NULL};
 *   int rc = fixture_start(&fx, args);             // 0, FIXTURE_SKIP or -1
 *   PGconn *c = PQconnectdb(fixture_conninfo(&fx, "user=postgres", buf, sizeof buf));
 *   ...
 *   fixture_stop(&fx, failed);                     // 0 if the server exited cleanly
 *
 * A server "did not exit cleanly" when it had to be killed, exited non-zero, or
 * its log holds a sanitizer report; the log is then kept and its path printed.
 */
#ifndef STRATA_SERVER_FIXTURE_H
#define STRATA_SERVER_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* fixture_start(): the tree has no server binary to start; skip the test. */
#define FIXTURE_SKIP 3

typedef struct fixture_server {
	char name[64];
	char host[64];
	int port;
	pid_t pid;      /* 0 when not started by us */
	bool external;  /* STRATA_TEST_PORT: someone else's server */
	char dir[256];  /* temporary directory (data/ and the test's files) */
	char log[320];  /* the server's log, inside dir */
	char kept[512]; /* where the log was kept, if it was */
	char bin[512];
} fixture_server;

/* Prepares fx and creates its temporary directory. 0 or -1. */
int fixture_init(fixture_server *fx, const char *name);
/* Starts the server with `--listen 127.0.0.1 --port N --data-dir DIR/data`
 * and the NULL-terminated extra arguments (may be NULL). Returns 0 once it
 * accepts connections, FIXTURE_SKIP if there is no binary and the tree has no
 * server/, -1 otherwise (log kept). With STRATA_TEST_PORT, only checks that
 * server answers. */
int fixture_start(fixture_server *fx, const char *const *extra_args);
/* Stops the server (keeps its log if keep_log or it did not exit cleanly)
 * and removes the temporary directory. Returns 0 on a clean exit. */
int fixture_stop(fixture_server *fx, bool keep_log);
/* Sends SIGTERM and waits for the exit (for shutdown tests); 0 if clean. */
int fixture_terminate(fixture_server *fx);
/* "host=... port=... dbname=postgres connect_timeout=10 " + extra, in buf. */
const char *fixture_conninfo(const fixture_server *fx, const char *extra, char *buf, size_t len);
/* Writes text to DIR/name and returns the path in buf. */
const char *fixture_write_file(const fixture_server *fx, const char *name, const char *text, char *buf,
			       size_t len);
/* The path of DIR/name in buf. */
const char *fixture_path(const fixture_server *fx, const char *name, char *buf, size_t len);

#endif /* STRATA_SERVER_FIXTURE_H */
