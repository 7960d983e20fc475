/*
 * keys.c — composite order-preserving keys: a marker byte per column
 * (value / NULL first / NULL last), then the type's own encoding; DESC
 * columns are stored bit-inverted so that memcmp sorts them in reverse.
 * Format and test vectors: docs/key-encoding.md.
 */
#include "types_int.h"

#include <string.h>

static const ty_type *key_type(ty_oid oid)
{
	const ty_type *t = ty_type_get(oid);
	if (!t || !t->keyenc || !t->keydec)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "type %s cannot be used in a key", t ? t->name : "?");
	return t;
}

/* The NULL marker before DESC inversion: NULL must end up before values
 * exactly when nulls_first. */
static uint8_t null_marker(const ty_keycol *col)
{
	return (col->nulls_first != col->desc) ? TY_KEY_NULL_FIRST : TY_KEY_NULL_LAST;
}

void ty_key_encode(const ty_keycol *col, ty_datum v, util_buf *out)
{
	size_t start = out->len;
	if (v.null) {
		util_buf_put_u8(out, null_marker(col));
	} else {
		util_buf_put_u8(out, TY_KEY_VALUE);
		key_type(col->type)->keyenc(v, out);
	}
	if (col->desc)
		for (size_t i = start; i < out->len; i++)
			out->data[i] = (char)~(uint8_t)out->data[i];
}

/* Runs fn on [p, end) with DESC bytes un-inverted into a scratch copy. */
static size_t with_plain(const ty_type *t, const ty_keycol *col, const uint8_t *p, const uint8_t *end,
			 ty_datum *out, bool skip)
{
	if (p >= end)
		return 0;
	const uint8_t *q = p;
	uint8_t *tmp = NULL;
	if (col->desc) {
		size_t n = (size_t)(end - p);
		tmp = ty_alloc(n);
		for (size_t i = 0; i < n; i++)
			tmp[i] = (uint8_t)~p[i];
		q = tmp;
		end = tmp + n;
	}
	uint8_t m = q[0];
	if (m == TY_KEY_NULL_FIRST || m == TY_KEY_NULL_LAST) {
		if (out)
			*out = ty_null();
		return 1;
	}
	if (m != TY_KEY_VALUE)
		return 0;
	ty_datum d;
	size_t n = (t ? t : key_type(col->type))->keydec(q + 1, end, &d);
	if (n == 0)
		return 0;
	if (!skip && out) {
		/* Decoded bytes may point into the scratch copy; it lives in the
		 * current arena, so the datum stays valid as long as it would. */
		*out = d;
	}
	return n + 1;
}

size_t ty_key_decode(const ty_keycol *col, const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	return with_plain(NULL, col, p, end, out, false);
}

size_t ty_key_decode_t(const ty_type *t, const ty_keycol *col, const uint8_t *p, const uint8_t *end,
		       ty_datum *out)
{
	if (!col->desc && t->keydec && p < end && p[0] == TY_KEY_VALUE) {
		/* The common case without with_plain's checks and copies. */
		ty_datum d;
		size_t n = t->keydec(p + 1, end, &d);
		if (n == 0)
			return 0;
		*out = d;
		return n + 1;
	}
	if (!t->keydec)
		t = NULL; /* key_type's error */
	return with_plain(t, col, p, end, out, false);
}

size_t ty_key_skip(const ty_keycol *col, const uint8_t *p, const uint8_t *end)
{
	ty_datum d;
	return with_plain(NULL, col, p, end, &d, true);
}
