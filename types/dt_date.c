/*
 * dt_date.c — the date type (days since 2000-01-01, ±infinity): text and
 * binary I/O, comparison with date/timestamp/timestamptz, date ± integer,
 * date - date, date ± interval, date + time, casts to and from the
 * timestamp types, and key encoding.
 */
#include "dt_int.h"

#include <string.h>

/* ---------------------------------------------------------------- I/O */

static ty_datum date_in(const char *s, size_t len, int32_t typmod)
{
	(void)typmod;
	dt_tm ftm;
	int32_t ffsec;
	bool fhas_tz;
	int ftz;
	if (len == 10 && dt_parse_iso_fast(s, len, &ftm, &ffsec, &fhas_tz, &ftz))
		return ty_int(dt_date2j(ftm.year, ftm.mon, ftm.mday) - DT_POSTGRES_EPOCH_JDATE);
	char *str = dt_cstr(s, len);
	char workbuf[DT_MAXDATELEN + 1];
	char *field[DT_MAXDATEFIELDS];
	int ftype[DT_MAXDATEFIELDS];
	int nf, dtype, tzp;
	dt_tm tm;
	int32_t fsec;
	int r = dt_parse_fields(str, workbuf, sizeof workbuf, field, ftype, DT_MAXDATEFIELDS, &nf);
	if (r == 0)
		r = dt_decode_datetime(field, ftype, nf, &dtype, &tm, &fsec, &tzp);
	if (r != 0)
		dt_parse_error(r, str, "date");
	switch (dtype) {
	case DTK_DATE:
		break;
	case DTK_EPOCH:
		tm.year = 1970, tm.mon = 1, tm.mday = 1;
		break;
	case DTK_LATE:
		return ty_int(TY_DATE_NOEND);
	case DTK_EARLY:
		return ty_int(TY_DATE_NOBEGIN);
	default:
		dt_parse_error(DTERR_BAD_FORMAT, str, "date");
	}
	if (!DT_VALID_JULIAN(tm.year, tm.mon, tm.mday))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: \"%s\"", str);
	int64_t d = (int64_t)dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
	if (!DT_VALID_DATE(d))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range: \"%s\"", str);
	return ty_int(d);
}

static void date_out(ty_datum v, util_buf *out)
{
	int32_t d = (int32_t)v.i;
	if (d == TY_DATE_NOBEGIN) {
		util_buf_puts(out, "-infinity");
		return;
	}
	if (d == TY_DATE_NOEND) {
		util_buf_puts(out, "infinity");
		return;
	}
	dt_tm tm = {0};
	dt_j2date(d + DT_POSTGRES_EPOCH_JDATE, &tm.year, &tm.mon, &tm.mday);
	dt_encode_date(&tm, (int)ty_get_settings()->datestyle, out);
}

static ty_datum date_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	(void)typmod;
	if (len != 4)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	int32_t d = (int32_t)util_get_be32(p);
	if (!DT_DATE_NOT_FINITE(d) && !DT_VALID_DATE(d))
		dt_err_date_range();
	return ty_int(d);
}

static void date_send(ty_datum v, util_buf *out)
{
	util_buf_put_be32(out, (uint32_t)(int32_t)v.i);
}

static int date_cmp(ty_datum a, ty_datum b)
{
	return a.i < b.i ? -1 : a.i > b.i;
}
static uint64_t date_hash(ty_datum a)
{
	return util_hash_mix((uint64_t)a.i);
}

void dt_key_put32(util_buf *out, int32_t v)
{
	util_buf_put_be32(out, (uint32_t)v ^ 0x80000000u);
}
void dt_key_put64(util_buf *out, int64_t v)
{
	util_buf_put_be64(out, (uint64_t)v ^ (UINT64_C(1) << 63));
}
int32_t dt_key_get32(const uint8_t *p)
{
	return (int32_t)(util_get_be32(p) ^ 0x80000000u);
}
int64_t dt_key_get64(const uint8_t *p)
{
	return (int64_t)(util_get_be64(p) ^ (UINT64_C(1) << 63));
}

