/*
 * cat_inet.c — a small inet type (869) for the catalog views that report
 * client addresses (pg_stat_activity.client_addr, inet_client_addr()):
 * IPv4/IPv6 text and binary I/O, PostgreSQL's ordering, the comparison
 * operators and host()/masklen()/family()/text(). Registered only when no
 * other area provides inet.
 *
 * Datum: by reference, 2 + 4 or 2 + 16 bytes: family (4 or 6), netmask
 * bits, then the address in network byte order.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat_types.h"

#define INET_V4 4
#define INET_V6 6

static int addr_len(const uint8_t *p)
{
	return p[0] == INET_V4 ? 4 : 16;
}

static ty_datum make(int family, int bits, const uint8_t *addr)
{
	int n = family == INET_V4 ? 4 : 16;
	uint8_t *p = ty_alloc((size_t)n + 2);
	p[0] = (uint8_t)family;
	p[1] = (uint8_t)bits;
	memcpy(p + 2, addr, (size_t)n);
	return ty_bytes(p, (size_t)n + 2);
}

static UTIL_NORETURN void bad_input(const char *s, size_t len)
{
	ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type inet: \"%.*s\"", (int)len,
		 s);
}

static ty_datum inet_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	char buf[128];
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof buf)
		bad_input(s, len);
	memcpy(buf, s, len);
	buf[len] = '\0';
	int bits = -1;
	char *slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		char *end;
		long b = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || b < 0)
			bad_input(s, len);
		bits = (int)b;
	}
	uint8_t addr[16];
	int family;
	if (inet_pton(AF_INET, buf, addr) == 1)
		family = INET_V4;
	else if (inet_pton(AF_INET6, buf, addr) == 1)
		family = INET_V6;
	else
		bad_input(s, len);
	int maxbits = family == INET_V4 ? 32 : 128;
	if (bits > maxbits)
		bad_input(s, len);
	return make(family, bits < 0 ? maxbits : bits, addr);
}

static void put_addr(const uint8_t *p, util_buf *out)
{
	char buf[INET6_ADDRSTRLEN];
	inet_ntop(p[0] == INET_V4 ? AF_INET : AF_INET6, p + 2, buf, sizeof buf);
	util_buf_puts(out, buf);
}

static void inet_out(ty_datum v, util_buf *out)
{
	const uint8_t *p = v.p;
	put_addr(p, out);
	if (p[1] != addr_len(p) * 8)
		util_buf_printf(out, "/%d", p[1]);
}

/* Wire format: family (2 = IPv4, 3 = IPv6 as PostgreSQL's PGSQL_AF_INET*),
 * bits, is_cidr, address length, address. */
static ty_datum inet_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	if (len < 4)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION,
			 "invalid address family in external \"inet\" value");
	int family = p[0] == 2 ? INET_V4 : p[0] == 3 ? INET_V6 : 0;
	if (!family)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION,
			 "invalid address family in external \"inet\" value");
	int n = family == INET_V4 ? 4 : 16;
	if (p[1] > n * 8)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid bits in external \"inet\" value");
	if (p[3] != n || len != (size_t)n + 4)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "invalid length in external \"inet\" value");
	return make(family, p[1], p + 4);
}

static void inet_send(ty_datum v, util_buf *out)
{
	const uint8_t *p = v.p;
	util_buf_putc(out, p[0] == INET_V4 ? 2 : 3);
	util_buf_putc(out, (char)p[1]);
	util_buf_putc(out, 0);
	util_buf_putc(out, (char)addr_len(p));
	util_buf_append(out, p + 2, (size_t)addr_len(p));
}

/* Compares the first n bits of two addresses. */
static int bits_cmp(const uint8_t *a, const uint8_t *b, int n)
{
	int bytes = n / 8;
	int c = memcmp(a, b, (size_t)bytes);
	if (c || n % 8 == 0)
		return c;
	uint8_t mask = (uint8_t)(0xff << (8 - n % 8));
	return (int)(a[bytes] & mask) - (int)(b[bytes] & mask);
}

/* PostgreSQL's network order: family, network part (shorter mask), mask
 * length, then the whole address. */
static int inet_cmp(ty_datum x, ty_datum y)
{
	const uint8_t *a = x.p, *b = y.p;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	int c = bits_cmp(a + 2, b + 2, a[1] < b[1] ? a[1] : b[1]);
	if (c)
		return c < 0 ? -1 : 1;
	if (a[1] != b[1])
		return a[1] < b[1] ? -1 : 1;
	c = memcmp(a + 2, b + 2, (size_t)addr_len(a));
	return c < 0 ? -1 : c > 0;
}

static uint64_t inet_hash(ty_datum v)
{
	return util_hash64(v.p, v.len, 0x1e7);
}

