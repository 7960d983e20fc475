/*
 * iso_spec.c — parses isolation test specs (format in iso_spec.h) by
 * recursive descent over the text. SQL blocks are read raw, only where the
 * grammar expects one, so a `{` after `session NAME` can open a session body
 * instead.
 */
#include "iso_spec.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
	const char *p;
	int line;
	char *err;
	size_t errlen;
	bool failed;
	iso_spec *spec;
} parser;

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "isolation: out of memory\n");
		exit(2);
	}
	return q;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

#define APPEND(arr, n, v)                                                                                    \
	do {                                                                                                 \
		(arr) = xrealloc((arr), sizeof *(arr) * (size_t)((n) + 1));                                  \
		(arr)[(n)++] = (v);                                                                          \
	} while (0)

static bool fail(parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return false;
	ps->failed = true;
	int n = snprintf(ps->err, ps->errlen, "line %d: ", ps->line);
	if (n < 0 || (size_t)n >= ps->errlen)
		return false;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return false;
}

/* Skips white space and # comments, counting lines. */
static void skip_space(parser *ps)
{
	for (;;) {
		char c = *ps->p;
		if (c == '\n') {
			ps->line++;
			ps->p++;
		} else if (isspace((unsigned char)c)) {
			ps->p++;
		} else if (c == '#') {
			while (*ps->p && *ps->p != '\n')
				ps->p++;
		} else {
			return;
		}
	}
}

static bool is_ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}
static bool is_ident_cont(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$';
}

/* True if the next token is the unquoted keyword KW (does not consume it). */
static bool peek_keyword(parser *ps, const char *kw)
{
	skip_space(ps);
	size_t n = strlen(kw);
	return strncmp(ps->p, kw, n) == 0 && !is_ident_cont(ps->p[n]);
}

static bool accept_keyword(parser *ps, const char *kw)
{
	if (!peek_keyword(ps, kw))
		return false;
	ps->p += strlen(kw);
	return true;
}

static bool is_keyword(const char *s, size_t n)
{
	static const char *const kws[] = {"setup", "teardown", "session", "step", "permutation"};
	for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++)
		if (strlen(kws[i]) == n && strncmp(kws[i], s, n) == 0)
			return true;
	return false;
}

/* An identifier or a "quoted" name; NULL (and an error) if there is none. */
static char *parse_name(parser *ps, const char *what)
{
	skip_space(ps);
	const char *s = ps->p;
	if (*s == '"') {
		char *buf = NULL;
		size_t n = 0;
		for (s++;; s++) {
			if (*s == '\0' || *s == '\n') {
				free(buf);
				fail(ps, "unterminated quoted %s", what);
				return NULL;
			}
			if (*s == '"') {
				if (s[1] != '"')
					break;
				s++;
			}
			APPEND(buf, n, *s);
		}
		ps->p = s + 1;
		if (n == 0) {
			free(buf);
			fail(ps, "empty %s", what);
			return NULL;
		}
		APPEND(buf, n, '\0');
		return buf;
	}
	if (!is_ident_start(*s)) {
		fail(ps, "expected %s", what);
		return NULL;
	}
	while (is_ident_cont(*s))
		s++;
	if (is_keyword(ps->p, (size_t)(s - ps->p))) {
		fail(ps, "expected %s, found keyword \"%.*s\"", what, (int)(s - ps->p), ps->p);
		return NULL;
	}
	char *name = xstrndup(ps->p, (size_t)(s - ps->p));
	ps->p = s;
	return name;
}

/* { SQL }: everything up to the first }, trimmed. */
static char *parse_sql(parser *ps, const char *what)
{
	skip_space(ps);
	if (*ps->p != '{') {
		fail(ps, "expected { SQL } for %s", what);
		return NULL;
	}
	int start_line = ps->line;
	const char *s = ps->p + 1;
	const char *e = strchr(s, '}');
	if (!e) {
		ps->line = start_line;
		fail(ps, "unterminated SQL block for %s", what);
		return NULL;
	}
	for (const char *q = ps->p; q < e; q++)
		if (*q == '\n')
			ps->line++;
	ps->p = e + 1;
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(s, (size_t)(e - s));
}

static iso_step *find_step(iso_spec *spec, const char *name)
{
	for (int i = 0; i < spec->nsessions; i++)
		for (int j = 0; j < spec->sessions[i]->nsteps; j++)
			if (strcmp(spec->sessions[i]->steps[j]->name, name) == 0)
				return spec->sessions[i]->steps[j];
	return NULL;
}

