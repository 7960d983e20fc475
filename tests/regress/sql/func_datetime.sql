--
-- func_datetime: date/time functions and operators of issue 6: now() and the
-- current_* values (types only: they move), date_trunc, extract/date_part, age,
-- make_date/make_timestamp, to_timestamp/to_date, AT TIME ZONE, interval
-- arithmetic, with TimeZone and DateStyle fixed in the file.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
SELECT pg_typeof(now()), pg_typeof(current_date), pg_typeof(current_timestamp), pg_typeof(localtimestamp), pg_typeof(current_time), pg_typeof(localtime);
SELECT now() = current_timestamp, now() = transaction_timestamp(), current_date = now()::date, clock_timestamp() >= now(), statement_timestamp() >= now();
SELECT pg_typeof(current_timestamp(2)), length(timeofday()) > 10;
SELECT date_trunc('month', timestamp '2024-03-15 10:20:30'), date_trunc('hour', timestamp '2024-03-15 10:20:30'), date_trunc('year', date '2024-03-15'), date_trunc('week', timestamp '2024-03-15'), date_trunc('quarter', timestamp '2024-05-15');
SELECT date_trunc('day', timestamptz '2024-03-15 10:20:30+02'), date_trunc('minute', interval '1 day 02:03:04.5'), date_trunc('day', timestamptz '2024-03-15 23:00:00+00', 'Asia/Tokyo');
SELECT extract(year FROM timestamp '2024-03-15 10:20:30.5'), extract(month FROM date '2024-03-15'), extract(second FROM timestamp '2024-03-15 10:20:30.5'), extract(dow FROM date '2024-03-17'), extract(doy FROM date '2024-03-15'), extract(epoch FROM timestamp '1970-01-02'), extract(week FROM date '2024-01-01'), extract(quarter FROM date '2024-08-01');
SELECT extract(hour FROM interval '1 day 05:00'), extract(epoch FROM interval '1 hour'), extract(century FROM date '2024-01-01'), extract(isodow FROM date '2024-03-17'), extract(julian FROM date '2024-01-01');
SELECT date_part('year', timestamp '2024-03-15'), date_part('minute', time '10:20:30'), pg_typeof(date_part('day', date '2024-01-01')), pg_typeof(extract(day FROM date '2024-01-01'));
SELECT age(timestamp '2024-03-15', timestamp '2020-01-20'), age(date '2024-01-01', date '2023-12-31'), age(timestamp '2020-01-01', timestamp '2024-03-15 12:00');
SELECT make_date(2024, 2, 29), make_timestamp(2024, 1, 2, 3, 4, 5.5), make_time(1, 2, 3), make_interval(days => 3, hours => 2), make_timestamptz(2024, 1, 2, 3, 4, 5, 'UTC');
SELECT to_timestamp(0), to_timestamp(1700000000.5), to_timestamp('2024-03-15 10:20', 'YYYY-MM-DD HH24:MI'), to_date('15/03/2024', 'DD/MM/YYYY'), to_date('2024 075', 'YYYY DDD');
SELECT timestamp '2024-03-15 12:00' AT TIME ZONE 'America/New_York', timestamptz '2024-03-15 12:00+00' AT TIME ZONE 'Asia/Tokyo', timestamptz '2024-07-01 00:00+00' AT TIME ZONE 'Europe/Paris';
SELECT date '2024-03-15' + 1, date '2024-03-15' - 1, date '2024-03-15' - date '2024-01-01', date '2024-01-31' + interval '1 month', date '2024-03-15' + time '10:00';
SELECT timestamp '2024-01-31 10:00' + interval '1 month', timestamp '2024-03-15' - interval '1 day 2 hours', timestamp '2024-03-15' - timestamp '2024-03-10 12:00', timestamptz '2024-03-10 00:00+00' + interval '1 day';
SELECT interval '1 day' + interval '3 hours', interval '1 hour' * 3, interval '1 day' / 4, interval '2 hours' - interval '30 minutes', -interval '1 day', interval '1 month' > interval '29 days';
SELECT interval '1 year 2 months 3 days 04:05:06', interval '90 minutes', interval 'P1Y2M', interval '1.5 days', justify_hours(interval '30 hours'), justify_days(interval '35 days'), justify_interval(interval '1 mon -1 hour');
SELECT time '10:00' + interval '3 hours', time '23:00' + interval '2 hours', time '10:00' - time '08:30', timetz '10:00+02' + interval '1 hour';
SELECT date '2024-02-29' + interval '1 year', timestamp '2024-03-31' - interval '1 month', date '2024-03-15' < timestamp '2024-03-15 00:00:01', date 'epoch', timestamp 'infinity' > now(), date '-infinity' < date '0001-01-01';
SELECT isfinite(date '2024-01-01'), isfinite(timestamp 'infinity'), date_bin('15 minutes', timestamp '2024-03-15 10:22', timestamp '2000-01-01');
SELECT '2024-03-15 10:20:30.123456'::timestamp(2), '10:20:30.5'::time(0), '2024-03-15'::timestamp, '2024-03-15 10:00'::date, 'today'::date = current_date, 'allballs'::time;
SELECT (timestamp '2024-03-15 10:00', interval '1 hour') OVERLAPS (timestamp '2024-03-15 10:30', interval '1 hour');
SET TimeZone = 'America/Los_Angeles';
SELECT timestamptz '2024-03-10 12:00:00+00', timestamptz '2024-03-10 12:00:00+00'::date, timestamptz '2024-03-10 01:00' + interval '1 day', extract(timezone_hour FROM timestamptz '2024-07-01 12:00');
SELECT to_char(timestamptz '2024-07-01 12:00+00', 'YYYY-MM-DD HH24:MI TZ'), date_trunc('day', timestamptz '2024-03-10 12:00+00');
SET TimeZone = 'UTC';
-- errors
SELECT date '2024-02-30';
SELECT timestamp '2024-13-01';
SELECT make_date(2024, 2, 30);
SELECT date_trunc('nonsense', now());
SELECT extract(nonsense FROM now());
SELECT to_date('2024-99-99', 'YYYY-MM-DD');
SELECT interval 'abc';
SELECT date '2024-01-01' + date '2024-01-01';
SELECT timestamp '2024-01-01' AT TIME ZONE 'No/Such_Zone';
SELECT date '5874898-01-01';
SELECT interval '1 day' / 0;
