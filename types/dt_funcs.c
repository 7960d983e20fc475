/*
 * dt_funcs.c — date/time functions: the current time (now, statement and
 * clock timestamps, timeofday; the SQL keywords CURRENT_DATE etc. are casts
 * of now() in the analyzer, as in PostgreSQL), age, make_*,
 * to_timestamp(float8), AT TIME ZONE (timezone()), date_bin, OVERLAPS,
 * generate_series over timestamps, in_range, pg_sleep*, *_send.
 */
#include "dt_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* printf's %02g as PostgreSQL's snprintf prints it (NaN, Infinity). */
static const char *dt_fmt_g(double v)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v < 0 ? "-Infinity" : "Infinity";
	char buf[64];
	snprintf(buf, sizeof buf, "%02g", v);
	return ty_strdup(buf);
}

/* ---------------------------------------------------------------- current time */

static DT_FN(now)
{
	return ty_int(dt_txn_timestamp());
}
static DT_FN(statement_timestamp)
{
	int64_t t = ty_get_settings()->stmt_timestamp;
	return ty_int(t ? t : dt_txn_timestamp());
}
static DT_FN(clock_timestamp)
{
	return ty_int(ty_dt_clock_now());
}

static DT_FN(timeofday)
{
	int64_t unix_us = util_now_us();
	int64_t secs = unix_us / 1000000, usec = unix_us % 1000000;
	dt_tm tm;
	int32_t fsec;
	int tz;
	const char *tzn;
	int64_t ts = ty_ts_from_unix_us(secs * 1000000);
	if (dt_ts2tm(ts, &tz, &tm, &fsec, &tzn, NULL) != 0)
		dt_err_ts_range();
	int wday = dt_j2day(dt_date2j(tm.year, tm.mon, tm.mday));
	char buf[128];
	snprintf(buf, sizeof buf, "%s %s %02d %02d:%02d:%02d.%06d %d %s", dt_days[wday],
		 dt_months[tm.mon - 1], tm.mday, tm.hour, tm.min, tm.sec, (int)usec, tm.year, tzn ? tzn : "");
	return ty_text(buf);
}

/* ---------------------------------------------------------------- age */

static ty_interval age(int64_t dt1, int64_t dt2, bool tz)
{
	dt_tm tm1, tm2;
	int32_t fsec1, fsec2;
	int tz1, tz2;
	if (dt_ts2tm(dt1, tz ? &tz1 : NULL, &tm1, &fsec1, NULL, NULL) != 0 ||
	    dt_ts2tm(dt2, tz ? &tz2 : NULL, &tm2, &fsec2, NULL, NULL) != 0)
		dt_err_ts_range();
	int64_t fsec = fsec1 - fsec2;
	int64_t sec = tm1.sec - tm2.sec, min = tm1.min - tm2.min, hour = tm1.hour - tm2.hour;
	int64_t mday = tm1.mday - tm2.mday, mon = tm1.mon - tm2.mon, year = (int64_t)tm1.year - tm2.year;
	bool neg = dt1 < dt2;
	if (neg) {
		fsec = -fsec, sec = -sec, min = -min, hour = -hour, mday = -mday, mon = -mon, year = -year;
	}
	while (fsec < 0) {
		fsec += DT_USECS_PER_SEC;
		sec--;
	}
	while (sec < 0) {
		sec += 60;
		min--;
	}
	while (min < 0) {
		min += 60;
		hour--;
	}
	while (hour < 0) {
		hour += 24;
		mday--;
	}
	while (mday < 0) {
		/* Borrow the length of the earlier timestamp's month. */
		const dt_tm *t = neg ? &tm1 : &tm2;
		mday += dt_days_in_month(t->year, t->mon);
		mon--;
	}
	while (mon < 0) {
		mon += 12;
		year--;
	}
	if (neg) {
		fsec = -fsec, sec = -sec, min = -min, hour = -hour, mday = -mday, mon = -mon, year = -year;
	}
	dt_itm itm = {(int)fsec, (int)sec, (int)min, hour, (int)mday, (int)mon, (int)year};
	ty_interval r;
	if (year != (int)year || dt_itm2interval(&itm, &r) != 0)
		dt_err_interval_range();
	return r;
}

static DT_FN(timestamp_age)
{
	ty_interval r = age(DT_I(0), DT_I(1), false);
	return dt_interval_datum(&r);
}
static DT_FN(timestamptz_age)
{
	ty_interval r = age(DT_I(0), DT_I(1), true);
	return dt_interval_datum(&r);
}
static int32_t today(void)
{
	dt_tm tm;
	dt_current_tm(&tm, NULL, NULL);
	return dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
}
static DT_FN(age_timestamp)
{
	ty_interval r = age(dt_date2timestamp(today()), DT_I(0), false);
	return dt_interval_datum(&r);
}
static DT_FN(age_timestamptz)
{
	ty_interval r = age(dt_date2timestamptz(today()), DT_I(0), true);
	return dt_interval_datum(&r);
}

