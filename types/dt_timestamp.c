/*
 * dt_timestamp.c — timestamp and timestamptz (µs since 2000-01-01, the
 * latter UTC and shown in the session TimeZone): text and binary I/O,
 * precision typmods, comparisons (also across the two types), ± interval,
 * subtraction, the casts between them, and key encoding.
 */
#include "dt_int.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- I/O */

static int64_t ts_parse(const char *s, size_t len, bool with_tz, const char *tname);

static int64_t ts_parse(const char *s, size_t len, bool with_tz, const char *tname)
{
	dt_tm ftm;
	int32_t ffsec;
	bool fhas_tz;
	int ftz;
	int64_t fres;
	if (dt_parse_iso_fast(s, len, &ftm, &ffsec, &fhas_tz, &ftz)) {
		if (with_tz && !fhas_tz)
			ftz = dt_determine_tz_offset(&ftm, dt_session_tz());
		if (dt_tm2ts(&ftm, ffsec, with_tz ? &ftz : NULL, &fres) == 0)
			return fres;
		/* out of range: let the general path raise the error */
	}
	return dt_ts_parse_generic(s, len, with_tz, tname);
}

int64_t dt_ts_parse_generic(const char *s, size_t len, bool with_tz, const char *tname)
{
	char *str = dt_cstr(s, len);
	char workbuf[DT_MAXDATELEN + DT_MAXDATEFIELDS];
	char *field[DT_MAXDATEFIELDS];
	int ftype[DT_MAXDATEFIELDS];
	int nf, dtype, tz;
	dt_tm tm;
	int32_t fsec;
	int r = dt_parse_fields(str, workbuf, sizeof workbuf, field, ftype, DT_MAXDATEFIELDS, &nf);
	if (r == 0)
		r = dt_decode_datetime(field, ftype, nf, &dtype, &tm, &fsec, &tz);
	if (r != 0)
		dt_parse_error(r, str, tname);
	int64_t result;
	switch (dtype) {
	case DTK_DATE:
		if (dt_tm2ts(&tm, fsec, with_tz ? &tz : NULL, &result) != 0)
			ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"%s\"", str);
		return result;
	case DTK_EPOCH:
		return -TY_UNIX_PG_EPOCH_DIFF_US;
	case DTK_LATE:
		return TY_TS_NOEND;
	case DTK_EARLY:
		return TY_TS_NOBEGIN;
	default:
		ty_error(UTIL_E_INTERNAL_ERROR, "unexpected dtype %d while parsing %s \"%s\"", dtype,
			 with_tz ? "timestamptz" : "timestamp", str);
	}
}

static ty_datum timestamp_in(const char *s, size_t len, int32_t typmod)
{
	return ty_int(dt_adjust_timestamp(ts_parse(s, len, false, "timestamp"), typmod));
}

static ty_datum timestamptz_in(const char *s, size_t len, int32_t typmod)
{
	return ty_int(dt_adjust_timestamp(ts_parse(s, len, true, "timestamp with time zone"), typmod));
}

int64_t ty_dt_parse_timestamptz(const char *s)
{
	return ts_parse(s, strlen(s), true, "timestamp with time zone");
}

static bool special_out(int64_t t, util_buf *out)
{
	if (t == TY_TS_NOBEGIN)
		util_buf_puts(out, "-infinity");
	else if (t == TY_TS_NOEND)
		util_buf_puts(out, "infinity");
	else
		return false;
	return true;
}

static void timestamp_out(ty_datum v, util_buf *out)
{
	if (special_out(v.i, out))
		return;
	int style = (int)ty_get_settings()->datestyle;
	if (style == TY_DATES_ISO && dt_encode_timestamp_iso(v.i, out))
		return;
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(v.i, NULL, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	dt_encode_datetime(&tm, fsec, false, 0, NULL, style, out);
}

static void timestamptz_out(ty_datum v, util_buf *out)
{
	if (special_out(v.i, out))
		return;
	dt_tm tm;
	int32_t fsec;
	int tz;
	const char *tzn;
	if (dt_ts2tm(v.i, &tz, &tm, &fsec, &tzn, NULL) != 0)
		dt_err_ts_range();
	dt_encode_datetime(&tm, fsec, true, tz, tzn, (int)ty_get_settings()->datestyle, out);
}

static ty_datum timestamp_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len != 8)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	int64_t t = (int64_t)util_get_be64(p);
	if (!DT_NOT_FINITE(t) && !DT_VALID_TIMESTAMP(t))
		dt_err_ts_range();
	return ty_int(dt_adjust_timestamp(t, typmod));
}

