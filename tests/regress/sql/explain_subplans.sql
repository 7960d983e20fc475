--
-- explain_subplans: EXPLAIN's names and numbers for CTEs, InitPlans and
-- SubPlans as PostgreSQL prints them, on plans whose shape is the same in
-- both: a CTE scanned twice (by its aliases, else w and w_1), the
-- statement's CTEs numbered first and shown on the top node even when only
-- an InitPlan scans them, an InitPlan inside an InitPlan numbered first,
-- a recursive CTE taking two parameters.
--
CREATE TABLE ex (id int PRIMARY KEY, g int, s text);
CREATE TABLE ey (id int PRIMARY KEY, v int);
EXPLAIN (COSTS OFF) WITH w AS MATERIALIZED (SELECT * FROM ex WHERE g = 1) SELECT * FROM w a JOIN w b ON a.id = b.id;
EXPLAIN (COSTS OFF) WITH w AS MATERIALIZED (SELECT * FROM ex WHERE g = 1) SELECT (SELECT count(*) FROM w), (SELECT max(id) FROM w);
EXPLAIN (COSTS OFF) SELECT (SELECT sum(v) FROM ey), (SELECT count(*) FROM ey WHERE ey.v = ex.g) FROM ex WHERE g > (SELECT avg(v) FROM ey);
EXPLAIN (COSTS OFF) SELECT id FROM ex WHERE g = (SELECT sum(v) FROM ey WHERE v > (SELECT count(*) FROM ex e3));
EXPLAIN (COSTS OFF) SELECT id FROM ex WHERE s = (SELECT max(s) FROM ex e2 WHERE e2.g = (SELECT sum(v) FROM ey));
EXPLAIN (COSTS OFF) WITH w AS MATERIALIZED (SELECT g, (SELECT sum(v) FROM ey) AS t FROM ex) SELECT * FROM w WHERE g > (SELECT count(*) FROM ey);
EXPLAIN (COSTS OFF) WITH w AS MATERIALIZED (SELECT * FROM ex), u AS MATERIALIZED (SELECT * FROM ey) SELECT (SELECT count(*) FROM u), * FROM w WHERE w.g > (SELECT sum(v) FROM u);
EXPLAIN (COSTS OFF) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r WHERE n > (SELECT count(*) FROM ey) LIMIT 3;
EXPLAIN (COSTS OFF) WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r WHERE n > (SELECT count(*) FROM r);
INSERT INTO ex SELECT i, i % 3, 's' || i FROM generate_series(1, 9) i;
INSERT INTO ey SELECT i, i FROM generate_series(1, 4) i;
WITH w AS MATERIALIZED (SELECT * FROM ex WHERE g = 1) SELECT (SELECT count(*) FROM w), (SELECT max(id) FROM w);
SELECT id FROM ex WHERE g = (SELECT sum(v) - 10 FROM ey WHERE v > (SELECT count(*) - 9 FROM ex e3)) ORDER BY id;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 9) SELECT * FROM r WHERE n > (SELECT count(*) FROM ey);
DROP TABLE ex, ey;
