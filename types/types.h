/*
 * types.h — Strata's SQL value model: datums, the built-in type table,
 * functions/operators/casts/aggregates with PostgreSQL's OIDs and
 * semantics, text and binary I/O, order-preserving key encoding, and the
 * error-throwing convention used by everything that evaluates SQL.
 *
 * This module is the equivalent of PostgreSQL's utils/adt + fmgr. It knows
 * nothing about tables, sessions or storage; it depends on util only.
 *
 * Errors (why longjmp): evaluating SQL can fail in hundreds of leaf places
 * (overflow, bad input syntax, division by zero). As in PostgreSQL, a leaf
 * reports with ty_error()/ty_errthrow(), which longjmps to the innermost
 * handler established with TY_TRY or ty_protect(). Memory comes from arenas
 * reset wholesale, so unwinding leaks nothing; code that holds other
 * resources across calls that may throw registers a cleanup with its owner
 * (the SQL executor keeps a resource list per statement).
 *
 * Memory: functions allocate results with ty_alloc(), which uses the
 * thread's current arena (ty_set_arena); exceeding its budget throws 53200.
 *
 * Session settings that change I/O (DateStyle, TimeZone,
 * extra_float_digits, ...) are read from the thread's current ty_settings
 * (ty_set_settings), like PostgreSQL's GUC globals in a backend.
 */
#ifndef STRATA_TYPES_H
#define STRATA_TYPES_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef uint32_t ty_oid;

/* ---------------------------------------------------------------- datums */

/*
 * A value. Which member is meaningful depends on the (statically known)
 * type:
 *   by value (.i): bool, "char", int2, int4, int8, oid, regclass, regtype,
 *     regproc, regnamespace, regrole, xid, date (days since 2000-01-01),
 *     time (µs since midnight), timestamp and timestamptz (µs since
 *     2000-01-01 00:00 UTC; ±infinity = INT64_MAX/INT64_MIN, date likewise
 *     INT32_MAX/INT32_MIN as PostgreSQL);
 *   by value (.f): float4 (a double holding a float value), float8;
 *   by reference (.p, .len): every other type, as self-contained bytes:
 *     text, varchar, bpchar (blank-padded), name, json, unknown: UTF-8;
 *     bytea: raw bytes; uuid: 16 bytes; interval: ty_interval (16 bytes);
 *     timetz: ty_timetz; numeric: ty_numeric format (numeric.h);
 *     jsonb: the jsonb module's binary format; arrays: ty_array format.
 * Bytes pointed to are immutable and owned by an arena; copy a datum with
 * ty_datum_copy() to move it to a longer-lived arena.
 */
typedef struct ty_datum {
	union {
		int64_t i;
		double f;
		const void *p;
	};
	uint32_t len; /* bytes at p, by-reference types only */
	bool null;
} ty_datum;

static inline ty_datum ty_null(void)
{
	ty_datum d = {{0}, 0, true};
	return d;
}
static inline ty_datum ty_int(int64_t v)
{
	ty_datum d = {{0}, 0, false};
	d.i = v;
	return d;
}
static inline ty_datum ty_bool(bool v) { return ty_int(v ? 1 : 0); }
static inline ty_datum ty_float(double v)
{
	ty_datum d = {{0}, 0, false};
	d.f = v;
	return d;
}
static inline ty_datum ty_bytes(const void *p, size_t len)
{
	ty_datum d = {{0}, (uint32_t)len, false};
	d.p = p;
	return d;
}

typedef struct ty_interval {
	int64_t time; /* µs */
	int32_t day;
	int32_t month;
} ty_interval;

/* A row value (type record): .p -> ty_record, .len = sizeof(ty_record). */
typedef struct ty_record {
	int n;
	const ty_oid *types;
	const char *const *names; /* may be NULL */
	ty_datum *vals;
} ty_record;

typedef struct ty_timetz {
	int64_t time; /* µs since midnight, local */
	int32_t zone; /* seconds west of UTC, as PostgreSQL */
} ty_timetz;

/* ---------------------------------------------------------------- errors */

typedef struct ty_catch {
	sigjmp_buf jb;
	struct ty_catch *prev;
} ty_catch;

/* The error being thrown / last caught on this thread. */
util_err *ty_err(void);
/* Starts an error: fills ty_err() (code + message) and returns it so the
 * caller can add detail/hint/position before ty_errthrow(). */
