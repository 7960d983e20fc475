/*
 * etcd_store.c — the etcd backend's store: opening a cluster by URI, the
 * cluster clock that orders commits of every process sharing the store
 * (read points and timestamps), and kv table DDL kept as metadata keys.
 *
 * Clock: key P "/c" holds ts(8, BE) || node id(8) of the newest commit.
 * Every commit's etcd transaction compares the clock below its timestamp
 * and sets it, so commit timestamps increase with etcd revisions across
 * all processes. A read point is the clock value read linearizably,
 * remembered with the revision it was read at: a read at that point reads
 * that revision, which holds exactly the commits with ts <= it.
 */
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ekv.h"

_Thread_local int64_t ekv_latest_pin;

bool ekv_is_uri(const char *path)
{
	return path && (!strncmp(path, "etcd://", 7) || !strncmp(path, "etcds://", 8));
}

/* ---------------------------------------------------------------- clock */

static void remember(ekv *e, kv_ts ts, int64_t rev, bool wknown, kv_ts wts)
{
	pthread_mutex_lock(&e->map_mu);
	/* Newest entries are searched first; a repeated ts takes the newer
	 * revision (only metadata changes lie between the two). */
	size_t i = e->map_next++ % EKV_TSMAP;
	e->map[i] = (ekv_tsrev){.ts = ts, .rev = rev, .wknown = wknown, .wts = wts};
	pthread_mutex_unlock(&e->map_mu);
}

void ekv_remember(ekv *e, kv_ts ts, int64_t rev)
{
	remember(e, ts, rev, false, 0);
}

