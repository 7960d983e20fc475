/*
 * dt_encode.c — date/time text output as PostgreSQL's EncodeDateOnly,
 * EncodeTimeOnly, EncodeDateTime and EncodeInterval: DateStyle (ISO, SQL,
 * Postgres, German with MDY/DMY order), IntervalStyle (postgres,
 * postgres_verbose, sql_standard, iso_8601), zone offsets as +hh[:mm[:ss]],
 * fractional seconds without trailing zeros.
 */
#include "dt_int.h"

#include <stdlib.h>
#include <string.h>

const char *const dt_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
				 "Aug", "Sep", "Oct", "Nov", "Dec", NULL};
const char *const dt_days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", NULL};
const char *const dt_months_full[] = {"January",  "February", "March",  "April",     "May",
				      "June",     "July",     "August", "September", "October",
				      "November", "December", NULL};
const char *const dt_days_full[] = {"Sunday",   "Monday", "Tuesday",  "Wednesday",
				    "Thursday", "Friday", "Saturday", NULL};

/* Zero-padded decimal without printf (output is on the hot path of COPY TO
 * and result sets). */
static void pad(util_buf *out, long long v, int width)
{
	/* Months, days, hours, minutes, seconds and 4-digit years. */
	if (v >= 0 && v < 100 && width <= 2) {
		char d[2] = {(char)('0' + v / 10), (char)('0' + v % 10)};
		if (width == 2 || v >= 10)
			util_buf_append(out, d, 2);
		else
			util_buf_append(out, d + 1, 1);
		return;
	}
	if (v >= 1000 && v < 10000 && width <= 4) {
		char d[4] = {(char)('0' + v / 1000), (char)('0' + v / 100 % 10), (char)('0' + v / 10 % 10),
			     (char)('0' + v % 10)};
		util_buf_append(out, d, 4);
		return;
	}
	char tmp[32];
	int n = 0;
	bool neg = v < 0;
	unsigned long long u = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		width--;
	while (n < width && n < (int)sizeof tmp - 1)
		tmp[n++] = '0';
	if (neg)
		tmp[n++] = '-';
	char rev[32];
	for (int i = 0; i < n; i++)
		rev[i] = tmp[n - 1 - i];
	util_buf_append(out, rev, (size_t)n);
}

/* "hh:mm:" */
static void hhmm(util_buf *out, int h, int m)
{
	pad(out, h, 2);
	util_buf_putc(out, ':');
	pad(out, m, 2);
	util_buf_putc(out, ':');
}

/* Years print as 4+ digits, BC years counted from 1. */
static void year4(util_buf *out, int year)
{
	pad(out, year > 0 ? year : -(year - 1), 4);
}

void dt_append_seconds(util_buf *out, int sec, int32_t fsec, int precision, bool fillzeros)
{
	pad(out, abs(sec), fillzeros ? 2 : 1);
	if (fsec == 0)
		return;
	int32_t v = abs(fsec);
	char digits[16];
	int n = precision;
	/* The fraction has `precision` digits; trailing zeros are dropped. */
	for (int i = n - 1; i >= 0; i--) {
		digits[i] = (char)('0' + v % 10);
		v /= 10;
	}
	if (v) {
		/* Did not fit: print the whole value, as PostgreSQL does. */
		util_buf_printf(out, ".%d", abs(fsec));
		return;
	}
	while (n > 0 && digits[n - 1] == '0')
		n--;
	util_buf_putc(out, '.');
	util_buf_append(out, digits, (size_t)n);
}

void dt_encode_timezone(int tz, bool xsd, util_buf *out)
{
	int sec = abs(tz);
	int min = sec / 60;
	sec -= min * 60;
	int hour = min / 60;
	min -= hour * 60;
	/* tz counts seconds west: the sign shown is the opposite. */
	util_buf_putc(out, tz <= 0 ? '+' : '-');
	pad(out, hour, 2);
	if (sec != 0 || min != 0 || xsd) {
		util_buf_putc(out, ':');
		pad(out, min, 2);
	}
	if (sec != 0) {
		util_buf_putc(out, ':');
		pad(out, sec, 2);
	}
}

