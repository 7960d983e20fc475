/*
 * slt_parse.c — reads a sqllogictest script (SQLite's format) into records.
 *
 * A script is a sequence of records separated by blank lines. A record may be
 * preceded by condition lines (`skipif DB`, `onlyif DB`) and comment lines
 * (`# ...`), then starts with one of:
 *   statement ok | statement error      SQL follows until a blank line
 *   query TYPES [SORT] [LABEL]           SQL, then optionally `----` and the
 *                                        expected values until a blank line
 *   hash-threshold N                     hash results with more than N values
 *   halt                                 stop the script here
 * Lines may end in CRLF (part of the corpus does).
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slt.h"

/* Extra allocations of a script, freed together. */
typedef struct pool_blk {
	struct pool_blk *next;
	max_align_t data[];
} pool_blk;

static void *pool_alloc(slt_script *s, size_t n)
{
	pool_blk *b = malloc(sizeof(pool_blk) + n);
	if (!b) {
		fprintf(stderr, "slt: out of memory\n");
		exit(2);
	}
	b->next = s->pool;
	s->pool = b;
	return b->data;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);
	if (!q) {
		fprintf(stderr, "slt: out of memory\n");
		exit(2);
	}
	return q;
}

/* Splits s->text into lines in place, dropping '\r' and trailing blanks. */
static void split_lines(slt_script *s)
{
	size_t cap = 1024;
	s->lines = xrealloc(NULL, cap * sizeof(char *));
	s->n_lines = 0;
	char *p = s->text;
	while (*p) {
		char *start = p;
		char *nl = strchr(p, '\n');
		if (nl) {
			*nl = '\0';
			p = nl + 1;
		} else {
			p += strlen(p);
		}
		size_t len = strlen(start);
		while (len > 0 && (start[len - 1] == '\r' || start[len - 1] == ' ' || start[len - 1] == '\t'))
			start[--len] = '\0';
		if ((size_t)s->n_lines == cap) {
			cap *= 2;
			s->lines = xrealloc(s->lines, cap * sizeof(char *));
		}
		s->lines[s->n_lines++] = start;
	}
}

/* Copies the next whitespace-separated token of *p into tok; false at end. */
static bool next_token(const char **p, char *tok, size_t toklen)
{
	const char *q = *p;
	while (*q == ' ' || *q == '\t')
		q++;
	if (!*q)
		return false;
	size_t n = 0;
	while (*q && *q != ' ' && *q != '\t') {
		if (n + 1 < toklen)
			tok[n++] = *q;
		q++;
	}
	tok[n] = '\0';
	*p = q;
	return true;
}

static const char *pool_strdup(slt_script *s, const char *str)
{
	size_t n = strlen(str) + 1;
	char *d = pool_alloc(s, n);
	memcpy(d, str, n);
	return d;
}

/* Joins lines [from, to) with '\n'. */
static const char *join_lines(slt_script *s, int from, int to)
{
	size_t n = 1;
	for (int i = from; i < to; i++)
		n += strlen(s->lines[i]) + 1;
	char *d = pool_alloc(s, n), *w = d;
	for (int i = from; i < to; i++) {
		size_t l = strlen(s->lines[i]);
		memcpy(w, s->lines[i], l);
		w += l;
		if (i + 1 < to)
			*w++ = '\n';
	}
	*w = '\0';
	return d;
}