bool ekv_watched_ts(ekv *e, kv_ts read_ts, kv_ts *ts)
{
	bool found = false;
	pthread_mutex_lock(&e->map_mu);
	size_t n = e->map_next < EKV_TSMAP ? e->map_next : EKV_TSMAP;
	for (size_t k = 0; k < n && k < 64; k++) { /* just taken: among the newest */
		ekv_tsrev *m = &e->map[(e->map_next - 1 - k) % EKV_TSMAP];
		if (m->ts == read_ts && m->wknown) {
			*ts = m->wts;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&e->map_mu);
	return found;
}

void ekv_watch_cell(kv_table *t, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
		    size_t qlen)
{
	ekv *e = t->s->etcd;
	util_buf lo = UTIL_BUF_INIT;
	ekv_cell_prefix(e, t->eid, &lo);
	ekv_esc(&lo, row, rlen);
	ekv_esc(&lo, (const uint8_t *)fam, strlen(fam));
	ekv_esc(&lo, q, qlen);
	pthread_mutex_lock(&e->map_mu);
	util_buf_reset(&e->watch_lo);
	util_buf_append(&e->watch_lo, lo.data, lo.len);
	ekv_prefix_end((const uint8_t *)lo.data, lo.len, &e->watch_hi);
	pthread_mutex_unlock(&e->map_mu);
	util_buf_free(&lo);
}

int64_t ekv_rev_for(ekv *e, kv_ts ts)
{
	int64_t rev = 0;
	pthread_mutex_lock(&e->map_mu);
	for (size_t i = 0; i < e->npins; i++) {
		if (e->pins[i].ts == ts) {
			rev = e->pins[i].rev;
			pthread_mutex_unlock(&e->map_mu);
			return rev;
		}
	}
	size_t n = e->map_next < EKV_TSMAP ? e->map_next : EKV_TSMAP;
	for (size_t k = 0; k < n; k++) {
		ekv_tsrev *m = &e->map[(e->map_next - 1 - k) % EKV_TSMAP];
		if (m->ts == ts) {
			rev = m->rev;
			break;
		}
	}
	pthread_mutex_unlock(&e->map_mu);
	return rev;
}

void ekv_observe(ekv *e, kv_ts ts)
{
	pthread_mutex_lock(&e->map_mu);
	if (ts > e->last_ts)
		e->last_ts = ts;
	pthread_mutex_unlock(&e->map_mu);
}

kv_ts ekv_next_ts(ekv *e)
{
	pthread_mutex_lock(&e->map_mu);
	kv_ts now = (kv_ts)util_now_us();
	kv_ts ts = now > e->last_ts ? now : e->last_ts + 1;
	e->last_ts = ts;
	pthread_mutex_unlock(&e->map_mu);
	return ts;
}

kv_status ekv_clock_read(ekv *e, kv_ts *ts, int64_t *rev)
{
	util_buf k = UTIL_BUF_INIT;
	ekv_clock_key(e, &k);
	ekv_range_res r;
	ekv_range_req q = {.key = (const uint8_t *)k.data, .klen = k.len};
	kv_status st = ekv_range(e, &q, &r);
	util_buf_free(&k);
	if (st)
		return st;
	*ts = r.n && r.kvs[0].vlen >= 8 ? util_get_be64(r.kvs[0].val) : 0;
	*rev = r.rev;
	ekv_range_res_free(&r);
	return KV_OK;
}

/* A read point: the clock and, in the same request, the newest version of
 * the watched cell (kv_watch_cell; *wknown false when none is watched or
 * its newest key is not a put). */
static kv_status point_read(ekv *e, kv_ts *ts, int64_t *rev, bool *wknown, kv_ts *wts)
{
	*wknown = false;
	*wts = 0;
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	pthread_mutex_lock(&e->map_mu);
	util_buf_append(&lo, e->watch_lo.data, e->watch_lo.len);
	util_buf_append(&hi, e->watch_hi.data, e->watch_hi.len);
	pthread_mutex_unlock(&e->map_mu);
	if (!lo.len) {
		util_buf_free(&lo);
		util_buf_free(&hi);
		return ekv_clock_read(e, ts, rev);
	}
	util_buf k = UTIL_BUF_INIT;
	ekv_clock_key(e, &k);
	ekv_range_req q[2] = {{.key = (const uint8_t *)k.data, .klen = k.len},
			      {.key = (const uint8_t *)lo.data,
			       .klen = lo.len,
			       .end = (const uint8_t *)hi.data,
			       .elen = hi.len,
			       .limit = 1}};
	ekv_range_res r[2];
	kv_status st = ekv_range_multi(e, q, 2, r, rev);
	if (!st) {
		*ts = r[0].n && r[0].kvs[0].vlen >= 8 ? util_get_be64(r[0].kvs[0].val) : 0;
		/* Keys end with ~ts(8) ~type(1): the first is the newest version. */
		const ekv_kv *w = r[1].n ? &r[1].kvs[0] : NULL;
		if (!w) {
			*wknown = true;
		} else if (w->klen >= lo.len + 9) {
			int type = 0xff - (int)w->key[w->klen - 1];
			*wts = ~util_get_be64(w->key + w->klen - 9);
			*wknown = type == (int)KV_PUT;
		}
		ekv_range_res_free(&r[0]);
		ekv_range_res_free(&r[1]);
	}
	util_buf_free(&k);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return st;
}

void ekv_advance(kv_store *s, kv_ts ts)
{
	uint_fast64_t cur = atomic_load(&s->read_point);
	while (cur < ts && !atomic_compare_exchange_weak(&s->read_point, &cur, ts))
		;
}

kv_ts ekv_read_point(kv_store *s)
{
	kv_ts ts, wts;
	int64_t rev;
	bool wk;
	if (point_read(s->etcd, &ts, &rev, &wk, &wts) != KV_OK)
		return (kv_ts)atomic_load(&s->read_point); /* cluster unreachable: the last known */
	ekv_observe(s->etcd, ts);
	remember(s->etcd, ts, rev, wk, wts);
	ekv_advance(s, ts);
	return ts;
}

/* Moves the cluster clock to a fresh timestamp of this process (a commit
 * without cells); *ts receives it. */
kv_status ekv_bump_clock(kv_store *s, kv_ts *out)
{
	kv_batch b = {.spill_at = SIZE_MAX};
	kv_ts ts = 0;
	kv_status st = ekv_commit(s, &b, false, 0, NULL, &ts);
	batch_release(&b);
	if (!st)
		*out = ts;
	return st;
}

kv_status ekv_read_point_wait(kv_store *s, kv_ts ts)
{
	if (ts > (kv_ts)util_now_us())
		return kv_fail(KV_INVALID, "read point %llu is in the future", (unsigned long long)ts);
	if (ekv_read_point(s) >= ts)
		return KV_OK;
	kv_ts got;
	return ekv_bump_clock(s, &got);
}

kv_status ekv_snapshot_acquire(kv_store *s, kv_ts *ts)
{
	/* etcd keeps old revisions until the operator compacts them
	 * (docs/scale-out.md): pinning = remembering this read point's
	 * revision until the release. */
	ekv *e = s->etcd;
	kv_ts t, wts;
	int64_t rev;
	bool wk;
	if (point_read(e, &t, &rev, &wk, &wts) != KV_OK) {
		*ts = (kv_ts)atomic_load(&s->read_point); /* cluster unreachable: the last known */
		return KV_OK;
	}
	ekv_observe(e, t);
	remember(e, t, rev, wk, wts);
	ekv_advance(s, t);
	pthread_mutex_lock(&e->map_mu);
	size_t i = 0;
	while (i < e->npins && e->pins[i].ts != t)
		i++;
	if (i == e->npins) {
		if (e->npins == e->cpins) {
			e->cpins = e->cpins ? 2 * e->cpins : 16;
			e->pins = util_xrealloc(e->pins, e->cpins * sizeof *e->pins);
		}
		e->pins[e->npins++] = (ekv_tsrev){t, rev, 0};
	}
	e->pins[i].refs++;
	pthread_mutex_unlock(&e->map_mu);
	*ts = t;
	return KV_OK;
}

void ekv_snapshot_release(kv_store *s, kv_ts ts)
{
	ekv *e = s->etcd;
	pthread_mutex_lock(&e->map_mu);
	for (size_t i = 0; i < e->npins; i++) {
		if (e->pins[i].ts == ts) {
			if (--e->pins[i].refs == 0)
				e->pins[i] = e->pins[--e->npins];
			break;
		}
	}
	pthread_mutex_unlock(&e->map_mu);
}

kv_status ekv_ts_reserve(kv_store *s, kv_ts *ts)
{
	return ekv_bump_clock(s, ts);
}

/* ---------------------------------------------------------------- open / close */

/* The first line of a file (a password; caller frees), NULL if unreadable. */
static char *read_secret(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return NULL;
	char line[1024];
	char *r = fgets(line, sizeof line, f) ? util_xstrdup(line) : util_xstrdup("");
	fclose(f);
	r[strcspn(r, "\r\n")] = 0;
	return r;
}

/* "?name=value&...": TLS files, the etcd user and its password's file
 * (the password never in the URI, which is shown in errors and ps). */
static kv_status parse_opts(ekv *e, const char *uri, char *q)
{
	char *save = NULL;
	for (char *o = strtok_r(q, "&", &save); o; o = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(o, '=');
		if (!eq)
			return kv_fail(KV_INVALID, "bad etcd store URI option \"%s\" in %s (want name=value)",
				       o, uri);
		*eq = 0;
		const char *v = eq + 1;
		char **dst = !strcmp(o, "cacert") ? &e->cacert
			     : !strcmp(o, "cert") ? &e->cert
			     : !strcmp(o, "key")  ? &e->key
			     : !strcmp(o, "user") ? &e->user
						  : NULL;
		if (dst) {
			free(*dst);
			*dst = util_xstrdup(v);
		} else if (!strcmp(o, "password_file")) {
			free(e->password);
			e->password = read_secret(v);
			if (!e->password)
				return kv_fail(KV_INVALID, "cannot read the etcd password file %s", v);
		} else {
			return kv_fail(
			    KV_INVALID,
			    "unknown etcd store URI option \"%s\" (known: cacert, cert, key, user, "
			    "password_file)",
			    o);
		}
	}
	if (!e->tls && (e->cacert || e->cert || e->key))
		return kv_fail(KV_INVALID, "etcd store URI %s: cacert, cert and key need etcds:// (TLS)",
			       uri);
	if (!e->cert != !e->key)
		return kv_fail(KV_INVALID, "etcd store URI %s: a client certificate needs both cert and key",
			       uri);
	if (e->user && !e->password) {
		const char *pw = getenv("STRATA_ETCD_PASSWORD");
		e->password = util_xstrdup(pw ? pw : "");
	}
	return KV_OK;
}

static kv_status parse_where(ekv *e, const char *uri, const char *p);

static kv_status parse_uri(ekv *e, const char *uri)
{
	e->tls = !strncmp(uri, "etcds://", 8);
	char *copy = util_xstrdup(uri + (e->tls ? 8 : 7));
	char *q = strchr(copy, '?');
	if (q)
		*q++ = 0;
	kv_status st = q ? parse_opts(e, uri, q) : KV_OK;
	if (!st)
		st = parse_where(e, uri, copy);
	free(copy);
	return st;
}

/* host:port,...[/prefix] */
static kv_status parse_where(ekv *e, const char *uri, const char *p)
{
	const char *slash = strchr(p, '/');
	size_t hl = slash ? (size_t)(slash - p) : strlen(p);
	char *hosts = util_xmalloc(hl + 1);
	memcpy(hosts, p, hl);
	hosts[hl] = 0;
	char *save = NULL;
	for (char *h = strtok_r(hosts, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		if (e->nendpoints == EKV_MAX_ENDPOINTS || !strchr(h, ':')) {
			free(hosts);
			return kv_fail(
			    KV_INVALID,
			    "bad etcd store URI %s (want etcd[s]://host:port,...[/prefix][?options])", uri);
		}
		e->endpoints[e->nendpoints++] = util_xstrdup(h);
	}
	free(hosts);
	if (!e->nendpoints)
		return kv_fail(KV_INVALID, "etcd store URI %s names no endpoint", uri);
	const char *pre = slash && slash[1] ? slash : "/strata";
	size_t pl = strlen(pre);
	while (pl > 1 && pre[pl - 1] == '/')
		pl--;
	if (pl >= sizeof e->prefix)
		return kv_fail(KV_INVALID, "etcd key prefix too long");
	memcpy(e->prefix, pre, pl);
	e->plen = pl;
	return KV_OK;
}

static void ekv_free(ekv *e)
{
	for (int i = 0; i < e->nendpoints; i++)
		free(e->endpoints[i]);
	free(e->cacert);
	free(e->cert);
	free(e->key);
	free(e->user);
	free(e->password);
	free(e->token);
	pthread_mutex_destroy(&e->auth_mu);
	pthread_mutex_destroy(&e->map_mu);
	util_buf_free(&e->watch_lo);
	util_buf_free(&e->watch_hi);
	free(e->pins);
	free(e);
}

/* Takes the next server number from the counter P/n (compare-and-set;
 * servers starting together retry). */
static kv_status take_server_no(ekv *e)
{
	util_buf k = UTIL_BUF_INIT;
	ekv_server_no_key(e, &k);
	kv_status st = KV_OK;
	for (int attempt = 0;; attempt++) {
		ekv_range_req q = {.key = (const uint8_t *)k.data, .klen = k.len};
		ekv_range_res r;
		if ((st = ekv_range(e, &q, &r)))
			break;
		uint64_t cur = r.n && r.kvs[0].vlen == 8 ? util_get_be64(r.kvs[0].val) : 0;
		int64_t mod = r.n ? r.kvs[0].mod_rev : 0;
		ekv_range_res_free(&r);
		uint8_t v[8];
		util_put_be64(v, cur + 1);
		ekv_txn *t = ekv_txn_new();
		if (mod)
			ekv_txn_cmp_mod_eq(t, (const uint8_t *)k.data, k.len, mod);
		else
			ekv_txn_cmp_absent(t, (const uint8_t *)k.data, k.len);
		ekv_txn_put(t, (const uint8_t *)k.data, k.len, v, 8);
		ekv_txn_res tr;
		st = ekv_txn_run(e, t, &tr);
		bool ok = !st && tr.succeeded;
		ekv_txn_res_free(&tr);
		ekv_txn_free(t);
		if (st)
			break;
		if (ok) {
			e->server_no = cur + 1;
			break;
		}
		if (attempt >= 1000) {
			st = kv_fail(KV_BUSY, "could not take a server number: too many servers starting");
			break;
		}
	}
	util_buf_free(&k);
	return st;
}

uint64_t kv_store_server_no(kv_store *s)
{
	return s->etcd ? s->etcd->server_no : 0;
}

kv_status ekv_store_open(const char *uri, const kv_store_opts *o, kv_store **out)
{
	*out = NULL;
	ekv *e = util_xcalloc(1, sizeof *e);
	pthread_mutex_init(&e->map_mu, NULL);
	pthread_mutex_init(&e->auth_mu, NULL);
	int64_t tmo = util_env_int("STRATA_ETCD_TIMEOUT_MS", 0);
	e->timeout_ms = tmo > 0 && tmo <= INT_MAX ? (int)tmo : 5000;
	kv_status st = parse_uri(e, uri);
	if (st) {
		ekv_free(e);
		return st;
	}
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, e->node_id, sizeof e->node_id) != (ssize_t)sizeof e->node_id)
		util_put_be64(e->node_id, (uint64_t)util_now_us() ^ ((uint64_t)getpid() << 40));
	if (fd >= 0)
		close(fd);

	kv_store *s = util_xcalloc(1, sizeof *s);
	if (o)
		s->o = *o;
	else
		kv_store_opts_default(&s->o);
	s->path = util_xstrdup(uri);
	s->etcd = e;
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->ts_mu, NULL);
	/* The cluster must answer now, so a wrong URI fails at open. */
	kv_ts ts;
	int64_t rev;
	if ((st = ekv_auth_start(e)) || (st = ekv_clock_read(e, &ts, &rev))) {
		char msg[512];
		snprintf(msg, sizeof msg, "could not reach the etcd cluster %s: %s", uri, kv_errmsg());
		ekv_store_close(s);
		return kv_fail(st, "%s", msg);
	}
	if (ts == 0) {
		/* A new store: create the clock (commits compare its value). */
		util_buf k = UTIL_BUF_INIT;
		ekv_clock_key(e, &k);
		uint8_t v[16] = {0};
		memcpy(v + 8, e->node_id, 8);
		ekv_txn *t = ekv_txn_new();
		ekv_txn_cmp_absent(t, (const uint8_t *)k.data, k.len);
		ekv_txn_put(t, (const uint8_t *)k.data, k.len, v, 16);
		ekv_txn_res r;
		st = ekv_txn_run(e, t, &r);
		ekv_txn_res_free(&r);
		ekv_txn_free(t);
		util_buf_free(&k);
		if (!st)
			st = ekv_clock_read(e, &ts, &rev);
		if (st) {
			ekv_store_close(s);
			return st;
		}
	}
	if ((st = take_server_no(e))) {
		ekv_store_close(s);
		return st;
	}
	ekv_observe(e, ts);
	ekv_remember(e, ts, rev);
	atomic_store(&s->read_point, ts);
	ekv_horizon_start(e);
	ekv_bggc_start(s);
	*out = s;
	return KV_OK;
}

