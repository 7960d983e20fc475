/* crypto_test.c — unit tests for crypto.h against published test vectors (FIPS 180-2, RFC 4231,
 * RFC 7914, RFC 1321, RFC 4648) and secrets produced by a real PostgreSQL 15. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "crypto.h"
#include "util.h"

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha256(void **state)
{
	(void)state;
	uint8_t d[UTIL_SHA256_LEN];
	char h[65];
	util_sha256("abc", 3, d);
	hex(d, sizeof d, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_hmac(void **state)
{
	(void)state;
	/* RFC 4231 test case 2 */
	uint8_t d[UTIL_SHA256_LEN];
	char h[65];
	util_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
	hex(d, sizeof d, h);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

static void test_pbkdf2(void **state)
{
	(void)state;
	/* RFC 7914 section 11, first 32 bytes of the 64-byte output. */
	uint8_t d[UTIL_SHA256_LEN];
	char h[65];
	assert_int_equal(util_pbkdf2_sha256("passwd", 6, (const uint8_t *)"salt", 4, 1, d), 0);
	hex(d, sizeof d, h);
	assert_string_equal(h, "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc");
	assert_int_equal(util_pbkdf2_sha256("passwd", 6, (const uint8_t *)"salt", 4, 0, d), -1);
}

static void test_md5(void **state)
{
	(void)state;
	char h[33];
	util_md5_hex("message digest", 14, h);
	assert_string_equal(h, "f96b697d7cb7938d525a2f31aaf161d0");
	util_md5_hex("", 0, h);
	assert_string_equal(h, "d41d8cd98f00b204e9800998ecf8427e");
}

static void test_base64(void **state)
{
	(void)state;
	/* RFC 4648 section 10 */
	const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(in); i++) {
		char enc[16];
		uint8_t dec[16];
		util_base64_encode((const uint8_t *)in[i], strlen(in[i]), enc);
		assert_string_equal(enc, out[i]);
		long n = util_base64_decode(out[i], strlen(out[i]), dec, sizeof dec);
		assert_int_equal(n, (long)strlen(in[i]));
		assert_memory_equal(dec, in[i], (size_t)n);
	}
	uint8_t d[16];
	assert_int_equal(util_base64_decode("Zm9", 3, d, sizeof d), -1);  /* not a multiple of 4 */
	assert_int_equal(util_base64_decode("Zm=v", 4, d, sizeof d), -1); /* data after padding */
	assert_int_equal(util_base64_decode("Z===", 4, d, sizeof d), -1); /* too much padding */
	assert_int_equal(util_base64_decode("Zm9v*A==", 8, d, sizeof d), -1);
	assert_int_equal(util_base64_decode("Zm9vYmFy", 8, d, 5), -1); /* dst too small */
}

/* Secrets made by PostgreSQL 15.18 for password 'pencil':
 *   CREATE ROLE vec_scram PASSWORD 'pencil';  (password_encryption = scram-sha-256)
 *   SET password_encryption = 'md5'; CREATE ROLE vec_md5 PASSWORD 'pencil'; */
static const char pg_scram[] =
    "SCRAM-SHA-256$4096:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=:"
    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=";

static void test_scram_secret_matches_postgres(void **state)
{
	(void)state;
	int it;
	uint8_t salt[UTIL_SCRAM_SALT_MAX], st[UTIL_SHA256_LEN], sv[UTIL_SHA256_LEN];
	size_t sl;
	assert_int_equal(util_scram_parse_secret(pg_scram, &it, salt, &sl, st, sv), 0);
	assert_int_equal(it, 4096);
	assert_int_equal(sl, 16);
	char out[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret_salt("pencil", it, salt, sl, out), 0);
	assert_string_equal(out, pg_scram);
	assert_int_equal(util_scram_secret_salt("pencil2", it, salt, sl, out), 0);
	assert_string_not_equal(out, pg_scram);
	assert_true(util_secret_is_scram(pg_scram));
	assert_false(util_secret_is_md5(pg_scram));
}

