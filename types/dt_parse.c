/*
 * dt_parse.c — the date/time input parser, following PostgreSQL's
 * datetime.c: a string is split into typed fields (numbers, dates, times,
 * signed zones, words), then decoded with the session's DateStyle field
 * order into broken-down time plus a zone offset. Also the keyword and time
 * zone abbreviation tables, and the error reporting of parse failures.
 */
#include "dt_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- keyword tables */

typedef struct dt_token {
	const char *token;
	int type;
	int value;
} dt_token;

/* Words in date/time input (PostgreSQL's datetktbl). */
static const dt_token date_tokens[] = {
    {"-infinity", DT_RESERV, DTK_EARLY},
    {"ad", DT_ADBC, DT_AD},
    {"allballs", DT_RESERV, DTK_ZULU},
    {"am", DT_AMPM, DT_AM},
    {"apr", DT_MONTH, 4},
    {"april", DT_MONTH, 4},
    {"at", DT_IGNORE, 0},
    {"aug", DT_MONTH, 8},
    {"august", DT_MONTH, 8},
    {"bc", DT_ADBC, DT_BC},
    {"d", DT_UNITS, DTK_DAY},
    {"dec", DT_MONTH, 12},
    {"december", DT_MONTH, 12},
    {"dow", DT_UNITS, DTK_DOW},
    {"doy", DT_UNITS, DTK_DOY},
    {"dst", DT_DTZMOD, DT_SECS_PER_HOUR},
    {"epoch", DT_RESERV, DTK_EPOCH},
    {"feb", DT_MONTH, 2},
    {"february", DT_MONTH, 2},
    {"fri", DT_DOW, 5},
    {"friday", DT_DOW, 5},
    {"h", DT_UNITS, DTK_HOUR},
    {"infinity", DT_RESERV, DTK_LATE},
    {"isodow", DT_UNITS, DTK_ISODOW},
    {"isoyear", DT_UNITS, DTK_ISOYEAR},
    {"j", DT_UNITS, DTK_JULIAN},
    {"jan", DT_MONTH, 1},
    {"january", DT_MONTH, 1},
    {"jd", DT_UNITS, DTK_JULIAN},
    {"jul", DT_MONTH, 7},
    {"julian", DT_UNITS, DTK_JULIAN},
    {"july", DT_MONTH, 7},
    {"jun", DT_MONTH, 6},
    {"june", DT_MONTH, 6},
    {"m", DT_UNITS, DTK_MONTH},
    {"mar", DT_MONTH, 3},
    {"march", DT_MONTH, 3},
    {"may", DT_MONTH, 5},
    {"mm", DT_UNITS, DTK_MINUTE},
    {"mon", DT_DOW, 1},
    {"monday", DT_DOW, 1},
    {"nov", DT_MONTH, 11},
    {"november", DT_MONTH, 11},
    {"now", DT_RESERV, DTK_NOW},
    {"oct", DT_MONTH, 10},
    {"october", DT_MONTH, 10},
    {"on", DT_IGNORE, 0},
    {"pm", DT_AMPM, DT_PM},
    {"s", DT_UNITS, DTK_SECOND},
    {"sat", DT_DOW, 6},
    {"saturday", DT_DOW, 6},
    {"sep", DT_MONTH, 9},
    {"sept", DT_MONTH, 9},
    {"september", DT_MONTH, 9},
    {"sun", DT_DOW, 0},
    {"sunday", DT_DOW, 0},
    {"t", DT_ISOTIME, DTK_TIME},
    {"thu", DT_DOW, 4},
    {"thur", DT_DOW, 4},
    {"thurs", DT_DOW, 4},
    {"thursday", DT_DOW, 4},
    {"today", DT_RESERV, DTK_TODAY},
    {"tomorrow", DT_RESERV, DTK_TOMORROW},
    {"tue", DT_DOW, 2},
    {"tues", DT_DOW, 2},
    {"tuesday", DT_DOW, 2},
    {"wed", DT_DOW, 3},
    {"wednesday", DT_DOW, 3},
    {"weds", DT_DOW, 3},
    {"y", DT_UNITS, DTK_YEAR},
    {"yesterday", DT_RESERV, DTK_YESTERDAY},
};

/* Unit words in interval input and EXTRACT fields (PostgreSQL's deltatktbl). */
static const dt_token unit_tokens[] = {
    {"@", DT_IGNORE, 0},
    {"ago", DT_AGO, 0},
    {"c", DT_UNITS, DTK_CENTURY},
    {"cent", DT_UNITS, DTK_CENTURY},
    {"centuries", DT_UNITS, DTK_CENTURY},
    {"century", DT_UNITS, DTK_CENTURY},
    {"d", DT_UNITS, DTK_DAY},
    {"day", DT_UNITS, DTK_DAY},
    {"days", DT_UNITS, DTK_DAY},
    {"dec", DT_UNITS, DTK_DECADE},
    {"decade", DT_UNITS, DTK_DECADE},
    {"decades", DT_UNITS, DTK_DECADE},
    {"decs", DT_UNITS, DTK_DECADE},
    {"h", DT_UNITS, DTK_HOUR},
    {"hour", DT_UNITS, DTK_HOUR},
    {"hours", DT_UNITS, DTK_HOUR},
    {"hr", DT_UNITS, DTK_HOUR},
    {"hrs", DT_UNITS, DTK_HOUR},
    {"m", DT_UNITS, DTK_MINUTE},
    {"microsecon", DT_UNITS, DTK_MICROSEC},
    {"mil", DT_UNITS, DTK_MILLENNIUM},
    {"millennia", DT_UNITS, DTK_MILLENNIUM},
    {"millennium", DT_UNITS, DTK_MILLENNIUM},
    {"millisecon", DT_UNITS, DTK_MILLISEC},
    {"mils", DT_UNITS, DTK_MILLENNIUM},
    {"min", DT_UNITS, DTK_MINUTE},
    {"mins", DT_UNITS, DTK_MINUTE},
    {"minute", DT_UNITS, DTK_MINUTE},
    {"minutes", DT_UNITS, DTK_MINUTE},
    {"mon", DT_UNITS, DTK_MONTH},
    {"mons", DT_UNITS, DTK_MONTH},
    {"month", DT_UNITS, DTK_MONTH},
    {"months", DT_UNITS, DTK_MONTH},
    {"ms", DT_UNITS, DTK_MILLISEC},
    {"msec", DT_UNITS, DTK_MILLISEC},
    {"msecond", DT_UNITS, DTK_MILLISEC},
    {"mseconds", DT_UNITS, DTK_MILLISEC},
    {"msecs", DT_UNITS, DTK_MILLISEC},
    {"qtr", DT_UNITS, DTK_QUARTER},
    {"quarter", DT_UNITS, DTK_QUARTER},
    {"s", DT_UNITS, DTK_SECOND},
    {"sec", DT_UNITS, DTK_SECOND},
    {"second", DT_UNITS, DTK_SECOND},
    {"seconds", DT_UNITS, DTK_SECOND},
    {"secs", DT_UNITS, DTK_SECOND},
    {"timezone", DT_UNITS, DTK_TZ},
    {"timezone_h", DT_UNITS, DTK_TZ_HOUR},
    {"timezone_m", DT_UNITS, DTK_TZ_MINUTE},
    {"us", DT_UNITS, DTK_MICROSEC},
    {"usec", DT_UNITS, DTK_MICROSEC},
    {"usecond", DT_UNITS, DTK_MICROSEC},
    {"useconds", DT_UNITS, DTK_MICROSEC},
    {"usecs", DT_UNITS, DTK_MICROSEC},
    {"w", DT_UNITS, DTK_WEEK},
    {"week", DT_UNITS, DTK_WEEK},
    {"weeks", DT_UNITS, DTK_WEEK},
    {"y", DT_UNITS, DTK_YEAR},
    {"year", DT_UNITS, DTK_YEAR},
    {"years", DT_UNITS, DTK_YEAR},
    {"yr", DT_UNITS, DTK_YEAR},
    {"yrs", DT_UNITS, DTK_YEAR},
};

