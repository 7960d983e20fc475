/*
 * json_keys.c — order-preserving key encoding of jsonb (docs/key-encoding-json.md):
 * memcmp order of the encodings equals jsonb's btree order
 * (jsonb_cmp_datum), and the encoding is self-delimiting. Numbers are
 * encoded by value, so 1.0 and 1 share a key (the type is key_lossy).
 */
#include "json_int.h"

enum { K_NULL = 0x01, K_STRING = 0x02, K_NUMBER = 0x03, K_BOOL = 0x04, K_ARRAY = 0x05, K_OBJECT = 0x06 };

static void put_string(const uint8_t *p, uint32_t n, util_buf *out)
{
	for (uint32_t i = 0; i < n; i++) {
		util_buf_put_u8(out, p[i]);
		if (p[i] == 0)
			util_buf_put_u8(out, 0xff);
	}
	util_buf_put_u8(out, 0x00);
	util_buf_put_u8(out, 0x01);
}

/*
 * Numbers: 0x40 negative / 0x80 zero / 0xc0 positive; then for non-zero
 * values the decimal exponent E (value = 0.d1d2... x 10^E) as a
 * sign-flipped big-endian int32 and the significant digits, terminated by
 * 0x00; for negative values exponent, digits and terminator are inverted.
 */
static void put_number(const char *s, uint32_t n, util_buf *out)
{
	const char *e = s + n;
	bool neg = false;
	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	const char *dot = memchr(s, '.', (size_t)(e - s));
	size_t il = dot ? (size_t)(dot - s) : (size_t)(e - s);
	const char *fp = dot ? dot + 1 : e;
	size_t fl = (size_t)(e - fp);
	/* Significant digits of int part + fraction, without leading/trailing zeros. */
	char *d = ty_alloc(il + fl + 1);
	size_t nd = 0;
	int64_t exp = 0;
	bool started = false;
	for (size_t i = 0; i < il; i++) {
		if (!started && s[i] == '0')
			continue;
		if (!started)
			exp = (int64_t)(il - i);
		started = true;
		d[nd++] = s[i];
	}
	for (size_t i = 0; i < fl; i++) {
		if (!started && fp[i] == '0')
			continue;
		if (!started)
			exp = -(int64_t)i;
		started = true;
		d[nd++] = fp[i];
	}
	while (nd && d[nd - 1] == '0')
		nd--;
	if (nd == 0) {
		util_buf_put_u8(out, 0x80);
		return;
	}
	uint8_t inv = neg ? 0xff : 0x00;
	util_buf_put_u8(out, neg ? 0x40 : 0xc0);
	uint32_t ex = (uint32_t)(int32_t)exp ^ 0x80000000u;
	util_buf_put_be32(out, neg ? ~ex : ex);
	for (size_t i = 0; i < nd; i++)
		util_buf_put_u8(out, (uint8_t)d[i] ^ inv);
	util_buf_put_u8(out, inv);
}

static void put_entry(jbe e, util_buf *out, int depth);

static void put_container(jbc c, util_buf *out, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	uint32_t n = jbc_count(c);
	if (jbc_is_object(c)) {
		util_buf_put_u8(out, K_OBJECT);
		util_buf_put_be32(out, n);
		for (uint32_t i = 0; i < n; i++) {
			jbe k = jbc_child(c, i);
			put_string(k.p, k.len, out);
			put_entry(jbc_child(c, n + i), out, depth + 1);
		}
		return;
	}
	util_buf_put_u8(out, K_ARRAY);
	util_buf_put_be32(out, n);
	util_buf_put_u8(out, jbc_is_scalar(c) ? 0x00 : 0x01);
	for (uint32_t i = 0; i < n; i++)
		put_entry(jbc_child(c, i), out, depth + 1);
}

static void put_entry(jbe e, util_buf *out, int depth)
{
	switch (e.type) {
	case JE_NULL:
		util_buf_put_u8(out, K_NULL);
		return;
	case JE_STRING:
		util_buf_put_u8(out, K_STRING);
		put_string(e.p, e.len, out);
		return;
	case JE_NUMBER:
		util_buf_put_u8(out, K_NUMBER);
		put_number((const char *)e.p, e.len, out);
		return;
	case JE_TRUE:
	case JE_FALSE:
		util_buf_put_u8(out, K_BOOL);
		util_buf_put_u8(out, e.type == JE_TRUE);
		return;
	default:
		put_container(jbe_container(e), out, depth);
	}
}

void jsonb_keyenc(ty_datum v, util_buf *out)
{
	put_container(jb_root(v), out, 0);
}

/* ---------------------------------------------------------------- decoding */

typedef struct rd {
	const uint8_t *p, *end;
	bool bad;
} rd;

static bool need(rd *r, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n)
		r->bad = true;
	return !r->bad;
}

static bool get_string(rd *r, jv *v)
{
	char *buf = ty_alloc((size_t)(r->end - r->p) + 1);
	size_t n = 0;
	for (;;) {
		if (!need(r, 2))
			return false;
		if (r->p[0] == 0 && r->p[1] == 0x01) {
			r->p += 2;
			break;
		}
		if (r->p[0] == 0) {
			if (r->p[1] != 0xff)
				return r->bad = true, false;
			buf[n++] = 0;
			r->p += 2;
		} else {
			buf[n++] = (char)*r->p++;
		}
	}
	memset(v, 0, sizeof *v);
	v->type = JV_STRING;
	v->s = buf;
	v->len = (uint32_t)n;
	return true;
}

