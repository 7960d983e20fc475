--
-- ddl_truncate: TRUNCATE of several tables, tables referenced by foreign keys
-- (refused, or CASCADE), RESTART IDENTITY for serial and identity columns,
-- TRUNCATE inside a transaction (its earlier writes go too; rollback keeps
-- the rows), errors.
--
CREATE TABLE tr_p (id serial PRIMARY KEY, v text);
CREATE TABLE tr_c (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, pid int REFERENCES tr_p);
CREATE TABLE tr_g (id int PRIMARY KEY, cid int REFERENCES tr_c);
INSERT INTO tr_p (v) VALUES ('a'), ('b');
INSERT INTO tr_c (pid) VALUES (1), (2);
INSERT INTO tr_g VALUES (1, 1);
TRUNCATE tr_p;
TRUNCATE tr_p, tr_c;
TRUNCATE tr_p, tr_c, tr_g;
INSERT INTO tr_p (v) VALUES ('c');
SELECT * FROM tr_p;
INSERT INTO tr_c (pid) VALUES (3);
INSERT INTO tr_g VALUES (1, 3);
TRUNCATE tr_p CASCADE;
SELECT count(*) FROM tr_g;
INSERT INTO tr_p (v) VALUES ('d');
TRUNCATE tr_p RESTART IDENTITY CASCADE;
INSERT INTO tr_p (v) VALUES ('e');
INSERT INTO tr_c (pid) VALUES (1);
SELECT * FROM tr_p;
SELECT * FROM tr_c;
BEGIN;
INSERT INTO tr_p (v) VALUES ('f');
TRUNCATE tr_p CASCADE;
SELECT * FROM tr_p;
INSERT INTO tr_p (v) VALUES ('g');
SELECT v FROM tr_p;
ROLLBACK;
SELECT * FROM tr_p;
CREATE VIEW tr_v AS SELECT * FROM tr_p;
TRUNCATE tr_v;
TRUNCATE nosuch;
TRUNCATE TABLE ONLY tr_g CONTINUE IDENTITY;
DROP VIEW tr_v;
DROP TABLE tr_g, tr_c, tr_p;
