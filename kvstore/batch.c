/* batch.c — building kv batches: mutations, conditions and conflict rows,
 * with every byte copied into the batch (32 bytes of bookkeeping per
 * mutation). Bad arguments mark the batch bad; the commit then fails with
 * that status and writes nothing. A batch that grows past the store's
 * spill size hands its mutations to stage.c, which writes them to sorted
 * run files, so its memory stays bounded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ekv.h"
#include "kv_int.h"

#define SPILL_MIN (1u << 10)
#define SPILL_MAX (256u << 20)

kv_batch *kv_batch_new(void)
{
	return util_xcalloc(1, sizeof(kv_batch));
}

void batch_release(kv_batch *b)
{
	if (b->stage)
		stage_free(b->s, b->stage);
	b->stage = NULL;
	util_buf_free(&b->data);
	util_buf_free(&b->cdata);
	free(b->m);
	free(b->fams);
	free(b->c);
	free(b->k);
	b->m = NULL;
	b->fams = NULL;
	b->c = NULL;
	b->k = NULL;
}

void kv_batch_free(kv_batch *b)
{
	if (!b)
		return;
	batch_release(b);
	free(b);
}

void kv_batch_clear(kv_batch *b)
{
	if (b->stage)
		stage_free(b->s, b->stage);
	b->stage = NULL;
	b->nspilled = b->spilled_bytes = 0;
	b->sorted = b->sorted_runs = false;
	b->s = NULL;
	b->spill_at = 0;
	util_buf_reset(&b->data);
	util_buf_reset(&b->cdata);
	b->n = b->nc = b->nk = 0;
	b->nfams = 0;
	b->lastfam = 0;
	b->bad = KV_OK;
	b->badmsg[0] = 0;
}

void kv_batch_sorted(kv_batch *b)
{
	if (b->n == 0 && !b->stage)
		b->sorted = true;
}

void kv_batch_sorted_runs(kv_batch *b)
{
	if (b->n == 0)
		b->sorted = b->sorted_runs = true;
}

size_t kv_batch_count(const kv_batch *b)
{
	return b->n + b->nspilled;
}

size_t kv_batch_byte_size(const kv_batch *b)
{
	return b->data.len + b->n * sizeof(kv_mut) + b->cdata.len + b->spilled_bytes;
}

void batch_mark_bad(kv_batch *b, kv_status st, const char *fmt, ...)
{
	if (b->bad)
		return;
	b->bad = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->badmsg, sizeof(b->badmsg), fmt, ap);
	va_end(ap);
}

static size_t put_cbytes(kv_batch *b, const void *p, size_t n)
{
	size_t off = b->cdata.len;
	if (n)
		util_buf_append(&b->cdata, p, n);
	return off;
}

static bool check_args(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		       const void *qual, size_t qlen, size_t vlen)
{
	if (!t) {
		batch_mark_bad(b, KV_INVALID, "NULL kv table in batch");
		return false;
	}
	if ((!row && rlen) || (!qual && qlen)) {
		batch_mark_bad(b, KV_INVALID, "NULL bytes with a non-zero length in batch");
		return false;
	}
	if (rlen > IKEY_ROW_MAX) {
		batch_mark_bad(b, KV_TOO_LARGE, "row key of %zu bytes exceeds %d", rlen, IKEY_ROW_MAX);
		return false;
	}
	if (qlen > KV_QUAL_MAX) {
		batch_mark_bad(b, KV_TOO_LARGE, "qualifier of %zu bytes exceeds %u", qlen, KV_QUAL_MAX);
		return false;
	}
	if (vlen > KV_VALUE_MAX) {
		batch_mark_bad(b, KV_TOO_LARGE, "value of %zu bytes exceeds %u", vlen, KV_VALUE_MAX);
		return false;
	}
	if (family && (family[0] == 0 || ikey_fam_len(family) > IKEY_FAM_MAX)) {
		batch_mark_bad(b, KV_INVALID, "bad family name");
		return false;
	}
	if (!b->s) {
		b->s = t->s;
		size_t sp = t->s->o.batch_spill_bytes;
		if (!b->spill_at)
			b->spill_at = sp < SPILL_MIN ? SPILL_MIN : sp > SPILL_MAX ? SPILL_MAX : sp;
		if (t->s->etcd)
			b->spill_at = SIZE_MAX; /* no local files: one etcd txn, within its limits */
	} else if (t->s != b->s) {
		batch_mark_bad(b, KV_INVALID, "batch mixes kv tables of different stores");
		return false;
	}
	return true;
}

