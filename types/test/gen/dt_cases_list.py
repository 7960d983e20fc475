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

# ---------------------------------------------------------------- time / timetz
TIMES = ["04:05:06", "04:05:06.789", "4:05 PM", "12:00 am", "24:00:00", "24:00:01", "23:59:60", "040506", "0405",
         "04:05:06+02", "04:05:06 PST", "04:05:06 America/New_York", "2021-06-01 04:05:06 America/New_York",
         "04:05:06 Asia/Kolkata", "allballs", "now x", "x", "25:00", "04:05:06.9999995", "T040506", "04:05:06 z",
         "2021-01-01 04:05:06", "04:05:06-15:59", "04:05:06+16", "1:2:3.4 +5:30", "04:05 Europe/Berlin"]
for t in TIMES:
    inp("time", t)
    inp("timetz", t)
    inp("timetz", t, ("ISO, MDY", "postgres", "America/New_York"))
for p in range(0, 7):
    inp("time(%d)" % p, "23:59:59.9999999")
    inp("timetz(%d)" % p, "12:34:56.789123+03")
for a, b in [("04:05:06", "05:00"), ("00:00", "24:00"), ("12:00", "12:00")]:
    add("time_cmp", ["time", "time"], [a, b])
    add("time_mi_time", ["time", "time"], [a, b])
for a, b in [("04:05:06+02", "02:05:06+00"), ("04:05:06+02", "04:05:06+03"), ("23:00-05", "04:00+00")]:
    add("timetz_cmp", ["timetz", "timetz"], [a, b])
    add("timetz_eq", ["timetz", "timetz"], [a, b])
for t in ["04:05:06", "23:30:00", "00:00:00"]:
    for iv in ["1 hour", "-5 hours", "1 day 2 hours", "27 hours", "-1 sec", "1 mon"]:
        add("time_pl_interval", ["time", "interval"], [t, iv])
        add("time_mi_interval", ["time", "interval"], [t, iv])
        add("timetz_pl_interval", ["timetz", "interval"], [t + "+02", iv])
for iv in ["1 day 02:03:04", "-02:03:04", "26:00:00", "-26:00:00", "3 mons 04:00"]:
    add("time", ["interval"], [iv])
for z in ["UTC", "America/New_York", "Asia/Kolkata"]:
    s = ("ISO, MDY", "postgres", z)
    add("time", ["timestamptz"], ["2021-06-01 04:05:06.5+00"], s)
    add("timetz", ["timestamptz"], ["2021-06-01 04:05:06.5+00"], s)
    add("time", ["timestamptz"], ["infinity"], s)
    for zn in ["EST", "America/New_York", "Asia/Kolkata", "UTC", "+05", "-03:30", "bogus", "MSK"]:
        add("timezone", ["text", "timetz"], [zn, "04:05:06+02"], s)
    for iv in ["05:30", "-03:00", "1 day"]:
        add("timezone", ["interval", "timetz"], [iv, "04:05:06+02"], s)
add("time", ["timetz"], ["04:05:06+02"])
add("time", ["timestamp"], ["2021-06-01 04:05:06.5"])
add("interval", ["time"], ["04:05:06.5"])
add("timestamp", ["date", "time"], ["2021-06-01", "04:05:06.5"])
add("timestamptz", ["date", "timetz"], ["2021-06-01", "04:05:06.5+02"])
add("timestamptz", ["date", "time"], ["2021-03-14", "02:30"], ("ISO, MDY", "postgres", "America/New_York"))

# ---------------------------------------------------------------- functions
for a, b in [("2021-03-31", "2021-02-28"), ("2021-02-28", "2021-03-31"), ("2020-02-29 12:00", "2019-03-01 13:00:00.5"),
             ("2001-04-10", "1957-06-13"), ("1957-06-13", "2001-04-10"), ("2021-01-01", "2021-01-01"),
             ("2021-03-01 00:00", "2021-01-31 23:59:59.999999")]:
    add("age", ["timestamp", "timestamp"], [a, b])
    for z in ["UTC", "America/New_York", "Europe/Berlin"]:
        add("age", ["timestamptz", "timestamptz"], [a, b], ("ISO, MDY", "postgres", z))
