/*
 * ops_stats.c — what sessions report about the work they do:
 *  - statement statistics (pg_stat_statements): statements are grouped by
 *    their text with constants replaced by $n (a lexical pass, no second
 *    parse), with calls, rows and execution times;
 *  - per-table counters (pg_stat_user_tables) from finished executions;
 *  - the slow-statement log (log_min_duration_statement);
 *  - wait events shown by pg_stat_activity while a session waits for a
 *    row lock.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

void sql_ops_assign_log_min_duration(sql_session *s, const char *val)
{
	s->log_min_duration_ms = atoll(val);
}

void sql_ops_set_wait(sql_session *s, const char *type, const char *event)
{
	atomic_store(&s->wait_event_type, type);
	atomic_store(&s->wait_event, event);
}

void sql_ops_wait_event(sql_session *o, const char *state, const char **type, const char **event)
{
	*type = atomic_load(&o->wait_event_type);
	*event = atomic_load(&o->wait_event);
	if (!*type && state && !strncmp(state, "idle", 4)) { /* waiting for its client, as PostgreSQL says */
		*type = "Client";
		*event = "ClientRead";
	}
}

void sql_ops_table_counters(sql_engine *e, cat_oid rel, sql_table_counters *out)
{
	memset(out, 0, sizeof *out);
	if (!e->ops)
		return;
	sql_table_stat *t = sql_ops_table_stat(e, rel);
	out->seq_scan = (int64_t)atomic_load(&t->seq_scan);
	out->seq_tup_read = (int64_t)atomic_load(&t->seq_tup_read);
	out->idx_scan = (int64_t)atomic_load(&t->idx_scan);
	out->idx_tup_fetch = (int64_t)atomic_load(&t->idx_tup_fetch);
	out->n_tup_ins = (int64_t)atomic_load(&t->n_tup_ins);
	out->n_tup_upd = (int64_t)atomic_load(&t->n_tup_upd);
	out->n_tup_del = (int64_t)atomic_load(&t->n_tup_del);
}

/* ---------------------------------------------------------------- normalization */

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* The highest $n parameter in the text (constants are numbered after it). */
static int max_param(const char *q)
{
	int m = 0;
	for (const char *p = q; *p; p++)
		if (*p == '$' && isdigit((unsigned char)p[1]) &&
		    (p == q || !ident_char((unsigned char)p[-1])))
			m = UTIL_MAX(m, atoi(p + 1));
	return m;
}

/* Length of a dollar-quote tag at p ("$tag$" or "$$"), 0 if none. */
static size_t dollar_tag(const char *p)
{
	if (*p != '$')
		return 0;
	size_t n = 1;
	while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '_'))
		n++;
	return p[n] == '$' && !isdigit((unsigned char)p[1]) ? n + 1 : 0;
}

/* Writes q with literals replaced by $n, comments dropped and whitespace
 * collapsed: statements that differ only in constants normalize alike. */