/* ---------------------------------------------------------------- make_* */

static int32_t make_date(int y, int m, int d)
{
	dt_tm tm = {0};
	tm.year = y, tm.mon = m, tm.mday = d;
	bool bc = false;
	if (tm.year < 0) {
		bc = true;
		tm.year = -tm.year;
	}
	if (dt_validate_date(DTK_DATE_M, false, false, bc, &tm) != 0)
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date field value out of range: %d-%02d-%02d",
			 tm.year, tm.mon, tm.mday);
	if (!DT_VALID_JULIAN(tm.year, tm.mon, tm.mday))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: %d-%02d-%02d", tm.year, tm.mon,
			 tm.mday);
	int64_t date = (int64_t)dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
	if (!DT_VALID_DATE(date))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: %d-%02d-%02d", tm.year, tm.mon,
			 tm.mday);
	return (int32_t)date;
}

static DT_FN(make_date)
{
	return ty_int(make_date((int)DT_I(0), (int)DT_I(1), (int)DT_I(2)));
}

static bool float_time_overflows(int hour, int min, double sec)
{
	if (hour < 0 || hour > 24 || min < 0 || min >= 60)
		return true;
	if (isnan(sec))
		return true;
	sec = rint(sec * DT_USECS_PER_SEC);
	if (sec < 0 || sec > 60 * DT_USECS_PER_SEC)
		return true;
	return ((int64_t)hour * 60 + min) * 60 * DT_USECS_PER_SEC + (int64_t)sec > DT_USECS_PER_DAY;
}

static DT_FN(make_time)
{
	int h = (int)DT_I(0), m = (int)DT_I(1);
	double sec = DT_F(2);
	if (float_time_overflows(h, m, sec))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "time field value out of range: %d:%02d:%s", h, m,
			 dt_fmt_g(sec));
	return ty_int(((int64_t)h * 60 + m) * 60 * DT_USECS_PER_SEC + (int64_t)rint(sec * DT_USECS_PER_SEC));
}

static int64_t make_timestamp(int year, int month, int mday, int hour, int min, double sec)
{
	dt_tm tm = {0};
	tm.year = year, tm.mon = month, tm.mday = mday;
	bool bc = false;
	if (tm.year < 0) {
		bc = true;
		tm.year = -tm.year;
	}
	if (dt_validate_date(DTK_DATE_M, false, false, bc, &tm) != 0)
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date field value out of range: %d-%02d-%02d", year,
			 month, mday);
	if (!DT_VALID_JULIAN(tm.year, tm.mon, tm.mday))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: %d-%02d-%02d", year, month,
			 mday);
	int64_t date = (int64_t)dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
	if (float_time_overflows(hour, min, sec))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "time field value out of range: %d:%02d:%s", hour,
			 min, dt_fmt_g(sec));
	int64_t time =
	    ((int64_t)hour * 60 + min) * 60 * DT_USECS_PER_SEC + (int64_t)rint(sec * DT_USECS_PER_SEC);
	/* Wrapping arithmetic, then PostgreSQL's overflow tests. */
	int64_t r = (int64_t)((uint64_t)date * (uint64_t)DT_USECS_PER_DAY + (uint64_t)time);
	if ((int64_t)((uint64_t)r - (uint64_t)time) / DT_USECS_PER_DAY != date || (r < 0 && date > 0) ||
	    (r > 0 && date < -1) || !DT_VALID_TIMESTAMP(r))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp out of range: %d-%02d-%02d %d:%02d:%s",
			 year, month, mday, hour, min, dt_fmt_g(sec));
	return r;
}

static DT_FN(make_timestamp)
{
	return ty_int(
	    make_timestamp((int)DT_I(0), (int)DT_I(1), (int)DT_I(2), (int)DT_I(3), (int)DT_I(4), DT_F(5)));
}
static DT_FN(make_timestamptz)
{
	int64_t ts =
	    make_timestamp((int)DT_I(0), (int)DT_I(1), (int)DT_I(2), (int)DT_I(3), (int)DT_I(4), DT_F(5));
	return ty_int(dt_timestamp2timestamptz(ts));
}

