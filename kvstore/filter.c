/*
 * filter.c — scan filters (HBase style): built-in column range, column
 * prefix, multiple column prefix, row prefix, single column value, AND/OR
 * lists, and custom filters from upper layers. Column filters skip with
 * seek hints (to the first wanted qualifier, or past the family), which the
 * scan turns into block-index seeks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

enum { F_CUSTOM = 0, F_COLRANGE, F_COLPREFIX, F_MULTIPREFIX, F_ROWPREFIX, F_SCV, F_LIST };

/* A hint buffer: the cell returned by get_hint points into it. */
typedef struct hintbuf {
	util_buf row, fam, qual;
} hintbuf;

static void hint_set(hintbuf *h, kv_slice row, kv_slice fam, const void *q, size_t ql, bool fam_after)
{
	util_buf_reset(&h->row);
	util_buf_reset(&h->fam);
	util_buf_reset(&h->qual);
	util_buf_append(&h->row, row.data, row.len);
	util_buf_append(&h->fam, fam.data, fam.len);
	if (fam_after)
		util_buf_putc(&h->fam, 0);
	if (ql)
		util_buf_append(&h->qual, q, ql);
}

static void hint_out(const hintbuf *h, kv_cell *out)
{
	memset(out, 0, sizeof(*out));
	out->row.data = (const uint8_t *)h->row.data;
	out->row.len = h->row.len;
	out->family.data = (const uint8_t *)h->fam.data;
	out->family.len = h->fam.len;
	out->qualifier.data = (const uint8_t *)h->qual.data;
	out->qualifier.len = h->qual.len;
}

static void hint_free(hintbuf *h)
{
	util_buf_free(&h->row);
	util_buf_free(&h->fam);
	util_buf_free(&h->qual);
}

static kv_filter *new_filter(int kind, void *arg)
{
	kv_filter *f = util_xcalloc(1, sizeof(*f));
	f->kind = kind;
	f->arg = arg;
	return f;
}

static uint8_t *dup_bytes(const void *p, size_t n)
{
	uint8_t *d = util_xmalloc(n ? n : 1);
	if (n)
		memcpy(d, p, n);
	return d;
}

static bool has_prefix(kv_slice s, const uint8_t *p, size_t pl)
{
	return s.len >= pl && (pl == 0 || memcmp(s.data, p, pl) == 0);
}

/* ---------------------------------------------------------------- custom */

kv_filter *kv_filter_custom(const kv_filter_vtbl *vt, void *arg)
{
	kv_filter *f = new_filter(F_CUSTOM, arg);
	f->vt = *vt;
	f->needs_row = vt->filter_row != NULL;
	return f;
}

/* ---------------------------------------------------------------- column range */

typedef struct colrange {
	uint8_t *min, *max;
	size_t minlen, maxlen;
	bool min_incl, max_incl, has_min, has_max;
	hintbuf h;
} colrange;

static kv_filter_code colrange_cell(void *arg, const kv_cell *c)
{
	colrange *r = arg;
	if (r->has_min) {
		int cmp = kv_slice_cmp(c->qualifier, (kv_slice){r->min, r->minlen});
		if (cmp < 0) {
			hint_set(&r->h, c->row, c->family, r->min, r->minlen, false);
			return KV_FILTER_SEEK_HINT;
		}
		if (cmp == 0 && !r->min_incl)
			return KV_FILTER_NEXT_COL;
	}
	if (r->has_max) {
		int cmp = kv_slice_cmp(c->qualifier, (kv_slice){r->max, r->maxlen});
		if (cmp > 0 || (cmp == 0 && !r->max_incl)) {
			hint_set(&r->h, c->row, c->family, NULL, 0, true);
			return KV_FILTER_SEEK_HINT;
		}
	}
	return KV_FILTER_INCLUDE;
}

static void colrange_hint(void *arg, const kv_cell *cur, kv_cell *hint)
{
	hint_out(&((colrange *)arg)->h, hint);
}

static void colrange_free(void *arg)
{
	colrange *r = arg;
	free(r->min);
	free(r->max);
	hint_free(&r->h);
	free(r);
}

kv_filter *kv_filter_column_range(const void *min, size_t minlen, bool min_incl, const void *max,
				  size_t maxlen, bool max_incl)
{
	colrange *r = util_xcalloc(1, sizeof(*r));
	if (min) {
		r->min = dup_bytes(min, minlen);
		r->minlen = minlen;
		r->has_min = true;
	}
	if (max) {
		r->max = dup_bytes(max, maxlen);
		r->maxlen = maxlen;
		r->has_max = true;
	}
	r->min_incl = min_incl;
	r->max_incl = max_incl;
	kv_filter *f = new_filter(F_COLRANGE, r);
	f->vt.filter_cell = colrange_cell;
	f->vt.get_hint = colrange_hint;
	f->vt.free = colrange_free;
	return f;
}

