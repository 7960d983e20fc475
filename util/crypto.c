/* crypto.c — hashes, HMAC, PBKDF2 and base64 over libcrypto, and the SCRAM-SHA-256 / md5 password
 * secrets PostgreSQL stores for roles. */
#include "crypto.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

/* libcrypto creates pthread keys the first time it is used (error state,
 * random generators, per-thread cleanup). After ~1,000 connection threads
 * libpg_query has taken every key the process has (util.h, per-thread
 * objects), and a libcrypto first used then fails for good (md5() errors,
 * SCRAM asserts). So everything is used once here, at startup. */
void util_crypto_init(void)
{
	OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CRYPTO_STRINGS | OPENSSL_INIT_ADD_ALL_DIGESTS, NULL);
	uint8_t buf[64];
	RAND_bytes(buf, 1);
	const char *digests[] = {"md5", "sha224", "sha256", "sha384", "sha512"};
	for (size_t i = 0; i < sizeof digests / sizeof digests[0]; i++) {
		const EVP_MD *md = EVP_get_digestbyname(digests[i]);
		unsigned int len = 0;
		if (md)
			EVP_Digest("", 0, buf, &len, md, NULL);
	}
	unsigned int len = 0;
	HMAC(EVP_sha256(), "k", 1, (const uint8_t *)"", 0, buf, &len);
	PKCS5_PBKDF2_HMAC("p", 1, (const uint8_t *)"s", 1, 1, EVP_sha256(), UTIL_SHA256_LEN, buf);
	ERR_clear_error();
}

void util_sha256(const void *data, size_t n, uint8_t out[UTIL_SHA256_LEN])
{
	unsigned int len = UTIL_SHA256_LEN;
	/* EVP_Digest only fails on allocation failure inside OpenSSL. */
	UTIL_ASSERT(EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) == 1, "sha256");
}

void util_hmac_sha256(const void *key, size_t klen, const void *data, size_t n, uint8_t out[UTIL_SHA256_LEN])
{
	unsigned int len = UTIL_SHA256_LEN;
	UTIL_ASSERT(HMAC(EVP_sha256(), key, (int)klen, data, n, out, &len) != NULL, "hmac-sha256");
}

int util_pbkdf2_sha256(const void *pw, size_t pwlen, const uint8_t *salt, size_t saltlen, int iterations,
		       uint8_t out[UTIL_SHA256_LEN])
{
	if (iterations < 1)
		return -1;
	if (PKCS5_PBKDF2_HMAC(pw, (int)pwlen, salt, (int)saltlen, iterations, EVP_sha256(), UTIL_SHA256_LEN,
			      out) != 1)
		return -1;
	return 0;
}

void util_md5(const void *data, size_t n, uint8_t out[UTIL_MD5_LEN])
{
	unsigned int len = UTIL_MD5_LEN;
	UTIL_ASSERT(EVP_Digest(data, n, out, &len, EVP_md5(), NULL) == 1, "md5");
}

void util_md5_hex(const void *data, size_t n, char out[33])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t d[UTIL_MD5_LEN];
	util_md5(data, n, d);
	for (int i = 0; i < UTIL_MD5_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[32] = '\0';
}

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t util_base64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t o = 0, i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 | src[i + 2];
		dst[o++] = b64chars[v >> 18];
		dst[o++] = b64chars[(v >> 12) & 63];
		dst[o++] = b64chars[(v >> 6) & 63];
		dst[o++] = b64chars[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)src[i] << 16 | (i + 1 < n ? (uint32_t)src[i + 1] << 8 : 0);
		dst[o++] = b64chars[v >> 18];
		dst[o++] = b64chars[(v >> 12) & 63];
		dst[o++] = i + 1 < n ? b64chars[(v >> 6) & 63] : '=';
		dst[o++] = '=';
	}
	dst[o] = '\0';
	return o;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long util_base64_decode(const char *src, size_t n, uint8_t *dst, size_t dstcap)
{
	if (n % 4 != 0)
		return -1;
	size_t o = 0;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		for (int k = 0; k < 4; k++) {
			char c = src[i + k];
			if (c == '=' && i + 4 == n && k >= 2) {
				v[k] = 0;
				pad++;
				continue;
			}
			if (pad) /* data after padding */
				return -1;
			v[k] = b64val(c);
			if (v[k] < 0)
				return -1;
		}
		uint32_t w =
		    (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
		size_t take = 3 - (size_t)pad;
		if (o + take > dstcap)
			return -1;
		dst[o++] = (uint8_t)(w >> 16);
		if (take > 1)
			dst[o++] = (uint8_t)(w >> 8);
		if (take > 2)
			dst[o++] = (uint8_t)w;
	}
	return (long)o;
}

bool util_consttime_eq(const void *a, const void *b, size_t n)
{
	return CRYPTO_memcmp(a, b, n) == 0;
}

void util_secure_zero(void *p, size_t n)
{
	OPENSSL_cleanse(p, n);
}

int util_scram_keys(const char *password, const uint8_t *salt, size_t saltlen, int iterations,
		    uint8_t client_key[UTIL_SHA256_LEN], uint8_t stored_key[UTIL_SHA256_LEN],
		    uint8_t server_key[UTIL_SHA256_LEN])
{
	uint8_t salted[UTIL_SHA256_LEN], ck[UTIL_SHA256_LEN];
	if (util_pbkdf2_sha256(password, strlen(password), salt, saltlen, iterations, salted) < 0)
		return -1;
	util_hmac_sha256(salted, sizeof salted, "Client Key", 10, ck);
	if (client_key)
		memcpy(client_key, ck, sizeof ck);
	if (stored_key)
		util_sha256(ck, sizeof ck, stored_key);
	if (server_key)
		util_hmac_sha256(salted, sizeof salted, "Server Key", 10, server_key);
	util_secure_zero(salted, sizeof salted);
	util_secure_zero(ck, sizeof ck);
	return 0;
}

