"""dt_cases_list.py — the date/time cases checked against PostgreSQL 15
(see gen_dt_cases.py). CASES is a list of
((datestyle, intervalstyle, timezone), function, [argtypes], [argtexts])."""

ISO = ("ISO, MDY", "postgres", "UTC")
CASES = []


def add(fn, types, args, settings=ISO):
    CASES.append((settings, fn, list(types), list(args)))


def inp(typ, text, settings=ISO):
    add("in:" + typ, [typ], [text], settings)


ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe"]
STYLES = ["ISO, MDY", "ISO, DMY", "SQL, MDY", "SQL, DMY", "Postgres, MDY", "Postgres, DMY", "German, DMY",
          "ISO, YMD", "Postgres, YMD"]
IVSTYLES = ["postgres", "postgres_verbose", "sql_standard", "iso_8601"]

# ---------------------------------------------------------------- date input
DATES = [
    "2021-02-03", "1999-01-08", "January 8, 1999", "1/8/1999", "1/18/1999", "18/1/1999", "01/02/03",
    "1999-Jan-08", "Jan-08-1999", "08-Jan-1999", "99-Jan-08", "08-Jan-99", "Jan-08-99", "19990108", "990108",
    "1999.008", "J2451187", "January 8, 99 BC", "2021-02-30", "2021-13-01", "2020-02-29", "2019-02-29",
    "0000-01-01", "0001-01-01 BC", "4714-11-24 BC", "4714-11-23 BC", "5874897-12-31", "5874898-01-01",
    "epoch", "infinity", "-infinity", "x", "", "2021-02-03 04:05:06", "2021-02-03T04:05:06Z",
    "2021-02-03 America/New_York", "12/31/1999", "31/12/1999", "1999-12-31 +05", "Feb 29 2000",
    "2000 Feb 29", "29 Feb 2000", "allballs", "today x", "1999-01-08 04:05:06 PST", "2001-02-03 bogus",
    " 2021-02-03 ", "2021-02-03 12:00 AD", "10-10-10", "100-10-10", "1-2-3", "2021/02/03", "2021.02.03",
    "20210203T040506", "Sat Feb 03 2001", "monday 2001-02-03",
]
for d in DATES:
    inp("date", d)
for s in ["ISO, DMY", "SQL, DMY", "ISO, YMD", "German, DMY", "Postgres, MDY"]:
    for d in ["01/02/03", "1/18/1999", "18/1/1999", "10-10-10", "1999-01-08", "08-Jan-99", "99-Jan-08"]:
        inp("date", d, (s, "postgres", "UTC"))
for s in STYLES:
    for d in ["2021-02-03", "0044-03-15 BC", "infinity", "0001-01-01"]:
        inp("date", d, (s, "postgres", "UTC"))

# ---------------------------------------------------------------- timestamp input
TS = [
    "2021-02-03 04:05:06", "2021-02-03 04:05:06.789", "2021-02-03 04:05:06.1234567", "2021-02-03T04:05:06",
    "2021-02-03 04:05", "2021-02-03 4:05pm", "2021-02-03 12:00 am", "2021-02-03 12:00 pm", "2021-02-03 13:00 pm",
    "2021-02-03 24:00:00", "2021-02-03 24:00:01", "2021-02-03 23:59:60", "2021-02-03 23:59:60.5",
    "2021-02-03 04:05:06+02", "2021-02-03 04:05:06 -08:00", "2021-02-03 04:05:06 EST",
    "2021-02-03 04:05:06 America/New_York", "Wed Feb 03 04:05:06 2021", "Wed Feb 03 04:05:06 2021 PST",
    "epoch", "infinity", "-infinity", "now x", "2021-02-03 04:05:06 bogus", "2021-02-03 25:00",
    "2021-02-03 04:60", "294276-12-31 23:59:59.999999", "294277-01-01 00:00:00", "4713-01-01 BC",
    "4714-11-24 00:00:00 BC", "4714-11-23 23:59:59 BC", "1999-01-08 04:05:06.000001", "J2451187 04:05",
    "2021-02-03 040506", "20210203 040506", "20210203T040506.5", "2021-02-03 04:05:06 z", "allballs",
    "2021-02-03 allballs", "Feb 3 04:05:06 2021", "3 Feb 2021 4:05", "2021-02-03 04:05:06 Europe/Berlin",
    "2021-02-03 04:05:06 europe/berlin", "2021-02-03 04:05:06 Mars/Phobos", "2021-02-03 04:05:06 +15:59",
    "2021-02-03 04:05:06 +16:00", "2021-02-03 04:05:06.", "1999-12-31 23:59:59.9999995",
]
for t in TS:
    inp("timestamp", t)
    inp("timestamptz", t)
