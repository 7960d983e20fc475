/*
 * wire_test.h — what the tests/wire programs share: a small test runner (cases,
 * CHECK, a "N passed, N failed" summary), libpq helpers, and a raw protocol
 * client for sending exactly the bytes a test wants (hostile input, messages
 * libpq never sends) and reading the replies message by message.
 */
#ifndef STRATA_WIRE_TEST_H
#define STRATA_WIRE_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "server_fixture.h"

/* ------------------------------------------------------------ runner */

typedef void (*wt_fn)(fixture_server *fx);
typedef struct wt_case {
	const char *name;
	wt_fn fn;
} wt_case;

/* Server arguments for a program: may write files into fx->dir first.
 * Returns a NULL-terminated list (static storage is fine). */
typedef const char *const *(*wt_args_fn)(fixture_server *fx);

/* Runs every case against one server started with args(fx) (args may be
 * NULL); the server's clean exit counts as one more check. argv[1], when
 * given, is the strata binary. Prints one line per failed check, then
 * "<suite>: N passed, N failed". Returns the process exit status. */
int wt_main(int argc, char **argv, const char *suite, wt_args_fn args, const wt_case *cases, int ncases);

void wt_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define CHECK(cond, ...)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			wt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                     \
	} while (0)
/* Failed checks so far in the current case. */
int wt_case_failures(void);

/* ------------------------------------------------------------ libpq */

/* Connects with fixture_conninfo(fx, extra); a failed connection is a
 * failed check and returns NULL. */
PGconn *wt_connect(const fixture_server *fx, const char *extra);
/* Connects expecting failure (a failed check if it succeeds); returns libpq's
 * error message (static buffer). libpq does not expose the SQLSTATE of a
 * failed connection: tests that check it use the raw client. */
const char *wt_connect_fail(const fixture_server *fx, const char *extra);
/* Runs sql expecting `want` (PGRES_COMMAND_OK / PGRES_TUPLES_OK); returns the
 * result (caller PQclear()s) or NULL after a failed check. */
PGresult *wt_exec(PGconn *c, const char *sql, ExecStatusType want);
/* Runs sql expecting an error with SQLSTATE state. */
void wt_exec_error(PGconn *c, const char *sql, const char *state);
/* The SQLSTATE of a result ("" if none). */
const char *wt_sqlstate(const PGresult *r);

/* ------------------------------------------------------------ raw protocol */

typedef struct raw_conn {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	/* the message last read (valid until the next read) */
	char type;
	const uint8_t *body;
	size_t blen;
	size_t consumed;
	char err_msg[512]; /* raw_trace: the message of its first error */
} raw_conn;

/* Connects a TCP socket; false on failure. */
bool raw_open(raw_conn *r, const char *host, int port);
void raw_close(raw_conn *r);
bool raw_send(raw_conn *r, const void *p, size_t n);
/* Sends a message: type (0 for none, as startup packets) and body. */
bool raw_send_msg(raw_conn *r, char type, const void *body, size_t n);
/* Sends a startup packet for user/database (protocol 3.0). */
bool raw_send_startup(raw_conn *r, const char *user, const char *db);
/* Reads one message: 1, 0 at EOF, -1 on timeout or error. */
int raw_read(raw_conn *r, int timeout_ms);
/* Reads one byte (SSLRequest answers): the byte, -2 at EOF, -1 on timeout. */
int raw_read_byte(raw_conn *r, int timeout_ms);
/* Reads messages until ReadyForQuery; true if it came. */
bool raw_until_ready(raw_conn *r, int timeout_ms);
/* Logs in with a startup packet and waits for ReadyForQuery (trust). */
bool raw_login(raw_conn *r, const char *host, int port, const char *user);
/* A field of the ErrorResponse/NoticeResponse last read ("" if absent). */
const char *raw_field(const raw_conn *r, char code);
/* The messages read until ReadyForQuery or EOF, as a string of type letters
 * (e.g. "1 2 T D C Z", "E EOF"); the SQLSTATE of the first error goes to state
 * (6 bytes, may be NULL) and its message to r->err_msg. */
const char *raw_trace(raw_conn *r, int timeout_ms, char *state);

/* Building message bodies. */
typedef struct raw_buf {
	uint8_t data[65536];
	size_t len;
} raw_buf;
void rb_reset(raw_buf *b);
void rb_i8(raw_buf *b, int v);
void rb_i16(raw_buf *b, int v);
void rb_i32(raw_buf *b, int32_t v);
void rb_str(raw_buf *b, const char *s);
void rb_bytes(raw_buf *b, const void *p, size_t n);

#endif /* STRATA_WIRE_TEST_H */
