--
-- typmod_coerce: type modifiers applied as PostgreSQL applies them. A literal
-- is read without the typmod (interval excepted: its fields steer the input),
-- then the typmod is applied as a cast: explicit casts truncate or round
-- silently, assignments (INSERT, UPDATE, COPY, DEFAULT, ON CONFLICT) fail
-- with 22001/22003, and those errors carry no position. varchar(n), char(n),
-- numeric(p,s), time/timestamp(p), interval fields and precision, arrays.
--
-- explicit casts
SELECT '12345'::varchar(3), '12345'::char(3), 'ab'::char(4) || '|', '1.2345'::numeric(5,2);
SELECT cast('12345' AS varchar(3)), 'abc  '::varchar(3), 'abcd   '::char(3), 'ab'::char(1);
SELECT 'abcd'::varchar(3)::text, ('abcd'::text)::varchar(3), 'abcd'::text::char(2), 12345::varchar(3);
SELECT 'abcd'::varchar(3)::varchar(10), ('abcd'::varchar(10))::varchar(2), length('ab '::char(5)), 'ab '::char(5) = 'ab';
SELECT '2024-01-01'::date::varchar(4), 1.5::numeric(2,1)::varchar(2), 'abcdef'::varchar(3) = 'abc';
SELECT '12345.678'::numeric(5,2);
SELECT 123.456::numeric(4,1), 12345.6::numeric(4,1);
SELECT cast(12.345 AS numeric(4,2)), cast(-0.005 AS numeric(3,2)), 0.5::numeric(1,0), 'NaN'::numeric(3,1), 1.5::numeric(1,0);
SELECT '1e-3'::numeric(3,5), 0.001::numeric(3,5), 0.12345::numeric(3,5);
SELECT '99.99'::numeric(3,1);
-- arrays: the element typmod
SELECT ARRAY['abcd', 'ef']::varchar(2)[], '{abcd,ef}'::varchar(2)[], ARRAY['abcd'::text]::varchar(2)[];
SELECT ('{abcd}'::text[])::varchar(2)[], ARRAY[['abc', 'd'], ['ef', 'ghi']]::char(2)[], ARRAY[1.25, 2.35]::numeric(2,1)[];
SELECT ARRAY['a']::varchar(0)[];
-- time, timestamp
SELECT '2024-01-01 12:34:56.789123'::timestamp(2), '2024-01-01 12:34:56.789123+00'::timestamptz(0), '12:34:56.789'::time(1);
SELECT '2020-01-01 23:59:59.9999999'::timestamp(0), '2020-01-01 23:59:59.5'::timestamptz(0), '23:59:59.9'::time(0), 'infinity'::timestamp(2);
SELECT '1:2:3.456789'::time(7);
SELECT '2020-01-01 1:2:3.456789'::timestamp(8);
-- interval: precision, fields, and fields that steer the input
SELECT '1 day 2 hours 3 minutes 4.5678 seconds'::interval(2), '1 day 1:2:3.456789'::interval(7);
SELECT '1 day 1:2:3.456789'::interval second(7);
SELECT '1 year 2 months 3 days 04:05:06'::interval year to month, '1 year 2 months 3 days 04:05:06'::interval day to second(0);
SELECT '1 year 2 months 3 days 04:05:06'::interval hour to minute, '100'::interval minute, '100'::interval hour;
SELECT '100'::interval second, '100'::interval day, '100'::interval year, '100'::interval month;
SELECT '1 2'::interval day to hour, '1:30'::interval hour to minute, interval '1 day 3:04:05' minute, interval(2) '1.2345';
SELECT '1.5'::interval year, '1-2'::interval year to month, '1-2'::interval day;
SELECT cast(interval '1 day 3:04:05.678' AS interval hour), (interval '1 day 3:04:05.678')::interval(1);
SELECT '{1:02:03.456}'::interval(1)[];
-- columns with typmods
CREATE TABLE tm (v varchar(3), c char(3), n numeric(5,2), ts timestamp(1), i interval hour to minute, k int PRIMARY KEY DEFAULT 1);
SELECT format_type(atttypid, atttypmod), atttypmod FROM pg_attribute
  WHERE attrelid = 'tm'::regclass AND attnum > 0 ORDER BY attnum;
SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, datetime_precision, interval_type
  FROM information_schema.columns WHERE table_name = 'tm' ORDER BY ordinal_position;
INSERT INTO tm (v) VALUES ('abcd');
INSERT INTO tm (v, k) VALUES ('ab', 2), ('abcd', 3);
INSERT INTO tm (v) SELECT 'abcd';
INSERT INTO tm (v) VALUES ('abcd'::text);
INSERT INTO tm (v) VALUES (12345);
INSERT INTO tm (v) SELECT 'abcd'::text;
INSERT INTO tm (v, k) VALUES (repeat('x', 4), 4);
INSERT INTO tm (c, k) VALUES ('abcd', 5);
INSERT INTO tm (n, k) VALUES ('1234.567', 6);
INSERT INTO tm (n, k) VALUES (1234.567, 7);
INSERT INTO tm (v, k) VALUES ('abc   ', 10);
INSERT INTO tm (v, k) VALUES ('abcd'::varchar(3), 11);
INSERT INTO tm (c, k) VALUES ('ab   ', 12);
INSERT INTO tm (n, k) VALUES ('123.456', 13);
INSERT INTO tm (ts, k) VALUES ('2024-01-01 12:34:56.789', 14);
INSERT INTO tm (i, k) VALUES ('1 day 03:04:05', 15), ('100', 16), (interval '1 day 03:04:05.678', 17);
SELECT k, v || '|' AS v, c || '|' AS c, octet_length(c), n, ts, i FROM tm ORDER BY k;
UPDATE tm SET v = 'wxyz';
UPDATE tm SET v = v || 'xx';
UPDATE tm SET v = 'wxyz'::varchar(3) WHERE v = 'abc' RETURNING k, v;
UPDATE tm SET n = 1234.5;
UPDATE tm SET c = 'x' WHERE k = 12 RETURNING c || '|', length(c), octet_length(c);
UPDATE tm SET i = i + interval '1 second' WHERE k = 15 RETURNING i;
INSERT INTO tm (v, k) VALUES ('a', 10) ON CONFLICT (k) DO UPDATE SET v = 'abcd';
INSERT INTO tm (v, k) VALUES ('abc', 10) ON CONFLICT (k) DO UPDATE SET v = excluded.v || 'd';
INSERT INTO tm (n, k) VALUES (1.005, 10) ON CONFLICT (k) DO UPDATE SET n = excluded.n * 10 RETURNING n;
-- parameters with typmods
PREPARE tm_p1(text) AS INSERT INTO tm (v, k) VALUES ($1, 20);
EXECUTE tm_p1('abcd');
PREPARE tm_p2 AS INSERT INTO tm (v, k) VALUES ($1, 21);
EXECUTE tm_p2('abcd');
PREPARE tm_p3(varchar(2)) AS SELECT $1;
EXECUTE tm_p3('abcdef');
PREPARE tm_p4(numeric(3,1)) AS SELECT $1;
EXECUTE tm_p4(12.345);
DEALLOCATE ALL;
DROP TABLE tm;
-- DEFAULT expressions are coerced like assignments when a row takes them
CREATE TABLE tmd (k int PRIMARY KEY, v varchar(3) DEFAULT 'abcd', w varchar(4) DEFAULT 'ab'::varchar(1),
  n numeric(3,1) DEFAULT 1.25, c char(2) DEFAULT 'a', t timestamp(1) DEFAULT '2020-01-01 00:00:00.26');
