/*
 * rowput.c — a row's cells (docs/row-format.md) gathered for one
 * kv_batch_put_row: the bulk writers (COPY into private storage, ALTER
 * TABLE's rewrite through the executor) hand the store whole rows, which a
 * streaming batch checks for order and encodes the key of once per row
 * rather than per cell. The re-key by cells builds its rows' cells itself
 * (sql/ddl_rewrite.c rk_write). A packed table's row is one cell: the
 * sentinel, its value the packed columns (rowpack.c).
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
	rp->packing = rp->packed;
	if (rp->packing) /* the values go into the sentinel's value, vals */
		sql_packer_begin(&rp->pk, &rp->vals);
}

/* A column's value goes into vals between value_start and value_end: a
 * cell of its own (returns its index), or a packed value (-1). */
static int value_start(sql_rowput *rp, uint16_t col_id)
{
	if (rp->packing)
		return -1;
	uint8_t q[2];
	sql_colid_qual(col_id, q);
	int i = next_cell(rp, q, 2);
	rp->off[i] = rp->vals.len;
	return i;
}

static void value_end(sql_rowput *rp, int i, uint16_t col_id)
{
	if (i < 0)
		sql_packer_mark(&rp->pk, col_id);
	else
		rp->cells[i].vlen = rp->vals.len - rp->off[i];
}

void sql_rowput_encode(sql_rowput *rp, uint16_t col_id, ty_oid type, ty_datum v)
{
	int i = value_start(rp, col_id);
	sql_value_encode(type, v, &rp->vals);
	value_end(rp, i, col_id);
}

void sql_rowput_raw(sql_rowput *rp, uint16_t col_id, const uint8_t *v, size_t vl)
{
	int i = value_start(rp, col_id);
	util_buf_append(&rp->vals, v, vl);
	value_end(rp, i, col_id);
}

/* Packed cells: per cell its qualifier (2 bytes), the value's length (4,
 * host order: the bytes never leave the process) and the value. */
#define PACK_HDR 6

void sql_rowput_pack(const cat_rel *r, const ty_datum *vals, util_buf *out)
{
	if (r->packed) { /* the sentinel's value itself (rowpack.c) */
		sql_row_pack(r, vals, r->ncols, out);
		return;
	}
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
	if (rp->packed) { /* one cell: the sentinel, its value borrowed */
		rp->n = 0;
		int i = next_cell(rp, NULL, 0);
		rp->cells[i].val = n ? (const void *)p : "";
		rp->cells[i].vlen = n;
		rp->packing = false;
		return;
	}
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
	if (rp->packing) {
		sql_packer_end(&rp->pk);
		rp->packing = false;
		if (rp->vals.len) {
			rp->cells[0].val = rp->vals.data;
			rp->cells[0].vlen = rp->vals.len;
		}
	}
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
	if (rp->packing)
		sql_packer_end(&rp->pk); /* (a row abandoned by an error) */
	free(rp->cells);
	free(rp->quals);
	free(rp->off);
	util_buf_free(&rp->vals);
	memset(rp, 0, sizeof *rp);
}
