/*
 * copy.c — COPY FROM STDIN / TO STDOUT in PostgreSQL's text and csv
 * formats (HEADER, DELIMITER, NULL, QUOTE, ESCAPE, FORCE_QUOTE,
 * FORCE_NOT_NULL) and its binary format (the types' send/receive
 * functions), COPY (query) TO STDOUT, and server files for
 * superusers. Bad data reports the line (22P04, 22P02 ...) and loads
 * nothing. In autocommit the load writes rows straight into the commit
 * batch (no per-row transaction bookkeeping): one atomic batch per COPY.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy_par.h"
#include "copy_sort.h"
#include "ddl_int.h"
#include "ops.h"
#include "sql_index.h"
#include "sql_int.h"

static const char *str_of(pnode *n) { return n && n->node_case == PG_QUERY__NODE__NODE_STRING ? n->string->sval : NULL; }

typedef struct copy_opts {
	sql_copy_format fmt;
	char delim;
	char quote;
	char escape;
	const char *null_str;
	size_t null_len;
	bool header;
	bool freeze;
	bool *force_quote;     /* per output column */
	bool force_quote_all;
	bool *force_not_null;  /* per input column */
	char **fq_names, **fnn_names;
	int nfq, nfnn;
} copy_opts;

/* The value of an option that takes a string, as PostgreSQL's defGetString:
 * numbers and keywords spelled as text, no value at all 42601. */
static const char *opt_str(PgQuery__DefElem *d)
{
	if (!d->arg)
		ty_error(UTIL_E_SYNTAX_ERROR, "%s requires a parameter", d->defname);
	if (d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER)
		return ty_output_cstring(TY_INT4, ty_int(d->arg->integer->ival));
	if (d->arg->node_case == PG_QUERY__NODE__NODE_FLOAT)
		return d->arg->float_->fval;
	if (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN)
		return d->arg->boolean->boolval ? "true" : "false";
	const char *v = str_of(d->arg);
	if (!v)
		ty_error(UTIL_E_SYNTAX_ERROR, "%s requires a parameter", d->defname);
	return v;
}

static char opt_char(PgQuery__DefElem *d, const char *what)
{
	const char *v = opt_str(d);
	if (!v || strlen(v) != 1)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY %s must be a single one-byte character", what);
	return v[0];
}

static void parse_opts(PgQuery__CopyStmt *st, copy_opts *o)
{
	memset(o, 0, sizeof *o);
	o->fmt = SQL_COPY_TEXT;
	bool has_delim = false, has_null = false;
	for (size_t i = 0; i < st->n_options; i++) {
		PgQuery__DefElem *d = st->options[i]->def_elem;
		const char *n = d->defname;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(st->options[k]->def_elem->defname, n))
				ty_error(UTIL_E_SYNTAX_ERROR, "conflicting or redundant options");
		if (!strcmp(n, "format")) {
			const char *v = opt_str(d);
			if (!strcmp(v, "text"))
				o->fmt = SQL_COPY_TEXT;
			else if (!strcmp(v, "csv"))
				o->fmt = SQL_COPY_CSV;
			else if (!strcmp(v, "binary"))
				o->fmt = SQL_COPY_BINARY;
			else
				ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "COPY format \"%s\" not recognized", v);
		} else if (!strcmp(n, "delimiter")) {
			o->delim = opt_char(d, "delimiter");
			has_delim = true;
		} else if (!strcmp(n, "null")) {
			o->null_str = opt_str(d);
			has_null = true;
		} else if (!strcmp(n, "header")) {
			o->header = !d->arg || (d->arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN ? d->arg->boolean->boolval
						: d->arg->node_case == PG_QUERY__NODE__NODE_INTEGER ? d->arg->integer->ival != 0
						: str_of(d->arg) && (!util_strcasecmp(str_of(d->arg), "true") || !util_strcasecmp(str_of(d->arg), "on") ||
								     !strcmp(str_of(d->arg), "1") || !util_strcasecmp(str_of(d->arg), "match")));
		} else if (!strcmp(n, "quote")) {
			o->quote = opt_char(d, "quote");
		} else if (!strcmp(n, "escape")) {
			o->escape = opt_char(d, "escape");
		} else if (!strcmp(n, "freeze")) {
			o->freeze = true;
		} else if (!strcmp(n, "force_quote")) {
			if (d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_A_STAR)
				o->force_quote_all = true;
			else if (d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_LIST) {
				PgQuery__List *l = d->arg->list;
				o->nfq = (int)l->n_items;
				o->fq_names = ty_alloc(sizeof(char *) * (l->n_items ? l->n_items : 1));
				for (size_t k = 0; k < l->n_items; k++)
					o->fq_names[k] = (char *)str_of(l->items[k]);
			}
		} else if (!strcmp(n, "force_not_null")) {
			if (d->arg && d->arg->node_case == PG_QUERY__NODE__NODE_LIST) {
				PgQuery__List *l = d->arg->list;
				o->nfnn = (int)l->n_items;
				o->fnn_names = ty_alloc(sizeof(char *) * (l->n_items ? l->n_items : 1));
				for (size_t k = 0; k < l->n_items; k++)
					o->fnn_names[k] = (char *)str_of(l->items[k]);
			}
		} else if (!strcmp(n, "encoding")) {
			const char *v = str_of(d->arg);
			if (v && util_strcasecmp(v, "utf8") && util_strcasecmp(v, "utf-8") && util_strcasecmp(v, "sql_ascii"))
				ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY encoding \"%s\" is not supported", v);
		} else if (!strcmp(n, "oids")) {
			ty_error(UTIL_E_SYNTAX_ERROR, "COPY with OIDS is not supported");
		} else {
			ty_error(UTIL_E_SYNTAX_ERROR, "option \"%s\" not recognized", n);
		}
	}
	bool csv = o->fmt == SQL_COPY_CSV;
	/* Binary mode refuses the text options, in PostgreSQL's order. */
	if (o->fmt == SQL_COPY_BINARY) {
		if (has_delim)
			ty_error(UTIL_E_SYNTAX_ERROR, "cannot specify DELIMITER in BINARY mode");
		if (has_null)
			ty_error(UTIL_E_SYNTAX_ERROR, "cannot specify NULL in BINARY mode");
		if (o->header)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot specify HEADER in BINARY mode");
		if (o->quote)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY quote available only in CSV mode");
		if (o->escape)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY escape available only in CSV mode");
		if (o->force_quote_all || o->nfq)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY force quote available only in CSV mode");
		if (o->nfnn)
			ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
				 "COPY force not null available only in CSV mode");
	}
	if (!has_delim)
		o->delim = csv ? ',' : '\t';
	if (!has_null)
		o->null_str = csv ? "" : "\\N";
	o->null_len = strlen(o->null_str);
	if (!o->quote)
		o->quote = '"';
	if (!o->escape)
		o->escape = o->quote;
	if (!csv && (o->quote != '"' || o->escape != '"'))
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY quote available only in CSV mode");
	if (o->delim == '\r' || o->delim == '\n')
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "COPY delimiter cannot be newline or carriage return");
	if (!csv && (o->delim == '\\' || (o->delim >= 'a' && o->delim <= 'z') || (o->delim >= '0' && o->delim <= '9') || o->delim == '.'))
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "COPY delimiter cannot be \"%c\"", o->delim);
	if (csv && o->delim == o->quote)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "COPY delimiter and quote must be different");
}

/* ---------------------------------------------------------------- input reading */

typedef struct copy_in {
	sql_session *s;
	FILE *file;         /* server file, or NULL for STDIN */
	const uint8_t *chunk;
	size_t chunk_len, chunk_pos;
	bool eof;
	util_buf line;
	util_buf field; /* scratch for split_text/split_csv; kept here so an error frees it */
	int64_t lineno;
} copy_in;

/* Next byte of input, -1 at the end. */
static int next_byte(copy_in *ci)
{
	if (ci->chunk_pos < ci->chunk_len)
		return ci->chunk[ci->chunk_pos++];
	if (ci->eof)
		return -1;
	if (ci->file) {
		int c = fgetc(ci->file);
		if (c == EOF)
			ci->eof = true;
		return c == EOF ? -1 : c;
	}
	const uint8_t *data;
	size_t len;
	util_err err;
	util_err_clear(&err);
	for (;;) {
		int r = ci->s->client.copy_in_read(ci->s->client.arg, &data, &len, &err);
		if (r < 0)
			ty_throw(&err);
		if (r == 0) {
			ci->eof = true;
			return -1;
		}
		if (len)
			break;
	}
	ci->chunk = data;
	ci->chunk_len = len;
	ci->chunk_pos = 1;
	return data[0];
}

