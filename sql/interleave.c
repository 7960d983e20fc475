/*
 * interleave.c — entity groups (docs/entity-groups.md): a table created
 * WITH (interleave_in_parent = 'parent') keeps its rows inside its root
 * table's kv rows, under qualifier prefixes; this file sets that up at
 * CREATE TABLE, checks the catalog's invariants at commit, and enforces
 * the parent-child rules on writes (a child needs its parent; a parent
 * with children is deleted only with interleave_on_delete = 'cascade').
 * The storage format itself is in rowcodec.c, reads in exec_scan.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

#define ILV_MAX_DEPTH 8

static const char *option(const cat_rel *r, const char *name)
{
	for (int i = 0; i < r->nopts; i++)
		if (!strcmp(r->opts[i].name, name))
			return r->opts[i].value;
	return NULL;
}

static const char *type_name(ty_oid t)
{
	const ty_type *ty = ty_type_get(t);
	return ty ? ty->name : "?";
}

bool sql_ilv_create(sql_session *s, cat_txn *ct, cat_obj *o)
{
	cat_rel *r = &o->rel;
	const char *pname = option(r, "interleave_in_parent");
	if (!pname)
		return false;
	cat_snap *cs = cat_txn_snap(ct);
	/* "schema.table" or "table" (on the search path). */
	char schema[CAT_NAME_MAX] = "", name[CAT_NAME_MAX];
	const char *dot = strchr(pname, '.');
	if (dot) {
		snprintf(schema, sizeof schema, "%.*s", (int)(dot - pname), pname);
		snprintf(name, sizeof name, "%s", dot + 1);
	} else {
		snprintf(name, sizeof name, "%s", pname);
	}
	const cat_obj *po = sql_lookup_rel_name(s, cs, schema[0] ? schema : NULL, name);
	if (!po)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", pname);
	const cat_rel *pr = &po->rel;
	if (pr->relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "\"%s\" is not a table", pr->name);
	if (pr->npk == 0)
		ty_error(UTIL_E_INVALID_TABLE_DEFINITION, "cannot interleave in table \"%s\": it has no primary key", pr->name);
	if (pr->salt_buckets || r->salt_buckets)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "salted tables cannot be interleaved");
	if (pr->ilv_depth + 1 > ILV_MAX_DEPTH)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "interleaved tables nest at most %d levels deep", ILV_MAX_DEPTH);
	/* The child's key starts with the parent's key. */
	bool ok = r->npk >= pr->npk;
	for (int i = 0; ok && i < pr->npk; i++) {
		const cat_column *cc = cat_column_by_attnum(r, r->pk[i]);
		const cat_column *pc = cat_column_by_attnum(pr, pr->pk[i]);
		bool cd = r->pk_desc && r->pk_desc[i], pd = pr->pk_desc && pr->pk_desc[i];
		ok = cc->type == pc->type && cd == pd;
	}
	if (!ok) {
		util_buf want = UTIL_BUF_INIT;
		for (int i = 0; i < pr->npk; i++) {
			const cat_column *pc = cat_column_by_attnum(pr, pr->pk[i]);
			util_buf_printf(&want, "%s%s %s", i ? ", " : "", pc->name, type_name(pc->type));
		}
		util_err *e = ty_errstart(UTIL_E_INVALID_TABLE_DEFINITION,
					  "the primary key of interleaved table \"%s\" must start with the primary key of \"%s\"",
					  r->name, pr->name);
		util_err_detail(e, "The key of \"%s\" is (%s).", pr->name, want.data ? want.data : "");
		util_buf_free(&want);
		ty_errthrow();
	}
	const char *od = option(r, "interleave_on_delete");
	if (od && strcmp(od, "cascade") && strcmp(od, "restrict"))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid value for option \"interleave_on_delete\": \"%s\"", od);
	r->ilv_cascade = od && !strcmp(od, "cascade");

	/* The root hands out the table tag; the parent counts its children. */
	cat_oid root_oid = pr->ilv_depth ? pr->ilv_root : po->oid;
	const cat_obj *ro = cat_get(cs, root_oid);
	uint16_t tag = ro->rel.ilv_next_tag ? ro->rel.ilv_next_tag : 1;
	if (tag == 0xFFFF)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "too many interleaved tables in the hierarchy of \"%s\"", ro->rel.name);
	cat_obj *root = cat_obj_copy(ro);
	root->rel.ilv_next_tag = (uint16_t)(tag + 1);
	cat_obj *parent = root_oid == po->oid ? root : cat_obj_copy(po);
	parent->rel.ilv_nchildren++;

	r->interleave_parent = po->oid;
	r->ilv_root = root_oid;
	r->ilv_depth = pr->ilv_depth + 1;
	r->ilv_path = cat_obj_alloc(o, sizeof(int16_t) * (size_t)(1 + 2 * r->ilv_depth));
	if (pr->ilv_depth)
		memcpy(r->ilv_path, pr->ilv_path, sizeof(int16_t) * (size_t)(1 + 2 * pr->ilv_depth));
	else
		r->ilv_path[0] = (int16_t)pr->npk;
	r->ilv_path[2 * r->ilv_depth - 1] = (int16_t)tag;
	r->ilv_path[2 * r->ilv_depth] = (int16_t)r->npk;
	snprintf(r->storage, sizeof r->storage, "%s", root->rel.storage);
	if (!ro->rel.ilv_next_tag) {
		/* The root's first interleaved table: its family for them. (Not
		 * transactional, but an empty family is harmless if we abort.) */
		kv_family_opts fam;
		kv_family_opts_default(&fam, SQL_ILV_FAMILY);
		kv_status st = kv_table_alter_family(s->e->kv, root->rel.storage, &fam, false);
		if (st != KV_OK && st != KV_EXISTS)
			sql_kv_error(st, "adding the interleaved family");
	}
	cat_txn_put(ct, root);
	if (parent != root)
		cat_txn_put(ct, parent);
	return true;
}

