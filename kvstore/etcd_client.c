/*
 * etcd_client.c — requests to etcd v3's gRPC gateway (JSON over HTTP/1.1,
 * keys and values base64): range and txn. One curl handle per thread keeps
 * its connections alive. A request that cannot reach an endpoint, times out
 * or meets a leader change is retried on the next endpoint until the
 * store's timeout; a transaction retried after a timeout is reported as
 * ambiguous (it may have been applied) so the commit path can find out.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ekv.h"

/* ---------------------------------------------------------------- base64 */

static const char b64c[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_enc(const uint8_t *p, size_t n)
{
	char *o = util_xmalloc(4 * ((n + 2) / 3) + 1), *w = o;
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8) | p[i + 2];
		*w++ = b64c[v >> 18];
		*w++ = b64c[(v >> 12) & 63];
		*w++ = b64c[(v >> 6) & 63];
		*w++ = b64c[v & 63];
	}
	if (n - i == 1) {
		uint32_t v = (uint32_t)p[i] << 16;
		*w++ = b64c[v >> 18];
		*w++ = b64c[(v >> 12) & 63];
		*w++ = '=';
		*w++ = '=';
	} else if (n - i == 2) {
		uint32_t v = ((uint32_t)p[i] << 16) | ((uint32_t)p[i + 1] << 8);
		*w++ = b64c[v >> 18];
		*w++ = b64c[(v >> 12) & 63];
		*w++ = b64c[(v >> 6) & 63];
		*w++ = '=';
	}
	*w = 0;
	return o;
}

static int b64v(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Decodes s into a new buffer (caller frees); false if malformed. */
static bool b64_dec(const char *s, uint8_t **out, size_t *n)
{
	size_t l = strlen(s);
	uint8_t *o = util_xmalloc(l / 4 * 3 + 3);
	size_t k = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < l; i++) {
		if (s[i] == '=')
			break;
		int v = b64v(s[i]);
		if (v < 0) {
			free(o);
			return false;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[k++] = (uint8_t)(acc >> bits);
		}
	}
	*out = o;
	*n = k;
	return true;
}

static json_t *jb64(const uint8_t *p, size_t n)
{
	char *s = b64_enc(p, n);
	json_t *j = json_string(s);
	free(s);
	return j;
}

static int64_t jint(json_t *o, const char *name)
{
	json_t *v = json_object_get(o, name);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	return 0;
}

static json_t *jrev(int64_t r)
{
	char b[32];
	snprintf(b, sizeof b, "%lld", (long long)r);
	return json_string(b);
}

/* ---------------------------------------------------------------- HTTP */

typedef struct tls_curl {
	CURL *h;
	util_buf body;
} tls_curl;

static util_tls_slot curl_slot;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_tls_free(void *p)
{
	tls_curl *c = p;
	curl_easy_cleanup(c->h);
	util_buf_free(&c->body);
	free(c);
}

static void curl_init_once(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *p, size_t sz, size_t n, void *arg)
{
	util_buf_append(arg, p, sz * n);
	return sz * n;
}

/* The thread's handle; *own: the caller frees it after the request (it
 * could not be kept for the thread). */
static tls_curl *get_curl(bool *own)
{
	pthread_once(&curl_once, curl_init_once);
	tls_curl *c = util_tls_get(&curl_slot);
	*own = false;
	if (!c) {
		c = util_xcalloc(1, sizeof *c);
		c->h = curl_easy_init();
		UTIL_ASSERT(c->h, "curl_easy_init failed");
		*own = !util_tls_set(&curl_slot, c, curl_tls_free);
	}
	return c;
}

enum { R_OK, R_RETRY, R_FAIL, R_REAUTH };

/* Certificate and handshake errors a retry on another member would only
 * repeat (a wrong CA, an unreadable file): reported at once. */
static bool tls_setup_error(CURLcode cc)
{
	return cc == CURLE_PEER_FAILED_VERIFICATION || cc == CURLE_SSL_CACERT_BADFILE ||
	       cc == CURLE_SSL_CERTPROBLEM || cc == CURLE_SSL_CIPHER || cc == CURLE_SSL_ENGINE_NOTFOUND ||
	       cc == CURLE_SSL_CRL_BADFILE || cc == CURLE_SSL_ISSUER_ERROR;
}

