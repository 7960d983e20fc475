/*
 * num_oid.c — the unsigned 32-bit identifier types oid, xid and cid: text
 * and binary I/O as PostgreSQL (oid accepts a minus sign for values that
 * fit after sign extension; xid/cid parse like strtoul with base 0 and
 * never fail), comparison, hashing and key encoding for oid.
 *
 * Datum: .i holds the 32-bit value sign-extended as an int32 (what the
 * binary-coercible casts int4 <-> oid need: 4294967295::oid::int4 = -1);
 * readers take (uint32_t).i, so a zero-extended value means the same oid.
 */
#include "num_priv.h"

#include <errno.h>
#include <stdlib.h>

#define OIDARG(n) ((uint32_t)ARG_I(n))

static ty_datum oid_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	char *buf = ty_strndup(s, len);
	if (*buf == '\0')
		num_err_syntax("oid", s, len);
	errno = 0;
	char *end;
	unsigned long cvt = strtoul(buf, &end, 10);
	if (errno && errno != ERANGE && errno != EINVAL)
		num_err_syntax("oid", s, len);
	if (end == buf)
		num_err_syntax("oid", s, len);
	if (errno == ERANGE)
		num_err_value_range("oid", s, len);
	while (*end && num_isspace(*end))
		end++;
	if (*end)
		num_err_syntax("oid", s, len);
	uint32_t r = (uint32_t)cvt;
	if (cvt != (unsigned long)r && cvt != (unsigned long)(long)(int32_t)r)
		num_err_value_range("oid", s, len);
	return ty_int((int32_t)r);
}

static ty_datum xid_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	return ty_int((int32_t)(uint32_t)strtoul(ty_strndup(s, len), NULL, 0));
}

static void oid_out(ty_datum v, util_buf *out)
{
	util_buf_printf(out, "%u", (uint32_t)v.i);
}

static ty_datum oid_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 4);
	return ty_int((int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]));
}

static void oid_send(ty_datum v, util_buf *out)
{
	util_buf_put_be32(out, (uint32_t)v.i);
}

static int oid_cmp(ty_datum a, ty_datum b)
{
	uint32_t x = (uint32_t)a.i, y = (uint32_t)b.i;
	return (x > y) - (x < y);
}

static uint64_t oid_hash(ty_datum a)
{
	return util_hash_mix((uint32_t)a.i);
}

static void oid_keyenc(ty_datum v, util_buf *out)
{
	util_buf_put_be32(out, (uint32_t)v.i);
}

static size_t oid_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 4)
		return 0;
	*out = ty_int((int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]));
	return 4;
}

const ty_type num_oid_types[3] = {
    {.oid = TY_OID,
     .name = "oid",
     .len = 4,
     .byval = true,
     .category = 'N',
     .typtype = 'b',
     .align = 'i',
     .array = TY_OID_ARRAY,
     .in = oid_in,
     .out = oid_out,
     .recv = oid_recv,
     .send = oid_send,
     .cmp = oid_cmp,
     .hash = oid_hash,
     .keyenc = oid_keyenc,
     .keydec = oid_keydec,
     .input_name = "oidin",
     .output_name = "oidout"},
    {.oid = TY_XID,
     .name = "xid",
     .len = 4,
     .byval = true,
     .category = 'U',
     .typtype = 'b',
     .align = 'i',
     .array = 1011,
     .in = xid_in,
     .out = oid_out,
     .recv = oid_recv,
     .send = oid_send,
     .hash = oid_hash,
     .input_name = "xidin",
     .output_name = "xidout"},
    {.oid = TY_CID,
     .name = "cid",
     .len = 4,
     .byval = true,
     .category = 'U',
     .typtype = 'b',
     .align = 'i',
     .array = 1012,
     .in = xid_in,
     .out = oid_out,
     .recv = oid_recv,
     .send = oid_send,
     .hash = oid_hash,
     .input_name = "cidin",
     .output_name = "cidout"},
};

NUMFN(oideq)
{
	return ty_bool(OIDARG(0) == OIDARG(1));
}
NUMFN(oidne)
{
	return ty_bool(OIDARG(0) != OIDARG(1));
}
NUMFN(oidlt)
{
	return ty_bool(OIDARG(0) < OIDARG(1));
}
NUMFN(oidle)
{
	return ty_bool(OIDARG(0) <= OIDARG(1));
}
NUMFN(oidgt)
{
	return ty_bool(OIDARG(0) > OIDARG(1));
}
NUMFN(oidge)
{
	return ty_bool(OIDARG(0) >= OIDARG(1));
}
NUMFN(btoidcmp)
{
	return ty_int(oid_cmp(ARG(0), ARG(1)));
}
NUMFN(oidlarger)
{
	return OIDARG(0) > OIDARG(1) ? ARG(0) : ARG(1);
}
NUMFN(oidsmaller)
{
	return OIDARG(0) < OIDARG(1) ? ARG(0) : ARG(1);
}
NUMFN(oidtoi8)
{
	return ty_int(OIDARG(0));
}
NUMFN(i8tooid)
{
	if (ARG_I(0) < 0 || ARG_I(0) > (int64_t)UINT32_MAX)
		ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "OID out of range");
	return ty_int((int32_t)(uint32_t)ARG_I(0));
}
/* xideq / xidneq also serve xideqint4 / xidneqint4 (xid vs integer). */
NUMFN(xideq)
{
	return ty_bool(OIDARG(0) == OIDARG(1));
}
NUMFN(xidneq)
{
	return ty_bool(OIDARG(0) != OIDARG(1));
}
NUMFN(cideq)
{
	return ty_bool(OIDARG(0) == OIDARG(1));
}
