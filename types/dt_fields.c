/*
 * dt_fields.c — field access on date/time values: date_trunc (timestamp,
 * timestamptz with or without a zone argument, interval), date_part
 * (float8) and extract (numeric, as PostgreSQL 14+), with PostgreSQL's unit
 * names, infinity handling and "not recognized" / "not supported" errors.
 */
#include "dt_int.h"
#include "numeric.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(ty_oid t)
{
	switch (t) {
	case TY_TIMESTAMP:
		return "timestamp without time zone";
	case TY_TIMESTAMPTZ:
		return "timestamp with time zone";
	case TY_DATE:
		return "date";
	case TY_TIME:
		return "time without time zone";
	case TY_TIMETZ:
		return "time with time zone";
	default:
		return "interval";
	}
}

/* Lower-cased unit name (downcase_truncate_identifier). */
static char *lower_unit(ty_datum d)
{
	size_t n = d.len > 63 ? 63 : d.len;
	char *s = ty_alloc(n + 1);
	const char *p = d.p;
	for (size_t i = 0; i < n; i++)
		s[i] = (char)tolower((unsigned char)p[i]);
	s[n] = '\0';
	return s;
}

UTIL_NORETURN static void not_supported(const char *unit, ty_oid t)
{
	ty_error(UTIL_E_FEATURE_NOT_SUPPORTED, "unit \"%s\" not supported for type %s", unit, type_name(t));
}

UTIL_NORETURN static void not_recognized(const char *unit, ty_oid t)
{
	ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "unit \"%s\" not recognized for type %s", unit,
		 type_name(t));
}

/* ---------------------------------------------------------------- date_trunc */

static void trunc_tm(dt_tm *tm, int32_t *fsec, int val, const char *unit, ty_oid t, bool *redotz)
{
	switch (val) {
	case DTK_WEEK: {
		int woy = dt_date2isoweek(tm->year, tm->mon, tm->mday);
		/* Weeks 52/53 in January belong to the previous year, week 1 in December to the next. */
		if (woy >= 52 && tm->mon == 1)
			--tm->year;
		if (woy <= 1 && tm->mon == 12)
			++tm->year;
		dt_isoweek2date(woy, &tm->year, &tm->mon, &tm->mday);
		tm->hour = tm->min = tm->sec = 0;
		*fsec = 0;
		*redotz = true;
		return;
	}
	case DTK_MILLENNIUM:
		if (tm->year > 0)
			tm->year = ((tm->year + 999) / 1000) * 1000 - 999;
		else
			tm->year = -((999 - (tm->year - 1)) / 1000) * 1000 + 1;
		/* fall through */
	case DTK_CENTURY:
		if (tm->year > 0)
			tm->year = ((tm->year + 99) / 100) * 100 - 99;
		else
			tm->year = -((99 - (tm->year - 1)) / 100) * 100 + 1;
		/* fall through */
	case DTK_DECADE:
		if (val != DTK_MILLENNIUM && val != DTK_CENTURY) {
			if (tm->year > 0)
				tm->year = (tm->year / 10) * 10;
			else
				tm->year = -((8 - (tm->year - 1)) / 10) * 10;
		}
		/* fall through */
	case DTK_YEAR:
		tm->mon = 1;
		/* fall through */
	case DTK_QUARTER:
		tm->mon = (3 * ((tm->mon - 1) / 3)) + 1;
		/* fall through */
	case DTK_MONTH:
		tm->mday = 1;
		/* fall through */
	case DTK_DAY:
		tm->hour = 0;
		*redotz = true;
		/* fall through */
	case DTK_HOUR:
		tm->min = 0;
		/* fall through */
	case DTK_MINUTE:
		tm->sec = 0;
		/* fall through */
	case DTK_SECOND:
		*fsec = 0;
		return;
	case DTK_MILLISEC:
		*fsec = (*fsec / 1000) * 1000;
		return;
	case DTK_MICROSEC:
		return;
	default:
		not_supported(unit, t);
	}
}

static DT_FN(timestamp_trunc)
{
	int64_t ts = DT_I(1);
	if (DT_NOT_FINITE(ts))
		return ty_int(ts);
	char *unit = lower_unit(DT_A(0));
	int val;
	if (dt_decode_units(unit, &val) != DT_UNITS)
		not_recognized(unit, TY_TIMESTAMP);
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	bool redotz = false;
	trunc_tm(&tm, &fsec, val, unit, TY_TIMESTAMP, &redotz);
	int64_t r;
	if (dt_tm2ts(&tm, fsec, NULL, &r) != 0)
		dt_err_ts_range();
	return ty_int(r);
}

