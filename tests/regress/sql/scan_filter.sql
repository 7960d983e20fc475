-- Filtered scans decode the filter's columns first and the rest of a row only
-- when the filter keeps it (sql/exec_scan.c, filter_cols_split): results,
-- NULLs, errors raised by the filter, key columns in the filter, the
-- transaction's own writes, wide rows and values too large to be deferred.
CREATE TABLE sf_t (a int, b int, c text, d numeric(10,2), e text, PRIMARY KEY (a, b));
INSERT INTO sf_t SELECT i % 7, i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'c' || i END,
	i * 1.25, repeat('e', i % 13) FROM generate_series(1, 300) i;
SELECT a, b, c, d, e FROM sf_t WHERE c LIKE '%11%' ORDER BY a, b;
SELECT count(*), max(d), min(e) FROM sf_t WHERE c LIKE '%1%';
SELECT count(*), sum(d) FROM sf_t WHERE c IS NULL;
SELECT b, c FROM sf_t WHERE c IS NOT NULL AND d > 370 ORDER BY b;
SELECT b, d FROM sf_t WHERE NOT (c LIKE '%2%') AND b < 40 ORDER BY b;
SELECT b, e FROM sf_t WHERE (c = 'c7') IS NULL AND b < 30 ORDER BY b;
-- key columns in the filter, alone and with others
SELECT b, c, d FROM sf_t WHERE a = 3 AND b % 50 = 0 ORDER BY b;
SELECT a, b, e FROM sf_t WHERE b % 41 = 0 AND length(e) > 3 ORDER BY a, b;
SELECT count(*) FROM sf_t WHERE b > 250 OR c = 'c3';
-- the filter's errors: raised for the rows PostgreSQL evaluates it on
SELECT b, c FROM sf_t WHERE d / (b - 150) > 100 ORDER BY b;
SELECT b, c FROM sf_t WHERE c IS NOT NULL AND 1 / (b % 5) = 1 ORDER BY b LIMIT 5;
SELECT count(*) FROM sf_t WHERE b <> 150 AND d / (b - 150) > 100;
-- whole-row references and a subquery in the filter
SELECT b FROM sf_t t WHERE t::text LIKE '%c27%' ORDER BY b;
SELECT b, c FROM sf_t WHERE b IN (SELECT b * 3 FROM sf_t WHERE c LIKE '%9') ORDER BY b;
-- the transaction's own writes change filtered columns
BEGIN;
UPDATE sf_t SET c = 'zz' || b WHERE b IN (10, 11, 12);
UPDATE sf_t SET d = 9999 WHERE b = 13;
DELETE FROM sf_t WHERE b = 14;
INSERT INTO sf_t VALUES (0, 1000, 'zzz', 1.5, 'new');
SELECT a, b, c, d, e FROM sf_t WHERE c LIKE 'zz%' ORDER BY a, b;
SELECT b, c, d FROM sf_t WHERE d > 9000 OR b BETWEEN 13 AND 15 ORDER BY b;
SELECT b, c, e FROM sf_t WHERE c LIKE 'c1%' AND b < 20 ORDER BY b;
ROLLBACK;
SELECT a, b, c FROM sf_t WHERE c LIKE 'zz%' OR b = 14 ORDER BY a, b;
-- a row slot reused after rows the filter dropped: only the columns those
-- rows set are reset, and a later row's NULL must not show a dropped value
SELECT b, c, d FROM sf_t WHERE (c IS NULL OR c LIKE '%99%') AND b < 120 ORDER BY b;
SELECT count(*), count(c), sum(d) FROM sf_t WHERE c IS NULL OR c = 'c1' OR c LIKE '%7';
-- values too large to keep aside, and rows with many cells
CREATE TABLE sf_big (k int PRIMARY KEY, f int, big text, t text);
INSERT INTO sf_big SELECT i, i % 4, repeat(chr(97 + i % 26), 1500 + i * 100), 't' || i
	FROM generate_series(1, 20) i;
SELECT k, length(big), substr(big, 1, 3), t FROM sf_big WHERE f = 1 ORDER BY k;
SELECT count(*), sum(length(big)), max(t) FROM sf_big WHERE f <> 2;
CREATE TABLE sf_wide (k int PRIMARY KEY, c1 int, c2 int, c3 int, c4 int, c5 int, c6 int, c7 int,
	c8 int, c9 int, c10 int, c11 int, c12 int, c13 int, c14 int, c15 int, c16 int, c17 int,
	c18 int, c19 int, c20 int, c21 int, c22 int, c23 int, c24 int, c25 int, c26 int, c27 int,
	c28 int, c29 int, c30 int, c31 int, c32 int, c33 int, c34 int, c35 int, c36 int, c37 int,
	c38 int, c39 int, c40 int);
INSERT INTO sf_wide SELECT i, i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8, i + 9,
	i + 10, i + 11, i + 12, i + 13, i + 14, i + 15, i + 16, i + 17, i + 18, i + 19, i + 20,
	i + 21, i + 22, i + 23, i + 24, i + 25, i + 26, i + 27, i + 28, i + 29, i + 30, i + 31,
	i + 32, i + 33, i + 34, i + 35, i + 36, i + 37, i + 38, i + 39 FROM generate_series(1, 50) i;
SELECT * FROM sf_wide WHERE c7 % 10 = 0 ORDER BY k;
SELECT k, c40 FROM sf_wide WHERE c1 = 33;
ALTER TABLE sf_wide DROP COLUMN c5;
SELECT * FROM sf_wide WHERE c3 = 20;
DROP TABLE sf_t, sf_big, sf_wide;