static void date_keyenc(ty_datum v, util_buf *out)
{
	dt_key_put32(out, (int32_t)v.i);
}
static size_t date_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 4)
		return 0;
	int32_t d = dt_key_get32(p);
	if (!DT_DATE_NOT_FINITE(d) && !DT_VALID_DATE(d))
		return 0; /* no valid date encodes to this: malformed */
	*out = ty_int(d);
	return 4;
}

/* ---------------------------------------------------------------- conversions */

/* date -> timestamp; overflow is +1 when past the timestamp range. */
static int64_t date2ts_opt(int32_t d, int *overflow)
{
	*overflow = 0;
	if (d == TY_DATE_NOBEGIN)
		return TY_TS_NOBEGIN;
	if (d == TY_DATE_NOEND)
		return TY_TS_NOEND;
	if (d >= DT_TIMESTAMP_END_JULIAN - DT_POSTGRES_EPOCH_JDATE) {
		*overflow = 1;
		return TY_TS_NOEND;
	}
	return (int64_t)d * DT_USECS_PER_DAY;
}

int64_t dt_date2timestamp(int32_t d)
{
	int ovf;
	int64_t r = date2ts_opt(d, &ovf);
	if (ovf)
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
	return r;
}

static int64_t date2tstz_opt(int32_t d, int *overflow)
{
	*overflow = 0;
	if (d == TY_DATE_NOBEGIN)
		return TY_TS_NOBEGIN;
	if (d == TY_DATE_NOEND)
		return TY_TS_NOEND;
	if (d >= DT_TIMESTAMP_END_JULIAN - DT_POSTGRES_EPOCH_JDATE) {
		*overflow = 1;
		return TY_TS_NOEND;
	}
	dt_tm tm = {0};
	dt_j2date(d + DT_POSTGRES_EPOCH_JDATE, &tm.year, &tm.mon, &tm.mday);
	int tz = dt_determine_tz_offset(&tm, dt_session_tz());
	int64_t r = (int64_t)d * DT_USECS_PER_DAY + (int64_t)tz * DT_USECS_PER_SEC;
	if (r < DT_MIN_TIMESTAMP) {
		*overflow = -1;
		return TY_TS_NOBEGIN;
	}
	if (r >= DT_END_TIMESTAMP) {
		*overflow = 1;
		return TY_TS_NOEND;
	}
	return r;
}

int64_t dt_date2timestamptz(int32_t d)
{
	int ovf;
	int64_t r = date2tstz_opt(d, &ovf);
	if (ovf)
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "date out of range for timestamp");
	return r;
}

int32_t dt_timestamp2date(int64_t ts)
{
	if (ts == TY_TS_NOBEGIN)
		return TY_DATE_NOBEGIN;
	if (ts == TY_TS_NOEND)
		return TY_DATE_NOEND;
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	return dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
}

int32_t dt_timestamptz2date(int64_t ts)
{
	if (ts == TY_TS_NOBEGIN)
		return TY_DATE_NOBEGIN;
	if (ts == TY_TS_NOEND)
		return TY_DATE_NOEND;
	dt_tm tm;
	int32_t fsec;
	int tz;
	if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	return dt_date2j(tm.year, tm.mon, tm.mday) - DT_POSTGRES_EPOCH_JDATE;
}

static int cmp64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

int dt_cmp_date_ts(int32_t d, int64_t ts)
{
	int ovf;
	int64_t t = date2ts_opt(d, &ovf);
	if (ovf > 0)
		return ts == TY_TS_NOEND ? -1 : 1;
	return cmp64(t, ts);
}

int dt_cmp_date_tstz(int32_t d, int64_t tstz)
{
	int ovf;
	int64_t t = date2tstz_opt(d, &ovf);
	if (ovf > 0)
		return tstz == TY_TS_NOEND ? -1 : 1;
	if (ovf < 0)
		return tstz == TY_TS_NOBEGIN ? 1 : -1;
	return cmp64(t, tstz);
}

/* ---------------------------------------------------------------- functions */

