/*
 * txn_serial.c — SERIALIZABLE by optimistic read validation. A
 * serializable transaction reads at its snapshot like REPEATABLE READ and
 * records the key ranges it read (scans, point reads). If it wrote
 * anything, its commit first checks, under the engine's serial_mu, that no
 * transaction committed a change inside those ranges after its snapshot,
 * then commits with first-committer-wins on the rows it writes. Among
 * serializable transactions this yields the serial order of their commits
 * (every committed one behaves as if it had read at its commit point);
 * read-only ones see a prefix of that order at their snapshot and never
 * fail. It aborts more often than PostgreSQL's SSI (any read/write overlap
 * with a later-committed reader fails the reader, not only dangerous
 * structures), never less, and the error is raised at COMMIT.
 *
 * The read set is bounded: past SERIAL_MAX_RANGES entries, the ranges of
 * each table collapse into one whole-table range (PostgreSQL's SSI
 * promotes predicate locks the same way).
 */
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

#define SERIAL_MAX_RANGES 4096

typedef struct readrange {
	const char *storage; /* kv table name (transaction arena) */
	uint8_t *start, *stop;
	size_t slen, stlen;
	bool whole, point;
	struct readrange *next;
} readrange;

typedef struct sql_readset {
	readrange *head;
	size_t n;
	bool collapsed; /* every table's ranges are whole-table ones */
} sql_readset;

static readrange *whole_range(sql_readset *rs, const char *storage)
{
	for (readrange *r = rs->head; r; r = r->next)
		if (r->whole && !strcmp(r->storage, storage))
			return r;
	return NULL;
}

static void add(sql_txn *t, sql_readset *rs, const char *storage, const uint8_t *start, size_t slen,
		const uint8_t *stop, size_t stlen, bool point, bool whole)
{
	readrange *r = util_arena_zalloc(t->arena, sizeof *r);
	if (!r)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	r->storage = util_arena_strdup(t->arena, storage);
	r->whole = whole;
	r->point = point;
	if (!whole) {
		r->start = slen ? util_arena_memdup(t->arena, start, slen) : NULL;
		r->slen = slen;
		r->stop = stop ? util_arena_memdup_nz(t->arena, stop, stlen) : NULL;
		r->stlen = stlen;
	}
	r->next = rs->head;
	rs->head = r;
	rs->n++;
}

/* Replaces every range by one whole-table range per table. */
static void collapse(sql_txn *t, sql_readset *rs)
{
	readrange *old = rs->head;
	rs->head = NULL;
	rs->n = 0;
	for (readrange *r = old; r; r = r->next)
		if (!whole_range(rs, r->storage))
			add(t, rs, r->storage, NULL, 0, NULL, 0, false, true);
	rs->collapsed = true;
}

void sql_txn_note_read(sql_txn *t, const char *storage, const uint8_t *start, size_t slen,
		       const uint8_t *stop, size_t stlen, bool point)
{
	if (!sql_txn_tracks_reads(t))
		return;
	sql_readset *rs = t->reads;
	if (!rs) {
		rs = util_arena_zalloc(t->arena, sizeof *rs);
		if (!rs)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		t->reads = rs;
	}
	if (whole_range(rs, storage))
		return;
	bool whole = !point && slen == 0 && !stop;
	if (rs->collapsed || rs->n >= SERIAL_MAX_RANGES) {
		if (!rs->collapsed)
			collapse(t, rs);
		whole = true;
	}
	add(t, rs, storage, start, slen, stop, stlen, point, whole);
}

/* Any cell committed after the snapshot in the range? */
static kv_status changed(sql_txn *t, kv_table *kv, const readrange *r, util_arena *a)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = KV_TS_MAX;
	so.read.min_ts = t->snapshot_ts + 1;
	so.read.raw = true;
	so.read.no_cache = true;
	so.limit = 1;
	if (r->point) {
		kv_row row;
		kv_status st = kv_get(kv, r->start, r->slen, &so.read, a, &row);
		if (st == KV_NOT_FOUND)
			return KV_OK;
		if (st != KV_OK)
			return st;
		return row.n ? KV_CONFLICT : KV_OK;
	}
	so.start = r->start;
	so.start_len = r->slen;
	so.stop = r->stop;
	so.stop_len = r->stop ? r->stlen : 0;
	kv_iter *it = kv_scan(kv, &so);
	kv_status st = kv_iter_status(it);
	if (st == KV_OK && kv_iter_valid(it))
		st = KV_CONFLICT;
	kv_iter_close(it);
	return st;
}

kv_status sql_txn_validate_reads(sql_txn *t)
{
	if (!t->reads)
		return KV_OK;
	util_arena *a = util_arena_new(4096, 0);
	kv_status result = KV_OK;
	for (readrange *r = t->reads->head; r && result == KV_OK; r = r->next) {
		kv_table *kv;
		kv_status st = kv_table_open(t->s->e->kv, r->storage, &kv);
		if (st == KV_NOT_FOUND)
			continue; /* dropped since: DDL conflicts are the catalog's business */
		if (st != KV_OK) {
			result = st;
			break;
		}
		result = changed(t, kv, r, a);
		kv_table_close(kv);
		util_arena_reset(a);
	}
	util_arena_destroy(a);
	return result;
}
