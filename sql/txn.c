/*
 * txn.c — transactions: a snapshot (read timestamp) per transaction or per
 * statement, writes buffered per row until COMMIT, then written as one kv
 * batch at one commit timestamp together with the transaction's catalog
 * changes — so a crash never exposes part of a transaction. Reads see the
 * transaction's own writes of earlier statements (command ids).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "sql_index.h"
#include "sql_int.h"
#include "txn_seg.h"

sql_txn *sql_txn_begin(sql_session *s, sql_isolation iso, bool read_only, bool explicit_block)
{
	util_arena *a = util_arena_new(64 * 1024, 0);
	sql_txn *t = util_arena_zalloc(a, sizeof *t);
	UTIL_ASSERT(t, "transaction allocation");
	t->s = s;
	t->arena = a;
	util_arena_set_account(a, &t->mem); /* (t lives in a: destroy uncharges first) */
	t->writes.borrowed = true; /* keys live in the transaction arena */
	t->iso = iso;
	t->read_only = read_only;
	t->explicit_block = explicit_block;
	if (s->e->opts.store_uri) {
		/* A store shared by several servers (every read point is an etcd
		 * read): the snapshot pinned here serves the first statement when
		 * it starts right away (sql_stmt_begin). */
		kv_snapshot_acquire(s->e->kv, &t->pin_ts);
		t->pinned = true;
		t->begin_pin = true;
		t->snapshot_ts = t->pin_ts;
	} else {
		t->snapshot_ts = kv_read_point(s->e->kv);
	}
	t->stmt_ts = t->snapshot_ts;
	t->start_us = util_now_us();
	return t;
}

/* A new snapshot at the current read point, pinned so that compactions
 * keep every version it can see until the next one or the end. */
static kv_ts new_snapshot(sql_txn *t)
{
	kv_store *kv = t->s->e->kv;
	if (t->begin_pin) { /* taken by sql_txn_begin for this very statement */
		t->begin_pin = false;
		if (t->pinned)
			return t->pin_ts;
	}
	if (t->pinned)
		kv_snapshot_release(kv, t->pin_ts);
	kv_snapshot_acquire(kv, &t->pin_ts);
	t->pinned = true;
	return t->pin_ts;
}

void sql_txn_stmt_begin(sql_txn *t)
{
	t->cid++;
	if (t->s->as_of_ts) { /* strata.read_as_of: time travel, read-only */
		sql_asof_stmt_begin(t);
		return;
	}
	if (t->iso == SQL_READ_COMMITTED) {
		t->stmt_ts = new_snapshot(t);
		return;
	}
	/* REPEATABLE READ: the snapshot is taken by the first statement of
	 * the block, not by BEGIN (a later SET TRANSACTION still applies). */
	if (!t->snapshot_taken) {
		t->snapshot_ts = new_snapshot(t);
		t->snapshot_taken = true;
	}
	t->stmt_ts = t->snapshot_ts;
}

kv_ts sql_txn_read_ts(sql_txn *t) { return t->stmt_ts; }

const char *sql_txn_export_snapshot(sql_txn *t)
{
	sql_session *s = t->s;
	kv_ts ts = t->iso == SQL_READ_COMMITTED ? t->stmt_ts : t->snapshot_ts;
	/* READ COMMITTED moves its pin at the next statement: the exported
	 * snapshot keeps this one until the transaction ends. */
	if (t->iso == SQL_READ_COMMITTED && t->pinned && t->pin_ts == ts && !t->export_pinned) {
		t->export_pin = ts;
		t->export_pinned = true;
		t->pinned = false;
	}
	pthread_mutex_lock(&s->e->sessions_mu);
	snprintf(s->export_id, sizeof s->export_id, "%08X-%016llX-1", (unsigned)s->pid, (unsigned long long)ts);
	s->export_ts = ts;
	pthread_mutex_unlock(&s->e->sessions_mu);
	return s->export_id;
}

void sql_txn_import_snapshot(sql_txn *t, const char *id)
{
	if (t->iso == SQL_READ_COMMITTED)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ");
	if (t->snapshot_taken || t->cid >= 1)
		ty_error(UTIL_E_ACTIVE_SQL_TRANSACTION, "SET TRANSACTION SNAPSHOT must be called before any query");
	sql_engine *e = t->s->e;
	kv_ts ts = 0;
	pthread_mutex_lock(&e->sessions_mu);
	for (int i = 0; i < e->nsessions && !ts; i++)
		if (e->sessions[i]->export_id[0] && !strcmp(e->sessions[i]->export_id, id))
			ts = e->sessions[i]->export_ts;
	pthread_mutex_unlock(&e->sessions_mu);
	if (!ts)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid snapshot identifier: \"%s\"", id);
	/* The exporter's pin keeps the versions while it runs, the retention
	 * window after (as PostgreSQL, the exporter must be alive at import). */
	t->snapshot_ts = ts;
	t->stmt_ts = ts;
	t->snapshot_taken = true;
}

bool sql_txn_row_changed(sql_txn *t, kv_table *kv, const cat_rel *r, const uint8_t *key, size_t klen)
{
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	ro.min_ts = t->stmt_ts + 1;
	ro.raw = true; /* a delete is a change too */
	kv_row row;
	size_t qpre;
	kv_status st = sql_row_get(kv, r, key, klen, &ro, ty_get_arena(), &row, &qpre);
	if (st == KV_NOT_FOUND)
		return false;
	if (st != KV_OK)
		sql_kv_error(st, "reading a row");
	return row.n > 0;
}

void sql_txn_serialization_failure(bool deleted)
{
	ty_error(UTIL_E_T_R_SERIALIZATION_FAILURE, "could not serialize access due to concurrent %s",
		 deleted ? "delete" : "update");
}

static size_t wkey(cat_oid table, const uint8_t *key, size_t klen, uint8_t *buf, size_t cap)
{
	if (klen + 4 > cap)
		return 0;
	util_put_be32(buf, table);
	memcpy(buf + 4, key, klen);
	return klen + 4;
}