/* ---------------------------------------------------------------- commit-time invariants */

typedef struct inv_ctx {
	cat_snap *cs;
	const cat_obj *orphan;
} inv_ctx;

static int find_orphan(void *arg, const cat_obj *o)
{
	inv_ctx *c = arg;
	if (!o->rel.interleave_parent)
		return 0;
	const cat_obj *p = cat_get(c->cs, o->rel.interleave_parent);
	if (p && p->kind == CAT_REL && p->rel.relkind == CAT_RELKIND_TABLE)
		return 0;
	c->orphan = o;
	return 1;
}

void sql_ilv_check_catalog(cat_snap *before, cat_snap *after)
{
	inv_ctx c = {after, NULL};
	cat_foreach(after, CAT_REL, 0, find_orphan, &c);
	if (!c.orphan)
		return;
	const cat_obj *p = before ? cat_get(before, c.orphan->rel.interleave_parent) : NULL;
	const char *pname = p ? p->rel.name : "?";
	util_err *e = ty_errstart(UTIL_E_DEPENDENT_OBJECTS_STILL_EXIST, "cannot drop table %s because other objects depend on it",
				  pname);
	util_err_detail(e, "table %s is interleaved in table %s", c.orphan->rel.name, pname);
	util_err_hint(e, "Drop the interleaved tables first.");
	ty_errthrow();
}

typedef struct ref_ctx {
	const char *storage;
	bool found;
} ref_ctx;

static int find_ref(void *arg, const cat_obj *o)
{
	ref_ctx *c = arg;
	if (o->rel.storage[0] && !strcmp(o->rel.storage, c->storage)) {
		c->found = true;
		return 1;
	}
	return 0;
}

bool sql_ilv_storage_in_use(cat_snap *cs, const char *storage)
{
	ref_ctx c = {storage, false};
	cat_foreach(cs, CAT_REL, 0, find_ref, &c);
	return c.found;
}

bool sql_ilv_own_cell(const cat_rel *r, const uint8_t *q, size_t n)
{
	return sql_ilv_row_prefix(r, q, n) > 0;
}

size_t sql_ilv_row_prefix(const cat_rel *r, const uint8_t *q, size_t n)
{
	size_t pos = 0;
	for (int l = 1; l <= r->ilv_depth; l++) {
		uint16_t tag = (uint16_t)r->ilv_path[2 * l - 1];
		if (n - pos < 3 || q[pos] != SQL_ILV_SEP || q[pos + 1] != (uint8_t)(tag >> 8) ||
		    q[pos + 2] != (uint8_t)tag)
			return 0;
		pos += 3;
		int from = l == 1 ? r->ilv_path[0] : r->ilv_path[2 * (l - 1)], to = r->ilv_path[2 * l];
		for (int i = from; i < to; i++) {
			const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
			ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
			size_t k = ty_key_skip(&kc, q + pos, q + n);
			if (k == 0)
				return 0;
			pos += k;
		}
	}
	return n == pos || (n - pos == 2 && q[pos] != SQL_ILV_SEP) ? pos : 0;
}

