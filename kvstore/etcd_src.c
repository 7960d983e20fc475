/*
 * etcd_src.c — a kv_src (iter.h) over one kv table's cells in etcd, so the
 * scan machinery (versions, delete markers, filters and seek hints, reverse
 * scans) runs unchanged on the etcd backend. Entries come in pages of range
 * reads at one revision (pinned by the first response unless given), so an
 * iterator sees one consistent state however many pages it reads. Pages
 * start small (point reads) and double while a scan keeps reading.
 * Intents of large transactions (etcd_big.c) are shown as their cells when
 * the transaction's record is committed at the source's revision and
 * skipped otherwise.
 *
 * etcd 3.4 walks its index over a read's whole range whatever the limit, so
 * a page read to the scan's end costs the rest of the table: once a page
 * has shown the key density, each further page's range ends a guessed span
 * of key space past its start (etcd_span.c), sized from the key count etcd
 * reports for the previous range so that it holds about a page, and the
 * next page starts where that range ended; a full scan costs linear time
 * (docs/scale-out.md, "Long scans"). A new source's first page is sized
 * from the density earlier scans of the table noted (etcd_density.c), so
 * a short scan of a large table costs about the keys it reads.
 */
#include <stdlib.h>
#include <string.h>

#include "ekv.h"

#define PAGE_FIRST 16
#define PAGE_MAX   1024
/* A guessed range that holds no key (a gap) widens the next SPAN_GROW
 * times, and each further one SPAN_GROW times more than the last, up to
 * SPAN_GROW^GAP_STEPS_MAX. */
#define SPAN_GROW     16
#define GAP_STEPS_MAX 8
/* A page's keys say how dense the table is from this many on. */
#define DENSITY_MIN_KEYS 8

typedef struct esrc {
	kv_src base;
	ekv *e;
	kv_table *t;     /* referenced: its density hints */
	util_buf first;  /* the table's first key as last seen (empty: unknown) */
	bool at_start;   /* no key in [the table's start, the next page's start) */
	util_buf tpre;   /* the table's cell prefix */
	util_buf lo, hi; /* etcd key bounds [lo, hi) */
	int64_t rev;
	ekv_range_res page;
	size_t i;
	int64_t pagesz;
	int64_t first_page; /* a seek's first page (0: PAGE_FIRST) */
	util_buf ik;        /* current entry as an ikey */
	util_buf tmp;
	/* The page's range is [its first key, end): end is hi (end_final) or
	 * that key + span, a guess sized for about a page of keys. */
	util_buf end;
	bool end_final;
	bool span_known;
	ekv_span span;
	int gaps; /* guessed ranges in a row that held no key */
	/* rem: keys in [the next page's first key, hi) at rev, known from a
	 * page read to hi (etcd's count) until a seek. */
	bool rem_known;
	int64_t rem;
	/* The last transaction record looked up (at rev). */
	uint8_t vis_id[EKV_TXID];
	bool vis_known, vis;
	kv_ts vis_cts;
	int64_t vis_rev; /* its flip's revision (-1: aborted) */
	ekv_sweep sweep; /* aborted intents met, deleted at close */
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
	if (ekv_key_is_intent(kv->key, kv->klen)) { /* visible: settle() checked */
		uint8_t *d = (uint8_t *)s->ik.data;
		d[s->ik.len - 1]--; /* ~(type - 1) -> ~type */
		if (kv->val[EKV_TXID] == EKV_AT_COMMIT)
			util_put_be64(d + s->ik.len - IKEY_SUFFIX, ~s->vis_cts);
		s->base.val += EKV_INTENT_HDR;
		s->base.vlen -= EKV_INTENT_HDR;
	}
}

/* 1: not an intent, or one of a transaction committed at s->rev; 0: an
 * invisible intent; -1: error (status set). */
static int entry_visible(esrc *s, const ekv_kv *kv)
{
	if (!ekv_key_is_intent(kv->key, kv->klen))
		return 1;
	if (kv->vlen < EKV_INTENT_HDR) {
		set_fail(s, kv_fail(KV_CORRUPTION, "etcd: malformed intent"));
		return -1;
	}
	if (!s->vis_known || memcmp(s->vis_id, kv->val, EKV_TXID)) {
		bool v;
		kv_status st = ekv_intent_visible(s->e, kv->val, s->rev, &v, &s->vis_cts, &s->vis_rev);
		if (st) {
			set_fail(s, st);
			return -1;
		}
		memcpy(s->vis_id, kv->val, EKV_TXID);
		s->vis = v;
		s->vis_known = true;
	}
	if (!s->vis && s->vis_rev < 0)
		ekv_sweep_note(&s->sweep, kv);
	return s->vis;
}

