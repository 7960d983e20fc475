/*
 * rowcodec.c — how a SQL row sits on the store: row key = order-preserving
 * encoding of the primary key (types/keys.c) or a hidden 8-byte row id; one
 * cell per non-NULL column in family "d" with qualifier = column id (2 bytes
 * big-endian); an empty-qualifier sentinel cell marks the row as existing.
 * Primary-key columns whose key encoding is lossless are not stored again
 * as cells: they are decoded from the row key. Format: docs/row-format.md.
 */
#include <string.h>

#include "sql_int.h"

/* The row format's widths (docs/row-format.md): a switch, as this runs for
 * every stored value. regcollation, regconfig and regdictionary are not
 * listed (8 bytes, as they have been stored since they were added). */
static int byval_len(ty_oid type)
{
	switch (type) {
	case TY_BOOL:
	case TY_CHAR:
		return 1;
	case TY_INT2:
		return 2;
	case TY_INT4:
	case TY_DATE:
	case TY_OID:
	case TY_REGCLASS:
	case TY_REGTYPE:
	case TY_REGPROC:
	case TY_REGPROCEDURE:
	case TY_REGOPER:
	case TY_REGOPERATOR:
	case TY_REGNAMESPACE:
	case TY_REGROLE:
	case TY_XID:
	case TY_CID:
		return 4;
	case TY_FLOAT4:
		return -4; /* stored as IEEE single */
	case TY_FLOAT8:
		return -8;
	default:
		return 8;
	}
}

void sql_value_encode(ty_oid type, ty_datum v, util_buf *out)
{
	const ty_type *t = ty_type_get(type);
	if (t && !t->byval) {
		util_buf_append(out, v.p, v.len);
		return;
	}
	uint8_t b[8];
	int n = byval_len(type);
	if (n == -4) {
		float f = (float)v.f;
		uint32_t u;
		memcpy(&u, &f, 4);
		util_put_be32(b, u);
		util_buf_append(out, b, 4);
	} else if (n == -8) {
		uint64_t u;
		memcpy(&u, &v.f, 8);
		util_put_be64(b, u);
		util_buf_append(out, b, 8);
	} else if (n == 1) {
		b[0] = (uint8_t)v.i;
		util_buf_append(out, b, 1);
	} else if (n == 2) {
		util_put_be16(b, (uint16_t)v.i);
		util_buf_append(out, b, 2);
	} else if (n == 4) {
		util_put_be32(b, (uint32_t)v.i);
		util_buf_append(out, b, 4);
	} else {
		util_put_be64(b, (uint64_t)v.i);
		util_buf_append(out, b, 8);
	}
}

ty_datum sql_value_decode(ty_oid type, const uint8_t *p, size_t n)
{
	return sql_value_decode_t(ty_type_get(type), type, p, n);
}

ty_datum sql_value_decode_t(const ty_type *t, ty_oid type, const uint8_t *p, size_t n)
{
	if (t && !t->byval) {
		void *c = ty_alloc(n ? n : 1);
		memcpy(c, p, n);
		return ty_bytes(c, n);
	}
	int len = byval_len(type);
	size_t want = (size_t)(len < 0 ? -len : len);
	if (n != want)
		ty_error(UTIL_E_DATA_CORRUPTED, "stored value of type %s has length %zu, expected %zu",
			 t ? t->name : "?", n, want);
	switch (len) {
	case -4: {
		uint32_t u = util_get_be32(p);
		float f;
		memcpy(&f, &u, 4);
		return ty_float(f);
	}
	case -8: {
		uint64_t u = util_get_be64(p);
		double d;
		memcpy(&d, &u, 8);
		return ty_float(d);
	}
	case 1:
		return ty_int(type == TY_BOOL ? p[0] != 0 : (int8_t)p[0]);
	case 2:
		return ty_int((int16_t)util_get_be16(p));
	case 4:
		if (type == TY_INT4 || type == TY_DATE)
			return ty_int((int32_t)util_get_be32(p));
		return ty_int(util_get_be32(p));
	default:
		return ty_int((int64_t)util_get_be64(p));
	}
}

/* A hidden row id: wall-clock µs shifted left with a counter, so ids stay
 * unique across restarts and increase over time. */
static _Atomic uint64_t last_rowid;