int dt_lookup_zone_text(const char *name, int *offset_east, const ty_timezone **zone)
{
	char low[64];
	size_t n = strlen(name);
	if (n > 63)
		n = 63;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[n] = '\0';
	int type = dt_decode_tzabbrev(low, offset_east, zone);
	if (type == DT_TZ || type == DT_DTZ || type == DT_DYNTZ)
		return type;
	*zone = dt_tzset(name);
	if (!*zone)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "time zone \"%s\" not recognized", name);
	return DT_UNKNOWN_FIELD;
}

int dt_parse_sane_timezone(dt_tm *tm, const char *name)
{
	if (isdigit((unsigned char)*name)) {
		util_err *e =
		    ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE, "invalid input syntax for type %s: \"%s\"",
				"numeric time zone", name);
		util_err_hint(e, "Numeric time zones must have \"-\" or \"+\" as first character.");
		ty_errthrow();
	}
	int tz;
	int rt = dt_decode_timezone(name, &tz);
	if (rt == 0)
		return tz;
	if (rt == DTERR_TZDISP_OVERFLOW)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "numeric time zone \"%s\" out of range", name);
	if (rt != DTERR_BAD_FORMAT)
		ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "time zone \"%s\" not recognized", name);
	int val;
	const ty_timezone *zone;
	int type = dt_lookup_zone_text(name, &val, &zone);
	if (type == DT_TZ || type == DT_DTZ)
		return -val;
	if (type == DT_DYNTZ)
		return dt_determine_abbrev_offset(tm, name, zone);
	return dt_determine_tz_offset(tm, zone);
}

static DT_FN(make_timestamptz_at_timezone)
{
	int64_t ts =
	    make_timestamp((int)DT_I(0), (int)DT_I(1), (int)DT_I(2), (int)DT_I(3), (int)DT_I(4), DT_F(5));
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	int tz = dt_parse_sane_timezone(&tm, ty_cstring(DT_A(6)));
	int64_t r = ts + (int64_t)tz * DT_USECS_PER_SEC;
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return ty_int(r);
}

static DT_FN(make_interval)
{
	int32_t v[6] = {0, 0, 0, 0, 0, 0};
	for (int i = 0; i < 6 && i < fc->nargs; i++)
		v[i] = (int32_t)DT_I(i);
	double secs = fc->nargs > 6 ? DT_F(6) : 0.0;
	ty_interval r;
	if (isinf(secs) || isnan(secs))
		dt_err_interval_range();
	/* PostgreSQL 15 does not check these for overflow: they wrap. */
	r.month = (int32_t)((uint32_t)v[0] * 12u + (uint32_t)v[1]);
	r.day = (int32_t)((uint32_t)v[2] * 7u + (uint32_t)v[3]);
	secs = rint(secs * DT_USECS_PER_SEC);
	int64_t isecs = (secs >= (double)INT64_MIN && secs < -(double)INT64_MIN) ? (int64_t)secs : INT64_MIN;
	r.time = (int64_t)((uint64_t)(int64_t)v[4] * (uint64_t)DT_USECS_PER_HOUR +
			   (uint64_t)(int64_t)v[5] * (uint64_t)DT_USECS_PER_MINUTE + (uint64_t)isecs);
	return dt_interval_datum(&r);
}

static DT_FN(float8_timestamptz)
{
	double s = DT_F(0);
	if (isnan(s))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp cannot be NaN");
	if (isinf(s))
		return ty_int(s < 0 ? TY_TS_NOBEGIN : TY_TS_NOEND);
	if (s < (double)DT_SECS_PER_DAY * (DT_DATETIME_MIN_JULIAN - DT_UNIX_EPOCH_JDATE) ||
	    s >= (double)DT_SECS_PER_DAY * (DT_TIMESTAMP_END_JULIAN - DT_UNIX_EPOCH_JDATE))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%s\"", dt_fmt_g(s));
	double v = s - (double)(DT_POSTGRES_EPOCH_JDATE - DT_UNIX_EPOCH_JDATE) * DT_SECS_PER_DAY;
	v = rint(v * DT_USECS_PER_SEC);
	int64_t r = (int64_t)v;
	if (!DT_VALID_TIMESTAMP(r))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%s\"", dt_fmt_g(s));
	return ty_int(r);
}

/* ---------------------------------------------------------------- AT TIME ZONE */