/* Reads one raw line (without the newline), appending it to out; false at
 * the end. CSV lines may contain newlines inside quotes. */
static bool read_line_into(copy_in *ci, const copy_opts *o, util_buf *out)
{
	bool in_quote = false;
	bool any = false;
	const uint8_t q = (uint8_t)o->quote, e = (uint8_t)o->escape;
	for (;;) {
		/* The bytes of the received chunk up to the next one that needs a
		 * look (line end, backslash, quote, escape) in one append rather
		 * than a util_buf_putc per byte. */
		if (ci->chunk_pos < ci->chunk_len) {
			const uint8_t *p = ci->chunk + ci->chunk_pos, *end = ci->chunk + ci->chunk_len, *x = p;
			if (o->fmt == SQL_COPY_CSV)
				while (x < end && *x != '\n' && *x != '\r' && *x != q && *x != e)
					x++;
			else
				while (x < end && *x != '\n' && *x != '\r' && *x != '\\')
					x++;
			if (x > p) {
				util_buf_append(out, p, (size_t)(x - p));
				ci->chunk_pos += (size_t)(x - p);
				any = true;
				continue;
			}
		}
		int c = next_byte(ci);
		if (c < 0)
			return any;
		any = true;
		if (o->fmt == SQL_COPY_CSV) {
			if (in_quote && c == o->escape && o->escape != o->quote) {
				util_buf_putc(out, (char)c);
				int d = next_byte(ci);
				if (d >= 0)
					util_buf_putc(out, (char)d);
				continue;
			}
			if (c == o->quote) {
				in_quote = !in_quote;
				util_buf_putc(out, (char)c);
				continue;
			}
		} else if (c == '\\') {
			util_buf_putc(out, (char)c);
			int d = next_byte(ci);
			if (d < 0)
				return true;
			util_buf_putc(out, (char)d);
			continue;
		}
		if (!in_quote && (c == '\n' || c == '\r')) {
			if (c == '\r') {
				int d = next_byte(ci);
				if (d >= 0 && d != '\n')
					ci->chunk_pos--; /* not CRLF: give it back (same chunk) */
			}
			return true;
		}
		util_buf_putc(out, (char)c);
	}
}

/* Reads one raw line into ci->line; false at the end. */
static bool read_line(copy_in *ci, const copy_opts *o)
{
	util_buf_reset(&ci->line);
	return read_line_into(ci, o, &ci->line);
}

static UTIL_NORETURN void bad_copy(copy_in *ci, const char *table, util_errcode code, const char *msg)
{
	util_err *e = ty_errstart(code, "%s", msg);
	util_err_context(e, "COPY %s, line %lld", table, (long long)ci->lineno);
	ty_errthrow();
}

/* Splits a text-format line into fields, unescaping; NULL marks SQL NULL. */
static int split_text(copy_in *ci, const copy_opts *o, const char *table, char **fields, size_t *lens, int max)
{
	const char *p = ci->line.data ? ci->line.data : "", *end = p + ci->line.len;
	int n = 0;
	util_buf *f = &ci->field;
	for (;;) {
		const char *start = p;
		/* A field without a backslash is its raw bytes: found with one
		 * scan and copied once, not a byte at a time through the field
		 * buffer (a capacity check and a NUL store per byte). */
		while (p < end && *p != o->delim && *p != '\\')
			p++;
		bool plain = p == end || *p == o->delim;
		util_buf_reset(f);
		if (!plain)
			util_buf_append(f, start, (size_t)(p - start));
		while (p < end && *p != o->delim) {
			if (*p == '\\' && p + 1 < end) {
				p++;
				char c = *p++;
				switch (c) {
				case 'b': util_buf_putc(f, '\b'); break;
				case 'f': util_buf_putc(f, '\f'); break;
				case 'n': util_buf_putc(f, '\n'); break;
				case 'r': util_buf_putc(f, '\r'); break;
				case 't': util_buf_putc(f, '\t'); break;
				case 'v': util_buf_putc(f, '\v'); break;
				case 'x': {
					int v = 0, k = 0;
					while (k < 2 && p < end && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))) {
						v = v * 16 + (*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10);
						p++;
						k++;
					}
					if (k)
						util_buf_putc(f, (char)v);
					else
						util_buf_putc(f, 'x');
					break;
				}
				default:
					if (c >= '0' && c <= '7') {
						int v = c - '0', k = 1;
						while (k < 3 && p < end && *p >= '0' && *p <= '7') {
							v = v * 8 + (*p++ - '0');
							k++;
						}
						util_buf_putc(f, (char)v);
					} else {
						util_buf_putc(f, c);
					}
				}
			} else {
				util_buf_putc(f, *p++);
			}
		}
		size_t rawlen = (size_t)(p - start);
		bool raw_null = rawlen == o->null_len && memcmp(start, o->null_str, rawlen) == 0;
		if (n >= max)
			bad_copy(ci, table, UTIL_E_BAD_COPY_FILE_FORMAT, "extra data after last expected column");
		if (raw_null) {
			fields[n] = NULL;
			lens[n] = 0;
		} else if (plain) {
			fields[n] = ty_strndup(start, rawlen);
			lens[n] = rawlen;
		} else {
			fields[n] = ty_strndup(f->data ? f->data : "", f->len);
			lens[n] = f->len;
		}
		n++;
		if (p >= end)
			break;
		p++; /* delimiter */
	}
	return n;
}

static int split_csv(copy_in *ci, const copy_opts *o, const char *table, char **fields, size_t *lens, int max,
		     bool *quoted)
{
	const char *p = ci->line.data ? ci->line.data : "", *end = p + ci->line.len;
	int n = 0;
	util_buf *f = &ci->field;
	for (;;) {
		util_buf_reset(f);
		bool was_quoted = false;
		const char *start = p;
		while (p < end && *p != o->delim) {
			if (*p == o->quote) {
				was_quoted = true;
				p++;
				for (;;) {
					if (p >= end)
						bad_copy(ci, table, UTIL_E_BAD_COPY_FILE_FORMAT, "unterminated CSV quoted field");
					if (*p == o->escape && p + 1 < end && p[1] == o->quote) {
						util_buf_putc(f, o->quote);
						p += 2;
						continue;
					}
					if (*p == o->escape && o->escape != o->quote && p + 1 < end && p[1] == o->escape) {
						util_buf_putc(f, o->escape);
						p += 2;
						continue;
					}
					if (*p == o->quote) {
						p++;
						break;
					}
					util_buf_putc(f, *p++);
				}
			} else {
				util_buf_putc(f, *p++);
			}
		}
		if (n >= max)
			bad_copy(ci, table, UTIL_E_BAD_COPY_FILE_FORMAT, "extra data after last expected column");
		size_t rawlen = (size_t)(p - start);
		bool is_null = !was_quoted && rawlen == o->null_len && memcmp(start, o->null_str, rawlen) == 0;
		quoted[n] = was_quoted;
		if (is_null) {
			fields[n] = NULL;
			lens[n] = 0;
		} else {
			fields[n] = ty_strndup(f->data ? f->data : "", f->len);
			lens[n] = f->len;
		}
		n++;
		if (p >= end)
			break;
		p++;
	}
	return n;
}

/* ---------------------------------------------------------------- binary input */

/* PostgreSQL's binary COPY file (docs/wire.md): the signature, an int32 flags
 * word, an int32 header extension length and its bytes; then per tuple an
 * int16 field count and per field an int32 length (-1 NULL) and the type's
 * binary send form; the trailer is a field count of -1. */