static void test_scram_secret_random(void **state)
{
	(void)state;
	char a[UTIL_SCRAM_SECRET_MAX], b[UTIL_SCRAM_SECRET_MAX];
	assert_int_equal(util_scram_secret("pw", 0, a), 0);
	assert_int_equal(util_scram_secret("pw", 0, b), 0);
	assert_string_not_equal(a, b); /* fresh salt each time */
	assert_true(util_secret_is_scram(a));
	int it;
	uint8_t salt[UTIL_SCRAM_SALT_MAX], st[UTIL_SHA256_LEN], sv[UTIL_SHA256_LEN];
	size_t sl;
	assert_int_equal(util_scram_parse_secret(a, &it, salt, &sl, st, sv), 0);
	assert_int_equal(it, UTIL_SCRAM_ITERATIONS);
	assert_int_equal(sl, UTIL_SCRAM_SALT_LEN);
	/* Recomputing from the password gives the same keys. */
	uint8_t st2[UTIL_SHA256_LEN], sv2[UTIL_SHA256_LEN];
	assert_int_equal(util_scram_keys("pw", salt, sl, it, NULL, st2, sv2), 0);
	assert_memory_equal(st, st2, sizeof st);
	assert_memory_equal(sv, sv2, sizeof sv);
}

static void test_scram_parse_rejects(void **state)
{
	(void)state;
	const char *bad[] = {
	    "",
	    "md5d3ebb44626804ca107f3d0cc8e7c93cc",
	    "SCRAM-SHA-256$",
	    "SCRAM-SHA-256$4096:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=",
	    "SCRAM-SHA-256$0:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=:"
	    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=",
	    "SCRAM-SHA-256$x:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=:"
	    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=",
	    "SCRAM-SHA-256$4096:$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=:"
	    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=",
	    /* StoredKey one byte short */
	    "SCRAM-SHA-256$4096:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qA==:"
	    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=",
	    "SCRAM-SHA-256$99999999999:CdI/z+tq8aI1Tzww+cV8tQ==$uatL74hUxPORNkRk0Qw6zM1Oh1402FOqqCDsvpn2qEk=:"
	    "zMmZB/P6oE4cck+0agp1eKb3RTcLUFLJMhakJxTnlK8=",
	};
	int it;
	uint8_t salt[UTIL_SCRAM_SALT_MAX], st[UTIL_SHA256_LEN], sv[UTIL_SHA256_LEN];
	size_t sl;
	for (size_t i = 0; i < UTIL_ARRAY_LEN(bad); i++)
		assert_int_equal(util_scram_parse_secret(bad[i], &it, salt, &sl, st, sv), -1);
}

static void test_md5_password_matches_postgres(void **state)
{
	(void)state;
	char out[UTIL_MD5_PASSWORD_LEN];
	util_md5_password("pencil", "vec_md5", out);
	assert_string_equal(out, "md5d3ebb44626804ca107f3d0cc8e7c93cc");
	assert_true(util_secret_is_md5(out));
	assert_false(util_secret_is_scram(out));
	assert_false(util_secret_is_md5("md5d3ebb44626804ca107f3d0cc8e7c93c"));
	assert_false(util_secret_is_md5("md5D3EBB44626804CA107F3D0CC8E7C93CC"));
}

static void test_consttime_eq(void **state)
{
	(void)state;
	assert_true(util_consttime_eq("abcd", "abcd", 4));
	assert_false(util_consttime_eq("abcd", "abce", 4));
	char s[8] = "secret";
	util_secure_zero(s, sizeof s);
	for (size_t i = 0; i < sizeof s; i++)
		assert_int_equal(s[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha256),
	    cmocka_unit_test(test_hmac),
	    cmocka_unit_test(test_pbkdf2),
	    cmocka_unit_test(test_md5),
	    cmocka_unit_test(test_base64),
	    cmocka_unit_test(test_scram_secret_matches_postgres),
	    cmocka_unit_test(test_scram_secret_random),
	    cmocka_unit_test(test_scram_parse_rejects),
	    cmocka_unit_test(test_md5_password_matches_postgres),
	    cmocka_unit_test(test_consttime_eq),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