void ekv_store_close(kv_store *s)
{
	ekv_bggc_stop(s->etcd);
	ekv_horizon_stop(s->etcd);
	for (int i = 0; i < s->ntables; i++)
		table_unref(s->tables[i]);
	free(s->tables);
	ekv_free(s->etcd);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->ts_mu);
	free(s->path);
	free(s);
}

/* ---------------------------------------------------------------- table metadata */

static json_t *fams_json(const kv_family_opts *f, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(f[i].name));
		json_object_set_new(o, "max_versions", json_integer(f[i].max_versions));
		json_object_set_new(o, "min_versions", json_integer(f[i].min_versions));
		json_object_set_new(o, "ttl_seconds", json_integer(f[i].ttl_seconds));
		json_object_set_new(o, "keep_deleted_cells", json_boolean(f[i].keep_deleted_cells));
		json_object_set_new(o, "compression_level", json_integer(f[i].compression_level));
		json_object_set_new(o, "bloom", json_integer(f[i].bloom));
		json_object_set_new(o, "block_size", json_integer(f[i].block_size));
		json_object_set_new(o, "retention_seconds", json_integer(f[i].retention_seconds));
		json_array_append_new(a, o);
	}
	json_t *r = json_object();
	json_object_set_new(r, "families", a);
	return r;
}