for y, m, d in [(2021, 2, 28), (2021, 2, 29), (2020, 2, 29), (-44, 3, 15), (0, 1, 1), (2021, 13, 1), (5874898, 1, 1),
                (-4714, 11, 24), (-4714, 11, 23)]:
    add("make_date", ["int4", "int4", "int4"], [str(y), str(m), str(d)])
    add("make_timestamp", ["int4", "int4", "int4", "int4", "int4", "float8"], [str(y), str(m), str(d), "10", "20", "30.5"])
for h, mi, s in [(4, 5, "6.5"), (24, 0, "0"), (24, 0, "0.000001"), (23, 59, "60"), (23, 59, "59.9999999"), (-1, 0, "0"),
                 (10, 60, "0"), (10, 0, "nan"), (10, 0, "-1")]:
    add("make_time", ["int4", "int4", "float8"], [str(h), str(mi), s])
    add("make_timestamp", ["int4", "int4", "int4", "int4", "int4", "float8"], ["2021", "6", "1", str(h), str(mi), s])
for z in ["UTC", "America/New_York", "Australia/Lord_Howe"]:
    s = ("ISO, MDY", "postgres", z)
    add("make_timestamptz", ["int4", "int4", "int4", "int4", "int4", "float8"], ["2021", "3", "14", "2", "30", "0"], s)
    add("make_timestamptz", ["int4", "int4", "int4", "int4", "int4", "float8"], ["2021", "10", "3", "2", "15", "0"], s)
    for zn in ["Europe/Berlin", "EST", "+05:30", "-8", "8", "+16", "bogus", "MSK", "Asia/Kolkata", "utc"]:
        add("make_timestamptz", ["int4", "int4", "int4", "int4", "int4", "float8", "text"], ["2021", "7", "1", "12", "0", "0", zn], s)
for args in [["1", "2", "3", "4", "5", "6", "7.5"], ["0", "0", "0", "0", "0", "0", "0"], ["-1", "0", "0", "0", "0", "0", "-0.0000005"],
             ["178956971", "0", "0", "0", "0", "0", "0"], ["0", "0", "0", "0", "0", "0", "nan"], ["0", "0", "0", "0", "2562047788", "0", "0"]]:
    add("make_interval", ["int4", "int4", "int4", "int4", "int4", "int4", "float8"], args)
for f in ["0", "1612325106.5", "-1e12", "1e20", "nan", "inf", "-inf", "1.0000005", "9224318015999", "-210866803200"]:
    for z in ["UTC", "Asia/Kolkata"]:
        add("to_timestamp", ["float8"], [f], ("ISO, MDY", "postgres", z))
for z in ["UTC", "America/New_York"]:
    s = ("ISO, MDY", "postgres", z)
    for zn in ["UTC", "EST", "America/Los_Angeles", "Europe/Berlin", "+05:30", "-8", "bogus", "MSK", "LHDT", "Asia/Kolkata"]:
        for ts in ["2021-06-01 12:00:00+00", "2021-03-14 07:30:00+00", "infinity"]:
            add("timezone", ["text", "timestamptz"], [zn, ts], s)
        for ts in ["2021-06-01 12:00:00", "2021-03-14 02:30:00", "2021-11-07 01:30:00"]:
            add("timezone", ["text", "timestamp"], [zn, ts], s)
    for iv in ["05:30", "-08:00", "1 day", "00:00:01.5"]:
        add("timezone", ["interval", "timestamptz"], [iv, "2021-06-01 12:00:00+00"], s)
        add("timezone", ["interval", "timestamp"], [iv, "2021-06-01 12:00:00"], s)