static int64_t tstz_trunc(ty_datum units, int64_t ts, const ty_timezone *zone)
{
	if (DT_NOT_FINITE(ts))
		return ts;
	char *unit = lower_unit(units);
	int val;
	if (dt_decode_units(unit, &val) != DT_UNITS)
		not_recognized(unit, TY_TIMESTAMPTZ);
	dt_tm tm;
	int32_t fsec;
	int tz;
	if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, zone) != 0)
		dt_err_ts_range();
	bool redotz = false;
	trunc_tm(&tm, &fsec, val, unit, TY_TIMESTAMPTZ, &redotz);
	if (redotz)
		tz = dt_determine_tz_offset(&tm, zone);
	int64_t r;
	if (dt_tm2ts(&tm, fsec, &tz, &r) != 0)
		dt_err_ts_range();
	return r;
}

static DT_FN(timestamptz_trunc)
{
	return ty_int(tstz_trunc(DT_A(0), DT_I(1), dt_session_tz()));
}

static DT_FN(timestamptz_trunc_zone)
{
	char *name = ty_cstring(DT_A(2));
	int val;
	const ty_timezone *zone;
	int type = dt_lookup_zone_text(name, &val, &zone);
	if (type == DT_TZ || type == DT_DTZ)
		zone = ty_dt_timezone_fixed(val);
	return ty_int(tstz_trunc(DT_A(0), DT_I(1), zone));
}

static DT_FN(interval_trunc)
{
	char *unit = lower_unit(DT_A(0));
	int val;
	if (dt_decode_units(unit, &val) != DT_UNITS)
		not_recognized(unit, TY_INTERVAL);
	ty_interval iv = dt_interval_get(DT_A(1));
	dt_itm tm;
	dt_interval2itm(&iv, &tm);
	switch (val) {
	case DTK_MILLENNIUM:
		tm.year = (tm.year / 1000) * 1000;
		/* fall through */
	case DTK_CENTURY:
		tm.year = (tm.year / 100) * 100;
		/* fall through */
	case DTK_DECADE:
		tm.year = (tm.year / 10) * 10;
		/* fall through */
	case DTK_YEAR:
		tm.mon = 0;
		/* fall through */
	case DTK_QUARTER:
		tm.mon = 3 * (tm.mon / 3);
		/* fall through */
	case DTK_MONTH:
		tm.mday = 0;
		/* fall through */
	case DTK_DAY:
		tm.hour = 0;
		/* fall through */
	case DTK_HOUR:
		tm.min = 0;
		/* fall through */
	case DTK_MINUTE:
		tm.sec = 0;
		/* fall through */
	case DTK_SECOND:
		tm.usec = 0;
		break;
	case DTK_MILLISEC:
		tm.usec = (tm.usec / 1000) * 1000;
		break;
	case DTK_MICROSEC:
		break;
	default: {
		util_err *e = ty_errstart(UTIL_E_FEATURE_NOT_SUPPORTED,
					  "unit \"%s\" not supported for type %s", unit, "interval");
		if (val == DTK_WEEK)
			util_err_detail(e, "Months usually have fractional weeks.");
		ty_errthrow();
	}
	}
	ty_interval r;
	if (dt_itm2interval(&tm, &r) != 0)
		dt_err_interval_range();
	return dt_interval_datum(&r);
}

/* ---------------------------------------------------------------- date_part / extract */

/* A result of date_part/extract: either an integer, value/10^scale, or a
 * float computed directly (date_part's own float arithmetic). */
typedef struct part_val {
	enum { PV_INT, PV_SCALED, PV_FLOAT, PV_NUMERIC, PV_NULL } kind;
	int64_t i;
	int scale;
	double f;
	ty_datum n;
} part_val;

static part_val pv_int(int64_t v)
{
	return (part_val){PV_INT, v, 0, (double)v, {{0}, 0, false}};
}
static part_val pv_scaled(int64_t v, int scale, double f)
{
	return (part_val){PV_SCALED, v, scale, f, {{0}, 0, false}};
}

/* int64_div_fast_to_numeric: v / 10^scale with display scale `scale`. */
static ty_datum scaled_numeric(int64_t v, int scale)
{
	char buf[64];
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint64_t p = 1;
	for (int i = 0; i < scale; i++)
		p *= 10;
	snprintf(buf, sizeof buf, "%s%llu.%0*llu", v < 0 ? "-" : "", (unsigned long long)(a / p), scale,
		 (unsigned long long)(a % p));
	return ty_numeric_parse(buf, strlen(buf), -1);
}

