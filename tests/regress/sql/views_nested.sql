--
-- views_nested: INSERT/UPDATE/DELETE through automatically updatable views
-- defined over other such views (and over the subquery that column aliases
-- make), WITH [LOCAL | CASCADED] CHECK OPTION (the check_option reloption,
-- information_schema.views.check_option, 44000 naming the innermost view
-- whose condition fails), and PostgreSQL's errors for views that are not
-- updatable at any level.
--
CREATE TABLE vn (a int PRIMARY KEY, b int, c text);
CREATE VIEW vn1 AS SELECT a, b, c FROM vn WHERE a > 0 WITH LOCAL CHECK OPTION;
CREATE VIEW vn2 AS SELECT a, b FROM vn1 WHERE b < 100 WITH CASCADED CHECK OPTION;
CREATE VIEW vn3 AS SELECT a, b FROM vn2 WHERE a < 50;
CREATE VIEW vn4 AS SELECT a, b FROM vn1 WHERE b < 100;
CREATE VIEW vn5 AS SELECT a, b FROM vn4 WHERE b > 10 WITH LOCAL CHECK OPTION;
CREATE VIEW vn6 AS SELECT a AS k, b * 2 AS doubled, b FROM vn4;
CREATE VIEW vnx (x, y) AS SELECT a, b FROM vn WHERE a < 10 WITH CHECK OPTION;
CREATE VIEW vnopt WITH (check_option = 'cascaded') AS SELECT a FROM vn WHERE a > 5;
CREATE VIEW vnbad WITH (check_option = foo) AS SELECT a FROM vn;
CREATE VIEW vnd AS SELECT DISTINCT a FROM vn WITH CHECK OPTION;
CREATE VIEW vnd2 AS SELECT DISTINCT a FROM vn;
CREATE VIEW vnd3 AS SELECT a FROM vnd2;
-- (only the view's own query must be updatable for the option)
CREATE VIEW vnd4 AS SELECT a FROM vnd2 WITH CHECK OPTION;
CREATE VIEW vnj AS SELECT vn.a FROM vn, vn1 WHERE vn.a = vn1.a;
CREATE VIEW vnj2 AS SELECT a FROM vnj;
SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'vn%' AND relkind = 'v' ORDER BY 1;
SELECT table_name, check_option FROM information_schema.views WHERE table_name LIKE 'vn%' ORDER BY 1;
-- LOCAL: the view's own condition
INSERT INTO vn1 VALUES (1, 1, 'x');
INSERT INTO vn1 VALUES (-1, 1, 'x');
-- CASCADED over LOCAL: both conditions, the innermost failing one named
INSERT INTO vn2 VALUES (2, 200);
INSERT INTO vn2 VALUES (-2, 2);
INSERT INTO vn2 VALUES (-2, 200);
INSERT INTO vn2 VALUES (2, 2);
INSERT INTO vn2 VALUES (-7, NULL);
INSERT INTO vn2 VALUES (7, NULL);
-- no option over CASCADED: the cascaded checks apply, not vn3's own
INSERT INTO vn3 VALUES (60, 3);
INSERT INTO vn3 VALUES (-3, 3);
INSERT INTO vn3 VALUES (3, 300);
-- no option over LOCAL: only vn1's condition
INSERT INTO vn4 VALUES (4, 400);
INSERT INTO vn4 VALUES (-4, 4);
-- LOCAL over no option over LOCAL: vn5's and vn1's, not vn4's
INSERT INTO vn5 VALUES (5, 5);
INSERT INTO vn5 VALUES (6, 600);
INSERT INTO vn5 VALUES (-6, 60);
INSERT INTO vn5 VALUES (8, 80) RETURNING *;
-- UPDATE: the new row is checked; rows outside the views are not touched
UPDATE vn2 SET b = 500 WHERE a = 2;
UPDATE vn2 SET b = b + 1 WHERE a = 2 RETURNING *;
UPDATE vn1 SET a = -a WHERE a = 1;
UPDATE vn4 SET b = 1000 WHERE a = 4;
UPDATE vn4 SET b = 99 WHERE a = 8;
UPDATE vn4 SET b = 1 WHERE a = 4 RETURNING *;
-- DELETE through three levels: only rows all of them show
DELETE FROM vn3 WHERE a = 60;
DELETE FROM vn3 WHERE a = 6;
SELECT * FROM vn ORDER BY a;
-- (an equality and a range on the same key column: both hold)
SELECT * FROM vn WHERE a = 60 AND a < 50;
SELECT * FROM vn WHERE a > 0 AND a = 6 AND a <= 6;
SELECT * FROM vn WHERE a IN (6, 60) AND a > 10;

-- computed columns of a nested view
INSERT INTO vn6 (k, b) VALUES (9, 9);
INSERT INTO vn6 (k, doubled) VALUES (10, 20);
UPDATE vn6 SET doubled = 4 WHERE k = 9;
UPDATE vn6 SET b = 19 WHERE k = 9 RETURNING *;
SELECT * FROM vn6 ORDER BY k;
-- column aliases
INSERT INTO vnx VALUES (5, 5);
INSERT INTO vnx VALUES (50, 5);
UPDATE vnx SET y = 7 WHERE x = 5;
UPDATE vnx SET x = 70 WHERE x = 5;
SELECT * FROM vnx ORDER BY x;
INSERT INTO vnopt VALUES (3);
INSERT INTO vnopt VALUES (30);
-- not updatable at some level
INSERT INTO vnd3 VALUES (1);
UPDATE vnd3 SET a = 1;
DELETE FROM vnd3;
INSERT INTO vnj2 VALUES (1);
-- a subquery in FROM (not the column aliases' wrapper) is not updatable
CREATE VIEW vns AS SELECT * FROM (SELECT a FROM vn) s;
INSERT INTO vns VALUES (1);
CREATE VIEW vns2 AS SELECT * FROM (SELECT a FROM vn) s WITH CHECK OPTION;
DROP VIEW vns;
-- ON CONFLICT through a nested view
INSERT INTO vn2 VALUES (2, 3) ON CONFLICT (a) DO UPDATE SET b = excluded.b;
INSERT INTO vn2 VALUES (2, 4) ON CONFLICT (a) DO UPDATE SET b = 400;
SELECT * FROM vn ORDER BY a;
-- CREATE OR REPLACE drops the option unless given again
CREATE OR REPLACE VIEW vn1 AS SELECT a, b, c FROM vn WHERE a > 0;
INSERT INTO vn1 VALUES (-11, 1, 'y');
SELECT table_name, check_option FROM information_schema.views WHERE table_name = 'vn1';
DROP VIEW vnj2, vnj, vnd4, vnd3, vnd2, vnopt, vnx, vn6, vn5, vn4, vn3, vn2, vn1;
DROP TABLE vn;
-- privileges: the user's on the view, each view owner's on the view below,
-- the last owner's on the table
CREATE ROLE vp_own1; CREATE ROLE vp_own2; CREATE ROLE vp_user;
CREATE TABLE vp_t (a int PRIMARY KEY, b int);
GRANT SELECT, INSERT, UPDATE, DELETE ON vp_t TO vp_own1;
GRANT CREATE ON SCHEMA public TO vp_own1, vp_own2;
SET ROLE vp_own1;
CREATE VIEW vp_v1 AS SELECT a, b FROM vp_t WHERE a > 0;
GRANT SELECT, INSERT ON vp_v1 TO vp_own2;
RESET ROLE;
SET ROLE vp_own2;
CREATE VIEW vp_v2 AS SELECT a, b FROM vp_v1;
GRANT SELECT, INSERT, UPDATE ON vp_v2 TO vp_user;
RESET ROLE;
SET ROLE vp_user;
INSERT INTO vp_v2 VALUES (1, 1);
UPDATE vp_v2 SET b = 2;
DELETE FROM vp_v2;
RESET ROLE;
SET ROLE vp_own1;
REVOKE INSERT ON vp_v1 FROM vp_own2;
RESET ROLE;
SET ROLE vp_user;
INSERT INTO vp_v2 VALUES (2, 2);
RESET ROLE;
REVOKE INSERT ON vp_t FROM vp_own1;
SET ROLE vp_own1;
GRANT INSERT ON vp_v1 TO vp_own2;
RESET ROLE;
SET ROLE vp_user;
INSERT INTO vp_v2 VALUES (3, 3);
RESET ROLE;
SELECT * FROM vp_t;
DROP VIEW vp_v2;
DROP VIEW vp_v1;
DROP TABLE vp_t;
REVOKE CREATE ON SCHEMA public FROM vp_own1, vp_own2;
DROP ROLE vp_own1, vp_own2, vp_user;