/* Tokens compare on their first DT_TOKMAXLEN characters ("microseconds"
 * matches "microsecon"), as PostgreSQL's datebsearch. */
static const dt_token *find_token(const char *key, const dt_token *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strncmp(key, tab[i].token, DT_TOKMAXLEN) == 0)
			return &tab[i];
	return NULL;
}

int dt_decode_special(const char *lowtoken, int *val)
{
	const dt_token *t = find_token(lowtoken, date_tokens, UTIL_ARRAY_LEN(date_tokens));
	if (!t) {
		*val = 0;
		return DT_UNKNOWN_FIELD;
	}
	*val = t->value;
	return t->type;
}

int dt_decode_units(const char *lowtoken, int *val)
{
	const dt_token *t = find_token(lowtoken, unit_tokens, UTIL_ARRAY_LEN(unit_tokens));
	if (!t) {
		*val = 0;
		return DT_UNKNOWN_FIELD;
	}
	*val = t->value;
	return t->type;
}

int dt_decode_tzabbrev(const char *lowtoken, int *val, const ty_timezone **tz)
{
	int lo = 0, hi = dt_nabbrevs - 1;
	*tz = NULL;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		int c = strcmp(lowtoken, dt_abbrevs[mid].name);
		if (c == 0) {
			const dt_abbrev *a = &dt_abbrevs[mid];
			*val = a->offset;
			if (a->kind == DT_ABBR_DYN) {
				*tz = dt_tzset(a->zone);
				if (!*tz) {
					util_err *e = ty_errstart(UTIL_E_CONFIG_FILE_ERROR,
								  "time zone \"%s\" not recognized", a->zone);
					util_err_detail(e,
							"This time zone name appears in the configuration "
							"file for time zone "
							"abbreviation \"%s\".",
							lowtoken);
					ty_errthrow();
				}
				return DT_DYNTZ;
			}
			return a->kind == DT_ABBR_DTZ ? DT_DTZ : DT_TZ;
		}
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	*val = 0;
	return DT_UNKNOWN_FIELD;
}

/* ---------------------------------------------------------------- errors */

void dt_parse_error(int dterr, const char *str, const char *datatype)
{
	switch (dterr) {
	case DTERR_FIELD_OVERFLOW:
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"%s\"", str);
	case DTERR_MD_FIELD_OVERFLOW: {
		util_err *e = ty_errstart(UTIL_E_DATETIME_FIELD_OVERFLOW,
					  "date/time field value out of range: \"%s\"", str);
		util_err_hint(e, "Perhaps you need a different \"datestyle\" setting.");
		ty_errthrow();
	}
	case DTERR_INTERVAL_OVERFLOW:
		ty_error(UTIL_E_INTERVAL_FIELD_OVERFLOW, "interval field value out of range: \"%s\"", str);
	case DTERR_TZDISP_OVERFLOW:
		ty_error(UTIL_E_INVALID_TIME_ZONE_DISPLACEMENT_VALUE,
			 "time zone displacement out of range: \"%s\"", str);
	default:
		ty_error(UTIL_E_INVALID_DATETIME_FORMAT, "invalid input syntax for type %s: \"%s\"", datatype,
			 str);
	}
}

/* ---------------------------------------------------------------- tokenizer */

#define APPEND(c)                                                                                            \
	do {                                                                                                 \
		if (bufp >= bufend)                                                                          \
			return DTERR_BAD_FORMAT;                                                             \
		*bufp++ = (c);                                                                               \
	} while (0)