static bool parse_session(parser *ps)
{
	iso_spec *spec = ps->spec;
	char *name = parse_name(ps, "session name");
	if (!name)
		return false;
	for (int i = 0; i < spec->nsessions; i++)
		if (strcmp(spec->sessions[i]->name, name) == 0) {
			fail(ps, "duplicate session name \"%s\"", name);
			free(name);
			return false;
		}
	iso_session *sess = xrealloc(NULL, sizeof *sess);
	*sess = (iso_session){.name = name};
	APPEND(spec->sessions, spec->nsessions, sess);
	int index = spec->nsessions - 1;

	skip_space(ps);
	bool braced = *ps->p == '{';
	if (braced)
		ps->p++;
	if (accept_keyword(ps, "setup") && !(sess->setup = parse_sql(ps, "session setup")))
		return false;
	while (accept_keyword(ps, "step")) {
		char *sname = parse_name(ps, "step name");
		if (!sname)
			return false;
		if (find_step(spec, sname)) {
			fail(ps, "duplicate step name \"%s\"", sname);
			free(sname);
			return false;
		}
		iso_step *st = xrealloc(NULL, sizeof *st);
		*st = (iso_step){.name = sname, .session = index};
		APPEND(sess->steps, sess->nsteps, st);
		if (!(st->sql = parse_sql(ps, "step")))
			return false;
	}
	if (sess->nsteps == 0)
		return fail(ps, "session \"%s\" has no steps", name);
	if (accept_keyword(ps, "teardown") && !(sess->teardown = parse_sql(ps, "session teardown")))
		return false;
	if (braced) {
		skip_space(ps);
		if (*ps->p != '}')
			return fail(ps, "expected } to close session \"%s\"", name);
		ps->p++;
	}
	return true;
}

static bool parse_permutation(parser *ps)
{
	iso_spec *spec = ps->spec;
	iso_perm *perm = xrealloc(NULL, sizeof *perm);
	*perm = (iso_perm){0};
	APPEND(spec->perms, spec->nperms, perm);
	for (;;) {
		skip_space(ps);
		if (*ps->p == '\0' || peek_keyword(ps, "permutation"))
			break;
		char *name = parse_name(ps, "step name");
		if (!name)
			return false;
		iso_step *st = find_step(spec, name);
		if (!st) {
			fail(ps, "permutation names unknown step \"%s\"", name);
			free(name);
			return false;
		}
		free(name);
		APPEND(perm->steps, perm->nsteps, st);
		skip_space(ps);
		if (*ps->p == '(')
			return fail(ps, "blocker annotations such as %s(...) are not supported", st->name);
	}
	if (perm->nsteps == 0)
		return fail(ps, "empty permutation");
	return true;
}

iso_spec *iso_spec_parse(const char *text, char *err, size_t errlen)
{
	parser ps = {.p = text, .line = 1, .err = err, .errlen = errlen};
	iso_spec *spec = xrealloc(NULL, sizeof *spec);
	*spec = (iso_spec){0};
	ps.spec = spec;
	if (errlen)
		err[0] = '\0';

	while (accept_keyword(&ps, "setup")) {
		char *sql = parse_sql(&ps, "setup");
		if (!sql)
			goto fail;
		APPEND(spec->setups, spec->nsetups, sql);
	}
	if (accept_keyword(&ps, "teardown") && !(spec->teardown = parse_sql(&ps, "teardown")))
		goto fail;
	while (accept_keyword(&ps, "session"))
		if (!parse_session(&ps))
			goto fail;
	if (spec->nsessions == 0) {
		fail(&ps, "expected a session");
		goto fail;
	}
	while (accept_keyword(&ps, "permutation"))
		if (!parse_permutation(&ps))
			goto fail;
	skip_space(&ps);
	if (*ps.p != '\0') {
		fail(&ps, "unexpected text \"%.20s\"", ps.p);
		goto fail;
	}
	return spec;
fail:
	iso_spec_free(spec);
	return NULL;
}

void iso_spec_free(iso_spec *spec)
{
	if (!spec)
		return;
	for (int i = 0; i < spec->nsetups; i++)
		free(spec->setups[i]);
	free(spec->setups);
	free(spec->teardown);
	for (int i = 0; i < spec->nsessions; i++) {
		iso_session *s = spec->sessions[i];
		for (int j = 0; j < s->nsteps; j++) {
			free(s->steps[j]->name);
			free(s->steps[j]->sql);
			free(s->steps[j]);
		}
		free(s->steps);
		free(s->name);
		free(s->setup);
		free(s->teardown);
		free(s);
	}
	free(spec->sessions);
	for (int i = 0; i < spec->nperms; i++) {
		free(spec->perms[i]->steps);
		free(spec->perms[i]);
	}
	free(spec->perms);
	free(spec);
}

iso_spec *iso_spec_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *text = NULL;
	size_t n = 0, cap = 0, got;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			text = xrealloc(text, cap);
		}
		got = fread(text + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	bool bad = ferror(f);
	fclose(f);
	if (bad) {
		free(text);
		snprintf(err, errlen, "%s: read error", path);
		return NULL;
	}
	text[n] = '\0';
	if (memchr(text, '\0', n)) {
		free(text);
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		return NULL;
	}
	char msg[512];
	iso_spec *spec = iso_spec_parse(text, msg, sizeof msg);
	free(text);
	if (!spec)
		snprintf(err, errlen, "%s: %s", path, msg);
	return spec;
}
