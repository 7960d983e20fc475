/*
 * clock.c — the store's hybrid logical clock and MVCC read point.
 *
 * Commit timestamps are max(wall clock us, last + 1), assigned under ts_mu
 * and queued in order on a pending list. The read point is the timestamp
 * just below the oldest pending (unfinished) one, or the last assigned when
 * nothing is pending, so it only passes a timestamp once every commit at or
 * below it is complete (applied or abandoned).
 */
#include <stdlib.h>

#include "ekv.h"
#include "kv_int.h"

void clock_init(kv_store *s, kv_ts last)
{
	s->last_ts = last;
	atomic_store(&s->read_point, last);
}

/* REQUIRES: ts_mu held. */
static void advance(kv_store *s)
{
	while (s->phead && s->phead->done) {
		kv_pend *p = s->phead;
		s->phead = p->next;
		if (!s->phead)
			s->ptail = NULL;
		if (p->heap)
			free(p);
	}
	kv_ts rp = s->phead ? s->phead->ts - 1 : s->last_ts;
	if (rp > (kv_ts)atomic_load(&s->read_point)) {
		atomic_store(&s->read_point, rp);
		pthread_cond_broadcast(&s->ts_cv);
	}
}

kv_ts clock_assign(kv_store *s, kv_pend *p)
{
	p->done = false;
	p->reserved = false;
	p->next = NULL;
	pthread_mutex_lock(&s->ts_mu);
	kv_ts now = (kv_ts)util_now_us();
	kv_ts ts = now > s->last_ts ? now : s->last_ts + 1;
	s->last_ts = ts;
	p->ts = ts;
	if (s->ptail)
		s->ptail->next = p;
	else
		s->phead = p;
	s->ptail = p;
	pthread_mutex_unlock(&s->ts_mu);
	return ts;
}

void clock_complete(kv_store *s, kv_pend *p)
{
	pthread_mutex_lock(&s->ts_mu);
	p->done = true;
	advance(s);
	pthread_mutex_unlock(&s->ts_mu);
}

void clock_wait_visible(kv_store *s, kv_ts ts)
{
	if ((kv_ts)atomic_load(&s->read_point) >= ts)
		return;
	pthread_mutex_lock(&s->ts_mu);
	while ((kv_ts)atomic_load(&s->read_point) < ts)
		pthread_cond_wait(&s->ts_cv, &s->ts_mu);
	pthread_mutex_unlock(&s->ts_mu);
}

bool clock_is_reserved(kv_store *s, kv_ts ts)
{
	bool r = false;
	pthread_mutex_lock(&s->ts_mu);
	for (kv_pend *p = s->phead; p; p = p->next) {
		if (p->ts == ts) {
			r = p->reserved && !p->done;
			break;
		}
		if (p->ts > ts)
			break;
	}
	pthread_mutex_unlock(&s->ts_mu);
	return r;
}

kv_status kv_snapshot_acquire(kv_store *s, kv_ts *ts)
{
	if (s->etcd)
		return ekv_snapshot_acquire(s, ts);
	pthread_mutex_lock(&s->ts_mu);
	*ts = (kv_ts)atomic_load(&s->read_point);
	if (s->nsnaps == s->csnaps) {
		s->csnaps = s->csnaps ? 2 * s->csnaps : 16;
		s->snaps = util_xrealloc(s->snaps, s->csnaps * sizeof(kv_ts));
	}
	s->snaps[s->nsnaps++] = *ts;
	pthread_mutex_unlock(&s->ts_mu);
	return KV_OK;
}

void kv_snapshot_release(kv_store *s, kv_ts ts)
{
	if (s->etcd) {
		ekv_snapshot_release(s, ts);
		return;
	}
	pthread_mutex_lock(&s->ts_mu);
	for (size_t i = 0; i < s->nsnaps; i++) {
		if (s->snaps[i] == ts) {
			s->snaps[i] = s->snaps[--s->nsnaps];
			break;
		}
	}
	pthread_mutex_unlock(&s->ts_mu);
}

kv_ts clock_horizon(kv_store *s)
{
	pthread_mutex_lock(&s->ts_mu);
	kv_ts h = (kv_ts)atomic_load(&s->read_point);
	for (size_t i = 0; i < s->nsnaps; i++)
		if (s->snaps[i] < h)
			h = s->snaps[i];
	pthread_mutex_unlock(&s->ts_mu);
	return h;
}

void kv_watch_cell(kv_table *t, const void *row, size_t rlen, const char *family, const void *qual,
		   size_t qlen)
{
	if (t->s->etcd)
		ekv_watch_cell(t, row, rlen, family, qual, qlen);
}

bool kv_watched_ts(kv_store *s, kv_ts read_ts, kv_ts *ts)
{
	return s->etcd && ekv_watched_ts(s->etcd, read_ts, ts);
}

kv_ts kv_read_point(kv_store *s)
{
	if (s->etcd)
		return ekv_read_point(s);
	return (kv_ts)atomic_load(&s->read_point);
}

kv_status kv_ts_reserve(kv_store *s, kv_ts *ts)
{
	if (s->etcd)
		return ekv_ts_reserve(s, ts);
	kv_status st = store_writable(s);
	if (st)
		return st;
	kv_pend *p = util_xmalloc(sizeof(*p));
	p->heap = true;
	*ts = clock_assign(s, p);
	pthread_mutex_lock(&s->ts_mu);
	p->reserved = true;
	pthread_mutex_unlock(&s->ts_mu);
	return KV_OK;
}

void kv_ts_finish(kv_store *s, kv_ts ts)
{
	if (s->etcd)
		return;
	pthread_mutex_lock(&s->ts_mu);
	for (kv_pend *p = s->phead; p; p = p->next) {
		if (p->ts == ts && p->reserved) {
			p->done = true;
			break;
		}
	}
	advance(s);
	pthread_mutex_unlock(&s->ts_mu);
}
