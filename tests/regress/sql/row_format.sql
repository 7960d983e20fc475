-- Row formats (docs/row-format.md): tables created under strata.row_format =
-- packed keep a row's columns in one cell; tables created as cells stay cells
-- and are read, written and joined beside packed ones. PostgreSQL takes the
-- SET as a placeholder setting, so its output is the expected one.
SET strata.row_format = cells;
CREATE TABLE rf_cells (id int PRIMARY KEY, a int, b text, c numeric);
INSERT INTO rf_cells SELECT i, i * 10, 'c' || i, i / 4.0 FROM generate_series(1, 20) i;
SET strata.row_format = packed;
-- every storage class, NULLs, a lossy key type (numeric) stored again
CREATE TABLE rf_types (
	k numeric PRIMARY KEY, b bool, ch "char", i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
	d date, ts timestamp, tz timestamptz, iv interval, n numeric(12,3), t text, vc varchar(5),
	bc char(3), by bytea, j jsonb, arr int[], u uuid, ti time);
INSERT INTO rf_types VALUES
	(1.50, true, 'x', -32768, 2147483647, -9223372036854775808, 1.5, -0.0, '2024-02-29',
	 '2024-01-01 12:34:56.789', '2024-06-01 00:00:00+02', '1 year 2 mons 3 days 04:05:06',
	 123456789.125, 'héllo', 'abc', 'ab', '\x00ff', '{"a": [1, 2, {"b": null}]}', '{1,NULL,3}',
	 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '23:59:59.999999'),
	(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	 NULL, NULL, NULL, NULL, NULL),
	(-3.000, false, '', 0, 0, 0, 'NaN', 'Infinity', '-infinity', 'infinity', '1970-01-01 00:00:00+00',
	 '-1 day', 0, '', '', '', '', '[]', '{}', '00000000-0000-0000-0000-000000000000', '00:00');
SELECT * FROM rf_types ORDER BY k;
SELECT k, t, n FROM rf_types WHERE i4 IS NULL OR i4 > 0 ORDER BY k;
-- UPDATE: one column, to NULL and back, the key, several rows
UPDATE rf_types SET t = NULL WHERE k = 1.5;
SELECT k, t, i4, j FROM rf_types ORDER BY k;
UPDATE rf_types SET t = 'back', i2 = NULL WHERE k = 1.5;
UPDATE rf_types SET k = 4 WHERE k = 2;
UPDATE rf_types SET i8 = coalesce(i8, 0) + 1;
SELECT k, t, i2, i8 FROM rf_types ORDER BY k;
-- a table without a primary key (hidden row id), DELETE, re-insert
CREATE TABLE rf_nokey (a int, b text);
INSERT INTO rf_nokey VALUES (1, 'one'), (2, NULL), (NULL, 'three'), (NULL, NULL);
DELETE FROM rf_nokey WHERE a = 1;
UPDATE rf_nokey SET b = 'two' WHERE a = 2;
SELECT * FROM rf_nokey ORDER BY a NULLS LAST, b NULLS LAST;
-- the packed table read beside the cells table made before the flip
CREATE TABLE rf_p (id int PRIMARY KEY, a int, b text, c numeric);
INSERT INTO rf_p SELECT id, a + 1, upper(b), c FROM rf_cells WHERE id % 2 = 0;
UPDATE rf_cells SET b = NULL WHERE id = 4;
UPDATE rf_p SET c = NULL WHERE id = 6;
SELECT x.id, x.a, x.b, x.c, y.a, y.b, y.c FROM rf_cells x LEFT JOIN rf_p y USING (id)
	WHERE x.id <= 8 ORDER BY x.id;
CHECKPOINT;
SELECT count(*), sum(a), string_agg(b, ',' ORDER BY id) FROM rf_p;
SELECT id, b FROM rf_p WHERE b LIKE 'C1%' ORDER BY id;
SELECT id, b FROM rf_p WHERE b NOT LIKE '%2%' ORDER BY id;
-- transactions: savepoints, own writes merged by scans, rollback
BEGIN;
INSERT INTO rf_p VALUES (101, 1, 'new', 1);
UPDATE rf_p SET a = a * 100 WHERE id IN (2, 101);
SAVEPOINT s1;
UPDATE rf_p SET b = 'gone' WHERE id = 4;
DELETE FROM rf_p WHERE id = 6;
ROLLBACK TO s1;
UPDATE rf_p SET b = NULL WHERE id = 8;
SELECT * FROM rf_p WHERE id IN (2, 4, 6, 8, 101) ORDER BY id;
COMMIT;
SELECT * FROM rf_p WHERE id IN (2, 4, 6, 8, 101) ORDER BY id;
BEGIN;
UPDATE rf_p SET a = 0;
ROLLBACK;
SELECT sum(a) FROM rf_p;
-- ON CONFLICT
INSERT INTO rf_p VALUES (2, 7, 'dup', 7), (200, 8, 'fresh', 8)
	ON CONFLICT (id) DO UPDATE SET b = excluded.b || '!', c = rf_p.c + 1;