/* One POST to one endpoint. R_RETRY: unreachable, timed out or a transient
 * server error (sent = the request may have reached the server);
 * R_REAUTH: the auth token expired or is missing. */
static int post_with(tls_curl *c, ekv *e, int ep, const char *path, const char *json, bool noauth,
		     json_t **resp, bool *sent, kv_status *st)
{
	char url[512];
	snprintf(url, sizeof url, "%s://%s%s", e->tls ? "https" : "http", e->endpoints[ep], path);
	util_buf_reset(&c->body);
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	if (e->user && !noauth) {
		pthread_mutex_lock(&e->auth_mu);
		if (e->token) {
			util_buf a = UTIL_BUF_INIT;
			util_buf_printf(&a, "Authorization: %s", e->token);
			util_buf_putc(&a, 0);
			hdr = curl_slist_append(hdr, a.data);
			util_buf_free(&a);
		}
		pthread_mutex_unlock(&e->auth_mu);
	}
	char errbuf[CURL_ERROR_SIZE];
	errbuf[0] = 0;
	curl_easy_reset(c->h);
	curl_easy_setopt(c->h, CURLOPT_ERRORBUFFER, errbuf);
	if (e->tls) {
		if (e->cacert)
			curl_easy_setopt(c->h, CURLOPT_CAINFO, e->cacert);
		if (e->cert)
			curl_easy_setopt(c->h, CURLOPT_SSLCERT, e->cert);
		if (e->key)
			curl_easy_setopt(c->h, CURLOPT_SSLKEY, e->key);
	}
	curl_easy_setopt(c->h, CURLOPT_URL, url);
	curl_easy_setopt(c->h, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c->h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c->h, CURLOPT_WRITEDATA, &c->body);
	curl_easy_setopt(c->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->h, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
	curl_easy_setopt(c->h, CURLOPT_TIMEOUT_MS, (long)e->timeout_ms);
	util_wait_begin(); /* a network round trip: a thread pool may run someone else */
	CURLcode cc = curl_easy_perform(c->h);
	util_wait_end();
	curl_slist_free_all(hdr);
	*sent = false;
	if (cc != CURLE_OK) {
		*sent = cc != CURLE_COULDNT_CONNECT && cc != CURLE_COULDNT_RESOLVE_HOST;
		/* A member that refuses the client certificate (or its absence)
		 * ends the handshake, or the first read or write, with a TLS
		 * alert: final, not worth the other members' retries. */
		bool refused = e->tls && (strstr(errbuf, "alert bad certificate") ||
					  strstr(errbuf, "alert certificate required") ||
					  strstr(errbuf, "alert unknown ca"));
		*st = kv_fail(KV_IO_ERROR, "etcd %s: %s%s%s%s", e->endpoints[ep], curl_easy_strerror(cc),
			      errbuf[0] ? ": " : "", errbuf,
			      refused && !e->cert ? " (the cluster requires a client certificate: cert= and "
						    "key= in the store URI)"
						  : "");
		if (tls_setup_error(cc) || refused) {
			*sent = false;
			return R_FAIL;
		}
		return R_RETRY;
	}
	*sent = true;
	long code = 0;
	curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &code);
	json_error_t je;
	json_t *j = json_loadb(c->body.data ? c->body.data : "", c->body.len, 0, &je);
	if (!j) {
		/* A plain-text refusal (etcd's gateway: a client certificate
		 * with a CommonName under authentication) says why. */
		int tl = c->body.len > 200 ? 200 : (int)c->body.len;
		while (tl > 0 && (c->body.data[tl - 1] == '\n' || c->body.data[tl - 1] == ' '))
			tl--;
		*st = kv_fail(KV_IO_ERROR, "etcd %s: unreadable response (HTTP %ld)%s%.*s", e->endpoints[ep],
			      code, tl ? ": " : "", tl, tl ? c->body.data : "");
		return code >= 500 ? R_RETRY : R_FAIL;
	}
	if (code != 200) {
		const char *msg = json_string_value(json_object_get(j, "error"));
		if (!msg)
			msg = json_string_value(json_object_get(j, "message"));
		if (!msg)
			msg = "error";
		int rc = R_FAIL;
		if (strstr(msg, "too many operations") || strstr(msg, "too large") || strstr(msg, "exceeds"))
			*st = kv_fail(KV_TOO_LARGE,
				      "the transaction exceeds the etcd cluster's limits (--max-txn-ops, "
				      "--max-request-bytes): %s",
				      msg);
		else if (strstr(msg, "compacted"))
			*st = kv_fail(KV_CONFLICT, "etcd: the snapshot's revision was compacted: %s", msg);
		else if (e->user && !noauth &&
			 (strstr(msg, "invalid auth token") || strstr(msg, "user name is empty"))) {
			*st = kv_fail(KV_IO_ERROR, "etcd %s: %s", e->endpoints[ep], msg);
			rc = R_REAUTH;
		} else if (strstr(msg, "user name is empty")) {
			*st = kv_fail(KV_INVALID,
				      "etcd %s: %s (the cluster requires authentication: user=NAME and a "
				      "password in the store URI, docs/scale-out.md)",
				      e->endpoints[ep], msg);
		} else if (strstr(msg, "authentication failed") || strstr(msg, "permission denied")) {
			*st = kv_fail(KV_INVALID, "etcd %s: %s", e->endpoints[ep], msg);
		} else {
			*st = kv_fail(KV_IO_ERROR, "etcd %s: %s", e->endpoints[ep], msg);
			/* No leader, leader changed, timeouts, stopping: try again. */
			if (strstr(msg, "leader") || strstr(msg, "timed out") || strstr(msg, "stopped") ||
			    strstr(msg, "unavailable") || strstr(msg, "not capable") || code >= 500)
				rc = R_RETRY;
		}
		json_decref(j);
		return rc;
	}
	*resp = j;
	return R_OK;
}