void sql_ilv_plain_cells(const uint8_t *key, size_t klen, size_t qpre, kv_row *row)
{
	size_t n = 0;
	for (size_t i = 0; i < row->n; i++) {
		kv_cell c = row->cells[i];
		if (c.qualifier.len < qpre)
			continue;
		const uint8_t *q = c.qualifier.data + qpre;
		size_t ql = c.qualifier.len - qpre;
		if (ql != 0 && (ql != 2 || q[0] == SQL_ILV_SEP))
			continue; /* a descendant's cell */
		c.row = (kv_slice){key, klen};
		c.family = (kv_slice){(const uint8_t *)SQL_FAMILY, 1};
		c.qualifier = (kv_slice){q, ql};
		row->cells[n++] = c;
	}
	row->n = n;
}

kv_status sql_row_get_plain(kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen,
			    const kv_read_opts *ro, util_arena *a, kv_row *out)
{
	if (!r->ilv_depth)
		return kv_get(kv, key, klen, ro, a, out);
	kv_read_opts o = *ro;
	o.columns = NULL;
	o.ncolumns = 0;
	size_t qpre;
	kv_status st = sql_row_get(kv, r, key, klen, &o, a, out, &qpre);
	if (st != KV_OK)
		return st;
	uint8_t *k = util_arena_alloc(a, klen ? klen : 1);
	if (!k)
		return KV_NO_MEMORY;
	memcpy(k, key, klen);
	sql_ilv_plain_cells(k, klen, qpre, out);
	return KV_OK;
}

/* ---------------------------------------------------------------- writes */

/* The parent's key of an interleaved row: the parent's key columns are the
 * child's leading ones. */
static size_t parent_key(const cat_rel *r, const cat_rel *pr, const ty_datum *vals, util_buf *out)
{
	ty_datum *pv = ty_alloc(sizeof(ty_datum) * (size_t)(pr->ncols + 1));
	for (int i = 0; i < pr->ncols; i++)
		pv[i] = ty_null();
	for (int i = 0; i < pr->npk; i++)
		pv[pr->pk[i] - 1] = vals[r->pk[i] - 1];
	sql_row_key(pr, pv, out);
	return out->len;
}

static void key_text(const cat_rel *r, const cat_rel *pr, const ty_datum *vals, util_buf *cols, util_buf *v)
{
	for (int i = 0; i < pr->npk; i++) {
		const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
		if (i) {
			util_buf_puts(cols, ", ");
			util_buf_puts(v, ", ");
		}
		util_buf_puts(cols, c->name);
		ty_output(c->type, vals[c->attnum - 1], v);
	}
}

/* Does the row with this key exist (newest committed state, and this
 * transaction's own writes)? */
static bool row_exists(sql_txn *t, kv_table *kv, const cat_obj *rel, const uint8_t *key, size_t klen)
{
	sql_wrow *w = sql_txn_lookup(t, rel->oid, key, klen, false);
	if (w)
		return w->present;
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	kv_row row;
	size_t qpre;
	kv_status st = sql_row_get(kv, &rel->rel, key, klen, &ro, ty_get_arena(), &row, &qpre);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading a row");
	for (size_t i = 0; st == KV_OK && i < row.n; i++)
		if (row.cells[i].qualifier.len == qpre)
			return true; /* its sentinel */
	return false;
}