/* timestamptz AT TIME ZONE text -> timestamp (local time there). */
static DT_FN(timestamptz_zone)
{
	int64_t ts = DT_I(1);
	if (DT_NOT_FINITE(ts))
		return ty_int(ts);
	char *name = ty_cstring(DT_A(0));
	int val, tz;
	const ty_timezone *zone;
	int type = dt_lookup_zone_text(name, &val, &zone);
	int64_t r;
	if (type == DT_TZ || type == DT_DTZ) {
		r = ts + (int64_t)val * DT_USECS_PER_SEC;
	} else if (type == DT_DYNTZ) {
		int isdst;
		tz = dt_determine_abbrev_offset_ts(ts, name, zone, &isdst);
		r = ts - (int64_t)tz * DT_USECS_PER_SEC;
	} else {
		dt_tm tm;
		int32_t fsec;
		if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, zone) != 0 || dt_tm2ts(&tm, fsec, NULL, &r) != 0)
			dt_err_ts_range();
	}
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return ty_int(r);
}

/* timestamp AT TIME ZONE text -> timestamptz (that local time there). */
static DT_FN(timestamp_zone)
{
	int64_t ts = DT_I(1);
	if (DT_NOT_FINITE(ts))
		return ty_int(ts);
	char *name = ty_cstring(DT_A(0));
	int val, tz;
	const ty_timezone *zone;
	int type = dt_lookup_zone_text(name, &val, &zone);
	int64_t r;
	dt_tm tm;
	int32_t fsec;
	if (type == DT_TZ || type == DT_DTZ) {
		r = ts - (int64_t)val * DT_USECS_PER_SEC;
	} else if (type == DT_DYNTZ) {
		if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
			dt_err_ts_range();
		tz = dt_determine_abbrev_offset(&tm, name, zone);
		r = ts + (int64_t)tz * DT_USECS_PER_SEC;
	} else {
		if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
			dt_err_ts_range();
		tz = dt_determine_tz_offset(&tm, zone);
		if (dt_tm2ts(&tm, fsec, &tz, &r) != 0)
			dt_err_ts_range();
	}
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return ty_int(r);
}

static DT_FN(timestamp_izone)
{
	int64_t ts = DT_I(1);
	if (DT_NOT_FINITE(ts))
		return ty_int(ts);
	ty_interval iv = dt_interval_get(DT_A(0));
	if (iv.month != 0 || iv.day != 0)
		dt_err_interval_zone(&iv);
	int64_t r = ts - iv.time / DT_USECS_PER_SEC * DT_USECS_PER_SEC;
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return ty_int(r);
}

static DT_FN(timestamptz_izone)
{
	int64_t ts = DT_I(1);
	if (DT_NOT_FINITE(ts))
		return ty_int(ts);
	ty_interval iv = dt_interval_get(DT_A(0));
	if (iv.month != 0 || iv.day != 0)
		dt_err_interval_zone(&iv);
	int64_t r = ts + iv.time / DT_USECS_PER_SEC * DT_USECS_PER_SEC;
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return ty_int(r);
}

/* ---------------------------------------------------------------- date_bin */

static int64_t date_bin(const ty_interval *stride, int64_t ts, int64_t origin)
{
	if (DT_NOT_FINITE(origin))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "origin out of range");
	if (stride->month != 0)
		ty_error(UTIL_E_FEATURE_NOT_SUPPORTED,
			 "timestamps cannot be binned into intervals containing months or years");
	int64_t su, diff;
	if (dt_mul64(stride->day, DT_USECS_PER_DAY, &su) || dt_add64(su, stride->time, &su))
		dt_err_interval_range();
	if (su <= 0)
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "stride must be greater than zero");
	if (dt_sub64(ts, origin, &diff))
		dt_err_interval_range();
	int64_t mod = diff % su;
	int64_t r = origin + (diff - mod);
	/* Round towards -infinity for timestamps before the origin. */
	if (mod < 0 && (dt_sub64(r, su, &r) || !DT_VALID_TIMESTAMP(r)))
		dt_err_ts_range();
	return r;
}

static DT_FN(timestamp_bin)
{
	if (DT_NOT_FINITE(DT_I(1)))
		return ty_int(DT_I(1));
	ty_interval iv = dt_interval_get(DT_A(0));
	return ty_int(date_bin(&iv, DT_I(1), DT_I(2)));
}

/* ---------------------------------------------------------------- OVERLAPS */

typedef int (*cmp_fn)(ty_datum, ty_datum);

static int cmp_i64(ty_datum a, ty_datum b)
{
	return a.i < b.i ? -1 : a.i > b.i;
}
static int cmp_timetz(ty_datum a, ty_datum b)
{
	return ty_compare(TY_TIMETZ, a, b);
}

