/*
 * ranges.c — range helpers over the block indexes and the read path:
 * approximate split points of a row range, and FindMax (Accumulo style):
 * the last row of a range found with existence probes only, for backends
 * without reverse scans. FindMax extends a known prefix one byte at a time,
 * binary-searching the byte (8 probes) after checking whether any longer
 * row exists (1 probe): about 9 probes per byte of the answer.
 */
#include <stdlib.h>
#include <string.h>

#include "kv_int.h"

/* Does any row exist in [a, b) (b NULL = unbounded), within the caller's
 * read options? */
static kv_status exists(kv_table *t, const kv_scan_opts *base, const uint8_t *a, size_t al, const uint8_t *b,
			size_t bl, bool *yes, int *probes)
{
	kv_scan_opts o = *base;
	o.reverse = false;
	o.limit = 1;
	o.start = a;
	o.start_len = al;
	o.start_exclusive = false;
	o.stop = b;
	o.stop_len = bl;
	o.stop_inclusive = false;
	(*probes)++;
	kv_iter *it = kv_scan(t, &o);
	*yes = kv_iter_valid(it);
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}

kv_status kv_find_max_row(kv_table *t, const kv_scan_opts *opts, util_arena *arena, kv_slice *row,
			  int *probes)
{
	int dummy = 0;
	if (!probes)
		probes = &dummy;
	*probes = 0;
	const uint8_t *lo = opts->start ? opts->start : (const uint8_t *)"";
	size_t lol = opts->start ? opts->start_len : 0;
	/* An inclusive stop becomes [.., stop || 0x00). */
	uint8_t hibuf[IKEY_ROW_MAX + 2];
	const uint8_t *hi = NULL;
	size_t hil = 0;
	if (opts->stop) {
		if (opts->stop_len > IKEY_ROW_MAX)
			return kv_fail(KV_INVALID, "stop row too long");
		memcpy(hibuf, opts->stop, opts->stop_len);
		hil = opts->stop_len;
		if (opts->stop_inclusive)
			hibuf[hil++] = 0;
		hi = hibuf;
	}
	bool yes;
	kv_status st = exists(t, opts, lo, lol, hi, hil, &yes, probes);
	if (st)
		return st;
	if (!yes)
		return KV_NOT_FOUND;
	uint8_t p[IKEY_ROW_MAX + 1], a[IKEY_ROW_MAX + 2], up[IKEY_ROW_MAX + 2];
	size_t pl = 0;
	for (;;) {
		/* upper = min(hi, successor of the prefix). */
		const uint8_t *u = hi;
		size_t ul = hil;
		size_t sl = pl;
		while (sl > 0 && p[sl - 1] == 0xff)
			sl--;
		if (sl > 0) {
			memcpy(up, p, sl);
			up[sl - 1]++;
			if (!hi || ikey_bytes_cmp(up, sl, hi, hil) < 0) {
				u = up;
				ul = sl;
			}
		}
		if (pl >= IKEY_ROW_MAX)
			break;
		/* Any row longer than the prefix? From max(lo, p || 0x00). */
		memcpy(a, p, pl);
		a[pl] = 0;
		const uint8_t *s0 = a;
		size_t s0l = pl + 1;
		if (ikey_bytes_cmp(lo, lol, a, pl + 1) > 0) {
			s0 = lo;
			s0l = lol;
		}
		if ((st = exists(t, opts, s0, s0l, u, ul, &yes, probes)))
			return st;
		if (!yes)
			break; /* the prefix itself is the last row */
		int blo = 0, bhi = 255;
		while (blo < bhi) {
			int mid = (blo + bhi + 1) / 2;
			a[pl] = (uint8_t)mid;
			const uint8_t *s1 = a;
			size_t s1l = pl + 1;
			if (ikey_bytes_cmp(lo, lol, a, pl + 1) > 0) {
				s1 = lo;
				s1l = lol;
			}
			if ((st = exists(t, opts, s1, s1l, u, ul, &yes, probes)))
				return st;
			if (yes)
				blo = mid;
			else
				bhi = mid - 1;
		}
		p[pl++] = (uint8_t)blo;
	}
	row->data = util_arena_memdup_nz(arena, p, pl);
	row->len = pl;
	return row->data ? KV_OK : kv_fail(KV_NO_MEMORY, "arena budget exceeded");
}

static int slice_cmp_q(const void *a, const void *b)
{
	return kv_slice_cmp(*(const kv_slice *)a, *(const kv_slice *)b);
}

kv_status kv_split_points(kv_table *t, const void *start, size_t slen, const void *stop, size_t stlen,
			  int max, util_arena *arena, kv_slice *points, int *n)
{
	*n = 0;
	if (max < 2)
		return KV_OK;
	if (atomic_load(&t->dropped))
		return kv_fail(KV_NOT_FOUND, "kv table %s was dropped", t->name);
	kv_sv *sv = table_sv(t);
	size_t cap = 0, cnt = 0;
	kv_slice *rows = NULL;
	kv_status st = KV_OK;
	for (int f = 0; f < sv->v->nfam && !st; f++) {
		for (int j = 0; j < sv->v->fams[f].n && !st; j++) {
			sst_reader *r;
			if ((st = sfile_reader(sv->v->fams[f].files[j], &r)))
				break;
			size_t nb = sst_nblocks(r);
			for (size_t b = 0; b < nb; b++) {
				const uint8_t *k;
				size_t kl;
				sst_block_key(r, b, &k, &kl);
				kv_slice row = {k + 2, ikey_rowlen(k)};
				if (start && kv_slice_cmp(row, (kv_slice){start, slen}) <= 0)
					continue;
				if (stop && kv_slice_cmp(row, (kv_slice){stop, stlen}) >= 0)
					continue;
				if (cnt == cap) {
					cap = cap ? 2 * cap : 256;
					rows = util_xrealloc(rows, cap * sizeof(kv_slice));
				}
				rows[cnt].data = util_arena_memdup_nz(arena, row.data, row.len);
				rows[cnt].len = row.len;
				if (!rows[cnt].data) {
					st = kv_fail(KV_NO_MEMORY, "arena budget exceeded");
					break;
				}
				cnt++;
			}
			sst_unref(r);
		}
	}
	sv_unref(sv);
	if (!st && cnt) {
		qsort(rows, cnt, sizeof(kv_slice), slice_cmp_q);
		size_t u = 0;
		for (size_t i = 0; i < cnt; i++)
			if (u == 0 || kv_slice_cmp(rows[u - 1], rows[i]) != 0)
				rows[u++] = rows[i];
		/* max-1 points at equal steps through the block boundaries. */
		int want = max - 1;
		if ((size_t)want > u)
			want = (int)u;
		for (int i = 1; i <= want; i++) {
			size_t idx = (size_t)((double)i * (double)u / (double)(want + 1));
			if (idx >= u)
				idx = u - 1;
			if (*n > 0 && kv_slice_cmp(points[*n - 1], rows[idx]) == 0)
				continue;
			points[(*n)++] = rows[idx];
		}
	}
	free(rows);
	return st;
}