/* ---------------------------------------------------------------- column prefixes */

typedef struct colprefix {
	kv_slice *p; /* sorted */
	int n;
	hintbuf h;
} colprefix;

static kv_filter_code colprefix_cell(void *arg, const kv_cell *c)
{
	colprefix *cp = arg;
	for (int i = 0; i < cp->n; i++) {
		if (has_prefix(c->qualifier, cp->p[i].data, cp->p[i].len))
			return KV_FILTER_INCLUDE;
		if (kv_slice_cmp(c->qualifier, cp->p[i]) < 0) {
			hint_set(&cp->h, c->row, c->family, cp->p[i].data, cp->p[i].len, false);
			return KV_FILTER_SEEK_HINT;
		}
	}
	hint_set(&cp->h, c->row, c->family, NULL, 0, true);
	return KV_FILTER_SEEK_HINT;
}

static void colprefix_hint(void *arg, const kv_cell *cur, kv_cell *hint)
{
	hint_out(&((colprefix *)arg)->h, hint);
}

static void colprefix_free(void *arg)
{
	colprefix *cp = arg;
	for (int i = 0; i < cp->n; i++)
		free((void *)cp->p[i].data);
	free(cp->p);
	hint_free(&cp->h);
	free(cp);
}

static int slice_qcmp(const void *a, const void *b)
{
	return kv_slice_cmp(*(const kv_slice *)a, *(const kv_slice *)b);
}

kv_filter *kv_filter_multi_column_prefix(const kv_slice *prefixes, int n)
{
	colprefix *cp = util_xcalloc(1, sizeof(*cp));
	cp->p = util_xcalloc((size_t)(n > 0 ? n : 1), sizeof(kv_slice));
	for (int i = 0; i < n; i++) {
		cp->p[i].data = dup_bytes(prefixes[i].data, prefixes[i].len);
		cp->p[i].len = prefixes[i].len;
	}
	cp->n = n > 0 ? n : 0;
	qsort(cp->p, (size_t)cp->n, sizeof(kv_slice), slice_qcmp);
	kv_filter *f = new_filter(F_MULTIPREFIX, cp);
	f->vt.filter_cell = colprefix_cell;
	f->vt.get_hint = colprefix_hint;
	f->vt.free = colprefix_free;
	return f;
}

kv_filter *kv_filter_column_prefix(const void *prefix, size_t len)
{
	kv_slice s = {prefix, len};
	kv_filter *f = kv_filter_multi_column_prefix(&s, 1);
	f->kind = F_COLPREFIX;
	return f;
}

/* ---------------------------------------------------------------- row prefix */

typedef struct rowprefix {
	uint8_t *p;
	size_t n;
} rowprefix;

static bool rowprefix_row(void *arg, kv_slice row)
{
	rowprefix *rp = arg;
	return !has_prefix(row, rp->p, rp->n);
}

static kv_filter_code rowprefix_cell(void *arg, const kv_cell *c)
{
	return KV_FILTER_INCLUDE;
}

static void rowprefix_free(void *arg)
{
	rowprefix *rp = arg;
	free(rp->p);
	free(rp);
}

kv_filter *kv_filter_row_prefix(const void *prefix, size_t len)
{
	rowprefix *rp = util_xcalloc(1, sizeof(*rp));
	rp->p = dup_bytes(prefix, len);
	rp->n = len;
	kv_filter *f = new_filter(F_ROWPREFIX, rp);
	f->vt.filter_row_key = rowprefix_row;
	f->vt.filter_cell = rowprefix_cell;
	f->vt.free = rowprefix_free;
	f->prefix = rp->p;
	f->prefix_len = len;
	return f;
}

/* ---------------------------------------------------------------- single column value */

typedef struct scv {
	char fam[32];
	size_t flen;
	uint8_t *q, *v;
	size_t ql, vl;
	kv_cmp_op op;
	bool if_missing;
	bool seen, matched;
} scv;

static bool cmp_holds(kv_cmp_op op, kv_slice cur, kv_slice want)
{
	int c = ikey_bytes_cmp(cur.data, cur.len, want.data, want.len);
	switch (op) {
	case KV_CMP_EQ:
		return c == 0;
	case KV_CMP_NE:
		return c != 0;
	case KV_CMP_LT:
		return c < 0;
	case KV_CMP_LE:
		return c <= 0;
	case KV_CMP_GT:
		return c > 0;
	case KV_CMP_GE:
		return c >= 0;
	case KV_CMP_PRESENT:
		return true;
	case KV_CMP_ABSENT:
		return false;
	}
	return false;
}

