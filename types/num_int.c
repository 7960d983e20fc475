/*
 * num_int.c — the integer types int2, int4, int8: text input with
 * PostgreSQL's pg_strtoint rules and messages, output, binary send/recv,
 * comparison, hashing and the shared integer key encoding (every integer
 * type is encoded as a sign-flipped big-endian int64, so keys of int2, int4
 * and int8 columns compare with each other; docs/key-encoding.md).
 */
#include "num_priv.h"

#include <string.h>

int64_t num_parse_int(const char *s, size_t len, int bits, const char *typname)
{
	const char *p = s, *end = s + len;
	while (p < end && num_isspace(*p))
		p++;
	bool neg = false;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == end || *p < '0' || *p > '9')
		num_err_syntax(typname, s, len);
	/* Accumulate negatively so that the minimum value fits. */
	int64_t lim = bits == 16 ? INT16_MIN : bits == 32 ? INT32_MIN : INT64_MIN;
	int64_t v = 0;
	/* Overflow is reported as soon as it happens, before any trailing junk. */
	while (p < end && *p >= '0' && *p <= '9') {
		int d = *p++ - '0';
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_sub_overflow(v, d, &v) || v < lim)
			num_err_value_range(typname, s, len);
	}
	while (p < end && num_isspace(*p))
		p++;
	if (p != end)
		num_err_syntax(typname, s, len);
	if (!neg) {
		if (v == lim)
			num_err_value_range(typname, s, len);
		v = -v;
	}
	return v;
}

const char num_digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
				  "25262728293031323334353637383940414243444546474849"
				  "50515253545556575859606162636465666768697071727374"
				  "75767778798081828384858687888990919293949596979899";

void num_put_int(util_buf *out, int64_t v)
{
	/* Two digits per division (result sets print many ids). */
	const char *pairs = num_digit_pairs;
	char tmp[24];
	char *q = tmp + sizeof tmp;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	while (u >= 100) {
		unsigned d = (unsigned)(u % 100) * 2;
		u /= 100;
		q -= 2;
		q[0] = pairs[d];
		q[1] = pairs[d + 1];
	}
	if (u >= 10) {
		q -= 2;
		q[0] = pairs[u * 2];
		q[1] = pairs[u * 2 + 1];
	} else {
		*--q = (char)('0' + u);
	}
	if (v < 0)
		*--q = '-';
	util_buf_append(out, q, (size_t)(tmp + sizeof tmp - q));
}

static ty_datum int2_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_int(num_parse_int(s, len, 16, "smallint"));
}

static ty_datum int4_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_int(num_parse_int(s, len, 32, "integer"));
}

static ty_datum int8_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_int(num_parse_int(s, len, 64, "bigint"));
}

static void int_out(ty_datum v, util_buf *out)
{
	num_put_int(out, v.i);
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

static ty_datum int2_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 2);
	return ty_int((int16_t)get_be(p, 2));
}

static ty_datum int4_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 4);
	return ty_int((int32_t)get_be(p, 4));
}

static ty_datum int8_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 8);
	return ty_int((int64_t)get_be(p, 8));
}

static void int2_send(ty_datum v, util_buf *out)
{
	util_buf_put_be16(out, (uint16_t)v.i);
}
static void int4_send(ty_datum v, util_buf *out)
{
	util_buf_put_be32(out, (uint32_t)v.i);
}
static void int8_send(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i);
}

static int int_cmp(ty_datum a, ty_datum b)
{
	return (a.i > b.i) - (a.i < b.i);
}

/* Equal integers hash equal whatever their width (cross-type hash joins). */
static uint64_t int_hash(ty_datum a)
{
	return util_hash_mix((uint64_t)a.i);
}

void num_int_keyenc(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i ^ (UINT64_C(1) << 63));
}

size_t num_int_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 8)
		return 0;
	*out = ty_int((int64_t)(util_get_be64(p) ^ (UINT64_C(1) << 63)));
	return 8;
}

/* Key decoding must reject values that do not fit the column's type (a
 * malformed or foreign key), so int2/int4 check the range. */
static size_t int2_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	size_t n = num_int_keydec(p, end, out);
	return n && out->i >= INT16_MIN && out->i <= INT16_MAX ? n : 0;
}

static size_t int4_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	size_t n = num_int_keydec(p, end, out);
	return n && out->i >= INT32_MIN && out->i <= INT32_MAX ? n : 0;
}

const ty_type num_int_types[3] = {
    {.oid = TY_INT2,
     .name = "int2",
     .sqlname = "smallint",
     .len = 2,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 's',
     .array = TY_INT2_ARRAY,
     .in = int2_in,
     .out = int_out,
     .recv = int2_recv,
     .send = int2_send,
     .cmp = int_cmp,
     .hash = int_hash,
     .keyenc = num_int_keyenc,
     .keydec = int2_keydec,
     .input_name = "int2in",
     .output_name = "int2out"},
    {.oid = TY_INT4,
     .name = "int4",
     .sqlname = "integer",
     .len = 4,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'i',
     .array = TY_INT4_ARRAY,
     .in = int4_in,
     .out = int_out,
     .recv = int4_recv,
     .send = int4_send,
     .cmp = int_cmp,
     .hash = int_hash,
     .keyenc = num_int_keyenc,
     .keydec = int4_keydec,
     .input_name = "int4in",
     .output_name = "int4out"},
    {.oid = TY_INT8,
     .name = "int8",
     .sqlname = "bigint",
     .len = 8,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'd',
     .array = TY_INT8_ARRAY,
     .in = int8_in,
     .out = int_out,
     .recv = int8_recv,
     .send = int8_send,
     .cmp = int_cmp,
     .hash = int_hash,
     .keyenc = num_int_keyenc,
     .keydec = num_int_keydec,
     .input_name = "int8in",
     .output_name = "int8out"},
};