SELECT * FROM rf_p WHERE id IN (2, 200) ORDER BY id;
-- secondary indexes: an UPDATE of another column leaves the entries right
CREATE INDEX rf_p_a ON rf_p (a);
CREATE UNIQUE INDEX rf_p_b ON rf_p (b);
UPDATE rf_p SET c = c * 2 WHERE id <= 10;
UPDATE rf_p SET a = -a WHERE id = 10;
SET enable_seqscan = off;
SELECT id, a, c FROM rf_p WHERE a BETWEEN 100 AND 200 ORDER BY a;
SELECT id, a FROM rf_p WHERE a < 0;
SELECT id FROM rf_p WHERE b = 'C12';
RESET enable_seqscan;
INSERT INTO rf_p VALUES (300, 1, 'C12', 1);
-- ALTER TABLE: ADD COLUMN (constant and volatile defaults), DROP COLUMN,
-- a type change (rewrite), ADD PRIMARY KEY (re-key), TRUNCATE
ALTER TABLE rf_p ADD COLUMN d int DEFAULT 5;
ALTER TABLE rf_p ADD COLUMN e text;
INSERT INTO rf_p (id, a, b, e) VALUES (400, 4, 'four', 'e4');
ALTER TABLE rf_p DROP COLUMN c;
SELECT * FROM rf_p WHERE id IN (2, 4, 400) ORDER BY id;
UPDATE rf_p SET e = 'x' || id WHERE id < 10;
DROP INDEX rf_p_a, rf_p_b;
ALTER TABLE rf_p ALTER COLUMN a TYPE bigint;
SELECT * FROM rf_p WHERE id < 10 OR id = 400 ORDER BY id;
CREATE TABLE rf_rekey (a int NOT NULL, b int NOT NULL, v text, w int);
INSERT INTO rf_rekey SELECT i % 7, i, 'v' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE i END
	FROM generate_series(1, 50) i;
ALTER TABLE rf_rekey DROP COLUMN w;
ALTER TABLE rf_rekey ADD PRIMARY KEY (a, b);
SELECT * FROM rf_rekey WHERE a = 3 ORDER BY b;
ALTER TABLE rf_rekey ADD COLUMN x int DEFAULT 9;
UPDATE rf_rekey SET x = NULL WHERE b = 3;
SELECT * FROM rf_rekey WHERE b < 5 ORDER BY a, b;
INSERT INTO rf_rekey VALUES (3, 3, 'dup');
TRUNCATE rf_rekey;
INSERT INTO rf_rekey VALUES (1, 1, 'after');
SELECT * FROM rf_rekey;
-- COPY into a packed table (the transaction's own new table, and not)
CREATE TABLE rf_copy (id int PRIMARY KEY, t text, n int);
COPY rf_copy FROM stdin;
1	one	\N
2	\N	2
3	three	3
\.
BEGIN;
CREATE TABLE rf_copy2 (id int PRIMARY KEY, t text, n int);
COPY rf_copy2 FROM stdin;
5	five	5
4	\N	\N
\.
COMMIT;
SELECT * FROM rf_copy UNION ALL SELECT * FROM rf_copy2 ORDER BY id;
COPY rf_copy TO stdout;
-- ANALYZE reads packed rows
ANALYZE rf_p;
SELECT attname, null_frac FROM pg_stats WHERE tablename = 'rf_p' AND attname IN ('b', 'd') ORDER BY attname;
-- back to cells: a new table is cells, the old packed ones still read
SET strata.row_format = cells;
CREATE TABLE rf_cells2 AS SELECT id, b FROM rf_p WHERE id < 10;
UPDATE rf_p SET b = b || '.' WHERE id < 10;
SELECT x.id, x.b, y.b FROM rf_cells2 x JOIN rf_p y USING (id) ORDER BY id;
RESET strata.row_format;
DROP TABLE rf_cells, rf_types, rf_nokey, rf_p, rf_rekey, rf_copy, rf_copy2, rf_cells2;
