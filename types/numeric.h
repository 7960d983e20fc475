/*
 * numeric.h — the numeric type (arbitrary precision decimal, PostgreSQL's
 * numeric) for other modules: parsing and formatting, conversion from and
 * to int64/double, arithmetic, comparison, rounding, hashing and a sum
 * accumulator. Every function follows PostgreSQL 15's semantics, result
 * scales and error messages, and throws with ty_error() (see types.h).
 *
 * Datum format (ty_datum .p/.len, immutable, any alignment): a sequence of
 * little-endian 16-bit fields
 *   [0] sign: TY_NUMERIC_POS, _NEG, _NAN, _PINF or _NINF
 *   [1] weight (signed): base-10000 exponent of the first digit
 *   [2] dscale: display scale (decimal digits shown after the point)
 *   [3..] digits in base 10000, most significant first; no leading or
 *         trailing zero digits (zero and the specials have none)
 * value = sum(digit[i] * 10000^(weight - i)). Results are allocated with
 * ty_alloc() in the current arena.
 */
#ifndef STRATA_NUMERIC_H
#define STRATA_NUMERIC_H

#include "types.h"

#define TY_NUMERIC_POS   0x0000
#define TY_NUMERIC_NEG   0x4000
#define TY_NUMERIC_NAN   0xC000
#define TY_NUMERIC_PINF  0xD000
#define TY_NUMERIC_NINF  0xF000
#define TY_NUMERIC_HDRSZ 6

/* numeric_in: PostgreSQL's syntax incl. NaN/Infinity and surrounding
 * whitespace; typmod -1 or numeric(p,s). Throws 22P02/22003. */
ty_datum ty_numeric_parse(const char *s, size_t len, int32_t typmod);
/* The typmod of numeric(precision, scale) (numerictypmodin): throws 22023
 * "NUMERIC precision %d must be between 1 and 1000" / "NUMERIC scale %d
 * must be between -1000 and 1000". */
int32_t ty_numeric_typmod(int precision, int scale);
/* numeric_out: appends the text form. */
void ty_numeric_format(ty_datum n, util_buf *out);

ty_datum ty_numeric_from_int64(int64_t v);
/* float8::numeric (15 significant digits, NaN/Infinity kept). */
ty_datum ty_numeric_from_double(double v);
/* numeric::int8: rounds half away from zero; throws 22003 "bigint out of
 * range" and 0A000 for NaN/Infinity as PostgreSQL. */
int64_t ty_numeric_to_int64(ty_datum n);
/* numeric::float8 (NaN and +-Infinity map to the double specials). */
double ty_numeric_to_double(ty_datum n);

/* The + - * / % operators (numeric_add ...), with PostgreSQL's result
 * scales; / and % throw 22012 on zero. */
ty_datum ty_numeric_add(ty_datum a, ty_datum b);
ty_datum ty_numeric_sub(ty_datum a, ty_datum b);
ty_datum ty_numeric_mul(ty_datum a, ty_datum b);
ty_datum ty_numeric_div(ty_datum a, ty_datum b);
ty_datum ty_numeric_mod(ty_datum a, ty_datum b);
ty_datum ty_numeric_neg(ty_datum a);
/* round(n, scale) */
ty_datum ty_numeric_round(ty_datum n, int scale);
/* Btree order: -Infinity < finite < +Infinity < NaN; 1.0 = 1.00. */
int ty_numeric_cmp(ty_datum a, ty_datum b);
/* Consistent with ty_numeric_cmp: equal values hash equal. */
uint64_t ty_numeric_hash(ty_datum n);
bool ty_numeric_is_nan(ty_datum n);
bool ty_numeric_is_inf(ty_datum n);
/* -1, 0, 1 (NaN: 0). */
int ty_numeric_sign(ty_datum n);
/* Display scale of a finite value. */
int ty_numeric_dscale(ty_datum n);

/*
 * A running sum of numeric values (the sum/avg aggregates' state, also for
 * the SQL layer): add values, read the sum at any time. The accumulator
 * keeps its digits in memory from the arena current at ty_numeric_sum_add()
 * time; it grows only when a value needs more digits than seen before.
 * Zero-initialise before use.
 */
typedef struct ty_numeric_sum {
	int64_t count;  /* values added (incl. specials) */
	int npos, nneg; /* NaN / +Inf / -Inf seen */
	int nnan;
	int weight;  /* weight of acc[0] */
	int ndigits; /* acc slots in use */
	int cap;
	int dscale;   /* max dscale of the inputs */
	int pending;  /* additions since the last carry propagation */
	int32_t *acc; /* base-10000 digits, unnormalised (may exceed NBASE) */
} ty_numeric_sum;

void ty_numeric_sum_add(ty_numeric_sum *s, ty_datum n);
void ty_numeric_sum_sub(ty_numeric_sum *s, ty_datum n); /* inverse transition */
void ty_numeric_sum_add_int64(ty_numeric_sum *s, int64_t v);
/* Merges b into a (parallel partial sums). */
void ty_numeric_sum_combine(ty_numeric_sum *a, const ty_numeric_sum *b);
/* The sum (NaN/Infinity rules as PostgreSQL); count == 0 gives zero. */
ty_datum ty_numeric_sum_result(const ty_numeric_sum *s);

#endif /* STRATA_NUMERIC_H */
