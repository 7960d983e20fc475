/*
 * verify.c — cat_verify_rows: reads the stored catalog (not this server's
 * cached copy, which another server or a damaged store may have left
 * behind) at one read point and reports every row that does not parse.
 * The SQL-level checks built on it are sql/verify.c's (strata_verify()).
 */
#include <stdio.h>
#include <string.h>

#include "cat_int.h"

kv_status cat_verify_rows(cat *c, kv_ts at, cat_verify_fn fn, void *arg, uint64_t *objects)
{
	kv_scan_opts so;
	memset(&so, 0, sizeof so);
	so.read.read_ts = at;
	so.read.no_cache = true;
	kv_iter *it = kv_scan(c->tbl, &so);
	char what[160];
	*objects = 0;
	for (; kv_iter_valid(it); kv_iter_next(it)) {
		const kv_cell *cell = kv_iter_cell(it);
		const uint8_t *row = cell->row.data;
		size_t rl = cell->row.len;
		what[0] = 0;
		if (rl == 5 && row[0] == 'o') {
			cat_oid oid = util_get_be32(row + 1);
			cat_obj *o = cat_obj_decode(oid, cell->value.data, cell->value.len);
			if (o) {
				(*objects)++;
				cat_obj_addref(o); /* (new objects start at 0 references) */
				cat_obj_release(o);
			} else {
				snprintf(what, sizeof what,
					 "catalog entry for oid %u does not parse (%zu bytes)", oid,
					 cell->value.len);
			}
		} else if (rl == 5 && row[0] == 's') {
			if (cell->value.len != 8)
				snprintf(what, sizeof what, "row estimate of oid %u has %zu bytes, not 8",
					 util_get_be32(row + 1), cell->value.len);
		} else if (!(rl == 1 && (row[0] == 'm' || row[0] == 'v'))) {
			/* (name rows 'n' hold no cell: see cat.c, conflicts) */
			snprintf(what, sizeof what, "catalog row of no known kind (%zu bytes, first 0x%02x)",
				 rl, rl ? row[0] : 0);
		}
		if (what[0] && fn)
			fn(arg, what);
	}
	kv_status st = kv_iter_status(it);
	kv_iter_close(it);
	return st;
}
