--
-- column_hints: the HINT for a misspelled or invisible column (PostgreSQL's
-- fuzzy match over the range table), in SELECT, INSERT (VALUES, SELECT,
-- RETURNING, ON CONFLICT), UPDATE, DELETE and views.
--
CREATE TABLE ht (id int PRIMARY KEY, name text, amount int);
CREATE TABLE hu (id int PRIMARY KEY, nome text);
INSERT INTO ht VALUES (1, nmae, 1);
INSERT INTO ht VALUES (1, name, 1);
INSERT INTO ht (id, nmae) VALUES (1, 'a');
INSERT INTO ht (id, name) VALUES (1, 'a') RETURNING nmae;
INSERT INTO ht (id, name) VALUES (2, 'b') ON CONFLICT (id) DO UPDATE SET name = excluded.nmae;
INSERT INTO ht (id, name) VALUES (2, 'b') ON CONFLICT (id) DO UPDATE SET nmae = 'x';
INSERT INTO ht SELECT 3, nmae, 1 FROM hu;
UPDATE ht SET nmae = 'x';
UPDATE ht SET name = nmae;
UPDATE ht SET name = 'x' WHERE nmae = 'a';
UPDATE ht SET name = 'x' FROM hu WHERE hu.nmae = ht.name;
DELETE FROM ht WHERE nmae = 'a';
DELETE FROM ht USING hu WHERE nmae = 'a';
SELECT nmae FROM ht;
SELECT ht.nmae FROM ht;
SELECT * FROM ht ORDER BY nmae;
SELECT amount FROM ht GROUP BY amout;
SELECT * FROM ht JOIN hu USING (nmae);
SELECT * FROM ht WHERE amout > (SELECT 1);
CREATE INDEX ON ht (nmae);
ALTER TABLE ht DROP COLUMN nmae;
ALTER TABLE ht RENAME COLUMN nmae TO x;
SELECT * FROM ht h WHERE h.nmae = 'x';
VALUES (nmae);
SELECT * FROM (SELECT 1 AS abc) s WHERE abd = 1;
CREATE VIEW hv AS SELECT nmae FROM ht;
DROP TABLE ht, hu;