/* Family names are short ("d"): a loop here is cheaper than a call to
 * strcmp for every cell of a load. */
static bool fam_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

int batch_fam_index(kv_batch *b, const char *family)
{
	if (b->lastfam < b->nfams && fam_eq(b->fams[b->lastfam], family))
		return b->lastfam;
	for (int i = 0; i < b->nfams; i++) {
		if (!strcmp(b->fams[i], family)) {
			b->lastfam = i;
			return i;
		}
	}
	if (b->nfams == UINT16_MAX)
		return -1;
	if (b->nfams == b->cfams) {
		b->cfams = b->cfams ? 2 * b->cfams : 4;
		b->fams = util_xrealloc(b->fams, (size_t)b->cfams * sizeof(*b->fams));
	}
	snprintf(b->fams[b->nfams], sizeof(b->fams[0]), "%s", family);
	b->lastfam = b->nfams;
	return b->nfams++;
}

static void add_mut(kv_batch *b, kv_table *t, uint8_t type, const void *row, size_t rlen, const char *family,
		    const void *qual, size_t qlen, kv_ts ts, const void *val, size_t vlen)
{
	if (b->bad || !check_args(b, t, row, rlen, family, qual, qlen, vlen))
		return;
	int fi = batch_fam_index(b, family ? family : "");
	if (fi < 0) {
		batch_mark_bad(b, KV_TOO_LARGE, "too many families in one batch");
		return;
	}
	if (b->sorted && b->n == 0 && type == KV_PUT && !t->s->etcd) {
		bool taken;
		kv_put_cell c = {qual, qlen, val, vlen};
		kv_status st = stage_stream_put(b, t, fi, row, rlen, ts, &c, 1, &taken);
		if (st) {
			batch_mark_bad(b, st, "writing a sorted run: %s", kv_errmsg());
			return;
		}
		if (taken)
			return;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->m = util_xrealloc(b->m, b->cap * sizeof(kv_mut));
	}
	kv_mut *m = &b->m[b->n++];
	m->t = t;
	m->ts = ts;
	m->off = (uint32_t)b->data.len;
	m->rlen = (uint16_t)rlen;
	m->qlen = (uint32_t)qlen;
	m->vlen = (uint32_t)vlen;
	m->type = type;
	m->fam = (uint16_t)fi;
	util_buf_reserve(&b->data, rlen + qlen + vlen);
	if (rlen)
		util_buf_append(&b->data, row, rlen);
	if (qlen)
		util_buf_append(&b->data, qual, qlen);
	if (vlen)
		util_buf_append(&b->data, val, vlen);
	/* Offsets are 32 bits: the in-memory part stays far below 4 GiB. */
	if (b->data.len + b->n * sizeof(kv_mut) >= b->spill_at) {
		kv_status st = stage_spill(b);
		if (st)
			batch_mark_bad(b, st, "spilling the batch: %s", kv_errmsg());
	}
}

void kv_batch_put(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		  const void *qual, size_t qlen, kv_ts ts, const void *val, size_t vlen)
{
	if (!family) {
		batch_mark_bad(b, KV_INVALID, "put without a family");
		return;
	}
	if (!val && vlen) {
		batch_mark_bad(b, KV_INVALID, "NULL value with a non-zero length");
		return;
	}
	add_mut(b, t, KV_PUT, row, rlen, family, qual, qlen, ts, val, vlen);
}

/* True when the cells can be streamed as one row: qualifiers strictly
 * ascending, so that the row's cells follow each other once its first one
 * follows the last cell written, and each cell valid. */
static bool row_streamable(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
			   const kv_put_cell *c, size_t n)
{
	if ((!c[0].val && c[0].vlen) || !check_args(b, t, row, rlen, family, c[0].qual, c[0].qlen, c[0].vlen))
		return false;
	/* The table, row and family are the first cell's: the next cells'
	 * own bytes only (a limit passed goes cell by cell and reports it). */
	for (size_t i = 1; i < n; i++) {
		if ((!c[i].val && c[i].vlen) || (!c[i].qual && c[i].qlen) || c[i].qlen > KV_QUAL_MAX ||
		    c[i].vlen > KV_VALUE_MAX)
			return false;
		if (ikey_bytes_cmp(c[i - 1].qual, c[i - 1].qlen, c[i].qual, c[i].qlen) >= 0)
			return false;
	}
	return true;
}

