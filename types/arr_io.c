/*
 * arr_io.c — array text and binary I/O with PostgreSQL 15's exact syntax,
 * quirks and error messages: '{1,2,NULL}', '{{1,2},{3,4}}', explicit
 * bounds '[0:2]={1,2,3}', quoting/escaping on output, and the binary wire
 * format (ndim, flags, element oid, dims/lbounds, length-prefixed items).
 *
 * Text input follows PostgreSQL's two passes: a validating scan that finds
 * the dimensions from the brace structure (with its state machine, so the
 * same inputs are accepted and the same DETAIL is reported), then a pass
 * that extracts, de-quotes and converts each item.
 */
#include "arr_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

/* array_isspace: the ASCII definition, independent of locale. */
static bool arr_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static UTIL_NORETURN void malformed(const char *str, const char *detail, ...) UTIL_PRINTF(2, 3);

static void malformed(const char *str, const char *detail, ...)
{
	util_err *e = ty_errstart(UTIL_E_INVALID_TEXT_REPRESENTATION, "malformed array literal: \"%s\"", str);
	if (detail) {
		char buf[256];
		va_list ap;
		va_start(ap, detail);
		vsnprintf(buf, sizeof buf, detail, ap);
		va_end(ap);
		util_err_detail(e, "%s", buf);
	}
	ty_errthrow();
}

/* C's atoi() on glibc: optional sign, digits, saturating at the long range,
 * then truncated to int (PostgreSQL 15 reads bounds with atoi). */
static int32_t atoi_like(const char *p)
{
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	uint64_t v = 0;
	bool sat = false;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_C(1) << 63) / 10)
			sat = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	int64_t r;
	if (neg)
		r = (sat || v >= (UINT64_C(1) << 63)) ? INT64_MIN : -(int64_t)v;
	else
		r = (sat || v > (uint64_t)INT64_MAX) ? INT64_MAX : (int64_t)v;
	return (int32_t)(uint32_t)(uint64_t)r;
}

static const char *scan_bound(const char *p)
{
	while (isdigit((unsigned char)*p) || *p == '-' || *p == '+')
		p++;
	return p;
}

enum parse_state {
	ST_NO_LEVEL,
	ST_LEVEL_STARTED,
	ST_ELEM_STARTED,
	ST_ELEM_COMPLETED,
	ST_QUOTED_ELEM_STARTED,
	ST_QUOTED_ELEM_COMPLETED,
	ST_ELEM_DELIMITED,
	ST_LEVEL_COMPLETED,
	ST_LEVEL_DELIMITED
};

/*
 * Validates the brace structure starting at str ('{') and finds the
 * dimensions. Returns ndim (0 for an empty array). Error messages quote str
 * itself, as PostgreSQL 15 does.
 */
