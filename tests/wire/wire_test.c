/* wire_test.c — the shared runner, libpq helpers and raw protocol client of the tests/wire
 * programs (see wire_test.h). */
#include "wire_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int failures_total, failures_case;
static const char *case_name = "";

void wt_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("# FAIL %s: %s:%d: %s%s%s\n", case_name, file, line, expr, msg[0] ? " — " : "", msg);
	fflush(stdout);
	failures_total++;
	failures_case++;
}

int wt_case_failures(void)
{
	return failures_case;
}

int wt_main(int argc, char **argv, const char *suite, wt_args_fn args, const wt_case *cases, int ncases)
{
	if (argc > 1)
		setenv("STRATA_BIN", argv[1], 1);
	signal(SIGPIPE, SIG_IGN);
	const char *only = getenv("WIRE_TEST_ONLY");
	fixture_server fx;
	if (fixture_init(&fx, suite) != 0) {
		printf("%s: 0 passed, 1 failed\n", suite);
		return 1;
	}
	const char *const *a = args ? args(&fx) : NULL;
	int rc = fixture_start(&fx, a);
	if (rc == FIXTURE_SKIP) {
		fixture_stop(&fx, false);
		printf("%s: 0 passed, 0 failed, %d skipped\n", suite, ncases);
		return 0;
	}
	if (rc != 0) {
		fixture_stop(&fx, true);
		printf("%s: 0 passed, %d failed\n", suite, ncases);
		return 1;
	}
	int passed = 0, failed = 0;
	for (int i = 0; i < ncases; i++) {
		if (only && !strstr(only, cases[i].name))
			continue;
		case_name = cases[i].name;
		failures_case = 0;
		cases[i].fn(&fx);
		if (failures_case) {
			failed++;
		} else {
			passed++;
			if (getenv("WIRE_TEST_VERBOSE"))
				printf("ok %s\n", cases[i].name);
		}
	}
	case_name = "server shutdown";
	failures_case = 0;
	if (fixture_stop(&fx, failures_total > 0) != 0)
		CHECK(false, "the server did not exit cleanly (log: %s)", fx.kept);
	if (failures_case)
		failed++;
	else
		passed++;
	printf("%s: %d passed, %d failed\n", suite, passed, failed);
	return failed ? 1 : 0;
}

/* ------------------------------------------------------------ libpq */

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