for stride, ts, origin in [("15 minutes", "2020-02-11 15:44:17", "2001-01-01"), ("15 minutes", "2020-02-11 15:44:17", "2001-01-01 00:02:30"),
                           ("1 day", "2020-02-11 15:44:17", "2021-01-01"), ("1 month", "2020-02-11", "2001-01-01"),
                           ("0 days", "2020-02-11", "2001-01-01"), ("-1 hour", "2020-02-11", "2001-01-01"),
                           ("1 hour", "infinity", "2001-01-01"), ("1 hour", "2020-02-11", "infinity"),
                           ("7 days", "1999-12-31 23:00", "2000-01-03"), ("1 hour", "2000-01-01 00:00", "2000-01-01 01:00")]:
    add("date_bin", ["interval", "timestamp", "timestamp"], [stride, ts, origin])
    add("date_bin", ["interval", "timestamptz", "timestamptz"], [stride, ts, origin], ("ISO, MDY", "postgres", "America/New_York"))
for a in [["2001-02-16", "2001-12-21", "2001-10-30", "2002-10-30"], ["2001-02-16", "2001-12-21", "2001-12-21", "2002-10-30"],
          ["2001-12-21", "2001-02-16", "2001-10-30", "2002-10-30"], ["2001-02-16", "2001-02-16", "2001-02-16", "2001-02-16"]]:
    add("overlaps", ["timestamp"] * 4, a)
    add("overlaps", ["timestamptz"] * 4, a)
    add("overlaps", ["date"] * 4, a) if False else None
add("overlaps", ["timestamp", "interval", "timestamp", "interval"], ["2001-02-16", "100 days", "2001-10-30", "1 year"])
add("overlaps", ["time", "time", "time", "time"], ["01:00", "03:00", "02:00", "04:00"])
add("overlaps", ["time", "interval", "time", "time"], ["01:00", "1 hour", "02:00", "04:00"])
add("overlaps", ["timetz", "timetz", "timetz", "timetz"], ["01:00+00", "03:00+00", "04:00+02", "05:00+02"])

UNITS = ["microseconds", "milliseconds", "second", "minute", "hour", "day", "week", "month", "quarter", "year", "decade",
         "century", "millennium", "julian", "isoyear", "dow", "isodow", "doy", "epoch", "timezone", "timezone_hour",
         "timezone_minute", "bogus", "now", "msec", "MILLENNIA", "Hours", "ms", "J"]
for u in UNITS:
    for ts in ["2021-02-03 04:05:06.789", "0044-03-15 12:00:00 BC", "2000-01-01 00:00:00", "2020-12-31 23:59:59.5", "infinity", "-infinity"]:
        add("date_part", ["text", "timestamp"], [u, ts])
        add("extract", ["text", "timestamp"], [u, ts])
        add("date_trunc", ["text", "timestamp"], [u, ts])
        for z in ["UTC", "America/New_York", "Asia/Kolkata"]:
            tz = ts + "+00" if ts[0].isdigit() and "BC" not in ts else ts
            add("date_part", ["text", "timestamptz"], [u, tz], ("ISO, MDY", "postgres", z))
            add("extract", ["text", "timestamptz"], [u, tz], ("ISO, MDY", "postgres", z))
            add("date_trunc", ["text", "timestamptz"], [u, tz], ("ISO, MDY", "postgres", z))
    for d in ["2021-02-03", "0044-03-15 BC", "2021-01-01", "2020-12-31", "infinity", "-infinity"]:
        add("date_part", ["text", "date"], [u, d])
        add("extract", ["text", "date"], [u, d])
    for t in ["04:05:06.789", "00:00", "24:00"]:
        add("date_part", ["text", "time"], [u, t])
        add("extract", ["text", "time"], [u, t])
        add("date_part", ["text", "timetz"], [u, t + "-05:30"])
        add("extract", ["text", "timetz"], [u, t + "-05:30"])
    for iv in ["1 year 2 months 3 days 04:05:06.789", "-1 year -2 months -3 days -04:05:06.789", "1000 years 11 months", "0", "-1 sec",
               "178000000 years", "-2147483648 days -2562047788 hours"]:
        add("date_part", ["text", "interval"], [u, iv])
        add("extract", ["text", "interval"], [u, iv])
        add("date_trunc", ["text", "interval"], [u, iv])