static void timestamp_send(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i);
}

static int cmp64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}
static int timestamp_cmp(ty_datum a, ty_datum b)
{
	return cmp64(a.i, b.i);
}
static uint64_t timestamp_hash(ty_datum a)
{
	return util_hash_mix((uint64_t)a.i);
}
static void timestamp_keyenc(ty_datum v, util_buf *out)
{
	dt_key_put64(out, v.i);
}
static size_t timestamp_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 8)
		return 0;
	int64_t t = dt_key_get64(p);
	if (!DT_NOT_FINITE(t) && !DT_VALID_TIMESTAMP(t))
		return 0; /* no valid timestamp encodes to this: malformed */
	*out = ty_int(t);
	return 8;
}

static ty_datum timestamp_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	(void)explicit_cast;
	return ty_int(dt_adjust_timestamp(v.i, typmod));
}

static void timestamp_typmodout(int32_t typmod, util_buf *out)
{
	if (typmod >= 0)
		util_buf_printf(out, "(%d)", typmod);
}

/* ---------------------------------------------------------------- conversions */

/* timestamp -> timestamptz in the session zone; overflow -1/+1 past the range. */
static int64_t ts2tstz_opt(int64_t ts, int *overflow)
{
	*overflow = 0;
	if (DT_NOT_FINITE(ts))
		return ts;
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) == 0) {
		int tz = dt_determine_tz_offset(&tm, dt_session_tz());
		int64_t r = ts + (int64_t)tz * DT_USECS_PER_SEC;
		if (DT_VALID_TIMESTAMP(r))
			return r;
		*overflow = r < DT_MIN_TIMESTAMP ? -1 : 1;
		return r < DT_MIN_TIMESTAMP ? TY_TS_NOBEGIN : TY_TS_NOEND;
	}
	*overflow = ts < 0 ? -1 : 1;
	return ts < 0 ? TY_TS_NOBEGIN : TY_TS_NOEND;
}

int64_t dt_timestamp2timestamptz(int64_t ts)
{
	int ovf;
	int64_t r = ts2tstz_opt(ts, &ovf);
	if (ovf)
		dt_err_ts_range();
	return r;
}

int64_t dt_timestamptz2timestamp(int64_t ts)
{
	if (DT_NOT_FINITE(ts))
		return ts;
	dt_tm tm;
	int32_t fsec;
	int tz;
	int64_t r;
	if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0 || dt_tm2ts(&tm, fsec, NULL, &r) != 0)
		dt_err_ts_range();
	return r;
}

int dt_cmp_ts_tstz(int64_t ts, int64_t tstz)
{
	int ovf;
	int64_t t = ts2tstz_opt(ts, &ovf);
	if (ovf > 0)
		return 1;
	if (ovf < 0)
		return -1;
	return cmp64(t, tstz);
}

/* ---------------------------------------------------------------- arithmetic */

static void add_months(dt_tm *tm, int32_t months)
{
	int64_t m = (int64_t)tm->mon + months;
	if (m > 12) {
		tm->year += (int)((m - 1) / 12);
		m = (m - 1) % 12 + 1;
	} else if (m < 1) {
		tm->year += (int)(m / 12 - 1);
		m = m % 12 + 12;
	}
	tm->mon = (int)m;
	int dim = dt_days_in_month(tm->year, tm->mon);
	if (tm->mday > dim)
		tm->mday = dim;
}

static void add_days(dt_tm *tm, int32_t days)
{
	int32_t j;
	if (dt_add32(dt_date2j(tm->year, tm->mon, tm->mday), days, &j))
		dt_err_ts_range();
	dt_j2date(j, &tm->year, &tm->mon, &tm->mday);
}