static void normalize(const char *q, util_buf *out)
{
	int next = max_param(q);
	bool space = false;
	const char *p = q;
	while (*p) {
		unsigned char c = (unsigned char)*p;
		if (isspace(c)) {
			space = out->len > 0;
			p++;
			continue;
		}
		if (c == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (c == '/' && p[1] == '*') {
			int depth = 0;
			do {
				if (*p == '/' && p[1] == '*') {
					depth++;
					p += 2;
				} else if (*p == '*' && p[1] == '/') {
					depth--;
					p += 2;
				} else {
					p++;
				}
			} while (*p && depth > 0);
			space = out->len > 0;
			continue;
		}
		if (space) {
			util_buf_putc(out, ' ');
			space = false;
		}
		bool prefixed = (c == 'E' || c == 'e' || c == 'B' || c == 'b' || c == 'X' || c == 'x' ||
				 c == 'N' || c == 'n') &&
				p[1] == '\'' && (p == q || !ident_char((unsigned char)p[-1]));
		if (c == '\'' || prefixed) {
			bool esc = c == 'E' || c == 'e';
			if (prefixed)
				p++;
			p++;
			while (*p) {
				if (esc && *p == '\\' && p[1]) {
					p += 2;
				} else if (*p == '\'' && p[1] == '\'') {
					p += 2;
				} else if (*p == '\'') {
					p++;
					break;
				} else {
					p++;
				}
			}
			util_buf_printf(out, "$%d", ++next);
			continue;
		}
		size_t tag = (p == q || !ident_char((unsigned char)p[-1])) ? dollar_tag(p) : 0;
		if (tag) {
			char t[64];
			snprintf(t, sizeof t, "%.*s", (int)UTIL_MIN(tag, sizeof t - 1), p);
			const char *end = strstr(p + tag, t);
			p = end ? end + tag : p + strlen(p);
			util_buf_printf(out, "$%d", ++next);
			continue;
		}
		if (c == '"') {
			const char *s0 = p++;
			while (*p && !(*p == '"' && p[1] != '"'))
				p += *p == '"' ? 2 : 1;
			if (*p)
				p++;
			util_buf_append(out, s0, (size_t)(p - s0));
			continue;
		}
		bool num_start = isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]));
		if (num_start && (p == q || !ident_char((unsigned char)p[-1]))) {
			while (isalnum((unsigned char)*p) || *p == '.' || *p == '_' ||
			       ((*p == '+' || *p == '-') && (p[-1] == 'e' || p[-1] == 'E')))
				p++;
			util_buf_printf(out, "$%d", ++next);
			continue;
		}
		if (ident_char(c)) {
			const char *s0 = p;
			while (*p && ident_char((unsigned char)*p))
				p++;
			util_buf_append(out, s0, (size_t)(p - s0));
			continue;
		}
		util_buf_putc(out, (char)c);
		p++;
	}
	while (out->len && (out->data[out->len - 1] == ' ' || out->data[out->len - 1] == ';'))
		out->len--;
	util_buf_putc(out, '\0');
	out->len--;
}

/* Rows of a completed statement from its tag ("SELECT 3", "INSERT 0 2"). */
static uint64_t tag_rows(const char *tag)
{
	const char *sp = strrchr(tag, ' ');
	return sp && isdigit((unsigned char)sp[1]) ? strtoull(sp + 1, NULL, 10) : 0;
}

/* Drops the least used entry to make room (pg_stat_statements deallocates). */
static void evict(struct sql_ops *o)
{
	size_t pos = 0;
	void *v;
	sql_stmt_stat *victim = NULL;
	while (util_map_next(&o->stmts, &pos, NULL, NULL, &v))
		if (!victim || ((sql_stmt_stat *)v)->calls < victim->calls)
			victim = v;
	if (victim) {
		util_map_del_u64(&o->stmts, victim->queryid);
		free(victim->query);
		free(victim);
	}
}

/* The last statement text this thread recorded and its query id: a
 * prepared statement run again and again has the same text, and its
 * normalisation (an allocation and a pass over the text) was 2-3% of a
 * point read. Fixed size, so nothing to free when the thread ends. */
static _Thread_local struct {
	char text[256];
	size_t len;
	uint64_t seed, id;
} last_stmt;

