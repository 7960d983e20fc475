--
-- ddl_alter_rekey_halves: ADD PRIMARY KEY of a table of many blocks in its
-- sorted files re-keys the old table's two key ranges on two threads (the
-- path of pgbench -i's accounts). New keys ascending in load order go in
-- whole; a NULL key, a duplicate, keys out of load order or halves whose
-- keys overlap fall back to the serial pass, reported or loaded as before,
-- and every row is kept.
--
CREATE TABLE rh (id int, g int, t text);
INSERT INTO rh SELECT g, g % 10, repeat('f', 20) || g FROM generate_series(1, 40000) g;
VACUUM rh; -- into sorted files: enough blocks for two halves
-- a NULL in the new key late in the table: 23502, the table unchanged
UPDATE rh SET id = NULL WHERE id = 31000;
ALTER TABLE rh ADD PRIMARY KEY (id);
SELECT count(*), count(id), sum(id) FROM rh;
UPDATE rh SET id = 31000 WHERE id IS NULL;
-- a duplicate late in the table: 23505 with the key in DETAIL
UPDATE rh SET id = 35000 WHERE id = 35001;
ALTER TABLE rh ADD PRIMARY KEY (id);
UPDATE rh SET id = 35001 WHERE t = repeat('f', 20) || 35001;
-- in a transaction rolled back: the table keeps no key
BEGIN;
ALTER TABLE rh ADD PRIMARY KEY (id);
SELECT count(*), sum(id) FROM rh WHERE id BETWEEN 19990 AND 20010;
ROLLBACK;
INSERT INTO rh VALUES (40000, 0, 'a second 40000');
DELETE FROM rh WHERE t = 'a second 40000';
-- in whole
ALTER TABLE rh ADD PRIMARY KEY (id);
SELECT count(*), count(DISTINCT id), sum(id), sum(g), min(id), max(id), sum(length(t)) FROM rh;
SELECT * FROM rh WHERE id IN (1, 19999, 20000, 20001, 39999, 40000) ORDER BY id;
SELECT count(*), sum(g) FROM rh WHERE id BETWEEN 15000 AND 25000;
SELECT id FROM rh ORDER BY id DESC LIMIT 3;
INSERT INTO rh VALUES (20000, 0, 'again');
INSERT INTO rh VALUES (40001, 1, 'after');
SELECT id, t FROM rh WHERE id >= 39999 ORDER BY id;
DROP TABLE rh;
-- two ascending runs, the later keys loaded first: halves out of order or
-- overlapping, so the serial pass; every row under its key
CREATE TABLE rh2 (id int NOT NULL, t text);
INSERT INTO rh2 SELECT g, repeat('y', 20) || g FROM generate_series(20001, 40000) g;
INSERT INTO rh2 SELECT g, repeat('y', 20) || g FROM generate_series(1, 20000) g;
VACUUM rh2;
ALTER TABLE rh2 ADD PRIMARY KEY (id);
SELECT count(*), count(DISTINCT id), sum(id), min(id), max(id) FROM rh2;
SELECT * FROM rh2 WHERE id IN (1, 20000, 20001, 40000) ORDER BY id;
SELECT count(*) FROM rh2 WHERE t <> repeat('y', 20) || id;
DROP TABLE rh2;
-- each half's keys ascend but the halves share keys: 23505
CREATE TABLE rh3 (id int, t text);
INSERT INTO rh3 SELECT g, repeat('z', 20) || g FROM generate_series(1, 20000) g;
INSERT INTO rh3 VALUES (20000, 'the duplicate');
INSERT INTO rh3 SELECT g, repeat('z', 20) || g FROM generate_series(20001, 40000) g;
VACUUM rh3;
ALTER TABLE rh3 ADD PRIMARY KEY (id);
SELECT count(*), count(DISTINCT id) FROM rh3;
DROP TABLE rh3;
