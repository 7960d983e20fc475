/* wire_hostile_test.c — hostile and malformed input over raw sockets: truncated, oversized and
 * wrong-length messages, unknown types, bad strings, invalid UTF-8, garbage startup packets and
 * abandoned connections. Each case checks the reply (SQLSTATE, whether the connection survives)
 * as PostgreSQL 15 gives it, and that other sessions keep working. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire_test.h"

/* A fresh session still works (after each hostile case). */
static void check_alive(fixture_server *fx, const char *after)
{
	raw_conn r;
	bool ok = raw_login(&r, fx->host, fx->port, "postgres");
	if (ok) {
		raw_send_msg(&r, 'Q', "select 1", 9);
		const char *t = raw_trace(&r, 10000, NULL);
		ok = strcmp(t, "T D C Z") == 0;
	}
	CHECK(ok, "server not answering after %s", after);
	raw_close(&r);
}

static bool login(fixture_server *fx, raw_conn *r)
{
	bool ok = raw_login(r, fx->host, fx->port, "postgres");
	CHECK(ok, "login");
	return ok;
}

/* The connection ended with a FATAL of the given SQLSTATE, or (where
 * PostgreSQL just closes) silently when silent_ok. */
static void check_fatal_close(raw_conn *r, const char *state, bool silent_ok, const char *what)
{
	char st[8];
	const char *t = raw_trace(r, 10000, st);
	bool fatal = strcmp(t, "E EOF") == 0 && strcmp(st, state) == 0;
	CHECK(fatal || (silent_ok && strcmp(t, "EOF") == 0), "%s: got \"%s\" (%s)", what, t, st);
}

/* An ERROR with the SQLSTATE and message, then ReadyForQuery: the session survives. */
static void check_error_ready(raw_conn *r, const char *state, const char *msg, const char *what)
{
	char st[8];
	const char *t = raw_trace(r, 10000, st);
	CHECK(strcmp(t, "E Z") == 0 && strcmp(st, state) == 0, "%s: got \"%s\" (%s)", what, t, st);
	if (msg)
		CHECK(strcmp(r->err_msg, msg) == 0, "%s: message \"%s\"", what, r->err_msg);
	raw_send_msg(r, 'Q', "select 1", 9);
	t = raw_trace(r, 10000, NULL);
	CHECK(strcmp(t, "T D C Z") == 0, "%s: session not usable afterwards: %s", what, t);
}

static void test_unknown_type(fixture_server *fx)
{
	raw_conn r;
	if (!login(fx, &r))
		return;
	raw_send_msg(&r, 'Z', NULL, 0);
	check_fatal_close(&r, "08P01", false, "unknown message type");
	raw_close(&r);
	/* a lone garbage byte is enough */
	if (!login(fx, &r))
		return;
	raw_send(&r, "\x01", 1);
	check_fatal_close(&r, "08P01", false, "garbage byte");
	raw_close(&r);
	check_alive(fx, "unknown types");
}

static void test_bad_lengths(fixture_server *fx)
{
	raw_conn r;
	/* shorter than the length field itself */
	if (!login(fx, &r))
		return;
	raw_send(&r, "Q\0\0\0\3", 5);
	check_fatal_close(&r, "08P01", true, "length 3");
	raw_close(&r);
	/* a control message over its 10000-byte limit */
	if (!login(fx, &r))
		return;
	char big[5 + 100] = "S\0\0\x4e\x20";
	raw_send(&r, big, sizeof big);
	check_fatal_close(&r, "08P01", true, "Sync of 20000 bytes");
	raw_close(&r);
	/* a Query announcing more than max_message_bytes, never sent */
	if (!login(fx, &r))
		return;
	raw_send(&r, "Q\x7f\xff\xff\xff", 5);
	check_fatal_close(&r, "08P01", true, "2 GB Query");
	raw_close(&r);
	check_alive(fx, "bad lengths");
}

static void test_truncated_then_gone(fixture_server *fx)
{
	/* Announces 100 bytes, sends 10 and hangs up; the server must just
	 * clean up. Several at once, some hanging up mid-header. */
	for (int i = 0; i < 20; i++) {
		raw_conn r;
		if (!login(fx, &r))
			return;
		if (i % 2)
			raw_send(&r, "Q\0\0\0\x64select 1", 14);
		else
			raw_send(&r, "Q\0\0", 3);
		raw_close(&r);
	}
	/* and one that stays silent mid-message while others work */
	raw_conn stuck;
	if (login(fx, &stuck)) {
		raw_send(&stuck, "Q\0\0\0\x64sel", 8);
		check_alive(fx, "a stuck half message");
		raw_close(&stuck);
	}
	check_alive(fx, "truncated messages");
}

