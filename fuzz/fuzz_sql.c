/*
 * fuzz_sql.c — libFuzzer target: SQL text through parse, analyze, plan and
 * execute on a small database, in-process (the engine of sql.h without the
 * wire). The input is SQL text up to its first NUL byte; bytes after it are
 * what COPY ... FROM STDIN reads (in three chunks). Each input runs in a
 * fresh session inside BEGIN ... ROLLBACK, so the database stays the same:
 * inputs with a statement that would end the transaction (COMMIT, END,
 * ROLLBACK, ABORT, PREPARE TRANSACTION ...) are skipped. statement_timeout
 * bounds each input (inputs that mention "timeout" are skipped). Any error is fine; a crash, sanitizer
 * report, leak or hang is a finding.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "sql.h"
#include "util.h"

static sql_engine *engine;

typedef struct copy_feed {
	const uint8_t *p;
	size_t n, off;
	int chunk;
} copy_feed;

static int copy_in_begin(void *arg, sql_copy_format fmt, int ncols)
{
	(void)arg, (void)fmt, (void)ncols;
	return 0;
}

static int copy_in_read(void *arg, const uint8_t **data, size_t *len, util_err *err)
{
	(void)err;
	copy_feed *f = arg;
	if (f->off >= f->n || f->chunk >= 3)
		return 0;
	size_t take = f->chunk == 2 ? f->n - f->off : (f->n - f->off + 1) / 2;
	*data = f->p + f->off;
	*len = take;
	f->off += take;
	f->chunk++;
	return 1;
}

static int copy_out_begin(void *arg, sql_copy_format fmt, int ncols)
{
	(void)arg, (void)fmt, (void)ncols;
	return 0;
}

static int copy_out_data(void *arg, const void *data, size_t len)
{
	(void)arg, (void)data, (void)len;
	return 0;
}

static int copy_out_end(void *arg)
{
	(void)arg;
	return 0;
}

static int dest_startup(void *arg, const sql_rowdesc *d)
{
	(void)arg;
	for (int i = 0; i < d->ncols; i++)
		fuzz_consume(d->cols[i].name, strlen(d->cols[i].name));
	return 0;
}

static int dest_row(void *arg, const uint8_t *data, size_t len, int ncols)
{
	(void)arg, (void)ncols;
	fuzz_consume(data, len);
	return 0;
}

static void done(void *arg, const sql_complete *c)
{
	(void)arg, (void)c;
}

static int run(sql_session *s, const char *sql)
{
	sql_dest d = {NULL, dest_startup, dest_row};
	util_err err;
	util_err_clear(&err);
	return sql_simple_query(s, sql, &d, done, NULL, &err);
}

static sql_session *open_session(copy_feed *feed)
{
	sql_client cl;
	memset(&cl, 0, sizeof cl);
	cl.arg = feed;
	cl.copy_in_begin = copy_in_begin;
	cl.copy_in_read = copy_in_read;
	cl.copy_out_begin = copy_out_begin;
	cl.copy_out_data = copy_out_data;
	cl.copy_out_end = copy_out_end;
	sql_startup st = {"postgres", "postgres", 0, NULL, NULL};
	sql_session *s;
	util_err err;
	util_err_clear(&err);
	if (sql_session_open(engine, &st, &cl, &s, &err) != 0) {
		fprintf(stderr, "fuzz_sql: session: %s\n", err.message);
		abort();
	}
	return s;
}

static const char *setup_sql =
    "CREATE TABLE t (a int PRIMARY KEY, b text, c numeric, d timestamptz, e jsonb, f int[]);"
    "INSERT INTO t SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz + g * interval '1 day', "
    "  jsonb_build_object('k', g, 'l', array[g, g + 1]), array[g, -g] FROM generate_series(1, 50) g;"
    "CREATE TABLE u (x int, y text, z bool, PRIMARY KEY (x, y));"
    "INSERT INTO u VALUES (1, 'a', true), (2, 'b', false), (3, 'c', NULL), (1, 'b', true);"
    "CREATE TABLE e (id bigint PRIMARY KEY, v double precision, w bytea, day date);"
    "CREATE VIEW tv AS SELECT a, b FROM t WHERE a % 2 = 0;"
    "CREATE SEQUENCE s1;";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	util_log_set_level(UTIL_LOG_FATAL);
	char *dir = fuzz_tmpdir("sql");
	sql_engine_opts o;
	sql_engine_opts_default(&o);
	o.data_dir = dir;
	o.sync_commit = false;
	o.block_cache_bytes = 8 << 20;
	util_err err;
	util_err_clear(&err);
	if (sql_engine_open(&o, &engine, &err) != 0) {
		fprintf(stderr, "fuzz_sql: engine: %s\n", err.message);
		abort();
	}
	copy_feed f = {0};
	sql_session *s = open_session(&f);
	if (run(s, setup_sql) != 0) {
		fprintf(stderr, "fuzz_sql: setup failed\n");
		abort();
	}
	sql_session_close(s);
	return 0;
}

/* True if a statement of text starts with a word that ends or splits the
 * transaction (the split on ';' is crude: it errs on the side of skipping). */
static bool ends_transaction(const char *text)
{
	static const char *words[] = {"commit",  "end",       "rollback", "abort",
				      "prepare", "savepoint", "release",  "checkpoint"};
	const char *p = text;
	for (;;) {
		while (*p && (isspace((unsigned char)*p) || *p == '(' || *p == ';'))
			p++;
		char w[16];
		size_t n = 0;
		while (isalpha((unsigned char)p[n]) && n < sizeof w - 1) {
			w[n] = (char)tolower((unsigned char)p[n]);
			n++;
		}
		w[n] = 0;
		for (size_t i = 0; i < sizeof words / sizeof *words; i++)
			if (!strcmp(w, words[i]))
				return true;
		const char *semi = strchr(p, ';');
		if (!semi)
			return false;
		p = semi + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	size_t textlen = 0;
	while (textlen < size && data[textlen])
		textlen++;
	char *sql = malloc(textlen + 1);
	memcpy(sql, data, textlen);
	sql[textlen] = 0;
	/* a statement that lifts the timeout could hang: not a finding */
	if (ends_transaction(sql) || strcasestr(sql, "timeout")) {
		free(sql);
		return 0;
	}
	copy_feed f = {textlen < size ? data + textlen + 1 : NULL, textlen < size ? size - textlen - 1 : 0, 0,
		       0};
	sql_session *s = open_session(&f);
	run(s, "SET statement_timeout = '3s'");
	run(s, "BEGIN");
	run(s, sql);
	run(s, "ROLLBACK");
	sql_session_close(s);
	free(sql);
	return 0;
}