DT_CMPFNS(date, cmp64(DT_I(0), DT_I(1)))
DT_CMPFNS(date_timestamp, dt_cmp_date_ts((int32_t)DT_I(0), DT_I(1)))
DT_CMPFNS(date_timestamptz, dt_cmp_date_tstz((int32_t)DT_I(0), DT_I(1)))
DT_CMPFNS(timestamp_date, -dt_cmp_date_ts((int32_t)DT_I(1), DT_I(0)))
DT_CMPFNS(timestamptz_date, -dt_cmp_date_tstz((int32_t)DT_I(1), DT_I(0)))

static DT_FN(date_in)
{
	return date_in(DT_A(0).p, DT_A(0).len, -1);
}
static DT_FN(date_out)
{
	util_buf b = UTIL_BUF_INIT;
	date_out(DT_A(0), &b);
	ty_datum r = ty_textn(b.data, b.len);
	util_buf_free(&b);
	return r;
}
static DT_FN(date_larger)
{
	return ty_int(DT_I(0) > DT_I(1) ? DT_I(0) : DT_I(1));
}
static DT_FN(date_smaller)
{
	return ty_int(DT_I(0) < DT_I(1) ? DT_I(0) : DT_I(1));
}

static DT_FN(date_mi)
{
	if (DT_DATE_NOT_FINITE((int32_t)DT_I(0)) || DT_DATE_NOT_FINITE((int32_t)DT_I(1)))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "cannot subtract infinite dates");
	return ty_int((int32_t)(DT_I(0) - DT_I(1)));
}

static ty_datum date_plus_days(int32_t d, int32_t days)
{
	if (DT_DATE_NOT_FINITE(d))
		return ty_int(d);
	int64_t r = (int64_t)d + days;
	if (r != (int32_t)r || !DT_VALID_DATE(r))
		dt_err_date_range();
	return ty_int(r);
}

static DT_FN(date_pli)
{
	return date_plus_days((int32_t)DT_I(0), (int32_t)DT_I(1));
}
static DT_FN(integer_pl_date)
{
	return date_plus_days((int32_t)DT_I(1), (int32_t)DT_I(0));
}
static DT_FN(date_mii)
{
	if ((int32_t)DT_I(1) == INT32_MIN)
		dt_err_date_range();
	return date_plus_days((int32_t)DT_I(0), -(int32_t)DT_I(1));
}

static DT_FN(date_pl_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	return ty_int(dt_timestamp_pl_interval(dt_date2timestamp((int32_t)DT_I(0)), &iv));
}
static DT_FN(interval_pl_date)
{
	ty_interval iv = dt_interval_get(DT_A(0));
	return ty_int(dt_timestamp_pl_interval(dt_date2timestamp((int32_t)DT_I(1)), &iv));
}
static DT_FN(date_mi_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	iv = dt_interval_um(&iv);
	return ty_int(dt_timestamp_pl_interval(dt_date2timestamp((int32_t)DT_I(0)), &iv));
}

static DT_FN(date_timestamp)
{
	return ty_int(dt_date2timestamp((int32_t)DT_I(0)));
}
static DT_FN(date_timestamptz)
{
	return ty_int(dt_date2timestamptz((int32_t)DT_I(0)));
}
static DT_FN(timestamp_date)
{
	return ty_int(dt_timestamp2date(DT_I(0)));
}
static DT_FN(timestamptz_date)
{
	return ty_int(dt_timestamptz2date(DT_I(0)));
}
static DT_FN(date_finite)
{
	return ty_bool(!DT_DATE_NOT_FINITE((int32_t)DT_I(0)));
}

/* date + time -> timestamp */
static int64_t date_time_ts(int32_t d, int64_t t)
{
	int64_t r = dt_date2timestamp(d);
	if (!DT_NOT_FINITE(r)) {
		r += t;
		if (!DT_VALID_TIMESTAMP(r))
			dt_err_ts_range();
	}
	return r;
}
static DT_FN(datetime_timestamp)
{
	return ty_int(date_time_ts((int32_t)DT_I(0), DT_I(1)));
}
static DT_FN(timedate_pl)
{
	return ty_int(date_time_ts((int32_t)DT_I(1), DT_I(0)));
}

