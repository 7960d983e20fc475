/*
 * dt_cal.c — calendar arithmetic for the date/time types: Julian day
 * numbers (proleptic Gregorian), ISO weeks, splitting timestamps and
 * intervals into fields and back, precision typmod rounding, and the
 * session's current time.
 */
#include "dt_int.h"

#include <stdlib.h>

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian, any sign); the day is
 * linear so out-of-range days (0, 32) extrapolate as PostgreSQL's date2j. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int dt_date2j(int y, int m, int d)
{
	return (int)(days_from_civil(y, m, d) + DT_UNIX_EPOCH_JDATE);
}

void dt_j2date(int jd, int *year, int *month, int *day)
{
	int64_t z = (int64_t)jd - DT_UNIX_EPOCH_JDATE + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int d = (int)(doy - (153 * mp + 2) / 5 + 1);
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*year = (int)(y + (m <= 2));
	*month = m;
	*day = d;
}

int dt_j2day(int jd)
{
	int64_t d = ((int64_t)jd + 1) % 7;
	return (int)(d < 0 ? d + 7 : d);
}

bool dt_isleap(int y)
{
	return (y % 4) == 0 && ((y % 100) != 0 || (y % 400) == 0);
}

int dt_days_in_month(int y, int m)
{
	static const int tab[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && dt_isleap(y) ? 29 : tab[m - 1];
}

void dt_dt2time(int64_t t, int *hour, int *min, int *sec, int32_t *fsec)
{
	*hour = (int)(t / DT_USECS_PER_HOUR);
	t -= (int64_t)*hour * DT_USECS_PER_HOUR;
	*min = (int)(t / DT_USECS_PER_MINUTE);
	t -= (int64_t)*min * DT_USECS_PER_MINUTE;
	*sec = (int)(t / DT_USECS_PER_SEC);
	*fsec = (int32_t)(t - (int64_t)*sec * DT_USECS_PER_SEC);
}

int64_t dt_time2t(int hour, int min, int sec, int32_t fsec)
{
	return (((int64_t)hour * DT_MINS_PER_HOUR + min) * DT_SECS_PER_MINUTE + sec) * DT_USECS_PER_SEC +
	       fsec;
}

bool dt_time_overflows(int hour, int min, int sec, int32_t fsec)
{
	if (hour < 0 || hour > DT_HOURS_PER_DAY || min < 0 || min >= DT_MINS_PER_HOUR || sec < 0 ||
	    sec > DT_SECS_PER_MINUTE || fsec < 0 || fsec > DT_USECS_PER_SEC)
		return true;
	/* 24:00:00 and leap second 60 are allowed individually; the sum must not pass a day. */
	return dt_time2t(hour, min, sec, fsec) > DT_USECS_PER_DAY;
}

const ty_timezone *dt_session_tz(void)
{
	const ty_timezone *tz = ty_get_settings()->timezone;
	return tz ? tz : dt_tz_utc();
}

int dt_ts2tm(int64_t ts, int *tzp, dt_tm *tm, int32_t *fsec, const char **tzn, const ty_timezone *attz)
{
	int64_t date = ts / DT_USECS_PER_DAY;
	int64_t time = ts - date * DT_USECS_PER_DAY;
	if (time < 0) {
		time += DT_USECS_PER_DAY;
		date -= 1;
	}
	date += DT_POSTGRES_EPOCH_JDATE;
	if (date < 0 || date > INT32_MAX)
		return -1;
	dt_j2date((int)date, &tm->year, &tm->mon, &tm->mday);
	dt_dt2time(time, &tm->hour, &tm->min, &tm->sec, fsec);
	tm->wday = tm->yday = 0;
	if (tzp == NULL) {
		tm->isdst = -1;
		tm->gmtoff = 0;
		tm->zone = NULL;
		if (tzn)
			*tzn = NULL;
		return 0;
	}
	if (!attz)
		attz = dt_session_tz();
	/* Whole seconds since the Unix epoch; fsec is non-negative. */
	int64_t utime = (ts - *fsec) / DT_USECS_PER_SEC +
			(int64_t)(DT_POSTGRES_EPOCH_JDATE - DT_UNIX_EPOCH_JDATE) * DT_SECS_PER_DAY;
	dt_ttinfo ti;
	dt_tz_lookup(attz, utime, &ti);
	int64_t local = utime + ti.utoff;
	int64_t ldays = local / DT_SECS_PER_DAY, lsecs = local % DT_SECS_PER_DAY;
	if (lsecs < 0) {
		lsecs += DT_SECS_PER_DAY;
		ldays--;
	}
	dt_j2date((int)(ldays + DT_UNIX_EPOCH_JDATE), &tm->year, &tm->mon, &tm->mday);
	tm->hour = (int)(lsecs / 3600);
	tm->min = (int)(lsecs / 60 % 60);
	tm->sec = (int)(lsecs % 60);
	tm->isdst = ti.isdst;
	tm->gmtoff = ti.utoff;
	tm->zone = ti.abbr;
	*tzp = -ti.utoff;
	if (tzn)
		*tzn = ti.abbr;
	return 0;
}

int dt_tm2ts(const dt_tm *tm, int32_t fsec, const int *tzp, int64_t *out)
{
	*out = 0;
	if (!DT_VALID_JULIAN(tm->year, tm->mon, tm->mday))
		return -1;
	int64_t date = (int64_t)dt_date2j(tm->year, tm->mon, tm->mday) - DT_POSTGRES_EPOCH_JDATE;
	int64_t time = dt_time2t(tm->hour, tm->min, tm->sec, fsec);
	int64_t r;
	if (dt_mul64(date, DT_USECS_PER_DAY, &r) || dt_add64(r, time, &r))
		return -1;
	if (tzp && dt_add64(r, (int64_t)*tzp * DT_USECS_PER_SEC, &r))
		return -1;
	if (!DT_VALID_TIMESTAMP(r))
		return -1;
	*out = r;
	return 0;
}

void dt_interval2itm(const ty_interval *iv, dt_itm *itm)
{
	itm->year = iv->month / DT_MONTHS_PER_YEAR;
	itm->mon = iv->month % DT_MONTHS_PER_YEAR;
	itm->mday = iv->day;
	int64_t t = iv->time;
	itm->hour = t / DT_USECS_PER_HOUR;
	t -= itm->hour * DT_USECS_PER_HOUR;
	itm->min = (int)(t / DT_USECS_PER_MINUTE);
	t -= (int64_t)itm->min * DT_USECS_PER_MINUTE;
	itm->sec = (int)(t / DT_USECS_PER_SEC);
	itm->usec = (int)(t - (int64_t)itm->sec * DT_USECS_PER_SEC);
}

int dt_itm2interval(const dt_itm *itm, ty_interval *iv)
{
	int64_t months = (int64_t)itm->year * DT_MONTHS_PER_YEAR + itm->mon;
	if (months > INT32_MAX || months < INT32_MIN)
		return -1;
	iv->month = (int32_t)months;
	iv->day = itm->mday;
	int64_t t;
	if (dt_mul64(itm->hour, DT_USECS_PER_HOUR, &t) ||
	    dt_add64(t, (int64_t)itm->min * DT_USECS_PER_MINUTE, &t) ||
	    dt_add64(t, (int64_t)itm->sec * DT_USECS_PER_SEC, &t) || dt_add64(t, itm->usec, &t))
		return -1;
	iv->time = t;
	return 0;
}

int dt_itmin2interval(const dt_itm_in *itm, ty_interval *iv)
{
	int64_t months = (int64_t)itm->year * DT_MONTHS_PER_YEAR + itm->mon;
	if (months > INT32_MAX || months < INT32_MIN)
		return -1;
	iv->month = (int32_t)months;
	iv->day = itm->mday;
	iv->time = itm->usec;
	return 0;
}

/* ISO 8601 weeks: week 1 is the week (Monday first) holding January 4th. */
static int iso_week_start(int year)
{
	int day4 = dt_date2j(year, 1, 4);
	return day4 - dt_j2day(day4 - 1);
}

int dt_isoweek2j(int year, int week)
{
	return dt_wadd(dt_wmul(dt_wadd(week, -1), 7), iso_week_start(year));
}

void dt_isoweek2date(int woy, int *year, int *mon, int *mday)
{
	dt_j2date(dt_isoweek2j(*year, woy), year, mon, mday);
}

void dt_isoweekdate2date(int isoweek, int wday, int *year, int *mon, int *mday)
{
	int jday = dt_isoweek2j(*year, isoweek);
	/* wday is Gregorian (Sunday = 1); ISO weeks start on Monday. */
	jday = dt_wadd(jday, wday > 1 ? wday - 2 : 6);
	dt_j2date(jday, year, mon, mday);
}

static int iso_week_and_year(int year, int mon, int mday, int *isoyear)
{
	int dayn = dt_date2j(year, mon, mday);
	int start = iso_week_start(year);
	if (dayn < start) {
		year--;
		start = iso_week_start(year);
	}
	int week = (dayn - start) / 7 + 1;
	if (week >= 52) {
		int next = iso_week_start(year + 1);
		if (dayn >= next) {
			week = (dayn - next) / 7 + 1;
			year++;
		}
	}
	*isoyear = year;
	return week;
}

int dt_date2isoweek(int y, int m, int d)
{
	int iy;
	return iso_week_and_year(y, m, d, &iy);
}

int dt_date2isoyear(int y, int m, int d)
{
	int iy;
	iso_week_and_year(y, m, d, &iy);
	return iy;
}

int dt_date2isoyearday(int y, int m, int d)
{
	return dt_date2j(y, m, d) - dt_isoweek2j(dt_date2isoyear(y, m, d), 1) + 1;
}

/* Rounding to p fractional digits: scale 10^(6-p), half away from zero. */
static const int64_t dt_scales[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

static int64_t round_us(int64_t v, int p)
{
	int64_t s = dt_scales[p], o = s / 2;
	if (v >= 0)
		return (v + o) / s * s;
	return -((-v + o) / s * s);
}

int64_t dt_adjust_timestamp(int64_t ts, int32_t typmod)
{
	if (DT_NOT_FINITE(ts) || typmod == -1 || typmod == DT_MAX_TIMESTAMP_PRECISION)
		return ts;
	if (typmod < 0 || typmod > DT_MAX_TIMESTAMP_PRECISION)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "timestamp(%d) precision must be between %d and %d",
			 typmod, 0, DT_MAX_TIMESTAMP_PRECISION);
	return round_us(ts, typmod);
}

int64_t dt_adjust_time(int64_t t, int32_t typmod)
{
	if (typmod >= 0 && typmod <= DT_MAX_TIME_PRECISION)
		return round_us(t, typmod);
	return t;
}

void dt_adjust_interval(ty_interval *iv, int32_t typmod)
{
	if (typmod < 0)
		return;
	int range = (typmod >> 16) & 0x7FFF;
	int precision = typmod & 0xFFFF;
	const int Y = DT_INTERVAL_MASK(DT_YEAR), M = DT_INTERVAL_MASK(DT_MONTH), D = DT_INTERVAL_MASK(DT_DAY),
		  H = DT_INTERVAL_MASK(DT_HOUR), MI = DT_INTERVAL_MASK(DT_MINUTE),
		  S = DT_INTERVAL_MASK(DT_SECOND);
	/* Fields right of the last one named are zeroed; those left of it stay.
	 * (No fields at all: a precision-only typmod written by Strata before
	 * it packed interval typmods as PostgreSQL does.) */
	if (range == TY_INTERVAL_FULL_RANGE || range == 0) {
	} else if (range == Y) {
		iv->month = iv->month / DT_MONTHS_PER_YEAR * DT_MONTHS_PER_YEAR;
		iv->day = 0;
		iv->time = 0;
	} else if (range == M || range == (Y | M)) {
		iv->day = 0;
		iv->time = 0;
	} else if (range == D) {
		iv->time = 0;
	} else if (range == H || range == (D | H)) {
		iv->time = iv->time / DT_USECS_PER_HOUR * DT_USECS_PER_HOUR;
	} else if (range == MI || range == (D | H | MI) || range == (H | MI)) {
		iv->time = iv->time / DT_USECS_PER_MINUTE * DT_USECS_PER_MINUTE;
	} else if (range == S || range == (D | H | MI | S) || range == (H | MI | S) || range == (MI | S)) {
	} else {
		ty_error(UTIL_E_INTERNAL_ERROR, "unrecognized interval typmod: %d", typmod);
	}
	if (precision != TY_INTERVAL_FULL_PRECISION) {
		if (precision < 0 || precision > DT_MAX_INTERVAL_PRECISION)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE,
				 "interval(%d) precision must be between %d and %d", precision, 0,
				 DT_MAX_INTERVAL_PRECISION);
		iv->time = round_us(iv->time, precision);
	}
}

int64_t ty_dt_clock_now(void)
{
	return ty_ts_from_unix_us(util_now_us());
}

int64_t dt_txn_timestamp(void)
{
	int64_t t = ty_get_settings()->txn_timestamp;
	return t ? t : ty_dt_clock_now();
}

void dt_current_tm(dt_tm *tm, int32_t *fsec, int *tzp)
{
	int tz;
	int32_t fs;
	if (dt_ts2tm(dt_txn_timestamp(), &tz, tm, &fs, NULL, NULL) != 0)
		dt_err_ts_range();
	if (fsec)
		*fsec = fs;
	if (tzp)
		*tzp = tz;
}

void dt_err_ts_range(void)
{
	ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp out of range");
}
void dt_err_date_range(void)
{
	ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range");
}
void dt_err_interval_range(void)
{
	ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "interval out of range");
}

char *dt_cstr(const char *s, size_t len)
{
	return ty_strndup(s, len);
}