int dt_parse_fields(const char *cp, char *workbuf, size_t buflen, char **field, int *ftype, int maxfields,
		    int *numfields)
{
	int nf = 0;
	char *bufp = workbuf;
	const char *bufend = workbuf + buflen - 1;
	while (*cp) {
		if (isspace((unsigned char)*cp)) {
			cp++;
			continue;
		}
		if (nf >= maxfields)
			return DTERR_BAD_FORMAT;
		field[nf] = bufp;
		if (isdigit((unsigned char)*cp)) {
			APPEND(*cp++);
			while (isdigit((unsigned char)*cp))
				APPEND(*cp++);
			if (*cp == ':') {
				ftype[nf] = DTK_TIME;
				APPEND(*cp++);
				while (isdigit((unsigned char)*cp) || *cp == ':' || *cp == '.')
					APPEND(*cp++);
			} else if (*cp == '-' || *cp == '/' || *cp == '.') {
				char delim = *cp;
				APPEND(*cp++);
				if (isdigit((unsigned char)*cp)) {
					ftype[nf] = delim == '.' ? DTK_NUMBER : DTK_DATE;
					while (isdigit((unsigned char)*cp))
						APPEND(*cp++);
					/* Three fields only when the delimiters match. */
					if (*cp == delim) {
						ftype[nf] = DTK_DATE;
						APPEND(*cp++);
						while (isdigit((unsigned char)*cp) || *cp == delim)
							APPEND(*cp++);
					}
				} else {
					ftype[nf] = DTK_DATE;
					while (isalnum((unsigned char)*cp) || *cp == delim)
						APPEND((char)tolower((unsigned char)*cp++));
				}
			} else {
				ftype[nf] = DTK_NUMBER;
			}
		} else if (*cp == '.') {
			APPEND(*cp++);
			while (isdigit((unsigned char)*cp))
				APPEND(*cp++);
			ftype[nf] = DTK_NUMBER;
		} else if (isalpha((unsigned char)*cp)) {
			ftype[nf] = DTK_STRING;
			APPEND((char)tolower((unsigned char)*cp++));
			while (isalpha((unsigned char)*cp))
				APPEND((char)tolower((unsigned char)*cp++));
			/* A date with a text month ("jan-01") or a zone name with
			 * punctuation ("america/new_york", "etc/gmt+3"); a following
			 * digit or '+' starts a zone unless the word is a keyword. */
			bool is_date = false;
			if (*cp == '-' || *cp == '/' || *cp == '.') {
				is_date = true;
			} else if (*cp == '+' || isdigit((unsigned char)*cp)) {
				*bufp = '\0';
				if (!find_token(field[nf], date_tokens, UTIL_ARRAY_LEN(date_tokens)))
					is_date = true;
			}
			if (is_date) {
				ftype[nf] = DTK_DATE;
				do {
					APPEND((char)tolower((unsigned char)*cp++));
				} while (*cp == '+' || *cp == '-' || *cp == '/' || *cp == '_' || *cp == '.' ||
					 *cp == ':' || isalnum((unsigned char)*cp));
			}
		} else if (*cp == '+' || *cp == '-') {
			APPEND(*cp++);
			while (isspace((unsigned char)*cp))
				cp++;
			if (isdigit((unsigned char)*cp)) {
				ftype[nf] = DTK_TZ;
				APPEND(*cp++);
				while (isdigit((unsigned char)*cp) || *cp == ':' || *cp == '.' || *cp == '-')
					APPEND(*cp++);
			} else if (isalpha((unsigned char)*cp)) {
				ftype[nf] = DTK_SPECIAL;
				APPEND((char)tolower((unsigned char)*cp++));
				while (isalpha((unsigned char)*cp))
					APPEND((char)tolower((unsigned char)*cp++));
			} else {
				return DTERR_BAD_FORMAT;
			}
		} else if (ispunct((unsigned char)*cp)) {
			cp++;
			continue;
		} else {
			return DTERR_BAD_FORMAT;
		}
		*bufp++ = '\0';
		nf++;
	}
	*numfields = nf;
	return 0;
}

/* ---------------------------------------------------------------- field decoders */

/* strtol into an int; *overflow when outside int range (PostgreSQL's strtoint). */
static int str2int(const char *s, char **end, bool *overflow)
{
	errno = 0;
	long v = strtol(s, end, 10);
	*overflow = errno == ERANGE || v != (int)v;
	return (int)v;
}

int dt_parse_fraction(const char *cp, double *frac);

int dt_parse_fraction(const char *cp, double *frac)
{
	if (cp[1] == '\0') {
		*frac = 0;
		return 0;
	}
	char *end;
	errno = 0;
	*frac = strtod(cp, &end);
	if (*end != '\0' || errno != 0)
		return DTERR_BAD_FORMAT;
	return 0;
}

static int parse_fractional_second(const char *cp, int32_t *fsec)
{
	double frac;
	int r = dt_parse_fraction(cp, &frac);
	if (r)
		return r;
	*fsec = (int32_t)rint(frac * 1000000);
	return 0;
}

/* hh:mm[:ss[.fff]] or mm:ss.fff; hour is 64-bit for intervals. */
int dt_decode_time_common(char *str, int range, int *tmask, dt_itm *itm);

int dt_decode_time_common(char *str, int range, int *tmask, dt_itm *itm)
{
	char *cp;
	bool ovf;
	int32_t fsec = 0;
	*tmask = DTK_TIME_M;
	errno = 0;
	itm->hour = strtoll(str, &cp, 10);
	if (errno == ERANGE)
		return DTERR_FIELD_OVERFLOW;
	if (*cp != ':')
		return DTERR_BAD_FORMAT;
	itm->min = str2int(cp + 1, &cp, &ovf);
	if (ovf)
		return DTERR_FIELD_OVERFLOW;
	if (*cp == '\0') {
		itm->sec = 0;
		/* MINUTE TO SECOND reads two fields as mm:ss. */
		if (range == (DT_INTERVAL_MASK(DT_MINUTE) | DT_INTERVAL_MASK(DT_SECOND))) {
			if (itm->hour > INT32_MAX || itm->hour < INT32_MIN)
				return DTERR_FIELD_OVERFLOW;
			itm->sec = itm->min;
			itm->min = (int)itm->hour;
			itm->hour = 0;
		}
	} else if (*cp == '.') {
		/* mm:ss.sss */
		int r = parse_fractional_second(cp, &fsec);
		if (r)
			return r;
		if (itm->hour > INT32_MAX || itm->hour < INT32_MIN)
			return DTERR_FIELD_OVERFLOW;
		itm->sec = itm->min;
		itm->min = (int)itm->hour;
		itm->hour = 0;
	} else if (*cp == ':') {
		itm->sec = str2int(cp + 1, &cp, &ovf);
		if (ovf)
			return DTERR_FIELD_OVERFLOW;
		if (*cp == '.') {
			int r = parse_fractional_second(cp, &fsec);
			if (r)
				return r;
		} else if (*cp != '\0') {
			return DTERR_BAD_FORMAT;
		}
	} else {
		return DTERR_BAD_FORMAT;
	}
	if (itm->hour < 0 || itm->min < 0 || itm->min > 59 || itm->sec < 0 || itm->sec > 60 || fsec < 0 ||
	    fsec > DT_USECS_PER_SEC)
		return DTERR_FIELD_OVERFLOW;
	itm->usec = fsec;
	return 0;
}

static int decode_time(char *str, int range, int *tmask, dt_tm *tm, int32_t *fsec)
{
	dt_itm itm;
	int r = dt_decode_time_common(str, range, tmask, &itm);
	if (r)
		return r;
	if (itm.hour > INT32_MAX)
		return DTERR_FIELD_OVERFLOW;
	tm->hour = (int)itm.hour;
	tm->min = itm.min;
	tm->sec = itm.sec;
	*fsec = itm.usec;
	return 0;
}

/* Run-together digits: yymmdd / yyyymmdd dates, hhmmss / hhmm times.
 * Returns DTK_DATE or DTK_TIME, or an error (< 0). */
