/*
 * rowput.c — a row's cells (docs/row-format.md) gathered for one
 * kv_batch_put_row: the bulk writers (COPY into private storage, ALTER
 * TABLE's rewrite through the executor) hand the store whole rows, which a
 * streaming batch checks for order and encodes the key of once per row
 * rather than per cell. The re-key by cells builds its rows' cells itself
 * (sql/ddl_rewrite.c rk_write).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

/* The next cell, its qualifier set (the sentinel's is empty). */
static int next_cell(sql_rowput *rp, const uint8_t *q, size_t ql)
{
	if (rp->n == rp->cap) {
		rp->cap = rp->cap ? 2 * rp->cap : 16;
		rp->cells = util_xrealloc(rp->cells, sizeof *rp->cells * (size_t)rp->cap);
		rp->quals = util_xrealloc(rp->quals, sizeof *rp->quals * (size_t)rp->cap);
		rp->off = util_xrealloc(rp->off, sizeof *rp->off * (size_t)rp->cap);
	}
	int i = rp->n++;
	if (ql)
		memcpy(rp->quals[i], q, ql);
	rp->cells[i] = (kv_put_cell){NULL, ql, NULL, 0}; /* qual: quals[i], set by sql_rowput_write */
	rp->off[i] = SIZE_MAX;
	return i;
}

void sql_rowput_begin(sql_rowput *rp)
{
	rp->n = 0;
	util_buf_reset(&rp->vals);
	int i = next_cell(rp, NULL, 0);
	rp->cells[i].val = "";
}

void sql_rowput_encode(sql_rowput *rp, uint16_t col_id, ty_oid type, ty_datum v)
{
	uint8_t q[2];
	sql_colid_qual(col_id, q);
	int i = next_cell(rp, q, 2);
	rp->off[i] = rp->vals.len;
	sql_value_encode(type, v, &rp->vals);
	rp->cells[i].vlen = rp->vals.len - rp->off[i];
}

/* Packed cells: per cell its qualifier (2 bytes), the value's length (4,
 * host order: the bytes never leave the process) and the value. */
#define PACK_HDR 6

void sql_rowput_pack(const cat_rel *r, const ty_datum *vals, util_buf *out)
{
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (c->dropped || vals[i].null || !sql_column_in_cells(r, c))
			continue;
		util_buf_reserve(out, PACK_HDR);
		size_t at = out->len;
		sql_colid_qual(c->col_id, (uint8_t *)out->data + at);
		out->len += PACK_HDR;
		sql_value_encode(c->type, vals[i], out);
		uint32_t vl = (uint32_t)(out->len - at - PACK_HDR);
		memcpy(out->data + at + 2, &vl, 4);
	}
}

void sql_rowput_unpack(sql_rowput *rp, const uint8_t *p, size_t n)
{
	sql_rowput_begin(rp);
	for (const uint8_t *end = p + n; p < end;) {
		uint32_t vl;
		memcpy(&vl, p + 2, 4);
		int i = next_cell(rp, NULL, 0);
		/* Qualifier and value borrowed in place. */
		rp->cells[i] = (kv_put_cell){p, 2, vl ? (const void *)(p + PACK_HDR) : "", vl};
		p += PACK_HDR + vl;
	}
}

void sql_rowput_write(sql_rowput *rp, kv_batch *b, kv_table *t, const uint8_t *key, size_t kl, kv_ts ts)
{
	/* The qualifier and encoded-value arrays are final now (next_cell may
	 * have moved them): their addresses. */
	for (int i = 0; i < rp->n; i++) {
		if (!rp->cells[i].qual)
			rp->cells[i].qual = rp->quals[i];
		if (rp->off[i] != SIZE_MAX)
			rp->cells[i].val = rp->vals.data + rp->off[i];
	}
	kv_batch_put_row(b, t, key, kl, SQL_FAMILY, ts, rp->cells, (size_t)rp->n);
}

void sql_rowput_free(sql_rowput *rp)
{
	free(rp->cells);
	free(rp->quals);
	free(rp->off);
	util_buf_free(&rp->vals);
	memset(rp, 0, sizeof *rp);
}
