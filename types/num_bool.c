/*
 * num_bool.c — the boolean type: PostgreSQL's parse_bool rules (t/true/
 * yes/on/1 and f/false/no/off/0, unique prefixes, any case, surrounding
 * whitespace), t/f output, binary I/O (one byte), comparison (false <
 * true), hashing, key encoding and the bool SQL functions.
 */
#include "num_priv.h"

#include <string.h>
#include <strings.h>

/* Matches s[0..n) against word as a prefix of at least min characters. */
static bool prefix_of(const char *s, size_t n, const char *word, size_t min)
{
	return n >= min && n <= strlen(word) && strncasecmp(s, word, n) == 0;
}

/* Returns 0/1, or -1 when not a boolean. */
static int parse_bool(const char *s, size_t n)
{
	while (n && num_isspace(*s))
		s++, n--;
	while (n && num_isspace(s[n - 1]))
		n--;
	if (n == 0)
		return -1;
	switch (s[0]) {
	case 't':
	case 'T':
		return prefix_of(s, n, "true", 1) ? 1 : -1;
	case 'f':
	case 'F':
		return prefix_of(s, n, "false", 1) ? 0 : -1;
	case 'y':
	case 'Y':
		return prefix_of(s, n, "yes", 1) ? 1 : -1;
	case 'n':
	case 'N':
		return prefix_of(s, n, "no", 1) ? 0 : -1;
	case 'o':
	case 'O':
		/* "o" alone is ambiguous between on and off */
		if (prefix_of(s, n, "on", 2))
			return 1;
		return prefix_of(s, n, "off", 2) ? 0 : -1;
	case '1':
		return n == 1 ? 1 : -1;
	case '0':
		return n == 1 ? 0 : -1;
	default:
		return -1;
	}
}

static ty_datum bool_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	int b = parse_bool(s, len);
	if (b < 0)
		num_err_syntax("boolean", s, len);
	return ty_bool(b);
}

static void bool_out(ty_datum v, util_buf *out)
{
	util_buf_putc(out, v.i ? 't' : 'f');
}

static ty_datum bool_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	num_recv_check(len, 1);
	return ty_bool(p[0] != 0);
}

static void bool_send(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, v.i ? 1 : 0);
}

static int bool_cmp(ty_datum a, ty_datum b)
{
	return (a.i != 0) - (b.i != 0);
}

static uint64_t bool_hash(ty_datum a)
{
	return util_hash_mix(a.i ? 1 : 0);
}

static void bool_keyenc(ty_datum v, util_buf *out)
{
	util_buf_put_u8(out, v.i ? 1 : 0);
}

static size_t bool_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (p >= end || p[0] > 1)
		return 0;
	*out = ty_bool(p[0]);
	return 1;
}

const ty_type num_bool_type = {.oid = TY_BOOL,
			       .name = "bool",
			       .sqlname = "boolean",
			       .len = 1,
			       .byval = true,
			       .category = 'B',
			       .preferred = true,
			       .typtype = 'b',
			       .align = 'c',
			       .array = TY_BOOL_ARRAY,
			       .in = bool_in,
			       .out = bool_out,
			       .recv = bool_recv,
			       .send = bool_send,
			       .cmp = bool_cmp,
			       .hash = bool_hash,
			       .keyenc = bool_keyenc,
			       .keydec = bool_keydec,
			       .input_name = "boolin",
			       .output_name = "boolout"};

NUMFN(booleq)
{
	return ty_bool((ARG_I(0) != 0) == (ARG_I(1) != 0));
}
NUMFN(boolne)
{
	return ty_bool((ARG_I(0) != 0) != (ARG_I(1) != 0));
}
NUMFN(boollt)
{
	return ty_bool(bool_cmp(ARG(0), ARG(1)) < 0);
}
NUMFN(boolle)
{
	return ty_bool(bool_cmp(ARG(0), ARG(1)) <= 0);
}
NUMFN(boolgt)
{
	return ty_bool(bool_cmp(ARG(0), ARG(1)) > 0);
}
NUMFN(boolge)
{
	return ty_bool(bool_cmp(ARG(0), ARG(1)) >= 0);
}
NUMFN(btboolcmp)
{
	return ty_int(bool_cmp(ARG(0), ARG(1)));
}
NUMFN(booland_statefunc)
{
	return ty_bool(ARG_I(0) && ARG_I(1));
}
NUMFN(boolor_statefunc)
{
	return ty_bool(ARG_I(0) || ARG_I(1));
}
/* bool::text spells the words out (unlike boolout). */
NUMFN(booltext)
{
	return ty_text(ARG_I(0) ? "true" : "false");
}