static int array_count(const char *str, int *dim)
{
	int nest = 0, ndim = 1;
	int temp[TY_ARRAY_MAXDIM], nelems[TY_ARRAY_MAXDIM], nelems_last[TY_ARRAY_MAXDIM];
	bool in_quotes = false, eoa = false, empty = true;
	enum parse_state st = ST_NO_LEVEL;
	for (int i = 0; i < TY_ARRAY_MAXDIM; i++) {
		temp[i] = dim[i] = nelems_last[i] = 0;
		nelems[i] = 1;
	}
	const char *p = str;
	while (!eoa) {
		bool itemdone = false;
		while (!itemdone) {
			if (st == ST_ELEM_STARTED || st == ST_QUOTED_ELEM_STARTED)
				empty = false;
			char c = *p;
			if (c == '\0') {
				malformed(str, "Unexpected end of input.");
			} else if (c == '\\') {
				if (st != ST_LEVEL_STARTED && st != ST_ELEM_STARTED &&
				    st != ST_QUOTED_ELEM_STARTED && st != ST_ELEM_DELIMITED)
					malformed(str, "Unexpected \"%c\" character.", '\\');
				if (st != ST_QUOTED_ELEM_STARTED)
					st = ST_ELEM_STARTED;
				if (p[1])
					p++;
				else
					malformed(str, "Unexpected end of input.");
			} else if (c == '"') {
				if (st != ST_LEVEL_STARTED && st != ST_QUOTED_ELEM_STARTED &&
				    st != ST_ELEM_DELIMITED)
					malformed(str, "Unexpected array element.");
				in_quotes = !in_quotes;
				st = in_quotes ? ST_QUOTED_ELEM_STARTED : ST_QUOTED_ELEM_COMPLETED;
			} else if (c == '{' && !in_quotes) {
				if (st != ST_NO_LEVEL && st != ST_LEVEL_STARTED && st != ST_LEVEL_DELIMITED)
					malformed(str, "Unexpected \"%c\" character.", '{');
				st = ST_LEVEL_STARTED;
				if (nest >= TY_ARRAY_MAXDIM)
					ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
						 "number of array dimensions (%d) exceeds the maximum "
						 "allowed (%d)",
						 nest + 1, TY_ARRAY_MAXDIM);
				temp[nest] = 0;
				nest++;
				if (ndim < nest)
					ndim = nest;
			} else if (c == '}' && !in_quotes) {
				if (st != ST_ELEM_STARTED && st != ST_ELEM_COMPLETED &&
				    st != ST_QUOTED_ELEM_COMPLETED && st != ST_LEVEL_COMPLETED &&
				    !(nest == 1 && st == ST_LEVEL_STARTED))
					malformed(str, "Unexpected \"%c\" character.", '}');
				st = ST_LEVEL_COMPLETED;
				if (nest == 0)
					malformed(str, "Unmatched \"%c\" character.", '}');
				nest--;
				if (nelems_last[nest] != 0 && nelems[nest] != nelems_last[nest])
					malformed(
					    str, "Multidimensional arrays must have sub-arrays with matching "
						 "dimensions.");
				nelems_last[nest] = nelems[nest];
				nelems[nest] = 1;
				if (nest == 0)
					eoa = itemdone = true;
				else
					temp[nest - 1]++;
			} else if (!in_quotes) {
				if (c == ',') {
					if (st != ST_ELEM_STARTED && st != ST_ELEM_COMPLETED &&
					    st != ST_QUOTED_ELEM_COMPLETED && st != ST_LEVEL_COMPLETED)
						malformed(str, "Unexpected \"%c\" character.", ',');
					st =
					    st == ST_LEVEL_COMPLETED ? ST_LEVEL_DELIMITED : ST_ELEM_DELIMITED;
					itemdone = true;
					nelems[nest - 1]++;
				} else if (!arr_isspace(c)) {
					if (st != ST_LEVEL_STARTED && st != ST_ELEM_STARTED &&
					    st != ST_ELEM_DELIMITED)
						malformed(str, "Unexpected array element.");
					st = ST_ELEM_STARTED;
				}
			}
			if (!itemdone)
				p++;
		}
		temp[ndim - 1]++;
		p++;
	}
	while (*p)
		if (!arr_isspace(*p++))
			malformed(str, "Junk after closing right brace.");
	if (empty)
		return 0;
	for (int i = 0; i < ndim; i++)
		dim[i] = temp[i];
	return ndim;
}

/*
 * Extracts the items of a validated literal at str into vals[]/isnull[]
 * (nitems slots, row-major), converting each through the element's input
 * function. Errors here carry no DETAIL (PostgreSQL's are pro forma).
 */