for ts in ["2021-01-03", "2021-01-04", "2020-12-31", "2019-12-30", "2027-01-01", "0001-01-01", "0001-01-07 BC"]:
    add("date_trunc", ["text", "timestamp"], ["week", ts])
    add("date_part", ["text", "timestamp"], ["week", ts])
    add("date_part", ["text", "timestamp"], ["isoyear", ts])
for zn in ["Europe/Berlin", "EST", "UTC", "+05", "bogus", "MSK", "Australia/Lord_Howe"]:
    for u in ["day", "hour", "month", "week"]:
        add("date_trunc", ["text", "timestamptz", "text"], [u, "2021-10-31 01:30:00+00", zn], ("ISO, MDY", "postgres", "America/New_York"))
for z in ["America/New_York", "Australia/Lord_Howe", "Europe/Berlin"]:
    for u in ["day", "hour", "month", "week", "year"]:
        for ts in ["2021-03-14 12:00+00", "2021-11-07 12:00+00", "2021-04-04 12:00+00", "2021-10-03 12:00+00", "2021-03-28 12:00+00"]:
            add("date_trunc", ["text", "timestamptz"], [u, ts], ("ISO, MDY", "postgres", z))

# ---------------------------------------------------------------- to_char / to_timestamp / to_date
FMTS = ["YYYY-MM-DD HH24:MI:SS", "YYYY-MM-DD HH24:MI:SS.MS US FF1 FF2 FF3 FF4 FF5 FF6", "Day, DD Month YYYY",
        "FMDay, FMDD FMMonth YYYY", "DAY day Dy dy DY MON Mon mon MONTH month", "HH HH12 HH24 AM am PM pm A.M. p.m.",
        "YYYY YYY YY Y IYYY IYY IY I", "Y,YYY CC cc", "DDD IDDD DD D ID WW IW W Q J", "RM rm FMRM", "SSSS SSSSS",
        "TZ tz TZH:TZM OF FMOF", "DDth DDTH FMDDth Dth", "\"Quoted YYYY\" YYYY \\\"MM", "AD ad BC bc A.D. B.C.",
        "YYYYMMDD", "FMHH12:MI am", "TMMonth TMDay TMMon", "HH24:MI:SS.FF6 TZH", "YYYY-MM-DD\"T\"HH24:MI:SSOF",
        "\\YYYY", "fmdd/mm/yyyy", "xYYYYx", "MMth", "SSth", "Q th", "IW IYYY", "CCth"]
for f in FMTS:
    for ts in ["2021-02-03 04:05:06.789", "0044-03-15 13:00:00 BC", "2020-12-31 23:59:59.999999", "2021-01-01 00:00:00",
               "2021-11-21 12:30:00", "infinity"]:
        add("to_char", ["timestamp", "text"], [ts, f])
        for z in ["UTC", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "America/St_Johns"]:
            tz = ts + "+00" if ts[0].isdigit() and "BC" not in ts else ts
            add("to_char", ["timestamptz", "text"], [tz, f], ("ISO, MDY", "postgres", z))
add("to_char", ["timestamp", "text"], ["2021-02-03", ""])
for f in ["HH24:MI:SS.US", "HH:MI:SS", "YYYY MM DD", "DDD", "Month", "Day", "J", "CC", "RM", "YYYY Q", "HH12 AM", "SSSS",
          "FMHH24 \"hours\"", "TZ", "IYYY", "MS FF3", "WW W", "DD \"days\"", "Y,YYY", "AD"]:
    for iv in ["1 year 2 months 3 days 04:05:06.789", "-1 year -2 months -3 days -04:05:06.789", "100 hours", "0", "15 months",
               "-15 months"]:
        add("to_char", ["interval", "text"], [iv, f])
