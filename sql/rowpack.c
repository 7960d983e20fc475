/*
 * rowpack.c — the packed row format (docs/row-format.md, "Packed rows"):
 * a row's non-key, non-NULL column values in its sentinel cell, values
 * first, then a trailer of column ids and end offsets, so that a reader
 * finds one column without decoding the others and a writer appends each
 * value as it encodes it. The store then keeps one cell per SQL row
 * instead of one per column; its per-cell work (memstore, blocks,
 * iterators, merges) is what bulk loads pay for.
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

void sql_packer_begin(sql_packer *p, util_buf *out)
{
	p->out = out;
	p->base = out->len;
	p->n = 0;
	p->cap = SQL_PACK_INLINE;
	p->ids = p->ids0;
	p->ends = p->ends0;
}

void sql_packer_mark(sql_packer *p, uint16_t col_id)
{
	if (p->n == p->cap) {
		/* Only rows of more than SQL_PACK_INLINE non-NULL columns. */
		int cap = 2 * p->cap;
		uint16_t *ids = util_xmalloc(sizeof *ids * (size_t)cap);
		uint32_t *ends = util_xmalloc(sizeof *ends * (size_t)cap);
		memcpy(ids, p->ids, sizeof *ids * (size_t)p->n);
		memcpy(ends, p->ends, sizeof *ends * (size_t)p->n);
		if (p->ids != p->ids0) {
			free(p->ids);
			free(p->ends);
		}
		p->ids = ids;
		p->ends = ends;
		p->cap = cap;
	}
	p->ids[p->n] = col_id;
	p->ends[p->n] = (uint32_t)(p->out->len - p->base);
	p->n++;
}

void sql_packer_end(sql_packer *p)
{
	util_buf *out = p->out;
	if (p->n) { /* no values: an empty value, as the cells format's sentinel */
		size_t vlen = out->len - p->base;
		bool wide = vlen > UINT16_MAX;
		int w = wide ? 4 : 2;
		size_t tail = (size_t)p->n * (size_t)(2 + w) + SQL_PACK_TAIL;
		util_buf_reserve(out, tail);
		/* written in place, once per row: the reserve above covers it all */
		uint8_t *q = (uint8_t *)out->data + out->len;
		for (int i = 0; i < p->n; i++, q += 2)
			util_put_be16(q, p->ids[i]);
		for (int i = 0; i < p->n; i++, q += w) {
			if (wide)
				util_put_be32(q, p->ends[i]);
			else
				util_put_be16(q, (uint16_t)p->ends[i]);
		}
		util_put_be16(q, (uint16_t)p->n);
		q[2] = wide ? SQL_PACK_TAG_W4 : SQL_PACK_TAG_W2;
		out->len += tail;
		out->data[out->len] = '\0';
	}
	if (p->ids != p->ids0) {
		free(p->ids);
		free(p->ends);
	}
	p->ids = p->ids0;
	p->ends = p->ends0;
	p->n = 0;
}

void sql_row_pack(const cat_rel *r, const ty_datum *vals, int nvals, util_buf *out)
{
	sql_packer p;
	sql_packer_begin(&p, out);
	for (int i = 0; i < r->ncols && i < nvals; i++) {
		const cat_column *c = &r->cols[i];
		if (c->dropped || vals[i].null || !sql_column_in_cells(r, c))
			continue;
		sql_value_encode(c->type, vals[i], out);
		sql_packer_mark(&p, c->col_id);
	}
	sql_packer_end(&p);
}

static UTIL_NORETURN void malformed(void)
{
	ty_error(UTIL_E_DATA_CORRUPTED, "malformed packed row");
}

void sql_packed_open(sql_packed *pk, const uint8_t *v, size_t n)
{
	memset(pk, 0, sizeof *pk);
	if (n == 0)
		return;
	if (n < SQL_PACK_TAIL)
		malformed();
	uint8_t tag = v[n - 1];
	if (tag != SQL_PACK_TAG_W2 && tag != SQL_PACK_TAG_W4)
		malformed();
	size_t cnt = util_get_be16(v + n - 3), w = tag == SQL_PACK_TAG_W4 ? 4 : 2;
	size_t meta = cnt * (2 + w) + SQL_PACK_TAIL;
	if (cnt == 0 || meta > n)
		malformed();
	pk->vals = v;
	pk->vlen = n - meta;
	pk->ids = v + pk->vlen;
	pk->ends = pk->ids + 2 * cnt;
	pk->n = (int)cnt;
	pk->wide = w == 4;
	/* The last end is the values' length; the others are checked as read. */
	if (sql_packed_end(pk, pk->n - 1) != pk->vlen)
		malformed();
}

bool sql_packed_value(const sql_packed *pk, int i, uint16_t *col_id, const uint8_t **v, size_t *len)
{
	if (i >= pk->n)
		return false;
	size_t start = i ? sql_packed_end(pk, i - 1) : 0, end = sql_packed_end(pk, i);
	if (start > end || end > pk->vlen)
		malformed();
	*col_id = util_get_be16(pk->ids + 2 * i);
	*v = pk->vals + start;
	*len = end - start;
	return true;
}

bool sql_packed_find(const sql_packed *pk, uint16_t col_id, const uint8_t **v, size_t *len)
{
	for (int i = 0; i < pk->n; i++)
		if (util_get_be16(pk->ids + 2 * i) == col_id) {
			uint16_t id;
			return sql_packed_value(pk, i, &id, v, len);
		}
	return false;
}

void sql_packed_each(const kv_slice *v, sql_packed_fn fn, void *arg)
{
	sql_packed pk;
	sql_packed_open(&pk, v->data, v->len);
	uint16_t id;
	const uint8_t *p;
	size_t len;
	for (int i = 0; sql_packed_value(&pk, i, &id, &p, &len); i++)
		fn(arg, id, p, len);
}