/* Parses metadata into *fams (caller frees); false if malformed. */
static bool fams_parse(const uint8_t *v, size_t n, kv_family_opts **fams, int *nf)
{
	json_error_t je;
	json_t *r = json_loadb((const char *)v, n, 0, &je);
	json_t *a = r ? json_object_get(r, "families") : NULL;
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > KV_MAX_FAMILIES) {
		json_decref(r);
		return false;
	}
	int k = (int)json_array_size(a);
	kv_family_opts *f = util_xcalloc((size_t)k, sizeof *f);
	for (int i = 0; i < k; i++) {
		json_t *o = json_array_get(a, (size_t)i);
		const char *name = json_string_value(json_object_get(o, "name"));
		kv_family_opts_default(&f[i], name ? name : "?");
		f[i].max_versions = (int)json_integer_value(json_object_get(o, "max_versions"));
		f[i].min_versions = (int)json_integer_value(json_object_get(o, "min_versions"));
		f[i].ttl_seconds = json_integer_value(json_object_get(o, "ttl_seconds"));
		f[i].keep_deleted_cells = json_is_true(json_object_get(o, "keep_deleted_cells"));
		f[i].compression_level = (int)json_integer_value(json_object_get(o, "compression_level"));
		f[i].bloom = (kv_bloom)json_integer_value(json_object_get(o, "bloom"));
		f[i].block_size = (uint32_t)json_integer_value(json_object_get(o, "block_size"));
		f[i].retention_seconds = json_integer_value(json_object_get(o, "retention_seconds"));
	}
	json_decref(r);
	*fams = f;
	*nf = k;
	return true;
}

