/*
 * copy_par.c — the parse pipeline of COPY FROM (copy_par.h): a ring of
 * chunk slots, filled and consumed in input order by the connection
 * thread, parsed by worker threads (or by the connection thread when it
 * gets to a chunk no worker has taken).
 *
 * Sequence numbers: chunk q lives in slot q % nslots; filled counts the
 * submitted chunks, claimed the ones a parser took, consumed the ones
 * given back. A slot is reused only after its chunk was consumed, so at
 * most nslots chunks (their text and their arena) exist at a time; with
 * long lines fewer (inflight, copy_par.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_par.h"

/* Chunks in flight per worker: enough for a worker to find the next one
 * ready while the consumer works through the previous ones, and for the
 * consumer to parse ahead while a worker holds the oldest one. */
#define SLOTS_PER_WORKER 8

struct sql_copy_par {
	pthread_mutex_t mu;
	pthread_cond_t cv_work; /* workers: a chunk was submitted, or stop */
	pthread_cond_t cv_done; /* consumer: a chunk was parsed */
	sql_copy_chunk *slots;
	int nslots;
	uint64_t filled, claimed, consumed;
	size_t inflight;     /* text bytes of the chunks submitted, not yet released (consumer only) */
	size_t max_inflight; /* past it at most two chunks are (long lines) */
	bool stop;
	int nworkers, started;
	pthread_t *th;
	sql_copy_parse_fn parse;
	void *arg;
	const ty_settings *tys;
};

static sql_copy_chunk *slot_of(sql_copy_par *p, uint64_t q)
{
	return &p->slots[q % (uint64_t)p->nslots];
}

/* Parses c on this thread: its rows into its arena, its error kept. */
static void run_parse(sql_copy_par *p, sql_copy_chunk *c)
{
	util_arena *saved = ty_set_arena(c->arena);
	TY_TRY(t)
	{
		p->parse(p->arg, c);
	}
	TY_CATCH(t)
	{
		TY_END(t);
		c->failed = true;
		memcpy(&c->err, ty_err(), sizeof c->err);
	}
	TY_END(t);
	ty_set_arena(saved);
}

static void *worker_main(void *arg)
{
	sql_copy_par *p = arg;
	ty_set_settings(p->tys);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->stop && p->claimed == p->filled)
			pthread_cond_wait(&p->cv_work, &p->mu);
		if (p->stop)
			break;
		sql_copy_chunk *c = slot_of(p, p->claimed++);
		pthread_mutex_unlock(&p->mu);
		run_parse(p, c);
		pthread_mutex_lock(&p->mu);
		c->done = true;
		pthread_cond_broadcast(&p->cv_done);
	}
	pthread_mutex_unlock(&p->mu);
	ty_set_arena(NULL);
	return NULL;
}

sql_copy_par *sql_copy_par_new(int nworkers, sql_copy_parse_fn parse, void *arg, const ty_settings *tys)
{
	sql_copy_par *p = util_xcalloc(1, sizeof *p);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv_work, NULL);
	pthread_cond_init(&p->cv_done, NULL);
	p->nworkers = nworkers < 0 ? 0 : nworkers;
	p->nslots = SLOTS_PER_WORKER * (p->nworkers ? p->nworkers : 1);
	p->slots = util_xcalloc((size_t)p->nslots, sizeof *p->slots);
	p->max_inflight = 2 * (size_t)p->nslots * SQL_COPY_CHUNK_BYTES;
	for (int i = 0; i < p->nslots; i++)
		p->slots[i].arena = util_arena_new(64 * 1024, 0);
	p->th = util_xcalloc((size_t)(p->nworkers ? p->nworkers : 1), sizeof *p->th);
	p->parse = parse;
	p->arg = arg;
	p->tys = tys;
	return p;
}

