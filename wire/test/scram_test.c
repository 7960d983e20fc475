/* scram_test.c — unit tests for the server side of SCRAM-SHA-256: the RFC 7677 example exchange,
 * wrong passwords, mock exchanges for unknown roles, channel binding and malformed messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto.h"
#include "pgw_int.h"

static pgw_sasl_result step(pgw_scram *s, const char *mech, const char *msg, util_buf *out, util_err *e)
{
	util_buf_reset(out);
	return pgw_scram_step(s, mech, (const uint8_t *)msg, strlen(msg), out, e);
}

/* RFC 7677 section 3: user "user", password "pencil". */
static void test_rfc7677(void **state)
{
	(void)state;
	uint8_t salt[16];
	assert_int_equal(util_base64_decode("W22ZaJ0SNY7soEsUEjb6gQ==", 24, salt, sizeof salt), 16);
	char secret[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret_salt("pencil", 4096, salt, 16, secret), 0);
	pgw_scram s;
	util_err e;
	util_buf out = UTIL_BUF_INIT;
	assert_int_equal(pgw_scram_init(&s, "user", secret, NULL, 0, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", &e),
			 0);
	util_buf mech = UTIL_BUF_INIT;
	pgw_scram_mechanisms(&s, &mech);
	assert_int_equal(mech.len, 15);
	assert_memory_equal(mech.data, "SCRAM-SHA-256\0\0", 15);
	util_buf_free(&mech);
	assert_int_equal(step(&s, "SCRAM-SHA-256", "n,,n=user,r=rOprNGfwEbeRWgbNEkqO", &out, &e),
			 PGW_SASL_CONTINUE);
	assert_string_equal(out.data,
			    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,"
			    "i=4096");
	assert_int_equal(step(&s, NULL,
			      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+"
			      "Ute9ytag9zjfMHgsqmmiz7AndVQ=",
			      &out, &e),
			 PGW_SASL_DONE);
	assert_string_equal(out.data, "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
	pgw_scram_free(&s);
	util_buf_free(&out);
}

/* A client's proof for the exchange so far (a test-side SCRAM client). */
static void client_final(const char *password, const char *first_bare, const char *server_first,
			 const char *cbind64, char *out, size_t outlen)
{
	char nonce[128];
	const char *r = strstr(server_first, "r=") + 2;
	snprintf(nonce, sizeof nonce, "%.*s", (int)strcspn(r, ","), r);
	const char *sp = strstr(server_first, ",s=") + 3;
	char salt64[64];
	snprintf(salt64, sizeof salt64, "%.*s", (int)strcspn(sp, ","), sp);
	int iter = atoi(strstr(server_first, ",i=") + 3);
	uint8_t salt[64];
	long sl = util_base64_decode(salt64, strlen(salt64), salt, sizeof salt);
	assert_true(sl > 0);
	uint8_t ck[32], sk[32], sig[32], proof[32];
	assert_int_equal(util_scram_keys(password, salt, (size_t)sl, iter, ck, sk, NULL), 0);
	char without[600], am[2048];
	snprintf(without, sizeof without, "c=%s,r=%s", cbind64, nonce);
	snprintf(am, sizeof am, "%s,%s,%s", first_bare, server_first, without);
	util_hmac_sha256(sk, 32, am, strlen(am), sig);
	for (int i = 0; i < 32; i++)
		proof[i] = ck[i] ^ sig[i];
	char p64[64];
	util_base64_encode(proof, 32, p64);
	snprintf(out, outlen, "%s,p=%s", without, p64);
}

static pgw_sasl_result run_exchange(const char *secret, const char *password, const uint8_t *cb, size_t cblen,
				    const char *mech, const char *gs2, const uint8_t *client_cb, util_err *e)
{
	pgw_scram s;
	util_buf out = UTIL_BUF_INIT;
	assert_int_equal(pgw_scram_init(&s, "u", secret, cb, cblen, NULL, e), 0);
	char first[256], bare[] = "n=,r=abcdefghijklmnop";
	snprintf(first, sizeof first, "%s%s", gs2, bare);
	pgw_sasl_result r = step(&s, mech, first, &out, e);
	if (r == PGW_SASL_CONTINUE) {
		uint8_t cbin[256];
		size_t l = strlen(gs2);
		memcpy(cbin, gs2, l);
		if (client_cb) {
			memcpy(cbin + l, client_cb, cblen);
			l += cblen;
		}
		char cb64[400], fin[1024];
		util_base64_encode(cbin, l, cb64);
		client_final(password, bare, out.data, cb64, fin, sizeof fin);
		r = step(&s, NULL, fin, &out, e);
	}
	pgw_scram_free(&s);
	util_buf_free(&out);
	return r;
}

static void test_passwords(void **state)
{
	(void)state;
	char secret[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret("right", 0, secret), 0);
	util_err e;
	assert_int_equal(run_exchange(secret, "right", NULL, 0, "SCRAM-SHA-256", "n,,", NULL, &e),
			 PGW_SASL_DONE);
	assert_int_equal(run_exchange(secret, "wrong", NULL, 0, "SCRAM-SHA-256", "n,,", NULL, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(util_errcode_sqlstate(e.code), "28P01");
	assert_string_equal(e.message, "password authentication failed for user \"u\"");
	/* an unknown role fails the same way, only at the end */
	assert_int_equal(run_exchange(NULL, "right", NULL, 0, "SCRAM-SHA-256", "n,,", NULL, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(util_errcode_sqlstate(e.code), "28P01");
	/* 'y': the client could bind but thinks we cannot; fine without TLS */
	assert_int_equal(run_exchange(secret, "right", NULL, 0, "SCRAM-SHA-256", "y,,", NULL, &e),
			 PGW_SASL_DONE);
}

static void test_mock_salt_is_stable(void **state)
{
	(void)state;
	pgw_scram a, b;
	util_err e;
	util_buf oa = UTIL_BUF_INIT, ob = UTIL_BUF_INIT;
	pgw_scram_init(&a, "ghost", NULL, NULL, 0, "N", &e);
	pgw_scram_init(&b, "ghost", NULL, NULL, 0, "N", &e);
	assert_int_equal(step(&a, "SCRAM-SHA-256", "n,,n=,r=x", &oa, &e), PGW_SASL_CONTINUE);
	assert_int_equal(step(&b, "SCRAM-SHA-256", "n,,n=,r=x", &ob, &e), PGW_SASL_CONTINUE);
	assert_string_equal(oa.data, ob.data);
	assert_non_null(strstr(oa.data, ",i=4096"));
	pgw_scram_free(&a);
	pgw_scram_free(&b);
	util_buf_free(&oa);
	util_buf_free(&ob);
}

static void test_channel_binding(void **state)
{
	(void)state;
	char secret[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret("pw", 0, secret), 0);
	uint8_t cb[32], other[32];
	util_sha256("certificate", 11, cb);
	util_sha256("another one", 11, other);
	util_err e;
	/* the PLUS mechanism is offered first */
	pgw_scram s;
	pgw_scram_init(&s, "u", secret, cb, sizeof cb, NULL, &e);
	util_buf m = UTIL_BUF_INIT;
	pgw_scram_mechanisms(&s, &m);
	assert_memory_equal(m.data, "SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0", m.len);
	util_buf_free(&m);
	pgw_scram_free(&s);

	const char *gs2 = "p=tls-server-end-point,,";
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256-PLUS", gs2, cb, &e),
			 PGW_SASL_DONE);
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256-PLUS", gs2, other, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(e.message, "SCRAM channel binding check failed");
	/* plain SCRAM over TLS is fine too */
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256", "n,,", NULL, &e),
			 PGW_SASL_DONE);
	/* 'y' over TLS is a downgrade */
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256", "y,,", NULL, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(util_errcode_sqlstate(e.code), "28000");
	assert_string_equal(e.message, "SCRAM channel binding negotiation error");
	/* PLUS without binding data, binding data without PLUS, PLUS without TLS */
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256-PLUS", "n,,", NULL, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(e.message, "malformed SCRAM message");
	assert_int_equal(run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256", gs2, cb, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(e.message, "malformed SCRAM message");
	assert_int_equal(run_exchange(secret, "pw", NULL, 0, "SCRAM-SHA-256-PLUS", gs2, cb, &e),
			 PGW_SASL_FAIL);
	assert_string_equal(e.message, "client selected an invalid SASL authentication mechanism");
	assert_int_equal(
	    run_exchange(secret, "pw", cb, sizeof cb, "SCRAM-SHA-256-PLUS", "p=tls-unique,,", cb, &e),
	    PGW_SASL_FAIL);
	assert_string_equal(e.message, "unsupported SCRAM channel-binding type \"tls-unique\"");
}

static void test_malformed(void **state)
{
	(void)state;
	char secret[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret("pw", 0, secret), 0);
	struct {
		const char *first, *final; /* final NULL: the first message fails */
		const char *sqlstate;
	} cases[] = {
	    {"", NULL, "08P01"},
	    {"x,,n=,r=a", NULL, "08P01"},
	    {"n,a=bob,n=,r=a", NULL, "0A000"},
	    {"n,,m=ext,n=,r=a", NULL, "0A000"},
	    {"n,,r=a", NULL, "08P01"},
	    {"n,,n=,r=", NULL, "08P01"},
	    {"n,,n=,r=a,7=x", NULL, "08P01"},
	    {"n;,n=,r=a", NULL, "08P01"},
	    {"n,,n=,r=a", "c=biws,r=aWRONG,p=AAAA", "08P01"},
	    {"n,,n=,r=a", "c=eSws,r=a", "08P01"},
	    {"n,,n=,r=a", "r=a", "08P01"},
	    {"n,,n=,r=a", "", "08P01"},
	};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(cases); i++) {
		pgw_scram s;
		util_err e;
		util_buf out = UTIL_BUF_INIT;
		pgw_scram_init(&s, "u", secret, NULL, 0, "SN", &e);
		pgw_sasl_result r = step(&s, "SCRAM-SHA-256", cases[i].first, &out, &e);
		if (cases[i].final) {
			assert_int_equal(r, PGW_SASL_CONTINUE);
			r = step(&s, NULL, cases[i].final, &out, &e);
		}
		assert_int_equal(r, PGW_SASL_FAIL);
		assert_string_equal(util_errcode_sqlstate(e.code), cases[i].sqlstate);
		pgw_scram_free(&s);
		util_buf_free(&out);
	}
	/* proof problems: wrong length, trailing garbage */
	const char *finals[] = {"c=biws,r=aSN,p=AAAA",
				"c=biws,r=aSN,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=,x=1"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(finals); i++) {
		pgw_scram s;
		util_err e;
		util_buf out = UTIL_BUF_INIT;
		pgw_scram_init(&s, "u", secret, NULL, 0, "SN", &e);
		assert_int_equal(step(&s, "SCRAM-SHA-256", "n,,n=,r=a", &out, &e), PGW_SASL_CONTINUE);
		assert_int_equal(step(&s, NULL, finals[i], &out, &e), PGW_SASL_FAIL);
		assert_string_equal(e.message, "malformed SCRAM message");
		pgw_scram_free(&s);
		util_buf_free(&out);
	}
	/* an embedded NUL */
	pgw_scram s;
	util_err e;
	util_buf out = UTIL_BUF_INIT;
	pgw_scram_init(&s, "u", secret, NULL, 0, "SN", &e);
	assert_int_equal(pgw_scram_step(&s, "SCRAM-SHA-256", (const uint8_t *)"n,,n=\0,r=a", 10, &out, &e),
			 PGW_SASL_FAIL);
	pgw_scram_free(&s);
	util_buf_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc7677),
	    cmocka_unit_test(test_passwords),
	    cmocka_unit_test(test_mock_salt_is_stable),
	    cmocka_unit_test(test_channel_binding),
	    cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