typedef struct meta {
	bool found;
	int64_t create_rev, mod_rev;
	kv_family_opts *fams;
	int nfam;
} meta;

static kv_status meta_read(kv_store *s, const char *name, meta *m)
{
	memset(m, 0, sizeof *m);
	util_buf k = UTIL_BUF_INIT;
	ekv_meta_key(s->etcd, name, &k);
	ekv_range_req q = {.key = (const uint8_t *)k.data, .klen = k.len};
	ekv_range_res r;
	kv_status st = ekv_range(s->etcd, &q, &r);
	util_buf_free(&k);
	if (st)
		return st;
	if (r.n) {
		m->found = true;
		m->create_rev = r.kvs[0].create_rev;
		m->mod_rev = r.kvs[0].mod_rev;
		if (!fams_parse(r.kvs[0].val, r.kvs[0].vlen, &m->fams, &m->nfam))
			st = kv_fail(KV_CORRUPTION, "etcd: malformed metadata of kv table %s", name);
	}
	ekv_range_res_free(&r);
	return st;
}

static kv_table *cached(kv_store *s, const char *name, int *idx)
{
	for (int i = 0; i < s->ntables; i++)
		if (!strcmp(s->tables[i]->name, name)) {
			*idx = i;
			return s->tables[i];
		}
	return NULL;
}

