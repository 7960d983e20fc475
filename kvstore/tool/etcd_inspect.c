/*
 * etcd_inspect.c — strata-kv's commands on an etcd prefix (a store URI
 * etcd://host:port[,...][/prefix], docs/scale-out.md "Key layout"):
 *   tables URI                 kv tables: id, families, rows (distinct row keys
 *                              among the cells), cells, bytes, intents
 *   scan URI TABLE [--from ROW] [--to ROW] [--limit N] [--values]
 *                              the table's etcd keys decoded as cells (every
 *                              version, delete markers, intents with their
 *                              transaction's state)
 *   intents URI                transaction records, table locks, row locks
 *                              and intents per transaction and table
 *   stats URI                  the cluster clock, revision, version-GC and
 *                              compaction horizons, the background GC's
 *                              server, then `tables`
 *   verify URI                 kv_store_verify's checks (etcd_verify.c)
 * Everything is read at one etcd revision per command. The tool publishes
 * no horizon and never compacts (STRATA_ETCD_COMPACT_S=0). ROW arguments
 * take \xNN escapes for bytes.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "etcd_inspect.h"

/* Parses \xNN escapes of a command-line row key. */
static void unescape_arg(const char *a, util_buf *out)
{
	for (const char *p = a; *p; p++) {
		unsigned v;
		if (p[0] == '\\' && p[1] == 'x' && isxdigit((unsigned char)p[2]) &&
		    isxdigit((unsigned char)p[3]) && sscanf(p + 2, "%2x", &v) == 1) {
			util_buf_putc(out, (char)v);
			p += 3;
		} else {
			util_buf_putc(out, *p);
		}
	}
}

static void kind_range(const ekv *e, const char *kind, util_buf *lo, util_buf *hi)
{
	util_buf_reset(lo);
	util_buf_append(lo, e->prefix, e->plen);
	util_buf_append(lo, kind, strlen(kind));
	ekv_prefix_end((const uint8_t *)lo->data, lo->len, hi);
}

static kv_status walk_kind(ekv *e, const char *kind, int64_t *rev, bool keys_only, ekv_walk_fn fn, void *arg)
{
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	kind_range(e, kind, &lo, &hi);
	kv_status st = ekv_walk(e, (const uint8_t *)lo.data, lo.len, (const uint8_t *)hi.data, hi.len, rev,
				keys_only, fn, arg);
	util_buf_free(&lo);
	util_buf_free(&hi);
	return st;
}

static void put_txid(const uint8_t *id)
{
	for (int i = 0; i < EKV_TXID; i++)
		printf("%02x", id[i]);
}

/* ---------------------------------------------------------------- tables */

typedef struct itable {
	uint64_t eid;
	char name[300];
	char fams[400];
	uint64_t cells, bytes, rows, intents;
	util_buf last_row; /* the row of the last cell counted */
} itable;

typedef struct ictx {
	ekv *e;
	itable *t;
	size_t n, cap;
} ictx;

static itable *find_eid(ictx *c, uint64_t eid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->t[i].eid == eid)
			return &c->t[i];
	return NULL;
}

static bool add_table(void *arg, const ekv_kv *kv)
{
	ictx *c = arg;
	size_t pl = c->e->plen + 3;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->t = util_xrealloc(c->t, c->cap * sizeof *c->t);
	}
	itable *t = &c->t[c->n++];
	memset(t, 0, sizeof *t);
	t->eid = (uint64_t)kv->create_rev;
	t->last_row = (util_buf)UTIL_BUF_INIT;
	size_t nl = kv->klen - pl < sizeof t->name - 1 ? kv->klen - pl : sizeof t->name - 1;
	memcpy(t->name, kv->key + pl, nl);
	/* Family names from the metadata JSON, without a JSON library here:
	 * each "name":"..." in order. */
	const char *v = (const char *)kv->val, *end = v + kv->vlen;
	size_t o = 0;
	for (const char *p = v; p < end && o + 40 < sizeof t->fams;) {
		const char *m = memmem(p, (size_t)(end - p), "\"name\":\"", 8);
		if (!m)
			break;
		m += 8;
		const char *q = memchr(m, '"', (size_t)(end - m));
		if (!q)
			break;
		o += (size_t)snprintf(t->fams + o, sizeof t->fams - o, "%s%.*s", o ? "," : "",
				      (int)(q - m < 32 ? q - m : 32), m);
		p = q;
	}
	return true;
}