static int decode_number_field(int len, char *str, int fmask, int *tmask, dt_tm *tm, int32_t *fsec,
			       bool *is2digits)
{
	char *cp = strchr(str, '.');
	if (cp) {
		if (cp[1] == '\0') {
			*fsec = 0;
		} else {
			errno = 0;
			double frac = strtod(cp, NULL);
			if (errno != 0)
				return DTERR_BAD_FORMAT;
			*fsec = (int32_t)rint(frac * 1000000);
		}
		*cp = '\0';
		len = (int)strlen(str);
	} else if ((fmask & DTK_DATE_M) != DTK_DATE_M) {
		if (len >= 6) {
			*tmask = DTK_DATE_M;
			tm->mday = atoi(str + (len - 2));
			str[len - 2] = '\0';
			tm->mon = atoi(str + (len - 4));
			str[len - 4] = '\0';
			tm->year = atoi(str);
			if (len - 4 == 2)
				*is2digits = true;
			return DTK_DATE;
		}
	}
	if ((fmask & DTK_TIME_M) != DTK_TIME_M) {
		if (len == 6) {
			*tmask = DTK_TIME_M;
			tm->sec = atoi(str + 4);
			str[4] = '\0';
			tm->min = atoi(str + 2);
			str[2] = '\0';
			tm->hour = atoi(str);
			return DTK_TIME;
		}
		if (len == 4) {
			*tmask = DTK_TIME_M;
			tm->sec = 0;
			tm->min = atoi(str + 2);
			str[2] = '\0';
			tm->hour = atoi(str);
			return DTK_TIME;
		}
	}
	return DTERR_BAD_FORMAT;
}

/* One numeric field whose meaning depends on what came before and DateStyle. */
static int decode_number(int flen, char *str, bool have_text_month, int fmask, int *tmask, dt_tm *tm,
			 int32_t *fsec, bool *is2digits)
{
	char *cp;
	bool ovf;
	*tmask = 0;
	int val = str2int(str, &cp, &ovf);
	if (ovf)
		return DTERR_FIELD_OVERFLOW;
	if (cp == str)
		return DTERR_BAD_FORMAT;
	if (*cp == '.') {
		/* More than two digits before the point: a run-together date/time. */
		if (cp - str > 2) {
			int r =
			    decode_number_field(flen, str, fmask | DTK_DATE_M, tmask, tm, fsec, is2digits);
			return r < 0 ? r : 0;
		}
		int r = parse_fractional_second(cp, fsec);
		if (r)
			return r;
	} else if (*cp != '\0') {
		return DTERR_BAD_FORMAT;
	}
	/* Day of year after a year. */
	if (flen == 3 && (fmask & DTK_DATE_M) == DTK_M(DT_YEAR) && val >= 1 && val <= 366) {
		*tmask = DTK_M(DT_DOY) | DTK_M(DT_MONTH) | DTK_M(DT_DAY);
		tm->yday = val;
		return 0;
	}
	int order = (int)ty_get_settings()->dateorder;
	switch (fmask & DTK_DATE_M) {
	case 0:
		/* Either a 3+ digit year first, or DateStyle's order. */
		if (flen >= 3 || order == TY_ORDER_YMD) {
			*tmask = DTK_M(DT_YEAR);
			tm->year = val;
		} else if (order == TY_ORDER_DMY) {
			*tmask = DTK_M(DT_DAY);
			tm->mday = val;
		} else {
			*tmask = DTK_M(DT_MONTH);
			tm->mon = val;
		}
		break;
	case DTK_M(DT_YEAR):
		*tmask = DTK_M(DT_MONTH);
		tm->mon = val;
		break;
	case DTK_M(DT_MONTH):
		if (have_text_month) {
			if (flen >= 3 || order == TY_ORDER_YMD) {
				*tmask = DTK_M(DT_YEAR);
				tm->year = val;
			} else {
				*tmask = DTK_M(DT_DAY);
				tm->mday = val;
			}
		} else {
			*tmask = DTK_M(DT_DAY);
			tm->mday = val;
		}
		break;
	case DTK_M(DT_YEAR) | DTK_M(DT_MONTH):
		if (have_text_month) {
			/* DD-MON-YYYY even in YMD mode: the "year" was a day. */
			if (flen >= 3 && *is2digits) {
				*tmask = DTK_M(DT_DAY);
				tm->mday = tm->year;
				tm->year = val;
				*is2digits = false;
			} else {
				*tmask = DTK_M(DT_DAY);
				tm->mday = val;
			}
		} else {
			*tmask = DTK_M(DT_DAY);
			tm->mday = val;
		}
		break;
	case DTK_M(DT_DAY):
		*tmask = DTK_M(DT_MONTH);
		tm->mon = val;
		break;
	case DTK_M(DT_MONTH) | DTK_M(DT_DAY):
		*tmask = DTK_M(DT_YEAR);
		tm->year = val;
		break;
	case DTK_M(DT_YEAR) | DTK_M(DT_MONTH) | DTK_M(DT_DAY): {
		int r = decode_number_field(flen, str, fmask, tmask, tm, fsec, is2digits);
		return r < 0 ? r : 0;
	}
	default:
		return DTERR_BAD_FORMAT;
	}
	if (*tmask == DTK_M(DT_YEAR))
		*is2digits = flen <= 2;
	return 0;
}

/* A date field with separators: "2021-02-03", "02/03/2021", "feb-03-2021". */
static int decode_date(char *str, int fmask, int *tmask, bool *is2digits, dt_tm *tm)
{
	char *field[DT_MAXDATEFIELDS];
	int nf = 0;
	bool have_text_month = false;
	int32_t fsec;
	*tmask = 0;
	while (*str && nf < DT_MAXDATEFIELDS) {
		while (*str && !isalnum((unsigned char)*str))
			str++;
		if (*str == '\0')
			return DTERR_BAD_FORMAT;
		field[nf] = str;
		if (isdigit((unsigned char)*str)) {
			while (isdigit((unsigned char)*str))
				str++;
		} else if (isalpha((unsigned char)*str)) {
			while (isalpha((unsigned char)*str))
				str++;
		}
		if (*str)
			*str++ = '\0';
		nf++;
	}
	/* Text fields first: they are unambiguous months. */
	for (int i = 0; i < nf; i++) {
		if (!isalpha((unsigned char)*field[i]))
			continue;
		int val;
		int type = dt_decode_special(field[i], &val);
		if (type == DT_IGNORE)
			continue;
		int dmask = DTK_M(type);
		if (type != DT_MONTH)
			return DTERR_BAD_FORMAT;
		tm->mon = val;
		have_text_month = true;
		if (fmask & dmask)
			return DTERR_BAD_FORMAT;
		fmask |= dmask;
		*tmask |= dmask;
		field[i] = NULL;
	}
	for (int i = 0; i < nf; i++) {
		if (!field[i])
			continue;
		int len = (int)strlen(field[i]);
		if (len <= 0)
			return DTERR_BAD_FORMAT;
		int dmask;
		int r = decode_number(len, field[i], have_text_month, fmask, &dmask, tm, &fsec, is2digits);
		if (r)
			return r;
		if (fmask & dmask)
			return DTERR_BAD_FORMAT;
		fmask |= dmask;
		*tmask |= dmask;
	}
	if ((fmask & ~(DTK_M(DT_DOY) | DTK_M(DT_TZ))) != DTK_DATE_M)
		return DTERR_BAD_FORMAT;
	return 0;
}