static void fetch_forward(esrc *s, const uint8_t *from, size_t flen);

static kv_slice buf_slice(const util_buf *b)
{
	return (kv_slice){(const uint8_t *)b->data, b->len};
}

/* A new page limit, the span resized to it. */
static void set_pagesz(esrc *s, int64_t n)
{
	if (s->span_known && n != s->pagesz)
		s->span = ekv_span_scale(s->span, (double)n / (double)s->pagesz);
	s->pagesz = n;
}

/* Sets the range end of a page read from `from`: from + the span when one
 * is known and twice that is before the scan's end, else the scan's end
 * (also when no more than two pages of keys are left before it, by etcd's
 * count or, twice the span reaching it, by the density). From before the
 * table's first key as last seen, that key + the span (no gap to widen
 * over between the table's start and its first row). */
static void guess_end(esrc *s, const uint8_t *from, size_t flen)
{
	s->end_final = true;
	if (s->first.len && kv_slice_cmp((kv_slice){from, flen}, buf_slice(&s->first)) < 0) {
		from = (const uint8_t *)s->first.data;
		flen = s->first.len;
	}
	if (s->span_known && !(s->rem_known && s->rem <= 2 * s->pagesz) &&
	    ekv_span_add(from, flen, ekv_span_scale(s->span, 2), &s->end) &&
	    kv_slice_cmp(buf_slice(&s->end), buf_slice(&s->hi)) < 0 &&
	    ekv_span_add(from, flen, s->span, &s->end)) {
		s->end_final = false;
		return;
	}
	util_buf_reset(&s->end);
	util_buf_append(&s->end, s->hi.data, s->hi.len);
}

/* Sizes the span for a next page of `next` keys (the last page's limit
 * was `was`) from the page read: one that filled its limit, by the spread
 * of the keys it returned (the density where the next page starts; the
 * range it did not finish may be mostly a gap); a guessed range read out,
 * by its key count over its span; else the span is resized to the new
 * limit. Gaps widen it (SPAN_GROW). */
static void learn(esrc *s, int64_t was, int64_t next)
{
	const ekv_range_res *r = &s->page;
	if (r->more && r->n >= 2) {
		const ekv_kv *a = &r->kvs[0], *z = &r->kvs[r->n - 1];
		ekv_span sp = ekv_span_between(a->key, a->klen, z->key, z->klen);
		s->span = ekv_span_scale(sp, (double)next / (double)(r->n - 1));
		s->span_known = true;
		s->gaps = 0;
	} else if (!s->end_final) {
		double f = r->n > 0 ? (double)next / (double)r->n : SPAN_GROW, g = 1;
		s->gaps = r->n > 0 ? 0 : s->gaps + 1;
		for (int i = 0; i < s->gaps && i < GAP_STEPS_MAX; i++)
			g *= SPAN_GROW;
		s->span = ekv_span_scale(s->span, r->n > 0 ? (f > SPAN_GROW ? SPAN_GROW : f) : g);
	} else if (s->span_known && was != next) {
		s->span = ekv_span_scale(s->span, (double)next / (double)was);
	}
}

/* A plain write and an intent of one cell at one explicit timestamp (the
 * intent's key sorts right after the plain key): the later commit is the
 * cell, the other is skipped. For plain entry p: +1 if p + 1 is its twin
 * and the newer (the plain entry loses), -1 if the plain entry is the
 * newer (the intent loses), 0 if no twin. (Not seen across a page
 * boundary.) */
static int twin_of(esrc *s, size_t p)
{
	const ekv_kv *a = &s->page.kvs[p];
	if (ekv_key_is_intent(a->key, a->klen) || p + 1 >= s->page.n)
		return 0;
	const ekv_kv *b = &s->page.kvs[p + 1];
	if (b->klen != a->klen || b->key[b->klen - 1] != (uint8_t)(a->key[a->klen - 1] + 1) ||
	    memcmp(a->key, b->key, a->klen - 1))
		return 0;
	if (entry_visible(s, b) != 1 || b->val[EKV_TXID] == EKV_AT_COMMIT)
		return 0;
	return s->vis_rev > a->mod_rev ? 1 : -1;
}