static bool count_cell(void *arg, const ekv_kv *kv)
{
	ictx *c = arg;
	size_t pl = c->e->plen + 3;
	if (kv->klen < pl + 8)
		return true;
	itable *t = find_eid(c, util_get_be64(kv->key + pl));
	if (!t)
		return true;
	t->cells++;
	t->bytes += kv->klen + kv->vlen;
	/* Rows: distinct row keys among the cells (keys come in row order). */
	const uint8_t *p = kv->key + pl + 8, *end = kv->key + kv->klen;
	util_buf row = UTIL_BUF_INIT;
	if (ekv_unesc(&p, end, &row) &&
	    (!t->rows || row.len != t->last_row.len || memcmp(row.data, t->last_row.data, row.len))) {
		t->rows++;
		util_buf_reset(&t->last_row);
		util_buf_append(&t->last_row, row.data, row.len);
	}
	util_buf_free(&row);
	t->intents += ekv_key_is_intent(kv->key, kv->klen);
	return true;
}

static kv_status load_tables(ekv *e, ictx *c, int64_t *rev)
{
	c->e = e;
	kv_status st = walk_kind(e, "/t/", rev, false, add_table, c);
	if (!st)
		st = walk_kind(e, "/d/", rev, false, count_cell, c);
	return st;
}

static void free_tables(ictx *c)
{
	for (size_t i = 0; i < c->n; i++)
		util_buf_free(&c->t[i].last_row);
	free(c->t);
}

static void print_tables(const ictx *c)
{
	uint64_t cells = 0, bytes = 0;
	printf("%-40s %10s %-16s %10s %10s %12s %8s\n", "kv table", "id", "families", "rows", "cells",
	       "bytes", "intents");
	for (size_t i = 0; i < c->n; i++) {
		const itable *t = &c->t[i];
		printf("%-40s %10" PRIu64 " %-16s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %8" PRIu64 "\n",
		       t->name, t->eid, t->fams, t->rows, t->cells, t->bytes, t->intents);
		cells += t->cells;
		bytes += t->bytes;
	}
	printf("%zu kv tables, %" PRIu64 " cells, %" PRIu64 " bytes of keys and values\n", c->n, cells,
	       bytes);
}

static int cmd_tables(kv_store *s)
{
	ictx c = {0};
	int64_t rev = 0;
	kv_status st = load_tables(s->etcd, &c, &rev);
	if (!st) {
		printf("prefix %s at revision %" PRId64 "\n", s->etcd->prefix, rev);
		print_tables(&c);
	}
	free_tables(&c);
	if (st)
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
	return st ? 2 : 0;
}

/* ---------------------------------------------------------------- scan */

typedef struct sctx {
	ekv *e;
	int64_t rev;
	size_t pl;
	bool values;
	uint64_t limit, n;
	util_buf ik;
	kv_status st;
} sctx;

static bool print_cell(void *arg, const ekv_kv *kv)
{
	sctx *c = arg;
	if (c->limit && c->n >= c->limit)
		return false;
	c->n++;
	if (!ekv_to_ikey(kv->key + c->pl, kv->klen - c->pl, &c->ik)) {
		printf("UNDECODABLE key ");
		kvtool_print_bytes(kv->key, kv->klen, 200);
		putchar('\n');
		return true;
	}
	ikey_parts p;
	ikey_split((const uint8_t *)c->ik.data, c->ik.len, &p);
	bool intent = ekv_key_is_intent(kv->key, kv->klen);
	kvtool_print_bytes(p.row, p.rlen, 64);
	putchar('/');
	kvtool_print_bytes(p.fam, p.flen, 32);
	putchar(':');
	kvtool_print_bytes(p.qual, p.qlen, 64);
	printf(" @%" PRIu64 " %s rev %" PRId64, (uint64_t)p.ts,
	       kvtool_type_name(intent ? p.type + 1 : p.type), kv->mod_rev);
	const uint8_t *val = kv->val;
	size_t vl = kv->vlen;
	if (intent && vl >= EKV_INTENT_HDR) {
		printf(" intent of ");
		put_txid(val);
		bool vis = false;
		kv_ts cts = 0;
		int64_t flip = 0;
		if (ekv_intent_visible(c->e, val, c->rev, &vis, &cts, &flip))
			printf(" (record unreadable)");
		else if (vis)
			printf(" committed @%" PRIu64, (uint64_t)cts);
		else
			printf(flip < 0 ? " aborted" : " pending");
		val += EKV_INTENT_HDR;
		vl -= EKV_INTENT_HDR;
	}
	if (c->values) {
		printf(" = ");
		kvtool_print_bytes(val, vl, 200);
	} else {
		printf(" (%zu bytes)", vl);
	}
	putchar('\n');
	return true;
}