static int64_t add_time(int64_t ts, int64_t us)
{
	int64_t r;
	if (dt_add64(ts, us, &r) || !DT_VALID_TIMESTAMP(r))
		dt_err_ts_range();
	return r;
}

int64_t dt_timestamp_pl_interval(int64_t ts, const ty_interval *iv)
{
	if (DT_NOT_FINITE(ts))
		return ts;
	dt_tm tm;
	int32_t fsec;
	if (iv->month != 0) {
		if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
			dt_err_ts_range();
		add_months(&tm, iv->month);
		if (dt_tm2ts(&tm, fsec, NULL, &ts) != 0)
			dt_err_ts_range();
	}
	if (iv->day != 0) {
		if (dt_ts2tm(ts, NULL, &tm, &fsec, NULL, NULL) != 0)
			dt_err_ts_range();
		add_days(&tm, iv->day);
		if (dt_tm2ts(&tm, fsec, NULL, &ts) != 0)
			dt_err_ts_range();
	}
	return add_time(ts, iv->time);
}

int64_t dt_timestamptz_pl_interval(int64_t ts, const ty_interval *iv, const ty_timezone *attz)
{
	if (DT_NOT_FINITE(ts))
		return ts;
	if (!attz)
		attz = dt_session_tz();
	dt_tm tm;
	int32_t fsec;
	int tz;
	if (iv->month != 0) {
		if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, attz) != 0)
			dt_err_ts_range();
		add_months(&tm, iv->month);
		tz = dt_determine_tz_offset(&tm, attz);
		if (dt_tm2ts(&tm, fsec, &tz, &ts) != 0)
			dt_err_ts_range();
	}
	if (iv->day != 0) {
		if (dt_ts2tm(ts, &tz, &tm, &fsec, NULL, attz) != 0)
			dt_err_ts_range();
		add_days(&tm, iv->day);
		tz = dt_determine_tz_offset(&tm, attz);
		if (dt_tm2ts(&tm, fsec, &tz, &ts) != 0)
			dt_err_ts_range();
	}
	return add_time(ts, iv->time);
}

ty_interval dt_timestamp_mi(int64_t a, int64_t b)
{
	if (DT_NOT_FINITE(a) || DT_NOT_FINITE(b))
		ty_error(UTIL_E_DATETIME_FIELD_OVERFLOW, "cannot subtract infinite timestamps");
	/* PostgreSQL 15 does not check this subtraction: it wraps. */
	ty_interval r = {(int64_t)((uint64_t)a - (uint64_t)b), 0, 0};
	/* PostgreSQL folds whole days into the day field (justify_hours). */
	return dt_interval_justify_hours(&r);
}

/* ---------------------------------------------------------------- SQL functions */

DT_CMPFNS(timestamp, cmp64(DT_I(0), DT_I(1)))
DT_CMPFNS(timestamp_timestamptz, dt_cmp_ts_tstz(DT_I(0), DT_I(1)))
DT_CMPFNS(timestamptz_timestamp, -dt_cmp_ts_tstz(DT_I(1), DT_I(0)))

static DT_FN(timestamp_in)
{
	return timestamp_in(DT_A(0).p, DT_A(0).len, fc->nargs > 2 ? (int32_t)DT_I(2) : -1);
}
static DT_FN(timestamptz_in)
{
	return timestamptz_in(DT_A(0).p, DT_A(0).len, fc->nargs > 2 ? (int32_t)DT_I(2) : -1);
}
static DT_FN(timestamp_out)
{
	return dt_out_text(timestamp_out, DT_A(0));
}
static DT_FN(timestamptz_out)
{
	return dt_out_text(timestamptz_out, DT_A(0));
}
static DT_FN(timestamp_larger)
{
	return ty_int(DT_I(0) > DT_I(1) ? DT_I(0) : DT_I(1));
}
static DT_FN(timestamp_smaller)
{
	return ty_int(DT_I(0) < DT_I(1) ? DT_I(0) : DT_I(1));
}
static DT_FN(timestamp_finite)
{
	return ty_bool(!DT_NOT_FINITE(DT_I(0)));
}
static DT_FN(timestamp_scale)
{
	return ty_int(dt_adjust_timestamp(DT_I(0), (int32_t)DT_I(1)));
}