/* A thread takes ROWID_BLOCK ids with one compare-and-swap (a locked
 * instruction per row was ~2% of a bulk load's connection thread) and hands
 * them out while no other thread has taken one since: last_rowid still the
 * block's end. Once another thread has, the rest of the block is dropped, so
 * an id is still above every id handed out before the call started, on any
 * thread. The clock is read once per block; a block leads the clock by at
 * most ROWID_BLOCK / 16 µs, less than a restart takes. */
#define ROWID_BLOCK 16
static _Thread_local uint64_t rowid_next, rowid_end; /* this thread's block: (next, end] */

static uint64_t new_rowid(void)
{
	if (rowid_next < rowid_end && atomic_load_explicit(&last_rowid, memory_order_acquire) == rowid_end)
		return ++rowid_next;
	uint64_t now = (uint64_t)util_now_us() << 4;
	uint64_t prev = atomic_load(&last_rowid);
	for (;;) {
		uint64_t first = prev >= now ? prev + 1 : now;
		if (atomic_compare_exchange_weak(&last_rowid, &prev, first + ROWID_BLOCK - 1)) {
			rowid_next = first;
			rowid_end = first + ROWID_BLOCK - 1;
			return first;
		}
	}
}

/* Interleaved tables (docs/entity-groups.md): the key columns of level l
 * (1-based) are [level_start(l), level_end(l)); level 0 is the root's. */
static int level_start(const cat_rel *r, int l) { return l <= 1 ? (l == 0 ? 0 : r->ilv_path[0]) : r->ilv_path[2 * (l - 1)]; }
static int level_end(const cat_rel *r, int l) { return l == 0 ? r->ilv_path[0] : r->ilv_path[2 * l]; }

static void put_key_col(const cat_rel *r, int i, const ty_datum *vals, util_buf *out)
{
	const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
	ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
	ty_key_encode(&kc, vals[r->pk[i] - 1], out);
}

uint8_t sql_salt_bucket(const cat_rel *r, const uint8_t *key, size_t len)
{
	return (uint8_t)(util_hash64(key, len, SQL_SALT_SEED) % (uint64_t)r->salt_buckets);
}

/* Salted tables: the bucket byte goes in front of the key just encoded
 * from `start` (docs/key-encoding.md, "Salted tables"). */
static void put_salt(const cat_rel *r, util_buf *out, size_t start)
{
	if (!r->salt_buckets)
		return;
	uint8_t b = sql_salt_bucket(r, (const uint8_t *)out->data + start, out->len - start);
	util_buf_put_u8(out, 0);
	memmove(out->data + start + 1, out->data + start, out->len - start - 1);
	out->data[start] = (char)b;
}

void sql_row_key(const cat_rel *r, const ty_datum *vals, util_buf *out)
{
	size_t start = out->len;
	if (r->npk == 0) {
		util_buf_put_u8(out, TY_KEY_VALUE);
		util_buf_put_be64(out, new_rowid());
		put_salt(r, out, start);
		return;
	}
	if (!r->ilv_depth) {
		for (int i = 0; i < r->npk; i++)
			put_key_col(r, i, vals, out);
	} else {
		for (int l = 0; l <= r->ilv_depth; l++) {
			if (l) {
				util_buf_put_u8(out, SQL_ILV_SEP);
				util_buf_put_be16(out, (uint16_t)r->ilv_path[2 * l - 1]);
			}
			for (int i = level_start(r, l); i < level_end(r, l); i++)
				put_key_col(r, i, vals, out);
		}
	}
	/* The store's row keys are at most 32767 bytes (kv.h); PostgreSQL's
	 * limit for a btree entry is smaller still (54000 as well). */
	if (out->len - start > SQL_MAX_ROW_KEY) {
		size_t n = out->len - start;
		/* Callers keep the key in a heap buffer they free after this
		 * returns: free it here, as the error unwinds past them (freeing
		 * it again is harmless). */
		util_buf_free(out);
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED, "index row size %zu exceeds maximum %d for index \"%s_pkey\"", n,
			 SQL_MAX_ROW_KEY, r->name);
	}
	put_salt(r, out, start);
}

