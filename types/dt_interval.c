/*
 * dt_interval.c — the interval type (months, days, µs): text and binary
 * I/O, field/precision typmods, comparison through the 30-day-month
 * linear value (so '1 month' = '30 days', hashing agrees), arithmetic
 * (+ - * / and unary -), justify_*, and the sum/avg aggregates.
 */
#include "dt_int.h"

#include <math.h>
#include <string.h>

ty_datum dt_interval_datum(const ty_interval *iv)
{
	ty_interval *p = ty_alloc(sizeof *p);
	*p = *iv;
	return ty_bytes(p, sizeof *p);
}

/* ---------------------------------------------------------------- I/O */

static ty_datum interval_in(const char *s, size_t len, int32_t typmod)
{
	char *str = dt_cstr(s, len);
	char workbuf[256];
	char *field[DT_MAXDATEFIELDS];
	int ftype[DT_MAXDATEFIELDS];
	int nf, dtype = 0;
	dt_itm_in itm;
	int range = typmod >= 0 ? (typmod >> 16) & 0x7FFF : TY_INTERVAL_FULL_RANGE;
	int r = dt_parse_fields(str, workbuf, sizeof workbuf, field, ftype, DT_MAXDATEFIELDS, &nf);
	if (r == 0)
		r = dt_decode_interval(field, ftype, nf, range, &dtype, &itm);
	/* Not the postgres syntax: try ISO 8601. */
	if (r == DTERR_BAD_FORMAT)
		r = dt_decode_iso8601_interval(str, &dtype, &itm);
	if (r != 0) {
		if (r == DTERR_FIELD_OVERFLOW)
			r = DTERR_INTERVAL_OVERFLOW;
		dt_parse_error(r, str, "interval");
	}
	if (dtype != DTK_DELTA)
		ty_error(UTIL_E_INTERNAL_ERROR, "unexpected dtype %d while parsing interval \"%s\"", dtype,
			 str);
	ty_interval iv;
	if (dt_itmin2interval(&itm, &iv) != 0)
		dt_err_interval_range();
	dt_adjust_interval(&iv, typmod);
	return dt_interval_datum(&iv);
}

static void interval_out(ty_datum v, util_buf *out)
{
	ty_interval iv = dt_interval_get(v);
	dt_itm itm;
	dt_interval2itm(&iv, &itm);
	dt_encode_interval(&itm, (int)ty_get_settings()->intervalstyle, out);
}

