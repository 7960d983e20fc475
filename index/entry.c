/*
 * entry.c — the bytes of an index entry: key = encoded indexed values, then
 * the primary key; value = flags byte, then the INCLUDE payload. A unique
 * index's guard has the values alone as key and the holder's primary key
 * as value. Parsing never throws: a malformed cell is reported as such and
 * skipped by readers.
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

bool idx_unique_values(const idx_def *d, bool any_null)
{
	return d->unique && (!any_null || d->nulls_not_distinct);
}

bool idx_values_have_null(const idx_def *d, const uint8_t *values, size_t len)
{
	const uint8_t *p = values, *end = values + len;
	for (int i = 0; i < d->nkeys && p < end; i++) {
		const ty_keycol *kc = &d->keys[i];
		uint8_t m = kc->desc ? (uint8_t) ~*p : *p;
		if (m != TY_KEY_VALUE)
			return true;
		size_t n = ty_key_skip(kc, p, end);
		if (n == 0)
			return false;
		p += n;
	}
	return false;
}

void idx_make_key(const void *values, size_t vlen, const void *pk, size_t pklen, util_buf *out)
{
	util_buf_append(out, values, vlen);
	util_buf_append(out, pk, pklen);
}

void idx_make_value(uint8_t flags, const void *payload, size_t plen, util_buf *out)
{
	util_buf_put_u8(out, flags);
	if (plen)
		util_buf_append(out, payload, plen);
}

void idx_make_guard_value(const void *pk, size_t pklen, util_buf *out)
{
	util_buf_put_u8(out, 0);
	util_buf_append(out, pk, pklen);
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
	out->flags = c->value.data[0];
	kv_slice rest = {c->value.data + 1, c->value.len - 1};
	if (p == end) {
		/* A guard: the holder's key in the value. */
		if (!d->unique || rest.len == 0)
			return false;
		out->guard = true;
		out->pk = rest;
		return true;
	}
	out->pk = (kv_slice){p, (size_t)(end - p)};
	out->payload = rest;
	return true;
}
