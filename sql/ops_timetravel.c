/*
 * ops_timetravel.c — reads as of a past timestamp: the session setting
 * strata.read_as_of. While it is set, every statement reads the store at
 * that timestamp and the transaction is read-only; a scan of a table whose
 * retention window does not reach back that far fails with 72000
 * (snapshot too old) instead of returning rows compactions may have thinned.
 *
 * Accepted values: '' (off), a timestamptz literal ('2026-11-21 10:00:00+00',
 * read with the session's DateStyle and TimeZone), an interval relative to
 * now ('-5 minutes', '1 hour ago'), or microseconds since the Unix epoch
 * (the store's timestamps, as strata_backup() reports them). SHOW gives the
 * resolved time in UTC with microseconds, so it reads back unchanged.
 *
 * The catalog is the current one: a table created after the timestamp reads
 * as empty, a dropped or truncated table's old rows are gone (see
 * docs/operations.md).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datetime.h"
#include "ops.h"

/* "YYYY-MM-DD HH:MM:SS.ffffff+00" from µs since the Unix epoch. */
static void format_utc(kv_ts us, util_buf *out)
{
	time_t secs = (time_t)(us / 1000000);
	struct tm tm;
	gmtime_r(&secs, &tm);
	util_buf_printf(out, "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", tm.tm_year + 1900, tm.tm_mon + 1,
			tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(us % 1000000));
}

/* The inverse of format_utc (the canonical value); 0 if malformed. */
static kv_ts parse_utc(const char *v)
{
	int y, mo, d, h, mi, sec, us;
	if (sscanf(v, "%d-%d-%d %d:%d:%d.%6d+00", &y, &mo, &d, &h, &mi, &sec, &us) != 7)
		return 0;
	struct tm tm = {
	    .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec};
	time_t t = timegm(&tm);
	if (t < 0)
		return 0;
	return (kv_ts)t * 1000000 + (kv_ts)us;
}

static bool all_digits(const char *p)
{
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

typedef struct parse_arg {
	const char *in;
	int64_t unix_us;
} parse_arg;

static void parse_timestamptz(void *arg)
{
	parse_arg *a = arg;
	a->unix_us = ty_ts_to_unix_us(ty_dt_parse_timestamptz(a->in));
}

static void parse_interval(void *arg)
{
	parse_arg *a = arg;
	ty_datum d = ty_input(TY_INTERVAL, a->in, strlen(a->in), -1);
	const ty_interval *iv = d.p;
	/* Months count as 30 days here: relative values are for "a while ago". */
	a->unix_us = util_now_us() + iv->time +
		     ((int64_t)iv->day + 30 * (int64_t)iv->month) * 86400 * INT64_C(1000000);
}

int sql_asof_check(sql_session *s, const char *in, util_buf *out, util_err *err)
{
	while (isspace((unsigned char)*in))
		in++;
	if (!*in || !util_strcasecmp(in, "off") || !util_strcasecmp(in, "default"))
		return 0;
	parse_arg a = {in, 0};
	util_err ignore;
	if (all_digits(in)) {
		a.unix_us = strtoll(in, NULL, 10);
	} else if (ty_protect(parse_timestamptz, &a, &ignore) != 0 &&
		   ty_protect(parse_interval, &a, &ignore) != 0) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "invalid value for parameter \"strata.read_as_of\": \"%s\"", in);
		util_err_hint(
		    err, "Use a timestamp with time zone, an interval before now such as '-5 minutes', or "
			 "microseconds since the Unix epoch; '' turns time travel off.");
		return -1;
	}
	if (a.unix_us <= 0) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "strata.read_as_of must be after 1970-01-01");
		return -1;
	}
	/* An idle store's read point lags the clock: bring it up to the moment
	 * (fails only for a moment in the future). */
	kv_status st = kv_read_point_wait(s->e->kv, (kv_ts)a.unix_us);
	if (st == KV_INVALID) {
		util_err_set(err, UTIL_E_INVALID_PARAMETER_VALUE,
			     "strata.read_as_of is in the future: \"%s\"", in);
		return -1;
	}
	if (st != KV_OK) {
		util_err_set(err, UTIL_E_IO_ERROR, "could not read as of \"%s\": %s", in, kv_errmsg());
		return -1;
	}
	format_utc((kv_ts)a.unix_us, out);
	return 0;
}

void sql_asof_assign(sql_session *s, const char *val)
{
	s->as_of_ts = val && *val ? parse_utc(val) : 0;
}

void sql_asof_stmt_begin(sql_txn *t)
{
	t->snapshot_ts = t->stmt_ts = t->s->as_of_ts;
	t->snapshot_taken = true;
	t->read_only = true;
}

void sql_ops_scan_open(sql_exec *ex, const cat_obj *rel)
{
	sql_session *s = ex->s;
	if (!s->as_of_ts || ex->read_ts != s->as_of_ts || !rel->rel.storage[0])
		return;
	kv_family_opts fo[16];
	int n = 0;
	if (kv_table_families(s->e->kv, rel->rel.storage, fo, 16, &n) != KV_OK)
		return; /* the scan reports the missing storage */
	int64_t now = util_now_us();
	for (int i = 0; i < n && i < 16; i++) {
		if ((int64_t)s->as_of_ts >= now - fo[i].retention_seconds * 1000000)
			continue;
		util_buf when = UTIL_BUF_INIT;
		format_utc(s->as_of_ts, &when);
		util_err *e =
		    ty_errstart(UTIL_E_SNAPSHOT_TOO_OLD,
				"cannot read table \"%s\" as of %s: it keeps history for %lld seconds",
				rel->rel.name, when.data, (long long)fo[i].retention_seconds);
		util_err_hint(
		    e,
		    "Raise the table's retention (ALTER TABLE ... SET (retention = SECONDS)) or the server's "
		    "history_retention before the history is needed.");
		util_buf_free(&when);
		ty_errthrow();
	}
}
