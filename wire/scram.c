/* scram.c — the server side of SCRAM-SHA-256 and SCRAM-SHA-256-PLUS (RFC 5802, RFC 7677) as
 * PostgreSQL runs it: the user name comes from the startup packet, channel binding is
 * tls-server-end-point, and unknown users get a mock exchange that fails only at the end. */
#include "crypto.h"
#include "pgw_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_INIT, ST_CONTINUE, ST_DONE };

#define NONCE_RAW_LEN 18

static pthread_once_t mock_once = PTHREAD_ONCE_INIT;
static uint8_t mock_key[32];

static void mock_key_init(void)
{
	if (util_random_bytes(mock_key, sizeof mock_key) < 0)
		util_sha256("strata mock scram key", 21, mock_key);
}

static int malformed(util_err *err, const char *detail)
{
	util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "malformed SCRAM message");
	util_err_detail(err, "%s", detail);
	return -1;
}

static void auth_failed(pgw_scram *s, util_err *err)
{
	util_err_set(err, UTIL_E_INVALID_PASSWORD, "password authentication failed for user \"%s\"", s->user);
}

int pgw_scram_init(pgw_scram *s, const char *user, const char *secret, const uint8_t *cb_data, size_t cb_len,
		   const char *server_nonce, util_err *err)
{
	memset(s, 0, sizeof *s);
	s->user = user;
	s->cb_offered = cb_data != NULL;
	s->cb_data = cb_data;
	s->cb_len = cb_len;
	if (!secret || util_scram_parse_secret(secret, &s->iterations, s->salt, &s->saltlen, s->stored_key,
					       s->server_key) < 0) {
		/* A salt that is stable per user name, so probing cannot tell an
		 * unknown role from a known one by its salt changing. */
		pthread_once(&mock_once, mock_key_init);
		uint8_t h[UTIL_SHA256_LEN];
		util_hmac_sha256(mock_key, sizeof mock_key, user, strlen(user), h);
		memcpy(s->salt, h, UTIL_SCRAM_SALT_LEN);
		s->saltlen = UTIL_SCRAM_SALT_LEN;
		s->iterations = UTIL_SCRAM_ITERATIONS;
		s->doomed = true;
	}
	if (server_nonce) {
		snprintf(s->server_nonce, sizeof s->server_nonce, "%s", server_nonce);
	} else {
		uint8_t raw[NONCE_RAW_LEN];
		if (util_random_bytes(raw, sizeof raw) < 0)
			return util_err_set(err, UTIL_E_INTERNAL_ERROR, "could not generate random nonce");
		util_base64_encode(raw, sizeof raw, s->server_nonce);
	}
	s->state = ST_INIT;
	return 0;
}

void pgw_scram_mechanisms(const pgw_scram *s, util_buf *out)
{
	if (s->cb_offered)
		pgw_wr_str(out, "SCRAM-SHA-256-PLUS");
	pgw_wr_str(out, "SCRAM-SHA-256");
	util_buf_putc(out, '\0');
}

/* Reads "<attr>=value" up to the next comma (or the end) from *pp. */
static int read_attr(const char **pp, char attr, char **value, util_err *err)
{
	const char *p = *pp;
	char detail[128];
	if (*p != attr) {
		snprintf(detail, sizeof detail, "Expected attribute \"%c\" but found \"%.1s\".", attr,
			 *p ? p : "");
		return malformed(err, detail);
	}
	if (p[1] != '=') {
		snprintf(detail, sizeof detail, "Expected character \"=\" for attribute \"%c\".", attr);
		return malformed(err, detail);
	}
	p += 2;
	const char *end = strchr(p, ',');
	if (!end)
		end = p + strlen(p);
	*value = strndup(p, (size_t)(end - p));
	*pp = *end ? end + 1 : end;
	return 0;
}

/* Skips an extension attribute ("x=value"). */
static int skip_any_attr(const char **pp, char *attr, util_err *err)
{
	char a = **pp;
	if (!((a >= 'A' && a <= 'Z') || (a >= 'a' && a <= 'z'))) {
		char detail[128];
		snprintf(detail, sizeof detail, "Attribute expected, but found invalid character \"%.1s\".",
			 a ? *pp : "");
		return malformed(err, detail);
	}
	char *v;
	if (read_attr(pp, a, &v, err) < 0)
		return -1;
	free(v);
	if (attr)
		*attr = a;
	return 0;
}

static bool printable(const char *p)
{
	for (; *p; p++)
		if (*p < 0x21 || *p > 0x7e || *p == ',')
			return false;
	return true;
}

