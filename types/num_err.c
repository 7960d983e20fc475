/* num_err.c — the numeric area's shared error reports, with PostgreSQL 15's
 * exact SQLSTATEs and message texts. */
#include "num_priv.h"

void num_err_int2_range(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "smallint out of range");
}
void num_err_int4_range(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "integer out of range");
}
void num_err_int8_range(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "bigint out of range");
}
void num_err_div0(void)
{
	ty_error(UTIL_E_DIVISION_BY_ZERO, "division by zero");
}
void num_err_float_overflow(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: overflow");
}
void num_err_float_underflow(void)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value out of range: underflow");
}

void num_err_syntax(const char *typname, const char *s, size_t len)
{
	ty_error(UTIL_E_INVALID_TEXT_REPRESENTATION, "invalid input syntax for type %s: \"%.*s\"", typname,
		 (int)len, s);
}

void num_err_value_range(const char *typname, const char *s, size_t len)
{
	ty_error(UTIL_E_NUMERIC_VALUE_OUT_OF_RANGE, "value \"%.*s\" is out of range for type %s", (int)len, s,
		 typname);
}

void num_recv_check(size_t len, size_t need)
{
	if (len < need)
		ty_error(UTIL_E_PROTOCOL_VIOLATION, "insufficient data left in message");
	if (len > need)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
}
