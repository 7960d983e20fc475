/*
 * serial.c — the stored form of catalog objects: a kind byte, then fields
 * as (tag varint, length varint, bytes). Integers are varints inside their
 * field; nested records (columns, constraints, index keys ...) are fields
 * holding their own field list. Unknown tags are skipped, so newer
 * versions can add fields. Format: docs/catalog-format.md.
 */
#include <stdlib.h>
#include <string.h>

#include "cat_int.h"

/* ---- writer ---- */

static void put_bytes(util_buf *b, unsigned tag, const void *p, size_t n)
{
	util_buf_put_varint(b, tag);
	util_buf_put_varint(b, n);
	util_buf_append(b, p, n);
}

static void put_u(util_buf *b, unsigned tag, uint64_t v)
{
	uint8_t t[10];
	size_t n = util_varint_put(t, v);
	put_bytes(b, tag, t, n);
}

static void put_i(util_buf *b, unsigned tag, int64_t v) { put_u(b, tag, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

static void put_s(util_buf *b, unsigned tag, const char *s)
{
	if (s)
		put_bytes(b, tag, s, strlen(s));
}

static void put_sub(util_buf *b, unsigned tag, util_buf *sub)
{
	put_bytes(b, tag, sub->data, sub->len);
	util_buf_reset(sub);
}

static void put_i16s(util_buf *b, unsigned tag, const int16_t *a, int n)
{
	util_buf sub = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++)
		util_buf_put_varint(&sub, ((uint64_t)(int64_t)a[i] << 1) ^ (uint64_t)((int64_t)a[i] >> 63));
	put_bytes(b, tag, sub.data, sub.len);
	util_buf_free(&sub);
}

static void put_u32s(util_buf *b, unsigned tag, const uint32_t *a, int n)
{
	util_buf sub = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++)
		util_buf_put_varint(&sub, a[i]);
	put_bytes(b, tag, sub.data, sub.len);
	util_buf_free(&sub);
}

static void put_acl(util_buf *b, unsigned tag, const cat_acl *acl, int n)
{
	util_buf sub = UTIL_BUF_INIT;
	for (int i = 0; i < n; i++) {
		util_buf_put_varint(&sub, acl[i].grantee);
		util_buf_put_varint(&sub, acl[i].grantor);
		util_buf_put_varint(&sub, acl[i].privs);
		util_buf_put_varint(&sub, acl[i].grant_option);
	}
	put_bytes(b, tag, sub.data, sub.len);
	util_buf_free(&sub);
}

/* ---- reader ---- */

typedef struct rd {
	const uint8_t *p, *end;
	bool bad;
} rd;

/* Next field: returns false at the end or on malformed input (r->bad). */
static bool next_field(rd *r, unsigned *tag, rd *val)
{
	if (r->p >= r->end)
		return false;
	uint64_t t, n;
	size_t k = util_varint_get(r->p, r->end, &t);
	if (!k)
		goto bad;
	r->p += k;
	k = util_varint_get(r->p, r->end, &n);
	if (!k || n > (uint64_t)(r->end - r->p - (ptrdiff_t)k))
		goto bad;
	r->p += k;
	*tag = (unsigned)t;
	val->p = r->p;
	val->end = r->p + n;
	val->bad = false;
	r->p += n;
	return true;
bad:
	r->bad = true;
	return false;
}

static uint64_t get_u(rd *v)
{
	uint64_t x = 0;
	if (!util_varint_get(v->p, v->end, &x))
		v->bad = true;
	return x;
}

