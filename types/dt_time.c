/*
 * dt_time.c — time (µs since midnight) and timetz (local time plus a fixed
 * zone in seconds west): text and binary I/O, precision typmods,
 * comparisons, ± interval, time - time, casts among time, timetz,
 * interval and the timestamp types, AT TIME ZONE for timetz, and keys.
 */
#include "dt_int.h"

#include <ctype.h>
#include <string.h>

ty_datum dt_timetz_datum(int64_t time, int32_t zone)
{
	ty_timetz *p = ty_alloc(sizeof *p);
	memset(p, 0, sizeof *p);
	p->time = time;
	p->zone = zone;
	return ty_bytes(p, sizeof *p);
}

/* ---------------------------------------------------------------- I/O */

static void parse_time(const char *s, size_t len, const char *tname, dt_tm *tm, int32_t *fsec, int *tz)
{
	char *str = dt_cstr(s, len);
	char workbuf[DT_MAXDATELEN + 1];
	char *field[DT_MAXDATEFIELDS];
	int ftype[DT_MAXDATEFIELDS];
	int nf, dtype;
	int r = dt_parse_fields(str, workbuf, sizeof workbuf, field, ftype, DT_MAXDATEFIELDS, &nf);
	if (r == 0)
		r = dt_decode_timeonly(field, ftype, nf, &dtype, tm, fsec, tz);
	if (r != 0)
		dt_parse_error(r, str, tname);
}

static ty_datum time_in(const char *s, size_t len, int32_t typmod)
{
	dt_tm tm;
	int32_t fsec;
	int tz;
	parse_time(s, len, "time", &tm, &fsec, &tz);
	return ty_int(dt_adjust_time(dt_time2t(tm.hour, tm.min, tm.sec, fsec), typmod));
}

static void time_out(ty_datum v, util_buf *out)
{
	dt_tm tm = {0};
	int32_t fsec;
	dt_dt2time(v.i, &tm.hour, &tm.min, &tm.sec, &fsec);
	dt_encode_time(&tm, fsec, false, 0, out);
}

static ty_datum timetz_in(const char *s, size_t len, int32_t typmod)
{
	dt_tm tm;
	int32_t fsec;
	int tz;
	parse_time(s, len, "time with time zone", &tm, &fsec, &tz);
	return dt_timetz_datum(dt_adjust_time(dt_time2t(tm.hour, tm.min, tm.sec, fsec), typmod), tz);
}

static void timetz_out(ty_datum v, util_buf *out)
{
	ty_timetz t = dt_timetz_get(v);
	dt_tm tm = {0};
	int32_t fsec;
	dt_dt2time(t.time, &tm.hour, &tm.min, &tm.sec, &fsec);
	dt_encode_time(&tm, fsec, true, t.zone, out);
}

static ty_datum time_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len != 8)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	int64_t t = (int64_t)util_get_be64(p);
	if (t < 0 || t > DT_USECS_PER_DAY)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "time out of range");
	return ty_int(dt_adjust_time(t, typmod));
}

static void time_send(ty_datum v, util_buf *out)
{
	util_buf_put_be64(out, (uint64_t)v.i);
}

static ty_datum timetz_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len != 12)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	int64_t t = (int64_t)util_get_be64(p);
	if (t < 0 || t > DT_USECS_PER_DAY)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "time out of range");
	int32_t zone = (int32_t)util_get_be32(p + 8);
	if (zone <= -DT_TZDISP_LIMIT || zone >= DT_TZDISP_LIMIT)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "time zone displacement out of range");
	return dt_timetz_datum(dt_adjust_time(t, typmod), zone);
}

static void timetz_send(ty_datum v, util_buf *out)
{
	ty_timetz t = dt_timetz_get(v);
	util_buf_put_be64(out, (uint64_t)t.time);
	util_buf_put_be32(out, (uint32_t)t.zone);
}

static int cmp64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}
static int time_cmp(ty_datum a, ty_datum b)
{
	return cmp64(a.i, b.i);
}
static uint64_t time_hash(ty_datum a)
{
	return util_hash_mix((uint64_t)a.i);
}

/* timetz orders by the UTC instant, then by zone: equal only when both match. */
static int timetz_cmp_v(ty_timetz a, ty_timetz b)
{
	int64_t x = a.time + (int64_t)a.zone * DT_USECS_PER_SEC,
		y = b.time + (int64_t)b.zone * DT_USECS_PER_SEC;
	int c = cmp64(x, y);
	return c ? c : (a.zone < b.zone ? -1 : a.zone > b.zone);
}
static int timetz_cmp(ty_datum a, ty_datum b)
{
	return timetz_cmp_v(dt_timetz_get(a), dt_timetz_get(b));
}
static uint64_t timetz_hash(ty_datum a)
{
	ty_timetz t = dt_timetz_get(a);
	return util_hash_mix((uint64_t)t.time ^ util_hash_mix((uint64_t)(uint32_t)t.zone));
}

