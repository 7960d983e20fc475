--
-- views_deps: a view depends on the sequences and relations its query names
-- by a regclass literal (nextval('s'), currval, 'r'::regclass), as on those
-- it reads: DROP without CASCADE fails with 2BP01 naming the view, CASCADE
-- drops the view too, a rename keeps the view working. DROP FUNCTION /
-- DROP TYPE of built-ins.
-- (On a shared store the same dependencies make CREATE VIEW on one server
-- and DROP on another conflict: docs/scale-out.md.)
--
CREATE SEQUENCE vd_seq;
CREATE SEQUENCE vd_seq2;
CREATE TABLE vd_t (a int);
CREATE TABLE vd_u (b int);
INSERT INTO vd_u VALUES (7);
CREATE VIEW vd_next AS SELECT nextval('vd_seq') AS n;
CREATE VIEW vd_curr AS SELECT currval('public.vd_seq2'::regclass) AS c;
CREATE VIEW vd_cls AS SELECT 'vd_t'::regclass AS r, b FROM vd_u;
SELECT relname FROM pg_class WHERE relname LIKE 'vd\_%' AND relkind = 'v' ORDER BY 1;
-- each drop is refused while the view exists
DROP SEQUENCE vd_seq;
DROP SEQUENCE vd_seq2;
DROP TABLE vd_t;
DROP TABLE vd_u;
-- a sequence no view names drops
CREATE SEQUENCE vd_free;
DROP SEQUENCE vd_free;
-- the views still work
SELECT n FROM vd_next;
SELECT r FROM vd_cls;
-- renaming the relation keeps the view working and depending on it
ALTER SEQUENCE vd_seq RENAME TO vd_seq_r;
SELECT n FROM vd_next;
DROP SEQUENCE vd_seq_r;
ALTER SEQUENCE vd_seq_r RENAME TO vd_seq;
ALTER TABLE vd_t RENAME TO vd_t2;
SELECT r FROM vd_cls;
DROP TABLE vd_t2;
ALTER TABLE vd_t2 RENAME TO vd_t;
SELECT r FROM vd_cls;
-- CASCADE drops the dependent view
DROP SEQUENCE vd_seq CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'vd\_%' AND relkind = 'v' ORDER BY 1;
DROP TABLE vd_t CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'vd\_%' AND relkind = 'v' ORDER BY 1;
DROP VIEW vd_curr;
DROP SEQUENCE vd_seq2;
DROP TABLE vd_u;
-- built-in functions and types cannot be dropped (user-defined ones do not
-- exist in Strata)
DROP FUNCTION lower(text);
DROP TYPE int4;
DROP FUNCTION IF EXISTS lower(text);
DROP FUNCTION vd_nosuch(int, text);
DROP FUNCTION IF EXISTS vd_nosuch(int);
DROP TYPE vd_nosuch;
DROP TYPE IF EXISTS vd_nosuch;