static int cmd_scan(kv_store *s, int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "strata-kv scan: give a kv table\n");
		return 2;
	}
	const char *name = argv[3];
	sctx c = {.e = s->etcd, .ik = UTIL_BUF_INIT};
	util_buf from = UTIL_BUF_INIT, to = UTIL_BUF_INIT;
	bool has_from = false, has_to = false;
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--values"))
			c.values = true;
		else if (!strcmp(argv[i], "--from") && i + 1 < argc)
			unescape_arg(argv[++i], &from), has_from = true;
		else if (!strcmp(argv[i], "--to") && i + 1 < argc)
			unescape_arg(argv[++i], &to), has_to = true;
		else if (!strcmp(argv[i], "--limit") && i + 1 < argc)
			c.limit = strtoull(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "strata-kv scan: unexpected argument %s\n", argv[i]);
			return 2;
		}
	}
	kv_table *t;
	kv_status st = kv_table_open(s, name, &t);
	if (st) {
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
		return 2;
	}
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	ekv_cell_prefix(s->etcd, t->eid, &lo);
	c.pl = lo.len;
	if (has_to) {
		util_buf_append(&hi, lo.data, lo.len);
		ekv_esc(&hi, (const uint8_t *)to.data, to.len); /* rows before TO */
	} else {
		ekv_prefix_end((const uint8_t *)lo.data, lo.len, &hi);
	}
	if (has_from)
		ekv_esc(&lo, (const uint8_t *)from.data, from.len);
	printf("kv table %s (id %" PRIu64 ")\n", name, t->eid);
	st = ekv_walk(s->etcd, (const uint8_t *)lo.data, lo.len, (const uint8_t *)hi.data, hi.len, &c.rev,
		      false, print_cell, &c);
	if (!st)
		printf("%" PRIu64 " cells at revision %" PRId64 "\n", c.n, c.rev);
	else
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
	kv_table_close(t);
	util_buf_free(&lo);
	util_buf_free(&hi);
	util_buf_free(&from);
	util_buf_free(&to);
	util_buf_free(&c.ik);
	return st ? 2 : 0;
}

/* ---------------------------------------------------------------- intents */

typedef struct txstat {
	uint8_t id[EKV_TXID];
	uint64_t eid, n;
} txstat;

typedef struct xctx {
	ekv *e;
	ictx *tables;
	txstat *v;
	size_t n, cap;
} xctx;

static bool print_record(void *arg, const ekv_kv *kv)
{
	xctx *c = arg;
	size_t pl = c->e->plen + 3;
	printf("record ");
	if (kv->klen == pl + EKV_TXID)
		put_txid(kv->key + pl);
	if (kv->vlen == 9 && kv->val[0] == 'C')
		printf(" committed @%" PRIu64 " rev %" PRId64 "\n", util_get_be64(kv->val + 1), kv->mod_rev);
	else if (kv->vlen == 1 && kv->val[0] == 'P')
		printf(" pending since rev %" PRId64 "\n", kv->create_rev);
	else
		printf(" malformed (%zu bytes)\n", kv->vlen);
	return true;
}

static bool print_lock(void *arg, const ekv_kv *kv)
{
	xctx *c = arg;
	size_t pl = c->e->plen + 3;
	itable *t = kv->klen >= pl + 8 ? find_eid(c->tables, util_get_be64(kv->key + pl)) : NULL;
	printf("lock of %s: ", t ? t->name : "?");
	if (kv->vlen == 1 + EKV_TXID && kv->val[0] == 'H') {
		printf("held by ");
		put_txid(kv->val + 1);
	} else {
		printf("free");
	}
	printf(" (rev %" PRId64 ")\n", kv->mod_rev);
	return true;
}

