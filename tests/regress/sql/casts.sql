--
-- casts: CAST, ::, typed literals, implicit/assignment/explicit coercion rules,
-- typmods on casts (char/varchar/numeric/timestamp precision), and errors.
--
SELECT CAST('12' AS int), '12'::int, int '12', '1.5'::numeric, '1.5'::float8, 'true'::bool, 'yes'::bool, 'f'::boolean, '0'::bool;
SELECT 12::text, 1.5::text, true::text, 12.7::int, 12.5::int, 13.5::int, (-12.5)::int, 1.5::float8::int, 2.5::float8::int, 3.5::float4::int;
SELECT 'abc'::char(5) || '|', 'abc'::varchar(2), 'abcdef'::char(2), 123.456::numeric(5, 1), 1.5::numeric(3, 0), '2024-03-15 10:20:30.123456'::timestamp(0);
SELECT 1::bool, 0::bool, true::int, false::int, 65::bigint::int2, '42'::bigint;
SELECT '2024-03-15'::date::timestamp, '2024-03-15 10:00'::timestamp::date, '10:20'::time::interval, '1 day'::interval::text, now()::date = current_date;
SELECT '{1,2}'::int[]::text, '{"a":1}'::json::jsonb, '{"a":1}'::jsonb::json, '123'::jsonb::int, '"x"'::jsonb::text, 'true'::jsonb::bool;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '\x414243'::bytea, 'ABC'::bytea, 'x'::name, 'int4'::regtype, 'pg_class'::regclass::oid > 0;
SELECT pg_typeof('1'::int2 + 1), pg_typeof(1::int2 + 1::int8), pg_typeof('1' || 1), pg_typeof(1 + '1'), pg_typeof(NULL::int), pg_typeof(ARRAY[1]::int8[]);
SELECT 1 = 1.0, 1::int8 = 1::int2, 1.0::float4 = 1.0::float8, '1' = 1, 2 > '1', 'a'::text = 'a'::varchar, 'a'::char(3) = 'a  '::char(3);
SELECT 10000000000, pg_typeof(10000000000), pg_typeof(2147483647), pg_typeof(2147483648), pg_typeof(1.0), pg_typeof(1e3), pg_typeof('x');
SELECT 1.23e2::int, '  42  '::int, '+7'::int, '-0'::int, '0x1F'::int, '1_000'::int;
SELECT int4 '1' + int8 '2', float4 '1.5' + float8 '2.5', numeric '1.5' + int '2';
CREATE TABLE ct (i int, s smallint, v varchar(3), c char(2), n numeric(4, 1), b bool, d date);
INSERT INTO ct VALUES ('7', 3.6, 'ab', 'x', 12.34, 'true', '2024-01-01');
INSERT INTO ct (i, n) VALUES (2.5, 99.95);
INSERT INTO ct (v) VALUES ('abc  ');
SELECT * FROM ct ORDER BY i;
-- errors
INSERT INTO ct (v) VALUES ('abcd');
INSERT INTO ct (c) VALUES ('abc');
INSERT INTO ct (n) VALUES (1000);
INSERT INTO ct (s) VALUES (40000);
INSERT INTO ct (i) VALUES ('x');
INSERT INTO ct (b) VALUES (2);
INSERT INTO ct (d) VALUES (1);
INSERT INTO ct (i) VALUES (true);
DROP TABLE ct;
SELECT 'abc'::int;
SELECT '1.5'::int;
SELECT ''::int;
SELECT '2147483648'::int;
SELECT 'maybe'::bool;
SELECT 1::date;
SELECT '2024-01-01'::date::int;
SELECT true::numeric;
SELECT 'x'::uuid;
SELECT '\xZZ'::bytea;
SELECT CAST(1 AS nosuchtype);
SELECT '{1,x}'::int[];
SELECT 1::int[];
SELECT 'nosuch'::regclass;
SELECT 1.5e400::float8;
SELECT 'nan'::int;
SELECT 3000000000::int;