static pgw_sasl_result client_first(pgw_scram *s, const char *in, util_buf *out, util_err *err)
{
	const char *p = in;
	char detail[160];
	switch (*p) {
	case 'n':
		if (s->cb_used)
			goto needs_cb;
		p++;
		break;
	case 'y':
		if (s->cb_used)
			goto needs_cb;
		if (s->cb_offered) {
			util_err_set(err, UTIL_E_INVALID_AUTHORIZATION_SPECIFICATION,
				     "SCRAM channel binding negotiation error");
			util_err_detail(
			    err, "The client supports SCRAM channel binding but thinks the server does "
				 "not.  However, this server does support channel binding.");
			return PGW_SASL_FAIL;
		}
		p++;
		break;
	case 'p': {
		if (!s->cb_used) {
			malformed(err,
				  "The client selected SCRAM-SHA-256 without channel binding, but the SCRAM "
				  "message includes channel binding data.");
			return PGW_SASL_FAIL;
		}
		char *type;
		if (read_attr(&p, 'p', &type, err) < 0)
			return PGW_SASL_FAIL;
		bool ok = strcmp(type, "tls-server-end-point") == 0;
		if (!ok)
			util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				     "unsupported SCRAM channel-binding type \"%s\"",
				     printable(type) ? type : "?");
		free(type);
		if (!ok)
			return PGW_SASL_FAIL;
		p--; /* read_attr consumed the comma; the check below wants it */
		break;
	}
	default:
		snprintf(detail, sizeof detail, "Unexpected channel-binding flag \"%.1s\".", *p ? p : "");
		malformed(err, detail);
		return PGW_SASL_FAIL;
	}
	if (*p != ',') {
		snprintf(detail, sizeof detail, "Comma expected, but found character \"%.1s\".", *p ? p : "");
		malformed(err, detail);
		return PGW_SASL_FAIL;
	}
	p++;
	if (*p == 'a') {
		util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED,
			     "client uses authorization identity, but it is not supported");
		return PGW_SASL_FAIL;
	}
	if (*p != ',') {
		snprintf(detail, sizeof detail, "Unexpected attribute \"%.1s\" in client-first-message.",
			 *p ? p : "");
		malformed(err, detail);
		return PGW_SASL_FAIL;
	}
	p++;
	s->gs2_header = strndup(in, (size_t)(p - in));
	s->client_first_bare = strdup(p);
	if (*p == 'm') {
		util_err_set(err, UTIL_E_FEATURE_NOT_SUPPORTED,
			     "client requires an unsupported SCRAM extension");
		return PGW_SASL_FAIL;
	}
	char *name;
	if (read_attr(&p, 'n', &name, err) < 0)
		return PGW_SASL_FAIL;
	free(name); /* PostgreSQL uses the startup packet's user name */
	if (read_attr(&p, 'r', &s->client_nonce, err) < 0)
		return PGW_SASL_FAIL;
	if (!s->client_nonce[0] || !printable(s->client_nonce)) {
		malformed(err, "Non-printable characters in SCRAM nonce.");
		return PGW_SASL_FAIL;
	}
	while (*p)
		if (skip_any_attr(&p, NULL, err) < 0)
			return PGW_SASL_FAIL;

	char salt64[UTIL_BASE64_LEN(sizeof s->salt)];
	util_base64_encode(s->salt, s->saltlen, salt64);
	util_buf b = UTIL_BUF_INIT;
	util_buf_printf(&b, "r=%s%s,s=%s,i=%d", s->client_nonce, s->server_nonce, salt64, s->iterations);
	s->server_first = b.data;
	util_buf_append(out, s->server_first, b.len);
	s->state = ST_CONTINUE;
	return PGW_SASL_CONTINUE;

needs_cb:
	malformed(err,
		  "The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does not include channel "
		  "binding data.");
	return PGW_SASL_FAIL;
}