static bool note_intent(void *arg, const ekv_kv *kv)
{
	xctx *c = arg;
	size_t pl = c->e->plen + 3;
	if (!ekv_key_is_intent(kv->key, kv->klen) || kv->vlen < EKV_INTENT_HDR || kv->klen < pl + 8)
		return true;
	uint64_t eid = util_get_be64(kv->key + pl);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].eid == eid && !memcmp(c->v[i].id, kv->val, EKV_TXID)) {
			c->v[i].n++;
			return true;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = util_xrealloc(c->v, c->cap * sizeof *c->v);
	}
	memcpy(c->v[c->n].id, kv->val, EKV_TXID);
	c->v[c->n].eid = eid;
	c->v[c->n++].n = 1;
	return true;
}

/* Row locks P "/k/" eid esc(row) (value: the txid), counted per
 * transaction and table like intents. */
static bool note_rowlock(void *arg, const ekv_kv *kv)
{
	xctx *c = arg;
	size_t pl = c->e->plen + 3;
	if (kv->klen < pl + 8)
		return true;
	txstat x = {.eid = util_get_be64(kv->key + pl)};
	if (kv->vlen == EKV_TXID)
		memcpy(x.id, kv->val, EKV_TXID);
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].eid == x.eid && !memcmp(c->v[i].id, x.id, EKV_TXID)) {
			c->v[i].n++;
			return true;
		}
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->v = util_xrealloc(c->v, c->cap * sizeof *c->v);
	}
	x.n = 1;
	c->v[c->n++] = x;
	return true;
}

static int cmd_intents(kv_store *s)
{
	ekv *e = s->etcd;
	ictx tables = {0};
	xctx c = {.e = e, .tables = &tables};
	int64_t rev = 0;
	tables.e = e;
	kv_status st = walk_kind(e, "/t/", &rev, false, add_table, &tables);
	if (!st)
		printf("prefix %s at revision %" PRId64 "\n", e->prefix, rev);
	if (!st)
		st = walk_kind(e, "/x/", &rev, false, print_record, &c);
	if (!st)
		st = walk_kind(e, "/l/", &rev, false, print_lock, &c);
	if (!st)
		st = walk_kind(e, "/k/", &rev, false, note_rowlock, &c);
	for (size_t i = 0; !st && i < c.n; i++) {
		itable *t = find_eid(&tables, c.v[i].eid);
		printf("row locks of ");
		put_txid(c.v[i].id);
		printf(" in %s: %" PRIu64 "\n", t ? t->name : "?", c.v[i].n);
	}
	c.n = 0;
	if (!st)
		st = walk_kind(e, "/d/", &rev, false, note_intent, &c);
	for (size_t i = 0; !st && i < c.n; i++) {
		itable *t = find_eid(&tables, c.v[i].eid);
		bool vis = false;
		kv_ts cts = 0;
		int64_t flip = 0;
		kv_status vs = ekv_intent_visible(e, c.v[i].id, rev, &vis, &cts, &flip);
		printf("intents of ");
		put_txid(c.v[i].id);
		printf(" in %s: %" PRIu64 ", %s\n", t ? t->name : "?", c.v[i].n,
		       vs         ? "record unreadable"
		       : vis      ? "committed"
		       : flip < 0 ? "aborted (to be swept)"
				  : "pending");
	}
	if (!st)
		printf("%zu transactions with intents\n", c.n);
	else
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
	free(c.v);
	free_tables(&tables);
	return st ? 2 : 0;
}

/* ---------------------------------------------------------------- stats */

static bool print_horizon(void *arg, const ekv_kv *kv)
{
	(void)arg;
	printf("horizon ");
	kvtool_print_bytes(kv->key, kv->klen, 80);
	if (kv->vlen == 8)
		printf(": revision %" PRIu64 "\n", util_get_be64(kv->val));
	else
		printf(": %zu bytes\n", kv->vlen);
	return true;
}

