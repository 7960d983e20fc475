/*
 * json.h — json and jsonb for the rest of Strata: JSON string escaping. The jsonb datum format is described
 * in docs/jsonb-format.md; only the json area reads it directly.
 */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include "types.h"

/* Appends s[0..len) as a JSON string literal (PostgreSQL's escape_json). */
void ty_json_escape(util_buf *out, const char *s, size_t len);

#endif /* STRATA_JSON_H */
