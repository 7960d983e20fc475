/* fe_msg.c — decoding of the frontend messages of a session (Query, Parse, Bind, Describe, Close,
 * Execute, CopyFail, FunctionCall): every field bounds-checked, strings and text parameters checked as UTF-8,
 * errors worded as PostgreSQL's. Pure functions, so the fuzzer drives them directly. */
#include "pgw_int.h"

#include <stdlib.h>
#include <string.h>

static void reserve(pgw_fe_scratch *s, int n)
{
	if (n <= s->cap)
		return;
	int cap = UTIL_MAX(n, 16);
	s->fmts = util_xrealloc(s->fmts, sizeof *s->fmts * (size_t)cap);
	s->rfmts = util_xrealloc(s->rfmts, sizeof *s->rfmts * (size_t)cap);
	s->vals = util_xrealloc(s->vals, sizeof *s->vals * (size_t)cap);
	s->lens = util_xrealloc(s->lens, sizeof *s->lens * (size_t)cap);
	s->oids = util_xrealloc(s->oids, sizeof *s->oids * (size_t)cap);
	s->cap = cap;
}

void pgw_fe_scratch_free(pgw_fe_scratch *s)
{
	free(s->fmts);
	free(s->rfmts);
	free(s->vals);
	free(s->lens);
	free(s->oids);
	memset(s, 0, sizeof *s);
}

/* Checks the reader and then each string as UTF-8 (names may not hold
 * invalid bytes either: PostgreSQL converts every string it reads). */
static int finish(pgw_rd *r, util_err *err, const char *a, const char *b)
{
	pgw_rd_end(r);
	if (pgw_rd_check(r, err) < 0)
		return -1;
	if (a && pgw_utf8_check(a, strlen(a), err) < 0)
		return -1;
	if (b && pgw_utf8_check(b, strlen(b), err) < 0)
		return -1;
	return 0;
}

/* Reads np parameter values (a length, then that many bytes) into s. */
static void read_values(pgw_rd *r, pgw_fe_scratch *s, int np)
{
	reserve(s, np);
	for (int i = 0; i < np; i++) {
		int32_t len = pgw_rd_i32(r);
		s->lens[i] = len;
		/* -1 is NULL; other negative lengths cannot be satisfied */
		s->vals[i] = len == -1 ? NULL : pgw_rd_bytes(r, len < 0 ? SIZE_MAX : (size_t)len);
	}
}

/* Text parameters (by the nf formats: none = all text, one = for all)
 * must be valid in the client encoding. */
static int check_text_values(const pgw_fe_scratch *s, int nf, int np, util_err *err)
{
	for (int i = 0; i < np; i++) {
		int16_t f = nf == 0 ? 0 : nf == 1 ? s->fmts[0] : s->fmts[i];
		if (f == 0 && s->vals[i] && pgw_utf8_check(s->vals[i], (size_t)s->lens[i], err) < 0)
			return -1;
	}
	return 0;
}

int pgw_decode_query(const uint8_t *b, size_t n, const char **query, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	*query = pgw_rd_str(&r);
	return finish(&r, err, *query, NULL);
}

int pgw_decode_parse(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_parse_msg *m, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	m->name = pgw_rd_str(&r);
	m->query = pgw_rd_str(&r);
	/* Counts are unsigned 16-bit, as PostgreSQL reads them. */
	m->nparams = (uint16_t)pgw_rd_i16(&r);
	reserve(s, m->nparams);
	for (int i = 0; i < m->nparams; i++)
		s->oids[i] = (uint32_t)pgw_rd_i32(&r);
	m->types = s->oids;
	return finish(&r, err, m->name, m->query);
}

int pgw_decode_bind(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_bind_msg *m, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	m->portal = pgw_rd_str(&r);
	m->stmt = pgw_rd_str(&r);
	int nf = (uint16_t)pgw_rd_i16(&r);
	reserve(s, nf);
	for (int i = 0; i < nf; i++)
		s->fmts[i] = pgw_rd_i16(&r);
	int np = (uint16_t)pgw_rd_i16(&r);
	if (!r.err && nf > 1 && nf != np)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				    "bind message has %d parameter formats but %d parameters", nf, np);
	read_values(&r, s, np);
	int nrf = (uint16_t)pgw_rd_i16(&r);
	reserve(s, nrf);
	for (int i = 0; i < nrf; i++)
		s->rfmts[i] = pgw_rd_i16(&r);
	if (finish(&r, err, m->portal, m->stmt) < 0)
		return -1;
	if (check_text_values(s, nf, np, err) < 0)
		return -1;
	m->p = (sql_bind_params){
	    .nformats = nf,
	    .formats = s->fmts,
	    .nparams = np,
	    .values = s->vals,
	    .lengths = s->lens,
	    .nresult_formats = nrf,
	    .result_formats = s->rfmts,
	};
	return 0;
}

/* FunctionCall: oid, argument formats, arguments, result format (PostgreSQL's
 * parse_fcall_arguments wording for the format count). */
int pgw_decode_fcall(const uint8_t *b, size_t n, pgw_fe_scratch *s, pgw_fcall_msg *m, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	m->fn = (uint32_t)pgw_rd_i32(&r);
	int nf = (uint16_t)pgw_rd_i16(&r);
	reserve(s, UTIL_MAX(nf, 1));
	for (int i = 0; i < nf; i++)
		s->fmts[i] = pgw_rd_i16(&r);
	int np = (uint16_t)pgw_rd_i16(&r);
	if (!r.err && nf > 1 && nf != np)
		return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION,
				    "function call message contains %d argument formats but %d arguments", nf,
				    np);
	read_values(&r, s, np);
	s->rfmts[0] = pgw_rd_i16(&r);
	if (finish(&r, err, NULL, NULL) < 0)
		return -1;
	if (check_text_values(s, nf, np, err) < 0)
		return -1;
	m->p = (sql_bind_params){
	    .nformats = nf,
	    .formats = s->fmts,
	    .nparams = np,
	    .values = s->vals,
	    .lengths = s->lens,
	    .nresult_formats = 1,
	    .result_formats = s->rfmts,
	};
	return 0;
}

int pgw_decode_target(const uint8_t *b, size_t n, char *kind, const char **name, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	*kind = (char)pgw_rd_u8(&r);
	*name = pgw_rd_str(&r);
	return finish(&r, err, *name, NULL);
}

int pgw_decode_execute(const uint8_t *b, size_t n, const char **portal, int32_t *max_rows, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	*portal = pgw_rd_str(&r);
	*max_rows = pgw_rd_i32(&r);
	return finish(&r, err, *portal, NULL);
}

int pgw_decode_copy_fail(const uint8_t *b, size_t n, const char **msg, util_err *err)
{
	pgw_rd r;
	pgw_rd_init(&r, b, n);
	*msg = pgw_rd_str(&r);
	return finish(&r, err, *msg, NULL);
}
