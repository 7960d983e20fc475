/*
 * types_int.h — private to types/: the registration entry points of each
 * area of built-in types and functions, and shared internals.
 *
 * Each area registers its types, functions, operators, casts and aggregates
 * from static tables when ty_init() calls it:
 *   pseudo.c      unknown, cstring, void, record, any* and friends
 *   numeric area  bool, int2/4/8, float4/8, numeric, oid family, math functions
 *   string area   text, varchar, bpchar, name, "char", bytea, uuid, LIKE, regex
 *   datetime area date, time, timetz, timestamp, timestamptz, interval, time zones
 *   json/array area json, jsonb, arrays of every base type
 */
#ifndef STRATA_TYPES_INT_H
#define STRATA_TYPES_INT_H

#include "types.h"

void ty_register_pseudo(void);
void ty_register_numeric(void);
void ty_register_strings(void);
void ty_register_datetime(void);
void ty_register_json(void);
void ty_register_arrays(void);

/* First oid handed out to functions, operators and aggregates registered
 * with oid 0; explicit oids (PostgreSQL's own) must stay below it. */
#define TY_AUTO_OID_START 12000

#endif /* STRATA_TYPES_INT_H */