static kv_filter_code scv_cell(void *arg, const kv_cell *c)
{
	scv *f = arg;
	if (!f->seen && c->family.len == f->flen &&
	    !ikey_bytes_cmp(c->family.data, f->flen, (const uint8_t *)f->fam, f->flen) &&
	    c->qualifier.len == f->ql && !ikey_bytes_cmp(c->qualifier.data, f->ql, f->q, f->ql)) {
		f->seen = true;
		f->matched = cmp_holds(f->op, c->value, (kv_slice){f->v, f->vl});
		if (!f->matched)
			return KV_FILTER_NEXT_ROW; /* the row is dropped anyway */
	}
	return KV_FILTER_INCLUDE;
}

static bool scv_row(void *arg, const kv_cell *cells, size_t n)
{
	scv *f = arg;
	return f->seen ? !f->matched : f->if_missing;
}

static void scv_reset(void *arg)
{
	scv *f = arg;
	f->seen = f->matched = false;
}

static void scv_free(void *arg)
{
	scv *f = arg;
	free(f->q);
	free(f->v);
	free(f);
}

kv_filter *kv_filter_single_column_value(const char *family, const void *qual, size_t qlen, kv_cmp_op op,
					 const void *val, size_t vlen, bool filter_if_missing)
{
	scv *s = util_xcalloc(1, sizeof(*s));
	snprintf(s->fam, sizeof(s->fam), "%s", family ? family : "");
	s->flen = strlen(s->fam);
	s->q = dup_bytes(qual, qlen);
	s->ql = qlen;
	s->v = dup_bytes(val, vlen);
	s->vl = vlen;
	s->op = op;
	s->if_missing = filter_if_missing;
	kv_filter *f = new_filter(F_SCV, s);
	f->vt.filter_cell = scv_cell;
	f->vt.filter_row = scv_row;
	f->vt.reset = scv_reset;
	f->vt.free = scv_free;
	f->needs_row = true;
	return f;
}

/* ---------------------------------------------------------------- lists */

typedef struct flist {
	kv_filter_list_op op;
	kv_filter **kids;
	int n;
	hintbuf h;
	util_buf best, tmp; /* target keys while combining codes */
} flist;

/* The position a code skips to, as an ikey (SKIP: the cell itself). */
static void code_target(util_buf *out, kv_filter *k, kv_filter_code code, const kv_cell *c)
{
	util_buf_reset(out);
	kv_cell h = *c;
	uint8_t tmp[IKEY_ROW_MAX + 2];
	uint8_t q0[1] = {0};
	kv_ts ts = c->ts;
	uint8_t type = c->type;
	util_buf qb = UTIL_BUF_INIT;
	switch (code) {
	case KV_FILTER_NEXT_COL:
		util_buf_append(&qb, c->qualifier.data, c->qualifier.len);
		util_buf_append(&qb, q0, 1);
		h.qualifier.data = (const uint8_t *)qb.data;
		h.qualifier.len = qb.len;
		ts = KV_TS_MAX;
		type = IKEY_TYPE_MIN_SORT;
		break;
	case KV_FILTER_NEXT_ROW:
		memcpy(tmp, c->row.data, c->row.len);
		tmp[c->row.len] = 0;
		h.row.data = tmp;
		h.row.len = c->row.len + 1;
		h.family.len = 0;
		h.qualifier.len = 0;
		ts = KV_TS_MAX;
		type = IKEY_TYPE_MIN_SORT;
		break;
	case KV_FILTER_SEEK_HINT:
		memset(&h, 0, sizeof(h));
		if (k->vt.get_hint)
			k->vt.get_hint(k->arg, c, &h);
		ts = KV_TS_MAX;
		type = IKEY_TYPE_MIN_SORT;
		break;
	default:
		break;
	}
	if (h.row.len > IKEY_ROW_MAX + 1 || h.family.len > IKEY_FAM_MAX + 1) {
		h = *c;
		ts = c->ts;
		type = c->type;
	}
	util_buf_reserve(out, ikey_size(h.row.len, h.family.len, h.qualifier.len));
	out->len = ikey_encode((uint8_t *)out->data, h.row.data, h.row.len, h.family.data, h.family.len,
			       h.qualifier.data, h.qualifier.len, ts, type);
	util_buf_free(&qb);
}