/* Drops a cached handle (another process dropped or recreated the table).
 * REQUIRES: s->mu. */
static void uncache(kv_store *s, int idx)
{
	kv_table *t = s->tables[idx];
	s->tables[idx] = s->tables[--s->ntables];
	atomic_store(&t->dropped, true);
	table_unref(t);
}

/* Opens a kv table; use_cache: a cached handle's metadata may be reused
 * (meta_cache_us). */
static kv_status table_open(kv_store *s, const char *name, bool use_cache, kv_table **out);

kv_status ekv_table_create(kv_store *s, const char *name, const kv_family_opts *fams, int nfams)
{
	kv_status st = table_check_name(name);
	if (st)
		return st;
	if (!fams || nfams < 1 || nfams > KV_MAX_FAMILIES)
		return kv_fail(KV_INVALID, "a kv table needs 1..%d families", KV_MAX_FAMILIES);
	kv_family_opts *copy = util_xcalloc((size_t)nfams, sizeof *copy);
	for (int i = 0; i < nfams && !st; i++) {
		copy[i] = fams[i];
		copy[i].name[sizeof copy[i].name - 1] = 0;
		st = table_check_family(&copy[i]);
		for (int j = 0; j < i && !st; j++)
			if (!strcmp(copy[i].name, copy[j].name))
				st = kv_fail(KV_INVALID, "duplicate family %s", copy[i].name);
	}
	if (st) {
		free(copy);
		return st;
	}
	json_t *j = fams_json(copy, nfams);
	char *v = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	free(copy);
	util_buf k = UTIL_BUF_INIT;
	ekv_meta_key(s->etcd, name, &k);
	ekv_txn *t = ekv_txn_new();
	ekv_txn_cmp_absent(t, (const uint8_t *)k.data, k.len);
	ekv_txn_put(t, (const uint8_t *)k.data, k.len, (const uint8_t *)v, strlen(v));
	ekv_txn_res r;
	st = ekv_txn_run(s->etcd, t, &r);
	if (!st && !r.succeeded)
		st = kv_fail(KV_EXISTS, "kv table %s already exists", name);
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	util_buf_free(&k);
	free(v);
	return st;
}

kv_status ekv_table_drop(kv_store *s, const char *name)
{
	if (!name)
		return kv_fail(KV_NOT_FOUND, "kv table (null) does not exist");
	meta m;
	kv_status st = meta_read(s, name, &m);
	if (st)
		return st;
	if (!m.found)
		return kv_fail(KV_NOT_FOUND, "kv table %s does not exist", name);
	ekv *e = s->etcd;
	util_buf k = UTIL_BUF_INIT, p = UTIL_BUF_INIT, pe = UTIL_BUF_INIT;
	ekv_meta_key(e, name, &k);
	ekv_txn *t = ekv_txn_new();
	ekv_txn_cmp_mod_eq(t, (const uint8_t *)k.data, k.len, m.mod_rev);
	ekv_txn_delete_range(t, (const uint8_t *)k.data, k.len, NULL, 0);
	ekv_cell_prefix(e, (uint64_t)m.create_rev, &p);
	ekv_prefix_end((const uint8_t *)p.data, p.len, &pe);
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, (const uint8_t *)pe.data, pe.len);
	util_buf_reset(&p);
	util_buf_append(&p, e->prefix, e->plen);
	util_buf_append(&p, "/r/", 3);
	uint8_t x[8];
	util_put_be64(x, (uint64_t)m.create_rev);
	util_buf_append(&p, x, 8);
	ekv_prefix_end((const uint8_t *)p.data, p.len, &pe);
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, (const uint8_t *)pe.data, pe.len);
	/* The share marks (kv_batch_share_row): P "/s/" eid ... */
	((uint8_t *)p.data)[e->plen + 1] = 's';
	((uint8_t *)pe.data)[e->plen + 1] = 's';
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, (const uint8_t *)pe.data, pe.len);
	/* Large transactions' row locks P "/k/" eid ..., the table lock and the
	 * large-commit mark: nothing may outlive the table (kv_store_verify). */
	((uint8_t *)p.data)[e->plen + 1] = 'k';
	((uint8_t *)pe.data)[e->plen + 1] = 'k';
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, (const uint8_t *)pe.data, pe.len);
	util_buf_reset(&p);
	ekv_lock_key(e, (uint64_t)m.create_rev, &p);
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, NULL, 0);
	util_buf_reset(&p);
	ekv_bigmark_key(e, (uint64_t)m.create_rev, &p);
	ekv_txn_delete_range(t, (const uint8_t *)p.data, p.len, NULL, 0);
	ekv_txn_res r;
	st = ekv_txn_run(e, t, &r);
	if (!st && !r.succeeded)
		st = kv_fail(KV_BUSY, "kv table %s changed while it was dropped", name);
	ekv_txn_res_free(&r);
	ekv_txn_free(t);
	util_buf_free(&k);
	util_buf_free(&p);
	util_buf_free(&pe);
	free(m.fams);
	if (!st) {
		pthread_mutex_lock(&s->mu);
		int idx;
		if (cached(s, name, &idx))
			uncache(s, idx);
		pthread_mutex_unlock(&s->mu);
	}
	return st;
}