/* PostgreSQL's overlaps with SQL's NULL rules. */
static ty_datum overlaps(ty_datum ts1, ty_datum te1, ty_datum ts2, ty_datum te2, cmp_fn cmp)
{
	bool te1null = te1.null, te2null = te2.null;
	if (ts1.null) {
		if (te1null)
			return ty_null();
		ts1 = te1;
		te1null = true;
	} else if (!te1null && cmp(ts1, te1) > 0) {
		ty_datum t = ts1;
		ts1 = te1;
		te1 = t;
	}
	if (ts2.null) {
		if (te2null)
			return ty_null();
		ts2 = te2;
		te2null = true;
	} else if (!te2null && cmp(ts2, te2) > 0) {
		ty_datum t = ts2;
		ts2 = te2;
		te2 = t;
	}
	int c = cmp(ts1, ts2);
	if (c > 0) {
		if (te2null)
			return ty_null();
		if (cmp(ts1, te2) < 0)
			return ty_bool(true);
		if (te1null)
			return ty_null();
		return ty_bool(false);
	}
	if (c < 0) {
		if (te1null)
			return ty_null();
		if (cmp(ts2, te1) < 0)
			return ty_bool(true);
		if (te2null)
			return ty_null();
		return ty_bool(false);
	}
	if (te1null || te2null)
		return ty_null();
	return ty_bool(true);
}

static DT_FN(overlaps_timestamp)
{
	return overlaps(DT_A(0), DT_A(1), DT_A(2), DT_A(3), cmp_i64);
}
static DT_FN(overlaps_time)
{
	return overlaps(DT_A(0), DT_A(1), DT_A(2), DT_A(3), cmp_i64);
}
static DT_FN(overlaps_timetz)
{
	return overlaps(DT_A(0), DT_A(1), DT_A(2), DT_A(3), cmp_timetz);
}

/* Variants with an interval as the second point: (start, start + length). */
typedef ty_datum (*plus_fn)(ty_datum, ty_datum);

static ty_datum plus_ts(ty_datum t, ty_datum iv)
{
	if (t.null || iv.null)
		return ty_null();
	ty_interval i = dt_interval_get(iv);
	return ty_int(dt_timestamp_pl_interval(t.i, &i));
}
static ty_datum plus_tstz(ty_datum t, ty_datum iv)
{
	if (t.null || iv.null)
		return ty_null();
	ty_interval i = dt_interval_get(iv);
	return ty_int(dt_timestamptz_pl_interval(t.i, &i, NULL));
}
static ty_datum plus_time(ty_datum t, ty_datum iv)
{
	if (t.null || iv.null)
		return ty_null();
	int64_t r = t.i + dt_interval_get(iv).time;
	r -= r / DT_USECS_PER_DAY * DT_USECS_PER_DAY;
	if (r < 0)
		r += DT_USECS_PER_DAY;
	return ty_int(r);
}

static ty_datum overlaps_iv(ty_fcinfo *fc, plus_fn plus, bool first_iv, bool second_iv)
{
	ty_datum te1 = first_iv ? plus(DT_A(0), DT_A(1)) : DT_A(1);
	ty_datum te2 = second_iv ? plus(DT_A(2), DT_A(3)) : DT_A(3);
	return overlaps(DT_A(0), te1, DT_A(2), te2, cmp_i64);
}

static DT_FN(overlaps_ts_iv_ts_iv)
{
	return overlaps_iv(fc, plus_ts, true, true);
}
static DT_FN(overlaps_ts_ts_ts_iv)
{
	return overlaps_iv(fc, plus_ts, false, true);
}
static DT_FN(overlaps_ts_iv_ts_ts)
{
	return overlaps_iv(fc, plus_ts, true, false);
}
static DT_FN(overlaps_tz_iv_tz_iv)
{
	return overlaps_iv(fc, plus_tstz, true, true);
}
static DT_FN(overlaps_tz_tz_tz_iv)
{
	return overlaps_iv(fc, plus_tstz, false, true);
}
static DT_FN(overlaps_tz_iv_tz_tz)
{
	return overlaps_iv(fc, plus_tstz, true, false);
}
static DT_FN(overlaps_t_iv_t_iv)
{
	return overlaps_iv(fc, plus_time, true, true);
}
static DT_FN(overlaps_t_t_t_iv)
{
	return overlaps_iv(fc, plus_time, false, true);
}
static DT_FN(overlaps_t_iv_t_t)
{
	return overlaps_iv(fc, plus_time, true, false);
}

/* ---------------------------------------------------------------- generate_series */

typedef struct series_state {
	int64_t current, finish;
	ty_interval step;
	int sign;
	bool tz;
} series_state;