static ty_datum f_eq(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) == 0);
}
static ty_datum f_ne(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) != 0);
}
static ty_datum f_lt(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) < 0);
}
static ty_datum f_le(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) <= 0);
}
static ty_datum f_gt(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) > 0);
}
static ty_datum f_ge(ty_fcinfo *fc)
{
	return ty_bool(inet_cmp(fc->args[0], fc->args[1]) >= 0);
}
static ty_datum f_cmp(ty_fcinfo *fc)
{
	return ty_int(inet_cmp(fc->args[0], fc->args[1]));
}

static ty_datum f_host(ty_fcinfo *fc)
{
	util_buf b = UTIL_BUF_INIT;
	put_addr(fc->args[0].p, &b);
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}

/* text(inet) always shows the mask length. */
static ty_datum f_text(ty_fcinfo *fc)
{
	util_buf b = UTIL_BUF_INIT;
	const uint8_t *p = fc->args[0].p;
	put_addr(p, &b);
	util_buf_printf(&b, "/%d", p[1]);
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}

static ty_datum f_masklen(ty_fcinfo *fc)
{
	return ty_int(((const uint8_t *)fc->args[0].p)[1]);
}
static ty_datum f_family(ty_fcinfo *fc)
{
	return ty_int(((const uint8_t *)fc->args[0].p)[0]);
}

#define I TY_INET
#define FN(nm, o, r, f, src)                                                                                 \
	{                                                                                                    \
		.name = nm, .nargs = 2, .args = {I, I}, .ret = r, .fn = f, .volatility = TY_IMMUTABLE,       \
		.strict = true, .kind = 'f', .prosrc = src, .oid = o                                         \
	}
#define FN1(nm, o, r, f, src)                                                                                \
	{                                                                                                    \
		.name = nm, .nargs = 1, .args = {I}, .ret = r, .fn = f, .volatility = TY_IMMUTABLE,          \
		.strict = true, .kind = 'f', .prosrc = src, .oid = o                                         \
	}

static const ty_func funcs[] = {
    FN("network_eq", 920, TY_BOOL, f_eq, "network_eq"),
    FN("network_lt", 921, TY_BOOL, f_lt, "network_lt"),
    FN("network_le", 922, TY_BOOL, f_le, "network_le"),
    FN("network_gt", 923, TY_BOOL, f_gt, "network_gt"),
    FN("network_ge", 924, TY_BOOL, f_ge, "network_ge"),
    FN("network_ne", 925, TY_BOOL, f_ne, "network_ne"),
    FN("network_cmp", 926, TY_INT4, f_cmp, "network_cmp"),
    FN1("host", 699, TY_TEXT, f_host, "network_host"),
    FN1("masklen", 697, TY_INT4, f_masklen, "network_masklen"),
    FN1("family", 711, TY_INT4, f_family, "network_family"),
    FN1("text", 730, TY_TEXT, f_text, "network_show"),
};

static const ty_operator ops[] = {
    {"=", I, I, TY_BOOL, "network_eq", "=", "<>", 1201}, {"<>", I, I, TY_BOOL, "network_ne", "<>", "=", 1202},
    {"<", I, I, TY_BOOL, "network_lt", ">", ">=", 1203}, {"<=", I, I, TY_BOOL, "network_le", ">=", ">", 1204},
    {">", I, I, TY_BOOL, "network_gt", "<", "<=", 1205}, {">=", I, I, TY_BOOL, "network_ge", "<=", "<", 1206},
};

static const ty_cast casts[] = {
    {I, TY_TEXT, "text", 'a', 'f'},
    {I, TY_VARCHAR, "text", 'a', 'f'},
    {I, TY_BPCHAR, "text", 'a', 'f'},
};

static const ty_type inet_type = {
    .oid = TY_INET,
    .name = "inet",
    .len = -1,
    .category = 'I',
    .preferred = true,
    .typtype = 'b',
    .align = 'i',
    .array = 1041,
    .in = inet_in,
    .out = inet_out,
    .recv = inet_recv,
    .send = inet_send,
    .cmp = inet_cmp,
    .hash = inet_hash,
    .input_name = "inet_in",
    .output_name = "inet_out",
};

void ty_register_inet(void)
{
	if (ty_type_get(TY_INET))
		return;
	ty_type_register(&inet_type);
	arr_register_array_of(TY_INET);
	ty_func_register(funcs, (int)UTIL_ARRAY_LEN(funcs));
	ty_operator_register(ops, (int)UTIL_ARRAY_LEN(ops));
	ty_cast_register(casts, (int)UTIL_ARRAY_LEN(casts));
	/* Resolve the operators' functions now so lookups stay read-only. */
	for (size_t i = 0; i < UTIL_ARRAY_LEN(ops); i++)
		ty_operator_func(&ops[i]);
}

ty_datum ty_inet_from_text(const char *s)
{
	return inet_in(s, strlen(s), TY_TYPMOD_NONE);
}
