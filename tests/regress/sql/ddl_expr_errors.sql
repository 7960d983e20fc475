-- Expressions in CREATE TABLE and ALTER TABLE are checked when the table is
-- created or altered, as PostgreSQL does: CHECK constraints over columns that
-- exist, of type boolean, without subqueries, aggregates or parameters; DEFAULT
-- expressions without subqueries or parameters.
CREATE TABLE ck1 (a int CHECK (misspelled > 0));
CREATE TABLE ck2 (a int, CHECK (a > 'x'));
CREATE TABLE ck6 (a int CHECK (a > (SELECT 1)));
CREATE TABLE ck7 (a int CHECK (sum(a) > 0));
CREATE TABLE ck9 (a int CHECK (a > $1));
-- a column CHECK may use a column declared after it
CREATE TABLE ck4 (a int CHECK (b > a), b int);
INSERT INTO ck4 VALUES (1, 2);
INSERT INTO ck4 VALUES (3, 2);
CREATE TABLE ck5 (a int, b text, CONSTRAINT c5 CHECK (length(b) < a) NOT VALID);
CREATE TABLE ck12 (a int, b int, CHECK (a > b), CHECK (a < 100));
INSERT INTO ck12 VALUES (5, 1), (200, 1);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
 WHERE conrelid IN ('ck4'::regclass, 'ck5'::regclass, 'ck12'::regclass) ORDER BY 1;
CREATE TABLE ck10 (a int);
ALTER TABLE ck10 ADD CHECK (a > $1);
ALTER TABLE ck10 ADD CHECK (a > (SELECT 1));
ALTER TABLE ck10 ADD CHECK (nope > 0);
ALTER TABLE ck10 ADD COLUMN b int DEFAULT (SELECT 1);
ALTER TABLE ck10 ADD COLUMN c int DEFAULT $1;
ALTER TABLE ck10 ADD CHECK (a > 0);
INSERT INTO ck10 VALUES (-1);
DROP TABLE ck4, ck5, ck10, ck12;
-- a DEFAULT cannot read columns
CREATE TABLE df1 (a int, b int DEFAULT (a + 1));
CREATE TABLE df2 (a int);
ALTER TABLE df2 ADD COLUMN b int DEFAULT (a);
ALTER TABLE df2 ALTER COLUMN a SET DEFAULT (a);
DROP TABLE df2;
CREATE TABLE df3 (a int DEFAULT 'x');
CREATE TABLE df4 (a int DEFAULT now());
CREATE TABLE df5 (a int DEFAULT nosuchfunc(1));
CREATE TABLE df6 (a int DEFAULT 2147483648);
CREATE TABLE df7 (a varchar(3) DEFAULT 'abcdef', b int DEFAULT 1 + 2);
INSERT INTO df7 DEFAULT VALUES;
CREATE TABLE df8 (a numeric(4,1) DEFAULT 12.34, b date DEFAULT '2026-01-01', c text DEFAULT upper('x'));
INSERT INTO df8 DEFAULT VALUES;
SELECT * FROM df8;
DROP TABLE df8;