static ty_datum series_next(ty_fcinfo *fc, bool tz)
{
	series_state *s = fc->srf_state;
	if (!s) {
		s = util_arena_alloc(fc->cache_arena, sizeof *s);
		if (!s)
			ty_error(UTIL_E_OUT_OF_MEMORY, "out of memory");
		s->current = DT_I(0);
		s->finish = DT_I(1);
		s->step = dt_interval_get(DT_A(2));
		s->tz = tz;
		ty_interval zero = {0, 0, 0};
		s->sign = dt_interval_cmp(&s->step, &zero);
		if (s->sign == 0)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "step size cannot equal zero");
		fc->srf_state = s;
	}
	int64_t r = s->current;
	if (s->sign > 0 ? r <= s->finish : r >= s->finish) {
		s->current = tz ? dt_timestamptz_pl_interval(r, &s->step, NULL)
				: dt_timestamp_pl_interval(r, &s->step);
		return ty_int(r);
	}
	fc->srf_done = true;
	return ty_null();
}

static DT_FN(generate_series_timestamp)
{
	return series_next(fc, false);
}
static DT_FN(generate_series_timestamptz)
{
	return series_next(fc, true);
}

/* ---------------------------------------------------------------- pg_sleep */

/* Sleeps until the wall clock passes the end, checking for cancellation
 * (statement_timeout, query cancel) every few milliseconds. */
static ty_datum sleep_seconds(double secs)
{
	double end = (double)util_now_us() / 1e6 + secs;
	for (;;) {
		ty_check_interrupts();
		double delay = end - (double)util_now_us() / 1e6;
		if (!(delay > 0.0))
			break;
		util_sleep_us(delay > 0.01 ? 10000 : (int64_t)ceil(delay * 1e6));
	}
	return ty_int(0);
}

static DT_FN(pg_sleep)
{
	return sleep_seconds(DT_F(0));
}
static DT_FN(pg_sleep_for)
{
	ty_interval iv = dt_interval_get(DT_A(0));
	int64_t now = ty_dt_clock_now();
	int64_t end = dt_timestamptz_pl_interval(now, &iv, NULL);
	return sleep_seconds((double)(end - now) / 1e6);
}
static DT_FN(pg_sleep_until)
{
	return sleep_seconds((double)(DT_I(0) - ty_dt_clock_now()) / 1e6);
}

/* ---------------------------------------------------------------- in_range (window RANGE offsets) */

UTIL_NORETURN static void bad_window_offset(void)
{
	ty_error(UTIL_E_INVALID_PRECEDING_OR_FOLLOWING_SIZE,
		 "invalid preceding or following size in window function");
}

static void check_offset(const ty_interval *off)
{
	ty_interval zero = {0, 0, 0};
	if (dt_interval_cmp(off, &zero) < 0)
		bad_window_offset();
}

static ty_datum in_range_ts(int64_t val, int64_t base, ty_interval off, bool sub, bool less, bool tz)
{
	check_offset(&off);
	if (sub)
		off = dt_interval_um(&off);
	int64_t sum =
	    tz ? dt_timestamptz_pl_interval(base, &off, NULL) : dt_timestamp_pl_interval(base, &off);
	return ty_bool(less ? val <= sum : val >= sum);
}

static DT_FN(in_range_timestamp_interval)
{
	return in_range_ts(DT_I(0), DT_I(1), dt_interval_get(DT_A(2)), DT_I(3) != 0, DT_I(4) != 0, false);
}
static DT_FN(in_range_timestamptz_interval)
{
	return in_range_ts(DT_I(0), DT_I(1), dt_interval_get(DT_A(2)), DT_I(3) != 0, DT_I(4) != 0, true);
}
static DT_FN(in_range_date_interval)
{
	return in_range_ts(dt_date2timestamp((int32_t)DT_I(0)), dt_date2timestamp((int32_t)DT_I(1)),
			   dt_interval_get(DT_A(2)), DT_I(3) != 0, DT_I(4) != 0, false);
}
static DT_FN(in_range_interval_interval)
{
	ty_interval val = dt_interval_get(DT_A(0)), base = dt_interval_get(DT_A(1)),
		    off = dt_interval_get(DT_A(2));
	check_offset(&off);
	if (DT_I(3))
		off = dt_interval_um(&off);
	ty_interval sum = dt_interval_pl(&base, &off);
	int c = dt_interval_cmp(&val, &sum);
	return ty_bool(DT_I(4) ? c <= 0 : c >= 0);
}
static DT_FN(in_range_time_interval)
{
	ty_interval off = dt_interval_get(DT_A(2));
	/* Only the time part counts, as time + interval ignores months and days. */
	if (off.time < 0)
		bad_window_offset();
	int64_t sum = DT_I(3) ? DT_I(1) - off.time : DT_I(1) + off.time;
	return ty_bool(DT_I(4) ? DT_I(0) <= sum : DT_I(0) >= sum);
}
static DT_FN(in_range_timetz_interval)
{
	ty_interval off = dt_interval_get(DT_A(2));
	if (off.time < 0)
		bad_window_offset();
	ty_timetz base = dt_timetz_get(DT_A(1));
	base.time = DT_I(3) ? base.time - off.time : base.time + off.time;
	int c = ty_compare(TY_TIMETZ, DT_A(0), dt_timetz_datum(base.time, base.zone));
	return ty_bool(DT_I(4) ? c <= 0 : c >= 0);
}