PARSE = [("2021-02-03 04:05:06", "YYYY-MM-DD HH24:MI:SS"), ("2021-02-03 04:05:06.789", "YYYY-MM-DD HH24:MI:SS.MS"),
         ("2021-02-03 04:05:06.789123", "YYYY-MM-DD HH24:MI:SS.US"), ("03 Feb 2021", "DD Mon YYYY"),
         ("03 February 2021", "DD Month YYYY"), ("3 feb 21", "DD mon YY"), ("20210203", "YYYYMMDD"), ("2021-02-30", "YYYY-MM-DD"),
         ("2021-13-03", "YYYY-MM-DD"), ("xx", "YYYY"), ("2021", "YYYY"), ("21", "YY"), ("1", "Y"), ("821", "YYY"),
         ("2021-034", "YYYY-DDD"), ("2021-W05-3", "IYYY-\"W\"IW-ID"), ("2021 05", "IYYY IW"), ("2021 5 3", "YYYY MM D"),
         ("2459249", "J"), ("12:30 PM", "HH:MI AM"), ("12:30 AM", "HH:MI AM"), ("13:30 PM", "HH:MI AM"),
         ("0:30 PM", "HH:MI AM"), ("04:05:06 +05:30", "HH24:MI:SS TZH:TZM"), ("2021-02-03 04:05 -03", "YYYY-MM-DD HH24:MI TZH"),
         ("2021-02-03 04:05 +16", "YYYY-MM-DD HH24:MI TZH"), ("44 BC", "YYYY BC"), ("21 2", "CC YY"), ("21", "CC"),
         ("-1 2", "CC YY"), ("2021 Wed", "YYYY Dy"), ("2021 Wednesday 5", "YYYY Day WW"), ("  2021   02  03", "YYYY MM DD"),
         ("2021/02/03", "YYYY-MM-DD"), ("2021 02 03", "YYYYMMDD"), ("2021-2-3", "YYYY-MM-DD"), ("2021-2-3", "FMYYYY-FMMM-FMDD"),
         ("20210203040506", "YYYYMMDDHH24MISS"), ("2021 III", "YYYY RM"), ("2021 xii", "YYYY rm"), ("2021 feb 3rd", "YYYY mon DDth"),
         ("2021-02-03", "YYYY-MM-DD TZ"), ("2021-02-03", "YYYY-MM-DD OF"), ("2021 1 2", "YYYY MM MM"), ("2021 1 1", "YYYY MM MM"),
         ("2021 05 3", "YYYY IW D"), ("1,234", "Y,YYY"), ("99999", "YYYY"), ("9999999999", "YYYY"), ("2021-02-03 25:00", "YYYY-MM-DD HH24:MI"),
         ("", ""), ("2021", ""), ("12345", "SSSS"), ("2021 365", "YYYY DDD"), ("2020 366", "YYYY DDD"), ("2021 366", "YYYY DDD"),
         ("365", "DDD"), ("Q3 2021", "\"Q\"Q YYYY"), ("2021-02-03T04:05:06", "YYYY-MM-DD\"T\"HH24:MI:SS"),
         ("2021-02-03 04:05:06.1", "YYYY-MM-DD HH24:MI:SS.FF1"), ("2021-02-03 04:05:06.123456", "YYYY-MM-DD HH24:MI:SS.FF6"),
         ("2021-02-03 04:05:06.12", "YYYY-MM-DD HH24:MI:SS.FF3"), ("1999-12-31", "FXYYYY-MM-DD"), ("1999 12 31", "FXYYYY-MM-DD"),
         ("1999-12-31", "FXYYYY  MM DD"), ("2021-02-03 040506", "YYYY-MM-DD HH24MISS"), ("2021-02-03 4:5:6", "YYYY-MM-DD HH24:MI:SS"),
         ("Feb 3, 2021 4:05 pm", "Mon DD, YYYY HH:MI pm"), ("2021-02-03 4:05 p.m.", "YYYY-MM-DD HH:MI a.m."),
         ("5 2021", "W YYYY"), ("2021 2 5", "YYYY MM W")]
for z in ["UTC", "America/New_York"]:
    for s_, f in PARSE:
        add("to_timestamp", ["text", "text"], [s_, f], ("ISO, MDY", "postgres", z))