/* date + timetz -> timestamptz */
static int64_t date_timetz_tstz(int32_t d, ty_timetz t)
{
	if (d == TY_DATE_NOBEGIN)
		return TY_TS_NOBEGIN;
	if (d == TY_DATE_NOEND)
		return TY_TS_NOEND;
	if (d >= DT_TIMESTAMP_END_JULIAN - DT_POSTGRES_EPOCH_JDATE)
		dt_err_ts_range();
	int64_t r = (int64_t)d * DT_USECS_PER_DAY + t.time + (int64_t)t.zone * DT_USECS_PER_SEC;
	if (!DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return r;
}
static DT_FN(datetimetz_timestamptz)
{
	return ty_int(date_timetz_tstz((int32_t)DT_I(0), dt_timetz_get(DT_A(1))));
}
static DT_FN(timetzdate_pl)
{
	return ty_int(date_timetz_tstz((int32_t)DT_I(1), dt_timetz_get(DT_A(0))));
}
/* timestamptz(date, time): the local date+time in the session zone */
static DT_FN(date_time_timestamptz)
{
	return ty_int(dt_timestamp2timestamptz(date_time_ts((int32_t)DT_I(0), DT_I(1))));
}

/* ---------------------------------------------------------------- registration */

static const ty_type date_type = {.oid = TY_DATE,
				  .name = "date",
				  .len = 4,
				  .byval = true,
				  .category = 'D',
				  .typtype = 'b',
				  .align = 'i',
				  .array = TY_DATE_ARRAY,
				  .in = date_in,
				  .out = date_out,
				  .recv = date_recv,
				  .send = date_send,
				  .cmp = date_cmp,
				  .hash = date_hash,
				  .keyenc = date_keyenc,
				  .keydec = date_keydec,
				  .input_name = "date_in",
				  .output_name = "date_out"};

#define D  TY_DATE
#define TS TY_TIMESTAMP
#define TZ TY_TIMESTAMPTZ
#define B  TY_BOOL
#define I4 TY_INT4
#define IV TY_INTERVAL

static const ty_func date_funcs[] = {
    DTF("date_in", 1084, date_in, 's', D, 1, TY_CSTRING),
    DTF("date_out", 1085, date_out, 's', TY_CSTRING, 1, D),
    DTF("date_eq", 1086, date_eq, 'i', B, 2, D, D),
    DTF("date_ne", 1091, date_ne, 'i', B, 2, D, D),
    DTF("date_lt", 1087, date_lt, 'i', B, 2, D, D),
    DTF("date_le", 1088, date_le, 'i', B, 2, D, D),
    DTF("date_gt", 1089, date_gt, 'i', B, 2, D, D),
    DTF("date_ge", 1090, date_ge, 'i', B, 2, D, D),
    DTF("date_cmp", 1092, date_cmp, 'i', I4, 2, D, D),
    DTF("date_larger", 1138, date_larger, 'i', D, 2, D, D),
    DTF("date_smaller", 1139, date_smaller, 'i', D, 2, D, D),
    DTF("date_mi", 1140, date_mi, 'i', I4, 2, D, D),
    DTF("date_pli", 1141, date_pli, 'i', D, 2, D, I4),
    DTF("date_mii", 1142, date_mii, 'i', D, 2, D, I4),
    DTF("integer_pl_date", 2550, integer_pl_date, 'i', D, 2, I4, D),
    DTF("date_pl_interval", 2071, date_pl_interval, 'i', TS, 2, D, IV),
    DTF("date_mi_interval", 2072, date_mi_interval, 'i', TS, 2, D, IV),
    DTF("interval_pl_date", 2546, interval_pl_date, 'i', TS, 2, IV, D),
    DTF("date_eq_timestamp", 2340, date_timestamp_eq, 'i', B, 2, D, TS),
    DTF("date_ne_timestamp", 2343, date_timestamp_ne, 'i', B, 2, D, TS),
    DTF("date_lt_timestamp", 2338, date_timestamp_lt, 'i', B, 2, D, TS),
    DTF("date_le_timestamp", 2339, date_timestamp_le, 'i', B, 2, D, TS),
    DTF("date_gt_timestamp", 2341, date_timestamp_gt, 'i', B, 2, D, TS),
    DTF("date_ge_timestamp", 2342, date_timestamp_ge, 'i', B, 2, D, TS),
    DTF("date_cmp_timestamp", 2344, date_timestamp_cmp, 'i', I4, 2, D, TS),
    DTF("date_eq_timestamptz", 2353, date_timestamptz_eq, 's', B, 2, D, TZ),
    DTF("date_ne_timestamptz", 2356, date_timestamptz_ne, 's', B, 2, D, TZ),
    DTF("date_lt_timestamptz", 2351, date_timestamptz_lt, 's', B, 2, D, TZ),
    DTF("date_le_timestamptz", 2352, date_timestamptz_le, 's', B, 2, D, TZ),
    DTF("date_gt_timestamptz", 2354, date_timestamptz_gt, 's', B, 2, D, TZ),
    DTF("date_ge_timestamptz", 2355, date_timestamptz_ge, 's', B, 2, D, TZ),
    DTF("date_cmp_timestamptz", 2357, date_timestamptz_cmp, 's', I4, 2, D, TZ),
    DTF("timestamp_eq_date", 2366, timestamp_date_eq, 'i', B, 2, TS, D),
    DTF("timestamp_ne_date", 2369, timestamp_date_ne, 'i', B, 2, TS, D),
    DTF("timestamp_lt_date", 2364, timestamp_date_lt, 'i', B, 2, TS, D),
    DTF("timestamp_le_date", 2365, timestamp_date_le, 'i', B, 2, TS, D),
    DTF("timestamp_gt_date", 2367, timestamp_date_gt, 'i', B, 2, TS, D),
    DTF("timestamp_ge_date", 2368, timestamp_date_ge, 'i', B, 2, TS, D),
    DTF("timestamp_cmp_date", 2370, timestamp_date_cmp, 'i', I4, 2, TS, D),
    DTF("timestamptz_eq_date", 2379, timestamptz_date_eq, 's', B, 2, TZ, D),
    DTF("timestamptz_ne_date", 2382, timestamptz_date_ne, 's', B, 2, TZ, D),
    DTF("timestamptz_lt_date", 2377, timestamptz_date_lt, 's', B, 2, TZ, D),
    DTF("timestamptz_le_date", 2378, timestamptz_date_le, 's', B, 2, TZ, D),
    DTF("timestamptz_gt_date", 2380, timestamptz_date_gt, 's', B, 2, TZ, D),
    DTF("timestamptz_ge_date", 2381, timestamptz_date_ge, 's', B, 2, TZ, D),
    DTF("timestamptz_cmp_date", 2383, timestamptz_date_cmp, 's', I4, 2, TZ, D),
    DTF("timestamp", 2024, date_timestamp, 'i', TS, 1, D),
    DTF("timestamptz", 1174, date_timestamptz, 's', TZ, 1, D),
    DTF("date", 2029, timestamp_date, 'i', D, 1, TS),
    DTF("date", 1178, timestamptz_date, 's', D, 1, TZ),
    DTF("isfinite", 1373, date_finite, 'i', B, 1, D),
    DTF("timestamp", 2025, datetime_timestamp, 'i', TS, 2, D, TY_TIME),
    DTF("datetime_pl", 1272, datetime_timestamp, 'i', TS, 2, D, TY_TIME),
    DTF("timedate_pl", 1296, timedate_pl, 'i', TS, 2, TY_TIME, D),
    DTF("datetimetz_pl", 1297, datetimetz_timestamptz, 'i', TZ, 2, D, TY_TIMETZ),
    DTF("timestamptz", 1359, datetimetz_timestamptz, 'i', TZ, 2, D, TY_TIMETZ),
    DTF("timetzdate_pl", 1298, timetzdate_pl, 'i', TZ, 2, TY_TIMETZ, D),
    DTF("timestamptz", 1176, date_time_timestamptz, 's', TZ, 2, D, TY_TIME),
};

static const ty_operator date_ops[] = {
    DTOP("=", D, D, B, "date_eq", "=", "<>"),
    DTOP("<>", D, D, B, "date_ne", "<>", "="),
    DTOP("<", D, D, B, "date_lt", ">", ">="),
    DTOP("<=", D, D, B, "date_le", ">=", ">"),
    DTOP(">", D, D, B, "date_gt", "<", "<="),
    DTOP(">=", D, D, B, "date_ge", "<=", "<"),
    DTOP("-", D, D, I4, "date_mi", NULL, NULL),
    DTOP("+", D, I4, D, "date_pli", "+", NULL),
    DTOP("+", I4, D, D, "integer_pl_date", "+", NULL),
    DTOP("-", D, I4, D, "date_mii", NULL, NULL),
    DTOP("+", D, IV, TS, "date_pl_interval", "+", NULL),
    DTOP("+", IV, D, TS, "interval_pl_date", "+", NULL),
    DTOP("-", D, IV, TS, "date_mi_interval", NULL, NULL),
    DTOP("=", D, TS, B, "date_eq_timestamp", "=", "<>"),
    DTOP("<>", D, TS, B, "date_ne_timestamp", "<>", "="),
    DTOP("<", D, TS, B, "date_lt_timestamp", ">", ">="),
    DTOP("<=", D, TS, B, "date_le_timestamp", ">=", ">"),
    DTOP(">", D, TS, B, "date_gt_timestamp", "<", "<="),
    DTOP(">=", D, TS, B, "date_ge_timestamp", "<=", "<"),
    DTOP("=", D, TZ, B, "date_eq_timestamptz", "=", "<>"),
    DTOP("<>", D, TZ, B, "date_ne_timestamptz", "<>", "="),
    DTOP("<", D, TZ, B, "date_lt_timestamptz", ">", ">="),
    DTOP("<=", D, TZ, B, "date_le_timestamptz", ">=", ">"),
    DTOP(">", D, TZ, B, "date_gt_timestamptz", "<", "<="),
    DTOP(">=", D, TZ, B, "date_ge_timestamptz", "<=", "<"),
    DTOP("=", TS, D, B, "timestamp_eq_date", "=", "<>"),
    DTOP("<>", TS, D, B, "timestamp_ne_date", "<>", "="),
    DTOP("<", TS, D, B, "timestamp_lt_date", ">", ">="),
    DTOP("<=", TS, D, B, "timestamp_le_date", ">=", ">"),
    DTOP(">", TS, D, B, "timestamp_gt_date", "<", "<="),
    DTOP(">=", TS, D, B, "timestamp_ge_date", "<=", "<"),
    DTOP("=", TZ, D, B, "timestamptz_eq_date", "=", "<>"),
    DTOP("<>", TZ, D, B, "timestamptz_ne_date", "<>", "="),
    DTOP("<", TZ, D, B, "timestamptz_lt_date", ">", ">="),
    DTOP("<=", TZ, D, B, "timestamptz_le_date", ">=", ">"),
    DTOP(">", TZ, D, B, "timestamptz_gt_date", "<", "<="),
    DTOP(">=", TZ, D, B, "timestamptz_ge_date", "<=", "<"),
    DTOP("+", D, TY_TIME, TS, "datetime_pl", "+", NULL),
    DTOP("+", TY_TIME, D, TS, "timedate_pl", "+", NULL),
    DTOP("+", D, TY_TIMETZ, TZ, "datetimetz_pl", "+", NULL),
    DTOP("+", TY_TIMETZ, D, TZ, "timetzdate_pl", "+", NULL),
};

static const ty_cast date_casts[] = {
    {TY_DATE, TY_TIMESTAMP, "timestamp", 'i', 'f'},
    {TY_DATE, TY_TIMESTAMPTZ, "timestamptz", 'i', 'f'},
    {TY_TIMESTAMP, TY_DATE, "date", 'a', 'f'},
    {TY_TIMESTAMPTZ, TY_DATE, "date", 'a', 'f'},
};

void dt_register_date(void)
{
	ty_type_register(&date_type);
	ty_func_register(date_funcs, (int)UTIL_ARRAY_LEN(date_funcs));
	ty_operator_register(date_ops, (int)UTIL_ARRAY_LEN(date_ops));
	ty_cast_register(date_casts, (int)UTIL_ARRAY_LEN(date_casts));
}
