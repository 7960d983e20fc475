/* batch.c — building kv batches: mutations, conditions and conflict rows,
 * with every byte copied into the batch. Bad arguments mark the batch bad;
 * the commit then fails with that status and writes nothing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

kv_batch *kv_batch_new(void)
{
	return util_xcalloc(1, sizeof(kv_batch));
}

void kv_batch_free(kv_batch *b)
{
	if (!b)
		return;
	util_buf_free(&b->data);
	free(b->m);
	free(b->c);
	free(b->k);
	free(b);
}

void kv_batch_clear(kv_batch *b)
{
	util_buf_reset(&b->data);
	b->n = b->nc = b->nk = 0;
	b->bad = KV_OK;
	b->badmsg[0] = 0;
}

size_t kv_batch_count(const kv_batch *b)
{
	return b->n;
}

size_t kv_batch_byte_size(const kv_batch *b)
{
	return b->data.len + b->n * 24;
}

static void mark_bad(kv_batch *b, kv_status st, const char *fmt, ...)
{
	if (b->bad)
		return;
	b->bad = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->badmsg, sizeof(b->badmsg), fmt, ap);
	va_end(ap);
}

static size_t put_bytes(kv_batch *b, const void *p, size_t n)
{
	size_t off = b->data.len;
	if (n)
		util_buf_append(&b->data, p, n);
	return off;
}

static bool check_args(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		       const void *qual, size_t qlen, size_t vlen)
{
	if (!t) {
		mark_bad(b, KV_INVALID, "NULL kv table in batch");
		return false;
	}
	if ((!row && rlen) || (!qual && qlen)) {
		mark_bad(b, KV_INVALID, "NULL bytes with a non-zero length in batch");
		return false;
	}
	if (rlen > IKEY_ROW_MAX) {
		mark_bad(b, KV_TOO_LARGE, "row key of %zu bytes exceeds %d", rlen, IKEY_ROW_MAX);
		return false;
	}
	if (qlen > KV_QUAL_MAX) {
		mark_bad(b, KV_TOO_LARGE, "qualifier of %zu bytes exceeds %u", qlen, KV_QUAL_MAX);
		return false;
	}
	if (vlen > KV_VALUE_MAX) {
		mark_bad(b, KV_TOO_LARGE, "value of %zu bytes exceeds %u", vlen, KV_VALUE_MAX);
		return false;
	}
	if (family && (family[0] == 0 || strlen(family) > IKEY_FAM_MAX)) {
		mark_bad(b, KV_INVALID, "bad family name");
		return false;
	}
	return true;
}

static kv_mut *new_mut(kv_batch *b)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->m = util_xrealloc(b->m, b->cap * sizeof(kv_mut));
	}
	kv_mut *m = &b->m[b->n++];
	memset(m, 0, sizeof(*m));
	return m;
}

static void add_mut(kv_batch *b, kv_table *t, uint8_t type, const void *row, size_t rlen, const char *family,
		    const void *qual, size_t qlen, kv_ts ts, const void *val, size_t vlen, int64_t delta)
{
	if (b->bad || !check_args(b, t, row, rlen, family, qual, qlen, vlen))
		return;
	kv_mut *m = new_mut(b);
	m->t = t;
	m->type = type;
	if (family)
		snprintf(m->fam, sizeof(m->fam), "%s", family);
	m->roff = put_bytes(b, row, rlen);
	m->rlen = rlen;
	m->qoff = put_bytes(b, qual, qlen);
	m->qlen = qlen;
	m->voff = put_bytes(b, val, vlen);
	m->vlen = vlen;
	m->ts = ts;
	m->delta = delta;
}

void kv_batch_put(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		  const void *qual, size_t qlen, kv_ts ts, const void *val, size_t vlen)
{
	if (!family) {
		mark_bad(b, KV_INVALID, "put without a family");
		return;
	}
	if (!val && vlen) {
		mark_bad(b, KV_INVALID, "NULL value with a non-zero length");
		return;
	}
	add_mut(b, t, KV_PUT, row, rlen, family, qual, qlen, ts, val, vlen, 0);
}

void kv_batch_delete(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		     const void *qual, size_t qlen, kv_ts ts, kv_cell_type type)
{
	if (!family) {
		mark_bad(b, KV_INVALID, "delete without a family");
		return;
	}
	switch (type) {
	case KV_DELETE:
	case KV_DELETE_COLUMN:
		break;
	case KV_DELETE_FAMILY:
		qual = NULL;
		qlen = 0;
		break;
	case KV_DELETE_FAMILY_VERSION:
		if (ts == KV_TS_LATEST) {
			mark_bad(b, KV_INVALID, "DeleteFamilyVersion needs an explicit timestamp");
			return;
		}
		qual = NULL;
		qlen = 0;
		break;
	default:
		mark_bad(b, KV_INVALID, "bad delete type %d", (int)type);
		return;
	}
	add_mut(b, t, (uint8_t)type, row, rlen, family, qual, qlen, ts, NULL, 0, 0);
}

void kv_batch_delete_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts ts)
{
	add_mut(b, t, MUT_DELETE_ROW, row, rlen, NULL, NULL, 0, ts, NULL, 0, 0);
}

void batch_add_incr(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		    const void *qual, size_t qlen, int64_t delta)
{
	if (!family) {
		mark_bad(b, KV_INVALID, "increment without a family");
		return;
	}
	add_mut(b, t, MUT_INCR, row, rlen, family, qual, qlen, KV_TS_LATEST, NULL, 0, delta);
}

void batch_add_append(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, const void *val, size_t vlen)
{
	if (!family || (!val && vlen)) {
		mark_bad(b, KV_INVALID, "bad append arguments");
		return;
	}
	add_mut(b, t, MUT_APPEND, row, rlen, family, qual, qlen, KV_TS_LATEST, val, vlen, 0);
}

void kv_batch_require(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, kv_cmp_op op, const void *val, size_t vlen)
{
	if (b->bad || !family || !check_args(b, t, row, rlen, family, qual, qlen, vlen)) {
		if (!family)
			mark_bad(b, KV_INVALID, "condition without a family");
		return;
	}
	if ((unsigned)op > KV_CMP_PRESENT || (!val && vlen)) {
		mark_bad(b, KV_INVALID, "bad condition");
		return;
	}
	if (b->nc == b->cc) {
		b->cc = b->cc ? 2 * b->cc : 4;
		b->c = util_xrealloc(b->c, b->cc * sizeof(kv_cond));
	}
	kv_cond *c = &b->c[b->nc++];
	memset(c, 0, sizeof(*c));
	c->t = t;
	snprintf(c->fam, sizeof(c->fam), "%s", family);
	c->roff = put_bytes(b, row, rlen);
	c->rlen = rlen;
	c->qoff = put_bytes(b, qual, qlen);
	c->qlen = qlen;
	c->voff = put_bytes(b, val, vlen);
	c->vlen = vlen;
	c->op = op;
}

void kv_batch_check_row(kv_batch *b, kv_table *t, const void *row, size_t rlen)
{
	if (b->bad || !check_args(b, t, row, rlen, NULL, NULL, 0, 0))
		return;
	if (b->nk == b->ck) {
		b->ck = b->ck ? 2 * b->ck : 4;
		b->k = util_xrealloc(b->k, b->ck * sizeof(kv_chk));
	}
	kv_chk *k = &b->k[b->nk++];
	k->t = t;
	k->roff = put_bytes(b, row, rlen);
	k->rlen = rlen;
}