void dt_encode_date(const dt_tm *tm, int style, util_buf *out)
{
	int order = (int)ty_get_settings()->dateorder;
	switch (style) {
	case TY_DATES_ISO:
		year4(out, tm->year);
		util_buf_putc(out, '-');
		pad(out, tm->mon, 2);
		util_buf_putc(out, '-');
		pad(out, tm->mday, 2);
		break;
	case TY_DATES_SQL:
		if (order == TY_ORDER_DMY)
			util_buf_printf(out, "%02d/%02d", tm->mday, tm->mon);
		else
			util_buf_printf(out, "%02d/%02d", tm->mon, tm->mday);
		util_buf_putc(out, '/');
		year4(out, tm->year);
		break;
	case TY_DATES_GERMAN:
		util_buf_printf(out, "%02d.%02d.", tm->mday, tm->mon);
		year4(out, tm->year);
		break;
	default:
		if (order == TY_ORDER_DMY)
			util_buf_printf(out, "%02d-%02d", tm->mday, tm->mon);
		else
			util_buf_printf(out, "%02d-%02d", tm->mon, tm->mday);
		util_buf_putc(out, '-');
		year4(out, tm->year);
		break;
	}
	if (tm->year <= 0)
		util_buf_puts(out, " BC");
}

void dt_encode_time(const dt_tm *tm, int32_t fsec, bool print_tz, int tz, util_buf *out)
{
	hhmm(out, tm->hour, tm->min);
	dt_append_seconds(out, tm->sec, fsec, DT_MAX_TIME_PRECISION, true);
	if (print_tz)
		dt_encode_timezone(tz, false, out);
}

static void zone_name(util_buf *out, const char *tzn)
{
	util_buf_printf(out, " %.*s", DT_MAXTZLEN, tzn);
}

static char *two(char *p, int v)
{
	p[0] = (char)('0' + v / 10);
	p[1] = (char)('0' + v % 10);
	return p + 2;
}

/* "yyyy-mm-dd" of a year 1..9999 and 2-digit month and day. */
static char *iso_date(char *p, int year, int mon, int mday)
{
	p = two(p, year / 100);
	p = two(p, year % 100);
	*p++ = '-';
	p = two(p, mon);
	*p++ = '-';
	return two(p, mday);
}

/* " hh:mm:ss[.ffffff]", the fraction's trailing zeros dropped. */
static char *iso_time(char *p, int hour, int min, int sec, int32_t fsec)
{
	*p++ = ' ';
	p = two(p, hour);
	*p++ = ':';
	p = two(p, min);
	*p++ = ':';
	p = two(p, sec);
	if (fsec) {
		/* All six digits (three two-digit steps), then the trailing
		 * zeros dropped: fsec is not 0, so at least one digit stays. */
		*p++ = '.';
		two(p, fsec / 10000);
		two(p + 2, fsec / 100 % 100);
		two(p + 4, fsec % 100);
		int n = 6;
		while (p[n - 1] == '0')
			n--;
		p += n;
	}
	return p;
}

/* ISO DateStyle for years 1..9999 with in-range fields (every ordinary
 * timestamp): the text is built on the stack and appended once, instead of
 * a buffer call per field (timestamp output was 13% of the CPU of r2, a
 * LIMIT 20 reverse scan; docs/performance.md). The same text as the general
 * path below, which takes everything else (BC, 5-digit years). */
static bool iso_fast(const dt_tm *tm, int32_t fsec, bool print_tz, int tz, util_buf *out)
{
	if (tm->year < 1 || tm->year > 9999 || tm->mon < 0 || tm->mon > 99 || tm->mday < 0 || tm->mday > 99 ||
	    tm->hour < 0 || tm->hour > 99 || tm->min < 0 || tm->min > 99 || tm->sec < 0 || tm->sec > 99 ||
	    fsec < 0 || fsec >= 1000000 || tz <= -100 * 3600 || tz >= 100 * 3600)
		return false;
	char b[48], *p = iso_date(b, tm->year, tm->mon, tm->mday);
	p = iso_time(p, tm->hour, tm->min, tm->sec, fsec);
	if (print_tz) {
		/* As dt_encode_timezone: tz counts seconds west. */
		int sec = abs(tz), hour = sec / 3600, min = sec / 60 % 60;
		sec %= 60;
		*p++ = tz <= 0 ? '+' : '-';
		p = two(p, hour);
		if (sec || min) {
			*p++ = ':';
			p = two(p, min);
		}
		if (sec) {
			*p++ = ':';
			p = two(p, sec);
		}
	}
	util_buf_append(out, b, (size_t)(p - b));
	return true;
}

/* The date text of the last day printed by this thread: result sets list
 * many timestamps of the same day, and the calendar conversion is the
 * larger part of the rest. */
static _Thread_local struct {
	int64_t day; /* days since 2000-01-01; INT64_MIN: none yet */
	bool ok;     /* year 1..9999 */
	char text[10];
} last_day = {INT64_MIN, false, {0}};

