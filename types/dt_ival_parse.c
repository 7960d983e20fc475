/*
 * dt_ival_parse.c — interval input: PostgreSQL's postgres/verbose syntax
 * ('1 day 2 hours', '@ 1 day ago', '1-2', '3 4:05:06'), SQL standard
 * forms with a leading sign, and ISO 8601 durations ('P1Y2M3DT4H5M6S' and
 * the alternative 'P0001-02-03T04:05:06'), with the interval typmod's
 * fields deciding what a bare number means.
 */
#include "dt_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int dt_parse_fraction(const char *cp, double *frac);
int dt_decode_time_common(char *str, int range, int *tmask, dt_itm *itm);

static bool adjust_fract_usec(double frac, int64_t scale, dt_itm_in *itm)
{
	if (frac == 0)
		return true;
	frac *= (double)scale;
	int64_t usec = (int64_t)frac;
	frac -= (double)usec;
	if (frac > 0.5)
		usec++;
	else if (frac < -0.5)
		usec--;
	return !dt_add64(itm->usec, usec, &itm->usec);
}

static bool adjust_fract_days(double frac, int scale, dt_itm_in *itm)
{
	if (frac == 0)
		return true;
	frac *= scale;
	int extra = (int)frac;
	if (dt_add32(itm->mday, extra, &itm->mday))
		return false;
	frac -= extra;
	return adjust_fract_usec(frac, DT_USECS_PER_DAY, itm);
}

static bool adjust_fract_years(double frac, int scale, dt_itm_in *itm)
{
	int extra = (int)rint(frac * scale * DT_MONTHS_PER_YEAR);
	return !dt_add32(itm->mon, extra, &itm->mon);
}

static bool adjust_usec(int64_t val, double fval, int64_t scale, dt_itm_in *itm)
{
	int64_t usec;
	if (dt_mul64(val, scale, &usec) || dt_add64(itm->usec, usec, &itm->usec))
		return false;
	return adjust_fract_usec(fval, scale, itm);
}

static bool adjust_days(int64_t val, int scale, dt_itm_in *itm)
{
	int32_t days;
	if (val < INT32_MIN || val > INT32_MAX)
		return false;
	return !dt_mul32((int32_t)val, scale, &days) && !dt_add32(itm->mday, days, &itm->mday);
}

static bool adjust_months(int64_t val, dt_itm_in *itm)
{
	if (val < INT32_MIN || val > INT32_MAX)
		return false;
	return !dt_add32(itm->mon, (int32_t)val, &itm->mon);
}

static bool adjust_years(int64_t val, int scale, dt_itm_in *itm)
{
	int32_t years;
	if (val < INT32_MIN || val > INT32_MAX)
		return false;
	return !dt_mul32((int32_t)val, scale, &years) && !dt_add32(itm->year, years, &itm->year);
}

static int decode_time_for_interval(char *str, int range, int *tmask, dt_itm_in *itm)
{
	dt_itm t;
	int r = dt_decode_time_common(str, range, tmask, &t);
	if (r)
		return r;
	itm->usec = t.usec;
	int64_t p;
	if (dt_mul64(t.hour, DT_USECS_PER_HOUR, &p) || dt_add64(itm->usec, p, &itm->usec) ||
	    dt_add64(itm->usec, (int64_t)t.min * DT_USECS_PER_MINUTE, &itm->usec) ||
	    dt_add64(itm->usec, (int64_t)t.sec * DT_USECS_PER_SEC, &itm->usec))
		return DTERR_FIELD_OVERFLOW;
	return 0;
}

/* Which unit a bare trailing number has, from the typmod's fields. */
static int default_unit(int range)
{
	const int Y = DT_INTERVAL_MASK(DT_YEAR), M = DT_INTERVAL_MASK(DT_MONTH), D = DT_INTERVAL_MASK(DT_DAY),
		  H = DT_INTERVAL_MASK(DT_HOUR), MI = DT_INTERVAL_MASK(DT_MINUTE);
	if (range == Y)
		return DTK_YEAR;
	if (range == M || range == (Y | M))
		return DTK_MONTH;
	if (range == D)
		return DTK_DAY;
	if (range == H || range == (D | H))
		return DTK_HOUR;
	if (range == MI || range == (H | MI) || range == (D | H | MI))
		return DTK_MINUTE;
	return DTK_SECOND;
}