static ty_datum interval_recv(const uint8_t *p, size_t len, int32_t typmod)
{
	if (len != 16)
		ty_error(UTIL_E_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
	ty_interval iv;
	iv.time = (int64_t)util_get_be64(p);
	iv.day = (int32_t)util_get_be32(p + 8);
	iv.month = (int32_t)util_get_be32(p + 12);
	dt_adjust_interval(&iv, typmod);
	return dt_interval_datum(&iv);
}

static void interval_send(ty_datum v, util_buf *out)
{
	ty_interval iv = dt_interval_get(v);
	util_buf_put_be64(out, (uint64_t)iv.time);
	util_buf_put_be32(out, (uint32_t)iv.day);
	util_buf_put_be32(out, (uint32_t)iv.month);
}

/* The linear value compared and hashed: µs with months as 30 days. */
static __int128 interval_value(const ty_interval *iv)
{
	return (__int128)iv->time + ((__int128)iv->month * 30 + iv->day) * DT_USECS_PER_DAY;
}

int dt_interval_cmp(const ty_interval *a, const ty_interval *b)
{
	__int128 x = interval_value(a), y = interval_value(b);
	return x < y ? -1 : x > y;
}

static int interval_cmp(ty_datum a, ty_datum b)
{
	ty_interval x = dt_interval_get(a), y = dt_interval_get(b);
	return dt_interval_cmp(&x, &y);
}

static uint64_t interval_hash(ty_datum a)
{
	ty_interval x = dt_interval_get(a);
	__int128 v = interval_value(&x);
	uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
	return util_hash_mix(lo ^ util_hash_mix(hi));
}

/* Key: the 128-bit linear value, big-endian with the sign flipped. Lossy:
 * the month/day/time split is not kept (docs/key-encoding-datetime.md). */
static void interval_keyenc(ty_datum v, util_buf *out)
{
	ty_interval x = dt_interval_get(v);
	__int128 val = interval_value(&x);
	uint64_t hi = (uint64_t)(val >> 64) ^ (UINT64_C(1) << 63), lo = (uint64_t)val;
	util_buf_put_be64(out, hi);
	util_buf_put_be64(out, lo);
}

static size_t interval_keydec(const uint8_t *p, const uint8_t *end, ty_datum *out)
{
	if (end - p < 16)
		return 0;
	uint64_t hi = util_get_be64(p) ^ (UINT64_C(1) << 63), lo = util_get_be64(p + 8);
	__int128 v = (__int128)(((unsigned __int128)hi << 64) | lo);
	/* Rebuild an interval with the same linear value: whole days into
	 * months and days, the remainder as time. */
	__int128 days = v / DT_USECS_PER_DAY, rem = v % DT_USECS_PER_DAY;
	if (rem < 0) {
		rem += DT_USECS_PER_DAY;
		days--;
	}
	__int128 months = days / 30;
	if (months > INT32_MAX)
		months = INT32_MAX;
	if (months < INT32_MIN)
		months = INT32_MIN;
	days -= months * 30;
	__int128 d = days;
	if (d > INT32_MAX)
		d = INT32_MAX;
	if (d < INT32_MIN)
		d = INT32_MIN;
	days -= d;
	ty_interval iv = {(int64_t)(rem + days * DT_USECS_PER_DAY), (int32_t)d, (int32_t)months};
	*out = dt_interval_datum(&iv);
	return 16;
}

static ty_datum interval_typmod(ty_datum v, int32_t typmod, bool explicit_cast)
{
	(void)explicit_cast;
	ty_interval iv = dt_interval_get(v);
	dt_adjust_interval(&iv, typmod);
	return dt_interval_datum(&iv);
}

static void interval_typmodout(int32_t typmod, util_buf *out)
{
	if (typmod < 0)
		return;
	int fields = (typmod >> 16) & 0x7FFF, precision = typmod & 0xFFFF;
	const int Y = TY_INTERVAL_YEAR, M = TY_INTERVAL_MONTH, D = TY_INTERVAL_DAY, H = TY_INTERVAL_HOUR,
		  MI = TY_INTERVAL_MINUTE, S = TY_INTERVAL_SECOND;
	const char *f = "";
	if (fields == Y)
		f = " year";
	else if (fields == M)
		f = " month";
	else if (fields == D)
		f = " day";
	else if (fields == H)
		f = " hour";
	else if (fields == MI)
		f = " minute";
	else if (fields == S)
		f = " second";
	else if (fields == (Y | M))
		f = " year to month";
	else if (fields == (D | H))
		f = " day to hour";
	else if (fields == (D | H | MI))
		f = " day to minute";
	else if (fields == (D | H | MI | S))
		f = " day to second";
	else if (fields == (H | MI))
		f = " hour to minute";
	else if (fields == (H | MI | S))
		f = " hour to second";
	else if (fields == (MI | S))
		f = " minute to second";
	util_buf_puts(out, f);
	if (precision != TY_INTERVAL_FULL_PRECISION)
		util_buf_printf(out, "(%d)", precision);
}

/* ---------------------------------------------------------------- arithmetic */

ty_interval dt_interval_um(const ty_interval *a)
{
	if (a->time == INT64_MIN || a->day == INT32_MIN || a->month == INT32_MIN)
		dt_err_interval_range();
	ty_interval r = {-a->time, -a->day, -a->month};
	return r;
}

ty_interval dt_interval_pl(const ty_interval *a, const ty_interval *b)
{
	ty_interval r;
	if (dt_add32(a->month, b->month, &r.month) || dt_add32(a->day, b->day, &r.day) ||
	    dt_add64(a->time, b->time, &r.time))
		dt_err_interval_range();
	return r;
}

static ty_interval interval_mi(const ty_interval *a, const ty_interval *b)
{
	ty_interval r;
	if (__builtin_sub_overflow(a->month, b->month, &r.month) ||
	    __builtin_sub_overflow(a->day, b->day, &r.day) || dt_sub64(a->time, b->time, &r.time))
		dt_err_interval_range();
	return r;
}

#define FITS_INT32(x) ((x) >= (double)INT32_MIN && (x) < -(double)INT32_MIN)
#define FITS_INT64(x) ((x) >= (double)INT64_MIN && (x) < -(double)INT64_MIN)
#define TSROUND(x)    (rint((double)(x)*1000000.0) / 1000000.0)

/* Multiplies (div = false) or divides by f; fractions of months and days
 * cascade down to days and seconds, never up. */
static ty_interval interval_scale_by(const ty_interval *a, double f, bool div)
{
	ty_interval r;
	double m = div ? a->month / f : a->month * f;
	if (isnan(m) || !FITS_INT32(m))
		dt_err_interval_range();
	r.month = (int32_t)m;
	double d = div ? a->day / f : a->day * f;
	if (isnan(d) || !FITS_INT32(d))
		dt_err_interval_range();
	r.day = (int32_t)d;
	double month_rem_days = ((div ? a->month / f : a->month * f) - r.month) * DT_DAYS_PER_MONTH;
	month_rem_days = TSROUND(month_rem_days);
	double sec_rem = ((div ? a->day / f : a->day * f) - r.day + month_rem_days - (int)month_rem_days) *
			 DT_SECS_PER_DAY;
	sec_rem = TSROUND(sec_rem);
	if (fabs(sec_rem) >= DT_SECS_PER_DAY) {
		if (dt_add32(r.day, (int)(sec_rem / DT_SECS_PER_DAY), &r.day))
			dt_err_interval_range();
		sec_rem -= (int)(sec_rem / DT_SECS_PER_DAY) * DT_SECS_PER_DAY;
	}
	if (dt_add32(r.day, (int32_t)month_rem_days, &r.day))
		dt_err_interval_range();
	double t = rint((div ? (double)a->time / f : (double)a->time * f) + sec_rem * DT_USECS_PER_SEC);
	if (isnan(t) || !FITS_INT64(t))
		dt_err_interval_range();
	r.time = (int64_t)t;
	return r;
}

ty_interval dt_interval_mul(const ty_interval *a, double f)
{
	return interval_scale_by(a, f, false);
}

ty_interval dt_interval_justify_hours(const ty_interval *a)
{
	ty_interval r = *a;
	int64_t whole = r.time / DT_USECS_PER_DAY;
	r.time -= whole * DT_USECS_PER_DAY;
	if (dt_add32(r.day, (int32_t)whole, &r.day))
		dt_err_interval_range();
	if (r.day > 0 && r.time < 0) {
		r.time += DT_USECS_PER_DAY;
		r.day--;
	} else if (r.day < 0 && r.time > 0) {
		r.time -= DT_USECS_PER_DAY;
		r.day++;
	}
	return r;
}

static ty_interval justify_days(const ty_interval *a)
{
	ty_interval r = *a;
	int32_t whole = r.day / DT_DAYS_PER_MONTH;
	r.day -= whole * DT_DAYS_PER_MONTH;
	if (dt_add32(r.month, whole, &r.month))
		dt_err_interval_range();
	if (r.month > 0 && r.day < 0) {
		r.day += DT_DAYS_PER_MONTH;
		r.month--;
	} else if (r.month < 0 && r.day > 0) {
		r.day -= DT_DAYS_PER_MONTH;
		r.month++;
	}
	return r;
}

static ty_interval justify_interval(const ty_interval *a)
{
	ty_interval r = *a;
	if ((r.day > 0 && r.time > 0) || (r.day < 0 && r.time < 0)) {
		int32_t whole = r.day / DT_DAYS_PER_MONTH;
		r.day -= whole * DT_DAYS_PER_MONTH;
		if (dt_add32(r.month, whole, &r.month))
			dt_err_interval_range();
	}
	int64_t wholeday = r.time / DT_USECS_PER_DAY;
	r.time -= wholeday * DT_USECS_PER_DAY;
	r.day += (int32_t)wholeday;
	int32_t wholemonth = r.day / DT_DAYS_PER_MONTH;
	r.day -= wholemonth * DT_DAYS_PER_MONTH;
	if (dt_add32(r.month, wholemonth, &r.month))
		dt_err_interval_range();
	if (r.month > 0 && (r.day < 0 || (r.day == 0 && r.time < 0))) {
		r.day += DT_DAYS_PER_MONTH;
		r.month--;
	} else if (r.month < 0 && (r.day > 0 || (r.day == 0 && r.time > 0))) {
		r.day -= DT_DAYS_PER_MONTH;
		r.month++;
	}
	if (r.day > 0 && r.time < 0) {
		r.time += DT_USECS_PER_DAY;
		r.day--;
	} else if (r.day < 0 && r.time > 0) {
		r.time -= DT_USECS_PER_DAY;
		r.day++;
	}
	return r;
}

/* ---------------------------------------------------------------- SQL functions */

#define IVA(n) dt_interval_get(DT_A(n))
#define IVCMP  (dt_interval_cmp(&(ty_interval){IVA(0)}, &(ty_interval){IVA(1)}))

static int iv_cmp2(ty_fcinfo *fc)
{
	ty_interval a = IVA(0), b = IVA(1);
	return dt_interval_cmp(&a, &b);
}

static DT_FN(interval_eq)
{
	return ty_bool(iv_cmp2(fc) == 0);
}
static DT_FN(interval_ne)
{
	return ty_bool(iv_cmp2(fc) != 0);
}
static DT_FN(interval_lt)
{
	return ty_bool(iv_cmp2(fc) < 0);
}
static DT_FN(interval_le)
{
	return ty_bool(iv_cmp2(fc) <= 0);
}
static DT_FN(interval_gt)
{
	return ty_bool(iv_cmp2(fc) > 0);
}
static DT_FN(interval_ge)
{
	return ty_bool(iv_cmp2(fc) >= 0);
}
static DT_FN(interval_cmp)
{
	return ty_int(iv_cmp2(fc));
}
static DT_FN(interval_larger)
{
	return iv_cmp2(fc) > 0 ? DT_A(0) : DT_A(1);
}
static DT_FN(interval_smaller)
{
	return iv_cmp2(fc) < 0 ? DT_A(0) : DT_A(1);
}
static DT_FN(interval_hash)
{
	return ty_int((int32_t)interval_hash(DT_A(0)));
}

static DT_FN(interval_in)
{
	return interval_in(DT_A(0).p, DT_A(0).len, fc->nargs > 2 ? (int32_t)DT_I(2) : -1);
}
static DT_FN(interval_out)
{
	util_buf b = UTIL_BUF_INIT;
	interval_out(DT_A(0), &b);
	ty_datum r = ty_textn(b.data ? b.data : "", b.len);
	util_buf_free(&b);
	return r;
}

static DT_FN(interval_um)
{
	ty_interval a = IVA(0), r = dt_interval_um(&a);
	return dt_interval_datum(&r);
}
static DT_FN(interval_pl)
{
	ty_interval a = IVA(0), b = IVA(1), r = dt_interval_pl(&a, &b);
	return dt_interval_datum(&r);
}
static DT_FN(interval_mi)
{
	ty_interval a = IVA(0), b = IVA(1), r = interval_mi(&a, &b);
	return dt_interval_datum(&r);
}
static DT_FN(interval_mul)
{
	ty_interval a = IVA(0), r = interval_scale_by(&a, DT_F(1), false);
	return dt_interval_datum(&r);
}
static DT_FN(mul_d_interval)
{
	ty_interval a = IVA(1), r = interval_scale_by(&a, DT_F(0), false);
	return dt_interval_datum(&r);
}
static DT_FN(interval_div)
{
	if (DT_F(1) == 0.0)
		ty_error(UTIL_E_DIVISION_BY_ZERO, "division by zero");
	ty_interval a = IVA(0), r = interval_scale_by(&a, DT_F(1), true);
	return dt_interval_datum(&r);
}
static DT_FN(interval_justify_hours)
{
	ty_interval a = IVA(0), r = dt_interval_justify_hours(&a);
	return dt_interval_datum(&r);
}
static DT_FN(interval_justify_days)
{
	ty_interval a = IVA(0), r = justify_days(&a);
	return dt_interval_datum(&r);
}
static DT_FN(interval_justify_interval)
{
	ty_interval a = IVA(0), r = justify_interval(&a);
	return dt_interval_datum(&r);
}
static DT_FN(interval_finite)
{
	return ty_bool(true);
}
static DT_FN(interval_scale)
{
	ty_interval a = IVA(0);
	dt_adjust_interval(&a, (int32_t)DT_I(1));
	return dt_interval_datum(&a);
}

/* ---------------------------------------------------------------- aggregates */

/* sum(interval) and avg(interval): a running sum and a count; removal
 * supports moving window frames. */
typedef struct iv_acc {
	ty_interval sum;
	int64_t n;
} iv_acc;

static void acc_step(void *state, ty_fcinfo *fc)
{
	iv_acc *s = state;
	ty_interval v = IVA(0);
	s->sum = dt_interval_pl(&s->sum, &v);
	s->n++;
}

static void acc_inverse(void *state, ty_fcinfo *fc)
{
	iv_acc *s = state;
	ty_interval v = IVA(0);
	s->sum = interval_mi(&s->sum, &v);
	s->n--;
}

static void acc_combine(void *state, const void *other)
{
	iv_acc *s = state;
	const iv_acc *o = other;
	s->sum = dt_interval_pl(&s->sum, &o->sum);
	s->n += o->n;
}

static ty_datum sum_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	iv_acc *s = state;
	if (s->n == 0)
		return ty_null();
	return dt_interval_datum(&s->sum);
}

