/*
 * copy_sort.c — the sorted path of an autocommit COPY into a table with a
 * primary key (see copy_sort.h).
 *
 * Why: rows arriving in random key order made the store sort every cell
 * of the load when the commit batch spilled (eight cells a row for the
 * reporting events, each comparison reaching into the batch at random),
 * and each row cost a hash-map probe and a point read for the duplicate
 * check. Sorting the rows once, by key, gives the spill presorted runs
 * to merge, and turns the duplicate checks into merges: adjacent equal
 * keys within a flush, a walk over the sorted keys of earlier flushes,
 * and one scan of the stored table over the flush's key range.
 *
 * Semantics kept: the error is the one PostgreSQL reports, a 23505 at
 * the first line (in load order) whose key is already present — a later
 * duplicate of a key in this load, or a key stored before. PostgreSQL
 * inserts COPY's rows in buffers of 1000 (CopyMultiInsertBuffer), so the
 * error of a bad row (input, NOT NULL, CHECK) wins over a duplicate in
 * the same buffer and gives way to one in an earlier buffer: the caller's
 * error path calls sql_copy_sort_check() with the first line of the
 * failing row's 1000-line block (PostgreSQL also flushes at 64 KB of
 * tuples, so for wide rows its blocks are shorter). Nothing is visible
 * before the commit: the rows go into the autocommit transaction's bulk
 * batch as before.
 *
 * In a transaction block (flush_in_block) the rows go into the
 * transaction's write set instead (visible to its later statements,
 * undone by ROLLBACK TO), sorted and checked at the end of each block of
 * 1000 rows (PostgreSQL's choice of error), as one sorted segment of the
 * write set per block (txn_seg.h).
 */
#include <stdlib.h>
#include <string.h>

#include "copy_sort.h"
#include "sql_index.h"

/* A flush this big streams into a run file of its own (the bigger
 * flushes of copy.c are ~40 MB). */
#define RUN_FLUSH_BYTES (16u << 20)

typedef struct srow {
	uint64_t p0, p1; /* key bytes 0-7 and 8-15, big-endian, zero-padded */
	const uint8_t *key;
	uint32_t klen;
	int64_t line;
	ty_datum *vals;
	bool pending; /* in_block: the key has a pending write (find_dup) */
} srow;

struct sql_copy_sort {
	sql_session *s;
	const cat_obj *rel;
	kv_table *kv;
	bool private_storage; /* created by this transaction: nothing stored */
	bool in_block;        /* rows go into the write set (see above) */
	bool unique;          /* the table has unique secondary indexes */
	ty_datum **rows;      /* the pending rows' values, for index_write.c */
	int64_t *lines;
	srow *e; /* pending rows */
	size_t n, cap;
	kv_slice *old; /* keys of earlier flushes, ascending */
	size_t nold;
	util_arena *keya; /* bytes of old */
	bool in_flush;
	size_t bytes;     /* of the pending rows (key, values), roughly */
	sql_fk_state *fk; /* in_block: foreign-key events queued per flushed block */
};

sql_copy_sort *sql_copy_sort_new(sql_session *s, const cat_obj *rel, kv_table *kv, bool in_block)
{
	sql_copy_sort *cs = util_xcalloc(1, sizeof *cs);
	cs->s = s;
	cs->in_block = in_block;
	cs->unique = sql_index_has_unique(s, rel);
	cs->rel = rel;
	cs->kv = kv;
	cs->private_storage = sql_txn_storage_private(s->txn, rel->rel.storage);
	cs->keya = util_arena_new(1 << 20, 0);
	return cs;
}

void sql_copy_sort_free(sql_copy_sort *cs)
{
	if (!cs)
		return;
	free(cs->e);
	free(cs->rows);
	free(cs->lines);
	free(cs->old);
	util_arena_destroy(cs->keya);
	free(cs);
}

size_t sql_copy_sort_pending(const sql_copy_sort *cs)
{
	return cs->n;
}