int dt_decode_interval(char **field, int *ftype, int nf, int range, int *dtype, dt_itm_in *itm)
{
	bool force_negative = false, is_before = false;
	int fmask = 0, tmask, type = DT_IGNORE, uval, r;
	*dtype = DTK_DELTA;
	memset(itm, 0, sizeof *itm);

	/* SQL standard: a leading '-' applies to every field when no other
	 * field has an explicit sign. */
	if (ty_get_settings()->intervalstyle == TY_INTERVAL_SQL_STANDARD && nf > 0 && *field[0] == '-') {
		force_negative = true;
		for (int i = 1; i < nf; i++)
			if (*field[i] == '-' || *field[i] == '+') {
				force_negative = false;
				break;
			}
	}

	/* Right to left, so units are seen before their values. */
	for (int i = nf - 1; i >= 0; i--) {
		switch (ftype[i]) {
		case DTK_TIME:
			r = decode_time_for_interval(field[i], range, &tmask, itm);
			if (r)
				return r;
			if (force_negative && itm->usec > 0)
				itm->usec = -itm->usec;
			type = DTK_DAY;
			break;

		case DTK_TZ:
			/* Signed hh:mm[:ss] is a time; else a signed number. */
			if (strchr(field[i] + 1, ':') != NULL &&
			    decode_time_for_interval(field[i] + 1, range, &tmask, itm) == 0) {
				if (*field[i] == '-') {
					if (itm->usec == INT64_MIN)
						return DTERR_FIELD_OVERFLOW;
					itm->usec = -itm->usec;
				}
				if (force_negative && itm->usec > 0)
					itm->usec = -itm->usec;
				type = DTK_DAY;
				break;
			}
			/* fall through */
		case DTK_DATE:
		case DTK_NUMBER: {
			if (type == DT_IGNORE)
				type = default_unit(range);
			char *cp;
			errno = 0;
			int64_t val = strtoll(field[i], &cp, 10);
			double fval;
			if (errno == ERANGE)
				return DTERR_FIELD_OVERFLOW;
			if (*cp == '-') {
				/* SQL "years-months" */
				errno = 0;
				long v2 = strtol(cp + 1, &cp, 10);
				if (errno == ERANGE || v2 != (int)v2 || v2 < 0 || v2 >= DT_MONTHS_PER_YEAR)
					return DTERR_FIELD_OVERFLOW;
				if (*cp != '\0')
					return DTERR_BAD_FORMAT;
				type = DTK_MONTH;
				if (*field[i] == '-')
					v2 = -v2;
				if (dt_mul64(val, DT_MONTHS_PER_YEAR, &val) || dt_add64(val, v2, &val))
					return DTERR_FIELD_OVERFLOW;
				fval = 0;
			} else if (*cp == '.') {
				r = dt_parse_fraction(cp, &fval);
				if (r)
					return r;
				if (*field[i] == '-')
					fval = -fval;
			} else if (*cp == '\0') {
				fval = 0;
			} else {
				return DTERR_BAD_FORMAT;
			}
			tmask = 0;
			if (force_negative) {
				if (val > 0)
					val = -val;
				if (fval > 0)
					fval = -fval;
			}
			switch (type) {
			case DTK_MICROSEC:
				if (!adjust_usec(val, fval, 1, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_MICROSECOND);
				break;
			case DTK_MILLISEC:
				if (!adjust_usec(val, fval, 1000, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_MILLISECOND);
				break;
			case DTK_SECOND:
				if (!adjust_usec(val, fval, DT_USECS_PER_SEC, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = fval == 0 ? DTK_M(DT_SECOND) : DTK_ALL_SECS_M;
				break;
			case DTK_MINUTE:
				if (!adjust_usec(val, fval, DT_USECS_PER_MINUTE, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_MINUTE);
				break;
			case DTK_HOUR:
				if (!adjust_usec(val, fval, DT_USECS_PER_HOUR, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_HOUR);
				type = DTK_DAY;
				break;
			case DTK_DAY:
				if (!adjust_days(val, 1, itm) ||
				    !adjust_fract_usec(fval, DT_USECS_PER_DAY, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_DAY);
				break;
			case DTK_WEEK:
				if (!adjust_days(val, 7, itm) || !adjust_fract_days(fval, 7, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_WEEK);
				break;
			case DTK_MONTH:
				if (!adjust_months(val, itm) ||
				    !adjust_fract_days(fval, DT_DAYS_PER_MONTH, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_MONTH);
				break;
			case DTK_YEAR:
				if (!adjust_years(val, 1, itm) || !adjust_fract_years(fval, 1, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_YEAR);
				break;
			case DTK_DECADE:
				if (!adjust_years(val, 10, itm) || !adjust_fract_years(fval, 10, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_DECADE);
				break;
			case DTK_CENTURY:
				if (!adjust_years(val, 100, itm) || !adjust_fract_years(fval, 100, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_CENTURY);
				break;
			case DTK_MILLENNIUM:
				if (!adjust_years(val, 1000, itm) || !adjust_fract_years(fval, 1000, itm))
					return DTERR_FIELD_OVERFLOW;
				tmask = DTK_M(DT_MILLENNIUM);
				break;
			default:
				return DTERR_BAD_FORMAT;
			}
			break;
		}

		case DTK_STRING:
		case DTK_SPECIAL:
			type = dt_decode_units(field[i], &uval);
			if (type == DT_IGNORE)
				continue;
			tmask = 0;
			switch (type) {
			case DT_UNITS:
				type = uval;
				break;
			case DT_AGO:
				is_before = true;
				type = uval;
				break;
			case DT_RESERV:
				tmask = DTK_DATE_M | DTK_TIME_M;
				*dtype = uval;
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
	if (fmask == 0)
		return DTERR_BAD_FORMAT;
	if (is_before) {
		if (itm->usec == INT64_MIN || itm->mday == INT32_MIN || itm->mon == INT32_MIN ||
		    itm->year == INT32_MIN)
			return DTERR_FIELD_OVERFLOW;
		itm->usec = -itm->usec;
		itm->mday = -itm->mday;
		itm->mon = -itm->mon;
		itm->year = -itm->year;
	}
	return 0;
}

/* A number in an ISO 8601 duration: integer and fractional parts. */
static int iso_number(char *str, char **end, int64_t *ipart, double *fpart)
{
	if (!(isdigit((unsigned char)*str) || *str == '-' || *str == '.'))
		return DTERR_BAD_FORMAT;
	errno = 0;
	double val = strtod(str, end);
	if (*end == str || errno != 0)
		return DTERR_BAD_FORMAT;
	if (isnan(val) || val < -1.0e15 || val > 1.0e15)
		return DTERR_FIELD_OVERFLOW;
	*ipart = val >= 0 ? (int64_t)floor(val) : -(int64_t)floor(-val);
	*fpart = val - (double)*ipart;
	return 0;
}

static int iso_int_width(const char *s)
{
	if (*s == '-')
		s++;
	return (int)strspn(s, "0123456789");
}

int dt_decode_iso8601_interval(char *str, int *dtype, dt_itm_in *itm)
{
	bool datepart = true, havefield = false;
	*dtype = DTK_DELTA;
	memset(itm, 0, sizeof *itm);
	if (strlen(str) < 2 || str[0] != 'P')
		return DTERR_BAD_FORMAT;
	str++;
	while (*str) {
		if (*str == 'T') {
			datepart = false;
			havefield = false;
			str++;
			continue;
		}
		char *fieldstart = str;
		int64_t val;
		double fval;
		int r = iso_number(str, &str, &val, &fval);
		if (r)
			return r;
		char unit = *str++;
		if (datepart) {
			switch (unit) {
			case 'Y':
				if (!adjust_years(val, 1, itm) || !adjust_fract_years(fval, 1, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'M':
				if (!adjust_months(val, itm) ||
				    !adjust_fract_days(fval, DT_DAYS_PER_MONTH, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'W':
				if (!adjust_days(val, 7, itm) || !adjust_fract_days(fval, 7, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'D':
				if (!adjust_days(val, 1, itm) ||
				    !adjust_fract_usec(fval, DT_USECS_PER_DAY, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'T':
			case '\0':
				/* Basic alternative format PYYYYMMDD */
				if (iso_int_width(fieldstart) == 8 && !havefield) {
					if (!adjust_years(val / 10000, 1, itm) ||
					    !adjust_months((val / 100) % 100, itm) ||
					    !adjust_days(val % 100, 1, itm) ||
					    !adjust_fract_usec(fval, DT_USECS_PER_DAY, itm))
						return DTERR_FIELD_OVERFLOW;
					if (unit == '\0')
						return 0;
					datepart = false;
					havefield = false;
					continue;
				}
				/* fall through */
			case '-':
				/* Extended alternative format PYYYY-MM-DD */
				if (havefield)
					return DTERR_BAD_FORMAT;
				if (!adjust_years(val, 1, itm) || !adjust_fract_years(fval, 1, itm))
					return DTERR_FIELD_OVERFLOW;
				if (unit == '\0')
					return 0;
				if (unit == 'T') {
					datepart = false;
					havefield = false;
					continue;
				}
				r = iso_number(str, &str, &val, &fval);
				if (r)
					return r;
				if (!adjust_months(val, itm) ||
				    !adjust_fract_days(fval, DT_DAYS_PER_MONTH, itm))
					return DTERR_FIELD_OVERFLOW;
				if (*str == '\0')
					return 0;
				if (*str == 'T') {
					datepart = false;
					havefield = false;
					continue;
				}
				if (*str != '-')
					return DTERR_BAD_FORMAT;
				str++;
				r = iso_number(str, &str, &val, &fval);
				if (r)
					return r;
				if (!adjust_days(val, 1, itm) ||
				    !adjust_fract_usec(fval, DT_USECS_PER_DAY, itm))
					return DTERR_FIELD_OVERFLOW;
				if (*str == '\0')
					return 0;
				if (*str == 'T') {
					datepart = false;
					havefield = false;
					continue;
				}
				return DTERR_BAD_FORMAT;
			default:
				return DTERR_BAD_FORMAT;
			}
		} else {
			switch (unit) {
			case 'H':
				if (!adjust_usec(val, fval, DT_USECS_PER_HOUR, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'M':
				if (!adjust_usec(val, fval, DT_USECS_PER_MINUTE, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case 'S':
				if (!adjust_usec(val, fval, DT_USECS_PER_SEC, itm))
					return DTERR_FIELD_OVERFLOW;
				break;
			case '\0':
				/* Basic alternative format PThhmmss */
				if (iso_int_width(fieldstart) == 6 && !havefield) {
					if (!adjust_usec(val / 10000, 0, DT_USECS_PER_HOUR, itm) ||
					    !adjust_usec((val / 100) % 100, 0, DT_USECS_PER_MINUTE, itm) ||
					    !adjust_usec(val % 100, 0, DT_USECS_PER_SEC, itm) ||
					    !adjust_fract_usec(fval, 1, itm))
						return DTERR_FIELD_OVERFLOW;
					return 0;
				}
				/* fall through */
			case ':':
				/* Extended alternative format PThh:mm:ss */
				if (havefield)
					return DTERR_BAD_FORMAT;
				if (!adjust_usec(val, fval, DT_USECS_PER_HOUR, itm))
					return DTERR_FIELD_OVERFLOW;
				if (unit == '\0')
					return 0;
				r = iso_number(str, &str, &val, &fval);
				if (r)
					return r;
				if (!adjust_usec(val, fval, DT_USECS_PER_MINUTE, itm))
					return DTERR_FIELD_OVERFLOW;
				if (*str == '\0')
					return 0;
				if (*str != ':')
					return DTERR_BAD_FORMAT;
				str++;
				r = iso_number(str, &str, &val, &fval);
				if (r)
					return r;
				if (!adjust_usec(val, fval, DT_USECS_PER_SEC, itm))
					return DTERR_FIELD_OVERFLOW;
				if (*str == '\0')
					return 0;
				return DTERR_BAD_FORMAT;
			default:
				return DTERR_BAD_FORMAT;
			}
		}
		havefield = true;
	}
	return 0;
}