static const uint8_t copy_bin_sig[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n', 0};

/* Reads up to n bytes; returns how many arrived before the end of input. */
static size_t read_bytes(copy_in *ci, uint8_t *out, size_t n)
{
	size_t got = 0;
	while (got < n) {
		if (ci->chunk_pos < ci->chunk_len) {
			size_t k = ci->chunk_len - ci->chunk_pos;
			if (k > n - got)
				k = n - got;
			memcpy(out + got, ci->chunk + ci->chunk_pos, k);
			ci->chunk_pos += k;
			got += k;
			continue;
		}
		int c = next_byte(ci); /* refills the chunk */
		if (c < 0)
			break;
		out[got++] = (uint8_t)c;
	}
	return got;
}

static bool read_be32(copy_in *ci, int32_t *v)
{
	uint8_t b[4];
	if (read_bytes(ci, b, 4) != 4)
		return false;
	*v = (int32_t)util_get_be32(b);
	return true;
}

static UTIL_NORETURN void bad_header(const char *msg)
{
	ty_error(UTIL_E_BAD_COPY_FILE_FORMAT, "%s", msg);
}

/* The file header. As PostgreSQL, its errors carry no COPY context line. */
static void read_bin_header(copy_in *ci)
{
	uint8_t sig[sizeof copy_bin_sig];
	if (read_bytes(ci, sig, sizeof sig) != sizeof sig || memcmp(sig, copy_bin_sig, sizeof sig) != 0)
		bad_header("COPY file signature not recognized");
	int32_t flags, ext;
	if (!read_be32(ci, &flags))
		bad_header("invalid COPY file header (missing flags)");
	if (flags & (1 << 16))
		bad_header("invalid COPY file header (WITH OIDS)");
	if (((uint32_t)flags & ~(1u << 16)) >> 16)
		bad_header("unrecognized critical flags in COPY file header");
	if (!read_be32(ci, &ext) || ext < 0)
		bad_header("invalid COPY file header (missing length)");
	for (; ext > 0; ext--) {
		uint8_t skip;
		if (read_bytes(ci, &skip, 1) != 1)
			bad_header("invalid COPY file header (wrong length)");
	}
}

/* Reads one field's bytes into ci->field, growing it only as data arrives
 * (a length word alone never makes us allocate). */
static bool read_bin_field(copy_in *ci, size_t len)
{
	util_buf *f = &ci->field;
	util_buf_reset(f);
	while (f->len < len) {
		size_t want = len - f->len;
		if (want > 65536)
			want = 65536;
		util_buf_reserve(f, want);
		size_t got = read_bytes(ci, (uint8_t *)f->data + f->len, want);
		f->len += got;
		if (got < want)
			return false;
	}
	return true;
}

/* Reads one tuple into vals (the listed columns; the others stay NULL).
 * Returns false at the trailer or at the end of input (PostgreSQL accepts
 * a file without the trailer). */
static bool read_bin_row(copy_in *ci, const cat_rel *r, const int *cols, int ncols, ty_datum *vals)
{
	ci->lineno++;
	uint8_t b[2];
	if (read_bytes(ci, b, 2) != 2)
		return false;
	int16_t nf = (int16_t)util_get_be16(b);
	if (nf == -1) {
		/* The trailer must be the last thing in the data. */
		if (read_bytes(ci, b, 1) > 0)
			bad_copy(ci, r->name, UTIL_E_BAD_COPY_FILE_FORMAT,
				 "received copy data after EOF marker");
		return false;
	}
	if (nf != ncols) {
		char msg[96];
		snprintf(msg, sizeof msg, "row field count is %d, expected %d", nf, ncols);
		bad_copy(ci, r->name, UTIL_E_BAD_COPY_FILE_FORMAT, msg);
	}
	for (int i = 0; i < r->ncols; i++)
		vals[i] = ty_null();
	for (int i = 0; i < ncols; i++) {
		const cat_column *col = &r->cols[cols[i]];
		TY_TRY(tf)
		{
			int32_t len;
			if (!read_be32(ci, &len))
				ty_error(UTIL_E_BAD_COPY_FILE_FORMAT, "unexpected EOF in COPY data");
			if (len < -1)
				ty_error(UTIL_E_BAD_COPY_FILE_FORMAT, "invalid field size");
			if (len >= 0) {
				if (!read_bin_field(ci, (size_t)len))
					ty_error(UTIL_E_BAD_COPY_FILE_FORMAT, "unexpected EOF in COPY data");
				const ty_type *t = ty_type_get(col->type);
				/* copy_from checked the type has a receive function */
				vals[cols[i]] = t->recv(ci->field.len ? (const uint8_t *)ci->field.data
								      : (const uint8_t *)"",
							ci->field.len, col->typmod);
			}
		}
		TY_CATCH(tf)
		{
			TY_END(tf);
			util_err_context(ty_err(), "COPY %s, line %lld, column %s", r->name,
					 (long long)ci->lineno, col->name);
			ty_errthrow();
		}
		TY_END(tf);
	}
	return true;
}

/* ---------------------------------------------------------------- COPY FROM */

typedef struct loader {
	sql_session *s;
	const cat_obj *rel;
	kv_table *kv;
	bool bulk;             /* write straight into the commit batch */
	bool unique;           /* the table has unique indexes */
	bool lock_rows;        /* lock each key (not bulk, storage visible to others) */
	bool private_storage;  /* the table's storage was created by this transaction */
	util_buf last_parent;  /* interleaved tables: the last parent row found */
	util_map keys;         /* keys loaded by this COPY (duplicate detection) */
	util_arena *scratch;
	sql_expr **defaults;   /* per column not listed */
	sql_exec *ex;
	util_buf enc;
	util_buf key;
	sql_fk_state *fk;      /* foreign keys of the table (fk.c), or NULL */
	sql_expr **checks;     /* the table's CHECK constraints, over the row */
	const char **check_names;
	int nchecks;
	/* Straight into the table's storage (see direct_ok): rows stamped at
	 * direct_ts, in one batch that spills sorted runs and is committed at
	 * the end as sorted files (one per family after the run merge). */
	bool direct;
	kv_batch *dbatch;
	sql_rowput drow; /* the direct row's cells */
	util_buf pack;   /* the direct row's packed cells, when the parse did not pack them */
	/* The row's cells packed by the parse worker (copy_parse.pack), or NULL. */
	const uint8_t *packed;
	size_t packed_len;
	kv_ts direct_ts;
	uint64_t direct_rows;
	/* Autocommit into a table with a primary key: rows collected, sorted
	 * and checked per flush (copy_sort.c). */
	sql_copy_sort *sorted;
} loader;

/* Rows collected (sql_copy_sort_bytes) before a sorted flush; the row
 * arena's one block leaves room for what parsing allocates besides. */
#define SORTED_FLUSH_BYTES (40u << 20)
#define SORTED_ARENA_BYTES (72u << 20)

/*
 * A load into storage this transaction created (CREATE TABLE or TRUNCATE
 * in the same transaction block) need not pass through the transaction's
 * write set: as ALTER TABLE's rewrite does (ddl_rewrite.c), the rows go
 * straight into the storage at the transaction's read timestamp, so its
 * later statements see them. Nobody else can: the storage is private until
 * the commit that names it, an abort drops it, and a crash leaves it
 * unreferenced (cat_open drops it). So a failed COPY leaves nothing
 * visible either, because it fails the whole transaction. Not under a
 * savepoint (ROLLBACK TO could not take the rows back), and only where no
 * key lookups are needed: a generated row key (no primary key), no
 * indexes, no foreign keys, not interleaved. On a shared store (etcd) the
 * rows go in bounded batches (SQL_SHARED_BATCH_CELLS: each one etcd
 * transaction, within its limits), and only under READ COMMITTED: a read
 * there sees what was committed before its read point, so the statements
 * after the COPY (each its own read point) see the rows, while a REPEATABLE
 * READ snapshot taken before would not.
 */
static bool direct_ok(const loader *ld)
{
	const sql_txn *t = ld->s->txn;
	const cat_rel *r = &ld->rel->rel;
	return !ld->bulk && ld->private_storage &&
	       (!ld->s->e->opts.store_uri || t->iso == SQL_READ_COMMITTED) && !t->savepoints && r->npk == 0 &&
	       r->nindexes == 0 && !r->ilv_depth && !r->ilv_nchildren && !ld->fk && !ld->unique;
}

static void direct_flush(loader *ld)
{
	if (!ld->dbatch || kv_batch_count(ld->dbatch) == 0)
		return;
	/* The commit of the transaction makes the files part of the table;
	 * an ingest syncs its own files. */
	kv_write_opts wo = {.no_sync = true, .ingest = true};
	kv_status st = kv_commit(ld->s->e->kv, ld->dbatch, &wo, NULL);
	if (st != KV_OK)
		sql_kv_error(st, "writing a table");
	kv_batch_clear(ld->dbatch);
}

/* One row of a direct load: its cells in key order (sentinel first), so a
 * batch of ascending generated keys is a single sorted run. */
static void direct_row(loader *ld, const uint8_t *k, size_t kl, const ty_datum *vals)
{
	const cat_rel *r = &ld->rel->rel;
	if (!ld->dbatch)
		ld->dbatch = kv_batch_new();
	if (kv_batch_count(ld->dbatch) == 0)
		kv_batch_sorted(ld->dbatch); /* generated keys ascend: straight to a sorted file */
	ld->drow.packed = r->packed;         /* a packed table's row: the sentinel alone */
	if (ld->packed) {
		sql_rowput_unpack(&ld->drow, ld->packed, ld->packed_len);
	} else {
		util_buf_reset(&ld->pack);
		sql_rowput_pack(r, vals, &ld->pack);
		sql_rowput_unpack(&ld->drow, (const uint8_t *)ld->pack.data, ld->pack.len);
	}
	sql_rowput_write(&ld->drow, ld->dbatch, ld->kv, k, kl, ld->direct_ts);
	ld->direct_rows++;
	if (ld->s->e->opts.store_uri && kv_batch_count(ld->dbatch) >= SQL_SHARED_BATCH_CELLS)
		direct_flush(ld);
}

static UTIL_NORETURN void dup_key(loader *ld, const ty_datum *vals, copy_in *ci)
{
	sql_copy_dup_key(ld->s, &ld->rel->rel, vals, ci->lineno);
}

static bool key_exists(loader *ld, const uint8_t *k, size_t kl)
{
	if (ld->bulk && util_map_get(&ld->keys, k, kl))
		return true;
	sql_txn *t = ld->s->txn;
	sql_wrow *w = sql_txn_lookup(t, ld->rel->oid, k, kl, false);
	if (w)
		return w->present;
	if (ld->private_storage)
		return false; /* created by this transaction: the store has nothing */
	kv_read_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.read_ts = KV_TS_MAX;
	kv_row row;
	util_arena_reset(ld->scratch);
	kv_status st;
	if (ld->rel->rel.ilv_depth) {
		size_t qpre;
		st = sql_row_get(ld->kv, &ld->rel->rel, k, kl, &ro, ld->scratch, &row, &qpre);
		if (st != KV_OK && st != KV_NOT_FOUND)
			sql_kv_error(st, "reading a row");
		for (size_t i = 0; st == KV_OK && i < row.n; i++)
			if (row.cells[i].qualifier.len == qpre)
				return true; /* the row's sentinel */
		return false;
	}
	kv_column sentinel = {SQL_FAMILY, "", 0};
	ro.columns = &sentinel;
	ro.ncolumns = 1;
	st = kv_get(ld->kv, k, kl, &ro, ld->scratch, &row);
	if (st != KV_OK && st != KV_NOT_FOUND)
		sql_kv_error(st, "reading a row");
	return st == KV_OK && row.n > 0;
}

/* "(v1, v2, ...)" of a row for an error's "Failing row contains". */
static void failing_row(const cat_rel *r, const ty_datum *vals, util_buf *row)
{
	util_buf_putc(row, '(');
	bool first = true;
	for (int k = 0; k < r->ncols; k++) {
		if (r->cols[k].dropped)
			continue;
		if (!first)
			util_buf_puts(row, ", ");
		first = false;
		if (vals[k].null)
			util_buf_puts(row, "null");
		else
			ty_output(r->cols[k].type, vals[k], row);
	}
	util_buf_putc(row, ')');
}

static void load_row(loader *ld, ty_datum *vals, copy_in *ci)
{
	const cat_rel *r = &ld->rel->rel;
	sql_txn *t = ld->s->txn;
	for (int c = 0; c < r->ncols; c++)
		if (!r->cols[c].dropped && r->cols[c].notnull && vals[c].null) {
			util_buf row = UTIL_BUF_INIT;
			failing_row(r, vals, &row);
			util_err *e = ty_errstart(UTIL_E_NOT_NULL_VIOLATION,
						  "null value in column \"%s\" of relation \"%s\" violates not-null constraint",
						  r->cols[c].name, r->name);
			util_err_detail(e, "Failing row contains %s.", row.data);
			/* The caller adds "COPY t, line N: ..." as PostgreSQL. */
			const char *sn = sql_schema_name(ld->s->cat, r->schema);
			if (sn)
				util_err_field(e->schema, sn);
			util_err_field(e->table, r->name);
			util_err_field(e->column, r->cols[c].name);
			util_buf_free(&row);
			ty_errthrow();
		}
	/* CHECK constraints, as INSERT checks them (NULL passes). */
	for (int i = 0; i < ld->nchecks; i++) {
		ty_datum d = sql_eval(ld->ex, ld->checks[i], vals);
		if (d.null || d.i)
			continue;
		util_buf row = UTIL_BUF_INIT;
		failing_row(r, vals, &row);
		util_err *e = ty_errstart(UTIL_E_CHECK_VIOLATION,
					  "new row for relation \"%s\" violates check constraint \"%s\"", r->name,
					  ld->check_names[i]);
		util_err_detail(e, "Failing row contains %s.", row.data);
		util_buf_free(&row);
		const char *sn = sql_schema_name(ld->s->cat, r->schema);
		if (sn)
			util_err_field(e->schema, sn);
		util_err_field(e->table, r->name);
		util_err_field(e->constraint, ld->check_names[i]);
		ty_errthrow();
	}
	if (r->ilv_depth)
		sql_ilv_check_parent(t, ld->s->cat, ld->kv, ld->rel, vals, &ld->last_parent);
	util_buf_reset(&ld->key);
	sql_row_key(r, vals, &ld->key);
	const uint8_t *k = (const uint8_t *)ld->key.data;
	size_t kl = ld->key.len;
	if (ld->sorted) {
		/* Checked and written at the flush; foreign keys now, as below
		 * (in a block: at the flush, copy_sort.c). */
		if (ld->fk && ld->bulk) {
			vals[r->ncols] = ty_bytes(k, kl);
			sql_fk_row(ld->fk, NULL, vals);
		}
		sql_copy_sort_add(ld->sorted, k, kl, vals, ci->lineno);
		return;
	}
	if (r->npk) {
		/* In a transaction block, serialise with concurrent inserts of the
		 * key as INSERT does (autocommit COPY relies on its commit check). */
		if (ld->lock_rows)
			sql_txn_lock_row(t, ld->rel->oid, k, kl, PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORUPDATE,
					 PG_QUERY__LOCK_WAIT_POLICY__LockWaitBlock, NULL);
		if (key_exists(ld, k, kl))
			dup_key(ld, vals, ci);
		if (ld->bulk) /* bulk rows are not in the transaction's write set */
			util_map_put(&ld->keys, k, kl, (void *)1);
	}
	if (ld->fk) {
		vals[r->ncols] = ty_bytes(k, kl);
		sql_fk_row(ld->fk, NULL, vals);
	}
	if (ld->unique) {
		/* Unique indexes (index_write.c): the row with its key. */
		ty_datum *row = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
		memcpy(row, vals, sizeof(ty_datum) * (size_t)r->ncols);
		row[r->ncols] = ty_bytes(k, kl);
		TY_TRY(tc) { sql_index_unique_check(ld->s, ld->rel, row, NULL, 0, false, NULL, NULL); }
		TY_CATCH(tc)
		{
			TY_END(tc);
			util_err_context(ty_err(), "COPY %s, line %lld", r->name, (long long)ci->lineno);
			ty_errthrow();
		}
		TY_END(tc);
	}
	if (ld->direct) {
		direct_row(ld, k, kl, vals);
		return;
	}
	if (!ld->bulk) {
		sql_txn_put_row(t, ld->rel, ld->kv, k, kl, vals, NULL, true, false);
		return;
	}
	sql_txn_bulk_row(t, ld->rel, ld->kv, k, kl, vals);
}

/* Starts a row's allocations. The sorted path keeps the rows of a flush
 * in the row arena (each with its own value array) and resets it only
 * after flushing them; otherwise the arena holds one row. A flush ends at
 * a block of 1000 rows (loaded: the rows before this one), PostgreSQL's
 * COPY buffer, so that a bad row after it cannot be in a block whose
 * duplicate was already reported. A transaction block flushes every
 * block (its rows are checked and written one by one, copy_sort.c). */
static void next_row(loader *ld, util_arena *rowa, ty_datum **vals, int ncols, uint64_t loaded)
{
	if (ld->sorted && loaded % 1000 == 0 && sql_copy_sort_pending(ld->sorted) &&
	    (!ld->bulk || sql_copy_sort_bytes(ld->sorted) >= SORTED_FLUSH_BYTES)) {
		ty_set_arena(rowa);
		sql_copy_sort_flush(ld->sorted);
	}
	if (!ld->sorted || !sql_copy_sort_pending(ld->sorted))
		util_arena_reset(rowa);
	ty_set_arena(rowa);
	if (ld->sorted)
		*vals = ty_alloc(sizeof(ty_datum) * (size_t)(ncols + 1));
}

/* ---------------------------------------------------------------- one line */

/* What parsing a text or csv line needs; read-only during the COPY, so
 * the pipeline's workers share it (copy_par.c). */
typedef struct copy_parse {
	const copy_opts *o;
	const cat_rel *r;
	const int *cols; /* the listed columns */
	int ncols;
	const bool *fnn; /* FORCE_NOT_NULL per listed column */
	/* A direct load whose parsed values are final (no defaults to add):
	 * the parse packs each row's cells too (sql_rowput_pack), so the
	 * encoding runs on the workers, not on the connection thread. */
	bool pack;
} copy_parse;

/* As PostgreSQL: the whole line must be valid UTF-8 (22021) before any
 * field is looked at. */
static void check_utf8(const char *table, int64_t lineno, const char *line, size_t len)
{
	if (ty_str_valid_utf8_prefix(line ? line : "", len) == len)
		return;
	TY_TRY(tu) { ty_str_verify_utf8(line, len); }
	TY_CATCH(tu)
	{
		TY_END(tu);
		util_err_context(ty_err(), "COPY %s, line %lld", table, (long long)lineno);
		ty_errthrow();
	}
	TY_END(tu);
}

/* Splits ci->line and runs the listed columns' type input into vals (the
 * table's columns; the others NULL). fields, lens and quoted: scratch of
 * cp->ncols + 1 entries. */
static void parse_fields(copy_in *ci, const copy_parse *cp, char **fields, size_t *lens, bool *quoted, ty_datum *vals)
{
	const copy_opts *o = cp->o;
	const cat_rel *r = cp->r;
	const int *cols = cp->cols;
	int ncols = cp->ncols;
	int nf = o->fmt == SQL_COPY_CSV ? split_csv(ci, o, r->name, fields, lens, ncols, quoted)
					: split_text(ci, o, r->name, fields, lens, ncols);
	if (ncols == 0 && nf == 1 && fields[0] && lens[0] == 0)
		nf = 0;
	if (nf < ncols) {
		char msg[256];
		snprintf(msg, sizeof msg, "missing data for column \"%s\"", r->cols[cols[nf]].name);
		bad_copy(ci, r->name, UTIL_E_BAD_COPY_FILE_FORMAT, msg);
	}
	for (int i = 0; i < r->ncols; i++)
		vals[i] = ty_null();
	/* One handler for the row, not one per field (a push, a sigsetjmp
	 * and a pop each); cur names the field being read for the message. */
	volatile int cur = 0;
	TY_TRY(tv)
	{
		for (int i = 0; i < ncols; i++) {
			cur = i;
			int col = cols[i];
			const char *fv = fields[i];
			if (!fv && cp->fnn[i])
				fv = o->null_str;
			if (!fv)
				continue;
			vals[col] = ty_input(r->cols[col].type, fv, fv == o->null_str ? o->null_len : lens[i],
					     r->cols[col].typmod);
		}
	}
	TY_CATCH(tv)
	{
		TY_END(tv);
		int i = cur, col = cols[i];
		const char *fv = fields[i] ? fields[i] : o->null_str;
		util_err_context(ty_err(), "COPY %s, line %lld, column %s: \"%.*s\"", r->name,
				 (long long)ci->lineno, r->cols[col].name,
				 (int)(lens[i] > 100 ? 100 : lens[i]), fv);
		ty_errthrow();
	}
	TY_END(tv);
}

/* The ordered part of a row: defaults, then load_row. Errors of a row
 * (defaults, constraints) name the line, as PostgreSQL (binary data is
 * not shown). */
static void finish_row(loader *ld, ty_datum *vals, copy_in *ci, bool binary, const char *line, size_t len)
{
	const cat_rel *r = &ld->rel->rel;
	TY_TRY(tr)
	{
		for (int i = 0; i < r->ncols; i++)
			if (ld->defaults[i])
				vals[i] = sql_eval(ld->ex, ld->defaults[i], NULL);
		load_row(ld, vals, ci);
	}
	TY_CATCH(tr)
	{
		TY_END(tr);
		if (!ty_err()->context[0] && binary)
			util_err_context(ty_err(), "COPY %s, line %lld", r->name, (long long)ci->lineno);
		else if (!ty_err()->context[0])
			util_err_context(ty_err(), "COPY %s, line %lld: \"%.*s\"", r->name, (long long)ci->lineno,
					 (int)(len > 100 ? 100 : len), line ? line : "");
		ty_errthrow();
	}
	TY_END(tr);
}

/* ---------------------------------------------------------------- the parse pipeline */

/* A chunk handed to the parsers: about this much text and row array
 * (copy_par.h; a longer line makes a longer chunk). */
#define CHUNK_BYTES SQL_COPY_CHUNK_BYTES

/* The pipeline's parse function (copy_par.h): every line of a chunk into
 * its row, on a worker thread or on the connection thread. */
static void par_parse(void *arg, sql_copy_chunk *c)
{
	const copy_parse *cp = arg;
	const cat_rel *r = cp->r;
	size_t w = (size_t)r->ncols;
	c->rows = ty_alloc(sizeof(ty_datum) * (size_t)c->nlines * (w ? w : 1));
	char **fields = ty_alloc(sizeof(char *) * (size_t)(cp->ncols + 1));
	size_t *lens = ty_alloc(sizeof(size_t) * (size_t)(cp->ncols + 1));
	bool *quoted = ty_alloc0(sizeof(bool) * (size_t)(cp->ncols + 1));
	copy_in ci;
	memset(&ci, 0, sizeof ci);
	char *text = c->text.data ? c->text.data : (char *)"";
	if (cp->pack)
		c->cell_ends = ty_alloc(sizeof(uint32_t) * (size_t)c->nlines);
	TY_TRY(t)
	{
		for (int i = 0; i < c->nlines; i++) {
			size_t st = i ? c->ends[i - 1] : 0;
			ci.line.data = text + st; /* a view: never grown nor freed */
			ci.line.len = c->ends[i] - st;
			ci.lineno = c->first_line + i;
			c->fail_early = true;
			check_utf8(r->name, ci.lineno, ci.line.data, ci.line.len);
			c->fail_early = false;
			parse_fields(&ci, cp, fields, lens, quoted, c->rows + (size_t)i * w);
			if (cp->pack) {
				sql_rowput_pack(r, c->rows + (size_t)i * w, &c->cells);
				c->cell_ends[i] = (uint32_t)c->cells.len;
			}
			c->nparsed = i + 1;
		}
	}
	TY_CATCH(t)
	{
		TY_END(t);
		util_buf_free(&ci.field);
		ty_errthrow();
	}
	TY_END(t);
	util_buf_free(&ci.field);
}

/* Reads lines into c until it holds CHUNK_BYTES; false at the end of the
 * data (end of input or the end marker). *readno counts the lines read;
 * the header line is checked and dropped here. */
static bool fill_chunk(copy_in *ci, const copy_opts *o, const cat_rel *r, sql_copy_chunk *c, bool *first,
		       int64_t *readno)
{
	/* A line costs its newline and its row in c->rows as well: short lines
	 * (empty ones, a few of many columns) would otherwise make a chunk
	 * of the whole input, its rows array many times its text. */
	size_t per_line = 1 + sizeof(ty_datum) * (size_t)r->ncols;
	while (c->text.len + (size_t)c->nlines * per_line < CHUNK_BYTES) {
		size_t start = c->text.len;
		if (!read_line_into(ci, o, &c->text))
			return false;
		++*readno;
		const char *line = c->text.data ? c->text.data + start : "";
		size_t len = c->text.len - start;
		/* The end marker, and the header, as the serial loop (the header
		 * line's UTF-8 check first: it is not parsed later). */
		if (len == 2 && line[0] == '\\' && line[1] == '.') {
			c->text.len = start;
			return false;
		}
		if (*first && o->header) {
			*first = false;
			check_utf8(r->name, *readno, line, len);
			c->text.len = start;
			continue;
		}
		*first = false;
		sql_copy_chunk_add(c, *readno);
	}
	return true;
}

/* The text/csv load through the pipeline: chunks filled while slots are
 * free, then the oldest one's rows loaded in line order. Returns the
 * number of rows loaded. byval: per table column. */
static uint64_t par_load(sql_copy_par *par, loader *ld, copy_in *ci, const copy_parse *cp, util_arena *rowa,
			 ty_datum **vals, const bool *byval, sql_progress *prog)
{
	const copy_opts *o = cp->o;
	const cat_rel *r = &ld->rel->rel;
	uint64_t n = 0;
	bool more = true, first = true;
	int64_t readno = 0;
	for (;;) {
		sql_copy_chunk *f;
		while (more && (f = sql_copy_par_slot(par)) != NULL) {
			more = fill_chunk(ci, o, r, f, &first, &readno);
			if (f->nlines)
				sql_copy_par_submit(par);
		}
		sql_copy_chunk *c = sql_copy_par_next(par);
		if (!c)
			break;
		const char *text = c->text.data ? c->text.data : "";
		for (int i = 0; i < c->nlines && i <= c->nparsed; i++) {
			ci->lineno = c->first_line + i;
			if (i == c->nparsed) {
				/* Its bad line: in the serial loop's order, after the
				 * row's start (a flush) unless the line was not UTF-8. */
				if (!c->fail_early)
					next_row(ld, rowa, vals, r->ncols, n);
				ty_throw(&c->err);
			}
			next_row(ld, rowa, vals, r->ncols, n);
			ty_datum *src = c->rows + (size_t)i * (size_t)r->ncols;
			size_t st = i ? c->ends[i - 1] : 0;
			if (cp->pack) {
				/* Final values, read in place (the chunk outlives the
				 * row), and the row's cells packed by the parse. */
				size_t cs = i ? c->cell_ends[i - 1] : 0;
				ld->packed = (const uint8_t *)c->cells.data + cs;
				ld->packed_len = c->cell_ends[i] - cs;
				finish_row(ld, src, ci, false, text + st, c->ends[i] - st);
				ld->packed = NULL;
			} else {
				for (int k = 0; k < r->ncols; k++)
					(*vals)[k] = ty_datum_copy(src[k], byval[k]);
				finish_row(ld, *vals, ci, false, text + st, c->ends[i] - st);
			}
			n++;
			if ((n & 1023) == 0) {
				ty_check_interrupts();
				sql_progress_update(prog, "loading", n, 0, 0);
			}
		}
		sql_copy_par_release(par);
	}
	return n;
}

/* Worker threads for a text/csv COPY: strata.copy_workers, -1 (the
 * default) for one less than the machine's cores (at most 4), 0 for none
 * (the serial loop). Columns whose input reads the catalog (the reg*
 * types, through the session's resolver) keep the serial loop. */
static int copy_workers(sql_session *s, const copy_opts *o, const cat_rel *r, const int *cols, int ncols)
{
	if (o->fmt == SQL_COPY_BINARY)
		return 0;
	const char *v = sql_guc_get(s, "strata.copy_workers");
	int nw = v ? atoi(v) : -1;
	if (nw < 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		nw = cpus > 1 ? (int)(cpus - 1) : 0;
		if (nw > 4)
			nw = 4;
	}
	for (int i = 0; nw > 0 && i < ncols; i++) {
		const ty_type *t = ty_type_get(r->cols[cols[i]].type);
		ty_oid base = t && t->elem && t->category == 'A' ? t->elem : r->cols[cols[i]].type;
		if (ty_is_reg_type(base))
			return 0;
	}
	return nw;
}

static void copy_from(sql_session *s, PgQuery__CopyStmt *st, const copy_opts *o, sql_complete *c)
{
	const cat_obj *rel = sql_lookup_rel(s, s->cat, st->relation, false);
	if (rel->rel.relkind != CAT_RELKIND_TABLE)
		ty_error(UTIL_E_WRONG_OBJECT_TYPE, "cannot copy to %s \"%s\"",
			 rel->rel.relkind == CAT_RELKIND_VIEW ? "view" : rel->rel.relkind == CAT_RELKIND_SEQUENCE ? "sequence" : "non-table relation",
			 rel->rel.name);
	if (s->txn->read_only)
		ty_error(UTIL_E_READ_ONLY_SQL_TRANSACTION, "cannot execute COPY FROM in a read-only transaction");
	const cat_rel *r = &rel->rel;
	sql_priv_check_rel(s, s->cat, rel, CAT_PRIV_INSERT);
	sql_rel_lock(s, rel->oid, false);
	sql_rel_check_current(s, s->cat, &rel->oid, 1);
	/* Target columns. */
	int ncols = 0;
	int *cols = ty_alloc(sizeof(int) * (size_t)(r->ncols + 1));
	if (st->n_attlist) {
		for (size_t i = 0; i < st->n_attlist; i++) {
			const char *name = str_of(st->attlist[i]);
			const cat_column *cc = cat_column_by_name(r, name);
			if (!cc)
				ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name, r->name);
			for (int k = 0; k < ncols; k++)
				if (cols[k] == cc->attnum - 1)
					ty_error(UTIL_E_DUPLICATE_COLUMN, "column \"%s\" specified more than once", name);
			cols[ncols++] = cc->attnum - 1;
		}
	} else {
		for (int i = 0; i < r->ncols; i++)
			if (!r->cols[i].dropped)
				cols[ncols++] = i;
	}
	loader ld;
	memset(&ld, 0, sizeof ld);
	ld.s = s;
	ld.rel = rel;
	/* Autocommit COPY writes directly into the commit batch. */
	ld.bulk = s->txn_state == SQL_TXN_IDLE && !s->implicit_block;
	/* A table referencing itself must see its own new rows: no bulk path,
	 * and no sorted one (its foreign-key checks run before the flush). */
	bool self_ref = false;
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'f')
			self_ref = self_ref || r->cons[i].ref_table == rel->oid;
	if (self_ref)
		ld.bulk = false;
	ld.unique = sql_index_has_unique(s, rel);
	ld.private_storage = sql_txn_storage_private(s->txn, r->storage);
	ld.lock_rows = !ld.bulk && !ld.private_storage;
	ld.direct = direct_ok(&ld);
	if (ld.direct)
		ld.direct_ts = sql_txn_read_ts(s->txn);
	if (ld.direct && !ld.direct_ts)
		ld.direct = false;
	/* Tables with a primary key load through copy_sort.c: in autocommit
	 * into the commit batch, in a transaction block into the write set
	 * (unique indexes checked per flush in both), as do tables without one
	 * in a block (their generated row ids need no check, the write set
	 * takes them per block). */
	bool sorted = (r->npk || !ld.bulk) && !r->ilv_depth && !r->ilv_nchildren && !self_ref && !ld.direct;
	/* Defaults of the columns not loaded. */
	sql_pstate ps = {.text = ""};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_actx ax = {s, s->cat, ty_get_arena(), &ps};
	ld.defaults = ty_alloc0(sizeof(sql_expr *) * (size_t)(r->ncols + 1));
	bool *listed = ty_alloc0(sizeof(bool) * (size_t)(r->ncols + 1));
	for (int i = 0; i < ncols; i++)
		listed[cols[i]] = true;
	for (int i = 0; i < r->ncols; i++)
		if (!listed[i] && !r->cols[i].dropped && r->cols[i].default_sql)
			ld.defaults[i] = sql_column_default(&ax, r, i);
	ld.checks = ty_alloc(sizeof(sql_expr *) * (size_t)(r->ncons + 1));
	ld.check_names = ty_alloc(sizeof(char *) * (size_t)(r->ncons + 1));
	for (int i = 0; i < r->ncons; i++)
		if (r->cons[i].type == 'c' && r->cons[i].check_sql) {
			ld.checks[ld.nchecks] = sql_rewrite_check_expr(s, rel, r->cons[i].check_sql, &ps);
			ld.check_names[ld.nchecks++] = r->cons[i].name;
		}
	sql_planned *pl = ty_alloc0(sizeof *pl);
	ld.ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
	ld.ex->cache = ty_alloc0(sizeof(sql_cache_slot) * (size_t)(ps.ncache + 1));
	bool *fnn = ty_alloc0(sizeof(bool) * (size_t)(ncols + 1));
	for (int i = 0; i < o->nfnn; i++) {
		bool found = false;
		for (int k = 0; k < ncols; k++)
			if (!strcmp(r->cols[cols[k]].name, o->fnn_names[i])) {
				fnn[k] = true;
				found = true;
			}
		if (!found)
			ty_error(UTIL_E_INVALID_COLUMN_REFERENCE, "FORCE_NOT_NULL column \"%s\" not referenced by COPY", o->fnn_names[i]);
	}
	/* As PostgreSQL, a column type without binary input fails before any data. */
	for (int i = 0; o->fmt == SQL_COPY_BINARY && i < ncols; i++) {
		const ty_type *t = ty_type_get(r->cols[cols[i]].type);
		if (!t || !t->recv)
			ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary input function available for type %s",
				 t ? t->name : "?");
	}
	copy_in ci;
	memset(&ci, 0, sizeof ci);
	ci.s = s;
	if (st->filename && *st->filename) {
		if (!s->superuser) {
			util_err *e = ty_errstart(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser or have privileges of the pg_read_server_files role to COPY from a file");
			util_err_hint(e, "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.");
			ty_errthrow();
		}
		ci.file = fopen(st->filename, "r");
		if (!ci.file)
			ty_error(UTIL_E_UNDEFINED_FILE, "could not open file \"%s\" for reading: %s", st->filename, strerror(errno));
	} else if (!s->client.copy_in_begin || s->client.copy_in_begin(s->client.arg, o->fmt, ncols) != 0) {
		ty_error(UTIL_E_CONNECTION_FAILURE, "could not start COPY");
	}
	/* What the error path below frees is made only now: every check
	 * above may throw. */
	ld.fk = sql_fk_begin(ld.ex, rel, SQL_CMD_INSERT);
	kv_status kst = kv_table_open(s->e->kv, r->storage, &ld.kv);
	if (kst != KV_OK) {
		if (ci.file)
			fclose(ci.file);
		sql_fk_abandon(ld.fk);
		sql_kv_error(kst, "opening a table");
	}
	ld.scratch = util_arena_new(4096, 0);
	if (sorted)
		ld.sorted = sql_copy_sort_new(s, rel, ld.kv, !ld.bulk);
	if (sorted && !ld.bulk)
		sql_copy_sort_set_fk(ld.sorted, ld.fk);
	uint64_t n = 0;
	char **fields = ty_alloc(sizeof(char *) * (size_t)(ncols + 1));
	size_t *lens = ty_alloc(sizeof(size_t) * (size_t)(ncols + 1));
	bool *quoted = ty_alloc0(sizeof(bool) * (size_t)(ncols + 1));
	ty_datum *vals = ty_alloc(sizeof(ty_datum) * (size_t)(r->ncols + 1));
	/* The sorted path's rows live in one block kept across its flushes
	 * (a fresh 64 MiB each time cost page faults). */
	util_arena *rowa = util_arena_new(sorted && ld.bulk ? SORTED_ARENA_BYTES : sorted ? 1u << 20 : 16 * 1024, 0);
	util_arena *saved = ty_get_arena();
	sql_progress *prog = sql_progress_begin(s, "copy from", r->name, true); /* strata_progress */
	copy_parse cp = {o, r, cols, ncols, fnn, ld.direct};
	for (int i = 0; i < r->ncols; i++)
		cp.pack = cp.pack && !ld.defaults[i];
	/* Text and csv parse on worker threads (copy_par.c); they start only
	 * once the input is more than one chunk. */
	bool *byval = ty_alloc(sizeof(bool) * (size_t)(r->ncols + 1));
	for (int i = 0; i < r->ncols; i++) {
		const ty_type *t = ty_type_get(r->cols[i].type);
		byval[i] = !t || t->byval;
	}
	/* (Made last before the TY_TRY below: its catch frees it.) */
	int nworkers = copy_workers(s, o, r, cols, ncols);
	sql_copy_par *volatile par = nworkers > 0 ? sql_copy_par_new(nworkers, par_parse, &cp, &s->tys) : NULL;
	TY_TRY(tc)
	{
		bool first = true;
		bool binary = o->fmt == SQL_COPY_BINARY;
		if (binary)
			read_bin_header(&ci);
		if (par)
			n = par_load(par, &ld, &ci, &cp, rowa, &vals, byval, prog);
		for (; !par;) {
			if (binary) {
				next_row(&ld, rowa, &vals, r->ncols, n);
				if (!read_bin_row(&ci, r, cols, ncols, vals))
					break;
				goto loaded;
			}
			if (!read_line(&ci, o))
				break;
			ci.lineno++;
			check_utf8(r->name, ci.lineno, ci.line.data, ci.line.len);
			if (o->fmt == SQL_COPY_TEXT && ci.line.len == 2 && ci.line.data[0] == '\\' && ci.line.data[1] == '.')
				break;
			if (o->fmt == SQL_COPY_CSV && ci.line.len == 2 && ci.line.data[0] == '\\' && ci.line.data[1] == '.')
				break;
			if (first && o->header) {
				first = false;
				continue;
			}
			first = false;
			next_row(&ld, rowa, &vals, r->ncols, n);
			parse_fields(&ci, &cp, fields, lens, quoted, vals);
		loaded:; /* a label ends at a statement; TY_TRY starts with a declaration */
			finish_row(&ld, vals, &ci, binary, ci.line.data, ci.line.len);
			n++;
			if ((n & 1023) == 0) {
				ty_check_interrupts();
				sql_progress_update(prog, "loading", n, 0, 0);
			}
		}
		sql_copy_par_free(par); /* every chunk consumed: the workers are idle */
		par = NULL;
		/* Drain the rest of the client's data after the end marker. */
		if (!ci.file)
			while (next_byte(&ci) >= 0)
				;
		if (ld.sorted)
			sql_copy_sort_flush(ld.sorted);
		if (ld.sorted && !ld.bulk) /* before the foreign-key checks below read it */
			sql_txn_compact_segments(s->txn, rel->oid);
		sql_fk_state *fk = ld.fk;
		ld.fk = NULL;
		sql_fk_end(fk);
		direct_flush(&ld);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		ty_set_arena(saved);
		util_err err;
		memcpy(&err, ty_err(), sizeof err);
		sql_copy_par_free(par); /* stops and joins the workers */
		/* A duplicate key in an earlier block of 1000 lines is the error
		 * PostgreSQL reports (copy_sort.c). */
		if (ld.sorted) {
			ty_set_arena(rowa);
			TY_TRY(tk) { sql_copy_sort_check(ld.sorted, (ci.lineno - 1) / 1000 * 1000 + 1); }
			TY_CATCH(tk) { memcpy(&err, ty_err(), sizeof err); }
			TY_END(tk);
			ty_set_arena(saved);
		}
		/* The client keeps sending CopyData until CopyDone/CopyFail: eat it. */
		if (!ci.file && !ci.eof) {
			util_err ignore;
			(void)ignore;
			TY_TRY(t2)
			{
				while (next_byte(&ci) >= 0)
					;
			}
			TY_CATCH(t2)
			{
			}
			TY_END(t2);
		}
		if (ci.file)
			fclose(ci.file);
		sql_fk_abandon(ld.fk);
		kv_batch_free(ld.dbatch);
		sql_rowput_free(&ld.drow);
		util_buf_free(&ld.pack);
		sql_copy_sort_free(ld.sorted);
		util_buf_free(&ld.enc);
		util_arena_destroy(rowa);
		util_arena_destroy(ld.scratch);
		util_map_free(&ld.keys);
		util_buf_free(&ci.line);
		util_buf_free(&ci.field);
		util_buf_free(&ld.key);
		util_buf_free(&ld.last_parent);
		kv_table_close(ld.kv);
		ty_throw(&err);
	}
	TY_END(tc);
	sql_progress_end(prog);
	ty_set_arena(saved);
	if (ci.file)
		fclose(ci.file);
	util_arena_destroy(rowa);
	util_arena_destroy(ld.scratch);
	util_map_free(&ld.keys);
	util_buf_free(&ci.line);
	util_buf_free(&ci.field);
	util_buf_free(&ld.key);
	util_buf_free(&ld.last_parent);
	kv_table_close(ld.kv);
	kv_batch_free(ld.dbatch);
	sql_rowput_free(&ld.drow);
	util_buf_free(&ld.pack);
	sql_copy_sort_free(ld.sorted);
	util_buf_free(&ld.enc);
	if (ld.direct_rows)
		sql_txn_note_direct_rows(s->txn, rel->oid, ld.direct_rows);
	snprintf(c->tag, sizeof c->tag, "COPY %llu", (unsigned long long)n);
}

