/* auth.c — client authentication: picks the method from the hba rules and runs trust, peer,
 * password (cleartext), md5 or SCRAM-SHA-256(-PLUS) against the role's secret from the catalog.
 * Failures look like PostgreSQL's (28P01 after a short delay); passwords are never logged. */
#include "crypto.h"
#include "pgw_int.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH. */
#define MAX_AUTH_TOKEN 65535

enum { AUTH_OK = 0, AUTH_FAIL = -1 };

/* An AuthenticationXXX request: code and optional payload. */
static void send_auth(pgw_conn *c, int32_t code, const void *data, size_t len)
{
	util_buf *b = &c->io.out;
	size_t at = pgw_wr_begin(b, 'R');
	pgw_wr_i32(b, code);
	if (len)
		pgw_wr_bytes(b, data, len);
	pgw_wr_end(b, at);
}

/* Reads the client's 'p' message (password, SASLInitialResponse or
 * SASLResponse). Returns 0, or -1 after a FATAL or a silent close (the
 * client may hang up to ask its user for a password, as psql does). */
static int read_auth_msg(pgw_conn *c, int64_t deadline, const char *what)
{
	if (c->mconsume) {
		pgw_io_consume(&c->io, c->mconsume);
		c->mconsume = 0;
	}
	if (pgw_io_flush(&c->io, deadline) != PGW_IO_OK)
		return -1;
	pgw_io_status st = pgw_io_fill(&c->io, 1, deadline);
	if (st == PGW_IO_TIMEOUT || st == PGW_IO_STOP) {
		if (st == PGW_IO_TIMEOUT)
			util_err_set(&c->err, UTIL_E_QUERY_CANCELED,
				     "canceling authentication due to timeout");
		else
			util_err_set(&c->err, UTIL_E_ADMIN_SHUTDOWN,
				     "terminating connection due to administrator command");
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	if (st != PGW_IO_OK)
		return -1;
	char type = (char)pgw_io_data(&c->io)[0];
	if (type != 'p') {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "expected %s response, got message type %d",
			     what, (int)(unsigned char)type);
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	if (pgw_io_fill(&c->io, 5, deadline) != PGW_IO_OK)
		return -1;
	uint32_t len = util_get_be32(pgw_io_data(&c->io) + 1);
	if (len < 4 || len > MAX_AUTH_TOKEN + 4) {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid message length");
		pgw_conn_fatal(c, &c->err);
		return -1;
	}
	if (pgw_io_fill(&c->io, 1 + (size_t)len, deadline) != PGW_IO_OK)
		return -1;
	c->mtype = type;
	c->mbody = pgw_io_data(&c->io) + 5;
	c->mlen = len - 4;
	c->mconsume = 1 + (size_t)len;
	return 0;
}

/* The secret to check against, or NULL when the role cannot authenticate
 * by password (unknown, no password, expired): the exchange still runs and
 * fails at its end, so the client cannot tell which. */
static const char *usable_secret(const sql_role_info *r, const char **why)
{
	if (!r->exists) {
		*why = "Role does not exist.";
		return NULL;
	}
	if (!r->password[0]) {
		*why = "User has no password assigned.";
		return NULL;
	}
	if (r->valid_until && util_now_us() > r->valid_until) {
		*why = "User has an expired password.";
		return NULL;
	}
	return r->password;
}

static int fail_password(pgw_conn *c, int line, const char *why)
{
	util_info("password authentication failed for user \"%s\" (host %s, hba line %d)%s%s", c->sp.user,
		  c->host, line, why ? ": " : "", why ? why : "");
	/* Slows down password guessing; a real client sees this once. */
	if (c->srv->opts.auth_failure_delay_ms > 0)
		util_sleep_us((int64_t)c->srv->opts.auth_failure_delay_ms * 1000);
	util_err_set(&c->err, UTIL_E_INVALID_PASSWORD, "password authentication failed for user \"%s\"",
		     c->sp.user);
	pgw_conn_fatal(c, &c->err);
	return AUTH_FAIL;
}

/* The cleartext password against either kind of secret. */
static bool check_plain(const char *secret, const char *user, const char *password)
{
	if (util_secret_is_scram(secret)) {
		int it;
		uint8_t salt[UTIL_SCRAM_SALT_MAX], st[UTIL_SHA256_LEN], sv[UTIL_SHA256_LEN],
		    mine[UTIL_SHA256_LEN];
		size_t sl;
		if (util_scram_parse_secret(secret, &it, salt, &sl, st, sv) < 0)
			return false;
		if (util_scram_keys(password, salt, sl, it, NULL, NULL, mine) < 0)
			return false;
		bool ok = util_consttime_eq(mine, sv, sizeof mine);
		util_secure_zero(mine, sizeof mine);
		return ok;
	}
	if (util_secret_is_md5(secret)) {
		char mine[UTIL_MD5_PASSWORD_LEN];
		util_md5_password(password, user, mine);
		bool ok = util_consttime_eq(mine, secret, UTIL_MD5_PASSWORD_LEN);
		util_secure_zero(mine, sizeof mine);
		return ok;
	}
	return false;
}

static int auth_password(pgw_conn *c, const char *secret, const char *why, int line, int64_t deadline)
{
	send_auth(c, 3, NULL, 0); /* AuthenticationCleartextPassword */
	if (read_auth_msg(c, deadline, "password") < 0)
		return AUTH_FAIL;
	const char *pw = (const char *)c->mbody;
	if (c->mlen == 0 || memchr(pw, 0, c->mlen) != pw + c->mlen - 1) {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid password packet size");
		pgw_conn_fatal(c, &c->err);
		return AUTH_FAIL;
	}
	if (!*pw)
		return fail_password(c, line, "empty password returned by client");
	bool ok = secret && check_plain(secret, c->sp.user, pw);
	/* The password sits in the read buffer until consumed; wipe it. */
	util_secure_zero((void *)c->mbody, c->mlen);
	return ok ? AUTH_OK : fail_password(c, line, secret ? "Password does not match." : why);
}

static int auth_md5(pgw_conn *c, const char *secret, int line, int64_t deadline)
{
	uint8_t salt[4];
	if (util_random_bytes(salt, sizeof salt) < 0) {
		util_err_set(&c->err, UTIL_E_INTERNAL_ERROR, "could not generate random MD5 salt");
		pgw_conn_fatal(c, &c->err);
		return AUTH_FAIL;
	}
	send_auth(c, 5, salt, sizeof salt); /* AuthenticationMD5Password */
	if (read_auth_msg(c, deadline, "password") < 0)
		return AUTH_FAIL;
	const char *resp = (const char *)c->mbody;
	if (c->mlen == 0 || memchr(resp, 0, c->mlen) != resp + c->mlen - 1) {
		util_err_set(&c->err, UTIL_E_PROTOCOL_VIOLATION, "invalid password packet size");
		pgw_conn_fatal(c, &c->err);
		return AUTH_FAIL;
	}
	/* Expected: "md5" || md5hex(md5hex(password || user) || salt), and the
	 * stored secret is "md5" || md5hex(password || user). */
	char buf[32 + 4], expect[UTIL_MD5_PASSWORD_LEN];
	memcpy(buf, secret + 3, 32);
	memcpy(buf + 32, salt, 4);
	memcpy(expect, "md5", 3);
	util_md5_hex(buf, sizeof buf, expect + 3);
	bool ok = strlen(resp) == 35 && util_consttime_eq(resp, expect, 35);
	return ok ? AUTH_OK : fail_password(c, line, "Password does not match.");
}

static int auth_scram(pgw_conn *c, const char *secret, const char *why, int line, int64_t deadline)
{
	pgw_server *s = c->srv;
	pgw_scram sc;
	bool cb = c->io.ssl && s->cb_len > 0;
	const char *scram_secret = secret && util_secret_is_scram(secret) ? secret : NULL;
	if (secret && !scram_secret)
		why = "User does not have a valid SCRAM secret.";
	if (pgw_scram_init(&sc, c->sp.user, scram_secret, cb ? s->cb_hash : NULL, s->cb_len, NULL, &c->err) <
	    0) {
		pgw_conn_fatal(c, &c->err);
		return AUTH_FAIL;
	}
	util_buf out = UTIL_BUF_INIT;
	pgw_scram_mechanisms(&sc, &out);
	send_auth(c, 10, out.data, out.len); /* AuthenticationSASL */
	int rc = AUTH_FAIL;
	bool first = true;
	for (;;) {
		if (read_auth_msg(c, deadline, "SASL") < 0)
			goto done;
		pgw_rd r;
		pgw_rd_init(&r, c->mbody, c->mlen);
		const char *mech = NULL;
		const uint8_t *data;
		size_t dlen;
		if (first) {
			/* SASLInitialResponse: mechanism, Int32 length (-1 = none), data */
			mech = pgw_rd_str(&r);
			int32_t n = pgw_rd_i32(&r);
			dlen = n < 0 ? 0 : (size_t)n;
			data = n < 0 ? (const uint8_t *)"" : pgw_rd_bytes(&r, dlen);
			pgw_rd_end(&r);
			if (pgw_rd_check(&r, &c->err) < 0) {
				pgw_conn_fatal(c, &c->err);
				goto done;
			}
		} else {
			data = c->mbody;
			dlen = c->mlen;
		}
		first = false;
		util_buf_reset(&out);
		pgw_sasl_result res = pgw_scram_step(&sc, mech, data, dlen, &out, &c->err);
		if (res == PGW_SASL_CONTINUE) {
			send_auth(c, 11, out.data, out.len); /* AuthenticationSASLContinue */
			continue;
		}
		if (res == PGW_SASL_DONE) {
			send_auth(c, 12, out.data, out.len); /* AuthenticationSASLFinal */
			rc = AUTH_OK;
			goto done;
		}
		if (c->err.code == UTIL_E_INVALID_PASSWORD)
			fail_password(c, line, sc.doomed ? why : "Password does not match.");
		else
			pgw_conn_fatal(c, &c->err);
		goto done;
	}
done:
	util_buf_free(&out);
	pgw_scram_free(&sc);
	return rc;
}

static int auth_peer(pgw_conn *c)
{
	struct ucred cred;
	socklen_t len = sizeof cred;
	char buf[4096];
	struct passwd pw, *res = NULL;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
	    getpwuid_r(cred.uid, &pw, buf, sizeof buf, &res) == 0 && res &&
	    strcmp(res->pw_name, c->sp.user) == 0)
		return AUTH_OK;
	util_info("peer authentication failed for user \"%s\": the socket's owner is %s", c->sp.user,
		  res ? res->pw_name : "unknown");
	util_err_set(&c->err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
		     "Peer authentication failed for user \"%s\"", c->sp.user);
	pgw_conn_fatal(c, &c->err);
	return AUTH_FAIL;
}