/* Is entry i the losing half of a twin? */
static bool twin_loses(esrc *s)
{
	const ekv_kv *c = &s->page.kvs[s->i];
	if (!ekv_key_is_intent(c->key, c->klen))
		return twin_of(s, s->i) > 0;
	return s->i > 0 && twin_of(s, s->i - 1) < 0;
}

/* Makes the first visible entry at or after page index i current, reading
 * further pages as needed. */
static void settle(esrc *s)
{
	for (;;) {
		if (s->i < s->page.n) {
			int v = entry_visible(s, &s->page.kvs[s->i]);
			if (v < 0)
				return;
			if (v && twin_loses(s)) {
				s->i++;
				continue;
			}
			if (v) {
				set_current(s);
				return;
			}
			s->i++;
			continue;
		}
		bool more = s->page.more && s->page.n;
		s->rem -= (int64_t)s->page.n; /* the keys up to the next start */
		if ((!more && s->end_final) || (s->rem_known && s->rem <= 0)) {
			s->base.valid = false;
			return;
		}
		int64_t was = s->pagesz;
		if (s->pagesz < PAGE_MAX)
			s->pagesz *= 2;
		learn(s, was, s->pagesz);
		util_buf_reset(&s->tmp);
		if (more) { /* the range had more: go on after its last key */
			ekv_kv *last = &s->page.kvs[s->page.n - 1];
			util_buf_append(&s->tmp, last->key, last->klen);
			util_buf_putc(&s->tmp, 0);
		} else { /* the guessed range is read: go on from its end */
			util_buf_append(&s->tmp, s->end.data, s->end.len);
		}
		fetch_forward(s, (const uint8_t *)s->tmp.data, s->tmp.len);
		if (s->base.status)
			return;
	}
}

/* Keeps what the page read shows for the table's next scans: the
 * density of a page that filled its limit (the spread of its keys), the
 * first key of a page read from the table's start. */
static void note_density(esrc *s)
{
	const ekv_range_res *r = &s->page;
	if (r->more && r->n >= DENSITY_MIN_KEYS) {
		const ekv_kv *a = &r->kvs[0], *z = &r->kvs[r->n - 1];
		ekv_density_note(s->t, ekv_span_between(a->key, a->klen, z->key, z->klen), (int64_t)r->n - 1,
				 s->at_start);
	}
	if (s->at_start && r->n) {
		ekv_density_note_first(s->t, r->kvs[0].key, r->kvs[0].klen);
		s->at_start = false;
	}
}

/* Reads a page ascending from etcd key `from` (inclusive), no entry
 * current yet. */
static void fetch_forward(esrc *s, const uint8_t *from, size_t flen)
{
	ekv_range_res_free(&s->page);
	s->i = 0;
	s->base.valid = false;
	s->end_final = true;
	if (kv_slice_cmp((kv_slice){from, flen}, buf_slice(&s->lo)) < 0) {
		from = (const uint8_t *)s->lo.data;
		flen = s->lo.len;
	}
	if (kv_slice_cmp((kv_slice){from, flen}, buf_slice(&s->hi)) >= 0)
		return;
	guess_end(s, from, flen);
	ekv_range_req q = {.key = from,
			   .klen = flen,
			   .end = (const uint8_t *)s->end.data,
			   .elen = s->end.len,
			   .limit = s->pagesz,
			   .rev = s->rev};
	int64_t t0 = util_now_us();
	kv_status st = ekv_range(s->e, &q, &s->page);
	if (st) {
		set_fail(s, st);
		return;
	}
	if (!s->rev)
		s->rev = s->page.rev;
	if (s->end_final) { /* etcd counted every key left */
		s->rem_known = true;
		s->rem = s->page.count;
	}
	note_density(s);
	/* Per-page trace for the scans' benchmarks (--log-level debug). */
	util_debug("etcd scan page: %s, limit %lld, %zu keys of %lld in range, %lld us",
		   s->end_final ? "to the end" : "guessed end", (long long)s->pagesz, s->page.n,
		   (long long)s->page.count, (long long)(util_now_us() - t0));
}