void kv_batch_put_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family, kv_ts ts,
		      const kv_put_cell *cells, size_t n)
{
	if (b->sorted && b->n == 0 && n && family && !b->bad && t && !t->s->etcd &&
	    row_streamable(b, t, row, rlen, family, cells, n)) {
		int fi = batch_fam_index(b, family);
		if (fi >= 0) {
			bool taken;
			kv_status st = stage_stream_put(b, t, fi, row, rlen, ts, cells, n, &taken);
			if (st) {
				batch_mark_bad(b, st, "writing a sorted run: %s", kv_errmsg());
				return;
			}
			if (taken)
				return;
		}
	}
	/* Not streamed: cell by cell (their checks report a bad argument). */
	for (size_t i = 0; i < n; i++)
		kv_batch_put(b, t, row, rlen, family, cells[i].qual, cells[i].qlen, ts, cells[i].val,
			     cells[i].vlen);
}

void kv_batch_delete(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		     const void *qual, size_t qlen, kv_ts ts, kv_cell_type type)
{
	if (!family) {
		batch_mark_bad(b, KV_INVALID, "delete without a family");
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
			batch_mark_bad(b, KV_INVALID, "DeleteFamilyVersion needs an explicit timestamp");
			return;
		}
		qual = NULL;
		qlen = 0;
		break;
	default:
		batch_mark_bad(b, KV_INVALID, "bad delete type %d", (int)type);
		return;
	}
	add_mut(b, t, (uint8_t)type, row, rlen, family, qual, qlen, ts, NULL, 0);
}

void kv_batch_delete_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts ts)
{
	add_mut(b, t, MUT_DELETE_ROW, row, rlen, NULL, NULL, 0, ts, NULL, 0);
}

void batch_add_incr(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		    const void *qual, size_t qlen, int64_t delta)
{
	if (!family) {
		batch_mark_bad(b, KV_INVALID, "increment without a family");
		return;
	}
	uint8_t d[8];
	util_put_be64(d, (uint64_t)delta);
	add_mut(b, t, MUT_INCR, row, rlen, family, qual, qlen, KV_TS_LATEST, d, 8);
}

void batch_add_append(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, const void *val, size_t vlen)
{
	if (!family || (!val && vlen)) {
		batch_mark_bad(b, KV_INVALID, "bad append arguments");
		return;
	}
	add_mut(b, t, MUT_APPEND, row, rlen, family, qual, qlen, KV_TS_LATEST, val, vlen);
}

void kv_batch_require(kv_batch *b, kv_table *t, const void *row, size_t rlen, const char *family,
		      const void *qual, size_t qlen, kv_cmp_op op, const void *val, size_t vlen)
{
	if (b->bad || !family || !check_args(b, t, row, rlen, family, qual, qlen, vlen)) {
		if (!family)
			batch_mark_bad(b, KV_INVALID, "condition without a family");
		return;
	}
	if ((unsigned)op > KV_CMP_PRESENT || (!val && vlen)) {
		batch_mark_bad(b, KV_INVALID, "bad condition");
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
	c->roff = put_cbytes(b, row, rlen);
	c->rlen = rlen;
	c->qoff = put_cbytes(b, qual, qlen);
	c->qlen = qlen;
	c->voff = put_cbytes(b, val, vlen);
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
	k->roff = put_cbytes(b, row, rlen);
	k->rlen = rlen;
	k->ts = 0;
	k->touch = false;
	k->share = false;
	k->guard_share = false;
}

void kv_batch_check_row_at(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts)
{
	size_t n = b->nk;
	kv_batch_check_row(b, t, row, rlen);
	if (b->nk > n)
		b->k[n].ts = read_ts ? read_ts : 1;
}

void kv_batch_lock_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts)
{
	size_t n = b->nk;
	kv_batch_check_row_at(b, t, row, rlen, read_ts);
	if (b->nk > n)
		b->k[n].touch = true;
}

void kv_batch_guard_shares(kv_batch *b, kv_table *t, const void *row, size_t rlen)
{
	size_t n = b->nk;
	kv_batch_check_row(b, t, row, rlen);
	if (b->nk > n)
		b->k[n].guard_share = true;
}

void kv_batch_share_row(kv_batch *b, kv_table *t, const void *row, size_t rlen, kv_ts read_ts)
{
	size_t n = b->nk;
	kv_batch_check_row_at(b, t, row, rlen, read_ts);
	if (b->nk > n) {
		b->k[n].share = true;
		b->k[n].ts = read_ts; /* 0: the mark alone (check_row_at made it 1) */
	}
}
