-- Simple queries that differ only in integer constants share a plan made
-- with those constants as parameters (sql/litcache.c). Each shape runs several
-- times in one session so later runs come from the cache: results, types and
-- errors must be PostgreSQL's.
CREATE TABLE lc (id int PRIMARY KEY, s smallint, i int, b bigint, n numeric, f float8, t text, d date, ok boolean);
INSERT INTO lc VALUES (1, 10, 100, 1000, 1.5, 2.5, 'one', '2024-01-01', true),
  (2, 20, 200, 3000000000, 2.5, 3.5, 'two', '2024-01-02', false),
  (3, 30, 2147483647, -3000000000, 3.5, 4.5, 'three', '2024-01-03', true),
  (-3, -30, -2147483647, 9223372036854775807, -1, -1, 'minus three', '2024-01-04', NULL);
SELECT id, t FROM lc WHERE id = 1;
SELECT id, t FROM lc WHERE id = 2;
SELECT id, t FROM lc WHERE id = 3;
SELECT id, t FROM lc WHERE id = 4;
SELECT id, t FROM lc WHERE id = -3;
SELECT id, t FROM lc WHERE id = - 3;
SELECT id, t FROM lc WHERE id = 007;
SELECT id, t FROM lc WHERE 2 = id;
SELECT id, t FROM lc WHERE 1 = id;
-- int4 / int8 boundaries: the constant's own type, as PostgreSQL's lexer gives it
SELECT id FROM lc WHERE id = 2147483647;
SELECT id FROM lc WHERE id = 2147483648;
SELECT id FROM lc WHERE id = -2147483648;
SELECT id FROM lc WHERE id = -2147483649;
SELECT id, b FROM lc WHERE b = 3000000000;
SELECT id, b FROM lc WHERE b = 1000;
SELECT id, b FROM lc WHERE b = -3000000000;
SELECT id, b FROM lc WHERE b = 9223372036854775807;
SELECT id, b FROM lc WHERE b > 2999999999 ORDER BY id;
SELECT id, b FROM lc WHERE b > 5 ORDER BY id;
SELECT id FROM lc WHERE s = 40000;
SELECT id FROM lc WHERE s = 20;
SELECT id FROM lc WHERE s < 25 AND s > -100 ORDER BY id;
SELECT id FROM lc WHERE s < 15 AND s > -100 ORDER BY id;
SELECT pg_typeof(i + 1), i + 1 FROM lc WHERE i + 1 > 150 ORDER BY id LIMIT 1;
-- other column types: implicit casts of the constant, or no operator at all
SELECT id FROM lc WHERE n = 2;
SELECT id FROM lc WHERE n > 1 ORDER BY id;
SELECT id FROM lc WHERE n > 3 ORDER BY id;
SELECT id FROM lc WHERE f < 3 ORDER BY id;
SELECT id FROM lc WHERE f < 4 ORDER BY id;
SELECT id FROM lc WHERE t = 1;
SELECT id FROM lc WHERE t = 2;
SELECT id FROM lc WHERE d = 1;
SELECT id FROM lc WHERE ok = 1;
SELECT id FROM lc WHERE i / 0 = 1;
SELECT id FROM lc WHERE i / 0 = 2;
SELECT id FROM lc WHERE id = 1 AND 1 / 0 = 1;
SELECT id FROM lc WHERE id = 2 AND 1 / 0 = 1;
-- constants not compared with a column must be the same text to share a plan
SELECT id, i FROM lc WHERE id > 0 ORDER BY 1;
SELECT id, i FROM lc WHERE id > 0 ORDER BY 2 DESC;
SELECT id, i + 1 FROM lc WHERE id = 1;
SELECT id, i + 2 FROM lc WHERE id = 1;
SELECT id FROM lc WHERE id IN (1, 2) ORDER BY id;
SELECT id FROM lc WHERE id IN (2, 3) ORDER BY id;
SELECT id FROM lc WHERE id = 2 - 1;
SELECT id FROM lc WHERE id = 3 - 1;
SELECT id FROM lc WHERE id - 1 = 0;
SELECT id FROM lc WHERE id - 1 = 1;
SELECT id FROM lc WHERE id > 0 ORDER BY id LIMIT 1;
SELECT id FROM lc WHERE id > 0 ORDER BY id LIMIT 2;
SELECT id /* 5 */ FROM lc WHERE id = 1; -- 7
SELECT id /* 5 */ FROM lc WHERE id = 2; -- 7
SELECT '5' AS five, id FROM lc WHERE id = 1;
SELECT '5' AS five, id FROM lc WHERE id = 2;
SELECT id::text || 'x' FROM lc WHERE id = 3 OR id = 1 ORDER BY 1;
SELECT id::text || 'x' FROM lc WHERE id = 3 OR id = 2 ORDER BY 1;
SELECT id FROM lc WHERE NOT id > 1 ORDER BY id;
SELECT id FROM lc WHERE NOT id > 2 ORDER BY id;
-- updates: overflow errors where PostgreSQL raises them
UPDATE lc SET i = i + 1 WHERE id = 1;
UPDATE lc SET i = i + 1 WHERE id = 3;
UPDATE lc SET i = i + -1 WHERE id = 1;
UPDATE lc SET s = s + 40000 WHERE id = 2;
UPDATE lc SET s = s + 5 WHERE id = 2;
UPDATE lc SET s = s + -5 WHERE id = 2;
UPDATE lc SET b = b * 4 WHERE id = 2;
UPDATE lc SET b = b * 4000000000 WHERE id = 2;
UPDATE lc SET b = b * 3 WHERE id = 2;
DELETE FROM lc WHERE id = 4;
SELECT id, s, i, b FROM lc ORDER BY id;
-- the plan follows the catalog and the settings
ALTER TABLE lc ADD COLUMN extra int DEFAULT 7;
SELECT * FROM lc WHERE id = 1;
SELECT * FROM lc WHERE id = 2;
ALTER TABLE lc DROP COLUMN extra;
SELECT * FROM lc WHERE id = 1;
CREATE SCHEMA lc_other;
CREATE TABLE lc_other.lc (id int, t text);
INSERT INTO lc_other.lc VALUES (1, 'other one');
SELECT id, t FROM lc WHERE id = 1;
SET search_path = lc_other, public;
SELECT id, t FROM lc WHERE id = 1;
RESET search_path;
SELECT id, t FROM lc WHERE id = 1;
-- inside a transaction block, and after an error in it
BEGIN;
SELECT id, t FROM lc WHERE id = 2 FOR UPDATE;
UPDATE lc SET i = i + 1 WHERE id = 2;
SELECT id, i FROM lc WHERE id = 2;
SELECT id FROM lc WHERE t = 2;
SELECT id, i FROM lc WHERE id = 2;
ROLLBACK;
SELECT id, i FROM lc WHERE id = 2;
BEGIN;
ALTER TABLE lc ADD COLUMN extra int DEFAULT 9;
SELECT * FROM lc WHERE id = 2;
ROLLBACK;
SELECT * FROM lc WHERE id = 2;
DROP TABLE lc_other.lc;
DROP SCHEMA lc_other;
DROP TABLE lc;
SELECT id FROM lc WHERE id = 1;
-- a temporary table that hides a table of the same name, and privileges
CREATE TABLE lc_priv (id int, v text);
INSERT INTO lc_priv VALUES (1, 'permanent'), (2, 'permanent two');
SELECT v FROM lc_priv WHERE id = 1;
CREATE TEMP TABLE lc_priv (id int, v text);
INSERT INTO lc_priv VALUES (1, 'temporary'), (2, 'temporary two');
SELECT v FROM lc_priv WHERE id = 2;
DROP TABLE lc_priv;
SELECT v FROM lc_priv WHERE id = 2;
CREATE ROLE lc_user;
SET ROLE lc_user;
SELECT v FROM lc_priv WHERE id = 1;
RESET ROLE;
GRANT SELECT ON lc_priv TO lc_user;
SET ROLE lc_user;
SELECT v FROM lc_priv WHERE id = 1;
SELECT v FROM lc_priv WHERE id = 2;
RESET ROLE;
REVOKE SELECT ON lc_priv FROM lc_user;
SET ROLE lc_user;
SELECT v FROM lc_priv WHERE id = 2;
RESET ROLE;
DROP TABLE lc_priv;
DROP ROLE lc_user;
