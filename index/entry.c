/*
 * entry.c — the bytes of an index entry: key = encoded indexed values, then
 * the primary key (or, in the unique layout, the primary key in the value);
 * value = flags byte, optional primary key, INCLUDE payload. Parsing never
 * throws: a malformed cell is reported as such and skipped by readers.
 */
#include <string.h>

#include "idx.h"

void idx_encode_values(const idx_def *d, const ty_datum *vals, util_buf *out, bool *any_null)
{
	bool null = false;
	for (int i = 0; i < d->nkeys; i++) {
		null |= vals[i].null;
		ty_key_encode(&d->keys[i], vals[i], out);
	}
	if (any_null)
		*any_null = null;
}

bool idx_pk_in_value(const idx_def *d, bool any_null)
{
	return d->unique && (!any_null || d->nulls_not_distinct);
}

void idx_make_key(const void *values, size_t vlen, bool pk_in_value, const void *pk, size_t pklen,
		  util_buf *out)
{
	util_buf_append(out, values, vlen);
	if (!pk_in_value)
		util_buf_append(out, pk, pklen);
}

void idx_make_value(uint8_t flags, bool pk_in_value, const void *pk, size_t pklen, const void *payload,
		    size_t plen, util_buf *out)
{
	flags = (uint8_t)(flags & ~IDX_F_PK_VALUE);
	if (pk_in_value)
		flags |= IDX_F_PK_VALUE;
	util_buf_put_u8(out, flags);
	if (pk_in_value) {
		util_buf_put_varint(out, pklen);
		util_buf_append(out, pk, pklen);
	}
	if (plen)
		util_buf_append(out, payload, plen);
}

bool idx_split_values(const idx_def *d, const uint8_t *key, size_t len, size_t *offsets)
{
	const uint8_t *p = key, *end = key + len;
	offsets[0] = 0;
	for (int i = 0; i < d->nkeys; i++) {
		size_t n = ty_key_skip(&d->keys[i], p, end);
		if (n == 0)
			return false;
		p += n;
		offsets[i + 1] = (size_t)(p - key);
	}
	return true;
}

bool idx_entry_parse(const idx_def *d, const kv_cell *c, idx_entry *out)
{
	memset(out, 0, sizeof *out);
	if (c->value.len < 1)
		return false;
	const uint8_t *k = c->row.data, *end = k + c->row.len;
	const uint8_t *p = k;
	for (int i = 0; i < d->nkeys; i++) {
		size_t n = ty_key_skip(&d->keys[i], p, end);
		if (n == 0)
			return false;
		p += n;
	}
	out->key = c->row;
	out->values_len = (size_t)(p - k);
	out->ts = c->ts;
	out->value = c->value;
	const uint8_t *v = c->value.data, *vend = v + c->value.len;
	out->flags = v[0];
	v++;
	if (out->flags & IDX_F_PK_VALUE) {
		uint64_t pklen;
		size_t n = util_varint_get(v, vend, &pklen);
		if (n == 0 || pklen > (uint64_t)(vend - v - (ptrdiff_t)n))
			return false;
		v += n;
		out->pk = (kv_slice){v, (size_t)pklen};
		v += pklen;
		if (p != end)
			return false; /* the unique layout has nothing after the values */
	} else {
		out->pk = (kv_slice){p, (size_t)(end - p)};
		if (out->pk.len == 0)
			return false;
	}
	out->payload = (kv_slice){v, (size_t)(vend - v)};
	return true;
}