static void test_bad_strings(fixture_server *fx)
{
	raw_conn r;
	if (!login(fx, &r))
		return;
	raw_send_msg(&r, 'Q', "select 1", 8); /* no terminator */
	check_error_ready(&r, "08P01", "invalid string in message", "unterminated Query");
	raw_send_msg(&r, 'Q', "select 1\0junk\0", 14);
	check_error_ready(&r, "08P01", "invalid message format", "bytes after the Query string");
	raw_send_msg(&r, 'Q', "select '\xc3\x28'", 12);
	check_error_ready(&r, "22021", "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28",
			  "invalid UTF-8");
	raw_send_msg(&r, 'S', "abc", 3);
	check_error_ready(&r, "08P01", "invalid message format", "Sync with a body");
	raw_close(&r);
	check_alive(fx, "bad strings");
}

static void test_malformed_extended(fixture_server *fx)
{
	raw_conn r;
	if (!login(fx, &r))
		return;
	raw_buf b;
	/* Bind claiming a parameter that is not there (to a statement that
	 * exists: PostgreSQL looks the statement up first) */
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "select $1::text");
	rb_i16(&b, 0);
	raw_send_msg(&r, 'P', b.data, b.len);
	raw_send_msg(&r, 'S', NULL, 0);
	CHECK(strcmp(raw_trace(&r, 10000, NULL), "1 Z") == 0, "Parse");
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "");
	rb_i16(&b, 0);
	rb_i16(&b, 1);
	rb_i32(&b, 1000);
	raw_send_msg(&r, 'B', b.data, b.len);
	raw_send_msg(&r, 'S', NULL, 0);
	check_error_ready(&r, "08P01", "insufficient data left in message", "truncated Bind");
	/* Parse claiming 65535 parameter types */
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "select 1");
	rb_i16(&b, 0xffff);
	raw_send_msg(&r, 'P', b.data, b.len);
	raw_send_msg(&r, 'S', NULL, 0);
	check_error_ready(&r, "08P01", "insufficient data left in message", "Parse with missing types");
	/* Describe and Close with unknown kinds */
	raw_send_msg(&r, 'D', "X\0", 2);
	raw_send_msg(&r, 'S', NULL, 0);
	check_error_ready(&r, "08P01", "invalid DESCRIBE message subtype 88", "Describe X");
	raw_send_msg(&r, 'C', "X\0", 2);
	raw_send_msg(&r, 'S', NULL, 0);
	check_error_ready(&r, "08P01", "invalid CLOSE message subtype 88", "Close X");
	/* Execute of a portal that does not exist */
	raw_send_msg(&r, 'E', "nope\0\0\0\0\0", 9);
	raw_send_msg(&r, 'S', NULL, 0);
	check_error_ready(&r, "34000", "portal \"nope\" does not exist", "Execute unknown portal");
	/* invalid UTF-8 in a text parameter */
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "select $1::text");
	rb_i16(&b, 0);
	raw_send_msg(&r, 'P', b.data, b.len);
	rb_reset(&b);
	rb_str(&b, "");
	rb_str(&b, "");
	rb_i16(&b, 0);
	rb_i16(&b, 1);
	rb_i32(&b, 2);
	rb_bytes(&b, "\xc3\x28", 2);
	rb_i16(&b, 0);
	raw_send_msg(&r, 'B', b.data, b.len);
	raw_send_msg(&r, 'S', NULL, 0);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "1 E Z") == 0 && strcmp(st, "22021") == 0, "bad UTF-8 parameter: %s (%s)", t, st);
	/* CopyData, CopyDone and CopyFail outside COPY are ignored */
	raw_send_msg(&r, 'd', "1\n", 2);
	raw_send_msg(&r, 'c', NULL, 0);
	raw_send_msg(&r, 'f', "x\0", 2);
	raw_send_msg(&r, 'Q', "select 1", 9);
	t = raw_trace(&r, 10000, NULL);
	CHECK(strcmp(t, "T D C Z") == 0, "after stray COPY messages: %s", t);
	raw_close(&r);
	check_alive(fx, "malformed extended messages");
}

/* Sends raw bytes as the first thing on a connection and reads the reply. */
static const char *startup_reply(fixture_server *fx, const void *p, size_t n, char *state)
{
	raw_conn r;
	static char out[256];
	if (!raw_open(&r, fx->host, fx->port)) {
		snprintf(out, sizeof out, "no connection");
		return out;
	}
	raw_send(&r, p, n);
	snprintf(out, sizeof out, "%s", raw_trace(&r, 10000, state));
	raw_close(&r);
	return out;
}