/* A table's pending writes: every row in a list (scans), and the rows a
 * bulk load added block by block in sorted segments (txn_seg.h) instead
 * of the writes map. */
typedef struct table_writes {
	sql_wrow *head, *tail;
	size_t n;
	sql_wseg_set segs;
	sql_keyset *ks; /* segs' keys locked for other transactions (txn_lock.c) */
} table_writes;

/* Map lookup without the 4+key copy for short keys, then the table's
 * sorted segments (a key is in one or the other). */
static sql_wrow *find(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen)
{
	uint8_t stackbuf[512];
	uint8_t *buf = klen + 4 <= sizeof stackbuf ? stackbuf : util_xmalloc(klen + 4);
	wkey(table, key, klen, buf, klen + 4);
	sql_wrow *w = util_map_get(&t->writes, buf, klen + 4);
	if (buf != stackbuf)
		free(buf);
	if (!w && t->nseg_rows) {
		table_writes *tw = util_map_get_u64(&t->tables, table);
		if (tw)
			w = sql_wseg_find(&tw->segs, key, klen);
	}
	return w;
}

static table_writes *table_of(sql_txn *t, cat_oid table)
{
	table_writes *tw = util_map_get_u64(&t->tables, table);
	if (!tw) {
		tw = util_arena_zalloc(t->arena, sizeof *tw);
		if (!tw)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		util_map_put_u64(&t->tables, table, tw);
	}
	return tw;
}

static void link_row(sql_txn *t, table_writes *tw, sql_wrow *w)
{
	if (tw->tail)
		tw->tail->next_in_table = w;
	else
		tw->head = w;
	tw->tail = w;
	tw->n++;
	t->nwrites++;
}

/* The write buffer keeps kv table pointers until COMMIT, past the
 * statement whose scan opened them: hold a reference to each. */
static void hold_kv(sql_txn *t, kv_table *kv)
{
	for (int i = t->nkvrefs - 1; i >= 0; i--)
		if (t->kvrefs[i] == kv)
			return;
	if (t->nkvrefs == t->kvrefs_cap) {
		t->kvrefs_cap = t->kvrefs_cap ? t->kvrefs_cap * 2 : 8;
		t->kvrefs = util_xrealloc(t->kvrefs, sizeof *t->kvrefs * (size_t)t->kvrefs_cap);
	}
	kv_table_ref(kv);
	t->kvrefs[t->nkvrefs++] = kv;
}

static sql_wrow *new_wrow(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen)
{
	hold_kv(t, kv);
	util_arena *a = sql_txn_write_arena(t);
	sql_wrow *w = util_arena_zalloc(a, sizeof *w);
	int ncols = rel->rel.ncols;
	w->table = rel->oid;
	w->kv = kv;
	/* The map key (table oid ++ row key) doubles as the row key's storage. */
	uint8_t *mk = util_arena_alloc(a, klen + 4);
	if (!w || !mk)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	wkey(rel->oid, key, klen, mk, klen + 4);
	w->key = mk + 4;
	w->keylen = klen;
	w->ncols = ncols;
	w->cols = util_arena_zalloc(a, sizeof(ty_datum) * (size_t)(ncols ? ncols : 1));
	w->set = util_arena_zalloc(a, sizeof(bool) * (size_t)(ncols ? ncols : 1));
	if (!w->key || !w->cols || !w->set)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	for (int i = 0; i < ncols; i++)
		w->cols[i] = ty_null();
	w->cid = t->cid;
	w->base_ts = t->stmt_ts;
	util_map_put(&t->writes, mk, klen + 4, w);
	link_row(t, table_of(t, rel->oid), w);
	return w;
}

/* Before the first change by this statement, remember the row's state as
 * earlier statements left it (what this statement's reads must see). */
static void save_prev(sql_txn *t, sql_wrow *w)
{
	if (w->cid == t->cid)
		return;
	util_arena *a = sql_txn_write_arena(t);
	sql_wrow *p = util_arena_alloc(a, sizeof *p);
	if (!p)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	*p = *w;
	p->cols = util_arena_memdup(a, w->cols, sizeof(ty_datum) * (size_t)(w->ncols ? w->ncols : 1));
	p->set = util_arena_memdup(a, w->set, sizeof(bool) * (size_t)(w->ncols ? w->ncols : 1));
	p->prev = NULL;
	w->prev = p;
	w->cid = t->cid;
}

static void copy_vals(sql_txn *t, const cat_rel *r, sql_wrow *w, const ty_datum *vals, const bool *set)
{
	util_arena *old = ty_set_arena(sql_txn_write_arena(t));
	for (int i = 0; i < w->ncols; i++) {
		if (set && !set[i])
			continue;
		const ty_type *ty = ty_type_get(r->cols[i].type);
		w->cols[i] = ty_datum_copy(vals[i], ty ? ty->byval : true);
		w->set[i] = true;
	}
	ty_set_arena(old);
}

/* The values of the columns not in set, without marking them written. */
static void copy_unset(sql_txn *t, const cat_rel *r, sql_wrow *w, const ty_datum *vals, const bool *set)
{
	util_arena *old = ty_set_arena(sql_txn_write_arena(t));
	for (int i = 0; i < w->ncols; i++) {
		if (set[i] || r->cols[i].dropped)
			continue;
		const ty_type *ty = ty_type_get(r->cols[i].type);
		w->cols[i] = ty_datum_copy(vals[i], ty ? ty->byval : true);
	}
	ty_set_arena(old);
}

/* Heap bytes of one pending write outside the arena (its entries in the
 * writes and undo maps), roughly. */
#define WRITE_OVERHEAD 48

/* The write buffer counts against the memory budget of qmem.c: past
 * SQL_QUERY_MEM_FACTOR x work_mem the write fails with 53200 (the statement
 * ends, the transaction can be rolled back, the session goes on) instead of
 * holding an unbounded transaction in memory until COMMIT. */
