--
-- fk_actions: ON DELETE / ON UPDATE CASCADE, SET NULL, SET DEFAULT and
-- RESTRICT; NO ACTION lets a statement put the key back; self-referencing
-- tables (order of rows within one statement, recursive cascade).
--
CREATE TABLE fa_p (id int PRIMARY KEY, v text);
CREATE TABLE fa_c (id int PRIMARY KEY, pid int DEFAULT 0 REFERENCES fa_p ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE fa_n (id int PRIMARY KEY, pid int REFERENCES fa_p ON DELETE SET NULL ON UPDATE SET NULL);
CREATE TABLE fa_d (id int PRIMARY KEY, pid int DEFAULT 0 REFERENCES fa_p ON DELETE SET DEFAULT);
CREATE TABLE fa_r (id int PRIMARY KEY, pid int REFERENCES fa_p ON DELETE RESTRICT ON UPDATE RESTRICT);
INSERT INTO fa_p VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO fa_c VALUES (10, 1), (11, 1), (12, 2);
INSERT INTO fa_n VALUES (20, 1), (21, 2);
INSERT INTO fa_d VALUES (30, 1), (31, 3);
INSERT INTO fa_r VALUES (40, 3);
UPDATE fa_p SET id = 5 WHERE id = 1;
SELECT * FROM fa_c ORDER BY id;
SELECT * FROM fa_n ORDER BY id;
SELECT * FROM fa_d ORDER BY id;
DELETE FROM fa_p WHERE id = 5;
SELECT * FROM fa_c ORDER BY id;
SELECT * FROM fa_d ORDER BY id;
DELETE FROM fa_p WHERE id = 3;
UPDATE fa_p SET id = 33 WHERE id = 3;
DELETE FROM fa_r;
DELETE FROM fa_p WHERE id = 3;
SELECT * FROM fa_d ORDER BY id;
DELETE FROM fa_p WHERE id = 0;
BEGIN;
DELETE FROM fa_p WHERE id = 2;
SELECT * FROM fa_c ORDER BY id;
SELECT * FROM fa_n ORDER BY id;
ROLLBACK;
SELECT * FROM fa_c ORDER BY id;
-- NO ACTION allows the key to come back in the same statement; RESTRICT does not
CREATE TABLE fa_q (id int PRIMARY KEY, pid int REFERENCES fa_p);
INSERT INTO fa_q VALUES (1, 2);
UPDATE fa_p SET id = CASE id WHEN 2 THEN 22 WHEN 22 THEN 2 END WHERE id IN (2, 22);
INSERT INTO fa_p VALUES (22, 'x');
UPDATE fa_p SET id = CASE id WHEN 2 THEN 22 WHEN 22 THEN 2 END WHERE id IN (2, 22);
SELECT * FROM fa_p ORDER BY id;
-- self reference
CREATE TABLE fa_tree (id int PRIMARY KEY, parent int REFERENCES fa_tree ON DELETE CASCADE);
INSERT INTO fa_tree VALUES (1, NULL), (2, 1), (3, 2), (4, 1);
INSERT INTO fa_tree VALUES (6, 5), (5, 1);
INSERT INTO fa_tree VALUES (7, 8);
DELETE FROM fa_tree WHERE id = 2;
SELECT * FROM fa_tree ORDER BY id;
DELETE FROM fa_tree WHERE id = 1;
SELECT count(*) FROM fa_tree;
DROP TABLE fa_tree, fa_q, fa_r, fa_d, fa_n, fa_c, fa_p;
