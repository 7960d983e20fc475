/* msg.c — the protocol's message codec: a bounds-checked reader over a message body and the writers
 * for the backend messages the server sends (ErrorResponse, RowDescription, ReadyForQuery ...). */
#include "pgw_int.h"

#include <stdio.h>
#include <string.h>

/* The reader's messages are PostgreSQL's (pqformat.c), so clients see the
 * same text for the same malformed input. */
static void rd_fail(pgw_rd *r, const char *why)
{
	if (!r->err)
		r->err = why;
	r->p = r->end;
}

uint8_t pgw_rd_u8(pgw_rd *r)
{
	if (r->p >= r->end) {
		rd_fail(r, "no data left in message");
		return 0;
	}
	return *r->p++;
}

int16_t pgw_rd_i16(pgw_rd *r)
{
	const uint8_t *p = pgw_rd_bytes(r, 2);
	return p ? (int16_t)util_get_be16(p) : 0;
}

int32_t pgw_rd_i32(pgw_rd *r)
{
	const uint8_t *p = pgw_rd_bytes(r, 4);
	return p ? (int32_t)util_get_be32(p) : 0;
}

const uint8_t *pgw_rd_bytes(pgw_rd *r, size_t n)
{
	if (n > pgw_rd_left(r)) {
		rd_fail(r, "insufficient data left in message");
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += n;
	return p;
}

const char *pgw_rd_str(pgw_rd *r)
{
	const uint8_t *nul = memchr(r->p, 0, pgw_rd_left(r));
	if (!nul) {
		rd_fail(r, "invalid string in message");
		return "";
	}
	const char *s = (const char *)r->p;
	r->p = nul + 1;
	return s;
}

void pgw_rd_end(pgw_rd *r)
{
	if (r->p != r->end)
		rd_fail(r, "invalid message format");
}

int pgw_rd_check(const pgw_rd *r, util_err *err)
{
	if (!r->err)
		return 0;
	return util_err_set(err, UTIL_E_PROTOCOL_VIOLATION, "%s", r->err);
}

size_t pgw_wr_begin(util_buf *b, char type)
{
	util_buf_reserve(b, 5);
	b->data[b->len++] = type;
	size_t at = b->len;
	b->len += 4;
	return at;
}

void pgw_wr_end(util_buf *b, size_t at)
{
	util_put_be32((uint8_t *)b->data + at, (uint32_t)(b->len - at));
}

void pgw_wr_str(util_buf *b, const char *s)
{
	util_buf_append(b, s, strlen(s) + 1);
}

static void field(util_buf *b, char code, const char *v)
{
	if (!v || !*v)
		return;
	util_buf_putc(b, code);
	pgw_wr_str(b, v);
}

void pgw_wr_error(util_buf *b, const util_err *e, bool notice)
{
	size_t at = pgw_wr_begin(b, notice ? 'N' : 'E');
	const char *sev = util_severity_name(e->severity);
	bool fatal = e->severity == UTIL_SEV_FATAL || e->severity == UTIL_SEV_PANIC;
	if (!notice && !fatal && e->severity != UTIL_SEV_ERROR)
		sev = "ERROR";
	else if (notice && (fatal || e->severity == UTIL_SEV_ERROR))
		sev = "NOTICE";
	field(b, 'S', sev);
	field(b, 'V', sev);
	/* A notice without a code is PostgreSQL's 00000 (successful_completion). */
	field(b, 'C', util_errcode_sqlstate(e->code));
	field(b, 'M', e->message[0] ? e->message : "internal error");
	field(b, 'D', e->detail);
	field(b, 'H', e->hint);
	char num[16];
	if (e->position > 0) {
		snprintf(num, sizeof num, "%d", e->position);
		field(b, 'P', num);
	}
	if (e->internal_position > 0) {
		snprintf(num, sizeof num, "%d", e->internal_position);
		field(b, 'p', num);
	}
	field(b, 'W', e->context);
	field(b, 's', e->schema);
	field(b, 't', e->table);
	field(b, 'c', e->column);
	field(b, 'd', e->datatype);
	field(b, 'n', e->constraint);
	util_buf_putc(b, '\0');
	pgw_wr_end(b, at);
}

void pgw_wr_rowdesc(util_buf *b, const sql_rowdesc *d)
{
	size_t at = pgw_wr_begin(b, 'T');
	pgw_wr_i16(b, (int16_t)d->ncols);
	/* One reserve per column and the fixed fields written in place (a
	 * Describe per prepared execution: pgbench -M prepared). */
	for (int i = 0; i < d->ncols; i++) {
		const sql_column *c = &d->cols[i];
		const char *name = c->name ? c->name : "?column?";
		size_t nl = strlen(name) + 1;
		util_buf_reserve(b, nl + 18);
		uint8_t *p = (uint8_t *)b->data + b->len;
		memcpy(p, name, nl);
		p += nl;
		util_put_be32(p, (uint32_t)c->table_oid);
		util_put_be16(p + 4, (uint16_t)c->attnum);
		util_put_be32(p + 6, (uint32_t)c->type_oid);
		util_put_be16(p + 10, (uint16_t)c->type_len);
		util_put_be32(p + 12, (uint32_t)c->typmod);
		util_put_be16(p + 16, (uint16_t)c->format);
		b->len += nl + 18;
		b->data[b->len] = '\0';
	}
	pgw_wr_end(b, at);
}

void pgw_wr_param_status(util_buf *b, const char *name, const char *value)
{
	size_t at = pgw_wr_begin(b, 'S');
	pgw_wr_str(b, name);
	pgw_wr_str(b, value);
	pgw_wr_end(b, at);
}

void pgw_wr_ready(util_buf *b, char txn_status)
{
	size_t at = pgw_wr_begin(b, 'Z');
	util_buf_putc(b, txn_status);
	pgw_wr_end(b, at);
}

void pgw_wr_complete(util_buf *b, const char *tag)
{
	size_t at = pgw_wr_begin(b, 'C');
	pgw_wr_str(b, tag);
	pgw_wr_end(b, at);
}

void pgw_wr_empty(util_buf *b, char type)
{
	size_t at = pgw_wr_begin(b, type);
	pgw_wr_end(b, at);
}