/* ---------------------------------------------------------------- COPY TO */

static void out_text_field(util_buf *b, const char *v, size_t n, char delim)
{
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		switch (ch) {
		case '\\': util_buf_puts(b, "\\\\"); break;
		case '\n': util_buf_puts(b, "\\n"); break;
		case '\r': util_buf_puts(b, "\\r"); break;
		case '\t': util_buf_puts(b, delim == '\t' ? "\\t" : "\t"); break;
		case '\b': util_buf_puts(b, "\\b"); break;
		case '\f': util_buf_puts(b, "\\f"); break;
		case '\v': util_buf_puts(b, "\\v"); break;
		default:
			if (ch == delim) {
				util_buf_putc(b, '\\');
				util_buf_putc(b, ch);
			} else
				util_buf_putc(b, ch);
		}
	}
}

static void out_csv_field(util_buf *b, const char *v, size_t n, const copy_opts *o, bool force)
{
	bool q = force || n == 0 || (n == o->null_len && !memcmp(v, o->null_str, n));
	for (size_t i = 0; i < n && !q; i++)
		q = v[i] == o->delim || v[i] == o->quote || v[i] == '\n' || v[i] == '\r' || v[i] == o->escape;
	if (n == 2 && v[0] == '\\' && v[1] == '.')
		q = true;
	if (!q) {
		util_buf_append(b, v, n);
		return;
	}
	util_buf_putc(b, o->quote);
	for (size_t i = 0; i < n; i++) {
		if (v[i] == o->quote || v[i] == o->escape)
			util_buf_putc(b, o->escape);
		util_buf_putc(b, v[i]);
	}
	util_buf_putc(b, o->quote);
}