size_t sql_copy_sort_bytes(const sql_copy_sort *cs)
{
	return cs->bytes;
}

void sql_copy_sort_add(sql_copy_sort *cs, const uint8_t *key, size_t klen, ty_datum *vals, int64_t line)
{
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? 2 * cs->cap : 4096;
		cs->e = util_xrealloc(cs->e, cs->cap * sizeof(srow));
		cs->rows = util_xrealloc(cs->rows, cs->cap * sizeof *cs->rows);
		cs->lines = util_xrealloc(cs->lines, cs->cap * sizeof *cs->lines);
	}
	srow *r = &cs->e[cs->n++];
	uint8_t *k = ty_alloc(klen ? klen : 1);
	memcpy(k, key, klen);
	uint8_t buf[16] = {0};
	memcpy(buf, key, klen < 16 ? klen : 16);
	uint64_t w0, w1;
	memcpy(&w0, buf, 8);
	memcpy(&w1, buf + 8, 8);
	r->p0 = __builtin_bswap64(w0);
	r->p1 = __builtin_bswap64(w1);
	r->key = k;
	r->klen = (uint32_t)klen;
	r->line = line;
	r->vals = vals;
	r->pending = false;
	int ncols = cs->rel->rel.ncols;
	vals[ncols] = ty_bytes(k, klen); /* the row key, for the unique checks */
	cs->bytes += klen + sizeof(srow) + (size_t)(ncols + 1) * sizeof(ty_datum);
	for (int i = 0; i < ncols; i++)
		if (!vals[i].null)
			cs->bytes += vals[i].len;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

/* Key order, then load order. Zero padding keeps memcmp order with
 * shorter-first where the packed words differ; equal words fall through
 * to the whole keys. */