static void check_budget(sql_txn *t)
{
	size_t lim = sql_query_mem_limit(t->s);
	if (UTIL_LIKELY(t->mem.used + t->nwrites * WRITE_OVERHEAD <= lim))
		return;
	util_err *e = ty_errstart(UTIL_E_OUT_OF_MEMORY, "out of memory");
	util_err_detail(e, "The transaction's uncommitted writes need more than %zu MB of memory.",
			lim >> 20);
	util_err_hint(e, "A transaction's uncommitted rows are kept in memory, up to 256 times work_mem; "
			 "commit in smaller transactions or raise work_mem.");
	ty_errthrow();
}

sql_wrow *sql_txn_put_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
			  const ty_datum *vals, const bool *set, bool insert, bool exists_before)
{
	check_budget(t);
	sql_wrow *w = find(t, rel->oid, key, klen);
	if (!w) {
		w = new_wrow(t, rel, kv, key, klen);
		w->deleted = false;
		if (t->savepoints)
			sql_txn_undo_record(t, w, true);
	} else {
		if (t->savepoints)
			sql_txn_undo_record(t, w, false);
		save_prev(t, w);
	}
	if (w->dead) {
		/* Revived after ROLLBACK TO: start from the committed state. */
		w->dead = false;
		w->present = w->deleted = w->inserted = false;
		for (int i = 0; i < w->ncols; i++) {
			w->cols[i] = ty_null();
			w->set[i] = false;
		}
	}
	if (insert) {
		/* An insert replaces the whole row: after a delete of the committed
		 * row (or of our own insert), or on a row that never existed. */
		if (exists_before || w->present || w->deleted)
			w->deleted = exists_before || w->deleted;
		for (int i = 0; i < w->ncols; i++) {
			w->cols[i] = ty_null();
			w->set[i] = true;
		}
		w->inserted = true;
		w->present = true;
		copy_vals(t, &rel->rel, w, vals, NULL);
	} else {
		w->present = true;
		copy_vals(t, &rel->rel, w, vals, set);
		/* A packed table writes whole rows (write_row): keep the columns
		 * not set too (vals is the whole new row: the update read it). */
		if (rel->rel.packed && set)
			copy_unset(t, &rel->rel, w, vals, set);
	}
	return w;
}

void sql_txn_delete_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen)
{
	check_budget(t);
	sql_wrow *w = find(t, rel->oid, key, klen);
	if (!w) {
		w = new_wrow(t, rel, kv, key, klen);
		if (t->savepoints)
			sql_txn_undo_record(t, w, true);
	} else {
		if (t->savepoints)
			sql_txn_undo_record(t, w, false);
		save_prev(t, w);
	}
	w->dead = false;
	/* If only our own insert existed, deleting it leaves nothing to write
	 * but the delete marker is harmless and keeps the logic simple. */
	w->deleted = true;
	w->present = false;
	w->inserted = false;
	for (int i = 0; i < w->ncols; i++) {
		w->cols[i] = ty_null();
		w->set[i] = false;
	}
}

void sql_txn_insert_sorted(sql_txn *t, const cat_obj *rel, kv_table *kv, const sql_newrow *rows, size_t n)
{
	if (!n)
		return;
	check_budget(t);
	hold_kv(t, kv);
	const cat_rel *r = &rel->rel;
	int ncols = r->ncols;
	table_writes *tw = table_of(t, rel->oid);
	/* (in the caller's arena: freed with it if an allocation throws) */
	sql_wrow **ptrs = ty_alloc(sizeof *ptrs * n);
	bool *byval = ty_alloc(sizeof(bool) * (size_t)(ncols ? ncols : 1));
	for (int i = 0; i < ncols; i++) {
		const ty_type *ty = ty_type_get(r->cols[i].type);
		byval[i] = ty ? ty->byval : true;
	}
	size_t cells = sizeof(ty_datum) * (size_t)(ncols ? ncols : 1);
	size_t nseg = 0;
	for (size_t k = 0; k < n; k++) {
		const sql_newrow *nr = &rows[k];
		/* A key with a pending write (a delete, or a row a savepoint
		 * rollback left dead) takes the insert in place: one write per key. */
		if (nr->pending) {
			sql_txn_put_row(t, rel, kv, nr->key, nr->klen, nr->vals, NULL, true, false);
			continue;
		}
		util_arena *old = ty_set_arena(t->arena);
		sql_wrow *w = util_arena_zalloc(t->arena, sizeof *w);
		uint8_t *key = util_arena_alloc(t->arena, nr->klen ? nr->klen : 1);
		ty_datum *cols = util_arena_alloc(t->arena, cells);
		bool *set = util_arena_alloc(t->arena, (size_t)(ncols ? ncols : 1));
		if (!w || !key || !cols || !set) {
			ty_set_arena(old);
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		}
		memcpy(key, nr->key, nr->klen);
		for (int i = 0; i < ncols; i++) {
			cols[i] = ty_datum_copy(nr->vals[i], byval[i]);
			set[i] = true;
		}
		w->table = rel->oid;
		w->kv = kv;
		w->key = key;
		w->keylen = nr->klen;
		w->present = w->inserted = true;
		w->ncols = ncols;
		w->cols = cols;
		w->set = set;
		w->cid = t->cid;
		w->base_ts = t->stmt_ts;
		w->in_seg = true;
		ty_set_arena(old);
		link_row(t, tw, w);
		ptrs[nseg++] = w;
	}
	if (t->savepoints) /* ROLLBACK TO makes them dead, as rows of the map */
		for (size_t k = 0; k < nseg; k++)
			sql_txn_undo_record(t, ptrs[k], true);
	if (tw->ks)
		sql_keyset_write_lock(tw->ks);
	sql_wseg_add(&tw->segs, ptrs, nseg);
	if (tw->ks)
		sql_keyset_write_unlock(tw->ks);
	t->nseg_rows += nseg;
}