int dt_decode_timezone(const char *str, int *tzp)
{
	char *cp;
	bool ovf;
	int hr, min, sec = 0;
	if (*str != '+' && *str != '-')
		return DTERR_BAD_FORMAT;
	hr = str2int(str + 1, &cp, &ovf);
	if (ovf)
		return DTERR_TZDISP_OVERFLOW;
	if (*cp == ':') {
		min = str2int(cp + 1, &cp, &ovf);
		if (ovf)
			return DTERR_TZDISP_OVERFLOW;
		if (*cp == ':') {
			sec = str2int(cp + 1, &cp, &ovf);
			if (ovf)
				return DTERR_TZDISP_OVERFLOW;
		}
	} else if (*cp == '\0' && strlen(str) > 3) {
		min = hr % 100;
		hr = hr / 100;
	} else {
		min = 0;
	}
	if (hr < 0 || hr > DT_MAX_TZDISP_HOUR || min < 0 || min >= 60 || sec < 0 || sec >= 60)
		return DTERR_TZDISP_OVERFLOW;
	int tz = (hr * 60 + min) * 60 + sec;
	if (*str == '-')
		tz = -tz;
	*tzp = -tz;
	if (*cp != '\0')
		return DTERR_BAD_FORMAT;
	return 0;
}

int dt_validate_date(int fmask, bool isjulian, bool is2digits, bool bc, dt_tm *tm)
{
	if (fmask & DTK_M(DT_YEAR)) {
		if (isjulian) {
		} else if (bc) {
			if (tm->year <= 0)
				return DTERR_FIELD_OVERFLOW;
			tm->year = -(tm->year - 1); /* 1 BC is year 0 */
		} else if (is2digits) {
			if (tm->year < 0)
				return DTERR_FIELD_OVERFLOW;
			if (tm->year < 70)
				tm->year += 2000;
			else if (tm->year < 100)
				tm->year += 1900;
		} else if (tm->year <= 0) {
			return DTERR_FIELD_OVERFLOW;
		}
	}
	if (fmask & DTK_M(DT_DOY))
		dt_j2date(dt_date2j(tm->year, 1, 1) + tm->yday - 1, &tm->year, &tm->mon, &tm->mday);
	if ((fmask & DTK_M(DT_MONTH)) && (tm->mon < 1 || tm->mon > 12))
		return DTERR_MD_FIELD_OVERFLOW;
	if ((fmask & DTK_M(DT_DAY)) && (tm->mday < 1 || tm->mday > 31))
		return DTERR_MD_FIELD_OVERFLOW;
	if ((fmask & DTK_DATE_M) == DTK_DATE_M && tm->mday > dt_days_in_month(tm->year, tm->mon))
		return DTERR_FIELD_OVERFLOW;
	return 0;
}

static void current_date_fields(dt_tm *tm, int delta)
{
	dt_tm cur;
	dt_current_tm(&cur, NULL, NULL);
	dt_j2date(dt_date2j(cur.year, cur.mon, cur.mday) + delta, &tm->year, &tm->mon, &tm->mday);
}

/* Julian day or "t"-prefixed ISO time after a unit word (ptype). */
static int decode_prefixed_number(int ptype, char **field, int *ftype, int i, int fmask, int *tmask,
				  dt_tm *tm, int32_t *fsec, bool *is2digits, bool *isjulian)
{
	char *cp;
	bool ovf;
	int value = str2int(field[i], &cp, &ovf);
	if (ovf)
		return DTERR_FIELD_OVERFLOW;
	if (*cp != '.' && *cp != '\0')
		return DTERR_BAD_FORMAT;
	switch (ptype) {
	case DTK_JULIAN:
		if (value < 0)
			return DTERR_FIELD_OVERFLOW;
		*tmask = DTK_DATE_M;
		dt_j2date(value, &tm->year, &tm->mon, &tm->mday);
		*isjulian = true;
		if (*cp == '.') {
			double t;
			int r = dt_parse_fraction(cp, &t);
			if (r)
				return r;
			t *= (double)DT_USECS_PER_DAY;
			dt_dt2time((int64_t)t, &tm->hour, &tm->min, &tm->sec, fsec);
			*tmask |= DTK_TIME_M;
		}
		return 0;
	case DTK_TIME: {
		int r = decode_number_field((int)strlen(field[i]), field[i], fmask | DTK_DATE_M, tmask, tm,
					    fsec, is2digits);
		if (r < 0)
			return r;
		ftype[i] = r;
		if (*tmask != DTK_TIME_M)
			return DTERR_BAD_FORMAT;
		return 0;
	}
	default:
		return DTERR_BAD_FORMAT;
	}
}