static int parse_lines(slt_script *s, const char *engine, char *err, size_t errlen)
{
	int cap = 256;
	s->recs = xrealloc(NULL, (size_t)cap * sizeof(slt_record));
	s->n_recs = 0;
	int i = 0;
	while (i < s->n_lines) {
		const char *l = s->lines[i];
		if (l[0] == '\0' || l[0] == '#') {
			i++;
			continue;
		}
		bool skip = false;
		char tok[64], arg[64];
		/* Conditions. */
		for (;;) {
			const char *p = s->lines[i];
			if (!next_token(&p, tok, sizeof tok))
				break;
			if (strcmp(tok, "skipif") != 0 && strcmp(tok, "onlyif") != 0)
				break;
			if (!next_token(&p, arg, sizeof arg)) {
				snprintf(err, errlen, "%s:%d: %s without a database name", s->path, i + 1,
					 tok);
				return -1;
			}
			if (tok[0] == 's' && strcmp(arg, engine) == 0)
				skip = true;
			if (tok[0] == 'o' && strcmp(arg, engine) != 0)
				skip = true;
			i++;
			if (i >= s->n_lines || s->lines[i][0] == '\0') {
				snprintf(err, errlen, "%s:%d: condition without a record", s->path, i);
				return -1;
			}
		}
		if (s->n_recs == cap) {
			cap *= 2;
			s->recs = xrealloc(s->recs, (size_t)cap * sizeof(slt_record));
		}
		slt_record *r = &s->recs[s->n_recs];
		memset(r, 0, sizeof *r);
		r->line = i + 1;
		r->skip = skip;
		const char *p = s->lines[i];
		next_token(&p, tok, sizeof tok);
		int body = i + 1;
		if (strcmp(tok, "statement") == 0) {
			if (!next_token(&p, arg, sizeof arg) ||
			    (strcmp(arg, "ok") != 0 && strcmp(arg, "error") != 0)) {
				snprintf(err, errlen, "%s:%d: expected 'statement ok' or 'statement error'",
					 s->path, i + 1);
				return -1;
			}
			r->kind = arg[0] == 'o' ? SLT_STATEMENT_OK : SLT_STATEMENT_ERROR;
			int end = body;
			while (end < s->n_lines && s->lines[end][0] != '\0')
				end++;
			r->sql = join_lines(s, body, end);
			i = end;
		} else if (strcmp(tok, "query") == 0) {
			r->kind = SLT_QUERY;
			if (!next_token(&p, arg, sizeof arg)) {
				snprintf(err, errlen, "%s:%d: query without column types", s->path, i + 1);
				return -1;
			}
			for (const char *t = arg; *t; t++) {
				if (*t != 'I' && *t != 'T' && *t != 'R') {
					snprintf(err, errlen, "%s:%d: unknown column type '%c'", s->path,
						 i + 1, *t);
					return -1;
				}
			}
			r->types = pool_strdup(s, arg);
			r->sort = SLT_NOSORT;
			if (next_token(&p, arg, sizeof arg)) {
				if (strcmp(arg, "rowsort") == 0)
					r->sort = SLT_ROWSORT;
				else if (strcmp(arg, "valuesort") == 0)
					r->sort = SLT_VALUESORT;
				else if (strcmp(arg, "nosort") != 0) {
					snprintf(err, errlen, "%s:%d: unknown sort mode '%s'", s->path, i + 1,
						 arg);
					return -1;
				}
				if (next_token(&p, arg, sizeof arg))
					r->label = pool_strdup(s, arg);
			}
			int end = body;
			while (end < s->n_lines && s->lines[end][0] != '\0' &&
			       strcmp(s->lines[end], "----") != 0)
				end++;
			r->sql = join_lines(s, body, end);
			i = end;
			if (i < s->n_lines && strcmp(s->lines[i], "----") == 0) {
				r->has_expected = true;
				int from = ++i;
				while (i < s->n_lines && s->lines[i][0] != '\0')
					i++;
				r->n_expected = i - from;
				r->expected = pool_alloc(s, (size_t)(r->n_expected + 1) * sizeof(char *));
				for (int k = 0; k < r->n_expected; k++)
					r->expected[k] = s->lines[from + k];
			}
		} else if (strcmp(tok, "hash-threshold") == 0) {
			r->kind = SLT_HASH_THRESHOLD;
			if (!next_token(&p, arg, sizeof arg)) {
				snprintf(err, errlen, "%s:%d: hash-threshold without a number", s->path,
					 i + 1);
				return -1;
			}
			char *endp;
			errno = 0;
			long v = strtol(arg, &endp, 10);
			if (*endp || errno || v < 0 || v > INT32_MAX) {
				snprintf(err, errlen, "%s:%d: bad hash-threshold '%s'", s->path, i + 1, arg);
				return -1;
			}
			r->threshold = (int)v;
			i++;
		} else if (strcmp(tok, "halt") == 0) {
			r->kind = SLT_HALT;
			i++;
		} else {
			snprintf(err, errlen, "%s:%d: unknown record type '%s'", s->path, i + 1, tok);
			return -1;
		}
		if (r->kind != SLT_HASH_THRESHOLD && r->kind != SLT_HALT && r->sql[0] == '\0') {
			snprintf(err, errlen, "%s:%d: record without SQL", s->path, r->line);
			return -1;
		}
		s->n_recs++;
	}
	return 0;
}

int slt_script_parse(slt_script *s, const char *name, const char *text, const char *engine, char *err,
		     size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->path = strdup(name);
	s->text = strdup(text);
	if (!s->path || !s->text) {
		snprintf(err, errlen, "out of memory");
		slt_script_free(s);
		return -1;
	}
	split_lines(s);
	if (parse_lines(s, engine, err, errlen) != 0) {
		slt_script_free(s);
		return -1;
	}
	return 0;
}

int slt_script_load(slt_script *s, const char *path, const char *engine, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = xrealloc(NULL, cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		if (got == 0)
			break;
		n += got;
	}
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "%s: read error", path);
		free(buf);
		return -1;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		snprintf(err, errlen, "%s: contains NUL bytes", path);
		free(buf);
		return -1;
	}
	memset(s, 0, sizeof *s);
	s->path = strdup(path);
	s->text = buf;
	if (!s->path) {
		snprintf(err, errlen, "out of memory");
		slt_script_free(s);
		return -1;
	}
	split_lines(s);
	if (parse_lines(s, engine, err, errlen) != 0) {
		slt_script_free(s);
		return -1;
	}
	return 0;
}

void slt_script_free(slt_script *s)
{
	pool_blk *b = s->pool;
	while (b) {
		pool_blk *next = b->next;
		free(b);
		b = next;
	}
	free(s->recs);
	free(s->lines);
	free(s->text);
	free(s->path);
	memset(s, 0, sizeof *s);
}
