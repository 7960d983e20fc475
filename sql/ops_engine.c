/*
 * ops_engine.c — the engine-wide operations state (ops.h): the lock that
 * keeps a second server (or an offline tool) off a data directory in use,
 * statistics maps, the registry of long operations and their progress
 * lines in the log, and session defaults from the server's settings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "ops.h"

#define LOCK_FILE       "strata.pid"
#define PROGRESS_LOG_US (10 * 1000000) /* a progress line in the log every 10 s */

/* Locks <data_dir>/strata.pid for the life of the engine and writes our
 * pid into it (flock: released by the kernel if the process dies). */
static int lock_data_dir(sql_engine *e, util_err *err)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s", e->data_dir, LOCK_FILE);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return util_err_set(err, UTIL_E_IO_ERROR, "could not open lock file \"%s\": %s", path,
				    strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		char buf[32] = "";
		ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		close(fd);
		return util_err_set(err, UTIL_E_OBJECT_IN_USE,
				    "data directory \"%s\" is in use by another Strata process (pid %s)",
				    e->data_dir, buf[0] ? buf : "?");
	}
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* Only informational: the lock is what matters. */
	}
	e->ops->lock_fd = fd;
	return 0;
}

int sql_ops_lock_data_dir(sql_engine *e, util_err *err)
{
	struct sql_ops *o = util_xcalloc(1, sizeof *o);
	o->lock_fd = -1;
	pthread_mutex_init(&o->mu, NULL);
	o->stats_reset_us = util_now_us();
	e->ops = o;
	return lock_data_dir(e, err);
}

int sql_ops_engine_open(sql_engine *e, util_err *err)
{
	(void)err;
	sql_ops_register_functions();
	sql_sysviews_stat_init();
	sql_policy_sync(e, NULL);
	return 0;
}

void sql_ops_engine_close(sql_engine *e)
{
	struct sql_ops *o = e ? e->ops : NULL;
	if (!o)
		return;
	size_t pos = 0;
	void *v;
	while (util_map_next(&o->stmts, &pos, NULL, NULL, &v)) {
		free(((sql_stmt_stat *)v)->query);
		free(v);
	}
	util_map_free(&o->stmts);
	pos = 0;
	while (util_map_next(&o->tables, &pos, NULL, NULL, &v))
		free(v);
	util_map_free(&o->tables);
	while (o->progress) { /* only if a session was still running */
		sql_progress *p = o->progress;
		o->progress = p->next;
		free(p);
	}
	if (o->lock_fd >= 0)
		close(o->lock_fd); /* releases the flock */
	pthread_mutex_destroy(&o->mu);
	free(o);
	e->ops = NULL;
}

void sql_ops_session_open(sql_session *s)
{
	s->log_min_duration_ms = -1;
	if (s->e->opts.log_min_duration_ms >= 0) {
		char v[32];
		snprintf(v, sizeof v, "%d", s->e->opts.log_min_duration_ms);
		util_err err;
		util_err_clear(&err);
		sql_guc_set_startup(s, "log_min_duration_statement", v, &err);
	}
}

sql_table_stat *sql_ops_table_stat(sql_engine *e, cat_oid rel)
{
	struct sql_ops *o = e->ops;
	pthread_mutex_lock(&o->mu);
	sql_table_stat *t = util_map_get_u64(&o->tables, rel);
	if (!t) {
		t = util_xcalloc(1, sizeof *t);
		util_map_put_u64(&o->tables, rel, t);
	}
	pthread_mutex_unlock(&o->mu);
	return t;
}

bool sql_ops_terminating(sql_session *s)
{
	return atomic_load(&s->terminate);
}

/* ---------------------------------------------------------------- progress */

/* Ends the operations a statement of session pid left open (an error
 * thrown past their end). */
void sql_progress_end_session(sql_engine *e, int32_t pid)
{
	struct sql_ops *o = e->ops;
	for (;;) {
		sql_progress *p = NULL;
		pthread_mutex_lock(&o->mu);
		for (sql_progress *q = o->progress; q && !p; q = q->next)
			if (q->pid == pid)
				p = q;
		pthread_mutex_unlock(&o->mu);
		if (!p)
			return;
		sql_progress_end(p);
	}
}

sql_progress *sql_progress_begin(sql_session *s, const char *op, const char *relation, bool quiet)
{
	struct sql_ops *o = s->e->ops;
	sql_progress *p = util_xcalloc(1, sizeof *p);
	p->ops = o;
	p->pid = s->pid;
	snprintf(p->op, sizeof p->op, "%s", op);
	snprintf(p->relation, sizeof p->relation, "%s", relation ? relation : "");
	p->start_us = p->last_log_us = util_now_us();
	p->quiet = quiet;
	p->logged = !quiet;
	pthread_mutex_lock(&o->mu);
	p->next = o->progress;
	o->progress = p;
	atomic_fetch_add_explicit(&o->nprogress, 1, memory_order_relaxed);
	pthread_mutex_unlock(&o->mu);
	if (!quiet)
		util_info("[%d] %s%s%s started", (int)p->pid, p->op, p->relation[0] ? " of " : "",
			  p->relation);
	return p;
}

void sql_progress_update(sql_progress *p, const char *phase, uint64_t done, uint64_t total, uint64_t bytes)
{
	if (!p)
		return;
	struct sql_ops *o = p->ops;
	pthread_mutex_lock(&o->mu);
	if (phase)
		snprintf(p->phase, sizeof p->phase, "%s", phase);
	p->done = done;
	p->total = total;
	p->bytes = bytes;
	int64_t now = util_now_us();
	bool log = now - p->last_log_us >= PROGRESS_LOG_US;
	if (log) {
		p->last_log_us = now;
		p->logged = true;
	}
	pthread_mutex_unlock(&o->mu);
	if (log)
		util_info("[%d] %s%s%s: %s, %llu of %llu, %llu bytes, %.0f s", (int)p->pid, p->op,
			  p->relation[0] ? " of " : "", p->relation, p->phase, (unsigned long long)done,
			  (unsigned long long)total, (unsigned long long)bytes,
			  (double)(now - p->start_us) / 1e6);
}

void sql_progress_end(sql_progress *p)
{
	if (!p)
		return;
	struct sql_ops *o = p->ops;
	pthread_mutex_lock(&o->mu);
	for (sql_progress **pp = &o->progress; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			atomic_fetch_sub_explicit(&o->nprogress, 1, memory_order_relaxed);
			break;
		}
	pthread_mutex_unlock(&o->mu);
	if (p->logged)
		util_info("[%d] %s%s%s finished: %llu of %llu, %llu bytes in %.1f s", (int)p->pid, p->op,
			  p->relation[0] ? " of " : "", p->relation, (unsigned long long)p->done,
			  (unsigned long long)p->total, (unsigned long long)p->bytes,
			  (double)(util_now_us() - p->start_us) / 1e6);
	free(p);
}
