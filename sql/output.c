/*
 * output.c — rows to the client: DataRow bodies in text or binary format
 * per column, and small materialised result sets (SHOW, EXPLAIN ...).
 */
#include <string.h>

#include "sql_int.h"

void sql_format_row(sql_session *s, const ty_datum *vals, int ncols, const ty_oid *types, const int16_t *formats,
		    util_buf *out)
{
	(void)s;
	util_buf_reset(out);
	for (int i = 0; i < ncols; i++) {
		/* Bind accepts any result format code; as PostgreSQL, a bad one
		 * fails when the first row goes out. */
		if (formats && formats[i] != 0 && formats[i] != 1)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unsupported format code: %d", formats[i]);
		if (vals[i].null) {
			util_buf_put_be32(out, 0xffffffffu);
			continue;
		}
		/* The length goes in front once the text is out: its 4 bytes
		 * are only reserved here (this runs per value of every row). */
		util_buf_reserve(out, 4);
		size_t lenpos = out->len;
		out->len += 4;
		const ty_type *t = ty_type_get(types[i]);
		if (formats && formats[i] == 1) {
			if (!t || !t->send)
				ty_error(UTIL_E_UNDEFINED_FUNCTION, "no binary output function available for type %s",
					 t ? t->name : "?");
			t->send(vals[i], out);
		} else {
			if (!t || !t->out)
				ty_error(UTIL_E_UNDEFINED_FUNCTION, "no output function available for type %u", types[i]);
			t->out(vals[i], out);
		}
		util_put_be32((uint8_t *)out->data + lenpos, (uint32_t)(out->len - lenpos - 4));
		out->data[out->len] = '\0'; /* as util_buf keeps it (reserve left room) */
	}
}

void sql_send_rows(sql_session *s, sql_dest *dest, int ncols, const char *const *names, const ty_oid *types,
		   const ty_datum *vals, int nrows)
{
	sql_column *cols = ty_alloc0(sizeof *cols * (size_t)ncols);
	for (int i = 0; i < ncols; i++) {
		const ty_type *t = ty_type_get(types[i]);
		cols[i].name = names[i];
		cols[i].type_oid = types[i];
		cols[i].type_len = t ? t->len : -1;
		cols[i].typmod = -1;
	}
	sql_rowdesc d = {ncols, cols};
	if (dest->startup)
		dest->startup(dest->arg, &d);
	util_buf *b = &s->rowbuf;
	for (int r = 0; r < nrows; r++) {
		sql_format_row(s, vals + (size_t)r * (size_t)ncols, ncols, types, NULL, b);
		if (dest->row(dest->arg, (const uint8_t *)b->data, b->len, ncols) != 0)
			break;
	}
}
