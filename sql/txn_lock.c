/*
 * txn_lock.c — the row lock manager: writers (UPDATE, DELETE, INSERT of a
 * key, SELECT ... FOR UPDATE/SHARE) lock (table, row key) until their
 * transaction ends; a blocked writer waits, honours NOWAIT / SKIP LOCKED /
 * lock_timeout / cancel, and deadlocks are detected by following the chain
 * of owners a waiter waits for. All row locks are exclusive (a FOR SHARE
 * lock conflicts with another FOR SHARE lock, stricter than PostgreSQL).
 * Kept behind this small interface so a distributed backend can replace it
 * with compares in its own transactions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sql_int.h"

typedef struct sql_rowlock {
	uint8_t *key; /* table oid (4 bytes) ++ row key */
	size_t klen;
	sql_txn *owner;
} sql_rowlock;

/* A waiting transaction and the key it waits for (the key bytes belong to
 * the waiter and stay valid while it waits). */
typedef struct waiter {
	sql_txn *t;
	const uint8_t *key;
	size_t klen;
} waiter;

/* The waits-for edges, guarded by the engine's locks_mu. */
static waiter *waiters;
static int nwaiters, waiters_cap;

static sql_rowlock *waits_for(sql_engine *e, sql_txn *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i].t == t)
			return util_map_get(&e->locks, waiters[i].key, waiters[i].klen);
	return NULL;
}

static void add_waiter(sql_txn *t, const uint8_t *key, size_t klen)
{
	if (nwaiters == waiters_cap) {
		waiters_cap = waiters_cap ? waiters_cap * 2 : 64;
		waiters = util_xrealloc(waiters, sizeof *waiters * (size_t)waiters_cap);
	}
	waiters[nwaiters++] = (waiter){t, key, klen};
}

static void remove_waiter(sql_txn *t)
{
	for (int i = 0; i < nwaiters; i++)
		if (waiters[i].t == t) {
			waiters[i] = waiters[--nwaiters];
			return;
		}
}

static bool would_deadlock(sql_engine *e, sql_txn *t, sql_rowlock *l)
{
	for (int hops = 0; l && hops < 10000; hops++) {
		sql_txn *owner = l->owner;
		if (owner == t)
			return true;
		l = waits_for(e, owner);
	}
	return false;
}

static const char *table_name(sql_txn *t, cat_oid table)
{
	const cat_obj *o = t->s->cat ? cat_get(t->s->cat, table) : NULL;
	return o ? o->rel.name : "?";
}

void sql_txn_lock_row(sql_txn *t, cat_oid table, const uint8_t *key, size_t klen, int strength, int wait_policy,
		      bool *skipped)
{
	(void)strength;
	sql_engine *e = t->s->e;
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
		if (!l) {
			l = util_xcalloc(1, sizeof *l);
			l->key = util_xmalloc(kl);
			memcpy(l->key, k, kl);
			l->klen = kl;
			l->owner = t;
			util_map_put(&e->locks, k, kl, l);
			if (t->nlocks == t->locks_cap) {
				t->locks_cap = t->locks_cap ? t->locks_cap * 2 : 16;
				t->locks = util_xrealloc(t->locks, sizeof *t->locks * (size_t)t->locks_cap);
			}
			t->locks[t->nlocks++] = l;
			break;
		}
		if (l->owner == t)
			break;
		if (wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitSkip) {
			if (skipped)
				*skipped = true;
			break;
		}
		if (wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitError) {
			pthread_mutex_unlock(&e->locks_mu);
			ty_error(UTIL_E_LOCK_NOT_AVAILABLE, "could not obtain lock on row in relation \"%s\"",
				 table_name(t, table));
		}
		if (would_deadlock(e, t, l)) {
			pthread_mutex_unlock(&e->locks_mu);
			util_err *er = ty_errstart(UTIL_E_T_R_DEADLOCK_DETECTED, "deadlock detected");
			util_err_detail(er, "Process %d waits for ShareLock on transaction; blocked by another process.",
					t->s->pid);
			util_err_hint(er, "See server log for query details.");
			ty_errthrow();
		}
		add_waiter(t, k, kl);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000 * 1000; /* wake up to check cancel and timeouts */
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&e->locks_cv, &e->locks_mu, &ts);
		/* l may have been freed by its owner meanwhile: look it up again. */
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
}

void sql_txn_unlock_all(sql_txn *t)
{
	if (!t->nlocks)
		return;
	sql_engine *e = t->s->e;
	pthread_mutex_lock(&e->locks_mu);
	for (int i = 0; i < t->nlocks; i++) {
		sql_rowlock *l = t->locks[i];
		util_map_del(&e->locks, l->key, l->klen);
		free(l->key);
		free(l);
	}
	pthread_cond_broadcast(&e->locks_cv);
	pthread_mutex_unlock(&e->locks_mu);
	free(t->locks);
	t->locks = NULL;
	t->nlocks = t->locks_cap = 0;
}

/* pg_locks: every held row lock and every waiting transaction. */
void sql_locks_report(sql_engine *e, void (*fn)(void *arg, cat_oid table, int32_t pid, bool granted), void *arg)
{
	pthread_mutex_lock(&e->locks_mu);
	size_t pos = 0;
	void *v;
	while (util_map_next(&e->locks, &pos, NULL, NULL, &v)) {
		const sql_rowlock *l = v;
		fn(arg, util_get_be32(l->key), l->owner->s->pid, true);
	}
	for (int i = 0; i < nwaiters; i++)
		fn(arg, util_get_be32(waiters[i].key), waiters[i].t->s->pid, false);
	pthread_mutex_unlock(&e->locks_mu);
}
