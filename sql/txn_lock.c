/*
 * txn_lock.c — the row lock manager: writers (UPDATE, DELETE, INSERT of a
 * key, SELECT ... FOR UPDATE/SHARE, foreign-key checks) lock (table, row
 * key) until their transaction ends, in PostgreSQL's four row-lock modes
 * with PostgreSQL's conflict table. A blocked locker waits, honours NOWAIT /
 * SKIP LOCKED / lock_timeout / cancel, and deadlocks are found by walking
 * the waits-for graph (waiter -> holders of conflicting modes). Kept behind
 * this small interface so a distributed backend can replace it with
 * compares in its own transactions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops.h"
#include "sql_int.h"
#include "txn_seg.h"
#include "txn_vset.h"

/* Modes, weakest first: FOR KEY SHARE, FOR SHARE, FOR NO KEY UPDATE, FOR
 * UPDATE (PgQuery's LockClauseStrength values 2..5). */
enum { M_KEYSHARE, M_SHARE, M_NOKEYUPDATE, M_UPDATE, M_NMODES };

/* PostgreSQL's row-level lock conflict table. */
static const bool conflicts[M_NMODES][M_NMODES] = {
	/*                KS     S      NKU    U */
	[M_KEYSHARE] = {false, false, false, true},
	[M_SHARE] = {false, false, true, true},
	[M_NOKEYUPDATE] = {false, true, true, true},
	[M_UPDATE] = {true, true, true, true},
};

static int mode_of(int strength)
{
	switch (strength) {
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE:
		return M_KEYSHARE;
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE:
		return M_SHARE;
	case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE:
		return M_NOKEYUPDATE;
	default:
		return M_UPDATE;
	}
}

/* Idle relation-lock entries are kept while the lock map is at most this big. */
#define IDLE_REL_LOCKS_MAX 1024

typedef struct holder {
	sql_txn *t;
	int mode;
} holder;

/* One locked row; freed when its last holder ends. */
typedef struct sql_rowlock {
	uint8_t *key; /* table oid (4 bytes) ++ row key */
	size_t klen;
	int nholders, cap;
	holder *holders;
} sql_rowlock;

/* A waiting transaction, the key and the mode it waits for (the key bytes
 * belong to the waiter and stay valid while it waits). */
typedef struct waiter {
	sql_txn *t;
	const uint8_t *key;
	size_t klen;
	int mode;
} waiter;

/* The waits-for edges, guarded by the engine's locks_mu. */
static waiter *waiters;
static int nwaiters, waiters_cap;
/* The next transaction id for pg_locks (under locks_mu). */
static uint32_t next_xid = 1000;

/* A transaction that writes gets an id, as PostgreSQL's does at its first
 * write (under locks_mu). */
static void assign_xid(sql_txn *t)
{
	if (t->xid)
		return;
	t->xid = next_xid++;
	if (!next_xid) /* wrapped: 0 means "none" */
		next_xid = 1000;
}

static const waiter *waiting(const sql_txn *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i].t == t)
			return &waiters[i];
	return NULL;
}

static bool blocked(const sql_rowlock *l, const sql_txn *t, int mode);

/* A transaction's bulk-inserted keys of one table (sql_keyset_new):
 * its write-set segments, or the values its COPY blocks claimed in a
 * unique index (sql_keyset_new_values; table is then the index) (read by
 * other lockers under rw, changed by the owner under rw's write lock),
 * and the block being checked (copied). */
struct sql_keyset {
	sql_engine *e;
	sql_txn *t;
	cat_oid table;
	sql_wseg_set *segs;
	bool undone; /* a ROLLBACK TO left rows of segs dead: they lock nothing */
	sql_vset *vals;
	pthread_rwlock_t rw;
	kv_slice *block; /* ascending, bytes in blockbuf */
	size_t nblock, block_cap;
	uint8_t *blockbuf;
	size_t blockbuf_cap;
};