static ty_datum pv_result(part_val v, bool numeric)
{
	switch (v.kind) {
	case PV_NULL:
		return ty_null();
	case PV_INT:
		return numeric ? ty_numeric_from_int64(v.i) : ty_float((double)v.i);
	case PV_SCALED:
		return numeric ? scaled_numeric(v.i, v.scale) : ty_float(v.f);
	case PV_NUMERIC:
		return numeric ? v.n : ty_float(v.f);
	default:
		return numeric ? ty_numeric_parse(v.f < 0 ? "-Infinity" : "Infinity", v.f < 0 ? 9 : 8, -1)
			       : ty_float(v.f);
	}
}

static int64_t year_field(int y)
{
	return y > 0 ? y : y - 1;
}
static int64_t decade_field(int y)
{
	return y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
}
static int64_t century_field(int y)
{
	return y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
}
static int64_t millennium_field(int y)
{
	return y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
}

/* Date fields shared by timestamp(tz) and date; false if val is not one. */
static bool date_unit(int val, int y, int m, int d, int64_t *out)
{
	switch (val) {
	case DTK_DAY:
		*out = d;
		return true;
	case DTK_MONTH:
		*out = m;
		return true;
	case DTK_QUARTER:
		*out = (m - 1) / 3 + 1;
		return true;
	case DTK_WEEK:
		*out = dt_date2isoweek(y, m, d);
		return true;
	case DTK_YEAR:
		*out = year_field(y);
		return true;
	case DTK_DECADE:
		*out = decade_field(y);
		return true;
	case DTK_CENTURY:
		*out = century_field(y);
		return true;
	case DTK_MILLENNIUM:
		*out = millennium_field(y);
		return true;
	case DTK_ISOYEAR: {
		int64_t r = dt_date2isoyear(y, m, d);
		*out = r <= 0 ? r - 1 : r;
		return true;
	}
	case DTK_DOW:
	case DTK_ISODOW: {
		int64_t r = dt_j2day(dt_date2j(y, m, d));
		*out = (val == DTK_ISODOW && r == 0) ? 7 : r;
		return true;
	}
	case DTK_DOY:
		*out = dt_date2j(y, m, d) - dt_date2j(y, 1, 1) + 1;
		return true;
	default:
		return false;
	}
}

static int decode_part_unit(const char *unit, int *val)
{
	int type = dt_decode_units(unit, val);
	if (type == DT_UNKNOWN_FIELD)
		type = dt_decode_special(unit, val);
	return type;
}

/* date_part/extract on infinite timestamps: 0 (NULL for extract... see
 * callers) for cyclic fields, ±Infinity for monotonic ones. */
static part_val nonfinite_part(int type, int val, const char *unit, bool negative, ty_oid t, bool numeric)
{
	if (type != DT_UNITS && type != DT_RESERV)
		not_recognized(unit, t);
	switch (val) {
	case DTK_MICROSEC:
	case DTK_MILLISEC:
	case DTK_SECOND:
	case DTK_MINUTE:
	case DTK_HOUR:
	case DTK_DAY:
	case DTK_MONTH:
	case DTK_QUARTER:
	case DTK_WEEK:
	case DTK_DOW:
	case DTK_ISODOW:
	case DTK_DOY:
	case DTK_TZ:
	case DTK_TZ_MINUTE:
	case DTK_TZ_HOUR:
		return numeric ? (part_val){PV_NULL, 0, 0, 0, {{0}, 0, false}} : pv_int(0);
	case DTK_YEAR:
	case DTK_DECADE:
	case DTK_CENTURY:
	case DTK_MILLENNIUM:
	case DTK_JULIAN:
	case DTK_ISOYEAR:
	case DTK_EPOCH:
		return (part_val){PV_FLOAT, 0, 0, negative ? -INFINITY : INFINITY, {{0}, 0, false}};
	default:
		not_supported(unit, t);
	}
}