PGconn *wt_connect(const fixture_server *fx, const char *extra)
{
	char ci[1024];
	PGconn *c = PQconnectdb(fixture_conninfo(fx, extra ? extra : "user=postgres", ci, sizeof ci));
	if (PQstatus(c) != CONNECTION_OK) {
		CHECK(false, "connect %s: %s", ci, PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	return c;
}

const char *wt_connect_fail(const fixture_server *fx, const char *extra)
{
	static char msg[1024];
	char ci[1024];
	PGconn *c = PQconnectdb(fixture_conninfo(fx, extra, ci, sizeof ci));
	msg[0] = '\0';
	if (PQstatus(c) == CONNECTION_OK)
		CHECK(false, "connect %s succeeded but should have failed", ci);
	else
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
	PQfinish(c);
	return msg;
}

const char *wt_sqlstate(const PGresult *r)
{
	const char *s = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	return s ? s : "";
}

PGresult *wt_exec(PGconn *c, const char *sql, ExecStatusType want)
{
	if (!c)
		return NULL;
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != want) {
		CHECK(false, "%s: got %s (%s) %s", sql, PQresStatus(PQresultStatus(r)), wt_sqlstate(r),
		      PQresultErrorMessage(r));
		PQclear(r);
		return NULL;
	}
	return r;
}

void wt_exec_error(PGconn *c, const char *sql, const char *state)
{
	if (!c)
		return;
	PGresult *r = PQexec(c, sql);
	CHECK(PQresultStatus(r) == PGRES_FATAL_ERROR && strcmp(wt_sqlstate(r), state) == 0,
	      "%s: expected error %s, got %s (%s) %s", sql, state, PQresStatus(PQresultStatus(r)),
	      wt_sqlstate(r), PQresultErrorMessage(r));
	PQclear(r);
}

/* ------------------------------------------------------------ raw protocol */

bool raw_open(raw_conn *r, const char *host, int port)
{
	memset(r, 0, sizeof *r);
	r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, host, &a.sin_addr);
	if (r->fd < 0 || connect(r->fd, (struct sockaddr *)&a, sizeof a) != 0) {
		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		return false;
	}
	int one = 1;
	setsockopt(r->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	r->cap = 1 << 16;
	r->buf = malloc(r->cap);
	return true;
}

void raw_close(raw_conn *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
}

bool raw_send(raw_conn *r, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t w = send(r->fd, b, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		b += w;
		n -= (size_t)w;
	}
	return true;
}

bool raw_send_msg(raw_conn *r, char type, const void *body, size_t n)
{
	uint8_t *m = malloc(n + 5);
	size_t o = 0;
	if (type)
		m[o++] = (uint8_t)type;
	uint32_t len = htonl((uint32_t)(n + 4));
	memcpy(m + o, &len, 4);
	o += 4;
	if (n)
		memcpy(m + o, body, n);
	bool ok = raw_send(r, m, o + n);
	free(m);
	return ok;
}

bool raw_send_startup(raw_conn *r, const char *user, const char *db)
{
	raw_buf b;
	rb_reset(&b);
	rb_i32(&b, 196608);
	rb_str(&b, "user");
	rb_str(&b, user);
	rb_str(&b, "database");
	rb_str(&b, db);
	rb_i8(&b, 0);
	return raw_send_msg(r, 0, b.data, b.len);
}

/* Waits for and reads more bytes: 1, 0 at EOF, -1 timeout/error. */
static int fill(raw_conn *r, size_t need, int timeout_ms)
{
	while (r->len < need) {
		if (r->len == r->cap) {
			r->cap *= 2;
			r->buf = realloc(r->buf, r->cap);
		}
		struct pollfd p = {.fd = r->fd, .events = POLLIN};
		int pr = poll(&p, 1, timeout_ms);
		if (pr <= 0)
			return -1;
		ssize_t n = recv(r->fd, r->buf + r->len, r->cap - r->len, 0);
		if (n == 0)
			return 0;
		if (n < 0)
			return errno == ECONNRESET ? 0 : -1;
		r->len += (size_t)n;
	}
	return 1;
}

static void drop_consumed(raw_conn *r)
{
	if (r->consumed) {
		memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
		r->len -= r->consumed;
		r->consumed = 0;
	}
}

int raw_read(raw_conn *r, int timeout_ms)
{
	drop_consumed(r);
	int rc = fill(r, 5, timeout_ms);
	if (rc != 1)
		return rc;
	uint32_t len;
	memcpy(&len, r->buf + 1, 4);
	len = ntohl(len);
	if (len < 4)
		return -1;
	rc = fill(r, 1 + (size_t)len, timeout_ms);
	if (rc != 1)
		return rc;
	r->type = (char)r->buf[0];
	r->body = r->buf + 5;
	r->blen = len - 4;
	r->consumed = 1 + (size_t)len;
	return 1;
}

int raw_read_byte(raw_conn *r, int timeout_ms)
{
	drop_consumed(r);
	int rc = fill(r, 1, timeout_ms);
	if (rc == 0)
		return -2;
	if (rc < 0)
		return -1;
	int b = r->buf[0];
	r->consumed = 1;
	return b;
}

bool raw_until_ready(raw_conn *r, int timeout_ms)
{
	for (;;) {
		if (raw_read(r, timeout_ms) != 1)
			return false;
		if (r->type == 'Z')
			return true;
	}
}

bool raw_login(raw_conn *r, const char *host, int port, const char *user)
{
	if (!raw_open(r, host, port))
		return false;
	return raw_send_startup(r, user, "postgres") && raw_until_ready(r, 10000);
}

const char *raw_field(const raw_conn *r, char code)
{
	if (r->type != 'E' && r->type != 'N')
		return "";
	const uint8_t *p = r->body, *end = r->body + r->blen;
	while (p < end && *p) {
		char c = (char)*p++;
		const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
		if (!nul)
			return "";
		if (c == code)
			return (const char *)p;
		p = nul + 1;
	}
	return "";
}

const char *raw_trace(raw_conn *r, int timeout_ms, char *state)
{
	static char out[4096];
	size_t o = 0;
	out[0] = '\0';
	if (state)
		state[0] = '\0';
	r->err_msg[0] = '\0';
	bool seen_error = false;
	for (;;) {
		int rc = raw_read(r, timeout_ms);
		if (rc != 1) {
			o += (size_t)snprintf(out + o, sizeof out - o, "%s", rc == 0 ? "EOF" : "TIMEOUT");
			break;
		}
		if (r->type == 'E' && !seen_error) {
			seen_error = true;
			if (state)
				snprintf(state, 6, "%s", raw_field(r, 'C'));
			snprintf(r->err_msg, sizeof r->err_msg, "%s", raw_field(r, 'M'));
		}
		o += (size_t)snprintf(out + o, sizeof out - o, "%c ", r->type);
		if (r->type == 'Z' || o > sizeof out - 16)
			break;
	}
	if (o && out[o - 1] == ' ')
		out[--o] = '\0';
	return out;
}

void rb_reset(raw_buf *b)
{
	b->len = 0;
}
void rb_bytes(raw_buf *b, const void *p, size_t n)
{
	if (b->len + n > sizeof b->data)
		n = sizeof b->data - b->len;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}
void rb_i8(raw_buf *b, int v)
{
	uint8_t x = (uint8_t)v;
	rb_bytes(b, &x, 1);
}
void rb_i16(raw_buf *b, int v)
{
	uint16_t x = htons((uint16_t)v);
	rb_bytes(b, &x, 2);
}
void rb_i32(raw_buf *b, int32_t v)
{
	uint32_t x = htonl((uint32_t)v);
	rb_bytes(b, &x, 4);
}
void rb_str(raw_buf *b, const char *s)
{
	rb_bytes(b, s, strlen(s) + 1);
}
