--
-- insert_setop: INSERT ... SELECT of a set operation (UNION, INTERSECT,
-- EXCEPT) converts each result column to its target column as any other
-- INSERT source does: assignment casts (numeric to int rounds, int to text)
-- and the column's typmod (too long: 22001 without a position; numeric(p,s)
-- rounds), also under ORDER BY / LIMIT and with RETURNING.
--
CREATE TABLE ins_setop (i int, t text, v varchar(3), n numeric(5,2));
INSERT INTO ins_setop (i, t) SELECT 1.5, 1 UNION ALL SELECT 2, 2;
INSERT INTO ins_setop (i, t) SELECT 3.5, 3 UNION SELECT 4, 4 ORDER BY 1 DESC LIMIT 1;
INSERT INTO ins_setop (v) SELECT 'abcd' UNION ALL SELECT 'x';
INSERT INTO ins_setop (v) VALUES ('abcd') UNION ALL VALUES ('x');
INSERT INTO ins_setop (v) SELECT 'ab' UNION SELECT 'x' EXCEPT SELECT 'x';
INSERT INTO ins_setop (n) SELECT 1.005 UNION ALL SELECT 2 INTERSECT SELECT 2;
INSERT INTO ins_setop (i, t) SELECT 7, 7 UNION ALL SELECT 7.6, 8 RETURNING i, t;
INSERT INTO ins_setop (v, n) SELECT 'abc', 99.999 UNION SELECT 'abc', 1;
SELECT * FROM ins_setop ORDER BY i, t, v, n;
SELECT x::int FROM (SELECT 1.5 AS x UNION SELECT 2.5) s ORDER BY 1;
DROP TABLE ins_setop;
