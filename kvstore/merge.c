/* merge.c — the merging iterator: a binary min-heap over child sources
 * (ties go to the lower child index, i.e. the newer source). seek_lt only
 * positions on the greatest key < k across children, for row discovery in
 * reverse scans; next() after seek_lt is not supported (callers seek). */
#include <stdlib.h>
#include <string.h>

#include "ikey.h"
#include "iter.h"

typedef struct merge_iter {
	kv_src base;
	int n;     /* children */
	int nheap; /* valid children in heap[] */
	kv_src **kids;
	int *heap; /* child indexes */
} merge_iter;

static inline bool less(merge_iter *m, int a, int b)
{
	kv_src *x = m->kids[a], *y = m->kids[b];
	int c = ikey_cmp(x->key, x->klen, y->key, y->klen);
	return c < 0 || (c == 0 && a < b);
}

static void sift_down(merge_iter *m, int i)
{
	int n = m->nheap;
	int *h = m->heap;
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i;
		if (l < n && less(m, h[l], h[s]))
			s = l;
		if (r < n && less(m, h[r], h[s]))
			s = r;
		if (s == i)
			return;
		int t = h[i];
		h[i] = h[s];
		h[s] = t;
		i = s;
	}
}

static void set_top(merge_iter *m)
{
	if (m->nheap == 0) {
		m->base.valid = false;
		return;
	}
	kv_src *t = m->kids[m->heap[0]];
	m->base.valid = true;
	m->base.key = t->key;
	m->base.klen = t->klen;
	m->base.val = t->val;
	m->base.vlen = t->vlen;
}

/* Rebuilds the heap from the children's positions; errors stop the merge. */
static void rebuild(merge_iter *m)
{
	m->nheap = 0;
	for (int i = 0; i < m->n; i++) {
		kv_src *k = m->kids[i];
		if (k->status != KV_OK) {
			m->base.status = k->status;
			m->base.valid = false;
			m->nheap = 0;
			return;
		}
		if (k->valid)
			m->heap[m->nheap++] = i;
	}
	for (int i = m->nheap / 2 - 1; i >= 0; i--)
		sift_down(m, i);
	set_top(m);
}

static void m_seek(kv_src *s, const uint8_t *k, size_t kl)
{
	merge_iter *m = (merge_iter *)s;
	for (int i = 0; i < m->n; i++)
		src_seek(m->kids[i], k, kl);
	rebuild(m);
}

static void m_seek_lt(kv_src *s, const uint8_t *k, size_t kl)
{
	merge_iter *m = (merge_iter *)s;
	kv_src *best = NULL;
	m->nheap = 0;
	for (int i = 0; i < m->n; i++) {
		kv_src *c = m->kids[i];
		src_seek_lt(c, k, kl);
		if (c->status != KV_OK) {
			m->base.status = c->status;
			m->base.valid = false;
			return;
		}
		if (c->valid && (!best || ikey_cmp(c->key, c->klen, best->key, best->klen) > 0))
			best = c;
	}
	m->base.valid = best != NULL;
	if (best) {
		m->base.key = best->key;
		m->base.klen = best->klen;
		m->base.val = best->val;
		m->base.vlen = best->vlen;
	}
}

static void m_next(kv_src *s)
{
	merge_iter *m = (merge_iter *)s;
	kv_src *t = m->kids[m->heap[0]];
	src_next(t);
	if (UTIL_UNLIKELY(t->status != KV_OK)) {
		m->base.status = t->status;
		m->base.valid = false;
		m->nheap = 0;
		return;
	}
	if (!t->valid) {
		m->heap[0] = m->heap[--m->nheap];
		if (m->nheap == 0) {
			m->base.valid = false;
			return;
		}
	}
	if (m->nheap > 1)
		sift_down(m, 0);
	set_top(m);
}

static void m_close(kv_src *s)
{
	merge_iter *m = (merge_iter *)s;
	for (int i = 0; i < m->n; i++)
		src_close(m->kids[i]);
	free(m->kids);
	free(m->heap);
	free(m);
}

static const kv_src_ops merge_ops = {m_seek, m_seek_lt, m_next, m_close};

kv_src *merge_new(kv_src **children, int n)
{
	if (n == 1)
		return children[0];
	merge_iter *m = calloc(1, sizeof(*m));
	if (!m)
		goto fail;
	m->kids = malloc(sizeof(kv_src *) * (size_t)(n ? n : 1));
	m->heap = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!m->kids || !m->heap)
		goto fail;
	memcpy(m->kids, children, sizeof(kv_src *) * (size_t)n);
	m->n = n;
	m->base.ops = &merge_ops;
	return &m->base;
fail:
	for (int i = 0; i < n; i++)
		src_close(children[i]);
	if (m) {
		free(m->kids);
		free(m->heap);
		free(m);
	}
	return NULL;
}