static part_val timestamp_part(ty_datum units, int64_t ts, bool with_tz, bool numeric)
{
	ty_oid t = with_tz ? TY_TIMESTAMPTZ : TY_TIMESTAMP;
	char *unit = lower_unit(units);
	int val;
	int type = decode_part_unit(unit, &val);
	if (DT_NOT_FINITE(ts)) {
		part_val r = nonfinite_part(type, val, unit, ts == TY_TS_NOBEGIN, t, false);
		/* PostgreSQL returns NULL for cyclic fields of infinity, in both forms. */
		if (r.kind == PV_INT)
			r.kind = PV_NULL;
		return r;
	}
	if (type == DT_UNITS) {
		dt_tm tm;
		int32_t fsec;
		int tz = 0;
		if (dt_ts2tm(ts, with_tz ? &tz : NULL, &tm, &fsec, NULL, NULL) != 0)
			dt_err_ts_range();
		int64_t r;
		int64_t us = (int64_t)tm.sec * 1000000 + fsec;
		switch (val) {
		case DTK_MICROSEC:
			return pv_int(us);
		case DTK_MILLISEC:
			return pv_scaled(us, 3, tm.sec * 1000.0 + fsec / 1000.0);
		case DTK_SECOND:
			return pv_scaled(us, 6, tm.sec + fsec / 1000000.0);
		case DTK_MINUTE:
			return pv_int(tm.min);
		case DTK_HOUR:
			return pv_int(tm.hour);
		case DTK_JULIAN: {
			int64_t day_us = (((int64_t)tm.hour * 60 + tm.min) * 60 + tm.sec) * 1000000 + fsec;
			part_val v = {PV_NUMERIC, 0, 0, 0, {{0}, 0, false}};
			v.f = dt_date2j(tm.year, tm.mon, tm.mday) +
			      ((((tm.hour * 60) + tm.min) * 60) + tm.sec + (fsec / 1000000.0)) /
				  (double)DT_SECS_PER_DAY;
			if (numeric)
				v.n =
				    ty_numeric_add(ty_numeric_from_int64(dt_date2j(tm.year, tm.mon, tm.mday)),
						   ty_numeric_div(ty_numeric_from_int64(day_us),
								  ty_numeric_from_int64(DT_USECS_PER_DAY)));
			return v;
		}
		case DTK_TZ:
			if (!with_tz)
				not_supported(unit, t);
			return pv_int(-tz);
		case DTK_TZ_MINUTE:
			if (!with_tz)
				not_supported(unit, t);
			return pv_int((-tz / 60) % 60);
		case DTK_TZ_HOUR:
			if (!with_tz)
				not_supported(unit, t);
			return pv_int(-tz / 3600);
		default:
			if (date_unit(val, tm.year, tm.mon, tm.mday, &r))
				return pv_int(r);
			not_supported(unit, t);
		}
	}
	if (type == DT_RESERV) {
		if (val != DTK_EPOCH)
			not_supported(unit, t);
		int64_t epoch = -TY_UNIX_PG_EPOCH_DIFF_US;
		if (ts < INT64_MAX + epoch)
			return pv_scaled(ts - epoch, 6, (double)(ts - epoch) / 1000000.0);
		part_val v = {PV_NUMERIC, 0, 0, ((double)ts - (double)epoch) / 1000000.0, {{0}, 0, false}};
		if (numeric)
			v.n = ty_numeric_div(
			    ty_numeric_sub(ty_numeric_from_int64(ts), ty_numeric_from_int64(epoch)),
			    ty_numeric_from_int64(1000000));
		return v;
	}
	not_recognized(unit, t);
}

static part_val date_part_date(ty_datum units, int32_t date)
{
	char *unit = lower_unit(units);
	int val;
	int type = decode_part_unit(unit, &val);
	if (DT_DATE_NOT_FINITE(date) && (type == DT_UNITS || type == DT_RESERV)) {
		switch (val) {
		case DTK_DAY:
		case DTK_MONTH:
		case DTK_QUARTER:
		case DTK_WEEK:
		case DTK_DOW:
		case DTK_ISODOW:
		case DTK_DOY:
			return (part_val){PV_NULL, 0, 0, 0, {{0}, 0, false}};
		case DTK_YEAR:
		case DTK_DECADE:
		case DTK_CENTURY:
		case DTK_MILLENNIUM:
		case DTK_JULIAN:
		case DTK_ISOYEAR:
		case DTK_EPOCH:
			return (part_val){
			    PV_FLOAT, 0, 0, date == TY_DATE_NOBEGIN ? -INFINITY : INFINITY, {{0}, 0, false}};
		default:
			not_supported(unit, TY_DATE);
		}
	}
	if (type == DT_UNITS) {
		int y, m, d;
		int64_t r;
		dt_j2date(date + DT_POSTGRES_EPOCH_JDATE, &y, &m, &d);
		if (val == DTK_JULIAN)
			return pv_int((int64_t)date + DT_POSTGRES_EPOCH_JDATE);
		if (date_unit(val, y, m, d, &r))
			return pv_int(r);
		not_supported(unit, TY_DATE);
	}
	if (type == DT_RESERV) {
		if (val != DTK_EPOCH)
			not_supported(unit, TY_DATE);
		return pv_int(((int64_t)date + DT_POSTGRES_EPOCH_JDATE - DT_UNIX_EPOCH_JDATE) *
			      DT_SECS_PER_DAY);
	}
	not_recognized(unit, TY_DATE);
}