static bool block_has(const sql_keyset *ks, const uint8_t *key, size_t klen)
{
	size_t lo = 0, hi = ks->nblock;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = sql_wseg_key_cmp(ks->block[mid].data, ks->block[mid].len, key, klen);
		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The transaction other than t whose key set holds the row key k (table
 * oid ++ key, kl bytes), or NULL. With locks_mu held. */
static sql_txn *keyset_owner(sql_engine *e, const sql_txn *t, const uint8_t *k, size_t kl)
{
	if (kl <= 4)
		return NULL; /* a relation's lock */
	cat_oid table = util_get_be32(k);
	for (int i = 0; i < e->nkeysets; i++) {
		sql_keyset *ks = e->keysets[i];
		if (ks->t == t || ks->table != table)
			continue;
		if (block_has(ks, k + 4, kl - 4))
			return ks->t;
		pthread_rwlock_rdlock(&ks->rw);
		bool in;
		if (ks->vals) {
			in = sql_vset_find(ks->vals, k + 4, kl - 4) != NULL;
		} else {
			/* (dead is read only once a ROLLBACK TO marked rows, under
			 * locks_mu: the owner wrote it before taking the mutex) */
			const sql_wrow *w = sql_wseg_find(ks->segs, k + 4, kl - 4);
			in = w && !(ks->undone && w->dead);
		}
		pthread_rwlock_unlock(&ks->rw);
		if (in)
			return ks->t;
	}
	return NULL;
}

static sql_keyset *keyset_new(sql_txn *t, cat_oid table, sql_wseg_set *segs, sql_vset *vals)
{
	sql_engine *e = t->s->e;
	sql_keyset *ks = util_xcalloc(1, sizeof *ks);
	ks->e = e;
	ks->t = t;
	ks->table = table;
	ks->segs = segs;
	ks->vals = vals;
	pthread_rwlock_init(&ks->rw, NULL);
	pthread_mutex_lock(&e->locks_mu);
	if (e->nkeysets == e->keysets_cap) {
		e->keysets_cap = e->keysets_cap ? 2 * e->keysets_cap : 8;
		e->keysets = util_xrealloc(e->keysets, sizeof *e->keysets * (size_t)e->keysets_cap);
	}
	e->keysets[e->nkeysets++] = ks;
	assign_xid(t);
	pthread_mutex_unlock(&e->locks_mu);
	return ks;
}

sql_keyset *sql_keyset_new(sql_txn *t, cat_oid table, sql_wseg_set *segs)
{
	return keyset_new(t, table, segs, NULL);
}

sql_keyset *sql_keyset_new_values(sql_txn *t, cat_oid index, struct sql_vset *vals)
{
	return keyset_new(t, index, NULL, vals);
}

void sql_keyset_free(sql_keyset *ks)
{
	if (!ks)
		return;
	sql_engine *e = ks->e;
	pthread_mutex_lock(&e->locks_mu);
	for (int i = 0; i < e->nkeysets; i++)
		if (e->keysets[i] == ks) {
			e->keysets[i] = e->keysets[--e->nkeysets];
			break;
		}
	if (nwaiters)
		pthread_cond_broadcast(&e->locks_cv);
	pthread_mutex_unlock(&e->locks_mu);
	pthread_rwlock_destroy(&ks->rw);
	free(ks->block);
	free(ks->blockbuf);
	free(ks);
}

void sql_keyset_write_lock(sql_keyset *ks) { pthread_rwlock_wrlock(&ks->rw); }
void sql_keyset_write_unlock(sql_keyset *ks) { pthread_rwlock_unlock(&ks->rw); }

bool sql_keyset_lock_block(sql_keyset *ks, const kv_slice *keys, size_t n)
{
	sql_engine *e = ks->e;
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += keys[i].len;
	/* Copied outside the mutex (the caller's keys live in its row arena). */
	if (n > ks->block_cap) {
		ks->block_cap = n;
		ks->block = util_xrealloc(ks->block, sizeof *ks->block * n);
	}
	if (bytes > ks->blockbuf_cap) {
		ks->blockbuf_cap = 2 * bytes;
		ks->blockbuf = util_xrealloc(ks->blockbuf, ks->blockbuf_cap);
	}
	uint8_t stackbuf[256];
	pthread_mutex_lock(&e->locks_mu);
	ks->nblock = 0; /* the previous block's keys are in segs (or its COPY failed) */
	for (size_t i = 0; i < n; i++) {
		size_t kl = keys[i].len + 4;
		uint8_t *k = kl <= sizeof stackbuf ? stackbuf : util_xmalloc(kl);
		util_put_be32(k, ks->table);
		memcpy(k + 4, keys[i].data, keys[i].len);
		const sql_rowlock *l = util_map_get(&e->locks, k, kl);
		bool taken = (l && blocked(l, ks->t, M_UPDATE)) || (e->nkeysets > 1 && keyset_owner(e, ks->t, k, kl));
		if (k != stackbuf)
			free(k);
		if (taken) {
			pthread_mutex_unlock(&e->locks_mu);
			return false;
		}
	}
	uint8_t *p = ks->blockbuf;
	for (size_t i = 0; i < n; i++) {
		memcpy(p, keys[i].data, keys[i].len);
		ks->block[i] = (kv_slice){p, keys[i].len};
		p += keys[i].len;
	}
	ks->nblock = n;
	pthread_mutex_unlock(&e->locks_mu);
	return true;
}

static void add_waiter(sql_txn *t, const uint8_t *key, size_t klen, int mode)
{
	if (nwaiters == waiters_cap) {
		waiters_cap = waiters_cap ? waiters_cap * 2 : 64;
		waiters = util_xrealloc(waiters, sizeof *waiters * (size_t)waiters_cap);
	}
	waiters[nwaiters++] = (waiter){t, key, klen, mode};
}

static void remove_waiter(sql_txn *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i].t == t) {
			waiters[i] = waiters[--nwaiters];
			return;
		}
}