size_t sql_ilv_rowlen(const cat_rel *r, const uint8_t *key, size_t klen)
{
	if (!r->ilv_depth)
		return klen;
	const uint8_t *p = key, *end = key + klen;
	for (int i = 0; i < r->ilv_path[0]; i++) {
		const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
		ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
		size_t n = ty_key_skip(&kc, p, end);
		if (n == 0)
			ty_error(UTIL_E_DATA_CORRUPTED, "malformed row key in table \"%s\"", r->name);
		p += n;
	}
	return (size_t)(p - key);
}

/* True when a column's value lives only in the row key. */
static bool key_only(const cat_rel *r, const cat_column *c)
{
	for (int i = 0; i < r->npk; i++)
		if (r->pk[i] == c->attnum) {
			const ty_type *t = ty_type_get(c->type);
			return t && !t->key_lossy;
		}
	return false;
}

bool sql_column_in_cells(const cat_rel *r, const cat_column *c) { return !key_only(r, c); }

void sql_key_decode_needed(const cat_rel *r, const uint8_t *key, size_t len, const bool *needed, ty_datum *vals)
{
	sql_key_decode_map(r, NULL, key, len, needed, vals);
}

void sql_key_decode_map(const cat_rel *r, const sql_rowmap *m, const uint8_t *key, size_t len,
			const bool *needed, ty_datum *vals)
{
	/* Decode up to the last key column anybody needs; skip the others. */
	int last = r->npk - 1;
	if (needed)
		while (last >= 0 && !needed[r->pk[last] - 1])
			last--;
	const uint8_t *p = key, *end = key + len;
	if (r->salt_buckets && last >= 0) {
		if (len < 1)
			ty_error(UTIL_E_DATA_CORRUPTED, "malformed row key in table \"%s\"", r->name);
		p++; /* the bucket byte */
	}
	int level = 0;
	for (int i = 0; i <= last; i++) {
		/* Entering the next level(s) of an interleaved key: skip the
		 * separator and tag. */
		while (r->ilv_depth && level < r->ilv_depth && i == level_end(r, level)) {
			if (end - p < 3 || p[0] != SQL_ILV_SEP)
				ty_error(UTIL_E_DATA_CORRUPTED, "malformed row key in table \"%s\"", r->name);
			p += 3;
			level++;
		}
		const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
		ty_keycol kc = {c->type, r->pk_desc ? r->pk_desc[i] : false, false};
		const ty_type *t = NULL;
		bool want = !needed || needed[c->attnum - 1];
		if (want) {
			t = m ? m->types[c - r->cols] : ty_type_get(c->type);
			want = t && !t->key_lossy;
		}
		ty_datum d;
		size_t n = want ? ty_key_decode_t(t, &kc, p, end, &d) : ty_key_skip(&kc, p, end);
		if (n == 0)
			ty_error(UTIL_E_DATA_CORRUPTED, "malformed row key in table \"%s\"", r->name);
		if (want)
			vals[c->attnum - 1] = d;
		p += n;
	}
}

void sql_key_decode(const cat_rel *r, const uint8_t *key, size_t len, ty_datum *vals)
{
	sql_key_decode_needed(r, key, len, NULL, vals);
}

void sql_rowmap_build(const cat_rel *r, util_arena *a, sql_rowmap *m)
{
	m->ncolids = r->next_col_id + 1;
	m->idx = util_arena_alloc(a, sizeof(int16_t) * (size_t)m->ncolids);
	if (!m->idx)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	for (int i = 0; i < m->ncolids; i++)
		m->idx[i] = -1;
	m->types = util_arena_alloc(a, sizeof(const ty_type *) * (size_t)(r->ncols ? r->ncols : 1));
	if (!m->types)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	for (int i = 0; i < r->ncols; i++)
		m->types[i] = ty_type_get(r->cols[i].type);
	for (int i = 0; i < r->ncols; i++)
		if (!r->cols[i].dropped && r->cols[i].col_id < m->ncolids)
			m->idx[r->cols[i].col_id] = (int16_t)i;
}

/* The values of a packed sentinel (rowpack.c) into vals. */
static void decode_packed(const cat_rel *r, const sql_rowmap *m, const kv_slice *v, const bool *needed,
			  ty_datum *vals)
{
	sql_packed pk;
	sql_packed_open(&pk, v->data, v->len);
	uint16_t id;
	const uint8_t *p;
	size_t len;
	for (int i = 0; sql_packed_value(&pk, i, &id, &p, &len); i++) {
		if (id >= m->ncolids || m->idx[id] < 0)
			continue; /* a dropped column */
		int col = m->idx[id];
		if (!needed || needed[col])
			vals[col] = sql_value_decode_t(m->types[col], r->cols[col].type, p, len);
	}
}

