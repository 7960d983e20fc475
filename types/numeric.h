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
 * An exact running sum of numeric values (the state of sum/avg/stddev over
 * numeric, also usable by the SQL layer): add and remove values, read the
 * sum at any time. Digits are kept unnormalised in int64 slots, so adding
 * is a loop of integer additions without allocation; the inline slots hold
 * 32 decimal digits, wider sums move to memory from the arena current at
 * the time of the add (which must live as long as the sum, like an
 * aggregate's group arena). The struct holds no pointer into itself, but
 * it is not byte-copyable once it has spilled to arena memory.
 * Zero-initialise before use.
 */
#define TY_NUMERIC_SUM_INLINE 8
typedef struct ty_numeric_sum {
	int64_t n;                  /* finite values added (minus removed) */
	int64_t nnan, npinf, nninf; /* special values */
	int32_t weight;             /* base-10000 weight of slot 0 */
	int32_t ndigits;            /* slots in use */
	int32_t cap;                /* capacity of heap (0: inline) */
	int32_t adds;               /* additions since the last normalisation */
	int64_t *heap;              /* arena slots when wider than inline */
	int64_t inl[TY_NUMERIC_SUM_INLINE];
	/* display scales seen, to know the sum's dscale after removals */
	int32_t scale_cap; /* entries at scales (0: inline) */
	int32_t *scales;
	int32_t inl_scales[8];
} ty_numeric_sum;

void ty_numeric_sum_add(ty_numeric_sum *s, ty_datum n);
/* Removes a value added before (window frames). */
void ty_numeric_sum_sub(ty_numeric_sum *s, ty_datum n);
/* Adds (or with remove, takes away) the square of a value, exactly, with
 * twice its display scale (the sum of squares of the variance family). */
void ty_numeric_sum_add_square(ty_numeric_sum *s, ty_datum n, bool remove);
/* Adds (or with remove, takes away) an integer, counted like a value. */
void ty_numeric_sum_add_int128(ty_numeric_sum *s, __int128 v, bool remove);
/* Merges b into a (parallel partial sums). */
void ty_numeric_sum_combine(ty_numeric_sum *a, const ty_numeric_sum *b);
/* Values added and not removed, specials included. */
int64_t ty_numeric_sum_count(const ty_numeric_sum *s);
/* The sum with the largest display scale of the values in it; NaN if any
 * NaN, else +-Infinity (NaN when both); zero when empty. */
ty_datum ty_numeric_sum_result(const ty_numeric_sum *s);

/*
 * The oid-alias types regclass, regtype, regproc, regprocedure, regoper,
 * regoperator, regnamespace, regrole, regcollation, regconfig and
 * regdictionary are oids whose text form names a catalog object. types/
 * knows no catalog, so the SQL layer installs a resolver (at startup,
 * before sessions run; it reads its own per-thread session state such as
 * search_path). Without a resolver, or when it returns false, input accepts
 * only digit strings (and "-" for 0) and output prints the number, which is
 * also PostgreSQL's output for an oid it cannot find.
 */
typedef struct ty_reg_resolver {
	/* Name -> oid: true with *oid set, or throw PostgreSQL's error
	 * (42P01 relation "x" does not exist ...); false if not handled. */
	bool (*in)(ty_oid regtype, const char *name, ty_oid *oid);
	/* Oid -> name appended to out as PostgreSQL prints it (qualified and
	 * quoted when needed); false when the oid is unknown. */
	bool (*out)(ty_oid regtype, ty_oid oid, util_buf *out);
} ty_reg_resolver;

void ty_set_reg_resolver(const ty_reg_resolver *r); /* r must stay alive */

#endif /* STRATA_NUMERIC_H */