static void time_keyenc(ty_datum v, util_buf *out)
{
	dt_key_put64(out, v.i);
}
static size_t time_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 8)
		return 0;
	int64_t t = dt_key_get64(p);
	if (t < 0 || t > DT_USECS_PER_DAY)
		return 0; /* no valid time encodes to this: malformed */
	*out = ty_int(t);
	return 8;
}
static void timetz_keyenc(ty_datum v, util_buf *out)
{
	ty_timetz t = dt_timetz_get(v);
	dt_key_put64(out, t.time + (int64_t)t.zone * DT_USECS_PER_SEC);
	dt_key_put32(out, t.zone);
}
static size_t timetz_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 12)
		return 0;
	int32_t zone = dt_key_get32(p + 8);
	int64_t k = dt_key_get64(p);
	if (zone <= -DT_TZDISP_LIMIT || zone >= DT_TZDISP_LIMIT || k < -(int64_t)DT_TZDISP_LIMIT * DT_USECS_PER_SEC ||
	    k > DT_USECS_PER_DAY + (int64_t)DT_TZDISP_LIMIT * DT_USECS_PER_SEC)
		return 0; /* malformed */
	int64_t t = k - (int64_t)zone * DT_USECS_PER_SEC;
	if (t < 0 || t > DT_USECS_PER_DAY)
		return 0;
	*out = dt_timetz_datum(t, zone);
	return 12;
}

static ty_datum time_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	(void)explicit_cast;
	return ty_int(dt_adjust_time(v.i, typmod));
}
static ty_datum timetz_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	(void)explicit_cast;
	ty_timetz t = dt_timetz_get(v);
	return dt_timetz_datum(dt_adjust_time(t.time, typmod), t.zone);
}
static void time_typmodout(int32_t typmod, util_buf *out)
{
	if (typmod >= 0)
		util_buf_printf(out, "(%d)", typmod);
}

/* ---------------------------------------------------------------- functions */

DT_CMPFNS(time, cmp64(DT_I(0), DT_I(1)))
DT_CMPFNS(timetz, timetz_cmp(DT_A(0), DT_A(1)))

static DT_FN(time_in)
{
	return time_in(DT_A(0).p, DT_A(0).len, fc->nargs > 2 ? (int32_t)DT_I(2) : -1);
}
static DT_FN(time_out)
{
	return dt_out_text(time_out, DT_A(0));
}
static DT_FN(timetz_in)
{
	return timetz_in(DT_A(0).p, DT_A(0).len, fc->nargs > 2 ? (int32_t)DT_I(2) : -1);
}
static DT_FN(timetz_out)
{
	return dt_out_text(timetz_out, DT_A(0));
}
static DT_FN(time_larger)
{
	return ty_int(DT_I(0) > DT_I(1) ? DT_I(0) : DT_I(1));
}
static DT_FN(time_smaller)
{
	return ty_int(DT_I(0) < DT_I(1) ? DT_I(0) : DT_I(1));
}
static DT_FN(timetz_larger)
{
	return timetz_cmp(DT_A(0), DT_A(1)) > 0 ? DT_A(0) : DT_A(1);
}
static DT_FN(timetz_smaller)
{
	return timetz_cmp(DT_A(0), DT_A(1)) < 0 ? DT_A(0) : DT_A(1);
}
static DT_FN(time_hash)
{
	return ty_int((int32_t)time_hash(DT_A(0)));
}
static DT_FN(timetz_hash)
{
	return ty_int((int32_t)timetz_hash(DT_A(0)));
}
static DT_FN(time_scale)
{
	return ty_int(dt_adjust_time(DT_I(0), (int32_t)DT_I(1)));
}
static DT_FN(timetz_scale)
{
	return timetz_typmod(DT_A(0), (int32_t)DT_I(1), true);
}

static int64_t wrap_day(int64_t t)
{
	t -= t / DT_USECS_PER_DAY * DT_USECS_PER_DAY;
	if (t < 0)
		t += DT_USECS_PER_DAY;
	return t;
}