static int cmd_stats(kv_store *s)
{
	ekv *e = s->etcd;
	kv_ts clock;
	int64_t rev;
	kv_status st = ekv_clock_read(e, &clock, &rev);
	if (st) {
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
		return 2;
	}
	int64_t window = util_env_int("STRATA_ETCD_GC_WINDOW_S", 600) * 1000000;
	printf("prefix %s at revision %" PRId64 "\n", e->prefix, rev);
	printf("cluster clock %" PRIu64 " (newest commit)\n", (uint64_t)clock);
	printf("version GC horizon %" PRIu64 " (clock - %" PRId64
	       " s window; each family's retention lowers it)\n",
	       clock > (kv_ts)window ? (uint64_t)(clock - (kv_ts)window) : 0, window / 1000000);
	util_buf lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT;
	util_buf_append(&lo, "/strata-compaction/h/", 21);
	ekv_prefix_end((const uint8_t *)lo.data, lo.len, &hi);
	st = ekv_walk(e, (const uint8_t *)lo.data, lo.len, (const uint8_t *)hi.data, hi.len, &rev, false,
		      print_horizon, NULL);
	util_buf_reset(&lo);
	util_buf_append(&lo, "/strata-compaction/g", 20);
	ekv_range_req q = {.key = (const uint8_t *)lo.data, .klen = lo.len, .rev = rev};
	ekv_range_res r;
	if (!st && !(st = ekv_range(e, &q, &r))) {
		printf("compactor: %s\n", r.n ? "elected" : "none");
		ekv_range_res_free(&r);
	}
	util_buf_reset(&lo);
	util_buf_append(&lo, e->prefix, e->plen);
	util_buf_append(&lo, "/g", 2);
	q.key = (const uint8_t *)lo.data;
	q.klen = lo.len;
	if (!st && !(st = ekv_range(e, &q, &r))) {
		printf("background version GC: ");
		if (r.n && r.kvs[0].vlen == 8) {
			printf("run by node ");
			for (int i = 0; i < 8; i++)
				printf("%02x", r.kvs[0].val[i]);
			printf(" (since rev %" PRId64 ")\n", r.kvs[0].create_rev);
		} else {
			printf("no server holds the GC key now\n");
		}
		ekv_range_res_free(&r);
	}
	util_buf_free(&lo);
	util_buf_free(&hi);
	ictx c = {0};
	if (!st)
		st = load_tables(e, &c, &rev);
	if (!st)
		print_tables(&c);
	free_tables(&c);
	if (st)
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
	return st ? 2 : 0;
}

/* ---------------------------------------------------------------- verify */

static void report(void *arg, const char *problem)
{
	(void)arg;
	printf("PROBLEM: %s\n", problem);
}

static int cmd_verify(kv_store *s)
{
	ekv_vcounts n;
	memset(&n, 0, sizeof n);
	kv_status st = ekv_store_verify(s, report, NULL, &n);
	if (st && st != KV_CORRUPTION) {
		fprintf(stderr, "strata-kv: %s: %s\n", kv_status_name(st), kv_errmsg());
		return 2;
	}
	printf("%s at revision %" PRId64 ": %" PRIu64 " keys, %zu kv tables, %" PRIu64 " cells, %" PRIu64
	       " row markers, %" PRIu64 " intents (%" PRIu64
	       " of aborted transactions, left to the sweep), %zu "
	       "transaction records\n",
	       s->etcd->prefix, n.rev, n.keys, n.tables, n.cells, n.markers, n.intents, n.aborted, n.records);
	printf("%s: %s (%" PRIu64 " problem%s)\n", s->path, st ? "DAMAGED" : "ok", n.problems,
	       n.problems == 1 ? "" : "s");
	return st ? 1 : 0;
}

int etcd_inspect_main(int argc, char **argv)
{
	setenv("STRATA_ETCD_COMPACT_S", "0", 1); /* no horizon thread: read only */
	kv_store_opts o;
	kv_store_opts_default(&o);
	kv_store *s;
	kv_status st = kv_store_open(argv[2], &o, &s);
	if (st) {
		fprintf(stderr, "strata-kv: cannot open %s: %s: %s\n", argv[2], kv_status_name(st),
			kv_errmsg());
		return 2;
	}
	int rc = 2;
	const char *cmd = argv[1];
	if (!strcmp(cmd, "tables"))
		rc = cmd_tables(s);
	else if (!strcmp(cmd, "scan"))
		rc = cmd_scan(s, argc, argv);
	else if (!strcmp(cmd, "intents"))
		rc = cmd_intents(s);
	else if (!strcmp(cmd, "stats"))
		rc = cmd_stats(s);
	else if (!strcmp(cmd, "verify"))
		rc = cmd_verify(s);
	else
		fprintf(stderr, "strata-kv: %s is not a command for an etcd store\n", cmd);
	kv_store_close(s);
	return rc;
}