/* ---------------------------------------------------------------- registration */

#define D  TY_DATE
#define T  TY_TIME
#define TT TY_TIMETZ
#define TS TY_TIMESTAMP
#define TZ TY_TIMESTAMPTZ
#define IV TY_INTERVAL
#define B  TY_BOOL
#define I4 TY_INT4
#define F8 TY_FLOAT8
#define TX TY_TEXT

#define DTFN(nm, oid_, src, vol, ret_, n, ...) /* non-strict */                                              \
	{                                                                                                    \
		.name = nm, .nargs = n, .args = {__VA_ARGS__}, .ret = ret_, .fn = dtf_##src,                 \
		.volatility = vol, .strict = false, .kind = 'f', .prosrc = #src, .oid = oid_                 \
	}

static const ty_func fn_table[] = {
    DTF("now", 1299, now, 's', TZ, 0, 0),
    DTF("transaction_timestamp", 2647, now, 's', TZ, 0, 0),
    DTF("statement_timestamp", 2648, statement_timestamp, 's', TZ, 0, 0),
    DTF("clock_timestamp", 2649, clock_timestamp, 'v', TZ, 0, 0),
    DTF("timeofday", 274, timeofday, 'v', TX, 0, 0),
    DTF("age", 2058, timestamp_age, 'i', IV, 2, TS, TS),
    DTF("age", 1199, timestamptz_age, 'i', IV, 2, TZ, TZ),
    DTF("age", 2059, age_timestamp, 's', IV, 1, TS),
    DTF("age", 1386, age_timestamptz, 's', IV, 1, TZ),
    DTF("make_date", 3846, make_date, 'i', D, 3, I4, I4, I4),
    DTF("make_time", 3847, make_time, 'i', T, 3, I4, I4, F8),
    DTF("make_timestamp", 3461, make_timestamp, 'i', TS, 6, I4, I4, I4, I4, I4, F8),
    DTF("make_timestamptz", 3462, make_timestamptz, 's', TZ, 6, I4, I4, I4, I4, I4, F8),
    DTF("make_timestamptz", 3463, make_timestamptz_at_timezone, 's', TZ, 7, I4, I4, I4, I4, I4, F8, TX),
    {.name = "make_interval",
     .nargs = 7,
     .args = {I4, I4, I4, I4, I4, I4, F8},
     .ret = IV,
     .fn = dtf_make_interval,
     .volatility = 'i',
     .strict = true,
     .kind = 'f',
     .prosrc = "make_interval",
     .oid = 3464,
     .nargdefaults = 7},
    DTF("to_timestamp", 1158, float8_timestamptz, 'i', TZ, 1, F8),
    DTF("timezone", 1159, timestamptz_zone, 'i', TS, 2, TX, TZ),
    DTF("timezone", 2069, timestamp_zone, 'i', TZ, 2, TX, TS),
    DTF("timezone", 2070, timestamp_izone, 'i', TZ, 2, IV, TS),
    DTF("timezone", 1026, timestamptz_izone, 'i', TS, 2, IV, TZ),
    DTF("date_bin", 6177, timestamp_bin, 'i', TS, 3, IV, TS, TS),
    DTF("date_bin", 6178, timestamp_bin, 'i', TZ, 3, IV, TZ, TZ),
    DTFN("overlaps", 2041, overlaps_timestamp, 'i', B, 4, TS, TS, TS, TS),
    DTFN("overlaps", 1304, overlaps_timestamp, 'i', B, 4, TZ, TZ, TZ, TZ),
    DTFN("overlaps", 1308, overlaps_time, 'i', B, 4, T, T, T, T),
    DTFN("overlaps", 1271, overlaps_timetz, 'i', B, 4, TT, TT, TT, TT),
    DTFN("overlaps", 2042, overlaps_ts_iv_ts_iv, 'i', B, 4, TS, IV, TS, IV),
    DTFN("overlaps", 2043, overlaps_ts_ts_ts_iv, 'i', B, 4, TS, TS, TS, IV),
    DTFN("overlaps", 2044, overlaps_ts_iv_ts_ts, 'i', B, 4, TS, IV, TS, TS),
    DTFN("overlaps", 1305, overlaps_tz_iv_tz_iv, 's', B, 4, TZ, IV, TZ, IV),
    DTFN("overlaps", 1306, overlaps_tz_tz_tz_iv, 's', B, 4, TZ, TZ, TZ, IV),
    DTFN("overlaps", 1307, overlaps_tz_iv_tz_tz, 's', B, 4, TZ, IV, TZ, TZ),
    DTFN("overlaps", 1309, overlaps_t_iv_t_iv, 'i', B, 4, T, IV, T, IV),
    DTFN("overlaps", 1310, overlaps_t_t_t_iv, 'i', B, 4, T, T, T, IV),
    DTFN("overlaps", 1311, overlaps_t_iv_t_t, 'i', B, 4, T, IV, T, T),
    DTF("pg_sleep", 2626, pg_sleep, 'v', TY_VOID, 1, F8),
    DTF("pg_sleep_for", 3935, pg_sleep_for, 'v', TY_VOID, 1, IV),
    DTF("pg_sleep_until", 3936, pg_sleep_until, 'v', TY_VOID, 1, TZ),
    DTF("in_range", 4133, in_range_date_interval, 'i', B, 5, D, D, IV, B, B),
    DTF("in_range", 4134, in_range_timestamp_interval, 'i', B, 5, TS, TS, IV, B, B),
    DTF("in_range", 4135, in_range_timestamptz_interval, 's', B, 5, TZ, TZ, IV, B, B),
    DTF("in_range", 4136, in_range_interval_interval, 'i', B, 5, IV, IV, IV, B, B),
    DTF("in_range", 4137, in_range_time_interval, 'i', B, 5, T, T, IV, B, B),
    DTF("in_range", 4138, in_range_timetz_interval, 'i', B, 5, TT, TT, IV, B, B),
    {.name = "generate_series",
     .nargs = 3,
     .args = {TS, TS, IV},
     .ret = TS,
     .fn = dtf_generate_series_timestamp,
     .volatility = 'i',
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "generate_series_timestamp",
     .oid = 938},
    {.name = "generate_series",
     .nargs = 3,
     .args = {TZ, TZ, IV},
     .ret = TZ,
     .fn = dtf_generate_series_timestamptz,
     .volatility = 's',
     .strict = true,
     .retset = true,
     .kind = 'f',
     .prosrc = "generate_series_timestamptz",
     .oid = 939},
};