for s_, f in PARSE:
    add("to_date", ["text", "text"], [s_, f])

# ---------------------------------------------------------------- number formatting
NFMT = ["999", "9999", "0000", "9,999", "99,999.99", "FM99,999.99", "999.999", "FM999.999", "0.00", "FM0.00", "9.9",
        "FM9.9", "S999", "999S", "SG999", "999MI", "999PL", "PL999", "999PR", "FM999PR", "MI999", "9G999D99", "L999",
        "99V99", "999th", "FM999TH", "RN", "FMRN", "rn", "9.99EEEE", "9.999EEEE", "EEEE", "B999", "\"val:\"999", "9 9 9",
        "FMS9999", "99999999999", "FM9990.0099", "0999.9", "9.99", ".99", "FM.999", "SG9.99", "9.99S", "FM9.99MI", "00.00PR",
        "", "9.9.9", "9V9.9", "S9S", "PRS9", "EEEE9", "FMEEEE", "FM9th"]
NUMS = ["0", "1", "-1", "12", "-12.5", "123.456", "-123.456", "1234.5678", "99999.999", "0.5", "-0.5", "0.05", "3999",
        "4000", "1e10", "21", "13"]
for f in NFMT:
    for v in NUMS:
        add("to_char", ["numeric", "text"], [v, f])
        add("to_char", ["float8", "text"], [v, f])
    for v in ["0", "1", "-1", "12", "1234", "-98765", "3999", "2147483647", "11", "112", "23"]:
        add("to_char", ["int4", "text"], [v, f])
        add("to_char", ["int8", "text"], [v, f])
    for v in ["1.5", "-1234.567", "0.001", "3.14159"]:
        add("to_char", ["float4", "text"], [v, f])
for v in ["nan", "inf", "-inf", "1e300", "1e-300", "123456789012345678"]:
    for f in ["999.99", "9.99EEEE", "RN", "FM9999999999999999999999.99"]:
        add("to_char", ["float8", "text"], [v, f])
for v in ["NaN", "Infinity", "-Infinity", "123456789012345678901234567890.123"]:
    for f in ["999.99", "9.99EEEE", "RN", "FM999999999999999999999999999999999.999"]:
        add("to_char", ["numeric", "text"], [v, f])
TONUM = [("12,454.8-", "99G999D9S"), ("-12,345.6", "99G999D9S"), ("12345", "999V99"), ("1,234.56", "9,999.99"),
         ("$1,234.56", "L9,999.99"), ("  123", "999"), ("123", "9999"), ("-123", "999"), ("<123>", "999PR"), ("123-", "999MI"),
         ("123+", "999PL"), ("1.5", "9"), ("12.345", "99.99"), ("", "999"), ("abc", "999"), ("5.01-", "FM9.999999MI"),
         ("0.5", "9.9"), ("1e10", "9.99EEEE"), ("XI", "RN"), ("1st", "9th"), ("12,345", "FM99,999"), ("1 234", "9 999"),
         ("123.", "999.99"), (".5", ".9"), ("99999", "999"), ("12", "")]
for s_, f in TONUM:
    add("to_number", ["text", "text"], [s_, f])

# ---------------------------------------------------------------- in_range
for v, b, o in [("2021-01-05", "2021-01-03", "2 days"), ("2021-01-06", "2021-01-03", "2 days"), ("2021-01-01", "2021-01-03", "-1 day"),
                ("2021-01-01", "2021-01-03", "1 mon")]:
    for sub in ["true", "false"]:
        for less in ["true", "false"]:
            add("in_range", ["date", "date", "interval", "bool", "bool"], [v, b, o, sub, less])
            add("in_range", ["timestamp", "timestamp", "interval", "bool", "bool"], [v, b, o, sub, less])
            add("in_range", ["timestamptz", "timestamptz", "interval", "bool", "bool"], [v, b, o, sub, less], ("ISO, MDY", "postgres", "America/New_York"))
            add("in_range", ["interval", "interval", "interval", "bool", "bool"], ["5 days", "3 days", o, sub, less])
            add("in_range", ["time", "time", "interval", "bool", "bool"], ["05:00", "03:00", o, sub, less])
            add("in_range", ["timetz", "timetz", "interval", "bool", "bool"], ["05:00+01", "03:00+00", o, sub, less])

