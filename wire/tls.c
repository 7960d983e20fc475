/* tls.c — the server's TLS context (OpenSSL): certificate, key, optional client CA, protocol floor,
 * and the tls-server-end-point hash that SCRAM-SHA-256-PLUS binds to. */
#include "pgw_int.h"

#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

static int tls_fail(util_err *err, const char *what, const char *file)
{
	char why[256] = "";
	unsigned long e = ERR_get_error();
	if (e)
		ERR_error_string_n(e, why, sizeof why);
	ERR_clear_error();
	return util_err_set(err, UTIL_E_CONFIG_FILE_ERROR, "%s \"%s\": %s", what, file, why);
}

/* RFC 5929 tls-server-end-point: the certificate hashed with its signature's
 * hash algorithm, SHA-256 when that is MD5 or SHA-1. */
static void end_point_hash(SSL_CTX *ctx, uint8_t *out, size_t *len)
{
	*len = 0;
	X509 *crt = SSL_CTX_get0_certificate(ctx);
	int algo = NID_undef;
	if (!crt || !OBJ_find_sigid_algs(X509_get_signature_nid(crt), &algo, NULL))
		return;
	const EVP_MD *md;
	if (algo == NID_md5 || algo == NID_sha1)
		md = EVP_sha256();
	else
		md = EVP_get_digestbynid(algo);
	unsigned int n = 0;
	/* No digest (e.g. Ed25519): channel binding is not offered. */
	if (md && X509_digest(crt, md, out, &n) == 1 && n <= 64)
		*len = n;
}

int pgw_tls_context(const char *cert, const char *key, const char *ca, SSL_CTX **out, uint8_t *cb_hash,
		    size_t *cb_len, util_err *err)
{
	ERR_clear_error();
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx)
		return tls_fail(err, "could not create SSL context for", cert);
	/* PostgreSQL 15's ssl_min_protocol_version default. */
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET | SSL_OP_CIPHER_SERVER_PREFERENCE |
				     SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
		tls_fail(err, "could not load server certificate file", cert);
		goto fail;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		tls_fail(err, "could not load private key file", key);
		goto fail;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		tls_fail(err, "check of private key failed for", key);
		goto fail;
	}
	if (ca) {
		if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
			tls_fail(err, "could not load root certificate file", ca);
			goto fail;
		}
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca);
		if (names)
			SSL_CTX_set_client_CA_list(ctx, names);
		/* Client certificates are optional, but checked when sent. */
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE, NULL);
	}
	end_point_hash(ctx, cb_hash, cb_len);
	*out = ctx;
	return 0;
fail:
	SSL_CTX_free(ctx);
	return -1;
}

void pgw_tls_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}