bool dt_encode_timestamp_iso(int64_t ts, util_buf *out)
{
	int64_t day = ts / DT_USECS_PER_DAY, time = ts - day * DT_USECS_PER_DAY;
	if (time < 0) {
		time += DT_USECS_PER_DAY;
		day--;
	}
	if (day != last_day.day) {
		int64_t jd = day + DT_POSTGRES_EPOCH_JDATE;
		if (jd < 0 || jd > INT32_MAX)
			return false;
		int y, m, d;
		dt_j2date((int)jd, &y, &m, &d);
		last_day.day = day;
		last_day.ok = y >= 1 && y <= 9999;
		if (last_day.ok)
			iso_date(last_day.text, y, m, d);
	}
	if (!last_day.ok)
		return false;
	int64_t secs = time / DT_USECS_PER_SEC;
	char b[32];
	memcpy(b, last_day.text, 10);
	char *p = iso_time(b + 10, (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60),
			   (int32_t)(time - secs * DT_USECS_PER_SEC));
	util_buf_append(out, b, (size_t)(p - b));
	return true;
}

void dt_encode_datetime(dt_tm *tm, int32_t fsec, bool print_tz, int tz, const char *tzn, int style,
			util_buf *out)
{
	if (tm->isdst < 0)
		print_tz = false;
	if (style == TY_DATES_ISO && iso_fast(tm, fsec, print_tz, tz, out))
		return;
	int order = (int)ty_get_settings()->dateorder;
	switch (style) {
	case TY_DATES_ISO:
		year4(out, tm->year);
		util_buf_putc(out, '-');
		pad(out, tm->mon, 2);
		util_buf_putc(out, '-');
		pad(out, tm->mday, 2);
		util_buf_putc(out, ' ');
		hhmm(out, tm->hour, tm->min);
		dt_append_seconds(out, tm->sec, fsec, DT_MAX_TIMESTAMP_PRECISION, true);
		if (print_tz)
			dt_encode_timezone(tz, false, out);
		break;
	case TY_DATES_SQL:
		if (order == TY_ORDER_DMY)
			util_buf_printf(out, "%02d/%02d/", tm->mday, tm->mon);
		else
			util_buf_printf(out, "%02d/%02d/", tm->mon, tm->mday);
		year4(out, tm->year);
		util_buf_printf(out, " %02d:%02d:", tm->hour, tm->min);
		dt_append_seconds(out, tm->sec, fsec, DT_MAX_TIMESTAMP_PRECISION, true);
		if (print_tz) {
			if (tzn)
				zone_name(out, tzn);
			else
				dt_encode_timezone(tz, false, out);
		}
		break;
	case TY_DATES_GERMAN:
		util_buf_printf(out, "%02d.%02d.", tm->mday, tm->mon);
		year4(out, tm->year);
		util_buf_printf(out, " %02d:%02d:", tm->hour, tm->min);
		dt_append_seconds(out, tm->sec, fsec, DT_MAX_TIMESTAMP_PRECISION, true);
		if (print_tz) {
			if (tzn)
				zone_name(out, tzn);
			else
				dt_encode_timezone(tz, false, out);
		}
		break;
	default:
		tm->wday = dt_j2day(dt_date2j(tm->year, tm->mon, tm->mday));
		util_buf_printf(out, "%s ", dt_days[tm->wday]);
		if (order == TY_ORDER_DMY)
			util_buf_printf(out, "%02d %s", tm->mday, dt_months[tm->mon - 1]);
		else
			util_buf_printf(out, "%s %02d", dt_months[tm->mon - 1], tm->mday);
		util_buf_printf(out, " %02d:%02d:", tm->hour, tm->min);
		dt_append_seconds(out, tm->sec, fsec, DT_MAX_TIMESTAMP_PRECISION, true);
		util_buf_putc(out, ' ');
		year4(out, tm->year);
		if (print_tz) {
			if (tzn) {
				zone_name(out, tzn);
			} else {
				util_buf_putc(out, ' ');
				dt_encode_timezone(tz, false, out);
			}
		}
		break;
	}
	if (tm->year <= 0)
		util_buf_puts(out, " BC");
}

static void iso_part(util_buf *out, int64_t v, char unit)
{
	if (v != 0)
		util_buf_printf(out, "%lld%c", (long long)v, unit);
}

static void postgres_part(util_buf *out, int64_t v, const char *units, bool *is_zero, bool *is_before)
{
	if (v == 0)
		return;
	util_buf_printf(out, "%s%s%lld %s%s", !*is_zero ? " " : "", (*is_before && v > 0) ? "+" : "",
			(long long)v, units, v != 1 ? "s" : "");
	/* Each nonzero field decides the sign marking of (only) the next one. */
	*is_before = v < 0;
	*is_zero = false;
}

static void verbose_part(util_buf *out, int64_t v, const char *units, bool *is_zero, bool *is_before)
{
	if (v == 0)
		return;
	if (*is_zero) {
		*is_before = v < 0;
		v = llabs(v);
	} else if (*is_before) {
		v = -v;
	}
	util_buf_printf(out, " %lld %s%s", (long long)v, units, v == 1 ? "" : "s");
	*is_zero = false;
}

