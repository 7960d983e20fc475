/*
 * json.h — json and jsonb for the rest of Strata: JSON string escaping. The jsonb datum format is described
 * in docs/jsonb-format.md; only the json area reads it directly.
 */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include "types.h"

/* Appends s[0..len) as a JSON string literal (PostgreSQL's escape_json). */
void ty_json_escape(util_buf *out, const char *s, size_t len);

/* Appends the JSON text of a SQL value as to_json() renders it: booleans
 * and numbers unquoted (non-finite floats and NaN quoted), date/timestamp/
 * timestamptz in ISO 8601, json as is, jsonb as its text, arrays as JSON
 * arrays, records (ty_record) as objects, anything else as a JSON string of
 * its text output; NULL gives null. */
void ty_to_json_text(ty_oid type, ty_datum v, util_buf *out);

/* to_jsonb(v): the jsonb datum for a SQL value (current arena). */
ty_datum ty_to_jsonb(ty_oid type, ty_datum v);

#endif /* STRATA_JSON_H */