void sql_txn_compact_segments(sql_txn *t, cat_oid table)
{
	table_writes *tw = t->nseg_rows ? util_map_get_u64(&t->tables, table) : NULL;
	if (!tw || tw->segs.nsegs < 2)
		return;
	if (tw->ks)
		sql_keyset_write_lock(tw->ks);
	sql_wseg_all(&tw->segs);
	if (tw->ks)
		sql_keyset_write_unlock(tw->ks);
}

sql_keyset *sql_txn_keyset(sql_txn *t, cat_oid table)
{
	table_writes *tw = table_of(t, table);
	if (!tw->ks)
		tw->ks = sql_keyset_new(t, table, &tw->segs);
	return tw->ks;
}

/* A row locked on a shared store (sql_txn_note_lock); transaction arena. */
typedef struct sql_xlock {
	cat_oid table;
	kv_table *kv;
	uint8_t *key;
	size_t klen;
	kv_ts base_ts;
	bool exclusive;
	bool key_share; /* FOR KEY SHARE only: non-key changes do not conflict */
	bool guard;     /* SQL_LOCK_GUARD_SHARES only */
	struct sql_xlock *next;
} sql_xlock;

void sql_txn_note_lock(sql_txn *t, kv_table *kv, cat_oid table, const uint8_t *key, size_t klen, int strength,
		       kv_ts base_ts)
{
	if (!t->s->e->opts.store_uri)
		return;
	bool excl = strength == PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE ||
		    strength == PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE;
	bool ks = strength == SQL_LOCK_PARENT_KEY;
	bool guard = strength == SQL_LOCK_GUARD_SHARES;
	sql_xlock *h = t->xlocks;
	/* (Not under a savepoint: h may be older than it, and ROLLBACK TO keeps h.) */
	if (!guard && !t->savepoints && h && h->table == table && h->klen == klen && !memcmp(h->key, key, klen) &&
	    h->base_ts <= base_ts) {
		h->exclusive |= excl; /* the same row again (a loop): the older base stands */
		h->key_share &= ks;
		return;
	}
	hold_kv(t, kv);
	sql_xlock *x = util_arena_zalloc(t->arena, sizeof *x);
	uint8_t *k = util_arena_alloc(t->arena, klen ? klen : 1);
	if (!x || !k)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	memcpy(k, key, klen);
	*x = (sql_xlock){table, kv, k, klen, base_ts, excl, ks, guard, t->xlocks};
	t->xlocks = x;
}

/* Shared store: every row the transaction locked must be unchanged since
 * the version its locker read (another server's write in between: 40001),
 * an exclusive lock counts as a change for other servers' commits, and a
 * shared one makes another server's delete of the row based on an older
 * version fail (an orphaned child row otherwise). A row locked FOR KEY
 * SHARE alone (a foreign key's parent) need only still exist: changes of
 * its other columns do not conflict, as in PostgreSQL. */
static void check_xlocks(sql_txn *t, kv_batch *b, const cat_snap *cs)
{
	for (sql_xlock *x = t->xlocks; x; x = x->next) {
		const cat_obj *o = cat_get(cs, x->table);
		if (!o)
			continue; /* dropped in this transaction */
		const cat_rel *r = &o->rel;
		size_t rl = r->ilv_depth ? sql_ilv_rowlen(r, x->key, x->klen) : x->klen;
		if (x->guard)
			kv_batch_guard_shares(b, x->kv, x->key, rl);
		else if (x->exclusive)
			kv_batch_lock_row(b, x->kv, x->key, rl, x->base_ts);
		else if (x->key_share && rl == x->klen) {
			kv_batch_require(b, x->kv, x->key, rl, SQL_FAMILY, "", 0, KV_CMP_PRESENT, NULL, 0);
			kv_batch_share_row(b, x->kv, x->key, rl, 0);
		} else /* FOR SHARE: a later delete loses too */
			kv_batch_share_row(b, x->kv, x->key, rl, x->base_ts);
	}
}

void sql_txn_rebase(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, kv_ts ts)
{
	sql_wrow *w = find(t, table, key, klen);
	if (w && w->cid == t->cid && !w->prev) /* first changed by this statement */
		w->base_ts = ts;
}

sql_wrow *sql_txn_find_write(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen)
{
	return find(t, table, key, klen);
}

sql_wrow *sql_txn_lookup(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, bool visible_only)
{
	sql_wrow *w = find(t, table, key, klen);
	if (w && w->dead)
		return NULL;
	if (!w || !visible_only)
		return w;
	return w->cid < t->cid ? w : w->prev;
}

static int cmp_wrow(const void *a, const void *b)
{
	const sql_wrow *x = *(sql_wrow *const *)a, *y = *(sql_wrow *const *)b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = memcmp(x->key, y->key, n);
	return c ? c : (x->keylen > y->keylen) - (x->keylen < y->keylen);
}

sql_wrow **sql_txn_table_writes(sql_txn *t, cat_oid table, util_arena *arena, int *n)
{
	*n = 0;
	table_writes *tw = util_map_get_u64(&t->tables, table);
	if (!tw)
		return NULL;
	sql_wrow **list = util_arena_alloc(arena, sizeof *list * (tw->n ? tw->n : 1));
	if (!list)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	int k = 0;
	for (sql_wrow *w = tw->head; w; w = w->next_in_table) {
		if (w->dead)
			continue;
		sql_wrow *v = w->cid < t->cid ? w : w->prev;
		if (v)
			list[k++] = v;
	}
	qsort(list, (size_t)k, sizeof *list, cmp_wrow);
	*n = k;
	return list;
}

void sql_txn_forget_dead(sql_txn *t, cat_oid table)
{
	table_writes *tw = util_map_get_u64(&t->tables, table);
	if (!tw)
		return;
	/* Dead rows of the writes map live in the savepoint arenas about to be
	 * freed: unlink them. A sorted segment's rows live in the transaction's
	 * arena and stay in their segment (a later write of the key revives
	 * them in place), so they stay linked, dead, as before. */
	sql_wrow *last = NULL, **link = &tw->head;
	size_t n = 0;
	for (sql_wrow *w = tw->head; w; w = w->next_in_table) {
		if (w->dead && !w->in_seg) {
			util_map_del(&t->writes, w->key - 4, w->keylen + 4);
			t->nwrites--;
			continue;
		}
		*link = w;
		link = &w->next_in_table;
		last = w;
		n++;
	}
	*link = NULL;
	tw->tail = last;
	tw->n = n;
}