kv_status ekv_table_alter_family(kv_store *s, const char *name, const kv_family_opts *fam, bool drop)
{
	if (!fam || !name)
		return kv_fail(KV_INVALID, "NULL family or table");
	kv_family_opts f = *fam;
	f.name[sizeof f.name - 1] = 0;
	kv_status st = drop ? KV_OK : table_check_family(&f);
	if (st)
		return st;
	for (int attempt = 0; attempt < 20; attempt++) {
		meta m;
		if ((st = meta_read(s, name, &m)))
			return st;
		if (!m.found)
			return kv_fail(KV_NOT_FOUND, "kv table %s does not exist", name);
		kv_family_opts *nf = util_xcalloc((size_t)m.nfam + 1, sizeof *nf);
		int n = 0;
		bool had = false;
		for (int i = 0; i < m.nfam; i++) {
			if (!strcmp(m.fams[i].name, f.name)) {
				had = true;
				if (!drop)
					nf[n++] = f;
			} else {
				nf[n++] = m.fams[i];
			}
		}
		free(m.fams);
		if (!had && drop) {
			free(nf);
			return kv_fail(KV_NOT_FOUND, "kv table %s has no family %s", name, f.name);
		}
		if (!had)
			nf[n++] = f;
		if (n < 1 || n > KV_MAX_FAMILIES) {
			free(nf);
			return kv_fail(KV_INVALID, "a kv table needs 1..%d families", KV_MAX_FAMILIES);
		}
		json_t *j = fams_json(nf, n);
		free(nf);
		char *v = json_dumps(j, JSON_COMPACT);
		json_decref(j);
		util_buf k = UTIL_BUF_INIT;
		ekv_meta_key(s->etcd, name, &k);
		ekv_txn *t = ekv_txn_new();
		ekv_txn_cmp_mod_eq(t, (const uint8_t *)k.data, k.len, m.mod_rev);
		ekv_txn_put(t, (const uint8_t *)k.data, k.len, (const uint8_t *)v, strlen(v));
		ekv_txn_res r;
		st = ekv_txn_run(s->etcd, t, &r);
		bool ok = !st && r.succeeded;
		ekv_txn_res_free(&r);
		ekv_txn_free(t);
		util_buf_free(&k);
		free(v);
		if (st)
			return st;
		if (ok) {
			/* Refresh the cached handle's families. */
			kv_table *h;
			if (!table_open(s, name, false, &h))
				table_unref(h);
			return KV_OK;
		}
	}
	return kv_fail(KV_BUSY, "kv table %s: concurrent family changes", name);
}

/* Every metadata key P/t/name at rev (0: the latest); *pl: the length of
 * the key prefix before the name. */
static kv_status meta_range(ekv *e, int64_t rev, bool keys_only, ekv_range_res *r, size_t *pl)
{
	util_buf k = UTIL_BUF_INIT, ke = UTIL_BUF_INIT;
	ekv_meta_key(e, "", &k);
	ekv_prefix_end((const uint8_t *)k.data, k.len, &ke);
	ekv_range_req q = {.key = (const uint8_t *)k.data,
			   .klen = k.len,
			   .end = (const uint8_t *)ke.data,
			   .elen = ke.len,
			   .rev = rev,
			   .keys_only = keys_only};
	kv_status st = ekv_range(e, &q, r);
	*pl = k.len;
	util_buf_free(&k);
	util_buf_free(&ke);
	return st;
}

/* The table name of metadata key kv into name[300]; false if too long. */
static bool meta_name(const ekv_kv *kv, size_t pl, char *name)
{
	size_t nl = kv->klen - pl;
	if (nl >= 300)
		return false;
	memcpy(name, kv->key + pl, nl);
	name[nl] = 0;
	return true;
}

kv_status ekv_table_list(kv_store *s, int (*fn)(void *arg, const char *name), void *arg)
{
	ekv_range_res r;
	size_t pl;
	kv_status st = meta_range(s->etcd, 0, true, &r, &pl);
	if (st)
		return st;
	int stop = 0;
	for (size_t i = 0; i < r.n && !stop; i++) {
		char name[300];
		if (meta_name(&r.kvs[i], pl, name))
			stop = fn(arg, name);
	}
	ekv_range_res_free(&r);
	return KV_OK;
}

