/* wire_tls_test.c — TLS: a test CA and server certificate made with the openssl CLI,
 * sslmode=require and verify-full (host name and IP address, wrong name, wrong CA), SCRAM with
 * channel binding (SCRAM-SHA-256-PLUS), hostssl/hostnossl rules, big results over TLS, and
 * clients that abandon or botch the handshake. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire_test.h"

static char ca_crt[512], other_ca[512];

/* Writes ca.crt, server.crt/server.key (CN localhost, SAN localhost and
 * 127.0.0.1) and an unrelated other_ca.crt into the test directory. */
static bool make_certs(fixture_server *fx)
{
	char cmd[4096], ext[512];
	fixture_write_file(fx, "ext.cnf", "subjectAltName=DNS:localhost,IP:127.0.0.1\n", ext, sizeof ext);
	snprintf(
	    cmd, sizeof cmd,
	    "(cd '%s' && "
	    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out "
	    "ca.crt "
	    "-days 3 -subj '/CN=strata wire test CA' && "
	    "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out "
	    "server.csr "
	    "-subj '/CN=localhost' && "
	    "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days "
	    "3 "
	    "-extfile ext.cnf && "
	    "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout other.key "
	    "-out other_ca.crt -days 3 -subj '/CN=someone else' && chmod 644 *.crt && chmod 600 *.key) "
	    ">/dev/null 2>&1",
	    fx->dir);
	bool ok = system(cmd) == 0;
	fixture_path(fx, "ca.crt", ca_crt, sizeof ca_crt);
	fixture_path(fx, "other_ca.crt", other_ca, sizeof other_ca);
	return ok;
}

static const char *const *server_args(fixture_server *fx)
{
	static char cert[512], key[512], hba[512];
	static const char *args[8];
	if (!make_certs(fx))
		fprintf(stderr, "wire_tls: could not make certificates\n");
	fixture_path(fx, "server.crt", cert, sizeof cert);
	fixture_path(fx, "server.key", key, sizeof key);
	fixture_write_file(fx, "hba.conf",
			   "hostssl all scramu 127.0.0.1/32 scram-sha-256\n"
			   "hostnossl all scramu 127.0.0.1/32 reject\n"
			   "host all all 127.0.0.1/32 trust\n",
			   hba, sizeof hba);
	const char *a[] = {"--tls-cert", cert, "--tls-key", key, "--hba-file", hba, NULL};
	memcpy(args, a, sizeof a);
	return args;
}

static void test_setup(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, "user=postgres sslmode=disable");
	PQclear(wt_exec(c, "create role scramu login password 'tls-pw'", PGRES_COMMAND_OK));
	PQfinish(c);
}

static void test_require(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, "user=postgres sslmode=require");
	if (!c)
		return;
	CHECK(PQsslInUse(c) == 1, "TLS not in use");
	const char *proto = PQsslAttribute(c, "protocol");
	CHECK(proto && (strcmp(proto, "TLSv1.3") == 0 || strcmp(proto, "TLSv1.2") == 0), "protocol %s",
	      proto ? proto : "");
	PGresult *r = wt_exec(c, "select generate_series(1,100000)", PGRES_TUPLES_OK);
	CHECK(r && PQntuples(r) == 100000, "rows %d", r ? PQntuples(r) : -1);
	PQclear(r);
	PQfinish(c);
	c = wt_connect(fx, "user=postgres sslmode=disable");
	CHECK(c && PQsslInUse(c) == 0, "sslmode=disable used TLS");
	PQfinish(c);
}

static void test_verify_full(fixture_server *fx)
{
	char extra[1024];
	snprintf(extra, sizeof extra,
		 "user=postgres sslmode=verify-full sslrootcert=%s host=localhost hostaddr=127.0.0.1",
		 ca_crt);
	PGconn *c = wt_connect(fx, extra);
	CHECK(c && PQsslInUse(c) == 1, "verify-full by name");
	PQfinish(c);
	snprintf(extra, sizeof extra, "user=postgres sslmode=verify-full sslrootcert=%s", ca_crt);
	c = wt_connect(fx, extra);
	CHECK(c && PQsslInUse(c) == 1, "verify-full by IP address");
	PQfinish(c);
	snprintf(extra, sizeof extra,
		 "user=postgres sslmode=verify-full sslrootcert=%s host=wronghost hostaddr=127.0.0.1",
		 ca_crt);
	const char *m = wt_connect_fail(fx, extra);
	CHECK(strstr(m, "does not match host name"), "%s", m);
	snprintf(extra, sizeof extra, "user=postgres sslmode=verify-ca sslrootcert=%s", other_ca);
	m = wt_connect_fail(fx, extra);
	CHECK(strstr(m, "certificate verify failed"), "%s", m);
}

static void test_channel_binding(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, "user=scramu password=tls-pw sslmode=require channel_binding=require");
	if (c) {
		PGresult *r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
		PQclear(r);
	}
	PQfinish(c);
	const char *m =
	    wt_connect_fail(fx, "user=scramu password=wrong sslmode=require channel_binding=require");
	CHECK(strstr(m, "password authentication failed for user \"scramu\""), "%s", m);
	/* hostnossl ... reject */
	m = wt_connect_fail(fx, "user=scramu password=tls-pw sslmode=disable");
	CHECK(strstr(m, "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"scramu\", database "
			"\"postgres\", no encryption"),
	      "%s", m);
}

static void test_botched_handshakes(fixture_server *fx)
{
	for (int i = 0; i < 3; i++) {
		raw_conn r;
		if (!raw_open(&r, fx->host, fx->port)) {
			CHECK(false, "connect");
			return;
		}
		raw_send(&r, "\0\0\0\x08\x04\xd2\x16\x2f", 8);
		int a = raw_read_byte(&r, 10000);
		CHECK(a == 'S', "SSLRequest answer %d", a);
		if (i == 1)
			raw_send(&r, "this is not a TLS ClientHello at all\r\n", 38);
		if (i == 2)
			raw_send(&r, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
				 11); /* a cut-off ClientHello */
		if (i > 0)
			CHECK(strcmp(raw_trace(&r, 20000, NULL), "EOF") == 0 || i == 2, "not closed");
		raw_close(&r);
	}
	PGconn *c = wt_connect(fx, "user=postgres sslmode=require");
	CHECK(c != NULL, "no TLS session after botched handshakes");
	PQfinish(c);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"setup", test_setup},
	    {"require", test_require},
	    {"verify_full", test_verify_full},
	    {"channel_binding", test_channel_binding},
	    {"botched_handshakes", test_botched_handshakes},
	};
	return wt_main(argc, argv, "wire_tls", server_args, cases, sizeof cases / sizeof cases[0]);
}