void sql_txn_table_reshape(sql_txn *t, cat_oid table, int ncols, bool forget)
{
	table_writes *tw = util_map_get_u64(&t->tables, table);
	if (!tw)
		return;
	for (sql_wrow *w = tw->head; w; w = w->next_in_table) {
		if (forget) {
			uint8_t *buf = util_xmalloc(w->keylen + 4);
			wkey(table, w->key, w->keylen, buf, w->keylen + 4);
			util_map_del(&t->writes, buf, w->keylen + 4); /* (not there: a segment's row) */
			free(buf);
			t->nwrites--;
			continue;
		}
		/* Every state of the row (its previous ones too) grows to ncols. */
		for (sql_wrow *v = w; v; v = v->prev) {
			if (v->ncols >= ncols)
				continue;
			ty_datum *cols = util_arena_zalloc(t->arena, sizeof(ty_datum) * (size_t)ncols);
			bool *set = util_arena_zalloc(t->arena, sizeof(bool) * (size_t)ncols);
			if (!cols || !set)
				ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
			memcpy(cols, v->cols, sizeof(ty_datum) * (size_t)v->ncols);
			memcpy(set, v->set, sizeof(bool) * (size_t)v->ncols);
			for (int i = v->ncols; i < ncols; i++) {
				cols[i] = ty_null();
				set[i] = v->inserted; /* an inserted row is whole: new columns are NULL */
			}
			v->cols = cols;
			v->set = set;
			v->ncols = ncols;
		}
	}
	if (forget) {
		t->nseg_rows -= tw->segs.nkeys;
		sql_keyset_free(tw->ks);
		tw->ks = NULL;
		sql_wseg_free(&tw->segs);
		util_map_del_u64(&t->tables, table);
	}
}

cat_txn *sql_txn_ddl(sql_txn *t)
{
	if (!t->ddl) {
		sql_engine *e = t->s->e;
		cat_ddl_lock(e->cat);
		t->ddl_locked = true;
		/* DDL works on the newest catalog, under the DDL lock. */
		cat_snap *cur = cat_current(e->cat);
		t->ddl = cat_txn_begin(e->cat, cur);
		cat_snap_release(cur);
	}
	return t->ddl;
}

static void push_name(sql_txn *t, char ***list, int *n, const char *name)
{
	char **nl = util_arena_alloc(t->arena, sizeof *nl * (size_t)(*n + 1));
	if (!nl)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	if (*n)
		memcpy(nl, *list, sizeof *nl * (size_t)*n);
	nl[(*n)++] = util_arena_strdup(t->arena, name);
	*list = nl;
}

void sql_txn_drop_storage_after_commit(sql_txn *t, const char *storage)
{
	push_name(t, &t->drop_after_commit, &t->ndrop, storage);
}

bool sql_txn_storage_private(const sql_txn *t, const char *storage)
{
	for (int i = 0; i < t->nabort; i++)
		if (!strcmp(t->drop_on_abort[i], storage))
			return true;
	return false;
}

void sql_txn_drop_storage_on_abort(sql_txn *t, const char *storage)
{
	push_name(t, &t->drop_on_abort, &t->nabort, storage);
}

/* A cell qualifier: the row's qualifier prefix (entity groups) and a
 * 2-byte column id, or just the prefix for the row's sentinel. */
typedef struct qual {
	uint8_t stack[64];
	uint8_t *q;
	size_t pre;
} qual;

static void qual_init(qual *x, const uint8_t *pre, size_t n)
{
	x->q = n + 2 <= sizeof x->stack ? x->stack : ty_alloc(n + 2);
	memcpy(x->q, pre, n);
	x->pre = n;
}

static const uint8_t *qual_col(qual *x, uint16_t col_id)
{
	sql_colid_qual(col_id, x->q + x->pre);
	return x->q;
}

void sql_txn_note_direct_rows(sql_txn *t, cat_oid table, uint64_t rows)
{
	if (t->bulk_table && t->bulk_table != table)
		return; /* (only the statistics refresh after commit misses them) */
	t->bulk_table = table;
	t->bulk_rows += rows;
}

void sql_txn_bulk_row(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
		      const ty_datum *vals)
{
	sql_txn_bulk_row_data(t, rel, kv, key, klen, vals);
	sql_index_bulk_row(t, rel, key, klen, vals);
}

void sql_txn_bulk_sorted_runs(sql_txn *t)
{
	if (!t->bulk)
		t->bulk = kv_batch_new();
	kv_batch_sorted_runs(t->bulk);
}

void sql_txn_bulk_row_data(sql_txn *t, const cat_obj *rel, kv_table *kv, const uint8_t *key, size_t klen,
			   const ty_datum *vals)
{
	if (!t->bulk)
		t->bulk = kv_batch_new();
	hold_kv(t, kv);
	const cat_rel *r = &rel->rel;
	util_buf *buf = &t->s->rowbuf;
	size_t rl = r->ilv_depth ? sql_ilv_rowlen(r, key, klen) : klen;
	qual x;
	qual_init(&x, key + rl, klen - rl);
	const char *fam = rl < klen ? SQL_ILV_FAMILY : SQL_FAMILY;
	t->bulk_table = rel->oid;
	t->bulk_rows++;
	if (r->packed) { /* one cell: the sentinel holds the values (rowpack.c) */
		util_buf_reset(buf);
		sql_row_pack(r, vals, r->ncols, buf);
		kv_batch_put(t->bulk, kv, key, rl, fam, x.q, x.pre, KV_TS_LATEST, buf->data, buf->len);
		t->nwrites++;
		return;
	}
	/* Cells in key order (the sentinel's empty qualifier first), so the
	 * store's memstore inserts them next to each other. */
	kv_batch_put(t->bulk, kv, key, rl, fam, x.q, x.pre, KV_TS_LATEST, "", 0);
	for (int i = 0; i < r->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (c->dropped || vals[i].null || !sql_column_in_cells(r, c))
			continue;
		util_buf_reset(buf);
		sql_value_encode(c->type, vals[i], buf);
		kv_batch_put(t->bulk, kv, key, rl, fam, qual_col(&x, c->col_id), x.pre + 2, KV_TS_LATEST,
			     buf->data, buf->len);
	}
	t->nwrites++;
}