static bool get_number(rd *r, jv *v)
{
	if (!need(r, 1))
		return false;
	uint8_t cls = *r->p++;
	memset(v, 0, sizeof *v);
	v->type = JV_NUMBER;
	if (cls == 0x80) {
		v->s = "0";
		v->len = 1;
		return true;
	}
	if ((cls != 0x40 && cls != 0xc0) || !need(r, 4))
		return r->bad = true, false;
	bool neg = cls == 0x40;
	uint8_t inv = neg ? 0xff : 0x00;
	uint32_t ex = util_get_be32(r->p);
	r->p += 4;
	int64_t exp = (int32_t)((neg ? ~ex : ex) ^ 0x80000000u);
	const uint8_t *ds = r->p;
	while (need(r, 1) && (uint8_t)(*r->p ^ inv) != 0)
		r->p++;
	if (r->bad)
		return false;
	size_t nd = (size_t)(r->p - ds);
	r->p++;
	if (nd == 0 || exp > 200000 || exp < -200000)
		return r->bad = true, false;
	/* Digits as put_number writes them: decimal, no leading or trailing zero. */
	for (size_t i = 0; i < nd; i++) {
		uint8_t c = ds[i] ^ inv;
		if (c < '0' || c > '9' || ((i == 0 || i == nd - 1) && c == '0'))
			return r->bad = true, false;
	}
	size_t cap = nd + (size_t)(exp < 0 ? -exp : exp) + 4;
	char *t = ty_alloc(cap);
	size_t o = 0;
	if (neg)
		t[o++] = '-';
	if (exp <= 0) {
		t[o++] = '0';
		t[o++] = '.';
		for (int64_t i = 0; i < -exp; i++)
			t[o++] = '0';
		for (size_t i = 0; i < nd; i++)
			t[o++] = (char)(ds[i] ^ inv);
	} else {
		for (int64_t i = 0; i < exp; i++)
			t[o++] = (size_t)i < nd ? (char)(ds[i] ^ inv) : '0';
		if ((size_t)exp < nd) {
			t[o++] = '.';
			for (size_t i = (size_t)exp; i < nd; i++)
				t[o++] = (char)(ds[i] ^ inv);
		}
	}
	v->s = t;
	v->len = (uint32_t)o;
	return true;
}

static bool get_entry(rd *r, jv *v, int depth);

static bool get_container(rd *r, jv *v, uint8_t tag, bool *raw, int depth)
{
	if (depth > JSON_MAX_DEPTH || !need(r, 4))
		return r->bad = true, false;
	uint32_t n = util_get_be32(r->p);
	r->p += 4;
	/* Every child takes at least one byte. */
	if (n > (size_t)(r->end - r->p))
		return r->bad = true, false;
	memset(v, 0, sizeof *v);
	*raw = false;
	if (tag == K_OBJECT) {
		v->type = JV_OBJECT;
		v->n = n;
		v->kids = ty_alloc(sizeof *v->kids * 2 * (n ? n : 1));
		for (uint32_t i = 0; i < n; i++)
			if (!get_string(r, &v->kids[2 * i]) || !get_entry(r, &v->kids[2 * i + 1], depth + 1))
				return false;
		return true;
	}
	if (!need(r, 1))
		return false;
	*raw = *r->p++ == 0x00;
	v->type = JV_ARRAY;
	v->n = n;
	v->kids = ty_alloc(sizeof *v->kids * (n ? n : 1));
	for (uint32_t i = 0; i < n; i++)
		if (!get_entry(r, &v->kids[i], depth + 1))
			return false;
	return true;
}

static bool get_entry(rd *r, jv *v, int depth)
{
	if (!need(r, 1))
		return false;
	uint8_t tag = *r->p++;
	bool raw = false;
	switch (tag) {
	case K_NULL:
		memset(v, 0, sizeof *v);
		v->type = JV_NULL;
		return true;
	case K_STRING:
		return get_string(r, v);
	case K_NUMBER:
		return get_number(r, v);
	case K_BOOL:
		if (!need(r, 1))
			return false;
		memset(v, 0, sizeof *v);
		v->type = JV_BOOL;
		v->b = *r->p++ != 0;
		return true;
	case K_ARRAY:
	case K_OBJECT:
		return get_container(r, v, tag, &raw, depth) && !raw;
	default:
		return r->bad = true, false;
	}
}

size_t jsonb_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	rd r = {p, end, false};
	if (!need(&r, 1))
		return 0;
	uint8_t tag = *r.p++;
	if (tag != K_ARRAY && tag != K_OBJECT)
		return 0;
	jv v;
	bool raw = false;
	if (!get_container(&r, &v, tag, &raw, 0))
		return 0;
	if (raw) {
		if (v.n != 1 || v.kids[0].type == JV_ARRAY || v.kids[0].type == JV_OBJECT)
			return 0;
		*out = jv_to_jsonb(&v.kids[0]);
	} else {
		jv_normalize(&v, true); /* keys from a damaged key stay searchable */
		*out = jv_to_jsonb(&v);
	}
	return (size_t)(r.p - p);
}
