/* dt_guc.c — the date/time session settings as text, for SET and SHOW:
 * DateStyle (PostgreSQL's check_datestyle: style and field order keywords,
 * conflicts, canonical "ISO, MDY" form) and IntervalStyle. */
#include "dt_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool word_is(const char *tok, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(tok, w, n) == 0;
}
static bool word_prefix(const char *tok, size_t n, const char *w)
{
	size_t l = strlen(w);
	return n >= l && strncasecmp(tok, w, l) == 0;
}

int ty_dt_parse_datestyle(const char *value, ty_datestyle *style, ty_dateorder *order, util_err *err)
{
	ty_datestyle ns = *style;
	ty_dateorder no = *order;
	bool have_style = false, have_order = false, ok = true;
	const char *p = value;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (!*p)
			break;
		const char *tok = p;
		bool quoted = *p == '"';
		if (quoted) {
			tok = ++p;
			while (*p && *p != '"')
				p++;
		} else {
			while (*p && *p != ',' && *p != ' ' && *p != '\t')
				p++;
		}
		size_t n = (size_t)(p - tok);
		if (quoted && *p == '"')
			p++;
		if (word_is(tok, n, "ISO") || word_is(tok, n, "SQL") || word_prefix(tok, n, "POSTGRES") ||
		    word_is(tok, n, "GERMAN")) {
			ty_datestyle s = word_is(tok, n, "ISO")      ? TY_DATES_ISO
					 : word_is(tok, n, "SQL")    ? TY_DATES_SQL
					 : word_is(tok, n, "GERMAN") ? TY_DATES_GERMAN
								     : TY_DATES_POSTGRES;
			if (have_style && ns != s)
				ok = false;
			ns = s;
			have_style = true;
			/* German implies DMY unless an order is given. */
			if (s == TY_DATES_GERMAN && !have_order)
				no = TY_ORDER_DMY;
		} else if (word_is(tok, n, "YMD") || word_is(tok, n, "DMY") || word_prefix(tok, n, "EURO") ||
			   word_is(tok, n, "MDY") || word_is(tok, n, "US") ||
			   word_prefix(tok, n, "NONEURO")) {
			ty_dateorder o = word_is(tok, n, "YMD") ? TY_ORDER_YMD
					 : (word_is(tok, n, "DMY") || word_prefix(tok, n, "EURO"))
					     ? TY_ORDER_DMY
					     : TY_ORDER_MDY;
			if (have_order && no != o)
				ok = false;
			no = o;
			have_order = true;
		} else if (word_is(tok, n, "DEFAULT")) {
			if (have_style && ns != TY_DATES_ISO)
				ok = false;
			if (have_order && no != TY_ORDER_MDY)
				ok = false;
			ns = TY_DATES_ISO;
			no = TY_ORDER_MDY;
			have_style = have_order = true;
		} else {
			util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
				     "invalid value for parameter \"DateStyle\": \"%s\"", value);
			util_err_detail(err, "Unrecognized key word: \"%.*s\".", (int)n, tok);
			return -1;
		}
	}
	if (!ok) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "invalid value for parameter \"DateStyle\": \"%s\"", value);
		util_err_detail(err, "Conflicting \"datestyle\" specifications.");
		return -1;
	}
	*style = ns;
	*order = no;
	return 0;
}

const char *ty_dt_datestyle_name(ty_datestyle style, ty_dateorder order)
{
	static const char *const names[4][3] = {
	    {"ISO, MDY", "ISO, DMY", "ISO, YMD"},
	    {"SQL, MDY", "SQL, DMY", "SQL, YMD"},
	    {"Postgres, MDY", "Postgres, DMY", "Postgres, YMD"},
	    {"German, MDY", "German, DMY", "German, YMD"},
	};
	return names[(int)style & 3][(int)order % 3];
}

int ty_dt_parse_intervalstyle(const char *value, ty_intervalstyle *out, util_err *err)
{
	static const char *const names[] = {"postgres", "postgres_verbose", "sql_standard", "iso_8601"};
	for (int i = 0; i < 4; i++)
		if (util_strcasecmp(value, names[i]) == 0) {
			*out = (ty_intervalstyle)i;
			return 0;
		}
	util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
		     "invalid value for parameter \"IntervalStyle\": \"%s\"", value);
	util_err_hint(err, "Available values: postgres, postgres_verbose, sql_standard, iso_8601.");
	return -1;
}

const char *ty_dt_intervalstyle_name(ty_intervalstyle s)
{
	static const char *const names[] = {"postgres", "postgres_verbose", "sql_standard", "iso_8601"};
	return names[(int)s & 3];
}
