/* dt_typmod.c — date/time type modifier input (PostgreSQL's
 * timetypmodin, timestamptypmodin, intervaltypmodin): validates the
 * grammar's integer modifiers and encodes them as the typmod. */
#include "dt_int.h"

#include <stdio.h>

static int32_t precision_mod(const char *what, bool tz, int32_t p, char *warning)
{
	const char *suffix = tz ? " WITH TIME ZONE" : "";
	if (p < 0)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "%s(%d)%s precision must not be negative", what, p,
			 suffix);
	if (p > 6) {
		if (warning)
			snprintf(warning, UTIL_ERR_MSG_MAX,
				 "%s(%d)%s precision reduced to maximum allowed, %d", what, p, suffix, 6);
		p = 6;
	}
	return p;
}

static bool valid_fields(int32_t f)
{
	const int32_t Y = TY_INTERVAL_YEAR, M = TY_INTERVAL_MONTH, D = TY_INTERVAL_DAY, H = TY_INTERVAL_HOUR,
		      MI = TY_INTERVAL_MINUTE, S = TY_INTERVAL_SECOND;
	const int32_t ok[] = {Y,          M,
			      D,          H,
			      MI,         S,
			      Y | M,      D | H,
			      D | H | MI, D | H | MI | S,
			      H | MI,     H | MI | S,
			      MI | S,     TY_INTERVAL_FULL_RANGE};
	for (size_t i = 0; i < UTIL_ARRAY_LEN(ok); i++)
		if (f == ok[i])
			return true;
	return false;
}

int32_t ty_dt_typmodin(ty_oid type, const int32_t *mods, int n, char *warning)
{
	if (warning)
		warning[0] = '\0';
	switch (type) {
	case TY_TIME:
	case TY_TIMETZ:
		if (n != 1)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid type modifier");
		return precision_mod("TIME", type == TY_TIMETZ, mods[0], warning);
	case TY_TIMESTAMP:
	case TY_TIMESTAMPTZ:
		if (n != 1)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid type modifier");
		return precision_mod("TIMESTAMP", type == TY_TIMESTAMPTZ, mods[0], warning);
	case TY_INTERVAL:
		if (n < 1 || n > 2 || !valid_fields(mods[0]))
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid INTERVAL type modifier");
		if (n == 1)
			return mods[0] == TY_INTERVAL_FULL_RANGE
				   ? -1
				   : (mods[0] << 16) | TY_INTERVAL_FULL_PRECISION;
		if (mods[1] < 0)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "INTERVAL(%d) precision must not be negative", mods[1]);
		if (mods[1] > 6) {
			if (warning)
				snprintf(warning, UTIL_ERR_MSG_MAX,
					 "INTERVAL(%d) precision reduced to maximum allowed, %d", mods[1], 6);
			return (mods[0] << 16) | 6;
		}
		return (mods[0] << 16) | mods[1];
	default:
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "invalid type modifier");
	}
}