void dt_encode_interval(const dt_itm *itm, int style, util_buf *out)
{
	int year = itm->year, mon = itm->mon, min = itm->min, sec = itm->sec, fsec = itm->usec;
	int64_t mday = itm->mday, hour = itm->hour;
	bool is_before = false, is_zero = true;
	switch (style) {
	case TY_INTERVAL_SQL_STANDARD: {
		bool has_neg = year < 0 || mon < 0 || mday < 0 || hour < 0 || min < 0 || sec < 0 || fsec < 0;
		bool has_pos = year > 0 || mon > 0 || mday > 0 || hour > 0 || min > 0 || sec > 0 || fsec > 0;
		bool has_ym = year != 0 || mon != 0;
		bool has_dt = mday != 0 || hour != 0 || min != 0 || sec != 0 || fsec != 0;
		bool standard = !(has_neg && has_pos) && !(has_ym && has_dt);
		if (has_neg && standard) {
			util_buf_putc(out, '-');
			year = -year, mon = -mon, mday = -mday, hour = -hour, min = -min, sec = -sec,
			fsec = -fsec;
		}
		if (!has_neg && !has_pos) {
			util_buf_putc(out, '0');
		} else if (!standard) {
			char ys = (year < 0 || mon < 0) ? '-' : '+';
			char ds = mday < 0 ? '-' : '+';
			char ss = (hour < 0 || min < 0 || sec < 0 || fsec < 0) ? '-' : '+';
			util_buf_printf(out, "%c%d-%d %c%lld %c%lld:%02d:", ys, abs(year), abs(mon), ds,
					(long long)llabs(mday), ss, (long long)llabs(hour), abs(min));
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, true);
		} else if (has_ym) {
			util_buf_printf(out, "%d-%d", year, mon);
		} else if (mday != 0) {
			util_buf_printf(out, "%lld %lld:%02d:", (long long)mday, (long long)hour, min);
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, true);
		} else {
			util_buf_printf(out, "%lld:%02d:", (long long)hour, min);
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, true);
		}
		break;
	}
	case TY_INTERVAL_ISO_8601:
		if (year == 0 && mon == 0 && mday == 0 && hour == 0 && min == 0 && sec == 0 && fsec == 0) {
			util_buf_puts(out, "PT0S");
			break;
		}
		util_buf_putc(out, 'P');
		iso_part(out, year, 'Y');
		iso_part(out, mon, 'M');
		iso_part(out, mday, 'D');
		if (hour != 0 || min != 0 || sec != 0 || fsec != 0)
			util_buf_putc(out, 'T');
		iso_part(out, hour, 'H');
		iso_part(out, min, 'M');
		if (sec != 0 || fsec != 0) {
			if (sec < 0 || fsec < 0)
				util_buf_putc(out, '-');
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, false);
			util_buf_putc(out, 'S');
		}
		break;
	case TY_INTERVAL_POSTGRES:
		postgres_part(out, year, "year", &is_zero, &is_before);
		postgres_part(out, mon, "mon", &is_zero, &is_before);
		postgres_part(out, mday, "day", &is_zero, &is_before);
		if (is_zero || hour != 0 || min != 0 || sec != 0 || fsec != 0) {
			bool minus = hour < 0 || min < 0 || sec < 0 || fsec < 0;
			util_buf_printf(out, "%s%s%02lld:%02d:", is_zero ? "" : " ",
					minus ? "-" : (is_before ? "+" : ""), (long long)llabs(hour),
					abs(min));
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, true);
		}
		break;
	default:
		util_buf_putc(out, '@');
		verbose_part(out, year, "year", &is_zero, &is_before);
		verbose_part(out, mon, "mon", &is_zero, &is_before);
		verbose_part(out, mday, "day", &is_zero, &is_before);
		verbose_part(out, hour, "hour", &is_zero, &is_before);
		verbose_part(out, min, "min", &is_zero, &is_before);
		if (sec != 0 || fsec != 0) {
			util_buf_putc(out, ' ');
			if (sec < 0 || (sec == 0 && fsec < 0)) {
				if (is_zero)
					is_before = true;
				else if (!is_before)
					util_buf_putc(out, '-');
			} else if (is_before) {
				util_buf_putc(out, '-');
			}
			dt_append_seconds(out, sec, fsec, DT_MAX_INTERVAL_PRECISION, false);
			util_buf_printf(out, " sec%s", (abs(sec) != 1 || fsec != 0) ? "s" : "");
			is_zero = false;
		}
		if (is_zero)
			util_buf_puts(out, " 0");
		if (is_before)
			util_buf_puts(out, " ago");
		break;
	}
}
