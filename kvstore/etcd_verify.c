/*
 * etcd_verify.c — kv_store_verify on the etcd backend, and the paged walk
 * over a key range at one revision that it and the inspection tool
 * (strata-kv on an etcd URI) share.
 *
 * What can be checked from the keys alone, at one etcd revision (key
 * layout: docs/scale-out.md): every key under the prefix is of a known
 * kind and decodes (cells into row, family, qualifier, timestamp, type);
 * decoded cells come in the store's cell order; every cell, row marker,
 * share mark and table lock belongs to a kv table whose metadata exists
 * and parses; values have their kind's shape (the clock, markers, locks,
 * transaction records, intents' headers). Intents of aborted large
 * transactions (no record) are not problems — readers and version GC
 * sweep them (docs/scale-out.md, "Aborted intents are swept") — but are
 * counted in the summary. SQL-level checks (catalog rows, index entries)
 * are the upper layers' (strata_verify_index).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

#define WALK_PAGE 1000

kv_status ekv_walk(ekv *e, const uint8_t *lo, size_t lol, const uint8_t *hi, size_t hil, int64_t *rev,
		   bool keys_only, ekv_walk_fn fn, void *arg)
{
	util_buf from = UTIL_BUF_INIT;
	util_buf_append(&from, lo, lol);
	kv_status st = KV_OK;
	for (bool more = true; more && !st;) {
		ekv_range_req q = {.key = (const uint8_t *)from.data,
				   .klen = from.len,
				   .end = hi,
				   .elen = hil,
				   .limit = WALK_PAGE,
				   .rev = *rev,
				   .keys_only = keys_only};
		ekv_range_res r;
		if ((st = ekv_range(e, &q, &r)))
			break;
		if (!*rev)
			*rev = r.rev;
		for (size_t i = 0; i < r.n && more; i++)
			more = fn(arg, &r.kvs[i]);
		if (more && r.more && r.n) {
			util_buf_reset(&from);
			util_buf_append(&from, r.kvs[r.n - 1].key, r.kvs[r.n - 1].klen);
			util_buf_putc(&from, 0); /* the next key after the page's last */
		} else {
			more = false;
		}
		ekv_range_res_free(&r);
	}
	util_buf_free(&from);
	return st;
}

/* ---------------------------------------------------------------- verify */

typedef struct vtable {
	uint64_t eid;
	char *name;
} vtable;

typedef struct vrec {
	uint8_t id[EKV_TXID];
	char state; /* 'P' pending, 'C' committed */
} vrec;

typedef struct vctx {
	ekv *e;
	void (*fn)(void *arg, const char *problem);
	void *arg;
	vtable *t;
	size_t nt, ct;
	vrec *x;
	size_t nx, cx;
	ekv_vcounts n;
	uint64_t problems;
	util_buf prev; /* the previous cell's ikey (same table) */
	uint64_t prev_eid;
	util_buf ik;
} vctx;