int pgw_auth(pgw_conn *c, int64_t deadline)
{
	pgw_hba_client hc = {
	    .local = c->is_unix,
	    .addr = (const struct sockaddr *)&c->addr,
	    .ssl = c->io.ssl != NULL,
	    .user = c->sp.user,
	    .database = c->sp.database,
	};
	int line;
	pgw_auth_method m = pgw_server_hba_match(c->srv, &hc, &line);
	const char *enc = c->io.ssl ? "SSL encryption" : "no encryption";
	int rc = AUTH_OK;
	switch (m) {
	case PGW_AUTH_NO_MATCH:
	case PGW_AUTH_REJECT:
		util_err_set(&c->err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
			     m == PGW_AUTH_REJECT
				 ? "pg_hba.conf rejects connection for host \"%s\", user \"%s\", "
				   "database \"%s\", %s"
				 : "no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", %s",
			     c->host, c->sp.user, c->sp.database, enc);
		pgw_conn_fatal(c, &c->err);
		return AUTH_FAIL;
	case PGW_AUTH_TRUST:
		break;
	case PGW_AUTH_PEER:
		rc = auth_peer(c);
		break;
	case PGW_AUTH_PASSWORD:
	case PGW_AUTH_MD5:
	case PGW_AUTH_SCRAM: {
		sql_role_info role;
		memset(&role, 0, sizeof role);
		if (sql_role_lookup(c->srv->engine, c->sp.user, &role, &c->err) < 0) {
			pgw_conn_fatal(c, &c->err);
			return AUTH_FAIL;
		}
		const char *why = NULL;
		const char *secret = usable_secret(&role, &why);
		if (m == PGW_AUTH_PASSWORD)
			rc = auth_password(c, secret, why, line, deadline);
		else if (m == PGW_AUTH_MD5 && secret && util_secret_is_md5(secret))
			rc = auth_md5(c, secret, line, deadline);
		else /* md5 with a SCRAM secret (or none) uses SCRAM, as PostgreSQL */
			rc = auth_scram(c, secret, why, line, deadline);
		util_secure_zero(&role, sizeof role);
		break;
	}
	}
	if (rc != AUTH_OK)
		return AUTH_FAIL;
	send_auth(c, 0, NULL, 0); /* AuthenticationOk */
	if (c->mconsume) {
		pgw_io_consume(&c->io, c->mconsume);
		c->mconsume = 0;
	}
	return AUTH_OK;
}
