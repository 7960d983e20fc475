/*
 * json_int.h — private to the json area (types/json_*.c): the JSON lexer
 * and parser with PostgreSQL's grammar and errors, the in-memory tree (jv)
 * both json and jsonb functions work on, the jsonb binary container format
 * (docs/jsonb-format.md) and the number canonicalisation jsonb shares with
 * numeric_in/numeric_out.
 */
#ifndef STRATA_JSON_INT_H
#define STRATA_JSON_INT_H

#include "array.h"
#include "json.h"
#include "types_int.h"

#include <string.h>

/* ---------------------------------------------------------------- tree */

/* Value kinds, numbered in jsonb's btree type order (PostgreSQL's
 * jbvNull < jbvString < jbvNumeric < jbvBool < jbvArray < jbvObject). */
enum { JV_NULL = 0, JV_STRING = 1, JV_NUMBER = 2, JV_BOOL = 3, JV_ARRAY = 0x10, JV_OBJECT = 0x11 };

typedef struct jv {
	uint8_t type;
	bool b;           /* JV_BOOL */
	uint32_t len;     /* bytes at s */
	uint32_t n;       /* array elements / object pairs */
	const char *s;    /* string (de-escaped UTF-8) or number text */
	struct jv *kids;  /* array: n values; object: 2n (key, value) in order */
	const char *span; /* json text only: the value's source text */
	uint32_t spanlen;
} jv;

/* Parses JSON text into a tree in the current arena. jsonb: numbers are
 * canonicalised as numeric_in/out would (and range-checked), strings
 * de-escaped with jsonb's errors (\u0000, lone surrogates); objects are
 * normalised (keys ordered by length then bytes, last duplicate wins).
 * Otherwise (json functions) strings are de-escaped, numbers kept as
 * written, objects kept in input order with duplicates. Throws 22P02 with
 * PostgreSQL's DETAIL and CONTEXT. */
jv *json_parse_tree(const char *s, size_t len, bool jsonb);
/* Validates JSON text (json_in): grammar only, escapes not decoded. */
void json_validate(const char *s, size_t len);

/* Sorts/dedupes object keys the jsonb way (recursively when deep). */
void jv_normalize(jv *v, bool deep);

/* Builders (current arena). */
jv *jv_new(uint8_t type);
jv *jv_string(const char *s, size_t len);
jv *jv_number(const char *s, size_t len); /* s must be canonical numeric text */
jv *jv_bool(bool b);

/* Appends jsonb's text form (JsonbToCString); pretty = jsonb_pretty. */
void jv_out(const jv *v, util_buf *out, bool pretty);
/* escape_json: appends s as a quoted JSON string. */
void json_escape(util_buf *out, const char *s, size_t len);

/* ---------------------------------------------------------------- numbers */

/* Canonical numeric text of a JSON number token (numeric_in then
 * numeric_out): "1.0e2" -> "100", "-0.0" -> "0.0". Throws 22003 "value
 * overflows numeric format" like numeric_in. Result in the current arena. */
const char *json_number_canon(const char *s, size_t len, uint32_t *outlen);
/* numeric_cmp on canonical texts. */
int json_number_cmp(const char *a, size_t alen, const char *b, size_t blen);
/* Hash equal for numerically equal canonical texts. */
uint64_t json_number_hash(const char *s, size_t len);

/* ---------------------------------------------------------------- jsonb binary */

/* Container header bits and entry types (docs/jsonb-format.md). */
#define JB_COUNT_MASK 0x0fffffffu
#define JB_FARRAY     0x10000000u
#define JB_FOBJECT    0x20000000u
#define JB_FSCALAR    0x40000000u
#define JB_OFF_MASK   0x0fffffffu
#define JB_MAX_SIZE   0x0fffffffu

enum { JE_STRING = 0, JE_NUMBER = 1, JE_FALSE = 2, JE_TRUE = 3, JE_NULL = 4, JE_CONTAINER = 5 };

static inline uint32_t jb_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* A view of one container inside jsonb bytes. */
typedef struct jbc {
	const uint8_t *p; /* header */
	uint32_t len;     /* bytes of the whole container */
} jbc;

static inline uint32_t jbc_header(jbc c)
{
	return jb_u32(c.p);
}
static inline uint32_t jbc_count(jbc c)
{
	return jbc_header(c) & JB_COUNT_MASK;
}
static inline bool jbc_is_array(jbc c)
{
	return (jbc_header(c) & JB_FARRAY) != 0;
}
static inline bool jbc_is_object(jbc c)
{
	return (jbc_header(c) & JB_FOBJECT) != 0;
}
static inline bool jbc_is_scalar(jbc c)
{
	return (jbc_header(c) & JB_FSCALAR) != 0;
}

/* A child: its entry type and bytes. */
typedef struct jbe {
	int type; /* JE_* */
	const uint8_t *p;
	uint32_t len;
} jbe;

/* Child i of a container (array element i; object: key i for i < count,
 * value i - count for i >= count). */
jbe jbc_child(jbc c, uint32_t i);
static inline jbc jbe_container(jbe e)
{
	return (jbc){e.p, e.len};
}
/* Object key lookup (binary search); false if absent. */
bool jbc_find_key(jbc c, const char *key, size_t klen, jbe *out);

/* The root container of a jsonb datum. */
static inline jbc jb_root(ty_datum d)
{
	return (jbc){d.p, d.len};
}

/* Tree <-> binary. */
ty_datum jv_to_jsonb(const jv *v);
jv *jsonb_to_jv(ty_datum d);
jv *jbe_to_jv(jbe e);
/* A jsonb datum holding child e (scalars become raw-scalar containers). */
ty_datum jbe_to_jsonb(jbe e);

/* Text form of a jsonb datum (jsonb_out). */
void jsonb_out_buf(ty_datum d, util_buf *out);

/* Ordering and hashing (json_cmp.c). */
int jsonb_cmp_datum(ty_datum a, ty_datum b);
uint64_t jsonb_hash_datum(ty_datum a);
/* Order-preserving key encoding (json_keys.c). */
void jsonb_keyenc(ty_datum v, util_buf *out);
size_t jsonb_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out);
/* @> (jsonb_contains). */
bool jsonb_contains_datum(ty_datum a, ty_datum b);

/* Shared by the json function files. */
jv *json_tree_of(ty_datum json_text); /* json functions' parse (de-escaped, as written) */
/* A path step as an array index (strtoint: leading spaces, sign, digits,
 * nothing after, int range); false if not one. */
bool json_path_index(const char *s, size_t n, int *out);
/* JsonbValueAsText: strings bare, null -> SQL NULL, containers as text. */
ty_datum jbe_as_text(jbe e);
/* The root of a jsonb datum as an entry (a raw scalar unwrapped). */
jbe jb_root_entry(ty_datum d);
/* A SQL value as a JSON tree (to_jsonb rules); key: as an object key
 * (scalars only, always a string). */
jv *json_datum_to_jv(ty_datum v, ty_oid type, bool key);
/* Compact JSON text of a tree (no spaces), as json_strip_nulls prints. */
void jv_out_compact(const jv *v, util_buf *out);

/* Registration pieces of the json area. */
void json_register_types(void);
void json_register_access(void);
void json_register_modify(void);
void json_register_ops(void);
void json_register_funcs(void);
void json_register_build(void);
void json_register_srfs(void);
void json_register_aggs(void);

/* The stack depth PostgreSQL would run out at, roughly (54001). */
#define JSON_MAX_DEPTH 10000
UTIL_NORETURN void json_depth_error(void);

#endif /* STRATA_JSON_INT_H */