kv_status ekv_tables_at(kv_store *s, kv_ts ts, kv_table ***out, int *n)
{
	*out = NULL;
	*n = 0;
	/* The metadata keys as of ts's revision: a table dropped since still
	 * has its key, and its cells, there (the pin holds etcd compaction
	 * back). Not remembered (0): the latest, as scans at ts read. */
	ekv_range_res r;
	size_t pl;
	kv_status st = meta_range(s->etcd, ekv_rev_for(s->etcd, ts), false, &r, &pl);
	if (st)
		return st;
	kv_table **v = util_xcalloc(r.n ? r.n : 1, sizeof *v);
	for (size_t i = 0; i < r.n && !st; i++) {
		char name[300];
		kv_family_opts *fams;
		int nf;
		if (!meta_name(&r.kvs[i], pl, name))
			continue;
		if (!fams_parse(r.kvs[i].val, r.kvs[i].vlen, &fams, &nf)) {
			st = kv_fail(KV_CORRUPTION, "etcd: malformed metadata of kv table %s", name);
			break;
		}
		/* Detached from the open cache: its families are those at the revision. */
		kv_table *t = table_new(s, (uint32_t)r.kvs[i].create_rev, name, fams, nf);
		t->eid = (uint64_t)r.kvs[i].create_rev;
		free(fams);
		v[(*n)++] = t;
	}
	ekv_range_res_free(&r);
	if (st) {
		for (int i = 0; i < *n; i++)
			table_unref(v[i]);
		free(v);
		*n = 0;
		return st;
	}
	*out = v;
	return KV_OK;
}

static bool same_fams(const kv_table *t, const kv_family_opts *f, int n)
{
	return t->nfam == n && !memcmp(t->fams, f, sizeof *f * (size_t)n);
}

/* How long an open reuses a cached handle's metadata (families, etcd id)
 * without reading it again: SQL opens its tables at every statement, and
 * a kv table's metadata changes only with DDL, which SQL sees through its
 * catalog version (a storage name is never reused for a new table). */
static int64_t meta_cache_us(void)
{
	static _Atomic int64_t v = -1;
	int64_t x = atomic_load(&v);
	if (x < 0) {
		x = util_env_int("STRATA_ETCD_META_CACHE_MS", 1000) * 1000;
		atomic_store(&v, x);
	}
	return x;
}

kv_status ekv_table_open(kv_store *s, const char *name, kv_table **out)
{
	return table_open(s, name, true, out);
}

static kv_status table_open(kv_store *s, const char *name, bool use_cache, kv_table **out)
{
	*out = NULL;
	if (!name)
		return kv_fail(KV_INVALID, "NULL kv table name");
	int64_t now = util_now_us();
	if (use_cache) {
		pthread_mutex_lock(&s->mu);
		int idx;
		kv_table *c = cached(s, name, &idx);
		if (c && now - atomic_load(&c->meta_us) < meta_cache_us()) {
			atomic_fetch_add(&c->refs, 1);
			pthread_mutex_unlock(&s->mu);
			*out = c;
			return KV_OK;
		}
		pthread_mutex_unlock(&s->mu);
	}
	meta m;
	kv_status st = meta_read(s, name, &m);
	if (st)
		return st;
	pthread_mutex_lock(&s->mu);
	int idx;
	kv_table *t = cached(s, name, &idx);
	if (t && (!m.found || t->eid != (uint64_t)m.create_rev)) {
		uncache(s, idx);
		t = NULL;
	}
	if (!m.found) {
		pthread_mutex_unlock(&s->mu);
		return kv_fail(KV_NOT_FOUND, "kv table %s does not exist", name);
	}
	if (!t) {
		t = table_new(s, (uint32_t)m.create_rev, name, m.fams, m.nfam);
		t->eid = (uint64_t)m.create_rev;
		if (s->ntables == s->ctables) {
			s->ctables = s->ctables ? 2 * s->ctables : 16;
			s->tables = util_xrealloc(s->tables, (size_t)s->ctables * sizeof(kv_table *));
		}
		s->tables[s->ntables++] = t;
	} else if (!same_fams(t, m.fams, m.nfam)) {
		pthread_mutex_lock(&t->mu);
		free(t->fams);
		t->fams = m.fams;
		t->nfam = m.nfam;
		m.fams = NULL;
		table_install_sv(t);
		table_publish_families(t);
		pthread_mutex_unlock(&t->mu);
	}
	atomic_store(&t->meta_us, now);
	atomic_fetch_add(&t->refs, 1);
	pthread_mutex_unlock(&s->mu);
	free(m.fams);
	*out = t;
	return KV_OK;
}
