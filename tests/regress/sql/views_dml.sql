--
-- views_dml: INSERT/UPDATE/DELETE through automatically updatable views (one
-- table, no aggregation/DISTINCT/LIMIT/set operations): column renames,
-- computed columns, the view's WHERE applied to UPDATE/DELETE (no CHECK
-- OPTION: inserted rows need not be visible), RETURNING through the view, and
-- the errors for views that are not updatable.
--
CREATE TABLE vb (id int PRIMARY KEY, name text, qty int DEFAULT 7, note text);
INSERT INTO vb VALUES (1, 'a', 1, 'x'), (2, 'b', 2, 'y'), (3, 'c', 30, 'z');
CREATE VIEW vv AS SELECT id, name AS label, qty, qty * 2 AS dbl FROM vb WHERE qty < 10;
INSERT INTO vv (id, label) VALUES (4, 'd');
INSERT INTO vv (id, label, qty) VALUES (5, 'e', 50) RETURNING *;
UPDATE vv SET qty = qty + 1 WHERE label <> 'a' RETURNING id, label, qty, dbl;
UPDATE vv SET label = 'zz' WHERE id = 3;
DELETE FROM vv WHERE id = 1 RETURNING *;
DELETE FROM vv WHERE id = 5;
SELECT * FROM vb ORDER BY id;
SELECT * FROM vv ORDER BY id;
UPDATE vv AS w SET qty = 0 WHERE w.id = 2;
SELECT * FROM vb ORDER BY id;
-- errors
INSERT INTO vv VALUES (6, 'f', 6, 12);
UPDATE vv SET dbl = 1;
UPDATE vv SET nosuch = 1;
CREATE VIEW vagg AS SELECT name, count(*) FROM vb GROUP BY name;
DELETE FROM vagg;
CREATE VIEW vjoin AS SELECT a.id FROM vb a, vb b WHERE a.id = b.id;
UPDATE vjoin SET id = 1;
INSERT INTO vagg VALUES ('x', 1);
DROP VIEW vv, vagg, vjoin;
DROP TABLE vb;
-- privileges: the user's on the view, the view owner's on the base table
CREATE ROLE vdml_user LOGIN;
CREATE TABLE vpb (id int PRIMARY KEY, v text);
CREATE VIEW vpv AS SELECT id, v FROM vpb WHERE id > 0;
GRANT SELECT, INSERT, UPDATE, DELETE ON vpv TO vdml_user;
SET ROLE vdml_user;
INSERT INTO vpv VALUES (1, 'a');
UPDATE vpv SET v = 'b' WHERE id = 1;
SELECT * FROM vpv;
DELETE FROM vpv WHERE id = 1;
INSERT INTO vpb VALUES (2, 'x');
RESET ROLE;
REVOKE ALL ON vpv FROM vdml_user;
GRANT ALL ON vpb TO vdml_user;
SET ROLE vdml_user;
INSERT INTO vpv VALUES (5, 'a');
UPDATE vpv SET v = 'c';
RESET ROLE;
DROP VIEW vpv;
DROP TABLE vpb;
DROP ROLE vdml_user;