util_err *ty_errstart(util_errcode code, const char *fmt, ...) UTIL_PRINTF(2, 3);
UTIL_NORETURN void ty_errthrow(void);
/* ty_errstart + ty_errthrow. */
UTIL_NORETURN void ty_error(util_errcode code, const char *fmt, ...) UTIL_PRINTF(2, 3);
/* Rethrows a prepared error (copied). */
UTIL_NORETURN void ty_throw(const util_err *e);

/* Runs fn(arg) under a handler: returns 0, or -1 with the error in *err. */
int ty_protect(void (*fn)(void *arg), void *arg, util_err *err);

void ty_catch_push(ty_catch *c);
void ty_catch_pop(ty_catch *c);
/*
 * TY_TRY(c) { ...may throw... } TY_CATCH(c) { ...ty_err() holds it... } TY_END(c);
 * Locals modified inside the TRY block and read in CATCH must be volatile.
 */
#define TY_TRY(c)                                                                    \
	ty_catch c;                                                                  \
	ty_catch_push(&c);                                                           \
	if (sigsetjmp(c.jb, 0) == 0)
#define TY_CATCH(c) else
#define TY_END(c) ty_catch_pop(&c)

/* Interrupts (query cancel, statement_timeout) are checked in long loops;
 * the executor installs the hook, which throws 57014 when due. */
void ty_set_interrupt_hook(void (*fn)(void));
void ty_check_interrupts(void);

/* ---------------------------------------------------------------- memory */

/* The thread's current arena; returns the previous one. */
util_arena *ty_set_arena(util_arena *a);
util_arena *ty_get_arena(void);
/* Allocates from the current arena; throws 53200 over budget. */
void *ty_alloc(size_t n);
void *ty_alloc0(size_t n);
char *ty_strdup(const char *s);
char *ty_strndup(const char *s, size_t n);
/* Copies by-reference bytes into the current arena. */
ty_datum ty_datum_copy(ty_datum d, bool byval);
/* A text datum from a C string (copied). */
ty_datum ty_text(const char *s);
ty_datum ty_textn(const char *s, size_t n);
/* A NUL-terminated copy of a text datum's bytes. */
char *ty_cstring(ty_datum d);

/* ---------------------------------------------------------------- settings */

typedef enum ty_datestyle { TY_DATES_ISO = 0, TY_DATES_SQL, TY_DATES_POSTGRES, TY_DATES_GERMAN } ty_datestyle;
typedef enum ty_dateorder { TY_ORDER_MDY = 0, TY_ORDER_DMY, TY_ORDER_YMD } ty_dateorder;
typedef enum ty_intervalstyle {
	TY_INTERVAL_POSTGRES = 0,
	TY_INTERVAL_POSTGRES_VERBOSE,
	TY_INTERVAL_SQL_STANDARD,
	TY_INTERVAL_ISO_8601
} ty_intervalstyle;

typedef struct ty_timezone ty_timezone; /* loaded tz database zone (datetime module) */

/* The session state type I/O depends on. Owned by the session. */
typedef struct ty_settings {
	ty_datestyle datestyle;
	ty_dateorder dateorder;
	ty_intervalstyle intervalstyle;
	const ty_timezone *timezone; /* NULL = UTC */
	int extra_float_digits;      /* -15..3, default 1 */
	bool bytea_output_escape;    /* bytea_output = escape */
	bool standard_conforming_strings;
	int64_t stmt_timestamp;      /* statement_timestamp(), µs since 2000-01-01 */
	int64_t txn_timestamp;       /* now() / transaction_timestamp() */
} ty_settings;

void ty_settings_default(ty_settings *s);
const ty_settings *ty_set_settings(const ty_settings *s);
const ty_settings *ty_get_settings(void);

/* Time zones (datetime module): loads from the system tz database
 * (/usr/share/zoneinfo) or parses a POSIX/offset spec; cached forever.
 * NULL if unknown. ty_timezone_name() gives the canonical name to report. */
const ty_timezone *ty_timezone_load(const char *name);
const char *ty_timezone_name(const ty_timezone *tz);

/* ---------------------------------------------------------------- types */

