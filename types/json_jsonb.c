/*
 * json_jsonb.c — the jsonb binary container format (docs/jsonb-format.md):
 * encoding a normalised jv tree, random access to children by index, key
 * lookup by binary search, decoding back to a tree, and jsonb's text
 * output straight from the binary form.
 */
#include "json_int.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static UTIL_NORETURN void too_big(bool obj)
{
	ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
		 "total size of jsonb %s elements exceeds the maximum of %u bytes", obj ? "object" : "array",
		 JB_MAX_SIZE);
}

static bool is_container(const jv *v)
{
	return v->type == JV_ARRAY || v->type == JV_OBJECT;
}

/* Bytes of a container (v must be an array or object). */
static size_t container_size(const jv *v, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	bool obj = v->type == JV_OBJECT;
	size_t m = obj ? 2 * (size_t)v->n : v->n;
	size_t data = 0;
	for (size_t i = 0; i < m; i++) {
		const jv *c = &v->kids[i];
		data += is_container(c)                                  ? container_size(c, depth + 1)
			: (c->type == JV_STRING || c->type == JV_NUMBER) ? c->len
									 : 0;
		if (data > JB_MAX_SIZE)
			too_big(obj);
	}
	return 4 + 4 * m + data;
}

static uint32_t entry_type(const jv *c)
{
	switch (c->type) {
	case JV_STRING:
		return JE_STRING;
	case JV_NUMBER:
		return JE_NUMBER;
	case JV_BOOL:
		return c->b ? JE_TRUE : JE_FALSE;
	case JV_NULL:
		return JE_NULL;
	default:
		return JE_CONTAINER;
	}
}

/* Object children in storage order: all keys, then all values. */
static const jv *nth_child(const jv *v, size_t i)
{
	if (v->type == JV_ARRAY)
		return &v->kids[i];
	return i < v->n ? &v->kids[2 * i] : &v->kids[2 * (i - v->n) + 1];
}

static size_t write_container(const jv *v, uint8_t *dst, bool raw_scalar)
{
	bool obj = v->type == JV_OBJECT;
	size_t m = obj ? 2 * (size_t)v->n : v->n;
	uint32_t hdr = (uint32_t)v->n | (obj ? JB_FOBJECT : JB_FARRAY) | (raw_scalar ? JB_FSCALAR : 0);
	put32(dst, hdr);
	uint8_t *data = dst + 4 + 4 * m;
	size_t off = 0;
	for (size_t i = 0; i < m; i++) {
		const jv *c = nth_child(v, i);
		if (is_container(c)) {
			off += write_container(c, data + off, false);
		} else if (c->type == JV_STRING || c->type == JV_NUMBER) {
			if (c->len)
				memcpy(data + off, c->s, c->len);
			off += c->len;
		}
		put32(dst + 4 + 4 * i, (entry_type(c) << 28) | (uint32_t)off);
	}
	return 4 + 4 * m + off;
}

ty_datum jv_to_jsonb(const jv *v)
{
	jv wrap;
	const jv *top = v;
	bool raw = false;
	if (!is_container(v)) {
		memset(&wrap, 0, sizeof wrap);
		wrap.type = JV_ARRAY;
		wrap.n = 1;
		wrap.kids = (jv *)v;
		top = &wrap;
		raw = true;
	}
	size_t n = container_size(top, 0);
	uint8_t *p = ty_alloc(n);
	size_t w = write_container(top, p, raw);
	UTIL_DASSERT(w == n, "jsonb size %zu != %zu", w, n);
	return ty_bytes(p, w);
}

/* ---------------------------------------------------------------- access */

jbe jbc_child(jbc c, uint32_t i)
{
	uint32_t n = jbc_count(c);
	uint32_t m = jbc_is_object(c) ? 2 * n : n;
	const uint8_t *ents = c.p + 4;
	const uint8_t *data = ents + 4 * (size_t)m;
	uint32_t e = jb_u32(ents + 4 * (size_t)i);
	uint32_t end = e & JB_OFF_MASK;
	uint32_t start = i ? jb_u32(ents + 4 * (size_t)(i - 1)) & JB_OFF_MASK : 0;
	jbe r = {(int)(e >> 28), data + start, end - start};
	return r;
}

