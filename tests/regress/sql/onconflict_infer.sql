--
-- onconflict_infer: how INSERT ... ON CONFLICT picks its arbiter (the primary
-- key, unique constraints, unique indexes on columns or expressions, partial
-- unique indexes with an implied WHERE) and PostgreSQL's errors for every
-- way the clause can be wrong; DO UPDATE with multiple-column SET items,
-- changing the primary key, and touching a row twice.
--
CREATE TABLE oc (a int PRIMARY KEY, b int, c text, d int CHECK (d > 0), e int, f int);
CREATE UNIQUE INDEX oc_b ON oc (b);
CREATE UNIQUE INDEX oc_e_part ON oc (e) WHERE e > 0;
CREATE UNIQUE INDEX oc_lower ON oc (lower(c));
CREATE INDEX oc_f ON oc (f);
INSERT INTO oc VALUES (1, 1, 'x', 1, 1, 1);
-- a misspelled column: 42703 at the inference clause
INSERT INTO oc VALUES (1) ON CONFLICT (misspelled) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (a, misspelled) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (lower(zz)) DO NOTHING;
-- no unique index or constraint on exactly these columns: 42P10
INSERT INTO oc VALUES (1) ON CONFLICT (c) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (f) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (a, b) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (upper(c)) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT ((a + 0)) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (a COLLATE "C") DO NOTHING;
-- a partial unique index needs a WHERE that implies its predicate
INSERT INTO oc VALUES (2, 2, 'z', 1, 1) ON CONFLICT (e) DO UPDATE SET c = 'y';
INSERT INTO oc VALUES (2, 2, 'z', 1, 1) ON CONFLICT (e) WHERE e > 0 DO UPDATE SET c = 'y' RETURNING *;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE e > 5 DO UPDATE SET c = 'v' RETURNING *;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE e > -1 DO NOTHING;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE zz > 0 DO NOTHING;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE e > (SELECT 1) DO NOTHING;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE sum(e) > 0 DO NOTHING;
INSERT INTO oc VALUES (3, 3, 'w', 1, 1) ON CONFLICT (e) WHERE e DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (a) WHERE excluded.a > 0 DO NOTHING;
-- a WHERE on a full index is accepted
INSERT INTO oc VALUES (1) ON CONFLICT (a) WHERE a > 0 DO UPDATE SET f = 2 RETURNING a, f;
-- ASC/DESC and NULLS are not allowed
INSERT INTO oc VALUES (1) ON CONFLICT (a DESC) DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT (a NULLS FIRST) DO NOTHING;
-- duplicated columns still name the primary key
INSERT INTO oc VALUES (1) ON CONFLICT (a, a) DO NOTHING;
-- a unique index on a column, on an expression
INSERT INTO oc VALUES (4, 1) ON CONFLICT (b) DO UPDATE SET c = 'by b' RETURNING a, b, c;
INSERT INTO oc VALUES (5, 5, 'BY B') ON CONFLICT (lower(c)) DO UPDATE SET f = 5 RETURNING a, c, f;
INSERT INTO oc VALUES (5, 5, 'BY B') ON CONFLICT ((lower(c))) DO NOTHING;
-- the arbiter is checked before the primary key and the other unique indexes
INSERT INTO oc VALUES (1, 7, 'By b') ON CONFLICT (lower(c)) DO UPDATE SET f = 6 RETURNING a, c, f;
INSERT INTO oc VALUES (9, 1, 'q', 1, 1) ON CONFLICT (e) WHERE e > 0 DO UPDATE SET f = 7 RETURNING a, e, f;
INSERT INTO oc VALUES (1, 8) ON CONFLICT (b) DO NOTHING;
-- ON CONSTRAINT
INSERT INTO oc VALUES (1) ON CONFLICT ON CONSTRAINT oc_d_check DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT ON CONSTRAINT nosuch DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT ON CONSTRAINT oc_b DO NOTHING;
INSERT INTO oc VALUES (1) ON CONFLICT ON CONSTRAINT oc_pkey DO UPDATE SET f = 8 RETURNING a, f;
-- DO UPDATE needs a target
INSERT INTO oc VALUES (1) ON CONFLICT DO UPDATE SET c = 'x';
INSERT INTO oc VALUES (1) ON CONFLICT DO NOTHING;
-- the SET list and WHERE of DO UPDATE
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = excluded.bad_col;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET bad_col = 1;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = bad_col;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = oc.bad_col;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = nosuch.c;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = 'q' WHERE excluded.zz > 0;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET b = 1, b = 2;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET b = sum(excluded.a);
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET b = (SELECT 1, 2);
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET (b, c) = ROW(1);
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET (b, c) = 1;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET b[1] = 1;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET b = row_number() OVER ();
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = 1 WHERE 1;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET c = excluded.c WHERE excluded.c = 1;
INSERT INTO oc AS t VALUES (1) ON CONFLICT (a) DO UPDATE SET c = oc.c;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET (b, c) = (SELECT 10, 'm') RETURNING a, b, c;
INSERT INTO oc VALUES (1) ON CONFLICT (a) DO UPDATE SET (b, c) = (11, 'n') RETURNING a, b, c;
INSERT INTO oc VALUES (1, 12, 'o') ON CONFLICT (a) DO UPDATE SET (b, c) = (excluded.b, excluded.c || '!') RETURNING a, b, c;
INSERT INTO oc AS t VALUES (1) ON CONFLICT (a) DO UPDATE SET c = t.c || 'u' WHERE t.b = 12 RETURNING a, c;
-- a row inserted or updated by the same command
INSERT INTO oc VALUES (20), (20) ON CONFLICT (a) DO UPDATE SET f = 3;
INSERT INTO oc VALUES (20), (20) ON CONFLICT (a) DO NOTHING;
SELECT a, f FROM oc WHERE a = 20;
-- DO UPDATE may change the primary key
INSERT INTO oc VALUES (20) ON CONFLICT (a) DO UPDATE SET a = excluded.a + 1 RETURNING a;
INSERT INTO oc VALUES (21) ON CONFLICT (a) DO UPDATE SET a = 1 RETURNING a;
SELECT a FROM oc WHERE a IN (20, 21, 22) ORDER BY a;
SELECT a, b, c, d, e, f FROM oc ORDER BY a;
DROP TABLE oc;
-- a deferrable arbiter is refused when a row is checked
CREATE TABLE ocd (a int PRIMARY KEY, d int, CONSTRAINT ocd_d_key UNIQUE (d) DEFERRABLE);
INSERT INTO ocd VALUES (1, 1);
INSERT INTO ocd VALUES (2, 1) ON CONFLICT (d) DO NOTHING;
INSERT INTO ocd VALUES (2, 1) ON CONFLICT ON CONSTRAINT ocd_d_key DO NOTHING;
INSERT INTO ocd SELECT 2, 1 WHERE false ON CONFLICT (d) DO NOTHING;
SELECT conname, condeferrable FROM pg_constraint WHERE conrelid = 'ocd'::regclass ORDER BY conname;
DROP TABLE ocd;
-- changing the key of a referenced row through DO UPDATE
CREATE TABLE ocp (id int PRIMARY KEY, v text);
CREATE TABLE occ (id int PRIMARY KEY, p int REFERENCES ocp ON UPDATE CASCADE);
INSERT INTO ocp VALUES (1, 'one');
INSERT INTO occ VALUES (10, 1);
INSERT INTO ocp VALUES (1, 'uno') ON CONFLICT (id) DO UPDATE SET id = 2, v = excluded.v RETURNING *;
SELECT * FROM occ;
INSERT INTO ocp VALUES (3, 'tres');
INSERT INTO ocp VALUES (2) ON CONFLICT (id) DO UPDATE SET id = 3;
CREATE TABLE occ2 (id int PRIMARY KEY, p int REFERENCES ocp);
INSERT INTO occ2 VALUES (1, 3);
INSERT INTO ocp VALUES (3) ON CONFLICT (id) DO UPDATE SET id = 4;
INSERT INTO ocp VALUES (3) ON CONFLICT (id) DO UPDATE SET v = 'three' RETURNING *;
DROP TABLE occ2, occ, ocp;
-- plain UPDATE: the same rules for its SET list
CREATE TABLE ocu (a int PRIMARY KEY, b int, c text);
INSERT INTO ocu VALUES (1, 1, 'x');
UPDATE ocu SET b = 1, b = 2;
UPDATE ocu SET (b, c) = (1, 'a'), b = 3;
UPDATE ocu SET (b, c) = 1;
UPDATE ocu SET b = sum(a);
DROP TABLE ocu;
-- through a view, identity columns, EXCLUDED outside DO UPDATE, WITH, parameters
CREATE TABLE o3 (a int PRIMARY KEY, b int UNIQUE, c text, id int GENERATED ALWAYS AS IDENTITY);
CREATE VIEW o3v AS SELECT a, b, c FROM o3;
INSERT INTO o3 (a, b, c) VALUES (1, 1, 'x');
INSERT INTO o3v VALUES (1, 5, 'v') ON CONFLICT (a) DO UPDATE SET c = excluded.c RETURNING *;
INSERT INTO o3v VALUES (1, 5, 'v') ON CONFLICT (b) DO NOTHING;
INSERT INTO o3 (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET id = 5;
INSERT INTO o3 (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET c = excluded.b::text || '/' || excluded.id::text RETURNING a, c;
INSERT INTO o3 (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET c = 'r' RETURNING excluded.a;
INSERT INTO o3 (a, b) VALUES (1, 2) ON CONFLICT (a) DO UPDATE SET c = 'r' RETURNING o3.*, (SELECT count(*) FROM o3);
WITH w AS (INSERT INTO o3 (a, b) VALUES (1, 3) ON CONFLICT (a) DO UPDATE SET c = 'cte' RETURNING *) SELECT a, c FROM w;
PREPARE o3p(int, text) AS INSERT INTO o3 (a, c) VALUES ($1, $2) ON CONFLICT (a) DO UPDATE SET c = excluded.c || $2 RETURNING c;
EXECUTE o3p(1, 'p');
EXECUTE o3p(1, 'q');
DEALLOCATE o3p;
UPDATE o3 SET id = 5;
DROP VIEW o3v;
DROP TABLE o3;
-- a table without a primary key, NULLs never conflict
CREATE TABLE o4 (x int, y int);
CREATE UNIQUE INDEX o4_x ON o4 (x);
INSERT INTO o4 VALUES (1, 1);
INSERT INTO o4 VALUES (1, 2) ON CONFLICT (x) DO UPDATE SET y = excluded.y RETURNING *;
INSERT INTO o4 VALUES (1, 3) ON CONFLICT DO NOTHING;
INSERT INTO o4 VALUES (2, 3), (2, 4) ON CONFLICT (x) DO NOTHING;
INSERT INTO o4 VALUES (NULL, 1), (NULL, 2) ON CONFLICT (x) DO UPDATE SET y = 0;
SELECT * FROM o4 ORDER BY x, y;
DROP TABLE o4;
-- the primary key and another unique index conflict, the arbiter does not
CREATE TABLE o5 (a int PRIMARY KEY, b int UNIQUE, c text);
CREATE UNIQUE INDEX o5_lc ON o5 (lower(c));
INSERT INTO o5 VALUES (1, 1, 'x'), (2, 2, 'y');
INSERT INTO o5 VALUES (1, 2, 'new') ON CONFLICT (lower(c)) DO NOTHING;
INSERT INTO o5 VALUES (3, 2, 'new') ON CONFLICT (lower(c)) DO NOTHING;
INSERT INTO o5 VALUES (1, 2, 'Y') ON CONFLICT (lower(c)) DO UPDATE SET c = 'yy' RETURNING *;
DROP TABLE o5;
-- through views: the target, the SET list and EXCLUDED name the view's columns
CREATE TABLE o6 (a int PRIMARY KEY, b int, c int);
CREATE VIEW o6v AS SELECT a AS x, b AS y FROM o6 WHERE b > 0;
INSERT INTO o6 VALUES (1, 1, 1);
INSERT INTO o6v VALUES (1, 2) ON CONFLICT (x) DO UPDATE SET y = excluded.y + 10 RETURNING *;
INSERT INTO o6v VALUES (1, 2) ON CONFLICT (a) DO NOTHING;
INSERT INTO o6v VALUES (1, 3) ON CONFLICT (x) DO UPDATE SET y = excluded.y WHERE o6v.y > 0 RETURNING x, y;
INSERT INTO o6v VALUES (1, 3) ON CONFLICT (x) DO UPDATE SET c = 5;
INSERT INTO o6v AS w VALUES (1, 4) ON CONFLICT (x) DO UPDATE SET y = w.y + excluded.y RETURNING *;
INSERT INTO o6v VALUES (1, 4) ON CONFLICT (x) DO UPDATE SET y = 0 RETURNING excluded.y;
SELECT * FROM o6;
DROP VIEW o6v;
DROP TABLE o6;
CREATE TABLE o7 (a int PRIMARY KEY, b text);
CREATE UNIQUE INDEX o7_lb ON o7 (lower(b));
CREATE VIEW o7v AS SELECT a, b, lower(b) AS lb, a + 1 AS a1 FROM o7;
INSERT INTO o7 VALUES (1, 'X');
INSERT INTO o7v (a, b) VALUES (2, 'x') ON CONFLICT (lb) DO UPDATE SET b = excluded.b || excluded.lb RETURNING *;
INSERT INTO o7v (a, b) VALUES (1, 'q') ON CONFLICT (a) DO UPDATE SET b = excluded.b || excluded.a1 RETURNING *;
INSERT INTO o7v (a, b) VALUES (1, 'q') ON CONFLICT (a) DO UPDATE SET lb = 'z';
INSERT INTO o7v (a, b) VALUES (1, 'q') ON CONFLICT (a1) DO NOTHING;
SELECT * FROM o7;
DROP VIEW o7v;
DROP TABLE o7;
-- no arbiter is the planner's error in PostgreSQL: after the statement's
-- other errors, and not at PREPARE
CREATE TABLE o8 (a int PRIMARY KEY, b int, c int CHECK (c > 0));
INSERT INTO o8 VALUES (1) ON CONFLICT (b) DO UPDATE SET zz = 1;
INSERT INTO o8 VALUES (1) ON CONFLICT (b) DO UPDATE SET b = excluded.zz;
INSERT INTO o8 VALUES (1) ON CONFLICT ON CONSTRAINT o8_c_check DO UPDATE SET zz = 1;
INSERT INTO o8 SELECT 1 WHERE false ON CONFLICT (b) DO NOTHING;
PREPARE o8p(int, int) AS INSERT INTO o8 VALUES ($1, $2) ON CONFLICT (b) DO UPDATE SET a = o8.a + 100 RETURNING *;
EXECUTE o8p(2, 1);
CREATE UNIQUE INDEX o8_b ON o8 (b);
INSERT INTO o8 VALUES (1, 1);
EXECUTE o8p(2, 1);
DROP INDEX o8_b;
EXECUTE o8p(3, 1);
DEALLOCATE o8p;
DROP TABLE o8;
-- EXPLAIN
CREATE TABLE o9 (a int PRIMARY KEY, b int UNIQUE, c int);
CREATE UNIQUE INDEX o9_c ON o9 (c) WHERE c > 0;
EXPLAIN (COSTS OFF) INSERT INTO o9 VALUES (1) ON CONFLICT (a) DO NOTHING;
EXPLAIN (COSTS OFF) INSERT INTO o9 VALUES (1) ON CONFLICT DO NOTHING;
EXPLAIN (COSTS OFF) INSERT INTO o9 VALUES (1) ON CONFLICT (b) DO UPDATE SET c = excluded.c + 1 WHERE o9.c > 5 AND excluded.a <> 3;
EXPLAIN (COSTS OFF) INSERT INTO o9 VALUES (1) ON CONFLICT (c) WHERE c > 0 DO UPDATE SET c = 1;
EXPLAIN (COSTS OFF, FORMAT JSON) INSERT INTO o9 VALUES (1) ON CONFLICT ON CONSTRAINT o9_b_key DO NOTHING;
DROP TABLE o9;