static void test_garbage_startup(fixture_server *fx)
{
	char st[8];
	const char *t;
	/* an HTTP request: an absurd length */
	t = startup_reply(fx, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, st);
	CHECK(strcmp(t, "EOF") == 0 || (strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0), "HTTP: %s (%s)",
	      t, st);
	/* too short */
	t = startup_reply(fx, "\0\0\0\3", 4, st);
	CHECK(strcmp(t, "EOF") == 0 || (strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0), "len 3: %s", t);
	/* protocol 4.0 and 3.0 without a terminator, without a user */
	t = startup_reply(fx, "\0\0\0\x08\0\x04\0\0", 8, st);
	CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "0A000") == 0, "4.0: %s (%s)", t, st);
	t = startup_reply(fx, "\0\0\0\x10\0\x03\0\0user\0pos", 16, st);
	CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0, "no terminator: %s (%s)", t, st);
	t = startup_reply(fx, "\0\0\0\x09\0\x03\0\0\0", 9, st);
	CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "28000") == 0, "no user: %s (%s)", t, st);
	/* a cancel request with a wrong key: closed without a word */
	t = startup_reply(fx, "\0\0\0\x10\x04\xd2\x16\x2e\0\0\0\1\0\0\0\2", 16, st);
	CHECK(strcmp(t, "EOF") == 0, "cancel: %s", t);
	/* SSLRequest twice */
	raw_conn r;
	if (raw_open(&r, fx->host, fx->port)) {
		raw_send(&r, "\0\0\0\x08\x04\xd2\x16\x2f", 8);
		int b = raw_read_byte(&r, 10000);
		CHECK(b == 'N', "SSLRequest answer %d", b);
		raw_send(&r, "\0\0\0\x08\x04\xd2\x16\x2f", 8);
		t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "0A000") == 0, "second SSLRequest: %s (%s)", t,
		      st);
		raw_close(&r);
	}
	/* SSLRequest with the startup packet in the same write */
	if (raw_open(&r, fx->host, fx->port)) {
		raw_buf b;
		rb_reset(&b);
		rb_bytes(&b, "\0\0\0\x08\x04\xd2\x16\x2f", 8);
		rb_bytes(&b, "\0\0\0\x17\0\x03\0\0user\0postgres\0\0", 23);
		raw_send(&r, b.data, b.len);
		int a = raw_read_byte(&r, 10000);
		t = raw_trace(&r, 10000, st);
		CHECK(a == 'N' && strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0,
		      "SSL + startup: %c %s (%s)", a, t, st);
		raw_close(&r);
	}
	/* GSSENCRequest: no GSSAPI here, so 'N' and a normal startup after */
	if (raw_open(&r, fx->host, fx->port)) {
		raw_send(&r, "\0\0\0\x08\x04\xd2\x16\x30", 8);
		int a = raw_read_byte(&r, 10000);
		CHECK(a == 'N' || a == 'G', "GSSENCRequest answer %d", a);
		raw_close(&r);
	}
	check_alive(fx, "garbage startup packets");
}

static void test_negotiate_version(fixture_server *fx)
{
	raw_conn r;
	if (!raw_open(&r, fx->host, fx->port)) {
		CHECK(false, "connect");
		return;
	}
	raw_buf b;
	rb_reset(&b);
	rb_i32(&b, 196609); /* 3.1 */
	rb_str(&b, "user");
	rb_str(&b, "postgres");
	rb_str(&b, "_pq_.something");
	rb_str(&b, "on");
	rb_i8(&b, 0);
	raw_send_msg(&r, 0, b.data, b.len);
	CHECK(raw_read(&r, 10000) == 1 && r.type == 'v', "no NegotiateProtocolVersion (%c)", r.type);
	if (r.type == 'v') {
		CHECK(r.blen == 8 + 15 && memcmp(r.body, "\0\3\0\0\0\0\0\1_pq_.something", 23) == 0, "body");
	}
	CHECK(raw_until_ready(&r, 10000), "no ReadyForQuery after negotiation");
	raw_close(&r);
}

static void test_random_messages(fixture_server *fx)
{
	/* Random but well-framed messages of every known type: errors are fine,
	 * crashes and hangs are not. */
	srand(12345);
	const char types[] = "QPBDECSHFdcf";
	for (int round = 0; round < 30; round++) {
		raw_conn r;
		if (!login(fx, &r))
			return;
		for (int i = 0; i < 40; i++) {
			uint8_t body[64];
			size_t n = (size_t)(rand() % 64);
			for (size_t k = 0; k < n; k++)
				body[k] = (uint8_t)(rand() % 4 == 0 ? 0 : rand());
			raw_send_msg(&r, types[rand() % (int)(sizeof types - 1)], body, n);
		}
		raw_send_msg(&r, 'S', NULL, 0);
		raw_send_msg(&r, 'Q', "select 1", 9);
		/* read whatever comes until the connection ends or goes quiet */
		while (raw_read(&r, 2000) == 1)
			;
		raw_close(&r);
	}
	check_alive(fx, "random messages");
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"unknown_type", test_unknown_type},
	    {"bad_lengths", test_bad_lengths},
	    {"truncated_then_gone", test_truncated_then_gone},
	    {"bad_strings", test_bad_strings},
	    {"malformed_extended", test_malformed_extended},
	    {"garbage_startup", test_garbage_startup},
	    {"negotiate_version", test_negotiate_version},
	    {"random_messages", test_random_messages},
	};
	return wt_main(argc, argv, "wire_hostile", NULL, cases, sizeof cases / sizeof cases[0]);
}