/* True if another holder of l blocks t from taking mode. */
static bool blocked(const sql_rowlock *l, const sql_txn *t, int mode)
{
	for (int i = 0; i < l->nholders; i++)
		if (l->holders[i].t != t && conflicts[mode][l->holders[i].mode])
			return true;
	return false;
}

static bool txn_reaches(sql_engine *e, const sql_txn *t, const sql_txn *target, int depth);

/* Does a chain of waits lead from the holders blocking (t, mode) on l back
 * to t? Depth-first over the waits-for graph (row locks and key sets),
 * bounded. */
static bool reaches(sql_engine *e, const sql_rowlock *l, const sql_txn *t, int mode, const sql_txn *target,
		    int depth)
{
	if (depth > 64)
		return false;
	for (int i = 0; i < l->nholders; i++) {
		const holder *h = &l->holders[i];
		if (h->t == t || !conflicts[mode][h->mode])
			continue;
		if (h->t == target)
			return true;
		if (txn_reaches(e, h->t, target, depth + 1))
			return true;
	}
	return false;
}

/* Does t wait (directly or along a chain) for target? */
static bool txn_reaches(sql_engine *e, const sql_txn *t, const sql_txn *target, int depth)
{
	if (t == target)
		return true;
	const waiter *w = waiting(t);
	if (!w || depth > 64)
		return false;
	const sql_rowlock *l2 = util_map_get(&e->locks, w->key, w->klen);
	if (l2 && reaches(e, l2, t, w->mode, target, depth))
		return true;
	const sql_txn *o = e->nkeysets ? keyset_owner(e, t, w->key, w->klen) : NULL;
	return o && txn_reaches(e, o, target, depth + 1);
}

static const char *table_name(sql_txn *t, cat_oid table)
{
	const cat_obj *o = t->s->cat ? cat_get(t->s->cat, table) : NULL;
	return o ? o->rel.name : "?";
}

/* A lock's mode before a transaction strengthened it under a savepoint. */
typedef struct sql_lock_up {
	sql_rowlock *l;
	int mode;
} sql_lock_up;

/* Records that t holds l in mode (new holder or stronger mode). */
static void grant(sql_txn *t, sql_rowlock *l, int mode)
{
	for (int i = 0; i < l->nholders; i++)
		if (l->holders[i].t == t) {
			if (mode <= l->holders[i].mode)
				return;
			if (t->savepoints) { /* ROLLBACK TO gives the weaker mode back */
				if (t->nlock_ups == t->lock_ups_cap) {
					t->lock_ups_cap = t->lock_ups_cap ? 2 * t->lock_ups_cap : 8;
					t->lock_ups = util_xrealloc(t->lock_ups, sizeof *t->lock_ups * (size_t)t->lock_ups_cap);
				}
				t->lock_ups[t->nlock_ups++] = (sql_lock_up){l, l->holders[i].mode};
			}
			l->holders[i].mode = mode;
			if (mode == M_UPDATE)
				assign_xid(t);
			return;
		}
	if (l->nholders == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 2;
		l->holders = util_xrealloc(l->holders, sizeof *l->holders * (size_t)l->cap);
	}
	l->holders[l->nholders++] = (holder){t, mode};
	if (l->klen > 4 || mode == M_UPDATE) /* a row, or a relation exclusively (DDL) */
		assign_xid(t);
	if (t->nlocks == t->locks_cap) {
		if (!t->locks_cap) { /* most transactions hold a lock or two */
			t->locks = t->locks_inline;
			t->locks_cap = (int)(sizeof t->locks_inline / sizeof t->locks_inline[0]);
		} else if (t->locks == t->locks_inline) {
			t->locks = util_xmalloc(sizeof *t->locks * (size_t)t->locks_cap * 4);
			memcpy(t->locks, t->locks_inline, sizeof t->locks_inline);
			t->locks_cap *= 4;
		} else {
			t->locks_cap *= 2;
			t->locks = util_xrealloc(t->locks, sizeof *t->locks * (size_t)t->locks_cap);
		}
	}
	t->locks[t->nlocks++] = l;
}