/* PostgreSQL's OIDs (pg_type.dat); clients depend on these exact values. */
enum {
	TY_BOOL = 16,
	TY_BYTEA = 17,
	TY_CHAR = 18, /* "char" */
	TY_NAME = 19,
	TY_INT8 = 20,
	TY_INT2 = 21,
	TY_INT2VECTOR = 22,
	TY_INT4 = 23,
	TY_REGPROC = 24,
	TY_TEXT = 25,
	TY_OID = 26,
	TY_TID = 27,
	TY_XID = 28,
	TY_CID = 29,
	TY_OIDVECTOR = 30,
	TY_JSON = 114,
	TY_XML = 142,
	TY_PG_NODE_TREE = 194,
	TY_POINT = 600,
	TY_FLOAT4 = 700,
	TY_FLOAT8 = 701,
	TY_UNKNOWN = 705,
	TY_MONEY = 790,
	TY_INET = 869,
	TY_BPCHAR = 1042,
	TY_VARCHAR = 1043,
	TY_DATE = 1082,
	TY_TIME = 1083,
	TY_TIMESTAMP = 1114,
	TY_TIMESTAMPTZ = 1184,
	TY_INTERVAL = 1186,
	TY_TIMETZ = 1266,
	TY_BIT = 1560,
	TY_VARBIT = 1562,
	TY_NUMERIC = 1700,
	TY_REFCURSOR = 1790,
	TY_REGPROCEDURE = 2202,
	TY_REGOPER = 2203,
	TY_REGOPERATOR = 2204,
	TY_REGCLASS = 2205,
	TY_REGTYPE = 2206,
	TY_RECORD = 2249,
	TY_CSTRING = 2275,
	TY_ANY = 2276,
	TY_ANYARRAY = 2277,
	TY_VOID = 2278,
	TY_TRIGGER = 2279,
	TY_INTERNAL = 2281,
	TY_ANYELEMENT = 2283,
	TY_ANYNONARRAY = 2776,
	TY_UUID = 2950,
	TY_TXID_SNAPSHOT = 2970,
	TY_ANYENUM = 3500,
	TY_TSVECTOR = 3614,
	TY_TSQUERY = 3615,
	TY_REGCONFIG = 3734,
	TY_JSONB = 3802,
	TY_JSONPATH = 4072,
	TY_REGNAMESPACE = 4089,
	TY_REGROLE = 4096,
	TY_REGCOLLATION = 4191,
	TY_ANYCOMPATIBLE = 5077,
	TY_ANYCOMPATIBLEARRAY = 5078,
	TY_ANYCOMPATIBLENONARRAY = 5079,
	TY_XID8 = 5069,
	TY_ACLITEM = 1033,
	TY_PG_LSN = 3220,
	/* array types */
	TY_BOOL_ARRAY = 1000,
	TY_BYTEA_ARRAY = 1001,
	TY_CHAR_ARRAY = 1002,
	TY_NAME_ARRAY = 1003,
	TY_INT2_ARRAY = 1005,
	TY_INT4_ARRAY = 1007,
	TY_TEXT_ARRAY = 1009,
	TY_BPCHAR_ARRAY = 1014,
	TY_VARCHAR_ARRAY = 1015,
	TY_INT8_ARRAY = 1016,
	TY_FLOAT4_ARRAY = 1021,
	TY_FLOAT8_ARRAY = 1022,
	TY_OID_ARRAY = 1028,
	TY_TIMESTAMP_ARRAY = 1115,
	TY_DATE_ARRAY = 1182,
	TY_TIME_ARRAY = 1183,
	TY_TIMESTAMPTZ_ARRAY = 1185,
	TY_INTERVAL_ARRAY = 1187,
	TY_NUMERIC_ARRAY = 1231,
	TY_TIMETZ_ARRAY = 1270,
	TY_UUID_ARRAY = 2951,
	TY_JSON_ARRAY = 199,
	TY_JSONB_ARRAY = 3807,
	TY_REGCLASS_ARRAY = 2210,
	TY_REGTYPE_ARRAY = 2211,
	TY_RECORD_ARRAY = 2287,
	TY_CSTRING_ARRAY = 1263,
	TY_INT2VECTOR_ARRAY = 1006,
	TY_OIDVECTOR_ARRAY = 1013,
	TY_ACLITEM_ARRAY = 1034,
	TY_INET_ARRAY = 1041,
	TY_REGPROC_ARRAY = 1008
};

/* Type modifiers as PostgreSQL stores them: -1 = none; varchar(n)/char(n):
 * n + 4; numeric(p,s): ((p << 16) | s) + 4; timestamp(p)/time(p): p. */
#define TY_TYPMOD_NONE (-1)
#define TY_VARHDRSZ 4

typedef struct ty_type ty_type;

/* Text input: parses str[0..len) (not NUL-terminated) with typmod; throws
 * 22P02/22007/22008/22003/... on bad input with PostgreSQL's message. */
