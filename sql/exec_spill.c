/*
 * exec_spill.c — operator memory beyond work_mem: temporary files of rows
 * (sorted runs of the external sort, hash-aggregation partitions) and the
 * statement-wide accounting that turns too much memory into 53200 instead
 * of letting one query take the server down.
 *
 * Spill file format (private to one execution, never persisted): per row,
 * per column a tag byte (0 NULL, 1 by value: the datum's 8 bytes, 2 by
 * reference: u32 length then the bytes), in native byte order. Files are
 * tmpfile()s: unlinked at once, so a crash leaves nothing behind.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_int.h"

struct sql_spill {
	FILE *f;
	char *buf;     /* stdio buffer */
	uint64_t rows; /* rows written */
	uint64_t bytes;
};

/* Memory one statement's operators may hold together: the statement's
 * budget of qmem.c (SQL_QUERY_MEM_FACTOR x work_mem, the limit its charged
 * arenas have too). Operators spill at work_mem; this only stops what
 * cannot spill from taking the machine. */
size_t sql_exec_mem_limit(sql_exec *ex)
{
	if (ex->s)
		return sql_query_mem_limit(ex->s);
	return ((size_t)4 << 20) * SQL_QUERY_MEM_FACTOR;
}

size_t sql_exec_work_mem(sql_exec *ex) { return ex->s && ex->s->work_mem ? ex->s->work_mem : (size_t)4 << 20; }

void sql_exec_account(sql_exec *ex, size_t *held, size_t now)
{
	bool grows = now > *held;
	ex->mem_used += now - *held;
	*held = now;
	if (ex->mem_used > ex->max_mem)
		ex->max_mem = ex->mem_used;
	size_t lim = sql_exec_mem_limit(ex);
	/* Only growth fails: operators give memory back while the execution
	 * closes after this very error, and must not throw again then. */
	if (grows && ex->mem_used > lim) {
		util_err *e = ty_errstart(UTIL_E_OUT_OF_MEMORY, "out of memory");
		util_err_detail(e, "The statement's operators need more than %zu MB of memory.", lim >> 20);
		ty_errthrow();
	}
}

bool sql_spill_ok(const ty_oid *types, int n)
{
	for (int i = 0; i < n; i++) {
		const ty_type *t = ty_type_get(types[i]);
		/* Records hold pointers; pseudo types have no stable bytes. */
		if (!t || types[i] == TY_RECORD || t->typtype == 'p' || t->typtype == 'c')
			return false;
	}
	return true;
}

static UTIL_NORETURN void io_fail(const char *what)
{
	int err = errno;
	ty_error(err == ENOSPC ? UTIL_E_DISK_FULL : UTIL_E_IO_ERROR, "could not %s temporary file: %s", what,
		 strerror(err));
}

sql_spill *sql_spill_new(void)
{
	sql_spill *s = util_xcalloc(1, sizeof *s);
	s->f = tmpfile();
	if (!s->f) {
		free(s);
		io_fail("create");
	}
	s->buf = util_xmalloc(256 * 1024);
	setvbuf(s->f, s->buf, _IOFBF, 256 * 1024);
	return s;
}

void sql_spill_free(sql_spill *s)
{
	if (!s)
		return;
	if (s->f)
		fclose(s->f);
	free(s->buf);
	free(s);
}

void sql_spill_put(sql_spill *s, const ty_datum *row, const ty_oid *types, int n)
{
	for (int i = 0; i < n; i++) {
		const ty_datum *d = &row[i];
		const ty_type *t = ty_type_get(types[i]);
		uint8_t tag = d->null ? 0 : (t && t->byval) ? 1 : 2;
		if (fwrite(&tag, 1, 1, s->f) != 1)
			io_fail("write");
		if (tag == 1) {
			if (fwrite(&d->i, 8, 1, s->f) != 1)
				io_fail("write");
			s->bytes += 9;
		} else if (tag == 2) {
			uint32_t len = d->len;
			if (fwrite(&len, 4, 1, s->f) != 1 || (len && fwrite(d->p, len, 1, s->f) != 1))
				io_fail("write");
			s->bytes += 5 + len;
		} else {
			s->bytes++;
		}
	}
	s->rows++;
}

void sql_spill_rewind(sql_spill *s)
{
	if (fflush(s->f) != 0)
		io_fail("write");
	rewind(s->f);
}

bool sql_spill_get(sql_spill *s, ty_datum *row, int n)
{
	for (int i = 0; i < n; i++) {
		uint8_t tag;
		if (fread(&tag, 1, 1, s->f) != 1) {
			if (i == 0 && feof(s->f))
				return false;
			io_fail("read");
		}
		ty_datum d = ty_null();
		if (tag == 1) {
			d.null = false;
			if (fread(&d.i, 8, 1, s->f) != 1)
				io_fail("read");
		} else if (tag == 2) {
			uint32_t len;
			if (fread(&len, 4, 1, s->f) != 1)
				io_fail("read");
			void *p = ty_alloc(len ? len : 1);
			if (len && fread(p, len, 1, s->f) != 1)
				io_fail("read");
			d.null = false;
			d.p = p;
			d.len = len;
		}
		row[i] = d;
	}
	return true;
}

uint64_t sql_spill_rows(const sql_spill *s) { return s->rows; }
uint64_t sql_spill_bytes(const sql_spill *s) { return s->bytes; }
