/*
 * dt_int.h — private to the date/time area (types/dt_*.c): calendar
 * constants and broken-down time, the datetime parser's token model, time
 * zone internals and helpers shared between the dt files. Mirrors the
 * structure of PostgreSQL's datetime.h/timestamp.h so behaviour can be
 * checked against it piece by piece.
 */
#ifndef STRATA_DT_INT_H
#define STRATA_DT_INT_H

#include "datetime.h"
#include "types_int.h"

#include <stdbool.h>
#include <stdint.h>

/* ---------------------------------------------------------------- constants */

#define DT_USECS_PER_DAY    INT64_C(86400000000)
#define DT_USECS_PER_HOUR   INT64_C(3600000000)
#define DT_USECS_PER_MINUTE INT64_C(60000000)
#define DT_USECS_PER_SEC    INT64_C(1000000)
#define DT_SECS_PER_DAY     86400
#define DT_SECS_PER_HOUR    3600
#define DT_SECS_PER_MINUTE  60
#define DT_MINS_PER_HOUR    60
#define DT_HOURS_PER_DAY    24
#define DT_MONTHS_PER_YEAR  12
#define DT_DAYS_PER_MONTH   30
#define DT_DAYS_PER_YEAR    365.25
#define DT_SECS_PER_YEAR    (36525 * 864) /* avoids floating point */

#define DT_POSTGRES_EPOCH_JDATE 2451545
#define DT_UNIX_EPOCH_JDATE     2440588

#define DT_JULIAN_MINYEAR       (-4713)
#define DT_JULIAN_MINMONTH      11
#define DT_JULIAN_MINDAY        24
#define DT_JULIAN_MAXYEAR       5874898
#define DT_JULIAN_MAXMONTH      6
#define DT_JULIAN_MAXDAY        3
#define DT_DATETIME_MIN_JULIAN  0
#define DT_DATE_END_JULIAN      2147483494
#define DT_TIMESTAMP_END_JULIAN 109203528
#define DT_MIN_TIMESTAMP        INT64_C(-211813488000000000)
#define DT_END_TIMESTAMP        INT64_C(9223371331200000000)

#define DT_MAX_TIMESTAMP_PRECISION 6
#define DT_MAX_INTERVAL_PRECISION  6
#define DT_MAX_TIME_PRECISION      6
#define DT_MAX_TZDISP_HOUR         15
#define DT_TZDISP_LIMIT            ((DT_MAX_TZDISP_HOUR * 60 + 59) * 60 + 60)
#define DT_MAXTZLEN                10

#define DT_NOT_FINITE(t)      ((t) == INT64_MIN || (t) == INT64_MAX)
#define DT_DATE_NOT_FINITE(d) ((d) == INT32_MIN || (d) == INT32_MAX)
#define DT_VALID_DATE(d)                                                                                     \
	((d) >= (DT_DATETIME_MIN_JULIAN - DT_POSTGRES_EPOCH_JDATE) &&                                        \
	 (d) < (DT_DATE_END_JULIAN - DT_POSTGRES_EPOCH_JDATE))
#define DT_VALID_TIMESTAMP(t) ((t) >= DT_MIN_TIMESTAMP && (t) < DT_END_TIMESTAMP)
#define DT_VALID_JULIAN(y, m, d)                                                                             \
	(((y) > DT_JULIAN_MINYEAR || ((y) == DT_JULIAN_MINYEAR && ((m) >= DT_JULIAN_MINMONTH))) &&           \
	 ((y) < DT_JULIAN_MAXYEAR || ((y) == DT_JULIAN_MAXYEAR && ((m) < DT_JULIAN_MAXMONTH))))

/* ---------------------------------------------------------------- broken-down time */

/* Broken-down local time, PostgreSQL's struct pg_tm: tm_year is the full
 * astronomical year (1 BC = 0), tm_mon 1..12. */