int dt_decode_datetime(char **field, int *ftype, int nf, int *dtype, dt_tm *tm, int32_t *fsec, int *tzp)
{
	int fmask = 0, tmask = 0, type, val, r;
	int ptype = 0, mer = DT_HR24;
	bool have_text_month = false, isjulian = false, is2digits = false, bc = false;
	const ty_timezone *named_tz = NULL, *abbrev_tz = NULL, *valtz;
	const char *abbrev = NULL;

	*dtype = DTK_DATE;
	tm->hour = tm->min = tm->sec = 0;
	tm->year = tm->mon = tm->mday = tm->yday = tm->wday = 0;
	*fsec = 0;
	tm->isdst = -1;
	if (tzp)
		*tzp = 0;

	for (int i = 0; i < nf; i++) {
		switch (ftype[i]) {
		case DTK_DATE:
			if (ptype == DTK_JULIAN) {
				/* Integral Julian day with an attached zone: "J2451187+08". */
				if (!tzp)
					return DTERR_BAD_FORMAT;
				char *cp;
				bool ovf;
				int jday = str2int(field[i], &cp, &ovf);
				if (ovf || jday < 0)
					return DTERR_FIELD_OVERFLOW;
				dt_j2date(jday, &tm->year, &tm->mon, &tm->mday);
				isjulian = true;
				r = dt_decode_timezone(cp, tzp);
				if (r)
					return r;
				tmask = DTK_DATE_M | DTK_TIME_M | DTK_M(DT_TZ);
				ptype = 0;
				break;
			} else if (ptype != 0 || (fmask & (DTK_M(DT_MONTH) | DTK_M(DT_DAY))) ==
						     (DTK_M(DT_MONTH) | DTK_M(DT_DAY))) {
				/* With month and day known this is a zone name or a
				 * run-together time with zone ("hhmmss-zz"). */
				if (!tzp)
					return DTERR_BAD_FORMAT;
				if (isdigit((unsigned char)*field[i]) || ptype != 0) {
					if (ptype != 0) {
						if (ptype != DTK_TIME)
							return DTERR_BAD_FORMAT;
						ptype = 0;
					}
					if ((fmask & DTK_TIME_M) == DTK_TIME_M)
						return DTERR_BAD_FORMAT;
					char *cp = strchr(field[i], '-');
					if (!cp)
						return DTERR_BAD_FORMAT;
					r = dt_decode_timezone(cp, tzp);
					if (r)
						return r;
					*cp = '\0';
					r = decode_number_field((int)strlen(field[i]), field[i], fmask,
								&tmask, tm, fsec, &is2digits);
					if (r < 0)
						return r;
					tmask |= DTK_M(DT_TZ);
				} else {
					named_tz = dt_tzset(field[i]);
					if (!named_tz)
						ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
							 "time zone \"%s\" not recognized", field[i]);
					tmask = DTK_M(DT_TZ);
				}
			} else {
				r = decode_date(field[i], fmask, &tmask, &is2digits, tm);
				if (r)
					return r;
			}
			break;

		case DTK_TIME:
			if (ptype != 0) {
				if (ptype != DTK_TIME)
					return DTERR_BAD_FORMAT;
				ptype = 0;
			}
			r = decode_time(field[i], TY_INTERVAL_FULL_RANGE, &tmask, tm, fsec);
			if (r)
				return r;
			if (dt_time_overflows(tm->hour, tm->min, tm->sec, *fsec))
				return DTERR_FIELD_OVERFLOW;
			break;

		case DTK_TZ: {
			int tz;
			if (!tzp)
				return DTERR_BAD_FORMAT;
			r = dt_decode_timezone(field[i], &tz);
			if (r)
				return r;
			*tzp = tz;
			tmask = DTK_M(DT_TZ);
			break;
		}

		case DTK_NUMBER:
			if (ptype != 0) {
				r = decode_prefixed_number(ptype, field, ftype, i, fmask, &tmask, tm, fsec,
							   &is2digits, &isjulian);
				if (r)
					return r;
				ptype = 0;
				*dtype = DTK_DATE;
			} else {
				int flen = (int)strlen(field[i]);
				char *cp = strchr(field[i], '.');
				if (cp && !(fmask & DTK_DATE_M)) {
					/* "2001.12.25" style date */
					r = decode_date(field[i], fmask, &tmask, &is2digits, tm);
					if (r)
						return r;
				} else if (cp && flen - (int)strlen(cp) > 2) {
					r = decode_number_field(flen, field[i], fmask, &tmask, tm, fsec,
								&is2digits);
					if (r < 0)
						return r;
				} else if (flen >= 6 && (!(fmask & DTK_DATE_M) || !(fmask & DTK_TIME_M))) {
					/* yyyymmdd or hhmmss; 6+ digit years must come last or use ISO form
					 */
					r = decode_number_field(flen, field[i], fmask, &tmask, tm, fsec,
								&is2digits);
					if (r < 0)
						return r;
				} else {
					r = decode_number(flen, field[i], have_text_month, fmask, &tmask, tm,
							  fsec, &is2digits);
					if (r)
						return r;
				}
			}
			break;

		case DTK_STRING:
		case DTK_SPECIAL:
			/* Zone abbreviations take precedence over keywords. */
			type = dt_decode_tzabbrev(field[i], &val, &valtz);
			if (type == DT_UNKNOWN_FIELD)
				type = dt_decode_special(field[i], &val);
			if (type == DT_IGNORE)
				continue;
			tmask = DTK_M(type);
			switch (type) {
			case DT_RESERV:
				switch (val) {
				case DTK_NOW:
					tmask = DTK_DATE_M | DTK_TIME_M | DTK_M(DT_TZ);
					*dtype = DTK_DATE;
					dt_current_tm(tm, fsec, tzp);
					break;
				case DTK_YESTERDAY:
					tmask = DTK_DATE_M;
					*dtype = DTK_DATE;
					current_date_fields(tm, -1);
					break;
				case DTK_TODAY:
					tmask = DTK_DATE_M;
					*dtype = DTK_DATE;
					current_date_fields(tm, 0);
					break;
				case DTK_TOMORROW:
					tmask = DTK_DATE_M;
					*dtype = DTK_DATE;
					current_date_fields(tm, 1);
					break;
				case DTK_ZULU:
					tmask = DTK_TIME_M | DTK_M(DT_TZ);
					*dtype = DTK_DATE;
					tm->hour = tm->min = tm->sec = 0;
					if (tzp)
						*tzp = 0;
					break;
				default:
					*dtype = val;
				}
				break;
			case DT_MONTH:
				/* A numeric month already seen may really be the day. */
				if ((fmask & DTK_M(DT_MONTH)) && !have_text_month &&
				    !(fmask & DTK_M(DT_DAY)) && tm->mon >= 1 && tm->mon <= 31) {
					tm->mday = tm->mon;
					tmask = DTK_M(DT_DAY);
				}
				have_text_month = true;
				tm->mon = val;
				break;
			case DT_DTZMOD:
				tmask |= DTK_M(DT_DTZ);
				tm->isdst = 1;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp -= val;
				break;
			case DT_DTZ:
				tmask |= DTK_M(DT_TZ);
				tm->isdst = 1;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp = -val;
				break;
			case DT_TZ:
				tm->isdst = 0;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp = -val;
				break;
			case DT_DYNTZ:
				tmask |= DTK_M(DT_TZ);
				if (!tzp)
					return DTERR_BAD_FORMAT;
				abbrev_tz = valtz;
				abbrev = field[i];
				break;
			case DT_AMPM:
				mer = val;
				break;
			case DT_ADBC:
				bc = val == DT_BC;
				break;
			case DT_DOW:
				tm->wday = val;
				break;
			case DT_UNITS:
				tmask = 0;
				if (ptype != 0)
					return DTERR_BAD_FORMAT;
				ptype = val;
				break;
			case DT_ISOTIME:
				/* "t" before a time: needs a full date before it. */
				tmask = 0;
				if ((fmask & DTK_DATE_M) != DTK_DATE_M)
					return DTERR_BAD_FORMAT;
				if (i >= nf - 1 || (ftype[i + 1] != DTK_NUMBER && ftype[i + 1] != DTK_TIME &&
						    ftype[i + 1] != DTK_DATE))
					return DTERR_BAD_FORMAT;
				if (ptype != 0)
					return DTERR_BAD_FORMAT;
				ptype = val;
				break;
			case DT_UNKNOWN_FIELD:
				/* Maybe an all-alpha zone name ("utc", "japan"). */
				named_tz = dt_tzset(field[i]);
				if (!named_tz)
					return DTERR_BAD_FORMAT;
				tmask = DTK_M(DT_TZ);
				break;
			default:
				return DTERR_BAD_FORMAT;
			}
			break;

		default:
			return DTERR_BAD_FORMAT;
		}
		if (tmask & fmask)
			return DTERR_BAD_FORMAT;
		fmask |= tmask;
	}
	if (ptype != 0)
		return DTERR_BAD_FORMAT;

	if (*dtype == DTK_DATE) {
		r = dt_validate_date(fmask, isjulian, is2digits, bc, tm);
		if (r)
			return r;
		if (mer != DT_HR24 && tm->hour > 12)
			return DTERR_FIELD_OVERFLOW;
		if (mer == DT_AM && tm->hour == 12)
			tm->hour = 0;
		else if (mer == DT_PM && tm->hour != 12)
			tm->hour += 12;
		if ((fmask & DTK_DATE_M) != DTK_DATE_M) {
			if ((fmask & DTK_TIME_M) == DTK_TIME_M)
				return 1;
			return DTERR_BAD_FORMAT;
		}
		/* Zone offsets need the date to resolve DST. */
		if (named_tz) {
			if (fmask & DTK_M(DT_DTZMOD))
				return DTERR_BAD_FORMAT;
			*tzp = dt_determine_tz_offset(tm, named_tz);
		}
		if (abbrev_tz) {
			if (fmask & DTK_M(DT_DTZMOD))
				return DTERR_BAD_FORMAT;
			*tzp = dt_determine_abbrev_offset(tm, abbrev, abbrev_tz);
		}
		if (tzp && !(fmask & DTK_M(DT_TZ))) {
			if (fmask & DTK_M(DT_DTZMOD))
				return DTERR_BAD_FORMAT;
			*tzp = dt_determine_tz_offset(tm, dt_session_tz());
		}
	}
	return 0;
}