static part_val time_part(ty_datum units, int64_t time, bool with_tz, int32_t zone)
{
	ty_oid t = with_tz ? TY_TIMETZ : TY_TIME;
	char *unit = lower_unit(units);
	int val;
	int type = decode_part_unit(unit, &val);
	if (type == DT_UNITS) {
		dt_tm tm;
		int32_t fsec;
		dt_dt2time(time, &tm.hour, &tm.min, &tm.sec, &fsec);
		int64_t us = (int64_t)tm.sec * 1000000 + fsec;
		switch (val) {
		case DTK_MICROSEC:
			return pv_int(us);
		case DTK_MILLISEC:
			return pv_scaled(us, 3, tm.sec * 1000.0 + fsec / 1000.0);
		case DTK_SECOND:
			return pv_scaled(us, 6, tm.sec + fsec / 1000000.0);
		case DTK_MINUTE:
			return pv_int(tm.min);
		case DTK_HOUR:
			return pv_int(tm.hour);
		case DTK_TZ:
			if (with_tz)
				return pv_int(-zone);
			break;
		case DTK_TZ_MINUTE:
			if (with_tz)
				return pv_int((-zone / 60) % 60);
			break;
		case DTK_TZ_HOUR:
			if (with_tz)
				return pv_int(-zone / 3600);
			break;
		default:
			break;
		}
		not_supported(unit, t);
	}
	if (type == DT_RESERV && val == DTK_EPOCH) {
		if (with_tz)
			return pv_scaled(time + (int64_t)zone * 1000000, 6, time / 1000000.0 + zone);
		return pv_scaled(time, 6, time / 1000000.0);
	}
	not_recognized(unit, t);
}

static part_val interval_part(ty_datum units, const ty_interval *iv, bool numeric)
{
	char *unit = lower_unit(units);
	int val;
	int type = decode_part_unit(unit, &val);
	if (type == DT_UNITS) {
		dt_itm tm;
		dt_interval2itm(iv, &tm);
		int64_t us = (int64_t)tm.sec * 1000000 + tm.usec;
		switch (val) {
		case DTK_MICROSEC:
			return pv_int(us);
		case DTK_MILLISEC:
			return pv_scaled(us, 3, tm.sec * 1000.0 + tm.usec / 1000.0);
		case DTK_SECOND:
			return pv_scaled(us, 6, tm.sec + tm.usec / 1000000.0);
		case DTK_MINUTE:
			return pv_int(tm.min);
		case DTK_HOUR:
			return pv_int(tm.hour);
		case DTK_DAY:
			return pv_int(tm.mday);
		case DTK_MONTH:
			return pv_int(tm.mon);
		case DTK_QUARTER:
			return pv_int(tm.mon / 3 + 1);
		case DTK_YEAR:
			return pv_int(tm.year);
		case DTK_DECADE:
			return pv_int(tm.year / 10);
		case DTK_CENTURY:
			return pv_int(tm.year / 100);
		case DTK_MILLENNIUM:
			return pv_int(tm.year / 1000);
		default:
			not_supported(unit, TY_INTERVAL);
		}
	}
	if (type == DT_RESERV && val == DTK_EPOCH) {
		double f = iv->time / 1000000.0;
		f += ((double)DT_DAYS_PER_YEAR * DT_SECS_PER_DAY) * (iv->month / 12);
		f += ((double)DT_DAYS_PER_MONTH * DT_SECS_PER_DAY) * (iv->month % 12);
		f += ((double)DT_SECS_PER_DAY) * iv->day;
		/* Exact: four times the day/month seconds keep the quarter days of 365.25. */
		int64_t secs = ((int64_t)(4 * 365.25) * (iv->month / 12) +
				(int64_t)(4 * 30) * (iv->month % 12) + (int64_t)4 * iv->day) *
			       (DT_SECS_PER_DAY / 4);
		int64_t v;
		if (!dt_mul64(secs, 1000000, &v) && !dt_add64(v, iv->time, &v))
			return pv_scaled(v, 6, f);
		part_val r = {PV_NUMERIC, 0, 0, f, {{0}, 0, false}};
		if (numeric)
			r.n = ty_numeric_add(scaled_numeric(iv->time, 6), ty_numeric_from_int64(secs));
		return r;
	}
	not_recognized(unit, TY_INTERVAL);
}

