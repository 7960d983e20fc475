/* wire_auth_test.c — authentication against a server with an hba file: trust, password,
 * md5 (and md5 rules falling back to SCRAM for SCRAM secrets), scram-sha-256, reject, missing
 * rules, unknown roles and databases, roles that may not log in, reloading the hba file, and no
 * password in the server log. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire_test.h"

static const char hba[] = "local all all trust\n"
			  "host all postgres 127.0.0.1/32 trust\n"
			  "host all trustu,ghost_trust 127.0.0.1/32 trust\n"
			  "host all pwu 127.0.0.1/32 password\n"
			  "host all md5u,md5scram 127.0.0.1/32 md5\n"
			  "host all rejectu 127.0.0.1/32 reject\n"
			  "host all scramu,ghost,nologinu,nopwu 127.0.0.1/32 scram-sha-256\n";

static const char *const *server_args(fixture_server *fx)
{
	static char path[512];
	static const char *args[3];
	args[0] = "--hba-file";
	args[1] = fixture_write_file(fx, "hba.conf", hba, path, sizeof path);
	args[2] = NULL;
	return args;
}

static void test_setup_roles(fixture_server *fx)
{
	PGconn *c = wt_connect(fx, NULL);
	const char *sql[] = {
	    "create role trustu login",
	    "create role pwu login password 'plain-pw'",
	    "set password_encryption = 'md5'",
	    "create role md5u login password 'md5-pw'",
	    "set password_encryption = 'scram-sha-256'",
	    "create role md5scram login password 'scram-for-md5'",
	    "create role scramu login password 'scram-pw'",
	    "create role nologinu password 'nl-pw'",
	    "create role nopwu login",
	};
	for (size_t i = 0; c && i < sizeof sql / sizeof sql[0]; i++)
		PQclear(wt_exec(c, sql[i], PGRES_COMMAND_OK));
	PQfinish(c);
}

static void connect_ok(fixture_server *fx, const char *user, const char *password)
{
	char extra[256];
	snprintf(extra, sizeof extra, "user=%s password=%s", user, password ? password : "");
	PGconn *c = wt_connect(fx, extra);
	if (c) {
		PGresult *r = wt_exec(c, "select 1", PGRES_TUPLES_OK);
		PQclear(r);
		const char *who = PQparameterStatus(c, "session_authorization");
		CHECK(who && strcmp(who, user) == 0, "session_authorization %s", who ? who : "");
	}
	PQfinish(c);
}

static void connect_fails(fixture_server *fx, const char *user, const char *password, const char *db,
			  const char *want)
{
	char extra[256];
	snprintf(extra, sizeof extra, "user=%s password=%s dbname=%s", user, password ? password : "",
		 db ? db : "postgres");
	const char *msg = wt_connect_fail(fx, extra);
	CHECK(strstr(msg, want), "%s: \"%s\" not in \"%s\"", user, want, msg);
}

/* The first authentication request the server sends for user. */
static int auth_request(fixture_server *fx, const char *user, char *mechs, size_t mlen)
{
	raw_conn r;
	int code = -1;
	if (mechs)
		mechs[0] = '\0';
	if (raw_open(&r, fx->host, fx->port) && raw_send_startup(&r, user, "postgres") &&
	    raw_read(&r, 10000) == 1 && r.type == 'R' && r.blen >= 4) {
		code = (r.body[0] << 24) | (r.body[1] << 16) | (r.body[2] << 8) | r.body[3];
		if (mechs && code == 10)
			snprintf(mechs, mlen, "%.*s", (int)(r.blen - 4), (const char *)r.body + 4);
	}
	raw_close(&r);
	return code;
}

static void test_trust(fixture_server *fx)
{
	connect_ok(fx, "trustu", NULL);
	CHECK(auth_request(fx, "trustu", NULL, 0) == 0, "trust must send AuthenticationOk at once");
}

static void test_scram(fixture_server *fx)
{
	char mechs[128];
	CHECK(auth_request(fx, "scramu", mechs, sizeof mechs) == 10, "no AuthenticationSASL");
	CHECK(strcmp(mechs, "SCRAM-SHA-256") == 0, "mechanisms without TLS: %s", mechs);
	connect_ok(fx, "scramu", "scram-pw");
	connect_fails(fx, "scramu", "wrong-pw", NULL, "password authentication failed for user \"scramu\"");
}

