/*
 * judge.c — the read protocol: an entry counts only if its data row, read at
 * the same snapshot, exists (inside a partial index's predicate), yields
 * the same entry key, and its indexed cells are not newer than the entry.
 * An entry newer than the row's cells is still the row's: the newest write
 * to an indexed column may have left no cell (a NULL is the absence of a
 * cell and its write time is gone once compaction drops the marker), and a
 * split commit interrupted before its data step leaves the removed entry's
 * intent at the new timestamp while the row keeps the old key. Repairs
 * turn what a read learnt into cells: stale entries are masked,
 * right-but-unverified entries are marked verified, entries older than
 * their row are rewritten.
 */
#include <stdlib.h>
#include <string.h>

#include "idx.h"

idx_verdict idx_judge(const idx_entry *e, bool has_entry, const void *key, size_t klen, kv_ts row_ts)
{
	if (!has_entry || klen != e->key.len || memcmp(key, e->key.data, klen) != 0)
		return IDX_STALE;
	if (e->ts == row_ts)
		return IDX_EXACT;
	return e->ts > row_ts ? IDX_NEWER : IDX_OLDER;
}

bool idx_repair(kv_batch *b, const idx_def *d, const idx_entry *e, idx_verdict v, const void *value,
		size_t vlen, kv_ts row_ts)
{
	switch (v) {
	case IDX_STALE:
		/* Every version of an entry key is of the same row, which does not
		 * hold the key now: mask them all (deleting only this one would
		 * expose an older, possibly verified, version). */
		kv_batch_delete(b, d->kv, e->key.data, e->key.len, IDX_FAMILY, "", 0, e->ts,
				KV_DELETE_COLUMN);
		return true;
	case IDX_EXACT:
	case IDX_NEWER:
	case IDX_OLDER: {
		bool same = vlen == e->value.len && vlen >= 1 &&
			    memcmp((const uint8_t *)value + 1, e->value.data + 1, vlen - 1) == 0;
		if (v != IDX_OLDER && same && (e->flags & IDX_F_VERIFIED))
			return false;
		if (vlen < 1)
			return false;
		uint8_t stack[512];
		uint8_t *nv = vlen <= sizeof stack ? stack : util_xmalloc(vlen);
		memcpy(nv, value, vlen);
		nv[0] |= IDX_F_VERIFIED;
		/* OLDER: the row changed the entry's columns after the entry was
		 * written; a put at the row's timestamp shadows it. */
		kv_batch_put(b, d->kv, e->key.data, e->key.len, IDX_FAMILY, "", 0,
			     v == IDX_OLDER ? row_ts : e->ts, nv, vlen);
		if (nv != stack)
			free(nv);
		return true;
	}
	}
	return false;
}