static DT_FN(timestamp_pl_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	return ty_int(dt_timestamp_pl_interval(DT_I(0), &iv));
}
static DT_FN(interval_pl_timestamp)
{
	ty_interval iv = dt_interval_get(DT_A(0));
	return ty_int(dt_timestamp_pl_interval(DT_I(1), &iv));
}
static DT_FN(timestamp_mi_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	iv = dt_interval_um(&iv);
	return ty_int(dt_timestamp_pl_interval(DT_I(0), &iv));
}
static DT_FN(timestamptz_pl_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	return ty_int(dt_timestamptz_pl_interval(DT_I(0), &iv, NULL));
}
static DT_FN(interval_pl_timestamptz)
{
	ty_interval iv = dt_interval_get(DT_A(0));
	return ty_int(dt_timestamptz_pl_interval(DT_I(1), &iv, NULL));
}
static DT_FN(timestamptz_mi_interval)
{
	ty_interval iv = dt_interval_get(DT_A(1));
	iv = dt_interval_um(&iv);
	return ty_int(dt_timestamptz_pl_interval(DT_I(0), &iv, NULL));
}
static DT_FN(timestamp_mi)
{
	ty_interval r = dt_timestamp_mi(DT_I(0), DT_I(1));
	return dt_interval_datum(&r);
}
static DT_FN(timestamp_timestamptz)
{
	return ty_int(dt_timestamp2timestamptz(DT_I(0)));
}
static DT_FN(timestamptz_timestamp)
{
	return ty_int(dt_timestamptz2timestamp(DT_I(0)));
}

/* ---------------------------------------------------------------- registration */

static const ty_type ts_types[] = {
    {.oid = TY_TIMESTAMP,
     .name = "timestamp",
     .sqlname = "timestamp without time zone",
     .len = 8,
     .byval = true,
     .category = 'D',
     .typtype = 'b',
     .align = 'd',
     .array = TY_TIMESTAMP_ARRAY,
     .in = timestamp_in,
     .out = timestamp_out,
     .recv = timestamp_recv,
     .send = timestamp_send,
     .cmp = timestamp_cmp,
     .hash = timestamp_hash,
     .keyenc = timestamp_keyenc,
     .keydec = timestamp_keydec,
     .typmod_apply = timestamp_typmod,
     .typmod_out = timestamp_typmodout,
     .input_name = "timestamp_in",
     .output_name = "timestamp_out"},
    {.oid = TY_TIMESTAMPTZ,
     .name = "timestamptz",
     .sqlname = "timestamp with time zone",
     .len = 8,
     .byval = true,
     .category = 'D',
     .preferred = true,
     .typtype = 'b',
     .align = 'd',
     .array = TY_TIMESTAMPTZ_ARRAY,
     .in = timestamptz_in,
     .out = timestamptz_out,
     .recv = timestamp_recv,
     .send = timestamp_send,
     .cmp = timestamp_cmp,
     .hash = timestamp_hash,
     .keyenc = timestamp_keyenc,
     .keydec = timestamp_keydec,
     .typmod_apply = timestamp_typmod,
     .typmod_out = timestamp_typmodout,
     .input_name = "timestamptz_in",
     .output_name = "timestamptz_out"},
};

#define TS TY_TIMESTAMP
#define TZ TY_TIMESTAMPTZ
#define B  TY_BOOL
#define I4 TY_INT4
#define IV TY_INTERVAL