typedef ty_datum (*ty_in_fn)(const char *str, size_t len, int32_t typmod);
/* Text output: appends PostgreSQL's text form to out. */
typedef void (*ty_out_fn)(ty_datum v, util_buf *out);
/* Binary receive/send: PostgreSQL's binary wire format for the type. */
typedef ty_datum (*ty_recv_fn)(const uint8_t *p, size_t len, int32_t typmod);
typedef void (*ty_send_fn)(ty_datum v, util_buf *out);
/* Total order of the default btree operator class: <0, 0, >0. */
typedef int (*ty_cmp_fn)(ty_datum a, ty_datum b);
/* Hash consistent with cmp (equal values hash equal). */
typedef uint64_t (*ty_hash_fn)(ty_datum a);
/* Order-preserving key encoding of a non-NULL value: appends bytes whose
 * memcmp order equals cmp order and that are self-delimiting (a decoder can
 * find where they end). See docs/key-encoding.md. */
typedef void (*ty_keyenc_fn)(ty_datum v, util_buf *out);
/* Decodes one value from [p, end); returns bytes consumed, 0 if malformed.
 * Every keyable type has one. For types whose encoding is lossy (numeric
 * display scale, float -0, interval month/day split, bpchar padding) the
 * decoded value only compares equal to the original: ty_type.key_lossy is
 * set and the SQL layer stores the value itself as well. */
typedef size_t (*ty_keydec_fn)(const uint8_t *p, const uint8_t *end, ty_datum *out);
/* Applies a typmod on assignment or explicit cast (varchar(n) length
 * check/truncation, numeric rounding/overflow, timestamp precision). */
typedef ty_datum (*ty_typmod_fn)(ty_datum v, int32_t typmod, bool explicit_cast);
/* Formats a typmod for format_type(): "(10)", "(12,2)" ... */
typedef void (*ty_typmodout_fn)(int32_t typmod, util_buf *out);

struct ty_type {
	ty_oid oid;
	const char *name;   /* pg_type.typname */
	const char *sqlname;/* format_type() spelling: "integer", "character varying", ... */
	int16_t len;        /* fixed byte length for pg_type.typlen, -1 varlena, -2 cstring */
	bool byval;         /* datum uses .i/.f */
	char category;      /* pg_type.typcategory: B C D E G I N P S T U V X A */
	bool preferred;     /* pg_type.typispreferred */
	char typtype;       /* 'b' base, 'p' pseudo, 'c' composite, 'e' enum, 'd' domain */
	char align;         /* 'c' 's' 'i' 'd' */
	ty_oid elem;        /* arrays: element type; else 0 */
	ty_oid array;       /* the array type of this type, or 0 */
	ty_in_fn in;
	ty_out_fn out;
	ty_recv_fn recv;    /* NULL: no binary I/O */
	ty_send_fn send;
	ty_cmp_fn cmp;      /* NULL: not orderable */
	ty_hash_fn hash;    /* NULL: not hashable */
	ty_keyenc_fn keyenc;/* NULL: cannot be a key column */
	ty_keydec_fn keydec;
	bool key_lossy;
	ty_typmod_fn typmod_apply;
	ty_typmodout_fn typmod_out;
	const char *input_name;  /* pg_proc names for pg_type: "int4in" ... */
	const char *output_name;
};

/* The type registry (built-in types; arrays included). */
const ty_type *ty_type_get(ty_oid oid); /* NULL if unknown */
/* True for the oid-alias types regclass ... regdictionary (numeric.h),
 * whose text input reads the catalog through the SQL layer's resolver. */
bool ty_is_reg_type(ty_oid oid);
const ty_type *ty_type_by_name(const char *name); /* pg_type.typname or SQL alias */
/* Iterates all types (for pg_type): returns the i-th or NULL past the end. */
const ty_type *ty_type_nth(int i);
/* Registers a type (startup only, before any session). */
void ty_type_register(const ty_type *t);

/* format_type(oid, typmod): "integer", "character varying(10)", "numeric(12,2)",
 * "timestamp without time zone", "integer[]". */
void ty_format_type(ty_oid oid, int32_t typmod, util_buf *out);
/* Text I/O helpers dispatching on the type. */
ty_datum ty_input(ty_oid type, const char *str, size_t len, int32_t typmod);
void ty_output(ty_oid type, ty_datum v, util_buf *out);
char *ty_output_cstring(ty_oid type, ty_datum v); /* in the current arena */
int ty_compare(ty_oid type, ty_datum a, ty_datum b); /* NULLs last */
bool ty_equal(ty_oid type, ty_datum a, ty_datum b);

