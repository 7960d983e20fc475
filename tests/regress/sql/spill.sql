--
-- spill: operators past work_mem. With work_mem at its minimum the sort runs
-- to temporary files and merges them (external sort), hash aggregation and
-- hashed DISTINCT partition new groups to files, and the hash join
-- partitions both sides (Grace hash join, outer joins and NULL keys
-- included); the results must not change.
--
SET work_mem = '64kB';
CREATE TABLE sp_l AS SELECT g AS id, g % 3000 AS k, md5(g::text) AS s FROM generate_series(1, 30000) g;
CREATE TABLE sp_r AS SELECT g AS id, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 4000 END AS k, md5((g * 3)::text) AS t
  FROM generate_series(1, 20000) g;
-- external sort
SELECT id, k, s FROM sp_l ORDER BY s LIMIT 5;
SELECT id, k FROM sp_l ORDER BY s DESC LIMIT 3 OFFSET 15000;
SELECT md5(string_agg(s, ',' ORDER BY s)) FROM sp_l;
SELECT sum(x) FROM (SELECT k AS x FROM sp_l ORDER BY s, id) t;
SELECT id, row_number() OVER (ORDER BY s) FROM sp_l ORDER BY 2 DESC LIMIT 3;
-- hash aggregation and DISTINCT
SELECT count(*), sum(c), max(c) FROM (SELECT s, count(*) AS c FROM sp_l GROUP BY s) t;
SELECT count(*), sum(c) FROM (SELECT k, count(*) AS c FROM sp_l GROUP BY k) t;
SELECT k % 7 AS m, count(DISTINCT s), sum(id) FROM sp_l GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(n) FROM (SELECT k, s, count(*) AS n FROM sp_l GROUP BY ROLLUP (k, s)) t;
SELECT count(*) FROM (SELECT DISTINCT s FROM sp_l) t;
SELECT count(*) FROM (SELECT s FROM sp_l UNION SELECT t FROM sp_r) t;
-- hash join
SELECT count(*), sum(l.id), sum(r.id) FROM sp_l l JOIN sp_r r ON l.k = r.k;
SELECT count(*), count(r.id) FROM sp_l l LEFT JOIN sp_r r ON l.k = r.k;
SELECT count(*), count(l.id), count(r.id) FROM sp_l l RIGHT JOIN sp_r r ON l.k = r.k;
SELECT count(*), count(l.id), count(r.id) FROM sp_l l FULL JOIN sp_r r ON l.k = r.k;
SELECT count(*) FROM sp_l l JOIN sp_r r ON l.k = r.k AND l.id < r.id;
SELECT l.id, r.id FROM sp_l l JOIN sp_r r ON l.k = r.k ORDER BY l.id, r.id LIMIT 5;
RESET work_mem;
DROP TABLE sp_l, sp_r;
