/*
 * crypto.h — the cryptographic helpers authentication needs: SHA-256,
 * HMAC-SHA-256, PBKDF2, MD5, base64, constant-time comparison, and the two
 * password secret formats PostgreSQL stores in pg_authid.rolpassword:
 *
 *   SCRAM-SHA-256$<iterations>:<base64 salt>$<base64 StoredKey>:<base64 ServerKey>
 *   md5<32 hex digits of md5(password || user)>
 *
 * Built on OpenSSL's libcrypto. Everything here is thread-safe and never
 * logs its inputs (they are passwords).
 */
#ifndef STRATA_CRYPTO_H
#define STRATA_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTIL_SHA256_LEN 32
#define UTIL_MD5_LEN    16
/* Room for any secret this header produces, NUL included (fits
 * sql_role_info.password). */
#define UTIL_SCRAM_SECRET_MAX 256
/* "md5" + 32 hex digits + NUL. */
#define UTIL_MD5_PASSWORD_LEN 36
/* PostgreSQL 15's defaults for new SCRAM secrets. */
#define UTIL_SCRAM_ITERATIONS 4096
#define UTIL_SCRAM_SALT_LEN   16
#define UTIL_SCRAM_SALT_MAX   64

/* Initialises libcrypto; the server calls it before starting any thread
 * (crypto.c says why). */
void util_crypto_init(void);
void util_sha256(const void *data, size_t n, uint8_t out[UTIL_SHA256_LEN]);
void util_hmac_sha256(const void *key, size_t klen, const void *data, size_t n, uint8_t out[UTIL_SHA256_LEN]);
/* PBKDF2-HMAC-SHA-256 with a 32-byte output (SCRAM's Hi()); -1 if
 * iterations < 1. */
int util_pbkdf2_sha256(const void *pw, size_t pwlen, const uint8_t *salt, size_t saltlen, int iterations,
		       uint8_t out[UTIL_SHA256_LEN]);
void util_md5(const void *data, size_t n, uint8_t out[UTIL_MD5_LEN]);
/* Lower-case hex of md5(data): 32 characters and a NUL. */
void util_md5_hex(const void *data, size_t n, char out[33]);

/* Standard base64 with padding. Encoding writes 4*ceil(n/3) characters and a
 * NUL; dst must hold UTIL_BASE64_LEN(n) bytes. */
#define UTIL_BASE64_LEN(n) (((n) + 2) / 3 * 4 + 1)
static inline size_t util_base64_encoded_len(size_t n)
{
	return UTIL_BASE64_LEN(n);
}
size_t util_base64_encode(const uint8_t *src, size_t n, char *dst);
/* Decodes exactly n characters (padding required, no whitespace); returns
 * the decoded length or -1 if src is not valid base64 or dst (dstcap bytes)
 * is too small. */
long util_base64_decode(const char *src, size_t n, uint8_t *dst, size_t dstcap);

/* Compares n bytes in time independent of where they differ. */
bool util_consttime_eq(const void *a, const void *b, size_t n);
/* Overwrites memory that held secrets (not optimised away). */
void util_secure_zero(void *p, size_t n);

/* A new SCRAM-SHA-256 secret for password with a random 16-byte salt;
 * iterations <= 0 means UTIL_SCRAM_ITERATIONS. -1 if the OS gives no
 * randomness. */
int util_scram_secret(const char *password, int iterations, char out[UTIL_SCRAM_SECRET_MAX]);
/* Same with a given salt (tests, and verifying a cleartext password). */
int util_scram_secret_salt(const char *password, int iterations, const uint8_t *salt, size_t saltlen,
			   char out[UTIL_SCRAM_SECRET_MAX]);
/* Splits a SCRAM secret; salt must hold UTIL_SCRAM_SALT_MAX bytes. -1 if
 * secret is not a well-formed SCRAM-SHA-256 secret. */
int util_scram_parse_secret(const char *secret, int *iterations, uint8_t *salt, size_t *saltlen,
			    uint8_t stored_key[UTIL_SHA256_LEN], uint8_t server_key[UTIL_SHA256_LEN]);
/* SCRAM's key schedule from a password: SaltedPassword = Hi(password, salt,
 * i), ClientKey = HMAC(SaltedPassword, "Client Key"), StoredKey =
 * H(ClientKey), ServerKey = HMAC(SaltedPassword, "Server Key"). Any output may
 * be NULL. The password bytes are used as given: PostgreSQL first applies
 * SASLprep (RFC 4013), which is the identity for ASCII passwords; non-ASCII
 * passwords that SASLprep would change are not normalised (docs/wire.md). */
int util_scram_keys(const char *password, const uint8_t *salt, size_t saltlen, int iterations,
		    uint8_t client_key[UTIL_SHA256_LEN], uint8_t stored_key[UTIL_SHA256_LEN],
		    uint8_t server_key[UTIL_SHA256_LEN]);

/* "md5" || md5hex(password || user), PostgreSQL's md5 secret. */
void util_md5_password(const char *password, const char *user, char out[UTIL_MD5_PASSWORD_LEN]);
/* True if secret has the SCRAM-SHA-256 or md5 shape. */
bool util_secret_is_scram(const char *secret);
bool util_secret_is_md5(const char *secret);

#endif /* STRATA_CRYPTO_H */