static ty_datum avg_final(void *state, ty_fcinfo *fc)
{
	(void)fc;
	iv_acc *s = state;
	if (s->n == 0)
		return ty_null();
	ty_interval r = interval_scale_by(&s->sum, (double)s->n, true);
	return dt_interval_datum(&r);
}

/* ---------------------------------------------------------------- registration */

static const ty_type interval_type = {.oid = TY_INTERVAL,
				      .name = "interval",
				      .len = 16,
				      .byval = false,
				      .category = 'T',
				      .preferred = true,
				      .typtype = 'b',
				      .align = 'd',
				      .array = TY_INTERVAL_ARRAY,
				      .in = interval_in,
				      .out = interval_out,
				      .recv = interval_recv,
				      .send = interval_send,
				      .cmp = interval_cmp,
				      .hash = interval_hash,
				      .keyenc = interval_keyenc,
				      .keydec = interval_keydec,
				      .key_lossy = true,
				      .typmod_apply = interval_typmod,
				      .typmod_out = interval_typmodout,
				      .input_name = "interval_in",
				      .output_name = "interval_out"};

#define IV TY_INTERVAL
#define B  TY_BOOL
#define F8 TY_FLOAT8

static const ty_func iv_funcs[] = {
    DTF("interval_in", 1160, interval_in, 's', IV, 3, TY_CSTRING, TY_OID, TY_INT4),
    DTF("interval_out", 1161, interval_out, 's', TY_CSTRING, 1, IV),
    DTF("interval_eq", 1162, interval_eq, 'i', B, 2, IV, IV),
    DTF("interval_ne", 1163, interval_ne, 'i', B, 2, IV, IV),
    DTF("interval_lt", 1164, interval_lt, 'i', B, 2, IV, IV),
    DTF("interval_le", 1165, interval_le, 'i', B, 2, IV, IV),
    DTF("interval_gt", 1167, interval_gt, 'i', B, 2, IV, IV),
    DTF("interval_ge", 1166, interval_ge, 'i', B, 2, IV, IV),
    DTF("interval_cmp", 1315, interval_cmp, 'i', TY_INT4, 2, IV, IV),
    DTF("interval_hash", 1697, interval_hash, 'i', TY_INT4, 1, IV),
    DTF("interval_larger", 1198, interval_larger, 'i', IV, 2, IV, IV),
    DTF("interval_smaller", 1197, interval_smaller, 'i', IV, 2, IV, IV),
    DTF("interval_um", 1168, interval_um, 'i', IV, 1, IV),
    DTF("interval_pl", 1169, interval_pl, 'i', IV, 2, IV, IV),
    DTF("interval_mi", 1170, interval_mi, 'i', IV, 2, IV, IV),
    DTF("interval_mul", 1618, interval_mul, 'i', IV, 2, IV, F8),
    DTF("mul_d_interval", 1624, mul_d_interval, 'i', IV, 2, F8, IV),
    DTF("interval_div", 1326, interval_div, 'i', IV, 2, IV, F8),
    DTF("justify_hours", 1175, interval_justify_hours, 'i', IV, 1, IV),
    DTF("justify_days", 1295, interval_justify_days, 'i', IV, 1, IV),
    DTF("justify_interval", 2711, interval_justify_interval, 'i', IV, 1, IV),
    DTF("isfinite", 1390, interval_finite, 'i', B, 1, IV),
    DTF("interval", 1200, interval_scale, 'i', IV, 2, IV, TY_INT4),
};