static void test_md5(fixture_server *fx)
{
	CHECK(auth_request(fx, "md5u", NULL, 0) == 5, "no AuthenticationMD5Password");
	connect_ok(fx, "md5u", "md5-pw");
	connect_fails(fx, "md5u", "wrong-pw", NULL, "password authentication failed for user \"md5u\"");
	/* an md5 rule with a SCRAM secret authenticates with SCRAM */
	CHECK(auth_request(fx, "md5scram", NULL, 0) == 10, "md5 rule, SCRAM secret: no SCRAM");
	connect_ok(fx, "md5scram", "scram-for-md5");
	connect_fails(fx, "md5scram", "wrong-pw", NULL,
		      "password authentication failed for user \"md5scram\"");
}

static void test_password(fixture_server *fx)
{
	connect_ok(fx, "pwu", "plain-pw");
	connect_fails(fx, "pwu", "wrong-pw", NULL, "password authentication failed for user \"pwu\"");
	/* raw: AuthenticationCleartextPassword, then 28P01 and the end */
	raw_conn r;
	if (!raw_open(&r, fx->host, fx->port) || !raw_send_startup(&r, "pwu", "postgres")) {
		CHECK(false, "connect");
		raw_close(&r);
		return;
	}
	CHECK(raw_read(&r, 10000) == 1 && r.type == 'R' && r.blen == 4 && r.body[3] == 3,
	      "no cleartext request");
	raw_send_msg(&r, 'p', "wrong-pw", 9);
	char st[8];
	const char *t = raw_trace(&r, 10000, st);
	CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "28P01") == 0, "%s (%s)", t, st);
	raw_close(&r);
	/* a malformed password message */
	if (raw_open(&r, fx->host, fx->port) && raw_send_startup(&r, "pwu", "postgres") &&
	    raw_read(&r, 10000) == 1) {
		raw_send_msg(&r, 'p', "abc\0def", 8);
		t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0, "%s (%s)", t, st);
	}
	raw_close(&r);
	/* something else than a password */
	if (raw_open(&r, fx->host, fx->port) && raw_send_startup(&r, "pwu", "postgres") &&
	    raw_read(&r, 10000) == 1) {
		raw_send_msg(&r, 'Q', "select 1", 9);
		t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "E EOF") == 0 && strcmp(st, "08P01") == 0, "%s (%s)", t, st);
	}
	raw_close(&r);
}

static void test_failures(fixture_server *fx)
{
	/* unknown role behind a password rule: the same error as a wrong password */
	connect_fails(fx, "ghost", "whatever", NULL, "password authentication failed for user \"ghost\"");
	/* a role without a password, one that may not log in */
	connect_fails(fx, "nopwu", "x", NULL, "password authentication failed for user \"nopwu\"");
	connect_fails(fx, "nologinu", "nl-pw", NULL, "role \"nologinu\" is not permitted to log in");
	connect_fails(
	    fx, "rejectu", "x", NULL,
	    "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"rejectu\", database \"postgres\", "
	    "no encryption");
	connect_fails(
	    fx, "unlisted", "x", NULL,
	    "no pg_hba.conf entry for host \"127.0.0.1\", user \"unlisted\", database \"postgres\", no "
	    "encryption");
	/* trust: unknown role and unknown database come after AuthenticationOk */
	const char *cases[][4] = {
	    {"ghost_trust", "postgres", "28000", "role \"ghost_trust\" does not exist"},
	    {"postgres", "wire_no_db", "3D000", "database \"wire_no_db\" does not exist"}};
	for (int i = 0; i < 2; i++) {
		raw_conn r;
		if (!raw_open(&r, fx->host, fx->port) || !raw_send_startup(&r, cases[i][0], cases[i][1])) {
			CHECK(false, "connect");
			raw_close(&r);
			continue;
		}
		char st[8];
		const char *t = raw_trace(&r, 10000, st);
		CHECK(strcmp(t, "R E EOF") == 0 && strcmp(st, cases[i][2]) == 0, "%s: %s (%s)", cases[i][0],
		      t, st);
		CHECK(strcmp(r.err_msg, cases[i][3]) == 0, "%s", r.err_msg);
		raw_close(&r);
	}
}