void dt_register_funcs(void)
{
	ty_func_register(fn_table, (int)UTIL_ARRAY_LEN(fn_table));
}

/* ---------------------------------------------------------------- *_send as SQL functions */

static ty_datum send_bytes(ty_oid type, ty_datum v)
{
	util_buf b = UTIL_BUF_INIT;
	ty_type_get(type)->send(v, &b);
	ty_datum r = ty_datum_copy(ty_bytes(b.data, b.len), false);
	util_buf_free(&b);
	return r;
}

static DT_FN(date_send)
{
	return send_bytes(TY_DATE, DT_A(0));
}
static DT_FN(time_send)
{
	return send_bytes(TY_TIME, DT_A(0));
}
static DT_FN(timetz_send)
{
	return send_bytes(TY_TIMETZ, DT_A(0));
}
static DT_FN(timestamp_send)
{
	return send_bytes(TY_TIMESTAMP, DT_A(0));
}
static DT_FN(timestamptz_send)
{
	return send_bytes(TY_TIMESTAMPTZ, DT_A(0));
}
static DT_FN(interval_send)
{
	return send_bytes(TY_INTERVAL, DT_A(0));
}

static const ty_func send_table[] = {
    DTF("date_send", 2469, date_send, 'i', TY_BYTEA, 1, TY_DATE),
    DTF("time_send", 2471, time_send, 'i', TY_BYTEA, 1, TY_TIME),
    DTF("timetz_send", 2473, timetz_send, 'i', TY_BYTEA, 1, TY_TIMETZ),
    DTF("timestamp_send", 2475, timestamp_send, 'i', TY_BYTEA, 1, TY_TIMESTAMP),
    DTF("timestamptz_send", 2477, timestamptz_send, 'i', TY_BYTEA, 1, TY_TIMESTAMPTZ),
    DTF("interval_send", 2479, interval_send, 'i', TY_BYTEA, 1, TY_INTERVAL),
};

void dt_register_sends(void)
{
	ty_func_register(send_table, (int)UTIL_ARRAY_LEN(send_table));
}