typedef struct dt_tm {
	int sec, min, hour, mday, mon, year, wday, yday, isdst;
	long gmtoff; /* seconds east of UTC */
	const char *zone;
} dt_tm;

/* Broken-down interval for output (pg_itm) and input (pg_itm_in). */
typedef struct dt_itm {
	int usec, sec, min;
	int64_t hour;
	int mday, mon, year;
} dt_itm;
typedef struct dt_itm_in {
	int64_t usec;
	int mday, mon, year;
} dt_itm_in;

/* ---------------------------------------------------------------- calendar (dt_cal.c) */

int dt_date2j(int y, int m, int d);
void dt_j2date(int jd, int *y, int *m, int *d);
int dt_j2day(int jd); /* 0 = Sunday */
bool dt_isleap(int y);
int dt_days_in_month(int y, int m);
void dt_dt2time(int64_t t, int *hour, int *min, int *sec, int32_t *fsec);
int64_t dt_time2t(int hour, int min, int sec, int32_t fsec);
bool dt_time_overflows(int hour, int min, int sec, int32_t fsec);

/* Timestamp <-> fields. tz: NULL for no conversion (timestamp), else the
 * zone to convert to; *tzp receives seconds WEST of UTC (PostgreSQL's sign).
 * Returns -1 when out of range. */
int dt_ts2tm(int64_t ts, int *tzp, dt_tm *tm, int32_t *fsec, const char **tzn, const ty_timezone *tz);
int dt_tm2ts(const dt_tm *tm, int32_t fsec, const int *tzp, int64_t *out);
void dt_interval2itm(const ty_interval *iv, dt_itm *itm);
int dt_itm2interval(const dt_itm *itm, ty_interval *iv);
int dt_itmin2interval(const dt_itm_in *itm, ty_interval *iv);
/* Week/ISO helpers (PostgreSQL's date2isoweek & friends). */
int dt_date2isoweek(int y, int m, int d);
int dt_date2isoyear(int y, int m, int d);
int dt_date2isoyearday(int y, int m, int d);
int dt_isoweek2j(int year, int week);
void dt_isoweek2date(int woy, int *year, int *mon, int *mday);
void dt_isoweekdate2date(int isoweek, int wday, int *year, int *mon, int *mday);

/* Precision typmod rounding (throw 22023 on a bad typmod). */
int64_t dt_adjust_timestamp(int64_t ts, int32_t typmod);
int64_t dt_adjust_time(int64_t t, int32_t typmod);
void dt_adjust_interval(ty_interval *iv, int32_t typmod);

/* The session's settings shortcut and the current time. */
const ty_timezone *dt_session_tz(void);
int64_t dt_txn_timestamp(void); /* now(); falls back to the clock when unset */
/* Current date/time fields in the session zone (PostgreSQL's GetCurrentDateTime). */
void dt_current_tm(dt_tm *tm, int32_t *fsec, int *tzp);

/* Throws 22008 "timestamp out of range" etc. */
UTIL_NORETURN void dt_err_ts_range(void);
UTIL_NORETURN void dt_err_date_range(void);
UTIL_NORETURN void dt_err_interval_range(void);

/* Wrapping int arithmetic: PostgreSQL is built with -fwrapv, so where it
 * does not check for overflow its results are these. */
static inline int dt_wmul(int a, int b)
{
	return (int)((unsigned)a * (unsigned)b);
}
static inline int dt_wadd(int a, int b)
{
	return (int)((unsigned)a + (unsigned)b);
}

