-- Index scans: equality, IN, ranges, IS [NOT] NULL on an index prefix;
-- ORDER BY in index order (forward, backward) with LIMIT/OFFSET; MIN/MAX;
-- covering indexes; DESC and NULLS FIRST columns; partial indexes; the
-- transaction's own changes seen through an index; every answer must be
-- the same as without the index.
CREATE TABLE is_t (id int PRIMARY KEY, a int, b text, c float8, d date);
INSERT INTO is_t
  SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 9 END,
         CASE WHEN i % 13 = 0 THEN NULL ELSE chr(97 + i % 5) || (i % 4) END,
         CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 23) - 10.5 END,
         date '2024-01-01' + (i % 40)
  FROM generate_series(1, 200) i;
CREATE INDEX is_a ON is_t (a);
CREATE INDEX is_ab ON is_t (a, b);
CREATE INDEX is_b_desc ON is_t (b DESC NULLS LAST, id);
CREATE INDEX is_c_nf ON is_t (c NULLS FIRST);
CREATE INDEX is_d ON is_t (d) INCLUDE (a);
CREATE INDEX is_part ON is_t (c) WHERE a > 6;
ANALYZE is_t;
SELECT id FROM is_t WHERE a = 4 ORDER BY id;
SELECT id FROM is_t WHERE a IN (1, 8, 1) AND b = 'c1' ORDER BY id;
SELECT a, b, count(*) FROM is_t WHERE a = 3 AND b >= 'c' GROUP BY a, b ORDER BY b;
SELECT count(*) FROM is_t WHERE a IS NULL;
SELECT count(*) FROM is_t WHERE a IS NOT NULL AND a < 2;
SELECT id, b FROM is_t WHERE b < 'b' ORDER BY b DESC, id LIMIT 5;
SELECT id, b FROM is_t ORDER BY b DESC NULLS LAST, id LIMIT 4 OFFSET 2;
SELECT id, b FROM is_t ORDER BY b ASC NULLS FIRST, id DESC LIMIT 4;
SELECT id, c FROM is_t ORDER BY c NULLS FIRST, id LIMIT 5;
SELECT id, c FROM is_t WHERE c > 11 ORDER BY c DESC NULLS LAST, id LIMIT 3;
SELECT min(c), max(c) FROM is_t;
SELECT min(a), max(a) FROM is_t WHERE a < 5;
SELECT max(b) FROM is_t;
SELECT min(d), max(d) FROM is_t WHERE d > date '2024-01-15';
SELECT d, a FROM is_t WHERE d = date '2024-01-07' ORDER BY a, d;
SELECT count(*), sum(a) FROM is_t WHERE d BETWEEN date '2024-01-03' AND date '2024-01-05';
SELECT id, c FROM is_t WHERE c < -9 AND a > 6 ORDER BY id;
SELECT id, c FROM is_t WHERE a = 8 AND c > 10 ORDER BY id;
-- Changes seen through the indexes, inside and after a transaction.
BEGIN;
UPDATE is_t SET a = 4 WHERE id IN (5, 6);
DELETE FROM is_t WHERE id = 13;
INSERT INTO is_t VALUES (500, 4, 'zz', 1.5, date '2025-01-01');
UPDATE is_t SET id = 600 WHERE id = 22;
SELECT id FROM is_t WHERE a = 4 ORDER BY id;
SELECT id, b FROM is_t ORDER BY b DESC NULLS LAST, id LIMIT 3;
SELECT max(d) FROM is_t;
ROLLBACK;
SELECT id FROM is_t WHERE a = 4 ORDER BY id;
UPDATE is_t SET c = NULL WHERE id BETWEEN 40 AND 45;
UPDATE is_t SET a = NULL, b = 'b2' WHERE id = 7;
UPDATE is_t SET a = a WHERE id = 8;
SELECT id, a, b FROM is_t WHERE a IS NULL AND b = 'b2' ORDER BY id;
SELECT count(*) FROM is_t WHERE c IS NULL;
SELECT id FROM is_t WHERE a = 8 ORDER BY id;
-- Prepared statements with parameters as bounds.
PREPARE is_q(int, text) AS SELECT id FROM is_t WHERE a = $1 AND b > $2 ORDER BY id;
EXECUTE is_q(3, 'c');
EXECUTE is_q(5, 'a');
DEALLOCATE is_q;
-- Contradictory and overlapping bounds on one key column (the ones the
-- range does not apply stay as filters).
SELECT id FROM is_t WHERE a = 3 AND a > 5;
SELECT id FROM is_t WHERE a > 5 AND a = 3;
SELECT id FROM is_t WHERE a = 6 AND a >= 6 AND a < 7 ORDER BY id;
SELECT id FROM is_t WHERE a IS NULL AND a > 1;
SELECT id FROM is_t WHERE a IN (2, 3) AND a > 2 ORDER BY id;
SELECT id FROM is_t WHERE a = 4 AND b = 'c1' AND b < 'b' ORDER BY id;
-- Joins into an indexed table.
CREATE TABLE is_u (k int PRIMARY KEY, a int);
INSERT INTO is_u VALUES (1, 2), (2, 7), (3, NULL);
SELECT u.k, count(t.id) FROM is_u u LEFT JOIN is_t t ON t.a = u.a GROUP BY u.k ORDER BY u.k;
SELECT u.k, t.id FROM is_u u JOIN is_t t ON t.a = u.a AND t.b = 'c1' ORDER BY 1, 2;
DROP TABLE is_t, is_u;