static bool holds(const sql_rowlock *l, const sql_txn *t, int mode)
{
	for (int i = 0; i < l->nholders; i++)
		if (l->holders[i].t == t)
			return l->holders[i].mode >= mode;
	return false;
}

void sql_txn_lock_row(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, int strength, int wait_policy,
		      bool *skipped)
{
	sql_engine *e = t->s->e;
	int mode = mode_of(strength);
	uint8_t stackbuf[256];
	uint8_t *k = klen + 4 <= sizeof stackbuf ? stackbuf : ty_alloc(klen + 4);
	util_put_be32(k, table);
	memcpy(k + 4, key, klen);
	size_t kl = klen + 4;
	if (skipped)
		*skipped = false;
	int64_t deadline = t->s->lock_timeout_ms > 0 ? util_mono_us() + t->s->lock_timeout_ms * 1000 : 0;

	pthread_mutex_lock(&e->locks_mu);
	for (;;) {
		sql_rowlock *l = util_map_get(&e->locks, k, kl);
		/* A key another transaction bulk-inserted: wait for it to end. */
		sql_txn *owner = e->nkeysets ? keyset_owner(e, t, k, kl) : NULL;
		if (!l && !owner) {
			l = util_xcalloc(1, sizeof *l);
			l->key = util_xmalloc(kl);
			memcpy(l->key, k, kl);
			l->klen = kl;
			util_map_put(&e->locks, k, kl, l);
			grant(t, l, mode);
			break;
		}
		if (!owner && holds(l, t, mode))
			break;
		if (!owner && !blocked(l, t, mode)) {
			grant(t, l, mode);
			break;
		}
		if (wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitSkip) {
			if (skipped)
				*skipped = true;
			break;
		}
		if (wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitError) {
			pthread_mutex_unlock(&e->locks_mu);
			/* The empty key is the relation's own lock (rel_lock.c). */
			ty_error(UTIL_E_LOCK_NOT_AVAILABLE, klen ? "could not obtain lock on row in relation \"%s\""
								 : "could not obtain lock on relation \"%s\"",
				 table_name(t, table));
		}
		if ((l && reaches(e, l, t, mode, t, 0)) || (owner && txn_reaches(e, owner, t, 0))) {
			pthread_mutex_unlock(&e->locks_mu);
			util_err *er = ty_errstart(UTIL_E_T_R_DEADLOCK_DETECTED, "deadlock detected");
			util_err_detail(er, "Process %d waits for ShareLock on transaction; blocked by another process.",
					t->s->pid);
			util_err_hint(er, "See server log for query details.");
			ty_errthrow();
		}
		add_waiter(t, k, kl, mode);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000; /* wake up to check cancel and timeouts */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		/* (PostgreSQL's waiter waits for the holder's transaction id.) */
		sql_ops_set_wait(t->s, "Lock", klen ? "transactionid" : "relation");
		util_wait_begin();
		pthread_cond_timedwait(&e->locks_cv, &e->locks_mu, &ts);
		util_wait_end();
		/* l may have been freed meanwhile: look it up again. */
		remove_waiter(t);
		bool timed_out = deadline && util_mono_us() >= deadline;
		bool cancelled = atomic_load(&t->s->cancel) ||
				 (t->s->deadline_us && util_mono_us() >= t->s->deadline_us);
		if (timed_out) {
			pthread_mutex_unlock(&e->locks_mu);
			ty_error(UTIL_E_LOCK_NOT_AVAILABLE, "canceling statement due to lock timeout");
		}
		if (cancelled) {
			pthread_mutex_unlock(&e->locks_mu);
			sql_check_interrupts(t->s);
		}
	}
	pthread_mutex_unlock(&e->locks_mu);
	sql_ops_set_wait(t->s, NULL, NULL);
}