static DT_FN(time_mi_time)
{
	ty_interval r = {DT_I(0) - DT_I(1), 0, 0};
	return dt_interval_datum(&r);
}
static DT_FN(time_pl_interval)
{
	return ty_int(wrap_day(DT_I(0) + dt_interval_get(DT_A(1)).time));
}
static DT_FN(interval_pl_time)
{
	return ty_int(wrap_day(DT_I(1) + dt_interval_get(DT_A(0)).time));
}
static DT_FN(time_mi_interval)
{
	return ty_int(wrap_day(DT_I(0) - dt_interval_get(DT_A(1)).time));
}
static DT_FN(timetz_pl_interval)
{
	ty_timetz t = dt_timetz_get(DT_A(0));
	return dt_timetz_datum(wrap_day(t.time + dt_interval_get(DT_A(1)).time), t.zone);
}
static DT_FN(interval_pl_timetz)
{
	ty_timetz t = dt_timetz_get(DT_A(1));
	return dt_timetz_datum(wrap_day(t.time + dt_interval_get(DT_A(0)).time), t.zone);
}
static DT_FN(timetz_mi_interval)
{
	ty_timetz t = dt_timetz_get(DT_A(0));
	return dt_timetz_datum(wrap_day(t.time - dt_interval_get(DT_A(1)).time), t.zone);
}