static void problem(vctx *v, const ekv_kv *kv, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void problem(vctx *v, const ekv_kv *kv, const char *fmt, ...)
{
	v->problems++;
	if (!v->fn)
		return;
	char msg[512], key[200];
	size_t o = 0;
	for (size_t i = 0; kv && i < kv->klen && o + 5 < sizeof key; i++) {
		uint8_t c = kv->key[i];
		o += (size_t)snprintf(key + o, sizeof key - o,
				      c >= 0x20 && c < 0x7f && c != '\\' ? "%c" : "\\x%02x", c);
	}
	key[o] = 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (kv && n >= 0 && (size_t)n < sizeof msg)
		snprintf(msg + n, sizeof msg - (size_t)n, " (etcd key %s, mod revision %" PRId64 ")", key,
			 kv->mod_rev);
	v->fn(v->arg, msg);
}

static const vtable *table_of(const vctx *v, uint64_t eid)
{
	for (size_t i = 0; i < v->nt; i++)
		if (v->t[i].eid == eid)
			return &v->t[i];
	return NULL;
}

static bool note_table(void *arg, const ekv_kv *kv)
{
	vctx *v = arg;
	size_t pl = v->e->plen + 3;
	if (v->nt == v->ct) {
		v->ct = v->ct ? 2 * v->ct : 16;
		v->t = util_xrealloc(v->t, v->ct * sizeof *v->t);
	}
	vtable *t = &v->t[v->nt++];
	memset(t, 0, sizeof *t);
	t->eid = (uint64_t)kv->create_rev;
	t->name = util_xcalloc(1, kv->klen - pl + 1);
	memcpy(t->name, kv->key + pl, kv->klen - pl);
	json_error_t je;
	json_t *r = json_loadb((const char *)kv->val, kv->vlen, 0, &je);
	json_t *a = r ? json_object_get(r, "families") : NULL;
	if (!json_is_array(a) || !json_array_size(a) || json_array_size(a) > KV_MAX_FAMILIES) {
		problem(v, kv, "kv table %s: metadata does not parse (%s)", t->name,
			r ? "no families" : je.text);
	} else {
		for (size_t i = 0; i < json_array_size(a); i++) {
			const char *n = json_string_value(json_object_get(json_array_get(a, i), "name"));
			if (!n || !*n)
				problem(v, kv, "kv table %s: family %zu has no name", t->name, i);
		}
	}
	json_decref(r);
	return true;
}

static bool note_record(void *arg, const ekv_kv *kv)
{
	vctx *v = arg;
	size_t pl = v->e->plen + 3;
	if (kv->klen != pl + EKV_TXID || !kv->vlen ||
	    !((kv->val[0] == 'P' && kv->vlen == 1) || (kv->val[0] == 'C' && kv->vlen == 9))) {
		problem(v, kv, "malformed transaction record");
		return true;
	}
	if (v->nx == v->cx) {
		v->cx = v->cx ? 2 * v->cx : 16;
		v->x = util_xrealloc(v->x, v->cx * sizeof *v->x);
	}
	memcpy(v->x[v->nx].id, kv->key + pl, EKV_TXID);
	v->x[v->nx++].state = (char)kv->val[0];
	return true;
}

/* The table a key names by its eid after P "/k/"; reports a missing one. */
static const vtable *key_table(vctx *v, const ekv_kv *kv, const char *what)
{
	size_t pl = v->e->plen + 3;
	if (kv->klen < pl + 8) {
		problem(v, kv, "%s key too short", what);
		return NULL;
	}
	uint64_t eid = util_get_be64(kv->key + pl);
	const vtable *t = table_of(v, eid);
	if (!t)
		problem(v, kv, "%s of kv table id %" PRIu64 ", which has no metadata", what, eid);
	return t;
}

static void check_cell(vctx *v, const ekv_kv *kv)
{
	const vtable *t = key_table(v, kv, "cell");
	if (!t)
		return;
	size_t pl = v->e->plen + 3 + 8;
	v->n.cells++;
	if (!ekv_to_ikey(kv->key + pl, kv->klen - pl, &v->ik)) {
		problem(v, kv, "kv table %s: cell key does not decode", t->name);
		return;
	}
	ikey_parts p;
	ikey_split((const uint8_t *)v->ik.data, v->ik.len, &p);
	bool intent = ekv_key_is_intent(kv->key, kv->klen);
	uint8_t type = intent ? (uint8_t)(p.type + 1) : p.type;
	if (type != KV_PUT && type != KV_DELETE && type != KV_DELETE_COLUMN && type != KV_DELETE_FAMILY &&
	    type != KV_DELETE_FAMILY_VERSION)
		problem(v, kv, "kv table %s: cell of unknown type %u", t->name, type);
	if (!p.rlen)
		problem(v, kv, "kv table %s: cell with an empty row key", t->name);
	if (v->prev_eid == t->eid && v->prev.len &&
	    ikey_cmp((const uint8_t *)v->prev.data, v->prev.len, (const uint8_t *)v->ik.data, v->ik.len) > 0)
		problem(v, kv, "kv table %s: cell out of order", t->name);
	util_buf_reset(&v->prev);
	util_buf_append(&v->prev, v->ik.data, v->ik.len);
	v->prev_eid = t->eid;
	if (!intent)
		return;
	v->n.intents++;
	if (kv->vlen < EKV_INTENT_HDR) {
		problem(v, kv, "kv table %s: intent without its transaction header", t->name);
		return;
	}
	bool found = false;
	for (size_t i = 0; i < v->nx && !found; i++)
		found = !memcmp(v->x[i].id, kv->val, EKV_TXID);
	if (!found)
		v->n.aborted++; /* swept by readers and version GC, not a problem */
}

static bool check_key(void *arg, const ekv_kv *kv)
{
	vctx *v = arg;
	v->n.keys++;
	size_t pl = v->e->plen;
	if (kv->klen < pl + 2 || kv->key[pl] != '/') {
		problem(v, kv, "key of no known kind");
		return true;
	}
	char kind = (char)kv->key[pl + 1];
	if (kind == 'g' && kv->klen == pl + 2) { /* the background GC's key (etcd_bggc.c) */
		if (kv->vlen != 8)
			problem(v, kv, "the GC key is %zu bytes, not 8", kv->vlen);
		return true;
	}
	if (kind == 'c' && kv->klen == pl + 2) {
		if (kv->vlen != 16)
			problem(v, kv, "the cluster clock is %zu bytes, not 16", kv->vlen);
		return true;
	}
	if (kind == 'n' && kv->klen == pl + 2) { /* server numbers handed out (kv_store_server_no) */
		if (kv->vlen != 8)
			problem(v, kv, "the server number counter is %zu bytes, not 8", kv->vlen);
		return true;
	}
	if (kv->klen < pl + 3 || kv->key[pl + 2] != '/') {
		problem(v, kv, "key of no known kind");
		return true;
	}
	switch (kind) {
	case 't':
	case 'x':
		return true; /* read before the walk */
	case 'd':
		check_cell(v, kv);
		return true;
	case 'r':
	case 's': {
		const vtable *t = key_table(v, kv, kind == 'r' ? "row marker" : "share mark");
		if (kind == 'r')
			v->n.markers++;
		const uint8_t *p = kv->key + pl + 3 + 8, *end = kv->key + kv->klen;
		util_buf row = UTIL_BUF_INIT;
		if (t && (!ekv_unesc(&p, end, &row) || p != end))
			problem(v, kv, "kv table %s: row key of a marker does not decode", t->name);
		else if (t && kv->vlen != 8)
			problem(v, kv, "kv table %s: marker value is %zu bytes, not 8", t->name, kv->vlen);
		util_buf_free(&row);
		return true;
	}
	case 'm': {
		const vtable *t = key_table(v, kv, "large-commit mark");
		if (t && (kv->klen != pl + 3 + 8 || kv->vlen != 8))
			problem(v, kv, "kv table %s: malformed large-commit mark", t->name);
		return true;
	}
	case 'k': {
		/* a live large transaction's row lock; its lease removes it */
		const vtable *t = key_table(v, kv, "row lock");
		const uint8_t *p = kv->key + pl + 3 + 8, *end = kv->key + kv->klen;
		util_buf row = UTIL_BUF_INIT;
		if (t && (kv->klen < pl + 3 + 8 || !ekv_unesc(&p, end, &row) || p != end))
			problem(v, kv, "kv table %s: row key of a row lock does not decode", t->name);
		else if (t && kv->vlen != EKV_TXID)
			problem(v, kv, "kv table %s: row lock value is %zu bytes, not %d", t->name, kv->vlen,
				EKV_TXID);
		util_buf_free(&row);
		return true;
	}
	case 'l': {
		const vtable *t = key_table(v, kv, "table lock");
		if (t && !((kv->vlen == 1 && kv->val[0] == 'F') ||
			   (kv->vlen == 1 + EKV_TXID && kv->val[0] == 'H')))
			problem(v, kv, "kv table %s: malformed table lock", t->name);
		return true;
	}
	}
	problem(v, kv, "key of no known kind");
	return true;
}

static kv_status walk_kind(vctx *v, const char *kind, int64_t *rev, ekv_walk_fn fn)
{
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	util_buf_append(&lo, v->e->prefix, v->e->plen);
	util_buf_append(&lo, kind, strlen(kind));
	ekv_prefix_end((const uint8_t *)lo.data, lo.len, &hi);
	kv_status st = ekv_walk(v->e, (const uint8_t *)lo.data, lo.len, (const uint8_t *)hi.data, hi.len, rev,
				false, fn, v);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return st;
}

kv_status ekv_store_verify(kv_store *s, void (*fn)(void *arg, const char *problem), void *arg,
			   ekv_vcounts *out)
{
	vctx v = {.e = s->etcd, .fn = fn, .arg = arg, .prev = UTIL_BUF_INIT, .ik = UTIL_BUF_INIT};
	int64_t rev = 0;
	kv_status st = walk_kind(&v, "/t/", &rev, note_table);
	if (!st)
		st = walk_kind(&v, "/x/", &rev, note_record);
	if (!st)
		st = walk_kind(&v, "/", &rev, check_key);
	v.n.rev = rev;
	v.n.tables = v.nt;
	v.n.records = v.nx;
	v.n.problems = v.problems;
	if (out)
		*out = v.n;
	for (size_t i = 0; i < v.nt; i++)
		free(v.t[i].name);
	free(v.t);
	free(v.x);
	util_buf_free(&v.prev);
	util_buf_free(&v.ik);
	if (st)
		return st;
	return v.problems
		   ? kv_fail(KV_CORRUPTION, "%" PRIu64 " problems in etcd prefix %s", v.problems, v.e->prefix)
		   : KV_OK;
}