void sql_ilv_check_parent(sql_txn *t, const cat_snap *cs, kv_table *kv, const cat_obj *rel, const ty_datum *vals,
			  util_buf *last)
{
	const cat_rel *r = &rel->rel;
	const cat_obj *po = cat_get(cs, r->interleave_parent);
	if (!po)
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation with OID %u does not exist", r->interleave_parent);
	util_buf k = UTIL_BUF_INIT;
	parent_key(r, &po->rel, vals, &k);
	/* Rows of one statement usually come parent by parent: a parent found
	 * (and locked) for the previous row still is. */
	if (last && last->len == k.len && k.len && !memcmp(last->data, k.data, k.len)) {
		util_buf_free(&k);
		return;
	}
	uint8_t *key = ty_alloc(k.len);
	memcpy(key, k.data, k.len);
	size_t klen = k.len;
	util_buf_free(&k);
	/* As a foreign-key check: the parent cannot go away meanwhile. */
	sql_txn_lock_row(t, po->oid, key, klen, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE,
			 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	if (row_exists(t, kv, po, key, klen)) {
		if (last) {
			util_buf_reset(last);
			util_buf_append(last, key, klen);
		}
		return;
	}
	util_buf cols = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	key_text(r, &po->rel, vals, &cols, &v);
	util_err *e = ty_errstart(UTIL_E_FOREIGN_KEY_VIOLATION,
				  "insert or update on table \"%s\" violates its interleave in \"%s\"", r->name, po->rel.name);
	util_err_detail(e, "Key (%s)=(%s) is not present in table \"%s\".", cols.data, v.data, po->rel.name);
	util_err_field(e->table, r->name);
	util_buf_free(&cols);
	util_buf_free(&v);
	ty_errthrow();
}

typedef struct kids_ctx {
	cat_oid parent;
	const cat_obj *restrict_kid; /* a child table whose rows block the delete */
	int n;
	const cat_obj *kids[64];
} kids_ctx;

static int find_kids(void *arg, const cat_obj *o)
{
	kids_ctx *c = arg;
	if (o->rel.interleave_parent == c->parent && c->n < 64)
		c->kids[c->n++] = o;
	return 0;
}

/* Does table o, or a table interleaved below it, have indexes? */
static bool indexed_below(const cat_snap *cs, const cat_obj *o)
{
	if (o->rel.nindexes)
		return true;
	kids_ctx c = {o->oid, NULL, 0, {0}};
	cat_foreach((cat_snap *)cs, CAT_REL, 0, find_kids, &c);
	for (int i = 0; i < c.n; i++)
		if (indexed_below(cs, c.kids[i]))
			return true;
	return false;
}

/* The committed cells of child table kid's rows under the parent row
 * `key` (kv row length rl): one read of the kv row's qualifier range
 * pre = parent suffix || SEP || kid's tag (*pre, *pl set; in the arena). */
static kv_status kid_cells(kv_table *kv, const cat_obj *kid, const uint8_t *key, size_t klen, size_t rl,
			   kv_row *row, uint8_t **pre_out, size_t *pl_out)
{
	uint16_t tag = (uint16_t)kid->rel.ilv_path[2 * kid->rel.ilv_depth - 1];
	size_t pl = klen - rl + 3;
	uint8_t *pre = ty_alloc(pl);
	memcpy(pre, key + rl, klen - rl);
	pre[klen - rl] = SQL_ILV_SEP;
	pre[klen - rl + 1] = (uint8_t)(tag >> 8);
	pre[klen - rl + 2] = (uint8_t)tag;
	kv_filter *f = kv_filter_column_prefix(pre, pl);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	ro.filter = f;
	kv_column fam = {SQL_ILV_FAMILY, NULL, 0};
	ro.columns = &fam;
	ro.ncolumns = 1;
	kv_status st = kv_get(kv, key, rl, &ro, ty_get_arena(), row);
	kv_filter_free(f);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading interleaved rows");
	*pre_out = pre;
	*pl_out = pl;
	return st;
}

/* A cascading delete of the parent row `key` whose child table kid (or one
 * below it) has indexes: the kid's rows under it are deleted one by one
 * through the write buffer, so that the commit removes their index
 * entries (the kv row's DeleteFamily alone would leave them behind). */
static void cascade_rows(sql_txn *t, const cat_snap *cs, kv_table *kv, const cat_obj *kid, const uint8_t *key,
			 size_t klen, size_t rl)
{
	kv_row row;
	uint8_t *pre;
	size_t pl;
	kv_status st = kid_cells(kv, kid, key, klen, rl, &row, &pre, &pl);
	int nk = 0, cap = 16;
	uint8_t **keys = ty_alloc(sizeof(uint8_t *) * (size_t)cap);
	size_t *lens = ty_alloc(sizeof(size_t) * (size_t)cap);
	int nw = 0;
	sql_wrow **ws = sql_txn_table_writes(t, kid->oid, ty_get_arena(), &nw);
	size_t ncand = (st == KV_OK ? row.n : 0) + (size_t)nw;
	for (size_t j = 0; j < ncand; j++) {
		const uint8_t *ck;
		size_t cl;
		uint8_t *tmp = NULL;
		if (j < (st == KV_OK ? row.n : 0)) {
			const kv_slice q = row.cells[j].qualifier;
			size_t p = sql_ilv_row_prefix(&kid->rel, q.data, q.len);
			if (!p || p != q.len)
				continue; /* not a row's sentinel */
			tmp = ty_alloc(rl + p);
			memcpy(tmp, key, rl);
			memcpy(tmp + rl, q.data, p);
			ck = tmp;
			cl = rl + p;
		} else {
			const sql_wrow *w = ws[j - (st == KV_OK ? row.n : 0)];
			if (!w->present || w->keylen < rl + pl || memcmp(w->key, key, rl) ||
			    memcmp(w->key + rl, pre, pl))
				continue;
			ck = w->key;
			cl = w->keylen;
		}
		if (nk == cap) {
			cap *= 2;
			uint8_t **nkeys = ty_alloc(sizeof(uint8_t *) * (size_t)cap);
			size_t *nlens = ty_alloc(sizeof(size_t) * (size_t)cap);
			memcpy(nkeys, keys, sizeof(uint8_t *) * (size_t)nk);
			memcpy(nlens, lens, sizeof(size_t) * (size_t)nk);
			keys = nkeys;
			lens = nlens;
		}
		if (!tmp) {
			tmp = ty_alloc(cl);
			memcpy(tmp, ck, cl);
		}
		keys[nk] = tmp;
		lens[nk++] = cl;
	}
	for (int i = 0; i < nk; i++) {
		sql_wrow *w = sql_txn_lookup(t, kid->oid, keys[i], lens[i], false);
		if (w && !w->present)
			continue; /* deleted already */
		sql_txn_lock_row(t, kid->oid, keys[i], lens[i], PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
				 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
		if (kid->rel.ilv_nchildren) {
			ty_datum *kv_vals = ty_alloc(sizeof(ty_datum) * (size_t)(kid->rel.ncols + 1));
			for (int c = 0; c <= kid->rel.ncols; c++)
				kv_vals[c] = ty_null();
			sql_key_decode(&kid->rel, keys[i], lens[i], kv_vals);
			sql_ilv_check_delete(t, cs, kv, kid, keys[i], lens[i], kv_vals);
		}
		sql_txn_delete_row(t, kid, kv, keys[i], lens[i]);
	}
}

void sql_ilv_check_delete(sql_txn *t, const cat_snap *cs, kv_table *kv, const cat_obj *rel, const uint8_t *key,
			  size_t klen, const ty_datum *vals)
{
	kids_ctx c = {rel->oid, NULL, 0, {0}};
	cat_foreach((cat_snap *)cs, CAT_REL, 0, find_kids, &c);
	size_t rl = sql_ilv_rowlen(&rel->rel, key, klen);
	for (int i = 0; i < c.n; i++) {
		const cat_obj *kid = c.kids[i];
		if (kid->rel.ilv_cascade) {
			if (indexed_below(cs, kid))
				cascade_rows(t, cs, kv, kid, key, klen, rl);
			continue;
		}
		/* Any row of this child table under the parent's key? A committed
		 * one (its sentinel) counts unless this transaction deleted it. */
		kv_row row;
		uint8_t *pre;
		size_t pl;
		kv_status st = kid_cells(kv, kid, key, klen, rl, &row, &pre, &pl);
		bool any = false;
		for (size_t j = 0; st == KV_OK && j < row.n && !any; j++) {
			const kv_slice q = row.cells[j].qualifier;
			if (sql_ilv_row_prefix(&kid->rel, q.data, q.len) != q.len || !q.len)
				continue; /* a column or a descendant's cell */
			uint8_t *ck = ty_alloc(rl + q.len);
			memcpy(ck, key, rl);
			memcpy(ck + rl, q.data, q.len);
			sql_wrow *w = sql_txn_lookup(t, kid->oid, ck, rl + q.len, false);
			any = !w || w->present;
		}
		/* ... or written by this transaction (keys start with the prefix). */
		if (!any) {
			int nw;
			sql_wrow **ws = sql_txn_table_writes(t, kid->oid, ty_get_arena(), &nw);
			for (int k = 0; k < nw && !any; k++)
				any = ws[k]->present && ws[k]->keylen >= rl + pl && !memcmp(ws[k]->key, key, rl) &&
				      !memcmp(ws[k]->key + rl, pre, pl);
		}
		if (!any)
			continue;
		util_buf cols = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
		key_text(&rel->rel, &rel->rel, vals, &cols, &v);
		util_err *e = ty_errstart(UTIL_E_FOREIGN_KEY_VIOLATION,
					  "update or delete on table \"%s\" violates the interleave of \"%s\"", rel->rel.name,
					  kid->rel.name);
		util_err_detail(e, "Key (%s)=(%s) is still referenced from table \"%s\".", cols.data, v.data,
				kid->rel.name);
		util_err_field(e->table, rel->rel.name);
		util_buf_free(&cols);
		util_buf_free(&v);
		ty_errthrow();
	}
}