static const ty_operator iv_ops[] = {
    DTOP("=", IV, IV, B, "interval_eq", "=", "<>"),     DTOP("<>", IV, IV, B, "interval_ne", "<>", "="),
    DTOP("<", IV, IV, B, "interval_lt", ">", ">="),     DTOP("<=", IV, IV, B, "interval_le", ">=", ">"),
    DTOP(">", IV, IV, B, "interval_gt", "<", "<="),     DTOP(">=", IV, IV, B, "interval_ge", "<=", "<"),
    DTOP("-", 0, IV, IV, "interval_um", NULL, NULL),    DTOP("+", IV, IV, IV, "interval_pl", "+", NULL),
    DTOP("-", IV, IV, IV, "interval_mi", NULL, NULL),   DTOP("*", IV, F8, IV, "interval_mul", "*", NULL),
    DTOP("*", F8, IV, IV, "mul_d_interval", "*", NULL), DTOP("/", IV, F8, IV, "interval_div", NULL, NULL),
};

static const ty_agg iv_aggs[] = {
    {.name = "sum",
     .nargs = 1,
     .args = {IV},
     .ret = IV,
     .strict = true,
     .state_size = sizeof(iv_acc),
     .step = acc_step,
     .combine = acc_combine,
     .final = sum_final,
     .inverse = acc_inverse,
     .oid = 2113},
    {.name = "avg",
     .nargs = 1,
     .args = {IV},
     .ret = IV,
     .strict = true,
     .state_size = sizeof(iv_acc),
     .step = acc_step,
     .combine = acc_combine,
     .final = avg_final,
     .inverse = acc_inverse,
     .oid = 2106},
};

void dt_register_interval(void)
{
	ty_type_register(&interval_type);
	ty_func_register(iv_funcs, (int)UTIL_ARRAY_LEN(iv_funcs));
	ty_operator_register(iv_ops, (int)UTIL_ARRAY_LEN(iv_ops));
	ty_agg_register(iv_aggs, (int)UTIL_ARRAY_LEN(iv_aggs));
}
