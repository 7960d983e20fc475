/*
 * num_reg.c — the oid-alias types (regclass, regtype, regproc, ...): oids
 * whose text form is a catalog object's name. Name lookups go through the
 * resolver the SQL layer installs (ty_set_reg_resolver in numeric.h);
 * without one only numeric input is accepted and output is the number.
 * Binary I/O, order, hashing and keys are those of oid.
 */
#include "num_priv.h"

#include <stdatomic.h>
#include <string.h>

static _Atomic(const ty_reg_resolver *) resolver;

void ty_set_reg_resolver(const ty_reg_resolver *r)
{
	atomic_store(&resolver, r);
}

/* PostgreSQL's error for a name that does not resolve, per type. */
static UTIL_NORETURN void not_found(ty_oid t, const char *name)
{
	switch (t) {
	case TY_REGCLASS:
		ty_error(UTIL_E_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
	case TY_REGTYPE:
		ty_error(UTIL_E_UNDEFINED_OBJECT, "type \"%s\" does not exist", name);
	case TY_REGPROC:
	case TY_REGPROCEDURE:
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "function \"%s\" does not exist", name);
	case TY_REGOPER:
	case TY_REGOPERATOR:
		ty_error(UTIL_E_UNDEFINED_FUNCTION, "operator does not exist: %s", name);
	case TY_REGNAMESPACE:
		ty_error(UTIL_E_INVALID_SCHEMA_NAME, "schema \"%s\" does not exist", name);
	case TY_REGROLE:
		ty_error(UTIL_E_UNDEFINED_OBJECT, "role \"%s\" does not exist", name);
	case TY_REGCOLLATION:
		ty_error(UTIL_E_UNDEFINED_OBJECT, "collation \"%s\" for encoding \"UTF8\" does not exist",
			 name);
	case TY_REGCONFIG:
		ty_error(UTIL_E_UNDEFINED_OBJECT, "text search configuration \"%s\" does not exist", name);
	default:
		ty_error(UTIL_E_UNDEFINED_OBJECT, "text search dictionary \"%s\" does not exist", name);
	}
}

/* regoper and regoperator spell InvalidOid "0"; the others "-". */
static bool zero_is_digit(ty_oid t)
{
	return t == TY_REGOPER || t == TY_REGOPERATOR;
}

static ty_datum reg_in(ty_oid t, const char *s, size_t len)
{
	char *name = ty_strndup(s, len);
	/* "-" is InvalidOid; an all-digit string is the oid itself */
	if (!zero_is_digit(t) && strcmp(name, "-") == 0)
		return ty_int(0);
	if (len > 0 && strspn(name, "0123456789") == len)
		return ty_input(TY_OID, s, len, -1);
	const ty_reg_resolver *r = atomic_load(&resolver);
	ty_oid oid;
	if (r && r->in && r->in(t, name, &oid))
		return ty_int((int32_t)oid);
	/* the signature forms need an argument list */
	if ((t == TY_REGPROCEDURE || t == TY_REGOPERATOR) && !strchr(name, '('))
		ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "expected a left parenthesis");
	not_found(t, name);
}

static void reg_out(ty_oid t, ty_datum v, util_buf *out)
{
	ty_oid oid = (uint32_t)v.i;
	if (oid == 0) {
		util_buf_putc(out, zero_is_digit(t) ? '0' : '-');
		return;
	}
	const ty_reg_resolver *r = atomic_load(&resolver);
	size_t mark = out->len;
	if (r && r->out && r->out(t, oid, out))
		return;
	out->len = mark;
	util_buf_printf(out, "%u", oid);
}

#define REG_IO(name, oidc)                                                                                   \
	static ty_datum name##_in(const char *s, size_t len, int32_t typmod)                                 \
	{                                                                                                    \
		(void)typmod;                                                                                \
		return reg_in(oidc, s, len);                                                                 \
	}                                                                                                    \
	static void name##_out(ty_datum v, util_buf *out)                                                    \
	{                                                                                                    \
		reg_out(oidc, v, out);                                                                       \
	}

REG_IO(regproc, TY_REGPROC)
REG_IO(regprocedure, TY_REGPROCEDURE)
REG_IO(regoper, TY_REGOPER)
REG_IO(regoperator, TY_REGOPERATOR)
REG_IO(regclass, TY_REGCLASS)
REG_IO(regtype, TY_REGTYPE)
REG_IO(regnamespace, TY_REGNAMESPACE)
REG_IO(regrole, TY_REGROLE)
REG_IO(regcollation, TY_REGCOLLATION)
REG_IO(regconfig, TY_REGCONFIG)
REG_IO(regdictionary, 3769)

extern const ty_type num_oid_types[3];

#define REG_TYPE(nm, oidc, arr)                                                                              \
	{                                                                                                    \
		.oid = oidc, .name = #nm, .len = 4, .byval = true, .category = 'N', .typtype = 'b',          \
		.align = 'i', .array = arr, .in = nm##_in, .out = nm##_out, .input_name = #nm "in",          \
		.output_name = #nm "out"                                                                     \
	}

static ty_type reg_types[] = {
    REG_TYPE(regproc, TY_REGPROC, 1008),
    REG_TYPE(regprocedure, TY_REGPROCEDURE, 2207),
    REG_TYPE(regoper, TY_REGOPER, 2208),
    REG_TYPE(regoperator, TY_REGOPERATOR, 2209),
    REG_TYPE(regclass, TY_REGCLASS, TY_REGCLASS_ARRAY),
    REG_TYPE(regtype, TY_REGTYPE, TY_REGTYPE_ARRAY),
    REG_TYPE(regnamespace, TY_REGNAMESPACE, 4090),
    REG_TYPE(regrole, TY_REGROLE, 4097),
    REG_TYPE(regcollation, TY_REGCOLLATION, 4192),
    REG_TYPE(regconfig, TY_REGCONFIG, 3735),
    REG_TYPE(regdictionary, 3769, 3770),
};

bool ty_is_reg_type(ty_oid oid)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(reg_types); i++)
		if (reg_types[i].oid == oid)
			return true;
	return false;
}

/* Registers the reg* types with oid's binary I/O, order, hash and keys. */
void num_register_reg_types(void)
{
	const ty_type *oid = &num_oid_types[0];
	for (size_t i = 0; i < UTIL_ARRAY_LEN(reg_types); i++) {
		ty_type *t = &reg_types[i];
		t->recv = oid->recv;
		t->send = oid->send;
		t->cmp = oid->cmp;
		t->hash = oid->hash;
		t->keyenc = oid->keyenc;
		t->keydec = oid->keydec;
		ty_type_register(t);
	}
}