/* ---------------------------------------------------------------- functions */

#define TY_FUNC_MAX_ARGS 8

/* Call information handed to a built-in function (PostgreSQL fmgr). */
typedef struct ty_fcinfo {
	int nargs;
	ty_datum *args;          /* args[i].null set for NULL arguments */
	const ty_oid *argtypes;  /* actual (resolved) argument types */
	ty_oid rettype;          /* resolved result type (polymorphic functions) */
	int32_t rettypmod;
	void **cache;            /* per-call-site slot, NULL at first call (fn_extra) */
	util_arena *cache_arena; /* lives as long as the plan: allocate *cache here */
	void *exec;              /* executor context for session-aware functions (sql layer) */
	/* Set-returning functions (value-per-call): the executor calls fn until
	 * it sets srf_done; srf_state persists between calls (cache_arena). */
	void *srf_state;
	bool srf_done;
	bool srf_first;
} ty_fcinfo;

typedef ty_datum (*ty_fn)(ty_fcinfo *fc);

/* Volatility as in pg_proc.provolatile. */
#define TY_IMMUTABLE 'i'
#define TY_STABLE 's'
#define TY_VOLATILE 'v'

typedef struct ty_func {
	const char *name;     /* SQL name, lower case, in pg_catalog */
	int nargs;            /* fixed arguments (a VARIADIC one counts once) */
	ty_oid args[TY_FUNC_MAX_ARGS];
	ty_oid ret;
	ty_fn fn;             /* NULL for aggregates/window functions (see below) */
	char volatility;
	bool strict;          /* NULL in any argument -> NULL without calling */
	bool retset;          /* set-returning */
	char kind;            /* 'f' function, 'a' aggregate, 'w' window */
	ty_oid variadic;      /* element type of the VARIADIC last argument, or 0 */
	const char *prosrc;   /* pg_proc.prosrc (C symbol name) */
	ty_oid oid;           /* 0 = assigned at registration (stable order) */
	int16_t nargdefaults; /* trailing args that may be omitted (their defaults are the fn's job) */
	/* Functions returning rows (OUT columns, e.g. jsonb_each): ret is
	 * TY_RECORD and each result datum has .p -> ty_record with nout fields. */
	int nout;
	const ty_oid *outtypes;
	const char *const *outnames;
} ty_func;

/* Registration (startup only). The table must stay alive; oids are assigned
 * in registration order when 0. */
void ty_func_register(const ty_func *funcs, int n);
/* Candidates with this name (all arities); iterate with *cursor starting 0.
 * Returns NULL at the end. */
const ty_func *ty_func_lookup(const char *name, int *cursor);
const ty_func *ty_func_by_oid(ty_oid oid);
const ty_func *ty_func_nth(int i); /* for pg_proc */
ty_oid ty_func_oid(const ty_func *f);

/* Operators (pg_operator). Binary when left != 0; prefix when left == 0. */
typedef struct ty_operator {
	const char *name;  /* "+", "||", "~~" ... */
	ty_oid left, right, result;
	const char *func;  /* name of the implementing ty_func with (left, right) args */
	const char *commutator; /* operator name, or NULL */
	const char *negator;
	ty_oid oid;        /* 0 = assigned */
} ty_operator;

void ty_operator_register(const ty_operator *ops, int n);
const ty_operator *ty_operator_lookup(const char *name, int *cursor);
const ty_operator *ty_operator_nth(int i);
/* The function implementing an operator (resolved at registration end). */
const ty_func *ty_operator_func(const ty_operator *op);

/* Casts (pg_cast). func == NULL with method 'b': binary coercible (same
 * datum); method 'i': via text output + input. */
typedef struct ty_cast {
	ty_oid source, target;
	const char *func;  /* ty_func name taking (source); the target typmod is applied
			    * afterwards with the target type's typmod_apply */
	char context;      /* 'i' implicit, 'a' assignment, 'e' explicit */
	char method;       /* 'f' function, 'b' binary, 'i' I/O */
} ty_cast;

void ty_cast_register(const ty_cast *casts, int n);
const ty_cast *ty_cast_lookup(ty_oid source, ty_oid target);
const ty_cast *ty_cast_nth(int i);
/* Performs a cast at run time (looks the cast up; I/O casts included). */
ty_datum ty_cast_value(ty_datum v, ty_oid source, ty_oid target, int32_t typmod, bool explicit_cast);