/* Reads from etcd key `from` (inclusive) to the first visible entry. */
static void load_forward(esrc *s, const uint8_t *from, size_t flen)
{
	fetch_forward(s, from, flen);
	if (!s->base.status)
		settle(s);
}

/* Is a seek to ikey k (NULL: the start) one to the first key of any row? */
static bool seek_from_start(const uint8_t *k, size_t n)
{
	if (!k)
		return true;
	ikey_parts p;
	ikey_split(k, n, &p);
	return !p.rlen && !p.flen && !p.qlen;
}

/* A seek keeps the density learnt by earlier pages (filters' seek hints
 * within a scan), its span resized to the seek's first page; a source's
 * first seek takes the table's (etcd_density.c). */
static void es_seek(kv_src *b, const uint8_t *k, size_t n)
{
	esrc *s = (esrc *)b;
	set_pagesz(s, s->first_page ? s->first_page : PAGE_FIRST);
	s->at_start = s->lo.len == s->tpre.len && seek_from_start(k, n);
	if (!s->span_known && !s->first_page) /* with a hint the caller sized the range */
		s->span_known = ekv_density_get(s->t, s->pagesz, s->at_start, &s->span, &s->first);
	s->rem_known = false;
	s->gaps = 0;
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
	s->i++;
	settle(s);
}

static void es_seek_lt(kv_src *b, const uint8_t *k, size_t n)
{
	esrc *s = (esrc *)b;
	ekv_range_res_free(&s->page);
	s->i = 0;
	s->base.valid = false;
	s->end_final = true; /* next() goes on after the entry found */
	s->rem_known = false;
	s->gaps = 0;
	s->at_start = false;
	set_pagesz(s, PAGE_FIRST);
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
	for (;;) {
		ekv_range_req q = {.key = (const uint8_t *)s->lo.data,
				   .klen = s->lo.len,
				   .end = (const uint8_t *)s->tmp.data,
				   .elen = s->tmp.len,
				   .limit = 1,
				   .rev = s->rev,
				   .descend = true};
		ekv_range_res_free(&s->page);
		kv_status st = ekv_range(s->e, &q, &s->page);
		if (st) {
			set_fail(s, st);
			return;
		}
		if (!s->rev)
			s->rev = s->page.rev;
		if (!s->page.n)
			return;
		int v = entry_visible(s, &s->page.kvs[0]);
		if (v < 0)
			return;
		if (v) {
			s->page.more = true; /* next() continues ascending from here */
			set_current(s);
			return;
		}
		/* An invisible intent: the entry before it. */
		util_buf_reset(&s->tmp);
		util_buf_append(&s->tmp, s->page.kvs[0].key, s->page.kvs[0].klen);
	}
}

static void es_close(kv_src *b)
{
	esrc *s = (esrc *)b;
	if (s->sweep.n)
		ekv_sweep_run(s->e, &s->sweep);
	ekv_range_res_free(&s->page);
	util_buf_free(&s->tpre);
	util_buf_free(&s->lo);
	util_buf_free(&s->hi);
	util_buf_free(&s->ik);
	util_buf_free(&s->tmp);
	util_buf_free(&s->end);
	util_buf_free(&s->first);
	table_unref(s->t);
	free(s);
}

const uint8_t *ekv_src_raw_key(kv_src *b, size_t *n, int *twin)
{
	esrc *s = (esrc *)b;
	const ekv_kv *kv = &s->page.kvs[s->i];
	*n = kv->klen;
	*twin = 0;
	if (!ekv_key_is_intent(kv->key, kv->klen))
		*twin = twin_of(s, s->i) < 0 ? 1 : 0; /* the intent after it was skipped */
	else if (s->i > 0)
		*twin = twin_of(s, s->i - 1) > 0 ? -1 : 0; /* the plain entry before it was */
	return kv->key;
}

void ekv_src_page_hint(kv_src *b, int64_t keys)
{
	esrc *s = (esrc *)b;
	s->first_page = keys < PAGE_FIRST ? PAGE_FIRST : keys > PAGE_MAX ? PAGE_MAX : keys;
}

/* The escaped row segment of a cell key (after the table prefix, through
 * its 00 01 terminator); 0 if malformed. */
