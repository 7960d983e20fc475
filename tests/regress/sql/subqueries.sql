--
-- subqueries: scalar subqueries, IN / NOT IN with NULLs, EXISTS, ANY/SOME/ALL,
-- correlated subqueries at several levels, subqueries in FROM, row comparisons,
-- ARRAY(subquery), and the errors (21000, 42601, 42P01 ...).
--
CREATE TABLE t (id int PRIMARY KEY, v int, grp text);
CREATE TABLE u (id int, w int);
INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'x'), (3, NULL, 'y'), (4, 40, 'y'), (5, 50, NULL);
INSERT INTO u VALUES (1, 10), (2, NULL), (3, 30), (3, 31);
-- scalar
SELECT (SELECT max(v) FROM t);
SELECT id, (SELECT w FROM u WHERE u.id = t.id AND u.w IS NOT NULL ORDER BY w LIMIT 1) FROM t ORDER BY id;
SELECT id, (SELECT count(*) FROM u WHERE u.id = t.id) FROM t ORDER BY id;
SELECT id FROM t WHERE v > (SELECT avg(v) FROM t) ORDER BY id;
SELECT (SELECT 1 WHERE false);
SELECT (SELECT v FROM t WHERE id = 1) + 1;
SELECT id, (SELECT w FROM u WHERE u.id = t.id) FROM t ORDER BY id;
SELECT (SELECT id, v FROM t WHERE id = 1);
-- key ranges bound by an outer value that is NULL select nothing
SELECT u.id, u.w, (SELECT count(*) FROM t WHERE t.id > u.w / 10) FROM u ORDER BY 1, 2;
SELECT u.id, u.w, (SELECT count(*) FROM t a JOIN t b ON a.id = b.id WHERE a.id <= u.w / 10) FROM u ORDER BY 1, 2;
-- IN / NOT IN
SELECT id FROM t WHERE id IN (SELECT id FROM u) ORDER BY id;
SELECT id FROM t WHERE id NOT IN (SELECT id FROM u) ORDER BY id;
SELECT id FROM t WHERE v IN (SELECT w FROM u) ORDER BY id;
SELECT id FROM t WHERE v NOT IN (SELECT w FROM u) ORDER BY id;
SELECT id FROM t WHERE v NOT IN (SELECT w FROM u WHERE w IS NOT NULL) ORDER BY id;
SELECT 1 IN (SELECT w FROM u), 2 IN (SELECT w FROM u), 2 NOT IN (SELECT w FROM u), NULL IN (SELECT w FROM u);
SELECT 1 IN (SELECT 1 WHERE false), NULL IN (SELECT 1 WHERE false), NULL NOT IN (SELECT 1 WHERE false);
SELECT id, v IN (SELECT w FROM u) AS in_u FROM t ORDER BY id;
SELECT id FROM t WHERE (id, v) IN (SELECT id, w FROM u) ORDER BY id;
SELECT id FROM t WHERE (id, v) NOT IN (SELECT id, w FROM u) ORDER BY id;
SELECT id FROM t WHERE id IN (1, 3, NULL) ORDER BY id;
SELECT id FROM t WHERE id NOT IN (1, 3, NULL) ORDER BY id;
SELECT id FROM t WHERE id IN (SELECT id FROM u WHERE u.w > t.v) ORDER BY id;
-- EXISTS
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id) ORDER BY id;
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.id = t.id) ORDER BY id;
SELECT EXISTS (SELECT 1 FROM u), EXISTS (SELECT 1 FROM u WHERE false);
SELECT id, EXISTS (SELECT * FROM u WHERE u.w = t.v) FROM t ORDER BY id;
-- ANY / ALL
SELECT id FROM t WHERE v > ANY (SELECT w FROM u) ORDER BY id;
SELECT id FROM t WHERE v > ALL (SELECT w FROM u WHERE w IS NOT NULL) ORDER BY id;
SELECT id FROM t WHERE v > ALL (SELECT w FROM u) ORDER BY id;
SELECT id FROM t WHERE v = SOME (SELECT w FROM u) ORDER BY id;
SELECT id FROM t WHERE v <> ALL (SELECT w FROM u WHERE w IS NOT NULL) ORDER BY id;
SELECT 5 > ALL (SELECT 1 WHERE false), 5 > ANY (SELECT 1 WHERE false);
SELECT id FROM t WHERE v = ANY (ARRAY[10, 40]) ORDER BY id;
SELECT id FROM t WHERE v <> ALL (ARRAY[10, 40]) ORDER BY id;
SELECT 1 = ANY (ARRAY[1, NULL]), 2 = ANY (ARRAY[1, NULL]), 2 <> ALL (ARRAY[1, NULL]), 1 = ALL ('{}'::int[]);
SELECT 'a' LIKE ANY (ARRAY['%a', 'b%']), 'abc' LIKE ALL (ARRAY['a%', '%c']);
-- correlated, several levels
SELECT id FROM t WHERE v = (SELECT max(v) FROM t t2 WHERE t2.grp = t.grp) ORDER BY id;
SELECT id, (SELECT count(*) FROM u WHERE u.id IN (SELECT t2.id FROM t t2 WHERE t2.v > t.v)) FROM t ORDER BY id;
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id AND EXISTS (SELECT 1 FROM t t3 WHERE t3.id = u.id AND t3.v = t.v)) ORDER BY id;
SELECT grp, (SELECT sum(w) FROM u WHERE u.id <= max(t.id)) FROM t GROUP BY grp ORDER BY grp;
SELECT grp, sum(v) FROM t GROUP BY grp HAVING sum(v) > (SELECT min(w) FROM u) ORDER BY grp;
-- FROM
SELECT * FROM (SELECT id, v * 2 AS dv FROM t) s WHERE dv > 30 ORDER BY id;
SELECT s.c FROM (SELECT count(*) AS c FROM t) s;
SELECT * FROM (SELECT grp, sum(v) FROM t GROUP BY grp) AS s(g, total) ORDER BY g;
SELECT * FROM (SELECT 1) AS x;
SELECT * FROM (SELECT * FROM (SELECT id FROM t WHERE id < 3) a) b ORDER BY 1;
-- ARRAY(subquery)
SELECT ARRAY(SELECT id FROM t ORDER BY id DESC);
SELECT ARRAY(SELECT v FROM t WHERE false);
SELECT id, ARRAY(SELECT w FROM u WHERE u.id = t.id ORDER BY w) FROM t ORDER BY id;
-- row comparison
SELECT (1, 2) = (1, 2), (1, 2) < (1, 3), (1, NULL) = (1, 2), (2, NULL) > (1, 5);
SELECT ROW(1, 'a') IS NULL, ROW(NULL, NULL) IS NULL, ROW(1, NULL) IS NOT NULL;
SELECT id FROM t WHERE (id, v) = (SELECT 4, 40);
-- errors
SELECT (SELECT v FROM t);
SELECT id FROM t WHERE v = (SELECT w FROM u);
SELECT id FROM t WHERE id IN (SELECT id, w FROM u);
SELECT (SELECT nosuch FROM u);
SELECT * FROM (SELECT 1);
SELECT id FROM t WHERE v > ANY (SELECT 'x');
SELECT 1 = ANY (1);
SELECT ARRAY(SELECT 1, 2);
SELECT * FROM t WHERE EXISTS (SELECT FROM nosuch);
DROP TABLE t, u;