static void read_items(const char *str, const char *orig, int nitems, int ndim, const int *dim,
		       const ty_type *et, int32_t typmod, ty_datum *vals)
{
	int indx[TY_ARRAY_MAXDIM] = {0}, prod[TY_ARRAY_MAXDIM];
	prod[ndim - 1] = 1;
	for (int j = ndim - 2; j >= 0; j--)
		prod[j] = prod[j + 1] * dim[j + 1];
	for (int i = 0; i < nitems; i++)
		vals[i] = ty_null();
	char *item = ty_alloc(strlen(str) + 1);
	const char *src = str;
	int nest = 0;
	bool in_quotes = false, eoa = false;
	while (!eoa) {
		bool itemdone = false, leadingspace = true, hasquoting = false;
		size_t dst = 0, dstend = 0;
		int i = -1;
		while (!itemdone) {
			char c = *src;
			if (c == '\0') {
				malformed(orig, NULL);
			} else if (c == '\\') {
				src++;
				if (*src == '\0')
					malformed(orig, NULL);
				item[dst++] = *src++;
				leadingspace = false;
				dstend = dst;
				hasquoting = true;
			} else if (c == '"') {
				in_quotes = !in_quotes;
				if (in_quotes)
					leadingspace = false;
				else
					dstend = dst;
				hasquoting = true;
				src++;
			} else if (c == '{' && !in_quotes) {
				if (nest >= ndim)
					malformed(orig, NULL);
				nest++;
				indx[nest - 1] = 0;
				src++;
			} else if (c == '}' && !in_quotes) {
				if (nest == 0)
					malformed(orig, NULL);
				if (i == -1) {
					i = 0;
					for (int j = 0; j < ndim; j++)
						i += indx[j] * prod[j];
				}
				indx[nest - 1] = 0;
				nest--;
				if (nest == 0)
					eoa = itemdone = true;
				else
					indx[nest - 1]++;
				src++;
			} else if (in_quotes) {
				item[dst++] = *src++;
			} else if (c == ',') {
				if (i == -1) {
					i = 0;
					for (int j = 0; j < ndim; j++)
						i += indx[j] * prod[j];
				}
				itemdone = true;
				indx[ndim - 1]++;
				src++;
			} else if (arr_isspace(c)) {
				if (leadingspace)
					src++;
				else
					item[dst++] = *src++;
			} else {
				item[dst++] = *src++;
				leadingspace = false;
				dstend = dst;
			}
		}
		item[dstend] = '\0';
		if (i < 0 || i >= nitems)
			malformed(orig, NULL);
		if (!hasquoting && util_strcasecmp(item, "NULL") == 0) {
			vals[i] = ty_null();
		} else {
			ty_datum d = et->in(item, dstend, typmod);
			if (typmod >= 0 && et->typmod_apply && !d.null)
				d = et->typmod_apply(d, typmod, false);
			vals[i] = ty_datum_copy(d, et->byval);
		}
	}
}

ty_datum arr_in(ty_oid elem, const char *s, size_t len, int32_t typmod)
{
	const ty_type *et = arr_elem_type(elem);
	if (!et->in)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot accept a value of type %s", et->name);
	const char *orig = ty_strndup(s, len);
	const char *p = orig;
	int ndim = 0, dim[TY_ARRAY_MAXDIM], lb[TY_ARRAY_MAXDIM];
	for (;;) {
		while (arr_isspace(*p))
			p++;
		if (*p != '[')
			break;
		p++;
		if (ndim >= TY_ARRAY_MAXDIM)
			ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
				 "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim + 1,
				 TY_ARRAY_MAXDIM);
		const char *q = scan_bound(p);
		if (q == p)
			malformed(orig, "\"[\" must introduce explicitly-specified array dimensions.");
		if (*q == ':') {
			lb[ndim] = atoi_like(p);
			p = q + 1;
			q = scan_bound(p);
			if (q == p)
				malformed(orig, "Missing array dimension value.");
		} else {
			lb[ndim] = 1;
		}
		if (*q != ']')
			malformed(orig, "Missing \"%s\" after array dimensions.", "]");
		int32_t ub = atoi_like(p);
		p = q + 1;
		if (ub < lb[ndim])
			ty_error(UTIL_E_ARRAY_SUBSCRIPT_ERROR, "upper bound cannot be less than lower bound");
		dim[ndim] = (int32_t)((uint32_t)ub - (uint32_t)lb[ndim] + 1u);
		ndim++;
	}
	if (ndim == 0) {
		if (*p != '{')
			malformed(orig, "Array value must start with \"{\" or dimension information.");
		ndim = array_count(p, dim);
		for (int i = 0; i < ndim; i++)
			lb[i] = 1;
	} else {
		if (*p != '=')
			malformed(orig, "Missing \"%s\" after array dimensions.", "=");
		p++;
		while (arr_isspace(*p))
			p++;
		if (*p != '{')
			malformed(orig, "Array contents must start with \"{\".");
		int dimb[TY_ARRAY_MAXDIM];
		int nb = array_count(p, dimb);
		if (nb != ndim)
			malformed(orig, "Specified array dimensions do not match array contents.");
		for (int i = 0; i < ndim; i++)
			if (dim[i] != dimb[i])
				malformed(orig, "Specified array dimensions do not match array contents.");
	}
	int nitems = arr_nitems_checked(ndim, dim);
	arr_check_bounds(ndim, dim, lb);
	if (nitems == 0)
		return ty_array_empty(elem);
	ty_datum *vals = ty_alloc(sizeof *vals * (size_t)nitems);
	read_items(p, orig, nitems, ndim, dim, et, typmod, vals);
	return ty_array_build(elem, ndim, dim, lb, vals);
}

