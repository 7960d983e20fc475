--
-- ddl_sequence_owned: CREATE/ALTER SEQUENCE ... OWNED BY (same owner and
-- schema required, NONE, identity sequences refuse), owned sequences dropped
-- with their column or table, and a serial column's default following its
-- sequence through RENAME and SET SCHEMA.
--
CREATE TABLE ob (id int, other int);
CREATE SEQUENCE ob_seq OWNED BY ob.id;
CREATE SEQUENCE ob_seq2;
ALTER SEQUENCE ob_seq2 OWNED BY ob.other;
ALTER SEQUENCE ob_seq2 OWNED BY ob.nosuch;
ALTER SEQUENCE ob_seq2 OWNED BY ob;
ALTER SEQUENCE ob_seq2 OWNED BY nosuch.col;
CREATE VIEW ob_v AS SELECT 1 AS x;
ALTER SEQUENCE ob_seq2 OWNED BY ob_v.x;
CREATE SCHEMA ob_s;
CREATE SEQUENCE ob_s.s3 OWNED BY ob.id;
ALTER SEQUENCE ob_seq2 OWNED BY NONE;
ALTER TABLE ob DROP COLUMN id;
SELECT relname FROM pg_class WHERE relname LIKE 'ob_seq%' ORDER BY 1;
ALTER SEQUENCE ob_seq2 OWNED BY ob.other;
DROP TABLE ob;
SELECT relname FROM pg_class WHERE relname LIKE 'ob_seq%' ORDER BY 1;
CREATE TABLE ob2 (id int GENERATED ALWAYS AS IDENTITY, n serial);
ALTER SEQUENCE ob2_id_seq OWNED BY NONE;
ALTER SEQUENCE ob2_n_seq OWNED BY NONE;
DROP TABLE ob2;
SELECT relname FROM pg_class WHERE relname LIKE 'ob2%' ORDER BY 1;
DROP SEQUENCE ob2_n_seq;
DROP VIEW ob_v;
DROP SCHEMA ob_s;
CREATE TABLE ren (id serial, v int);
ALTER SEQUENCE ren_id_seq RENAME TO ren_seq_renamed;
INSERT INTO ren (v) VALUES (1), (2);
SELECT * FROM ren ORDER BY id;
CREATE SCHEMA ren_s;
ALTER TABLE ren SET SCHEMA ren_s;
INSERT INTO ren_s.ren (v) VALUES (3);
SELECT * FROM ren_s.ren ORDER BY id;
ALTER SEQUENCE ren_s.ren_seq_renamed SET SCHEMA public;
DROP SCHEMA ren_s CASCADE;