static DT_FN(timestamp_part)
{
	return pv_result(timestamp_part(DT_A(0), DT_I(1), false, false), false);
}
static DT_FN(timestamptz_part)
{
	return pv_result(timestamp_part(DT_A(0), DT_I(1), true, false), false);
}
static DT_FN(extract_timestamp)
{
	return pv_result(timestamp_part(DT_A(0), DT_I(1), false, true), true);
}
static DT_FN(extract_timestamptz)
{
	return pv_result(timestamp_part(DT_A(0), DT_I(1), true, true), true);
}
static DT_FN(date_part_date)
{
	/* date_part(text, date) is date_part(text, date::timestamp). */
	return pv_result(timestamp_part(DT_A(0), dt_date2timestamp((int32_t)DT_I(1)), false, false), false);
}
static DT_FN(extract_date)
{
	return pv_result(date_part_date(DT_A(0), (int32_t)DT_I(1)), true);
}
static DT_FN(time_part)
{
	return pv_result(time_part(DT_A(0), DT_I(1), false, 0), false);
}
static DT_FN(extract_time)
{
	return pv_result(time_part(DT_A(0), DT_I(1), false, 0), true);
}
static DT_FN(timetz_part)
{
	ty_timetz t = dt_timetz_get(DT_A(1));
	return pv_result(time_part(DT_A(0), t.time, true, t.zone), false);
}
static DT_FN(extract_timetz)
{
	ty_timetz t = dt_timetz_get(DT_A(1));
	return pv_result(time_part(DT_A(0), t.time, true, t.zone), true);
}
static DT_FN(interval_part)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	return pv_result(interval_part(DT_A(0), &iv, false), false);
}
static DT_FN(extract_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	return pv_result(interval_part(DT_A(0), &iv, true), true);
}

/* ---------------------------------------------------------------- registration */

#define TX TY_TEXT
#define F8 TY_FLOAT8
#define NU TY_NUMERIC

static const ty_func field_funcs[] = {
    DTF("date_trunc", 2020, timestamp_trunc, 'i', TY_TIMESTAMP, 2, TX, TY_TIMESTAMP),
    DTF("date_trunc", 1217, timestamptz_trunc, 's', TY_TIMESTAMPTZ, 2, TX, TY_TIMESTAMPTZ),
    DTF("date_trunc", 1284, timestamptz_trunc_zone, 's', TY_TIMESTAMPTZ, 3, TX, TY_TIMESTAMPTZ, TX),
    DTF("date_trunc", 1218, interval_trunc, 'i', TY_INTERVAL, 2, TX, TY_INTERVAL),
    DTF("date_part", 2021, timestamp_part, 'i', F8, 2, TX, TY_TIMESTAMP),
    DTF("date_part", 1171, timestamptz_part, 's', F8, 2, TX, TY_TIMESTAMPTZ),
    DTF("date_part", 1384, date_part_date, 'i', F8, 2, TX, TY_DATE),
    DTF("date_part", 1385, time_part, 'i', F8, 2, TX, TY_TIME),
    DTF("date_part", 1273, timetz_part, 'i', F8, 2, TX, TY_TIMETZ),
    DTF("date_part", 1172, interval_part, 'i', F8, 2, TX, TY_INTERVAL),
    DTF("extract", 6202, extract_timestamp, 'i', NU, 2, TX, TY_TIMESTAMP),
    DTF("extract", 6203, extract_timestamptz, 's', NU, 2, TX, TY_TIMESTAMPTZ),
    DTF("extract", 6199, extract_date, 'i', NU, 2, TX, TY_DATE),
    DTF("extract", 6200, extract_time, 'i', NU, 2, TX, TY_TIME),
    DTF("extract", 6201, extract_timetz, 'i', NU, 2, TX, TY_TIMETZ),
    DTF("extract", 6204, extract_interval, 'i', NU, 2, TX, TY_INTERVAL),
};

void dt_register_fields(void)
{
	ty_func_register(field_funcs, (int)UTIL_ARRAY_LEN(field_funcs));
}