/* Removes t from l's holders (freeing l when none is left); with locks_mu held. */
static void unhold(sql_engine *e, sql_rowlock *l, const sql_txn *t)
{
	for (int h = 0; h < l->nholders; h++)
		if (l->holders[h].t == t) {
			l->holders[h] = l->holders[--l->nholders];
			break;
		}
	/* A relation's lock (the key is the oid alone) is taken by every
	 * statement on the table: keep its entry for the next one instead of
	 * three frees now and three allocations then, unless the map grows
	 * big (dropped tables' entries). */
	if (l->nholders == 0 && l->klen == 4 && util_map_count(&e->locks) <= IDLE_REL_LOCKS_MAX)
		return;
	if (l->nholders == 0) {
		util_map_del(&e->locks, l->key, l->klen);
		free(l->holders);
		free(l->key);
		free(l);
	}
}

void sql_txn_unlock_all(sql_txn *t)
{
	free(t->lock_ups);
	t->lock_ups = NULL;
	t->nlock_ups = t->lock_ups_cap = 0;
	if (t->nlocks) {
		sql_engine *e = t->s->e;
		pthread_mutex_lock(&e->locks_mu);
		for (int i = 0; i < t->nlocks; i++)
			unhold(e, t->locks[i], t);
		if (nwaiters) /* nobody waits (the usual case): no broadcast */
			pthread_cond_broadcast(&e->locks_cv);
		pthread_mutex_unlock(&e->locks_mu);
	}
	/* (Also with none left: ROLLBACK TO may have released them all.) */
	if (t->locks != t->locks_inline)
		free(t->locks);
	t->locks = NULL;
	t->nlocks = t->locks_cap = 0;
}

sql_lock_mark sql_txn_lock_mark(const sql_txn *t) { return (sql_lock_mark){t->nlocks, t->nlock_ups, t->claim_gen}; }

/* ROLLBACK TO: t's key sets give back what was locked since gen (the
 * unique values claimed by later blocks; the rows of segments the
 * rollback left dead; a block being checked: its COPY failed after the
 * savepoint). With locks_mu. */
static void keysets_release_after(sql_engine *e, sql_txn *t, uint32_t gen)
{
	for (int i = 0; i < e->nkeysets; i++) {
		sql_keyset *ks = e->keysets[i];
		if (ks->t != t)
			continue;
		ks->nblock = 0;
		if (ks->segs)
			ks->undone = true;
		if (ks->vals && ks->vals->n) {
			pthread_rwlock_wrlock(&ks->rw);
			sql_vset_drop_after(ks->vals, gen);
			pthread_rwlock_unlock(&ks->rw);
		}
	}
}

void sql_txn_unlock_since(sql_txn *t, sql_lock_mark m)
{
	sql_engine *e = t->s->e;
	if (t->claim_gen != m.claim_gen || t->nseg_rows) {
		pthread_mutex_lock(&e->locks_mu);
		keysets_release_after(e, t, m.claim_gen);
		if (nwaiters)
			pthread_cond_broadcast(&e->locks_cv);
		pthread_mutex_unlock(&e->locks_mu);
		t->claim_gen = m.claim_gen;
	}
	if (t->nlocks == m.nlocks && t->nlock_ups == m.nups)
		return;
	pthread_mutex_lock(&e->locks_mu);
	/* Newest first: a lock strengthened twice ends in its oldest mode. */
	for (int i = t->nlock_ups; i > m.nups; i--) {
		const sql_lock_up *u = &t->lock_ups[i - 1];
		for (int h = 0; h < u->l->nholders; h++)
			if (u->l->holders[h].t == t)
				u->l->holders[h].mode = u->mode;
	}
	for (int i = m.nlocks; i < t->nlocks; i++)
		unhold(e, t->locks[i], t);
	/* Under the mutex: pg_locks reads the lists of the holders. */
	t->nlock_ups = m.nups;
	t->nlocks = m.nlocks;
	if (nwaiters)
		pthread_cond_broadcast(&e->locks_cv);
	pthread_mutex_unlock(&e->locks_mu);
}