static const ty_func ts_funcs[] = {
    DTF("timestamp_in", 1312, timestamp_in, 's', TS, 3, TY_CSTRING, TY_OID, I4),
    DTF("timestamp_out", 1313, timestamp_out, 's', TY_CSTRING, 1, TS),
    DTF("timestamptz_in", 1150, timestamptz_in, 's', TZ, 3, TY_CSTRING, TY_OID, I4),
    DTF("timestamptz_out", 1151, timestamptz_out, 's', TY_CSTRING, 1, TZ),
    DTF("timestamp_eq", 2052, timestamp_eq, 'i', B, 2, TS, TS),
    DTF("timestamp_ne", 2053, timestamp_ne, 'i', B, 2, TS, TS),
    DTF("timestamp_lt", 2054, timestamp_lt, 'i', B, 2, TS, TS),
    DTF("timestamp_le", 2055, timestamp_le, 'i', B, 2, TS, TS),
    DTF("timestamp_gt", 2057, timestamp_gt, 'i', B, 2, TS, TS),
    DTF("timestamp_ge", 2056, timestamp_ge, 'i', B, 2, TS, TS),
    DTF("timestamp_cmp", 2045, timestamp_cmp, 'i', I4, 2, TS, TS),
    DTF("timestamptz_eq", 1152, timestamp_eq, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_ne", 1153, timestamp_ne, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_lt", 1154, timestamp_lt, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_le", 1155, timestamp_le, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_gt", 1157, timestamp_gt, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_ge", 1156, timestamp_ge, 'i', B, 2, TZ, TZ),
    DTF("timestamptz_cmp", 1314, timestamp_cmp, 'i', I4, 2, TZ, TZ),
    DTF("timestamp_eq_timestamptz", 2522, timestamp_timestamptz_eq, 's', B, 2, TS, TZ),
    DTF("timestamp_ne_timestamptz", 2525, timestamp_timestamptz_ne, 's', B, 2, TS, TZ),
    DTF("timestamp_lt_timestamptz", 2520, timestamp_timestamptz_lt, 's', B, 2, TS, TZ),
    DTF("timestamp_le_timestamptz", 2521, timestamp_timestamptz_le, 's', B, 2, TS, TZ),
    DTF("timestamp_gt_timestamptz", 2523, timestamp_timestamptz_gt, 's', B, 2, TS, TZ),
    DTF("timestamp_ge_timestamptz", 2524, timestamp_timestamptz_ge, 's', B, 2, TS, TZ),
    DTF("timestamp_cmp_timestamptz", 2526, timestamp_timestamptz_cmp, 's', I4, 2, TS, TZ),
    DTF("timestamptz_eq_timestamp", 2529, timestamptz_timestamp_eq, 's', B, 2, TZ, TS),
    DTF("timestamptz_ne_timestamp", 2532, timestamptz_timestamp_ne, 's', B, 2, TZ, TS),
    DTF("timestamptz_lt_timestamp", 2527, timestamptz_timestamp_lt, 's', B, 2, TZ, TS),
    DTF("timestamptz_le_timestamp", 2528, timestamptz_timestamp_le, 's', B, 2, TZ, TS),
    DTF("timestamptz_gt_timestamp", 2530, timestamptz_timestamp_gt, 's', B, 2, TZ, TS),
    DTF("timestamptz_ge_timestamp", 2531, timestamptz_timestamp_ge, 's', B, 2, TZ, TS),
    DTF("timestamptz_cmp_timestamp", 2533, timestamptz_timestamp_cmp, 's', I4, 2, TZ, TS),
    DTF("timestamp_larger", 2036, timestamp_larger, 'i', TS, 2, TS, TS),
    DTF("timestamp_smaller", 2035, timestamp_smaller, 'i', TS, 2, TS, TS),
    DTF("timestamptz_larger", 1196, timestamp_larger, 'i', TZ, 2, TZ, TZ),
    DTF("timestamptz_smaller", 1195, timestamp_smaller, 'i', TZ, 2, TZ, TZ),
    DTF("isfinite", 2048, timestamp_finite, 'i', B, 1, TS),
    DTF("isfinite", 1389, timestamp_finite, 'i', B, 1, TZ),
    DTF("timestamp", 1961, timestamp_scale, 'i', TS, 2, TS, I4),
    DTF("timestamptz", 1967, timestamp_scale, 'i', TZ, 2, TZ, I4),
    DTF("timestamp_pl_interval", 2032, timestamp_pl_interval, 'i', TS, 2, TS, IV),
    DTF("interval_pl_timestamp", 2548, interval_pl_timestamp, 'i', TS, 2, IV, TS),
    DTF("timestamp_mi_interval", 2033, timestamp_mi_interval, 'i', TS, 2, TS, IV),
    DTF("timestamp_mi", 2031, timestamp_mi, 'i', IV, 2, TS, TS),
    DTF("timestamptz_pl_interval", 1189, timestamptz_pl_interval, 's', TZ, 2, TZ, IV),
    DTF("interval_pl_timestamptz", 2549, interval_pl_timestamptz, 's', TZ, 2, IV, TZ),
    DTF("timestamptz_mi_interval", 1190, timestamptz_mi_interval, 's', TZ, 2, TZ, IV),
    DTF("timestamptz_mi", 1188, timestamp_mi, 'i', IV, 2, TZ, TZ),
    DTF("timestamptz", 2028, timestamp_timestamptz, 's', TZ, 1, TS),
    DTF("timestamp", 2027, timestamptz_timestamp, 's', TS, 1, TZ),
};

#define CMPOPS(l, r, pre)                                                                                    \
	DTOP("=", l, r, B, pre "eq", "=", "<>"), DTOP("<>", l, r, B, pre "ne", "<>", "="),                   \
	    DTOP("<", l, r, B, pre "lt", ">", ">="), DTOP("<=", l, r, B, pre "le", ">=", ">"),               \
	    DTOP(">", l, r, B, pre "gt", "<", "<="), DTOP(">=", l, r, B, pre "ge", "<=", "<")

static const ty_operator ts_ops[] = {
    CMPOPS(TS, TS, "timestamp_"),
    CMPOPS(TZ, TZ, "timestamptz_"),
    DTOP("=", TS, TZ, B, "timestamp_eq_timestamptz", "=", "<>"),
    DTOP("<>", TS, TZ, B, "timestamp_ne_timestamptz", "<>", "="),
    DTOP("<", TS, TZ, B, "timestamp_lt_timestamptz", ">", ">="),
    DTOP("<=", TS, TZ, B, "timestamp_le_timestamptz", ">=", ">"),
    DTOP(">", TS, TZ, B, "timestamp_gt_timestamptz", "<", "<="),
    DTOP(">=", TS, TZ, B, "timestamp_ge_timestamptz", "<=", "<"),
    DTOP("=", TZ, TS, B, "timestamptz_eq_timestamp", "=", "<>"),
    DTOP("<>", TZ, TS, B, "timestamptz_ne_timestamp", "<>", "="),
    DTOP("<", TZ, TS, B, "timestamptz_lt_timestamp", ">", ">="),
    DTOP("<=", TZ, TS, B, "timestamptz_le_timestamp", ">=", ">"),
    DTOP(">", TZ, TS, B, "timestamptz_gt_timestamp", "<", "<="),
    DTOP(">=", TZ, TS, B, "timestamptz_ge_timestamp", "<=", "<"),
    DTOP("+", TS, IV, TS, "timestamp_pl_interval", "+", NULL),
    DTOP("+", IV, TS, TS, "interval_pl_timestamp", "+", NULL),
    DTOP("-", TS, IV, TS, "timestamp_mi_interval", NULL, NULL),
    DTOP("-", TS, TS, IV, "timestamp_mi", NULL, NULL),
    DTOP("+", TZ, IV, TZ, "timestamptz_pl_interval", "+", NULL),
    DTOP("+", IV, TZ, TZ, "interval_pl_timestamptz", "+", NULL),
    DTOP("-", TZ, IV, TZ, "timestamptz_mi_interval", NULL, NULL),
    DTOP("-", TZ, TZ, IV, "timestamptz_mi", NULL, NULL),
};

static const ty_cast ts_casts[] = {
    {TY_TIMESTAMP, TY_TIMESTAMPTZ, "timestamptz", 'i', 'f'},
    {TY_TIMESTAMPTZ, TY_TIMESTAMP, "timestamp", 'a', 'f'},
};

void dt_register_timestamp(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(ts_types); i++)
		ty_type_register(&ts_types[i]);
	ty_func_register(ts_funcs, (int)UTIL_ARRAY_LEN(ts_funcs));
	ty_operator_register(ts_ops, (int)UTIL_ARRAY_LEN(ts_ops));
	ty_cast_register(ts_casts, (int)UTIL_ARRAY_LEN(ts_casts));
}
