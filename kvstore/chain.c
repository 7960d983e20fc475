/* chain.c — the chaining iterator: sources whose key ranges do not overlap
 * (the files of one large commit kept apart, stage.c), read one after the
 * other in key order. It replaces a merge of those sources in a scan: no
 * heap, and the scan's one-source fast path still applies (scan.c). */
#include <stdlib.h>
#include <string.h>

#include "ikey.h"
#include "iter.h"

typedef struct chain_iter {
	kv_src base;
	int n;
	int cur; /* child that is current, or n */
	kv_src **kids;
	const kv_chain_range *rng;
} chain_iter;

static void take(chain_iter *c)
{
	kv_src *k = c->kids[c->cur];
	c->base.valid = k->valid;
	c->base.status = k->status;
	c->base.key = k->key;
	c->base.klen = k->klen;
	c->base.val = k->val;
	c->base.vlen = k->vlen;
	c->base.shared = k->shared;
	c->base.blk = k->blk;
}

/* From child i on, the first entry of the first non-empty child. */
static void first_from(chain_iter *c, int i)
{
	for (c->cur = i; c->cur < c->n; c->cur++) {
		src_seek(c->kids[c->cur], NULL, 0);
		if (c->kids[c->cur]->valid || c->kids[c->cur]->status) {
			take(c);
			c->base.shared = 0; /* the entry before was another child's */
			return;
		}
	}
	c->cur = c->n;
	c->base.valid = false;
}

static void chain_seek(kv_src *s, const uint8_t *k, size_t n)
{
	chain_iter *c = (chain_iter *)s;
	c->base.status = KV_OK;
	int i = 0;
	if (k)
		while (i < c->n && ikey_cmp(c->rng[i].largest, c->rng[i].llen, k, n) < 0)
			i++;
	if (i == c->n) {
		c->cur = c->n;
		c->base.valid = false;
		return;
	}
	c->cur = i;
	src_seek(c->kids[i], k, n);
	if (c->kids[i]->valid || c->kids[i]->status)
		take(c);
	else
		first_from(c, i + 1);
}

static void chain_seek_lt(kv_src *s, const uint8_t *k, size_t n)
{
	chain_iter *c = (chain_iter *)s;
	c->base.status = KV_OK;
	int i = c->n - 1;
	if (k)
		while (i >= 0 && ikey_cmp(c->rng[i].smallest, c->rng[i].slen, k, n) >= 0)
			i--;
	for (; i >= 0; i--) {
		src_seek_lt(c->kids[i], k, n);
		if (c->kids[i]->valid || c->kids[i]->status) {
			c->cur = i;
			take(c);
			return;
		}
		k = NULL; /* an earlier child: its last entry */
	}
	c->cur = c->n;
	c->base.valid = false;
}

static void chain_next(kv_src *s)
{
	chain_iter *c = (chain_iter *)s;
	if (c->cur >= c->n)
		return;
	kv_src *k = c->kids[c->cur];
	src_next(k);
	if (k->valid || k->status)
		take(c);
	else
		first_from(c, c->cur + 1);
}

static void chain_close(kv_src *s)
{
	chain_iter *c = (chain_iter *)s;
	for (int i = 0; i < c->n; i++)
		src_close(c->kids[i]);
	free(c->kids);
	free(c);
}

static const kv_src_ops chain_ops = {chain_seek, chain_seek_lt, chain_next, chain_close};

kv_src *chain_new(kv_src **children, const kv_chain_range *rng, int n)
{
	if (n == 1)
		return children[0];
	chain_iter *c = calloc(1, sizeof(*c));
	kv_src **kids = malloc(sizeof(kv_src *) * (size_t)(n ? n : 1));
	if (!c || !kids) {
		free(c);
		free(kids);
		for (int i = 0; i < n; i++)
			src_close(children[i]);
		return NULL;
	}
	memcpy(kids, children, sizeof(kv_src *) * (size_t)n);
	c->kids = kids;
	c->n = n;
	c->cur = n;
	c->rng = rng;
	c->base.ops = &chain_ops;
	return &c->base;
}