static size_t row_seg_len(const ekv_kv *kv, size_t plen)
{
	const uint8_t *p = kv->key + plen, *end = kv->key + kv->klen;
	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		if (!z || z + 1 >= end || (z[1] != 0x01 && z[1] != 0xff))
			return 0;
		if (z[1] == 0x01)
			return (size_t)(z + 2 - (kv->key + plen));
		p = z + 2;
	}
	return 0;
}

#define BACK_LIMIT_MIN 64
#define BACK_LIMIT_MAX 16384

kv_status ekv_rows_back(kv_table *t, int64_t *rev, const uint8_t *lo_row, size_t lolen, const uint8_t *hi_row,
			size_t hilen, size_t want, util_buf *row, size_t *keys, bool *found)
{
	ekv *e = t->s->etcd;
	util_buf tpre = UTIL_BUF_INIT, lo = UTIL_BUF_INIT, hi = UTIL_BUF_INIT, seg = UTIL_BUF_INIT;
	ekv_cell_prefix(e, t->eid, &tpre);
	util_buf_append(&lo, tpre.data, tpre.len);
	if (lo_row)
		ekv_esc(&lo, lo_row, lolen);
	if (hi_row) {
		util_buf_append(&hi, tpre.data, tpre.len);
		ekv_esc(&hi, hi_row, hilen);
	} else {
		ekv_prefix_end((const uint8_t *)tpre.data, tpre.len, &hi);
	}
	*found = false;
	*keys = 0;
	size_t rows = 0;
	int64_t limit = (int64_t)want * 8;
	limit = limit < BACK_LIMIT_MIN ? BACK_LIMIT_MIN : limit > BACK_LIMIT_MAX ? BACK_LIMIT_MAX : limit;
	kv_status st = KV_OK;
	while (!*found && kv_slice_cmp((kv_slice){(const uint8_t *)lo.data, lo.len},
				       (kv_slice){(const uint8_t *)hi.data, hi.len}) < 0) {
		ekv_range_req q = {.key = (const uint8_t *)lo.data,
				   .klen = lo.len,
				   .end = (const uint8_t *)hi.data,
				   .elen = hi.len,
				   .limit = limit,
				   .rev = *rev,
				   .descend = true,
				   .keys_only = true};
		ekv_range_res rr;
		st = ekv_range(e, &q, &rr);
		if (st)
			break;
		if (!*rev)
			*rev = rr.rev;
		for (size_t i = 0; i < rr.n && !*found; i++) {
			size_t sl = row_seg_len(&rr.kvs[i], tpre.len);
			if (!sl) {
				st = kv_fail(KV_CORRUPTION, "etcd: malformed cell key");
				break;
			}
			const uint8_t *sp = rr.kvs[i].key + tpre.len;
			(*keys)++;
			if (seg.len == sl && !memcmp(seg.data, sp, sl))
				continue;
			util_buf_reset(&seg);
			util_buf_append(&seg, sp, sl);
			if (++rows == want) {
				util_buf_reset(row);
				const uint8_t *p = (const uint8_t *)seg.data;
				if (!ekv_unesc(&p, p + seg.len, row))
					st = kv_fail(KV_CORRUPTION, "etcd: malformed cell key");
				else
					*found = true;
			}
		}
		bool more = rr.more && rr.n;
		if (more) { /* continue below the last key read */
			util_buf_reset(&hi);
			util_buf_append(&hi, rr.kvs[rr.n - 1].key, rr.kvs[rr.n - 1].klen);
		}
		ekv_range_res_free(&rr);
		if (st || !more)
			break;
		if (limit < BACK_LIMIT_MAX)
			limit *= 2;
	}
	util_buf_free(&tpre);
	util_buf_free(&lo);
	util_buf_free(&hi);
	util_buf_free(&seg);
	return st;
}

static const kv_src_ops es_ops = {es_seek, es_seek_lt, es_next, es_close};

kv_src *ekv_src_new(kv_table *t, const uint8_t *lo_row, size_t lolen, const uint8_t *hi_row, size_t hilen,
		    bool hi_incl, int64_t rev)
{
	esrc *s = util_xcalloc(1, sizeof *s);
	s->base.ops = &es_ops;
	s->e = t->s->etcd;
	s->t = t;
	atomic_fetch_add(&t->refs, 1);
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
