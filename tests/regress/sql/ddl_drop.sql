--
-- ddl_drop: DROP TABLE/VIEW/SEQUENCE/SCHEMA with dependencies: views on
-- tables and views, foreign keys, column defaults using a sequence, schema
-- members. RESTRICT lists every dependent object, CASCADE reports what goes
-- with it, IF EXISTS skips with a notice.
--
CREATE TABLE p (id int PRIMARY KEY);
CREATE VIEW v1 AS SELECT id FROM p;
CREATE TABLE c (id serial PRIMARY KEY, pid int REFERENCES p);
CREATE VIEW v2 AS SELECT * FROM v1;
CREATE VIEW v3 AS SELECT c.id FROM c JOIN p ON p.id = c.pid;
DROP TABLE p;
DROP TABLE p CASCADE;
DROP SEQUENCE c_id_seq;
CREATE SEQUENCE s1;
CREATE TABLE d (a int DEFAULT nextval('s1'));
DROP SEQUENCE s1;
DROP SEQUENCE s1 CASCADE;
INSERT INTO d DEFAULT VALUES;
SELECT * FROM d;
CREATE SCHEMA sc;
CREATE TABLE sc.t1 (a int PRIMARY KEY);
CREATE TABLE sc.t2 (a int REFERENCES sc.t1, b serial);
CREATE VIEW public.vv AS SELECT * FROM sc.t2;
CREATE SEQUENCE sc.free;
DROP SCHEMA sc;
DROP SCHEMA sc CASCADE;
DROP TABLE c, d;
DROP TABLE IF EXISTS nosuch, c;
DROP VIEW c;
DROP TABLE v1;
