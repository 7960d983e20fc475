--
-- like_indexes: CREATE TABLE (LIKE src INCLUDING INDEXES / ALL) copies the
-- source's indexes (plain, unique, expression, partial, INCLUDE, DESC)
-- besides its primary key and unique constraints, with PostgreSQL's names
-- for the copies (table_columns_idx, from the index's column names); each
-- INCLUDING option alone and EXCLUDING after ALL; the copies work.
--
CREATE TABLE li_src (a int PRIMARY KEY, b text UNIQUE, c int DEFAULT 5 CHECK (c > 0), d text,
  e int GENERATED ALWAYS AS IDENTITY);
CREATE INDEX ON li_src (d);
CREATE INDEX ON li_src (lower(d));
CREATE UNIQUE INDEX li_src_cd ON li_src (c, d) WHERE c > 1;
CREATE INDEX ON li_src (d DESC NULLS LAST) INCLUDE (c);
CREATE INDEX li_named ON li_src ((b || 'x'), (a + 1), upper(b), upper(b));
CREATE INDEX ON li_src (coalesce(c, 0));
CREATE INDEX ON li_src ((b::varchar));
COMMENT ON COLUMN li_src.b IS 'bee';
COMMENT ON INDEX li_src_cd IS 'partial unique';
\d li_src
CREATE TABLE li1 (LIKE li_src INCLUDING ALL);
\d li1
SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c
  WHERE c.relname LIKE 'li1%' AND c.relkind = 'i' ORDER BY 1;
SELECT col_description('li1'::regclass, 2);
CREATE TABLE li2 (LIKE li_src INCLUDING INDEXES);
\d li2
SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c
  WHERE c.relname LIKE 'li2%' AND c.relkind = 'i' ORDER BY 1;
CREATE TABLE li3 (LIKE li_src INCLUDING ALL EXCLUDING INDEXES);
\d li3
CREATE TABLE li4 (LIKE li_src);
\d li4
CREATE TABLE li5 (LIKE li_src INCLUDING CONSTRAINTS);
\d li5
CREATE TABLE li6 (LIKE li_src INCLUDING DEFAULTS INCLUDING IDENTITY);
\d li6
CREATE TABLE li7 (LIKE li_src INCLUDING COMMENTS);
SELECT col_description('li7'::regclass, 2);
-- columns around the LIKE: the copies follow the columns' new positions
CREATE TABLE li8 (x int, LIKE li_src INCLUDING INDEXES, y int);
\d li8
-- two LIKE clauses: names stay distinct
CREATE TABLE li_other (p int, q text);
CREATE INDEX ON li_other (q);
CREATE TABLE li9 (LIKE li_src INCLUDING INDEXES EXCLUDING CONSTRAINTS, LIKE li_other INCLUDING INDEXES);
\d li9
-- a copied unique index is enforced; the partial one only where c > 1
INSERT INTO li2 VALUES (1, 'one', 2, 'x', 1);
INSERT INTO li2 VALUES (2, 'two', 2, 'x', 2);
INSERT INTO li2 VALUES (3, 'three', 1, 'x', 3);
INSERT INTO li2 VALUES (4, 'four', 1, 'x', 4);
INSERT INTO li2 VALUES (5, 'one', 3, 'y', 5);
SELECT a, b FROM li2 WHERE lower(d) = 'x' ORDER BY a;
-- the source's rows are not copied, its indexes stay its own
SELECT count(*) FROM li1;
DROP TABLE li_src;
\d li1
DROP TABLE li1, li2, li3, li4, li5, li6, li7, li8, li9, li_other;
-- a view has no indexes to copy
CREATE VIEW li_v AS SELECT 1 AS x;
CREATE TABLE li10 (LIKE li_v INCLUDING ALL);
\d li10
DROP TABLE li10;
DROP VIEW li_v;
