/*
 * etcd_src.c — a kv_src (iter.h) over one kv table's cells in etcd, so the
 * scan machinery (versions, delete markers, filters and seek hints, reverse
 * scans) runs unchanged on the etcd backend. Entries come in pages of range
 * reads at one revision (pinned by the first response unless given), so an
 * iterator sees one consistent state however many pages it reads. Pages
 * start small (point reads) and double while a scan keeps reading.
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

#define PAGE_FIRST 16
#define PAGE_MAX   1024

typedef struct esrc {
	kv_src base;
	ekv *e;
	util_buf tpre;   /* the table's cell prefix */
	util_buf lo, hi; /* etcd key bounds [lo, hi) */
	int64_t rev;
	ekv_range_res page;
	size_t i;
	int64_t pagesz;
	util_buf ik; /* current entry as an ikey */
	util_buf tmp;
} esrc;

static void set_fail(esrc *s, kv_status st)
{
	s->base.valid = false;
	s->base.status = st;
}

/* Makes page entry i current. */
static void set_current(esrc *s)
{
	ekv_kv *kv = &s->page.kvs[s->i];
	if (kv->klen < s->tpre.len || memcmp(kv->key, s->tpre.data, s->tpre.len) ||
	    !ekv_to_ikey(kv->key + s->tpre.len, kv->klen - s->tpre.len, &s->ik)) {
		set_fail(s, kv_fail(KV_CORRUPTION, "etcd: malformed cell key"));
		return;
	}
	s->base.valid = true;
	s->base.key = (const uint8_t *)s->ik.data;
	s->base.klen = s->ik.len;
	s->base.val = kv->val;
	s->base.vlen = kv->vlen;
}

/* Reads a page ascending from etcd key `from` (inclusive). */
static void load_forward(esrc *s, const uint8_t *from, size_t flen)
{
	ekv_range_res_free(&s->page);
	s->i = 0;
	s->base.valid = false;
	if (kv_slice_cmp((kv_slice){from, flen}, (kv_slice){(const uint8_t *)s->lo.data, s->lo.len}) < 0) {
		from = (const uint8_t *)s->lo.data;
		flen = s->lo.len;
	}
	if (kv_slice_cmp((kv_slice){from, flen}, (kv_slice){(const uint8_t *)s->hi.data, s->hi.len}) >= 0)
		return;
	ekv_range_req q = {.key = from,
			   .klen = flen,
			   .end = (const uint8_t *)s->hi.data,
			   .elen = s->hi.len,
			   .limit = s->pagesz,
			   .rev = s->rev};
	kv_status st = ekv_range(s->e, &q, &s->page);
	if (st) {
		set_fail(s, st);
		return;
	}
	if (!s->rev)
		s->rev = s->page.rev;
	if (s->page.n)
		set_current(s);
}

static void es_seek(kv_src *b, const uint8_t *k, size_t n)
{
	esrc *s = (esrc *)b;
	s->pagesz = PAGE_FIRST;
	util_buf_reset(&s->tmp);
	util_buf_append(&s->tmp, s->tpre.data, s->tpre.len);
	if (k)
		ekv_from_ikey(&s->tmp, k, n);
	load_forward(s, (const uint8_t *)s->tmp.data, s->tmp.len);
}

static void es_next(kv_src *b)
{
	esrc *s = (esrc *)b;
	if (!s->base.valid)
		return;
	if (++s->i < s->page.n) {
		set_current(s);
		return;
	}
	if (!s->page.more) {
		s->base.valid = false;
		return;
	}
	ekv_kv *last = &s->page.kvs[s->page.n - 1];
	util_buf_reset(&s->tmp);
	util_buf_append(&s->tmp, last->key, last->klen);
	util_buf_putc(&s->tmp, 0);
	if (s->pagesz < PAGE_MAX)
		s->pagesz *= 2;
	load_forward(s, (const uint8_t *)s->tmp.data, s->tmp.len);
}

static void es_seek_lt(kv_src *b, const uint8_t *k, size_t n)
{
	esrc *s = (esrc *)b;
	ekv_range_res_free(&s->page);
	s->i = 0;
	s->base.valid = false;
	s->pagesz = PAGE_FIRST;
	util_buf_reset(&s->tmp);
	if (k) {
		util_buf_append(&s->tmp, s->tpre.data, s->tpre.len);
		ekv_from_ikey(&s->tmp, k, n);
		if (kv_slice_cmp((kv_slice){(const uint8_t *)s->tmp.data, s->tmp.len},
				 (kv_slice){(const uint8_t *)s->hi.data, s->hi.len}) > 0) {
			util_buf_reset(&s->tmp);
			util_buf_append(&s->tmp, s->hi.data, s->hi.len);
		}
	} else {
		util_buf_append(&s->tmp, s->hi.data, s->hi.len);
	}
	ekv_range_req q = {.key = (const uint8_t *)s->lo.data,
			   .klen = s->lo.len,
			   .end = (const uint8_t *)s->tmp.data,
			   .elen = s->tmp.len,
			   .limit = 1,
			   .rev = s->rev,
			   .descend = true};
	kv_status st = ekv_range(s->e, &q, &s->page);
	if (st) {
		set_fail(s, st);
		return;
	}
	if (!s->rev)
		s->rev = s->page.rev;
	if (s->page.n) {
		s->page.more = true; /* next() continues ascending from here */
		set_current(s);
	}
}

static void es_close(kv_src *b)
{
	esrc *s = (esrc *)b;
	ekv_range_res_free(&s->page);
	util_buf_free(&s->tpre);
	util_buf_free(&s->lo);
	util_buf_free(&s->hi);
	util_buf_free(&s->ik);
	util_buf_free(&s->tmp);
	free(s);
}

static const kv_src_ops es_ops = {es_seek, es_seek_lt, es_next, es_close};

kv_src *ekv_src_new(kv_table *t, const uint8_t *lo_row, size_t lolen, const uint8_t *hi_row, size_t hilen,
		    bool hi_incl, int64_t rev)
{
	esrc *s = util_xcalloc(1, sizeof *s);
	s->base.ops = &es_ops;
	s->e = t->s->etcd;
	s->rev = rev;
	s->pagesz = PAGE_FIRST;
	ekv_cell_prefix(s->e, t->eid, &s->tpre);
	util_buf_append(&s->lo, s->tpre.data, s->tpre.len);
	if (lo_row)
		ekv_esc(&s->lo, lo_row, lolen);
	if (hi_row) {
		util_buf_append(&s->tmp, s->tpre.data, s->tpre.len);
		ekv_esc(&s->tmp, hi_row, hilen);
		if (hi_incl)
			ekv_prefix_end((const uint8_t *)s->tmp.data, s->tmp.len, &s->hi);
		else
			util_buf_append(&s->hi, s->tmp.data, s->tmp.len);
	} else {
		ekv_prefix_end((const uint8_t *)s->tpre.data, s->tpre.len, &s->hi);
	}
	return &s->base;
}