static void record_statement(sql_session *s, const char *text, uint64_t rows, double ms)
{
	struct sql_ops *o = s->e->ops;
	util_buf nb = UTIL_BUF_INIT;
	uint64_t seed = (uint64_t)s->user_oid << 32 | s->db_oid, id;
	size_t tl = strlen(text);
	if (last_stmt.len && last_stmt.len == tl && last_stmt.seed == seed &&
	    !memcmp(last_stmt.text, text, tl)) {
		id = last_stmt.id;
	} else {
		normalize(text, &nb);
		if (!nb.len) {
			util_buf_free(&nb);
			return;
		}
		id = util_hash64(nb.data, nb.len, seed);
		if (tl < sizeof last_stmt.text) {
			memcpy(last_stmt.text, text, tl);
			last_stmt.len = tl;
			last_stmt.seed = seed;
			last_stmt.id = id;
		}
	}
	pthread_mutex_lock(&o->mu);
	sql_stmt_stat *st = util_map_get_u64(&o->stmts, id);
	if (!st) {
		if (!nb.len)
			normalize(text, &nb);
		if (util_map_count(&o->stmts) >= SQL_OPS_MAX_STATEMENTS)
			evict(o);
		st = util_xcalloc(1, sizeof *st);
		st->queryid = id;
		st->userid = s->user_oid;
		st->dbid = s->db_oid;
		st->query = util_buf_steal(&nb, NULL);
		st->min_ms = ms;
		util_map_put_u64(&o->stmts, id, st);
	}
	st->calls++;
	st->rows += rows;
	st->total_ms += ms;
	st->sum_sq_ms += ms * ms;
	if (ms < st->min_ms)
		st->min_ms = ms;
	if (ms > st->max_ms)
		st->max_ms = ms;
	pthread_mutex_unlock(&o->mu);
	util_buf_free(&nb);
}

void sql_ops_stmt_done(sql_session *s, const char *text, const sql_complete *c, int64_t start_us,
		       const util_err *err)
{
	sql_ops_set_wait(s, NULL, NULL);
	if (!s->e->ops)
		return;
	/* Relaxed: this session's own entries were counted by this thread. */
	if (atomic_load_explicit(&s->e->ops->nprogress, memory_order_relaxed))
		sql_progress_end_session(s->e, s->pid);
	if (!text)
		return;
	double ms = (double)(util_now_us() - start_us) / 1000.0;
	if (s->log_min_duration_ms >= 0 && ms >= (double)s->log_min_duration_ms)
		util_info("[%d] duration: %.3f ms  statement: %s%s%s", (int)s->pid, ms, text,
			  err ? "  error: " : "", err ? err->message : "");
	if (!err)
		record_statement(s, text, c->tag[0] ? tag_rows(c->tag) : 0, ms);
}

/* ---------------------------------------------------------------- table counters */

void sql_ops_exec_done(sql_exec *ex)
{
	sql_engine *e = ex->s->e;
	if (!e->ops)
		return;
	const cat_obj *target = NULL;
	for (int i = 0; i < ex->pl->nnodes; i++) {
		sql_op *op = ex->ops[i];
		if (!op || !op->plan)
			continue;
		const sql_plan *p = op->plan;
		if (p->kind == SQL_P_MODIFY && !target)
			target = p->modify.rel;
		if (p->kind != SQL_P_SCAN || !p->scan.reloid || !op->loops)
			continue;
		sql_table_stat *t = sql_ops_table_stat(e, p->scan.reloid);
		if (!p->scan.nranges && !p->scan.index_oid) {
			atomic_fetch_add(&t->seq_scan, op->loops);
			atomic_fetch_add(&t->seq_tup_read, op->rows_out);
			atomic_store(&t->last_seq_scan_us, util_now_us());
		} else {
			atomic_fetch_add(&t->idx_scan, op->loops);
			atomic_fetch_add(&t->idx_tup_fetch, op->rows_out);
		}
	}
	if (target && ex->processed) {
		sql_table_stat *t = sql_ops_table_stat(e, target->oid);
		switch (ex->pl->cmd) {
		case SQL_CMD_INSERT:
			atomic_fetch_add(&t->n_tup_ins, ex->processed);
			break;
		case SQL_CMD_UPDATE:
			atomic_fetch_add(&t->n_tup_upd, ex->processed);
			break;
		case SQL_CMD_DELETE:
			atomic_fetch_add(&t->n_tup_del, ex->processed);
			break;
		default:
			break;
		}
	}
}