static int post_once(ekv *e, int ep, const char *path, const char *json, bool noauth, json_t **resp,
		     bool *sent, kv_status *st)
{
	bool own;
	tls_curl *c = get_curl(&own);
	int rc = post_with(c, e, ep, path, json, noauth, resp, sent, st);
	if (own)
		curl_tls_free(c);
	return rc;
}

static kv_status post_ex(ekv *e, const char *path, json_t *req, bool noauth, json_t **resp, bool *ambiguous);

/* etcd authentication: a new token for the URI's user (any thread; the
 * first to get one installs it). */
static kv_status authenticate(ekv *e)
{
	json_t *req = json_object();
	json_object_set_new(req, "name", json_string(e->user));
	json_object_set_new(req, "password", json_string(e->password ? e->password : ""));
	json_t *resp = NULL;
	bool amb;
	kv_status st = post_ex(e, "/v3/auth/authenticate", req, true, &resp, &amb);
	json_decref(req);
	if (st) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", kv_errmsg());
		return kv_fail(st, "etcd authentication as %s failed: %s", e->user, msg);
	}
	const char *tok = json_string_value(json_object_get(resp, "token"));
	if (!tok || !*tok) {
		json_decref(resp);
		return kv_fail(KV_INVALID, "etcd authentication as %s returned no token (is auth enabled?)",
			       e->user);
	}
	pthread_mutex_lock(&e->auth_mu);
	free(e->token);
	e->token = util_xstrdup(tok);
	pthread_mutex_unlock(&e->auth_mu);
	json_decref(resp);
	return KV_OK;
}

kv_status ekv_auth_start(ekv *e)
{
	return e->user ? authenticate(e) : KV_OK;
}

/* POSTs to the cluster, failing over between endpoints until the timeout. */
static kv_status post(ekv *e, const char *path, json_t *req, json_t **resp, bool *ambiguous)
{
	return post_ex(e, path, req, false, resp, ambiguous);
}