# ---------------------------------------------------------------- randomized (fixed seed) differential cases
import random as _random
_r = _random.Random(20240601)
_DATEPARTS = ["%Y-%m-%d", "%m/%d/%Y", "%d/%m/%Y", "%Y%m%d", "%d %b %Y", "%b %d, %Y", "%Y.%j", "%d-%b-%y", "%y-%m-%d",
              "%A %B %d %Y", "%Y-%m-%dT"]
_TIMEPARTS = ["%H:%M", "%H:%M:%S", "%H:%M:%S.%f", "%I:%M %p", "%H%M%S", ""]
_ZPARTS = ["", "Z", "+02", "-05:30", " UTC", " EST", " CEST", " America/Chicago", " Asia/Kathmandu", " +0545", " -1"]
import datetime as _dt
for _i in range(900):
    y = _r.choice([_r.randint(1, 9999), _r.randint(1900, 2100), _r.randint(2030, 2300)])
    d = _dt.date(2000, 1, 1) + _dt.timedelta(days=_r.randint(0, 365))
    try:
        base = _dt.datetime(y, d.month, d.day, _r.randint(0, 23), _r.randint(0, 59), _r.randint(0, 59), _r.randint(0, 999999))
    except ValueError:
        continue
    dp = _r.choice(_DATEPARTS)
    tp = _r.choice(_TIMEPARTS)
    txt = base.strftime(dp) + ("" if dp.endswith("T") and not tp else (" " if not dp.endswith("T") else "")) + base.strftime(tp)
    txt = txt.strip() + _r.choice(_ZPARTS)
    style = _r.choice(STYLES)
    zone = _r.choice(ZONES + ["America/Sao_Paulo", "Pacific/Chatham", "Asia/Tehran", "Africa/Casablanca"])
    typ = _r.choice(["timestamptz", "timestamptz", "timestamp", "date", "timetz", "time"])
    inp(typ, txt, (style, "postgres", zone))
for _i in range(400):
    parts = []
    for unit in _r.sample(["years", "mons", "days", "hours", "minutes", "seconds", "weeks", "ms", "decades"], _r.randint(1, 4)):
        v = _r.choice([_r.randint(-100, 100), _r.randint(-100000, 100000), round(_r.uniform(-50, 50), _r.randint(0, 7))])
        parts.append("%s %s" % (v, unit))
    if _r.random() < 0.3:
        parts.append("%s%d:%02d:%02d" % (_r.choice(["", "-", "+"]), _r.randint(0, 99), _r.randint(0, 59), _r.randint(0, 59)))
    if _r.random() < 0.2:
        parts.append("ago")
    inp("interval", " ".join(parts), ("ISO, MDY", _r.choice(IVSTYLES), "UTC"))
for _i in range(400):
    ts = "%04d-%02d-%02d %02d:%02d:%02d.%06d+00" % (_r.randint(1900, 2100), _r.randint(1, 12), _r.randint(1, 28), _r.randint(0, 23),
                                                 _r.randint(0, 59), _r.randint(0, 59), _r.randint(0, 999999))
    iv = "%d mons %d days %d:%02d:%02d" % (_r.randint(-30, 30), _r.randint(-40, 40), _r.randint(-30, 30), _r.randint(0, 59), _r.randint(0, 59))
    zone = _r.choice(ZONES + ["America/Sao_Paulo", "Pacific/Chatham"])
    add("timestamptz_pl_interval", ["timestamptz", "interval"], [ts, iv], ("ISO, MDY", "postgres", zone))
    add("age", ["timestamptz", "timestamptz"], [ts, "2000-02-29 12:00:00+00"], ("ISO, MDY", "postgres", zone))
    add("date_trunc", ["text", "timestamptz"], [_r.choice(["week", "month", "day", "hour", "quarter", "year"]), ts], ("ISO, MDY", "postgres", zone))
    add("to_char", ["timestamptz", "text"], [ts, _r.choice(FMTS)], ("ISO, MDY", "postgres", zone))