static kv_filter_code list_cell(void *arg, const kv_cell *c)
{
	flist *l = arg;
	bool and = l->op == KV_FILTER_AND;
	kv_filter_code res = KV_FILTER_INCLUDE;
	bool any_include = false, have = false;
	for (int i = 0; i < l->n; i++) {
		kv_filter *k = l->kids[i];
		kv_filter_code code = k->vt.filter_cell(k->arg, c);
		if (code == KV_FILTER_INCLUDE) {
			any_include = true;
			continue;
		}
		if (code == KV_FILTER_DONE) {
			if (and)
				return KV_FILTER_DONE;
			code_target(&l->tmp, k, KV_FILTER_NEXT_ROW, c);
			util_buf_reset(&l->tmp);
			util_buf_put_u8(&l->tmp, 0xff); /* "infinity" marker handled below */
		} else {
			code_target(&l->tmp, k, code, c);
		}
		bool inf = code == KV_FILTER_DONE;
		bool better;
		if (!have)
			better = true;
		else if (inf)
			better = and;
		else if (res == KV_FILTER_DONE)
			better = !and;
		else {
			int cmp = ikey_cmp((const uint8_t *)l->tmp.data, l->tmp.len,
					   (const uint8_t *)l->best.data, l->best.len);
			better = and? cmp > 0 : cmp < 0;
		}
		if (better) {
			have = true;
			res = code;
			util_buf_reset(&l->best);
			util_buf_append(&l->best, l->tmp.data, l->tmp.len);
			if (code == KV_FILTER_SEEK_HINT) {
				kv_cell h;
				k->vt.get_hint(k->arg, c, &h);
				hint_set(&l->h, h.row, h.family, h.qualifier.data, h.qualifier.len, false);
			}
		}
	}
	if (!and&&any_include)
		return KV_FILTER_INCLUDE;
	if (!have)
		return KV_FILTER_INCLUDE;
	return res;
}

static void list_hint(void *arg, const kv_cell *cur, kv_cell *hint)
{
	hint_out(&((flist *)arg)->h, hint);
}

static bool list_row_key(void *arg, kv_slice row)
{
	flist *l = arg;
	bool and = l->op == KV_FILTER_AND;
	int skips = 0;
	for (int i = 0; i < l->n; i++) {
		kv_filter *k = l->kids[i];
		bool s = k->vt.filter_row_key && k->vt.filter_row_key(k->arg, row);
		if (s && and)
			return true;
		skips += s;
	}
	return !and&&l->n > 0 && skips == l->n;
}

static bool list_row(void *arg, const kv_cell *cells, size_t n)
{
	flist *l = arg;
	bool and = l->op == KV_FILTER_AND;
	int drops = 0;
	for (int i = 0; i < l->n; i++) {
		kv_filter *k = l->kids[i];
		bool d = k->vt.filter_row && k->vt.filter_row(k->arg, cells, n);
		if (d && and)
			return true;
		drops += d;
	}
	return !and&&l->n > 0 && drops == l->n;
}

static void list_reset(void *arg)
{
	flist *l = arg;
	for (int i = 0; i < l->n; i++)
		if (l->kids[i]->vt.reset)
			l->kids[i]->vt.reset(l->kids[i]->arg);
}

static void list_free(void *arg)
{
	flist *l = arg;
	for (int i = 0; i < l->n; i++)
		kv_filter_free(l->kids[i]);
	free(l->kids);
	hint_free(&l->h);
	util_buf_free(&l->best);
	util_buf_free(&l->tmp);
	free(l);
}

kv_filter *kv_filter_list(kv_filter_list_op op, kv_filter **filters, int n)
{
	flist *l = util_xcalloc(1, sizeof(*l));
	l->op = op;
	l->n = n > 0 ? n : 0;
	l->kids = util_xcalloc((size_t)(l->n ? l->n : 1), sizeof(kv_filter *));
	kv_filter *f = new_filter(F_LIST, l);
	for (int i = 0; i < l->n; i++) {
		l->kids[i] = filters[i];
		f->needs_row |= filters[i]->needs_row;
		if (op == KV_FILTER_AND && filters[i]->prefix && !f->prefix) {
			f->prefix = filters[i]->prefix;
			f->prefix_len = filters[i]->prefix_len;
		}
	}
	f->vt.filter_cell = list_cell;
	f->vt.get_hint = list_hint;
	f->vt.filter_row_key = list_row_key;
	f->vt.filter_row = list_row;
	f->vt.reset = list_reset;
	f->vt.free = list_free;
	return f;
}

const char *filter_essential_family(const kv_filter *f)
{
	if (f && f->kind == F_SCV) {
		const scv *s = f->arg;
		if (s->if_missing && s->flen)
			return s->fam;
	}
	return NULL;
}

void kv_filter_free(kv_filter *f)
{
	if (!f)
		return;
	if (f->vt.free)
		f->vt.free(f->arg);
	free(f);
}