/* Checked arithmetic helpers. */
static inline bool dt_add64(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}
static inline bool dt_sub64(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_sub_overflow(a, b, r);
}
static inline bool dt_mul64(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}
static inline bool dt_add32(int32_t a, int32_t b, int32_t *r)
{
	return __builtin_add_overflow(a, b, r);
}
static inline bool dt_mul32(int32_t a, int32_t b, int32_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* ---------------------------------------------------------------- time zones (dt_tz.c) */

typedef struct dt_ttinfo {
	int32_t utoff; /* seconds east of UTC */
	bool isdst;
	const char *abbr;
} dt_ttinfo;

/* The UTC zone (the default when ty_settings.timezone is NULL). */
const ty_timezone *dt_tz_utc(void);
/* PostgreSQL's pg_tzset: tz database name (case-insensitive) or POSIX spec. */
const ty_timezone *dt_tzset(const char *name);
/* Local time type in effect at Unix time t (seconds). */
void dt_tz_lookup(const ty_timezone *tz, int64_t t, dt_ttinfo *out);
/* PostgreSQL's pg_next_dst_boundary: 0 = no boundary after *t (before holds
 * the type in effect), 1 = boundary found. */
int dt_tz_next_boundary(const ty_timezone *tz, int64_t t, dt_ttinfo *before, int64_t *boundary,
			dt_ttinfo *after);
/* Fixed offset (seconds east) if the zone never changes, for timetz input. */
bool dt_tz_fixed_offset(const ty_timezone *tz, long *gmtoff);
/* Finds the UTC offset (east) this zone used with abbreviation abbr (upper
 * or lower case) around Unix time t. */
bool dt_tz_abbrev_offset(const ty_timezone *tz, int64_t t, const char *abbr, int32_t *gmtoff, bool *isdst);
/* Whether the zone data uses leap seconds (rejected for SET TIME ZONE). */
bool dt_tz_has_leapsecs(const ty_timezone *tz);

/* Local fields -> UTC with PostgreSQL's DST gap/overlap rules
 * (DetermineTimeZoneOffset): returns seconds WEST and sets tm->isdst. */
int dt_determine_tz_offset(dt_tm *tm, const ty_timezone *tz);
int dt_determine_abbrev_offset(dt_tm *tm, const char *abbr, const ty_timezone *tz);
int dt_determine_abbrev_offset_ts(int64_t ts, const char *abbr, const ty_timezone *tz, int *isdst);

/* ---------------------------------------------------------------- abbreviations (dt_tzabbrev.c) */

enum { DT_ABBR_TZ, DT_ABBR_DTZ, DT_ABBR_DYN };
typedef struct dt_abbrev {
	const char *name; /* lower case */
	int kind;
	int offset;       /* seconds east */
	const char *zone; /* DT_ABBR_DYN: zone name */
} dt_abbrev;
extern const dt_abbrev dt_abbrevs[];
extern const int dt_nabbrevs;

/* ---------------------------------------------------------------- parser (dt_parse.c) */

/* Field types (ftype[]) and token values, as PostgreSQL's datetime.h. */
enum {
	DTK_NUMBER = 0,
	DTK_STRING = 1,
	DTK_DATE = 2,
	DTK_TIME = 3,
	DTK_TZ = 4,
	DTK_AGO = 5,
	DTK_SPECIAL = 6,
	DTK_EARLY = 9,
	DTK_LATE = 10,
	DTK_EPOCH = 11,
	DTK_NOW = 12,
	DTK_YESTERDAY = 13,
	DTK_TODAY = 14,
	DTK_TOMORROW = 15,
	DTK_ZULU = 16,
	DTK_DELTA = 17,
	DTK_SECOND = 18,
	DTK_MINUTE = 19,
	DTK_HOUR = 20,
	DTK_DAY = 21,
	DTK_WEEK = 22,
	DTK_MONTH = 23,
	DTK_QUARTER = 24,
	DTK_YEAR = 25,
	DTK_DECADE = 26,
	DTK_CENTURY = 27,
	DTK_MILLENNIUM = 28,
	DTK_MILLISEC = 29,
	DTK_MICROSEC = 30,
	DTK_JULIAN = 31,
	DTK_DOW = 32,
	DTK_DOY = 33,
	DTK_TZ_HOUR = 34,
	DTK_TZ_MINUTE = 35,
	DTK_ISOYEAR = 36,
	DTK_ISODOW = 37,
};

/* Token classes (bit numbers of field masks). */
enum {
	DT_RESERV = 0,
	DT_MONTH = 1,
	DT_YEAR = 2,
	DT_DAY = 3,
	DT_JULIAN = 4,
	DT_TZ = 5,
	DT_DTZ = 6,
	DT_DYNTZ = 7,
	DT_IGNORE = 8,
	DT_AMPM = 9,
	DT_HOUR = 10,
	DT_MINUTE = 11,
	DT_SECOND = 12,
	DT_MILLISECOND = 13,
	DT_MICROSECOND = 14,
	DT_DOY = 15,
	DT_DOW = 16,
	DT_UNITS = 17,
	DT_ADBC = 18,
	DT_AGO = 19,
	DT_ABS_BEFORE = 20,
	DT_ABS_AFTER = 21,
	DT_ISODATE = 22,
	DT_ISOTIME = 23,
	DT_WEEK = 24,
	DT_DECADE = 25,
	DT_CENTURY = 26,
	DT_MILLENNIUM = 27,
	DT_DTZMOD = 28,
	DT_UNKNOWN_FIELD = 31,
};
#define DTK_M(t)            ((int)(0x01u << (t)))
#define DTK_ALL_SECS_M      (DTK_M(DT_SECOND) | DTK_M(DT_MILLISECOND) | DTK_M(DT_MICROSECOND))
#define DTK_DATE_M          (DTK_M(DT_YEAR) | DTK_M(DT_MONTH) | DTK_M(DT_DAY))
#define DTK_TIME_M          (DTK_M(DT_HOUR) | DTK_M(DT_MINUTE) | DTK_ALL_SECS_M)
#define DT_INTERVAL_MASK(b) (1 << (b))

/* Values of AMPM / ADBC tokens. */
enum { DT_AM = 0, DT_PM = 1, DT_HR24 = 2, DT_AD = 0, DT_BC = 1 };

/* Parse error codes (PostgreSQL's DTERR_*). */
#define DTERR_BAD_FORMAT        (-1)
#define DTERR_FIELD_OVERFLOW    (-2)
#define DTERR_MD_FIELD_OVERFLOW (-3)
#define DTERR_INTERVAL_OVERFLOW (-4)
#define DTERR_TZDISP_OVERFLOW   (-5)

#define DT_MAXDATELEN    128
#define DT_MAXDATEFIELDS 25
#define DT_TOKMAXLEN     10

int dt_parse_fields(const char *s, char *workbuf, size_t buflen, char **field, int *ftype, int maxfields,
		    int *nf);
int dt_decode_datetime(char **field, int *ftype, int nf, int *dtype, dt_tm *tm, int32_t *fsec, int *tzp);
int dt_decode_timeonly(char **field, int *ftype, int nf, int *dtype, dt_tm *tm, int32_t *fsec, int *tzp);
int dt_decode_interval(char **field, int *ftype, int nf, int range, int *dtype, dt_itm_in *itm);
int dt_decode_iso8601_interval(char *str, int *dtype, dt_itm_in *itm);
int dt_decode_timezone(const char *str, int *tzp);
/* Final Y/M/D checks and BC / 2-digit year adjustment (ValidateDate). */
int dt_validate_date(int fmask, bool isjulian, bool is2digits, bool bc, dt_tm *tm);
/* Raises the error for an interval time zone with months or days. */
UTIL_NORETURN void dt_err_interval_zone(const ty_interval *iv);
/* Zone lookup as AT TIME ZONE does: abbreviation, then zone name. Returns
 * DT_TZ/DT_DTZ (fixed *offset_east), DT_DYNTZ or DT_UNKNOWN_FIELD (zone set). */
int dt_lookup_zone_text(const char *name, int *offset_east, const ty_timezone **zone);
/* Token tables: returns the token class (DT_*) and *val, or DT_UNKNOWN_FIELD. */
int dt_decode_special(const char *lowtoken, int *val);
int dt_decode_units(const char *lowtoken, int *val);
/* Abbreviation lookup: DT_TZ / DT_DTZ / DT_DYNTZ or DT_UNKNOWN_FIELD; *val =
 * seconds east; *tz set for dynamic ones. */
int dt_decode_tzabbrev(const char *lowtoken, int *val, const ty_timezone **tz);
/* Fast path for YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][Z|+HH[:MM]|-HH[:MM]]:
 * fills the fields (tz = seconds west when *has_tz) and returns true, or
 * false when the general parser must decide (it gives the same result for
 * everything accepted here). */
bool dt_parse_iso_fast(const char *s, size_t len, dt_tm *tm, int32_t *fsec, bool *has_tz, int *tz);
/* timestamp(tz) input through the general parser only (tests compare it
 * with the fast path). */
int64_t dt_ts_parse_generic(const char *s, size_t len, bool with_tz, const char *tname);
/* Throws the PostgreSQL error for a parse failure (DateTimeParseError). */
UTIL_NORETURN void dt_parse_error(int dterr, const char *str, const char *datatype);
/* Copies [s, s+len) into a NUL-terminated arena string. */
char *dt_cstr(const char *s, size_t len);

/* ---------------------------------------------------------------- output (dt_encode.c) */

void dt_encode_date(const dt_tm *tm, int style, util_buf *out);
void dt_encode_time(const dt_tm *tm, int32_t fsec, bool print_tz, int tz, util_buf *out);
void dt_encode_datetime(dt_tm *tm, int32_t fsec, bool print_tz, int tz, const char *tzn, int style,
			util_buf *out);
void dt_encode_interval(const dt_itm *itm, int style, util_buf *out);
void dt_encode_timezone(int tz, bool xsd, util_buf *out);
/* A finite timestamp (no zone) in ISO DateStyle when its year is 1..9999;
 * false (nothing appended) otherwise. */
bool dt_encode_timestamp_iso(int64_t ts, util_buf *out);
/* Appends seconds with up to precision fraction digits, trailing zeros trimmed. */
void dt_append_seconds(util_buf *out, int sec, int32_t fsec, int precision, bool fillzeros);
extern const char *const dt_months[]; /* "Jan" ... */
extern const char *const dt_days[];   /* "Sun" ... */
extern const char *const dt_months_full[];
extern const char *const dt_days_full[];

/* ---------------------------------------------------------------- shared value helpers */

static inline ty_interval dt_interval_get(ty_datum d)
{
	ty_interval iv;
	__builtin_memcpy(&iv, d.p, sizeof iv);
	return iv;
}
ty_datum dt_interval_datum(const ty_interval *iv); /* copies into the arena */
static inline ty_timetz dt_timetz_get(ty_datum d)
{
	ty_timetz t;
	__builtin_memcpy(&t, d.p, sizeof t);
	return t;
}
ty_datum dt_timetz_datum(int64_t time, int32_t zone);

/* Type-level functions used across files. */
int64_t dt_date2timestamp(int32_t d); /* throws on overflow */
int64_t dt_date2timestamptz(int32_t d);
int64_t dt_timestamp2timestamptz(int64_t ts);
int64_t dt_timestamptz2timestamp(int64_t ts);
int32_t dt_timestamp2date(int64_t ts);
int32_t dt_timestamptz2date(int64_t ts);
int64_t dt_timestamp_pl_interval(int64_t ts, const ty_interval *iv);
int64_t dt_timestamptz_pl_interval(int64_t ts, const ty_interval *iv, const ty_timezone *tz);
ty_interval dt_timestamp_mi(int64_t a, int64_t b);
int dt_interval_cmp(const ty_interval *a, const ty_interval *b);
ty_interval dt_interval_pl(const ty_interval *a, const ty_interval *b);
ty_interval dt_interval_um(const ty_interval *a);
ty_interval dt_interval_mul(const ty_interval *a, double f);
ty_interval dt_interval_justify_hours(const ty_interval *a);
/* Cross-type comparisons: date vs timestamp(tz), timestamp vs timestamptz. */
int dt_cmp_date_ts(int32_t d, int64_t ts);
int dt_cmp_date_tstz(int32_t d, int64_t tstz);
int dt_cmp_ts_tstz(int64_t ts, int64_t tstz);
/* Parsing helpers used by functions (make_timestamptz, AT TIME ZONE). */
int dt_parse_sane_timezone(dt_tm *tm, const char *zone);
/* Text argument as a C string in the arena. */
static inline char *dt_arg_cstr(ty_datum d)
{
	return ty_cstring(d);
}

/* Registration tables of each dt file (dt_register.c collects them). */
typedef struct dt_table {
	const ty_func *funcs;
	int nfuncs;
	const ty_operator *ops;
	int nops;
	const ty_cast *casts;
	int ncasts;
	const ty_agg *aggs;
	int naggs;
} dt_table;

/* Function-table helpers: C functions are named dtf_<pg prosrc>. */
#define DT_FN(src) ty_datum dtf_##src(ty_fcinfo *fc)
#define DT_I(n)    (fc->args[n].i)
#define DT_F(n)    (fc->args[n].f)
#define DT_A(n)    (fc->args[n])
#define DTF(nm, oid_, src, vol, ret_, n, ...)                                                                \
	{                                                                                                    \
		.name = nm, .nargs = n, .args = {__VA_ARGS__}, .ret = ret_, .fn = dtf_##src,                 \
		.volatility = vol, .strict = true, .kind = 'f', .prosrc = #src, .oid = oid_                  \
	}
#define DTOP(nm, l, r, res, fn, com, neg)                                                                    \
	{                                                                                                    \
		.name = nm, .left = l, .right = r, .result = res, .func = fn, .commutator = com,             \
		.negator = neg                                                                               \
	}

/* The seven comparison functions dtf_<name>_{eq,ne,lt,le,gt,ge,cmp} of one
 * type pair, from one three-way comparison expression over the arguments. */
#define DT_CMPFNS(name, expr)                                                                                \
	static DT_FN(name##_eq)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) == 0);                                                                 \
	}                                                                                                    \
	static DT_FN(name##_ne)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) != 0);                                                                 \
	}                                                                                                    \
	static DT_FN(name##_lt)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) < 0);                                                                  \
	}                                                                                                    \
	static DT_FN(name##_le)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) <= 0);                                                                 \
	}                                                                                                    \
	static DT_FN(name##_gt)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) > 0);                                                                  \
	}                                                                                                    \
	static DT_FN(name##_ge)                                                                              \
	{                                                                                                    \
		return ty_bool((expr) >= 0);                                                                 \
	}                                                                                                    \
	static DT_FN(name##_cmp)                                                                             \
	{                                                                                                    \
		return ty_int(expr);                                                                         \
	}

/* A text datum from one of the *_out printers, copied into the current arena. */
static inline ty_datum dt_out_text(void (*fn)(ty_datum, util_buf *), ty_datum v)
{
	util_buf b = UTIL_BUF_INIT;
	fn(v, &b);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

/* Key encoding helpers: fixed-width big-endian with the sign bit flipped. */
void dt_key_put64(util_buf *out, int64_t v);
void dt_key_put32(util_buf *out, int32_t v);
int64_t dt_key_get64(const uint8_t *p);
int32_t dt_key_get32(const uint8_t *p);

/* Registration of each dt file (dt_register.c calls them in order). */
void dt_register_date(void);
void dt_register_timestamp(void);
void dt_register_interval(void);
void dt_register_time(void);
void dt_register_funcs(void);
void dt_register_fields(void);
void dt_register_format(void);
void dt_register_numfmt(void);
void dt_register_tznames(void);
void dt_register_sends(void);

#endif /* STRATA_DT_INT_H */