static int srow_cmp(const void *pa, const void *pb)
{
	const srow *x = pa, *y = pb;
	if (x->p0 != y->p0)
		return x->p0 < y->p0 ? -1 : 1;
	if (x->p1 != y->p1)
		return x->p1 < y->p1 ? -1 : 1;
	int c = key_cmp(x->key, x->klen, y->key, y->klen);
	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool same_key(const srow *x, const srow *y)
{
	return x->p0 == y->p0 && x->p1 == y->p1 && x->klen == y->klen && !memcmp(x->key, y->key, x->klen);
}

static void sort_pending(sql_copy_sort *cs)
{
	bool sorted = true;
	for (size_t i = 1; i < cs->n && sorted; i++)
		sorted = srow_cmp(&cs->e[i - 1], &cs->e[i]) <= 0;
	if (!sorted)
		qsort(cs->e, cs->n, sizeof(srow), srow_cmp);
}

/* Sorts the pending rows and returns the one of the lowest line whose key
 * is already present, or NULL. */
static const srow *find_dup(sql_copy_sort *cs)
{
	if (!cs->n)
		return NULL;
	sort_pending(cs);
	sql_txn *t = cs->s->txn;
	const srow *best = NULL;
#define CANDIDATE(r)                                                                                         \
	do {                                                                                                 \
		if (!best || (r)->line < best->line)                                                         \
			best = (r);                                                                          \
	} while (0)
	/* One scan of the stored rows' sentinels over the flush's key range:
	 * mostly steps, a seek where the next pending key is far ahead. */
	kv_iter *it = NULL;
	/* In a transaction block, a point read per key (bloom filters skip
	 * most files): a load there is usually small next to the table, and
	 * the scan would read every stored row of the flush's key range
	 * (measured 1.6x the CPU of the point reads for 250k rows into 1M). */
	static const kv_column sentinel = {SQL_FAMILY, "", 0};
	util_arena *scratch = NULL;
	if (!cs->private_storage && cs->in_block)
		scratch = util_arena_new(4096, 0);
	if (!cs->private_storage && !cs->in_block) {
		kv_scan_opts so;
		memset(&so, 0, sizeof so);
		so.read.read_ts = KV_TS_MAX;
		so.read.columns = &sentinel;
		so.read.ncolumns = 1;
		so.start = cs->e[0].key;
		so.start_len = cs->e[0].klen;
		so.stop = cs->e[cs->n - 1].key;
		so.stop_len = cs->e[cs->n - 1].klen;
		so.stop_inclusive = true;
		it = kv_scan(cs->kv, &so);
	}
	size_t oi = 0;
	for (size_t i = 0; i < cs->n;) {
		srow *g = &cs->e[i];
		size_t j = i + 1;
		while (j < cs->n && same_key(g, &cs->e[j]))
			j++;
		if (j > i + 1)
			CANDIDATE(&cs->e[i + 1]); /* a second row with the key */
		if (cs->in_block) {
			/* This transaction's own change of the row decides: an
			 * insert (by an earlier statement or flush) is a duplicate,
			 * a delete frees the key whatever is stored. */
			const sql_wrow *w = sql_txn_find_write(t, cs->rel->oid, g->key, g->klen);
			g->pending = w != NULL;
			if (w && !w->dead) { /* (a write a ROLLBACK TO undid: the stored row decides) */
				if (w->present)
					CANDIDATE(g);
				i = j;
				continue;
			}
		}
		while (oi < cs->nold && key_cmp(cs->old[oi].data, cs->old[oi].len, g->key, g->klen) < 0)
			oi++;
		if (oi < cs->nold && !key_cmp(cs->old[oi].data, cs->old[oi].len, g->key, g->klen))
			CANDIDATE(g); /* loaded by an earlier flush of this COPY */
		if (scratch) {
			kv_read_opts ro;
			memset(&ro, 0, sizeof ro);
			ro.read_ts = KV_TS_MAX;
			ro.columns = &sentinel;
			ro.ncolumns = 1;
			kv_row row;
			util_arena_reset(scratch);
			kv_status st = kv_get(cs->kv, g->key, g->klen, &ro, scratch, &row);
			if (st != KV_OK && st != KV_NOT_FOUND) {
				util_arena_destroy(scratch);
				sql_kv_error(st, "reading a row");
			}
			if (st == KV_OK && row.n > 0)
				CANDIDATE(g); /* stored before */
		}
		for (int steps = 0; it && kv_iter_valid(it); steps++) {
			const kv_cell *c = kv_iter_cell(it);
			int d = key_cmp(c->row.data, c->row.len, g->key, g->klen);
			if (d > 0)
				break;
			if (d == 0) {
				CANDIDATE(g); /* stored before */
				break;
			}
			if (steps < 8)
				kv_iter_next(it);
			else
				kv_iter_seek_row(it, g->key, g->klen);
		}
		i = j;
	}
#undef CANDIDATE
	util_arena_destroy(scratch);
	if (it) {
		kv_status st = kv_iter_status(it);
		kv_iter_close(it);
		if (st != KV_OK)
			sql_kv_error(st, "reading a table");
	}
	return best;
}

/* The unique-index checks of the pending rows (index_write.c): throws the
 * violation at the lowest line below before_line, if any. */
static void check_unique(sql_copy_sort *cs, int64_t before_line, bool claim_keys)
{
	sql_uq_mode mode = !claim_keys ? SQL_UQ_REPORT : cs->in_block ? SQL_UQ_CLAIM_BLOCK : SQL_UQ_CLAIM;
	if (!cs->unique || !cs->n)
		return;
	for (size_t i = 0; i < cs->n; i++) {
		cs->rows[i] = cs->e[i].vals;
		cs->lines[i] = cs->e[i].line;
	}
	sql_index_unique_check_rows(cs->s, cs->rel, cs->rows, cs->lines, cs->n, before_line, mode);
}

/* Merges the flushed keys into the sorted keys of earlier flushes. */
static void keep_keys(sql_copy_sort *cs)
{
	kv_slice *m = util_xmalloc((cs->nold + cs->n) * sizeof(kv_slice));
	size_t a = 0, b = 0, k = 0;
	while (a < cs->nold || b < cs->n) {
		if (b == cs->n || (a < cs->nold && key_cmp(cs->old[a].data, cs->old[a].len, cs->e[b].key,
							   cs->e[b].klen) < 0)) {
			m[k++] = cs->old[a++];
			continue;
		}
		uint8_t *p = util_arena_alloc(cs->keya, cs->e[b].klen ? cs->e[b].klen : 1);
		if (!p) {
			free(m);
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		}
		memcpy(p, cs->e[b].key, cs->e[b].klen);
		m[k].data = p;
		m[k++].len = cs->e[b].klen;
		b++;
	}
	free(cs->old);
	cs->old = m;
	cs->nold = k;
}

/* A flush in a transaction block (a block of 1000 rows): sorted by key,
 * each key locked (as INSERT: a concurrent inserter of the key makes us
 * wait, then its row is seen), then checked as an autocommit flush is,
 * against the write set (an insert of this transaction is a duplicate, a
 * delete frees the key) and, by a point read, the stored rows (a load in
 * a block is usually small next to its table, where a bloom-filtered read
 * per key beats a scan of the flush's key range); the duplicate at the
 * lowest line wins. The rows then go into the write set as one sorted
 * segment (sql_txn_insert_sorted): no hash entry per row, and the commit
 * merges the segments instead of sorting their rows again. */
static void flush_in_block(sql_copy_sort *cs)
{
	sql_txn *t = cs->s->txn;
	ty_datum **fk_rows = cs->fk ? ty_alloc(sizeof *fk_rows * (cs->n ? cs->n : 1)) : NULL;
	for (size_t i = 0; cs->fk && i < cs->n; i++) /* load order, for the events below */
		fk_rows[i] = cs->e[i].vals;
	sort_pending(cs);
	if (!cs->private_storage && cs->rel->rel.npk) {
		/* The block's keys locked at once (a key set, txn_lock.c); one
		 * locked by another transaction: each key as INSERT locks it. */
		kv_slice *keys = ty_alloc(sizeof *keys * (cs->n ? cs->n : 1));
		size_t nk = 0;
		for (size_t i = 0; i < cs->n; i++)
			if (!i || !same_key(&cs->e[i - 1], &cs->e[i]))
				keys[nk++] = (kv_slice){cs->e[i].key, cs->e[i].klen};
		if (!sql_keyset_lock_block(sql_txn_keyset(t, cs->rel->oid), keys, nk))
			for (size_t i = 0; i < nk; i++)
				sql_txn_lock_row(t, cs->rel->oid, keys[i].data, keys[i].len,
						 PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
						 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
	}
	/* (A generated row id is new: nothing to lock or check.) */
	const srow *dup = cs->rel->rel.npk ? find_dup(cs) : NULL;
	/* Unique secondary indexes: each value locked and claimed, checked
	 * against this block, the transaction's own rows (their claims,
	 * validated against the write set: a row deleted or changed since,
	 * or undone by ROLLBACK TO, no longer holds its value) and the
	 * committed entries; a violation at a lower line than the primary
	 * key's duplicate wins. */
	check_unique(cs, dup ? dup->line : INT64_MAX, true);
	if (dup)
		sql_copy_dup_key(cs->s, &cs->rel->rel, dup->vals, dup->line);
	/* Foreign keys: the block's events queued (fired at the end of the
	 * COPY, or early past fk.c's threshold) only once its keys passed, so
	 * a duplicate wins over a missing parent of the same or a later block,
	 * as PostgreSQL's after-row triggers do. */
	for (size_t i = 0; cs->fk && i < cs->n; i++)
		sql_fk_row(cs->fk, NULL, fk_rows[i]);
	sql_newrow *nr = ty_alloc(sizeof *nr * (cs->n ? cs->n : 1));
	for (size_t i = 0; i < cs->n; i++)
		nr[i] = (sql_newrow){cs->e[i].key, cs->e[i].klen, cs->e[i].vals, cs->e[i].pending};
	sql_txn_insert_sorted(t, cs->rel, cs->kv, nr, cs->n);
	cs->n = 0;
	cs->bytes = 0;
}

void sql_copy_sort_set_fk(sql_copy_sort *cs, sql_fk_state *fk)
{
	cs->fk = fk;
}

void sql_copy_sort_flush(sql_copy_sort *cs)
{
	cs->in_flush = true;
	if (cs->in_block) {
		flush_in_block(cs);
		cs->in_flush = false;
		return;
	}
	sql_txn *t = cs->s->txn;
	const srow *dup = find_dup(cs);
	/* A unique index's duplicate at an earlier line wins (at the same
	 * line the primary key's, as PostgreSQL checks it first). */
	check_unique(cs, dup ? dup->line : INT64_MAX, true);
	if (dup)
		sql_copy_dup_key(cs->s, &cs->rel->rel, dup->vals, dup->line);
	/* The flush's cells ascend (rows by key, a row's cells sentinel
	 * first): a big one goes straight into a run file, no batch buffer
	 * or sort (a load that small would commit through the memstore). */
	if (cs->bytes >= RUN_FLUSH_BYTES)
		sql_txn_bulk_sorted_runs(t);
	for (size_t i = 0; i < cs->n; i++) {
		const srow *r = &cs->e[i];
		/* Sorted, the rows are read at random across the row arena:
		 * fetch a few ahead (their key and values, allocated together). */
		if (i + 8 < cs->n) {
			__builtin_prefetch(cs->e[i + 8].key);
			__builtin_prefetch(cs->e[i + 8].vals);
		}
		sql_txn_bulk_row_data(t, cs->rel, cs->kv, r->key, r->klen, r->vals);
		if ((i & 4095) == 4095)
			ty_check_interrupts();
	}
	/* The index entries index by index, each in key order: the batch
	 * then spills a few sorted runs (index_write.c). */
	for (size_t i = 0; i < cs->n; i++)
		cs->rows[i] = cs->e[i].vals;
	sql_index_bulk_rows(t, cs->rel, cs->rows, cs->n);
	keep_keys(cs);
	cs->n = 0;
	cs->bytes = 0;
	cs->in_flush = false;
}

void sql_copy_sort_check(sql_copy_sort *cs, int64_t before_line)
{
	if (cs->in_flush)
		return;
	cs->in_flush = true; /* once; the rows are dropped, the load failed */
	size_t k = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->e[i].line < before_line)
			cs->e[k++] = cs->e[i];
	cs->n = k;
	/* (Generated row ids: no duplicate keys, unique indexes still.) */
	const srow *dup = cs->rel->rel.npk ? find_dup(cs) : NULL;
	check_unique(cs, dup ? dup->line : INT64_MAX, false);
	if (dup)
		sql_copy_dup_key(cs->s, &cs->rel->rel, dup->vals, dup->line);
}

void sql_copy_dup_key(sql_session *s, const cat_rel *r, const ty_datum *vals, int64_t line)
{
	util_buf cols = UTIL_BUF_INIT, v = UTIL_BUF_INIT;
	const char *pk = "?";
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'p')
			pk = r->cons[i].name;
	sql_row_key_describe(r, vals, &cols, &v);
	util_err *e =
	    ty_errstart(UTIL_E_UNIQUE_VIOLATION, "duplicate key value violates unique constraint \"%s\"", pk);
	util_err_detail(e, "Key (%s)=(%s) already exists.", cols.data, v.data);
	util_err_context(e, "COPY %s, line %lld", r->name, (long long)line);
	const char *sn = sql_schema_name(s->cat, r->schema);
	if (sn)
		util_err_field(e->schema, sn);
	util_err_field(e->table, r->name);
	util_err_field(e->constraint, pk);
	util_buf_free(&cols);
	util_buf_free(&v);
	ty_errthrow();
}