static void test_hba_reload(fixture_server *fx)
{
	char path[512], text[2048];
	snprintf(text, sizeof text, "host all scramu 127.0.0.1/32 trust\n%s", hba);
	usleep(20 * 1000);
	fixture_write_file(fx, "hba.conf", text, path, sizeof path);
	/* PostgreSQL re-reads the file on SIGHUP; strata notices the change */
	if (strstr(fx->bin, "pg_as_strata")) {
		kill(fx->pid, SIGHUP);
		usleep(500 * 1000);
	}
	connect_ok(fx, "scramu", "");
	/* a broken edit keeps the rules in force */
	usleep(20 * 1000);
	fixture_write_file(fx, "hba.conf", "host all all all nonsense-method\n", path, sizeof path);
	if (strstr(fx->bin, "pg_as_strata")) {
		kill(fx->pid, SIGHUP);
		usleep(500 * 1000);
	}
	connect_ok(fx, "scramu", "");
	usleep(20 * 1000);
	fixture_write_file(fx, "hba.conf", hba, path, sizeof path);
	if (strstr(fx->bin, "pg_as_strata")) {
		kill(fx->pid, SIGHUP);
		usleep(500 * 1000);
	}
	connect_fails(fx, "scramu", "", NULL, "password");
}

static void test_unix_socket(fixture_server *shared)
{
	(void)shared;
	fixture_server fx;
	char sock[300], hbaf[512], cmd[800];
	if (fixture_init(&fx, "wire_unix") != 0) {
		CHECK(false, "fixture_init");
		return;
	}
	/* a directory the server (perhaps another user) can create its socket in */
	fixture_path(&fx, "sock", sock, sizeof sock);
	snprintf(cmd, sizeof cmd, "mkdir -p '%s' && chmod 777 '%s'", sock, sock);
	CHECK(system(cmd) == 0, "%s", cmd);
	fixture_write_file(&fx, "hba.conf",
			   "local all postgres trust\n"
			   "local all peeru peer\n"
			   "host all all 127.0.0.1/32 trust\n",
			   hbaf, sizeof hbaf);
	const char *args[] = {"--unix-socket-dir", sock, "--hba-file", hbaf, NULL};
	if (fixture_start(&fx, args) != 0) {
		CHECK(false, "could not start a server with a Unix socket");
		fixture_stop(&fx, true);
		return;
	}
	char extra[512];
	snprintf(extra, sizeof extra, "host=%s user=postgres", sock);
	PGconn *c = wt_connect(&fx, extra);
	if (c) {
		CHECK(PQhost(c) && PQhost(c)[0] == '/', "not over the socket: %s", PQhost(c));
		PQclear(wt_exec(c, "select 1", PGRES_TUPLES_OK));
	}
	PQfinish(c);
	/* peer: the socket's other end is this process's user, not peeru */
	snprintf(extra, sizeof extra, "host=%s user=peeru", sock);
	const char *m = wt_connect_fail(&fx, extra);
	CHECK(strstr(m, "Peer authentication failed for user \"peeru\""), "%s", m);
	/* an SSLRequest on the socket is answered 'N' */
	snprintf(extra, sizeof extra, "host=%s user=postgres sslmode=prefer", sock);
	c = wt_connect(&fx, extra);
	CHECK(c && !PQsslInUse(c), "TLS over a Unix socket");
	PQfinish(c);
	CHECK(fixture_stop(&fx, wt_case_failures() > 0) == 0, "server did not exit cleanly (%s)", fx.kept);
}

static void test_passwords_not_logged(fixture_server *fx)
{
	FILE *f = fopen(fx->log, "r");
	if (!f)
		return; /* an external server: no log to read */
	char line[8192];
	const char *secrets[] = {"plain-pw", "md5-pw", "scram-pw", "wrong-pw", "scram-for-md5", "nl-pw"};
	while (fgets(line, sizeof line, f))
		for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
			CHECK(!strstr(line, secrets[i]), "password %s in the log: %s", secrets[i], line);
	fclose(f);
}

int main(int argc, char **argv)
{
	const wt_case cases[] = {
	    {"setup_roles", test_setup_roles},
	    {"trust", test_trust},
	    {"scram", test_scram},
	    {"md5", test_md5},
	    {"password", test_password},
	    {"failures", test_failures},
	    {"hba_reload", test_hba_reload},
	    {"unix_socket", test_unix_socket},
	    {"passwords_not_logged", test_passwords_not_logged},
	};
	return wt_main(argc, argv, "wire_auth", server_args, cases, sizeof cases / sizeof cases[0]);
}
