/*
 * autoanalyze.c — statistics kept fresh without anyone typing ANALYZE
 * (PostgreSQL's autovacuum does the same job): a commit that wrote many
 * rows of a table — at least AUTO_MIN_ROWS, and a fifth of what the last
 * ANALYZE counted — queues the table; one background thread opens an
 * internal session as a superuser and runs ANALYZE on it. The queue is
 * small and deduplicated; a table dropped meanwhile is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

#define AUTO_MIN_ROWS 1000
#define AUTO_QUEUE 64

typedef struct job {
	char database[CAT_NAME_MAX];
	char schema[CAT_NAME_MAX];
	char table[CAT_NAME_MAX];
	cat_oid oid;
} job;

struct sql_autoanalyze {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool running, stop;
	job q[AUTO_QUEUE];
	int n;
	sql_engine *e;
};

static void quiet_notice(void *arg, const util_err *n)
{
	(void)arg;
	(void)n;
}

static void done_cb(void *arg, const sql_complete *c)
{
	(void)arg;
	(void)c;
}

static const char *superuser_name(sql_engine *e, char *buf, size_t cap)
{
	cat_snap *cs = cat_current(e->cat);
	const cat_obj *r = cat_get(cs, CAT_OID_POSTGRES_ROLE);
	snprintf(buf, cap, "%s", r ? r->role.name : "postgres");
	cat_snap_release(cs);
	return buf;
}

static void run_job(sql_engine *e, const job *j)
{
	char user[CAT_NAME_MAX];
	sql_startup st = {superuser_name(e, user, sizeof user), j->database, 0, NULL, NULL};
	sql_client cl;
	memset(&cl, 0, sizeof cl);
	cl.notice = quiet_notice;
	sql_session *s;
	util_err err;
	util_err_clear(&err);
	if (sql_session_open(e, &st, &cl, &s, &err) != 0)
		return;
	/* Quoted names: whatever the table is called. */
	util_buf q = UTIL_BUF_INIT;
	util_buf_puts(&q, "ANALYZE \"");
	for (const char *p = j->schema; *p; p++) {
		if (*p == '"')
			util_buf_putc(&q, '"');
		util_buf_putc(&q, *p);
	}
	util_buf_puts(&q, "\".\"");
	for (const char *p = j->table; *p; p++) {
		if (*p == '"')
			util_buf_putc(&q, '"');
		util_buf_putc(&q, *p);
	}
	util_buf_putc(&q, '"');
	util_err_clear(&err);
	sql_dest dest;
	memset(&dest, 0, sizeof dest);
	/* A table dropped meanwhile, or changed by another server first (a
	 * shared store: 40001): nothing to do, the change's own statistics
	 * follow. */
	if (sql_simple_query(s, q.data, &dest, done_cb, NULL, &err) != 0 && err.code != UTIL_E_UNDEFINED_TABLE &&
	    err.code != UTIL_E_T_R_SERIALIZATION_FAILURE)
		util_warn("automatic ANALYZE of %s.%s failed: %s", j->schema, j->table, err.message);
	else
		util_debug("automatic ANALYZE of %s.%s done", j->schema, j->table);
	util_buf_free(&q);
	sql_session_close(s);
}

static void *worker(void *arg)
{
	sql_autoanalyze *a = arg;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->stop && a->n == 0)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		job j = a->q[0];
		memmove(a->q, a->q + 1, sizeof(job) * (size_t)(a->n - 1));
		a->n--;
		pthread_mutex_unlock(&a->mu);
		run_job(a->e, &j);
		pthread_mutex_lock(&a->mu);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

sql_autoanalyze *sql_autoanalyze_start(sql_engine *e)
{
	sql_autoanalyze *a = util_xcalloc(1, sizeof *a);
	a->e = e;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thread, NULL, worker, a) == 0)
		a->running = true;
	return a;
}

void sql_autoanalyze_stop(sql_autoanalyze *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = true;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	if (a->running)
		pthread_join(a->thread, NULL);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->cv);
	free(a);
}

void sql_autoanalyze_note(sql_session *s, const cat_snap *cs, cat_oid table, size_t rows_written)
{
	sql_autoanalyze *a = s->e->autoanalyze;
	if (!a || rows_written < AUTO_MIN_ROWS)
		return;
	const cat_obj *o = cat_get(cs, table);
	if (!o || o->kind != CAT_REL || o->rel.relkind != CAT_RELKIND_TABLE)
		return;
	if (o->rel.stats_rows && (double)rows_written * 5 < (double)o->rel.stats_rows)
		return;
	const cat_obj *sch = cat_get(cs, o->rel.schema);
	if (!sch)
		return;
	pthread_mutex_lock(&a->mu);
	bool queued = false;
	for (int i = 0; i < a->n; i++)
		queued |= a->q[i].oid == table;
	if (!queued && a->n < AUTO_QUEUE) {
		job *j = &a->q[a->n++];
		j->oid = table;
		snprintf(j->database, sizeof j->database, "%s", s->database);
		snprintf(j->schema, sizeof j->schema, "%s", sch->schema.name);
		snprintf(j->table, sizeof j->table, "%s", o->rel.name);
		pthread_cond_signal(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
}
