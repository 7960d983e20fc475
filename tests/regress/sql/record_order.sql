--
-- record_order: ORDER BY, DISTINCT, GROUP BY, UNION and comparisons of row
-- values (record_cmp: field by field, NULL after any value).
--
CREATE TABLE rp (a int, b text);
INSERT INTO rp VALUES (2, 'b'), (1, 'z'), (2, 'a'), (NULL, 'x'), (1, NULL), (2, 'a');
SELECT ROW(a, b) AS r FROM rp ORDER BY 1;
SELECT ROW(a, b) AS r FROM rp ORDER BY 1 DESC;
SELECT DISTINCT ROW(a, b) AS r FROM rp ORDER BY 1;
SELECT ROW(a, b) AS r, count(*) FROM rp GROUP BY ROW(a, b) ORDER BY 1;
SELECT r FROM (SELECT ROW(a, b) AS r FROM rp UNION SELECT ROW(3, 'c')) s ORDER BY r;
SELECT g, ROW(g, g * 2) FROM generate_series(1, 5) g ORDER BY ROW(g % 2, -g);
SELECT rp FROM rp ORDER BY rp;
SELECT max(x) FROM (SELECT ROW(a, b)::text AS x FROM rp) s;
DROP TABLE rp;