static pgw_sasl_result client_final(pgw_scram *s, const char *in, util_buf *out, util_err *err)
{
	const char *p = in;
	char *cbind = NULL, *nonce = NULL, *proof64 = NULL;
	pgw_sasl_result res = PGW_SASL_FAIL;
	uint8_t *expect = NULL;
	if (read_attr(&p, 'c', &cbind, err) < 0)
		goto done;
	/* The channel-binding attribute repeats the gs2 header, plus the
	 * certificate hash when binding is used. */
	size_t hl = strlen(s->gs2_header), elen = hl + (s->cb_used ? s->cb_len : 0);
	expect = util_xmalloc(elen);
	memcpy(expect, s->gs2_header, hl);
	if (s->cb_used)
		memcpy(expect + hl, s->cb_data, s->cb_len);
	uint8_t got[256];
	long gl = util_base64_decode(cbind, strlen(cbind), got, sizeof got);
	if (gl < 0 || (size_t)gl != elen || memcmp(got, expect, elen) != 0) {
		if (s->cb_used)
			util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "SCRAM channel binding check failed");
		else
			util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				     "unexpected SCRAM channel-binding attribute in client-final-message");
		goto done;
	}
	if (read_attr(&p, 'r', &nonce, err) < 0)
		goto done;
	size_t cl = strlen(s->client_nonce), sl = strlen(s->server_nonce);
	if (strlen(nonce) != cl + sl || memcmp(nonce, s->client_nonce, cl) != 0 ||
	    memcmp(nonce + cl, s->server_nonce, sl) != 0) {
		util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "invalid SCRAM response");
		util_err_detail(err, "Nonce does not match.");
		goto done;
	}
	/* Extensions until the proof, which must come last. */
	const char *proof_at;
	for (;;) {
		proof_at = p;
		if (*p == 'p')
			break;
		if (!*p) {
			malformed(err, "Expected attribute \"p\" but found \"\".");
			goto done;
		}
		if (skip_any_attr(&p, NULL, err) < 0)
			goto done;
	}
	if (read_attr(&p, 'p', &proof64, err) < 0)
		goto done;
	if (*p || (proof_at > in && proof_at[-1] != ',') || p[-1] == ',') {
		malformed(err, "Garbage found at the end of client-final-message.");
		goto done;
	}
	uint8_t proof[UTIL_SHA256_LEN + 3];
	if (util_base64_decode(proof64, strlen(proof64), proof, sizeof proof) != UTIL_SHA256_LEN) {
		malformed(err, "Malformed proof in client-final-message.");
		goto done;
	}

	/* AuthMessage = client-first-bare "," server-first "," client-final-without-proof */
	util_buf am = UTIL_BUF_INIT;
	util_buf_printf(&am, "%s,%s,", s->client_first_bare, s->server_first);
	util_buf_append(&am, in, (size_t)(proof_at - in - 1));
	uint8_t sig[UTIL_SHA256_LEN], client_key[UTIL_SHA256_LEN], check[UTIL_SHA256_LEN];
	util_hmac_sha256(s->stored_key, sizeof s->stored_key, am.data, am.len, sig);
	for (int i = 0; i < UTIL_SHA256_LEN; i++)
		client_key[i] = proof[i] ^ sig[i];
	util_sha256(client_key, sizeof client_key, check);
	bool ok = !s->doomed && util_consttime_eq(check, s->stored_key, sizeof check);
	if (ok) {
		uint8_t server_sig[UTIL_SHA256_LEN];
		char sig64[UTIL_BASE64_LEN(UTIL_SHA256_LEN)];
		util_hmac_sha256(s->server_key, sizeof s->server_key, am.data, am.len, server_sig);
		util_base64_encode(server_sig, sizeof server_sig, sig64);
		util_buf_printf(out, "v=%s", sig64);
		res = PGW_SASL_DONE;
		s->state = ST_DONE;
	} else {
		auth_failed(s, err);
	}
	util_secure_zero(client_key, sizeof client_key);
	util_buf_free(&am);
done:
	free(cbind);
	free(nonce);
	free(proof64);
	free(expect);
	return res;
}

pgw_sasl_result pgw_scram_step(pgw_scram *s, const char *mech, const uint8_t *in, size_t inlen, util_buf *out,
			       util_err *err)
{
	if (s->state == ST_INIT) {
		if (!mech) {
			malformed(err, "SASLInitialResponse expected.");
			return PGW_SASL_FAIL;
		}
		if (strcmp(mech, "SCRAM-SHA-256") == 0) {
			s->cb_used = false;
		} else if (strcmp(mech, "SCRAM-SHA-256-PLUS") == 0 && s->cb_offered) {
			s->cb_used = true;
		} else {
			util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				     "client selected an invalid SASL authentication mechanism");
			return PGW_SASL_FAIL;
		}
	}
	if (inlen == 0) {
		malformed(err, "The message is empty.");
		return PGW_SASL_FAIL;
	}
	if (memchr(in, 0, inlen)) {
		malformed(err, "The message length does not match input length.");
		return PGW_SASL_FAIL;
	}
	char *text = strndup((const char *)in, inlen);
	pgw_sasl_result r;
	switch (s->state) {
	case ST_INIT:
		r = client_first(s, text, out, err);
		break;
	case ST_CONTINUE:
		r = client_final(s, text, out, err);
		break;
	default:
		util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "SCRAM exchange already finished");
		r = PGW_SASL_FAIL;
	}
	free(text);
	return r;
}

void pgw_scram_free(pgw_scram *s)
{
	free(s->client_first_bare);
	free(s->server_first);
	free(s->client_nonce);
	free(s->gs2_header);
	util_secure_zero(s->stored_key, sizeof s->stored_key);
	util_secure_zero(s->server_key, sizeof s->server_key);
	s->client_first_bare = s->server_first = s->client_nonce = s->gs2_header = NULL;
}
