/*
 * txn_vset.c — the unique values a transaction's COPY blocks claimed in
 * one index (see txn_vset.h): sorted claim arrays merged log-structured,
 * a bloom filter over the values, removal of a savepoint's claims.
 */
#include <stdlib.h>
#include <string.h>

#include "txn_seg.h"
#include "txn_vset.h"

uint64_t sql_vset_prefix(const uint8_t *v, size_t vl, size_t off)
{
	uint64_t p = 0;
	for (size_t i = off; i < off + 8; i++)
		p = p << 8 | (i < vl ? v[i] : 0);
	return p;
}

/* Values order; equal values newest (highest generation) first. */
static int claim_cmp(const sql_vclaim *a, const sql_vclaim *b)
{
	/* (Most values differ in their first 16 bytes: no reach into the
	 * arena for their bytes.) */
	if (a->p0 != b->p0)
		return a->p0 < b->p0 ? -1 : 1;
	if (a->p1 != b->p1)
		return a->p1 < b->p1 ? -1 : 1;
	int c = sql_wseg_key_cmp(a->v, a->vl, b->v, b->vl);
	if (c)
		return c;
	return (a->gen < b->gen) - (a->gen > b->gen);
}

static void bloom_fit(sql_vset *vs, size_t n)
{
	if (!sql_bloom_fit(&vs->bloom, &vs->bloom_shift, n))
		return;
	for (int r = 0; r < vs->nruns; r++)
		for (size_t i = 0; i < vs->runs[r].n; i++)
			sql_bloom_set(vs->bloom, vs->bloom_shift,
				      sql_bloom_hash(vs->runs[r].c[i].v, vs->runs[r].c[i].vl));
}

/* Merges run b (newer) into a (older); when b follows a, appended. */
static void merge_runs(sql_vrun *a, sql_vrun *b)
{
	if (a->n && b->n && claim_cmp(&a->c[a->n - 1], &b->c[0]) < 0) {
		a->c = sql_seg_append(a->c, &a->n, &a->cap, b->c, b->n, sizeof *a->c);
	} else {
		size_t i = 0, j = 0, k = 0, cap = a->n + b->n;
		sql_vclaim *m = util_xmalloc(sizeof *m * (cap ? cap : 1));
		while (i < a->n && j < b->n)
			m[k++] = claim_cmp(&b->c[j], &a->c[i]) <= 0 ? b->c[j++] : a->c[i++];
		memcpy(m + k, a->c + i, sizeof *m * (a->n - i));
		k += a->n - i;
		memcpy(m + k, b->c + j, sizeof *m * (b->n - j));
		k += b->n - j;
		free(a->c);
		a->c = m;
		a->n = k;
		a->cap = cap;
	}
	free(b->c);
	memset(b, 0, sizeof *b);
}

static uint8_t *copy_bytes(sql_vset *vs, const uint8_t *p, size_t n)
{
	if (!p)
		return NULL;
	uint8_t *c = util_arena_alloc(vs->arena, n ? n : 1);
	if (!c)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	memcpy(c, p, n);
	return c;
}

void sql_vset_keep(sql_vset *vs, sql_vclaim *c, size_t n)
{
	if (n && !vs->arena)
		vs->arena = util_arena_new(1 << 20, 0);
	for (size_t i = 0; i < n; i++) {
		c[i].v = copy_bytes(vs, c[i].v, c[i].vl);
		c[i].pk = copy_bytes(vs, c[i].pk, c[i].pklen);
		c[i].expect = copy_bytes(vs, c[i].expect, c[i].elen);
		c[i].p0 = sql_vset_prefix(c[i].v, c[i].vl, 0);
		c[i].p1 = sql_vset_prefix(c[i].v, c[i].vl, 8);
	}
}

void sql_vset_add(sql_vset *vs, const sql_vclaim *c, size_t n)
{
	if (!n)
		return;
	bloom_fit(vs, vs->n + n);
	if (vs->nruns == vs->cap) {
		vs->cap = vs->cap ? 2 * vs->cap : 8;
		vs->runs = util_xrealloc(vs->runs, sizeof *vs->runs * (size_t)vs->cap);
	}
	sql_vrun *r = &vs->runs[vs->nruns];
	r->c = util_xmalloc(sizeof *r->c * n);
	r->n = r->cap = n;
	vs->nruns++;
	for (size_t i = 0; i < n; i++) {
		r->c[i] = c[i];
		sql_bloom_set(vs->bloom, vs->bloom_shift, sql_bloom_hash(c[i].v, c[i].vl));
	}
	vs->n += n;
	/* Log-structured: merge while the previous run is at most twice the
	 * newest (or the newest simply follows it). */
	while (vs->nruns >= 2) {
		sql_vrun *a = &vs->runs[vs->nruns - 2], *b = &vs->runs[vs->nruns - 1];
		if (a->n > 2 * b->n && claim_cmp(&a->c[a->n - 1], &b->c[0]) > 0)
			break;
		merge_runs(a, b);
		vs->nruns--;
	}
}

const sql_vclaim *sql_vset_find(const sql_vset *vs, const uint8_t *v, size_t vl)
{
	if (!vs->n || !sql_bloom_test(vs->bloom, vs->bloom_shift, sql_bloom_hash(v, vl)))
		return NULL;
	/* gen UINT32_MAX sorts before every claim of the values. */
	sql_vclaim key = {.p0 = sql_vset_prefix(v, vl, 0),
			  .p1 = sql_vset_prefix(v, vl, 8),
			  .v = v,
			  .vl = (uint32_t)vl,
			  .gen = UINT32_MAX};
	/* Newest run first: runs hold consecutive blocks, the last the newest. */
	for (int r = vs->nruns - 1; r >= 0; r--) {
		const sql_vrun *g = &vs->runs[r];
		size_t lo = 0, hi = g->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (claim_cmp(&g->c[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < g->n && g->c[lo].p0 == key.p0 && g->c[lo].p1 == key.p1 &&
		    !sql_wseg_key_cmp(g->c[lo].v, g->c[lo].vl, v, vl))
			return &g->c[lo];
	}
	return NULL;
}

bool sql_vset_drop_after(sql_vset *vs, uint32_t gen)
{
	size_t before = vs->n;
	int k = 0;
	for (int r = 0; r < vs->nruns; r++) {
		sql_vrun *g = &vs->runs[r];
		size_t m = 0;
		for (size_t i = 0; i < g->n; i++)
			if (g->c[i].gen <= gen)
				g->c[m++] = g->c[i];
		vs->n -= g->n - m;
		g->n = m;
		if (!m) {
			free(g->c);
			continue;
		}
		vs->runs[k++] = *g;
	}
	vs->nruns = k;
	/* (The bloom filter keeps their bits: false positives, rare.) */
	return vs->n != before;
}

void sql_vset_compact(sql_vset *vs)
{
	while (vs->nruns >= 2) {
		merge_runs(&vs->runs[vs->nruns - 2], &vs->runs[vs->nruns - 1]);
		vs->nruns--;
	}
}

void sql_vset_free(sql_vset *vs)
{
	for (int r = 0; r < vs->nruns; r++)
		free(vs->runs[r].c);
	free(vs->runs);
	free(vs->bloom);
	util_arena_destroy(vs->arena);
	memset(vs, 0, sizeof *vs);
}