int util_scram_secret_salt(const char *password, int iterations, const uint8_t *salt, size_t saltlen,
			   char out[UTIL_SCRAM_SECRET_MAX])
{
	if (iterations <= 0)
		iterations = UTIL_SCRAM_ITERATIONS;
	if (saltlen == 0 || saltlen > UTIL_SCRAM_SALT_MAX)
		return -1;
	uint8_t stored[UTIL_SHA256_LEN], server[UTIL_SHA256_LEN];
	if (util_scram_keys(password, salt, saltlen, iterations, NULL, stored, server) < 0)
		return -1;
	char s64[UTIL_BASE64_LEN(UTIL_SCRAM_SALT_MAX)];
	char st64[UTIL_BASE64_LEN(UTIL_SHA256_LEN)], sv64[UTIL_BASE64_LEN(UTIL_SHA256_LEN)];
	util_base64_encode(salt, saltlen, s64);
	util_base64_encode(stored, sizeof stored, st64);
	util_base64_encode(server, sizeof server, sv64);
	int n =
	    snprintf(out, UTIL_SCRAM_SECRET_MAX, "SCRAM-SHA-256$%d:%s$%s:%s", iterations, s64, st64, sv64);
	return n > 0 && n < UTIL_SCRAM_SECRET_MAX ? 0 : -1;
}

int util_scram_secret(const char *password, int iterations, char out[UTIL_SCRAM_SECRET_MAX])
{
	uint8_t salt[UTIL_SCRAM_SALT_LEN];
	if (util_random_bytes(salt, sizeof salt) < 0)
		return -1;
	return util_scram_secret_salt(password, iterations, salt, sizeof salt, out);
}

/* Decodes base64 text [p, end) that must decode to exactly want bytes (or, if
 * want is 0, to 1..cap bytes); returns the length or -1. */
static long decode_field(const char *p, const char *end, uint8_t *dst, size_t cap, size_t want)
{
	uint8_t tmp[UTIL_SCRAM_SALT_MAX + 3];
	size_t n = (size_t)(end - p);
	if (n == 0 || n > util_base64_encoded_len(sizeof tmp))
		return -1;
	long got = util_base64_decode(p, n, tmp, sizeof tmp);
	if (got <= 0 || (want && (size_t)got != want) || (size_t)got > cap)
		return -1;
	memcpy(dst, tmp, (size_t)got);
	return got;
}

int util_scram_parse_secret(const char *secret, int *iterations, uint8_t *salt, size_t *saltlen,
			    uint8_t stored_key[UTIL_SHA256_LEN], uint8_t server_key[UTIL_SHA256_LEN])
{
	static const char prefix[] = "SCRAM-SHA-256$";
	if (strncmp(secret, prefix, sizeof prefix - 1) != 0)
		return -1;
	const char *p = secret + sizeof prefix - 1;
	/* <iterations>:<salt>$<StoredKey>:<ServerKey> */
	const char *colon1 = strchr(p, ':');
	const char *dollar = colon1 ? strchr(colon1, '$') : NULL;
	const char *colon2 = dollar ? strchr(dollar, ':') : NULL;
	if (!colon2 || colon1 == p)
		return -1;
	long it = 0;
	for (const char *q = p; q < colon1; q++) {
		if (*q < '0' || *q > '9' || it > 100000000)
			return -1;
		it = it * 10 + (*q - '0');
	}
	if (it < 1)
		return -1;
	long sl = decode_field(colon1 + 1, dollar, salt, UTIL_SCRAM_SALT_MAX, 0);
	if (sl < 0)
		return -1;
	if (decode_field(dollar + 1, colon2, stored_key, UTIL_SHA256_LEN, UTIL_SHA256_LEN) < 0)
		return -1;
	if (decode_field(colon2 + 1, colon2 + strlen(colon2), server_key, UTIL_SHA256_LEN, UTIL_SHA256_LEN) <
	    0)
		return -1;
	*iterations = (int)it;
	*saltlen = (size_t)sl;
	return 0;
}

void util_md5_password(const char *password, const char *user, char out[UTIL_MD5_PASSWORD_LEN])
{
	size_t pl = strlen(password), ul = strlen(user);
	char *tmp = util_xmalloc(pl + ul + 1);
	memcpy(tmp, password, pl);
	memcpy(tmp + pl, user, ul);
	memcpy(out, "md5", 3);
	util_md5_hex(tmp, pl + ul, out + 3);
	util_secure_zero(tmp, pl + ul);
	free(tmp);
}

bool util_secret_is_scram(const char *secret)
{
	int it;
	uint8_t salt[UTIL_SCRAM_SALT_MAX], st[UTIL_SHA256_LEN], sv[UTIL_SHA256_LEN];
	size_t sl;
	return util_scram_parse_secret(secret, &it, salt, &sl, st, sv) == 0;
}

bool util_secret_is_md5(const char *secret)
{
	if (strncmp(secret, "md5", 3) != 0 || strlen(secret) != 35)
		return false;
	for (int i = 3; i < 35; i++) {
		char c = secret[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}