int dt_decode_timeonly(char **field, int *ftype, int nf, int *dtype, dt_tm *tm, int32_t *fsec, int *tzp)
{
	int fmask = 0, tmask = 0, type, val, r;
	int ptype = 0, mer = DT_HR24;
	bool isjulian = false, is2digits = false, bc = false;
	const ty_timezone *named_tz = NULL, *abbrev_tz = NULL, *valtz;
	const char *abbrev = NULL;

	*dtype = DTK_TIME;
	tm->hour = tm->min = tm->sec = 0;
	tm->year = tm->mon = tm->mday = tm->yday = tm->wday = 0;
	*fsec = 0;
	tm->isdst = -1;
	if (tzp)
		*tzp = 0;

	for (int i = 0; i < nf; i++) {
		switch (ftype[i]) {
		case DTK_DATE:
			if (!tzp)
				return DTERR_BAD_FORMAT;
			/* A date is accepted only in limited positions. */
			if (i == 0 && nf >= 2 && (ftype[nf - 1] == DTK_DATE || ftype[1] == DTK_TIME)) {
				r = decode_date(field[i], fmask, &tmask, &is2digits, tm);
				if (r)
					return r;
			} else if (isdigit((unsigned char)*field[i])) {
				if ((fmask & DTK_TIME_M) == DTK_TIME_M)
					return DTERR_BAD_FORMAT;
				char *cp = strchr(field[i], '-');
				if (!cp)
					return DTERR_BAD_FORMAT;
				r = dt_decode_timezone(cp, tzp);
				if (r)
					return r;
				*cp = '\0';
				r = decode_number_field((int)strlen(field[i]), field[i], fmask | DTK_DATE_M,
							&tmask, tm, fsec, &is2digits);
				if (r < 0)
					return r;
				ftype[i] = r;
				tmask |= DTK_M(DT_TZ);
			} else {
				named_tz = dt_tzset(field[i]);
				if (!named_tz)
					ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
						 "time zone \"%s\" not recognized", field[i]);
				ftype[i] = DTK_TZ;
				tmask = DTK_M(DT_TZ);
			}
			break;

		case DTK_TIME:
			if (ptype != 0) {
				if (ptype != DTK_TIME)
					return DTERR_BAD_FORMAT;
				ptype = 0;
			}
			r = decode_time(field[i], TY_INTERVAL_FULL_RANGE, &tmask, tm, fsec);
			if (r)
				return r;
			break;

		case DTK_TZ: {
			int tz;
			if (!tzp)
				return DTERR_BAD_FORMAT;
			r = dt_decode_timezone(field[i], &tz);
			if (r)
				return r;
			*tzp = tz;
			tmask = DTK_M(DT_TZ);
			break;
		}

		case DTK_NUMBER:
			if (ptype != 0) {
				if (ptype == DTK_JULIAN && !tzp)
					return DTERR_BAD_FORMAT;
				r = decode_prefixed_number(ptype, field, ftype, i, fmask, &tmask, tm, fsec,
							   &is2digits, &isjulian);
				if (r)
					return r;
				ptype = 0;
				*dtype = DTK_DATE;
			} else {
				int flen = (int)strlen(field[i]);
				char *cp = strchr(field[i], '.');
				if (cp) {
					if (i == 0 && nf >= 2 && ftype[nf - 1] == DTK_DATE) {
						r = decode_date(field[i], fmask, &tmask, &is2digits, tm);
						if (r)
							return r;
					} else if (flen - (int)strlen(cp) > 2) {
						r = decode_number_field(flen, field[i], fmask | DTK_DATE_M,
									&tmask, tm, fsec, &is2digits);
						if (r < 0)
							return r;
						ftype[i] = r;
					} else {
						return DTERR_BAD_FORMAT;
					}
				} else if (flen > 4) {
					r = decode_number_field(flen, field[i], fmask | DTK_DATE_M, &tmask,
								tm, fsec, &is2digits);
					if (r < 0)
						return r;
					ftype[i] = r;
				} else {
					r = decode_number(flen, field[i], false, fmask | DTK_DATE_M, &tmask,
							  tm, fsec, &is2digits);
					if (r)
						return r;
				}
			}
			break;

		case DTK_STRING:
		case DTK_SPECIAL:
			type = dt_decode_tzabbrev(field[i], &val, &valtz);
			if (type == DT_UNKNOWN_FIELD)
				type = dt_decode_special(field[i], &val);
			if (type == DT_IGNORE)
				continue;
			tmask = DTK_M(type);
			switch (type) {
			case DT_RESERV:
				switch (val) {
				case DTK_NOW:
					tmask = DTK_TIME_M;
					*dtype = DTK_TIME;
					dt_current_tm(tm, fsec, NULL);
					break;
				case DTK_ZULU:
					tmask = DTK_TIME_M | DTK_M(DT_TZ);
					*dtype = DTK_TIME;
					tm->hour = tm->min = tm->sec = 0;
					tm->isdst = 0;
					break;
				default:
					return DTERR_BAD_FORMAT;
				}
				break;
			case DT_DTZMOD:
				tmask |= DTK_M(DT_DTZ);
				tm->isdst = 1;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp -= val;
				break;
			case DT_DTZ:
				tmask |= DTK_M(DT_TZ);
				tm->isdst = 1;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp = -val;
				ftype[i] = DTK_TZ;
				break;
			case DT_TZ:
				tm->isdst = 0;
				if (!tzp)
					return DTERR_BAD_FORMAT;
				*tzp = -val;
				ftype[i] = DTK_TZ;
				break;
			case DT_DYNTZ:
				tmask |= DTK_M(DT_TZ);
				if (!tzp)
					return DTERR_BAD_FORMAT;
				abbrev_tz = valtz;
				abbrev = field[i];
				ftype[i] = DTK_TZ;
				break;
			case DT_AMPM:
				mer = val;
				break;
			case DT_ADBC:
				bc = val == DT_BC;
				break;
			case DT_UNITS:
				tmask = 0;
				if (ptype != 0)
					return DTERR_BAD_FORMAT;
				ptype = val;
				break;
			case DT_ISOTIME:
				tmask = 0;
				if (ptype != 0)
					return DTERR_BAD_FORMAT;
				if (i >= nf - 1 || (ftype[i + 1] != DTK_NUMBER && ftype[i + 1] != DTK_TIME &&
						    ftype[i + 1] != DTK_DATE))
					return DTERR_BAD_FORMAT;
				ptype = val;
				break;
			case DT_UNKNOWN_FIELD:
				named_tz = dt_tzset(field[i]);
				if (!named_tz)
					return DTERR_BAD_FORMAT;
				tmask = DTK_M(DT_TZ);
				break;
			default:
				return DTERR_BAD_FORMAT;
			}
			break;

		default:
			return DTERR_BAD_FORMAT;
		}
		if (tmask & fmask)
			return DTERR_BAD_FORMAT;
		fmask |= tmask;
	}
	if (ptype != 0)
		return DTERR_BAD_FORMAT;
	r = dt_validate_date(fmask, isjulian, is2digits, bc, tm);
	if (r)
		return r;
	if (mer != DT_HR24 && tm->hour > 12)
		return DTERR_FIELD_OVERFLOW;
	if (mer == DT_AM && tm->hour == 12)
		tm->hour = 0;
	else if (mer == DT_PM && tm->hour != 12)
		tm->hour += 12;
	if (dt_time_overflows(tm->hour, tm->min, tm->sec, *fsec))
		return DTERR_FIELD_OVERFLOW;
	if ((fmask & DTK_TIME_M) != DTK_TIME_M)
		return DTERR_BAD_FORMAT;

	if (named_tz) {
		long gmtoff;
		if (fmask & DTK_M(DT_DTZMOD))
			return DTERR_BAD_FORMAT;
		if (dt_tz_fixed_offset(named_tz, &gmtoff)) {
			*tzp = -(int)gmtoff;
		} else {
			if ((fmask & DTK_DATE_M) != DTK_DATE_M)
				return DTERR_BAD_FORMAT;
			*tzp = dt_determine_tz_offset(tm, named_tz);
		}
	}
	if (abbrev_tz || (tzp && !(fmask & DTK_M(DT_TZ)))) {
		dt_tm tt;
		if (fmask & DTK_M(DT_DTZMOD))
			return DTERR_BAD_FORMAT;
		if ((fmask & DTK_DATE_M) == 0) {
			dt_current_tm(&tt, NULL, NULL);
		} else {
			if ((fmask & DTK_DATE_M) != DTK_DATE_M)
				return DTERR_BAD_FORMAT;
			tt.year = tm->year;
			tt.mon = tm->mon;
			tt.mday = tm->mday;
		}
		tt.hour = tm->hour;
		tt.min = tm->min;
		tt.sec = tm->sec;
		if (abbrev_tz)
			*tzp = dt_determine_abbrev_offset(&tt, abbrev, abbrev_tz);
		else
			*tzp = dt_determine_tz_offset(&tt, dt_session_tz());
		tm->isdst = tt.isdst;
	}
	return 0;
}