static DT_FN(time_interval)
{
	ty_interval r = {DT_I(0), 0, 0};
	return dt_interval_datum(&r);
}
static DT_FN(interval_time)
{
	int64_t t = dt_interval_get(DT_A(0)).time;
	if (t >= DT_USECS_PER_DAY)
		t -= t / DT_USECS_PER_DAY * DT_USECS_PER_DAY;
	else if (t < 0)
		t += (-t + DT_USECS_PER_DAY - 1) / DT_USECS_PER_DAY * DT_USECS_PER_DAY;
	return ty_int(t);
}
static DT_FN(timestamp_time)
{
	if (DT_NOT_FINITE(DT_I(0)))
		return ty_null();
	dt_tm tm;
	int32_t fsec;
	if (dt_ts2tm(DT_I(0), NULL, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	return ty_int(dt_time2t(tm.hour, tm.min, tm.sec, fsec));
}
static DT_FN(timestamptz_time)
{
	if (DT_NOT_FINITE(DT_I(0)))
		return ty_null();
	dt_tm tm;
	int32_t fsec;
	int tz;
	if (dt_ts2tm(DT_I(0), &tz, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	return ty_int(dt_time2t(tm.hour, tm.min, tm.sec, fsec));
}
static DT_FN(timestamptz_timetz)
{
	if (DT_NOT_FINITE(DT_I(0)))
		return ty_null();
	dt_tm tm;
	int32_t fsec;
	int tz;
	if (dt_ts2tm(DT_I(0), &tz, &tm, &fsec, NULL, NULL) != 0)
		dt_err_ts_range();
	return dt_timetz_datum(dt_time2t(tm.hour, tm.min, tm.sec, fsec), tz);
}
static DT_FN(time_timetz)
{
	/* The zone in effect today at that time of day. */
	dt_tm tm;
	int32_t fsec;
	dt_current_tm(&tm, NULL, NULL);
	dt_dt2time(DT_I(0), &tm.hour, &tm.min, &tm.sec, &fsec);
	int tz = dt_determine_tz_offset(&tm, dt_session_tz());
	return dt_timetz_datum(DT_I(0), tz);
}
static DT_FN(timetz_time)
{
	return ty_int(dt_timetz_get(DT_A(0)).time);
}

/* AT TIME ZONE for timetz: the zone's offset now (or the fixed one). */
static ty_datum timetz_shift(ty_timetz t, int tz)
{
	int64_t r = t.time + (int64_t)(t.zone - tz) * DT_USECS_PER_SEC;
	while (r < 0)
		r += DT_USECS_PER_DAY;
	while (r >= DT_USECS_PER_DAY)
		r -= DT_USECS_PER_DAY;
	return dt_timetz_datum(r, tz);
}

static DT_FN(timetz_zone)
{
	char *name = ty_cstring(DT_A(0));
	char low[64];
	size_t n = strlen(name);
	if (n > 63)
		n = 63;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[n] = '\0';
	int val, tz;
	const ty_timezone *zone;
	int type = dt_decode_tzabbrev(low, &val, &zone);
	if (type == DT_TZ || type == DT_DTZ) {
		tz = -val;
	} else if (type == DT_DYNTZ) {
		int isdst;
		tz = dt_determine_abbrev_offset_ts(dt_txn_timestamp(), name, zone, &isdst);
	} else {
		zone = dt_tzset(name);
		if (!zone)
			ty_error(UTIL_E_INVALID_PARAMETER_VALUE, "time zone \"%s\" not recognized", name);
		dt_tm tm;
		int32_t fsec;
		if (dt_ts2tm(dt_txn_timestamp(), &tz, &tm, &fsec, NULL, zone) != 0)
			dt_err_ts_range();
	}
	return timetz_shift(dt_timetz_get(DT_A(1)), tz);
}

void dt_err_interval_zone(const ty_interval *iv)
{
	util_buf b = UTIL_BUF_INIT;
	dt_itm itm;
	dt_interval2itm(iv, &itm);
	dt_encode_interval(&itm, (int)ty_get_settings()->intervalstyle, &b);
	util_err *e = ty_errstart(UTIL_E_INVALID_PARAMETER_VALUE,
				  "interval time zone \"%s\" must not include months or days", b.data);
	(void)e;
	util_buf_free(&b);
	ty_errthrow();
}

static DT_FN(timetz_izone)
{
	ty_interval iv = dt_interval_get(DT_A(0));
	if (iv.month != 0 || iv.day != 0)
		dt_err_interval_zone(&iv);
	return timetz_shift(dt_timetz_get(DT_A(1)), (int)-(iv.time / DT_USECS_PER_SEC));
}

/* ---------------------------------------------------------------- registration */

static const ty_type time_types[] = {
    {.oid = TY_TIME,
     .name = "time",
     .sqlname = "time without time zone",
     .len = 8,
     .byval = true,
     .category = 'D',
     .typtype = 'b',
     .align = 'd',
     .array = TY_TIME_ARRAY,
     .in = time_in,
     .out = time_out,
     .recv = time_recv,
     .send = time_send,
     .cmp = time_cmp,
     .hash = time_hash,
     .keyenc = time_keyenc,
     .keydec = time_keydec,
     .typmod_apply = time_typmod,
     .typmod_out = time_typmodout,
     .input_name = "time_in",
     .output_name = "time_out"},
    {.oid = TY_TIMETZ,
     .name = "timetz",
     .sqlname = "time with time zone",
     .len = 12,
     .byval = false,
     .category = 'D',
     .typtype = 'b',
     .align = 'd',
     .array = TY_TIMETZ_ARRAY,
     .in = timetz_in,
     .out = timetz_out,
     .recv = timetz_recv,
     .send = timetz_send,
     .cmp = timetz_cmp,
     .hash = timetz_hash,
     .keyenc = timetz_keyenc,
     .keydec = timetz_keydec,
     .typmod_apply = timetz_typmod,
     .typmod_out = time_typmodout,
     .input_name = "timetz_in",
     .output_name = "timetz_out"},
};

#define T  TY_TIME
#define TT TY_TIMETZ
#define B  TY_BOOL
#define I4 TY_INT4
#define IV TY_INTERVAL

static const ty_func time_funcs[] = {
    DTF("time_in", 1143, time_in, 's', T, 3, TY_CSTRING, TY_OID, I4),
    DTF("time_out", 1144, time_out, 'i', TY_CSTRING, 1, T),
    DTF("timetz_in", 1350, timetz_in, 's', TT, 3, TY_CSTRING, TY_OID, I4),
    DTF("timetz_out", 1351, timetz_out, 'i', TY_CSTRING, 1, TT),
    DTF("time_eq", 1145, time_eq, 'i', B, 2, T, T),
    DTF("time_ne", 1106, time_ne, 'i', B, 2, T, T),
    DTF("time_lt", 1102, time_lt, 'i', B, 2, T, T),
    DTF("time_le", 1103, time_le, 'i', B, 2, T, T),
    DTF("time_gt", 1104, time_gt, 'i', B, 2, T, T),
    DTF("time_ge", 1105, time_ge, 'i', B, 2, T, T),
    DTF("time_cmp", 1107, time_cmp, 'i', I4, 2, T, T),
    DTF("time_hash", 1688, time_hash, 'i', I4, 1, T),
    DTF("time_larger", 1377, time_larger, 'i', T, 2, T, T),
    DTF("time_smaller", 1378, time_smaller, 'i', T, 2, T, T),
    DTF("timetz_eq", 1352, timetz_eq, 'i', B, 2, TT, TT),
    DTF("timetz_ne", 1353, timetz_ne, 'i', B, 2, TT, TT),
    DTF("timetz_lt", 1354, timetz_lt, 'i', B, 2, TT, TT),
    DTF("timetz_le", 1355, timetz_le, 'i', B, 2, TT, TT),
    DTF("timetz_gt", 1357, timetz_gt, 'i', B, 2, TT, TT),
    DTF("timetz_ge", 1356, timetz_ge, 'i', B, 2, TT, TT),
    DTF("timetz_cmp", 1358, timetz_cmp, 'i', I4, 2, TT, TT),
    DTF("timetz_hash", 1696, timetz_hash, 'i', I4, 1, TT),
    DTF("timetz_larger", 1379, timetz_larger, 'i', TT, 2, TT, TT),
    DTF("timetz_smaller", 1380, timetz_smaller, 'i', TT, 2, TT, TT),
    DTF("time", 1968, time_scale, 'i', T, 2, T, I4),
    DTF("timetz", 1969, timetz_scale, 'i', TT, 2, TT, I4),
    DTF("time_mi_time", 1690, time_mi_time, 'i', IV, 2, T, T),
    DTF("time_pl_interval", 1747, time_pl_interval, 'i', T, 2, T, IV),
    DTF("interval_pl_time", 1848, interval_pl_time, 'i', T, 2, IV, T),
    DTF("time_mi_interval", 1748, time_mi_interval, 'i', T, 2, T, IV),
    DTF("timetz_pl_interval", 1749, timetz_pl_interval, 'i', TT, 2, TT, IV),
    DTF("interval_pl_timetz", 2547, interval_pl_timetz, 'i', TT, 2, IV, TT),
    DTF("timetz_mi_interval", 1750, timetz_mi_interval, 'i', TT, 2, TT, IV),
    DTF("interval", 1370, time_interval, 'i', IV, 1, T),
    DTF("time", 1419, interval_time, 'i', T, 1, IV),
    DTF("time", 1316, timestamp_time, 'i', T, 1, TY_TIMESTAMP),
    DTF("time", 2019, timestamptz_time, 's', T, 1, TY_TIMESTAMPTZ),
    DTF("timetz", 1388, timestamptz_timetz, 's', TT, 1, TY_TIMESTAMPTZ),
    DTF("timetz", 2047, time_timetz, 's', TT, 1, T),
    DTF("time", 2046, timetz_time, 'i', T, 1, TT),
    DTF("timezone", 2037, timetz_zone, 's', TT, 2, TY_TEXT, TT),
    DTF("timezone", 2038, timetz_izone, 'i', TT, 2, IV, TT),
};

#define CMPOPS(l, r, pre)                                                                                    \
	DTOP("=", l, r, B, pre "eq", "=", "<>"), DTOP("<>", l, r, B, pre "ne", "<>", "="),                   \
	    DTOP("<", l, r, B, pre "lt", ">", ">="), DTOP("<=", l, r, B, pre "le", ">=", ">"),               \
	    DTOP(">", l, r, B, pre "gt", "<", "<="), DTOP(">=", l, r, B, pre "ge", "<=", "<")

static const ty_operator time_ops[] = {
    CMPOPS(T, T, "time_"),
    CMPOPS(TT, TT, "timetz_"),
    DTOP("-", T, T, IV, "time_mi_time", NULL, NULL),
    DTOP("+", T, IV, T, "time_pl_interval", "+", NULL),
    DTOP("+", IV, T, T, "interval_pl_time", "+", NULL),
    DTOP("-", T, IV, T, "time_mi_interval", NULL, NULL),
    DTOP("+", TT, IV, TT, "timetz_pl_interval", "+", NULL),
    DTOP("+", IV, TT, TT, "interval_pl_timetz", "+", NULL),
    DTOP("-", TT, IV, TT, "timetz_mi_interval", NULL, NULL),
};

static const ty_cast time_casts[] = {
    {TY_TIME, TY_INTERVAL, "interval", 'i', 'f'},    {TY_TIME, TY_TIMETZ, "timetz", 'i', 'f'},
    {TY_TIMESTAMP, TY_TIME, "time", 'a', 'f'},       {TY_TIMESTAMPTZ, TY_TIME, "time", 'a', 'f'},
    {TY_TIMESTAMPTZ, TY_TIMETZ, "timetz", 'a', 'f'}, {TY_INTERVAL, TY_TIME, "time", 'a', 'f'},
    {TY_TIMETZ, TY_TIME, "time", 'a', 'f'},
};

void dt_register_time(void)
{
	for (size_t i = 0; i < UTIL_ARRAY_LEN(time_types); i++)
		ty_type_register(&time_types[i]);
	ty_func_register(time_funcs, (int)UTIL_ARRAY_LEN(time_funcs));
	ty_operator_register(time_ops, (int)UTIL_ARRAY_LEN(time_ops));
	ty_cast_register(time_casts, (int)UTIL_ARRAY_LEN(time_casts));
}