INSERT INTO tmd (k) VALUES (1);
INSERT INTO tmd (k, v) VALUES (2, DEFAULT);
INSERT INTO tmd (k, v) VALUES (3, 'x');
INSERT INTO tmd (k, n) SELECT 10, 3.14159;
SELECT k, v, w, n, c || '|', t FROM tmd ORDER BY k;
UPDATE tmd SET n = DEFAULT, t = '2020-01-01 00:00:00.96' RETURNING n, t;
ALTER TABLE tmd ADD COLUMN z varchar(2) DEFAULT 'xyz';
ALTER TABLE tmd ADD COLUMN z varchar(2) DEFAULT 'xy';
ALTER TABLE tmd ALTER COLUMN w TYPE varchar(1);
ALTER TABLE tmd ALTER COLUMN n TYPE numeric(2,0);
SELECT k, w, n, z FROM tmd ORDER BY k;
DROP TABLE tmd;
-- COPY applies the typmods of its columns
CREATE TABLE tmc (v varchar(3), c char(3), n numeric(4,1), t timestamp(0), i interval hour to minute, a varchar(2)[]);
COPY tmc FROM stdin;
ab	a	12.34	2024-01-01 10:00:00.6	1 day 02:03:04	{ab,c}
\.
COPY tmc FROM stdin;
abcd	a	1	\N	\N	\N
\.
COPY tmc FROM stdin;
a	abcd	1	\N	\N	\N
\.
COPY tmc FROM stdin;
a	a	1000	\N	\N	\N
\.
COPY tmc FROM stdin;
a	a	1	\N	\N	{abc}
\.
COPY tmc FROM stdin (FORMAT csv);
"abc   ",x,999.94,2024-01-01 10:00:00.4,100,
\.
COPY tmc FROM stdin;
abc   	x  	1.25	\N	5 hours 70 minutes 5 seconds	\N
\.
SELECT v || '|', c || '|', octet_length(c), n, t, i, a FROM tmc ORDER BY n;
COPY tmc TO stdout;
COPY (SELECT v::varchar(1), c::char(1), n::numeric(3,0), i::interval hour FROM tmc ORDER BY n) TO stdout;
DROP TABLE tmc;
-- the typmods results carry (RowDescription): kept where every input agrees
CREATE TABLE t3 (v varchar(3), w varchar(3), c char(2), n numeric(5,2), a varchar(2)[], i interval hour);
SELECT coalesce(v, 'x') a1, coalesce(v, w) a2, coalesce(v, c) a3, CASE WHEN v > '' THEN v END a4,
  CASE WHEN v > '' THEN v ELSE w END a5, greatest(v, w) a6, nullif(v, 'a') a7 FROM t3 \gdesc
SELECT a[1] b1, a[1:2] b2, ARRAY[v, w] b3, ARRAY[v, 'x'] b4, ARRAY[[v], [w]] b5, ARRAY[n] b6, n + 1 b7, -n b8,
  v || w b9, c || c b10 FROM t3 \gdesc
SELECT (SELECT v FROM t3 LIMIT 1) c1, ARRAY(SELECT v FROM t3) c2, v::text::varchar(3) c3, i c4, i + i c5,
  min(v) c6, max(n) c7, max(c) c8 FROM t3 GROUP BY v, i \gdesc
SELECT x FROM (SELECT v AS x FROM t3 UNION ALL SELECT w FROM t3) s \gdesc
SELECT x FROM (SELECT v AS x FROM t3 UNION ALL SELECT c FROM t3) s \gdesc
CREATE VIEW v3 AS SELECT coalesce(v, w) a, CASE WHEN v > '' THEN v ELSE w END b, ARRAY[v, w] c, a[1] d, v e FROM t3;
\d v3
DROP VIEW v3;
DROP TABLE t3;
-- type modifiers that are not valid
SELECT 1234::numeric(3,-1), 1255::numeric(3,-1), '0.012'::numeric(2,3), 0.0125::numeric(2,3);
SELECT 12345::numeric(3,-1);
SELECT 1::numeric(1001);
SELECT 1::numeric(3,1001);
SELECT 1::numeric(0);
SELECT 1::numeric(3,2,1);
SELECT 'x'::varchar(0);
SELECT 'x'::varchar(10485761);
SELECT '1'::float(3), '1'::float(30), pg_typeof('1'::float(30)), pg_typeof(1::float(24));
SELECT '1'::float(0);
SELECT '1'::float(54);
SELECT 'a'::text(3);
SELECT '1:2:3'::time(1, 2);
