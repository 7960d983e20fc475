/*
 * datetime.h — the date/time area's API for other modules: conversions
 * between Strata's timestamps (µs since 2000-01-01 00:00 UTC, as
 * PostgreSQL) and Unix time, time zone handling for SET TIME ZONE / SHOW,
 * the session's current-time helpers and date/time typmod input.
 *
 * The value representations themselves are in types.h (ty_datum, ty_interval,
 * ty_timetz). Everything here may throw (ty_error) unless it says otherwise.
 */
#ifndef STRATA_DATETIME_H
#define STRATA_DATETIME_H

#include "types.h"

/* ±infinity for timestamp/timestamptz and date (PostgreSQL's). */
#define TY_TS_NOBEGIN   INT64_MIN
#define TY_TS_NOEND     INT64_MAX
#define TY_DATE_NOBEGIN INT32_MIN
#define TY_DATE_NOEND   INT32_MAX

/* µs between the Unix epoch (1970-01-01) and the PostgreSQL epoch (2000-01-01). */
#define TY_UNIX_PG_EPOCH_DIFF_US INT64_C(946684800000000)

/* Unix µs <-> timestamp(tz) µs; infinities pass through unchanged. */
static inline int64_t ty_ts_from_unix_us(int64_t unix_us)
{
	return unix_us - TY_UNIX_PG_EPOCH_DIFF_US;
}
static inline int64_t ty_ts_to_unix_us(int64_t ts)
{
	return ts + TY_UNIX_PG_EPOCH_DIFF_US;
}

/* The current wall-clock time as a timestamptz (clock_timestamp()). */
int64_t ty_dt_clock_now(void);

/*
 * SET TIME ZONE value -> zone, with PostgreSQL's check_timezone rules: a
 * number is hours east of UTC in SQL sign convention ('-8' = UTC-8, shown as
 * "<-08>+08"); otherwise a tz database name (case-insensitive) or a POSIX TZ
 * spec. Returns NULL with err set (22023 invalid value for parameter
 * "TimeZone") when unknown, or for leap-second zones (right/...) as
 * PostgreSQL. Does not throw. Zones are cached forever: never freed.
 */
const ty_timezone *ty_dt_timezone_for_guc(const char *value, util_err *err);
/* A fixed-offset zone, gmtoff in seconds east of UTC (SET TIME ZONE
 * INTERVAL '+05:30' HOUR TO MINUTE; SHOW gives "<+05:30>-05:30"). NULL if
 * |gmtoff| is out of range. Does not throw. */
const ty_timezone *ty_dt_timezone_fixed(int32_t gmtoff);

/* The local offset (seconds east of UTC) of zone tz (NULL = UTC) at the
 * timestamptz t; *abbrev (may be NULL) receives the zone abbreviation,
 * valid forever. */
int32_t ty_dt_tz_offset_at(const ty_timezone *tz, int64_t t, const char **abbrev);

/*
 * Date/time typmod input (PostgreSQL's *typmodin): mods are the integer type
 * modifiers as the grammar produces them — time/timetz/timestamp/
 * timestamptz: [precision]; interval: [fields mask] or [fields mask,
 * precision] (fields = TY_INTERVAL_FULL_RANGE for plain interval(p)).
 * Throws 22023 on invalid modifiers. When PostgreSQL would raise a WARNING
 * (precision reduced to 6), the message is written to warning (size
 * UTIL_ERR_MSG_MAX) if not NULL, else dropped.
 */
int32_t ty_dt_typmodin(ty_oid type, const int32_t *mods, int n, char *warning);

/* Interval field masks as the grammar's INTERVAL_MASK(): combine with | for
 * YEAR TO MONTH etc.; the typmod is ((fields << 16) | precision). */
#define TY_INTERVAL_MONTH          (1 << 1)
#define TY_INTERVAL_YEAR           (1 << 2)
#define TY_INTERVAL_DAY            (1 << 3)
#define TY_INTERVAL_HOUR           (1 << 10)
#define TY_INTERVAL_MINUTE         (1 << 11)
#define TY_INTERVAL_SECOND         (1 << 12)
#define TY_INTERVAL_FULL_RANGE     0x7FFF
#define TY_INTERVAL_FULL_PRECISION 0xFFFF

/*
 * SET DateStyle: parses value as PostgreSQL's check_datestyle (keywords ISO,
 * SQL, Postgres, German, YMD, DMY/Euro*, MDY/US/NonEuro*, DEFAULT; a keyword
 * left out keeps the current setting, German implies DMY). *style and
 * *order are the current values on input, the new ones on success. Returns
 * 0, or -1 with err (22023 invalid value for parameter "DateStyle", with
 * PostgreSQL's DETAIL). Does not throw.
 */
int ty_dt_parse_datestyle(const char *value, ty_datestyle *style, ty_dateorder *order, util_err *err);
/* SHOW DateStyle: "ISO, MDY", "German, DMY", ... (static string). */
const char *ty_dt_datestyle_name(ty_datestyle style, ty_dateorder order);
/* SET/SHOW IntervalStyle (postgres, postgres_verbose, sql_standard, iso_8601). */
int ty_dt_parse_intervalstyle(const char *value, ty_intervalstyle *out, util_err *err);
const char *ty_dt_intervalstyle_name(ty_intervalstyle s);

/* Parses a timestamptz literal with the session settings (DateStyle,
 * TimeZone) — same as ty_input(TY_TIMESTAMPTZ, ...). */
int64_t ty_dt_parse_timestamptz(const char *s);

#endif /* STRATA_DATETIME_H */