for z in ZONES:
    for t in ["2021-03-14 02:30:00", "2021-11-07 01:30:00", "2021-03-28 02:30:00", "2021-10-31 02:30:00",
              "2021-04-04 01:45:00", "2021-10-03 02:15:00", "2021-04-04 02:15:00", "1900-01-01 00:00:00",
              "1850-06-01 12:00:00", "2100-07-01 12:00:00", "2300-01-15 12:00:00", "2021-06-01 12:00:00 UTC",
              "2021-06-01 12:00:00 EDT", "2021-06-01 12:00:00 MSK", "2021-01-01 00:00:00 LHDT",
              "2021-07-01 00:00:00+05:30", "1883-11-18 12:00:00", "2037-11-01 01:30:00", "2099-03-08 02:30:00"]:
        inp("timestamptz", t, ("ISO, MDY", "postgres", z))
for s in STYLES:
    for z in ["UTC", "America/New_York", "Asia/Kolkata"]:
        for t in ["2021-02-03 04:05:06.5+00", "0044-03-15 12:00:00 BC", "1883-11-18 12:00:00+00"]:
            inp("timestamptz", t, (s, "postgres", z))
    for t in ["2021-02-03 04:05:06.5", "0044-03-15 12:00:00 BC"]:
        inp("timestamp", t, (s, "postgres", "UTC"))
for z in ["+05:30", "-8", "EST5EDT", "<+0330>-3:30", "FOO+3", "Etc/GMT+3", "GMT", "utc", "Japan", "Asia/Tehran"]:
    for t in ["2021-02-03 04:05:06+00", "2021-07-03 04:05:06+00"]:
        inp("timestamptz", t, ("ISO, MDY", "postgres", z))
        inp("timestamptz", t, ("Postgres, MDY", "postgres", z))
for p in range(0, 7):
    inp("timestamp(%d)" % p, "2021-02-03 04:05:06.5555555")
    inp("timestamptz(%d)" % p, "1999-12-31 23:59:59.999999")

# ---------------------------------------------------------------- interval input/output
IVS = [
    "1 day", "1 day 2 hours", "@ 1 day ago", "@ 1 year 2 mons 3 days 04:05:06 ago", "1-2", "-1-2", "3 4:05:06",
    "-3 4:05:06", "-3 -4:05:06", "1 year 2 months 3 days 4 hours 5 minutes 6 seconds", "1.5 years",
    "1.5 months", "1.5 weeks", "1.5 days", "1.5 hours", "0.5 minutes", "10 ms", "10 us", "1 millennium",
    "2 centuries", "3 decades", "P1Y2M3DT4H5M6S", "P1Y2.5M", "PT1.5S", "P0001-02-03T04:05:06",
    "P00010203T040506", "PT-1H", "P-1Y-2M", "x", "", "1 day x", "00:00:00", "-00:00:01", "1:2", "1:2:3.5",
    "+1 -2", "1 2", "2147483647 days", "2147483648 days", "178000000 years", "9223372036854775807 usec",
    "-9223372036854775808 usec", "1 hour 1 hour", "1 week 1 day", "@ 5 days 3 hours", "45 seconds ago",
    "-1 day +02:00", "1 day -02:00", "P1W", "P1.5W", "PT36H", "1 day 25:00:00", "infinity", "now", "1e3 days",
    "1 year -1 day", "-1 year 1 day", "0.000001 seconds", "0.0000005 seconds", "123456789 hours",
    "1 mon 1 day 1:00:01.5", "- 1 day", "1 day ago ago", "5 ago", "1 yr 2 mon", "3 hrs", "2 secs", "7 d",
]
for v in IVS:
    for st in IVSTYLES:
        inp("interval", v, ("ISO, MDY", st, "UTC"))
for v in ["-1 2:03:04", "-1-2 +3 -4:05:06", "1-2 3 4:05:06"]:
    inp("interval", v, ("ISO, MDY", "sql_standard", "UTC"))
for t in ["interval year", "interval month", "interval day", "interval hour", "interval minute",
          "interval second", "interval year to month", "interval day to hour", "interval day to minute",
          "interval day to second", "interval hour to minute", "interval hour to second",
          "interval minute to second", "interval(0)", "interval(3)", "interval second(2)",
          "interval day to second(1)"]:
    for v in ["1 year 2 months 3 days 4 hours 5 minutes 6.789 seconds", "12", "1:2", "1:2:3.456", "-5 4:03:02.01"]:
        inp(t, v)

# ---------------------------------------------------------------- comparisons and arithmetic
T2 = [("2021-02-03", "2021-02-04"), ("infinity", "2021-01-01"), ("-infinity", "-infinity"), ("2000-01-01", "2000-01-01")]
for a, b in T2:
    for f in ["date_eq", "date_lt", "date_cmp", "date_mi"]:
        add(f, ["date", "date"], [a, b])
for a, b in [("2021-02-03", "2021-02-03 00:00:00"), ("2021-02-03", "2021-02-03 00:00:01"),
             ("infinity", "infinity"), ("5874897-01-01", "infinity"), ("5874897-01-01", "294276-01-01")]:
    add("date_cmp_timestamp", ["date", "timestamp"], [a, b])
    add("timestamp_cmp_date", ["timestamp", "date"], [b, a])
    for z in ["UTC", "America/New_York"]:
        add("date_cmp_timestamptz", ["date", "timestamptz"], [a, b + ("+00" if b[0].isdigit() else "")], ("ISO, MDY", "postgres", z))
