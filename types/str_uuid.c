/*
 * str_uuid.c — uuid: PostgreSQL's text input (optional braces, a hyphen
 * allowed after any group of four hex digits), canonical lower-case output,
 * 16-byte binary I/O, comparison, hashing and gen_random_uuid().
 */
#include "str_int.h"

#include <ctype.h>

#define UUID_LEN 16

static UTIL_NORETURN void bad_uuid(const char *s, size_t n)
{
	ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type %s: \"%.*s\"", "uuid",
		 (int)n, s);
}

static int hexv(char c)
{
	return isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10);
}

static ty_datum uuid_in(const char *s, size_t n, int32_t typmod)
{
	(void)typmod;
	uint8_t *r = ty_alloc(UUID_LEN);
	size_t i = 0;
	bool braces = false;
	if (n > 0 && s[0] == '{') {
		braces = true;
		i++;
	}
	for (int k = 0; k < UUID_LEN; k++) {
		if (i + 2 > n || !isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
			bad_uuid(s, n);
		r[k] = (uint8_t)(hexv(s[i]) << 4 | hexv(s[i + 1]));
		i += 2;
		if (i < n && s[i] == '-' && (k % 2) == 1 && k < UUID_LEN - 1)
			i++;
	}
	if (braces) {
		if (i >= n || s[i] != '}')
			bad_uuid(s, n);
		i++;
	}
	if (i != n)
		bad_uuid(s, n);
	return ty_bytes(r, UUID_LEN);
}

static void uuid_out(ty_datum v, util_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p = (const uint8_t *)ty_str_p(v);
	char buf[36];
	size_t k = 0;
	for (int i = 0; i < UUID_LEN; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			buf[k++] = '-';
		buf[k++] = hex[p[i] >> 4];
		buf[k++] = hex[p[i] & 15];
	}
	util_buf_append(out, buf, k);
}

static ty_datum uuid_recv(const uint8_t *p, size_t n, int32_t typmod)
{
	(void)typmod;
	if (n < UUID_LEN)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	if (n > UUID_LEN)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	return ty_datum_copy(ty_bytes(p, UUID_LEN), false);
}

static void uuid_send(ty_datum v, util_buf *out)
{
	util_buf_append(out, ty_str_p(v), UUID_LEN);
}

/* The byte difference at the first differing byte, as memcmp in
 * PostgreSQL's uuid_cmp(). */
static int cmp_uuid(ty_datum a, ty_datum b)
{
	return ty_str_memcmp(ty_str_p(a), UUID_LEN, ty_str_p(b), UUID_LEN);
}

static uint64_t uuid_hash(ty_datum a)
{
	return util_hash64(ty_str_p(a), UUID_LEN, 0x0001d);
}

static const ty_type uuid_type = {.oid = TY_UUID,
				  .name = "uuid",
				  .len = UUID_LEN,
				  .category = 'U',
				  .typtype = 'b',
				  .align = 'c',
				  .array = TY_UUID_ARRAY,
				  .in = uuid_in,
				  .out = uuid_out,
				  .recv = uuid_recv,
				  .send = uuid_send,
				  .cmp = cmp_uuid,
				  .hash = uuid_hash,
				  .keyenc = ty_str_key_uuid_enc,
				  .keydec = ty_str_key_uuid_dec,
				  .input_name = "uuid_in",
				  .output_name = "uuid_out"};

static ty_datum f_uuid_eq(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) == 0);
}
static ty_datum f_uuid_ne(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) != 0);
}
static ty_datum f_uuid_lt(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) < 0);
}
static ty_datum f_uuid_le(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) <= 0);
}
static ty_datum f_uuid_gt(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) > 0);
}
static ty_datum f_uuid_ge(ty_fcinfo *fc)
{
	return ty_bool(cmp_uuid(fc->args[0], fc->args[1]) >= 0);
}
static ty_datum f_uuid_cmp(ty_fcinfo *fc)
{
	return ty_int(cmp_uuid(fc->args[0], fc->args[1]));
}

/* A version 4 (random) UUID, RFC 4122. */
static ty_datum f_gen_random_uuid(ty_fcinfo *fc)
{
	(void)fc;
	uint8_t *r = ty_alloc(UUID_LEN);
	if (util_random_bytes(r, UUID_LEN) != 0)
		ty_error(UTIL_E_INTERNAL_ERROR, "could not generate random values");
	r[6] = (uint8_t)((r[6] & 0x0f) | 0x40);
	r[8] = (uint8_t)((r[8] & 0x3f) | 0x80);
	return ty_bytes(r, UUID_LEN);
}

#define U    TY_UUID
#define BOOL TY_BOOL

static const ty_func uuid_funcs[] = {
    TY_STR_FN("uuid_eq", 2956, BOOL, f_uuid_eq, "uuid_eq", U, U),
    TY_STR_FN("uuid_ne", 2959, BOOL, f_uuid_ne, "uuid_ne", U, U),
    TY_STR_FN("uuid_lt", 2954, BOOL, f_uuid_lt, "uuid_lt", U, U),
    TY_STR_FN("uuid_le", 2955, BOOL, f_uuid_le, "uuid_le", U, U),
    TY_STR_FN("uuid_gt", 2958, BOOL, f_uuid_gt, "uuid_gt", U, U),
    TY_STR_FN("uuid_ge", 2957, BOOL, f_uuid_ge, "uuid_ge", U, U),
    TY_STR_FN("uuid_cmp", 2960, TY_INT4, f_uuid_cmp, "uuid_cmp", U, U),
    {.name = "gen_random_uuid",
     .nargs = 0,
     .ret = U,
     .fn = f_gen_random_uuid,
     .volatility = TY_VOLATILE,
     .strict = true,
     .kind = 'f',
     .prosrc = "gen_random_uuid",
     .oid = 3432},
};

static const ty_operator uuid_ops[] = {
    TY_STR_OP("=", 2972, U, U, BOOL, "uuid_eq", "=", "<>"),
    TY_STR_OP("<>", 2973, U, U, BOOL, "uuid_ne", "<>", "="),
    TY_STR_OP("<", 2974, U, U, BOOL, "uuid_lt", ">", ">="),
    TY_STR_OP(">", 2975, U, U, BOOL, "uuid_gt", "<", "<="),
    TY_STR_OP("<=", 2976, U, U, BOOL, "uuid_le", ">=", ">"),
    TY_STR_OP(">=", 2977, U, U, BOOL, "uuid_ge", "<=", "<"),
};

void ty_str_register_uuid(void)
{
	ty_type_register(&uuid_type);
	ty_func_register(uuid_funcs, (int)UTIL_ARRAY_LEN(uuid_funcs));
	ty_operator_register(uuid_ops, (int)UTIL_ARRAY_LEN(uuid_ops));
}