/* Deletes an interleaved row: its sentinel, its columns and (its table
 * has children) every descendant's cell, read now under the row's lock. */
static void delete_child_row(kv_batch *b, const cat_rel *r, sql_wrow *w, size_t rl)
{
	qual x;
	qual_init(&x, w->key + rl, w->keylen - rl);
	kv_batch_delete(b, w->kv, w->key, rl, SQL_ILV_FAMILY, x.q, x.pre, KV_TS_LATEST, KV_DELETE_COLUMN);
	for (int i = 0; i < r->ncols; i++)
		if (sql_column_in_cells(r, &r->cols[i]))
			kv_batch_delete(b, w->kv, w->key, rl, SQL_ILV_FAMILY, qual_col(&x, r->cols[i].col_id), x.pre + 2,
					KV_TS_LATEST, KV_DELETE_COLUMN);
	if (!r->ilv_nchildren)
		return;
	uint8_t *pre = ty_alloc(x.pre + 1);
	memcpy(pre, x.q, x.pre);
	pre[x.pre] = SQL_ILV_SEP;
	kv_filter *f = kv_filter_column_prefix(pre, x.pre + 1);
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	ro.filter = f;
	kv_column fam = {SQL_ILV_FAMILY, NULL, 0};
	ro.columns = &fam;
	ro.ncolumns = 1;
	kv_row row;
	kv_status st = kv_get(w->kv, w->key, rl, &ro, ty_get_arena(), &row);
	kv_filter_free(f);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading interleaved rows");
	for (size_t k = 0; st == KV_OK && k < row.n; k++)
		kv_batch_delete(b, w->kv, w->key, rl, SQL_ILV_FAMILY, row.cells[k].qualifier.data, row.cells[k].qualifier.len,
				KV_TS_LATEST, KV_DELETE_COLUMN);
}

/* Appends one row's final state to the commit batch; check_base: the
 * commit also checks that no other commit changed the kv row after the
 * version this transaction's change was based on (w->base_ts). */
static void write_row(sql_txn *t, kv_batch *b, const cat_snap *cs, sql_wrow *w, util_buf *buf,
		      bool check_base)
{
	const cat_obj *o = cat_get(cs, w->table);
	if (!o || w->dead)
		return; /* the table was dropped in this transaction, or the write rolled back */
	const cat_rel *r = &o->rel;
	/* The kv row and the qualifier prefix (non-empty for interleaved rows). */
	size_t rl = r->ilv_depth ? sql_ilv_rowlen(r, w->key, w->keylen) : w->keylen;
	if (check_base)
		kv_batch_check_row_at(b, w->kv, w->key, rl, w->base_ts);
	if (!w->present) {
		if (rl == w->keylen) { /* a whole kv row: its interleaved children go with it */
			kv_batch_delete_row(b, w->kv, w->key, w->keylen, KV_TS_LATEST);
			return;
		}
		/* A shared store: a row another server's new child (a foreign
		 * key) share-locked after this delete's version makes the commit
		 * fail, as a kv row's delete does; the mark is the group's. */
		if (t->s->e->opts.store_uri)
			kv_batch_guard_shares(b, w->kv, w->key, rl);
		delete_child_row(b, r, w, rl);
		return;
	}
	bool whole = w->inserted;
	const char *fam = rl < w->keylen ? SQL_ILV_FAMILY : SQL_FAMILY;
	qual x;
	qual_init(&x, w->key + rl, w->keylen - rl);
	if (r->packed) {
		/* The whole row, also for an update (w->cols holds every column
		 * then: sql_txn_put_row); its new sentinel hides the old one. */
		util_buf_reset(buf);
		sql_row_pack(r, w->cols, w->ncols, buf);
		kv_batch_put(b, w->kv, w->key, rl, fam, x.q, x.pre, KV_TS_LATEST, buf->data, buf->len);
		return;
	}
	if (whole) /* first: cells in key order */
		kv_batch_put(b, w->kv, w->key, rl, fam, x.q, x.pre, KV_TS_LATEST, "", 0);
	for (int i = 0; i < r->ncols && i < w->ncols; i++) {
		const cat_column *c = &r->cols[i];
		if (c->dropped || !sql_column_in_cells(r, c))
			continue;
		if (!whole && !w->set[i])
			continue;
		const uint8_t *q = qual_col(&x, c->col_id);
		if (w->cols[i].null) {
			/* Only needed when an older version of the cell may exist. */
			if (!whole || w->deleted)
				kv_batch_delete(b, w->kv, w->key, rl, fam, q, x.pre + 2, KV_TS_LATEST,
						KV_DELETE_COLUMN);
			continue;
		}
		util_buf_reset(buf);
		sql_value_encode(c->type, w->cols[i], buf);
		kv_batch_put(b, w->kv, w->key, rl, fam, q, x.pre + 2, KV_TS_LATEST, buf->data, buf->len);
	}
	(void)t;
}

static void txn_free(sql_txn *t)
{
	if (t->s->export_id[0]) { /* an exported snapshot ends with its transaction */
		pthread_mutex_lock(&t->s->e->sessions_mu);
		t->s->export_id[0] = 0;
		pthread_mutex_unlock(&t->s->e->sessions_mu);
	}
	if (t->export_pinned)
		kv_snapshot_release(t->s->e->kv, t->export_pin);
	free(t->undo);
	sql_txn_ix_free(t->ix);
	if (t->bulk)
		kv_batch_free(t->bulk);
	for (int i = 0; i < t->nkvrefs; i++)
		kv_table_close(t->kvrefs[i]);
	free(t->kvrefs);
	util_map_free(&t->writes);
	{ /* (after the commit is applied: a waiter for a key then sees the row) */
		size_t pos = 0;
		void *v;
		while (util_map_next(&t->tables, &pos, NULL, NULL, &v)) {
			table_writes *tw = v;
			sql_keyset_free(tw->ks);
			sql_wseg_free(&tw->segs);
		}
	}
	util_map_free(&t->tables);
	sql_savepoints_free(t);
	util_arena_destroy(t->arena);
}

