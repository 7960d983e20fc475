/*
 * exp_case.h — shapes of the expectation tables generated from PostgreSQL 15
 * by types/test/gen/ (arr_*_cases.h, json_*_cases.h).
 */
#ifndef EXP_CASE_H
#define EXP_CASE_H

#include <stdbool.h>

/* '<input>'::<type>, then its text output (or the error). */
typedef struct exp_io {
	const char *type; /* pg_type.typname */
	const char *input;
	const char *output; /* NULL when an error is expected */
	const char *sqlstate, *message, *detail, *context;
} exp_io;

/* Sign of the btree comparison of two values of one type. */
typedef struct exp_cmp {
	const char *type, *a, *b;
	int cmp;
} exp_cmp;

/* fn(args...) with argument types (pg_type names) and text literals
 * (NULL = SQL NULL); a type "record(t1,t2,...)" takes its fields as
 * literals separated by \x1f, "\x1e" standing for a NULL field; result as text (isnull) or the error. For
 * set-returning functions out holds the rows joined by '\n'. */
typedef struct exp_call {
	const char *fn;
	int nargs;
	const char *types[8];
	const char *args[8];
	bool retset; /* out = "<rows>:" then the rows joined by '\n' (NULL rows as "NULL") */
	bool isnull;
	const char *out;
	const char *sqlstate, *message, *detail, *hint;
} exp_call;

/* Binary send of '<input>'::<type> as hex (PostgreSQL's typsend). */
typedef struct exp_bin {
	const char *type, *input, *hex;
} exp_bin;

/* Array subscripting on an int4[]: kind 'g' a[lo]..., 's' a[lo:hi]...
 * (has_lo/has_hi false = bound omitted), 'a' UPDATE ... SET a[lo]... = value. */
typedef struct exp_sub {
	const char *array; /* NULL = SQL NULL */
	char kind;
	int n;
	int lo[6], hi[6];
	bool has_lo[6], has_hi[6];
	const char *value; /* 'a' only; NULL = SQL NULL */
	bool isnull;
	const char *out;
	const char *sqlstate, *message;
} exp_sub;

/* agg(x) over the rows values[0..n) (NULL = SQL NULL) of one type. */
typedef struct exp_agg {
	const char *agg;
	const char *type;
	int n;
	const char *values[16];
	const char *type2; /* two-argument aggregates: second argument */
	const char *values2[16];
	bool isnull;
	const char *out;
	const char *sqlstate, *message, *detail, *hint;
} exp_agg;

#endif /* EXP_CASE_H */