/* Aggregates: state lives in the executor's arena for the group; the
 * executor calls init once per group, step per input row (skipped for
 * NULL inputs when strict), combine for parallel partial aggregation, and
 * final for the result (may be called more than once: window frames). */
typedef struct ty_agg {
	const char *name;
	int nargs;
	ty_oid args[TY_FUNC_MAX_ARGS];
	ty_oid ret;
	bool strict;            /* skip rows with a NULL argument */
	size_t state_size;      /* bytes of state, zeroed then init() */
	void (*init)(void *state, const ty_fcinfo *fc);
	void (*step)(void *state, ty_fcinfo *fc);
	void (*combine)(void *state, const void *other); /* NULL: not parallel-safe */
	ty_datum (*final)(void *state, ty_fcinfo *fc);
	/* Moving-frame support (window aggregates): removes one row; NULL if not invertible. */
	void (*inverse)(void *state, ty_fcinfo *fc);
	ty_oid oid;
	/* Ordered-set aggregates (percentile_cont(0.5) WITHIN GROUP (ORDER BY x)):
	 * the first ndirect args are direct arguments evaluated once per group;
	 * the executor feeds the aggregated args to step() in sorted order. */
	bool ordered_set;
	int ndirect;
} ty_agg;

void ty_agg_register(const ty_agg *aggs, int n);
const ty_agg *ty_agg_lookup(const char *name, int *cursor);
const ty_agg *ty_agg_by_oid(ty_oid oid);
const ty_agg *ty_agg_nth(int i);

/* Calls a function by name with resolved arguments (tests and simple
 * callers): exact argument types must match a registered signature. */
ty_datum ty_call(const char *name, int nargs, const ty_oid *argtypes, ty_datum *args);

/* The types only system catalogs use: int2vector, oidvector (arrays with
 * lower bound 0, text form "1 2 3"), aclitem, pg_node_tree (text forms),
 * and inet when no other area registered it. Called by the SQL layer at
 * startup, after ty_init(). Idempotent (not thread-safe: startup only). */
void ty_catalog_types_register(void);
/* int2vector / oidvector values from n elements (current arena). */
ty_datum ty_int2vector_from(int n, const int16_t *vals);
ty_datum ty_oidvector_from(int n, const ty_oid *vals);
/* An inet value from its text form; throws 22P02 on bad input. */
ty_datum ty_inet_from_text(const char *s);

/* Registers every built-in type, function, operator, cast and aggregate.
 * Idempotent; call once at startup. */
void ty_init(void);

/* ---------------------------------------------------------------- UTF-8 */

/* Length of the longest valid UTF-8 prefix (NUL bytes are invalid, as in
 * PostgreSQL's text). */
size_t ty_str_valid_utf8_prefix(const char *s, size_t n);
/* Throws 22021 "invalid byte sequence for encoding "UTF8": 0x.." unless s is valid. */
void ty_str_verify_utf8(const char *s, size_t n);

/* ---------------------------------------------------------------- keys */

/*
 * Composite order-preserving keys (docs/key-encoding.md):
 *   for each column: a marker byte, then the type's encoding;
 *   marker 0x02 = value; NULL = 0x03 (sorts after values: NULLS LAST for
 *   ASC, as PostgreSQL); NULLS FIRST uses 0x01 for NULL.
 *   DESC columns: the marker and value bytes are inverted (x ^ 0xff),
 *   which makes them sort in reverse.
 */
#define TY_KEY_NULL_FIRST 0x01
#define TY_KEY_VALUE 0x02
#define TY_KEY_NULL_LAST 0x03

typedef struct ty_keycol {
	ty_oid type;
	bool desc;
	bool nulls_first;
} ty_keycol;

void ty_key_encode(const ty_keycol *col, ty_datum v, util_buf *out);
/* Decodes one column; returns bytes consumed or 0 if malformed. The
 * value is allocated in the current arena. */
size_t ty_key_decode(const ty_keycol *col, const uint8_t *p, const uint8_t *end, ty_datum *out);
/* ty_key_decode with col->type's entry already looked up (t is
 * ty_type_get(col->type), which must be non-NULL): for decoding many keys
 * of the same columns. */
size_t ty_key_decode_t(const ty_type *t, const ty_keycol *col, const uint8_t *p, const uint8_t *end,
		       ty_datum *out);
/* Skips one encoded column without decoding; 0 if malformed. */
size_t ty_key_skip(const ty_keycol *col, const uint8_t *p, const uint8_t *end);

#endif /* STRATA_TYPES_H */