/* Appends an element's text, quoted when array_out would quote it. */
static void put_item(util_buf *out, const char *s, size_t n)
{
	bool quote = n == 0 || (n == 4 && util_strcasecmp(s, "NULL") == 0);
	for (size_t k = 0; k < n && !quote; k++) {
		char c = s[k];
		quote = c == '"' || c == '\\' || c == '{' || c == '}' || c == ',' || arr_isspace(c);
	}
	if (!quote) {
		util_buf_append(out, s, n);
		return;
	}
	util_buf_putc(out, '"');
	for (size_t k = 0; k < n; k++) {
		if (s[k] == '"' || s[k] == '\\')
			util_buf_putc(out, '\\');
		util_buf_putc(out, s[k]);
	}
	util_buf_putc(out, '"');
}

void arr_out(ty_datum v, util_buf *out)
{
	int ndim = ty_array_ndim(v);
	int n = ty_array_nitems(v);
	if (n == 0) {
		util_buf_puts(out, "{}");
		return;
	}
	const ty_type *et = arr_elem_type(ty_array_elemtype(v));
	if (!et->out)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "cannot display a value of type %s", et->name);
	int dims[TY_ARRAY_MAXDIM], indx[TY_ARRAY_MAXDIM] = {0};
	bool needdims = false;
	for (int i = 0; i < ndim; i++) {
		dims[i] = ty_array_dim(v, i);
		if (ty_array_lbound(v, i) != 1)
			needdims = true;
	}
	if (needdims) {
		for (int i = 0; i < ndim; i++) {
			int lb = ty_array_lbound(v, i);
			util_buf_printf(out, "[%d:%d]", lb, (int)((int64_t)lb + dims[i] - 1));
		}
		util_buf_putc(out, '=');
	}
	util_buf item = UTIL_BUF_INIT;
	ty_array_iter it;
	ty_array_iter_init(&it, v);
	ty_datum e;
	int j = 0;
	util_buf_putc(out, '{');
	while (ty_array_iter_next(&it, &e)) {
		for (int i = j; i < ndim - 1; i++)
			util_buf_putc(out, '{');
		if (e.null) {
			util_buf_puts(out, "NULL");
		} else {
			util_buf_reset(&item);
			et->out(e, &item);
			put_item(out, item.data ? item.data : "", item.len);
		}
		int i;
		for (i = ndim - 1; i >= 0; i--) {
			if (++indx[i] < dims[i]) {
				util_buf_putc(out, ',');
				break;
			}
			indx[i] = 0;
			util_buf_putc(out, '}');
		}
		j = i;
	}
	util_buf_free(&item);
}

/* ---------------------------------------------------------------- binary */

typedef struct rd {
	const uint8_t *p, *end;
} rd;

static int32_t rd_i32(rd *r)
{
	if (r->end - r->p < 4)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	int32_t v = (int32_t)util_get_be32(r->p);
	r->p += 4;
	return v;
}

