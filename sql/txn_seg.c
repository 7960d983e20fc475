/*
 * txn_seg.c — sorted segments of a transaction's write set (see
 * txn_seg.h): log-structured merging of sorted row arrays and a bloom
 * filter over their keys.
 */
#include <stdlib.h>
#include <string.h>

#include "txn_seg.h"

static int row_cmp(const sql_wrow *x, const sql_wrow *y)
{
	return sql_wseg_key_cmp(x->key, x->keylen, y->key, y->keylen);
}

/* Makes room for nkeys keys: a filter twice as big, refilled from the
 * segments (amortised: the filter doubles). */
static void bloom_fit(sql_wseg_set *ss, size_t nkeys)
{
	if (!sql_bloom_fit(&ss->bloom, &ss->bloom_shift, nkeys))
		return;
	for (int s = 0; s < ss->nsegs; s++)
		for (size_t i = 0; i < ss->segs[s].n; i++)
			sql_bloom_set(ss->bloom, ss->bloom_shift,
				      sql_bloom_hash(ss->segs[s].rows[i]->key, ss->segs[s].rows[i]->keylen));
}

/* Merges segment b into a (a older; keys of the two distinct). When b
 * follows a (an ascending load) it is appended in place: a's array grows
 * by doubling, so such a load costs no copy per block. */
static void merge_into(sql_wseg *a, sql_wseg *b)
{
	if (a->n && b->n && row_cmp(a->rows[a->n - 1], b->rows[0]) < 0) {
		a->rows = sql_seg_append(a->rows, &a->n, &a->cap, b->rows, b->n, sizeof *a->rows);
	} else {
		size_t i = 0, j = 0, k = 0, cap = a->n + b->n;
		sql_wrow **m = util_xmalloc(sizeof *m * cap);
		while (i < a->n && j < b->n)
			m[k++] = row_cmp(a->rows[i], b->rows[j]) < 0 ? a->rows[i++] : b->rows[j++];
		while (i < a->n)
			m[k++] = a->rows[i++];
		while (j < b->n)
			m[k++] = b->rows[j++];
		free(a->rows);
		a->rows = m;
		a->n = k;
		a->cap = cap;
	}
	free(b->rows);
	b->rows = NULL;
	b->n = b->cap = 0;
}

void sql_wseg_add(sql_wseg_set *ss, sql_wrow *const *rows, size_t n)
{
	if (!n)
		return;
	bloom_fit(ss, ss->nkeys + n);
	for (size_t i = 0; i < n; i++)
		sql_bloom_set(ss->bloom, ss->bloom_shift, sql_bloom_hash(rows[i]->key, rows[i]->keylen));
	ss->nkeys += n;
	if (ss->nsegs == ss->cap) {
		ss->cap = ss->cap ? 2 * ss->cap : 8;
		ss->segs = util_xrealloc(ss->segs, sizeof *ss->segs * (size_t)ss->cap);
	}
	sql_wseg *s = &ss->segs[ss->nsegs++];
	s->rows = util_xmalloc(sizeof *s->rows * n);
	memcpy(s->rows, rows, sizeof *s->rows * n);
	s->n = s->cap = n;
	/* Log-structured: merge while the previous segment is at most twice
	 * the newest (or the newest simply follows it). */
	while (ss->nsegs >= 2) {
		sql_wseg *a = &ss->segs[ss->nsegs - 2], *b = &ss->segs[ss->nsegs - 1];
		if (a->n > 2 * b->n && row_cmp(a->rows[a->n - 1], b->rows[0]) > 0)
			break;
		merge_into(a, b);
		ss->nsegs--;
	}
}

static sql_wrow *seg_find(const sql_wseg *s, const uint8_t *key, size_t klen)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const sql_wrow *w = s->rows[mid];
		int c = sql_wseg_key_cmp(w->key, w->keylen, key, klen);
		if (c == 0)
			return s->rows[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

sql_wrow *sql_wseg_find(const sql_wseg_set *ss, const uint8_t *key, size_t klen)
{
	if (!ss->nkeys || !sql_bloom_test(ss->bloom, ss->bloom_shift, sql_bloom_hash(key, klen)))
		return NULL;
	/* Newest first: the small segments are the likelier and cheaper ones. */
	for (int s = ss->nsegs - 1; s >= 0; s--) {
		const sql_wseg *g = &ss->segs[s];
		if (!g->n || sql_wseg_key_cmp(g->rows[0]->key, g->rows[0]->keylen, key, klen) > 0 ||
		    sql_wseg_key_cmp(g->rows[g->n - 1]->key, g->rows[g->n - 1]->keylen, key, klen) < 0)
			continue;
		sql_wrow *w = seg_find(g, key, klen);
		if (w)
			return w;
	}
	return NULL;
}

const sql_wseg *sql_wseg_all(sql_wseg_set *ss)
{
	while (ss->nsegs >= 2) {
		merge_into(&ss->segs[ss->nsegs - 2], &ss->segs[ss->nsegs - 1]);
		ss->nsegs--;
	}
	static const sql_wseg empty = {NULL, 0, 0};
	return ss->nsegs ? &ss->segs[0] : &empty;
}

void sql_wseg_free(sql_wseg_set *ss)
{
	for (int s = 0; s < ss->nsegs; s++)
		free(ss->segs[s].rows);
	free(ss->segs);
	free(ss->bloom);
	memset(ss, 0, sizeof *ss);
}