static void release(sql_txn *t)
{
	sql_txn_unlock_all(t);
	if (t->pinned) {
		kv_snapshot_release(t->s->e->kv, t->pin_ts);
		t->pinned = false;
	}
	if (t->ddl_locked) {
		cat_ddl_unlock(t->s->e->cat);
		t->ddl_locked = false;
	}
}

/* (table, key) order. */
static int cmp_table_wrow(const void *a, const void *b)
{
	const sql_wrow *x = *(sql_wrow *const *)a, *y = *(sql_wrow *const *)b;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return cmp_wrow(a, b);
}

static int cmp_oid(const void *a, const void *b)
{
	cat_oid x = *(const cat_oid *)a, y = *(const cat_oid *)b;
	return (x > y) - (x < y);
}

/* The commit's rows: the map's (sorted, *k of them) merged with every
 * table's segments, in (table, key) order, without sorting the segments'
 * rows again. */
static sql_wrow **merge_segments(sql_txn *t, sql_wrow **rows, size_t *k)
{
	size_t ntab = util_map_count(&t->tables), nt = 0, pos = 0;
	cat_oid *oids = util_arena_alloc(t->arena, sizeof *oids * (ntab ? ntab : 1));
	sql_wrow **out = util_arena_alloc(t->arena, sizeof *out * (*k + t->nseg_rows));
	if (!oids || !out)
		ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
	const void *key;
	size_t kl;
	void *v;
	while (util_map_next(&t->tables, &pos, &key, &kl, &v)) {
		uint64_t oid;
		memcpy(&oid, key, sizeof oid);
		if (((table_writes *)v)->segs.nkeys)
			oids[nt++] = (cat_oid)oid;
	}
	qsort(oids, nt, sizeof *oids, cmp_oid);
	size_t i = 0, o = 0;
	for (size_t ti = 0; ti < nt; ti++) {
		table_writes *tw = util_map_get_u64(&t->tables, oids[ti]);
		if (tw->ks)
			sql_keyset_write_lock(tw->ks);
		const sql_wseg *g = sql_wseg_all(&tw->segs);
		if (tw->ks)
			sql_keyset_write_unlock(tw->ks);
		for (size_t j = 0; j < g->n; j++) {
			while (i < *k && cmp_table_wrow(&rows[i], &g->rows[j]) < 0)
				out[o++] = rows[i++];
			out[o++] = g->rows[j];
		}
	}
	while (i < *k)
		out[o++] = rows[i++];
	*k = o;
	return out;
}

