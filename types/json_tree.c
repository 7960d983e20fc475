/*
 * json_tree.c — the in-memory JSON tree (jv): constructors, jsonb object
 * normalisation (keys ordered by length then bytes, the last duplicate
 * wins), and jsonb's text output, compact ('{"a": 1, "b": [1, 2]}') and
 * pretty (jsonb_pretty), with PostgreSQL's escape_json.
 */
#include "json_int.h"

#include <stdlib.h>

jv *jv_new(uint8_t type)
{
	jv *v = ty_alloc0(sizeof *v);
	v->type = type;
	return v;
}

jv *jv_string(const char *s, size_t len)
{
	jv *v = jv_new(JV_STRING);
	v->s = s;
	v->len = (uint32_t)len;
	return v;
}

jv *jv_number(const char *s, size_t len)
{
	jv *v = jv_new(JV_NUMBER);
	v->s = s;
	v->len = (uint32_t)len;
	return v;
}

jv *jv_bool(bool b)
{
	jv *v = jv_new(JV_BOOL);
	v->b = b;
	return v;
}

/* ---------------------------------------------------------------- normalisation */

typedef struct pair_ref {
	const jv *k, *v;
	uint32_t order;
} pair_ref;

static int key_cmp(const jv *a, const jv *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->s, b->s, a->len);
}

static int pair_cmp(const void *x, const void *y)
{
	const pair_ref *a = x, *b = y;
	int c = key_cmp(a->k, b->k);
	if (c)
		return c;
	/* Later duplicates first, so that the first of a run is the one kept. */
	return a->order > b->order ? -1 : 1;
}

static void normalize_object(jv *v)
{
	if (v->n < 2)
		return;
	bool sorted = true;
	for (uint32_t i = 1; i < v->n && sorted; i++)
		sorted = key_cmp(&v->kids[2 * (i - 1)], &v->kids[2 * i]) < 0;
	if (sorted)
		return;
	pair_ref *refs = ty_alloc(sizeof *refs * v->n);
	for (uint32_t i = 0; i < v->n; i++) {
		refs[i].k = &v->kids[2 * i];
		refs[i].v = &v->kids[2 * i + 1];
		refs[i].order = i;
	}
	qsort(refs, v->n, sizeof *refs, pair_cmp);
	jv *kids = ty_alloc(sizeof *kids * 2 * v->n);
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->n; i++) {
		if (n > 0 && key_cmp(&kids[2 * (n - 1)], refs[i].k) == 0)
			continue;
		kids[2 * n] = *refs[i].k;
		kids[2 * n + 1] = *refs[i].v;
		n++;
	}
	v->kids = kids;
	v->n = n;
}

void jv_normalize(jv *v, bool deep)
{
	if (v->type == JV_OBJECT)
		normalize_object(v);
	if (!deep)
		return;
	if (v->type == JV_OBJECT) {
		for (uint32_t i = 0; i < v->n; i++)
			jv_normalize(&v->kids[2 * i + 1], true);
	} else if (v->type == JV_ARRAY) {
		for (uint32_t i = 0; i < v->n; i++)
			jv_normalize(&v->kids[i], true);
	}
}

/* ---------------------------------------------------------------- output */

void json_escape(util_buf *out, const char *s, size_t len)
{
	util_buf_reserve(out, len + 2);
	util_buf_putc(out, '"');
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *rep = NULL;
		char tmp[8];
		switch (c) {
		case '\b':
			rep = "\\b";
			break;
		case '\f':
			rep = "\\f";
			break;
		case '\n':
			rep = "\\n";
			break;
		case '\r':
			rep = "\\r";
			break;
		case '\t':
			rep = "\\t";
			break;
		case '"':
			rep = "\\\"";
			break;
		case '\\':
			rep = "\\\\";
			break;
		default:
			if (c < ' ') {
				static const char hex[] = "0123456789abcdef";
				memcpy(tmp, "\\u00", 4);
				tmp[4] = hex[c >> 4];
				tmp[5] = hex[c & 15];
				tmp[6] = '\0';
				rep = tmp;
			}
		}
		if (!rep)
			continue;
		util_buf_append(out, s + run, i - run);
		util_buf_puts(out, rep);
		run = i + 1;
	}
	util_buf_append(out, s + run, len - run);
	util_buf_putc(out, '"');
}

void ty_json_escape(util_buf *out, const char *s, size_t len)
{
	json_escape(out, s, len);
}

static void indent(util_buf *out, int level)
{
	util_buf_putc(out, '\n');
	for (int i = 0; i < level; i++)
		util_buf_puts(out, "    ");
}

static void out_scalar(const jv *v, util_buf *out)
{
	switch (v->type) {
	case JV_NULL:
		util_buf_puts(out, "null");
		break;
	case JV_STRING:
		json_escape(out, v->s, v->len);
		break;
	case JV_NUMBER:
		util_buf_append(out, v->s, v->len);
		break;
	case JV_BOOL:
		util_buf_puts(out, v->b ? "true" : "false");
		break;
	}
}

static void out_rec(const jv *v, util_buf *out, bool pretty, int level)
{
	if (v->type != JV_ARRAY && v->type != JV_OBJECT) {
		out_scalar(v, out);
		return;
	}
	bool obj = v->type == JV_OBJECT;
	util_buf_putc(out, obj ? '{' : '[');
	for (uint32_t i = 0; i < v->n; i++) {
		if (i)
			util_buf_puts(out, pretty ? "," : ", ");
		if (pretty)
			indent(out, level + 1);
		if (obj) {
			json_escape(out, v->kids[2 * i].s, v->kids[2 * i].len);
			util_buf_puts(out, ": ");
			out_rec(&v->kids[2 * i + 1], out, pretty, level + 1);
		} else {
			out_rec(&v->kids[i], out, pretty, level + 1);
		}
	}
	if (pretty)
		indent(out, level);
	util_buf_putc(out, obj ? '}' : ']');
}

void jv_out(const jv *v, util_buf *out, bool pretty)
{
	out_rec(v, out, pretty, 0);
}

static void compact_rec(const jv *v, util_buf *out, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		json_depth_error();
	if (v->type != JV_ARRAY && v->type != JV_OBJECT) {
		out_scalar(v, out);
		return;
	}
	bool obj = v->type == JV_OBJECT;
	util_buf_putc(out, obj ? '{' : '[');
	for (uint32_t i = 0; i < v->n; i++) {
		if (i)
			util_buf_putc(out, ',');
		if (obj) {
			json_escape(out, v->kids[2 * i].s, v->kids[2 * i].len);
			util_buf_putc(out, ':');
			compact_rec(&v->kids[2 * i + 1], out, depth + 1);
		} else {
			compact_rec(&v->kids[i], out, depth + 1);
		}
	}
	util_buf_putc(out, obj ? '}' : ']');
}

void jv_out_compact(const jv *v, util_buf *out)
{
	compact_rec(v, out, 0);
}