# ---------------------------------------------------------------- zone sweep (a sample of the full 1198-zone check)
SWEEP_ZONES = ["Africa/Cairo", "Africa/Casablanca", "Africa/Johannesburg", "America/Anchorage", "America/Argentina/Buenos_Aires",
               "America/Havana", "America/Los_Angeles", "America/Mexico_City", "America/Santiago", "America/Sao_Paulo",
               "America/St_Johns", "Antarctica/Troll", "Asia/Dhaka", "Asia/Gaza", "Asia/Jerusalem", "Asia/Kathmandu",
               "Asia/Shanghai", "Asia/Tehran", "Asia/Tokyo", "Atlantic/Azores", "Australia/Adelaide", "Australia/Eucla",
               "Australia/Sydney", "Europe/Dublin", "Europe/Lisbon", "Europe/London", "Europe/Moscow", "Europe/Paris",
               "Pacific/Apia", "Pacific/Auckland", "Pacific/Chatham", "Pacific/Kiritimati", "Pacific/Honolulu", "Etc/GMT-14",
               "Etc/GMT+12", "EST5EDT", "PST8PDT", "CET", "NZ", "posix/Europe/Berlin"]
SWEEP_TS = ["1900-01-01 00:00+00", "1945-08-15 00:00+00", "1996-03-31 01:30+00", "2010-03-14 07:30+00", "2021-10-31 00:59:59+00",
            "2024-02-29 23:59:59.999999+00", "2050-06-30 12:00+00", "2199-10-27 01:00+00"]
for z in SWEEP_ZONES:
    for t in SWEEP_TS:
        add("timezone", ["text", "timestamptz"], [z, t])
        add("timezone", ["text", "timestamp"], [z, t[:-3]])

# ---------------------------------------------------------------- *_send
for t, v in [("date", "2021-02-03"), ("time", "04:05:06.5"), ("timetz", "04:05:06.5+02"), ("timestamp", "2021-02-03 04:05:06"),
             ("timestamptz", "2021-02-03 04:05:06+01"), ("interval", "1 year 2 days 03:04:05")]:
    add(t + "_send", [t], [v])

# ---------------------------------------------------------------- output fast path (ISO, years 1..9999)
# Edges of dt_encode.c's iso_fast and the general path beside it: 3-, 4- and 5-digit years, BC,
# every fraction length with trailing zeros, infinities, zones with minute and second offsets.
OUT_TS = ["0999-12-31 23:59:59.5", "1000-01-01 00:00:00", "9999-12-31 23:59:59.999999", "10000-01-01 00:00:00",
          "0001-01-01 00:00:00", "0001-12-31 23:59:59.000001 BC", "2026-11-22 13:05:00.1", "2026-11-22 13:05:00.12",
          "2026-11-22 13:05:00.120", "2026-11-22 13:05:00.1234", "2026-11-22 13:05:00.12345", "2026-11-22 13:05:00.100010",
          "2026-11-22 00:00:00.000001", "1883-11-18 12:03:57", "1850-06-01 12:00:00", "infinity", "-infinity"]
for z in ["UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "America/St_Johns", "Europe/Dublin"]:
    for t in OUT_TS:
        inp("timestamptz", t, ("ISO, MDY", "postgres", z))
        if z == "UTC":
            inp("timestamp", t)
for s in ["SQL, DMY", "Postgres, MDY", "German, DMY"]:
    for t in ["0999-12-31 23:59:59.5", "2026-11-22 13:05:00.12", "0001-12-31 23:59:59.000001 BC"]:
        inp("timestamptz", t, (s, "postgres", "Asia/Kolkata"))
        inp("timestamp", t, (s, "postgres", "UTC"))