/* One binary tuple: the field count, then per field its length (-1 NULL)
 * and the type's send form. */
static void bin_row(util_buf *b, const ty_datum *row, const ty_oid *types, int ncols)
{
	util_buf_put_be16(b, (uint16_t)ncols);
	for (int i = 0; i < ncols; i++) {
		if (row[i].null) {
			util_buf_put_be32(b, 0xffffffffu);
			continue;
		}
		size_t at = b->len;
		util_buf_put_be32(b, 0);
		ty_type_get(types[i])->send(row[i], b); /* copy_to checked it exists */
		util_put_be32((uint8_t *)b->data + at, (uint32_t)(b->len - at - 4));
	}
}

/* One CopyData message (or a write to the server file). */
static void copy_out(sql_session *s, FILE *f, const util_buf *line)
{
	if (f) {
		if (fwrite(line->data, 1, line->len, f) != line->len)
			ty_error(UTIL_E_IO_ERROR, "could not write to COPY file: %s", strerror(errno));
		return;
	}
	if (s->client.copy_out_data(s->client.arg, line->data, line->len) != 0)
		ty_error(UTIL_E_CONNECTION_FAILURE, "connection to client lost");
}

static void copy_to(sql_session *s, PgQuery__CopyStmt *st, const copy_opts *o, const char *text, sql_complete *c)
{
	/* Build the query: the table's columns, or the given query. */
	char *q;
	if (st->query) {
		q = sql_deparse_stmt(st->query);
	} else {
		const cat_obj *rel = sql_lookup_rel(s, s->cat, st->relation, false);
		if (rel->rel.relkind == CAT_RELKIND_VIEW) {
			util_err *e = ty_errstart(UTIL_E_WRONG_OBJECT_TYPE, "cannot copy from view \"%s\"", rel->rel.name);
			util_err_hint(e, "Try the COPY (SELECT ...) TO variant.");
			ty_errthrow();
		}
		util_buf b = UTIL_BUF_INIT;
		util_buf_puts(&b, "SELECT ");
		if (st->n_attlist) {
			for (size_t i = 0; i < st->n_attlist; i++) {
				const char *name = str_of(st->attlist[i]);
				if (!cat_column_by_name(&rel->rel, name)) {
					util_buf_free(&b);
					ty_error(UTIL_E_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name, rel->rel.name);
				}
				if (i)
					util_buf_puts(&b, ", ");
				sql_quote_ident(name, &b);
			}
		} else {
			util_buf_puts(&b, "*");
		}
		util_buf_puts(&b, " FROM ");
		sql_quote_ident(sql_schema_name(s->cat, rel->rel.schema), &b);
		util_buf_putc(&b, '.');
		sql_quote_ident(rel->rel.name, &b);
		q = ty_strdup(b.data);
		util_buf_free(&b);
	}
	(void)text;
	util_err err;
	PgQuery__ParseResult *pr = sql_parse_text(q, &err);
	if (!pr)
		ty_throw(&err);
	sql_pstate ps = {.text = q};
	ps.param_types = ty_alloc0(sizeof(ty_oid) * 8);
	ps.params_cap = 8;
	sql_actx ax = {s, s->cat, ty_get_arena(), &ps};
	sql_query *qq;
	sql_planned *pl;
	TY_TRY(tc)
	{
		qq = sql_analyze(&ax, pr->stmts[0]->stmt);
		pl = sql_plan_query(&ax, qq);
	}
	TY_CATCH(tc)
	{
		TY_END(tc);
		pg_query__parse_result__free_unpacked(pr, NULL);
		ty_errthrow();
	}
	TY_END(tc);
	pg_query__parse_result__free_unpacked(pr, NULL);
	int ncols = pl->desc.ncols;
	bool *fq = ty_alloc0(sizeof(bool) * (size_t)(ncols + 1));
	for (int i = 0; i < ncols; i++) {
		fq[i] = o->force_quote_all;
		for (int k = 0; k < o->nfq; k++)
			if (!strcmp(pl->cols[i].name, o->fq_names[k]))
				fq[i] = true;
	}
	bool binary = o->fmt == SQL_COPY_BINARY;
	for (int i = 0; binary && i < ncols; i++) {
		const ty_type *t = ty_type_get(pl->plan->types[i]);
		if (!t || !t->send)
			ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary output function available for type %s",
				 t ? t->name : "?");
	}
	FILE *f = NULL;
	if (st->filename && *st->filename) {
		if (!s->superuser) {
			util_err *e = ty_errstart(UTIL_E_INSUFFICIENT_PRIVILEGE, "must be superuser or have privileges of the pg_write_server_files role to COPY to a file");
			util_err_hint(e, "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.");
			ty_errthrow();
		}
		f = fopen(st->filename, "w");
		if (!f)
			ty_error(UTIL_E_UNDEFINED_FILE, "could not open file \"%s\" for writing: %s", st->filename, strerror(errno));
	} else if (!s->client.copy_out_begin || s->client.copy_out_begin(s->client.arg, o->fmt, ncols) != 0) {
		ty_error(UTIL_E_CONNECTION_FAILURE, "could not start COPY");
	}
	util_buf line = UTIL_BUF_INIT, val = UTIL_BUF_INIT;
	uint64_t n = 0;
	sql_exec *ex = sql_exec_new(s, pl, ty_get_arena(), NULL, 0);
	TY_TRY(t2)
	{
		if (o->header) {
			util_buf_reset(&line);
			for (int i = 0; i < ncols; i++) {
				if (i)
					util_buf_putc(&line, o->delim);
				if (o->fmt == SQL_COPY_CSV)
					out_csv_field(&line, pl->cols[i].name, strlen(pl->cols[i].name), o, false);
				else /* text format (PostgreSQL 15): names escaped as values */
					out_text_field(&line, pl->cols[i].name, strlen(pl->cols[i].name), o->delim);
			}
			util_buf_putc(&line, '\n');
			if (f)
				fwrite(line.data, 1, line.len, f);
			else
				s->client.copy_out_data(s->client.arg, line.data, line.len);
		}
		/* Binary: the file header travels with the first row, as PostgreSQL
		 * sends it (flags 0, no header extension). */
		util_buf_reset(&line);
		if (binary) {
			util_buf_append(&line, (const char *)copy_bin_sig, sizeof copy_bin_sig);
			util_buf_put_be32(&line, 0);
			util_buf_put_be32(&line, 0);
		}
		sql_op *root = sql_exec_node(ex, pl->plan);
		for (;;) {
			sql_batch *b = sql_op_next(root);
			if (b->n == 0)
				break;
			for (int r = 0; r < b->n; r++) {
				ty_datum *row = sql_batch_row(b, r);
				if (n > 0 || !binary)
					util_buf_reset(&line);
				if (binary) {
					bin_row(&line, row, pl->plan->types, ncols);
					copy_out(s, f, &line);
					n++;
					continue;
				}
				for (int i = 0; i < ncols; i++) {
					if (i)
						util_buf_putc(&line, o->delim);
					if (row[i].null) {
						util_buf_append(&line, o->null_str, o->null_len);
						continue;
					}
					util_buf_reset(&val);
					ty_output(pl->plan->types[i], row[i], &val);
					if (o->fmt == SQL_COPY_CSV)
						out_csv_field(&line, val.data ? val.data : "", val.len, o, fq[i]);
					else
						out_text_field(&line, val.data ? val.data : "", val.len, o->delim);
				}
				util_buf_putc(&line, '\n');
				copy_out(s, f, &line);
				n++;
			}
		}
		if (binary) {
			/* The trailer is a message of its own (after the header when
			 * there were no rows). */
			if (n > 0)
				util_buf_reset(&line);
			util_buf_put_be16(&line, 0xffff);
			copy_out(s, f, &line);
		}
		sql_exec_close(ex);
	}
	TY_CATCH(t2)
	{
		TY_END(t2);
		util_err saved, ignore;
		memcpy(&saved, ty_err(), sizeof saved);
		ty_protect((void (*)(void *))sql_exec_close, ex, &ignore);
		util_buf_free(&line);
		util_buf_free(&val);
		if (f)
			fclose(f);
		ty_throw(&saved);
	}
	TY_END(t2);
	util_buf_free(&line);
	util_buf_free(&val);
	if (f)
		fclose(f);
	else
		s->client.copy_out_end(s->client.arg);
	snprintf(c->tag, sizeof c->tag, "COPY %llu", (unsigned long long)n);
}

void sql_exec_copy(sql_session *s, PgQuery__CopyStmt *st, const char *text, sql_dest *dest, sql_complete *c)
{
	(void)dest;
	if (st->is_program)
		ty_error(UTIL_E_INSUFFICIENT_PRIVILEGE, "COPY to or from an external program is not allowed");
	if (st->where_clause)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "COPY FROM ... WHERE is not supported");
	copy_opts o;
	parse_opts(st, &o);
	if (st->is_from)
		copy_from(s, st, &o, c);
	else
		copy_to(s, st, &o, text, c);
}