bool sql_row_decode_cells(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n,
			  const bool *needed, ty_datum *vals)
{
	bool exists = false;
	for (int i = 0; i < r->ncols; i++)
		vals[i] = ty_null();
	for (size_t k = 0; k < n; k++) {
		const kv_cell *c = &cells[k];
		if (c->qualifier.len == 0) {
			exists = true;
			if (c->value.len)
				decode_packed(r, m, &c->value, needed, vals);
			continue;
		}
		if (c->qualifier.len != 2)
			continue;
		uint16_t id = (uint16_t)((c->qualifier.data[0] << 8) | c->qualifier.data[1]);
		if (id >= m->ncolids || m->idx[id] < 0)
			continue; /* a dropped column */
		int col = m->idx[id];
		if (needed && !needed[col])
			continue;
		vals[col] = sql_value_decode_t(m->types[col], r->cols[col].type, c->value.data, c->value.len);
	}
	return exists;
}

bool sql_row_decode(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n, const bool *needed,
		    ty_datum *vals)
{
	bool exists = sql_row_decode_cells(r, m, cells, n, needed, vals);
	if (exists && r->npk && n)
		sql_key_decode(r, cells[0].row.data, cells[0].row.len, vals);
	return exists;
}

/* ---------------------------------------------------------------- entity groups */

kv_status sql_row_get(kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen, const kv_read_opts *ro,
		      util_arena *a, kv_row *out, size_t *qpre_len)
{
	size_t rl = sql_ilv_rowlen(r, key, klen);
	*qpre_len = klen - rl;
	kv_read_opts o = *ro;
	kv_filter *f = NULL;
	kv_column fam = {SQL_FAMILY, NULL, 0};
	if (rl < klen) {
		/* An interleaved row: its qualifiers in the interleaved family. */
		fam.family = SQL_ILV_FAMILY;
		f = kv_filter_column_prefix(key + rl, klen - rl);
		o.filter = f;
		o.columns = &fam;
		o.ncolumns = 1;
	} else if (r->ilv_nchildren) {
		o.columns = &fam; /* not the children's family */
		o.ncolumns = 1;
	}
	kv_status st = kv_get(kv, key, rl, &o, a, out);
	kv_filter_free(f);
	return st;
}

bool sql_row_decode_in(const cat_rel *r, const sql_rowmap *m, const kv_cell *cells, size_t n, size_t qpre,
		       const uint8_t *key, size_t klen, const bool *needed, ty_datum *vals)
{
	bool exists = false;
	for (int i = 0; i < r->ncols; i++)
		vals[i] = ty_null();
	for (size_t k = 0; k < n; k++) {
		const kv_cell *c = &cells[k];
		if (c->qualifier.len < qpre)
			continue;
		const uint8_t *q = (const uint8_t *)c->qualifier.data + qpre;
		size_t ql = c->qualifier.len - qpre;
		if (ql == 0) {
			exists = true;
			if (c->value.len)
				decode_packed(r, m, &c->value, needed, vals);
			continue;
		}
		if (ql != 2 || q[0] == SQL_ILV_SEP)
			continue; /* a descendant's cell */
		uint16_t id = (uint16_t)((q[0] << 8) | q[1]);
		if (id >= m->ncolids || m->idx[id] < 0)
			continue;
		int col = m->idx[id];
		if (needed && !needed[col])
			continue;
		vals[col] = sql_value_decode(r->cols[col].type, c->value.data, c->value.len);
	}
	if (exists && r->npk)
		sql_key_decode_needed(r, key, klen, needed, vals);
	return exists;
}

void sql_row_key_describe(const cat_rel *r, const ty_datum *vals, util_buf *cols, util_buf *vals_out)
{
	for (int i = 0; i < r->npk; i++) {
		const cat_column *c = cat_column_by_attnum(r, r->pk[i]);
		if (i) {
			util_buf_puts(cols, ", ");
			util_buf_puts(vals_out, ", ");
		}
		util_buf_puts(cols, c->name);
		if (vals[c->attnum - 1].null)
			util_buf_puts(vals_out, "null");
		else
			ty_output(c->type, vals[c->attnum - 1], vals_out);
	}
}