static kv_status post_ex(ekv *e, const char *path, json_t *req, bool noauth, json_t **resp, bool *ambiguous)
{
	char *json = json_dumps(req, JSON_COMPACT);
	if (!json)
		return kv_fail(KV_NO_MEMORY, "out of memory building an etcd request");
	int64_t deadline = util_now_us() + (int64_t)e->timeout_ms * 3000;
	kv_status st = KV_OK;
	*ambiguous = false;
	bool reauthed = false;
	for (int attempt = 0;; attempt++) {
		int cur = atomic_load(&e->cur), ep = cur % e->nendpoints;
		bool sent;
		int r = post_once(e, ep, path, json, noauth, resp, &sent, &st);
		if (r == R_OK) {
			st = KV_OK;
			break;
		}
		if (r == R_FAIL)
			break;
		if (r == R_REAUTH) {
			/* The token expired (etcd's simple tokens after 5 idle
			 * minutes): a new one, once per request. The request was
			 * refused, not applied. */
			if (reauthed || (st = authenticate(e)))
				break;
			reauthed = true;
			continue;
		}
		*ambiguous |= sent;
		/* Next endpoint, kept below nendpoints: a cur past the last one
		 * never equalled the ep it was compared with, so failover stopped
		 * at endpoint 0 for good (stuck there when it died). */
		atomic_compare_exchange_strong(&e->cur, &cur, (ep + 1) % e->nendpoints);
		if (util_now_us() > deadline)
			break;
		if (attempt >= e->nendpoints) {
			struct timespec ts = {0, 50 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	free(json);
	return st;
}

/* ---------------------------------------------------------------- range */

void ekv_range_res_free(ekv_range_res *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->kvs[i].key);
		free(r->kvs[i].val);
	}
	free(r->kvs);
	memset(r, 0, sizeof *r);
}

static kv_status parse_range(json_t *j, ekv_range_res *out)
{
	memset(out, 0, sizeof *out);
	out->rev = jint(json_object_get(j, "header"), "revision");
	out->more = json_is_true(json_object_get(j, "more"));
	out->count = jint(j, "count");
	json_t *kvs = json_object_get(j, "kvs");
	size_t n = json_is_array(kvs) ? json_array_size(kvs) : 0;
	out->kvs = util_xcalloc(n ? n : 1, sizeof(ekv_kv));
	for (size_t i = 0; i < n; i++) {
		json_t *kv = json_array_get(kvs, i);
		ekv_kv *o = &out->kvs[out->n++];
		const char *k = json_string_value(json_object_get(kv, "key"));
		const char *v = json_string_value(json_object_get(kv, "value"));
		if (!k || !b64_dec(k, &o->key, &o->klen) || !b64_dec(v ? v : "", &o->val, &o->vlen)) {
			ekv_range_res_free(out);
			return kv_fail(KV_CORRUPTION, "etcd: malformed key or value in a range response");
		}
		o->mod_rev = jint(kv, "mod_revision");
		o->create_rev = jint(kv, "create_revision");
	}
	return KV_OK;
}

static json_t *range_json(const ekv_range_req *q)
{
	json_t *r = json_object();
	json_object_set_new(r, "key", jb64(q->key, q->klen));
	if (q->end)
		json_object_set_new(r, "range_end", jb64(q->end, q->elen));
	if (q->limit)
		json_object_set_new(r, "limit", jrev(q->limit));
	if (q->rev)
		json_object_set_new(r, "revision", jrev(q->rev));
	if (q->descend) {
		json_object_set_new(r, "sort_order", json_string("DESCEND"));
		json_object_set_new(r, "sort_target", json_string("KEY"));
	}
	if (q->keys_only)
		json_object_set_new(r, "keys_only", json_true());
	if (q->serializable)
		json_object_set_new(r, "serializable", json_true());
	return r;
}

kv_status ekv_range(ekv *e, const ekv_range_req *q, ekv_range_res *out)
{
	memset(out, 0, sizeof *out);
	json_t *req = range_json(q), *resp = NULL;
	bool amb;
	kv_status st = post(e, "/v3/kv/range", req, &resp, &amb);
	json_decref(req);
	if (st)
		return st;
	st = parse_range(resp, out);
	json_decref(resp);
	return st;
}

/* Several ranges in one round trip: a txn without compares whose success
 * branch reads each (read-only: etcd serves it like a linearizable range,
 * all at one revision). */
kv_status ekv_range_multi(ekv *e, const ekv_range_req *qs, int n, ekv_range_res *outs, int64_t *rev)
{
	memset(outs, 0, (size_t)n * sizeof *outs);
	json_t *ops = json_array();
	for (int i = 0; i < n; i++) {
		json_t *op = json_object();
		json_object_set_new(op, "request_range", range_json(&qs[i]));
		json_array_append_new(ops, op);
	}
	json_t *req = json_object(), *resp = NULL;
	json_object_set_new(req, "success", ops);
	bool amb;
	kv_status st = post(e, "/v3/kv/txn", req, &resp, &amb);
	json_decref(req);
	if (st)
		return st;
	*rev = jint(json_object_get(resp, "header"), "revision");
	json_t *rs = json_object_get(resp, "responses");
	for (int i = 0; i < n && !st; i++) {
		json_t *ri = json_is_array(rs) ? json_array_get(rs, (size_t)i) : NULL;
		json_t *rr = ri ? json_object_get(ri, "response_range") : NULL;
		if (!rr)
			st = kv_fail(KV_CORRUPTION, "etcd: a txn of ranges answered without range %d", i);
		else
			st = parse_range(rr, &outs[i]);
		outs[i].rev = *rev;
	}
	if (st)
		for (int i = 0; i < n; i++)
			ekv_range_res_free(&outs[i]);
	json_decref(resp);
	return st;
}

/* ---------------------------------------------------------------- txn */

struct ekv_txn {
	json_t *cmp, *ok, *fail;
};

ekv_txn *ekv_txn_new(void)
{
	ekv_txn *t = util_xcalloc(1, sizeof *t);
	t->cmp = json_array();
	t->ok = json_array();
	t->fail = json_array();
	return t;
}

void ekv_txn_free(ekv_txn *t)
{
	if (!t)
		return;
	json_decref(t->cmp);
	json_decref(t->ok);
	json_decref(t->fail);
	free(t);
}

static void add_cmp(ekv_txn *t, const uint8_t *k, size_t kl, const char *result, const char *target,
		    const char *field, json_t *v)
{
	json_t *c = json_object();
	json_object_set_new(c, "result", json_string(result));
	json_object_set_new(c, "target", json_string(target));
	json_object_set_new(c, "key", jb64(k, kl));
	json_object_set_new(c, field, v);
	json_array_append_new(t->cmp, c);
}

void ekv_txn_cmp_mod_lt(ekv_txn *t, const uint8_t *k, size_t kl, int64_t rev)
{
	add_cmp(t, k, kl, "LESS", "MOD", "mod_revision", jrev(rev));
}

void ekv_txn_cmp_mod_eq(ekv_txn *t, const uint8_t *k, size_t kl, int64_t rev)
{
	add_cmp(t, k, kl, "EQUAL", "MOD", "mod_revision", jrev(rev));
}

void ekv_txn_cmp_value_lt(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	add_cmp(t, k, kl, "LESS", "VALUE", "value", jb64(v, vl));
}

void ekv_txn_cmp_absent(ekv_txn *t, const uint8_t *k, size_t kl)
{
	add_cmp(t, k, kl, "EQUAL", "CREATE", "create_revision", jrev(0));
}

void ekv_txn_cmp_value_eq(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	add_cmp(t, k, kl, "EQUAL", "VALUE", "value", jb64(v, vl));
}

void ekv_txn_cmp_no_lease(ekv_txn *t, const uint8_t *k, size_t kl)
{
	add_cmp(t, k, kl, "EQUAL", "LEASE", "lease", jrev(0));
}

void ekv_txn_put(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	ekv_txn_put_lease(t, k, kl, v, vl, 0);
}

void ekv_txn_put_lease(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, int64_t lease)
{
	json_t *p = json_object();
	json_object_set_new(p, "key", jb64(k, kl));
	json_object_set_new(p, "value", jb64(v, vl));
	if (lease)
		json_object_set_new(p, "lease", jrev(lease));
	json_t *op = json_object();
	json_object_set_new(op, "request_put", p);
	json_array_append_new(t->ok, op);
}

void ekv_txn_delete_range(ekv_txn *t, const uint8_t *k, size_t kl, const uint8_t *end, size_t el)
{
	json_t *p = json_object();
	json_object_set_new(p, "key", jb64(k, kl));
	if (end)
		json_object_set_new(p, "range_end", jb64(end, el));
	json_t *op = json_object();
	json_object_set_new(op, "request_delete_range", p);
	json_array_append_new(t->ok, op);
}

void ekv_txn_else_get(ekv_txn *t, const uint8_t *k, size_t kl)
{
	json_t *p = json_object();
	json_object_set_new(p, "key", jb64(k, kl));
	json_t *op = json_object();
	json_object_set_new(op, "request_range", p);
	json_array_append_new(t->fail, op);
}

size_t ekv_txn_ops(const ekv_txn *t)
{
	return json_array_size(t->ok);
}

size_t ekv_txn_cmps(const ekv_txn *t)
{
	return json_array_size(t->cmp);
}

void ekv_txn_res_free(ekv_txn_res *r)
{
	ekv_range_res_free(&r->fail_get);
}

bool ekv_txn_res_got(const ekv_txn_res *r, const void *v, size_t vl)
{
	const ekv_range_res *g = &r->fail_get;
	return !r->succeeded && g->n && g->kvs[0].vlen == vl && !memcmp(g->kvs[0].val, v, vl);
}

kv_status ekv_txn_run(ekv *e, ekv_txn *t, ekv_txn_res *out)
{
	memset(out, 0, sizeof *out);
	json_t *req = json_object();
	json_object_set(req, "compare", t->cmp);
	json_object_set(req, "success", t->ok);
	json_object_set(req, "failure", t->fail);
	json_t *resp = NULL;
	kv_status st = post(e, "/v3/kv/txn", req, &resp, &out->ambiguous);
	json_decref(req);
	if (st)
		return st;
	out->rev = jint(json_object_get(resp, "header"), "revision");
	out->succeeded = json_is_true(json_object_get(resp, "succeeded"));
	if (!out->succeeded) {
		json_t *rs = json_object_get(resp, "responses");
		json_t *r0 = json_is_array(rs) ? json_array_get(rs, 0) : NULL;
		json_t *rr = r0 ? json_object_get(r0, "response_range") : NULL;
		if (rr)
			st = parse_range(rr, &out->fail_get);
	}
	json_decref(resp);
	return st;
}

/* ---------------------------------------------------------------- leases */

/* POSTs {field: val} (takes ownership of val) to path; *resp (caller
 * frees) the response when resp is not NULL and the request succeeded. */
static kv_status post_field(ekv *e, const char *path, const char *field, json_t *val, json_t **resp)
{
	json_t *req = json_object();
	json_object_set_new(req, field, val);
	json_t *r = NULL;
	bool amb;
	kv_status st = post(e, path, req, &r, &amb);
	json_decref(req);
	if (resp && !st)
		*resp = r;
	else
		json_decref(r);
	return st;
}

kv_status ekv_lease_grant(ekv *e, int ttl_s, int64_t *id)
{
	json_t *resp;
	kv_status st = post_field(e, "/v3/lease/grant", "TTL", json_integer(ttl_s), &resp);
	if (st)
		return st;
	*id = jint(resp, "ID");
	json_decref(resp);
	return *id ? KV_OK : kv_fail(KV_IO_ERROR, "etcd: lease grant without an id");
}

kv_status ekv_lease_keepalive(ekv *e, int64_t id, bool *alive)
{
	json_t *resp;
	kv_status st = post_field(e, "/v3/lease/keepalive", "ID", jrev(id), &resp);
	if (st)
		return st;
	json_t *r = json_object_get(resp, "result");
	*alive = r && jint(r, "TTL") > 0;
	json_decref(resp);
	return KV_OK;
}

kv_status ekv_lease_revoke(ekv *e, int64_t id)
{
	return post_field(e, "/v3/kv/lease/revoke", "ID", jrev(id), NULL);
}

kv_status ekv_compact(ekv *e, int64_t rev)
{
	return post_field(e, "/v3/kv/compaction", "revision", jrev(rev), NULL);
}