/* ---------------------------------------------------------------- fast path */

static bool digits(const char *s, int n, int *v)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

bool dt_parse_iso_fast(const char *s, size_t len, dt_tm *tm, int32_t *fsec, bool *has_tz, int *tz)
{
	int y, m, d;
	if (len < 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
	    !digits(s + 8, 2, &d))
		return false;
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > dt_days_in_month(y, m))
		return false;
	memset(tm, 0, sizeof *tm);
	tm->year = y, tm->mon = m, tm->mday = d;
	*fsec = 0;
	*has_tz = false;
	*tz = 0;
	size_t i = 10;
	if (i == len)
		return true;
	int hh, mi, ss = 0;
	if ((s[i] != ' ' && s[i] != 'T') || len < i + 6 || !digits(s + i + 1, 2, &hh) || s[i + 3] != ':' ||
	    !digits(s + i + 4, 2, &mi) || hh > 23 || mi > 59)
		return false;
	i += 6;
	if (i < len && s[i] == ':') {
		if (len < i + 3 || !digits(s + i + 1, 2, &ss) || ss > 59)
			return false;
		i += 3;
		if (i < len && s[i] == '.') {
			int n = 0, f = 0;
			i++;
			while (i < len && s[i] >= '0' && s[i] <= '9' && n < 7) {
				f = f * 10 + (s[i] - '0');
				n++;
				i++;
			}
			/* 7+ digits need rounding: leave them to the general parser. */
			if (n == 0 || n > 6)
				return false;
			while (n++ < 6)
				f *= 10;
			*fsec = f;
		}
	}
	tm->hour = hh, tm->min = mi, tm->sec = ss;
	if (i == len)
		return true;
	if (s[i] == 'Z' && i + 1 == len) {
		*has_tz = true;
		return true;
	}
	if (s[i] != '+' && s[i] != '-')
		return false;
	int zh, zm = 0;
	if (len < i + 3 || !digits(s + i + 1, 2, &zh))
		return false;
	size_t j = i + 3;
	if (j < len) {
		if (s[j] != ':' || len != j + 3 || !digits(s + j + 1, 2, &zm))
			return false;
	}
	if (zh > DT_MAX_TZDISP_HOUR || zm > 59)
		return false;
	int secs = zh * 3600 + zm * 60;
	*tz = s[i] == '-' ? secs : -secs;
	*has_tz = true;
	return true;
}