static int64_t get_i(rd *v)
{
	uint64_t u = get_u(v);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static char *get_s(cat_obj *o, rd *v)
{
	size_t n = (size_t)(v->end - v->p);
	char *s = cat_obj_alloc(o, n + 1);
	memcpy(s, v->p, n);
	return s;
}

static void get_name(char *dst, rd *v)
{
	size_t n = (size_t)(v->end - v->p);
	if (n >= CAT_NAME_MAX)
		n = CAT_NAME_MAX - 1;
	memcpy(dst, v->p, n);
	dst[n] = '\0';
}

/* Reads a list of varints; returns the count, allocates *out. */
static int get_list(cat_obj *o, rd *v, int64_t **out, bool zigzag)
{
	int n = 0;
	const uint8_t *p = v->p;
	uint64_t x;
	size_t k;
	while (p < v->end && (k = util_varint_get(p, v->end, &x)))
		p += k, n++;
	if (p != v->end) {
		v->bad = true;
		return 0;
	}
	int64_t *a = cat_obj_alloc(o, sizeof(int64_t) * (size_t)(n ? n : 1));
	p = v->p;
	for (int i = 0; i < n; i++) {
		p += util_varint_get(p, v->end, &x);
		a[i] = zigzag ? (int64_t)(x >> 1) ^ -(int64_t)(x & 1) : (int64_t)x;
	}
	*out = a;
	return n;
}

static int16_t *get_i16s(cat_obj *o, rd *v, int *n)
{
	int64_t *a;
	*n = get_list(o, v, &a, true);
	int16_t *r = cat_obj_alloc(o, sizeof(int16_t) * (size_t)(*n ? *n : 1));
	for (int i = 0; i < *n; i++)
		r[i] = (int16_t)a[i];
	return r;
}

static uint32_t *get_u32s(cat_obj *o, rd *v, int *n)
{
	int64_t *a;
	*n = get_list(o, v, &a, false);
	uint32_t *r = cat_obj_alloc(o, sizeof(uint32_t) * (size_t)(*n ? *n : 1));
	for (int i = 0; i < *n; i++)
		r[i] = (uint32_t)a[i];
	return r;
}

static cat_acl *get_acl(cat_obj *o, rd *v, int *n)
{
	int64_t *a;
	int k = get_list(o, v, &a, false);
	*n = k / 4;
	cat_acl *acl = cat_obj_alloc(o, sizeof(cat_acl) * (size_t)(*n ? *n : 1));
	for (int i = 0; i < *n; i++)
		acl[i] = (cat_acl){(cat_oid)a[4 * i], (cat_oid)a[4 * i + 1], (uint32_t)a[4 * i + 2],
				   (uint32_t)a[4 * i + 3]};
	return acl;
}

/* Appends one element to an object-arena array (catalog arrays are small). */
static void *grow(cat_obj *o, void *arr, int n, size_t elem)
{
	void *na = cat_obj_alloc(o, elem * (size_t)(n + 1));
	if (n)
		memcpy(na, arr, elem * (size_t)n);
	return na;
}

/* ---- field tags ---- */

enum {
	/* common */
	F_NAME = 1, F_OWNER, F_COMMENT, F_ACL,
	/* database */
	F_DB_ALLOWCONN = 10, F_DB_CONNLIMIT,
	/* role */
	F_ROLE_FLAGS = 20, F_ROLE_CONNLIMIT, F_ROLE_PASSWORD, F_ROLE_VALID_UNTIL, F_ROLE_MEMBER_OF,
	F_ROLE_MEMBER_ADMIN, F_ROLE_DEFACL,
	/* rel */
	F_REL_KIND = 30, F_REL_SCHEMA, F_REL_STORAGE, F_REL_COL, F_REL_NEXT_COL_ID, F_REL_PK, F_REL_PK_DESC,
	F_REL_CON, F_REL_INDEXES, F_REL_OPT, F_REL_VIEW_SQL, F_REL_INDEX, F_REL_SEQ, F_REL_INTERLEAVE,
	F_REL_SALT, F_REL_STATS_ROWS, F_REL_ILV_ROOT, F_REL_ILV_PATH, F_REL_ILV_CASCADE, F_REL_ILV_NCHILDREN,
	F_REL_ILV_NEXT_TAG, F_REL_PACKED,
	/* schema */
	F_SCHEMA_TEMP_OWNER = 60,
	/* column */
	C_NAME = 1, C_ATTNUM, C_COLID, C_TYPE, C_TYPMOD, C_FLAGS, C_IDENTITY, C_GENERATED, C_DEFAULT, C_COMMENT,
	C_ACL,
	/* default ACL (role) */
	D_SCHEMA = 1, D_OBJTYPE, D_ACL,
	/* constraint */
	K_OID = 1, K_NAME, K_TYPE, K_COLS, K_CHECK, K_FLAGS, K_INDEX, K_REFTABLE, K_REFCOLS, K_ONDEL, K_ONUPD,
	K_MATCH, K_COMMENT,
	/* index */
	I_TABLE = 1, I_FLAGS, I_KEY, I_INCLUDE, I_PRED, I_STATE, I_PROGRESS, I_VALID_FROM,
	IK_ATTNUM = 1, IK_EXPR, IK_FLAGS,
	/* sequence */
	S_TYPE = 1, S_START, S_INC, S_MIN, S_MAX, S_CACHE, S_CYCLE, S_OWNTAB, S_OWNCOL,
	/* option */
	O_NAME = 1, O_VALUE
};

static void enc_column(util_buf *b, const cat_column *c)
{
	put_s(b, C_NAME, c->name);
	put_i(b, C_ATTNUM, c->attnum);
	put_u(b, C_COLID, c->col_id);
	put_u(b, C_TYPE, c->type);
	put_i(b, C_TYPMOD, c->typmod);
	put_u(b, C_FLAGS, (c->notnull ? 1u : 0) | (c->dropped ? 2u : 0));
	put_u(b, C_IDENTITY, (uint8_t)c->identity);
	put_u(b, C_GENERATED, (uint8_t)c->generated);
	put_s(b, C_DEFAULT, c->default_sql);
	put_s(b, C_COMMENT, c->comment);
	if (c->nacl)
		put_acl(b, C_ACL, c->acl, c->nacl);
}

static void dec_column(cat_obj *o, rd *r, cat_column *c)
{
	unsigned tag;
	rd v;
	c->typmod = -1;
	while (next_field(r, &tag, &v)) {
		switch (tag) {
		case C_NAME: get_name(c->name, &v); break;
		case C_ATTNUM: c->attnum = (int16_t)get_i(&v); break;
		case C_COLID: c->col_id = (uint16_t)get_u(&v); break;
		case C_TYPE: c->type = (ty_oid)get_u(&v); break;
		case C_TYPMOD: c->typmod = (int32_t)get_i(&v); break;
		case C_FLAGS: {
			uint64_t f = get_u(&v);
			c->notnull = f & 1;
			c->dropped = (f & 2) != 0;
			break;
		}
		case C_IDENTITY: c->identity = (char)get_u(&v); break;
		case C_GENERATED: c->generated = (char)get_u(&v); break;
		case C_DEFAULT: c->default_sql = get_s(o, &v); break;
		case C_COMMENT: c->comment = get_s(o, &v); break;
		case C_ACL: c->acl = get_acl(o, &v, &c->nacl); break;
		}
		r->bad |= v.bad;
	}
}

static void enc_constraint(util_buf *b, const cat_constraint *c)
{
	put_u(b, K_OID, c->oid);
	put_s(b, K_NAME, c->name);
	put_u(b, K_TYPE, (uint8_t)c->type);
	put_i16s(b, K_COLS, c->cols, c->ncols);
	put_s(b, K_CHECK, c->check_sql);
	put_u(b, K_FLAGS, (c->no_inherit ? 1u : 0) | (c->deferrable ? 2u : 0) | (c->deferred ? 4u : 0) |
				  (c->validated ? 8u : 0));
	put_u(b, K_INDEX, c->index_oid);
	put_u(b, K_REFTABLE, c->ref_table);
	if (c->ref_cols)
		put_i16s(b, K_REFCOLS, c->ref_cols, c->ncols);
	put_u(b, K_ONDEL, (uint8_t)c->on_delete);
	put_u(b, K_ONUPD, (uint8_t)c->on_update);
	put_u(b, K_MATCH, (uint8_t)c->match);
	put_s(b, K_COMMENT, c->comment);
}

static void dec_constraint(cat_obj *o, rd *r, cat_constraint *c)
{
	unsigned tag;
	rd v;
	int n;
	while (next_field(r, &tag, &v)) {
		switch (tag) {
		case K_OID: c->oid = (cat_oid)get_u(&v); break;
		case K_NAME: get_name(c->name, &v); break;
		case K_TYPE: c->type = (char)get_u(&v); break;
		case K_COLS: c->cols = get_i16s(o, &v, &c->ncols); break;
		case K_CHECK: c->check_sql = get_s(o, &v); break;
		case K_FLAGS: {
			uint64_t f = get_u(&v);
			c->no_inherit = f & 1;
			c->deferrable = (f & 2) != 0;
			c->deferred = (f & 4) != 0;
			c->validated = (f & 8) != 0;
			break;
		}
		case K_INDEX: c->index_oid = (cat_oid)get_u(&v); break;
		case K_REFTABLE: c->ref_table = (cat_oid)get_u(&v); break;
		case K_REFCOLS: c->ref_cols = get_i16s(o, &v, &n); break;
		case K_ONDEL: c->on_delete = (char)get_u(&v); break;
		case K_ONUPD: c->on_update = (char)get_u(&v); break;
		case K_MATCH: c->match = (char)get_u(&v); break;
		case K_COMMENT: c->comment = get_s(o, &v); break;
		}
		r->bad |= v.bad;
	}
}

static void enc_index(util_buf *b, const cat_index_info *ix)
{
	util_buf sub = UTIL_BUF_INIT;
	put_u(b, I_TABLE, ix->table);
	put_u(b, I_FLAGS, (ix->unique ? 1u : 0) | (ix->primary ? 2u : 0) | (ix->nulls_not_distinct ? 4u : 0));
	for (int i = 0; i < ix->nkeys; i++) {
		put_i(&sub, IK_ATTNUM, ix->keys[i].attnum);
		put_s(&sub, IK_EXPR, ix->keys[i].expr_sql);
		put_u(&sub, IK_FLAGS, (ix->keys[i].desc ? 1u : 0) | (ix->keys[i].nulls_first ? 2u : 0));
		put_sub(b, I_KEY, &sub);
	}
	put_i16s(b, I_INCLUDE, ix->include, ix->ninclude);
	put_s(b, I_PRED, ix->predicate_sql);
	put_u(b, I_STATE, ix->state);
	put_u(b, I_PROGRESS, ix->backfill_progress);
	put_u(b, I_VALID_FROM, ix->valid_from);
	util_buf_free(&sub);
}

static void dec_index(cat_obj *o, rd *r, cat_index_info *ix)
{
	unsigned tag;
	rd v, kv;
	while (next_field(r, &tag, &v)) {
		switch (tag) {
		case I_TABLE: ix->table = (cat_oid)get_u(&v); break;
		case I_FLAGS: {
			uint64_t f = get_u(&v);
			ix->unique = f & 1;
			ix->primary = (f & 2) != 0;
			ix->nulls_not_distinct = (f & 4) != 0;
			break;
		}
		case I_KEY: {
			ix->keys = grow(o, ix->keys, ix->nkeys, sizeof *ix->keys);
			cat_index_col *k = &ix->keys[ix->nkeys++];
			unsigned t2;
			while (next_field(&v, &t2, &kv)) {
				if (t2 == IK_ATTNUM)
					k->attnum = (int16_t)get_i(&kv);
				else if (t2 == IK_EXPR)
					k->expr_sql = get_s(o, &kv);
				else if (t2 == IK_FLAGS) {
					uint64_t f = get_u(&kv);
					k->desc = f & 1;
					k->nulls_first = (f & 2) != 0;
				}
				v.bad |= kv.bad;
			}
			break;
		}
		case I_INCLUDE: ix->include = get_i16s(o, &v, &ix->ninclude); break;
		case I_PRED: ix->predicate_sql = get_s(o, &v); break;
		case I_STATE: ix->state = (cat_index_state)get_u(&v); break;
		case I_PROGRESS: ix->backfill_progress = get_u(&v); break;
		case I_VALID_FROM: ix->valid_from = get_u(&v); break;
		}
		r->bad |= v.bad;
	}
}

static void enc_seq(util_buf *b, const cat_sequence_info *s)
{
	put_u(b, S_TYPE, s->type);
	put_i(b, S_START, s->start);
	put_i(b, S_INC, s->increment);
	put_i(b, S_MIN, s->min);
	put_i(b, S_MAX, s->max);
	put_i(b, S_CACHE, s->cache);
	put_u(b, S_CYCLE, s->cycle);
	put_u(b, S_OWNTAB, s->owned_by_table);
	put_i(b, S_OWNCOL, s->owned_by_col);
}

static void dec_seq(rd *r, cat_sequence_info *s)
{
	unsigned tag;
	rd v;
	while (next_field(r, &tag, &v)) {
		switch (tag) {
		case S_TYPE: s->type = (ty_oid)get_u(&v); break;
		case S_START: s->start = get_i(&v); break;
		case S_INC: s->increment = get_i(&v); break;
		case S_MIN: s->min = get_i(&v); break;
		case S_MAX: s->max = get_i(&v); break;
		case S_CACHE: s->cache = get_i(&v); break;
		case S_CYCLE: s->cycle = get_u(&v) != 0; break;
		case S_OWNTAB: s->owned_by_table = (cat_oid)get_u(&v); break;
		case S_OWNCOL: s->owned_by_col = (int16_t)get_i(&v); break;
		}
		r->bad |= v.bad;
	}
}

void cat_obj_encode(const cat_obj *o, util_buf *b)
{
	util_buf sub = UTIL_BUF_INIT;
	util_buf_put_u8(b, (uint8_t)o->kind);
	util_buf_put_varint(b, o->database);
	switch (o->kind) {
	case CAT_DATABASE:
		put_s(b, F_NAME, o->db.name);
		put_u(b, F_OWNER, o->db.owner);
		put_s(b, F_COMMENT, o->db.comment);
		put_u(b, F_DB_ALLOWCONN, o->db.allow_connections);
		put_i(b, F_DB_CONNLIMIT, o->db.conn_limit);
		break;
	case CAT_SCHEMA:
		put_s(b, F_NAME, o->schema.name);
		put_u(b, F_OWNER, o->schema.owner);
		put_s(b, F_COMMENT, o->schema.comment);
		put_acl(b, F_ACL, o->schema.acl, o->schema.nacl);
		if (o->schema.temp_owner)
			put_u(b, F_SCHEMA_TEMP_OWNER, o->schema.temp_owner);
		break;
	case CAT_ROLE: {
		const cat_role *r = &o->role;
		put_s(b, F_NAME, r->name);
		put_s(b, F_COMMENT, r->comment);
		put_u(b, F_ROLE_FLAGS, (r->superuser ? 1u : 0) | (r->inherit ? 2u : 0) | (r->createrole ? 4u : 0) |
					       (r->createdb ? 8u : 0) | (r->login ? 16u : 0) |
					       (r->replication ? 32u : 0) | (r->bypassrls ? 64u : 0));
		put_i(b, F_ROLE_CONNLIMIT, r->conn_limit);
		put_s(b, F_ROLE_PASSWORD, r->password);
		put_i(b, F_ROLE_VALID_UNTIL, r->valid_until);
		put_u32s(b, F_ROLE_MEMBER_OF, r->member_of, r->nmembers_of);
		if (r->member_admin) {
			uint32_t *adm = util_xmalloc(sizeof(uint32_t) * (size_t)(r->nmembers_of ? r->nmembers_of : 1));
			for (int i = 0; i < r->nmembers_of; i++)
				adm[i] = r->member_admin[i];
			put_u32s(b, F_ROLE_MEMBER_ADMIN, adm, r->nmembers_of);
			free(adm);
		}
		for (int i = 0; i < r->ndefacl; i++) {
			util_buf d = UTIL_BUF_INIT;
			put_u(&d, D_SCHEMA, r->defacl[i].schema);
			put_u(&d, D_OBJTYPE, (uint8_t)r->defacl[i].objtype);
			put_acl(&d, D_ACL, r->defacl[i].acl, r->defacl[i].nacl);
			put_sub(b, F_ROLE_DEFACL, &d);
			util_buf_free(&d);
		}
		break;
	}
	case CAT_REL: {
		const cat_rel *r = &o->rel;
		put_s(b, F_NAME, r->name);
		put_u(b, F_OWNER, r->owner);
		put_s(b, F_COMMENT, r->comment);
		put_acl(b, F_ACL, r->acl, r->nacl);
		put_u(b, F_REL_KIND, (uint8_t)r->relkind);
		put_u(b, F_REL_SCHEMA, r->schema);
		put_s(b, F_REL_STORAGE, r->storage);
		for (int i = 0; i < r->ncols; i++) {
			enc_column(&sub, &r->cols[i]);
			put_sub(b, F_REL_COL, &sub);
		}
		put_u(b, F_REL_NEXT_COL_ID, r->next_col_id);
		put_i16s(b, F_REL_PK, r->pk, r->npk);
		if (r->npk) {
			int16_t d[64];
			for (int i = 0; i < r->npk && i < 64; i++)
				d[i] = r->pk_desc ? r->pk_desc[i] : 0;
			put_i16s(b, F_REL_PK_DESC, d, r->npk < 64 ? r->npk : 64);
		}
		for (int i = 0; i < r->ncons; i++) {
			enc_constraint(&sub, &r->cons[i]);
			put_sub(b, F_REL_CON, &sub);
		}
		put_u32s(b, F_REL_INDEXES, r->indexes, r->nindexes);
		for (int i = 0; i < r->nopts; i++) {
			put_s(&sub, O_NAME, r->opts[i].name);
			put_s(&sub, O_VALUE, r->opts[i].value);
			put_sub(b, F_REL_OPT, &sub);
		}
		put_s(b, F_REL_VIEW_SQL, r->view_sql);
		if (r->index) {
			enc_index(&sub, r->index);
			put_sub(b, F_REL_INDEX, &sub);
		}
		if (r->seq) {
			enc_seq(&sub, r->seq);
			put_sub(b, F_REL_SEQ, &sub);
		}
		put_u(b, F_REL_INTERLEAVE, r->interleave_parent);
		put_u(b, F_REL_SALT, (uint64_t)r->salt_buckets);
		put_u(b, F_REL_STATS_ROWS, r->stats_rows);
		if (r->ilv_depth) {
			put_u(b, F_REL_ILV_ROOT, r->ilv_root);
			put_i16s(b, F_REL_ILV_PATH, r->ilv_path, 1 + 2 * r->ilv_depth);
			put_u(b, F_REL_ILV_CASCADE, r->ilv_cascade);
		}
		if (r->ilv_nchildren)
			put_u(b, F_REL_ILV_NCHILDREN, (uint64_t)r->ilv_nchildren);
		if (r->ilv_next_tag)
			put_u(b, F_REL_ILV_NEXT_TAG, r->ilv_next_tag);
		if (r->packed) /* (absent: the cells format every older table has) */
			put_u(b, F_REL_PACKED, 1);
		break;
	}
	}
	util_buf_free(&sub);
}

cat_obj *cat_obj_decode(cat_oid oid, const uint8_t *p, size_t n)
{
	if (n < 2 || p[0] < CAT_DATABASE || p[0] > CAT_REL)
		return NULL;
	uint64_t db;
	size_t k = util_varint_get(p + 1, p + n, &db);
	if (!k)
		return NULL;
	cat_obj *o = cat_obj_new((cat_kind)p[0], oid, (cat_oid)db);
	rd r = {p + 1 + k, p + n, false}, v, sv;
	unsigned tag;
	int cnt, admin_n = 0;
	while (next_field(&r, &tag, &v)) {
		switch (o->kind) {
		case CAT_DATABASE:
			if (tag == F_NAME) get_name(o->db.name, &v);
			else if (tag == F_OWNER) o->db.owner = (cat_oid)get_u(&v);
			else if (tag == F_COMMENT) o->db.comment = get_s(o, &v);
			else if (tag == F_DB_ALLOWCONN) o->db.allow_connections = get_u(&v) != 0;
			else if (tag == F_DB_CONNLIMIT) o->db.conn_limit = (int)get_i(&v);
			break;
		case CAT_SCHEMA:
			if (tag == F_NAME) get_name(o->schema.name, &v);
			else if (tag == F_OWNER) o->schema.owner = (cat_oid)get_u(&v);
			else if (tag == F_COMMENT) o->schema.comment = get_s(o, &v);
			else if (tag == F_ACL) o->schema.acl = get_acl(o, &v, &o->schema.nacl);
			else if (tag == F_SCHEMA_TEMP_OWNER) o->schema.temp_owner = get_u(&v);
			break;
		case CAT_ROLE: {
			cat_role *ro = &o->role;
			if (tag == F_NAME) get_name(ro->name, &v);
			else if (tag == F_COMMENT) ro->comment = get_s(o, &v);
			else if (tag == F_ROLE_FLAGS) {
				uint64_t f = get_u(&v);
				ro->superuser = f & 1;
				ro->inherit = (f & 2) != 0;
				ro->createrole = (f & 4) != 0;
				ro->createdb = (f & 8) != 0;
				ro->login = (f & 16) != 0;
				ro->replication = (f & 32) != 0;
				ro->bypassrls = (f & 64) != 0;
			} else if (tag == F_ROLE_CONNLIMIT) ro->conn_limit = (int)get_i(&v);
			else if (tag == F_ROLE_PASSWORD) ro->password = get_s(o, &v);
			else if (tag == F_ROLE_VALID_UNTIL) ro->valid_until = get_i(&v);
			else if (tag == F_ROLE_MEMBER_OF) ro->member_of = get_u32s(o, &v, &ro->nmembers_of);
			else if (tag == F_ROLE_MEMBER_ADMIN) {
				int na;
				uint32_t *adm = get_u32s(o, &v, &na);
				/* Sized for any member_of length; fixed up below. */
				ro->member_admin = cat_obj_alloc(o, sizeof(bool) * (size_t)(na + 1));
				for (int i = 0; i < na; i++)
					ro->member_admin[i] = adm[i] != 0;
				admin_n = na;
			} else if (tag == F_ROLE_DEFACL) {
				cat_defacl d = {0, 0, 0, NULL};
				unsigned t2;
				rd v2;
				while (next_field(&v, &t2, &v2)) {
					if (t2 == D_SCHEMA) d.schema = (cat_oid)get_u(&v2);
					else if (t2 == D_OBJTYPE) d.objtype = (char)get_u(&v2);
					else if (t2 == D_ACL) d.acl = get_acl(o, &v2, &d.nacl);
					v.bad |= v2.bad;
				}
				ro->defacl = grow(o, ro->defacl, ro->ndefacl, sizeof *ro->defacl);
				ro->defacl[ro->ndefacl++] = d;
			}
			break;
		}
		case CAT_REL: {
			cat_rel *rl = &o->rel;
			switch (tag) {
			case F_NAME: get_name(rl->name, &v); break;
			case F_OWNER: rl->owner = (cat_oid)get_u(&v); break;
			case F_COMMENT: rl->comment = get_s(o, &v); break;
			case F_ACL: rl->acl = get_acl(o, &v, &rl->nacl); break;
			case F_REL_KIND: rl->relkind = (char)get_u(&v); break;
			case F_REL_SCHEMA: rl->schema = (cat_oid)get_u(&v); break;
			case F_REL_STORAGE: get_name(rl->storage, &v); break;
			case F_REL_COL:
				rl->cols = grow(o, rl->cols, rl->ncols, sizeof *rl->cols);
				memset(&rl->cols[rl->ncols], 0, sizeof *rl->cols);
				dec_column(o, &v, &rl->cols[rl->ncols++]);
				break;
			case F_REL_NEXT_COL_ID: rl->next_col_id = (uint16_t)get_u(&v); break;
			case F_REL_PK: rl->pk = get_i16s(o, &v, &rl->npk); break;
			case F_REL_PK_DESC: {
				int16_t *d = get_i16s(o, &v, &cnt);
				rl->pk_desc = cat_obj_alloc(o, sizeof(bool) * (size_t)(cnt ? cnt : 1));
				for (int i = 0; i < cnt; i++)
					rl->pk_desc[i] = d[i] != 0;
				break;
			}
			case F_REL_CON:
				rl->cons = grow(o, rl->cons, rl->ncons, sizeof *rl->cons);
				memset(&rl->cons[rl->ncons], 0, sizeof *rl->cons);
				dec_constraint(o, &v, &rl->cons[rl->ncons++]);
				break;
			case F_REL_INDEXES: rl->indexes = get_u32s(o, &v, &rl->nindexes); break;
			case F_REL_OPT: {
				rl->opts = grow(o, rl->opts, rl->nopts, sizeof *rl->opts);
				cat_reloption *op = &rl->opts[rl->nopts++];
				op->name = op->value = NULL;
				unsigned t2;
				while (next_field(&v, &t2, &sv)) {
					if (t2 == O_NAME)
						op->name = get_s(o, &sv);
					else if (t2 == O_VALUE)
						op->value = get_s(o, &sv);
				}
				if (!op->name || !op->value)
					v.bad = true;
				break;
			}
			case F_REL_VIEW_SQL: rl->view_sql = get_s(o, &v); break;
			case F_REL_INDEX:
				rl->index = cat_obj_alloc(o, sizeof *rl->index);
				dec_index(o, &v, rl->index);
				break;
			case F_REL_SEQ:
				rl->seq = cat_obj_alloc(o, sizeof *rl->seq);
				dec_seq(&v, rl->seq);
				break;
			case F_REL_INTERLEAVE: rl->interleave_parent = (cat_oid)get_u(&v); break;
			case F_REL_SALT: rl->salt_buckets = (int)get_u(&v); break;
			case F_REL_STATS_ROWS: rl->stats_rows = get_u(&v); break;
			case F_REL_ILV_ROOT: rl->ilv_root = (cat_oid)get_u(&v); break;
			case F_REL_ILV_PATH: {
				int np = 0;
				rl->ilv_path = get_i16s(o, &v, &np);
				rl->ilv_depth = np > 0 ? (np - 1) / 2 : 0;
				break;
			}
			case F_REL_ILV_CASCADE: rl->ilv_cascade = get_u(&v) != 0; break;
			case F_REL_ILV_NCHILDREN: rl->ilv_nchildren = (int)get_u(&v); break;
			case F_REL_ILV_NEXT_TAG: rl->ilv_next_tag = (uint16_t)get_u(&v); break;
			case F_REL_PACKED: rl->packed = get_u(&v) != 0; break;
			}
			break;
		}
		}
		if (v.bad)
			r.bad = true;
	}
	if (r.bad) {
		cat_obj_free(o);
		return NULL;
	}
	/* One admin flag per membership, whatever the stored count was. */
	if (o->kind == CAT_ROLE && o->role.member_admin && admin_n < o->role.nmembers_of) {
		bool *a = cat_obj_alloc(o, sizeof(bool) * (size_t)o->role.nmembers_of);
		memset(a, 0, sizeof(bool) * (size_t)o->role.nmembers_of);
		memcpy(a, o->role.member_admin, sizeof(bool) * (size_t)admin_n);
		o->role.member_admin = a;
	}
	return o;
}