static void type_name(ty_oid oid, char *buf, size_t n)
{
	util_buf b = UTIL_BUF_INIT;
	ty_format_type(oid, TY_TYPMOD_NONE, &b);
	snprintf(buf, n, "%s", b.data ? b.data : "???");
	util_buf_free(&b);
}

ty_datum arr_recv(ty_oid elem, const uint8_t *p, size_t len, int32_t typmod)
{
	rd r = {p, p + len};
	int32_t ndim = rd_i32(&r);
	if (ndim < 0)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid number of dimensions: %d", ndim);
	if (ndim > TY_ARRAY_MAXDIM)
		ty_error(UTIL_E_PROGRAM_LIMIT_EXCEEDED,
			 "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim,
			 TY_ARRAY_MAXDIM);
	int32_t flags = rd_i32(&r);
	if (flags != 0 && flags != 1)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid array flags");
	ty_oid got = (ty_oid)rd_i32(&r);
	if (got != elem) {
		/* PostgreSQL complains only when both are built-in oids. */
		if (got < 10000 && elem < 10000) {
			char a[128], b[128];
			type_name(got, a, sizeof a);
			type_name(elem, b, sizeof b);
			ty_error(UTIL_E_DATATYPE_MISMATCH,
				 "binary data has array element type %u (%s) instead of expected %u (%s)",
				 got, a, elem, b);
		}
	}
	int dim[TY_ARRAY_MAXDIM], lb[TY_ARRAY_MAXDIM];
	for (int i = 0; i < ndim; i++) {
		dim[i] = rd_i32(&r);
		lb[i] = rd_i32(&r);
	}
	int nitems = arr_nitems_checked(ndim, dim);
	arr_check_bounds(ndim, dim, lb);
	const ty_type *et = arr_elem_type(elem);
	if (!et->recv) {
		char a[128];
		type_name(elem, a, sizeof a);
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary input function available for type %s", a);
	}
	if (nitems == 0) {
		if (r.p != r.end)
			ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
		return ty_array_empty(elem);
	}
	ty_datum *vals = ty_alloc(sizeof *vals * (size_t)nitems);
	for (int i = 0; i < nitems; i++) {
		int32_t ilen = rd_i32(&r);
		if (ilen < -1 || ilen > r.end - r.p)
			ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "insufficient data left in message");
		if (ilen == -1) {
			vals[i] = ty_null();
			continue;
		}
		ty_datum d = et->recv(r.p, (size_t)ilen, typmod);
		if (typmod >= 0 && et->typmod_apply && !d.null)
			d = et->typmod_apply(d, typmod, false);
		vals[i] = ty_datum_copy(d, et->byval);
		r.p += ilen;
	}
	if (r.p != r.end)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_array_build(elem, ndim, dim, lb, vals);
}

void arr_send(ty_datum v, util_buf *out)
{
	int ndim = ty_array_ndim(v);
	ty_oid elem = ty_array_elemtype(v);
	util_buf_put_be32(out, (uint32_t)ndim);
	util_buf_put_be32(out, ty_array_hasnulls(v) ? 1 : 0);
	util_buf_put_be32(out, elem);
	for (int i = 0; i < ndim; i++) {
		util_buf_put_be32(out, (uint32_t)ty_array_dim(v, i));
		util_buf_put_be32(out, (uint32_t)ty_array_lbound(v, i));
	}
	if (ty_array_nitems(v) == 0)
		return;
	const ty_type *et = arr_elem_type(elem);
	if (!et->send) {
		char a[128];
		type_name(elem, a, sizeof a);
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary output function available for type %s", a);
	}
	ty_array_iter it;
	ty_array_iter_init(&it, v);
	ty_datum e;
	while (ty_array_iter_next(&it, &e)) {
		if (e.null) {
			util_buf_put_be32(out, 0xffffffffu);
			continue;
		}
		size_t at = out->len;
		util_buf_put_be32(out, 0);
		et->send(e, out);
		util_put_be32((uint8_t *)out->data + at, (uint32_t)(out->len - at - 4));
	}
}