void sql_copy_par_free(sql_copy_par *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv_work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->th[i], NULL);
	for (int i = 0; i < p->nslots; i++) {
		util_buf_free(&p->slots[i].text);
		util_buf_free(&p->slots[i].cells);
		free(p->slots[i].ends);
		util_arena_destroy(p->slots[i].arena);
	}
	free(p->slots);
	free(p->th);
	pthread_cond_destroy(&p->cv_work);
	pthread_cond_destroy(&p->cv_done);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

sql_copy_chunk *sql_copy_par_slot(sql_copy_par *p)
{
	/* Only this thread moves filled and consumed. */
	uint64_t n = p->filled - p->consumed;
	if (n >= (uint64_t)p->nslots || (n >= 2 && p->inflight >= p->max_inflight))
		return NULL;
	sql_copy_chunk *c = slot_of(p, p->filled);
	util_buf_reset(&c->text);
	c->nlines = 0;
	c->first_line = 0;
	c->rows = NULL;
	util_buf_reset(&c->cells);
	c->cell_ends = NULL;
	c->nparsed = 0;
	c->failed = c->fail_early = false;
	c->done = false;
	util_arena_reset(c->arena);
	return c;
}

void sql_copy_chunk_add(sql_copy_chunk *c, int64_t line)
{
	if (c->nlines == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		c->ends = util_xrealloc(c->ends, sizeof(uint32_t) * (size_t)c->cap);
	}
	if (c->nlines == 0)
		c->first_line = line;
	c->ends[c->nlines++] = (uint32_t)c->text.len;
}

void sql_copy_par_submit(sql_copy_par *p)
{
	p->inflight += slot_of(p, p->filled)->text.len;
	pthread_mutex_lock(&p->mu);
	p->filled++;
	/* The second chunk: the input is more than one chunk, threads pay. */
	if (p->filled >= 2) {
		while (p->started < p->nworkers &&
		       pthread_create(&p->th[p->started], NULL, worker_main, p) == 0)
			p->started++;
		p->nworkers = p->started; /* could not start one: the consumer parses */
	}
	if (p->started)
		pthread_cond_signal(&p->cv_work);
	pthread_mutex_unlock(&p->mu);
}

sql_copy_chunk *sql_copy_par_next(sql_copy_par *p)
{
	if (p->consumed == p->filled)
		return NULL;
	sql_copy_chunk *c = slot_of(p, p->consumed);
	pthread_mutex_lock(&p->mu);
	while (!c->done) {
		if (p->claimed < p->filled) {
			/* Parse the oldest unclaimed chunk here (this one, or a later
			 * one while a worker has this one) rather than wait: on a
			 * busy machine a worker may be off its core for a while. */
			sql_copy_chunk *h = slot_of(p, p->claimed++);
			pthread_mutex_unlock(&p->mu);
			run_parse(p, h);
			pthread_mutex_lock(&p->mu);
			h->done = true;
			continue;
		}
		pthread_mutex_unlock(&p->mu);
		ty_check_interrupts(); /* a cancel ends the COPY; sql_copy_par_free joins */
		pthread_mutex_lock(&p->mu);
		if (c->done)
			break;
		struct timespec ts = util_deadline_us(100 * 1000);
		pthread_cond_timedwait(&p->cv_done, &p->mu, &ts);
	}
	pthread_mutex_unlock(&p->mu);
	return c;
}

void sql_copy_par_release(sql_copy_par *p)
{
	sql_copy_chunk *c = slot_of(p, p->consumed);
	p->inflight -= c->text.len;
	/* Its rows now, not when the slot comes round again (nslots chunks
	 * later: with long lines, that many lines' values), and a long
	 * line's buffer is not kept for the slot's next chunks. */
	util_arena_reset(c->arena);
	if (c->text.cap > 4 * (size_t)SQL_COPY_CHUNK_BYTES)
		util_buf_free(&c->text);
	if (c->cells.cap > 4 * (size_t)SQL_COPY_CHUNK_BYTES)
		util_buf_free(&c->cells);
	p->consumed++;
}

int sql_copy_par_started(const sql_copy_par *p)
{
	return p->started;
}