bool jbc_find_key(jbc c, const char *key, size_t klen, jbe *out)
{
	if (!jbc_is_object(c))
		return false;
	uint32_t n = jbc_count(c);
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		jbe k = jbc_child(c, mid);
		int cmp;
		if (k.len != klen)
			cmp = k.len < klen ? -1 : 1;
		else
			cmp = memcmp(k.p, key, klen);
		if (cmp == 0) {
			*out = jbc_child(c, n + mid);
			return true;
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void to_jv(jbe e, jv *v)
{
	memset(v, 0, sizeof *v);
	switch (e.type) {
	case JE_STRING:
		v->type = JV_STRING;
		v->s = (const char *)e.p;
		v->len = e.len;
		return;
	case JE_NUMBER:
		v->type = JV_NUMBER;
		v->s = (const char *)e.p;
		v->len = e.len;
		return;
	case JE_TRUE:
	case JE_FALSE:
		v->type = JV_BOOL;
		v->b = e.type == JE_TRUE;
		return;
	case JE_NULL:
		v->type = JV_NULL;
		return;
	default:
		break;
	}
	jbc c = jbe_container(e);
	uint32_t n = jbc_count(c);
	if (jbc_is_scalar(c)) {
		to_jv(jbc_child(c, 0), v);
		return;
	}
	bool obj = jbc_is_object(c);
	v->type = obj ? JV_OBJECT : JV_ARRAY;
	v->n = n;
	uint32_t m = obj ? 2 * n : n;
	v->kids = ty_alloc(sizeof *v->kids * (m ? m : 1));
	for (uint32_t i = 0; i < m; i++) {
		jv *dst = obj ? (i < n ? &v->kids[2 * i] : &v->kids[2 * (i - n) + 1]) : &v->kids[i];
		to_jv(jbc_child(c, i), dst);
	}
}

jv *jbe_to_jv(jbe e)
{
	jv *v = ty_alloc(sizeof *v);
	to_jv(e, v);
	return v;
}

jv *jsonb_to_jv(ty_datum d)
{
	jbe e = {JE_CONTAINER, d.p, d.len};
	return jbe_to_jv(e);
}

ty_datum jbe_to_jsonb(jbe e)
{
	if (e.type == JE_CONTAINER)
		return ty_bytes(e.p, e.len);
	return jv_to_jsonb(jbe_to_jv(e));
}

/* ---------------------------------------------------------------- output */

static void out_jbe(jbe e, util_buf *out)
{
	switch (e.type) {
	case JE_STRING:
		json_escape(out, (const char *)e.p, e.len);
		return;
	case JE_NUMBER:
		util_buf_append(out, e.p, e.len);
		return;
	case JE_TRUE:
		util_buf_puts(out, "true");
		return;
	case JE_FALSE:
		util_buf_puts(out, "false");
		return;
	case JE_NULL:
		util_buf_puts(out, "null");
		return;
	default:
		break;
	}
	jbc c = jbe_container(e);
	uint32_t n = jbc_count(c);
	if (jbc_is_scalar(c)) {
		out_jbe(jbc_child(c, 0), out);
		return;
	}
	bool obj = jbc_is_object(c);
	util_buf_putc(out, obj ? '{' : '[');
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			util_buf_puts(out, ", ");
		if (obj) {
			out_jbe(jbc_child(c, i), out);
			util_buf_puts(out, ": ");
			out_jbe(jbc_child(c, n + i), out);
		} else {
			out_jbe(jbc_child(c, i), out);
		}
	}
	util_buf_putc(out, obj ? '}' : ']');
}

void jsonb_out_buf(ty_datum d, util_buf *out)
{
	jbe e = {JE_CONTAINER, d.p, d.len};
	out_jbe(e, out);
}