for z in ["UTC", "America/New_York", "Asia/Kolkata"]:
    add("timestamp_cmp_timestamptz", ["timestamp", "timestamptz"], ["2021-02-03 04:05:06", "2021-02-03 04:05:06+00"], ("ISO, MDY", "postgres", z))
    add("timestamptz_eq_timestamp", ["timestamptz", "timestamp"], ["2021-02-03 04:05:06-05", "2021-02-03 04:05:06"], ("ISO, MDY", "postgres", z))
for d, n in [("2021-02-03", "1"), ("2021-02-28", "1"), ("5874897-12-31", "1"), ("infinity", "5"), ("4714-11-24 BC", "-1"),
             ("2021-01-01", "2147483647")]:
    add("date_pli", ["date", "int4"], [d, n])
    add("date_mii", ["date", "int4"], [d, n])
for a, b in [("2021-02-03", "infinity"), ("2021-03-01", "2020-03-01")]:
    add("date_mi", ["date", "date"], [a, b])
IV_ADD = ["1 month", "1 day", "1 hour", "-1 month", "1 year 1 month 1 day 1 hour", "-1 day -1 hour", "0.5 day",
          "13 months", "-13 months", "2147483647 days", "24 hours", "1 mon -1 sec"]
for ts in ["2021-01-31 12:00:00", "2020-02-29 00:00:00", "2021-03-13 02:30:00", "infinity", "294276-12-31 00:00:00",
           "2021-10-31 01:30:00", "4714-11-24 00:00:00 BC"]:
    for iv in IV_ADD:
        add("timestamp_pl_interval", ["timestamp", "interval"], [ts, iv])
        add("timestamp_mi_interval", ["timestamp", "interval"], [ts, iv])
        for z in ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"]:
            add("timestamptz_pl_interval", ["timestamptz", "interval"], [ts, iv], ("ISO, MDY", "postgres", z))
for d in ["2021-01-31", "2020-02-29", "infinity"]:
    for iv in ["1 month", "1 day 2 hours", "-1 year"]:
        add("date_pl_interval", ["date", "interval"], [d, iv])
        add("date_mi_interval", ["date", "interval"], [d, iv])
for a, b in [("2021-03-15 12:00", "2021-03-14 11:00"), ("2021-01-01", "2020-01-01"), ("2020-01-01", "2021-01-01 00:00:01"),
             ("infinity", "2021-01-01"), ("294276-01-01", "4713-01-01 BC")]:
    add("timestamp_mi", ["timestamp", "timestamp"], [a, b])
    for z in ["UTC", "America/New_York"]:
        add("timestamptz_mi", ["timestamptz", "timestamptz"], [a, b], ("ISO, MDY", "postgres", z))
for a, b in [("1 day", "24 hours"), ("1 month", "30 days"), ("1 year", "360 days"), ("1 day", "1 day 00:00:00.000001"),
             ("-1 month", "-30 days"), ("178000000 years", "-178000000 years")]:
    for f in ["interval_eq", "interval_lt", "interval_cmp"]:
        add(f, ["interval", "interval"], [a, b])
    add("interval_pl", ["interval", "interval"], [a, b])
    add("interval_mi", ["interval", "interval"], [a, b])
for a in ["1 day 2 hours", "-1 mon 3 days", "1 year", "1 mon 1 day 1 sec", "-9223372036854775808 usec", "-2147483648 days"]:
    add("interval_um", ["interval"], [a])
    for f in ["0.5", "3", "-1.5", "0", "1e10", "nan", "0.3333333", "1.0000001"]:
        add("interval_mul", ["interval", "float8"], [a, f])
        add("interval_div", ["interval", "float8"], [a, f])
for a in ["1 mon 45 days 50 hours", "-1 mon 45 days -50 hours", "1 year -1 day", "35 days -1 hour", "-35 days 1 hour",
          "1 mon -30 days -1 sec", "29 days 25 hours"]:
    add("justify_days", ["interval"], [a])
    add("justify_hours", ["interval"], [a])
    add("justify_interval", ["interval"], [a])
for a in ["2021-02-03 04:05:06.5", "infinity"]:
    add("timestamptz", ["timestamp"], [a], ("ISO, MDY", "postgres", "America/New_York"))
    add("timestamp", ["timestamptz"], [a], ("ISO, MDY", "postgres", "Asia/Kolkata"))
    add("date", ["timestamptz"], [a + "+00"] if a[0].isdigit() else [a], ("ISO, MDY", "postgres", "Asia/Kolkata"))
    add("date", ["timestamp"], [a])
for d in ["2021-02-03", "infinity", "294277-01-01", "5874897-01-01"]:
    add("timestamp", ["date"], [d])
    add("timestamptz", ["date"], [d], ("ISO, MDY", "postgres", "America/New_York"))
