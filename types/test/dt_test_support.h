/* dt_test_support.h — helpers shared by the date/time unit tests: session
 * settings from PostgreSQL's setting strings, type specs with typmods
 * ("timestamp(3)", "interval day to second(2)"), argument parsing and result
 * printing that also work for types other areas register (int4, float8,
 * text, bool, numeric). Header-only so only dt tests link it. */
#ifndef DT_TEST_SUPPORT_H
#define DT_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"
#include "types.h"

static inline void dtt_settings(ty_settings *s, const char *datestyle, const char *ivstyle, const char *tz)
{
	ty_settings_default(s);
	s->datestyle = strstr(datestyle, "ISO")      ? TY_DATES_ISO
		       : strstr(datestyle, "SQL")    ? TY_DATES_SQL
		       : strstr(datestyle, "German") ? TY_DATES_GERMAN
						     : TY_DATES_POSTGRES;
	s->dateorder = strstr(datestyle, "DMY")   ? TY_ORDER_DMY
		       : strstr(datestyle, "YMD") ? TY_ORDER_YMD
						  : TY_ORDER_MDY;
	s->intervalstyle = strcmp(ivstyle, "postgres_verbose") == 0 ? TY_INTERVAL_POSTGRES_VERBOSE
			   : strcmp(ivstyle, "sql_standard") == 0   ? TY_INTERVAL_SQL_STANDARD
			   : strcmp(ivstyle, "iso_8601") == 0       ? TY_INTERVAL_ISO_8601
								    : TY_INTERVAL_POSTGRES;
	util_err e;
	s->timezone = ty_dt_timezone_for_guc(tz, &e);
	if (!s->timezone) {
		fprintf(stderr, "cannot load zone %s: %s\n", tz, e.message);
		abort();
	}
	/* A fixed "now" so that 'today' and friends are deterministic. */
	s->txn_timestamp = s->stmt_timestamp = INT64_C(700000000000000);
}

/* Parses "name[(p)]" or "interval <fields>[(p)]" into oid and typmod. */
static inline ty_oid dtt_type(const char *spec, int32_t *typmod)
{
	char name[128];
	snprintf(name, sizeof name, "%s", spec);
	*typmod = -1;
	int32_t prec = -1;
	char *paren = strchr(name, '(');
	if (paren) {
		prec = atoi(paren + 1);
		*paren = '\0';
	}
	if (strncmp(name, "interval", 8) == 0) {
		static const struct {
			const char *f;
			int32_t m;
		} fields[] = {
		    {" year to month", TY_INTERVAL_YEAR | TY_INTERVAL_MONTH},
		    {" day to hour", TY_INTERVAL_DAY | TY_INTERVAL_HOUR},
		    {" day to minute", TY_INTERVAL_DAY | TY_INTERVAL_HOUR | TY_INTERVAL_MINUTE},
		    {" day to second",
		     TY_INTERVAL_DAY | TY_INTERVAL_HOUR | TY_INTERVAL_MINUTE | TY_INTERVAL_SECOND},
		    {" hour to minute", TY_INTERVAL_HOUR | TY_INTERVAL_MINUTE},
		    {" hour to second", TY_INTERVAL_HOUR | TY_INTERVAL_MINUTE | TY_INTERVAL_SECOND},
		    {" minute to second", TY_INTERVAL_MINUTE | TY_INTERVAL_SECOND},
		    {" year", TY_INTERVAL_YEAR},
		    {" month", TY_INTERVAL_MONTH},
		    {" day", TY_INTERVAL_DAY},
		    {" hour", TY_INTERVAL_HOUR},
		    {" minute", TY_INTERVAL_MINUTE},
		    {" second", TY_INTERVAL_SECOND},
		};
		int32_t mods[2] = {TY_INTERVAL_FULL_RANGE, prec};
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
			if (strcmp(name + 8, fields[i].f) == 0)
				mods[0] = fields[i].m;
		if (mods[0] != TY_INTERVAL_FULL_RANGE || prec >= 0)
			*typmod = ty_dt_typmodin(TY_INTERVAL, mods, prec >= 0 ? 2 : 1, NULL);
		return TY_INTERVAL;
	}
	const ty_type *t = ty_type_by_name(name);
	ty_oid oid = t ? t->oid : 0;
	if (!t) {
		if (strcmp(name, "int4") == 0)
			oid = TY_INT4;
		else if (strcmp(name, "int8") == 0)
			oid = TY_INT8;
		else if (strcmp(name, "float8") == 0)
			oid = TY_FLOAT8;
		else if (strcmp(name, "float4") == 0)
			oid = TY_FLOAT4;
		else if (strcmp(name, "text") == 0)
			oid = TY_TEXT;
		else if (strcmp(name, "bool") == 0)
			oid = TY_BOOL;
		else if (strcmp(name, "numeric") == 0)
			oid = TY_NUMERIC;
	}
	if (prec >= 0) {
		int32_t m = prec;
		*typmod = ty_dt_typmodin(oid, &m, 1, NULL);
	}
	return oid;
}

/* Input that falls back to C parsing for types not registered here. */
static inline ty_datum dtt_input(ty_oid oid, const char *s, int32_t typmod)
{
	if (ty_type_get(oid))
		return ty_input(oid, s, strlen(s), typmod);
	switch (oid) {
	case TY_INT4:
	case TY_INT8:
		return ty_int(strtoll(s, NULL, 10));
	case TY_FLOAT8:
	case TY_FLOAT4:
		return ty_float(strtod(s, NULL));
	case TY_BOOL:
		return ty_bool(s[0] == 't');
	default:
		return ty_text(s);
	}
}

static inline char *dtt_output(ty_oid oid, ty_datum v)
{
	if (v.null)
		return NULL;
	if (ty_type_get(oid))
		return ty_output_cstring(oid, v);
	char buf[64];
	switch (oid) {
	case TY_INT4:
	case TY_INT8:
		snprintf(buf, sizeof buf, "%lld", (long long)v.i);
		return ty_strdup(buf);
	case TY_BOOL:
		return ty_strdup(v.i ? "true" : "false");
	case TY_FLOAT8:
	case TY_FLOAT4:
		for (int prec = 1; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, v.f);
			if (strtod(buf, NULL) == v.f)
				break;
		}
		return ty_strdup(buf);
	default:
		return ty_cstring(v);
	}
}

#endif
