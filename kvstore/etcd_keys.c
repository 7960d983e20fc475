/*
 * etcd_keys.c — how cells, row markers, kv table metadata and the cluster
 * clock are laid out as etcd keys (docs/scale-out.md, "Key layout"). Cell
 * keys compare in etcd's byte order exactly as cells compare in the store:
 *
 *   P "/d/" eid(8, BE) esc(row) esc(family) esc(qualifier) ~ts(8, BE) ~type
 *
 * where esc() maps 0x00 to 00 FF and ends with 00 01, so a shorter string
 * sorts before its extensions and segments never run into each other.
 */
#include <string.h>

#include "ekv.h"

void ekv_esc(util_buf *b, const uint8_t *p, size_t n)
{
	util_buf_reserve(b, n + 2);
	size_t s = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] == 0) {
			util_buf_append(b, p + s, i - s);
			util_buf_append(b, "\x00\xff", 2);
			s = i + 1;
		}
	util_buf_append(b, p + s, n - s);
	util_buf_append(b, "\x00\x01", 2);
}

bool ekv_unesc(const uint8_t **pp, const uint8_t *end, util_buf *out)
{
	const uint8_t *p = *pp;
	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		if (!z || z + 1 >= end)
			return false;
		util_buf_append(out, p, (size_t)(z - p));
		if (z[1] == 0x01) {
			*pp = z + 2;
			return true;
		}
		if (z[1] != 0xff)
			return false;
		util_buf_putc(out, 0);
		p = z + 2;
	}
	return false;
}

static void put_eid(util_buf *b, uint64_t eid)
{
	uint8_t x[8];
	util_put_be64(x, eid);
	util_buf_append(b, x, 8);
}

void ekv_cell_prefix(const ekv *e, uint64_t eid, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/d/", 3);
	put_eid(b, eid);
}

void ekv_marker_key(const ekv *e, uint64_t eid, const uint8_t *row, size_t rlen, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/r/", 3);
	put_eid(b, eid);
	ekv_esc(b, row, rlen);
}

void ekv_lock_key(const ekv *e, uint64_t eid, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/l/", 3);
	put_eid(b, eid);
}

void ekv_bigmark_key(const ekv *e, uint64_t eid, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/m/", 3);
	put_eid(b, eid);
}

void ekv_rowlock_key(const ekv *e, const util_buf *marker, util_buf *out)
{
	util_buf_reset(out);
	util_buf_append(out, marker->data, marker->len);
	((uint8_t *)out->data)[e->plen + 1] = 'k';
}

void ekv_txrec_key(const ekv *e, const uint8_t *txid, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/x/", 3);
	util_buf_append(b, txid, EKV_TXID);
}

void ekv_meta_key(const ekv *e, const char *name, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/t/", 3);
	util_buf_append(b, name, strlen(name));
}

void ekv_clock_key(const ekv *e, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/c", 2);
}

void ekv_server_no_key(const ekv *e, util_buf *b)
{
	util_buf_append(b, e->prefix, e->plen);
	util_buf_append(b, "/n", 2);
}

void ekv_from_cell(util_buf *b, const uint8_t *row, size_t rlen, const char *fam, const uint8_t *q,
		   size_t qlen, kv_ts ts, uint8_t type)
{
	ekv_esc(b, row, rlen);
	ekv_esc(b, (const uint8_t *)fam, strlen(fam));
	ekv_esc(b, q, qlen);
	uint8_t x[9];
	util_put_be64(x, ~ts);
	x[8] = (uint8_t)~type;
	util_buf_append(b, x, 9);
}

void ekv_from_ikey(util_buf *b, const uint8_t *ik, size_t ikl)
{
	ikey_parts p;
	ikey_split(ik, ikl, &p);
	ekv_esc(b, p.row, p.rlen);
	ekv_esc(b, p.fam, p.flen);
	ekv_esc(b, p.qual, p.qlen);
	/* The suffix bytes are already ~ts, ~type. */
	util_buf_append(b, ik + ikl - IKEY_SUFFIX, IKEY_SUFFIX);
}

bool ekv_to_ikey(const uint8_t *p, size_t n, util_buf *ik)
{
	const uint8_t *end = p + n;
	util_buf row = UTIL_BUF_INIT, fam = UTIL_BUF_INIT, q = UTIL_BUF_INIT;
	bool ok = ekv_unesc(&p, end, &row) && ekv_unesc(&p, end, &fam) && ekv_unesc(&p, end, &q) &&
		  end - p == IKEY_SUFFIX && row.len <= IKEY_ROW_MAX && fam.len <= IKEY_FAM_MAX;
	if (ok) {
		util_buf_reset(ik);
		size_t sz = ikey_size(row.len, fam.len, q.len);
		util_buf_reserve(ik, sz);
		uint8_t *d = (uint8_t *)ik->data;
		d[0] = (uint8_t)(row.len >> 8);
		d[1] = (uint8_t)row.len;
		memcpy(d + 2, row.data ? row.data : "", row.len);
		d[2 + row.len] = (uint8_t)fam.len;
		memcpy(d + 3 + row.len, fam.data ? fam.data : "", fam.len);
		memcpy(d + 3 + row.len + fam.len, q.data ? q.data : "", q.len);
		memcpy(d + sz - IKEY_SUFFIX, p, IKEY_SUFFIX);
		ik->len = sz;
	}
	util_buf_free(&row);
	util_buf_free(&fam);
	util_buf_free(&q);
	return ok;
}

void ekv_prefix_end(const uint8_t *p, size_t n, util_buf *out)
{
	util_buf_reset(out);
	util_buf_append(out, p, n);
	uint8_t *d = (uint8_t *)out->data;
	while (out->len > 0) {
		if (d[out->len - 1] != 0xff) {
			d[out->len - 1]++;
			return;
		}
		out->len--;
	}
	/* All 0xff: no end; etcd's "\0" range_end means "to the last key". */
	util_buf_putc(out, 0);
}
