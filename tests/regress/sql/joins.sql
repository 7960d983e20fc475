--
-- joins: INNER, LEFT/RIGHT/FULL OUTER, CROSS, USING, NATURAL, LATERAL, ON with
-- non-equi conditions, many-table joins, self joins, joins with NULL keys.
--
CREATE TABLE a (id int PRIMARY KEY, x text, k int);
CREATE TABLE b (id int PRIMARY KEY, y text, k int);
CREATE TABLE c (k int, z text);
INSERT INTO a VALUES (1, 'a1', 10), (2, 'a2', 20), (3, 'a3', NULL), (4, 'a4', 40);
INSERT INTO b VALUES (1, 'b1', 10), (2, 'b2', 30), (5, 'b5', NULL), (6, 'b6', 10);
INSERT INTO c VALUES (10, 'c10'), (20, 'c20'), (20, 'c20b'), (NULL, 'cnull');
SELECT a.id, b.id FROM a JOIN b ON a.k = b.k ORDER BY 1, 2;
SELECT a.id, b.id FROM a INNER JOIN b ON a.id = b.id ORDER BY 1;
SELECT a.id, b.id FROM a, b WHERE a.id = b.id ORDER BY 1;
SELECT a.id, b.id FROM a LEFT JOIN b ON a.k = b.k ORDER BY 1, 2;
SELECT a.id, b.id FROM a RIGHT JOIN b ON a.k = b.k ORDER BY 2, 1;
SELECT a.id, b.id FROM a FULL JOIN b ON a.k = b.k ORDER BY 1, 2;
SELECT a.id, b.id FROM a FULL OUTER JOIN b ON a.k = b.k AND a.id > 1 ORDER BY 1, 2;
SELECT a.id, b.id FROM a LEFT JOIN b ON a.k = b.k AND b.id > 1 ORDER BY 1, 2;
SELECT a.id, b.id FROM a LEFT JOIN b ON a.k = b.k WHERE b.id IS NULL ORDER BY 1;
SELECT a.id, b.id FROM a LEFT JOIN b ON true ORDER BY 1, 2 LIMIT 5;
SELECT a.id, b.id FROM a LEFT JOIN b ON false ORDER BY 1;
SELECT a.id, b.id FROM a JOIN b ON a.k < b.k ORDER BY 1, 2;
SELECT count(*) FROM a CROSS JOIN b;
SELECT a.id, b.id FROM a CROSS JOIN b WHERE a.id = 1 ORDER BY 2;
SELECT * FROM a JOIN b USING (id) ORDER BY id;
SELECT * FROM a JOIN b USING (id, k) ORDER BY id;
SELECT * FROM a LEFT JOIN b USING (k) ORDER BY k, a.id, b.id;
SELECT * FROM a FULL JOIN b USING (k) ORDER BY k, 2, 4;
SELECT k, a.id, b.id FROM a RIGHT JOIN b USING (k) ORDER BY 1, 2, 3;
SELECT * FROM a NATURAL JOIN b ORDER BY id;
SELECT * FROM a NATURAL LEFT JOIN c ORDER BY k, id;
SELECT * FROM a NATURAL FULL JOIN c ORDER BY k, id, z;
SELECT * FROM (a JOIN b USING (id)) j ORDER BY id;
SELECT j.id FROM (a JOIN b USING (id)) AS j ORDER BY 1;
-- JOIN ... USING (...) AS alias names the merged columns only
SELECT j.id, a.x, b.y FROM a JOIN b USING (id) AS j ORDER BY 1;
SELECT j.*, a.id, b.id FROM a FULL JOIN b USING (k) AS j ORDER BY 1, 2, 3;
SELECT * FROM a JOIN b USING (id) AS j, LATERAL (SELECT j.id * 10 AS t) s ORDER BY 1;
SELECT a.id, b.id, c.z FROM a JOIN b ON a.k = b.k JOIN c ON c.k = a.k ORDER BY 1, 2, 3;
SELECT a.id, b.id, c.z FROM a LEFT JOIN b ON a.k = b.k LEFT JOIN c ON c.k = a.k ORDER BY 1, 2, 3;
SELECT a.id, c.z FROM a LEFT JOIN (b JOIN c ON b.k = c.k) ON a.k = b.k ORDER BY 1, 2;
SELECT a.id, b.id, c.z FROM a, b, c WHERE a.k = b.k AND b.k = c.k ORDER BY 1, 2, 3;
SELECT x.id, y.id FROM a x JOIN a y ON x.id = y.id - 1 ORDER BY 1;
SELECT a.id FROM a JOIN b ON a.id = b.id JOIN c ON c.k = b.k JOIN a a2 ON a2.id = a.id ORDER BY 1;
SELECT a.id, b.id FROM a LEFT JOIN b ON a.id = b.id WHERE coalesce(b.y, 'none') = 'none' ORDER BY 1;
SELECT a.id, s.cnt FROM a LEFT JOIN (SELECT k, count(*) AS cnt FROM c GROUP BY k) s ON s.k = a.k ORDER BY 1;
SELECT * FROM a JOIN b ON a.k IS NOT DISTINCT FROM b.k ORDER BY a.id, b.id;
SELECT count(*) FROM a a1, a a2, a a3, a a4;
SELECT a.id, b.id FROM a JOIN b ON a.k = b.k OR a.id = b.id ORDER BY 1, 2;
SELECT a.id FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k) ORDER BY 1;
-- LATERAL
SELECT a.id, l.y FROM a, LATERAL (SELECT y FROM b WHERE b.k = a.k ORDER BY b.id LIMIT 1) l ORDER BY 1;
SELECT a.id, l.y FROM a LEFT JOIN LATERAL (SELECT y FROM b WHERE b.k = a.k ORDER BY b.id DESC LIMIT 1) l ON true ORDER BY 1;
SELECT a.id, g FROM a, LATERAL generate_series(1, a.id) g ORDER BY 1, 2;
SELECT a.id, l.c FROM a CROSS JOIN LATERAL (SELECT count(*) AS c FROM c WHERE c.k = a.k) l ORDER BY 1;
SELECT a.id, l.s FROM a JOIN LATERAL (SELECT a.id * 10 AS s) l ON l.s > 15 ORDER BY 1;
SELECT a.id, l.* FROM a, LATERAL (SELECT b.id AS bid, c.z FROM b JOIN c ON c.k = b.k WHERE b.k = a.k) l ORDER BY 1, 2, 3;
SELECT x, y FROM generate_series(1, 3) x, LATERAL generate_series(x, 3) y ORDER BY 1, 2;
SELECT a.id, l.n FROM a, b JOIN LATERAL (SELECT a.id + b.id AS n) l ON true WHERE b.id < 3 ORDER BY 1, 2;
SELECT a.id, (SELECT max(v) FROM (VALUES (a.id), (a.k)) t(v)) FROM a ORDER BY 1;
SELECT a.id, u FROM a, LATERAL unnest(ARRAY[a.k, a.id]) u ORDER BY 1, 2;
SELECT a.id, v.w FROM a, LATERAL (VALUES (a.x), (a.x || '!')) v(w) ORDER BY 1, 2;
-- joins on primary keys (Strata streams both tables in key order: merge join)
CREATE TABLE ma (a int, b int, v int, PRIMARY KEY (a, b));
CREATE TABLE mb (a int, b int, w int, PRIMARY KEY (a, b));
INSERT INTO ma SELECT g / 7, g % 7, g FROM generate_series(0, 2999) g;
INSERT INTO mb SELECT g / 5, g % 5, g * 10 FROM generate_series(0, 2999, 3) g;
SELECT count(*), sum(ma.v), sum(mb.w) FROM ma JOIN mb ON ma.a = mb.a;
SELECT count(*), sum(ma.v), sum(mb.w), count(mb.a) FROM ma LEFT JOIN mb ON ma.a = mb.a AND ma.v < mb.w / 10;
SELECT count(*), sum(ma.v), sum(mb.w), count(ma.a) FROM ma RIGHT JOIN mb ON ma.a = mb.a AND ma.v < mb.w / 10;
SELECT count(*), count(ma.a), count(mb.a) FROM ma FULL JOIN mb ON ma.a = mb.a AND ma.b = mb.b;
SELECT count(*), count(ma.a), count(mb.a) FROM ma FULL JOIN mb ON ma.a = mb.a AND ma.v % 4 = mb.w % 4;
SELECT * FROM ma FULL JOIN mb ON ma.a = mb.a AND ma.b = mb.b WHERE ma.a BETWEEN 400 AND 402 OR mb.a BETWEEN 500 AND 501 ORDER BY 1, 2, 4, 5;
SELECT * FROM ma JOIN mb USING (a, b) WHERE a = 10 ORDER BY b;
SELECT ma.a, count(*) FROM ma JOIN mb ON mb.a = ma.a WHERE ma.a < 4 GROUP BY ma.a ORDER BY 1;
SELECT count(*) FROM ma JOIN mb ON ma.a = mb.a JOIN ma m2 ON m2.a = ma.a AND m2.b = ma.b;
SELECT count(*) FROM (SELECT * FROM ma WHERE v % 2 = 0) x JOIN mb ON x.a = mb.a AND x.b = mb.b;
-- right rows of one key spanning several batches
CREATE TABLE mc (a int, b int, PRIMARY KEY (a, b));
INSERT INTO mc SELECT g % 3, g FROM generate_series(1, 1200) g;
SELECT count(*), count(mc.a), count(m2.a), sum(m2.b - mc.b) FROM mc FULL JOIN mc m2 ON mc.a = m2.a AND mc.b > m2.b + 1190;
SELECT count(*), sum(mc.b), sum(m2.b) FROM mc JOIN mc m2 ON mc.a = m2.a;
SELECT mc.a, count(*) FROM ma RIGHT JOIN mc ON ma.a = mc.a AND ma.b = mc.b % 7 GROUP BY 1 ORDER BY 1;
-- integer keys of different widths (hashed and merged like equal types)
CREATE TABLE mw (id bigint PRIMARY KEY, s smallint);
INSERT INTO mw SELECT g - 3, g % 7 FROM generate_series(1, 500) g;
SELECT count(*), sum(ma.v), sum(mw.id) FROM ma JOIN mw ON ma.a = mw.id;
SELECT count(*), count(ma.a), count(mw.id) FROM ma FULL JOIN mw ON ma.a = mw.id AND ma.b = mw.s;
SELECT count(*), sum(v) FROM ma JOIN mw ON ma.v = mw.s;
SELECT count(*) FROM ma WHERE a IN (SELECT id FROM mw WHERE s = 2);
SELECT count(*) FROM mw WHERE s NOT IN (SELECT b FROM ma WHERE a < 100);
SELECT 3000000000 IN (SELECT a FROM ma), NULL::int8 IN (SELECT s FROM mw), 6::int2 IN (SELECT id FROM mw);
DROP TABLE ma, mb, mc, mw;
-- errors
SELECT * FROM a JOIN b ON nosuch = 1;
SELECT id FROM a JOIN b ON a.k = b.k;
SELECT * FROM a JOIN b USING (nosuch);
SELECT * FROM a JOIN b USING (x);
SELECT * FROM a JOIN b ON a.x;
SELECT * FROM a JOIN b ON a.k = b.k JOIN c ON c.k = d.k;
SELECT a.id FROM a, (SELECT b.id FROM b WHERE b.k = a.k) s;
SELECT * FROM a NATURAL JOIN b USING (id);
SELECT a.id FROM a AS x;
-- ON sees only the two sides of its join
SELECT * FROM a JOIN (b JOIN c ON a.k = c.k) ON true;
SELECT * FROM a, b JOIN c ON a.k = c.k;
SELECT * FROM a, b JOIN c ON x = c.z;
SELECT * FROM a, b JOIN c ON a = c.k;
SELECT * FROM a, (SELECT x) s;
-- LATERAL references need INNER or LEFT joins
SELECT * FROM a FULL JOIN LATERAL (SELECT * FROM b WHERE b.id > a.id) s ON true;
SELECT * FROM a RIGHT JOIN LATERAL (SELECT x) s ON true;
SELECT * FROM a RIGHT JOIN LATERAL generate_series(1, a.id) g ON true;
SELECT * FROM a JOIN b USING (id) AS j WHERE j.y = 'b1';
SELECT * FROM (a JOIN b USING (id) AS j) AS z WHERE j.id = 1;
SELECT * FROM a JOIN b USING (id) AS a;
DROP TABLE a, b, c;