void sql_txn_locks_free(sql_engine *e)
{
	size_t pos = 0;
	void *v;
	while (util_map_next(&e->locks, &pos, NULL, NULL, &v)) {
		sql_rowlock *l = v;
		free(l->holders);
		free(l->key);
		free(l);
	}
	util_map_free(&e->locks);
	free(e->keysets); /* (each freed by its transaction) */
	e->keysets = NULL;
}

/* ---------------------------------------------------------------- pg_locks */

/* Does t write table (a row lock in it, or a key set)? Then its relation
 * lock is PostgreSQL's ROW EXCLUSIVE, else ACCESS SHARE. With locks_mu,
 * t a holder or waiter (its lock list is stable). */
static bool writes_table(sql_engine *e, const sql_txn *t, cat_oid table)
{
	for (int i = 0; i < t->nlocks; i++)
		if (t->locks[i]->klen > 4 && util_get_be32(t->locks[i]->key) == table)
			return true;
	for (int i = 0; i < e->nkeysets; i++)
		if (e->keysets[i]->t == t && e->keysets[i]->table == table)
			return true;
	return false;
}

static const char *rel_mode(sql_engine *e, const sql_txn *t, cat_oid table, int mode)
{
	if (mode == M_UPDATE)
		return "AccessExclusiveLock";
	return writes_table(e, t, table) ? "RowExclusiveLock" : "AccessShareLock";
}

/* The transaction t waits for on the row key k (kl bytes), or NULL. */
static const sql_txn *blocker(sql_engine *e, const sql_txn *t, const uint8_t *k, size_t kl, int mode)
{
	const sql_rowlock *l = util_map_get(&e->locks, k, kl);
	for (int i = 0; l && i < l->nholders; i++)
		if (l->holders[i].t != t && conflicts[mode][l->holders[i].mode])
			return l->holders[i].t;
	return e->nkeysets ? keyset_owner(e, t, k, kl) : NULL;
}

/* Adds t to the transactions with an id seen so far (once each). */
static void see_txn(const sql_txn ***seen, size_t *n, size_t *cap, const sql_txn *t)
{
	if (!t->xid)
		return;
	for (size_t i = 0; i < *n; i++)
		if ((*seen)[i] == t)
			return;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*seen = util_xrealloc(*seen, sizeof **seen * *cap);
	}
	(*seen)[(*n)++] = t;
}

void sql_locks_report(sql_engine *e, void (*fn)(void *arg, const sql_lock_row *r), void *arg)
{
	pthread_mutex_lock(&e->locks_mu);
	/* Every transaction with an id holds a lock or a key set: each listed
	 * once, from those. */
	const sql_txn **seen = NULL;
	size_t nseen = 0, seen_cap = 0;
	size_t pos = 0;
	void *v;
	while (util_map_next(&e->locks, &pos, NULL, NULL, &v)) {
		const sql_rowlock *l = v;
		for (int i = 0; i < l->nholders; i++) {
			const holder *h = &l->holders[i];
			see_txn(&seen, &nseen, &seen_cap, h->t);
			if (l->klen != 4)
				continue; /* a row's lock: not listed, as PostgreSQL's tuple locks */
			cat_oid table = util_get_be32(l->key);
			sql_lock_row r = {"relation", table, 0, h->t->s->pid, rel_mode(e, h->t, table, h->mode),
					  true};
			fn(arg, &r);
		}
	}
	for (int i = 0; i < e->nkeysets; i++)
		see_txn(&seen, &nseen, &seen_cap, e->keysets[i]->t);
	for (size_t i = 0; i < nseen; i++) {
		sql_lock_row r = {"transactionid", 0, seen[i]->xid, seen[i]->s->pid, "ExclusiveLock", true};
		fn(arg, &r);
	}
	free(seen);
	for (int i = 0; i < nwaiters; i++) {
		const waiter *w = &waiters[i];
		cat_oid table = util_get_be32(w->key);
		if (w->klen == 4) {
			sql_lock_row r = {"relation", table, 0, w->t->s->pid, rel_mode(e, w->t, table, w->mode),
					  false};
			fn(arg, &r);
			continue;
		}
		const sql_txn *b = blocker(e, w->t, w->key, w->klen, w->mode);
		if (b && b->xid) {
			sql_lock_row r = {"transactionid", 0, b->xid, w->t->s->pid, "ShareLock", false};
			fn(arg, &r);
		}
	}
	pthread_mutex_unlock(&e->locks_mu);
}
