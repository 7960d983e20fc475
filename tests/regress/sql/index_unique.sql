-- Unique indexes and UNIQUE constraints: duplicates refused with
-- PostgreSQL's message and detail, several NULLs allowed (unless NULLS NOT
-- DISTINCT), keys freed and taken within one transaction, ON CONFLICT on a
-- unique index, unique builds over duplicate data.
CREATE TABLE iu_t (id int PRIMARY KEY, a int UNIQUE, b text, c int, CONSTRAINT iu_bc UNIQUE (b, c));
INSERT INTO iu_t VALUES (1, 10, 'x', 1), (2, 20, 'y', 2), (3, NULL, NULL, NULL), (4, NULL, 'x', NULL);
INSERT INTO iu_t VALUES (5, 10, 'z', 5);
INSERT INTO iu_t VALUES (5, 50, 'x', 1);
INSERT INTO iu_t VALUES (5, NULL, 'x', NULL);
INSERT INTO iu_t VALUES (6, 60, 'q', 6), (7, 60, 'r', 7);
UPDATE iu_t SET a = 20 WHERE id = 1;
UPDATE iu_t SET a = a + 10 WHERE id IN (1, 2);
SELECT * FROM iu_t ORDER BY id;
-- A key freed and taken again in one transaction.
BEGIN;
DELETE FROM iu_t WHERE id = 1;
INSERT INTO iu_t VALUES (8, 20, 'x', 1);
SELECT id, a FROM iu_t WHERE a = 20;
COMMIT;
BEGIN;
UPDATE iu_t SET a = 99 WHERE id = 8;
UPDATE iu_t SET a = 20 WHERE id = 2;
INSERT INTO iu_t VALUES (9, 99, 'n', 9);
ROLLBACK;
SELECT id, a FROM iu_t WHERE a IN (20, 30, 99) ORDER BY id;
-- Savepoints give a key back.
BEGIN;
SAVEPOINT s1;
INSERT INTO iu_t VALUES (10, 100, 'p', 10);
ROLLBACK TO s1;
INSERT INTO iu_t VALUES (11, 100, 'p', 11);
COMMIT;
SELECT id, a FROM iu_t WHERE a = 100;
-- ON CONFLICT on a unique index.
INSERT INTO iu_t VALUES (12, 100, 'k', 12) ON CONFLICT DO NOTHING;
INSERT INTO iu_t VALUES (12, 100, 'k', 12) ON CONFLICT (a) DO NOTHING;
INSERT INTO iu_t VALUES (12, 100, 'k', 12) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *;
INSERT INTO iu_t VALUES (11, 101, 'k', 13) ON CONFLICT (a) DO UPDATE SET b = 'never';
INSERT INTO iu_t VALUES (13, 100, 'k', 14) ON CONFLICT ON CONSTRAINT iu_t_a_key DO UPDATE SET c = excluded.c + 1000 RETURNING id, a, c;
SELECT * FROM iu_t ORDER BY id;
-- CREATE UNIQUE INDEX over the data, NULLS NOT DISTINCT.
CREATE UNIQUE INDEX iu_c ON iu_t (c);
CREATE TABLE iu_n (a int, b int);
INSERT INTO iu_n VALUES (1, NULL), (2, NULL), (1, 3);
CREATE UNIQUE INDEX iu_n_a ON iu_n (a);
CREATE UNIQUE INDEX iu_n_b ON iu_n (b);
CREATE UNIQUE INDEX iu_n_b ON iu_n (b) NULLS NOT DISTINCT;
DELETE FROM iu_n WHERE a = 2;
CREATE UNIQUE INDEX iu_n_b ON iu_n (b) NULLS NOT DISTINCT;
INSERT INTO iu_n VALUES (7, NULL);
INSERT INTO iu_n VALUES (7, 8), (8, 8);
SELECT * FROM iu_n ORDER BY a, b;
-- A unique expression index and a partial one.
CREATE UNIQUE INDEX iu_lower ON iu_t (lower(b)) WHERE c > 10;
INSERT INTO iu_t VALUES (20, 200, 'K', 20);
INSERT INTO iu_t VALUES (21, 201, 'K', 5);
SELECT id, b FROM iu_t WHERE lower(b) = 'k' AND c > 10 ORDER BY id;
-- Renaming the index renames its constraint, and the other way round.
ALTER INDEX iu_t_a_key RENAME TO iu_t_a_uniq;
INSERT INTO iu_t VALUES (30, 100, 'r', 30);
ALTER TABLE iu_t RENAME CONSTRAINT iu_t_a_uniq TO iu_t_a_key;
INSERT INTO iu_t VALUES (30, 100, 'r', 30);
SELECT indexname FROM pg_indexes WHERE tablename = 'iu_t' AND indexname LIKE 'iu_t_a%';
-- The index behind a constraint cannot be dropped alone.
DROP INDEX iu_t_a_key;
DROP INDEX iu_bc;
COPY iu_n FROM stdin;
9	9
9	\N
\.
COPY iu_n FROM stdin;
10	10
11	10
\.
SELECT * FROM iu_n ORDER BY a, b;
DROP TABLE iu_t, iu_n;