int sql_txn_commit(sql_txn *t, util_err *err)
{
	sql_engine *e = t->s->e;
	int rc = 0;
	t->s->commit_retryable = false;
	/* Deferred foreign-key checks may still fail (or cascade) the commit. */
	if ((t->fk && sql_fk_at_commit(t, err) != 0) || (t->s->temp && sql_temp_at_commit(t, err) != 0)) {
		sql_txn_abort(t);
		return -1;
	}
	if (t->nwrites == 0 && !(t->ddl && cat_txn_dirty(t->ddl)))
		goto done;
	/* An autocommit COPY's rows were checked for duplicates without row
	 * locks: first-committer-wins on them catches a concurrent insert. */
	bool bulk = t->bulk != NULL;
	kv_batch *b = t->bulk ? t->bulk : kv_batch_new();
	t->bulk = NULL;
	util_buf buf = UTIL_BUF_INIT;
	/* Index maintenance (index_write.c): holds the commit gate until the
	 * batch is committed. */
	sql_ixcommit *volatile ic = NULL;
	/* Building the batch may still fail (a catalog invariant, a read of
	 * interleaved rows): the transaction then aborts with that error. Row
	 * encoding allocates in a scratch arena. */
	util_arena *scratch = util_arena_new(16 * 1024, 0);
	util_arena *outer_arena = ty_set_arena(NULL);
	ty_set_arena(outer_arena);
	kv_status st;
	volatile bool serial_locked = false;
	TY_TRY(tc)
	{
		ic = sql_index_commit_begin(t, b);
		/* (after: finishing index builds changes the catalog) */
		cat_snap *cs = t->ddl ? cat_txn_snap(t->ddl) : t->s->cat;
		/* Rows in (table, key) order: the store's memstore then inserts
		 * each next to the previous one, which is much faster than random
		 * order. */
		size_t nw = util_map_count(&t->writes), k = 0, pos = 0;
		sql_wrow **rows = util_arena_alloc(t->arena, sizeof *rows * (nw ? nw : 1));
		if (!rows)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		void *v;
		while (util_map_next(&t->writes, &pos, NULL, NULL, &v))
			rows[k++] = v;
		qsort(rows, k, sizeof *rows, cmp_table_wrow);
		if (t->nseg_rows)
			rows = merge_segments(t, rows, &k);
		/* READ COMMITTED on a store shared by several servers: the row
		 * locks are per server, so the commit checks each written row
		 * against the version its change was based on (another server's
		 * commit in between is 40001, not a lost update). */
		bool check_base = t->iso == SQL_READ_COMMITTED && !bulk && e->opts.store_uri;
		for (size_t i = 0; i < k; i++) {
			ty_set_arena(scratch);
			write_row(t, b, cs, rows[i], &buf, check_base);
			ty_set_arena(outer_arena);
			sql_index_commit_row(ic, rows[i]);
		}
		if (t->xlocks && !bulk)
			check_xlocks(t, b, cs);
		if (t->ddl) {
			sql_ilv_check_catalog(t->s->cat, cat_txn_snap(t->ddl));
			cat_txn_write(t->ddl, b);
		}
		st = KV_OK;
		bool check = t->iso != SQL_READ_COMMITTED || bulk;
		kv_ts check_ts = t->iso != SQL_READ_COMMITTED ? t->snapshot_ts : t->stmt_ts;
		if (t->iso == SQL_SERIALIZABLE && t->reads) {
			/* Validation and commit are one step among serializable
			 * transactions, so they serialize in commit order. */
			pthread_mutex_lock(&e->serial_mu);
			serial_locked = true;
			st = sql_txn_validate_reads(t);
			check_ts = t->snapshot_ts;
		}
		if (st == KV_OK) {
			if (ic)
				st = sql_index_commit_finish(ic, b, check, check_ts);
			else if (check)
				st = kv_commit_if(e->kv, b, check_ts, NULL, NULL);
			else
				st = kv_commit(e->kv, b, NULL, NULL);
		}
		if (serial_locked) {
			serial_locked = false;
			pthread_mutex_unlock(&e->serial_mu);
		}
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(outer_arena);
		util_arena_destroy(scratch);
		if (serial_locked)
			pthread_mutex_unlock(&e->serial_mu);
		sql_index_commit_end(ic);
		util_buf_free(&buf);
		kv_batch_free(b);
		*err = *ty_err();
		rc = -1;
		goto abort;
	}
	TY_END(tc);
	util_arena_destroy(scratch);
	util_buf_free(&buf);
	kv_batch_free(b);
	if (st != KV_OK) {
		if (st == KV_CONFLICT && bulk)
			util_err_set(err, UTIL_E_UNIQUE_VIOLATION,
				     "duplicate key value violates unique constraint: a concurrent transaction inserted a key this COPY loads");
		else if (st == KV_CONFLICT && t->iso == SQL_SERIALIZABLE)
			util_err_set(err, UTIL_E_T_R_SERIALIZATION_FAILURE,
				     "could not serialize access due to read/write dependencies among transactions");
		else if (st == KV_CONFLICT) {
			util_err_set(err, UTIL_E_T_R_SERIALIZATION_FAILURE,
				     "could not serialize access due to concurrent update");
			/* Only the check of written rows against their base versions
			 * fails a READ COMMITTED commit: the statement can run again. */
			t->s->commit_retryable = t->iso == SQL_READ_COMMITTED;
		} else if (st == KV_CHECK_FAILED)
			util_err_set(
			    err, UTIL_E_T_R_SERIALIZATION_FAILURE,
			    "could not serialize access due to a concurrent change of a unique key or a "
			    "referenced row");
		else if (st == KV_TOO_LARGE)
			util_err_set(err, UTIL_E_PROGRAM_LIMIT_EXCEEDED, "transaction is too large to commit: %s",
				     kv_errmsg());
		else if (st == KV_NOT_FOUND)
			/* A storage the transaction writes is gone: on a shared
			 * store another server's DROP, TRUNCATE or rewrite replaced
			 * it after the writes (as sql_kv_error's "opening" case). */
			util_err_set(err, UTIL_E_T_R_SERIALIZATION_FAILURE,
				     "could not serialize access: a relation this transaction writes was dropped "
				     "or rewritten by a concurrent transaction (%s)",
				     kv_errmsg());
		else
			util_err_set(err, st == KV_NO_SPACE ? UTIL_E_DISK_FULL : UTIL_E_IO_ERROR,
				     "could not commit the transaction: %s", kv_errmsg());
		sql_index_commit_end(ic);
		rc = -1;
		goto abort;
	}
	sql_index_commit_done(t);
	bool published = t->ddl != NULL;
	if (t->ddl) {
		cat_snap *before = cat_current(e->cat);
		cat_txn_publish(t->ddl);
		t->ddl = NULL;
		sql_policy_sync(e, before); /* table options -> kv family options */
		cat_snap_release(before);
	}
	/* The gate is held until the new catalog is published: a commit that
	 * starts later sees the indexes this one created. */
	sql_index_commit_end(ic);
	if (published)
		sql_index_gc_refresh(e);
	/* Big loads: statistics refreshed in the background. */
	{
		cat_snap *now = cat_current(e->cat);
		size_t pos2 = 0;
		const void *k2;
		size_t kl2;
		void *v2;
		while (util_map_next(&t->tables, &pos2, &k2, &kl2, &v2)) {
			uint64_t oid;
			memcpy(&oid, k2, sizeof oid);
			sql_autoanalyze_note(t->s, now, (cat_oid)oid, ((table_writes *)v2)->n);
		}
		if (t->bulk_table)
			sql_autoanalyze_note(t->s, now, t->bulk_table, t->bulk_rows);
		cat_snap_release(now);
	}
	if (t->ndrop) {
		/* A storage an interleaved table still lives in stays. The others
		 * go in one manifest edit (one fsync, not one per storage); a
		 * running backup keeps its handles. */
		const char **gone = util_xcalloc((size_t)t->ndrop, sizeof(char *));
		int ngone = 0;
		cat_snap *now = cat_current(e->cat);
		for (int i = 0; i < t->ndrop; i++)
			if (!sql_ilv_storage_in_use(now, t->drop_after_commit[i]))
				gone[ngone++] = t->drop_after_commit[i];
		cat_snap_release(now);
		kv_table_drop_many(e->kv, gone, ngone);
		free(gone);
	}
done:
	if (t->ddl) {
		cat_txn_abort(t->ddl);
		t->ddl = NULL;
	}
	release(t);
	txn_free(t);
	return rc;
abort:
	sql_txn_abort(t);
	return rc;
}

void sql_txn_abort(sql_txn *t)
{
	if (t->ddl) {
		cat_txn_abort(t->ddl);
		t->ddl = NULL;
	}
	for (int i = 0; i < t->nabort; i++)
		kv_table_drop(t->s->e->kv, t->drop_on_abort[i]);
	release(t);
	txn_free(t);
}
